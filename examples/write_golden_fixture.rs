//! Writes a golden fixture log into the folder given as the first argument
//! (which must not exist yet), from the events of the version given as the
//! second (`v1` to `v1.5`, or `v2`: sealed, default the newest), e.g.
//! `cargo run --example write_golden_fixture -- tests/fixtures/v2 v2`.
//!
//! Run it once per format version. A fixture is never regenerated to make a
//! test pass: it is the evidence that old logs keep replaying.

#[path = "../tests/golden_events.rs"]
mod golden_events;

use std::sync::Arc;
use std::time::Duration;

use engram_log::{FileStorage, HmacKey, Log, LogConfig, ManualClock, MasterKey};
use golden_events::{
    GOLDEN_KEY, GOLDEN_MASTER_KEY, GOLDEN_SEGMENT_BYTES, GOLDEN_T0_MS, GOLDEN_V2_PURGED,
    golden_v1_1_batches, golden_v1_2_batches, golden_v1_3_batches, golden_v1_4_batches,
    golden_v1_5_batches, golden_v1_batches, golden_v2_batches,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(dir) = std::env::args_os().nth(1).map(std::path::PathBuf::from) else {
        return Err("usage: write_golden_fixture DIR [v1|v1.1|v1.2|v1.3|v1.4|v1.5|v2]".into());
    };
    let version = std::env::args().nth(2).unwrap_or_else(|| "v2".to_owned());
    let batches = match version.as_str() {
        "v1" => golden_v1_batches(),
        "v1.1" => golden_v1_1_batches(),
        "v1.2" => golden_v1_2_batches(),
        "v1.3" => golden_v1_3_batches(),
        "v1.4" => golden_v1_4_batches(),
        "v1.5" => golden_v1_5_batches(),
        "v2" => golden_v2_batches(),
        other => {
            return Err(format!(
                "unknown fixture version {other}: v1, v1.1, v1.2, v1.3, v1.4, v1.5 or v2"
            )
            .into());
        }
    };
    let sealed = version == "v2";
    if dir.exists() {
        return Err(format!("{} exists: fixtures are never regenerated", dir.display()).into());
    }
    std::fs::create_dir_all(&dir)?;
    let key = HmacKey::from_bytes(GOLDEN_KEY);
    key.write_new_file(&dir.join(engram_log::key::KEY_FILE_NAME))?;
    let clock = ManualClock::new(GOLDEN_T0_MS);
    let mut config = LogConfig::new(key)
        .segment_bytes_max(GOLDEN_SEGMENT_BYTES)
        .clock(Arc::new(clock.clone()));
    if sealed {
        let master = MasterKey::from_bytes(GOLDEN_MASTER_KEY);
        master.write_new_file(&dir.join(engram_log::keystore::MASTER_KEY_FILE_NAME))?;
        config = config.keys(Arc::new(FileStorage::open(&dir)?), master);
    }
    let log = Log::open_dir(&dir.join("log"), config)?;
    for batch in batches {
        log.append(&batch)?;
        clock.advance(Duration::from_secs(1));
    }
    if sealed {
        log.destroy_keys(&GOLDEN_V2_PURGED)?;
    }
    log.close()?;
    println!("wrote {}", dir.display());
    Ok(())
}

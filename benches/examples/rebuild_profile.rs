//! Profiling aid: `cargo run --release -p engram-benches --example
//! rebuild_profile -- DIR [clear|sealed] [N]` builds the mixed store of N
//! events in DIR once (kept between runs), then times one full rebuild of
//! its views, so that a profiler records the rebuild alone.

use std::time::Instant;

use engram::engine::Engram;
use engram::store::{Store, StoreOptions};
use engram_benches::{BENCH_SEED, mixed_store};
use engram_log::{Durability, KeySource};
use engram_projections::OpenOptions;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().unwrap_or_else(|| "rebuild-store".into()));
    let sealed = args.next().as_deref() == Some("sealed");
    let n: u64 = args.next().map_or(Ok(1_000_000), |n| n.parse())?;
    let store = if dir.join("log").exists() || dir.join("keys.engram").exists() {
        Store::at(&dir)
    } else {
        eprintln!("building {n} events in {}", dir.display());
        mixed_store(&dir, BENCH_SEED, n, sealed)?
    };
    let options = StoreOptions {
        key: KeySource::StoreFile,
        durability: Durability::None,
        ..StoreOptions::default()
    };
    let started = Instant::now();
    let engram = Engram::open_with(store, &options, OpenOptions { rebuild: true }, &|_, _| {})?;
    let stats = engram.stats();
    engram.close()?;
    eprintln!("rebuild: {:.2?} ({stats:?})", started.elapsed());
    Ok(())
}

//! `engram repair`: cut damage off the end of the log, keeping a copy.
//!
//! Recovery only truncates what a crash can have torn; anything else fails
//! the open and waits for the operator. `--truncate-from SEQ` cuts SEQ and
//! everything after it (the seq `engram verify` names as the first bad
//! one, or an earlier frame boundary), after copying every file the cut
//! changes, as it was, into a folder in the store.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use engram::log::FileStorage;
use engram::log::storage::{create_private_dir_all, create_private_file};
use serde_json::json;

use super::Context;

#[derive(Debug, clap::Args)]
pub struct RepairArgs {
    /// Cut the log before seq SEQ: SEQ and every later event are removed
    /// from the log (copied first into `cut-from-SEQ-<unix ms>/` in the
    /// store). SEQ must start a frame, at or before the first damage
    /// `engram verify` names; a log that verifies is left alone.
    #[arg(long, value_name = "SEQ", required = true)]
    truncate_from: u64,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Writes `bytes` to a new private file `dir/name`, synced.
fn keep_file(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    create_private_dir_all(dir)?;
    let mut file = create_private_file(&dir.join(name), true)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::File::open(dir)?.sync_all()
}

pub fn run(ctx: &Context, args: &RepairArgs) -> anyhow::Result<ExitCode> {
    ctx.refuse_shared_log("repair")?;
    ctx.require_log()?;
    // Cutting the log needs it to itself: a daemon owning it is stopped.
    let _exclusive = super::daemon::exclusive(ctx, "repair")?;
    let store = &ctx.store;
    let key = store.key(&ctx.key, false)?;
    let log_dir = store.log_dir();
    let storage = FileStorage::open(&log_dir)
        .with_context(|| format!("opening log folder {}", log_dir.display()))?;
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let copy_dir: PathBuf = store
        .dir()
        .join(format!("cut-from-{}-{now_ms}", args.truncate_from));
    let cut =
        engram::log::truncate_from(&storage, &key, args.truncate_from, &mut |name, bytes| {
            keep_file(&copy_dir, name, bytes)
        })?;
    let last_seq = cut.from_seq - 1;
    if args.json {
        println!(
            "{}",
            json!({
                "truncated_from": cut.from_seq,
                "last_seq": last_seq,
                "damage": {"seq": cut.damage.seq, "segment": cut.damage.segment, "offset": cut.damage.offset, "reason": cut.damage.reason},
                "segment": cut.segment,
                "offset": cut.offset,
                "removed_segments": cut.removed,
                "bytes_cut": cut.bytes_cut,
                "copy": copy_dir.display().to_string(),
                "copied_files": cut.kept,
            })
        );
    } else {
        eprintln!("engram: the damage was: {}", cut.damage);
        println!(
            "cut the log from seq {} on ({} bytes: {} from offset {}{}); the log now ends at seq {last_seq}, closed cleanly",
            cut.from_seq,
            cut.bytes_cut,
            cut.segment,
            cut.offset,
            if cut.removed.is_empty() {
                String::new()
            } else {
                format!(", and segments {}", cut.removed.join(", "))
            },
        );
        println!(
            "a copy of every file the cut changed, as it was before ({}), is in {}",
            cut.kept.join(", "),
            copy_dir.display()
        );
        println!("the views rebuild from the log on the next open");
    }
    Ok(ExitCode::SUCCESS)
}

//! `engram verify`: check the whole log, read-only.

use std::process::ExitCode;

use anyhow::Context as _;
use engram::log::{FileStorage, verify_storage};
use serde_json::json;

use super::{Context, EXIT_CHECK_FAILED};

#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Verifies the shared log itself (every row's frame: hash chain, blake3,
/// HMAC, contiguous seqs, the head), as a standby or a restore is checked.
fn verify_shared(ctx: &Context, url: &str, json: bool) -> anyhow::Result<ExitCode> {
    let key = ctx.store.key(&ctx.key, false)?;
    let shared =
        engram_log_postgres::PgLog::connect(url, key, engram_log_postgres::PgLogConfig::default())?;
    let report = shared.verify()?;
    shared.close();
    let problem = report.problem.as_ref();
    if json {
        println!(
            "{}",
            json!({
                "ok": problem.is_none(),
                "shared_log": true,
                "last_seq": report.last_seq,
                "head_last_seq": report.head_last_seq,
                "n_events": report.n_events,
                "n_frames": report.n_frames,
                "problem": problem.map(|p| json!({"seq": p.seq, "reason": p.reason})),
            })
        );
    } else if let Some(p) = problem {
        eprintln!(
            "engram: verify failed: the shared log at seq {}: {}",
            p.seq, p.reason
        );
        println!(
            "verified seqs 1..={} of the shared log before the first bad seq {}",
            report.last_seq, p.seq
        );
    } else {
        println!(
            "ok: the shared log holds {} events in {} frames, last seq {}, hash chain and HMACs verified",
            report.n_events, report.n_frames, report.last_seq
        );
    }
    Ok(if problem.is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_CHECK_FAILED)
    })
}

pub fn run(ctx: &Context, args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    if let Some(url) = &ctx.shared_log {
        return verify_shared(ctx, url, args.json);
    }
    let store = &ctx.store;
    if !store.has_log() {
        if args.json {
            println!(
                "{}",
                json!({"ok": true, "last_seq": 0, "n_events": 0, "n_frames": 0, "n_segments": 0, "bytes": 0, "torn_tail": null, "problem": null})
            );
        } else {
            println!("empty log at {}: nothing to verify", store.dir().display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let key = store.key(&ctx.key, false)?;
    let log_dir = store.log_dir();
    let storage = FileStorage::open_read_only(&log_dir)
        .with_context(|| format!("opening log folder {}", log_dir.display()))?;
    let report = verify_storage(&storage, &key, None)?;
    if args.json {
        println!("{}", engram::api::json::verify_report(&report));
    } else {
        if let Some(t) = &report.torn_tail {
            eprintln!(
                "engram: warning: torn tail of {} bytes at {} offset {} ({}): the next write open truncates it",
                t.bytes, t.segment, t.offset, t.reason
            );
        }
        if let Some(p) = &report.problem {
            eprintln!("engram: verify failed: {p}");
            eprintln!(
                "engram: restore the damaged file from a copy, or cut the log from the damage on with `engram repair --truncate-from {}` (it keeps a copy of what it cuts)",
                p.seq
            );
            println!(
                "verified seqs 1..={} before the first bad seq {}",
                report.last_seq, p.seq
            );
        } else {
            println!(
                "ok: {} events in {} segments ({} frames, {} bytes), last seq {}, hash chain and HMACs verified",
                report.n_events, report.n_segments, report.n_frames, report.bytes, report.last_seq
            );
        }
    }
    Ok(if report.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_CHECK_FAILED)
    })
}

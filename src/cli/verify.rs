//! `engram verify`: check the whole log, read-only; with `--views`, also
//! `views.redb` against a replay of the log
//! (`engram_projections::check`: the file read-only when no owner holds
//! it, else a copy in a private temp folder; the log is only read).

use std::process::ExitCode;

use anyhow::Context as _;
use engram::log::{FileStorage, verify_storage};
use engram_projections::check::{self, Opened, ViewsFile, ViewsReport};
use serde_json::json;

use super::{Context, EXIT_CHECK_FAILED};

#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
    /// Also compare views.redb with a replay of the log, table by table and
    /// entry by entry (read-only; works while an owner holds the store).
    #[arg(long)]
    views: bool,
}

/// `views.redb` against a replay of the log (after the log verified).
fn check_views(ctx: &Context, key: engram::log::HmacKey) -> anyhow::Result<ViewsReport> {
    let store = &ctx.store;
    let path = store.views_path();
    // The views first, then the log: a log opened afterwards holds at
    // least every event the views applied.
    let db = match check::open_views_file(&path)
        .with_context(|| format!("reading {}", path.display()))?
    {
        Opened::Absent => return Ok(ViewsReport::unread(ViewsFile::Absent)),
        Opened::Unreadable { reason } => {
            return Ok(ViewsReport::unread(ViewsFile::Unreadable { reason }));
        }
        Opened::Db(db) => db,
    };
    // Opened with the store's key store: sealed words open as the live
    // views read them.
    let reader = store
        .open_reader_with_key(key)
        .with_context(|| format!("opening log folder {}", store.log_dir().display()))?;
    let persisted = db
        .read(&reader)
        .with_context(|| format!("reading {}", path.display()))?;
    persisted
        .compare(&reader)
        .context("replaying the log into fresh views")
}

fn print_views(report: &ViewsReport) {
    match &report.file {
        ViewsFile::Absent => {
            println!("ok: no views.redb: the next open builds every view from the log");
            return;
        }
        ViewsFile::Unreadable { reason } => {
            println!(
                "ok: views.redb does not open ({reason}): the next open sets it aside and rebuilds every view from the log"
            );
            return;
        }
        ViewsFile::Read { .. } => {}
    }
    for v in &report.views {
        if let Some(reason) = &v.rebuilt_on_open {
            println!(
                "note: view {} is not trusted as persisted and is rebuilt from the log on the next open: {reason}",
                v.name
            );
        }
    }
    for d in &report.differences {
        println!("{}: view {} {}", d.kind.as_str(), d.view, d.key);
    }
    let compared = report
        .views
        .iter()
        .filter(|v| v.rebuilt_on_open.is_none())
        .count();
    let entries: u64 = report.views.iter().map(|v| v.entries).sum();
    let copied = if matches!(report.file, ViewsFile::Read { copied: true }) {
        " (read from a copy: an owner holds the store)"
    } else {
        ""
    };
    if report.is_ok() {
        println!(
            "ok: views.redb matches a replay of the log: {compared} views, {entries} entries{copied}"
        );
    } else {
        let listed = report.differences.len() as u64;
        if report.n_differences > listed {
            println!("... and {} more", report.n_differences - listed);
        }
        eprintln!(
            "engram: verify --views failed: {} entries of views.redb differ from a replay of the log{copied}",
            report.n_differences
        );
        eprintln!(
            "engram: the views file was altered outside engram: run `engram rebuild` to rebuild every view from the log"
        );
    }
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
            "verified seqs 1 to {} of the shared log before the first bad seq {}",
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
        anyhow::ensure!(
            !args.views,
            "verify --views compares the store's own log and views.redb: leave out --log"
        );
        return verify_shared(ctx, url, args.json);
    }
    ctx.settle_owner();
    let store = &ctx.store;
    if !store.has_log() {
        if args.json {
            let mut out = json!({"ok": true, "last_seq": 0, "n_events": 0, "n_frames": 0, "n_segments": 0, "bytes": 0, "torn_tail": null, "problem": null});
            if args.views {
                out["views"] =
                    engram::api::json::views_report(&ViewsReport::unread(ViewsFile::Absent));
            }
            println!("{out}");
        } else {
            println!("empty log at {}: nothing to verify", store.dir().display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    anyhow::ensure!(
        !(args.views && store.is_shared_log_replica()),
        "verify --views cannot replay {}: it replicates a sealed shared log, whose words open only with the team's key store (run `engram --log URL rebuild` to rebuild its views from the log)",
        ctx.describe()
    );
    let key = store.key(&ctx.key, false)?;
    let log_dir = store.log_dir();
    let storage = FileStorage::open_read_only(&log_dir)
        .with_context(|| format!("opening log folder {}", log_dir.display()))?;
    let report = verify_storage(&storage, &key, None)?;
    // The views are compared only with a log that verified.
    let views = if args.views && report.is_ok() {
        Some(check_views(ctx, key)?)
    } else {
        None
    };
    let views_ok = views.as_ref().is_none_or(ViewsReport::is_ok);
    if args.json {
        let mut out = engram::api::json::verify_report(&report);
        if args.views {
            out["views"] = views
                .as_ref()
                .map_or(serde_json::Value::Null, engram::api::json::views_report);
            out["ok"] = json!(report.is_ok() && views_ok);
        }
        println!("{out}");
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
                "verified seqs 1 to {} before the first bad seq {}",
                report.last_seq, p.seq
            );
        } else {
            println!(
                "ok: {} in {} ({}, {}), last seq {}, hash chain and HMACs verified",
                super::counted(report.n_events, "event"),
                super::counted(report.n_segments, "segment"),
                super::counted(report.n_frames, "frame"),
                super::counted(report.bytes, "byte"),
                report.last_seq
            );
        }
        if let Some(views) = &views {
            print_views(views);
        } else if args.views {
            println!("views.redb not compared: the log failed verification");
        }
    }
    Ok(if report.is_ok() && views_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_CHECK_FAILED)
    })
}

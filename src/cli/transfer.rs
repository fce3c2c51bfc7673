//! `engram export` and `engram import`: a store's log as JSON lines, and a
//! store rebuilt from them (see `engram::transfer` for the format).

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use engram::transfer::{self, ImportPhase};
use serde_json::json;

use super::{Context, progress_bar};

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// First seq to export (default 1). An export from seq N continues a
    /// store that an earlier export (up to seq N-1) was imported into; N
    /// may be the last seq + 1 (an export of nothing new).
    #[arg(long, value_name = "N")]
    from: Option<u64>,
}

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// The export file (written by `engram export`). Read twice: once to
    /// check every line, once to append; standard input is not accepted.
    file: PathBuf,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn export(ctx: &Context, args: &ExportArgs) -> anyhow::Result<ExitCode> {
    ctx.require_log()?;
    ctx.catch_up_replica()?;
    ctx.settle_owner();
    let reader = ctx.open_reader()?.context("the store has no log")?;
    if let Some(warning) = reader.recovery().warning() {
        eprintln!(
            "engram: warning: {warning}; exporting the log up to seq {}",
            reader.last_seq()
        );
    }
    let bar = progress_bar(reader.last_seq(), "export");
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    transfer::export(&reader, args.from.unwrap_or(1), &mut out, &|seq, _| {
        bar.set_position(seq);
    })?;
    out.flush()?;
    bar.finish_and_clear();
    Ok(ExitCode::SUCCESS)
}

/// Events per append into the shared log while importing, at most, and
/// their encoded bytes (well under a frame's limit).
const SHARED_IMPORT_EVENTS: usize = 1024;
const SHARED_IMPORT_BYTES: usize = 4 << 20;

/// `import --log URL`: the export is checked and sealed under the key in a
/// staging store beside this one (exactly as a plain import), then its
/// events go to the empty shared log with their seqs and commit times, and
/// this store becomes its first replica.
fn import_shared(ctx: &Context, args: &ImportArgs, url: &str) -> anyhow::Result<ExitCode> {
    use engram::log::{Event, KeySource};
    use engram::store::{Store, StoreOptions};
    anyhow::ensure!(
        !ctx.store.has_log(),
        "{} already has a log: import --log makes a new replica, give a new --store",
        ctx.describe()
    );
    engram::log::storage::create_private_dir_all(ctx.store.dir())
        .with_context(|| format!("creating {}", ctx.store.dir().display()))?;
    let key = ctx.store.key(&ctx.key, true)?;
    let shared = engram_log_postgres::PgLog::connect(
        url,
        key.clone(),
        engram_log_postgres::PgLogConfig::default(),
    )?;
    let shared_last = shared.last_seq()?;
    anyhow::ensure!(
        shared_last == 0,
        "the shared log already holds events (last seq {shared_last}): import --log fills an empty one"
    );
    anyhow::ensure!(
        !shared.is_sealed(),
        "the shared log in {} seals its words, and import --log fills a shared log in the clear only (its memories' seals are over the words as the export held them): import into a schema with no shared log yet",
        shared.location()
    );
    let staging_dir = {
        let mut name = ctx.store.dir().as_os_str().to_owned();
        name.push(".import-staging");
        PathBuf::from(name)
    };
    anyhow::ensure!(
        !staging_dir.exists(),
        "{} exists (left by an interrupted import?): remove it and run the import again",
        staging_dir.display()
    );
    engram::log::storage::create_private_dir_all(&staging_dir)
        .with_context(|| format!("creating {}", staging_dir.display()))?;
    let staged = (|| -> anyhow::Result<transfer::ImportSummary> {
        key.write_new_file(&staging_dir.join("hmac.key"))?;
        let staging = Store::at(staging_dir.clone());
        // In the clear: a shared log made by an import holds its frames
        // in the clear (the connect above gave no master key), so the
        // staged events are too.
        let options = StoreOptions {
            key: KeySource::StoreFile,
            durability: engram::log::Durability::None,
            seal_new_stores: false,
            ..StoreOptions::default()
        };
        let summary = transfer::import_file(&staging, &options, &args.file, &|_, _, _| {})
            .with_context(|| format!("importing {}", args.file.display()))?;
        let reader = staging
            .open_reader(&KeySource::StoreFile)?
            .context("the staging store has no log")?;
        let bar = progress_bar(reader.last_seq(), "shared");
        let mut batch: Vec<Event> = Vec::new();
        let (mut first_seq, mut ts_ms, mut bytes) = (1, 0, 0);
        let send = |batch: &mut Vec<Event>, first_seq: u64, ts_ms: u64| -> anyhow::Result<()> {
            if !batch.is_empty() {
                shared.append_at(first_seq, ts_ms, batch)?;
                bar.set_position(first_seq + batch.len() as u64 - 1);
                batch.clear();
            }
            Ok(())
        };
        for logged in reader.replay(1) {
            let logged = logged?;
            let size = engram::log::codec::encode(&logged.event)?.len();
            if !batch.is_empty()
                && (logged.ts_ms != ts_ms
                    || batch.len() == SHARED_IMPORT_EVENTS
                    || bytes + size > SHARED_IMPORT_BYTES)
            {
                send(&mut batch, first_seq, ts_ms)?;
            }
            if batch.is_empty() {
                (first_seq, ts_ms, bytes) = (logged.seq, logged.ts_ms, 0);
            }
            bytes += size;
            batch.push(logged.event);
        }
        send(&mut batch, first_seq, ts_ms)?;
        bar.finish_and_clear();
        Ok(summary)
    })();
    let removed = std::fs::remove_dir_all(&staging_dir);
    let summary = staged?;
    removed.with_context(|| format!("removing {}", staging_dir.display()))?;
    shared.close();
    // This store becomes a replica: it copies the shared log and builds
    // its views.
    ctx.open_existing()?.close()?;
    if args.json {
        println!(
            "{}",
            json!({
                "store": ctx.store.dir().display().to_string(),
                "shared_log": true,
                "first_seq": summary.first_seq,
                "last_seq": summary.last_seq,
                "n_events": summary.n_events,
                "n_memories": summary.n_memories,
                "continuation": false,
            })
        );
    } else {
        println!(
            "imported {} events (seqs {} to {}, {} memories) into the shared log; {} is its replica",
            summary.n_events,
            summary.first_seq,
            summary.last_seq,
            summary.n_memories,
            ctx.describe()
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn import(ctx: &Context, args: &ImportArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        args.file.as_os_str() != "-",
        "import reads its file twice (check, then append): save the export to a file and pass its path"
    );
    if let Some(url) = &ctx.shared_log {
        return import_shared(ctx, args, url);
    }
    // An import appends to the store's own log files: no owner meanwhile.
    let _exclusive = super::daemon::exclusive(ctx, "import")?;
    let bar = progress_bar(0, "check");
    let summary = transfer::import_file(
        &ctx.store,
        &ctx.options(),
        &args.file,
        &|phase, seq, upto| {
            bar.set_message(match phase {
                ImportPhase::Check => "check",
                ImportPhase::Append => "import",
                ImportPhase::Views => "views",
            });
            bar.set_length(upto);
            bar.set_position(seq);
        },
    )
    .with_context(|| format!("importing {}", args.file.display()))?;
    bar.finish_and_clear();
    let store = ctx.store.dir().display().to_string();
    if args.json {
        println!(
            "{}",
            json!({
                "store": store,
                "first_seq": summary.first_seq,
                "last_seq": summary.last_seq,
                "n_events": summary.n_events,
                "n_memories": summary.n_memories,
                "continuation": summary.continuation,
            })
        );
    } else if summary.n_events == 0 {
        println!(
            "nothing to import: the store at {store} ends at seq {}",
            summary.last_seq
        );
    } else {
        println!(
            "{} {store} with {} events (seqs {} to {}); memories sealed under its key: {}",
            if summary.continuation {
                "continued"
            } else {
                "built"
            },
            summary.n_events,
            summary.first_seq,
            summary.last_seq,
            summary.n_memories,
        );
    }
    Ok(ExitCode::SUCCESS)
}

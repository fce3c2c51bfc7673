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
    let reader = ctx
        .store
        .open_reader(&ctx.key)?
        .context("the store has no log")?;
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

pub fn import(ctx: &Context, args: &ImportArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        args.file.as_os_str() != "-",
        "import reads its file twice (check, then append): save the export to a file and pass its path"
    );
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
            "{} {store} with {} events (seqs {}..={}); memories sealed under its key: {}",
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

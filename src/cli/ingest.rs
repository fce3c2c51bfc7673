//! `engram ingest FILE`: a JSON-lines transcript becomes one session's
//! events, redacted before anything is appended.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use engram::engine::Engram;
use engram_commands::ingest::{derived_session_id, parse_transcript, session_events};
use serde_json::json;

use super::Context;

/// Events per append while ingesting (each append is atomic).
const INGEST_BATCH_EVENTS: usize = 1024;

#[derive(Debug, clap::Args)]
pub struct IngestArgs {
    /// The transcript: one JSON object per line with `role` and `content`,
    /// or a Claude Code session file.
    file: PathBuf,
    /// Session id (default: the file's own session id, else one derived from
    /// its bytes, so the same file always gets the same id).
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Print one JSON object: session, first_seq, last_seq, turns, redacted.
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, args: &IngestArgs) -> anyhow::Result<ExitCode> {
    let bytes =
        std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    let text = std::str::from_utf8(&bytes)
        .with_context(|| format!("{} is not UTF-8", args.file.display()))?;
    let transcript =
        parse_transcript(text).with_context(|| format!("parsing {}", args.file.display()))?;
    let session = args
        .session
        .clone()
        .or(transcript.session.clone())
        .unwrap_or_else(|| derived_session_id(&bytes));
    anyhow::ensure!(!session.trim().is_empty(), "--session must not be empty");
    let (events, n_redacted) = session_events(&session, 0, &transcript.turns);
    let engram = Engram::open(ctx.store.clone(), &ctx.options())?;
    let mut range: Option<(u64, u64)> = None;
    for chunk in events.chunks(INGEST_BATCH_EVENTS) {
        let appended = engram.append(chunk)?;
        range = Some((
            range.map_or(appended.first_seq, |(first, _)| first),
            appended.last_seq,
        ));
    }
    engram.close()?;
    let (first, last) = range.context("nothing was appended")?;
    if args.json {
        println!(
            "{}",
            json!({"session": session, "first_seq": first, "last_seq": last, "turns": events.len(), "redacted": n_redacted})
        );
    } else {
        println!(
            "ingested {} turns into session {session}: seqs {first}..={last}; secrets and personal data redacted: {n_redacted}",
            events.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

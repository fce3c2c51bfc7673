//! `engram ingest FILE`: a JSON-lines transcript becomes one session's
//! events, redacted before anything is appended. Turns the session already
//! holds are skipped, so ingesting a transcript again adds only what is new.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use engram::api::{IngestRequest, parse_ingest_from};
use engram::http::INGEST_BODY_LIMIT;
use engram_text::display::neutralize_line;

use super::Context;

#[derive(Debug, clap::Args)]
pub struct IngestArgs {
    /// The transcript: one JSON object per line with `role` and `content`,
    /// or a Claude Code session file.
    file: PathBuf,
    /// Session id (default: the file's own session id, else one derived from
    /// its bytes, so the same file always gets the same id).
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Skip malformed lines (each is reported with its line number) instead
    /// of refusing the whole file. Without it, a bad line stops the ingest
    /// before anything is appended.
    #[arg(long)]
    skip_bad_lines: bool,
    /// Record the turns only: propose no memories from them. By default the
    /// user's turns are read for preferences, decisions, corrections and
    /// facts (English and Chinese), each saved as a memory referencing its
    /// source turn through the usual four outcomes; a correction that
    /// contradicts a memory supersedes it.
    #[arg(long)]
    no_extract: bool,
    /// Extraction is on by default; kept so older scripts still run.
    #[arg(long, hide = true, conflicts_with = "no_extract")]
    extract: bool,
    /// Print one JSON object: session, first_seq, last_seq, turns,
    /// new_turns, held_turns, redacted, extracted, skipped ([{line, reason}]).
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, args: &IngestArgs) -> anyhow::Result<ExitCode> {
    let ingested = ingest_file(
        ctx,
        &args.file,
        args.session.as_deref(),
        args.skip_bad_lines,
        !args.no_extract,
    )?;
    for problem in ingested["skipped"].as_array().into_iter().flatten() {
        let reason = neutralize_line(problem["reason"].as_str().unwrap_or_default());
        match problem["line"].as_u64() {
            Some(line) => eprintln!(
                "engram: skipped {}: line {line}: {reason}",
                args.file.display()
            ),
            None => eprintln!("engram: skipped {}: {reason}", args.file.display()),
        }
    }
    if args.json {
        println!("{ingested}");
    } else {
        let session = neutralize_line(ingested["session"].as_str().unwrap_or_default());
        let (turns, new) = (&ingested["turns"], &ingested["new_turns"]);
        if new.as_u64() == Some(0) {
            println!(
                "session {session} already holds all {turns} turns of this transcript (seqs {} to {}): nothing added",
                ingested["first_seq"], ingested["last_seq"],
            );
        } else {
            println!(
                "ingested {new} new turns of {turns} into session {session} ({} already held): seqs {} to {}; secrets and personal data redacted: {}",
                ingested["held_turns"],
                ingested["first_seq"],
                ingested["last_seq"],
                ingested["redacted"]
            );
        }
        for p in ingested["extracted"].as_array().into_iter().flatten() {
            println!(
                "  {} from seq {}: \"{}\" -> {}{}{}",
                p["kind"].as_str().unwrap_or("extracted"),
                p["seq"],
                neutralize_line(p["sentence"].as_str().unwrap_or_default()),
                p["outcome"].as_str().unwrap_or_default(),
                p["id"]
                    .as_str()
                    .map(|id| format!(" (memory {id})"))
                    .unwrap_or_default(),
                p["superseded"]
                    .as_str()
                    .map(|id| format!(", superseding memory {id}"))
                    .unwrap_or_default()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads, parses and sends the transcript at `file` to the store's owner;
/// the owner's answer. Shared with `engram hook session-end`.
pub fn ingest_file(
    ctx: &Context,
    file: &Path,
    session: Option<&str>,
    skip_bad_lines: bool,
    extract: bool,
) -> anyhow::Result<serde_json::Value> {
    let opened =
        std::fs::File::open(file).with_context(|| format!("reading {}", file.display()))?;
    // Read line by line and parsed before the store is reached: a refused
    // transcript writes nothing, and an endless one is refused at a limit.
    let parsed = parse_ingest_from(std::io::BufReader::new(opened), session, skip_bad_lines)
        .with_context(|| format!("parsing {}", file.display()))?;
    // What the owner takes in one request (checked before reading it all).
    let size = std::fs::metadata(file)
        .with_context(|| format!("reading {}", file.display()))?
        .len();
    anyhow::ensure!(
        size < INGEST_BODY_LIMIT as u64,
        "{} is {size} bytes, over the {} MiB one ingest takes (INGEST_BODY_LIMIT): split it into several transcripts",
        file.display(),
        INGEST_BODY_LIMIT >> 20
    );
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let transcript = String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{} is not UTF-8 text (at byte {}): a transcript is JSON lines",
            file.display(),
            e.utf8_error().valid_up_to()
        )
    })?;
    let turns = parsed.transcript.turns.len();
    let request = IngestRequest {
        transcript,
        session: Some(parsed.session),
        skip_bad_lines,
        extract,
    };
    let spinner = super::spinner(format!(
        "ingesting {} of {}{}",
        super::counted(turns, "turn"),
        file.display(),
        if extract { ", extracting memories" } else { "" }
    ));
    let door = super::door::Door::open(ctx, &[&ctx.store])?;
    let ingested = door.post("/api/ingest", &request);
    let finished = door.finish();
    spinner.finish_and_clear();
    finished?;
    ingested.with_context(|| format!("ingesting {}", file.display()))
}

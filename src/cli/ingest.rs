//! `engram ingest FILE`: a JSON-lines transcript becomes one session's
//! events, redacted before anything is appended.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use engram::engine::Engram;
use engram::log::{Event, MemoryRef, Role, SessionEvent, Source};
use engram::{Content, MemoryMeta, Remember, Subject};
use engram_commands::extract::{Proposal, proposals};
use engram_commands::ingest::{
    derived_session_id, parse_transcript, parse_transcript_skipping, session_events,
};
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
    /// Skip malformed lines (each is reported with its line number) instead
    /// of refusing the whole file. Without it, a bad line stops the ingest
    /// before anything is appended.
    #[arg(long)]
    skip_bad_lines: bool,
    /// Also propose memories from the user's turns (stated preferences,
    /// decisions, facts; English and Chinese), each referencing its source
    /// turn and saved through the usual four outcomes.
    #[arg(long)]
    extract: bool,
    /// Print one JSON object: session, first_seq, last_seq, turns, redacted,
    /// skipped ([{line, reason}]).
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, args: &IngestArgs) -> anyhow::Result<ExitCode> {
    let bytes =
        std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    let text = std::str::from_utf8(&bytes)
        .with_context(|| format!("{} is not UTF-8", args.file.display()))?;
    let (transcript, skipped) = if args.skip_bad_lines {
        parse_transcript_skipping(text)
    } else {
        parse_transcript(text).map(|t| (t, Vec::new()))
    }
    .with_context(|| {
        format!(
            "parsing {} (nothing was ingested; --skip-bad-lines ingests the good lines)",
            args.file.display()
        )
    })?;
    for problem in &skipped {
        eprintln!("engram: skipped {}: {problem}", args.file.display());
    }
    let session = args
        .session
        .clone()
        .or(transcript.session.clone())
        .unwrap_or_else(|| derived_session_id(&bytes));
    anyhow::ensure!(!session.trim().is_empty(), "--session must not be empty");
    let engram = Engram::open(ctx.store.clone(), &ctx.options())?;
    let engram = if args.extract {
        super::model::attach(engram, super::model::load())
    } else {
        engram
    };
    // A session ingested again continues its turn numbers.
    let first_turn = engram.core().sessions.read().state.next_turn(&session);
    let (events, n_redacted) = session_events(&session, first_turn, &transcript.turns);
    let mut range: Option<(u64, u64)> = None;
    let mut recorded: Vec<(u64, SessionEvent)> = Vec::new();
    for chunk in events.chunks(INGEST_BATCH_EVENTS) {
        let appended = engram.append(chunk)?;
        range = Some((
            range.map_or(appended.first_seq, |(first, _)| first),
            appended.last_seq,
        ));
        for (seq, event) in (appended.first_seq..).zip(chunk) {
            if let Event::Session(turn) = event {
                recorded.push((seq, turn.clone()));
            }
        }
    }
    let extracted = if args.extract {
        extract(&engram, &recorded)
    } else {
        Ok(Vec::new())
    };
    engram.close()?;
    let extracted = extracted?;
    let (first, last) = range.context("nothing was appended")?;
    if args.json {
        println!(
            "{}",
            json!({
                "session": session,
                "first_seq": first,
                "last_seq": last,
                "turns": events.len(),
                "redacted": n_redacted,
                "extracted": extracted.iter().map(|(p, r)| json!({
                    "seq": p.seq,
                    "sentence": p.sentence,
                    "outcome": r.outcome.as_str(),
                    "id": r.id,
                })).collect::<Vec<_>>(),
                "skipped": skipped.iter().map(|p| match p {
                    engram_commands::ingest::IngestError::Line { line, reason } =>
                        json!({"line": line, "reason": reason}),
                    other => json!({"line": null, "reason": other.to_string()}),
                }).collect::<Vec<_>>(),
            })
        );
    } else {
        println!(
            "ingested {} turns into session {session}: seqs {first}..={last}; secrets and personal data redacted: {n_redacted}",
            events.len()
        );
        for (p, r) in &extracted {
            println!(
                "  extracted from seq {}: {:?} -> {}{}",
                p.seq,
                p.sentence,
                r.outcome.as_str(),
                r.id.map(|id| format!(" (memory {id})")).unwrap_or_default()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Saves the proposals of `engram_commands::extract` for the recorded turns,
/// each referencing its turn, with the sentence as the summary.
fn extract(
    engram: &Engram,
    recorded: &[(u64, SessionEvent)],
) -> anyhow::Result<Vec<(Proposal, engram::Receipt)>> {
    let turns: Vec<(u64, Role, &str)> = recorded
        .iter()
        .map(|(seq, t)| (*seq, t.role, t.content.as_str()))
        .collect();
    let proposals = proposals(&turns);
    // One batched pass of the model over the turns the proposals reference.
    let texts: Vec<String> = proposals
        .iter()
        .filter_map(|p| recorded.iter().find(|(seq, _)| *seq == p.seq))
        .map(|(_, turn)| turn.content.clone())
        .collect();
    engram.prefetch_embeddings(&texts);
    let mut out = Vec::new();
    for proposal in proposals {
        let Some((_, turn)) = recorded.iter().find(|(seq, _)| *seq == proposal.seq) else {
            continue;
        };
        let receipt = engram.remember(&Remember {
            content: Content::Reference(MemoryRef {
                session: turn.session.clone(),
                first_seq: proposal.seq,
                last_seq: proposal.seq,
            }),
            meta: MemoryMeta {
                summary: Some(proposal.sentence.clone()),
                source: Source::Ingest,
                ..MemoryMeta::default()
            },
            subject: Subject::user(),
        })?;
        out.push((proposal, receipt));
    }
    engram.clear_prefetched();
    Ok(out)
}

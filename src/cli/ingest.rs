//! `engram ingest FILE`: a JSON-lines transcript becomes one session's
//! events, redacted before anything is appended.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use engram::api::parse_ingest_from;
use engram::engine::Engram;
use engram::log::{MemoryRef, Role, SessionEvent, Source};
use engram::{Content, MemoryMeta, Remember, Subject};
use engram_commands::extract::{Proposal, proposals};
use engram_text::display::neutralize_line;
use serde_json::json;

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
    let file = std::fs::File::open(&args.file)
        .with_context(|| format!("reading {}", args.file.display()))?;
    // Read line by line and parsed before the store is opened: a refused
    // transcript writes nothing, and an endless one is refused at a limit.
    let parsed = parse_ingest_from(
        std::io::BufReader::new(file),
        args.session.as_deref(),
        args.skip_bad_lines,
    )
    .with_context(|| format!("parsing {}", args.file.display()))?;
    let service = ctx.own_service(if args.extract {
        super::model::load()
    } else {
        None
    })?;
    let ingested = service
        .ingest_parsed(parsed)
        .with_context(|| format!("ingesting {}", args.file.display()));
    let ingested = match ingested {
        Ok(ingested) => ingested,
        Err(e) => {
            service.close()?;
            return Err(e);
        }
    };
    for problem in &ingested.skipped {
        eprintln!(
            "engram: skipped {}: {}",
            args.file.display(),
            neutralize_line(&problem.to_string())
        );
    }
    let extracted = if args.extract {
        extract(service.engram(), &ingested.recorded)
    } else {
        Ok(Vec::new())
    };
    let scope = service.scope();
    service.close()?;
    let extracted = extracted?;
    let (first, last) = (ingested.first_seq, ingested.last_seq);
    if args.json {
        let extracted: Vec<serde_json::Value> = extracted
            .iter()
            .map(|(p, r)| {
                json!({
                    "seq": p.seq,
                    "sentence": p.sentence,
                    "outcome": r.outcome.as_str(),
                    "id": r.id.map(|id| engram::api::qualified(scope, id)),
                })
            })
            .collect();
        println!("{}", engram::api::json::ingested(&ingested, &extracted));
    } else {
        println!(
            "ingested {} turns into session {}: seqs {first}..={last}; secrets and personal data redacted: {}",
            ingested.turns,
            neutralize_line(&ingested.session),
            ingested.redacted
        );
        for (p, r) in &extracted {
            println!(
                "  extracted from seq {}: \"{}\" -> {}{}",
                p.seq,
                neutralize_line(&p.sentence),
                r.outcome.as_str(),
                r.id.map(|id| format!(" (memory {})", engram::api::qualified(scope, id)))
                    .unwrap_or_default()
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

//! Ingest over the service: a transcript parsed before any store is
//! opened, then recorded as one session's turns (redacted and gated).

use serde_json::Value;

use super::*;

/// Turns appended per batch when ingesting a transcript.
const INGEST_BATCH_EVENTS: usize = 1024;

impl Service {
    /// Records a parsed transcript as one session's turns, redacted and
    /// gated like every write (`Engram::record_turns`, by the user), in
    /// atomic appends of up to `engram_commands::record::TURNS_MAX` turns.
    /// Turns the session already holds are not recorded again
    /// (`record_transcript_part`): the same transcript twice adds nothing.
    ///
    /// # Errors
    /// An append failure, a turn the gates refuse.
    pub fn ingest_parsed(&self, parsed: ParsedTranscript) -> Result<Ingested, ApiError> {
        let ParsedTranscript {
            session,
            transcript,
            skipped,
        } = parsed;
        let engram = self.engram();
        if transcript.turns.is_empty() {
            return Err(ApiError::bad_request("the transcript holds no turns"));
        }
        let mut range: Option<(u64, u64)> = None;
        let mut widen = |first: u64, last: u64| {
            range = Some(range.map_or((first, last), |(a, b)| (a.min(first), b.max(last))));
        };
        let mut recorded = Vec::new();
        let mut redacted = 0;
        let mut held = 0;
        for (index, chunk) in transcript.turns.chunks(INGEST_BATCH_EVENTS).enumerate() {
            // Turns the session already holds are skipped, so ingesting a
            // transcript again (or once it grew) adds only what is new.
            let part = engram_commands::record::record_transcript_part(
                engram,
                &session,
                index * INGEST_BATCH_EVENTS,
                chunk,
                &Subject::user(),
            )
            .map_err(EngineError::from)?;
            held += part.n_held;
            if let Some((first, last)) = part.held_seqs {
                widen(first, last);
            }
            if let Some(part) = part.recorded {
                widen(part.appended.first_seq, part.appended.last_seq);
                redacted += part.n_redacted;
                recorded.extend(part.turns);
            }
        }
        let (first_seq, last_seq) = range.unwrap_or((0, 0));
        Ok(Ingested {
            session,
            first_seq,
            last_seq,
            turns: transcript.turns.len(),
            held,
            redacted,
            skipped,
            recorded,
        })
    }

    /// [`parse_ingest`] then [`Service::ingest_parsed`].
    ///
    /// # Errors
    /// As the two.
    pub fn ingest_turns(
        &self,
        bytes: &[u8],
        session: Option<&str>,
        skip_bad_lines: bool,
    ) -> Result<Ingested, ApiError> {
        self.ingest_parsed(parse_ingest(bytes, session, skip_bad_lines)?)
    }

    /// [`Service::ingest_turns`] answering JSON.
    ///
    /// # Errors
    /// As [`Service::ingest_turns`].
    pub fn ingest(&self, r: &IngestRequest) -> Result<Value, ApiError> {
        let ingested = self.ingest_turns(
            r.transcript.as_bytes(),
            r.session.as_deref(),
            r.skip_bad_lines,
        )?;
        let extracted = if r.extract {
            self.extract(&ingested.recorded)?
        } else {
            Vec::new()
        };
        Ok(json::ingested(&ingested, &extracted))
    }

    /// Saves the proposals of `engram_commands::extract` for the recorded
    /// turns, each referencing its turn, with the sentence as the summary;
    /// one answer (`seq`, `sentence`, `outcome`, `id`) per proposal.
    fn extract(
        &self,
        recorded: &[(u64, engram_log::SessionEvent)],
    ) -> Result<Vec<Value>, ApiError> {
        use engram_commands::extract::{Kind, proposals};
        use engram_commands::save::Outcome;
        use engram_log::{Actor, Verdict};
        let engram = self.engram();
        let turns: Vec<(u64, engram_log::Role, &str)> = recorded
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
                    source: engram_log::Source::Ingest,
                    ..MemoryMeta::default()
                },
                subject: Subject::user(),
            });
            let receipt = match receipt {
                Ok(receipt) => receipt,
                Err(e) => {
                    engram.clear_prefetched();
                    return Err(e.into());
                }
            };
            // The user corrected what the store holds: the correction
            // supersedes it (a verdict keeping the new memory, by the user,
            // whose words both are). A second append: after a crash between
            // the two, the contradiction stays open for a verdict by hand.
            let superseded = match (proposal.kind, receipt.outcome, receipt.id, receipt.related) {
                (Kind::Correction, Outcome::Contradiction, Some(new), Some(old)) => {
                    let reason = format!(
                        "corrected in session {} (seq {})",
                        turn.session, proposal.seq
                    );
                    match engram.verdict(new, old, Verdict::KeepA, Actor::User, &reason) {
                        Ok(_) => Some(old),
                        Err(e) => {
                            engram.clear_prefetched();
                            return Err(e.into());
                        }
                    }
                }
                _ => None,
            };
            out.push(json!({
                "seq": proposal.seq,
                "sentence": proposal.sentence,
                "kind": proposal.kind.as_str(),
                "outcome": receipt.outcome.as_str(),
                "id": receipt.id.map(|id| qualified(self.scope(), id)),
                "superseded": superseded.map(|id| qualified(self.scope(), id)),
            }));
        }
        engram.clear_prefetched();
        Ok(out)
    }
}

/// A transcript parsed for ingest, with the session it goes to.
#[derive(Debug, Clone)]
pub struct ParsedTranscript {
    pub session: String,
    pub transcript: engram_commands::ingest::Transcript,
    /// The lines left out (with `skip_bad_lines`).
    pub skipped: Vec<IngestError>,
}

/// Parses a transcript (JSON lines) before anything is opened or appended,
/// so a refused transcript writes nothing. The session is `session`, else
/// the transcript's own, else one derived from the bytes; it is redacted
/// here as the store will hold it, so what is reported is what is stored.
///
/// # Errors
/// `bad_request` naming the first bad line (or every line, when all are
/// bad), or the limit a transcript passed
/// (`engram_commands::ingest::TRANSCRIPT_LINE_BYTES_MAX`, `TRANSCRIPT_BYTES_MAX`).
pub fn parse_ingest(
    bytes: &[u8],
    session: Option<&str>,
    skip_bad_lines: bool,
) -> Result<ParsedTranscript, ApiError> {
    parse_ingest_from(bytes, session, skip_bad_lines)
}

/// [`parse_ingest`] reading a stream line by line (a file, standard input),
/// holding only the turns and never more than the limits allow.
///
/// # Errors
/// As [`parse_ingest`].
pub fn parse_ingest_from(
    input: impl std::io::BufRead,
    session: Option<&str>,
    skip_bad_lines: bool,
) -> Result<ParsedTranscript, ApiError> {
    let read = read_transcript(input, skip_bad_lines).map_err(|e| match e {
        IngestError::Line { .. } => ApiError::bad_request(format!(
            "{e} (nothing was ingested; skipping bad lines ingests the good ones)"
        )),
        e => ApiError::bad_request(format!("{e} (nothing was ingested)")),
    })?;
    let session = session
        .map(str::to_owned)
        .or(read.transcript.session.clone())
        .unwrap_or(read.derived_session);
    if session.trim().is_empty() {
        return Err(ApiError::bad_request("the session must not be empty"));
    }
    let session = engram_commands::memory::clean_name("session", &session)
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    Ok(ParsedTranscript {
        session,
        transcript: read.transcript,
        skipped: read.skipped,
    })
}

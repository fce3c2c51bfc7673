//! `export`: a log (or its tail from a seq) as an export file.
//!
//! **Invariant:** export never writes a line import would refuse: each
//! line is decoded back from its JSON object and must give the same line
//! hash before it is written (a float that JSON cannot hold, such as a NaN
//! scale, fails the export naming its seq instead of the import later).

use std::io::Write;

use engram_log::{LogReader, LoggedEvent, ReadError, SubjectKey};
use serde_json::Value;

use super::{
    EXPORT_FORMAT_VERSION, ExportHeader, ExportTrailer, LineDigest, SealedLine, event_json,
    line_sha256, parse_event_line,
};

/// Why an export stopped. What was written so far has no trailer, so
/// import refuses it as cut short.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    #[error("--from 0: seqs start at 1")]
    SeqZero,
    #[error(
        "--from {from} is past the end of the log: the last seq is {last_seq}, so an export can start at {} at the latest",
        last_seq + 1
    )]
    PastEnd { from: u64, last_seq: u64 },
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The event has no faithful JSON line: a bug to report.
    #[error("the event at seq {seq} cannot be exported: {reason}")]
    Line { seq: u64, reason: String },
    #[error("writing the export failed: {0}")]
    Write(#[source] std::io::Error),
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportSummary {
    pub first_seq: u64,
    pub last_seq: u64,
    pub n_events: u64,
    /// The trailer's digest.
    pub sha256: engram_log::Digest,
}

/// Writes the events of `reader` from seq `from` to the log's current end
/// to `out` in the export format: header, one line per event, trailer.
/// `from` may be the log's last seq + 1 (an export with no event, which
/// imports as nothing). `progress` receives each seq written and the last.
pub fn export(
    reader: &LogReader,
    from: u64,
    out: &mut dyn Write,
    progress: &dyn Fn(u64, u64),
) -> Result<ExportSummary, ExportError> {
    if from == 0 {
        return Err(ExportError::SeqZero);
    }
    let last_seq = reader.last_seq();
    if from > last_seq + 1 {
        return Err(ExportError::PastEnd { from, last_seq });
    }
    let prev_sha256 = match from {
        1 => None,
        _ => {
            let prev = reader.read(from - 1..=from - 1)?;
            let Some(prev) = prev.first() else {
                return Err(ExportError::Line {
                    seq: from - 1,
                    reason: "the log did not return it".to_owned(),
                });
            };
            Some(line_hash(prev)?)
        }
    };
    let sealed = reader.is_sealed();
    let header = ExportHeader {
        engram_export: EXPORT_FORMAT_VERSION,
        engram_version: env!("CARGO_PKG_VERSION").to_owned(),
        first_seq: from,
        last_seq,
        n_events: last_seq + 1 - from,
        prev_sha256,
        sealed,
    };
    write_line(out, &header)?;
    let mut digest = LineDigest::new();
    let mut n_events = 0;
    if from <= last_seq {
        for logged in reader.replay_with_records(from) {
            let (logged, record) = logged?;
            if logged.seq > last_seq {
                break;
            }
            let sealed_line = match sealed && engram_log::record_has_words(&record) {
                false => None,
                true => {
                    let key = match reader.subject_key(logged.seq) {
                        Ok(SubjectKey::Live(key)) => Some(key.to_bytes()),
                        Ok(SubjectKey::Destroyed) => None,
                        Err(e) => {
                            return Err(ExportError::Line {
                                seq: logged.seq,
                                reason: format!("its data key cannot be read: {e}"),
                            });
                        }
                    };
                    Some(SealedLine { record, key })
                }
            };
            let mut object = event_json(&logged).map_err(|e| ExportError::Line {
                seq: logged.seq,
                reason: e.to_string(),
            })?;
            let hash = line_hash(&logged)?;
            // The line must decode back to the same event (see the module doc).
            let bad = |reason: String| ExportError::Line {
                seq: logged.seq,
                reason,
            };
            object.insert(
                "sha256".into(),
                serde_json::to_value(hash).map_err(|e| bad(e.to_string()))?,
            );
            if let Some(sealed_line) = &sealed_line {
                object.insert("sealed".into(), sealed_line.to_json());
            }
            let (back, recorded) = parse_event_line(object.clone()).map_err(bad)?;
            if back.sealed != sealed_line {
                return Err(bad("its sealed record does not decode back".to_owned()));
            }
            let back = back.logged;
            if line_hash(&back)? != hash || recorded != hash || back.seq != logged.seq {
                return Err(bad(
                    "its JSON form does not decode back to the same event".to_owned()
                ));
            }
            write_line(out, &Value::Object(object))?;
            digest.push(&hash);
            n_events += 1;
            progress(logged.seq, last_seq);
        }
    }
    if n_events != header.n_events {
        return Err(ExportError::Line {
            seq: from + n_events,
            reason: format!(
                "the log ended after {n_events} of the {} events it held when the export began",
                header.n_events
            ),
        });
    }
    let sha256 = digest.finish();
    write_line(
        out,
        &ExportTrailer {
            engram_export_end: EXPORT_FORMAT_VERSION,
            n_events,
            last_seq,
            sha256,
        },
    )?;
    out.flush().map_err(ExportError::Write)?;
    Ok(ExportSummary {
        first_seq: from,
        last_seq,
        n_events,
        sha256,
    })
}

fn line_hash(logged: &LoggedEvent) -> Result<engram_log::Digest, ExportError> {
    line_sha256(logged.seq, logged.ts_ms, &logged.event)
        .map(|(hash, _)| hash)
        .map_err(|e| ExportError::Line {
            seq: logged.seq,
            reason: e.to_string(),
        })
}

fn write_line(out: &mut dyn Write, value: &impl serde::Serialize) -> Result<(), ExportError> {
    serde_json::to_writer(&mut *out, value).map_err(|e| ExportError::Write(e.into()))?;
    out.write_all(b"\n").map_err(ExportError::Write)
}

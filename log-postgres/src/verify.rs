//! Verifying the shared log: walk every row in seq order in one snapshot,
//! rebuild every frame and check it (contiguous seqs from 1, the rows of a
//! frame agreeing, blake3 hash, HMAC, chain link, events decode), then
//! check the head against the last frame. Read-only.
//!
//! The first problem is reported with the first seq that cannot be
//! trusted: an edited row (hash mismatch), an edited row whose hash was
//! recomputed (HMAC mismatch), a gap, rows missing at the start, a table
//! truncated under its head (the head says N, the rows end before), rows
//! past the head.

use engram_log::HmacKey;
use engram_log::format::GENESIS_HASH;
use postgres::{Client, IsolationLevel};

use crate::error::{PgLogError, classify};
use crate::rows::{FrameAssembler, ROW_COLUMNS, read_head};
use crate::schema::damaged_or;

/// Rows fetched per round trip while verifying.
const VERIFY_ROWS_PER_FETCH: i32 = 2048;

/// What `verify` found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PgVerifyReport {
    pub n_frames: u64,
    pub n_events: u64,
    /// The last seq that verified.
    pub last_seq: u64,
    /// Where the head row says the log ends.
    pub head_last_seq: u64,
    /// The first problem found; `None` when the log verifies.
    pub problem: Option<PgCorruption>,
}

impl PgVerifyReport {
    /// Whether the log verified.
    #[must_use]
    pub fn is_ok(&self) -> bool {
        self.problem.is_none()
    }
}

/// The first damage `verify` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgCorruption {
    /// The first seq that cannot be trusted.
    pub seq: u64,
    /// What check failed.
    pub reason: String,
}

impl std::fmt::Display for PgCorruption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "shared log damaged at seq {}: {}", self.seq, self.reason)
    }
}

/// Walks the whole shared log in one repeatable-read snapshot.
pub(crate) fn verify(
    client: &mut Client,
    target: &str,
    key: &HmacKey,
) -> Result<PgVerifyReport, PgLogError> {
    let op = "verifying the shared log";
    let err = |e: postgres::Error| classify(target, op, &e);
    let mut txn = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .map_err(err)?;
    let head = read_head(&mut txn, target)?;
    let mut report = PgVerifyReport {
        head_last_seq: head.last_seq,
        ..PgVerifyReport::default()
    };
    let query = format!("SELECT {ROW_COLUMNS} FROM engram_events ORDER BY seq");
    let portal = txn
        .bind(query.as_str(), &[])
        .map_err(|e| damaged_or(target, op, &e))?;
    let mut assembler = FrameAssembler::new(key, false);
    assembler.expect(1, Some(GENESIS_HASH));
    let mut last_hash = GENESIS_HASH;
    'rows: loop {
        let rows = txn
            .query_portal(&portal, VERIFY_ROWS_PER_FETCH)
            .map_err(|e| damaged_or(target, op, &e))?;
        if rows.is_empty() {
            break;
        }
        for row in &rows {
            match assembler.push(row, target) {
                Ok(Some(frame)) => {
                    report.n_frames += 1;
                    report.n_events += frame.last_seq - frame.first_seq + 1;
                    report.last_seq = frame.last_seq;
                    last_hash = frame.hash;
                }
                Ok(None) => {}
                Err(PgLogError::Corrupted { seq, reason } | PgLogError::Decode { seq, reason }) => {
                    report.problem = Some(PgCorruption { seq, reason });
                    break 'rows;
                }
                Err(other) => return Err(other),
            }
        }
    }
    drop(portal);
    txn.commit().map_err(err)?;
    if report.problem.is_some() {
        return Ok(report);
    }
    let next = report.last_seq + 1;
    report.problem = if assembler.has_partial() {
        Some(PgCorruption {
            seq: next,
            reason: format!(
                "the rows end inside the frame starting at seq {next}: its last rows are missing"
            ),
        })
    } else if report.last_seq < head.last_seq {
        Some(PgCorruption {
            seq: next,
            reason: if report.last_seq == 0 {
                format!(
                    "the head says the log ends at seq {} but the events table is empty: it was truncated",
                    head.last_seq
                )
            } else {
                format!(
                    "the head says the log ends at seq {} but the rows end at seq {}: the table was truncated or rows deleted",
                    head.last_seq, report.last_seq
                )
            },
        })
    } else if report.last_seq > head.last_seq {
        Some(PgCorruption {
            seq: head.last_seq + 1,
            reason: format!(
                "rows run to seq {} past the head's last seq {}: they were inserted outside an append",
                report.last_seq, head.last_seq
            ),
        })
    } else if last_hash != head.last_hash {
        Some(PgCorruption {
            seq: head.last_seq,
            reason: "the head's last hash is not the last frame's hash".to_owned(),
        })
    } else {
        None
    };
    Ok(report)
}

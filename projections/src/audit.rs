//! The audit view: every operation per memory and per session, on disk.
//!
//! Rows live in two redb tables keyed by (memory id, seq) and (session, seq),
//! so a memory's or a session's whole history is one range scan in seq order
//! and the view never has to fit in memory. Rows reach redb after every
//! batch, in the same transaction as the view's watermark.

use engram_log::{Event, LoggedEvent, MemoryId, Verdict};
use redb::{TableDefinition, WriteTransaction};
use serde::{Deserialize, Serialize};

use crate::error::ViewError;
use crate::fold::snapshot::{decode_value, encode_value};
use crate::view::View;

pub(crate) const BY_MEMORY: TableDefinition<(u64, u64), &[u8]> =
    TableDefinition::new("audit_by_memory");
pub(crate) const BY_SESSION: TableDefinition<(&str, u64), &[u8]> =
    TableDefinition::new("audit_by_session");

/// One operation in the audit trail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditRecord {
    pub seq: u64,
    /// Commit time, unix milliseconds.
    pub ts_ms: u64,
    /// The event kind (`remembered`, `recalled`, `forgotten`, ...).
    pub kind: String,
    /// What the operation was about, in words.
    pub subject: String,
    /// What came of it.
    pub result: String,
}

enum Row {
    Memory(MemoryId, AuditRecord),
    Session(String, AuditRecord),
}

/// The audit view. Rows are buffered between batches; reads go to redb.
#[derive(Default)]
pub struct AuditView {
    pending: Vec<Row>,
}

impl std::fmt::Debug for AuditView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditView")
            .field("pending", &self.pending.len())
            .finish()
    }
}

impl AuditView {
    pub const NAME: &'static str = "audit";
    pub const VERSION: u32 = 1;

    fn memory(
        &mut self,
        memory: MemoryId,
        e: &LoggedEvent,
        subject: String,
        result: impl Into<String>,
    ) {
        self.pending
            .push(Row::Memory(memory, record(e, subject, result)));
    }

    fn session(
        &mut self,
        session: &str,
        e: &LoggedEvent,
        subject: String,
        result: impl Into<String>,
    ) {
        self.pending
            .push(Row::Session(session.to_owned(), record(e, subject, result)));
    }

    /// The history of `memory` in seq order.
    pub fn memory_history(
        db: &impl redb::ReadableDatabase,
        memory: MemoryId,
    ) -> Result<Vec<AuditRecord>, ViewError> {
        let txn = db.begin_read()?;
        let table = match txn.open_table(BY_MEMORY) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let mut out = Vec::new();
        for row in table.range((memory, 0)..=(memory, u64::MAX))? {
            let (_, value) = row?;
            out.push(decode_record(value.value())?);
        }
        Ok(out)
    }

    /// The history of `session` in seq order.
    pub fn session_history(
        db: &impl redb::ReadableDatabase,
        session: &str,
    ) -> Result<Vec<AuditRecord>, ViewError> {
        let txn = db.begin_read()?;
        let table = match txn.open_table(BY_SESSION) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let mut out = Vec::new();
        for row in table.range((session, 0)..=(session, u64::MAX))? {
            let (_, value) = row?;
            out.push(decode_record(value.value())?);
        }
        Ok(out)
    }
}

fn decode_record(bytes: &[u8]) -> Result<AuditRecord, ViewError> {
    decode_value(bytes).map_err(|e| ViewError::Snapshot {
        view: AuditView::NAME,
        reason: e.to_string(),
    })
}

fn record(e: &LoggedEvent, subject: String, result: impl Into<String>) -> AuditRecord {
    AuditRecord {
        seq: e.seq,
        ts_ms: e.ts_ms,
        kind: e.event.kind().to_owned(),
        subject,
        result: result.into(),
    }
}

fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::KeepA => "keep-a",
        Verdict::KeepB => "keep-b",
        Verdict::KeepBoth => "keep-both",
        Verdict::Shelve => "shelve",
    }
}

impl View for AuditView {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn version(&self) -> u32 {
        Self::VERSION
    }

    fn apply(&mut self, e: &LoggedEvent) {
        match &e.event {
            Event::Session(s) => {
                self.session(
                    &s.session,
                    e,
                    format!("turn {} ({:?})", s.turn, s.role).to_lowercase(),
                    "recorded",
                );
            }
            Event::Remembered(r) => {
                let reference = format!(
                    "session {} seqs {}..={}",
                    r.reference.session, r.reference.first_seq, r.reference.last_seq
                );
                let result = match &r.summary {
                    Some(summary) => format!("remembered: {summary}"),
                    None => "remembered".to_owned(),
                };
                self.memory(e.seq, e, reference, result);
                self.session(
                    &r.reference.session,
                    e,
                    format!("memory {}", e.seq),
                    "remembered",
                );
            }
            Event::Reinforced(r) => {
                self.memory(
                    r.memory,
                    e,
                    format!("restated ({:?})", r.source).to_lowercase(),
                    "reinforced",
                );
            }
            Event::ContradictionFlagged(c) => {
                self.memory(
                    c.memory,
                    e,
                    format!("contradicts memory {}: {}", c.other, c.reason),
                    "flagged",
                );
                self.memory(
                    c.other,
                    e,
                    format!("contradicts memory {}: {}", c.memory, c.reason),
                    "flagged",
                );
            }
            Event::VerdictRecorded(v) => {
                let how = format!("{} by {:?}: {}", verdict_name(v.verdict), v.by, v.reason)
                    .to_lowercase();
                let (a, b) = match v.verdict {
                    Verdict::KeepA => ("kept", "lost"),
                    Verdict::KeepB => ("lost", "kept"),
                    Verdict::KeepBoth => ("kept", "kept"),
                    Verdict::Shelve => ("shelved", "shelved"),
                };
                self.memory(v.a, e, format!("verdict on {} and {}: {how}", v.a, v.b), a);
                self.memory(v.b, e, format!("verdict on {} and {}: {how}", v.a, v.b), b);
            }
            Event::Distilled(d) => {
                for &member in &d.members {
                    self.memory(member, e, format!("distilled: {}", d.rule), "member");
                }
            }
            Event::TierChanged(t) => {
                self.memory(
                    t.memory,
                    e,
                    format!("{:?} -> {:?}: {}", t.from, t.to, t.reason),
                    "moved",
                );
            }
            Event::Archived(a) => self.memory(a.memory, e, a.reason.clone(), "archived"),
            Event::Forgotten(f) => {
                self.memory(
                    f.memory,
                    e,
                    format!("by {:?}: {}", f.by, f.reason).to_lowercase(),
                    "forgotten",
                );
            }
            Event::Graded(g) => {
                self.memory(g.memory, e, format!("review grade {}", g.grade), "graded")
            }
            Event::Recalled(r) => {
                for hit in &r.hits {
                    let score = hit.score_micros as f64 / 1e6;
                    self.memory(
                        hit.memory,
                        e,
                        format!("query {:?} ({})", r.query, r.mode),
                        format!("hit, score {score:.3}"),
                    );
                }
            }
            Event::Expanded(x) => {
                let mode = if x.audit {
                    "expanded in audit mode"
                } else {
                    "expanded"
                };
                self.memory(
                    x.memory,
                    e,
                    "original words read and checked".to_owned(),
                    mode,
                );
            }
            Event::EvidenceConfirmed(c) => {
                self.memory(
                    c.memory,
                    e,
                    format!("by {:?}: {}", c.by, c.note).to_lowercase(),
                    "confirmed",
                );
            }
            Event::EntityLinked(l) => {
                self.memory(
                    l.memory,
                    e,
                    format!("{} ({})", l.entity, l.category),
                    "linked",
                );
            }
            Event::GateDenied(_) | Event::Discarded(_) | Event::Checkpoint(_) => {}
        }
    }

    fn persist(&mut self, txn: &WriteTransaction) -> Result<(), ViewError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut by_memory = txn.open_table(BY_MEMORY)?;
        let mut by_session = txn.open_table(BY_SESSION)?;
        for row in self.pending.drain(..) {
            let encode = |r: &AuditRecord| {
                encode_value(r).map_err(|e| ViewError::Snapshot {
                    view: AuditView::NAME,
                    reason: e.to_string(),
                })
            };
            match row {
                Row::Memory(memory, r) => {
                    by_memory.insert((memory, r.seq), encode(&r)?.as_slice())?;
                }
                Row::Session(session, r) => {
                    by_session.insert((session.as_str(), r.seq), encode(&r)?.as_slice())?;
                }
            }
        }
        Ok(())
    }

    fn load(&mut self, _txn: &redb::ReadTransaction) -> Result<(), ViewError> {
        // Rows are read from redb on demand; nothing is held in memory.
        self.pending.clear();
        Ok(())
    }

    fn clear(&mut self, txn: &WriteTransaction) -> Result<(), ViewError> {
        txn.delete_table(BY_MEMORY)?;
        txn.delete_table(BY_SESSION)?;
        self.pending.clear();
        Ok(())
    }

    fn persists_every_batch(&self) -> bool {
        true
    }
}

//! The audit view: every operation per memory and per session, on disk.
//!
//! The view is an index into the log: two redb tables keyed by (memory id,
//! first seq) and (session, first seq), each row holding the seqs of that
//! memory's (or session's) operations from one commit of the view, delta
//! encoded. A memory's or a session's whole history is one range scan in seq
//! order, the view never has to fit in memory, and a rebuild writes one row
//! per memory and session instead of one per operation. What each operation was (time, kind, subject, result) is read
//! back from the log event itself when the history is asked for: the log is
//! the record, the view only says where to look, so the rows stay small and
//! a rebuild writes keys only. Rows reach redb after every batch, in the same
//! transaction as the view's watermark.

use engram_log::{Event, LogReader, LoggedEvent, MemoryId, Verdict};
use redb::{ReadableDatabase, TableDefinition, WriteTransaction};
use serde::{Deserialize, Serialize};

use crate::error::ViewError;
use crate::fold::snapshot::{decode_value, encode_value};
use crate::view::{View, open_if_exists};

pub(crate) const BY_MEMORY: TableDefinition<(u64, u64), &[u8]> =
    TableDefinition::new("audit_by_memory");
pub(crate) const BY_SESSION: TableDefinition<(&str, u64), &[u8]> =
    TableDefinition::new("audit_by_session");

fn row_error(reason: String) -> ViewError {
    ViewError::Snapshot {
        view: AuditView::NAME,
        reason,
    }
}

/// The seqs after the first of a row, as deltas (bincode varints).
fn encode_seqs(seqs: &[u64]) -> Result<Vec<u8>, ViewError> {
    let deltas: Vec<u64> = seqs.windows(2).map(|w| w[1] - w[0]).collect();
    encode_value(&deltas).map_err(|e| row_error(e.to_string()))
}

/// Appends the seqs of a row starting at `first` to `out`.
fn decode_seqs(first: u64, bytes: &[u8], out: &mut Vec<u64>) -> Result<(), ViewError> {
    let deltas: Vec<u64> = decode_value(bytes).map_err(|e| row_error(e.to_string()))?;
    let mut seq = first;
    out.push(seq);
    for delta in deltas {
        seq = seq
            .checked_add(delta)
            .ok_or_else(|| row_error("seq overflow in an audit row".to_owned()))?;
        out.push(seq);
    }
    Ok(())
}

/// The seqs of one audit row (for `dump`).
pub(crate) fn decode_row(first: u64, bytes: &[u8], out: &mut Vec<u64>) -> Result<(), ViewError> {
    decode_seqs(first, bytes, out)
}

/// Adds `seq` unless it is already the last one (an event naming a memory twice).
fn push_seq(seqs: &mut Vec<u64>, seq: u64) {
    if seqs.last() != Some(&seq) {
        seqs.push(seq);
    }
}

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

/// Who an event concerns, for the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Concerns<'a> {
    Memory(MemoryId),
    Session(&'a str),
}

/// Every memory and session `e` concerns, in a fixed order (duplicates possible).
fn concerns<'a>(e: &'a LoggedEvent, out: &mut Vec<Concerns<'a>>) {
    match &e.event {
        Event::Session(s) => out.push(Concerns::Session(&s.session)),
        Event::Remembered(r) => {
            out.push(Concerns::Memory(e.seq));
            out.push(Concerns::Session(&r.reference.session));
        }
        Event::Reinforced(r) => out.push(Concerns::Memory(r.memory)),
        Event::ContradictionFlagged(c) => {
            out.extend([Concerns::Memory(c.memory), Concerns::Memory(c.other)])
        }
        Event::VerdictRecorded(v) => out.extend([Concerns::Memory(v.a), Concerns::Memory(v.b)]),
        Event::Distilled(d) => out.extend(d.members.iter().map(|&m| Concerns::Memory(m))),
        Event::TierChanged(t) => out.push(Concerns::Memory(t.memory)),
        Event::Archived(a) => out.push(Concerns::Memory(a.memory)),
        Event::Forgotten(f) => out.push(Concerns::Memory(f.memory)),
        Event::Graded(g) => out.push(Concerns::Memory(g.memory)),
        Event::Recalled(r) => out.extend(r.hits.iter().map(|h| Concerns::Memory(h.memory))),
        Event::Expanded(x) => out.push(Concerns::Memory(x.memory)),
        Event::EvidenceNoted(c) => out.push(Concerns::Memory(c.memory)),
        Event::EvidenceConfirmed(c) => out.push(Concerns::Memory(c.memory)),
        Event::EntityLinked(l) => out.push(Concerns::Memory(l.memory)),
        Event::TtlSet(t) => out.push(Concerns::Memory(t.memory)),
        Event::Embedded(e) => out.push(Concerns::Memory(e.memory)),
        Event::UniquenessScored(u) => out.push(Concerns::Memory(u.memory)),
        Event::Purged(p) => {
            out.extend(p.memories.iter().map(|&m| Concerns::Memory(m)));
            out.extend(p.sessions.iter().map(|s| Concerns::Session(s)));
        }
        Event::GateDenied(_)
        | Event::Discarded(_)
        | Event::Checkpoint(_)
        | Event::CorridorPlaced(_) => {}
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

fn lower<T: std::fmt::Debug>(value: &T) -> String {
    format!("{value:?}").to_lowercase()
}

/// What `e` was, seen from memory `memory` (or from its session when `None`).
#[must_use]
pub fn describe(memory: Option<MemoryId>, e: &LoggedEvent) -> AuditRecord {
    let (subject, result) = match &e.event {
        Event::Session(s) => (
            format!("turn {} ({})", s.turn, lower(&s.role)),
            "recorded".to_owned(),
        ),
        Event::Remembered(r) => match memory {
            Some(_) => (
                format!(
                    "session {} seqs {} to {}",
                    r.reference.session, r.reference.first_seq, r.reference.last_seq
                ),
                r.summary
                    .as_ref()
                    .map_or_else(|| "remembered".to_owned(), |s| format!("remembered: {s}")),
            ),
            None => (format!("memory {}", e.seq), "remembered".to_owned()),
        },
        Event::Reinforced(r) => (
            format!("restated ({})", lower(&r.source)),
            "reinforced".to_owned(),
        ),
        Event::ContradictionFlagged(c) => {
            let other = if memory == Some(c.other) {
                c.memory
            } else {
                c.other
            };
            (
                format!("contradicts memory {other}: {}", c.reason),
                "flagged".to_owned(),
            )
        }
        Event::VerdictRecorded(v) => {
            let is_a = memory == Some(v.a);
            let result = match (v.verdict, is_a) {
                (Verdict::KeepA, true) | (Verdict::KeepB, false) => "kept",
                (Verdict::KeepA, false) | (Verdict::KeepB, true) => "lost",
                (Verdict::KeepBoth, _) => "kept",
                (Verdict::Shelve, _) => "shelved",
            };
            (
                format!(
                    "verdict on {} and {}: {} by {}: {}",
                    v.a,
                    v.b,
                    verdict_name(v.verdict),
                    lower(&v.by),
                    v.reason
                ),
                result.to_owned(),
            )
        }
        Event::Distilled(d) => (format!("distilled: {}", d.rule), "member".to_owned()),
        Event::TierChanged(t) => (
            format!("{:?} -> {:?}: {}", t.from, t.to, t.reason),
            "moved".to_owned(),
        ),
        Event::Archived(a) => (a.reason.clone(), "archived".to_owned()),
        Event::Forgotten(f) => (
            format!("by {}: {}", lower(&f.by), f.reason),
            "forgotten".to_owned(),
        ),
        Event::Graded(g) => (format!("review grade {}", g.grade), "graded".to_owned()),
        Event::Recalled(r) => {
            let score = r
                .hits
                .iter()
                .find(|h| Some(h.memory) == memory)
                .map_or(0.0, |h| h.score_micros as f64 / 1e6);
            (
                format!("query {:?} ({})", r.query, r.mode),
                format!("hit, score {score:.3}"),
            )
        }
        Event::Expanded(x) => (
            "original words read and checked".to_owned(),
            if x.audit {
                "expanded in audit mode"
            } else {
                "expanded"
            }
            .to_owned(),
        ),
        Event::EvidenceNoted(c) => (
            format!("by {}: {}", lower(&c.by), c.note),
            "confirmed".to_owned(),
        ),
        Event::EvidenceConfirmed(c) => (
            format!("by {}: {:?}", lower(&c.by), c.quote),
            if c.valid {
                "confirmed: the quote is in the source"
            } else {
                "not confirmed: the quote is not in the source"
            }
            .to_owned(),
        ),
        Event::EntityLinked(l) => (
            format!("{} ({})", l.entity, l.category),
            "linked".to_owned(),
        ),
        Event::GateDenied(g) => (
            format!("{} {} {}", g.subject, g.action, g.object),
            g.reason.clone(),
        ),
        Event::Discarded(d) => (d.reason.clone(), "discarded".to_owned()),
        Event::Checkpoint(c) => (format!("up to seq {}", c.last_seq), "sealed".to_owned()),
        Event::Embedded(e) => (
            format!(
                "{} ({} dimensions)",
                e.embedding.model,
                e.embedding.values.len()
            ),
            "embedded".to_owned(),
        ),
        Event::TtlSet(t) => (
            format!("expires at unix ms {}", t.expires_at_ms),
            "time to live set".to_owned(),
        ),
        Event::UniquenessScored(u) => (
            format!(
                "uniqueness {}.{:03}",
                u.uniqueness_permille / 1000,
                u.uniqueness_permille % 1000
            ),
            "uniqueness refreshed".to_owned(),
        ),
        Event::CorridorPlaced(p) => (
            format!("{} on corridor {}", p.name, p.corridor),
            "corridor placed".to_owned(),
        ),
        Event::Purged(p) => (
            format!(
                "{} subject(s) by {}: {}",
                p.subjects.len(),
                lower(&p.by),
                p.reason
            ),
            "purged: the words were erased".to_owned(),
        ),
    };
    AuditRecord {
        seq: e.seq,
        ts_ms: e.ts_ms,
        kind: e.event.kind().to_owned(),
        subject,
        result,
    }
}

/// The audit view. Seqs are gathered per memory and session until the
/// view's next commit, which writes one row for each.
#[derive(Debug, Default)]
pub struct AuditView {
    memory_rows: std::collections::BTreeMap<MemoryId, Vec<u64>>,
    session_rows: std::collections::BTreeMap<String, Vec<u64>>,
}

impl AuditView {
    pub const NAME: &'static str = "audit";
    pub const VERSION: u32 = 3;

    /// The seqs of every operation on `memory`, in seq order.
    pub fn memory_seqs(
        db: &impl ReadableDatabase,
        memory: MemoryId,
    ) -> Result<Vec<u64>, ViewError> {
        owner_seqs(db, BY_MEMORY, memory)
    }

    /// The seqs of every operation in `session`, in seq order.
    pub fn session_seqs(db: &impl ReadableDatabase, session: &str) -> Result<Vec<u64>, ViewError> {
        owner_seqs(db, BY_SESSION, session)
    }

    /// The history of `memory`: each operation read back from the log.
    pub fn memory_history(
        db: &impl ReadableDatabase,
        reader: &LogReader,
        memory: MemoryId,
    ) -> Result<Vec<AuditRecord>, ViewError> {
        read_back(reader, &Self::memory_seqs(db, memory)?, Some(memory))
    }

    /// The history of `session`: each operation read back from the log.
    pub fn session_history(
        db: &impl ReadableDatabase,
        reader: &LogReader,
        session: &str,
    ) -> Result<Vec<AuditRecord>, ViewError> {
        read_back(reader, &Self::session_seqs(db, session)?, None)
    }
}

/// The seqs in every row of `owner` in `table` (keyed by (owner, first seq)).
fn owner_seqs<'a, K>(
    db: &impl ReadableDatabase,
    table: TableDefinition<(K, u64), &[u8]>,
    owner: K::SelfType<'a>,
) -> Result<Vec<u64>, ViewError>
where
    K: redb::Key + 'static,
    K::SelfType<'a>: Copy,
{
    let txn = db.begin_read()?;
    let Some(table) = open_if_exists(&txn, table)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for row in redb::ReadableTable::range(&table, (owner, 0)..=(owner, u64::MAX))? {
        let (key, value) = row?;
        decode_seqs(key.value().1, value.value(), &mut out)?;
    }
    Ok(out)
}

/// Each event at `seqs`, read from the log and described from `memory`'s
/// point of view (or its session's, for `None`).
fn read_back(
    reader: &LogReader,
    seqs: &[u64],
    memory: Option<MemoryId>,
) -> Result<Vec<AuditRecord>, ViewError> {
    let mut out = Vec::with_capacity(seqs.len());
    for &seq in seqs {
        for e in reader.read(seq..=seq)? {
            out.push(describe(memory, &e));
        }
    }
    Ok(out)
}

impl View for AuditView {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn version(&self) -> u32 {
        Self::VERSION
    }

    fn apply(&mut self, e: &LoggedEvent) -> Result<(), ViewError> {
        let mut subjects = Vec::new();
        concerns(e, &mut subjects);
        for subject in subjects {
            match subject {
                Concerns::Memory(memory) => {
                    push_seq(self.memory_rows.entry(memory).or_default(), e.seq);
                }
                Concerns::Session(session) => match self.session_rows.get_mut(session) {
                    Some(seqs) => push_seq(seqs, e.seq),
                    None => {
                        self.session_rows.insert(session.to_owned(), vec![e.seq]);
                    }
                },
            }
        }
        Ok(())
    }

    fn persist(&mut self, txn: &WriteTransaction) -> Result<(), ViewError> {
        if self.memory_rows.is_empty() && self.session_rows.is_empty() {
            return Ok(());
        }
        // One row per memory and session, inserted in key order.
        let mut by_memory = txn.open_table(BY_MEMORY)?;
        for (memory, seqs) in std::mem::take(&mut self.memory_rows) {
            if let Some(&first) = seqs.first() {
                by_memory.insert((memory, first), encode_seqs(&seqs)?.as_slice())?;
            }
        }
        let mut by_session = txn.open_table(BY_SESSION)?;
        for (session, seqs) in std::mem::take(&mut self.session_rows) {
            if let Some(&first) = seqs.first() {
                by_session.insert((session.as_str(), first), encode_seqs(&seqs)?.as_slice())?;
            }
        }
        Ok(())
    }

    fn load(&mut self, _txn: &redb::ReadTransaction) -> Result<(), ViewError> {
        // Rows are read from redb on demand; nothing is held in memory.
        self.memory_rows.clear();
        self.session_rows.clear();
        Ok(())
    }

    fn clear(&mut self, txn: &WriteTransaction) -> Result<(), ViewError> {
        txn.delete_table(BY_MEMORY)?;
        txn.delete_table(BY_SESSION)?;
        self.memory_rows.clear();
        self.session_rows.clear();
        Ok(())
    }

    fn persists_every_batch(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use engram_log::{
        Digest, Event, LoggedEvent, MemoryRef, RecallFilters, RecallHit, Recalled, Remembered,
        Role, Scope, SessionEvent, Source, Tier,
    };
    use redb::Database;
    use redb::backends::InMemoryBackend;

    use super::AuditView;
    use crate::view::View;

    fn turn(session: &str) -> Event {
        Event::Session(SessionEvent {
            session: session.to_owned(),
            turn: 0,
            role: Role::User,
            content: "x".to_owned(),
        })
    }

    fn remember(session: &str) -> Event {
        Event::Remembered(Remembered {
            reference: MemoryRef {
                session: session.to_owned(),
                first_seq: 1,
                last_seq: 1,
            },
            content_sha256: Digest([0; 32]),
            mac: Digest([0; 32]),
            summary: None,
            tags: Vec::new(),
            tier: Tier::L3,
            room: None,
            uniqueness_permille: 0,
            source: Source::User,
            scope: Scope::Store,
            embedding: None,
        })
    }

    fn recall(hits: &[u64]) -> Event {
        Event::Recalled(Recalled {
            query: "q".to_owned(),
            filters: RecallFilters {
                room: None,
                tier: None,
                tags: Vec::new(),
                scope: None,
                limit: 5,
            },
            hits: hits
                .iter()
                .map(|&memory| RecallHit {
                    memory,
                    score_micros: 1,
                })
                .collect(),
            mode: "keyword".to_owned(),
        })
    }

    #[test]
    fn seqs_are_indexed_per_memory_and_session_across_commits() {
        let db = Database::builder()
            .create_with_backend(InMemoryBackend::new())
            .unwrap();
        let log = [
            turn("a"),
            remember("a"),
            turn("b"),
            recall(&[2, 2]),
            turn("a"),
            recall(&[2]),
        ];
        let mut view = AuditView::default();
        // Two commits, so the memory's and session a's seqs span two rows each.
        for range in [0..3usize, 3..6usize] {
            for seq in range {
                view.apply(&LoggedEvent {
                    erased: false,
                    seq: seq as u64 + 1,
                    ts_ms: 0,
                    event: log[seq].clone(),
                })
                .unwrap();
            }
            let txn = db.begin_write().unwrap();
            view.persist(&txn).unwrap();
            txn.commit().unwrap();
        }
        assert_eq!(AuditView::memory_seqs(&db, 2).unwrap(), vec![2, 4, 6]);
        assert_eq!(AuditView::memory_seqs(&db, 3).unwrap(), Vec::<u64>::new());
        assert_eq!(AuditView::session_seqs(&db, "a").unwrap(), vec![1, 2, 5]);
        assert_eq!(AuditView::session_seqs(&db, "b").unwrap(), vec![3]);
        assert_eq!(
            AuditView::session_seqs(&db, "c").unwrap(),
            Vec::<u64>::new()
        );
    }
}

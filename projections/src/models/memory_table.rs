//! The memory table: one [`MemoryEntry`] per memory, keyed by its id (the seq
//! of its `Remembered` event), with its status: live, forgotten or archived.
//!
//! It folds `Remembered` (creates the entry), `Reinforced` (counts),
//! `TierChanged` (moves the tier), `Archived`, `Forgotten` and `Purged`
//! (status Purged: summary emptied, tags and room dropped, as an erased
//! `Remembered` would give them); every other event is ignored. The embedding is not kept here (the vector index owns
//! it), so the entry stays small and `Eq`.
//!
//! **Invariants**
//!
//! - An entry's key is its `id`, the seq of its `Remembered` event. Entries
//!   are created once and never removed: a forget is a tombstone (status
//!   [`MemoryStatus::Forgotten`]), the log keeps the original events.
//! - Purged is final and frozen like forgotten; a forgotten memory can
//!   still be purged (it keeps its tombstone).
//! - Forgotten is final: once forgotten, an entry is frozen. No later event
//!   (`Reinforced`, `TierChanged`, `Archived`, another `Forgotten`) changes
//!   it; the first tombstone is the one recorded.
//! - `status == Archived` exactly when `archived` is set, and an archived
//!   entry sits in tier L4. `status == Forgotten` exactly when `forgotten` is
//!   set.
//! - An event naming an id without an entry is ignored (no panic, no entry).
//! - `last_changed_seq` is the seq of the last event that changed the entry.
//!
//! **Decisions**
//!
//! - `Archived` sets status Archived and tier L4. A repeated `Archived`
//!   records the latest seq and reason.
//! - `TierChanged` moves the tier only. A move to L4 without `Archived` keeps
//!   the memory live: status is its lifecycle, the tier its placement (a
//!   demoted live memory is still found when L4 is searched; a policy that
//!   wants it cold writes `Archived`). A move out of L4 of an archived memory
//!   restores it: status Live, `archived` cleared. The event's `from` is
//!   informational: the table's own tier, derived from log order, is
//!   authoritative. A move to the tier it already has changes nothing.

use std::collections::BTreeMap;

use engram_log::{
    Actor, Digest, Event, LoggedEvent, MemoryId, MemoryRef, Remembered, Scope, Source, Tier,
};
use serde::{Deserialize, Serialize};

use crate::Fold;

/// A memory's lifecycle status.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "snake_case")]
pub enum MemoryStatus {
    /// Recallable.
    #[default]
    Live,
    /// Tombstoned: not recalled, not expanded outside audit mode. Final.
    Forgotten,
    /// Cold (decayed, evicted, expired): in tier L4, recalled only when asked.
    Archived,
    /// Erased by a purge: its words are gone for good (their keys were
    /// destroyed); only its structure is left. Final.
    Purged,
}

/// The tombstone of a forgotten memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forgetting {
    /// Seq of the `Forgotten` event.
    pub seq: u64,
    pub by: Actor,
    pub reason: String,
}

/// The purge that erased a memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Erasure {
    /// Seq of the `Purged` event.
    pub seq: u64,
    pub by: Actor,
    /// Why, as recorded in the clear.
    pub reason: String,
}

/// Why and when a memory was archived.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Archival {
    /// Seq of the (latest) `Archived` event.
    pub seq: u64,
    pub reason: String,
}

/// One memory as the log describes it now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryEntry {
    /// The memory's id: the seq of its `Remembered` event (its created seq).
    pub id: MemoryId,
    /// Commit time of the `Remembered` event, unix milliseconds.
    pub created_ts_ms: u64,
    /// The session events the memory stands for.
    pub reference: MemoryRef,
    /// SHA-256 over the referenced events' canonical bytes.
    pub content_sha256: Digest,
    /// HMAC over the reference and the content hash, as written.
    pub mac: Digest,
    pub summary: Option<String>,
    pub tags: Vec<String>,
    /// Current tier (L4 while archived).
    pub tier: Tier,
    pub room: Option<String>,
    pub source: Source,
    pub scope: Scope,
    /// Uniqueness score in thousandths, as decided by the command.
    pub uniqueness_permille: u16,
    pub status: MemoryStatus,
    /// Set exactly when `status` is Forgotten.
    pub forgotten: Option<Forgetting>,
    /// Set exactly when `status` is Archived.
    pub archived: Option<Archival>,
    /// Set exactly when `status` is Purged (a purged memory forgotten
    /// before keeps its tombstone).
    pub purged: Option<Erasure>,
    /// Number of `Reinforced` events applied (not counted after a forget).
    pub reinforcements: u32,
    /// Seq of the last event that changed this entry.
    pub last_changed_seq: u64,
    /// Time to live: past this (unix ms), maintenance archives it.
    pub expires_at_ms: Option<u64>,
}

impl MemoryEntry {
    fn new(seq: u64, ts_ms: u64, r: &Remembered) -> Self {
        MemoryEntry {
            id: seq,
            created_ts_ms: ts_ms,
            reference: r.reference.clone(),
            content_sha256: r.content_sha256,
            mac: r.mac,
            summary: r.summary.clone(),
            tags: r.tags.clone(),
            tier: r.tier,
            room: r.room.clone(),
            source: r.source,
            scope: r.scope.clone(),
            uniqueness_permille: r.uniqueness_permille,
            status: MemoryStatus::Live,
            forgotten: None,
            archived: None,
            purged: None,
            reinforcements: 0,
            last_changed_seq: seq,
            expires_at_ms: None,
        }
    }

    /// The seq of the event that created the memory (its id).
    #[must_use]
    pub fn created_seq(&self) -> u64 {
        self.id
    }
}

/// The memory table read model (see the module documentation).
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryTable {
    entries: BTreeMap<MemoryId, MemoryEntry>,
    /// Seq of the last `Purged` applied (0: none): the store rewrites its
    /// views file when it opens past a purge the file was not rewritten for.
    last_purged_seq: u64,
}

impl MemoryTable {
    /// The entry of memory `id`, whatever its status.
    #[must_use]
    pub fn get(&self, id: MemoryId) -> Option<&MemoryEntry> {
        self.entries.get(&id)
    }

    /// Seq of the last `Purged` event applied (0 when none was).
    #[must_use]
    pub fn last_purged_seq(&self) -> u64 {
        self.last_purged_seq
    }

    /// The status of memory `id`, if it exists.
    #[must_use]
    pub fn status(&self, id: MemoryId) -> Option<MemoryStatus> {
        self.entries.get(&id).map(|e| e.status)
    }

    /// Every entry, in id order (`rev` for the newest first).
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &MemoryEntry> + '_ {
        self.entries.values()
    }

    /// How many memories have each status; every status is present, zero
    /// included.
    #[must_use]
    pub fn count_by_status(&self) -> BTreeMap<MemoryStatus, u64> {
        let mut counts = BTreeMap::from([
            (MemoryStatus::Live, 0),
            (MemoryStatus::Forgotten, 0),
            (MemoryStatus::Archived, 0),
            (MemoryStatus::Purged, 0),
        ]);
        for entry in self.entries.values() {
            *counts.entry(entry.status).or_insert(0) += 1;
        }
        counts
    }

    /// Number of memories ever created (forgotten ones included).
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no memory was ever created.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry of `id` if it exists and is neither forgotten nor purged
    /// (both are final).
    fn changeable(&mut self, id: MemoryId) -> Option<&mut MemoryEntry> {
        self.entries
            .get_mut(&id)
            .filter(|e| !matches!(e.status, MemoryStatus::Forgotten | MemoryStatus::Purged))
    }

    /// Checks the module's invariants (tests).
    #[cfg(test)]
    pub(crate) fn assert_invariants(&self) {
        for (&id, entry) in &self.entries {
            assert_eq!(id, entry.id);
            assert!(entry.last_changed_seq >= entry.id);
            if entry.status == MemoryStatus::Forgotten {
                assert!(entry.forgotten.is_some());
            }
            if entry.forgotten.is_some() {
                assert!(matches!(
                    entry.status,
                    MemoryStatus::Forgotten | MemoryStatus::Purged
                ));
            }
            assert_eq!(entry.status == MemoryStatus::Purged, entry.purged.is_some());
            assert_eq!(
                entry.status == MemoryStatus::Archived,
                entry.archived.is_some()
            );
            if entry.status == MemoryStatus::Archived {
                assert_eq!(entry.tier, Tier::L4);
            }
        }
    }
}

impl Fold for MemoryTable {
    const NAME: &'static str = "memory_table";
    const VERSION: u32 = 3;

    fn apply(&mut self, logged: &LoggedEvent) {
        let seq = logged.seq;
        match &logged.event {
            Event::Remembered(r) => {
                self.entries
                    .entry(seq)
                    .or_insert_with(|| MemoryEntry::new(seq, logged.ts_ms, r));
            }
            Event::Reinforced(r) => {
                if let Some(entry) = self.changeable(r.memory) {
                    entry.reinforcements = entry.reinforcements.saturating_add(1);
                    entry.last_changed_seq = seq;
                }
            }
            Event::TierChanged(t) => {
                if let Some(entry) = self.changeable(t.memory)
                    && entry.tier != t.to
                {
                    entry.tier = t.to;
                    if entry.status == MemoryStatus::Archived {
                        // Only a move out of L4 gets here: restore.
                        entry.status = MemoryStatus::Live;
                        entry.archived = None;
                    }
                    entry.last_changed_seq = seq;
                }
            }
            Event::Archived(a) => {
                if let Some(entry) = self.changeable(a.memory) {
                    entry.status = MemoryStatus::Archived;
                    entry.tier = Tier::L4;
                    entry.archived = Some(Archival {
                        seq,
                        reason: a.reason.clone(),
                    });
                    entry.last_changed_seq = seq;
                }
            }
            Event::Forgotten(f) => {
                if let Some(entry) = self.changeable(f.memory) {
                    entry.status = MemoryStatus::Forgotten;
                    entry.archived = None;
                    entry.forgotten = Some(Forgetting {
                        seq,
                        by: f.by,
                        reason: f.reason.clone(),
                    });
                    entry.last_changed_seq = seq;
                }
            }
            Event::Session(_)
            | Event::ContradictionFlagged(_)
            | Event::VerdictRecorded(_)
            | Event::Distilled(_)
            | Event::Graded(_)
            | Event::Recalled(_)
            | Event::Expanded(_)
            | Event::EvidenceNoted(_)
            | Event::EvidenceConfirmed(_)
            | Event::EntityLinked(_)
            | Event::GateDenied(_)
            | Event::Discarded(_)
            | Event::Embedded(_)
            | Event::Checkpoint(_)
            | Event::CorridorPlaced(_) => {}
            Event::Purged(p) => {
                self.last_purged_seq = seq;
                for &id in &p.memories {
                    let Some(entry) = self
                        .entries
                        .get_mut(&id)
                        .filter(|e| e.status != MemoryStatus::Purged)
                    else {
                        continue;
                    };
                    // What an erased `Remembered` leaves (its words
                    // emptied), so a rebuild gives the same entry.
                    entry.summary = entry.summary.as_ref().map(|_| String::new());
                    entry.tags.clear();
                    entry.room = None;
                    entry.status = MemoryStatus::Purged;
                    entry.archived = None;
                    entry.purged = Some(Erasure {
                        seq,
                        by: p.by,
                        reason: p.reason.clone(),
                    });
                    entry.last_changed_seq = seq;
                }
            }
            Event::TtlSet(t) => {
                if let Some(entry) = self.changeable(t.memory) {
                    entry.expires_at_ms = Some(t.expires_at_ms);
                    entry.last_changed_seq = seq;
                }
            }
            Event::UniquenessScored(u) => {
                if let Some(entry) = self.changeable(u.memory) {
                    entry.uniqueness_permille = u.uniqueness_permille.min(1000);
                    entry.last_changed_seq = seq;
                }
            }
        }
    }

    /// One entry per memory, `memory <id>`, in id order.
    fn entries(&self) -> Result<Vec<(String, Vec<u8>)>, crate::fold::snapshot::SnapshotError> {
        self.entries
            .values()
            .map(|entry| {
                Ok((
                    format!("memory {}", entry.id),
                    crate::fold::snapshot::encode_value(entry)?,
                ))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use engram_log::{Actor, Event, Remembered, Scope, Source, Tier};

    use super::{MemoryStatus, MemoryTable};
    use crate::Fold;
    use crate::models::testkit::*;

    #[test]
    fn remembered_creates_an_entry_keyed_by_its_seq() {
        let table: MemoryTable = fold(&logged(vec![
            session("I prefer tea."),
            remember(Tier::L3, Source::User),
        ]));
        assert_eq!(table.len(), 1);
        assert!(table.get(1).is_none());
        let entry = table.get(2).unwrap();
        assert_eq!(entry.id, 2);
        assert_eq!(entry.created_seq(), 2);
        assert_eq!(entry.created_ts_ms, 2_000);
        assert_eq!(entry.reference.session, "s1");
        assert_eq!(entry.content_sha256, digest(1));
        assert_eq!(entry.mac, digest(2));
        assert_eq!(entry.summary.as_deref(), Some("a memory"));
        assert_eq!(entry.tags, vec!["tag".to_owned()]);
        assert_eq!(entry.tier, Tier::L3);
        assert_eq!(entry.room.as_deref(), Some("room"));
        assert_eq!(entry.source, Source::User);
        assert_eq!(entry.scope, Scope::Store);
        assert_eq!(entry.uniqueness_permille, 800);
        assert_eq!(entry.status, MemoryStatus::Live);
        assert_eq!(entry.forgotten, None);
        assert_eq!(entry.archived, None);
        assert_eq!(entry.reinforcements, 0);
        assert_eq!(entry.last_changed_seq, 2);
    }

    #[test]
    fn reinforcements_are_counted() {
        let table: MemoryTable = fold(&logged(vec![
            remember(Tier::L3, Source::User),
            reinforce(1),
            reinforce(1),
            session("noise"),
        ]));
        let entry = table.get(1).unwrap();
        assert_eq!(entry.reinforcements, 2);
        assert_eq!(entry.last_changed_seq, 3);
    }

    #[test]
    fn tier_changes_move_the_tier_and_keep_it_live() {
        let table: MemoryTable = fold(&logged(vec![
            remember(Tier::L3, Source::User),
            tier(1, Tier::L3, Tier::L2),
            remember(Tier::L3, Source::User),
            tier(3, Tier::L3, Tier::L4),
            // `from` is informational: the table's tier is authoritative.
            tier(1, Tier::L1, Tier::L1),
        ]));
        let one = table.get(1).unwrap();
        assert_eq!(
            (one.tier, one.status, one.last_changed_seq),
            (Tier::L1, MemoryStatus::Live, 5)
        );
        let three = table.get(3).unwrap();
        assert_eq!((three.tier, three.status), (Tier::L4, MemoryStatus::Live));
        assert_eq!(three.archived, None);
    }

    #[test]
    fn a_tier_change_to_the_same_tier_changes_nothing() {
        let table: MemoryTable = fold(&logged(vec![
            remember(Tier::L3, Source::User),
            tier(1, Tier::L3, Tier::L3),
        ]));
        assert_eq!(table.get(1).unwrap().last_changed_seq, 1);
    }

    #[test]
    fn archived_sets_status_and_tier_l4_and_a_move_out_restores() {
        let events = logged(vec![
            remember(Tier::L3, Source::User),
            archive(1),
            reinforce(1),
            archive(1),
            tier(1, Tier::L4, Tier::L3),
        ]);
        let table: MemoryTable = fold(&events[..2]);
        let entry = table.get(1).unwrap();
        assert_eq!(
            (entry.status, entry.tier),
            (MemoryStatus::Archived, Tier::L4)
        );
        let archival = entry.archived.as_ref().unwrap();
        assert_eq!((archival.seq, archival.reason.as_str()), (2, "decay"));

        let table: MemoryTable = fold(&events[..4]);
        let entry = table.get(1).unwrap();
        assert_eq!(entry.status, MemoryStatus::Archived);
        assert_eq!(entry.reinforcements, 1);
        assert_eq!(entry.archived.as_ref().unwrap().seq, 4);

        let table: MemoryTable = fold(&events);
        let entry = table.get(1).unwrap();
        assert_eq!((entry.status, entry.tier), (MemoryStatus::Live, Tier::L3));
        assert_eq!(entry.archived, None);
        assert_eq!(entry.last_changed_seq, 5);
    }

    #[test]
    fn forgotten_is_final() {
        let table: MemoryTable = fold(&logged(vec![
            remember(Tier::L3, Source::User),
            forget(1),
            archive(1),
            tier(1, Tier::L3, Tier::L2),
            reinforce(1),
            Event::Forgotten(engram_log::Forgotten {
                memory: 1,
                by: Actor::System,
                reason: "again".to_owned(),
            }),
        ]));
        let entry = table.get(1).unwrap();
        assert_eq!(entry.status, MemoryStatus::Forgotten);
        assert_eq!(entry.tier, Tier::L3);
        assert_eq!(entry.reinforcements, 0);
        assert_eq!(entry.archived, None);
        let tombstone = entry.forgotten.as_ref().unwrap();
        assert_eq!(
            (tombstone.seq, tombstone.by, tombstone.reason.as_str()),
            (2, Actor::User, "asked to forget")
        );
        assert_eq!(entry.last_changed_seq, 2);
    }

    #[test]
    fn forgetting_an_archived_memory_clears_the_archival() {
        let table: MemoryTable = fold(&logged(vec![
            remember(Tier::L3, Source::User),
            archive(1),
            forget(1),
        ]));
        let entry = table.get(1).unwrap();
        assert_eq!(entry.status, MemoryStatus::Forgotten);
        assert_eq!(entry.archived, None);
        table.assert_invariants();
    }

    #[test]
    fn events_naming_unknown_ids_are_ignored() {
        let table: MemoryTable = fold(&logged(vec![
            session("turn"),
            reinforce(1),
            tier(1, Tier::L3, Tier::L2),
            archive(99),
            forget(0),
            reinforce(u64::MAX),
        ]));
        assert!(table.is_empty());
        assert_eq!(table, MemoryTable::default());
    }

    #[test]
    fn other_events_are_ignored() {
        let events = logged(vec![
            remember(Tier::L3, Source::User),
            contradict(1, 1),
            verdict(1, 1, engram_log::Verdict::KeepA),
            grade(1, 5),
            recall(&[1]),
            expand(1, false),
            confirm(1),
            link(1),
        ]);
        let table: MemoryTable = fold(&events);
        let only_created: MemoryTable = fold(&events[..1]);
        assert_eq!(table, only_created);
    }

    #[test]
    fn iteration_is_in_id_order_and_counts_cover_every_status() {
        let mut events = vec![
            remember(Tier::L3, Source::User),
            remember(Tier::L2, Source::Document),
            remember(Tier::L1, Source::Model),
            remember(Tier::L3, Source::Ingest),
        ];
        events.push(forget(2));
        events.push(archive(4));
        let table: MemoryTable = fold(&logged(events));
        let ids: Vec<u64> = table.iter().map(|e| e.id).collect();
        assert_eq!(ids, vec![1, 2, 3, 4]);
        let counts = table.count_by_status();
        assert_eq!(counts[&MemoryStatus::Live], 2);
        assert_eq!(counts[&MemoryStatus::Forgotten], 1);
        assert_eq!(counts[&MemoryStatus::Archived], 1);
        assert_eq!(table.status(2), Some(MemoryStatus::Forgotten));
        assert_eq!(table.status(5), None);

        let empty = MemoryTable::default().count_by_status();
        assert_eq!(empty.len(), 4);
        assert!(empty.values().all(|&n| n == 0));
    }

    #[test]
    fn a_remembered_event_never_replaces_an_entry() {
        // Seqs are unique in a valid log; a repeated seq keeps the first.
        let mut events = logged(vec![remember(Tier::L3, Source::User)]);
        let mut again = events[0].clone();
        if let Event::Remembered(r) = &mut again.event {
            *r = Remembered {
                tier: Tier::L1,
                ..r.clone()
            };
        }
        events.push(again);
        let table: MemoryTable = fold(&events);
        assert_eq!(table.get(1).unwrap().tier, Tier::L3);
    }

    #[test]
    fn the_snapshot_round_trips() {
        let table: MemoryTable = fold(&logged(vec![
            remember(Tier::L3, Source::User),
            remember(Tier::L2, Source::Document),
            reinforce(1),
            archive(2),
            remember(Tier::L1, Source::Model),
            forget(5),
        ]));
        assert_round_trip(&table);
        assert_eq!(MemoryTable::NAME, "memory_table");
        assert_eq!(MemoryTable::VERSION, 3);
    }
}

//! The LRU table: when each memory was last accessed, ordered for eviction
//! (least recently used first). Decay and the L3 hot set's capacity policy
//! read it to choose what to archive.
//!
//! It folds:
//!
//! | event | effect |
//! | --- | --- |
//! | `Remembered` | creation is the first access (at its own seq) |
//! | `Recalled` | every hit naming a known memory is an access at the recall's seq |
//! | `Expanded` (not audit) | an access of the memory |
//! | `Expanded` (audit mode) | nothing: an auditor reading a memory is not the agent using it, and must not keep it hot |
//! | `Forgotten` | the memory leaves the table |
//!
//! Every other event is ignored. `Archived` and `TierChanged` do not touch
//! the table: an archived memory keeps its last access (a consumer that only
//! evicts from L3 filters by the [`TierIndex`](super::TierIndex)).
//!
//! **Invariants**
//!
//! - `order` holds exactly one `(last_access_seq, id)` pair per entry of
//!   `last`, matching that entry's `seq`; iterating it gives the eviction
//!   order, ties impossible (seq is unique per event; equal seqs would fall
//!   back to id order).
//! - A memory's last access only moves forward: an access at a seq not after
//!   the recorded one (the same recall naming a memory twice) is not counted
//!   again.
//! - A forgotten memory is not in the table and stays out; an access naming
//!   an id not in the table is ignored.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};

use engram_log::{Event, LoggedEvent, MemoryId};
use serde::{Deserialize, Serialize};

use crate::Fold;

/// A memory's most recent access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Access {
    /// Seq of the accessing event (its `Remembered`, `Recalled` or `Expanded`).
    pub seq: u64,
    /// Commit time of that event, unix milliseconds.
    pub ts_ms: u64,
    /// How many events accessed the memory, creation included.
    pub count: u64,
}

/// The LRU table read model (see the module documentation).
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LruTable {
    last: BTreeMap<MemoryId, Access>,
    order: BTreeSet<(u64, MemoryId)>,
}

impl LruTable {
    /// The last access of memory `id`; `None` when unknown or forgotten.
    #[must_use]
    pub fn last_access(&self, id: MemoryId) -> Option<Access> {
        self.last.get(&id).copied()
    }

    /// Every memory in the table, least recently used first.
    pub fn eviction_order(&self) -> impl Iterator<Item = MemoryId> + '_ {
        self.order.iter().map(|&(_, id)| id)
    }

    /// Number of memories in the table (not forgotten).
    #[must_use]
    pub fn len(&self) -> usize {
        self.last.len()
    }

    /// Whether the table is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.last.is_empty()
    }

    /// Records an access of a known memory at `seq`.
    fn touch(&mut self, id: MemoryId, seq: u64, ts_ms: u64) {
        if let Some(access) = self.last.get_mut(&id)
            && seq > access.seq
        {
            self.order.remove(&(access.seq, id));
            access.seq = seq;
            access.ts_ms = ts_ms;
            access.count = access.count.saturating_add(1);
            self.order.insert((seq, id));
        }
    }

    /// Checks the module's invariants (tests).
    #[cfg(test)]
    pub(crate) fn assert_invariants(&self) {
        assert_eq!(self.order.len(), self.last.len());
        for &(seq, id) in &self.order {
            let access = self.last[&id];
            assert_eq!(access.seq, seq);
            assert!(access.seq >= id && access.count >= 1);
        }
    }
}

impl Fold for LruTable {
    const NAME: &'static str = "lru";
    const VERSION: u32 = 1;

    fn apply(&mut self, logged: &LoggedEvent) {
        let seq = logged.seq;
        match &logged.event {
            Event::Remembered(_) => {
                if let Entry::Vacant(slot) = self.last.entry(seq) {
                    slot.insert(Access {
                        seq,
                        ts_ms: logged.ts_ms,
                        count: 1,
                    });
                    self.order.insert((seq, seq));
                }
            }
            Event::Recalled(r) => {
                for hit in &r.hits {
                    self.touch(hit.memory, seq, logged.ts_ms);
                }
            }
            Event::Expanded(e) => {
                if !e.audit {
                    self.touch(e.memory, seq, logged.ts_ms);
                }
            }
            Event::Forgotten(f) => {
                if let Some(access) = self.last.remove(&f.memory) {
                    self.order.remove(&(access.seq, f.memory));
                }
            }
            Event::Purged(p) => {
                for &memory in &p.memories {
                    if let Some(access) = self.last.remove(&memory) {
                        self.order.remove(&(access.seq, memory));
                    }
                }
            }
            Event::Session(_)
            | Event::Reinforced(_)
            | Event::ContradictionFlagged(_)
            | Event::VerdictRecorded(_)
            | Event::Distilled(_)
            | Event::TierChanged(_)
            | Event::Archived(_)
            | Event::Graded(_)
            | Event::EvidenceNoted(_)
            | Event::EvidenceConfirmed(_)
            | Event::EntityLinked(_)
            | Event::GateDenied(_)
            | Event::Discarded(_)
            | Event::Embedded(_)
            | Event::TtlSet(_)
            | Event::UniquenessScored(_)
            | Event::CorridorPlaced(_)
            | Event::Checkpoint(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use engram_log::{Source, Tier};

    use super::{Access, LruTable};
    use crate::Fold;
    use crate::models::testkit::*;

    fn order(lru: &LruTable) -> Vec<u64> {
        lru.eviction_order().collect()
    }

    #[test]
    fn creation_is_the_first_access() {
        let lru: LruTable = fold(&logged(vec![
            session("turn"),
            remember(Tier::L3, Source::User),
            remember(Tier::L3, Source::User),
        ]));
        assert_eq!(
            lru.last_access(2),
            Some(Access {
                seq: 2,
                ts_ms: 2_000,
                count: 1
            })
        );
        assert_eq!(order(&lru), vec![2, 3]);
        assert_eq!(lru.len(), 2);
    }

    #[test]
    fn recall_hits_and_expands_are_accesses() {
        let lru: LruTable = fold(&logged(vec![
            remember(Tier::L3, Source::User),
            remember(Tier::L3, Source::User),
            remember(Tier::L3, Source::User),
            recall(&[1, 2]),
            expand(2, false),
        ]));
        assert_eq!(
            lru.last_access(1),
            Some(Access {
                seq: 4,
                ts_ms: 4_000,
                count: 2
            })
        );
        assert_eq!(lru.last_access(2).unwrap().seq, 5);
        assert_eq!(lru.last_access(2).unwrap().count, 3);
        assert_eq!(lru.last_access(3).unwrap().seq, 3);
        // Least recently used first.
        assert_eq!(order(&lru), vec![3, 1, 2]);
        lru.assert_invariants();
    }

    #[test]
    fn a_memory_hit_twice_by_one_recall_is_one_access() {
        let lru: LruTable = fold(&logged(vec![
            remember(Tier::L3, Source::User),
            recall(&[1, 1, 1]),
        ]));
        assert_eq!(lru.last_access(1).unwrap().count, 2);
    }

    #[test]
    fn an_audit_expand_is_not_an_access() {
        let events = logged(vec![remember(Tier::L3, Source::User), expand(1, true)]);
        let lru: LruTable = fold(&events);
        let only_created: LruTable = fold(&events[..1]);
        assert_eq!(lru, only_created);
    }

    #[test]
    fn forgotten_memories_leave_the_table_for_good() {
        let lru: LruTable = fold(&logged(vec![
            remember(Tier::L3, Source::User),
            remember(Tier::L3, Source::User),
            forget(1),
            recall(&[1, 2]),
            expand(1, false),
            forget(1),
        ]));
        assert_eq!(lru.last_access(1), None);
        assert_eq!(order(&lru), vec![2]);
        assert_eq!(lru.last_access(2).unwrap().seq, 4);
        lru.assert_invariants();
    }

    #[test]
    fn accesses_to_unknown_ids_are_ignored() {
        let events = logged(vec![
            remember(Tier::L3, Source::User),
            recall(&[0, 9, u64::MAX]),
            expand(5, false),
            forget(77),
        ]);
        let lru: LruTable = fold(&events);
        let only_created: LruTable = fold(&events[..1]);
        assert_eq!(lru, only_created);
    }

    #[test]
    fn other_events_are_ignored() {
        let events = logged(vec![
            remember(Tier::L3, Source::User),
            reinforce(1),
            tier(1, Tier::L3, Tier::L4),
            archive(1),
            grade(1, 5),
            confirm(1),
            contradict(1, 1),
            link(1),
        ]);
        let lru: LruTable = fold(&events);
        let only_created: LruTable = fold(&events[..1]);
        assert_eq!(lru, only_created);
    }

    #[test]
    fn the_snapshot_round_trips() {
        let lru: LruTable = fold(&logged(vec![
            remember(Tier::L3, Source::User),
            remember(Tier::L3, Source::User),
            recall(&[1]),
            remember(Tier::L2, Source::Document),
            forget(2),
            expand(4, false),
        ]));
        assert_round_trip(&lru);
        assert_eq!(order(&lru), vec![1, 4]);
        assert_eq!(LruTable::NAME, "lru");
        assert_eq!(LruTable::VERSION, 1);
    }
}

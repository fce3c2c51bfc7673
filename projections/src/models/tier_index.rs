//! The tier index: which storage tier (L1-L4, see the design's Tiers table)
//! each memory that is not forgotten sits in, and the members of each tier.
//!
//! It folds `Remembered` (the memory enters at its tier), `TierChanged`
//! (moves it to `to`), `Archived` (moves it to L4) and `Forgotten` (removes
//! it); every other event is ignored. Moves between tiers are events, so the
//! index is a pure projection of the log; it agrees with the tier in the
//! [`MemoryTable`](super::MemoryTable) for every memory that is not forgotten.
//!
//! **Invariants**
//!
//! - `members` is exactly the inverse of `tiers`: a memory is in the set of
//!   its tier and in no other.
//! - No tier maps to an empty set (a tier's key goes when its last member
//!   leaves), so the state, and its snapshot, is canonical.
//! - A forgotten memory is not in the index, and stays out: a later event
//!   naming it is an event naming an unknown id, which is ignored.
//! - A `TierChanged`'s `from` is informational; the index's own tier, derived
//!   from log order, is authoritative.

use std::collections::{BTreeMap, BTreeSet};

use engram_log::{Event, LoggedEvent, MemoryId, Tier};
use serde::{Deserialize, Serialize};

use crate::Fold;

/// The tier index read model (see the module documentation).
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierIndex {
    tiers: BTreeMap<MemoryId, Tier>,
    members: BTreeMap<Tier, BTreeSet<MemoryId>>,
}

/// Every tier, in order.
const TIERS: [Tier; 4] = [Tier::L1, Tier::L2, Tier::L3, Tier::L4];

impl TierIndex {
    /// The tier of memory `id`; `None` when it is unknown or forgotten.
    #[must_use]
    pub fn tier_of(&self, id: MemoryId) -> Option<Tier> {
        self.tiers.get(&id).copied()
    }

    /// The memories in `tier`, in id order.
    pub fn members(&self, tier: Tier) -> impl Iterator<Item = MemoryId> + '_ {
        self.members.get(&tier).into_iter().flatten().copied()
    }

    /// How many memories each tier holds; every tier is present, zero
    /// included.
    #[must_use]
    pub fn counts(&self) -> BTreeMap<Tier, u64> {
        TIERS
            .iter()
            .map(|&tier| {
                let n = self.members.get(&tier).map_or(0, BTreeSet::len);
                (tier, u64::try_from(n).unwrap_or(u64::MAX))
            })
            .collect()
    }

    /// Number of indexed (not forgotten) memories.
    #[must_use]
    pub fn len(&self) -> usize {
        self.tiers.len()
    }

    /// Whether no memory is indexed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.tiers.is_empty()
    }

    /// Puts `id` in `tier`, taking it out of its previous tier.
    fn place(&mut self, id: MemoryId, tier: Tier) {
        if let Some(old) = self.tiers.insert(id, tier) {
            if old == tier {
                return;
            }
            self.leave(old, id);
        }
        self.members.entry(tier).or_default().insert(id);
    }

    /// Takes `id` out of the set of `tier`, dropping the set when it empties.
    fn leave(&mut self, tier: Tier, id: MemoryId) {
        if let Some(set) = self.members.get_mut(&tier) {
            set.remove(&id);
            if set.is_empty() {
                self.members.remove(&tier);
            }
        }
    }

    /// Checks the module's invariants (tests).
    #[cfg(test)]
    pub(crate) fn assert_invariants(&self) {
        let mut seen = 0;
        for (tier, set) in &self.members {
            assert!(!set.is_empty(), "empty set for {tier:?}");
            for id in set {
                assert_eq!(self.tiers.get(id), Some(tier));
            }
            seen += set.len();
        }
        assert_eq!(seen, self.tiers.len());
    }
}

impl Fold for TierIndex {
    const NAME: &'static str = "tier_index";
    const VERSION: u32 = 1;

    fn apply(&mut self, logged: &LoggedEvent) {
        match &logged.event {
            Event::Remembered(r) => {
                // Seqs are unique: a repeated one keeps the first placement.
                if !self.tiers.contains_key(&logged.seq) {
                    self.place(logged.seq, r.tier);
                }
            }
            Event::TierChanged(t) => {
                if self.tiers.contains_key(&t.memory) {
                    self.place(t.memory, t.to);
                }
            }
            Event::Archived(a) => {
                if self.tiers.contains_key(&a.memory) {
                    self.place(a.memory, Tier::L4);
                }
            }
            Event::Forgotten(f) => {
                if let Some(tier) = self.tiers.remove(&f.memory) {
                    self.leave(tier, f.memory);
                }
            }
            Event::Purged(p) => {
                for &memory in &p.memories {
                    if let Some(tier) = self.tiers.remove(&memory) {
                        self.leave(tier, memory);
                    }
                }
            }
            Event::Session(_)
            | Event::Reinforced(_)
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
            | Event::TtlSet(_)
            | Event::UniquenessScored(_)
            | Event::CorridorPlaced(_)
            | Event::Checkpoint(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use engram_log::{Source, Tier};

    use super::TierIndex;
    use crate::Fold;
    use crate::models::testkit::*;

    fn members(index: &TierIndex, tier: Tier) -> Vec<u64> {
        index.members(tier).collect()
    }

    #[test]
    fn remembered_places_a_memory_at_its_tier() {
        let index: TierIndex = fold(&logged(vec![
            session("turn"),
            remember(Tier::L3, Source::User),
            remember(Tier::L2, Source::Document),
            remember(Tier::L3, Source::Model),
            remember(Tier::L1, Source::Ingest),
        ]));
        assert_eq!(index.tier_of(2), Some(Tier::L3));
        assert_eq!(index.tier_of(3), Some(Tier::L2));
        assert_eq!(index.tier_of(1), None);
        assert_eq!(members(&index, Tier::L3), vec![2, 4]);
        assert_eq!(members(&index, Tier::L2), vec![3]);
        assert_eq!(members(&index, Tier::L1), vec![5]);
        assert!(members(&index, Tier::L4).is_empty());
        assert_eq!(
            index.counts(),
            BTreeMap::from([(Tier::L1, 1), (Tier::L2, 1), (Tier::L3, 2), (Tier::L4, 0)])
        );
        assert_eq!(index.len(), 4);
        index.assert_invariants();
    }

    #[test]
    fn tier_changes_and_archives_move_memories() {
        let index: TierIndex = fold(&logged(vec![
            remember(Tier::L3, Source::User),
            remember(Tier::L3, Source::User),
            tier(1, Tier::L3, Tier::L2),
            archive(2),
            tier(2, Tier::L4, Tier::L3),
            tier(1, Tier::L1, Tier::L4), // `from` is informational
        ]));
        assert_eq!(index.tier_of(1), Some(Tier::L4));
        assert_eq!(index.tier_of(2), Some(Tier::L3));
        assert_eq!(members(&index, Tier::L4), vec![1]);
        assert_eq!(members(&index, Tier::L3), vec![2]);
        assert!(members(&index, Tier::L2).is_empty());
        index.assert_invariants();
    }

    #[test]
    fn archived_moves_to_l4() {
        let index: TierIndex = fold(&logged(vec![
            remember(Tier::L2, Source::Document),
            archive(1),
        ]));
        assert_eq!(index.tier_of(1), Some(Tier::L4));
        assert_eq!(index.counts()[&Tier::L4], 1);
        assert_eq!(index.counts()[&Tier::L2], 0);
    }

    #[test]
    fn forgotten_leaves_the_index_for_good() {
        let events = logged(vec![
            remember(Tier::L3, Source::User),
            forget(1),
            tier(1, Tier::L3, Tier::L2),
            archive(1),
            forget(1),
        ]);
        let index: TierIndex = fold(&events);
        assert_eq!(index.tier_of(1), None);
        assert!(index.is_empty());
        // Canonical: no empty sets are left behind.
        assert_eq!(index, TierIndex::default());
    }

    #[test]
    fn events_naming_unknown_ids_are_ignored() {
        let index: TierIndex = fold(&logged(vec![
            remember(Tier::L3, Source::User),
            tier(7, Tier::L3, Tier::L1),
            archive(0),
            forget(42),
            tier(u64::MAX, Tier::L3, Tier::L1),
        ]));
        let only_created: TierIndex = fold(&logged(vec![remember(Tier::L3, Source::User)]));
        assert_eq!(index, only_created);
    }

    #[test]
    fn other_events_are_ignored() {
        let events = logged(vec![
            remember(Tier::L3, Source::User),
            reinforce(1),
            contradict(1, 1),
            grade(1, 0),
            recall(&[1]),
            expand(1, true),
            confirm(1),
            link(1),
        ]);
        let index: TierIndex = fold(&events);
        let only_created: TierIndex = fold(&events[..1]);
        assert_eq!(index, only_created);
    }

    #[test]
    fn the_snapshot_round_trips() {
        let index: TierIndex = fold(&logged(vec![
            remember(Tier::L3, Source::User),
            remember(Tier::L2, Source::Document),
            archive(1),
            remember(Tier::L1, Source::Model),
            forget(4),
        ]));
        assert_round_trip(&index);
        assert_eq!(TierIndex::NAME, "tier_index");
        assert_eq!(TierIndex::VERSION, 1);
    }
}

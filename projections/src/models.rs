//! The core read models. Each is a pure fold of the log (see [`crate::Fold`]).
//!
//! | model | `NAME` | folds | answers |
//! | --- | --- | --- | --- |
//! | [`MemoryTable`] | `memory_table` | `Remembered`, `Reinforced`, `TierChanged`, `Archived`, `Forgotten` | a memory's entry and status (live / forgotten / archived) |
//! | [`TierIndex`] | `tier_index` | `Remembered`, `TierChanged`, `Archived`, `Forgotten` | the tier (L1-L4) of a memory, the members of a tier |
//! | [`LruTable`] | `lru` | `Remembered`, `Recalled`, `Expanded`, `Forgotten` | last access per memory, least recently used first |
//! | [`Palace`] | `palace` | `Remembered`, `CorridorPlaced` | each memory's coordinate `room#slot`, rooms of 9 slots in topic chains, topics on corridors (nested as a forest), tours (slots never reused) |
//! | [`Verdicts`] | `verdicts` | `ContradictionFlagged`, `VerdictRecorded`, `Forgotten` | open, shelved and decided contradictions; memories a verdict overruled |
//! | [`ReviewSchedule`] | `review` | `Remembered`, `Graded`, `Forgotten` | SM-2 schedule per memory: easiness, repetitions, interval, next due time |
//! | [`EntityDictionary`] | `entities` | `EntityLinked`, `Forgotten` | entities by category and canonical key, with the memories mentioning them |
//! | [`SessionTable`] | `sessions` | `Session` | turns, next turn number and seq span of each session |
//! | [`TrustScores`] | `trust` | `Remembered`, `Reinforced`, `ContradictionFlagged`, `VerdictRecorded`, `Graded`, `EvidenceConfirmed`, `Forgotten` | a deterministic trust score in permille |
//!
//! Every model keeps its state in ordered collections only, ignores events
//! that name a memory it does not know, and treats a forget as final.

pub mod entities;
pub mod lru;
pub mod memory_table;
pub mod palace;
pub mod review;
pub mod sessions;
pub mod tier_index;
pub mod trust;
pub mod verdicts;

pub use entities::EntityDictionary;
pub use lru::{Access, LruTable};
pub use memory_table::{Archival, Erasure, Forgetting, MemoryEntry, MemoryStatus, MemoryTable};
pub use palace::{
    CORRIDOR_DEPTH_MAX, Coordinate, DEFAULT_CORRIDOR, Palace, PalaceView, Placement, ROOM_SLOTS,
    Room, UNSORTED_ROOM,
};
pub use review::{ReviewSchedule, Schedule};
pub use sessions::{SessionInfo, SessionTable};
pub use tier_index::TierIndex;
pub use trust::{TrustBreakdown, TrustInputs, TrustScores};
pub use verdicts::{Contradiction, EdgeState, Verdicts};

/// Event builders and fold helpers shared by the models' tests.
#[cfg(test)]
pub(crate) mod testkit {
    use engram_log::{
        Actor, Archived, ContradictionFlagged, Digest, EntityLinked, Event, EvidenceConfirmed,
        Expanded, Forgotten, Graded, LoggedEvent, MemoryId, MemoryRef, RecallFilters, RecallHit,
        Recalled, Reinforced, Remembered, Role, Scope, SessionEvent, Source, Tier, TierChanged,
        Verdict, VerdictRecorded,
    };
    use proptest::prelude::*;

    use crate::Fold;
    use crate::fold::snapshot;

    /// Wraps events into a log: seq = position + 1, ts_ms = 1000 * seq.
    pub(crate) fn logged(events: Vec<Event>) -> Vec<LoggedEvent> {
        events
            .into_iter()
            .zip(1u64..)
            .map(|(event, seq)| LoggedEvent {
                erased: false,
                seq,
                ts_ms: 1_000 * seq,
                event,
            })
            .collect()
    }

    /// Folds `events` into a fresh state.
    pub(crate) fn fold<F: Fold>(events: &[LoggedEvent]) -> F {
        let mut state = F::default();
        for event in events {
            state.apply(event);
        }
        state
    }

    /// Asserts that the snapshot of `state` decodes to an equal state.
    pub(crate) fn assert_round_trip<F: Fold + PartialEq + std::fmt::Debug>(state: &F) {
        let bytes = snapshot::encode(state).unwrap();
        let back: F = snapshot::decode(&bytes).unwrap();
        assert_eq!(&back, state);
        assert_eq!(snapshot::encode(&back).unwrap(), bytes);
    }

    pub(crate) fn digest(byte: u8) -> Digest {
        Digest([byte; 32])
    }

    pub(crate) fn session(content: &str) -> Event {
        Event::Session(SessionEvent {
            session: "s1".to_owned(),
            turn: 0,
            role: Role::User,
            content: content.to_owned(),
        })
    }

    pub(crate) fn remember(tier: Tier, source: Source) -> Event {
        Event::Remembered(Remembered {
            reference: MemoryRef {
                session: "s1".to_owned(),
                first_seq: 1,
                last_seq: 1,
            },
            content_sha256: digest(1),
            mac: digest(2),
            summary: Some("a memory".to_owned()),
            tags: vec!["tag".to_owned()],
            tier,
            room: Some("room".to_owned()),
            uniqueness_permille: 800,
            source,
            scope: Scope::Store,
            embedding: None,
        })
    }

    pub(crate) fn reinforce(memory: MemoryId) -> Event {
        Event::Reinforced(Reinforced {
            memory,
            evidence: None,
            source: Source::User,
        })
    }

    pub(crate) fn contradict(memory: MemoryId, other: MemoryId) -> Event {
        Event::ContradictionFlagged(ContradictionFlagged {
            memory,
            other,
            reason: "disagree".to_owned(),
        })
    }

    pub(crate) fn verdict(a: MemoryId, b: MemoryId, verdict: Verdict) -> Event {
        Event::VerdictRecorded(VerdictRecorded {
            a,
            b,
            verdict,
            by: Actor::User,
            reason: "decided".to_owned(),
        })
    }

    pub(crate) fn tier(memory: MemoryId, from: Tier, to: Tier) -> Event {
        Event::TierChanged(TierChanged {
            memory,
            from,
            to,
            reason: "moved".to_owned(),
        })
    }

    pub(crate) fn archive(memory: MemoryId) -> Event {
        Event::Archived(Archived {
            memory,
            reason: "decay".to_owned(),
        })
    }

    pub(crate) fn forget(memory: MemoryId) -> Event {
        Event::Forgotten(Forgotten {
            memory,
            by: Actor::User,
            reason: "asked to forget".to_owned(),
        })
    }

    pub(crate) fn grade(memory: MemoryId, grade: u8) -> Event {
        Event::Graded(Graded { memory, grade })
    }

    pub(crate) fn recall(hits: &[MemoryId]) -> Event {
        Event::Recalled(Recalled {
            query: "query".to_owned(),
            filters: RecallFilters {
                room: None,
                tier: None,
                tags: Vec::new(),
                scope: None,
                limit: 10,
            },
            hits: hits
                .iter()
                .map(|&memory| RecallHit {
                    memory,
                    score_micros: 1_000,
                })
                .collect(),
            mode: "keyword".to_owned(),
        })
    }

    pub(crate) fn expand(memory: MemoryId, audit: bool) -> Event {
        Event::Expanded(Expanded { memory, audit })
    }

    pub(crate) fn confirm(memory: MemoryId) -> Event {
        Event::EvidenceConfirmed(EvidenceConfirmed {
            memory,
            by: Actor::User,
            quote: "checked".to_owned(),
            valid: true,
        })
    }

    pub(crate) fn link(memory: MemoryId) -> Event {
        Event::EntityLinked(EntityLinked {
            memory,
            entity: "tea".to_owned(),
            category: "drink".to_owned(),
        })
    }

    fn any_tier() -> impl Strategy<Value = Tier> {
        prop_oneof![
            Just(Tier::L1),
            Just(Tier::L2),
            Just(Tier::L3),
            Just(Tier::L4)
        ]
    }

    fn any_source() -> impl Strategy<Value = Source> {
        prop_oneof![
            Just(Source::User),
            Just(Source::Model),
            Just(Source::Ingest),
            Just(Source::Document),
            Just(Source::Import),
        ]
    }

    fn any_verdict() -> impl Strategy<Value = Verdict> {
        prop_oneof![
            Just(Verdict::KeepA),
            Just(Verdict::KeepB),
            Just(Verdict::KeepBoth),
            Just(Verdict::Shelve),
        ]
    }

    /// A random event; memory ids fall in `0..=max_id`, so many of them name
    /// a memory of the sequence and some name nothing.
    pub(crate) fn any_event(max_id: MemoryId) -> impl Strategy<Value = Event> {
        let id = move || 0..=max_id;
        prop_oneof![
            6 => (any_tier(), any_source()).prop_map(|(t, s)| remember(t, s)),
            1 => Just(session("turn")),
            2 => id().prop_map(reinforce),
            1 => (id(), id()).prop_map(|(a, b)| contradict(a, b)),
            1 => (id(), id(), any_verdict()).prop_map(|(a, b, v)| verdict(a, b, v)),
            2 => (id(), any_tier(), any_tier()).prop_map(|(m, f, t)| tier(m, f, t)),
            1 => id().prop_map(archive),
            1 => id().prop_map(forget),
            2 => (id(), 0u8..=6).prop_map(|(m, g)| grade(m, g)),
            2 => proptest::collection::vec(id(), 0..4).prop_map(|hits| recall(&hits)),
            1 => (id(), any::<bool>()).prop_map(|(m, a)| expand(m, a)),
            1 => id().prop_map(confirm),
            1 => id().prop_map(link),
        ]
    }

    /// A random log of up to `max_len` events.
    pub(crate) fn any_log(max_len: usize) -> impl Strategy<Value = Vec<LoggedEvent>> {
        // Ids up to half the length: about a quarter of them name a memory.
        let max_id = u64::try_from(max_len / 2).unwrap_or(u64::MAX);
        proptest::collection::vec(any_event(max_id), 0..=max_len).prop_map(logged)
    }
}

#[cfg(test)]
mod tests {
    use engram_log::LoggedEvent;
    use proptest::prelude::*;

    use super::testkit::{any_log, fold};
    use super::{LruTable, MemoryTable, TierIndex, TrustScores};
    use crate::Fold;
    use crate::fold::snapshot;

    /// Folding `log` twice gives byte-identical snapshots, the snapshot
    /// decodes to an equal state, and resuming from the snapshot of any
    /// prefix gives the same state as one full fold.
    fn deterministic<F: Fold + PartialEq + std::fmt::Debug>(
        log: &[LoggedEvent],
        split: usize,
    ) -> Result<F, TestCaseError> {
        let first: F = fold(log);
        let second: F = fold(log);
        let bytes = snapshot::encode(&first).unwrap();
        prop_assert_eq!(&bytes, &snapshot::encode(&second).unwrap());
        let decoded: F = snapshot::decode(&bytes).unwrap();
        prop_assert_eq!(&decoded, &first);

        let split = split.min(log.len());
        let prefix: F = fold(&log[..split]);
        let mut resumed: F = snapshot::decode(&snapshot::encode(&prefix).unwrap()).unwrap();
        for event in &log[split..] {
            resumed.apply(event);
        }
        prop_assert_eq!(&resumed, &first);
        Ok(first)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        #[test]
        fn every_model_folds_deterministically(log in any_log(48), split in 0usize..=48) {
            deterministic::<MemoryTable>(&log, split)?.assert_invariants();
            deterministic::<TierIndex>(&log, split)?.assert_invariants();
            deterministic::<LruTable>(&log, split)?.assert_invariants();
            deterministic::<TrustScores>(&log, split)?.assert_invariants();
        }

        #[test]
        fn the_models_agree_on_which_memories_are_live(log in any_log(48)) {
            let table: MemoryTable = fold(&log);
            let tiers: TierIndex = fold(&log);
            let lru: LruTable = fold(&log);
            let trust: TrustScores = fold(&log);
            for entry in table.iter() {
                let present = entry.status != super::MemoryStatus::Forgotten;
                prop_assert_eq!(tiers.tier_of(entry.id).is_some(), present);
                prop_assert_eq!(lru.last_access(entry.id).is_some(), present);
                prop_assert_eq!(trust.trust_permille(entry.id).is_some(), present);
                if present {
                    prop_assert_eq!(tiers.tier_of(entry.id), Some(entry.tier));
                }
            }
            let not_forgotten = table.iter().filter(|e| e.status != super::MemoryStatus::Forgotten).count();
            prop_assert_eq!(tiers.len(), not_forgotten);
            prop_assert_eq!(lru.len(), not_forgotten);
            prop_assert_eq!(trust.len(), not_forgotten);
        }
    }
}

//! The contradiction graph and its verdicts.
//!
//! It folds `ContradictionFlagged` (an open edge between two memories),
//! `VerdictRecorded` (the edge decided or shelved) and `Forgotten` (edges of
//! a forgotten memory close). An edge is keyed by the unordered pair, so
//! flagging `a, b` and `b, a` is one edge; the first flag's reason stays.
//!
//! A verdict `keep-a` / `keep-b` **overrules** the loser: it leaves recall
//! but is not forgotten (its history stays in the audit trail). `keep-both`
//! resolves the edge with no loser; `shelve` sets it aside (listed apart, can
//! still be decided later). A verdict on a pair without an edge, or on an
//! edge already decided, is ignored here (the command refuses it first).
//!
//! **Invariants**
//!
//! - Keys are `(low id, high id)`; `overruled` holds exactly the losers of
//!   `keep-a` / `keep-b` verdicts applied to open or shelved edges.

use std::collections::BTreeMap;

use engram_log::{Event, LoggedEvent, MemoryId, Verdict};
use serde::{Deserialize, Serialize};

use crate::Fold;

/// Where a contradiction stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EdgeState {
    Open,
    Shelved,
    Decided(Verdict),
    /// One side was forgotten.
    Closed,
}

/// One contradiction between two memories.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contradiction {
    /// The memory that was flagged (the newer one, as written).
    pub memory: MemoryId,
    pub other: MemoryId,
    pub reason: String,
    pub flagged_seq: u64,
    pub state: EdgeState,
}

/// The contradiction graph read model (see the module documentation).
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdicts {
    edges: BTreeMap<(MemoryId, MemoryId), Contradiction>,
    /// Loser -> seq of the verdict that overruled it.
    overruled: BTreeMap<MemoryId, u64>,
}

fn key(a: MemoryId, b: MemoryId) -> (MemoryId, MemoryId) {
    (a.min(b), a.max(b))
}

impl Verdicts {
    /// The edge between `a` and `b` (either order).
    #[must_use]
    pub fn edge(&self, a: MemoryId, b: MemoryId) -> Option<&Contradiction> {
        self.edges.get(&key(a, b))
    }

    /// Edges in a state, by pair.
    pub fn in_state(&self, state: EdgeState) -> impl Iterator<Item = &Contradiction> + '_ {
        self.edges.values().filter(move |e| e.state == state)
    }

    /// Whether a verdict overruled `id` (it leaves recall).
    #[must_use]
    pub fn is_overruled(&self, id: MemoryId) -> bool {
        self.overruled.contains_key(&id)
    }

    /// The seq of the verdict that overruled `id`, if one did.
    #[must_use]
    pub fn overruled_at(&self, id: MemoryId) -> Option<u64> {
        self.overruled.get(&id).copied()
    }

    /// Number of open contradictions.
    #[must_use]
    pub fn open_count(&self) -> usize {
        self.in_state(EdgeState::Open).count()
    }
}

impl Fold for Verdicts {
    const NAME: &'static str = "verdicts";
    const VERSION: u32 = 1;

    fn apply(&mut self, logged: &LoggedEvent) {
        match &logged.event {
            Event::ContradictionFlagged(c) if c.memory != c.other => {
                self.edges
                    .entry(key(c.memory, c.other))
                    .or_insert_with(|| Contradiction {
                        memory: c.memory,
                        other: c.other,
                        reason: c.reason.clone(),
                        flagged_seq: logged.seq,
                        state: EdgeState::Open,
                    });
            }
            Event::VerdictRecorded(v) => {
                let Some(edge) = self.edges.get_mut(&key(v.a, v.b)) else {
                    return;
                };
                if !matches!(edge.state, EdgeState::Open | EdgeState::Shelved) {
                    return;
                }
                edge.state = match v.verdict {
                    Verdict::Shelve => EdgeState::Shelved,
                    decided => EdgeState::Decided(decided),
                };
                let loser = match v.verdict {
                    Verdict::KeepA => Some(v.b),
                    Verdict::KeepB => Some(v.a),
                    Verdict::KeepBoth | Verdict::Shelve => None,
                };
                if let Some(loser) = loser {
                    self.overruled.entry(loser).or_insert(logged.seq);
                }
            }
            Event::Forgotten(f) => {
                for ((a, b), edge) in &mut self.edges {
                    if (*a == f.memory || *b == f.memory)
                        && matches!(edge.state, EdgeState::Open | EdgeState::Shelved)
                    {
                        edge.state = EdgeState::Closed;
                    }
                }
            }
            // As a forget, and the flag's reason (which may quote the
            // words) is erased with them.
            Event::Purged(p) => {
                for ((a, b), edge) in &mut self.edges {
                    if p.memories.contains(a) || p.memories.contains(b) {
                        edge.reason.clear();
                        if matches!(edge.state, EdgeState::Open | EdgeState::Shelved) {
                            edge.state = EdgeState::Closed;
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::testkit::{fold, forget, logged};
    use engram_log::{Actor, ContradictionFlagged, VerdictRecorded};

    fn flag(memory: MemoryId, other: MemoryId) -> Event {
        Event::ContradictionFlagged(ContradictionFlagged {
            memory,
            other,
            reason: "negated".into(),
        })
    }

    fn verdict(a: MemoryId, b: MemoryId, verdict: Verdict) -> Event {
        Event::VerdictRecorded(VerdictRecorded {
            a,
            b,
            verdict,
            by: Actor::User,
            reason: "checked".into(),
        })
    }

    #[test]
    fn keep_a_overrules_b_and_closes_the_edge() {
        let v: Verdicts = fold(&logged(vec![flag(2, 1), verdict(1, 2, Verdict::KeepA)]));
        assert!(v.is_overruled(2));
        assert!(!v.is_overruled(1));
        assert_eq!(
            v.edge(2, 1).unwrap().state,
            EdgeState::Decided(Verdict::KeepA)
        );
        assert_eq!(v.open_count(), 0);
    }

    #[test]
    fn shelve_sets_aside_and_can_be_decided_later_but_a_decision_is_final() {
        let v: Verdicts = fold(&logged(vec![
            flag(5, 3),
            verdict(5, 3, Verdict::Shelve),
            verdict(5, 3, Verdict::KeepB),
            verdict(5, 3, Verdict::KeepA),
        ]));
        assert_eq!(
            v.edge(3, 5).unwrap().state,
            EdgeState::Decided(Verdict::KeepB)
        );
        assert!(v.is_overruled(5));
        assert!(!v.is_overruled(3), "the later keep-a is ignored");
    }

    #[test]
    fn verdicts_without_an_edge_change_nothing_and_forgets_close_edges() {
        let v: Verdicts = fold(&logged(vec![
            verdict(1, 2, Verdict::KeepA),
            flag(4, 3),
            flag(3, 4),
            forget(3),
        ]));
        assert!(!v.is_overruled(2));
        assert_eq!(v.edge(3, 4).unwrap().state, EdgeState::Closed);
        assert_eq!(v.edge(3, 4).unwrap().memory, 4, "the first flag stays");
        assert_eq!(v.open_count(), 0);
    }
}

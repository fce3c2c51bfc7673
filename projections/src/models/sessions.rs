//! The session table: per session of the L1 log, how many turns it holds and
//! where they lie. Commands read it to number the next turn of a session (a
//! note appended to session `S` gets the turn after `S`'s last).
//!
//! It folds `Session` events only. Sessions are keyed by id in a `BTreeMap`.
//!
//! **Invariants**
//!
//! - `turns` counts the session's events; `first_seq <= last_seq`, both
//!   seqs of the session's own events.
//! - `next_turn` is one past the highest turn number seen (turn numbers
//!   given by transcripts need not be contiguous), saturating.

use std::collections::BTreeMap;

use engram_log::{Event, LoggedEvent};
use serde::{Deserialize, Serialize};

use crate::Fold;

/// One session of the L1 log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionInfo {
    pub turns: u64,
    pub next_turn: u32,
    pub first_seq: u64,
    pub last_seq: u64,
}

/// The session table read model (see the module documentation).
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionTable {
    sessions: BTreeMap<String, SessionInfo>,
}

impl SessionTable {
    /// The session `id`, if it has any event.
    #[must_use]
    pub fn get(&self, id: &str) -> Option<&SessionInfo> {
        self.sessions.get(id)
    }

    /// The turn number the next event of session `id` should get.
    #[must_use]
    pub fn next_turn(&self, id: &str) -> u32 {
        self.sessions.get(id).map_or(0, |s| s.next_turn)
    }

    /// Number of sessions.
    #[must_use]
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    /// Whether no session was recorded yet.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }
}

impl Fold for SessionTable {
    const NAME: &'static str = "sessions";
    const VERSION: u32 = 1;

    fn apply(&mut self, logged: &LoggedEvent) {
        let Event::Session(turn) = &logged.event else {
            return;
        };
        let next = turn.turn.saturating_add(1);
        match self.sessions.get_mut(&turn.session) {
            Some(info) => {
                info.turns += 1;
                info.next_turn = info.next_turn.max(next);
                info.last_seq = logged.seq;
            }
            None => {
                self.sessions.insert(
                    turn.session.clone(),
                    SessionInfo {
                        turns: 1,
                        next_turn: next,
                        first_seq: logged.seq,
                        last_seq: logged.seq,
                    },
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::testkit::{fold, logged};
    use engram_log::{Role, SessionEvent};

    fn turn(session: &str, turn: u32) -> Event {
        Event::Session(SessionEvent {
            session: session.into(),
            turn,
            role: Role::User,
            content: "x".into(),
        })
    }

    #[test]
    fn counts_turns_and_numbers_the_next_one_per_session() {
        let table: SessionTable = fold(&logged(vec![
            turn("a", 0),
            turn("b", 0),
            turn("a", 1),
            turn("a", 7),
        ]));
        assert_eq!(table.len(), 2);
        assert_eq!(
            table.get("a"),
            Some(&SessionInfo {
                turns: 3,
                next_turn: 8,
                first_seq: 1,
                last_seq: 4
            })
        );
        assert_eq!(table.next_turn("b"), 1);
        assert_eq!(table.next_turn("c"), 0);
        let saturated: SessionTable = fold(&logged(vec![turn("z", u32::MAX)]));
        assert_eq!(saturated.next_turn("z"), u32::MAX);
    }
}

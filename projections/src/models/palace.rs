//! The palace (first cut): every memory gets a coordinate `room#slot`, its
//! human-facing address. The room is the one its `Remembered` event names,
//! else [`UNSORTED_ROOM`]; slots are numbered from 1 in log order and never
//! reused, even after a forget, because they are derived from log order and
//! a forget does not free one.
//!
//! Room capacity (9 slots), successor rooms on a corridor, choosing a room by
//! topic and tour routes build on this fold.
//!
//! **Invariants**
//!
//! - A memory's coordinate never changes once assigned.
//! - Within a room, slots are 1, 2, 3, ... in the order of the memories'
//!   seqs; `next_slot[room]` is one past the highest.

use std::collections::BTreeMap;

use engram_log::{Event, LoggedEvent, MemoryId};
use serde::{Deserialize, Serialize};

use crate::Fold;

/// The room of a memory written without one.
pub const UNSORTED_ROOM: &str = "unsorted";

/// A memory's place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coordinate {
    pub room: String,
    pub slot: u32,
}

impl std::fmt::Display for Coordinate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}#{}", self.room, self.slot)
    }
}

/// The palace read model (see the module documentation).
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Palace {
    next_slot: BTreeMap<String, u32>,
    coordinates: BTreeMap<MemoryId, Coordinate>,
}

impl Palace {
    /// The coordinate of memory `id`.
    #[must_use]
    pub fn coordinate(&self, id: MemoryId) -> Option<&Coordinate> {
        self.coordinates.get(&id)
    }

    /// Rooms and how many slots each has used, by name.
    pub fn rooms(&self) -> impl Iterator<Item = (&str, u32)> + '_ {
        self.next_slot
            .iter()
            .map(|(room, next)| (room.as_str(), next.saturating_sub(1)))
    }
}

impl Fold for Palace {
    const NAME: &'static str = "palace";
    const VERSION: u32 = 1;

    fn apply(&mut self, logged: &LoggedEvent) {
        let Event::Remembered(r) = &logged.event else {
            return;
        };
        if self.coordinates.contains_key(&logged.seq) {
            return;
        }
        let room = r.room.clone().unwrap_or_else(|| UNSORTED_ROOM.to_owned());
        let next = self.next_slot.entry(room.clone()).or_insert(1);
        let slot = *next;
        *next = next.saturating_add(1);
        self.coordinates
            .insert(logged.seq, Coordinate { room, slot });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::testkit::{fold, forget, logged, remember};
    use engram_log::{Source, Tier};

    #[test]
    fn slots_grow_per_room_and_are_not_reused_after_a_forget() {
        let new = || remember(Tier::L3, Source::User);
        let palace: Palace = fold(&logged(vec![new(), new(), forget(2), new()]));
        assert_eq!(palace.coordinate(1).unwrap().to_string(), "room#1");
        let slots: Vec<u32> = [1, 2, 4]
            .iter()
            .map(|&id| palace.coordinate(id).unwrap().slot)
            .collect();
        assert_eq!(slots, [1, 2, 3]);
        assert_eq!(palace.coordinate(3), None);
    }
}

//! The memory palace: every memory gets a coordinate `room#slot`, its
//! human-facing address, derived from log order so concurrent writers never
//! get the same slot.
//!
//! - A `Remembered` event names the memory's **corridor** (its topic; the
//!   command chose it). A name that is already a room resolves to that
//!   room's corridor, so `--room preference-2` files on `preference`.
//!   Without a name the memory goes to [`UNSORTED_ROOM`].
//! - A corridor is a chain of **rooms**: `preference`, then `preference-2`,
//!   `preference-3`, ... A room holds [`ROOM_SLOTS`] slots; a memory takes
//!   the next slot of the corridor's last room, and when that room is full
//!   it opens the successor. A successor's name skips names already taken
//!   (say by a corridor literally named `preference-2`).
//! - Slots only grow and are never reused: a forget does not free one.
//! - A room's **tour** is its slots in order, fixed once written.
//!
//! **Invariants**
//!
//! - A memory's coordinate never changes once assigned; `rooms[c.room]
//!   .slots[c.slot - 1] == memory` for every coordinate `c`.
//! - Every room belongs to exactly one corridor and appears once in that
//!   corridor's list; only the last room of a corridor can have free slots.

use std::collections::BTreeMap;

use engram_log::{Event, LoggedEvent, MemoryId};
use serde::{Deserialize, Serialize};

use crate::Fold;

/// The room of a memory written without one.
pub const UNSORTED_ROOM: &str = "unsorted";
/// Slots in one room.
pub const ROOM_SLOTS: usize = 9;

/// A memory's place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coordinate {
    pub room: String,
    /// 1-based.
    pub slot: u32,
}

impl std::fmt::Display for Coordinate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}#{}", self.room, self.slot)
    }
}

/// One room: its corridor and its tour (the memories in slot order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Room {
    pub corridor: String,
    /// `slots[i]` is the memory in slot `i + 1`.
    pub slots: Vec<MemoryId>,
}

impl Room {
    /// Whether every slot is taken.
    #[must_use]
    pub fn is_full(&self) -> bool {
        self.slots.len() >= ROOM_SLOTS
    }
}

/// The palace read model (see the module documentation).
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Palace {
    /// corridor -> its rooms in order.
    corridors: BTreeMap<String, Vec<String>>,
    rooms: BTreeMap<String, Room>,
    coordinates: BTreeMap<MemoryId, Coordinate>,
}

impl Palace {
    /// The coordinate of memory `id`.
    #[must_use]
    pub fn coordinate(&self, id: MemoryId) -> Option<&Coordinate> {
        self.coordinates.get(&id)
    }

    /// Room `name`.
    #[must_use]
    pub fn room(&self, name: &str) -> Option<&Room> {
        self.rooms.get(name)
    }

    /// Every room by name.
    pub fn rooms(&self) -> impl Iterator<Item = (&str, &Room)> + '_ {
        self.rooms.iter().map(|(name, room)| (name.as_str(), room))
    }

    /// The rooms of corridor `name`, in order (empty when unknown).
    #[must_use]
    pub fn corridor(&self, name: &str) -> &[String] {
        self.corridors.get(name).map_or(&[], Vec::as_slice)
    }

    /// The corridor a room name belongs to: its own corridor when it is a
    /// room, else the name itself (a new corridor).
    #[must_use]
    pub fn corridor_of<'a>(&'a self, name: &'a str) -> &'a str {
        self.rooms.get(name).map_or(name, |r| r.corridor.as_str())
    }

    /// Every corridor with its rooms, by name.
    pub fn corridors(&self) -> impl Iterator<Item = (&str, &[String])> + '_ {
        self.corridors
            .iter()
            .map(|(name, rooms)| (name.as_str(), rooms.as_slice()))
    }

    /// The memories in the slots next to `id`'s in its room (before, after).
    #[must_use]
    pub fn neighbours(&self, id: MemoryId) -> Vec<(MemoryId, Coordinate)> {
        let Some(at) = self.coordinates.get(&id) else {
            return Vec::new();
        };
        let Some(room) = self.rooms.get(&at.room) else {
            return Vec::new();
        };
        let index = at.slot as usize - 1;
        [index.checked_sub(1), Some(index + 1)]
            .into_iter()
            .flatten()
            .filter_map(|i| {
                let memory = *room.slots.get(i)?;
                Some((
                    memory,
                    Coordinate {
                        room: at.room.clone(),
                        slot: i as u32 + 1,
                    },
                ))
            })
            .collect()
    }

    fn next_room_name(&self, corridor: &str, rooms: usize) -> String {
        let mut n = rooms + 1;
        loop {
            let name = format!("{corridor}-{n}");
            if !self.rooms.contains_key(&name) && !self.corridors.contains_key(&name) {
                return name;
            }
            n += 1;
        }
    }

    fn place(&mut self, memory: MemoryId, named: &str) {
        let corridor = self.corridor_of(named).to_owned();
        let rooms = self.corridors.get(&corridor).map_or(&[][..], Vec::as_slice);
        let n_rooms = rooms.len();
        let current = rooms
            .last()
            .filter(|name| self.rooms.get(*name).is_some_and(|r| !r.is_full()))
            .cloned();
        let room_name = match current {
            Some(name) => name,
            None => {
                let name = if n_rooms == 0 && !self.rooms.contains_key(&corridor) {
                    corridor.clone()
                } else {
                    self.next_room_name(&corridor, n_rooms)
                };
                self.corridors
                    .entry(corridor.clone())
                    .or_default()
                    .push(name.clone());
                self.rooms.insert(
                    name.clone(),
                    Room {
                        corridor: corridor.clone(),
                        slots: Vec::new(),
                    },
                );
                name
            }
        };
        let Some(room) = self.rooms.get_mut(&room_name) else {
            return;
        };
        room.slots.push(memory);
        let slot = room.slots.len() as u32;
        self.coordinates.insert(
            memory,
            Coordinate {
                room: room_name,
                slot,
            },
        );
    }
}

impl Fold for Palace {
    const NAME: &'static str = "palace";
    const VERSION: u32 = 2;

    fn apply(&mut self, logged: &LoggedEvent) {
        let Event::Remembered(r) = &logged.event else {
            return;
        };
        if self.coordinates.contains_key(&logged.seq) {
            return;
        }
        let named = r.room.as_deref().unwrap_or(UNSORTED_ROOM);
        self.place(logged.seq, named);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::testkit::{fold, forget, logged, remember};
    use engram_log::{Source, Tier};

    fn in_room(room: &str) -> Event {
        let mut event = remember(Tier::L3, Source::User);
        if let Event::Remembered(r) = &mut event {
            r.room = Some(room.to_owned());
        }
        event
    }

    fn coordinates(palace: &Palace, ids: impl IntoIterator<Item = MemoryId>) -> Vec<String> {
        ids.into_iter()
            .map(|id| palace.coordinate(id).unwrap().to_string())
            .collect()
    }

    #[test]
    fn ten_memories_fill_a_room_and_open_its_successor() {
        let palace: Palace = fold(&logged((0..10).map(|_| in_room("preference")).collect()));
        let expected: Vec<String> = (1..=9)
            .map(|s| format!("preference#{s}"))
            .chain(["preference-2#1".to_owned()])
            .collect();
        assert_eq!(coordinates(&palace, 1..=10), expected);
        assert_eq!(
            palace.corridor("preference"),
            ["preference", "preference-2"]
        );
        assert_eq!(palace.room("preference-2").unwrap().corridor, "preference");
        assert_eq!(
            palace.room("preference").unwrap().slots,
            (1..=9).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_forget_does_not_free_a_slot() {
        let palace: Palace = fold(&logged(vec![
            in_room("a"),
            in_room("a"),
            forget(2),
            in_room("a"),
        ]));
        assert_eq!(coordinates(&palace, [1, 2, 4]), ["a#1", "a#2", "a#3"]);
    }

    #[test]
    fn naming_a_successor_room_files_on_its_corridor_and_taken_names_are_skipped() {
        let mut events: Vec<Event> = (0..9).map(|_| in_room("x")).collect();
        // A corridor literally named like x's successor exists first.
        events.push(in_room("x-2"));
        events.push(in_room("x")); // x is full: its successor skips "x-2"
        events.push(in_room("x-3")); // a room of corridor x
        let palace: Palace = fold(&logged(events));
        assert_eq!(
            coordinates(&palace, [10, 11, 12]),
            ["x-2#1", "x-3#1", "x-3#2"]
        );
        assert_eq!(palace.corridor("x"), ["x", "x-3"]);
        assert_eq!(palace.corridor("x-2"), ["x-2"]);
    }

    #[test]
    fn neighbours_are_the_adjacent_slots_of_the_room() {
        let palace: Palace = fold(&logged(vec![in_room("r"), in_room("r"), in_room("r")]));
        let around = |id| {
            palace
                .neighbours(id)
                .into_iter()
                .map(|(m, c)| (m, c.to_string()))
                .collect::<Vec<_>>()
        };
        assert_eq!(around(1), [(2, "r#2".to_owned())]);
        assert_eq!(around(2), [(1, "r#1".to_owned()), (3, "r#3".to_owned())]);
        assert!(around(99).is_empty());
    }

    #[test]
    fn a_memory_without_a_room_is_unsorted() {
        let mut event = remember(Tier::L3, Source::User);
        if let Event::Remembered(r) = &mut event {
            r.room = None;
        }
        let palace: Palace = fold(&logged(vec![event]));
        assert_eq!(coordinates(&palace, [1]), ["unsorted#1"]);
    }
}

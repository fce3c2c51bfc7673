//! The memory palace: every memory gets a coordinate `room#slot`, its
//! human-facing address, derived from log order so concurrent writers never
//! get the same slot.
//!
//! - A `Remembered` event names the memory's **topic** (the command chose
//!   it). A name that is already a room resolves to that room's topic, so
//!   `--room preference-2` files on `preference`. Without a name the
//!   memory goes to [`UNSORTED_ROOM`].
//! - A topic is a chain of **rooms**: `preference`, then `preference-2`,
//!   `preference-3`, ... A room holds [`ROOM_SLOTS`] slots; a memory takes
//!   the next slot of the topic's last room, and when that room is full
//!   it opens the successor. A successor's name skips names already taken
//!   (say by a topic literally named `preference-2`).
//! - A **corridor** groups related rooms (`engineering` holding `deploy`,
//!   `ci`, `billing`): a `CorridorPlaced` puts a topic, with every room of
//!   its chain (successors opened later included), on a corridor, or a
//!   corridor inside another. The latest placement of a name holds; a
//!   topic never placed is on [`DEFAULT_CORRIDOR`]. Rooms and corridors
//!   are named apart: a room and a corridor may share a name.
//! - Slots only grow and are never reused: a forget does not free one.
//! - A room's **tour** is its slots in order, fixed once written.
//!
//! **Invariants**
//!
//! - A memory's coordinate never changes once assigned; `rooms[c.room]
//!   .slots[c.slot - 1] == memory` for every coordinate `c`.
//! - Every room belongs to exactly one topic and appears once in that
//!   topic's list; only the last room of a topic can have free slots.
//! - Corridors nest as a forest: no corridor is inside itself or its own
//!   descendant. The command refuses such a placement before writing it;
//!   a `CorridorPlaced` that would close a loop anyway (a log written
//!   elsewhere) is ignored, so the fold never walks a cycle.

use std::collections::{BTreeMap, BTreeSet};

use engram_log::{
    Actor, Event, HmacKey, LoggedEvent, MemoryId, Placed, is_pseudonym, room_pseudonym,
};
use serde::{Deserialize, Serialize};

use crate::Fold;

/// The room of a memory written without one.
pub const UNSORTED_ROOM: &str = "unsorted";
/// The corridor of a topic never placed on one.
pub const DEFAULT_CORRIDOR: &str = "general";
/// Slots in one room.
pub const ROOM_SLOTS: usize = 9;
/// Corridors one corridor may sit inside, counting up to the top; a
/// deeper placement is refused by the command.
pub const CORRIDOR_DEPTH_MAX: usize = 8;

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

/// One room: its topic and its tour (the memories in slot order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Room {
    /// The first room of its chain (`deploy` for `deploy-2`).
    pub topic: String,
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

/// Where a topic or corridor was put, and by whom.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    pub corridor: String,
    pub actor: Actor,
    /// Seq of the `CorridorPlaced`.
    pub seq: u64,
}

/// The palace read model (see the module documentation).
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Palace {
    /// The pseudonym of every name a readable event placed things with
    /// -> that name: an erased event's pseudonym goes where its name did.
    names: BTreeMap<String, String>,
    /// The names of `names` (each learned once: one HMAC per name).
    learned: BTreeSet<String>,
    /// topic -> its rooms in order.
    topics: BTreeMap<String, Vec<String>>,
    rooms: BTreeMap<String, Room>,
    coordinates: BTreeMap<MemoryId, Coordinate>,
    /// topic -> the corridor it is on.
    topic_corridors: BTreeMap<String, Placement>,
    /// corridor -> the corridor it is inside.
    corridor_parents: BTreeMap<String, Placement>,
    /// The pseudonyms placements may name as their corridor, so that
    /// learning a name nobody erased costs a lookup, not a scan of every
    /// placement (a save naming a new room learns its name).
    #[serde(skip)]
    pseudonym_corridors: PseudonymCorridors,
}

/// A superset of the pseudonyms that placements name as their corridor,
/// or not known yet (a palace loaded from a snapshot: found by one scan
/// when first needed). Derived from the rest of the state, so it is not
/// persisted and plays no part in equality.
#[derive(Default, Clone)]
struct PseudonymCorridors(Option<BTreeSet<String>>);

/// Prints nothing of the cache: two palaces that hold the same state
/// print alike, whatever each has looked up.
impl std::fmt::Debug for PseudonymCorridors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("(derived)")
    }
}

impl PartialEq for PseudonymCorridors {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for PseudonymCorridors {}

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

    /// The rooms of topic `name`, in order (empty when unknown).
    #[must_use]
    pub fn topic(&self, name: &str) -> &[String] {
        self.topics.get(name).map_or(&[], Vec::as_slice)
    }

    /// The topic a room name belongs to: its room's topic when it is a
    /// room, else the name itself (a new topic).
    #[must_use]
    pub fn topic_of<'a>(&'a self, name: &'a str) -> &'a str {
        self.rooms.get(name).map_or(name, |r| r.topic.as_str())
    }

    /// Every topic with its rooms, by name.
    pub fn topics(&self) -> impl Iterator<Item = (&str, &[String])> + '_ {
        self.topics
            .iter()
            .map(|(name, rooms)| (name.as_str(), rooms.as_slice()))
    }

    /// The corridor room (or topic) `name` is on: its topic's placement,
    /// else [`DEFAULT_CORRIDOR`].
    #[must_use]
    pub fn corridor_of(&self, name: &str) -> &str {
        self.topic_corridors
            .get(self.topic_of(name))
            .map_or(DEFAULT_CORRIDOR, |p| p.corridor.as_str())
    }

    /// How topic `name` was placed on its corridor, if it ever was.
    #[must_use]
    pub fn topic_placement(&self, name: &str) -> Option<&Placement> {
        self.topic_corridors.get(name)
    }

    /// How corridor `name` was placed inside another, if it is.
    #[must_use]
    pub fn corridor_placement(&self, name: &str) -> Option<&Placement> {
        self.corridor_parents.get(name)
    }

    /// The corridor `name` is inside, if any.
    #[must_use]
    pub fn parent_of(&self, name: &str) -> Option<&str> {
        self.corridor_parents.get(name).map(|p| p.corridor.as_str())
    }

    /// Whether `name` is a corridor: a topic or corridor is on it, it is
    /// inside another, or rooms are on it by default.
    #[must_use]
    pub fn is_corridor(&self, name: &str) -> bool {
        self.corridor_names().contains(name)
    }

    /// Every corridor's name, sorted.
    #[must_use]
    pub fn corridor_names(&self) -> BTreeSet<&str> {
        let mut names: BTreeSet<&str> = self
            .topic_corridors
            .values()
            .chain(self.corridor_parents.values())
            .map(|p| p.corridor.as_str())
            .chain(self.corridor_parents.keys().map(String::as_str))
            .collect();
        if self
            .topics
            .keys()
            .any(|t| !self.topic_corridors.contains_key(t))
        {
            names.insert(DEFAULT_CORRIDOR);
        }
        names
    }

    /// The rooms on corridor `name`, topic by topic, each topic's rooms in
    /// order (not those of corridors inside it).
    #[must_use]
    pub fn corridor_rooms(&self, name: &str) -> Vec<&str> {
        self.topics
            .iter()
            .filter(|(topic, _)| self.corridor_of(topic) == name)
            .flat_map(|(_, rooms)| rooms.iter().map(String::as_str))
            .collect()
    }

    /// The corridors directly inside corridor `name`, sorted.
    #[must_use]
    pub fn corridors_inside(&self, name: &str) -> Vec<&str> {
        self.corridor_parents
            .iter()
            .filter(|(_, p)| p.corridor == name)
            .map(|(child, _)| child.as_str())
            .collect()
    }

    /// The corridors from `name` up to the top: `name`, its parent, ...
    /// (bounded: the fold keeps the nesting a forest).
    #[must_use]
    pub fn ancestry<'a>(&'a self, name: &'a str) -> Vec<&'a str> {
        let mut out = vec![name];
        let mut at = name;
        while let Some(parent) = self.parent_of(at) {
            if out.contains(&parent) {
                break;
            }
            out.push(parent);
            at = parent;
        }
        out
    }

    /// Whether putting corridor `name` inside `into` would close a loop:
    /// `into` is `name` or a corridor inside it.
    #[must_use]
    pub fn would_loop(&self, name: &str, into: &str) -> bool {
        self.ancestry(into).contains(&name)
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

    fn next_room_name(&self, topic: &str, rooms: usize) -> String {
        let mut n = rooms + 1;
        loop {
            let name = format!("{topic}-{n}");
            if !self.rooms.contains_key(&name) && !self.topics.contains_key(&name) {
                return name;
            }
            n += 1;
        }
    }

    fn place(&mut self, memory: MemoryId, named: &str) {
        let topic = self.topic_of(named).to_owned();
        let rooms = self.topics.get(&topic).map_or(&[][..], Vec::as_slice);
        let n_rooms = rooms.len();
        let current = rooms
            .last()
            .filter(|name| self.rooms.get(*name).is_some_and(|r| !r.is_full()))
            .cloned();
        let room_name = match current {
            Some(name) => name,
            None => {
                let name = if n_rooms == 0 && !self.rooms.contains_key(&topic) {
                    topic.clone()
                } else {
                    self.next_room_name(&topic, n_rooms)
                };
                self.topics
                    .entry(topic.clone())
                    .or_default()
                    .push(name.clone());
                self.rooms.insert(
                    name.clone(),
                    Room {
                        topic: topic.clone(),
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

impl Palace {
    /// The name an event places with: a pseudonym (an erased event's)
    /// stands for the name a readable event gave it, when one did.
    fn resolve_name<'a>(&'a self, name: &'a str) -> &'a str {
        if is_pseudonym(name) {
            self.names.get(name).map_or(name, String::as_str)
        } else {
            name
        }
    }

    /// Learns readable `name` (under the store's `key`): its pseudonym now
    /// stands for it, and whatever erased events placed under the
    /// pseudonym before (a topic, a corridor) takes the name, so a slot
    /// holds the same memory whichever events are erased.
    fn learn(&mut self, name: &str, key: Option<&HmacKey>) {
        let Some(key) = key else {
            return;
        };
        if is_pseudonym(name) || self.learned.contains(name) {
            return;
        }
        let pseudonym = room_pseudonym(key, name);
        self.learned.insert(name.to_owned());
        self.rename_topic(&pseudonym, name);
        self.rename_corridor(&pseudonym, name);
        self.names.insert(pseudonym, name.to_owned());
    }

    fn rename_topic(&mut self, from: &str, to: &str) {
        if self.topics.contains_key(to) || self.rooms.contains_key(to) {
            return;
        }
        let Some(rooms) = self.topics.remove(from) else {
            return;
        };
        let mut renamed = Vec::with_capacity(rooms.len());
        for old in rooms {
            let new = match old.strip_prefix(from) {
                Some(suffix) => format!("{to}{suffix}"),
                None => old.clone(),
            };
            if let Some(mut room) = self.rooms.remove(&old) {
                room.topic = to.to_owned();
                for (slot, memory) in (1u32..).zip(&room.slots) {
                    self.coordinates.insert(
                        *memory,
                        Coordinate {
                            room: new.clone(),
                            slot,
                        },
                    );
                }
                self.rooms.insert(new.clone(), room);
            }
            renamed.push(new);
        }
        self.topics.insert(to.to_owned(), renamed);
        if let Some(placement) = self.topic_corridors.remove(from) {
            self.topic_corridors.insert(to.to_owned(), placement);
        }
    }

    fn rename_corridor(&mut self, from: &str, to: &str) {
        let known = self.pseudonym_corridors.0.get_or_insert_with(|| {
            self.topic_corridors
                .values()
                .chain(self.corridor_parents.values())
                .map(|p| p.corridor.clone())
                .filter(|c| is_pseudonym(c))
                .collect()
        });
        let named = known.remove(from);
        debug_assert!(
            named
                || !self
                    .topic_corridors
                    .values()
                    .chain(self.corridor_parents.values())
                    .any(|p| p.corridor == from),
            "a placement names corridor {from} unknown to the pseudonym set"
        );
        // Only a name some placement uses costs a pass over them: a
        // filter on the pass would still walk every placement.
        if named {
            for placement in self
                .topic_corridors
                .values_mut()
                .chain(self.corridor_parents.values_mut())
            {
                if placement.corridor == from {
                    placement.corridor = to.to_owned();
                }
            }
        }
        if !self.corridor_parents.contains_key(to)
            && let Some(placement) = self.corridor_parents.remove(from)
        {
            self.corridor_parents.insert(to.to_owned(), placement);
        }
    }

    /// Folds one event; `key` (the store's HMAC key) relates readable
    /// names to the pseudonyms erased events carry. Without it (unit
    /// tests) pseudonyms are names like any other.
    pub fn apply_with(&mut self, logged: &LoggedEvent, key: Option<&HmacKey>) {
        match &logged.event {
            Event::Remembered(r) => {
                if self.coordinates.contains_key(&logged.seq) {
                    return;
                }
                let named = r.room.as_deref().unwrap_or(UNSORTED_ROOM);
                self.learn(named, key);
                let named = self.resolve_name(named).to_owned();
                self.place(logged.seq, &named);
            }
            Event::CorridorPlaced(p) => {
                self.learn(&p.name, key);
                self.learn(&p.corridor, key);
                let name = self.resolve_name(&p.name).to_owned();
                let placement = Placement {
                    corridor: self.resolve_name(&p.corridor).to_owned(),
                    actor: p.actor,
                    seq: logged.seq,
                };
                if is_pseudonym(&placement.corridor)
                    && let Some(known) = &mut self.pseudonym_corridors.0
                {
                    known.insert(placement.corridor.clone());
                }
                match p.placed {
                    Placed::Room => {
                        self.topic_corridors.insert(name, placement);
                    }
                    Placed::Corridor => {
                        if !self.would_loop(&name, &placement.corridor) {
                            self.corridor_parents.insert(name, placement);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

impl Fold for Palace {
    const NAME: &'static str = "palace";
    /// 4: pseudonyms of erased events resolved to the names they stand for.
    const VERSION: u32 = 4;

    fn apply(&mut self, logged: &LoggedEvent) {
        self.apply_with(logged, None);
    }
}

/// The palace as the runtime drives it: the fold, and the store's HMAC
/// key that relates names to the pseudonyms of erased events.
#[derive(Debug, Clone)]
pub struct PalaceView {
    pub state: Palace,
    key: HmacKey,
}

impl PalaceView {
    /// An empty palace of the store whose HMAC key is `key`.
    #[must_use]
    pub fn new(key: HmacKey) -> Self {
        Self {
            state: Palace::default(),
            key,
        }
    }
}

impl crate::view::View for PalaceView {
    fn name(&self) -> &'static str {
        <Palace as Fold>::NAME
    }

    fn version(&self) -> u32 {
        <Palace as Fold>::VERSION
    }

    fn apply(&mut self, event: &LoggedEvent) -> Result<(), crate::error::ViewError> {
        self.state.apply_with(event, Some(&self.key));
        Ok(())
    }

    fn persist(&mut self, txn: &redb::WriteTransaction) -> Result<(), crate::error::ViewError> {
        crate::view::Snapshot {
            state: std::mem::take(&mut self.state),
        }
        .persist_into(txn, &mut self.state)
    }

    fn load(&mut self, txn: &redb::ReadTransaction) -> Result<(), crate::error::ViewError> {
        let mut snapshot = crate::view::Snapshot::<Palace>::default();
        crate::view::View::load(&mut snapshot, txn)?;
        self.state = snapshot.state;
        Ok(())
    }

    fn clear(&mut self, txn: &redb::WriteTransaction) -> Result<(), crate::error::ViewError> {
        let mut snapshot = crate::view::Snapshot::<Palace>::default();
        crate::view::View::clear(&mut snapshot, txn)?;
        self.state = Palace::default();
        Ok(())
    }

    fn entries(&self) -> Result<Vec<(String, Vec<u8>)>, crate::error::ViewError> {
        self.state
            .entries()
            .map_err(|e| crate::error::ViewError::Snapshot {
                view: <Palace as Fold>::NAME,
                reason: e.to_string(),
            })
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
        assert_eq!(palace.topic("preference"), ["preference", "preference-2"]);
        assert_eq!(palace.room("preference-2").unwrap().topic, "preference");
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
        assert_eq!(palace.topic("x"), ["x", "x-3"]);
        assert_eq!(palace.topic("x-2"), ["x-2"]);
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

    fn placed(placed: Placed, name: &str, corridor: &str) -> Event {
        Event::CorridorPlaced(engram_log::CorridorPlaced {
            placed,
            name: name.to_owned(),
            corridor: corridor.to_owned(),
            actor: Actor::User,
        })
    }

    #[test]
    fn a_topic_and_its_successors_sit_on_its_corridor_and_loops_are_ignored() {
        let mut events: Vec<Event> = vec![placed(Placed::Room, "x", "eng")];
        events.extend((0..10).map(|_| in_room("x")));
        events.push(in_room("y"));
        events.push(placed(Placed::Corridor, "eng", "work"));
        // Would loop: work inside eng, which is inside work.
        events.push(placed(Placed::Corridor, "work", "eng"));
        events.push(placed(Placed::Corridor, "work", "work"));
        let palace: Palace = fold(&logged(events));
        assert_eq!(palace.corridor_of("x-2"), "eng");
        assert_eq!(palace.corridor_rooms("eng"), ["x", "x-2"]);
        assert_eq!(palace.corridor_of("y"), DEFAULT_CORRIDOR);
        assert_eq!(palace.parent_of("eng"), Some("work"));
        assert_eq!(palace.parent_of("work"), None);
        assert!(palace.would_loop("work", "eng"));
        assert_eq!(palace.ancestry("eng"), ["eng", "work"]);
        assert_eq!(
            palace.corridor_names().into_iter().collect::<Vec<_>>(),
            ["eng", "general", "work"]
        );
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

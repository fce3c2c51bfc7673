//! The palace as a reader sees it: the room directory a model is shown to
//! choose a room, a room's tour, and the renovation list.

use engram_log::MemoryId;
use engram_projections::CoreViews;
use engram_projections::models::{MemoryStatus, ROOM_SLOTS};

use crate::recall::label;

/// One slot of a tour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TourStop {
    pub slot: u32,
    pub id: MemoryId,
    pub coordinate: String,
    pub label: String,
    /// `live`, `archived` or `forgotten` (a forgotten slot stays taken).
    pub status: &'static str,
}

/// One room of the directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoomEntry {
    pub room: String,
    pub corridor: String,
    /// Slots taken (forgotten ones included: slots are never reused).
    pub fill: usize,
    pub capacity: usize,
    /// A one-line topic: the label of the room's first memory.
    pub topic: String,
    pub tour: Vec<TourStop>,
}

fn status_name(status: Option<MemoryStatus>) -> &'static str {
    match status {
        Some(MemoryStatus::Live) => "live",
        Some(MemoryStatus::Archived) => "archived",
        Some(MemoryStatus::Forgotten) | None => "forgotten",
        Some(MemoryStatus::Purged) => "purged",
    }
}

/// Room `name` with its tour, if it exists.
#[must_use]
pub fn room(core: &CoreViews, name: &str) -> Option<RoomEntry> {
    let (corridor, slots) = {
        let palace = core.palace.read();
        let room = palace.state.room(name)?;
        (
            palace.state.corridor_of(name).to_owned(),
            room.slots.clone(),
        )
    };
    let tour: Vec<TourStop> = slots
        .iter()
        .zip(1u32..)
        .map(|(&id, slot)| {
            let status = status_name(core.memory_table.read().state.status(id));
            TourStop {
                slot,
                id,
                coordinate: format!("{name}#{slot}"),
                label: if status == "forgotten" || status == "purged" {
                    format!("({status})")
                } else {
                    label(core, id)
                },
                status,
            }
        })
        .collect();
    Some(RoomEntry {
        room: name.to_owned(),
        corridor,
        fill: slots.len(),
        capacity: ROOM_SLOTS,
        topic: tour
            .iter()
            .find(|s| s.status != "forgotten" && s.status != "purged")
            .map_or_else(String::new, |s| s.label.clone()),
        tour,
    })
}

/// Every room, corridor by corridor (by name), each corridor's topics by
/// name and each topic's rooms in order.
#[must_use]
pub fn directory(core: &CoreViews) -> Vec<RoomEntry> {
    let names: Vec<String> = {
        let palace = core.palace.read();
        palace
            .state
            .corridor_names()
            .into_iter()
            .flat_map(|c| palace.state.corridor_rooms(c))
            .map(str::to_owned)
            .collect()
    };
    names.iter().filter_map(|name| room(core, name)).collect()
}

/// One corridor of the palace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorridorEntry {
    pub corridor: String,
    /// The corridor it is inside, if any.
    pub inside: Option<String>,
    /// The corridors directly inside it, by name.
    pub corridors: Vec<String>,
    /// Its rooms, topic by topic.
    pub rooms: Vec<String>,
    /// Who put it inside its parent (`user`, `model`), when it is.
    pub placed_by: Option<&'static str>,
}

/// Every corridor, by name.
#[must_use]
pub fn corridors(core: &CoreViews) -> Vec<CorridorEntry> {
    let palace = core.palace.read();
    palace
        .state
        .corridor_names()
        .into_iter()
        .map(|name| CorridorEntry {
            corridor: name.to_owned(),
            inside: palace.state.parent_of(name).map(str::to_owned),
            corridors: palace
                .state
                .corridors_inside(name)
                .into_iter()
                .map(str::to_owned)
                .collect(),
            rooms: palace
                .state
                .corridor_rooms(name)
                .into_iter()
                .map(str::to_owned)
                .collect(),
            placed_by: palace
                .state
                .corridor_placement(name)
                .map(|p| actor_name(p.actor)),
        })
        .collect()
}

/// An actor's name in answers.
#[must_use]
pub fn actor_name(actor: engram_log::Actor) -> &'static str {
    match actor {
        engram_log::Actor::User => "user",
        engram_log::Actor::Model => "model",
        engram_log::Actor::System => "system",
    }
}

/// A memory on the renovation list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renovation {
    pub id: MemoryId,
    pub coordinate: String,
    pub uniqueness_permille: u16,
    pub label: String,
}

/// Live memories whose uniqueness is below `below_permille`, least unique
/// first (ties by id).
#[must_use]
pub fn renovation(core: &CoreViews, below_permille: u16) -> Vec<Renovation> {
    let low: Vec<(MemoryId, u16)> = core
        .memory_table
        .read()
        .state
        .iter()
        .filter(|e| e.status == MemoryStatus::Live && e.uniqueness_permille < below_permille)
        .map(|e| (e.id, e.uniqueness_permille))
        .collect();
    let mut out: Vec<Renovation> = low
        .into_iter()
        .map(|(id, uniqueness_permille)| Renovation {
            id,
            coordinate: core
                .palace
                .read()
                .state
                .coordinate(id)
                .map_or_else(String::new, ToString::to_string),
            uniqueness_permille,
            label: label(core, id),
        })
        .collect();
    out.sort_by_key(|r| (r.uniqueness_permille, r.id));
    out
}

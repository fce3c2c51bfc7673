//! Corridors by hand: putting a room (its topic, with every room of its
//! chain) on a corridor, or a corridor inside another
//! (`engram palace corridor NAME --into CORRIDOR`). The save handler
//! places every new topic by itself (`crate::topic::corridor_for`); this
//! handler is how the user, or a model, moves one.
//!
//! Refused, with nothing written: an unknown name, a bad corridor name, a
//! corridor put inside itself or a corridor inside it (a loop), nesting
//! deeper than [`CORRIDOR_DEPTH_MAX`], and, through the gate chain, a
//! model moving what the user placed. A placement that changes nothing
//! writes nothing.

use engram_log::{CorridorPlaced, Event, Placed};
use engram_projections::models::{CORRIDOR_DEPTH_MAX, DEFAULT_CORRIDOR, Palace};

use crate::flywheel::{CommandError, gate};
use crate::gate::{Action, Object, Subject};
use crate::memory;
use crate::save::CommandStore;

/// A placement that cannot be made. Nothing was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CorridorError {
    #[error("no room or corridor named {name:?}: `engram palace` lists them")]
    Unknown { name: String },
    #[error("no room named {name:?}: `engram palace` lists the rooms")]
    UnknownRoom { name: String },
    #[error("no corridor named {name:?}: `engram palace --json` lists the corridors")]
    UnknownCorridor { name: String },
    #[error(
        "corridor {name:?} cannot go inside {into:?}: {into:?} is {name:?} or a corridor inside it, so the corridors would loop"
    )]
    Loop { name: String, into: String },
    #[error(
        "corridor {name:?} inside {into:?} would nest {depth} corridors deep, over the limit of {CORRIDOR_DEPTH_MAX}"
    )]
    TooDeep {
        name: String,
        into: String,
        depth: usize,
    },
}

/// What a placement recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorridorMove {
    pub placed: Placed,
    /// The room's topic, or the corridor.
    pub name: String,
    /// The corridor it was on (inside), if any.
    pub from: Option<String>,
    pub corridor: String,
    /// Seq of the `CorridorPlaced`; `None` when nothing changed.
    pub seq: Option<u64>,
}

type Result<T, S> = std::result::Result<T, CommandError<<S as CommandStore>::Error>>;

/// How many corridors nest under `name`, itself included.
fn height(palace: &Palace, name: &str) -> usize {
    // The nesting is a forest (the fold ignores a loop), and bounded.
    let mut level = vec![name.to_owned()];
    let mut n = 0;
    while !level.is_empty() && n <= CORRIDOR_DEPTH_MAX {
        n += 1;
        level = level
            .iter()
            .flat_map(|c| palace.corridors_inside(c))
            .map(str::to_owned)
            .collect();
    }
    n
}

/// What `name` names: a room (its topic), else a corridor.
fn resolve(
    palace: &Palace,
    name: &str,
    kind: Option<Placed>,
) -> std::result::Result<(Placed, String), CorridorError> {
    let room = palace.room(name).map(|_| palace.topic_of(name).to_owned());
    let corridor = palace.is_corridor(name).then(|| name.to_owned());
    match (kind, room, corridor) {
        (Some(Placed::Room) | None, Some(topic), _) => Ok((Placed::Room, topic)),
        (Some(Placed::Corridor) | None, _, Some(corridor)) => Ok((Placed::Corridor, corridor)),
        (Some(Placed::Room), None, _) => Err(CorridorError::UnknownRoom {
            name: name.to_owned(),
        }),
        (Some(Placed::Corridor), _, None) => Err(CorridorError::UnknownCorridor {
            name: name.to_owned(),
        }),
        (None, None, None) => Err(CorridorError::Unknown {
            name: name.to_owned(),
        }),
    }
}

/// Puts room `name` (its whole topic) or corridor `name` on corridor
/// `into`, as `subject`: one `CorridorPlaced`. `kind` says which when a
/// room and a corridor share the name (a room by default). See the module
/// documentation for what is refused.
pub fn place<S: CommandStore>(
    store: &S,
    name: &str,
    into: &str,
    kind: Option<Placed>,
    subject: &Subject,
) -> Result<CorridorMove, S> {
    let subject = memory::clean_subject(subject)?;
    let name = memory::clean_name("name", name)?;
    let into = memory::clean_name("corridor", into)?;
    let _writer = store.write_lock();
    let (placed, name, from, placed_by) = {
        let palace = store.views().palace.read();
        let (placed, name) = resolve(&palace.state, &name, kind)?;
        let (from, placed_by) = match placed {
            Placed::Room => (
                Some(palace.state.corridor_of(&name).to_owned()),
                palace.state.topic_placement(&name).map(|p| p.actor),
            ),
            Placed::Corridor => {
                if palace.state.would_loop(&name, &into) {
                    return Err(CorridorError::Loop { name, into }.into());
                }
                let depth = palace.state.ancestry(&into).len() + height(&palace.state, &name);
                if depth > CORRIDOR_DEPTH_MAX {
                    return Err(CorridorError::TooDeep { name, into, depth }.into());
                }
                let placement = palace.state.corridor_placement(&name);
                (
                    placement.map(|p| p.corridor.clone()),
                    placement.map(|p| p.actor),
                )
            }
        };
        (placed, name, from, placed_by)
    };
    gate(
        store,
        &subject,
        Action::Place,
        &Object::Placement {
            name: &name,
            placed_by,
        },
    )?;
    let unchanged = from.as_deref() == Some(into.as_str())
        && !(placed == Placed::Room && placed_by.is_none() && into == DEFAULT_CORRIDOR);
    if unchanged {
        return Ok(CorridorMove {
            placed,
            name,
            from,
            corridor: into,
            seq: None,
        });
    }
    let event = Event::CorridorPlaced(CorridorPlaced {
        placed,
        name: name.clone(),
        corridor: into.clone(),
        actor: subject.actor,
    });
    let seq = store
        .append(&[event])
        .map_err(CommandError::Store)?
        .first_seq;
    Ok(CorridorMove {
        placed,
        name,
        from,
        corridor: into,
        seq: Some(seq),
    })
}

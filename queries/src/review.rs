//! The cues of a review: what is shown beside a memory due for review, so
//! the reviewer can try to recall it before reading it.
//!
//! **Invariant:** a review never shows the words of a memory due at the
//! time it is asked for: neither the memory's own words nor its summary,
//! and not as another due memory's cue either (two due memories side by
//! side in one room would otherwise each show the other). Cues hint
//! without telling: the room's topic (its corridor's name), the memory's
//! tags and entities, and the coordinates of the slots next to it,
//! labelled only when that neighbour is not due itself (a due neighbour is
//! [`DUE_LABEL`]; a neighbour whose label reads the same as a due memory's
//! is hidden the same way).

use std::collections::BTreeSet;

use engram_log::MemoryId;
use engram_projections::CoreViews;

use crate::recall::{Cue, cues, label};

/// The label of a neighbour that is itself due for review: its words are
/// what the reviewer is asked to recall.
pub const DUE_LABEL: &str = "(due for review)";

/// An entity a due memory mentions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityCue {
    pub category: String,
    pub key: String,
}

/// What a review shows beside one due memory: never its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewCues {
    /// The room's topic: its corridor's name.
    pub topic: String,
    /// The memory's tags.
    pub tags: Vec<String>,
    /// The entities the memory mentions, by category then key.
    pub entities: Vec<EntityCue>,
    /// The slots next to it; a due neighbour's label is [`DUE_LABEL`].
    pub neighbours: Vec<Cue>,
}

/// The cues of memory `id`, reviewed together with the memories `due`
/// (every memory due at the review's time, `id` included).
#[must_use]
pub fn review_cues(core: &CoreViews, id: MemoryId, due: &BTreeSet<MemoryId>) -> ReviewCues {
    let due_labels: BTreeSet<String> = due.iter().map(|&d| label(core, d)).collect();
    let neighbours = cues(core, id)
        .into_iter()
        .map(|cue| {
            if due.contains(&cue.id) || due_labels.contains(&cue.label) {
                Cue {
                    label: DUE_LABEL.to_owned(),
                    ..cue
                }
            } else {
                cue
            }
        })
        .collect();
    let topic = {
        let palace = core.palace.read();
        palace
            .state
            .coordinate(id)
            .map(|c| palace.state.topic_of(&c.room).to_owned())
            .unwrap_or_default()
    };
    let tags = core
        .memory_table
        .read()
        .state
        .get(id)
        .map(|e| e.tags.clone())
        .unwrap_or_default();
    let entities = core
        .entities
        .read()
        .state
        .iter()
        .filter(|(_, _, memories)| memories.contains(&id))
        .map(|(category, key, _)| EntityCue {
            category: category.to_owned(),
            key: key.to_owned(),
        })
        .collect();
    ReviewCues {
        topic,
        tags,
        entities,
        neighbours,
    }
}

//! The entity dictionary: every entity (person, project, tool, file,
//! organisation, place) linked to a memory, by category and canonical key,
//! with the memories that mention it.
//!
//! It folds `EntityLinked` (the command extracted and resolved the entity:
//! `entity` is the canonical key) and `Forgotten` (the memory leaves every
//! entity; an entity left without memories leaves the dictionary).

use std::collections::{BTreeMap, BTreeSet};

use engram_log::{Event, LoggedEvent, MemoryId};
use serde::{Deserialize, Serialize};

use crate::Fold;

/// The entity dictionary read model (see the module documentation).
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityDictionary {
    /// (category, key) -> memories mentioning it.
    entities: BTreeMap<(String, String), BTreeSet<MemoryId>>,
}

impl EntityDictionary {
    /// Every entity with its memories, by category then key.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str, &BTreeSet<MemoryId>)> + '_ {
        self.entities
            .iter()
            .map(|((category, key), memories)| (category.as_str(), key.as_str(), memories))
    }

    /// The memories mentioning entity `key` of `category`.
    #[must_use]
    pub fn memories(&self, category: &str, key: &str) -> Option<&BTreeSet<MemoryId>> {
        self.entities.get(&(category.to_owned(), key.to_owned()))
    }

    /// The keys of `category` that begin with `prefix`, in order.
    pub fn keys_starting<'a>(
        &'a self,
        category: &'a str,
        prefix: &'a str,
    ) -> impl Iterator<Item = &'a str> + 'a {
        self.entities
            .range((category.to_owned(), prefix.to_owned())..)
            .take_while(move |((c, k), _)| c == category && k.starts_with(prefix))
            .map(|((_, k), _)| k.as_str())
    }

    /// Number of entities.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether no entity is known.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }
}

impl Fold for EntityDictionary {
    const NAME: &'static str = "entities";
    const VERSION: u32 = 1;

    fn apply(&mut self, logged: &LoggedEvent) {
        match &logged.event {
            Event::EntityLinked(link) => {
                self.entities
                    .entry((link.category.clone(), link.entity.clone()))
                    .or_default()
                    .insert(link.memory);
            }
            Event::Forgotten(f) => {
                self.entities.retain(|_, memories| {
                    memories.remove(&f.memory);
                    !memories.is_empty()
                });
            }
            // An entity only purged memories named is gone with them.
            Event::Purged(p) => {
                self.entities.retain(|_, memories| {
                    for memory in &p.memories {
                        memories.remove(memory);
                    }
                    !memories.is_empty()
                });
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::testkit::{fold, forget, logged};
    use engram_log::EntityLinked;

    fn link(memory: MemoryId, entity: &str, category: &str) -> Event {
        Event::EntityLinked(EntityLinked {
            memory,
            entity: entity.into(),
            category: category.into(),
        })
    }

    #[test]
    fn links_gather_by_entity_and_forgets_remove_them() {
        let dict: EntityDictionary = fold(&logged(vec![
            link(1, "python", "tool"),
            link(2, "python", "tool"),
            link(2, "maria", "person"),
            forget(2),
        ]));
        assert_eq!(
            dict.memories("tool", "python")
                .unwrap()
                .iter()
                .copied()
                .collect::<Vec<_>>(),
            [1]
        );
        assert_eq!(dict.memories("person", "maria"), None);
        assert_eq!(dict.len(), 1);
    }
}

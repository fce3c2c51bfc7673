//! The words of an event: every field that holds what a person said, or
//! something computed from it (a summary, tags, a room's name, an entity,
//! a rule, a query, a quote, a reason that may quote, a vector). A sealed
//! log keeps an event as its *skeleton* (the event with these fields
//! emptied) in the clear and its [`Words`] sealed under the subject's data
//! key (`record`). When the key is destroyed the skeleton is all that is
//! left: the erased event.
//!
//! **Invariant:** [`visit`] walks an event's word fields in one fixed order;
//! taking words out and putting them back both go through it, so they
//! cannot disagree. Structure stays in the skeleton: ids, seqs, references,
//! hashes, tiers, sources, actors, session names, and the reasons of
//! tier changes, archives, forgets and purges (written by engram or meant
//! to be read in the audit trail; their help says not to quote secrets).
//!
//! A name that places things (a room, a corridor) is replaced in the
//! skeleton by its pseudonym ([`room_pseudonym`]), a keyed hash of the name:
//! the same name gives the same pseudonym in one store, so the palace still
//! knows which room an erased memory held, and never hands its slot to
//! another, without being able to say what the room was called.

use serde::{Deserialize, Serialize};

use crate::event::{Embedding, Event};
use crate::key::HmacKey;

/// The first character of every pseudonym: never the first character of a
/// name a person chose (names are trimmed text).
pub const PSEUDONYM_PREFIX: char = '\u{1}';

/// The pseudonym of a room or corridor `name` in the store whose HMAC key
/// is `key`: the prefix, then 16 hex digits of an HMAC of the name.
#[must_use]
pub fn room_pseudonym(key: &HmacKey, name: &str) -> String {
    let mac = key.mac(&[b"engram room pseudonym v1", name.as_bytes()]);
    let mut out = String::with_capacity(17);
    out.push(PSEUDONYM_PREFIX);
    out.push_str(&hex::encode(mac.get(..8).unwrap_or_default()));
    out
}

/// Whether `name` is a pseudonym ([`room_pseudonym`]) rather than a name.
#[must_use]
pub fn is_pseudonym(name: &str) -> bool {
    name.starts_with(PSEUDONYM_PREFIX)
}

/// The words taken out of one event, in [`visit`] order. Sealed as one
/// value, so a record pays one AEAD however many fields it has.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Words {
    texts: Vec<String>,
    lists: Vec<Vec<String>>,
    embeddings: Vec<Option<Embedding>>,
    vectors: Vec<Vec<i8>>,
}

/// What [`visit`] shows a visitor: each kind of word field.
pub(crate) trait Visitor {
    /// Words: a turn's content, a summary, a rule, a query, a quote.
    fn text(&mut self, text: &mut String);
    /// A name that places things: a room, a corridor.
    fn name(&mut self, name: &mut String);
    /// A list of words: tags.
    fn list(&mut self, list: &mut Vec<String>);
    /// A vector that may or may not be there.
    fn embedding(&mut self, embedding: &mut Option<Embedding>);
    /// A vector's values.
    fn vector(&mut self, values: &mut Vec<i8>);
}

/// Walks the word fields of `event` in their fixed order; false when the
/// kind of event has none (it is written in the clear).
pub(crate) fn visit(event: &mut Event, v: &mut impl Visitor) -> bool {
    match event {
        Event::Session(e) => v.text(&mut e.content),
        Event::Remembered(e) => {
            if let Some(summary) = &mut e.summary {
                v.text(summary);
            }
            v.list(&mut e.tags);
            if let Some(room) = &mut e.room {
                v.name(room);
            }
            v.embedding(&mut e.embedding);
        }
        Event::ContradictionFlagged(e) => v.text(&mut e.reason),
        Event::VerdictRecorded(e) => v.text(&mut e.reason),
        Event::Distilled(e) => {
            v.text(&mut e.rule);
            if let Some(room) = &mut e.room {
                v.name(room);
            }
        }
        Event::Recalled(e) => {
            v.text(&mut e.query);
            if let Some(room) = &mut e.filters.room {
                v.name(room);
            }
            v.list(&mut e.filters.tags);
        }
        Event::EvidenceNoted(e) => v.text(&mut e.note),
        Event::EvidenceConfirmed(e) => v.text(&mut e.quote),
        Event::EntityLinked(e) => v.text(&mut e.entity),
        Event::GateDenied(e) => v.text(&mut e.object),
        Event::Embedded(e) => v.vector(&mut e.embedding.values),
        Event::CorridorPlaced(e) => {
            v.name(&mut e.name);
            v.name(&mut e.corridor);
        }
        Event::Reinforced(_)
        | Event::TierChanged(_)
        | Event::Archived(_)
        | Event::Forgotten(_)
        | Event::Graded(_)
        | Event::Expanded(_)
        | Event::Discarded(_)
        | Event::Checkpoint(_)
        | Event::TtlSet(_)
        | Event::UniquenessScored(_)
        | Event::Purged(_) => return false,
    }
    true
}

/// Takes the words out of `event`, leaving its skeleton (names replaced by
/// their pseudonyms under `key`). `None` when the kind has no words.
pub(crate) fn take(event: &mut Event, key: &HmacKey) -> Option<Words> {
    struct Take<'k> {
        key: &'k HmacKey,
        words: Words,
    }
    impl Visitor for Take<'_> {
        fn text(&mut self, text: &mut String) {
            self.words.texts.push(std::mem::take(text));
        }
        fn name(&mut self, name: &mut String) {
            // A skeleton's pseudonym (an erased event sealed again by an
            // import) stays itself.
            let pseudonym = if is_pseudonym(name) {
                name.clone()
            } else {
                room_pseudonym(self.key, name)
            };
            self.words.texts.push(std::mem::replace(name, pseudonym));
        }
        fn list(&mut self, list: &mut Vec<String>) {
            self.words.lists.push(std::mem::take(list));
        }
        fn embedding(&mut self, embedding: &mut Option<Embedding>) {
            self.words.embeddings.push(embedding.take());
        }
        fn vector(&mut self, values: &mut Vec<i8>) {
            self.words.vectors.push(std::mem::take(values));
        }
    }
    let mut take = Take {
        key,
        words: Words::default(),
    };
    visit(event, &mut take).then_some(take.words)
}

/// Puts `words` back into the skeleton `event`. Refused when they do not
/// fit its fields one for one (a record that was not made by [`take`]).
pub(crate) fn put(event: &mut Event, words: Words) -> Result<(), String> {
    struct Put {
        texts: std::vec::IntoIter<String>,
        lists: std::vec::IntoIter<Vec<String>>,
        embeddings: std::vec::IntoIter<Option<Embedding>>,
        vectors: std::vec::IntoIter<Vec<i8>>,
        short: bool,
    }
    impl Visitor for Put {
        fn text(&mut self, text: &mut String) {
            match self.texts.next() {
                Some(words) => *text = words,
                None => self.short = true,
            }
        }
        fn name(&mut self, name: &mut String) {
            self.text(name);
        }
        fn list(&mut self, list: &mut Vec<String>) {
            match self.lists.next() {
                Some(words) => *list = words,
                None => self.short = true,
            }
        }
        fn embedding(&mut self, embedding: &mut Option<Embedding>) {
            match self.embeddings.next() {
                Some(words) => *embedding = words,
                None => self.short = true,
            }
        }
        fn vector(&mut self, values: &mut Vec<i8>) {
            match self.vectors.next() {
                Some(words) => *values = words,
                None => self.short = true,
            }
        }
    }
    let mut put = Put {
        texts: words.texts.into_iter(),
        lists: words.lists.into_iter(),
        embeddings: words.embeddings.into_iter(),
        vectors: words.vectors.into_iter(),
        short: false,
    };
    let has_words = visit(event, &mut put);
    let left = put.texts.len() + put.lists.len() + put.embeddings.len() + put.vectors.len();
    if !has_words || put.short || left > 0 {
        return Err(format!(
            "the sealed words do not fit a {} event's fields",
            event.kind()
        ));
    }
    Ok(())
}

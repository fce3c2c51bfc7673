//! MACs kept with the view entries whose words reach a model.
//!
//! The views are derived state in a file (`views.redb`) that is not sealed
//! like the log: someone able to write it could change a memory's words
//! while the log still verifies. So the projector that turns a `Remembered`
//! event into a text-index entry also computes an HMAC-SHA256 over what a
//! model is handed of that memory (its words, summary, tags, room, scope,
//! source, and the seal it was remembered with), keyed with a key derived
//! from the store's HMAC key ([`VIEW_KEY_PURPOSE`]); readers recompute it
//! from the entries they are about to hand out and refuse a mismatch
//! ([`crate::ViewError::Tampered`]). Without the store key nobody can make
//! an edited entry pass.
//!
//! The MAC is a pure function of the log and the key, so a replay under the
//! same key gives the same bytes.

use engram_log::{Digest, HmacKey, MemoryId, MemoryRef, Remembered, Scope, Source};
use serde::Serialize;

use crate::fold::snapshot::encode_value;
use crate::models::MemoryEntry;

/// The purpose the view key is derived for (see [`HmacKey::derive`]).
pub const VIEW_KEY_PURPOSE: &[u8] = b"views: memory entries v1";

/// The first field of every MAC'd record: what the record is.
const MEMORY_DOMAIN: &str = "engram view memory v1";

/// The first field of a restatement's MAC'd record.
const RESTATEMENT_DOMAIN: &str = "engram view restatement v1";

/// The MAC of no entry (a forgotten memory's): no record has it, so it
/// never verifies.
pub(crate) const UNSET: Digest = Digest([0; 32]);

/// The key of the view MACs: derived from the store's HMAC key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewKey(HmacKey);

impl ViewKey {
    /// The view key of the store whose log is sealed with `key`.
    #[must_use]
    pub fn of(key: &HmacKey) -> Self {
        Self(key.derive(VIEW_KEY_PURPOSE))
    }

    /// The MAC of what a model is handed of one memory.
    #[must_use]
    pub(crate) fn memory_mac(&self, words: &MemoryWords<'_>) -> Digest {
        match words.bytes() {
            Some(bytes) => Digest(self.0.mac(&[&bytes])),
            None => UNSET,
        }
    }

    /// Whether `tag` is the MAC of `words` (constant time).
    #[must_use]
    pub(crate) fn memory_mac_matches(&self, words: &MemoryWords<'_>, tag: &Digest) -> bool {
        words
            .bytes()
            .is_some_and(|bytes| self.0.mac_matches(&[&bytes], &tag.0))
    }

    /// The MAC of a restatement's words kept with the memory it restated.
    #[must_use]
    pub(crate) fn restatement_mac(&self, words: &RestatementWords<'_>) -> Digest {
        match encode_value(words) {
            Ok(bytes) => Digest(self.0.mac(&[&bytes])),
            Err(_) => UNSET,
        }
    }

    /// Whether `tag` is the MAC of `words` (constant time).
    #[must_use]
    pub(crate) fn restatement_mac_matches(
        &self,
        words: &RestatementWords<'_>,
        tag: &Digest,
    ) -> bool {
        encode_value(words).is_ok_and(|bytes| self.0.mac_matches(&[&bytes], &tag.0))
    }
}

/// The words of the turns that restated a memory (a `Reinforced` event's
/// evidence), with the memory and the turns' seqs: what a model is handed
/// beside the memory as its restatement.
#[derive(Debug, Serialize)]
pub(crate) struct RestatementWords<'a> {
    domain: &'static str,
    memory: MemoryId,
    first_seq: u64,
    last_seq: u64,
    text: &'a str,
}

impl<'a> RestatementWords<'a> {
    pub(crate) fn new(memory: MemoryId, first_seq: u64, last_seq: u64, text: &'a str) -> Self {
        Self {
            domain: RESTATEMENT_DOMAIN,
            memory,
            first_seq,
            last_seq,
            text,
        }
    }
}

/// Everything of one memory that reaches a model, as the log says it: the
/// fields of its `Remembered` event (which never change afterwards) and the
/// words its reference names.
#[derive(Debug, Serialize)]
pub(crate) struct MemoryWords<'a> {
    domain: &'static str,
    id: MemoryId,
    reference: &'a MemoryRef,
    content_sha256: &'a Digest,
    seal: &'a Digest,
    scope: &'a Scope,
    source: Source,
    summary: Option<&'a str>,
    tags: &'a [String],
    room: Option<&'a str>,
    text: &'a str,
}

impl<'a> MemoryWords<'a> {
    /// From the event that created memory `id`, with its words.
    pub(crate) fn remembered(id: MemoryId, r: &'a Remembered, text: &'a str) -> Self {
        Self {
            domain: MEMORY_DOMAIN,
            id,
            reference: &r.reference,
            content_sha256: &r.content_sha256,
            seal: &r.mac,
            scope: &r.scope,
            source: r.source,
            summary: r.summary.as_deref(),
            tags: &r.tags,
            room: r.room.as_deref(),
            text,
        }
    }

    /// From the memory table's entry, with the words the text index holds.
    pub(crate) fn entry(entry: &'a MemoryEntry, text: &'a str) -> Self {
        Self {
            domain: MEMORY_DOMAIN,
            id: entry.id,
            reference: &entry.reference,
            content_sha256: &entry.content_sha256,
            seal: &entry.mac,
            scope: &entry.scope,
            source: entry.source,
            summary: entry.summary.as_deref(),
            tags: &entry.tags,
            room: entry.room.as_deref(),
            text,
        }
    }

    /// The canonical bytes (the snapshot codec: every string and list
    /// length-prefixed, so no two records share an encoding); `None` if
    /// they cannot be made, which no check lets pass.
    fn bytes(&self) -> Option<Vec<u8>> {
        encode_value(self).ok()
    }
}

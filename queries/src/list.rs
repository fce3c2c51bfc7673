//! Listing memories: one store's memories, newest first, filtered by room,
//! tag, tier, status and creation time, a page at a time.
//!
//! The order is stable: newest first by commit time, then by id (a store's
//! commit times never go back, so within a store this is id order,
//! newest first). A page ends at a bound (`before`), so memories saved
//! while someone pages through a list appear at its head and never shift
//! the pages after it. Reads only the views: no event is appended.
//!
//! A memory's words are shown only once verified against the MAC the text
//! index kept (`TextIndex::verified_text`); a memory whose view entries do
//! not match shows no text and the label [`crate::UNVERIFIED_LABEL`].

use engram_log::{MemoryId, Tier};
use engram_projections::CoreViews;
use engram_projections::models::{MemoryEntry, MemoryStatus};

use crate::recall::{CUE_LABEL_CHARS, ERASED_LABEL, FORGOTTEN_LABEL, UNVERIFIED_LABEL};

/// Memories a page holds when the caller names no limit.
pub const LIST_LIMIT_DEFAULT: usize = 20;
/// Most memories one page holds.
pub const LIST_LIMIT_MAX: usize = 500;

/// Where a memory stands, as a list shows and filters it: the memory
/// table's status, with a live memory a verdict overruled (an update
/// retired it, or a contradiction was decided against it) told apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ListStatus {
    /// Live and recallable.
    Live,
    /// Overruled by a verdict: out of recall, kept in the log.
    Superseded,
    /// Cold, in tier L4.
    Archived,
    /// Tombstoned.
    Forgotten,
    /// Erased by a purge: listed without summary, tags or words.
    Purged,
}

impl ListStatus {
    /// The status's name in answers.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ListStatus::Live => "live",
            ListStatus::Superseded => "superseded",
            ListStatus::Archived => "archived",
            ListStatus::Forgotten => "forgotten",
            ListStatus::Purged => "purged",
        }
    }
}

/// Which memories to list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListQuery {
    /// Only memories filed in this room: the room named at the save, the
    /// room of its coordinate, or that room's corridor.
    pub room: Option<String>,
    /// Only memories carrying this tag.
    pub tag: Option<String>,
    pub tier: Option<Tier>,
    /// Only memories of this status; `None` lists every status but
    /// forgotten.
    pub status: Option<ListStatus>,
    /// Only memories created at or after this time (unix ms).
    pub since_ms: Option<u64>,
    /// Only memories before this bound in the list's order: created
    /// earlier than its time, or at that time with a smaller id.
    pub before: Option<(u64, MemoryId)>,
    /// Most memories returned.
    pub limit: usize,
}

/// One memory of a list.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub id: MemoryId,
    pub created_ts_ms: u64,
    pub status: ListStatus,
    pub tier: Tier,
    /// The palace coordinate `room#slot` (empty when it has none).
    pub coordinate: String,
    pub room: Option<String>,
    pub tags: Vec<String>,
    pub summary: Option<String>,
    /// The summary, else the first words; [`UNVERIFIED_LABEL`] when the
    /// view entries fail their MAC.
    pub label: String,
    /// The memory's words, verified; `None` when forgotten or unverified.
    pub text: Option<String>,
    /// The view entries matched their MAC (else text, summary, tags and
    /// room are not shown).
    pub verified: bool,
    pub source: engram_log::Source,
    pub trust: Option<f64>,
}

/// The status of `entry` as a list shows it.
#[must_use]
pub fn status_of(entry: &MemoryEntry, overruled: bool) -> ListStatus {
    match entry.status {
        MemoryStatus::Forgotten => ListStatus::Forgotten,
        MemoryStatus::Purged => ListStatus::Purged,
        MemoryStatus::Archived => ListStatus::Archived,
        MemoryStatus::Live if overruled => ListStatus::Superseded,
        MemoryStatus::Live => ListStatus::Live,
    }
}

/// The memories of one store that `query` selects, newest first, at most
/// `query.limit`.
#[must_use]
pub fn list(core: &CoreViews, query: &ListQuery) -> Vec<Listed> {
    // In the views' lock order (`engram_projections::CoreViews`).
    let table = core.memory_table.read();
    let index = core.text_index.read();
    let verdicts = core.verdicts.read();
    let palace = core.palace.read();
    let trust = core.trust.read();
    let mut out = Vec::new();
    for entry in table.state.iter().rev() {
        if out.len() >= query.limit {
            break;
        }
        if query
            .since_ms
            .is_some_and(|since| entry.created_ts_ms < since)
        {
            // Commit times never go back: every older memory is earlier.
            break;
        }
        if query
            .before
            .is_some_and(|bound| (entry.created_ts_ms, entry.id) >= bound)
        {
            continue;
        }
        let status = status_of(entry, verdicts.state.is_overruled(entry.id));
        let status_ok = match query.status {
            Some(wanted) => status == wanted,
            None => status != ListStatus::Forgotten,
        };
        let coordinate = palace.state.coordinate(entry.id);
        let room_ok = query.room.as_deref().is_none_or(|room| {
            entry.room.as_deref() == Some(room)
                || coordinate
                    .is_some_and(|c| c.room == room || palace.state.topic_of(&c.room) == room)
        });
        let tag_ok = query
            .tag
            .as_deref()
            .is_none_or(|tag| entry.tags.iter().any(|t| t == tag));
        let tier_ok = query.tier.is_none_or(|tier| entry.tier == tier);
        if !(status_ok && room_ok && tag_ok && tier_ok) {
            continue;
        }
        let (text, label, verified) = match index.verified_text(entry) {
            Ok(Some(text)) => (
                Some(text.to_owned()),
                entry.summary.clone().unwrap_or_else(|| first_words(text)),
                true,
            ),
            Ok(None) if entry.status == MemoryStatus::Purged => {
                (None, ERASED_LABEL.to_owned(), true)
            }
            Ok(None) => (None, FORGOTTEN_LABEL.to_owned(), true),
            Err(_) => (None, UNVERIFIED_LABEL.to_owned(), false),
        };
        // Summary, tags and room are under the same MAC as the words.
        let (room, tags, summary) = if entry.status == MemoryStatus::Purged {
            (None, Vec::new(), None)
        } else if verified {
            (
                entry.room.clone(),
                entry.tags.clone(),
                entry.summary.clone(),
            )
        } else {
            (None, Vec::new(), None)
        };
        out.push(Listed {
            id: entry.id,
            created_ts_ms: entry.created_ts_ms,
            status,
            tier: entry.tier,
            coordinate: coordinate.map_or_else(String::new, ToString::to_string),
            room,
            tags,
            summary,
            label,
            text,
            verified,
            source: entry.source,
            trust: trust.state.trust(entry.id),
        });
    }
    out
}

/// A label of a text: its first [`CUE_LABEL_CHARS`] characters on one
/// line, as recall's cues show a memory.
fn first_words(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = line.chars().take(CUE_LABEL_CHARS).collect();
    if line.chars().count() > CUE_LABEL_CHARS {
        out.push('…');
    }
    out
}

//! Recall: BM25 over the text index, narrowed by the memory table's filters.
//!
//! A hit is a memory that is live (or archived, when tier L4 is asked for),
//! visible to the caller's session, in the asked room and tier, carrying
//! every asked tag, and sharing at least one term with the query. Hits come
//! best first; equal scores go to the older memory.

use engram_log::{MemoryId, Scope, Tier};
use engram_projections::CoreViews;
use engram_projections::models::{MemoryEntry, MemoryStatus};
use engram_text::tokenize::query_terms;

/// Most hits one recall returns.
pub const RECALL_LIMIT_MAX: usize = 100;
/// Hits returned when the caller names no limit.
pub const RECALL_LIMIT_DEFAULT: usize = 5;

/// What to recall.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecallQuery {
    pub text: String,
    /// Search this room's corridor first; all rooms when nothing is found
    /// there (corridor routing).
    pub room: Option<String>,
    /// Only this tier. `None` searches L1-L3 (archived memories only when
    /// `Some(L4)`).
    pub tier: Option<Tier>,
    /// Every one of these tags.
    pub tags: Vec<String>,
    /// The caller's session: memories scoped to another session are hidden.
    pub session: Option<String>,
    pub limit: usize,
}

impl RecallQuery {
    /// A query for `text` with no filter and the default limit.
    #[must_use]
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            room: None,
            tier: None,
            tags: Vec::new(),
            session: None,
            limit: RECALL_LIMIT_DEFAULT,
        }
    }
}

/// Characters of a cue's label.
pub const CUE_LABEL_CHARS: usize = 48;

/// A neighbouring slot of a hit's room: where to look next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cue {
    pub id: MemoryId,
    pub coordinate: String,
    /// The summary, else the first words of the memory.
    pub label: String,
}

/// The label of memory `id`: its summary, else its first
/// [`CUE_LABEL_CHARS`] characters (one line).
#[must_use]
pub fn label(core: &CoreViews, id: MemoryId) -> String {
    if let Some(summary) = core
        .memory_table
        .read()
        .state
        .get(id)
        .and_then(|e| e.summary.clone())
    {
        return summary;
    }
    let index = core.text_index.read();
    let text = index.state.text(id).unwrap_or("(forgotten)");
    let mut out: String = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(CUE_LABEL_CHARS)
        .collect();
    if text.chars().count() > CUE_LABEL_CHARS {
        out.push('…');
    }
    out
}

/// The cues of memory `id`: the slots next to it in its room.
#[must_use]
pub fn cues(core: &CoreViews, id: MemoryId) -> Vec<Cue> {
    let neighbours = core.palace.read().state.neighbours(id);
    neighbours
        .into_iter()
        .map(|(memory, coordinate)| Cue {
            id: memory,
            coordinate: coordinate.to_string(),
            label: label(core, memory),
        })
        .collect()
}

/// One recalled memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub id: MemoryId,
    /// Palace coordinate `room#slot`.
    pub coordinate: String,
    /// BM25 score.
    pub score: f64,
    /// The words the memory references.
    pub text: String,
    /// Trust, 0..=1.
    pub trust: f64,
    /// Always `relevant` for a recall hit.
    pub status: &'static str,
    pub tier: Tier,
    pub room: Option<String>,
    pub tags: Vec<String>,
    pub summary: Option<String>,
    /// The adjacent slots of its room.
    pub cues: Vec<Cue>,
}

/// Whether `entry` passes the query's filters.
#[must_use]
pub fn admits(query: &RecallQuery, entry: &MemoryEntry) -> bool {
    let status_ok = match entry.status {
        MemoryStatus::Live => query.tier != Some(Tier::L4) || entry.tier == Tier::L4,
        MemoryStatus::Archived => query.tier == Some(Tier::L4),
        MemoryStatus::Forgotten => false,
    };
    let tier_ok = match query.tier {
        Some(tier) => entry.tier == tier,
        None => entry.tier != Tier::L4,
    };
    let scope_ok = match &entry.scope {
        Scope::Store => true,
        Scope::Session(owner) => query.session.as_deref() == Some(owner.as_str()),
    };
    let tags_ok = query.tags.iter().all(|t| entry.tags.contains(t));
    status_ok && tier_ok && scope_ok && tags_ok
}

/// The best hits for `query`, best first.
#[must_use]
pub fn recall(core: &CoreViews, query: &RecallQuery) -> Vec<Hit> {
    let terms = query_terms(&query.text);
    if terms.is_empty() {
        return Vec::new();
    }
    let limit = query.limit.min(RECALL_LIMIT_MAX);
    let table = core.memory_table.read();
    let index = core.text_index.read();
    let verdicts = core.verdicts.read();
    let palace = core.palace.read();
    // A memory a verdict overruled leaves recall (it is not forgotten).
    let admitted = |id| {
        table
            .state
            .get(id)
            .is_some_and(|entry| admits(query, entry))
            && !verdicts.state.is_overruled(id)
    };
    // Corridor routing: the room's corridor first, everything if nothing
    // is found there.
    let corridor = query
        .room
        .as_deref()
        .map(|room| palace.state.corridor_of(room).to_owned());
    let in_corridor = |id| {
        corridor.as_deref().is_none_or(|corridor| {
            palace
                .state
                .coordinate(id)
                .is_some_and(|c| palace.state.corridor_of(&c.room) == corridor)
        })
    };
    let mut scored = index
        .state
        .search(&terms, limit, |id| in_corridor(id) && admitted(id));
    if scored.is_empty() && corridor.is_some() {
        scored = index.state.search(&terms, limit, admitted);
    }
    drop(verdicts);
    let trust = core.trust.read();
    let hits: Vec<Hit> = scored
        .into_iter()
        .filter_map(|hit| {
            let entry = table.state.get(hit.memory)?;
            Some(Hit {
                id: hit.memory,
                coordinate: palace
                    .state
                    .coordinate(hit.memory)
                    .map_or_else(String::new, ToString::to_string),
                score: f64::from(hit.score),
                text: index.state.text(hit.memory).unwrap_or_default().to_owned(),
                trust: trust.state.trust(hit.memory).unwrap_or(0.0),
                status: "relevant",
                tier: entry.tier,
                room: entry.room.clone(),
                tags: entry.tags.clone(),
                summary: entry.summary.clone(),
                cues: Vec::new(),
            })
        })
        .collect();
    drop((table, index, trust, palace));
    hits.into_iter()
        .map(|hit| Hit {
            cues: cues(core, hit.id),
            ..hit
        })
        .collect()
}

//! Recall: BM25 over the text index, narrowed by the memory table's filters.
//!
//! A hit is a memory that is live (or archived, when tier L4 is asked for),
//! visible to the caller's session, in the asked room and tier, carrying
//! every asked tag, and sharing at least one term with the query. Hits come
//! best first; equal scores go to the older memory.
//!
//! Every word a hit or a cue hands out is taken through
//! [`engram_projections::TextIndex::verified_text`]: the view entries must
//! match the MAC their projector kept. A hit that does not is an error
//! ([`ViewError::Tampered`], naming the memory and what to run); a cue that
//! does not is labelled [`UNVERIFIED_LABEL`] instead of its words.

use engram_log::{MemoryId, Scope, Tier};
use engram_projections::models::{MemoryEntry, MemoryStatus};
use engram_projections::{CoreViews, VectorSearch, ViewError};
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
/// [`CUE_LABEL_CHARS`] characters (one line); `(forgotten)` once it is
/// forgotten, summary or not; [`UNVERIFIED_LABEL`] when its view entries
/// do not match their MAC (never the words they hold).
#[must_use]
pub fn label(core: &CoreViews, id: MemoryId) -> String {
    let table = core.memory_table.read();
    let index = core.text_index.read();
    let Some(entry) = table.state.get(id) else {
        return FORGOTTEN_LABEL.to_owned();
    };
    let text = match index.verified_text(entry) {
        Ok(Some(text)) => text,
        Ok(None) => return FORGOTTEN_LABEL.to_owned(),
        Err(_) => return UNVERIFIED_LABEL.to_owned(),
    };
    if let Some(summary) = &entry.summary {
        return summary.clone();
    }
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

/// The label of a forgotten memory.
pub const FORGOTTEN_LABEL: &str = "(forgotten)";
/// The label of a memory whose view entries do not match their MAC (the
/// views file was altered): its words are not shown.
pub const UNVERIFIED_LABEL: &str = "(unverified: run `engram verify --views`)";
/// The cue label of a memory a verdict overruled: its words left recall,
/// so they do not come back as a neighbour's cue either.
pub const OVERRULED_LABEL: &str = "(overruled)";

/// The cues of memory `id`: the slots next to it in its room, labelled
/// (forgotten and overruled neighbours by their state, not their words).
#[must_use]
pub fn cues(core: &CoreViews, id: MemoryId) -> Vec<Cue> {
    let neighbours = core.palace.read().state.neighbours(id);
    neighbours
        .into_iter()
        .map(|(memory, coordinate)| {
            let overruled = core.verdicts.read().state.is_overruled(memory);
            Cue {
                id: memory,
                coordinate: coordinate.to_string(),
                label: if overruled {
                    OVERRULED_LABEL.to_owned()
                } else {
                    label(core, memory)
                },
            }
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

/// The reciprocal-rank-fusion constant: a hit at rank `r` (1-based) in one
/// ranking adds `1 / (RRF_K + r)`. 60 is the value of Cormack et al. (2009),
/// which damps the head of each list so neither ranking dominates.
pub const RRF_K: f64 = 60.0;

/// How many candidates each ranking contributes to the fusion, per hit asked.
pub const FUSION_DEPTH: usize = 4;

/// The query's embedding, from the model the caller runs.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryVector {
    /// The model id the vector came from (only that model's vectors are compared).
    pub model: String,
    /// L2-normalised.
    pub values: Vec<f32>,
}

/// Which rankings a recall used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecallMode {
    /// BM25 only.
    Keyword,
    /// BM25 and vectors fused by reciprocal rank.
    Hybrid,
}

impl RecallMode {
    /// `keyword` or `hybrid`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            RecallMode::Keyword => "keyword",
            RecallMode::Hybrid => "hybrid",
        }
    }
}

/// The best hits for `query`, best first (keyword mode).
///
/// # Errors
/// As [`recall_with`].
pub fn recall(core: &CoreViews, query: &RecallQuery) -> Result<Vec<Hit>, ViewError> {
    Ok(recall_with(core, query, None)?.0)
}

/// Fuses rankings (each best first) by reciprocal rank; ties to the older
/// memory. Returns (memory, fused score), best first.
#[must_use]
pub fn fuse(rankings: &[Vec<MemoryId>], limit: usize) -> Vec<(MemoryId, f64)> {
    let mut scores: std::collections::BTreeMap<MemoryId, f64> = std::collections::BTreeMap::new();
    for ranking in rankings {
        for (rank, &id) in ranking.iter().enumerate() {
            *scores.entry(id).or_default() += 1.0 / (RRF_K + rank as f64 + 1.0);
        }
    }
    let mut fused: Vec<(MemoryId, f64)> = scores.into_iter().collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    fused.truncate(limit);
    fused
}

/// The best hits for `query` and the mode that ran: hybrid (BM25 and
/// vectors fused by reciprocal rank, [`RRF_K`]) when `vector` is given and
/// the index holds vectors of its model and dimension, keyword otherwise.
/// Filters and corridor routing apply to both rankings. In hybrid mode a
/// hit's `score` is its fused score; in keyword mode its BM25 score.
///
/// # Errors
/// [`ViewError::Tampered`] naming the first hit whose view entries do not
/// match the MAC their projector kept (the views file was altered): no
/// hit is handed out as true that the log does not hold.
pub fn recall_with(
    core: &CoreViews,
    query: &RecallQuery,
    vector: Option<&QueryVector>,
) -> Result<(Vec<Hit>, RecallMode), ViewError> {
    let terms = query_terms(&query.text);
    let limit = query.limit.min(RECALL_LIMIT_MAX);
    let vectors = core.vectors.read();
    let vector = vector.filter(|v| {
        vectors.state.dimension(&v.model) == Some(v.values.len()) && !v.values.is_empty()
    });
    let mode = if vector.is_some() {
        RecallMode::Hybrid
    } else {
        RecallMode::Keyword
    };
    if terms.is_empty() && vector.is_none() {
        return Ok((Vec::new(), mode));
    }
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
    let depth = match mode {
        RecallMode::Keyword => limit,
        RecallMode::Hybrid => limit * FUSION_DEPTH,
    };
    let rank = |accept: &dyn Fn(MemoryId) -> bool| -> Vec<(MemoryId, f64)> {
        let keyword: Vec<(MemoryId, f64)> = index
            .state
            .search(&terms, depth, accept)
            .into_iter()
            .map(|h| (h.memory, f64::from(h.score)))
            .collect();
        match vector {
            None => keyword,
            Some(v) => {
                let semantic: Vec<MemoryId> = vectors
                    .state
                    .nearest(&v.model, &v.values, depth, accept)
                    .into_iter()
                    .map(|(id, _)| id)
                    .collect();
                let keyword: Vec<MemoryId> = keyword.into_iter().map(|(id, _)| id).collect();
                fuse(&[keyword, semantic], limit)
            }
        }
    };
    let mut scored = rank(&|id| in_corridor(id) && admitted(id));
    if scored.is_empty() && corridor.is_some() {
        scored = rank(&admitted);
    }
    drop(verdicts);
    drop(vectors);
    let trust = core.trust.read();
    let mut hits: Vec<Hit> = Vec::with_capacity(scored.len());
    for (memory, score) in scored {
        let Some(entry) = table.state.get(memory) else {
            continue;
        };
        let text = index.verified_text(entry)?.unwrap_or_default().to_owned();
        hits.push(Hit {
            id: memory,
            coordinate: palace
                .state
                .coordinate(memory)
                .map_or_else(String::new, ToString::to_string),
            score,
            text,
            trust: trust.state.trust(memory).unwrap_or(0.0),
            status: "relevant",
            tier: entry.tier,
            room: entry.room.clone(),
            tags: entry.tags.clone(),
            summary: entry.summary.clone(),
            cues: Vec::new(),
        });
    }
    drop((table, index, trust, palace));
    let hits = hits
        .into_iter()
        .map(|hit| Hit {
            cues: cues(core, hit.id),
            ..hit
        })
        .collect();
    Ok((hits, mode))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reciprocal_rank_fusion_rewards_agreement_and_breaks_ties_by_age() {
        // 2 is second in both lists: 2/(60+2) beats 1/(60+1) for 1 and 3.
        let fused = fuse(&[vec![1, 2, 4], vec![3, 2, 5]], 3);
        let ids: Vec<MemoryId> = fused.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, [2, 1, 3]);
        assert!((fused[0].1 - 2.0 / 62.0).abs() < 1e-12);
        assert!(fuse(&[vec![], vec![]], 5).is_empty());
        assert_eq!(fuse(&[vec![9]], 0), vec![]);
    }
}

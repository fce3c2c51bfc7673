//! Recall: BM25 over the text index, narrowed by the memory table's filters.
//!
//! A hit is a memory that is live (or archived, when tier L4 is asked for),
//! visible to the caller's session, in the asked room and tier, carrying
//! every asked tag, and sharing at least one term with the query. Hits come
//! best first, session (L1) and workspace (L2) memories first where
//! relevance is comparable ([`tier_first`]); equal scores go to the older
//! memory.
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
#[derive(Debug, Clone, PartialEq)]
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
    /// The relevance floor: hits scoring below it are dropped. `None` is
    /// the mode's default: [`HYBRID_MIN_SCORE`] in hybrid mode (fused
    /// scores are in 0..=1), none in keyword mode (every keyword hit shares
    /// a term with the query; BM25 has no fixed scale). It applies to the
    /// relevance score, before trust weighs in: trust reorders hits, it
    /// never drops one.
    pub min_score: Option<f64>,
    /// The time of the query (unix ms): trust's freshness term is measured
    /// to it. `None` leaves freshness out (the timeless score).
    pub now_ms: Option<u64>,
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
            min_score: None,
            now_ms: None,
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
    if entry.status == MemoryStatus::Purged {
        return ERASED_LABEL.to_owned();
    }
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
/// The label of a purged memory: its words were erased.
pub const ERASED_LABEL: &str = "(erased)";
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

/// How many of a memory's restatements a hit shows, the latest: enough to
/// show what was added, not a history.
pub const RESTATED_SHOWN_MAX: usize = 3;

/// One recalled memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub id: MemoryId,
    /// Palace coordinate `room#slot`.
    pub coordinate: String,
    /// What hits are ordered by: the relevance score times the trust
    /// factor ([`trust_factor`]). Relevance is the BM25 score in keyword
    /// mode (unbounded, higher is better), the fused score in 0..=1 in
    /// hybrid mode ([`fuse`]). With [`Fusion::trust_weight`] 0 the score is
    /// the relevance score itself.
    pub score: f64,
    /// The words the memory references.
    pub text: String,
    /// The words of the latest turns that restated the memory and said
    /// something its own words do not (at most [`RESTATED_SHOWN_MAX`],
    /// oldest first): "she gets hives from them" beside "Mia is allergic to
    /// mangoes".
    pub restated: Vec<String>,
    /// Trust, 0..=1, at the query's time ([`RecallQuery::now_ms`]).
    pub trust: f64,
    /// The evidence gate's state: [`STATUS_RELEVANT`], or
    /// [`STATUS_CONFIRMED`] once valid evidence was recorded for it.
    pub status: &'static str,
    /// Trust below [`REFERENCE_ONLY_BELOW_PERMILLE`]: to be checked before
    /// it is relied on.
    pub reference_only: bool,
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
        MemoryStatus::Forgotten | MemoryStatus::Purged => false,
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

/// How many candidates each ranking contributes to the fusion (and to the
/// trust reordering), per hit asked.
pub const FUSION_DEPTH: usize = 4;

/// A hit's status before any evidence: it matched the query.
pub const STATUS_RELEVANT: &str = "relevant";
/// A hit's status once valid evidence was recorded for it (`confirm`).
pub const STATUS_CONFIRMED: &str = "confirmed";
pub use engram_projections::models::trust::REFERENCE_ONLY_BELOW_PERMILLE;

/// What a hit's relevance is multiplied by: `1 - w + w * trust`, so a
/// weight of 0 leaves the order to relevance alone and a weight of 1
/// scales it by trust.
#[must_use]
pub fn trust_factor(weight: f64, trust: f64) -> f64 {
    let w = weight.clamp(0.0, 1.0);
    1.0 - w + w * trust.clamp(0.0, 1.0)
}

/// Reorders `scored` (memory, relevance) by relevance times
/// [`trust_factor`], best first, ties to the older memory.
#[must_use]
pub fn weigh_by_trust(
    scored: Vec<(MemoryId, f64)>,
    weight: f64,
    trust: impl Fn(MemoryId) -> f64,
) -> Vec<(MemoryId, f64)> {
    if weight <= 0.0 {
        return scored;
    }
    let mut weighed: Vec<(MemoryId, f64)> = scored
        .into_iter()
        .map(|(id, relevance)| (id, relevance * trust_factor(weight, trust(id))))
        .collect();
    weighed.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    weighed
}

/// How hybrid recall weighs its two signals ([`fuse`]). The default is
/// tuned on the dev split of the retrieval corpus
/// (`benches/corpus/retrieval`) with all-MiniLM-L6-v2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fusion {
    /// The keyword side's weight, 0..=1; the semantic side gets the rest.
    pub keyword_weight: f64,
    /// The cosine similarity at or below which the semantic side gives
    /// nothing (unrelated sentences are rarely at 0 with a sentence model).
    pub cosine_floor: f64,
    /// How much trust (freshness included) orders hits, in both modes:
    /// the weight of [`trust_factor`].
    pub trust_weight: f64,
}

/// [`Fusion::default`]'s keyword weight.
pub const HYBRID_KEYWORD_WEIGHT: f64 = 0.4;
/// [`Fusion::default`]'s cosine floor.
pub const HYBRID_COSINE_FLOOR: f64 = 0.0;
/// [`Fusion::default`]'s trust weight. 0: on the dev split of the retrieval
/// corpus (sessions committed at their dates, questions the day after the
/// last), weights 0.1 to 1 gave no better recall@1 or MRR in either mode
/// (`ENGRAM_BENCH_RETRIEVAL_SWEEP=trust`).
pub const TRUST_WEIGHT: f64 = 0.0;
/// The default relevance floor of hybrid recall: a fused score below it
/// is not a hit ([`RecallQuery::min_score`]).
pub const HYBRID_MIN_SCORE: f64 = 0.1;

impl Default for Fusion {
    fn default() -> Self {
        Self {
            keyword_weight: HYBRID_KEYWORD_WEIGHT,
            cosine_floor: HYBRID_COSINE_FLOOR,
            trust_weight: TRUST_WEIGHT,
        }
    }
}

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
    /// BM25 and vectors fused by a convex combination of normalised
    /// scores ([`fuse`]).
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

/// How many times the limit each ranking looks, so [`tier_first`] can
/// bring a session or workspace memory from just past the limit.
pub const TIER_LOOKAHEAD: usize = 2;
/// How much a session (L1) or workspace (L2) memory's score counts for
/// against others' when hits are ordered: one within 20% of a
/// cross-session memory's score comes first ([`tier_first`]).
pub const TIER_FIRST_FACTOR: f64 = 1.25;

/// Orders `scored` (best first) with session (L1) and workspace (L2)
/// memories first where relevance is comparable: each hit is ranked by
/// its score times [`TIER_FIRST_FACTOR`] in L1 and L2, by its score
/// elsewhere; equal ranks keep their order. The scores themselves are
/// not changed. Where every hit is of one kind the order is unchanged.
pub fn tier_first(scored: &mut [(MemoryId, f64)], tier_of: impl Fn(MemoryId) -> Option<Tier>) {
    let rank = |&(id, score): &(MemoryId, f64)| tier_rank(tier_of(id), score);
    scored.sort_by(|a, b| rank(b).total_cmp(&rank(a)));
}

/// What a hit of `tier` scoring `score` is ordered by ([`tier_first`]);
/// hits of several stores are merged by it too.
#[must_use]
pub fn tier_rank(tier: Option<Tier>, score: f64) -> f64 {
    match tier {
        Some(Tier::L1 | Tier::L2) => score * TIER_FIRST_FACTOR,
        _ => score,
    }
}

/// The best hits for `query`, best first (keyword mode).
///
/// # Errors
/// As [`recall_with`].
pub fn recall(core: &CoreViews, query: &RecallQuery) -> Result<Vec<Hit>, ViewError> {
    Ok(recall_with(core, query, None)?.0)
}

/// Fuses a keyword ranking and a semantic ranking by their scores, so a
/// strong signal counts for more than a weak one. Returns (memory, fused
/// score in 0..=1) at or above `min_score`, best first, ties to the older
/// memory, at most `limit`.
///
/// - keyword: a BM25 score over `ceiling`, capped at 1. `ceiling` is the
///   sum of the query terms' idf ([`TextIndexState::idf_sum`]): about what
///   a memory of average length holding every query term once scores, so
///   a memory matching one common word of a long question gets little.
/// - semantic: the cosine `c` as `(c - cosine_floor) / (1 - cosine_floor)`,
///   at least 0.
/// - fused: `keyword_weight * keyword + (1 - keyword_weight) * semantic`; a
///   memory missing from one ranking scores 0 on that side.
///
/// [`TextIndexState::idf_sum`]: engram_projections::text_index::TextIndexState::idf_sum
#[must_use]
pub fn fuse(
    keyword: &[(MemoryId, f64)],
    ceiling: f64,
    semantic: &[(MemoryId, f64)],
    fusion: Fusion,
    min_score: f64,
    limit: usize,
) -> Vec<(MemoryId, f64)> {
    let w = fusion.keyword_weight.clamp(0.0, 1.0);
    let floor = fusion.cosine_floor.clamp(0.0, 0.999);
    let mut scores: std::collections::BTreeMap<MemoryId, f64> = std::collections::BTreeMap::new();
    if ceiling > 0.0 {
        for &(id, score) in keyword {
            *scores.entry(id).or_default() += w * (score / ceiling).clamp(0.0, 1.0);
        }
    }
    for &(id, cosine) in semantic {
        let s = ((cosine - floor) / (1.0 - floor)).clamp(0.0, 1.0);
        *scores.entry(id).or_default() += (1.0 - w) * s;
    }
    let mut fused: Vec<(MemoryId, f64)> = scores
        .into_iter()
        .filter(|&(_, s)| s > 0.0 && s >= min_score)
        .collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    fused.truncate(limit);
    fused
}

/// Whether the embedding model `model` reads `text` (see
/// [`engram_text::script::model_reads`]): a CJK query runs keyword only
/// with an English model.
pub use engram_text::script::model_reads;

/// The best hits for `query` and the mode that ran: hybrid (BM25 and
/// vectors fused by score, [`fuse`] with [`Fusion::default`]) when
/// `vector` is given, the index holds vectors of its model and dimension,
/// and the model reads the query's script ([`model_reads`]); keyword
/// otherwise. Filters and corridor routing apply to both rankings. In
/// hybrid mode a hit's `score` is its fused score (0..=1); in keyword mode
/// its BM25 score. Hits below [`RecallQuery::min_score`] are dropped.
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
    recall_fused(core, query, vector, Fusion::default())
}

/// [`recall_with`] with other fusion weights (for tuning).
///
/// # Errors
/// As [`recall_with`].
pub fn recall_fused(
    core: &CoreViews,
    query: &RecallQuery,
    vector: Option<&QueryVector>,
    fusion: Fusion,
) -> Result<(Vec<Hit>, RecallMode), ViewError> {
    let terms = query_terms(&query.text);
    let limit = query.limit.min(RECALL_LIMIT_MAX);
    // In the views' lock order (`engram_projections::CoreViews`).
    let table = core.memory_table.read();
    let index = core.text_index.read();
    let vectors = core.vectors.read();
    let vector = vector.filter(|v| {
        vectors.state.dimension(&v.model) == Some(v.values.len())
            && !v.values.is_empty()
            && model_reads(&v.model, &query.text)
    });
    let mode = if vector.is_some() {
        RecallMode::Hybrid
    } else {
        RecallMode::Keyword
    };
    if terms.is_empty() && vector.is_none() {
        return Ok((Vec::new(), mode));
    }
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
    // Corridor routing: the room's topic first (the room and its chain),
    // then the rooms on its corridor, everything if nothing is found there.
    let topic = query
        .room
        .as_deref()
        .map(|room| palace.state.topic_of(room).to_owned());
    let corridor = query
        .room
        .as_deref()
        .map(|room| palace.state.corridor_of(room).to_owned());
    let in_topic = |id| {
        topic.as_deref().is_none_or(|topic| {
            palace
                .state
                .coordinate(id)
                .is_some_and(|c| palace.state.topic_of(&c.room) == topic)
        })
    };
    let in_corridor = |id| {
        corridor.as_deref().is_none_or(|corridor| {
            palace
                .state
                .coordinate(id)
                .is_some_and(|c| palace.state.corridor_of(&c.room) == corridor)
        })
    };
    // Ranked deeper than the limit, so a session or workspace memory just
    // past it can still come first (`tier_first`).
    let depth = match mode {
        RecallMode::Keyword => limit * TIER_LOOKAHEAD,
        RecallMode::Hybrid => limit * TIER_LOOKAHEAD * FUSION_DEPTH,
    };
    let rank = |accept: &dyn Fn(MemoryId) -> bool| -> Vec<(MemoryId, f64)> {
        let keyword: Vec<(MemoryId, f64)> = index
            .state
            .search(&terms, depth, accept)
            .into_iter()
            .map(|h| (h.memory, f64::from(h.score)))
            .collect();
        match vector {
            None => keyword
                .into_iter()
                .filter(|&(_, s)| query.min_score.is_none_or(|min| s >= min))
                .collect(),
            Some(v) => {
                let semantic: Vec<(MemoryId, f64)> = vectors
                    .state
                    .nearest(&v.model, &v.values, depth, accept)
                    .into_iter()
                    .map(|(id, cosine)| (id, f64::from(cosine)))
                    .collect();
                let ceiling = f64::from(index.state.idf_sum(&terms));
                let min_score = query.min_score.unwrap_or(HYBRID_MIN_SCORE);
                fuse(
                    &keyword,
                    ceiling,
                    &semantic,
                    fusion,
                    min_score,
                    limit * TIER_LOOKAHEAD,
                )
            }
        }
    };
    let mut scored = rank(&|id| in_topic(id) && admitted(id));
    if scored.is_empty() && corridor.is_some() {
        scored = rank(&|id| in_corridor(id) && admitted(id));
    }
    if scored.is_empty() && corridor.is_some() {
        scored = rank(&admitted);
    }
    drop(verdicts);
    drop(vectors);
    let trust = core.trust.read();
    let trust_of = |id| {
        trust
            .state
            .inputs(id)
            .map_or(0, |inputs| match query.now_ms {
                Some(now) => inputs.permille_at(now),
                None => inputs.permille(),
            })
    };
    // Trust weighs in on the whole deeper list, then the tiers order it.
    let mut scored = weigh_by_trust(scored, fusion.trust_weight, |id| {
        f64::from(trust_of(id)) / 1000.0
    });
    tier_first(&mut scored, |id| table.state.get(id).map(|e| e.tier));
    scored.truncate(limit);
    let mut hits: Vec<Hit> = Vec::with_capacity(scored.len());
    for (memory, score) in scored {
        let Some(entry) = table.state.get(memory) else {
            continue;
        };
        let text = index.verified_text(entry)?.unwrap_or_default().to_owned();
        let restated: Vec<String> = index
            .verified_restatements(entry, RESTATED_SHOWN_MAX)?
            .into_iter()
            .map(str::to_owned)
            .collect();
        hits.push(Hit {
            id: memory,
            coordinate: palace
                .state
                .coordinate(memory)
                .map_or_else(String::new, ToString::to_string),
            score,
            text,
            restated,
            trust: f64::from(trust_of(memory)) / 1000.0,
            status: if trust.state.inputs(memory).is_some_and(|i| i.confirmed()) {
                STATUS_CONFIRMED
            } else {
                STATUS_RELEVANT
            },
            reference_only: trust_of(memory) < REFERENCE_ONLY_BELOW_PERMILLE,
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
    fn trust_reorders_by_its_weight_and_never_drops_a_hit() {
        let scored = vec![(1, 1.0), (2, 0.9), (3, 0.5)];
        let trust = |id| match id {
            1 => 0.2,
            2 => 0.9,
            _ => 1.0,
        };
        // Weight 0: relevance alone, scores unchanged.
        assert_eq!(weigh_by_trust(scored.clone(), 0.0, trust), scored);
        // Weight 1: relevance times trust (1: 0.2, 2: 0.81, 3: 0.5).
        let ids: Vec<MemoryId> = weigh_by_trust(scored.clone(), 1.0, trust)
            .iter()
            .map(|h| h.0)
            .collect();
        assert_eq!(ids, [2, 3, 1]);
        // In between: 1: 0.6, 2: 0.855, 3: 0.5.
        let half = weigh_by_trust(scored, 0.5, trust);
        assert_eq!(half.iter().map(|h| h.0).collect::<Vec<_>>(), [2, 1, 3]);
        assert!((half[1].1 - 0.6).abs() < 1e-12);
        assert!((trust_factor(2.0, -1.0) - 0.0).abs() < 1e-12, "clamped");
    }

    #[test]
    fn session_and_workspace_memories_come_first_where_relevance_is_comparable() {
        let tiers = |id| {
            Some(match id {
                1 | 2 => Tier::L3,
                3 => Tier::L1,
                4 => Tier::L2,
                _ => Tier::L3,
            })
        };
        // 3 (L1) is within 20% of 2 but not of 1; 4 (L2) is far behind.
        let mut scored = vec![(1, 10.0), (2, 6.0), (3, 5.0), (5, 4.0), (4, 1.0)];
        tier_first(&mut scored, tiers);
        let ids: Vec<MemoryId> = scored.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, [1, 3, 2, 5, 4]);
        assert_eq!(scored[1], (3, 5.0), "scores are not changed");
        // One kind only: the order stays.
        let mut same = vec![(7, 3.0), (8, 3.0), (9, 1.0)];
        tier_first(&mut same, |_| Some(Tier::L3));
        assert_eq!(same, [(7, 3.0), (8, 3.0), (9, 1.0)]);
    }

    #[test]
    fn fusion_weighs_signal_strength_and_breaks_ties_by_age() {
        let fusion = Fusion {
            keyword_weight: 0.5,
            cosine_floor: 0.2,
            trust_weight: 0.0,
        };
        // 1: a weak keyword match only (1 of 4 idf units); 2: the best
        // semantic match only; 3: a full keyword match; 4 and 5 tie.
        let keyword = [(3, 4.0), (1, 1.0), (4, 2.0), (5, 2.0)];
        let semantic = [(2, 0.9), (6, 0.1)];
        let fused = fuse(&keyword, 4.0, &semantic, fusion, 0.0, 10);
        let ids: Vec<MemoryId> = fused.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, [3, 2, 4, 5, 1], "6 is below the cosine floor");
        assert!((fused[0].1 - 0.5).abs() < 1e-12);
        assert!((fused[1].1 - 0.5 * 0.7 / 0.8).abs() < 1e-12);
        // The floor and the limit.
        let fused = fuse(&keyword, 4.0, &semantic, fusion, 0.3, 10);
        assert_eq!(fused.iter().map(|(id, _)| *id).collect::<Vec<_>>(), [3, 2]);
        assert!(fuse(&[], 0.0, &[], fusion, 0.0, 5).is_empty());
        assert!(fuse(&keyword, 4.0, &semantic, fusion, 0.0, 0).is_empty());
        // A zero ceiling (no query term) leaves the semantic side alone.
        assert_eq!(fuse(&keyword, 0.0, &semantic, fusion, 0.0, 5).len(), 1);
    }
}

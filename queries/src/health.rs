//! The health score of a store: one number, 0-100, for the admin panel and
//! `engram stats`.
//!
//! ```text
//! health = 100 * (0.30 * uniqueness + 0.25 * consistency
//!                 + 0.20 * review_success + 0.25 * trust)
//! ```
//!
//! over live memories (archived and forgotten ones do not count):
//!
//! - `uniqueness`: mean uniqueness score (a store of near-duplicates is
//!   unhealthy);
//! - `consistency`: `1 - open contradictions / live memories` (at least 0);
//! - `review_success`: the share of reviewed memories whose last grade
//!   was 3 or more (1 when nothing was reviewed yet);
//! - `trust`: mean trust.
//!
//! An empty store scores 100. Components are reported in thousandths.

use engram_projections::CoreViews;
use engram_projections::models::{
    MemoryStatus, MemoryTable, ReviewSchedule, TrustScores, Verdicts,
};

/// The score and its parts (parts in thousandths).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Health {
    pub score: u8,
    pub uniqueness: u16,
    pub consistency: u16,
    pub review_success: u16,
    pub trust: u16,
    /// Memories due for review by the time asked (stats ask for the end of
    /// the current UTC day).
    pub due_reviews: u64,
    pub open_contradictions: u64,
}

fn permille(x: f64) -> u16 {
    (x.clamp(0.0, 1.0) * 1000.0).round() as u16
}

/// The health of the store the views hold, with reviews due at `at_ms`.
#[must_use]
pub fn health(core: &CoreViews, at_ms: u64) -> Health {
    // In the views' lock order (`engram_projections::CoreViews`).
    let table = core.memory_table.read();
    let verdicts = core.verdicts.read();
    let trust = core.trust.read();
    let review = core.review.read();
    health_of(
        &table.state,
        &trust.state,
        &review.state,
        &verdicts.state,
        at_ms,
    )
}

/// The health of the four models it weighs, with reviews due at `at_ms`
/// (the series of [`crate::series`] folds its own copies of them).
#[must_use]
pub fn health_of(
    table: &MemoryTable,
    trust: &TrustScores,
    review: &ReviewSchedule,
    verdicts: &Verdicts,
    at_ms: u64,
) -> Health {
    let live: Vec<u64> = table
        .iter()
        .filter(|e| e.status == MemoryStatus::Live)
        .map(|e| e.id)
        .collect();
    let n = live.len() as f64;
    let mean = |f: &dyn Fn(u64) -> f64| {
        if live.is_empty() {
            1.0
        } else {
            live.iter().map(|&id| f(id)).sum::<f64>() / n
        }
    };
    let uniqueness = mean(&|id| {
        table
            .get(id)
            .map_or(1.0, |e| f64::from(e.uniqueness_permille) / 1000.0)
    });
    let trust_mean = mean(&|id| trust.trust(id).unwrap_or(0.0));
    let open = verdicts.open_count() as u64;
    let consistency = if live.is_empty() {
        1.0
    } else {
        1.0 - open as f64 / n
    };
    let graded: Vec<bool> = live
        .iter()
        .filter_map(|&id| review.get(id)?.last_grade.map(|g| g >= 3))
        .collect();
    let review_success = if graded.is_empty() {
        1.0
    } else {
        graded.iter().filter(|ok| **ok).count() as f64 / graded.len() as f64
    };
    let due_reviews = review
        .due(at_ms)
        .into_iter()
        .filter(|id| table.status(*id) == Some(MemoryStatus::Live) && !verdicts.is_overruled(*id))
        .count() as u64;
    let score = 100.0
        * (0.30 * uniqueness.clamp(0.0, 1.0)
            + 0.25 * consistency.clamp(0.0, 1.0)
            + 0.20 * review_success
            + 0.25 * trust_mean.clamp(0.0, 1.0));
    Health {
        score: score.round().clamp(0.0, 100.0) as u8,
        uniqueness: permille(uniqueness),
        consistency: permille(consistency),
        review_success: permille(review_success),
        trust: permille(trust_mean),
        due_reviews,
        open_contradictions: open,
    }
}

//! Best-first selection with a filter, shared by the text and vector
//! indexes: the filter (a memory-table lookup in recall) is asked only of
//! the best-scored window, widened fourfold while too few pass, instead of
//! of every scored candidate.

use std::cmp::Ordering;

use engram_log::MemoryId;

/// The best `limit` of `scored` (by `better`, best first) whose memory
/// `accept` lets through. `memory` reads a candidate's id.
pub(crate) fn best_accepted<T: Copy>(
    mut scored: Vec<T>,
    limit: usize,
    better: impl Fn(&T, &T) -> Ordering,
    memory: impl Fn(&T) -> MemoryId,
    accept: &dyn Fn(MemoryId) -> bool,
) -> Vec<T> {
    let mut window = (limit * 4).max(32);
    let mut from = 0;
    let mut hits = Vec::with_capacity(limit);
    while from < scored.len() && hits.len() < limit {
        let end = window.min(scored.len());
        let rest = &mut scored[from..];
        let take = end - from;
        if take < rest.len() {
            rest.select_nth_unstable_by(take - 1, &better);
        }
        let part = &mut rest[..take];
        part.sort_unstable_by(&better);
        for hit in part.iter() {
            if hits.len() == limit {
                break;
            }
            if accept(memory(hit)) {
                hits.push(*hit);
            }
        }
        from = end;
        window = window.saturating_mul(4);
    }
    hits
}

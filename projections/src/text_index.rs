//! The text index: BM25 over the words and CJK character bigrams of every
//! memory that was not forgotten.
//!
//! A memory is a reference into the session log, so the words it stands for
//! are not in its `Remembered` event. On `Remembered` the index reads the
//! referenced session events back from the log (an earlier, immutable,
//! verified prefix: the fold stays a pure function of the log) and indexes
//! their content, the summary and the tags with
//! [`engram_text::tokenize::index_terms`] (NFKC, case folding, words
//! stemmed, CJK bigrams). A `Forgotten` removes the memory's
//! postings and drops its text at once. Archived memories stay indexed;
//! recall decides from the memory table whether to show them.
//!
//! **Layout.** Documents get dense numbers in log order; each term maps to
//! its postings `(doc, term frequency)` in doc order, and document lengths
//! sit in their own dense array. A query scores into a dense array indexed
//! by doc number (no hashing on the hot path), then takes the best by
//! partial selection and asks the caller's filter only of those, widening
//! the selection when too few pass: the filter (a memory-table lookup) runs
//! on a few dozen memories, not on every memory the query touched.
//!
//! **Reading back.** The words of a memory are usually in a session event
//! just appended; the index keeps the content of the most recent
//! [`RECENT_TURNS`] session events (not persisted) and reads the log only
//! for older ones, so a rebuild does not re-read a frame per memory.
//!
//! **Scoring.** Okapi BM25 with `k1` = [`BM25_K1`], `b` = [`BM25_B`] (tuned
//! on the dev split of the retrieval corpus, `benches/corpus/retrieval`) and
//! `idf = ln(1 + (N - df + 0.5) / (df + 0.5))`, over the memories not
//! forgotten. Each distinct query term counts once; a score is summed
//! rarest term first (ties in query order), one order for every document.
//! Ties go to the older memory (lower id), so the order is total and
//! deterministic.
//!
//! **Pruning.** Terms are scored rarest first. Each term keeps a bound on
//! what one document can gain from it (its highest term frequency and
//! shortest document). Once the best accepted partial scores exceed what
//! the remaining terms could add, no untouched document can reach the
//! top, and the remaining common terms are looked up (galloping) for the
//! few documents still in reach instead of scanning postings that may
//! hold every memory: a sentence-long query (a save's neighbour search)
//! at 100k memories no longer walks the postings of "the" and "service".
//! The answer is the same with or without it, to the bit (proptest).
//!
//! **Sealed entries.** Each document keeps the MAC of what a model is handed
//! of its memory ([`crate::view_mac`]): its words here, and its summary,
//! tags, room, scope, source and seal in the memory table. Readers take the
//! words through [`TextIndex::verified_text`], which recomputes the MAC from
//! both views' entries and refuses a mismatch: an edited `views.redb` is
//! never handed out as if it were the log. A forget clears the MAC too, so a
//! forgotten document brought back to life does not verify.
//!
//! **Invariants**
//!
//! - `by_memory[m] = d` exactly when `docs[d].memory == m`.
//! - A forgotten document has no postings, no text and does not count in
//!   `live_docs` / `live_len`; its number is never reused.
//! - Postings of a term are sorted by doc number, without duplicates, and
//!   never empty (an emptied term is removed).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};

use engram_log::{Digest, Event, LogReader, LoggedEvent, MemoryId, Remembered};
use engram_text::tokenize::index_terms;
use redb::{ReadTransaction, WriteTransaction};
use serde::{Deserialize, Serialize};

use crate::best_first::best_accepted;
use crate::error::ViewError;
use crate::fold::snapshot;
use crate::models::{MemoryEntry, MemoryStatus};
use crate::view::{SNAPSHOTS, View, open_if_exists};
use crate::view_mac::{self, MemoryWords, RestatementWords, ViewKey};

/// Session events whose content the index keeps at hand for `Remembered`.
pub const RECENT_TURNS: usize = 4096;

/// BM25 term-frequency saturation.
pub const BM25_K1: f32 = 0.6;
/// BM25 length normalisation.
pub const BM25_B: f32 = 0.3;

/// BM25 parameters ([`TextIndexState::search_with`]); the default is
/// [`BM25_K1`], [`BM25_B`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bm25 {
    pub k1: f32,
    pub b: f32,
}

impl Default for Bm25 {
    fn default() -> Self {
        Self {
            k1: BM25_K1,
            b: BM25_B,
        }
    }
}

/// One indexed memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Doc {
    memory: MemoryId,
    /// Number of tokens (the BM25 document length).
    len: u32,
    live: bool,
    /// The referenced words (session events' content joined by newlines);
    /// empty once forgotten.
    text: String,
    /// The MAC of the memory's words and entry ([`crate::view_mac`]);
    /// unset once forgotten.
    mac: Digest,
    /// The other words indexed with `text` (tags, summary), so a forget
    /// finds the document's terms without scanning the whole vocabulary;
    /// empty once forgotten.
    extra: Vec<String>,
    /// Each restatement's terms that the memory's own words lack, with the
    /// seqs of the turns that said them (a `Reinforced` event's evidence),
    /// indexed once however many restatements say them: "Mia gets hives
    /// from mangoes" restating "Mia is allergic to mangoes" makes it found
    /// by "hives", and a restatement in the same words changes nothing.
    /// Dropped when those turns are purged (a replay then reads them
    /// erased); empty once forgotten.
    restated: Vec<Restated>,
}

/// Terms a restatement added to a document ([`Doc::restated`]), and its
/// words, shown with the memory when it is recalled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Restated {
    first_seq: u64,
    last_seq: u64,
    terms: Vec<String>,
    /// The words of the turns, as the log holds them.
    text: String,
    /// The MAC of `text` with the memory and the seqs
    /// ([`crate::view_mac::RestatementWords`]).
    mac: Digest,
}

/// The index's state: what is persisted as its snapshot.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextIndexState {
    docs: Vec<Doc>,
    /// `lens[d] == docs[d].len`, apart for the scoring loop's cache.
    lens: Vec<u32>,
    by_memory: BTreeMap<MemoryId, u32>,
    terms: BTreeMap<String, Postings>,
    live_docs: u64,
    live_len: u64,
}

/// A term's postings, and a bound on what its best document scores.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Postings {
    /// (doc number, term frequency), sorted by doc number.
    docs: Vec<(u32, u32)>,
    /// A cache beside the postings, not the view's content: a view is what
    /// its events say, and the rebuild after a purge never saw the erased
    /// words. Raised as documents are added, kept by a forget or a purge
    /// (still an upper bound), computed exactly when the view loads
    /// ([`TextIndexState::compute_bounds`]); decoded alone it is the
    /// loosest, which never prunes wrongly.
    #[serde(skip)]
    bound: Bound,
}

impl Postings {
    fn new() -> Self {
        Self {
            docs: Vec::new(),
            bound: Bound::EMPTY,
        }
    }
}

/// The postings are the content; the bound is not ([`Postings::bound`]).
impl PartialEq for Postings {
    fn eq(&self, other: &Self) -> bool {
        self.docs == other.docs
    }
}

impl Eq for Postings {}

/// What bounds one document's gain from a term: the highest term
/// frequency and the shortest document among those that held it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Bound {
    max_tf: u32,
    min_len: u32,
}

impl Bound {
    /// No document yet.
    const EMPTY: Self = Self {
        max_tf: 0,
        min_len: u32::MAX,
    };
    /// Nothing known: bounds every document.
    const LOOSEST: Self = Self {
        max_tf: u32::MAX,
        min_len: 0,
    };

    fn with(self, tf: u32, len: u32) -> Self {
        Self {
            max_tf: self.max_tf.max(tf),
            min_len: self.min_len.min(len),
        }
    }
}

impl Default for Bound {
    /// What a decoded posting list gets until [`TextIndexState::compute_bounds`].
    fn default() -> Self {
        Self::LOOSEST
    }
}

/// Whether a search prunes ([`TextIndexState::ranked`]): what a test
/// forces to compare both ways; the answer is the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pruning {
    /// Prune when the work it can save outweighs finding the floor.
    WhenWorthIt,
    /// Look for a floor after every term (tests).
    #[cfg(test)]
    Always,
    /// Score every posting (tests).
    #[cfg(test)]
    Never,
}

/// A query term the index holds, with its weight and the most one
/// document can gain from it.
struct QueryTerm<'a> {
    postings: &'a [(u32, u32)],
    idf: f32,
    bound: f32,
}

/// What a comparison of scores allows for rounding: a sum taken in another
/// order or a bound computed apart may differ from the exact score by a few
/// ulps; this is orders of magnitude more.
fn slack(score: f32) -> f32 {
    score.abs() * 1e-4 + 1e-6
}

/// How far [`seek`] gallops before it searches the whole list instead.
const NEAR_POSTINGS: usize = 32;

/// The first position at or after `from` whose doc is at least `doc`: `Ok`
/// when it is `doc`. `from` must follow a posting below `doc`. A doc near
/// `from` is found by galloping; a far one by a binary search of the whole
/// list, whose first probes are the same for every search and stay in
/// cache (a gallop over a list of 100,000 postings misses on every probe).
fn seek(postings: &[(u32, u32)], from: usize, doc: u32) -> Result<usize, usize> {
    debug_assert!(from == 0 || postings.get(from - 1).is_none_or(|&(d, _)| d < doc));
    let rest = postings.get(from..).unwrap_or_default();
    let mut end = 1;
    while end < rest.len() && rest[end - 1].0 < doc {
        if end >= NEAR_POSTINGS {
            return postings.binary_search_by_key(&doc, |&(d, _)| d);
        }
        end *= 2;
    }
    let start = end / 2;
    let end = end.min(rest.len());
    match rest[start..end].binary_search_by_key(&doc, |&(d, _)| d) {
        Ok(at) => Ok(from + start + at),
        Err(at) => Err(from + start + at),
    }
}

/// One scored memory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextHit {
    pub memory: MemoryId,
    pub score: f32,
}

thread_local! {
    /// The dense score array of [`TextIndexState::search_with`], kept per
    /// thread and all zeros between queries.
    static SCORES: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl TextIndexState {
    /// Number of memories indexed and not forgotten.
    #[must_use]
    pub fn live_count(&self) -> u64 {
        self.live_docs
    }

    /// The words memory `memory` stands for; `None` when unknown or forgotten.
    #[must_use]
    pub fn text(&self, memory: MemoryId) -> Option<&str> {
        let doc = self.docs.get(*self.by_memory.get(&memory)? as usize)?;
        doc.live.then_some(doc.text.as_str())
    }

    /// The best `limit` memories for `terms` (query terms, see
    /// [`engram_text::tokenize::query_terms`]) that `accept` lets through,
    /// best first.
    #[must_use]
    pub fn search(
        &self,
        terms: &[String],
        limit: usize,
        accept: impl Fn(MemoryId) -> bool,
    ) -> Vec<TextHit> {
        self.search_with(terms, limit, Bm25::default(), accept)
    }

    /// The sum of the idf of the distinct `terms`, a term no memory holds
    /// counting with df = 0: what a memory of average length holding each
    /// term once scores, the keyword side's scale in hybrid fusion. 0 with
    /// no terms or no memories.
    #[must_use]
    pub fn idf_sum(&self, terms: &[String]) -> f32 {
        if self.live_docs == 0 {
            return 0.0;
        }
        let n = self.live_docs as f32;
        let mut seen: Vec<&str> = Vec::with_capacity(terms.len());
        let mut sum = 0.0;
        for term in terms {
            if seen.contains(&term.as_str()) {
                continue;
            }
            seen.push(term);
            let df = self.terms.get(term).map_or(0, |p| p.docs.len()) as f32;
            sum += (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        }
        sum
    }

    /// [`TextIndexState::search`] with other BM25 parameters (for tuning).
    #[must_use]
    pub fn search_with(
        &self,
        terms: &[String],
        limit: usize,
        bm25: Bm25,
        accept: impl Fn(MemoryId) -> bool,
    ) -> Vec<TextHit> {
        self.ranked(terms, limit, bm25, Pruning::WhenWorthIt, &accept)
    }

    /// The search, scoring term at a time (rarest first) into a dense
    /// array. Once the `limit`-th best accepted partial score (a floor the
    /// final `limit`-th best cannot fall under) exceeds what the remaining
    /// terms can add to any document, documents no term touched yet are
    /// out, and the remaining (common) terms are looked up for the
    /// documents that can still reach the floor instead of scanning their
    /// postings: MaxScore's bound, taken term at a time. `pruning` changes
    /// the work, never the answer.
    fn ranked(
        &self,
        terms: &[String],
        limit: usize,
        bm25: Bm25,
        pruning: Pruning,
        accept: &dyn Fn(MemoryId) -> bool,
    ) -> Vec<TextHit> {
        let Bm25 { k1, b } = bm25;
        if limit == 0 || self.live_docs == 0 {
            return Vec::new();
        }
        let n = self.live_docs as f32;
        let avg_len = (self.live_len as f32 / n).max(1.0);
        let norm = |tf: u32, len: u32| {
            let tf = tf as f32;
            tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * len as f32 / avg_len))
        };
        // The distinct terms the index holds, rarest first, ties in query
        // order: the order every document's score is summed in.
        let mut query: Vec<QueryTerm<'_>> = Vec::with_capacity(terms.len());
        let mut seen: Vec<&str> = Vec::with_capacity(terms.len());
        for term in terms {
            if seen.contains(&term.as_str()) {
                continue;
            }
            seen.push(term);
            let Some(postings) = self.terms.get(term) else {
                continue;
            };
            let df = postings.docs.len() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            query.push(QueryTerm {
                postings: &postings.docs,
                idf,
                // The norm grows with tf and shrinks with length.
                bound: idf * norm(postings.bound.max_tf, postings.bound.min_len),
            });
        }
        query.sort_by_key(|t| t.postings.len());
        // What the terms from `i` on can add to one document, and how many
        // postings they hold.
        let mut left = vec![(0f32, 0usize); query.len() + 1];
        for i in (0..query.len()).rev() {
            left[i] = (
                left[i + 1].0 + query[i].bound,
                left[i + 1].1 + query[i].postings.len(),
            );
        }
        let better =
            |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0));
        let memory = |&(doc, _): &(u32, f32)| self.docs.get(doc as usize).map_or(0, |d| d.memory);
        SCORES.with_borrow_mut(|scores| {
            // One dense array per thread, zeroed where the last query wrote
            // (not allocated and zeroed whole per query: 400 KB at 100k).
            scores.resize(self.lens.len(), 0.0);
            let mut touched: Vec<u32> = Vec::new();
            // The highest partial score so far.
            let mut top = 0f32;
            // Once pruned: the floor, and the docs (ascending) that can
            // still reach it.
            let mut pruned: Option<(f32, Vec<u32>)> = None;
            for (i, term) in query.iter().enumerate() {
                let (rest, rest_postings) = left[i + 1];
                match &mut pruned {
                    None => {
                        for &(doc, tf) in term.postings {
                            let (Some(slot), Some(&len)) =
                                (scores.get_mut(doc as usize), self.lens.get(doc as usize))
                            else {
                                continue;
                            };
                            if *slot == 0.0 {
                                touched.push(doc);
                            }
                            *slot += term.idf * norm(tf, len);
                            top = top.max(*slot);
                        }
                        let worth_it = match pruning {
                            // Finding the floor costs a pass over the
                            // touched docs; pruning can save at most the
                            // remaining postings.
                            Pruning::WhenWorthIt => rest_postings > 2 * touched.len(),
                            #[cfg(test)]
                            Pruning::Always => true,
                            #[cfg(test)]
                            Pruning::Never => false,
                        };
                        if rest_postings == 0
                            || !worth_it
                            || touched.len() < limit
                            || top <= rest + slack(top)
                        {
                            continue;
                        }
                        // Only docs already past what the rest can add
                        // can set a floor that prunes: the few asked of
                        // `accept`, not every doc touched.
                        let past = rest + slack(rest);
                        let above: Vec<(u32, f32)> = touched
                            .iter()
                            .filter_map(|&doc| {
                                let score = scores.get(doc as usize).copied().unwrap_or(0.0);
                                (score > past).then_some((doc, score))
                            })
                            .collect();
                        if above.len() < limit {
                            continue;
                        }
                        let best = best_accepted(above, limit, better, memory, accept);
                        let Some(&(_, floor)) = best.get(limit - 1) else {
                            continue;
                        };
                        if floor <= rest + slack(floor) {
                            continue;
                        }
                        let mut alive: Vec<u32> = touched
                            .iter()
                            .copied()
                            .filter(|&doc| {
                                scores.get(doc as usize).copied().unwrap_or(0.0)
                                    + rest
                                    + slack(floor)
                                    >= floor
                            })
                            .collect();
                        alive.sort_unstable();
                        pruned = Some((floor, alive));
                    }
                    Some((floor, alive)) => {
                        let mut from = 0;
                        for &doc in alive.iter() {
                            match seek(term.postings, from, doc) {
                                Ok(at) => {
                                    from = at + 1;
                                    let tf = term.postings[at].1;
                                    if let (Some(slot), Some(&len)) =
                                        (scores.get_mut(doc as usize), self.lens.get(doc as usize))
                                    {
                                        *slot += term.idf * norm(tf, len);
                                    }
                                }
                                Err(at) => from = at,
                            }
                        }
                        // The floor rises with the scores: the limit-th
                        // best of the few still in reach.
                        if rest_postings > 0 && alive.len() > limit {
                            let partial: Vec<(u32, f32)> = alive
                                .iter()
                                .map(|&doc| (doc, scores.get(doc as usize).copied().unwrap_or(0.0)))
                                .collect();
                            let best = best_accepted(partial, limit, better, memory, accept);
                            if let Some(&(_, higher)) = best.get(limit - 1) {
                                *floor = floor.max(higher);
                            }
                        }
                        let floor = *floor;
                        alive.retain(|&doc| {
                            scores.get(doc as usize).copied().unwrap_or(0.0) + rest + slack(floor)
                                >= floor
                        });
                    }
                }
            }
            // Candidates by doc number: docs are numbered in memory order
            // (`add`), so the tie-break on doc is the tie-break on memory,
            // and only the few asked of `accept` touch their `Doc`.
            let pool = pruned.as_ref().map_or(&touched, |(_, alive)| alive);
            let scored: Vec<(u32, f32)> = pool
                .iter()
                .filter_map(|&doc| {
                    let score = scores.get(doc as usize).copied().unwrap_or(0.0);
                    ((doc as usize) < self.docs.len() && score > 0.0).then_some((doc, score))
                })
                .collect();
            for &doc in &touched {
                if let Some(slot) = scores.get_mut(doc as usize) {
                    *slot = 0.0;
                }
            }
            debug_assert!(scores.iter().all(|&s| s == 0.0));
            best_accepted(scored, limit, better, memory, accept)
                .into_iter()
                .map(|hit| TextHit {
                    memory: memory(&hit),
                    score: hit.1,
                })
                .collect()
        })
    }

    /// Every term's bound from its postings as they are: after a load, the
    /// decoded postings carry none.
    fn compute_bounds(&mut self) {
        let lens = &self.lens;
        for postings in self.terms.values_mut() {
            postings.bound = postings
                .docs
                .iter()
                .fold(Bound::EMPTY, |bound, &(doc, tf)| {
                    bound.with(tf, lens.get(doc as usize).copied().unwrap_or(0))
                });
        }
    }

    fn add(&mut self, memory: MemoryId, text: String, extra: &[&str], mac: Digest) {
        if self.by_memory.contains_key(&memory) {
            return;
        }
        debug_assert!(
            self.docs.last().is_none_or(|last| last.memory < memory),
            "docs are numbered in memory order (search breaks ties on doc)"
        );
        let Ok(doc) = u32::try_from(self.docs.len()) else {
            // 4 billion memories: far past what one store holds.
            return;
        };
        // Every term of the document, sorted: equal terms are then runs,
        // counted in one pass, in the order a map of counts would give
        // them (a few terms per memory: cheaper than a tree of them).
        let mut all: Vec<String> = Vec::new();
        for part in std::iter::once(text.as_str()).chain(extra.iter().copied()) {
            all.extend(index_terms(part));
        }
        let len = u32::try_from(all.len()).unwrap_or(u32::MAX);
        all.sort_unstable();
        let mut terms = all.into_iter().peekable();
        while let Some(term) = terms.next() {
            let mut tf = 1u32;
            while terms.next_if_eq(&term).is_some() {
                tf = tf.saturating_add(1);
            }
            let add = |postings: &mut Postings| {
                postings.docs.push((doc, tf));
                postings.bound = postings.bound.with(tf, len);
            };
            match self.terms.get_mut(term.as_str()) {
                Some(postings) => add(postings),
                None => {
                    let mut postings = Postings::new();
                    add(&mut postings);
                    self.terms.insert(term, postings);
                }
            }
        }
        self.by_memory.insert(memory, doc);
        self.lens.push(len);
        self.docs.push(Doc {
            memory,
            len,
            live: true,
            text,
            mac,
            extra: extra.iter().map(|&e| e.to_owned()).collect(),
            restated: Vec::new(),
        });
        self.live_docs += 1;
        self.live_len += u64::from(len);
    }

    /// Adds to `memory`'s live document the terms of `words` (a
    /// restatement's, said by the turns `first_seq..=last_seq`) that its
    /// own words lack, each once however many restatements say it (see
    /// [`Doc::restated`]).
    fn restate(
        &mut self,
        memory: MemoryId,
        first_seq: u64,
        last_seq: u64,
        words: String,
        mac: Digest,
    ) {
        let Some((doc, entry)) = self.live_doc(memory) else {
            return;
        };
        let own = own_terms(entry);
        let terms: BTreeSet<String> = index_terms(&words)
            .into_iter()
            .filter(|term| !own.contains(term))
            .collect();
        if terms.is_empty() {
            return;
        }
        debug_assert!(!words.trim().is_empty(), "terms come from words");
        let held: BTreeSet<&String> = entry.restated.iter().flat_map(|r| &r.terms).collect();
        let new: Vec<String> = terms
            .iter()
            .filter(|t| !held.contains(t))
            .cloned()
            .collect();
        let added = u32::try_from(new.len()).unwrap_or(u32::MAX);
        let len = entry.len.saturating_add(added);
        for term in new {
            let postings = self.terms.entry(term).or_insert_with(Postings::new);
            // The document is older than most in the postings: its place
            // by number keeps the list sorted by doc.
            if let Err(at) = postings.docs.binary_search_by_key(&doc, |&(d, _)| d) {
                postings.docs.insert(at, (doc, 1));
            }
            postings.bound = postings.bound.with(1, len);
        }
        self.live_len += u64::from(added);
        self.lens[doc as usize] = len;
        let entry = &mut self.docs[doc as usize];
        entry.len = len;
        entry.restated.push(Restated {
            first_seq,
            last_seq,
            terms: terms.into_iter().collect(),
            text: words,
            mac,
        });
    }

    /// Takes out of every document what restatements said by any of `seqs`
    /// added and no other restatement of it says: what a replay reading
    /// those turns erased would hold.
    fn unrestate(&mut self, seqs: &BTreeSet<u64>) {
        let said_by_purged = |r: &Restated| seqs.range(r.first_seq..=r.last_seq).next().is_some();
        for doc in 0..self.docs.len() {
            let entry = &mut self.docs[doc];
            if !entry.restated.iter().any(said_by_purged) {
                continue;
            }
            let (gone, kept): (Vec<Restated>, Vec<Restated>) = std::mem::take(&mut entry.restated)
                .into_iter()
                .partition(said_by_purged);
            entry.restated = kept;
            let still: BTreeSet<&String> = entry.restated.iter().flat_map(|r| &r.terms).collect();
            let dropped: BTreeSet<&String> = gone
                .iter()
                .flat_map(|r| &r.terms)
                .filter(|t| !still.contains(t))
                .collect();
            let removed = u32::try_from(dropped.len()).unwrap_or(u32::MAX);
            entry.len = entry.len.saturating_sub(removed);
            self.lens[doc] = entry.len;
            if entry.live {
                self.live_len -= u64::from(removed);
            }
            let Ok(doc) = u32::try_from(doc) else {
                continue;
            };
            for term in dropped {
                self.drop_posting(term, doc);
            }
        }
    }

    /// `memory`'s document, when it is live: its number and entry.
    fn live_doc(&self, memory: MemoryId) -> Option<(u32, &Doc)> {
        let &doc = self.by_memory.get(&memory)?;
        let entry = self.docs.get(doc as usize)?;
        entry.live.then_some((doc, entry))
    }

    /// Takes `doc` out of `term`'s postings, and the term out of the index
    /// when no document holds it any more.
    fn drop_posting(&mut self, term: &str, doc: u32) {
        let Some(postings) = self.terms.get_mut(term) else {
            return;
        };
        if let Ok(at) = postings.docs.binary_search_by_key(&doc, |&(d, _)| d) {
            postings.docs.remove(at);
        }
        if postings.docs.is_empty() {
            self.terms.remove(term);
        }
    }

    /// Drops a purged memory's document as [`Self::remove`] does, and its
    /// length too: what indexing its erased words (none) would have left.
    fn erase(&mut self, memory: MemoryId) {
        self.remove(memory);
        let Some(&doc) = self.by_memory.get(&memory) else {
            return;
        };
        if let Some(entry) = self.docs.get_mut(doc as usize) {
            entry.len = 0;
        }
        if let Some(len) = self.lens.get_mut(doc as usize) {
            *len = 0;
        }
    }

    fn remove(&mut self, memory: MemoryId) {
        let Some((doc, entry)) = self.live_doc(memory) else {
            return;
        };
        // The document's terms are those of its words, as `add` found
        // them, and those restatements added: only their postings change
        // (not every term's).
        let mut terms = own_terms(entry);
        terms.extend(entry.restated.iter().flat_map(|r| r.terms.iter().cloned()));
        let entry = &mut self.docs[doc as usize];
        entry.live = false;
        // Emptied, their memory freed: a forgotten document keeps no words.
        entry.text = String::new();
        entry.extra = Vec::new();
        entry.restated = Vec::new();
        entry.mac = view_mac::UNSET;
        self.live_docs -= 1;
        self.live_len -= u64::from(entry.len);
        for term in terms {
            self.drop_posting(&term, doc);
        }
    }
}

/// The terms of a document's own words (its text, tags and summary), as
/// `add` indexed them.
fn own_terms(doc: &Doc) -> BTreeSet<String> {
    std::iter::once(doc.text.as_str())
        .chain(doc.extra.iter().map(String::as_str))
        .flat_map(index_terms)
        .collect()
}

/// A memory's words as the index keeps them: the content of the turns of
/// `session` among `turns` (session, content), joined by newlines.
fn join_turns<'a>(session: &str, turns: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let mut text = String::new();
    for (turn_session, content) in turns {
        if turn_session == session {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(content);
        }
    }
    text
}

/// The words the events a memory references stand for, as the index
/// keeps them (the session turns of its reference, joined by newlines).
#[must_use]
pub fn referenced_text(reference: &engram_log::MemoryRef, events: &[LoggedEvent]) -> String {
    join_turns(
        &reference.session,
        events.iter().filter_map(|logged| match &logged.event {
            Event::Session(turn) => Some((turn.session.as_str(), turn.content.as_str())),
            _ => None,
        }),
    )
}

/// The text index view: the state plus the log it reads referenced words
/// from and the key of its entries' MACs.
pub struct TextIndex {
    reader: LogReader,
    key: ViewKey,
    pub state: TextIndexState,
    /// seq -> (session, content) of the latest session events; a cache,
    /// never persisted, never changing what is indexed.
    recent: BTreeMap<u64, (String, String)>,
    /// The seq from which `recent` holds every session event applied: a
    /// seq at or past it that `recent` lacks is no session event, so a
    /// memory naming a range with other events in it (a recall between
    /// two turns) is answered here too. `None` until an event is applied.
    recent_from: Option<u64>,
    /// `verified[d]`: document `d` and its memory-table entry matched their
    /// MAC once since the state was loaded, so [`TextIndex::verified_text`]
    /// need not compute it again. Sound because both views are folds held
    /// in memory: the only way altered bytes get in is a snapshot load,
    /// which clears these flags, and the fields the MAC covers are those of
    /// the `Remembered` event, which no later event changes.
    verified: Vec<AtomicBool>,
}

impl std::fmt::Debug for TextIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextIndex")
            .field("live", &self.state.live_docs)
            .finish_non_exhaustive()
    }
}

impl TextIndex {
    /// Stable name: the key of the persisted snapshot.
    pub const NAME: &'static str = "text_index";
    /// Code version: bump when `apply`, tokenization or the layout changes.
    /// 3: each document keeps the MAC of its memory's words and entry.
    /// 4: terms NFKC-normalized and stemmed (`index_terms`).
    /// 5: each document keeps its tags and summary (a forget touches only
    /// its own terms).
    /// 6: a starter that decomposes into marks is normalized with the marks
    /// before it (`tokenize`).
    /// 7: a restatement's words the memory lacks are indexed with it
    /// (`Doc::restated`). 8: and its text is kept, with a view MAC, for
    /// recall to show.
    pub const VERSION: u32 = 8;

    /// An empty index reading referenced words from `reader`, its MACs keyed
    /// from the reader's key.
    #[must_use]
    pub fn new(reader: LogReader) -> Self {
        Self {
            key: ViewKey::of(reader.key()),
            reader,
            state: TextIndexState::default(),
            recent: BTreeMap::new(),
            recent_from: None,
            verified: Vec::new(),
        }
    }

    /// One flag per document, all unset past those already checked.
    fn size_verified(&mut self) {
        self.verified
            .resize_with(self.state.docs.len(), || AtomicBool::new(false));
    }

    /// The words of the turns `reference` names, read by the event at
    /// `seq` (a reference to itself or later reads none).
    fn referenced_words(
        &self,
        reference: &engram_log::MemoryRef,
        seq: u64,
    ) -> Result<String, ViewError> {
        if reference.first_seq < 1
            || reference.first_seq > reference.last_seq
            || reference.last_seq >= seq
        {
            return Ok(String::new());
        }
        let seqs = reference.first_seq..=reference.last_seq;
        // Only when the cache holds every session event of the range:
        // then it gives exactly what the log would.
        let cached = self
            .recent_from
            .is_some_and(|from| from <= reference.first_seq);
        Ok(if cached {
            join_turns(
                &reference.session,
                self.recent
                    .range(seqs)
                    .map(|(_, (session, content))| (session.as_str(), content.as_str())),
            )
        } else {
            referenced_text(reference, &self.reader.read(seqs)?)
        })
    }

    fn remembered(&mut self, memory: MemoryId, r: &Remembered) -> Result<(), ViewError> {
        let text = self.referenced_words(&r.reference, memory)?;
        let mut extra: Vec<&str> = r.tags.iter().map(String::as_str).collect();
        if let Some(summary) = &r.summary {
            extra.push(summary);
        }
        let mac = self
            .key
            .memory_mac(&MemoryWords::remembered(memory, r, &text));
        self.state.add(memory, text, &extra, mac);
        Ok(())
    }

    /// The live document of the memory `entry` describes.
    fn live_doc_of(&self, entry: &MemoryEntry) -> Option<&Doc> {
        self.state
            .live_doc(entry.id)
            .map(|(_, doc)| doc)
            .filter(|doc| doc.memory == entry.id)
    }

    /// Checks that `entry` is the one the projector saw for its memory,
    /// with `text` as its words: the MAC kept with its document must match.
    /// Expand checks an entry this way with the words it read back from the
    /// sealed log (see [`referenced_text`]), so a memory table whose seal
    /// or reference was swapped for another memory's is caught.
    ///
    /// # Errors
    /// [`ViewError::Tampered`] naming the memory.
    pub fn verify_entry(&self, entry: &MemoryEntry, text: &str) -> Result<(), ViewError> {
        let tampered = ViewError::Tampered {
            memory: entry.id,
            reason: "its entry does not match the MAC the projector kept".to_owned(),
        };
        let doc = self.live_doc_of(entry).ok_or_else(|| ViewError::Tampered {
            memory: entry.id,
            reason: "the text index has no live entry for it".to_owned(),
        })?;
        if self
            .key
            .memory_mac_matches(&MemoryWords::entry(entry, text), &doc.mac)
        {
            Ok(())
        } else {
            Err(tampered)
        }
    }

    /// The words of the memory `entry` describes, once the MAC the projector
    /// kept proves that they and the entry's summary, tags, room, scope,
    /// source and seal are what the log holds. A forgotten or purged memory
    /// has no words (`Ok(None)`).
    ///
    /// # Errors
    /// [`ViewError::Tampered`] naming the memory when the views were altered
    /// outside engram (or hold no words for a memory that is not forgotten).
    pub fn verified_text(&self, entry: &MemoryEntry) -> Result<Option<&str>, ViewError> {
        if matches!(entry.status, MemoryStatus::Forgotten | MemoryStatus::Purged) {
            return Ok(None);
        }
        let tampered = |reason: &str| ViewError::Tampered {
            memory: entry.id,
            reason: reason.to_owned(),
        };
        let (at, doc) = self
            .state
            .by_memory
            .get(&entry.id)
            .and_then(|&d| Some((d as usize, self.state.docs.get(d as usize)?)))
            .filter(|(_, doc)| doc.memory == entry.id)
            .ok_or_else(|| tampered("the text index has no entry for it"))?;
        if !doc.live {
            return Err(tampered(
                "the text index holds it as forgotten, the memory table does not",
            ));
        }
        let checked = self.verified.get(at);
        if checked.is_some_and(|flag| flag.load(Ordering::Acquire)) {
            debug_assert!(
                self.key
                    .memory_mac_matches(&MemoryWords::entry(entry, &doc.text), &doc.mac),
                "memory {} was verified once and no longer matches its MAC",
                entry.id
            );
            return Ok(Some(&doc.text));
        }
        if !self
            .key
            .memory_mac_matches(&MemoryWords::entry(entry, &doc.text), &doc.mac)
        {
            return Err(tampered(
                "its words or entry do not match the MAC the projector kept",
            ));
        }
        if let Some(flag) = checked {
            flag.store(true, Ordering::Release);
        }
        Ok(Some(&doc.text))
    }

    /// The words of the `latest` turns that restated the memory `entry`
    /// describes and said something its own words do not (oldest first),
    /// each once the MAC the projector kept with it proves it is what the
    /// log holds. None for a forgotten or purged memory.
    ///
    /// # Errors
    /// [`ViewError::Tampered`] naming the memory when the views were altered
    /// outside engram.
    pub fn verified_restatements(
        &self,
        entry: &MemoryEntry,
        latest: usize,
    ) -> Result<Vec<&str>, ViewError> {
        if matches!(entry.status, MemoryStatus::Forgotten | MemoryStatus::Purged) {
            return Ok(Vec::new());
        }
        let Some(doc) = self.live_doc_of(entry) else {
            return Ok(Vec::new());
        };
        // Every restatement kept added terms, so it has words.
        doc.restated[doc.restated.len().saturating_sub(latest)..]
            .iter()
            .map(|r| {
                let words = RestatementWords::new(entry.id, r.first_seq, r.last_seq, &r.text);
                if self.key.restatement_mac_matches(&words, &r.mac) {
                    Ok(r.text.as_str())
                } else {
                    Err(ViewError::Tampered {
                        memory: entry.id,
                        reason: format!(
                            "its restatement by seqs {}..={} does not match the MAC the projector kept",
                            r.first_seq, r.last_seq
                        ),
                    })
                }
            })
            .collect()
    }
}

impl View for TextIndex {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn version(&self) -> u32 {
        Self::VERSION
    }

    fn apply(&mut self, event: &LoggedEvent) -> Result<(), ViewError> {
        self.recent_from.get_or_insert(event.seq);
        match &event.event {
            Event::Session(turn) => {
                self.recent
                    .insert(event.seq, (turn.session.clone(), turn.content.clone()));
                if self.recent.len() > RECENT_TURNS
                    && let Some((dropped, _)) = self.recent.pop_first()
                {
                    self.recent_from = Some(dropped + 1);
                }
            }
            Event::Remembered(r) => {
                self.remembered(event.seq, r)?;
                self.size_verified();
            }
            Event::Forgotten(f) => self.state.remove(f.memory),
            Event::Reinforced(r) => {
                if let Some(evidence) = &r.evidence {
                    let words = self.referenced_words(evidence, event.seq)?;
                    let mac = self.key.restatement_mac(&RestatementWords::new(
                        r.memory,
                        evidence.first_seq,
                        evidence.last_seq,
                        &words,
                    ));
                    self.state
                        .restate(r.memory, evidence.first_seq, evidence.last_seq, words, mac);
                }
            }
            Event::Purged(p) => {
                let subjects: BTreeSet<u64> = p.subjects.iter().copied().collect();
                self.state.unrestate(&subjects);
                for &memory in &p.memories {
                    self.state.erase(memory);
                }
                // The cache of recent turns answers as the log would: an
                // erased turn's words are empty.
                for seq in &p.subjects {
                    if let Some((_, content)) = self.recent.get_mut(seq) {
                        content.clear();
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn persist(&mut self, txn: &WriteTransaction) -> Result<(), ViewError> {
        let bytes = snapshot::encode_value(&self.state).map_err(|e| ViewError::Snapshot {
            view: Self::NAME,
            reason: e.to_string(),
        })?;
        txn.open_table(SNAPSHOTS)?
            .insert(Self::NAME, bytes.as_slice())?;
        Ok(())
    }

    fn load(&mut self, txn: &ReadTransaction) -> Result<(), ViewError> {
        let bytes = match open_if_exists(txn, SNAPSHOTS)? {
            Some(table) => table.get(Self::NAME)?.map(|b| b.value().to_vec()),
            None => None,
        };
        self.state = match bytes {
            Some(bytes) => snapshot::decode_value(&bytes).map_err(|e| ViewError::Snapshot {
                view: Self::NAME,
                reason: e.to_string(),
            })?,
            None => TextIndexState::default(),
        };
        self.state.compute_bounds();
        self.recent.clear();
        self.recent_from = None;
        self.verified.clear();
        self.size_verified();
        Ok(())
    }

    fn clear(&mut self, txn: &WriteTransaction) -> Result<(), ViewError> {
        txn.open_table(SNAPSHOTS)?.remove(Self::NAME)?;
        self.state = TextIndexState::default();
        self.recent.clear();
        self.recent_from = None;
        self.verified.clear();
        Ok(())
    }

    /// One entry per document (`memory <id>`, in doc order), then the
    /// postings (`terms`) and the statistics.
    fn entries(&self) -> Result<Vec<(String, Vec<u8>)>, ViewError> {
        fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, ViewError> {
            snapshot::encode_value(value).map_err(|e| ViewError::Snapshot {
                view: TextIndex::NAME,
                reason: e.to_string(),
            })
        }
        let state = &self.state;
        let mut out = Vec::with_capacity(state.docs.len() + 2);
        for doc in &state.docs {
            out.push((format!("memory {}", doc.memory), encode(doc)?));
        }
        out.push(("terms".to_owned(), encode(&state.terms)?));
        let statistics = (
            &state.lens,
            &state.by_memory,
            state.live_docs,
            state.live_len,
        );
        out.push(("statistics".to_owned(), encode(&statistics)?));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engram_text::tokenize::query_terms;

    fn index(texts: &[&str]) -> TextIndexState {
        let mut state = TextIndexState::default();
        for (i, text) in texts.iter().enumerate() {
            state.add(i as u64 + 1, (*text).to_owned(), &[], view_mac::UNSET);
        }
        state
    }

    fn ids(hits: &[TextHit]) -> Vec<MemoryId> {
        hits.iter().map(|h| h.memory).collect()
    }

    fn found(state: &TextIndexState, query: &str) -> Vec<MemoryId> {
        ids(&state.search(&query_terms(query), 10, |_| true))
    }

    /// Restates `memory` with `words` said by the turns `first..=last`,
    /// their MAC made as the projector makes it.
    fn restate(state: &mut TextIndexState, memory: MemoryId, first: u64, last: u64, words: &str) {
        let key = ViewKey::of(&engram_log::HmacKey::from_bytes([3; 32]));
        let mac = key.restatement_mac(&RestatementWords::new(memory, first, last, words));
        state.restate(memory, first, last, words.to_owned(), mac);
    }

    /// A restatement's words the memory lacks make it found by them; the
    /// same words again, or words it holds, change nothing; a forget takes
    /// them with the memory.
    #[test]
    fn a_restatement_adds_the_words_its_memory_lacks() {
        let mut state = index(&["Mia is allergic to mangoes", "Bob plays the cello"]);
        assert!(found(&state, "hives").is_empty());
        let before = state.clone();
        restate(&mut state, 1, 10, 10, "Mia is allergic to mangoes");
        assert_eq!(
            state, before,
            "a restatement in the same words adds nothing"
        );
        restate(&mut state, 1, 11, 11, "Mia gets hives from mangoes");
        assert_eq!(found(&state, "hives"), [1]);
        assert_eq!(found(&state, "cello"), [2]);
        let once = state.clone();
        restate(&mut state, 1, 12, 12, "hives again, Mia");
        assert_eq!(
            state.docs[0].len,
            once.docs[0].len + 1,
            "only `again` is new: `hives` counts once"
        );
        state.remove(1);
        assert!(found(&state, "hives").is_empty());
        assert!(found(&state, "again").is_empty());
        assert_eq!(found(&state, "cello"), [2]);
        assert!(!state.terms.contains_key("hive") && !state.terms.contains_key("hives"));
    }

    /// A purge of the turns that said a restatement leaves the index as a
    /// replay reading them erased would: the restatement as never said,
    /// what another restatement of the memory says kept.
    #[test]
    fn a_purged_restatement_leaves_what_a_replay_would() {
        let mut live = index(&["Mia is allergic to mangoes", "Bob plays the cello"]);
        restate(&mut live, 1, 10, 11, "Mia gets hives from mangoes");
        restate(&mut live, 1, 12, 12, "the hives last a day");
        restate(&mut live, 2, 13, 13, "Bob plays the cello on Sundays");
        live.unrestate(&BTreeSet::from([11]));
        // The replay: the first restatement's turns read as erased.
        let mut replayed = index(&["Mia is allergic to mangoes", "Bob plays the cello"]);
        restate(&mut replayed, 1, 10, 11, "");
        restate(&mut replayed, 1, 12, 12, "the hives last a day");
        restate(&mut replayed, 2, 13, 13, "Bob plays the cello on Sundays");
        assert_eq!(live, replayed);
        assert_eq!(
            found(&live, "hives"),
            [1],
            "the second restatement says it too"
        );
        assert!(found(&live, "gets").is_empty());
        assert_eq!(found(&live, "sundays"), [2]);
        assert_eq!(live.live_len, replayed.live_len);
        assert_eq!(live.lens, replayed.lens);
    }

    /// Applies every event of `log` to a fresh index, as a rebuild does.
    fn index_of_log(log: &engram_log::Log) -> TextIndex {
        let mut index = TextIndex::new(log.reader().clone());
        for event in log.replay(1) {
            index.apply(&event.unwrap()).unwrap();
        }
        index
    }

    fn remembered(first_seq: u64, last_seq: u64) -> Event {
        let Event::Remembered(mut r) =
            crate::models::testkit::remember(engram_log::Tier::L3, engram_log::Source::User)
        else {
            unreachable!("remember makes a Remembered event");
        };
        r.reference.first_seq = first_seq;
        r.reference.last_seq = last_seq;
        Event::Remembered(r)
    }

    #[test]
    fn a_memory_gets_the_words_of_its_turns_cached_or_gone_from_the_cache() {
        use crate::models::testkit::{reinforce, session};
        let log = engram_log::Log::open(
            std::sync::Arc::new(engram_log::MemStorage::new()),
            engram_log::LogConfig::new(engram_log::HmacKey::from_bytes([3; 32]))
                .durability(engram_log::Durability::None),
        )
        .unwrap();
        // 1-3: two turns with another event between them.
        log.append(&[
            session("apricot orchard"),
            reinforce(1),
            session("quince jelly"),
        ])
        .unwrap();
        // 4: a memory of 1..=3, its turns still cached.
        log.append(&[remembered(1, 3)]).unwrap();
        // Enough turns that the cache lets 1..=3 go, then a memory of 1..=3
        // again (its words read from the log) and one of the last turns
        // with another event between them (cached).
        let filler: Vec<Event> = (0..RECENT_TURNS + 2)
            .map(|n| session(&format!("filler {n}")))
            .collect();
        log.append(&filler).unwrap();
        let last = log.last_seq();
        log.append(&[reinforce(1), session("walnut bread"), remembered(1, 3)])
            .unwrap();
        log.append(&[remembered(last, last + 2)]).unwrap();
        let index = index_of_log(&log);
        let early = last + 3;
        let late = last + 4;
        assert_eq!(index.state.text(4), index.state.text(early));
        let words = index.state.text(4).unwrap_or_default();
        assert!(
            words.contains("apricot orchard") && words.contains("quince jelly"),
            "{words}"
        );
        let words = index.state.text(late).unwrap_or_default();
        assert!(
            words.contains(&format!("filler {}", RECENT_TURNS + 1))
                && words.contains("walnut bread"),
            "{words}"
        );
    }

    proptest::proptest! {
        /// A forget takes out exactly the postings a scan of every term
        /// would (the document's, found from its words, tags and summary).
        #[test]
        fn a_forget_takes_out_the_postings_a_full_scan_would(
            docs in proptest::collection::vec(
                ("[a-e ]{0,24}", proptest::collection::vec("[a-f]{1,3}", 0..3), proptest::option::of("[c-h ]{0,12}")),
                1..12,
            ),
            forgets in proptest::collection::vec(0u64..14, 0..8),
        ) {
            let mut state = TextIndexState::default();
            for (i, (text, tags, summary)) in docs.iter().enumerate() {
                let mut extra: Vec<&str> = tags.iter().map(String::as_str).collect();
                extra.extend(summary.as_deref());
                state.add(i as u64 + 1, text.clone(), &extra, view_mac::UNSET);
            }
            for memory in forgets {
                let mut scanned = state.terms.clone();
                if let Some(&doc) = state.by_memory.get(&memory)
                    && state.docs[doc as usize].live
                {
                    scanned.retain(|_, postings| {
                        postings.docs.retain(|&(d, _)| d != doc);
                        !postings.docs.is_empty()
                    });
                }
                state.remove(memory);
                proptest::prop_assert_eq!(&state.terms, &scanned);
            }
        }
    }

    proptest::proptest! {
        /// A search gives what scoring every live document by the formula
        /// gives: the best `limit` the filter accepts, by score, ties to the
        /// older memory; twice in a row (the score array starts clean).
        #[test]
        fn a_search_ranks_as_scoring_every_document_does(
            texts in proptest::collection::vec("[a-d ]{0,16}", 1..40),
            forgets in proptest::collection::vec(1u64..41, 0..10),
            query in proptest::collection::vec("[a-e]", 1..4),
            limit in 1usize..8,
            skip_every in 2u64..5,
        ) {
            let mut state = TextIndexState::default();
            for (i, text) in texts.iter().enumerate() {
                state.add(i as u64 + 1, text.clone(), &[], view_mac::UNSET);
            }
            for &memory in &forgets {
                state.remove(memory);
            }
            let accept = |memory: MemoryId| !memory.is_multiple_of(skip_every);
            let terms: Vec<String> = query.iter().flat_map(|q| query_terms(q)).collect();
            // Every live document scored by the formula, terms in query order.
            let live: Vec<(MemoryId, Vec<String>)> = texts
                .iter()
                .enumerate()
                .map(|(i, text)| (i as u64 + 1, index_terms(text)))
                .filter(|(memory, _)| !forgets.contains(memory))
                .collect();
            let n = live.len() as f32;
            let avg_len = (live.iter().map(|(_, t)| t.len()).sum::<usize>() as f32 / n.max(1.0)).max(1.0);
            let Bm25 { k1, b } = Bm25::default();
            let mut unique: Vec<&String> = Vec::new();
            for term in &terms {
                if !unique.contains(&term) {
                    unique.push(term);
                }
            }
            // Summed rarest first, ties in query order.
            let df_of = |term: &String| live.iter().filter(|(_, t)| t.contains(term)).count();
            unique.sort_by_key(|term| df_of(term));
            let mut want: Vec<TextHit> = live
                .iter()
                .filter(|(memory, _)| accept(*memory))
                .filter_map(|(memory, doc_terms)| {
                    let mut score = 0f32;
                    for term in &unique {
                        let df = live.iter().filter(|(_, t)| t.contains(term)).count() as f32;
                        let tf = doc_terms.iter().filter(|t| t == term).count() as f32;
                        if tf == 0.0 {
                            continue;
                        }
                        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                        let len = doc_terms.len() as f32;
                        score += idf * (tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * len / avg_len)));
                    }
                    (score > 0.0).then_some(TextHit { memory: *memory, score })
                })
                .collect();
            want.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.memory.cmp(&b.memory)));
            want.truncate(limit);
            let got = state.search(&terms, limit, accept);
            proptest::prop_assert_eq!(ids(&got), ids(&want));
            for (g, w) in got.iter().zip(&want) {
                proptest::prop_assert!((g.score - w.score).abs() <= 1e-4 * w.score.abs().max(1.0));
            }
            proptest::prop_assert_eq!(ids(&state.search(&terms, limit, accept)), ids(&want));
        }

        /// Pruning changes the work, never the answer: a search that looks
        /// for a floor after every term returns the same memories with the
        /// same scores, to the bit, as one that scores every posting.
        #[test]
        fn a_pruned_search_answers_as_a_full_one(
            texts in proptest::collection::vec(
                proptest::collection::vec(proptest::sample::select(&["ant", "bee", "cat", "dog", "eel", "fox", "gnu"][..]), 0..12),
                1..120,
            ),
            forgets in proptest::collection::vec(1u64..121, 0..20),
            query in proptest::collection::vec(proptest::sample::select(&["ant", "bee", "cat", "dog", "eel", "fox", "gnu", "yak"][..]), 1..7),
            limit in 1usize..12,
            skip_every in 2u64..7,
        ) {
            let mut state = TextIndexState::default();
            for (i, words) in texts.iter().enumerate() {
                state.add(i as u64 + 1, words.join(" "), &[], view_mac::UNSET);
            }
            for &memory in &forgets {
                state.remove(memory);
            }
            let accept = |memory: MemoryId| !memory.is_multiple_of(skip_every);
            let terms: Vec<String> = query.iter().map(|&q| q.to_owned()).collect();
            let bm25 = Bm25::default();
            let full = state.ranked(&terms, limit, bm25, Pruning::Never, &accept);
            let pruned = state.ranked(&terms, limit, bm25, Pruning::Always, &accept);
            let bits = |hits: &[TextHit]| hits.iter().map(|h| (h.memory, h.score.to_bits())).collect::<Vec<_>>();
            proptest::prop_assert_eq!(bits(&pruned), bits(&full));
            let chosen = state.ranked(&terms, limit, bm25, Pruning::WhenWorthIt, &accept);
            proptest::prop_assert_eq!(bits(&chosen), bits(&full));
            // As a loaded view: the snapshot holds no bounds; decoded alone
            // they are the loosest, then computed from the postings.
            let bytes = snapshot::encode_value(&state).unwrap();
            let mut loaded: TextIndexState = snapshot::decode_value(&bytes).unwrap();
            let pruned = loaded.ranked(&terms, limit, bm25, Pruning::Always, &accept);
            proptest::prop_assert_eq!(bits(&pruned), bits(&full));
            loaded.compute_bounds();
            let pruned = loaded.ranked(&terms, limit, bm25, Pruning::Always, &accept);
            proptest::prop_assert_eq!(bits(&pruned), bits(&full));
            proptest::prop_assert_eq!(&loaded, &state);
        }
    }

    /// The bound is no part of the snapshot: postings encode as version 5
    /// wrote them (a term's list of doc and frequency), so a store's views
    /// need no rebuild.
    #[test]
    fn postings_encode_as_version_5_wrote_them() {
        let state = index(&["alpha beta beta", "beta gamma"]);
        let old: BTreeMap<String, Vec<(u32, u32)>> = state
            .terms
            .iter()
            .map(|(term, postings)| (term.clone(), postings.docs.clone()))
            .collect();
        assert_eq!(
            snapshot::encode_value(&state.terms).unwrap(),
            snapshot::encode_value(&old).unwrap()
        );
        assert_eq!(
            state.terms["beta"].bound,
            Bound {
                max_tf: 2,
                min_len: 2
            }
        );
    }

    #[test]
    fn seek_finds_the_first_posting_at_or_after_a_doc() {
        let mut postings: Vec<(u32, u32)> = [2, 3, 5, 8, 13, 21, 34, 55, 89]
            .iter()
            .map(|&d| (d, 1))
            .collect();
        // Past the gallop: a far doc is found by searching the whole list.
        postings.extend((0..200).map(|i| (100 + 3 * i, 1)));
        for from in 0..=postings.len() {
            let above = from.checked_sub(1).map_or(0, |at| postings[at].0 + 1);
            for doc in above..800 {
                let want = postings[from..]
                    .iter()
                    .position(|&(d, _)| d >= doc)
                    .map_or(postings.len(), |at| from + at);
                let got = seek(&postings, from, doc);
                let found = postings.get(want).is_some_and(|&(d, _)| d == doc);
                assert_eq!(
                    got,
                    if found { Ok(want) } else { Err(want) },
                    "from {from}, doc {doc}"
                );
            }
        }
        assert_eq!(seek(&[], 0, 7), Err(0));
    }

    #[test]
    fn chinese_query_finds_the_memory_by_bigrams() {
        let state = index(&[
            "The user prefers tea over coffee.",
            "用户偏好使用 Python 而非 Node.js 处理数据分析。",
            "部署在周五下午进行。",
        ]);
        let hits = state.search(&query_terms("数据分析偏好"), 10, |_| true);
        assert_eq!(ids(&hits), [2]);
    }

    #[test]
    fn rarer_terms_and_more_occurrences_rank_higher_and_ties_go_to_the_older() {
        let state = index(&[
            "tea tea tea and coffee",
            "tea and coffee",
            "coffee only",
            "coffee only",
        ]);
        let hits = state.search(&query_terms("tea"), 10, |_| true);
        assert_eq!(ids(&hits), [1, 2]);
        assert!(hits[0].score > hits[1].score);
        let hits = state.search(&query_terms("coffee only"), 2, |_| true);
        assert_eq!(ids(&hits), [3, 4], "equal scores: older first");
    }

    #[test]
    fn limit_and_filter_apply_before_the_cut() {
        let state = index(&["alpha one", "alpha two", "alpha three"]);
        let hits = state.search(&query_terms("alpha"), 1, |m| m != 1);
        assert_eq!(hits.len(), 1);
        assert_ne!(hits[0].memory, 1);
        assert!(state.search(&query_terms("alpha"), 0, |_| true).is_empty());
    }

    #[test]
    fn a_filter_rejecting_the_best_still_gets_the_next_best_in_order() {
        // Doc i repeats "alpha" i times: higher ids score higher.
        let texts: Vec<String> = (1..=200)
            .map(|i| format!("{} filler", "alpha ".repeat(i)))
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let state = index(&refs);
        let hits = state.search(&query_terms("alpha"), 5, |m| m <= 100);
        assert_eq!(ids(&hits), [100, 99, 98, 97, 96]);
        let none = state.search(&query_terms("alpha"), 5, |_| false);
        assert!(none.is_empty());
    }

    #[test]
    fn forget_removes_postings_text_and_statistics() {
        let mut state = index(&["secret plan alpha", "plan beta"]);
        state.remove(1);
        assert_eq!(state.text(1), None);
        assert_eq!(state.live_count(), 1);
        assert!(state.search(&query_terms("alpha"), 10, |_| true).is_empty());
        assert_eq!(ids(&state.search(&query_terms("plan"), 10, |_| true)), [2]);
        assert!(
            !state.terms.contains_key("alpha"),
            "emptied terms are removed"
        );
        // A second forget and a forget of an unknown memory change nothing.
        let before = state.clone();
        state.remove(1);
        state.remove(99);
        assert_eq!(state, before);
        // Equal to an index that never held the forgotten memory, but for
        // the dead slot.
        assert_eq!(state.live_len, index(&["", "plan beta"]).live_len);
    }

    #[test]
    fn a_memory_is_indexed_once() {
        let mut state = index(&["one"]);
        state.add(1, "two".to_owned(), &[], view_mac::UNSET);
        assert_eq!(state.text(1), Some("one"));
        assert_eq!(state.docs.len(), 1);
    }
}

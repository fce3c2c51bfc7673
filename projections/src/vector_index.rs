//! The vector index: the int8 embeddings recorded in the log, searchable by
//! exact nearest-neighbour (dot product of L2-normalised vectors, i.e.
//! cosine similarity).
//!
//! Vectors come from `Remembered` (written with the memory) and `Embedded`
//! (added later, e.g. by `engram reembed`, or for another model). They are
//! grouped by model id: vectors of different models are never compared. A
//! memory has at most one vector per model; a later one replaces it.
//!
//! `Forgotten` removes a memory's vectors for good; `Archived` parks them
//! (out of search at once) and a move out of tier L4 brings them back.
//!
//! **Layout.** Per model, one contiguous `i8` array (`n x dimension`), the
//! scales and the ids side by side: a scan is a linear pass over memory,
//! the dot products in `i32`: by an AVX2 kernel on x86-64 CPUs that have
//! it (detected at run time, through `pulp`'s safe intrinsics), by a
//! portable one elsewhere; both give the same integers. Removal swaps the
//! last slot into the hole, so the arrays stay dense; the order is a pure
//! function of the log.
//!
//! [`VectorSearch`] is the seam an approximate index (HNSW, IVF) can replace
//! this exact one behind, past ~100k memories.

use std::collections::{BTreeMap, BTreeSet};

use engram_log::{Embedding, Event, LoggedEvent, MemoryId, Tier};
use serde::{Deserialize, Serialize};

use crate::Fold;
use crate::best_first::best_accepted;

/// Nearest-neighbour search over recorded vectors.
pub trait VectorSearch {
    /// The best `limit` memories for `query` (L2-normalised, of `model`'s
    /// dimension) that `accept` lets through, best first, with their cosine
    /// similarity. Empty when the model has no vectors or the dimension
    /// differs.
    fn nearest(
        &self,
        model: &str,
        query: &[f32],
        limit: usize,
        accept: &dyn Fn(MemoryId) -> bool,
    ) -> Vec<(MemoryId, f32)>;
}

/// The vectors of one model.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
struct ModelVectors {
    dimension: u32,
    ids: Vec<MemoryId>,
    scales: Vec<f32>,
    values: Vec<i8>,
    slot_of: BTreeMap<MemoryId, u32>,
}

impl ModelVectors {
    fn insert(&mut self, memory: MemoryId, embedding: &Embedding) {
        let dim = embedding.values.len();
        if dim == 0 || (self.dimension != 0 && self.dimension as usize != dim) {
            return;
        }
        self.dimension = dim as u32;
        match self.slot_of.get(&memory) {
            Some(&slot) => {
                let at = slot as usize * dim;
                if let Some(dst) = self.values.get_mut(at..at + dim) {
                    dst.copy_from_slice(&embedding.values);
                }
                if let Some(scale) = self.scales.get_mut(slot as usize) {
                    *scale = embedding.scale;
                }
            }
            None => {
                let Ok(slot) = u32::try_from(self.ids.len()) else {
                    return;
                };
                self.ids.push(memory);
                self.scales.push(embedding.scale);
                self.values.extend_from_slice(&embedding.values);
                self.slot_of.insert(memory, slot);
            }
        }
    }

    /// Removes `memory`'s vector, returning it.
    /// Puts the vectors in memory id order (slots renumbered).
    fn sort_by_id(&mut self) {
        let dim = self.dimension as usize;
        let mut order: Vec<usize> = (0..self.ids.len()).collect();
        order.sort_by_key(|&slot| self.ids.get(slot).copied().unwrap_or(MemoryId::MAX));
        let mut ids = Vec::with_capacity(self.ids.len());
        let mut scales = Vec::with_capacity(self.scales.len());
        let mut values = Vec::with_capacity(self.values.len());
        for slot in order {
            let (Some(&id), Some(&scale), Some(v)) = (
                self.ids.get(slot),
                self.scales.get(slot),
                self.values.get(slot * dim..(slot + 1) * dim),
            ) else {
                continue;
            };
            ids.push(id);
            scales.push(scale);
            values.extend_from_slice(v);
        }
        self.slot_of = ids
            .iter()
            .zip(0u32..)
            .map(|(&id, slot)| (id, slot))
            .collect();
        self.ids = ids;
        self.scales = scales;
        self.values = values;
    }

    fn remove(&mut self, memory: MemoryId) -> Option<(f32, Vec<i8>)> {
        let slot = self.slot_of.remove(&memory)? as usize;
        let dim = self.dimension as usize;
        let last = self.ids.len() - 1;
        let removed_scale = self.scales.swap_remove(slot);
        self.ids.swap_remove(slot);
        let removed: Vec<i8> = self.values.get(slot * dim..(slot + 1) * dim)?.to_vec();
        if slot != last {
            let (head, tail) = self.values.split_at_mut(last * dim);
            if let (Some(dst), Some(src)) =
                (head.get_mut(slot * dim..(slot + 1) * dim), tail.get(..dim))
            {
                dst.copy_from_slice(src);
            }
            if let Some(&moved) = self.ids.get(slot) {
                self.slot_of.insert(moved, slot as u32);
            }
        }
        self.values.truncate(last * dim);
        Some((removed_scale, removed))
    }
}

/// The vector index read model (see the module documentation).
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorIndex {
    models: BTreeMap<String, ModelVectors>,
    /// Vectors of archived memories: (memory, model) -> (scale, values).
    parked: BTreeMap<(MemoryId, String), (f32, Vec<i8>)>,
    archived: BTreeSet<MemoryId>,
    /// Forgotten memories never get a vector again.
    forgotten: BTreeSet<MemoryId>,
}

/// Dot product of two int8 vectors, in 16 independent `i32` lanes so the
/// compiler vectorises it (a plain iterator sum is one serial chain). The
/// portable kernel: what a scan runs on CPUs without AVX2.
fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    const LANES: usize = 16;
    let (a_chunks, a_rest) = a.as_chunks::<LANES>();
    let (b_chunks, b_rest) = b.as_chunks::<LANES>();
    let mut lanes = [0i32; LANES];
    for (x, y) in a_chunks.iter().zip(b_chunks) {
        for ((lane, &x), &y) in lanes.iter_mut().zip(x).zip(y) {
            *lane += i32::from(x) * i32::from(y);
        }
    }
    let rest: i32 = a_rest
        .iter()
        .zip(b_rest)
        .map(|(&x, &y)| i32::from(x) * i32::from(y))
        .sum();
    lanes.iter().sum::<i32>() + rest
}

/// The dot product of one stored vector with the scan's query.
trait QueryDot {
    fn dot(&self, v: &[i8]) -> i32;
}

/// The portable kernel against the int8 query.
struct PortableDot<'q>(&'q [i8]);

impl QueryDot for PortableDot<'_> {
    #[inline(always)]
    fn dot(&self, v: &[i8]) -> i32 {
        dot_i8(v, self.0)
    }
}

/// The kernel a scan runs: AVX2 where the CPU has it (detected once, at
/// run time), the portable one elsewhere.
#[derive(Debug, Clone, Copy)]
enum Kernel {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx2(pulp::x86::V3),
}

impl Kernel {
    /// The best kernel this CPU runs.
    fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            static V3: std::sync::OnceLock<Option<pulp::x86::V3>> = std::sync::OnceLock::new();
            if let Some(simd) = *V3.get_or_init(pulp::x86::V3::try_new) {
                return Self::Avx2(simd);
            }
        }
        Self::Portable
    }

    /// Every vector of `vectors` scored against the int8 query `q` (of
    /// scale `query_scale`), in slot order.
    fn scores(self, vectors: &ModelVectors, q: &[i8], query_scale: f32) -> Vec<(MemoryId, f32)> {
        match self {
            Self::Portable => score_all(vectors, &PortableDot(q), query_scale),
            #[cfg(target_arch = "x86_64")]
            Self::Avx2(simd) => {
                // The whole scan runs inside `vectorize`, so the AVX2
                // target features apply to its loop and the intrinsics
                // inline into it.
                simd.vectorize(move || {
                    let dot = avx2::Dot::new(simd, q);
                    score_all(vectors, &dot, query_scale)
                })
            }
        }
    }

    /// The dot product of `a` and `b` by this kernel.
    #[cfg(test)]
    fn dot(self, a: &[i8], b: &[i8]) -> i32 {
        match self {
            Self::Portable => dot_i8(a, b),
            #[cfg(target_arch = "x86_64")]
            Self::Avx2(simd) => simd.vectorize(move || avx2::Dot::new(simd, b).dot(a)),
        }
    }
}

/// The scan: one pass over the contiguous values, the ids and the scales.
/// A plain loop, not `map` and `collect`: a closure the optimiser leaves
/// out of line would not get the AVX2 target features of `vectorize`, and
/// the intrinsics in it would become calls.
#[inline(always)]
fn score_all(
    vectors: &ModelVectors,
    dot: &impl QueryDot,
    query_scale: f32,
) -> Vec<(MemoryId, f32)> {
    let dim = vectors.dimension as usize;
    let mut scored = Vec::with_capacity(vectors.ids.len());
    for ((v, &id), &scale) in vectors
        .values
        .chunks_exact(dim)
        .zip(&vectors.ids)
        .zip(&vectors.scales)
    {
        scored.push((id, dot.dot(v) as f32 * scale * query_scale));
    }
    scored
}

/// The AVX2 kernel, through `pulp`'s safe intrinsics: 16 int8 values at a
/// time sign-extended to `i16` (`vpmovsxbw`), multiplied by the query's
/// and summed in pairs into eight `i32` lanes (`vpmaddwd`): exact for every
/// int8 value, -128 included (a pair is at most 2 x 128 x 128).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use core::arch::x86_64::{__m128i, __m256i};

    use pulp::x86::V3;

    use super::QueryDot;

    const LANES: usize = 16;

    /// The query widened to `i16` once per scan, 16 values a register, and
    /// the values past its last full 16.
    pub(super) struct Dot<'q> {
        simd: V3,
        wide: Vec<__m256i>,
        rest: &'q [i8],
    }

    impl<'q> Dot<'q> {
        #[inline(always)]
        pub(super) fn new(simd: V3, q: &'q [i8]) -> Self {
            let (chunks, rest) = q.as_chunks::<LANES>();
            let mut wide = Vec::with_capacity(chunks.len());
            for &c in chunks {
                wide.push(
                    simd.avx2
                        ._mm256_cvtepi8_epi16(pulp::cast::<[i8; LANES], __m128i>(c)),
                );
            }
            Self { simd, wide, rest }
        }
    }

    impl QueryDot for Dot<'_> {
        #[inline(always)]
        fn dot(&self, v: &[i8]) -> i32 {
            let simd = self.simd;
            let (chunks, rest) = v.as_chunks::<LANES>();
            let mut acc = simd.avx._mm256_setzero_si256();
            for (&x, &q) in chunks.iter().zip(&self.wide) {
                let x = simd
                    .avx2
                    ._mm256_cvtepi8_epi16(pulp::cast::<[i8; LANES], __m128i>(x));
                acc = simd
                    .avx2
                    ._mm256_add_epi32(acc, simd.avx2._mm256_madd_epi16(x, q));
            }
            // Eight lanes to four, to two, to one.
            let half = simd.sse2._mm_add_epi32(
                simd.avx._mm256_castsi256_si128(acc),
                simd.avx2._mm256_extracti128_si256::<1>(acc),
            );
            let pair = simd.ssse3._mm_hadd_epi32(half, half);
            let one = simd.ssse3._mm_hadd_epi32(pair, pair);
            let tail: i32 = rest
                .iter()
                .zip(self.rest)
                .map(|(&x, &y)| i32::from(x) * i32::from(y))
                .sum();
            simd.sse2._mm_cvtsi128_si32(one) + tail
        }
    }
}

/// The int8 query and its scale.
fn quantize_query(query: &[f32]) -> (f32, Vec<i8>) {
    let max = query.iter().fold(0f32, |m, x| m.max(x.abs()));
    let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
    let values = query
        .iter()
        .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8)
        .collect();
    (scale, values)
}

impl VectorIndex {
    /// Number of vectors of `model`.
    #[must_use]
    pub fn len(&self, model: &str) -> usize {
        self.models.get(model).map_or(0, |m| m.ids.len())
    }

    /// The dimension of `model`'s vectors, if it has any.
    #[must_use]
    pub fn dimension(&self, model: &str) -> Option<usize> {
        self.models
            .get(model)
            .filter(|m| !m.ids.is_empty())
            .map(|m| m.dimension as usize)
    }

    /// Whether memory `id` has a vector of `model` (live, not parked).
    #[must_use]
    pub fn has(&self, model: &str, id: MemoryId) -> bool {
        self.models
            .get(model)
            .is_some_and(|m| m.slot_of.contains_key(&id))
    }

    /// Whether memory `id` has a vector of `model`, live or parked.
    #[must_use]
    pub fn knows(&self, model: &str, id: MemoryId) -> bool {
        self.has(model, id) || self.parked.contains_key(&(id, model.to_owned()))
    }

    /// The vector of memory `id` under `model` (live, not parked): its
    /// scale and int8 values.
    #[must_use]
    pub fn vector(&self, model: &str, id: MemoryId) -> Option<(f32, &[i8])> {
        let vectors = self.models.get(model)?;
        let slot = *vectors.slot_of.get(&id)? as usize;
        let dim = vectors.dimension as usize;
        let values = vectors.values.get(slot * dim..(slot + 1) * dim)?;
        Some((*vectors.scales.get(slot)?, values))
    }

    /// The models with vectors, by name, with their counts.
    pub fn models(&self) -> impl Iterator<Item = (&str, usize)> + '_ {
        self.models
            .iter()
            .map(|(name, m)| (name.as_str(), m.ids.len()))
    }

    fn archive(&mut self, memory: MemoryId) {
        if !self.forgotten.contains(&memory) && self.archived.insert(memory) {
            self.park(memory);
        }
    }

    fn restore(&mut self, memory: MemoryId) {
        if self.archived.remove(&memory) {
            self.unpark(memory);
        }
    }

    fn park(&mut self, memory: MemoryId) {
        for (name, vectors) in &mut self.models {
            if let Some(removed) = vectors.remove(memory) {
                self.parked.insert((memory, name.clone()), removed);
            }
        }
    }

    fn unpark(&mut self, memory: MemoryId) {
        let keys: Vec<(MemoryId, String)> = self
            .parked
            .range((memory, String::new())..)
            .take_while(|((m, _), _)| *m == memory)
            .map(|(k, _)| k.clone())
            .collect();
        for key in keys {
            if let Some((scale, values)) = self.parked.remove(&key) {
                let embedding = Embedding {
                    model: key.1.clone(),
                    scale,
                    values,
                };
                self.models
                    .entry(key.1)
                    .or_default()
                    .insert(memory, &embedding);
            }
        }
    }

    fn drop_memory(&mut self, memory: MemoryId) {
        for vectors in self.models.values_mut() {
            vectors.remove(memory);
        }
        self.parked.retain(|(m, _), _| *m != memory);
        self.models.retain(|_, v| !v.ids.is_empty());
    }
}

impl VectorSearch for VectorIndex {
    fn nearest(
        &self,
        model: &str,
        query: &[f32],
        limit: usize,
        accept: &dyn Fn(MemoryId) -> bool,
    ) -> Vec<(MemoryId, f32)> {
        self.nearest_by(Kernel::detect(), model, query, limit, accept)
    }
}

impl VectorIndex {
    /// [`VectorSearch::nearest`] by the portable kernel whatever the CPU
    /// runs: the peer the benchmarks time the detected kernel against.
    #[doc(hidden)]
    #[must_use]
    pub fn nearest_portable(
        &self,
        model: &str,
        query: &[f32],
        limit: usize,
        accept: &dyn Fn(MemoryId) -> bool,
    ) -> Vec<(MemoryId, f32)> {
        self.nearest_by(Kernel::Portable, model, query, limit, accept)
    }

    /// [`VectorSearch::nearest`] with the dot products of `kernel`.
    fn nearest_by(
        &self,
        kernel: Kernel,
        model: &str,
        query: &[f32],
        limit: usize,
        accept: &dyn Fn(MemoryId) -> bool,
    ) -> Vec<(MemoryId, f32)> {
        let Some(vectors) = self.models.get(model) else {
            return Vec::new();
        };
        let dim = vectors.dimension as usize;
        if limit == 0 || dim == 0 || query.len() != dim {
            return Vec::new();
        }
        let (query_scale, q) = quantize_query(query);
        let scored = kernel.scores(vectors, &q, query_scale);
        let better = |a: &(MemoryId, f32), b: &(MemoryId, f32)| {
            b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0))
        };
        best_accepted(scored, limit, better, |h: &(MemoryId, f32)| h.0, accept)
    }
}

impl Fold for VectorIndex {
    const NAME: &'static str = "vector_index";
    const VERSION: u32 = 1;

    fn apply(&mut self, logged: &LoggedEvent) {
        match &logged.event {
            Event::Remembered(r) => {
                if let Some(embedding) = &r.embedding {
                    self.models
                        .entry(embedding.model.clone())
                        .or_default()
                        .insert(logged.seq, embedding);
                }
            }
            Event::Embedded(e) => {
                if self.forgotten.contains(&e.memory) {
                    return;
                }
                if self.archived.contains(&e.memory) {
                    self.parked.insert(
                        (e.memory, e.embedding.model.clone()),
                        (e.embedding.scale, e.embedding.values.clone()),
                    );
                } else {
                    self.models
                        .entry(e.embedding.model.clone())
                        .or_default()
                        .insert(e.memory, &e.embedding);
                }
            }
            Event::Archived(a) => self.archive(a.memory),
            Event::TierChanged(t) if t.to != Tier::L4 => self.restore(t.memory),
            Event::Forgotten(f) => {
                self.forgotten.insert(f.memory);
                self.archived.remove(&f.memory);
                self.drop_memory(f.memory);
            }
            // A purged memory's vectors leak its words: gone for good,
            // as after a forget.
            Event::Purged(p) => {
                for &memory in &p.memories {
                    self.forgotten.insert(memory);
                    self.archived.remove(&memory);
                    self.drop_memory(memory);
                }
                // A rebuild never saw the erased vectors, so the slots the
                // others hold differ from the live index's: both put them
                // in id order here, and agree again.
                for vectors in self.models.values_mut() {
                    vectors.sort_by_id();
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::testkit::{fold, forget, logged};
    use engram_log::{Archived, Embedded, TierChanged};

    fn unit(v: &[f32]) -> Vec<f32> {
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / norm).collect()
    }

    fn embedding(model: &str, v: &[f32]) -> Embedding {
        let (scale, values) = quantize_query(&unit(v));
        Embedding {
            model: model.into(),
            scale,
            values,
        }
    }

    fn embedded(memory: MemoryId, model: &str, v: &[f32]) -> Event {
        Event::Embedded(Embedded {
            memory,
            embedding: embedding(model, v),
        })
    }

    fn nearest(index: &VectorIndex, model: &str, v: &[f32]) -> Vec<MemoryId> {
        index
            .nearest(model, &unit(v), 10, &|_| true)
            .into_iter()
            .map(|(id, _)| id)
            .collect()
    }

    #[test]
    fn nearest_by_cosine_per_model_and_replacement() {
        let index: VectorIndex = fold(&logged(vec![
            embedded(1, "m", &[1.0, 0.0, 0.0]),
            embedded(2, "m", &[0.7, 0.7, 0.0]),
            embedded(3, "m", &[0.0, 0.0, 1.0]),
            embedded(4, "other", &[1.0, 0.0, 0.0]),
            embedded(5, "m", &[1.0, 0.0]), // wrong dimension: ignored
        ]));
        assert_eq!(nearest(&index, "m", &[1.0, 0.1, 0.0]), [1, 2, 3]);
        assert_eq!(nearest(&index, "other", &[1.0, 0.0, 0.0]), [4]);
        assert!(
            nearest(&index, "m", &[1.0, 0.0]).is_empty(),
            "query of another dimension"
        );
        assert_eq!(index.len("m"), 3);
        let scores = index.nearest("m", &unit(&[1.0, 0.0, 0.0]), 1, &|_| true);
        assert!((scores[0].1 - 1.0).abs() < 0.02, "{scores:?}");
        // A later vector replaces the memory's vector of that model.
        let mut index = index;
        index.apply(&LoggedEvent {
            erased: false,
            seq: 6,
            ts_ms: 0,
            event: embedded(1, "m", &[0.0, 0.0, 1.0]),
        });
        assert_eq!(index.len("m"), 3);
        assert_eq!(nearest(&index, "m", &[0.0, 0.0, 1.0])[..2], [1, 3]);
    }

    #[test]
    fn forget_removes_archive_parks_and_restoring_brings_back() {
        let index: VectorIndex = fold(&logged(vec![
            embedded(1, "m", &[1.0, 0.0]),
            embedded(2, "m", &[0.9, 0.1]),
            embedded(3, "m", &[0.8, 0.2]),
            forget(2),
            Event::Archived(Archived {
                memory: 1,
                reason: "decayed".into(),
            }),
            embedded(2, "m", &[1.0, 0.0]), // forgotten: never again
        ]));
        assert_eq!(nearest(&index, "m", &[1.0, 0.0]), [3]);
        let mut index = index;
        index.apply(&LoggedEvent {
            erased: false,
            seq: 7,
            ts_ms: 0,
            event: Event::TierChanged(TierChanged {
                memory: 1,
                from: Tier::L4,
                to: Tier::L3,
                reason: "recalled".into(),
            }),
        });
        assert_eq!(nearest(&index, "m", &[1.0, 0.0]), [1, 3]);
    }

    #[test]
    fn the_lane_dot_product_equals_the_plain_one() {
        for len in [0usize, 1, 15, 16, 17, 384, 385] {
            let a: Vec<i8> = (0..len)
                .map(|i| (i as i64 * 37 % 255 - 127) as i8)
                .collect();
            let b: Vec<i8> = (0..len)
                .map(|i| (i as i64 * 91 % 255 - 127) as i8)
                .collect();
            let plain: i32 = a
                .iter()
                .zip(&b)
                .map(|(&x, &y)| i32::from(x) * i32::from(y))
                .sum();
            assert_eq!(dot_i8(&a, &b), plain, "length {len}");
        }
    }

    /// The definition: the sum of the `i32` products.
    fn plain_dot(a: &[i8], b: &[i8]) -> i32 {
        a.iter()
            .zip(b)
            .map(|(&x, &y)| i32::from(x) * i32::from(y))
            .sum()
    }

    /// Int8 values with the extremes (-128, 127) drawn often.
    fn int8() -> impl proptest::strategy::Strategy<Value = i8> {
        proptest::prop_oneof![
            proptest::strategy::Just(i8::MIN),
            proptest::strategy::Just(i8::MAX),
            proptest::strategy::Just(-127i8),
            proptest::arbitrary::any::<i8>(),
        ]
    }

    proptest::proptest! {
        #[test]
        fn the_detected_kernel_equals_the_sum_of_products(
            pairs in proptest::collection::vec((int8(), int8()), 0..1000),
        ) {
            let (a, b): (Vec<i8>, Vec<i8>) = pairs.into_iter().unzip();
            let plain = plain_dot(&a, &b);
            proptest::prop_assert_eq!(Kernel::detect().dot(&a, &b), plain);
            proptest::prop_assert_eq!(Kernel::Portable.dot(&a, &b), plain);
        }
    }

    #[test]
    fn the_kernels_agree_at_the_extremes_and_every_tail_length() {
        for len in (0..=70).chain([383, 384, 385, 1000]) {
            for (x, y) in [(i8::MIN, i8::MIN), (i8::MIN, i8::MAX), (i8::MAX, i8::MAX)] {
                let a = vec![x; len];
                let b = vec![y; len];
                let plain = plain_dot(&a, &b);
                assert_eq!(
                    Kernel::detect().dot(&a, &b),
                    plain,
                    "length {len}, {x} x {y}"
                );
                assert_eq!(
                    Kernel::Portable.dot(&a, &b),
                    plain,
                    "length {len}, {x} x {y}"
                );
            }
        }
    }

    #[test]
    fn the_detected_scan_ranks_as_the_portable_one() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for dim in [3usize, 16, 45, 384] {
            let events: Vec<Event> = (1..=700)
                .map(|memory| {
                    Event::Embedded(Embedded {
                        memory,
                        embedding: Embedding {
                            model: "m".into(),
                            scale: rng.random_range(0.001f32..0.02),
                            values: (0..dim).map(|_| rng.random::<i8>()).collect(),
                        },
                    })
                })
                .collect();
            let index: VectorIndex = fold(&logged(events));
            for _ in 0..5 {
                let query: Vec<f32> = (0..dim).map(|_| rng.random_range(-1.0f32..1.0)).collect();
                let query = unit(&query);
                let accept = |id: MemoryId| !id.is_multiple_of(3);
                let detected = index.nearest_by(Kernel::detect(), "m", &query, 50, &accept);
                let portable = index.nearest_by(Kernel::Portable, "m", &query, 50, &accept);
                assert_eq!(detected.len(), 50);
                assert_eq!(detected, portable, "dimension {dim}");
                assert_eq!(index.nearest("m", &query, 50, &accept), portable);
            }
        }
    }

    #[test]
    fn the_filter_sees_the_best_first_and_ties_go_to_the_older() {
        let events: Vec<Event> = (1..=100).map(|i| embedded(i, "m", &[1.0, 0.0])).collect();
        let index: VectorIndex = fold(&logged(events));
        let hits: Vec<MemoryId> = index
            .nearest("m", &[1.0, 0.0], 3, &|id| id % 2 == 0)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(hits, [2, 4, 6]);
    }
}

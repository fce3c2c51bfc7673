//! The vector index's exact scan alone: `VectorIndex::nearest` (depth 20,
//! no filter) over 100k 384-dimensional int8 vectors (the hybrid recall
//! bench's synthetic unit vectors, `engram_benches::recall::synthetic_embedding`),
//! one iteration one query, 200 queries taken in turn.
//!
//! One group, `vector_scan`, with ids `detected/<n>` (the kernel this CPU
//! runs: AVX2 where the CPU has it, detected at run time) and
//! `portable/<n>` (the portable kernel every CPU runs, the scan's only
//! kernel before the AVX2 one), over the same index in the same run.
//!
//! Under `cargo test --benches` the index holds 5,000 vectors.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use engram_benches::recall::{synthetic_embedding, synthetic_vector};
use engram_log::{Embedded, Event, LoggedEvent};
use engram_projections::{Fold, VectorIndex, VectorSearch};

const BENCH_VECTORS: u64 = 100_000;
const SMOKE_VECTORS: u64 = 5_000;
const DIMENSION: usize = 384;
const QUERIES: u64 = 200;
const DEPTH: usize = 20;
const MODEL: &str = "synthetic@384";
const SEED: u64 = 0x5ca7_2026;

fn n_vectors() -> u64 {
    if std::env::args().any(|arg| arg == "--bench") {
        BENCH_VECTORS
    } else {
        SMOKE_VECTORS
    }
}

fn scan(c: &mut Criterion) {
    let n = n_vectors();
    let mut index = VectorIndex::default();
    for memory in 1..=n {
        index.apply(&LoggedEvent {
            seq: memory,
            ts_ms: 0,
            erased: false,
            event: Event::Embedded(Embedded {
                memory,
                embedding: synthetic_embedding(MODEL, SEED, memory, DIMENSION),
            }),
        });
    }
    assert_eq!(index.len(MODEL), n as usize);
    let queries: Vec<Vec<f32>> = (0..QUERIES)
        .map(|i| synthetic_vector(SEED ^ 1, i, DIMENSION))
        .collect();
    for query in &queries {
        assert_eq!(
            index.nearest(MODEL, query, DEPTH, &|_| true),
            index.nearest_portable(MODEL, query, DEPTH, &|_| true),
            "the kernels rank alike"
        );
    }
    let mut group = c.benchmark_group("vector_scan");
    group.measurement_time(Duration::from_secs(10));
    group.bench_with_input(BenchmarkId::new("detected", n), &index, |b, index| {
        let mut i = 0;
        b.iter(|| {
            let query = &queries[i % queries.len()];
            i += 1;
            black_box(index.nearest(MODEL, black_box(query), DEPTH, &|_| true))
        });
    });
    group.bench_with_input(BenchmarkId::new("portable", n), &index, |b, index| {
        let mut i = 0;
        b.iter(|| {
            let query = &queries[i % queries.len()];
            i += 1;
            black_box(index.nearest_portable(MODEL, black_box(query), DEPTH, &|_| true))
        });
    });
    group.finish();
}

criterion_group!(benches, scan);
criterion_main!(benches);

//! Recall latency at 10k and 100k memories: engram's BM25 recall
//! (`engram_queries::recall`, limit 5) against SQLite FTS5 (the peer a user
//! would pick, `engram_benches::fts5`: `porter unicode61` with a stoplist,
//! a trigram table for CJK; `bm25`, `ORDER BY rank LIMIT 5`) holding the
//! same texts under the same ids and answering the same 200 queries. The corpus, the queries,
//! the FTS5 match expression and what each side does per recall are in
//! `engram_benches::recall`.
//!
//! One group, `recall`, with ids `engram/<n>` and `fts5/<n>`: one iteration
//! is one recall, the queries taken in turn, so a figure is the mean over
//! the query mix. Both stores are built once per size, outside the timing,
//! and checked first: queries built from known memories must find them.
//!
//! With `ENGRAM_BENCH_RECALL_REPORT=1`, the percentiles of 2000 individually
//! timed recalls per engine (p50/p90/p99/max), the hit counts and the top-5
//! overlap are printed for each size after criterion's output, over the same
//! stores criterion measured.
//!
//! Under `cargo test --benches` the stores hold 2,000 and 5,000 memories.
//!
//! Target: p99 <= 1 ms at 100k memories, p50 faster than FTS5.
//!
//! **Hybrid.** With `ENGRAM_BENCH_MINILM_DIR` naming an all-MiniLM-L6-v2
//! folder (`bash embed/fetch-minilm.sh /tmp/models/minilm`), the same group
//! also holds `hybrid/<n>` and `hybrid-index/<n>` over a store whose
//! memories carry synthetic 384-dimensional int8 vectors under the model's
//! id (`engram_benches::recall::HybridBench`). `hybrid/<n>` is
//! `Engram::recall` with the model attached: it embeds the query, fuses BM25
//! and the vector scan, and appends a `Recalled` event (no fsync), which is
//! part of engram's recall cost. `hybrid-index/<n>` is
//! `engram_queries::recall_with` with the query's vector computed up front:
//! the index work alone. Without the variable the hybrid benches are
//! skipped with a note. With `ENGRAM_BENCH_RECALL_REPORT=1` the hybrid
//! percentiles and the model's embedding cost per memory are printed too.
//!
//! **Recorded.** Group `recall_recorded`, ids `clear/<n>` and
//! `sealed/<n>` at the smaller size: `Engram::recall` (the read above, then
//! the `Recalled` event appended without fsync) over the same memories in a
//! store in the clear and in one whose words are sealed (the query sealed
//! under its own data key): the cost of sealing to a recall.
//!
//! A filter argument containing `hybrid` (`cargo bench --bench recall --
//! hybrid`) skips building the keyword stores; any other filter skips the
//! hybrid stores.

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion};
use engram_benches::recall::{
    EngramRecall, HybridBench, RECALL_SEED, RecallBench, Vocabulary, embedding_report,
    memory_texts, queries,
};
use engram_embed::{BertEmbedder, Embedder};

const BENCH_SIZES: [usize; 2] = [10_000, 100_000];
const SMOKE_SIZES: [usize; 2] = [2_000, 5_000];
const QUERIES: usize = 200;
const REPORT_EXECUTIONS: usize = 2000;
const REPORT_ENV: &str = "ENGRAM_BENCH_RECALL_REPORT";
const MINILM_ENV: &str = "ENGRAM_BENCH_MINILM_DIR";
/// Individually timed recalls per kind in the hybrid report (a full hybrid
/// recall embeds the query: milliseconds each).
const HYBRID_REPORT_EXECUTIONS: usize = 600;
/// Batches of 32 and single texts timed for the embedding cost.
const EMBED_BATCHES: usize = 12;
const EMBED_SINGLES: usize = 200;

fn sizes() -> [usize; 2] {
    if std::env::args().any(|arg| arg == "--bench") {
        BENCH_SIZES
    } else {
        SMOKE_SIZES
    }
}

/// Criterion options followed by a value.
const VALUE_OPTIONS: &[&str] = &[
    "--save-baseline",
    "--baseline",
    "--baseline-lenient",
    "--load-baseline",
    "--sample-size",
    "--warm-up-time",
    "--measurement-time",
    "--nresamples",
    "--noise-threshold",
    "--confidence-level",
    "--significance-level",
    "--profile-time",
    "--plotting-backend",
    "--output-format",
    "--color",
    "--format",
    "-c",
    "-s",
    "-b",
];

/// The filter argument given to the bench binary, if any.
fn filter() -> Option<String> {
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if VALUE_OPTIONS.contains(&arg.as_str()) {
            args.next();
        } else if !arg.starts_with('-') {
            return Some(arg);
        }
    }
    None
}

fn report_wanted() -> bool {
    std::env::var(REPORT_ENV).is_ok_and(|v| v == "1")
}

fn recall(c: &mut Criterion, reports: &mut Vec<String>) {
    if filter().is_some_and(|f| f.contains("hybrid")) {
        return;
    }
    let report = report_wanted();
    let mut group = c.benchmark_group("recall");
    for n in sizes() {
        // A recall over 100k memories takes milliseconds: give criterion
        // time for its 100 samples.
        group.measurement_time(Duration::from_secs(if n >= 100_000 { 15 } else { 8 }));
        let bench = RecallBench::build(n, QUERIES).expect("building and checking the stores");
        eprintln!(
            "recall: {n} memories built: engram {:.2} s, fts5 {:.2} s",
            bench.engram.build.as_secs_f64(),
            bench.fts5.build.as_secs_f64()
        );
        group.bench_with_input(BenchmarkId::new("engram", n), &bench, |b, bench| {
            let mut i = 0;
            b.iter(|| {
                let query = &bench.queries[i % bench.queries.len()];
                i += 1;
                black_box(bench.engram.recall(black_box(query)))
            });
        });
        group.bench_with_input(BenchmarkId::new("fts5", n), &bench, |b, bench| {
            let mut i = 0;
            b.iter(|| {
                let query = &bench.queries[i % bench.queries.len()];
                i += 1;
                black_box(bench.fts5.recall(black_box(query)).expect("FTS5 query"))
            });
        });
        if report {
            reports.push(bench.report(REPORT_EXECUTIONS).expect("latency report"));
        }
    }
    group.finish();
}

fn hybrid(c: &mut Criterion, reports: &mut Vec<String>) {
    if filter().is_some_and(|f| !f.contains("hybrid")) {
        return;
    }
    let Some(dir) = std::env::var_os(MINILM_ENV).filter(|d| !d.is_empty()) else {
        eprintln!(
            "recall: hybrid benches skipped: set {MINILM_ENV} to an all-MiniLM-L6-v2 folder \
             (bash embed/fetch-minilm.sh /tmp/models/minilm)"
        );
        return;
    };
    let dir = PathBuf::from(dir);
    let embedder: Arc<dyn Embedder> = Arc::new(
        BertEmbedder::load(&dir)
            .unwrap_or_else(|e| panic!("loading the model in {}: {e}", dir.display())),
    );
    let report = report_wanted();
    let mut group = c.benchmark_group("recall");
    for n in sizes() {
        group.measurement_time(Duration::from_secs(if n >= 100_000 { 15 } else { 8 }));
        let bench = HybridBench::build(n, QUERIES, Arc::clone(&embedder))
            .expect("building and checking the hybrid store");
        eprintln!(
            "recall: {n} memories with vectors of {} built: {:.2} s",
            bench.model,
            bench.engram.build.as_secs_f64()
        );
        group.bench_with_input(BenchmarkId::new("hybrid", n), &bench, |b, bench| {
            let mut i = 0;
            b.iter(|| {
                i += 1;
                black_box(bench.recall(black_box(i)).expect("hybrid recall"))
            });
        });
        group.bench_with_input(BenchmarkId::new("hybrid-index", n), &bench, |b, bench| {
            let mut i = 0;
            b.iter(|| {
                i += 1;
                black_box(bench.recall_index(black_box(i)))
            });
        });
        if report {
            reports.push(
                bench
                    .report(HYBRID_REPORT_EXECUTIONS)
                    .expect("hybrid latency report"),
            );
        }
    }
    group.finish();
    if report {
        reports.push(
            embedding_report(embedder.as_ref(), EMBED_BATCHES, EMBED_SINGLES)
                .expect("embedding report"),
        );
    }
}

/// A user's recall, read and record (`Engram::recall`: the `Recalled`
/// event appended, no fsync), over the same memories in a store whose
/// words are sealed and in one in the clear: what sealing costs a recall.
fn recorded(c: &mut Criterion) {
    if filter().is_some_and(|f| f.contains("hybrid")) {
        return;
    }
    let n = sizes()[0];
    let vocabulary = Vocabulary::new();
    let texts = memory_texts(&vocabulary, RECALL_SEED, n);
    let queries = queries(&vocabulary, RECALL_SEED, QUERIES);
    let mut group = c.benchmark_group("recall_recorded");
    group.measurement_time(Duration::from_secs(8));
    for sealed in [false, true] {
        let store = EngramRecall::build_with(&texts, None, sealed).expect("building the store");
        assert_eq!(store.is_sealed(), sealed);
        let name = if sealed { "sealed" } else { "clear" };
        group.bench_with_input(BenchmarkId::new(name, n), &store, |b, store| {
            let mut i = 0;
            b.iter(|| {
                let query = &queries[i % queries.len()];
                i += 1;
                black_box(store.recall_recorded(black_box(query)).expect("recall"))
            });
        });
    }
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let mut reports = Vec::new();
    recall(&mut c, &mut reports);
    recorded(&mut c);
    hybrid(&mut c, &mut reports);
    c.final_summary();
    for report in reports {
        println!("{report}");
    }
}

//! Recall latency at 10k and 100k memories: engram's BM25 recall
//! (`engram_queries::recall`, limit 5) against SQLite FTS5 (trigram
//! tokenizer, `bm25`, `ORDER BY rank LIMIT 5`) holding the same texts under
//! the same ids and answering the same 200 queries. The corpus, the queries,
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

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion};
use engram_benches::recall::RecallBench;

const BENCH_SIZES: [usize; 2] = [10_000, 100_000];
const SMOKE_SIZES: [usize; 2] = [2_000, 5_000];
const QUERIES: usize = 200;
const REPORT_EXECUTIONS: usize = 2000;
const REPORT_ENV: &str = "ENGRAM_BENCH_RECALL_REPORT";

fn sizes() -> [usize; 2] {
    if std::env::args().any(|arg| arg == "--bench") {
        BENCH_SIZES
    } else {
        SMOKE_SIZES
    }
}

fn recall(c: &mut Criterion, reports: &mut Vec<String>) {
    let report = std::env::var(REPORT_ENV).is_ok_and(|v| v == "1");
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

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let mut reports = Vec::new();
    recall(&mut c, &mut reports);
    c.final_summary();
    for report in reports {
        println!("{report}");
    }
}

//! The views: a full rebuild of every core view from a 1M-event log, and
//! how far the views trail the log under sustained appends.
//!
//! - `views/rebuild`: `Engram::open_with(.., rebuild)` over a store of the
//!   mixed workload (`engram_benches::mixed_event`: turns, memories, recalls,
//!   reinforcements, grades, tier moves, archives, forgets), then close. It
//!   replays the log once, applies every event to the memory table, tier
//!   index, LRU table, trust scores and audit view, commits non-durably along
//!   the way and durably at the end. Target: >= 500k events/s.
//! - `views/append+wait_for`: one batch of 16 events appended durably through
//!   `Engram::append` (which returns once every view applied it) while
//!   another thread appends the same workload without pause.
//! - Projection lag (printed, p50/p99): while one thread appends batches of 16
//!   without pause (durably: `Sync`), another samples the log's last seq and
//!   times how long until every view has applied it.
//!
//! Under `cargo test --benches` the store holds 20,000 events.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use engram::engine::Engram;
use engram::store::{Store, StoreOptions};
use engram_benches::{BENCH_SEED, mixed_event, mixed_store};
use engram_log::{Durability, Event, KeySource};
use engram_projections::OpenOptions;

const BENCH_EVENTS: u64 = 1_000_000;
const SMOKE_EVENTS: u64 = 20_000;

fn n_events() -> u64 {
    if std::env::args().any(|arg| arg == "--bench") {
        BENCH_EVENTS
    } else {
        SMOKE_EVENTS
    }
}

fn options() -> StoreOptions {
    StoreOptions {
        key: KeySource::StoreFile,
        durability: Durability::None,
        ..StoreOptions::default()
    }
}

fn rebuild(c: &mut Criterion) {
    let n = n_events();
    let dir = tempfile::tempdir().expect("temporary folder");
    let clear =
        mixed_store(&dir.path().join("clear"), BENCH_SEED, n, false).expect("building the store");
    let sealed =
        mixed_store(&dir.path().join("sealed"), BENCH_SEED, n, true).expect("building the store");
    assert!(!clear.is_sealed() && sealed.is_sealed());
    let mut group = c.benchmark_group("views");
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    group.measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Elements(n));
    for (name, store) in [("rebuild", &clear), ("rebuild-sealed", &sealed)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let engram = Engram::open_with(
                    store.clone(),
                    &options(),
                    OpenOptions { rebuild: true },
                    &|_, _| {},
                )
                .expect("rebuild");
                black_box(engram.stats());
                engram.close().expect("close");
            });
        });
    }
    group.finish();
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((sorted.len().saturating_sub(1)) as f64 * p).round() as usize;
    sorted.get(rank).copied().unwrap_or_default()
}

fn lag(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temporary folder");
    // Durable appends: the rate a real writer sustains. (Without fsync one
    // thread appends faster than the views apply, and the lag only grows.)
    let durable = StoreOptions {
        durability: Durability::Sync,
        ..options()
    };
    let engram = Engram::open(Store::at(dir.path().join("store")), &durable).expect("open");
    let stop = AtomicBool::new(false);
    let next = AtomicU64::new(0);
    let batch = |start: u64| -> Vec<Event> {
        (start..start + 16)
            .map(|i| mixed_event(BENCH_SEED, i))
            .collect()
    };
    std::thread::scope(|scope| {
        // Sustained appends from a second thread.
        scope.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                let start = next.fetch_add(16, Ordering::Relaxed);
                engram.log().append(&batch(start)).expect("append");
            }
        });
        // Lag: from a commit to every view having applied it.
        let mut lags = Vec::new();
        let until =
            Instant::now() + Duration::from_secs(if n_events() == BENCH_EVENTS { 10 } else { 1 });
        while Instant::now() < until {
            let seq = engram.log().last_seq();
            let started = Instant::now();
            engram
                .views()
                .wait_for(seq, Duration::from_secs(30))
                .expect("views keep up");
            lags.push(started.elapsed());
            std::thread::sleep(Duration::from_millis(1));
        }
        lags.sort_unstable();
        println!(
            "views/lag under sustained appends: {} samples, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms ({} events appended)",
            lags.len(),
            percentile(&lags, 0.50).as_secs_f64() * 1e3,
            percentile(&lags, 0.99).as_secs_f64() * 1e3,
            lags.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
            engram.log().last_seq()
        );

        let mut group = c.benchmark_group("views");
        group.sample_size(20);
        group.throughput(Throughput::Elements(16));
        group.bench_function("append+wait_for", |b| {
            b.iter(|| {
                let start = next.fetch_add(16, Ordering::Relaxed);
                black_box(engram.append(&batch(start)).expect("append"));
            });
        });
        group.finish();
        stop.store(true, Ordering::Relaxed);
    });
    engram.close().expect("close");
}

criterion_group!(benches, rebuild, lag);
criterion_main!(benches);

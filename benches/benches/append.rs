//! Append throughput of engram, redb and SQLite, side by side.
//!
//! - `append/{sync,none}/batch={1,64,1024}/{peer}`: one thread appends
//!   batches of that many events; each batch is one commit. Throughput is in
//!   events.
//! - `append_concurrent/{sync,none}/threads=64/{peer}`: 64 threads each
//!   append batches of one event. engram merges what is queued into one
//!   commit group (one frame, one fdatasync); redb and SQLite allow one
//!   writer at a time, so their threads take turns, one commit per event.
//!
//! Durable cases run first so that the write-back of the non-durable ones
//! does not slow their fsyncs. Stores live in `TMPDIR`, which must be on a
//! real disk. Every peer stores the same codec bytes per event (see
//! `engram_benches`).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use engram_benches::{
    BENCH_SEED, PeerKind, SyncMode, TempStore, append_concurrent, encoded_bytes, session_events,
};

/// Events cycled through by the appenders (a multiple of every batch size).
const POOL_EVENTS: usize = 4096;

const BATCH_SIZES: [usize; 3] = [1, 64, 1024];

const CONCURRENT_THREADS: usize = 64;

fn append(c: &mut Criterion) {
    let pool = session_events(BENCH_SEED, 0, POOL_EVENTS);
    let bytes = encoded_bytes(&pool).expect("encoding the workload");
    eprintln!(
        "workload: {POOL_EVENTS} session events, {:.1} codec bytes per event on average",
        bytes as f64 / POOL_EVENTS as f64
    );
    let mut group = c.benchmark_group("append");
    for mode in SyncMode::ALL {
        group.sampling_mode(match mode {
            SyncMode::Sync => SamplingMode::Flat,
            SyncMode::None => SamplingMode::Auto,
        });
        for batch in BATCH_SIZES {
            group.throughput(Throughput::Elements(batch as u64));
            for kind in PeerKind::ALL {
                let store = TempStore::new(kind, mode).expect("creating a store");
                let mut at = 0;
                let id = format!("{}/batch={batch}/{}", mode.label(), kind.label());
                group.bench_function(id, |b| {
                    b.iter(|| {
                        let events = &pool[at..at + batch];
                        at = (at + batch) % POOL_EVENTS;
                        black_box(store.peer.append(events).expect("append"))
                    });
                });
            }
        }
    }
    group.finish();
}

fn append_concurrent_group(c: &mut Criterion) {
    let pool = session_events(BENCH_SEED, 0, POOL_EVENTS);
    let mut group = c.benchmark_group("append_concurrent");
    group.sampling_mode(SamplingMode::Flat);
    // One iteration: every thread appends one single-event batch.
    group.throughput(Throughput::Elements(CONCURRENT_THREADS as u64));
    for mode in SyncMode::ALL {
        for kind in PeerKind::ALL {
            let store = TempStore::new(kind, mode).expect("creating a store");
            let id = format!(
                "{}/threads={CONCURRENT_THREADS}/{}",
                mode.label(),
                kind.label()
            );
            group.bench_function(id, |b| {
                b.iter_custom(|iters| {
                    append_concurrent(&*store.peer, &pool, CONCURRENT_THREADS, iters)
                        .expect("concurrent append")
                });
            });
        }
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = append, append_concurrent_group
}
criterion_main!(benches);

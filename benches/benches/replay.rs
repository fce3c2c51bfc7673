//! Replay and verify of a 1M-event log, against full scans of the same
//! events in redb and SQLite.
//!
//! The stores are built once, outside the timed loops: the workload's first
//! 1,000,000 events appended in batches of 1024 without fsync, then synced.
//! Timed cases (throughput in events; the page cache is warm):
//!
//! - `replay/engram/open+replay+verify`: `LogReader::open`, a full replay
//!   decoding every event, then `verify()`. The design target is 1M events/s.
//! - `replay/engram-sealed/open+replay+verify`: the same over a log whose
//!   words are sealed (a key store beside it; every data key unwrapped and
//!   every record opened): the cost of encryption, side by side.
//! - `replay/engram/open+replay`, `replay/engram/open`, `replay/engram/replay`
//!   and `replay/engram/verify`: the parts alone.
//! - `replay/{redb,sqlite}/open+replay`: open the database read-only, read
//!   every row in seq order and decode every event: the counterpart of
//!   `engram/open+replay` (the peers check page checksums at most, no chain
//!   and no HMAC).
//! - `replay/{redb,sqlite}/integrity_check`: the peers' own whole-file checks
//!   (`Database::check_integrity`, `PRAGMA integrity_check`), for scale next
//!   to `engram/verify`; they check structure, not every event's decode.
//!
//! Under `cargo test --benches` (no `--bench` argument) the stores hold 20,000
//! events so the smoke run stays quick.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use engram_benches::{
    BENCH_SEED, EngramPeer, PeerKind, RedbPeer, SqlitePeer, SyncMode, TempStore, fill,
    replay_reader,
};
use tempfile::TempDir;

/// Events in every store when benchmarking.
const BENCH_EVENTS: u64 = 1_000_000;

/// Events in every store under `cargo test`.
const SMOKE_EVENTS: u64 = 20_000;

/// Events per append while building the stores.
const BUILD_BATCH_EVENTS: usize = 1024;

fn n_events() -> u64 {
    if std::env::args().any(|arg| arg == "--bench") {
        BENCH_EVENTS
    } else {
        SMOKE_EVENTS
    }
}

fn folder_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .expect("listing a store")
        .map(|entry| {
            entry
                .expect("store entry")
                .metadata()
                .expect("metadata")
                .len()
        })
        .sum()
}

/// Builds the store of `kind` with the first `n` workload events.
fn build(kind: PeerKind, n: u64) -> TempDir {
    let start = Instant::now();
    let store = TempStore::new(kind, SyncMode::None).expect("creating a store");
    fill(&*store.peer, BENCH_SEED, n, BUILD_BATCH_EVENTS).expect("filling a store");
    let dir = store.into_dir();
    let elapsed = start.elapsed();
    eprintln!(
        "built {} store: {n} events, {} bytes on disk, in {:.2?} ({:.0} events/s, batch {BUILD_BATCH_EVENTS}, no fsync until the end)",
        kind.label(),
        folder_bytes(dir.path()),
        elapsed,
        n as f64 / elapsed.as_secs_f64()
    );
    dir
}

fn count(n: &mut u64) -> impl FnMut(u64, engram_log::Event) + '_ {
    move |seq, event| {
        black_box((seq, event));
        *n += 1;
    }
}

fn replay(c: &mut Criterion) {
    let n = n_events();
    let engram = build(PeerKind::Engram, n);
    let sealed = build(PeerKind::EngramSealed, n);
    let redb = build(PeerKind::Redb, n);
    let sqlite = build(PeerKind::Sqlite, n);
    let engram_dir = engram.path();

    let mut group = c.benchmark_group("replay");
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(n));

    group.bench_function("engram/open+replay+verify", |b| {
        b.iter(|| {
            let reader = EngramPeer::reader(engram_dir).expect("open");
            let mut seen = 0;
            replay_reader(&reader, &mut count(&mut seen)).expect("replay");
            assert_eq!(seen, n);
            let report = reader.verify().expect("verify");
            assert!(report.is_ok() && report.n_events == n, "{report:?}");
        });
    });
    group.bench_function("engram-sealed/open+replay+verify", |b| {
        b.iter(|| {
            let reader = EngramPeer::sealed_reader(sealed.path()).expect("open");
            let mut seen = 0;
            replay_reader(&reader, &mut count(&mut seen)).expect("replay");
            assert_eq!(seen, n);
            let report = reader.verify().expect("verify");
            assert!(report.is_ok() && report.n_events == n, "{report:?}");
        });
    });
    group.bench_function("engram/open+replay", |b| {
        b.iter(|| {
            let reader = EngramPeer::reader(engram_dir).expect("open");
            let mut seen = 0;
            replay_reader(&reader, &mut count(&mut seen)).expect("replay");
            assert_eq!(seen, n);
        });
    });
    group.bench_function("redb/open+replay", |b| {
        b.iter(|| {
            let mut seen = 0;
            RedbPeer::replay_dir(redb.path(), &mut count(&mut seen)).expect("replay");
            assert_eq!(seen, n);
        });
    });
    group.bench_function("sqlite/open+replay", |b| {
        b.iter(|| {
            let mut seen = 0;
            SqlitePeer::replay_dir(sqlite.path(), &mut count(&mut seen)).expect("replay");
            assert_eq!(seen, n);
        });
    });

    group.bench_function("engram/open", |b| {
        b.iter(|| {
            let reader = EngramPeer::reader(engram_dir).expect("open");
            assert_eq!(reader.last_seq(), n);
        });
    });
    let reader = EngramPeer::reader(engram_dir).expect("open");
    eprintln!(
        "engram log: {} bytes in {} segments",
        reader.n_bytes(),
        reader.segments().len()
    );
    group.bench_function("engram/replay", |b| {
        b.iter(|| {
            let mut seen = 0;
            replay_reader(&reader, &mut count(&mut seen)).expect("replay");
            assert_eq!(seen, n);
        });
    });
    group.bench_function("engram/verify", |b| {
        b.iter(|| {
            let report = reader.verify().expect("verify");
            assert!(report.is_ok() && report.n_events == n, "{report:?}");
        });
    });
    group.bench_function("redb/integrity_check", |b| {
        b.iter(|| assert!(RedbPeer::check_integrity(redb.path()).expect("check")));
    });
    group.bench_function("sqlite/integrity_check", |b| {
        b.iter(|| assert!(SqlitePeer::integrity_check(sqlite.path()).expect("check")));
    });
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
}

criterion_group! {
    name = benches;
    config = config();
    targets = replay
}
criterion_main!(benches);

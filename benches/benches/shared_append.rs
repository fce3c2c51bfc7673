//! Durable appends to the shared log on PostgreSQL beside the segment-file
//! log, in the same run: `shared_append/batch={1,64}/{segments,postgres}`.
//! One thread appends batches of that many events; each batch is one
//! durable commit (fdatasync of a segment; a PostgreSQL COMMIT with
//! `synchronous_commit` on, i.e. its WAL flushed). Time per iteration is the
//! acknowledgement latency; throughput is in events.
//!
//! The server is named by `ENGRAM_BENCH_POSTGRES_URL` (a role that may
//! create a schema there: the bench makes a fresh one and drops it after);
//! without it the bench says so and measures nothing, since one side alone
//! is not the comparison. Both sides store the same codec bytes per event.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use engram_benches::{BENCH_SEED, encoded_bytes, session_events};
use engram_log::{Durability, FileStorage, HmacKey, Log, LogConfig};
use engram_log_postgres::{PgLog, PgLogConfig};

/// Events cycled through by the appenders (a multiple of every batch size).
const POOL_EVENTS: usize = 4096;

const BATCH_SIZES: [usize; 2] = [1, 64];

const URL_ENV: &str = "ENGRAM_BENCH_POSTGRES_URL";

fn shared_append(c: &mut Criterion) {
    let Ok(base) = std::env::var(URL_ENV) else {
        eprintln!("shared_append: {URL_ENV} is not set: nothing measured");
        return;
    };
    let schema = format!("engram_bench_{}", std::process::id());
    let mut admin = postgres::Client::connect(&base, postgres::NoTls).expect("connecting");
    admin
        .batch_execute(&format!(
            "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"
        ))
        .expect("creating the bench schema");
    let separator = if base.contains('?') { '&' } else { '?' };
    let url = format!("{base}{separator}options=-csearch_path%3D{schema}");

    let pool = session_events(BENCH_SEED, 0, POOL_EVENTS);
    let bytes = encoded_bytes(&pool).expect("encoding the workload");
    eprintln!(
        "workload: {POOL_EVENTS} session events, {:.1} codec bytes per event on average",
        bytes as f64 / POOL_EVENTS as f64
    );
    let key = HmacKey::from_bytes([0x5a; 32]);
    let dir = tempfile::tempdir().expect("temporary folder");
    let storage = FileStorage::open(&dir.path().join("log")).expect("segment folder");
    let segments = Log::open(
        Arc::new(storage),
        LogConfig::new(key.clone()).durability(Durability::Sync),
    )
    .expect("opening the segment log");
    let shared = PgLog::connect(&url, key, PgLogConfig::default()).expect("opening the shared log");

    let mut group = c.benchmark_group("shared_append");
    group.sampling_mode(SamplingMode::Flat);
    for batch in BATCH_SIZES {
        group.throughput(Throughput::Elements(batch as u64));
        let mut at = 0;
        group.bench_function(format!("batch={batch}/segments"), |b| {
            b.iter(|| {
                let events = &pool[at..at + batch];
                at = (at + batch) % POOL_EVENTS;
                black_box(segments.append(events).expect("append"))
            });
        });
        let mut at = 0;
        group.bench_function(format!("batch={batch}/postgres"), |b| {
            b.iter(|| {
                let events = &pool[at..at + batch];
                at = (at + batch) % POOL_EVENTS;
                black_box(shared.append(events).expect("append"))
            });
        });
    }
    group.finish();
    shared.close();
    segments.close().expect("closing the segment log");
    admin
        .batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
        .expect("dropping the bench schema");
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(5));
    targets = shared_append
}
criterion_main!(benches);

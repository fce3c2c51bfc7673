//! Saving a batch of short texts: `Engram::remember_batch` (keyword mode,
//! no model: the path `engram remember --items` and the HTTP and MCP batch
//! saves take) against SQLite FTS5 storing the same texts.
//!
//! One group, `save_batch`, with ids `engram/<n>` and `fts5/<n>`. One
//! iteration saves all `n` texts into a fresh store and closes it:
//!
//! - **engram**: every text through the whole save protocol (validate,
//!   redact, gate, decide against the views and the batch's earlier items,
//!   seal, entities), appended as one atomic batch with `Durability::Sync`
//!   (one fdatasync per appended part), the views waited for, then `close`
//!   (the views persisted).
//! - **fts5**: `CREATE VIRTUAL TABLE ... USING fts5(content, tokenize =
//!   'porter unicode61')`, WAL, `synchronous=FULL`, every text inserted in
//!   one transaction (one fsync), then the connection closed.
//!
//! The texts are the recall benchmark's synthetic memories
//! (`engram_benches::recall::memory_texts`): short sentences over an
//! English and Chinese vocabulary. Creating the empty store is not timed.
//! A figure is the time per batch; criterion's throughput is saves/s.
//!
//! Under `cargo test --benches` a batch holds 2,000 texts.
//!
//! Target: at least 20,000 saves/s at 100,000 texts.

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput};
use engram::Remember;
use engram::engine::Engram;
use engram::log::Durability;
use engram::store::{Store, StoreOptions};
use engram_benches::recall::{Vocabulary, memory_texts};

const BENCH_ITEMS: usize = 100_000;
const SMOKE_ITEMS: usize = 2_000;
const SEED: u64 = 0x5a7e;

fn n_items() -> usize {
    if std::env::args().any(|arg| arg == "--bench") {
        BENCH_ITEMS
    } else {
        SMOKE_ITEMS
    }
}

fn engram_save(texts: &[String]) -> Duration {
    let dir = tempfile::tempdir().expect("temporary folder");
    let options = StoreOptions {
        durability: Durability::Sync,
        ..StoreOptions::default()
    };
    let engram = Engram::open(Store::at(dir.path()), &options).expect("opening the store");
    let items: Vec<Remember> = texts.iter().map(Remember::text).collect();
    let started = Instant::now();
    let results = engram.remember_batch(&items).expect("the batch");
    engram.close().expect("closing the store");
    let elapsed = started.elapsed();
    let failed = results.iter().filter(|r| r.is_err()).count();
    assert_eq!(failed, 0, "{failed} items failed");
    elapsed
}

fn fts5_save(texts: &[String]) -> Duration {
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut conn = rusqlite::Connection::open(dir.path().join("fts5.sqlite")).expect("SQLite");
    let journal: String = conn
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
        .expect("WAL");
    assert_eq!(journal, "wal");
    conn.pragma_update(None, "synchronous", "FULL")
        .expect("synchronous=FULL");
    conn.execute_batch(
        "CREATE VIRTUAL TABLE memories USING fts5(content, tokenize = 'porter unicode61')",
    )
    .expect("FTS5 table");
    let started = Instant::now();
    let txn = conn.transaction().expect("transaction");
    {
        let mut insert = txn
            .prepare_cached("INSERT INTO memories (content) VALUES (?1)")
            .expect("insert");
        for text in texts {
            insert.execute([text]).expect("row");
        }
    }
    txn.commit().expect("commit");
    drop(conn);
    started.elapsed()
}

fn save_batch(c: &mut Criterion) {
    let n = n_items();
    let texts = memory_texts(&Vocabulary::new(), SEED, n);
    let mut group = c.benchmark_group("save_batch");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    group.measurement_time(Duration::from_secs(if n >= BENCH_ITEMS { 60 } else { 5 }));
    group.bench_with_input(BenchmarkId::new("engram", n), &texts, |b, texts| {
        b.iter_custom(|iters| (0..iters).map(|_| engram_save(texts)).sum());
    });
    group.bench_with_input(BenchmarkId::new("fts5", n), &texts, |b, texts| {
        b.iter_custom(|iters| (0..iters).map(|_| fts5_save(texts)).sum());
    });
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    save_batch(&mut criterion);
    criterion.final_summary();
}

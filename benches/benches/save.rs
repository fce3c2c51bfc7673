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
//! The process runs as the `engram` binary does: mimalloc as its
//! allocator, and a large batch prepares its items on a thread per core
//! while it decides them (`engram::set_prepare_while_planning`).
//! `ENGRAM_BENCH_PREPARE_FIRST=1` runs it the library's default way
//! instead, every item prepared before the first is decided, to compare.
//!
//! The texts are the recall benchmark's synthetic memories
//! (`engram_benches::recall::memory_texts`): short sentences over an
//! English and Chinese vocabulary. Creating the empty store is not timed.
//! A figure is the time per batch; criterion's throughput is saves/s.
//!
//! Under `cargo test --benches` a batch holds 2,000 texts.
//!
//! Target: at least 20,000 saves/s at 100,000 texts.
//!
//! A second group, `save_into_store`, saves a batch of 2,000 texts into a
//! store that already holds 100,000 memories of the same corpus, where
//! each save's decision searches the whole text index for neighbours:
//!
//! - **engram-new**: 2,000 texts not in the store (the corpus's next ones);
//! - **engram-again**: the store's first 2,000 texts saved again (each a
//!   restatement of a stored memory: reinforcements);
//! - **fts5-new**: the same 2,000 new texts inserted into an FTS5 table
//!   holding the same 100,000, in one transaction.
//!
//! The full store is built once; each iteration copies its folder and
//! opens it (not timed), then times the batch. Under `cargo test
//! --benches` the store holds 5,000 and a batch 200.

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput};
use engram::Remember;
use engram::engine::Engram;
use engram::log::Durability;
use engram::store::{Store, StoreOptions};
use engram_benches::recall::{Vocabulary, memory_texts};

/// The `engram` binary's allocator, so that a figure here is what
/// `engram remember --items` does (src/main.rs says why it is mimalloc).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const BENCH_ITEMS: usize = 100_000;
const SMOKE_ITEMS: usize = 2_000;
const SEED: u64 = 0x5a7e;
/// `save_into_store`: memories already in the store, and the batch saved.
const BENCH_FULL: (usize, usize) = (100_000, 2_000);
const SMOKE_FULL: (usize, usize) = (5_000, 200);

fn n_items() -> usize {
    if std::env::args().any(|arg| arg == "--bench") {
        BENCH_ITEMS
    } else {
        SMOKE_ITEMS
    }
}

fn full_sizes() -> (usize, usize) {
    if std::env::args().any(|arg| arg == "--bench") {
        BENCH_FULL
    } else {
        SMOKE_FULL
    }
}

fn sync_options() -> StoreOptions {
    StoreOptions {
        durability: Durability::Sync,
        ..StoreOptions::default()
    }
}

fn engram_save(texts: &[String]) -> Duration {
    let dir = tempfile::tempdir().expect("temporary folder");
    let engram = Engram::open(Store::at(dir.path()), &sync_options()).expect("opening the store");
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
    let mut conn = fts5_open(&dir.path().join("fts5.sqlite"));
    conn.execute_batch(
        "CREATE VIRTUAL TABLE memories USING fts5(content, tokenize = 'porter unicode61')",
    )
    .expect("FTS5 table");
    let elapsed = fts5_insert(&mut conn, texts);
    drop(conn);
    elapsed
}

/// A connection in WAL mode with `synchronous=FULL`.
fn fts5_open(path: &Path) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open(path).expect("SQLite");
    let journal: String = conn
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
        .expect("WAL");
    assert_eq!(journal, "wal");
    conn.pragma_update(None, "synchronous", "FULL")
        .expect("synchronous=FULL");
    conn
}

/// Inserts `texts` in one transaction; the time it took.
fn fts5_insert(conn: &mut rusqlite::Connection, texts: &[String]) -> Duration {
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
    started.elapsed()
}

/// Copies folder `from` into `to` (files and subfolders).
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("creating the copy");
    for entry in std::fs::read_dir(from).expect("reading the store folder") {
        let entry = entry.expect("a folder entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("entry type").is_dir() {
            copy_folder(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copying a file");
        }
    }
}

/// `texts` saved as one batch into a copy of the store in `full`: the
/// time of the batch alone.
fn engram_save_into(full: &Path, texts: &[String]) -> Duration {
    let dir = tempfile::tempdir().expect("temporary folder");
    copy_folder(full, dir.path());
    let engram = Engram::open(Store::at(dir.path()), &sync_options()).expect("opening the copy");
    let items: Vec<Remember> = texts.iter().map(Remember::text).collect();
    let started = Instant::now();
    let results = engram.remember_batch(&items).expect("the batch");
    let elapsed = started.elapsed();
    engram.close().expect("closing the store");
    let failed = results.iter().filter(|r| r.is_err()).count();
    assert_eq!(failed, 0, "{failed} items failed");
    elapsed
}

fn save_into_store(c: &mut Criterion) {
    let (held, batch) = full_sizes();
    let vocabulary = Vocabulary::new();
    let stored = memory_texts(&vocabulary, SEED, held + batch);
    let (stored, new) = stored.split_at(held);
    let again = &stored[..batch];
    let full = tempfile::tempdir().expect("temporary folder");
    let engram_dir = full.path().join("engram");
    let started = Instant::now();
    {
        let engram =
            Engram::open(Store::at(&engram_dir), &sync_options()).expect("opening the store");
        let items: Vec<Remember> = stored.iter().map(Remember::text).collect();
        let results = engram.remember_batch(&items).expect("filling the store");
        assert!(results.iter().all(Result::is_ok), "filling the store");
        engram.close().expect("closing the store");
    }
    let fts5_path = full.path().join("fts5.sqlite");
    {
        let mut conn = fts5_open(&fts5_path);
        conn.execute_batch(
            "CREATE VIRTUAL TABLE memories USING fts5(content, tokenize = 'porter unicode61')",
        )
        .expect("FTS5 table");
        fts5_insert(&mut conn, stored);
    }
    eprintln!(
        "save_into_store: {held} memories in both stores, {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let mut group = c.benchmark_group("save_into_store");
    group.sample_size(10);
    group.throughput(Throughput::Elements(batch as u64));
    group.measurement_time(Duration::from_secs(if held >= BENCH_FULL.0 {
        30
    } else {
        5
    }));
    group.bench_with_input(BenchmarkId::new("engram-new", held), &new, |b, texts| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| engram_save_into(&engram_dir, texts))
                .sum()
        });
    });
    group.bench_with_input(
        BenchmarkId::new("engram-again", held),
        &again,
        |b, texts| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| engram_save_into(&engram_dir, texts))
                    .sum()
            });
        },
    );
    group.bench_with_input(BenchmarkId::new("fts5-new", held), &new, |b, texts| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| {
                    let dir = tempfile::tempdir().expect("temporary folder");
                    let copy = dir.path().join("fts5.sqlite");
                    std::fs::copy(&fts5_path, &copy).expect("copying the database");
                    let mut conn = fts5_open(&copy);
                    fts5_insert(&mut conn, texts)
                })
                .sum()
        });
    });
    group.finish();
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
    // As the `engram` binary runs a batch (see its allocator above),
    // unless asked to compare with the library's default.
    let prepare_first = std::env::var_os("ENGRAM_BENCH_PREPARE_FIRST").is_some_and(|v| v == "1");
    engram::set_prepare_while_planning(!prepare_first);
    let mut criterion = Criterion::default().configure_from_args();
    save_batch(&mut criterion);
    save_into_store(&mut criterion);
    criterion.final_summary();
}

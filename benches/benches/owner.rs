//! One owner, many clients: what a command line call costs once a daemon
//! owns the store, against the sqlite3 command line over the same texts.
//!
//! Needs the release `engram` binary (`cargo build --release --bin
//! engram`, or `ENGRAM_BIN=/path/to/engram`) and the `sqlite3` command
//! line (Debian's `sqlite3`). Groups:
//!
//! - `recall_process/{engram,sqlite3}/<n>`: one whole process answering a
//!   keyword query over `n` memories: `engram --store DIR recall Q --json`
//!   against a warm daemon, and `sqlite3 DB "SELECT ... MATCH ..."` over
//!   an FTS5 table (`porter unicode61`) of the same texts. Queries rotate
//!   through the recall benchmark's synthetic ones. With
//!   `ENGRAM_BASELINE_BIN=/path/to/another/engram` (an earlier build, to
//!   compare before and after in one run), `recall_process/baseline/<n>`
//!   runs that binary's recall against the same daemon.
//! - `recall_socket/engram/<n>`: one recall request over the owner's
//!   socket from a client in this process (connect, request, answer):
//!   what `engram mcp` pays per tool call.
//! - `save_clients/<c>`: `c` client threads, each running `engram
//!   remember` processes in a row (4 each per iteration) against one
//!   daemon; throughput is saves/s over all of them, so `save_clients/8`
//!   above `save_clients/1` means concurrent saves meet in group commit.
//!
//! Sizes: 10,000 and 100,000 memories under `--bench`; 1,000 under
//! `cargo test --benches` (a smoke run).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput};
use engram::Remember;
use engram::client::Client;
use engram::engine::Engram;
use engram::store::{Store, StoreOptions};
use engram_benches::recall::{Vocabulary, fts5_match, memory_texts, queries};

const SEED: u64 = 0x0b5e;
const N_QUERIES: usize = 200;
const SAVES_PER_CLIENT: usize = 4;

fn sizes() -> Vec<usize> {
    if std::env::args().any(|arg| arg == "--bench") {
        vec![10_000, 100_000]
    } else {
        vec![1_000]
    }
}

/// The `engram` binary to run: `ENGRAM_BIN`, else the one cargo built
/// beside this bench (`target/release/engram`).
fn engram_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os("ENGRAM_BIN") {
        return PathBuf::from(bin);
    }
    let exe = std::env::current_exe().expect("the bench's own path");
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .map(|dir| dir.join("engram"))
        .expect("the target folder");
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build --release --bin engram` first, or set ENGRAM_BIN",
        bin.display()
    );
    bin
}

/// A daemon owning a store, stopped when dropped.
struct Daemon {
    child: Child,
    dir: PathBuf,
}

impl Daemon {
    fn start(bin: &Path, dir: &Path) -> Self {
        let child = Command::new(bin)
            .arg("--store")
            .arg(dir)
            .arg("daemon")
            .env_remove("ENGRAM_HMAC_KEY")
            .env("ENGRAM_MODEL_DIR", dir.join("no-model"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting the daemon");
        let client = Client::new(engram::owner::socket_path(dir));
        let deadline = Instant::now() + Duration::from_secs(600);
        while client.owner().is_err() {
            assert!(Instant::now() < deadline, "the daemon did not come up");
            std::thread::sleep(Duration::from_millis(20));
        }
        Self {
            child,
            dir: dir.to_owned(),
        }
    }

    fn client(&self) -> Client {
        Client::new(engram::owner::socket_path(&self.dir))
            .with_stores(&[engram::owner::SINGLE_STORE_NAME.to_owned()])
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

/// A store holding `texts`, built in this process and closed.
fn engram_store(dir: &Path, texts: &[String]) {
    let engram = Engram::open(Store::at(dir), &StoreOptions::default()).expect("opening the store");
    for chunk in texts.chunks(10_000) {
        let items: Vec<Remember> = chunk.iter().map(Remember::text).collect();
        let results = engram.remember_batch(&items).expect("the batch");
        assert!(results.iter().all(Result::is_ok), "a text was refused");
    }
    engram.close().expect("closing the store");
}

/// An SQLite database with an FTS5 table of `texts`.
fn sqlite_db(path: &Path, texts: &[String]) {
    let mut conn = rusqlite::Connection::open(path).expect("opening SQLite");
    conn.execute_batch(
        "PRAGMA journal_mode=WAL; CREATE VIRTUAL TABLE memories USING fts5(content, tokenize = 'porter unicode61');",
    )
    .expect("the FTS5 table");
    let txn = conn.transaction().expect("a transaction");
    {
        let mut insert = txn
            .prepare("INSERT INTO memories (content) VALUES (?1)")
            .expect("the insert");
        for text in texts {
            insert.execute([text]).expect("a row");
        }
    }
    txn.commit().expect("commit");
    conn.execute("INSERT INTO memories (memories) VALUES ('optimize')", [])
        .expect("optimize");
}

fn bench(c: &mut Criterion) {
    let bin = engram_bin();
    let vocabulary = Vocabulary::new();
    let questions = queries(&vocabulary, SEED ^ 1, N_QUERIES);
    for n in sizes() {
        let texts = memory_texts(&vocabulary, SEED, n);
        let scratch = tempfile::tempdir().expect("temporary folder");
        let store = scratch.path().join("store");
        engram_store(&store, &texts);
        let db = scratch.path().join("fts5.sqlite");
        sqlite_db(&db, &texts);
        let daemon = Daemon::start(&bin, &store);

        let mut group = c.benchmark_group("recall_process");
        group.sample_size(30);
        let mut i = 0;
        group.bench_function(BenchmarkId::new("engram", n), |b| {
            b.iter(|| {
                let query = &questions[i % questions.len()];
                i += 1;
                let out = Command::new(&bin)
                    .arg("--store")
                    .arg(&store)
                    .args(["recall", query, "--json"])
                    .output()
                    .expect("engram recall");
                assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
                out.stdout.len()
            });
        });
        if let Some(baseline) = std::env::var_os("ENGRAM_BASELINE_BIN") {
            let mut i = 0;
            group.bench_function(BenchmarkId::new("baseline", n), |b| {
                b.iter(|| {
                    let query = &questions[i % questions.len()];
                    i += 1;
                    let out = Command::new(&baseline)
                        .arg("--store")
                        .arg(&store)
                        .args(["recall", query, "--json"])
                        .output()
                        .expect("the baseline's recall");
                    assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
                    out.stdout.len()
                });
            });
        }
        let mut i = 0;
        group.bench_function(BenchmarkId::new("sqlite3", n), |b| {
            b.iter(|| {
                let query = &questions[i % questions.len()];
                i += 1;
                let expression = fts5_match(query).unwrap_or_else(|| "\"none\"".to_owned());
                let sql = format!(
                    "SELECT rowid, content, bm25(memories) FROM memories WHERE memories MATCH '{}' ORDER BY rank LIMIT 5;",
                    expression.replace('\'', "''")
                );
                let out = Command::new("sqlite3")
                    .arg(&db)
                    .arg(sql)
                    .output()
                    .expect("sqlite3 (Debian's sqlite3 package)");
                assert!(out.status.success(), "{out:?}");
                out.stdout.len()
            });
        });
        group.finish();

        let mut group = c.benchmark_group("recall_socket");
        let client = daemon.client();
        let mut i = 0;
        group.bench_function(BenchmarkId::new("engram", n), |b| {
            b.iter(|| {
                let query = &questions[i % questions.len()];
                i += 1;
                let answer = client
                    .call(
                        "POST",
                        "/api/recall",
                        Some(&serde_json::json!({"query": query})),
                    )
                    .expect("a recall");
                answer["hits"].as_array().map_or(0, Vec::len)
            });
        });
        group.finish();
        drop(daemon);
    }

    let scratch = tempfile::tempdir().expect("temporary folder");
    let store = scratch.path().join("store");
    let daemon = Daemon::start(&bin, &store);
    let mut group = c.benchmark_group("save_clients");
    group.sample_size(10);
    let mut round = 0u64;
    for clients in [1usize, 8] {
        group.throughput(Throughput::Elements((clients * SAVES_PER_CLIENT) as u64));
        group.bench_function(BenchmarkId::from_parameter(clients), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    round += 1;
                    let started = Instant::now();
                    std::thread::scope(|s| {
                        for client in 0..clients {
                            let (bin, store) = (&bin, &store);
                            s.spawn(move || {
                                for k in 0..SAVES_PER_CLIENT {
                                    let status = Command::new(bin)
                                        .arg("--store")
                                        .arg(store)
                                        .args([
                                            "remember",
                                            &format!(
                                                "Round {round} client {client} save {k}: the quartz ledger balances"
                                            ),
                                        ])
                                        .stdout(Stdio::null())
                                        .status()
                                        .expect("engram remember");
                                    assert!(status.success());
                                }
                            });
                        }
                    });
                    total += started.elapsed();
                }
                total
            });
        });
    }
    group.finish();
    drop(daemon);
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion);
    criterion.final_summary();
}

//! The shared workload and the peer engines of engram's benchmarks.
//!
//! Every benchmark appends the same synthetic session events
//! ([`session_event`]) to three engines behind one [`Peer`] trait:
//!
//! - [`EngramPeer`]: an engram [`Log`] on [`FileStorage`]; one append is one
//!   batch through the group-commit writer (one frame, one `fdatasync` per
//!   commit group under [`SyncMode::Sync`]).
//! - [`RedbPeer`]: one redb write transaction per batch, each event's bytes
//!   stored under its seq (`u64 -> &[u8]`), `Durability::Immediate` for
//!   [`SyncMode::Sync`] and `Durability::None` for [`SyncMode::None`].
//! - [`SqlitePeer`]: SQLite in WAL mode, one transaction per batch inserting
//!   `(seq INTEGER PRIMARY KEY, bytes BLOB)`, `synchronous=FULL` for
//!   [`SyncMode::Sync`] and `synchronous=OFF` for [`SyncMode::None`].
//!
//! **Invariant (fairness):** every peer stores, per event, exactly the bytes
//! [`engram_log::codec::encode`] gives (engram adds its own length prefix and
//! frame overhead around them), and every peer encodes on the appending
//! thread and decodes every event when it replays. Seqs start at 1 and are
//! contiguous in every peer.
//!
//! redb and SQLite allow one writer at a time: with many appending threads
//! they serialize on a lock around the write transaction, and each batch is
//! its own commit. engram merges the batches queued while it syncs into one
//! commit group.
//!
//! The stores live in temporary folders (`TMPDIR`, `/tmp` by default). The
//! `sync` figures mean something only when that folder is on a real disk,
//! never on tmpfs, where `fsync` costs nothing.

pub mod fts5;
pub mod recall;
pub mod retrieval;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, anyhow, ensure};
use engram_log::{
    Durability, Event, FileStorage, HmacKey, KeyStoreConfig, Log, LogConfig, LogReader, MasterKey,
    Role, SessionEvent, codec,
};
use tempfile::TempDir;

/// The HMAC key of every benchmark log.
pub const BENCH_KEY: [u8; 32] = [0x5a; 32];

/// The seed of the benchmark workload.
pub const BENCH_SEED: u64 = 0x0e6a_2026;

/// Turns per synthetic session.
const SESSION_TURNS: u64 = 32;

/// Words of the synthetic turns: a memory engine hears about preferences,
/// plans, code and people.
#[rustfmt::skip]
const WORDS: &[&str] = &[
    "the", "user", "prefers", "green", "tea", "in", "the", "morning", "and", "coffee", "after",
    "lunch", "we", "should", "refactor", "parser", "module", "before", "release", "meeting", "with",
    "Alice", "moved", "to", "Thursday", "remember", "that", "deploy", "script", "needs", "a",
    "fresh", "token", "tests", "fail", "on", "Windows", "because", "of", "path", "separators",
    "she", "likes", "short", "answers", "please", "keep", "summary", "under", "three", "lines",
    "budget", "for", "next", "quarter", "is", "approved", "database", "migration", "ran",
    "overnight", "without", "errors", "call", "Bob", "about", "invoice", "garden", "project",
    "uses", "Rust", "edition", "2024", "latency", "dropped", "after", "cache", "fix", "flight",
    "to", "Lisbon", "leaves", "at", "seven", "allergic", "peanuts",
];

/// A SplitMix64 step: small, fast and deterministic on every platform.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Synthetic turn `index` of the workload seeded by `seed`: one
/// [`Event::Session`] whose content is a sentence of 90 to 170 characters,
/// so the event encodes to roughly 110 to 190 bytes. The same `(seed,
/// index)` always gives the same event, so stores can be built in chunks.
#[must_use]
pub fn session_event(seed: u64, index: u64) -> Event {
    let mut rng = seed ^ index.wrapping_mul(0xd6e8_feb8_6659_fd93);
    let target = 90 + (splitmix64(&mut rng) % 81) as usize;
    let mut content = String::with_capacity(target + 16);
    while content.len() < target {
        if !content.is_empty() {
            content.push(' ');
        }
        let word = WORDS
            .get((splitmix64(&mut rng) % WORDS.len() as u64) as usize)
            .copied()
            .unwrap_or("memory");
        content.push_str(word);
    }
    content.push('.');
    let turn = index % SESSION_TURNS;
    Event::Session(SessionEvent {
        session: format!("session-{:06}", index / SESSION_TURNS),
        turn: u32::try_from(turn).unwrap_or(u32::MAX),
        role: if turn.is_multiple_of(2) {
            Role::User
        } else {
            Role::Assistant
        },
        content,
    })
}

/// Turns `first_index..first_index + n` of the workload seeded by `seed`.
#[must_use]
pub fn session_events(seed: u64, first_index: u64, n: usize) -> Vec<Event> {
    (first_index..first_index + n as u64)
        .map(|index| session_event(seed, index))
        .collect()
}

/// Total codec bytes of `events` (what every peer stores per event).
pub fn encoded_bytes(events: &[Event]) -> Result<usize> {
    let mut scratch = Vec::new();
    let mut total = 0;
    for event in events {
        scratch.clear();
        total += codec::encode_into(event, &mut scratch)?;
    }
    Ok(total)
}

/// When an append is acknowledged, for all peers alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncMode {
    /// Acknowledged once the data is on stable storage (fsync/fdatasync).
    Sync,
    /// Acknowledged once written to the OS; no fsync.
    None,
}

impl SyncMode {
    /// Both modes, durable first.
    pub const ALL: [SyncMode; 2] = [SyncMode::Sync, SyncMode::None];

    /// `sync` or `none`, for benchmark ids.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            SyncMode::Sync => "sync",
            SyncMode::None => "none",
        }
    }
}

/// Which engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeerKind {
    Engram,
    /// engram with its words sealed (a key store beside the log): the
    /// cost of encryption, measured against [`PeerKind::Engram`].
    EngramSealed,
    Redb,
    Sqlite,
}

impl PeerKind {
    /// Every engine, engram first.
    pub const ALL: [PeerKind; 4] = [
        PeerKind::Engram,
        PeerKind::EngramSealed,
        PeerKind::Redb,
        PeerKind::Sqlite,
    ];

    /// The engine's name, for benchmark ids.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            PeerKind::Engram => "engram",
            PeerKind::EngramSealed => "engram-sealed",
            PeerKind::Redb => "redb",
            PeerKind::Sqlite => "sqlite",
        }
    }

    /// Creates (or reopens) this engine's store in folder `dir`.
    pub fn open(self, dir: &Path, mode: SyncMode) -> Result<Box<dyn Peer>> {
        Ok(match self {
            PeerKind::Engram => Box::new(EngramPeer::open(dir, mode)?),
            PeerKind::EngramSealed => Box::new(EngramPeer::open_sealed(dir, mode)?),
            PeerKind::Redb => Box::new(RedbPeer::open(dir, mode)?),
            PeerKind::Sqlite => Box::new(SqlitePeer::open(dir, mode)?),
        })
    }
}

/// An engine that appends events and reads them back. Shared by reference
/// between appending threads.
pub trait Peer: Send + Sync {
    /// The engine's name.
    fn kind(&self) -> PeerKind;

    /// Appends `events` atomically as one commit and returns the last seq
    /// given, once the commit is acknowledged per the store's [`SyncMode`].
    fn append(&self, events: &[Event]) -> Result<u64>;

    /// Makes everything appended so far durable.
    fn sync(&self) -> Result<()>;

    /// Reads every event in seq order, decoding each, and calls `visit` with
    /// its seq. Returns how many events it visited.
    fn replay(&self, visit: &mut dyn FnMut(u64, Event)) -> Result<u64>;
}

/// A peer in a temporary folder that is removed when the store is dropped.
pub struct TempStore {
    /// Dropped before the folder.
    pub peer: Box<dyn Peer>,
    dir: TempDir,
}

impl TempStore {
    /// A new, empty store of `kind`.
    pub fn new(kind: PeerKind, mode: SyncMode) -> Result<Self> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("engram-bench-{}-", kind.label()))
            .tempdir()
            .context("creating a temporary folder")?;
        let peer = kind.open(dir.path(), mode)?;
        Ok(Self { peer, dir })
    }

    /// The store's folder.
    #[must_use]
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Closes the peer and keeps the folder, for reopening.
    #[must_use]
    pub fn into_dir(self) -> TempDir {
        drop(self.peer);
        self.dir
    }
}

/// Appends workload events `0..n_events` to `peer` in batches of
/// `batch_events`, then syncs. Used to build the replay stores.
pub fn fill(peer: &dyn Peer, seed: u64, n_events: u64, batch_events: usize) -> Result<()> {
    let mut index = 0;
    while index < n_events {
        let n = usize::try_from((n_events - index).min(batch_events as u64))?;
        let batch = session_events(seed, index, n);
        let last = peer.append(&batch)?;
        ensure!(
            last == index + n as u64,
            "{:?} gave seq {last}",
            peer.kind()
        );
        index += n as u64;
    }
    peer.sync()
}

/// Runs `n_threads` threads that each append `appends_per_thread` batches of
/// one event to `peer`, taking events from `events` round-robin. Returns
/// the time from the moment all threads are ready until the last append was
/// acknowledged (thread start-up is left out).
pub fn append_concurrent(
    peer: &dyn Peer,
    events: &[Event],
    n_threads: usize,
    appends_per_thread: u64,
) -> Result<Duration> {
    ensure!(!events.is_empty(), "no events to append");
    let barrier = Barrier::new(n_threads + 1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n_threads)
            .map(|thread_idx| {
                let barrier = &barrier;
                scope.spawn(move || -> Result<()> {
                    barrier.wait();
                    for i in 0..appends_per_thread {
                        let at = (thread_idx as u64 * appends_per_thread + i) % events.len() as u64;
                        let event = events.get(usize::try_from(at)?).context("event index")?;
                        peer.append(std::slice::from_ref(event))?;
                    }
                    Ok(())
                })
            })
            .collect();
        barrier.wait();
        let start = Instant::now();
        for handle in handles {
            handle
                .join()
                .map_err(|_| anyhow!("an appending thread panicked"))??;
        }
        Ok(start.elapsed())
    })
}

/// The master key of the sealed benchmark stores.
pub const BENCH_MASTER_KEY: [u8; 32] = [0xa5; 32];

/// Folder of a sealed peer's log, inside its store folder (the key store
/// sits beside it, as in an engram store).
pub const SEALED_LOG_DIR: &str = "log";

/// engram: a [`Log`] on [`FileStorage`] in one folder, or (sealed) in the
/// `log` folder of a store folder that holds its key store.
pub struct EngramPeer {
    log: Log,
    dir: PathBuf,
    sealed: bool,
}

impl EngramPeer {
    /// Opens (or creates) the log in `dir`.
    pub fn open(dir: &Path, mode: SyncMode) -> Result<Self> {
        let storage = Arc::new(FileStorage::open(dir)?);
        let config = LogConfig::new(HmacKey::from_bytes(BENCH_KEY)).durability(durability(mode));
        let log = Log::open(storage, config)?;
        Ok(Self {
            log,
            dir: dir.to_path_buf(),
            sealed: false,
        })
    }

    /// Opens (or creates) a sealed log in `dir/log`, its key store in `dir`.
    pub fn open_sealed(dir: &Path, mode: SyncMode) -> Result<Self> {
        let log_dir = dir.join(SEALED_LOG_DIR);
        std::fs::create_dir_all(&log_dir)?;
        let storage = Arc::new(FileStorage::open(&log_dir)?);
        let config = LogConfig::new(HmacKey::from_bytes(BENCH_KEY))
            .durability(durability(mode))
            .keys(
                Arc::new(FileStorage::open(dir)?),
                MasterKey::from_bytes(BENCH_MASTER_KEY),
            );
        let log = Log::open(storage, config)?;
        Ok(Self {
            log,
            dir: dir.to_path_buf(),
            sealed: true,
        })
    }

    /// Whether the log seals its words.
    #[must_use]
    pub fn is_sealed(&self) -> bool {
        self.sealed
    }

    /// Opens the sealed log of store folder `dir` read-only, with its key
    /// store, as `engram verify` and the views do.
    pub fn sealed_reader(dir: &Path) -> Result<LogReader> {
        Ok(LogReader::open_dir_with_keys(
            &dir.join(SEALED_LOG_DIR),
            HmacKey::from_bytes(BENCH_KEY),
            Some(KeyStoreConfig {
                storage: Arc::new(FileStorage::open(dir)?),
                master: MasterKey::from_bytes(BENCH_MASTER_KEY),
            }),
        )?)
    }

    /// The log's folder.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The open log.
    #[must_use]
    pub fn log(&self) -> &Log {
        &self.log
    }

    /// Opens the log in `dir` read-only, as `engram verify` does.
    pub fn reader(dir: &Path) -> Result<LogReader> {
        Ok(LogReader::open_dir(dir, HmacKey::from_bytes(BENCH_KEY))?)
    }
}

fn durability(mode: SyncMode) -> Durability {
    match mode {
        SyncMode::Sync => Durability::Sync,
        SyncMode::None => Durability::None,
    }
}

impl Peer for EngramPeer {
    fn kind(&self) -> PeerKind {
        if self.sealed {
            PeerKind::EngramSealed
        } else {
            PeerKind::Engram
        }
    }

    fn append(&self, events: &[Event]) -> Result<u64> {
        Ok(self.log.append(events)?.last_seq)
    }

    fn sync(&self) -> Result<()> {
        Ok(self.log.sync()?)
    }

    fn replay(&self, visit: &mut dyn FnMut(u64, Event)) -> Result<u64> {
        replay_reader(self.log.reader(), visit)
    }
}

/// Replays every event of `reader`, decoding each (and checking every
/// frame's hash, chain link and HMAC, as replay always does).
pub fn replay_reader(reader: &LogReader, visit: &mut dyn FnMut(u64, Event)) -> Result<u64> {
    let mut n = 0;
    for logged in reader.replay(1) {
        let logged = logged?;
        visit(logged.seq, logged.event);
        n += 1;
    }
    Ok(n)
}

/// The redb table: seq -> codec bytes.
const REDB_EVENTS: redb::TableDefinition<u64, &[u8]> = redb::TableDefinition::new("events");

/// redb: one write transaction per batch.
pub struct RedbPeer {
    db: redb::Database,
    durability: redb::Durability,
    /// The next seq to give; held across the write transaction, which
    /// serializes writers as redb's own writer lock would.
    next_seq: Mutex<u64>,
}

impl RedbPeer {
    /// The database file inside a store folder.
    #[must_use]
    pub fn path(dir: &Path) -> PathBuf {
        dir.join("events.redb")
    }

    /// Opens (or creates) the database in `dir`.
    pub fn open(dir: &Path, mode: SyncMode) -> Result<Self> {
        let path = Self::path(dir);
        let db = if path.exists() {
            redb::Database::open(&path)?
        } else {
            redb::Database::create(&path)?
        };
        let txn = db.begin_write()?;
        let next_seq = {
            let table = txn.open_table(REDB_EVENTS)?;
            use redb::ReadableTable as _;
            table.last()?.map_or(1, |(seq, _)| seq.value() + 1)
        };
        txn.commit()?;
        let durability = match mode {
            SyncMode::Sync => redb::Durability::Immediate,
            SyncMode::None => redb::Durability::None,
        };
        Ok(Self {
            db,
            durability,
            next_seq: Mutex::new(next_seq),
        })
    }

    /// Opens the database in `dir` read-only and replays it: the peer's
    /// counterpart of opening an engram log and replaying it.
    pub fn replay_dir(dir: &Path, visit: &mut dyn FnMut(u64, Event)) -> Result<u64> {
        use redb::ReadableDatabase as _;
        let db = redb::ReadOnlyDatabase::open(Self::path(dir))?;
        redb_replay(&db.begin_read()?, visit)
    }

    /// redb's own integrity check (page checksums and tree structure).
    pub fn check_integrity(dir: &Path) -> Result<bool> {
        let mut db = redb::Database::open(Self::path(dir))?;
        Ok(db.check_integrity()?)
    }
}

impl Peer for RedbPeer {
    fn kind(&self) -> PeerKind {
        PeerKind::Redb
    }

    fn append(&self, events: &[Event]) -> Result<u64> {
        let mut next_seq = self
            .next_seq
            .lock()
            .map_err(|_| anyhow!("redb seq lock poisoned"))?;
        let mut seq = *next_seq;
        let mut txn = self.db.begin_write()?;
        txn.set_durability(self.durability)?;
        {
            let mut table = txn.open_table(REDB_EVENTS)?;
            let mut bytes = Vec::new();
            for event in events {
                bytes.clear();
                codec::encode_into(event, &mut bytes)?;
                table.insert(seq, bytes.as_slice())?;
                seq += 1;
            }
        }
        txn.commit()?;
        *next_seq = seq;
        Ok(seq - 1)
    }

    fn sync(&self) -> Result<()> {
        let _guard = self
            .next_seq
            .lock()
            .map_err(|_| anyhow!("redb seq lock poisoned"))?;
        let mut txn = self.db.begin_write()?;
        txn.set_durability(redb::Durability::Immediate)?;
        txn.commit()?;
        Ok(())
    }

    fn replay(&self, visit: &mut dyn FnMut(u64, Event)) -> Result<u64> {
        use redb::ReadableDatabase as _;
        redb_replay(&self.db.begin_read()?, visit)
    }
}

/// Reads and decodes every row of the events table in seq order.
fn redb_replay(txn: &redb::ReadTransaction, visit: &mut dyn FnMut(u64, Event)) -> Result<u64> {
    use redb::ReadableTable as _;
    let table = txn.open_table(REDB_EVENTS)?;
    let mut n = 0;
    for row in table.iter()? {
        let (seq, bytes) = row?;
        visit(seq.value(), codec::decode(bytes.value())?);
        n += 1;
    }
    Ok(n)
}

/// SQLite (WAL): one transaction per batch.
pub struct SqlitePeer {
    /// A connection is used by one thread at a time; the seq rides along.
    conn: Mutex<(rusqlite::Connection, u64)>,
}

impl SqlitePeer {
    /// The database file inside a store folder.
    #[must_use]
    pub fn path(dir: &Path) -> PathBuf {
        dir.join("events.sqlite")
    }

    /// Opens (or creates) the database in `dir`.
    pub fn open(dir: &Path, mode: SyncMode) -> Result<Self> {
        let conn = rusqlite::Connection::open(Self::path(dir))?;
        let journal: String = conn.query_row("PRAGMA journal_mode=WAL", [], |row| row.get(0))?;
        ensure!(journal == "wal", "SQLite refused WAL mode: {journal}");
        let synchronous = match mode {
            SyncMode::Sync => "FULL",
            SyncMode::None => "OFF",
        };
        conn.pragma_update(None, "synchronous", synchronous)?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, bytes BLOB NOT NULL)",
        )?;
        let last: i64 = conn.query_row("SELECT COALESCE(MAX(seq), 0) FROM events", [], |row| {
            row.get(0)
        })?;
        Ok(Self {
            conn: Mutex::new((conn, u64::try_from(last)? + 1)),
        })
    }

    /// Opens the database in `dir` and replays it: the peer's counterpart of
    /// opening an engram log and replaying it.
    pub fn replay_dir(dir: &Path, visit: &mut dyn FnMut(u64, Event)) -> Result<u64> {
        let conn = rusqlite::Connection::open_with_flags(
            Self::path(dir),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )?;
        sqlite_replay(&conn, visit)
    }

    /// SQLite's own `PRAGMA integrity_check` over the database in `dir`.
    pub fn integrity_check(dir: &Path) -> Result<bool> {
        let conn = rusqlite::Connection::open(Self::path(dir))?;
        let verdict: String = conn.query_row("PRAGMA integrity_check", [], |row| row.get(0))?;
        Ok(verdict == "ok")
    }
}

impl Peer for SqlitePeer {
    fn kind(&self) -> PeerKind {
        PeerKind::Sqlite
    }

    fn append(&self, events: &[Event]) -> Result<u64> {
        let mut guard = self
            .conn
            .lock()
            .map_err(|_| anyhow!("SQLite connection lock poisoned"))?;
        let (conn, next_seq) = &mut *guard;
        let mut seq = *next_seq;
        let txn = conn.transaction()?;
        {
            let mut insert =
                txn.prepare_cached("INSERT INTO events (seq, bytes) VALUES (?1, ?2)")?;
            let mut bytes = Vec::new();
            for event in events {
                bytes.clear();
                codec::encode_into(event, &mut bytes)?;
                insert.execute(rusqlite::params![i64::try_from(seq)?, bytes.as_slice()])?;
                seq += 1;
            }
        }
        txn.commit()?;
        *next_seq = seq;
        Ok(seq - 1)
    }

    fn sync(&self) -> Result<()> {
        let guard = self
            .conn
            .lock()
            .map_err(|_| anyhow!("SQLite connection lock poisoned"))?;
        let conn = &guard.0;
        let synchronous: i64 = conn.query_row("PRAGMA synchronous", [], |row| row.get(0))?;
        // A checkpoint under FULL fsyncs the WAL and the database file.
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        conn.pragma_update(None, "synchronous", synchronous)?;
        Ok(())
    }

    fn replay(&self, visit: &mut dyn FnMut(u64, Event)) -> Result<u64> {
        let guard = self
            .conn
            .lock()
            .map_err(|_| anyhow!("SQLite connection lock poisoned"))?;
        sqlite_replay(&guard.0, visit)
    }
}

/// Reads and decodes every row of the events table in seq order.
fn sqlite_replay(conn: &rusqlite::Connection, visit: &mut dyn FnMut(u64, Event)) -> Result<u64> {
    let mut select = conn.prepare_cached("SELECT seq, bytes FROM events ORDER BY seq")?;
    let mut rows = select.query([])?;
    let mut n = 0;
    while let Some(row) = rows.next()? {
        let seq: i64 = row.get(0)?;
        let bytes = row.get_ref(1)?.as_blob()?;
        visit(u64::try_from(seq)?, codec::decode(bytes)?);
        n += 1;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(peer: &dyn Peer) -> Vec<(u64, Event)> {
        let mut out = Vec::new();
        let n = peer
            .replay(&mut |seq, event| out.push((seq, event)))
            .unwrap();
        assert_eq!(n, out.len() as u64);
        out
    }

    #[test]
    fn workload_is_deterministic_and_sized_like_a_turn() {
        let events = session_events(7, 0, 200);
        assert_eq!(events, session_events(7, 0, 200));
        assert_eq!(events[150], session_event(7, 150));
        assert_ne!(events, session_events(8, 0, 200));
        for event in &events {
            let size = codec::encode(event).unwrap().len();
            assert!((100..=200).contains(&size), "{size} bytes");
        }
    }

    /// Each peer gives contiguous seqs and reads back exactly what it was
    /// given, after a reopen too, in both modes.
    #[test]
    fn every_peer_stores_and_reads_back_what_was_appended() {
        let events = session_events(BENCH_SEED, 0, 40);
        for mode in SyncMode::ALL {
            for kind in PeerKind::ALL {
                let store = TempStore::new(kind, mode).unwrap();
                assert_eq!(store.peer.append(&events[..1]).unwrap(), 1);
                assert_eq!(store.peer.append(&events[1..25]).unwrap(), 25);
                assert_eq!(store.peer.append(&events[25..]).unwrap(), 40);
                store.peer.sync().unwrap();
                let expected: Vec<_> = (1..).zip(events.iter().cloned()).collect();
                assert_eq!(read_all(&*store.peer), expected, "{kind:?} {mode:?}");

                let dir = store.into_dir();
                let reopened = kind.open(dir.path(), mode).unwrap();
                assert_eq!(read_all(&*reopened), expected, "{kind:?} reopened");
                assert_eq!(reopened.append(&events[..2]).unwrap(), 42);
            }
        }
    }

    #[test]
    fn concurrent_appends_land_once_each() {
        let events = session_events(BENCH_SEED, 0, 16);
        for kind in PeerKind::ALL {
            let store = TempStore::new(kind, SyncMode::None).unwrap();
            append_concurrent(&*store.peer, &events, 4, 4).unwrap();
            let read = read_all(&*store.peer);
            let seqs: Vec<u64> = read.iter().map(|(seq, _)| *seq).collect();
            assert_eq!(seqs, (1..=16).collect::<Vec<_>>(), "{kind:?}");
            let mut got: Vec<String> = read.iter().map(|(_, e)| format!("{e:?}")).collect();
            let mut want: Vec<String> = events.iter().map(|e| format!("{e:?}")).collect();
            got.sort();
            want.sort();
            assert_eq!(got, want, "{kind:?}");
        }
    }

    #[test]
    fn fill_builds_a_log_that_verifies() {
        let store = TempStore::new(PeerKind::Engram, SyncMode::None).unwrap();
        fill(&*store.peer, BENCH_SEED, 300, 64).unwrap();
        let dir = store.into_dir();
        let reader = EngramPeer::reader(dir.path()).unwrap();
        assert_eq!(reader.last_seq(), 300);
        assert!(reader.verify().unwrap().is_ok());
        assert_eq!(replay_reader(&reader, &mut |_, _| {}).unwrap(), 300);
        // Sealed: the same events read back, and no turn's words are in
        // the log's bytes.
        let store = TempStore::new(PeerKind::EngramSealed, SyncMode::None).unwrap();
        fill(&*store.peer, BENCH_SEED, 300, 64).unwrap();
        let dir = store.into_dir();
        let reader = EngramPeer::sealed_reader(dir.path()).unwrap();
        assert!(reader.verify().unwrap().is_ok());
        let mut words = Vec::new();
        replay_reader(&reader, &mut |_, event| {
            if let Event::Session(turn) = event {
                words.push(turn.content);
            }
        })
        .unwrap();
        assert_eq!(words.len(), 300);
        let log_bytes: Vec<u8> = std::fs::read_dir(dir.path().join(SEALED_LOG_DIR))
            .unwrap()
            .flat_map(|entry| std::fs::read(entry.unwrap().path()).unwrap())
            .collect();
        for text in &words {
            assert!(!log_bytes.windows(text.len()).any(|w| w == text.as_bytes()));
        }
        for kind in [PeerKind::Redb, PeerKind::Sqlite] {
            let store = TempStore::new(kind, SyncMode::None).unwrap();
            fill(&*store.peer, BENCH_SEED, 300, 64).unwrap();
            assert_eq!(store.peer.replay(&mut |_, _| {}).unwrap(), 300);
        }
        let store = TempStore::new(PeerKind::Redb, SyncMode::None).unwrap();
        fill(&*store.peer, BENCH_SEED, 10, 4).unwrap();
        let dir = store.into_dir();
        assert_eq!(
            RedbPeer::replay_dir(dir.path(), &mut |_, _| {}).unwrap(),
            10
        );
        assert!(RedbPeer::check_integrity(dir.path()).unwrap());
        let store = TempStore::new(PeerKind::Sqlite, SyncMode::None).unwrap();
        fill(&*store.peer, BENCH_SEED, 10, 4).unwrap();
        let dir = store.into_dir();
        assert_eq!(
            SqlitePeer::replay_dir(dir.path(), &mut |_, _| {}).unwrap(),
            10
        );
        assert!(SqlitePeer::integrity_check(dir.path()).unwrap());
    }
}

/// The `i`th event (0-based, seq `i + 1`) of a deterministic mixed workload
/// for the views: conversation turns, memories over them, recalls that hit
/// them, reinforcements, grades, tier moves, archives and forgets, in the
/// proportions a working agent produces (about 40% turns, 15% memories, 20%
/// recalls). Memory ids refer to earlier `Remembered` events only.
pub fn mixed_event(seed: u64, i: u64) -> Event {
    use engram_log::{
        Actor, Archived, Digest, Forgotten, Graded, MemoryRef, RecallFilters, RecallHit, Recalled,
        Reinforced, Remembered, Scope, Source, Tier, TierChanged,
    };
    let seq = i + 1;
    let roll = splitmix(seed ^ seq) % 100;
    // Memories sit at seqs where roll < 15 would have put them; pick an
    // earlier seq by hashing and walking back to a memory seq.
    let earlier_memory = |salt: u64| -> Option<u64> {
        let mut candidate = splitmix(seed ^ seq ^ salt) % seq.max(1) + 1;
        for _ in 0..64 {
            if candidate < seq && (40..55).contains(&(splitmix(seed ^ candidate) % 100)) {
                return Some(candidate);
            }
            candidate = candidate.saturating_sub(1).max(1);
        }
        None
    };
    let memory_or_turn = |salt: u64, make: &dyn Fn(u64) -> Event| {
        earlier_memory(salt).map_or_else(|| session_event(seed, i), make)
    };
    match roll {
        0..40 => session_event(seed, i),
        40..55 => Event::Remembered(Remembered {
            reference: MemoryRef {
                session: format!("session-{}", i / SESSION_TURNS),
                first_seq: seq.saturating_sub(2).max(1),
                last_seq: seq.saturating_sub(1).max(1),
            },
            content_sha256: Digest([(seq % 251) as u8; 32]),
            mac: Digest([(seq % 241) as u8; 32]),
            summary: Some(format!("memory at {seq}")),
            tags: vec!["bench".to_owned()],
            tier: Tier::L3,
            room: Some(format!("room-{}", seq % 40)),
            uniqueness_permille: (seq % 1000) as u16,
            source: [Source::User, Source::Model, Source::Ingest][(seq % 3) as usize],
            scope: Scope::Store,
            embedding: None,
        }),
        55..75 => Event::Recalled(Recalled {
            query: format!("query {}", seq % 97),
            filters: RecallFilters {
                room: None,
                tier: None,
                tags: Vec::new(),
                scope: None,
                limit: 5,
            },
            hits: (0..3)
                .filter_map(earlier_memory)
                .map(|memory| RecallHit {
                    memory,
                    score_micros: splitmix(memory) % 1_000_000,
                })
                .collect(),
            mode: "keyword".to_owned(),
        }),
        75..83 => memory_or_turn(11, &|memory| {
            Event::Reinforced(Reinforced {
                memory,
                evidence: None,
                source: Source::User,
            })
        }),
        83..91 => memory_or_turn(12, &|memory| {
            Event::Graded(Graded {
                memory,
                grade: (seq % 6) as u8,
            })
        }),
        91..95 => memory_or_turn(13, &|memory| {
            Event::TierChanged(TierChanged {
                memory,
                from: Tier::L3,
                to: Tier::L2,
                reason: "promoted".to_owned(),
            })
        }),
        95..98 => memory_or_turn(14, &|memory| {
            Event::Archived(Archived {
                memory,
                reason: "decay".to_owned(),
            })
        }),
        _ => memory_or_turn(15, &|memory| {
            Event::Forgotten(Forgotten {
                memory,
                by: Actor::User,
                reason: "asked".to_owned(),
            })
        }),
    }
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A store folder holding `n` events of the mixed workload (batches of 1024,
/// synced once at the end), for the view benchmarks.
pub fn mixed_store(dir: &Path, seed: u64, n: u64, sealed: bool) -> Result<engram::store::Store> {
    let store = engram::store::Store::at(dir);
    let options = engram::store::StoreOptions {
        key: engram_log::KeySource::StoreFile,
        durability: Durability::None,
        master_key: engram_log::MasterKeySource::StoreFile,
        seal_new_stores: sealed,
        ..engram::store::StoreOptions::default()
    };
    let log = store.open_log(&options)?;
    let mut i = 0;
    while i < n {
        let batch: Vec<Event> = (i..(i + 1024).min(n))
            .map(|k| mixed_event(seed, k))
            .collect();
        log.append(&batch)?;
        i += batch.len() as u64;
    }
    log.close()?;
    Ok(store)
}

#[cfg(test)]
mod mixed_tests {
    use super::*;

    #[test]
    fn the_mixed_workload_names_only_earlier_memories() {
        let events: Vec<Event> = (0..5000).map(|i| mixed_event(BENCH_SEED, i)).collect();
        let memories: std::collections::BTreeSet<u64> = events
            .iter()
            .zip(1u64..)
            .filter(|(e, _)| matches!(e, Event::Remembered(_)))
            .map(|(_, seq)| seq)
            .collect();
        assert!(memories.len() > 500, "{}", memories.len());
        for (event, seq) in events.iter().zip(1u64..) {
            let named: Vec<u64> = match event {
                Event::Recalled(r) => r.hits.iter().map(|h| h.memory).collect(),
                Event::Reinforced(r) => vec![r.memory],
                Event::Graded(g) => vec![g.memory],
                Event::Forgotten(f) => vec![f.memory],
                Event::Archived(a) => vec![a.memory],
                Event::TierChanged(t) => vec![t.memory],
                _ => vec![],
            };
            for id in named {
                assert!(id < seq && memories.contains(&id), "seq {seq} names {id}");
            }
        }
        assert_eq!(mixed_event(BENCH_SEED, 77), mixed_event(BENCH_SEED, 77));
    }
}

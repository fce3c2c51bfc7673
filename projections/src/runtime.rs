//! The projector runtime: each view on its own thread, fed the log in seq
//! order over a bounded channel, publishing how far it got.
//!
//! - **Feeder.** One thread wakes on every log commit, reads the new events
//!   once and sends the same batch (`Arc`) to every projector.
//! - **Projectors.** Each applies batches to its view under a write lock,
//!   persists (every batch for views read from disk, at checkpoints for
//!   in-memory ones) in the same redb transaction as its watermark, then
//!   publishes the watermark. Readers take a read lock.
//! - **Failure.** A projector that panics or fails marks itself failed with
//!   its name and seq; `wait_for` returns that error instead of hanging.
//! - **Open.** Each view loads its persisted state and replays only the tail;
//!   a changed version, missing or undecodable state, a watermark past the
//!   log's end, or a forced rebuild replays from seq 1. The projector threads
//!   start at once and catch up in parallel from large batches; each view
//!   persists once, durably, when caught up, and `open` returns then. A
//!   damaged database file is set aside and every view rebuilt.
//! - **As of a seq.** [`AsOfViews`] replays a prefix on the calling thread
//!   into an in-memory database.
//!
//! **Invariant:** a view's persisted state and its meta row (applied seq,
//! version) are written in one transaction; a view never skips or repeats a
//! seq.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use engram_log::storage::create_private_file;
use engram_log::{LogReader, LoggedEvent};
use parking_lot::{Condvar, Mutex, RwLock};
use redb::{Database, ReadableDatabase as _};

use crate::error::ViewError;
use crate::view::{Fingerprint, Meta, View, fingerprint, read_meta, write_meta};

/// In-memory views persist (durably) after this many events, at the first
/// lull: when no more events wait for the projector.
pub const CHECKPOINT_EVENTS: u64 = 65_536;
/// In-memory views persist (durably) at least every this many events, lull
/// or not: what a view replays at most when its store opens after a crash.
pub const CHECKPOINT_EVENTS_MAX: u64 = 4 * CHECKPOINT_EVENTS;
/// The feeder reads and sends at most this many events per batch.
pub const FEED_BATCH_EVENTS: u64 = 4096;
/// An as-of replay commits its in-memory views every this many events.
pub const AS_OF_COMMIT_EVENTS: u64 = 262_144;
/// The feeder sends the catch-up in batches this large.
pub const CATCH_UP_BATCH_EVENTS: u64 = 65_536;
/// How long opening waits for the views database's lock.
const DB_LOCK_WAIT: Duration = Duration::from_secs(2);
/// How often a busy views database is tried again.
const DB_LOCK_RETRY: Duration = Duration::from_millis(10);
/// How often opening reports catch-up progress.
const CATCH_UP_POLL: Duration = Duration::from_millis(100);
/// Batches queued per projector before the feeder waits (back pressure).
pub const PROJECTOR_QUEUE_BATCHES: usize = 4;

/// A view shared between its projector and readers.
pub type SharedView = Arc<RwLock<dyn View>>;

type Batch = Arc<[LoggedEvent]>;

/// A view's published progress, or why it stopped.
#[derive(Debug)]
pub(crate) struct Watermark {
    name: &'static str,
    state: Mutex<MarkState>,
    changed: Condvar,
}

#[derive(Debug, Clone)]
struct MarkState {
    applied: u64,
    failure: Option<(u64, String)>,
}

impl Watermark {
    fn new(name: &'static str, applied: u64) -> Self {
        Self {
            name,
            state: Mutex::new(MarkState {
                applied,
                failure: None,
            }),
            changed: Condvar::new(),
        }
    }

    fn publish(&self, applied: u64) {
        self.state.lock().applied = applied;
        self.changed.notify_all();
    }

    fn fail(&self, seq: u64, reason: String) {
        let mut state = self.state.lock();
        if state.failure.is_none() {
            state.failure = Some((seq, reason));
        }
        drop(state);
        self.changed.notify_all();
    }

    fn failed(&self) -> Option<ViewError> {
        self.state
            .lock()
            .failure
            .clone()
            .map(|(seq, reason)| ViewError::Failed {
                view: self.name,
                seq,
                reason,
            })
    }

    fn applied(&self) -> u64 {
        self.state.lock().applied
    }

    fn wait_for(&self, seq: u64, deadline: Instant, timeout: Duration) -> Result<(), ViewError> {
        let mut state = self.state.lock();
        loop {
            if let Some((at, reason)) = &state.failure {
                return Err(ViewError::Failed {
                    view: self.name,
                    seq: *at,
                    reason: reason.clone(),
                });
            }
            if state.applied >= seq {
                return Ok(());
            }
            if self.changed.wait_until(&mut state, deadline).timed_out() && state.applied < seq {
                return Err(ViewError::Timeout {
                    view: self.name,
                    applied: state.applied,
                    wanted: seq,
                    timeout_ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
                });
            }
        }
    }
}

/// How one view fared when the views were opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewOpen {
    pub name: &'static str,
    pub version: u32,
    /// Why it was rebuilt from seq 1, if it was.
    pub rebuilt: Option<String>,
    /// Events applied while catching up (the tail, or everything on a rebuild).
    pub n_applied: u64,
}

/// What opening the views found and did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpenReport {
    pub views: Vec<ViewOpen>,
    /// The database file was damaged and set aside (its new name), every view rebuilt.
    pub damaged: Option<String>,
}

impl OpenReport {
    /// Warnings worth showing an operator.
    #[must_use]
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(reason) = &self.damaged {
            out.push(format!(
                "the views database was damaged ({reason}); every view was rebuilt from the log"
            ));
        }
        for v in &self.views {
            if let Some(reason) = &v.rebuilt
                && reason != "new"
                && reason != "requested"
            {
                out.push(format!(
                    "view {} was rebuilt from the log: {reason}",
                    v.name
                ));
            }
        }
        out
    }
}

/// One view's progress, for `stats`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewStatus {
    pub name: &'static str,
    pub version: u32,
    pub applied: u64,
    pub failure: Option<String>,
}

struct Projector {
    name: &'static str,
    version: u32,
    mark: Arc<Watermark>,
    tx: Option<Sender<Batch>>,
    thread: Option<JoinHandle<()>>,
}

/// Options for [`Views::open`].
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenOptions {
    /// Replay every view from seq 1 (`engram rebuild`).
    pub rebuild: bool,
}

/// The live views of one store.
pub struct Views {
    /// The database and the threads feeding it: replaced whole when the
    /// file is rewritten ([`Views::rewrite`]).
    running: RwLock<Running>,
    /// For views that read details back from the log (the audit view).
    reader: LogReader,
    /// The views driven, in their fixed order.
    views: Vec<SharedView>,
    path: PathBuf,
    report: OpenReport,
}

/// The views' database and the threads that keep it.
struct Running {
    db: Arc<Database>,
    projectors: Vec<Projector>,
    /// Gives the log's wake-up receiver back when it stops.
    feeder: Option<JoinHandle<Receiver<()>>>,
    stop_feeder: Option<Sender<()>>,
}

impl std::fmt::Debug for Views {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Views")
            .field(
                "views",
                &self
                    .running
                    .read()
                    .projectors
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

/// The table of the views file's own facts: `rewritten` -> the seq the file
/// was last built fresh through by [`Views::rewrite`].
const FILE_FACTS: redb::TableDefinition<&str, u64> = redb::TableDefinition::new("file_facts");
const REWRITTEN: &str = "rewritten";

/// Opens (or creates) the redb file, setting a damaged one aside.
fn open_db(path: &Path) -> Result<(Database, Option<String>), ViewError> {
    // redb would create the file readable by everyone (0644 under the usual
    // umask): create it first, empty and private (0600); redb initialises
    // an empty file as a new database.
    create_private_file(path, false).map_err(redb::Error::Io)?;
    // redb locks the file; a lock just released can still be held for a
    // moment by a child process forked before it execs, so retry briefly.
    let deadline = Instant::now() + DB_LOCK_WAIT;
    let mut opened = Database::create(path);
    while matches!(opened, Err(redb::DatabaseError::DatabaseAlreadyOpen))
        && Instant::now() < deadline
    {
        std::thread::sleep(DB_LOCK_RETRY);
        opened = Database::create(path);
    }
    match opened {
        Ok(db) => Ok((db, None)),
        Err(redb::DatabaseError::DatabaseAlreadyOpen) => Err(ViewError::Locked {
            path: path.display().to_string(),
        }),
        Err(e) => {
            // The views are derived state: set the file aside (never delete
            // what an operator may want to look at) and start afresh.
            let aside = aside_name(path);
            std::fs::rename(path, &aside).map_err(|io| {
                ViewError::Db(redb::Error::Io(std::io::Error::new(
                    io.kind(),
                    format!("setting damaged {} aside ({e}): {io}", path.display()),
                )))
            })?;
            create_private_file(path, false).map_err(redb::Error::Io)?;
            let db = Database::create(path)?;
            Ok((db, Some(format!("{e}; moved to {}", aside.display()))))
        }
    }
}

fn aside_name(path: &Path) -> PathBuf {
    let mut n = 1;
    loop {
        let candidate = path.with_extension(format!("redb.damaged-{n}"));
        if !candidate.exists() {
            return candidate;
        }
        n += 1;
    }
}

/// Loads each view or decides it must be rebuilt; returns the applied seq of each.
/// A view that claims more than the log holds (the log lost an unsynced tail
/// under a lazy durability, or was replaced) is rebuilt too.
fn load_views(
    db: &Database,
    views: &[SharedView],
    rebuild: bool,
    reader: &LogReader,
) -> Result<Vec<(u64, Fingerprint, Option<String>)>, ViewError> {
    let mut out = Vec::with_capacity(views.len());
    for view in views {
        let mut view = view.write();
        let reason = if rebuild {
            Some("requested".to_owned())
        } else {
            let txn = db.begin_read()?;
            let meta = read_meta(&txn, view.name())?;
            match (distrust(meta.as_ref(), &*view, reader)?, meta) {
                (Some(reason), _) => Some(reason),
                (None, None) => Some("new".to_owned()),
                (None, Some(m)) => match view.load(&txn) {
                    Ok(()) => {
                        out.push((m.applied, m.fingerprint, None));
                        continue;
                    }
                    Err(e) => Some(format!("its persisted state does not load: {e}")),
                },
            }
        };
        let txn = db.begin_write()?;
        view.clear(&txn)?;
        write_meta(&txn, view.name(), 0, view.version(), NO_FINGERPRINT)?;
        txn.commit()?;
        out.push((0, NO_FINGERPRINT, reason));
    }
    Ok(out)
}

/// Why opening would not load view `view` as its meta row `meta` describes
/// it, and rebuild it from seq 1 instead (`new` without a meta row); `None`
/// when it would load it (if its state decodes). `engram verify --views`
/// asks the same question, so it checks exactly what an open would trust.
pub(crate) fn distrust(
    meta: Option<&Meta>,
    view: &dyn View,
    reader: &LogReader,
) -> Result<Option<String>, ViewError> {
    let log_last = reader.last_seq();
    Ok(match meta {
        None => Some("new".to_owned()),
        Some(m) if m.version != view.version() => Some(format!(
            "code version changed from {} to {}",
            m.version,
            view.version()
        )),
        Some(m) if m.applied > log_last => Some(format!(
            "it had applied up to seq {} but the log ends at {log_last}",
            m.applied
        )),
        Some(m) if !built_from(reader, m)? => Some(format!(
            "the event at seq {} is not the one it was built from (a view of another log)",
            m.applied
        )),
        Some(_) => None,
    })
}

/// The fingerprint of nothing applied yet.
const NO_FINGERPRINT: Fingerprint = [0; 16];

/// Whether the log's event at the view's watermark is the one the view applied.
fn built_from(reader: &LogReader, meta: &Meta) -> Result<bool, ViewError> {
    if meta.applied == 0 {
        return Ok(true);
    }
    let events = reader.read(meta.applied..=meta.applied)?;
    Ok(events.first().map(fingerprint) == Some(meta.fingerprint))
}

/// Replays events `1..=upto` of `reader` into fresh `views` on this thread,
/// committing views read from disk every `AS_OF_COMMIT_EVENTS` events (to
/// bound memory) and everything at the end.
fn replay_prefix(
    db: &Database,
    views: &[SharedView],
    reader: &LogReader,
    upto: u64,
) -> Result<(), ViewError> {
    let mut guards: Vec<_> = views.iter().map(|v| v.write()).collect();
    let commit = |guards: &mut [parking_lot::RwLockWriteGuard<'_, dyn View>],
                  seq: u64,
                  fp: Fingerprint,
                  all: bool| {
        let txn = db.begin_write()?;
        for view in guards
            .iter_mut()
            .filter(|v| all || v.persists_every_batch())
        {
            view.persist(&txn)?;
            write_meta(&txn, view.name(), seq, view.version(), fp)?;
        }
        txn.commit()?;
        Ok::<(), ViewError>(())
    };
    let mut last_fp = NO_FINGERPRINT;
    for event in reader.replay(1) {
        let event = event?;
        if event.seq > upto {
            break;
        }
        for view in &mut guards {
            view.apply(&event)?;
        }
        last_fp = fingerprint(&event);
        if event.seq % AS_OF_COMMIT_EVENTS == 0 {
            commit(&mut guards, event.seq, last_fp, false)?;
        }
    }
    commit(&mut guards, upto, last_fp, true)
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panicked".to_owned())
}

/// Whether a projector that folded `since` events since its view's last
/// checkpoint, taken when the view held `held` events, writes one now,
/// `more_waiting` telling whether more events already wait for it.
///
/// A checkpoint writes the whole state of a view kept in memory, so it
/// costs in proportion to the view. The interval grows with it, from
/// `CHECKPOINT_EVENTS` up to `CHECKPOINT_EVENTS_MAX` (what a view replays
/// at most when its store opens after a crash), so checkpoints cost a
/// bounded share of folding. A checkpoint waits for a lull: taken while a
/// large batch is still being folded, it delays every reader waiting for
/// that batch. At `CHECKPOINT_EVENTS_MAX` it waits for nothing.
fn checkpoint_due(since: u64, held: u64, more_waiting: bool) -> bool {
    let interval = held.clamp(CHECKPOINT_EVENTS, CHECKPOINT_EVENTS_MAX);
    since >= CHECKPOINT_EVENTS_MAX || (since >= interval && !more_waiting)
}

/// One projector thread's loop. Until `catch_up_to` it only catches up:
/// no view persists until reaching `catch_up_to` makes it durable once. After that, views
/// read from disk commit every batch (durably at checkpoints) and in-memory
/// views persist at checkpoints and on close.
fn project(
    view: SharedView,
    db: Arc<Database>,
    mark: Arc<Watermark>,
    rx: Receiver<Batch>,
    mut applied: u64,
    mut fp: Fingerprint,
    catch_up_to: u64,
) {
    let mut since_checkpoint = 0u64;
    // The seq of the view's last checkpoint (where it opened, at first).
    let mut checkpointed_at = applied;
    let mut persisted = applied;
    let persist = |view: &mut dyn View,
                   applied: u64,
                   fp: Fingerprint,
                   durable: bool|
     -> Result<(), ViewError> {
        let mut txn = db.begin_write()?;
        if !durable {
            txn.set_durability(redb::Durability::None)?;
        }
        view.persist(&txn)?;
        write_meta(&txn, view.name(), applied, view.version(), fp)?;
        txn.commit()?;
        Ok(())
    };
    while let Ok(batch) = rx.recv() {
        let mut seq_at = applied + 1;
        let step =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<(), ViewError> {
                let mut view = view.write();
                let start = applied;
                for event in batch.iter().filter(|e| e.seq > start) {
                    assert_eq!(event.seq, applied + 1, "a projector skipped a seq");
                    seq_at = event.seq;
                    view.apply(event)?;
                    applied = event.seq;
                    since_checkpoint += 1;
                }
                if applied == start {
                    return Ok(());
                }
                if let Some(last) = batch.iter().rev().find(|e| e.seq == applied) {
                    fp = fingerprint(last);
                }
                let catching_up = start < catch_up_to;
                let caught_up = catching_up && applied >= catch_up_to;
                let checkpoint = caught_up
                    || (!catching_up
                        && checkpoint_due(since_checkpoint, checkpointed_at, !rx.is_empty()));
                // While catching up nobody reads the view (open waits), so
                // even views read from disk persist once, at the end: one
                // sorted insert instead of a copy-on-write of the tree per batch.
                if checkpoint || (view.persists_every_batch() && !catching_up) {
                    persist(&mut *view, applied, fp, checkpoint)?;
                    persisted = applied;
                    if checkpoint {
                        since_checkpoint = 0;
                        checkpointed_at = applied;
                    }
                }
                Ok(())
            }));
        match step {
            Ok(Ok(())) => mark.publish(applied),
            Ok(Err(e)) => {
                mark.fail(seq_at, e.to_string());
                return;
            }
            Err(panic) => {
                mark.fail(seq_at, panic_message(&*panic));
                return;
            }
        }
    }
    // Closing: make the view durable where it stands (a durable commit of
    // nothing new is still needed after non-durable batch commits).
    if applied != persisted || view.read().persists_every_batch() {
        let mut view = view.write();
        if let Err(e) = persist(&mut *view, applied, fp, true) {
            mark.fail(applied, format!("final persist failed: {e}"));
        }
    }
}

/// The feeder thread: first the catch-up (from the least advanced view to
/// `catch_up_to`, in large batches), then, after each commit, read the new
/// events once and send them to every projector.
fn feed(
    reader: LogReader,
    wake: Receiver<()>,
    stop: Receiver<()>,
    senders: Vec<(Sender<Batch>, Arc<Watermark>)>,
    mut fed: u64,
    catch_up_to: u64,
) -> Receiver<()> {
    let send_up_to = |fed: &mut u64, last: u64, batch_events: u64| -> bool {
        while *fed < last {
            let to = last.min(*fed + batch_events);
            let batch: Batch = match reader.read(*fed + 1..=to) {
                Ok(events) => events.into(),
                Err(e) => {
                    for (_, mark) in &senders {
                        mark.fail(*fed + 1, format!("reading the log: {e}"));
                    }
                    return false;
                }
            };
            for (tx, _) in &senders {
                // A failed projector dropped its receiver; the others go on.
                let _ = tx.send(Arc::clone(&batch));
            }
            *fed = to;
        }
        true
    };
    if !send_up_to(&mut fed, catch_up_to, CATCH_UP_BATCH_EVENTS) {
        return wake;
    }
    loop {
        crossbeam_channel::select! {
            recv(wake) -> woke => if woke.is_err() { return wake },
            recv(stop) -> _ => return wake,
        }
        if !send_up_to(&mut fed, reader.last_seq(), FEED_BATCH_EVENTS) {
            return wake;
        }
    }
}

impl Views {
    /// Opens the views of a store: loads each view, replays the tail of
    /// `reader` (everything, for a view that must be rebuilt), then starts a
    /// projector thread per view fed after every commit signalled on `wake`
    /// (from `Log::subscribe`, taken before this call). `progress` receives
    /// the seq the slowest view reached and the seq they all catch up to.
    pub fn open(
        path: &Path,
        views: Vec<SharedView>,
        reader: LogReader,
        wake: Receiver<()>,
        options: OpenOptions,
        progress: &dyn Fn(u64, u64),
    ) -> Result<Self, ViewError> {
        let (db, damaged) = open_db(path)?;
        let db = Arc::new(db);
        let upto = reader.last_seq();
        let loaded = load_views(&db, &views, options.rebuild || damaged.is_some(), &reader)?;
        let mut report = OpenReport {
            damaged: damaged.clone(),
            views: Vec::new(),
        };
        for (view, (done, _, rebuilt)) in views.iter().zip(&loaded) {
            let (name, version) = {
                let v = view.read();
                (v.name(), v.version())
            };
            report.views.push(ViewOpen {
                name,
                version,
                rebuilt: if damaged.is_some() {
                    Some("damaged database".to_owned())
                } else {
                    rebuilt.clone()
                },
                n_applied: upto - done,
            });
        }
        let running = start(db, &views, &loaded, &reader, wake, upto)?;
        let views = Self {
            running: RwLock::new(running),
            reader,
            views,
            path: path.to_owned(),
            report,
        };
        views.catch_up(upto, progress)?;
        Ok(views)
    }

    /// Waits for every view to reach `upto`, reporting progress.
    fn catch_up(&self, upto: u64, progress: &dyn Fn(u64, u64)) -> Result<(), ViewError> {
        // Every view catches up on its own thread; wait for the slowest.
        loop {
            match self.wait_for(upto, CATCH_UP_POLL) {
                Ok(()) => break,
                Err(ViewError::Timeout { .. }) => {
                    progress(
                        self.running
                            .read()
                            .projectors
                            .iter()
                            .map(|p| p.mark.applied())
                            .min()
                            .unwrap_or(upto),
                        upto,
                    );
                }
                Err(e) => return Err(e),
            }
        }
        progress(upto, upto);
        Ok(())
    }

    /// The seq through which the views file was last built fresh by
    /// [`Views::rewrite`] (0: never).
    pub fn rewritten_through(&self) -> Result<u64, ViewError> {
        let running = self.running.read();
        let txn = running.db.begin_read()?;
        let table = match txn.open_table(FILE_FACTS) {
            Ok(table) => table,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(0),
            Err(e) => return Err(e.into()),
        };
        Ok(table.get(REWRITTEN)?.map_or(0, |v| v.value()))
    }

    /// Replaces the views file with one built fresh by replaying the log
    /// into `fresh` (empty views, the same set and order as the live
    /// ones), so that no page of the old file survives in it: a purge's
    /// last step, since redb frees pages without overwriting them. The
    /// projectors stop (each persisting where it stands), the new file is
    /// built beside the old (`views.redb.rewrite`), synced, renamed over
    /// it and the folder synced; then the live views load from it and the
    /// projectors start again from there. Readers keep reading the live
    /// views throughout (their state is the same fold of the same log).
    /// A crash before the rename leaves the old file, and the store
    /// rewrites it again when it opens (see [`Views::rewritten_through`]).
    pub fn rewrite(&self, fresh: Vec<SharedView>) -> Result<(), ViewError> {
        if fresh.len() != self.views.len() {
            return Err(ViewError::Snapshot {
                view: "views",
                reason: format!(
                    "a rewrite needs {} fresh views, got {}",
                    self.views.len(),
                    fresh.len()
                ),
            });
        }
        let mut running = self.running.write();
        let wake = shutdown(&mut running);
        if let Some(e) = running.projectors.iter().find_map(|p| p.mark.failed()) {
            return Err(e);
        }
        let upto = self.reader.last_seq();
        let building = self.path.with_extension("redb.rewrite");
        match std::fs::remove_file(&building) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(ViewError::Db(redb::Error::Io(e))),
        }
        create_private_file(&building, false).map_err(redb::Error::Io)?;
        {
            let db = Database::create(&building)?;
            replay_prefix(&db, &fresh, &self.reader, upto)?;
            let txn = db.begin_write()?;
            txn.open_table(FILE_FACTS)?.insert(REWRITTEN, upto)?;
            txn.commit()?;
        }
        drop(fresh);
        std::fs::rename(&building, &self.path).map_err(|e| ViewError::Db(redb::Error::Io(e)))?;
        if let Some(dir) = self.path.parent() {
            sync_dir(dir)?;
        }
        // The old file's handle is the last reference to it.
        let placeholder = Arc::new(
            Database::builder().create_with_backend(redb::backends::InMemoryBackend::new())?,
        );
        drop(std::mem::replace(&mut running.db, placeholder));
        let (db, _) = open_db(&self.path)?;
        let db = Arc::new(db);
        let loaded = load_views(&db, &self.views, false, &self.reader)?;
        *running = start(
            db,
            &self.views,
            &loaded,
            &self.reader,
            wake,
            self.reader.last_seq(),
        )?;
        drop(running);
        self.wait_for(upto, Duration::from_secs(60))
    }

    /// What opening found and did.
    #[must_use]
    pub fn report(&self) -> &OpenReport {
        &self.report
    }

    /// Waits until every view has applied `seq` (read-your-writes). A view
    /// that failed returns its error; running out of time is an error too.
    pub fn wait_for(&self, seq: u64, timeout: Duration) -> Result<(), ViewError> {
        let deadline = Instant::now() + timeout;
        let marks: Vec<Arc<Watermark>> = self
            .running
            .read()
            .projectors
            .iter()
            .map(|p| Arc::clone(&p.mark))
            .collect();
        for mark in &marks {
            mark.wait_for(seq, deadline, timeout)?;
        }
        Ok(())
    }

    /// The first failure of any view: the engine is unhealthy while set.
    #[must_use]
    pub fn health(&self) -> Option<ViewError> {
        self.running
            .read()
            .projectors
            .iter()
            .find_map(|p| p.mark.failed())
    }

    /// Each view's name, version and watermark.
    #[must_use]
    pub fn status(&self) -> Vec<ViewStatus> {
        self.running
            .read()
            .projectors
            .iter()
            .map(|p| ViewStatus {
                name: p.name,
                version: p.version,
                applied: p.mark.applied(),
                failure: p.mark.failed().map(|e| e.to_string()),
            })
            .collect()
    }

    /// The seqs of every operation on `memory`, in seq order (the audit index).
    pub fn memory_seqs(&self, memory: engram_log::MemoryId) -> Result<Vec<u64>, ViewError> {
        crate::AuditView::memory_seqs(&*self.running.read().db, memory)
    }

    /// The seqs of every event of `session` (its turns, and the memories
    /// referencing it), in seq order (the audit index).
    pub fn session_seqs(&self, session: &str) -> Result<Vec<u64>, ViewError> {
        crate::AuditView::session_seqs(&*self.running.read().db, session)
    }

    /// Every operation on `memory` the audit view holds, in seq order.
    pub fn memory_history(
        &self,
        memory: engram_log::MemoryId,
    ) -> Result<Vec<crate::AuditRecord>, ViewError> {
        crate::AuditView::memory_history(&*self.running.read().db, &self.reader, memory)
    }

    /// Stops the projectors after each persisted its state durably.
    pub fn close(self) -> Result<(), ViewError> {
        shutdown(&mut self.running.write());
        match self.health() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Starts a projector thread per view, each from what `loaded` says it
/// applied, and the feeder catching them up to `upto` and then following
/// the log.
fn start(
    db: Arc<Database>,
    views: &[SharedView],
    loaded: &[(u64, Fingerprint, Option<String>)],
    reader: &LogReader,
    wake: Receiver<()>,
    upto: u64,
) -> Result<Running, ViewError> {
    let mut projectors = Vec::with_capacity(views.len());
    let mut senders = Vec::with_capacity(views.len());
    for (view, (done, fp, _)) in views.iter().zip(loaded) {
        let (name, version) = {
            let v = view.read();
            (v.name(), v.version())
        };
        let (done, fp) = (*done, *fp);
        let mark = Arc::new(Watermark::new(name, done));
        let (tx, rx) = crossbeam_channel::bounded(PROJECTOR_QUEUE_BATCHES);
        let thread = {
            let (db, mark, view) = (Arc::clone(&db), Arc::clone(&mark), Arc::clone(view));
            std::thread::Builder::new()
                .name(format!("engram-view-{name}"))
                .spawn(move || project(view, db, mark, rx, done, fp, upto))
                .map_err(|e| ViewError::Db(redb::Error::Io(e)))?
        };
        senders.push((tx.clone(), Arc::clone(&mark)));
        projectors.push(Projector {
            name,
            version,
            mark,
            tx: Some(tx),
            thread: Some(thread),
        });
    }
    let from = projectors
        .iter()
        .map(|p| p.mark.applied())
        .min()
        .unwrap_or(upto);
    let (stop_tx, stop_rx) = crossbeam_channel::bounded(1);
    let feeder = std::thread::Builder::new()
        .name("engram-view-feeder".to_owned())
        .spawn({
            let reader = reader.clone();
            move || feed(reader, wake, stop_rx, senders, from, upto)
        })
        .map_err(|e| ViewError::Db(redb::Error::Io(e)))?;
    Ok(Running {
        db,
        projectors,
        feeder: Some(feeder),
        stop_feeder: Some(stop_tx),
    })
}

/// Stops the feeder and then each projector (which persists where it
/// stands); gives back the log's wake-up receiver the feeder held (a fresh,
/// closed one when it is gone).
fn shutdown(running: &mut Running) -> Receiver<()> {
    running.stop_feeder = None;
    let wake = running.feeder.take().and_then(|feeder| feeder.join().ok());
    for p in &mut running.projectors {
        p.tx = None;
    }
    for p in &mut running.projectors {
        if let Some(thread) = p.thread.take() {
            let _ = thread.join();
        }
    }
    wake.unwrap_or_else(|| crossbeam_channel::bounded(0).1)
}

/// Makes a rename in `dir` durable.
fn sync_dir(dir: &Path) -> Result<(), ViewError> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| ViewError::Db(redb::Error::Io(e)))
}

impl Drop for Views {
    fn drop(&mut self) {
        shutdown(self.running.get_mut());
    }
}

/// Views as of a past seq, built in memory by replaying the log's prefix;
/// nothing on disk is touched. For auditors.
pub struct AsOfViews {
    db: Database,
    reader: LogReader,
    pub seq: u64,
}

impl AsOfViews {
    /// Replays `reader` up to `seq` into `views` (fresh, empty views).
    pub fn build(views: &[SharedView], reader: &LogReader, seq: u64) -> Result<Self, ViewError> {
        let last = reader.last_seq();
        if seq > last {
            return Err(ViewError::AsOfPastEnd {
                requested: seq,
                last,
            });
        }
        let db = Database::builder().create_with_backend(redb::backends::InMemoryBackend::new())?;
        replay_prefix(&db, views, reader, seq)?;
        Ok(Self {
            db,
            reader: reader.clone(),
            seq,
        })
    }

    /// Every operation on `memory` up to the seq, in seq order.
    pub fn memory_history(
        &self,
        memory: engram_log::MemoryId,
    ) -> Result<Vec<crate::AuditRecord>, ViewError> {
        crate::AuditView::memory_history(&self.db, &self.reader, memory)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A view checkpoints at the first lull once the interval has passed,
    /// the interval grows with the view up to `CHECKPOINT_EVENTS_MAX`, and
    /// no more than that many events ever go unpersisted.
    #[test]
    fn a_checkpoint_waits_for_a_lull_and_no_longer_than_the_bound() {
        let small = 0;
        assert!(!checkpoint_due(CHECKPOINT_EVENTS - 1, small, false));
        assert!(checkpoint_due(CHECKPOINT_EVENTS, small, false));
        assert!(!checkpoint_due(CHECKPOINT_EVENTS, small, true));
        // A view twice the interval waits twice as long.
        let grown = 2 * CHECKPOINT_EVENTS;
        assert!(!checkpoint_due(grown - 1, grown, false));
        assert!(checkpoint_due(grown, grown, false));
        // However large the view, the bound holds, lull or not.
        let huge = 100 * CHECKPOINT_EVENTS_MAX;
        assert!(!checkpoint_due(CHECKPOINT_EVENTS_MAX - 1, huge, true));
        assert!(checkpoint_due(CHECKPOINT_EVENTS_MAX, huge, true));
        assert!(checkpoint_due(CHECKPOINT_EVENTS_MAX, huge, false));
    }
}

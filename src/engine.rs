//! The `Engram` handle: a store's log and its live views together.
//!
//! Appending through the handle waits until every view applied the new
//! events (read-your-writes), so a query right after an append sees it.

use std::collections::BTreeMap;
use std::time::Duration;

use engram_log::{AppendError, Appended, Event, KeySource, LogReader, MemoryId};
use engram_projections::{
    AsOfViews, AuditRecord, CoreViews, OpenOptions, ViewError, ViewStatus, Views,
};

use crate::store::{Store, StoreError, StoreOptions};
use engram_commands::gate::GateChain;

/// How long an append waits for the views before it reports them stuck.
pub const READ_YOUR_WRITES_TIMEOUT: Duration = Duration::from_secs(30);

/// Errors of the engine.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    View(#[from] ViewError),
    #[error(transparent)]
    Append(#[from] AppendError),
    #[error("no memory with id {id}: a memory's id is the seq of its `remembered` event")]
    UnknownMemory { id: MemoryId },
    #[error("the store at {path} has no log yet")]
    NoLog { path: String },
    #[error(transparent)]
    Input(engram_commands::memory::InputError),
    #[error("{0}")]
    Denied(engram_commands::gate::Denial),
    #[error(transparent)]
    Seal(#[from] engram_log::seal::SealError),
    #[error("memory {id} was forgotten at seq {seq}: it expands only in audit mode")]
    Forgotten { id: MemoryId, seq: u64 },
    #[error("the save was discarded ({reason}): there is no memory")]
    Discarded { reason: String },
    /// Bad input to recording session turns (none, or too many).
    #[error("{0}")]
    Record(String),
    /// A transcript that does not continue what its session holds.
    #[error("{0}")]
    Transcript(String),
    #[error(
        "the log moved on {tries} times while a save waited to append: too many writers at once; try again"
    )]
    Contended { tries: usize },
    #[error(transparent)]
    Flywheel(#[from] crate::flywheel::FlywheelError),
    /// A tier move refused (a forgotten memory, its own tier, L2).
    #[error(transparent)]
    Tier(#[from] engram_commands::tier::TierMoveError),
    /// A workspace document refused (too large, not text, a bad path).
    #[error(transparent)]
    Workspace(#[from] engram_commands::workspace::WorkspaceError),
    /// A corridor placement refused (an unknown name, a loop, too deep).
    #[error(transparent)]
    Corridor(#[from] engram_commands::corridor::CorridorError),
    #[error(transparent)]
    Embed(engram_embed::EmbedError),
    #[error("the shared log: {0}")]
    Shared(#[from] engram_log_postgres::PgLogError),
    #[error("this store's copy of the shared log stopped: {reason}")]
    Replica { reason: String },
    /// The embedding model failed while reembedding (the batches before
    /// it were appended).
    #[error("reembedding: {0}")]
    Reembed(String),
    /// The owner holding the store is shutting down.
    #[error("the store's owner is shutting down: try again")]
    Closed,
    /// The memory's words were erased by a purge.
    #[error(
        "memory {id} was erased: purged at seq {seq} by the {}, reason: {reason}",
        actor_name(*by)
    )]
    Purged {
        id: MemoryId,
        seq: u64,
        by: engram_log::Actor,
        reason: String,
    },
    /// A purge refused (unknown session, already purged, content not
    /// sealed, too large) or its keys not destroyed.
    #[error(transparent)]
    Purge(#[from] engram_commands::purge::PurgeError),
}

/// The file in a store folder that says a purge is under way (empty; set
/// durably before its `Purged` is appended, removed once the views are
/// rewritten): a store opening with it finishes the purge first.
pub const PURGE_PENDING_FILE_NAME: &str = "purge.pending";

/// Sets (created and synced, the folder synced) or clears (removed, the
/// folder synced) `store`'s purge-pending mark.
pub(crate) fn mark_purge_pending(store: &Store, pending: bool) -> Result<(), EngineError> {
    let path = store.dir().join(PURGE_PENDING_FILE_NAME);
    let failed = |source: std::io::Error| {
        EngineError::Store(StoreError::Create {
            path: path.clone(),
            source,
        })
    };
    if pending {
        let file = engram_log::storage::create_private_file(&path, false).map_err(failed)?;
        file.sync_all().map_err(failed)?;
    } else {
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(failed(e)),
        }
    }
    std::fs::File::open(store.dir())
        .and_then(|dir| dir.sync_all())
        .map_err(failed)
}

/// The name of an actor in messages and answers (`user`, `model`, `system`).
pub use engram_queries::palace::actor_name;

/// One view's progress in `stats`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewStat {
    pub name: &'static str,
    pub version: u32,
    pub applied: u64,
    /// Events committed to the log that the view has not applied yet.
    pub lag: u64,
    pub failure: Option<String>,
}

/// What `engram stats` reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stats {
    pub n_events: u64,
    pub last_seq: u64,
    pub views: Vec<ViewStat>,
    /// Memories by status (`live`, `forgotten`, `archived`).
    pub by_status: BTreeMap<String, u64>,
    /// Memories by tier (`l1`..`l4`), forgotten ones excluded.
    pub by_tier: BTreeMap<String, u64>,
    /// Health score and its parts, with the reviews due today (UTC).
    pub health: engram_queries::health::Health,
}

fn lower_name<T: std::fmt::Debug>(value: &T) -> String {
    format!("{value:?}").to_lowercase()
}

fn stats_of(core: &CoreViews, last_seq: u64, views: Vec<ViewStatus>) -> Stats {
    let by_status = core
        .memory_table
        .read()
        .state
        .count_by_status()
        .into_iter()
        .map(|(status, n)| (lower_name(&status), n))
        .collect();
    let by_tier = core
        .tier_index
        .read()
        .state
        .counts()
        .into_iter()
        .map(|(tier, n)| (lower_name(&tier), n))
        .collect();
    Stats {
        n_events: last_seq,
        last_seq,
        views: views
            .into_iter()
            .map(|v| ViewStat {
                name: v.name,
                version: v.version,
                applied: v.applied,
                lag: last_seq.saturating_sub(v.applied),
                failure: v.failure,
            })
            .collect(),
        by_status,
        by_tier,
        health: engram_queries::health::health(core, end_of_today_ms(now_ms())),
    }
}

/// The last millisecond of the UTC day holding `now_ms`: stats count the
/// reviews due today.
fn end_of_today_ms(now_ms: u64) -> u64 {
    use engram_projections::models::review::DAY_MS;
    (now_ms / DAY_MS + 1) * DAY_MS - 1
}

/// The wall clock in unix milliseconds (what due times are compared with),
/// read through the log's clock.
#[must_use]
pub fn now_ms() -> u64 {
    use engram_log::Clock as _;
    engram_log::SystemClock::default().unix_ms()
}

fn audit_of(
    core: &CoreViews,
    id: MemoryId,
    history: impl FnOnce(MemoryId) -> Result<Vec<AuditRecord>, ViewError>,
) -> Result<Vec<AuditRecord>, EngineError> {
    if core.memory_table.read().state.get(id).is_none() {
        return Err(EngineError::UnknownMemory { id });
    }
    Ok(history(id)?)
}

/// The shared log a store replicates, and the thread copying its frames,
/// verified and byte for byte, into the store's own log.
struct Replication {
    shared: engram_log_postgres::PgLog,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Why copying is failing (the server unreachable: retried) or stopped
    /// (a frame that does not continue this copy); appends fail saying so.
    failure: std::sync::Arc<parking_lot::Mutex<Option<String>>>,
    /// The store's views once open: the copying thread rewrites them when
    /// it copies a purge.
    views: std::sync::Arc<std::sync::OnceLock<std::sync::Arc<Views>>>,
}

/// Connects to the shared log at `url` for `store`, with the team's master
/// key when there is one (`ENGRAM_MASTER_KEY`, else the store's
/// `master.key`). A new store with neither makes its `master.key` first,
/// so a shared log this connect creates is sealed under it; the key is
/// removed again unless it opened a sealed log (another team's key, or a
/// log in the clear: nothing of the connect stays). A sealed log refuses
/// a store without the team's key, changing nothing.
pub fn connect_shared(
    store: &Store,
    options: &StoreOptions,
    url: &str,
) -> Result<engram_log_postgres::PgLog, EngineError> {
    use engram_log::MasterKeySource;
    use engram_log::keystore::MASTER_KEY_FILE_NAME;
    store.create_dir()?;
    let key = store.key(&options.key, true)?;
    let new_store = !store.has_log();
    let master_path = store.dir().join(MASTER_KEY_FILE_NAME);
    let makes_master =
        new_store && options.master_key == MasterKeySource::StoreFile && !master_path.exists();
    let master = match options.master_key.load(store.dir(), new_store) {
        Ok(master) => Some(master),
        Err(engram_log::KeyStoreError::MasterKeyMissing { .. }) => None,
        Err(e) => return Err(StoreError::Keys(e).into()),
    };
    let mut config = engram_log_postgres::PgLogConfig::default();
    if let Some(master) = master {
        config = config.master_key(master);
    }
    let connected = engram_log_postgres::PgLog::connect(url, key, config);
    if makes_master && !matches!(&connected, Ok(shared) if shared.is_sealed()) {
        // Made for a log it does not open: nothing of this connect stays.
        let _ = std::fs::remove_file(&master_path);
    }
    let shared = connected?;
    shared.check_master_key()?;
    Ok(shared)
}

/// Copies one verified frame of the shared log into the local log, byte
/// for byte. A `Purged` in it is applied as the purging machine applied
/// it: the keys of its subjects are destroyed in the team's key store
/// (again: destroying is idempotent, and this finishes a purge whose
/// maker stopped before destroying) and so leave this process's cache.
/// Returns the seq of the last `Purged` the frame held.
fn copy_frame(
    log: &engram_log::Log,
    frame: &engram_log_postgres::PgFrame,
) -> Result<Option<u64>, EngineError> {
    log.append_frame(&frame.bytes)?;
    let mut purged = None;
    for logged in &frame.events {
        if let Event::Purged(purge) = &logged.event {
            log.reader().forget_keys(&purge.subjects);
            if log.is_sealed() {
                for chunk in purge
                    .subjects
                    .chunks(engram_log::keystore::DESTROY_SLOTS_MAX)
                {
                    log.destroy_keys(chunk)
                        .map_err(engram_commands::purge::PurgeError::from)?;
                }
            }
            purged = Some(logged.seq);
        }
    }
    Ok(purged)
}

/// Rewrites `views` after the copy of a purge at seq `purged` (as the
/// purging machine rewrites its own), unless a rewrite already went past
/// it: no page of this store's views file keeps the purged words.
fn rewrite_after_purge(
    views: &Views,
    log: &engram_log::Log,
    purged: u64,
) -> Result<(), EngineError> {
    views.wait_for(purged, READ_YOUR_WRITES_TIMEOUT)?;
    if views.rewritten_through()? < purged {
        views.rewrite(CoreViews::new(log.reader().clone()).list())?;
    }
    Ok(())
}

/// Frames copied per round trip while catching up.
const REPLICA_FRAMES_PER_READ: usize = 256;
/// How long the copying thread waits for news before it checks for a stop.
const REPLICA_WAIT: Duration = Duration::from_millis(250);

/// Copies every frame of the shared log past the local log's end.
fn catch_up(shared: &engram_log_postgres::PgLog, log: &engram_log::Log) -> Result<(), EngineError> {
    loop {
        let frames = shared.frames_after(log.last_seq(), REPLICA_FRAMES_PER_READ)?;
        if frames.is_empty() {
            return Ok(());
        }
        for frame in frames {
            copy_frame(log, &frame)?;
        }
    }
}

impl Replication {
    /// Connects to `url`, checks that the local log is a prefix of the
    /// shared one, copies what it lacks, and starts following.
    fn start(
        shared: engram_log_postgres::PgLog,
        log: &std::sync::Arc<engram_log::Log>,
    ) -> Result<Self, EngineError> {
        shared.check_continuity(log.last_seq(), &log.last_hash())?;
        catch_up(&shared, log)?;
        let mut tailer = shared.tailer()?;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let failure = std::sync::Arc::new(parking_lot::Mutex::new(None));
        let views = std::sync::Arc::new(std::sync::OnceLock::<std::sync::Arc<Views>>::new());
        let thread = {
            let (stop, failure, log) = (stop.clone(), failure.clone(), log.clone());
            let views = views.clone();
            std::thread::Builder::new()
                .name("engram-replica".into())
                .spawn(move || {
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        let round = tailer.wait_for_more(log.last_seq(), REPLICA_WAIT).and_then(
                            |shared_last| {
                                if shared_last > log.last_seq() {
                                    tailer.frames_after(log.last_seq(), REPLICA_FRAMES_PER_READ)
                                } else {
                                    Ok(Vec::new())
                                }
                            },
                        );
                        let copied = match round {
                            Ok(frames) => frames.iter().try_for_each(|frame| {
                                match (copy_frame(&log, frame)?, views.get()) {
                                    (Some(purged), Some(views)) => {
                                        rewrite_after_purge(views, &log, purged)
                                    }
                                    // Views not open yet: their open
                                    // rewrites them past the purge.
                                    _ => Ok(()),
                                }
                            }),
                            // The server went away: say so to writers and
                            // keep trying; copying resumes where it stopped.
                            Err(e) if e.is_connection() => {
                                *failure.lock() = Some(e.to_string());
                                std::thread::sleep(REPLICA_WAIT);
                                continue;
                            }
                            Err(e) => Err(e.into()),
                        };
                        match copied {
                            Ok(()) => *failure.lock() = None,
                            // A frame that does not continue this copy, or
                            // damage: stop copying (appends report why).
                            Err(e) => {
                                *failure.lock() = Some(e.to_string());
                                return;
                            }
                        }
                    }
                })
                .map_err(|e| EngineError::Replica {
                    reason: format!("starting the copying thread: {e}"),
                })?
        };
        Ok(Self {
            shared,
            stop,
            thread: Some(thread),
            failure,
            views,
        })
    }

    /// Refuses appends while copying the shared log is failing.
    fn check(&self) -> Result<(), EngineError> {
        match self.failure.lock().clone() {
            Some(reason) => Err(EngineError::Replica { reason }),
            None => Ok(()),
        }
    }

    fn stop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Replication {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A store opened for reading and writing, with its views kept current.
pub struct Engram {
    store: Store,
    log: std::sync::Arc<engram_log::Log>,
    /// The shared log, when the store replicates one.
    replication: Option<Replication>,
    /// Shared with the copying thread of a replica, which rewrites them
    /// after a purge.
    views: std::sync::Arc<Views>,
    core: CoreViews,
    gates: GateChain,
    /// The sentence model, when one is configured: remember records vectors
    /// and recall runs hybrid.
    pub(crate) embedder: Option<std::sync::Arc<dyn engram_embed::Embedder>>,
    pub(crate) last_recall_mode: parking_lot::Mutex<engram_queries::RecallMode>,
    /// Vectors computed ahead in one batch (`prefetch_embeddings`), taken
    /// by the saves that need them.
    pub(crate) embed_cache: parking_lot::Mutex<std::collections::HashMap<String, Vec<f32>>>,
    /// Serializes the engine's read-decide-append commands (a note's turn
    /// number, a forget's check), so two threads never decide on the same state.
    writer: parking_lot::Mutex<()>,
    /// What reads recorded while a save appends (`hold_reads`), in the
    /// order they came: `None` when nothing is held.
    held_reads: parking_lot::Mutex<Option<Vec<Event>>>,
}

/// Held reads' records appended at a time (see [`Engram::hold_reads`]):
/// well inside a batch's limits of events and bytes.
const HELD_READS_PER_APPEND: usize = 1024;

impl std::fmt::Debug for Engram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engram")
            .field("store", &self.store.dir())
            .finish_non_exhaustive()
    }
}

impl Engram {
    /// Opens (or creates) the store and brings its views up to date.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// use engram::{Engram, RecallQuery, Remember, Subject, store::{Store, StoreOptions}};
    ///
    /// let engram = Engram::open(Store::at(dir.path()), &StoreOptions::default())?;
    /// let saved = engram.remember(&Remember::text("用户偏好使用 Python 处理数据分析"))?.memory()?;
    /// let hits = engram.recall(&RecallQuery::new("数据分析"))?;
    /// assert_eq!(hits[0].id, saved);
    /// let words = engram.expand_as(saved, &Subject::user(), false)?;
    /// assert!(words.verified);
    /// engram.forget(saved, &Subject::user(), "no longer true")?;
    /// assert!(engram.recall(&RecallQuery::new("数据分析"))?.is_empty());
    /// engram.close()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(store: Store, options: &StoreOptions) -> Result<Self, EngineError> {
        Self::open_with(store, options, OpenOptions::default(), &|_, _| {})
    }

    /// [`Engram::open`] with view options (a forced rebuild) and a progress
    /// callback that receives the seq reached while catching up and the seq
    /// the views catch up to.
    pub fn open_with(
        store: Store,
        options: &StoreOptions,
        view_options: OpenOptions,
        progress: &dyn Fn(u64, u64),
    ) -> Result<Self, EngineError> {
        let (log, shared) = match &options.shared_log {
            None => (store.open_log(options)?, None),
            Some(url) => {
                let shared = connect_shared(&store, options, url)?;
                let keys = shared.keys();
                let remote = keys.map(|keys| (keys, shared.location()));
                (store.open_log_with(options, remote)?, Some(shared))
            }
        };
        Self::assemble(store, log, shared, view_options, progress)
    }

    /// Opens the engine over a log already open, with the views in `store`'s
    /// folder: for a log on another storage, such as the fault-injecting
    /// one crash tests use. The log must be the store's own (its views are
    /// checked against it as on any open).
    pub fn open_on_log(store: Store, log: engram_log::Log) -> Result<Self, EngineError> {
        Self::open_on_log_with(store, log, OpenOptions::default())
    }

    /// [`Engram::open_on_log`] with view options: a forced rebuild of the
    /// views over a log on any storage (the model-based test's `Rebuild`).
    pub fn open_on_log_with(
        store: Store,
        log: engram_log::Log,
        view_options: OpenOptions,
    ) -> Result<Self, EngineError> {
        Self::assemble(store, log, None, view_options, &|_, _| {})
    }

    fn assemble(
        store: Store,
        log: engram_log::Log,
        shared: Option<engram_log_postgres::PgLog>,
        view_options: OpenOptions,
        progress: &dyn Fn(u64, u64),
    ) -> Result<Self, EngineError> {
        let log = std::sync::Arc::new(log);
        let replication = match shared {
            Some(shared) => Some(Replication::start(shared, &log)?),
            None => None,
        };
        // A purge a crash interrupted is finished before anything reads
        // the log: its keys destroyed, then (below) the views rewritten.
        let pending = store.dir().join(PURGE_PENDING_FILE_NAME).exists();
        if pending {
            engram_commands::purge::finish_pending(log.reader())?;
        }
        let wake = log.subscribe();
        let core = CoreViews::new(log.reader().clone());
        let views = Views::open(
            &store.views_path(),
            core.list(),
            log.reader().clone(),
            wake,
            view_options,
            progress,
        )?;
        let last_purged = core.memory_table.read().state.last_purged_seq();
        if pending || last_purged > views.rewritten_through()? {
            views.rewrite(CoreViews::new(log.reader().clone()).list())?;
        }
        if pending {
            mark_purge_pending(&store, false)?;
        }
        let views = std::sync::Arc::new(views);
        if let Some(replication) = &replication {
            // Set once, here.
            let _ = replication.views.set(std::sync::Arc::clone(&views));
        }
        Ok(Self {
            store,
            log,
            replication,
            views,
            core,
            gates: GateChain::standard(),
            embedder: None,
            last_recall_mode: parking_lot::Mutex::new(engram_queries::RecallMode::Keyword),
            embed_cache: parking_lot::Mutex::default(),
            writer: parking_lot::Mutex::new(()),
            held_reads: parking_lot::Mutex::new(None),
        })
    }

    /// Uses `embedder` for new memories' vectors and for hybrid recall.
    #[must_use]
    pub fn with_embedder(mut self, embedder: std::sync::Arc<dyn engram_embed::Embedder>) -> Self {
        self.embedder = Some(embedder);
        self
    }

    /// The sentence model, if one is configured.
    #[must_use]
    pub fn embedder(&self) -> Option<&dyn engram_embed::Embedder> {
        self.embedder.as_deref()
    }

    /// Replaces the gate chain (the standard one is scope isolation, size
    /// limits and write-path trust).
    #[must_use]
    pub fn with_gates(mut self, gates: GateChain) -> Self {
        self.gates = gates;
        self
    }

    /// The gate chain every memory command passes.
    #[must_use]
    pub fn gates(&self) -> &GateChain {
        &self.gates
    }

    pub(crate) fn write_lock(&self) -> parking_lot::MutexGuard<'_, ()> {
        self.writer.lock()
    }

    /// The store this engine has open.
    #[must_use]
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Appends `events` atomically and returns once every view applied them.
    /// With a shared log the events go there, and the store's copy and its
    /// views catch up before this returns (read-your-writes).
    ///
    /// Writes the events as given: no redaction and no gates. The memory
    /// commands ([`Engram::remember`], [`Engram::record_turns`], ...) are
    /// the public way in; this is for the engine's own handlers, tools that
    /// write synthetic logs (benchmarks) and tests.
    #[doc(hidden)]
    pub fn append(&self, events: &[Event]) -> Result<Appended, EngineError> {
        let appended = match &self.replication {
            None => self.log.append(events)?,
            Some(replication) => {
                replication.check()?;
                replication.shared.append(events)?
            }
        };
        self.wait_for_views(appended)
    }

    /// Appends `events` as seqs `first_seq..` and waits for the views
    /// (when `viewed`; else the caller waits with
    /// [`Engram::wait_for_views_through`] before it reads them), or says
    /// where the log is when another append took `first_seq` first. With a
    /// shared log it always waits: the store's copy catches up there.
    pub(crate) fn append_expecting(
        &self,
        first_seq: u64,
        events: &[Event],
        sealed: &std::collections::BTreeMap<usize, Vec<u8>>,
        viewed: bool,
    ) -> Result<engram_commands::save::Expecting, EngineError> {
        use engram_commands::save::Expecting;
        let appended = match &self.replication {
            None => match self.log.append_expecting_sealed(first_seq, events, sealed) {
                Err(AppendError::SeqMismatch { expected, .. }) => {
                    return Ok(Expecting::Moved { next_seq: expected });
                }
                other => other?,
            },
            Some(replication) => {
                replication.check()?;
                match replication.shared.append_expecting(first_seq, events) {
                    Err(engram_log_postgres::PgLogError::Batch(AppendError::SeqMismatch {
                        expected,
                        ..
                    })) => return Ok(Expecting::Moved { next_seq: expected }),
                    other => other?,
                }
            }
        };
        if viewed || self.replication.is_some() {
            Ok(Expecting::Appended(self.wait_for_views(appended)?))
        } else {
            Ok(Expecting::Appended(appended))
        }
    }

    /// Returns once every view applied `seq` (an append this store made
    /// without waiting for them).
    pub(crate) fn wait_for_views_through(&self, seq: u64) -> Result<(), EngineError> {
        self.wait_for_views(Appended {
            first_seq: seq,
            last_seq: seq,
        })?;
        Ok(())
    }

    /// Records what a read did (`Recalled`, `Expanded`) without waiting for
    /// an fsync or for the views: the events are queued for the next group
    /// commit and become durable with it. A crash before that commit loses
    /// them (the loss window of a read's evidence); a later write, `sync`
    /// or `close` returns only once they are written. With a shared log
    /// they are sent there and the call returns once it committed, without
    /// waiting for this store's copy.
    ///
    /// While a save appends (`hold_reads`), the events wait beside the log
    /// and are appended when it is done: a read's append could take the
    /// seqs the save's next part was built for.
    pub(crate) fn record_read(&self, event: Event) -> Result<(), EngineError> {
        let mut held = self.held_reads.lock();
        if let Some(held) = held.as_mut() {
            held.push(event);
            return Ok(());
        }
        // Queued under the lock (it only queues), so that once reads are
        // held no read is still on its way to the log. A shared log's
        // append waits for its database: not under the lock.
        if self.replication.is_some() {
            drop(held);
        }
        self.append_reads(std::slice::from_ref(&event))
    }

    fn append_reads(&self, events: &[Event]) -> Result<(), EngineError> {
        match &self.replication {
            None => self.log.append_queued(events)?,
            Some(replication) => {
                replication.check()?;
                replication.shared.append(events)?;
            }
        }
        Ok(())
    }

    /// Holds what reads record from now on (see [`Engram::record_read`]),
    /// or appends what was held and stops holding.
    pub(crate) fn hold_reads(&self, hold: bool) -> Result<(), EngineError> {
        let mut held = self.held_reads.lock();
        if hold {
            held.get_or_insert_with(Vec::new);
            return Ok(());
        }
        let events = held.take().unwrap_or_default();
        // Queued under the lock, ahead of any read after it; a shared
        // log's appends wait for its database, so not under the lock.
        if self.replication.is_some() {
            drop(held);
        }
        // In batches a log takes whatever reads recorded: a read's record
        // is at most a few kilobytes (its query is a note's size at most).
        for events in events.chunks(HELD_READS_PER_APPEND) {
            self.append_reads(events)?;
        }
        Ok(())
    }

    /// Waits until every event queued before the call (a read's
    /// `Recalled`) is written and applied by the views: for reports that
    /// count events, so they count what was asked before them.
    ///
    /// # Errors
    /// When the log cannot sync, or a view fell behind past the wait.
    pub fn settle(&self) -> Result<(), EngineError> {
        if self.replication.is_none() {
            self.log.sync()?;
        }
        self.views
            .wait_for(self.log.last_seq(), READ_YOUR_WRITES_TIMEOUT)?;
        Ok(())
    }

    fn wait_for_views(&self, appended: Appended) -> Result<Appended, EngineError> {
        let waited = self
            .views
            .wait_for(appended.last_seq, READ_YOUR_WRITES_TIMEOUT);
        if let (Err(_), Some(replication)) = (&waited, &self.replication)
            && let Some(reason) = replication.failure.lock().clone()
        {
            return Err(EngineError::Replica { reason });
        }
        waited?;
        Ok(appended)
    }

    /// The shared log this store replicates, if any.
    #[must_use]
    pub fn shared_log(&self) -> Option<&engram_log_postgres::PgLog> {
        self.replication.as_ref().map(|r| &r.shared)
    }

    /// The events from seq `from` on, in seq order, each frame checked
    /// (hash chain and HMAC) as it is read.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// use engram::{Engram, Remember, store::{Store, StoreOptions}};
    ///
    /// let engram = Engram::open(Store::at(dir.path()), &StoreOptions::default())?;
    /// engram.remember(&Remember::text("tea, no sugar"))?;
    /// let kinds: Vec<&str> = engram.replay(1).map(|e| e.map(|e| e.event.kind())).collect::<Result<_, _>>()?;
    /// // The note, the memory, and its new room put on a corridor.
    /// assert_eq!(kinds, ["session", "remembered", "corridor_placed"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn replay(&self, from: u64) -> engram_log::Replay {
        self.log.replay(from)
    }

    /// Walks the whole log: segment headers, contiguous seqs, the hash chain
    /// and every frame's HMAC. Corruption is a result (the report names the
    /// first bad seq), not an error.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// use engram::{Engram, Remember, store::{Store, StoreOptions}};
    ///
    /// let engram = Engram::open(Store::at(dir.path()), &StoreOptions::default())?;
    /// engram.remember(&Remember::text("the build runs on Fridays"))?;
    /// let report = engram.verify()?;
    /// assert!(report.is_ok());
    /// assert_eq!(report.last_seq, 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn verify(&self) -> Result<engram_log::VerifyReport, engram_log::VerifyError> {
        self.log.verify()
    }

    /// The log.
    #[must_use]
    pub fn log(&self) -> &engram_log::Log {
        &self.log
    }

    /// The views runtime (watermarks, health, `wait_for`).
    #[must_use]
    pub fn views(&self) -> &Views {
        &self.views
    }

    /// Typed access to the core views.
    #[must_use]
    pub fn core(&self) -> &CoreViews {
        &self.core
    }

    /// Counts, watermarks and lag.
    #[must_use]
    pub fn stats(&self) -> Stats {
        stats_of(&self.core, self.log.last_seq(), self.views.status())
    }

    /// Every operation on memory `id`, in seq order.
    pub fn audit(&self, id: MemoryId) -> Result<Vec<AuditRecord>, EngineError> {
        audit_of(&self.core, id, |id| self.views.memory_history(id))
    }

    /// Stops the views (persisting them) and closes the log.
    pub fn close(mut self) -> Result<(), EngineError> {
        if let Some(mut replication) = self.replication.take() {
            replication.stop();
        }
        // The copying thread, which shared the views, has stopped.
        if let Ok(views) = std::sync::Arc::try_unwrap(self.views) {
            views.close()?;
        }
        // The copying thread held the only other handle and has stopped;
        // were one left, dropping it would still sync what was written.
        if let Ok(log) = std::sync::Arc::try_unwrap(self.log) {
            log.close()?;
        }
        Ok(())
    }
}

/// Read-only views as of a past seq, rebuilt in memory from the log prefix.
/// The live store is untouched.
pub struct AsOf {
    core: CoreViews,
    views: AsOfViews,
}

impl AsOf {
    /// The views of `store` as of `seq`.
    pub fn open(store: &Store, key: &KeySource, seq: u64) -> Result<Self, EngineError> {
        let reader: LogReader = store.open_reader(key)?.ok_or_else(|| EngineError::NoLog {
            path: store.dir().display().to_string(),
        })?;
        Self::on_reader(&reader, seq)
    }

    /// The views as of `seq` of the log `reader` reads (a replica's,
    /// opened with the team's key store).
    pub fn on_reader(reader: &LogReader, seq: u64) -> Result<Self, EngineError> {
        let core = CoreViews::new(reader.clone());
        let views = AsOfViews::build(&core.list(), reader, seq)?;
        Ok(Self { core, views })
    }

    /// Stats as of the seq (every view stands exactly there).
    #[must_use]
    pub fn stats(&self) -> Stats {
        let seq = self.views.seq;
        let statuses = self
            .core
            .list()
            .iter()
            .map(|v| {
                let v = v.read();
                ViewStatus {
                    name: v.name(),
                    version: v.version(),
                    applied: seq,
                    failure: None,
                }
            })
            .collect();
        stats_of(&self.core, seq, statuses)
    }

    /// A memory's history up to the seq.
    pub fn audit(&self, id: MemoryId) -> Result<Vec<AuditRecord>, EngineError> {
        audit_of(&self.core, id, |id| self.views.memory_history(id))
    }
}

//! `engram-log-postgres`: engram's event log on PostgreSQL, one log shared
//! by many machines.
//!
//! The rows hold what a segment log holds: each event's bytes (its codec
//! bytes, or in a sealed log its record: a skeleton in the clear and its
//! words sealed under the data key of its seq, kept wrapped in
//! `engram_keys`), keyed by a seq contiguous from 1, with the frame it was
//! committed in (first and last seq, previous hash, blake3 hash, HMAC). One append transaction
//! writes one frame, exactly the bytes `engram_log::format::write_frame`
//! makes, so a frame read back (a [`PgFrame`]) can be appended byte for
//! byte to a local segment log with `engram_log::Log::append_frame` and
//! verifies there: every machine keeps a local replica and runs its
//! projections from it.
//!
//! ```no_run
//! use engram_log::{Event, HmacKey, Role, SessionEvent};
//! use engram_log_postgres::{PgLog, PgLogConfig};
//!
//! let key = HmacKey::from_bytes([7; 32]);
//! let log = PgLog::connect("postgres://engram:secret@127.0.0.1/engram", key, PgLogConfig::default())?;
//! let turn = Event::Session(SessionEvent {
//!     session: "s1".into(),
//!     turn: 0,
//!     role: Role::User,
//!     content: "I prefer tea.".into(),
//! });
//! let appended = log.append(&[turn])?; // after COMMIT: durable
//! let mut tailer = log.tailer()?;
//! let frames = tailer.frames_after(appended.first_seq - 1, 64)?;
//! assert_eq!(frames[0].events[0].seq, appended.first_seq);
//! assert!(log.verify()?.is_ok());
//! # Ok::<(), engram_log_postgres::PgLogError>(())
//! ```
//!
//! Connections do not use TLS yet: loopback or a trusted network only.
//!
//! **Architecture Invariant:** this crate depends on `engram-log` only
//! among engram crates, and never changes the frame format: a frame
//! committed here and the same frame in a segment are the same bytes.

mod connect;
mod error;
mod keys;
mod read;
mod rows;
mod schema;
mod tail;
mod verify;
mod writer;

use std::ops::RangeInclusive;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::Sender;
use engram_log::format::Hash;
use engram_log::limits::QUEUE_REQUESTS_MAX;
use engram_log::{
    Clock, DataKey, EncodedBatch, Event, HmacKey, LoggedEvent, MasterKey, SubjectKeys, SystemClock,
};
use parking_lot::Mutex;
use postgres::Client;

pub use engram_log::Appended;
pub use error::PgLogError;
pub use keys::{CACHED_KEYS_MAX, KEY_ROWS_AHEAD, PgKeys};
pub use read::READ_EVENTS_MAX;
pub use rows::PgFrame;
pub use schema::SCHEMA_VERSION;
pub use tail::Tailer;
pub use verify::{PgCorruption, PgVerifyReport};

use crate::connect::Connector;
use crate::writer::{Request, Sealing, Stamp, Writer};

/// How to use the shared log.
#[derive(Debug, Clone)]
pub struct PgLogConfig {
    /// Commit times come from here (never earlier than the last commit's).
    pub clock: Arc<dyn Clock>,
    /// How long a connection attempt may take (unless the URL says).
    pub connect_timeout: Duration,
    /// How often a [`Tailer`] re-reads the head when it hears nothing:
    /// the safety net under LISTEN/NOTIFY.
    pub poll_interval: Duration,
    /// The team's master key. A log created by a connect given one seals
    /// its words (a data key per seq in `engram_keys`, wrapped by it); a
    /// sealed log refuses a connect without it, or with another one.
    pub master_key: Option<MasterKey>,
}

impl Default for PgLogConfig {
    /// The system clock, a 10 s connect timeout, a 1 s poll.
    fn default() -> Self {
        Self {
            clock: Arc::new(SystemClock::default()),
            connect_timeout: Duration::from_secs(10),
            poll_interval: Duration::from_secs(1),
            master_key: None,
        }
    }
}

impl PgLogConfig {
    #[must_use]
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    #[must_use]
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    #[must_use]
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// The team's master key (see [`PgLogConfig::master_key`]).
    #[must_use]
    pub fn master_key(mut self, master: MasterKey) -> Self {
        self.master_key = Some(master);
        self
    }
}

/// Where the shared log ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PgHead {
    /// The last seq (0 when empty).
    pub last_seq: u64,
    /// The chain hash after it: the last frame's hash.
    pub last_hash: Hash,
    /// The last commit time, unix milliseconds.
    pub last_ts_ms: u64,
}

impl From<rows::Head> for PgHead {
    fn from(head: rows::Head) -> Self {
        Self {
            last_seq: head.last_seq,
            last_hash: head.last_hash,
            last_ts_ms: head.last_ts_ms,
        }
    }
}

/// The shared log: appends through this process's group-commit writer
/// (its own connection), reads on another connection, tailers on their
/// own. Dropping it lets queued appends finish and closes the connections.
pub struct PgLog {
    connector: Connector,
    key: HmacKey,
    config: PgLogConfig,
    channel: String,
    location: String,
    created: bool,
    reader: Mutex<Option<Client>>,
    /// The highest seq this process has seen in the shared log: the head
    /// may never be found behind it.
    seen: Arc<AtomicU64>,
    tx: Option<Sender<Request>>,
    writer: Option<JoinHandle<()>>,
    /// Whether the log seals its words.
    sealed: bool,
    /// The team's key store, for a sealed log connected with its master
    /// key.
    keys: Option<Arc<PgKeys>>,
    /// Keys drawn ahead for seqs not yet committed (see
    /// [`PgLog::record_bytes`]), shared with the writer.
    drawn: Arc<Mutex<std::collections::BTreeMap<u64, DataKey>>>,
}

/// Most keys drawn ahead at once (a save draws one or two).
const DRAWN_KEYS_MAX: usize = 4096;

impl std::fmt::Debug for PgLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgLog")
            .field("target", &self.connector.target())
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

impl PgLog {
    /// Connects to the shared log at `url`, creating schema v2 in the
    /// connection's current schema (the first of its `search_path`) when
    /// it holds none (sealed when `config` carries the team's master key),
    /// migrating schema v1 to v2 (a v1 log stays in the clear), and starts
    /// the writer thread.
    ///
    /// Refused with nothing changed: an unreachable server, refused
    /// credentials, a missing database or schema, a URL requiring TLS, a
    /// schema newer than this build ([`PgLogError::SchemaNewer`]), a key
    /// other than the log's ([`PgLogError::KeyMismatch`]), a master key
    /// other than a sealed log's ([`PgLogError::WrongMasterKey`]), a head
    /// whose last row is missing ([`PgLogError::Truncated`]). A sealed log
    /// connected without a master key verifies and gives its frames, but
    /// refuses appends and reads of its words
    /// ([`PgLogError::MasterKeyRequired`]).
    pub fn connect(url: &str, key: HmacKey, config: PgLogConfig) -> Result<Self, PgLogError> {
        let connector = Connector::new(url, config.connect_timeout)?;
        let mut client = connector.connect()?;
        let info = schema::ensure(
            &mut client,
            connector.target(),
            &key,
            config.master_key.as_ref(),
            config.clock.unix_ms(),
            config.connect_timeout,
        )?;
        let drawn = Arc::new(Mutex::new(std::collections::BTreeMap::new()));
        let (keys, sealing) = match (&config.master_key, info.sealed) {
            (Some(master), true) => (
                Some(Arc::new(PgKeys::new(
                    connector.clone(),
                    info.location.clone(),
                    master.clone(),
                ))),
                Some(Sealing {
                    master: master.clone(),
                    drawn: Arc::clone(&drawn),
                }),
            ),
            _ => (None, None),
        };
        let seen = Arc::new(AtomicU64::new(info.head.last_seq));
        let (tx, rx) = crossbeam_channel::bounded(QUEUE_REQUESTS_MAX);
        let writer = Writer {
            connector: connector.clone(),
            session: None,
            key: key.clone(),
            clock: Arc::clone(&config.clock),
            channel: info.channel.clone(),
            seen: Arc::clone(&seen),
            rx,
            sealing,
        };
        let handle = std::thread::Builder::new()
            .name("engram-pg-writer".to_owned())
            .spawn(move || writer.run())
            .map_err(|e| PgLogError::Thread(e.to_string()))?;
        Ok(Self {
            connector,
            key,
            config,
            channel: info.channel,
            location: info.location,
            created: info.created,
            reader: Mutex::new(Some(client)),
            seen,
            tx: Some(tx),
            writer: Some(handle),
            sealed: info.sealed,
            keys,
            drawn,
        })
    }

    /// Whether the log seals its words (made by a connect given the
    /// team's master key): frames of version 2, a key row per seq.
    #[must_use]
    pub fn is_sealed(&self) -> bool {
        self.sealed
    }

    /// Refuses ([`PgLogError::MasterKeyRequired`]) a sealed log connected
    /// without its master key: it verifies and gives its frames, but
    /// cannot be appended to nor its words opened.
    pub fn check_master_key(&self) -> Result<(), PgLogError> {
        if self.sealed && self.keys.is_none() {
            return Err(PgLogError::MasterKeyRequired {
                location: self.location.clone(),
            });
        }
        Ok(())
    }

    /// The team's key store, for a sealed log: what a replica's local log
    /// opens the words of the frames it copies with
    /// (`engram_log::LogConfig::remote_keys`), and destroys keys through.
    #[must_use]
    pub fn keys(&self) -> Option<Arc<dyn SubjectKeys>> {
        self.keys.clone().map(|keys| keys as Arc<dyn SubjectKeys>)
    }

    /// Encodes `events` for this log: in the clear, or as unsealed records
    /// the writer seals once it knows their seqs.
    fn encode(&self, events: &[Event]) -> Result<EncodedBatch, PgLogError> {
        self.check_master_key()?;
        Ok(if self.is_sealed() {
            EncodedBatch::encode_unsealed(events, &self.key)?
        } else {
            EncodedBatch::encode(events)?
        })
    }

    /// The bytes `event` will have in this log at `seq`, exactly as its
    /// frame will hold them (as `engram_log::Log::record_bytes` gives them
    /// for a local log): the codec's encoding in a log in the clear; in a
    /// sealed log, the record sealed under a data key drawn now for `seq`,
    /// which the writer seals the event landing at `seq` under. A memory's
    /// content hash is computed over these bytes before its batch is
    /// appended with [`PgLog::append_expecting`]; if another append takes
    /// `seq` first, the batch is refused and built again for the next seq.
    pub fn record_bytes(&self, seq: u64, event: &Event) -> Result<Vec<u8>, PgLogError> {
        let failed = |reason: String| {
            PgLogError::Batch(engram_log::AppendError::Encode { index: 0, reason })
        };
        if !self.is_sealed() {
            return engram_log::codec::encode(event).map_err(|e| failed(e.to_string()));
        }
        self.check_master_key()?;
        let key = {
            let mut drawn = self.drawn.lock();
            // Keys of seqs already taken are spent.
            let seen = self.seen.load(Ordering::SeqCst);
            drawn.retain(|&at, _| at > seen);
            if drawn.len() >= DRAWN_KEYS_MAX {
                drawn.clear();
            }
            match drawn.get(&seq) {
                Some(key) => key.clone(),
                None => {
                    let key = DataKey::generate().map_err(|e| PgLogError::Keys(e.to_string()))?;
                    drawn.insert(seq, key.clone());
                    key
                }
            }
        };
        engram_log::seal_record(event, seq, &self.key, &key).map_err(|e| failed(e.to_string()))
    }

    /// Appends `events` atomically; returns their seq range once the
    /// transaction committed (durable per the server's
    /// `synchronous_commit`, at least flushed locally). Concurrent appends
    /// of this process share a transaction and a frame.
    pub fn append(&self, events: &[Event]) -> Result<Appended, PgLogError> {
        self.send(self.encode(events)?, None)
    }

    /// Appends one event and returns its seq.
    pub fn append_one(&self, event: &Event) -> Result<u64, PgLogError> {
        Ok(self.append(std::slice::from_ref(event))?.first_seq)
    }

    /// Appends `events` as seqs `first_seq..`, stamped with commit time
    /// `ts_ms`, in a frame of their own: for rebuilding a log with the seqs
    /// and times it had (import). Refused with nothing written unless
    /// `first_seq` is the next seq and `ts_ms` is not before the last
    /// commit time (`engram_log::AppendError::SeqMismatch`,
    /// `TimeBackwards`, inside [`PgLogError::Batch`]).
    pub fn append_at(
        &self,
        first_seq: u64,
        ts_ms: u64,
        events: &[Event],
    ) -> Result<Appended, PgLogError> {
        self.send(
            self.encode(events)?,
            Some(Stamp {
                first_seq,
                ts_ms: Some(ts_ms),
            }),
        )
    }

    /// Appends `events` as seqs `first_seq..` at the clock's commit time,
    /// in a transaction of their own, or refuses them with nothing written
    /// (`engram_log::AppendError::SeqMismatch` inside
    /// [`PgLogError::Batch`]) when another append took `first_seq` first:
    /// for a batch whose events name each other by seq, built again for
    /// the next seq when refused.
    pub fn append_expecting(
        &self,
        first_seq: u64,
        events: &[Event],
    ) -> Result<Appended, PgLogError> {
        self.send(
            self.encode(events)?,
            Some(Stamp {
                first_seq,
                ts_ms: None,
            }),
        )
    }

    fn send(&self, batch: EncodedBatch, stamp: Option<Stamp>) -> Result<Appended, PgLogError> {
        let tx = self.tx.as_ref().ok_or(PgLogError::Closed)?;
        let (ack, acked) = crossbeam_channel::bounded(1);
        let n_events = batch.n_events();
        tx.send(Request {
            payload: batch.into_payload(),
            n_events,
            stamp,
            ack,
        })
        .map_err(|_| PgLogError::Closed)?;
        acked.recv().map_err(|_| PgLogError::Closed)?
    }

    /// Runs `f` on the reading connection, reconnecting when it was lost.
    /// Reads change nothing, so one lost connection is retried once on a
    /// new one (the server may have ended an idle session).
    fn with_reader<T>(
        &self,
        mut f: impl FnMut(&mut Client, &str) -> Result<T, PgLogError>,
    ) -> Result<T, PgLogError> {
        let mut slot = self.reader.lock();
        let mut retried = false;
        loop {
            let mut client = match slot.take() {
                Some(client) if !client.is_closed() => client,
                _ => self.connector.connect()?,
            };
            let result = f(&mut client, self.connector.target());
            if !matches!(result, Err(PgLogError::ConnectionLost { .. })) {
                *slot = Some(client);
                return result;
            }
            if retried {
                return result;
            }
            retried = true;
        }
    }

    fn saw(&self, last_seq: u64) {
        self.seen.fetch_max(last_seq, Ordering::SeqCst);
    }

    /// Where the shared log ends now.
    pub fn head(&self) -> Result<PgHead, PgLogError> {
        let head = self.with_reader(rows::read_head)?;
        self.saw(head.last_seq);
        Ok(head.into())
    }

    /// The shared log's last seq (0 when empty).
    pub fn last_seq(&self) -> Result<u64, PgLogError> {
        Ok(self.head()?.last_seq)
    }

    /// Events in `range` (inclusive), every frame they lie in verified.
    pub fn read(&self, range: RangeInclusive<u64>) -> Result<Vec<LoggedEvent>, PgLogError> {
        let (head, events) = self.with_reader(|client, target| {
            read::read(client, target, &self.key, self.key_source(), range.clone())
        })?;
        self.saw(head.last_seq);
        Ok(events)
    }

    /// Verified frames holding the seqs after `after_seq`, at most
    /// `max_frames`, in seq order: each checked for contiguous seqs, its
    /// hash, its HMAC and its link to the frame before it (the first
    /// frame's link is the caller's to check: `Log::append_frame` does).
    /// Frames are whole, so when `after_seq` falls inside a frame the first
    /// one starts at or before it. Empty when the log ends at `after_seq`;
    /// [`PgLogError::Rewound`] when it ends before.
    pub fn frames_after(
        &self,
        after_seq: u64,
        max_frames: usize,
    ) -> Result<Vec<PgFrame>, PgLogError> {
        let (head, frames) = self.with_reader(|client, target| {
            read::frames_after(
                client,
                target,
                &self.key,
                self.key_source(),
                after_seq,
                max_frames,
            )
        })?;
        self.saw(head.last_seq);
        Ok(frames)
    }

    /// Walks every row: see [`PgVerifyReport`]. Damage is a result, not an
    /// error; an error means the walk could not run.
    pub fn verify(&self) -> Result<PgVerifyReport, PgLogError> {
        self.with_reader(|client, target| verify::verify(client, target, &self.key))
    }

    /// Checks that the shared log continues a replica whose local log ends
    /// at `local_last_seq` with chain hash `local_last_hash`
    /// (`Log::last_seq`, `Log::last_hash`): [`PgLogError::Rewound`] when the
    /// shared log ends before it (truncated, restored from an older copy),
    /// [`PgLogError::Diverged`] when it holds another frame or hash there.
    pub fn check_continuity(
        &self,
        local_last_seq: u64,
        local_last_hash: &Hash,
    ) -> Result<PgHead, PgLogError> {
        let head = self.with_reader(|client, target| {
            read::check_continuity(client, target, local_last_seq, local_last_hash)
        })?;
        self.saw(head.last_seq.max(local_last_seq));
        Ok(head.into())
    }

    /// A follower of the log on a connection of its own (LISTEN/NOTIFY,
    /// polling every `poll_interval` as the safety net).
    pub fn tailer(&self) -> Result<Tailer, PgLogError> {
        let mut tailer = Tailer {
            connector: self.connector.clone(),
            client: None,
            key: self.key.clone(),
            channel: self.channel.clone(),
            clock: Arc::clone(&self.config.clock),
            poll_interval: self.config.poll_interval,
            seen: Arc::clone(&self.seen),
            keys: self.keys.clone(),
        };
        tailer.last_seq()?;
        Ok(tailer)
    }

    fn key_source(&self) -> Option<&dyn SubjectKeys> {
        self.keys.as_deref().map(|keys| keys as &dyn SubjectKeys)
    }

    /// The HMAC key.
    #[must_use]
    pub fn key(&self) -> &HmacKey {
        &self.key
    }

    /// `database.schema` holding the log.
    #[must_use]
    pub fn location(&self) -> &str {
        &self.location
    }

    /// `user@host:port/database` (never the password).
    #[must_use]
    pub fn target(&self) -> &str {
        self.connector.target()
    }

    /// Whether this connect created the log's tables.
    #[must_use]
    pub fn created(&self) -> bool {
        self.created
    }

    /// Lets queued appends finish, then closes the connections.
    pub fn close(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.tx = None;
        if let Some(handle) = self.writer.take() {
            // A panicking writer already failed its callers.
            let _ = handle.join();
        }
        if let Some(client) = self.reader.lock().take() {
            let _ = client.close();
        }
    }
}

impl Drop for PgLog {
    fn drop(&mut self) {
        self.shutdown();
    }
}

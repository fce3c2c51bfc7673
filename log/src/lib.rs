//! `engram-log`: engram's append-only event log.
//!
//! Every memory operation is an [`Event`] appended to the log with a
//! contiguous seq starting at 1. Events are written in frames (one per commit
//! group) to segment files; each frame carries a blake3 hash that chains to
//! the previous frame and an HMAC-SHA256 that only the key holder can make.
//! Opening a log recovers from a crash by truncating a torn tail; a bad frame
//! followed by good ones is corruption and fails the open.
//!
//! ```
//! use std::sync::Arc;
//! use engram_log::{Event, HmacKey, Log, LogConfig, MemStorage, Role, SessionEvent};
//!
//! let storage = Arc::new(MemStorage::new());
//! let log = Log::open(storage, LogConfig::new(HmacKey::from_bytes([7; 32])))?;
//! let turn = Event::Session(SessionEvent {
//!     session: "s1".into(),
//!     turn: 0,
//!     role: Role::User,
//!     content: "I prefer tea.".into(),
//! });
//! let appended = log.append(&[turn.clone()])?;
//! assert_eq!(appended.first_seq, 1);
//! assert_eq!(log.read(1..=1)?[0].event, turn);
//! assert!(log.verify()?.is_ok());
//! # Ok::<(), engram_log::Error>(())
//! ```
//!
//! **Architecture Invariant:** this crate knows bytes, frames and events, never
//! what an event means; only `codec` encodes or decodes an event.

mod aead;
pub mod clock;
pub mod codec;
pub mod error;
pub mod event;
pub mod format;
pub mod key;
pub mod keystore;
pub mod limits;
mod reader;
mod record;
mod recovery;
pub mod repair;
mod scan;
pub mod seal;
pub mod sealed;
pub mod storage;
mod subject_keys;
mod tail;
mod verify;
mod words;
mod writer;

use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::path::Path;
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::Sender;
use parking_lot::RwLock;

pub use clock::{Clock, ManualClock, SystemClock};
pub use error::{
    AppendError, Corruption, Error, IoFailure, KeyError, OpenError, ReadError, VerifyError,
};
pub use event::*;
pub use format::{TailRecord, TailState};
pub use key::{HmacKey, KeySource};
pub use keystore::{KeyStore, KeyStoreError, MasterKey, MasterKeySource};
pub use reader::Replay;
pub use record::{
    RecordError, open_record, record_has_words, record_skeleton, seal_payload, seal_record,
};
pub use recovery::{RecoveryReport, TornTail};
pub use repair::{RepairError, Truncated, truncate_from};
pub use scan::{parse_segment_name, segment_name};
pub use sealed::{Content, DataKey, Field, Opened, SealedError, SubjectKey};
pub use storage::{FaultyStorage, FileStorage, MemStorage, Storage, StorageFile, Tear};
pub use subject_keys::SubjectKeys;
pub use tail::TAIL_FILE_NAME;
pub use verify::{VerifyReport, verify_storage};
pub use words::{is_pseudonym, room_pseudonym};
pub use writer::{Appended, Durability};

use crate::format::SEGMENT_HEADER_LEN;
use crate::limits::{
    BATCH_BYTES_MAX, BATCH_EVENTS_MAX, EVENT_BYTES_MAX, QUEUE_REQUESTS_MAX, SEGMENT_BYTES_DEFAULT,
};
use crate::reader::{Keys, Shared};
use crate::writer::{Request, Writer};

/// The key store a log is opened with (`keystore`): where it lives and
/// the master key that wraps its data keys.
#[derive(Debug, Clone)]
pub struct KeyStoreConfig {
    /// The folder of `keys.engram` (the store folder, beside the log's).
    pub storage: Arc<dyn Storage>,
    pub master: MasterKey,
}

/// How to open a log.
#[derive(Debug, Clone)]
pub struct LogConfig {
    pub key: HmacKey,
    /// The key store of the subjects' data keys; `None` for a log whose
    /// content is not sealed.
    pub keys: Option<KeyStoreConfig>,
    /// Keys kept elsewhere, for a replica of a shared log whose frames
    /// are sealed there: the log opens their words with these keys and
    /// takes frames only ([`Log::append_frame`]). Ignored when `keys` is
    /// set.
    pub remote_keys: Option<Arc<dyn SubjectKeys>>,
    pub durability: Durability,
    /// A segment is sealed when the next frame would take it past this size.
    pub segment_bytes_max: u64,
    pub clock: Arc<dyn Clock>,
}

impl LogConfig {
    /// Defaults: `Sync` durability, 64 MiB segments, the system clock.
    #[must_use]
    pub fn new(key: HmacKey) -> Self {
        Self {
            key,
            keys: None,
            remote_keys: None,
            durability: Durability::Sync,
            segment_bytes_max: SEGMENT_BYTES_DEFAULT,
            clock: Arc::new(SystemClock::default()),
        }
    }

    #[must_use]
    pub fn durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    #[must_use]
    pub fn segment_bytes_max(mut self, bytes: u64) -> Self {
        self.segment_bytes_max = bytes;
        self
    }

    /// Opens the log with the key store in `storage` under `master`
    /// (created when the log is empty).
    #[must_use]
    pub fn keys(mut self, storage: Arc<dyn Storage>, master: MasterKey) -> Self {
        self.keys = Some(KeyStoreConfig { storage, master });
        self
    }

    /// Opens the log as a replica whose frames were sealed elsewhere under
    /// the keys `keys` gives (a shared log's key store).
    #[must_use]
    pub fn remote_keys(mut self, keys: Arc<dyn SubjectKeys>) -> Self {
        self.remote_keys = Some(keys);
        self
    }

    #[must_use]
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    fn validate(&self) -> Result<(), OpenError> {
        let range = limits::SEGMENT_BYTES_MIN..=limits::SEGMENT_BYTES_MAX;
        if !range.contains(&self.segment_bytes_max) {
            return Err(OpenError::Config(format!(
                "segment size {} is outside {}-{} bytes",
                self.segment_bytes_max,
                range.start(),
                range.end()
            )));
        }
        if let Durability::Interval(every) = self.durability
            && every.is_zero()
        {
            return Err(OpenError::Config(
                "the sync interval must be above zero".to_owned(),
            ));
        }
        Ok(())
    }
}

/// A batch of events encoded on the caller's thread, limits checked.
///
/// For a log opened with a key store ([`Log::encode`]) the events are
/// *unsealed records*: each event's skeleton and words, in the clear until
/// the writer, which alone knows their seqs, seals the words under those
/// seqs' data keys. A batch is made for one kind of log and refused by the
/// other ([`AppendError::WrongBatchForm`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedBatch {
    payload: Vec<u8>,
    n_events: u32,
    sealed: bool,
}

impl EncodedBatch {
    /// Encodes `events` in the clear (a log without a key store, a shared
    /// log's frames), refusing an empty batch and anything over the limits.
    pub fn encode(events: &[Event]) -> Result<Self, AppendError> {
        Self::encode_with(events, false, codec::encode_into)
    }

    /// Encodes `events` as unsealed records for a sealed log whose HMAC key
    /// is `key` (names become pseudonyms under it): the words stay in the
    /// clear, in memory only, until the log's writer seals them
    /// ([`seal_payload`]) once it knows their seqs.
    pub fn encode_unsealed(events: &[Event], key: &HmacKey) -> Result<Self, AppendError> {
        Self::encode_with(events, true, |event, out| record::split(event, key, out))
    }

    /// [`EncodedBatch::encode_unsealed`] for a batch some of whose events
    /// are sealed already: `sealed` maps an event's index to its record as
    /// [`Log::record_bytes`] gave it for the seq the event lands on,
    /// written as it is; the writer seals the others. A command that hashed
    /// a record before appending it (a memory's content hash is over the
    /// record as the log holds it) hands the writer what it sealed instead
    /// of having it sealed twice. A batch that lands elsewhere than the
    /// seqs its records were sealed for is refused as a whole
    /// ([`Log::append_expecting_sealed`]).
    pub fn encode_partly_sealed(
        events: &[Event],
        sealed: &BTreeMap<usize, Vec<u8>>,
        key: &HmacKey,
    ) -> Result<Self, AppendError> {
        let items: Vec<(&Event, Option<&[u8]>)> = events
            .iter()
            .enumerate()
            .map(|(index, event)| (event, sealed.get(&index).map(Vec::as_slice)))
            .collect();
        Self::encode_with(&items, true, |&(event, record), out| match record {
            None => record::split(event, key, out),
            Some(bytes) if record::is_sealed(bytes) => {
                debug_assert!(
                    record::same_skeleton(bytes, event, key),
                    "a sealed record handed with another event"
                );
                out.push(record::PRESEALED);
                out.extend_from_slice(bytes.get(1..).unwrap_or_default());
                Ok(out.len())
            }
            Some(_) => Err(codec::CodecError(
                "a record handed sealed holds no sealed words".to_owned(),
            )),
        })
    }

    fn encode_with<T>(
        events: &[T],
        sealed: bool,
        encode_into: impl Fn(&T, &mut Vec<u8>) -> Result<usize, codec::CodecError>,
    ) -> Result<Self, AppendError> {
        if events.is_empty() {
            return Err(AppendError::EmptyBatch);
        }
        if events.len() > BATCH_EVENTS_MAX {
            return Err(AppendError::BatchTooManyEvents {
                count: events.len(),
                max: BATCH_EVENTS_MAX,
            });
        }
        let mut payload = Vec::with_capacity(events.len() * 64);
        let mut scratch = Vec::new();
        let mut stored = 0usize;
        for (index, event) in events.iter().enumerate() {
            scratch.clear();
            // The size the event will have in the log, sealed or not.
            let size = encode_into(event, &mut scratch).map_err(|e| AppendError::Encode {
                index,
                reason: e.to_string(),
            })?;
            if size > EVENT_BYTES_MAX {
                return Err(AppendError::EventTooLarge {
                    index,
                    size,
                    max: EVENT_BYTES_MAX,
                });
            }
            format::push_event(&mut payload, &scratch);
            stored += format::EVENT_LEN_PREFIX + size;
            if stored > BATCH_BYTES_MAX {
                return Err(AppendError::BatchTooLarge {
                    size: stored,
                    max: BATCH_BYTES_MAX,
                });
            }
        }
        Ok(Self {
            payload,
            n_events: u32::try_from(events.len()).unwrap_or(u32::MAX),
            sealed,
        })
    }

    /// Whether the events are unsealed records (for a sealed log).
    #[must_use]
    pub fn is_unsealed(&self) -> bool {
        self.sealed
    }

    /// Events in the batch.
    #[must_use]
    pub fn n_events(&self) -> u32 {
        self.n_events
    }

    /// Encoded bytes, length prefixes included.
    #[must_use]
    pub fn n_bytes(&self) -> usize {
        self.payload.len()
    }

    /// The frame payload: each event's length (u32) and codec bytes, in
    /// order. For another log backend that frames batches itself with
    /// [`format::write_frame`].
    #[must_use]
    pub fn into_payload(self) -> Vec<u8> {
        self.payload
    }
}

/// One event an import restores into a sealed log
/// ([`Log::append_restored_at`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Restored {
    /// An event, sealed by this log under its seq's (installed) key.
    Event(Box<Event>),
    /// A record exactly as another log's frame of version 2 held it.
    Record(Vec<u8>),
}

/// A read-only view of a log: read, replay, verify. Opening one changes
/// nothing on disk; a torn tail is left out of the view and reported.
#[derive(Debug, Clone)]
pub struct LogReader {
    shared: Arc<Shared>,
    recovery: RecoveryReport,
}

impl LogReader {
    /// Opens the log in `storage` without repairing anything.
    pub fn open(storage: Arc<dyn Storage>, key: HmacKey) -> Result<Self, OpenError> {
        let (state, recovery) = recovery::recover(&*storage, &key, false)?;
        Ok(Self {
            shared: Arc::new(Shared {
                storage,
                key,
                state: RwLock::new(state),
                subscribers: parking_lot::Mutex::default(),
                keys: None,
                recent: reader::RecentFrames::default(),
            }),
            recovery,
        })
    }

    /// Opens the log folder `dir` read-only.
    pub fn open_dir(dir: &Path, key: HmacKey) -> Result<Self, OpenError> {
        Self::open_dir_with_keys(dir, key, None)
    }

    /// Opens the log folder `dir` read-only, its sealed words opened with
    /// the key store `keys` (read, never written).
    pub fn open_dir_with_keys(
        dir: &Path,
        key: HmacKey,
        keys: Option<KeyStoreConfig>,
    ) -> Result<Self, OpenError> {
        let storage = FileStorage::open_read_only(dir)
            .map_err(|e| IoFailure::new("opening log folder", dir.display().to_string(), e))?;
        let mut reader = Self::open(Arc::new(storage), key)?;
        if let Some(keys) = keys {
            let store = KeyStore::open(keys.storage, keys.master, reader.last_seq())?;
            let shared = Arc::get_mut(&mut reader.shared)
                .ok_or_else(|| OpenError::Config("the reader is already shared".to_owned()))?;
            shared.keys = Some(Keys::File(Arc::new(parking_lot::Mutex::new(store))));
        }
        Ok(reader)
    }

    /// Opens the log folder `dir` read-only, its sealed words opened with
    /// keys kept elsewhere (a replica of a shared log: the team's key
    /// store).
    pub fn open_dir_with_remote_keys(
        dir: &Path,
        key: HmacKey,
        keys: Arc<dyn SubjectKeys>,
    ) -> Result<Self, OpenError> {
        let storage = FileStorage::open_read_only(dir)
            .map_err(|e| IoFailure::new("opening log folder", dir.display().to_string(), e))?;
        let mut reader = Self::open(Arc::new(storage), key)?;
        let shared = Arc::get_mut(&mut reader.shared)
            .ok_or_else(|| OpenError::Config("the reader is already shared".to_owned()))?;
        shared.keys = Some(Keys::Remote(keys));
        Ok(reader)
    }

    /// What opening found.
    #[must_use]
    pub fn recovery(&self) -> &RecoveryReport {
        &self.recovery
    }

    /// The HMAC key the log is checked with (views derive their own from it).
    #[must_use]
    pub fn key(&self) -> &HmacKey {
        &self.shared.key
    }

    /// The last seq in the log (0 when empty).
    #[must_use]
    pub fn last_seq(&self) -> u64 {
        self.shared.last_seq()
    }

    /// Whether the log was opened with a key store (`Log::is_sealed`).
    #[must_use]
    pub fn is_sealed(&self) -> bool {
        self.shared.keys.is_some()
    }

    /// The data key of subject `seq` (live, or destroyed by a purge), from
    /// the key store the log was opened with.
    pub fn subject_key(&self, seq: u64) -> Result<SubjectKey, KeyStoreError> {
        let keys = self.shared.keys.as_ref().ok_or(KeyStoreError::NotOpened)?;
        keys.source().key(seq)
    }

    /// Drops what the log's key source keeps in memory of the keys of
    /// `seqs`: a replica applying a purge another machine made.
    pub fn forget_keys(&self, seqs: &[u64]) {
        if let Some(keys) = &self.shared.keys {
            keys.source().forget(seqs);
        }
    }

    /// Destroys the data keys of `seqs` (overwritten in place, fsynced):
    /// the words sealed with them are gone once this returns. Only seqs the
    /// log already holds can be named.
    pub fn destroy_keys(&self, seqs: &[u64]) -> Result<(), KeyStoreError> {
        let keys = self.shared.keys.as_ref().ok_or(KeyStoreError::NotOpened)?;
        let last_seq = self.shared.last_seq();
        if let Some(&seq) = seqs.iter().find(|&&seq| seq > last_seq) {
            return Err(KeyStoreError::NoSlot {
                seq,
                first_seq: keys.file().map_or(1, |file| file.lock().first_seq()),
                last_seq,
            });
        }
        keys.source().destroy(seqs)
    }

    /// The chain hash after the last seq: the last frame's hash
    /// ([`format::GENESIS_HASH`] when empty). A replica compares it with
    /// its source's to prove it continues the same log.
    #[must_use]
    pub fn last_hash(&self) -> format::Hash {
        self.shared.state.read().last_hash
    }

    /// Events in `range` (inclusive), each frame checked.
    pub fn read(&self, range: RangeInclusive<u64>) -> Result<Vec<LoggedEvent>, ReadError> {
        self.shared.read(range)
    }

    /// Events in `range` (inclusive) with the bytes each is stored as:
    /// what a memory's content hash covers (`seal`).
    pub fn read_with_records(
        &self,
        range: RangeInclusive<u64>,
    ) -> Result<Vec<(LoggedEvent, Vec<u8>)>, ReadError> {
        self.shared.read_with_records(range)
    }

    /// Every event from `from` to the current end, in seq order.
    #[must_use]
    pub fn replay(&self, from: u64) -> Replay {
        Replay::new(Arc::clone(&self.shared), from, u64::MAX, false)
    }

    /// [`LogReader::replay`] with the bytes each event is stored as (for
    /// an export that carries sealed records as they are).
    pub fn replay_with_records(
        &self,
        from: u64,
    ) -> impl Iterator<Item = Result<(LoggedEvent, Vec<u8>), ReadError>> + use<> {
        let mut replay = Replay::new(Arc::clone(&self.shared), from, u64::MAX, false);
        replay.keep_records();
        std::iter::from_fn(move || {
            let next = replay.next()?;
            Some(next.map(|event| {
                let record = replay.take_record().unwrap_or_default();
                (event, record)
            }))
        })
    }

    /// Verifies the whole log: chain, HMACs, every event decodes.
    pub fn verify(&self) -> Result<VerifyReport, VerifyError> {
        let ends: BTreeMap<String, u64> = {
            let state = self.shared.state.read();
            state
                .segments
                .iter()
                .map(|s| (s.name.clone(), s.len))
                .collect()
        };
        let mut report = verify_storage(&*self.shared.storage, &self.shared.key, Some(&ends))?;
        // The view already left a torn tail out; say so.
        if report.torn_tail.is_none() {
            report.torn_tail.clone_from(&self.recovery.torn_tail);
        }
        Ok(report)
    }

    /// Total bytes of the acknowledged log, headers included.
    #[must_use]
    pub fn n_bytes(&self) -> u64 {
        self.shared
            .state
            .read()
            .segments
            .iter()
            .map(|s| s.len)
            .sum()
    }

    /// Segment names and their acknowledged lengths.
    #[must_use]
    pub fn segments(&self) -> Vec<(String, u64)> {
        self.shared
            .state
            .read()
            .segments
            .iter()
            .map(|s| (s.name.clone(), s.len))
            .collect()
    }
}

/// An open log: appends through the group-commit writer, plus every reader
/// operation. Dropping it syncs what was written and stops the writer.
#[derive(Debug)]
pub struct Log {
    reader: LogReader,
    tx: Option<Sender<Request>>,
    writer: Option<JoinHandle<()>>,
}

impl Log {
    /// Opens (or creates) the log in `storage`, repairing a torn tail.
    pub fn open(storage: Arc<dyn Storage>, config: LogConfig) -> Result<Self, OpenError> {
        config.validate()?;
        storage.lock_for_writing().map_err(|e| {
            if e.kind() == std::io::ErrorKind::WouldBlock {
                OpenError::Locked {
                    folder: storage.describe(),
                }
            } else {
                OpenError::Io(IoFailure::new("locking log folder", storage.describe(), e))
            }
        })?;
        let (mut state, recovery) = recovery::recover(&*storage, &config.key, true)?;
        // The key store is opened before anything is written (a wrong
        // master key or a damaged key store refuses the open and changes
        // nothing), for the log's durable end: slots past it were never
        // used by a durable frame. It is created only with an empty log; a
        // log with frames and no key store (or a damaged one, or one
        // another master key wrapped) is refused.
        let keys = match &config.keys {
            None => config.remote_keys.clone().map(Keys::Remote),
            Some(keys) => {
                let opened = match KeyStore::open(
                    Arc::clone(&keys.storage),
                    keys.master.clone(),
                    state.last_seq,
                ) {
                    // Nothing is sealed yet: a key store whose creation a
                    // crash tore is made again.
                    Err(KeyStoreError::Missing { .. } | KeyStoreError::Damaged { .. })
                        if state.last_seq == 0 =>
                    {
                        KeyStore::create_anew(Arc::clone(&keys.storage), keys.master.clone())
                    }
                    other => other,
                }?;
                Some(Keys::File(Arc::new(parking_lot::Mutex::new(opened))))
            }
        };
        let io = |e: String| {
            OpenError::Io(IoFailure::new(
                "starting segment",
                storage.describe(),
                std::io::Error::other(e),
            ))
        };
        let needs_segment = state
            .segments
            .last()
            .is_none_or(|s| s.len < SEGMENT_HEADER_LEN as u64);
        if needs_segment {
            let first_seq = state.last_seq + 1;
            let (name, file) =
                writer::create_segment(&*storage, &config.key, first_seq, &state.last_hash)
                    .map_err(io)?;
            state.segments.push(reader::Segment {
                name,
                first_seq,
                file,
                index: Vec::new(),
                len: SEGMENT_HEADER_LEN as u64,
                last_seq: first_seq - 1,
            });
        }
        let Some(open_segment) = state.segments.last().cloned() else {
            unreachable!("a segment was just ensured");
        };
        // Everything up to here is durable (recovery checked it, synced
        // what it repaired, and synced the last segment's frames a stopped
        // writer never synced): record it before the first append, so that
        // a crash from now on can only tear what comes after.
        tail::write_tail(
            &*storage,
            &config.key,
            &TailRecord {
                state: TailState::Open,
                segment_first_seq: open_segment.first_seq,
                segment_len: open_segment.len,
                last_seq: state.last_seq,
                last_hash: state.last_hash,
            },
        )
        .map_err(|e| IoFailure::new("recording the log's end in", tail::TAIL_FILE_NAME, e))?;
        let last_indexed = open_segment.index.last().map(|&(_, offset)| offset);
        // Reserved zeros past the last frame (from preallocation) are reused.
        let allocated = open_segment
            .file
            .len()
            .map_err(|e| IoFailure::new("reading length of segment", open_segment.name.clone(), e))?
            .max(open_segment.len);
        let shared = Arc::new(Shared {
            storage,
            key: config.key.clone(),
            state: RwLock::new(state),
            subscribers: parking_lot::Mutex::default(),
            keys,
            recent: reader::RecentFrames::default(),
        });
        let (tx, rx) = crossbeam_channel::bounded(QUEUE_REQUESTS_MAX);
        let (next_seq, prev_hash, last_ts) = {
            let state = shared.state.read();
            (state.last_seq + 1, state.last_hash, state.last_ts_ms)
        };
        let writer = Writer {
            shared: Arc::clone(&shared),
            rx,
            durability: config.durability,
            segment_bytes_max: config.segment_bytes_max,
            clock: Arc::clone(&config.clock),
            file: open_segment.file,
            segment_first_seq: open_segment.first_seq,
            segment_name: open_segment.name,
            offset: open_segment.len,
            allocated,
            last_indexed,
            next_seq,
            prev_hash,
            last_ts,
            dirty: false,
            last_sync: config.clock.monotonic(),
            lingering: Vec::new(),
            lingering_bytes: 0,
            lingering_since: config.clock.monotonic(),
        };
        let handle = std::thread::Builder::new()
            .name("engram-log-writer".to_owned())
            .spawn(move || writer.run())
            .map_err(|e| OpenError::Thread(e.to_string()))?;
        Ok(Self {
            reader: LogReader { shared, recovery },
            tx: Some(tx),
            writer: Some(handle),
        })
    }

    /// Opens (or creates) the log in folder `dir`.
    pub fn open_dir(dir: &Path, config: LogConfig) -> Result<Self, OpenError> {
        let storage = FileStorage::open(dir)
            .map_err(|e| IoFailure::new("opening log folder", dir.display().to_string(), e))?;
        Self::open(Arc::new(storage), config)
    }

    /// Appends `events` atomically and returns their seq range once durable
    /// (per the configured durability).
    pub fn append(&self, events: &[Event]) -> Result<Appended, AppendError> {
        self.append_encoded(self.encode(events)?)
    }

    /// Whether the log was opened with a key store: its words are sealed
    /// per subject, and a purge can erase them.
    #[must_use]
    pub fn is_sealed(&self) -> bool {
        self.reader.is_sealed()
    }

    /// Encodes `events` for this log on the caller's thread (in the clear,
    /// or as unsealed records for a sealed log), limits checked.
    pub fn encode(&self, events: &[Event]) -> Result<EncodedBatch, AppendError> {
        if matches!(self.reader.shared.keys, Some(Keys::Remote(_))) {
            return Err(AppendError::Replica);
        }
        if self.is_sealed() {
            EncodedBatch::encode_unsealed(events, self.key())
        } else {
            EncodedBatch::encode(events)
        }
    }

    /// The bytes `event` will have in this log at `seq`, exactly as a frame
    /// will hold them: sealed under the subject's data key (sealing is
    /// deterministic), or the event's encoding in a log without keys. A
    /// memory's content hash is computed over these bytes before the batch
    /// that holds them is appended. Reserves data keys up to `seq` if
    /// needed.
    pub fn record_bytes(&self, seq: u64, event: &Event) -> Result<Vec<u8>, AppendError> {
        let encode_failed = |reason: String| AppendError::Encode { index: 0, reason };
        let keys = match &self.reader.shared.keys {
            None => return codec::encode(event).map_err(|e| encode_failed(e.to_string())),
            Some(Keys::File(keys)) => keys,
            Some(Keys::Remote(_)) => return Err(AppendError::Replica),
        };
        let key = {
            let mut keys = keys.lock();
            if keys.reserved() < seq {
                keys.reserve(seq)
                    .map_err(|e| encode_failed(format!("reserving the key of seq {seq}: {e}")))?;
            }
            keys.key(seq)
                .map_err(|e| encode_failed(format!("reading the key of seq {seq}: {e}")))?
        };
        let SubjectKey::Live(key) = key else {
            return Err(encode_failed(format!(
                "the data key of seq {seq} was destroyed"
            )));
        };
        record::sealed_record(event, seq, self.key(), &key)
            .map_err(|e| encode_failed(e.to_string()))
    }

    /// Appends one event and returns its seq.
    pub fn append_one(&self, event: &Event) -> Result<u64, AppendError> {
        Ok(self.append(std::slice::from_ref(event))?.first_seq)
    }

    /// Appends a batch encoded with [`EncodedBatch::encode`].
    pub fn append_encoded(&self, batch: EncodedBatch) -> Result<Appended, AppendError> {
        self.send_batch(batch, None)
    }

    /// Appends `events` atomically as seqs `first_seq..`, stamped with the
    /// commit time `ts_ms` (unix ms) instead of the clock's: for rebuilding
    /// a log with the seqs and times it had (`engram import`), where views
    /// that read commit times (review due dates, TTL, decay) must come out
    /// the same.
    ///
    /// The batch gets frames of its own (a frame has one commit time), so
    /// it is never merged with a batch stamped otherwise. Refused, with
    /// nothing written and the log still usable, when `first_seq` is not
    /// the next seq ([`AppendError::SeqMismatch`]) or `ts_ms` is before the
    /// last commit time ([`AppendError::TimeBackwards`]): commit times
    /// never go backwards, whoever stamps them.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use engram_log::{AppendError, Event, HmacKey, Log, LogConfig, MemStorage, Role, SessionEvent};
    ///
    /// let log = Log::open(Arc::new(MemStorage::new()), LogConfig::new(HmacKey::from_bytes([7; 32])))?;
    /// let turn = Event::Session(SessionEvent {
    ///     session: "s1".into(),
    ///     turn: 0,
    ///     role: Role::User,
    ///     content: "I prefer tea.".into(),
    /// });
    /// log.append_at(1, 1_700_000_000_000, &[turn.clone()])?;
    /// assert_eq!(log.read(1..=1)?[0].ts_ms, 1_700_000_000_000);
    /// // Seq 1 is taken: a second batch at seq 1 is refused.
    /// let again = log.append_at(1, 1_700_000_000_000, &[turn]);
    /// assert!(matches!(again, Err(AppendError::SeqMismatch { expected: 2, .. })));
    /// # Ok::<(), engram_log::Error>(())
    /// ```
    pub fn append_at(
        &self,
        first_seq: u64,
        ts_ms: u64,
        events: &[Event],
    ) -> Result<Appended, AppendError> {
        self.send_batch(
            self.encode(events)?,
            Some(writer::Stamp {
                first_seq,
                ts_ms: Some(ts_ms),
            }),
        )
    }

    /// Sets the data keys of seqs this log does not hold yet (`None`:
    /// destroyed) before an import appends the records sealed under them
    /// ([`Log::append_restored_at`]).
    pub fn install_keys(&self, entries: &[(u64, Option<DataKey>)]) -> Result<(), KeyStoreError> {
        let keys = self
            .reader
            .shared
            .keys
            .as_ref()
            .and_then(Keys::file)
            .ok_or(KeyStoreError::NotOpened)?;
        let last_seq = self.last_seq();
        if let Some(&(seq, _)) = entries.iter().find(|&&(seq, _)| seq <= last_seq) {
            return Err(KeyStoreError::NoSlot {
                seq,
                first_seq: keys.lock().first_seq(),
                last_seq,
            });
        }
        keys.lock().install(entries)
    }

    /// [`Log::append_at`] for a sealed log restoring another's bytes: each
    /// item is an event (sealed here under its seq's key, installed
    /// before with [`Log::install_keys`]) or a record as a frame of
    /// version 2 holds it, written as it is.
    pub fn append_restored_at(
        &self,
        first_seq: u64,
        ts_ms: u64,
        items: &[Restored],
    ) -> Result<Appended, AppendError> {
        if !self.is_sealed() {
            return Err(AppendError::WrongBatchForm {
                expected: "without a key store",
            });
        }
        let key = self.key();
        let batch = EncodedBatch::encode_with(items, true, |item, out| match item {
            Restored::Event(event) => record::split(event, key, out),
            Restored::Record(bytes) if record::is_sealed(bytes) => {
                out.push(record::PRESEALED);
                out.extend_from_slice(bytes.get(1..).unwrap_or_default());
                Ok(out.len())
            }
            Restored::Record(_) => Err(codec::CodecError(
                "a restored record holds no sealed words".to_owned(),
            )),
        })?;
        self.send_batch(
            batch,
            Some(writer::Stamp {
                first_seq,
                ts_ms: Some(ts_ms),
            }),
        )
    }

    /// Appends `events` atomically as seqs `first_seq..`, stamped with the
    /// clock's commit time like [`Log::append`], or refuses them with
    /// [`AppendError::SeqMismatch`] (nothing written, the log still usable)
    /// when another append took `first_seq` first.
    ///
    /// For a batch whose events name each other by seq (a memory's seal
    /// names the seq of the note it seals; its links name the memory): the
    /// caller builds it for the seq it expects, and builds it again for the
    /// next one when refused. The batch shares a commit group and a frame
    /// with others; it is never split across frames.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use engram_log::{AppendError, Event, HmacKey, Log, LogConfig, MemStorage, Role, SessionEvent};
    ///
    /// let log = Log::open(Arc::new(MemStorage::new()), LogConfig::new(HmacKey::from_bytes([7; 32])))?;
    /// let turn = Event::Session(SessionEvent {
    ///     session: "s1".into(),
    ///     turn: 0,
    ///     role: Role::User,
    ///     content: "I prefer tea.".into(),
    /// });
    /// assert_eq!(log.append_expecting(log.last_seq() + 1, &[turn.clone()])?.first_seq, 1);
    /// let late = log.append_expecting(1, &[turn]);
    /// assert!(matches!(late, Err(AppendError::SeqMismatch { expected: 2, .. })));
    /// # Ok::<(), engram_log::Error>(())
    /// ```
    pub fn append_expecting(
        &self,
        first_seq: u64,
        events: &[Event],
    ) -> Result<Appended, AppendError> {
        self.append_expecting_sealed(first_seq, events, &BTreeMap::new())
    }

    /// [`Log::append_expecting`] for a batch some of whose events were
    /// sealed already by [`Log::record_bytes`] at the seqs they land on
    /// (see [`EncodedBatch::encode_partly_sealed`]); a log without a key
    /// store encodes every event as it does for
    /// [`Log::append_expecting`]. Refused as a whole, nothing written, when
    /// another append took `first_seq` first, so a record is never written
    /// at a seq it was not sealed for.
    pub fn append_expecting_sealed(
        &self,
        first_seq: u64,
        events: &[Event],
        sealed: &BTreeMap<usize, Vec<u8>>,
    ) -> Result<Appended, AppendError> {
        let batch = if self.is_sealed() && !sealed.is_empty() {
            if matches!(self.reader.shared.keys, Some(Keys::Remote(_))) {
                return Err(AppendError::Replica);
            }
            EncodedBatch::encode_partly_sealed(events, sealed, self.key())?
        } else {
            self.encode(events)?
        };
        self.send_batch(
            batch,
            Some(writer::Stamp {
                first_seq,
                ts_ms: None,
            }),
        )
    }

    /// Queues `events` for the next commit group and returns without
    /// waiting for it: for events a read records (a recall's evidence, an
    /// expand), which become durable with the next group commit. The writer
    /// holds them back for up to 20 ms to commit them with what comes next,
    /// so a run of reads shares one commit (and one fsync, and one wake-up
    /// of every view) instead of paying each per read. A crash before that
    /// commit loses them; a later [`Log::append`],
    /// [`Log::sync`] or [`Log::close`] returns only once they are written,
    /// since the writer takes requests in order. Encoding and limit errors
    /// are returned; a failure of the write itself poisons the log, and the
    /// next waiting append reports it.
    pub fn append_queued(&self, events: &[Event]) -> Result<(), AppendError> {
        let batch = self.encode(events)?;
        // Nobody waits on the acknowledgement: the writer's send to a
        // dropped receiver is ignored.
        let (ack, _) = crossbeam_channel::bounded(1);
        self.send(Request::Append {
            payload: batch.payload,
            n_events: batch.n_events,
            stamp: None,
            ack,
            linger: true,
        })
    }

    /// Appends a whole frame made elsewhere, byte for byte: for a replica
    /// of a log kept by another backend (a shared log on a database), whose
    /// frames must land here exactly as they were committed there so both
    /// verify alike and name the same chain hashes.
    ///
    /// The frame is checked before it is queued (one whole frame, blake3
    /// hash, HMAC under this log's key) and admitted only at exactly the
    /// next seq, linking to the last frame's hash, not stamped before the
    /// last commit time; otherwise it is refused with nothing written and
    /// the log still usable ([`AppendError::BadFrame`],
    /// [`AppendError::SeqMismatch`], [`AppendError::ChainMismatch`],
    /// [`AppendError::TimeBackwards`]). It is never merged with another
    /// frame; a segment boundary falls before it when it would overflow
    /// the open segment.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use engram_log::{Event, HmacKey, Log, LogConfig, MemStorage, Role, SessionEvent};
    /// use engram_log::format::{GENESIS_HASH, push_event, write_frame};
    ///
    /// let key = HmacKey::from_bytes([7; 32]);
    /// let turn = Event::Session(SessionEvent {
    ///     session: "s1".into(),
    ///     turn: 0,
    ///     role: Role::User,
    ///     content: "I prefer tea.".into(),
    /// });
    /// let mut payload = Vec::new();
    /// push_event(&mut payload, &engram_log::codec::encode(&turn)?);
    /// let mut frame = Vec::new();
    /// write_frame(&mut frame, &key, 1, 1, 1_700_000_000_000, &GENESIS_HASH, &payload);
    ///
    /// let replica = Log::open(Arc::new(MemStorage::new()), LogConfig::new(key))?;
    /// replica.append_frame(&frame)?;
    /// assert_eq!(replica.read(1..=1)?[0].event, turn);
    /// assert!(replica.verify()?.is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn append_frame(&self, frame: &[u8]) -> Result<Appended, AppendError> {
        let parsed = format::parse_frame(frame).map_err(|problem| AppendError::BadFrame {
            reason: problem.to_string(),
        })?;
        if parsed.len() != frame.len() {
            return Err(AppendError::BadFrame {
                reason: format!(
                    "{} bytes follow the frame: give exactly one frame",
                    frame.len() - parsed.len()
                ),
            });
        }
        if !parsed.mac_matches(self.key()) {
            return Err(AppendError::BadFrame {
                reason: format!(
                    "HMAC mismatch at seq {}: the frame was altered or sealed with another key",
                    parsed.header.first_seq
                ),
            });
        }
        let header = parsed.header;
        let hash = parsed.hash;
        let (ack, acked) = crossbeam_channel::bounded(1);
        self.send(Request::Frame {
            bytes: frame.to_vec(),
            first_seq: header.first_seq,
            n_events: header.n_events,
            ts_ms: header.ts_ms,
            prev_hash: header.prev_hash,
            hash,
            ack,
        })?;
        acked.recv().map_err(|_| self.closed())?
    }

    fn send_batch(
        &self,
        batch: EncodedBatch,
        stamp: Option<writer::Stamp>,
    ) -> Result<Appended, AppendError> {
        if matches!(self.reader.shared.keys, Some(Keys::Remote(_))) {
            return Err(AppendError::Replica);
        }
        if batch.sealed != self.is_sealed() {
            return Err(AppendError::WrongBatchForm {
                expected: if self.is_sealed() {
                    "with a key store"
                } else {
                    "without a key store"
                },
            });
        }
        let (ack, acked) = crossbeam_channel::bounded(1);
        self.send(Request::Append {
            payload: batch.payload,
            n_events: batch.n_events,
            stamp,
            ack,
            linger: false,
        })?;
        acked.recv().map_err(|_| self.closed())?
    }

    /// A wake-up after every commit: the receiver learns that `last_seq`
    /// moved (several commits may share one wake-up; read `last_seq` after
    /// waking). For tailing readers such as the projection feeder.
    #[must_use]
    pub fn subscribe(&self) -> crossbeam_channel::Receiver<()> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.reader.shared.subscribers.lock().push(tx);
        rx
    }

    /// Makes everything written durable now, whatever the durability mode.
    pub fn sync(&self) -> Result<(), AppendError> {
        let (ack, acked) = crossbeam_channel::bounded(1);
        self.send(Request::Sync { ack })?;
        acked.recv().map_err(|_| self.closed())?
    }

    fn send(&self, request: Request) -> Result<(), AppendError> {
        let tx = self.tx.as_ref().ok_or(AppendError::Closed)?;
        tx.send(request).map_err(|_| self.closed())
    }

    fn closed(&self) -> AppendError {
        match self.reader.shared.state.read().poisoned.clone() {
            Some(cause) => AppendError::Poisoned { cause },
            None => AppendError::Closed,
        }
    }

    /// Why the log refuses writes, if it does.
    #[must_use]
    pub fn poisoned(&self) -> Option<String> {
        self.reader.shared.state.read().poisoned.clone()
    }

    /// Stops the writer after it made everything written durable.
    pub fn close(mut self) -> Result<(), AppendError> {
        self.shutdown();
        match self.poisoned() {
            Some(cause) => Err(AppendError::Poisoned { cause }),
            None => Ok(()),
        }
    }

    fn shutdown(&mut self) {
        self.tx = None;
        if let Some(handle) = self.writer.take() {
            // A panicking writer already failed its callers; nothing to add.
            let _ = handle.join();
        }
    }

    /// The read-only operations.
    #[must_use]
    pub fn reader(&self) -> &LogReader {
        &self.reader
    }

    /// What opening found and repaired.
    #[must_use]
    pub fn recovery(&self) -> &RecoveryReport {
        &self.reader.recovery
    }

    /// The last acknowledged seq (0 when empty).
    #[must_use]
    pub fn last_seq(&self) -> u64 {
        self.reader.last_seq()
    }

    /// The data key of subject `seq` (see [`LogReader::subject_key`]).
    pub fn subject_key(&self, seq: u64) -> Result<SubjectKey, KeyStoreError> {
        self.reader.subject_key(seq)
    }

    /// Destroys the data keys of `seqs` (see [`LogReader::destroy_keys`]).
    pub fn destroy_keys(&self, seqs: &[u64]) -> Result<(), KeyStoreError> {
        self.reader.destroy_keys(seqs)
    }

    /// The chain hash after the last acknowledged seq (see
    /// [`LogReader::last_hash`]).
    #[must_use]
    pub fn last_hash(&self) -> format::Hash {
        self.reader.last_hash()
    }

    /// Events in `range` (inclusive).
    pub fn read(&self, range: RangeInclusive<u64>) -> Result<Vec<LoggedEvent>, ReadError> {
        self.reader.read(range)
    }

    /// Every event from `from` to the current end.
    #[must_use]
    pub fn replay(&self, from: u64) -> Replay {
        self.reader.replay(from)
    }

    /// Verifies every acknowledged frame.
    pub fn verify(&self) -> Result<VerifyReport, VerifyError> {
        self.reader.verify()
    }

    /// The HMAC key (for layers that seal their own records).
    #[must_use]
    pub fn key(&self) -> &HmacKey {
        &self.reader.shared.key
    }
}

impl Drop for Log {
    fn drop(&mut self) {
        self.shutdown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(n: u32) -> Event {
        Event::Session(SessionEvent {
            session: "t".into(),
            turn: n,
            role: Role::User,
            content: format!("turn {n}"),
        })
    }

    #[test]
    fn commit_time_never_goes_backwards_across_a_reopen() {
        let storage: Arc<dyn Storage> = Arc::new(MemStorage::new());
        let key = HmacKey::from_bytes([5; 32]);
        let late = Arc::new(ManualClock::new(10_000));
        let log = Log::open(
            Arc::clone(&storage),
            LogConfig::new(key.clone()).clock(late),
        )
        .unwrap();
        log.append(&[turn(0)]).unwrap();
        log.close().unwrap();

        // The wall clock stepped back (NTP, a VM restore): stamps stay ordered.
        let early = Arc::new(ManualClock::new(4_000));
        let log = Log::open(storage, LogConfig::new(key).clock(early)).unwrap();
        log.append(&[turn(1)]).unwrap();
        let events = log.read(1..=2).unwrap();
        assert_eq!(events[0].ts_ms, 10_000);
        assert_eq!(events[1].ts_ms, 10_000);
    }

    #[test]
    fn batches_appended_at_a_seq_keep_their_commit_times_and_refusals_leave_the_log_usable() {
        // Import rebuilds a log with the seqs and commit times it had: each
        // stamped batch keeps its time (its own frame), a wrong seq or a
        // time before the last one is refused without poisoning the log,
        // and clock-stamped appends after it never go back in time.
        let storage: Arc<dyn Storage> = Arc::new(MemStorage::new());
        let key = HmacKey::from_bytes([9; 32]);
        let clock = Arc::new(ManualClock::new(1_000));
        let log = Log::open(
            Arc::clone(&storage),
            LogConfig::new(key.clone()).clock(clock),
        )
        .unwrap();
        assert_eq!(
            log.append_at(1, 5_000, &[turn(0), turn(1)]).unwrap(),
            Appended {
                first_seq: 1,
                last_seq: 2
            }
        );
        log.append_at(3, 5_000, &[turn(2)]).unwrap();
        log.append_at(4, 7_000, &[turn(3)]).unwrap();
        let wrong_seq = log.append_at(9, 8_000, &[turn(9)]);
        assert!(
            matches!(
                wrong_seq,
                Err(AppendError::SeqMismatch {
                    first_seq: 9,
                    expected: 5
                })
            ),
            "{wrong_seq:?}"
        );
        let backwards = log.append_at(5, 6_999, &[turn(4)]);
        assert!(
            matches!(
                backwards,
                Err(AppendError::TimeBackwards {
                    ts_ms: 6_999,
                    last_ts_ms: 7_000
                })
            ),
            "{backwards:?}"
        );
        assert!(log.poisoned().is_none());
        // The clock (1 000) is behind the stamped times: the next
        // clock-stamped append takes the last commit time.
        log.append(&[turn(4)]).unwrap();
        let times: Vec<(u64, u64)> = log
            .read(1..=5)
            .unwrap()
            .iter()
            .map(|e| (e.seq, e.ts_ms))
            .collect();
        assert_eq!(
            times,
            [(1, 5_000), (2, 5_000), (3, 5_000), (4, 7_000), (5, 7_000)]
        );
        assert!(log.verify().unwrap().is_ok());
        log.close().unwrap();
        let reopened = LogReader::open(storage, key).unwrap();
        assert_eq!(reopened.read(4..=4).unwrap()[0].ts_ms, 7_000);
    }

    #[test]
    fn concurrent_batches_stamped_with_different_times_never_share_a_frame() {
        // Many threads append stamped batches while others append through
        // the clock: whatever the writer merges into one commit group, every
        // event reads back with the time its own batch asked for.
        let storage: Arc<dyn Storage> = Arc::new(MemStorage::new());
        let log = Arc::new(
            Log::open(
                storage,
                LogConfig::new(HmacKey::from_bytes([10; 32]))
                    .clock(Arc::new(ManualClock::new(0)))
                    .durability(Durability::None),
            )
            .unwrap(),
        );
        let stamper = {
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                let mut stamped = Vec::new();
                let mut ts = 10;
                while stamped.len() < 200 {
                    let next = log.last_seq() + 1;
                    ts += 1 + next % 3;
                    if log.append_at(next, ts, &[turn(0), turn(1)]).is_ok() {
                        stamped.push((next, ts));
                    }
                }
                stamped
            })
        };
        let plain: Vec<_> = (0..2)
            .map(|_| {
                let log = Arc::clone(&log);
                std::thread::spawn(move || {
                    for n in 0..200 {
                        log.append(&[turn(n)]).unwrap();
                    }
                })
            })
            .collect();
        for thread in plain {
            thread.join().unwrap();
        }
        let stamped = stamper.join().unwrap();
        let events = log.read(1..=log.last_seq()).unwrap();
        for (first_seq, ts) in stamped {
            let at = usize::try_from(first_seq - 1).unwrap();
            assert_eq!(events[at].ts_ms, ts, "seq {first_seq}");
            assert_eq!(events[at + 1].ts_ms, ts, "seq {}", first_seq + 1);
        }
        assert!(events.windows(2).all(|w| w[0].ts_ms <= w[1].ts_ms));
        assert!(log.verify().unwrap().is_ok());
    }

    #[test]
    fn a_read_touches_only_the_indexed_stretch() {
        // Many small frames: a read of one seq deep in the log must still
        // find it through the sparse index and return exactly that event.
        let storage: Arc<dyn Storage> = Arc::new(MemStorage::new());
        let log = Log::open(
            storage,
            LogConfig::new(HmacKey::from_bytes([6; 32])).durability(Durability::None),
        )
        .unwrap();
        for n in 0..2000 {
            log.append(&[turn(n)]).unwrap();
        }
        for seq in [1, 2, 999, 1000, 1001, 1999, 2000] {
            let events = log.read(seq..=seq).unwrap();
            assert_eq!(events.len(), 1);
            assert_eq!(events[0].seq, seq);
            assert_eq!(events[0].event, turn(u32::try_from(seq - 1).unwrap()));
        }
        let segments = log.reader().shared.state.read().segments.clone();
        let index_len: usize = segments.iter().map(|s| s.index.len()).sum();
        assert!(index_len > 10, "index too sparse to matter: {index_len}");
        assert!(
            index_len < 2000 / 10,
            "index not sparse: {index_len} entries for 2000 frames"
        );
    }

    /// A batch handed partly sealed (`append_expecting_sealed`, the
    /// records from `record_bytes`) holds exactly those records: the
    /// content hash computed before the append is the one over what the
    /// log holds, and every event reads back as it was. Landing elsewhere
    /// is refused, nothing written.
    #[test]
    fn a_batch_handed_partly_sealed_holds_the_records_it_was_hashed_over() {
        let (log, _) = log_of_frames(&[2], Some(MasterKey::from_bytes([8; 32])));
        let events = [turn(10), turn(11), turn(12)];
        let first_seq = log.last_seq() + 1;
        let sealed: BTreeMap<usize, Vec<u8>> = [0usize, 2]
            .into_iter()
            .map(|at| {
                let record = log
                    .record_bytes(first_seq + at as u64, &events[at])
                    .unwrap();
                (at, record)
            })
            .collect();
        let late = log.append_expecting_sealed(first_seq + 1, &events, &sealed);
        assert!(
            matches!(late, Err(AppendError::SeqMismatch { .. })),
            "{late:?}"
        );
        assert_eq!(log.last_seq(), first_seq - 1);

        log.append_expecting_sealed(first_seq, &events, &sealed)
            .unwrap();
        let read: Vec<Event> = log
            .read(first_seq..=first_seq + 2)
            .unwrap()
            .into_iter()
            .map(|e| e.event)
            .collect();
        assert_eq!(read, events);
        for (&at, record) in &sealed {
            let seq = first_seq + at as u64;
            let reference = MemoryRef {
                session: "t".into(),
                first_seq: seq,
                last_seq: seq,
            };
            assert_eq!(
                seal::stored_content_sha256(log.reader(), &reference).unwrap(),
                seal::content_sha256_of_records([record.as_slice()]),
                "seq {seq}"
            );
        }
    }

    /// A record handed with an event it is not the record of is a bug of
    /// the caller, caught in debug builds.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "a sealed record handed with another event")]
    fn a_record_handed_with_another_event_is_caught() {
        let (log, _) = log_of_frames(&[1], Some(MasterKey::from_bytes([8; 32])));
        let first_seq = log.last_seq() + 1;
        let record = log.record_bytes(first_seq, &turn(20)).unwrap();
        let sealed = BTreeMap::from([(0usize, record)]);
        let _ = log.append_expecting_sealed(first_seq, &[turn(21)], &sealed);
    }

    /// A log of `batches` frames of turns (each batch one frame), sealed
    /// when `master` is given.
    fn log_of_frames(batches: &[u32], master: Option<MasterKey>) -> (Log, Arc<MemStorage>) {
        let storage = Arc::new(MemStorage::new());
        let mut config = LogConfig::new(HmacKey::from_bytes([6; 32])).durability(Durability::None);
        if let Some(master) = master {
            config = config.keys(Arc::new(MemStorage::new()), master);
        }
        let log = Log::open(Arc::clone(&storage) as Arc<dyn Storage>, config).unwrap();
        let mut n = 0;
        for &size in batches {
            let batch: Vec<Event> = (n..n + size).map(turn).collect();
            log.append(&batch).unwrap();
            n += size;
        }
        (log, storage)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        /// Range reads in any order, answered from the frames read lately
        /// or from the segments, give exactly what one replay gives.
        #[test]
        fn reads_answered_from_recent_frames_match_a_replay(
            batches in proptest::collection::vec(1u32..40, 1..30),
            reads in proptest::collection::vec((0.0f64..1.0, 0u64..50), 1..60),
            sealed in proptest::bool::ANY,
        ) {
            let master = sealed.then(|| MasterKey::from_bytes([8; 32]));
            let (log, _) = log_of_frames(&batches, master);
            let all: Vec<LoggedEvent> = log.replay(1).map(Result::unwrap).collect();
            let last = all.len() as u64;
            for (at, len) in reads {
                let first = 1 + (at * last as f64) as u64 % last;
                let upto = (first + len).min(last);
                let got = log.read(first..=upto).unwrap();
                let want = &all[(first - 1) as usize..upto as usize];
                proptest::prop_assert_eq!(&got[..], want);
            }
        }
    }

    #[test]
    fn a_frame_read_lately_is_answered_again_but_the_proof_read_checks_the_disk() {
        let (log, storage) = log_of_frames(&[10, 10, 10], None);
        let before = log.read(12..=14).unwrap();
        assert_eq!(log.reader().shared.recent.0.lock().len(), 1);
        // Flip a bit in the payload of the second frame on disk.
        let name = storage.list().unwrap().remove(0);
        let file = storage.open(&name).unwrap();
        let frames = frames_of(&storage);
        let at = SEGMENT_HEADER_LEN + frames[0].len() + format::FRAME_HEADER_LEN + 3;
        let mut byte = [0u8; 1];
        file.read_exact_at(&mut byte, at as u64).unwrap();
        file.write_all_at(&[byte[0] ^ 1], at as u64).unwrap();
        // A view's read is answered from the frame checked before it...
        assert_eq!(log.read(12..=14).unwrap(), before);
        // ...while the read an expand's proof rests on reads the disk again,
        // and so does a read the kept frames do not cover.
        assert!(matches!(
            log.reader().read_with_records(12..=14),
            Err(ReadError::Corrupted(_))
        ));
        assert!(matches!(log.read(10..=12), Err(ReadError::Corrupted(_))));
        assert!(!log.verify().unwrap().is_ok());
    }

    #[test]
    fn a_key_destroyed_after_its_frame_was_kept_reads_as_erased() {
        let (log, _) = log_of_frames(&[5, 5], Some(MasterKey::from_bytes([8; 32])));
        let before = log.read(7..=8).unwrap();
        assert!(before.iter().all(|e| !e.erased));
        log.destroy_keys(&[8]).unwrap();
        let after = log.read(7..=8).unwrap();
        assert_eq!(after[0], before[0]);
        assert!(after[1].erased, "{:?}", after[1]);
        assert_ne!(after[1].event, before[1].event);
    }

    /// The frames of a log, as the bytes of each, read from its segments.
    fn frames_of(storage: &MemStorage) -> Vec<Vec<u8>> {
        let mut frames = Vec::new();
        for name in storage.list().unwrap() {
            let file = storage.open(&name).unwrap();
            let mut bytes = vec![0u8; usize::try_from(file.len().unwrap()).unwrap()];
            file.read_exact_at(&mut bytes, 0).unwrap();
            let mut at = SEGMENT_HEADER_LEN;
            while let Ok(frame) = format::parse_frame(&bytes[at..]) {
                frames.push(bytes[at..at + frame.len()].to_vec());
                at += frame.len();
            }
        }
        frames
    }

    #[test]
    fn reads_records_linger_to_share_the_next_commit_and_are_never_lost_by_a_close() {
        let storage = Arc::new(MemStorage::new());
        let key = HmacKey::from_bytes([3; 32]);
        let clock = Arc::new(ManualClock::new(1_000));
        let config = || LogConfig::new(key.clone()).clock(Arc::clone(&clock) as Arc<dyn Clock>);
        let log = Log::open(Arc::clone(&storage) as Arc<dyn Storage>, config()).unwrap();
        // Two reads' records, then a write: the write comes after them, and
        // all three share one commit (one frame: their clock did not move).
        log.append_queued(&[turn(0)]).unwrap();
        log.append_queued(&[turn(1)]).unwrap();
        let written = log.append(&[turn(2)]).unwrap();
        assert_eq!((written.first_seq, written.last_seq), (3, 3));
        let turns: Vec<u32> = log
            .read(1..=3)
            .unwrap()
            .iter()
            .map(|e| match &e.event {
                Event::Session(s) => s.turn,
                other => panic!("not a turn: {other:?}"),
            })
            .collect();
        assert_eq!(turns, [0, 1, 2]);
        assert_eq!(
            frames_of(&storage).len(),
            1,
            "the three did not share a commit"
        );
        // Alone, a record is committed once it has lingered long enough.
        // (The clock moves on until it is: the writer may take the record
        // after any one move.)
        log.append_queued(&[turn(3)]).unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while log.last_seq() < 4 {
            assert!(
                std::time::Instant::now() < deadline,
                "a lingering record was never committed"
            );
            clock.advance(writer::LINGER);
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        // A close commits what still lingers.
        log.append_queued(&[turn(4)]).unwrap();
        log.close().unwrap();
        let log = Log::open(storage as Arc<dyn Storage>, config()).unwrap();
        assert_eq!(log.last_seq(), 5);
    }

    #[test]
    fn frames_copied_byte_for_byte_make_a_replica_that_verifies_alike() {
        // A replica of a log kept elsewhere takes its frames as they are:
        // same frame boundaries, same commit times, same chain hashes, so
        // the replica verifies and names the same last hash; it seals its
        // own segments at its own size, and a local append continues the
        // chain afterwards.
        let key = HmacKey::from_bytes([11; 32]);
        let source_storage = Arc::new(MemStorage::new());
        let source = Log::open(
            Arc::clone(&source_storage) as Arc<dyn Storage>,
            LogConfig::new(key.clone()).durability(Durability::None),
        )
        .unwrap();
        for n in 0..40 {
            let batch: Vec<Event> = (0..=n % 5).map(turn).collect();
            source.append(&batch).unwrap();
        }
        source.sync().unwrap();
        let frames = frames_of(&source_storage);
        assert_eq!(frames.len(), 40);

        let replica_storage = Arc::new(MemStorage::new());
        let replica = Log::open(
            Arc::clone(&replica_storage) as Arc<dyn Storage>,
            LogConfig::new(key.clone()).segment_bytes_max(2048),
        )
        .unwrap();
        for frame in &frames {
            replica.append_frame(frame).unwrap();
        }
        assert_eq!(replica.last_seq(), source.last_seq());
        assert_eq!(replica.last_hash(), source.last_hash());
        assert_eq!(
            replica.read(1..=replica.last_seq()).unwrap(),
            source.read(1..=source.last_seq()).unwrap()
        );
        let report = replica.verify().unwrap();
        assert!(report.is_ok(), "{report:?}");
        assert!(report.n_segments > 1, "{report:?}");
        replica.sync().unwrap();
        assert_eq!(frames_of(&replica_storage), frames);
        let next = replica.append(&[turn(99)]).unwrap();
        assert_eq!(next.first_seq, source.last_seq() + 1);
        assert!(replica.verify().unwrap().is_ok());
    }

    #[test]
    fn a_frame_that_does_not_continue_the_log_is_refused_and_the_log_stays_usable() {
        let key = HmacKey::from_bytes([12; 32]);
        let source_storage = Arc::new(MemStorage::new());
        let source = Log::open(
            Arc::clone(&source_storage) as Arc<dyn Storage>,
            LogConfig::new(key.clone()).clock(Arc::new(ManualClock::new(5_000))),
        )
        .unwrap();
        for n in 0..3 {
            source.append(&[turn(n)]).unwrap();
        }
        let frames = frames_of(&source_storage);
        let replica = Log::open(
            Arc::new(MemStorage::new()),
            LogConfig::new(key.clone()).clock(Arc::new(ManualClock::new(0))),
        )
        .unwrap();

        // Not the next seq: seq 2 before seq 1.
        let skipped = replica.append_frame(&frames[1]);
        assert!(
            matches!(
                skipped,
                Err(AppendError::SeqMismatch {
                    first_seq: 2,
                    expected: 1
                })
            ),
            "{skipped:?}"
        );
        // Sealed with another key.
        let other = Log::open(
            Arc::new(MemStorage::new()),
            LogConfig::new(HmacKey::from_bytes([13; 32])),
        )
        .unwrap();
        let foreign = other.append_frame(&frames[0]);
        assert!(
            matches!(foreign, Err(AppendError::BadFrame { .. })),
            "{foreign:?}"
        );
        // A flipped byte, a cut frame, two frames at once.
        let mut flipped = frames[0].clone();
        flipped[70] ^= 1;
        let cut = &frames[0][..frames[0].len() - 1];
        let two = [frames[0].clone(), frames[1].clone()].concat();
        for bad in [&flipped[..], cut, &two[..]] {
            let refused = replica.append_frame(bad);
            assert!(
                matches!(refused, Err(AppendError::BadFrame { .. })),
                "{refused:?}"
            );
        }
        // A local append first: the source's frame 2 no longer links.
        replica.append_frame(&frames[0]).unwrap();
        replica.append(&[turn(7)]).unwrap();
        let diverged = replica.append_frame(&frames[2]);
        assert!(
            matches!(diverged, Err(AppendError::ChainMismatch { first_seq: 3 })),
            "{diverged:?}"
        );
        assert!(replica.poisoned().is_none());
        assert_eq!(replica.last_seq(), 2);
        assert!(replica.verify().unwrap().is_ok());

        // A frame stamped before the last commit time is refused too.
        let late = Log::open(
            Arc::new(MemStorage::new()),
            LogConfig::new(key).clock(Arc::new(ManualClock::new(9_000))),
        )
        .unwrap();
        late.append(&[turn(0)]).unwrap();
        let mut payload = Vec::new();
        format::push_event(&mut payload, &codec::encode(&turn(1)).unwrap());
        let mut early = Vec::new();
        format::write_frame(
            &mut early,
            late.key(),
            2,
            1,
            8_999,
            &late.last_hash(),
            &payload,
        );
        let backwards = late.append_frame(&early);
        assert!(
            matches!(
                backwards,
                Err(AppendError::TimeBackwards {
                    ts_ms: 8_999,
                    last_ts_ms: 9_000
                })
            ),
            "{backwards:?}"
        );
    }

    #[test]
    fn a_second_writer_is_refused_while_the_first_holds_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let key = HmacKey::from_bytes([8; 32]);
        let first = Log::open_dir(dir.path(), LogConfig::new(key.clone())).unwrap();
        first.append(&[turn(0)]).unwrap();
        let second = Log::open_dir(dir.path(), LogConfig::new(key.clone()));
        assert!(
            matches!(second, Err(OpenError::Locked { .. })),
            "{second:?}"
        );
        // Readers may look while the writer runs.
        let reader = LogReader::open_dir(dir.path(), key.clone()).unwrap();
        assert_eq!(reader.last_seq(), 1);
        drop(first);
        let again = Log::open_dir(dir.path(), LogConfig::new(key)).unwrap();
        assert_eq!(again.last_seq(), 1);
    }
}

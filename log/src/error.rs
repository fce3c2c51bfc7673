//! Errors, one narrow enum per public operation with an umbrella [`Error`].
//!
//! Messages say what happened and what to do. Corruption is always kept apart
//! from I/O failure: corruption names the segment, byte offset and seq.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// Where the log is damaged: the first bad frame found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Corruption {
    /// File name of the segment, e.g. `00000000000000000001.seg`.
    pub segment: String,
    /// Byte offset of the bad frame (or header) inside the segment.
    pub offset: u64,
    /// The first seq that cannot be trusted.
    pub seq: u64,
    /// What check failed.
    pub reason: String,
}

impl fmt::Display for Corruption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "log corrupted at seq {} (segment {}, offset {}): {}",
            self.seq, self.segment, self.offset, self.reason
        )
    }
}

/// An I/O failure with the operation and the file it concerned.
#[derive(Debug, thiserror::Error)]
#[error("{op} {name}: {source}")]
pub struct IoFailure {
    /// What the log was doing, e.g. "writing segment".
    pub op: &'static str,
    /// The file or folder concerned.
    pub name: String,
    /// The operating system's error.
    #[source]
    pub source: io::Error,
}

impl IoFailure {
    pub(crate) fn new(op: &'static str, name: impl Into<String>, source: io::Error) -> Self {
        Self {
            op,
            name: name.into(),
            source,
        }
    }
}

/// Loading or creating the HMAC key failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The store has a log but no key: refusing to invent a new one, which
    /// would make every existing frame fail its HMAC.
    #[error(
        "no HMAC key at {path}: the store already has a log, so a new key cannot be made; \
         restore the key file, or pass the key with ENGRAM_HMAC_KEY (64 hex digits) or a key file path"
    )]
    Missing { path: PathBuf },
    /// No key was found and creating one was not allowed (read-only use).
    #[error(
        "no HMAC key at {path}: pass the key with ENGRAM_HMAC_KEY (64 hex digits) or a key file path"
    )]
    NotFound { path: PathBuf },
    /// A hex key that does not decode to 32 bytes.
    #[error("HMAC key from {origin} is not 64 hex digits (32 bytes): {reason}")]
    Malformed { origin: String, reason: String },
    /// Reading or writing the key file failed.
    #[error(transparent)]
    Io(#[from] IoFailure),
    /// The operating system's random source failed.
    #[error("could not draw random bytes for a new HMAC key: {0}")]
    Random(String),
}

/// Opening a log failed. Nothing on disk was changed unless the error says so.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    #[error(transparent)]
    Io(#[from] IoFailure),
    #[error(transparent)]
    Key(#[from] KeyError),
    /// A file in the log folder that is not a segment. The log never guesses
    /// what a stranger file means; move it away and open again.
    #[error(
        "unknown file {name:?} in the log folder {folder}: it is not a segment (expected 20 digits and .seg); move it out of the folder"
    )]
    UnknownFile { folder: String, name: String },
    /// A segment written by a newer engram.
    #[error(
        "segment {segment} has format version {found}, this engram reads up to {supported}: upgrade engram"
    )]
    UnsupportedVersion {
        segment: String,
        found: u32,
        supported: u32,
    },
    /// The key does not match the one the log was written with.
    #[error(
        "the HMAC key does not match the key segment {segment} was written with: use the store's own key"
    )]
    WrongKey { segment: String },
    /// Another writer has the log open.
    #[error(
        "the log in {folder} is open for writing by another engram process: close it first (readers such as `engram verify` and `engram log` may run alongside)"
    )]
    Locked { folder: String },
    /// Damage that is not a torn tail: open refuses rather than truncate.
    #[error(
        "{0}; nothing was truncated: restore the segment from a copy, or cut the log from the damage on with `engram repair --truncate-from {seq}` (it keeps a copy of what it cuts)",
        seq = .0.seq
    )]
    Corrupted(Corruption),
    /// A configuration value out of range.
    #[error("invalid log configuration: {0}")]
    Config(String),
    /// The writer thread could not be started.
    #[error("could not start the log writer thread: {0}")]
    Thread(String),
    /// The key store beside the log could not be opened or created.
    #[error(transparent)]
    Keys(#[from] crate::keystore::KeyStoreError),
}

/// Appending failed; nothing of the failed batch was acknowledged.
#[derive(Debug, thiserror::Error, Clone)]
#[non_exhaustive]
pub enum AppendError {
    #[error("empty batch: append at least one event")]
    EmptyBatch,
    #[error(
        "event {index} of the batch encodes to {size} bytes, over the limit of {max} (EVENT_BYTES_MAX)"
    )]
    EventTooLarge {
        index: usize,
        size: usize,
        max: usize,
    },
    #[error("batch of {count} events is over the limit of {max} (BATCH_EVENTS_MAX): split it")]
    BatchTooManyEvents { count: usize, max: usize },
    #[error("batch encodes to {size} bytes, over the limit of {max} (BATCH_BYTES_MAX): split it")]
    BatchTooLarge { size: usize, max: usize },
    #[error("event {index} of the batch cannot be encoded: {reason}")]
    Encode { index: usize, reason: String },
    /// A write or fsync failed earlier. fsync errors are not retryable: the
    /// log refuses writes until it is reopened, which re-runs recovery.
    #[error("the log is poisoned by an earlier I/O failure ({cause}): reopen the store")]
    Poisoned { cause: String },
    /// A batch encoded for a log without a key store was given to one with
    /// a key store, or the other way round (`Log::encode`).
    #[error("the batch was encoded for a log {expected}: encode it with this log's `Log::encode`")]
    WrongBatchForm { expected: &'static str },
    /// The log was closed.
    #[error("the log is closed")]
    Closed,
    /// A batch given to a replica of a shared log whose keys are kept
    /// there: its frames come from the shared log. Nothing was written.
    #[error(
        "this log is a replica of a shared log: append to the shared log, whose frames it copies"
    )]
    Replica,
    /// A batch appended at a given seq ([`crate::Log::append_at`]) that
    /// is not the log's next seq: something else appended first, or the
    /// events do not continue this log. Nothing was written.
    #[error(
        "the batch starts at seq {first_seq} but the log's next seq is {expected}: appends at a given seq must continue the log exactly"
    )]
    SeqMismatch { first_seq: u64, expected: u64 },
    /// A batch stamped ([`crate::Log::append_at`]) before the log's last
    /// commit time: commit times never go backwards. Nothing was written.
    #[error(
        "the batch is stamped {ts_ms} (unix ms), before the log's last commit time {last_ts_ms}: commit times never go backwards"
    )]
    TimeBackwards { ts_ms: u64, last_ts_ms: u64 },
    /// A frame made elsewhere ([`crate::Log::append_frame`]) whose
    /// previous-hash link is not this log's last frame hash: it continues
    /// another log. Nothing was written.
    #[error(
        "the frame at seq {first_seq} does not link to this log's last frame (its previous-hash differs): it continues another log"
    )]
    ChainMismatch { first_seq: u64 },
    /// Bytes given to [`crate::Log::append_frame`] that are not one whole
    /// frame sealed with this log's key. Nothing was written.
    #[error("refused a frame made elsewhere: {reason}")]
    BadFrame { reason: String },
}

/// Reading events failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    #[error("seq {requested} is past the end of the log (last seq is {last})")]
    PastEnd { requested: u64, last: u64 },
    #[error("seq 0 does not exist: seqs start at 1")]
    SeqZero,
    #[error("empty range {first} to {last}")]
    EmptyRange { first: u64, last: u64 },
    #[error(transparent)]
    Io(#[from] IoFailure),
    #[error("{0}")]
    Corrupted(Corruption),
    /// The frame verified but an event in it does not decode: written by an
    /// incompatible build, or a bug.
    #[error("event at seq {seq} does not decode: {reason}")]
    Decode { seq: u64, reason: String },
    /// The event's words are sealed and its data key cannot be read: the
    /// key store is missing, damaged, or not this log's.
    #[error("the words of seq {seq} cannot be opened: {reason}")]
    Keys { seq: u64, reason: String },
}

/// Verifying could not run to the end (corruption found is a result, not an
/// error: see `VerifyReport`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    #[error(transparent)]
    Open(#[from] OpenError),
    #[error(transparent)]
    Io(#[from] IoFailure),
}

/// Any error of the log.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error(transparent)]
    Open(#[from] OpenError),
    #[error(transparent)]
    Append(#[from] AppendError),
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error(transparent)]
    Verify(#[from] VerifyError),
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error(transparent)]
    Keys(#[from] crate::keystore::KeyStoreError),
}

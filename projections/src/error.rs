//! Errors of the projection runtime.

/// Something went wrong keeping or reading a view.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ViewError {
    /// The views database is open in another process.
    #[error("the views database {path} is open in another engram process: close it first")]
    Locked { path: String },
    /// redb failed.
    #[error("views database: {0}")]
    Db(#[from] redb::Error),
    /// A persisted snapshot does not decode.
    #[error("persisted state of view {view} does not decode: {reason}")]
    Snapshot { view: &'static str, reason: String },
    /// A projector panicked or failed: the engine is unhealthy.
    #[error(
        "view {view} failed at seq {seq}: {reason}; run `engram rebuild` after fixing the cause"
    )]
    Failed {
        view: &'static str,
        seq: u64,
        reason: String,
    },
    /// `wait_for` ran out of time: never a silent stale read.
    #[error("view {view} reached seq {applied} but not seq {wanted} within {timeout_ms} ms")]
    Timeout {
        view: &'static str,
        applied: u64,
        wanted: u64,
        timeout_ms: u64,
    },
    /// Reading the log failed while feeding the views.
    #[error("reading the log for the views: {0}")]
    Log(#[from] engram_log::ReadError),
    /// An as-of seq past the end of the log.
    #[error("as-of seq {requested} is past the end of the log (last seq is {last})")]
    AsOfPastEnd { requested: u64, last: u64 },
    /// The views were closed.
    #[error("the views are closed")]
    Closed,
    /// A view entry does not match the MAC its projector kept: the views
    /// file was altered outside engram. Nothing of the entry is handed out.
    #[error(
        "the views do not match the log for memory {memory}: {reason}; the views file was altered outside engram, so its words are not shown: run `engram verify --views` to see what differs, then `engram rebuild` to rebuild the views from the log"
    )]
    Tampered {
        memory: engram_log::MemoryId,
        reason: String,
    },
}

macro_rules! from_redb {
    ($($t:ty),*) => {$(
        impl From<$t> for ViewError {
            fn from(e: $t) -> Self {
                ViewError::Db(e.into())
            }
        }
    )*};
}

from_redb!(
    redb::DatabaseError,
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError,
    redb::SetDurabilityError
);

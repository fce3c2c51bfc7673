//! The one error type of the shared log, [`PgLogError`].
//!
//! Every operation talks to the same remote server and meets the same
//! failures (unreachable, refused credentials, a lost connection, a damaged
//! or rewound log), so one enum serves them all; each message says what
//! happened and what to do. Damage is kept apart from database failures:
//! it names the first seq that cannot be trusted.
//!
//! **Invariant:** no variant ever carries the password of the URL. Targets
//! are described as `user@host:port/database`.

use engram_log::AppendError;

/// What can go wrong with the shared log on PostgreSQL.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum PgLogError {
    /// The URL does not parse.
    #[error("invalid PostgreSQL URL: {reason}")]
    BadUrl { reason: String },
    /// The URL asks for TLS, which this build does not speak yet.
    #[error(
        "the PostgreSQL URL requires TLS ({reason}), which engram's shared log does not support yet: \
         connect over loopback or a trusted network (sslmode=disable or prefer)"
    )]
    TlsUnsupported { reason: String },
    /// No server answered: down, wrong host or port, or a firewall.
    #[error(
        "cannot reach PostgreSQL at {target}: {reason}; check that the server runs and listens there (host, port, firewall)"
    )]
    Unreachable { target: String, reason: String },
    /// The server refused the user or password.
    #[error(
        "PostgreSQL at {target} refused the credentials of user {user:?}: {reason}; check the user name and password in the URL"
    )]
    Authentication {
        target: String,
        user: String,
        reason: String,
    },
    /// The database named in the URL does not exist.
    #[error(
        "PostgreSQL at {target} has no database {database:?}: create it (CREATE DATABASE) or fix the URL"
    )]
    NoDatabase { target: String, database: String },
    /// The connection's `search_path` names no schema that exists.
    #[error(
        "the connection's search_path names no existing schema, so the shared log has nowhere to live: \
         create the schema or fix the URL's options"
    )]
    NoSchema,
    /// The tables were made by a newer engram. Nothing was changed.
    #[error(
        "the shared log's schema is version {found}, newer than this engram understands ({supported}): \
         upgrade engram; nothing was changed"
    )]
    SchemaNewer { found: i64, supported: i64 },
    /// The tables exist but are not what engram made (dropped, altered).
    #[error(
        "the shared log's tables are damaged: {reason}; nothing was changed: restore the database from a backup"
    )]
    SchemaDamaged { reason: String },
    /// The key's id differs from the one recorded when the log was made: a
    /// wrong key, not tampering.
    #[error(
        "the HMAC key (id {ours}) is not the key this shared log was written with (id {recorded}): \
         use that log's key (ENGRAM_HMAC_KEY or its key file)"
    )]
    KeyMismatch { recorded: String, ours: String },
    /// The shared log ends before a seq this process (or a replica) has
    /// already seen: truncated, rewound, or restored from an older copy.
    #[error(
        "the shared log ends at seq {shared_last_seq} but seq {seen_last_seq} was already seen: \
         the events were truncated, rewound or restored from an older copy; nothing was written: \
         restore the database, or point engram at the database it was using"
    )]
    Rewound {
        shared_last_seq: u64,
        seen_last_seq: u64,
    },
    /// The head row and the rows disagree: rows are missing at the end.
    #[error(
        "the shared log's head says it ends at seq {head_last_seq} but {found}: \
         the events table was truncated or rows were deleted; nothing was written: \
         restore the database from a backup"
    )]
    Truncated { head_last_seq: u64, found: String },
    /// A row fails a check: edited, missing, reordered. `seq` is the first
    /// seq that cannot be trusted.
    #[error(
        "the shared log is damaged at seq {seq}: {reason}; nothing was written: \
         run verify and restore the database from a backup"
    )]
    Corrupted { seq: u64, reason: String },
    /// The shared log does not continue a replica's local log.
    #[error(
        "the shared log does not continue this replica at seq {seq}: {reason}; \
         the replica was made from another log, or the shared log was rewritten: \
         point engram at the right database, or rebuild the replica from it"
    )]
    Diverged { seq: u64, reason: String },
    /// A row verified but its event does not decode: written by an
    /// incompatible build.
    #[error("event at seq {seq} does not decode: {reason}; upgrade engram")]
    Decode { seq: u64, reason: String },
    /// The batch was refused before reaching the database (limits,
    /// encoding), or an `append_at` batch does not land where it says.
    #[error(transparent)]
    Batch(#[from] AppendError),
    /// The connection broke before the commit was sent: nothing of the
    /// operation happened.
    #[error(
        "lost the connection to PostgreSQL at {target} while {op}: {reason}; \
         nothing was written: retry (engram reconnects)"
    )]
    ConnectionLost {
        target: String,
        op: &'static str,
        reason: String,
    },
    /// The connection broke while the commit was in flight: the events may
    /// or may not be in the log.
    #[error(
        "lost the connection to PostgreSQL while committing seqs {first_seq}..={last_seq}: {reason}; \
         the commit may or may not have happened: read the shared log before appending them again"
    )]
    CommitUnknown {
        first_seq: u64,
        last_seq: u64,
        reason: String,
    },
    /// The server refused a statement.
    #[error("PostgreSQL failed while {op}: {reason} (SQLSTATE {code})")]
    Database {
        op: &'static str,
        code: String,
        reason: String,
    },
    #[error("seq {requested} is past the end of the shared log (last seq is {last})")]
    PastEnd { requested: u64, last: u64 },
    #[error("seq 0 does not exist: seqs start at 1")]
    SeqZero,
    #[error("empty range {first}..={last}")]
    EmptyRange { first: u64, last: u64 },
    /// The shared log seals its words and no master key was given.
    #[error(
        "the shared log in {location} seals its words: give every replica the team's master key \
         (ENGRAM_MASTER_KEY, 64 hex digits, or the store's master.key); nothing was changed"
    )]
    MasterKeyRequired { location: String },
    /// The master key given is not the one the shared log was made with.
    #[error(
        "the master key does not open the shared log in {location}: give every replica the team's \
         master key (ENGRAM_MASTER_KEY, or the store's master.key); nothing was changed"
    )]
    WrongMasterKey { location: String },
    /// A data key could not be made, wrapped, read or destroyed.
    #[error("the shared log's key store: {0}")]
    Keys(String),
    /// The shared log was closed.
    #[error("the shared log is closed")]
    Closed,
    /// The writer thread could not be started.
    #[error("could not start the shared log's writer thread: {0}")]
    Thread(String),
}

impl PgLogError {
    /// Whether the failure lies in reaching the server (a retry may work)
    /// rather than in the log or the request.
    #[must_use]
    pub fn is_connection(&self) -> bool {
        matches!(
            self,
            PgLogError::Unreachable { .. }
                | PgLogError::ConnectionLost { .. }
                | PgLogError::CommitUnknown { .. }
        )
    }
}

/// The classified form of a client error during an operation.
pub(crate) fn classify(target: &str, op: &'static str, error: &postgres::Error) -> PgLogError {
    if let Some(db) = error.as_db_error() {
        return PgLogError::Database {
            op,
            code: db.code().code().to_owned(),
            reason: db.message().to_owned(),
        };
    }
    PgLogError::ConnectionLost {
        target: target.to_owned(),
        op,
        reason: full_text(error),
    }
}

/// Whether `error` means the connection is unusable from now on.
pub(crate) fn breaks_connection(error: &postgres::Error) -> bool {
    error.as_db_error().is_none_or(|db| {
        // Admin shutdown, crash shutdown, cannot connect now: the
        // server ends the session.
        matches!(db.code().code(), "57P01" | "57P02" | "57P03")
    })
}

/// An error's text with its causes, which the client keeps apart.
pub(crate) fn full_text(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

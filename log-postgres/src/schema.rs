//! Schema v2 of the shared log: four tables in the connection's current
//! schema (the first of its `search_path`), created on first connect in
//! one transaction (a v1 log is migrated in one transaction too), and the
//! checks every connect makes.
//!
//! ```text
//! engram_meta    one row: schema_version, format_version, key_id (8 bytes), created_ms,
//!                key_check (v2): NULL for a log in the clear, else the check value
//!                of the team's master key (a fixed data key wrapped for seq 0)
//! engram_head    one row: last_seq, last_hash (32 bytes), last_ts_ms
//!                locked FOR UPDATE by every append transaction
//! engram_events  one row per event, keyed by seq:
//!                seq, ts_ms, event (codec bytes), and the frame it was
//!                committed in: frame_first_seq, frame_last_seq,
//!                format_version, frame_prev_hash, frame_hash, frame_mac
//! engram_keys    (v2) one row per seq of a sealed log: seq, wrapped (the
//!                subject's data key wrapped by the master key as a key store
//!                slot wraps it, 72 bytes; empty once a purge destroyed it)
//! ```
//!
//! A log is sealed from its first frame or never: a log created by a
//! connect given a master key is sealed (`key_check` set, frames of
//! version 2, a key row per seq inserted in the frame's own append
//! transaction); a log created without one, or migrated from v1, stays in
//! the clear.
//!
//! **Invariant:** `engram_head` and `engram_events` change only together,
//! in an append transaction that holds the head row's lock: the head names
//! the last row and its frame's hash.
//!
//! A connect refuses a schema newer than [`SCHEMA_VERSION`] and a key whose
//! id differs from the recorded one, and checks that the head's last row
//! is there (a truncated table is told before anything is written).

use std::time::Duration;

use engram_log::format::{FORMAT_VERSION, GENESIS_HASH, Hash};
use engram_log::keystore::{Slot, WRAPPED_BYTES};
use engram_log::{DataKey, HmacKey, MasterKey, SubjectKey};
use postgres::Client;

use crate::error::{PgLogError, classify};
use crate::rows::{Head, read_head};

/// The schema version this build creates and the newest it reads.
pub const SCHEMA_VERSION: i64 = 2;

/// The statements that create schema v1 (run once, under the schema lock).
const CREATE_V1: &str = "
CREATE TABLE engram_meta (
    singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    schema_version bigint  NOT NULL,
    format_version bigint  NOT NULL,
    key_id         bytea   NOT NULL CHECK (octet_length(key_id) = 8),
    created_ms     bigint  NOT NULL
);
CREATE TABLE engram_head (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    last_seq   bigint  NOT NULL CHECK (last_seq >= 0),
    last_hash  bytea   NOT NULL CHECK (octet_length(last_hash) = 32),
    last_ts_ms bigint  NOT NULL CHECK (last_ts_ms >= 0)
);
CREATE TABLE engram_events (
    seq             bigint   PRIMARY KEY CHECK (seq >= 1),
    ts_ms           bigint   NOT NULL,
    event           bytea    NOT NULL,
    frame_first_seq bigint   NOT NULL,
    frame_last_seq  bigint   NOT NULL,
    format_version  smallint NOT NULL,
    frame_prev_hash bytea    NOT NULL,
    frame_hash      bytea    NOT NULL,
    frame_mac       bytea    NOT NULL,
    CHECK (frame_first_seq <= seq AND seq <= frame_last_seq)
);
";

/// The statements that migrate schema v1 to v2 (run once, under the
/// schema lock, in the connect's transaction): the master key's check
/// value (NULL: the log stays in the clear) and the key store.
const MIGRATE_V2: &str = "
ALTER TABLE engram_meta ADD COLUMN key_check bytea;
CREATE TABLE engram_keys (
    seq     bigint PRIMARY KEY CHECK (seq >= 1),
    wrapped bytea  NOT NULL CHECK (octet_length(wrapped) IN (0, 72))
);
UPDATE engram_meta SET schema_version = 2;
";

/// The data key wrapped (for seq 0, which no event has) into the check
/// value: a master key that unwraps it to this is the team's.
const CHECK_KEY: [u8; 32] = *b"engram shared log key check v1\0\0";

/// The check value of `master`.
fn key_check(master: &MasterKey) -> Result<Vec<u8>, PgLogError> {
    let slot = Slot::wrap(master, 0, &DataKey::from_bytes(CHECK_KEY))
        .map_err(|e| PgLogError::Keys(e.to_string()))?;
    Ok(slot
        .encode()
        .get(..WRAPPED_BYTES)
        .unwrap_or_default()
        .to_vec())
}

/// Whether `master` opens the check value `check`.
fn opens_check(master: &MasterKey, check: &[u8]) -> bool {
    let Ok(wrapped) = <[u8; WRAPPED_BYTES]>::try_from(check) else {
        return false;
    };
    matches!(
        Slot::Wrapped(wrapped).unwrap_key(master, 0),
        Ok(SubjectKey::Live(key)) if key.to_bytes() == CHECK_KEY
    )
}

/// What a connect learned about the schema.
#[derive(Debug, Clone)]
pub(crate) struct SchemaInfo {
    /// `database.schema`, for messages and the notification channel.
    pub(crate) location: String,
    /// The LISTEN/NOTIFY channel of this log.
    pub(crate) channel: String,
    /// The head when the connect checked it.
    pub(crate) head: Head,
    /// Whether this connect created the tables.
    pub(crate) created: bool,
    /// Whether the log seals its words (and keeps a key row per seq).
    pub(crate) sealed: bool,
}

/// Creates schema v1 if the current schema has no shared log yet, then
/// checks it: version, key id, head row, the head's last row. One
/// transaction under an advisory lock, so concurrent first connects
/// create it once.
pub(crate) fn ensure(
    client: &mut Client,
    target: &str,
    key: &HmacKey,
    master: Option<&MasterKey>,
    now_ms: u64,
    lock_timeout: Duration,
) -> Result<SchemaInfo, PgLogError> {
    let op = "checking the shared log's schema";
    let err = |e: postgres::Error| classify(target, op, &e);
    let mut txn = client.transaction().map_err(err)?;
    let row = txn
        .query_one(
            "SELECT current_database()::text, current_schema()::text",
            &[],
        )
        .map_err(err)?;
    let database: String = row.try_get(0).map_err(err)?;
    let schema: Option<String> = row.try_get(1).map_err(err)?;
    let schema = schema.ok_or(PgLogError::NoSchema)?;
    let location = format!("{database}.{schema}");
    let lock_ms = i64::try_from(lock_timeout.as_millis()).unwrap_or(i64::MAX);
    txn.execute(
        "SELECT set_config('lock_timeout', $1, true)",
        &[&format!("{lock_ms}ms")],
    )
    .map_err(err)?;
    txn.execute(
        "SELECT pg_advisory_xact_lock($1)",
        &[&lock_id(b"engram schema lock", &location)],
    )
    .map_err(err)?;
    let exists: bool = txn
        .query_one("SELECT to_regclass('engram_meta') IS NOT NULL", &[])
        .and_then(|row| row.try_get(0))
        .map_err(err)?;
    let mut created = false;
    if !exists {
        for table in ["engram_head", "engram_events", "engram_keys"] {
            let stray: bool = txn
                .query_one("SELECT to_regclass($1) IS NOT NULL", &[&table])
                .and_then(|row| row.try_get(0))
                .map_err(err)?;
            if stray {
                return Err(PgLogError::SchemaDamaged {
                    reason: format!("table {table} exists without engram_meta in {location}"),
                });
            }
        }
        txn.batch_execute(CREATE_V1).map_err(err)?;
        let created_ms = i64::try_from(now_ms).unwrap_or(i64::MAX);
        txn.execute(
            "INSERT INTO engram_meta (schema_version, format_version, key_id, created_ms) \
             VALUES (1, $1, $2, $3)",
            &[&i64::from(FORMAT_VERSION), &&key.key_id()[..], &created_ms],
        )
        .map_err(err)?;
        txn.batch_execute(MIGRATE_V2).map_err(err)?;
        // Sealed from its first frame when the team's master key is given.
        if let Some(master) = master {
            txn.execute(
                "UPDATE engram_meta SET key_check = $1",
                &[&key_check(master)?],
            )
            .map_err(err)?;
        }
        txn.execute(
            "INSERT INTO engram_head (last_seq, last_hash, last_ts_ms) VALUES (0, $1, 0)",
            &[&&GENESIS_HASH[..]],
        )
        .map_err(err)?;
        created = true;
    }
    let version = check_meta(&mut txn, target, key)?;
    if version == 1 {
        // A v1 log was written in the clear and stays so.
        txn.batch_execute(MIGRATE_V2)
            .map_err(|e| damaged_or(target, "migrating the shared log to schema v2", &e))?;
    }
    let sealed = check_master(&mut txn, target, &location, master)?;
    let head = read_head(&mut txn, target)?;
    crate::rows::check_head_row(&mut txn, target, &head)?;
    txn.commit().map_err(err)?;
    Ok(SchemaInfo {
        channel: format!("engram_log_{}", &hex::encode(short_hash(&location))),
        location,
        head,
        created,
        sealed,
    })
}

/// Reads the master key's check value: `false` for a log in the clear,
/// `true` for a sealed one, whose check a master key given must open
/// ([`PgLogError::WrongMasterKey`]).
fn check_master(
    txn: &mut postgres::Transaction<'_>,
    target: &str,
    location: &str,
    master: Option<&MasterKey>,
) -> Result<bool, PgLogError> {
    let op = "reading the shared log's master key check";
    let check: Option<Vec<u8>> = txn
        .query_one("SELECT key_check FROM engram_meta", &[])
        .and_then(|row| row.try_get(0))
        .map_err(|e| damaged_or(target, op, &e))?;
    let Some(check) = check else {
        return Ok(false);
    };
    // Without a master key the log can be verified and its frames
    // copied, never appended to nor its words opened (`PgLog` refuses).
    let Some(master) = master else {
        return Ok(true);
    };
    if !opens_check(master, &check) {
        return Err(PgLogError::WrongMasterKey {
            location: location.to_owned(),
        });
    }
    Ok(true)
}

/// Reads the meta row and refuses a newer schema or another key.
fn check_meta(
    txn: &mut postgres::Transaction<'_>,
    target: &str,
    key: &HmacKey,
) -> Result<i64, PgLogError> {
    let op = "reading the shared log's meta row";
    let rows = txn
        .query("SELECT schema_version, key_id FROM engram_meta", &[])
        .map_err(|e| damaged_or(target, op, &e))?;
    let [row] = rows.as_slice() else {
        return Err(PgLogError::SchemaDamaged {
            reason: format!("engram_meta holds {} rows, expected 1", rows.len()),
        });
    };
    let version: i64 = row.try_get(0).map_err(|e| damaged_or(target, op, &e))?;
    if version > SCHEMA_VERSION {
        return Err(PgLogError::SchemaNewer {
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    if version < 1 {
        return Err(PgLogError::SchemaDamaged {
            reason: format!("engram_meta names schema version {version}"),
        });
    }
    let recorded: Vec<u8> = row.try_get(1).map_err(|e| damaged_or(target, op, &e))?;
    if recorded != key.key_id() {
        return Err(PgLogError::KeyMismatch {
            recorded: hex::encode(recorded),
            ours: hex::encode(key.key_id()),
        });
    }
    Ok(version)
}

/// A missing table or column is damage; anything else is the server's.
pub(crate) fn damaged_or(target: &str, op: &'static str, error: &postgres::Error) -> PgLogError {
    match error.code().map(postgres::error::SqlState::code) {
        // undefined_table, undefined_column
        Some(code @ ("42P01" | "42703")) => PgLogError::SchemaDamaged {
            reason: format!(
                "{} (SQLSTATE {code})",
                error
                    .as_db_error()
                    .map_or_else(|| error.to_string(), |db| db.message().to_owned())
            ),
        },
        _ if error.as_db_error().is_none() && error.to_string().contains("deserializing") => {
            PgLogError::SchemaDamaged {
                reason: format!(
                    "a column has the wrong type: {}",
                    crate::error::full_text(error)
                ),
            }
        }
        _ => classify(target, op, error),
    }
}

/// The first 8 bytes of blake3(`text`), for channel names.
fn short_hash(text: &str) -> [u8; 8] {
    let hash = blake3::hash(text.as_bytes());
    let mut out = [0u8; 8];
    out.copy_from_slice(hash.as_bytes().get(..8).unwrap_or(&[0u8; 8]));
    out
}

/// An advisory lock id for `purpose` in `location`.
fn lock_id(purpose: &[u8], location: &str) -> i64 {
    let mut hasher = blake3::Hasher::new();
    hasher.update(purpose);
    hasher.update(location.as_bytes());
    let hash = hasher.finalize();
    let mut out = [0u8; 8];
    out.copy_from_slice(hash.as_bytes().get(..8).unwrap_or(&[0u8; 8]));
    i64::from_le_bytes(out)
}

/// The chain hash in a row, checked for length.
pub(crate) fn hash_from(bytes: &[u8]) -> Option<Hash> {
    bytes.try_into().ok()
}

//! The team's key store: each subject's data key, wrapped by the team's
//! master key, in `engram_keys` beside the events.
//!
//! ```text
//! engram_keys   seq bigint PRIMARY KEY, wrapped bytea
//!               wrapped: nonce (24) | data key sealed with the master key,
//!               associated data "engram data key v1" | seq (48): exactly what
//!               a slot of a local key store holds (`keystore::Slot`)
//!               empty: destroyed by a purge
//! ```
//!
//! A row is inserted for every seq of a sealed frame in the frame's own
//! append transaction (`writer`), so a committed frame always has its keys
//! and a rolled-back one has none. [`PgKeys`] is how a replica's local log
//! reads them ([`SubjectKeys`]): one query reads a stretch of rows ahead
//! (a replay asks in order), and unwrapped keys are cached in memory.
//!
//! **Invariant:** a row that is empty opens its record as erased; a row
//! that is missing for a seq the log holds is damage
//! ([`KeyStoreError::KeyMissing`]), never an erasure.
//!
//! A purge destroys keys in one transaction (each row updated to empty),
//! then runs `VACUUM` on the table so the old row versions are marked
//! free; what PostgreSQL keeps of them past that (the table's pages until
//! reused, the WAL, base backups, standbys) is listed in docs/design.md.

use std::collections::BTreeMap;

use engram_log::keystore::{Slot, WRAPPED_BYTES};
use engram_log::{KeyStoreError, MasterKey, SubjectKey, SubjectKeys};
use parking_lot::Mutex;
use postgres::Client;

use crate::connect::Connector;
use crate::error::PgLogError;
use crate::rows::to_i64;

/// Rows read at once when a key is not cached.
pub const KEY_ROWS_AHEAD: u64 = 256;
/// Most unwrapped keys held at once; past it the cache starts over.
pub const CACHED_KEYS_MAX: usize = 65_536;

/// The team's key store on PostgreSQL, read (and destroyed in) on a
/// connection of its own.
pub struct PgKeys {
    connector: Connector,
    location: String,
    master: MasterKey,
    client: Mutex<Option<Client>>,
    cache: Mutex<BTreeMap<u64, SubjectKey>>,
}

impl std::fmt::Debug for PgKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgKeys")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// A row's bytes as the key they hold for `seq`.
pub(crate) fn unwrap_row(
    master: &MasterKey,
    seq: u64,
    wrapped: &[u8],
) -> Result<SubjectKey, KeyStoreError> {
    if wrapped.is_empty() {
        return Ok(SubjectKey::Destroyed);
    }
    let bytes =
        <[u8; WRAPPED_BYTES]>::try_from(wrapped).map_err(|_| KeyStoreError::SlotDamaged { seq })?;
    Slot::Wrapped(bytes).unwrap_key(master, seq)
}

/// `key` wrapped for `seq` under `master` with `nonce` (drawn at random,
/// never repeated): the bytes of its row.
pub(crate) fn wrap_row(
    master: &MasterKey,
    seq: u64,
    key: &engram_log::DataKey,
    nonce: [u8; engram_log::sealed::NONCE_BYTES],
) -> Result<Vec<u8>, KeyStoreError> {
    match Slot::wrap_with_nonce(master, seq, key, nonce)? {
        Slot::Wrapped(wrapped) => Ok(wrapped.to_vec()),
        Slot::Destroyed => Err(KeyStoreError::SlotDamaged { seq }),
    }
}

impl PgKeys {
    pub(crate) fn new(connector: Connector, location: String, master: MasterKey) -> Self {
        Self {
            connector,
            location,
            master,
            client: Mutex::new(None),
            cache: Mutex::new(BTreeMap::new()),
        }
    }

    fn place(&self) -> String {
        format!("{} (engram_keys)", self.location)
    }

    fn unavailable(&self, reason: impl std::fmt::Display) -> KeyStoreError {
        KeyStoreError::Unavailable {
            place: self.place(),
            reason: reason.to_string(),
        }
    }

    /// Runs `f` on the key store's connection, reconnecting once when it
    /// was lost.
    fn with_client<T>(
        &self,
        mut f: impl FnMut(&mut Client) -> Result<T, postgres::Error>,
    ) -> Result<T, KeyStoreError> {
        let mut slot = self.client.lock();
        let mut retried = false;
        loop {
            let mut client = match slot.take() {
                Some(client) if !client.is_closed() => client,
                _ => self
                    .connector
                    .connect()
                    .map_err(|e: PgLogError| self.unavailable(e))?,
            };
            match f(&mut client) {
                Ok(value) => {
                    *slot = Some(client);
                    return Ok(value);
                }
                Err(e) if e.as_db_error().is_none() && !retried => retried = true,
                Err(e) => {
                    if !client.is_closed() {
                        *slot = Some(client);
                    }
                    return Err(self.unavailable(crate::error::full_text(&e)));
                }
            }
        }
    }
}

impl SubjectKeys for PgKeys {
    fn key(&self, seq: u64) -> Result<SubjectKey, KeyStoreError> {
        if let Some(key) = self.cache.lock().get(&seq) {
            return Ok(key.clone());
        }
        let rows: Vec<(i64, Vec<u8>)> = self.with_client(|client| {
            client
                .query(
                    "SELECT seq, wrapped FROM engram_keys WHERE seq BETWEEN $1 AND $2 ORDER BY seq",
                    &[
                        &to_i64(seq),
                        &to_i64(seq.saturating_add(KEY_ROWS_AHEAD - 1)),
                    ],
                )?
                .iter()
                .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
                .collect()
        })?;
        let mut found = None;
        let mut cache = self.cache.lock();
        if cache.len() >= CACHED_KEYS_MAX {
            cache.clear();
        }
        for (row_seq, wrapped) in rows {
            let Ok(row_seq) = u64::try_from(row_seq) else {
                continue;
            };
            if row_seq == seq {
                // Only the key asked for must unwrap.
                let key = unwrap_row(&self.master, seq, &wrapped)?;
                cache.insert(seq, key.clone());
                found = Some(key);
            } else if let Ok(key) = unwrap_row(&self.master, row_seq, &wrapped) {
                cache.entry(row_seq).or_insert(key);
            }
        }
        found.ok_or_else(|| KeyStoreError::KeyMissing {
            place: self.place(),
            seq,
        })
    }

    /// Every row of `seqs` updated to empty in one transaction (a missing
    /// row refuses it, nothing changed), then `VACUUM` of the table,
    /// which may fail without undoing anything (it needs the table's
    /// owner).
    fn destroy(&self, seqs: &[u64]) -> Result<(), KeyStoreError> {
        if seqs.is_empty() {
            return Ok(());
        }
        let wanted: Vec<i64> = seqs.iter().map(|&seq| to_i64(seq)).collect();
        let (present, emptied) = self.with_client(|client| {
            let mut txn = client.transaction()?;
            let present: Vec<i64> = txn
                .query(
                    "SELECT seq FROM engram_keys WHERE seq = ANY($1) FOR UPDATE",
                    &[&wanted],
                )?
                .iter()
                .map(|row| row.try_get(0))
                .collect::<Result<_, _>>()?;
            let mut emptied = 0;
            if present.len() == wanted.len() {
                emptied = txn.execute(
                    "UPDATE engram_keys SET wrapped = '\\x' WHERE seq = ANY($1) AND wrapped <> '\\x'",
                    &[&wanted],
                )?;
                txn.commit()?;
            }
            Ok((present, emptied))
        })?;
        let present: std::collections::BTreeSet<i64> = present.into_iter().collect();
        if let Some(&seq) = seqs.iter().find(|&&seq| !present.contains(&to_i64(seq))) {
            return Err(KeyStoreError::KeyMissing {
                place: self.place(),
                seq,
            });
        }
        {
            let mut cache = self.cache.lock();
            for &seq in seqs {
                cache.insert(seq, SubjectKey::Destroyed);
            }
        }
        // Marks the old row versions free (when this call emptied any:
        // a destroy repeated by another replica changes nothing). Not part
        // of the purge's promise: a failure (a role that does not own the
        // table) leaves them for autovacuum.
        if emptied > 0 {
            let _ = self.with_client(|client| client.batch_execute("VACUUM engram_keys"));
        }
        Ok(())
    }

    fn forget(&self, seqs: &[u64]) {
        let mut cache = self.cache.lock();
        for seq in seqs {
            cache.remove(seq);
        }
    }
}

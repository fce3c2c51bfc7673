//! A view: a fold plus how it is persisted in redb.
//!
//! Every view persists its state and its meta row (applied seq, code
//! version) in the same write transaction, so state and watermark never
//! disagree. In-memory folds persist as one snapshot ([`Snapshot`]); views too
//! large for memory keep their rows in tables of their own (the audit view).

use engram_log::LoggedEvent;
use redb::{ReadTransaction, TableDefinition, WriteTransaction};

use crate::error::ViewError;
use crate::fold::{Fold, snapshot};

/// name -> (applied seq, code version, fingerprint of the event at the applied seq).
pub(crate) const META: TableDefinition<&str, (u64, u32, Fingerprint)> =
    TableDefinition::new("meta");
/// name -> snapshot bytes of an in-memory view.
pub(crate) const SNAPSHOTS: TableDefinition<&str, &[u8]> = TableDefinition::new("snapshots");

/// A read model the runtime can feed, persist, load and rebuild.
pub trait View: Send + Sync + 'static {
    /// Stable name (the key of its persisted state).
    fn name(&self) -> &'static str;
    /// Code version: a change means a full rebuild.
    fn version(&self) -> u32;
    /// Folds one event. Pure in the event log: a view may read earlier
    /// events back from the log (the text index reads the words a memory
    /// references), never anything else. An error stops the projector: the
    /// view is marked failed with the seq, never left silently behind.
    fn apply(&mut self, event: &LoggedEvent) -> Result<(), ViewError>;
    /// Writes the state, or what changed since the last call, into `txn`.
    fn persist(&mut self, txn: &WriteTransaction) -> Result<(), ViewError>;
    /// Replaces the in-memory state with what `txn` holds.
    fn load(&mut self, txn: &ReadTransaction) -> Result<(), ViewError>;
    /// Deletes everything persisted and resets to the empty state.
    fn clear(&mut self, txn: &WriteTransaction) -> Result<(), ViewError>;
    /// Whether rows must reach redb after every batch (views read from disk)
    /// rather than only at checkpoints (views read from memory).
    fn persists_every_batch(&self) -> bool {
        false
    }
    /// The in-memory state as keyed entries in a fixed order, for
    /// `engram verify --views` (see [`Fold::entries`]). Views whose state
    /// lives in their own tables (the audit view) list none: their rows
    /// are compared as rows.
    fn entries(&self) -> Result<Vec<(String, Vec<u8>)>, ViewError> {
        Ok(Vec::new())
    }
}

/// An in-memory [`Fold`] persisted as one snapshot at checkpoints.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Snapshot<F: Fold> {
    pub state: F,
}

impl<F: Fold> View for Snapshot<F> {
    fn name(&self) -> &'static str {
        F::NAME
    }

    fn version(&self) -> u32 {
        F::VERSION
    }

    fn apply(&mut self, event: &LoggedEvent) -> Result<(), ViewError> {
        self.state.apply(event);
        Ok(())
    }

    fn persist(&mut self, txn: &WriteTransaction) -> Result<(), ViewError> {
        let bytes = snapshot::encode(&self.state).map_err(|e| ViewError::Snapshot {
            view: F::NAME,
            reason: e.to_string(),
        })?;
        txn.open_table(SNAPSHOTS)?
            .insert(F::NAME, bytes.as_slice())?;
        Ok(())
    }

    fn load(&mut self, txn: &ReadTransaction) -> Result<(), ViewError> {
        let Some(table) = open_if_exists(txn, SNAPSHOTS)? else {
            self.state = F::default();
            return Ok(());
        };
        self.state = match table.get(F::NAME)? {
            Some(bytes) => snapshot::decode(bytes.value()).map_err(|e| ViewError::Snapshot {
                view: F::NAME,
                reason: e.to_string(),
            })?,
            None => F::default(),
        };
        Ok(())
    }

    fn clear(&mut self, txn: &WriteTransaction) -> Result<(), ViewError> {
        txn.open_table(SNAPSHOTS)?.remove(F::NAME)?;
        self.state = F::default();
        Ok(())
    }

    fn entries(&self) -> Result<Vec<(String, Vec<u8>)>, ViewError> {
        self.state.entries().map_err(|e| ViewError::Snapshot {
            view: F::NAME,
            reason: e.to_string(),
        })
    }
}

impl<F: Fold> Snapshot<F> {
    /// Persists `self` as [`View::persist`] does, then hands the state back
    /// to `home` (for views that wrap a fold with more than its state).
    pub(crate) fn persist_into(
        mut self,
        txn: &WriteTransaction,
        home: &mut F,
    ) -> Result<(), ViewError> {
        let result = View::persist(&mut self, txn);
        *home = self.state;
        result
    }
}

/// What a view persisted about its progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Meta {
    pub(crate) applied: u64,
    pub(crate) version: u32,
    /// [`fingerprint`] of the event at `applied` (zeros at 0): tells a view
    /// built from another log (a copied or restored file) from its own.
    pub(crate) fingerprint: Fingerprint,
}

/// A short digest of one logged event.
pub(crate) type Fingerprint = [u8; 16];

/// The fingerprint of `event`: blake3 over its seq, commit time and encoding.
pub(crate) fn fingerprint(event: &LoggedEvent) -> Fingerprint {
    let mut hasher = blake3::Hasher::new();
    hasher.update(&event.seq.to_le_bytes());
    hasher.update(&event.ts_ms.to_le_bytes());
    hasher.update(&engram_log::codec::encode(&event.event).unwrap_or_default());
    let mut out = [0u8; 16];
    out.copy_from_slice(&hasher.finalize().as_bytes()[..16]);
    out
}

/// The persisted meta row of view `name`, if any.
pub(crate) fn read_meta(txn: &ReadTransaction, name: &str) -> Result<Option<Meta>, ViewError> {
    match open_if_exists(txn, META)? {
        Some(table) => Ok(table.get(name)?.map(|v| {
            let (applied, version, fingerprint) = v.value();
            Meta {
                applied,
                version,
                fingerprint,
            }
        })),
        None => Ok(None),
    }
}

/// Records that view `name` at `version` has applied up to `applied`, whose
/// event has fingerprint `fingerprint`.
pub(crate) fn write_meta(
    txn: &WriteTransaction,
    name: &str,
    applied: u64,
    version: u32,
    fingerprint: Fingerprint,
) -> Result<(), ViewError> {
    txn.open_table(META)?
        .insert(name, (applied, version, fingerprint))?;
    Ok(())
}

/// Opens a table for reading; `None` when no write ever created it.
pub(crate) fn open_if_exists<K: redb::Key + 'static, V: redb::Value + 'static>(
    txn: &ReadTransaction,
    table: TableDefinition<K, V>,
) -> Result<Option<redb::ReadOnlyTable<K, V>>, ViewError> {
    match txn.open_table(table) {
        Ok(table) => Ok(Some(table)),
        Err(redb::TableError::TableDoesNotExist(_)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

//! Where a log gets its subjects' data keys: the seam between the log and
//! a key store.
//!
//! A log opened with a key store reads the key of a sealed record's seq
//! when it opens the record's words, and a purge destroys keys through it.
//! [`SubjectKeys`] is that seam. The file key store beside a local log
//! (`keystore::KeyStore`, behind a mutex) is one implementation; a log
//! shared by a team keeps its keys beside its events (the PostgreSQL
//! implementation lives in `engram-log-postgres`), and each machine's
//! replica reads them from there rather than keeping a copy a purge would
//! have to chase.
//!
//! **Invariant:** a key that was destroyed is told apart from a key that is
//! missing: [`SubjectKey::Destroyed`] opens a record as erased, a missing
//! key is an error naming the seq (damage, never an erasure).

use std::fmt;

use crate::keystore::{KeyStore, KeyStoreError};
use crate::sealed::SubjectKey;

/// A source of subjects' data keys.
pub trait SubjectKeys: Send + Sync + fmt::Debug {
    /// The key of subject `seq`: live, or destroyed by a purge. A key the
    /// store should hold and does not is an error, never `Destroyed`.
    fn key(&self, seq: u64) -> Result<SubjectKey, KeyStoreError>;

    /// Destroys the keys of `seqs` for good (destroying a destroyed key is
    /// allowed: a purge's recovery finishing it). Once this returns, the
    /// words sealed with them cannot be opened through this source.
    fn destroy(&self, seqs: &[u64]) -> Result<(), KeyStoreError>;

    /// Drops whatever this source keeps in memory of the keys of `seqs`
    /// (a purge applied here that another process made): the next read
    /// asks the store again.
    fn forget(&self, seqs: &[u64]);
}

impl SubjectKeys for parking_lot::Mutex<KeyStore> {
    fn key(&self, seq: u64) -> Result<SubjectKey, KeyStoreError> {
        self.lock().key(seq)
    }

    fn destroy(&self, seqs: &[u64]) -> Result<(), KeyStoreError> {
        self.lock().destroy(seqs)
    }

    /// The file key store is the only one of its keys: its cache already
    /// holds what a destroy wrote.
    fn forget(&self, _seqs: &[u64]) {}
}

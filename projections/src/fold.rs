//! The projection contract: a read model is a pure fold of the event log.
//!
//! **Invariant:** `apply` is a pure function of the state and the event: no
//! clock, no randomness, no I/O, no iteration over unordered maps where the
//! order reaches the state. Replaying the same log twice gives byte-identical
//! state (`snapshot` bytes).

use engram_log::LoggedEvent;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// A read model kept in memory and persisted as one snapshot.
///
/// Implementors hold their state in ordered collections (`BTreeMap`,
/// `BTreeSet`, `Vec`), so the snapshot bytes are deterministic.
pub trait Fold: Default + Serialize + DeserializeOwned + Send + Sync + 'static {
    /// Stable name: the key of the persisted state. Never reuse a name.
    const NAME: &'static str;
    /// Code version. Bump it whenever `apply` or the state's layout changes:
    /// a changed version makes the runtime rebuild the view from seq 1.
    const VERSION: u32;

    /// Folds one event into the state.
    fn apply(&mut self, event: &LoggedEvent);

    /// The state as keyed entries, in a fixed order, for comparing two
    /// states entry by entry (`engram verify --views` names the entries
    /// that differ). By default one entry, `state`, holding the snapshot;
    /// a model keyed by memory lists one entry per memory.
    fn entries(&self) -> Result<Vec<(String, Vec<u8>)>, snapshot::SnapshotError> {
        Ok(vec![("state".to_owned(), snapshot::encode(self)?)])
    }
}

/// The snapshot codec: bincode 2.0.1 (serde) with one fixed configuration.
pub mod snapshot {
    use super::Fold;

    fn config() -> impl bincode::config::Config {
        bincode::config::standard()
            .with_little_endian()
            .with_variable_int_encoding()
    }

    /// Why a snapshot could not be encoded or decoded.
    #[derive(Debug, Clone, thiserror::Error)]
    #[error("{0}")]
    pub struct SnapshotError(pub String);

    /// The state's bytes.
    pub fn encode<F: Fold>(state: &F) -> Result<Vec<u8>, SnapshotError> {
        encode_value(state)
    }

    /// The state from its bytes; trailing bytes are an error.
    pub fn decode<F: Fold>(bytes: &[u8]) -> Result<F, SnapshotError> {
        decode_value(bytes)
    }

    /// Any persisted value's bytes (same codec as snapshots).
    pub fn encode_value<T: serde::Serialize>(value: &T) -> Result<Vec<u8>, SnapshotError> {
        bincode::serde::encode_to_vec(value, config()).map_err(|e| SnapshotError(e.to_string()))
    }

    /// A persisted value from its bytes; trailing bytes are an error.
    pub fn decode_value<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, SnapshotError> {
        let (value, used) = bincode::serde::decode_from_slice::<T, _>(bytes, config())
            .map_err(|e| SnapshotError(e.to_string()))?;
        if used != bytes.len() {
            return Err(SnapshotError(format!(
                "{} trailing bytes after the value",
                bytes.len() - used
            )));
        }
        Ok(value)
    }
}

//! The tail record, `log/TAIL`: where the log was last known durable, and
//! whether it was closed there.
//!
//! Opening for writing records the log's end as `Open` (everything up to
//! it is durable: recovery just checked it); a clean close records the end
//! as `Closed` after trimming the reserved space and syncing. Recovery
//! reads it to tell a torn write from damage:
//! - up to the recorded end, nothing can be torn: a bad frame, zeros over
//!   frames or a file cut short there is damage;
//! - past an `Open` end, in the last segment, a crash can have left a torn
//!   frame or reserved zeros: the crash rules apply;
//! - past a `Closed` end nothing may follow: no byte, no segment.
//!
//! A log without the record (written before it existed, or whose record
//! was removed) is read with the crash rules alone, as before. The record
//! is replaced atomically ([`Storage::replace`]), so a crash never leaves
//! half of it: a record that fails its checks is damage.

use crate::error::{IoFailure, OpenError};
use crate::format::{TailProblem, TailRecord};
use crate::key::HmacKey;
use crate::storage::Storage;

/// Name of the tail record in the log folder.
pub const TAIL_FILE_NAME: &str = "TAIL";

/// The tail record as found: absent, readable, or damaged (with its bytes,
/// to notice a writer replacing it while a reader looked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TailRead {
    pub(crate) bytes: Option<Vec<u8>>,
    pub(crate) record: Option<Result<TailRecord, TailProblem>>,
}

/// Reads `TAIL` from `storage`, checking it under `key`.
pub(crate) fn read_tail(storage: &dyn Storage, key: &HmacKey) -> Result<TailRead, OpenError> {
    let file = match storage.open(TAIL_FILE_NAME) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(TailRead {
                bytes: None,
                record: None,
            });
        }
        Err(e) => return Err(IoFailure::new("opening", TAIL_FILE_NAME, e).into()),
    };
    let io = |e| IoFailure::new("reading", TAIL_FILE_NAME, e);
    let len = file.len().map_err(io)?;
    // A record is a few dozen bytes; anything far longer is damage, not
    // something to read into memory.
    let n = usize::try_from(len.min(4096)).unwrap_or(4096);
    let mut bytes = vec![0u8; n];
    file.read_exact_at(&mut bytes, 0).map_err(io)?;
    let record = if len > 4096 {
        Err(TailProblem::Length(
            usize::try_from(len).unwrap_or(usize::MAX),
        ))
    } else {
        TailRecord::decode(&bytes, key)
    };
    Ok(TailRead {
        bytes: Some(bytes),
        record: Some(record),
    })
}

/// Replaces `TAIL` with `record`, durably.
pub(crate) fn write_tail(
    storage: &dyn Storage,
    key: &HmacKey,
    record: &TailRecord,
) -> std::io::Result<()> {
    storage.replace(TAIL_FILE_NAME, &record.encode(key))
}

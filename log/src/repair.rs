//! Cutting damage off the end of a log: an operator's explicit act, never
//! recovery's.
//!
//! Recovery truncates only what a crash can have torn. Damage it cannot
//! explain (a bad frame where the log was durable, zeros over frames of a
//! closed log, a file cut short) fails the open and is left as it is, for
//! the operator to restore from a copy or to cut here. [`truncate_from`]
//! cuts the log before a seq: that seq and everything after it, which
//! must include the first damage `verify` finds. Before any byte changes,
//! every file the cut touches is handed whole to the caller to keep; then
//! later segments are removed, the segment holding the seq is truncated at
//! the frame where it starts, and the tail record says the log was closed
//! cleanly there.
//!
//! **Invariant:** nothing is cut unless the log is damaged, the cut starts
//! at a frame boundary at or before the first damage, and the caller kept
//! a copy of every file the cut changes.

use std::io;
use std::sync::Arc;

use crate::error::{Corruption, IoFailure, OpenError};
use crate::format::{SEGMENT_HEADER_LEN, SegmentHeader, TailRecord, TailState};
use crate::key::HmacKey;
use crate::recovery::{Finding, WalkChecks, list_segments, walk};
use crate::scan::{Chain, Macs, scan_segment};
use crate::storage::{Storage, StorageFile};
use crate::tail::{TAIL_FILE_NAME, write_tail};

/// What [`truncate_from`] cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truncated {
    /// The first seq cut: the log now ends at `from_seq - 1`.
    pub from_seq: u64,
    /// The damage `verify` found, at or after `from_seq`.
    pub damage: Corruption,
    /// The segment the log now ends in, and its new length.
    pub segment: String,
    pub offset: u64,
    /// Segments removed whole.
    pub removed: Vec<String>,
    /// Bytes cut in all (the end of `segment` and the removed segments).
    pub bytes_cut: u64,
    /// Files handed to the keeper before the cut, in order.
    pub kept: Vec<String>,
}

/// Cutting the log failed; nothing was cut unless the error says so.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RepairError {
    #[error(transparent)]
    Open(#[from] OpenError),
    #[error(transparent)]
    Io(#[from] IoFailure),
    /// The log verifies: there is no damage to cut.
    #[error(
        "the log verifies (last seq {last_seq}): there is no damage to cut, and nothing was changed"
    )]
    NothingToRepair { last_seq: u64 },
    /// `from_seq` is after the first damage: the cut would keep it.
    #[error(
        "{damage}; cutting from seq {from_seq} would keep it: cut from seq {} or earlier",
        damage.seq
    )]
    DamageBefore { from_seq: u64, damage: Corruption },
    /// `from_seq` falls inside a frame: a frame is cut whole or not at all.
    #[error(
        "seq {from_seq} is inside the frame holding seqs {frame_first} to {frame_last}, which is cut whole or not at all: cut from seq {frame_first} (or {})",
        frame_last + 1
    )]
    InsideFrame {
        from_seq: u64,
        frame_first: u64,
        frame_last: u64,
    },
    /// Seq 0 does not exist.
    #[error("seq 0 does not exist: seqs start at 1")]
    SeqZero,
    /// Keeping a copy of what is cut failed: nothing was cut.
    #[error("keeping a copy of {name} failed, so nothing was cut: {source}")]
    Keep {
        name: String,
        #[source]
        source: io::Error,
    },
}

fn io_err<'a>(op: &'static str, name: &'a str) -> impl FnOnce(io::Error) -> IoFailure + 'a {
    move |e| IoFailure::new(op, name, e)
}

fn read_whole(file: &Arc<dyn StorageFile>, name: &str) -> Result<Vec<u8>, IoFailure> {
    let len = file.len().map_err(io_err("reading length of", name))?;
    let n = usize::try_from(len)
        .map_err(|_| IoFailure::new("reading", name, io::Error::other("file too large")))?;
    let mut bytes = vec![0u8; n];
    file.read_exact_at(&mut bytes, 0)
        .map_err(io_err("reading", name))?;
    Ok(bytes)
}

/// Cuts the log in `storage` before `from_seq`, after handing every file
/// the cut changes (the segment holding `from_seq`, every later segment,
/// the tail record) to `keep` with its bytes as they are. Takes the log's
/// single-writer lock for as long as `storage` lives: no writer may run.
pub fn truncate_from(
    storage: &dyn Storage,
    key: &HmacKey,
    from_seq: u64,
    keep: &mut dyn FnMut(&str, &[u8]) -> io::Result<()>,
) -> Result<Truncated, RepairError> {
    if from_seq == 0 {
        return Err(RepairError::SeqZero);
    }
    storage.lock_for_writing().map_err(|e| {
        if e.kind() == io::ErrorKind::WouldBlock {
            OpenError::Locked {
                folder: storage.describe(),
            }
        } else {
            OpenError::Io(IoFailure::new("locking log folder", storage.describe(), e))
        }
    })?;
    let checks = WalkChecks {
        hmac: Some(key),
        ends: None,
    };
    let walked = walk(storage, key, &checks, &mut |_| Ok(()))?;
    let last_seq = walked.chain.next_seq - 1;
    let damage = match walked.finding {
        Some(Finding::Corrupt(c)) => c,
        // A torn tail or segment is a crash's: the next open repairs it.
        _ => return Err(RepairError::NothingToRepair { last_seq }),
    };
    if from_seq > damage.seq {
        return Err(RepairError::DamageBefore { from_seq, damage });
    }
    // The segment the log will end in: the last checked one starting at or
    // before `from_seq` (the first segment, when `from_seq` is 1).
    let Some(ends_in) = walked
        .segments
        .iter()
        .rposition(|s| s.first_seq <= from_seq)
    else {
        return Err(RepairError::DamageBefore { from_seq, damage });
    };
    let Some(segment) = walked.segments.get(ends_in) else {
        return Err(RepairError::DamageBefore { from_seq, damage });
    };
    let (offset, hash) =
        frame_boundary(segment.file.clone(), &segment.name, segment.end, from_seq)?;

    // Keep a copy of every file the cut changes before changing any.
    let names = list_segments(storage)?;
    let mut touched: Vec<String> = names
        .into_iter()
        .filter(|(first_seq, _)| *first_seq >= segment.first_seq)
        .map(|(_, name)| name)
        .collect();
    let has_tail = match storage.open(TAIL_FILE_NAME) {
        Ok(_) => true,
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(IoFailure::new("opening", TAIL_FILE_NAME, e).into()),
    };
    let mut kept = Vec::with_capacity(touched.len() + 1);
    let mut bytes_cut = 0;
    for name in touched
        .iter()
        .map(String::as_str)
        .chain(has_tail.then_some(TAIL_FILE_NAME))
    {
        let file = storage.open(name).map_err(io_err("opening", name))?;
        let bytes = read_whole(&file, name)?;
        if name != TAIL_FILE_NAME {
            bytes_cut += if name == segment.name {
                (bytes.len() as u64).saturating_sub(offset)
            } else {
                bytes.len() as u64
            };
        }
        keep(name, &bytes).map_err(|source| RepairError::Keep {
            name: name.to_owned(),
            source,
        })?;
        kept.push(name.to_owned());
    }

    // Later segments go first, the last one first: a crash part-way leaves
    // the damage still named by verify, and the cut can run again.
    touched.retain(|name| *name != segment.name);
    for name in touched.iter().rev() {
        storage
            .remove(name)
            .map_err(io_err("removing segment", name))?;
    }
    storage
        .sync_dir()
        .map_err(io_err("syncing log folder", &segment.name))?;
    segment
        .file
        .set_len(offset)
        .map_err(io_err("truncating segment", &segment.name))?;
    segment
        .file
        .sync_data()
        .map_err(io_err("syncing segment", &segment.name))?;
    let record = TailRecord {
        state: TailState::Closed,
        segment_first_seq: segment.first_seq,
        segment_len: offset,
        last_seq: from_seq - 1,
        last_hash: hash,
    };
    write_tail(storage, key, &record)
        .map_err(io_err("recording the log's new end in", TAIL_FILE_NAME))?;
    Ok(Truncated {
        from_seq,
        damage,
        segment: segment.name.clone(),
        offset,
        removed: touched,
        bytes_cut,
        kept,
    })
}

/// Where, in a segment whose good frames end at `end`, the frame starting
/// at `from_seq` begins (or `end`, when `from_seq` follows the last frame),
/// with the chain hash before it.
fn frame_boundary(
    file: Arc<dyn StorageFile>,
    name: &str,
    end: u64,
    from_seq: u64,
) -> Result<(u64, [u8; 32]), RepairError> {
    let mut header_bytes = [0u8; SEGMENT_HEADER_LEN];
    file.read_exact_at(&mut header_bytes, 0)
        .map_err(io_err("reading segment header", name))?;
    let header = SegmentHeader::decode(&header_bytes).map_err(|problem| {
        IoFailure::new(
            "reading segment header",
            name,
            io::Error::other(format!("{problem:?}")),
        )
    })?;
    let start = Chain {
        next_seq: header.first_seq,
        prev_hash: header.prev_hash,
    };
    if from_seq == header.first_seq {
        return Ok((SEGMENT_HEADER_LEN as u64, header.prev_hash));
    }
    let mut at = SEGMENT_HEADER_LEN as u64;
    let mut found = None;
    let mut inside = None;
    let scan = scan_segment(&file, at, end, start, Macs::Unchecked, |frame| {
        let first = frame.header.first_seq;
        let last = frame.header.last_seq();
        if first == from_seq {
            found.get_or_insert((at, frame.header.prev_hash));
        } else if (first..=last).contains(&from_seq) {
            inside = Some((first, last));
        }
        at += frame.len() as u64;
        Ok(())
    })
    .map_err(io_err("reading segment", name))?;
    if let Some(boundary) = found {
        return Ok(boundary);
    }
    if let Some((frame_first, frame_last)) = inside {
        return Err(RepairError::InsideFrame {
            from_seq,
            frame_first,
            frame_last,
        });
    }
    // After the segment's last good frame.
    Ok((scan.end, scan.chain.prev_hash))
}

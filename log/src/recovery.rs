//! Opening a log: find the segments, check them, and repair a torn tail.
//!
//! Crash analysis (see `docs/design.md` for the full protocol):
//! 1. A crash during a frame write leaves a partial or garbage frame at the
//!    very end of the last segment. It was never acknowledged: truncate it,
//!    fsync the file and the folder, and report it.
//! 2. A crash while creating a segment leaves a last segment whose header is
//!    short or bad and that holds no frame: remove it and report it.
//! 3. A bad frame followed by a good one cannot come from a crash: it is
//!    corruption, and open fails naming segment, offset and seq. Nothing is
//!    truncated.
//! 4. Sealed segments must be whole: any bad frame in them is corruption.

use std::sync::Arc;

use crate::error::{Corruption, IoFailure, OpenError};
use crate::format::{
    FORMAT_VERSION, GENESIS_HASH, SEGMENT_HEADER_LEN, SegmentHeader, SegmentHeaderProblem,
};
use crate::key::HmacKey;
use crate::reader::{Segment, State};
use crate::scan::{
    Chain, ScanStop, parse_segment_name, scan_segment, tail_is_zero, valid_frame_after,
};
use crate::storage::Storage;
use crate::storage::StorageFile;

/// A torn tail found at the end of the last segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornTail {
    pub segment: String,
    /// Offset where the good frames end.
    pub offset: u64,
    /// Bytes after `offset` (dropped by a repairing open).
    pub bytes: u64,
    pub reason: String,
}

/// What opening the log found and did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// A torn tail; truncated when the log was opened for writing.
    pub torn_tail: Option<TornTail>,
    /// A last segment whose creation was torn; removed when opened for writing.
    pub torn_segment: Option<String>,
    pub n_segments: usize,
    pub last_seq: u64,
}

impl RecoveryReport {
    /// A one-line description for logs, or `None` when nothing needed repair.
    #[must_use]
    pub fn warning(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(t) = &self.torn_tail {
            parts.push(format!(
                "torn tail of {} bytes at {} offset {} ({}) after seq {}",
                t.bytes, t.segment, t.offset, t.reason, self.last_seq
            ));
        }
        if let Some(s) = &self.torn_segment {
            parts.push(format!("segment {s} was cut short while being created"));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

fn io_err<'a>(op: &'static str, name: &'a str) -> impl FnOnce(std::io::Error) -> IoFailure + 'a {
    move |e| IoFailure::new(op, name, e)
}

/// The segment names in the folder, checked, in seq order.
pub(crate) fn list_segments(storage: &dyn Storage) -> Result<Vec<(u64, String)>, OpenError> {
    let folder = storage.describe();
    let names = storage
        .list()
        .map_err(io_err("listing log folder", &folder))?;
    let mut segments = Vec::with_capacity(names.len());
    for name in names {
        match parse_segment_name(&name) {
            Some(first_seq) if first_seq >= 1 => segments.push((first_seq, name)),
            _ => {
                return Err(OpenError::UnknownFile {
                    folder: folder.clone(),
                    name,
                });
            }
        }
    }
    segments.sort();
    Ok(segments)
}

fn corrupted(segment: &str, offset: u64, seq: u64, reason: impl Into<String>) -> OpenError {
    OpenError::Corrupted(Corruption {
        segment: segment.to_owned(),
        offset,
        seq,
        reason: reason.into(),
    })
}

/// Whether `bytes` start with a whole segment header: not cut short, with
/// its magic, passing its check. A whole header from a newer format counts:
/// it is refused as unsupported, never taken for a torn creation and removed.
pub(crate) fn header_is_whole(bytes: &[u8]) -> bool {
    !matches!(
        SegmentHeader::decode(bytes),
        Err(SegmentHeaderProblem::Short
            | SegmentHeaderProblem::BadMagic
            | SegmentHeaderProblem::BadCheck)
    )
}

/// Whether the last segment's creation was torn (case 2 of the crash
/// analysis): its header is missing, short or not whole, and no valid frame
/// follows it. `header` is `None` when the file is shorter than a header.
pub(crate) fn creation_torn(
    file: &Arc<dyn StorageFile>,
    len: u64,
    header: Option<&[u8]>,
) -> std::io::Result<bool> {
    if header.is_some_and(header_is_whole) {
        return Ok(false);
    }
    Ok(valid_frame_after(file, 0, len)?.is_none())
}

/// How a segment's frames end when the scan stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StopKind {
    /// Only zeros follow: space the writer reserved (or that never landed).
    Reserved,
    /// A torn tail of the last segment (case 1): truncated by a repairing open.
    Torn,
    /// Anything else (case 6): corruption.
    Corrupt,
}

/// Classifies where a scan of a segment of length `len` stopped.
pub(crate) fn classify_stop(
    file: &Arc<dyn StorageFile>,
    stop: &ScanStop,
    len: u64,
    is_last: bool,
) -> std::io::Result<StopKind> {
    if stop.torn_candidate && tail_is_zero(file, stop.offset, len)? {
        return Ok(StopKind::Reserved);
    }
    if is_last && stop.torn_candidate && valid_frame_after(file, stop.offset, len)?.is_none() {
        return Ok(StopKind::Torn);
    }
    Ok(StopKind::Corrupt)
}

/// Checks a segment header against its name and the chain so far.
pub(crate) fn check_segment_header(
    bytes: &[u8],
    name: &str,
    first_seq: u64,
    chain: &Chain,
    key: &HmacKey,
) -> Result<SegmentHeader, OpenError> {
    let header = match SegmentHeader::decode(bytes) {
        Ok(h) => h,
        Err(SegmentHeaderProblem::NewerVersion(found)) => {
            return Err(OpenError::UnsupportedVersion {
                segment: name.to_owned(),
                found,
                supported: FORMAT_VERSION,
            });
        }
        Err(problem) => {
            return Err(corrupted(
                name,
                0,
                first_seq,
                format!("bad segment header ({problem:?})"),
            ));
        }
    };
    if header.first_seq != first_seq {
        return Err(corrupted(
            name,
            0,
            first_seq,
            format!(
                "segment header says first seq {}, the file name says {first_seq}",
                header.first_seq
            ),
        ));
    }
    if first_seq != chain.next_seq {
        return Err(corrupted(
            name,
            0,
            chain.next_seq,
            format!(
                "segment starts at seq {first_seq}, expected {} (a missing or extra segment)",
                chain.next_seq
            ),
        ));
    }
    if header.key_id != key.key_id() {
        return Err(OpenError::WrongKey {
            segment: name.to_owned(),
        });
    }
    if header.prev_hash != chain.prev_hash {
        return Err(corrupted(
            name,
            0,
            first_seq,
            "segment header breaks the hash chain",
        ));
    }
    Ok(header)
}

/// Opens the log in `storage`: checks every segment and, when `repair`,
/// truncates a torn tail (or removes a torn last segment). Without `repair`
/// nothing is changed and the torn part is left out of the view.
pub(crate) fn recover(
    storage: &dyn Storage,
    key: &HmacKey,
    repair: bool,
) -> Result<(State, RecoveryReport), OpenError> {
    let names = list_segments(storage)?;
    let mut report = RecoveryReport::default();
    let mut segments = Vec::with_capacity(names.len());
    let mut chain = Chain {
        next_seq: 1,
        prev_hash: GENESIS_HASH,
    };
    let mut last_ts_ms = 0;
    let n = names.len();
    for (i, (first_seq, name)) in names.into_iter().enumerate() {
        let is_last = i + 1 == n;
        let file = storage
            .open(&name)
            .map_err(io_err("opening segment", &name))?;
        let len = file
            .len()
            .map_err(io_err("reading length of segment", &name))?;
        let mut header_bytes = [0u8; SEGMENT_HEADER_LEN];
        let header_read = if len >= SEGMENT_HEADER_LEN as u64 {
            file.read_exact_at(&mut header_bytes, 0)
                .map_err(io_err("reading segment header", &name))?;
            true
        } else {
            false
        };
        let header = header_read.then_some(&header_bytes[..]);
        if is_last
            && creation_torn(&file, len, header).map_err(io_err("scanning segment", &name))?
        {
            // Case 2: the segment's creation was torn.
            if repair {
                storage
                    .remove(&name)
                    .map_err(io_err("removing torn segment", &name))?;
                storage
                    .sync_dir()
                    .map_err(io_err("syncing log folder", &name))?;
            }
            report.torn_segment = Some(name);
            break;
        }
        if !header_read {
            return Err(corrupted(
                &name,
                0,
                first_seq,
                "segment shorter than its header",
            ));
        }
        check_segment_header(&header_bytes, &name, first_seq, &chain, key)?;
        let scan = scan_segment(&file, SEGMENT_HEADER_LEN as u64, len, chain, None, |_| {
            Ok(())
        })
        .map_err(io_err("reading segment", &name))?;
        let mut end = scan.end;
        if let Some(stop) = scan.stop {
            let kind = classify_stop(&file, &stop, len, is_last)
                .map_err(io_err("scanning segment", &name))?;
            let ScanStop {
                offset,
                seq,
                reason,
                ..
            } = stop;
            if kind == StopKind::Corrupt {
                return Err(corrupted(&name, offset, seq, reason));
            }
            if kind == StopKind::Torn {
                // Case 1: a torn tail.
                if repair {
                    file.set_len(offset)
                        .map_err(io_err("truncating torn tail of", &name))?;
                    file.sync_data().map_err(io_err("syncing segment", &name))?;
                    storage
                        .sync_dir()
                        .map_err(io_err("syncing log folder", &name))?;
                }
                report.torn_tail = Some(TornTail {
                    segment: name.clone(),
                    offset,
                    bytes: len - offset,
                    reason,
                });
            }
            // Either way the segment's frames end here. Reserved zeros (from
            // the writer's preallocation) are kept and reused by the next append.
            end = offset;
        }
        chain = scan.chain;
        last_ts_ms = last_ts_ms.max(scan.last_ts_ms);
        segments.push(Segment {
            name,
            first_seq,
            file: Arc::clone(&file),
            index: scan.index,
            len: end,
            last_seq: chain.next_seq - 1,
        });
    }
    report.n_segments = segments.len();
    report.last_seq = chain.next_seq - 1;
    let state = State {
        segments,
        last_seq: chain.next_seq - 1,
        last_hash: chain.prev_hash,
        last_ts_ms,
        poisoned: None,
    };
    Ok((state, report))
}

//! Opening a log: find the segments, check them, and repair a torn tail.
//!
//! Crash analysis (see `docs/design.md` for the full protocol):
//! 1. A crash during a frame write leaves a partial or garbage frame at the
//!    very end of the last segment, past the end the tail record (`TAIL`)
//!    names as durable (a write cut inside the trailer leaves a frame whose
//!    hash checks out and whose HMAC does not). It was never acknowledged:
//!    truncate it, fsync the file and the folder, and report it.
//! 2. A crash while creating a segment leaves a last segment whose header is
//!    short or bad and that holds no frame: remove it and report it.
//! 3. A bad frame followed by a good one cannot come from a crash: it is
//!    corruption, and open fails naming segment, offset and seq. Nothing is
//!    truncated.
//! 4. Sealed segments must be whole: any bad frame in them is corruption.
//! 5. Up to the end the tail record names, nothing can be torn (it was
//!    durable when recorded), and past a clean close nothing may follow:
//!    damage there is corruption, never a torn tail.
//!
//! The walk ([`walk`]) only looks; [`recover`] then repairs (cases 1 and 2)
//! when opening for writing, and `verify` reports.

use std::sync::Arc;

use std::collections::BTreeMap;

use crate::error::{Corruption, IoFailure, OpenError};
use crate::format::{
    FORMAT_VERSION, GENESIS_HASH, ParsedFrame, SEGMENT_HEADER_LEN, SegmentHeader,
    SegmentHeaderProblem, TailRecord, TailState,
};
use crate::key::HmacKey;
use crate::reader::{Segment, State};
use crate::scan::{
    Chain, Macs, ScanStop, SegmentScan, parse_segment_name, scan_segment, segment_name,
    tail_is_zero, valid_frame_after,
};
use crate::storage::{Storage, StorageFile};
use crate::tail::{TAIL_FILE_NAME, TailRead, read_tail};

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
    /// What the tail record said: `Closed` after a clean close, `Open`
    /// after a process that had the log open for writing stopped without
    /// closing it (a crash), `None` for a log without the record.
    pub tail: Option<TailState>,
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
        if name == TAIL_FILE_NAME {
            continue;
        }
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

/// Where a walk over the segments stopped before their end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Finding {
    /// The last segment's creation was torn (case 2); `len` is its length.
    TornCreation { segment: String, len: u64 },
    /// A torn tail of the last segment (case 1).
    TornTail(TornTail),
    /// Damage no crash explains (cases 3 to 5).
    Corrupt(Corruption),
}

/// One segment as the walk found it.
#[derive(Debug)]
pub(crate) struct Walked {
    pub(crate) name: String,
    pub(crate) first_seq: u64,
    pub(crate) file: Arc<dyn StorageFile>,
    /// Sparse index: (first seq of a frame, its offset).
    pub(crate) index: Vec<(u64, u64)>,
    /// Offset just past the last good frame.
    pub(crate) end: u64,
    pub(crate) n_frames: u64,
}

/// The result of walking every segment.
#[derive(Debug)]
pub(crate) struct Walk {
    /// Segments whose frames were checked, up to where the walk stopped
    /// (a segment whose creation was torn is left out).
    pub(crate) segments: Vec<Walked>,
    /// The chain after the last good frame.
    pub(crate) chain: Chain,
    pub(crate) last_ts_ms: u64,
    /// Events in the good frames.
    pub(crate) n_events: u64,
    pub(crate) finding: Option<Finding>,
    /// What the tail record said, when it verified.
    pub(crate) tail: Option<TailRecord>,
}

/// How far to walk and what to check on the way.
pub(crate) struct WalkChecks<'a> {
    /// Check every frame's HMAC with this key (`verify`); opening checks
    /// hashes and the chain, and HMACs only where a crash may have torn
    /// the last frame (reads check HMACs).
    pub(crate) hmac: Option<&'a HmacKey>,
    /// Caps the bytes walked per segment (a live log's acknowledged lengths).
    pub(crate) ends: Option<&'a BTreeMap<String, u64>>,
}

/// What the tail record means while walking.
fn tail_phrase(state: TailState) -> &'static str {
    match state {
        TailState::Closed => "the log was closed cleanly",
        TailState::Open => "the log was durable when last opened for writing",
    }
}

/// Walks every segment of the log in `storage`: headers, the chain, every
/// frame's hash (and HMAC, when asked), the tail record's rules. Looks
/// only: repairs are the caller's. A writer that opens or closes the log
/// while a reader walks can replace the tail record under it; the walk is
/// then done again with the new record.
pub(crate) fn walk(
    storage: &dyn Storage,
    key: &HmacKey,
    checks: &WalkChecks<'_>,
    visit: &mut dyn FnMut(&ParsedFrame<'_>) -> Result<(), String>,
) -> Result<Walk, OpenError> {
    let mut tail = read_tail(storage, key)?;
    let mut attempts = 0;
    loop {
        let walked = walk_with(storage, key, &tail, checks, visit)?;
        attempts += 1;
        if walked.finding.is_none() || attempts >= 3 {
            return Ok(walked);
        }
        let again = read_tail(storage, key)?;
        if again == tail {
            return Ok(walked);
        }
        tail = again;
    }
}

fn walk_with(
    storage: &dyn Storage,
    key: &HmacKey,
    tail_read: &TailRead,
    checks: &WalkChecks<'_>,
    visit: &mut dyn FnMut(&ParsedFrame<'_>) -> Result<(), String>,
) -> Result<Walk, OpenError> {
    let names = list_segments(storage)?;
    let (tail, tail_problem) = match &tail_read.record {
        None => (None, None),
        Some(Ok(record)) => (Some(*record), None),
        Some(Err(problem)) => (None, Some(problem.clone())),
    };
    let mut walk = Walk {
        segments: Vec::with_capacity(names.len()),
        chain: Chain {
            next_seq: 1,
            prev_hash: GENESIS_HASH,
        },
        last_ts_ms: 0,
        n_events: 0,
        finding: None,
        tail,
    };
    let mut n_events = 0u64;
    let mut visit = |frame: &ParsedFrame<'_>| {
        visit(frame)?;
        n_events += u64::from(frame.header.n_events);
        Ok(())
    };
    let mut tail_seen = false;
    let n = names.len();
    for (i, (first_seq, name)) in names.into_iter().enumerate() {
        let is_last = i + 1 == n;
        let io = |op| {
            let name = name.clone();
            move |e| OpenError::Io(IoFailure::new(op, name, e))
        };
        let at_tail = tail.filter(|t| t.segment_first_seq == first_seq);
        tail_seen |= at_tail.is_some();
        let corrupt = |offset, seq, reason: String| {
            Finding::Corrupt(Corruption {
                segment: name.clone(),
                offset,
                seq,
                reason,
            })
        };
        if let Some(t) =
            tail.filter(|t| t.state == TailState::Closed && first_seq > t.segment_first_seq)
        {
            walk.finding = Some(corrupt(
                0,
                first_seq,
                format!(
                    "the segment follows the end where the log was closed cleanly (seq {}): nothing can have been written after it",
                    t.last_seq
                ),
            ));
            break;
        }
        let file = storage.open(&name).map_err(io("opening segment"))?;
        let mut len = file.len().map_err(io("reading length of segment"))?;
        if let Some(end) = checks.ends.and_then(|ends| ends.get(&name)) {
            len = len.min(*end);
        }
        let mut header_bytes = [0u8; SEGMENT_HEADER_LEN];
        let header_read = len >= SEGMENT_HEADER_LEN as u64;
        if header_read {
            file.read_exact_at(&mut header_bytes, 0)
                .map_err(io("reading segment header"))?;
        }
        let header = header_read.then_some(&header_bytes[..]);
        if is_last
            && at_tail.is_none()
            && creation_torn(&file, len, header).map_err(io("scanning segment"))?
        {
            // Case 2: the segment's creation was torn.
            walk.finding = Some(Finding::TornCreation { segment: name, len });
            break;
        }
        if !header_read {
            walk.finding = Some(corrupt(
                0,
                first_seq,
                "segment shorter than its header".to_owned(),
            ));
            break;
        }
        match check_segment_header(&header_bytes, &name, first_seq, &walk.chain, key) {
            Ok(_) => {}
            Err(OpenError::Corrupted(c)) => {
                walk.finding = Some(Finding::Corrupt(c));
                break;
            }
            Err(other) => return Err(other),
        }
        let (scan, finding) = walk_segment(
            &file, &name, len, is_last, walk.chain, at_tail, key, checks, &mut visit,
        )
        .map_err(io("reading segment"))?;
        walk.chain = scan.chain;
        if scan.n_frames > 0 {
            walk.last_ts_ms = walk.last_ts_ms.max(scan.last_ts_ms);
        }
        walk.segments.push(Walked {
            name,
            first_seq,
            file,
            index: scan.index,
            end: scan.end,
            n_frames: scan.n_frames,
        });
        if finding.is_some() {
            walk.finding = finding;
            break;
        }
    }
    walk.n_events = n_events;
    if walk.finding.is_none() {
        if let Some(problem) = tail_problem {
            walk.finding = Some(Finding::Corrupt(Corruption {
                segment: TAIL_FILE_NAME.to_owned(),
                offset: 0,
                seq: walk.chain.next_seq,
                reason: format!(
                    "the log's tail record does not verify ({problem}): where the log ended durably is unknown"
                ),
            }));
        } else if let Some(t) = tail.filter(|_| !tail_seen) {
            walk.finding = Some(Finding::Corrupt(Corruption {
                segment: segment_name(t.segment_first_seq),
                offset: 0,
                seq: walk.chain.next_seq,
                reason: format!(
                    "the segment is missing: {} in it at seq {}",
                    tail_phrase(t.state),
                    t.last_seq
                ),
            }));
        }
    }
    Ok(walk)
}

/// Walks one segment's frames from its header to `len` and says how they
/// end: whole, or a finding. `at_tail` is the tail record when it names
/// this segment.
#[expect(
    clippy::too_many_arguments,
    reason = "one walk's state, passed down once"
)]
fn walk_segment(
    file: &Arc<dyn StorageFile>,
    name: &str,
    len: u64,
    is_last: bool,
    chain: Chain,
    at_tail: Option<TailRecord>,
    key: &HmacKey,
    checks: &WalkChecks<'_>,
    visit: &mut dyn FnMut(&ParsedFrame<'_>) -> Result<(), String>,
) -> std::io::Result<(SegmentScan, Option<Finding>)> {
    let header_end = SEGMENT_HEADER_LEN as u64;
    let corrupt = |offset, seq, reason: String| {
        Some(Finding::Corrupt(Corruption {
            segment: name.to_owned(),
            offset,
            seq,
            reason,
        }))
    };
    let every = checks.hmac.map_or(Macs::Unchecked, Macs::Every);
    // Where a crash may have torn the last frame, its HMAC is checked too:
    // a write cut inside the trailer after the hash landed leaves a frame
    // whose hash checks out and whose HMAC does not, and keeping it would
    // end the log in a frame no read accepts.
    let tearable = checks.hmac.map_or(Macs::Last(key), Macs::Every);
    let Some(t) = at_tail else {
        let macs = if is_last { tearable } else { every };
        let scan = scan_segment(file, header_end, len, chain, macs, &mut *visit)?;
        let finding = crash_rules(file, name, &scan, len, is_last)?;
        return Ok((scan, finding));
    };
    // Up to the recorded end, nothing can be torn.
    let durable = len.min(t.segment_len);
    let before = scan_segment(file, header_end, durable, chain, every, &mut *visit)?;
    let phrase = tail_phrase(t.state);
    if let Some(stop) = &before.stop {
        let reason = format!(
            "{}; {phrase} at offset {} (seq {}), so this is damage, not a torn write",
            stop.reason, t.segment_len, t.last_seq
        );
        let finding = corrupt(stop.offset, stop.seq, reason);
        return Ok((before, finding));
    }
    if len < t.segment_len {
        let reason = format!(
            "the segment ends at offset {len} but {phrase} at offset {} (seq {}): its end is missing",
            t.segment_len, t.last_seq
        );
        let finding = corrupt(len, before.chain.next_seq, reason);
        return Ok((before, finding));
    }
    if before.chain.next_seq != t.last_seq + 1 || before.chain.prev_hash != t.last_hash {
        let reason = format!(
            "the frames up to offset {} end at seq {}, but the tail record names seq {} and another hash there",
            t.segment_len,
            before.chain.next_seq - 1,
            t.last_seq
        );
        let finding = corrupt(
            t.segment_len,
            before.chain.next_seq.min(t.last_seq + 1),
            reason,
        );
        return Ok((before, finding));
    }
    if len == t.segment_len {
        return Ok((before, None));
    }
    if t.state == TailState::Closed {
        // Closing trimmed the reserved space: nothing may follow.
        let reason = format!(
            "{} bytes follow the end where the log was closed cleanly (seq {})",
            len - t.segment_len,
            t.last_seq
        );
        let finding = corrupt(t.segment_len, t.last_seq + 1, reason);
        return Ok((before, finding));
    }
    // Past the end recorded at open: appended since, and a crash may have
    // torn the last of it.
    let after = scan_segment(
        file,
        t.segment_len,
        len,
        before.chain,
        tearable,
        &mut *visit,
    )?;
    let finding = crash_rules(file, name, &after, len, is_last)?;
    let mut index = before.index;
    index.extend(after.index);
    let merged = SegmentScan {
        index,
        end: after.end,
        chain: after.chain,
        n_frames: before.n_frames + after.n_frames,
        last_ts_ms: if after.n_frames > 0 {
            after.last_ts_ms
        } else {
            before.last_ts_ms
        },
        stop: after.stop,
    };
    Ok((merged, finding))
}

/// How a segment's frames end where nothing says they were durable: zeros
/// after the last frame of the last segment are reserved space (the log
/// ends there); a bad frame at the very end of the last segment with no
/// valid frame after it is a torn tail; anything else is corruption.
fn crash_rules(
    file: &Arc<dyn StorageFile>,
    name: &str,
    scan: &SegmentScan,
    len: u64,
    is_last: bool,
) -> std::io::Result<Option<Finding>> {
    let Some(stop) = &scan.stop else {
        return Ok(None);
    };
    let ScanStop {
        offset,
        seq,
        reason,
        torn_candidate,
    } = stop.clone();
    if is_last && torn_candidate {
        if tail_is_zero(file, offset, len)? {
            return Ok(None);
        }
        if valid_frame_after(file, offset, len)?.is_none() {
            return Ok(Some(Finding::TornTail(TornTail {
                segment: name.to_owned(),
                offset,
                bytes: len - offset,
                reason,
            })));
        }
    }
    let reason = if !is_last && torn_candidate && tail_is_zero(file, offset, len)? {
        format!("{reason}: zeros where a sealed segment's frames should be")
    } else {
        reason
    };
    Ok(Some(Finding::Corrupt(Corruption {
        segment: name.to_owned(),
        offset,
        seq,
        reason,
    })))
}

/// Opens the log in `storage`: checks every segment and, when `repair`,
/// truncates a torn tail (or removes a torn last segment). Without `repair`
/// nothing is changed and the torn part is left out of the view.
pub(crate) fn recover(
    storage: &dyn Storage,
    key: &HmacKey,
    repair: bool,
) -> Result<(State, RecoveryReport), OpenError> {
    let checks = WalkChecks {
        hmac: None,
        ends: None,
    };
    let walk = walk(storage, key, &checks, &mut |_| Ok(()))?;
    let mut report = RecoveryReport {
        tail: walk.tail.map(|t| t.state),
        ..RecoveryReport::default()
    };
    match walk.finding {
        None => {}
        Some(Finding::Corrupt(c)) => return Err(OpenError::Corrupted(c)),
        Some(Finding::TornCreation { segment, .. }) => {
            if repair {
                storage
                    .remove(&segment)
                    .map_err(io_err("removing torn segment", &segment))?;
                storage
                    .sync_dir()
                    .map_err(io_err("syncing log folder", &segment))?;
            }
            report.torn_segment = Some(segment);
        }
        Some(Finding::TornTail(torn)) => {
            if repair {
                let name = &torn.segment;
                let file = walk
                    .segments
                    .last()
                    .map(|s| Arc::clone(&s.file))
                    .ok_or_else(|| corrupted(name, torn.offset, 0, "torn tail of no segment"))?;
                file.set_len(torn.offset)
                    .map_err(io_err("truncating torn tail of", name))?;
                file.sync_data().map_err(io_err("syncing segment", name))?;
                storage
                    .sync_dir()
                    .map_err(io_err("syncing log folder", name))?;
            }
            report.torn_tail = Some(torn);
        }
    }
    // Opening for writing records the log's end as durable (the tail
    // record). Whole frames past the last point a writer synced read back
    // from the page cache all the same: a writer that stopped before its
    // fdatasync, or whose fdatasync failed, left them. A crash after this
    // open would lose them while the tail record names them, and the next
    // open would refuse the log as cut short: make them durable first. (A
    // clean close synced everything; the sealed segments were synced before
    // the next one began.)
    if repair
        && report.tail != Some(TailState::Closed)
        && let Some(last) = walk.segments.last()
    {
        last.file
            .sync_data()
            .map_err(io_err("syncing segment", &last.name))?;
    }
    let chain = walk.chain;
    let mut segments = Vec::with_capacity(walk.segments.len());
    for (i, w) in walk.segments.iter().enumerate() {
        let last_seq = match walk.segments.get(i + 1) {
            Some(next) => next.first_seq - 1,
            None => chain.next_seq - 1,
        };
        segments.push(Segment {
            name: w.name.clone(),
            first_seq: w.first_seq,
            file: Arc::clone(&w.file),
            index: w.index.clone(),
            len: w.end,
            last_seq,
        });
    }
    report.n_segments = segments.len();
    report.last_seq = chain.next_seq - 1;
    let state = State {
        segments,
        last_seq: chain.next_seq - 1,
        last_hash: chain.prev_hash,
        last_ts_ms: walk.last_ts_ms,
        poisoned: None,
    };
    Ok((state, report))
}

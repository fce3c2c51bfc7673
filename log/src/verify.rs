//! Verifying a log: walk every segment and frame, checking the segment
//! headers, contiguous seqs, the blake3 hash chain, every frame's HMAC and
//! that every event decodes. Read-only: nothing is repaired or changed.

use std::collections::BTreeMap;

use crate::codec;
use crate::error::{Corruption, IoFailure, OpenError, VerifyError};
use crate::format::{GENESIS_HASH, SEGMENT_HEADER_LEN};
use crate::key::HmacKey;
use crate::recovery::{
    StopKind, TornTail, check_segment_header, classify_stop, creation_torn, list_segments,
};
use crate::scan::{Chain, scan_segment};
use crate::storage::Storage;

/// What `verify` found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerifyReport {
    pub n_segments: usize,
    pub n_frames: u64,
    pub n_events: u64,
    pub bytes: u64,
    /// Last seq that verified.
    pub last_seq: u64,
    /// A torn tail that recovery would truncate: a warning, not a failure.
    pub torn_tail: Option<TornTail>,
    /// The first corruption or tampering found; `None` when the log verifies.
    pub problem: Option<Corruption>,
}

impl VerifyReport {
    /// Whether the log verified (a torn tail alone still verifies).
    #[must_use]
    pub fn is_ok(&self) -> bool {
        self.problem.is_none()
    }
}

/// Verifies the whole log in `storage` with `key`. `ends` optionally caps the
/// bytes checked per segment (a live log's acknowledged lengths).
pub fn verify_storage(
    storage: &dyn Storage,
    key: &HmacKey,
    ends: Option<&BTreeMap<String, u64>>,
) -> Result<VerifyReport, VerifyError> {
    let names = list_segments(storage)?;
    let mut report = VerifyReport::default();
    let mut chain = Chain {
        next_seq: 1,
        prev_hash: GENESIS_HASH,
    };
    let n = names.len();
    for (i, (first_seq, name)) in names.into_iter().enumerate() {
        let is_last = i + 1 == n;
        let io = |op: &'static str| {
            let name = name.clone();
            move |e| VerifyError::Io(IoFailure::new(op, name, e))
        };
        let file = storage.open(&name).map_err(io("opening segment"))?;
        let mut len = file.len().map_err(io("reading length of segment"))?;
        if let Some(end) = ends.and_then(|ends| ends.get(&name)) {
            len = len.min(*end);
        }
        report.n_segments += 1;
        let mut header = [0u8; SEGMENT_HEADER_LEN];
        let header_read = len >= SEGMENT_HEADER_LEN as u64;
        if header_read {
            file.read_exact_at(&mut header, 0)
                .map_err(io("reading segment header"))?;
        }
        if is_last
            && creation_torn(&file, len, header_read.then_some(&header[..]))
                .map_err(io("scanning segment"))?
        {
            // As recovery sees it: the segment's creation was torn.
            report.torn_tail = Some(TornTail {
                segment: name,
                offset: 0,
                bytes: len,
                reason: "segment creation cut short".to_owned(),
            });
            break;
        }
        if !header_read {
            report.problem = Some(Corruption {
                segment: name,
                offset: 0,
                seq: chain.next_seq,
                reason: "segment shorter than its header".to_owned(),
            });
            break;
        }
        match check_segment_header(&header, &name, first_seq, &chain, key) {
            Ok(_) => {}
            Err(OpenError::Corrupted(c)) => {
                report.problem = Some(c);
                break;
            }
            Err(other) => return Err(other.into()),
        }
        let mut n_events = 0u64;
        let scan = scan_segment(
            &file,
            SEGMENT_HEADER_LEN as u64,
            len,
            chain,
            Some(key),
            |frame| {
                for (seq, bytes) in (frame.header.first_seq..).zip(frame.events()) {
                    let bytes = bytes.unwrap_or_default();
                    codec::decode(bytes)
                        .map_err(|e| format!("event at seq {seq} does not decode: {e}"))?;
                }
                n_events += u64::from(frame.header.n_events);
                Ok(())
            },
        )
        .map_err(io("reading segment"))?;
        report.n_frames += scan.n_frames;
        report.n_events += n_events;
        report.bytes += scan.end;
        chain = scan.chain;
        if let Some(stop) = scan.stop {
            let kind = classify_stop(&file, &stop, len, is_last).map_err(io("scanning segment"))?;
            if kind == StopKind::Reserved {
                // Reserved zeros after the last frame: the segment ends here.
                continue;
            }
            if kind == StopKind::Torn {
                report.torn_tail = Some(TornTail {
                    segment: name,
                    offset: stop.offset,
                    bytes: len - stop.offset,
                    reason: stop.reason,
                });
            } else {
                report.problem = Some(Corruption {
                    segment: name,
                    offset: stop.offset,
                    seq: stop.seq,
                    reason: stop.reason,
                });
            }
            break;
        }
    }
    report.last_seq = chain.next_seq - 1;
    Ok(report)
}

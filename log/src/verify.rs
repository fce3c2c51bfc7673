//! Verifying a log: walk every segment and frame, checking the segment
//! headers, contiguous seqs, the blake3 hash chain, every frame's HMAC and
//! that every event decodes, and the tail record's rules (damage before
//! the end it names is corruption, never a torn tail). Read-only: nothing
//! is repaired or changed.

use std::collections::BTreeMap;

use crate::codec;
use crate::error::{Corruption, VerifyError};
use crate::format::FRAME_VERSION_SEALED;
use crate::format::TailState;
use crate::key::HmacKey;
use crate::record;
use crate::recovery::{Finding, TornTail, WalkChecks, walk};
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
    /// What the tail record said (`None`: a log without one).
    pub tail: Option<TailState>,
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
    let checks = WalkChecks {
        hmac: Some(key),
        ends,
    };
    let walk = walk(storage, key, &checks, &mut |frame| {
        for (seq, bytes) in (frame.header.first_seq..).zip(frame.events()) {
            let bytes = bytes.unwrap_or_default();
            // A sealed record's skeleton decodes without its key: verify
            // needs no data key, before or after a purge.
            let decoded = if frame.header.version >= FRAME_VERSION_SEALED {
                record::skeleton(bytes).map(drop).map_err(|e| e.to_string())
            } else {
                codec::decode(bytes).map(drop).map_err(|e| e.to_string())
            };
            decoded.map_err(|e| format!("event at seq {seq} does not decode: {e}"))?;
        }
        Ok(())
    })?;
    let mut report = VerifyReport {
        n_segments: walk.segments.len(),
        n_frames: walk.segments.iter().map(|s| s.n_frames).sum(),
        n_events: walk.n_events,
        bytes: walk.segments.iter().map(|s| s.end).sum(),
        last_seq: walk.chain.next_seq - 1,
        tail: walk.tail.map(|t| t.state),
        ..VerifyReport::default()
    };
    match walk.finding {
        None => {}
        Some(Finding::TornCreation { segment, len }) => {
            // As recovery sees it: the segment's creation was torn.
            report.n_segments += 1;
            report.torn_tail = Some(TornTail {
                segment,
                offset: 0,
                bytes: len,
                reason: "segment creation cut short".to_owned(),
            });
        }
        Some(Finding::TornTail(torn)) => report.torn_tail = Some(torn),
        Some(Finding::Corrupt(c)) => report.problem = Some(c),
    }
    Ok(report)
}

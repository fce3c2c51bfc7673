//! Reading the shared log: events by seq range, verified frames after a
//! seq (what a replica copies), and a replica's continuity check.
//!
//! Each read is one `SELECT` over the events table, so it sees one
//! snapshot: every append transaction commits a whole frame and its head
//! update at once, and commits happen in seq order (the head lock), so a
//! snapshot holds exactly the seqs `1..=head.last_seq`. A row missing
//! below the head is damage, never a commit still in flight.

use std::ops::RangeInclusive;

use engram_log::HmacKey;
use engram_log::format::Hash;
use engram_log::{LoggedEvent, SubjectKeys};
use postgres::GenericClient;

use crate::error::PgLogError;
use crate::rows::{FrameAssembler, Head, PgFrame, ROW_COLUMNS, read_head, to_i64};
use crate::schema::damaged_or;

/// Most events one `frames_after` query reads (more when one frame is
/// larger: a frame is never returned in part).
pub const READ_EVENTS_MAX: u64 = 4096;

/// The frame bounds of the row holding `seq`, if there is one.
fn frame_of(
    client: &mut impl GenericClient,
    target: &str,
    seq: u64,
) -> Result<Option<(u64, u64)>, PgLogError> {
    let op = "reading the shared log's rows";
    let row = client
        .query_opt(
            "SELECT frame_first_seq, frame_last_seq FROM engram_events WHERE seq = $1",
            &[&to_i64(seq)],
        )
        .map_err(|e| damaged_or(target, op, &e))?;
    let Some(row) = row else {
        return Ok(None);
    };
    let first: i64 = row.try_get(0).map_err(|e| damaged_or(target, op, &e))?;
    let last: i64 = row.try_get(1).map_err(|e| damaged_or(target, op, &e))?;
    match (u64::try_from(first), u64::try_from(last)) {
        (Ok(first), Ok(last)) if first <= seq && seq <= last => Ok(Some((first, last))),
        _ => Err(PgLogError::Corrupted {
            seq,
            reason: format!("the row at seq {seq} names the frame {first}..={last}"),
        }),
    }
}

/// A row the head promises is missing.
fn missing(head: &Head, seq: u64) -> PgLogError {
    PgLogError::Truncated {
        head_last_seq: head.last_seq,
        found: format!("no row holds seq {seq}"),
    }
}

/// Reads rows `from..=upto` (seq order) into verified frames, stopping
/// after `max_frames`. The first row must start a frame. A frame cut by
/// `upto` is left out; rows missing below `upto` are damage.
fn frames_between(
    client: &mut impl GenericClient,
    target: &str,
    key: &HmacKey,
    keys: Option<&dyn SubjectKeys>,
    from: u64,
    upto: u64,
    max_frames: usize,
) -> Result<Vec<PgFrame>, PgLogError> {
    let op = "reading the shared log's rows";
    let rows = client
        .query(
            &format!(
                "SELECT {ROW_COLUMNS} FROM engram_events WHERE seq BETWEEN $1 AND $2 ORDER BY seq"
            ),
            &[&to_i64(from), &to_i64(upto)],
        )
        .map_err(|e| damaged_or(target, op, &e))?;
    let mut assembler = FrameAssembler::new(key, true).with_keys(keys);
    assembler.expect(from, None);
    let mut frames = Vec::new();
    for row in &rows {
        if let Some(frame) = assembler.push(row, target)? {
            frames.push(frame);
            if frames.len() >= max_frames {
                return Ok(frames);
            }
        }
    }
    let next = assembler.next_seq().unwrap_or(from);
    if next <= upto {
        return Err(PgLogError::Corrupted {
            seq: next,
            reason: format!(
                "no row holds seq {next}, though rows up to seq {upto} were asked for and the head is past them"
            ),
        });
    }
    Ok(frames)
}

/// Verified frames holding the seqs after `after_seq`, at most
/// `max_frames`, in seq order. Frames are whole: when `after_seq` falls
/// inside a frame, the first one starts before `after_seq + 1`. Empty when
/// the shared log ends at `after_seq`; `Rewound` when it ends before.
pub(crate) fn frames_after(
    client: &mut impl GenericClient,
    target: &str,
    key: &HmacKey,
    keys: Option<&dyn SubjectKeys>,
    after_seq: u64,
    max_frames: usize,
) -> Result<(Head, Vec<PgFrame>), PgLogError> {
    let head = read_head(client, target)?;
    if head.last_seq < after_seq {
        return Err(PgLogError::Rewound {
            shared_last_seq: head.last_seq,
            seen_last_seq: after_seq,
        });
    }
    if head.last_seq == after_seq || max_frames == 0 {
        return Ok((head, Vec::new()));
    }
    let start = after_seq + 1;
    let (frame_first, frame_last) =
        frame_of(client, target, start)?.ok_or_else(|| missing(&head, start))?;
    let upto = frame_last
        .max(start.saturating_add(READ_EVENTS_MAX - 1))
        .min(head.last_seq);
    let frames = frames_between(client, target, key, keys, frame_first, upto, max_frames)?;
    Ok((head, frames))
}

/// The events `range` (inclusive), every frame they lie in verified.
pub(crate) fn read(
    client: &mut impl GenericClient,
    target: &str,
    key: &HmacKey,
    keys: Option<&dyn SubjectKeys>,
    range: RangeInclusive<u64>,
) -> Result<(Head, Vec<LoggedEvent>), PgLogError> {
    let (first, last) = (*range.start(), *range.end());
    if first == 0 {
        return Err(PgLogError::SeqZero);
    }
    if first > last {
        return Err(PgLogError::EmptyRange { first, last });
    }
    let head = read_head(client, target)?;
    if last > head.last_seq {
        return Err(PgLogError::PastEnd {
            requested: last,
            last: head.last_seq,
        });
    }
    let (from, _) = frame_of(client, target, first)?.ok_or_else(|| missing(&head, first))?;
    let (_, upto) = frame_of(client, target, last)?.ok_or_else(|| missing(&head, last))?;
    let frames = frames_between(client, target, key, keys, from, upto, usize::MAX)?;
    let events = frames
        .into_iter()
        .flat_map(|frame| frame.events)
        .filter(|event| range.contains(&event.seq))
        .collect();
    Ok((head, events))
}

/// Checks that the shared log continues a replica whose local log ends at
/// `local_last_seq` with chain hash `local_last_hash`: the shared log
/// reaches that seq, a frame ends there, and its hash is the replica's.
pub(crate) fn check_continuity(
    client: &mut impl GenericClient,
    target: &str,
    local_last_seq: u64,
    local_last_hash: &Hash,
) -> Result<Head, PgLogError> {
    let head = read_head(client, target)?;
    if local_last_seq == 0 {
        return Ok(head);
    }
    if head.last_seq < local_last_seq {
        return Err(PgLogError::Rewound {
            shared_last_seq: head.last_seq,
            seen_last_seq: local_last_seq,
        });
    }
    let op = "reading the shared log's rows";
    let row = client
        .query_opt(
            "SELECT frame_last_seq, frame_hash FROM engram_events WHERE seq = $1",
            &[&to_i64(local_last_seq)],
        )
        .map_err(|e| damaged_or(target, op, &e))?
        .ok_or_else(|| missing(&head, local_last_seq))?;
    let frame_last: i64 = row.try_get(0).map_err(|e| damaged_or(target, op, &e))?;
    let frame_hash: Vec<u8> = row.try_get(1).map_err(|e| damaged_or(target, op, &e))?;
    if frame_last != to_i64(local_last_seq) {
        return Err(PgLogError::Diverged {
            seq: local_last_seq,
            reason: format!(
                "the replica ends at seq {local_last_seq}, inside a shared frame that ends at seq {frame_last}"
            ),
        });
    }
    if frame_hash != local_last_hash {
        return Err(PgLogError::Diverged {
            seq: local_last_seq,
            reason: "the chain hashes at this seq differ".to_owned(),
        });
    }
    Ok(head)
}

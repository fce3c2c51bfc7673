//! Rows to frames: the head row, and the events rows put back together
//! into the exact bytes of the frame they were committed in, checked.
//!
//! A frame is rebuilt from its rows as `format::write_frame` laid it out
//! (header from the rows' frame columns and count, payload from the
//! events' codec bytes with their length prefixes, then the stored hash
//! and HMAC) and checked with `format::parse_frame` (blake3 over header
//! and payload against the stored hash) and the HMAC under the key. So an
//! edited event, commit time or frame column fails the hash, and a row
//! whose hash was recomputed after the edit fails the HMAC.
//!
//! [`FrameAssembler`] takes rows in seq order and yields verified frames,
//! checking that seqs are contiguous, that the rows of one frame agree on
//! its columns, and that each frame links to the previous one's hash.

use engram_log::format::FRAME_VERSION_SEALED;
use engram_log::format::{
    FRAME_HEADER_LEN, FRAME_TRAILER_LEN, FrameHeader, GENESIS_HASH, Hash, parse_frame,
};
use engram_log::limits::FRAME_PAYLOAD_BYTES_MAX;
use engram_log::{
    Event, HmacKey, LoggedEvent, SubjectKeys, codec, open_record, record_has_words, record_skeleton,
};
use postgres::{GenericClient, Row, ToStatement};

use crate::error::PgLogError;
use crate::schema::{damaged_or, hash_from};

/// The columns every frame read selects, in this order.
pub(crate) const ROW_COLUMNS: &str = "seq, ts_ms, event, frame_first_seq, frame_last_seq, \
     format_version, frame_prev_hash, frame_hash, frame_mac";

/// The head row: where the shared log ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Head {
    pub(crate) last_seq: u64,
    pub(crate) last_hash: Hash,
    pub(crate) last_ts_ms: u64,
}

/// The query that reads the row the head names (see [`check_head_row`]).
pub(crate) const HEAD_ROW_QUERY: &str =
    "SELECT frame_last_seq, frame_hash FROM engram_events WHERE seq = $1";

/// Reads the head row (the writer reads it locked, with the row it names:
/// see `writer`).
pub(crate) fn read_head(client: &mut impl GenericClient, target: &str) -> Result<Head, PgLogError> {
    let op = "reading the shared log's head";
    let rows = client
        .query(
            "SELECT last_seq, last_hash, last_ts_ms FROM engram_head",
            &[],
        )
        .map_err(|e| damaged_or(target, op, &e))?;
    head_from_rows(&rows, target).map(|(head, _)| head)
}

/// The head in the first three columns (`last_seq, last_hash,
/// last_ts_ms`) of what a query of `engram_head` returned, checked: one
/// row, no negative seq or time, a 32-byte hash. Returns the row too, for
/// the columns a query reads beside the head.
pub(crate) fn head_from_rows<'r>(
    rows: &'r [Row],
    target: &str,
) -> Result<(Head, &'r Row), PgLogError> {
    let op = "reading the shared log's head";
    let [row] = rows else {
        return Err(PgLogError::SchemaDamaged {
            reason: format!("engram_head holds {} rows, expected 1", rows.len()),
        });
    };
    let last_seq: i64 = row.try_get(0).map_err(|e| damaged_or(target, op, &e))?;
    let last_hash: Vec<u8> = row.try_get(1).map_err(|e| damaged_or(target, op, &e))?;
    let last_ts_ms: i64 = row.try_get(2).map_err(|e| damaged_or(target, op, &e))?;
    let damaged = |what: &str| PgLogError::SchemaDamaged {
        reason: format!("engram_head holds {what}"),
    };
    let head = Head {
        last_seq: u64::try_from(last_seq).map_err(|_| damaged("a negative last_seq"))?,
        last_hash: hash_from(&last_hash).ok_or_else(|| damaged("a last_hash not 32 bytes long"))?,
        last_ts_ms: u64::try_from(last_ts_ms).map_err(|_| damaged("a negative last_ts_ms"))?,
    };
    Ok((head, row))
}

/// Checks that the row the head names is there and ends a frame whose
/// hash the head holds: a truncated or trimmed events table is told
/// before anything is appended after it.
pub(crate) fn check_head_row(
    client: &mut impl GenericClient,
    target: &str,
    head: &Head,
) -> Result<(), PgLogError> {
    check_head_row_with(client, HEAD_ROW_QUERY, target, head)
}

/// [`check_head_row`] reading the row with `row_query`: [`HEAD_ROW_QUERY`]
/// or a statement prepared from it.
pub(crate) fn check_head_row_with<Q: ToStatement + ?Sized>(
    client: &mut impl GenericClient,
    row_query: &Q,
    target: &str,
    head: &Head,
) -> Result<(), PgLogError> {
    if head.last_seq == 0 {
        return Ok(());
    }
    let op = "reading the shared log's last row";
    let seq = to_i64(head.last_seq);
    let row = client
        .query_opt(row_query, &[&seq])
        .map_err(|e| damaged_or(target, op, &e))?;
    let Some(row) = row else {
        let last_row: Option<i64> = client
            .query_one("SELECT max(seq) FROM engram_events", &[])
            .and_then(|row| row.try_get(0))
            .map_err(|e| damaged_or(target, op, &e))?;
        return Err(PgLogError::Truncated {
            head_last_seq: head.last_seq,
            found: match last_row {
                None => "the events table is empty".to_owned(),
                Some(last) if last < seq => format!("its rows end at seq {last}"),
                Some(_) => format!("no row holds seq {}", head.last_seq),
            },
        });
    };
    let frame_last: i64 = row.try_get(0).map_err(|e| damaged_or(target, op, &e))?;
    let frame_hash: Vec<u8> = row.try_get(1).map_err(|e| damaged_or(target, op, &e))?;
    if !ends_head_frame(head, Some(frame_last), Some(frame_hash.as_slice())) {
        return Err(PgLogError::Corrupted {
            seq: head.last_seq,
            reason: "the head's last hash is not the hash of the frame ending at its last seq"
                .to_owned(),
        });
    }
    Ok(())
}

/// Whether the row the head names, read as `frame_last_seq, frame_hash`
/// (`None` when there is no such row), ends a frame whose hash the head
/// holds: what [`check_head_row`] accepts.
pub(crate) fn ends_head_frame(
    head: &Head,
    frame_last_seq: Option<i64>,
    frame_hash: Option<&[u8]>,
) -> bool {
    frame_last_seq == Some(to_i64(head.last_seq)) && frame_hash == Some(&head.last_hash[..])
}

/// A seq as the database stores it. Seqs stay far below `i64::MAX`.
pub(crate) fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// One events row as read.
#[derive(Debug, Clone)]
struct EventRow {
    seq: u64,
    ts_ms: u64,
    event: Vec<u8>,
    frame_first_seq: u64,
    frame_last_seq: u64,
    format_version: i16,
    prev_hash: Vec<u8>,
    hash: Vec<u8>,
    mac: Vec<u8>,
}

impl EventRow {
    fn from_row(row: &Row, target: &str) -> Result<Self, PgLogError> {
        let op = "reading the shared log's rows";
        let get_u64 = |idx: usize, what: &str| -> Result<u64, PgLogError> {
            let value: i64 = row.try_get(idx).map_err(|e| damaged_or(target, op, &e))?;
            u64::try_from(value).map_err(|_| PgLogError::Corrupted {
                seq: 0,
                reason: format!("a row holds a negative {what}"),
            })
        };
        let seq = get_u64(0, "seq")?;
        let with_seq = |e: PgLogError| match e {
            PgLogError::Corrupted { reason, .. } => PgLogError::Corrupted { seq, reason },
            other => other,
        };
        Ok(Self {
            seq,
            ts_ms: get_u64(1, "commit time").map_err(with_seq)?,
            event: row.try_get(2).map_err(|e| damaged_or(target, op, &e))?,
            frame_first_seq: get_u64(3, "frame first seq").map_err(with_seq)?,
            frame_last_seq: get_u64(4, "frame last seq").map_err(with_seq)?,
            format_version: row.try_get(5).map_err(|e| damaged_or(target, op, &e))?,
            prev_hash: row.try_get(6).map_err(|e| damaged_or(target, op, &e))?,
            hash: row.try_get(7).map_err(|e| damaged_or(target, op, &e))?,
            mac: row.try_get(8).map_err(|e| damaged_or(target, op, &e))?,
        })
    }

    /// Whether `other` carries the same frame columns.
    fn same_frame(&self, other: &EventRow) -> bool {
        self.ts_ms == other.ts_ms
            && self.frame_first_seq == other.frame_first_seq
            && self.frame_last_seq == other.frame_last_seq
            && self.format_version == other.format_version
            && self.prev_hash == other.prev_hash
            && self.hash == other.hash
            && self.mac == other.mac
    }
}

/// A frame read from the shared log, verified: its exact bytes (as a
/// segment log holds them) and its events.
#[derive(Debug, Clone, PartialEq)]
pub struct PgFrame {
    pub first_seq: u64,
    pub last_seq: u64,
    /// The frame's commit time, unix milliseconds.
    pub ts_ms: u64,
    /// The previous frame's hash (the chain link).
    pub prev_hash: Hash,
    /// This frame's hash: the chain hash after `last_seq`.
    pub hash: Hash,
    /// Header, payload, hash and HMAC: what `Log::append_frame` takes.
    pub bytes: Vec<u8>,
    /// The frame's events, decoded, in seq order.
    pub events: Vec<LoggedEvent>,
}

/// Puts rows (in seq order) back together into verified frames.
#[derive(Debug)]
pub(crate) struct FrameAssembler<'k> {
    key: &'k HmacKey,
    /// The next seq expected; `None` until the first row (a read may start
    /// anywhere).
    next_seq: Option<u64>,
    /// The hash the next frame must link to; `None` until known.
    prev_hash: Option<Hash>,
    /// Rows of the frame being gathered.
    pending: Vec<EventRow>,
    pending_bytes: usize,
    /// Whether to decode events (verify checks they decode but keeps none).
    keep_events: bool,
    /// The keys a sealed frame's words are opened with when events are
    /// kept (a log in the clear has none).
    keys: Option<&'k dyn SubjectKeys>,
}

impl<'k> FrameAssembler<'k> {
    /// An assembler that takes its first row as it comes (see
    /// [`FrameAssembler::expect`]); a frame at seq 1 links to genesis.
    pub(crate) fn new(key: &'k HmacKey, keep_events: bool) -> Self {
        Self {
            key,
            next_seq: None,
            prev_hash: None,
            pending: Vec::new(),
            pending_bytes: 0,
            keep_events,
            keys: None,
        }
    }

    /// Opens the words of sealed frames' events with `keys`.
    pub(crate) fn with_keys(mut self, keys: Option<&'k dyn SubjectKeys>) -> Self {
        self.keys = keys;
        self
    }

    /// Requires the next frame to start at `seq` and link to `prev_hash`.
    pub(crate) fn expect(&mut self, seq: u64, prev_hash: Option<Hash>) {
        self.next_seq = Some(seq);
        self.prev_hash = prev_hash;
    }

    /// The seq the next row must hold, once known.
    pub(crate) fn next_seq(&self) -> Option<u64> {
        self.next_seq
    }

    /// Whether rows of an unfinished frame are held.
    pub(crate) fn has_partial(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Takes the next row; returns the frame it completes, if any.
    pub(crate) fn push(&mut self, row: &Row, target: &str) -> Result<Option<PgFrame>, PgLogError> {
        let row = EventRow::from_row(row, target)?;
        let expected = self.next_seq.unwrap_or(row.seq);
        if row.seq != expected {
            let reason = if row.seq > expected {
                let gone = if row.seq - 1 == expected {
                    format!("seq {expected} is missing")
                } else {
                    format!("seqs {expected}..={} are missing", row.seq - 1)
                };
                if expected == 1 {
                    format!("the rows start at seq {}: {gone}", row.seq)
                } else {
                    format!(
                        "the rows jump from seq {} to seq {}: {gone}",
                        expected - 1,
                        row.seq
                    )
                }
            } else {
                format!("seq {} repeats", row.seq)
            };
            return Err(PgLogError::Corrupted {
                seq: expected,
                reason,
            });
        }
        let corrupt = |reason: String| PgLogError::Corrupted {
            seq: row.frame_first_seq.min(row.seq),
            reason,
        };
        if let Some(first) = self.pending.first() {
            if !first.same_frame(&row) {
                return Err(PgLogError::Corrupted {
                    seq: first.frame_first_seq,
                    reason: format!(
                        "the row at seq {} disagrees with the other rows of its frame (frame columns or commit time differ)",
                        row.seq
                    ),
                });
            }
        } else if row.frame_first_seq != row.seq {
            return Err(corrupt(format!(
                "the row at seq {} should start a frame but names a frame starting at seq {}",
                row.seq, row.frame_first_seq
            )));
        }
        if row.frame_last_seq < row.seq || row.frame_last_seq < row.frame_first_seq {
            return Err(corrupt(format!(
                "the row at seq {} names a frame ending at seq {}",
                row.seq, row.frame_last_seq
            )));
        }
        self.pending_bytes += row.event.len() + 4;
        if self.pending_bytes > FRAME_PAYLOAD_BYTES_MAX {
            return Err(corrupt(format!(
                "the frame starting at seq {} holds more than {FRAME_PAYLOAD_BYTES_MAX} bytes of events",
                row.frame_first_seq
            )));
        }
        self.next_seq = Some(row.seq + 1);
        let done = row.seq == row.frame_last_seq;
        self.pending.push(row);
        if !done {
            return Ok(None);
        }
        let rows = std::mem::take(&mut self.pending);
        self.pending_bytes = 0;
        self.finish(rows).map(Some)
    }

    /// Rebuilds and checks the frame of `rows` (one whole frame).
    fn finish(&mut self, rows: Vec<EventRow>) -> Result<PgFrame, PgLogError> {
        let Some(first) = rows.first() else {
            unreachable!("a frame is finished by its last row");
        };
        let first_seq = first.frame_first_seq;
        let last_seq = first.frame_last_seq;
        let ts_ms = first.ts_ms;
        let corrupt = |reason: String| PgLogError::Corrupted {
            seq: first_seq,
            reason: format!("frame {first_seq}..={last_seq}: {reason}"),
        };
        let prev_hash = hash_from(&first.prev_hash)
            .ok_or_else(|| corrupt("previous hash is not 32 bytes".into()))?;
        let hash = hash_from(&first.hash).ok_or_else(|| corrupt("hash is not 32 bytes".into()))?;
        let mac = hash_from(&first.mac).ok_or_else(|| corrupt("HMAC is not 32 bytes".into()))?;
        let version = u16::try_from(first.format_version).map_err(|_| {
            corrupt(format!(
                "format version {} is invalid",
                first.format_version
            ))
        })?;
        let n_events = u32::try_from(rows.len()).map_err(|_| corrupt("too many events".into()))?;
        let payload_len: usize = rows.iter().map(|r| r.event.len() + 4).sum();
        let payload_len_u32 =
            u32::try_from(payload_len).map_err(|_| corrupt("payload too large".into()))?;
        let header = FrameHeader {
            version,
            first_seq,
            n_events,
            payload_len: payload_len_u32,
            ts_ms,
            prev_hash,
        };
        let mut bytes = Vec::with_capacity(FRAME_HEADER_LEN + payload_len + FRAME_TRAILER_LEN);
        bytes.extend_from_slice(&header.encode());
        for row in &rows {
            engram_log::format::push_event(&mut bytes, &row.event);
        }
        bytes.extend_from_slice(&hash);
        bytes.extend_from_slice(&mac);
        let parsed = parse_frame(&bytes).map_err(|problem| {
            corrupt(match problem {
                engram_log::format::FrameProblem::HashMismatch => {
                    "frame hash mismatch: an event, its commit time or a frame column was edited"
                        .to_owned()
                }
                other => other.to_string(),
            })
        })?;
        if !parsed.mac_matches(self.key) {
            return Err(corrupt(
                "HMAC mismatch: the frame was altered and its hash recomputed (or it was sealed with another key)"
                    .to_owned(),
            ));
        }
        let expected_prev = match self.prev_hash {
            Some(hash) => Some(hash),
            None if first_seq == 1 => Some(GENESIS_HASH),
            None => None,
        };
        if let Some(expected_prev) = expected_prev
            && expected_prev != prev_hash
        {
            return Err(corrupt(
                "hash chain broken: the frame's previous-hash link is not the previous frame's hash"
                    .to_owned(),
            ));
        }
        self.prev_hash = Some(hash);
        let mut events = Vec::new();
        for row in &rows {
            let (event, erased) = self.decode(version, row.seq, &row.event)?;
            if self.keep_events {
                events.push(LoggedEvent {
                    erased,
                    seq: row.seq,
                    ts_ms,
                    event,
                });
            }
        }
        Ok(PgFrame {
            first_seq,
            last_seq,
            ts_ms,
            prev_hash,
            hash,
            bytes,
            events,
        })
    }
}

impl FrameAssembler<'_> {
    /// Decodes the event at `seq` of a frame of `version`: in the clear,
    /// or a record (its skeleton alone when events are not kept; its words
    /// opened with the subject's key when they are, erased once a purge
    /// destroyed it).
    fn decode(&self, version: u16, seq: u64, bytes: &[u8]) -> Result<(Event, bool), PgLogError> {
        let decode_failed = |reason: String| PgLogError::Decode { seq, reason };
        if version < FRAME_VERSION_SEALED {
            let event = codec::decode(bytes).map_err(|e| decode_failed(e.to_string()))?;
            return Ok((event, false));
        }
        if !self.keep_events || !record_has_words(bytes) {
            let event = record_skeleton(bytes).map_err(|e| decode_failed(e.to_string()))?;
            return Ok((event, false));
        }
        let keys = self.keys.ok_or_else(|| {
            PgLogError::Keys(format!(
                "seq {seq} holds sealed words and this connection has no master key to open them"
            ))
        })?;
        let key = keys.key(seq).map_err(|e| PgLogError::Keys(e.to_string()))?;
        open_record(bytes, seq, Some(&key)).map_err(|e| decode_failed(e.to_string()))
    }
}

//! The on-disk byte layout of segments and frames. Bytes only: this module
//! never decodes an event payload (that is `codec`'s job).
//!
//! ```text
//! segment = segment header (72 bytes) + frame*
//!
//! segment header
//!   0..8    magic "ENGRMSEG"
//!   8..12   format version u32
//!  12..16   flags u32 (zero)
//!  16..24   first seq u64 (equals the number in the file name)
//!  24..32   key id (HMAC of a constant: tells a wrong key from tampering)
//!  32..64   chain hash before this segment (the previous frame's hash; zero at seq 1)
//!  64..72   check: first 8 bytes of blake3(bytes 0..64)
//!
//! frame = header (64) + payload + trailer (64)
//!   0..4    magic "EGFR"
//!   4..6    format version u16
//!   6..8    flags u16 (zero)
//!   8..16   first seq u64
//!  16..20   event count u32 (at least 1)
//!  20..24   payload length u32
//!  24..32   commit time, unix milliseconds u64
//!  32..64   previous frame hash (the chain link)
//!   payload: per event, length u32 + encoded event
//!   trailer: blake3(header + payload) (32) + HMAC-SHA256(first seq, last seq, hash) (32)
//! ```
//!
//! All integers are little endian.

use crate::key::HmacKey;
use crate::limits::FRAME_PAYLOAD_BYTES_MAX;

/// Magic at the start of every segment file.
pub const SEGMENT_MAGIC: [u8; 8] = *b"ENGRMSEG";
/// Magic at the start of every frame.
pub const FRAME_MAGIC: [u8; 4] = *b"EGFR";
/// The newest format version this build reads: frames of version 1 hold
/// events in the clear (`codec`); frames of version 2, written by a log
/// opened with a key store, hold records whose words are sealed
/// (`record`). Segment headers are written with [`SEGMENT_VERSION`].
pub const FORMAT_VERSION: u32 = 2;
/// The version of frames whose events are in the clear.
pub const FRAME_VERSION_PLAIN: u16 = 1;
/// The version of frames whose records seal their words.
pub const FRAME_VERSION_SEALED: u16 = 2;
/// The segment header's layout version (unchanged by sealing).
pub const SEGMENT_VERSION: u32 = 1;
/// Segment header length.
pub const SEGMENT_HEADER_LEN: usize = 72;
/// Frame header length.
pub const FRAME_HEADER_LEN: usize = 64;
/// Frame trailer length: hash + HMAC.
pub const FRAME_TRAILER_LEN: usize = 64;
/// Bytes a frame adds around its payload.
pub const FRAME_OVERHEAD: usize = FRAME_HEADER_LEN + FRAME_TRAILER_LEN;
/// Length prefix of each event inside a payload.
pub const EVENT_LEN_PREFIX: usize = 4;

const _: () = assert!(SEGMENT_HEADER_LEN == 8 + 4 + 4 + 8 + 8 + 32 + 8);
const _: () = assert!(FRAME_HEADER_LEN == 4 + 2 + 2 + 8 + 4 + 4 + 8 + 32);
const _: () = assert!(FRAME_TRAILER_LEN == 32 + 32);
const _: () = assert!(FRAME_PAYLOAD_BYTES_MAX < u32::MAX as usize);

/// A 32-byte hash.
pub type Hash = [u8; 32];

/// The chain hash before seq 1.
pub const GENESIS_HASH: Hash = [0u8; 32];

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let slice = bytes.get(at..at + 4)?;
    Some(u32::from_le_bytes(slice.try_into().ok()?))
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    let slice = bytes.get(at..at + 2)?;
    Some(u16::from_le_bytes(slice.try_into().ok()?))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    let slice = bytes.get(at..at + 8)?;
    Some(u64::from_le_bytes(slice.try_into().ok()?))
}

fn array_at<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..at + N)?.try_into().ok()
}

/// The fixed header at the start of a segment file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentHeader {
    pub version: u32,
    pub first_seq: u64,
    pub key_id: [u8; 8],
    pub prev_hash: Hash,
}

/// Why a segment header was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SegmentHeaderProblem {
    /// Fewer bytes than a header.
    Short,
    /// Wrong magic: not a segment.
    BadMagic,
    /// The check bytes do not match.
    BadCheck,
    /// Written by a newer format.
    NewerVersion(u32),
}

impl SegmentHeader {
    /// The header's bytes.
    #[must_use]
    pub fn encode(&self) -> [u8; SEGMENT_HEADER_LEN] {
        let mut out = [0u8; SEGMENT_HEADER_LEN];
        let mut w = Writer::new(&mut out);
        w.put(&SEGMENT_MAGIC);
        w.put(&self.version.to_le_bytes());
        w.put(&0u32.to_le_bytes());
        w.put(&self.first_seq.to_le_bytes());
        w.put(&self.key_id);
        w.put(&self.prev_hash);
        let check = blake3::hash(w.written());
        let check_bytes = check.as_bytes();
        w.put(check_bytes.get(..8).unwrap_or(&[0u8; 8]));
        debug_assert_eq!(w.len(), SEGMENT_HEADER_LEN);
        out
    }

    /// Parses and checks a header.
    pub fn decode(bytes: &[u8]) -> Result<Self, SegmentHeaderProblem> {
        let header = bytes
            .get(..SEGMENT_HEADER_LEN)
            .ok_or(SegmentHeaderProblem::Short)?;
        if header.get(..8) != Some(&SEGMENT_MAGIC[..]) {
            return Err(SegmentHeaderProblem::BadMagic);
        }
        let body = header.get(..64).ok_or(SegmentHeaderProblem::Short)?;
        let check = blake3::hash(body);
        if header.get(64..72) != check.as_bytes().get(..8) {
            return Err(SegmentHeaderProblem::BadCheck);
        }
        let version = u32_at(header, 8).ok_or(SegmentHeaderProblem::Short)?;
        if version > FORMAT_VERSION || version == 0 {
            return Err(SegmentHeaderProblem::NewerVersion(version));
        }
        Ok(Self {
            version,
            first_seq: u64_at(header, 16).ok_or(SegmentHeaderProblem::Short)?,
            key_id: array_at(header, 24).ok_or(SegmentHeaderProblem::Short)?,
            prev_hash: array_at(header, 32).ok_or(SegmentHeaderProblem::Short)?,
        })
    }
}

/// The fixed header at the start of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeader {
    pub version: u16,
    pub first_seq: u64,
    pub n_events: u32,
    pub payload_len: u32,
    pub ts_ms: u64,
    pub prev_hash: Hash,
}

impl FrameHeader {
    /// Last seq the frame holds. (`decode` refuses a header whose last
    /// seq would pass `u64::MAX`; a header built by hand saturates.)
    #[must_use]
    pub fn last_seq(&self) -> u64 {
        debug_assert!(self.n_events >= 1);
        self.first_seq
            .saturating_add(u64::from(self.n_events))
            .saturating_sub(1)
    }

    /// Total frame length on disk.
    #[must_use]
    pub fn frame_len(&self) -> usize {
        FRAME_OVERHEAD + self.payload_len as usize
    }

    /// The header's bytes.
    #[must_use]
    pub fn encode(&self) -> [u8; FRAME_HEADER_LEN] {
        let mut out = [0u8; FRAME_HEADER_LEN];
        let mut w = Writer::new(&mut out);
        w.put(&FRAME_MAGIC);
        w.put(&self.version.to_le_bytes());
        w.put(&0u16.to_le_bytes());
        w.put(&self.first_seq.to_le_bytes());
        w.put(&self.n_events.to_le_bytes());
        w.put(&self.payload_len.to_le_bytes());
        w.put(&self.ts_ms.to_le_bytes());
        w.put(&self.prev_hash);
        debug_assert_eq!(w.len(), FRAME_HEADER_LEN);
        out
    }

    /// Parses a frame header without checking the hash (see [`parse_frame`]).
    pub fn decode(bytes: &[u8]) -> Result<Self, FrameProblem> {
        let header = bytes.get(..FRAME_HEADER_LEN).ok_or(FrameProblem::Short)?;
        if header.get(..4) != Some(&FRAME_MAGIC[..]) {
            return Err(FrameProblem::BadMagic);
        }
        let version = u16_at(header, 4).ok_or(FrameProblem::Short)?;
        let parsed = Self {
            version,
            first_seq: u64_at(header, 8).ok_or(FrameProblem::Short)?,
            n_events: u32_at(header, 16).ok_or(FrameProblem::Short)?,
            payload_len: u32_at(header, 20).ok_or(FrameProblem::Short)?,
            ts_ms: u64_at(header, 24).ok_or(FrameProblem::Short)?,
            prev_hash: array_at(header, 32).ok_or(FrameProblem::Short)?,
        };
        if parsed.payload_len as usize > FRAME_PAYLOAD_BYTES_MAX {
            return Err(FrameProblem::PayloadTooLarge(parsed.payload_len));
        }
        if parsed.n_events == 0 {
            return Err(FrameProblem::NoEvents);
        }
        if parsed
            .first_seq
            .checked_add(u64::from(parsed.n_events) - 1)
            .is_none()
        {
            return Err(FrameProblem::SeqOverflow);
        }
        Ok(parsed)
    }
}

/// Why bytes at an offset are not a valid frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameProblem {
    /// The bytes end before the frame does.
    Short,
    BadMagic,
    NoEvents,
    /// The frame's last seq would be past `u64::MAX`.
    SeqOverflow,
    PayloadTooLarge(u32),
    /// A frame version this build does not know (checked after the hash, so
    /// only a genuine newer frame reports it).
    NewerVersion(u16),
    HashMismatch,
    /// The event lengths inside the payload do not add up to its length or count.
    BadPayload,
}

impl std::fmt::Display for FrameProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameProblem::Short => write!(f, "frame cut short"),
            FrameProblem::BadMagic => write!(f, "no frame magic"),
            FrameProblem::NoEvents => write!(f, "frame header claims zero events"),
            FrameProblem::SeqOverflow => {
                write!(f, "frame header claims seqs past the largest there can be")
            }
            FrameProblem::PayloadTooLarge(n) => {
                write!(
                    f,
                    "frame header claims a payload of {n} bytes, over the limit"
                )
            }
            FrameProblem::NewerVersion(v) => {
                write!(f, "frame format version {v} is newer than this engram")
            }
            FrameProblem::HashMismatch => write!(f, "frame hash mismatch"),
            FrameProblem::BadPayload => write!(
                f,
                "event lengths in the payload do not match the frame header"
            ),
        }
    }
}

/// A frame parsed out of a byte buffer whose blake3 hash checked out.
#[derive(Debug, Clone, Copy)]
pub struct ParsedFrame<'a> {
    pub header: FrameHeader,
    pub payload: &'a [u8],
    pub hash: Hash,
    pub mac: Hash,
}

impl ParsedFrame<'_> {
    /// Total length on disk.
    #[must_use]
    pub fn len(&self) -> usize {
        self.header.frame_len()
    }

    /// Frames are never empty; present for clippy's `len_without_is_empty`.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The encoded events, in seq order.
    #[must_use]
    pub fn events(&self) -> PayloadEvents<'_> {
        PayloadEvents { rest: self.payload }
    }

    /// Checks the HMAC with `key`.
    #[must_use]
    pub fn mac_matches(&self, key: &HmacKey) -> bool {
        key.frame_mac_matches(
            self.header.first_seq,
            self.header.last_seq(),
            &self.hash,
            &self.mac,
        )
    }
}

/// Parses the frame at the start of `bytes`, checking magic, lengths, the
/// blake3 hash and the payload's event lengths. Chain, seq and HMAC checks
/// are the caller's (they need context).
pub fn parse_frame(bytes: &[u8]) -> Result<ParsedFrame<'_>, FrameProblem> {
    let header = FrameHeader::decode(bytes)?;
    let frame_len = header.frame_len();
    let frame = bytes.get(..frame_len).ok_or(FrameProblem::Short)?;
    let payload_end = FRAME_HEADER_LEN + header.payload_len as usize;
    let hashed = frame.get(..payload_end).ok_or(FrameProblem::Short)?;
    let stored_hash: Hash = array_at(frame, payload_end).ok_or(FrameProblem::Short)?;
    let mac: Hash = array_at(frame, payload_end + 32).ok_or(FrameProblem::Short)?;
    let hash: Hash = blake3::hash(hashed).into();
    if hash != stored_hash {
        return Err(FrameProblem::HashMismatch);
    }
    if u32::from(header.version) > FORMAT_VERSION {
        return Err(FrameProblem::NewerVersion(header.version));
    }
    let payload = frame
        .get(FRAME_HEADER_LEN..payload_end)
        .ok_or(FrameProblem::Short)?;
    let mut count = 0u32;
    let mut events = PayloadEvents { rest: payload };
    for event in &mut events {
        if event.is_none() {
            return Err(FrameProblem::BadPayload);
        }
        count += 1;
    }
    if count != header.n_events {
        return Err(FrameProblem::BadPayload);
    }
    Ok(ParsedFrame {
        header,
        payload,
        hash,
        mac,
    })
}

/// Iterates the length-prefixed events of a payload. Yields `None` once (and
/// then stops) when a length runs past the end.
#[derive(Debug, Clone)]
pub struct PayloadEvents<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for PayloadEvents<'a> {
    type Item = Option<&'a [u8]>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let len = u32_at(self.rest, 0).map(|n| n as usize);
        let event = len.and_then(|len| self.rest.get(EVENT_LEN_PREFIX..EVENT_LEN_PREFIX + len));
        match (len, event) {
            (Some(len), Some(event)) => {
                self.rest = self.rest.get(EVENT_LEN_PREFIX + len..).unwrap_or_default();
                Some(Some(event))
            }
            _ => {
                self.rest = &[];
                Some(None)
            }
        }
    }
}

/// The length-prefixed events of a payload (a frame's, or a batch's on
/// its way to the writer); `None` for a cut-short one.
#[must_use]
pub fn payload_events(payload: &[u8]) -> PayloadEvents<'_> {
    PayloadEvents { rest: payload }
}

/// Whether the log in `dir` seals its words: its first frame (in its first
/// segment) is of [`FRAME_VERSION_SEALED`]. A log is sealed from its first
/// frame or never, so a store that lost its key store is told apart from
/// one written in the clear. `false` for an empty or unreadable log (the
/// open that follows reports what is wrong with it).
#[must_use]
pub fn dir_holds_sealed_frames(dir: &std::path::Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let first = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "seg"))
        .min();
    let Some(first) = first else {
        return false;
    };
    let mut header = [0u8; SEGMENT_HEADER_LEN + FRAME_HEADER_LEN];
    let read = std::fs::File::open(first).and_then(|mut file| {
        use std::io::Read as _;
        file.read_exact(&mut header)
    });
    read.is_ok()
        && FrameHeader::decode(header.get(SEGMENT_HEADER_LEN..).unwrap_or_default())
            .is_ok_and(|frame| frame.version >= FRAME_VERSION_SEALED)
}

/// Appends one length-prefixed event to a payload buffer.
pub fn push_event(payload: &mut Vec<u8>, event: &[u8]) {
    let len = u32::try_from(event.len()).unwrap_or(u32::MAX);
    assert!(
        (len as usize) == event.len(),
        "event length checked against EVENT_BYTES_MAX before framing"
    );
    payload.extend_from_slice(&len.to_le_bytes());
    payload.extend_from_slice(event);
}

/// Appends a complete frame of version [`FRAME_VERSION_PLAIN`] (events in
/// the clear) to `out` and returns its hash, the next chain link.
pub fn write_frame(
    out: &mut Vec<u8>,
    key: &HmacKey,
    first_seq: u64,
    n_events: u32,
    ts_ms: u64,
    prev_hash: &Hash,
    payload: &[u8],
) -> Hash {
    write_frame_version(
        out,
        FRAME_VERSION_PLAIN,
        key,
        first_seq,
        n_events,
        ts_ms,
        prev_hash,
        payload,
    )
}

/// Appends a complete frame (header, payload, hash, HMAC) of `version` to
/// `out` and returns its hash, the next chain link.
#[allow(clippy::too_many_arguments)]
pub fn write_frame_version(
    out: &mut Vec<u8>,
    version: u16,
    key: &HmacKey,
    first_seq: u64,
    n_events: u32,
    ts_ms: u64,
    prev_hash: &Hash,
    payload: &[u8],
) -> Hash {
    assert!(n_events >= 1, "a frame holds at least one event");
    assert!(
        payload.len() <= FRAME_PAYLOAD_BYTES_MAX,
        "frame payload over the limit"
    );
    let header = FrameHeader {
        version,
        first_seq,
        n_events,
        payload_len: payload.len() as u32,
        ts_ms,
        prev_hash: *prev_hash,
    };
    let start = out.len();
    out.extend_from_slice(&header.encode());
    out.extend_from_slice(payload);
    let hashed = out.get(start..).unwrap_or_default();
    let hash: Hash = blake3::hash(hashed).into();
    let mac = key.frame_mac(first_seq, header.last_seq(), &hash);
    out.extend_from_slice(&hash);
    out.extend_from_slice(&mac);
    debug_assert_eq!(out.len() - start, header.frame_len());
    hash
}

/// A tiny cursor for building fixed-size headers.
/// Magic at the start of the tail record (`log/TAIL`).
pub const TAIL_MAGIC: [u8; 8] = *b"ENGRTAIL";
/// The tail record's layout version.
pub const TAIL_VERSION: u32 = 1;
/// Bytes of the tail record covered by its HMAC.
pub const TAIL_BODY_LEN: usize = 72;
/// Tail record length: body + HMAC.
pub const TAIL_LEN: usize = TAIL_BODY_LEN + 32;
/// Domain string of the tail record's HMAC.
const TAIL_MAC_DOMAIN: &[u8] = b"engram log tail v1";

const _: () = assert!(TAIL_BODY_LEN == 8 + 4 + 4 + 8 + 8 + 8 + 32);

/// Whether the log was closed at its tail record's point, or opened for
/// writing there (and may have grown, or crashed, since).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TailState {
    /// Opened for writing: everything up to the point was durable then.
    /// Past it, a crash can have left a torn frame or reserved zeros.
    Open,
    /// Closed cleanly: the log ends exactly at the point, and nothing can
    /// be torn (closing synced the frames and gave reserved space back).
    Closed,
}

impl TailState {
    fn code(self) -> u32 {
        match self {
            TailState::Open => 1,
            TailState::Closed => 2,
        }
    }
}

/// The log's durable end, kept beside the segments in `log/TAIL` (see
/// `docs/design.md`, "The tail record"):
///
/// ```text
///   0..8    magic "ENGRTAIL"
///   8..12   layout version u32 (1)
///  12..16   state u32: 1 open (opened for writing here), 2 closed (ended here)
///  16..24   first seq of the segment the log ended in (names the file)
///  24..32   that segment's length in bytes, header included: where its frames end
///  32..40   last seq (first seq - 1 when the segment holds no frame)
///  40..72   chain hash after the last seq (the last frame's hash)
///  72..104  HMAC-SHA256(key, "engram log tail v1" + bytes 0..72)
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TailRecord {
    pub state: TailState,
    pub segment_first_seq: u64,
    pub segment_len: u64,
    pub last_seq: u64,
    pub last_hash: Hash,
}

/// Why a tail record was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TailProblem {
    /// Not `TAIL_LEN` bytes.
    Length(usize),
    BadMagic,
    /// A layout version this engram does not know.
    Version(u32),
    BadState(u32),
    /// The HMAC does not match: altered, or written with another key.
    BadMac,
}

impl std::fmt::Display for TailProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TailProblem::Length(n) => write!(f, "it is {n} bytes, expected {TAIL_LEN}"),
            TailProblem::BadMagic => write!(f, "no tail magic"),
            TailProblem::Version(v) => write!(f, "unknown layout version {v}"),
            TailProblem::BadState(s) => write!(f, "unknown state {s}"),
            TailProblem::BadMac => write!(
                f,
                "HMAC mismatch (the record was altered, or written with another key)"
            ),
        }
    }
}

impl TailRecord {
    /// The record's bytes, sealed with `key`.
    #[must_use]
    pub fn encode(&self, key: &HmacKey) -> [u8; TAIL_LEN] {
        let mut out = [0u8; TAIL_LEN];
        let mut w = Writer::new(&mut out);
        w.put(&TAIL_MAGIC);
        w.put(&TAIL_VERSION.to_le_bytes());
        w.put(&self.state.code().to_le_bytes());
        w.put(&self.segment_first_seq.to_le_bytes());
        w.put(&self.segment_len.to_le_bytes());
        w.put(&self.last_seq.to_le_bytes());
        w.put(&self.last_hash);
        let mac = key.mac(&[TAIL_MAC_DOMAIN, w.written()]);
        w.put(&mac);
        debug_assert_eq!(w.len(), TAIL_LEN);
        out
    }

    /// Parses a record and checks its HMAC under `key`.
    pub fn decode(bytes: &[u8], key: &HmacKey) -> Result<Self, TailProblem> {
        if bytes.len() != TAIL_LEN {
            return Err(TailProblem::Length(bytes.len()));
        }
        if bytes.get(..8) != Some(&TAIL_MAGIC[..]) {
            return Err(TailProblem::BadMagic);
        }
        let short = TailProblem::Length(bytes.len());
        let version = u32_at(bytes, 8).ok_or_else(|| short.clone())?;
        if version != TAIL_VERSION {
            return Err(TailProblem::Version(version));
        }
        let body = bytes.get(..TAIL_BODY_LEN).ok_or_else(|| short.clone())?;
        let mac: Hash = array_at(bytes, TAIL_BODY_LEN).ok_or_else(|| short.clone())?;
        if !key.mac_matches(&[TAIL_MAC_DOMAIN, body], &mac) {
            return Err(TailProblem::BadMac);
        }
        let state = match u32_at(bytes, 12).ok_or_else(|| short.clone())? {
            1 => TailState::Open,
            2 => TailState::Closed,
            other => return Err(TailProblem::BadState(other)),
        };
        Ok(Self {
            state,
            segment_first_seq: u64_at(bytes, 16).ok_or_else(|| short.clone())?,
            segment_len: u64_at(bytes, 24).ok_or_else(|| short.clone())?,
            last_seq: u64_at(bytes, 32).ok_or_else(|| short.clone())?,
            last_hash: array_at(bytes, 40).ok_or(short)?,
        })
    }
}

struct Writer<'a> {
    out: &'a mut [u8],
    len: usize,
}

impl<'a> Writer<'a> {
    fn new(out: &'a mut [u8]) -> Self {
        Self { out, len: 0 }
    }

    fn put(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        let slot = self
            .out
            .get_mut(self.len..end)
            .unwrap_or_else(|| panic!("header layout overflows at {end}"));
        slot.copy_from_slice(bytes);
        self.len = end;
    }

    fn written(&self) -> &[u8] {
        self.out.get(..self.len).unwrap_or_default()
    }

    fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_record_round_trips_and_every_flipped_bit_is_refused() {
        let key = HmacKey::from_bytes([3; 32]);
        let record = TailRecord {
            state: TailState::Closed,
            segment_first_seq: 449,
            segment_len: 54_053,
            last_seq: 3_017,
            last_hash: [9; 32],
        };
        let bytes = record.encode(&key);
        assert_eq!(TailRecord::decode(&bytes, &key), Ok(record));
        for at in 0..bytes.len() * 8 {
            let mut flipped = bytes;
            flipped[at / 8] ^= 1 << (at % 8);
            assert!(TailRecord::decode(&flipped, &key).is_err(), "bit {at}");
        }
        let other = HmacKey::from_bytes([4; 32]);
        assert_eq!(TailRecord::decode(&bytes, &other), Err(TailProblem::BadMac));
        assert_eq!(
            TailRecord::decode(&bytes[..TAIL_LEN - 1], &key),
            Err(TailProblem::Length(TAIL_LEN - 1))
        );
    }

    fn frame(payload_events: &[&[u8]]) -> Vec<u8> {
        let mut payload = Vec::new();
        for e in payload_events {
            push_event(&mut payload, e);
        }
        let mut out = Vec::new();
        let key = HmacKey::from_bytes([9; 32]);
        write_frame(
            &mut out,
            &key,
            5,
            payload_events.len() as u32,
            42,
            &GENESIS_HASH,
            &payload,
        );
        out
    }

    #[test]
    fn frame_round_trips() {
        let bytes = frame(&[b"one", b"", b"three"]);
        let parsed = parse_frame(&bytes).unwrap();
        assert_eq!(parsed.header.first_seq, 5);
        assert_eq!(parsed.header.last_seq(), 7);
        assert_eq!(parsed.len(), bytes.len());
        let events: Vec<_> = parsed.events().map(Option::unwrap).collect();
        assert_eq!(events, vec![&b"one"[..], b"", b"three"]);
        assert!(parsed.mac_matches(&HmacKey::from_bytes([9; 32])));
        assert!(!parsed.mac_matches(&HmacKey::from_bytes([8; 32])));
    }

    #[test]
    fn every_single_byte_flip_is_refused() {
        let bytes = frame(&[b"alpha", b"beta"]);
        let key = HmacKey::from_bytes([9; 32]);
        for i in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[i] ^= 0x01;
            let ok = match parse_frame(&damaged) {
                Ok(parsed) => parsed.mac_matches(&key) && parsed.len() == bytes.len(),
                Err(_) => false,
            };
            assert!(!ok, "flip at byte {i} went unnoticed");
        }
    }

    #[test]
    fn every_prefix_is_short_or_invalid() {
        let bytes = frame(&[b"alpha"]);
        for cut in 0..bytes.len() {
            assert!(
                parse_frame(&bytes[..cut]).is_err(),
                "prefix of {cut} bytes parsed"
            );
        }
    }

    #[test]
    fn segment_header_round_trips_and_detects_flips() {
        let header = SegmentHeader {
            version: FORMAT_VERSION,
            first_seq: 77,
            key_id: [3; 8],
            prev_hash: [4; 32],
        };
        let bytes = header.encode();
        assert_eq!(SegmentHeader::decode(&bytes), Ok(header));
        for i in 0..bytes.len() {
            let mut damaged = bytes;
            damaged[i] ^= 0x80;
            assert_ne!(SegmentHeader::decode(&damaged), Ok(header), "flip at {i}");
        }
    }
}

//! Fuzz target `frame`: the log's frame decoder and the segment walk behind
//! open, read, replay and verify.
//!
//! Invariants checked:
//! - `parse_frame`, `FrameHeader::decode`, `SegmentHeader::decode` and
//!   `TailRecord::decode` never panic, whatever the bytes;
//! - a frame that parses is no longer than its input, its header encodes
//!   back to the bytes it came from (the unused flags aside), its payload
//!   yields exactly `n_events` events whose lengths add up, and checking its
//!   HMAC never panics;
//! - over a fuzzed header and payload whose blake3 hash and HMAC were made
//!   right, `parse_frame` accepts exactly the well-formed frames (magic,
//!   version, at least one event, seqs that fit in a u64, lengths that add
//!   up) and the HMAC checks;
//! - a segment holding such a frame, and a real log with bytes flipped and
//!   files cut, open read-only and for writing, verify and replay without a
//!   panic, and every event they return is the one written at that seq.

#![no_main]

use std::sync::{Arc, OnceLock};

use arbitrary::Arbitrary;
use engram_log::format::{
    FORMAT_VERSION, FRAME_HEADER_LEN, FRAME_MAGIC, FrameHeader, SEGMENT_HEADER_LEN, SegmentHeader,
    TailRecord, parse_frame,
};
use engram_log::limits::FRAME_PAYLOAD_BYTES_MAX;
use engram_log::{
    Event, HmacKey, Log, LogConfig, LogReader, LoggedEvent, ManualClock, MemStorage, Role,
    SessionEvent, Storage, segment_name,
};
use libfuzzer_sys::fuzz_target;

/// A header and payload to seal with a correct hash and HMAC, so the
/// checks behind the hash are reached.
#[derive(Debug, Arbitrary)]
struct Sealed {
    header: [u8; FRAME_HEADER_LEN],
    fix_magic: bool,
    fix_len: bool,
    payload: Vec<u8>,
}

/// A real log with bytes flipped and a file cut.
#[derive(Debug, Arbitrary)]
struct Damaged {
    flips: Vec<(u32, u8)>,
    cut: Option<(u8, u32)>,
    writable: bool,
}

fn key() -> HmacKey {
    HmacKey::from_bytes([0x5a; 32])
}

/// A real log (three segments, every file), and the events it holds.
fn original() -> &'static (Vec<(String, Vec<u8>)>, Vec<LoggedEvent>) {
    static ORIGINAL: OnceLock<(Vec<(String, Vec<u8>)>, Vec<LoggedEvent>)> = OnceLock::new();
    ORIGINAL.get_or_init(|| {
        let storage = Arc::new(MemStorage::new());
        let log = Log::open(
            Arc::clone(&storage) as Arc<dyn Storage>,
            LogConfig::new(key())
                .segment_bytes_max(1024)
                .clock(Arc::new(ManualClock::new(1_700_000_000_000))),
        )
        .expect("a log opens in memory");
        for batch in 0..12u32 {
            let events: Vec<Event> = (0..=batch % 3)
                .map(|turn| {
                    Event::Session(SessionEvent {
                        session: format!("s{}", batch % 2),
                        turn: batch * 3 + turn,
                        role: Role::User,
                        content: format!("batch {batch} turn {turn}: the lantern is lit"),
                    })
                })
                .collect();
            log.append(&events).expect("appending to a log in memory");
        }
        let events = log
            .read(1..=log.last_seq())
            .expect("reading back what was appended");
        log.close().expect("closing a log in memory");
        let files = storage
            .list()
            .expect("listing a folder in memory")
            .into_iter()
            .map(|name| {
                let bytes = storage.file_bytes(&name).unwrap_or_default();
                (name, bytes)
            })
            .collect();
        (files, events)
    })
}

/// Every event a reader returns is the one written at that seq.
fn check_events(read: &[LoggedEvent], written: &[LoggedEvent]) {
    for event in read {
        let at = usize::try_from(event.seq.wrapping_sub(1)).unwrap_or(usize::MAX);
        match written.get(at) {
            Some(original) => assert_eq!(event, original, "seq {} changed", event.seq),
            None => panic!("seq {} was never written", event.seq),
        }
    }
}

/// Opens `storage` read-only (and for writing, when `writable`), then
/// verifies and replays it; returns every event it read.
fn walk(storage: &MemStorage, writable: bool) -> Vec<LoggedEvent> {
    let mut read = Vec::new();
    if let Ok(reader) = LogReader::open(Arc::new(storage.clone()), key()) {
        let _ = reader.verify();
        read.extend(reader.replay(1).map_while(Result::ok));
        if reader.last_seq() > 0
            && let Ok(events) = reader.read(1..=reader.last_seq())
        {
            read.extend(events);
        }
    }
    if writable
        && let Ok(log) = Log::open(
            Arc::new(storage.clone()),
            LogConfig::new(key()).clock(Arc::new(ManualClock::new(1_800_000_000_000))),
        )
    {
        let _ = log.verify();
        read.extend(log.replay(1).map_while(Result::ok));
        let _ = log.close();
    }
    read
}

fn raw(bytes: &[u8]) {
    let _ = SegmentHeader::decode(bytes);
    let _ = TailRecord::decode(bytes, &key());
    let _ = FrameHeader::decode(bytes);
    if let Ok(frame) = parse_frame(bytes) {
        assert!(frame.len() <= bytes.len());
        check_parsed(bytes, &frame);
    }
    // As a segment: its frames one after another, then the whole walk.
    let first_seq = SegmentHeader::decode(bytes).map_or(1, |h| h.first_seq.max(1));
    let mut at = SEGMENT_HEADER_LEN;
    while let Some(rest) = bytes.get(at..)
        && let Ok(frame) = parse_frame(rest)
    {
        check_parsed(rest, &frame);
        at += frame.len();
    }
    let storage = MemStorage::new();
    storage.set_file_bytes(&segment_name(first_seq), bytes.to_vec());
    let _ = walk(&storage, false);
}

fn check_parsed(bytes: &[u8], frame: &engram_log::format::ParsedFrame<'_>) {
    let mut encoded = frame.header.encode();
    // The flags are not read back; everything else is.
    encoded[6..8].copy_from_slice(&bytes[6..8]);
    assert_eq!(&encoded[..], &bytes[..FRAME_HEADER_LEN]);
    let events: Vec<&[u8]> = frame
        .events()
        .map(|e| e.expect("a parsed frame's payload is whole"))
        .collect();
    assert_eq!(events.len(), frame.header.n_events as usize);
    let total: usize = events.iter().map(|e| 4 + e.len()).sum();
    assert_eq!(total, frame.payload.len());
    let _ = frame.mac_matches(&key());
}

/// Whether `payload` is length-prefixed events, and how many.
fn count_events(payload: &[u8]) -> Option<u64> {
    let mut rest = payload;
    let mut n = 0u64;
    while !rest.is_empty() {
        let len = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
        rest = rest.get(4..)?.get(len..)?;
        n += 1;
    }
    Some(n)
}

fn sealed(mut header: [u8; FRAME_HEADER_LEN], fix_magic: bool, fix_len: bool, payload: &[u8]) {
    if fix_magic {
        header[..4].copy_from_slice(&FRAME_MAGIC);
        header[4..6].copy_from_slice(&(FORMAT_VERSION as u16).to_le_bytes());
    }
    if fix_len {
        let len = u32::try_from(payload.len()).unwrap_or(u32::MAX);
        header[20..24].copy_from_slice(&len.to_le_bytes());
    }
    let first_seq = u64::from_le_bytes(header[8..16].try_into().expect("8 bytes"));
    let n_events = u32::from_le_bytes(header[16..20].try_into().expect("4 bytes"));
    let payload_len = u32::from_le_bytes(header[20..24].try_into().expect("4 bytes"));
    let version = u16::from_le_bytes(header[4..6].try_into().expect("2 bytes"));
    let mut frame = header.to_vec();
    frame.extend_from_slice(payload);
    let hash: [u8; 32] = blake3::hash(&frame).into();
    let last_seq = first_seq.wrapping_add(u64::from(n_events)).wrapping_sub(1);
    frame.extend_from_slice(&hash);
    frame.extend_from_slice(&key().frame_mac(first_seq, last_seq, &hash));

    let well_formed = header[..4] == FRAME_MAGIC
        && u32::from(version) <= FORMAT_VERSION
        && n_events >= 1
        && first_seq.checked_add(u64::from(n_events) - 1).is_some()
        && payload_len as usize == payload.len()
        && payload.len() <= FRAME_PAYLOAD_BYTES_MAX
        && count_events(payload) == Some(u64::from(n_events));
    let parsed = parse_frame(&frame);
    assert_eq!(parsed.is_ok(), well_formed, "{parsed:?}");
    let Ok(parsed) = parsed else {
        return;
    };
    assert_eq!(parsed.len(), frame.len());
    check_parsed(&frame, &parsed);
    assert!(parsed.mac_matches(&key()));

    // The frame alone in a segment of its own: opening, verifying and
    // replaying it never panic (its events may not decode).
    if first_seq >= 1 {
        let storage = MemStorage::new();
        let mut segment = SegmentHeader {
            version: FORMAT_VERSION,
            first_seq,
            key_id: key().key_id(),
            prev_hash: parsed.header.prev_hash,
        }
        .encode()
        .to_vec();
        segment.extend_from_slice(&frame);
        storage.set_file_bytes(&segment_name(first_seq), segment);
        let _ = walk(&storage, false);
    }
}

fn damaged(flips: &[(u32, u8)], cut: Option<(u8, u32)>, writable: bool) {
    let (files, events) = original();
    let mut files = files.clone();
    let total: usize = files.iter().map(|(_, bytes)| bytes.len()).sum();
    for &(at, mask) in flips.iter().take(8) {
        let mut at = at as usize % total.max(1);
        for (_, bytes) in &mut files {
            if let Some(byte) = bytes.get_mut(at) {
                *byte ^= mask.max(1);
                break;
            }
            at -= bytes.len();
        }
    }
    if let Some((file, len)) = cut {
        let n = files.len();
        if let Some((_, bytes)) = files.get_mut(file as usize % n) {
            let len = len as usize % (bytes.len() + 1);
            bytes.truncate(len);
        }
    }
    let storage = MemStorage::new();
    for (name, bytes) in files {
        storage.set_file_bytes(&name, bytes);
    }
    check_events(&walk(&storage, writable), events);
}

// The first byte picks the mode: the bytes as they come (every decoder
// must refuse them cleanly), a sealed frame, or a damaged log.
fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut input = arbitrary::Unstructured::new(rest);
    match mode % 3 {
        0 => raw(rest),
        1 => {
            if let Ok(s) = Sealed::arbitrary(&mut input) {
                sealed(s.header, s.fix_magic, s.fix_len, &s.payload);
            }
        }
        _ => {
            if let Ok(d) = Damaged::arbitrary(&mut input) {
                damaged(&d.flips, d.cut, d.writable);
            }
        }
    }
});

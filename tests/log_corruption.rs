//! Damage that no crash can explain, and how the log reports it.
//!
//! The story. Disks flip bits, people copy half a file, and an attacker may
//! edit an event and recompute checksums. A crash can only leave damage at
//! the very end of the last segment (a torn tail), past the end the tail
//! record names as durable, so recovery truncates only that; anything else
//! must be named (segment, byte offset, first untrustworthy seq) and nothing
//! truncated: `verify` reports it, and `open` refuses. A log closed cleanly
//! has nothing torn at all: closing trimmed and synced it, so damage at its
//! very end is damage too (it used to be taken for a torn tail and cut,
//! acknowledged events with it). The blake3 chain catches any changed byte; the HMAC catches a
//! forger who recomputes the chain without the key, and the key id in each
//! segment header tells a re-signed log (another key) from a damaged one.
//!
//! Checked here:
//! - a single bit flip at every byte offset of every segment of a
//!   multi-segment log (all of them, not a sample) is reported at the right
//!   segment, offset and seq, by `verify_storage` and by opening the log;
//!   only in a log without a tail record is a flip in the last frame of the
//!   last segment a torn tail instead; every flip of the tail record is found;
//! - in a closed log, a flipped byte in the last frame, zeros over the last
//!   frames, bytes after the end and an end cut short are corruption: open
//!   refuses naming the repair command, and no byte changes;
//! - garbage after the last frame of a crashed log is truncated on open and
//!   reported;
//! - a bad frame followed by good ones fails the open and changes no byte;
//! - a forged event with a recomputed hash chain fails its HMAC; a log
//!   re-signed with another key fails on the key id.

use std::fs::OpenOptions;
use std::io::Write as _;

use engram_log::codec;
use engram_log::format::{
    FRAME_HEADER_LEN, FRAME_TRAILER_LEN, SEGMENT_HEADER_LEN, SegmentHeader, parse_frame,
    push_event, write_frame,
};
use engram_log::{
    Corruption, Durability, Event, HmacKey, Log, LogConfig, LogReader, MemStorage, OpenError,
    ReadError, Storage as _, VerifyError, verify_storage,
};
use rand::Rng as _;

use crate::support::{
    self, arc, assert_events, copy_mem, dir_files, random_batch, replay_all, session_event,
    test_key,
};

/// Where a frame sits in its segment.
#[derive(Debug, Clone, Copy)]
struct FrameSpan {
    offset: usize,
    len: usize,
    first_seq: u64,
    n_events: u32,
}

/// The frames of a segment file, parsed with the public format functions.
fn frames_of(bytes: &[u8]) -> Vec<FrameSpan> {
    let mut frames = Vec::new();
    let mut offset = SEGMENT_HEADER_LEN;
    while offset < bytes.len() {
        let frame = parse_frame(&bytes[offset..]).unwrap();
        frames.push(FrameSpan {
            offset,
            len: frame.len(),
            first_seq: frame.header.first_seq,
            n_events: frame.header.n_events,
        });
        offset += frame.len();
    }
    assert_eq!(offset, bytes.len(), "segments end on a frame boundary");
    frames
}

/// A log of several small segments in memory, with the events it holds.
fn small_log(test: &str, n_batches: usize) -> (MemStorage, Vec<Event>) {
    let mut rng = support::seeded_rng(test, 0x00BA_DB17);
    let storage = MemStorage::new();
    let config = LogConfig::new(test_key())
        .segment_bytes_max(1024)
        .durability(Durability::None);
    let log = Log::open(arc(storage.clone()), config).unwrap();
    let mut events = Vec::new();
    for _ in 0..n_batches {
        let batch = random_batch(&mut rng, test, events.len(), 3, 40);
        log.append(&batch).unwrap();
        events.extend(batch);
    }
    log.close().unwrap();
    (storage, events)
}

/// Asserts that `c` names `segment`, `offset` and `seq`.
fn assert_names(c: &Corruption, segment: &str, offset: usize, seq: u64, context: &str) {
    assert_eq!(c.segment, segment, "{context}: {c}");
    assert_eq!(c.offset, offset as u64, "{context}: {c}");
    assert_eq!(c.seq, seq, "{context}: {c}");
}

#[test]
fn log_corruption_every_bit_flip_is_found_where_it_is() {
    let (storage, events) = small_log("bit flips", 30);
    // Closed cleanly: no flip anywhere can be a torn write.
    let n_closed = every_bit_flip_is_found(&storage, true);
    // The same log without its tail record (written before the record
    // existed): the crash rules alone, so a flip in the last frame of the
    // last segment is a torn tail.
    let legacy = copy_mem(&storage);
    legacy.remove(engram_log::TAIL_FILE_NAME).unwrap();
    let n_legacy = every_bit_flip_is_found(&legacy, false);
    eprintln!("checked {n_closed} + {n_legacy} single-bit flips");

    // Every flip of the tail record itself is damage: where the log ended
    // durably is then unknown, so open refuses.
    let tail = storage.file_bytes(engram_log::TAIL_FILE_NAME).unwrap();
    let damaged = copy_mem(&storage);
    for at in 0..tail.len() {
        let mut bytes = tail.clone();
        bytes[at] ^= 1 << (at % 8);
        damaged.set_file_bytes(engram_log::TAIL_FILE_NAME, bytes);
        let context = format!("bit {} of byte {at} of the tail record", at % 8);
        let report = verify_storage(&damaged, &test_key(), None).unwrap();
        let problem = report.problem.expect("corruption reported");
        assert_names(&problem, "TAIL", 0, events.len() as u64 + 1, &context);
        let opened = Log::open(arc(damaged.clone()), LogConfig::new(test_key()));
        assert!(
            matches!(&opened, Err(OpenError::Corrupted(c)) if c.segment == "TAIL"),
            "{context}: {opened:?}"
        );
    }
}

/// Flips every bit of every segment of `storage` in turn and checks where
/// the damage is reported; `closed`: the log has a tail record of a clean
/// close. Returns the number of flips checked.
fn every_bit_flip_is_found(storage: &MemStorage, closed: bool) -> usize {
    let key = test_key();
    let names: Vec<String> = storage
        .list()
        .unwrap()
        .into_iter()
        .filter(|n| n.ends_with(".seg"))
        .collect();
    assert!(
        names.len() >= 4,
        "want several sealed segments, got {names:?}"
    );
    let last_name = names.last().unwrap().clone();
    let damaged = copy_mem(storage);
    let mut n_checked = 0;
    for name in &names {
        let original = storage.file_bytes(name).unwrap();
        let first_seq = engram_log::parse_segment_name(name).unwrap();
        let frames = frames_of(&original);
        let is_last = *name == last_name;
        for at in 0..original.len() {
            let mut bytes = original.clone();
            bytes[at] ^= 1 << (at % 8);
            damaged.set_file_bytes(name, bytes);
            let context = format!("closed {closed}: bit {} of byte {at} of {name}", at % 8);
            // The damaged frame (or the header) and what must be reported.
            let frame = frames
                .iter()
                .find(|f| (f.offset..f.offset + f.len).contains(&at));
            let (offset, seq) = frame.map_or((0, first_seq), |f| (f.offset, f.first_seq));
            let in_mac = frame.is_some_and(|f| at >= f.offset + f.len - FRAME_TRAILER_LEN / 2);
            let in_last_frame =
                is_last && frame.is_some_and(|f| f.offset + f.len == original.len());

            let report = verify_storage(&damaged, &key, None).unwrap();
            let opened = LogReader::open(arc(damaged.clone()), key.clone());
            if in_last_frame && !closed {
                // Indistinguishable from a write cut short by a crash (in
                // the HMAC too: a write cut inside the trailer after the
                // hash landed leaves a frame only its HMAC refuses).
                assert!(report.is_ok(), "{context}: {:?}", report.problem);
                let torn = report.torn_tail.expect("a torn tail");
                assert_eq!(torn.offset, offset as u64, "{context}");
                assert_eq!(report.last_seq, seq - 1, "{context}");
                let reader = opened.unwrap();
                assert_eq!(reader.last_seq(), seq - 1, "{context}");
                assert!(reader.recovery().torn_tail.is_some(), "{context}");
            } else {
                let problem = report.problem.expect("corruption reported");
                assert_names(&problem, name, offset, seq, &context);
                match opened {
                    Err(OpenError::Corrupted(c)) => {
                        assert!(!in_mac, "{context}: opening checks no HMAC");
                        assert_names(&c, name, offset, seq, &context);
                    }
                    // Opening checks hashes and the chain, not HMACs; reads do.
                    Ok(reader) => {
                        assert!(in_mac, "{context}: opened a damaged log");
                        match reader.read(seq..=seq) {
                            Err(ReadError::Corrupted(c)) => {
                                assert_names(&c, name, offset, seq, &context);
                            }
                            other => panic!("{context}: read gave {other:?}"),
                        }
                    }
                    Err(e) => panic!("{context}: {e}"),
                }
            }
            n_checked += 1;
        }
        damaged.set_file_bytes(name, original);
    }
    // The undamaged copy is whole again.
    let report = verify_storage(&damaged, &key, None).unwrap();
    assert!(report.is_ok());
    n_checked
}

/// A log on real files in a temporary folder.
fn file_log(dir: &std::path::Path, n_batches: usize) -> (Vec<Event>, String) {
    let mut rng = support::seeded_rng("file log", 0xF11E);
    let log = Log::open_dir(dir, LogConfig::new(test_key())).unwrap();
    let mut events = Vec::new();
    for _ in 0..n_batches {
        let batch = random_batch(&mut rng, "file", events.len(), 4, 80);
        log.append(&batch).unwrap();
        events.extend(batch);
    }
    log.close().unwrap();
    let segments = support::segment_paths(dir);
    let last = segments.last().unwrap().file_name().unwrap();
    (events, last.to_string_lossy().into_owned())
}

/// A file log whose last segment is followed by `tail`: the events, the last
/// segment's name and path, and its length before the tail.
fn file_log_with_tail(
    dir: &std::path::Path,
    n_batches: usize,
    tail: &[u8],
) -> (Vec<Event>, String, std::path::PathBuf, u64) {
    let (events, last) = file_log(dir, n_batches);
    let path = dir.join(&last);
    let good_len = std::fs::metadata(&path).unwrap().len();
    OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(tail)
        .unwrap();
    (events, last, path, good_len)
}

#[test]
fn log_corruption_garbage_tail_is_truncated_on_open() {
    let mut rng = support::seeded_rng("garbage tail", 0x7A11);
    let random: Vec<u8> = (0..300).map(|_| rng.random()).collect();
    let tails: Vec<(&str, Vec<u8>)> = vec![
        ("zeros after a cut frame", {
            let mut bytes = b"EGFR".to_vec();
            bytes.extend([0; 300]);
            bytes
        }),
        ("0xA5", vec![0xA5; 17]),
        ("random", random),
        ("one byte", vec![b'E']),
        ("frame magic only", b"EGFR".to_vec()),
    ];
    let mut cases = tails;
    // A frame cut short: the first bytes of a real frame.
    let dir = tempfile::tempdir().unwrap();
    let (_, last) = file_log(dir.path(), 3);
    let bytes = std::fs::read(dir.path().join(&last)).unwrap();
    let frame = frames_of(&bytes)[0];
    let cut = &bytes[frame.offset..frame.offset + frame.len];
    cases.push(("header cut short", cut[..FRAME_HEADER_LEN - 1].to_vec()));
    cases.push(("frame cut short", cut[..cut.len() - 1].to_vec()));

    for (what, garbage) in cases {
        let dir = tempfile::tempdir().unwrap();
        let (events, last, path, good_len) = file_log_with_tail(dir.path(), 12, &garbage);
        // The writer opened the log at its end and died writing the tail.
        support::mark_crashed_dir(dir.path(), &test_key());

        // Read-only opening reports the tail and changes nothing.
        let reader = LogReader::open_dir(dir.path(), test_key()).unwrap();
        let torn = reader.recovery().torn_tail.clone().expect(what);
        assert_eq!(torn.segment, last, "{what}");
        assert_eq!(torn.offset, good_len, "{what}");
        assert_eq!(torn.bytes, garbage.len() as u64, "{what}");
        assert_events(&replay_all(&reader), &events);
        let report = reader.verify().unwrap();
        assert!(report.is_ok(), "{what}: a torn tail alone verifies");
        assert!(report.torn_tail.is_some(), "{what}");
        drop(reader);
        let expected_len = good_len + garbage.len() as u64;
        assert_eq!(std::fs::metadata(&path).unwrap().len(), expected_len);

        // Opening for writing truncates it, and says so.
        let log = Log::open_dir(dir.path(), LogConfig::new(test_key())).unwrap();
        assert_eq!(log.recovery().torn_tail, Some(torn), "{what}");
        assert_eq!(std::fs::metadata(&path).unwrap().len(), good_len, "{what}");
        assert_events(&replay_all(log.reader()), &events);
        let next = session_event("file", 999, "after the repair");
        assert_eq!(log.append_one(&next).unwrap(), events.len() as u64 + 1);
        log.close().unwrap();
        let log = Log::open_dir(dir.path(), LogConfig::new(test_key())).unwrap();
        assert_eq!(log.recovery().torn_tail, None, "{what}");
        assert!(log.verify().unwrap().is_ok());
    }
}

#[test]
fn log_corruption_reserved_zeros_are_not_a_torn_tail() {
    // The writer reserves space ahead of its frames; a crash leaves the
    // reserved zeros behind the last frame. They are no damage: nothing is
    // reported, nothing truncated, and the next append reuses them.
    let dir = tempfile::tempdir().unwrap();
    let (events, _, path, good_len) = file_log_with_tail(dir.path(), 5, &[0; 8192]);
    support::mark_crashed_dir(dir.path(), &test_key());
    let reserved_len = good_len + 8192;

    let reader = LogReader::open_dir(dir.path(), test_key()).unwrap();
    assert_eq!(reader.recovery().torn_tail, None);
    assert_eq!(reader.recovery().warning(), None);
    assert_events(&replay_all(&reader), &events);
    let report = reader.verify().unwrap();
    assert!(report.is_ok());
    assert_eq!(report.torn_tail, None);
    drop(reader);

    let log = Log::open_dir(dir.path(), LogConfig::new(test_key())).unwrap();
    assert_eq!(log.recovery().torn_tail, None);
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        reserved_len,
        "reserved space is kept"
    );
    let next = session_event("file", 999, "into the reserved space");
    assert_eq!(log.append_one(&next).unwrap(), events.len() as u64 + 1);
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        reserved_len,
        "the append overwrote reserved zeros instead of growing the file"
    );
    log.close().unwrap();
    // A clean close gives the reserved space back.
    let closed_len = std::fs::metadata(&path).unwrap().len();
    assert!(
        closed_len > good_len && closed_len < reserved_len,
        "{closed_len}"
    );
    let reader = LogReader::open_dir(dir.path(), test_key()).unwrap();
    let mut expected = events.clone();
    expected.push(next);
    assert_events(&replay_all(&reader), &expected);
    assert!(
        verify_storage(
            &engram_log::FileStorage::open_read_only(dir.path()).unwrap(),
            &test_key(),
            None
        )
        .unwrap()
        .is_ok()
    );
}

#[test]
fn log_corruption_bad_frame_before_good_ones_fails_the_open() {
    type Damage = fn(&mut Vec<u8>, usize, usize);
    let damages: [(&str, Damage); 4] = [
        ("payload bit flip", |bytes, at, len| {
            bytes[at + FRAME_HEADER_LEN + (len - FRAME_HEADER_LEN - FRAME_TRAILER_LEN) / 2] ^= 0x10;
        }),
        ("magic overwritten", |bytes, at, _| bytes[at] = b'X'),
        ("bytes lost", |bytes, at, len| {
            bytes.drain(at + len / 2..at + len / 2 + 10);
        }),
        ("zeroed frame", |bytes, at, len| bytes[at..at + len].fill(0)),
    ];
    for (what, damage) in damages {
        let dir = tempfile::tempdir().unwrap();
        let (_, last) = file_log(dir.path(), 10);
        let path = dir.path().join(&last);
        let mut bytes = std::fs::read(&path).unwrap();
        let frames = frames_of(&bytes);
        assert!(frames.len() >= 8, "one segment of several frames");
        let bad = frames[3];
        damage(&mut bytes, bad.offset, bad.len);
        std::fs::write(&path, &bytes).unwrap();
        let before = dir_files(dir.path());

        let err = Log::open_dir(dir.path(), LogConfig::new(test_key())).unwrap_err();
        let OpenError::Corrupted(c) = &err else {
            panic!("{what}: expected Corrupted, got {err}");
        };
        assert_names(c, &last, bad.offset, bad.first_seq, what);
        let message = err.to_string();
        assert!(message.contains("nothing was truncated"), "{message}");
        assert!(message.contains(&last), "{message}");
        assert!(matches!(
            LogReader::open_dir(dir.path(), test_key()),
            Err(OpenError::Corrupted(_))
        ));
        let storage = engram_log::FileStorage::open_read_only(dir.path()).unwrap();
        let report = verify_storage(&storage, &test_key(), None).unwrap();
        assert_eq!(report.problem.as_ref(), Some(c), "{what}");
        assert_eq!(report.last_seq, bad.first_seq - 1);
        assert_eq!(dir_files(dir.path()), before, "{what}: no byte changed");
    }
}

/// Rewrites the log in `storage` as a forger would: event `target_seq` gets
/// `forged` content, and every frame hash, later chain link and later
/// segment header is recomputed. A forger without the key keeps the old
/// HMACs (`signer` None); one with another key signs frames from the forged
/// one on, and with `claim_key` also stamps that key's id into every segment
/// header and signs every frame.
fn forge(
    storage: &MemStorage,
    target_seq: u64,
    forged: &Event,
    signer: Option<&HmacKey>,
    claim_key: bool,
) -> MemStorage {
    // write_frame is only used for its blake3 over header and payload; the
    // HMAC it adds with this key is replaced below.
    let scratch_key = HmacKey::from_bytes([0x66; 32]);
    let out = MemStorage::new();
    let mut chain = [0u8; 32];
    // The forger leaves the tail record out: the copy reads as a log
    // written before it existed.
    let segments = storage.list().unwrap();
    for name in segments.iter().filter(|n| n.ends_with(".seg")) {
        let bytes = storage.file_bytes(name).unwrap();
        let mut header = SegmentHeader::decode(&bytes).unwrap();
        header.prev_hash = chain;
        if let (Some(signer), true) = (signer, claim_key) {
            header.key_id = signer.key_id();
        }
        let mut rewritten = header.encode().to_vec();
        for span in frames_of(&bytes) {
            let frame = parse_frame(&bytes[span.offset..]).unwrap();
            let mut payload = Vec::new();
            for (seq, event) in (frame.header.first_seq..).zip(frame.events()) {
                let event = event.unwrap();
                if seq == target_seq {
                    push_event(&mut payload, &codec::encode(forged).unwrap());
                } else {
                    push_event(&mut payload, event);
                }
            }
            let resign = signer.is_some()
                && (claim_key || span.first_seq + u64::from(span.n_events) > target_seq);
            let start = rewritten.len();
            chain = write_frame(
                &mut rewritten,
                signer.filter(|_| resign).unwrap_or(&scratch_key),
                frame.header.first_seq,
                frame.header.n_events,
                frame.header.ts_ms,
                &chain,
                &payload,
            );
            if !resign {
                let mac_at = rewritten.len() - 32;
                rewritten[mac_at..].copy_from_slice(&frame.mac);
            }
            // The forged frame is well formed: only the key can tell.
            assert!(parse_frame(&rewritten[start..]).is_ok());
        }
        out.set_file_bytes(name, rewritten);
    }
    out
}

#[test]
fn log_corruption_forged_history_fails_its_hmac() {
    let (storage, events) = small_log("forgery", 30);
    let key = test_key();
    let names = storage.list().unwrap();
    assert!(names.len() >= 3);
    // A frame of two events or more in a sealed segment, as near the middle
    // as the seed allows; forge its second event.
    let middle = names.len() / 2;
    let mut sealed: Vec<&String> = names[..names.len() - 1].iter().collect();
    sealed.sort_by_key(|n| names.iter().position(|m| m == *n).unwrap().abs_diff(middle));
    let (target_segment, target) = sealed
        .into_iter()
        .find_map(|name| {
            let frames = frames_of(&storage.file_bytes(name).unwrap());
            frames
                .into_iter()
                .find(|f| f.n_events >= 2)
                .map(|f| (name, f))
        })
        .expect("a sealed frame with several events");
    let target_seq = target.first_seq + 1;
    let forged = session_event(
        "forgery",
        0,
        "I never said I prefer tea: I prefer coffee, always have",
    );
    assert_ne!(events[usize::try_from(target_seq).unwrap() - 1], forged);

    // Without the key: the chain is consistent, the HMAC is not.
    let forgery = forge(&storage, target_seq, &forged, None, false);
    let report = verify_storage(&forgery, &key, None).unwrap();
    let problem = report.problem.expect("the forgery is caught");
    assert_names(
        &problem,
        target_segment,
        target.offset,
        target.first_seq,
        "forgery",
    );
    assert!(problem.reason.contains("HMAC"), "{}", problem.reason);
    assert_eq!(report.last_seq, target.first_seq - 1);
    // Opening checks the chain, which the forger recomputed, and the HMAC
    // of the last frame alone (a write cut inside its trailer looks the
    // same): the forged log opens without its last frame, left out as
    // torn. Every read of the forged frame checks the HMAC and refuses it.
    let reader = LogReader::open(arc(forgery.clone()), key.clone()).unwrap();
    let last_name = names.iter().rfind(|n| n.ends_with(".seg")).unwrap();
    let last_segment = storage.file_bytes(last_name).unwrap();
    let last_frame = frames_of(&last_segment).pop().unwrap();
    assert_eq!(reader.last_seq(), last_frame.first_seq - 1);
    let torn = reader.recovery().torn_tail.as_ref();
    assert!(torn.is_some_and(|t| t.reason.contains("HMAC")), "{torn:?}");
    assert!(matches!(
        reader.read(target_seq..=target_seq),
        Err(ReadError::Corrupted(c)) if c.seq == target.first_seq
    ));
    let replayed: Vec<_> = reader.replay(1).collect();
    let n_good = usize::try_from(target.first_seq - 1).unwrap();
    assert!(replayed[..n_good].iter().all(Result::is_ok));
    assert!(matches!(&replayed[n_good], Err(ReadError::Corrupted(c)) if c.seq == target.first_seq));
    assert_eq!(
        replayed.len(),
        n_good + 1,
        "replay stops at the first error"
    );

    // Signed with another key but claiming to be ours: the HMAC fails at the
    // first re-signed frame.
    let attacker = HmacKey::from_bytes([0xEE; 32]);
    let resigned = forge(&storage, target_seq, &forged, Some(&attacker), false);
    let problem = verify_storage(&resigned, &key, None)
        .unwrap()
        .problem
        .expect("the re-signed forgery is caught");
    assert_names(
        &problem,
        target_segment,
        target.offset,
        target.first_seq,
        "re-signed",
    );
    assert!(problem.reason.contains("HMAC"), "{}", problem.reason);

    // Wholly re-signed with the attacker's key id: reported as the wrong
    // key, not as damage; the attacker's own key of course verifies.
    let rekeyed = forge(&storage, target_seq, &forged, Some(&attacker), true);
    let err = verify_storage(&rekeyed, &key, None).unwrap_err();
    assert!(
        matches!(&err, VerifyError::Open(OpenError::WrongKey { segment }) if *segment == names[0]),
        "{err}"
    );
    assert!(matches!(
        Log::open(arc(copy_mem(&rekeyed)), LogConfig::new(key.clone())),
        Err(OpenError::WrongKey { .. })
    ));
    assert!(verify_storage(&rekeyed, &attacker, None).unwrap().is_ok());

    // The original is untouched and whole.
    assert!(verify_storage(&storage, &key, None).unwrap().is_ok());
}

/// Opens a log folder for writing and checks that it refuses, naming the
/// damage at `segment`, `offset` and `seq` and the repair command, with no
/// byte of the folder changed.
fn assert_open_refuses(dir: &std::path::Path, segment: &str, offset: u64, seq: u64) {
    let before = dir_files(dir);
    let err = Log::open_dir(dir, LogConfig::new(test_key())).unwrap_err();
    let OpenError::Corrupted(c) = &err else {
        panic!("expected Corrupted, got {err}");
    };
    assert_names(c, segment, usize::try_from(offset).unwrap(), seq, "open");
    let message = err.to_string();
    assert!(
        message.contains(&format!("engram repair --truncate-from {seq}")),
        "{message}"
    );
    assert!(message.contains("nothing was truncated"), "{message}");
    assert_eq!(dir_files(dir), before, "no byte changed");
    let err = LogReader::open_dir(dir, test_key()).unwrap_err();
    assert!(matches!(err, OpenError::Corrupted(_)), "{err}");
}

#[test]
fn log_corruption_flipped_byte_in_last_frame_of_a_closed_log_is_not_a_torn_tail() {
    // Regression: a flipped byte in the last frame of a cleanly closed log
    // passed verify as a "torn tail" warning, and the next open for
    // writing cut the frame off: acknowledged events lost.
    let dir = tempfile::tempdir().unwrap();
    let (events, last) = file_log(dir.path(), 12);
    let path = dir.path().join(&last);
    let mut bytes = std::fs::read(&path).unwrap();
    let frame = *frames_of(&bytes).last().unwrap();
    let at = bytes.len() - 100;
    assert!(at > frame.offset + FRAME_HEADER_LEN, "inside the payload");
    bytes[at] ^= 0x01;
    std::fs::write(&path, &bytes).unwrap();

    let storage = engram_log::FileStorage::open_read_only(dir.path()).unwrap();
    let report = verify_storage(&storage, &test_key(), None).unwrap();
    let problem = report.problem.clone().expect("corruption, not a torn tail");
    assert_eq!(report.torn_tail, None);
    assert_names(&problem, &last, frame.offset, frame.first_seq, "verify");
    assert_eq!(report.last_seq, frame.first_seq - 1);
    assert_open_refuses(dir.path(), &last, frame.offset as u64, frame.first_seq);
    // Every event is still on disk: restoring the byte restores the log.
    bytes[at] ^= 0x01;
    std::fs::write(&path, &bytes).unwrap();
    let log = Log::open_dir(dir.path(), LogConfig::new(test_key())).unwrap();
    assert_events(&replay_all(log.reader()), &events);
}

#[test]
fn log_corruption_zeros_over_the_last_frames_of_a_closed_log_are_found() {
    // Regression: zeros written over the last frames of a closed segment
    // (its size kept) passed verify as reserved space, and recall silently
    // lost those memories. In the last segment and in a sealed one.
    for victim in ["last", "sealed"] {
        let dir = tempfile::tempdir().unwrap();
        let log = Log::open_dir(
            dir.path(),
            LogConfig::new(test_key()).segment_bytes_max(2048),
        )
        .unwrap();
        let mut rng = support::seeded_rng("zeros", 0x2E70);
        for n in 0..40 {
            log.append(&random_batch(&mut rng, "zeros", n, 3, 60))
                .unwrap();
        }
        log.close().unwrap();
        let segments = support::segment_paths(dir.path());
        assert!(segments.len() >= 3, "{segments:?}");
        let path = match victim {
            "last" => segments.last().unwrap().clone(),
            _ => segments[1].clone(),
        };
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut bytes = std::fs::read(&path).unwrap();
        let frames = frames_of(&bytes);
        assert!(frames.len() >= 3, "{victim}: {frames:?}");
        let first_zeroed = frames[frames.len() - 2];
        let len = bytes.len();
        bytes[first_zeroed.offset..].fill(0);
        assert_eq!(bytes.len(), len);
        std::fs::write(&path, &bytes).unwrap();

        let storage = engram_log::FileStorage::open_read_only(dir.path()).unwrap();
        let report = verify_storage(&storage, &test_key(), None).unwrap();
        let problem = report.problem.clone().expect("zeros over frames are found");
        assert_names(
            &problem,
            &name,
            first_zeroed.offset,
            first_zeroed.first_seq,
            victim,
        );
        assert_open_refuses(
            dir.path(),
            &name,
            first_zeroed.offset as u64,
            first_zeroed.first_seq,
        );
    }
}

#[test]
fn log_corruption_a_closed_log_cut_short_or_grown_is_found() {
    // A log closed cleanly ends exactly where its tail record says: a
    // segment cut at a frame boundary (whole frames gone) or bytes after
    // its end cannot come from a crash.
    for what in ["cut short", "grown"] {
        let dir = tempfile::tempdir().unwrap();
        let (_, last) = file_log(dir.path(), 12);
        let path = dir.path().join(&last);
        let bytes = std::fs::read(&path).unwrap();
        let frames = frames_of(&bytes);
        let closed_seq = frames
            .last()
            .map(|f| f.first_seq + u64::from(f.n_events) - 1)
            .unwrap();
        let (offset, seq) = if what == "cut short" {
            let gone = *frames.last().unwrap();
            std::fs::write(&path, &bytes[..gone.offset]).unwrap();
            (gone.offset as u64, gone.first_seq)
        } else {
            let mut grown = bytes.clone();
            grown.extend_from_slice(&[0xA5; 10]);
            std::fs::write(&path, &grown).unwrap();
            (bytes.len() as u64, closed_seq + 1)
        };
        let storage = engram_log::FileStorage::open_read_only(dir.path()).unwrap();
        let report = verify_storage(&storage, &test_key(), None).unwrap();
        let problem = report.problem.clone().expect(what);
        assert_names(&problem, &last, usize::try_from(offset).unwrap(), seq, what);
        assert_open_refuses(dir.path(), &last, offset, seq);
    }
}

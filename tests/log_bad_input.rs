//! Bad input refused with the right error and nothing changed: strangers in
//! the log folder, segments from a newer engram, missing or wrong keys,
//! events and batches over their limits, reads outside the log, invalid
//! configuration, and a segment missing from the middle of the log.

use std::time::Duration;

use engram_log::format::{FORMAT_VERSION, GENESIS_HASH, SegmentHeader};
use engram_log::limits::{BATCH_BYTES_MAX, BATCH_EVENTS_MAX, EVENT_BYTES_MAX};
use engram_log::{
    AppendError, Durability, Event, HmacKey, KeyError, KeySource, Log, LogConfig, LogReader,
    MemStorage, OpenError, ReadError, Storage as _, VerifyError, segment_name, verify_storage,
};

use crate::support::{
    self, arc, assert_events, copy_mem, dir_files, mem_files, random_batch, replay_all,
    session_event, test_key,
};

/// A log of `n_batches` random batches in memory, closed, with its events.
fn mem_log(segment_bytes_max: u64, n_batches: usize) -> (MemStorage, Vec<Event>) {
    let mut rng = support::seeded_rng("bad input log", 0xBAD1);
    let storage = MemStorage::new();
    let config = LogConfig::new(test_key())
        .segment_bytes_max(segment_bytes_max)
        .durability(Durability::None);
    let log = Log::open(arc(storage.clone()), config).unwrap();
    let mut events = Vec::new();
    for _ in 0..n_batches {
        let batch = random_batch(&mut rng, "bad", events.len(), 3, 40);
        log.append(&batch).unwrap();
        events.extend(batch);
    }
    log.close().unwrap();
    (storage, events)
}

#[test]
fn log_bad_input_unknown_file_is_refused_and_left_alone() {
    for stranger in [
        "notes.txt",
        "00000000000000000001.seg.bak",
        "1.seg",
        "00000000000000000000.seg",
        ".hidden",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let log = Log::open_dir(dir.path(), LogConfig::new(test_key())).unwrap();
        log.append(&[session_event("s", 0, "hello")]).unwrap();
        log.close().unwrap();
        std::fs::write(dir.path().join(stranger), b"not a segment").unwrap();
        let before = dir_files(dir.path());

        let err = Log::open_dir(dir.path(), LogConfig::new(test_key())).unwrap_err();
        assert!(
            matches!(&err, OpenError::UnknownFile { name, .. } if name == stranger),
            "{stranger}: {err}"
        );
        assert!(err.to_string().contains("move it out"), "{err}");
        let err = LogReader::open_dir(dir.path(), test_key()).unwrap_err();
        assert!(matches!(err, OpenError::UnknownFile { .. }), "{err}");
        assert_eq!(dir_files(dir.path()), before, "{stranger}: nothing changed");
    }
}

#[test]
fn log_bad_input_newer_segment_version_is_refused_not_repaired() {
    let key = test_key();
    let newer = SegmentHeader {
        version: FORMAT_VERSION + 1,
        first_seq: 1,
        key_id: key.key_id(),
        prev_hash: GENESIS_HASH,
    }
    .encode();

    // A newer engram's segment holding only its header.
    let storage = MemStorage::new();
    storage.set_file_bytes(&segment_name(1), newer.to_vec());
    // And one whose frames were written by this version but whose header
    // says newer.
    let (with_frames, _) = mem_log(64 * 1024, 5);
    let mut bytes = with_frames.file_bytes(&segment_name(1)).unwrap();
    bytes[..newer.len()].copy_from_slice(&newer);
    with_frames.set_file_bytes(&segment_name(1), bytes);

    for (what, storage) in [("header only", storage), ("with frames", with_frames)] {
        let before = mem_files(&storage);
        let err = Log::open(arc(storage.clone()), LogConfig::new(key.clone())).unwrap_err();
        assert!(
            matches!(
                &err,
                OpenError::UnsupportedVersion { segment, found, supported }
                    if *segment == segment_name(1) && *found == FORMAT_VERSION + 1 && *supported == FORMAT_VERSION
            ),
            "{what}: {err}"
        );
        assert!(err.to_string().contains("upgrade"), "{err}");
        let err = LogReader::open(arc(storage.clone()), key.clone()).unwrap_err();
        assert!(
            matches!(err, OpenError::UnsupportedVersion { .. }),
            "{what}: {err}"
        );
        let err = verify_storage(&storage, &key, None).unwrap_err();
        assert!(
            matches!(err, VerifyError::Open(OpenError::UnsupportedVersion { .. })),
            "{what}: {err}"
        );
        assert_eq!(
            mem_files(&storage),
            before,
            "{what}: a newer segment is never touched"
        );
    }
}

#[test]
fn log_bad_input_missing_key_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = KeySource::StoreFile.load(dir.path(), false).unwrap_err();
    assert!(
        matches!(&err, KeyError::Missing { path } if path.starts_with(dir.path())),
        "{err}"
    );
    assert!(dir_files(dir.path()).is_empty(), "no key was invented");
    let err = KeySource::File(dir.path().join("elsewhere.key"))
        .load(dir.path(), true)
        .unwrap_err();
    assert!(matches!(err, KeyError::NotFound { .. }), "{err}");
    let err = KeySource::Hex("abcd".to_owned())
        .load(dir.path(), true)
        .unwrap_err();
    assert!(matches!(err, KeyError::Malformed { .. }), "{err}");
    assert!(dir_files(dir.path()).is_empty());
    // Allowed to create: a key appears and then loads as the same key.
    let key = KeySource::StoreFile.load(dir.path(), true).unwrap();
    assert_eq!(KeySource::StoreFile.load(dir.path(), false).unwrap(), key);
}

#[test]
fn log_bad_input_wrong_key_is_refused() {
    let (storage, events) = mem_log(1024, 10);
    let before = mem_files(&storage);
    let wrong = HmacKey::from_bytes([0x43; 32]);
    let err = Log::open(arc(storage.clone()), LogConfig::new(wrong.clone())).unwrap_err();
    assert!(
        matches!(&err, OpenError::WrongKey { segment } if *segment == segment_name(1)),
        "{err}"
    );
    assert!(matches!(
        LogReader::open(arc(storage.clone()), wrong.clone()),
        Err(OpenError::WrongKey { .. })
    ));
    assert!(matches!(
        verify_storage(&storage, &wrong, None),
        Err(VerifyError::Open(OpenError::WrongKey { .. }))
    ));
    assert_eq!(mem_files(&storage), before);
    let log = Log::open(arc(storage), LogConfig::new(test_key())).unwrap();
    assert_events(&replay_all(log.reader()), &events);
}

/// A session event whose encoding is exactly `size` bytes.
fn event_of_size(size: usize) -> Event {
    let overhead = engram_log::codec::encode(&session_event("big", 0, ""))
        .unwrap()
        .len();
    let mut n = size - overhead;
    loop {
        let event = session_event("big", 0, &"x".repeat(n));
        let len = engram_log::codec::encode(&event).unwrap().len();
        if len == size {
            return event;
        }
        assert!(len > size, "cannot hit {size} bytes exactly");
        n -= len - size;
    }
}

#[test]
fn log_bad_input_event_over_the_limit_changes_nothing() {
    let (storage, events) = mem_log(64 * 1024, 5);
    let log = Log::open(arc(storage.clone()), LogConfig::new(test_key())).unwrap();
    let before = mem_files(&storage);
    let last_seq = log.last_seq();

    let too_big = event_of_size(EVENT_BYTES_MAX + 1);
    let batch = [
        session_event("s", 1, "small"),
        session_event("s", 2, "small"),
        too_big,
    ];
    let err = log.append(&batch).unwrap_err();
    assert!(
        matches!(
            err,
            AppendError::EventTooLarge { index: 2, size, max: EVENT_BYTES_MAX } if size == EVENT_BYTES_MAX + 1
        ),
        "{err}"
    );
    assert_eq!(log.last_seq(), last_seq);
    assert!(
        log.poisoned().is_none(),
        "bad input does not poison the log"
    );
    assert_eq!(
        mem_files(&storage),
        before,
        "nothing of the batch was written"
    );
    assert!(log.verify().unwrap().is_ok());

    // Exactly at the limit is accepted, and reads back.
    let biggest = event_of_size(EVENT_BYTES_MAX);
    let seq = log.append_one(&biggest).unwrap();
    assert_eq!(seq, last_seq + 1);
    assert_eq!(log.read(seq..=seq).unwrap()[0].event, biggest);
    let report = log.verify().unwrap();
    assert!(report.is_ok(), "{:?}", report.problem);
    log.close().unwrap();
    let log = Log::open(arc(copy_mem(&storage)), LogConfig::new(test_key())).unwrap();
    let mut expected = events;
    expected.push(biggest);
    assert_events(&replay_all(log.reader()), &expected);
}

#[test]
fn log_bad_input_batch_limits() {
    let storage = MemStorage::new();
    let config = LogConfig::new(test_key()).durability(Durability::None);
    let log = Log::open(arc(storage.clone()), config).unwrap();
    let first = session_event("s", 0, "first");
    log.append_one(&first).unwrap();
    let before = mem_files(&storage);

    assert!(matches!(log.append(&[]), Err(AppendError::EmptyBatch)));

    let tiny = session_event("s", 1, "");
    let too_many = vec![tiny.clone(); BATCH_EVENTS_MAX + 1];
    let err = log.append(&too_many).unwrap_err();
    assert!(
        matches!(err, AppendError::BatchTooManyEvents { count, max: BATCH_EVENTS_MAX } if count == BATCH_EVENTS_MAX + 1),
        "{err}"
    );

    // Each event under its own limit, the batch over its total.
    let big = event_of_size(EVENT_BYTES_MAX - 64);
    let n_big = BATCH_BYTES_MAX / (EVENT_BYTES_MAX - 64) + 1;
    let err = log.append(&vec![big; n_big]).unwrap_err();
    assert!(
        matches!(err, AppendError::BatchTooLarge { size, max: BATCH_BYTES_MAX } if size > BATCH_BYTES_MAX),
        "{err}"
    );
    assert_eq!(log.last_seq(), 1);
    assert_eq!(mem_files(&storage), before, "refused batches write nothing");

    // A batch of exactly BATCH_EVENTS_MAX events is one atomic frame.
    let full = vec![tiny; BATCH_EVENTS_MAX];
    let appended = log.append(&full).unwrap();
    assert_eq!(appended.first_seq, 2);
    assert_eq!(appended.last_seq, 1 + BATCH_EVENTS_MAX as u64);
    let report = log.verify().unwrap();
    assert!(report.is_ok());
    assert_eq!(report.n_frames, 2);
    assert_eq!(report.n_events, 1 + BATCH_EVENTS_MAX as u64);
}

#[test]
fn log_bad_input_reads_outside_the_log() {
    let storage = MemStorage::new();
    let log = Log::open(arc(storage), LogConfig::new(test_key())).unwrap();
    assert!(matches!(
        log.read(1..=1),
        Err(ReadError::PastEnd {
            requested: 1,
            last: 0
        })
    ));
    assert_eq!(log.replay(1).count(), 0);
    for turn in 0..3 {
        log.append_one(&session_event("s", turn, "x")).unwrap();
    }
    assert!(matches!(
        log.read(2..=4),
        Err(ReadError::PastEnd {
            requested: 4,
            last: 3
        })
    ));
    assert!(matches!(
        log.read(4..=4),
        Err(ReadError::PastEnd {
            requested: 4,
            last: 3
        })
    ));
    assert!(matches!(log.read(0..=2), Err(ReadError::SeqZero)));
    assert!(matches!(log.read(0..=0), Err(ReadError::SeqZero)));
    #[expect(
        clippy::reversed_empty_ranges,
        reason = "the empty range is the input under test"
    )]
    let reversed = log.read(3..=2);
    assert!(matches!(
        reversed,
        Err(ReadError::EmptyRange { first: 3, last: 2 })
    ));
    assert_eq!(log.replay(4).count(), 0, "a replay past the end is empty");
    assert_eq!(log.read(1..=3).unwrap().len(), 3);
}

#[test]
fn log_bad_input_invalid_config_is_refused_before_touching_storage() {
    let cases = [
        (
            "segment too small",
            LogConfig::new(test_key()).segment_bytes_max(1023),
        ),
        (
            "segment of zero bytes",
            LogConfig::new(test_key()).segment_bytes_max(0),
        ),
        (
            "segment too large",
            LogConfig::new(test_key()).segment_bytes_max(engram_log::limits::SEGMENT_BYTES_MAX + 1),
        ),
        (
            "zero sync interval",
            LogConfig::new(test_key()).durability(Durability::Interval(Duration::ZERO)),
        ),
    ];
    for (what, config) in cases {
        let storage = MemStorage::new();
        let err = Log::open(arc(storage.clone()), config).unwrap_err();
        assert!(matches!(err, OpenError::Config(_)), "{what}: {err}");
        assert!(
            storage.list().unwrap().is_empty(),
            "{what}: no segment created"
        );
    }
    // The bounds themselves are valid.
    for bytes in [
        engram_log::limits::SEGMENT_BYTES_MIN,
        engram_log::limits::SEGMENT_BYTES_MAX,
    ] {
        let config = LogConfig::new(test_key()).segment_bytes_max(bytes);
        assert!(Log::open(arc(MemStorage::new()), config).is_ok());
    }
}

#[test]
fn log_bad_input_missing_segment_is_a_gap() {
    let (storage, _) = mem_log(1024, 30);
    let names = storage.list().unwrap();
    assert!(names.len() >= 4, "{names:?}");
    // A sealed segment from the middle, and the very first one.
    for gap in [2, 0] {
        let damaged = copy_mem(&storage);
        let missing = &names[gap];
        let missing_first = engram_log::parse_segment_name(missing).unwrap();
        damaged.remove(missing).unwrap();
        let before = mem_files(&damaged);

        let err = Log::open(arc(damaged.clone()), LogConfig::new(test_key())).unwrap_err();
        let OpenError::Corrupted(c) = &err else {
            panic!("segment {missing} missing: expected Corrupted, got {err}");
        };
        assert_eq!(c.segment, names[gap + 1], "{err}");
        assert_eq!(c.offset, 0);
        assert_eq!(c.seq, missing_first, "the first seq that is missing");
        assert!(c.reason.contains("missing"), "{}", c.reason);
        let report = verify_storage(&damaged, &test_key(), None).unwrap();
        assert_eq!(report.problem.as_ref(), Some(c));
        assert_eq!(report.last_seq, missing_first - 1);
        assert_eq!(mem_files(&damaged), before, "nothing changed");
    }
}

#[test]
fn log_bad_input_a_frame_whose_seqs_pass_the_largest_is_refused_not_a_panic() {
    // A frame's hash needs no key: anyone can make one whose header claims
    // seqs from u64::MAX on. Checking its HMAC computed its last seq with
    // an overflow (a panic in a debug build) before it could refuse it; a
    // replica fed such a frame (`Log::append_frame`) stopped there. Found
    // while writing the `frame` fuzz target.
    use engram_log::format::{FrameProblem, push_event, write_frame};

    let mut payload = Vec::new();
    for content in ["one", "two"] {
        let event = session_event("overflow", 0, content);
        push_event(&mut payload, &engram_log::codec::encode(&event).unwrap());
    }
    let mut frame = Vec::new();
    write_frame(
        &mut frame,
        &HmacKey::from_bytes([0x11; 32]),
        u64::MAX,
        2,
        1,
        &GENESIS_HASH,
        &payload,
    );
    assert_eq!(
        engram_log::format::parse_frame(&frame).unwrap_err(),
        FrameProblem::SeqOverflow
    );
    let log = Log::open(arc(MemStorage::new()), LogConfig::new(test_key())).unwrap();
    let refused = log.append_frame(&frame);
    assert!(
        matches!(refused, Err(AppendError::BadFrame { .. })),
        "{refused:?}"
    );
    assert_eq!(log.last_seq(), 0);
    assert!(log.verify().unwrap().is_ok());
}

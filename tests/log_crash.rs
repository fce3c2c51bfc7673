//! Crash consistency of the log, on the fault-injecting `FaultyStorage`.
//!
//! The story. The writer frames a commit group, writes it, and under
//! `Durability::Sync` acknowledges it only once fdatasync returned. The
//! machine can die at any sync: while a frame is being written back, while a
//! full segment is being sealed, between creating the next segment file and
//! syncing the folder. What the disk holds afterwards is the durable image
//! plus, perhaps, part of the unsynced tail (a write cut short) or garbage
//! (the file grew but its data never landed). Recovery must turn that into a
//! log that is exactly a prefix of what was appended, holding every
//! acknowledged event, report the torn tail it cut off, and take appends again
//! from the next seq. Under the lazy modes (`None`, `Interval`) a crash may
//! lose acknowledged events, but never what an explicit `sync` made durable,
//! and what remains is still a prefix. A failed write or fsync (EIO) poisons
//! the log: fsync errors are not retryable (the kernel may already have
//! dropped the dirty pages), so the log refuses writes until reopened, and
//! reopening recovers.
//!
//! Invariants checked after every crash and reopen:
//! - the log is a prefix of what was sent: the event at seq s is the one
//!   sent for s, seqs are contiguous from 1, and `verify` passes;
//! - every acknowledged event (or, in the lazy modes, every event before
//!   the last successful `sync`) is present;
//! - a torn tail is reported exactly when the crash left part of a frame or
//!   garbage, and the file is cut back to the end of the good frames;
//! - appending after recovery continues at last seq + 1 and survives
//!   another reopen.

use std::sync::Arc;
use std::time::Duration;

use engram_log::format::{
    FORMAT_VERSION, FRAME_OVERHEAD, GENESIS_HASH, SEGMENT_HEADER_LEN, SegmentHeader, parse_frame,
};
use engram_log::{
    AppendError, Durability, Event, FaultyStorage, Log, LogConfig, LogReader, ManualClock,
    MemStorage, OpenError, Storage as _, Tear, segment_name, verify_storage,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::support::{self, arc, assert_events, random_batch, replay_all, session_event, test_key};

/// Seeds per crash test; each runs one whole crash-and-recover scenario.
const SEEDS: u64 = 200;

/// What a scenario did, so the suite can check it exercised every case.
#[derive(Debug, Default)]
struct Coverage {
    torn_tails: u64,
    crashed_recoveries: u64,
    unacknowledged_kept: u64,
    multi_segment: u64,
}

/// A random crash image tear for a last file with `unsynced` bytes: all of
/// them lost, some of them kept (a write cut short), all of them kept (the
/// write landed, the acknowledgement did not), or garbage instead.
fn random_tear(rng: &mut StdRng, unsynced: usize) -> Tear {
    match rng.random_range(0..4) {
        0 => Tear::LoseUnsynced,
        1 => Tear::KeepPrefix(rng.random_range(0..=unsynced)),
        2 => Tear::KeepPrefix(unsynced + rng.random_range(0..8)),
        _ => Tear::Garbage(rng.random_range(0..=200)),
    }
}

/// The durable image of the last segment and its written bytes at the crash.
struct LastSegment {
    name: String,
    n_segments: usize,
    durable: Vec<u8>,
    /// Where the durable frames end; past it the durable image holds only
    /// zeros the writer reserved ahead (preallocation).
    durable_end: usize,
    written: Vec<u8>,
}

impl LastSegment {
    /// Bytes of the unsynced change: from the first byte where the written
    /// image differs from the durable one (appends overwrite reserved zeros,
    /// so the file need not grow) to the end of the longer image.
    fn unsynced(&self) -> usize {
        let start = self
            .durable
            .iter()
            .zip(&self.written)
            .position(|(d, w)| d != w)
            .unwrap_or(self.durable.len().min(self.written.len()));
        self.durable.len().max(self.written.len()) - start
    }
}

fn last_segment(storage: &FaultyStorage) -> LastSegment {
    let durable = storage.crash_image(Tear::LoseUnsynced);
    let names: Vec<String> = durable
        .list()
        .unwrap()
        .into_iter()
        .filter(|n| n.ends_with(".seg"))
        .collect();
    let name = names
        .last()
        .cloned()
        .expect("the log has a durable segment");
    let reader = LogReader::open(arc(durable.clone()), test_key()).unwrap();
    let durable_end = reader
        .segments()
        .last()
        .map(|&(_, len)| len as usize)
        .unwrap();
    let durable_bytes = durable.written_bytes(&name).unwrap();
    assert!(
        durable_bytes[durable_end..].iter().all(|&b| b == 0),
        "past the durable frames lie only reserved zeros"
    );
    LastSegment {
        n_segments: names.len(),
        durable_end,
        durable: durable_bytes,
        written: storage.written_bytes(&name).unwrap(),
        name,
    }
}

/// Where the whole, hash-valid frames that start at `from` end: the oracle
/// for what recovery keeps. Past it, anything but zeros is a torn tail.
fn whole_frames_end(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Ok(frame) = parse_frame(&bytes[at..]) {
        at += frame.len();
    }
    at
}

/// Reopens the crash image and checks every invariant of the module docs;
/// returns the recovered last seq.
fn reopen_and_check(
    rng: &mut StdRng,
    image: &FaultyStorage,
    config: &LogConfig,
    sent: &[Event],
    must_keep: u64,
) -> u64 {
    let log = Log::open(arc(image.clone()), config.clone())
        .unwrap_or_else(|e| panic!("reopening the crash image failed: {e}"));
    let last_seq = log.last_seq();
    assert!(
        last_seq >= must_keep,
        "lost acknowledged events: recovered up to {last_seq}, acknowledged {must_keep}"
    );
    assert!(
        last_seq <= sent.len() as u64,
        "recovered {last_seq} events but only {} were sent",
        sent.len()
    );
    let n_kept = usize::try_from(last_seq).unwrap();
    assert_events(&replay_all(log.reader()), &sent[..n_kept]);
    let report = log.verify().unwrap();
    assert!(report.is_ok(), "{:?}", report.problem);
    assert_eq!(report.last_seq, last_seq);
    assert_eq!(report.n_events, last_seq);
    assert_eq!(log.recovery().torn_segment, None);

    // Appending continues at the next seq and survives a reopen.
    let more = random_batch(rng, "after", n_kept, 5, 60);
    let appended = log.append(&more).unwrap();
    assert_eq!(appended.first_seq, last_seq + 1);
    drop(log);
    let log = Log::open(arc(image.clone()), config.clone()).unwrap();
    assert_eq!(
        log.recovery().torn_tail,
        None,
        "the tail was already repaired"
    );
    let mut expected = sent[..n_kept].to_vec();
    expected.extend(more);
    assert_events(&replay_all(log.reader()), &expected);
    assert!(log.verify().unwrap().is_ok());
    drop(log);
    assert!(verify_storage(image, &test_key(), None).unwrap().is_ok());
    last_seq
}

/// One scenario under `Durability::Sync`: crash at a random sync, tear the
/// tail at random, recover.
fn crash_at_random_sync(seed: u64, coverage: &mut Coverage) {
    let mut rng = StdRng::seed_from_u64(seed);
    let storage = FaultyStorage::new();
    let config = LogConfig::new(test_key()).segment_bytes_max(rng.random_range(1024..=4096));
    let log = Log::open(arc(storage.clone()), config.clone()).unwrap();
    storage.crash_at_sync(rng.random_range(1..=40));
    let mut sent: Vec<Event> = Vec::new();
    let mut acknowledged = 0;
    loop {
        let batch = random_batch(&mut rng, "crash", sent.len(), 20, 300);
        let n_events = batch.len() as u64;
        let result = log.append(&batch);
        sent.extend(batch);
        match result {
            Ok(appended) => {
                assert_eq!(appended.first_seq, acknowledged + 1);
                assert_eq!(appended.last_seq, acknowledged + n_events);
                acknowledged = appended.last_seq;
            }
            Err(e) => {
                assert!(matches!(e, AppendError::Poisoned { .. }), "{e}");
                break;
            }
        }
        assert!(acknowledged < 10_000, "the armed crash never fired");
    }
    assert!(storage.crashed());
    assert_eq!(
        log.last_seq(),
        acknowledged,
        "readers never see a failed frame"
    );
    let refused = log.append(&[session_event("crash", 0, "after the crash")]);
    assert!(matches!(refused, Err(AppendError::Poisoned { .. })));
    drop(log);

    let last = last_segment(&storage);
    let unsynced = last.unsynced();
    let tear = random_tear(&mut rng, unsynced);
    let image = storage.crash_image(tear);
    let image_bytes = image.written_bytes(&last.name).unwrap();
    for name in image.list().unwrap() {
        if name != last.name {
            assert!(
                image.written_bytes(&name) == storage.written_bytes(&name),
                "sealed segment {name} is not whole after a crash ({tear:?})"
            );
        }
    }
    // Under Sync the durable frames end at a frame boundary, followed only by
    // reserved zeros, and at most one frame is unsynced: the tail is torn
    // unless none or all of it landed. Zeros alone past the durable frames are
    // reserved space, not a torn frame.
    let frames_end = whole_frames_end(&image_bytes, last.durable_end);
    let torn = image_bytes[frames_end..].iter().any(|&b| b != 0);
    if image_bytes == last.written && unsynced > 0 {
        coverage.unacknowledged_kept += 1;
    }

    // Sometimes the machine dies again while recovery repairs the tail:
    // the next recovery must find the same tail and finish the job.
    let image = if torn && rng.random_bool(0.3) {
        image.crash_at_sync(1);
        let err = Log::open(arc(image.clone()), config.clone()).unwrap_err();
        assert!(matches!(err, OpenError::Io(_)), "{err}");
        coverage.crashed_recoveries += 1;
        image.crash_image(Tear::LoseUnsynced)
    } else {
        image
    };
    let log = Log::open(arc(image.clone()), config.clone()).unwrap();
    match log.recovery().torn_tail.clone() {
        Some(t) => {
            assert!(
                torn,
                "torn tail reported for a clean crash image ({tear:?}): {t:?}"
            );
            assert_eq!(t.segment, last.name);
            assert_eq!(t.offset, frames_end as u64);
            assert_eq!(t.bytes, (image_bytes.len() - frames_end) as u64);
            assert_eq!(
                image.written_bytes(&last.name).unwrap().len(),
                frames_end,
                "the torn tail is truncated"
            );
            assert!(log.recovery().warning().is_some());
            coverage.torn_tails += 1;
        }
        None => assert!(!torn, "a torn tail went unreported ({tear:?})"),
    }
    drop(log);
    if last.n_segments > 1 {
        coverage.multi_segment += 1;
    }
    reopen_and_check(&mut rng, &image, &config, &sent, acknowledged);
}

#[test]
fn log_crash_at_any_sync_keeps_every_acknowledged_event() {
    let base = support::seed(0x00C0_FFEE);
    eprintln!("base seed {base} (replay with ENGRAM_TEST_SEED={base})");
    let mut coverage = Coverage::default();
    for i in 0..SEEDS {
        let seed = base.wrapping_add(i);
        eprintln!("scenario seed {seed}");
        crash_at_random_sync(seed, &mut coverage);
    }
    eprintln!("{coverage:?}");
    // The scenarios must have reached the interesting cases.
    assert!(coverage.torn_tails >= 10, "{coverage:?}");
    assert!(coverage.crashed_recoveries >= 3, "{coverage:?}");
    assert!(coverage.unacknowledged_kept >= 5, "{coverage:?}");
    assert!(coverage.multi_segment >= 50, "{coverage:?}");
}

/// One scenario under a lazy durability: appends, explicit syncs and clock
/// jumps in random order, maybe a crash at a sync, then a power cut.
fn crash_lazy(seed: u64, durability: Durability) {
    let mut rng = StdRng::seed_from_u64(seed);
    let storage = FaultyStorage::new();
    let clock = ManualClock::new(1_700_000_000_000);
    let config = LogConfig::new(test_key())
        .durability(durability)
        .segment_bytes_max(rng.random_range(1024..=4096))
        .clock(Arc::new(clock.clone()));
    let log = Log::open(arc(storage.clone()), config.clone()).unwrap();
    if rng.random_bool(0.5) {
        storage.crash_at_sync(rng.random_range(1..=6));
    }
    let mut sent: Vec<Event> = Vec::new();
    let mut acknowledged = 0;
    let mut synced = 0;
    for _ in 0..rng.random_range(1..=60) {
        match rng.random_range(0..10) {
            0 => match log.sync() {
                Ok(()) => synced = acknowledged,
                Err(e) => {
                    assert!(matches!(e, AppendError::Poisoned { .. }), "{e}");
                    break;
                }
            },
            1 => clock.advance(Duration::from_secs(rng.random_range(0..=7200))),
            _ => {
                let batch = random_batch(&mut rng, "lazy", sent.len(), 20, 300);
                let result = log.append(&batch);
                sent.extend(batch);
                match result {
                    Ok(appended) => {
                        assert_eq!(appended.first_seq, acknowledged + 1);
                        acknowledged = appended.last_seq;
                    }
                    Err(e) => {
                        assert!(matches!(e, AppendError::Poisoned { .. }), "{e}");
                        break;
                    }
                }
            }
        }
    }
    // The power goes out now, whether or not the armed crash fired; the log
    // is still open, so nothing is synced on the way down.
    let last = last_segment(&storage);
    let unsynced = last.unsynced();
    let tear = random_tear(&mut rng, unsynced);
    let image = storage.crash_image(tear);
    let image_len = image.written_bytes(&last.name).unwrap().len() as u64;
    drop(log);

    let log = Log::open(arc(image.clone()), config.clone()).unwrap();
    let good_end = image.written_bytes(&last.name).unwrap().len() as u64;
    match log.recovery().torn_tail.clone() {
        Some(t) => {
            assert_eq!(t.segment, last.name);
            assert_eq!(t.offset, good_end, "the torn tail is truncated");
            assert_eq!(t.offset + t.bytes, image_len);
        }
        None => {
            assert_eq!(good_end, image_len, "bytes dropped without a report");
            assert!(
                !matches!(tear, Tear::Garbage(n) if n > 0 && unsynced > 0),
                "garbage after unsynced data must be reported as a torn tail"
            );
        }
    }
    drop(log);
    reopen_and_check(&mut rng, &image, &config, &sent, synced);
}

#[test]
fn log_crash_with_lazy_durability_keeps_a_prefix() {
    let base = support::seed(0x1A2B_0000);
    eprintln!("base seed {base} (replay with ENGRAM_TEST_SEED={base})");
    for i in 0..SEEDS / 2 {
        let seed = base.wrapping_add(i);
        eprintln!("scenario seed {seed}, None");
        crash_lazy(seed, Durability::None);
        eprintln!("scenario seed {seed}, Interval");
        // An hour: only clock jumps, rotations and explicit syncs sync.
        crash_lazy(seed, Durability::Interval(Duration::from_secs(3600)));
    }
}

/// A few acknowledged events on a fresh `FaultyStorage` log.
fn log_with_events(storage: &FaultyStorage) -> (Log, Vec<Event>) {
    let log = Log::open(arc(storage.clone()), LogConfig::new(test_key())).unwrap();
    let events: Vec<Event> = (0..5)
        .map(|turn| session_event("eio", turn, &format!("acknowledged {turn}")))
        .collect();
    for (i, event) in events.iter().enumerate() {
        assert_eq!(log.append_one(event).unwrap(), i as u64 + 1);
    }
    (log, events)
}

/// Checks that a poisoned log refuses everything, keeps serving reads of
/// what was acknowledged, and reports the poison on close.
fn assert_poisoned(log: Log, acknowledged: &[Event]) {
    assert!(log.poisoned().is_some());
    // Not retryable: the disk works again, the log still refuses.
    let again = log.append_one(&session_event("eio", 99, "retry"));
    assert!(
        matches!(again, Err(AppendError::Poisoned { .. })),
        "{again:?}"
    );
    assert!(matches!(log.sync(), Err(AppendError::Poisoned { .. })));
    assert_eq!(log.last_seq(), acknowledged.len() as u64);
    assert_events(&replay_all(log.reader()), acknowledged);
    assert!(matches!(log.close(), Err(AppendError::Poisoned { .. })));
}

#[test]
fn log_crash_failed_fsync_poisons_until_reopened() {
    let storage = FaultyStorage::new();
    let (log, acknowledged) = log_with_events(&storage);
    storage.fail_next_sync();
    let lost = session_event("eio", 5, "never acknowledged");
    let err = log.append_one(&lost).unwrap_err();
    assert!(matches!(err, AppendError::Poisoned { .. }), "{err}");
    assert_poisoned(log, &acknowledged);

    // A crash now keeps exactly the acknowledged events.
    let image = storage.crash_image(Tear::LoseUnsynced);
    let log = Log::open(arc(image), LogConfig::new(test_key())).unwrap();
    assert_events(&replay_all(log.reader()), &acknowledged);
    drop(log);

    // Reopening without a crash re-runs recovery. The failed frame was
    // written but never synced: it may or may not be kept, and either way
    // the log is a verified prefix that takes appends again.
    let log = Log::open(arc(storage.clone()), LogConfig::new(test_key())).unwrap();
    let last_seq = log.last_seq();
    assert!(last_seq == 5 || last_seq == 6, "{last_seq}");
    let mut sent = acknowledged.clone();
    sent.push(lost);
    assert_events(
        &replay_all(log.reader()),
        &sent[..usize::try_from(last_seq).unwrap()],
    );
    let next = session_event("eio", 7, "after reopening");
    assert_eq!(log.append_one(&next).unwrap(), last_seq + 1);
    assert!(log.verify().unwrap().is_ok());
    log.close().unwrap();
}

#[test]
fn log_crash_after_a_reopen_keeps_the_unsynced_frame_the_reopen_recorded() {
    // A writer wrote a frame and stopped before it was durable (its
    // fdatasync failed here; a process killed before its fdatasync leaves
    // the same). The next open reads the frame back whole from the page
    // cache and records the log's end, past it, as durable. A machine
    // crash before any further sync used to lose the frame while the tail
    // record named it: the next open refused the log as cut short
    // ("its end is missing"). Found by the model-based test (`model`).
    let storage = FaultyStorage::new();
    let (log, acknowledged) = log_with_events(&storage);
    storage.fail_next_sync();
    let unsynced = session_event("eio", 5, "written, never synced");
    assert!(log.append_one(&unsynced).is_err());
    drop(log);

    let reopened = Log::open(arc(storage.clone()), LogConfig::new(test_key())).unwrap();
    assert_eq!(reopened.last_seq(), 6, "the whole frame is read back");
    // The machine stops while the reopened log is open, before any append.
    let images: Vec<(Tear, FaultyStorage)> =
        [Tear::LoseUnsynced, Tear::KeepPrefix(17), Tear::Garbage(64)]
            .into_iter()
            .map(|tear| (tear, storage.crash_image(tear)))
            .collect();
    drop(reopened);

    for (tear, image) in images {
        let log = Log::open(arc(image), LogConfig::new(test_key()))
            .unwrap_or_else(|e| panic!("{tear:?}: the log does not open: {e}"));
        let mut kept = acknowledged.clone();
        kept.push(unsynced.clone());
        assert_events(&replay_all(log.reader()), &kept);
        assert!(log.verify().unwrap().is_ok());
        log.close().unwrap();
    }
}

#[test]
fn log_crash_a_write_cut_inside_the_hmac_is_a_torn_tail() {
    // The crash cut the last frame's write inside its trailer: the header,
    // payload and hash landed, the last bytes of the HMAC did not. The hash
    // checks out, so opening used to keep the frame, and every read of it
    // then failed its HMAC: the views could not open and the store was
    // stuck until a repair. It was never acknowledged: it is a torn tail.
    // Found by the model-based test (`model`).
    let storage = FaultyStorage::new();
    let (log, acknowledged) = log_with_events(&storage);
    let cut = session_event("eio", 5, "its HMAC never fully landed");
    let frame_len = engram_log::format::FRAME_OVERHEAD
        + engram_log::format::EVENT_LEN_PREFIX
        + engram_log::codec::encode(&cut).unwrap().len();
    storage.crash_at_sync(1);
    assert!(log.append_one(&cut).is_err());
    drop(log);
    for missing in [1, 10, 32] {
        let image = storage.crash_image(Tear::KeepPrefix(frame_len - missing));
        let log = Log::open(arc(image), LogConfig::new(test_key()))
            .unwrap_or_else(|e| panic!("{missing} bytes missing: {e}"));
        let torn = log.recovery().torn_tail.as_ref();
        assert!(torn.is_some_and(|t| t.reason.contains("HMAC")), "{torn:?}");
        assert_events(&replay_all(log.reader()), &acknowledged);
        assert!(log.verify().unwrap().is_ok());
        let next = session_event("eio", 5, "after the torn tail");
        assert_eq!(log.append_one(&next).unwrap(), 6);
        log.close().unwrap();
    }
}

#[test]
fn log_crash_failed_write_poisons_until_reopened() {
    let storage = FaultyStorage::new();
    let (log, acknowledged) = log_with_events(&storage);
    storage.fail_next_write();
    let err = log
        .append(&[session_event("eio", 5, "never written")])
        .unwrap_err();
    assert!(matches!(err, AppendError::Poisoned { .. }), "{err}");
    assert_poisoned(log, &acknowledged);

    let log = Log::open(arc(storage.clone()), LogConfig::new(test_key())).unwrap();
    assert_eq!(log.recovery().torn_tail, None);
    assert_events(&replay_all(log.reader()), &acknowledged);
    let next = session_event("eio", 6, "after reopening");
    assert_eq!(log.append_one(&next).unwrap(), 6);
    assert!(log.verify().unwrap().is_ok());
    log.close().unwrap();
}

/// On a real file system the name of a new segment can become durable
/// before its header does (another file's fsync commits the journal), so a
/// crash while starting a segment can leave a last segment that is empty,
/// cut short inside its header, or full of zeros. It holds no acknowledged
/// frame: a writer removes it and starts the segment again; a reader and
/// `verify` report it and change nothing.
#[test]
fn log_crash_torn_segment_creation_is_removed() {
    let mut rng = support::seeded_rng("torn segment", 0x5E6);
    let key = test_key();
    let whole = SegmentHeader {
        version: FORMAT_VERSION,
        first_seq: 1,
        key_id: key.key_id(),
        prev_hash: GENESIS_HASH,
    }
    .encode();
    let mut bad_check = whole;
    bad_check[SEGMENT_HEADER_LEN - 1] ^= 0xFF;
    let cases: [(&str, Vec<u8>); 5] = [
        ("empty", Vec::new()),
        ("header cut short", whole[..40].to_vec()),
        ("zeros", vec![0; SEGMENT_HEADER_LEN]),
        ("zeros past the header", vec![0; 500]),
        ("header with a bad check", bad_check.to_vec()),
    ];
    for (what, bytes) in cases {
        let storage = MemStorage::new();
        let config = LogConfig::new(key.clone()).segment_bytes_max(1024);
        let log = Log::open(arc(storage.clone()), config.clone()).unwrap();
        let mut sent = Vec::new();
        for _ in 0..8 {
            let batch = random_batch(&mut rng, "torn", sent.len(), 4, 60);
            log.append(&batch).unwrap();
            sent.extend(batch);
        }
        log.close().unwrap();
        // The writer opened the log again and died creating the next segment.
        support::mark_crashed_mem(&storage);
        let last_seq = sent.len() as u64;
        let torn = segment_name(last_seq + 1);
        storage.set_file_bytes(&torn, bytes.clone());

        let reader = LogReader::open(arc(storage.clone()), key.clone()).unwrap();
        assert_eq!(
            reader.recovery().torn_segment.as_ref(),
            Some(&torn),
            "{what}"
        );
        assert_eq!(reader.last_seq(), last_seq, "{what}");
        assert_events(&replay_all(&reader), &sent);
        let report = reader.verify().unwrap();
        assert!(report.is_ok(), "{what}: {:?}", report.problem);
        let report = verify_storage(&storage, &key, None).unwrap();
        assert!(report.is_ok(), "{what}: {:?}", report.problem);
        assert_eq!(report.last_seq, last_seq, "{what}");
        assert!(
            report.torn_tail.is_some(),
            "{what}: the torn segment is reported"
        );
        assert_eq!(
            storage.file_bytes(&torn),
            Some(bytes),
            "{what}: readers change nothing"
        );
        drop(reader);

        let log = Log::open(arc(storage.clone()), config).unwrap();
        assert_eq!(log.recovery().torn_segment.as_ref(), Some(&torn), "{what}");
        assert!(log.recovery().warning().is_some());
        let more = session_event("torn", 0, "the segment starts again");
        assert_eq!(log.append_one(&more).unwrap(), last_seq + 1, "{what}");
        sent.push(more);
        assert_events(&replay_all(log.reader()), &sent);
        log.close().unwrap();
        let report = verify_storage(&storage, &key, None).unwrap();
        assert!(report.is_ok(), "{what}: {:?}", report.problem);
        assert_eq!(report.torn_tail, None, "{what}");
        assert_eq!(report.n_events, last_seq + 1);
    }
}

#[test]
fn log_crash_torn_tail_after_a_clean_close_and_reopen_is_still_cut() {
    // A log closed cleanly, opened again, and torn by a crash in the middle
    // of an append: what the crash tore lies past the end recorded at the
    // reopen, so recovery still cuts it silently, and keeps everything
    // before it (the frames of the first run, and every acknowledged one).
    let mut rng = support::seeded_rng("torn after reopen", 0x7E0);
    for round in 0..40 {
        let storage = FaultyStorage::new();
        let config = LogConfig::new(test_key());
        let log = Log::open(arc(storage.clone()), config.clone()).unwrap();
        let mut sent = Vec::new();
        for _ in 0..5 {
            let batch = random_batch(&mut rng, "first run", sent.len(), 4, 80);
            log.append(&batch).unwrap();
            sent.extend(batch);
        }
        log.close().unwrap();
        let closed = sent.len() as u64;

        let log = Log::open(arc(storage.clone()), config.clone()).unwrap();
        assert_eq!(log.recovery().tail, Some(engram_log::TailState::Closed));
        // Crash at the sync of the second append of this run.
        storage.crash_at_sync(2);
        let mut acknowledged = closed;
        for _ in 0..2 {
            let batch = random_batch(&mut rng, "second run", sent.len(), 4, 80);
            let result = log.append(&batch);
            sent.extend(batch);
            match result {
                Ok(appended) => acknowledged = appended.last_seq,
                Err(e) => assert!(matches!(e, AppendError::Poisoned { .. }), "{e}"),
            }
        }
        drop(log);
        assert!(storage.crashed(), "round {round}");
        let last = last_segment(&storage);
        // Less than a frame's header and trailer of the unsynced frame
        // reached the disk: always a torn frame.
        assert!(last.unsynced() > 0, "round {round}");
        let tear = Tear::KeepPrefix(rng.random_range(1..FRAME_OVERHEAD));
        let image = storage.crash_image(tear);

        let report = verify_storage(&image, &test_key(), None).unwrap();
        assert!(report.is_ok(), "round {round}: {:?}", report.problem);
        assert_eq!(report.tail, Some(engram_log::TailState::Open));
        let log = Log::open(arc(image.clone()), config.clone())
            .unwrap_or_else(|e| panic!("round {round} ({tear:?}): {e}"));
        let last_seq = log.last_seq();
        assert!(
            last_seq >= acknowledged,
            "round {round}: lost acknowledged events"
        );
        assert_events(
            &replay_all(log.reader()),
            &sent[..usize::try_from(last_seq).unwrap()],
        );
        let torn = log.recovery().torn_tail.clone().expect("a torn tail");
        assert_eq!(torn.segment, last.name, "round {round}");
        assert_eq!(last_seq, acknowledged, "round {round}");
        log.close().unwrap();
        assert!(verify_storage(&image, &test_key(), None).unwrap().is_ok());
    }
}

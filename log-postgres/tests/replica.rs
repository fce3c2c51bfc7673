//! Frames read from PostgreSQL are segment frames: appended byte for byte
//! to a local segment log they verify there, the same appends made to a
//! segment log give the same bytes, and a replica can prove the shared log
//! continues it.

use std::sync::Arc;

use engram_log::format::{SEGMENT_HEADER_LEN, parse_frame};
use engram_log::{Log, LogConfig, ManualClock, MemStorage, Storage};
use engram_log_postgres::{PgLogConfig, PgLogError};

use crate::support::{TestDb, key, turn};

/// The frames in a segment log's storage, as bytes.
fn segment_frames(storage: &MemStorage) -> Vec<Vec<u8>> {
    let mut frames = Vec::new();
    for name in storage.list().unwrap() {
        let file = storage.open(&name).unwrap();
        let mut bytes = vec![0u8; file.len().unwrap() as usize];
        file.read_exact_at(&mut bytes, 0).unwrap();
        let mut at = SEGMENT_HEADER_LEN;
        while let Ok(frame) = parse_frame(&bytes[at..]) {
            frames.push(bytes[at..at + frame.len()].to_vec());
            at += frame.len();
        }
    }
    frames
}

#[test]
fn frames_from_postgres_are_the_segment_logs_frames_byte_for_byte() {
    let Some(db) = TestDb::new("replica_bytes") else {
        return;
    };
    // The same appends, one at a time, with the same clock, to both logs.
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let shared = db.log(PgLogConfig::default().clock(clock.clone()));
    let segment_storage = Arc::new(MemStorage::new());
    let segment = Log::open(
        segment_storage.clone() as Arc<dyn Storage>,
        LogConfig::new(key()).clock(clock.clone()),
    )
    .unwrap();
    for n in 0..30u64 {
        let batch: Vec<_> = (0..=n % 4).map(|k| turn("r", n * 4 + k)).collect();
        assert_eq!(
            shared.append(&batch).unwrap(),
            segment.append(&batch).unwrap()
        );
        clock.advance(std::time::Duration::from_millis(n % 3));
    }
    let frames = shared.frames_after(0, usize::MAX).unwrap();
    let bytes: Vec<Vec<u8>> = frames.iter().map(|f| f.bytes.clone()).collect();
    assert_eq!(bytes, segment_frames(&segment_storage));
    assert_eq!(shared.head().unwrap().last_hash, segment.last_hash());

    // A replica built from the shared frames, in small reads, verifies and
    // reads back the same events, sealing its own segments as it goes.
    let replica_storage = Arc::new(MemStorage::new());
    let replica = Log::open(
        replica_storage.clone() as Arc<dyn Storage>,
        LogConfig::new(key()).segment_bytes_max(4096),
    )
    .unwrap();
    loop {
        shared
            .check_continuity(replica.last_seq(), &replica.last_hash())
            .unwrap();
        let frames = shared.frames_after(replica.last_seq(), 7).unwrap();
        if frames.is_empty() {
            break;
        }
        assert!(frames.len() <= 7);
        for frame in frames {
            let appended = replica.append_frame(&frame.bytes).unwrap();
            assert_eq!(
                (appended.first_seq, appended.last_seq),
                (frame.first_seq, frame.last_seq)
            );
            assert_eq!(
                replica.read(frame.first_seq..=frame.last_seq).unwrap(),
                frame.events
            );
        }
    }
    let report = replica.verify().unwrap();
    assert!(report.is_ok(), "{report:?}");
    assert!(report.n_segments > 1);
    assert_eq!(replica.last_seq(), shared.last_seq().unwrap());
    assert_eq!(
        replica.read(1..=replica.last_seq()).unwrap(),
        shared.read(1..=replica.last_seq()).unwrap()
    );
    assert_eq!(segment_frames(&replica_storage), bytes);
}

#[test]
fn a_replica_that_the_shared_log_does_not_continue_is_told_so() {
    let Some(db) = TestDb::new("continuity") else {
        return;
    };
    let shared = db.log(PgLogConfig::default());
    for n in 0..5 {
        shared.append(&[turn("c", n), turn("c", n + 100)]).unwrap();
    }
    let frames = shared.frames_after(0, 3).unwrap();
    let replica = Log::open(Arc::new(MemStorage::new()), LogConfig::new(key())).unwrap();
    for frame in &frames {
        replica.append_frame(&frame.bytes).unwrap();
    }
    assert_eq!(replica.last_seq(), 6);
    shared.check_continuity(6, &replica.last_hash()).unwrap();
    shared.check_continuity(0, &[0; 32]).unwrap();
    // Another hash at the same seq: a replica of another log.
    let other = shared.check_continuity(6, &[9; 32]);
    assert!(
        matches!(other, Err(PgLogError::Diverged { seq: 6, .. })),
        "{other:?}"
    );
    // A seq inside a frame: not where this log's frames end.
    let inside = shared.check_continuity(5, &replica.last_hash());
    assert!(
        matches!(inside, Err(PgLogError::Diverged { seq: 5, .. })),
        "{inside:?}"
    );
    // A replica ahead of the shared log: the shared log was rewound.
    let ahead = shared.check_continuity(11, &replica.last_hash());
    assert!(
        matches!(
            ahead,
            Err(PgLogError::Rewound {
                shared_last_seq: 10,
                seen_last_seq: 11
            })
        ),
        "{ahead:?}"
    );
    // A frame of the shared log that does not link to a local append is
    // refused by the replica.
    replica.append(&[turn("local", 0)]).unwrap();
    let next = shared.frames_after(6, 1).unwrap();
    let refused = replica.append_frame(&next[0].bytes);
    assert!(refused.is_err(), "{refused:?}");
}

//! Appending: seqs contiguous from 1, concurrent batches of one process
//! grouped into shared transactions, commit times that never go back, and
//! batches appended at a given seq and time (import).

use std::sync::Arc;

use engram_log::{AppendError, ManualClock};
use engram_log_postgres::{PgLogConfig, PgLogError};

use crate::support::{TestDb, session_turn, turn};

#[test]
fn concurrent_appends_get_contiguous_seqs_and_read_back_verified() {
    let Some(db) = TestDb::new("concurrent_appends") else {
        return;
    };
    let log = Arc::new(db.log(PgLogConfig::default()));
    assert!(log.created());
    assert_eq!(log.last_seq().unwrap(), 0);
    let threads: Vec<_> = (0..8u64)
        .map(|t| {
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                let mut acks = Vec::new();
                for n in 0..25u64 {
                    let batch: Vec<_> = (0..=n % 3)
                        .map(|k| turn(&format!("w{t}"), n * 3 + k))
                        .collect();
                    acks.push((log.append(&batch).unwrap(), batch));
                }
                acks
            })
        })
        .collect();
    let acks: Vec<_> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    let n_events: u64 = acks.iter().map(|(a, _)| a.last_seq - a.first_seq + 1).sum();
    assert_eq!(log.last_seq().unwrap(), n_events);
    let events = log.read(1..=n_events).unwrap();
    assert_eq!(events.len() as u64, n_events);
    for (at, event) in events.iter().enumerate() {
        assert_eq!(event.seq, at as u64 + 1);
    }
    for (appended, batch) in &acks {
        let got: Vec<_> = events[(appended.first_seq - 1) as usize..appended.last_seq as usize]
            .iter()
            .map(|e| e.event.clone())
            .collect();
        assert_eq!(&got, batch, "ack {appended:?}");
    }
    // Frames: whole, contiguous, and each append inside exactly one.
    let frames = log.frames_after(0, usize::MAX).unwrap();
    assert_eq!(frames.first().unwrap().first_seq, 1);
    assert!(
        frames
            .windows(2)
            .all(|w| w[0].last_seq + 1 == w[1].first_seq && w[0].hash == w[1].prev_hash)
    );
    assert!(frames.windows(2).all(|w| w[0].ts_ms <= w[1].ts_ms));
    for (appended, _) in &acks {
        assert_eq!(
            frames
                .iter()
                .filter(|f| f.first_seq <= appended.first_seq && appended.last_seq <= f.last_seq)
                .count(),
            1
        );
    }
    eprintln!("{} appends in {} frames", acks.len(), frames.len());
    assert!(frames.len() <= acks.len());
    let report = log.verify().unwrap();
    assert!(report.is_ok(), "{report:?}");
    assert_eq!(report.last_seq, n_events);
    assert_eq!(report.n_frames, frames.len() as u64);
    assert_eq!(log.head().unwrap().last_hash, frames.last().unwrap().hash);
    // A second connect finds the log made, with the same head.
    let again = db.log(PgLogConfig::default());
    assert!(!again.created());
    assert_eq!(again.last_seq().unwrap(), n_events);
}

#[test]
fn commit_times_never_go_backwards_when_the_clock_does() {
    let Some(db) = TestDb::new("commit_times") else {
        return;
    };
    let late = db.log(PgLogConfig::default().clock(Arc::new(ManualClock::new(50_000))));
    late.append(&[turn("t", 0)]).unwrap();
    // Another machine whose clock is behind.
    let early = db.log(PgLogConfig::default().clock(Arc::new(ManualClock::new(20_000))));
    early.append(&[turn("t", 1)]).unwrap();
    let events = early.read(1..=2).unwrap();
    assert_eq!(events[0].ts_ms, 50_000);
    assert_eq!(events[1].ts_ms, 50_000);
}

#[test]
fn batches_appended_at_a_seq_keep_seqs_and_times_and_refusals_write_nothing() {
    let Some(db) = TestDb::new("append_at") else {
        return;
    };
    let log = db.log(PgLogConfig::default().clock(Arc::new(ManualClock::new(1_000))));
    log.append_at(1, 5_000, &[turn("i", 0), turn("i", 1)])
        .unwrap();
    log.append_at(3, 7_000, &[turn("i", 2)]).unwrap();
    let wrong_seq = log.append_at(9, 8_000, &[turn("i", 9)]);
    assert!(
        matches!(
            wrong_seq,
            Err(PgLogError::Batch(AppendError::SeqMismatch {
                first_seq: 9,
                expected: 4
            }))
        ),
        "{wrong_seq:?}"
    );
    let backwards = log.append_at(4, 6_999, &[turn("i", 3)]);
    assert!(
        matches!(
            backwards,
            Err(PgLogError::Batch(AppendError::TimeBackwards {
                ts_ms: 6_999,
                last_ts_ms: 7_000
            }))
        ),
        "{backwards:?}"
    );
    let empty = log.append(&[]);
    assert!(
        matches!(empty, Err(PgLogError::Batch(AppendError::EmptyBatch))),
        "{empty:?}"
    );
    assert_eq!(db.n_rows(), 3);
    // The clock (1 000) is behind: the next append takes the last time.
    log.append(&[turn("i", 3)]).unwrap();
    let times: Vec<_> = log
        .read(1..=4)
        .unwrap()
        .iter()
        .map(|e| (e.seq, e.ts_ms))
        .collect();
    assert_eq!(times, [(1, 5_000), (2, 5_000), (3, 7_000), (4, 7_000)]);
    assert!(log.verify().unwrap().is_ok());
}

#[test]
fn a_failed_transaction_writes_nothing_of_its_frame() {
    // A row already sits where the third event of the next frame would
    // go (put there by hand): the insert fails on the key, the whole
    // transaction rolls back, and neither the first two rows nor the head
    // move.
    let Some(db) = TestDb::new("failed_transaction") else {
        return;
    };
    let log = db.log(PgLogConfig::default());
    log.append(&[turn("a", 0)]).unwrap();
    let mut admin = db.admin();
    admin
        .execute(
            "INSERT INTO engram_events SELECT 4, ts_ms, event, 4, 4, format_version, frame_prev_hash, frame_hash, frame_mac FROM engram_events WHERE seq = 1",
            &[],
        )
        .unwrap();
    let refused = log.append(&[turn("a", 1), turn("a", 2), turn("a", 3)]);
    assert!(
        matches!(&refused, Err(PgLogError::Database { code, .. }) if code == "23505"),
        "{refused:?}"
    );
    assert_eq!(db.n_rows(), 2);
    assert_eq!(log.last_seq().unwrap(), 1);
    admin
        .execute("DELETE FROM engram_events WHERE seq = 4", &[])
        .unwrap();
    // The writer is still usable.
    let appended = log
        .append(&[turn("a", 1), turn("a", 2), turn("a", 3)])
        .unwrap();
    assert_eq!((appended.first_seq, appended.last_seq), (2, 4));
    let events = log.read(1..=4).unwrap();
    assert_eq!(session_turn(&events[3].event), ("a".to_owned(), 3));
    assert!(log.verify().unwrap().is_ok());
}

#[test]
fn concurrent_first_connects_create_the_schema_once() {
    let Some(db) = TestDb::new("first_connects") else {
        return;
    };
    let url = db.url.clone();
    let connects: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || {
                engram_log_postgres::PgLog::connect(
                    &url,
                    crate::support::key(),
                    PgLogConfig::default(),
                )
                .unwrap()
            })
        })
        .collect();
    let logs: Vec<_> = connects.into_iter().map(|c| c.join().unwrap()).collect();
    assert_eq!(logs.iter().filter(|log| log.created()).count(), 1);
    for (n, log) in logs.iter().enumerate() {
        log.append(&[turn("c", n as u64)]).unwrap();
    }
    assert_eq!(logs[0].last_seq().unwrap(), 4);
    assert!(logs[3].verify().unwrap().is_ok());
}

#[test]
fn a_commit_made_while_waiting_for_the_head_lock_is_not_taken_for_damage() {
    // Two writers queue behind a transaction holding the head lock. When
    // it ends, one commits; the other then finds the head moved by a
    // commit its first statement began before, whose rows that statement
    // does not see: it must append after them, not report the rows the
    // head names as missing.
    let Some(db) = TestDb::new("lock_queue") else {
        return;
    };
    let first = Arc::new(db.log(PgLogConfig::default()));
    let second = Arc::new(db.log(PgLogConfig::default()));
    first.append(&[turn("q", 0)]).unwrap();
    second.append(&[turn("q", 1)]).unwrap();
    let mut holder = db.admin();
    let mut txn = holder.transaction().unwrap();
    let holder_pid: i32 = txn
        .query_one("SELECT pg_backend_pid()", &[])
        .unwrap()
        .get(0);
    txn.execute("SELECT 1 FROM engram_head FOR UPDATE", &[])
        .unwrap();
    let appends: Vec<_> = [(&first, 2), (&second, 3)]
        .into_iter()
        .map(|(log, n)| {
            let log = Arc::clone(log);
            std::thread::spawn(move || log.append(&[turn("q", n)]))
        })
        .collect();
    // Both wait, on the holder or on each other.
    let mut watcher = db.admin();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let waiting: i64 = watcher
            .query_one(
                "WITH RECURSIVE w(pid) AS ( \
                 SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)) \
                 UNION SELECT a.pid FROM pg_stat_activity a, w WHERE w.pid = ANY(pg_blocking_pids(a.pid))) \
                 SELECT count(*) FROM w",
                &[&holder_pid],
            )
            .unwrap()
            .get(0);
        if waiting == 2 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{waiting} writers wait"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    txn.rollback().unwrap();
    let mut acks: Vec<_> = appends
        .into_iter()
        .map(|a| a.join().unwrap().unwrap())
        .map(|a| (a.first_seq, a.last_seq))
        .collect();
    acks.sort_unstable();
    assert_eq!(acks, [(3, 3), (4, 4)]);
    let report = first.verify().unwrap();
    assert!(report.is_ok(), "{report:?}");
    assert_eq!(report.last_seq, 4);
}

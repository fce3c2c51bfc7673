//! Tailing: a reader following the shared log under concurrent appends
//! from several writers never skips a seq and sees commits in seq order;
//! LISTEN/NOTIFY wakes it at once; a lost notification only delays it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use engram_log::{Log, LogConfig, MemStorage};
use engram_log_postgres::PgLogConfig;

use crate::support::{TestDb, key, turn, with_param};

#[test]
fn a_tailer_under_concurrent_appends_never_skips_a_seq() {
    // The story: with appends from several connections at once, a reader
    // that took "the rows after my last seq" while a transaction holding a
    // lower seq had not committed yet would move past that seq for good.
    // Commits in seq order (the head lock) make every snapshot a prefix:
    // the tailer's every read starts exactly after its last seq, and a
    // snapshot probe never sees a hole.
    let Some(db) = TestDb::new("tail_no_skip") else {
        return;
    };
    const WRITERS: u64 = 4;
    const APPENDS: u64 = 60;
    let config = PgLogConfig::default().poll_interval(Duration::from_millis(200));
    let logs: Vec<_> = (0..WRITERS)
        .map(|_| Arc::new(db.log(config.clone())))
        .collect();
    let total: u64 = WRITERS * (0..APPENDS).map(|n| n % 3 + 1).sum::<u64>();
    let writing = Arc::new(AtomicBool::new(true));

    // A probe counting rows in one snapshot: count == max(seq) always.
    let probe = {
        let writing = Arc::clone(&writing);
        let mut admin = db.admin();
        std::thread::spawn(move || {
            let mut n_probes = 0u64;
            while writing.load(Ordering::SeqCst) {
                let row = admin
                    .query_one(
                        "SELECT count(*), coalesce(max(seq), 0) FROM engram_events",
                        &[],
                    )
                    .unwrap();
                let (count, max): (i64, i64) = (row.get(0), row.get(1));
                assert_eq!(
                    count, max,
                    "a snapshot with a hole: {count} rows up to seq {max}"
                );
                n_probes += 1;
            }
            n_probes
        })
    };
    let tailer_thread = {
        let log = Arc::clone(&logs[0]);
        std::thread::spawn(move || {
            let mut tailer = log.tailer().unwrap();
            let replica = Log::open(Arc::new(MemStorage::new()), LogConfig::new(key())).unwrap();
            let mut last_ts = 0;
            let mut n_reads = 0u64;
            let deadline = Instant::now() + Duration::from_secs(120);
            while replica.last_seq() < total {
                assert!(
                    Instant::now() < deadline,
                    "tailer stuck at {}",
                    replica.last_seq()
                );
                let shared_last = tailer
                    .wait_for_more(replica.last_seq(), Duration::from_secs(5))
                    .unwrap();
                if shared_last == replica.last_seq() {
                    continue;
                }
                for frame in tailer.frames_after(replica.last_seq(), 8).unwrap() {
                    assert_eq!(frame.first_seq, replica.last_seq() + 1, "skipped a seq");
                    assert!(frame.ts_ms >= last_ts, "commit time went back");
                    last_ts = frame.ts_ms;
                    for (event, seq) in frame.events.iter().zip(frame.first_seq..) {
                        assert_eq!(event.seq, seq);
                    }
                    replica.append_frame(&frame.bytes).unwrap();
                }
                n_reads += 1;
            }
            (replica.last_hash(), n_reads, replica)
        })
    };
    let writers: Vec<_> = logs
        .iter()
        .enumerate()
        .map(|(w, log)| {
            let log = Arc::clone(log);
            std::thread::spawn(move || {
                for n in 0..APPENDS {
                    let batch: Vec<_> = (0..=n % 3)
                        .map(|k| turn(&format!("w{w}"), n * 3 + k))
                        .collect();
                    log.append(&batch).unwrap();
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    let (replica_hash, n_reads, replica) = tailer_thread.join().unwrap();
    writing.store(false, Ordering::SeqCst);
    let n_probes = probe.join().unwrap();
    eprintln!("tailer: {n_reads} reads; probe: {n_probes} snapshots");
    assert_eq!(logs[1].last_seq().unwrap(), total);
    assert_eq!(replica_hash, logs[1].head().unwrap().last_hash);
    assert!(replica.verify().unwrap().is_ok());
    assert!(logs[2].verify().unwrap().is_ok());
}

#[test]
fn a_notification_wakes_a_waiting_tailer_at_once() {
    // Polling every minute: only the notification can wake it in time.
    let Some(db) = TestDb::new("tail_notify") else {
        return;
    };
    let log = db.log(PgLogConfig::default().poll_interval(Duration::from_secs(60)));
    let mut tailer = log.tailer().unwrap();
    assert_eq!(
        tailer.wait_for_more(0, Duration::from_millis(50)).unwrap(),
        0
    );
    let writer = db.log(PgLogConfig::default());
    let started = Instant::now();
    let waiter = std::thread::spawn(move || {
        let last = tailer.wait_for_more(0, Duration::from_secs(30)).unwrap();
        (last, Instant::now())
    });
    std::thread::sleep(Duration::from_millis(100));
    writer.append(&[turn("n", 0)]).unwrap();
    let appended_at = Instant::now();
    let (last, woke_at) = waiter.join().unwrap();
    assert_eq!(last, 1);
    let delay = woke_at.saturating_duration_since(appended_at);
    eprintln!(
        "woke {delay:?} after the commit ({:?} after the start)",
        woke_at - started
    );
    assert!(
        delay < Duration::from_secs(5),
        "woke {delay:?} after the commit"
    );
}

#[test]
fn a_lost_notification_only_delays_the_tailer() {
    // The tailer's connection is cut (its LISTEN with it) and a commit
    // lands while it is gone: no notification can reach it. Its next wait
    // reconnects and the head read finds the commit.
    let Some(db) = TestDb::new("tail_lost_notify") else {
        return;
    };
    let app = format!("tailer_{}", db.schema);
    let tail_url = with_param(&db.url, "application_name", &app);
    let tail_log = engram_log_postgres::PgLog::connect(
        &tail_url,
        key(),
        PgLogConfig::default().poll_interval(Duration::from_millis(200)),
    )
    .unwrap();
    let mut tailer = tail_log.tailer().unwrap();
    let writer = db.log(PgLogConfig::default());
    writer.append(&[turn("l", 0)]).unwrap();
    assert_eq!(tailer.wait_for_more(0, Duration::from_secs(10)).unwrap(), 1);
    let mut admin = db.admin();
    let n_cut: i64 = admin
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1",
            &[&app],
        )
        .unwrap()
        .get(0);
    assert!(n_cut >= 1);
    writer.append(&[turn("l", 1)]).unwrap();
    assert_eq!(tailer.wait_for_more(1, Duration::from_secs(10)).unwrap(), 2);
    let frames = tailer.frames_after(1, 10).unwrap();
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0].first_seq, 2);
    // The reading and writing connections of the cut log come back too.
    assert_eq!(tail_log.last_seq().unwrap(), 2);
}

//! Several writer processes on one shared log, and a writer process killed
//! mid-stream. The processes are the crate's `engram-pg-append`, which
//! prints `first_seq last_seq` for every append the log acknowledged.

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use engram_log::{Log, LogConfig, MemStorage};
use engram_log_postgres::{PgLog, PgLogConfig};
use rand::{Rng as _, SeedableRng as _, rngs::StdRng};

use crate::support::{TestDb, appender, key, key_hex, seed, session_turn};

fn spawn_appender(url: &str, tag: &str, events: u64, batch: u64, writers: u64) -> Child {
    Command::new(appender())
        .args([
            "--log",
            url,
            "--key",
            &key_hex(),
            "--tag",
            tag,
            "--print-acks",
        ])
        .args(["--events", &events.to_string()])
        .args(["--batch", &batch.to_string()])
        .args(["--writers", &writers.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Parses an ack line.
fn ack(line: &str) -> Option<(u64, u64)> {
    let (first, last) = line.split_once(' ')?;
    Some((first.parse().ok()?, last.parse().ok()?))
}

/// Checks that every acknowledged range holds `tag`'s events.
fn check_acks(events: &BTreeMap<u64, (String, u64)>, tag: &str, acks: &[(u64, u64)]) {
    for &(first, last) in acks {
        for seq in first..=last {
            let Some((session, _)) = events.get(&seq) else {
                panic!("acknowledged seq {seq} ({tag}) is not in the log");
            };
            assert_eq!(session, tag, "seq {seq}");
        }
    }
}

/// Every event of the log by seq, checking seqs run 1..=last.
fn all_events(log: &PgLog) -> BTreeMap<u64, (String, u64)> {
    let last = log.last_seq().unwrap();
    if last == 0 {
        return BTreeMap::new();
    }
    let events = log.read(1..=last).unwrap();
    assert_eq!(events.len() as u64, last);
    events
        .into_iter()
        .zip(1..)
        .map(|(e, seq)| {
            assert_eq!(e.seq, seq);
            (e.seq, session_turn(&e.event))
        })
        .collect()
}

#[test]
fn four_processes_appending_at_once_lose_nothing_and_replicas_converge() {
    let Some(db) = TestDb::new("four_processes") else {
        return;
    };
    const EVENTS: u64 = 400;
    let log = Arc::new(db.log(PgLogConfig::default().poll_interval(Duration::from_millis(200))));
    // Two replicas follow while the processes append.
    let followers: Vec<_> = (0..2)
        .map(|_| {
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                let mut tailer = log.tailer().unwrap();
                let replica =
                    Log::open(Arc::new(MemStorage::new()), LogConfig::new(key())).unwrap();
                let deadline = Instant::now() + Duration::from_secs(300);
                while replica.last_seq() < 4 * EVENTS {
                    assert!(
                        Instant::now() < deadline,
                        "follower stuck at seq {}",
                        replica.last_seq()
                    );
                    tailer
                        .wait_for_more(replica.last_seq(), Duration::from_secs(10))
                        .unwrap();
                    for frame in tailer.frames_after(replica.last_seq(), 32).unwrap() {
                        replica.append_frame(&frame.bytes).unwrap();
                    }
                }
                replica
            })
        })
        .collect();
    let children: Vec<_> = (0..4u64)
        .map(|p| {
            (
                format!("p{p}"),
                spawn_appender(&db.url, &format!("p{p}"), EVENTS, 1 + p % 3, 3),
            )
        })
        .collect();
    let mut acks = Vec::new();
    for (tag, mut child) in children {
        let stdout = child.stdout.take().unwrap();
        let lines: Vec<(u64, u64)> = BufReader::new(stdout)
            .lines()
            .map(|l| ack(&l.unwrap()).unwrap())
            .collect();
        let output = child.wait_with_output().unwrap();
        eprintln!("{tag}: {}", String::from_utf8_lossy(&output.stderr).trim());
        assert!(output.status.success(), "{tag} failed");
        acks.push((tag, lines));
    }
    let events = all_events(&log);
    assert_eq!(events.len() as u64, 4 * EVENTS, "seqs 1..=N, nothing lost");
    for (tag, lines) in &acks {
        check_acks(&events, tag, lines);
        let acked: u64 = lines.iter().map(|(f, l)| l - f + 1).sum();
        assert_eq!(acked, EVENTS, "{tag}");
        // Each of its events exactly once.
        let mut turns: Vec<u64> = events
            .values()
            .filter(|(s, _)| s == tag)
            .map(|(_, t)| *t)
            .collect();
        turns.sort_unstable();
        assert_eq!(turns, (0..EVENTS).collect::<Vec<_>>(), "{tag}");
    }
    let report = log.verify().unwrap();
    assert!(report.is_ok(), "{report:?}");
    let head = log.head().unwrap();
    for follower in followers {
        let replica = follower.join().unwrap();
        assert_eq!(replica.last_seq(), head.last_seq);
        assert_eq!(replica.last_hash(), head.last_hash);
        assert!(replica.verify().unwrap().is_ok());
        assert_eq!(
            replica.read(1..=head.last_seq).unwrap(),
            log.read(1..=head.last_seq).unwrap()
        );
    }
    eprintln!("{} frames for {} events", report.n_frames, report.n_events);
}

#[test]
fn a_writer_killed_mid_stream_loses_only_unacknowledged_events() {
    // The story: an append acknowledged before its COMMIT returned, or a
    // transaction half-applied when its process died, would leave the
    // shared log missing acknowledged events or holding a hole. After each
    // SIGKILL every acknowledged event must be there, and the table must
    // be a contiguous prefix that verifies.
    let Some(db) = TestDb::new("killed_writer") else {
        return;
    };
    let seed = seed(0x5EED_0F9C);
    eprintln!("killed writer seed {seed} (ENGRAM_TEST_SEED to replay)");
    let mut rng = StdRng::seed_from_u64(seed);
    let log = db.log(PgLogConfig::default());
    let mut all_acks: Vec<(String, Vec<(u64, u64)>)> = Vec::new();
    for round in 0..6 {
        let tag = format!("k{round}");
        let acks_before_kill = if round == 0 {
            0
        } else {
            rng.random_range(1..150)
        };
        let batch = rng.random_range(1..=8);
        let writers = rng.random_range(1..=4);
        let mut child = spawn_appender(&db.url, &tag, 100_000_000, batch, writers);
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let mut acked = Vec::new();
        while acked.len() < acks_before_kill {
            let Some(line) = lines.next() else { break };
            acked.push(ack(&line.unwrap()).unwrap());
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        // Acks printed before the kill landed count too.
        acked.extend(lines.map_while(Result::ok).filter_map(|l| ack(&l)));
        assert!(
            acked.len() >= acks_before_kill,
            "round {round}: the writer ended early"
        );
        let events = all_events(&log);
        check_acks(&events, &tag, &acked);
        let report = log.verify().unwrap();
        assert!(report.is_ok(), "round {round}: {report:?}");
        assert_eq!(report.last_seq, report.head_last_seq);
        eprintln!(
            "round {round}: {} acks (batch {batch}, {writers} writers), log at seq {}",
            acked.len(),
            report.last_seq
        );
        all_acks.push((tag, acked));
    }
    // Nothing acknowledged in an earlier round went missing later.
    let events = all_events(&log);
    for (tag, acked) in &all_acks {
        check_acks(&events, tag, acked);
    }
}

//! Many threads on one log: group commit must hand out disjoint, contiguous
//! seq ranges with each batch stored whole at its range; an acknowledged
//! append is readable at once from any thread (read-your-writes); readers
//! running next to writers see only acknowledged, contiguous events and never
//! an error; random-access reads agree with replay; and reopening shows the
//! same log. Runs on real files (`FileStorage`) and in memory, both with
//! `Durability::Sync`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use engram_log::{
    Appended, Durability, Event, Log, LogConfig, LoggedEvent, MemStorage, Storage, verify_storage,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::support::{self, arc, assert_events, random_batch, replay_all, test_key};

const THREADS: usize = 8;
const READERS: usize = 2;

/// What one writer thread had acknowledged: each range with its batch.
type Acked = Vec<(Appended, Vec<Event>)>;

/// Runs `THREADS` writers of `n_batches` batches each (plus a
/// read-your-writes checker and `READERS` concurrent readers) on `log`;
/// returns every acknowledged range.
fn hammer(log: &Log, n_batches: usize, seed: u64) -> Vec<Acked> {
    let done = AtomicBool::new(false);
    let observed: Mutex<HashMap<u64, Event>> = Mutex::new(HashMap::new());
    let (acks_tx, acks_rx) = std::sync::mpsc::channel::<(Appended, Vec<Event>)>();
    let acked = std::thread::scope(|scope| {
        // Read-your-writes: every acknowledged range, read from another
        // thread as soon as the append returned.
        let checker = scope.spawn(|| {
            let mut n_checked = 0;
            for (appended, batch) in acks_rx {
                let read = log
                    .read(appended.first_seq..=appended.last_seq)
                    .unwrap_or_else(|e| panic!("reading acknowledged {appended:?}: {e}"));
                let events: Vec<Event> = read.into_iter().map(|e| e.event).collect();
                assert_eq!(events, batch, "acknowledged {appended:?}");
                n_checked += 1;
            }
            n_checked
        });
        let readers: Vec<_> = (0..READERS)
            .map(|r| {
                let (done, observed) = (&done, &observed);
                scope.spawn(move || concurrent_reader(log, seed ^ (r as u64 + 100), done, observed))
            })
            .collect();
        let writers: Vec<_> = (0..THREADS)
            .map(|t| {
                let acks_tx = acks_tx.clone();
                scope.spawn(move || {
                    let mut rng = StdRng::seed_from_u64(seed.wrapping_add(t as u64));
                    let session = format!("writer {t}");
                    let mut acked: Acked = Vec::with_capacity(n_batches);
                    let mut turn = 0;
                    for _ in 0..n_batches {
                        let batch = random_batch(&mut rng, &session, turn, 8, 60);
                        turn += batch.len();
                        let appended = log.append(&batch).unwrap();
                        assert_eq!(
                            appended.last_seq - appended.first_seq + 1,
                            batch.len() as u64
                        );
                        acks_tx.send((appended, batch.clone())).unwrap();
                        acked.push((appended, batch));
                    }
                    acked
                })
            })
            .collect();
        drop(acks_tx);
        let acked: Vec<Acked> = writers.into_iter().map(|w| w.join().unwrap()).collect();
        done.store(true, Ordering::Release);
        let n_checked = checker.join().unwrap();
        assert_eq!(n_checked, THREADS * n_batches);
        for reader in readers {
            let passes = reader.join().unwrap();
            assert!(passes >= 1);
        }
        acked
    });
    // Everything the readers saw while the writers ran is what the log holds.
    let last_seq = log.last_seq();
    let all = log.read(1..=last_seq).unwrap();
    let observed = observed.into_inner().unwrap();
    assert!(!observed.is_empty());
    for (seq, event) in observed {
        assert_eq!(
            all[usize::try_from(seq - 1).unwrap()].event,
            event,
            "seq {seq}"
        );
    }
    acked
}

/// Reads while the writers write, until `done`: replays of the recent tail
/// and random ranges, which must be contiguous, error-free and never behind
/// a `last_seq` seen before. Returns the number of passes.
fn concurrent_reader(
    log: &Log,
    seed: u64,
    done: &AtomicBool,
    observed: &Mutex<HashMap<u64, Event>>,
) -> usize {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut seen: Vec<LoggedEvent> = Vec::new();
    let mut passes = 0;
    loop {
        // Read the flag first: the pass after it was set sees the final log.
        let finished = done.load(Ordering::Acquire);
        let before = log.last_seq();
        let from = before.saturating_sub(rng.random_range(0..400)).max(1);
        let replay = log.replay(from);
        let upto = replay.upto();
        assert!(upto >= before, "replay ends at {upto}, before {before}");
        let mut next = from;
        for event in replay {
            let event = event.unwrap_or_else(|e| panic!("replay from {from}: {e}"));
            assert_eq!(event.seq, next, "a gap in the replay");
            next += 1;
            if rng.random_ratio(1, 16) {
                seen.push(event);
            }
        }
        assert_eq!(next, upto + 1, "the replay stopped early");
        let last = log.last_seq();
        assert!(last >= upto);
        if last > 0 {
            let first = rng.random_range(1..=last);
            let end = last.min(first + rng.random_range(0..40));
            let read = log
                .read(first..=end)
                .unwrap_or_else(|e| panic!("read {first}..={end}: {e}"));
            let seqs: Vec<u64> = read.iter().map(|e| e.seq).collect();
            assert_eq!(seqs, (first..=end).collect::<Vec<_>>());
            seen.extend(read.into_iter().filter(|_| rng.random_ratio(1, 4)));
        }
        passes += 1;
        if finished {
            break;
        }
    }
    let mut observed = observed.lock().unwrap();
    for event in seen {
        let earlier = observed.insert(event.seq, event.event.clone());
        assert!(
            earlier.is_none_or(|e| e == event.event),
            "seq {} changed",
            event.seq
        );
    }
    passes
}

/// Checks the ranges of all threads against the log and returns the events
/// in seq order.
fn check_ranges(log: &Log, acked: &[Acked]) -> Vec<Event> {
    let mut ranges: Vec<&(Appended, Vec<Event>)> = acked.iter().flatten().collect();
    ranges.sort_by_key(|(appended, _)| appended.first_seq);
    let mut expected: Vec<Event> = Vec::new();
    for (appended, batch) in ranges {
        // Disjoint and together exactly 1..=last_seq: each range starts
        // where the previous one ended.
        assert_eq!(
            appended.first_seq,
            expected.len() as u64 + 1,
            "{appended:?}"
        );
        assert_eq!(
            appended.last_seq,
            appended.first_seq + batch.len() as u64 - 1
        );
        expected.extend(batch.iter().cloned());
    }
    assert_eq!(log.last_seq(), expected.len() as u64);
    assert_events(&replay_all(log.reader()), &expected);
    // Each thread's batches are in its own order.
    for thread in acked {
        assert!(
            thread
                .windows(2)
                .all(|w| w[0].0.last_seq < w[1].0.first_seq)
        );
    }
    let report = log.verify().unwrap();
    assert!(report.is_ok(), "{:?}", report.problem);
    assert_eq!(report.n_events, expected.len() as u64);
    expected
}

fn concurrent_appends(storage: Arc<dyn Storage>, n_batches: usize, seed: u64) {
    let config = LogConfig::new(test_key())
        .durability(Durability::Sync)
        .segment_bytes_max(64 * 1024);
    let log = Log::open(Arc::clone(&storage), config.clone()).unwrap();
    let acked = hammer(&log, n_batches, seed);
    let expected = check_ranges(&log, &acked);
    let n_segments = log.reader().segments().len();
    assert!(n_segments > 3, "rotation under load: {n_segments} segments");
    log.close().unwrap();

    let log = Log::open(Arc::clone(&storage), config).unwrap();
    assert_eq!(log.recovery().torn_tail, None);
    assert_eq!(log.reader().segments().len(), n_segments);
    assert_events(&replay_all(log.reader()), &expected);
    log.close().unwrap();
    assert!(
        verify_storage(&*storage, &test_key(), None)
            .unwrap()
            .is_ok()
    );
}

#[test]
fn log_concurrency_appends_on_files() {
    let seed = support::seed(0xC0C0_0001);
    eprintln!("seed {seed} (replay with ENGRAM_TEST_SEED={seed})");
    let dir = tempfile::tempdir().unwrap();
    let storage = engram_log::FileStorage::open(dir.path()).unwrap();
    // Every commit group is an fdatasync: fewer batches keep this quick.
    concurrent_appends(Arc::new(storage), 250, seed);
}

#[test]
fn log_concurrency_appends_in_memory() {
    let seed = support::seed(0xC0C0_0002);
    eprintln!("seed {seed} (replay with ENGRAM_TEST_SEED={seed})");
    concurrent_appends(arc(MemStorage::new()), 500, seed);
}

#[test]
fn log_concurrency_random_reads_match_replay() {
    let mut rng = support::seeded_rng("random reads", 0x4EAD);
    let storage = MemStorage::new();
    // Segments big enough for several sparse-index entries each.
    let config = LogConfig::new(test_key())
        .durability(Durability::None)
        .segment_bytes_max(64 * 1024);
    let log = Log::open(arc(storage.clone()), config).unwrap();
    let mut sent = Vec::new();
    for _ in 0..600 {
        let batch = random_batch(&mut rng, "reads", sent.len(), 6, 200);
        log.append(&batch).unwrap();
        sent.extend(batch);
    }
    assert!(log.reader().segments().len() >= 3);
    let all = replay_all(log.reader());
    assert_events(&all, &sent);
    let last = log.last_seq();
    for _ in 0..1500 {
        let first = rng.random_range(1..=last);
        let end = if rng.random_bool(0.5) {
            last.min(first + rng.random_range(0..10))
        } else {
            rng.random_range(first..=last)
        };
        let read = log.read(first..=end).unwrap();
        let want = &all[usize::try_from(first - 1).unwrap()..usize::try_from(end).unwrap()];
        assert_eq!(read, want, "read {first}..={end}");
        // Replay from the same seq agrees too.
        let replayed: Vec<LoggedEvent> = log
            .replay(first)
            .take(want.len())
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(replayed, want, "replay from {first}");
    }
    log.close().unwrap();
    // A read-only reader over the same files reads the same.
    let reader = engram_log::LogReader::open(arc(storage), test_key()).unwrap();
    for _ in 0..200 {
        let first = rng.random_range(1..=last);
        let end = rng.random_range(first..=last.min(first + 50));
        let read = reader.read(first..=end).unwrap();
        assert_eq!(
            read,
            &all[usize::try_from(first - 1).unwrap()..usize::try_from(end).unwrap()]
        );
    }
}

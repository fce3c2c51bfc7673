//! The key store beside the log (`engram_log::keystore`), driven by the
//! log's writer.
//!
//! The story. Content sealed per subject is only as durable as the key that
//! opens it: a frame that reached the disk while its data key did not would
//! hold words nobody can ever read again, without any purge having asked for
//! it. So the writer reserves keys (written and fsynced a batch ahead)
//! before it writes the frames that take those seqs, and a crash at any
//! sync, of the log or of the key store, must leave a key for every seq the
//! recovered log holds. A key store that is missing, damaged or opened with
//! another master key is refused at open with an error saying so, and a
//! destroyed key stays destroyed across reopen.
//!
//! Invariants checked after every crash and reopen:
//! - every acknowledged event is present (the log is a prefix of what was
//!   sent, as in `log_crash`);
//! - every seq the recovered log holds has a live key;
//! - appends continue after recovery, with keys for their seqs.

use std::sync::Arc;

use engram_log::keystore::{KEY_STORE_FILE_NAME, RESERVE_AHEAD_SEQS};
use engram_log::{
    AppendError, Event, FaultyStorage, KeyStoreError, Log, LogConfig, MasterKey, MemStorage,
    OpenError, Storage, SubjectKey, Tear,
};

use crate::support::{arc, replay_all, session_event, test_key};

fn master() -> MasterKey {
    MasterKey::from_bytes([0x4d; 32])
}

fn config(keys: &Arc<dyn Storage>) -> LogConfig {
    LogConfig::new(test_key()).keys(Arc::clone(keys), master())
}

/// Batches whose seqs cross several reserve boundaries.
fn batches() -> Vec<Vec<Event>> {
    let per_batch = usize::try_from(RESERVE_AHEAD_SEQS / 3).unwrap();
    (0..8u32)
        .map(|b| {
            (0..per_batch)
                .map(|i| session_event("s", b * 1000 + u32::try_from(i).unwrap(), "words"))
                .collect()
        })
        .collect()
}

/// Appends every batch until one fails; returns the events acknowledged.
fn append_until_failure(log: &Log) -> Vec<Event> {
    let mut acknowledged = Vec::new();
    for batch in batches() {
        match log.append(&batch) {
            Ok(_) => acknowledged.extend(batch),
            Err(_) => break,
        }
    }
    acknowledged
}

fn check_recovered(
    log_image: FaultyStorage,
    keys_image: FaultyStorage,
    acknowledged: &[Event],
    context: &str,
) {
    let keys: Arc<dyn Storage> = arc(keys_image);
    let log = Log::open(arc(log_image), config(&keys))
        .unwrap_or_else(|e| panic!("{context}: reopen failed: {e}"));
    let events = replay_all(log.reader());
    assert!(events.len() >= acknowledged.len(), "{context}");
    for (logged, sent) in events.iter().zip(acknowledged) {
        assert_eq!(&logged.event, sent, "{context}: seq {}", logged.seq);
    }
    for seq in 1..=log.last_seq() {
        assert!(
            matches!(log.subject_key(seq), Ok(SubjectKey::Live(_))),
            "{context}: seq {seq} of the recovered log has no live key: {:?}",
            log.subject_key(seq)
        );
    }
    let next = log
        .append(&[session_event("after", 0, "more")])
        .unwrap_or_else(|e| panic!("{context}: append after recovery failed: {e}"));
    assert!(
        matches!(log.subject_key(next.first_seq), Ok(SubjectKey::Live(_))),
        "{context}"
    );
}

#[test]
fn log_keys_a_crash_at_any_sync_leaves_a_key_for_every_durable_seq() {
    // Count each storage's syncs in a run without faults.
    let (n_log_syncs, n_key_syncs) = {
        let log_storage = FaultyStorage::new();
        let key_storage = FaultyStorage::new();
        let keys: Arc<dyn Storage> = arc(key_storage.clone());
        let log = Log::open(arc(log_storage.clone()), config(&keys)).unwrap();
        let acknowledged = append_until_failure(&log);
        assert_eq!(
            acknowledged.len(),
            batches().iter().map(Vec::len).sum::<usize>()
        );
        drop(log);
        (log_storage.n_syncs(), key_storage.n_syncs())
    };
    assert!(
        n_key_syncs >= 4,
        "{n_key_syncs} key store syncs: no reserve crossed"
    );
    let tears = [
        Tear::LoseUnsynced,
        Tear::KeepPrefix(300),
        Tear::Garbage(200),
    ];
    for crash_keys in [true, false] {
        let n_syncs = if crash_keys { n_key_syncs } else { n_log_syncs };
        for at in 1..=n_syncs {
            for tear in tears {
                let log_storage = FaultyStorage::new();
                let key_storage = FaultyStorage::new();
                let keys: Arc<dyn Storage> = arc(key_storage.clone());
                if crash_keys {
                    key_storage.crash_at_sync(at);
                } else {
                    log_storage.crash_at_sync(at);
                }
                let acknowledged = match Log::open(arc(log_storage.clone()), config(&keys)) {
                    Ok(log) => {
                        let acknowledged = append_until_failure(&log);
                        drop(log);
                        acknowledged
                    }
                    Err(_) => Vec::new(),
                };
                let context = format!(
                    "crash of the {} at sync {at}, {tear:?}",
                    if crash_keys { "key store" } else { "log" }
                );
                check_recovered(
                    log_storage.crash_image(tear),
                    key_storage.crash_image(tear),
                    &acknowledged,
                    &context,
                );
            }
        }
    }
}

#[test]
fn log_keys_a_failed_reserve_poisons_the_log_and_writes_no_frame() {
    let log_storage = FaultyStorage::new();
    let key_storage = FaultyStorage::new();
    let keys: Arc<dyn Storage> = arc(key_storage.clone());
    let log = Log::open(arc(log_storage.clone()), config(&keys)).unwrap();
    log.append(&[session_event("s", 0, "first")]).unwrap();
    let end = log.subject_key(1).map(|_| log.last_seq()).unwrap();
    // The next reserve is past RESERVE_AHEAD_SEQS: its sync fails.
    key_storage.fail_next_sync();
    let big: Vec<Event> = (1..=u32::try_from(RESERVE_AHEAD_SEQS).unwrap() + 1)
        .map(|i| session_event("s", i, "x"))
        .collect();
    let err = log.append(&big).unwrap_err();
    assert!(matches!(err, AppendError::Poisoned { .. }), "{err}");
    assert!(err.to_string().contains("reserving keys"), "{err}");
    assert_eq!(log.last_seq(), end);
    assert!(matches!(
        log.append(&[session_event("s", 9, "later")]),
        Err(AppendError::Poisoned { .. })
    ));
    drop(log);
    // Reopened, the log holds the first event only, and takes appends again.
    let log = Log::open(arc(log_storage), config(&keys)).unwrap();
    assert_eq!(log.last_seq(), 1);
    let appended = log.append(&big).unwrap();
    assert!(matches!(
        log.subject_key(appended.last_seq),
        Ok(SubjectKey::Live(_))
    ));
}

#[test]
fn log_keys_destroyed_keys_stay_destroyed_and_bad_key_stores_are_refused() {
    let log_storage = MemStorage::new();
    let keys: Arc<dyn Storage> = arc(MemStorage::new());
    let log = Log::open(arc(log_storage.clone()), config(&keys)).unwrap();
    log.append(&[session_event("s", 0, "one"), session_event("s", 1, "two")])
        .unwrap();
    let kept = log.subject_key(1).unwrap();
    log.destroy_keys(&[2]).unwrap();
    // Only seqs the log holds can be named.
    assert!(matches!(
        log.destroy_keys(&[3]),
        Err(KeyStoreError::NoSlot { seq: 3, .. })
    ));
    drop(log);
    let log = Log::open(arc(log_storage.clone()), config(&keys)).unwrap();
    assert_eq!(log.subject_key(1).unwrap(), kept);
    assert_eq!(log.subject_key(2).unwrap(), SubjectKey::Destroyed);
    drop(log);

    // Another master key: refused at open, naming the variable to set.
    let other = LogConfig::new(test_key()).keys(Arc::clone(&keys), MasterKey::from_bytes([1; 32]));
    let err = Log::open(arc(log_storage.clone()), other).unwrap_err();
    assert!(
        matches!(err, OpenError::Keys(KeyStoreError::WrongMasterKey { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("ENGRAM_MASTER_KEY"), "{err}");

    // No key store beside a log with frames: refused, never made anew.
    let empty: Arc<dyn Storage> = arc(MemStorage::new());
    let err = Log::open(arc(log_storage.clone()), config(&empty)).unwrap_err();
    assert!(
        matches!(err, OpenError::Keys(KeyStoreError::Missing { .. })),
        "{err}"
    );
    assert!(empty.list().unwrap().is_empty());

    // A damaged header: refused, saying so.
    let damaged: Arc<dyn Storage> = arc(MemStorage::new());
    damaged
        .create(KEY_STORE_FILE_NAME)
        .unwrap()
        .write_all_at(&[7u8; 256], 0)
        .unwrap();
    let err = Log::open(arc(log_storage), config(&damaged)).unwrap_err();
    assert!(
        matches!(err, OpenError::Keys(KeyStoreError::Damaged { .. })),
        "{err}"
    );
}

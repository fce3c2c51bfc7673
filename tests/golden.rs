//! Golden fixture logs: logs written by earlier versions of engram, kept
//! under `tests/fixtures/<version>/`, that every later version must still
//! open, verify and replay to exactly the events they were written from.
//! A fixture is never regenerated to make this test pass; a format change
//! adds a new fixture version beside the old ones.

use std::path::PathBuf;

use std::sync::Arc;

use engram_log::{
    Event, FileStorage, HmacKey, KeySource, KeyStoreConfig, LogReader, MasterKey, verify_storage,
};

use crate::golden_events::{
    GOLDEN_KEY, GOLDEN_MASTER_KEY, GOLDEN_T0_MS, GOLDEN_V2_PURGED, golden_v1_1_batches,
    golden_v1_2_batches, golden_v1_3_batches, golden_v1_4_batches, golden_v1_5_batches,
    golden_v1_batches, golden_v2_batches,
};

fn fixture(version: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(version)
}

#[test]
fn golden_v1_replays_to_the_events_it_was_written_from() {
    replays_to_the_events_it_was_written_from("v1", &golden_v1_batches());
}

#[test]
fn golden_v1_1_replays_to_the_events_it_was_written_from() {
    replays_to_the_events_it_was_written_from("v1.1", &golden_v1_1_batches());
}

#[test]
fn golden_v1_2_replays_to_the_events_it_was_written_from() {
    replays_to_the_events_it_was_written_from("v1.2", &golden_v1_2_batches());
}

#[test]
fn golden_v1_3_replays_to_the_events_it_was_written_from() {
    replays_to_the_events_it_was_written_from("v1.3", &golden_v1_3_batches());
}

#[test]
fn golden_v1_4_replays_to_the_events_it_was_written_from() {
    replays_to_the_events_it_was_written_from("v1.4", &golden_v1_4_batches());
}

#[test]
fn golden_v1_5_replays_to_the_events_it_was_written_from() {
    replays_to_the_events_it_was_written_from("v1.5", &golden_v1_5_batches());
}

#[test]
fn golden_v1_1_memory_still_expands_verified_and_is_recalled() {
    // A copy: opening an engine writes views next to the log.
    let copy = tempfile::tempdir().unwrap();
    let source = fixture("v1.1");
    std::fs::copy(source.join("hmac.key"), copy.path().join("hmac.key")).unwrap();
    std::fs::create_dir(copy.path().join("log")).unwrap();
    for entry in std::fs::read_dir(source.join("log")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(
            entry.path(),
            copy.path().join("log").join(entry.file_name()),
        )
        .unwrap();
    }
    let options = engram::store::StoreOptions {
        key: KeySource::StoreFile,
        ..engram::store::StoreOptions::default()
    };
    let engram = engram::Engram::open(engram::store::Store::at(copy.path()), &options).unwrap();
    let memory = golden_v1_batches()
        .iter()
        .map(|b| b.len() as u64)
        .sum::<u64>()
        + 3;
    let expansion = engram
        .expand_as(memory, &engram::Subject::user(), false)
        .unwrap();
    assert!(expansion.verified);
    assert_eq!(expansion.turns.len(), 2);
    assert!(expansion.turns[0].content.starts_with("部署在周五下午进行"));
    let hits = engram
        .recall(&engram::RecallQuery::new("周五部署"))
        .unwrap();
    assert_eq!(hits.first().map(|h| h.id), Some(memory));
    // One valid piece of evidence counts; the invalid one does not.
    let inputs = engram
        .core()
        .trust
        .read()
        .state
        .inputs(memory)
        .cloned()
        .unwrap();
    assert_eq!(inputs.confirmations, 1);
    engram.close().unwrap();
}

fn replays_to_the_events_it_was_written_from(version: &str, batches: &[Vec<engram_log::Event>]) {
    let dir = fixture(version);
    // The key file in the fixture is the key it was written with.
    let key = KeySource::StoreFile.load(&dir, false).unwrap();
    assert_eq!(key, HmacKey::from_bytes(GOLDEN_KEY));

    // Read-only: the fixture is never modified by the test.
    let reader = LogReader::open_dir(&dir.join("log"), key.clone()).unwrap();
    assert_eq!(reader.recovery().torn_tail, None);
    assert!(
        reader.segments().len() >= 3,
        "the fixture spans several segments"
    );

    let expected: Vec<_> = batches.iter().flatten().cloned().collect();
    let replayed: Vec<_> = reader.replay(1).map(Result::unwrap).collect();
    assert_eq!(replayed.len(), expected.len());
    let mut seq = 1;
    for (batch_idx, batch) in batches.iter().enumerate() {
        for event in batch {
            let logged = &replayed[seq as usize - 1];
            assert_eq!(logged.seq, seq);
            assert_eq!(&logged.event, event, "seq {seq}");
            assert_eq!(
                logged.ts_ms,
                GOLDEN_T0_MS + 1000 * batch_idx as u64,
                "seq {seq}"
            );
            seq += 1;
        }
    }

    // Random access agrees with replay.
    let middle = reader.read(7..=12).unwrap();
    assert_eq!(middle, replayed[6..12].to_vec());

    let storage = FileStorage::open_read_only(&dir.join("log")).unwrap();
    let report = verify_storage(&storage, &key, None).unwrap();
    assert!(report.is_ok(), "{report:?}");
    assert_eq!(report.last_seq, expected.len() as u64);
}

#[test]
fn golden_v2_replays_sealed_words_and_its_purged_subjects_erased() {
    let dir = fixture("v2");
    let key = HmacKey::from_bytes(GOLDEN_KEY);
    let keys = || {
        let master = engram_log::MasterKeySource::StoreFile
            .load(&dir, false)
            .unwrap();
        assert_eq!(master, MasterKey::from_bytes(GOLDEN_MASTER_KEY));
        Some(KeyStoreConfig {
            storage: Arc::new(FileStorage::open_read_only(&dir).unwrap()),
            master,
        })
    };
    let reader = LogReader::open_dir_with_keys(&dir.join("log"), key.clone(), keys()).unwrap();
    assert!(reader.is_sealed());
    let batches = golden_v2_batches();
    let expected: Vec<Event> = batches.iter().flatten().cloned().collect();
    let replayed: Vec<_> = reader.replay(1).map(Result::unwrap).collect();
    assert_eq!(replayed.len(), expected.len());
    for (logged, event) in replayed.iter().zip(&expected) {
        let purged = GOLDEN_V2_PURGED.contains(&logged.seq);
        assert_eq!(logged.erased, purged, "seq {}", logged.seq);
        if !purged {
            assert_eq!(&logged.event, event, "seq {}", logged.seq);
        }
    }
    // The erased turn is its skeleton: who spoke, in which session, no words.
    let Event::Session(turn) = &replayed[0].event else {
        panic!("seq 1 is a turn")
    };
    assert_eq!(
        (turn.session.as_str(), turn.content.as_str()),
        ("golden-1", "")
    );
    // The erased memory keeps its reference and seal, not its words.
    let (Event::Remembered(erased), Some(Event::Remembered(written))) =
        (&replayed[6].event, expected.get(6))
    else {
        panic!("seq 7 is a memory")
    };
    assert_eq!(erased.reference, written.reference);
    assert_eq!(erased.content_sha256, written.content_sha256);
    assert_eq!(erased.summary.as_deref(), Some(""));
    assert!(erased.tags.is_empty());

    // No sealed words are in the segments' bytes; verify needs no data key.
    let segments: Vec<u8> = std::fs::read_dir(dir.join("log"))
        .unwrap()
        .flat_map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    for words in [
        "用户偏好使用 Python",
        "Noted: tea in the morning.",
        "Prefers tea",
    ] {
        assert!(
            !segments.windows(words.len()).any(|w| w == words.as_bytes()),
            "{words:?} is in the clear"
        );
    }
    let storage = FileStorage::open_read_only(&dir.join("log")).unwrap();
    let report = verify_storage(&storage, &key, None).unwrap();
    assert!(report.is_ok(), "{report:?}");
    // Without its key store the sealed words do not open: an error, never
    // an erasure.
    let keyless = LogReader::open_dir(&dir.join("log"), key).unwrap();
    assert!(keyless.read(2..=2).is_err());
}

#[test]
fn golden_v1_refuses_another_key() {
    let dir = fixture("v1");
    let err = LogReader::open_dir(&dir.join("log"), HmacKey::from_bytes([1; 32])).unwrap_err();
    assert!(
        matches!(err, engram_log::OpenError::WrongKey { .. }),
        "{err}"
    );
}

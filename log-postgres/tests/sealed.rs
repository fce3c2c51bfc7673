//! A sealed shared log (issue 19, item 5): a log made by a connect given
//! the team's master key seals every event's words under the data key of
//! its own seq, and keeps that key, wrapped, in `engram_keys`, inserted by
//! the frame's own append transaction.
//!
//! Checked here: the rows hold ciphertext only, with one key row per seq;
//! a replica copies the frames byte for byte and reads the words back
//! through the team's key store; the bytes `record_bytes` gives before an
//! append are the bytes committed; a refused transaction leaves no key
//! row; a destroyed key opens its record as erased, a missing one is an
//! error naming the seq; a wrong master key is refused at connect and a
//! missing one refuses writes, changing nothing; a log of schema v1 is
//! migrated to v2 and stays in the clear.

use std::sync::Arc;

use engram_log::format::{FRAME_VERSION_PLAIN, FRAME_VERSION_SEALED};
use engram_log::{
    Event, KeyStoreError, Log, LogConfig, MasterKey, MemStorage, ReadError, Role, SessionEvent,
    SubjectKey,
};
use engram_log_postgres::{PgLog, PgLogConfig, PgLogError, SCHEMA_VERSION};

use crate::support::{TestDb, key, turn};

fn master() -> MasterKey {
    MasterKey::from_bytes([51; 32])
}

fn sealed_config() -> PgLogConfig {
    PgLogConfig::default().master_key(master())
}

/// A turn holding `word`, which must never appear in a row.
fn secret_turn(n: u32, word: &str) -> Event {
    Event::Session(SessionEvent {
        session: "secret".to_owned(),
        turn: n,
        role: Role::User,
        content: format!("the password hint is {word}"),
    })
}

/// Rows of `table` whose bytea column `column` holds `word`.
fn rows_holding(db: &TestDb, table: &str, column: &str, word: &str) -> i64 {
    db.admin()
        .query_one(
            &format!("SELECT count(*) FROM {table} WHERE position($1::bytea in {column}) > 0"),
            &[&word.as_bytes()],
        )
        .unwrap()
        .get(0)
}

/// `(seq, length of wrapped)` of every key row, in seq order.
fn key_rows(db: &TestDb) -> Vec<(i64, i32)> {
    db.admin()
        .query(
            "SELECT seq, octet_length(wrapped) FROM engram_keys ORDER BY seq",
            &[],
        )
        .unwrap()
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect()
}

#[test]
fn a_sealed_log_holds_ciphertext_and_a_replica_reads_its_words_through_the_team_keys() {
    let Some(db) = TestDb::new("sealed_rows") else {
        return;
    };
    let shared = db.log(sealed_config());
    assert!(shared.created() && shared.is_sealed());
    let batches: Vec<Vec<Event>> = (0..6u32)
        .map(|n| {
            (0..=n % 3)
                .map(|k| secret_turn(n * 3 + k, &format!("Quokkalantern{n}")))
                .collect()
        })
        .collect();
    for batch in &batches {
        shared.append(batch).unwrap();
    }
    let n_events: i64 = batches.iter().map(|b| b.len() as i64).sum();
    assert_eq!(db.n_rows(), n_events);
    assert_eq!(
        rows_holding(&db, "engram_events", "event", "Quokkalantern"),
        0
    );
    let versions: Vec<i16> = db
        .admin()
        .query("SELECT DISTINCT format_version FROM engram_events", &[])
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(versions, [i16::try_from(FRAME_VERSION_SEALED).unwrap()]);
    // One wrapped key per seq, never the data key in the clear.
    let rows = key_rows(&db);
    assert_eq!(rows.len() as i64, n_events);
    assert!(
        rows.iter()
            .zip(1..)
            .all(|(&(seq, len), n)| seq == n && len == 72)
    );

    // A replica copies the frames as they are and reads the words back
    // with the team's key store; its segments hold the rows' bytes.
    let replica = Log::open(
        Arc::new(MemStorage::new()),
        LogConfig::new(key()).remote_keys(shared.keys().unwrap()),
    )
    .unwrap();
    let frames = shared.frames_after(0, usize::MAX).unwrap();
    for frame in &frames {
        replica.append_frame(&frame.bytes).unwrap();
    }
    let expected: Vec<Event> = batches.concat();
    let read: Vec<Event> = replica
        .read(1..=replica.last_seq())
        .unwrap()
        .into_iter()
        .map(|logged| logged.event)
        .collect();
    assert_eq!(read, expected);
    let from_shared: Vec<Event> = frames
        .iter()
        .flat_map(|f| f.events.iter().map(|e| e.event.clone()))
        .collect();
    assert_eq!(from_shared, expected);
    assert!(replica.verify().unwrap().is_ok());
    assert!(shared.verify().unwrap().is_ok());
    // A replica appends nothing of its own: its frames are the shared log's.
    let local = replica.append(&[turn("local", 0)]);
    assert!(
        matches!(local, Err(engram_log::AppendError::Replica)),
        "{local:?}"
    );
    assert!(replica.poisoned().is_none());
}

#[test]
fn the_bytes_drawn_before_an_append_are_the_bytes_committed() {
    // A memory's content hash is over its note as the log will hold it,
    // computed before the batch is appended: the writer must seal the
    // note at that seq under the key drawn for it, also when another
    // append of this process lands first and the batch is built again.
    let Some(db) = TestDb::new("sealed_drawn") else {
        return;
    };
    let shared = db.log(sealed_config());
    shared.append(&[turn("before", 0)]).unwrap();
    let note = secret_turn(0, "Marmosetquill");
    let expected = shared.record_bytes(2, &note).unwrap();
    // Another append takes seq 2 first: the stale batch is refused.
    shared.append(&[turn("between", 0)]).unwrap();
    let refused = shared.append_expecting(2, std::slice::from_ref(&note));
    assert!(
        matches!(
            refused,
            Err(PgLogError::Batch(engram_log::AppendError::SeqMismatch {
                expected: 3,
                ..
            }))
        ),
        "{refused:?}"
    );
    let again = shared.record_bytes(3, &note).unwrap();
    assert_ne!(again, expected, "a fresh key for a fresh seq");
    shared
        .append_expecting(3, std::slice::from_ref(&note))
        .unwrap();
    let stored: Vec<u8> = db
        .admin()
        .query_one("SELECT event FROM engram_events WHERE seq = 3", &[])
        .unwrap()
        .get(0);
    assert_eq!(stored, again);
    assert_eq!(shared.read(3..=3).unwrap()[0].event, note);
}

#[test]
fn a_refused_transaction_leaves_no_key_row_and_a_committed_frame_has_all_of_its_keys() {
    let Some(db) = TestDb::new("sealed_atomic") else {
        return;
    };
    let shared = db.log(sealed_config());
    shared.append(&[turn("a", 0), turn("a", 1)]).unwrap();
    // A stray key row where the next frame's keys go: the frame's one
    // statement fails, and nothing of it (events, head, keys) is written.
    db.admin()
        .execute(
            "INSERT INTO engram_keys (seq, wrapped) VALUES (4, '\\x')",
            &[],
        )
        .unwrap();
    let failed = shared.append(&[turn("b", 0), turn("b", 1)]);
    assert!(failed.is_err(), "{failed:?}");
    assert_eq!(db.n_rows(), 2);
    assert_eq!(key_rows(&db), [(1, 72), (2, 72), (4, 0)]);
    db.admin()
        .execute("DELETE FROM engram_keys WHERE seq = 4", &[])
        .unwrap();
    shared.append(&[turn("b", 0), turn("b", 1)]).unwrap();
    assert_eq!(key_rows(&db), [(1, 72), (2, 72), (3, 72), (4, 72)]);
    assert!(shared.verify().unwrap().is_ok());
}

#[test]
fn a_destroyed_key_erases_its_words_and_a_missing_one_is_damage_named_by_its_seq() {
    let Some(db) = TestDb::new("sealed_destroyed") else {
        return;
    };
    let shared = db.log(sealed_config());
    for n in 0..4 {
        shared.append(&[secret_turn(n, "Pangolinsextant")]).unwrap();
    }
    let keys = shared.keys().unwrap();
    assert!(matches!(keys.key(2).unwrap(), SubjectKey::Live(_)));
    keys.destroy(&[2]).unwrap();
    // Destroyed in the table (empty, not deleted), the old row version
    // vacuumed, and again is no error.
    assert_eq!(key_rows(&db)[1], (2, 0));
    let vacuumed: bool = db
        .admin()
        .query_one(
            "SELECT last_vacuum IS NOT NULL FROM pg_stat_user_tables \
             WHERE relname = 'engram_keys' AND schemaname = current_schema()",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(vacuumed);
    keys.destroy(&[2]).unwrap();
    // A replica that reaches seq 2 after its key is gone reads it erased:
    // the skeleton, never an error and never the words.
    let lagging = PgLog::connect(&db.url, key(), sealed_config()).unwrap();
    let read = lagging.read(1..=4).unwrap();
    assert!(read[1].erased);
    assert!(matches!(&read[1].event, Event::Session(s) if s.content.is_empty()));
    assert!(!read[0].erased && !read[2].erased);
    // A row gone that no purge destroyed: damage, named, for every reader.
    db.admin()
        .execute("DELETE FROM engram_keys WHERE seq = 3", &[])
        .unwrap();
    let fresh = PgLog::connect(&db.url, key(), sealed_config()).unwrap();
    let missing = fresh.read(3..=3);
    let Err(PgLogError::Keys(reason)) = &missing else {
        panic!("{missing:?}");
    };
    assert!(reason.contains("no key for subject 3"), "{reason}");
    assert!(reason.contains("no purge destroyed it"), "{reason}");
    let replica = Log::open(
        Arc::new(MemStorage::new()),
        LogConfig::new(key()).remote_keys(fresh.keys().unwrap()),
    )
    .unwrap();
    // The frames copy as bytes (their words are opened only when read).
    for frame in db_frames(&db) {
        replica.append_frame(&frame).unwrap();
    }
    let damaged = replica.read(3..=3);
    assert!(
        matches!(&damaged, Err(ReadError::Keys { seq: 3, .. })),
        "{damaged:?}"
    );
    assert!(matches!(
        fresh.keys().unwrap().key(3),
        Err(KeyStoreError::KeyMissing { seq: 3, .. })
    ));
    assert!(matches!(
        fresh.keys().unwrap().destroy(&[1, 3]),
        Err(KeyStoreError::KeyMissing { seq: 3, .. })
    ));
    // The refused destroy changed nothing: seq 1 still opens.
    assert_eq!(key_rows(&db)[0], (1, 72));
    // The log itself still verifies.
    assert!(fresh.verify().unwrap().is_ok());
}

/// Every frame's bytes, rebuilt from the rows (as the shared log's reader
/// does) without opening any word.
fn db_frames(db: &TestDb) -> Vec<Vec<u8>> {
    let mut admin = db.admin();
    let firsts: Vec<i64> = admin
        .query(
            "SELECT DISTINCT frame_first_seq FROM engram_events ORDER BY frame_first_seq",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    firsts
        .into_iter()
        .map(|first| frame_bytes(&mut admin, first))
        .collect()
}

/// The bytes of the frame starting at `first`, rebuilt from its rows.
fn frame_bytes(admin: &mut postgres::Client, first: i64) -> Vec<u8> {
    let rows = admin
        .query(
            "SELECT ts_ms, event, frame_first_seq, format_version, frame_prev_hash, frame_hash, frame_mac \
             FROM engram_events WHERE frame_first_seq = $1 ORDER BY seq",
            &[&first],
        )
        .unwrap();
    let ts: i64 = rows[0].get(0);
    let version: i16 = rows[0].get(3);
    let prev: Vec<u8> = rows[0].get(4);
    let hash: Vec<u8> = rows[0].get(5);
    let mac: Vec<u8> = rows[0].get(6);
    let mut payload = Vec::new();
    for row in &rows {
        let event: Vec<u8> = row.get(1);
        engram_log::format::push_event(&mut payload, &event);
    }
    let header = engram_log::format::FrameHeader {
        version: u16::try_from(version).unwrap(),
        first_seq: u64::try_from(first).unwrap(),
        n_events: u32::try_from(rows.len()).unwrap(),
        payload_len: u32::try_from(payload.len()).unwrap(),
        ts_ms: u64::try_from(ts).unwrap(),
        prev_hash: prev.try_into().unwrap(),
    };
    let mut bytes = header.encode().to_vec();
    bytes.extend_from_slice(&payload);
    bytes.extend_from_slice(&hash);
    bytes.extend_from_slice(&mac);
    bytes
}

#[test]
fn a_wrong_master_key_is_refused_at_connect_and_a_missing_one_refuses_writes() {
    let Some(db) = TestDb::new("sealed_master") else {
        return;
    };
    let shared = db.log(sealed_config());
    shared.append(&[secret_turn(0, "Ocelotbanjo")]).unwrap();
    let meta_before: Vec<u8> = db
        .admin()
        .query_one("SELECT key_check FROM engram_meta", &[])
        .unwrap()
        .get(0);

    let wrong = PgLog::connect(
        &db.url,
        key(),
        PgLogConfig::default().master_key(MasterKey::from_bytes([52; 32])),
    );
    let Err(error) = wrong else {
        panic!("connected with another master key");
    };
    assert!(
        matches!(error, PgLogError::WrongMasterKey { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("ENGRAM_MASTER_KEY"), "{error}");

    // No master key: the log verifies and its frames' bytes can be
    // copied, but nothing is appended and no word is opened.
    let without = PgLog::connect(&db.url, key(), PgLogConfig::default()).unwrap();
    assert!(without.is_sealed() && without.keys().is_none());
    assert!(without.verify().unwrap().is_ok());
    for refused in [
        without.append(&[turn("x", 0)]).map(drop),
        without.record_bytes(2, &turn("x", 0)).map(drop),
        without.check_master_key(),
    ] {
        assert!(
            matches!(refused, Err(PgLogError::MasterKeyRequired { .. })),
            "{refused:?}"
        );
    }
    let read = without.read(1..=1);
    assert!(matches!(read, Err(PgLogError::Keys(_))), "{read:?}");

    assert_eq!(db.n_rows(), 1);
    assert_eq!(key_rows(&db), [(1, 72)]);
    let meta_after: Vec<u8> = db
        .admin()
        .query_one("SELECT key_check FROM engram_meta", &[])
        .unwrap()
        .get(0);
    assert_eq!(meta_after, meta_before);
}

#[test]
fn a_log_of_schema_v1_is_migrated_and_stays_in_the_clear() {
    let Some(db) = TestDb::new("sealed_migrate") else {
        return;
    };
    // A shared log as an engram of schema v1 left it: its tables, a
    // frame of version 1.
    let old = db.log(PgLogConfig::default());
    old.append(&[turn("old", 0)]).unwrap();
    old.close();
    db.admin()
        .batch_execute(
            "DROP TABLE engram_keys; ALTER TABLE engram_meta DROP COLUMN key_check; \
             UPDATE engram_meta SET schema_version = 1",
        )
        .unwrap();

    let migrated = db.log(sealed_config());
    assert!(!migrated.is_sealed() && !migrated.created());
    let (version, check): (i64, Option<Vec<u8>>) = {
        let row = db
            .admin()
            .query_one("SELECT schema_version, key_check FROM engram_meta", &[])
            .unwrap();
        (row.get(0), row.get(1))
    };
    assert_eq!(version, SCHEMA_VERSION);
    assert_eq!(check, None);
    migrated.append(&[turn("new", 0)]).unwrap();
    let versions: Vec<i16> = db
        .admin()
        .query("SELECT format_version FROM engram_events ORDER BY seq", &[])
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    let plain = i16::try_from(FRAME_VERSION_PLAIN).unwrap();
    assert_eq!(versions, [plain, plain]);
    assert!(key_rows(&db).is_empty());
    assert_eq!(migrated.read(1..=2).unwrap()[1].event, turn("new", 0));
    assert!(migrated.verify().unwrap().is_ok());
}

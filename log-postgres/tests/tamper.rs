//! Damage done in the database: `verify` (and every read) names the first
//! seq that cannot be trusted. A row edited with `UPDATE` fails its frame
//! hash; an edit whose hash (and the next frame's link) was recomputed
//! fails the HMAC, which only the key holder can make; deleted rows are
//! gaps; a truncated table is told from the head.

use engram_log::codec;
use engram_log::format::{FRAME_VERSION_PLAIN, FrameHeader, push_event};
use engram_log_postgres::{PgLog, PgLogConfig, PgLogError};

use crate::support::{TestDb, key, turn};

/// A log of `n` single-event frames.
fn log_of(db: &TestDb, n: u64) -> PgLog {
    let log = db.log(PgLogConfig::default());
    for i in 0..n {
        log.append(&[turn("t", i)]).unwrap();
    }
    assert!(log.verify().unwrap().is_ok());
    log
}

fn problem_at(log: &PgLog) -> (u64, String) {
    let report = log.verify().unwrap();
    let problem = report
        .problem
        .clone()
        .unwrap_or_else(|| panic!("verify passed: {report:?}"));
    eprintln!("{problem}");
    (problem.seq, problem.reason)
}

#[test]
fn verify_names_a_row_edited_in_the_database() {
    let Some(db) = TestDb::new("edited_row") else {
        return;
    };
    let log = log_of(&db, 10);
    db.admin()
        .execute(
            "UPDATE engram_events SET event = set_byte(event, 6, get_byte(event, 6) # 1) WHERE seq = 6",
            &[],
        )
        .unwrap();
    let (seq, reason) = problem_at(&log);
    assert_eq!(seq, 6);
    assert!(reason.contains("hash mismatch"), "{reason}");
    let read = log.read(6..=6);
    assert!(
        matches!(read, Err(PgLogError::Corrupted { seq: 6, .. })),
        "{read:?}"
    );
    assert!(log.read(1..=5).is_ok());
    let frames = log.frames_after(5, 10);
    assert!(
        matches!(frames, Err(PgLogError::Corrupted { seq: 6, .. })),
        "{frames:?}"
    );
    // An edited commit time is caught the same way.
    db.admin()
        .execute("UPDATE engram_events SET event = set_byte(event, 6, get_byte(event, 6) # 1) WHERE seq = 6", &[])
        .unwrap();
    assert!(log.verify().unwrap().is_ok());
    db.admin()
        .execute(
            "UPDATE engram_events SET ts_ms = ts_ms + 1 WHERE seq = 3",
            &[],
        )
        .unwrap();
    assert_eq!(problem_at(&log).0, 3);
}

#[test]
fn a_row_edited_with_its_hash_recomputed_fails_the_hmac() {
    // Someone with write access but without the key rewrites event 4,
    // recomputes its frame's blake3 hash and relinks frame 5 to it: every
    // unkeyed check passes, the HMAC does not.
    let Some(db) = TestDb::new("recomputed_hash") else {
        return;
    };
    let log = log_of(&db, 8);
    let mut admin = db.admin();
    let row = admin
        .query_one(
            "SELECT ts_ms, frame_prev_hash FROM engram_events WHERE seq = 4",
            &[],
        )
        .unwrap();
    let ts_ms: i64 = row.get(0);
    let prev_hash: Vec<u8> = row.get(1);
    let forged = codec::encode(&turn("t", 999)).unwrap();
    let mut payload = Vec::new();
    push_event(&mut payload, &forged);
    let header = FrameHeader {
        version: FRAME_VERSION_PLAIN,
        first_seq: 4,
        n_events: 1,
        payload_len: payload.len() as u32,
        ts_ms: ts_ms as u64,
        prev_hash: prev_hash.try_into().unwrap(),
    };
    let mut hashed = header.encode().to_vec();
    hashed.extend_from_slice(&payload);
    let hash = blake3::hash(&hashed);
    admin
        .execute(
            "UPDATE engram_events SET event = $1, frame_hash = $2 WHERE seq = 4",
            &[&forged, &&hash.as_bytes()[..]],
        )
        .unwrap();
    admin
        .execute(
            "UPDATE engram_events SET frame_prev_hash = $1 WHERE seq = 5",
            &[&&hash.as_bytes()[..]],
        )
        .unwrap();
    let (seq, reason) = problem_at(&log);
    assert_eq!(seq, 4);
    assert!(reason.contains("HMAC mismatch"), "{reason}");
    let read = log.read(4..=4);
    assert!(
        matches!(read, Err(PgLogError::Corrupted { seq: 4, .. })),
        "{read:?}"
    );
}

#[test]
fn deleted_rows_are_gaps_named_by_their_first_seq() {
    let Some(db) = TestDb::new("deleted_rows") else {
        return;
    };
    let log = log_of(&db, 6);
    let mut admin = db.admin();
    admin
        .execute("DELETE FROM engram_events WHERE seq = 3", &[])
        .unwrap();
    let (seq, reason) = problem_at(&log);
    assert_eq!(seq, 3);
    assert!(reason.contains("missing"), "{reason}");
    let read = log.read(2..=4);
    assert!(
        matches!(
            read,
            Err(PgLogError::Truncated { .. } | PgLogError::Corrupted { seq: 3, .. })
        ),
        "{read:?}"
    );
    let frames = log.frames_after(1, 10);
    assert!(
        matches!(frames, Err(PgLogError::Corrupted { seq: 3, .. })),
        "{frames:?}"
    );
    // Rows missing at the start.
    let Some(db2) = TestDb::new("deleted_first_rows") else {
        return;
    };
    let log2 = log_of(&db2, 4);
    db2.admin()
        .execute("DELETE FROM engram_events WHERE seq <= 2", &[])
        .unwrap();
    let (seq, reason) = problem_at(&log2);
    assert_eq!(seq, 1);
    assert!(reason.contains("missing"), "{reason}");
}

#[test]
fn a_truncated_table_is_refused_before_anything_is_written() {
    let Some(db) = TestDb::new("truncated_table") else {
        return;
    };
    let log = log_of(&db, 5);
    let mut tailer = log.tailer().unwrap();
    db.admin().execute("TRUNCATE engram_events", &[]).unwrap();
    let connect = PgLog::connect(&db.url, key(), PgLogConfig::default());
    assert!(
        matches!(
            connect,
            Err(PgLogError::Truncated {
                head_last_seq: 5,
                ..
            })
        ),
        "{connect:?}"
    );
    let append = log.append(&[turn("t", 5)]);
    assert!(
        matches!(
            append,
            Err(PgLogError::Truncated {
                head_last_seq: 5,
                ..
            })
        ),
        "{append:?}"
    );
    assert_eq!(db.n_rows(), 0);
    assert_eq!(log.last_seq().unwrap(), 5);
    let (seq, reason) = problem_at(&log);
    assert_eq!(seq, 1);
    assert!(reason.contains("truncated"), "{reason}");
    let frames = tailer.frames_after(0, 10);
    assert!(
        matches!(frames, Err(PgLogError::Truncated { .. })),
        "{frames:?}"
    );
    let message = append.unwrap_err().to_string();
    assert!(message.contains("restore the database"), "{message}");

    // The last rows deleted: the head names a row that is gone.
    let Some(db2) = TestDb::new("trimmed_table") else {
        return;
    };
    let log2 = log_of(&db2, 5);
    db2.admin()
        .execute("DELETE FROM engram_events WHERE seq > 3", &[])
        .unwrap();
    let connect = PgLog::connect(&db2.url, key(), PgLogConfig::default());
    match connect {
        Err(PgLogError::Truncated {
            head_last_seq: 5,
            found,
        }) => {
            assert!(found.contains("end at seq 3"), "{found}");
        }
        other => panic!("{other:?}"),
    }
    let (seq, _) = problem_at(&log2);
    assert_eq!(seq, 4);
}

#[test]
fn an_append_after_rows_deleted_at_the_end_is_refused() {
    // Connected before the rows went: the append itself must tell.
    let Some(db) = TestDb::new("trimmed_append") else {
        return;
    };
    let log = log_of(&db, 5);
    let mut admin = db.admin();
    admin
        .execute("DELETE FROM engram_events WHERE seq > 3", &[])
        .unwrap();
    let append = log.append(&[turn("t", 5)]);
    match &append {
        Err(PgLogError::Truncated {
            head_last_seq: 5,
            found,
        }) => assert!(found.contains("end at seq 3"), "{found}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(db.n_rows(), 3);
    assert_eq!(log.last_seq().unwrap(), 5);
    // The head's row gone from between others (a stray row after it).
    admin
        .execute(
            "INSERT INTO engram_events SELECT 7, ts_ms, event, 7, 7, format_version, frame_prev_hash, frame_hash, frame_mac FROM engram_events WHERE seq = 3",
            &[],
        )
        .unwrap();
    let append = log.append(&[turn("t", 5)]);
    match &append {
        Err(PgLogError::Truncated {
            head_last_seq: 5,
            found,
        }) => assert_eq!(found, "no row holds seq 5"),
        other => panic!("{other:?}"),
    }
    assert_eq!(db.n_rows(), 4);
}

#[test]
fn an_append_after_a_head_that_names_the_wrong_frame_is_refused() {
    let Some(db) = TestDb::new("wrong_head") else {
        return;
    };
    let log = log_of(&db, 5);
    let mut admin = db.admin();
    // The head's hash is another frame's.
    admin
        .execute(
            "UPDATE engram_head SET last_hash = (SELECT frame_hash FROM engram_events WHERE seq = 4)",
            &[],
        )
        .unwrap();
    let append = log.append(&[turn("t", 5)]);
    match &append {
        Err(PgLogError::Corrupted { seq: 5, reason }) => {
            assert!(reason.contains("head's last hash"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(db.n_rows(), 5);
    // The head names a row, with its frame's hash, that does not end
    // its frame.
    admin
        .execute(
            "INSERT INTO engram_events SELECT 6, ts_ms, event, 6, 7, format_version, frame_prev_hash, frame_hash, frame_mac FROM engram_events WHERE seq = 5",
            &[],
        )
        .unwrap();
    admin
        .execute(
            "UPDATE engram_head SET last_seq = 6, last_hash = (SELECT frame_hash FROM engram_events WHERE seq = 6)",
            &[],
        )
        .unwrap();
    let append = log.append(&[turn("t", 5)]);
    match &append {
        Err(PgLogError::Corrupted { seq: 6, reason }) => {
            assert!(reason.contains("head's last hash"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(db.n_rows(), 6);
    assert_eq!(log.last_seq().unwrap(), 6);
}

#[test]
fn a_rewound_log_is_refused_by_a_process_that_saw_more() {
    // The table restored from an older copy (rows and head consistent,
    // just shorter): a new connect cannot tell, but a process that has
    // seen seq 8 refuses to append at seq 6 again, and a replica ending at
    // seq 8 is told the shared log is behind it.
    let Some(db) = TestDb::new("rewound") else {
        return;
    };
    let log = log_of(&db, 8);
    let mut tailer = log.tailer().unwrap();
    let hash_at_8 = log.head().unwrap().last_hash;
    let mut admin = db.admin();
    admin
        .execute("DELETE FROM engram_events WHERE seq > 5", &[])
        .unwrap();
    admin
        .execute(
            "UPDATE engram_head SET last_seq = 5, last_hash = (SELECT frame_hash FROM engram_events WHERE seq = 5)",
            &[],
        )
        .unwrap();
    let append = log.append(&[turn("t", 8)]);
    assert!(
        matches!(
            append,
            Err(PgLogError::Rewound {
                shared_last_seq: 5,
                seen_last_seq: 8
            })
        ),
        "{append:?}"
    );
    assert_eq!(db.n_rows(), 5);
    let fresh = db.log(PgLogConfig::default());
    assert!(fresh.verify().unwrap().is_ok());
    let behind = fresh.check_continuity(8, &hash_at_8);
    assert!(
        matches!(
            behind,
            Err(PgLogError::Rewound {
                shared_last_seq: 5,
                ..
            })
        ),
        "{behind:?}"
    );
    let waited = tailer.wait_for_more(8, std::time::Duration::from_millis(100));
    assert!(
        matches!(waited, Err(PgLogError::Rewound { .. })),
        "{waited:?}"
    );
}

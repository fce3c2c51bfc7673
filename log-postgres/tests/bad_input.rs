//! Bad surroundings: an unreachable server, wrong credentials, a missing
//! database or schema, a schema from a newer engram, another key. Each is
//! a typed error that says what to do, and nothing is written.

use std::time::Duration;

use engram_log::HmacKey;
use engram_log_postgres::{PgLog, PgLogConfig, PgLogError, SCHEMA_VERSION};

use crate::support::{TestDb, key, server_url, turn, with_search_path};

#[test]
fn an_unreachable_server_is_named_with_what_to_check() {
    if server_url("unreachable").is_none() {
        return;
    }
    // A port nobody listens on: bind one, then let it go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://engram:secret@127.0.0.1:{port}/engram");
    let refused = PgLog::connect(
        &url,
        key(),
        PgLogConfig::default().connect_timeout(Duration::from_secs(2)),
    );
    let Err(error) = refused else {
        panic!("connected to a closed port");
    };
    assert!(matches!(error, PgLogError::Unreachable { .. }), "{error:?}");
    assert!(error.is_connection());
    let message = error.to_string();
    assert!(message.contains(&format!("127.0.0.1:{port}")), "{message}");
    assert!(message.contains("check that the server runs"), "{message}");
    assert!(!message.contains("secret"), "{message}");
}

/// `url` with its password replaced.
fn with_password(url: &str, password: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap();
    let (userinfo, host) = rest.split_once('@').unwrap();
    let user = userinfo.split(':').next().unwrap();
    format!("{scheme}://{user}:{password}@{host}")
}

#[test]
fn wrong_credentials_are_told_apart() {
    let Some(db) = TestDb::new("wrong_password") else {
        return;
    };
    let url = with_password(&db.url, "not-the-password");
    let refused = PgLog::connect(&url, key(), PgLogConfig::default());
    let Err(error) = refused else {
        panic!("connected with a wrong password");
    };
    assert!(
        matches!(error, PgLogError::Authentication { .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.contains("check the user name and password"),
        "{message}"
    );
    assert!(!message.contains("not-the-password"), "{message}");
    // Nothing was made in the schema.
    let tables: i64 = db
        .admin()
        .query_one(
            "SELECT count(*) FROM pg_tables WHERE schemaname = $1",
            &[&db.schema],
        )
        .unwrap()
        .get(0);
    assert_eq!(tables, 0);
}

#[test]
fn a_missing_database_or_schema_is_named() {
    let Some(db) = TestDb::new("missing_database") else {
        return;
    };
    let (prefix, _) = db.base_url.rsplit_once('/').unwrap();
    let missing = PgLog::connect(
        &format!("{prefix}/no_such_database_here"),
        key(),
        PgLogConfig::default(),
    );
    assert!(
        matches!(missing, Err(PgLogError::NoDatabase { .. })),
        "{missing:?}"
    );
    let no_schema = PgLog::connect(
        &with_search_path(&db.base_url, "no_such_schema_here"),
        key(),
        PgLogConfig::default(),
    );
    assert!(
        matches!(no_schema, Err(PgLogError::NoSchema)),
        "{no_schema:?}"
    );
}

#[test]
fn a_schema_from_a_newer_engram_is_refused_and_left_alone() {
    let Some(db) = TestDb::new("newer_schema") else {
        return;
    };
    let log = db.log(PgLogConfig::default());
    log.append(&[turn("n", 0)]).unwrap();
    log.close();
    db.admin()
        .execute(
            "UPDATE engram_meta SET schema_version = $1",
            &[&(SCHEMA_VERSION + 1)],
        )
        .unwrap();
    let refused = PgLog::connect(&db.url, key(), PgLogConfig::default());
    let Err(error) = refused else {
        panic!("connected to a newer schema");
    };
    assert!(
        matches!(error, PgLogError::SchemaNewer { found, supported } if found == SCHEMA_VERSION + 1 && supported == SCHEMA_VERSION),
        "{error:?}"
    );
    assert!(error.to_string().contains("upgrade engram"), "{error}");
    assert_eq!(db.n_rows(), 1);
    let version: i64 = db
        .admin()
        .query_one("SELECT schema_version FROM engram_meta", &[])
        .unwrap()
        .get(0);
    assert_eq!(version, SCHEMA_VERSION + 1);
}

#[test]
fn another_key_is_told_from_tampering() {
    let Some(db) = TestDb::new("wrong_key") else {
        return;
    };
    db.log(PgLogConfig::default())
        .append(&[turn("k", 0)])
        .unwrap();
    let other = PgLog::connect(
        &db.url,
        HmacKey::from_bytes([7; 32]),
        PgLogConfig::default(),
    );
    let Err(error) = other else {
        panic!("connected with another key");
    };
    assert!(matches!(error, PgLogError::KeyMismatch { .. }), "{error:?}");
    assert!(error.to_string().contains("use that log's key"), "{error}");
}

#[test]
fn damaged_tables_are_refused() {
    let Some(db) = TestDb::new("damaged_tables") else {
        return;
    };
    db.log(PgLogConfig::default())
        .append(&[turn("d", 0)])
        .unwrap();
    db.admin().execute("DELETE FROM engram_head", &[]).unwrap();
    let refused = PgLog::connect(&db.url, key(), PgLogConfig::default());
    assert!(
        matches!(refused, Err(PgLogError::SchemaDamaged { .. })),
        "{refused:?}"
    );
    db.admin().execute("DROP TABLE engram_meta", &[]).unwrap();
    let refused = PgLog::connect(&db.url, key(), PgLogConfig::default());
    assert!(
        matches!(refused, Err(PgLogError::SchemaDamaged { .. })),
        "{refused:?}"
    );
}

#[test]
fn tables_damaged_after_connecting_are_refused_at_append() {
    let Some(db) = TestDb::new("damaged_at_append") else {
        return;
    };
    let log = db.log(PgLogConfig::default());
    log.append(&[turn("d", 0)]).unwrap();
    let mut admin = db.admin();
    // A column the append reads changed type: refused as the wrong type,
    // and appending works again once the type is back.
    admin
        .execute(
            "ALTER TABLE engram_head ALTER COLUMN last_ts_ms TYPE numeric",
            &[],
        )
        .unwrap();
    let refused = log.append(&[turn("d", 1)]);
    match &refused {
        Err(PgLogError::SchemaDamaged { reason }) => {
            assert!(reason.contains("wrong type"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    admin
        .execute(
            "ALTER TABLE engram_head ALTER COLUMN last_ts_ms TYPE bigint",
            &[],
        )
        .unwrap();
    assert_eq!(log.append(&[turn("d", 1)]).unwrap().first_seq, 2);
    // The head row gone.
    admin.execute("DELETE FROM engram_head", &[]).unwrap();
    let refused = log.append(&[turn("d", 2)]);
    match &refused {
        Err(PgLogError::SchemaDamaged { reason }) => {
            assert!(reason.contains("engram_head holds 0 rows"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    // The events table gone.
    admin
        .execute(
            "INSERT INTO engram_head (last_seq, last_hash, last_ts_ms) SELECT 2, frame_hash, ts_ms FROM engram_events WHERE seq = 2",
            &[],
        )
        .unwrap();
    assert_eq!(log.append(&[turn("d", 2)]).unwrap().first_seq, 3);
    admin.execute("DROP TABLE engram_events", &[]).unwrap();
    let refused = log.append(&[turn("d", 3)]);
    assert!(
        matches!(refused, Err(PgLogError::SchemaDamaged { .. })),
        "{refused:?}"
    );
    assert_eq!(log.last_seq().unwrap(), 3);
}

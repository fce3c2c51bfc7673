//! Test helpers: a schema of its own per test on the server named by
//! `ENGRAM_TEST_POSTGRES_URL`, the key, events, waiting with deadlines.

use std::sync::atomic::{AtomicU64, Ordering};

use engram_log::{Event, HmacKey, Role, SessionEvent};
use engram_log_postgres::{PgLog, PgLogConfig};
use postgres::{Client, NoTls};

/// The environment variable naming the test server.
pub const URL_ENV: &str = "ENGRAM_TEST_POSTGRES_URL";
/// Set to 1 (CI) to make a missing server a failure, not a skip.
pub const REQUIRE_ENV: &str = "ENGRAM_TEST_REQUIRE_POSTGRES";

/// The test server's URL, or `None` (after a skip notice) when there is none.
pub fn server_url(test: &str) -> Option<String> {
    match std::env::var(URL_ENV) {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var(REQUIRE_ENV).as_deref() != Ok("1"),
                "{test}: {REQUIRE_ENV}=1 but {URL_ENV} is not set"
            );
            eprintln!("{test}: skipped: set {URL_ENV} to a PostgreSQL URL to run it");
            None
        }
    }
}

/// A schema of its own on the test server, dropped at the end.
pub struct TestDb {
    pub base_url: String,
    pub schema: String,
    /// `base_url` with the schema first on the search_path.
    pub url: String,
}

static NEXT: AtomicU64 = AtomicU64::new(0);

impl TestDb {
    /// A fresh schema for `test`, or `None` when there is no server.
    pub fn new(test: &str) -> Option<Self> {
        let base_url = server_url(test)?;
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let schema = format!(
            "t_{}_{}_{n}",
            test.replace(|c: char| !c.is_ascii_alphanumeric(), "_"),
            std::process::id()
        );
        let schema: String = schema.chars().take(60).collect();
        let mut admin = Client::connect(&base_url, NoTls).unwrap();
        admin
            .batch_execute(&format!(
                "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"
            ))
            .unwrap();
        let url = with_search_path(&base_url, &schema);
        Some(Self {
            base_url,
            schema,
            url,
        })
    }

    /// A plain connection with the schema on its search_path, for
    /// looking at and tampering with the tables.
    pub fn admin(&self) -> Client {
        Client::connect(&self.url, NoTls).unwrap()
    }

    /// The shared log in this schema.
    pub fn log(&self, config: PgLogConfig) -> PgLog {
        PgLog::connect(&self.url, key(), config).unwrap()
    }

    /// Rows in the events table.
    pub fn n_rows(&self) -> i64 {
        self.admin()
            .query_one("SELECT count(*) FROM engram_events", &[])
            .unwrap()
            .get(0)
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Ok(mut admin) = Client::connect(&self.base_url, NoTls) {
            let _ = admin.batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.schema));
        }
    }
}

/// `url` with `options=-csearch_path=<schema>` added.
pub fn with_search_path(url: &str, schema: &str) -> String {
    with_param(url, "options", &format!("-csearch_path%3D{schema}"))
}

/// `url` with `name=value` added to its query.
pub fn with_param(url: &str, name: &str, value: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{name}={value}")
}

/// The key every test log is sealed with.
pub fn key() -> HmacKey {
    HmacKey::from_bytes([42; 32])
}

/// The key as the helper binary takes it.
pub fn key_hex() -> String {
    hex::encode([42u8; 32])
}

/// Session turn `n` of session `tag`, content `"tag n"`.
pub fn turn(tag: &str, n: u64) -> Event {
    Event::Session(SessionEvent {
        session: tag.to_owned(),
        turn: u32::try_from(n).unwrap(),
        role: Role::User,
        content: format!("{tag} {n}"),
    })
}

/// `(session, turn)` of a session event.
pub fn session_turn(event: &Event) -> (String, u64) {
    match event {
        Event::Session(s) => (s.session.clone(), u64::from(s.turn)),
        other => panic!("not a session event: {other:?}"),
    }
}

/// The path of the helper binary.
pub fn appender() -> &'static str {
    env!("CARGO_BIN_EXE_engram-pg-append")
}

/// The seed of a randomized test: `ENGRAM_TEST_SEED` or `default`.
pub fn seed(default: u64) -> u64 {
    std::env::var("ENGRAM_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

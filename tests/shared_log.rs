//! Stores replicating one shared log on PostgreSQL (`engram --log URL`):
//! several processes appending through it, every replica's views
//! converging, `verify` of the shared log itself, moving a store onto it
//! and back, and bad connections leaving a replica untouched. Each test
//! works in its own schema of the server named by `ENGRAM_TEST_POSTGRES_URL`
//! (skipped without it unless `ENGRAM_TEST_REQUIRE_POSTGRES=1`).

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::support::{TEST_KEY_HEX, dir_files, json_lines, skip_unless_required};

/// The team's master key every replica in these tests is given: a shared
/// log made by a store's first connect seals its words under it.
pub(crate) const TEAM_MASTER_HEX: &str =
    "5151515151515151515151515151515151515151515151515151515151515151";

/// A fresh schema on the test server, dropped at the end.
pub(crate) struct Schema {
    base: String,
    pub(crate) name: String,
    pub(crate) url: String,
}

impl Schema {
    pub(crate) fn new(test: &str) -> Option<Self> {
        let Some(base) = std::env::var("ENGRAM_TEST_POSTGRES_URL")
            .ok()
            .filter(|url| !url.trim().is_empty())
        else {
            skip_unless_required(
                "ENGRAM_TEST_REQUIRE_POSTGRES",
                &format!("{test}: ENGRAM_TEST_POSTGRES_URL is not set (a PostgreSQL server's URL)"),
            );
            return None;
        };
        let name = format!("engram_{test}_{}", std::process::id());
        let mut client = postgres::Client::connect(&base, postgres::NoTls).unwrap();
        client
            .batch_execute(&format!(
                "DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name}"
            ))
            .unwrap();
        let separator = if base.contains('?') { '&' } else { '?' };
        let url = format!("{base}{separator}options=-csearch_path%3D{name}");
        Some(Self { base, name, url })
    }

    pub(crate) fn sql(&self, statement: &str) {
        let mut client = postgres::Client::connect(&self.url, postgres::NoTls).unwrap();
        client.batch_execute(statement).unwrap();
    }

    /// The first column of every row `query` returns, as text.
    pub(crate) fn rows(&self, query: &str) -> Vec<String> {
        let mut client = postgres::Client::connect(&self.url, postgres::NoTls).unwrap();
        client
            .query(query, &[])
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect()
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        if let Ok(mut client) = postgres::Client::connect(&self.base, postgres::NoTls) {
            let _ = client.batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name));
        }
    }
}

/// `engram --store STORE [--log URL] ARGS` under the shared test key and
/// the team's master key.
pub(crate) fn engram(store: &Path, log: Option<&str>, args: &[&str]) -> Output {
    engram_env(store, log, &[("ENGRAM_MASTER_KEY", TEAM_MASTER_HEX)], args)
}

/// [`engram`] with no master key from the environment, and `env` set.
pub(crate) fn engram_env(
    store: &Path,
    log: Option<&str>,
    env: &[(&str, &str)],
    args: &[&str],
) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_engram"));
    command.arg("--store").arg(store);
    if let Some(url) = log {
        command.args(["--log", url]);
    }
    command
        .args(args)
        .env("ENGRAM_HMAC_KEY", TEST_KEY_HEX)
        .env_remove("ENGRAM_HOME")
        .env_remove("ENGRAM_MODEL_DIR")
        .env_remove("ENGRAM_LOG_URL")
        .env_remove("ENGRAM_MASTER_KEY");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

#[track_caller]
pub(crate) fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// What must be equal between two stores holding the same log.
fn state(stats: &Value) -> Value {
    let mut state = stats.clone();
    if let Some(object) = state.as_object_mut() {
        // `due_reviews_today` and the health score read the wall clock.
        object.remove("due_reviews_today");
        object.remove("health");
    }
    state
}

/// Recall hits without their scores' last digits noise: id, coordinate, text.
fn hits(recall: &Value) -> Vec<(String, String, String)> {
    recall["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["id"].as_str().unwrap().to_owned(),
                h["coordinate"].as_str().unwrap().to_owned(),
                h["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn fact(writer: usize, n: usize) -> String {
    const THINGS: [&str; 5] = ["kettle", "lantern", "compass", "teapot", "hammock"];
    const PLACES: [&str; 4] = ["garage", "attic", "cellar", "pantry"];
    format!(
        "writer{writer} keeps item{n} the {} in the {}",
        THINGS[n % 5],
        PLACES[writer % 4]
    )
}

#[test]
fn four_processes_append_to_one_shared_log_and_every_replica_converges() {
    let Some(schema) = Schema::new("converge") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let replicas: Vec<_> = (0..4).map(|i| dir.path().join(format!("r{i}"))).collect();
    const SAVES: usize = 5;
    std::thread::scope(|scope| {
        for (writer, store) in replicas.iter().enumerate() {
            let url = schema.url.as_str();
            scope.spawn(move || {
                for n in 0..SAVES {
                    let saved = json(&engram(
                        store,
                        Some(url),
                        &["remember", &fact(writer, n), "--json"],
                    ));
                    assert_eq!(saved["outcome"], "new", "{saved}");
                    // Read-your-writes through the shared log.
                    let found = json(&engram(
                        store,
                        Some(url),
                        &["recall", &format!("writer{writer} item{n}"), "--json"],
                    ));
                    assert_eq!(found["hits"][0]["id"], saved["id"], "{found}");
                }
            });
        }
    });

    // Every replica catches up to the same log and the same views.
    let stats: Vec<Value> = replicas
        .iter()
        .map(|store| json(&engram(store, Some(&schema.url), &["stats", "--json"])))
        .collect();
    assert_eq!(stats[0]["memories_by_status"]["live"], 4 * SAVES);
    for other in &stats[1..] {
        assert_eq!(state(other), state(&stats[0]));
    }
    // The replicas' own logs are the same events at the same seqs, 1..=N
    // (their words opened with the team's key store).
    let logs: Vec<Vec<Value>> = replicas
        .iter()
        .map(|store| {
            crate::support::json_lines(&engram(store, Some(&schema.url), &["log", "--json"]).stdout)
        })
        .collect();
    let seqs: Vec<u64> = logs[0].iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    for other in &logs[1..] {
        assert_eq!(other, &logs[0]);
    }
    let remembered = logs[0].iter().filter(|e| e["kind"] == "remembered").count();
    assert_eq!(remembered, 4 * SAVES, "nothing lost, nothing twice");
    // The same question gets the same answer from every machine.
    let answers: Vec<_> = replicas
        .iter()
        .map(|store| {
            hits(&json(&engram(
                store,
                Some(&schema.url),
                &["recall", "kettle garage", "--json"],
            )))
        })
        .collect();
    assert!(!answers[0].is_empty());
    for other in &answers[1..] {
        assert_eq!(other, &answers[0]);
    }
    let verified = json(&engram(
        &replicas[0],
        Some(&schema.url),
        &["verify", "--json"],
    ));
    assert_eq!(verified["ok"], true, "{verified}");
    assert_eq!(
        verified["last_seq"],
        stats[0]["last_seq"].as_u64().unwrap() + 4
    );
}

#[test]
fn verify_catches_a_row_edited_in_the_database() {
    let Some(schema) = Schema::new("edited") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("r");
    for text in [
        "Deploys happen on Fridays after 5pm.",
        "The office plant needs water on Mondays.",
    ] {
        json(&engram(
            &store,
            Some(&schema.url),
            &["remember", text, "--json"],
        ));
    }
    assert_eq!(
        json(&engram(&store, Some(&schema.url), &["verify", "--json"]))["ok"],
        true
    );
    // Someone with database access rewrites a turn's bytes.
    schema.sql(
        "UPDATE engram_events SET event = set_byte(event, 8, get_byte(event, 8) # 1) WHERE seq = 3",
    );
    let out = engram(&store, Some(&schema.url), &["verify", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], false);
    // The problem names the frame holding seq 3 (a save's events share
    // one frame), from its first seq.
    let reason = report["problem"]["reason"].as_str().unwrap_or_default();
    let (first, last) = reason
        .strip_prefix("frame ")
        .and_then(|r| r.split_once(':'))
        .and_then(|(range, _)| range.split_once("..="))
        .map(|(a, b)| (a.parse::<u64>().unwrap(), b.parse::<u64>().unwrap()))
        .unwrap_or_else(|| panic!("no frame range in {report}"));
    assert!((first..=last).contains(&3), "{report}");
    assert_eq!(report["problem"]["seq"], first, "{report}");
    // The replica's own copy, made before the edit, still verifies.
    assert!(engram(&store, None, &["verify"]).status.success());
}

#[test]
fn a_bad_connection_is_a_clear_error_and_leaves_the_replica_untouched() {
    let Some(schema) = Schema::new("badconn") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("r");
    json(&engram(
        &store,
        Some(&schema.url),
        &["remember", "Deploys happen on Fridays after 5pm.", "--json"],
    ));
    let before = (
        dir_files(&store.join("log")),
        std::fs::read(store.join("views.redb")).unwrap(),
    );
    let wrong_password = {
        let (scheme_user, rest) = schema.url.split_once('@').unwrap();
        let user = scheme_user.rsplit_once(':').unwrap().0;
        format!("{user}:not-the-password@{rest}")
    };
    let unreachable = "postgres://engram:x@127.0.0.1:1/engram_test";
    for (url, says) in [
        (wrong_password.as_str(), "password"),
        (unreachable, "reach"),
    ] {
        let out = engram(
            &store,
            Some(url),
            &["remember", "a new fact for nobody", "--json"],
        );
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.to_lowercase().contains(says), "{stderr}");
    }
    let after = (
        dir_files(&store.join("log")),
        std::fs::read(store.join("views.redb")).unwrap(),
    );
    assert!(before == after, "a refused connection changed the replica");
    // A schema someone emptied behind the replica's back is refused.
    schema.sql("TRUNCATE engram_events");
    let out = engram(&store, Some(&schema.url), &["stats", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_store_moves_onto_the_shared_log_and_back_with_identical_views() {
    let Some(schema) = Schema::new("migrate") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let files = dir.path().join("files");
    for text in [
        "Deploys happen on Fridays after 5pm.",
        "The staging server runs Postgres 15 on host db2.",
        "The staging server runs Postgres 16 on host db2.",
        "The office plant needs water on Mondays.",
    ] {
        json(&engram(&files, None, &["remember", text, "--json"]));
    }
    json(&engram(&files, None, &["recall", "deploys", "--json"]));
    let export = dir.path().join("files.jsonl");
    let out = engram(&files, None, &["export"]);
    assert!(out.status.success());
    std::fs::write(&export, &out.stdout).unwrap();

    // Onto the shared log: the first replica is made by the import.
    let replica = dir.path().join("replica");
    let imported = json(&engram(
        &replica,
        Some(&schema.url),
        &["import", export.to_str().unwrap(), "--json"],
    ));
    assert_eq!(imported["shared_log"], true);
    let original = json(&engram(&files, None, &["stats", "--json"]));
    let shared = json(&engram(&replica, Some(&schema.url), &["stats", "--json"]));
    assert_eq!(state(&shared), state(&original));
    // A second machine's replica agrees.
    let second = dir.path().join("second");
    let second_stats = json(&engram(&second, Some(&schema.url), &["stats", "--json"]));
    assert_eq!(state(&second_stats), state(&original));
    // Refused: importing into an empty shared log that seals its words
    // (made by a replica's first connect), with nothing written.
    let sealed_schema = Schema::new("migrate_sealed").unwrap();
    json(&engram(
        &dir.path().join("sealed-replica"),
        Some(&sealed_schema.url),
        &["stats", "--json"],
    ));
    let refused = engram(
        &dir.path().join("sealed-import"),
        Some(&sealed_schema.url),
        &["import", export.to_str().unwrap()],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("seals its words"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert_eq!(
        sealed_schema.rows("SELECT count(*)::text FROM engram_events"),
        ["0"]
    );
    // Refused: importing into a shared log that already holds events.
    let again = engram(
        &dir.path().join("third"),
        Some(&schema.url),
        &["import", export.to_str().unwrap()],
    );
    assert_eq!(again.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already holds events"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );

    // And back to segment files.
    let back_export = dir.path().join("back.jsonl");
    let out = engram(&second, Some(&schema.url), &["export"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(&back_export, &out.stdout).unwrap();
    let back = dir.path().join("back");
    json(&engram(
        &back,
        None,
        &["import", back_export.to_str().unwrap(), "--json"],
    ));
    let back_stats = json(&engram(&back, None, &["stats", "--json"]));
    assert_eq!(state(&back_stats), state(&original));
    let query = ["recall", "staging postgres", "--json"];
    assert_eq!(
        hits(&json(&engram(&back, None, &query))),
        hits(&json(&engram(&files, None, &query)))
    );
}

#[test]
fn log_and_export_on_a_stale_replica_show_what_another_machine_appended() {
    let Some(schema) = Schema::new("stale") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    json(&engram(
        &first,
        Some(&schema.url),
        &[
            "remember",
            "The lighthouse lamp is serviced in March.",
            "--json",
        ],
    ));
    // The second machine's replica is made now, then falls behind.
    json(&engram(&second, Some(&schema.url), &["stats", "--json"]));
    json(&engram(
        &first,
        Some(&schema.url),
        &[
            "remember",
            "The ferry timetable changes in October.",
            "--json",
        ],
    ));
    // Without --log the replica's copy is as it was; its words open only
    // with the team's key store, so `log` asks for the shared log.
    let stale = json(&engram(&second, None, &["verify", "--json"]));
    assert_eq!(stale["last_seq"], 3, "{stale}");
    let closed = engram(&second, None, &["log", "--json"]);
    assert_eq!(closed.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&closed.stderr).contains("pass --log"),
        "{}",
        String::from_utf8_lossy(&closed.stderr)
    );

    let on_first = engram(&first, Some(&schema.url), &["log", "--json"]);
    let on_second = engram(&second, Some(&schema.url), &["log", "--json"]);
    assert!(
        on_second.status.success(),
        "{}",
        String::from_utf8_lossy(&on_second.stderr)
    );
    assert_eq!(
        json_lines(&on_second.stdout),
        json_lines(&on_first.stdout),
        "the replica's log caught up before printing"
    );
    assert!(String::from_utf8_lossy(&on_second.stdout).contains("ferry timetable"));
    // The views as of a seq are rebuilt from the replica's copy, its
    // words opened with the team's key store.
    let as_of = json(&engram(
        &second,
        Some(&schema.url),
        &["stats", "--as-of", "3", "--json"],
    ));
    assert_eq!(as_of["as_of"], 3, "{as_of}");
    assert_eq!(as_of["memories_by_status"]["live"], 1, "{as_of}");
    let export_first = engram(&first, Some(&schema.url), &["export"]);
    let export_second = engram(&second, Some(&schema.url), &["export"]);
    assert!(export_second.status.success());
    assert_eq!(export_second.stdout, export_first.stdout);
}

/// The team's options for a store replicating `url` (the library's door).
fn replica_options(url: &str) -> engram::store::StoreOptions {
    engram::store::StoreOptions {
        key: engram_log::KeySource::Hex(TEST_KEY_HEX.to_owned()),
        shared_log: Some(url.to_owned()),
        master_key: engram_log::MasterKeySource::Hex(TEAM_MASTER_HEX.to_owned()),
        ..engram::store::StoreOptions::default()
    }
}

/// Waits (up to 30 s, checking every 10 ms) until `done` holds.
#[track_caller]
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !done() {
        assert!(std::time::Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// A purge made on one machine reaches a replica that stays open through
/// it, as an event: the copying thread destroys the subjects' keys (again)
/// so its cache of them goes, and rewrites its views file as the purging
/// machine rewrites its own. Before the fix a replica kept the words it
/// had opened (the key cached) and its views file kept them in free pages.
#[test]
fn a_replica_open_through_a_purge_made_elsewhere_loses_the_words_at_once() {
    use engram::engine::Engram;
    use engram::store::Store;
    use engram::{Remember, Subject};
    use engram_commands::purge::PurgeTarget;

    const CANARY: &str = "Quetzalbramble";
    let Some(schema) = Schema::new("live_purge") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (a_dir, b_dir) = (dir.path().join("a"), dir.path().join("b"));
    let a = Engram::open(Store::at(&a_dir), &replica_options(&schema.url)).unwrap();
    let b = Engram::open(Store::at(&b_dir), &replica_options(&schema.url)).unwrap();
    let id = a
        .remember(&Remember::text(format!("the ferry's cat is {CANARY}")))
        .unwrap()
        .memory()
        .unwrap();
    let upto = a.log().last_seq();
    wait_until("b copies the save", || b.log().last_seq() >= upto);
    b.views()
        .wait_for(upto, std::time::Duration::from_secs(30))
        .unwrap();
    let words = b.expand_as(id, &Subject::user(), false).unwrap();
    assert!(words.turns[0].content.contains(CANARY));
    let note_seq = words.turns[0].seq;
    assert!(matches!(
        b.log().subject_key(note_seq).unwrap(),
        engram_log::SubjectKey::Live(_)
    ));

    let purge = a
        .purge(&PurgeTarget::Memory(id), &Subject::user(), "asked to erase")
        .unwrap();
    wait_until("b rewrites its views past the purge", || {
        b.views().rewritten_through().unwrap() >= purge.seq
    });
    assert!(matches!(
        b.log().subject_key(note_seq).unwrap(),
        engram_log::SubjectKey::Destroyed
    ));
    let erased = b.expand_as(id, &Subject::user(), false);
    assert!(
        matches!(erased, Err(engram::engine::EngineError::Purged { seq, .. }) if seq == purge.seq),
        "{erased:?}"
    );
    let replayed = b.log().read(note_seq..=note_seq).unwrap();
    assert!(replayed[0].erased);
    for folder in [&a_dir, &b_dir] {
        let holding: Vec<String> = dir_files(folder)
            .into_iter()
            .filter(|(_, bytes)| {
                [CANARY.to_owned(), CANARY.to_lowercase()]
                    .iter()
                    .any(|n| bytes.windows(n.len()).any(|w| w == n.as_bytes()))
            })
            .map(|(name, _)| name)
            .collect();
        assert!(holding.is_empty(), "{}: {holding:?}", folder.display());
    }
    a.close().unwrap();
    b.close().unwrap();
}

/// A replica must be given the team's master key: another one, or none,
/// is refused at connect with a message naming what to give, and nothing
/// changes (no row, no key row, the meta row as it was, no key file left
/// in the new store).
#[test]
fn a_wrong_or_missing_master_key_is_refused_and_changes_nothing() {
    let Some(schema) = Schema::new("master_keys") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first");
    json(&engram(
        &first,
        Some(&schema.url),
        &["remember", "The boiler is serviced in May.", "--json"],
    ));
    let tables = || {
        (
            schema.rows("SELECT count(*)::text FROM engram_events"),
            schema.rows("SELECT count(*)::text FROM engram_keys"),
            schema.rows("SELECT encode(key_check, 'hex') FROM engram_meta"),
        )
    };
    let before = tables();
    let wrong = "5252525252525252525252525252525252525252525252525252525252525252";
    let second = dir.path().join("second");
    for (env, expected) in [
        (
            vec![("ENGRAM_MASTER_KEY", wrong)],
            "the master key does not open the shared log",
        ),
        // No key given: a new store makes one, which does not open it
        // either, and removes it again.
        (vec![], "the master key does not open the shared log"),
    ] {
        let out = engram_env(&second, Some(&schema.url), &env, &["stats", "--json"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
        assert!(stderr.contains("ENGRAM_MASTER_KEY"), "{stderr}");
        assert!(stderr.contains("nothing was changed"), "{stderr}");
        assert!(!second.join("master.key").exists());
        assert!(!second.join("log").exists());
        assert_eq!(tables(), before);
    }
    // A replica with a log and no key at all: refused, naming the key.
    let out = engram_env(&first, Some(&schema.url), &[], &["stats", "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("seals its words"), "{stderr}");
    assert_eq!(tables(), before);
    // The team's key still works.
    json(&engram(&second, Some(&schema.url), &["stats", "--json"]));
}

/// A key row deleted from the team's key store (damage, not a purge):
/// reading the words it sealed says which subject has no key and that no
/// purge destroyed it, on a replica that has the frame and on one copying
/// it; the logs still verify; nothing is changed.
#[test]
fn a_missing_key_row_is_named_and_the_logs_still_verify() {
    let Some(schema) = Schema::new("missing_key") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first");
    let saved = json(&engram(
        &first,
        Some(&schema.url),
        &["remember", "The attic key hangs by the door.", "--json"],
    ));
    let id = saved["id"].as_str().unwrap().to_owned();
    let note_seq = saved["first_seq"].as_u64().unwrap();
    schema.sql(&format!("DELETE FROM engram_keys WHERE seq = {note_seq}"));
    let events_before = schema.rows("SELECT count(*)::text FROM engram_events");

    let expand = engram(&first, Some(&schema.url), &["expand", &id]);
    let stderr = String::from_utf8_lossy(&expand.stderr);
    assert_eq!(expand.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("no key for subject {note_seq}")),
        "{stderr}"
    );
    assert!(stderr.contains("no purge destroyed it"), "{stderr}");

    let fresh = dir.path().join("fresh");
    let out = engram(&fresh, Some(&schema.url), &["stats", "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("no key for subject {note_seq}")),
        "{stderr}"
    );

    json(&engram(&first, Some(&schema.url), &["verify", "--json"]));
    json(&engram(&first, None, &["verify", "--json"]));
    assert_eq!(
        schema.rows("SELECT count(*)::text FROM engram_events"),
        events_before
    );
}

/// The purging process dies after `Purged` committed and before the keys
/// were destroyed (the key rows are put back as they were to stand for
/// it). Whichever replica applies the event next finishes the purge:
/// the purging store at its next open (its `purge.pending` mark), and
/// any replica copying `Purged` for the first time.
#[test]
fn a_purge_whose_keys_outlived_its_process_is_finished_by_the_next_replica() {
    let Some(schema) = Schema::new("purge_finish") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first");
    let saved = json(&engram(
        &first,
        Some(&schema.url),
        &["remember", "The safe's code is 4-8-15.", "--json"],
    ));
    let id = saved["id"].as_str().unwrap().to_owned();
    let live_rows = || {
        schema.rows("SELECT string_agg(seq::text, ',' ORDER BY seq) FROM engram_keys WHERE octet_length(wrapped) > 0")
    };
    let keys_before = schema.rows(
        "SELECT string_agg(seq::text || ':' || encode(wrapped, 'hex'), ',' ORDER BY seq) FROM engram_keys",
    );
    let purged = json(&engram(
        &first,
        Some(&schema.url),
        &["purge", &id, "--json"],
    ));
    let subjects: Vec<u64> = purged["subjects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .collect();
    let restore = || {
        for entry in keys_before[0].split(',') {
            let (seq, wrapped) = entry.split_once(':').unwrap();
            schema.sql(&format!(
                "UPDATE engram_keys SET wrapped = '\\x{wrapped}' WHERE seq = {seq}"
            ));
        }
    };
    let destroyed = |rows: &[String]| {
        let live: Vec<u64> = rows[0]
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap())
            .collect();
        subjects.iter().all(|s| !live.contains(s))
    };
    assert!(destroyed(&live_rows()));

    // The purging store, crashed with its mark set.
    restore();
    assert!(!destroyed(&live_rows()));
    std::fs::write(first.join("purge.pending"), b"").unwrap();
    let out = engram(&first, Some(&schema.url), &["expand", &id, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(destroyed(&live_rows()));
    assert!(!first.join("purge.pending").exists());

    // A replica copying the purge for the first time.
    restore();
    let second = dir.path().join("second");
    let out = engram(&second, Some(&schema.url), &["expand", &id, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_error(&out), "erased");
    assert!(destroyed(&live_rows()));
}

fn json_error(out: &Output) -> String {
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    value["error"].as_str().unwrap().to_owned()
}

/// A store with a sealed log of its own pointed at a shared log by
/// mistake: refused (the shared log does not continue it), and the store
/// is left as it was: not marked as a replica, its own log still read.
#[test]
fn a_local_store_given_a_shared_log_by_mistake_is_refused_and_left_as_it_was() {
    let Some(schema) = Schema::new("mistaken") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("local");
    json(&engram(
        &local,
        None,
        &[
            "remember",
            "--in-process",
            "The kiln fires on Sundays.",
            "--json",
        ],
    ));
    let before = dir_files(&local);
    let out = engram(&local, Some(&schema.url), &["stats", "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("already seen"), "{stderr}");
    assert_eq!(dir_files(&local), before);
    let log = engram(&local, None, &["log", "--json"]);
    assert!(
        log.status.success(),
        "{}",
        String::from_utf8_lossy(&log.stderr)
    );
    assert!(String::from_utf8_lossy(&log.stdout).contains("kiln"));
}

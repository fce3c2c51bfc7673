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

/// A fresh schema on the test server, dropped at the end.
struct Schema {
    base: String,
    name: String,
    url: String,
}

impl Schema {
    fn new(test: &str) -> Option<Self> {
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

    fn sql(&self, statement: &str) {
        let mut client = postgres::Client::connect(&self.url, postgres::NoTls).unwrap();
        client.batch_execute(statement).unwrap();
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        if let Ok(mut client) = postgres::Client::connect(&self.base, postgres::NoTls) {
            let _ = client.batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name));
        }
    }
}

/// `engram --store STORE [--log URL] ARGS` under the shared test key.
fn engram(store: &Path, log: Option<&str>, args: &[&str]) -> Output {
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
        .output()
        .unwrap()
}

#[track_caller]
fn json(out: &Output) -> Value {
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
    // The replicas' own logs are the same events at the same seqs, 1..=N.
    let logs: Vec<Vec<Value>> = replicas
        .iter()
        .map(|store| crate::support::json_lines(&engram(store, None, &["log", "--json"]).stdout))
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
    let stale = engram(&second, None, &["log", "--json"]);
    assert!(stale.status.success());
    assert!(!String::from_utf8_lossy(&stale.stdout).contains("ferry"));

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
    let export_first = engram(&first, Some(&schema.url), &["export"]);
    let export_second = engram(&second, Some(&schema.url), &["export"]);
    assert!(export_second.status.success());
    assert_eq!(export_second.stdout, export_first.stdout);
}

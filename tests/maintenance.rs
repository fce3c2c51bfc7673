//! Maintenance on a schedule in the process that owns the stores, and the
//! uniqueness refresh.
//!
//! The story (issue 17): maintenance ran only when someone called
//! `engram maintain`, and a memory's uniqueness was computed once, at its
//! save, against the memories near it then, so an older memory never
//! dropped onto the renovation list when a near-duplicate arrived later.
//!
//! Invariants checked: a maintenance run (the owner's tick) lowers the
//! older memory's uniqueness once its near-duplicate exists, so it joins
//! the renovation list; a run with nothing to do appends nothing; the
//! scores survive a restart and a rebuild; a daemon with a short schedule
//! archives an expired memory by itself, and afterwards its idle store's
//! log does not grow however many runs pass.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use engram::api::RememberRequest;
use engram::log::{Durability, KeySource};
use engram::owner::{Layout, Owned, SINGLE_STORE_NAME};
use engram::store::{Store, StoreOptions};
use engram_commands::maintain::MaintainPolicy;
use serde_json::{Value, json};

// Near duplicates: every content word alike but the service's name (a
// light verb such as `listens` is no content word, so the two say as many
// things alike as they need to).
const OLDER: &str = "The billing service of the payments cluster listens on port 8080.";
const LATER: &str = "The search service of the payments cluster listens on port 8080.";

fn options() -> StoreOptions {
    StoreOptions {
        key: KeySource::StoreFile,
        durability: Durability::None,
        ..StoreOptions::default()
    }
}

fn remember(service: &engram::api::Service, text: &str) -> String {
    let request: RememberRequest = serde_json::from_value(json!({"content": text})).unwrap();
    let answer = service.remember(&request).unwrap();
    answer["id"].as_str().unwrap().to_owned()
}

fn renovation_ids(service: &engram::api::Service) -> Vec<String> {
    service.renovation()["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_owned())
        .collect()
}

fn uniqueness(store: &Path, id: &str) -> u16 {
    let engram = engram::Engram::open(Store::at(store), &options()).unwrap();
    let seq: u64 = id.trim_start_matches("s:").parse().unwrap();
    let score = engram
        .core()
        .memory_table
        .read()
        .state
        .get(seq)
        .unwrap()
        .uniqueness_permille;
    engram.close().unwrap();
    score
}

#[test]
fn an_owners_tick_drops_an_older_memory_onto_the_renovation_list_once_a_near_duplicate_arrives() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("store");
    let owned = Owned::new(&root, Layout::Single, options(), None);
    let (service, _) = owned.service_for(&[SINGLE_STORE_NAME.to_owned()]).unwrap();
    let older = remember(&service, OLDER);
    let later = remember(&service, LATER);
    // The later memory is scored against the older one at its save; the
    // older one kept the score it had alone.
    let renovation = renovation_ids(&service);
    assert!(renovation.contains(&later), "{renovation:?}");
    assert!(!renovation.contains(&older), "{renovation:?}");

    let now = engram::engine::now_ms();
    let before = service.engram().log().last_seq();
    let runs = owned.maintain_now(&MaintainPolicy::default(), now);
    assert_eq!(runs.len(), 1, "one store is open");
    let done = runs[0].result.as_ref().unwrap();
    assert!(done.archived.is_empty(), "{done:?}");
    let seq: u64 = older.trim_start_matches("s:").parse().unwrap();
    assert!(
        done.rescored
            .iter()
            .any(|r| r.memory == seq && r.to_permille < r.from_permille),
        "{done:?}"
    );
    assert_eq!(
        service.engram().log().last_seq(),
        before + done.rescored.len() as u64,
        "one event per changed score, in one append"
    );
    let renovation = renovation_ids(&service);
    assert!(renovation.contains(&older), "{renovation:?}");
    assert!(renovation.contains(&later), "{renovation:?}");

    // Nothing changed since: the next tick appends nothing.
    let settled = service.engram().log().last_seq();
    for _ in 0..3 {
        let runs = owned.maintain_now(&MaintainPolicy::default(), now);
        assert!(runs[0].result.as_ref().unwrap().is_empty(), "{runs:?}");
    }
    assert_eq!(service.engram().log().last_seq(), settled);
    assert_eq!(owned.maintenance_status()["runs"], 4);
    assert_eq!(owned.maintenance_status()["rescored"], done.rescored.len());

    // The scores survive a restart and a rebuild.
    drop(service);
    owned.close().unwrap();
    let scored = uniqueness(&root, &older);
    assert!(scored < 400, "{scored}");
    std::fs::remove_file(root.join("views.redb")).unwrap();
    assert_eq!(uniqueness(&root, &older), scored, "rebuilt by replay");

    // Forgetting the near-duplicate lifts the older memory off the list
    // at the next run.
    let owned = Owned::new(&root, Layout::Single, options(), None);
    let (service, _) = owned.service_for(&[SINGLE_STORE_NAME.to_owned()]).unwrap();
    let forget: engram::api::ForgetRequest = serde_json::from_value(json!({})).unwrap();
    service.forget(later.parse().unwrap(), &forget).unwrap();
    owned.maintain_now(&MaintainPolicy::default(), now);
    assert!(!renovation_ids(&service).contains(&older));
    drop(service);
    owned.close().unwrap();
}

#[test]
fn maintain_reports_and_dry_runs_the_refresh() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let run = |args: &[&str]| -> Value {
        let out = crate::support::engram(&store, &[&["--in-process"], args].concat());
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let older = run(&["remember", OLDER, "--json"])["id"].clone();
    run(&["remember", LATER, "--json"]);
    let dry = run(&["maintain", "--dry-run", "--json"]);
    let rescored = dry["rescored"].as_array().unwrap();
    assert!(
        rescored
            .iter()
            .any(|r| r["id"] == older
                && r["uniqueness"].as_f64().unwrap() < r["from"].as_f64().unwrap()),
        "{dry}"
    );
    let done = run(&["maintain", "--json"]);
    assert_eq!(done["rescored"], dry["rescored"]);
    let again = run(&["maintain", "--json"]);
    assert_eq!(again["rescored"], json!([]), "{again}");
    assert_eq!(again["archived"], json!([]), "{again}");
    let kinds: Vec<String> =
        crate::support::json_lines(&crate::support::engram(&store, &["log", "--json"]).stdout)
            .iter()
            .map(|e| e["kind"].as_str().unwrap().to_owned())
            .collect();
    assert_eq!(
        kinds.iter().filter(|k| *k == "uniqueness_scored").count(),
        rescored.len(),
        "{kinds:?}"
    );
}

fn engram_cmd(store: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_engram"));
    cmd.arg("--store")
        .arg(store)
        .env_remove("ENGRAM_HMAC_KEY")
        .env_remove("ENGRAM_HOME")
        .env_remove("ENGRAM_MODEL_DIR")
        .env_remove("ENGRAM_CONFIG")
        .env_remove("ENGRAM_MAINTAIN_EVERY")
        .env("ENGRAM_DAEMON_IDLE", "30s");
    cmd
}

fn ok(out: Output) -> Output {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Stops the store's daemon when dropped.
struct StopDaemon<'a>(&'a Path);

impl Drop for StopDaemon<'_> {
    fn drop(&mut self) {
        let _ = engram_cmd(self.0).args(["daemon", "stop"]).output();
    }
}

fn maintenance(store: &Path) -> Value {
    let out = ok(engram_cmd(store)
        .args(["daemon", "status", "--json"])
        .output()
        .unwrap());
    let status: Value = serde_json::from_slice(&out.stdout).unwrap();
    status["maintenance"].clone()
}

fn last_seq(store: &Path) -> u64 {
    let out = ok(engram_cmd(store)
        .args(["stats", "--json"])
        .output()
        .unwrap());
    let stats: Value = serde_json::from_slice(&out.stdout).unwrap();
    stats["last_seq"].as_u64().unwrap()
}

/// Polls the daemon's maintenance counters until `done` holds, failing
/// after a deadline: the test fails if the scheduler never runs.
fn wait_for(store: &Path, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let status = maintenance(store);
        if done(&status) {
            return status;
        }
        assert!(Instant::now() < deadline, "{what}: {status}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_daemon_on_a_short_schedule_archives_what_expired_and_an_idle_store_stays_still() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let _stop = StopDaemon(&store);
    ok(engram_cmd(&store)
        .args(["daemon", "--detach", "--maintain-every", "200ms"])
        .output()
        .unwrap());
    assert_eq!(maintenance(&store)["every"], "200ms");
    let out = ok(engram_cmd(&store)
        .args(["remember", OLDER, "--ttl", "1s", "--json"])
        .output()
        .unwrap());
    let id = serde_json::from_slice::<Value>(&out.stdout).unwrap()["id"].clone();
    // Nobody calls `maintain`: the owner's schedule archives it.
    wait_for(&store, "the expired memory was never archived", |m| {
        m["archived"].as_u64() >= Some(1)
    });
    let log = ok(engram_cmd(&store).args(["log", "--json"]).output().unwrap());
    let archived = crate::support::json_lines(&log.stdout)
        .into_iter()
        .find(|e| e["kind"] == "archived")
        .expect("an archived event");
    assert_eq!(
        format!("s:{}", archived["memory"]),
        id.as_str().unwrap(),
        "{archived}"
    );
    assert!(
        archived["reason"].as_str().unwrap().starts_with("expired"),
        "{archived}"
    );
    // Idle: runs go on, the log stays as it is.
    let settled = last_seq(&store);
    let runs = maintenance(&store)["runs"].as_u64().unwrap();
    wait_for(&store, "the scheduler stopped running", |m| {
        m["runs"].as_u64() >= Some(runs + 5)
    });
    assert_eq!(last_seq(&store), settled, "an idle store's log grew");
    let status = maintenance(&store);
    assert_eq!(status["failed"], 0, "{status}");
    let daemon_log = std::fs::read_to_string(store.join("daemon.log")).unwrap();
    assert!(
        daemon_log.contains("maintenance every 200ms"),
        "{daemon_log}"
    );
}

//! `engram list` / `GET /api/memories` and `engram update` /
//! `POST /api/memories/{id}/update`.
//!
//! The story: there was no way to browse memories or to correct one; a
//! correction meant a new memory plus a verdict by hand, two appends a
//! crash could split. Here a list pages newest first with filters across
//! the stores recall spans (ids naming their store), and an update is a
//! supersession in one append: the new memory, the edge and the verdict
//! retiring the old one. The CLI runs as a client of the daemon that owns
//! the store (the socket path), the HTTP tests against `engram serve`.
//!
//! Invariants checked: the list's order is newest first and stable across
//! pages; each filter selects what it names; bad input (limit, status,
//! time, cursor) is refused with exit 2 and changes nothing; an update
//! adds exactly one frame, retires the old memory from recall (status
//! `superseded`, still in the log) and survives `rebuild`; updating a
//! forgotten, unknown, already superseded or ambiguous memory is refused
//! with nothing written; a model cannot supersede the user's memory (its
//! `gate_denied` is the only event written); the new words are redacted.

use std::path::Path;

use serde_json::{Value, json};

use crate::memory_ids::{events, two_stores};
use crate::server::Server;
use crate::support::{engram_expecting as run, engram_json as json_of, json_lines};

fn remember(store: &Path, text: &str, extra: &[&str]) -> String {
    let mut args = vec!["remember", text, "--json"];
    args.extend_from_slice(extra);
    let receipt = json_of(store, &args);
    assert_eq!(receipt["outcome"], "new", "{receipt}");
    receipt["id"].as_str().unwrap().to_owned()
}

/// The ids of a list answer, in order.
fn ids(list: &Value) -> Vec<String> {
    list["memories"]
        .as_array()
        .unwrap_or_else(|| panic!("no memories: {list}"))
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The frames and events of the store's log (`verify --json`).
fn frames_and_events(store: &Path) -> (u64, u64) {
    let report = json_of(store, &["verify", "--json"]);
    (
        report["n_frames"].as_u64().unwrap(),
        report["n_events"].as_u64().unwrap(),
    )
}

const DEPLOYS: &str = "Deploys happen on Thursdays after the change review.";
const BILLING: &str = "The billing service listens on port 8080 behind the gateway.";
const WIFI: &str = "The office wifi network is called lighthouse.";

#[test]
fn list_pages_newest_first_and_filters() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let deploys = remember(
        &store,
        DEPLOYS,
        &["--tags", "ops,release", "--room", "deploys"],
    );
    let billing = remember(&store, BILLING, &["--tags", "ops", "--tier", "l2"]);
    let wifi = remember(&store, WIFI, &[]);

    let all = json_of(&store, &["list", "--json"]);
    assert_eq!(
        ids(&all),
        [wifi.as_str(), billing.as_str(), deploys.as_str()],
        "{all}"
    );
    assert_eq!(all["next"], Value::Null, "{all}");
    let first = &all["memories"][2];
    assert_eq!(first["text"], DEPLOYS, "{first}");
    assert_eq!(first["status"], "live", "{first}");
    assert_eq!(first["tier"], "l3", "{first}");
    assert_eq!(first["tags"], json!(["ops", "release"]), "{first}");
    assert_eq!(first["room"], "deploys", "{first}");
    assert_eq!(first["verified"], true, "{first}");
    assert_eq!(first["scope"], "store", "{first}");

    // Each filter selects what it names.
    let tagged = json_of(&store, &["list", "--tag", "ops", "--json"]);
    assert_eq!(ids(&tagged), [billing.as_str(), deploys.as_str()]);
    let tier = json_of(&store, &["list", "--tier", "l2", "--json"]);
    assert_eq!(ids(&tier), [billing.as_str()]);
    let room = json_of(&store, &["list", "--room", "deploys", "--json"]);
    assert_eq!(ids(&room), [deploys.as_str()]);
    let recent = json_of(&store, &["list", "--since", "-1h", "--json"]);
    assert_eq!(ids(&recent).len(), 3);
    let future = json_of(&store, &["list", "--since", "+1d", "--json"]);
    assert_eq!(ids(&future), Vec::<String>::new());

    // Pages: each hands out the cursor of the next, and together they are
    // the whole list, in order.
    let page = json_of(&store, &["list", "--limit", "2", "--json"]);
    assert_eq!(ids(&page), [wifi.as_str(), billing.as_str()]);
    let cursor = page["next"].as_str().unwrap().to_owned();
    // A memory saved while paging goes to the head of the list, never into
    // the pages after it.
    let late = remember(&store, "The coffee machine is descaled on Fridays.", &[]);
    let page = json_of(
        &store,
        &["list", "--limit", "2", "--cursor", &cursor, "--json"],
    );
    assert_eq!(ids(&page), [deploys.as_str()]);
    assert_eq!(page["next"], Value::Null);
    assert_eq!(
        ids(&json_of(&store, &["list", "--limit", "1", "--json"])),
        [late.as_str()]
    );

    // Forgotten memories are listed only when asked for.
    run(&store, &["forget", &billing], 0);
    let live = json_of(&store, &["list", "--json"]);
    assert!(!ids(&live).contains(&billing), "{live}");
    let forgotten = json_of(&store, &["list", "--status", "forgotten", "--json"]);
    assert_eq!(ids(&forgotten), [billing.as_str()]);
    assert_eq!(forgotten["memories"][0]["text"], Value::Null);

    // People get one line per memory and the way to the next page.
    let (text, _) = run(&store, &["list", "--limit", "1"], 0);
    assert!(text.contains(&late) && text.contains("live"), "{text}");
    assert!(text.contains("more: engram list --cursor "), "{text}");
}

#[test]
fn list_refuses_bad_input_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    remember(&store, DEPLOYS, &[]);
    let before = frames_and_events(&store);
    for (args, says) in [
        (
            vec!["list", "--since", "yesterday"],
            "--since \"yesterday\"",
        ),
        (
            vec!["list", "--since", "+3 fortnights"],
            "an offset is like",
        ),
        (vec!["list", "--limit", "0"], "limit 0 is outside 1-500"),
        (vec!["list", "--limit", "501"], "limit 501 is outside 1-500"),
        (
            vec!["list", "--cursor", "page-two"],
            "is not one a list handed out",
        ),
        (vec!["list", "--cursor", "17:u:2"], "not open here"),
        (
            vec!["list", "--status", "deleted"],
            "invalid value 'deleted'",
        ),
        (vec!["list", "--tier", "l9"], "invalid value 'l9'"),
    ] {
        let (_, stderr) = run(&store, &args, 2);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    assert_eq!(frames_and_events(&store), before, "a refused list wrote");
}

#[test]
fn list_spans_the_user_and_project_stores_with_ids_that_name_them() {
    let (w, repo) = two_stores(&[]);
    let list = w.json(&repo, &["list", "--json"]);
    // The project memory was saved last: newest first.
    assert_eq!(ids(&list), ["p:2", "u:2"], "{list}");
    assert_eq!(list["memories"][0]["scope"], "project");
    assert_eq!(list["memories"][1]["scope"], "user");
    // A page boundary between the stores: the cursor names the store.
    let page = w.json(&repo, &["list", "--limit", "1", "--json"]);
    assert_eq!(ids(&page), ["p:2"]);
    let cursor = page["next"].as_str().unwrap();
    assert!(cursor.ends_with(":p:2"), "{cursor}");
    let page = w.json(
        &repo,
        &["list", "--limit", "1", "--cursor", cursor, "--json"],
    );
    assert_eq!(ids(&page), ["u:2"], "{page}");
    assert_eq!(page["next"], Value::Null);
}

#[test]
fn update_supersedes_in_one_append_and_survives_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let old = remember(&store, DEPLOYS, &["--tags", "ops", "--room", "deploys"]);
    let before = frames_and_events(&store);
    let updated = json_of(
        &store,
        &[
            "update",
            &old,
            "Deploys happen on Wednesdays after the change review.",
            "--reason",
            "the review moved",
            "--json",
        ],
    );
    let new = updated["id"].as_str().unwrap().to_owned();
    assert_eq!(updated["supersedes"], old, "{updated}");
    assert_ne!(new, old);
    assert_eq!(updated["outcome"], "new", "{updated}");
    let after = frames_and_events(&store);
    assert_eq!(after.0, before.0 + 1, "an update is one append (one frame)");
    // The note, its seal, the edge and the verdict (and entity links).
    assert!(after.1 >= before.1 + 4, "{before:?} -> {after:?}");
    let log = json_lines(&run(&store, &["log", "--json"], 0).0.into_bytes());
    let verdict = log
        .iter()
        .find(|e| e["kind"] == "verdict_recorded")
        .unwrap_or_else(|| panic!("no verdict: {log:?}"));
    assert_eq!(verdict["seq"], updated["verdict_seq"], "{verdict}");
    assert_eq!(verdict["reason"], "the review moved", "{verdict}");
    assert_eq!(verdict["verdict"], "keep_a", "{verdict}");

    // The new words are recalled, the old ones are not; the old memory is
    // superseded, kept in the log and its room and tags carried over.
    let found = json_of(&store, &["recall", "when do deploys happen", "--json"]);
    let hits: Vec<&str> = found["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    assert_eq!(hits, [new.as_str()], "{found}");
    assert_eq!(found["hits"][0]["tags"], json!(["ops"]), "{found}");
    assert_eq!(found["hits"][0]["room"], "deploys", "{found}");
    let superseded = json_of(&store, &["list", "--status", "superseded", "--json"]);
    assert_eq!(ids(&superseded), [old.as_str()], "{superseded}");
    let expanded = json_of(&store, &["expand", &old, "--json"]);
    assert_eq!(expanded["events"][0]["content"], DEPLOYS, "{expanded}");

    // A memory superseded once is not updated again: its successor is.
    let (_, stderr) = run(&store, &["update", &old, "Deploys happen on Mondays."], 2);
    assert!(stderr.contains("already superseded"), "{stderr}");

    // People get a sentence naming both.
    let (text, _) = run(
        &store,
        &[
            "update",
            &new,
            "Deploys happen on Tuesdays after the change review.",
        ],
        0,
    );
    assert!(
        text.starts_with(&format!("updated memory {new}: memory ")),
        "{text}"
    );
    assert!(!text.contains("store store"), "{text}");

    // Rebuilt from the log, the views say the same.
    let listed = json_of(&store, &["list", "--status", "superseded", "--json"]);
    run(&store, &["rebuild"], 0);
    assert_eq!(
        json_of(&store, &["list", "--status", "superseded", "--json"]),
        listed
    );
}

#[test]
fn update_refuses_forgotten_unknown_and_ambiguous_memories_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let kept = remember(&store, BILLING, &[]);
    let gone = remember(&store, WIFI, &[]);
    run(&store, &["forget", &gone], 0);
    let before = frames_and_events(&store);
    let (_, stderr) = run(&store, &["update", &gone, "The wifi is called harbour."], 2);
    assert!(stderr.contains("was forgotten at seq"), "{stderr}");
    assert!(stderr.contains("cannot be updated"), "{stderr}");
    let (_, stderr) = run(&store, &["update", "s:99", "No such memory."], 2);
    assert!(stderr.contains("no memory with id s:99"), "{stderr}");
    let (_, stderr) = run(&store, &["update", "u:2", "Another store."], 2);
    assert!(stderr.contains("not open here"), "{stderr}");
    let (_, stderr) = run(&store, &["update", "two", "Not an id."], 2);
    assert!(stderr.contains("is not a memory id"), "{stderr}");
    let (_, stderr) = run(&store, &["update", &kept, "ok"], 2);
    assert!(stderr.contains("discarded"), "{stderr}");
    assert_eq!(frames_and_events(&store), before, "a refused update wrote");

    // Two stores each with a memory 2: a bare 2 is ambiguous.
    let (w, repo) = two_stores(&[]);
    let before = events(&w, &repo);
    let out = w.run(&repo, &["update", "2", "Which one?"], 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("ambiguous") && stderr.contains("u:2") && stderr.contains("p:2"));
    assert_eq!(events(&w, &repo), before, "an ambiguous update wrote");
    // Named, each acts on its own store.
    let updated = w.json(
        &repo,
        &[
            "update",
            "u:2",
            "The user signs every commit with a GPG key",
            "--json",
        ],
    );
    assert_eq!(updated["supersedes"], "u:2", "{updated}");
    assert_eq!(updated["scope"], "user", "{updated}");
}

#[test]
fn a_model_cannot_supersede_what_the_user_said() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let users = remember(&store, DEPLOYS, &[]);
    let models = remember(&store, BILLING, &["--by", "model"]);
    let before = frames_and_events(&store);
    let (_, stderr) = run(
        &store,
        &[
            "update",
            &users,
            "Deploys happen on Fridays.",
            "--by",
            "model",
        ],
        2,
    );
    assert!(stderr.contains("write_trust denied"), "{stderr}");
    assert!(stderr.contains("supersede"), "{stderr}");
    // The denial is recorded, and nothing else.
    let after = frames_and_events(&store);
    assert_eq!(after.1, before.1 + 1, "{before:?} -> {after:?}");
    let log = json_lines(&run(&store, &["log", "--json"], 0).0.into_bytes());
    assert_eq!(log.last().unwrap()["kind"], "gate_denied");
    let live = json_of(&store, &["list", "--json"]);
    assert!(
        live["memories"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["status"] == "live"),
        "{live}"
    );
    // A model corrects its own memory.
    let updated = json_of(
        &store,
        &[
            "update",
            &models,
            "The billing service listens on port 9090 behind the gateway.",
            "--by",
            "model",
            "--json",
        ],
    );
    assert_eq!(updated["supersedes"], models, "{updated}");
}

#[test]
fn update_redacts_the_new_words() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let old = remember(
        &store,
        "The deploy bot uses a token kept in the vault.",
        &[],
    );
    let secret = "ghp_R3nq8ZkLw2VbXc9TyHs4MdJf6PaQe1UoNiGt";
    let updated = json_of(
        &store,
        &[
            "update",
            &old,
            &format!("The deploy bot uses the token {secret} now."),
            "--json",
        ],
    );
    let new = updated["id"].as_str().unwrap();
    let expanded = json_of(&store, &["expand", new, "--json"]);
    let words = expanded["events"][0]["content"].as_str().unwrap();
    assert!(words.contains("[REDACTED:"), "{words}");
    let (log, _) = run(&store, &["log", "--json"], 0);
    assert!(!log.contains(secret), "the secret reached the log");
}

#[test]
fn list_and_update_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let server = Server::start(&store, "127.0.0.1:0", &[]);
    let save = |text: &str, tags: Value| {
        let r = server
            .post("/api/remember", &json!({"content": text, "tags": tags}))
            .ok();
        r["id"].as_str().unwrap().to_owned()
    };
    let deploys = save(DEPLOYS, json!(["ops"]));
    let billing = save(BILLING, json!(["ops"]));
    let wifi = save(WIFI, json!([]));

    let all = server.get("/api/memories").ok();
    assert_eq!(
        ids(&all),
        [wifi.as_str(), billing.as_str(), deploys.as_str()],
        "{all}"
    );
    let page = server.get("/api/memories?tag=ops&limit=1").ok();
    assert_eq!(ids(&page), [billing.as_str()]);
    let next = page["next"].as_str().unwrap().replace(':', "%3A");
    let page = server
        .get(&format!("/api/memories?tag=ops&limit=1&cursor={next}"))
        .ok();
    assert_eq!(ids(&page), [deploys.as_str()]);
    assert_eq!(page["next"], Value::Null);

    server
        .get("/api/memories?limit=0")
        .assert_error(400, "bad_request");
    server
        .get("/api/memories?status=gone")
        .assert_error(400, "bad_request");
    server
        .get("/api/memories?colour=red")
        .assert_error(400, "bad_request");
    server
        .get("/api/memories?since=soon")
        .assert_error(400, "bad_request");

    let updated = server
        .post(
            &format!("/api/memories/{deploys}/update"),
            &json!({"content": "Deploys happen on Wednesdays after the change review.", "reason": "moved"}),
        )
        .ok();
    assert_eq!(updated["supersedes"], deploys.as_str(), "{updated}");
    let superseded = server.get("/api/memories?status=superseded").ok();
    assert_eq!(ids(&superseded), [deploys.as_str()]);

    server
        .post(&format!("/api/memories/{wifi}/forget"), &json!({}))
        .ok();
    let message = server
        .post(
            &format!("/api/memories/{wifi}/update"),
            &json!({"content": "The wifi is called harbour."}),
        )
        .assert_error(410, "forgotten");
    assert!(message.contains("cannot be updated"), "{message}");
    server
        .post(
            &format!("/api/memories/{billing}/update"),
            &json!({"content": "Port 9090.", "colour": "red"}),
        )
        .assert_error(400, "bad_request");
    server
        .post(
            &format!("/api/memories/{billing}/update"),
            &json!({"content": "The billing service moved to port 9090.", "by": "model"}),
        )
        .assert_error(403, "denied");
    server
        .post(
            "/api/memories/s:99/update",
            &json!({"content": "Nothing here."}),
        )
        .assert_error(404, "not_found");
}

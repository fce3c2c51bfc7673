//! Views edited behind the engine's back (issue 15, item 4): `views.redb`
//! is derived state, so someone who can write it could change what recall
//! hands a model while the log still verifies. Each test is a reproduction:
//! a memory's words or summary replaced in the views file, then recall must
//! not show them as true, `verify --views` must name what differs, and a
//! rebuild must set everything right.

use std::path::{Path, PathBuf};
use std::process::Output;

use redb::{ReadableTable as _, TableDefinition};
use serde_json::Value;

use crate::support::engram;

const TRUE_TEXT: &str = "The user prefers green tea over coffee in the morning.";
const TRUE_WORDS: &str = "prefers green tea";
const FORGED_WORDS: &str = "prefers black rum";
const TRUE_SUMMARY: &str = "drinks green tea";
const FORGED_SUMMARY: &str = "drinks black rum";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `engram --store store --in-process args`: the store on disk as it is,
/// no daemon left holding it.
fn run(store: &Path, args: &[&str]) -> Output {
    let mut all = vec!["--in-process"];
    all.extend_from_slice(args);
    engram(store, &all)
}

fn ok(store: &Path, args: &[&str]) -> String {
    let out = run(store, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "engram {args:?}\nstdout: {}\nstderr: {}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// A store holding one memory (id 2) with a summary, and a second one so
/// the first has a neighbour.
fn store_with_a_memory(dir: &Path) -> PathBuf {
    let store = dir.join("store");
    ok(
        &store,
        &[
            "remember",
            TRUE_TEXT,
            "--summary",
            TRUE_SUMMARY,
            "--room",
            "habits",
            "--json",
        ],
    );
    ok(
        &store,
        &[
            "remember",
            "Deploys happen on Friday afternoons.",
            "--room",
            "habits",
            "--json",
        ],
    );
    store
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Replaces `from` with `to` (same length) in the persisted snapshot of
/// view `view` in the store's `views.redb`, as someone with write access to
/// the file could.
fn forge(store: &Path, view: &str, from: &str, to: &str) {
    assert_eq!(from.len(), to.len());
    const SNAPSHOTS: TableDefinition<&str, &[u8]> = TableDefinition::new("snapshots");
    let db = redb::Database::create(store.join("views.redb")).unwrap();
    let txn = db.begin_write().unwrap();
    {
        let mut table = txn.open_table(SNAPSHOTS).unwrap();
        let mut bytes = table.get(view).unwrap().unwrap().value().to_vec();
        let at = find(&bytes, from.as_bytes())
            .unwrap_or_else(|| panic!("{from:?} is not in the snapshot of {view}"));
        bytes[at..at + from.len()].copy_from_slice(to.as_bytes());
        table.insert(view, bytes.as_slice()).unwrap();
    }
    txn.commit().unwrap();
}

/// Recall of the memory after the edit: either an error naming the memory
/// and what to run, or hits without the forged words. Never the forgery.
fn assert_recall_refuses_forgery(store: &Path, forged: &str) {
    let out = run(store, &["recall", "green tea coffee", "--json"]);
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert!(
        !stdout.contains(forged),
        "recall handed out the forged words {forged:?}: {stdout}"
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "recall of a forged memory must fail: {stdout} {stderr}"
    );
    assert!(
        stderr.contains("memory 2") && stderr.contains("engram verify --views"),
        "the error names the memory and what to run: {stderr}"
    );
}

fn verify_views(store: &Path) -> (Option<i32>, Value) {
    let out = engram(store, &["verify", "--views", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "verify --views --json: {e}\nstdout: {}\nstderr: {}",
            text(&out.stdout),
            text(&out.stderr)
        )
    });
    (out.status.code(), report)
}

/// The (view, key) pairs `verify --views --json` reports as differing.
fn differences(report: &Value) -> Vec<(String, String)> {
    report["views"]["differences"]
        .as_array()
        .unwrap_or_else(|| panic!("no differences list: {report}"))
        .iter()
        .map(|d| {
            (
                d["view"].as_str().unwrap().to_owned(),
                d["key"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn assert_rebuild_sets_it_right(store: &Path) {
    ok(store, &["rebuild"]);
    let (code, report) = verify_views(store);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["ok"], true, "{report}");
    let hits: Value = serde_json::from_str(&ok(store, &["recall", "green tea", "--json"])).unwrap();
    let hit = &hits["hits"][0];
    assert_eq!(hit["text"], TRUE_TEXT, "{hits}");
    assert_eq!(hit["summary"], TRUE_SUMMARY, "{hits}");
}

#[test]
fn recall_showed_memory_words_forged_in_views_redb() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_a_memory(dir.path());
    forge(&store, "text_index", TRUE_WORDS, FORGED_WORDS);
    assert_recall_refuses_forgery(&store, FORGED_WORDS);
    // expand still proves the real words from the log.
    let expanded = ok(&store, &["expand", "2", "--json"]);
    assert!(expanded.contains(TRUE_TEXT), "{expanded}");
    assert_rebuild_sets_it_right(&store);
}

#[test]
fn recall_showed_a_summary_forged_in_views_redb() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_a_memory(dir.path());
    forge(&store, "memory_table", TRUE_SUMMARY, FORGED_SUMMARY);
    assert_recall_refuses_forgery(&store, FORGED_SUMMARY);
    // The neighbour's cue is the forged memory's label: not the forgery
    // either, but a label that says why.
    let out = ok(&store, &["recall", "Friday deploys", "--json"]);
    assert!(!out.contains(FORGED_SUMMARY), "{out}");
    assert!(out.contains("unverified"), "{out}");
    assert_rebuild_sets_it_right(&store);
}

#[test]
fn verify_said_ok_while_views_redb_held_forged_words() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_a_memory(dir.path());
    let (code, report) = verify_views(&store);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["ok"], true, "{report}");
    assert!(differences(&report).is_empty(), "{report}");

    forge(&store, "text_index", TRUE_WORDS, FORGED_WORDS);
    forge(&store, "memory_table", TRUE_SUMMARY, FORGED_SUMMARY);
    let (code, report) = verify_views(&store);
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(report["ok"], false, "{report}");
    assert_eq!(report["views"]["file"], "read", "{report}");
    // The log itself is sound: only the views differ.
    assert!(report["problem"].is_null(), "{report}");
    let found = differences(&report);
    for view in ["text_index", "memory_table"] {
        assert!(
            found.contains(&(view.to_owned(), "memory 2".to_owned())),
            "{view} memory 2 not reported: {report}"
        );
    }
    // The human report names them too, and plain `verify` stays about the log.
    let out = engram(&store, &["verify", "--views"]);
    assert_eq!(out.status.code(), Some(1));
    let human = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        human.contains("text_index") && human.contains("memory 2"),
        "{human}"
    );
    assert!(human.contains("engram rebuild"), "{human}");
    assert_rebuild_sets_it_right(&store);
}

#[test]
fn verify_views_reads_a_store_its_daemon_holds_open() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_a_memory(dir.path());
    forge(&store, "text_index", TRUE_WORDS, FORGED_WORDS);
    // A client command starts a daemon that keeps the store (and its
    // views.redb) open.
    let out = engram(&store, &["stats", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let status = engram(&store, &["daemon", "status"]);
    assert_eq!(status.status.code(), Some(0), "{}", text(&status.stderr));

    let (code, report) = verify_views(&store);
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(report["views"]["file"], "copied", "{report}");
    assert!(
        differences(&report).contains(&("text_index".to_owned(), "memory 2".to_owned())),
        "{report}"
    );
    // The daemon still answers: verify took nothing from it.
    let out = engram(&store, &["stats", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = engram(&store, &["daemon", "stop"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// A restatement's words kept with the memory it reinforced (shown by
/// recall as `restated`) are checked like the memory's own: edited in the
/// views file, recall refuses them and a rebuild sets them right.
#[test]
fn recall_showed_restatement_words_forged_in_views_redb() {
    const RESTATED: &str =
        "The user prefers green tea over coffee in the morning, with a slice of lemon.";
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_a_memory(dir.path());
    let again: Value =
        serde_json::from_str(&ok(&store, &["remember", RESTATED, "--json"])).unwrap();
    assert_eq!(again["outcome"], "reinforced", "{again}");
    assert_eq!(again["id"], "s:2", "{again}");
    let assert_restated_shown = || {
        let hits: Value =
            serde_json::from_str(&ok(&store, &["recall", "green tea", "--json"])).unwrap();
        assert_eq!(
            hits["hits"][0]["restated"],
            serde_json::json!([RESTATED]),
            "{hits}"
        );
    };
    assert_restated_shown();
    forge(&store, "text_index", "slice of lemon", "slice of bacon");
    assert_recall_refuses_forgery(&store, "slice of bacon");
    assert_rebuild_sets_it_right(&store);
    assert_restated_shown();
}

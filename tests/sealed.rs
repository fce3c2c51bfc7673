//! Sealed stores through the CLI: a new store encrypts its words at rest,
//! reads them back, verifies without any data key, and refuses clearly
//! (changing nothing) when its key store or master key is wrong or gone.

use crate::support::{engram_expecting, engram_json, engram_with};
use std::path::Path;

const WORDS: &str = "The staging database password rotates every Tuesday at noon";

fn files(store: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut dirs = vec![store.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                out.push((path.display().to_string(), bytes));
            }
        }
    }
    out.sort();
    out
}

fn log_bytes(store: &Path) -> Vec<u8> {
    files(&store.join("log"))
        .into_iter()
        .flat_map(|(_, b)| b)
        .collect()
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

fn stop_daemon(store: &Path) {
    engram_expecting(store, &["daemon", "stop"], 0);
}

/// A new store seals its words: the log holds ciphertext, the key store
/// and master key sit beside it, and recall, expand and verify work.
#[test]
fn a_new_store_keeps_its_words_sealed_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let saved = engram_json(&store, &["remember", WORDS, "--json"]);
    let id = saved["id"].as_str().unwrap().to_owned();
    let hits = engram_json(&store, &["recall", "staging database password", "--json"]);
    assert_eq!(hits["hits"][0]["id"], id.as_str(), "{hits}");
    let (expanded, _) = engram_expecting(&store, &["expand", &id], 0);
    assert!(
        expanded.contains(WORDS) && expanded.contains("verified"),
        "{expanded}"
    );
    stop_daemon(&store);
    assert!(store.join("keys.engram").exists() && store.join("master.key").exists());
    let log = log_bytes(&store);
    assert!(
        !contains(&log, "staging database"),
        "the words are in the log"
    );
    assert!(!contains(&log, "Tuesday"), "the words are in the log");
    engram_expecting(&store, &["verify"], 0);
}

/// `ENGRAM_SEAL=0` makes a store in the clear, as stores made before
/// sealing are: no key store, the words readable in the log.
#[test]
fn engram_seal_0_makes_a_store_in_the_clear() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let out = engram_with(&store, &[("ENGRAM_SEAL", "0")], &["remember", WORDS]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    stop_daemon(&store);
    assert!(!store.join("keys.engram").exists());
    assert!(contains(&log_bytes(&store), "staging database"));
    // Opened later without the variable, it stays in the clear.
    engram_expecting(
        &store,
        &["remember", "A second fact about the build cache"],
        0,
    );
    stop_daemon(&store);
    assert!(!store.join("keys.engram").exists());
    assert!(contains(&log_bytes(&store), "build cache"));
}

/// A wrong master key, a missing key store, a damaged one: each refused
/// with an error that says which and what to do, nothing changed, and
/// `verify` of the log still runs.
#[test]
fn a_wrong_missing_or_damaged_key_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    engram_expecting(&store, &["remember", WORDS], 0);
    stop_daemon(&store);
    let before = files(&store);

    let wrong = "11".repeat(32);
    let out = engram_with(
        &store,
        &[("ENGRAM_MASTER_KEY", &wrong)],
        &["recall", "staging"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("ENGRAM_MASTER_KEY"), "{stderr}");
    let _ = engram_with(&store, &[], &["daemon", "stop"]);
    let unchanged = |label: &str| {
        let now = files(&store);
        let changed: Vec<&String> = now
            .iter()
            .filter(|(path, bytes)| {
                before
                    .iter()
                    .find(|(p, _)| p == path)
                    .is_none_or(|(_, was)| was != bytes)
            })
            .map(|(path, _)| path)
            .filter(|p| !p.ends_with(".log") && !p.ends_with(".lock") && !p.ends_with(".sock"))
            .collect();
        assert!(changed.is_empty(), "{label}: changed {changed:?}");
    };
    unchanged("wrong master key");

    let keys = store.join("keys.engram");
    let saved = std::fs::read(&keys).unwrap();
    std::fs::remove_file(&keys).unwrap();
    let (_, stderr) = engram_expecting(&store, &["recall", "staging"], 2);
    assert!(stderr.contains("no key store"), "{stderr}");
    let _ = engram_with(&store, &[], &["daemon", "stop"]);
    engram_expecting(&store, &["verify"], 0);
    assert!(!keys.exists(), "a missing key store was made again");

    let mut damaged = saved.clone();
    damaged[3] ^= 0x40;
    std::fs::write(&keys, &damaged).unwrap();
    let (_, stderr) = engram_expecting(&store, &["expand", "s:2"], 2);
    assert!(stderr.contains("damaged"), "{stderr}");
    let _ = engram_with(&store, &[], &["daemon", "stop"]);
    engram_expecting(&store, &["verify"], 0);
    assert_eq!(
        std::fs::read(&keys).unwrap(),
        damaged,
        "the damaged key store was changed"
    );

    std::fs::write(&keys, &saved).unwrap();
    unchanged("restored");
    let (expanded, _) = engram_expecting(&store, &["expand", "s:2"], 0);
    assert!(expanded.contains(WORDS), "{expanded}");
    stop_daemon(&store);
}

/// A store written in the clear migrates into a sealed one by an export
/// imported into a new store: the memory's seal is checked over the old
/// bytes and made anew over the sealed ones, and it can then be purged.
#[test]
fn a_store_in_the_clear_migrates_into_a_sealed_one_by_export_and_import() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old");
    let out = engram_with(&old, &[("ENGRAM_SEAL", "0")], &["remember", WORDS]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let (export, _) = engram_expecting(&old, &["export"], 0);
    stop_daemon(&old);
    let file = dir.path().join("old.jsonl");
    std::fs::write(&file, export).unwrap();

    let new = dir.path().join("new");
    engram_expecting(&new, &["import", file.to_str().unwrap()], 0);
    let (expanded, _) = engram_expecting(&new, &["expand", "s:2"], 0);
    assert!(
        expanded.contains(WORDS) && expanded.contains("verified"),
        "{expanded}"
    );
    stop_daemon(&new);
    assert!(new.join("keys.engram").exists());
    assert!(!contains(&log_bytes(&new), "staging database"));
    engram_expecting(&new, &["verify"], 0);
    engram_expecting(
        &new,
        &["purge", "s:2", "--reason", "migrated, then erased"],
        0,
    );
    engram_expecting(&new, &["expand", "s:2"], 1);
    // The old store, in the clear, still cannot be purged by key.
    let (_, stderr) = engram_expecting(&old, &["purge", "s:2"], 2);
    assert!(stderr.contains("import store.jsonl"), "{stderr}");
    stop_daemon(&new);
    stop_daemon(&old);
}

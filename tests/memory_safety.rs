//! The memory commands on the command line, for safety: a secret given to
//! any of them never reaches the disk, bad input is a clear error that
//! loses nothing, and the gates (size limits, write trust, scope isolation)
//! refuse with a recorded `gate_denied` event. Run as the real binary
//! against real store folders; every byte under the store is scanned.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::support::{engram, json_lines};

const OPEN: char = '⟦';
const CLOSE: char = '⟧';

/// One positive record of the redaction corpus: its kind, the text without
/// the `⟦⟧` marks, and the secrets they marked.
struct Positive {
    kind: String,
    text: String,
    secrets: Vec<String>,
}

/// Every positive record of `text/tests/redaction/positives.txt`, parsed
/// as `text/tests/redaction.rs` does: `kind<TAB>text`, `#` comments and
/// blank lines skipped, `\n` unescaped, secrets between `⟦` and `⟧`.
fn positives() -> Vec<Positive> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("text/tests/redaction/positives.txt");
    let corpus = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let mut out = Vec::new();
    for (i, line) in corpus.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.replace("\\n", "\n");
        let (kind, marked) = line
            .split_once('\t')
            .unwrap_or_else(|| panic!("positives.txt:{}: no tab", i + 1));
        let mut text = String::new();
        let mut secrets = Vec::new();
        let mut open = None;
        for ch in marked.chars() {
            match ch {
                OPEN => open = Some(text.len()),
                CLOSE => {
                    let start = open.take().expect("⟧ without ⟦");
                    secrets.push(text[start..].to_owned());
                }
                _ => text.push(ch),
            }
        }
        assert!(!secrets.is_empty(), "positives.txt:{}: no secret", i + 1);
        out.push(Positive {
            kind: kind.to_owned(),
            text,
            secrets,
        });
    }
    assert!(
        out.len() >= 50,
        "the corpus shrank to {} records",
        out.len()
    );
    out
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Runs `engram --store store args`, asserting exit status `code`.
fn run(store: &Path, args: &[&str], code: i32) -> Output {
    let out = engram(store, args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "engram {args:?}\nstdout: {}\nstderr: {}",
        stdout(&out),
        stderr(&out)
    );
    out
}

/// Runs `args` expecting exit 0 and one JSON object on stdout.
fn run_json(store: &Path, args: &[&str]) -> Value {
    let out = run(store, args, 0);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("engram {args:?}: {e}: {}", stdout(&out)))
}

/// Runs `args` expecting exit 2 and returns stderr, which must name the
/// problem with engram's prefix.
fn run_error(store: &Path, args: &[&str]) -> String {
    let out = run(store, args, 2);
    let err = stderr(&out);
    assert!(err.starts_with("engram: "), "engram {args:?}: {err}");
    err
}

/// `engram --store store args` with `input` on standard input.
fn engram_stdin(store: &Path, args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_engram"))
        .arg("--store")
        .arg(store)
        .args(args)
        .env_remove("ENGRAM_HMAC_KEY")
        .env_remove("ENGRAM_HOME")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// Every event of the store, from `engram log --json`.
fn log(store: &Path) -> Vec<Value> {
    json_lines(&run(store, &["log", "--json"], 0).stdout)
}

fn kinds(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["kind"].as_str().unwrap()).collect()
}

/// The log is intact: `verify` exits 0, and the log still starts with
/// exactly the events in `before`.
fn assert_nothing_lost(store: &Path, before: &[Value]) -> Vec<Value> {
    let out = engram(store, &["verify"]);
    assert_eq!(out.status.code(), Some(0), "verify: {}", stderr(&out));
    let after = log(store);
    assert!(after.len() >= before.len(), "events were lost");
    assert_eq!(&after[..before.len()], before, "earlier events changed");
    after
}

/// An error that appended nothing: stderr names `what`, the log is unchanged.
fn assert_refused(store: &Path, args: &[&str], what: &[&str]) {
    let before = log(store);
    let err = run_error(store, args);
    for w in what {
        assert!(
            err.contains(w),
            "engram {args:?}: {err:?} should name {w:?}"
        );
    }
    let after = assert_nothing_lost(store, &before);
    assert_eq!(after.len(), before.len(), "engram {args:?} appended events");
}

/// A gate denial: exit 2, stderr names `policy`, exactly one `gate_denied`
/// event appended whose reason names the policy too.
fn assert_denied(store: &Path, args: &[&str], policy: &str, action: &str) -> Value {
    let before = log(store);
    let err = run_error(store, args);
    assert!(err.contains(policy), "engram {args:?}: {err:?}");
    let after = assert_nothing_lost(store, &before);
    assert_eq!(after.len(), before.len() + 1, "one gate_denied event");
    let denied = after.last().unwrap().clone();
    assert_eq!(denied["kind"], "gate_denied", "{denied}");
    assert_eq!(denied["action"], action, "{denied}");
    assert!(
        denied["reason"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{policy}: ")),
        "{denied}"
    );
    denied
}

/// Every file under `dir`, recursively, with its bytes.
fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else if path.is_file() {
            // Not the owner's socket: it holds no bytes.
            let bytes = std::fs::read(&path).unwrap();
            out.push((path, bytes));
        }
    }
    out
}

/// Where `needle` first occurs in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let first = *needle.first()?;
    let last_start = haystack.len().checked_sub(needle.len())?;
    (0..=last_start).find(|&i| haystack[i] == first && haystack[i..i + needle.len()] == *needle)
}

/// Asserts that no secret's bytes occur in any file under `store`; returns
/// the number of files scanned.
fn assert_no_secret_on_disk(store: &Path, secrets: &[String], when: &str) -> usize {
    let files = files_under(store);
    let mut leaks = Vec::new();
    for (path, bytes) in &files {
        for secret in secrets {
            if let Some(at) = find(bytes, secret.as_bytes()) {
                leaks.push(format!("{secret:?} in {} at byte {at}", path.display()));
            }
        }
    }
    assert!(
        leaks.is_empty(),
        "{when}: secrets on disk:\n{}",
        leaks.join("\n")
    );
    files.len()
}

/// A value usable as a tag, room or session name as it stands (no comma,
/// no control character, short enough after redaction).
fn fits_name(text: &str) -> bool {
    !text.contains(',') && !text.chars().any(char::is_control) && text.len() <= 80
}

fn has_marker(value: &Value) -> bool {
    value.as_str().is_some_and(|s| s.contains("[REDACTED:"))
}

#[test]
fn no_secret_from_any_memory_command_reaches_any_file_of_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    let store = store_dir.as_path();
    let corpus = positives();
    let secrets: Vec<String> = corpus.iter().flat_map(|p| p.secrets.clone()).collect();
    let n = corpus.len();

    // Ingest: every record is one user turn of a JSON-lines transcript
    // (outside the store folder: the file itself holds the secrets).
    let transcript = dir.path().join("transcript.jsonl");
    let mut lines = String::new();
    for p in &corpus {
        let line = serde_json::json!({"role": "user", "content": p.text});
        lines.push_str(&line.to_string());
        lines.push('\n');
    }
    std::fs::write(&transcript, lines).unwrap();
    let ingested = run_json(
        store,
        &[
            "ingest",
            transcript.to_str().unwrap(),
            "--session",
            "corpus",
            "--json",
        ],
    );
    assert_eq!(ingested["turns"], n);
    assert!(ingested["redacted"].as_u64().unwrap() >= secrets.len() as u64);
    let (first, last) = (
        ingested["first_seq"].as_u64().unwrap(),
        ingested["last_seq"].as_u64().unwrap(),
    );

    // A reference to the ingested turns, with a secret in its summary.
    let summary = format!("--summary={}", corpus[0].text);
    let reference = run_json(
        store,
        &[
            "remember",
            "--session",
            "corpus",
            "--first-seq",
            &first.to_string(),
            "--last-seq",
            &last.to_string(),
            &summary,
            "--json",
        ],
    );
    assert_eq!(reference["first_seq"], first);

    // Remember every record as plain text, with the next record as its
    // summary and (when it fits) the record as a tag, room and note session.
    let mut ids = Vec::new();
    for (i, p) in corpus.iter().enumerate() {
        let summary = format!("--summary={}", corpus[(i + 1) % n].text);
        let mut args = vec!["remember".to_owned(), summary, "--json".to_owned()];
        if fits_name(&p.text) {
            args.push(format!("--tags=corpus,{}", p.text));
            args.push(format!("--room={}", p.text));
            args.push(format!("--session={}", p.text));
        }
        args.push("--".to_owned());
        args.push(p.text.clone());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let saved = run_json(store, &args);
        // A record restating an earlier one reinforces it (no new memory);
        // a discarded one has no id. Both still went through redaction.
        let outcome = saved["outcome"].as_str().unwrap().to_owned();
        if let Some(id) = saved["id"].as_str().map(str::to_owned) {
            ids.push((id, outcome));
        }
    }
    let own_words = ids
        .iter()
        .filter(|(_, o)| o == "new" || o == "contradiction")
        .count();
    assert!(
        own_words * 2 > n,
        "most records are memories of their own: {ids:?}"
    );

    // Recall with every record as the query (queries are logged), then
    // confirm every memory quoting its own words (quotes are logged), then
    // forget it with another record as the reason (reasons are logged).
    for p in &corpus {
        let out = engram(store, &["recall", "--json", "--", &p.text]);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "recall {:?}: {}",
            p.text,
            stderr(&out)
        );
    }
    for (p, (id, outcome)) in corpus.iter().zip(&ids) {
        let out = engram(
            store,
            &["confirm", "--json", "--", &id.to_string(), &p.text],
        );
        let confirmed: Value = serde_json::from_slice(&out.stdout).unwrap();
        // The quote is redacted as the words were, so the original words
        // still confirm a memory of their own.
        if outcome != "reinforced" {
            assert_eq!(confirmed["valid"], true, "confirm {id} {:?}", p.text);
        }
    }
    for (i, (id, _)) in ids.iter().enumerate() {
        let reason = format!("--reason={}", corpus[(i + 3) % n].text);
        run_json(store, &["forget", &id.to_string(), &reason, "--json"]);
    }

    // Every process has exited: the store is closed. Scan every byte.
    let n_files = assert_no_secret_on_disk(store, &secrets, "after the commands");
    assert!(n_files >= 3, "log segment, views.redb and hmac.key");

    // The words were recorded, redacted: markers of every kind are in the
    // log's events (sealed on disk, so read through the log).
    let events = log(store);
    let logged = serde_json::to_string(&events).unwrap();
    for p in &corpus {
        let marker = format!("[REDACTED:{}]", p.kind);
        assert!(logged.contains(&marker), "no {marker} in the log");
    }
    // ... and through every field that takes text.
    let count = |kind: &str, field: &str| {
        events
            .iter()
            .filter(|e| e["kind"] == kind)
            .filter(|e| match &e[field] {
                Value::Array(items) => items.iter().any(has_marker),
                value => has_marker(value),
            })
            .count()
    };
    let note_sessions = events
        .iter()
        .filter(|e| e["kind"] == "session" && e["role"] == "note" && has_marker(&e["session"]))
        .count();
    let n_names = corpus.iter().filter(|p| fits_name(&p.text)).count();
    assert!(n_names >= 10, "{n_names} records fit as names");
    // Saves that reinforced an earlier memory record their words (a note)
    // but no new `remembered` event; discarded ones record neither.
    let not_new = n - own_words;
    let discarded = n - ids.len();
    // A memory reinforced twice is forgotten once.
    let distinct_ids = ids
        .iter()
        .map(|(id, _)| id.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    for (kind, field, at_least) in [
        ("session", "content", 2 * n - discarded),
        ("remembered", "summary", own_words + 1),
        ("remembered", "tags", n_names.saturating_sub(not_new)),
        ("remembered", "room", n_names.saturating_sub(not_new)),
        ("recalled", "query", n),
        ("evidence_confirmed", "quote", ids.len()),
        ("forgotten", "reason", distinct_ids),
    ] {
        let found = count(kind, field);
        assert!(
            found >= at_least,
            "{found} {kind} events carry a redacted {field}, expected {at_least}"
        );
    }
    assert!(
        note_sessions + discarded >= n_names,
        "{note_sessions} redacted note sessions"
    );

    // Views rebuilt from the log hold no secret either.
    run(store, &["rebuild"], 0);
    assert_no_secret_on_disk(store, &secrets, "after rebuild");
    run(store, &["verify"], 0);
}

/// Filters and the caller's session are caller-supplied text too: recall
/// logs its filters in `Recalled`, and a denial logs who asked (`user in
/// session ...`) in `GateDenied`.
#[test]
fn secrets_in_recall_filters_and_caller_sessions_never_reach_the_disk() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    let room = "glpat-x9Y8z7W6v5U4t3S2r1Q0";
    let tag = "oncall@shop.example";
    let session = "sk_test_4eC39HqLyjWDarjtT1zdp7dc";
    let caller = "xoxb-2048-40962048-q8W3e5R7t9Y1u3I5o7P9";
    let id = run_json(
        store,
        &[
            "remember",
            "green tea in the morning",
            "--session",
            "s1",
            "--session-only",
            "--json",
        ],
    )["id"]
        .as_str()
        .unwrap()
        .to_owned();

    let tags = format!("--tags={tag}");
    let out = engram(
        store,
        &[
            "recall",
            "green tea",
            "--room",
            room,
            &tags,
            "--session",
            session,
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_denied(
        store,
        &["expand", &id, "--session", caller],
        "scope_isolation",
        "expand",
    );
    assert_denied(
        store,
        &["forget", &id, "--session", caller],
        "scope_isolation",
        "forget",
    );
    assert_denied(
        store,
        &["confirm", &id, "green tea", "--session", caller],
        "scope_isolation",
        "confirm",
    );
    let kinds_logged = kinds(&log(store)).join(" ");
    assert_eq!(
        kinds_logged,
        "session remembered corridor_placed recalled gate_denied gate_denied gate_denied"
    );
    let secrets = [room, tag, session, caller].map(str::to_owned);
    assert_no_secret_on_disk(store, &secrets, "after recall and denials");
}

#[test]
fn bad_input_is_a_clear_error_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    let fact = run_json(
        store,
        &["remember", "the build uses cargo nextest", "--json"],
    );
    let fact_id = fact["id"].as_str().unwrap().to_owned();
    let transcript = dir.path().join("a.jsonl");
    std::fs::write(
        &transcript,
        "{\"role\":\"user\",\"content\":\"deploy on fridays\"}\n\
         {\"role\":\"assistant\",\"content\":\"noted: fridays\"}\n",
    )
    .unwrap();
    let path = transcript.to_str().unwrap();
    let a = run_json(store, &["ingest", path, "--session", "a", "--json"]);
    let b = run_json(store, &["ingest", path, "--session", "b", "--json"]);
    let (a_first, a_last) = (
        a["first_seq"].as_u64().unwrap(),
        a["last_seq"].as_u64().unwrap(),
    );
    let (b_first, b_last) = (
        b["first_seq"].as_u64().unwrap(),
        b["last_seq"].as_u64().unwrap(),
    );
    assert_eq!(
        (a_first + 1, a_last + 1),
        (a_last, b_first),
        "adjacent sessions"
    );
    let base = log(store);
    let end = base.len() as u64;

    // Empty content.
    assert_refused(store, &["remember", ""], &["content is empty"]);
    assert_refused(store, &["remember", "   \n\t "], &["content is empty"]);
    assert_refused(
        store,
        &["remember", "x", "--summary", " "],
        &["summary is empty"],
    );
    assert_refused(store, &["recall", ""], &["query is empty"]);
    assert_refused(store, &["recall", "  "], &["query is empty"]);

    // Invalid UTF-8 on standard input.
    let before = log(store);
    let out = engram_stdin(store, &["remember", "-"], b"caf\xe9 au lait \xff\xfe");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not UTF-8"), "{}", stderr(&out));
    assert_eq!(assert_nothing_lost(store, &before).len(), before.len());
    // ... while valid UTF-8 on standard input is remembered.
    let out = engram_stdin(
        store,
        &["remember", "-", "--json"],
        "café au lait".as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // Huge content: the size gate denies it, and records the denial.
    let limit = 64 * 1024;
    let huge = "a".repeat(limit + 1);
    let denied = {
        let before = log(store);
        let out = engram_stdin(store, &["remember", "-"], huge.as_bytes());
        assert_eq!(out.status.code(), Some(2));
        let err = stderr(&out);
        assert!(err.contains("size_limits"), "{err}");
        assert!(err.contains(&(limit + 1).to_string()), "{err}");
        assert!(err.contains(&limit.to_string()), "{err}");
        let after = assert_nothing_lost(store, &before);
        assert_eq!(kinds(&after[before.len()..]), ["gate_denied"]);
        after.last().unwrap().clone()
    };
    assert_eq!(denied["action"], "remember");
    assert!(
        denied["reason"]
            .as_str()
            .unwrap()
            .starts_with("size_limits: ")
    );
    // Exactly at the limit is allowed.
    let out = engram_stdin(
        store,
        &["remember", "-", "--json"],
        &huge.as_bytes()[..limit],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // References to turns that are not one session's.
    let seq = |n: u64| n.to_string();
    let reference = |session: &str, first: u64, last: u64| {
        vec![
            "remember".to_owned(),
            "--session".to_owned(),
            session.to_owned(),
            "--first-seq".to_owned(),
            seq(first),
            "--last-seq".to_owned(),
            seq(last),
        ]
    };
    let refuse_reference = |session: &str, first: u64, last: u64, what: &[&str]| {
        let args = reference(session, first, last);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_refused(store, &args, what);
    };
    let past = end + 1000;
    refuse_reference("s", past, past + 10, &["past the end"]);
    refuse_reference("a", a_first, b_first, &["belongs to session \"b\""]);
    refuse_reference("a", b_first, b_last, &["belongs to session \"b\""]);
    refuse_reference("notes", 1, 2, &["remembered event, not a session turn"]);
    refuse_reference("a", 0, a_last, &["seq"]);
    refuse_reference("a", a_last, a_first, &["seqs"]);
    // ... while the same session's turns are remembered.
    let args = reference("a", a_first, a_last);
    let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
    args.push("--json");
    let turns = run_json(store, &args);
    assert_eq!(turns["session"], "a");

    // Unknown memory ids, including one that is a seq but not a memory.
    let not_a_memory = seq(a_first);
    for id in ["999999", not_a_memory.as_str()] {
        let unknown = ["no memory with id", id];
        assert_refused(store, &["expand", id], &unknown);
        assert_refused(store, &["forget", id], &unknown);
        assert_refused(store, &["confirm", id, "tea"], &unknown);
    }

    // A forgotten memory expands only in audit mode.
    run(store, &["forget", &fact_id, "--reason", "outdated"], 0);
    assert_refused(store, &["expand", &fact_id], &["forgotten", "audit mode"]);
    let expanded = run_json(store, &["expand", &fact_id, "--audit", "--json"]);
    assert_eq!(expanded["status"], "forgotten");
    assert_eq!(
        expanded["events"][0]["content"],
        "the build uses cargo nextest"
    );
    assert_eq!(log(store).last().unwrap()["kind"], "expanded");
    assert_refused(store, &["confirm", &fact_id, "cargo"], &["forgotten"]);

    // Everything before the bad input is still there and verifies.
    assert_nothing_lost(store, &base);
}

#[test]
fn a_model_cannot_forget_what_the_user_said() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    let user = run_json(store, &["remember", "I prefer rust over go", "--json"])["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let model = run_json(
        store,
        &[
            "remember",
            "the user seems to like rust",
            "--by",
            "model",
            "--json",
        ],
    )["id"]
        .as_str()
        .unwrap()
        .to_owned();

    let denied = assert_denied(
        store,
        &["forget", &user, "--by", "model", "--reason", "cleanup"],
        "write_trust",
        "forget",
    );
    assert_eq!(denied["subject"], "model");
    // The log's own events name a memory by its seq in the store.
    assert_eq!(
        denied["object"],
        format!("memory {}", user.trim_start_matches("s:"))
    );

    // The user's memory is still recalled, live; no tombstone was written.
    let hits = run_json(store, &["recall", "prefer rust", "--json"]);
    assert!(
        hits["hits"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["id"] == user.as_str() && h["text"] == "I prefer rust over go"),
        "{hits}"
    );
    assert!(!kinds(&log(store)).contains(&"forgotten"));

    // A model may forget its own memory; the user may forget anything.
    run_json(store, &["forget", &model, "--by", "model", "--json"]);
    run_json(store, &["forget", &user, "--json"]);
    let stats = run_json(store, &["stats", "--json"]);
    assert_eq!(stats["memories_by_status"]["forgotten"], 2, "{stats}");
}

#[test]
fn a_session_only_memory_stays_in_its_session() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    let everyone = run_json(store, &["remember", "the office plan is shared", "--json"])["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let private = run_json(
        store,
        &[
            "remember",
            "the secret plan is a surprise party",
            "--session",
            "s1",
            "--session-only",
            "--json",
        ],
    )["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let recall_ids = |args: &[&str], code: i32| -> Vec<String> {
        let out = run(store, args, code);
        let hits: Value = serde_json::from_slice(&out.stdout).unwrap();
        hits["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["id"].as_str().unwrap().to_owned())
            .collect()
    };

    // Recall outside the session, or from another, never finds it.
    assert_eq!(
        recall_ids(&["recall", "plan", "--json"], 0),
        std::slice::from_ref(&everyone)
    );
    assert_eq!(
        recall_ids(&["recall", "surprise party", "--json"], 1),
        Vec::<String>::new()
    );
    assert_eq!(
        recall_ids(
            &["recall", "surprise party", "--session", "s2", "--json"],
            1
        ),
        Vec::<String>::new()
    );
    // Its own session finds it.
    let mut found = recall_ids(&["recall", "plan", "--session", "s1", "--json"], 0);
    found.sort();
    let mut both = vec![everyone.clone(), private.clone()];
    both.sort();
    assert_eq!(found, both);

    // Expand, confirm and forget from outside the session are denied and recorded.
    for (args, action) in [
        (vec!["expand", &private], "expand"),
        (vec!["expand", &private, "--session", "s2"], "expand"),
        (vec!["confirm", &private, "surprise"], "confirm"),
        (vec!["forget", &private], "forget"),
    ] {
        let denied = assert_denied(store, &args, "scope_isolation", action);
        assert_eq!(
            denied["object"],
            format!("memory {}", private.trim_start_matches("s:"))
        );
    }
    // From inside the session it works.
    let expanded = run_json(store, &["expand", &private, "--session", "s1", "--json"]);
    assert_eq!(
        expanded["events"][0]["content"],
        "the secret plan is a surprise party"
    );
    assert_eq!(expanded["verified"], true);
    assert_eq!(log(store).last().unwrap()["kind"], "expanded");
    let confirmed = run_json(
        store,
        &[
            "confirm",
            &private,
            "surprise party",
            "--session",
            "s1",
            "--json",
        ],
    );
    assert_eq!(confirmed["valid"], true);
}

#[test]
fn a_model_cannot_overrule_grade_away_archive_or_oversize_through_the_flywheel() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    let user = run_json(
        store,
        &[
            "remember",
            "The staging server runs Postgres 15 on host db2.",
            "--json",
        ],
    )["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let saved = run_json(
        store,
        &[
            "remember",
            "The staging server runs Postgres 16 on host db2.",
            "--by",
            "model",
            "--json",
        ],
    );
    assert_eq!(saved["outcome"], "contradiction", "{saved}");
    let model = saved["id"].as_str().unwrap().to_owned();
    let recalled = |store: &Path| -> Vec<String> {
        run_json(store, &["recall", "staging postgres", "--json"])["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(recalled(store).contains(&user));

    // A verdict keeping the model's memory overrules the user's: denied,
    // the contradiction stays open and the user's memory in recall.
    let denied = assert_denied(
        store,
        &["verdict", &model, &user, "keep-a", "--by", "model"],
        "write_trust",
        "verdict",
    );
    assert_eq!(denied["subject"], "model");
    // The log names memories by their seqs in the store.
    let seq = |id: &str| id.trim_start_matches("s:").to_owned();
    assert_eq!(
        denied["object"],
        format!("memories {} and {} (keep-a)", seq(&model), seq(&user))
    );
    assert_denied(
        store,
        &["verdict", &user, &model, "keep-b", "--by", "model"],
        "write_trust",
        "verdict",
    );
    assert_denied(
        store,
        &["verdict", &user, &model, "shelve", "--by", "model"],
        "write_trust",
        "verdict",
    );
    let open = run_json(store, &["verdicts", "--json"]);
    assert_eq!(open["open"].as_array().unwrap().len(), 1, "{open}");
    assert!(recalled(store).contains(&user));

    // The user's memory stands at trust 620 (700, less 80 for the
    // contradiction): a model's failing grade would lower it further below
    // the decay line.
    assert_denied(
        store,
        &["grade", &user, "0", "--by", "model"],
        "write_trust",
        "grade",
    );
    assert!(!kinds(&log(store)).contains(&"graded"));
    // A passing grade lowers nothing; the model grades its own memories.
    run_json(store, &["grade", &user, "4", "--by", "model", "--json"]);
    run_json(store, &["grade", &model, "0", "--by", "model", "--json"]);

    // Forty days on, both memories are idle and unimportant: the user's
    // maintenance would archive both; a model's archives nothing.
    let plan = run_json(store, &["maintain", "--at", "+40d", "--dry-run", "--json"]);
    let planned: Vec<String> = plan["archived"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_owned())
        .collect();
    assert!(planned.contains(&user), "{plan}");
    let denied = assert_denied(
        store,
        &["maintain", "--at", "+40d", "--by", "model"],
        "write_trust",
        "archive",
    );
    assert_eq!(denied["object"], format!("memory {}", seq(&user)));
    assert!(!kinds(&log(store)).contains(&"archived"));
    let stats = run_json(store, &["stats", "--json"]);
    assert_eq!(stats["memories_by_status"]["archived"], 0, "{stats}");

    // A distilled rule is held to the size limit of any memory.
    let rule = "always ".repeat(10_000);
    assert_denied(
        store,
        &[
            "distill",
            "apply",
            "--members",
            &format!("{user},{model}"),
            "--rule",
            &rule,
        ],
        "size_limits",
        "distill",
    );
    assert!(!log(store).iter().any(|e| e["kind"] == "distilled"));

    // The user decides, grades and maintains as before.
    run_json(store, &["verdict", &model, &user, "keep-a", "--json"]);
    assert!(!recalled(store).contains(&user));
    run_json(store, &["grade", &model, "0", "--json"]);
}

/// A sparse file of `len` zero bytes: an input past a limit that costs no
/// disk (what `/dev/zero` gives, cut at a size).
fn zeros(dir: &Path, name: &str, len: usize) -> PathBuf {
    let path = dir.join(name);
    std::fs::File::create(&path)
        .unwrap()
        .set_len(len as u64)
        .unwrap();
    path
}

/// `remember - </dev/zero` and `remember --items /dev/zero` grew until the
/// kernel killed the process (24 GB): input is read up to a named limit and
/// refused one byte past it (exit 2), before any store is opened.
#[test]
fn remember_of_endless_input_grew_until_killed() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let text = zeros(dir.path(), "text", engram::api::TEXT_INPUT_BYTES_MAX + 1);
    let out = Command::new(env!("CARGO_BIN_EXE_engram"))
        .arg("--store")
        .arg(&store)
        .args(["remember", "-"])
        .env_remove("ENGRAM_HMAC_KEY")
        .env_remove("ENGRAM_HOME")
        .stdin(std::fs::File::open(&text).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("TEXT_INPUT_BYTES_MAX"),
        "{}",
        stderr(&out)
    );
    assert!(!store.exists(), "a refused input opened the store");

    let batch = zeros(dir.path(), "batch", engram::api::BATCH_INPUT_BYTES_MAX + 1);
    for args in [
        vec!["remember", "--items", batch.to_str().unwrap()],
        vec!["remember", "--items", "-"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_engram"))
            .arg("--store")
            .arg(&store)
            .args(&args)
            .env_remove("ENGRAM_HMAC_KEY")
            .env_remove("ENGRAM_HOME")
            .stdin(std::fs::File::open(&batch).unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("BATCH_INPUT_BYTES_MAX"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(
            !store.exists(),
            "{args:?}: a refused input opened the store"
        );
    }
}

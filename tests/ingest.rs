//! `engram ingest`: transcripts become redacted session events. A secret
//! must never reach the disk: every byte under the store folder is scanned.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{engram, json_lines};

fn transcript(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/transcripts")
        .join(name)
}

/// Every byte of every file under `dir`.
fn all_bytes(dir: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(all_bytes(&path));
        } else if path.is_file() {
            // Not the owner's socket: it holds no bytes.
            out.extend(std::fs::read(&path).unwrap());
        }
    }
    out
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

/// The session turns the log holds (not the memories extraction made of them).
fn log_lines(store: &Path) -> Vec<Value> {
    let out = engram(store, &["log", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    json_lines(&out.stdout)
        .into_iter()
        .filter(|l| l["kind"] == "session")
        .collect()
}

#[test]
fn a_claude_code_session_is_ingested_and_its_token_never_reaches_the_disk() {
    let dir = tempfile::tempdir().unwrap();
    let file = transcript("claude-code-transcript.jsonl");
    let secret = "ghp_R3nq8ZkLw2VbXc9TyHs4MdJf6PaQe1UoNiGt";
    assert!(
        contains(&std::fs::read(&file).unwrap(), secret),
        "the fixture holds the secret"
    );

    let out = engram(dir.path(), &["ingest", file.to_str().unwrap(), "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["session"], "7f3c2a9e-5b1d-4c8e-a0f2-9d8e7c6b5a41");
    assert_eq!(report["first_seq"], 1);
    assert_eq!(report["last_seq"], 5);
    assert_eq!(report["turns"], 5);
    assert_eq!(report["redacted"], 1);

    let lines = log_lines(dir.path());
    let roles: Vec<&str> = lines.iter().map(|l| l["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant", "user"]);
    assert!(
        lines[4]["content"]
            .as_str()
            .unwrap()
            .contains("[REDACTED:github_token]")
    );
    assert!(
        !lines[3]["content"]
            .as_str()
            .unwrap()
            .contains("races the coupon form"),
        "thinking is left out"
    );

    assert!(
        !contains(&all_bytes(dir.path()), secret),
        "the token reached the disk"
    );
}

#[test]
fn personal_data_is_redacted_and_the_session_can_be_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = transcript("generic-transcript.jsonl");
    let out = engram(
        dir.path(),
        &["ingest", file.to_str().unwrap(), "--session", "shop-1"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("session shop-1 (0 already held): seqs 1 to 8"),
        "{text}"
    );

    let lines = log_lines(dir.path());
    assert_eq!(lines.len(), 8);
    assert!(lines.iter().all(|l| l["session"] == "shop-1"));
    assert!(lines[3]["content"].as_str().unwrap().contains("数据分析"));
    let store = all_bytes(dir.path());
    for personal in ["+86 138 0013 8000", "oncall@shop.example"] {
        assert!(!contains(&store, personal), "{personal} reached the disk");
    }

    // The same file without --session gets the same derived id every time.
    let again = tempfile::tempdir().unwrap();
    let a = engram(again.path(), &["ingest", file.to_str().unwrap(), "--json"]);
    let b = engram(again.path(), &["ingest", file.to_str().unwrap(), "--json"]);
    let (a, b): (Value, Value) = (
        serde_json::from_slice(&a.stdout).unwrap(),
        serde_json::from_slice(&b.stdout).unwrap(),
    );
    assert_eq!(a["session"], b["session"]);
    // ... so the second ingest finds the turns held and adds nothing.
    assert_eq!(b["new_turns"], 0);
    assert_eq!(b["first_seq"], a["first_seq"]);
}

#[test]
fn a_bad_transcript_is_refused_whole_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"role\":\"user\",\"content\":\"fine\"}\n{\"role\":\"user\",\"content\":\n",
    )
    .unwrap();
    let store = dir.path().join("store");
    let out = engram(&store, &["ingest", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let message = String::from_utf8(out.stderr).unwrap();
    assert!(message.contains("line 2"), "{message}");
    assert!(
        !store.exists(),
        "nothing may be written for a refused transcript"
    );

    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "\n").unwrap();
    let out = engram(&store, &["ingest", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("no turns"));

    let out = engram(
        &store,
        &["ingest", dir.path().join("missing.jsonl").to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn skip_bad_lines_ingests_the_good_lines_and_reports_each_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mixed.jsonl");
    std::fs::write(
        &file,
        "{\"role\":\"user\",\"content\":\"first good\"}\n\
         not json\n\
         {\"role\":\"wizard\",\"content\":\"x\"}\n\
         {\"role\":\"assistant\",\"content\":\"second good\"}\n",
    )
    .unwrap();
    let store = dir.path().join("store");
    let args = [
        "ingest",
        file.to_str().unwrap(),
        "--session",
        "mixed",
        "--skip-bad-lines",
        "--json",
    ];
    let out = engram(&store, &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = &crate::support::json_lines(&out.stdout)[0];
    assert_eq!(report["turns"], 2);
    let lines: Vec<u64> = report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [2, 3]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("line 2") && stderr.contains("line 3"),
        "{stderr}"
    );
    let contents: Vec<String> = log_lines(&store)
        .iter()
        .map(|l| l["content"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(contents, ["first good", "second good"]);

    // Ingesting the same lines again skips the bad ones the same way and
    // finds the good ones held: nothing is added.
    let out = engram(&store, &args);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(crate::support::json_lines(&out.stdout)[0]["new_turns"], 0);
    let turns: Vec<u64> = log_lines(&store)
        .iter()
        .map(|l| l["turn"].as_u64().unwrap())
        .collect();
    assert_eq!(turns, [0, 1]);
}

#[test]
fn extraction_proposes_memories_that_reference_their_turn_and_reinforce_on_repeat() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let file = transcript("generic-transcript.jsonl");
    let args = ["ingest", file.to_str().unwrap(), "--extract", "--json"];
    let out = engram(&store, &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = &crate::support::json_lines(&out.stdout)[0];
    let extracted = report["extracted"].as_array().unwrap();
    let sentences: Vec<&str> = extracted
        .iter()
        .map(|e| e["sentence"].as_str().unwrap())
        .collect();
    assert!(
        sentences.contains(&"我们决定数据分析统一用 Python 3.12 和 polars，不再用 pandas。"),
        "{sentences:?}"
    );
    // Each is new but the correction, which supersedes the fact it corrects.
    for e in extracted {
        let (outcome, superseded) = if e["kind"] == "correction" {
            ("contradiction", true)
        } else {
            ("new", false)
        };
        assert_eq!(e["outcome"], outcome, "{extracted:?}");
        assert_eq!(e["superseded"].is_string(), superseded, "{extracted:?}");
    }
    // Each proposal is a memory whose source is exactly its turn.
    for e in extracted {
        let id = e["id"].as_str().unwrap().to_owned();
        let out = engram(&store, &["expand", &id, "--json"]);
        let expanded = &crate::support::json_lines(&out.stdout)[0];
        assert_eq!(expanded["verified"], true);
        assert_eq!(expanded["events"][0]["seq"], e["seq"]);
        assert_eq!(expanded["events"].as_array().unwrap().len(), 1);
    }
    // The same transcript again adds nothing: no turn, no proposal.
    let out = engram(&store, &args);
    let again = &crate::support::json_lines(&out.stdout)[0];
    assert_eq!(again["new_turns"], 0, "{again}");
    assert_eq!(again["held_turns"], report["turns"], "{again}");
    assert_eq!(again["extracted"], serde_json::json!([]), "{again}");
    // The same words in another session: every proposal restates a memory.
    let out = engram(&store, &[&args[..], &["--session", "retold"]].concat());
    let again = &crate::support::json_lines(&out.stdout)[0]["extracted"];
    assert_eq!(again.as_array().unwrap().len(), extracted.len());
    assert!(
        again
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["outcome"] == "reinforced"),
        "{again}"
    );
    // And they are recalled by what they say.
    let out = engram(&store, &["recall", "数据分析用什么", "--json"]);
    let hits = &crate::support::json_lines(&out.stdout)[0]["hits"];
    assert!(
        hits[0]["text"].as_str().unwrap().contains("polars"),
        "{hits}"
    );
}

/// `engram ingest /dev/zero` grew to 24 GB until the kernel killed it: the
/// transcript is read line by line, and a line past
/// `TRANSCRIPT_LINE_BYTES_MAX` is refused at once (exit 2), nothing written.
#[test]
fn ingest_of_dev_zero_grew_until_killed() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    // /dev/zero where it exists; else a file of zeros one byte past the limit.
    let zeros = if Path::new("/dev/zero").exists() {
        PathBuf::from("/dev/zero")
    } else {
        let path = dir.path().join("zeros");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(engram_commands::ingest::TRANSCRIPT_LINE_BYTES_MAX as u64 + 1)
            .unwrap();
        path
    };
    let out = engram(
        &store,
        &["ingest", zeros.to_str().unwrap(), "--skip-bad-lines"],
    );
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(message.contains("TRANSCRIPT_LINE_BYTES_MAX"), "{message}");
    assert!(
        !store.exists(),
        "nothing may be written for a refused transcript"
    );
}

/// `ingest --session <token>` printed the session id as given while the
/// store held it redacted: the report (human and JSON) names the session
/// the log holds.
#[test]
fn ingest_printed_the_session_id_unredacted() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.jsonl");
    std::fs::write(
        &file,
        "{\"role\":\"user\",\"content\":\"the build is green\"}\n",
    )
    .unwrap();
    let secret = "ghp_R3nq8ZkLw2VbXc9TyHs4MdJf6PaQe1UoNiGt";
    let store = dir.path().join("store");
    let args = ["ingest", file.to_str().unwrap(), "--session", secret];
    let human = engram(&store, &args);
    assert_eq!(human.status.code(), Some(0));
    let human = String::from_utf8(human.stdout).unwrap();
    assert!(!human.contains(secret), "{human}");
    let json = engram(&store, &[&args[..], &["--json"]].concat());
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    let logged = log_lines(&store);
    let held = logged.last().unwrap()["session"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(!held.contains(secret), "{held}");
    assert_eq!(report["session"], held.as_str());
    assert!(human.contains(&format!("into session {held} (")), "{human}");
    assert!(!contains(&all_bytes(&store), secret));
}

/// Ingesting the same file again appended all of its turns again, so a
/// session-end hook that runs at every stop would multiply the session.
#[test]
fn ingesting_a_transcript_twice_appended_its_turns_twice() {
    let dir = tempfile::tempdir().unwrap();
    let file = transcript("claude-code-transcript.jsonl");
    let args = ["ingest", file.to_str().unwrap(), "--json"];
    let first = engram(dir.path(), &args);
    assert_eq!(first.status.code(), Some(0));
    let first = &json_lines(&first.stdout)[0];
    let logged = log_lines(dir.path()).len();
    assert!(first["new_turns"].as_u64().unwrap() > 0, "{first}");

    let again = engram(dir.path(), &args);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let again = &json_lines(&again.stdout)[0];
    assert_eq!(again["new_turns"], 0, "{again}");
    assert_eq!(again["held_turns"], first["turns"], "{again}");
    // The answer still names where the transcript's turns lie.
    assert_eq!(again["first_seq"], first["first_seq"]);
    assert_eq!(again["last_seq"], first["last_seq"]);
    assert_eq!(log_lines(dir.path()).len(), logged, "nothing was appended");
}

/// A transcript that grew (a session going on between two hook runs) adds
/// only its new turns, numbered after the ones held.
#[test]
fn a_transcript_that_grew_adds_only_its_new_turns() {
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::read_to_string(transcript("generic-transcript.jsonl")).unwrap();
    let lines: Vec<&str> = full.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(lines.len() >= 4, "the fixture has turns to split");
    let part = dir.path().join("part.jsonl");
    std::fs::write(&part, lines[..3].join("\n")).unwrap();
    let whole = dir.path().join("whole.jsonl");
    std::fs::write(&whole, lines.join("\n")).unwrap();
    let store = dir.path().join("store");

    for (file, new) in [(&part, 3), (&whole, lines.len() - 3), (&whole, 0)] {
        let out = engram(
            &store,
            &[
                "ingest",
                file.to_str().unwrap(),
                "--session",
                "grows",
                "--json",
            ],
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(json_lines(&out.stdout)[0]["new_turns"], new);
    }
    let logged = log_lines(&store);
    assert_eq!(logged.len(), lines.len(), "each turn once");
    let turns: Vec<u64> = logged.iter().map(|l| l["turn"].as_u64().unwrap()).collect();
    assert_eq!(turns, (0..lines.len() as u64).collect::<Vec<_>>());
}

/// A session that holds another conversation is not continued by a
/// transcript that differs from it: refused (exit 2), nothing appended.
#[test]
fn a_session_holding_another_conversation_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let generic = transcript("generic-transcript.jsonl");
    let claude = transcript("claude-code-transcript.jsonl");
    let first = engram(
        dir.path(),
        &["ingest", generic.to_str().unwrap(), "--session", "taken"],
    );
    assert_eq!(first.status.code(), Some(0));
    let logged = log_lines(dir.path()).len();
    let out = engram(
        dir.path(),
        &["ingest", claude.to_str().unwrap(), "--session", "taken"],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("holds another conversation"), "{stderr}");
    assert_eq!(log_lines(dir.path()).len(), logged);
}

/// Four processes ingesting one transcript at once (a Stop and a
/// SessionEnd hook, say) record each turn once.
#[test]
fn simultaneous_ingests_of_one_transcript_record_each_turn_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = transcript("claude-code-transcript.jsonl");
    let outputs: Vec<std::process::Output> = std::thread::scope(|scope| {
        let runs: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| engram(dir.path(), &["ingest", file.to_str().unwrap(), "--json"]))
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let mut new = 0;
    for out in &outputs {
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report = &json_lines(&out.stdout)[0];
        new += report["new_turns"].as_u64().unwrap();
        assert_eq!(report["turns"], json_lines(&outputs[0].stdout)[0]["turns"]);
    }
    let turns = json_lines(&outputs[0].stdout)[0]["turns"].as_u64().unwrap();
    assert_eq!(new, turns, "each turn recorded by exactly one of them");
    assert_eq!(log_lines(dir.path()).len() as u64, turns);
}

/// "please remember the deploy window is Tuesday" and, later, "Actually
/// ... moved to Wednesday" were not extracted: ingest (extracting by
/// default) now saves the fact, and the correction supersedes it, so recall
/// answers Wednesday and no longer Tuesday.
#[test]
fn a_correction_in_a_later_session_supersedes_the_fact_it_corrects() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let first = dir.path().join("monday.jsonl");
    std::fs::write(
        &first,
        concat!(
            r#"{"role":"user","content":"Please remember the deploy window is Tuesday between 2 and 4pm."}"#,
            "\n",
            r#"{"role":"assistant","content":"Noted."}"#,
            "\n",
        ),
    )
    .unwrap();
    let later = dir.path().join("friday.jsonl");
    std::fs::write(
        &later,
        concat!(
            r#"{"role":"user","content":"Can you check the release notes?"}"#,
            "\n",
            r#"{"role":"user","content":"Actually the deploy window moved to Wednesday."}"#,
            "\n",
        ),
    )
    .unwrap();
    let ingest = |file: &Path| {
        let out = engram(&store, &["ingest", file.to_str().unwrap(), "--json"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        crate::support::json_lines(&out.stdout)[0]["extracted"].clone()
    };
    let fact = ingest(&first);
    assert_eq!(fact[0]["kind"], "fact", "{fact}");
    assert_eq!(fact[0]["outcome"], "new", "{fact}");
    let correction = ingest(&later);
    assert_eq!(correction.as_array().unwrap().len(), 1, "{correction}");
    assert_eq!(correction[0]["kind"], "correction", "{correction}");
    assert_eq!(correction[0]["outcome"], "contradiction", "{correction}");
    assert_eq!(correction[0]["superseded"], fact[0]["id"], "{correction}");

    assert_the_deploy_window_is_wednesday(&store);
}

/// `--no-extract` records the turns and proposes nothing.
#[test]
fn no_extract_records_the_turns_only() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let file = transcript("generic-transcript.jsonl");
    let out = engram(
        &store,
        &["ingest", file.to_str().unwrap(), "--no-extract", "--json"],
    );
    assert_eq!(out.status.code(), Some(0));
    let report = &crate::support::json_lines(&out.stdout)[0];
    assert!(report["new_turns"].as_u64().unwrap() > 0, "{report}");
    assert_eq!(report["extracted"], serde_json::json!([]), "{report}");
}

/// The shared fixture's fact sits in one clause of a longer turn (with a
/// phone number and an email); its later correction supersedes it.
#[test]
fn the_fixture_correction_supersedes_the_deploy_window_it_corrects() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let file = transcript("generic-transcript.jsonl");
    let out = engram(&store, &["ingest", file.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let extracted = crate::support::json_lines(&out.stdout)[0]["extracted"].clone();
    let correction = extracted
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "correction")
        .unwrap_or_else(|| panic!("no correction in {extracted}"));
    assert!(correction["superseded"].is_string(), "{extracted}");
    assert_the_deploy_window_is_wednesday(&store);
}

/// Recall of the deploy window answers the correction (Wednesday) first
/// and never the fact it superseded (Tuesday).
fn assert_the_deploy_window_is_wednesday(store: &Path) {
    let out = engram(store, &["recall", "deploy window", "--json"]);
    let hits = &crate::support::json_lines(&out.stdout)[0]["hits"];
    let texts: Vec<&str> = hits
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["text"].as_str().unwrap())
        .collect();
    assert!(texts[0].contains("Wednesday"), "{texts:?}");
    assert!(!texts.iter().any(|t| t.contains("Tuesday")), "{texts:?}");
}

/// Two sentences of one turn worth keeping are two memories: the second
/// was reported as reinforcing the first, whatever it said, because the
/// save decided on the whole turn, not on the extracted sentence.
#[test]
fn two_memories_in_one_turn_are_both_kept() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("two.jsonl");
    std::fs::write(
        &file,
        concat!(
            r#"{"role": "user", "content": "I prefer tabs over spaces in every repo. We decided to ship releases on Thursdays."}"#,
            "\n",
            r#"{"role": "user", "content": "我们用 pnpm 管理依赖。发版定在每周四。"}"#,
            "\n"
        ),
    )
    .unwrap();
    let store = dir.path().join("store");
    let out = engram(&store, &["ingest", file.to_str().unwrap(), "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer = &json_lines(&out.stdout)[0];
    let extracted = answer["extracted"].as_array().expect("extracted");
    assert!(
        extracted.iter().all(|m| m["outcome"] == "new"),
        "none reinforced another: {answer}"
    );
    // The English turn's two sentences are two memories, with two ids.
    let first_turn: Vec<&Value> = extracted
        .iter()
        .filter(|m| m["seq"] == answer["first_seq"])
        .collect();
    assert_eq!(first_turn.len(), 2, "{answer}");
    assert_ne!(first_turn[0]["id"], first_turn[1]["id"], "{answer}");
}

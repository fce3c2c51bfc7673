//! Snapshots of every command's `--json` output over one scripted session:
//! the shapes other programs parse are contracts, so any change to a field
//! shows up as a snapshot diff to accept on purpose (`cargo insta review`,
//! or `INSTA_UPDATE=always cargo test cli_snapshots`). Times are the only
//! values replaced before comparing; ids, coordinates, scores, hashes and
//! MACs (under the fixed test key) must be the same on every run.

use std::path::Path;

use serde_json::Value;

use crate::support::TEST_KEY_HEX;

/// Fields holding wall-clock times, replaced by a placeholder.
const TIME_FIELDS: [&str; 6] = ["ts", "ts_ms", "due", "created", "expires", "expires_at_ms"];

/// Fields holding digests over sealed bytes (random data keys): checked to
/// be 64 hex digits, then replaced by a placeholder.
const DIGEST_FIELDS: [&str; 2] = ["content_sha256", "mac"];

fn redact_times(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (name, field) in map.iter_mut() {
                if TIME_FIELDS.contains(&name.as_str()) && !field.is_null() {
                    *field = Value::String("[time]".to_owned());
                } else if DIGEST_FIELDS.contains(&name.as_str()) {
                    let digest = field.as_str().unwrap_or_default();
                    assert!(
                        digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit()),
                        "{name}: {field}"
                    );
                    *field = Value::String("[sha256]".to_owned());
                } else if name == "next" && field.is_string() {
                    // A list's cursor starts with its memory's creation time.
                    let cursor = field.as_str().unwrap_or_default();
                    let id = cursor.split_once(':').map_or("", |(_, id)| id).to_owned();
                    *field = Value::String(format!("[time]:{id}"));
                } else {
                    redact_times(field);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_times),
        // The audit trail words a TTL's deadline as "unix ms N".
        Value::String(text) => {
            if let Some((before, after)) = text.split_once("unix ms ") {
                let rest = after.trim_start_matches(|c: char| c.is_ascii_digit());
                *text = format!("{before}unix ms [time]{rest}");
            }
        }
        _ => {}
    }
}

/// Runs `engram --store STORE ARGS` under the test key with no model and
/// returns its JSON output (one value, or an array of lines), times redacted.
fn run(store: &Path, home: &Path, args: &[&str], expect_code: i32) -> Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_engram"))
        .arg("--store")
        .arg(store)
        .args(args)
        .env("ENGRAM_HMAC_KEY", TEST_KEY_HEX)
        .env("ENGRAM_HOME", home)
        .env_remove("ENGRAM_MODEL_DIR")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(expect_code),
        "engram {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines: Vec<Value> = text
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("engram {args:?}: {e}: {line}"))
        })
        .collect();
    let mut value = if lines.len() == 1 {
        lines.remove(0)
    } else {
        Value::Array(lines)
    };
    redact_times(&mut value);
    value
}

#[test]
fn json_output_of_every_command_keeps_its_shape() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let store = dir.path().join("store");
    let transcript = dir.path().join("t.jsonl");
    std::fs::write(
        &transcript,
        "{\"role\":\"user\",\"content\":\"We decided to ship the billing service in Rust; Priya Nair reviews every migration.\"}\n\
         {\"role\":\"assistant\",\"content\":\"Understood: Rust for billing, Priya reviews migrations.\"}\n",
    )
    .unwrap();
    let items = dir.path().join("items.json");
    std::fs::write(
        &items,
        r#"{"items": [{"content": "The team standup is at 09:30 in room Ada.", "tags": ["meetings"]}, {"content": "ok"}]}"#,
    )
    .unwrap();
    let run = |args: &[&str]| run(&store, &home, args, 0);

    insta::assert_json_snapshot!(
        "ingest",
        run(&[
            "ingest",
            transcript.to_str().unwrap(),
            "--session",
            "s1",
            "--no-extract",
            "--json"
        ])
    );
    insta::assert_json_snapshot!(
        "remember_reference",
        run(&[
            "remember",
            "--session",
            "s1",
            "--first-seq",
            "1",
            "--last-seq",
            "2",
            "--room",
            "billing",
            "--json"
        ])
    );
    insta::assert_json_snapshot!(
        "remember_text",
        run(&[
            "remember",
            "Deploys happen on Fridays after 5pm.",
            "--room",
            "ops",
            "--tags",
            "deploy,schedule",
            "--ttl",
            "30d",
            "--json"
        ])
    );
    insta::assert_json_snapshot!(
        "remember_reinforced",
        run(&["remember", "Deploys happen on Fridays after 5pm", "--json"])
    );
    let postgres15 = run(&[
        "remember",
        "The staging server runs Postgres 15 on host db2.",
        "--json",
    ]);
    insta::assert_json_snapshot!(
        "remember_contradiction",
        run(&[
            "remember",
            "The staging server runs Postgres 16 on host db2.",
            "--json"
        ])
    );
    insta::assert_json_snapshot!("remember_discarded", run(&["remember", "ok", "--json"]));
    insta::assert_json_snapshot!(
        "remember_items",
        run(&["remember", "--items", items.to_str().unwrap(), "--json"])
    );
    insta::assert_json_snapshot!("recall", run(&["recall", "deploys", "--json"]));
    insta::assert_json_snapshot!("expand", run(&["expand", "3", "--json"]));
    insta::assert_json_snapshot!("confirm", run(&["confirm", "3", "Priya Nair", "--json"]));
    insta::assert_json_snapshot!("review", run(&["review", "--at", "+400d", "--json"]));
    insta::assert_json_snapshot!("grade", run(&["grade", "3", "4", "--json"]));
    insta::assert_json_snapshot!("verdicts", run(&["verdicts", "--json"]));
    let open = run(&["verdicts", "--json"]);
    let (a, b) = (
        open["open"][0]["a"].as_str().unwrap().to_owned(),
        open["open"][0]["b"].as_str().unwrap().to_owned(),
    );
    insta::assert_json_snapshot!(
        "verdict",
        run(&["verdict", &a, &b, "keep-b", "--reason", "moved", "--json"])
    );
    insta::assert_json_snapshot!("palace", run(&["palace", "--json"]));
    insta::assert_json_snapshot!("palace_room", run(&["palace", "ops", "--json"]));
    insta::assert_json_snapshot!("renovation", run(&["renovation", "--json"]));
    insta::assert_json_snapshot!("entities", run(&["entities", "--json"]));
    insta::assert_json_snapshot!(
        "distill_candidates",
        run(&["distill", "candidates", "--json"])
    );
    insta::assert_json_snapshot!(
        "distill_dry_run",
        run(&[
            "distill",
            "apply",
            "--members",
            &format!("3,{}", postgres15["id"].as_str().unwrap()),
            "--rule",
            "Release rules live in ops; ask ops@example.com.",
            "--dry-run",
            "--json"
        ])
    );
    insta::assert_json_snapshot!(
        "distill_apply",
        run(&[
            "distill",
            "apply",
            "--members",
            &format!("3,{}", postgres15["id"].as_str().unwrap()),
            "--rule",
            "Release rules live in ops.",
            "--json"
        ])
    );
    insta::assert_json_snapshot!(
        "maintain",
        run(&["maintain", "--at", "+60d", "--dry-run", "--json"])
    );
    let deploys = run(&["recall", "deploys", "--json"])["hits"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    insta::assert_json_snapshot!(
        "forget",
        run(&["forget", &deploys, "--reason", "old", "--json"])
    );
    insta::assert_json_snapshot!("audit", run(&["audit", &deploys, "--json"]));
    insta::assert_json_snapshot!("stats", run(&["stats", "--json"]));
    // How events group into frames depends on which appends met in one
    // commit (a recall's event may join the next write's group), so the
    // frame count and the bytes are checked for sense, not snapshotted.
    let mut verified = run(&["verify", "--json"]);
    let n_events = verified["n_events"].as_u64().unwrap();
    let n_frames = verified["n_frames"].as_u64().unwrap();
    assert!((1..=n_events).contains(&n_frames), "{verified}");
    assert!(verified["bytes"].as_u64().unwrap() > n_events, "{verified}");
    verified["n_frames"] = Value::String("[grouping]".to_owned());
    verified["bytes"] = Value::String("[grouping]".to_owned());
    insta::assert_json_snapshot!("verify", verified);
    insta::assert_json_snapshot!("log", run(&["log", "--json"]));
    // After the log's snapshot: an update adds events.
    insta::assert_json_snapshot!("list", run(&["list", "--limit", "3", "--json"]));
    insta::assert_json_snapshot!(
        "update",
        run(&[
            "update",
            "3",
            "Priya Nair owns the billing service and its on-call rota.",
            "--reason",
            "rota",
            "--json"
        ])
    );
    insta::assert_json_snapshot!("l0", run(&["l0", "--json"]));
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join("docs")).unwrap();
    std::fs::write(
        repo.join("AGENTS.md"),
        "# Agents\n\nRun the tests before every commit.\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("docs/deploy.md"),
        "# Deploys\n\nDeploys go out on Thursdays.\n",
    )
    .unwrap();
    insta::assert_json_snapshot!(
        "workspace",
        run(&["workspace", repo.to_str().unwrap(), "--json"])
    );
    insta::assert_json_snapshot!(
        "tier",
        run(&[
            "tier",
            postgres15["id"].as_str().unwrap(),
            "l4",
            "--reason",
            "stale",
            "--json"
        ])
    );
    // Extraction (on by default) in a store of its own: each proposal with
    // its kind, outcome, memory and what it superseded.
    let extracting = dir.path().join("extracting");
    insta::assert_json_snapshot!(
        "ingest_extract",
        self::run(
            &extracting,
            &home,
            &[
                "ingest",
                transcript.to_str().unwrap(),
                "--session",
                "s1",
                "--json"
            ],
            0
        )
    );
}

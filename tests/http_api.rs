//! `engram serve` as a client sees it: every endpoint over real HTTP, the
//! token, bad input answered with stable JSON errors, and the server up and
//! nothing lost afterwards.

use std::process::Command;

use serde_json::{Value, json};

use crate::server::{Server, send};

fn key_env() -> [(&'static str, &'static str); 1] {
    [("ENGRAM_HMAC_KEY", crate::support::TEST_KEY_HEX)]
}

#[test]
fn every_endpoint_answers_in_the_cli_shapes_with_read_your_writes() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let server = Server::start(&store, "127.0.0.1:0", &key_env());

    let health = server.get("/api/health").ok();
    assert_eq!(health["name"], "engram");
    assert_eq!(health["ok"], true);
    let stats = server.get("/api/stats").ok();
    assert_eq!(stats["n_events"], 0);
    assert_eq!(stats["mode"], "keyword");

    // remember, then recall at once: read-your-writes across requests.
    let saved = server
        .post(
            "/api/remember",
            &json!({"content": "Deploys happen on Fridays after 5pm; Alice Chen owns the pipeline.", "room": "ops", "tags": ["deploy"]}),
        )
        .ok();
    assert_eq!(saved["outcome"], "new");
    assert_eq!(saved["coordinate"], "ops#1");
    let id = saved["id"].as_str().unwrap().to_owned();
    let recalled = server
        .post("/api/recall", &json!({"query": "when do deploys happen"}))
        .ok();
    assert_eq!(recalled["hits"][0]["id"], id);
    assert_eq!(recalled["hits"][0]["tags"], json!(["deploy"]));
    assert!(
        recalled["context"]
            .as_str()
            .unwrap()
            .starts_with("<engram_memory_context>")
    );
    assert_eq!(
        server
            .post(
                "/api/recall",
                &json!({"query": "deploys", "tags": ["other"]})
            )
            .ok()["hits"],
        json!([])
    );

    // A transcript, then a memory by reference into it.
    let ingested = server
        .post(
            "/api/ingest",
            &json!({"transcript": "{\"role\":\"user\",\"content\":\"The staging database runs Postgres 15 on host db2.\"}\n{\"role\":\"assistant\",\"content\":\"Noted.\"}\n", "session": "s1"}),
        )
        .ok();
    assert_eq!(ingested["turns"], 2);
    let first = ingested["first_seq"].as_u64().unwrap();
    let by_reference = server
        .post(
            "/api/remember",
            &json!({"session": "s1", "first_seq": first, "last_seq": first}),
        )
        .ok();
    let db = by_reference["id"].as_str().unwrap().to_owned();
    assert_eq!(by_reference["session"], "s1");
    let contradiction = server
        .post(
            "/api/remember",
            &json!({"content": "The staging database runs Postgres 16 on host db2."}),
        )
        .ok();
    assert_eq!(contradiction["outcome"], "contradiction");
    assert_eq!(contradiction["related"], db);
    let db16 = contradiction["id"].as_str().unwrap().to_owned();
    let batch = server
        .post(
            "/api/remember/batch",
            &json!({"items": [{"content": "The office plant needs water on Mondays."}, {"content": "ok"}]}),
        )
        .ok();
    assert_eq!(batch["results"][0]["outcome"], "new");
    assert_eq!(batch["results"][1]["outcome"], "discarded");

    // A memory's page, its words and its history.
    let memory = server.get(&format!("/api/memories/{id}")).ok();
    assert_eq!(memory["status"], "live");
    assert_eq!(memory["room"], "ops");
    let expanded = server.get(&format!("/api/memories/{db}/expand")).ok();
    assert_eq!(expanded["verified"], true);
    assert_eq!(
        expanded["events"][0]["content"],
        "The staging database runs Postgres 15 on host db2."
    );
    let confirmed = server
        .post(
            &format!("/api/memories/{db}/confirm"),
            &json!({"quote": "Postgres 15"}),
        )
        .ok();
    assert_eq!(confirmed["valid"], true);
    let refuted = server
        .post(
            &format!("/api/memories/{db}/confirm"),
            &json!({"quote": "MySQL"}),
        )
        .ok();
    assert_eq!(refuted["valid"], false);

    // Review and grade.
    let due = server.get("/api/review?at=%2B400d").ok();
    assert!(
        due["due"].as_array().unwrap().iter().any(|d| d["id"] == id),
        "{due}"
    );
    assert!(
        !due.to_string().contains("Fridays"),
        "review never shows content: {due}"
    );
    let graded = server
        .post(&format!("/api/memories/{id}/grade"), &json!({"grade": 5}))
        .ok();
    assert_eq!(graded["grade"], 5);
    assert!(graded["interval_days"].as_u64().unwrap() >= 1);
    server
        .post(&format!("/api/memories/{id}/grade"), &json!({"grade": 6}))
        .assert_error(400, "bad_request");

    // Verdicts.
    let verdicts = server.get("/api/verdicts").ok();
    let pair = [&verdicts["open"][0]["a"], &verdicts["open"][0]["b"]];
    assert!(
        pair.contains(&&json!(&db)) && pair.contains(&&json!(&db16)),
        "{verdicts}"
    );
    let decided = server
        .post(
            "/api/verdict",
            &json!({"a": &db, "b": &db16, "verdict": "keep-b", "reason": "upgraded"}),
        )
        .ok();
    assert_eq!(decided["verdict"], "keep-b");
    assert_eq!(server.get("/api/verdicts").ok()["open"], json!([]));
    server
        .post(
            "/api/verdict",
            &json!({"a": &db, "b": &id, "verdict": "keep-a"}),
        )
        .assert_error(404, "not_found");
    server
        .post(
            "/api/verdict",
            &json!({"a": &db, "b": &db16, "verdict": "keep-all"}),
        )
        .assert_error(400, "bad_request");

    // Entities, palace, renovation, distillation, maintenance.
    let entities = server.get("/api/entities?category=person").ok();
    assert!(
        entities["entities"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["category"] == "person"),
        "{entities}"
    );
    server
        .get("/api/entities?category=planet")
        .assert_error(400, "bad_request");
    let palace = server.get("/api/palace").ok();
    assert!(
        palace["rooms"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["room"] == "ops")
    );
    let ops = server.get("/api/palace/ops").ok();
    assert!(
        ops["tour"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["id"] == id && s["slot"] == 1),
        "{ops}"
    );
    server
        .get("/api/palace/nowhere")
        .assert_error(404, "not_found");
    assert!(server.get("/api/renovation").ok()["memories"].is_array());
    assert!(server.get("/api/distill/candidates").ok()["clusters"].is_array());
    let rule = server
        .post(
            "/api/distill",
            &json!({"members": [&id, &db16], "rule": "Infrastructure facts live in the ops room."}),
        )
        .ok();
    assert_eq!(rule["members"], json!([&id, &db16]));
    server
        .post("/api/distill", &json!({"members": [&id], "rule": "x"}))
        .assert_error(400, "bad_request");
    let maintained = server.post("/api/maintain", &json!({"dry_run": true})).ok();
    assert_eq!(maintained["dry_run"], true);
    let empty_body = server.send(
        "POST",
        "/api/maintain",
        &[("Content-Type", "application/json")],
        b"",
    );
    assert_eq!(empty_body.ok()["dry_run"], false);

    // The log, filtered.
    let recalls = server.get("/api/log?kind=recalled").ok();
    let events = recalls["events"].as_array().unwrap();
    assert!(!events.is_empty());
    assert!(events.iter().all(|e| e["kind"] == "recalled"));
    let of_memory = server.get(&format!("/api/log?memory={db}")).ok();
    assert!(
        of_memory["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["kind"] == "verdict_recorded"),
        "{of_memory}"
    );
    let of_session = server.get("/api/log?session=s1").ok();
    assert!(
        of_session["events"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["session"] == "s1" || e["reference"]["session"] == "s1"),
        "{of_session}"
    );
    let last_two = server.get("/api/log?limit=2").ok();
    let seqs: Vec<u64> = last_two["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["seq"].as_u64().unwrap())
        .collect();
    let last = last_two["last_seq"].as_u64().unwrap();
    assert_eq!(seqs, [last - 1, last]);
    assert_eq!(
        server.get("/api/log?until=2000-01-01T00:00:00Z").ok()["events"],
        json!([])
    );
    // Offsets count from now, back (`-`) or forward (`+`).
    assert_eq!(
        server.get("/api/log?since=-1h&limit=2").ok()["events"],
        last_two["events"]
    );
    assert_eq!(server.get("/api/log?until=-1h").ok()["events"], json!([]));
    assert_eq!(server.get("/api/log?since=%2B1h").ok()["events"], json!([]));
    server
        .get("/api/log?since=yesterday")
        .assert_error(400, "bad_request");
    server
        .get("/api/log?since=-forever")
        .assert_error(400, "bad_request");

    // Forget: gone from recall, 410 on expand, audit still expands.
    let forgotten = server
        .post(
            &format!("/api/memories/{id}/forget"),
            &json!({"reason": "moved to Thursdays"}),
        )
        .ok();
    assert_eq!(forgotten["already"], false);
    let again = server
        .post(&format!("/api/memories/{id}/forget"), &json!({}))
        .ok();
    assert_eq!(again["already"], true);
    assert_eq!(again["seq"], forgotten["seq"]);
    server
        .get(&format!("/api/memories/{id}/expand"))
        .assert_error(410, "forgotten");
    assert_eq!(
        server
            .get(&format!("/api/memories/{id}/expand?audit=true"))
            .ok()["status"],
        "forgotten"
    );
    server
        .post(&format!("/api/memories/{id}/grade"), &json!({"grade": 3}))
        .assert_error(410, "forgotten");
    assert!(
        !server
            .post("/api/recall", &json!({"query": "deploys Fridays"}))
            .ok()["hits"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["id"] == id)
    );
    let history = server.get(&format!("/api/memories/{id}/audit")).ok();
    let kinds: Vec<&str> = history["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"graded") && kinds.contains(&"forgotten"),
        "{kinds:?}"
    );

    let verified = server.post("/api/verify", &json!({})).ok();
    assert_eq!(verified["ok"], true);
    server
        .post("/api/reembed", &json!({}))
        .assert_error(400, "bad_request");

    // The panel.
    let page = server.get("/");
    assert_eq!(page.status, 200);
    assert!(
        page.header("content-type")
            .unwrap()
            .starts_with("text/html")
    );
    assert!(
        page.header("content-security-policy")
            .unwrap()
            .contains("default-src 'self'")
    );
    assert_eq!(server.get("/panel.js").status, 200);
    assert_eq!(server.get("/panel.css").status, 200);

    // What the server said is what the CLI sees once it stops.
    server.stop();
    let out = Command::new(env!("CARGO_BIN_EXE_engram"))
        .arg("--store")
        .arg(&store)
        .args(["stats", "--json"])
        .env("ENGRAM_HMAC_KEY", crate::support::TEST_KEY_HEX)
        .env_remove("ENGRAM_HOME")
        .output()
        .unwrap();
    assert!(out.status.success());
    let stats: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["memories_by_status"]["forgotten"], 1);
}

#[test]
fn a_token_guards_the_api_and_binding_beyond_loopback_requires_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let secret = "s3cret-token-for-the-test-of-32-chars";
    let server = Server::start(
        &store,
        "127.0.0.1:0",
        &[key_env()[0], ("ENGRAM_TOKEN", secret)],
    );
    let missing = server.get("/api/stats");
    missing.assert_error(401, "unauthorized");
    assert_eq!(missing.header("www-authenticate"), Some("Bearer"));
    server
        .send(
            "GET",
            "/api/stats",
            &[("Authorization", "Bearer not-the-token")],
            b"",
        )
        .assert_error(401, "unauthorized");
    server
        .send("GET", "/api/stats", &[("Authorization", secret)], b"")
        .assert_error(401, "unauthorized");
    let bearer = format!("Bearer {secret}");
    server
        .send(
            "POST",
            "/api/remember",
            &[("Content-Type", "application/json")],
            br#"{"content":"unauthorised writes never land"}"#,
        )
        .assert_error(401, "unauthorized");
    let stats = server
        .send("GET", "/api/stats", &[("Authorization", &bearer)], b"")
        .ok();
    assert_eq!(stats["n_events"], 0, "the refused write appended nothing");
    // A probe needs no secret; the panel's assets carry no data.
    assert_eq!(server.get("/api/health").status, 200);
    assert_eq!(server.get("/").status, 200);
    drop(server);

    // Beyond loopback without ENGRAM_TOKEN: a token is generated, printed
    // once, and required.
    let server = Server::start(&store, "0.0.0.0:0", &key_env());
    let printed = server.stderr.lock().unwrap().join("\n");
    let token = printed
        .split("#token=")
        .nth(1)
        .map(|rest| rest.split_whitespace().next().unwrap().to_owned())
        .unwrap_or_else(|| panic!("no token printed: {printed}"));
    assert_eq!(token.len(), 64, "{printed}");
    let port = server.addr.rsplit(':').next().unwrap();
    let local = format!("127.0.0.1:{port}");
    send(&local, "GET", "/api/stats", &[], b"").assert_error(401, "unauthorized");
    let bearer = format!("Bearer {token}");
    assert_eq!(
        send(
            &local,
            "GET",
            "/api/stats",
            &[("Authorization", &bearer)],
            b""
        )
        .status,
        200
    );
}

#[test]
fn bad_input_gets_a_stable_error_and_the_server_stays_up_with_nothing_lost() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let server = Server::start(&store, "127.0.0.1:0", &key_env());
    let id = server
        .post(
            "/api/remember",
            &json!({"content": "The cafeteria serves ramen on Wednesdays."}),
        )
        .ok()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let json_type = [("Content-Type", "application/json")];

    server
        .send("POST", "/api/recall", &json_type, b"{\"query\": ")
        .assert_error(400, "invalid_json");
    server
        .send("POST", "/api/recall", &json_type, b"{\"query\": 7}")
        .assert_error(400, "bad_request");
    let unknown = server
        .send("POST", "/api/recall", &json_type, br#"{"qeury": "ramen"}"#)
        .assert_error(400, "bad_request");
    assert!(unknown.contains("qeury"), "{unknown}");
    server
        .send(
            "POST",
            "/api/recall",
            &[("Content-Type", "text/plain")],
            br#"{"query": "ramen"}"#,
        )
        .assert_error(415, "unsupported_media_type");
    server
        .post("/api/recall", &json!({"query": "ramen", "limit": 0}))
        .assert_error(400, "bad_request");
    for floor in [json!(-0.5), json!(1e9), json!("high")] {
        server
            .post(
                "/api/recall",
                &json!({"query": "ramen", "min_score": floor}),
            )
            .assert_error(400, "bad_request");
    }
    server
        .post("/api/remember", &json!({}))
        .assert_error(400, "bad_request");
    server
        .post(
            "/api/remember",
            &json!({"content": "x", "first_seq": 1, "last_seq": 1, "session": "notes"}),
        )
        .assert_error(400, "bad_request");
    server
        .post("/api/remember", &json!({"content": "x y z", "ttl": "soon"}))
        .assert_error(400, "bad_request");
    server
        .post(
            "/api/remember",
            &json!({"session": "notes", "first_seq": 1, "last_seq": 99}),
        )
        .assert_error(400, "bad_request");
    server
        .post("/api/remember", &json!({"content": "a".repeat(70 * 1024)}))
        .assert_error(403, "denied");

    // Oversized bodies: 1 MiB in general, 16 MiB for a transcript.
    let big = format!("{{\"query\": \"{}\"}}", "a".repeat(2 << 20));
    server
        .send("POST", "/api/recall", &json_type, big.as_bytes())
        .assert_error(413, "payload_too_large");
    let huge = format!("{{\"transcript\": \"{}\"}}", "a".repeat(17 << 20));
    server
        .send("POST", "/api/ingest", &json_type, huge.as_bytes())
        .assert_error(413, "payload_too_large");
    let bad_transcript = server
        .post(
            "/api/ingest",
            &json!({"transcript": "{\"role\":\"user\",\"content\":\"fine\"}\nnot json\n"}),
        )
        .assert_error(400, "bad_request");
    assert!(bad_transcript.contains("line 2"), "{bad_transcript}");

    // Paths, methods, ids.
    server
        .get("/api/memories/abc")
        .assert_error(400, "bad_request");
    server
        .get("/api/memories/999999")
        .assert_error(404, "not_found");
    server.get("/api/nothing").assert_error(404, "not_found");
    server
        .send("DELETE", "/api/stats", &[], b"")
        .assert_error(405, "method_not_allowed");
    server
        .get("/api/review?at=someday")
        .assert_error(400, "bad_request");
    server
        .get("/api/log?limit=0")
        .assert_error(400, "bad_request");
    // A page of another site resolving its name to 127.0.0.1 is refused.
    server
        .send("GET", "/api/stats", &[("Host", "attacker.example:80")], b"")
        .assert_error(401, "unauthorized");

    // Still up, nothing lost, nothing extra.
    let stats = server.get("/api/stats").ok();
    assert_eq!(stats["memories_by_status"]["live"], 1, "{stats}");
    let expanded = server.get(&format!("/api/memories/{id}/expand")).ok();
    assert_eq!(
        expanded["events"][0]["content"],
        "The cafeteria serves ramen on Wednesdays."
    );
    assert_eq!(server.post("/api/verify", &json!({})).ok()["ok"], true);
}

#[test]
fn concurrent_clients_each_read_their_own_writes() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let server = Server::start(&store, "127.0.0.1:0", &key_env());
    const WORDS: [&str; 8] = [
        "aardvark",
        "bassoon",
        "cormorant",
        "dulcimer",
        "echidna",
        "flugelhorn",
        "gharial",
        "harpsichord",
    ];
    std::thread::scope(|scope| {
        for (i, word) in WORDS.iter().enumerate() {
            let addr = server.addr.clone();
            scope.spawn(move || {
                let body = json!({"content": format!("Client {i} keeps a {word} in the shed.")});
                let saved = send(
                    &addr,
                    "POST",
                    "/api/remember",
                    &[("Content-Type", "application/json")],
                    body.to_string().as_bytes(),
                );
                let id = saved.ok()["id"].as_str().unwrap().to_owned();
                let query = json!({"query": word}).to_string();
                let found = send(
                    &addr,
                    "POST",
                    "/api/recall",
                    &[("Content-Type", "application/json")],
                    query.as_bytes(),
                )
                .ok();
                assert_eq!(found["hits"][0]["id"], id, "{word}: {found}");
            });
        }
    });
    let stats = server.get("/api/stats").ok();
    assert_eq!(stats["memories_by_status"]["live"], WORDS.len());
}

#[test]
fn the_log_exported_over_http_imports_into_an_identical_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let server = Server::start(&store, "127.0.0.1:0", &key_env());
    for text in [
        "Deploys happen on Fridays after 5pm.",
        "The staging server runs Postgres 15 on host db2.",
        "The office plant needs water on Mondays.",
    ] {
        server.post("/api/remember", &json!({"content": text})).ok();
    }
    server
        .post("/api/recall", &json!({"query": "deploys"}))
        .ok();
    server
        .get("/api/export?from=0")
        .assert_error(400, "bad_request");
    server
        .get("/api/export?from=99")
        .assert_error(400, "bad_request");
    let export = server.get("/api/export");
    assert_eq!(export.status, 200);
    assert_eq!(export.header("content-type"), Some("application/x-ndjson"));
    let stats = server.get("/api/stats").ok();
    server.stop();

    let file = dir.path().join("store.jsonl");
    std::fs::write(&file, &export.body).unwrap();
    let copy = dir.path().join("copy");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_engram"))
            .args(args)
            .env_remove("ENGRAM_HMAC_KEY")
            .env_remove("ENGRAM_HOME")
            .output()
            .unwrap()
    };
    let imported = run(&[
        "import",
        file.to_str().unwrap(),
        "--store",
        copy.to_str().unwrap(),
    ]);
    assert!(
        imported.status.success(),
        "{}",
        String::from_utf8_lossy(&imported.stderr)
    );
    let out = run(&["--store", copy.to_str().unwrap(), "stats", "--json"]);
    let copied: Value = serde_json::from_slice(&out.stdout).unwrap();
    for field in [
        "n_events",
        "memories_by_status",
        "memories_by_tier",
        "views",
    ] {
        assert_eq!(copied[field], stats[field], "{field}");
    }
}

#[test]
fn servers_of_two_projects_share_the_user_store() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let repo = |name: &str| {
        let root = dir.path().join(name);
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(
            root.join(".git/config"),
            format!("[remote \"origin\"]\n\turl = https://example.com/{name}.git\n"),
        )
        .unwrap();
        root
    };
    let (a, b) = (repo("a"), repo("b"));
    let server_a = Server::start_in(&a, &home);
    // The user store is not held by project a's server: b's starts too.
    let server_b = Server::start_in(&b, &home);
    let saved = server_a
        .post(
            "/api/remember/batch",
            &json!({"items": [{"content": "The user writes commit messages in the imperative mood."}], "scope": "user"}),
        )
        .ok();
    assert_eq!(saved["results"][0]["scope"], "user", "{saved}");
    let project_only = server_a
        .post(
            "/api/remember",
            &json!({"content": "Project a builds with cargo xtask dist."}),
        )
        .ok();
    assert_eq!(project_only["scope"], "project");
    let found = server_b
        .post(
            "/api/recall",
            &json!({"query": "commit messages imperative"}),
        )
        .ok();
    assert_eq!(found["hits"][0]["scope"], "user", "{found}");
    let not_found = server_b
        .post("/api/recall", &json!({"query": "xtask dist"}))
        .ok();
    assert_eq!(not_found["hits"], json!([]), "projects stay apart");
    server_a
        .post(
            "/api/remember/batch",
            &json!({"items": [{"content": "x y z w"}], "scope": "team"}),
        )
        .assert_error(400, "bad_request");
}

/// `ENGRAM_TOKEN=a` was accepted: a one-letter bearer token guarded the
/// API. A token under `TOKEN_CHARS_MIN` characters is refused before the
/// server binds (exit 2, the message names the minimum); one of exactly the
/// minimum is taken.
#[test]
fn a_one_letter_token_was_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let min = engram::http::TOKEN_CHARS_MIN;
    for short in ["a", &"x".repeat(min - 1)] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_engram"))
            .arg("--store")
            .arg(&store)
            .args(["serve", "--addr", "127.0.0.1:0"])
            .env("ENGRAM_TOKEN", short)
            .env("ENGRAM_HOME", dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("engram serve took a {}-character token", short.len());
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert_eq!(status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("ENGRAM_TOKEN") && stderr.contains(&min.to_string()),
            "{stderr}"
        );
        assert!(!store.exists(), "a refused start created the store");
    }
    let token = "t".repeat(min);
    let server = Server::start(
        &store,
        "127.0.0.1:0",
        &[key_env()[0], ("ENGRAM_TOKEN", &token)],
    );
    let bearer = format!("Bearer {token}");
    assert_eq!(
        server
            .send("GET", "/api/stats", &[("Authorization", &bearer)], b"")
            .status,
        200
    );
}

/// `GET /api/series` folds the log: recalls and recalls with a hit per
/// bucket, live memories at each bucket's end; the same points after a
/// restart and after `engram rebuild`. A distill dry run says what would
/// be recorded (the rule redacted) and writes nothing; the export is an
/// attachment with a file name.
#[test]
fn the_series_folds_the_log_and_a_distill_dry_run_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let server = Server::start(&store, "127.0.0.1:0", &key_env());
    let empty = server.get("/api/series").ok();
    assert_eq!(empty["points"], json!([]), "{empty}");
    assert_eq!(empty["last_seq"], 0, "{empty}");

    let save = |text: &str| {
        server
            .post(
                "/api/remember",
                &json!({"content": text, "room": "deploys"}),
            )
            .ok()["id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let a = save("Deploys to production need two reviewers.");
    let b = save("Hotfix deploys skip staging but still need two reviewers.");
    let found = server
        .post("/api/recall", &json!({"query": "two reviewers"}))
        .ok();
    assert!(!found["hits"].as_array().unwrap().is_empty(), "{found}");
    let none = server
        .post("/api/recall", &json!({"query": "zebra crossing"}))
        .ok();
    assert_eq!(none["hits"], json!([]), "{none}");

    let series = server.get("/api/series").ok();
    assert_eq!(series["bucket_ms"], 60_000, "seconds of log: minutes");
    let points = series["points"].as_array().unwrap();
    assert!((1..=2).contains(&points.len()), "{series}");
    let sum = |field: &str| -> u64 { points.iter().map(|p| p[field].as_u64().unwrap()).sum() };
    assert_eq!(sum("recalls"), 2, "{series}");
    assert_eq!(sum("recalls_with_hits"), 1, "{series}");
    let last = points.last().unwrap();
    assert_eq!(last["live"], 2, "{series}");
    assert_eq!(last["recalls"], 2, "both recalls are in the last bucket");
    assert_eq!(last["hit_rate"], 0.5, "{series}");
    assert!(
        last["health"].as_u64().is_some_and(|h| h <= 100),
        "{series}"
    );
    let by_day = server.get("/api/series?bucket=day").ok();
    assert_eq!(by_day["bucket_ms"], 86_400_000, "{by_day}");
    let message = server
        .get("/api/series?bucket=year")
        .assert_error(400, "bad_request");
    assert!(message.contains("bucket"), "{message}");
    server
        .get("/api/series?buckets=2")
        .assert_error(400, "bad_request");

    // A dry run: the plan, the rule as it would be kept, nothing written.
    let settled = server.post("/api/settle", &json!({})).ok()["last_seq"].clone();
    let plan = server
        .post(
            "/api/distill",
            &json!({"members": [&b, &a], "rule": "Deploys need two reviewers; ask alice@example.com.", "dry_run": true}),
        )
        .ok();
    assert_eq!(plan["dry_run"], true, "{plan}");
    assert_eq!(plan["members"], json!([&a, &b]), "{plan}");
    assert_eq!(plan["room"], "deploys", "{plan}");
    assert_eq!(
        plan["rule"], "Deploys need two reviewers; ask [REDACTED:email].",
        "{plan}"
    );
    assert!(plan.get("id").is_none(), "{plan}");
    server
        .post(
            "/api/distill",
            &json!({"members": [&a], "rule": "x", "dry_run": true}),
        )
        .assert_error(400, "bad_request");
    let after = server.post("/api/settle", &json!({})).ok()["last_seq"].clone();
    assert_eq!(after, settled, "a dry run appended");
    let rule = server
        .post(
            "/api/distill",
            &json!({"members": [&a, &b], "rule": "Deploys need two reviewers."}),
        )
        .ok();
    assert_eq!(rule["confidence"], plan["confidence"], "{rule} {plan}");

    let export = server.get("/api/export");
    assert_eq!(export.status, 200);
    let last_seq = server.post("/api/settle", &json!({})).ok()["last_seq"].clone();
    assert_eq!(
        export.header("content-disposition"),
        Some(format!("attachment; filename=\"engram-store-1-{last_seq}.jsonl\"").as_str())
    );

    // The same log, the same points: after a restart, after a rebuild.
    let before = server.get("/api/series").ok();
    server.stop();
    let server = Server::start(&store, "127.0.0.1:0", &key_env());
    assert_eq!(server.get("/api/series").ok(), before, "after a restart");
    server.stop();
    let rebuilt = Command::new(env!("CARGO_BIN_EXE_engram"))
        .arg("--store")
        .arg(&store)
        .args(["--in-process", "rebuild"])
        .env("ENGRAM_HMAC_KEY", crate::support::TEST_KEY_HEX)
        .env("ENGRAM_HOME", dir.path().join("home"))
        .output()
        .unwrap();
    assert!(
        rebuilt.status.success(),
        "{}",
        String::from_utf8_lossy(&rebuilt.stderr)
    );
    let server = Server::start(&store, "127.0.0.1:0", &key_env());
    assert_eq!(server.get("/api/series").ok(), before, "after a rebuild");
}

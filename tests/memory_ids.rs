//! Memory ids name their store. Inside a git repository a caller sees the
//! user store and the project store at once, and each numbers its memories
//! by its own seq, so both stores' first memory is 2: every id handed out
//! is `u:2` or `p:2`, every command, route and tool taking an id acts on
//! the store it names, a bare number that two stores have is refused
//! listing both, and an id of a store that is not open, or malformed, is
//! refused. A refused command changes nothing.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::memory_scopes::World;
use crate::server::Server;

const USER: &str = "The user signs every commit with an SSH key";
const PROJECT: &str = "Project uses trunk-based development with short branches";

/// A world with a repository whose user store and project store each hold
/// one memory, both numbered 2 (`extra` goes to both remembers).
pub(crate) fn two_stores(extra: &[&str]) -> (World, std::path::PathBuf) {
    let w = World::new();
    let repo = w.repo("repo", "https://example.com/repo.git");
    let mut args = vec!["--scope", "user", "remember", USER, "--json"];
    args.extend_from_slice(extra);
    let user = w.json(&repo, &args);
    assert_eq!(user["id"], "u:2", "{user}");
    assert_eq!(user["scope"], "user", "{user}");
    let mut args = vec!["remember", PROJECT, "--json"];
    args.extend_from_slice(extra);
    let project = w.json(&repo, &args);
    assert_eq!(project["id"], "p:2", "{project}");
    assert_eq!(project["scope"], "project", "{project}");
    (w, repo)
}

/// The number of events in each store: (user, project).
pub(crate) fn events(w: &World, cwd: &Path) -> (u64, u64) {
    let count = |scope: &str| {
        w.json(cwd, &["--scope", scope, "stats", "--json"])["n_events"]
            .as_u64()
            .unwrap()
    };
    (count("user"), count("project"))
}

/// The kinds of the events of `scope`'s store.
fn kinds(w: &World, cwd: &Path, scope: &str) -> Vec<String> {
    crate::support::json_lines(&w.run(cwd, &["--scope", scope, "log", "--json"], 0).stdout)
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_owned())
        .collect()
}

/// Asserts that `text` (an error) lists both memories 2, with a few words
/// of each.
fn lists_both(text: &str) {
    assert!(text.contains("u:2"), "{text}");
    assert!(text.contains("p:2"), "{text}");
    assert!(text.contains("The user signs"), "{text}");
    assert!(text.contains("Project uses"), "{text}");
}

#[test]
fn the_id_recall_hands_out_acts_on_that_memory_from_the_cli() {
    let (w, repo) = two_stores(&[]);

    // Recall spans both stores and names the user memory `u:2`.
    let found = w.json(&repo, &["recall", "SSH key commits", "--json"]);
    assert_eq!(found["hits"][0]["id"], "u:2", "{found}");
    assert_eq!(found["hits"][0]["scope"], "user", "{found}");
    let context = w.run(
        &repo,
        &["recall", "SSH key commits", "--format", "context"],
        0,
    );
    let context = String::from_utf8_lossy(&context.stdout);
    assert!(
        context.contains("[memory u:2 at ") && context.contains("| user store |"),
        "{context}"
    );

    // A bare 2 names both: every command taking an id refuses it, lists
    // both, and appends nothing anywhere.
    let before = events(&w, &repo);
    for args in [
        &["expand", "2"][..],
        &["forget", "2"][..],
        &["confirm", "2", "SSH key"][..],
        &["grade", "2", "4"][..],
        &["audit", "2"][..],
    ] {
        let out = w.run(&repo, args, 2);
        lists_both(&String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(events(&w, &repo), before, "a refused command appended");

    // The id recall handed out reads the user store from the project.
    let expanded = w.json(&repo, &["expand", "u:2", "--json"]);
    assert_eq!(expanded["id"], "u:2", "{expanded}");
    assert_eq!(expanded["events"][0]["content"], USER, "{expanded}");
    assert_eq!(expanded["verified"], true, "{expanded}");
    let expanded = w.json(&repo, &["expand", "p:2", "--json"]);
    assert_eq!(expanded["events"][0]["content"], PROJECT, "{expanded}");

    // Confirm, grade and forget act on the user memory, in the user store.
    let confirmed = w.json(&repo, &["confirm", "u:2", "SSH key", "--json"]);
    assert_eq!(confirmed["id"], "u:2", "{confirmed}");
    assert_eq!(confirmed["valid"], true, "{confirmed}");
    let graded = w.json(&repo, &["grade", "u:2", "4", "--json"]);
    assert_eq!(graded["id"], "u:2", "{graded}");
    let history = w.run(&repo, &["audit", "u:2", "--json"], 0);
    assert!(
        !crate::support::json_lines(&history.stdout).is_empty(),
        "no history"
    );
    let forgotten = w.json(&repo, &["forget", "u:2", "--json"]);
    assert_eq!(forgotten["id"], "u:2", "{forgotten}");
    assert_eq!(forgotten["already"], false, "{forgotten}");

    let project = kinds(&w, &repo, "project");
    for kind in ["evidence_confirmed", "graded", "forgotten"] {
        assert!(!project.contains(&kind.to_owned()), "{kind}: {project:?}");
    }
    let user = kinds(&w, &repo, "user");
    for kind in ["evidence_confirmed", "graded", "forgotten"] {
        assert_eq!(
            user.iter().filter(|k| *k == kind).count(),
            1,
            "{kind}: {user:?}"
        );
    }
    // The user memory is gone from recall; the project one still expands.
    w.run(&repo, &["recall", "SSH key commits", "--json"], 1);
    let project = w.json(&repo, &["expand", "p:2", "--json"]);
    assert_eq!(project["status"], "live", "{project}");
    // A forgotten memory keeps its id: a bare 2 still names both.
    let out = w.run(&repo, &["expand", "2", "--audit"], 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("u:2") && err.contains("p:2"), "{err}");
}

#[test]
fn ids_of_stores_not_open_and_malformed_ids_are_refused() {
    let w = World::new();
    let plain = w.plain("plain");
    let repo = w.repo("repo", "https://example.com/repo.git");
    let saved = w.json(&plain, &["remember", USER, "--json"]);
    assert_eq!(saved["id"], "u:2", "{saved}");

    // Outside a repository there is no project store: p:2 is refused,
    // naming the store, and nothing is appended.
    let before = w.json(&plain, &["stats", "--json"])["n_events"].clone();
    for args in [
        &["expand", "p:2"][..],
        &["forget", "p:2"][..],
        &["confirm", "p:2", "SSH"][..],
        &["grade", "p:2", "3"][..],
        &["audit", "p:2"][..],
    ] {
        let out = w.run(&plain, args, 2);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("p:2") && err.contains("project store") && err.contains("not open"),
            "{args:?}: {err}"
        );
    }
    // In a repository with --scope user the project store is not open either.
    w.run(&repo, &["--scope", "user", "forget", "p:2"], 2);
    assert_eq!(
        w.json(&plain, &["stats", "--json"])["n_events"],
        before,
        "a refused command appended"
    );
    // No project store was created by any of it.
    assert!(
        !w.home.read_dir().unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("project-")),
        "a project store was created"
    );

    // A bare number that only one store has is that memory.
    let expanded = w.json(&plain, &["expand", "2", "--json"]);
    assert_eq!(expanded["id"], "u:2", "{expanded}");
    // An id of an open store that has no such memory is not found.
    let out = w.run(&plain, &["expand", "u:9"], 2);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no memory with id u:9"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Malformed ids are refused before anything is opened.
    let before = w.json(&plain, &["stats", "--json"])["n_events"].clone();
    for bad in ["x:2", "u:", "u:abc", "-1", "0", "p:-2", "u:2:2"] {
        for args in [
            &["expand", bad][..],
            &["forget", bad][..],
            &["grade", bad, "3"][..],
        ] {
            let out = w.run(&plain, args, 2);
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("is not a memory id"), "{args:?}: {err}");
        }
    }
    assert_eq!(w.json(&plain, &["stats", "--json"])["n_events"], before);
}

#[test]
fn http_routes_act_on_the_store_the_id_names() {
    let (w, repo) = two_stores(&[]);
    let server = Server::start_in(&repo, &w.home);

    let found = server
        .post("/api/recall", &json!({"query": "SSH key commits"}))
        .ok();
    assert_eq!(found["hits"][0]["id"], "u:2", "{found}");
    assert!(
        found["context"]
            .as_str()
            .unwrap()
            .contains("[memory u:2 at "),
        "{found}"
    );

    // A bare 2 is ambiguous on every route taking an id.
    for reply in [
        server.get("/api/memories/2"),
        server.get("/api/memories/2/expand"),
        server.get("/api/memories/2/audit"),
        server.post("/api/memories/2/forget", &json!({})),
        server.post("/api/memories/2/confirm", &json!({"quote": "SSH key"})),
        server.post("/api/memories/2/grade", &json!({"grade": 4})),
        server.get("/api/log?memory=2"),
    ] {
        lists_both(&reply.assert_error(400, "ambiguous_id"));
    }
    server
        .post(
            "/api/verdict",
            &json!({"a": "u:2", "b": "p:2", "verdict": "keep-a"}),
        )
        .assert_error(400, "bad_request");
    server
        .get("/api/memories/x:2/expand")
        .assert_error(400, "bad_request");
    server
        .get("/api/memories/s:2/expand")
        .assert_error(404, "no_store");

    // The qualified id (as is, or URL-encoded) reaches the user store.
    for path in ["/api/memories/u:2/expand", "/api/memories/u%3A2/expand"] {
        let expanded = server.get(path).ok();
        assert_eq!(expanded["id"], "u:2", "{expanded}");
        assert_eq!(expanded["events"][0]["content"], USER, "{expanded}");
    }
    let memory = server.get("/api/memories/p:2").ok();
    assert_eq!(memory["id"], "p:2", "{memory}");
    assert_eq!(memory["scope"], "project", "{memory}");
    let confirmed = server
        .post("/api/memories/u:2/confirm", &json!({"quote": "SSH key"}))
        .ok();
    assert_eq!(confirmed["id"], "u:2", "{confirmed}");
    assert_eq!(confirmed["valid"], true, "{confirmed}");
    let graded = server
        .post("/api/memories/u:2/grade", &json!({"grade": 4}))
        .ok();
    assert_eq!(graded["id"], "u:2", "{graded}");
    let forgotten = server.post("/api/memories/u:2/forget", &json!({})).ok();
    assert_eq!(forgotten["id"], "u:2", "{forgotten}");
    let audit = server.get("/api/memories/u:2/audit").ok();
    assert_eq!(audit["id"], "u:2", "{audit}");
    let logged = server.get("/api/log?memory=u:2").ok();
    let logged: Vec<&str> = logged["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert!(logged.contains(&"forgotten"), "{logged:?}");
    let project = server.get("/api/memories/p:2/expand").ok();
    assert_eq!(project["status"], "live", "{project}");
    server.stop();

    assert!(
        !kinds(&w, &repo, "project").contains(&"forgotten".to_owned()),
        "the project memory was forgotten"
    );
    assert!(kinds(&w, &repo, "user").contains(&"forgotten".to_owned()));
}

/// `engram mcp` in `cwd`, driven over its pipes.
struct Mcp {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
    next: u64,
}

impl Mcp {
    fn start(cwd: &Path, home: &Path) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_engram"))
            .arg("mcp")
            .current_dir(cwd)
            .env("ENGRAM_HOME", home)
            .env_remove("ENGRAM_HMAC_KEY")
            .env_remove("ENGRAM_MODEL_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut mcp = Self {
            child,
            stdin,
            stdout,
            next: 1,
        };
        mcp.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "ids", "version": "0"},
            }),
        );
        writeln!(
            mcp.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .unwrap();
        mcp
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        )
        .unwrap();
        self.stdin.flush().unwrap();
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "engram mcp ended"
            );
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    }

    /// Calls `tool`: (is it an error, its text).
    fn call(&mut self, tool: &str, arguments: Value) -> (bool, String) {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let result = &answer["result"];
        (
            result["isError"] == true,
            result["content"][0]["text"]
                .as_str()
                .unwrap_or_else(|| panic!("{answer}"))
                .to_owned(),
        )
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn mcp_tools_act_on_the_store_the_id_names() {
    // Saved by a model, so the model may forget them.
    let (w, repo) = two_stores(&["--by", "model"]);
    let before = events(&w, &repo);
    let mut mcp = Mcp::start(&repo, &w.home);

    let (error, block) = mcp.call("memory_recall", json!({"query": "SSH key commits"}));
    assert!(!error, "{block}");
    assert!(
        block.contains("[memory u:2 at ") && block.contains("| user store |"),
        "{block}"
    );

    for (tool, arguments) in [
        ("memory_expand", json!({"id": 2})),
        ("memory_expand", json!({"id": "2"})),
        ("memory_forget", json!({"id": 2})),
        ("memory_confirm", json!({"id": 2, "quote": "SSH key"})),
        ("memory_grade", json!({"id": 2, "grade": 4})),
    ] {
        let (error, text) = mcp.call(tool, arguments);
        assert!(error, "{tool}: {text}");
        assert!(text.starts_with("ambiguous_id: "), "{tool}: {text}");
        lists_both(&text);
    }
    let (error, text) = mcp.call("memory_expand", json!({"id": "x:2"}));
    assert!(error, "{text}");

    let (error, expanded) = mcp.call("memory_expand", json!({"id": "u:2"}));
    assert!(!error, "{expanded}");
    assert!(expanded.contains(USER), "{expanded}");
    assert!(expanded.contains(r#""id":"u:2""#), "{expanded}");
    let (error, confirmed) = mcp.call("memory_confirm", json!({"id": "u:2", "quote": "SSH key"}));
    assert!(!error, "{confirmed}");
    assert_eq!(
        serde_json::from_str::<Value>(&confirmed).unwrap()["id"],
        "u:2"
    );
    let (error, graded) = mcp.call("memory_grade", json!({"id": "u:2", "grade": 4}));
    assert!(!error, "{graded}");
    let (error, forgotten) = mcp.call("memory_forget", json!({"id": "u:2", "reason": "test"}));
    assert!(!error, "{forgotten}");
    assert_eq!(
        serde_json::from_str::<Value>(&forgotten).unwrap()["id"],
        "u:2"
    );
    drop(mcp);

    let after = events(&w, &repo);
    // The recall is recorded in both stores; the expand, confirm, grade
    // and forget of u:2 in the user store alone; the refused calls nowhere.
    assert_eq!(after.1, before.1 + 1, "{before:?} -> {after:?}");
    assert_eq!(after.0, before.0 + 5, "{before:?} -> {after:?}");
    assert!(!kinds(&w, &repo, "project").contains(&"forgotten".to_owned()));
}

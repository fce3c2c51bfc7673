//! `engram mcp` driven by clients that are not ours: the official MCP Python
//! SDK (`tests/mcp_client.py`, run with the interpreter of the virtual
//! environment `.ci/run` makes: `ENGRAM_TEST_MCP_PYTHON`; required when
//! `ENGRAM_TEST_REQUIRE_MCP=1`, as in CI), and raw JSON-RPC lines over the
//! child's pipes.
//!
//! Invariants checked: the SDK's whole session succeeds (every tool listed
//! with a description, a title, its annotations and a schema; remember,
//! recall, expand, forget, review, save, search, list, update, verdicts,
//! verdict, entities and ingest answer as documented; bad calls are refused
//! and the server answers the next one) and its writes are in the store
//! afterwards (the updated memory superseded, its successor recalled);
//! every line on the server's stdout is a JSON-RPC message, a malformed
//! request line does not stop the server, and end of input ends it cleanly.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::skip_unless_required;

/// How long the SDK's whole session, or any one raw answer, may take.
const WAIT: Duration = Duration::from_secs(60);
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp_client.py");
const TOOLS: [&str; 20] = [
    "engram_review",
    "engram_save",
    "engram_search",
    "memory_confirm",
    "memory_entities",
    "memory_expand",
    "memory_forget",
    "memory_grade",
    "memory_ingest",
    "memory_list",
    "memory_l0",
    "memory_palace",
    "memory_purge",
    "memory_recall",
    "memory_remember",
    "memory_review",
    "memory_stats",
    "memory_update",
    "memory_verdict",
    "memory_verdicts",
];

/// A child process killed (if still running) on drop.
struct Reaped(Child);

impl Reaped {
    /// Waits up to `limit` for the child to exit.
    fn wait(&mut self, limit: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.0.try_wait().unwrap() {
                return Some(status);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Reads `from` line by line on a thread, sending each line to the channel.
fn lines(from: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Every line until the writer closes its end, or until [`WAIT`] passed.
fn drain(rx: &mpsc::Receiver<String>) -> Vec<String> {
    let deadline = Instant::now() + WAIT;
    let mut out = Vec::new();
    while let Ok(line) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        out.push(line);
    }
    out
}

/// The Python interpreter with the `mcp` SDK, or `None` (after a skip
/// notice) when none is configured and none is required.
pub(crate) fn python() -> Option<String> {
    if let Some(python) = std::env::var_os("ENGRAM_TEST_MCP_PYTHON") {
        return Some(python.to_string_lossy().into_owned());
    }
    skip_unless_required(
        "ENGRAM_TEST_REQUIRE_MCP",
        "ENGRAM_TEST_MCP_PYTHON is not set: point it at the python of a virtual environment \
         with the `mcp` package (.ci/run makes one)",
    );
    None
}

#[test]
fn the_official_python_sdk_drives_the_memory_tools() {
    let Some(python) = python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let started = Instant::now();
    let mut child = Reaped(
        Command::new(&python)
            .arg(SCRIPT)
            .arg(env!("CARGO_BIN_EXE_engram"))
            .arg(&store)
            .env("ENGRAM_HOME", dir.path().join("home"))
            .env_remove("ENGRAM_HMAC_KEY")
            .env_remove("ENGRAM_MODEL_DIR")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("running {python}: {e}")),
    );
    let stdout = lines(child.0.stdout.take().unwrap());
    let stderr = lines(child.0.stderr.take().unwrap());
    let Some(status) = child.wait(WAIT) else {
        drop(child);
        let stderr = drain(&stderr);
        panic!(
            "the SDK session took over {WAIT:?}; its stderr so far:\n{}",
            stderr.join("\n")
        );
    };
    let stderr = drain(&stderr);
    assert!(
        status.success(),
        "the SDK session failed ({status}):\n{}",
        stderr.join("\n")
    );
    eprintln!("the SDK session took {:?}", started.elapsed());
    let out = drain(&stdout);
    let summary: Value = serde_json::from_str(out.last().map_or("", String::as_str))
        .unwrap_or_else(|e| panic!("no JSON summary ({e}) in {out:?}"));
    assert_eq!(summary["server"]["name"], "engram", "{summary}");
    for tool in TOOLS {
        assert!(
            summary["tools"].as_array().unwrap().contains(&json!(tool)),
            "{tool} not listed: {summary}"
        );
    }

    // What the SDK did is in the store: the forgotten memory is gone from
    // recall (its tombstone in the audit trail), the saved one is found.
    // `engram mcp` is a client of a daemon that owns the store; stop it so
    // the commands below, which open the store here, may.
    let out = crate::support::engram(&store, &["daemon", "stop"]);
    assert_eq!(out.status.code(), Some(0));
    let forgotten = summary["remembered"].as_str().unwrap();
    let saved = summary["saved"].as_str().unwrap();
    let updated = summary["updated"].as_str().unwrap();
    let out = crate::support::engram(&store, &["audit", forgotten, "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kinds: Vec<String> = crate::support::json_lines(&out.stdout)
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_owned())
        .collect();
    assert!(kinds.contains(&"forgotten".to_owned()), "{kinds:?}");
    let out = crate::support::engram(&store, &["recall", "staging cluster heron", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // memory_update superseded the saved memory: its successor is found,
    // it is not.
    let hits = &crate::support::json_lines(&out.stdout)[0]["hits"];
    assert_eq!(hits[0]["id"], updated, "{hits}");
    assert!(
        hits.as_array().unwrap().iter().all(|h| h["id"] != saved),
        "{hits}"
    );
    let out = crate::support::engram(&store, &["recall", "release train Tuesdays", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the forgotten memory was recalled"
    );
}

/// `engram mcp` over raw pipes: requests in, every stdout line checked.
pub(crate) struct RawSession {
    child: Reaped,
    stdin: Option<ChildStdin>,
    stdout: mpsc::Receiver<String>,
}

impl RawSession {
    pub(crate) fn start(store: &Path, home: &Path) -> Self {
        let mut child = Reaped(
            Command::new(env!("CARGO_BIN_EXE_engram"))
                .arg("--store")
                .arg(store)
                .arg("mcp")
                .env("ENGRAM_HOME", home)
                .env_remove("ENGRAM_HMAC_KEY")
                .env_remove("ENGRAM_MODEL_DIR")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        let stdin = child.0.stdin.take();
        let stdout = lines(child.0.stdout.take().unwrap());
        Self {
            child,
            stdin,
            stdout,
        }
    }

    pub(crate) fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    pub(crate) fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string());
    }

    /// The MCP handshake as request 1 (`client` names this client); returns
    /// the server's answer to `initialize`.
    pub(crate) fn initialize(&mut self, client: &str) -> Value {
        self.send(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": client, "version": "0"},
            }}),
        );
        let init = self.answer(1);
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        init
    }

    /// The answer to request `id`. Every line read on the way must be a
    /// JSON-RPC 2.0 message (a notification, or an error for a bad line).
    pub(crate) fn answer(&self, id: u64) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let line = self
                .stdout
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|e| panic!("no answer to request {id} within {WAIT:?}: {e}"));
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}"));
            assert_eq!(message["jsonrpc"], "2.0", "not JSON-RPC: {line}");
            if message["id"] == id {
                return message;
            }
        }
    }
}

#[test]
fn mcp_stdout_is_only_protocol_and_survives_a_malformed_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut mcp = RawSession::start(&dir.path().join("store"), &dir.path().join("home"));
    let init = mcp.initialize("raw-pipes");
    assert_eq!(init["result"]["serverInfo"]["name"], "engram", "{init}");
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );

    mcp.send_line("this line is not JSON-RPC");
    mcp.send_line(r#"{"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"#);
    mcp.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let listed = mcp.answer(2);
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools: {listed}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for tool in TOOLS {
        assert!(names.contains(&tool), "{tool} not listed: {names:?}");
    }

    mcp.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "memory_remember",
            "arguments": {"content": "The build cache lives on the second disk of the runner."},
        }}),
    );
    let saved = mcp.answer(3);
    assert_eq!(saved["result"]["isError"], false, "{saved}");
    let receipt: Value =
        serde_json::from_str(saved["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(receipt["outcome"], "new", "{receipt}");

    // End of input ends the session; the store is closed cleanly.
    drop(mcp.stdin.take());
    let status = mcp
        .child
        .wait(WAIT)
        .expect("engram mcp did not exit at end of input");
    assert!(status.success(), "engram mcp exited with {status}");
    for line in drain(&mcp.stdout) {
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}"));
        assert_eq!(message["jsonrpc"], "2.0", "not JSON-RPC: {line}");
    }
    let out = crate::support::engram(&dir.path().join("store"), &["daemon", "stop"]);
    assert_eq!(out.status.code(), Some(0));
    let out = crate::support::engram(&dir.path().join("store"), &["verify"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every `$ref`, `anyOf` or `oneOf` anywhere in `schema`.
fn indirections(schema: &Value, path: &str, found: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                if ["$ref", "$defs", "anyOf", "oneOf"].contains(&key.as_str()) {
                    found.push(format!("{path}/{key}"));
                }
                indirections(value, &format!("{path}/{key}"), found);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                indirections(item, &format!("{path}/{i}"), found);
            }
        }
        _ => {}
    }
}

#[test]
fn mcp_tool_schemas_state_the_real_limits_and_plain_enums() {
    let dir = tempfile::tempdir().unwrap();
    let mut mcp = RawSession::start(&dir.path().join("store"), &dir.path().join("home"));
    mcp.initialize("raw-pipes");
    mcp.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let listed = mcp.answer(2);
    let tools = listed["result"]["tools"].as_array().unwrap();
    let schema = |name: &str| -> Value {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("no {name}: {listed}"))["inputSchema"]
            .clone()
    };
    let grade = &schema("memory_grade")["properties"]["grade"];
    assert_eq!(grade["minimum"], 0, "{grade}");
    assert_eq!(grade["maximum"], 5, "{grade}");
    let recall = schema("memory_recall");
    let limit = &recall["properties"]["limit"];
    assert_eq!(limit["minimum"], 1, "{limit}");
    assert_eq!(limit["maximum"], 100, "{limit}");
    let tier = &recall["properties"]["tier"];
    assert_eq!(tier["type"], "string", "{tier}");
    assert_eq!(tier["enum"], json!(["l1", "l2", "l3", "l4"]), "{tier}");
    let search = schema("engram_search");
    assert_eq!(search["properties"]["limit"]["maximum"], 100, "{search}");
    assert_eq!(search["properties"]["tags"]["type"], "array", "{search}");
    let list = schema("memory_list");
    assert_eq!(list["properties"]["limit"]["minimum"], 1, "{list}");
    assert_eq!(list["properties"]["limit"]["maximum"], 500, "{list}");
    assert_eq!(
        list["properties"]["status"]["enum"],
        json!(["live", "superseded", "archived", "forgotten", "purged"]),
        "{list}"
    );
    assert_eq!(
        schema("memory_verdict")["properties"]["verdict"]["enum"],
        json!(["keep-a", "keep-b", "keep-both", "shelve"])
    );
    assert_eq!(
        schema("memory_entities")["properties"]["category"]["enum"],
        json!(["person", "project", "tool", "file", "organisation", "place"])
    );
    assert_eq!(
        schema("memory_update")["required"],
        json!(["id", "content"]),
        "the update's schema"
    );
    for tool in tools {
        // Every tool has a title, and annotations that say what it does.
        assert!(tool["title"].is_string(), "no title: {tool}");
        let notes = &tool["annotations"];
        assert_eq!(notes["title"], tool["title"], "{tool}");
        for hint in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            assert!(notes[hint].is_boolean(), "{hint} missing: {tool}");
        }
        assert_eq!(notes["openWorldHint"], false, "{tool}");
    }
    for tool in tools {
        let mut found = Vec::new();
        indirections(&tool["inputSchema"], "", &mut found);
        assert!(found.is_empty(), "{}: {found:?}", tool["name"]);
    }

    // Out of range, the tools answer what the CLI and HTTP answer.
    let call = |mcp: &mut RawSession, id: u64, name: &str, arguments: Value| -> String {
        mcp.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                "name": name, "arguments": arguments,
            }}),
        );
        let answer = mcp.answer(id);
        assert_eq!(answer["result"]["isError"], true, "{answer}");
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        call(
            &mut mcp,
            3,
            "memory_recall",
            json!({"query": "disk", "limit": 0})
        ),
        "bad_request: limit 0 is outside 1-100"
    );
    assert!(
        call(&mut mcp, 4, "memory_grade", json!({"id": 1, "grade": 7}))
            .starts_with("bad_request: grade 7 is outside 0-5"),
    );
    drop(mcp.stdin.take());
    mcp.child.wait(WAIT).expect("engram mcp did not exit");
}

#[test]
fn request_type_schemas_state_the_real_limits_and_plain_enums() {
    fn schema<T: schemars::JsonSchema>() -> Value {
        serde_json::to_value(
            schemars::generate::SchemaSettings::draft2020_12()
                .into_generator()
                .into_root_schema_for::<T>(),
        )
        .unwrap()
    }
    use engram::api::{
        ForgetRequest, GradeRequest, MaintainRequest, RecallRequest, RememberRequest,
        VerdictRequest,
    };
    let grade = schema::<GradeRequest>();
    assert_eq!(grade["properties"]["grade"]["maximum"], 5, "{grade}");
    assert_eq!(grade["properties"]["by"]["enum"], json!(["user", "model"]));
    let recall = schema::<RecallRequest>();
    assert_eq!(recall["properties"]["limit"]["minimum"], 1, "{recall}");
    assert_eq!(recall["properties"]["limit"]["maximum"], 100, "{recall}");
    let remember = schema::<RememberRequest>();
    assert_eq!(
        remember["properties"]["tier"],
        json!({
            "type": "string",
            "enum": ["l1", "l2", "l3", "l4"],
            "description": "l1 (a session memory: the default when `session` is named), l3\n(cross-session: the default otherwise) or l2 (workspace document)."
        })
    );
    let tier = schema::<engram::api::TierRequest>();
    assert_eq!(
        tier["properties"]["tier"]["enum"],
        json!(["l1", "l2", "l3", "l4"])
    );
    assert_eq!(tier["required"], json!(["tier"]), "{tier}");
    let verdict = schema::<VerdictRequest>();
    assert_eq!(
        verdict["properties"]["verdict"]["enum"],
        json!(["keep-a", "keep-b", "keep-both", "shelve"]),
        "{verdict}"
    );
    for (name, s) in [
        ("grade", grade),
        ("recall", recall),
        ("remember", remember),
        ("verdict", verdict),
        ("forget", schema::<ForgetRequest>()),
        ("maintain", schema::<MaintainRequest>()),
    ] {
        let mut found = Vec::new();
        indirections(&s, "", &mut found);
        assert!(found.is_empty(), "{name}: {found:?}: {s}");
    }
}

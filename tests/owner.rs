//! One owner per store, many clients: `engram mcp` sessions are thin
//! clients of one daemon that owns the store over its socket.
//!
//! Invariants checked: two MCP sessions on one store at once each see the
//! other's memories; a CLI recall while they run goes through the owner;
//! many sessions starting at once on a fresh store make one owner and one
//! key, and every acknowledged memory verifies; a stale socket is replaced
//! and a file that is not a socket is a clear error; a daemon exits when
//! idle; an owner of another version is named, not used.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(60);

fn engram_cmd(store: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_engram"));
    cmd.arg("--store")
        .arg(store)
        .env_remove("ENGRAM_HMAC_KEY")
        .env_remove("ENGRAM_HOME")
        .env_remove("ENGRAM_MODEL_DIR")
        // Daemons started here leave soon after the test.
        .env("ENGRAM_DAEMON_IDLE", "20s");
    cmd
}

/// Stops the store's daemon, if any, when dropped.
struct StopDaemon<'a>(&'a Path);

impl Drop for StopDaemon<'_> {
    fn drop(&mut self) {
        let _ = engram_cmd(self.0).args(["daemon", "stop"]).output();
    }
}

struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: mpsc::Receiver<String>,
    next: u64,
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Session {
    fn start(store: &Path) -> Self {
        let mut child = engram_cmd(store)
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut session = Self {
            child,
            stdin,
            stdout: rx,
            next: 1,
        };
        let init = session.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "owner-test", "version": "1"}}),
        );
        assert!(init.get("result").is_some(), "{init}");
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + WAIT;
        loop {
            let line = match self
                .stdout
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(line) => line,
                Err(e) => {
                    let _ = self.child.kill();
                    let mut err = String::new();
                    let _ = self.child.stderr.take().unwrap().read_to_string(&mut err);
                    panic!("no answer to {method} within {WAIT:?} ({e}); stderr:\n{err}");
                }
            };
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    }

    /// A tool's text answer; panics on a tool error.
    fn tool(&mut self, name: &str, arguments: Value) -> String {
        let answer = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        let result = &answer["result"];
        assert_ne!(result["isError"], true, "{name}: {answer}");
        result["content"][0]["text"].as_str().unwrap().to_owned()
    }
}

fn owner_pid(store: &Path) -> Option<u64> {
    let out = engram_cmd(store)
        .args(["daemon", "status", "--json"])
        .output()
        .unwrap();
    let status: Value = serde_json::from_slice(&out.stdout).unwrap();
    status["owner"]["pid"].as_u64()
}

#[test]
fn two_mcp_sessions_share_one_owner_and_a_cli_recall_goes_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let _stop = StopDaemon(&store);
    let mut a = Session::start(&store);
    let mut b = Session::start(&store);
    let saved_a = a.tool(
        "memory_remember",
        json!({"content": "The staging cluster is called heron and lives in Frankfurt"}),
    );
    let saved_b = b.tool(
        "memory_remember",
        json!({"content": "Release trains leave on Tuesdays after the standup"}),
    );
    let id_a: Value = serde_json::from_str(&saved_a).unwrap();
    let id_b: Value = serde_json::from_str(&saved_b).unwrap();
    // Each session recalls the other's memory.
    let found = a.tool("memory_recall", json!({"query": "release trains Tuesdays"}));
    assert!(found.contains(id_b["id"].as_str().unwrap()), "{found}");
    let found = b.tool("memory_recall", json!({"query": "staging cluster heron"}));
    assert!(found.contains(id_a["id"].as_str().unwrap()), "{found}");
    let expanded = b.tool("memory_expand", json!({"id": id_a["id"]}));
    assert!(expanded.contains("Frankfurt"), "{expanded}");

    // A CLI recall while both sessions run: answered by the one owner.
    assert!(owner_pid(&store).is_some());
    let out = engram_cmd(&store)
        .args(["recall", "heron Frankfurt", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hits: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(hits["hits"][0]["id"], id_a["id"], "{hits}");
    let out = engram_cmd(&store)
        .args(["recall", "heron", "--in-process"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is owned by pid"), "{err}");
}

#[test]
fn sessions_starting_at_once_on_a_fresh_store_make_one_owner_and_one_key() {
    for round in 0..20 {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store");
        let _stop = StopDaemon(&store);
        let ids: Vec<String> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|i| {
                    let store = &store;
                    s.spawn(move || {
                        let mut session = Session::start(store);
                        let saved = session.tool(
                            "memory_remember",
                            json!({"content": format!("Round {round} writer {i} prefers the blue notebook number {i}")}),
                        );
                        let saved: Value = serde_json::from_str(&saved).unwrap();
                        saved["id"].as_str().unwrap().to_owned()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut unique = ids.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 4, "round {round}: {ids:?}");
        let _ = engram_cmd(&store)
            .args(["daemon", "stop"])
            .output()
            .unwrap();
        let out = engram_cmd(&store).arg("verify").output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "round {round}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        for id in &ids {
            let out = engram_cmd(&store).args(["expand", id]).output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "round {round} {id}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let leftovers: Vec<_> = std::fs::read_dir(&store)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.contains("tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
}

#[test]
fn a_stale_socket_is_replaced_and_a_foreign_file_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    std::fs::create_dir_all(&store).unwrap();
    let _stop = StopDaemon(&store);
    let socket = store.join("engram.sock");
    // A socket whose owner died.
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    let mut session = Session::start(&store);
    let saved = session.tool(
        "memory_remember",
        json!({"content": "The office plants are watered on Mondays"}),
    );
    assert!(saved.contains("\"new\""), "{saved}");
    drop(session);
    let _ = engram_cmd(&store)
        .args(["daemon", "stop"])
        .output()
        .unwrap();
    // A plain file where the socket goes: a clear error, the store intact.
    std::fs::write(&socket, b"not a socket").unwrap();
    let out = engram_cmd(&store).args(["daemon"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not a socket"), "{err}");
    let out = engram_cmd(&store).arg("verify").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn an_idle_daemon_exits() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let _stop = StopDaemon(&store);
    let out = engram_cmd(&store)
        .args(["daemon", "--detach", "--idle", "1s"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(owner_pid(&store).is_some());
    let deadline = Instant::now() + WAIT;
    while owner_pid(&store).is_some() {
        assert!(
            Instant::now() < deadline,
            "the daemon did not exit when idle"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let log = std::fs::read_to_string(store.join("daemon.log")).unwrap();
    assert!(log.contains("idle"), "{log}");
    assert!(!store.join("engram.sock").exists());
}

#[test]
fn an_owner_of_another_version_is_named_not_used() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    std::fs::create_dir_all(&store).unwrap();
    let listener = std::os::unix::net::UnixListener::bind(store.join("engram.sock")).unwrap();
    let fake = std::thread::spawn(move || {
        // Answers every connection as an `engram serve` of version 0.0.1.
        for stream in listener.incoming().take(2) {
            let mut stream = stream.unwrap();
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let body = r#"{"ok":true,"name":"engram","version":"0.0.1"}"#;
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nx-engram-version: 0.0.1\r\nx-engram-pid: 1\r\nx-engram-owner: serve\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let out = engram_cmd(&store)
        .arg("mcp")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("0.0.1") && err.contains(env!("CARGO_PKG_VERSION")),
        "{err}"
    );
    let out = engram_cmd(&store)
        .args(["recall", "anything"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("runs version 0.0.1"), "{err}");
    fake.join().unwrap();
}

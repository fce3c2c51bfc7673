//! One owner per store, many clients: `engram mcp` sessions are thin
//! clients of one daemon that owns the store over its socket.
//!
//! Invariants checked: two MCP sessions on one store at once each see the
//! other's memories; a CLI recall while they run goes through the owner;
//! many sessions starting at once on a fresh store make one owner and one
//! key, and every acknowledged memory verifies; a stale socket is replaced
//! and a file that is not a socket is a clear error; a daemon exits when
//! idle; an owner of another version is named, not used; a command sends
//! its request at once, carrying its version, and an owner refuses a
//! client of another version without running its request.

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
        .args(["remember", "anything at all"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("runs version 0.0.1"), "{err}");
    fake.join().unwrap();
    // Nothing was written behind the other owner's back.
    assert!(!store.join("log").exists());
}

#[test]
fn two_sdk_sessions_on_one_project_store_see_each_others_memories() {
    let Some(python) = crate::mcp_client::python() else {
        return;
    };
    let world = crate::memory_scopes::World::new();
    let project = world.repo("shop", "https://example.com/team/shop.git");
    let out = Command::new(&python)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/mcp_two_sessions.py"
        ))
        .arg(env!("CARGO_BIN_EXE_engram"))
        .arg(&project)
        .env("ENGRAM_HOME", &world.home)
        .env("ENGRAM_DAEMON_IDLE", "20s")
        .env_remove("ENGRAM_HMAC_KEY")
        .env_remove("ENGRAM_MODEL_DIR")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let ids: Value = serde_json::from_slice(&out.stdout).unwrap();
    // One owner for the engram home served both, and a terminal's recall
    // in the repository goes through it too.
    let status = world.run(&project, &["daemon", "status", "--json"], 0);
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["owner"]["kind"], "daemon", "{status}");
    let out = world.run(&project, &["recall", "walnut notebook", "--json"], 0);
    let hits: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(hits["hits"][0]["id"], ids["b"], "{hits}");
    world.run(&project, &["daemon", "stop"], 0);
}

/// Saves in a loop through the CLI until told to stop, retrying a save
/// that failed (its owner was killed under it); answers the ids it was
/// given, each acknowledged by exit 0.
fn save_until(store: &Path, writer: usize, stop: &std::sync::atomic::AtomicBool) -> Vec<String> {
    let mut acknowledged = Vec::new();
    let mut n = 0;
    while !stop.load(std::sync::atomic::Ordering::SeqCst) {
        let out = engram_cmd(store)
            .args([
                "remember",
                &format!("Writer {writer} notes fact number {n} about the quartz ledger"),
                "--json",
            ])
            .output()
            .unwrap();
        if out.status.success() {
            let receipt: Value = serde_json::from_slice(&out.stdout).unwrap();
            acknowledged.push(receipt["id"].as_str().unwrap().to_owned());
            n += 1;
        }
    }
    acknowledged
}

/// Sets the flag when dropped: writers stop even when the test panics.
struct StopOnDrop<'a>(&'a std::sync::atomic::AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn killing_the_owner_under_load_loses_nothing_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let _stop = StopDaemon(&store);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut kills = 0;
    let acknowledged: Vec<String> = std::thread::scope(|s| {
        let writers: Vec<_> = (0..3)
            .map(|w| {
                let (store, stop) = (&store, &stop);
                s.spawn(move || save_until(store, w, stop))
            })
            .collect();
        let stopping = StopOnDrop(&stop);
        for round in 0..20 {
            // Wait for an owner that has taken some saves, then kill it.
            let deadline = Instant::now() + WAIT;
            let pid = loop {
                if let Some(pid) = owner_pid(&store) {
                    break pid;
                }
                assert!(Instant::now() < deadline, "round {round}: no owner came up");
                std::thread::sleep(Duration::from_millis(20));
            };
            std::thread::sleep(Duration::from_millis(150));
            let raw = i32::try_from(pid).unwrap();
            let target = rustix::process::Pid::from_raw(raw).unwrap();
            rustix::process::kill_process(target, rustix::process::Signal::KILL)
                .unwrap_or_else(|e| panic!("round {round}: killing {pid}: {e}"));
            kills += 1;
            let deadline = Instant::now() + WAIT;
            while owner_pid(&store) == Some(pid) {
                assert!(
                    Instant::now() < deadline,
                    "round {round}: the killed owner {pid} still answers"
                );
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        drop(stopping);
        writers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    assert_eq!(kills, 20);
    assert!(acknowledged.len() >= 20, "{}", acknowledged.len());
    let _ = engram_cmd(&store).args(["daemon", "stop"]).output();
    let out = engram_cmd(&store).arg("verify").output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Every acknowledged memory is there and verifies: one expand each,
    // in-process so the check reads the store as it is on disk.
    let mut unique = acknowledged.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        acknowledged.len(),
        "an id was handed out twice"
    );
    for id in &acknowledged {
        let out = engram_cmd(&store)
            .args(["--in-process", "expand", id, "--json"])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{id}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let expansion: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(expansion["verified"], true, "{expansion}");
    }
}

#[test]
fn garbage_from_the_socket_is_a_clear_error_and_nothing_is_written() {
    let cases: [(&[u8], &str); 3] = [
        (
            b"\x00\xffnot http at all",
            "did not answer as an engram owner",
        ),
        (
            b"HTTP/1.1 200 OK\r\nx-engram-version: 0.1.0\r\n",
            "did not answer as an engram owner",
        ),
        (
            b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}",
            "does not name an engram owner",
        ),
    ];
    for (reply, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store");
        std::fs::create_dir_all(&store).unwrap();
        let socket = store.join("engram.sock");
        let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stop = std::sync::Arc::clone(&done);
        // Answers the same garbage to every connection until told to stop.
        let fake = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop.load(std::sync::atomic::Ordering::SeqCst) {
                    break;
                }
                let mut stream = stream.unwrap();
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf);
                let _ = stream.write_all(reply);
            }
        });
        let out = engram_cmd(&store)
            .args(["remember", "a fact that must not be lost"])
            .output()
            .unwrap();
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = std::os::unix::net::UnixStream::connect(&socket);
        fake.join().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expected), "{err}");
        assert!(!store.join("log").exists());
    }
}

#[test]
fn a_client_dropping_its_request_leaves_the_owner_serving() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let _stop = StopDaemon(&store);
    let out = engram_cmd(&store)
        .args(["remember", "The lighthouse keeper logs the tide at dawn"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let pid = owner_pid(&store).unwrap();
    let socket = store.join("engram.sock");
    // A head cut short, a body cut short, and a request whose answer is
    // never read: each connection simply closes.
    let partial: [&[u8]; 3] = [
        b"POST /api/remember HTTP/1.1\r\nHost: localhost\r\nContent-Le",
        b"POST /api/remember HTTP/1.1\r\nHost: localhost\r\nx-engram-stores: .\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{\"content\": \"half",
        b"POST /api/recall HTTP/1.1\r\nHost: localhost\r\nx-engram-stores: .\r\nContent-Type: application/json\r\nContent-Length: 21\r\n\r\n{\"query\": \"lighthouse\"}",
    ];
    for bytes in partial {
        let mut stream = std::os::unix::net::UnixStream::connect(&socket).unwrap();
        stream.write_all(bytes).unwrap();
        drop(stream);
    }
    // A client process killed while it waits.
    let mut child = engram_cmd(&store)
        .args(["recall", "tide dawn"])
        .spawn()
        .unwrap();
    child.kill().unwrap();
    let _ = child.wait();
    let out = engram_cmd(&store)
        .args(["recall", "lighthouse tide", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(owner_pid(&store), Some(pid), "the owner changed");
    let hits: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(hits["hits"].as_array().unwrap().len(), 1, "{hits}");
}

#[test]
fn a_store_folder_that_cannot_be_made_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain-file");
    std::fs::write(&file, b"in the way").unwrap();
    let out = engram_cmd(&file.join("store"))
        .args(["remember", "nowhere to go"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("creating store folder"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), b"in the way");
}

#[test]
fn a_peer_of_another_uid_is_refused() {
    // Needs root to run a peer as another user.
    if !rustix::process::getuid().is_root() {
        eprintln!("skipped: not root, so no peer of another uid can be made");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let _stop = StopDaemon(&store);
    let out = engram_cmd(&store)
        .args(["remember", "The vault code rotates monthly"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    // Open the folder and the socket to everyone, so only the uid check
    // stands between another user and the store.
    use std::os::unix::fs::PermissionsExt as _;
    for path in [
        dir.path().to_owned(),
        store.clone(),
        store.join("engram.sock"),
    ] {
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    let script = format!(
        "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ns.connect({:?})\ns.settimeout(30)\ntry:\n    s.sendall(b'GET /api/health HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n')\n    got = s.recv(4096)\nexcept (ConnectionResetError, BrokenPipeError):\n    got = b''\nsys.stdout.write(repr(got))\n",
        store.join("engram.sock").display().to_string()
    );
    use std::os::unix::process::CommandExt as _;
    let out = Command::new("python3")
        .args(["-c", &script])
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Closed unanswered: nothing read.
    assert_eq!(String::from_utf8_lossy(&out.stdout), "b''");
    // And the owner still serves its own user.
    let out = engram_cmd(&store)
        .args(["recall", "vault code"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

/// A stand-in daemon of another engram version: a Python process that
/// answers every request as `daemon` version 0.0.1 with its own pid, and
/// exits on SIGTERM (as a real daemon does, after closing its stores).
const OLD_DAEMON: &str = r#"
import os, signal, socket, sys
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
path = sys.argv[1]
server = socket.socket(socket.AF_UNIX)
server.bind(path)
server.listen(16)
print("ready", flush=True)
while True:
    conn, _ = server.accept()
    request = conn.recv(65536).lower()
    # As an owner does: a request of a client of another version is
    # refused unrun.
    if b"x-engram-client-version:" in request and b"x-engram-client-version: 0.0.1" not in request:
        status, body = b"409 Conflict", b'{"error":"version_mismatch","message":"not run"}'
    else:
        status, body = b"200 OK", b'{"ok":true}'
    conn.sendall(b"HTTP/1.1 %s\r\nx-engram-version: 0.0.1\r\nx-engram-pid: %d\r\n"
                 b"x-engram-owner: daemon\r\ncontent-length: %d\r\n\r\n%s"
                 % (status, os.getpid(), len(body), body))
    conn.close()
"#;

#[test]
fn a_daemon_of_another_version_is_replaced_and_nothing_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let _stop = StopDaemon(&store);
    // A memory saved under a daemon of this version, which then stops.
    let out = engram_cmd(&store)
        .args(["remember", "The greenhouse opens at seven", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let first: Value = serde_json::from_slice(&out.stdout).unwrap();
    let out = engram_cmd(&store)
        .args(["daemon", "stop"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    // An older daemon takes the socket.
    let mut old = Command::new("python3")
        .args(["-c", OLD_DAEMON])
        .arg(store.join("engram.sock"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut ready = String::new();
    BufReader::new(old.stdout.take().unwrap())
        .read_line(&mut ready)
        .unwrap();
    assert_eq!(ready.trim(), "ready");
    // Reaped as soon as it exits, as an orphaned daemon would be.
    let old = std::thread::spawn(move || old.wait().unwrap());
    let out = engram_cmd(&store)
        .args(["remember", "The greenhouse closes at nine", "--json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("runs version 0.0.1") && err.contains("restarting"),
        "{err}"
    );
    // The old one was stopped, and a daemon of this version owns the store.
    let status = old.join().unwrap();
    assert!(status.success(), "{status}");
    let out = engram_cmd(&store)
        .args(["daemon", "status", "--json"])
        .output()
        .unwrap();
    let status: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(status["owner"]["version"], env!("CARGO_PKG_VERSION"));
    // Both memories are there.
    let out = engram_cmd(&store)
        .args(["recall", "greenhouse", "--json", "--limit", "5"])
        .output()
        .unwrap();
    let hits: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = hits["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&first["id"].as_str().unwrap()), "{hits}");
    assert_eq!(ids.len(), 2, "{hits}");
}

/// A recall's `recalled` event is queued, not waited for, so `engram log`
/// and `export` reading the files right after could end an event short
/// (an export that then imported into a different store). They now ask the
/// owner to write what it queued first.
#[test]
fn log_and_export_right_after_a_recall_ended_an_event_short() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let _daemon = StopDaemon(&store);
    let run = |args: &[&str]| {
        let out = engram_cmd(&store).args(args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    run(&["remember", "The staging database is restored every Monday"]);
    for round in 0..10 {
        run(&["recall", "staging database", "--json"]);
        let log = run(&["log", "--json"]);
        let last: Value =
            serde_json::from_str(std::str::from_utf8(&log).unwrap().lines().last().unwrap())
                .unwrap();
        assert_eq!(last["kind"], "recalled", "round {round}: {last}");
        run(&["recall", "restored Monday", "--json"]);
        let export = String::from_utf8(run(&["export"])).unwrap();
        let n_events = export.lines().filter(|l| l.contains("\"seq\"")).count();
        assert_eq!(
            n_events as u64,
            last["seq"].as_u64().unwrap() + 1,
            "round {round}: the export holds the second recall's event"
        );
    }
}

/// A command's request goes to the owner at once, carrying this engram's
/// version: no probe of who owns the store before it (a command line
/// call pays for every round trip).
#[test]
fn a_command_sends_one_request_carrying_its_version() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    // A store with a log, written in-process: no owner runs.
    let out = engram_cmd(&store)
        .args(["--in-process", "remember", "The bakery opens at six"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let listener = std::os::unix::net::UnixListener::bind(store.join("engram.sock")).unwrap();
    let (heads, received) = mpsc::channel();
    // Answers each connection as an owner of this version, one hit, and
    // hands over the head of each request it read.
    let fake = std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let mut buf = vec![0u8; 65536];
            let n = stream.read(&mut buf).unwrap_or(0);
            let request = String::from_utf8_lossy(&buf[..n]).into_owned();
            let last = request.starts_with("GET /stop");
            let body = json!({"hits": [{"id": "s:2", "coordinate": "bakery#1", "score": 1.0,
                                        "text": "The bakery opens at six", "trust": 0.7, "scope": "store"}],
                              "mode": "keyword", "context": ""})
            .to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nx-engram-version: {}\r\nx-engram-pid: 1\r\nx-engram-owner: daemon\r\ncontent-length: {}\r\n\r\n{body}",
                env!("CARGO_PKG_VERSION"),
                body.len()
            );
            heads.send(request).unwrap();
            if last {
                break;
            }
        }
    });
    let out = engram_cmd(&store)
        .args(["recall", "bakery", "--json"])
        .output()
        .unwrap();
    let mut stop = std::os::unix::net::UnixStream::connect(store.join("engram.sock")).unwrap();
    stop.write_all(b"GET /stop HTTP/1.1\r\n\r\n").unwrap();
    let mut ignored = Vec::new();
    let _ = stop.read_to_end(&mut ignored);
    fake.join().unwrap();
    let requests: Vec<String> = received
        .try_iter()
        .filter(|r| !r.starts_with("GET /stop"))
        .collect();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["hits"][0]["id"], "s:2", "{answer}");
    assert_eq!(requests.len(), 1, "{requests:#?}");
    assert!(
        requests[0].starts_with("POST /api/recall "),
        "{requests:#?}"
    );
    let header = format!("x-engram-client-version: {}\r\n", env!("CARGO_PKG_VERSION"));
    assert!(
        requests[0].to_ascii_lowercase().contains(&header),
        "{requests:#?}"
    );
}

/// An owner refuses a request from a client of another version before
/// it runs: `409 version_mismatch` with its own headers, nothing saved.
#[test]
fn an_owner_refuses_a_client_of_another_version_unrun() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let _stop = StopDaemon(&store);
    let out = engram_cmd(&store)
        .args(["remember", "The ferry leaves at noon"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let send = |client_version: &str| {
        let body = r#"{"content":"The ferry carries bicycles for free"}"#;
        let mut stream =
            std::os::unix::net::UnixStream::connect(store.join("engram.sock")).unwrap();
        // One write, as the client sends it: the owner answers a refusal
        // without reading the body.
        let request = format!(
            "POST /api/remember HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nx-engram-client-version: {client_version}\r\nx-engram-stores: .\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    };
    for other in ["0.0.1", "99.0.0", ""] {
        let answer = send(other);
        assert!(answer.starts_with("HTTP/1.1 409"), "{answer}");
        let lower = answer.to_ascii_lowercase();
        assert!(
            lower.contains(&format!("x-engram-version: {}", env!("CARGO_PKG_VERSION"))),
            "{answer}"
        );
        assert!(answer.contains("\"version_mismatch\""), "{answer}");
        assert!(answer.contains("the request was not run"), "{answer}");
    }
    // Nothing of those was saved; the same request of this version is.
    let count = || {
        let out = engram_cmd(&store)
            .args(["recall", "ferry", "--json", "--limit", "10"])
            .output()
            .unwrap();
        let hits: Value = serde_json::from_slice(&out.stdout).unwrap();
        hits["hits"].as_array().unwrap().len()
    };
    assert_eq!(count(), 1);
    let answer = send(env!("CARGO_PKG_VERSION"));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert_eq!(count(), 2);
}

/// A command whose request meets a stale socket (nothing sent) starts a
/// daemon and sends it there.
#[test]
fn a_command_on_a_stale_socket_starts_the_daemon_and_sends_its_request() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    std::fs::create_dir_all(&store).unwrap();
    let _stop = StopDaemon(&store);
    drop(std::os::unix::net::UnixListener::bind(store.join("engram.sock")).unwrap());
    let out = engram_cmd(&store)
        .args(["remember", "The orchard is pruned in February", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(owner_pid(&store).is_some());
    let out = engram_cmd(&store)
        .args(["recall", "orchard pruned", "--json"])
        .output()
        .unwrap();
    let hits: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(hits["hits"].as_array().map(Vec::len), Some(1), "{hits}");
}

//! A running `engram serve` for the tests that talk to it (the HTTP API
//! tests and the panel's browser test), and a minimal HTTP/1.1 client.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A running `engram serve`, killed on drop.
pub struct Server {
    child: Child,
    pub addr: String,
    /// Everything it printed on stderr so far.
    pub stderr: Arc<Mutex<Vec<String>>>,
    _home: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Starts `engram --store STORE serve --addr ADDR` with `env`, and waits
    /// (with a deadline) for the line naming the bound address.
    pub fn start(store: &Path, addr: &str, env: &[(&str, &str)]) -> Self {
        let home = tempfile::tempdir().unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_engram"));
        command
            .arg("--store")
            .arg(store)
            .args(["serve", "--addr", addr])
            .env("ENGRAM_HOME", home.path());
        Self::spawn(command, env, home)
    }

    /// Starts `engram serve` in `cwd` with the engram home `home`: the
    /// store is the scope's (the project's inside a git repository).
    pub fn start_in(cwd: &Path, home: &Path) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_engram"));
        command
            .args(["serve", "--addr", "127.0.0.1:0"])
            .current_dir(cwd)
            .env("ENGRAM_HOME", home);
        Self::spawn(command, &[], tempfile::tempdir().unwrap())
    }

    fn spawn(mut command: Command, env: &[(&str, &str)], home: tempfile::TempDir) -> Self {
        command
            .env_remove("ENGRAM_HMAC_KEY")
            .env_remove("ENGRAM_TOKEN")
            .env_remove("ENGRAM_MODEL_DIR")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().unwrap();
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let lines = Arc::clone(&stderr);
        let pipe = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                lines.lock().unwrap().push(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let addr = loop {
            let found = stderr.lock().unwrap().iter().find_map(|line| {
                let at = line.split(" at http://").nth(1)?;
                Some(at.split('/').next()?.to_owned())
            });
            if let Some(addr) = found {
                break addr;
            }
            if let Some(status) = child.try_wait().unwrap() {
                panic!(
                    "engram serve exited with {status}: {:?}",
                    stderr.lock().unwrap()
                );
            }
            assert!(
                Instant::now() < deadline,
                "engram serve did not start: {:?}",
                stderr.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        Self {
            child,
            addr,
            stderr,
            _home: home,
        }
    }

    /// Stops the server as an operator would (SIGTERM) and checks that it
    /// shuts down cleanly, persisting its views.
    pub fn stop(mut self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(60);
        let exit = loop {
            if let Some(exit) = self.child.try_wait().unwrap() {
                break exit;
            }
            assert!(Instant::now() < deadline, "engram serve did not stop");
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(exit.success(), "{exit}: {:?}", self.stderr.lock().unwrap());
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self
            .stderr
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains("views persisted") || l.contains("stay with their owner"))
        {
            assert!(
                Instant::now() < deadline,
                "{:?}",
                self.stderr.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends one request and reads the whole answer.
    pub fn send(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        send(&self.addr, method, path, headers, body)
    }

    /// `http://ADDR` + `path`, for a browser.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn get(&self, path: &str) -> Reply {
        self.send("GET", path, &[], b"")
    }

    pub fn post(&self, path: &str, body: &Value) -> Reply {
        self.send(
            "POST",
            path,
            &[("Content-Type", "application/json")],
            body.to_string().as_bytes(),
        )
    }
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "status {}: body is not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Asserts the status and a JSON error body with this code and a message.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) -> String {
        let body = self.json();
        assert_eq!(self.status, status, "{body}");
        assert_eq!(body["error"], code, "{body}");
        let message = body["message"].as_str().unwrap_or_default().to_owned();
        assert!(!message.is_empty(), "an error says what went wrong: {body}");
        message
    }

    #[track_caller]
    pub fn ok(&self) -> Value {
        let body = self.json();
        assert_eq!(self.status, 200, "{body}");
        body
    }
}

/// A minimal HTTP/1.1 client: one request per connection.
pub fn send(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    stream.write_all(head.as_bytes()).unwrap();
    // The server may answer (413) before reading a large body and close.
    let _ = stream.write_all(body);
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP head in {:?}", String::from_utf8_lossy(&raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers.iter().any(|(n, v)| {
        n.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        body = dechunk(&body);
    }
    Reply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(end) = data.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size = usize::from_str_radix(
            std::str::from_utf8(&data[..end])
                .unwrap()
                .split(';')
                .next()
                .unwrap()
                .trim(),
            16,
        )
        .unwrap();
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[end + 2..end + 2 + size]);
        data = &data[end + 2 + size + 2..];
    }
}

//! A client of a store's owner over its Unix socket ([`crate::owner`]).
//!
//! The owner serves the HTTP router, so the client speaks HTTP/1.1: one
//! request per connection (`Connection: close`), a JSON body, the answer
//! read to its end. It is small and blocking on purpose: a command line
//! call makes one request and exits, and an async HTTP client (hyper's)
//! would start a runtime and pull in connection pooling for that one
//! request. Every request carries this engram's version
//! ([`CLIENT_VERSION_HEADER`]), and an owner of another version refuses
//! it before it runs, so a command needs no probe of the owner before its
//! request. Every answer must carry the owner's version header: an answer
//! without it is not engram's, and one of another version is refused
//! (the caller decides whether to restart the owner).

use std::io::{Read as _, Write as _};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::api::{ApiError, ErrorCode};
use crate::owner::{
    CLIENT_VERSION_HEADER, KIND_HEADER, PID_HEADER, STORES_HEADER, VERSION, VERSION_HEADER,
};

/// The first read of an answer: most answers fit.
const REPLY_READ_CHUNK: usize = 16 * 1024;

/// Largest answer a client reads (an export is read from files, never
/// through the owner).
pub const REPLY_BYTES_MAX: usize = 256 << 20;

/// How long a client waits for an answer by default.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(600);

/// Errors of talking to an owner.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// Nothing listens on the socket (no socket file, or one left by an
    /// owner that is gone, or one that closed before the request reached
    /// it): nothing was sent.
    #[error("no engram owner answers on {path}: {source}")]
    NoOwner {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{op} {path}: {source}")]
    Io {
        op: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The answer is not an engram owner's: garbage, cut short, or without
    /// the owner's headers.
    #[error("{path} did not answer as an engram owner: {reason}")]
    NotEngram { path: PathBuf, reason: String },
    /// The owner runs another version of engram.
    #[error(
        "the engram owner on {path} (pid {pid}, {kind}) runs version {theirs}, this engram is {VERSION}: restart it with this version (`engram daemon stop`, or stop the server holding the store)"
    )]
    Version {
        path: PathBuf,
        theirs: String,
        pid: u32,
        kind: String,
    },
    /// The owner answered with an error.
    #[error(transparent)]
    Api(#[from] ApiError),
}

/// Who answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerId {
    pub version: String,
    pub pid: u32,
    /// `daemon`, `serve` or `app`.
    pub kind: String,
}

/// One answer.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub owner: OwnerId,
    pub body: Value,
}

/// One answer, its body as sent.
#[derive(Debug, Clone)]
pub struct RawReply {
    pub status: u16,
    pub owner: OwnerId,
    pub content_type: String,
    /// `Content-Disposition`, when the answer is a file to save (the export).
    pub disposition: Option<String>,
    pub body: Vec<u8>,
}

/// A client of the owner on one socket.
#[derive(Debug, Clone)]
pub struct Client {
    socket: PathBuf,
    timeout: Duration,
    /// The stores each request spans ([`STORES_HEADER`]).
    stores: Option<String>,
}

impl Client {
    /// A client of the owner listening on `socket`.
    #[must_use]
    pub fn new(socket: impl Into<PathBuf>) -> Self {
        Self {
            socket: socket.into(),
            timeout: REPLY_TIMEOUT,
            stores: None,
        }
    }

    /// Names the stores every request spans, primary first, by their
    /// folder names under the owner's folder (`.` for an owner of one
    /// store folder).
    #[must_use]
    pub fn with_stores(mut self, names: &[String]) -> Self {
        self.stores = Some(names.join(","));
        self
    }

    /// The socket this client talks to.
    #[must_use]
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// Waits at most `timeout` for each answer.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    fn io(&self, op: &'static str) -> impl FnOnce(std::io::Error) -> ClientError + '_ {
        move |source| ClientError::Io {
            op,
            path: self.socket.clone(),
            source,
        }
    }

    fn not_engram(&self, reason: impl Into<String>) -> ClientError {
        ClientError::NotEngram {
            path: self.socket.clone(),
            reason: reason.into(),
        }
    }

    /// Connects, telling "nobody there" apart from other failures.
    ///
    /// # Errors
    /// [`ClientError::NoOwner`] when nothing listens.
    pub fn connect(&self) -> Result<UnixStream, ClientError> {
        UnixStream::connect(&self.socket).map_err(|source| match source.kind() {
            // No socket there, or none listening; a path through a plain
            // file: nothing could own it (starting one says why).
            std::io::ErrorKind::NotFound
            | std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::NotADirectory => ClientError::NoOwner {
                path: self.socket.clone(),
                source,
            },
            _ => ClientError::Io {
                op: "connecting to",
                path: self.socket.clone(),
                source,
            },
        })
    }

    /// Sends one request and reads its answer, whatever its status; the
    /// owner's version is not compared.
    ///
    /// # Errors
    /// When nothing answers, or the answer is not an engram owner's.
    pub fn send(
        &self,
        method: &str,
        target: &str,
        body: Option<&Value>,
    ) -> Result<Reply, ClientError> {
        let body = body.map(Value::to_string).unwrap_or_default();
        let raw = self.send_raw(method, target, body.as_bytes(), "application/json")?;
        let body: Value = serde_json::from_slice(&raw.body)
            .map_err(|e| self.not_engram(format!("the answer is not JSON: {e}")))?;
        Ok(Reply {
            status: raw.status,
            owner: raw.owner,
            body,
        })
    }

    /// Sends one request with any body and reads its answer as bytes,
    /// whatever its status; the owner's version is not compared.
    ///
    /// # Errors
    /// When nothing answers, or the answer is not an engram owner's.
    pub fn send_raw(
        &self,
        method: &str,
        target: &str,
        body: &[u8],
        content_type: &str,
    ) -> Result<RawReply, ClientError> {
        let mut stream = self.connect()?;
        stream
            .set_read_timeout(Some(self.timeout))
            .and_then(|()| stream.set_write_timeout(Some(self.timeout)))
            .map_err(self.io("configuring the connection to"))?;
        let stores = self
            .stores
            .as_ref()
            .map(|names| format!("{STORES_HEADER}: {names}\r\n"))
            .unwrap_or_default();
        let head = format!(
            "{method} {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n{CLIENT_VERSION_HEADER}: {VERSION}\r\n{stores}Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        // One write and reads of 16 KiB: a command line call pays for every
        // system call (a small read buffer grows from 32 bytes).
        let mut request = Vec::with_capacity(head.len() + body.len());
        request.extend_from_slice(head.as_bytes());
        request.extend_from_slice(body);
        stream
            .write_all(&request)
            .and_then(|()| stream.flush())
            .map_err(|source| match source.kind() {
                // The owner closed before the request reached it (it died
                // with this connection waiting): nothing was delivered.
                std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset => {
                    ClientError::NoOwner {
                        path: self.socket.clone(),
                        source,
                    }
                }
                _ => ClientError::Io {
                    op: "sending a request to",
                    path: self.socket.clone(),
                    source,
                },
            })?;
        let mut raw = Vec::with_capacity(REPLY_READ_CHUNK);
        (&mut stream)
            .take(REPLY_BYTES_MAX as u64 + 1)
            .read_to_end(&mut raw)
            .map_err(self.io("reading the answer from"))?;
        if raw.len() > REPLY_BYTES_MAX {
            return Err(self.not_engram(format!("the answer is over {REPLY_BYTES_MAX} bytes")));
        }
        self.parse_raw(&raw)
    }

    #[cfg(test)]
    fn parse(&self, raw: &[u8]) -> Result<Reply, ClientError> {
        let raw = self.parse_raw(raw)?;
        let body: Value = serde_json::from_slice(&raw.body)
            .map_err(|e| self.not_engram(format!("the answer is not JSON: {e}")))?;
        Ok(Reply {
            status: raw.status,
            owner: raw.owner,
            body,
        })
    }

    fn parse_raw(&self, raw: &[u8]) -> Result<RawReply, ClientError> {
        if raw.is_empty() {
            return Err(self.not_engram("the connection closed without an answer"));
        }
        let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
            return Err(
                self.not_engram("the answer has no complete HTTP head (cut short, or not HTTP)")
            );
        };
        let head = std::str::from_utf8(raw.get(..split).unwrap_or_default())
            .map_err(|_| self.not_engram("the answer's head is not text"))?;
        let payload = raw.get(split + 4..).unwrap_or_default();
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap_or_default();
        let status = status_line
            .strip_prefix("HTTP/1.1 ")
            .or_else(|| status_line.strip_prefix("HTTP/1.0 "))
            .and_then(|rest| rest.get(..3))
            .and_then(|code| code.parse::<u16>().ok())
            .ok_or_else(|| self.not_engram(format!("not an HTTP status line: {status_line:?}")))?;
        let mut length = None;
        let mut chunked = false;
        let mut content_type = String::from("application/json");
        let mut disposition = None;
        let (mut version, mut pid, mut kind) = (None, None, None);
        for line in lines {
            let Some((name, value)) = line.split_once(':') else {
                return Err(self.not_engram(format!("a malformed header line: {line:?}")));
            };
            let value = value.trim();
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse::<usize>().ok(),
                "content-type" => value.clone_into(&mut content_type),
                "content-disposition" => disposition = Some(value.to_owned()),
                "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
                n if n == VERSION_HEADER => version = Some(value.to_owned()),
                n if n == PID_HEADER => pid = value.parse::<u32>().ok(),
                n if n == KIND_HEADER => kind = Some(value.to_owned()),
                _ => {}
            }
        }
        let (Some(version), Some(pid), Some(kind)) = (version, pid, kind) else {
            return Err(self.not_engram(
                "the answer does not name an engram owner (no version, pid and kind headers)",
            ));
        };
        let body = if chunked {
            dechunk(payload)
                .ok_or_else(|| self.not_engram("the chunked answer is cut short or malformed"))?
        } else {
            match length {
                Some(n) if payload.len() < n => {
                    return Err(self.not_engram(format!(
                        "the answer was cut short: {} of {n} bytes (did the owner stop?)",
                        payload.len()
                    )));
                }
                Some(n) => payload.get(..n).unwrap_or_default().to_vec(),
                None => payload.to_vec(),
            }
        };
        Ok(RawReply {
            status,
            owner: OwnerId { version, pid, kind },
            content_type,
            disposition,
            body,
        })
    }

    /// One request: the answer's JSON, or the owner's error as an
    /// [`ApiError`] with its code. An owner of another version is refused
    /// before its answer is used ([`ClientError::Version`]); it has not
    /// run the request (it refuses a client of another version).
    ///
    /// # Errors
    /// [`ClientError`].
    pub fn call(
        &self,
        method: &str,
        target: &str,
        body: Option<&Value>,
    ) -> Result<Value, ClientError> {
        let reply = self.send(method, target, body)?;
        self.check_version(&reply.owner)?;
        Ok(answer(reply.status, reply.body)?)
    }

    /// Refuses an owner of another version.
    ///
    /// # Errors
    /// [`ClientError::Version`].
    pub fn check_version(&self, owner: &OwnerId) -> Result<(), ClientError> {
        if owner.version == VERSION {
            Ok(())
        } else {
            Err(ClientError::Version {
                path: self.socket.clone(),
                theirs: owner.version.clone(),
                pid: owner.pid,
                kind: owner.kind.clone(),
            })
        }
    }

    /// Who owns the store (any version): a health request.
    ///
    /// # Errors
    /// When nothing answers, or not as engram.
    pub fn owner(&self) -> Result<OwnerId, ClientError> {
        Ok(self.send("GET", "/api/health", None)?.owner)
    }
}

/// An answer's body, or the error it carries (status 400 and up) as an
/// [`ApiError`] with its code.
///
/// # Errors
/// The error the answer carries.
pub fn answer(status: u16, body: Value) -> Result<Value, ApiError> {
    if status < 400 {
        return Ok(body);
    }
    let code = body["error"]
        .as_str()
        .and_then(ErrorCode::parse)
        .unwrap_or(ErrorCode::Internal);
    let message = body["message"]
        .as_str()
        .map_or_else(|| body.to_string(), str::to_owned);
    let error = ApiError::new(code, message);
    Err(match body.get("details") {
        Some(details) => error.with_details(details.clone()),
        None => error,
    })
}

/// A failure to reach the owner as an API error: the owner's own error as
/// it answered, anything else (no owner, garbage, another version)
/// `internal`, naming the owner.
impl From<ClientError> for ApiError {
    fn from(e: ClientError) -> Self {
        match e {
            ClientError::Api(e) => e,
            other => ApiError::new(ErrorCode::Internal, format!("the store's owner: {other}")),
        }
    }
}

/// The target of a request about memory `id` (`/api/memories/ID/ACTION`),
/// with the `query` pairs that have a value.
#[must_use]
pub fn memory_target(
    id: impl std::fmt::Display,
    action: &str,
    query: &[(&str, Option<&str>)],
) -> String {
    let mut target = format!("/api/memories/{}/{action}", encode(&id.to_string()));
    let mut separator = '?';
    for (name, value) in query {
        if let Some(value) = value {
            target.push(separator);
            target.push_str(&format!("{name}={}", encode(value)));
            separator = '&';
        }
    }
    target
}

/// `path` with the fields of `request` that have a value as its query
/// (`/api/memories?room=deploys&limit=10`): a request whose fields are
/// plain values (strings, numbers, booleans) is also a URL query.
#[must_use]
pub fn query_target(path: &str, request: &serde_json::Value) -> String {
    let mut target = path.to_owned();
    let mut separator = '?';
    for (name, value) in request.as_object().into_iter().flatten() {
        let text = match value {
            serde_json::Value::String(text) => text.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            serde_json::Value::Bool(b) => b.to_string(),
            _ => continue,
        };
        target.push(separator);
        target.push_str(&format!("{}={}", encode(name), encode(&text)));
        separator = '&';
    }
    target
}

/// Percent-encodes a path segment or a query value of a request.
#[must_use]
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b':') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A chunked body decoded; `None` when cut short or malformed.
fn dechunk(mut data: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(data.get(..line_end)?).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        data = data.get(line_end + 2..)?;
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(data.get(..size)?);
        data = data.get(size + 2..)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client() -> Client {
        Client::new("/nonexistent/engram.sock")
    }

    fn head(extra: &str) -> String {
        format!(
            "HTTP/1.1 200 OK\r\n{VERSION_HEADER}: {VERSION}\r\n{PID_HEADER}: 7\r\n{KIND_HEADER}: daemon\r\n{extra}\r\n"
        )
    }

    #[test]
    fn a_good_answer_parses() {
        let raw = format!("{}{{\"ok\":true}}", head("content-length: 11\r\n"));
        let reply = client().parse(raw.as_bytes()).unwrap();
        assert_eq!(reply.status, 200);
        assert_eq!(reply.owner.pid, 7);
        assert_eq!(reply.body["ok"], true);
        let chunked = format!(
            "{}5\r\n{{\"a\":\r\n2\r\n1}}\r\n0\r\n\r\n",
            head("transfer-encoding: chunked\r\n")
        );
        assert_eq!(client().parse(chunked.as_bytes()).unwrap().body["a"], 1);
    }

    #[test]
    fn garbage_truncated_and_foreign_answers_are_told_apart() {
        let cases: [(&[u8], &str); 5] = [
            (b"", "without an answer"),
            (b"\x00\x01garbage", "no complete HTTP head"),
            (
                b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}",
                "does not name an engram owner",
            ),
            (b"SSH-2.0-OpenSSH\r\n\r\n", "not an HTTP status line"),
            (b"", ""),
        ];
        for (raw, expected) in cases.iter().take(4) {
            let err = client().parse(raw).unwrap_err().to_string();
            assert!(err.contains(expected), "{err}");
        }
        let cut = format!("{}{{\"ok\":", head("content-length: 11\r\n"));
        let err = client().parse(cut.as_bytes()).unwrap_err().to_string();
        assert!(err.contains("cut short"), "{err}");
        let not_json = format!("{}<html>", head(""));
        let err = client().parse(not_json.as_bytes()).unwrap_err().to_string();
        assert!(err.contains("not JSON"), "{err}");
    }

    #[test]
    fn another_version_is_refused_naming_both() {
        let owner = OwnerId {
            version: "0.0.1".into(),
            pid: 9,
            kind: "daemon".into(),
        };
        let err = client().check_version(&owner).unwrap_err().to_string();
        assert!(err.contains("0.0.1") && err.contains(VERSION), "{err}");
    }
}

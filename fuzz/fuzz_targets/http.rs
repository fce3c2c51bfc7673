//! Fuzz target `http`: HTTP request parsing, through the whole axum router
//! (`engram::http::router`) called in process with `tower::ServiceExt::oneshot`
//! over a store on disk.
//!
//! A request is built from a method, one of the routes with a fuzzed
//! parameter and query (or a raw target), a `Host`, a content type, extra
//! headers and a body (bytes, or JSON shaped from the requests' field
//! names so the checks behind the JSON parse are reached).
//!
//! Invariants checked:
//! - no panic (a handler's panic on a blocking thread would answer 500);
//! - every answer is 2xx, 3xx or 4xx: never a 5xx;
//! - every answer said to be JSON parses, and every refusal under `/api/`
//!   is the JSON error shape `{"error": code, "message": ...}`.

#![no_main]

use std::sync::{Mutex, OnceLock};

use arbitrary::Arbitrary;
use axum::body::Body;
use axum::http::{Request, header};
use engram::http::{AppState, router};
use engram_fuzz::Fixture;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};
use tower::ServiceExt as _;

const ROUTES: &[&str] = &[
    "/",
    "/panel.css",
    "/panel.js",
    "/api/health",
    "/api/stats",
    "/api/remember",
    "/api/remember/batch",
    "/api/recall",
    "/api/memories/{}",
    "/api/memories/{}/expand",
    "/api/memories/{}/audit",
    "/api/memories/{}/forget",
    "/api/memories/{}/confirm",
    "/api/memories/{}/grade",
    "/api/review",
    "/api/verdicts",
    "/api/verdict",
    "/api/maintain",
    "/api/distill/candidates",
    "/api/distill",
    "/api/entities",
    "/api/palace",
    "/api/palace/{}",
    "/api/renovation",
    "/api/log",
    "/api/verify",
    "/api/reembed",
    "/api/export",
    "/api/ingest",
];

/// Field names the requests take, so fuzzed JSON fits them now and then.
const FIELDS: &[&str] = &[
    "content", "query", "reason", "quote", "grade", "limit", "by", "session", "tags", "room",
    "tier", "a", "b", "verdict", "items", "summary", "dry_run", "members", "rule", "ttl",
    "ttl_ms", "at", "from", "kind", "memory", "audit", "format", "transcript", "text",
    "category", "search", "role", "id", "before", "now",
];

/// Values that mean something to some field.
const WORDS: &[&str] = &[
    "user", "model", "keep-a", "keep-b", "keep-both", "shelve", "L1", "L2", "L3", "L4", "u:2",
    "s:2", "2", "4", "6", "-1", "billing port", "lighthouse", "1970-01-01T00:00:00Z", "",
];

#[derive(Debug, Arbitrary)]
enum Method {
    Get,
    Post,
    Put,
    Delete,
    Options,
    Other(String),
}

#[derive(Debug, Arbitrary)]
enum Target {
    Route {
        route: u8,
        param: Param,
        query: Vec<(Key, Json)>,
    },
    Raw(String),
}

#[derive(Debug, Arbitrary)]
enum Param {
    Word(u8),
    Number(i64),
    Text(String),
}

#[derive(Debug, Arbitrary)]
enum Host {
    Localhost,
    Loopback4,
    Loopback6,
    Missing,
    Other(String),
}

#[derive(Debug, Arbitrary)]
enum ContentType {
    None,
    Json,
    JsonCharset,
    Text,
    Other(String),
}

#[derive(Debug, Arbitrary)]
enum Key {
    Known(u8),
    Any(String),
}

#[derive(Debug, Arbitrary)]
enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Word(u8),
    Text(String),
    Array(Vec<Json>),
    Object(Vec<(Key, Json)>),
}

#[derive(Debug, Arbitrary)]
enum BodyInput {
    Empty,
    Bytes(Vec<u8>),
    Json(Json),
}

#[derive(Debug, Arbitrary)]
struct Input {
    method: Method,
    target: Target,
    host: Host,
    content_type: ContentType,
    headers: Vec<(String, String)>,
    body: BodyInput,
}

fn pick<'a>(list: &[&'a str], n: u8) -> &'a str {
    list[n as usize % list.len()]
}

impl Key {
    fn text(&self) -> String {
        match self {
            Key::Known(n) => pick(FIELDS, *n).to_owned(),
            Key::Any(s) => s.clone(),
        }
    }
}

impl Json {
    fn value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Int(n) => Value::from(*n),
            Json::Float(f) => Value::from(*f),
            Json::Word(n) => Value::from(pick(WORDS, *n)),
            Json::Text(s) => Value::from(s.as_str()),
            Json::Array(items) => Value::Array(items.iter().map(Json::value).collect()),
            Json::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, v)| (k.text(), v.value()))
                    .collect::<Map<_, _>>(),
            ),
        }
    }

    /// As a query value: strings bare, anything else as JSON.
    fn query_text(&self) -> String {
        match self.value() {
            Value::String(s) => s,
            other => other.to_string(),
        }
    }
}

fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~:".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn target(target: &Target) -> String {
    match target {
        Target::Raw(raw) => raw.clone(),
        Target::Route {
            route,
            param,
            query,
        } => {
            let param = match param {
                Param::Word(n) => pick(WORDS, *n).to_owned(),
                Param::Number(n) => n.to_string(),
                Param::Text(s) => s.clone(),
            };
            let mut target = pick(ROUTES, *route).replace("{}", &percent_encode(&param));
            for (i, (key, value)) in query.iter().take(8).enumerate() {
                target.push(if i == 0 { '?' } else { '&' });
                target.push_str(&percent_encode(&key.text()));
                target.push('=');
                target.push_str(&percent_encode(&value.query_text()));
            }
            target
        }
    }
}

fn request(input: &Input) -> Option<Request<Body>> {
    let method = match &input.method {
        Method::Get => "GET",
        Method::Post => "POST",
        Method::Put => "PUT",
        Method::Delete => "DELETE",
        Method::Options => "OPTIONS",
        Method::Other(m) => m.as_str(),
    };
    let mut builder = Request::builder().method(method).uri(target(&input.target));
    match &input.host {
        Host::Localhost => builder = builder.header(header::HOST, "localhost:7777"),
        Host::Loopback4 => builder = builder.header(header::HOST, "127.0.0.1"),
        Host::Loopback6 => builder = builder.header(header::HOST, "[::1]:80"),
        Host::Missing => {}
        Host::Other(h) => builder = builder.header(header::HOST, h.as_str()),
    }
    match &input.content_type {
        ContentType::None => {}
        ContentType::Json => builder = builder.header(header::CONTENT_TYPE, "application/json"),
        ContentType::JsonCharset => {
            builder = builder.header(header::CONTENT_TYPE, "Application/JSON; charset=utf-8");
        }
        ContentType::Text => builder = builder.header(header::CONTENT_TYPE, "text/plain"),
        ContentType::Other(t) => builder = builder.header(header::CONTENT_TYPE, t.as_str()),
    }
    for (name, value) in input.headers.iter().take(4) {
        builder = builder.header(name.as_str(), value.as_str());
    }
    let body = match &input.body {
        BodyInput::Empty => Vec::new(),
        BodyInput::Bytes(bytes) => bytes.clone(),
        BodyInput::Json(json) => json.value().to_string().into_bytes(),
    };
    builder.body(Body::from(body)).ok()
}

/// A request written as text: `METHOD TARGET`, header lines `Name: value`,
/// an empty line, the body (the seed corpus's form).
fn text_request(text: &[u8]) -> Option<Request<Body>> {
    let head_end = text
        .windows(2)
        .position(|w| w == b"\n\n")
        .unwrap_or(text.len());
    let head = std::str::from_utf8(text.get(..head_end)?).ok()?;
    let body = text.get(head_end + 2..).unwrap_or_default().to_vec();
    let mut lines = head.lines();
    let (method, target) = lines.next()?.split_once(' ')?;
    let mut builder = Request::builder().method(method).uri(target);
    for line in lines {
        let (name, value) = line.split_once(':')?;
        builder = builder.header(name.trim(), value.trim());
    }
    builder.body(Body::from(body)).ok()
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime")
    })
}

fn fixture() -> &'static Mutex<Fixture> {
    static FIXTURE: OnceLock<Mutex<Fixture>> = OnceLock::new();
    FIXTURE.get_or_init(|| Mutex::new(Fixture::new()))
}

// The first byte picks the form: a request written as text, or one
// built from structured input.
fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let (request, input) = if mode % 2 == 0 {
        (text_request(rest), None)
    } else {
        match Input::arbitrary(&mut arbitrary::Unstructured::new(rest)) {
            Ok(input) => (request(&input), Some(input)),
            Err(_) => return,
        }
    };
    let Some(request) = request else {
        return;
    };
    let path = request.uri().path().to_owned();
    let mut fixture = fixture().lock().unwrap_or_else(|e| e.into_inner());
    if fixture.worn_out() {
        *fixture = Fixture::new();
    }
    let app = router(AppState {
        service: std::sync::Arc::clone(&fixture.service),
        token: None,
    });
    let (status, content_type, body) = runtime().block_on(async {
        let response = app.oneshot(request).await.expect("the router is infallible");
        let status = response.status();
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let body = axum::body::to_bytes(response.into_body(), 64 << 20)
            .await
            .expect("the answer's body is read whole");
        (status, content_type, body)
    });
    assert!(
        !status.is_server_error(),
        "{status} for {input:?} {:?}: {}",
        String::from_utf8_lossy(rest),
        String::from_utf8_lossy(&body)
    );
    let is_json = content_type.starts_with("application/json");
    if is_json {
        let value: Value = serde_json::from_slice(&body).unwrap_or_else(|e| {
            panic!("an answer said to be JSON does not parse ({e}): {body:?}")
        });
        if status.is_client_error() {
            assert!(value["error"].is_string(), "{value}");
            assert!(value["message"].is_string(), "{value}");
        }
    }
    if path.starts_with("/api/") && status.is_client_error() {
        assert!(is_json, "{status} under /api/ is not JSON: {content_type}");
    }
});

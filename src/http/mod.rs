//! The HTTP JSON API and the web admin panel (`engram serve`).
//!
//! Every route answers JSON; every failure is `{"error": code, "message"}`
//! with the code's status (docs/http.md lists them). Operations run on
//! tokio's blocking threads against one [`Service`], so the store stays
//! open and read-your-writes holds across requests. Bound to loopback the
//! API takes no token but only loopback `Host` headers (no DNS rebinding);
//! bound elsewhere every `/api/` call needs the bearer token.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, FromRequest, OriginalUri, Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::api::{
    ApiError, BatchRequest, ConfirmRequest, CorridorRequest, DistillRequest, ErrorCode,
    ForgetRequest, GradeRequest, IdArg, IngestRequest, ListRequest, LogQuery, MaintainRequest,
    PurgeRequest, RecallRequest, RememberRequest, SeriesRequest, Service, TierRequest,
    UpdateRequest, VerdictRequest, WorkspaceRequest,
};

/// Largest request body in general.
pub const BODY_LIMIT: usize = 1 << 20;
/// Largest request body of the transcript ingest.
pub const INGEST_BODY_LIMIT: usize = 16 << 20;

const INDEX_HTML: &str = include_str!("panel/index.html");
const PANEL_CSS: &str = include_str!("panel/panel.css");
const PANEL_JS: &str = include_str!("panel/panel.js");

/// What every handler shares.
#[derive(Debug, Clone)]
pub struct AppState {
    pub service: Arc<Service>,
    /// The bearer token every `/api/` call needs, when one is required.
    pub token: Option<Arc<str>>,
}

/// An error as the API answers it.
#[derive(Debug)]
pub struct HttpError(pub ApiError);

impl From<ApiError> for HttpError {
    fn from(e: ApiError) -> Self {
        Self(e)
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.0.code.http_status())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (status, axum::Json(self.0.to_json())).into_response();
        if self.0.code == ErrorCode::Unauthorized {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

type Answer = Result<axum::Json<Value>, HttpError>;

fn error(code: ErrorCode, message: impl Into<String>) -> HttpError {
    HttpError(ApiError::new(code, message))
}

/// Runs an operation on a blocking thread.
async fn run<F>(state: &AppState, op: F) -> Answer
where
    F: FnOnce(&Service) -> Result<Value, ApiError> + Send + 'static,
{
    let service = Arc::clone(&state.service);
    match tokio::task::spawn_blocking(move || op(&service)).await {
        Ok(result) => Ok(axum::Json(result?)),
        Err(e) => Err(error(
            ErrorCode::Internal,
            format!("the operation failed unexpectedly: {e}"),
        )),
    }
}

/// A JSON body: `415` unless its type is JSON, `413` past the limit,
/// `invalid_json` when it does not parse, `bad_request` naming the field
/// when it does not fit the request.
fn json_body<T: DeserializeOwned>(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<T, HttpError> {
    let body = body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            error(
                ErrorCode::PayloadTooLarge,
                "the request body is over the size limit",
            )
        } else {
            error(ErrorCode::BadRequest, rejection.body_text())
        }
    })?;
    let is_json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            let v = v.trim();
            v.eq_ignore_ascii_case("application/json")
        });
    if !is_json {
        return Err(error(
            ErrorCode::UnsupportedMediaType,
            "send the body as application/json",
        ));
    }
    let value: Value = serde_json::from_slice(&body)
        .map_err(|e| error(ErrorCode::InvalidJson, format!("the body is not JSON: {e}")))?;
    serde_json::from_value(value).map_err(|e| {
        error(
            ErrorCode::BadRequest,
            format!("the request does not fit: {e}"),
        )
    })
}

/// An empty body is an empty object (for requests whose fields are all optional).
fn json_body_or_default<T: DeserializeOwned + Default>(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<T, HttpError> {
    match &body {
        Ok(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => Ok(T::default()),
        _ => json_body(headers, body),
    }
}

/// A JSON request body, checked by [`json_body`].
struct JsonBody<T>(T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = HttpError;

    async fn from_request(request: Request, state: &S) -> Result<Self, HttpError> {
        let headers = request.headers().clone();
        let body = Bytes::from_request(request, state).await;
        json_body(&headers, body).map(JsonBody)
    }
}

/// A JSON request body whose fields are all optional: empty is `{}`.
struct OptionalJsonBody<T>(T);

impl<S: Send + Sync, T: DeserializeOwned + Default> FromRequest<S> for OptionalJsonBody<T> {
    type Rejection = HttpError;

    async fn from_request(request: Request, state: &S) -> Result<Self, HttpError> {
        let headers = request.headers().clone();
        let body = Bytes::from_request(request, state).await;
        json_body_or_default(&headers, body).map(OptionalJsonBody)
    }
}

fn query<T>(query: Result<Query<T>, QueryRejection>) -> Result<T, HttpError> {
    query
        .map(|Query(q)| q)
        .map_err(|e| error(ErrorCode::BadRequest, e.body_text()))
}

fn memory_id(text: &str) -> Result<IdArg, HttpError> {
    text.parse()
        .map_err(|e: crate::api::IdError| error(ErrorCode::BadRequest, e.to_string()))
}

/// Builds the router: the API under `/api/`, the panel at `/`.
pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/stats", get(stats))
        .route("/settle", post(settle))
        .route("/remember", post(remember))
        // A batch takes what `remember --items` reads: the CLI sends it here.
        .route(
            "/remember/batch",
            post(remember_batch).layer(DefaultBodyLimit::max(crate::api::BATCH_INPUT_BYTES_MAX)),
        )
        .route("/recall", post(recall))
        .route("/memories", get(list))
        .route("/memories/{id}", get(memory))
        .route("/memories/{id}/update", post(update))
        .route("/memories/{id}/expand", get(expand))
        .route("/memories/{id}/audit", get(audit))
        .route("/memories/{id}/forget", post(forget))
        .route("/memories/{id}/purge", post(purge))
        .route("/sessions/{name}/purge", post(purge_session))
        .route("/memories/{id}/confirm", post(confirm))
        .route("/memories/{id}/grade", post(grade))
        .route("/memories/{id}/tier", post(move_tier))
        .route("/review", get(review))
        .route("/verdicts", get(verdicts))
        .route("/verdict", post(verdict))
        .route("/maintain", post(maintain))
        .route("/distill/candidates", get(distill_candidates))
        .route("/distill", post(distill))
        .route("/entities", get(entities))
        .route("/palace", get(palace))
        .route("/palace/{room}", get(palace_room))
        .route("/corridors", post(place_corridor))
        .route("/renovation", get(renovation))
        .route("/log", get(log))
        .route("/series", get(series))
        .route("/verify", post(verify))
        .route("/reembed", post(reembed))
        .route("/export", get(export))
        .route(
            "/ingest",
            post(ingest).layer(DefaultBodyLimit::max(INGEST_BODY_LIMIT)),
        )
        // Documents as JSON text: up to twice their bytes once escaped.
        .route(
            "/workspace",
            post(workspace).layer(DefaultBodyLimit::max(INGEST_BODY_LIMIT)),
        )
        .route("/l0", get(l0))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .route_layer(axum::middleware::from_fn_with_state(
            Token(state.token.clone()),
            authorize,
        ))
        // Health answers without a token: a probe must not need a secret.
        .route("/health", get(health));
    let token = state.token.clone();
    with_panel(api, token, BODY_LIMIT).with_state(state)
}

/// The panel's files at `/` around `api` at `/api/`, with the fallbacks,
/// the body limit and the host check every server has: the owner's
/// router and the forwarding one differ only in their API.
fn with_panel<S: Clone + Send + Sync + 'static>(
    api: Router<S>,
    token: Option<Arc<str>>,
    body_limit: usize,
) -> Router<S> {
    Router::new()
        .route("/", get(index))
        .route("/panel.css", get(css))
        .route("/panel.js", get(js))
        .nest("/api", api)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(axum::middleware::from_fn_with_state(
            Token(token),
            check_host,
        ))
}

/// The bearer token a router asks for, when it asks for one.
#[derive(Debug, Clone)]
struct Token(Option<Arc<str>>);

/// The owner's answer to a forwarded request.
#[derive(Debug, Clone)]
pub struct Forwarded {
    pub status: u16,
    pub content_type: String,
    /// `Content-Disposition`, passed on (the export's file name).
    pub disposition: Option<String>,
    pub body: Vec<u8>,
}

/// One request forwarded to the store's owner: method, target (path and
/// query), body and its content type; the owner's answer.
pub type Forward =
    Arc<dyn Fn(&str, &str, Vec<u8>, Option<String>) -> Result<Forwarded, ApiError> + Send + Sync>;

/// The panel and the API of a server that does not own its stores: the
/// panel's files served here, every `/api/` request forwarded to the
/// owner (`forward`), behind the same token and host checks as
/// [`router`].
pub fn forwarding_router(token: Option<Arc<str>>, forward: Forward) -> Router {
    let api = Router::new()
        .fallback(move |request: Request| {
            let forward = Arc::clone(&forward);
            async move { forwarded(forward, request).await }
        })
        .layer(axum::middleware::from_fn_with_state(
            Token(token.clone()),
            authorize,
        ))
        // Added after the layer: a probe needs no token.
        .route("/health", get(health));
    with_panel(api, token, INGEST_BODY_LIMIT)
}

async fn forwarded(forward: Forward, request: Request) -> Response {
    let method = request.method().as_str().to_owned();
    let target = request.uri().path_and_query().map_or_else(
        || request.uri().path().to_owned(),
        |p| p.as_str().to_owned(),
    );
    // Nested under /api: the owner's router wants the whole path.
    let target = format!("/api{target}");
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let limit = crate::api::BATCH_INPUT_BYTES_MAX;
    let body = match axum::body::to_bytes(request.into_body(), limit).await {
        Ok(body) => body.to_vec(),
        Err(_) => {
            return error(
                ErrorCode::PayloadTooLarge,
                format!("the body is over {limit} bytes"),
            )
            .into_response();
        }
    };
    let answer =
        tokio::task::spawn_blocking(move || forward(&method, &target, body, content_type)).await;
    match answer {
        Ok(Ok(answer)) => {
            let status = axum::http::StatusCode::from_u16(answer.status)
                .unwrap_or(axum::http::StatusCode::BAD_GATEWAY);
            let mut response = (status, answer.body).into_response();
            if let Ok(value) = HeaderValue::from_str(&answer.content_type) {
                response.headers_mut().insert(header::CONTENT_TYPE, value);
            }
            if let Some(Ok(value)) = answer.disposition.as_deref().map(HeaderValue::from_str) {
                response
                    .headers_mut()
                    .insert(header::CONTENT_DISPOSITION, value);
            }
            response
        }
        Ok(Err(e)) => HttpError(e).into_response(),
        Err(e) => error(
            ErrorCode::Internal,
            format!("forwarding failed unexpectedly: {e}"),
        )
        .into_response(),
    }
}

/// Compares in time independent of where the inputs differ.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn authorize(State(Token(token)): State<Token>, request: Request, next: Next) -> Response {
    if let Some(token) = &token {
        let given = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        match given {
            Some(given) if same_secret(given.trim().as_bytes(), token.as_bytes()) => {}
            Some(_) => {
                return error(ErrorCode::Unauthorized, "the bearer token is wrong").into_response();
            }
            None => {
                return error(
                    ErrorCode::Unauthorized,
                    "this server needs a token: send `Authorization: Bearer <token>` (ENGRAM_TOKEN, or the one printed at start)",
                )
                .into_response();
            }
        }
    }
    next.run(request).await
}

/// Without a token the server is reachable by any page the user's browser
/// loads; answering only loopback `Host`s keeps a rebinding DNS name out.
async fn check_host(State(Token(token)): State<Token>, request: Request, next: Next) -> Response {
    if token.is_none() {
        let host = request
            .headers()
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        if !is_loopback_host(host) {
            return error(
                ErrorCode::Unauthorized,
                format!("host {host:?} is not a loopback name: this server answers only http://127.0.0.1, localhost or [::1]"),
            )
            .into_response();
        }
    }
    next.run(request).await
}

fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Headers of the panel's pages: no framing, no sniffing, scripts only
/// from the server itself.
fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
            ),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "no-referrer"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

async fn index() -> Response {
    asset("text/html; charset=utf-8", INDEX_HTML)
}

async fn css() -> Response {
    asset("text/css; charset=utf-8", PANEL_CSS)
}

async fn js() -> Response {
    asset("text/javascript; charset=utf-8", PANEL_JS)
}

async fn not_found(method: Method, OriginalUri(uri): OriginalUri) -> HttpError {
    error(
        ErrorCode::NotFound,
        format!(
            "no route {method} {}: docs/http.md lists the API",
            uri.path()
        ),
    )
}

async fn method_not_allowed(method: Method, OriginalUri(uri): OriginalUri) -> HttpError {
    error(
        ErrorCode::MethodNotAllowed,
        format!(
            "{method} is not allowed on {}: docs/http.md lists the API",
            uri.path()
        ),
    )
}

async fn health() -> axum::Json<Value> {
    axum::Json(json!({"ok": true, "name": "engram", "version": env!("CARGO_PKG_VERSION")}))
}

async fn stats(State(state): State<AppState>) -> Answer {
    run(&state, |s| Ok(s.stats())).await
}

async fn l0(State(state): State<AppState>) -> Answer {
    run(&state, |s| Ok(s.l0())).await
}

async fn workspace(
    State(state): State<AppState>,
    JsonBody(request): JsonBody<WorkspaceRequest>,
) -> Answer {
    run(&state, move |s| s.workspace(&request)).await
}

async fn settle(State(state): State<AppState>) -> Answer {
    run(&state, Service::settle).await
}

async fn remember(
    State(state): State<AppState>,
    JsonBody(request): JsonBody<RememberRequest>,
) -> Answer {
    run(&state, move |s| s.remember(&request)).await
}

async fn remember_batch(
    State(state): State<AppState>,
    JsonBody(request): JsonBody<BatchRequest>,
) -> Answer {
    run(&state, move |s| s.remember_batch(&request)).await
}

async fn recall(
    State(state): State<AppState>,
    JsonBody(request): JsonBody<RecallRequest>,
) -> Answer {
    run(&state, move |s| s.recall(&request)).await
}

async fn list(
    State(state): State<AppState>,
    q: Result<Query<ListRequest>, QueryRejection>,
) -> Answer {
    let q = query(q)?;
    run(&state, move |s| s.list(&q)).await
}

async fn update(
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(request): JsonBody<UpdateRequest>,
) -> Answer {
    let id = memory_id(&id)?;
    run(&state, move |s| s.update(id, &request)).await
}

async fn memory(State(state): State<AppState>, Path(id): Path<String>) -> Answer {
    let id = memory_id(&id)?;
    run(&state, move |s| s.memory(id)).await
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpandQuery {
    #[serde(default)]
    audit: bool,
    #[serde(default)]
    session: Option<String>,
    /// Who reads: `user` (default) or `model` (no audit mode).
    #[serde(default)]
    by: crate::api::By,
}

async fn expand(
    State(state): State<AppState>,
    Path(id): Path<String>,
    q: Result<Query<ExpandQuery>, QueryRejection>,
) -> Answer {
    let id = memory_id(&id)?;
    let q = query(q)?;
    if q.by == crate::api::By::Model {
        if q.audit {
            return Err(error(
                ErrorCode::BadRequest,
                "audit is for users: a model cannot expand in audit mode",
            ));
        }
        return run(&state, move |s| s.expand_as_model(id, q.session.as_ref())).await;
    }
    run(&state, move |s| s.expand(id, q.session.as_ref(), q.audit)).await
}

async fn audit(State(state): State<AppState>, Path(id): Path<String>) -> Answer {
    let id = memory_id(&id)?;
    run(&state, move |s| s.audit(id)).await
}

async fn forget(
    State(state): State<AppState>,
    Path(id): Path<String>,
    OptionalJsonBody(request): OptionalJsonBody<ForgetRequest>,
) -> Answer {
    let id = memory_id(&id)?;
    run(&state, move |s| s.forget(id, &request)).await
}

async fn purge(
    State(state): State<AppState>,
    Path(id): Path<String>,
    OptionalJsonBody(request): OptionalJsonBody<PurgeRequest>,
) -> Answer {
    let id = memory_id(&id)?;
    run(&state, move |s| s.purge(id, &request)).await
}

async fn purge_session(
    State(state): State<AppState>,
    Path(name): Path<String>,
    OptionalJsonBody(request): OptionalJsonBody<PurgeRequest>,
) -> Answer {
    run(&state, move |s| s.purge_session(&name, &request)).await
}

async fn confirm(
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(request): JsonBody<ConfirmRequest>,
) -> Answer {
    let id = memory_id(&id)?;
    run(&state, move |s| s.confirm(id, &request)).await
}

async fn grade(
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(request): JsonBody<GradeRequest>,
) -> Answer {
    let id = memory_id(&id)?;
    run(&state, move |s| s.grade(id, &request)).await
}

async fn move_tier(
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(request): JsonBody<TierRequest>,
) -> Answer {
    let id = memory_id(&id)?;
    run(&state, move |s| s.move_tier(id, &request)).await
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReviewQuery {
    #[serde(default)]
    at: Option<String>,
}

async fn review(
    State(state): State<AppState>,
    q: Result<Query<ReviewQuery>, QueryRejection>,
) -> Answer {
    let q = query(q)?;
    run(&state, move |s| s.review(q.at.as_deref())).await
}

async fn verdicts(State(state): State<AppState>) -> Answer {
    run(&state, Service::verdicts).await
}

async fn verdict(
    State(state): State<AppState>,
    JsonBody(request): JsonBody<VerdictRequest>,
) -> Answer {
    run(&state, move |s| s.verdict(&request)).await
}

async fn maintain(
    State(state): State<AppState>,
    OptionalJsonBody(request): OptionalJsonBody<MaintainRequest>,
) -> Answer {
    run(&state, move |s| s.maintain(&request)).await
}

async fn distill_candidates(State(state): State<AppState>) -> Answer {
    run(&state, |s| Ok(s.distill_candidates())).await
}

async fn distill(
    State(state): State<AppState>,
    JsonBody(request): JsonBody<DistillRequest>,
) -> Answer {
    run(&state, move |s| s.distill(&request)).await
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EntitiesQuery {
    #[serde(default)]
    category: Option<String>,
    #[serde(default)]
    search: Option<String>,
}

async fn entities(
    State(state): State<AppState>,
    q: Result<Query<EntitiesQuery>, QueryRejection>,
) -> Answer {
    let q = query(q)?;
    run(&state, move |s| {
        s.entities(
            q.category.as_deref().filter(|c| !c.is_empty()),
            q.search.as_deref(),
        )
    })
    .await
}

async fn palace(State(state): State<AppState>) -> Answer {
    run(&state, |s| s.palace(None)).await
}

async fn place_corridor(
    State(state): State<AppState>,
    JsonBody(request): JsonBody<CorridorRequest>,
) -> Answer {
    run(&state, move |s| s.place_corridor(&request)).await
}

async fn palace_room(State(state): State<AppState>, Path(room): Path<String>) -> Answer {
    run(&state, move |s| s.palace(Some(&room))).await
}

async fn renovation(State(state): State<AppState>) -> Answer {
    run(&state, |s| Ok(s.renovation())).await
}

async fn log(State(state): State<AppState>, q: Result<Query<LogQuery>, QueryRejection>) -> Answer {
    let q = query(q)?;
    run(&state, move |s| s.log(&q)).await
}

async fn series(
    State(state): State<AppState>,
    q: Result<Query<SeriesRequest>, QueryRejection>,
) -> Answer {
    let q = query(q)?;
    run(&state, move |s| s.series(&q)).await
}

async fn verify(State(state): State<AppState>) -> Answer {
    run(&state, Service::verify).await
}

async fn reembed(State(state): State<AppState>) -> Answer {
    run(&state, Service::reembed).await
}

async fn ingest(
    State(state): State<AppState>,
    JsonBody(request): JsonBody<IngestRequest>,
) -> Answer {
    run(&state, move |s| s.ingest(&request)).await
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExportQuery {
    #[serde(default)]
    from: Option<u64>,
}

/// Export chunks on their way from the blocking export to the response.
struct ChunkStream(tokio::sync::mpsc::Receiver<Result<Bytes, std::io::Error>>);

impl futures_core::Stream for ChunkStream {
    type Item = Result<Bytes, std::io::Error>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        self.0.poll_recv(cx)
    }
}

/// A writer handing 64 KiB chunks to the response; fails once the client
/// has gone, which stops the export.
struct ChunkWriter {
    tx: tokio::sync::mpsc::Sender<Result<Bytes, std::io::Error>>,
    buf: Vec<u8>,
}

impl ChunkWriter {
    const CHUNK: usize = 64 << 10;

    fn send(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::replace(
            &mut self.buf,
            Vec::with_capacity(Self::CHUNK),
        ));
        self.tx
            .blocking_send(Ok(chunk))
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))
    }
}

impl std::io::Write for ChunkWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= Self::CHUNK {
            self.send()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.send()
    }
}

/// The log in the export format, streamed as an attachment
/// (`engram-<scope>-<from>-<last seq>.jsonl`): a failure midway cuts the
/// body short, and an export without its trailer never imports.
async fn export(
    State(state): State<AppState>,
    q: Result<Query<ExportQuery>, QueryRejection>,
) -> Result<Response, HttpError> {
    let from = query(q)?.from.unwrap_or(1);
    // Hold the reads asked before (their queued `recalled` events), as
    // stats counts them; a failure here shows as a shorter export.
    let settling = Arc::clone(&state.service);
    let _ = tokio::task::spawn_blocking(move || settling.engram().settle()).await;
    let last_seq = state.service.engram().log().last_seq();
    if from == 0 || from > last_seq + 1 {
        return Err(error(
            ErrorCode::BadRequest,
            format!(
                "from {from} is outside 1-{}: the log's last seq is {last_seq}",
                last_seq + 1
            ),
        ));
    }
    let (tx, rx) = tokio::sync::mpsc::channel(8);
    let service = Arc::clone(&state.service);
    tokio::task::spawn_blocking(move || {
        let mut out = ChunkWriter {
            tx: tx.clone(),
            buf: Vec::with_capacity(ChunkWriter::CHUNK),
        };
        let reader = service.engram().log().reader();
        let written = crate::transfer::export(reader, from, &mut out, &|_, _| {})
            .map_err(std::io::Error::other)
            .and_then(|_| std::io::Write::flush(&mut out));
        if let Err(e) = written {
            let _ = tx.blocking_send(Err(e));
        }
    });
    // A browser saves it as a file named after the store and its seqs.
    let disposition = format!(
        "attachment; filename=\"engram-{}-{from}-{last_seq}.jsonl\"",
        state.service.scope()
    );
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-ndjson".to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        axum::body::Body::from_stream(ChunkStream(rx)),
    )
        .into_response())
}

/// Fewest characters a bearer token given to the server may have: a short
/// token is one an attacker can guess. The generated token has 64.
pub const TOKEN_CHARS_MIN: usize = 32;

/// A token refused by [`check_token`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the token has {chars} characters; it needs at least {TOKEN_CHARS_MIN} (make one with `openssl rand -hex 32`)"
)]
pub struct ShortToken {
    pub chars: usize,
}

/// Refuses a token shorter than [`TOKEN_CHARS_MIN`] characters.
///
/// # Errors
/// [`ShortToken`] naming its length.
pub fn check_token(token: &str) -> Result<(), ShortToken> {
    let chars = token.chars().count();
    if chars < TOKEN_CHARS_MIN {
        return Err(ShortToken { chars });
    }
    Ok(())
}

/// A fresh random token: 32 bytes as hex.
///
/// # Errors
/// When the operating system has no randomness to give.
pub fn generate_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(hex::encode(bytes))
}

/// Serves `router` on `listener` until `shutdown` completes.
///
/// # Errors
/// When the listener fails.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(
        listener,
        router.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await
}

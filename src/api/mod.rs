//! The operations engram offers over its interfaces (HTTP, MCP), with typed
//! requests and JSON answers in the shapes of the CLI's `--json` output.
//!
//! A [`Service`] holds its stores open for its whole life: one store takes
//! the writes, recall searches every store it holds. Every append waits for
//! the views, so an answer sent after a write reflects it (read-your-writes
//! across requests). Errors carry a stable [`ErrorCode`] a client can branch
//! on and a sentence a person or a model can act on.

pub mod id;
pub mod json;

pub use id::{IdArg, IdError, qualified};

use std::time::{Duration, UNIX_EPOCH};

use engram_commands::decide::RENOVATION_BELOW_PERMILLE;
use engram_commands::ingest::{
    IngestError, derived_session_id, parse_transcript, parse_transcript_skipping,
};
use engram_commands::maintain::MaintainPolicy;
use engram_log::{Actor, MemoryId, MemoryRef, Scope, Source, Tier, Verdict};
use engram_projections::models::review::GRADE_MAX;
use engram_queries::recall::{RECALL_LIMIT_DEFAULT, RECALL_LIMIT_MAX};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use std::sync::Arc;

use crate::store::{Store, StoreOptions};

use crate::engine::{EngineError, Engram, now_ms};
use crate::flywheel::FlywheelError;
use crate::{Content, Hit, MemoryMeta, RecallMode, RecallQuery, Remember, Subject};

/// Turns appended per batch when ingesting a transcript.
const INGEST_BATCH_EVENTS: usize = 1024;

/// Events read per step when [`Service::log`] walks the log back from its
/// end: a latest-events page reads about this much past what it shows.
const LOG_WALK_CHUNK: u64 = 256;

/// Whether a walk over the log goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Walk {
    On,
    Stop,
}

/// The stable error codes of the interfaces (the `error` field of an HTTP
/// error body, the first word of an MCP tool error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    BadRequest,
    InvalidJson,
    Unauthorized,
    Denied,
    NotFound,
    NoStore,
    Discarded,
    Tampered,
    Forgotten,
    AmbiguousId,
    PayloadTooLarge,
    UnsupportedMediaType,
    MethodNotAllowed,
    Internal,
}

impl ErrorCode {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Denied => "denied",
            ErrorCode::NotFound => "not_found",
            ErrorCode::NoStore => "no_store",
            ErrorCode::Discarded => "discarded",
            ErrorCode::Tampered => "tampered",
            ErrorCode::Forgotten => "forgotten",
            ErrorCode::AmbiguousId => "ambiguous_id",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::UnsupportedMediaType => "unsupported_media_type",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::Internal => "internal",
        }
    }

    /// The HTTP status that goes with the code.
    #[must_use]
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::BadRequest | ErrorCode::InvalidJson | ErrorCode::AmbiguousId => 400,
            ErrorCode::Unauthorized => 401,
            ErrorCode::Denied => 403,
            ErrorCode::NotFound | ErrorCode::NoStore => 404,
            ErrorCode::MethodNotAllowed => 405,
            ErrorCode::Discarded | ErrorCode::Tampered => 409,
            ErrorCode::Forgotten => 410,
            ErrorCode::PayloadTooLarge => 413,
            ErrorCode::UnsupportedMediaType => 415,
            ErrorCode::Internal => 500,
        }
    }
}

/// An operation's failure: a stable code and a message to act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::BadRequest, message)
    }

    /// The JSON error body: `{"error": code, "message"}`.
    #[must_use]
    pub fn to_json(&self) -> Value {
        json!({"error": self.code.as_str(), "message": self.message})
    }
}

impl From<EngineError> for ApiError {
    fn from(e: EngineError) -> Self {
        let code = match &e {
            EngineError::UnknownMemory { .. } => ErrorCode::NotFound,
            EngineError::NoLog { .. } => ErrorCode::NoStore,
            EngineError::Input(_) => ErrorCode::BadRequest,
            EngineError::Denied(_) => ErrorCode::Denied,
            EngineError::Seal(engram_log::seal::SealError::Tampered { .. }) => ErrorCode::Tampered,
            EngineError::Seal(_) => ErrorCode::BadRequest,
            EngineError::Forgotten { .. } => ErrorCode::Forgotten,
            EngineError::Discarded { .. } => ErrorCode::Discarded,
            EngineError::Flywheel(FlywheelError::NotInContradiction { .. }) => ErrorCode::NotFound,
            EngineError::Flywheel(_) => ErrorCode::BadRequest,
            _ => ErrorCode::Internal,
        };
        Self::new(code, e.to_string())
    }
}

impl From<engram_projections::ViewError> for ApiError {
    fn from(e: engram_projections::ViewError) -> Self {
        Self::new(ErrorCode::Internal, e.to_string())
    }
}

/// Parses a time: RFC 3339 (`2026-12-01T09:00:00Z`) or an offset from `now`
/// into the future (`+2d`, `+12h`) or the past (`-1h`, `-30m`), as unix
/// milliseconds.
///
/// # Errors
/// `bad_request` naming the text when it is neither.
pub fn parse_time(text: &str, now: u64) -> Result<u64, ApiError> {
    if let Some((sign, offset)) = text
        .strip_prefix('+')
        .map(|o| ('+', o))
        .or_else(|| text.strip_prefix('-').map(|o| ('-', o)))
    {
        let duration = humantime::parse_duration(offset).map_err(|_| {
            ApiError::bad_request(format!("{text:?}: an offset is like +2d, +12h or -30m"))
        })?;
        let millis = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
        return Ok(if sign == '+' {
            now.saturating_add(millis)
        } else {
            now.saturating_sub(millis)
        });
    }
    let time = humantime::parse_rfc3339_weak(text).map_err(|_| {
        ApiError::bad_request(format!(
            "{text:?}: give RFC 3339 (2026-12-01T09:00:00Z) or an offset (+2d, -1h)"
        ))
    })?;
    Ok(time
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_millis()
        .try_into()
        .unwrap_or(u64::MAX))
}

// The enums below are the one type of each family for every door: serde
// (HTTP, MCP), clap (the CLI's flag values) and schemars (inlined, so a
// schema carries a plain string enum, never a `$ref`). Their spellings are
// contracts.

/// Who acts: `user` or `model`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum By {
    #[default]
    User,
    Model,
}

impl By {
    #[must_use]
    pub fn actor(self) -> Actor {
        match self {
            By::User => Actor::User,
            By::Model => Actor::Model,
        }
    }

    /// The source a memory saved by this actor records.
    #[must_use]
    pub fn source(self) -> Source {
        match self {
            By::User => Source::User,
            By::Model => Source::Model,
        }
    }
}

/// A tier by name: `l1`, `l2`, `l3` or `l4`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum TierName {
    L1,
    L2,
    L3,
    L4,
}

impl TierName {
    #[must_use]
    pub fn tier(self) -> Tier {
        match self {
            TierName::L1 => Tier::L1,
            TierName::L2 => Tier::L2,
            TierName::L3 => Tier::L3,
            TierName::L4 => Tier::L4,
        }
    }

    /// The tier a new memory is saved to. L4 holds archived memories, moved
    /// there by maintenance with an `Archived` record; nothing is saved
    /// straight into it.
    ///
    /// # Errors
    /// `bad_request` for `l4`.
    pub fn save_tier(self) -> Result<Tier, ApiError> {
        match self.tier() {
            Tier::L4 => Err(ApiError::bad_request(
                "a memory cannot be saved to l4 (the archive): use l1, l2 or l3",
            )),
            tier => Ok(tier),
        }
    }
}

/// Save one memory: plain `content`, or a range of session turns already
/// recorded (`session` with `first_seq` and `last_seq`).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RememberRequest {
    /// The words to remember (a fact, decision or preference worth keeping
    /// across sessions). Omit to remember recorded session turns instead.
    #[serde(default)]
    pub content: Option<String>,
    /// Palace room to file it in (a short topic like `deploys`); chosen
    /// automatically when omitted.
    #[serde(default)]
    pub room: Option<String>,
    /// Tags for filtering recall.
    #[serde(default)]
    pub tags: Vec<String>,
    /// A one-line summary shown instead of the full text in lists.
    #[serde(default)]
    pub summary: Option<String>,
    /// The session the words come from (plain content is recorded there,
    /// default `notes`), or whose turns `first_seq`..`last_seq` name.
    #[serde(default)]
    pub session: Option<String>,
    /// First seq of the recorded session turns to remember.
    #[serde(default)]
    pub first_seq: Option<u64>,
    /// Last seq of the recorded session turns to remember.
    #[serde(default)]
    pub last_seq: Option<u64>,
    /// Visible only within `session`.
    #[serde(default)]
    pub session_only: bool,
    /// l3 (cross-session, default), l2 (workspace document) or l1.
    #[serde(default)]
    #[schemars(with = "TierName")]
    pub tier: Option<TierName>,
    /// Who is saving it.
    #[serde(default)]
    pub by: By,
    /// Time to live (`30d`, `12h`): past it, maintenance archives it.
    #[serde(default)]
    pub ttl: Option<String>,
}

/// Save several plain-text memories at once.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchRequest {
    /// The memories: each `{"content", "room"?, "tags"?, "summary"?}`.
    pub items: Vec<BatchItem>,
    /// Session the words are recorded in (default `notes`).
    #[serde(default)]
    pub session: Option<String>,
    /// Room for items that name none.
    #[serde(default)]
    pub room: Option<String>,
    /// Who is saving them.
    #[serde(default)]
    pub by: By,
    /// Which store takes them (`project`, `user`; default the primary).
    #[serde(default)]
    pub scope: Option<String>,
}

/// One memory of a batch.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchItem {
    /// The words to remember.
    pub content: String,
    /// Palace room (a short topic).
    #[serde(default)]
    pub room: Option<String>,
    /// Tags for filtering recall.
    #[serde(default)]
    pub tags: Vec<String>,
    /// A one-line summary.
    #[serde(default)]
    pub summary: Option<String>,
}

/// Find memories.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecallRequest {
    /// What to look for, in words (keywords or a question).
    pub query: String,
    /// Search this room first (its corridor), then everywhere.
    #[serde(default)]
    pub room: Option<String>,
    /// Only this tier (`l4` searches archived memories).
    #[serde(default)]
    #[schemars(with = "TierName")]
    pub tier: Option<TierName>,
    /// Only memories carrying every one of these tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// The caller's session: its session-only memories are included.
    #[serde(default)]
    pub session: Option<String>,
    /// Most hits, 1-100 (default 5).
    #[serde(default)]
    #[schemars(range(min = 1, max = RECALL_LIMIT_MAX))]
    pub limit: Option<u32>,
}

impl RecallRequest {
    /// The number of hits asked for, checked.
    ///
    /// # Errors
    /// `bad_request` for a limit outside 1-100.
    pub fn limit(&self) -> Result<usize, ApiError> {
        let limit = self.limit.map_or(RECALL_LIMIT_DEFAULT, |l| l as usize);
        if (1..=RECALL_LIMIT_MAX).contains(&limit) {
            Ok(limit)
        } else {
            Err(ApiError::bad_request(format!(
                "limit {limit} is outside 1-{RECALL_LIMIT_MAX}"
            )))
        }
    }
}

/// Who asks about a memory, for the session-only ones.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForgetRequest {
    /// Why it should be forgotten (kept in the tombstone).
    #[serde(default)]
    pub reason: Option<String>,
    /// Who forgets.
    #[serde(default)]
    pub by: By,
    /// The caller's session (needed for session-only memories).
    #[serde(default)]
    pub session: Option<String>,
}

/// Evidence for a memory.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfirmRequest {
    /// Words that must occur in the memory's source.
    pub quote: String,
    /// Who confirms.
    #[serde(default)]
    pub by: By,
    /// The caller's session (needed for session-only memories).
    #[serde(default)]
    pub session: Option<String>,
}

/// A contradiction's verdict: `keep-a` (b leaves recall), `keep-b` (a
/// leaves recall), `keep-both` (both stand) or `shelve` (decide later).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
#[schemars(inline)]
pub enum VerdictName {
    KeepA,
    KeepB,
    KeepBoth,
    Shelve,
}

impl VerdictName {
    #[must_use]
    pub fn verdict(self) -> Verdict {
        match self {
            VerdictName::KeepA => Verdict::KeepA,
            VerdictName::KeepB => Verdict::KeepB,
            VerdictName::KeepBoth => Verdict::KeepBoth,
            VerdictName::Shelve => Verdict::Shelve,
        }
    }

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictName::KeepA => "keep-a",
            VerdictName::KeepB => "keep-b",
            VerdictName::KeepBoth => "keep-both",
            VerdictName::Shelve => "shelve",
        }
    }
}

/// Decide a contradiction.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerdictRequest {
    /// One memory of the contradiction (`p:2`; both of one store).
    pub a: IdArg,
    /// The other.
    pub b: IdArg,
    pub verdict: VerdictName,
    #[serde(default)]
    pub by: By,
    #[serde(default)]
    pub reason: Option<String>,
}

/// A review grade.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GradeRequest {
    /// How well it was recalled: 0 (blackout) to 5 (perfect).
    #[schemars(range(max = GRADE_MAX))]
    pub grade: u8,
    /// Who grades.
    #[serde(default)]
    pub by: By,
}

impl GradeRequest {
    /// Checks the grade.
    ///
    /// # Errors
    /// `bad_request` for a grade over 5.
    pub fn validate(&self) -> Result<(), ApiError> {
        if self.grade > GRADE_MAX {
            return Err(ApiError::from(EngineError::from(FlywheelError::Grade {
                grade: self.grade,
            })));
        }
        Ok(())
    }
}

/// Archive what should go.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MaintainRequest {
    /// Run as if at this time (RFC 3339 or `+30d`).
    #[serde(default)]
    pub at: Option<String>,
    /// Only say what would be archived.
    #[serde(default)]
    pub dry_run: bool,
    #[serde(default)]
    pub idle_days: Option<u64>,
    #[serde(default)]
    pub importance_below: Option<u32>,
    #[serde(default)]
    pub capacity: Option<usize>,
    #[serde(default)]
    pub keep_trust: Option<u16>,
    /// Who runs it (a model cannot archive what the user said).
    #[serde(default)]
    pub by: By,
}

/// Record a rule distilled from member memories.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DistillRequest {
    /// Member memory ids (at least two, of one store; `p:2`).
    pub members: Vec<IdArg>,
    /// The rule, in the caller's words.
    pub rule: String,
    #[serde(default)]
    pub room: Option<String>,
    /// Who wrote the rule (default model).
    #[serde(default)]
    pub by: Option<By>,
}

/// Which events of the log to list.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogQuery {
    /// First seq.
    #[serde(default)]
    pub from: Option<u64>,
    /// Last seq.
    #[serde(default)]
    pub to: Option<u64>,
    /// Only this event kind (`recalled`, `remembered`, ...).
    #[serde(default)]
    pub kind: Option<String>,
    /// Only events of this session.
    #[serde(default)]
    pub session: Option<String>,
    /// Only events naming this memory (`p:2`): the log of its store.
    #[serde(default)]
    pub memory: Option<IdArg>,
    /// Committed at or after (RFC 3339 or `+1h`... offsets count from now).
    #[serde(default)]
    pub since: Option<String>,
    /// Committed at or before.
    #[serde(default)]
    pub until: Option<String>,
    /// The last this many matches (1-10000, default 200).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Record a transcript as one session's turns.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IngestRequest {
    /// JSON lines: `{role, content}` each, or a Claude Code session file.
    pub transcript: String,
    #[serde(default)]
    pub session: Option<String>,
    /// Ingest the good lines and report the bad ones.
    #[serde(default)]
    pub skip_bad_lines: bool,
}

/// The store a [`Service`] holds open (it takes the writes), with its
/// scope name in answers.
#[derive(Debug)]
pub struct ServedStore {
    pub scope: &'static str,
    pub engram: Engram,
}

/// Another store a [`Service`] reaches (the user store beside a project
/// store): opened for each operation and closed after it, so that servers
/// of several projects share it instead of one of them locking it for its
/// whole life.
pub struct SharedStore {
    pub scope: &'static str,
    store: Store,
    options: StoreOptions,
    embedder: Option<Arc<dyn engram_embed::Embedder>>,
    /// One operation at a time from this process (a store has one writer).
    turn: parking_lot::Mutex<()>,
}

impl std::fmt::Debug for SharedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedStore")
            .field("scope", &self.scope)
            .field("store", &self.store)
            .finish_non_exhaustive()
    }
}

impl SharedStore {
    #[must_use]
    pub fn new(
        scope: &'static str,
        store: Store,
        options: StoreOptions,
        embedder: Option<Arc<dyn engram_embed::Embedder>>,
    ) -> Self {
        Self {
            scope,
            store,
            options,
            embedder,
            turn: parking_lot::Mutex::new(()),
        }
    }

    /// Runs `op` on the store opened for it (created when `create`, else
    /// `None` when it has no log yet).
    fn with<T>(
        &self,
        create: bool,
        op: impl FnOnce(&Engram) -> T,
    ) -> Result<Option<T>, EngineError> {
        let _turn = self.turn.lock();
        if !create && !self.store.has_log() {
            return Ok(None);
        }
        let mut engram = Engram::open(self.store.clone(), &self.options)?;
        if let Some(embedder) = &self.embedder {
            engram = engram.with_embedder(Arc::clone(embedder));
        }
        let answer = op(&engram);
        engram.close()?;
        Ok(Some(answer))
    }
}

/// Recall hits across stores, with the mode every store ran in.
#[derive(Debug, Clone)]
pub struct Recalled {
    /// Best first; each with its store's scope name.
    pub hits: Vec<(&'static str, Hit)>,
    /// `hybrid` only when every store searched ran hybrid.
    pub mode: RecallMode,
    /// Stores that could not be searched (busy with another writer past
    /// the lock wait), with why: the hits come from the others.
    pub skipped: Vec<String>,
}

/// One transcript as ingested.
#[derive(Debug, Clone)]
pub struct Ingested {
    pub session: String,
    pub first_seq: u64,
    pub last_seq: u64,
    pub turns: usize,
    pub redacted: usize,
    /// The lines left out (with `skip_bad_lines`).
    pub skipped: Vec<IngestError>,
    /// The turns as recorded, for extraction.
    pub recorded: Vec<(u64, engram_log::SessionEvent)>,
}

/// Open stores and the operations on them.
#[derive(Debug)]
pub struct Service {
    /// The store that takes writes, held open.
    primary: ServedStore,
    /// The other stores recall searches (and batch saves may name).
    others: Vec<SharedStore>,
}

/// Which store of a [`Service`] an operation runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Primary,
    Other(usize),
}

/// A store in words: `the user store`, `this store` for a --store folder.
fn store_words(scope: &str) -> String {
    match scope {
        "store" => "this store".to_owned(),
        scope => format!("the {scope} store"),
    }
}

/// The label of memory `id` in `engram`'s store, when it has one.
fn label_of(engram: &Engram, id: MemoryId) -> Option<String> {
    let core = engram.core();
    let known = core.memory_table.read().state.get(id).is_some();
    known.then(|| engram_queries::label(core, id))
}

/// The context block of hits across stores: each names its memory by the
/// id handed out (`u:2`) and its store.
#[must_use]
pub fn context_block(hits: &[(&'static str, Hit)]) -> String {
    let named: Vec<(String, &str, &Hit)> = hits
        .iter()
        .map(|(scope, hit)| (qualified(scope, hit.id), *scope, hit))
        .collect();
    engram_queries::context::context_block_named(&named)
}

fn subject(by: By, session: Option<&String>) -> Subject {
    Subject {
        actor: by.actor(),
        session: session.cloned(),
    }
}

impl Service {
    /// A service over `primary` (writes and reads, held open) and `others`
    /// (recall merges their hits by score, ties to the primary store;
    /// opened per operation).
    #[must_use]
    pub fn new(primary: ServedStore, others: Vec<SharedStore>) -> Self {
        Self { primary, others }
    }

    /// The store that takes writes.
    #[must_use]
    pub fn engram(&self) -> &Engram {
        &self.primary.engram
    }

    /// The primary store's scope name.
    #[must_use]
    pub fn scope(&self) -> &'static str {
        self.primary.scope
    }

    fn target_scope(&self, target: Target) -> &'static str {
        match target {
            Target::Primary => self.scope(),
            Target::Other(i) => self.others.get(i).map_or(self.scope(), |o| o.scope),
        }
    }

    /// Runs `op` on `target`'s store (another store is opened for it; one
    /// with no log yet holds no memory, `not_found`).
    fn on<T>(
        &self,
        target: Target,
        op: impl FnOnce(&Engram) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let other = match target {
            Target::Primary => return op(self.engram()),
            Target::Other(i) => self.others.get(i),
        };
        let Some(other) = other else {
            return Err(ApiError::new(ErrorCode::Internal, "no such store"));
        };
        other.with(false, op)?.unwrap_or_else(|| {
            Err(ApiError::new(
                ErrorCode::NotFound,
                format!(
                    "{} holds no memories yet: nothing was recorded there",
                    store_words(other.scope)
                ),
            ))
        })
    }

    /// The store `id` names. A qualified id (`u:2`) names its store, which
    /// must be open here (`no_store` otherwise); a bare number names the
    /// one store with a memory of that id, and is refused (`ambiguous_id`,
    /// listing each) when several have one.
    fn resolve(&self, id: IdArg) -> Result<Target, ApiError> {
        if let Some(scope) = id.scope {
            if scope == self.scope() {
                return Ok(Target::Primary);
            }
            if let Some(i) = self.others.iter().position(|o| o.scope == scope) {
                return Ok(Target::Other(i));
            }
            let mut open = vec![self.scope()];
            open.extend(self.others.iter().map(|o| o.scope));
            let open: Vec<String> = open
                .iter()
                .map(|scope| format!("{}:N ({scope})", id::letter(scope)))
                .collect();
            return Err(ApiError::new(
                ErrorCode::NoStore,
                format!(
                    "{id} names the {scope} store, which is not open here (a project store is open inside a git repository unless --scope or --store names another store); nothing was changed: the ids here are {}",
                    open.join(", ")
                ),
            ));
        }
        let mut found = Vec::new();
        if let Some(label) = label_of(self.engram(), id.id) {
            found.push((Target::Primary, label));
        }
        for (i, other) in self.others.iter().enumerate() {
            if let Some(Some(label)) = other.with(false, |engram| label_of(engram, id.id))? {
                found.push((Target::Other(i), label));
            }
        }
        match found.as_slice() {
            [] => {
                let mut stores = vec![store_words(self.scope())];
                stores.extend(self.others.iter().map(|o| store_words(o.scope)));
                Err(ApiError::new(
                    ErrorCode::NotFound,
                    format!(
                        "no memory with id {} in {}: give an id as recall shows it",
                        id.id,
                        stores.join(" or ")
                    ),
                ))
            }
            [(target, _)] => Ok(*target),
            several => {
                let each: Vec<String> = several
                    .iter()
                    .map(|(target, label)| {
                        format!(
                            "{} ({label:?})",
                            qualified(self.target_scope(*target), id.id)
                        )
                    })
                    .collect();
                Err(ApiError::new(
                    ErrorCode::AmbiguousId,
                    format!(
                        "memory id {} is ambiguous: it names {}; give the one you mean (nothing was changed)",
                        id.id,
                        each.join(" and ")
                    ),
                ))
            }
        }
    }

    /// Runs `op` on the memory `id` names, in its store; answers the
    /// store's scope name with `op`'s answer.
    ///
    /// # Errors
    /// A store not open here, an ambiguous bare number, an unknown memory,
    /// or `op`'s error.
    pub fn with_memory<T, E: Into<ApiError>>(
        &self,
        id: IdArg,
        op: impl FnOnce(&Engram, MemoryId) -> Result<T, E>,
    ) -> Result<(&'static str, T), ApiError> {
        let target = self.resolve(id)?;
        let scope = self.target_scope(target);
        let answer = self.on(target, |engram| {
            if label_of(engram, id.id).is_none() {
                return Err(ApiError::new(
                    ErrorCode::NotFound,
                    format!(
                        "no memory with id {} in {}: give an id as recall shows it",
                        qualified(scope, id.id),
                        store_words(scope)
                    ),
                ));
            }
            op(engram, id.id).map_err(Into::into)
        })?;
        Ok((scope, answer))
    }

    /// The one store all of `ids` name (the primary for none).
    fn resolve_all(&self, ids: &[IdArg]) -> Result<Target, ApiError> {
        let mut target = None;
        for id in ids {
            let this = self.resolve(*id)?;
            if target.is_some_and(|t| t != this) {
                return Err(ApiError::bad_request(format!(
                    "{} are not of one store: a contradiction or a rule is between memories of one store",
                    ids.iter()
                        .map(IdArg::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            target = Some(this);
        }
        Ok(target.unwrap_or(Target::Primary))
    }

    /// Closes the primary store, persisting its views.
    ///
    /// # Errors
    /// When the store fails to close.
    pub fn close(self) -> Result<(), EngineError> {
        self.primary.engram.close()
    }

    /// Saves one memory.
    ///
    /// # Errors
    /// Bad input, a gate's denial, a reference that does not verify.
    pub fn remember(&self, r: &RememberRequest) -> Result<Value, ApiError> {
        let content = match (r.first_seq, r.last_seq, &r.content) {
            (Some(_), Some(_), Some(_)) => {
                return Err(ApiError::bad_request(
                    "give content or first_seq/last_seq, not both",
                ));
            }
            (Some(first_seq), Some(last_seq), None) => {
                let Some(session) = r.session.clone() else {
                    return Err(ApiError::bad_request(
                        "first_seq/last_seq need the session whose turns they name",
                    ));
                };
                Content::Reference(MemoryRef {
                    session,
                    first_seq,
                    last_seq,
                })
            }
            (None, None, Some(text)) => Content::Text {
                text: text.clone(),
                session: r.session.clone(),
            },
            (Some(_), None, _) | (None, Some(_), _) => {
                return Err(ApiError::bad_request("first_seq and last_seq go together"));
            }
            (None, None, None) => {
                return Err(ApiError::bad_request(
                    "nothing to remember: give content, or session with first_seq and last_seq",
                ));
            }
        };
        if r.session_only && r.session.is_none() {
            return Err(ApiError::bad_request("session_only needs a session"));
        }
        let tier = r.tier.unwrap_or(TierName::L3).save_tier()?;
        let ttl_ms = match &r.ttl {
            Some(text) => Some(
                humantime::parse_duration(text)
                    .map_err(|e| {
                        ApiError::bad_request(format!("ttl {text:?}: {e} (like 30d or 12h)"))
                    })?
                    .as_millis()
                    .try_into()
                    .unwrap_or(u64::MAX),
            ),
            None => None,
        };
        let request = Remember {
            content,
            meta: MemoryMeta {
                summary: r.summary.clone(),
                tags: r.tags.clone(),
                tier,
                room: r.room.clone(),
                source: r.by.source(),
                scope: match (&r.session, r.session_only) {
                    (Some(session), true) => Scope::Session(session.clone()),
                    _ => Scope::Store,
                },
                ttl_ms,
            },
            subject: subject(r.by, r.session.as_ref()),
        };
        let receipt = self.engram().remember(&request)?;
        Ok(json::receipt(self.scope(), &receipt))
    }

    /// Saves a batch as one atomic append; one result per item, in order.
    /// An item with bad input, or one a gate denies, fails alone (its
    /// result says why and names its index) and the others are saved; no
    /// item is ever half saved.
    ///
    /// # Errors
    /// An empty batch.
    pub fn remember_batch(&self, r: &BatchRequest) -> Result<Value, ApiError> {
        if r.items.is_empty() {
            return Err(ApiError::bad_request("the batch holds no items"));
        }
        let requests: Vec<Remember> = r
            .items
            .iter()
            .map(|item| Remember {
                content: Content::Text {
                    text: item.content.clone(),
                    session: r.session.clone(),
                },
                meta: MemoryMeta {
                    summary: item.summary.clone(),
                    tags: item.tags.clone(),
                    room: item.room.clone().or_else(|| r.room.clone()),
                    source: r.by.source(),
                    ..MemoryMeta::default()
                },
                subject: subject(r.by, r.session.as_ref()),
            })
            .collect();
        let (scope, results) = match r.scope.as_deref() {
            None => (self.scope(), self.engram().remember_batch(&requests)?),
            Some(scope) if scope == self.scope() => {
                (scope, self.engram().remember_batch(&requests)?)
            }
            Some(scope) => {
                let Some(other) = self.others.iter().find(|s| s.scope == scope) else {
                    let mut known = vec![self.scope()];
                    known.extend(self.others.iter().map(|s| s.scope));
                    return Err(ApiError::bad_request(format!(
                        "no {scope:?} store here: use one of {}",
                        known.join(", ")
                    )));
                };
                let results = other
                    .with(true, |engram| engram.remember_batch(&requests))?
                    .transpose()?
                    .unwrap_or_default();
                (other.scope, results)
            }
        };
        // One result per item, in order, each naming its item's index: an
        // item that failed appended nothing (a denied one its `gate_denied`).
        let results: Vec<Value> = results
            .into_iter()
            .enumerate()
            .map(|(index, result)| match result {
                Ok(receipt) => {
                    let mut answer = json::receipt(scope, &receipt);
                    if let Some(fields) = answer.as_object_mut() {
                        fields.insert("index".to_owned(), json!(index));
                    }
                    answer
                }
                Err(e) => {
                    let e = ApiError::from(e);
                    json!({"index": index, "outcome": "error", "error": e.code.as_str(), "message": e.message})
                }
            })
            .collect();
        Ok(json!({ "results": results }))
    }

    /// Recalls across every store held.
    ///
    /// # Errors
    /// An empty query or a limit out of range.
    pub fn recall_hits(&self, r: &RecallRequest) -> Result<Recalled, ApiError> {
        let limit = r.limit()?;
        let query = RecallQuery {
            text: r.query.clone(),
            room: r.room.clone(),
            tier: r.tier.map(TierName::tier),
            tags: r.tags.clone(),
            session: r.session.clone(),
            limit,
        };
        let mut hits: Vec<(usize, &'static str, Hit)> = self
            .engram()
            .recall(&query)?
            .into_iter()
            .map(|hit| (0, self.scope(), hit))
            .collect();
        let mut hybrid = self.engram().last_recall_mode() == RecallMode::Hybrid;
        let mut skipped = Vec::new();
        for (rank, other) in (1..).zip(&self.others) {
            // A store with no log has nothing to find (and is not created).
            let searched = other.with(false, |engram| {
                engram
                    .recall(&query)
                    .map(|found| (found, engram.last_recall_mode()))
            });
            match searched {
                Ok(None) => {}
                Ok(Some(found)) => {
                    let (found, mode) = found?;
                    hybrid &= mode == RecallMode::Hybrid;
                    hits.extend(found.into_iter().map(|hit| (rank, other.scope, hit)));
                }
                // Another process writing that store past the lock wait:
                // answer from the others and say so.
                Err(EngineError::Store(e)) => {
                    skipped.push(format!("the {} store: {e}", other.scope));
                }
                Err(e) => return Err(e.into()),
            }
        }
        hits.sort_by(|a, b| {
            b.2.score
                .total_cmp(&a.2.score)
                .then(a.0.cmp(&b.0))
                .then(a.2.id.cmp(&b.2.id))
        });
        hits.truncate(limit);
        Ok(Recalled {
            hits: hits
                .into_iter()
                .map(|(_, scope, hit)| (scope, hit))
                .collect(),
            mode: if hybrid {
                RecallMode::Hybrid
            } else {
                RecallMode::Keyword
            },
            skipped,
        })
    }

    /// Recalls and answers `{"hits", "mode", "context"}`.
    ///
    /// # Errors
    /// As [`Service::recall_hits`].
    pub fn recall(&self, r: &RecallRequest) -> Result<Value, ApiError> {
        let recalled = self.recall_hits(r)?;
        let mut answer = json!({
            "hits": recalled.hits.iter().map(|(scope, hit)| json::hit(scope, hit)).collect::<Vec<_>>(),
            "mode": recalled.mode.as_str(),
            "context": context_block(&recalled.hits),
        });
        if !recalled.skipped.is_empty() {
            answer["skipped"] = json!(recalled.skipped);
        }
        Ok(answer)
    }

    /// A memory's table entry.
    ///
    /// # Errors
    /// `not_found` for an unknown id.
    pub fn memory(&self, id: IdArg) -> Result<Value, ApiError> {
        let scope = self.target_scope(self.resolve(id)?);
        let named = IdArg {
            scope: Some(scope),
            id: id.id,
        };
        let (_, answer) = self.with_memory(named, |engram, id| {
            let entry = engram
                .core()
                .memory_table
                .read()
                .state
                .get(id)
                .cloned()
                .ok_or(EngineError::UnknownMemory { id })?;
            Ok::<_, ApiError>(json::memory(scope, engram, &entry))
        })?;
        Ok(answer)
    }

    /// A memory's original words, verified.
    ///
    /// # Errors
    /// Unknown, forgotten (outside audit), tampered, or gated.
    pub fn expand(
        &self,
        id: IdArg,
        session: Option<&String>,
        audit: bool,
    ) -> Result<Value, ApiError> {
        let (scope, expansion) = self.with_memory(id, |engram, id| {
            engram.expand_as(id, &subject(By::User, session), audit)
        })?;
        Ok(json::expansion(scope, &expansion))
    }

    /// Expands as a model would (no audit mode).
    ///
    /// # Errors
    /// As [`Service::expand`].
    pub fn expand_as_model(&self, id: IdArg, session: Option<&String>) -> Result<Value, ApiError> {
        let (scope, expansion) = self.with_memory(id, |engram, id| {
            engram.expand_as(id, &subject(By::Model, session), false)
        })?;
        Ok(json::expansion(scope, &expansion))
    }

    /// A memory's audit history.
    ///
    /// # Errors
    /// `not_found` for an unknown id.
    pub fn audit(&self, id: IdArg) -> Result<Value, ApiError> {
        let (scope, history) = self.with_memory(id, |engram, id| engram.audit(id))?;
        Ok(json!({
            "id": qualified(scope, id.id),
            "history": history.iter().map(json::audit_record).collect::<Vec<_>>(),
        }))
    }

    /// Tombstones a memory.
    ///
    /// # Errors
    /// Unknown or gated.
    pub fn forget(&self, id: IdArg, r: &ForgetRequest) -> Result<Value, ApiError> {
        let (scope, forgetting) = self.with_memory(id, |engram, id| {
            engram.forget(
                id,
                &subject(r.by, r.session.as_ref()),
                r.reason.as_deref().unwrap_or_default(),
            )
        })?;
        Ok(json::forgetting(scope, &forgetting))
    }

    /// Checks a quote against a memory's verified source.
    ///
    /// # Errors
    /// Unknown, forgotten, tampered, or gated.
    pub fn confirm(&self, id: IdArg, r: &ConfirmRequest) -> Result<Value, ApiError> {
        let (scope, confirmation) = self.with_memory(id, |engram, id| {
            engram.confirm(id, &subject(r.by, r.session.as_ref()), &r.quote)
        })?;
        Ok(json::confirmation(scope, &confirmation))
    }

    /// Records a review grade.
    ///
    /// # Errors
    /// A grade outside 0-5, an unknown or forgotten memory, or gated.
    pub fn grade(&self, id: IdArg, r: &GradeRequest) -> Result<Value, ApiError> {
        r.validate()?;
        let subject = subject(r.by, None);
        let (scope, schedule) =
            self.with_memory(id, |engram, id| engram.grade_as(id, r.grade, &subject))?;
        Ok(json::schedule(scope, id.id, r.grade, &schedule))
    }

    /// Memories due for review at `at` (default now): never content.
    ///
    /// # Errors
    /// A time that does not parse.
    pub fn review(&self, at: Option<&str>) -> Result<Value, ApiError> {
        let now = now_ms();
        let at = at.map_or(Ok(now), |text| parse_time(text, now))?;
        Ok(json::due(self.scope(), &self.engram().review(at)))
    }

    /// Open and shelved contradictions.
    #[must_use]
    pub fn verdicts(&self) -> Value {
        let (open, shelved) = self.engram().contradictions();
        json::contradictions(self.scope(), &open, &shelved)
    }

    /// Decides a contradiction.
    ///
    /// # Errors
    /// Not a contradiction, already decided, or gated.
    pub fn verdict(&self, r: &VerdictRequest) -> Result<Value, ApiError> {
        let target = self.resolve_all(&[r.a, r.b])?;
        let seq = self.on(target, |engram| {
            Ok(engram.verdict(
                r.a.id,
                r.b.id,
                r.verdict.verdict(),
                r.by.actor(),
                r.reason.as_deref().unwrap_or_default(),
            )?)
        })?;
        let scope = self.target_scope(target);
        Ok(json!({
            "a": qualified(scope, r.a.id),
            "b": qualified(scope, r.b.id),
            "verdict": r.verdict.as_str(),
            "seq": seq,
        }))
    }

    /// Archives expired, decayed and evicted memories.
    ///
    /// # Errors
    /// A time that does not parse, or gated.
    pub fn maintain(&self, r: &MaintainRequest) -> Result<Value, ApiError> {
        let now = now_ms();
        let at =
            r.at.as_deref()
                .map_or(Ok(now), |text| parse_time(text, now))?;
        let defaults = MaintainPolicy::default();
        let policy = MaintainPolicy {
            idle_days: r.idle_days.unwrap_or(defaults.idle_days),
            importance_below: r.importance_below.unwrap_or(defaults.importance_below),
            hot_set_capacity: r.capacity.unwrap_or(defaults.hot_set_capacity),
            keep_trust_at_least: r.keep_trust.unwrap_or(defaults.keep_trust_at_least),
        };
        let archived = self
            .engram()
            .maintain_as(&policy, at, r.dry_run, &subject(r.by, None))?;
        Ok(json::archived(self.scope(), &archived, r.dry_run))
    }

    /// Clusters of similar memories worth a rule.
    #[must_use]
    pub fn distill_candidates(&self) -> Value {
        json::clusters(self.scope(), &self.engram().distill_candidates_described())
    }

    /// Records a distilled rule.
    ///
    /// # Errors
    /// Too few members, unknown members, bad text, or gated.
    pub fn distill(&self, r: &DistillRequest) -> Result<Value, ApiError> {
        let by = r.by.unwrap_or(By::Model);
        let target = self.resolve_all(&r.members)?;
        let members: Vec<MemoryId> = r.members.iter().map(|m| m.id).collect();
        let d = self.on(target, |engram| {
            Ok(engram.distill(&members, &r.rule, r.room.as_deref(), &subject(by, None))?)
        })?;
        Ok(json::distillation(self.target_scope(target), &d))
    }

    /// The entity dictionary.
    ///
    /// # Errors
    /// An unknown category.
    pub fn entities(
        &self,
        category: Option<&str>,
        search: Option<&str>,
    ) -> Result<Value, ApiError> {
        const CATEGORIES: [&str; 6] =
            ["person", "project", "tool", "file", "organisation", "place"];
        if let Some(c) = category
            && !CATEGORIES.contains(&c)
        {
            return Err(ApiError::bad_request(format!(
                "unknown category {c:?}: use one of {}",
                CATEGORIES.join(", ")
            )));
        }
        let search = search.filter(|s| !s.trim().is_empty());
        Ok(json::entities(
            self.scope(),
            &self.engram().entities(category, search),
        ))
    }

    /// The room directory, or one room's tour.
    ///
    /// # Errors
    /// `not_found` for an unknown room.
    pub fn palace(&self, room: Option<&str>) -> Result<Value, ApiError> {
        let core = self.engram().core();
        match room {
            Some(name) => engram_queries::palace::room(core, name)
                .map(|r| json::room(self.scope(), &r))
                .ok_or_else(|| {
                    ApiError::new(
                        ErrorCode::NotFound,
                        format!("no room {name:?}: the palace directory lists the rooms"),
                    )
                }),
            None => Ok(json!({
                "rooms": engram_queries::palace::directory(core).iter().map(|r| json::room(self.scope(), r)).collect::<Vec<_>>(),
            })),
        }
    }

    /// Memories too alike to others to stand alone.
    #[must_use]
    pub fn renovation(&self) -> Value {
        json::renovation(
            self.scope(),
            &engram_queries::palace::renovation(self.engram().core(), RENOVATION_BELOW_PERMILLE),
        )
    }

    /// Counts, views, health, recall mode.
    #[must_use]
    pub fn stats(&self) -> Value {
        let engram = self.engram();
        let model = engram.embedder().map(|e| e.model_id().to_owned());
        json::stats(
            &engram.stats(),
            None,
            engram.recall_mode().as_str(),
            model.as_deref(),
        )
    }

    /// Verifies the whole log (hash chain and HMACs).
    ///
    /// # Errors
    /// When the log cannot be read at all.
    pub fn verify(&self) -> Result<Value, ApiError> {
        let report = self
            .engram()
            .verify()
            .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?;
        Ok(json::verify_report(&report))
    }

    /// Events of the log, filtered; with a limit, the last matches.
    ///
    /// # Errors
    /// Bad bounds or times, a log that cannot be read.
    pub fn log(&self, q: &LogQuery) -> Result<Value, ApiError> {
        match q.memory {
            None => Self::log_in(self.scope(), self.engram(), q, None),
            Some(id) => {
                let target = self.resolve(id)?;
                let scope = self.target_scope(target);
                self.on(target, |engram| Self::log_in(scope, engram, q, Some(id.id)))
            }
        }
    }

    /// [`Service::log`] over the log of `scope`'s store, `memory` the id there.
    fn log_in(
        scope: &str,
        engram: &Engram,
        q: &LogQuery,
        memory: Option<MemoryId>,
    ) -> Result<Value, ApiError> {
        let last = engram.log().last_seq();
        let now = now_ms();
        let since = q.since.as_deref().map(|t| parse_time(t, now)).transpose()?;
        let until = q.until.as_deref().map(|t| parse_time(t, now)).transpose()?;
        let limit = q.limit.unwrap_or(200);
        if !(1..=10_000).contains(&limit) {
            return Err(ApiError::bad_request(format!(
                "limit {limit} is outside 1-10000"
            )));
        }
        let from = q.from.unwrap_or(1).max(1);
        let to = q.to.unwrap_or(last).min(last);
        // The audit index names the seqs of one memory or one session; a
        // kind or time filter alone walks the range.
        let indexed: Option<Vec<u64>> = match (memory, &q.session) {
            (Some(memory), session) => {
                let mut seqs = engram.views().memory_seqs(memory)?;
                if let Some(session) = session {
                    let of_session = engram.views().session_seqs(session)?;
                    seqs.retain(|s| of_session.binary_search(s).is_ok());
                }
                Some(seqs)
            }
            (None, Some(session)) => Some(engram.views().session_seqs(session)?),
            (None, None) => None,
        };
        // Newest first, so the walk stops at the limit, and at `since`:
        // commit times never go back along the seqs.
        let mut newest_first = Vec::new();
        let mut keep = |logged: &engram_log::LoggedEvent| -> Result<Walk, ApiError> {
            if since.is_some_and(|s| logged.ts_ms < s) {
                return Ok(Walk::Stop);
            }
            let kind_ok = q.kind.as_deref().is_none_or(|k| k == logged.event.kind());
            let time_ok = until.is_none_or(|u| logged.ts_ms <= u);
            if kind_ok && time_ok {
                newest_first.push(
                    json::logged_event(logged)
                        .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?,
                );
            }
            Ok(if newest_first.len() == limit {
                Walk::Stop
            } else {
                Walk::On
            })
        };
        let read = |range: std::ops::RangeInclusive<u64>| {
            engram
                .log()
                .read(range)
                .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))
        };
        if from <= to {
            match indexed {
                Some(seqs) => {
                    'seqs: for &seq in seqs.iter().rev().filter(|s| (from..=to).contains(*s)) {
                        for logged in read(seq..=seq)? {
                            if keep(&logged)? == Walk::Stop {
                                break 'seqs;
                            }
                        }
                    }
                }
                None => {
                    let mut high = to;
                    'chunks: loop {
                        let low = high.saturating_sub(LOG_WALK_CHUNK - 1).max(from);
                        for logged in read(low..=high)?.iter().rev() {
                            if keep(logged)? == Walk::Stop {
                                break 'chunks;
                            }
                        }
                        if low == from {
                            break;
                        }
                        high = low - 1;
                    }
                }
            }
        }
        newest_first.reverse();
        Ok(json!({"events": newest_first, "last_seq": last, "scope": scope}))
    }

    /// Records a parsed transcript as one session's turns, redacted and
    /// gated like every write (`Engram::record_turns`, by the user), in
    /// atomic appends of up to `engram_commands::record::TURNS_MAX` turns.
    ///
    /// # Errors
    /// An append failure, a turn the gates refuse.
    pub fn ingest_parsed(&self, parsed: ParsedTranscript) -> Result<Ingested, ApiError> {
        let ParsedTranscript {
            session,
            transcript,
            skipped,
        } = parsed;
        let engram = self.engram();
        if transcript.turns.is_empty() {
            return Err(ApiError::bad_request("the transcript holds no turns"));
        }
        // Counted on the words as given; the handler redacts them the same way.
        let redacted = transcript
            .turns
            .iter()
            .map(|turn| engram_text::redact::redact(&turn.content).findings.len())
            .sum();
        let mut range: Option<(u64, u64)> = None;
        let mut recorded = Vec::new();
        for chunk in transcript.turns.chunks(INGEST_BATCH_EVENTS) {
            let appended = engram.record_turns(&session, chunk, &Subject::user())?;
            range = Some((
                range.map_or(appended.first_seq, |(first, _)| first),
                appended.last_seq,
            ));
            for logged in engram
                .log()
                .read(appended.first_seq..=appended.last_seq)
                .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?
            {
                if let engram_log::Event::Session(turn) = logged.event {
                    recorded.push((logged.seq, turn));
                }
            }
        }
        let (first_seq, last_seq) = range.unwrap_or((0, 0));
        Ok(Ingested {
            session,
            first_seq,
            last_seq,
            turns: transcript.turns.len(),
            redacted,
            skipped,
            recorded,
        })
    }

    /// [`parse_ingest`] then [`Service::ingest_parsed`].
    ///
    /// # Errors
    /// As the two.
    pub fn ingest_turns(
        &self,
        bytes: &[u8],
        session: Option<&str>,
        skip_bad_lines: bool,
    ) -> Result<Ingested, ApiError> {
        self.ingest_parsed(parse_ingest(bytes, session, skip_bad_lines)?)
    }

    /// [`Service::ingest_turns`] answering JSON.
    ///
    /// # Errors
    /// As [`Service::ingest_turns`].
    pub fn ingest(&self, r: &IngestRequest) -> Result<Value, ApiError> {
        let ingested = self.ingest_turns(
            r.transcript.as_bytes(),
            r.session.as_deref(),
            r.skip_bad_lines,
        )?;
        Ok(json::ingested(&ingested, &[]))
    }

    /// Adds vectors of the attached model to memories without one.
    ///
    /// # Errors
    /// No model attached, or the model fails.
    pub fn reembed(&self) -> Result<Value, ApiError> {
        let engram = self.engram();
        let Some(model) = engram.embedder().map(|e| e.model_id().to_owned()) else {
            return Err(ApiError::bad_request(
                "no embedding model is configured: recall is keyword-only",
            ));
        };
        let added = engram.reembed(&|_, _| {})?;
        Ok(json!({"model": model, "added": added, "mode": engram.recall_mode().as_str()}))
    }
}

/// A transcript parsed for ingest, with the session it goes to.
#[derive(Debug, Clone)]
pub struct ParsedTranscript {
    pub session: String,
    pub transcript: engram_commands::ingest::Transcript,
    /// The lines left out (with `skip_bad_lines`).
    pub skipped: Vec<IngestError>,
}

/// Parses a transcript (JSON lines) before anything is opened or appended,
/// so a refused transcript writes nothing. The session is `session`, else
/// the transcript's own, else one derived from the bytes.
///
/// # Errors
/// `bad_request` naming the first bad line (or every line, when all are bad).
pub fn parse_ingest(
    bytes: &[u8],
    session: Option<&str>,
    skip_bad_lines: bool,
) -> Result<ParsedTranscript, ApiError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| ApiError::bad_request(format!("the transcript is not UTF-8: {e}")))?;
    let (transcript, skipped) = if skip_bad_lines {
        parse_transcript_skipping(text)
    } else {
        parse_transcript(text).map(|t| (t, Vec::new()))
    }
    .map_err(|e| {
        ApiError::bad_request(format!(
            "{e} (nothing was ingested; skipping bad lines ingests the good ones)"
        ))
    })?;
    let session = session
        .map(str::to_owned)
        .or(transcript.session.clone())
        .unwrap_or_else(|| derived_session_id(bytes));
    if session.trim().is_empty() {
        return Err(ApiError::bad_request("the session must not be empty"));
    }
    Ok(ParsedTranscript {
        session,
        transcript,
        skipped,
    })
}

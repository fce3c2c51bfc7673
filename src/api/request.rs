//! The request types every door builds (the CLI, HTTP, MCP): one set of
//! serde, clap and JSON-schema derives, the limits as named constants, and
//! the checks of those limits, so every door refuses with one message.

use engram_log::{Actor, Source, Tier, Verdict};
use engram_projections::models::review::GRADE_MAX;
use engram_queries::list::{LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, ListStatus};
use engram_queries::recall::{RECALL_LIMIT_DEFAULT, RECALL_LIMIT_MAX};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{ApiError, IdArg};
use crate::engine::EngineError;
use crate::flywheel::FlywheelError;

/// Who acts: `user` or `model`.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum,
)]
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
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum,
)]
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
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RememberRequest {
    /// The words to remember (a fact, decision or preference worth keeping
    /// across sessions). Omit to remember recorded session turns instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Palace room to file it in (a short topic like `deploys`); chosen
    /// automatically when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room: Option<String>,
    /// Tags for filtering recall.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// A one-line summary shown instead of the full text in lists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The session the words come from (plain content is recorded there,
    /// default `notes`), or whose turns `first_seq`..`last_seq` name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// First seq of the recorded session turns to remember.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_seq: Option<u64>,
    /// Last seq of the recorded session turns to remember.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_seq: Option<u64>,
    /// Visible only within `session`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub session_only: bool,
    /// l1 (a session memory: the default when `session` is named), l3
    /// (cross-session: the default otherwise) or l2 (workspace document).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "TierName")]
    pub tier: Option<TierName>,
    /// Who is saving it.
    #[serde(default)]
    pub by: By,
    /// Time to live (`30d`, `12h`): past it, maintenance archives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<String>,
}

/// Save several plain-text memories at once.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchRequest {
    /// The memories: each `{"content", "room"?, "tags"?, "summary"?}`.
    pub items: Vec<BatchItem>,
    /// Session the words are recorded in (default `notes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Room for items that name none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room: Option<String>,
    /// Who is saving them.
    #[serde(default)]
    pub by: By,
    /// Which store takes them (`project`, `user`; default the primary).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// One memory of a batch.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchItem {
    /// The words to remember.
    pub content: String,
    /// Palace room (a short topic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room: Option<String>,
    /// Tags for filtering recall.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// A one-line summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

/// Find memories.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecallRequest {
    /// What to look for, in words (keywords or a question).
    pub query: String,
    /// Search this room first (its corridor), then everywhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room: Option<String>,
    /// Only this tier (`l4` searches archived memories).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "TierName")]
    pub tier: Option<TierName>,
    /// Only memories carrying every one of these tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// The caller's session: its session-only memories are included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Most hits, 1-100 (default 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = RECALL_LIMIT_MAX))]
    pub limit: Option<u32>,
    /// The relevance floor: hits whose relevance is below it are left out
    /// (never filled in to reach the limit). Hybrid relevance is 0-1
    /// (default 0.1); keyword relevance is a BM25 score (default: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = MIN_SCORE_MAX))]
    pub min_score: Option<f64>,
}

/// The largest relevance floor a recall takes (BM25 scores of real
/// queries stay far below it).
pub const MIN_SCORE_MAX: f64 = 1_000.0;

impl RecallRequest {
    /// The relevance floor asked for, checked.
    ///
    /// # Errors
    /// `bad_request` for a floor that is not a number in 0-1000.
    pub fn min_score(&self) -> Result<Option<f64>, ApiError> {
        match self.min_score {
            Some(floor) if !(0.0..=MIN_SCORE_MAX).contains(&floor) => Err(ApiError::bad_request(
                format!("min_score {floor} is outside 0-{MIN_SCORE_MAX}"),
            )),
            floor => Ok(floor),
        }
    }

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
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForgetRequest {
    /// Why it should be forgotten (kept in the tombstone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Who forgets.
    #[serde(default)]
    pub by: By,
    /// The caller's session (needed for session-only memories).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

/// Erase a memory (and every event whose words derive from it), or a
/// whole session, for good: its data keys are destroyed. The memory or
/// session is named by the route (`/api/memories/{id}/purge`,
/// `/api/sessions/{name}/purge`), or by the CLI's `ID` / `--session S`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields)]
pub struct PurgeRequest {
    /// Why, kept in the clear in the log for auditors (at most 4 KiB):
    /// never put the erased words or the secret itself here.
    #[arg(long, value_name = "R")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Who purges (a model cannot purge what the user said, nor a session).
    #[arg(skip)]
    #[serde(default)]
    pub by: By,
    /// The caller's session (needed for session-only memories).
    #[arg(skip)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

/// Largest purge reason, in bytes (after redaction).
pub const PURGE_REASON_BYTES_MAX: usize = engram_commands::memory::NOTE_BYTES_MAX;

impl PurgeRequest {
    /// The gate's subject: who purges, from which session.
    #[must_use]
    pub fn subject(&self) -> engram_commands::gate::Subject {
        engram_commands::gate::Subject {
            actor: self.by.actor(),
            session: self.session.clone(),
        }
    }
}

/// Evidence for a memory.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfirmRequest {
    /// Words that must occur in the memory's source.
    pub quote: String,
    /// Who confirms.
    #[serde(default)]
    pub by: By,
    /// The caller's session (needed for session-only memories).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

/// A contradiction's verdict: `keep-a` (b leaves recall), `keep-b` (a
/// leaves recall), `keep-both` (both stand) or `shelve` (decide later).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum,
)]
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
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerdictRequest {
    /// One memory of the contradiction (`p:2`; both of one store).
    pub a: IdArg,
    /// The other.
    pub b: IdArg,
    pub verdict: VerdictName,
    #[serde(default)]
    pub by: By,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A review grade.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
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

/// One workspace document: its path under the workspace root and its text.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceDocument {
    /// Relative to the workspace root (`AGENTS.md`, `docs/deploy.md`), at
    /// most `PATH_BYTES_MAX` (100) bytes.
    pub path: String,
    /// The document's text, at most `DOCUMENT_BYTES_MAX` (256 KiB).
    pub content: String,
}

/// Record workspace documents (AGENTS.md, CLAUDE.md, README, docs/) as L2
/// memories; an unchanged document adds nothing, a changed one supersedes
/// its older version's memories.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceRequest {
    /// At most `DOCUMENTS_MAX` (64), `WORKSPACE_BYTES_MAX` (2 MiB) in all.
    pub documents: Vec<WorkspaceDocument>,
    /// Who records them.
    #[serde(default)]
    pub by: By,
}

impl WorkspaceRequest {
    /// The documents as the handler takes them.
    #[must_use]
    pub fn documents(&self) -> Vec<engram_commands::workspace::Document> {
        self.documents
            .iter()
            .map(|d| engram_commands::workspace::Document {
                path: d.path.clone(),
                content: d.content.clone(),
            })
            .collect()
    }

    /// Checks the limits: count, sizes, paths, text.
    ///
    /// # Errors
    /// `bad_request` naming the first document that breaks one.
    pub fn validate(&self) -> Result<(), ApiError> {
        engram_commands::workspace::check(&self.documents())
            .map_err(|e| ApiError::from(EngineError::from(e)))
    }
}

/// Move a memory to another tier by hand.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TierRequest {
    /// The tier to move it to: l1 (its session), l3 (cross-session) or l4
    /// (the archive; out of l4 it is live again). l2 holds workspace
    /// documents, which move only when their file changes.
    #[schemars(with = "TierName")]
    pub tier: TierName,
    /// Why (kept in the `tier_changed` event).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Who moves it (a model cannot archive what the user said).
    #[serde(default)]
    pub by: By,
}

/// What a corridor placement moves: a `room` (with its topic's other
/// rooms) or a `corridor`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum PlaceKindName {
    Room,
    Corridor,
}

impl PlaceKindName {
    #[must_use]
    pub fn placed(self) -> engram_log::Placed {
        match self {
            PlaceKindName::Room => engram_log::Placed::Room,
            PlaceKindName::Corridor => engram_log::Placed::Corridor,
        }
    }
}

/// Largest room or corridor name in a placement, in bytes.
pub const CORRIDOR_NAME_BYTES_MAX: usize = engram_commands::memory::NAME_BYTES_MAX;

/// Put a room (every room of its topic: `deploy-2` moves with `deploy`) or
/// a corridor on a corridor.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields)]
pub struct CorridorRequest {
    /// The room, or the corridor, to place.
    pub name: String,
    /// The corridor to put it on (a new name opens a corridor). A corridor
    /// cannot go inside itself or a corridor inside it.
    #[arg(long)]
    pub into: String,
    /// Whether NAME is a room or a corridor, when one of each has it
    /// (default: the room).
    #[arg(long, value_enum)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "PlaceKindName")]
    pub kind: Option<PlaceKindName>,
    /// Who moves it (a model cannot move what the user placed).
    #[arg(long, value_enum, default_value = "user")]
    #[serde(default)]
    pub by: By,
}

impl CorridorRequest {
    /// Checks the names' sizes.
    ///
    /// # Errors
    /// `bad_request` naming the field over [`CORRIDOR_NAME_BYTES_MAX`].
    pub fn validate(&self) -> Result<(), ApiError> {
        for (field, value) in [("name", &self.name), ("into", &self.into)] {
            if value.len() > CORRIDOR_NAME_BYTES_MAX {
                return Err(ApiError::bad_request(format!(
                    "{field} is {} bytes, over the limit of {CORRIDOR_NAME_BYTES_MAX}",
                    value.len()
                )));
            }
        }
        Ok(())
    }
}

/// Archive what should go.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MaintainRequest {
    /// Run as if at this time (RFC 3339 or `+30d`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// Only say what would be archived.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_days: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub importance_below: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_trust: Option<u16>,
    /// Days without access before a session memory (L1) never promoted
    /// decays (default 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_idle_days: Option<u64>,
    /// Who runs it (a model cannot archive what the user said).
    #[serde(default)]
    pub by: By,
}

/// Record a rule distilled from member memories.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DistillRequest {
    /// Member memory ids (at least two, of one store; `p:2`).
    pub members: Vec<IdArg>,
    /// The rule, in the caller's words.
    pub rule: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room: Option<String>,
    /// Who wrote the rule (default model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<By>,
    /// Only check it and say what would be recorded (members, confidence,
    /// room, the rule as redacted); nothing is written, not even a gate's
    /// denial.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
}

/// Which events of the log to list.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogQuery {
    /// First seq.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<u64>,
    /// Last seq.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<u64>,
    /// Only this event kind (`recalled`, `remembered`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Only events of this session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Only events naming this memory (`p:2`): the log of its store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<IdArg>,
    /// Committed at or after (RFC 3339 or `+1h`... offsets count from now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Committed at or before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// The last this many matches (1-10000, default 200).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

/// Record a transcript as one session's turns.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IngestRequest {
    /// JSON lines: `{role, content}` each, or a Claude Code session file.
    pub transcript: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Ingest the good lines and report the bad ones.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skip_bad_lines: bool,
    /// Also save the memories proposed from the user's turns (preferences,
    /// decisions, corrections, facts), each referencing its turn; a
    /// correction that contradicts a memory supersedes it. On unless `false`.
    #[serde(default = "extract_by_default")]
    pub extract: bool,
}

/// A memory's status as `list` shows and filters it: `live`, `superseded`
/// (overruled by a verdict: an update retired it, or a contradiction was
/// decided against it), `archived` or `forgotten`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum StatusName {
    Live,
    Superseded,
    Archived,
    Forgotten,
    Purged,
}

impl StatusName {
    #[must_use]
    pub fn status(self) -> ListStatus {
        match self {
            StatusName::Live => ListStatus::Live,
            StatusName::Superseded => ListStatus::Superseded,
            StatusName::Archived => ListStatus::Archived,
            StatusName::Forgotten => ListStatus::Forgotten,
            StatusName::Purged => ListStatus::Purged,
        }
    }
}

/// Which memories to list, newest first, a page at a time. Every field is
/// a plain value, so the request is also a URL query (`GET
/// /api/memories?room=deploys&limit=10`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListRequest {
    /// Only memories filed in this room (or a room of its corridor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room: Option<String>,
    /// Only memories carrying this tag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// Only memories in this tier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "TierName")]
    pub tier: Option<TierName>,
    /// Only memories of this status; default every status but forgotten.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "StatusName")]
    pub status: Option<StatusName>,
    /// Only memories created at or after this time: RFC 3339
    /// (`2026-12-01T09:00:00Z`) or an offset from now (`-7d`, `-12h`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Most memories on this page, 1-500 (default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = LIST_LIMIT_MAX))]
    pub limit: Option<u32>,
    /// Where the page starts: the `next` of the page before (opaque).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

impl ListRequest {
    /// The number of memories asked for, checked.
    ///
    /// # Errors
    /// `bad_request` for a limit outside 1-500.
    pub fn limit(&self) -> Result<usize, ApiError> {
        let limit = self.limit.map_or(LIST_LIMIT_DEFAULT, |l| l as usize);
        if (1..=LIST_LIMIT_MAX).contains(&limit) {
            Ok(limit)
        } else {
            Err(ApiError::bad_request(format!(
                "limit {limit} is outside 1-{LIST_LIMIT_MAX}"
            )))
        }
    }
}

/// New words for a memory: recorded as a new memory and a verdict that
/// retires the old one, in one atomic append.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateRequest {
    /// The new words, self-contained (they replace the old memory's).
    pub content: String,
    /// Why (kept in the verdict that retires the old memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Who updates.
    #[serde(default)]
    pub by: By,
    /// The caller's session: the new words are recorded there (default
    /// `notes`); needed to update a session-only memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// A one-line summary of the new words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Tags of the new memory (default: the old memory's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// Palace room of the new memory (default: the old memory's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room: Option<String>,
}

/// An entity category: `person`, `project`, `tool`, `file`,
/// `organisation` or `place`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum CategoryName {
    Person,
    Project,
    Tool,
    File,
    Organisation,
    Place,
}

impl CategoryName {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            CategoryName::Person => "person",
            CategoryName::Project => "project",
            CategoryName::Tool => "tool",
            CategoryName::File => "file",
            CategoryName::Organisation => "organisation",
            CategoryName::Place => "place",
        }
    }
}

fn extract_by_default() -> bool {
    true
}

/// The size of a series' buckets: `hour`, `day` or `week`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum BucketName {
    Hour,
    Day,
    Week,
}

impl BucketName {
    /// The bucket's length.
    #[must_use]
    pub fn millis(self) -> u64 {
        match self {
            BucketName::Hour => engram_queries::series::DAY_MS / 24,
            BucketName::Day => engram_queries::series::DAY_MS,
            BucketName::Week => engram_queries::series::WEEK_MS,
        }
    }
}

/// Charts over time drawn from the log: per bucket of commit time, the
/// live memories, the recalls, the recalls with a hit and the health
/// score. Every field is a plain value, so the request is also a URL
/// query (`GET /api/series?bucket=day`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeriesRequest {
    /// The buckets' size; by default the smallest of 1, 5 or 15 minutes,
    /// an hour, 6 hours, a day or a week (then whole weeks) that cuts the
    /// log's span into at most 60 buckets. A given size may make up to 366.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "BucketName")]
    pub bucket: Option<BucketName>,
}

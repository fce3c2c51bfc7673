//! The interfaces' errors: a stable code (the `error` field of an HTTP
//! error body, the first word of an MCP tool error, the CLI's exit status)
//! and a message to act on.

use serde_json::{Value, json};

use crate::engine::EngineError;
use crate::flywheel::FlywheelError;

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
    /// The memory's words were erased by a purge.
    Erased,
    AmbiguousId,
    PayloadTooLarge,
    UnsupportedMediaType,
    MethodNotAllowed,
    VersionMismatch,
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
            ErrorCode::Erased => "erased",
            ErrorCode::AmbiguousId => "ambiguous_id",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::UnsupportedMediaType => "unsupported_media_type",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::VersionMismatch => "version_mismatch",
            ErrorCode::Internal => "internal",
        }
    }

    /// The code named by its stable text (`not_found`), as a client reads
    /// it back from an error body.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        const ALL: [ErrorCode; 16] = [
            ErrorCode::BadRequest,
            ErrorCode::InvalidJson,
            ErrorCode::Unauthorized,
            ErrorCode::Denied,
            ErrorCode::NotFound,
            ErrorCode::NoStore,
            ErrorCode::Discarded,
            ErrorCode::Tampered,
            ErrorCode::Forgotten,
            ErrorCode::Erased,
            ErrorCode::AmbiguousId,
            ErrorCode::PayloadTooLarge,
            ErrorCode::UnsupportedMediaType,
            ErrorCode::MethodNotAllowed,
            ErrorCode::VersionMismatch,
            ErrorCode::Internal,
        ];
        ALL.into_iter().find(|c| c.as_str() == text)
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
            ErrorCode::Discarded | ErrorCode::Tampered | ErrorCode::VersionMismatch => 409,
            ErrorCode::Forgotten | ErrorCode::Erased => 410,
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
    /// Facts a program reads instead of the message (an erased memory's
    /// purge: `{"id", "purged_seq", "by", "reason"}`), as `details` in
    /// the body.
    pub details: Option<Value>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: None,
        }
    }

    /// The error with `details` for programs.
    #[must_use]
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::BadRequest, message)
    }

    /// The JSON error body: `{"error": code, "message"}`, and `details`
    /// when there are any.
    #[must_use]
    pub fn to_json(&self) -> Value {
        match &self.details {
            None => json!({"error": self.code.as_str(), "message": self.message}),
            Some(details) => json!({
                "error": self.code.as_str(),
                "message": self.message,
                "details": details,
            }),
        }
    }
}

impl ApiError {
    /// The `erased` error of memory `named`, purged at `seq`.
    fn erased(named: &str, seq: u64, by: engram_log::Actor, reason: &str) -> Self {
        let by = crate::engine::actor_name(by);
        Self::new(
            ErrorCode::Erased,
            format!("memory {named} was erased: purged at seq {seq} by the {by}, reason: {reason}"),
        )
        .with_details(json!({
            "id": named,
            "purged_seq": seq,
            "by": by,
            "reason": reason,
        }))
    }

    /// `e` for a memory of the store `scope` names: an erased or forgotten
    /// memory is told by the id recall shows (`p:8`), not its number in
    /// its store.
    #[must_use]
    pub fn of_memory(scope: &str, e: EngineError) -> Self {
        match e {
            EngineError::Purged {
                id,
                seq,
                by,
                reason,
            } => Self::erased(&super::qualified(scope, id), seq, by, &reason),
            EngineError::Forgotten { id, seq } => Self::new(
                ErrorCode::Forgotten,
                format!(
                    "memory {} was forgotten at seq {seq}: it expands only in audit mode",
                    super::qualified(scope, id)
                ),
            ),
            e => Self::from(e),
        }
    }
}

impl From<EngineError> for ApiError {
    fn from(e: EngineError) -> Self {
        let code = match &e {
            EngineError::UnknownMemory { .. } => ErrorCode::NotFound,
            EngineError::NoLog { .. } => ErrorCode::NoStore,
            EngineError::Input(_) | EngineError::Transcript(_) => ErrorCode::BadRequest,
            EngineError::Denied(_) => ErrorCode::Denied,
            EngineError::Seal(engram_log::seal::SealError::Tampered { .. }) => ErrorCode::Tampered,
            EngineError::Seal(_) => ErrorCode::BadRequest,
            EngineError::Forgotten { .. } => ErrorCode::Forgotten,
            EngineError::Purged {
                id,
                seq,
                by,
                reason,
            } => return Self::erased(&id.to_string(), *seq, *by, reason),
            EngineError::Purge(engram_commands::purge::PurgeError::UnknownSession { .. }) => {
                ErrorCode::NotFound
            }
            EngineError::Purge(
                engram_commands::purge::PurgeError::Keys(_)
                | engram_commands::purge::PurgeError::Read(_),
            ) => ErrorCode::Internal,
            EngineError::Purge(_) => ErrorCode::BadRequest,
            EngineError::Discarded { .. } => ErrorCode::Discarded,
            EngineError::Flywheel(FlywheelError::NotInContradiction { .. }) => ErrorCode::NotFound,
            EngineError::Flywheel(_) => ErrorCode::BadRequest,
            EngineError::Tier(engram_commands::tier::TierMoveError::Forgotten { .. }) => {
                ErrorCode::Forgotten
            }
            EngineError::Tier(_) | EngineError::Workspace(_) => ErrorCode::BadRequest,
            EngineError::Corridor(
                engram_commands::corridor::CorridorError::Unknown { .. }
                | engram_commands::corridor::CorridorError::UnknownRoom { .. }
                | engram_commands::corridor::CorridorError::UnknownCorridor { .. },
            ) => ErrorCode::NotFound,
            EngineError::Corridor(_) => ErrorCode::BadRequest,
            EngineError::View(engram_projections::ViewError::Tampered { .. }) => {
                ErrorCode::Tampered
            }
            _ => ErrorCode::Internal,
        };
        Self::new(code, e.to_string())
    }
}

impl From<engram_projections::ViewError> for ApiError {
    fn from(e: engram_projections::ViewError) -> Self {
        let code = match e {
            engram_projections::ViewError::Tampered { .. } => ErrorCode::Tampered,
            _ => ErrorCode::Internal,
        };
        Self::new(code, e.to_string())
    }
}

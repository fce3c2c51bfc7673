//! Ingest: a transcript (JSON lines) becomes the session events of one
//! session, redacted before anything is appended.
//!
//! Accepted lines (blank lines are skipped):
//! - generic: `{"role": "user" | "assistant" | "tool" | "system" | "note", "content": ...}`;
//! - Claude Code session files: `{"type": "user" | "assistant", "message": {"role", "content"}, "sessionId", ...}`;
//!   lines of other types (`summary`, ...) carry no turn and are skipped.
//!
//! `content` is a string or an array of blocks: `text` blocks give their
//! text; `tool_use` gives `[tool_use NAME] INPUT`; `tool_result` gives its
//! content; `thinking` and `redacted_thinking` (the model's private
//! reasoning, not part of the conversation) are left out; other blocks give
//! `[TYPE]`. A user turn made only of tool results is a `tool` turn.

use engram_log::{Event, Role, SessionEvent};
use engram_text::redact::redact;
use serde_json::Value;

/// Most turns one transcript may hold.
pub const TRANSCRIPT_TURNS_MAX: usize = 1_000_000;

/// Why a transcript was refused. Nothing is appended when parsing fails.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IngestError {
    #[error("line {line}: {reason}")]
    Line { line: usize, reason: String },
    #[error(
        "the transcript holds no turns (expected one JSON object per line with `role` and `content`)"
    )]
    Empty,
    #[error("the transcript holds more than {max} turns: split it")]
    TooLong { max: usize },
}

/// One turn of a conversation as the caller has it, read from a
/// transcript or given to `Engram::record_turns` (not yet redacted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub role: Role,
    pub content: String,
}

impl Turn {
    /// A turn of `role` saying `content`.
    #[must_use]
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
        }
    }
}

/// A parsed transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcript {
    pub turns: Vec<Turn>,
    /// The session id the file names (Claude Code's `sessionId`), if any.
    pub session: Option<String>,
}

fn role_named(name: &str) -> Option<Role> {
    match name {
        "user" | "human" => Some(Role::User),
        "assistant" | "model" => Some(Role::Assistant),
        "tool" => Some(Role::Tool),
        "system" => Some(Role::System),
        "note" => Some(Role::Note),
        _ => None,
    }
}

/// The text of a `content` value, and whether it was made only of tool results.
fn render_content(content: &Value) -> Result<(String, bool), String> {
    match content {
        Value::String(s) => Ok((s.clone(), false)),
        Value::Array(blocks) => {
            let mut parts = Vec::new();
            let mut only_tool_results = !blocks.is_empty();
            for block in blocks {
                let kind = block.get("type").and_then(Value::as_str).unwrap_or("text");
                if kind != "tool_result" {
                    only_tool_results = false;
                }
                match kind {
                    "text" => {
                        if let Some(text) = block.get("text").and_then(Value::as_str) {
                            parts.push(text.to_owned());
                        }
                    }
                    "tool_use" => {
                        let name = block.get("name").and_then(Value::as_str).unwrap_or("tool");
                        let input = block.get("input").map(Value::to_string).unwrap_or_default();
                        parts.push(format!("[tool_use {name}] {input}"));
                    }
                    "tool_result" => {
                        if let Some(inner) = block.get("content") {
                            parts.push(render_content(inner)?.0);
                        }
                    }
                    "thinking" | "redacted_thinking" => {}
                    other => parts.push(format!("[{other}]")),
                }
            }
            Ok((parts.join("\n"), only_tool_results))
        }
        Value::Null => Ok((String::new(), false)),
        other => Err(format!(
            "`content` must be a string or an array of blocks, not {other}"
        )),
    }
}

/// Parses a JSON-lines transcript. Fails on the first bad line, naming it.
pub fn parse_transcript(text: &str) -> Result<Transcript, IngestError> {
    parse_lines(text, false).map(|(transcript, _)| transcript)
}

/// Parses a JSON-lines transcript, skipping bad lines: the transcript of the
/// good lines and every skipped line's error (line number and reason), so
/// the caller can report them. Still fails when no turn is left.
pub fn parse_transcript_skipping(
    text: &str,
) -> Result<(Transcript, Vec<IngestError>), IngestError> {
    parse_lines(text, true)
}

fn parse_lines(text: &str, skip_bad: bool) -> Result<(Transcript, Vec<IngestError>), IngestError> {
    let mut turns = Vec::new();
    let mut session = None;
    let mut skipped = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        if raw.trim().is_empty() {
            continue;
        }
        match parse_line(raw, line, &mut session) {
            Ok(Some(turn)) => {
                if turns.len() == TRANSCRIPT_TURNS_MAX {
                    return Err(IngestError::TooLong {
                        max: TRANSCRIPT_TURNS_MAX,
                    });
                }
                turns.push(turn);
            }
            Ok(None) => {}
            Err(e) if skip_bad => skipped.push(e),
            Err(e) => return Err(e),
        }
    }
    if turns.is_empty() {
        return Err(IngestError::Empty);
    }
    Ok((Transcript { turns, session }, skipped))
}

/// One line: a turn, nothing (a record that is no turn, an empty turn), or
/// the line's error.
fn parse_line(
    raw: &str,
    line: usize,
    session: &mut Option<String>,
) -> Result<Option<Turn>, IngestError> {
    let bad = |reason: String| IngestError::Line { line, reason };
    let value: Value = serde_json::from_str(raw).map_err(|e| bad(format!("not JSON: {e}")))?;
    if !value.is_object() {
        return Err(bad("expected a JSON object".to_owned()));
    }
    let message = match value.get("message") {
        Some(message) => {
            // A Claude Code line: only user and assistant lines are turns.
            if let Some(id) = value.get("sessionId").and_then(Value::as_str) {
                session.get_or_insert_with(|| id.to_owned());
            }
            message
        }
        None if value.get("role").is_some() => &value,
        None if value.get("type").is_some() => return Ok(None), // summary and other records
        None => {
            return Err(bad(
                "expected `role` and `content` (or a Claude Code `message`)".to_owned(),
            ));
        }
    };
    let role_name = message
        .get("role")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("`role` is missing or not a string".to_owned()))?;
    let mut role = role_named(role_name).ok_or_else(|| {
        bad(format!(
            "unknown role {role_name:?} (expected user, assistant, tool, system or note)"
        ))
    })?;
    let (content, only_tool_results) =
        render_content(message.get("content").unwrap_or(&Value::Null)).map_err(bad)?;
    if only_tool_results && role == Role::User {
        role = Role::Tool;
    }
    if content.trim().is_empty() {
        return Ok(None);
    }
    Ok(Some(Turn { role, content }))
}

/// A session id derived from the transcript's bytes: the same file always
/// gets the same id.
#[must_use]
pub fn derived_session_id(bytes: &[u8]) -> String {
    let hash = blake3::hash(bytes);
    let hex: String = hash
        .as_bytes()
        .iter()
        .take(6)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("session-{hex}")
}

/// The session events of `turns` in session `session`, numbered from
/// `first_turn`, every content redacted. Returns the events and how many
/// secrets were redacted.
#[must_use]
pub fn session_events(session: &str, first_turn: u32, turns: &[Turn]) -> (Vec<Event>, usize) {
    let mut n_redacted = 0;
    let events = turns
        .iter()
        .zip(first_turn..)
        .map(|(turn, number)| {
            let redacted = redact(&turn.content);
            n_redacted += redacted.findings.len();
            Event::Session(SessionEvent {
                session: redact(session).text,
                turn: number,
                role: turn.role,
                content: redacted.text,
            })
        })
        .collect();
    (events, n_redacted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generic_lines_become_turns() {
        let t = parse_transcript(
            "{\"role\":\"user\",\"content\":\"hi\"}\n\n{\"role\":\"assistant\",\"content\":\"hello\"}\n",
        )
        .unwrap();
        assert_eq!(t.session, None);
        assert_eq!(
            t.turns,
            vec![
                Turn {
                    role: Role::User,
                    content: "hi".into()
                },
                Turn {
                    role: Role::Assistant,
                    content: "hello".into()
                },
            ]
        );
    }

    #[test]
    fn claude_code_blocks_are_rendered_and_thinking_left_out() {
        let text = concat!(
            r#"{"type":"summary","summary":"s"}"#,
            "\n",
            r#"{"type":"assistant","sessionId":"abc","message":{"role":"assistant","content":[{"type":"thinking","thinking":"secret plan"},{"type":"text","text":"Done."},{"type":"tool_use","name":"Bash","input":{"command":"ls"}}]}}"#,
            "\n",
            r#"{"type":"user","sessionId":"abc","message":{"role":"user","content":[{"type":"tool_result","content":"a.txt"}]}}"#,
            "\n",
        );
        let t = parse_transcript(text).unwrap();
        assert_eq!(t.session.as_deref(), Some("abc"));
        assert_eq!(t.turns[0].role, Role::Assistant);
        assert_eq!(
            t.turns[0].content,
            "Done.\n[tool_use Bash] {\"command\":\"ls\"}"
        );
        assert!(!t.turns[0].content.contains("secret plan"));
        assert_eq!(
            t.turns[1],
            Turn {
                role: Role::Tool,
                content: "a.txt".into()
            }
        );
    }

    #[test]
    fn bad_lines_are_named() {
        let err =
            parse_transcript("{\"role\":\"user\",\"content\":\"ok\"}\nnot json\n").unwrap_err();
        assert!(matches!(err, IngestError::Line { line: 2, .. }), "{err}");
        let err = parse_transcript("{\"role\":\"robot\",\"content\":\"x\"}").unwrap_err();
        assert!(err.to_string().contains("unknown role \"robot\""), "{err}");
        let err = parse_transcript("{\"content\":\"x\"}").unwrap_err();
        assert!(matches!(err, IngestError::Line { line: 1, .. }), "{err}");
        assert_eq!(parse_transcript("\n\n").unwrap_err(), IngestError::Empty);
        let err = parse_transcript("[1,2]").unwrap_err();
        assert!(matches!(err, IngestError::Line { line: 1, .. }), "{err}");
    }

    #[test]
    fn session_events_are_redacted_and_numbered() {
        let turns = vec![
            Turn {
                role: Role::User,
                content: "mail me at a.person@example.com".into(),
            },
            Turn {
                role: Role::Assistant,
                content: "ok".into(),
            },
        ];
        let (events, n) = session_events("s1", 5, &turns);
        assert_eq!(n, 1);
        let Event::Session(first) = &events[0] else {
            panic!("not a session event")
        };
        assert_eq!(first.turn, 5);
        assert_eq!(first.content, "mail me at [REDACTED:email]");
        assert_eq!(derived_session_id(b"x"), derived_session_id(b"x"));
        assert_ne!(derived_session_id(b"x"), derived_session_id(b"y"));
    }
}

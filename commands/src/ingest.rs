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

use std::io::{BufRead, Read as _};

use engram_log::{Event, Role, SessionEvent};
use engram_text::redact::redact;
use serde_json::Value;

/// Most turns one transcript may hold.
pub const TRANSCRIPT_TURNS_MAX: usize = 1_000_000;

/// Most bytes one line of a transcript may hold (as an export line may).
pub const TRANSCRIPT_LINE_BYTES_MAX: usize = 16 * 1024 * 1024;

/// Most bytes one transcript may hold: a transcript is read line by line,
/// but its turns are held until every line has been checked, so this bounds
/// the memory an ingest takes.
pub const TRANSCRIPT_BYTES_MAX: u64 = 256 * 1024 * 1024;

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
    #[error("line {line} is over {max} bytes (TRANSCRIPT_LINE_BYTES_MAX): is this a transcript?")]
    LineTooLong { line: usize, max: usize },
    #[error("the transcript is over {max} bytes (TRANSCRIPT_BYTES_MAX): split it")]
    TooBig { max: u64 },
    #[error("reading the transcript failed: {reason}")]
    Read { reason: String },
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
    read_transcript(text.as_bytes(), false).map(|read| read.transcript)
}

/// Parses a JSON-lines transcript, skipping bad lines: the transcript of the
/// good lines and every skipped line's error (line number and reason), so
/// the caller can report them. Still fails when no turn is left.
pub fn parse_transcript_skipping(
    text: &str,
) -> Result<(Transcript, Vec<IngestError>), IngestError> {
    read_transcript(text.as_bytes(), true).map(|read| (read.transcript, read.skipped))
}

/// A transcript read from a stream by [`read_transcript`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadTranscript {
    pub transcript: Transcript,
    /// The lines left out (when skipping bad lines).
    pub skipped: Vec<IngestError>,
    /// [`derived_session_id`] of every byte read.
    pub derived_session: String,
}

/// The limits a transcript is read under (the named constants, smaller in
/// tests).
#[derive(Debug, Clone, Copy)]
struct Limits {
    line_bytes_max: usize,
    bytes_max: u64,
}

const LIMITS: Limits = Limits {
    line_bytes_max: TRANSCRIPT_LINE_BYTES_MAX,
    bytes_max: TRANSCRIPT_BYTES_MAX,
};

/// Reads a JSON-lines transcript from `input` line by line, holding only
/// the turns: a line over [`TRANSCRIPT_LINE_BYTES_MAX`] or a stream over
/// [`TRANSCRIPT_BYTES_MAX`] is refused without reading more of it (even
/// when skipping bad lines), so an endless input (`/dev/zero`) fails fast
/// in bounded memory. A line that is not UTF-8 is a bad line.
///
/// # Errors
/// The first bad line (unless `skip_bad`), a limit passed, a read failure,
/// or no turn at all.
pub fn read_transcript(input: impl BufRead, skip_bad: bool) -> Result<ReadTranscript, IngestError> {
    read_limited(input, skip_bad, LIMITS)
}

fn read_limited(
    mut input: impl BufRead,
    skip_bad: bool,
    limits: Limits,
) -> Result<ReadTranscript, IngestError> {
    let mut turns = Vec::new();
    let mut session = None;
    let mut skipped = Vec::new();
    let mut hasher = blake3::Hasher::new();
    let mut n_bytes: u64 = 0;
    let mut buf = Vec::new();
    for line in 1.. {
        buf.clear();
        // One byte past the line limit, the newline included, tells a line
        // at the limit from one over it.
        let take = limits.line_bytes_max as u64 + 2;
        let n = (&mut input)
            .take(take)
            .read_until(b'\n', &mut buf)
            .map_err(|e| IngestError::Read {
                reason: e.to_string(),
            })?;
        if n == 0 {
            break;
        }
        n_bytes += n as u64;
        if n_bytes > limits.bytes_max {
            return Err(IngestError::TooBig {
                max: limits.bytes_max,
            });
        }
        hasher.update(&buf);
        let raw = buf.strip_suffix(b"\n").unwrap_or(&buf);
        if raw.len() > limits.line_bytes_max {
            return Err(IngestError::LineTooLong {
                line,
                max: limits.line_bytes_max,
            });
        }
        let parsed = std::str::from_utf8(raw)
            .map_err(|e| IngestError::Line {
                line,
                reason: format!("not UTF-8: {e}"),
            })
            .and_then(|raw| {
                if raw.trim().is_empty() {
                    Ok(None)
                } else {
                    parse_line(raw, line, &mut session)
                }
            });
        match parsed {
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
    Ok(ReadTranscript {
        transcript: Transcript { turns, session },
        skipped,
        derived_session: session_id_of(&hasher.finalize()),
    })
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
    session_id_of(&blake3::hash(bytes))
}

fn session_id_of(hash: &blake3::Hash) -> String {
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

    const TURN: &str = "{\"role\":\"user\",\"content\":\"hi\"}\n";

    /// `engram ingest /dev/zero` grew until the kernel killed it: a line
    /// without end is refused at the line limit, having read no further.
    #[test]
    fn ingest_of_dev_zero_grew_until_killed() {
        let mut zeros = std::io::BufReader::new(std::io::repeat(0));
        let err = read_transcript(&mut zeros, true).unwrap_err();
        assert_eq!(
            err,
            IngestError::LineTooLong {
                line: 1,
                max: TRANSCRIPT_LINE_BYTES_MAX
            }
        );
        assert!(
            err.to_string().contains("TRANSCRIPT_LINE_BYTES_MAX"),
            "{err}"
        );
    }

    #[test]
    fn a_line_at_the_limit_is_read_and_one_byte_more_is_refused() {
        let limits = Limits {
            line_bytes_max: TURN.len() - 1,
            bytes_max: 1 << 20,
        };
        let read = read_limited(TURN.repeat(3).as_bytes(), false, limits).unwrap();
        assert_eq!(read.transcript.turns.len(), 3);
        let long = format!("{TURN}{} \n", TURN.trim_end());
        let err = read_limited(long.as_bytes(), true, limits).unwrap_err();
        assert_eq!(
            err,
            IngestError::LineTooLong {
                line: 2,
                max: limits.line_bytes_max
            }
        );
    }

    #[test]
    fn a_stream_past_the_transcript_limit_is_refused_even_skipping_bad_lines() {
        let limits = Limits {
            line_bytes_max: 1024,
            bytes_max: 10 * TURN.len() as u64,
        };
        assert!(read_limited(TURN.repeat(10).as_bytes(), false, limits).is_ok());
        // Endless blank lines: nothing is held, and still the stream ends.
        let endless = std::io::BufReader::new(std::io::repeat(b'\n'));
        let err = read_limited(endless, true, limits).unwrap_err();
        assert_eq!(
            err,
            IngestError::TooBig {
                max: limits.bytes_max
            }
        );
        let err = read_limited(TURN.repeat(11).as_bytes(), true, limits).unwrap_err();
        assert!(err.to_string().contains("TRANSCRIPT_BYTES_MAX"), "{err}");
    }

    #[test]
    fn a_streamed_transcript_derives_the_session_of_its_bytes() {
        let text = format!("{TURN}\r\n{TURN}");
        let read = read_transcript(text.as_bytes(), false).unwrap();
        assert_eq!(read.derived_session, derived_session_id(text.as_bytes()));
        assert_eq!(read.transcript.turns.len(), 2);
    }

    #[test]
    fn a_line_that_is_not_utf8_is_a_bad_line() {
        let text = [
            TURN.as_bytes(),
            b"{\"role\":\"user\",\"content\":\"\xff\"}\n",
            TURN.as_bytes(),
        ]
        .concat();
        let err = read_transcript(text.as_slice(), false).unwrap_err();
        assert!(matches!(err, IngestError::Line { line: 2, .. }), "{err}");
        let read = read_transcript(text.as_slice(), true).unwrap();
        assert_eq!(read.transcript.turns.len(), 2);
        assert_eq!(read.skipped.len(), 1);
    }

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

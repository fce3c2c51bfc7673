//! Workspace documents (L2): the project's own instructions and docs
//! (AGENTS.md, CLAUDE.md, README, docs/) recorded as memories, refreshed
//! when a file changes.
//!
//! A document is cut into sections (at Markdown headings, then at blank
//! lines so no section passes [`SECTION_BYTES_MAX`]); each section is a
//! `note` turn of the document's session and a memory of tier L2, source
//! `document`, sealed over that turn, in the room named after the file.
//! Documents are the project's text as written: they are not decided
//! against other memories (no reinforcement, no contradiction).
//!
//! **Refresh by content.** A document's session is
//! `workspace:<path>@<first 16 hex of the SHA-256 of its bytes>`. When the
//! live L2 memories of a path all come from that session, the file is
//! unchanged and nothing is written. Otherwise every live L2 memory of an
//! older version is superseded (a `TierChanged` to L4 and an `Archived`,
//! the demotion maintenance writes too) and the new version is recorded:
//! all documents in one atomic append.
//!
//! **Bad input changes nothing:** a document over [`DOCUMENT_BYTES_MAX`],
//! not text (invalid UTF-8, a NUL or another control character), a path
//! that is absolute, climbs out (`..`) or is too long, too many documents
//! or too many bytes in all are refused before anything is written.

use std::collections::BTreeMap;

use engram_log::{Archived, Event, MemoryId, MemoryRef, Role, Scope, Source, Tier};
use engram_projections::models::{MemoryEntry, MemoryStatus};
use sha2::Digest as _;

use crate::flywheel::{CommandError, gate};
use crate::gate::{Action, Object, Subject};
use crate::memory::{self, MemoryMeta};
use crate::save::{APPEND_TRIES_MAX, CommandStore, Expecting, entity_events};

/// Largest workspace document, in bytes.
pub const DOCUMENT_BYTES_MAX: usize = 256 * 1024;
/// Most documents in one refresh.
pub const DOCUMENTS_MAX: usize = 64;
/// Most bytes of all documents in one refresh.
pub const WORKSPACE_BYTES_MAX: usize = 2 * 1024 * 1024;
/// Largest section: one memory's words.
pub const SECTION_BYTES_MAX: usize = 4 * 1024;
/// Longest document path, in bytes (its session name holds it).
pub const PATH_BYTES_MAX: usize = 100;
/// What every workspace document's session name begins with.
pub const SESSION_PREFIX: &str = "workspace:";
/// The tag every workspace memory carries.
pub const WORKSPACE_TAG: &str = "workspace";

/// A workspace document that cannot be recorded. Nothing was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WorkspaceError {
    #[error(
        "workspace document {path} is {bytes} bytes, over the limit of {max}: leave it out or split it"
    )]
    TooLarge {
        path: String,
        bytes: usize,
        max: usize,
    },
    #[error(
        "workspace document {path} is not text ({reason}): only UTF-8 text documents are recorded"
    )]
    NotText { path: String, reason: String },
    #[error(
        "workspace document path {path:?} is not usable: {reason} (give a path relative to the workspace root)"
    )]
    BadPath { path: String, reason: String },
    #[error("{count} workspace documents is over the limit of {DOCUMENTS_MAX}")]
    TooMany { count: usize },
    #[error("the workspace documents hold {bytes} bytes in all, over the limit of {max}")]
    TooMuch { bytes: usize, max: usize },
    #[error("workspace document {path} is given twice")]
    Repeated { path: String },
}

/// One document: its path relative to the workspace root, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    pub path: String,
    pub content: String,
}

/// A document's text from the bytes of its file.
///
/// # Errors
/// Over [`DOCUMENT_BYTES_MAX`], or not text.
pub fn document_text(path: &str, bytes: Vec<u8>) -> Result<String, WorkspaceError> {
    if bytes.len() > DOCUMENT_BYTES_MAX {
        return Err(WorkspaceError::TooLarge {
            path: path.to_owned(),
            bytes: bytes.len(),
            max: DOCUMENT_BYTES_MAX,
        });
    }
    let text = String::from_utf8(bytes).map_err(|e| WorkspaceError::NotText {
        path: path.to_owned(),
        reason: format!("invalid UTF-8 at byte {}", e.utf8_error().valid_up_to()),
    })?;
    check_text(path, &text)?;
    Ok(text)
}

fn check_text(path: &str, text: &str) -> Result<(), WorkspaceError> {
    if text.len() > DOCUMENT_BYTES_MAX {
        return Err(WorkspaceError::TooLarge {
            path: path.to_owned(),
            bytes: text.len(),
            max: DOCUMENT_BYTES_MAX,
        });
    }
    if let Some((at, c)) = text
        .char_indices()
        .find(|&(_, c)| c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\u{c}'))
    {
        return Err(WorkspaceError::NotText {
            path: path.to_owned(),
            reason: format!("control character U+{:04X} at byte {at}", u32::from(c)),
        });
    }
    Ok(())
}

fn check_path(path: &str) -> Result<(), WorkspaceError> {
    let bad = |reason: &str| {
        Err(WorkspaceError::BadPath {
            path: path.to_owned(),
            reason: reason.to_owned(),
        })
    };
    if path.is_empty() {
        return bad("it is empty");
    }
    if path.len() > PATH_BYTES_MAX {
        return bad(&format!("over {PATH_BYTES_MAX} bytes"));
    }
    if path.starts_with('/') || path.contains('\\') {
        return bad("it is absolute or uses backslashes");
    }
    if path
        .split('/')
        .any(|part| part.is_empty() || part == "." || part == "..")
    {
        return bad("it has an empty, `.` or `..` part");
    }
    if path.chars().any(|c| c.is_control() || c == ',' || c == '@') {
        return bad("it holds a control character, a comma or an @");
    }
    Ok(())
}

/// Checks every document against the limits (what the request types
/// check before anything is sent, and the handler again).
///
/// # Errors
/// The first document that breaks one.
pub fn check(documents: &[Document]) -> Result<(), WorkspaceError> {
    if documents.len() > DOCUMENTS_MAX {
        return Err(WorkspaceError::TooMany {
            count: documents.len(),
        });
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut total = 0usize;
    for d in documents {
        check_path(&d.path)?;
        check_text(&d.path, &d.content)?;
        if !seen.insert(d.path.as_str()) {
            return Err(WorkspaceError::Repeated {
                path: d.path.clone(),
            });
        }
        total = total.saturating_add(d.content.len());
    }
    if total > WORKSPACE_BYTES_MAX {
        return Err(WorkspaceError::TooMuch {
            bytes: total,
            max: WORKSPACE_BYTES_MAX,
        });
    }
    Ok(())
}

/// The session of a document's version: the path and its content hash.
#[must_use]
pub fn session_of(path: &str, content: &str) -> String {
    let hash = sha2::Sha256::digest(content.as_bytes());
    let hex: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("{SESSION_PREFIX}{path}@{hex}")
}

/// The path a workspace session names, if it is one.
#[must_use]
pub fn path_of_session(session: &str) -> Option<&str> {
    let rest = session.strip_prefix(SESSION_PREFIX)?;
    Some(rest.rsplit_once('@')?.0)
}

/// The room of a document: its file name without extension, lower case
/// (`docs/Design.md` goes to `design`).
#[must_use]
pub fn room_of(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name
        .split('.')
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or(name);
    stem.to_lowercase()
}

/// A document's sections, each at most [`SECTION_BYTES_MAX`], with the
/// heading it falls under; whitespace-only sections are left out.
#[must_use]
pub fn sections(content: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut heading = String::new();
    let mut body = String::new();
    let flush = |out: &mut Vec<(String, String)>, heading: &str, body: &mut String| {
        for chunk in chunks(body) {
            out.push((heading.to_owned(), chunk));
        }
        body.clear();
    };
    for line in content.lines() {
        if line.trim_start().starts_with('#') {
            flush(&mut out, &heading, &mut body);
            heading = line.trim().trim_start_matches('#').trim().to_owned();
        }
        body.push_str(line);
        body.push('\n');
    }
    flush(&mut out, &heading, &mut body);
    out
}

/// `text` cut at blank lines into pieces of at most
/// [`SECTION_BYTES_MAX`] (a paragraph longer than that at a character
/// boundary), trimmed, empty ones left out.
fn chunks(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    // A heading alone says nothing of its own: its section's summary
    // names it.
    let push = |out: &mut Vec<String>, current: &mut String| {
        let trimmed = current.trim();
        let heading_only = trimmed.starts_with('#') && !trimmed.contains('\n');
        if !trimmed.is_empty() && !heading_only {
            out.push(trimmed.to_owned());
        }
        current.clear();
    };
    for paragraph in text.split("\n\n") {
        if !current.is_empty() && current.len() + paragraph.len() + 2 > SECTION_BYTES_MAX {
            push(&mut out, &mut current);
        }
        let mut rest = paragraph;
        while rest.len() > SECTION_BYTES_MAX {
            let mut cut = SECTION_BYTES_MAX;
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            let (head, tail) = rest.split_at(cut);
            push(&mut out, &mut current);
            current.push_str(head);
            push(&mut out, &mut current);
            rest = tail;
        }
        if !current.is_empty() {
            current.push_str("\n\n");
        }
        current.push_str(rest);
    }
    push(&mut out, &mut current);
    out
}

/// What a refresh did to one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentOutcome {
    pub path: String,
    /// `new` (first recorded), `changed` (an older version superseded) or
    /// `unchanged` (nothing written).
    pub outcome: &'static str,
    /// The memories recorded for it (none when unchanged).
    pub memories: Vec<MemoryId>,
    /// The older version's memories it superseded.
    pub superseded: Vec<MemoryId>,
}

/// The live L2 memories of each workspace path, in id order.
fn current_versions(
    table: &engram_projections::models::MemoryTable,
) -> BTreeMap<String, Vec<MemoryEntry>> {
    let mut out: BTreeMap<String, Vec<MemoryEntry>> = BTreeMap::new();
    for entry in table.iter() {
        if entry.status != MemoryStatus::Live
            || entry.tier != Tier::L2
            || entry.source != Source::Document
        {
            continue;
        }
        if let Some(path) = path_of_session(&entry.reference.session) {
            out.entry(path.to_owned()).or_default().push(entry.clone());
        }
    }
    out
}

/// One document's planned writes.
struct Planned {
    path: String,
    session: String,
    superseded: Vec<MemoryEntry>,
    /// (heading, redacted words) per section.
    sections: Vec<(String, String)>,
    first_turn: u32,
}

/// Records `documents` as L2 memories, refreshing what changed (see the
/// module documentation), in one atomic append.
///
/// # Errors
/// A document that breaks a limit or is not text, or a gate's denial
/// (nothing written but its `GateDenied`).
pub fn refresh<S: CommandStore>(
    store: &S,
    documents: &[Document],
    subject: &Subject,
) -> Result<Vec<DocumentOutcome>, CommandError<S::Error>> {
    check(documents).map_err(CommandError::Workspace)?;
    let subject = memory::clean_subject(subject)?;
    let _writer = store.write_lock();
    let current = current_versions(&store.views().memory_table.read().state);
    let mut outcomes = Vec::with_capacity(documents.len());
    let mut plans: Vec<Planned> = Vec::new();
    for d in documents {
        let session = memory::clean_name("session", &session_of(&d.path, &d.content))?;
        let versions = current.get(&d.path).cloned().unwrap_or_default();
        if !versions.is_empty() && versions.iter().all(|e| e.reference.session == session) {
            outcomes.push(DocumentOutcome {
                path: d.path.clone(),
                outcome: "unchanged",
                memories: Vec::new(),
                superseded: Vec::new(),
            });
            continue;
        }
        let mut sections = Vec::new();
        for (heading, words) in self::sections(&d.content) {
            let note = memory::note_event(&session, 0, &words)?;
            let object = Object::Content {
                bytes: note.content.len(),
                events: 1,
                source: Source::Document,
                scope: &Scope::Store,
            };
            gate(store, &subject, Action::Remember, &object)?;
            sections.push((heading, note.content));
        }
        for entry in &versions {
            gate(store, &subject, Action::Archive, &Object::Memory(entry))?;
        }
        outcomes.push(DocumentOutcome {
            path: d.path.clone(),
            outcome: if versions.is_empty() {
                "new"
            } else {
                "changed"
            },
            memories: Vec::new(),
            superseded: versions.iter().map(|e| e.id).collect(),
        });
        let first_turn = store.views().sessions.read().state.next_turn(&session);
        plans.push(Planned {
            path: d.path.clone(),
            session,
            superseded: versions,
            sections,
            first_turn,
        });
    }
    if plans.is_empty() {
        return Ok(outcomes);
    }
    let mut first_seq = store.next_seq();
    for _ in 0..APPEND_TRIES_MAX {
        let (events, made) = build(store, &plans, first_seq)?;
        match store
            .append_expecting(first_seq, &events)
            .map_err(CommandError::Store)?
        {
            Expecting::Appended(_) => {
                for outcome in &mut outcomes {
                    if let Some(ids) = made.get(&outcome.path) {
                        outcome.memories.clone_from(ids);
                    }
                }
                return Ok(outcomes);
            }
            Expecting::Moved { next_seq } => first_seq = next_seq,
        }
    }
    Err(CommandError::Contended {
        tries: APPEND_TRIES_MAX,
    })
}

/// The events of `plans` for the seq the log is expected to give them,
/// and the memories each path gets.
#[expect(
    clippy::type_complexity,
    reason = "the events and, per path, the ids they make"
)]
fn build<S: CommandStore>(
    store: &S,
    plans: &[Planned],
    first_seq: u64,
) -> Result<(Vec<Event>, BTreeMap<String, Vec<MemoryId>>), CommandError<S::Error>> {
    let mut events: Vec<Event> = Vec::new();
    let mut made: BTreeMap<String, Vec<MemoryId>> = BTreeMap::new();
    for plan in plans {
        let reason = format!("superseded: {} changed", plan.path);
        for old in &plan.superseded {
            events.push(Event::TierChanged(crate::tier::demotion(
                old.id, old.tier, &reason,
            )));
            events.push(Event::Archived(Archived {
                memory: old.id,
                reason: reason.clone(),
            }));
        }
        for ((heading, words), turn) in plan.sections.iter().zip(plan.first_turn..) {
            let note = Event::Session(engram_log::SessionEvent {
                session: plan.session.clone(),
                turn,
                role: Role::Note,
                content: words.clone(),
            });
            let seq = first_seq + events.len() as u64;
            let content_sha256 = store
                .content_sha256_at(seq, &note)
                .map_err(CommandError::Store)?;
            events.push(note);
            let summary = if heading.is_empty() {
                plan.path.clone()
            } else {
                format!("{}: {heading}", plan.path)
            };
            let summary = memory::clean("summary", &summary, memory::SUMMARY_BYTES_MAX)?;
            let meta = MemoryMeta {
                summary: Some(summary.clone()),
                tags: vec![WORKSPACE_TAG.to_owned()],
                tier: Tier::L2,
                room: Some(memory::clean_name("room", &room_of(&plan.path))?),
                source: Source::Document,
                scope: Scope::Store,
                ttl_ms: None,
            };
            let reference = MemoryRef {
                session: plan.session.clone(),
                first_seq: seq,
                last_seq: seq,
            };
            let mut remembered = memory::remembered(store.key(), reference, content_sha256, meta);
            remembered.embedding = store.embedding_of(words);
            let id = seq + 1;
            events.push(Event::Remembered(remembered));
            events.extend(entity_events(id, words, Some(&summary)));
            made.entry(plan.path.clone()).or_default().push(id);
        }
    }
    Ok((events, made))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_are_cut_at_headings_and_blank_lines() {
        let doc = "Intro line.\n\n# Build\n\nRun `cargo build`.\n\n## Test\nRun tests.\n\n   \n";
        let s = sections(doc);
        assert_eq!(
            s,
            [
                (String::new(), "Intro line.".to_owned()),
                (
                    "Build".to_owned(),
                    "# Build\n\nRun `cargo build`.".to_owned()
                ),
                ("Test".to_owned(), "## Test\nRun tests.".to_owned()),
            ]
        );
        let long = "word ".repeat(2000);
        for (_, section) in sections(&long) {
            assert!(section.len() <= SECTION_BYTES_MAX);
        }
        let cjk = "部署".repeat(2000);
        let pieces = sections(&cjk);
        assert!(pieces.len() > 1);
        assert_eq!(
            pieces.iter().map(|(_, s)| s.as_str()).collect::<String>(),
            cjk
        );
    }

    #[test]
    fn bad_documents_are_refused() {
        assert!(matches!(
            document_text("a.md", vec![b'a'; DOCUMENT_BYTES_MAX + 1]),
            Err(WorkspaceError::TooLarge { .. })
        ));
        assert!(matches!(
            document_text("a.md", vec![0xff, 0xfe, 0x00]),
            Err(WorkspaceError::NotText { .. })
        ));
        assert!(matches!(
            document_text("a.png", b"\x89PNG\r\n\x1a\n\0\0".to_vec()),
            Err(WorkspaceError::NotText { .. })
        ));
        assert_eq!(document_text("a.md", b"# Hi\n".to_vec()).unwrap(), "# Hi\n");
        for path in [
            "",
            "/etc/passwd",
            "../x.md",
            "docs//a.md",
            "a,b.md",
            "a@b.md",
        ] {
            let d = Document {
                path: path.to_owned(),
                content: "text".to_owned(),
            };
            assert!(
                matches!(check(&[d]), Err(WorkspaceError::BadPath { .. })),
                "{path:?}"
            );
        }
    }

    #[test]
    fn sessions_name_the_path_and_the_content() {
        let a = session_of("docs/a.md", "one");
        assert_ne!(a, session_of("docs/a.md", "two"));
        assert_eq!(path_of_session(&a), Some("docs/a.md"));
        assert_eq!(path_of_session("notes"), None);
        assert_eq!(room_of("docs/Design.md"), "design");
        assert_eq!(room_of("README"), "readme");
        assert_eq!(room_of("AGENTS.md"), "agents");
    }
}

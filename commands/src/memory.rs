//! The memory commands' pure steps: validate, redact, seal and build the
//! events of remember, forget and confirm. The engine runs the steps that
//! need the log (append, read back) and the gates between them.
//!
//! **Architecture Invariant:** every caller-supplied text that reaches an
//! event (content, summary, tags, room, reasons, quotes) passes through
//! [`clean`], which redacts it, so a secret never reaches the log.

use engram_log::seal;
use engram_log::{
    Actor, Digest, EvidenceConfirmed, Forgotten, HmacKey, LoggedEvent, MemoryRef, Remembered, Role,
    Scope, SessionEvent, Source, Tier,
};
use engram_text::redact::redact;

/// Largest summary, in bytes.
pub const SUMMARY_BYTES_MAX: usize = 4 * 1024;
/// Most tags on one memory.
pub const TAGS_MAX: usize = 32;
/// Largest tag, room name, session id, in bytes.
pub const NAME_BYTES_MAX: usize = 128;
/// Largest reason or quote, in bytes.
pub const NOTE_BYTES_MAX: usize = 4 * 1024;
/// The session plain-content notes go to when the caller names none.
pub const NOTES_SESSION: &str = "notes";

/// Bad input to a memory command. Nothing was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    #[error("{field} is empty: give some text")]
    Empty { field: &'static str },
    #[error("{field} is {bytes} bytes, over the limit of {max}")]
    TooLong {
        field: &'static str,
        bytes: usize,
        max: usize,
    },
    #[error("{field} {value:?} may not contain control characters or commas")]
    BadName { field: &'static str, value: String },
    #[error("{count} tags is over the limit of {TAGS_MAX}")]
    TooManyTags { count: usize },
}

/// Validates `text` (non-empty after trimming, at most `max` bytes) and
/// returns it redacted.
pub fn clean(field: &'static str, text: &str, max: usize) -> Result<String, InputError> {
    Ok(clean_counted(field, text, max)?.0)
}

/// [`clean`], with the number of redactions made.
pub fn clean_counted(
    field: &'static str,
    text: &str,
    max: usize,
) -> Result<(String, usize), InputError> {
    if text.trim().is_empty() {
        return Err(InputError::Empty { field });
    }
    let redacted = redact(text);
    if redacted.text.len() > max {
        return Err(InputError::TooLong {
            field,
            bytes: redacted.text.len(),
            max,
        });
    }
    Ok((redacted.text, redacted.findings.len()))
}

/// A short identifier-like value (tag, room, session): trimmed, no control
/// characters or commas, bounded, redacted.
pub fn clean_name(field: &'static str, value: &str) -> Result<String, InputError> {
    let value = value.trim();
    if value.chars().any(|c| c.is_control() || c == ',') {
        return Err(InputError::BadName {
            field,
            value: value.to_owned(),
        });
    }
    clean(field, value, NAME_BYTES_MAX)
}

/// The caller's subject with its session id cleaned like every session id
/// that reaches the log (redacted), so it compares equal to the sessions
/// the log holds.
pub fn clean_subject(subject: &crate::gate::Subject) -> Result<crate::gate::Subject, InputError> {
    Ok(crate::gate::Subject {
        actor: subject.actor,
        session: subject
            .session
            .as_deref()
            .map(|s| clean_name("session", s))
            .transpose()?,
    })
}

/// What a memory is, besides the words it references.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryMeta {
    pub summary: Option<String>,
    pub tags: Vec<String>,
    pub tier: Tier,
    pub room: Option<String>,
    pub source: Source,
    pub scope: Scope,
    /// Time to live in milliseconds: past it, maintenance archives the memory.
    pub ttl_ms: Option<u64>,
}

impl Default for MemoryMeta {
    /// A user's memory of the cross-session store (L3), no room or tags.
    fn default() -> Self {
        Self {
            summary: None,
            tags: Vec::new(),
            tier: Tier::L3,
            room: None,
            source: Source::User,
            scope: Scope::Store,
            ttl_ms: None,
        }
    }
}

impl MemoryMeta {
    /// The metadata validated and redacted; tags deduplicated in order.
    pub fn cleaned(&self) -> Result<Self, InputError> {
        if self.tags.len() > TAGS_MAX {
            return Err(InputError::TooManyTags {
                count: self.tags.len(),
            });
        }
        let mut tags: Vec<String> = Vec::with_capacity(self.tags.len());
        for tag in &self.tags {
            let tag = clean_name("tag", tag)?;
            if !tags.contains(&tag) {
                tags.push(tag);
            }
        }
        Ok(Self {
            summary: self
                .summary
                .as_deref()
                .map(|s| clean("summary", s, SUMMARY_BYTES_MAX))
                .transpose()?,
            tags,
            tier: self.tier,
            room: self
                .room
                .as_deref()
                .map(|r| clean_name("room", r))
                .transpose()?,
            source: self.source,
            scope: match &self.scope {
                Scope::Store => Scope::Store,
                Scope::Session(s) => Scope::Session(clean_name("session", s)?),
            },
            ttl_ms: self.ttl_ms,
        })
    }
}

/// The session event plain content is recorded as before it is referenced:
/// role `note`, redacted. `content` is not size-checked here: the gate's
/// size limit decides, so an oversized save is recorded as denied.
pub fn note_event(session: &str, turn: u32, content: &str) -> Result<SessionEvent, InputError> {
    let session = clean_name("session", session)?;
    if content.trim().is_empty() {
        return Err(InputError::Empty { field: "content" });
    }
    Ok(SessionEvent {
        session,
        turn,
        role: Role::Note,
        content: redact(content).text,
    })
}

/// Bytes of content in referenced session events.
#[must_use]
pub fn content_bytes(events: &[LoggedEvent]) -> usize {
    events
        .iter()
        .map(|e| match &e.event {
            engram_log::Event::Session(s) => s.content.len(),
            _ => 0,
        })
        .sum()
}

/// The `Remembered` event of a memory with `meta`, sealed over
/// `reference` whose events hash to `content_sha256`
/// (`engram_log::seal::content_sha256`).
#[must_use]
pub fn remembered(
    key: &HmacKey,
    reference: MemoryRef,
    content_sha256: Digest,
    meta: MemoryMeta,
) -> Remembered {
    let mut remembered = Remembered {
        reference: reference.clone(),
        content_sha256,
        mac: Digest([0; 32]),
        summary: meta.summary,
        tags: meta.tags,
        tier: meta.tier,
        room: meta.room,
        uniqueness_permille: 1000,
        source: meta.source,
        scope: meta.scope,
        embedding: None,
    };
    seal_at(&mut remembered, key, reference, content_sha256);
    remembered
}

/// Seals `remembered` over `reference`, whose events hash to
/// `content_sha256`: the reference, the hash and the HMAC over both.
pub fn seal_at(
    remembered: &mut Remembered,
    key: &HmacKey,
    reference: MemoryRef,
    content_sha256: Digest,
) {
    remembered.mac = seal::reference_mac(key, &reference, &content_sha256);
    remembered.content_sha256 = content_sha256;
    remembered.reference = reference;
}

/// The tombstone of memory `memory`.
pub fn forgotten(memory: u64, by: Actor, reason: &str) -> Result<Forgotten, InputError> {
    let reason = if reason.trim().is_empty() {
        "no reason given".to_owned()
    } else {
        clean("reason", reason, NOTE_BYTES_MAX)?
    };
    Ok(Forgotten { memory, by, reason })
}

/// The source words of a memory as one text (turns joined by newlines).
#[must_use]
pub fn source_text(events: &[LoggedEvent]) -> String {
    let mut text = String::new();
    for event in events {
        if let engram_log::Event::Session(turn) = &event.event {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&turn.content);
        }
    }
    text
}

/// The evidence check of `quote` against a memory's verified source words:
/// valid only when the (redacted, trimmed) quote occurs in them.
pub fn evidence(
    memory: u64,
    by: Actor,
    quote: &str,
    source: &[LoggedEvent],
) -> Result<EvidenceConfirmed, InputError> {
    let quote = clean("quote", quote.trim(), NOTE_BYTES_MAX)?;
    let valid = source_text(source).contains(&quote);
    Ok(EvidenceConfirmed {
        memory,
        by,
        quote,
        valid,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use engram_log::Event;

    fn turn(seq: u64, content: &str) -> LoggedEvent {
        LoggedEvent {
            erased: false,
            seq,
            ts_ms: 0,
            event: Event::Session(SessionEvent {
                session: "s".into(),
                turn: 0,
                role: Role::User,
                content: content.into(),
            }),
        }
    }

    #[test]
    fn clean_redacts_and_refuses_empty_or_oversized_text() {
        let key = "sk-ant-api03-".to_owned() + &"a".repeat(90);
        let out = clean("content", &format!("my key is {key}"), 1024).unwrap();
        assert!(!out.contains(&key), "{out}");
        assert!(out.contains("[REDACTED:"), "{out}");
        assert_eq!(
            clean("content", "  \n ", 10),
            Err(InputError::Empty { field: "content" })
        );
        assert!(matches!(
            clean("content", "abcdef", 3),
            Err(InputError::TooLong { bytes: 6, .. })
        ));
    }

    #[test]
    fn meta_is_cleaned_tags_deduplicated_and_bad_names_refused() {
        let meta = MemoryMeta {
            tags: vec!["a".into(), " b ".into(), "a".into()],
            room: Some("kitchen".into()),
            ..MemoryMeta::default()
        };
        assert_eq!(meta.cleaned().unwrap().tags, ["a", "b"]);
        let bad = MemoryMeta {
            tags: vec!["a,b".into()],
            ..MemoryMeta::default()
        };
        assert!(matches!(bad.cleaned(), Err(InputError::BadName { .. })));
        let many = MemoryMeta {
            tags: (0..=TAGS_MAX).map(|i| i.to_string()).collect(),
            ..MemoryMeta::default()
        };
        assert!(matches!(
            many.cleaned(),
            Err(InputError::TooManyTags { .. })
        ));
    }

    #[test]
    fn evidence_is_valid_only_for_a_quote_in_the_source() {
        let source = [turn(1, "I like green tea"), turn(2, "in the morning")];
        assert!(
            evidence(3, Actor::User, "green tea", &source)
                .unwrap()
                .valid
        );
        assert!(
            evidence(3, Actor::User, " the morning ", &source)
                .unwrap()
                .valid
        );
        assert!(
            !evidence(3, Actor::User, "black coffee", &source)
                .unwrap()
                .valid
        );
        assert!(evidence(3, Actor::User, "", &source).is_err());
    }

    #[test]
    fn the_seal_verifies_against_the_events_it_was_made_from() {
        let key = HmacKey::from_bytes([3; 32]);
        let events = [turn(1, "words")];
        let reference = MemoryRef {
            session: "s".into(),
            first_seq: 1,
            last_seq: 1,
        };
        let hash = seal::content_sha256(events.iter().map(|e| &e.event)).unwrap();
        let r = remembered(&key, reference.clone(), hash, MemoryMeta::default());
        assert!(seal::reference_mac_matches(
            &key,
            &reference,
            &r.content_sha256,
            &r.mac
        ));
        assert_eq!(
            r.content_sha256,
            seal::content_sha256(events.iter().map(|e| &e.event)).unwrap()
        );
    }
}

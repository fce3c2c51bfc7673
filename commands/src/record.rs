//! The record handler: raw session turns (the L1 log memories point into),
//! validated, redacted and gated like every other write, then appended as
//! one batch.

use engram_log::{Actor, Appended, Event, Role, Scope, SessionEvent, Source};

use crate::gate::{Action, Denial, Object, Subject};
use crate::memory::{self, InputError, clean_subject};
use crate::save::CommandStore;

/// Most turns recorded in one call: a reference spans at most this many
/// events too.
pub const TURNS_MAX: usize = crate::gate::REFERENCE_EVENTS_MAX as usize;

pub use crate::ingest::Turn;

/// Why recording failed. Nothing was written, but for a denial's
/// `GateDenied`.
#[derive(Debug, thiserror::Error)]
pub enum RecordError<E: std::error::Error + 'static> {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("no turns to record")]
    NoTurns,
    #[error("{count} turns is over the limit of {TURNS_MAX} per call: record them in parts")]
    TooManyTurns { count: usize },
    /// A gate refused a turn; the `GateDenied` event was appended.
    #[error("turn {index}: {denial}")]
    Denied { index: usize, denial: Denial },
    /// The session already holds a turn that is not this transcript's.
    #[error(
        "turn {turn} of session {session:?} is not the transcript's turn {turn}: the session holds another conversation (ingest it under another session id)"
    )]
    Diverged { session: String, turn: usize },
    /// The transcript starts past the turns the session holds.
    #[error("session {session:?} holds {held} turns: turn {start} cannot be recorded before them")]
    Gap {
        session: String,
        held: usize,
        start: usize,
    },
    #[error("reading the session's turns: {0}")]
    Read(#[from] engram_log::ReadError),
    #[error(transparent)]
    Store(E),
}

/// What [`record_turns`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The turns' seqs: the range a memory can then reference.
    pub appended: Appended,
    /// Each turn as the log holds it (redacted), with its seq.
    pub turns: Vec<(u64, SessionEvent)>,
    /// Redactions made in the turns' content.
    pub n_redacted: usize,
}

/// Records `turns` as the next turns of `session`, in one atomic append.
/// Each turn's content is redacted before it reaches the log. A model may
/// not record a turn as the user's.
pub fn record_turns<S: CommandStore>(
    store: &S,
    session: &str,
    turns: &[Turn],
    subject: &Subject,
) -> Result<Recorded, RecordError<S::Error>> {
    if turns.is_empty() {
        return Err(RecordError::NoTurns);
    }
    if turns.len() > TURNS_MAX {
        return Err(RecordError::TooManyTurns { count: turns.len() });
    }
    let (subject, session, contents, redactions) = cleaned(session, turns, subject)?;
    let _writer = store.write_lock();
    let n_redacted = redactions.iter().sum();
    record_locked(store, &session, turns, contents, n_redacted, &subject)
}

/// What [`record_transcript_part`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resumed {
    /// The turns appended, if any were new.
    pub recorded: Option<Recorded>,
    /// Turns of the part the session already held (the same words).
    pub n_held: usize,
    /// The seqs of the first and last of those, if any.
    pub held_seqs: Option<(u64, u64)>,
}

/// Records `turns`, the transcript's turns from `start` on, as turns of
/// `session`, skipping those the session already holds: recording a
/// transcript twice adds nothing, and a transcript that grew adds only its
/// new turns. A held turn must be the same turn (role and redacted words);
/// a session holding another conversation is refused and nothing is
/// appended. Decided under the write lock, so two recorders of one
/// transcript at once append each turn once.
pub fn record_transcript_part<S: CommandStore>(
    store: &S,
    session: &str,
    start: usize,
    turns: &[Turn],
    subject: &Subject,
) -> Result<Resumed, RecordError<S::Error>> {
    let (subject, session, mut contents, redactions) = cleaned(session, turns, subject)?;
    let _writer = store.write_lock();
    let held = held_turns(store, &session)?;
    if start > held.len() {
        return Err(RecordError::Gap {
            session,
            held: held.len(),
            start,
        });
    }
    let n_held = (held.len() - start).min(turns.len());
    for (offset, (turn, content)) in turns.iter().zip(&contents).take(n_held).enumerate() {
        let (_, theirs) = &held[start + offset];
        if theirs.role != turn.role || theirs.content != *content {
            return Err(RecordError::Diverged {
                session,
                turn: start + offset,
            });
        }
    }
    let held_seqs = (n_held > 0).then(|| (held[start].0, held[start + n_held - 1].0));
    if n_held == turns.len() {
        return Ok(Resumed {
            recorded: None,
            n_held,
            held_seqs,
        });
    }
    let new_contents = contents.split_off(n_held);
    let n_redacted = redactions[n_held..].iter().sum();
    let recorded = record_locked(
        store,
        &session,
        &turns[n_held..],
        new_contents,
        n_redacted,
        &subject,
    )?;
    Ok(Resumed {
        recorded: Some(recorded),
        n_held,
        held_seqs,
    })
}

/// The turns `session` holds with their seqs, in seq order (read from the
/// log: the session view knows their range, not their words).
fn held_turns<S: CommandStore>(
    store: &S,
    session: &str,
) -> Result<Vec<(u64, SessionEvent)>, RecordError<S::Error>> {
    let Some(info) = store.views().sessions.read().state.get(session).cloned() else {
        return Ok(Vec::new());
    };
    let events = store.reader().read(info.first_seq..=info.last_seq)?;
    Ok(events
        .into_iter()
        .filter_map(|logged| match logged.event {
            Event::Session(turn) if turn.session == session => Some((logged.seq, turn)),
            _ => None,
        })
        .collect())
}

/// The subject, the session name and each turn's content, validated and
/// redacted, with each turn's number of redactions.
type Cleaned = (Subject, String, Vec<String>, Vec<usize>);

fn cleaned(session: &str, turns: &[Turn], subject: &Subject) -> Result<Cleaned, InputError> {
    let subject = clean_subject(subject)?;
    let session = memory::clean_name("session", session)?;
    let mut contents = Vec::with_capacity(turns.len());
    let mut redactions = Vec::with_capacity(turns.len());
    for turn in turns {
        // Sized by the gate below, so an oversized turn is recorded as denied.
        let (content, n) = memory::clean_counted("content", &turn.content, usize::MAX)?;
        contents.push(content);
        redactions.push(n);
    }
    Ok((subject, session, contents, redactions))
}

/// Gates and appends `turns` (their `contents` cleaned) as the next turns
/// of `session`; the caller holds the write lock.
fn record_locked<S: CommandStore>(
    store: &S,
    session: &str,
    turns: &[Turn],
    contents: Vec<String>,
    n_redacted: usize,
    subject: &Subject,
) -> Result<Recorded, RecordError<S::Error>> {
    if turns.is_empty() {
        return Err(RecordError::NoTurns);
    }
    for (index, (turn, content)) in turns.iter().zip(&contents).enumerate() {
        let object = Object::Content {
            bytes: content.len(),
            events: 1,
            source: match turn.role {
                Role::User => Source::User,
                _ if subject.actor == Actor::User => Source::User,
                _ => Source::Model,
            },
            scope: &Scope::Store,
        };
        if let Err(denial) = store.gates().check(subject, Action::Remember, &object) {
            store
                .append(&[Event::GateDenied(denial.event.clone())])
                .map_err(RecordError::Store)?;
            return Err(RecordError::Denied { index, denial });
        }
    }
    let first_turn = store.views().sessions.read().state.next_turn(session);
    let recorded: Vec<SessionEvent> = turns
        .iter()
        .zip(contents)
        .zip(0_u32..)
        .map(|((turn, content), offset)| SessionEvent {
            session: session.to_owned(),
            turn: first_turn.saturating_add(offset),
            role: turn.role,
            content,
        })
        .collect();
    let events: Vec<Event> = recorded.iter().cloned().map(Event::Session).collect();
    let appended = store.append(&events).map_err(RecordError::Store)?;
    Ok(Recorded {
        appended,
        turns: (appended.first_seq..).zip(recorded).collect(),
        n_redacted,
    })
}

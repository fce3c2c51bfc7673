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
    let subject = clean_subject(subject)?;
    let session = memory::clean_name("session", session)?;
    let mut contents = Vec::with_capacity(turns.len());
    let mut n_redacted = 0;
    for turn in turns {
        // Sized by the gate below, so an oversized turn is recorded as denied.
        let (content, n) = memory::clean_counted("content", &turn.content, usize::MAX)?;
        contents.push(content);
        n_redacted += n;
    }
    let _writer = store.write_lock();
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
        if let Err(denial) = store.gates().check(&subject, Action::Remember, &object) {
            store
                .append(&[Event::GateDenied(denial.event.clone())])
                .map_err(RecordError::Store)?;
            return Err(RecordError::Denied { index, denial });
        }
    }
    let first_turn = store.views().sessions.read().state.next_turn(&session);
    let recorded: Vec<SessionEvent> = turns
        .iter()
        .zip(contents)
        .zip(0_u32..)
        .map(|((turn, content), offset)| SessionEvent {
            session: session.clone(),
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

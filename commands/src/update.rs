//! The update handler: new words for a memory, recorded as a supersession.
//!
//! An update is a save of the new words (validated, redacted, gated and
//! decided as every save is) plus a verdict that retires the old memory,
//! in **one atomic append**: the `note` turn, the `Remembered` sealing it,
//! its entity links and TTL, a `ContradictionFlagged` edge from the new
//! memory to the old one and the `VerdictRecorded` (`keep-a`) that
//! overrules the old one. After a crash the log holds the whole update or
//! none of it; the old memory leaves recall (the verdicts view overrules
//! it) and stays in the log and the audit trail.
//!
//! The old memory must exist and not be forgotten. The gate chain is
//! asked twice: [`Action::Supersede`] on the old memory (a model may not
//! retire what the user said; a session's private memory is updated from
//! that session only) and [`Action::Remember`] on the new words (size,
//! authorship). A denial appends its `GateDenied` and nothing else.
//!
//! The new memory keeps what the old one had unless the caller says
//! otherwise: its room, tags and scope (a session's private memory stays
//! private), and its tier (L3 for an archived one).
//!
//! **Invariant:** the handler holds the write lock from its first read of
//! the views to its append, like every save.

use std::collections::BTreeMap;

use engram_log::{ContradictionFlagged, Event, MemoryId, Source, Tier, Verdict, VerdictRecorded};

use crate::flywheel::{CommandError, FlywheelError, gate};
use crate::gate::{Action, Object, Subject};
use crate::memory::{self, MemoryMeta};
use crate::save::{
    self, APPEND_TRIES_MAX, CommandStore, Content, Expecting, Kind, Outcome, Planner, Receipt,
    Remember, SaveError, Target,
};

/// The reason an update's verdict records when the caller gives none.
pub const UPDATE_REASON_DEFAULT: &str = "updated";

/// New words for memory `memory`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Update {
    /// The memory the new words supersede.
    pub memory: MemoryId,
    /// The new words.
    pub text: String,
    /// The session the words are recorded in (default `notes`).
    pub session: Option<String>,
    /// A one-line summary of the new words.
    pub summary: Option<String>,
    /// Tags of the new memory; the old memory's when `None`.
    pub tags: Option<Vec<String>>,
    /// Room of the new memory; the old memory's when `None`.
    pub room: Option<String>,
    /// Why (recorded in the verdict); [`UPDATE_REASON_DEFAULT`] when empty.
    pub reason: String,
    pub subject: Subject,
}

/// What an update recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Updated {
    /// The memory superseded.
    pub old: MemoryId,
    /// The new memory's save (outcome `new`, or `contradiction` when the
    /// new words disagree with a third memory).
    pub receipt: Receipt,
    /// Seq of the verdict that retired the old memory.
    pub verdict_seq: u64,
}

type Result<T, S> = std::result::Result<T, CommandError<<S as CommandStore>::Error>>;

fn from_save<E: std::error::Error + 'static>(e: SaveError<E>) -> CommandError<E> {
    match e {
        SaveError::Input(e) => CommandError::Input(e),
        SaveError::Denied(denial) => CommandError::Denied(denial),
        SaveError::Seal(e) => CommandError::Seal(e),
        SaveError::Store(e) => CommandError::Store(e),
        SaveError::Contended { tries } => CommandError::Contended { tries },
    }
}

/// Records `update` (see the module documentation).
pub fn update<S: CommandStore>(store: &S, update: &Update) -> Result<Updated, S> {
    let subject = memory::clean_subject(&update.subject)?;
    let reason = if update.reason.trim().is_empty() {
        UPDATE_REASON_DEFAULT.to_owned()
    } else {
        memory::clean("reason", &update.reason, memory::NOTE_BYTES_MAX)?
    };
    let _writer = store.write_lock();
    let old = store
        .views()
        .memory_table
        .read()
        .state
        .get(update.memory)
        .cloned()
        .ok_or(CommandError::UnknownMemory { id: update.memory })?;
    if let Some(purged) = &old.purged {
        return Err(CommandError::Purged {
            id: old.id,
            seq: purged.seq,
            by: purged.by,
            reason: purged.reason.clone(),
        });
    }
    if let Some(forgotten) = &old.forgotten {
        return Err(CommandError::Forgotten {
            id: old.id,
            seq: forgotten.seq,
        });
    }
    if let Some(seq) = store.views().verdicts.read().state.overruled_at(old.id) {
        return Err(FlywheelError::Superseded { id: old.id, seq }.into());
    }
    gate(store, &subject, Action::Supersede, &Object::Memory(&old))?;
    let request = Remember {
        content: Content::Text {
            text: update.text.clone(),
            session: update.session.clone(),
        },
        meta: MemoryMeta {
            summary: update.summary.clone(),
            tags: update.tags.clone().unwrap_or_else(|| old.tags.clone()),
            tier: match old.tier {
                Tier::L4 => Tier::L3,
                tier => tier,
            },
            room: update.room.clone().or_else(|| old.room.clone()),
            source: match subject.actor {
                engram_log::Actor::User => Source::User,
                engram_log::Actor::Model | engram_log::Actor::System => Source::Model,
            },
            scope: old.scope.clone(),
            ttl_ms: None,
        },
        subject: subject.clone(),
    };
    let prepared = save::prepare(&request);
    let plan = Planner::superseding(store, old.id)
        .plan(&request, prepared)
        .map_err(from_save)?;
    let contradiction = match &plan.kind {
        Kind::Remembered { contradiction, .. } => contradiction.clone(),
        Kind::Denied { denial } => {
            store
                .append(&[Event::GateDenied(denial.event.clone())])
                .map_err(CommandError::Store)?;
            return Err(CommandError::Denied(denial.clone()));
        }
        Kind::Discarded { reason, .. } => {
            return Err(CommandError::Discarded {
                reason: reason.clone(),
            });
        }
        // A superseding planner never reinforces.
        Kind::Reinforced { .. } => {
            return Err(CommandError::Discarded {
                reason: "the new words restate a memory".to_owned(),
            });
        }
    };
    let uniqueness_permille = plan.uniqueness_permille;
    let part = [(0, plan)];
    let mut first_seq = store.next_seq();
    for _ in 0..APPEND_TRIES_MAX {
        let mut built =
            save::build(store, first_seq, &part, &BTreeMap::new()).map_err(CommandError::Store)?;
        let Some(&id) = built.made.get(&0) else {
            return Err(CommandError::Discarded {
                reason: "the new words made no memory".to_owned(),
            });
        };
        // The edge the verdict decides; the save's own flag already is
        // one when the new words contradict the old memory.
        if contradiction
            .as_ref()
            .is_none_or(|(other, _)| *other != Target::Existing(old.id))
        {
            built
                .events
                .push(Event::ContradictionFlagged(ContradictionFlagged {
                    memory: id,
                    other: old.id,
                    reason: format!("memory {id} updates memory {}", old.id),
                }));
        }
        let verdict_seq = first_seq + built.events.len() as u64;
        built.events.push(Event::VerdictRecorded(VerdictRecorded {
            a: id,
            b: old.id,
            verdict: Verdict::KeepA,
            by: subject.actor,
            reason: reason.clone(),
        }));
        match store
            .append_expecting(first_seq, &built.events)
            .map_err(CommandError::Store)?
        {
            Expecting::Appended(_) => {
                let coordinate = store
                    .views()
                    .palace
                    .read()
                    .state
                    .coordinate(id)
                    .map_or_else(String::new, |c| c.to_string());
                let (outcome, related, why) = match &contradiction {
                    Some((Target::Existing(other), why)) if *other != old.id => {
                        (Outcome::Contradiction, Some(*other), Some(why.clone()))
                    }
                    _ => (Outcome::New, None, None),
                };
                return Ok(Updated {
                    old: old.id,
                    receipt: Receipt {
                        outcome,
                        id: Some(id),
                        coordinate: Some(coordinate),
                        related,
                        reason: why,
                        reference: built.references.get(&0).cloned(),
                        uniqueness_permille,
                    },
                    verdict_seq,
                });
            }
            Expecting::Moved { next_seq } => first_seq = next_seq,
        }
    }
    Err(CommandError::Contended {
        tries: APPEND_TRIES_MAX,
    })
}

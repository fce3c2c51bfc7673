//! The flywheel's write handlers (grade, verdict, maintain, distill) and
//! the memory handlers forget and confirm, each written once over
//! [`CommandStore`]: validate against the views, pass the gate chain (a
//! denial is recorded as `GateDenied` and returned), then one atomic
//! append. A model cannot overrule, grade away, archive or forget what the
//! user said (the chain's write trust).
//!
//! Every handler holds the store's write lock from its first read of the
//! views to its append, so two commands never decide on the same state.

use engram_log::seal::{self, SealError};
use std::collections::{BTreeMap, BTreeSet};

use engram_log::{
    Actor, Archived, Distilled, Event, Graded, MemoryId, MemoryRef, Source, Tier, UniquenessScored,
    Verdict, VerdictRecorded,
};
use engram_projections::models::review::GRADE_MAX;
use engram_projections::models::{EdgeState, MemoryEntry, MemoryStatus, Schedule};

use crate::decide::{self, Profile};
use crate::gate::{Action, Denial, Object, Subject};
use crate::maintain::{MaintainPolicy, Maintained, MemoryFacts, RESCORED_PER_RUN_MAX, Rescored};
use crate::memory::{self, InputError};
use crate::save::{APPEND_TRIES_MAX, CommandStore, Expecting, entity_events};

/// Where distilled rules are recorded as notes.
pub const RULES_SESSION: &str = "rules";

/// Bad flywheel input. Nothing was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FlywheelError {
    #[error("grade {grade} is outside 0-5 (0 = blackout ... 5 = perfect recall)")]
    Grade { grade: u8 },
    #[error("memories {a} and {b} are not in contradiction: `engram verdicts` lists the open ones")]
    NotInContradiction { a: MemoryId, b: MemoryId },
    #[error("the contradiction between {a} and {b} was already decided")]
    AlreadyDecided { a: MemoryId, b: MemoryId },
    #[error("a rule needs at least two distinct member memories, got {count}")]
    TooFewMembers { count: usize },
    #[error(
        "memory {id} was already superseded (by the verdict at seq {seq}): update the memory that replaced it"
    )]
    Superseded { id: MemoryId, seq: u64 },
}

/// Why a command on existing memories failed. Nothing was written, but for
/// a denial's `GateDenied`.
#[derive(Debug, thiserror::Error)]
pub enum CommandError<E: std::error::Error + 'static> {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Flywheel(#[from] FlywheelError),
    #[error(transparent)]
    Tier(#[from] crate::tier::TierMoveError),
    #[error(transparent)]
    Workspace(#[from] crate::workspace::WorkspaceError),
    #[error(transparent)]
    Corridor(#[from] crate::corridor::CorridorError),
    #[error("no memory with id {id}: a memory's id is the seq of its `remembered` event")]
    UnknownMemory { id: MemoryId },
    #[error("memory {id} was forgotten at seq {seq}")]
    Forgotten { id: MemoryId, seq: u64 },
    /// The memory's words were erased: nothing can be done with it.
    #[error("memory {id} was erased (purged at seq {seq}): its words are gone")]
    Purged {
        id: MemoryId,
        seq: u64,
        by: Actor,
        reason: String,
    },
    #[error(transparent)]
    Purge(#[from] crate::purge::PurgeError),
    /// A gate refused it; the `GateDenied` event was appended.
    #[error("{0}")]
    Denied(Denial),
    /// An update's new words were too poor to keep (low entropy).
    #[error("the new words were discarded ({reason}): nothing was changed")]
    Discarded { reason: String },
    /// The memory's source words did not verify.
    #[error(transparent)]
    Seal(#[from] SealError),
    /// Other appends kept taking the seq the batch was built for.
    #[error("the log moved on {tries} times while this command waited to append; try again")]
    Contended { tries: usize },
    #[error(transparent)]
    Store(E),
}

type Result<T, S> = std::result::Result<T, CommandError<<S as CommandStore>::Error>>;

/// The entry of memory `id`; a purged memory is refused (nothing can be
/// done with it).
fn entry<S: CommandStore>(store: &S, id: MemoryId) -> Result<MemoryEntry, S> {
    let entry = store
        .views()
        .memory_table
        .read()
        .state
        .get(id)
        .cloned()
        .ok_or(CommandError::UnknownMemory { id })?;
    match &entry.purged {
        Some(p) => Err(CommandError::Purged {
            id,
            seq: p.seq,
            by: p.by,
            reason: p.reason.clone(),
        }),
        None => Ok(entry),
    }
}

fn live_entry<S: CommandStore>(store: &S, id: MemoryId) -> Result<MemoryEntry, S> {
    let entry = entry(store, id)?;
    match &entry.forgotten {
        Some(f) => Err(CommandError::Forgotten { id, seq: f.seq }),
        None => Ok(entry),
    }
}

/// Asks the gate chain; a denial is appended as `GateDenied` and returned.
pub fn gate<S: CommandStore>(
    store: &S,
    subject: &Subject,
    action: Action,
    object: &Object<'_>,
) -> Result<(), S> {
    if let Err(denial) = store.gates().check(subject, action, object) {
        store
            .append(&[Event::GateDenied(denial.event.clone())])
            .map_err(CommandError::Store)?;
        return Err(CommandError::Denied(denial));
    }
    Ok(())
}

fn append<S: CommandStore>(store: &S, events: &[Event]) -> Result<engram_log::Appended, S> {
    store.append(events).map_err(CommandError::Store)
}

/// What forget did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forgetting {
    pub id: MemoryId,
    /// Seq of the tombstone (the earlier one when already forgotten).
    pub seq: u64,
    /// The memory was already forgotten: nothing was appended.
    pub already: bool,
}

/// Tombstones memory `id` (who, why). Idempotent: forgetting a forgotten
/// memory appends nothing and reports the first tombstone.
pub fn forget<S: CommandStore>(
    store: &S,
    id: MemoryId,
    subject: &Subject,
    reason: &str,
) -> Result<Forgetting, S> {
    let subject = &memory::clean_subject(subject)?;
    let event = memory::forgotten(id, subject.actor, reason)?;
    let _writer = store.write_lock();
    let entry = entry(store, id)?;
    if let Some(forgotten) = &entry.forgotten {
        return Ok(Forgetting {
            id,
            seq: forgotten.seq,
            already: true,
        });
    }
    gate(store, subject, Action::Forget, &Object::Memory(&entry))?;
    let seq = append(store, &[Event::Forgotten(event)])?.first_seq;
    Ok(Forgetting {
        id,
        seq,
        already: false,
    })
}

/// What confirm recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct Confirmation {
    pub id: MemoryId,
    pub seq: u64,
    /// The quote occurs in the memory's verified source words.
    pub valid: bool,
    pub trust: f64,
}

/// Checks `quote` against memory `id`'s verified source words and records
/// `EvidenceConfirmed` (valid evidence raises trust, and promotes a session
/// memory from L1 to L3 with a `TierChanged` in the same append).
pub fn confirm<S: CommandStore>(
    store: &S,
    id: MemoryId,
    subject: &Subject,
    quote: &str,
) -> Result<Confirmation, S> {
    let subject = &memory::clean_subject(subject)?;
    let _writer = store.write_lock();
    let entry = live_entry(store, id)?;
    gate(store, subject, Action::Confirm, &Object::Memory(&entry))?;
    let events = seal::read_sealed(
        store.reader(),
        store.key(),
        &entry.reference,
        &entry.content_sha256,
        &entry.mac,
    )?;
    let evidence = memory::evidence(id, subject.actor, quote, &events)?;
    let valid = evidence.valid;
    // Valid evidence promotes a session memory to the cross-session store,
    // in the same append.
    let promotion = valid
        .then(|| crate::tier::promotion_on_confirm(&entry))
        .flatten();
    let mut batch = vec![Event::EvidenceConfirmed(evidence)];
    batch.extend(promotion.map(Event::TierChanged));
    let seq = append(store, &batch)?.first_seq;
    let trust = store.views().trust.read().state.trust(id).unwrap_or(0.0);
    Ok(Confirmation {
        id,
        seq,
        valid,
        trust,
    })
}

/// Records `subject`'s SM-2 self-grade (0-5) and returns the new schedule.
/// The gate sees what the grade does to the memory's importance (a model's
/// grade may not lower a user's memory into the range maintenance
/// archives).
pub fn grade<S: CommandStore>(
    store: &S,
    id: MemoryId,
    grade: u8,
    subject: &Subject,
) -> Result<Schedule, S> {
    if grade > GRADE_MAX {
        return Err(FlywheelError::Grade { grade }.into());
    }
    let subject = memory::clean_subject(subject)?;
    let _writer = store.write_lock();
    let entry = live_entry(store, id)?;
    let (importance_before, importance_after) = store
        .views()
        .trust
        .read()
        .state
        .inputs(id)
        .map(|inputs| {
            let importance = |permille| crate::maintain::importance(permille, entry.reinforcements);
            (
                importance(inputs.permille()),
                importance(inputs.graded(grade).permille()),
            )
        })
        .unwrap_or_default();
    gate(
        store,
        &subject,
        Action::Grade,
        &Object::Grade {
            memory: &entry,
            grade,
            importance_before,
            importance_after,
        },
    )?;
    append(store, &[Event::Graded(Graded { memory: id, grade })])?;
    store
        .views()
        .review
        .read()
        .state
        .get(id)
        .cloned()
        .ok_or(CommandError::UnknownMemory { id })
}

/// Records a verdict on the contradiction between `a` and `b`; returns its
/// seq. The loser of keep-a / keep-b leaves recall; it stays in the audit
/// trail. A model may not overrule what the user said, nor shelve a
/// contradiction with it.
pub fn verdict<S: CommandStore>(
    store: &S,
    a: MemoryId,
    b: MemoryId,
    verdict: Verdict,
    by: Actor,
    reason: &str,
) -> Result<u64, S> {
    let reason = if reason.trim().is_empty() {
        "no reason given".to_owned()
    } else {
        memory::clean("reason", reason, memory::NOTE_BYTES_MAX)?
    };
    let _writer = store.write_lock();
    let state = store
        .views()
        .verdicts
        .read()
        .state
        .edge(a, b)
        .map(|e| e.state);
    match state {
        None | Some(EdgeState::Closed) => {
            return Err(FlywheelError::NotInContradiction { a, b }.into());
        }
        Some(EdgeState::Decided(_)) => {
            return Err(FlywheelError::AlreadyDecided { a, b }.into());
        }
        Some(EdgeState::Open | EdgeState::Shelved) => {}
    }
    let (entry_a, entry_b) = (entry(store, a)?, entry(store, b)?);
    let subject = Subject {
        actor: by,
        session: None,
    };
    gate(
        store,
        &subject,
        Action::Verdict,
        &Object::Contradiction {
            a: &entry_a,
            b: &entry_b,
            verdict,
        },
    )?;
    Ok(append(
        store,
        &[Event::VerdictRecorded(VerdictRecorded {
            a,
            b,
            verdict,
            by,
            reason,
        })],
    )?
    .first_seq)
}

/// Archives what `policy` says should go at `now_ms` (expired, decayed,
/// evicted; see [`crate::maintain`]), each as a `TierChanged` to L4 and an
/// `Archived`, and records the uniqueness of the memories whose score
/// changed, in one atomic append, and returns what it did. `dry_run` only
/// plans. Nothing to do appends nothing. Every archive and score passes the
/// gate chain: when any is denied (a model archiving what the user said),
/// nothing is archived, each denial is recorded as `GateDenied` (one
/// append) and the first is returned.
pub fn maintain<S: CommandStore>(
    store: &S,
    policy: &MaintainPolicy,
    now_ms: u64,
    dry_run: bool,
    subject: &Subject,
) -> Result<Maintained, S> {
    let subject = memory::clean_subject(subject)?;
    let _writer = store.write_lock();
    let facts: Vec<MemoryFacts> = {
        let views = store.views();
        // In the views' lock order (`engram_projections::CoreViews`).
        let table = views.memory_table.read();
        let trust = views.trust.read();
        let lru = views.lru.read();
        let review = views.review.read();
        lru.state
            .eviction_order()
            .filter_map(|id| {
                let entry = table.state.get(id)?;
                (entry.status == MemoryStatus::Live).then(|| MemoryFacts {
                    id,
                    tier: entry.tier,
                    trust_permille: trust.state.trust_permille(id).unwrap_or(0),
                    reinforcements: entry.reinforcements,
                    last_access_ms: lru.state.last_access(id).map_or(0, |a| a.ts_ms),
                    failed_last_review: review.state.get(id).is_some_and(|s| s.failed_last),
                    expires_at_ms: entry.expires_at_ms,
                })
            })
            .collect()
    };
    let plan = crate::maintain::plan(policy, &facts, now_ms);
    let leaving: BTreeSet<MemoryId> = plan.iter().map(|(id, _)| *id).collect();
    let rescored = rescore(store, &leaving, policy.rescore_after);
    if dry_run {
        return Ok(Maintained {
            archived: plan,
            rescored,
        });
    }
    let denials: Vec<Denial> = {
        let table = store.views().memory_table.read();
        let archives = plan.iter().map(|(id, _)| (*id, Action::Archive));
        let scores = rescored.iter().map(|r| (r.memory, Action::Rescore));
        archives
            .chain(scores)
            .filter_map(|(id, action)| {
                let entry = table.state.get(id)?;
                store
                    .gates()
                    .check(&subject, action, &Object::Memory(entry))
                    .err()
            })
            .collect()
    };
    if let Some(first) = denials.first() {
        let events: Vec<Event> = denials
            .iter()
            .map(|d| Event::GateDenied(d.event.clone()))
            .collect();
        append(store, &events)?;
        return Err(CommandError::Denied(first.clone()));
    }
    // Each archive is a demotion: its `TierChanged` to L4, then the
    // `Archived` that makes it cold; then the refreshed scores.
    let events: Vec<Event> = {
        let table = store.views().memory_table.read();
        plan.iter()
            .flat_map(|(memory, reason)| {
                let from = table.state.get(*memory).map_or(Tier::L3, |e| e.tier);
                [
                    Event::TierChanged(crate::tier::demotion(*memory, from, reason)),
                    Event::Archived(Archived {
                        memory: *memory,
                        reason: reason.clone(),
                    }),
                ]
            })
            .chain(rescored.iter().map(|r| {
                Event::UniquenessScored(UniquenessScored {
                    memory: r.memory,
                    uniqueness_permille: r.to_permille,
                })
            }))
            .collect()
    };
    if !events.is_empty() {
        append(store, &events)?;
    }
    Ok(Maintained {
        archived: plan,
        rescored,
    })
}

/// Neighbours a memory's uniqueness is scored against, as at a save.
const RESCORE_NEIGHBOURS: usize = 10;
/// Query terms a memory's neighbours are searched with, as at a save.
const RESCORE_QUERY_TERMS_MAX: usize = 64;

/// The live memories (but those `leaving`) whose uniqueness against their
/// nearest live neighbours now differs from the recorded one, in id
/// order, at most [`RESCORED_PER_RUN_MAX`]; with `after`, only the memories
/// saved after it and their neighbours are looked at
/// ([`MaintainPolicy::rescore_after`]). Words are taken only through the
/// views' MAC: a memory or neighbour that fails it is left out.
fn rescore<S: CommandStore>(
    store: &S,
    leaving: &BTreeSet<MemoryId>,
    after: Option<MemoryId>,
) -> Vec<Rescored> {
    let views = store.views();
    let table = views.memory_table.read();
    let index = views.text_index.read();
    let palace = views.palace.read();
    let stays = |id: MemoryId| {
        !leaving.contains(&id)
            && table
                .state
                .get(id)
                .is_some_and(|e| e.status == MemoryStatus::Live)
    };
    let text_of = |id: MemoryId| {
        let entry = table.state.get(id)?;
        index.verified_text(entry).ok()?
    };
    let mut profiles: BTreeMap<MemoryId, std::sync::Arc<Profile>> = BTreeMap::new();
    let mut profile_of = |id: MemoryId, text: &str| -> std::sync::Arc<Profile> {
        std::sync::Arc::clone(
            profiles
                .entry(id)
                .or_insert_with(|| std::sync::Arc::new(decide::profile(text))),
        )
    };
    let search_terms = |text: &str| {
        let mut terms = engram_text::tokenize::query_terms(text);
        terms.truncate(RESCORE_QUERY_TERMS_MAX);
        terms
    };
    // Around the newest memories only, when asked: those saved after
    // `after` (the newest RESCORED_PER_RUN_MAX of them) and their neighbours.
    let around: Option<BTreeSet<MemoryId>> = after.map(|after| {
        let mut ids = BTreeSet::new();
        for entry in table
            .state
            .iter()
            .rev()
            .take_while(|e| e.id > after)
            .filter(|e| stays(e.id))
            .take(RESCORED_PER_RUN_MAX)
        {
            ids.insert(entry.id);
            if let Some(text) = text_of(entry.id) {
                let terms = search_terms(text);
                ids.extend(
                    index
                        .state
                        .search(&terms, RESCORE_NEIGHBOURS, |m| m != entry.id && stays(m))
                        .into_iter()
                        .map(|hit| hit.memory),
                );
            }
        }
        ids
    });
    let candidates: Box<dyn Iterator<Item = &MemoryEntry>> = match &around {
        Some(ids) => Box::new(ids.iter().filter_map(|id| table.state.get(*id))),
        None => Box::new(table.state.iter()),
    };
    let mut out = Vec::new();
    for entry in candidates {
        if out.len() >= RESCORED_PER_RUN_MAX {
            break;
        }
        let id = entry.id;
        if !stays(id) {
            continue;
        }
        let Some(text) = text_of(id) else {
            continue;
        };
        let mine = profile_of(id, text);
        let terms = search_terms(text);
        let best = index
            .state
            .search(&terms, RESCORE_NEIGHBOURS, |m| m != id && stays(m))
            .into_iter()
            .filter_map(|hit| {
                let theirs = text_of(hit.memory)?;
                Some(decide::similarity_across_seams(
                    &mine,
                    &profile_of(hit.memory, theirs),
                ))
            })
            .fold(0.0_f64, f64::max);
        let prefix_repeats = palace
            .state
            .coordinate(id)
            .and_then(|c| palace.state.room(&c.room))
            .is_some_and(|room| {
                room.slots.iter().any(|&other| {
                    other != id
                        && stays(other)
                        && text_of(other).is_some_and(|t| decide::same_opening(t, text))
                })
            });
        let to_permille = decide::uniqueness_permille(&mine, best, prefix_repeats);
        if to_permille != entry.uniqueness_permille {
            out.push(Rescored {
                memory: id,
                from_permille: entry.uniqueness_permille,
                to_permille,
            });
        }
    }
    out
}

/// What an explicit tier move recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TierMove {
    pub id: MemoryId,
    pub from: Tier,
    pub to: Tier,
    /// Seq of the `TierChanged`.
    pub seq: u64,
}

/// Moves memory `id` to tier `to` by hand (`engram tier`): a
/// `TierChanged`, and to L4 an `Archived` with it (the archive is cold);
/// out of L4 the memory is live again. Refused, with nothing written, for a
/// forgotten memory, a move to its own tier, and moves into or out of L2
/// (see [`crate::tier::planned_move`]). A move to L4, or from L3 to L1,
/// passes the gate as an archive (a model cannot archive what the user
/// said); any other move as a confirmation of the memory.
pub fn move_tier<S: CommandStore>(
    store: &S,
    id: MemoryId,
    to: Tier,
    reason: &str,
    subject: &Subject,
) -> Result<TierMove, S> {
    let subject = memory::clean_subject(subject)?;
    let reason = if reason.trim().is_empty() {
        format!("moved by hand to {}", crate::tier::tier_name(to))
    } else {
        memory::clean("reason", reason, memory::NOTE_BYTES_MAX)?
    };
    let _writer = store.write_lock();
    let entry = entry(store, id)?;
    let change = crate::tier::planned_move(&entry, to, reason)?;
    // Down to the archive, or from the cross-session store back to a
    // session's (which decays sooner), is an archive for the gates.
    let action = if to == Tier::L4 || (entry.tier == Tier::L3 && to == Tier::L1) {
        Action::Archive
    } else {
        Action::Confirm
    };
    gate(store, &subject, action, &Object::Memory(&entry))?;
    let from = change.from;
    let archive = (to == Tier::L4).then(|| {
        Event::Archived(Archived {
            memory: id,
            reason: change.reason.clone(),
        })
    });
    let mut events = vec![Event::TierChanged(change)];
    events.extend(archive);
    let seq = append(store, &events)?.first_seq;
    Ok(TierMove { id, from, to, seq })
}

/// A distilled rule as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Distillation {
    /// The rule's own memory.
    pub id: MemoryId,
    pub coordinate: String,
    pub members: Vec<MemoryId>,
    /// Inherited confidence, permille.
    pub confidence_permille: u16,
}

/// What a distillation would record, from a dry run: nothing written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DistillPlan {
    /// The members, in id order, once each.
    pub members: Vec<MemoryId>,
    /// The confidence the rule would inherit, permille.
    pub confidence_permille: u16,
    /// The room it would be filed in.
    pub room: String,
    /// The rule as it would be recorded (redacted).
    pub rule: String,
}

/// Whether a refusal of the gate chain is recorded (`GateDenied`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Denials {
    Record,
    /// A dry run: a denial is returned, nothing appended.
    Return,
}

fn ask_gates<S: CommandStore>(
    store: &S,
    subject: &Subject,
    action: Action,
    object: &Object<'_>,
    denials: Denials,
) -> Result<(), S> {
    match denials {
        Denials::Record => gate(store, subject, action, object),
        Denials::Return => store
            .gates()
            .check(subject, action, object)
            .map_err(CommandError::Denied),
    }
}

/// Checks a distillation as [`distill`] would (members, rule, room, every
/// gate) and says what it would record, appending nothing: a denial is
/// returned, not recorded.
pub fn distill_plan<S: CommandStore>(
    store: &S,
    members: &[MemoryId],
    rule: &str,
    room: Option<&str>,
    subject: &Subject,
) -> Result<DistillPlan, S> {
    let subject = &memory::clean_subject(subject)?;
    let _writer = store.write_lock();
    plan_distill(store, members, rule, room, subject, Denials::Return).map(|(plan, _, _)| plan)
}

/// The checks and choices of a distillation, under the caller's write lock:
/// the plan, the rule's note and its source.
fn plan_distill<S: CommandStore>(
    store: &S,
    members: &[MemoryId],
    rule: &str,
    room: Option<&str>,
    subject: &Subject,
    denials: Denials,
) -> Result<(DistillPlan, engram_log::SessionEvent, Source), S> {
    let mut members = members.to_vec();
    members.sort_unstable();
    members.dedup();
    if members.len() < crate::distill::MEMBERS_MIN {
        return Err(FlywheelError::TooFewMembers {
            count: members.len(),
        }
        .into());
    }
    let room = room.map(|r| memory::clean_name("room", r)).transpose()?;
    for &id in &members {
        let entry = live_entry(store, id)?;
        ask_gates(
            store,
            subject,
            Action::Distill,
            &Object::Memory(&entry),
            denials,
        )?;
    }
    let views = store.views();
    let trusts: Vec<u16> = {
        let trust = views.trust.read();
        members
            .iter()
            .map(|&id| trust.state.trust_permille(id).unwrap_or(0))
            .collect()
    };
    let open = {
        let verdicts = views.verdicts.read();
        let mut n = 0;
        for (i, &a) in members.iter().enumerate() {
            for &b in members.iter().skip(i + 1) {
                if verdicts
                    .state
                    .edge(a, b)
                    .is_some_and(|e| e.state == EdgeState::Open)
                {
                    n += 1;
                }
            }
        }
        n
    };
    let confidence_permille = crate::distill::confidence(&trusts, open);
    let room = room.unwrap_or_else(|| {
        let palace = views.palace.read();
        members
            .first()
            .and_then(|&first| palace.state.coordinate(first))
            .map(|c| palace.state.topic_of(&c.room).to_owned())
            .unwrap_or_else(|| "rules".to_owned())
    });
    let turn = views.sessions.read().state.next_turn(RULES_SESSION);
    let note = memory::note_event(RULES_SESSION, turn, rule)?;
    let source = match subject.actor {
        Actor::User => Source::User,
        Actor::Model | Actor::System => Source::Model,
    };
    ask_gates(
        store,
        subject,
        Action::Distill,
        &Object::Content {
            bytes: note.content.len(),
            events: 1,
            source,
            scope: &engram_log::Scope::Store,
        },
        denials,
    )?;
    let plan = DistillPlan {
        members,
        confidence_permille,
        room,
        rule: note.content.clone(),
    };
    Ok((plan, note, source))
}

/// Records `rule` (written by the caller) as a new memory distilled from
/// `members`, with the confidence it inherits from them, in one atomic
/// append: the rule's note, the `Remembered` sealing it, `Distilled`
/// (which names the rule's memory by position: the event right before it)
/// and the entity links. [`distill_plan`] checks the same without writing.
pub fn distill<S: CommandStore>(
    store: &S,
    members: &[MemoryId],
    rule: &str,
    room: Option<&str>,
    subject: &Subject,
) -> Result<Distillation, S> {
    let subject = &memory::clean_subject(subject)?;
    let _writer = store.write_lock();
    let (plan, note, source) = plan_distill(store, members, rule, room, subject, Denials::Record)?;
    let DistillPlan {
        members,
        confidence_permille,
        room,
        ..
    } = plan;
    let views = store.views();
    let rule_text = note.content.clone();
    let meta = memory::MemoryMeta {
        room: Some(room.clone()),
        tags: vec!["rule".to_owned()],
        source,
        ..memory::MemoryMeta::default()
    };
    let note = Event::Session(note);
    let mut first_seq = store.next_seq();
    for _ in 0..APPEND_TRIES_MAX {
        let reference = MemoryRef {
            session: RULES_SESSION.to_owned(),
            first_seq,
            last_seq: first_seq,
        };
        // The seal hashes the note as the log will hold it at its seq.
        let content_sha256 = store
            .content_sha256_at(first_seq, &note)
            .map_err(CommandError::Store)?;
        let remembered = memory::remembered(store.key(), reference, content_sha256, meta.clone());
        let id = first_seq + 1;
        let mut events = vec![
            note.clone(),
            Event::Remembered(remembered),
            Event::Distilled(Distilled {
                rule: rule_text.clone(),
                members: members.clone(),
                confidence_permille,
                room: Some(room.clone()),
            }),
        ];
        events.extend(entity_events(id, &rule_text, None));
        match store
            .append_expecting(first_seq, &events)
            .map_err(CommandError::Store)?
        {
            Expecting::Appended(_) => {
                let coordinate = views
                    .palace
                    .read()
                    .state
                    .coordinate(id)
                    .map_or_else(String::new, |c| c.to_string());
                return Ok(Distillation {
                    id,
                    coordinate,
                    members,
                    confidence_permille,
                });
            }
            Expecting::Moved { next_seq } => first_seq = next_seq,
        }
    }
    Err(CommandError::Contended {
        tries: APPEND_TRIES_MAX,
    })
}

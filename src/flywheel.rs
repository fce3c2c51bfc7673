//! The flywheel on an [`Engram`]: verdicts on contradictions and SM-2
//! review. Each command validates against the views, passes the gate chain
//! (a denial is recorded as `GateDenied` and returned as
//! [`EngineError::Denied`]), then appends; the views (verdicts, review
//! schedule) are folds, so everything here survives restart and rebuild.

use engram_commands::gate::{Action, Object, Subject};
use engram_commands::memory;
use engram_log::{Actor, Event, Graded, MemoryId, Verdict, VerdictRecorded};
use engram_projections::models::review::GRADE_MAX;
use engram_projections::models::{EdgeState, MemoryEntry, MemoryStatus, Schedule};
use engram_queries::{Cue, cues};

use crate::engine::{EngineError, Engram};

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

/// An item due for review: where it is and what is around it, never its
/// content (the reviewer recalls it first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueItem {
    pub id: MemoryId,
    pub coordinate: String,
    pub cues: Vec<Cue>,
    pub due_ms: u64,
}

/// One contradiction as listed for a verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenContradiction {
    pub a: MemoryId,
    pub b: MemoryId,
    pub reason: String,
    pub a_label: String,
    pub b_label: String,
}

impl Engram {
    fn live(&self, id: MemoryId) -> Result<(), EngineError> {
        match self.core().memory_table.read().state.get(id) {
            None => Err(EngineError::UnknownMemory { id }),
            Some(entry) => match &entry.forgotten {
                Some(f) => Err(EngineError::Forgotten { id, seq: f.seq }),
                None => Ok(()),
            },
        }
    }

    fn entry_of(&self, id: MemoryId) -> Result<MemoryEntry, EngineError> {
        self.core()
            .memory_table
            .read()
            .state
            .get(id)
            .cloned()
            .ok_or(EngineError::UnknownMemory { id })
    }

    /// Records the user's SM-2 self-grade (0-5) and returns the new
    /// schedule: [`Engram::grade_as`] by the user.
    pub fn grade(&self, id: MemoryId, grade: u8) -> Result<Schedule, EngineError> {
        self.grade_as(id, grade, &Subject::user())
    }

    /// Records `subject`'s SM-2 self-grade (0-5) and returns the new
    /// schedule. The gate sees what the grade does to the memory's
    /// importance (a model's grade may not lower a user's memory into the
    /// range maintenance archives).
    pub fn grade_as(
        &self,
        id: MemoryId,
        grade: u8,
        subject: &Subject,
    ) -> Result<Schedule, EngineError> {
        if grade > GRADE_MAX {
            return Err(FlywheelError::Grade { grade }.into());
        }
        let subject = memory::clean_subject(subject)?;
        let _writer = self.write_lock();
        self.live(id)?;
        let entry = self.entry_of(id)?;
        let (importance_before, importance_after) = self
            .core()
            .trust
            .read()
            .state
            .inputs(id)
            .map(|inputs| {
                let importance = |permille| {
                    engram_commands::maintain::importance(permille, entry.reinforcements)
                };
                (
                    importance(inputs.permille()),
                    importance(inputs.graded(grade).permille()),
                )
            })
            .unwrap_or_default();
        self.gate(
            &subject,
            Action::Grade,
            &Object::Grade {
                memory: &entry,
                grade,
                importance_before,
                importance_after,
            },
        )?;
        self.append(&[Event::Graded(Graded { memory: id, grade })])?;
        self.core()
            .review
            .read()
            .state
            .get(id)
            .cloned()
            .ok_or(EngineError::UnknownMemory { id })
    }

    /// Memories due for review at `at_ms` (unix ms), earliest first, with
    /// coordinates and cues only. Archived, overruled and forgotten
    /// memories are not reviewed.
    #[must_use]
    pub fn review(&self, at_ms: u64) -> Vec<DueItem> {
        let due: Vec<(MemoryId, u64)> = {
            let schedule = self.core().review.read();
            schedule
                .state
                .due(at_ms)
                .into_iter()
                .filter_map(|id| Some((id, schedule.state.get(id)?.due_ms)))
                .collect()
        };
        due.into_iter()
            .filter(|(id, _)| {
                let live =
                    self.core().memory_table.read().state.status(*id) == Some(MemoryStatus::Live);
                live && !self.core().verdicts.read().state.is_overruled(*id)
            })
            .map(|(id, due_ms)| DueItem {
                id,
                coordinate: self.coordinate(id),
                cues: cues(self.core(), id),
                due_ms,
            })
            .collect()
    }

    /// Open and shelved contradictions, by pair.
    #[must_use]
    pub fn contradictions(&self) -> (Vec<OpenContradiction>, Vec<OpenContradiction>) {
        let list = |state| -> Vec<OpenContradiction> {
            let edges: Vec<_> = self
                .core()
                .verdicts
                .read()
                .state
                .in_state(state)
                .cloned()
                .collect();
            edges
                .into_iter()
                .map(|e| OpenContradiction {
                    a: e.memory,
                    b: e.other,
                    a_label: engram_queries::label(self.core(), e.memory),
                    b_label: engram_queries::label(self.core(), e.other),
                    reason: e.reason,
                })
                .collect()
        };
        (list(EdgeState::Open), list(EdgeState::Shelved))
    }

    /// Records a verdict on the contradiction between `a` and `b`. The loser
    /// of keep-a / keep-b leaves recall; it stays in the audit trail. A
    /// model may not overrule what the user said, nor shelve a
    /// contradiction with it (the gate chain's write trust).
    pub fn verdict(
        &self,
        a: MemoryId,
        b: MemoryId,
        verdict: Verdict,
        by: Actor,
        reason: &str,
    ) -> Result<u64, EngineError> {
        let reason = if reason.trim().is_empty() {
            "no reason given".to_owned()
        } else {
            memory::clean("reason", reason, memory::NOTE_BYTES_MAX)?
        };
        let _writer = self.write_lock();
        let state = self
            .core()
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
        let (entry_a, entry_b) = (self.entry_of(a)?, self.entry_of(b)?);
        let subject = Subject {
            actor: by,
            session: None,
        };
        self.gate(
            &subject,
            Action::Verdict,
            &Object::Contradiction {
                a: &entry_a,
                b: &entry_b,
                verdict,
            },
        )?;
        Ok(self
            .append(&[Event::VerdictRecorded(VerdictRecorded {
                a,
                b,
                verdict,
                by,
                reason,
            })])?
            .first_seq)
    }
}

impl Engram {
    /// [`Engram::maintain_as`] by the user.
    pub fn maintain(
        &self,
        policy: &engram_commands::maintain::MaintainPolicy,
        now_ms: u64,
        dry_run: bool,
    ) -> Result<Vec<(MemoryId, String)>, EngineError> {
        self.maintain_as(policy, now_ms, dry_run, &Subject::user())
    }

    /// Archives what the policy says should go at `now_ms` (expired,
    /// decayed, evicted; see `engram_commands::maintain`) in one atomic
    /// append, and returns what it archived and why. `dry_run` only plans.
    /// Every archive passes the gate chain: when any is denied (a model
    /// archiving what the user said), nothing is archived, each denial is
    /// recorded as `GateDenied` (one append) and the first is returned.
    pub fn maintain_as(
        &self,
        policy: &engram_commands::maintain::MaintainPolicy,
        now_ms: u64,
        dry_run: bool,
        subject: &Subject,
    ) -> Result<Vec<(MemoryId, String)>, EngineError> {
        let subject = memory::clean_subject(subject)?;
        let _writer = self.write_lock();
        let facts: Vec<engram_commands::maintain::MemoryFacts> = {
            let core = self.core();
            let table = core.memory_table.read();
            let lru = core.lru.read();
            let trust = core.trust.read();
            let review = core.review.read();
            lru.state
                .eviction_order()
                .filter_map(|id| {
                    let entry = table.state.get(id)?;
                    (entry.status == MemoryStatus::Live).then(|| {
                        engram_commands::maintain::MemoryFacts {
                            id,
                            tier: entry.tier,
                            trust_permille: trust.state.trust_permille(id).unwrap_or(0),
                            reinforcements: entry.reinforcements,
                            last_access_ms: lru.state.last_access(id).map_or(0, |a| a.ts_ms),
                            failed_last_review: review.state.get(id).is_some_and(|s| s.failed_last),
                            expires_at_ms: entry.expires_at_ms,
                        }
                    })
                })
                .collect()
        };
        let plan = engram_commands::maintain::plan(policy, &facts, now_ms);
        if !dry_run {
            let denials: Vec<engram_commands::gate::Denial> = {
                let table = self.core().memory_table.read();
                plan.iter()
                    .filter_map(|(id, _)| {
                        let entry = table.state.get(*id)?;
                        self.gates()
                            .check(&subject, Action::Archive, &Object::Memory(entry))
                            .err()
                    })
                    .collect()
            };
            if let Some(first) = denials.first() {
                let events: Vec<Event> = denials
                    .iter()
                    .map(|d| Event::GateDenied(d.event.clone()))
                    .collect();
                self.append(&events)?;
                return Err(EngineError::Denied(first.clone()));
            }
        }
        if !dry_run && !plan.is_empty() {
            let events: Vec<Event> = plan
                .iter()
                .map(|(memory, reason)| {
                    Event::Archived(engram_log::Archived {
                        memory: *memory,
                        reason: reason.clone(),
                    })
                })
                .collect();
            self.append(&events)?;
        }
        Ok(plan)
    }
}

/// Where distilled rules are recorded as notes.
pub const RULES_SESSION: &str = "rules";

impl Engram {
    /// Clusters of similar live memories worth distilling into a rule
    /// (`engram_commands::distill::clusters`), members in id order.
    #[must_use]
    pub fn distill_candidates(&self) -> Vec<Vec<MemoryId>> {
        use std::collections::BTreeMap;
        let core = self.core();
        let table = core.memory_table.read();
        let index = core.text_index.read();
        let verdicts = core.verdicts.read();
        let live: Vec<MemoryId> = table
            .state
            .iter()
            .filter(|e| e.status == MemoryStatus::Live && !verdicts.state.is_overruled(e.id))
            .map(|e| e.id)
            .collect();
        let mut profiles = BTreeMap::new();
        let mut candidates = BTreeMap::new();
        for &id in &live {
            let Some(text) = index.state.text(id) else {
                continue;
            };
            profiles.insert(id, engram_commands::decide::profile(text));
            let mut terms = engram_text::tokenize::query_terms(text);
            terms.truncate(64);
            let near: Vec<MemoryId> = index
                .state
                .search(&terms, 10, |m| m != id && live.binary_search(&m).is_ok())
                .into_iter()
                .map(|h| h.memory)
                .collect();
            candidates.insert(id, near);
        }
        engram_commands::distill::clusters(&profiles, &candidates)
    }

    /// [`Engram::distill_candidates`] with each member's coordinate and
    /// label, as listed to whoever writes the rule.
    #[must_use]
    pub fn distill_candidates_described(&self) -> Vec<Vec<(MemoryId, String, String)>> {
        self.distill_candidates()
            .iter()
            .map(|members| {
                members
                    .iter()
                    .map(|&id| {
                        (
                            id,
                            self.coordinate(id),
                            engram_queries::label(self.core(), id),
                        )
                    })
                    .collect()
            })
            .collect()
    }

    /// Records `rule` (written by the caller) as a new memory distilled from
    /// `members`, with the confidence it inherits from them, in one atomic
    /// append: the rule's `Remembered`, then `Distilled` (the `Distilled`
    /// event names the rule's memory by position: the event right before it).
    pub fn distill(
        &self,
        members: &[MemoryId],
        rule: &str,
        room: Option<&str>,
        subject: &Subject,
    ) -> Result<Distillation, EngineError> {
        let mut members = members.to_vec();
        members.sort_unstable();
        members.dedup();
        if members.len() < engram_commands::distill::MEMBERS_MIN {
            return Err(FlywheelError::TooFewMembers {
                count: members.len(),
            }
            .into());
        }
        for &id in &members {
            self.live(id)?;
        }
        let room = room.map(|r| memory::clean_name("room", r)).transpose()?;
        let subject = &memory::clean_subject(subject)?;
        let _writer = self.write_lock();
        for &id in &members {
            let entry = self.entry_of(id)?;
            self.gate(subject, Action::Distill, &Object::Memory(&entry))?;
        }
        let trusts: Vec<u16> = {
            let trust = self.core().trust.read();
            members
                .iter()
                .map(|&id| trust.state.trust_permille(id).unwrap_or(0))
                .collect()
        };
        let open = {
            let verdicts = self.core().verdicts.read();
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
        let confidence_permille = engram_commands::distill::confidence(&trusts, open);
        let room = room.unwrap_or_else(|| {
            let palace = self.core().palace.read();
            members
                .first()
                .and_then(|&first| palace.state.coordinate(first))
                .map(|c| palace.state.corridor_of(&c.room).to_owned())
                .unwrap_or_else(|| "rules".to_owned())
        });
        let turn = self.core().sessions.read().state.next_turn(RULES_SESSION);
        let note = memory::note_event(RULES_SESSION, turn, rule)?;
        let source = match subject.actor {
            Actor::User => engram_log::Source::User,
            Actor::Model | Actor::System => engram_log::Source::Model,
        };
        self.gate(
            subject,
            Action::Distill,
            &Object::Content {
                bytes: note.content.len(),
                events: 1,
                source,
                scope: &engram_log::Scope::Store,
            },
        )?;
        let rule_text = note.content.clone();
        let meta = memory::MemoryMeta {
            room: Some(room.clone()),
            tags: vec!["rule".to_owned()],
            source,
            ..memory::MemoryMeta::default()
        };
        // One atomic append: the rule's note, the `Remembered` sealing it,
        // `Distilled` (which names the memory by its seq: the event after
        // it) and the entity links, built for the seq the log will give it.
        let note = Event::Session(note);
        let mut first_seq = self.log().last_seq() + 1;
        let mut tries = 0;
        let id = loop {
            let reference = engram_log::MemoryRef {
                session: RULES_SESSION.to_owned(),
                first_seq,
                last_seq: first_seq,
            };
            let logged = [engram_log::LoggedEvent {
                seq: first_seq,
                ts_ms: 0,
                event: note.clone(),
            }];
            let remembered =
                memory::remembered(self.log().key(), reference, &logged, meta.clone())?;
            let id = first_seq + 1;
            let mut events = vec![
                note.clone(),
                Event::Remembered(remembered),
                Event::Distilled(engram_log::Distilled {
                    rule: rule_text.clone(),
                    members: members.clone(),
                    confidence_permille,
                    room: Some(room.clone()),
                }),
            ];
            events.extend(engram_commands::save::entity_events(id, &rule_text, None));
            match self.append_expecting(first_seq, &events)? {
                engram_commands::save::Expecting::Appended(_) => break id,
                engram_commands::save::Expecting::Moved { next_seq } => first_seq = next_seq,
            }
            tries += 1;
            if tries >= engram_commands::save::APPEND_TRIES_MAX {
                return Err(EngineError::Contended { tries });
            }
        };
        Ok(Distillation {
            id,
            coordinate: self.coordinate(id),
            members,
            confidence_permille,
        })
    }
}

/// An entity with the memories that mention it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityEntry {
    pub category: String,
    pub key: String,
    /// Live memories mentioning it: id, coordinate, label.
    pub memories: Vec<(MemoryId, String, String)>,
}

impl Engram {
    /// The entity dictionary, optionally one category and/or keys
    /// containing `search` (case-folded); entities whose memories are all
    /// archived or overruled still list them, forgotten ones are gone.
    #[must_use]
    pub fn entities(&self, category: Option<&str>, search: Option<&str>) -> Vec<EntityEntry> {
        let search = search.map(str::to_lowercase);
        let found: Vec<(String, String, Vec<MemoryId>)> = self
            .core()
            .entities
            .read()
            .state
            .iter()
            .filter(|(c, key, _)| {
                category.is_none_or(|want| want == *c)
                    && search.as_deref().is_none_or(|s| key.contains(s))
            })
            .map(|(c, key, memories)| {
                (
                    c.to_owned(),
                    key.to_owned(),
                    memories.iter().copied().collect(),
                )
            })
            .collect();
        found
            .into_iter()
            .map(|(category, key, memories)| EntityEntry {
                category,
                key,
                memories: memories
                    .into_iter()
                    .map(|id| {
                        (
                            id,
                            self.coordinate(id),
                            engram_queries::label(self.core(), id),
                        )
                    })
                    .collect(),
            })
            .collect()
    }
}

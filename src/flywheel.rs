//! The flywheel on an [`Engram`]: verdicts on contradictions, SM-2 review,
//! maintenance, distillation, entities. The writes are the handlers of
//! `engram_commands::flywheel` (validate against the views, pass the gate
//! chain, one append), run over the engine; the reads (review, open
//! contradictions, candidates, entities) read the views here.

use engram_commands::flywheel;
use engram_commands::gate::Subject;
use engram_log::{Actor, MemoryId, Tier, Verdict};
use engram_projections::models::{EdgeState, MemoryStatus, Schedule};
use engram_queries::Cue;
use engram_queries::review::{EntityCue, review_cues};

use crate::engine::{EngineError, Engram};

pub use engram_commands::flywheel::{
    DistillPlan, Distillation, FlywheelError, RULES_SESSION, TierMove,
};
pub use engram_commands::maintain::{Maintained, Rescored};

/// An item due for review: where it is and what is around it, never its
/// content nor another due item's (the reviewer recalls it first; see
/// `engram_queries::review`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueItem {
    pub id: MemoryId,
    pub coordinate: String,
    /// The slots next to it; a neighbour that is due too is labelled
    /// `engram_queries::review::DUE_LABEL`, never with its words.
    pub cues: Vec<Cue>,
    /// The room's topic (its corridor's name).
    pub topic: String,
    pub tags: Vec<String>,
    pub entities: Vec<EntityCue>,
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
        Ok(flywheel::grade(self, id, grade, subject)?)
    }

    /// Memories due for review at `at_ms` (unix ms), earliest first, with
    /// coordinates and cues only: no due memory's words, its own or a due
    /// neighbour's. Archived, overruled and forgotten memories are not
    /// reviewed.
    #[must_use]
    pub fn review(&self, at_ms: u64) -> Vec<DueItem> {
        let all_due: std::collections::BTreeSet<MemoryId> = self
            .core()
            .review
            .read()
            .state
            .due(at_ms)
            .into_iter()
            .collect();
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
            .map(|(id, due_ms)| {
                let cues = review_cues(self.core(), id, &all_due);
                DueItem {
                    id,
                    coordinate: self.coordinate(id),
                    cues: cues.neighbours,
                    topic: cues.topic,
                    tags: cues.tags,
                    entities: cues.entities,
                    due_ms,
                }
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
        Ok(flywheel::verdict(self, a, b, verdict, by, reason)?)
    }
}

impl Engram {
    /// Puts room `name` (its whole topic) or corridor `name` on corridor
    /// `into` (`engram palace corridor`): see
    /// `engram_commands::corridor::place`. An unknown name, a loop and
    /// nesting too deep are refused with nothing written.
    pub fn place_corridor(
        &self,
        name: &str,
        into: &str,
        kind: Option<engram_log::Placed>,
        subject: &Subject,
    ) -> Result<engram_commands::corridor::CorridorMove, EngineError> {
        Ok(engram_commands::corridor::place(
            self, name, into, kind, subject,
        )?)
    }

    /// Moves memory `id` to tier `to` by hand (`engram tier`): see
    /// `engram_commands::flywheel::move_tier`. A forgotten memory, a move
    /// to its own tier and moves into or out of L2 are refused with
    /// nothing written.
    pub fn move_tier(
        &self,
        id: MemoryId,
        to: Tier,
        reason: &str,
        subject: &Subject,
    ) -> Result<TierMove, EngineError> {
        Ok(flywheel::move_tier(self, id, to, reason, subject)?)
    }
}

impl Engram {
    /// Records workspace documents as L2 memories, refreshing those whose
    /// file changed (`engram_commands::workspace`): one atomic append, or
    /// nothing when every document is unchanged or one is refused.
    pub fn refresh_workspace(
        &self,
        documents: &[engram_commands::workspace::Document],
        subject: &Subject,
    ) -> Result<Vec<engram_commands::workspace::DocumentOutcome>, EngineError> {
        Ok(engram_commands::workspace::refresh(
            self, documents, subject,
        )?)
    }

    /// The L0 block's parts for this store (`engram_queries::l0`).
    #[must_use]
    pub fn l0(&self) -> engram_queries::l0::L0 {
        engram_queries::l0::l0(self.core())
    }
}

impl Engram {
    /// [`Engram::maintain_as`] by the user.
    pub fn maintain(
        &self,
        policy: &engram_commands::maintain::MaintainPolicy,
        now_ms: u64,
        dry_run: bool,
    ) -> Result<Maintained, EngineError> {
        self.maintain_as(policy, now_ms, dry_run, &Subject::user())
    }

    /// Archives what the policy says should go at `now_ms` (expired,
    /// decayed, evicted; see `engram_commands::maintain`) and records each
    /// memory whose uniqueness against its neighbours changed, in one
    /// atomic append, and returns what it did. `dry_run` only plans; a run
    /// with nothing to do appends nothing. Every archive passes the gate
    /// chain: when any is denied (a model archiving what the user said),
    /// nothing is archived, each denial is recorded as `GateDenied` (one
    /// append) and the first is returned.
    pub fn maintain_as(
        &self,
        policy: &engram_commands::maintain::MaintainPolicy,
        now_ms: u64,
        dry_run: bool,
        subject: &Subject,
    ) -> Result<Maintained, EngineError> {
        Ok(flywheel::maintain(self, policy, now_ms, dry_run, subject)?)
    }
}

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
        Ok(flywheel::distill(self, members, rule, room, subject)?)
    }

    /// Checks a distillation as [`Engram::distill`] would and says what it
    /// would record; appends nothing (a gate's denial is returned, not
    /// recorded).
    pub fn distill_plan(
        &self,
        members: &[MemoryId],
        rule: &str,
        room: Option<&str>,
        subject: &Subject,
    ) -> Result<DistillPlan, EngineError> {
        Ok(flywheel::distill_plan(self, members, rule, room, subject)?)
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

//! Trust scores: how far a memory can be believed, a deterministic integer
//! formula in permille (0..=1000) of where the memory came from and what the
//! log has said about it since. The state holds only the formula's inputs
//! (counts, no floats); the score is computed from them on read, so an
//! auditor can see every term ([`TrustScores::breakdown`]).
//!
//! **The formula**
//!
//! `permille = clamp(0, 1000, base + reinforcement + contradiction + verdicts + grades + evidence)`
//!
//! and, at a given time `now` (a recall's), the fresh score
//!
//! `permille_at(now) = clamp(0, 1000, ... + freshness(now))`
//!
//! | term | from | per event | bound |
//! | --- | --- | --- | --- |
//! | base | the `source` of `Remembered`; for a distilled rule, the confidence its `Distilled` event records | user 700, document 650, ingest 550, import 500, model 400 | — |
//! | reinforcement | `Reinforced` of the memory | +30 | at most +150 (5 count) |
//! | contradiction | `ContradictionFlagged` naming the memory as `memory` or `other` | −80 | at most −240 (3 count) |
//! | verdicts, won | `VerdictRecorded` keeping this memory over the other (`keep_a` for `a`, `keep_b` for `b`) | +50 | at most +150 (3 count) |
//! | verdicts, lost | `VerdictRecorded` keeping the other memory | −250 | none (the total is clamped) |
//! | verdicts, neutral | `keep_both`, `shelve` | 0 | — |
//! | grades | `Graded` 0-5: the last 5 grades each add (grade − 3) × 20 (0 → −60, 3 → 0, 5 → +40) | | −300..=+200 (the window) |
//! | evidence | `EvidenceConfirmed` of the memory | +40 | at most +200 (5 count) |
//! | freshness | `now` − the commit time of the memory's last renewal (`Remembered`, `Reinforced`, valid evidence, a grade of 3 or more, a verdict won) | −200 × age / (age + 90 days) | −200..=0 |
//!
//! Details: a contradiction flags both sides (until a verdict says who was
//! right, neither can be fully believed); one naming the same memory twice
//! counts once. A verdict between a memory and itself is ignored. A grade
//! above 5 is invalid and ignored. Who reinforced, confirmed or decided does
//! not weigh in. `trust` (a float) is `permille / 1000`, for display only.
//!
//! Freshness is never folded: the state keeps the renewal's commit time (an
//! input like the counts) and the term is computed on read from the time
//! the reader passes in, so the view stays a pure function of the log.
//! A memory renewed today loses nothing; one untouched for 90 days loses
//! 100 permille; the loss approaches 200 and never reaches it. A `now`
//! before the renewal counts as age 0.
//!
//! **Invariants**
//!
//! - One [`TrustInputs`] per memory that is not forgotten; a forgotten memory
//!   leaves the table for good, and an event naming an id not in the table
//!   is ignored.
//! - `recent_grades` holds at most [`GRADE_WINDOW`] valid grades, oldest
//!   first. Counters saturate; the score is always in 0..=1000.
//! - `Archived` and `TierChanged` do not change trust.

use std::collections::BTreeMap;

use engram_log::{Event, LoggedEvent, MemoryId, Source, Verdict};
use serde::{Deserialize, Serialize};

use crate::Fold;

/// Reinforcement: permille per `Reinforced`.
pub const REINFORCEMENT_STEP: i64 = 30;
/// Reinforcement: largest total bonus.
pub const REINFORCEMENT_CAP: i64 = 150;
/// Contradiction: permille taken per `ContradictionFlagged`.
pub const CONTRADICTION_STEP: i64 = 80;
/// Contradiction: largest total penalty.
pub const CONTRADICTION_CAP: i64 = 240;
/// Verdict won: permille per verdict that kept this memory over the other.
pub const VERDICT_WON_STEP: i64 = 50;
/// Verdict won: largest total bonus.
pub const VERDICT_WON_CAP: i64 = 150;
/// Verdict lost: permille taken per verdict that kept the other memory.
pub const VERDICT_LOST_STEP: i64 = 250;
/// Grades: how many of the most recent grades count.
pub const GRADE_WINDOW: usize = 5;
/// Grades: permille per grade point above (or below) 3.
pub const GRADE_STEP: i64 = 20;
/// Evidence: permille per `EvidenceConfirmed`.
pub const EVIDENCE_STEP: i64 = 40;
/// Evidence: largest total bonus.
pub const EVIDENCE_CAP: i64 = 200;
/// Freshness: the most permille age can take.
pub const FRESHNESS_CAP: i64 = 200;
/// Freshness: the age at which half of [`FRESHNESS_CAP`] is taken.
pub const FRESHNESS_HALF_MS: u64 = 90 * 24 * 60 * 60 * 1000;
/// The trust below which a recall hit is marked "reference only": a model
/// should check it (expand, confirm) before relying on it. It is the base of
/// a memory a model saved: such a memory is marked once it is contradicted,
/// loses a verdict or a review, or goes stale.
pub const REFERENCE_ONLY_BELOW_PERMILLE: u16 = 400;
/// The highest valid SM-2 grade.
const MAX_GRADE: u8 = super::review::GRADE_MAX;

/// The base score of a memory from its source, in permille.
#[must_use]
pub fn source_base(source: Source) -> u16 {
    match source {
        Source::User => 700,
        Source::Document => 650,
        Source::Ingest => 550,
        Source::Import => 500,
        Source::Model => 400,
    }
}

/// The inputs of one memory's score, as counted from the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustInputs {
    /// The source of its `Remembered` event.
    pub source: Source,
    pub reinforcements: u32,
    pub contradictions: u32,
    pub verdicts_won: u32,
    pub verdicts_lost: u32,
    /// The last [`GRADE_WINDOW`] valid grades, oldest first.
    pub recent_grades: Vec<u8>,
    pub confirmations: u32,
    /// A distilled rule's base: the confidence inherited from its members.
    pub inherited_base: Option<u16>,
    /// Commit time (unix ms) of the last event that renewed the memory:
    /// its `Remembered`, a `Reinforced`, valid evidence, a grade of 3 or
    /// more, a verdict it won. Freshness is measured from it.
    pub renewed_ms: u64,
}

/// Every term of a memory's score, for an audit. `permille` is `raw`
/// clamped to 0..=1000.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustBreakdown {
    pub base: i64,
    pub reinforcement: i64,
    pub contradiction: i64,
    pub verdicts: i64,
    pub grades: i64,
    pub evidence: i64,
    /// 0 in the timeless score; at a given time, minus what age takes.
    pub freshness: i64,
    /// The sum of the terms, before clamping.
    pub raw: i64,
    pub permille: u16,
}

impl TrustInputs {
    fn new(source: Source, renewed_ms: u64) -> Self {
        TrustInputs {
            source,
            reinforcements: 0,
            contradictions: 0,
            verdicts_won: 0,
            verdicts_lost: 0,
            recent_grades: Vec::new(),
            confirmations: 0,
            inherited_base: None,
            renewed_ms,
        }
    }

    fn renew(&mut self, ts_ms: u64) {
        self.renewed_ms = self.renewed_ms.max(ts_ms);
    }

    /// Whether valid evidence was recorded for the memory: the evidence
    /// gate's second state (`confirmed`; `relevant` before).
    #[must_use]
    pub fn confirmed(&self) -> bool {
        self.confirmations > 0
    }

    /// The freshness term at `now_ms` (0 down to −[`FRESHNESS_CAP`]).
    #[must_use]
    pub fn freshness(&self, now_ms: u64) -> i64 {
        let age = u128::from(now_ms.saturating_sub(self.renewed_ms));
        let taken =
            u128::from(FRESHNESS_CAP.unsigned_abs()) * age / (age + u128::from(FRESHNESS_HALF_MS));
        -i64::try_from(taken).unwrap_or(FRESHNESS_CAP)
    }

    /// Every term of the formula at `now_ms`, freshness included.
    #[must_use]
    pub fn breakdown_at(&self, now_ms: u64) -> TrustBreakdown {
        let timeless = self.breakdown();
        let freshness = self.freshness(now_ms);
        let raw = timeless.raw + freshness;
        TrustBreakdown {
            freshness,
            raw,
            permille: u16::try_from(raw.clamp(0, 1000)).unwrap_or(0),
            ..timeless
        }
    }

    /// The score in permille at `now_ms`, freshness included.
    #[must_use]
    pub fn permille_at(&self, now_ms: u64) -> u16 {
        self.breakdown_at(now_ms).permille
    }

    /// Every term of the formula for these inputs.
    #[must_use]
    pub fn breakdown(&self) -> TrustBreakdown {
        let base = i64::from(
            self.inherited_base
                .unwrap_or_else(|| source_base(self.source)),
        );
        let reinforcement =
            (i64::from(self.reinforcements) * REINFORCEMENT_STEP).min(REINFORCEMENT_CAP);
        let contradiction =
            -(i64::from(self.contradictions) * CONTRADICTION_STEP).min(CONTRADICTION_CAP);
        let verdicts = (i64::from(self.verdicts_won) * VERDICT_WON_STEP).min(VERDICT_WON_CAP)
            - i64::from(self.verdicts_lost) * VERDICT_LOST_STEP;
        let grades = self
            .recent_grades
            .iter()
            .map(|&g| (i64::from(g) - 3) * GRADE_STEP)
            .sum::<i64>();
        let evidence = (i64::from(self.confirmations) * EVIDENCE_STEP).min(EVIDENCE_CAP);
        let raw = base + reinforcement + contradiction + verdicts + grades + evidence;
        let permille = u16::try_from(raw.clamp(0, 1000)).unwrap_or(0);
        TrustBreakdown {
            base,
            reinforcement,
            contradiction,
            verdicts,
            grades,
            evidence,
            freshness: 0,
            raw,
            permille,
        }
    }

    /// The score in permille, 0..=1000.
    #[must_use]
    pub fn permille(&self) -> u16 {
        self.breakdown().permille
    }

    /// The inputs after a `Graded` of `grade` (an invalid grade changes
    /// nothing): what a grade would do, before it is recorded.
    #[must_use]
    pub fn graded(&self, grade: u8) -> Self {
        let mut next = self.clone();
        if grade <= MAX_GRADE {
            if next.recent_grades.len() == GRADE_WINDOW {
                next.recent_grades.remove(0);
            }
            next.recent_grades.push(grade);
        }
        next
    }
}

/// The trust scores read model (see the module documentation).
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustScores {
    inputs: BTreeMap<MemoryId, TrustInputs>,
    /// Seq of the latest `Remembered`: a `Distilled` right after it (same
    /// commit) names that memory as its rule.
    last_remembered: Option<u64>,
}

impl TrustScores {
    /// The score of memory `id` in permille; `None` when unknown or forgotten.
    #[must_use]
    pub fn trust_permille(&self, id: MemoryId) -> Option<u16> {
        self.inputs.get(&id).map(TrustInputs::permille)
    }

    /// The score of memory `id` at `now_ms` (freshness included), a
    /// fraction 0-1; `None` when unknown or forgotten.
    #[must_use]
    pub fn trust_at(&self, id: MemoryId, now_ms: u64) -> Option<f64> {
        self.inputs
            .get(&id)
            .map(|i| f64::from(i.permille_at(now_ms)) / 1000.0)
    }

    /// The score of memory `id` as a fraction 0-1, for display only.
    #[must_use]
    pub fn trust(&self, id: MemoryId) -> Option<f64> {
        self.trust_permille(id).map(|p| f64::from(p) / 1000.0)
    }

    /// The counted inputs of memory `id`.
    #[must_use]
    pub fn inputs(&self, id: MemoryId) -> Option<&TrustInputs> {
        self.inputs.get(&id)
    }

    /// Every term of memory `id`'s score.
    #[must_use]
    pub fn breakdown(&self, id: MemoryId) -> Option<TrustBreakdown> {
        self.inputs.get(&id).map(TrustInputs::breakdown)
    }

    /// Every scored memory with its score in permille, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (MemoryId, u16)> + '_ {
        self.inputs
            .iter()
            .map(|(&id, inputs)| (id, inputs.permille()))
    }

    /// Number of scored (not forgotten) memories.
    #[must_use]
    pub fn len(&self) -> usize {
        self.inputs.len()
    }

    /// Whether no memory is scored.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty()
    }

    /// Applies `change` to the inputs of `id` when it is scored.
    fn with(&mut self, id: MemoryId, change: impl FnOnce(&mut TrustInputs)) {
        if let Some(inputs) = self.inputs.get_mut(&id) {
            change(inputs);
        }
    }

    /// Checks the module's invariants (tests).
    #[cfg(test)]
    pub(crate) fn assert_invariants(&self) {
        for inputs in self.inputs.values() {
            assert!(inputs.recent_grades.len() <= GRADE_WINDOW);
            assert!(inputs.recent_grades.iter().all(|&g| g <= MAX_GRADE));
            assert!(inputs.permille() <= 1000);
        }
    }
}

fn bump(counter: &mut u32) {
    *counter = counter.saturating_add(1);
}

impl Fold for TrustScores {
    const NAME: &'static str = "trust";
    const VERSION: u32 = 3;

    fn apply(&mut self, logged: &LoggedEvent) {
        match &logged.event {
            Event::Remembered(r) => {
                self.inputs
                    .entry(logged.seq)
                    .or_insert_with(|| TrustInputs::new(r.source, logged.ts_ms));
                self.last_remembered = Some(logged.seq);
            }
            Event::Distilled(d) => {
                if let Some(rule) = self.last_remembered
                    && rule + 1 == logged.seq
                {
                    let confidence = d.confidence_permille.min(1000);
                    self.with(rule, |i| i.inherited_base = Some(confidence));
                }
            }
            Event::Reinforced(r) => self.with(r.memory, |i| {
                bump(&mut i.reinforcements);
                i.renew(logged.ts_ms);
            }),
            Event::ContradictionFlagged(c) => {
                self.with(c.memory, |i| bump(&mut i.contradictions));
                if c.other != c.memory {
                    self.with(c.other, |i| bump(&mut i.contradictions));
                }
            }
            Event::VerdictRecorded(v) => {
                if v.a == v.b {
                    return;
                }
                let (won, lost) = match v.verdict {
                    Verdict::KeepA => (v.a, v.b),
                    Verdict::KeepB => (v.b, v.a),
                    Verdict::KeepBoth | Verdict::Shelve => return,
                };
                self.with(won, |i| {
                    bump(&mut i.verdicts_won);
                    i.renew(logged.ts_ms);
                });
                self.with(lost, |i| bump(&mut i.verdicts_lost));
            }
            Event::Graded(g) => self.with(g.memory, |i| {
                *i = i.graded(g.grade);
                if (3..=MAX_GRADE).contains(&g.grade) {
                    i.renew(logged.ts_ms);
                }
            }),
            Event::EvidenceNoted(e) => self.with(e.memory, |i| {
                bump(&mut i.confirmations);
                i.renew(logged.ts_ms);
            }),
            Event::EvidenceConfirmed(e) if e.valid => {
                self.with(e.memory, |i| {
                    bump(&mut i.confirmations);
                    i.renew(logged.ts_ms);
                });
            }
            Event::EvidenceConfirmed(_) => {}
            Event::Forgotten(f) => {
                self.inputs.remove(&f.memory);
            }
            Event::Purged(p) => {
                for memory in &p.memories {
                    self.inputs.remove(memory);
                }
            }
            Event::Session(_)
            | Event::TierChanged(_)
            | Event::Archived(_)
            | Event::Recalled(_)
            | Event::Expanded(_)
            | Event::EntityLinked(_)
            | Event::GateDenied(_)
            | Event::Discarded(_)
            | Event::Embedded(_)
            | Event::TtlSet(_)
            | Event::UniquenessScored(_)
            | Event::CorridorPlaced(_)
            | Event::Checkpoint(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use engram_log::{Source, Tier, Verdict};

    use super::{TrustBreakdown, TrustScores, source_base};
    use crate::Fold;
    use crate::models::testkit::*;

    fn scores(events: Vec<engram_log::Event>) -> TrustScores {
        fold(&logged(events))
    }

    #[test]
    fn the_base_comes_from_the_source() {
        let trust = scores(vec![
            remember(Tier::L3, Source::User),
            remember(Tier::L2, Source::Document),
            remember(Tier::L3, Source::Ingest),
            remember(Tier::L3, Source::Import),
            remember(Tier::L3, Source::Model),
            session("turn"),
        ]);
        let all: Vec<(u64, u16)> = trust.iter().collect();
        assert_eq!(all, vec![(1, 700), (2, 650), (3, 550), (4, 500), (5, 400)]);
        assert_eq!(trust.trust(1), Some(0.7));
        assert_eq!(trust.trust_permille(6), None);
        assert_eq!(source_base(Source::Model), 400);
    }

    #[test]
    fn reinforcements_add_up_to_a_cap() {
        let mut events = vec![remember(Tier::L3, Source::Model)];
        events.extend((0..2).map(|_| reinforce(1)));
        assert_eq!(scores(events.clone()).trust_permille(1), Some(460));
        events.extend((0..10).map(|_| reinforce(1)));
        let trust = scores(events);
        assert_eq!(trust.trust_permille(1), Some(550));
        assert_eq!(trust.inputs(1).unwrap().reinforcements, 12);
    }

    #[test]
    fn contradictions_flag_both_sides_down_to_a_cap() {
        let trust = scores(vec![
            remember(Tier::L3, Source::User),
            remember(Tier::L3, Source::User),
            contradict(2, 1),
            contradict(1, 99), // the other side unknown: only 1 counts
            contradict(2, 2),  // the same memory twice counts once
        ]);
        assert_eq!(trust.inputs(1).unwrap().contradictions, 2);
        assert_eq!(trust.inputs(2).unwrap().contradictions, 2);
        assert_eq!(trust.trust_permille(1), Some(700 - 160));
        let mut events = vec![remember(Tier::L3, Source::User)];
        events.extend((0..9).map(|_| contradict(1, 1)));
        assert_eq!(scores(events).trust_permille(1), Some(700 - 240));
    }

    #[test]
    fn verdicts_reward_the_winner_and_punish_the_loser() {
        let base = vec![
            remember(Tier::L3, Source::User),
            remember(Tier::L3, Source::User),
            contradict(1, 2),
        ];
        let keep_a = scores([base.clone(), vec![verdict(1, 2, Verdict::KeepA)]].concat());
        assert_eq!(keep_a.trust_permille(1), Some(700 - 80 + 50));
        assert_eq!(keep_a.trust_permille(2), Some(700 - 80 - 250));
        let keep_b = scores([base.clone(), vec![verdict(1, 2, Verdict::KeepB)]].concat());
        assert_eq!(keep_b.trust_permille(1), Some(700 - 80 - 250));
        assert_eq!(keep_b.trust_permille(2), Some(700 - 80 + 50));
        for neutral in [Verdict::KeepBoth, Verdict::Shelve] {
            let trust = scores([base.clone(), vec![verdict(1, 2, neutral)]].concat());
            assert_eq!(trust, scores(base.clone()));
        }
        let with_itself = scores([base.clone(), vec![verdict(1, 1, Verdict::KeepA)]].concat());
        assert_eq!(with_itself, scores(base.clone()));

        // Wins are capped; losses are not, and the total clamps at 0.
        let mut events = base.clone();
        events.extend((0..6).map(|_| verdict(1, 2, Verdict::KeepA)));
        let trust = scores(events);
        assert_eq!(trust.trust_permille(1), Some(700 - 80 + 150));
        assert_eq!(trust.trust_permille(2), Some(0));
        assert_eq!(trust.breakdown(2).unwrap().raw, 700 - 80 - 1500);
    }

    #[test]
    fn only_the_last_five_grades_count() {
        let mut events = vec![remember(Tier::L3, Source::Import)];
        events.extend([0, 0, 0, 0, 0].map(|g| grade(1, g)));
        assert_eq!(scores(events.clone()).trust_permille(1), Some(500 - 300));
        events.extend([5, 5, 5].map(|g| grade(1, g)));
        // window: 0, 0, 5, 5, 5
        let trust = scores(events.clone());
        assert_eq!(trust.inputs(1).unwrap().recent_grades, vec![0, 0, 5, 5, 5]);
        assert_eq!(trust.trust_permille(1), Some(500 - 120 + 120));
        events.push(grade(1, 6)); // invalid: ignored
        assert_eq!(scores(events.clone()), trust);
        events.extend([4, 4].map(|g| grade(1, g)));
        // window: 5, 5, 5, 4, 4
        assert_eq!(scores(events).trust_permille(1), Some(500 + 160));
    }

    #[test]
    fn confirmed_evidence_adds_up_to_a_cap() {
        let mut events = vec![remember(Tier::L3, Source::Ingest), confirm(1)];
        assert_eq!(scores(events.clone()).trust_permille(1), Some(590));
        events.extend((0..8).map(|_| confirm(1)));
        assert_eq!(scores(events).trust_permille(1), Some(750));
    }

    #[test]
    fn the_score_is_clamped_to_1000() {
        let mut events = vec![remember(Tier::L3, Source::User)];
        events.extend((0..5).map(|_| reinforce(1)));
        events.extend((0..5).map(|_| confirm(1)));
        events.extend((0..5).map(|_| grade(1, 5)));
        let trust = scores(events);
        assert_eq!(
            trust.breakdown(1),
            Some(TrustBreakdown {
                base: 700,
                reinforcement: 150,
                contradiction: 0,
                verdicts: 0,
                grades: 200,
                evidence: 200,
                freshness: 0,
                raw: 1250,
                permille: 1000,
            })
        );
        assert_eq!(trust.trust(1), Some(1.0));
    }

    #[test]
    fn forgotten_memories_leave_the_table_for_good() {
        let trust = scores(vec![
            remember(Tier::L3, Source::User),
            remember(Tier::L3, Source::User),
            forget(1),
            reinforce(1),
            contradict(2, 1),
            verdict(1, 2, Verdict::KeepA),
            grade(1, 5),
            confirm(1),
        ]);
        assert_eq!(trust.trust_permille(1), None);
        assert_eq!(trust.inputs(1), None);
        // The surviving side still counts its own flag and loss.
        assert_eq!(trust.trust_permille(2), Some(700 - 80 - 250));
        assert_eq!(trust.len(), 1);
    }

    #[test]
    fn events_naming_unknown_ids_are_ignored() {
        let events = logged(vec![
            remember(Tier::L3, Source::User),
            reinforce(5),
            contradict(7, 8),
            verdict(7, 8, Verdict::KeepB),
            grade(0, 1),
            confirm(u64::MAX),
            forget(3),
        ]);
        let trust: TrustScores = fold(&events);
        let only_created: TrustScores = fold(&events[..1]);
        assert_eq!(trust, only_created);
    }

    #[test]
    fn other_events_are_ignored() {
        let events = logged(vec![
            remember(Tier::L3, Source::User),
            tier(1, Tier::L3, Tier::L4),
            archive(1),
            recall(&[1]),
            expand(1, false),
            link(1),
            session("turn"),
        ]);
        let trust: TrustScores = fold(&events);
        let only_created: TrustScores = fold(&events[..1]);
        assert_eq!(trust, only_created);
    }

    #[test]
    fn the_snapshot_round_trips() {
        let trust = scores(vec![
            remember(Tier::L3, Source::User),
            remember(Tier::L3, Source::Model),
            reinforce(1),
            contradict(1, 2),
            verdict(1, 2, Verdict::KeepB),
            grade(2, 4),
            confirm(2),
            remember(Tier::L2, Source::Document),
            forget(8),
        ]);
        assert_round_trip(&trust);
        assert_eq!(TrustScores::NAME, "trust");
        assert_eq!(TrustScores::VERSION, 3);
    }

    /// Freshness is computed at the reader's time from the last renewal's
    /// commit time (`logged` stamps seq n at 1000 n ms); the folded state
    /// holds no clock.
    #[test]
    fn freshness_ages_from_the_last_renewal() {
        use super::{FRESHNESS_HALF_MS, REFERENCE_ONLY_BELOW_PERMILLE};
        let day = 24 * 60 * 60 * 1000;
        let trust = scores(vec![
            remember(Tier::L3, Source::User), // seq 1, renewed at 1000
            remember(Tier::L3, Source::User), // seq 2
            reinforce(2),                     // seq 3: renews 2 at 3000
            recall(&[1]),                     // a read renews nothing
            grade(1, 2),                      // a failed grade renews nothing
        ]);
        let inputs = trust.inputs(1).unwrap();
        assert_eq!(inputs.renewed_ms, 1_000);
        assert_eq!(trust.inputs(2).unwrap().renewed_ms, 3_000);
        // Age 0 (or a time before the renewal) takes nothing.
        assert_eq!(inputs.freshness(1_000), 0);
        assert_eq!(inputs.freshness(0), 0);
        // Half the cap at the half-life, most of it after a year, never all.
        assert_eq!(inputs.freshness(1_000 + FRESHNESS_HALF_MS), -100);
        assert_eq!(inputs.freshness(1_000 + 365 * day), -(200 * 365 / 455));
        assert_eq!(inputs.freshness(u64::MAX), -199);
        // The timeless score leaves it out; the score at a time has it.
        let at = 1_000 + FRESHNESS_HALF_MS;
        assert_eq!(trust.trust_permille(1), Some(700 - 20));
        assert_eq!(inputs.permille_at(at), 700 - 20 - 100);
        assert_eq!(trust.trust_at(1, at), Some(0.58));
        assert_eq!(inputs.breakdown_at(at).freshness, -100);
        assert_eq!(inputs.breakdown().freshness, 0);
        // The reinforced memory is fresher at the same time.
        assert!(trust.trust_at(2, at) > Some(0.7 - 0.1));
        assert!(!inputs.confirmed());
        // A model's memory untouched for a year is reference only.
        let model = scores(vec![remember(Tier::L3, Source::Model)]);
        let old = model.inputs(1).unwrap().permille_at(1_000 + 365 * day);
        assert!(old < REFERENCE_ONLY_BELOW_PERMILLE, "{old}");
    }

    #[test]
    fn valid_evidence_confirms_and_renews() {
        let trust = scores(vec![
            remember(Tier::L3, Source::User),
            remember(Tier::L3, Source::User),
            confirm(1),  // seq 3
            grade(2, 4), // seq 4: a pass renews
        ]);
        assert!(trust.inputs(1).unwrap().confirmed());
        assert_eq!(trust.inputs(1).unwrap().renewed_ms, 3_000);
        assert!(!trust.inputs(2).unwrap().confirmed());
        assert_eq!(trust.inputs(2).unwrap().renewed_ms, 4_000);
    }

    #[test]
    fn a_distilled_rule_starts_from_its_inherited_confidence() {
        let distilled = |confidence| {
            engram_log::Event::Distilled(engram_log::Distilled {
                rule: "rule".into(),
                members: vec![1, 2],
                confidence_permille: confidence,
                room: None,
            })
        };
        let trust: TrustScores = fold(&logged(vec![
            remember(Tier::L3, Source::User),
            remember(Tier::L3, Source::User),
            remember(Tier::L3, Source::Model),
            distilled(620),
            // Not right after a `Remembered`: names no rule, changes nothing.
            distilled(100),
        ]));
        assert_eq!(trust.trust_permille(3), Some(620));
        assert_eq!(trust.trust_permille(1), Some(700));
    }
}

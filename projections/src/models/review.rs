//! The review schedule: SM-2 over every memory.
//!
//! A memory enters the schedule when it is remembered, due one day after
//! its `Remembered` commit time. A `Graded` event (0-5) advances it by
//! SM-2 (Wozniak, 1990), in integer arithmetic so replay is exact:
//!
//! - grade >= 3: repetitions 0 -> interval 1 day, 1 -> 6 days, else
//!   `round(interval * EF)`; repetitions + 1; then
//!   `EF += 0.1 - (5 - q) * (0.08 + (5 - q) * 0.02)`, never below 1.3.
//! - grade < 3: repetitions back to 0, interval 1 day, EF unchanged (the
//!   original algorithm restarts the repetitions "without changing the
//!   E-Factor"); the memory is marked as having failed its last review
//!   (exempt from decay until a later review passes).
//!
//! EF is kept in thousandths (2500 = 2.5). The next due time is the grade's
//! commit time plus the interval. Grades above 5 and grades of unknown or
//! forgotten memories are ignored; a forgotten memory leaves the schedule.

use std::collections::BTreeMap;

use engram_log::{Event, LoggedEvent, MemoryId};
use serde::{Deserialize, Serialize};

use crate::Fold;

/// One day in milliseconds.
pub const DAY_MS: u64 = 86_400_000;
/// The highest SM-2 grade (perfect recall); grades run 0..=GRADE_MAX.
pub const GRADE_MAX: u8 = 5;
/// Starting easiness factor, thousandths.
pub const EF_START: u32 = 2500;
/// Lowest easiness factor, thousandths.
pub const EF_MIN: u32 = 1300;

/// A memory's place in the schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule {
    /// Easiness factor in thousandths.
    pub ef_permille: u32,
    pub repetitions: u32,
    pub interval_days: u32,
    /// Unix milliseconds when the next review is due.
    pub due_ms: u64,
    /// The last grade was below 3.
    pub failed_last: bool,
    pub last_grade: Option<u8>,
}

impl Schedule {
    fn new(created_ms: u64) -> Self {
        Self {
            ef_permille: EF_START,
            repetitions: 0,
            interval_days: 0,
            due_ms: created_ms.saturating_add(DAY_MS),
            failed_last: false,
            last_grade: None,
        }
    }

    /// The schedule after grade `q` (0..=5) given at `at_ms`.
    #[must_use]
    pub fn graded(&self, q: u8, at_ms: u64) -> Self {
        let mut next = self.clone();
        next.last_grade = Some(q);
        if q >= 3 {
            next.interval_days = match self.repetitions {
                0 => 1,
                1 => 6,
                _ => {
                    let days =
                        (u64::from(self.interval_days) * u64::from(self.ef_permille) + 500) / 1000;
                    u32::try_from(days).unwrap_or(u32::MAX)
                }
            };
            next.repetitions = self.repetitions.saturating_add(1);
            let lack = i64::from(5 - q);
            let delta = 100 - lack * (80 + lack * 20);
            next.ef_permille =
                u32::try_from((i64::from(self.ef_permille) + delta).max(i64::from(EF_MIN)))
                    .unwrap_or(EF_MIN);
            next.failed_last = false;
        } else {
            next.repetitions = 0;
            next.interval_days = 1;
            next.failed_last = true;
        }
        next.due_ms = at_ms.saturating_add(u64::from(next.interval_days) * DAY_MS);
        next
    }
}

/// The review schedule read model (see the module documentation).
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewSchedule {
    items: BTreeMap<MemoryId, Schedule>,
}

impl ReviewSchedule {
    /// The schedule of memory `id`.
    #[must_use]
    pub fn get(&self, id: MemoryId) -> Option<&Schedule> {
        self.items.get(&id)
    }

    /// Memories due at `at_ms`, earliest due first (ties by id).
    #[must_use]
    pub fn due(&self, at_ms: u64) -> Vec<MemoryId> {
        let mut due: Vec<(u64, MemoryId)> = self
            .items
            .iter()
            .filter(|(_, s)| s.due_ms <= at_ms)
            .map(|(id, s)| (s.due_ms, *id))
            .collect();
        due.sort_unstable();
        due.into_iter().map(|(_, id)| id).collect()
    }

    /// Every scheduled memory.
    pub fn iter(&self) -> impl Iterator<Item = (MemoryId, &Schedule)> + '_ {
        self.items.iter().map(|(id, s)| (*id, s))
    }
}

impl Fold for ReviewSchedule {
    const NAME: &'static str = "review";
    const VERSION: u32 = 1;

    fn apply(&mut self, logged: &LoggedEvent) {
        match &logged.event {
            Event::Remembered(_) => {
                self.items
                    .entry(logged.seq)
                    .or_insert_with(|| Schedule::new(logged.ts_ms));
            }
            Event::Graded(g) if g.grade <= 5 => {
                if let Some(schedule) = self.items.get_mut(&g.memory) {
                    *schedule = schedule.graded(g.grade, logged.ts_ms);
                }
            }
            Event::Forgotten(f) => {
                self.items.remove(&f.memory);
            }
            Event::Purged(p) => {
                for memory in &p.memories {
                    self.items.remove(memory);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::testkit::{fold, forget, grade, logged, remember};
    use engram_log::{Source, Tier};

    #[test]
    fn worked_example_of_sm2() {
        // Grades 5, 5, 4, 3, 2, 4 at days 1, 2, 8, ... (each when due).
        let start = Schedule::new(0);
        assert_eq!(start.due_ms, DAY_MS);
        let s1 = start.graded(5, DAY_MS);
        assert_eq!(
            (s1.repetitions, s1.interval_days, s1.ef_permille),
            (1, 1, 2600)
        );
        let s2 = s1.graded(5, s1.due_ms);
        assert_eq!(
            (s2.repetitions, s2.interval_days, s2.ef_permille),
            (2, 6, 2700)
        );
        let s3 = s2.graded(4, s2.due_ms);
        // round(6 * 2.7) = 16; EF + 0.1 - 1 * (0.08 + 0.02) = 2.7
        assert_eq!(
            (s3.repetitions, s3.interval_days, s3.ef_permille),
            (3, 16, 2700)
        );
        let s4 = s3.graded(3, s3.due_ms);
        // round(16 * 2.7) = 43; EF + 0.1 - 2 * (0.08 + 0.04) = 2.56
        assert_eq!(
            (s4.repetitions, s4.interval_days, s4.ef_permille),
            (4, 43, 2560)
        );
        assert_eq!(s4.due_ms, s3.due_ms + 43 * DAY_MS);
        let s5 = s4.graded(2, s4.due_ms);
        assert_eq!(
            (s5.repetitions, s5.interval_days, s5.ef_permille),
            (0, 1, 2560)
        );
        assert!(s5.failed_last);
        let s6 = s5.graded(4, s5.due_ms);
        assert_eq!((s6.repetitions, s6.interval_days), (1, 1));
        assert!(!s6.failed_last);
    }

    #[test]
    fn easiness_never_falls_below_1_3() {
        let mut s = Schedule::new(0);
        for _ in 0..20 {
            s = s.graded(3, s.due_ms);
        }
        assert_eq!(s.ef_permille, EF_MIN);
    }

    #[test]
    fn the_fold_schedules_grades_and_drops_forgotten_memories() {
        let events = logged(vec![
            remember(Tier::L3, Source::User),
            remember(Tier::L3, Source::User),
            grade(1, 5),
            grade(1, 9),
            forget(2),
        ]);
        let schedule: ReviewSchedule = fold(&events);
        // ts_ms of seq n is 1000 * n.
        let s = schedule.get(1).unwrap();
        assert_eq!(s.repetitions, 1);
        assert_eq!(s.due_ms, 3000 + DAY_MS);
        assert_eq!(schedule.get(2), None);
        assert_eq!(schedule.due(1000 + DAY_MS), Vec::<u64>::new());
        assert_eq!(schedule.due(3000 + DAY_MS), [1]);
    }
}

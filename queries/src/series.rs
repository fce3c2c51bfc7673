//! Charts over time: per bucket of commit time, the live memories, the
//! recalls, the recalls that found something and the health score, folded
//! from the event stream alone.
//!
//! The buckets are cut from the log's own commit times: they start at the
//! first event's bucket (aligned to whole buckets since the Unix epoch, UTC)
//! and end at the last event's. [`Buckets::auto`] takes the smallest size of
//! [`BUCKET_LADDER_MS`] that covers the log's span in at most
//! [`AUTO_BUCKETS_MAX`] buckets; a size given by the caller may make up to
//! [`SERIES_BUCKETS_MAX`].
//!
//! [`SeriesFold`] folds its own copies of the four models the health score
//! weighs (memory table, trust, review schedule, verdicts) and samples them
//! at the end of every bucket: `live` and `health` are the state once the
//! bucket's last event is folded (a bucket without events repeats the one
//! before), `recalls` and `recalls_with_hits` count the bucket's `Recalled`
//! events. No clock, no randomness: the same log gives the same points, on
//! a live store, after a restart and after a rebuild.

use engram_log::{Event, LoggedEvent};
use engram_projections::Fold;
use engram_projections::models::{
    MemoryStatus, MemoryTable, ReviewSchedule, TrustScores, Verdicts,
};

const MINUTE_MS: u64 = 60_000;
const HOUR_MS: u64 = 60 * MINUTE_MS;
/// A day in milliseconds.
pub const DAY_MS: u64 = 24 * HOUR_MS;
/// A week in milliseconds.
pub const WEEK_MS: u64 = 7 * DAY_MS;

/// The bucket sizes [`Buckets::auto`] picks from, smallest first; past the
/// last, whole weeks.
pub const BUCKET_LADDER_MS: [u64; 7] = [
    MINUTE_MS,
    5 * MINUTE_MS,
    15 * MINUTE_MS,
    HOUR_MS,
    6 * HOUR_MS,
    DAY_MS,
    WEEK_MS,
];

/// Most buckets [`Buckets::auto`] cuts a log's span into.
pub const AUTO_BUCKETS_MAX: u64 = 60;

/// Most buckets a series has (a year by day).
pub const SERIES_BUCKETS_MAX: u64 = 366;

/// A bucket size that cuts the log's span into too many buckets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "buckets of {size_ms} ms cut the log's span into {count} buckets, over the {SERIES_BUCKETS_MAX} a series may have: take a larger bucket, or let the span choose it"
)]
pub struct TooManyBuckets {
    pub size_ms: u64,
    pub count: u64,
}

/// The buckets of a series: `count` buckets of `size_ms` from `start_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Buckets {
    pub start_ms: u64,
    pub size_ms: u64,
    pub count: u64,
}

impl Buckets {
    /// The buckets of `size_ms` covering `first_ms..=last_ms`.
    ///
    /// # Errors
    /// [`TooManyBuckets`] past [`SERIES_BUCKETS_MAX`].
    pub fn of_size(first_ms: u64, last_ms: u64, size_ms: u64) -> Result<Self, TooManyBuckets> {
        let size_ms = size_ms.max(1);
        let buckets = Self::covering(first_ms, last_ms, size_ms);
        if buckets.count > SERIES_BUCKETS_MAX {
            return Err(TooManyBuckets {
                size_ms,
                count: buckets.count,
            });
        }
        Ok(buckets)
    }

    /// The smallest size of [`BUCKET_LADDER_MS`] (or whole weeks past it)
    /// covering `first_ms..=last_ms` in at most [`AUTO_BUCKETS_MAX`] buckets.
    #[must_use]
    pub fn auto(first_ms: u64, last_ms: u64) -> Self {
        let last_ms = last_ms.max(first_ms);
        for size_ms in BUCKET_LADDER_MS {
            let buckets = Self::covering(first_ms, last_ms, size_ms);
            if buckets.count <= AUTO_BUCKETS_MAX {
                return buckets;
            }
        }
        let weeks = (last_ms - first_ms) / WEEK_MS / AUTO_BUCKETS_MAX + 1;
        Self::covering(first_ms, last_ms, weeks * WEEK_MS)
    }

    fn covering(first_ms: u64, last_ms: u64, size_ms: u64) -> Self {
        let first = first_ms / size_ms;
        let last = last_ms.max(first_ms) / size_ms;
        Self {
            start_ms: first * size_ms,
            size_ms,
            count: last - first + 1,
        }
    }

    /// The bucket `ts_ms` falls in (times outside the buckets are held to
    /// the first or the last).
    #[must_use]
    pub fn index(&self, ts_ms: u64) -> u64 {
        (ts_ms.saturating_sub(self.start_ms) / self.size_ms).min(self.count.saturating_sub(1))
    }

    /// Where bucket `index` starts.
    #[must_use]
    pub fn start_of(&self, index: u64) -> u64 {
        self.start_ms
            .saturating_add(index.saturating_mul(self.size_ms))
    }
}

/// One bucket of a series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Point {
    /// Where the bucket starts (unix ms).
    pub start_ms: u64,
    /// Live memories (not archived, not forgotten) at the bucket's end.
    pub live: u64,
    /// Recalls in the bucket.
    pub recalls: u64,
    /// Of those, the recalls that returned at least one hit.
    pub recalls_with_hits: u64,
    /// The health score (0-100) at the bucket's end.
    pub health: u8,
}

impl Point {
    /// Recalls with a hit over recalls; `None` without recalls.
    #[must_use]
    pub fn hit_rate(&self) -> Option<f64> {
        (self.recalls > 0).then(|| self.recalls_with_hits as f64 / self.recalls as f64)
    }
}

/// The fold behind a series: feed it the log's events in seq order
/// ([`SeriesFold::apply`]), then take the points ([`SeriesFold::finish`]).
#[derive(Debug)]
pub struct SeriesFold {
    buckets: Buckets,
    table: MemoryTable,
    trust: TrustScores,
    review: ReviewSchedule,
    verdicts: Verdicts,
    points: Vec<Point>,
    recalls: u64,
    recalls_with_hits: u64,
}

impl SeriesFold {
    #[must_use]
    pub fn new(buckets: Buckets) -> Self {
        Self {
            buckets,
            table: MemoryTable::default(),
            trust: TrustScores::default(),
            review: ReviewSchedule::default(),
            verdicts: Verdicts::default(),
            points: Vec::new(),
            recalls: 0,
            recalls_with_hits: 0,
        }
    }

    /// Folds the next event of the log.
    pub fn apply(&mut self, logged: &LoggedEvent) {
        let index = self.buckets.index(logged.ts_ms);
        while (self.points.len() as u64) < index {
            self.close_bucket();
        }
        self.table.apply(logged);
        self.trust.apply(logged);
        self.review.apply(logged);
        self.verdicts.apply(logged);
        if let Event::Recalled(recalled) = &logged.event {
            self.recalls += 1;
            if !recalled.hits.is_empty() {
                self.recalls_with_hits += 1;
            }
        }
    }

    /// Every bucket's point, in time order.
    #[must_use]
    pub fn finish(mut self) -> Vec<Point> {
        while (self.points.len() as u64) < self.buckets.count {
            self.close_bucket();
        }
        self.points
    }

    /// Samples the state at the end of the current bucket.
    fn close_bucket(&mut self) {
        let index = self.points.len() as u64;
        let start_ms = self.buckets.start_of(index);
        let end_ms = self.buckets.start_of(index + 1).saturating_sub(1);
        let live = self
            .table
            .iter()
            .filter(|e| e.status == MemoryStatus::Live)
            .count() as u64;
        let health = crate::health::health_of(
            &self.table,
            &self.trust,
            &self.review,
            &self.verdicts,
            end_ms,
        );
        self.points.push(Point {
            start_ms,
            live,
            recalls: std::mem::take(&mut self.recalls),
            recalls_with_hits: std::mem::take(&mut self.recalls_with_hits),
            health: health.score,
        });
    }
}

/// The series of `events` (the whole log, in seq order) over `buckets`.
#[must_use]
pub fn series<'a>(
    buckets: Buckets,
    events: impl IntoIterator<Item = &'a LoggedEvent>,
) -> Vec<Point> {
    let mut fold = SeriesFold::new(buckets);
    for logged in events {
        fold.apply(logged);
    }
    fold.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use engram_log::{
        Actor, ContradictionFlagged, Forgotten, MemoryRef, RecallFilters, RecallHit, Recalled,
        Remembered, Scope, Source, Tier,
    };

    const T0: u64 = 1_764_547_200_000; // 2025-12-01T00:00:00Z

    fn at(seq: u64, ts_ms: u64, event: Event) -> LoggedEvent {
        LoggedEvent {
            seq,
            ts_ms,
            event,
            erased: false,
        }
    }

    fn remembered() -> Event {
        Event::Remembered(Remembered {
            reference: MemoryRef {
                session: "s".to_owned(),
                first_seq: 1,
                last_seq: 1,
            },
            content_sha256: engram_log::Digest([0; 32]),
            mac: engram_log::Digest([0; 32]),
            summary: None,
            tags: Vec::new(),
            tier: Tier::L3,
            room: None,
            uniqueness_permille: 1000,
            source: Source::User,
            scope: Scope::Store,
            embedding: None,
        })
    }

    fn recalled(hits: &[u64]) -> Event {
        Event::Recalled(Recalled {
            query: "q".to_owned(),
            filters: RecallFilters {
                room: None,
                tier: None,
                tags: Vec::new(),
                scope: None,
                limit: 5,
            },
            hits: hits
                .iter()
                .map(|&memory| RecallHit {
                    memory,
                    score_micros: 1,
                })
                .collect(),
            mode: "keyword".to_owned(),
        })
    }

    fn forgotten(memory: u64) -> Event {
        Event::Forgotten(Forgotten {
            memory,
            by: Actor::User,
            reason: String::new(),
        })
    }

    #[test]
    fn auto_buckets_fit_the_span() {
        // Seconds apart: one minute bucket.
        let b = Buckets::auto(T0 + 1_000, T0 + 5_000);
        assert_eq!((b.start_ms, b.size_ms, b.count), (T0, MINUTE_MS, 1));
        // Two days: hours. Three days: 6-hour buckets (hourly would be 73).
        let b = Buckets::auto(T0 + 1, T0 + 2 * DAY_MS);
        assert_eq!((b.size_ms, b.count), (HOUR_MS, 49));
        let b = Buckets::auto(T0 + 1, T0 + 3 * DAY_MS);
        assert_eq!((b.size_ms, b.count), (6 * HOUR_MS, 13));
        // Thirty days: days.
        let b = Buckets::auto(T0, T0 + 30 * DAY_MS - 1);
        assert_eq!((b.size_ms, b.count), (DAY_MS, 30));
        // Ten years: whole weeks, within the cap.
        let b = Buckets::auto(T0, T0 + 3650 * DAY_MS);
        assert_eq!(b.size_ms % WEEK_MS, 0);
        assert!(b.count <= AUTO_BUCKETS_MAX, "{b:?}");
        assert!(b.start_of(b.count) > T0 + 3650 * DAY_MS, "{b:?}");
        // Every event falls in a bucket that holds it.
        for ts in [T0, T0 + 1, T0 + 3650 * DAY_MS] {
            let i = b.index(ts);
            assert!(b.start_of(i) <= ts && ts < b.start_of(i + 1), "{ts}");
        }
    }

    #[test]
    fn a_given_size_past_the_cap_is_refused() {
        let year = T0 + 366 * DAY_MS;
        assert_eq!(
            Buckets::of_size(T0, year, HOUR_MS),
            Err(TooManyBuckets {
                size_ms: HOUR_MS,
                count: 366 * 24 + 1
            })
        );
        let days = Buckets::of_size(T0, year - 1, DAY_MS).unwrap();
        assert_eq!((days.start_ms, days.count), (T0, 366));
    }

    #[test]
    fn points_count_live_memories_recalls_and_hits_per_bucket() {
        let day = |d: u64, ms: u64| T0 + d * DAY_MS + ms;
        let events = [
            at(1, day(0, 10), remembered()),
            at(2, day(0, 20), remembered()),
            at(3, day(0, 30), recalled(&[1])),
            at(4, day(0, 40), recalled(&[])),
            // Day 1: nothing. Day 2: one forgotten, three recalls.
            at(5, day(2, 0), forgotten(2)),
            at(6, day(2, 1), recalled(&[1])),
            at(7, day(2, 2), recalled(&[1])),
            at(8, day(2, 3), recalled(&[1])),
            at(9, day(3, 5), remembered()),
        ];
        let buckets = Buckets::of_size(T0 + 10, day(3, 5), DAY_MS).unwrap();
        let points = series(buckets, &events);
        let got: Vec<(u64, u64, u64, u64)> = points
            .iter()
            .map(|p| (p.start_ms, p.live, p.recalls, p.recalls_with_hits))
            .collect();
        assert_eq!(
            got,
            [
                (day(0, 0), 2, 2, 1),
                (day(1, 0), 2, 0, 0),
                (day(2, 0), 1, 3, 3),
                (day(3, 0), 2, 0, 0),
            ]
        );
        let rates: Vec<Option<f64>> = points.iter().map(Point::hit_rate).collect();
        assert_eq!(rates, [Some(0.5), None, Some(1.0), None]);
        // The same events give the same points.
        assert_eq!(points, series(buckets, &events));
    }

    #[test]
    fn health_follows_the_log() {
        let events = [
            at(1, T0, remembered()),
            at(2, T0 + 1, remembered()),
            at(
                3,
                T0 + HOUR_MS,
                Event::ContradictionFlagged(ContradictionFlagged {
                    memory: 2,
                    other: 1,
                    reason: "disagree".to_owned(),
                }),
            ),
        ];
        let buckets = Buckets::of_size(T0, T0 + HOUR_MS, HOUR_MS).unwrap();
        let points = series(buckets, &events);
        assert_eq!(points.len(), 2);
        // An open contradiction between the two live memories lowers
        // consistency (and trust) in the second hour.
        assert!(points[1].health < points[0].health, "{points:?}");
        // The score is the health query's over the same state.
        let mut table = MemoryTable::default();
        let mut trust = TrustScores::default();
        let mut review = ReviewSchedule::default();
        let mut verdicts = Verdicts::default();
        for e in &events {
            table.apply(e);
            trust.apply(e);
            review.apply(e);
            verdicts.apply(e);
        }
        let end = T0 + 2 * HOUR_MS - 1;
        let expected = crate::health::health_of(&table, &trust, &review, &verdicts, end);
        assert_eq!(points[1].health, expected.score);
    }

    #[test]
    fn an_empty_stream_gives_a_flat_series() {
        let buckets = Buckets::of_size(T0, T0 + 2 * HOUR_MS, HOUR_MS).unwrap();
        let points = series(buckets, &[]);
        assert_eq!(points.len(), 3);
        assert!(
            points
                .iter()
                .all(|p| p.live == 0 && p.recalls == 0 && p.health == 100)
        );
    }
}

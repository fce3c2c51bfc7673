//! The time seam. The log stamps each frame with its commit time and paces
//! `Interval` syncs; both come from a [`Clock`], so tests can use a manual one.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Wall time for stamps, monotonic time for intervals.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Milliseconds since the Unix epoch.
    fn unix_ms(&self) -> u64;
    /// Monotonic time since an arbitrary fixed point.
    fn monotonic(&self) -> Duration;
}

/// The operating system's clocks.
#[derive(Debug, Clone)]
pub struct SystemClock {
    start: Instant,
}

impl Default for SystemClock {
    fn default() -> Self {
        Self {
            start: Instant::now(),
        }
    }
}

impl Clock for SystemClock {
    fn unix_ms(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }

    fn monotonic(&self) -> Duration {
        self.start.elapsed()
    }
}

/// A clock that moves only when told to. Clones share the time.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    ms: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock reading `unix_ms`.
    #[must_use]
    pub fn new(unix_ms: u64) -> Self {
        Self {
            ms: Arc::new(AtomicU64::new(unix_ms)),
        }
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        let ms = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        self.ms.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn unix_ms(&self) -> u64 {
        self.ms.load(Ordering::SeqCst)
    }

    fn monotonic(&self) -> Duration {
        Duration::from_millis(self.ms.load(Ordering::SeqCst))
    }
}

//! Maintenance: which memories to archive now (decay, time to live, LRU
//! eviction from the L3 hot set). Pure: the engine gathers the facts from
//! the views, [`plan`] decides, the handler appends a demotion to L4
//! (`TierChanged`) and an `Archived` per memory in one atomic batch.
//!
//! In order, over live memories:
//!
//! 1. **Expired**: a time to live that has passed (`remember --ttl`).
//! 2. **Decayed**: in L3, unaccessed for [`MaintainPolicy::idle_days`] days
//!    and of low importance: `trust + 100 * reinforcements` below
//!    [`MaintainPolicy::importance_below`] (permille). In L1 (a session
//!    memory never reinforced from another session nor confirmed, so never
//!    promoted), unaccessed for [`MaintainPolicy::session_idle_days`] days,
//!    whatever its importance: it belonged to its conversation.
//! 3. **Evicted**: while the L3 hot set holds more than
//!    [`MaintainPolicy::hot_set_capacity`] memories, the least recently used
//!    goes, skipping memories with trust of at least
//!    [`MaintainPolicy::keep_trust_at_least`].
//!
//! A memory whose last review failed (grade < 3) is exempt from decay and
//! eviction: the reviewer is still learning it. An expired one is archived
//! anyway (its owner said when it stops being true).
//!
//! Maintenance also refreshes uniqueness: a save scores a memory against
//! the memories near it then, so a near-duplicate saved later would never
//! lower the older one's score. Each run scores every live memory that
//! stays against its nearest live neighbours now (the same
//! [`crate::decide::uniqueness_permille`] a save uses) and records a
//! `UniquenessScored` only where the score changed: a run with nothing to
//! archive and no score to change appends nothing.

use engram_log::{MemoryId, Tier};
use engram_projections::models::review::DAY_MS;

/// The default importance (permille) below which an idle memory decays:
/// [`MaintainPolicy::importance_below`] unless the caller sets another.
pub const DECAY_IMPORTANCE_BELOW: u32 = 700;

/// A memory's importance as maintenance weighs it: trust plus 100 per
/// reinforcement, permille.
#[must_use]
pub fn importance(trust_permille: u16, reinforcements: u32) -> u32 {
    u32::from(trust_permille).saturating_add(reinforcements.saturating_mul(100))
}

/// Thresholds, with documented defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaintainPolicy {
    /// Days without access before a low-importance memory decays (30).
    pub idle_days: u64,
    /// Importance (permille) below which an idle memory decays (700).
    pub importance_below: u32,
    /// Most live memories in L3 before LRU eviction (10 000).
    pub hot_set_capacity: usize,
    /// Trust (permille) at which eviction keeps a memory (800).
    pub keep_trust_at_least: u16,
    /// Days without access before a session memory (L1) decays
    /// ([`SESSION_IDLE_DAYS`]).
    pub session_idle_days: u64,
    /// Rescore only around the memories saved after this one (their own
    /// uniqueness and their nearest neighbours', whose uniqueness a new
    /// near-duplicate can lower): what a scheduled run does, so its cost
    /// follows what arrived since the last run, not the store's size.
    /// `None` rescores every live memory (`engram maintain` by hand).
    pub rescore_after: Option<engram_log::MemoryId>,
}

/// The default days without access before a session memory (L1), never
/// promoted, decays: [`MaintainPolicy::session_idle_days`].
pub const SESSION_IDLE_DAYS: u64 = 7;

impl Default for MaintainPolicy {
    fn default() -> Self {
        Self {
            idle_days: 30,
            importance_below: DECAY_IMPORTANCE_BELOW,
            hot_set_capacity: 10_000,
            keep_trust_at_least: 800,
            session_idle_days: SESSION_IDLE_DAYS,
            rescore_after: None,
        }
    }
}

/// Most memories whose uniqueness one run records (the rest wait for the
/// next run): one append stays well under the log's batch limits.
pub const RESCORED_PER_RUN_MAX: usize = 4096;

/// A memory's uniqueness as maintenance found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rescored {
    pub memory: MemoryId,
    /// The score recorded until now.
    pub from_permille: u16,
    /// The score against its neighbours now.
    pub to_permille: u16,
}

/// What a maintenance run archived and rescored (or, dry, would).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Maintained {
    /// Memories archived and why, in the order decided.
    pub archived: Vec<(MemoryId, String)>,
    /// Memories whose uniqueness changed, in id order.
    pub rescored: Vec<Rescored>,
}

impl Maintained {
    /// Whether the run found nothing to do (and appended nothing).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.archived.is_empty() && self.rescored.is_empty()
    }
}

/// What maintenance knows about one live memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryFacts {
    pub id: MemoryId,
    pub tier: Tier,
    pub trust_permille: u16,
    pub reinforcements: u32,
    /// Unix ms of the last access (creation, recall hit, expand).
    pub last_access_ms: u64,
    pub failed_last_review: bool,
    pub expires_at_ms: Option<u64>,
}

/// The memories to archive at `now_ms` and why, in the order decided.
/// `facts` are the live memories, least recently used first.
#[must_use]
pub fn plan(
    policy: &MaintainPolicy,
    facts: &[MemoryFacts],
    now_ms: u64,
) -> Vec<(MemoryId, String)> {
    let mut out: Vec<(MemoryId, String)> = Vec::new();
    let taken = |out: &Vec<(MemoryId, String)>, id| out.iter().any(|(m, _)| *m == id);
    for f in facts {
        if let Some(at) = f.expires_at_ms
            && at <= now_ms
        {
            out.push((f.id, "expired: its time to live passed".to_owned()));
        }
    }
    let session_idle_ms = policy.session_idle_days.saturating_mul(DAY_MS);
    for f in facts {
        if taken(&out, f.id) || f.tier != Tier::L1 || f.failed_last_review {
            continue;
        }
        let idle = now_ms.saturating_sub(f.last_access_ms);
        if idle >= session_idle_ms {
            out.push((
                f.id,
                format!(
                    "decayed: a session memory unaccessed for {} days, never reinforced from another session nor confirmed",
                    idle / DAY_MS
                ),
            ));
        }
    }
    let idle_ms = policy.idle_days.saturating_mul(DAY_MS);
    for f in facts {
        if taken(&out, f.id) || f.tier != Tier::L3 || f.failed_last_review {
            continue;
        }
        let importance = importance(f.trust_permille, f.reinforcements);
        if now_ms.saturating_sub(f.last_access_ms) >= idle_ms
            && importance < policy.importance_below
        {
            out.push((
                f.id,
                format!(
                    "decayed: unaccessed for {} days, importance {importance}",
                    now_ms.saturating_sub(f.last_access_ms) / DAY_MS
                ),
            ));
        }
    }
    let mut in_hot_set = facts
        .iter()
        .filter(|f| f.tier == Tier::L3 && !taken(&out, f.id))
        .count();
    for f in facts {
        if in_hot_set <= policy.hot_set_capacity {
            break;
        }
        if f.tier != Tier::L3
            || taken(&out, f.id)
            || f.failed_last_review
            || f.trust_permille >= policy.keep_trust_at_least
        {
            continue;
        }
        out.push((
            f.id,
            format!(
                "evicted: the L3 hot set is over its capacity of {}",
                policy.hot_set_capacity
            ),
        ));
        in_hot_set -= 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(id: MemoryId, last_access_days: u64, trust: u16) -> MemoryFacts {
        MemoryFacts {
            id,
            tier: Tier::L3,
            trust_permille: trust,
            reinforcements: 0,
            last_access_ms: last_access_days * DAY_MS,
            failed_last_review: false,
            expires_at_ms: None,
        }
    }

    #[test]
    fn idle_unimportant_memories_decay_and_failed_reviews_are_exempt() {
        let now = 100 * DAY_MS;
        let mut failed = facts(3, 0, 500);
        failed.failed_last_review = true;
        let mut reinforced = facts(4, 0, 500);
        reinforced.reinforcements = 3;
        let all = [
            facts(1, 0, 500),
            facts(2, 90, 500),
            failed,
            reinforced,
            facts(5, 0, 900),
        ];
        let archived: Vec<MemoryId> = plan(&MaintainPolicy::default(), &all, now)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(archived, [1]);
    }

    #[test]
    fn session_memories_decay_after_their_own_idle_days_whatever_their_importance() {
        let now = 100 * DAY_MS;
        let session = |id, days_ago: u64, trust| MemoryFacts {
            tier: Tier::L1,
            reinforcements: 5,
            ..facts(id, 100 - days_ago, trust)
        };
        let mut failed = session(3, 50, 100);
        failed.failed_last_review = true;
        let documents = MemoryFacts {
            tier: Tier::L2,
            ..facts(4, 0, 100)
        };
        let all = [session(1, 8, 1000), session(2, 6, 100), failed, documents];
        let plan = plan(&MaintainPolicy::default(), &all, now);
        assert_eq!(plan.len(), 1, "{plan:?}");
        assert_eq!(plan[0].0, 1);
        assert!(
            plan[0].1.starts_with("decayed: a session memory"),
            "{plan:?}"
        );
    }

    #[test]
    fn expired_memories_go_even_when_failed_or_trusted() {
        let mut f = facts(1, 99, 1000);
        f.failed_last_review = true;
        f.expires_at_ms = Some(50 * DAY_MS);
        let plan = plan(&MaintainPolicy::default(), &[f], 100 * DAY_MS);
        assert_eq!(plan.len(), 1);
        assert!(plan[0].1.starts_with("expired"));
    }

    #[test]
    fn eviction_takes_the_least_recently_used_and_keeps_trusted_ones() {
        let policy = MaintainPolicy {
            hot_set_capacity: 2,
            ..MaintainPolicy::default()
        };
        let all = [
            facts(1, 9, 900),
            facts(2, 9, 600),
            facts(3, 9, 600),
            facts(4, 9, 600),
        ];
        let archived: Vec<MemoryId> = plan(&policy, &all, 10 * DAY_MS)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(archived, [2, 3], "1 is trusted; 4 fits");
    }
}

//! Tier moves: when a memory changes tier, and the `TierChanged` event that
//! records it. Pure: the handlers (save, confirm, maintain, the explicit
//! move, the workspace refresh) ask here and append what comes back in
//! the same batch as the event that caused the move.
//!
//! - **L1** holds session memories: saved with a session named, they
//!   belong to that conversation until they prove themselves.
//! - **Promotion** L1 -> L3 (the cross-session store): a session memory
//!   restated from another session ([`promotion_on_reinforce`]), or backed
//!   by valid evidence ([`promotion_on_confirm`]). A session-private memory
//!   (scope `session`) stays in L1: it is never cross-session.
//! - **Demotion** to L4 (the archive): decay, expiry and eviction
//!   (`crate::maintain`) each write `TierChanged` to L4 before their
//!   `Archived`; a workspace document's older version is superseded the
//!   same way (`crate::workspace`).
//! - **L2** holds workspace documents; they move only when their file
//!   changes.
//!
//! A move of a forgotten memory is refused ([`TierMoveError`]); nothing is
//! written.

use engram_log::{MemoryId, Scope, Tier, TierChanged};
use engram_projections::models::{MemoryEntry, MemoryStatus};

/// Why a tier move was refused. Nothing was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TierMoveError {
    #[error(
        "memory {id} was forgotten at seq {seq}: a forgotten memory has no tier and cannot move"
    )]
    Forgotten { id: MemoryId, seq: u64 },
    #[error("memory {id} is already in {}", tier_name(*tier))]
    Unchanged { id: MemoryId, tier: Tier },
    #[error(
        "memory {id} is a workspace document (l2): it moves when its file changes (`engram workspace`)"
    )]
    Document { id: MemoryId },
    #[error(
        "a memory cannot be moved into l2: that tier holds workspace documents (`engram workspace`)"
    )]
    IntoDocuments,
}

/// A tier's name as the interfaces spell it (`l1` .. `l4`).
#[must_use]
pub fn tier_name(tier: Tier) -> &'static str {
    match tier {
        Tier::L1 => "l1",
        Tier::L2 => "l2",
        Tier::L3 => "l3",
        Tier::L4 => "l4",
    }
}

/// The move of `entry` to `to`, checked: the `TierChanged` to append.
///
/// # Errors
/// A forgotten memory, a move to the tier it is in, a move into or out of
/// L2 (workspace documents follow their files).
pub fn planned_move(
    entry: &MemoryEntry,
    to: Tier,
    reason: String,
) -> Result<TierChanged, TierMoveError> {
    if let Some(f) = &entry.forgotten {
        return Err(TierMoveError::Forgotten {
            id: entry.id,
            seq: f.seq,
        });
    }
    if entry.tier == to {
        return Err(TierMoveError::Unchanged {
            id: entry.id,
            tier: to,
        });
    }
    if entry.tier == Tier::L2 {
        return Err(TierMoveError::Document { id: entry.id });
    }
    if to == Tier::L2 {
        return Err(TierMoveError::IntoDocuments);
    }
    Ok(TierChanged {
        memory: entry.id,
        from: entry.tier,
        to,
        reason,
    })
}

/// Whether `entry` is a session memory that can be promoted: live, in L1,
/// visible across sessions.
fn promotable(entry: &MemoryEntry) -> bool {
    entry.status == MemoryStatus::Live && entry.tier == Tier::L1 && entry.scope == Scope::Store
}

/// The promotion of `entry` when words recorded in `session` restate it:
/// L1 -> L3 when the session is not the memory's own.
#[must_use]
pub fn promotion_on_reinforce(entry: &MemoryEntry, session: &str) -> Option<TierChanged> {
    (promotable(entry) && entry.reference.session != session).then(|| TierChanged {
        memory: entry.id,
        from: Tier::L1,
        to: Tier::L3,
        reason: format!(
            "promoted: reinforced from session {session}, not its own ({})",
            entry.reference.session
        ),
    })
}

/// The promotion of `entry` when valid evidence backs it: L1 -> L3.
#[must_use]
pub fn promotion_on_confirm(entry: &MemoryEntry) -> Option<TierChanged> {
    promotable(entry).then(|| TierChanged {
        memory: entry.id,
        from: Tier::L1,
        to: Tier::L3,
        reason: "promoted: confirmed by valid evidence".to_owned(),
    })
}

/// The demotion of memory `id` from `from` to the archive, for `reason`.
#[must_use]
pub fn demotion(id: MemoryId, from: Tier, reason: &str) -> TierChanged {
    TierChanged {
        memory: id,
        from,
        to: Tier::L4,
        reason: reason.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engram_log::{Digest, MemoryRef, Source};
    use engram_projections::models::Forgetting;

    fn entry(tier: Tier, scope: Scope, session: &str) -> MemoryEntry {
        MemoryEntry {
            id: 7,
            created_ts_ms: 0,
            reference: MemoryRef {
                session: session.to_owned(),
                first_seq: 6,
                last_seq: 6,
            },
            content_sha256: Digest([0; 32]),
            mac: Digest([0; 32]),
            summary: None,
            tags: Vec::new(),
            tier,
            room: None,
            source: Source::User,
            scope,
            uniqueness_permille: 1000,
            status: MemoryStatus::Live,
            forgotten: None,
            archived: None,
            purged: None,
            reinforcements: 0,
            last_changed_seq: 7,
            expires_at_ms: None,
        }
    }

    #[test]
    fn a_session_memory_is_promoted_from_another_session_only() {
        let e = entry(Tier::L1, Scope::Store, "s1");
        assert_eq!(promotion_on_reinforce(&e, "s1"), None);
        let moved = promotion_on_reinforce(&e, "s2").unwrap();
        assert_eq!((moved.from, moved.to), (Tier::L1, Tier::L3));
        assert!(promotion_on_confirm(&e).is_some());
        // Private to its session: never cross-session.
        let private = entry(Tier::L1, Scope::Session("s1".into()), "s1");
        assert_eq!(promotion_on_reinforce(&private, "s2"), None);
        assert_eq!(promotion_on_confirm(&private), None);
        // Already cross-session, or a document.
        assert_eq!(
            promotion_on_reinforce(&entry(Tier::L3, Scope::Store, "s1"), "s2"),
            None
        );
        assert_eq!(
            promotion_on_confirm(&entry(Tier::L2, Scope::Store, "s1")),
            None
        );
    }

    #[test]
    fn a_forgotten_memory_does_not_move() {
        let mut e = entry(Tier::L3, Scope::Store, "s1");
        e.status = MemoryStatus::Forgotten;
        e.forgotten = Some(Forgetting {
            seq: 9,
            by: engram_log::Actor::User,
            reason: String::new(),
        });
        assert_eq!(
            planned_move(&e, Tier::L1, String::new()),
            Err(TierMoveError::Forgotten { id: 7, seq: 9 })
        );
        let live = entry(Tier::L3, Scope::Store, "s1");
        assert!(matches!(
            planned_move(&live, Tier::L3, String::new()),
            Err(TierMoveError::Unchanged { .. })
        ));
        assert_eq!(
            planned_move(&live, Tier::L2, String::new()),
            Err(TierMoveError::IntoDocuments)
        );
        assert!(matches!(
            planned_move(&entry(Tier::L2, Scope::Store, "d"), Tier::L3, String::new()),
            Err(TierMoveError::Document { .. })
        ));
        assert_eq!(
            planned_move(&live, Tier::L1, "r".into()).unwrap().to,
            Tier::L1
        );
    }
}

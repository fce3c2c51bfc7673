//! Distillation: the engine proposes clusters of similar memories; the
//! caller (usually a model) writes the rule that sums them up, recorded as
//! a new memory plus a `Distilled` event naming its members.
//!
//! **Clusters** ([`clusters`]): memories are linked when their content
//! terms are at least [`CLUSTER_SIMILARITY_MIN`] similar (Sørensen-Dice, as
//! in [`crate::decide`]); a cluster is a connected group of two or more,
//! members in id order, clusters ordered by their first member.
//!
//! **Confidence** ([`confidence`]), inherited from the members:
//! `(mean trust + lowest trust) / 2 - 100 * open contradictions among the
//! members`, in permille, clamped to 0..=1000. The lowest trust weighs in
//! so one weak member pulls the rule down; a rule over disagreeing members
//! is worth less.

use std::collections::BTreeMap;

use engram_log::MemoryId;

use crate::decide::{Profile, similarity};

/// Similarity at which two memories belong to one cluster.
pub const CLUSTER_SIMILARITY_MIN: f64 = 0.4;
/// Fewest members of a distilled rule.
pub const MEMBERS_MIN: usize = 2;
/// Permille a rule loses per open contradiction among its members.
pub const CONTRADICTION_PENALTY: i64 = 100;

/// Groups of similar memories: `candidates` maps each memory to the ids
/// worth comparing it with (its text-index neighbours).
#[must_use]
pub fn clusters(
    profiles: &BTreeMap<MemoryId, Profile>,
    candidates: &BTreeMap<MemoryId, Vec<MemoryId>>,
) -> Vec<Vec<MemoryId>> {
    // Union-find over memory ids, smallest id as the root.
    let mut parent: BTreeMap<MemoryId, MemoryId> = profiles.keys().map(|&id| (id, id)).collect();
    fn root(parent: &BTreeMap<MemoryId, MemoryId>, mut id: MemoryId) -> MemoryId {
        while let Some(&p) = parent.get(&id) {
            if p == id {
                break;
            }
            id = p;
        }
        id
    }
    for (&id, near) in candidates {
        let Some(mine) = profiles.get(&id) else {
            continue;
        };
        for &other in near {
            if other == id {
                continue;
            }
            let Some(theirs) = profiles.get(&other) else {
                continue;
            };
            if similarity(mine, theirs) >= CLUSTER_SIMILARITY_MIN {
                let (a, b) = (root(&parent, id), root(&parent, other));
                if a != b {
                    parent.insert(a.max(b), a.min(b));
                }
            }
        }
    }
    let mut groups: BTreeMap<MemoryId, Vec<MemoryId>> = BTreeMap::new();
    for &id in profiles.keys() {
        groups.entry(root(&parent, id)).or_default().push(id);
    }
    groups
        .into_values()
        .filter(|g| g.len() >= MEMBERS_MIN)
        .collect()
}

/// The confidence (permille) a rule inherits from its members' trust
/// (permille) and the open contradictions among them.
#[must_use]
pub fn confidence(member_trust: &[u16], open_contradictions: usize) -> u16 {
    if member_trust.is_empty() {
        return 0;
    }
    let sum: i64 = member_trust.iter().map(|&t| i64::from(t)).sum();
    let mean = sum / member_trust.len() as i64;
    let lowest = member_trust
        .iter()
        .map(|&t| i64::from(t))
        .min()
        .unwrap_or(0);
    let value = (mean + lowest) / 2 - CONTRADICTION_PENALTY * open_contradictions as i64;
    u16::try_from(value.clamp(0, 1000)).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::profile;

    #[test]
    fn similar_memories_cluster_and_lonely_ones_do_not() {
        let texts = [
            (1, "Deploys to production need two reviewers."),
            (
                2,
                "Production deploys need two reviewers and a green build.",
            ),
            (3, "The cafeteria closes at three on Fridays."),
            (4, "Every production deploy needs two reviewers."),
        ];
        let profiles: BTreeMap<MemoryId, Profile> =
            texts.iter().map(|(id, t)| (*id, profile(t))).collect();
        let all: Vec<MemoryId> = profiles.keys().copied().collect();
        let candidates = all.iter().map(|&id| (id, all.clone())).collect();
        assert_eq!(clusters(&profiles, &candidates), vec![vec![1, 2, 4]]);
    }

    #[test]
    fn confidence_is_pulled_down_by_the_weakest_member_and_by_disagreement() {
        assert_eq!(confidence(&[800, 800], 0), 800);
        assert_eq!(confidence(&[900, 500], 0), 600); // mean 700, lowest 500
        assert_eq!(confidence(&[900, 500], 1), 500);
        assert_eq!(confidence(&[100, 100], 3), 0);
        assert_eq!(confidence(&[], 0), 0);
    }
}

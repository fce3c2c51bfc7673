//! Gates: a chain of policies that every command passes before it appends.
//!
//! A policy answers `check(subject, action, object) -> allow | deny(reason)`;
//! the chain asks each in order and stops at the first denial. A denial is
//! recorded by the caller as a `GateDenied` event (who, what, on what, why)
//! and returned as an error, so refused operations are as auditable as
//! allowed ones.
//!
//! The standard chain ([`GateChain::standard`]):
//!
//! | policy | denies |
//! | --- | --- |
//! | [`ScopeIsolation`] | remember, forget, purge (a model's), expand, confirm, supersede or distill on a memory scoped to a session other than the caller's; a session-scoped write from outside that session |
//! | [`SizeLimits`] | content over [`CONTENT_BYTES_MAX`], a reference over [`REFERENCE_EVENTS_MAX`] events (a saved memory's or a distilled rule's) |
//! | [`WriteTrust`] | a model claiming the user's authorship (remember, distill); a model purging what the user said or a whole session; a model forgetting, overruling (a verdict keeping the other memory), superseding (an update), shelving a contradiction with, or archiving what the user said; a model moving a room or corridor the user placed; a model's grade that lowers a user's memory into the range maintenance archives ([`DECAY_IMPORTANCE_BELOW`]) |
//!
//! Verdicts, grades and maintenance are store-wide housekeeping with no
//! session of their own, so scope isolation leaves them to the other
//! policies (as before they were gated: a session-only memory can still
//! be reviewed, decided and archived).

use engram_log::{Actor, GateDenied, Scope, Source, Verdict};
use engram_projections::models::MemoryEntry;
use engram_text::redact::redact;

pub use crate::maintain::DECAY_IMPORTANCE_BELOW;

/// Largest content a memory may stand for, in bytes (after redaction).
pub const CONTENT_BYTES_MAX: usize = 64 * 1024;
/// Largest number of session events one reference may span.
pub const REFERENCE_EVENTS_MAX: u64 = 1024;

/// Who asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    pub actor: Actor,
    /// The session the caller speaks from, if any.
    pub session: Option<String>,
}

impl Subject {
    /// The user, outside any session.
    #[must_use]
    pub fn user() -> Self {
        Self {
            actor: Actor::User,
            session: None,
        }
    }

    fn describe(&self) -> String {
        let actor = match self.actor {
            Actor::User => "user",
            Actor::Model => "model",
            Actor::System => "system",
        };
        // The session id is caller text: redacted like everything logged.
        match &self.session {
            Some(session) => format!("{actor} in session {}", redact(session).text),
            None => actor.to_owned(),
        }
    }
}

/// What is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Remember,
    Forget,
    Expand,
    Confirm,
    /// A verdict on a contradiction ([`Object::Contradiction`]).
    Verdict,
    /// A review grade ([`Object::Grade`]).
    Grade,
    /// Maintenance archiving a memory.
    Archive,
    /// A rule distilled from memories: the rule's words
    /// ([`Object::Content`]) and each member ([`Object::Memory`]).
    Distill,
    /// An update retiring a memory ([`Object::Memory`]) for new words
    /// (which pass [`Action::Remember`] as every save does).
    Supersede,
    /// Maintenance recording a memory's refreshed uniqueness.
    Rescore,
    /// A room or corridor put on a corridor ([`Object::Placement`]).
    Place,
    /// Words erased for good: a memory ([`Object::Memory`]) or a whole
    /// session ([`Object::Session`]).
    Purge,
}

impl Action {
    /// The action's name in `GateDenied` events.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Remember => "remember",
            Action::Forget => "forget",
            Action::Expand => "expand",
            Action::Confirm => "confirm",
            Action::Verdict => "verdict",
            Action::Grade => "grade",
            Action::Archive => "archive",
            Action::Distill => "distill",
            Action::Supersede => "supersede",
            Action::Rescore => "rescore",
            Action::Place => "place",
            Action::Purge => "purge",
        }
    }
}

/// What it is asked on.
#[derive(Debug, Clone, Copy)]
pub enum Object<'a> {
    /// New content to remember.
    Content {
        bytes: usize,
        events: u64,
        source: Source,
        scope: &'a Scope,
    },
    /// An existing memory.
    Memory(&'a MemoryEntry),
    /// The contradiction between two memories and the verdict asked for.
    Contradiction {
        a: &'a MemoryEntry,
        b: &'a MemoryEntry,
        verdict: Verdict,
    },
    /// A review grade on a memory, with its importance (maintenance's
    /// measure: trust + 100 per reinforcement, permille) before and after.
    Grade {
        memory: &'a MemoryEntry,
        grade: u8,
        importance_before: u32,
        importance_after: u32,
    },
    /// A room's topic or a corridor, and who placed it last (`None`: the
    /// save's automatic choice, never placed by anyone).
    Placement {
        name: &'a str,
        placed_by: Option<Actor>,
    },
    /// A session, by name (a purge of all its turns).
    Session(&'a str),
}

impl Object<'_> {
    fn describe(&self) -> String {
        match self {
            Object::Content { bytes, events, .. } => {
                format!("content ({bytes} bytes in {events} events)")
            }
            Object::Memory(entry) => format!("memory {}", entry.id),
            Object::Contradiction { a, b, verdict } => {
                let verdict = match verdict {
                    Verdict::KeepA => "keep-a",
                    Verdict::KeepB => "keep-b",
                    Verdict::KeepBoth => "keep-both",
                    Verdict::Shelve => "shelve",
                };
                format!("memories {} and {} ({verdict})", a.id, b.id)
            }
            Object::Grade { memory, grade, .. } => format!("memory {} (grade {grade})", memory.id),
            Object::Placement { name, .. } => redact(name).text,
            Object::Session(name) => format!("session {}", redact(name).text),
        }
    }
}

/// A policy's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow,
    Deny { reason: String },
}

/// One policy of the chain.
pub trait Policy: Send + Sync {
    /// Stable name, part of a denial's reason.
    fn name(&self) -> &'static str;
    fn check(&self, subject: &Subject, action: Action, object: &Object<'_>) -> Decision;
}

/// A refused operation: the event to record and the error to return.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    pub policy: &'static str,
    pub event: GateDenied,
}

impl std::fmt::Display for Denial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} denied: {} may not {} {}: {}",
            self.policy,
            self.event.subject,
            self.event.action,
            self.event.object,
            self.event.reason
        )
    }
}

/// The policies, asked in order.
pub struct GateChain {
    policies: Vec<Box<dyn Policy>>,
}

impl std::fmt::Debug for GateChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.policies.iter().map(|p| p.name()))
            .finish()
    }
}

impl Default for GateChain {
    fn default() -> Self {
        Self::standard()
    }
}

impl GateChain {
    /// Scope isolation, size limits, write-path trust.
    #[must_use]
    pub fn standard() -> Self {
        Self {
            policies: vec![
                Box::new(ScopeIsolation),
                Box::new(SizeLimits),
                Box::new(WriteTrust),
            ],
        }
    }

    /// No policy at all.
    #[must_use]
    pub fn empty() -> Self {
        Self {
            policies: Vec::new(),
        }
    }

    /// The chain with `policy` asked last.
    #[must_use]
    pub fn with(mut self, policy: impl Policy + 'static) -> Self {
        self.policies.push(Box::new(policy));
        self
    }

    /// Asks every policy; the first denial wins.
    pub fn check(
        &self,
        subject: &Subject,
        action: Action,
        object: &Object<'_>,
    ) -> Result<(), Denial> {
        for policy in &self.policies {
            if let Decision::Deny { reason } = policy.check(subject, action, object) {
                return Err(Denial {
                    policy: policy.name(),
                    event: GateDenied {
                        subject: subject.describe(),
                        action: action.as_str().to_owned(),
                        object: object.describe(),
                        reason: format!("{}: {reason}", policy.name()),
                    },
                });
            }
        }
        Ok(())
    }
}

/// A memory scoped to one session belongs to that session only.
#[derive(Debug, Clone, Copy)]
pub struct ScopeIsolation;

impl Policy for ScopeIsolation {
    fn name(&self) -> &'static str {
        "scope_isolation"
    }

    fn check(&self, subject: &Subject, action: Action, object: &Object<'_>) -> Decision {
        if matches!(
            action,
            Action::Verdict | Action::Grade | Action::Archive | Action::Rescore | Action::Place
        ) {
            return Decision::Allow;
        }
        // Erasure is the user's right over every session's words: the
        // user purges from outside any session (a model stays bound).
        if action == Action::Purge && subject.actor == Actor::User {
            return Decision::Allow;
        }
        let scope = match object {
            Object::Content { scope, .. } => scope,
            Object::Memory(entry) | Object::Grade { memory: entry, .. } => &entry.scope,
            Object::Contradiction { .. } | Object::Placement { .. } | Object::Session(_) => {
                return Decision::Allow;
            }
        };
        match scope {
            Scope::Store => Decision::Allow,
            Scope::Session(owner) if subject.session.as_deref() == Some(owner.as_str()) => {
                Decision::Allow
            }
            Scope::Session(owner) => Decision::Deny {
                reason: format!("it belongs to session {owner}"),
            },
        }
    }
}

/// Content and references have bounded sizes.
#[derive(Debug, Clone, Copy)]
pub struct SizeLimits;

impl Policy for SizeLimits {
    fn name(&self) -> &'static str {
        "size_limits"
    }

    fn check(&self, _subject: &Subject, _action: Action, object: &Object<'_>) -> Decision {
        match object {
            Object::Content { bytes, .. } if *bytes > CONTENT_BYTES_MAX => Decision::Deny {
                reason: format!(
                    "{bytes} bytes is over the limit of {CONTENT_BYTES_MAX}: remember a summary, or reference the session turns"
                ),
            },
            Object::Content { events, .. } if *events > REFERENCE_EVENTS_MAX => Decision::Deny {
                reason: format!(
                    "{events} events is over the limit of {REFERENCE_EVENTS_MAX} per reference: split it"
                ),
            },
            _ => Decision::Allow,
        }
    }
}

/// The write path trusts a model less than the user.
#[derive(Debug, Clone, Copy)]
pub struct WriteTrust;

impl Policy for WriteTrust {
    fn name(&self) -> &'static str {
        "write_trust"
    }

    fn check(&self, subject: &Subject, action: Action, object: &Object<'_>) -> Decision {
        if subject.actor != Actor::Model {
            return Decision::Allow;
        }
        let users = |entry: &MemoryEntry| entry.source == Source::User;
        let deny = |reason: String| Decision::Deny { reason };
        match (action, object) {
            (
                Action::Remember | Action::Distill,
                Object::Content {
                    source: Source::User,
                    ..
                },
            ) => deny("a model cannot record content as said by the user".to_owned()),
            (Action::Forget, Object::Memory(entry)) if users(entry) => {
                deny("a model cannot forget what the user said; ask the user".to_owned())
            }
            (Action::Purge, Object::Memory(entry)) if users(entry) => deny(format!(
                "a model cannot purge what the user said (memory {}); ask the user",
                entry.id
            )),
            (Action::Purge, Object::Session(name)) => deny(format!(
                "a model cannot purge a whole session ({}); ask the user",
                redact(name).text
            )),
            (Action::Supersede, Object::Memory(entry)) if users(entry) => deny(format!(
                "a model cannot supersede what the user said (memory {}); ask the user",
                entry.id
            )),
            (Action::Archive, Object::Memory(entry)) if users(entry) => deny(format!(
                "a model cannot archive what the user said (memory {}); ask the user",
                entry.id
            )),
            (
                Action::Place,
                Object::Placement {
                    name,
                    placed_by: Some(Actor::User),
                },
            ) => deny(format!(
                "a model cannot move {name}, which the user placed; ask the user"
            )),
            (Action::Verdict, Object::Contradiction { a, b, verdict }) => {
                let overruled = match verdict {
                    Verdict::KeepA => Some(b),
                    Verdict::KeepB => Some(a),
                    Verdict::KeepBoth | Verdict::Shelve => None,
                };
                match overruled {
                    Some(loser) if users(loser) => deny(format!(
                        "a model cannot overrule what the user said (memory {}); ask the user",
                        loser.id
                    )),
                    None if *verdict == Verdict::Shelve && (users(a) || users(b)) => deny(
                        "a model cannot shelve a contradiction with what the user said; ask the user"
                            .to_owned(),
                    ),
                    _ => Decision::Allow,
                }
            }
            (
                Action::Grade,
                Object::Grade {
                    memory,
                    importance_before,
                    importance_after,
                    ..
                },
            ) if users(memory)
                && importance_after < importance_before
                && *importance_after < DECAY_IMPORTANCE_BELOW =>
            {
                deny(format!(
                    "a model's grade would lower what the user said to importance {importance_after}, below the {DECAY_IMPORTANCE_BELOW} at which maintenance archives it; ask the user"
                ))
            }
            _ => Decision::Allow,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn content(bytes: usize, events: u64, source: Source, scope: &Scope) -> Object<'_> {
        Object::Content {
            bytes,
            events,
            source,
            scope,
        }
    }

    fn model() -> Subject {
        Subject {
            actor: Actor::Model,
            session: None,
        }
    }

    #[test]
    fn the_standard_chain_allows_ordinary_writes() {
        let gates = GateChain::standard();
        let scope = Scope::Store;
        assert!(
            gates
                .check(
                    &Subject::user(),
                    Action::Remember,
                    &content(10, 1, Source::User, &scope)
                )
                .is_ok()
        );
        assert!(
            gates
                .check(
                    &model(),
                    Action::Remember,
                    &content(10, 1, Source::Model, &scope)
                )
                .is_ok()
        );
    }

    #[test]
    fn each_policy_denies_with_its_name_and_a_reason() {
        let gates = GateChain::standard();
        let store = Scope::Store;
        let big = gates
            .check(
                &Subject::user(),
                Action::Remember,
                &content(CONTENT_BYTES_MAX + 1, 1, Source::User, &store),
            )
            .unwrap_err();
        assert_eq!(big.policy, "size_limits");
        assert!(big.event.reason.contains("over the limit"), "{big}");
        let long = gates
            .check(
                &Subject::user(),
                Action::Remember,
                &content(10, REFERENCE_EVENTS_MAX + 1, Source::User, &store),
            )
            .unwrap_err();
        assert_eq!(long.policy, "size_limits");

        let other = Scope::Session("s1".into());
        let denied = gates
            .check(
                &Subject::user(),
                Action::Remember,
                &content(10, 1, Source::User, &other),
            )
            .unwrap_err();
        assert_eq!(denied.policy, "scope_isolation");
        let inside = Subject {
            actor: Actor::User,
            session: Some("s1".into()),
        };
        assert!(
            gates
                .check(
                    &inside,
                    Action::Remember,
                    &content(10, 1, Source::User, &other)
                )
                .is_ok()
        );

        let claim = gates
            .check(
                &model(),
                Action::Remember,
                &content(10, 1, Source::User, &store),
            )
            .unwrap_err();
        assert_eq!(claim.policy, "write_trust");
        assert_eq!(claim.event.subject, "model");
        assert_eq!(claim.event.action, "remember");
    }

    fn entry(id: u64, source: Source, scope: Scope) -> MemoryEntry {
        MemoryEntry {
            id,
            created_ts_ms: 0,
            reference: engram_log::MemoryRef {
                session: "notes".into(),
                first_seq: 1,
                last_seq: 1,
            },
            content_sha256: engram_log::Digest([0; 32]),
            mac: engram_log::Digest([0; 32]),
            summary: None,
            tags: Vec::new(),
            tier: engram_log::Tier::L3,
            room: None,
            source,
            scope,
            uniqueness_permille: 1000,
            status: engram_projections::models::MemoryStatus::Live,
            forgotten: None,
            archived: None,
            purged: None,
            reinforcements: 0,
            last_changed_seq: id,
            expires_at_ms: None,
        }
    }

    #[test]
    fn a_model_verdict_cannot_overrule_or_shelve_what_the_user_said() {
        let gates = GateChain::standard();
        let user = entry(1, Source::User, Scope::Store);
        let model_memory = entry(2, Source::Model, Scope::Store);
        let verdict = |subject: &Subject, a, b, verdict| {
            gates.check(
                subject,
                Action::Verdict,
                &Object::Contradiction { a, b, verdict },
            )
        };
        // keep-b overrules a (the user's): denied for a model.
        let denied = verdict(&model(), &user, &model_memory, Verdict::KeepB).unwrap_err();
        assert_eq!(denied.policy, "write_trust");
        assert_eq!(denied.event.action, "verdict");
        assert_eq!(denied.event.object, "memories 1 and 2 (keep-b)");
        assert!(denied.event.reason.contains("overrule"), "{denied}");
        assert!(verdict(&model(), &model_memory, &user, Verdict::KeepA).is_err());
        let shelved = verdict(&model(), &user, &model_memory, Verdict::Shelve).unwrap_err();
        assert!(shelved.event.reason.contains("shelve"), "{shelved}");
        // Keeping the user's memory, or both, is allowed; so is anything
        // between the model's own memories, and anything the user decides.
        assert!(verdict(&model(), &user, &model_memory, Verdict::KeepA).is_ok());
        assert!(verdict(&model(), &user, &model_memory, Verdict::KeepBoth).is_ok());
        assert!(verdict(&model(), &model_memory, &model_memory, Verdict::Shelve).is_ok());
        for v in [Verdict::KeepA, Verdict::KeepB, Verdict::Shelve] {
            assert!(verdict(&Subject::user(), &user, &model_memory, v).is_ok());
        }
    }

    #[test]
    fn a_model_cannot_supersede_what_the_user_said() {
        let gates = GateChain::standard();
        let user = entry(4, Source::User, Scope::Store);
        let denied = gates
            .check(&model(), Action::Supersede, &Object::Memory(&user))
            .unwrap_err();
        assert_eq!(denied.policy, "write_trust");
        assert_eq!(denied.event.action, "supersede");
        assert_eq!(denied.event.object, "memory 4");
        assert!(denied.event.reason.contains("supersede"), "{denied}");
        // The model's own memory, and anything the user updates, pass.
        let model_memory = entry(5, Source::Model, Scope::Store);
        assert!(
            gates
                .check(&model(), Action::Supersede, &Object::Memory(&model_memory))
                .is_ok()
        );
        assert!(
            gates
                .check(&Subject::user(), Action::Supersede, &Object::Memory(&user))
                .is_ok()
        );
        // A session's private memory is updated from that session only.
        let private = entry(6, Source::User, Scope::Session("s1".into()));
        let outside = gates
            .check(
                &Subject::user(),
                Action::Supersede,
                &Object::Memory(&private),
            )
            .unwrap_err();
        assert_eq!(outside.policy, "scope_isolation");
    }

    #[test]
    fn a_model_cannot_archive_what_the_user_said() {
        let gates = GateChain::standard();
        let user = entry(7, Source::User, Scope::Session("s1".into()));
        let denied = gates
            .check(&model(), Action::Archive, &Object::Memory(&user))
            .unwrap_err();
        assert_eq!(denied.policy, "write_trust");
        assert_eq!(denied.event.action, "archive");
        assert_eq!(denied.event.object, "memory 7");
        // The user's maintenance archives anything, session-only included
        // (maintenance has no session of its own).
        assert!(
            gates
                .check(&Subject::user(), Action::Archive, &Object::Memory(&user))
                .is_ok()
        );
        let own = entry(8, Source::Model, Scope::Store);
        assert!(
            gates
                .check(&model(), Action::Archive, &Object::Memory(&own))
                .is_ok()
        );
    }

    #[test]
    fn a_model_grade_may_not_push_a_user_memory_into_the_archive_range() {
        let gates = GateChain::standard();
        let user = entry(3, Source::User, Scope::Store);
        let grade = |subject: &Subject, memory, before, after| {
            gates.check(
                subject,
                Action::Grade,
                &Object::Grade {
                    memory,
                    grade: 0,
                    importance_before: before,
                    importance_after: after,
                },
            )
        };
        let line = DECAY_IMPORTANCE_BELOW;
        let denied = grade(&model(), &user, line, line - 60).unwrap_err();
        assert_eq!(denied.policy, "write_trust");
        assert_eq!(denied.event.action, "grade");
        assert_eq!(denied.event.object, "memory 3 (grade 0)");
        // Already below the line and lowered further: still denied.
        assert!(grade(&model(), &user, line - 10, line - 70).is_err());
        // Staying at or above the line, or raising it, is allowed.
        assert!(grade(&model(), &user, line + 60, line).is_ok());
        assert!(grade(&model(), &user, line - 100, line - 60).is_ok());
        // The model's own memories, and the user's grades, are not limited.
        let own = entry(4, Source::Model, Scope::Store);
        assert!(grade(&model(), &own, 400, 340).is_ok());
        assert!(grade(&Subject::user(), &user, line, 0).is_ok());
    }

    #[test]
    fn distilling_checks_the_rule_size_the_authorship_and_the_members_scope() {
        let gates = GateChain::standard();
        let store = Scope::Store;
        let too_big = gates
            .check(
                &model(),
                Action::Distill,
                &content(CONTENT_BYTES_MAX + 1, 1, Source::Model, &store),
            )
            .unwrap_err();
        assert_eq!(too_big.policy, "size_limits");
        assert_eq!(too_big.event.action, "distill");
        let claim = gates
            .check(
                &model(),
                Action::Distill,
                &content(10, 1, Source::User, &store),
            )
            .unwrap_err();
        assert_eq!(claim.policy, "write_trust");
        let private = entry(5, Source::User, Scope::Session("s1".into()));
        let leak = gates
            .check(&model(), Action::Distill, &Object::Memory(&private))
            .unwrap_err();
        assert_eq!(leak.policy, "scope_isolation");
        // A model may distill a rule from the user's store-wide memories:
        // the rule is its own (model trust), the members are unchanged.
        let user = entry(6, Source::User, Scope::Store);
        assert!(
            gates
                .check(&model(), Action::Distill, &Object::Memory(&user))
                .is_ok()
        );
    }

    #[test]
    fn an_empty_chain_allows_everything_and_policies_can_be_added() {
        struct DenyAll;
        impl Policy for DenyAll {
            fn name(&self) -> &'static str {
                "deny_all"
            }
            fn check(&self, _: &Subject, _: Action, _: &Object<'_>) -> Decision {
                Decision::Deny {
                    reason: "closed".into(),
                }
            }
        }
        let scope = Scope::Store;
        let object = content(CONTENT_BYTES_MAX * 2, 1, Source::User, &scope);
        assert!(
            GateChain::empty()
                .check(&Subject::user(), Action::Remember, &object)
                .is_ok()
        );
        let small = content(1, 1, Source::User, &scope);
        let denial = GateChain::standard()
            .with(DenyAll)
            .check(&Subject::user(), Action::Remember, &small)
            .unwrap_err();
        assert_eq!(denial.policy, "deny_all");
    }
}

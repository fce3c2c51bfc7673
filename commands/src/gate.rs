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
//! | [`ScopeIsolation`] | any operation on a memory scoped to a session other than the caller's; a session-scoped write from outside that session |
//! | [`SizeLimits`] | content over [`CONTENT_BYTES_MAX`], a reference over [`REFERENCE_EVENTS_MAX`] events |
//! | [`WriteTrust`] | a model claiming the user's authorship, or a model forgetting what the user said |

use engram_log::{Actor, GateDenied, Scope, Source};
use engram_projections::models::MemoryEntry;
use engram_text::redact::redact;

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
}

impl Object<'_> {
    fn describe(&self) -> String {
        match self {
            Object::Content { bytes, events, .. } => {
                format!("content ({bytes} bytes in {events} events)")
            }
            Object::Memory(entry) => format!("memory {}", entry.id),
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

    fn check(&self, subject: &Subject, _action: Action, object: &Object<'_>) -> Decision {
        let scope = match object {
            Object::Content { scope, .. } => scope,
            Object::Memory(entry) => &entry.scope,
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
        match (action, object) {
            (
                Action::Remember,
                Object::Content {
                    source: Source::User,
                    ..
                },
            ) => Decision::Deny {
                reason: "a model cannot record content as said by the user".to_owned(),
            },
            (Action::Forget, Object::Memory(entry)) if entry.source == Source::User => {
                Decision::Deny {
                    reason: "a model cannot forget what the user said; ask the user".to_owned(),
                }
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

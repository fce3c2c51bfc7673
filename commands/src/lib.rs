//! Command handlers: validate -> redact -> gate -> decide -> append.
//!
//! - [`ingest`]: a JSON-lines transcript to redacted session events.
//! - [`memory`]: the pure steps of remember, forget and confirm (validate,
//!   redact, seal, build the events).
//! - [`gate`]: the policy chain every memory command passes.
//! - [`save`]: the save handler (remember one, or a batch) over
//!   [`save::CommandStore`], the seam the engine implements; a save is one
//!   atomic append.
//! - [`record`]: raw session turns, redacted and gated.
//! - [`flywheel`]: forget, confirm, grade, verdict, maintain, distill and
//!   the explicit tier move over the same store, each gated and one append.
//! - [`update`]: new words for a memory as a supersession (a save and the
//!   verdict retiring the old memory), one append.
//! - [`corridor`]: a room or corridor put on a corridor by hand (the
//!   save places new rooms by itself), loops refused.
//! - [`purge`]: words erased for good (a memory, or a whole session):
//!   gated, `Purged` appended, the subjects' data keys destroyed, the
//!   views rewritten; [`purge::finish_pending`] ends an interrupted one.
//! - [`tier`]: when a memory changes tier (promotion, demotion) and the
//!   `TierChanged` that records it.
//! - [`workspace`]: workspace documents (AGENTS.md, CLAUDE.md, README,
//!   docs/) recorded as L2 memories, refreshed by content hash.
//!
//! The engine (`engram::Engram`) runs these steps around the log.
//!
//! **Architecture Invariant:** every text that reaches an event passes
//! through `engram_text::redact` here first; the log is immutable, so a
//! secret that lands there stays.

pub mod corridor;
pub mod decide;
pub mod distill;
pub mod extract;
pub mod flywheel;
pub mod gate;
pub mod ingest;
pub mod maintain;
pub mod meaning;
pub mod memory;
pub mod phatic;
pub mod purge;
pub mod record;
pub mod reembed;
pub mod save;
pub mod tier;
pub mod topic;
pub mod update;
pub mod workspace;

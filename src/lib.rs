//! engram: an embeddable long-term memory engine for LLM agents.
//!
//! Every memory operation is an event appended to an immutable, verifiable
//! log (`engram-log`); read models are folds of that log (`engram-projections`).
//! A memory is a *reference* into the raw session log, sealed with a SHA-256
//! content hash and an HMAC, so [`Engram::expand_as`] returns the original
//! words and proves they were not altered.
//!
//! ```
//! # let dir = tempfile::tempdir()?;
//! use engram::log::{MemoryRef, Role};
//! use engram::store::{Store, StoreOptions};
//! use engram::{Content, Engram, MemoryMeta, RecallQuery, Remember, Subject, Turn, context_block};
//!
//! let engram = Engram::open(Store::at(dir.path()), &StoreOptions::default())?;
//! // Record the conversation as it happens: redacted and gated like every
//! // write (a secret in a turn never reaches the log).
//! let turns = engram.record_turns(
//!     "s1",
//!     &[Turn::new(Role::User, "Deploys happen on Fridays after 5pm.")],
//!     &Subject::user(),
//! )?;
//! // Remember the turn by reference.
//! let memory = engram.remember(&Remember {
//!     content: Content::Reference(MemoryRef {
//!         session: "s1".into(),
//!         first_seq: turns.first_seq,
//!         last_seq: turns.last_seq,
//!     }),
//!     meta: MemoryMeta { room: Some("ops".into()), ..MemoryMeta::default() },
//!     subject: Subject::user(),
//! })?;
//! // Recall (read-your-writes) and hand the model an injection-safe block.
//! let hits = engram.recall(&RecallQuery::new("when do deploys happen"))?;
//! assert_eq!(Some(hits[0].id), memory.id);
//! assert!(context_block(&hits).starts_with("<engram_memory_context>"));
//! // Expand back to the exact words, verified.
//! let source = engram.expand_as(memory.memory()?, &Subject::user(), false)?;
//! assert_eq!(source.turns[0].content, "Deploys happen on Fridays after 5pm.");
//! engram.close()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **API Boundary:** [`Engram`] (open, append, the memory commands and
//! queries, replay, verify, stats, audit); [`MemoryProvider`], the seam a
//! different backend implements; `engram::log` re-exports the log crate;
//! [`store`] opens a store folder and [`scope`] picks the user or project
//! store under the engram home.

pub use engram_log as log;

pub mod api;
pub mod client;
pub mod config;
pub mod engine;
pub mod flywheel;
pub mod http;
pub mod mcp;
pub mod memory;
pub mod owner;
pub mod scope;
pub mod store;
pub mod transfer;

pub use engine::{AsOf, EngineError, Engram, Stats};
pub use engram_commands::gate::{Action, GateChain, Subject};
pub use engram_commands::memory::MemoryMeta;
pub use engram_commands::record::Turn;
pub use engram_commands::save::set_prepare_while_planning;
pub use engram_queries::{Hit, RecallMode, RecallQuery, context, context_block};
pub use memory::{
    Confirmation, Content, Expansion, Forgetting, MemoryProvider, Outcome, Receipt, Remember,
    Update, Updated,
};

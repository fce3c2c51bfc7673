//! engram: an embeddable long-term memory engine for LLM agents.
//!
//! Every memory operation is an event appended to an immutable, verifiable
//! log (`engram-log`); read models are folds of that log. This facade crate
//! ties the layers together: store folders and their keys today; the
//! `Engram` handle, commands, queries and servers as they land.
//!
//! **API Boundary:** `engram::log` re-exports the log crate; `engram::store`
//! resolves and opens store folders.

pub use engram_log as log;

pub mod engine;
pub mod memory;
pub mod scope;
pub mod store;

pub use engine::{AsOf, EngineError, Engram, Stats};
pub use engram_commands::gate::{Action, GateChain, Subject};
pub use engram_commands::memory::MemoryMeta;
pub use engram_queries::{Hit, RecallQuery};
pub use memory::{
    Confirmation, Content, Expansion, Forgetting, MemoryProvider, Outcome, Receipt, Remember,
};

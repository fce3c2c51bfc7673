//! Queries: read the views, never write the log.
//!
//! - [`recall`]: BM25 over the text index with the memory table's filters.
//! - [`context`]: the injection-safe block of hits handed to a model.
//!
//! Expanding a memory reads and verifies the log (`engram_log::seal`); the
//! engine records `Recalled` and `Expanded` events around these queries.

pub mod context;
pub mod recall;

pub use context::context_block;
pub use recall::{Hit, RecallQuery, recall};

//! Queries: read the views, never write the log.
//!
//! - [`recall`]: BM25 over the text index with the memory table's filters.
//! - [`context`]: the injection-safe block of hits handed to a model.
//! - [`health`]: the 0-100 health score and due reviews.
//! - [`l0`]: the L0 block a harness puts into every prompt (rooms, the
//!   user profile, the most trusted facts).
//! - [`palace`]: the room directory, tours and the renovation list.
//! - [`list`]: a store's memories, newest first, filtered, a page at a time.
//! - [`review`]: the cues shown beside a memory due for review (never its
//!   words, nor another due memory's).
//! - [`series`]: charts over time (live memories, recalls, hit rate,
//!   health per bucket of commit time), folded from the event stream.
//!
//! Expanding a memory reads and verifies the log (`engram_log::seal`); the
//! engine records `Recalled` and `Expanded` events around these queries.

pub mod context;
pub mod health;
pub mod l0;
pub mod list;
pub mod palace;
pub mod recall;
pub mod review;
pub mod series;

pub use context::context_block;
pub use recall::{
    Cue, Fusion, Hit, QueryVector, RecallMode, RecallQuery, UNVERIFIED_LABEL, cues, fuse, label,
    model_reads, recall, recall_fused, recall_with,
};

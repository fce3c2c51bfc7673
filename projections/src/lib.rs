//! `engram-projections`: read models as pure folds of the event log.
//!
//! A read model implements [`Fold`]; the runtime feeds it the log in seq
//! order, publishes how far it got (its watermark) and persists it in redb
//! together with that watermark and its code version.

pub mod audit;
mod best_first;
pub mod check;
pub mod core;
pub mod dump;
pub mod error;
pub mod fold;
pub mod models;
pub mod runtime;
pub mod text_index;
pub mod vector_index;
pub mod view;
pub mod view_mac;

pub use audit::{AuditRecord, AuditView};
pub use core::CoreViews;
pub use error::ViewError;
pub use fold::Fold;
pub use runtime::{AsOfViews, OpenOptions, OpenReport, SharedView, ViewOpen, ViewStatus, Views};
pub use text_index::{TextHit, TextIndex, TextIndexState};
pub use vector_index::{VectorIndex, VectorSearch};
pub use view::{Snapshot, View};
pub use view_mac::ViewKey;

//! Command handlers: validate -> redact -> gate -> decide -> append.
//!
//! Today: [`ingest`], which turns a JSON-lines transcript into redacted
//! session events. remember / recall / expand / forget build on it.
//!
//! **Architecture Invariant:** every text that reaches an event passes
//! through `engram_text::redact` here first; the log is immutable, so a
//! secret that lands there stays.

pub mod ingest;

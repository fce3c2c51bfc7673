//! `engram-text`: text processing shared by the layers above the log.
//!
//! - [`redact`]: secrets and personal data become `[REDACTED:<type>]` before
//!   anything reaches the log (the log is immutable: a secret that lands there
//!   stays).
//! - [`tokenize`]: the terms the full-text index uses: words, and character
//!   bigrams for CJK text, so Chinese is found without a dictionary.
//! - [`display`]: control, line-breaking and invisible characters shown
//!   as visible escapes in human output.
//! - [`entities`]: people, projects, tools, files, organisations and
//!   places named in a text, by rules, with canonical keys.
//!
//! **Architecture Invariant:** this crate depends on no other engram crate;
//! the log never sees it (the log knows bytes, not what text means).

pub mod display;
pub mod entities;
pub mod redact;
pub mod tokenize;

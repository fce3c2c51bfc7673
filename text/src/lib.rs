//! `engram-text`: text processing shared by the layers above the log.
//!
//! - [`redact`]: secrets and personal data become `[REDACTED:<type>]` before
//!   anything reaches the log (the log is immutable: a secret that lands there
//!   stays).
//! - [`tokenize`]: the terms the full-text index uses: words, and character
//!   bigrams for CJK text, so Chinese is found without a dictionary.
//!
//! **Architecture Invariant:** this crate depends on no other engram crate;
//! the log never sees it (the log knows bytes, not what text means).

pub mod redact;
pub mod tokenize;

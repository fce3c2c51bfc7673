//! `engram-text`: text processing shared by the layers above the log.
//!
//! - [`redact`]: secrets and personal data become `[REDACTED:<type>]` before
//!   anything reaches the log (the log is immutable: a secret that lands there
//!   stays).
//! - [`tokenize`]: the terms the full-text index uses: NFKC-normalised,
//!   case-folded words, stemmed ([`stem`]: Snowball, per language), and
//!   character bigrams for CJK text, so Chinese is found without a
//!   dictionary.
//! - [`stem`]: which stemmer a word gets, and the stopwords of queries.
//! - [`calendar`]: the names of weekdays and months, one list for save
//!   decisions and entities.
//! - [`display`]: control, line-breaking and invisible characters shown
//!   as visible escapes in human output.
//! - [`entities`]: people, projects, tools, files, organisations and
//!   places named in a text, by rules, with canonical keys.
//! - [`script`]: whether a text is CJK, and whether an embedding model
//!   reads it.
//!
//! **Architecture Invariant:** this crate depends on no other engram crate;
//! the log never sees it (the log knows bytes, not what text means).

pub mod calendar;
pub mod display;
pub mod entities;
pub mod redact;
pub mod script;
pub mod stem;
pub mod tokenize;

//! Tokenization (being written).

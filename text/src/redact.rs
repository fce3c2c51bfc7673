//! Redaction (being written).

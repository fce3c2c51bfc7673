//! Command handlers (validate, redact, gate, decide, append). Filled in by the memory seam.

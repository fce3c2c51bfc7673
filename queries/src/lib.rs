//! Queries (recall, expand, review queue, audit trail, stats). Filled in by the memory seam.

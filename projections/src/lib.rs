//! Projector runtime and read models. Filled in by the projections work.

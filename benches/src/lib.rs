//! Peer engines for the benchmarks.

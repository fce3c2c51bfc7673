//! The shared log's tests, against a real PostgreSQL: one binary, a module
//! per behaviour. The server comes from `ENGRAM_TEST_POSTGRES_URL` (CI
//! starts a throwaway one); without it every test prints a skip notice and
//! passes, unless `ENGRAM_TEST_REQUIRE_POSTGRES=1`, where it fails. Each
//! test works in a schema of its own, so they run in parallel.

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers fail the test on any error, as the tests themselves do"
)]

mod support;

mod append;
mod bad_input;
mod processes;
mod replica;
mod sealed;
mod tail;
mod tamper;

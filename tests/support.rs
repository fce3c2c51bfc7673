//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::sync::Arc;

use engram_log::{Event, HmacKey, Role, SessionEvent};

/// A fixed test key.
pub fn test_key() -> HmacKey {
    HmacKey::from_bytes([0x42; 32])
}

/// A session event with recognisable content.
pub fn session_event(session: &str, turn: u32, content: &str) -> Event {
    Event::Session(SessionEvent {
        session: session.to_owned(),
        turn,
        role: Role::User,
        content: content.to_owned(),
    })
}

/// `Arc`-wraps a storage for `Log::open`.
pub fn arc<S: engram_log::Storage + 'static>(storage: S) -> Arc<dyn engram_log::Storage> {
    Arc::new(storage)
}

/// A seed for a randomized test: `ENGRAM_TEST_SEED` when set, else `default`.
/// Tests print the seed they use so a failure can be replayed.
pub fn seed(default: u64) -> u64 {
    std::env::var("ENGRAM_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

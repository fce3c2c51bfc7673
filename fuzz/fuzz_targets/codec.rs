//! Fuzz target `codec`: the event codec (`engram_log::codec`), the only
//! place bytes become events.
//!
//! Invariants checked:
//! - `decode` never panics and refuses trailing bytes;
//! - an event that decodes encodes again, and its encoding is canonical:
//!   no longer than the input, and decoding and encoding it gives the same
//!   bytes again (bincode's varints admit non-minimal forms, so the input
//!   itself need not be canonical);
//! - an event's JSON fields (`engram log --json`, an export line) read back
//!   as the same event, unless it carries a float JSON cannot hold.

#![no_main]

use engram_log::Event;
use engram_log::codec;
use libfuzzer_sys::fuzz_target;

/// Whether every float in `event` is finite (JSON has no NaN or infinity).
fn floats_finite(event: &Event) -> bool {
    let finite = |e: &Option<engram_log::Embedding>| e.as_ref().is_none_or(|e| e.scale.is_finite());
    match event {
        Event::Remembered(r) => finite(&r.embedding),
        Event::Embedded(e) => e.embedding.scale.is_finite(),
        _ => true,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(event) = codec::decode(data) else {
        return;
    };
    let canonical = codec::encode(&event).expect("a decoded event encodes");
    assert!(canonical.len() <= data.len());
    let again = codec::decode(&canonical).expect("a canonical encoding decodes");
    assert_eq!(codec::encode(&again).expect("encodes"), canonical);
    let mut longer = canonical.clone();
    longer.push(0);
    assert!(codec::decode(&longer).is_err(), "a trailing byte was taken");

    if floats_finite(&event) {
        let fields = event
            .serialize_fields(serde_json::value::Serializer)
            .expect("an event's fields are JSON");
        let back = Event::deserialize_fields(event.kind(), fields)
            .unwrap_or_else(|e| panic!("the JSON fields of {event:?} do not read back: {e}"));
        assert_eq!(
            codec::encode(&back).expect("encodes"),
            canonical,
            "{event:?} changed through JSON"
        );
    }
});

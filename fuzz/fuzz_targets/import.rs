//! Fuzz target `import`: the export file reader (`ExportReader`) and the
//! append half of an import (`import_events`).
//!
//! The first byte picks a mode: as the bytes are, or with every line hash
//! and the trailer's digest made right first (an edited file passes the
//! hashes, so the checks behind them are reached: seqs, times, references,
//! counts, re-sealing).
//!
//! Invariants checked:
//! - reading never panics; the reader stops at its first error and yields
//!   nothing after it;
//! - a file read to its end holds exactly the header's `n_events` events,
//!   at contiguous seqs from `first_seq`, commit times never going back;
//! - a complete file from seq 1 imports into an empty log or is refused
//!   with a typed error; an import that succeeds verifies, holds the
//!   file's events at their seqs and times (a memory's `mac` re-made), and
//!   exports to a file that reads back as the same events.

#![no_main]

use std::sync::Arc;

use engram::log::{Digest, Event, HmacKey, Log, LogConfig, LoggedEvent, ManualClock, MemStorage};
use engram::transfer::{ExportReader, export, import_events, line_sha256};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// Domain of the trailer's digest (`transfer.rs`).
const DIGEST_DOMAIN: &[u8] = b"engram export v1 digest";

/// The file with each event line's `sha256` and the trailer's digest
/// recomputed; lines that are not events stay as they are.
fn rehash(text: &[u8]) -> Vec<u8> {
    let mut digest = Sha256::new();
    digest.update(DIGEST_DOMAIN);
    let mut out = Vec::with_capacity(text.len());
    for (n, line) in text.split(|&b| b == b'\n').enumerate() {
        if n > 0 {
            out.push(b'\n');
        }
        let Ok(Value::Object(mut object)) = serde_json::from_slice::<Value>(line) else {
            out.extend_from_slice(line);
            continue;
        };
        if object.contains_key("engram_export_end") {
            let total = Digest(digest.clone().finalize().into());
            object.insert("sha256".into(), serde_json::to_value(total).unwrap_or_default());
        } else if let (Some(seq), Some(ts_ms), Some(Value::String(kind))) = (
            object.get("seq").and_then(Value::as_u64),
            object.get("ts_ms").and_then(Value::as_u64),
            object.get("kind").cloned(),
        ) {
            let mut fields = object.clone();
            for key in engram::transfer::LINE_KEYS {
                fields.remove(key);
            }
            if let Ok(event) = Event::deserialize_fields(&kind, Value::Object(fields))
                && let Ok((hash, _)) = line_sha256(seq, ts_ms, &event)
            {
                digest.update(hash.0);
                object.insert("sha256".into(), serde_json::to_value(hash).unwrap_or_default());
            }
        }
        out.extend_from_slice(&serde_json::to_vec(&Value::Object(object)).unwrap_or_default());
    }
    out
}

/// Every event of a file, or `None` when it does not read to its end.
fn read_all(bytes: &[u8]) -> Option<(engram::transfer::ExportReader<&[u8]>, Vec<LoggedEvent>)> {
    let mut reader = ExportReader::new(bytes).ok()?;
    let mut events = Vec::new();
    loop {
        match reader.next_event() {
            Ok(Some(event)) => events.push(event),
            Ok(None) => break,
            Err(_) => {
                // Stopped for good.
                assert!(matches!(reader.next_event(), Ok(None)));
                return None;
            }
        }
    }
    Some((reader, events))
}

/// The event with a memory's store-keyed `mac` blanked.
fn keyless(event: &Event) -> Event {
    match event {
        Event::Remembered(r) => {
            let mut r = r.clone();
            r.mac = Digest::default();
            Event::Remembered(r)
        }
        other => other.clone(),
    }
}

fn same(a: &[LoggedEvent], b: &[LoggedEvent]) {
    assert_eq!(a.len(), b.len());
    for (a, b) in a.iter().zip(b) {
        assert_eq!((a.seq, a.ts_ms), (b.seq, b.ts_ms));
        assert_eq!(keyless(&a.event), keyless(&b.event), "seq {}", a.seq);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = if mode & 1 == 1 {
        rehash(rest)
    } else {
        rest.to_vec()
    };
    let Some((reader, events)) = read_all(&bytes) else {
        return;
    };
    let header = reader.header().clone();
    assert_eq!(events.len() as u64, header.n_events);
    for (i, event) in events.iter().enumerate() {
        assert_eq!(event.seq, header.first_seq + i as u64);
    }
    assert!(events.windows(2).all(|w| w[0].ts_ms <= w[1].ts_ms));
    if header.first_seq != 1 {
        return;
    }

    let storage = Arc::new(MemStorage::new());
    let log = Log::open(
        storage,
        LogConfig::new(HmacKey::from_bytes([0x17; 32])).clock(Arc::new(ManualClock::new(0))),
    )
    .expect("a log opens in memory");
    let Ok(imported) = import_events(&log, events.iter().cloned().map(Ok), &|_| {}) else {
        // Refused: the log holds a prefix of the file, every frame good.
        assert!(log.verify().expect("verify runs").is_ok());
        let held = log.read(1..=log.last_seq().max(1)).unwrap_or_default();
        same(&held, &events[..held.len()]);
        return;
    };
    assert_eq!(imported.n_events, header.n_events);
    assert_eq!(imported.last_seq, header.last_seq);
    assert!(log.verify().expect("verify runs").is_ok());
    let held: Vec<LoggedEvent> = log
        .replay(1)
        .collect::<Result<_, _>>()
        .expect("an imported log replays");
    same(&held, &events);

    let mut again = Vec::new();
    export(log.reader(), 1, &mut again, &|_, _| {}).expect("an imported log exports");
    let (_, reread) = read_all(&again).expect("an export reads back");
    same(&reread, &events);
});

//! Moving a store: `engram export` writes the log as JSON lines, `engram
//! import` rebuilds a store from them with the same seqs, commit times and
//! views, sealed under the new store's own key.
//!
//! The export format (version [`EXPORT_FORMAT_VERSION`], a contract: see
//! `docs/design.md`, "Export format"):
//!
//! ```text
//! {"engram_export":1,"engram_version":"0.1.0","first_seq":1,"last_seq":3,"n_events":3,"prev_sha256":null}
//! {"seq":1,"ts":"...","ts_ms":...,"kind":"session",<the event's fields>,"sha256":"<line hash>"}
//! ...
//! {"engram_export_end":1,"n_events":3,"last_seq":3,"sha256":"<digest of the line hashes>"}
//! ```
//!
//! An event line is the object `engram log --json` prints ([`event_json`])
//! plus `sha256`, the [line hash](line_sha256) over its seq, commit time and
//! the event's canonical bytes. The trailer's `sha256` is the SHA-256 over
//! every line hash in order, so a file cut short, reordered or edited is
//! refused at the first line that does not match.
//!
//! **Invariant:** what a line hash covers is exactly what import
//! reproduces. The one store-keyed field, a `Remembered` event's `mac`
//! (HMAC under the source store's key), is left out of the hash (hashed as
//! zeros): import re-seals each memory under the new store's key after
//! checking its content hash against the referenced words as the new log
//! holds them. So an exported, imported and again exported store has the
//! same line hashes and digest as the first export.
//!
//! Import reads and checks the whole file before the first append
//! ([`ExportReader`]); [`import_events`] is the append half, a function of
//! an ordered stream of logged events and a target log.

mod export;
mod import;

pub use export::{ExportError, ExportSummary, export};
pub use import::{
    ExportReader, ImportError, ImportPhase, ImportSummary, Imported, STAGING_DIR_NAME,
    import_events, import_file,
};

use engram_log::codec::{self, CodecError};
use engram_log::{Digest, Event, LoggedEvent};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

/// Version of the export format, in every header (`engram_export`) and
/// trailer (`engram_export_end`). Import refuses another version.
pub const EXPORT_FORMAT_VERSION: u32 = 1;

/// Longest line import reads. An event encodes to at most
/// `EVENT_BYTES_MAX` (1 MiB) bytes; as JSON it grows (escaped control
/// characters take six bytes, an `i8` of a vector up to five), so a line
/// over this is damaged, not merely large.
pub const EXPORT_LINE_BYTES_MAX: usize = 16 * 1024 * 1024;

/// The keys of an event line that are not the event's own fields.
pub const LINE_KEYS: [&str; 7] = ["seq", "ts", "ts_ms", "kind", "sha256", "sealed", "erased"];

/// What an event line of a sealed store carries beside the event's fields
/// (`"sealed": {"record": hex, "key": hex or null}`): the record exactly as
/// the log held it, and the data key of its words (`None` once a purge
/// destroyed it; the line's fields are then the record's skeleton).
///
/// The line holds the words in the clear anyway, so their key adds nothing
/// a reader of the file does not already have; with it, import writes the
/// very bytes the source held, so every memory's content hash (over the
/// bytes as the log holds them) still verifies, erased words stay erased,
/// and no master key has to travel. Import checks that the record opens
/// under the key to exactly the line's event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealedLine {
    pub record: Vec<u8>,
    pub key: Option<[u8; 32]>,
}

/// One event line read back: the logged event, and for a sealed store its
/// record and key.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportedEvent {
    pub logged: LoggedEvent,
    pub sealed: Option<SealedLine>,
}

#[derive(Serialize, Deserialize)]
struct SealedJson {
    record: String,
    key: Option<String>,
}

impl SealedLine {
    fn to_json(&self) -> Value {
        serde_json::json!({
            "record": hex::encode(&self.record),
            "key": self.key.map(hex::encode),
        })
    }

    fn from_json(value: Value) -> Result<Self, String> {
        let json: SealedJson = serde_json::from_value(value)
            .map_err(|e| format!("`sealed` is not a record and a key: {e}"))?;
        let record =
            hex::decode(&json.record).map_err(|e| format!("`sealed.record` is not hex: {e}"))?;
        let key = match json.key {
            None => None,
            Some(key) => Some(
                hex::decode(&key)
                    .ok()
                    .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
                    .ok_or("`sealed.key` is not 64 hex digits")?,
            ),
        };
        Ok(Self { record, key })
    }
}

/// Domain separation of the line hash.
const LINE_HASH_DOMAIN: &[u8] = b"engram export v1 event";
/// Domain separation of the trailer's digest.
const DIGEST_DOMAIN: &[u8] = b"engram export v1 digest";

/// The first line of an export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportHeader {
    /// The format version ([`EXPORT_FORMAT_VERSION`]).
    pub engram_export: u32,
    /// The engram that wrote the file (for people; import does not read it).
    pub engram_version: String,
    /// The first seq in the file (`engram export --from`).
    pub first_seq: u64,
    /// The last seq in the file; `first_seq - 1` when it holds no event.
    pub last_seq: u64,
    pub n_events: u64,
    /// The line hash of the event at `first_seq - 1` in the exported log:
    /// a continuation is imported only into a store whose event there has
    /// this hash. `null` when `first_seq` is 1.
    pub prev_sha256: Option<Digest>,
    /// The exported store seals its words: its event lines carry their
    /// records and keys ([`SealedLine`]), and it imports into a sealed
    /// store only. Absent (false) in exports of stores in the clear.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sealed: bool,
}

/// The last line of an export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportTrailer {
    /// The format version ([`EXPORT_FORMAT_VERSION`]).
    pub engram_export_end: u32,
    pub n_events: u64,
    pub last_seq: u64,
    /// SHA-256 over the domain string and every line hash in order.
    pub sha256: Digest,
}

pub use crate::api::json::format_ts;

/// Why an event has no JSON line.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LineError {
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// An event field named like a line key (a schema change that would
    /// make lines ambiguous; caught by the tests).
    #[error("the event's field {field:?} has the name of a line key")]
    ReservedField { field: String },
    #[error("the event's fields are not a JSON object")]
    NotAnObject,
}

/// The JSON object of one logged event: `seq`, `ts` (RFC 3339, for
/// people), `ts_ms`, `kind`, then the event's own fields. `engram log
/// --json` prints it; an export line adds `sha256`.
pub fn event_json(logged: &LoggedEvent) -> Result<Map<String, Value>, LineError> {
    let mut object = Map::new();
    object.insert("seq".into(), logged.seq.into());
    object.insert("ts".into(), format_ts(logged.ts_ms).into());
    object.insert("ts_ms".into(), logged.ts_ms.into());
    object.insert("kind".into(), logged.event.kind().into());
    let Value::Object(fields) = logged
        .event
        .serialize_fields(serde_json::value::Serializer)?
    else {
        return Err(LineError::NotAnObject);
    };
    for (name, value) in fields {
        if LINE_KEYS.contains(&name.as_str()) {
            return Err(LineError::ReservedField { field: name });
        }
        object.insert(name, value);
    }
    Ok(object)
}

/// The event as a line hash covers it: a `Remembered` event's `mac` (an
/// HMAC under the exporting store's key, re-made by import) as zeros.
fn keyless(event: &Event) -> std::borrow::Cow<'_, Event> {
    match event {
        Event::Remembered(r) => {
            let mut r = r.clone();
            r.mac = Digest::default();
            std::borrow::Cow::Owned(Event::Remembered(r))
        }
        other => std::borrow::Cow::Borrowed(other),
    }
}

/// The line hash of an event at `seq` committed at `ts_ms`: SHA-256 over
/// the domain string `engram export v1 event`, seq and `ts_ms` (u64 LE),
/// and the length (u64 LE) and bytes of the event's canonical encoding
/// (the codec's, a `Remembered` event's `mac` as 32 zero bytes). Returns
/// the hash and the encoded length.
pub fn line_sha256(seq: u64, ts_ms: u64, event: &Event) -> Result<(Digest, usize), CodecError> {
    let bytes = codec::encode(&keyless(event))?;
    let mut hasher = Sha256::new();
    hasher.update(LINE_HASH_DOMAIN);
    hasher.update(seq.to_le_bytes());
    hasher.update(ts_ms.to_le_bytes());
    hasher.update((bytes.len() as u64).to_le_bytes());
    hasher.update(&bytes);
    Ok((Digest(hasher.finalize().into()), bytes.len()))
}

/// The trailer's digest, fed one line hash at a time.
#[derive(Debug, Clone)]
struct LineDigest(Sha256);

impl LineDigest {
    fn new() -> Self {
        let mut hasher = Sha256::new();
        hasher.update(DIGEST_DOMAIN);
        Self(hasher)
    }

    fn push(&mut self, line_hash: &Digest) {
        self.0.update(line_hash.0);
    }

    fn finish(self) -> Digest {
        Digest(self.0.finalize().into())
    }
}

/// Decodes an event line's object into the logged event, its recorded
/// line hash and what a sealed store's line carries. Checks the shape only
/// (the caller checks the hash).
fn parse_event_line(mut object: Map<String, Value>) -> Result<(ExportedEvent, Digest), String> {
    let sealed = match object.remove("sealed") {
        None | Some(Value::Null) => None,
        Some(value) => Some(SealedLine::from_json(value)?),
    };
    let seq = take_u64(&mut object, "seq")?;
    let ts_ms = take_u64(&mut object, "ts_ms")?;
    let kind = match object.remove("kind") {
        Some(Value::String(kind)) => kind,
        Some(_) => return Err("`kind` is not a string".to_owned()),
        None => return Err("no `kind`".to_owned()),
    };
    let sha256: Digest = match object.remove("sha256") {
        Some(value) => serde_json::from_value(value)
            .map_err(|e| format!("`sha256` is not 64 hex digits: {e}"))?,
        None => return Err("no `sha256` (the line hash)".to_owned()),
    };
    // `ts` is the same time for people; `ts_ms` is what counts.
    object.remove("ts");
    let event = Event::deserialize_fields(&kind, Value::Object(object))
        .map_err(|e| format!("the fields of a {kind} event do not decode: {e}"))?;
    let erased = sealed.as_ref().is_some_and(|sealed| sealed.key.is_none());
    Ok((
        ExportedEvent {
            logged: LoggedEvent {
                seq,
                ts_ms,
                event,
                erased,
            },
            sealed,
        },
        sha256,
    ))
}

fn take_u64(object: &mut Map<String, Value>, key: &str) -> Result<u64, String> {
    match object.remove(key) {
        Some(value) => value
            .as_u64()
            .ok_or_else(|| format!("`{key}` is not a whole number ({value})")),
        None => Err(format!("no `{key}`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engram_log::{MemoryRef, Remembered, Role, Scope, SessionEvent, Source, Tier};

    fn remembered(mac: u8) -> Event {
        Event::Remembered(Remembered {
            reference: MemoryRef {
                session: "s".into(),
                first_seq: 1,
                last_seq: 1,
            },
            content_sha256: Digest([1; 32]),
            mac: Digest([mac; 32]),
            summary: None,
            tags: vec![],
            tier: Tier::L3,
            room: None,
            uniqueness_permille: 1000,
            source: Source::User,
            scope: Scope::Store,
            embedding: None,
        })
    }

    #[test]
    fn the_line_hash_binds_seq_time_and_event_but_not_the_store_keyed_mac() {
        let turn = Event::Session(SessionEvent {
            session: "s".into(),
            turn: 0,
            role: Role::User,
            content: "tea".into(),
        });
        let (hash, _) = line_sha256(1, 10, &turn).unwrap();
        assert_ne!(hash, line_sha256(2, 10, &turn).unwrap().0);
        assert_ne!(hash, line_sha256(1, 11, &turn).unwrap().0);
        assert_eq!(
            line_sha256(5, 10, &remembered(7)).unwrap(),
            line_sha256(5, 10, &remembered(8)).unwrap()
        );
    }

    #[test]
    fn a_line_decodes_back_to_its_event() {
        let logged = LoggedEvent {
            erased: false,
            seq: 9,
            ts_ms: 1_795_000_000_000,
            event: remembered(3),
        };
        let object = event_json(&logged).unwrap();
        assert_eq!(
            object.keys().take(4).collect::<Vec<_>>(),
            ["seq", "ts", "ts_ms", "kind"]
        );
        let mut line = object.clone();
        line.insert("sha256".into(), Value::String(hex::encode([0u8; 32])));
        let (back, recorded) = parse_event_line(line).unwrap();
        assert_eq!(back.logged, logged);
        assert_eq!(back.sealed, None);
        assert_eq!(recorded, Digest::default());
        let mut unknown = object;
        unknown.insert("kind".into(), "teleported".into());
        unknown.insert("sha256".into(), Value::String(hex::encode([0u8; 32])));
        let err = parse_event_line(unknown).unwrap_err();
        assert!(err.contains("unknown event kind"), "{err}");
    }
}

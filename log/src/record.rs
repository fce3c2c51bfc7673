//! One event as a frame of format version 2 holds it (a sealed log):
//!
//! ```text
//! plain record   0 | codec(event)                       an event with no words
//! sealed record  1 | skeleton len u32 | codec(skeleton) | nonce (24) | sealed codec(words)
//! ```
//!
//! The skeleton is the event with its words taken out (`words`); the words
//! are sealed with XChaCha20-Poly1305 under the data key of the record's own
//! seq (its subject), associated data naming that seq, so a purge that
//! destroys the key erases exactly this record's words.
//!
//! The nonce is synthetic: a keyed hash (under a key derived from the data
//! key) of the seq, the skeleton and the words. Sealing is therefore a pure
//! function of (data key, seq, event): a command that must hash a record
//! before it is appended (a memory's `content_sha256` is over the records
//! as the log holds them) computes the same bytes the writer will write,
//! and a nonce repeats only for the very same words at the very same seq.
//!
//! Between the caller and the writer a batch travels *unsealed*: the same
//! layout with the words in the clear and no nonce (`split`); the writer,
//! which alone knows the seq, seals it (`seal`). Unsealed bytes never
//! reach a file.

use crate::codec::{self, CodecError};
use crate::event::Event;
use crate::key::HmacKey;
use crate::sealed::{Content, DataKey, Field, NONCE_BYTES, SealedError, SubjectKey};
use crate::words::{self, Words};

/// Tag of a record written in the clear.
pub(crate) const PLAIN: u8 = 0;
/// Tag of a record whose words are sealed (or, in a batch on its way to
/// the writer, still to be sealed).
pub(crate) const SEALED: u8 = 1;
/// Tag, in a batch on its way to the writer only, of a record sealed
/// already (an import restoring another log's bytes): written as a
/// [`SEALED`] record, as it is.
pub(crate) const PRESEALED: u8 = 2;

/// Bytes sealing adds to an unsealed record: the nonce and the AEAD tag.
pub(crate) const SEALING_OVERHEAD: usize = NONCE_BYTES + crate::sealed::TAG_BYTES;

/// Why a record could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("malformed record: {0}")]
    Malformed(String),
    #[error(transparent)]
    Codec(#[from] CodecError),
    #[error(transparent)]
    Sealed(#[from] SealedError),
}

/// Appends `event`, unsealed, to `out` (see the module doc); returns the
/// record's length once sealed, which is what the limits count.
pub(crate) fn split(event: &Event, key: &HmacKey, out: &mut Vec<u8>) -> Result<usize, CodecError> {
    let before = out.len();
    let mut skeleton = event.clone();
    match words::take(&mut skeleton, key) {
        None => {
            out.push(PLAIN);
            codec::encode_into(event, out)?;
            Ok(out.len() - before)
        }
        Some(words) => {
            out.push(SEALED);
            let len_at = out.len();
            out.extend_from_slice(&[0; 4]);
            let skeleton_len = codec::encode_into(&skeleton, out)?;
            let len = u32::try_from(skeleton_len)
                .map_err(|_| CodecError(format!("a skeleton of {skeleton_len} bytes")))?;
            if let Some(at) = out.get_mut(len_at..len_at + 4) {
                at.copy_from_slice(&len.to_le_bytes());
            }
            codec::encode_words_into(&words, out)?;
            Ok(out.len() - before + SEALING_OVERHEAD)
        }
    }
}

/// The parts of a record with words: the skeleton's bytes, and what
/// follows them (the words, unsealed or sealed).
fn parts(record: &[u8]) -> Result<(&[u8], &[u8]), RecordError> {
    let malformed = |what: &str| RecordError::Malformed(what.to_owned());
    let len_bytes: [u8; 4] = record
        .get(1..5)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| malformed("shorter than its skeleton's length"))?;
    let len = usize::try_from(u32::from_le_bytes(len_bytes)).unwrap_or(usize::MAX);
    let skeleton = record
        .get(5..5usize.saturating_add(len))
        .ok_or_else(|| malformed("shorter than its skeleton"))?;
    let rest = record.get(5 + len..).unwrap_or_default();
    Ok((skeleton, rest))
}

fn nonce(key: &DataKey, seq: u64, skeleton: &[u8], words: &[u8]) -> [u8; NONCE_BYTES] {
    // `blake3::derive_key` with the context's hash computed once.
    static NONCE_KEYS: std::sync::LazyLock<blake3::Hasher> =
        std::sync::LazyLock::new(|| blake3::Hasher::new_derive_key("engram content nonce v1"));
    let nonce_key: [u8; 32] = *NONCE_KEYS
        .clone()
        .update(key.as_bytes())
        .finalize()
        .as_bytes();
    let mut hasher = blake3::Hasher::new_keyed(&nonce_key);
    hasher.update(&seq.to_le_bytes());
    hasher.update(&(skeleton.len() as u64).to_le_bytes());
    hasher.update(skeleton);
    hasher.update(words);
    let mut out = [0u8; NONCE_BYTES];
    hasher.finalize_xof().fill(&mut out);
    out
}

/// Appends the sealed form of the unsealed record `record` (from [`split`])
/// at `seq` under `key` to `out`. A plain record is copied as it is.
pub(crate) fn seal(
    record: &[u8],
    seq: u64,
    key: &DataKey,
    out: &mut Vec<u8>,
) -> Result<(), RecordError> {
    match record.first() {
        Some(&PLAIN) => {
            out.extend_from_slice(record);
            Ok(())
        }
        Some(&SEALED) => {
            let (skeleton, words) = parts(record)?;
            let nonce = nonce(key, seq, skeleton, words);
            out.reserve(record.len() + SEALING_OVERHEAD);
            out.extend_from_slice(record.get(..5 + skeleton.len()).unwrap_or_default());
            out.extend_from_slice(&nonce);
            Content::seal_into(key, seq, Field::Record, words, &nonce, out);
            Ok(())
        }
        _ => Err(RecordError::Malformed("unknown record tag".to_owned())),
    }
}

/// An event read back from a sealed record.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Opened {
    pub(crate) event: Event,
    /// The subject's key was destroyed: `event` is the skeleton.
    pub(crate) erased: bool,
}

/// The skeleton of a record (the whole event of a plain one), checked for
/// shape without any key: what `verify` reads.
pub(crate) fn skeleton(record: &[u8]) -> Result<Event, RecordError> {
    match record.first() {
        Some(&PLAIN) => Ok(codec::decode(record.get(1..).unwrap_or_default())?),
        Some(&SEALED) => {
            let (skeleton, sealed) = parts(record)?;
            if sealed.len() < SEALING_OVERHEAD {
                return Err(RecordError::Malformed(
                    "shorter than its nonce and tag".to_owned(),
                ));
            }
            Ok(codec::decode(skeleton)?)
        }
        _ => Err(RecordError::Malformed("unknown record tag".to_owned())),
    }
}

/// Whether the sealed `record` holds the skeleton `event` splits into
/// under `key`: a check that a record handed with an event
/// ([`crate::EncodedBatch::encode_partly_sealed`]) is that event's.
pub(crate) fn same_skeleton(record: &[u8], event: &Event, key: &HmacKey) -> bool {
    let mut unsealed = Vec::new();
    if split(event, key, &mut unsealed).is_err() {
        return false;
    }
    match (parts(record), parts(&unsealed)) {
        (Ok((held, _)), Ok((split_off, _))) => held == split_off,
        _ => false,
    }
}

/// Whether `record` holds sealed words (so opening it needs its key).
pub(crate) fn is_sealed(record: &[u8]) -> bool {
    record.first() == Some(&SEALED)
}

/// Opens a record as a frame of version 2 holds it, with its subject's key
/// (`None` when it has no words): the event, and whether it is erased. For
/// an import checking that restored bytes say what their line says.
pub fn open_record(
    record: &[u8],
    seq: u64,
    key: Option<&SubjectKey>,
) -> Result<(Event, bool), RecordError> {
    let opened = open(record, seq, key)?;
    Ok((opened.event, opened.erased))
}

/// The skeleton of a record as a frame of version 2 holds it (the whole
/// event of a record without words), read without any key: for a backend
/// that checks frames it holds (`verify`), and for events that hold no
/// words (a `Purged`).
pub fn record_skeleton(record: &[u8]) -> Result<Event, RecordError> {
    skeleton(record)
}

/// Whether a record as a frame of version 2 holds it has sealed words.
#[must_use]
pub fn record_has_words(record: &[u8]) -> bool {
    is_sealed(record)
}

/// The record `event` becomes at `seq` sealed under `key` (see
/// [`sealed_record`]), for an import that must write an erased event's
/// skeleton under a key it destroys at once.
pub fn seal_record(
    event: &Event,
    seq: u64,
    hmac: &HmacKey,
    key: &DataKey,
) -> Result<Vec<u8>, RecordError> {
    sealed_record(event, seq, hmac, key)
}

/// Seals a batch's payload (length-prefixed unsealed records from
/// [`split`], as `EncodedBatch` holds them) whose first event lands at
/// `first_seq`: each record with words sealed under the key `key_of`
/// gives for its seq, plain and already sealed records written as they
/// are. The result is the payload a frame of version 2 holds. For the
/// writer of every log backend, which alone knows the seqs.
pub fn seal_payload(
    payload: &[u8],
    first_seq: u64,
    mut key_of: impl FnMut(u64) -> Result<DataKey, String>,
) -> Result<Vec<u8>, String> {
    let n_events = crate::format::payload_events(payload).count();
    let mut out = Vec::with_capacity(payload.len() + n_events * SEALING_OVERHEAD);
    for (seq, unsealed) in (first_seq..).zip(crate::format::payload_events(payload)) {
        let unsealed = unsealed.ok_or("a batch's payload is cut short")?;
        if unsealed.first() == Some(&PRESEALED) {
            let mut one = unsealed.to_vec();
            if let Some(tag) = one.first_mut() {
                *tag = SEALED;
            }
            crate::format::push_event(&mut out, &one);
            continue;
        }
        if !is_sealed(unsealed) {
            crate::format::push_event(&mut out, unsealed);
            continue;
        }
        let key = key_of(seq)?;
        // Sealed in place after its length, which is filled in once known
        // (what `format::push_event` writes).
        let len_at = out.len();
        out.extend_from_slice(&[0u8; 4]);
        seal(unsealed, seq, &key, &mut out).map_err(|e| format!("sealing seq {seq}: {e}"))?;
        let len = u32::try_from(out.len() - len_at - 4)
            .map_err(|_| format!("the sealed record of seq {seq} is too long"))?;
        if let Some(slot) = out.get_mut(len_at..len_at + 4) {
            slot.copy_from_slice(&len.to_le_bytes());
        }
    }
    Ok(out)
}

/// Opens the record at `seq`: `key` is the subject's key, asked for only
/// when the record holds sealed words.
pub(crate) fn open(
    record: &[u8],
    seq: u64,
    key: Option<&SubjectKey>,
) -> Result<Opened, RecordError> {
    match record.first() {
        Some(&PLAIN) => Ok(Opened {
            event: codec::decode(record.get(1..).unwrap_or_default())?,
            erased: false,
        }),
        Some(&SEALED) => {
            let (skeleton_bytes, sealed) = parts(record)?;
            let mut event = codec::decode(skeleton_bytes)?;
            let Some(key) = key else {
                return Err(RecordError::Malformed(format!(
                    "seq {seq} holds sealed words and no key store is open"
                )));
            };
            let nonce: [u8; NONCE_BYTES] = sealed
                .get(..NONCE_BYTES)
                .and_then(|n| n.try_into().ok())
                .ok_or_else(|| RecordError::Malformed("shorter than its nonce".to_owned()))?;
            let sealed = sealed.get(NONCE_BYTES..).unwrap_or_default();
            match Content::open_sealed(sealed, &nonce, key, seq, Field::Record)? {
                None => Ok(Opened {
                    event,
                    erased: true,
                }),
                Some(bytes) => {
                    let words: Words = codec::decode_words(&bytes)?;
                    words::put(&mut event, words).map_err(RecordError::Malformed)?;
                    Ok(Opened {
                        event,
                        erased: false,
                    })
                }
            }
        }
        _ => Err(RecordError::Malformed("unknown record tag".to_owned())),
    }
}

/// The record `event` becomes at `seq` under `key`, as the log will hold
/// it: what a memory's content hash is computed over.
pub(crate) fn sealed_record(
    event: &Event,
    seq: u64,
    hmac: &HmacKey,
    key: &DataKey,
) -> Result<Vec<u8>, RecordError> {
    let mut unsealed = Vec::new();
    split(event, hmac, &mut unsealed)?;
    let mut out = Vec::with_capacity(unsealed.len() + SEALING_OVERHEAD);
    seal(&unsealed, seq, key, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Embedding, Remembered, SessionEvent};
    use crate::{Digest, MemoryRef, Role, Scope, Source, Tier};
    use proptest::prelude::*;

    /// The nonce key is `blake3::derive_key` of the data key (the stored
    /// nonces of every sealed log were made that way).
    #[test]
    fn the_nonce_is_keyed_by_the_derived_key() {
        let key = DataKey::from_bytes([7; 32]);
        let derived = blake3::derive_key("engram content nonce v1", key.as_bytes());
        let mut hasher = blake3::Hasher::new_keyed(&derived);
        hasher.update(&9u64.to_le_bytes());
        hasher.update(&3u64.to_le_bytes());
        hasher.update(b"abc");
        hasher.update(b"words");
        let mut expected = [0u8; NONCE_BYTES];
        hasher.finalize_xof().fill(&mut expected);
        assert_eq!(nonce(&key, 9, b"abc", b"words"), expected);
    }

    fn hmac() -> HmacKey {
        HmacKey::from_bytes([3; 32])
    }

    fn remembered(summary: String, tags: Vec<String>, room: Option<String>) -> Event {
        Event::Remembered(Remembered {
            reference: MemoryRef {
                session: "s".into(),
                first_seq: 1,
                last_seq: 1,
            },
            content_sha256: Digest([1; 32]),
            mac: Digest([2; 32]),
            summary: Some(summary),
            tags,
            tier: Tier::L3,
            room,
            uniqueness_permille: 500,
            source: Source::User,
            scope: Scope::Store,
            embedding: Some(Embedding {
                model: "m".into(),
                scale: 0.5,
                values: vec![1, -2, 3],
            }),
        })
    }

    proptest! {
        #[test]
        fn a_sealed_record_opens_to_its_event_and_erases_to_its_skeleton(
            summary in ".{0,40}", tags in proptest::collection::vec("[a-z]{1,8}", 0..4),
            room in proptest::option::of("[a-z]{1,8}"), seq in 1u64..u64::MAX,
        ) {
            let event = remembered(summary.clone(), tags, room.clone());
            let key = DataKey::from_bytes([5; 32]);
            let record = sealed_record(&event, seq, &hmac(), &key).unwrap();
            // Deterministic: the same event at the same seq seals alike.
            prop_assert_eq!(&record, &sealed_record(&event, seq, &hmac(), &key).unwrap());
            if summary.len() >= 8 {
                prop_assert!(!record.windows(summary.len()).any(|w| w == summary.as_bytes()));
            }
            let live = open(&record, seq, Some(&SubjectKey::Live(key.clone()))).unwrap();
            prop_assert_eq!(&live.event, &event);
            prop_assert!(!live.erased);
            let erased = open(&record, seq, Some(&SubjectKey::Destroyed)).unwrap();
            prop_assert!(erased.erased);
            let Event::Remembered(r) = erased.event else { panic!("remembered") };
            prop_assert_eq!(r.summary, Some(String::new()));
            prop_assert!(r.tags.is_empty() && r.embedding.is_none());
            prop_assert_eq!(r.room, room.map(|name| words::room_pseudonym(&hmac(), &name)));
            // Another seq or another key: refused, never erased.
            prop_assert!(open(&record, seq - 1, Some(&SubjectKey::Live(key))).is_err());
            prop_assert!(open(&record, seq, Some(&SubjectKey::Live(DataKey::from_bytes([6; 32])))).is_err());
        }
    }

    #[test]
    fn an_event_without_words_stays_in_the_clear() {
        let event = Event::Graded(crate::Graded {
            memory: 4,
            grade: 3,
        });
        let record = sealed_record(&event, 9, &hmac(), &DataKey::from_bytes([5; 32])).unwrap();
        assert_eq!(record.first(), Some(&PLAIN));
        assert_eq!(open(&record, 9, None).unwrap().event, event);
    }

    #[test]
    fn a_turn_without_its_key_store_is_refused() {
        let turn = Event::Session(SessionEvent {
            session: "s".into(),
            turn: 0,
            role: Role::User,
            content: "words".into(),
        });
        let record = sealed_record(&turn, 2, &hmac(), &DataKey::from_bytes([5; 32])).unwrap();
        assert!(open(&record, 2, None).is_err());
    }
}

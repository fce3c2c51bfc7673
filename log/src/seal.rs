//! The seal of a memory: the SHA-256 content hash over the canonical bytes
//! of the session events a memory references, and the HMAC over the
//! reference and that hash. `remember` writes both into `Remembered`;
//! `expand` recomputes them from the log and refuses a mismatch.
//!
//! **Canonical bytes** of a referenced range: for each event in seq order,
//! its length (u64, little endian) then its bytes as the log holds them:
//! its encoding by [`crate::codec`] in a frame of version 1, its record
//! (skeleton and sealed words, `record`) in a frame of version 2. So the
//! hash covers ciphertext in a sealed log, and a memory's seal still
//! verifies after a purge destroyed the key of its words. The bytes are the
//! same on every machine and every replay (sealing is deterministic). Seqs
//! are not hashed: they are part of the reference, which the HMAC covers.

use sha2::{Digest as _, Sha256};

use crate::LogReader;
use crate::codec::{self, CodecError};
use crate::error::ReadError;
use crate::event::{Digest, Event, LoggedEvent, MemoryRef};
use crate::key::HmacKey;

/// Why a memory's source words cannot be trusted or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SealError {
    /// The words were altered: the log's own checks or the memory's content
    /// hash or HMAC failed. Names the first seq that cannot be trusted.
    #[error(
        "memory source tampered at seq {seq} (reference seqs {first_seq} to {last_seq}): {reason}"
    )]
    Tampered {
        seq: u64,
        first_seq: u64,
        last_seq: u64,
        reason: String,
    },
    /// The reference does not point at session events of one session.
    #[error(
        "the reference seqs {first_seq} to {last_seq} of session {session:?} are not that session's events: {reason}"
    )]
    BadReference {
        session: String,
        first_seq: u64,
        last_seq: u64,
        reason: String,
    },
    /// Reading the log failed for another reason (I/O).
    #[error(transparent)]
    Read(ReadError),
}

/// Checks that `reference` names existing session events of its session,
/// and returns them. Used before a memory is written.
pub fn read_reference(
    reader: &LogReader,
    reference: &MemoryRef,
) -> Result<Vec<LoggedEvent>, SealError> {
    Ok(read_reference_records(reader, reference)?
        .into_iter()
        .map(|(event, _)| event)
        .collect())
}

/// [`read_reference`] with the bytes each event is stored as (what the
/// content hash covers), in one read.
fn read_reference_records(
    reader: &LogReader,
    reference: &MemoryRef,
) -> Result<Vec<(LoggedEvent, Vec<u8>)>, SealError> {
    let bad = |reason: String| SealError::BadReference {
        session: reference.session.clone(),
        first_seq: reference.first_seq,
        last_seq: reference.last_seq,
        reason,
    };
    let events = match reader.read_with_records(reference.first_seq..=reference.last_seq) {
        Ok(events) => events,
        Err(
            e @ (ReadError::PastEnd { .. } | ReadError::SeqZero | ReadError::EmptyRange { .. }),
        ) => {
            return Err(bad(e.to_string()));
        }
        Err(ReadError::Corrupted(c)) => {
            return Err(SealError::Tampered {
                seq: c.seq,
                first_seq: reference.first_seq,
                last_seq: reference.last_seq,
                reason: c.to_string(),
            });
        }
        Err(e) => return Err(SealError::Read(e)),
    };
    for (logged, _) in &events {
        match &logged.event {
            Event::Session(turn) if turn.session == reference.session => {}
            Event::Session(turn) => {
                return Err(bad(format!(
                    "seq {} belongs to session {:?}: a reference spans one session",
                    logged.seq, turn.session
                )));
            }
            other => {
                return Err(bad(format!(
                    "seq {} is a {} event, not a session turn",
                    logged.seq,
                    other.kind()
                )));
            }
        }
    }
    Ok(events)
}

/// The content hash of the turns `reference` names, over their bytes as
/// the log holds them (checked to be one session's turns first): what a
/// memory of turns already in the log is sealed over.
pub fn stored_content_sha256(
    reader: &LogReader,
    reference: &MemoryRef,
) -> Result<Digest, SealError> {
    let records = read_reference_records(reader, reference)?;
    Ok(content_sha256_of_records(
        records.iter().map(|(_, bytes)| bytes.as_slice()),
    ))
}

/// Reads the events `reference` names and proves they are the words the
/// memory was sealed over: the log's frame checks, then the content hash,
/// then the HMAC over reference and hash. Any mismatch is
/// [`SealError::Tampered`] naming the seq.
pub fn read_sealed(
    reader: &LogReader,
    key: &HmacKey,
    reference: &MemoryRef,
    content: &Digest,
    mac: &Digest,
) -> Result<Vec<LoggedEvent>, SealError> {
    let tampered = |seq: u64, reason: String| SealError::Tampered {
        seq,
        first_seq: reference.first_seq,
        last_seq: reference.last_seq,
        reason,
    };
    let records = match read_reference_records(reader, reference) {
        Ok(records) => records,
        // A reference that was valid when sealed and is not now: the log
        // under it changed.
        Err(SealError::BadReference { reason, .. }) => {
            return Err(tampered(reference.first_seq, reason));
        }
        Err(e) => return Err(e),
    };
    if !reference_mac_matches(key, reference, content, mac) {
        return Err(tampered(
            reference.first_seq,
            "the memory's HMAC over its reference and content hash does not match".to_owned(),
        ));
    }
    let actual = content_sha256_of_records(records.iter().map(|(_, bytes)| bytes.as_slice()));
    if actual != *content {
        // One hash covers the range: for a one-event reference the seq is
        // exact; for a longer range it is the range's first seq (the error
        // names the whole range).
        return Err(tampered(
            reference.first_seq,
            format!(
                "the content hash of the referenced events is {actual:?}, the memory was sealed over {content:?}"
            ),
        ));
    }
    Ok(records.into_iter().map(|(event, _)| event).collect())
}

/// Domain separation for the reference HMAC (never reuse for other records).
const REFERENCE_MAC_DOMAIN: &[u8] = b"engram memory reference v1";

/// SHA-256 over the canonical bytes of stored records (the referenced
/// range, in seq order, as [`LogReader::read_with_records`] or
/// `Log::record_bytes` give them).
#[must_use]
pub fn content_sha256_of_records<'a>(records: impl IntoIterator<Item = &'a [u8]>) -> Digest {
    let mut hasher = Sha256::new();
    for bytes in records {
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    }
    Digest(hasher.finalize().into())
}

/// SHA-256 over the canonical bytes of `events` as a log without a key
/// store holds them (frames of version 1: the codec's encoding).
pub fn content_sha256<'a>(
    events: impl IntoIterator<Item = &'a Event>,
) -> Result<Digest, CodecError> {
    let mut hasher = Sha256::new();
    for event in events {
        let bytes = codec::encode(event)?;
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    Ok(Digest(hasher.finalize().into()))
}

fn reference_parts(reference: &MemoryRef) -> [[u8; 8]; 3] {
    [
        (reference.session.len() as u64).to_le_bytes(),
        reference.first_seq.to_le_bytes(),
        reference.last_seq.to_le_bytes(),
    ]
}

/// HMAC-SHA256 over the reference (session, first and last seq) and the
/// content hash.
#[must_use]
pub fn reference_mac(key: &HmacKey, reference: &MemoryRef, content: &Digest) -> Digest {
    let [session_len, first, last] = reference_parts(reference);
    Digest(key.mac(&[
        REFERENCE_MAC_DOMAIN,
        &session_len,
        reference.session.as_bytes(),
        &first,
        &last,
        &content.0,
    ]))
}

/// Constant-time check of a reference HMAC.
#[must_use]
pub fn reference_mac_matches(
    key: &HmacKey,
    reference: &MemoryRef,
    content: &Digest,
    tag: &Digest,
) -> bool {
    let [session_len, first, last] = reference_parts(reference);
    key.mac_matches(
        &[
            REFERENCE_MAC_DOMAIN,
            &session_len,
            reference.session.as_bytes(),
            &first,
            &last,
            &content.0,
        ],
        &tag.0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Role, SessionEvent};

    fn turn(content: &str) -> Event {
        Event::Session(SessionEvent {
            session: "s".into(),
            turn: 0,
            role: Role::User,
            content: content.into(),
        })
    }

    fn reference(first: u64, last: u64) -> MemoryRef {
        MemoryRef {
            session: "s".into(),
            first_seq: first,
            last_seq: last,
        }
    }

    #[test]
    fn content_hash_changes_with_any_byte_and_with_the_split_between_events() {
        let a = content_sha256(&[turn("ab"), turn("c")]).unwrap();
        assert_eq!(a, content_sha256(&[turn("ab"), turn("c")]).unwrap());
        assert_ne!(a, content_sha256(&[turn("a"), turn("bc")]).unwrap());
        assert_ne!(a, content_sha256(&[turn("ab"), turn("d")]).unwrap());
        assert_ne!(a, content_sha256(&[turn("ab")]).unwrap());
    }

    #[test]
    fn reference_mac_binds_the_reference_the_hash_and_the_key() {
        let key = HmacKey::from_bytes([7; 32]);
        let hash = content_sha256(&[turn("x")]).unwrap();
        let tag = reference_mac(&key, &reference(3, 4), &hash);
        assert!(reference_mac_matches(&key, &reference(3, 4), &hash, &tag));
        assert!(!reference_mac_matches(&key, &reference(3, 5), &hash, &tag));
        assert!(!reference_mac_matches(&key, &reference(2, 4), &hash, &tag));
        let other_session = MemoryRef {
            session: "t".into(),
            ..reference(3, 4)
        };
        assert!(!reference_mac_matches(&key, &other_session, &hash, &tag));
        let other_hash = content_sha256(&[turn("y")]).unwrap();
        assert!(!reference_mac_matches(
            &key,
            &reference(3, 4),
            &other_hash,
            &tag
        ));
        let other_key = HmacKey::from_bytes([8; 32]);
        assert!(!reference_mac_matches(
            &other_key,
            &reference(3, 4),
            &hash,
            &tag
        ));
    }
}

//! Content sealed per subject: the words of one save or one session turn,
//! encrypted with that subject's data key (XChaCha20-Poly1305), so that
//! destroying the key in the key store (`keystore`) erases the words while
//! the log, its hash chain and its HMACs stay exactly as written.
//!
//! A subject is named by a seq (the seq of the frame entry that carries the
//! content, or of the `Remembered` a save's other events derive from). The
//! associated data binds each sealed field to its subject and to what the
//! field is ([`Field`]): a sealed tag moved into a summary, or a turn's
//! content moved to another seq, fails to open instead of reading as
//! something else.
//!
//! **Invariant:** opening never guesses. A sealed field opens to its words
//! ([`Opened::Text`]) or, when the subject's key is destroyed, to
//! [`Opened::Erased`]; a key that opens nothing (a wrong key, edited
//! ciphertext) is [`SealedError::Tampered`], never an erasure.
//!
//! Layout of a sealed field's bytes (what the codec carries):
//!
//! ```text
//! nonce     24 bytes, random per field
//! bytes     ciphertext (as long as the words) + Poly1305 tag (16)
//! associated data (not stored): "engram content v1" | subject seq u64 LE | field u8
//! ```

use crate::aead;
use serde::{Deserialize, Serialize};

/// Length of a data key in bytes.
pub const DATA_KEY_BYTES: usize = aead::KEY_BYTES;
/// Length of a sealed field's nonce.
pub const NONCE_BYTES: usize = aead::NONCE_BYTES;
/// Length of the Poly1305 tag each sealed field carries.
pub const TAG_BYTES: usize = aead::TAG_BYTES;

const CONTENT_LABEL: &[u8] = b"engram content v1";

/// A subject's data key. `Debug` never prints the key.
#[derive(Clone, PartialEq, Eq)]
pub struct DataKey([u8; DATA_KEY_BYTES]);

impl std::fmt::Debug for DataKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DataKey(..)")
    }
}

impl DataKey {
    /// A key from raw bytes.
    #[must_use]
    pub fn from_bytes(bytes: [u8; DATA_KEY_BYTES]) -> Self {
        Self(bytes)
    }

    /// The key's bytes, for an export that carries the keys of the words
    /// it already holds in the clear (see the export module).
    #[must_use]
    pub fn to_bytes(&self) -> [u8; DATA_KEY_BYTES] {
        self.0
    }

    /// A fresh random key.
    pub fn generate() -> Result<Self, SealedError> {
        let mut bytes = [0u8; DATA_KEY_BYTES];
        getrandom::fill(&mut bytes).map_err(|e| SealedError::Random(e.to_string()))?;
        Ok(Self(bytes))
    }

    pub(crate) fn as_bytes(&self) -> &[u8; DATA_KEY_BYTES] {
        &self.0
    }
}

/// What a sealed field holds. Its code is part of the associated data, so
/// the codes never change: add new ones at the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Field {
    /// A session turn's words.
    TurnContent = 1,
    /// A memory's summary.
    Summary = 2,
    /// A memory's tags (all of them, as one sealed list).
    Tags = 3,
    /// A memory's room name.
    Room = 4,
    /// An entity a memory names.
    Entity = 5,
    /// A distilled rule.
    Rule = 6,
    /// A recall's query.
    Query = 7,
    /// An evidence quote.
    Quote = 8,
    /// A reason that may quote the words (a contradiction's).
    Reason = 9,
    /// The object of a denied operation (may quote the words).
    Object = 10,
    /// A vector computed from the words.
    Embedding = 11,
    /// Every word field of one event, sealed as one value (`record`).
    Record = 12,
}

/// A content-bearing field as the log holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Content {
    /// Words in the clear: only frames written before encryption (format
    /// version 1) hold these; a purge cannot reach them.
    Plain(String),
    /// Words sealed with the subject's data key.
    Sealed(SealedBytes),
}

/// A sealed field: the nonce and the ciphertext with its tag.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealedBytes {
    pub nonce: [u8; NONCE_BYTES],
    pub bytes: Vec<u8>,
}

impl std::fmt::Debug for SealedBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SealedBytes({} bytes)", self.bytes.len())
    }
}

/// What a field opened to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opened {
    /// The words.
    Text(String),
    /// The subject's key was destroyed by a purge: the words are gone.
    Erased,
}

/// The state of a subject's key, as the key store reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubjectKey {
    /// The key: its fields open.
    Live(DataKey),
    /// Destroyed by a purge: its fields are erased.
    Destroyed,
}

/// Why a field could not be sealed or opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SealedError {
    /// The ciphertext does not open with the subject's key: edited bytes,
    /// a field moved to another subject or kind, or a key store that is not
    /// this log's.
    #[error(
        "the sealed {field:?} of subject {subject} does not open with its key: the log or the key store was altered, or the key store belongs to another store"
    )]
    Tampered { subject: u64, field: Field },
    /// Opened bytes that are not UTF-8 (only a forged field can hold them).
    #[error("the sealed {field:?} of subject {subject} is not UTF-8 text")]
    NotText { subject: u64, field: Field },
    /// Sealing failed (a field too long for the cipher).
    #[error("sealing the {field:?} of subject {subject} failed")]
    Seal { subject: u64, field: Field },
    /// The operating system's random source failed.
    #[error("could not draw random bytes for a key or nonce: {0}")]
    Random(String),
}

fn associated_data(subject: u64, field: Field) -> [u8; CONTENT_LABEL.len() + 9] {
    let mut aad = [0u8; CONTENT_LABEL.len() + 9];
    let (label, rest) = aad.split_at_mut(CONTENT_LABEL.len());
    label.copy_from_slice(CONTENT_LABEL);
    let (seq, kind) = rest.split_at_mut(8);
    seq.copy_from_slice(&subject.to_le_bytes());
    kind.fill(field as u8);
    aad
}

impl Content {
    /// Seals `bytes` for `subject` under `key` with a fresh random nonce.
    pub fn seal_bytes(
        key: &DataKey,
        subject: u64,
        field: Field,
        bytes: &[u8],
    ) -> Result<Self, SealedError> {
        let mut nonce = [0u8; NONCE_BYTES];
        getrandom::fill(&mut nonce).map_err(|e| SealedError::Random(e.to_string()))?;
        Self::seal_with_nonce(key, subject, field, bytes, nonce)
    }

    /// Seals `text` for `subject` under `key` with a fresh random nonce.
    pub fn seal(
        key: &DataKey,
        subject: u64,
        field: Field,
        text: &str,
    ) -> Result<Self, SealedError> {
        Self::seal_bytes(key, subject, field, text.as_bytes())
    }

    /// Seals with a given nonce. A nonce must never be used twice with one
    /// key: only tests and fixtures that pin their bytes call this.
    pub fn seal_with_nonce(
        key: &DataKey,
        subject: u64,
        field: Field,
        bytes: &[u8],
        nonce: [u8; NONCE_BYTES],
    ) -> Result<Self, SealedError> {
        let aad = associated_data(subject, field);
        Ok(Content::Sealed(SealedBytes {
            nonce,
            bytes: aead::seal(&key.0, &nonce, &aad, bytes),
        }))
    }

    /// Appends `bytes` sealed for `subject` under `key` and `nonce` (the
    /// ciphertext, then the tag) to `out`: [`Content::seal_with_nonce`]
    /// without its own buffer, for a record sealed into its frame.
    pub(crate) fn seal_into(
        key: &DataKey,
        subject: u64,
        field: Field,
        bytes: &[u8],
        nonce: &[u8; NONCE_BYTES],
        out: &mut Vec<u8>,
    ) {
        let aad = associated_data(subject, field);
        aead::seal_into(&key.0, nonce, &aad, bytes, out);
    }

    /// Opens sealed bytes (ciphertext, then tag) as they lie in a record:
    /// [`Content::open_bytes`] of a sealed field without copying it first.
    pub(crate) fn open_sealed(
        sealed: &[u8],
        nonce: &[u8; NONCE_BYTES],
        key: &SubjectKey,
        subject: u64,
        field: Field,
    ) -> Result<Option<Vec<u8>>, SealedError> {
        match key {
            SubjectKey::Destroyed => Ok(None),
            SubjectKey::Live(key) => {
                let aad = associated_data(subject, field);
                aead::open(&key.0, nonce, &aad, sealed)
                    .map(Some)
                    .map_err(|_| SealedError::Tampered { subject, field })
            }
        }
    }

    /// Opens the field's bytes: plain words as they are, sealed ones with
    /// the subject's key, erased when the key was destroyed.
    pub fn open_bytes(
        &self,
        key: &SubjectKey,
        subject: u64,
        field: Field,
    ) -> Result<Option<Vec<u8>>, SealedError> {
        match (self, key) {
            (Content::Plain(text), _) => Ok(Some(text.as_bytes().to_vec())),
            (Content::Sealed(_), SubjectKey::Destroyed) => Ok(None),
            (Content::Sealed(sealed), key) => {
                Self::open_sealed(&sealed.bytes, &sealed.nonce, key, subject, field)
            }
        }
    }

    /// Opens the field's words (see [`Content::open_bytes`]).
    pub fn open(
        &self,
        key: &SubjectKey,
        subject: u64,
        field: Field,
    ) -> Result<Opened, SealedError> {
        match self.open_bytes(key, subject, field)? {
            None => Ok(Opened::Erased),
            Some(bytes) => String::from_utf8(bytes)
                .map(Opened::Text)
                .map_err(|_| SealedError::NotText { subject, field }),
        }
    }

    /// Whether the field was written in the clear (format version 1).
    #[must_use]
    pub fn is_plain(&self) -> bool {
        matches!(self, Content::Plain(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const KEY: [u8; 32] = [9; 32];

    fn live() -> SubjectKey {
        SubjectKey::Live(DataKey::from_bytes(KEY))
    }

    proptest! {
        #[test]
        fn sealed_words_open_to_themselves(text in any::<String>(), subject in any::<u64>(), nonce in any::<[u8; 24]>()) {
            let sealed = Content::seal_with_nonce(&DataKey::from_bytes(KEY), subject, Field::Summary, text.as_bytes(), nonce).unwrap();
            let Content::Sealed(bytes) = &sealed else { panic!("sealed") };
            prop_assert_eq!(bytes.bytes.len(), text.len() + TAG_BYTES);
            if text.len() >= 8 {
                prop_assert!(!bytes.bytes.windows(text.len()).any(|w| w == text.as_bytes()));
            }
            prop_assert_eq!(sealed.open(&live(), subject, Field::Summary).unwrap(), Opened::Text(text.clone()));
            prop_assert_eq!(sealed.open(&SubjectKey::Destroyed, subject, Field::Summary).unwrap(), Opened::Erased);
            // Through the codec the log uses: the same bytes come back.
            let encoded = bincode::serde::encode_to_vec(&sealed, bincode::config::standard()).unwrap();
            let (decoded, _): (Content, usize) = bincode::serde::decode_from_slice(&encoded, bincode::config::standard()).unwrap();
            prop_assert_eq!(decoded, sealed);
        }

        #[test]
        fn a_field_opens_only_as_itself(text in ".{0,64}", subject in 1u64..u64::MAX, flip in any::<prop::sample::Index>()) {
            let sealed = Content::seal(&DataKey::from_bytes(KEY), subject, Field::TurnContent, &text).unwrap();
            // Another subject, another field or another key: refused, never erased.
            prop_assert!(matches!(sealed.open(&live(), subject - 1, Field::TurnContent), Err(SealedError::Tampered { .. })), "refused");
            prop_assert!(matches!(sealed.open(&live(), subject, Field::Summary), Err(SealedError::Tampered { .. })), "refused");
            let other = SubjectKey::Live(DataKey::from_bytes([8; 32]));
            prop_assert!(matches!(sealed.open(&other, subject, Field::TurnContent), Err(SealedError::Tampered { .. })), "refused");
            // One flipped bit anywhere: refused.
            let Content::Sealed(mut bytes) = sealed else { panic!("sealed") };
            let at = flip.index(bytes.bytes.len());
            if let Some(b) = bytes.bytes.get_mut(at) { *b ^= 1; }
            prop_assert!(matches!(Content::Sealed(bytes).open(&live(), subject, Field::TurnContent), Err(SealedError::Tampered { .. })), "refused");
        }
    }

    #[test]
    fn plain_words_open_whatever_the_key() {
        let plain = Content::Plain("written before encryption".to_owned());
        assert_eq!(
            plain.open(&SubjectKey::Destroyed, 3, Field::TurnContent),
            Ok(Opened::Text("written before encryption".to_owned()))
        );
        assert!(plain.is_plain());
    }

    #[test]
    fn nonces_differ_between_seals() {
        let key = DataKey::from_bytes(KEY);
        let a = Content::seal(&key, 1, Field::Query, "same words").unwrap();
        let b = Content::seal(&key, 1, Field::Query, "same words").unwrap();
        assert_ne!(a, b);
    }
}

//! XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha-03), the one AEAD of the
//! log: the words of a record (`record`) and the data keys in the key
//! store (`keystore`) are sealed with it.
//!
//! The construction is the standard one: HChaCha20 of the key and the
//! nonce's first 16 bytes gives a subkey, and the IETF ChaCha20-Poly1305
//! of RFC 8439 seals under that subkey with the nonce `0u32 | nonce[16..24]`.
//! HChaCha20 comes from RustCrypto's `chacha20`; the IETF AEAD from `ring`,
//! whose assembly opens a short record about five times faster than the
//! RustCrypto `chacha20poly1305` crate on x86-64 today (whose Poly1305 sets
//! up its AVX2 state per key, and every subject has its own key; see the
//! crypto figures in `benches/benches/replay.rs`). The bytes are the same:
//! a property test checks both crates against each other.

use chacha20::{R20, hchacha};
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, Nonce, UnboundKey};

/// Length of a key.
pub const KEY_BYTES: usize = 32;
/// Length of a nonce.
pub const NONCE_BYTES: usize = 24;
/// Length of the Poly1305 tag a sealed message ends with.
pub const TAG_BYTES: usize = 16;

/// The sealed bytes did not open: another key, nonce or associated data,
/// or edited bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unopened;

fn ietf_key(key: &[u8; KEY_BYTES], nonce: &[u8; NONCE_BYTES]) -> (LessSafeKey, Nonce) {
    let (head, tail) = nonce.split_at(16);
    let mut input = [0u8; 16];
    input.copy_from_slice(head);
    let subkey = hchacha::<R20>(key.into(), &input.into());
    let mut ietf_nonce = [0u8; 12];
    if let Some(last) = ietf_nonce.get_mut(4..) {
        last.copy_from_slice(tail);
    }
    // A 32-byte key is the one length ChaCha20-Poly1305 takes, so this
    // cannot fail.
    let unbound = UnboundKey::new(&CHACHA20_POLY1305, subkey.as_slice());
    #[allow(clippy::expect_used)]
    let unbound = unbound.expect("a 32-byte ChaCha20-Poly1305 key");
    (
        LessSafeKey::new(unbound),
        Nonce::assume_unique_for_key(ietf_nonce),
    )
}

/// Appends `plaintext` sealed under `key` and `nonce` with `aad` to `out`
/// (ciphertext, then tag). A nonce must never seal two messages under one
/// key.
pub fn seal_into(
    key: &[u8; KEY_BYTES],
    nonce: &[u8; NONCE_BYTES],
    aad: &[u8],
    plaintext: &[u8],
    out: &mut Vec<u8>,
) {
    let (sealing, nonce) = ietf_key(key, nonce);
    let start = out.len();
    out.extend_from_slice(plaintext);
    let in_out = out.get_mut(start..).unwrap_or_default();
    // ring refuses only a message longer than ChaCha20's 256 GiB counter
    // space; a frame is limited far below that (`limits`).
    let tag = sealing.seal_in_place_separate_tag(nonce, Aad::from(aad), in_out);
    #[allow(clippy::expect_used)]
    let tag = tag.expect("a message within ChaCha20's counter space");
    out.extend_from_slice(tag.as_ref());
}

/// `plaintext` sealed under `key` and `nonce` with `aad`.
#[must_use]
pub fn seal(
    key: &[u8; KEY_BYTES],
    nonce: &[u8; NONCE_BYTES],
    aad: &[u8],
    plaintext: &[u8],
) -> Vec<u8> {
    let mut out = Vec::with_capacity(plaintext.len() + TAG_BYTES);
    seal_into(key, nonce, aad, plaintext, &mut out);
    out
}

/// Opens `sealed` (ciphertext, then tag) under `key` and `nonce` with `aad`.
pub fn open(
    key: &[u8; KEY_BYTES],
    nonce: &[u8; NONCE_BYTES],
    aad: &[u8],
    sealed: &[u8],
) -> Result<Vec<u8>, Unopened> {
    if sealed.len() < TAG_BYTES {
        return Err(Unopened);
    }
    let (opening, nonce) = ietf_key(key, nonce);
    let mut in_out = sealed.to_vec();
    let len = opening
        .open_in_place(nonce, Aad::from(aad), &mut in_out)
        .map_err(|_| Unopened)?
        .len();
    in_out.truncate(len);
    Ok(in_out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chacha20poly1305::aead::{Aead as _, KeyInit as _, Payload};
    use chacha20poly1305::{XChaCha20Poly1305, XNonce};
    use proptest::prelude::*;

    fn reference_seal(key: &[u8; 32], nonce: &[u8; 24], aad: &[u8], msg: &[u8]) -> Vec<u8> {
        XChaCha20Poly1305::new(key.into())
            .encrypt(&XNonce::from(*nonce), Payload { msg, aad })
            .unwrap()
    }

    proptest! {
        /// The same bytes as RustCrypto's XChaCha20-Poly1305, both ways.
        #[test]
        fn seals_as_the_reference_does(key in any::<[u8; 32]>(), nonce in any::<[u8; 24]>(), aad in proptest::collection::vec(any::<u8>(), 0..40), msg in proptest::collection::vec(any::<u8>(), 0..300)) {
            let ours = seal(&key, &nonce, &aad, &msg);
            prop_assert_eq!(&ours, &reference_seal(&key, &nonce, &aad, &msg));
            prop_assert_eq!(open(&key, &nonce, &aad, &ours), Ok(msg.clone()));
            let theirs = XChaCha20Poly1305::new((&key).into())
                .decrypt(&XNonce::from(nonce), Payload { msg: &ours, aad: &aad })
                .unwrap();
            prop_assert_eq!(theirs, msg);
        }

        #[test]
        fn any_change_is_refused(key in any::<[u8; 32]>(), nonce in any::<[u8; 24]>(), msg in proptest::collection::vec(any::<u8>(), 0..100), flip in any::<prop::sample::Index>(), which in 0u8..4) {
            let sealed = seal(&key, &nonce, b"aad", &msg);
            let (mut key2, mut nonce2, mut aad2, mut sealed2) = (key, nonce, b"aad".to_vec(), sealed.clone());
            match which {
                0 => key2[flip.index(32)] ^= 1,
                1 => nonce2[flip.index(24)] ^= 1,
                2 => aad2[flip.index(3)] ^= 1,
                _ => sealed2[flip.index(sealed.len())] ^= 1,
            }
            prop_assert_eq!(open(&key2, &nonce2, &aad2, &sealed2), Err(Unopened));
        }
    }

    /// The test vector of draft-irtf-cfrg-xchacha-03, appendix A.3.1.
    #[test]
    fn the_draft_test_vector() {
        let key: [u8; 32] =
            hex::decode("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f")
                .unwrap()
                .try_into()
                .unwrap();
        let nonce: [u8; 24] = hex::decode("404142434445464748494a4b4c4d4e4f5051525354555657")
            .unwrap()
            .try_into()
            .unwrap();
        let aad = hex::decode("50515253c0c1c2c3c4c5c6c7").unwrap();
        let msg = b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.";
        let sealed = seal(&key, &nonce, &aad, msg);
        let (ct, tag) = sealed.split_at(msg.len());
        assert_eq!(
            hex::encode(ct),
            "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e"
        );
        assert_eq!(hex::encode(tag), "c0875924c1c7987947deafd8780acf49");
    }
}

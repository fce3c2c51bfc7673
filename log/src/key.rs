//! The HMAC key that seals every frame.
//!
//! The key cannot be derived from the log: without it nobody can rewrite
//! history and recompute the chain. By default it is 32 random bytes in a
//! mode-0600 file `hmac.key` in the store folder; `ENGRAM_HMAC_KEY` (hex) or a
//! key file elsewhere overrides it, so an auditor can keep the key apart.

use std::fmt;
use std::fs;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use hmac::{Hmac, Mac as _};
use sha2::Sha256;

use crate::error::{IoFailure, KeyError};

/// Length of the HMAC key in bytes.
pub const KEY_BYTES: usize = 32;

/// File name of the default key inside a store folder.
pub const KEY_FILE_NAME: &str = "hmac.key";

/// Name of the environment variable that carries a hex key.
pub const KEY_ENV: &str = "ENGRAM_HMAC_KEY";

/// A 32-byte HMAC-SHA256 key. `Debug` never prints the key.
#[derive(Clone, PartialEq, Eq)]
pub struct HmacKey([u8; KEY_BYTES]);

impl fmt::Debug for HmacKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HmacKey(id {})", hex::encode(self.key_id()))
    }
}

type HmacSha256 = Hmac<Sha256>;

impl HmacKey {
    /// A key from raw bytes.
    #[must_use]
    pub fn from_bytes(bytes: [u8; KEY_BYTES]) -> Self {
        Self(bytes)
    }

    /// A key from 64 hex digits (surrounding whitespace ignored).
    pub fn from_hex(text: &str, origin: &str) -> Result<Self, KeyError> {
        let bytes = hex::decode(text.trim()).map_err(|e| KeyError::Malformed {
            origin: origin.to_owned(),
            reason: e.to_string(),
        })?;
        let array: [u8; KEY_BYTES] =
            bytes.try_into().map_err(|b: Vec<u8>| KeyError::Malformed {
                origin: origin.to_owned(),
                reason: format!("{} bytes, expected {KEY_BYTES}", b.len()),
            })?;
        Ok(Self(array))
    }

    /// A fresh random key.
    pub fn generate() -> Result<Self, KeyError> {
        let mut bytes = [0u8; KEY_BYTES];
        getrandom::fill(&mut bytes).map_err(|e| KeyError::Random(e.to_string()))?;
        Ok(Self(bytes))
    }

    /// Reads a key file: 32 raw bytes, or 64 hex digits.
    pub fn read_file(path: &Path) -> Result<Self, KeyError> {
        let bytes = fs::read(path)
            .map_err(|e| IoFailure::new("reading key file", path.display().to_string(), e))?;
        let origin = path.display().to_string();
        if let Ok(array) = <[u8; KEY_BYTES]>::try_from(bytes.as_slice()) {
            return Ok(Self(array));
        }
        match std::str::from_utf8(&bytes) {
            Ok(text) => Self::from_hex(text, &origin),
            Err(_) => Err(KeyError::Malformed {
                origin,
                reason: format!("{} bytes of binary, expected {KEY_BYTES}", bytes.len()),
            }),
        }
    }

    /// Writes a new key file with mode 0600, atomically: the bytes go to a
    /// temp file of this process's own (fsynced), which is then hard-linked
    /// to `path`; the link fails when `path` exists, so of many processes
    /// creating the key at once exactly one wins and the others learn that
    /// (`AlreadyExists`). Never overwrites an existing key.
    pub fn write_new_file(&self, path: &Path) -> Result<(), KeyError> {
        let name = path.display().to_string();
        let mut nonce = [0u8; 8];
        getrandom::fill(&mut nonce).map_err(|e| KeyError::Random(e.to_string()))?;
        let tmp = path.with_extension(format!(
            "key.{}.{}.tmp",
            std::process::id(),
            hex::encode(nonce)
        ));
        let written = (|| {
            let mut file = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&tmp)
                .map_err(|e| IoFailure::new("creating key file", tmp.display().to_string(), e))?;
            file.write_all(&self.0)
                .and_then(|()| file.sync_all())
                .map_err(|e| IoFailure::new("writing key file", tmp.display().to_string(), e))?;
            fs::hard_link(&tmp, path)
                .map_err(|e| IoFailure::new("creating key file", name.clone(), e))
        })();
        let _ = fs::remove_file(&tmp);
        written?;
        if let Some(folder) = path.parent() {
            fs::File::open(folder)
                .and_then(|f| f.sync_all())
                .map_err(|e| IoFailure::new("syncing folder", folder.display().to_string(), e))?;
        }
        Ok(())
    }

    /// A short public fingerprint of the key, stored in every segment header
    /// so a wrong key is reported as such rather than as tampering. It is an
    /// HMAC of a constant, so it reveals nothing about the key.
    #[must_use]
    pub fn key_id(&self) -> [u8; 8] {
        let mut mac = self.mac_engine();
        mac.update(b"engram key id v1");
        let out = mac.finalize().into_bytes();
        let mut id = [0u8; 8];
        id.copy_from_slice(out.get(..8).unwrap_or(&[0u8; 8]));
        id
    }

    /// HMAC-SHA256 over (first seq, last seq, frame hash), all little endian.
    #[must_use]
    pub fn frame_mac(&self, first_seq: u64, last_seq: u64, frame_hash: &[u8; 32]) -> [u8; 32] {
        let mut mac = self.mac_engine();
        mac.update(&first_seq.to_le_bytes());
        mac.update(&last_seq.to_le_bytes());
        mac.update(frame_hash);
        mac.finalize().into_bytes().into()
    }

    /// Constant-time check of a frame's HMAC.
    #[must_use]
    pub fn frame_mac_matches(
        &self,
        first_seq: u64,
        last_seq: u64,
        frame_hash: &[u8; 32],
        tag: &[u8; 32],
    ) -> bool {
        let mut mac = self.mac_engine();
        mac.update(&first_seq.to_le_bytes());
        mac.update(&last_seq.to_le_bytes());
        mac.update(frame_hash);
        mac.verify_slice(tag).is_ok()
    }

    /// HMAC-SHA256 over arbitrary bytes, for layers above the log that seal
    /// their own records (a memory's reference and content hash).
    #[must_use]
    pub fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut mac = self.mac_engine();
        for part in parts {
            mac.update(part);
        }
        mac.finalize().into_bytes().into()
    }

    /// A key for another purpose, derived from this one: HMAC over a fixed
    /// label and `purpose`. Tags made with it never equal tags of this key
    /// or of a key derived for another purpose (domain separation), and the
    /// derived key reveals nothing of this one.
    #[must_use]
    pub fn derive(&self, purpose: &[u8]) -> HmacKey {
        HmacKey(self.mac(&[b"engram derived key v1\0", purpose]))
    }

    /// Constant-time check of a [`HmacKey::mac`] tag.
    #[must_use]
    pub fn mac_matches(&self, parts: &[&[u8]], tag: &[u8; 32]) -> bool {
        let mut mac = self.mac_engine();
        for part in parts {
            mac.update(part);
        }
        mac.verify_slice(tag).is_ok()
    }

    fn mac_engine(&self) -> HmacSha256 {
        // HMAC accepts keys of any length, so this cannot fail.
        match HmacSha256::new_from_slice(&self.0) {
            Ok(mac) => mac,
            Err(_) => unreachable!("HMAC-SHA256 takes keys of any length"),
        }
    }
}

/// Where the key comes from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum KeySource {
    /// `hmac.key` in the store folder, created on first use of an empty store.
    #[default]
    StoreFile,
    /// A hex key given directly (the value of `ENGRAM_HMAC_KEY`).
    Hex(String),
    /// A key file elsewhere (raw 32 bytes or 64 hex digits).
    File(PathBuf),
}

impl KeySource {
    /// `ENGRAM_HMAC_KEY` when set and non-empty, else `fallback`.
    #[must_use]
    pub fn from_env_or(fallback: KeySource) -> Self {
        match std::env::var(KEY_ENV) {
            Ok(hex) if !hex.trim().is_empty() => KeySource::Hex(hex),
            _ => fallback,
        }
    }

    /// Loads the key. With `StoreFile`, a missing key file is created only when
    /// `may_create` (the caller knows the log is empty); otherwise it is an error.
    pub fn load(&self, store_dir: &Path, may_create: bool) -> Result<HmacKey, KeyError> {
        match self {
            KeySource::Hex(hex) => HmacKey::from_hex(hex, KEY_ENV),
            KeySource::File(path) => {
                if !path.exists() {
                    return Err(KeyError::NotFound { path: path.clone() });
                }
                HmacKey::read_file(path)
            }
            KeySource::StoreFile => {
                let path = store_dir.join(KEY_FILE_NAME);
                if path.exists() {
                    HmacKey::read_file(&path)
                } else if may_create {
                    let key = HmacKey::generate()?;
                    match key.write_new_file(&path) {
                        Ok(()) => Ok(key),
                        // Another process created it first: theirs is the key.
                        Err(KeyError::Io(e))
                            if e.source.kind() == std::io::ErrorKind::AlreadyExists =>
                        {
                            HmacKey::read_file(&path)
                        }
                        Err(e) => Err(e),
                    }
                } else {
                    Err(KeyError::Missing { path })
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_file_is_private_and_round_trips() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let key = KeySource::StoreFile.load(dir.path(), true).unwrap();
        let path = dir.path().join(KEY_FILE_NAME);
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(KeySource::StoreFile.load(dir.path(), false).unwrap(), key);
    }

    #[test]
    fn derived_keys_are_stable_and_apart_by_purpose() {
        let key = HmacKey::from_bytes([7; KEY_BYTES]);
        let views = key.derive(b"views");
        assert_eq!(views, key.derive(b"views"));
        assert_ne!(views, key);
        assert_ne!(views, key.derive(b"other"));
        assert_ne!(views.mac(&[b"x"]), key.mac(&[b"x"]));
        assert_ne!(views, HmacKey::from_bytes([8; KEY_BYTES]).derive(b"views"));
    }

    #[test]
    fn keys_created_at_once_agree() {
        // Many creators racing on a fresh folder: one key results, every
        // creator is handed that key, and no temp file is left behind.
        for _ in 0..20 {
            let dir = tempfile::tempdir().unwrap();
            let barrier = std::sync::Barrier::new(8);
            let keys: Vec<HmacKey> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..8)
                    .map(|_| {
                        s.spawn(|| {
                            barrier.wait();
                            KeySource::StoreFile.load(dir.path(), true).unwrap()
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            let on_disk = HmacKey::read_file(&dir.path().join(KEY_FILE_NAME)).unwrap();
            assert!(keys.iter().all(|k| *k == on_disk));
            let names: Vec<_> = fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            assert_eq!(names, vec![std::ffi::OsString::from(KEY_FILE_NAME)]);
        }
    }

    #[test]
    fn missing_key_is_an_error_when_creation_is_not_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let err = KeySource::StoreFile.load(dir.path(), false).unwrap_err();
        assert!(matches!(err, KeyError::Missing { .. }), "{err}");
    }

    #[test]
    fn malformed_hex_is_refused() {
        assert!(matches!(
            HmacKey::from_hex("abcd", "test"),
            Err(KeyError::Malformed { .. })
        ));
        assert!(matches!(
            HmacKey::from_hex(&"zz".repeat(32), "test"),
            Err(KeyError::Malformed { .. })
        ));
        let key = HmacKey::from_hex(&"ab".repeat(32), "test").unwrap();
        assert_eq!(key, HmacKey::from_bytes([0xab; 32]));
    }

    #[test]
    fn different_keys_have_different_ids_and_macs() {
        let a = HmacKey::from_bytes([1; 32]);
        let b = HmacKey::from_bytes([2; 32]);
        assert_ne!(a.key_id(), b.key_id());
        let hash = [7u8; 32];
        let tag = a.frame_mac(1, 3, &hash);
        assert!(a.frame_mac_matches(1, 3, &hash, &tag));
        assert!(!b.frame_mac_matches(1, 3, &hash, &tag));
        assert!(!a.frame_mac_matches(1, 4, &hash, &tag));
    }
}

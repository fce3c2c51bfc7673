//! The key store: one data key per subject (seq), wrapped by the store's
//! master key, in a file of fixed-size slots beside the log. It is mutable
//! and outside the hash chain: destroying a slot erases the words sealed
//! with its key (`sealed`) while every frame still verifies.
//!
//! ```text
//! keys.engram = header (128 bytes) + slot (128 bytes) per seq from first_seq
//!
//! header
//!   0..8     magic "ENGRKEYS"
//!   8..12    version u32 (1)
//!  12..16    flags u32 (zero)
//!  16..24    first seq u64: the seq of slot 0
//!  24..48    check nonce (24)
//!  48..80    check: the fixed block CHECK_BLOCK sealed with the master key (16 + tag 16)
//!  80..120   zero
//! 120..128   blake3(bytes 0..120), first 8 bytes
//!
//! slot of seq s, at 128 + (s - first_seq) * 128
//!   0..24    nonce (24)
//!  24..72    the data key sealed with the master key, associated data
//!            "engram data key v1" | s u64 LE (32 + tag 16)
//!  72..128   zero
//!   all 128 bytes zero: the key was destroyed
//! ```
//!
//! Slots are 128 bytes and start on 128-byte boundaries, so no slot
//! straddles a 512-byte sector.
//!
//! **Invariant (reserve before append):** the writer asks [`KeyStore::reserve`]
//! for the slots of the seqs it is about to use; reserve writes fresh keys
//! ahead (at least [`RESERVE_AHEAD_SEQS`], an eighth of the store up to
//! [`RESERVE_AHEAD_SEQS_MAX`]) and fsyncs them before it returns.
//! So steady-state appends pay no key-store fsync, and a crash can never
//! leave a durable frame whose key is not durable. Slots past the log's end
//! (reserved, never used, or torn by a crash) are written again by the next
//! reserve: [`KeyStore::open`] takes the log's last seq and trusts nothing
//! after it.
//!
//! **Invariant (destroy in place):** [`KeyStore::destroy`] overwrites each
//! slot with zeros where it lies and fsyncs once; the file is never unlinked
//! or rewritten elsewhere, so no copy of the wrapped key is left behind by
//! the key store itself (what a file system or disk keeps of overwritten
//! blocks is listed in ARCHITECTURE.md). A crash during a destroy leaves each
//! slot whole, zero, or torn between the two; a torn slot reads as damaged
//! and is zeroed again by the purge's recovery.
//!
//! Sync points (the crash analysis): create: the file, then the folder;
//! reserve: the file; destroy: the file.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::aead;
use crate::error::IoFailure;
use crate::sealed::{DATA_KEY_BYTES, DataKey, NONCE_BYTES, SubjectKey, TAG_BYTES};
use crate::storage::{Storage, StorageFile};

/// File name of the key store inside a store folder.
pub const KEY_STORE_FILE_NAME: &str = "keys.engram";
/// File name of the default master key inside a store folder.
pub const MASTER_KEY_FILE_NAME: &str = "master.key";
/// Name of the environment variable that carries a hex master key.
pub const MASTER_KEY_ENV: &str = "ENGRAM_MASTER_KEY";
/// Length of the master key in bytes.
pub const MASTER_KEY_BYTES: usize = 32;

/// Magic at the start of the key store.
pub const KEY_STORE_MAGIC: [u8; 8] = *b"ENGRKEYS";
/// The key store layout this build writes and reads.
pub const KEY_STORE_VERSION: u32 = 1;
/// Header length.
pub const HEADER_BYTES: usize = 128;
/// Slot length.
pub const SLOT_BYTES: usize = 128;
/// Bytes of a slot that hold the wrapped key (nonce, sealed key, tag).
pub const WRAPPED_BYTES: usize = NONCE_BYTES + DATA_KEY_BYTES + TAG_BYTES;
/// How many seqs past the one asked for a reserve writes keys for, at
/// least: a store of `n` subjects reserves `n / RESERVE_AHEAD_DIVISOR`
/// ahead, up to [`RESERVE_AHEAD_SEQS_MAX`], so a store that takes many
/// appends pays a key-store fsync once per many thousand seqs (as a `Vec`
/// grows geometrically) while a small one writes few keys it may never use.
pub const RESERVE_AHEAD_SEQS: u64 = 1024;
/// Most seqs a reserve writes keys ahead for (2 MiB of slots, a few
/// milliseconds of wrapping in the append that triggers it).
pub const RESERVE_AHEAD_SEQS_MAX: u64 = 16_384;
/// A store of `n` subjects reserves `n / RESERVE_AHEAD_DIVISOR` ahead.
pub const RESERVE_AHEAD_DIVISOR: u64 = 8;
/// Most seqs one [`KeyStore::reserve`] may reach past the last reserved one
/// (a batch's events and the batch ahead): a seq further out is a caller's
/// mistake, not a reason to write gigabytes of keys.
pub const RESERVE_SEQS_MAX: u64 = 4 * 65_536;
/// Most slots one [`KeyStore::destroy`] takes (a purge names at most this
/// many subjects).
pub const DESTROY_SLOTS_MAX: usize = 65_536;
/// Most unwrapped keys held at once; past it the cache starts over (every
/// cached key is in the file too). Room for several reserves ahead.
pub const CACHED_KEYS_MAX: usize = 65_536;
/// Slots read at once when a key is not cached (a replay asks in order).
pub const READ_AHEAD_SLOTS: u64 = 256;

const CHECK_BLOCK: &[u8; 16] = b"engram keys v1\0\0";
const CHECK_LABEL: &[u8] = b"engram key store check v1";
const WRAP_LABEL: &[u8] = b"engram data key v1";
const HEADER_CHECKED_BYTES: usize = 120;

const _: () = assert!(HEADER_BYTES == 8 + 4 + 4 + 8 + 24 + 32 + 40 + 8);
const _: () = assert!(WRAPPED_BYTES == 72);
const _: () = assert!(WRAPPED_BYTES <= SLOT_BYTES);
const _: () = assert!(512usize.is_multiple_of(SLOT_BYTES));
const _: () = assert!(HEADER_BYTES.is_multiple_of(SLOT_BYTES));
const _: () = assert!(RESERVE_AHEAD_SEQS <= RESERVE_AHEAD_SEQS_MAX);
const _: () = assert!(2 * RESERVE_AHEAD_SEQS_MAX <= CACHED_KEYS_MAX as u64);

/// Opening, reserving, reading or destroying keys failed. Nothing on disk
/// was changed unless the error says so.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeyStoreError {
    /// Reading or writing the key store or the master key file failed.
    #[error(transparent)]
    Io(#[from] IoFailure),
    /// The log holds sealed content but the key store file is gone.
    #[error(
        "no key store at {place}: the log holds sealed content, so its words cannot be read; restore {KEY_STORE_FILE_NAME} from a backup of this store (the log itself still verifies)"
    )]
    Missing { place: String },
    /// The header is not a key store's, or is damaged.
    #[error(
        "the key store at {place} is damaged ({reason}): restore {KEY_STORE_FILE_NAME} from a backup of this store (the log itself still verifies)"
    )]
    Damaged { place: String, reason: String },
    /// The header's check does not open with this master key.
    #[error(
        "the master key does not open the key store at {place}: pass the store's own master key ({MASTER_KEY_ENV}, or its key file)"
    )]
    WrongMasterKey { place: String },
    /// A key store written by a newer engram.
    #[error(
        "the key store at {place} has version {found}, this engram reads up to {KEY_STORE_VERSION}: upgrade engram"
    )]
    NewerVersion { place: String, found: u32 },
    /// One slot does not unwrap: damaged, or torn by a crash during a purge.
    #[error(
        "the key of subject {seq} in the key store is damaged: its words cannot be read (restore {KEY_STORE_FILE_NAME} from a backup; the log itself still verifies)"
    )]
    SlotDamaged { seq: u64 },
    /// A seq the key store holds no slot for.
    #[error(
        "the key store holds no key for subject {seq} (it covers seqs {first_seq} to {last_seq}): restore {KEY_STORE_FILE_NAME} from a backup of this store"
    )]
    NoSlot {
        seq: u64,
        first_seq: u64,
        last_seq: u64,
    },
    /// A reserve reaching too far past the keys already reserved.
    #[error(
        "keys asked up to seq {upto_seq}, more than {RESERVE_SEQS_MAX} past the last reserved ({reserved})"
    )]
    ReserveTooFar { upto_seq: u64, reserved: u64 },
    /// A destroy naming more subjects than one call takes.
    #[error("a purge names {count} subjects, at most {DESTROY_SLOTS_MAX} at once")]
    TooManySlots { count: usize },
    /// A master key that is not 32 bytes (64 hex digits).
    #[error("the master key from {origin} is not 64 hex digits (32 bytes): {reason}")]
    MalformedMasterKey { origin: String, reason: String },
    /// The store has sealed content but no master key.
    #[error(
        "no master key at {path}: the store already holds sealed content, so a new key cannot be made; restore the key file, or pass the key with {MASTER_KEY_ENV} (64 hex digits)"
    )]
    MasterKeyMissing { path: PathBuf },
    /// The operating system's random source failed.
    #[error("could not draw random bytes for a key: {0}")]
    Random(String),
    /// The log was opened without a key store.
    #[error("this log was opened without a key store: its content is not sealed")]
    NotOpened,
    /// A write or fsync failed earlier: the file's state is unknown until
    /// it is opened again.
    #[error("the key store is poisoned by an earlier failure ({cause}): reopen the store")]
    Poisoned { cause: String },
    /// A key store kept elsewhere (a shared log's) holds no row for a seq
    /// it must hold, and the key was not destroyed by a purge: damage.
    #[error(
        "the key store at {place} holds no key for subject {seq}, and no purge destroyed it: the keys table was damaged, so its words cannot be read (restore the table from a backup; the log itself still verifies)"
    )]
    KeyMissing { place: String, seq: u64 },
    /// A key store kept elsewhere could not be reached or read.
    #[error("the key store at {place} could not be read: {reason}")]
    Unavailable { place: String, reason: String },
}

/// The store's master key: it wraps every data key. `Debug` never prints it.
#[derive(Clone, PartialEq, Eq)]
pub struct MasterKey([u8; MASTER_KEY_BYTES]);

impl fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MasterKey(..)")
    }
}

impl MasterKey {
    /// A key from raw bytes.
    #[must_use]
    pub fn from_bytes(bytes: [u8; MASTER_KEY_BYTES]) -> Self {
        Self(bytes)
    }

    /// A key from 64 hex digits (surrounding whitespace ignored).
    pub fn from_hex(text: &str, origin: &str) -> Result<Self, KeyStoreError> {
        let malformed = |reason: String| KeyStoreError::MalformedMasterKey {
            origin: origin.to_owned(),
            reason,
        };
        let bytes = hex::decode(text.trim()).map_err(|e| malformed(e.to_string()))?;
        let array: [u8; MASTER_KEY_BYTES] = bytes
            .try_into()
            .map_err(|b: Vec<u8>| malformed(format!("{} bytes", b.len())))?;
        Ok(Self(array))
    }

    /// A fresh random key.
    pub fn generate() -> Result<Self, KeyStoreError> {
        let mut bytes = [0u8; MASTER_KEY_BYTES];
        getrandom::fill(&mut bytes).map_err(|e| KeyStoreError::Random(e.to_string()))?;
        Ok(Self(bytes))
    }

    /// Reads a key file: 32 raw bytes, or 64 hex digits.
    pub fn read_file(path: &Path) -> Result<Self, KeyStoreError> {
        let bytes = fs::read(path).map_err(|e| {
            IoFailure::new("reading master key file", path.display().to_string(), e)
        })?;
        if let Ok(array) = <[u8; MASTER_KEY_BYTES]>::try_from(bytes.as_slice()) {
            return Ok(Self(array));
        }
        let origin = path.display().to_string();
        match std::str::from_utf8(&bytes) {
            Ok(text) => Self::from_hex(text, &origin),
            Err(_) => Err(KeyStoreError::MalformedMasterKey {
                origin,
                reason: format!("{} bytes of binary", bytes.len()),
            }),
        }
    }

    /// Writes a new key file with mode 0600, the way `HmacKey` does: a temp
    /// file of this process's own (fsynced), hard-linked to `path` (which
    /// fails when `path` exists: never overwrites a key), then the folder
    /// fsynced.
    pub fn write_new_file(&self, path: &Path) -> Result<(), KeyStoreError> {
        let mut nonce = [0u8; 8];
        getrandom::fill(&mut nonce).map_err(|e| KeyStoreError::Random(e.to_string()))?;
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
                .map_err(|e| {
                    IoFailure::new("creating master key file", tmp.display().to_string(), e)
                })?;
            file.write_all(&self.0)
                .and_then(|()| file.sync_all())
                .map_err(|e| {
                    IoFailure::new("writing master key file", tmp.display().to_string(), e)
                })?;
            fs::hard_link(&tmp, path).map_err(|e| {
                IoFailure::new("creating master key file", path.display().to_string(), e)
            })
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

    fn seal(&self, nonce: &[u8; NONCE_BYTES], aad: &[u8], plaintext: &[u8]) -> Vec<u8> {
        aead::seal(&self.0, nonce, aad, plaintext)
    }

    fn open(&self, nonce: &[u8; NONCE_BYTES], aad: &[u8], sealed: &[u8]) -> Option<Vec<u8>> {
        aead::open(&self.0, nonce, aad, sealed).ok()
    }
}

/// Where the master key comes from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum MasterKeySource {
    /// `master.key` in the store folder, created while the store holds no
    /// sealed content.
    #[default]
    StoreFile,
    /// A hex key given directly (the value of `ENGRAM_MASTER_KEY`).
    Hex(String),
    /// A key file elsewhere (raw 32 bytes or 64 hex digits).
    File(PathBuf),
}

impl MasterKeySource {
    /// `ENGRAM_MASTER_KEY` when set and non-empty, else `fallback`.
    #[must_use]
    pub fn from_env_or(fallback: MasterKeySource) -> Self {
        match std::env::var(MASTER_KEY_ENV) {
            Ok(hex) if !hex.trim().is_empty() => MasterKeySource::Hex(hex),
            _ => fallback,
        }
    }

    /// Loads the key. With `StoreFile`, a missing key file is created only
    /// when `may_create` (the caller knows nothing is sealed yet).
    pub fn load(&self, store_dir: &Path, may_create: bool) -> Result<MasterKey, KeyStoreError> {
        match self {
            MasterKeySource::Hex(hex) => MasterKey::from_hex(hex, MASTER_KEY_ENV),
            MasterKeySource::File(path) => MasterKey::read_file(path),
            MasterKeySource::StoreFile => {
                let path = store_dir.join(MASTER_KEY_FILE_NAME);
                if path.exists() {
                    MasterKey::read_file(&path)
                } else if may_create {
                    let key = MasterKey::generate()?;
                    match key.write_new_file(&path) {
                        Ok(()) => Ok(key),
                        // Another process created it first: theirs is the key.
                        Err(KeyStoreError::Io(e))
                            if e.source.kind() == std::io::ErrorKind::AlreadyExists =>
                        {
                            MasterKey::read_file(&path)
                        }
                        Err(e) => Err(e),
                    }
                } else {
                    Err(KeyStoreError::MasterKeyMissing { path })
                }
            }
        }
    }
}

/// A slot as its bytes read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slot {
    /// All zeros: the key was destroyed.
    Destroyed,
    /// A wrapped key.
    Wrapped([u8; WRAPPED_BYTES]),
}

impl Slot {
    /// The slot's bytes.
    #[must_use]
    pub fn encode(&self) -> [u8; SLOT_BYTES] {
        let mut out = [0u8; SLOT_BYTES];
        if let Slot::Wrapped(wrapped) = self
            && let Some(head) = out.get_mut(..WRAPPED_BYTES)
        {
            head.copy_from_slice(wrapped);
        }
        out
    }

    /// Parses a slot: all zeros is destroyed; a wrapped key must leave the
    /// rest of its slot zero (anything else is damage: a torn destroy, or a
    /// stray write).
    pub fn decode(bytes: &[u8]) -> Result<Self, String> {
        if bytes.len() != SLOT_BYTES {
            return Err(format!("{} bytes, a slot is {SLOT_BYTES}", bytes.len()));
        }
        if bytes.iter().all(|&b| b == 0) {
            return Ok(Slot::Destroyed);
        }
        let (head, tail) = bytes.split_at(WRAPPED_BYTES);
        if tail.iter().any(|&b| b != 0) {
            return Err("bytes after the wrapped key are not zero".to_owned());
        }
        let mut wrapped = [0u8; WRAPPED_BYTES];
        wrapped.copy_from_slice(head);
        Ok(Slot::Wrapped(wrapped))
    }

    /// Wraps `key` for `seq` under `master` with a fresh nonce.
    pub fn wrap(master: &MasterKey, seq: u64, key: &DataKey) -> Result<Self, KeyStoreError> {
        let mut nonce = [0u8; NONCE_BYTES];
        getrandom::fill(&mut nonce).map_err(|e| KeyStoreError::Random(e.to_string()))?;
        Self::wrap_with_nonce(master, seq, key, nonce)
    }

    /// Wraps with a given nonce, which must never repeat under one master
    /// key: drawn at random (`reserve` draws a batch's at once), or pinned
    /// by a test.
    pub fn wrap_with_nonce(
        master: &MasterKey,
        seq: u64,
        key: &DataKey,
        nonce: [u8; NONCE_BYTES],
    ) -> Result<Self, KeyStoreError> {
        let aad = wrap_aad(seq);
        let sealed = master.seal(&nonce, &aad, key.as_bytes());
        let mut wrapped = [0u8; WRAPPED_BYTES];
        let (n, rest) = wrapped.split_at_mut(NONCE_BYTES);
        n.copy_from_slice(&nonce);
        if rest.len() != sealed.len() {
            return Err(KeyStoreError::SlotDamaged { seq });
        }
        rest.copy_from_slice(&sealed);
        Ok(Slot::Wrapped(wrapped))
    }

    /// The subject's key: live when the slot unwraps for `seq` under
    /// `master`, destroyed when it is zero, else damaged.
    pub fn unwrap_key(&self, master: &MasterKey, seq: u64) -> Result<SubjectKey, KeyStoreError> {
        let Slot::Wrapped(wrapped) = self else {
            return Ok(SubjectKey::Destroyed);
        };
        let (nonce, sealed) = wrapped.split_at(NONCE_BYTES);
        let nonce: [u8; NONCE_BYTES] = nonce
            .try_into()
            .map_err(|_| KeyStoreError::SlotDamaged { seq })?;
        let aad = wrap_aad(seq);
        let bytes = master
            .open(&nonce, &aad, sealed)
            .ok_or(KeyStoreError::SlotDamaged { seq })?;
        let key: [u8; DATA_KEY_BYTES] = bytes
            .try_into()
            .map_err(|_| KeyStoreError::SlotDamaged { seq })?;
        Ok(SubjectKey::Live(DataKey::from_bytes(key)))
    }
}

fn wrap_aad(seq: u64) -> [u8; WRAP_LABEL.len() + 8] {
    let mut aad = [0u8; WRAP_LABEL.len() + 8];
    let (label, rest) = aad.split_at_mut(WRAP_LABEL.len());
    label.copy_from_slice(WRAP_LABEL);
    rest.copy_from_slice(&seq.to_le_bytes());
    aad
}

/// The key store's header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub first_seq: u64,
    pub check_nonce: [u8; NONCE_BYTES],
    pub check: [u8; 32],
}

impl Header {
    fn new(master: &MasterKey, first_seq: u64) -> Result<Self, KeyStoreError> {
        let mut check_nonce = [0u8; NONCE_BYTES];
        getrandom::fill(&mut check_nonce).map_err(|e| KeyStoreError::Random(e.to_string()))?;
        let sealed = master.seal(&check_nonce, CHECK_LABEL, CHECK_BLOCK);
        let check: [u8; 32] = sealed
            .try_into()
            .map_err(|_| KeyStoreError::Random("the check block has the wrong size".to_owned()))?;
        Ok(Self {
            first_seq,
            check_nonce,
            check,
        })
    }

    /// The header's bytes.
    #[must_use]
    pub fn encode(&self) -> [u8; HEADER_BYTES] {
        let mut out = [0u8; HEADER_BYTES];
        let parts: [(usize, &[u8]); 6] = [
            (0, &KEY_STORE_MAGIC),
            (8, &KEY_STORE_VERSION.to_le_bytes()),
            (12, &0u32.to_le_bytes()),
            (16, &self.first_seq.to_le_bytes()),
            (24, &self.check_nonce),
            (48, &self.check),
        ];
        for (at, bytes) in parts {
            if let Some(place) = out.get_mut(at..at + bytes.len()) {
                place.copy_from_slice(bytes);
            }
        }
        let digest = blake3::hash(out.get(..HEADER_CHECKED_BYTES).unwrap_or_default());
        if let (Some(place), Some(check)) = (
            out.get_mut(HEADER_CHECKED_BYTES..),
            digest.as_bytes().get(..8),
        ) {
            place.copy_from_slice(check);
        }
        out
    }

    /// Parses a header (not yet checked against a master key).
    pub fn decode(bytes: &[u8]) -> Result<Self, HeaderProblem> {
        let header = bytes.get(..HEADER_BYTES).ok_or(HeaderProblem::Short)?;
        if header.get(..8) != Some(&KEY_STORE_MAGIC[..]) {
            return Err(HeaderProblem::BadMagic);
        }
        let digest = blake3::hash(header.get(..HEADER_CHECKED_BYTES).unwrap_or_default());
        if header.get(HEADER_CHECKED_BYTES..) != digest.as_bytes().get(..8) {
            return Err(HeaderProblem::BadCheck);
        }
        let array = |at: usize| -> Result<&[u8], HeaderProblem> {
            header.get(at..).ok_or(HeaderProblem::Short)
        };
        let version = u32::from_le_bytes(
            array(8)?
                .get(..4)
                .and_then(|b| b.try_into().ok())
                .ok_or(HeaderProblem::Short)?,
        );
        if version != KEY_STORE_VERSION {
            return Err(HeaderProblem::Version(version));
        }
        Ok(Self {
            first_seq: u64::from_le_bytes(
                array(16)?
                    .get(..8)
                    .and_then(|b| b.try_into().ok())
                    .ok_or(HeaderProblem::Short)?,
            ),
            check_nonce: array(24)?
                .get(..NONCE_BYTES)
                .and_then(|b| b.try_into().ok())
                .ok_or(HeaderProblem::Short)?,
            check: array(48)?
                .get(..32)
                .and_then(|b| b.try_into().ok())
                .ok_or(HeaderProblem::Short)?,
        })
    }

    fn opens_with(&self, master: &MasterKey) -> bool {
        master
            .open(&self.check_nonce, CHECK_LABEL, &self.check)
            .is_some_and(|block| block == CHECK_BLOCK)
    }
}

/// Why a header was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderProblem {
    /// Fewer bytes than a header.
    Short,
    /// Not a key store.
    BadMagic,
    /// The check bytes do not match.
    BadCheck,
    /// Another layout version.
    Version(u32),
}

/// The key store of one store folder, held by the process that writes the
/// log. Unwrapped keys are cached, so a key is unwrapped once per open.
#[derive(Debug)]
pub struct KeyStore {
    storage: Arc<dyn Storage>,
    file: Arc<dyn StorageFile>,
    master: MasterKey,
    first_seq: u64,
    /// Slots `first_seq..=reserved` are durable and may be used.
    reserved: u64,
    cache: BTreeMap<u64, SubjectKey>,
    /// The stretches of slots last read ahead, still wrapped, the latest
    /// last: each slot is unwrapped when its seq is asked for, not before
    /// (records without words need no key). Several, so that a replay in
    /// order and a reader jumping around do not evict each other's.
    /// Emptied by every write to a slot that may lie in one.
    read_ahead: Vec<ReadAhead>,
    poisoned: Option<String>,
}

/// How many stretches of read-ahead slots a key store keeps.
const READ_AHEAD_STRETCHES: usize = 4;

/// Consecutive slots as read from the file, from `first_seq` on.
#[derive(Debug, Default)]
struct ReadAhead {
    first_seq: u64,
    bytes: Vec<u8>,
}

impl ReadAhead {
    fn slot(&self, seq: u64) -> Option<&[u8]> {
        let at = usize::try_from(seq.checked_sub(self.first_seq)?).ok()?;
        self.bytes
            .get(at.checked_mul(SLOT_BYTES)?..at.checked_add(1)?.checked_mul(SLOT_BYTES)?)
    }
}

impl KeyStore {
    /// Creates the key store in `storage`, its slot 0 for `first_seq` (1 for
    /// a new store; the seq after the last plaintext frame for a store
    /// whose log began before encryption). Fails if the file exists.
    pub fn create(
        storage: Arc<dyn Storage>,
        master: MasterKey,
        first_seq: u64,
    ) -> Result<Self, KeyStoreError> {
        let first_seq = first_seq.max(1);
        let place = place(&*storage);
        let io = |op: &'static str| {
            let place = place.clone();
            move |e| IoFailure::new(op, place, e)
        };
        let header = Header::new(&master, first_seq)?;
        let file = storage
            .create(KEY_STORE_FILE_NAME)
            .map_err(io("creating key store"))?;
        file.write_all_at(&header.encode(), 0)
            .map_err(io("writing key store header"))?;
        file.sync_data().map_err(io("syncing key store"))?;
        storage.sync_dir().map_err(io("syncing key store folder"))?;
        Ok(Self {
            storage,
            file,
            master,
            first_seq,
            reserved: first_seq - 1,
            cache: BTreeMap::new(),
            read_ahead: Vec::new(),
            poisoned: None,
        })
    }

    /// Creates the key store of an empty log (slot 0 for seq 1), first
    /// removing a file a crash left while creating it. Only for a log that
    /// holds no frame: nothing can be sealed with the keys it removes.
    pub fn create_anew(
        storage: Arc<dyn Storage>,
        master: MasterKey,
    ) -> Result<Self, KeyStoreError> {
        match storage.remove(KEY_STORE_FILE_NAME) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(IoFailure::new("removing torn key store", place(&*storage), e).into());
            }
        }
        Self::create(storage, master, 1)
    }

    /// Opens the key store for a log whose last seq is `log_last_seq`: the
    /// slots up to it are the log's; those after it were never used by a
    /// durable frame and will be written again by the next reserve.
    pub fn open(
        storage: Arc<dyn Storage>,
        master: MasterKey,
        log_last_seq: u64,
    ) -> Result<Self, KeyStoreError> {
        let place = place(&*storage);
        let file = match storage.open(KEY_STORE_FILE_NAME) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(KeyStoreError::Missing { place });
            }
            Err(e) => return Err(IoFailure::new("opening key store", place, e).into()),
        };
        let len = file
            .len()
            .map_err(|e| IoFailure::new("reading key store", place.clone(), e))?;
        let mut bytes = [0u8; HEADER_BYTES];
        if len < HEADER_BYTES as u64 {
            return Err(KeyStoreError::Damaged {
                place,
                reason: format!("{len} bytes, shorter than its header"),
            });
        }
        file.read_exact_at(&mut bytes, 0)
            .map_err(|e| IoFailure::new("reading key store", place.clone(), e))?;
        let header = Header::decode(&bytes).map_err(|problem| match problem {
            HeaderProblem::Version(found) if found > KEY_STORE_VERSION => {
                KeyStoreError::NewerVersion {
                    place: place.clone(),
                    found,
                }
            }
            other => KeyStoreError::Damaged {
                place: place.clone(),
                reason: format!("header: {other:?}"),
            },
        })?;
        if header.first_seq == 0 {
            return Err(KeyStoreError::Damaged {
                place,
                reason: "header names first seq 0".to_owned(),
            });
        }
        if !header.opens_with(&master) {
            return Err(KeyStoreError::WrongMasterKey { place });
        }
        let first_seq = header.first_seq;
        Ok(Self {
            storage,
            file,
            master,
            first_seq,
            reserved: log_last_seq.max(first_seq - 1),
            cache: BTreeMap::new(),
            read_ahead: Vec::new(),
            poisoned: None,
        })
    }

    /// The seq of slot 0.
    #[must_use]
    pub fn first_seq(&self) -> u64 {
        self.first_seq
    }

    /// The last seq whose key is durable and may be used.
    #[must_use]
    pub fn reserved(&self) -> u64 {
        self.reserved
    }

    fn check_poisoned(&self) -> Result<(), KeyStoreError> {
        match &self.poisoned {
            Some(cause) => Err(KeyStoreError::Poisoned {
                cause: cause.clone(),
            }),
            None => Ok(()),
        }
    }

    fn fail(&mut self, op: &'static str, e: std::io::Error) -> KeyStoreError {
        let failure = IoFailure::new(op, place(&*self.storage), e);
        self.poisoned = Some(failure.to_string());
        failure.into()
    }

    /// Makes sure the keys of every seq up to `upto_seq` are durable: when
    /// one is missing, writes fresh keys up to `upto_seq` plus the reserve
    /// ahead (`RESERVE_AHEAD_SEQS` to `RESERVE_AHEAD_SEQS_MAX`, growing with
    /// the store) and fsyncs once. Call before appending a frame that uses
    /// them.
    pub fn reserve(&mut self, upto_seq: u64) -> Result<(), KeyStoreError> {
        self.check_poisoned()?;
        if upto_seq <= self.reserved {
            return Ok(());
        }
        if upto_seq - self.reserved > RESERVE_SEQS_MAX {
            return Err(KeyStoreError::ReserveTooFar {
                upto_seq,
                reserved: self.reserved,
            });
        }
        let from = self.reserved + 1;
        let to = upto_seq.saturating_add(self.ahead());
        let n_slots = usize::try_from(to - from + 1).unwrap_or(usize::MAX);
        let mut bytes = Vec::with_capacity(n_slots.saturating_mul(SLOT_BYTES));
        let mut fresh = Vec::with_capacity(n_slots);
        // Every key and nonce of the batch from one draw of the system's
        // random source (one call, not two per seq).
        let mut random = vec![0u8; n_slots.saturating_mul(DATA_KEY_BYTES + NONCE_BYTES)];
        getrandom::fill(&mut random).map_err(|e| KeyStoreError::Random(e.to_string()))?;
        for (seq, drawn) in (from..=to).zip(random.chunks_exact(DATA_KEY_BYTES + NONCE_BYTES)) {
            let (key_bytes, nonce) = drawn.split_at(DATA_KEY_BYTES);
            let key = DataKey::from_bytes(
                key_bytes
                    .try_into()
                    .map_err(|_| KeyStoreError::Random("short draw".to_owned()))?,
            );
            let nonce: [u8; NONCE_BYTES] = nonce
                .try_into()
                .map_err(|_| KeyStoreError::Random("short draw".to_owned()))?;
            bytes.extend_from_slice(
                &Slot::wrap_with_nonce(&self.master, seq, &key, nonce)?.encode(),
            );
            fresh.push((seq, key));
        }
        let offset = self.offset_of(from);
        if let Err(e) = self.file.write_all_at(&bytes, offset) {
            return Err(self.fail("writing key store slots", e));
        }
        if let Err(e) = self.file.sync_data() {
            return Err(self.fail("syncing key store", e));
        }
        // Bounded: the keys about to be used stay; older ones are in the
        // file, read again when asked for.
        if self.cache.len() + fresh.len() > CACHED_KEYS_MAX {
            self.cache.clear();
        }
        for (seq, key) in fresh {
            self.cache.insert(seq, SubjectKey::Live(key));
        }
        self.reserved = to;
        Ok(())
    }

    /// How far past the seq asked for the next reserve writes keys.
    fn ahead(&self) -> u64 {
        let held = self.reserved.saturating_sub(self.first_seq) + 1;
        (held / RESERVE_AHEAD_DIVISOR).clamp(RESERVE_AHEAD_SEQS, RESERVE_AHEAD_SEQS_MAX)
    }

    fn offset_of(&self, seq: u64) -> u64 {
        HEADER_BYTES as u64 + (seq - self.first_seq) * SLOT_BYTES as u64
    }

    /// The key of subject `seq`: live, or destroyed by a purge.
    pub fn key(&mut self, seq: u64) -> Result<SubjectKey, KeyStoreError> {
        if let Some(key) = self.cache.get(&seq) {
            return Ok(key.clone());
        }
        if seq < self.first_seq || seq > self.reserved {
            return Err(KeyStoreError::NoSlot {
                seq,
                first_seq: self.first_seq,
                last_seq: self.reserved,
            });
        }
        // Bounded: every cached key is in the file too.
        if self.cache.len() >= CACHED_KEYS_MAX {
            self.cache.clear();
        }
        if !self
            .read_ahead
            .iter()
            .any(|stretch| stretch.slot(seq).is_some())
        {
            let stretch = self.read_slots(seq)?;
            if self.read_ahead.len() >= READ_AHEAD_STRETCHES {
                self.read_ahead.remove(0);
            }
            self.read_ahead.push(stretch);
        }
        let bytes = self
            .read_ahead
            .iter()
            .find_map(|stretch| stretch.slot(seq))
            .ok_or(KeyStoreError::SlotDamaged { seq })?;
        let slot = Slot::decode(bytes).map_err(|_| KeyStoreError::SlotDamaged { seq })?;
        let key = slot.unwrap_key(&self.master, seq)?;
        self.cache.insert(seq, key.clone());
        Ok(key)
    }

    /// The slots from `seq` on as they lie: up to [`READ_AHEAD_SLOTS`] of
    /// them in one read (a replay asks in order), or `seq`'s alone when
    /// the file is shorter (damage past it).
    fn read_slots(&self, seq: u64) -> Result<ReadAhead, KeyStoreError> {
        let ahead = (self.reserved - seq).min(READ_AHEAD_SLOTS - 1);
        let n_slots = usize::try_from(ahead + 1).unwrap_or(1);
        let mut bytes = vec![0u8; n_slots * SLOT_BYTES];
        if self
            .file
            .read_exact_at(&mut bytes, self.offset_of(seq))
            .is_ok()
        {
            return Ok(ReadAhead {
                first_seq: seq,
                bytes,
            });
        }
        bytes = vec![0u8; SLOT_BYTES];
        match self.file.read_exact_at(&mut bytes, self.offset_of(seq)) {
            Ok(()) => Ok(ReadAhead {
                first_seq: seq,
                bytes,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(KeyStoreError::NoSlot {
                seq,
                first_seq: self.first_seq,
                last_seq: self.reserved,
            }),
            Err(e) => Err(IoFailure::new("reading key store", place(&*self.storage), e).into()),
        }
    }

    /// Destroys the keys of `seqs`: each slot overwritten with zeros where
    /// it lies, then one fsync. Destroying a destroyed or damaged slot is
    /// allowed (a purge's recovery finishing a torn destroy). Once this
    /// returns, the words sealed with those keys cannot be read back.
    pub fn destroy(&mut self, seqs: &[u64]) -> Result<(), KeyStoreError> {
        self.check_poisoned()?;
        if seqs.len() > DESTROY_SLOTS_MAX {
            return Err(KeyStoreError::TooManySlots { count: seqs.len() });
        }
        if let Some(&seq) = seqs
            .iter()
            .find(|&&seq| seq < self.first_seq || seq > self.reserved)
        {
            return Err(KeyStoreError::NoSlot {
                seq,
                first_seq: self.first_seq,
                last_seq: self.reserved,
            });
        }
        self.read_ahead.clear();
        let zeros = [0u8; SLOT_BYTES];
        for &seq in seqs {
            let offset = self.offset_of(seq);
            if let Err(e) = self.file.write_all_at(&zeros, offset) {
                return Err(self.fail("destroying keys in key store", e));
            }
            self.cache.insert(seq, SubjectKey::Destroyed);
        }
        if let Err(e) = self.file.sync_data() {
            return Err(self.fail("syncing key store", e));
        }
        Ok(())
    }

    /// Sets the keys of seqs the log does not hold yet, each given key
    /// wrapped into its slot (`None`: destroyed), then one fsync: for an
    /// import that restores words sealed elsewhere under their own keys.
    /// Slots up to the highest seq are reserved first.
    pub fn install(&mut self, entries: &[(u64, Option<DataKey>)]) -> Result<(), KeyStoreError> {
        self.check_poisoned()?;
        let Some(upto) = entries.iter().map(|&(seq, _)| seq).max() else {
            return Ok(());
        };
        if let Some(&(seq, _)) = entries.iter().find(|&&(seq, _)| seq < self.first_seq) {
            return Err(KeyStoreError::NoSlot {
                seq,
                first_seq: self.first_seq,
                last_seq: self.reserved,
            });
        }
        self.reserve(upto)?;
        self.read_ahead.clear();
        for (seq, key) in entries {
            let bytes = match key {
                Some(key) => Slot::wrap(&self.master, *seq, key)?.encode(),
                None => [0u8; SLOT_BYTES],
            };
            if let Err(e) = self.file.write_all_at(&bytes, self.offset_of(*seq)) {
                return Err(self.fail("installing keys in key store", e));
            }
            let state = key.clone().map_or(SubjectKey::Destroyed, SubjectKey::Live);
            self.cache.insert(*seq, state);
        }
        if let Err(e) = self.file.sync_data() {
            return Err(self.fail("syncing key store", e));
        }
        Ok(())
    }

    /// The slots of `seqs` as they lie (wrapped by the master key): what an
    /// export carries so that a restore under the same master key reads the
    /// same words.
    pub fn wrapped(&mut self, seq: u64) -> Result<Slot, KeyStoreError> {
        if seq < self.first_seq || seq > self.reserved {
            return Err(KeyStoreError::NoSlot {
                seq,
                first_seq: self.first_seq,
                last_seq: self.reserved,
            });
        }
        let mut bytes = [0u8; SLOT_BYTES];
        self.file
            .read_exact_at(&mut bytes, self.offset_of(seq))
            .map_err(|e| IoFailure::new("reading key store", place(&*self.storage), e))?;
        Slot::decode(&bytes).map_err(|_| KeyStoreError::SlotDamaged { seq })
    }
}

fn place(storage: &dyn Storage) -> String {
    format!("{}/{KEY_STORE_FILE_NAME}", storage.describe())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{FaultyStorage, MemStorage, Tear};
    use proptest::prelude::*;

    const MASTER: [u8; 32] = [5; 32];

    fn master() -> MasterKey {
        MasterKey::from_bytes(MASTER)
    }

    proptest! {
        #[test]
        fn slots_round_trip(seq in 1u64..u64::MAX, key in any::<[u8; 32]>(), nonce in any::<[u8; 24]>()) {
            let data_key = DataKey::from_bytes(key);
            let slot = Slot::wrap_with_nonce(&master(), seq, &data_key, nonce).unwrap();
            let bytes = slot.encode();
            prop_assert!(!bytes.windows(32).any(|w| w == key));
            let back = Slot::decode(&bytes).unwrap();
            prop_assert_eq!(&back, &slot);
            prop_assert_eq!(back.unwrap_key(&master(), seq).unwrap(), SubjectKey::Live(data_key));
            // Swapped to another seq, or under another master key: damaged.
            prop_assert!(matches!(back.unwrap_key(&master(), seq - 1), Err(KeyStoreError::SlotDamaged { .. })), "refused");
            prop_assert!(matches!(back.unwrap_key(&MasterKey::from_bytes([6; 32]), seq), Err(KeyStoreError::SlotDamaged { .. })), "refused");
        }

        #[test]
        fn any_slot_bytes_decode_or_refuse(bytes in proptest::collection::vec(any::<u8>(), SLOT_BYTES)) {
            match Slot::decode(&bytes) {
                Ok(slot) => prop_assert_eq!(slot.encode().to_vec(), bytes),
                Err(_) => prop_assert!(bytes.get(WRAPPED_BYTES..).is_some_and(|t| t.iter().any(|&b| b != 0))),
            }
        }

        #[test]
        fn headers_round_trip(first_seq in 1u64..u64::MAX / 2, flip in 0usize..HEADER_BYTES * 8) {
            let header = Header::new(&master(), first_seq).unwrap();
            let bytes = header.encode();
            prop_assert_eq!(Header::decode(&bytes).unwrap(), header.clone());
            prop_assert!(header.opens_with(&master()));
            let mut flipped = bytes;
            if let Some(b) = flipped.get_mut(flip / 8) { *b ^= 1 << (flip % 8); }
            prop_assert!(Header::decode(&flipped).is_err());
        }
    }

    #[test]
    fn a_slot_torn_into_zeros_half_way_is_damaged_not_destroyed() {
        let slot = Slot::wrap(&master(), 7, &DataKey::from_bytes([1; 32])).unwrap();
        let mut bytes = slot.encode();
        bytes.get_mut(..40).unwrap().fill(0);
        let torn = Slot::decode(&bytes).unwrap();
        assert!(matches!(
            torn.unwrap_key(&master(), 7),
            Err(KeyStoreError::SlotDamaged { seq: 7 })
        ));
    }

    #[test]
    fn the_reserve_ahead_grows_with_the_store_and_is_capped() {
        let storage: Arc<dyn Storage> = Arc::new(MemStorage::new());
        let mut store = KeyStore::create(storage.clone(), master(), 1).unwrap();
        store.reserve(3).unwrap();
        assert_eq!(store.reserved(), 3 + RESERVE_AHEAD_SEQS);
        // The ahead is taken from what the store held before the reserve.
        store.reserve(40_000).unwrap();
        assert_eq!(store.reserved(), 40_000 + RESERVE_AHEAD_SEQS);
        // A store of 41,024 subjects reserves an eighth of itself ahead.
        let held = store.reserved();
        store.reserve(held + 1).unwrap();
        assert_eq!(store.reserved(), held + 1 + held / RESERVE_AHEAD_DIVISOR);
        // Past 8 x the cap, the cap.
        let mut upto = store.reserved();
        while upto < 8 * RESERVE_AHEAD_SEQS_MAX + 1 {
            upto = store.reserved() + 1;
            store.reserve(upto).unwrap();
        }
        assert_eq!(store.reserved() - upto, RESERVE_AHEAD_SEQS_MAX);
        // Every reserved key unwraps, after reopen too.
        let last = store.reserved();
        let mut again = KeyStore::open(storage, master(), last).unwrap();
        for seq in [1, 40_000, last - 1, last] {
            assert!(
                matches!(again.key(seq), Ok(SubjectKey::Live(_))),
                "seq {seq}"
            );
        }
    }

    #[test]
    fn a_key_destroyed_inside_a_read_ahead_stays_destroyed_after_the_cache_starts_over() {
        let storage: Arc<dyn Storage> = Arc::new(MemStorage::new());
        let mut store = KeyStore::create(storage.clone(), master(), 1).unwrap();
        store.reserve(1000).unwrap();
        let mut store = KeyStore::open(storage, master(), 1000).unwrap();
        // Read ahead from 1: seqs 2..=256 lie in memory, still wrapped.
        assert!(matches!(store.key(1), Ok(SubjectKey::Live(_))));
        let SubjectKey::Live(before) = store.key(5).unwrap() else {
            panic!("seq 5 is live");
        };
        store.destroy(&[3]).unwrap();
        // A reserve of more fresh keys than the cache holds starts it over.
        store.reserve(1000 + CACHED_KEYS_MAX as u64).unwrap();
        assert!(!store.cache.contains_key(&3), "the cache started over");
        assert!(matches!(store.key(3), Ok(SubjectKey::Destroyed)));
        assert!(matches!(store.key(5), Ok(SubjectKey::Live(k)) if k == before));
    }

    #[test]
    fn keys_survive_reopen_and_destroyed_ones_stay_destroyed() {
        let storage: Arc<dyn Storage> = Arc::new(MemStorage::new());
        let mut store = KeyStore::create(storage.clone(), master(), 1).unwrap();
        store.reserve(3).unwrap();
        assert_eq!(store.reserved(), 3 + RESERVE_AHEAD_SEQS);
        let keys: Vec<_> = (1..=3).map(|s| store.key(s).unwrap()).collect();
        store.destroy(&[2]).unwrap();
        drop(store);
        let mut again = KeyStore::open(storage, master(), 3).unwrap();
        assert_eq!(again.key(1).unwrap(), keys[0]);
        assert_eq!(again.key(2).unwrap(), SubjectKey::Destroyed);
        assert_eq!(again.key(3).unwrap(), keys[2]);
        // Past the log's end nothing is trusted until the next reserve.
        assert!(matches!(
            again.key(4),
            Err(KeyStoreError::NoSlot { seq: 4, .. })
        ));
        assert!(matches!(
            again.destroy(&[9]),
            Err(KeyStoreError::NoSlot { seq: 9, .. })
        ));
    }

    #[test]
    fn a_wrong_master_key_is_told_at_open() {
        let storage: Arc<dyn Storage> = Arc::new(MemStorage::new());
        KeyStore::create(storage.clone(), master(), 1)
            .unwrap()
            .reserve(1)
            .unwrap();
        let err = KeyStore::open(storage, MasterKey::from_bytes([6; 32]), 1).unwrap_err();
        assert!(matches!(err, KeyStoreError::WrongMasterKey { .. }), "{err}");
        assert!(err.to_string().contains(MASTER_KEY_ENV), "{err}");
    }

    #[test]
    fn a_missing_or_damaged_key_store_says_so() {
        let storage: Arc<dyn Storage> = Arc::new(MemStorage::new());
        let err = KeyStore::open(storage.clone(), master(), 1).unwrap_err();
        assert!(matches!(err, KeyStoreError::Missing { .. }), "{err}");
        let file = storage.create(KEY_STORE_FILE_NAME).unwrap();
        file.write_all_at(&[1u8; 40], 0).unwrap();
        let err = KeyStore::open(storage.clone(), master(), 1).unwrap_err();
        assert!(matches!(err, KeyStoreError::Damaged { .. }), "{err}");
        file.write_all_at(&[1u8; HEADER_BYTES], 0).unwrap();
        let err = KeyStore::open(storage, master(), 1).unwrap_err();
        assert!(matches!(err, KeyStoreError::Damaged { .. }), "{err}");
    }

    #[test]
    fn master_key_files_are_private_and_never_overwritten() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let err = MasterKeySource::StoreFile
            .load(dir.path(), false)
            .unwrap_err();
        assert!(
            matches!(err, KeyStoreError::MasterKeyMissing { .. }),
            "{err}"
        );
        let key = MasterKeySource::StoreFile.load(dir.path(), true).unwrap();
        let path = dir.path().join(MASTER_KEY_FILE_NAME);
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(
            MasterKeySource::StoreFile.load(dir.path(), true).unwrap(),
            key
        );
        assert!(matches!(
            MasterKeySource::Hex("abcd".into()).load(dir.path(), false),
            Err(KeyStoreError::MalformedMasterKey { .. })
        ));
    }

    /// A crash at every sync point of a reserve: the slots the log already
    /// uses are untouched, and the fresh ones are either all durable (the
    /// reserve returned) or written again by the next reserve.
    #[test]
    fn a_crash_during_reserve_never_touches_the_keys_in_use() {
        for tear in [
            Tear::LoseUnsynced,
            Tear::KeepPrefix(200),
            Tear::Garbage(300),
        ] {
            let faulty = FaultyStorage::new();
            let storage: Arc<dyn Storage> = Arc::new(faulty.clone());
            let mut store = KeyStore::create(storage, master(), 1).unwrap();
            store.reserve(5).unwrap();
            let in_use: Vec<_> = (1..=5).map(|s| store.key(s).unwrap()).collect();
            // The log ends at 5 + RESERVE_AHEAD_SEQS; the next reserve crashes.
            let log_end = store.reserved();
            faulty.crash_at_sync(1);
            assert!(store.reserve(log_end + 1).is_err());
            assert!(matches!(
                store.reserve(log_end + 1),
                Err(KeyStoreError::Poisoned { .. })
            ));
            let image: Arc<dyn Storage> = Arc::new(faulty.crash_image(tear));
            let mut reopened = KeyStore::open(image, master(), log_end).unwrap();
            for (seq, key) in (1..=5).zip(&in_use) {
                assert_eq!(&reopened.key(seq).unwrap(), key, "{tear:?}");
            }
            assert!(reopened.key(log_end + 1).is_err());
            reopened.reserve(log_end + 1).unwrap();
            assert!(matches!(reopened.key(log_end + 1), Ok(SubjectKey::Live(_))));
        }
    }

    /// A crash at the sync of a destroy: each slot is live, destroyed, or
    /// damaged (torn); destroying again (the purge's recovery) leaves every
    /// one destroyed, and the others untouched.
    #[test]
    fn a_crash_during_destroy_is_finished_by_destroying_again() {
        for tear in [
            Tear::LoseUnsynced,
            Tear::KeepPrefix(1),
            Tear::KeepPrefix(64),
            Tear::KeepPrefix(200),
            Tear::Garbage(100),
        ] {
            let faulty = FaultyStorage::new();
            let storage: Arc<dyn Storage> = Arc::new(faulty.clone());
            let mut store = KeyStore::create(storage, master(), 1).unwrap();
            store.reserve(10).unwrap();
            let kept = store.key(9).unwrap();
            faulty.crash_at_sync(1);
            assert!(store.destroy(&[2, 3, 4]).is_err());
            let image = faulty.crash_image(tear);
            let storage: Arc<dyn Storage> = Arc::new(image.clone());
            let mut reopened = KeyStore::open(storage.clone(), master(), 10).unwrap();
            for seq in [2, 3, 4] {
                match reopened.key(seq) {
                    Ok(SubjectKey::Live(_) | SubjectKey::Destroyed)
                    | Err(KeyStoreError::SlotDamaged { .. }) => {}
                    other => panic!("{tear:?}: seq {seq}: {other:?}"),
                }
            }
            reopened.destroy(&[2, 3, 4]).unwrap();
            let mut after = KeyStore::open(storage, master(), 10).unwrap();
            for seq in [2, 3, 4] {
                assert_eq!(after.key(seq).unwrap(), SubjectKey::Destroyed, "{tear:?}");
            }
            assert_eq!(after.key(9).unwrap(), kept, "{tear:?}");
            // The destroyed slots hold nothing but zeros.
            let bytes = image.written_bytes(KEY_STORE_FILE_NAME).unwrap();
            let slots = bytes
                .get(HEADER_BYTES + SLOT_BYTES..HEADER_BYTES + 4 * SLOT_BYTES)
                .unwrap();
            assert!(slots.iter().all(|&b| b == 0), "{tear:?}");
        }
    }

    /// A model of the key store under random reserves, destroys, crashes
    /// and reopens: after each step every seq up to the log's end reads as
    /// the model says (the key it was given, or destroyed), whatever the
    /// crashes tore.
    #[test]
    fn random_operations_match_a_model() {
        use rand::{Rng as _, SeedableRng as _};
        for seed in 0..12u64 {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let mut faulty = FaultyStorage::new();
            let mut store = KeyStore::create(Arc::new(faulty.clone()), master(), 1).unwrap();
            // The log's durable end, and what each of its seqs must read as.
            let mut log_end = 0u64;
            let mut model: BTreeMap<u64, SubjectKey> = BTreeMap::new();
            for step in 0..60 {
                match rng.random_range(0..10) {
                    // Appends: reserve, then the log takes the seqs.
                    0..=4 => {
                        let upto = log_end + rng.random_range(1..=700);
                        store.reserve(upto).unwrap();
                        for seq in log_end + 1..=upto {
                            model.insert(seq, store.key(seq).unwrap());
                        }
                        log_end = upto;
                    }
                    // A purge of a few seqs the log holds.
                    5 | 6 if log_end > 0 => {
                        let seqs: Vec<u64> = (0..rng.random_range(1..5))
                            .map(|_| rng.random_range(1..=log_end))
                            .collect();
                        store.destroy(&seqs).unwrap();
                        for seq in seqs {
                            model.insert(seq, SubjectKey::Destroyed);
                        }
                    }
                    // A crash during a reserve the log never used.
                    7 => {
                        faulty.crash_at_sync(1);
                        assert!(
                            store
                                .reserve(store.reserved() + 1 + rng.random_range(0..2000))
                                .is_err()
                        );
                        let tear = match rng.random_range(0..3) {
                            0 => Tear::LoseUnsynced,
                            1 => Tear::KeepPrefix(rng.random_range(0..5000)),
                            _ => Tear::Garbage(rng.random_range(0..500)),
                        };
                        faulty = faulty.crash_image(tear);
                        store =
                            KeyStore::open(Arc::new(faulty.clone()), master(), log_end).unwrap();
                    }
                    // A clean reopen.
                    _ => {
                        drop(store);
                        store =
                            KeyStore::open(Arc::new(faulty.clone()), master(), log_end).unwrap();
                    }
                }
                for (&seq, expected) in &model {
                    assert_eq!(
                        &store.key(seq).unwrap(),
                        expected,
                        "seed {seed} step {step} seq {seq}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_failed_create_sync_leaves_no_usable_store() {
        let faulty = FaultyStorage::new();
        faulty.crash_at_sync(1);
        let storage: Arc<dyn Storage> = Arc::new(faulty.clone());
        assert!(KeyStore::create(storage, master(), 1).is_err());
        let image: Arc<dyn Storage> = Arc::new(faulty.crash_image(Tear::LoseUnsynced));
        assert!(matches!(
            KeyStore::open(image, master(), 0),
            Err(KeyStoreError::Missing { .. } | KeyStoreError::Damaged { .. })
        ));
    }
}

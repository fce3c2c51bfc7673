//! Store folders: where a store lives, and opening its log with the right key.
//!
//! A store is a folder holding `log/` (segment files) and `hmac.key` (mode
//! 0600). Which store a command uses (the user store or a project's, under
//! the engram home) is decided in [`crate::scope`]. The key comes from `ENGRAM_HMAC_KEY` (hex), a key file given
//! by the caller, or the store's own `hmac.key`, which is created only while
//! the log is still empty: a store with a log and no key is an error, never
//! a fresh key that would make every frame fail its HMAC.

use std::path::{Path, PathBuf};

use std::sync::Arc;

use engram_log::keystore::KEY_STORE_FILE_NAME;
use engram_log::{
    Durability, FileStorage, HmacKey, KeyError, KeySource, KeyStoreConfig, KeyStoreError, Log,
    LogConfig, LogReader, MasterKeySource, OpenError, SubjectKeys, limits::SEGMENT_BYTES_DEFAULT,
};

/// The environment variable that, set to `0` (or `false`), makes new
/// stores keep their words in the clear (format v1: no key store, no
/// purge). By default a new store seals its words per subject.
pub const SEAL_ENV: &str = "ENGRAM_SEAL";

/// Name of the log folder inside a store.
pub const LOG_DIR_NAME: &str = "log";

/// Name of the views database (derived state: deleting it loses nothing).
pub const VIEWS_FILE_NAME: &str = "views.redb";

/// The file that marks a store as a replica of a sealed shared log (it
/// holds the log's `database.schema`, nothing secret): its frames' words
/// are sealed under the team's key store on PostgreSQL, not a
/// `keys.engram` beside them, so a read-only open without the shared log
/// (`--log`) opens no words and is not refused as a store that lost its
/// key store.
pub const SHARED_LOG_MARK_FILE_NAME: &str = "shared-log";

/// Errors of opening a store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    #[error("{path} exists and is not a folder: pass a store folder")]
    NotAFolder { path: PathBuf },
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error(transparent)]
    Open(#[from] OpenError),
    #[error(transparent)]
    Keys(#[from] KeyStoreError),
    #[error("opening store folder {path}: {source}")]
    OpenFolder {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("creating store folder {path}: {source}")]
    Create {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// How to open a store's log.
#[derive(Debug, Clone)]
pub struct StoreOptions {
    pub key: KeySource,
    pub durability: Durability,
    pub segment_bytes_max: u64,
    /// A shared log (`postgres://...`) this store replicates: appends go
    /// there, and the store's own log is a verified copy the views fold.
    pub shared_log: Option<String>,
    /// Where the master key that wraps the store's data keys comes from.
    pub master_key: MasterKeySource,
    /// Whether a store created now seals its words (a key store beside
    /// the log). A store that has a key store is always opened with it; a
    /// store written without one (format v1) stays in the clear.
    pub seal_new_stores: bool,
}

impl Default for StoreOptions {
    /// `ENGRAM_HMAC_KEY` if set, else the store's key file; `Sync`; 64 MiB segments.
    fn default() -> Self {
        Self {
            key: KeySource::from_env_or(KeySource::StoreFile),
            durability: Durability::Sync,
            segment_bytes_max: SEGMENT_BYTES_DEFAULT,
            shared_log: None,
            master_key: MasterKeySource::from_env_or(MasterKeySource::StoreFile),
            seal_new_stores: !std::env::var(SEAL_ENV)
                .is_ok_and(|v| matches!(v.trim(), "0" | "false" | "no")),
        }
    }
}

/// A store folder.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// The store at `dir` (nothing is touched yet).
    #[must_use]
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The store folder.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The log folder.
    #[must_use]
    pub fn log_dir(&self) -> PathBuf {
        self.dir.join(LOG_DIR_NAME)
    }

    /// The views database (redb), rebuilt from the log when missing.
    #[must_use]
    pub fn views_path(&self) -> PathBuf {
        self.dir.join(VIEWS_FILE_NAME)
    }

    /// Whether the store holds any segment yet.
    #[must_use]
    pub fn has_log(&self) -> bool {
        std::fs::read_dir(self.log_dir()).is_ok_and(|mut entries| entries.next().is_some())
    }

    /// The key, created in the store only if it has no log yet.
    pub fn key(&self, source: &KeySource, may_create: bool) -> Result<HmacKey, StoreError> {
        Ok(source.load(&self.dir, may_create && !self.has_log())?)
    }

    /// Creates the store folder (0700) unless it exists.
    pub fn create_dir(&self) -> Result<(), StoreError> {
        if self.dir.exists() && !self.dir.is_dir() {
            return Err(StoreError::NotAFolder {
                path: self.dir.clone(),
            });
        }
        engram_log::storage::create_private_dir_all(&self.dir).map_err(|source| {
            StoreError::Create {
                path: self.dir.clone(),
                source,
            }
        })
    }

    /// Opens the log for writing, creating the store on first use.
    pub fn open_log(&self, options: &StoreOptions) -> Result<Log, StoreError> {
        self.open_log_with(options, None)
    }

    /// [`Store::open_log`] for a replica of a shared log: with
    /// `remote_keys` (a sealed shared log's key store) the log opens its
    /// frames' words with them and keeps no key store of its own, and the
    /// store is marked as such a replica ([`SHARED_LOG_MARK_FILE_NAME`],
    /// holding `location`).
    pub fn open_log_with(
        &self,
        options: &StoreOptions,
        remote_keys: Option<(Arc<dyn SubjectKeys>, &str)>,
    ) -> Result<Log, StoreError> {
        self.create_dir()?;
        let key = self.key(&options.key, true)?;
        let mut config = LogConfig::new(key)
            .durability(options.durability)
            .segment_bytes_max(options.segment_bytes_max);
        match remote_keys {
            Some((keys, location)) => {
                // Marked when its copy begins: a store that already has a
                // log of its own (its own key store, or frames in the
                // clear) is no copy of a sealed shared log, which its
                // continuity check then refuses.
                if !self.has_log() {
                    self.mark_shared_log(location)?;
                }
                config = config.remote_keys(keys);
            }
            None => config.keys = self.key_store(options, true)?,
        }
        Ok(Log::open_dir(&self.log_dir(), config)?)
    }

    /// Whether the store replicates a sealed shared log (marked, and no key
    /// store of its own).
    #[must_use]
    pub fn is_shared_log_replica(&self) -> bool {
        self.dir.join(SHARED_LOG_MARK_FILE_NAME).exists() && !self.is_sealed()
    }

    /// Writes the replica mark once (created, synced, the folder synced).
    fn mark_shared_log(&self, location: &str) -> Result<(), StoreError> {
        let path = self.dir.join(SHARED_LOG_MARK_FILE_NAME);
        if path.exists() {
            return Ok(());
        }
        let failed = |source: std::io::Error| StoreError::Create {
            path: path.clone(),
            source,
        };
        let mut file = engram_log::storage::create_private_file(&path, false).map_err(failed)?;
        std::io::Write::write_all(&mut file, format!("{location}\n").as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(failed)?;
        std::fs::File::open(&self.dir)
            .and_then(|dir| dir.sync_all())
            .map_err(failed)
    }

    /// Whether the store has a key store: its words are sealed.
    #[must_use]
    pub fn is_sealed(&self) -> bool {
        self.dir.join(KEY_STORE_FILE_NAME).exists()
    }

    /// The key store to open the log with: the store's own when it has
    /// one; a new one for a new store when `options` seal new stores (not
    /// for a replica of a shared log, whose frames are the shared log's);
    /// none for a store written in the clear.
    pub(crate) fn key_store(
        &self,
        options: &StoreOptions,
        may_create: bool,
    ) -> Result<Option<KeyStoreConfig>, StoreError> {
        let create = may_create
            && options.seal_new_stores
            && options.shared_log.is_none()
            && !self.has_log();
        if !self.is_sealed() && !create {
            // A log written sealed whose key store is gone: refused, not
            // read as a log in the clear (`verify` still checks it). A
            // replica of a sealed shared log has none: its keys are the
            // team's, reached through the shared log.
            if engram_log::format::dir_holds_sealed_frames(&self.log_dir())
                && !self.is_shared_log_replica()
            {
                return Err(KeyStoreError::Missing {
                    place: self.dir.join(KEY_STORE_FILE_NAME).display().to_string(),
                }
                .into());
            }
            return Ok(None);
        }
        let master = options.master_key.load(&self.dir, create)?;
        let storage = FileStorage::open(&self.dir).map_err(|source| StoreError::OpenFolder {
            path: self.dir.clone(),
            source,
        })?;
        Ok(Some(KeyStoreConfig {
            storage: Arc::new(storage),
            master,
        }))
    }

    /// Opens the log read-only; `None` when the store has no log yet.
    /// Nothing on disk is created or changed.
    pub fn open_reader(&self, key: &KeySource) -> Result<Option<LogReader>, StoreError> {
        if self.dir.exists() && !self.dir.is_dir() {
            return Err(StoreError::NotAFolder {
                path: self.dir.clone(),
            });
        }
        if !self.has_log() {
            return Ok(None);
        }
        let hmac = self.key(key, false)?;
        Ok(Some(self.open_reader_with_key(hmac)?))
    }

    /// Opens a replica's log read-only under `hmac`, its words opened with
    /// the sealed shared log's key store `keys`. Nothing on disk is
    /// created or changed.
    pub fn open_reader_with_remote_keys(
        &self,
        hmac: HmacKey,
        keys: Arc<dyn SubjectKeys>,
    ) -> Result<LogReader, StoreError> {
        Ok(LogReader::open_dir_with_remote_keys(
            &self.log_dir(),
            hmac,
            keys,
        )?)
    }

    /// Opens the log read-only under `hmac`, with the store's key store
    /// when it has one. Nothing on disk is created or changed.
    pub fn open_reader_with_key(&self, hmac: HmacKey) -> Result<LogReader, StoreError> {
        let keys = self.key_store(&StoreOptions::default(), false)?;
        Ok(LogReader::open_dir_with_keys(&self.log_dir(), hmac, keys)?)
    }
}

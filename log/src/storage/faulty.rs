//! A fault-injecting backend for crash tests.
//!
//! It keeps two images of every file: *written* (what reads see) and
//! *durable* (what survives a crash: the written bytes as of the file's last
//! `sync_data`). A file's name survives a crash only once `sync_dir` ran after
//! its creation. Faults: crash at the Nth sync (that sync fails and every later
//! call fails), a torn last write on the crash image, bit flips, and EIO on
//! the next write or sync.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::sync::Arc;

use parking_lot::Mutex;

use super::{Storage, StorageFile};

/// What happens to bytes written after a file's last sync when the machine
/// "crashes" ([`FaultyStorage::crash_image`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tear {
    /// Unsynced bytes are lost.
    LoseUnsynced,
    /// This many of the unsynced bytes (counted from the first byte that
    /// differs from the durable image, capped at what was written) reached
    /// the disk: a write cut short.
    KeepPrefix(usize),
    /// The unsynced bytes are lost and up to this many bytes of garbage
    /// (0xA5...) land where they were written, within the file's unsynced
    /// length: a sector written half-way, or a file that grew while its data
    /// never landed. Files synced since their last write keep their image.
    Garbage(usize),
}

#[derive(Debug, Default, Clone)]
struct Images {
    written: Vec<u8>,
    durable: Vec<u8>,
}

#[derive(Debug, Default)]
struct State {
    files: BTreeMap<String, Images>,
    durable_names: BTreeSet<String>,
    n_syncs: u64,
    crash_at_sync: Option<u64>,
    crashed: bool,
    eio_next_write: bool,
    eio_next_sync: bool,
}

impl State {
    fn check_alive(&self) -> io::Result<()> {
        if self.crashed {
            Err(io::Error::other("simulated crash: the machine is down"))
        } else {
            Ok(())
        }
    }
}

/// A fault-injecting folder. Clones share state.
#[derive(Debug, Clone, Default)]
pub struct FaultyStorage {
    state: Arc<Mutex<State>>,
}

impl FaultyStorage {
    /// An empty folder with no faults armed.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The `n`th sync from now (1 = the next one; file and folder syncs both
    /// count) fails and the storage "crashes": every later call fails.
    pub fn crash_at_sync(&self, n: u64) {
        let mut state = self.state.lock();
        state.crash_at_sync = Some(state.n_syncs + n.max(1));
    }

    /// Whether the simulated crash happened.
    #[must_use]
    pub fn crashed(&self) -> bool {
        self.state.lock().crashed
    }

    /// Syncs performed so far.
    #[must_use]
    pub fn n_syncs(&self) -> u64 {
        self.state.lock().n_syncs
    }

    /// The next write fails with EIO (nothing is written).
    pub fn fail_next_write(&self) {
        self.state.lock().eio_next_write = true;
    }

    /// The next sync fails with EIO (nothing becomes durable).
    pub fn fail_next_sync(&self) {
        self.state.lock().eio_next_sync = true;
    }

    /// Flips one bit in both images of a file (a media error).
    pub fn flip_bit(&self, name: &str, offset: usize, bit: u8) -> bool {
        let mut state = self.state.lock();
        let Some(images) = state.files.get_mut(name) else {
            return false;
        };
        let mut flipped = false;
        for image in [&mut images.written, &mut images.durable] {
            if let Some(byte) = image.get_mut(offset) {
                *byte ^= 1 << (bit % 8);
                flipped = true;
            }
        }
        flipped
    }

    /// The written bytes of a file.
    #[must_use]
    pub fn written_bytes(&self, name: &str) -> Option<Vec<u8>> {
        self.state.lock().files.get(name).map(|f| f.written.clone())
    }

    /// What a machine restarted after a crash would find: a new storage with
    /// no faults armed, holding each durable file's durable image, with the
    /// unsynced tail treated as `tear` says.
    #[must_use]
    pub fn crash_image(&self, tear: Tear) -> FaultyStorage {
        let state = self.state.lock();
        let mut files = BTreeMap::new();
        for name in &state.durable_names {
            let Some(images) = state.files.get(name) else {
                continue;
            };
            let bytes = torn_image(&images.durable, &images.written, tear);
            files.insert(
                name.clone(),
                Images {
                    written: bytes.clone(),
                    durable: bytes,
                },
            );
        }
        let durable_names = files.keys().cloned().collect();
        FaultyStorage {
            state: Arc::new(Mutex::new(State {
                files,
                durable_names,
                ..State::default()
            })),
        }
    }
}

/// The bytes a crash leaves of one file: its durable image, with the
/// unsynced change (everything from the first byte where the written image
/// differs) treated as `tear` says. A file whose images agree is whole.
fn torn_image(durable: &[u8], written: &[u8], tear: Tear) -> Vec<u8> {
    let mut bytes = durable.to_vec();
    let start = durable
        .iter()
        .zip(written)
        .position(|(d, w)| d != w)
        .unwrap_or(durable.len().min(written.len()));
    if durable.len() == written.len() && start == durable.len() {
        return bytes;
    }
    let (end, fill) = match tear {
        Tear::LoseUnsynced => return bytes,
        Tear::KeepPrefix(n) => ((start + n).min(written.len()), None),
        // Garbage lands where the unsynced write went, within the file's
        // unsynced length.
        Tear::Garbage(n) => (
            (start + n).min(written.len().max(durable.len())),
            Some(0xA5),
        ),
    };
    if bytes.len() < end {
        bytes.resize(end, 0);
    }
    for i in start..end {
        let byte = fill.or_else(|| written.get(i).copied()).unwrap_or(0);
        if let Some(slot) = bytes.get_mut(i) {
            *slot = byte;
        }
    }
    bytes
}

#[derive(Debug)]
struct FaultyFile {
    state: Arc<Mutex<State>>,
    name: String,
}

fn to_usize(n: u64) -> io::Result<usize> {
    usize::try_from(n).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "offset too large"))
}

fn eio() -> io::Error {
    io::Error::other("simulated EIO")
}

impl FaultyFile {
    fn with_images<T>(&self, f: impl FnOnce(&mut Images) -> io::Result<T>) -> io::Result<T> {
        let mut state = self.state.lock();
        state.check_alive()?;
        let images = state
            .files
            .get_mut(&self.name)
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
        f(images)
    }
}

impl StorageFile for FaultyFile {
    fn len(&self) -> io::Result<u64> {
        self.with_images(|images| Ok(images.written.len() as u64))
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.with_images(|images| {
            let start = to_usize(offset)?;
            let src = images
                .written
                .get(start..start + buf.len())
                .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
            buf.copy_from_slice(src);
            Ok(())
        })
    }

    fn write_all_at(&self, data: &[u8], offset: u64) -> io::Result<()> {
        {
            let mut state = self.state.lock();
            state.check_alive()?;
            if state.eio_next_write {
                state.eio_next_write = false;
                return Err(eio());
            }
        }
        self.with_images(|images| {
            let start = to_usize(offset)?;
            let end = start + data.len();
            if images.written.len() < end {
                images.written.resize(end, 0);
            }
            if let Some(dst) = images.written.get_mut(start..end) {
                dst.copy_from_slice(data);
            }
            Ok(())
        })
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.with_images(|images| {
            images.written.resize(to_usize(len)?, 0);
            Ok(())
        })
    }

    fn allocate(&self, len: u64) -> io::Result<()> {
        self.with_images(|images| {
            let len = to_usize(len)?;
            if images.written.len() < len {
                images.written.resize(len, 0);
            }
            Ok(())
        })
    }

    fn sync_data(&self) -> io::Result<()> {
        let mut state = self.state.lock();
        state.check_alive()?;
        sync_point(&mut state)?;
        let images = state
            .files
            .get_mut(&self.name)
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
        images.durable = images.written.clone();
        Ok(())
    }
}

/// Counts a sync and fires an armed crash or EIO.
fn sync_point(state: &mut State) -> io::Result<()> {
    state.n_syncs += 1;
    if state.crash_at_sync == Some(state.n_syncs) {
        state.crashed = true;
        return Err(io::Error::other("simulated crash during sync"));
    }
    if state.eio_next_sync {
        state.eio_next_sync = false;
        return Err(eio());
    }
    Ok(())
}

impl Storage for FaultyStorage {
    fn list(&self) -> io::Result<Vec<String>> {
        let state = self.state.lock();
        state.check_alive()?;
        Ok(state.files.keys().cloned().collect())
    }

    fn create(&self, name: &str) -> io::Result<Arc<dyn StorageFile>> {
        let mut state = self.state.lock();
        state.check_alive()?;
        if state.files.contains_key(name) {
            return Err(io::Error::from(io::ErrorKind::AlreadyExists));
        }
        state.files.insert(name.to_owned(), Images::default());
        Ok(Arc::new(FaultyFile {
            state: Arc::clone(&self.state),
            name: name.to_owned(),
        }))
    }

    fn open(&self, name: &str) -> io::Result<Arc<dyn StorageFile>> {
        let state = self.state.lock();
        state.check_alive()?;
        if !state.files.contains_key(name) {
            return Err(io::Error::from(io::ErrorKind::NotFound));
        }
        Ok(Arc::new(FaultyFile {
            state: Arc::clone(&self.state),
            name: name.to_owned(),
        }))
    }

    fn remove(&self, name: &str) -> io::Result<()> {
        let mut state = self.state.lock();
        state.check_alive()?;
        state.files.remove(name);
        state.durable_names.remove(name);
        Ok(())
    }

    fn replace(&self, name: &str, data: &[u8]) -> io::Result<()> {
        // One sync point: a crash there leaves the old file; after it, the
        // new bytes and the name are durable (write, fsync, rename, fsync
        // of the folder, as `FileStorage` does it).
        let mut state = self.state.lock();
        state.check_alive()?;
        sync_point(&mut state)?;
        state.files.insert(
            name.to_owned(),
            Images {
                written: data.to_vec(),
                durable: data.to_vec(),
            },
        );
        state.durable_names.insert(name.to_owned());
        Ok(())
    }

    fn sync_dir(&self) -> io::Result<()> {
        let mut state = self.state.lock();
        state.check_alive()?;
        sync_point(&mut state)?;
        state.durable_names = state.files.keys().cloned().collect();
        Ok(())
    }

    fn describe(&self) -> String {
        "<faulty>".to_owned()
    }
}

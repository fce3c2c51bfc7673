//! The storage seam. The log does all its file I/O through [`Storage`] (a
//! folder of files) and [`StorageFile`] (positional reads and writes), so the
//! same code runs on real files, in memory, and on a fault-injecting backend
//! that simulates crashes, torn writes, bit flips and EIO.

mod faulty;
mod file;
mod memory;

use std::fmt;
use std::io;
use std::sync::Arc;

pub use faulty::{FaultyStorage, Tear};
pub use file::{
    FileStorage, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, create_private_dir_all, create_private_file,
};
pub use memory::MemStorage;

/// A folder of named files.
pub trait Storage: Send + Sync + fmt::Debug {
    /// Names of the files in the folder, sorted.
    fn list(&self) -> io::Result<Vec<String>>;
    /// Creates a new empty file; fails if it exists.
    fn create(&self, name: &str) -> io::Result<Arc<dyn StorageFile>>;
    /// Opens an existing file for reading (and writing, unless read-only).
    fn open(&self, name: &str) -> io::Result<Arc<dyn StorageFile>>;
    /// Removes a file: a segment whose creation was torn, or segments an
    /// operator cut off (`repair::truncate_from`).
    fn remove(&self, name: &str) -> io::Result<()>;
    /// Replaces the file `name` (or creates it) with `data`, atomically and
    /// durably: once it returns, a crash leaves the new bytes; if it fails,
    /// the old file (or none) is whole. For the log's small tail record.
    fn replace(&self, name: &str, data: &[u8]) -> io::Result<()>;
    /// Makes creations and removals in the folder durable.
    fn sync_dir(&self) -> io::Result<()>;
    /// Where the folder is, for messages.
    fn describe(&self) -> String;
    /// Takes the folder's single-writer lock for as long as this storage (or
    /// a clone) lives. Fails with `WouldBlock` when another writer holds it:
    /// two writers appending to one log would corrupt it.
    fn lock_for_writing(&self) -> io::Result<()> {
        Ok(())
    }
}

/// Name of the lock file a [`FileStorage`] keeps in its folder. It is the
/// storage's own file: [`Storage::list`] never shows it.
pub const LOCK_FILE_NAME: &str = "LOCK";

/// Suffix of the temporary file [`Storage::replace`] writes before renaming
/// it into place, in a [`FileStorage`] folder. Also the storage's own:
/// [`Storage::list`] never shows it.
pub const REPLACE_TEMP_SUFFIX: &str = ".replacing";

/// One file: positional I/O and durability.
#[expect(
    clippy::len_without_is_empty,
    reason = "a file length is a byte count, never tested for emptiness"
)]
pub trait StorageFile: Send + Sync + fmt::Debug {
    /// Current length in bytes.
    fn len(&self) -> io::Result<u64>;
    /// Reads exactly `buf.len()` bytes at `offset`.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// Writes all of `data` at `offset`.
    fn write_all_at(&self, data: &[u8], offset: u64) -> io::Result<()>;
    /// Truncates or extends the file.
    fn set_len(&self, len: u64) -> io::Result<()>;
    /// Makes written data durable (fdatasync).
    fn sync_data(&self) -> io::Result<()>;
    /// Grows the file to at least `len` bytes that read as zeros, reserving
    /// the space (fallocate). Appends into reserved space then change no
    /// file size, so their fdatasync need not commit metadata.
    fn allocate(&self, len: u64) -> io::Result<()>;
}

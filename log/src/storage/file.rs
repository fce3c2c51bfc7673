//! Real files in a folder, with `pread`/`pwrite` and `fdatasync`.
//!
//! Store data is private: every folder this module creates is mode 0700 and
//! every file 0600, whatever the process's umask (a umask can only clear
//! bits, and the mode is set again after creating, so it is exact).

use std::fs::{self, File, OpenOptions, Permissions};
use std::io::{self, Write as _};
use std::os::unix::fs::{
    DirBuilderExt as _, FileExt as _, OpenOptionsExt as _, PermissionsExt as _,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

use super::{LOCK_FILE_NAME, REPLACE_TEMP_SUFFIX, Storage, StorageFile};

/// Mode of every file engram creates in a store: owner read and write.
pub const PRIVATE_FILE_MODE: u32 = 0o600;
/// Mode of every folder engram creates for a store: owner only.
pub const PRIVATE_DIR_MODE: u32 = 0o700;

/// Creates `dir` and any missing parents with mode 0700. Folders that exist
/// are left as they are (a parent may be the user's own home).
pub fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent()
        && !parent.as_os_str().is_empty()
    {
        create_private_dir_all(parent)?;
    }
    match fs::DirBuilder::new().mode(PRIVATE_DIR_MODE).create(dir) {
        Ok(()) => fs::set_permissions(dir, Permissions::from_mode(PRIVATE_DIR_MODE)),
        // Another process made it first.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) => Err(e),
    }
}

/// Opens `path` for reading and writing, creating it with mode 0600 when
/// it does not exist (`create_new`: only then; else it must not exist). A
/// file that exists keeps its mode.
pub fn create_private_file(path: &Path, create_new: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).mode(PRIVATE_FILE_MODE);
    if create_new {
        let file = options.create_new(true).open(path)?;
        file.set_permissions(Permissions::from_mode(PRIVATE_FILE_MODE))?;
        return Ok(file);
    }
    match options.clone().create_new(true).open(path) {
        Ok(file) => {
            file.set_permissions(Permissions::from_mode(PRIVATE_FILE_MODE))?;
            Ok(file)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => options.open(path),
        Err(e) => Err(e),
    }
}

/// How long opening for writing waits for a busy lock before it reports
/// another writer.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(2);
/// How often a busy lock is tried again.
const LOCK_RETRY: std::time::Duration = std::time::Duration::from_millis(10);

/// A folder of real files.
#[derive(Debug, Clone)]
pub struct FileStorage {
    dir: PathBuf,
    read_only: bool,
    /// The locked `LOCK` file while this storage is the folder's writer.
    lock: Arc<Mutex<Option<File>>>,
}

impl FileStorage {
    /// Opens `dir` for reading and writing, creating it (and its parents,
    /// mode 0700) if missing.
    pub fn open(dir: &Path) -> io::Result<Self> {
        create_private_dir_all(dir)?;
        Ok(Self {
            dir: dir.to_path_buf(),
            read_only: false,
            lock: Arc::default(),
        })
    }

    /// Opens an existing `dir` for reading only: nothing is created or changed.
    pub fn open_read_only(dir: &Path) -> io::Result<Self> {
        if !dir.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("no log folder at {}", dir.display()),
            ));
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            read_only: true,
            lock: Arc::default(),
        })
    }

    /// The folder.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

#[derive(Debug)]
struct RealFile {
    file: File,
}

impl StorageFile for RealFile {
    fn len(&self) -> io::Result<u64> {
        Ok(self.file.metadata()?.len())
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.file.read_exact_at(buf, offset)
    }

    fn write_all_at(&self, data: &[u8], offset: u64) -> io::Result<()> {
        self.file.write_all_at(data, offset)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.file.set_len(len)
    }

    fn sync_data(&self) -> io::Result<()> {
        self.file.sync_data()
    }

    fn allocate(&self, len: u64) -> io::Result<()> {
        let current = self.len()?;
        if len <= current {
            return Ok(());
        }
        match rustix::fs::fallocate(
            &self.file,
            rustix::fs::FallocateFlags::empty(),
            current,
            len - current,
        ) {
            Ok(()) => Ok(()),
            // A file system without fallocate: a sparse extension reads as
            // zeros too, it only saves less work at fdatasync.
            Err(rustix::io::Errno::OPNOTSUPP | rustix::io::Errno::NOSYS) => self.file.set_len(len),
            Err(e) => Err(io::Error::from(e)),
        }
    }
}

impl Storage for FileStorage {
    fn list(&self) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in fs::read_dir(&self.dir)? {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if name != LOCK_FILE_NAME && !name.ends_with(REPLACE_TEMP_SUFFIX) {
                names.push(name);
            }
        }
        names.sort();
        Ok(names)
    }

    fn create(&self, name: &str) -> io::Result<Arc<dyn StorageFile>> {
        if self.read_only {
            return Err(read_only_error());
        }
        let file = create_private_file(&self.dir.join(name), true)?;
        Ok(Arc::new(RealFile { file }))
    }

    fn open(&self, name: &str) -> io::Result<Arc<dyn StorageFile>> {
        let file = OpenOptions::new()
            .read(true)
            .write(!self.read_only)
            .open(self.dir.join(name))?;
        Ok(Arc::new(RealFile { file }))
    }

    fn remove(&self, name: &str) -> io::Result<()> {
        if self.read_only {
            return Err(read_only_error());
        }
        fs::remove_file(self.dir.join(name))
    }

    fn replace(&self, name: &str, data: &[u8]) -> io::Result<()> {
        if self.read_only {
            return Err(read_only_error());
        }
        let temp = self.dir.join(format!("{name}{REPLACE_TEMP_SUFFIX}"));
        let mut file = create_private_file(&temp, false)?;
        file.set_len(0)?;
        file.write_all(data)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, self.dir.join(name))?;
        File::open(&self.dir)?.sync_all()
    }

    fn sync_dir(&self) -> io::Result<()> {
        if self.read_only {
            return Ok(());
        }
        File::open(&self.dir)?.sync_all()
    }

    fn describe(&self) -> String {
        self.dir.display().to_string()
    }

    fn lock_for_writing(&self) -> io::Result<()> {
        if self.read_only {
            return Err(read_only_error());
        }
        let mut held = self.lock.lock();
        if held.is_some() {
            return Ok(());
        }
        let file = create_private_file(&self.dir.join(LOCK_FILE_NAME), false)?;
        // An advisory lock (flock): released by the kernel when the process
        // dies, so a crashed writer never leaves the log locked. A lock just
        // released can still be held for a moment by a child process forked
        // (by any thread) before it execs, so a busy lock is retried briefly.
        let deadline = std::time::Instant::now() + LOCK_WAIT;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(LOCK_RETRY);
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(io::Error::from(io::ErrorKind::WouldBlock));
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(e),
            }
        }
        *held = Some(file);
        Ok(())
    }
}

fn read_only_error() -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, "log opened read-only")
}

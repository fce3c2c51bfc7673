//! Real files in a folder, with `pread`/`pwrite` and `fdatasync`.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

use super::{LOCK_FILE_NAME, Storage, StorageFile};

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
    /// Opens `dir` for reading and writing, creating it (and its parents) if missing.
    pub fn open(dir: &Path) -> io::Result<Self> {
        fs::create_dir_all(dir)?;
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
            if name != LOCK_FILE_NAME {
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
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(self.dir.join(name))?;
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
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(self.dir.join(LOCK_FILE_NAME))?;
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

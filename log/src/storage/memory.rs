//! Files in memory: for tests and benchmarks that must not touch a disk.

use std::collections::BTreeMap;
use std::io;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use super::{Storage, StorageFile};

/// A folder of in-memory files. Clones share the same files.
#[derive(Debug, Clone, Default)]
pub struct MemStorage {
    files: Arc<Mutex<BTreeMap<String, Arc<MemFile>>>>,
}

impl MemStorage {
    /// An empty folder.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy of a file's bytes, if it exists.
    #[must_use]
    pub fn file_bytes(&self, name: &str) -> Option<Vec<u8>> {
        self.files.lock().get(name).map(|f| f.data.read().clone())
    }

    /// Replaces a file's bytes (creating it), for tests that damage a log.
    pub fn set_file_bytes(&self, name: &str, bytes: Vec<u8>) {
        let file = Arc::new(MemFile {
            data: RwLock::new(bytes),
        });
        self.files.lock().insert(name.to_owned(), file);
    }
}

#[derive(Debug, Default)]
struct MemFile {
    data: RwLock<Vec<u8>>,
}

fn to_usize(n: u64) -> io::Result<usize> {
    usize::try_from(n).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "offset too large"))
}

impl StorageFile for MemFile {
    fn len(&self) -> io::Result<u64> {
        Ok(self.data.read().len() as u64)
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let data = self.data.read();
        let start = to_usize(offset)?;
        let src = data
            .get(start..start + buf.len())
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        buf.copy_from_slice(src);
        Ok(())
    }

    fn write_all_at(&self, bytes: &[u8], offset: u64) -> io::Result<()> {
        let mut data = self.data.write();
        let start = to_usize(offset)?;
        let end = start + bytes.len();
        if data.len() < end {
            data.resize(end, 0);
        }
        if let Some(dst) = data.get_mut(start..end) {
            dst.copy_from_slice(bytes);
        }
        Ok(())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.data.write().resize(to_usize(len)?, 0);
        Ok(())
    }

    fn sync_data(&self) -> io::Result<()> {
        Ok(())
    }

    fn allocate(&self, len: u64) -> io::Result<()> {
        let mut data = self.data.write();
        let len = to_usize(len)?;
        if data.len() < len {
            data.resize(len, 0);
        }
        Ok(())
    }
}

impl Storage for MemStorage {
    fn list(&self) -> io::Result<Vec<String>> {
        Ok(self.files.lock().keys().cloned().collect())
    }

    fn create(&self, name: &str) -> io::Result<Arc<dyn StorageFile>> {
        let mut files = self.files.lock();
        if files.contains_key(name) {
            return Err(io::Error::from(io::ErrorKind::AlreadyExists));
        }
        let file = Arc::new(MemFile::default());
        files.insert(name.to_owned(), Arc::clone(&file));
        Ok(file)
    }

    fn open(&self, name: &str) -> io::Result<Arc<dyn StorageFile>> {
        match self.files.lock().get(name) {
            Some(file) => Ok(Arc::clone(file) as Arc<dyn StorageFile>),
            None => Err(io::Error::from(io::ErrorKind::NotFound)),
        }
    }

    fn remove(&self, name: &str) -> io::Result<()> {
        match self.files.lock().remove(name) {
            Some(_) => Ok(()),
            None => Err(io::Error::from(io::ErrorKind::NotFound)),
        }
    }

    fn replace(&self, name: &str, data: &[u8]) -> io::Result<()> {
        self.set_file_bytes(name, data.to_vec());
        Ok(())
    }

    fn sync_dir(&self) -> io::Result<()> {
        Ok(())
    }

    fn describe(&self) -> String {
        "<memory>".to_owned()
    }
}

//! `engram verify --views`: the persisted views against a replay of the log.
//!
//! Everything an open would trust of a views file (each view whose meta row
//! matches its code version and the log, see [`crate::runtime`]) is loaded,
//! the same views are replayed from the log up to the seq each persisted,
//! and the two are compared entry by entry: a memory-keyed view per memory
//! (`memory_table`, `text_index`: `memory 12`), the audit index per memory
//! and session, every other view as one entry. A view an open would rebuild
//! anyway (new, another code version, another log, a state that does not
//! decode) is reported as such, not compared: nothing of it is ever read.
//!
//! The check only reads. A views file no process holds is opened read-only
//! and let go as soon as its state is loaded (before the replay), so an
//! owner starting meanwhile waits at most that long. A file an owner holds
//! open (redb locks it) is copied to a private temp folder first; a copy
//! taken while the owner committed is taken again. Either way it is what the
//! next open would load: an owner's views in memory reach the file at its
//! checkpoints and on close.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use engram_log::LogReader;
use redb::backends::InMemoryBackend;
use redb::{Database, ReadOnlyDatabase, ReadableDatabase};

use crate::core::CoreViews;
use crate::dump::{Row, logical_rows};
use crate::error::ViewError;
use crate::runtime::{SharedView, distrust};
use crate::view::read_meta;

/// At most this many differences are listed (all are counted).
pub const DIFFERENCES_LISTED_MAX: usize = 100;
/// How many times a views file that changed while being copied is copied again.
const COPY_TRIES: usize = 10;
/// The pause before copying a changing file again.
const COPY_RETRY: Duration = Duration::from_millis(50);

/// How an entry differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DifferenceKind {
    /// In both, with other contents.
    Differs,
    /// In the replay of the log, not in the views file.
    Missing,
    /// In the views file, not in the replay of the log.
    Extra,
}

impl DifferenceKind {
    /// `differs`, `missing` or `extra`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            DifferenceKind::Differs => "differs",
            DifferenceKind::Missing => "missing",
            DifferenceKind::Extra => "extra",
        }
    }
}

/// One entry of one view that is not what the log says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    pub view: &'static str,
    /// The entry: `memory 12`, `session notes`, `terms`, `state`, ...
    pub key: String,
    pub kind: DifferenceKind,
}

/// How one view fared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewChecked {
    pub name: &'static str,
    /// The seq its persisted state claims to have applied (0 if none).
    pub applied: u64,
    /// Entries compared (0 when not compared).
    pub entries: u64,
    /// Why it was not compared: the next open rebuilds it from the log
    /// anyway, so nothing of it is trusted.
    pub rebuilt_on_open: Option<String>,
}

/// What the views file was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewsFile {
    /// There is none: the next open builds every view from the log.
    Absent,
    /// Read directly (no process held it) or from a copy (an owner did).
    Read { copied: bool },
    /// It does not open: the next open sets it aside and rebuilds.
    Unreadable { reason: String },
}

/// The outcome of [`Persisted::compare`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewsReport {
    pub file: ViewsFile,
    pub views: Vec<ViewChecked>,
    /// Every difference found.
    pub n_differences: u64,
    /// The first [`DIFFERENCES_LISTED_MAX`] of them, view by view.
    pub differences: Vec<Difference>,
}

impl ViewsReport {
    /// A report on a views file that was not read.
    #[must_use]
    pub fn unread(file: ViewsFile) -> Self {
        Self {
            file,
            views: Vec::new(),
            n_differences: 0,
            differences: Vec::new(),
        }
    }

    /// Whether everything an open would trust equals the log's replay.
    #[must_use]
    pub fn is_ok(&self) -> bool {
        self.n_differences == 0
    }
}

enum Db {
    ReadOnly(ReadOnlyDatabase),
    Copy(Database),
}

/// A views file opened for the check (see the module docs).
pub struct ViewsDb {
    db: Db,
    /// The private temp folder holding the copy, removed on drop.
    scratch: Option<PathBuf>,
}

impl Drop for ViewsDb {
    fn drop(&mut self) {
        if let Some(dir) = &self.scratch {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// What [`open_views_file`] found.
pub enum Opened {
    Absent,
    Unreadable { reason: String },
    Db(ViewsDb),
}

fn io_error(context: String, e: &std::io::Error) -> ViewError {
    ViewError::Db(redb::Error::Io(std::io::Error::new(
        e.kind(),
        format!("{context}: {e}"),
    )))
}

/// Opens the views file at `path` for reading: read-only when no process
/// holds it, else a copy in a private temp folder.
///
/// # Errors
/// The file cannot be copied, or kept changing while it was.
pub fn open_views_file(path: &Path) -> Result<Opened, ViewError> {
    if !path.exists() {
        return Ok(Opened::Absent);
    }
    // Held by its owner, or waiting for a repair only a writer makes: a
    // copy of it is read instead (and repaired, if need be, as the copy).
    if let Ok(db) = ReadOnlyDatabase::open(path) {
        return Ok(Opened::Db(ViewsDb {
            db: Db::ReadOnly(db),
            scratch: None,
        }));
    }
    let scratch = scratch_dir()?;
    let copy = scratch.join("views.redb");
    let held = ViewsDb {
        db: Db::Copy(
            match copy_stable(path, &copy)
                .and_then(|()| Database::create(&copy).map_err(|e| ViewError::Db(e.into())))
            {
                Ok(db) => db,
                Err(e) => {
                    let _ = std::fs::remove_dir_all(&scratch);
                    return match e {
                        ViewError::Db(redb::Error::Io(_)) => Err(e),
                        e => Ok(Opened::Unreadable {
                            reason: e.to_string(),
                        }),
                    };
                }
            },
        ),
        scratch: Some(scratch),
    };
    Ok(Opened::Db(held))
}

fn scratch_dir() -> Result<PathBuf, ViewError> {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!(
        "engram-verify-views-{}-{nanos}",
        std::process::id()
    ));
    engram_log::storage::create_private_dir_all(&dir)
        .map_err(|e| io_error(format!("creating {}", dir.display()), &e))?;
    Ok(dir)
}

/// Copies `from` to `to`, again while `from` changed during the copy (its
/// length or modification time moved): a copy taken across an owner's
/// commit could mix two states.
fn copy_stable(from: &Path, to: &Path) -> Result<(), ViewError> {
    let stamp = || {
        std::fs::metadata(from)
            .and_then(|m| Ok((m.len(), m.modified()?)))
            .map_err(|e| io_error(format!("reading {}", from.display()), &e))
    };
    for _ in 0..COPY_TRIES {
        let before = stamp()?;
        std::fs::copy(from, to).map_err(|e| io_error(format!("copying {}", from.display()), &e))?;
        if stamp()? == before {
            return Ok(());
        }
        std::thread::sleep(COPY_RETRY);
    }
    Err(io_error(
        format!("copying {}", from.display()),
        &std::io::Error::other(format!(
            "it changed during each of {COPY_TRIES} copies; try again when the store is quieter"
        )),
    ))
}

/// The views file's state as an open would trust it, loaded into memory.
pub struct Persisted {
    copied: bool,
    core: CoreViews,
    /// Per view of `core.list()`: its applied seq, and why it is not
    /// trusted (not compared).
    states: Vec<(u64, Option<String>)>,
    /// The audit view's rows, merged per memory and session.
    audit: Vec<(String, Vec<u8>)>,
}

impl ViewsDb {
    /// Loads what an open would trust, then lets the file go.
    ///
    /// # Errors
    /// The file or the log cannot be read.
    pub fn read(self, reader: &LogReader) -> Result<Persisted, ViewError> {
        let copied = self.scratch.is_some();
        let (core, states, audit) = match &self.db {
            Db::ReadOnly(db) => load(db, reader)?,
            Db::Copy(db) => load(db, reader)?,
        };
        Ok(Persisted {
            copied,
            core,
            states,
            audit,
        })
    }
}

type Loaded = (
    CoreViews,
    Vec<(u64, Option<String>)>,
    Vec<(String, Vec<u8>)>,
);

fn load(db: &impl ReadableDatabase, reader: &LogReader) -> Result<Loaded, ViewError> {
    let core = CoreViews::new(reader.clone());
    let txn = db.begin_read()?;
    let mut states = Vec::new();
    for view in core.list() {
        let mut view = view.write();
        let meta = read_meta(&txn, view.name())?;
        let applied = meta.map_or(0, |m| m.applied);
        let reason = match distrust(meta.as_ref(), &*view, reader)? {
            Some(reason) => Some(reason),
            None => view
                .load(&txn)
                .err()
                .map(|e| format!("its persisted state does not load: {e}")),
        };
        states.push((applied, reason));
    }
    drop(txn);
    Ok((core, states, audit_entries(logical_rows(db)?)))
}

/// The audit index's merged rows as entries: `memory <id>`, `session <name>`.
fn audit_entries(rows: Vec<Row>) -> Vec<(String, Vec<u8>)> {
    rows.into_iter()
        .filter_map(|(table, owner, seqs)| {
            let key = match table {
                "audit_by_memory" => {
                    let id = u64::from_le_bytes(owner.as_slice().try_into().ok()?);
                    format!("memory {id}")
                }
                "audit_by_session" => {
                    let name = owner.strip_suffix(&[0]).unwrap_or(&owner);
                    format!("session {}", String::from_utf8_lossy(name))
                }
                _ => return None,
            };
            Some((key, seqs))
        })
        .collect()
}

/// Differences found so far: all counted, the first few kept.
#[derive(Default)]
struct Found {
    n: u64,
    listed: Vec<Difference>,
}

impl Found {
    fn push(&mut self, view: &'static str, key: &str, kind: DifferenceKind) {
        self.n += 1;
        if self.listed.len() < DIFFERENCES_LISTED_MAX {
            self.listed.push(Difference {
                view,
                key: key.to_owned(),
                kind,
            });
        }
    }

    /// Compares two lists of entries of `view` (each in its own fixed order).
    fn diff(
        &mut self,
        view: &'static str,
        replayed: &[(String, Vec<u8>)],
        persisted: &[(String, Vec<u8>)],
    ) {
        let on_file: BTreeMap<&str, &[u8]> = persisted
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_slice()))
            .collect();
        let from_log: BTreeSet<&str> = replayed.iter().map(|(k, _)| k.as_str()).collect();
        for (key, value) in replayed {
            match on_file.get(key.as_str()) {
                None => self.push(view, key, DifferenceKind::Missing),
                Some(v) if *v != value.as_slice() => self.push(view, key, DifferenceKind::Differs),
                Some(_) => {}
            }
        }
        for (key, _) in persisted {
            if !from_log.contains(key.as_str()) {
                self.push(view, key, DifferenceKind::Extra);
            }
        }
    }
}

impl Persisted {
    /// Replays the log into fresh views, each up to the seq its persisted
    /// state claims, and compares them entry by entry.
    ///
    /// # Errors
    /// The log cannot be read, or a view fails to apply an event.
    pub fn compare(&self, reader: &LogReader) -> Result<ViewsReport, ViewError> {
        let fresh = CoreViews::new(reader.clone());
        let fresh_views: Vec<SharedView> = fresh.list();
        let targets: Vec<Option<u64>> = self
            .states
            .iter()
            .map(|(applied, reason)| reason.is_none().then_some(*applied))
            .collect();
        replay(&fresh_views, &targets, reader)?;
        // Views kept in their own tables (the audit view) are compared by
        // their rows: persisted into an in-memory database, read back merged.
        let rows_db = Database::builder().create_with_backend(InMemoryBackend::new())?;
        let txn = rows_db.begin_write()?;
        for (view, target) in fresh_views.iter().zip(&targets) {
            let mut view = view.write();
            if target.is_some() && view.persists_every_batch() {
                view.persist(&txn)?;
            }
        }
        txn.commit()?;
        let replayed_audit = audit_entries(logical_rows(&rows_db)?);

        let mut found = Found::default();
        let mut views = Vec::new();
        for ((fresh, persisted), (applied, reason)) in
            fresh_views.iter().zip(self.core.list()).zip(&self.states)
        {
            let fresh = fresh.read();
            let persisted = persisted.read();
            let name = fresh.name();
            let mut checked = ViewChecked {
                name,
                applied: *applied,
                entries: 0,
                rebuilt_on_open: reason.clone(),
            };
            if reason.is_none() {
                if fresh.persists_every_batch() {
                    found.diff(name, &replayed_audit, &self.audit);
                    checked.entries = replayed_audit.len() as u64;
                } else {
                    let replayed = fresh.entries()?;
                    found.diff(name, &replayed, &persisted.entries()?);
                    checked.entries = replayed.len() as u64;
                }
            }
            views.push(checked);
        }
        Ok(ViewsReport {
            file: ViewsFile::Read {
                copied: self.copied,
            },
            views,
            n_differences: found.n,
            differences: found.listed,
        })
    }
}

/// Applies the log to `views`, each up to its target (none: left empty).
fn replay(
    views: &[SharedView],
    targets: &[Option<u64>],
    reader: &LogReader,
) -> Result<(), ViewError> {
    let upto = targets.iter().flatten().copied().max().unwrap_or(0);
    if upto == 0 {
        return Ok(());
    }
    let mut guards: Vec<_> = views.iter().map(|v| v.write()).collect();
    for event in reader.replay(1) {
        let event = event?;
        if event.seq > upto {
            break;
        }
        for (view, target) in guards.iter_mut().zip(targets) {
            if target.is_some_and(|t| event.seq <= t) {
                view.apply(&event)?;
            }
        }
    }
    Ok(())
}

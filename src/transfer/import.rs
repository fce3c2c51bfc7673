//! `import`: an export file read and checked line by line
//! ([`ExportReader`]), appended to a log with the seqs and commit times it
//! had and every memory re-sealed under the target's key
//! ([`import_events`]), and the whole of it for a store folder
//! ([`import_file`]).
//!
//! **Invariant:** a bad line (malformed, edited, missing, out of order, a
//! file cut short) is found before the first append: `import_file` reads
//! and checks the whole file, then reads it again to append, checking
//! every line again.
//!
//! **Invariant:** a failed import into a new store leaves nothing: the log
//! is built in a staging folder inside the store ([`STAGING_DIR_NAME`]) and
//! renamed into place only once complete; on failure the staging folder,
//! and the key file and store folder if the import created them, are
//! removed. An import that continues an existing store appends in place:
//! the store's own events are never touched, and a failure after the first
//! append (a memory whose words do not match its content hash, an I/O
//! error) leaves the store ending at a whole event of the file, which the
//! error names, with every event before it verified.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read as _};
use std::path::{Path, PathBuf};

use engram_log::limits::{BATCH_EVENTS_MAX, EVENT_BYTES_MAX, FRAME_PAYLOAD_BYTES_TARGET};
use engram_log::{
    AppendError, DataKey, Durability, Event, Log, LogConfig, LoggedEvent, OpenError, ReadError,
    Remembered, Restored, SubjectKey, open_record, seal, seal_record,
};
use serde_json::Value;

use super::{
    EXPORT_FORMAT_VERSION, EXPORT_LINE_BYTES_MAX, ExportHeader, ExportTrailer, ExportedEvent,
    LineDigest, line_sha256, parse_event_line,
};
use crate::engine::{EngineError, Engram};
use crate::store::{Store, StoreError, StoreOptions};

/// The folder inside a store where a new store's log is built before it
/// is renamed to `log`.
pub const STAGING_DIR_NAME: &str = "log.importing";

/// Why an import was refused or stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    #[error("reading {path}: {source}")]
    File {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A line that is not what export writes, or does not match its hash.
    #[error("line {line}{}: {reason}", seq.map(|s| format!(" (seq {s})")).unwrap_or_default())]
    BadLine {
        line: u64,
        seq: Option<u64>,
        reason: String,
    },
    /// The file ends before its trailer.
    #[error(
        "the file ends after line {n_lines} without its trailer line: it was cut short (read seqs up to {last_seq_read} of the {last_seq} its header announces); export it again"
    )]
    Truncated {
        n_lines: u64,
        last_seq_read: u64,
        last_seq: u64,
    },
    /// The target store holds events and the file does not continue them.
    #[error(
        "the store at {store} already holds seqs 1 to {store_last_seq} and this export starts at seq {first_seq}: import into a new store (--store NEW); to continue a store imported from the same source, import that source's `engram export --from {}`",
        store_last_seq + 1
    )]
    NotEmpty {
        store: PathBuf,
        store_last_seq: u64,
        first_seq: u64,
    },
    /// An export that starts past seq 1, for a store with no log.
    #[error(
        "this export starts at seq {first_seq} (written with --from): it continues a store that ends at seq {}; import an export from seq 1 into a new store",
        first_seq - 1
    )]
    NoPrefix { first_seq: u64 },
    /// The store ends at the right seq, with another event there.
    #[error(
        "the store's event at seq {seq} is not the one this export continues from (its line hash differs): the export comes from another store"
    )]
    OtherStore { seq: u64 },
    /// A staging folder left by an interrupted import.
    #[error(
        "{path} exists: an earlier import into this store was interrupted (or is running); remove that folder and import again"
    )]
    StagingExists { path: PathBuf },
    /// A memory whose referenced words, as the new log holds them, do not
    /// hash to its recorded content hash: it cannot be re-sealed.
    #[error("seq {seq}: {reason}")]
    Seal { seq: u64, reason: String },
    /// An import into an existing store stopped after some events were
    /// appended: the store is whole and ends at `store_last_seq`.
    #[error(
        "{source}; the store now ends at seq {store_last_seq} (the events of the file before it were imported and verify): fix the file, then finish with an export from seq {} of the source",
        store_last_seq + 1
    )]
    Interrupted {
        store_last_seq: u64,
        #[source]
        source: Box<ImportError>,
    },
    #[error("moving the imported log into place ({path}): {source}")]
    Staging {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Open(#[from] OpenError),
    #[error(transparent)]
    Append(#[from] AppendError),
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("the log was imported, building its views failed: {0}")]
    Views(#[source] Box<EngineError>),
}

/// An export file read line by line, every line checked: the header first
/// (on [`ExportReader::new`]), then each event (shape, contiguous seq from
/// the header's first seq, commit times that never go back, encoded size,
/// a memory's reference pointing back, the line hash), then the trailer
/// (counts and digest) and nothing after it. Yields the logged events; the
/// first bad line ends it with an error naming that line.
pub struct ExportReader<R> {
    input: R,
    header: ExportHeader,
    /// Line number of the line read last (the header is line 1).
    line: u64,
    next_seq: u64,
    last_ts_ms: u64,
    digest: Option<LineDigest>,
    buf: Vec<u8>,
    done: bool,
}

impl ExportReader<BufReader<File>> {
    /// Opens the export file at `path` and checks its header.
    pub fn open(path: &Path) -> Result<Self, ImportError> {
        let file = File::open(path).map_err(|source| ImportError::File {
            path: path.to_owned(),
            source,
        })?;
        Self::new(BufReader::new(file))
    }
}

impl<R: BufRead> ExportReader<R> {
    /// Reads and checks the header line of `input`.
    pub fn new(mut input: R) -> Result<Self, ImportError> {
        let mut buf = Vec::new();
        let bad = |reason: String| ImportError::BadLine {
            line: 1,
            seq: None,
            reason,
        };
        if !read_line(&mut input, &mut buf).map_err(|e| bad(e.to_string()))? {
            return Err(bad(
                "the file is empty: expected an engram export".to_owned()
            ));
        }
        let value: Value = serde_json::from_slice(&buf)
            .map_err(|e| bad(format!("not an engram export header ({e})")))?;
        match value.get("engram_export").map(Value::as_u64) {
            Some(Some(v)) if v == u64::from(EXPORT_FORMAT_VERSION) => {}
            Some(Some(v)) => {
                return Err(bad(format!(
                    "export format version {v}; this engram reads version {EXPORT_FORMAT_VERSION}: use the engram that wrote it, or a newer one"
                )));
            }
            _ => {
                return Err(bad(
                    "not an engram export header (no `engram_export` version)".to_owned(),
                ));
            }
        }
        let header: ExportHeader =
            serde_json::from_value(value).map_err(|e| bad(format!("bad header: {e}")))?;
        if header.first_seq == 0 {
            return Err(bad("`first_seq` is 0: seqs start at 1".to_owned()));
        }
        if header.last_seq.checked_add(1) < Some(header.first_seq)
            || header.n_events != header.last_seq + 1 - header.first_seq
        {
            return Err(bad(format!(
                "`first_seq` {}, `last_seq` {} and `n_events` {} disagree",
                header.first_seq, header.last_seq, header.n_events
            )));
        }
        if header.prev_sha256.is_some() != (header.first_seq > 1) {
            return Err(bad(
                "`prev_sha256` must be given exactly when `first_seq` is past 1".to_owned(),
            ));
        }
        Ok(Self {
            input,
            line: 1,
            next_seq: header.first_seq,
            last_ts_ms: 0,
            header,
            digest: Some(LineDigest::new()),
            buf,
            done: false,
        })
    }

    /// The checked header.
    #[must_use]
    pub fn header(&self) -> &ExportHeader {
        &self.header
    }

    fn bad(&self, seq: Option<u64>, reason: impl Into<String>) -> ImportError {
        ImportError::BadLine {
            line: self.line,
            seq,
            reason: reason.into(),
        }
    }

    /// The next event, `None` after a trailer that checks out.
    pub fn next_event(&mut self) -> Result<Option<ExportedEvent>, ImportError> {
        if self.done {
            return Ok(None);
        }
        let result = self.read_event();
        if !matches!(result, Ok(Some(_))) {
            self.done = true;
        }
        result
    }

    fn read_event(&mut self) -> Result<Option<ExportedEvent>, ImportError> {
        self.line += 1;
        if !read_line(&mut self.input, &mut self.buf).map_err(|e| self.bad(None, e))? {
            return Err(ImportError::Truncated {
                n_lines: self.line - 1,
                last_seq_read: self.next_seq - 1,
                last_seq: self.header.last_seq,
            });
        }
        let value: Value = serde_json::from_slice(&self.buf)
            .map_err(|e| self.bad(None, format!("not a JSON line ({e})")))?;
        let Value::Object(object) = value else {
            return Err(self.bad(None, "not a JSON object"));
        };
        if object.contains_key("engram_export_end") {
            self.check_trailer(Value::Object(object))?;
            return Ok(None);
        }
        let (exported, recorded) = parse_event_line(object).map_err(|e| self.bad(None, e))?;
        let logged = &exported.logged;
        let seq = Some(logged.seq);
        if exported.sealed.is_some() && !self.header.sealed {
            return Err(self.bad(
                seq,
                "a sealed record in an export whose header says its store is not sealed",
            ));
        }
        if logged.seq != self.next_seq {
            return Err(self.bad(
                seq,
                format!(
                    "expected seq {}: a line is missing, repeated or out of order",
                    self.next_seq
                ),
            ));
        }
        if logged.seq > self.header.last_seq {
            return Err(self.bad(
                seq,
                format!(
                    "past the header's last seq {} (the trailer is missing there)",
                    self.header.last_seq
                ),
            ));
        }
        if logged.ts_ms < self.last_ts_ms {
            return Err(self.bad(
                seq,
                format!(
                    "commit time {} is before the previous line's {}: commit times never go backwards",
                    logged.ts_ms, self.last_ts_ms
                ),
            ));
        }
        let (actual, size) = line_sha256(logged.seq, logged.ts_ms, &logged.event)
            .map_err(|e| self.bad(seq, e.to_string()))?;
        if actual != recorded {
            return Err(self.bad(
                seq,
                format!(
                    "the line hash is {recorded:?} but the line hashes to {actual:?}: the line was altered after export"
                ),
            ));
        }
        if size > EVENT_BYTES_MAX {
            return Err(self.bad(
                seq,
                format!("the event encodes to {size} bytes, over the limit of {EVENT_BYTES_MAX}"),
            ));
        }
        if let Event::Remembered(r) = &logged.event {
            let reference = &r.reference;
            if reference.first_seq == 0
                || reference.first_seq > reference.last_seq
                || reference.last_seq >= logged.seq
            {
                return Err(self.bad(
                    seq,
                    format!(
                        "the memory's reference seqs {} to {} do not point back at earlier events",
                        reference.first_seq, reference.last_seq
                    ),
                ));
            }
        }
        if let Some(digest) = &mut self.digest {
            digest.push(&actual);
        }
        self.next_seq += 1;
        self.last_ts_ms = logged.ts_ms;
        Ok(Some(exported))
    }

    fn check_trailer(&mut self, value: Value) -> Result<(), ImportError> {
        let trailer: ExportTrailer = serde_json::from_value(value)
            .map_err(|e| self.bad(None, format!("bad trailer: {e}")))?;
        if trailer.engram_export_end != EXPORT_FORMAT_VERSION {
            return Err(self.bad(
                None,
                format!(
                    "trailer of format version {}, the header says {EXPORT_FORMAT_VERSION}",
                    trailer.engram_export_end
                ),
            ));
        }
        let read = self.next_seq - self.header.first_seq;
        if self.next_seq - 1 != self.header.last_seq {
            return Err(self.bad(
                None,
                format!(
                    "the trailer follows seq {} but the header announces seqs up to {}: lines are missing",
                    self.next_seq - 1,
                    self.header.last_seq
                ),
            ));
        }
        if trailer.n_events != read || trailer.last_seq != self.header.last_seq {
            return Err(self.bad(
                None,
                format!(
                    "the trailer counts {} events up to seq {}, the file holds {read} up to seq {}",
                    trailer.n_events, trailer.last_seq, self.header.last_seq
                ),
            ));
        }
        let digest = self.digest.take().map(LineDigest::finish);
        if digest != Some(trailer.sha256) {
            return Err(self.bad(
                None,
                "the trailer's digest does not match the lines: lines were altered after export",
            ));
        }
        // Blank lines may follow the trailer (an editor's final newline),
        // nothing else.
        loop {
            self.line += 1;
            if !read_line(&mut self.input, &mut self.buf).map_err(|e| self.bad(None, e))? {
                return Ok(());
            }
            if !self.buf.iter().all(u8::is_ascii_whitespace) {
                return Err(self.bad(None, "a line after the trailer: the file ends there"));
            }
        }
    }
}

impl<R: BufRead> Iterator for ExportReader<R> {
    type Item = Result<ExportedEvent, ImportError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_event().transpose()
    }
}

/// Reads one line (without its newline) into `buf`; `false` at the end of
/// the input. Refuses a line over [`EXPORT_LINE_BYTES_MAX`] without
/// reading the rest of it into memory.
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> Result<bool, String> {
    buf.clear();
    let limit = EXPORT_LINE_BYTES_MAX as u64 + 1;
    let n = input
        .take(limit)
        .read_until(b'\n', buf)
        .map_err(|e| format!("reading the file failed: {e}"))?;
    if n == 0 {
        return Ok(false);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    } else if n as u64 == limit {
        return Err(format!(
            "the line is over {EXPORT_LINE_BYTES_MAX} bytes (EXPORT_LINE_BYTES_MAX)"
        ));
    }
    Ok(true)
}

/// What [`import_events`] appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Imported {
    pub n_events: u64,
    /// The log's last seq after the import.
    pub last_seq: u64,
    /// Memories (`Remembered` events) re-sealed under the log's key.
    pub n_resealed: u64,
}

/// Events waiting to be appended as one batch: one commit time.
#[derive(Debug, Default)]
struct Batch {
    first_seq: u64,
    ts_ms: u64,
    items: Vec<Restored>,
    /// The data keys the items are sealed under (a sealed log only).
    keys: Vec<(u64, Option<DataKey>)>,
    n_bytes: usize,
}

impl Batch {
    fn flush(&mut self, log: &Log) -> Result<(), ImportError> {
        if self.items.is_empty() {
            return Ok(());
        }
        if log.is_sealed() {
            log.install_keys(&self.keys)
                .map_err(|e| ImportError::Seal {
                    seq: self.first_seq,
                    reason: format!("restoring the data keys failed: {e}"),
                })?;
            log.append_restored_at(self.first_seq, self.ts_ms, &self.items)?;
        } else {
            let events: Vec<Event> = self
                .items
                .drain(..)
                .filter_map(|item| match item {
                    Restored::Event(event) => Some(*event),
                    Restored::Record(_) => None,
                })
                .collect();
            log.append_at(self.first_seq, self.ts_ms, &events)?;
        }
        self.items.clear();
        self.keys.clear();
        self.n_bytes = 0;
        Ok(())
    }

    /// `refusal`, once the events before the refused one are appended, so
    /// the log ends right before it. (If that append fails too, the log
    /// ends earlier; `refusal` is still the cause to report.)
    fn refuse(&mut self, log: &Log, refusal: ImportError) -> ImportError {
        let _ = self.flush(log);
        refusal
    }
}

/// Appends `events`, an ordered stream of exported events that continues
/// `log` (the first one's seq is the log's last seq + 1, seqs contiguous,
/// commit times never going back), to `log` with their seqs and commit
/// times ([`Log::append_at`]), so views folded from the new log equal the
/// old ones. Events of one commit time are appended in batches; nothing
/// else is assumed about where the stream comes from.
///
/// Each memory is re-sealed: its reference is read back from `log` (the
/// words as the new log holds them, which must be one session's turns),
/// their content hash must equal the one the memory recorded, and its
/// `mac` becomes the HMAC under `log`'s key. A mismatch stops the import
/// with [`ImportError::Seal`]. Whatever stops it (a refused memory, an
/// error from the stream), the log then ends right before the refused
/// event: every event before it is appended. Other events
/// are appended as they are (a `Checkpoint` stays the record of the log it
/// was written in). `progress` receives each seq taken from the stream.
///
/// A sealed store's events ([`super::SealedLine`]) go into a sealed log only:
/// each record is written as the source held it, under its own data key
/// (checked to open to exactly the line's event first), so content hashes
/// over the stored bytes still match; a memory, whose seal changes, is
/// sealed again under its own key (or, erased, under one destroyed at once).
pub fn import_events(
    log: &Log,
    events: impl IntoIterator<Item = Result<ExportedEvent, ImportError>>,
    progress: &dyn Fn(u64),
) -> Result<Imported, ImportError> {
    let mut batch = Batch::default();
    let mut imported = Imported::default();
    let mut source_turns: BTreeMap<u64, Vec<u8>> = BTreeMap::new();
    for (next_seq, exported) in (log.last_seq() + 1..).zip(events) {
        let ExportedEvent { logged, sealed } = match exported {
            Ok(exported) => exported,
            Err(refusal) => return Err(batch.refuse(log, refusal)),
        };
        let LoggedEvent {
            seq, ts_ms, event, ..
        } = logged;
        if seq != next_seq {
            let refusal = AppendError::SeqMismatch {
                first_seq: seq,
                expected: next_seq,
            };
            return Err(batch.refuse(log, refusal.into()));
        }
        let refused = |reason: String| ImportError::Seal { seq, reason };
        let key = sealed.as_ref().and_then(|s| s.key).map(DataKey::from_bytes);
        // The bytes the source log held for this event, for a memory's
        // seal over them (a store in another form holds other bytes).
        if matches!(event, Event::Session(_)) {
            let bytes = match &sealed {
                Some(sealed) => sealed.record.clone(),
                None => engram_log::codec::encode(&event).map_err(|e| refused(e.to_string()))?,
            };
            source_turns.insert(seq, bytes);
        }
        if let Some(sealed) = &sealed
            && !matches!(event, Event::Remembered(_))
        {
            // The record must hold exactly the line's event.
            let subject = key.clone().map_or(SubjectKey::Destroyed, SubjectKey::Live);
            match open_record(&sealed.record, seq, Some(&subject)) {
                Ok((opened, erased)) if opened == event && erased == key.is_none() => {}
                Ok(_) => {
                    let refusal =
                        refused("its sealed record does not hold the line's event".to_owned());
                    return Err(batch.refuse(log, refusal));
                }
                Err(e) => {
                    let refusal =
                        refused(format!("its sealed record does not open with its key: {e}"));
                    return Err(batch.refuse(log, refusal));
                }
            }
        }
        // Into a sealed log, a sealed record goes as it was, under its own
        // key; anything else is written (and, in a sealed log, sealed) anew.
        let (item, key) = match (log.is_sealed(), sealed) {
            (true, Some(sealed)) => (Some(Restored::Record(sealed.record)), Some(key)),
            _ => (None, None),
        };
        let event = match event {
            Event::Remembered(memory) => {
                // The words must be in the log before they are read back.
                if !batch.items.is_empty() && memory.reference.last_seq >= batch.first_seq {
                    batch.flush(log)?;
                }
                match reseal(log, seq, memory, &source_turns) {
                    Ok(memory) => {
                        imported.n_resealed += 1;
                        Event::Remembered(memory)
                    }
                    Err(refusal) => return Err(batch.refuse(log, refusal)),
                }
            }
            other => other,
        };
        let item = match (item, &key, &event) {
            // A memory's seal changed: its words are sealed again under
            // their own key, or (erased) its skeleton under a key that is
            // destroyed before the record is ever read.
            (Some(_), Some(Some(_)), Event::Remembered(_)) => {
                Restored::Event(Box::new(event.clone()))
            }
            (Some(_), Some(None), Event::Remembered(_)) => {
                let throwaway = DataKey::generate().map_err(|e| refused(e.to_string()))?;
                let record = seal_record(&event, seq, log.key(), &throwaway)
                    .map_err(|e| refused(e.to_string()))?;
                Restored::Record(record)
            }
            (Some(item), _, _) => item,
            (None, _, _) => Restored::Event(Box::new(event.clone())),
        };
        // The event's bytes in a frame payload: a u32 length, the encoding.
        let n_bytes = match &item {
            Restored::Record(record) => record.len(),
            Restored::Event(event) => engram_log::codec::encode(event)
                .map_err(|e| AppendError::Encode {
                    index: batch.items.len(),
                    reason: e.to_string(),
                })?
                .len(),
        } + 4
            + engram_log::sealed::NONCE_BYTES
            + engram_log::sealed::TAG_BYTES;
        let full = batch.n_bytes + n_bytes > FRAME_PAYLOAD_BYTES_TARGET
            || batch.items.len() >= BATCH_EVENTS_MAX;
        if !batch.items.is_empty() && (batch.ts_ms != ts_ms || full) {
            batch.flush(log)?;
        }
        if batch.items.is_empty() {
            batch.first_seq = seq;
            batch.ts_ms = ts_ms;
        }
        batch.items.push(item);
        if let Some(key) = key {
            batch.keys.push((seq, key));
        }
        batch.n_bytes += n_bytes;
        imported.n_events += 1;
        progress(seq);
    }
    batch.flush(log)?;
    imported.last_seq = log.last_seq();
    Ok(imported)
}

/// The memory sealed under `log`'s key, once its words as `log` holds them
/// match its content hash.
fn reseal(
    log: &Log,
    seq: u64,
    mut memory: Remembered,
    source_turns: &BTreeMap<u64, Vec<u8>>,
) -> Result<Remembered, ImportError> {
    let refused = |reason: String| ImportError::Seal { seq, reason };
    let actual = seal::stored_content_sha256(log.reader(), &memory.reference)
        .map_err(|e| refused(format!("the memory cannot be re-sealed: {e}")))?;
    if actual != memory.content_sha256 {
        // A store of another form (sealed into clear, or clear into
        // sealed: the migration) holds other bytes: the memory's hash is
        // checked over the bytes the source held, then made anew over
        // those this log holds.
        let reference = &memory.reference;
        let source: Option<Vec<&[u8]>> = (reference.first_seq..=reference.last_seq)
            .map(|turn| source_turns.get(&turn).map(Vec::as_slice))
            .collect();
        let source = source.map(seal::content_sha256_of_records);
        if source != Some(memory.content_sha256) {
            return Err(refused(format!(
                "the memory's words (seqs {} to {}) hash to {:?} but it was sealed over {:?}: its source was altered, it cannot be re-sealed",
                reference.first_seq,
                reference.last_seq,
                source.unwrap_or(actual),
                memory.content_sha256
            )));
        }
        memory.content_sha256 = actual;
    }
    memory.mac = seal::reference_mac(log.key(), &memory.reference, &memory.content_sha256);
    Ok(memory)
}

/// A step of [`import_file`], for progress reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportPhase {
    /// Reading and checking every line.
    Check,
    /// Appending.
    Append,
    /// Building the views of the imported log.
    Views,
}

/// What [`import_file`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportSummary {
    pub first_seq: u64,
    pub last_seq: u64,
    pub n_events: u64,
    /// Memories re-sealed under the store's key.
    pub n_memories: u64,
    /// The file continued a store that had events.
    pub continuation: bool,
}

/// Imports the export file at `path` into `store`, opened with `options`
/// (its key is the store's own: every memory is re-sealed under it).
///
/// A store with no log gets an export from seq 1, built in a staging
/// folder and moved into place when complete. A store with a log gets
/// only the export that continues it: the file's first seq is the store's
/// last seq + 1 and its header's `prev_sha256` is the line hash of the
/// store's last event. The whole file is checked before the first append;
/// then the views are built. See the module doc for what a failure leaves.
/// The import goes into the store's own log: `options.shared_log` is not
/// followed here (the CLI's `import --log` fills a shared log through a
/// staging store).
pub fn import_file(
    store: &Store,
    options: &StoreOptions,
    path: &Path,
    progress: &dyn Fn(ImportPhase, u64, u64),
) -> Result<ImportSummary, ImportError> {
    let options = &StoreOptions {
        shared_log: None,
        ..options.clone()
    };
    let header = ExportReader::open(path)?.header().clone();
    let continuation = store.has_log();
    let imported = if continuation {
        import_continuation(store, options, path, &header, progress)?
    } else {
        import_new(store, options, path, &header, progress)?
    };
    progress(ImportPhase::Views, 0, imported.last_seq);
    let engram = Engram::open_with(
        store.clone(),
        options,
        engram_projections::OpenOptions::default(),
        &|seq, upto| progress(ImportPhase::Views, seq, upto),
    )
    .map_err(|e| ImportError::Views(Box::new(e)))?;
    engram
        .close()
        .map_err(|e| ImportError::Views(Box::new(e)))?;
    Ok(ImportSummary {
        first_seq: header.first_seq,
        last_seq: imported.last_seq,
        n_events: imported.n_events,
        n_memories: imported.n_resealed,
        continuation,
    })
}

/// Reads and checks every line of the file (nothing is appended).
fn check_file(
    path: &Path,
    header: &ExportHeader,
    progress: &dyn Fn(ImportPhase, u64, u64),
) -> Result<(), ImportError> {
    for exported in ExportReader::open(path)? {
        progress(ImportPhase::Check, exported?.logged.seq, header.last_seq);
    }
    Ok(())
}

/// Appends the file to `log`, checking every line again as it goes (the
/// file may have changed since it was checked); an error names the line.
fn append_file(
    log: &Log,
    path: &Path,
    header: &ExportHeader,
    progress: &dyn Fn(ImportPhase, u64, u64),
) -> Result<Imported, ImportError> {
    let reader = ExportReader::open(path)?;
    if reader.header() != header {
        return Err(ImportError::BadLine {
            line: 1,
            seq: None,
            reason: "the header changed while importing".to_owned(),
        });
    }
    let imported = import_events(log, reader, &|seq| {
        progress(ImportPhase::Append, seq, header.last_seq);
    });
    imported.map_err(|e| match e {
        ImportError::Seal { seq, reason } => ImportError::BadLine {
            line: seq.saturating_sub(header.first_seq) + 2,
            seq: Some(seq),
            reason,
        },
        other => other,
    })
}

fn bulk(options: &StoreOptions) -> StoreOptions {
    StoreOptions {
        durability: Durability::None,
        ..options.clone()
    }
}

fn import_continuation(
    store: &Store,
    options: &StoreOptions,
    path: &Path,
    header: &ExportHeader,
    progress: &dyn Fn(ImportPhase, u64, u64),
) -> Result<Imported, ImportError> {
    // Opening for writing holds the store's writer lock until the end.
    let log = store.open_log(&bulk(options))?;
    let store_last_seq = log.last_seq();
    if header.first_seq != store_last_seq + 1 {
        return Err(ImportError::NotEmpty {
            store: store.dir().to_owned(),
            store_last_seq,
            first_seq: header.first_seq,
        });
    }
    if store_last_seq > 0 {
        let last = log.read(store_last_seq..=store_last_seq)?;
        let hash = last
            .first()
            .map(|e| line_sha256(e.seq, e.ts_ms, &e.event))
            .transpose()
            .map_err(|e| ImportError::Seal {
                seq: store_last_seq,
                reason: e.to_string(),
            })?
            .map(|(hash, _)| hash);
        if hash.is_none() || hash != header.prev_sha256 {
            return Err(ImportError::OtherStore {
                seq: store_last_seq,
            });
        }
    }
    check_file(path, header, progress)?;
    let imported = append_file(&log, path, header, progress).and_then(|imported| {
        log.sync()?;
        Ok(imported)
    });
    match imported {
        Ok(imported) => {
            log.close()?;
            Ok(imported)
        }
        Err(source) if log.last_seq() > store_last_seq => Err(ImportError::Interrupted {
            store_last_seq: log.last_seq(),
            source: Box::new(source),
        }),
        Err(source) => Err(source),
    }
}

/// What an import into a new store created, to remove on failure.
struct Created {
    dir: bool,
    key: Option<PathBuf>,
    /// The key store and master key files, when this import made them.
    sealing: Vec<PathBuf>,
    staging: PathBuf,
}

impl Created {
    fn undo(&self, store: &Store) {
        // Best effort: each removal that fails leaves a file the error
        // does not mention, never a log that looks whole.
        let _ = std::fs::remove_dir_all(&self.staging);
        // A key is removed only while no log uses it (another process
        // may have created the store meanwhile).
        if !store.has_log() {
            for file in self.key.iter().chain(&self.sealing) {
                let _ = std::fs::remove_file(file);
            }
        }
        if self.dir {
            let _ = std::fs::remove_dir(store.dir());
        }
    }
}

fn import_new(
    store: &Store,
    options: &StoreOptions,
    path: &Path,
    header: &ExportHeader,
    progress: &dyn Fn(ImportPhase, u64, u64),
) -> Result<Imported, ImportError> {
    if header.first_seq != 1 {
        return Err(ImportError::NoPrefix {
            first_seq: header.first_seq,
        });
    }
    let dir = store.dir();
    if dir.exists() && !dir.is_dir() {
        return Err(StoreError::NotAFolder {
            path: dir.to_owned(),
        }
        .into());
    }
    let staging = dir.join(STAGING_DIR_NAME);
    if staging.exists() {
        return Err(ImportError::StagingExists { path: staging });
    }
    // Every line is checked before anything is created.
    check_file(path, header, progress)?;
    let key_path = dir.join(engram_log::key::KEY_FILE_NAME);
    let sealing = [
        engram_log::keystore::KEY_STORE_FILE_NAME,
        engram_log::keystore::MASTER_KEY_FILE_NAME,
    ]
    .into_iter()
    .map(|name| dir.join(name))
    .filter(|path| !path.exists())
    .collect();
    let mut created = Created {
        dir: !dir.exists(),
        key: (!key_path.exists()).then_some(key_path),
        sealing,
        staging,
    };
    let result = build_staged(store, options, path, header, &created.staging, progress);
    if created.key.as_ref().is_some_and(|k| !k.exists()) {
        created.key = None;
    }
    match result {
        Ok(imported) => Ok(imported),
        Err(e) => {
            created.undo(store);
            Err(e)
        }
    }
}

/// Builds the log in `staging` and moves it to the store's `log` folder.
fn build_staged(
    store: &Store,
    options: &StoreOptions,
    path: &Path,
    header: &ExportHeader,
    staging: &Path,
    progress: &dyn Fn(ImportPhase, u64, u64),
) -> Result<Imported, ImportError> {
    let dir = store.dir();
    engram_log::storage::create_private_dir_all(dir).map_err(|source| StoreError::Create {
        path: dir.to_owned(),
        source,
    })?;
    let key = store.key(&options.key, true)?;
    let mut config = LogConfig::new(key)
        .durability(Durability::None)
        .segment_bytes_max(options.segment_bytes_max);
    // A new store seals its words unless told not to, whatever the export's
    // form: a sealed export's records come back as they were; an export in
    // the clear is sealed anew (the migration of a store written before
    // sealing), each memory's seal checked over the source's bytes first.
    config.keys = store.key_store(options, true)?;
    let log = Log::open_dir(staging, config)?;
    let imported = append_file(&log, path, header, progress)?;
    // Closing syncs every segment; the lock is released with the log.
    log.close()?;
    let moved = |source| ImportError::Staging {
        path: staging.to_owned(),
        source,
    };
    let log_dir = store.log_dir();
    if log_dir.exists() {
        // An empty `log` folder (the store has no log): make way.
        std::fs::remove_dir(&log_dir).map_err(moved)?;
    }
    std::fs::rename(staging, &log_dir).map_err(moved)?;
    File::open(dir).and_then(|d| d.sync_all()).map_err(moved)?;
    Ok(imported)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<Result<ExportedEvent, ImportError>> {
        match ExportReader::new(text.as_bytes()) {
            Ok(reader) => reader.collect(),
            Err(e) => vec![Err(e)],
        }
    }

    #[test]
    fn an_empty_export_reads_as_no_event() {
        let header = r#"{"engram_export":1,"engram_version":"x","first_seq":1,"last_seq":0,"n_events":0,"prev_sha256":null}"#;
        let digest = LineDigest::new().finish();
        let trailer = format!(
            r#"{{"engram_export_end":1,"n_events":0,"last_seq":0,"sha256":"{}"}}"#,
            hex::encode(digest.0)
        );
        assert!(lines(&format!("{header}\n{trailer}\n\n")).is_empty());
        let cut = lines(&format!("{header}\n"));
        assert!(
            matches!(cut.as_slice(), [Err(ImportError::Truncated { .. })]),
            "{cut:?}"
        );
        let after = lines(&format!("{header}\n{trailer}\n{{}}\n"));
        assert!(
            matches!(
                after.as_slice(),
                [Err(ImportError::BadLine { line: 3, .. })]
            ),
            "{after:?}"
        );
    }

    #[test]
    fn a_foreign_or_newer_header_is_refused_on_line_one() {
        for (text, expect) in [
            ("", "empty"),
            ("{\"role\":\"user\"}", "no `engram_export`"),
            (
                r#"{"engram_export":2,"first_seq":1,"last_seq":0,"n_events":0}"#,
                "version 2",
            ),
            ("not json", "not an engram export"),
        ] {
            let got = lines(text);
            let [
                Err(ImportError::BadLine {
                    line: 1, reason, ..
                }),
            ] = got.as_slice()
            else {
                panic!("{text:?}: {got:?}");
            };
            assert!(reason.contains(expect), "{text:?}: {reason}");
        }
    }

    #[test]
    fn an_overlong_line_is_refused_without_reading_it_whole() {
        let mut input = vec![b'x'; EXPORT_LINE_BYTES_MAX + 10];
        input.push(b'\n');
        let mut buf = Vec::new();
        let err = read_line(&mut input.as_slice(), &mut buf).unwrap_err();
        assert!(err.contains("EXPORT_LINE_BYTES_MAX"), "{err}");
        assert_eq!(buf.len(), EXPORT_LINE_BYTES_MAX + 1);
    }
}

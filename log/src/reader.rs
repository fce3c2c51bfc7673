//! The shared view of the log's segments, and reading from it: random reads
//! by seq through the sparse index, and sequential replay.
//!
//! **Invariant:** readers see only acknowledged frames. The writer extends a
//! segment's `len`, `index` and the log's `last_seq` under the write lock
//! after a commit group is written (and synced, under `Sync`), never before.

use std::collections::VecDeque;
use std::ops::RangeInclusive;
use std::sync::Arc;

use parking_lot::RwLock;

use crate::codec;
use crate::error::{Corruption, IoFailure, ReadError};
use crate::event::{Event, LoggedEvent};
use crate::format::Hash;
use crate::format::{FRAME_VERSION_SEALED, ParsedFrame};
use crate::key::HmacKey;
use crate::keystore::KeyStore;
use crate::limits::INDEX_STRIDE_BYTES;
use crate::record;
use crate::scan::{Chain, CursorError, FrameCursor, SEQUENTIAL_READ_BYTES};
use crate::storage::{Storage, StorageFile};
use crate::subject_keys::SubjectKeys;

/// One segment as the readers see it.
#[derive(Debug, Clone)]
pub(crate) struct Segment {
    pub(crate) name: String,
    pub(crate) first_seq: u64,
    pub(crate) file: Arc<dyn StorageFile>,
    /// Sparse index: (first seq of a frame, offset), ascending.
    pub(crate) index: Vec<(u64, u64)>,
    /// Bytes of acknowledged frames (header included).
    pub(crate) len: u64,
    /// Last seq in the segment; `first_seq - 1` when it holds no frame.
    pub(crate) last_seq: u64,
}

impl Segment {
    /// Offset of the indexed frame at or before `seq`, and the offset where
    /// the following index entry starts (the end of one small read).
    fn locate(&self, seq: u64) -> (u64, u64) {
        let at = self.index.partition_point(|&(first, _)| first <= seq);
        let start = at
            .checked_sub(1)
            .and_then(|i| self.index.get(i))
            .map_or(crate::format::SEGMENT_HEADER_LEN as u64, |&(_, offset)| {
                offset
            });
        let end = self.index.get(at).map_or(self.len, |&(_, offset)| offset);
        (start, end)
    }
}

/// Mutable state shared by the writer and the readers.
#[derive(Debug)]
pub(crate) struct State {
    /// Segments in seq order.
    pub(crate) segments: Vec<Segment>,
    pub(crate) last_seq: u64,
    pub(crate) last_hash: Hash,
    /// Commit time of the last frame: the writer never stamps an earlier one.
    pub(crate) last_ts_ms: u64,
    /// Set after any failed write or fsync; the writer refuses work after it.
    pub(crate) poisoned: Option<String>,
}

/// What readers and the writer share.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) storage: Arc<dyn Storage>,
    pub(crate) key: HmacKey,
    pub(crate) state: RwLock<State>,
    /// Woken (coalescing, never blocking the writer) after every commit.
    pub(crate) subscribers: parking_lot::Mutex<Vec<crossbeam_channel::Sender<()>>>,
    /// The key store, when the log was opened with one: beside the log
    /// (the writer reserves keys in it before each commit group), or kept
    /// elsewhere for a replica.
    pub(crate) keys: Option<Keys>,
    /// Frames that range reads checked lately (see [`RecentFrames`]).
    pub(crate) recent: RecentFrames,
}

/// The last few frames a range read checked (hash, chain link, HMAC), kept
/// as their payloads so that the next read of seqs inside one of them
/// neither reads nor hashes the frame again.
///
/// The views read the turns a memory names right after the feeder read
/// them, and a frame of a thousand events is hashed whole for each read
/// of one seq: without this, such reads were a third of a rebuild's CPU.
/// Frames are immutable once acknowledged and seqs never reused while a
/// log is open, so a cached frame never goes stale; only its bytes are
/// kept, so a purge that destroys a key still reads as erased.
///
/// [`Shared::read_with_records`] (what `expand`'s proof rests on) never
/// uses it: that read checks the bytes on disk each time.
#[derive(Debug, Default)]
pub(crate) struct RecentFrames(pub(crate) parking_lot::Mutex<VecDeque<Arc<CheckedFrame>>>);

/// How many frames [`RecentFrames`] keeps.
const RECENT_FRAMES_MAX: usize = 8;

/// The largest payload [`RecentFrames`] keeps (larger frames are read
/// again): with [`RECENT_FRAMES_MAX`], bounds the cache at 8 MiB.
const RECENT_FRAME_BYTES_MAX: usize = 1 << 20;

/// A frame that passed every check, as [`RecentFrames`] keeps it.
#[derive(Debug)]
pub(crate) struct CheckedFrame {
    version: u16,
    ts_ms: u64,
    first_seq: u64,
    /// Each event's bytes, in seq order from `first_seq`.
    events: Vec<Box<[u8]>>,
}

impl CheckedFrame {
    fn last_seq(&self) -> u64 {
        self.first_seq + self.events.len() as u64 - 1
    }
}

impl RecentFrames {
    /// The kept frame holding every seq of `first..=last`, if any.
    fn covering(&self, first: u64, last: u64) -> Option<Arc<CheckedFrame>> {
        self.0
            .lock()
            .iter()
            .find(|frame| frame.first_seq <= first && last <= frame.last_seq())
            .cloned()
    }

    /// Keeps `frame` (checked by the caller), dropping the oldest beyond
    /// [`RECENT_FRAMES_MAX`].
    fn keep(&self, frame: &ParsedFrame<'_>) {
        if frame.payload.len() > RECENT_FRAME_BYTES_MAX || frame.header.n_events == 0 {
            return;
        }
        let mut recent = self.0.lock();
        if recent
            .iter()
            .any(|kept| kept.first_seq == frame.header.first_seq)
        {
            return;
        }
        let events: Option<Vec<Box<[u8]>>> = frame.events().map(|e| e.map(Box::from)).collect();
        let Some(events) = events else {
            return;
        };
        debug_assert_eq!(events.len(), frame.header.n_events as usize);
        if recent.len() >= RECENT_FRAMES_MAX {
            recent.pop_front();
        }
        recent.push_back(Arc::new(CheckedFrame {
            version: frame.header.version,
            ts_ms: frame.header.ts_ms,
            first_seq: frame.header.first_seq,
            events,
        }));
    }
}

/// Where a sealed log's data keys are.
#[derive(Debug, Clone)]
pub(crate) enum Keys {
    /// The key store file beside the log: the writer reserves keys in it
    /// and seals batches under them.
    File(Arc<parking_lot::Mutex<KeyStore>>),
    /// Keys kept elsewhere (a shared log's, per team): the log takes
    /// frames sealed there (`Log::append_frame`) and appends no batch.
    Remote(Arc<dyn SubjectKeys>),
}

impl Keys {
    /// The keys, for reading and destroying.
    pub(crate) fn source(&self) -> &dyn SubjectKeys {
        match self {
            Keys::File(file) => &**file,
            Keys::Remote(remote) => &**remote,
        }
    }

    /// The key store file, when the keys are in one.
    pub(crate) fn file(&self) -> Option<&Arc<parking_lot::Mutex<KeyStore>>> {
        match self {
            Keys::File(file) => Some(file),
            Keys::Remote(_) => None,
        }
    }
}

impl Shared {
    pub(crate) fn last_seq(&self) -> u64 {
        self.state.read().last_seq
    }

    /// Decodes the event at `seq` from a frame of `version`: in the clear,
    /// or a record whose words open with the subject's key (erased, as its
    /// skeleton, when the key was destroyed).
    pub(crate) fn decode(
        &self,
        version: u16,
        seq: u64,
        bytes: &[u8],
    ) -> Result<(Event, bool), ReadError> {
        let decode_failed = |reason: String| ReadError::Decode { seq, reason };
        if version < FRAME_VERSION_SEALED {
            let event = codec::decode(bytes).map_err(|e| decode_failed(e.to_string()))?;
            return Ok((event, false));
        }
        let key = if record::is_sealed(bytes) {
            let keys = self.keys.as_ref().ok_or_else(|| ReadError::Keys {
                seq,
                reason: "its words are sealed and the log was opened without its key store"
                    .to_owned(),
            })?;
            let key = keys.source().key(seq).map_err(|e| ReadError::Keys {
                seq,
                reason: e.to_string(),
            })?;
            Some(key)
        } else {
            None
        };
        let opened =
            record::open(bytes, seq, key.as_ref()).map_err(|e| decode_failed(e.to_string()))?;
        Ok((opened.event, opened.erased))
    }

    /// Events `range` with the bytes each is stored as (what a memory's
    /// content hash covers), each frame hash- and HMAC-checked.
    pub(crate) fn read_with_records(
        self: &Arc<Self>,
        range: RangeInclusive<u64>,
    ) -> Result<Vec<(LoggedEvent, Vec<u8>)>, ReadError> {
        let (first, last) = (*range.start(), *range.end());
        self.check_range(first, last)?;
        let mut replay = Replay::new(Arc::clone(self), first, last, true);
        replay.pending_records = Some(VecDeque::new());
        let mut out = Vec::with_capacity(usize::try_from(last - first + 1).unwrap_or(0).min(4096));
        while let Some(event) = replay.next() {
            let event = event?;
            let record = replay
                .pending_records
                .as_mut()
                .and_then(VecDeque::pop_front)
                .unwrap_or_default();
            out.push((event, record));
        }
        Ok(out)
    }

    fn check_range(&self, first: u64, last: u64) -> Result<(), ReadError> {
        if first == 0 {
            return Err(ReadError::SeqZero);
        }
        if first > last {
            return Err(ReadError::EmptyRange { first, last });
        }
        let log_last = self.last_seq();
        if last > log_last {
            return Err(ReadError::PastEnd {
                requested: last,
                last: log_last,
            });
        }
        Ok(())
    }

    /// Events `range`, each frame hash- and HMAC-checked (lately, for a
    /// frame [`RecentFrames`] keeps).
    pub(crate) fn read(
        self: &Arc<Self>,
        range: RangeInclusive<u64>,
    ) -> Result<Vec<LoggedEvent>, ReadError> {
        let (first, last) = (*range.start(), *range.end());
        self.check_range(first, last)?;
        if let Some(frame) = self.recent.covering(first, last) {
            return (first..=last)
                .map(|seq| {
                    let at = usize::try_from(seq - frame.first_seq).unwrap_or(usize::MAX);
                    let bytes = frame.events.get(at).map_or(&[][..], |e| &e[..]);
                    let (event, erased) = self.decode(frame.version, seq, bytes)?;
                    Ok(LoggedEvent {
                        seq,
                        ts_ms: frame.ts_ms,
                        event,
                        erased,
                    })
                })
                .collect();
        }
        let mut replay = Replay::new(Arc::clone(self), first, last, true);
        replay.keep_checked = true;
        let mut events =
            Vec::with_capacity(usize::try_from(last - first + 1).unwrap_or(0).min(4096));
        for event in &mut replay {
            events.push(event?);
        }
        Ok(events)
    }
}

/// A sequential read of events `from..=upto`, checking each frame's hash,
/// chain link and HMAC. Yields an error at most once, then ends.
#[derive(Debug)]
pub struct Replay {
    shared: Arc<Shared>,
    /// Index into the shared segment table (segments are only ever appended).
    segment_idx: usize,
    /// Name of the segment the cursor reads, for error messages.
    segment_name: String,
    cursor: Option<FrameCursor>,
    /// Known once the first frame was read (replays from seq 1 start at genesis).
    chain: Option<Chain>,
    next_seq: u64,
    upto: u64,
    pending: VecDeque<LoggedEvent>,
    /// The stored bytes of each pending event, kept only when asked for
    /// (`Shared::read_with_records`).
    pending_records: Option<VecDeque<Vec<u8>>>,
    small_reads: bool,
    /// Whether each frame read is kept in [`Shared::recent`].
    keep_checked: bool,
    done: bool,
}

impl Replay {
    pub(crate) fn new(shared: Arc<Shared>, from: u64, upto: u64, small_reads: bool) -> Self {
        let from = from.max(1);
        let (segment_idx, last_seq) = {
            let state = shared.state.read();
            let idx = state
                .segments
                .partition_point(|s| s.first_seq <= from)
                .saturating_sub(1);
            (idx, state.last_seq)
        };
        let upto = upto.min(last_seq);
        let chain = (from == 1).then_some(Chain {
            next_seq: 1,
            prev_hash: crate::format::GENESIS_HASH,
        });
        Self {
            shared,
            segment_idx,
            segment_name: String::new(),
            cursor: None,
            chain,
            next_seq: from,
            upto,
            pending: VecDeque::new(),
            pending_records: None,
            small_reads,
            keep_checked: false,
            done: from > upto,
        }
    }

    /// The last seq this replay will yield.
    #[must_use]
    pub fn upto(&self) -> u64 {
        self.upto
    }

    /// Keeps the stored bytes of every event read from now on
    /// ([`Replay::take_record`]).
    pub(crate) fn keep_records(&mut self) {
        self.pending_records = Some(VecDeque::new());
    }

    /// The stored bytes of the event `next` returned last.
    pub(crate) fn take_record(&mut self) -> Option<Vec<u8>> {
        self.pending_records.as_mut()?.pop_front()
    }

    fn corrupted(&self, offset: u64, seq: u64, reason: String) -> ReadError {
        ReadError::Corrupted(Corruption {
            segment: self.segment_name.clone(),
            offset,
            seq,
            reason,
        })
    }

    /// Reads the next frame into `pending`.
    fn advance(&mut self) -> Result<(), ReadError> {
        loop {
            if self.cursor.is_none() {
                let located = {
                    let state = self.shared.state.read();
                    state.segments.get(self.segment_idx).map(|segment| {
                        let (start, small_end) = segment.locate(self.next_seq);
                        (
                            segment.name.clone(),
                            Arc::clone(&segment.file),
                            start,
                            small_end,
                            segment.len,
                        )
                    })
                };
                let Some((name, file, start, small_end, len)) = located else {
                    return Err(ReadError::PastEnd {
                        requested: self.next_seq,
                        last: self.upto,
                    });
                };
                let chunk = if self.small_reads {
                    usize::try_from(small_end.saturating_sub(start))
                        .unwrap_or(0)
                        .max(INDEX_STRIDE_BYTES as usize)
                } else {
                    SEQUENTIAL_READ_BYTES
                };
                self.segment_name = name;
                self.cursor = Some(FrameCursor::new(file, start, len, chunk));
            }
            let Some(cursor) = self.cursor.as_mut() else {
                continue;
            };
            let offset = cursor.offset();
            let frame = match cursor.next_frame() {
                Ok(Some((_, frame))) => frame,
                Ok(None) => {
                    self.cursor = None;
                    self.segment_idx += 1;
                    continue;
                }
                Err(CursorError::Io(e)) => {
                    return Err(ReadError::Io(IoFailure::new(
                        "reading segment",
                        self.segment_name.clone(),
                        e,
                    )));
                }
                Err(CursorError::Bad { offset, problem }) => {
                    let seq = self.next_seq;
                    return Err(self.corrupted(offset, seq, problem.to_string()));
                }
            };
            let header = frame.header;
            if header.last_seq() < self.next_seq {
                // An earlier frame of the indexed stretch: it must still link
                // into the chain for the frames we do return.
                self.chain = Some(Chain {
                    next_seq: header.last_seq() + 1,
                    prev_hash: frame.hash,
                });
                if !frame.mac_matches(&self.shared.key) {
                    return Err(self.corrupted(
                        offset,
                        header.first_seq,
                        "HMAC mismatch".to_owned(),
                    ));
                }
                continue;
            }
            let mut chain = self.chain.unwrap_or(Chain {
                next_seq: header.first_seq,
                prev_hash: header.prev_hash,
            });
            if let Err(reason) = chain.follow(&frame, Some(&self.shared.key)) {
                let seq = self.chain.map_or(header.first_seq, |c| c.next_seq);
                return Err(self.corrupted(offset, seq, reason));
            }
            self.chain = Some(chain);
            if self.keep_checked {
                self.shared.recent.keep(&frame);
            }
            for (seq, bytes) in (header.first_seq..).zip(frame.events()) {
                if seq < self.next_seq {
                    continue;
                }
                if seq > self.upto {
                    break;
                }
                let bytes = bytes.unwrap_or_default();
                let (event, erased) = self.shared.decode(header.version, seq, bytes)?;
                if let Some(records) = &mut self.pending_records {
                    records.push_back(bytes.to_vec());
                }
                self.pending.push_back(LoggedEvent {
                    seq,
                    ts_ms: header.ts_ms,
                    event,
                    erased,
                });
            }
            return Ok(());
        }
    }
}

impl Iterator for Replay {
    type Item = Result<LoggedEvent, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                self.next_seq = event.seq + 1;
                if event.seq >= self.upto {
                    self.done = true;
                }
                return Some(Ok(event));
            }
            if self.done {
                return None;
            }
            if let Err(e) = self.advance() {
                self.done = true;
                return Some(Err(e));
            }
        }
    }
}

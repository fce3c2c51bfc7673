//! The group-commit writer: one thread owns the open segment.
//!
//! Callers encode their batch on their own thread and send it over a bounded
//! channel; the writer drains whatever is queued, frames it (one frame per
//! commit group, split only at `FRAME_PAYLOAD_BYTES_TARGET`, a segment
//! boundary, or a batch stamped with another commit time), writes it with
//! one write, syncs once (under `Sync`), publishes the new frames to
//! readers, and acknowledges every caller with its seq range.
//!
//! A frame's commit time is the clock's, never earlier than the last one;
//! a batch appended at a given seq and time (`Log::append_at`, for import)
//! carries its own, and is refused unless it lands at exactly the next seq
//! and not before the last commit time.
//!
//! A frame made elsewhere (`Log::append_frame`: a replica copying a shared
//! log) is written byte for byte as it came, never merged with another, and
//! refused unless it starts at exactly the next seq, links to the last
//! frame's hash and is not stamped before the last commit time. Its chain
//! link is known only once every frame before it is framed, so a group that
//! holds a batch followed by a frame is split there.
//!
//! **Invariant:** a caller is acknowledged only after its frame is written
//! and, under `Durability::Sync`, after `fdatasync` returned. Any failed
//! write or sync poisons the log: the failed group and every later request
//! get `AppendError::Poisoned` until the log is reopened.

use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};

use crate::clock::Clock;
use crate::error::AppendError;
use crate::format::{
    FRAME_OVERHEAD, FRAME_VERSION_PLAIN, FRAME_VERSION_SEALED, Hash, SEGMENT_HEADER_LEN,
    SEGMENT_VERSION, SegmentHeader, TailRecord, TailState, write_frame_version,
};
use crate::limits::{FRAME_PAYLOAD_BYTES_TARGET, INDEX_STRIDE_BYTES, SEGMENT_PREALLOC_BYTES};
use crate::reader::{Keys, Segment, Shared};
use crate::record;
use crate::scan::segment_name;
use crate::sealed::SubjectKey;
use crate::storage::StorageFile;
use crate::tail::{TAIL_FILE_NAME, write_tail};

/// When an append is acknowledged relative to fdatasync.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Acknowledged after fdatasync returned: an acknowledged event survives
    /// a crash. The default.
    #[default]
    Sync,
    /// Acknowledged after the write; the writer syncs at least this often
    /// while there is unsynced data. A crash can lose events acknowledged in
    /// the last interval (plus the group being written): the loss window.
    Interval(Duration),
    /// Acknowledged after the write; synced only when a segment is sealed,
    /// on `Log::sync` and on close. For tests, bulk import and rebuilds.
    None,
}

/// The seq range an append was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Appended {
    pub first_seq: u64,
    pub last_seq: u64,
}

/// Where a batch must land: its first seq, and the commit time it is
/// stamped with instead of the clock's (`Log::append_at`), or the clock's
/// (`Log::append_expecting`: only the seq is asked for).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub(crate) first_seq: u64,
    pub(crate) ts_ms: Option<u64>,
}

pub(crate) enum Request {
    Append {
        /// Length-prefixed encoded events; for a sealed log, unsealed
        /// records (`record::split`) the writer seals once it knows their
        /// seqs.
        payload: Vec<u8>,
        n_events: u32,
        /// `None`: the next seq, stamped with the clock's time.
        stamp: Option<Stamp>,
        ack: Sender<Result<Appended, AppendError>>,
        /// Whether the writer may hold it back for up to [`LINGER`] to
        /// commit it with what comes next (a read's record, which nobody
        /// waits for).
        linger: bool,
    },
    /// A complete frame made elsewhere, hash and HMAC already checked.
    Frame {
        bytes: Vec<u8>,
        first_seq: u64,
        n_events: u32,
        ts_ms: u64,
        prev_hash: Hash,
        hash: Hash,
        ack: Sender<Result<Appended, AppendError>>,
    },
    Sync {
        ack: Sender<Result<(), AppendError>>,
    },
}

/// The writer thread's own state.
pub(crate) struct Writer {
    pub(crate) shared: Arc<Shared>,
    pub(crate) rx: Receiver<Request>,
    pub(crate) durability: Durability,
    pub(crate) segment_bytes_max: u64,
    pub(crate) clock: Arc<dyn Clock>,
    /// The open segment.
    pub(crate) file: Arc<dyn StorageFile>,
    pub(crate) segment_first_seq: u64,
    pub(crate) segment_name: String,
    /// Bytes written to the open segment so far.
    pub(crate) offset: u64,
    /// The open segment's file length: frames plus space reserved ahead of
    /// them (zeros). Never below `offset`.
    pub(crate) allocated: u64,
    pub(crate) last_indexed: Option<u64>,
    pub(crate) next_seq: u64,
    pub(crate) prev_hash: Hash,
    pub(crate) last_ts: u64,
    /// Written but not yet synced.
    pub(crate) dirty: bool,
    pub(crate) last_sync: Duration,
    /// Appends held back to share the next commit ([`Request::Append`]'s
    /// `linger`), in the order they came, with their payload bytes and the
    /// time the first came.
    pub(crate) lingering: Vec<Request>,
    pub(crate) lingering_bytes: usize,
    pub(crate) lingering_since: Duration,
}

/// How long the writer holds back an append that nobody waits for (a
/// read's record), so that a run of reads shares one commit, one fsync and
/// one wake-up of the views instead of paying each per read. It bounds
/// how much later than its read such a record becomes durable.
pub(crate) const LINGER: Duration = Duration::from_millis(20);

/// A batch admitted to a commit group, with the commit time its frame gets.
struct Admitted {
    body: Body,
    /// The seq of the body's first event.
    first_seq: u64,
    n_events: u32,
    ts_ms: u64,
    ack: Sender<Result<Appended, AppendError>>,
}

/// What an admitted request writes.
enum Body {
    /// Length-prefixed encoded events, framed by the writer.
    Batch(Vec<u8>),
    /// A whole frame, written as it is; `hash` is its chain hash.
    Frame { bytes: Vec<u8>, hash: Hash },
}

impl Admitted {
    fn is_batch_at(&self, ts_ms: u64) -> bool {
        matches!(self.body, Body::Batch(_)) && self.ts_ms == ts_ms
    }
}

/// A written group's acks and publishes, or the failure's cause and the
/// acks still owed.
type GroupWritten = Result<(Vec<PendingAck>, Vec<Publish>), (String, Vec<PendingAck>)>;

/// One frame-to-be of a commit group.
struct PendingAck {
    first_seq: u64,
    last_seq: u64,
    ack: Sender<Result<Appended, AppendError>>,
}

/// Index entries and lengths to publish to readers after a commit.
struct Publish {
    segment_name: String,
    index: Vec<(u64, u64)>,
    len: u64,
    last_seq: u64,
}

impl Writer {
    pub(crate) fn run(mut self) {
        loop {
            let wait = match (self.sync_deadline(), self.linger_deadline()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let request = match wait {
                Some(wait) => match self.rx.recv_timeout(wait) {
                    Ok(request) => request,
                    Err(RecvTimeoutError::Timeout) => {
                        if self.linger_deadline().is_some_and(|d| d.is_zero()) {
                            let lingering = self.take_lingering();
                            self.commit(lingering);
                        }
                        if self.sync_deadline().is_some_and(|d| d.is_zero()) {
                            self.interval_sync();
                        }
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => break,
                },
                None => match self.rx.recv() {
                    Ok(request) => request,
                    Err(_) => break,
                },
            };
            let request_bytes = payload_len(&request);
            if matches!(request, Request::Append { linger: true, .. })
                && self.lingering_bytes + request_bytes < FRAME_PAYLOAD_BYTES_TARGET
            {
                if self.lingering.is_empty() {
                    self.lingering_since = self.clock.monotonic();
                }
                self.lingering_bytes += request_bytes;
                self.lingering.push(request);
                continue;
            }
            // What lingered goes first: the writer takes requests in order.
            let mut group_bytes = self.lingering_bytes + request_bytes;
            let mut group = self.take_lingering();
            group.push(request);
            while group_bytes < FRAME_PAYLOAD_BYTES_TARGET {
                match self.rx.try_recv() {
                    Ok(request) => {
                        group_bytes += payload_len(&request);
                        group.push(request);
                    }
                    Err(_) => break,
                }
            }
            self.commit(group);
        }
        let lingering = self.take_lingering();
        if !lingering.is_empty() {
            self.commit(lingering);
        }
        // The channel closed: make everything written durable, then
        // record that the log ends exactly there.
        if self.poison_cause().is_none()
            && let Err(cause) = self.seal().and_then(|()| self.record_closed())
        {
            self.poison(cause);
        }
    }

    /// Records a clean close in the tail record: the open segment ends at
    /// `offset` with nothing reserved after it, all of it synced. From now
    /// on, damage anywhere in the log is corruption, never a torn write.
    fn record_closed(&self) -> Result<(), String> {
        let record = TailRecord {
            state: TailState::Closed,
            segment_first_seq: self.segment_first_seq,
            segment_len: self.offset,
            last_seq: self.next_seq - 1,
            last_hash: self.prev_hash,
        };
        write_tail(&*self.shared.storage, &self.shared.key, &record)
            .map_err(|e| format!("recording the clean close in {TAIL_FILE_NAME} failed: {e}"))
    }

    /// Gives back the space reserved past the last frame and fdatasyncs the
    /// open segment: before a new segment starts, and on close.
    fn seal(&mut self) -> Result<(), String> {
        if self.allocated > self.offset {
            self.file.set_len(self.offset).map_err(|e| {
                format!(
                    "trimming reserved space of {} failed: {e}",
                    self.segment_name
                )
            })?;
            self.allocated = self.offset;
        }
        self.file
            .sync_data()
            .map_err(|e| format!("fdatasync sealing {} failed: {e}", self.segment_name))?;
        self.dirty = false;
        Ok(())
    }

    fn poison_cause(&self) -> Option<String> {
        self.shared.state.read().poisoned.clone()
    }

    fn poison(&self, cause: String) {
        let mut state = self.shared.state.write();
        if state.poisoned.is_none() {
            state.poisoned = Some(cause);
        }
    }

    /// How long until an `Interval` sync is due, if one is pending.
    fn sync_deadline(&self) -> Option<Duration> {
        match self.durability {
            Durability::Interval(every) if self.dirty => {
                let since = self.clock.monotonic().saturating_sub(self.last_sync);
                Some(every.saturating_sub(since))
            }
            _ => None,
        }
    }

    /// How long until what lingers must be committed, if anything does.
    fn linger_deadline(&self) -> Option<Duration> {
        if self.lingering.is_empty() {
            return None;
        }
        let since = self.clock.monotonic().saturating_sub(self.lingering_since);
        Some(LINGER.saturating_sub(since))
    }

    fn take_lingering(&mut self) -> Vec<Request> {
        self.lingering_bytes = 0;
        std::mem::take(&mut self.lingering)
    }

    fn interval_sync(&mut self) {
        if self.dirty && self.poison_cause().is_none() {
            match self.file.sync_data() {
                Ok(()) => {
                    self.dirty = false;
                    self.last_sync = self.clock.monotonic();
                }
                Err(e) => self.poison(format!("fdatasync of {} failed: {e}", self.segment_name)),
            }
        }
    }

    fn commit(&mut self, group: Vec<Request>) {
        let mut rest = group;
        while !rest.is_empty() {
            rest = self.commit_some(rest);
        }
    }

    /// Admits and writes the requests of `group` up to the first frame
    /// whose chain link is not known yet (it follows a batch of this
    /// group); returns the requests left for the next round.
    fn commit_some(&mut self, group: Vec<Request>) -> Vec<Request> {
        if let Some(cause) = self.poison_cause() {
            refuse(group, &cause);
            return Vec::new();
        }
        let mut appends = Vec::with_capacity(group.len());
        let mut syncs = Vec::new();
        let mut deferred = Vec::new();
        // Seqs, commit times and the chain as they will be once the
        // admitted requests are written: a stamped batch or a frame must
        // land exactly where it says, at or after the last commit time;
        // clock-stamped ones never go back. The chain hash after a batch is
        // known only once it is framed (`None`).
        let clock_ts = self.clock.unix_ms();
        let mut next_seq = self.next_seq;
        let mut last_ts = self.last_ts;
        let mut chain = Some(self.prev_hash);
        let mut requests = group.into_iter();
        while let Some(request) = requests.next() {
            match (request, chain) {
                // A frame after a batch of this round: its link is known
                // once the batch is framed, in the next round.
                (request @ Request::Frame { .. }, None) => {
                    deferred.push(request);
                    deferred.extend(requests);
                    break;
                }
                (
                    Request::Append {
                        payload,
                        n_events,
                        stamp,
                        ack,
                        linger: _,
                    },
                    _,
                ) => {
                    let ts_ms = match stamp {
                        None => clock_ts.max(last_ts),
                        Some(stamp) => {
                            if let Err(refusal) = admit(stamp, next_seq, last_ts) {
                                let _ = ack.send(Err(refusal));
                                continue;
                            }
                            stamp.ts_ms.unwrap_or(clock_ts.max(last_ts))
                        }
                    };
                    let first_seq = next_seq;
                    next_seq += u64::from(n_events);
                    last_ts = ts_ms;
                    chain = None;
                    appends.push(Admitted {
                        body: Body::Batch(payload),
                        first_seq,
                        n_events,
                        ts_ms,
                        ack,
                    });
                }
                (
                    Request::Frame {
                        bytes,
                        first_seq,
                        n_events,
                        ts_ms,
                        prev_hash,
                        hash,
                        ack,
                    },
                    Some(chain_hash),
                ) => {
                    let stamp = Stamp {
                        first_seq,
                        ts_ms: Some(ts_ms),
                    };
                    let admitted = admit(stamp, next_seq, last_ts).and_then(|()| {
                        if prev_hash == chain_hash {
                            Ok(())
                        } else {
                            Err(AppendError::ChainMismatch { first_seq })
                        }
                    });
                    if let Err(refusal) = admitted {
                        let _ = ack.send(Err(refusal));
                        continue;
                    }
                    next_seq += u64::from(n_events);
                    last_ts = ts_ms;
                    chain = Some(hash);
                    appends.push(Admitted {
                        body: Body::Frame { bytes, hash },
                        first_seq,
                        n_events,
                        ts_ms,
                        ack,
                    });
                }
                (Request::Sync { ack }, _) => syncs.push(ack),
            }
        }
        if appends.is_empty() && syncs.is_empty() {
            return deferred;
        }
        // Reserve before append: the keys of every seq this group takes are
        // durable before any of its frames is written.
        if next_seq > self.next_seq
            && let Some(keys) = self.shared.keys.as_ref().and_then(Keys::file)
            && let Err(e) = keys.lock().reserve(next_seq - 1)
        {
            let cause = format!("reserving keys before seq {next_seq} failed: {e}");
            self.fail_group(&cause, appends, syncs);
            return deferred;
        }
        let mut appends = appends;
        if let Err(cause) = self.seal_batches(&mut appends) {
            self.fail_group(&cause, appends, syncs);
            return deferred;
        }
        let force_sync = !syncs.is_empty();
        match self.write_group(appends, force_sync) {
            Ok((acks, publishes)) => {
                self.publish(publishes);
                for pending in acks {
                    let _ = pending.ack.send(Ok(Appended {
                        first_seq: pending.first_seq,
                        last_seq: pending.last_seq,
                    }));
                }
                for ack in syncs {
                    let _ = ack.send(Ok(()));
                }
            }
            Err((cause, acks)) => {
                self.poison(cause.clone());
                for pending in acks {
                    let _ = pending.ack.send(Err(AppendError::Poisoned {
                        cause: cause.clone(),
                    }));
                }
                for ack in syncs {
                    let _ = ack.send(Err(AppendError::Poisoned {
                        cause: cause.clone(),
                    }));
                }
            }
        }
        deferred
    }

    /// Poisons the log with `cause` and refuses every request of a group
    /// that was not written.
    fn fail_group(
        &self,
        cause: &str,
        appends: Vec<Admitted>,
        syncs: Vec<Sender<Result<(), AppendError>>>,
    ) {
        self.poison(cause.to_owned());
        let poisoned = || AppendError::Poisoned {
            cause: cause.to_owned(),
        };
        for admitted in appends {
            let _ = admitted.ack.send(Err(poisoned()));
        }
        for ack in syncs {
            let _ = ack.send(Err(poisoned()));
        }
    }

    /// Seals the words of every batch of a sealed log under the data keys
    /// of the seqs the batch was admitted at (reserved already). The keys
    /// were just reserved, so failing to read one is an I/O failure: it
    /// fails the whole group (later batches' seqs depend on earlier ones).
    fn seal_batches(&self, appends: &mut [Admitted]) -> Result<(), String> {
        let keys = match &self.shared.keys {
            None => return Ok(()),
            Some(Keys::File(keys)) => keys,
            // A replica's log takes sealed frames only (refused before).
            Some(Keys::Remote(_)) => {
                return if appends.iter().any(|a| matches!(a.body, Body::Batch(_))) {
                    Err("a replica of a shared log appends no batch of its own".to_owned())
                } else {
                    Ok(())
                };
            }
        };
        let mut keys = keys.lock();
        for admitted in appends {
            let Body::Batch(payload) = &admitted.body else {
                continue;
            };
            let sealed =
                record::seal_payload(payload, admitted.first_seq, |seq| match keys.key(seq) {
                    Ok(SubjectKey::Live(key)) => Ok(key),
                    Ok(SubjectKey::Destroyed) => Err(format!(
                        "the data key of seq {seq} was destroyed before use"
                    )),
                    Err(e) => Err(format!("reading the data key of seq {seq}: {e}")),
                })?;
            admitted.body = Body::Batch(sealed);
        }
        Ok(())
    }

    /// Frames, writes and (per durability) syncs a group. A frame ends at
    /// `FRAME_PAYLOAD_BYTES_TARGET`, before a batch stamped with another
    /// commit time, before a frame made elsewhere, and at a segment
    /// boundary; a frame made elsewhere is copied as it is. On failure
    /// returns the cause and the acks still owed.
    fn write_group(&mut self, appends: Vec<Admitted>, force_sync: bool) -> GroupWritten {
        let mut acks: Vec<PendingAck> = Vec::with_capacity(appends.len());
        let mut publishes: Vec<Publish> = Vec::new();
        let mut out: Vec<u8> = Vec::new();
        let mut out_offset = self.offset;
        let mut frame_payload: Vec<u8> = Vec::new();
        let mut frame_events: u32 = 0;
        let mut batches = appends.into_iter().peekable();
        let mut publish = Publish {
            segment_name: self.segment_name.clone(),
            index: Vec::new(),
            len: self.offset,
            last_seq: self.next_seq - 1,
        };
        while let Some(Admitted {
            body,
            n_events,
            ts_ms: ts,
            ack,
            ..
        }) = batches.next()
        {
            let first_seq = self.next_seq + u64::from(frame_events);
            acks.push(PendingAck {
                first_seq,
                last_seq: first_seq + u64::from(n_events) - 1,
                ack,
            });
            let made_elsewhere = match body {
                Body::Batch(payload) => {
                    if frame_payload.is_empty() {
                        frame_payload = payload;
                    } else {
                        frame_payload.extend_from_slice(&payload);
                    }
                    frame_events += n_events;
                    let frame_full = frame_payload.len() >= FRAME_PAYLOAD_BYTES_TARGET;
                    if !frame_full && batches.peek().is_some_and(|next| next.is_batch_at(ts)) {
                        continue;
                    }
                    None
                }
                Body::Frame { bytes, hash } => {
                    assert!(
                        frame_payload.is_empty(),
                        "a batch is framed before the frame that follows it"
                    );
                    frame_events = n_events;
                    Some((bytes, hash))
                }
            };
            let frame_len = match &made_elsewhere {
                Some((bytes, _)) => bytes.len() as u64,
                None => (FRAME_OVERHEAD + frame_payload.len()) as u64,
            };
            // Seal the open segment first if this frame would overflow it
            // (a segment always takes at least one frame).
            let segment_has_frames = out_offset > SEGMENT_HEADER_LEN as u64;
            if segment_has_frames && out_offset + frame_len > self.segment_bytes_max {
                if let Err(cause) = self.write_out(&mut out) {
                    return Err((cause, acks));
                }
                publishes.push(publish);
                if let Err(cause) = self.rotate() {
                    return Err((cause, acks));
                }
                out_offset = self.offset;
                publish = Publish {
                    segment_name: self.segment_name.clone(),
                    index: Vec::new(),
                    len: self.offset,
                    last_seq: self.next_seq - 1,
                };
            }
            let frame_first = self.next_seq;
            if self
                .last_indexed
                .is_none_or(|at| out_offset - at >= INDEX_STRIDE_BYTES)
            {
                publish.index.push((frame_first, out_offset));
                self.last_indexed = Some(out_offset);
            }
            self.prev_hash = match made_elsewhere {
                Some((bytes, hash)) => {
                    out.extend_from_slice(&bytes);
                    hash
                }
                None => write_frame_version(
                    &mut out,
                    if self.shared.keys.is_some() {
                        FRAME_VERSION_SEALED
                    } else {
                        FRAME_VERSION_PLAIN
                    },
                    &self.shared.key,
                    frame_first,
                    frame_events,
                    ts,
                    &self.prev_hash,
                    &frame_payload,
                ),
            };
            out_offset += frame_len;
            self.last_ts = ts;
            self.next_seq += u64::from(frame_events);
            publish.len = out_offset;
            publish.last_seq = self.next_seq - 1;
            frame_payload.clear();
            frame_events = 0;
        }
        if let Err(cause) = self.write_out(&mut out) {
            return Err((cause, acks));
        }
        self.dirty = true;
        let sync_now = force_sync
            || match self.durability {
                Durability::Sync => true,
                Durability::Interval(every) => {
                    self.clock.monotonic().saturating_sub(self.last_sync) >= every
                }
                Durability::None => false,
            };
        if sync_now {
            if let Err(e) = self.file.sync_data() {
                return Err((
                    format!("fdatasync of {} failed: {e}", self.segment_name),
                    acks,
                ));
            }
            self.dirty = false;
            self.last_sync = self.clock.monotonic();
        }
        publishes.push(publish);
        Ok((acks, publishes))
    }

    /// Writes the buffered frames to the open segment at `offset`.
    fn write_out(&mut self, out: &mut Vec<u8>) -> Result<(), String> {
        if out.is_empty() {
            return Ok(());
        }
        let end = self.offset + out.len() as u64;
        if end > self.allocated {
            // Reserve ahead so the next appends overwrite reserved zeros:
            // their fdatasync then has no file-size change to commit.
            let target =
                end.max((self.offset + SEGMENT_PREALLOC_BYTES).min(self.segment_bytes_max));
            self.file.allocate(target).map_err(|e| {
                format!(
                    "reserving space in {} up to {target} failed: {e}",
                    self.segment_name
                )
            })?;
            self.allocated = target;
        }
        self.file.write_all_at(out, self.offset).map_err(|e| {
            format!(
                "writing {} at offset {} failed: {e}",
                self.segment_name, self.offset
            )
        })?;
        self.offset += out.len() as u64;
        out.clear();
        Ok(())
    }

    /// Seals the open segment (synced whatever the durability) and starts the next.
    fn rotate(&mut self) -> Result<(), String> {
        self.seal()?;
        let (name, file) = create_segment(
            &*self.shared.storage,
            &self.shared.key,
            self.next_seq,
            &self.prev_hash,
        )?;
        self.shared.state.write().segments.push(Segment {
            name: name.clone(),
            first_seq: self.next_seq,
            file: Arc::clone(&file),
            index: Vec::new(),
            len: SEGMENT_HEADER_LEN as u64,
            last_seq: self.next_seq - 1,
        });
        self.file = file;
        self.segment_first_seq = self.next_seq;
        self.segment_name = name;
        self.offset = SEGMENT_HEADER_LEN as u64;
        self.allocated = SEGMENT_HEADER_LEN as u64;
        self.last_indexed = None;
        self.dirty = false;
        Ok(())
    }

    /// Makes the committed frames visible to readers.
    fn publish(&self, publishes: Vec<Publish>) {
        let mut state = self.shared.state.write();
        for p in publishes {
            let Some(segment) = state
                .segments
                .iter_mut()
                .rev()
                .find(|s| s.name == p.segment_name)
            else {
                panic!("writer published to unknown segment {}", p.segment_name);
            };
            assert!(p.len >= segment.len, "segment length went backwards");
            segment.index.extend(p.index);
            segment.len = p.len;
            segment.last_seq = p.last_seq;
        }
        let last = self.next_seq - 1;
        assert!(last >= state.last_seq, "last seq went backwards");
        state.last_seq = last;
        state.last_hash = self.prev_hash;
        state.last_ts_ms = self.last_ts;
        drop(state);
        // A full channel already holds a wake-up; a closed one is dropped.
        self.shared.subscribers.lock().retain(|tx| {
            !matches!(
                tx.try_send(()),
                Err(crossbeam_channel::TrySendError::Disconnected(()))
            )
        });
    }
}

/// Creates a segment file holding only its header, synced, with the folder synced.
pub(crate) fn create_segment(
    storage: &dyn crate::storage::Storage,
    key: &crate::key::HmacKey,
    first_seq: u64,
    prev_hash: &Hash,
) -> Result<(String, Arc<dyn StorageFile>), String> {
    let name = segment_name(first_seq);
    let header = SegmentHeader {
        version: SEGMENT_VERSION,
        first_seq,
        key_id: key.key_id(),
        prev_hash: *prev_hash,
    };
    let file = storage
        .create(&name)
        .map_err(|e| format!("creating segment {name} failed: {e}"))?;
    file.write_all_at(&header.encode(), 0)
        .and_then(|()| file.sync_data())
        .map_err(|e| format!("writing header of segment {name} failed: {e}"))?;
    storage
        .sync_dir()
        .map_err(|e| format!("syncing the log folder after creating {name} failed: {e}"))?;
    Ok((name, file))
}

/// Whether a stamped batch may land now: at exactly the next seq, and not
/// before the last commit time.
fn admit(stamp: Stamp, next_seq: u64, last_ts: u64) -> Result<(), AppendError> {
    if stamp.first_seq != next_seq {
        return Err(AppendError::SeqMismatch {
            first_seq: stamp.first_seq,
            expected: next_seq,
        });
    }
    if let Some(ts_ms) = stamp.ts_ms
        && ts_ms < last_ts
    {
        return Err(AppendError::TimeBackwards {
            ts_ms,
            last_ts_ms: last_ts,
        });
    }
    Ok(())
}

fn payload_len(request: &Request) -> usize {
    match request {
        Request::Append { payload, .. } => payload.len(),
        Request::Frame { bytes, .. } => bytes.len(),
        Request::Sync { .. } => 0,
    }
}

fn refuse(group: Vec<Request>, cause: &str) {
    for request in group {
        match request {
            Request::Append { ack, .. } | Request::Frame { ack, .. } => {
                let _ = ack.send(Err(AppendError::Poisoned {
                    cause: cause.to_owned(),
                }));
            }
            Request::Sync { ack } => {
                let _ = ack.send(Err(AppendError::Poisoned {
                    cause: cause.to_owned(),
                }));
            }
        }
    }
}

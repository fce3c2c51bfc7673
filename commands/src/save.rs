//! The save handler: remember (plain text, a reference to turns already in
//! the log, or a batch of either) as validate -> redact -> gate -> decide
//! -> append, written once over [`CommandStore`].
//!
//! **A save is one atomic append.** The `note` turn that records plain
//! words, the `Remembered` that seals them, and the events that name the
//! new memory (`EntityLinked`, `TtlSet`, `ContradictionFlagged`) go to the
//! log in one batch: one fsync, and after a crash the log holds all of a
//! save or none of it. The seal names the seq of the note and the links
//! name the memory's seq, so the batch is built for the seq the log is
//! expected to give it ([`CommandStore::append_expecting`]) and built again
//! for the next one when another append came first.
//!
//! **A batch of saves is one append too.** Every item is decided in order
//! against the views and against the items before it in the same batch (a
//! restatement of an earlier item reinforces it), then all of them go to
//! the log together. Only a batch past [`PART_EVENTS_MAX`] events or
//! [`PART_BYTES_MAX`] (well inside the log's batch limits) is split, at item
//! boundaries, each part atomic with one fsync. An item with bad input is reported by
//! its index and appends nothing; an item a gate denies appends its
//! `GateDenied` with the others; the other items are saved.
//!
//! A batch in parts appends each part without waiting for the views
//! ([`CommandStore::append_expecting_unviewed`]): they fold one part while
//! the next is built, at most one part behind, and the save answers once
//! they applied the last (its receipts read the palace).
//!
//! **Invariant:** the caller holds no view lock across `append_expecting`
//! (the store waits there until every view applied the batch), and the
//! handler holds the store's write lock from the first read of the views
//! to the last append, so two saves never decide on the same state.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap;

use engram_log::seal::{self, SealError};
use engram_log::{
    Actor, Appended, ContradictionFlagged, CorridorPlaced, Digest, Discarded, Embedding,
    EntityLinked, Event, HmacKey, LogReader, MemoryId, MemoryRef, Placed, Reinforced, Remembered,
    SessionEvent, TierChanged, TtlSet,
};
use engram_projections::CoreViews;
use engram_projections::models::{MemoryStatus, UNSORTED_ROOM};
use engram_text::script::model_reads;
use engram_text::tokenize::query_terms;
use sha2::Digest as _;

use crate::decide::{self, Decision, Neighbour, Outcome as Decided};
use crate::gate::{Action, Denial, GateChain, Object, Subject};
use crate::memory::{
    self, InputError, MemoryMeta, NOTES_SESSION, clean_subject, content_bytes, note_event,
};

/// Neighbours a save is compared with.
const DECIDE_NEIGHBOURS: usize = 10;
/// Query terms a save's neighbours are searched with (long texts are cut).
const DECIDE_QUERY_TERMS_MAX: usize = 64;
/// Times a batch is built again because another append took its seq
/// first, before the save gives up. Each refusal names the seq the log
/// is at, so a retry fails again only when yet another append came first.
pub const APPEND_TRIES_MAX: usize = 64;
/// Events in one appended part of a batch: well under the log's
/// `BATCH_EVENTS_MAX`, so a part is never refused for its count.
pub const PART_EVENTS_MAX: usize = 16_384;
/// Estimated bytes in one appended part of a batch: half the log's
/// `BATCH_BYTES_MAX`, leaving room for the codec's framing.
pub const PART_BYTES_MAX: usize = 8 * 1024 * 1024;

/// What the engine offers the command handlers: the views, the log, the
/// key, the gates and an append. The engine (`engram::Engram`) implements
/// it; a test double can too.
pub trait CommandStore {
    /// The store's own failure (I/O, a view that fell behind, ...).
    type Error: std::error::Error + Send + Sync + 'static;
    /// The live views, current up to the last append made through this store.
    fn views(&self) -> &CoreViews;
    /// The log, for reading referenced turns.
    fn reader(&self) -> &LogReader;
    /// The key memories are sealed with.
    fn key(&self) -> &HmacKey;
    /// The gate chain every write passes.
    fn gates(&self) -> &GateChain;
    /// Serializes read-decide-append commands.
    fn write_lock(&self) -> parking_lot::MutexGuard<'_, ()>;
    /// Holds (`true`) what reads record (a recall's or an expand's
    /// evidence) beside the log instead of appending it, or appends what
    /// was held and stops holding (`false`). A save holds them while it
    /// appends: each part of a batch is built for the seq the log is
    /// expected to give it, and a client reading in a tight loop would
    /// otherwise take those seqs first, part after part. The default holds
    /// nothing.
    fn hold_reads(&self, hold: bool) -> Result<(), Self::Error> {
        let _ = hold;
        Ok(())
    }
    /// The seq the next append takes unless another comes first.
    fn next_seq(&self) -> u64;
    /// Appends `events` and returns once every view applied them.
    fn append(&self, events: &[Event]) -> Result<Appended, Self::Error>;
    /// Appends `events` as seqs `first_seq..` and returns once every view
    /// applied them, or says where the log is now when another append took
    /// `first_seq` first (nothing written).
    fn append_expecting(&self, first_seq: u64, events: &[Event]) -> Result<Expecting, Self::Error>;
    /// [`CommandStore::append_expecting`], returning once the events are
    /// durable without waiting for the views: the caller waits with
    /// [`CommandStore::wait_for_views`] before it reads them. A batch in
    /// parts appends each part this way, so the views fold one part while
    /// the next is built.
    fn append_expecting_unviewed(
        &self,
        first_seq: u64,
        events: &[Event],
    ) -> Result<Expecting, Self::Error>;
    /// Returns once every view applied `seq` (appended through this store).
    fn wait_for_views(&self, seq: u64) -> Result<(), Self::Error>;
    /// The content hash (`engram_log::seal`) of `event` as the log will
    /// hold it at `seq`: a sealed store seals per seq, and the hash covers
    /// what the log holds, so it is known only once the seq is.
    fn content_sha256_at(&self, seq: u64, event: &Event) -> Result<Digest, Self::Error>;
    /// [`CommandStore::content_sha256_at`], and the record it was computed
    /// over when the store can take it back sealed
    /// ([`CommandStore::append_expecting_unviewed_sealed`]), so that a note
    /// is sealed once, not once to hash it and again to write it. The
    /// default hands no record.
    fn record_at(&self, seq: u64, event: &Event) -> Result<(Digest, Option<Vec<u8>>), Self::Error> {
        Ok((self.content_sha256_at(seq, event)?, None))
    }
    /// [`CommandStore::append_expecting_unviewed`] for a batch some of whose
    /// events were sealed already: `sealed` maps an event's index to the
    /// record [`CommandStore::record_at`] gave for the seq it lands on. The
    /// default seals every event again.
    fn append_expecting_unviewed_sealed(
        &self,
        first_seq: u64,
        events: &[Event],
        sealed: &BTreeMap<usize, Vec<u8>>,
    ) -> Result<Expecting, Self::Error> {
        let _ = sealed;
        self.append_expecting_unviewed(first_seq, events)
    }
    /// The vector of a memory's words, when a model is configured.
    fn embedding_of(&self, text: &str) -> Option<Embedding>;
    /// The wall clock in unix milliseconds (a time to live starts there).
    fn now_ms(&self) -> u64;
    /// Rewrites the views' file from the log so that no freed page keeps
    /// words a purge just erased (a purge's last step before it answers).
    fn rewrite_views(&self) -> Result<(), Self::Error>;
    /// Sets (durably) or clears the store's mark that a purge is under
    /// way: set before its `Purged` is appended, cleared once its views
    /// are rewritten. A store that opens with the mark set finishes the
    /// purge ([`crate::purge::finish_pending`]) before it serves.
    fn mark_purge_pending(&self, pending: bool) -> Result<(), Self::Error>;
}

/// The answer of [`CommandStore::append_expecting`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expecting {
    Appended(Appended),
    /// Another append came first: the log's next seq is now `next_seq`.
    Moved {
        next_seq: u64,
    },
}

/// What to remember.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Plain words, recorded as a `note` turn of `session` (default
    /// [`NOTES_SESSION`]) and then referenced.
    Text {
        text: String,
        session: Option<String>,
    },
    /// Turns already in the session log.
    Reference(MemoryRef),
}

/// A remember request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remember {
    pub content: Content,
    pub meta: MemoryMeta,
    pub subject: Subject,
}

impl Remember {
    /// The user remembering plain `text` with default metadata.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: Content::Text {
                text: text.into(),
                session: None,
            },
            meta: MemoryMeta::default(),
            subject: Subject::user(),
        }
    }
}

/// How a save ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A new memory (`Remembered`).
    New,
    /// A restatement of `related`: `Reinforced`, no new slot.
    Reinforced,
    /// A new memory that disagrees with `related`: `Remembered` and a
    /// `ContradictionFlagged` edge.
    Contradiction,
    /// Low entropy: `Discarded`, no memory.
    Discarded,
}

impl Outcome {
    /// The outcome's name in JSON output.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::New => "new",
            Outcome::Reinforced => "reinforced",
            Outcome::Contradiction => "contradiction",
            Outcome::Discarded => "discarded",
        }
    }
}

/// What remember did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    pub outcome: Outcome,
    /// The memory the save ended in: the new one (new, contradiction), the
    /// restated one (reinforced); `None` when discarded.
    pub id: Option<MemoryId>,
    /// The palace coordinate of `id`.
    pub coordinate: Option<String>,
    /// The existing memory a reinforcement or contradiction concerns.
    pub related: Option<MemoryId>,
    /// Why it was discarded or contradicts.
    pub reason: Option<String>,
    /// The session turns the save recorded or referenced; `None` when
    /// discarded (a discarded text is not recorded).
    pub reference: Option<MemoryRef>,
    /// Uniqueness score decided at write, 0..=1000.
    pub uniqueness_permille: u16,
}

/// A save that ended in no memory.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the save was discarded ({reason}): there is no memory")]
pub struct DiscardedSave {
    pub reason: String,
}

impl Receipt {
    /// The memory id of a save that made or reinforced one.
    pub fn memory(&self) -> Result<MemoryId, DiscardedSave> {
        self.id.ok_or_else(|| DiscardedSave {
            reason: self.reason.clone().unwrap_or_default(),
        })
    }
}

/// Why one save failed. Nothing of it was written, but for a denial's
/// `GateDenied`. Exhaustive: the engine maps each case to its own error.
#[derive(Debug, thiserror::Error)]
pub enum SaveError<E: std::error::Error + 'static> {
    #[error(transparent)]
    Input(#[from] InputError),
    /// A gate refused it; the `GateDenied` event was appended.
    #[error("{0}")]
    Denied(Denial),
    /// The reference does not name turns of one session, or they do not
    /// verify.
    #[error(transparent)]
    Seal(#[from] SealError),
    /// The store failed (the whole batch failed with it).
    #[error(transparent)]
    Store(E),
    /// Other appends kept taking the seq the batch was built for.
    #[error(
        "the log moved on {tries} times while this save waited to append: too many writers at once; try again"
    )]
    Contended { tries: usize },
}

/// One item's answer in a batch.
pub type ItemResult<E> = Result<Receipt, SaveError<E>>;

/// Saves `request` (see the module documentation).
pub fn remember<S: CommandStore>(
    store: &S,
    request: &Remember,
) -> Result<Receipt, SaveError<S::Error>> {
    let mut results = remember_batch(store, std::slice::from_ref(request))?;
    debug_assert_eq!(results.len(), 1);
    results
        .pop()
        .unwrap_or(Err(SaveError::Contended { tries: 0 }))
}

/// Saves `items` in order, as one atomic append (see the module
/// documentation). One result per item; the outer error is a failure of
/// the store, after which no item of the failed part was saved.
pub fn remember_batch<S: CommandStore>(
    store: &S,
    items: &[Remember],
) -> Result<Vec<ItemResult<S::Error>>, SaveError<S::Error>> {
    let mut results: Vec<Option<ItemResult<S::Error>>> = Vec::with_capacity(items.len());
    let mut plans: Vec<(usize, Plan)> = Vec::with_capacity(items.len());
    let mut plan_next = |planner: &mut Planner<'_, S>, item: &Remember, prepared: Prepared| {
        let index = results.len();
        match planner.plan(item, prepared) {
            Ok(plan) => {
                results.push(None);
                plans.push((index, plan));
            }
            Err(e) => results.push(Some(Err(e))),
        }
    };
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let upfront = threads < 2
        || items.len() < PREPARE_PARALLEL_MIN
        || !PREPARE_WHILE_PLANNING.load(std::sync::atomic::Ordering::Relaxed);
    let (_writer, planner) = if upfront {
        // What each item's words alone decide, before the write lock: it
        // reads no state, so other saves go on meanwhile.
        let prepared = prepare_all(items, threads);
        let writer = store.write_lock();
        let mut planner = Planner::new(store);
        for (item, prepared) in items.iter().zip(prepared) {
            plan_next(&mut planner, item, prepared);
        }
        (writer, planner)
    } else {
        // A large batch: the items are prepared on other threads, a chunk
        // at a time and in order, while the planner decides the ones
        // already prepared (the planner is serial; preparing them all
        // first kept every core but one idle while it ran). One preparing
        // thread per core: preparing an item costs about twice what
        // deciding it does, so with one thread fewer the planner waited
        // for it half the time; a thread that gets far enough ahead
        // blocks and leaves its core to the planner.
        std::thread::scope(|scope| {
            let chunks = prepare_ahead(scope, items, threads);
            let writer = store.write_lock();
            let mut planner = Planner::new(store);
            let mut next = items.iter();
            for chunk in chunks {
                // The chunk first: at its end, no item is taken from `next`.
                for (prepared, item) in chunk.into_iter().zip(next.by_ref()) {
                    plan_next(&mut planner, item, prepared);
                }
            }
            assert!(
                next.next().is_none(),
                "a preparing thread stopped before the last item"
            );
            (writer, planner)
        })
    };
    // Ids of the memories the batch made, by item index, as parts land.
    let mut made: BTreeMap<usize, MemoryId> = BTreeMap::new();
    let mut references: BTreeMap<usize, MemoryRef> = BTreeMap::new();
    // What the planner kept of the batch's memories (every new item's
    // words, terms and profile: about half a second to free at 100,000
    // items) is freed on another thread while the parts are built and
    // appended (on this one when no thread can be started).
    let kept = planner.into_kept();
    // Reads recorded while the parts are appended wait until they all are
    // (`CommandStore::hold_reads`); released however the loop ends.
    let held = HeldReads::hold(store).map_err(SaveError::Store)?;
    let appends = std::thread::scope(|scope| {
        let _freeing = std::thread::Builder::new()
            .name("engram-save-free".to_owned())
            .spawn_scoped(scope, move || drop(kept));
        // The views fold each part while the next is built, at most one
        // part behind; the last seq appended so far, and the one they were
        // waited for through.
        let mut appended_through: Option<u64> = None;
        let mut waited_through: Option<u64> = None;
        for part in parts(&plans) {
            match append_part(store, part, &mut made, &mut references) {
                Ok(appended) => {
                    debug_assert!(appended.last_seq >= appended.first_seq);
                    if let Some(before) = appended_through {
                        store.wait_for_views(before).map_err(SaveError::Store)?;
                        waited_through = Some(before);
                    }
                    appended_through = Some(appended.last_seq);
                }
                Err(e) => return Ok((appended_through, waited_through, Some(e))),
            }
        }
        Ok::<_, SaveError<S::Error>>((appended_through, waited_through, None))
    });
    drop(held);
    let (appended_through, waited_through, failed) = appends?;
    if let Some(last) = appended_through
        && waited_through != Some(last)
    {
        store.wait_for_views(last).map_err(SaveError::Store)?;
    }
    if let Some(e) = failed {
        return Err(e);
    }
    let palace = store.views().palace.read();
    for (index, plan) in plans {
        let coordinate = |id: MemoryId| {
            Some(
                palace
                    .state
                    .coordinate(id)
                    .map_or_else(String::new, |c| c.to_string()),
            )
        };
        let resolve = |target: Target| match target {
            Target::Existing(id) => Some(id),
            Target::Pending(earlier) => made.get(&earlier).copied(),
        };
        let result = match plan.kind {
            Kind::Denied { denial } => Err(SaveError::Denied(denial)),
            Kind::Discarded { reason, .. } => Ok(Receipt {
                outcome: Outcome::Discarded,
                id: None,
                coordinate: None,
                related: None,
                reason: Some(reason),
                reference: None,
                uniqueness_permille: plan.uniqueness_permille,
            }),
            Kind::Reinforced { memory, .. } => {
                let id = resolve(memory);
                Ok(Receipt {
                    outcome: Outcome::Reinforced,
                    id,
                    coordinate: id.and_then(coordinate),
                    related: id,
                    reason: None,
                    reference: references.get(&index).cloned(),
                    uniqueness_permille: plan.uniqueness_permille,
                })
            }
            Kind::Remembered { contradiction, .. } => {
                let id = made.get(&index).copied();
                let (outcome, related, reason) = match contradiction {
                    Some((other, reason)) => (Outcome::Contradiction, resolve(other), Some(reason)),
                    None => (Outcome::New, None, None),
                };
                Ok(Receipt {
                    outcome,
                    id,
                    coordinate: id.and_then(coordinate),
                    related,
                    reason,
                    reference: references.get(&index).cloned(),
                    uniqueness_permille: plan.uniqueness_permille,
                })
            }
        };
        if let Some(slot) = results.get_mut(index) {
            *slot = Some(result);
        }
    }
    Ok(results
        .into_iter()
        .map(|r| r.unwrap_or(Err(SaveError::Contended { tries: 0 })))
        .collect())
}

/// A memory a decision names: one in the views, or one made by an earlier
/// item of the same batch (by its index), whose id is known once appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    Existing(MemoryId),
    Pending(usize),
}

/// The words a save stands for, as they will be in the log.
#[derive(Debug, Clone)]
pub(crate) enum Words {
    /// A note to record in this batch (its seal hash is computed once its
    /// seq is known, in [`build`]).
    Note { note: SessionEvent },
    /// Turns already in the log.
    Referenced {
        reference: MemoryRef,
        content_sha256: Digest,
    },
}

/// One item, decided; everything but seqs known.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub(crate) kind: Kind,
    pub(crate) uniqueness_permille: u16,
}

#[derive(Debug, Clone)]
pub(crate) enum Kind {
    Denied {
        denial: Denial,
    },
    Discarded {
        reason: String,
        content_sha256: Digest,
    },
    Reinforced {
        words: Words,
        memory: Target,
        source: engram_log::Source,
        /// A session memory restated from another session: L1 -> L3.
        promotion: Option<TierChanged>,
    },
    Remembered {
        words: Words,
        remembered: Box<Remembered>,
        entities: Vec<(String, String)>,
        ttl_ms: Option<u64>,
        contradiction: Option<(Target, String)>,
        /// The room is a new topic: the corridor the save puts it on.
        placement: Option<CorridorPlaced>,
    },
}

impl Kind {
    /// Events this plan appends, for splitting a batch into parts.
    fn n_events(&self) -> usize {
        match self {
            Kind::Denied { .. } | Kind::Discarded { .. } => 1,
            Kind::Reinforced {
                words, promotion, ..
            } => {
                1 + usize::from(matches!(words, Words::Note { .. }))
                    + usize::from(promotion.is_some())
            }
            Kind::Remembered {
                words,
                entities,
                ttl_ms,
                contradiction,
                placement,
                ..
            } => {
                1 + usize::from(matches!(words, Words::Note { .. }))
                    + entities.len()
                    + usize::from(ttl_ms.is_some())
                    + usize::from(contradiction.is_some())
                    + usize::from(placement.is_some())
            }
        }
    }

    /// A generous estimate of the plan's encoded bytes.
    fn n_bytes(&self) -> usize {
        const EVENT_OVERHEAD: usize = 256;
        let note = |words: &Words| match words {
            Words::Note { note, .. } => note.content.len() + EVENT_OVERHEAD,
            Words::Referenced { .. } => 0,
        };
        let body = match self {
            Kind::Denied { denial } => denial.event.reason.len() + denial.event.object.len(),
            Kind::Discarded { reason, .. } => reason.len(),
            Kind::Reinforced { words, .. } => note(words),
            Kind::Remembered {
                words,
                remembered,
                entities,
                placement,
                ..
            } => {
                note(words)
                    + placement
                        .as_ref()
                        .map_or(0, |p| p.name.len() + p.corridor.len() + EVENT_OVERHEAD)
                    + remembered.summary.as_ref().map_or(0, String::len)
                    + remembered.tags.iter().map(String::len).sum::<usize>()
                    + remembered
                        .embedding
                        .as_ref()
                        .map_or(0, |e| e.values.len() + e.model.len())
                    + entities
                        .iter()
                        .map(|(k, c)| k.len() + c.len() + EVENT_OVERHEAD)
                        .sum::<usize>()
            }
        };
        body + self.n_events() * EVENT_OVERHEAD
    }
}

/// A memory an earlier item of the batch makes.
struct PendingMemory {
    item: usize,
    text: String,
    topic: String,
    corridor: String,
    tags: Vec<String>,
    /// Its decision profile, computed once for every later comparison.
    profile: std::sync::Arc<decide::Profile>,
}

/// The items of a batch decided so far, searchable by term, so a later
/// item can restate or contradict an earlier one.
pub(crate) struct Planner<'a, S: CommandStore> {
    store: &'a S,
    /// The memory an update supersedes: left out of the decision's
    /// neighbours, and the save always makes a new memory.
    supersedes: Option<MemoryId>,
    /// Next turn number per session, for notes recorded in this batch.
    turns: BTreeMap<String, u32>,
    /// Memories this batch makes, in order.
    pending: Vec<PendingMemory>,
    /// Term -> positions in `pending` (only looked up, never iterated, so
    /// a quick hash of short keys serves: looked up for every term of
    /// every item of a batch).
    pending_terms: FxHashMap<String, Vec<usize>>,
    /// Scratch of [`Planner::decide`]: per position in `pending`, the terms
    /// it shares with the item decided (all zeros between items), and the
    /// positions counted.
    shared: (Vec<usize>, Vec<usize>),
    n_planned: usize,
    /// Memories a restatement in this batch promoted (once each).
    promoted: BTreeSet<MemoryId>,
    /// Topics this batch opens -> the corridor it puts each on.
    opened: BTreeMap<String, String>,
}

impl<'a, S: CommandStore> Planner<'a, S> {
    pub(crate) fn new(store: &'a S) -> Self {
        Self {
            store,
            supersedes: None,
            turns: BTreeMap::new(),
            pending: Vec::new(),
            pending_terms: FxHashMap::default(),
            shared: (Vec::new(), Vec::new()),
            n_planned: 0,
            promoted: BTreeSet::new(),
            opened: BTreeMap::new(),
        }
    }

    /// A planner for the new words of an update of `old`: the text is
    /// never decided against `old`, and a restatement of another memory
    /// still makes a new one (the caller asked for these words to stand).
    pub(crate) fn superseding(store: &'a S, old: MemoryId) -> Self {
        Self {
            supersedes: Some(old),
            ..Self::new(store)
        }
    }

    /// What the planner kept of the batch's memories, to be freed apart.
    fn into_kept(self) -> (Vec<PendingMemory>, FxHashMap<String, Vec<usize>>) {
        (self.pending, self.pending_terms)
    }

    /// The plan of an item the gates refuse (its `GateDenied` is appended
    /// with the batch), if they do.
    fn denied(&self, subject: &Subject, object: &Object<'_>) -> Option<Plan> {
        let denial = self
            .store
            .gates()
            .check(subject, Action::Remember, object)
            .err()?;
        Some(Plan {
            kind: Kind::Denied { denial },
            uniqueness_permille: 0,
        })
    }

    pub(crate) fn plan(
        &mut self,
        request: &Remember,
        prepared: Prepared,
    ) -> Result<Plan, SaveError<S::Error>> {
        let index = self.n_planned;
        self.n_planned += 1;
        let meta = prepared.meta?;
        let subject = clean_subject(&request.subject)?;
        let (text, words, events, analysis) = match &request.content {
            Content::Text { text, session } => {
                let (mut note, analysis) = match prepared.note {
                    Some(note) => note?,
                    None => prepare_note(text, session.as_deref(), &meta)?,
                };
                let session = note.session.clone();
                let turn = match self.turns.get(&session) {
                    Some(turn) => *turn,
                    None => self.store.views().sessions.read().state.next_turn(&session),
                };
                note.turn = turn;
                let object = Object::Content {
                    bytes: note.content.len(),
                    events: 1,
                    source: meta.source,
                    scope: &meta.scope,
                };
                if let Some(denied) = self.denied(&subject, &object) {
                    return Ok(denied);
                }
                self.turns.insert(session, turn.saturating_add(1));
                let text = note.content.clone();
                (text, Words::Note { note }, 1, analysis)
            }
            Content::Reference(reference) => {
                let logged = seal::read_reference(self.store.reader(), reference)?;
                let object = Object::Content {
                    bytes: content_bytes(&logged),
                    events: logged.len() as u64,
                    source: meta.source,
                    scope: &meta.scope,
                };
                if let Some(denied) = self.denied(&subject, &object) {
                    return Ok(denied);
                }
                let content_sha256 = seal::stored_content_sha256(self.store.reader(), reference)?;
                let source = memory::source_text(&logged);
                let text = what_it_says(&source, meta.summary.as_deref()).to_owned();
                let analysis = Analysis::of(&text, &meta);
                (
                    text,
                    Words::Referenced {
                        reference: reference.clone(),
                        content_sha256,
                    },
                    logged.len(),
                    analysis,
                )
            }
        };
        debug_assert!(events >= 1);
        let Analysis {
            terms,
            profile: mine,
            entities,
            own_room,
            too_poor,
        } = analysis;
        // The vector, computed once, before the decision (it weighs how near
        // a paraphrase is) and recorded with the memory, so replay never
        // runs a model. A text too poor to keep is not embedded.
        let embedding = match too_poor {
            Some(_) => None,
            None => self.store.embedding_of(&text),
        };
        let terms = Terms::of(&terms);
        let (decision, pending_of) = self.decide(
            &decide::Candidate {
                text: &text,
                profile: &mine,
                entities: &entities,
                tags: &meta.tags,
                room: meta.room.as_deref(),
                own_room: &|| own_room.clone(),
                too_poor,
            },
            &terms,
            embedding.as_ref(),
        );
        let target = |id: MemoryId| match pending_of.get(&id) {
            Some(earlier) => Target::Pending(*earlier),
            None => Target::Existing(id),
        };
        let uniqueness_permille = decision.uniqueness_permille;
        let outcome = match decision.outcome {
            // An update's words stand: never a reinforcement.
            Decided::Reinforced { .. } if self.supersedes.is_some() => Decided::New,
            outcome => outcome,
        };
        let kind = match outcome {
            Decided::Discarded { reason } => Kind::Discarded {
                reason,
                content_sha256: Digest(sha2::Sha256::digest(text.as_bytes()).into()),
            },
            Decided::Reinforced { memory } => {
                let promotion = self.promotion(memory, &pending_of, &words);
                Kind::Reinforced {
                    words,
                    memory: target(memory),
                    source: meta.source,
                    promotion,
                }
            }
            outcome @ (Decided::New | Decided::Contradiction { .. }) => {
                let contradiction = match outcome {
                    Decided::Contradiction { memory, reason } => Some((target(memory), reason)),
                    _ => None,
                };
                let ttl_ms = meta.ttl_ms;
                let remembered = Remembered {
                    // Sealed for real once the seqs are known (`seal_at`).
                    reference: MemoryRef {
                        session: String::new(),
                        first_seq: 0,
                        last_seq: 0,
                    },
                    content_sha256: Digest([0; 32]),
                    mac: Digest([0; 32]),
                    summary: meta.summary,
                    tags: meta.tags.clone(),
                    tier: meta.tier,
                    room: Some(decision.room.clone()),
                    uniqueness_permille,
                    source: meta.source,
                    scope: meta.scope,
                    embedding,
                };
                let placement = self.placement(&decision.room, &decision.corridor);
                self.remember_pending(
                    index,
                    text,
                    &terms.distinct,
                    mine,
                    &decision.room,
                    meta.tags,
                );
                Kind::Remembered {
                    words,
                    remembered: Box::new(remembered),
                    entities: self.resolve_entities(entities),
                    ttl_ms,
                    contradiction,
                    placement,
                }
            }
        };
        Ok(Plan {
            kind,
            uniqueness_permille,
        })
    }

    /// The entities found, as (key, category) links, each key resolved
    /// against the entities already stored and the others this save names
    /// (`alice` is `alice chen` when exactly one Alice is known), each link
    /// once.
    fn resolve_entities(&self, found: Vec<engram_text::entities::Entity>) -> Vec<(String, String)> {
        let dictionary = self.store.views().entities.read();
        let mut links: Vec<(String, String)> = Vec::with_capacity(found.len());
        for entity in &found {
            let prefix = format!("{} ", entity.key);
            let mut known: BTreeSet<&str> = dictionary
                .state
                .keys_starting(entity.category, &prefix)
                .collect();
            known.extend(
                found
                    .iter()
                    .filter(|e| e.category == entity.category && e.key.starts_with(&prefix))
                    .map(|e| e.key.as_str()),
            );
            let key = engram_text::entities::resolve(entity.category, &entity.key, known);
            let category = entity.category.to_owned();
            if !links.iter().any(|(k, c)| *k == key && *c == category) {
                links.push((key, category));
            }
        }
        links
    }

    /// The promotion a restatement of memory `id` by `words` earns (a
    /// session memory restated from another session; see
    /// [`crate::tier`]), once per batch. A memory this batch makes is new
    /// in the batch's own session: never promoted by it.
    fn promotion(
        &mut self,
        id: MemoryId,
        pending_of: &BTreeMap<MemoryId, usize>,
        words: &Words,
    ) -> Option<TierChanged> {
        if pending_of.contains_key(&id) || self.promoted.contains(&id) {
            return None;
        }
        let session = match words {
            Words::Note { note, .. } => note.session.as_str(),
            Words::Referenced { reference, .. } => reference.session.as_str(),
        };
        let promotion = {
            let table = self.store.views().memory_table.read();
            crate::tier::promotion_on_reinforce(table.state.get(id)?, session)
        }?;
        self.promoted.insert(id);
        Some(promotion)
    }

    /// The placement of the decision's room on its corridor, when the
    /// room opens a new topic (no room has its name, no earlier item of the
    /// batch opened it): by the system, the rules' or a neighbour's choice.
    /// A room without a topic ([`UNSORTED_ROOM`]) stays on the default
    /// corridor.
    fn placement(&mut self, room: &str, corridor: &str) -> Option<CorridorPlaced> {
        if room == UNSORTED_ROOM || self.opened.contains_key(room) {
            return None;
        }
        {
            let palace = self.store.views().palace.read();
            if palace.state.room(room).is_some() || palace.state.topic_placement(room).is_some() {
                return None;
            }
        }
        self.opened.insert(room.to_owned(), corridor.to_owned());
        Some(CorridorPlaced {
            placed: Placed::Room,
            name: room.to_owned(),
            corridor: corridor.to_owned(),
            actor: Actor::System,
        })
    }

    /// Makes the memory item `index` will make findable by later items.
    fn remember_pending(
        &mut self,
        index: usize,
        text: String,
        distinct: &[&str],
        profile: std::sync::Arc<decide::Profile>,
        room: &str,
        tags: Vec<String>,
    ) {
        // The corridor its room is on: the one this batch opened it on,
        // else the palace's.
        let corridor = self.opened.get(room).cloned().unwrap_or_else(|| {
            let palace = self.store.views().palace.read();
            palace.state.corridor_of(room).to_owned()
        });
        let position = self.pending.len();
        for &term in distinct {
            match self.pending_terms.get_mut(term) {
                Some(positions) => positions.push(position),
                None => {
                    self.pending_terms.insert(term.to_owned(), vec![position]);
                }
            }
        }
        self.pending.push(PendingMemory {
            item: index,
            text,
            topic: room.to_owned(),
            corridor,
            tags,
            profile,
        });
    }

    /// The decision for a save of `text`: its nearest live memories from
    /// the text index and from the batch's earlier items, the palace's
    /// rooms, then [`decide::decide`]. Returns the decision and, for the
    /// batch's own memories among the neighbours, their stand-in ids.
    fn decide(
        &mut self,
        candidate: &decide::Candidate<'_>,
        terms: &Terms<'_>,
        embedding: Option<&Embedding>,
    ) -> (Decision, BTreeMap<MemoryId, usize>) {
        let text = candidate.text;
        // A model's vectors of text it cannot read are noise (two unrelated
        // Chinese sentences under an English model can be a cosine of 1.0):
        // the decision then goes by words alone.
        let embedding = embedding.filter(|e| model_reads(&e.model, text));
        let views = self.store.views();
        // In the views' lock order (`engram_projections::CoreViews`).
        let table = views.memory_table.read();
        let index = views.text_index.read();
        let vectors = views.vectors.read();
        let palace = views.palace.read();
        // The topic and corridor of a memory's room.
        let place_of = |id: MemoryId| {
            palace
                .state
                .coordinate(id)
                .map(|c| {
                    (
                        palace.state.topic_of(&c.room).to_owned(),
                        palace.state.corridor_of(&c.room).to_owned(),
                    )
                })
                .unwrap_or_default()
        };
        let mut neighbours: Vec<Neighbour> = index
            .state
            .search(terms.all, DECIDE_NEIGHBOURS, |id| {
                Some(id) != self.supersedes
                    && table
                        .state
                        .get(id)
                        .is_some_and(|e| e.status == MemoryStatus::Live)
            })
            .into_iter()
            .filter_map(|hit| {
                let entry = table.state.get(hit.memory)?;
                // Only words the views prove the log holds: a neighbour
                // whose entry fails its MAC is left out, never decided on.
                let text = index.verified_text(entry).ok()??;
                let (topic, corridor) = place_of(hit.memory);
                Some(Neighbour {
                    profile: None,
                    semantic: embedding
                        .filter(|e| model_reads(&e.model, text))
                        .and_then(|e| cosine(e, &vectors.state, hit.memory)),
                    id: hit.memory,
                    text: Cow::Borrowed(what_it_says(text, entry.summary.as_deref())),
                    topic: Cow::Owned(topic),
                    corridor: Cow::Owned(corridor),
                    tags: Cow::Borrowed(&entry.tags),
                })
            })
            .collect();
        // The batch's own memories: those sharing the most terms, the
        // latest first on ties. Their stand-in ids lie past any seq the
        // views know (a seq never reaches 2^63).
        // Terms shared, counted per position in a dense array (zero
        // between items), the positions touched listed in `touched`.
        let (mut shared, mut touched) = std::mem::take(&mut self.shared);
        shared.resize(self.pending.len(), 0);
        touched.clear();
        for &term in &terms.distinct {
            // The latest items holding the term: a common term's list is as
            // long as the batch, and scanning it whole for every item would
            // make a batch quadratic. A restatement shares its rare terms.
            let positions = self.pending_terms.get(term);
            for &position in positions
                .into_iter()
                .flatten()
                .rev()
                .take(PENDING_POSTINGS_SCANNED)
            {
                if let Some(n) = shared.get_mut(position) {
                    if *n == 0 {
                        touched.push(position);
                    }
                    *n += 1;
                }
            }
        }
        // (position, shared terms), most shared first, the latest on ties.
        let mut ranked: Vec<(usize, usize)> = Vec::with_capacity(touched.len());
        for &position in &touched {
            if let Some(n) = shared.get_mut(position) {
                ranked.push((position, *n));
                *n = 0;
            }
        }
        self.shared = (shared, touched);
        // Only the first few are kept: select them, then order those. The
        // positions are distinct, so no two entries tie and an unstable
        // order is the one order.
        let most_shared_first =
            |a: &(usize, usize), b: &(usize, usize)| b.1.cmp(&a.1).then(b.0.cmp(&a.0));
        if ranked.len() > DECIDE_NEIGHBOURS {
            ranked.select_nth_unstable_by(DECIDE_NEIGHBOURS - 1, most_shared_first);
            ranked.truncate(DECIDE_NEIGHBOURS);
        }
        ranked.sort_unstable_by(most_shared_first);
        let mut pending_of = BTreeMap::new();
        for (position, _) in ranked.into_iter().take(DECIDE_NEIGHBOURS) {
            let Some(pending) = self.pending.get(position) else {
                continue;
            };
            let stand_in = PENDING_ID_BASE + position as u64;
            pending_of.insert(stand_in, pending.item);
            neighbours.push(Neighbour {
                id: stand_in,
                text: Cow::Borrowed(&pending.text),
                topic: Cow::Borrowed(&pending.topic),
                corridor: Cow::Borrowed(&pending.corridor),
                tags: Cow::Borrowed(&pending.tags),
                profile: Some(std::sync::Arc::clone(&pending.profile)),
                semantic: None,
            });
        }
        let room_texts = |room: &str| -> Vec<String> {
            let topic = palace.state.topic_of(room);
            palace
                .state
                .topic(topic)
                .last()
                .and_then(|room| palace.state.room(room))
                .map(|room| {
                    room.slots
                        .iter()
                        .filter_map(|id| {
                            let entry = table.state.get(*id)?;
                            index.verified_text(entry).ok()?.map(str::to_owned)
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        let decision = decide::decide_profiled(candidate, &neighbours, &room_texts);
        (decision, pending_of)
    }
}

/// What one item of a batch yields from its own words alone: no state, so
/// a batch works it out for all items at once, on every core, before the
/// decisions, which must run in order under the write lock.
pub(crate) struct Prepared {
    meta: Result<MemoryMeta, InputError>,
    /// A text item's note (its turn set at planning) and analysis; `None`
    /// for a reference, whose words are read from the log under the lock.
    note: Option<Result<(SessionEvent, Analysis), InputError>>,
}

/// A text's terms, decision profile and entities: tokenized once, for the
/// decision, for the later items of the batch, and for the entity links.
struct Analysis {
    terms: Vec<String>,
    profile: std::sync::Arc<decide::Profile>,
    entities: Vec<engram_text::entities::Entity>,
    /// The room the text names by itself ([`crate::topic::room_name`]):
    /// what the decision files it to when no neighbour gives it a room.
    own_room: Option<String>,
    /// Why the text is not worth a memory, if it is not
    /// ([`decide::low_entropy`]): such a text is neither embedded nor kept.
    too_poor: Option<String>,
}

impl Analysis {
    fn of(text: &str, meta: &MemoryMeta) -> Self {
        let mut terms = query_terms(text);
        terms.truncate(DECIDE_QUERY_TERMS_MAX);
        let profile = decide::profile(text);
        let entities = entities_of(text, meta.summary.as_deref());
        // A caller's room is the room: the text's own is never asked.
        let own_room = match meta.room {
            Some(_) => None,
            None => crate::topic::room_name(text, &profile, &entities, &meta.tags),
        };
        let too_poor = decide::low_entropy(text, &profile);
        Self {
            terms,
            profile: std::sync::Arc::new(profile),
            entities,
            own_room,
            too_poor,
        }
    }
}

/// The note of a text item (turn 0 until planned), redacted, and its
/// analysis.
fn prepare_note(
    text: &str,
    session: Option<&str>,
    meta: &MemoryMeta,
) -> Result<(SessionEvent, Analysis), InputError> {
    let session = memory::clean_name("session", session.unwrap_or(NOTES_SESSION))?;
    let note = note_event(&session, 0, text)?;
    let analysis = Analysis::of(&note.content, meta);
    Ok((note, analysis))
}

pub(crate) fn prepare(request: &Remember) -> Prepared {
    let meta = request.meta.cleaned();
    let note = match (&request.content, &meta) {
        (Content::Text { text, session }, Ok(meta)) => {
            Some(prepare_note(text, session.as_deref(), meta))
        }
        _ => None,
    };
    Prepared { meta, note }
}

/// Items below which a batch is prepared on the calling thread alone.
const PREPARE_PARALLEL_MIN: usize = 256;

/// [`prepare`] for every item, in order, split over the machine's
/// `threads` cores for a large batch.
fn prepare_all(items: &[Remember], threads: usize) -> Vec<Prepared> {
    if threads < 2 || items.len() < PREPARE_PARALLEL_MIN {
        return items.iter().map(prepare).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(prepare).collect::<Vec<_>>()))
            .collect();
        let mut prepared = Vec::with_capacity(items.len());
        for worker in workers {
            match worker.join() {
                Ok(part) => prepared.extend(part),
                // A panic in a pure function of the input is a bug: carry it on.
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        prepared
    })
}

/// Whether a large batch prepares its items while the planner decides
/// them: see [`set_prepare_while_planning`].
static PREPARE_WHILE_PLANNING: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Lets a large batch save (256 items or more, on a machine with two cores
/// or more) prepare its items on other threads while the planner decides
/// the ones already prepared, instead of preparing them all first and
/// leaving every core but the planner's idle while it runs. The planner
/// then frees what those threads allocate while they go on allocating. An
/// allocator that does that cheaply gains: with mimalloc as the global
/// allocator, a batch of 100,000 saves about 10% faster on two cores
/// (`benches/runs/2026-12-05b/prepare-first.txt`); with glibc's malloc its
/// arenas contended and the same batch saved about 20% slower when this
/// was measured, so it is off unless asked for. (The `engram` binary runs on
/// mimalloc and turns it on.) The allocator is the process's, and so is
/// this switch. The results are the same either way.
pub fn set_prepare_while_planning(on: bool) {
    PREPARE_WHILE_PLANNING.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Items a preparing thread hands the planner at a time.
const PREPARE_CHUNK: usize = 256;

/// Chunks prepared ahead of the planner at most, per thread: bounds what a
/// batch holds prepared but not yet planned.
const PREPARE_CHUNKS_AHEAD: usize = 8;

/// [`prepare`] for every item on `workers` threads of `scope`: chunk `i`
/// goes to thread `i % workers`, and the returned iterator yields the
/// chunks in order, each as soon as it is prepared.
fn prepare_ahead<'scope, 'env>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    items: &'env [Remember],
    workers: usize,
) -> impl Iterator<Item = Vec<Prepared>> + 'scope {
    let workers = workers.max(1);
    let receivers: Vec<_> = (0..workers)
        .map(|worker| {
            let (sender, receiver) = std::sync::mpsc::sync_channel(PREPARE_CHUNKS_AHEAD);
            scope.spawn(move || {
                for chunk in items.chunks(PREPARE_CHUNK).skip(worker).step_by(workers) {
                    // The planner stopped taking chunks (it panicked): stop.
                    if sender.send(chunk.iter().map(prepare).collect()).is_err() {
                        break;
                    }
                }
            });
            receiver
        })
        .collect();
    let n_chunks = items.len().div_ceil(PREPARE_CHUNK);
    // A thread that panicked yields nothing more; the scope re-raises its
    // panic when it ends.
    (0..n_chunks).map_while(move |i| receivers.get(i % workers)?.recv().ok())
}

/// The cosine similarity of `embedding` and memory `id`'s vector of the
/// same model and dimension, if it has one (both are L2-normalised before
/// quantizing, so the scaled dot product is the cosine).
fn cosine(
    embedding: &Embedding,
    vectors: &engram_projections::VectorIndex,
    id: MemoryId,
) -> Option<f32> {
    let (scale, values) = vectors.vector(&embedding.model, id)?;
    if values.len() != embedding.values.len() {
        return None;
    }
    let dot: i64 = values
        .iter()
        .zip(&embedding.values)
        .map(|(&x, &y)| i64::from(x) * i64::from(y))
        .sum();
    Some(dot as f32 * scale * embedding.scale)
}

/// A text's query terms, and the same without repeats (in byte order).
struct Terms<'t> {
    all: &'t [String],
    distinct: Vec<&'t str>,
}

impl<'t> Terms<'t> {
    fn of(all: &'t [String]) -> Self {
        let mut distinct: Vec<&str> = all.iter().map(String::as_str).collect();
        distinct.sort_unstable();
        distinct.dedup();
        Self { all, distinct }
    }
}

/// Items scanned per query term among a batch's own memories.
const PENDING_POSTINGS_SCANNED: usize = 32;

/// Where the stand-in ids of a batch's own memories start.
const PENDING_ID_BASE: u64 = 1 << 63;

/// The `EntityLinked` events linking memory `id` to the entities `text`
/// and the summary name.
#[must_use]
pub fn entity_events(id: MemoryId, text: &str, summary: Option<&str>) -> Vec<Event> {
    entities_of(text, summary)
        .into_iter()
        .map(|e| {
            Event::EntityLinked(EntityLinked {
                memory: id,
                entity: e.key,
                category: e.category.to_owned(),
            })
        })
        .collect()
}

/// The entities `text` and the summary name, each once.
fn entities_of(text: &str, summary: Option<&str>) -> Vec<engram_text::entities::Entity> {
    let mut found = engram_text::entities::extract(text);
    if let Some(summary) = summary {
        for entity in engram_text::entities::extract(summary) {
            if !found
                .iter()
                .any(|e| e.category == entity.category && e.key == entity.key)
            {
                found.push(entity);
            }
        }
    }
    found
}

/// Reads held ([`CommandStore::hold_reads`]) while it lives.
struct HeldReads<'a, S: CommandStore>(&'a S);

impl<'a, S: CommandStore> HeldReads<'a, S> {
    fn hold(store: &'a S) -> Result<Self, S::Error> {
        store.hold_reads(true)?;
        Ok(Self(store))
    }
}

impl<S: CommandStore> Drop for HeldReads<'_, S> {
    fn drop(&mut self) {
        // What reads recorded is their evidence, which may be lost in a
        // crash before the next commit anyway; a log that cannot take it
        // now refuses the next write too, and that write reports it. The
        // save itself is durable already.
        let _ = self.0.hold_reads(false);
    }
}

/// Splits the plans into parts that each fit one append.
fn parts(plans: &[(usize, Plan)]) -> Vec<&[(usize, Plan)]> {
    let mut parts = Vec::new();
    let mut start = 0;
    let (mut n_events, mut n_bytes) = (0, 0);
    for (position, (_, plan)) in plans.iter().enumerate() {
        let (events, bytes) = (plan.kind.n_events(), plan.kind.n_bytes());
        if position > start
            && (n_events + events > PART_EVENTS_MAX || n_bytes + bytes > PART_BYTES_MAX)
        {
            parts.push(&plans[start..position]);
            start = position;
            n_events = 0;
            n_bytes = 0;
        }
        n_events += events;
        n_bytes += bytes;
    }
    if start < plans.len() {
        parts.push(&plans[start..]);
    }
    parts
}

/// Builds `part` for the seq the log expects and appends it (without
/// waiting for the views), building it again when another append came
/// first. Records the ids and references the part's items got.
fn append_part<S: CommandStore>(
    store: &S,
    part: &[(usize, Plan)],
    made: &mut BTreeMap<usize, MemoryId>,
    references: &mut BTreeMap<usize, MemoryRef>,
) -> Result<Appended, SaveError<S::Error>> {
    let mut first_seq = store.next_seq();
    for _ in 0..APPEND_TRIES_MAX {
        let built = build(store, first_seq, part, made).map_err(SaveError::Store)?;
        match store
            .append_expecting_unviewed_sealed(first_seq, &built.events, &built.sealed)
            .map_err(SaveError::Store)?
        {
            Expecting::Appended(appended) => {
                assert_eq!(
                    appended.first_seq, first_seq,
                    "the log appended a batch built for another seq"
                );
                made.extend(built.made);
                references.extend(built.references);
                return Ok(appended);
            }
            Expecting::Moved { next_seq } => first_seq = next_seq,
        }
    }
    Err(SaveError::Contended {
        tries: APPEND_TRIES_MAX,
    })
}

/// A part's events for one first seq, and the ids and references they give.
pub(crate) struct Built {
    pub(crate) events: Vec<Event>,
    /// The records of the events sealed while building (the notes, hashed
    /// as the log will hold them), by event index.
    pub(crate) sealed: BTreeMap<usize, Vec<u8>>,
    pub(crate) made: BTreeMap<usize, MemoryId>,
    pub(crate) references: BTreeMap<usize, MemoryRef>,
}

pub(crate) fn build<S: CommandStore>(
    store: &S,
    first_seq: u64,
    part: &[(usize, Plan)],
    made_before: &BTreeMap<usize, MemoryId>,
) -> Result<Built, S::Error> {
    let key = store.key();
    let now_ms = store.now_ms();
    let mut events = Vec::new();
    let mut sealed = BTreeMap::new();
    let mut made = BTreeMap::new();
    let mut references = BTreeMap::new();
    let next = |events: &Vec<Event>| first_seq + events.len() as u64;
    let resolve = |made: &BTreeMap<usize, MemoryId>, target: Target| match target {
        Target::Existing(id) => id,
        Target::Pending(item) => *made
            .get(&item)
            .or_else(|| made_before.get(&item))
            .unwrap_or_else(|| panic!("item {item} is decided against before it is made")),
    };
    for (index, plan) in part {
        // The words' reference: a note takes the next seq.
        let words_of = |events: &mut Vec<Event>,
                        sealed: &mut BTreeMap<usize, Vec<u8>>,
                        words: &Words| match words {
            Words::Note { note } => {
                let seq = next(events);
                let event = Event::Session(note.clone());
                let (content_sha256, record) = store.record_at(seq, &event)?;
                if let Some(record) = record {
                    sealed.insert(events.len(), record);
                }
                events.push(event);
                Ok((
                    MemoryRef {
                        session: note.session.clone(),
                        first_seq: seq,
                        last_seq: seq,
                    },
                    content_sha256,
                ))
            }
            Words::Referenced {
                reference,
                content_sha256,
            } => Ok((reference.clone(), *content_sha256)),
        };
        match &plan.kind {
            Kind::Denied { denial } => events.push(Event::GateDenied(denial.event.clone())),
            Kind::Discarded {
                reason,
                content_sha256,
            } => events.push(Event::Discarded(Discarded {
                content_sha256: *content_sha256,
                reason: reason.clone(),
            })),
            Kind::Reinforced {
                words,
                memory,
                source,
                promotion,
            } => {
                let (reference, _) = words_of(&mut events, &mut sealed, words)?;
                let memory = resolve(&made, *memory);
                events.push(Event::Reinforced(Reinforced {
                    memory,
                    evidence: Some(reference.clone()),
                    source: *source,
                }));
                if let Some(promotion) = promotion {
                    events.push(Event::TierChanged(promotion.clone()));
                }
                references.insert(*index, reference);
            }
            Kind::Remembered {
                words,
                remembered,
                entities,
                ttl_ms,
                contradiction,
                placement,
            } => {
                let (reference, content_sha256) = words_of(&mut events, &mut sealed, words)?;
                let id = next(&events);
                let mut remembered = (**remembered).clone();
                memory::seal_at(&mut remembered, key, reference.clone(), content_sha256);
                events.push(Event::Remembered(remembered));
                for (entity, category) in entities {
                    events.push(Event::EntityLinked(EntityLinked {
                        memory: id,
                        entity: entity.clone(),
                        category: category.clone(),
                    }));
                }
                if let Some(ttl_ms) = ttl_ms {
                    events.push(Event::TtlSet(TtlSet {
                        memory: id,
                        expires_at_ms: now_ms.saturating_add(*ttl_ms),
                    }));
                }
                if let Some((other, reason)) = contradiction {
                    let other = resolve(&made, *other);
                    events.push(Event::ContradictionFlagged(ContradictionFlagged {
                        memory: id,
                        other,
                        reason: reason.clone(),
                    }));
                }
                if let Some(placement) = placement {
                    events.push(Event::CorridorPlaced(placement.clone()));
                }
                made.insert(*index, id);
                references.insert(*index, reference);
            }
        }
    }
    Ok(Built {
        events,
        sealed,
        made,
        references,
    })
}

/// What a memory says: its summary when that is a span of its source words
/// (a sentence extracted from a turn), else the source words. Save
/// decisions read this, so two sentences of one turn are two memories, not
/// one restating the other.
fn what_it_says<'a>(source: &'a str, summary: Option<&'a str>) -> &'a str {
    match summary {
        Some(span) if !span.trim().is_empty() && source.contains(span) => span,
        _ => source,
    }
}

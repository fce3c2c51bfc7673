//! The memory seam: remember, recall, expand, forget and confirm on an
//! [`Engram`], and the [`MemoryProvider`] trait they implement.
//!
//! Each command runs validate -> redact -> gate -> decide -> append; a gate
//! denial appends a `GateDenied` event and returns [`EngineError::Denied`].
//! Every append waits for the views, so a recall right after a remember
//! finds it (read-your-writes).
//!
//! A save is one atomic append, run by the save handler
//! (`engram_commands::save`) over the engine: the `note` session event
//! (plain content), the `Remembered` sealing it, and the events that name
//! the new memory (`EntityLinked`, `TtlSet`, `ContradictionFlagged`). A
//! crash leaves all of a save or none of it.
//!
//! Reads record what they did (`Recalled`, `Expanded`) without waiting for
//! an fsync: see [`Engram::recall`].

use std::collections::BTreeMap;

use engram_commands::gate::{Action, Object, Subject};
use engram_commands::memory::{self, InputError, clean_subject};
use engram_commands::record::{self, RecordError, Turn};
use engram_commands::save::{self, CommandStore, Expecting, SaveError};
use engram_log::seal;
use engram_log::{
    Event, Expanded, LoggedEvent, MemoryId, RecallFilters, RecallHit, Recalled, Role,
};
use engram_projections::models::{MemoryEntry, MemoryStatus};
use engram_queries::{Hit, QueryVector, RecallMode, RecallQuery};
use engram_text::redact::redact;

use crate::engine::{EngineError, Engram};

pub use engram_commands::save::{Content, DiscardedSave, Outcome, Receipt, Remember};

/// One turn of an expanded memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpandedTurn {
    pub seq: u64,
    pub ts_ms: u64,
    pub session: String,
    pub turn: u32,
    pub role: Role,
    pub content: String,
}

/// A memory expanded to its original words, proven unaltered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expansion {
    pub id: MemoryId,
    pub turns: Vec<ExpandedTurn>,
    /// The content hash and HMAC matched (always true: a mismatch is an error).
    pub verified: bool,
    pub status: MemoryStatus,
}

pub use engram_commands::flywheel::{Confirmation, Forgetting};
pub use engram_commands::update::{Update, Updated};

/// A memory backend behind the same tools (CLI, MCP, HTTP): the engine
/// implements it, and another provider (a remote store, a test double) can
/// stand in.
pub trait MemoryProvider: Send + Sync {
    /// The provider's error.
    type Error: std::error::Error + Send + Sync + 'static;
    /// Records a memory.
    fn remember(&self, request: &Remember) -> Result<Receipt, Self::Error>;
    /// The best memories for a query, best first.
    fn recall(&self, query: &RecallQuery) -> Result<Vec<Hit>, Self::Error>;
    /// A memory's original words, proven unaltered.
    fn expand(&self, id: MemoryId, subject: &Subject) -> Result<Expansion, Self::Error>;
    /// Tombstones a memory.
    fn forget(
        &self,
        id: MemoryId,
        subject: &Subject,
        reason: &str,
    ) -> Result<Forgetting, Self::Error>;
}

impl Engram {
    fn entry(&self, id: MemoryId) -> Result<MemoryEntry, EngineError> {
        self.core()
            .memory_table
            .read()
            .state
            .get(id)
            .cloned()
            .ok_or(EngineError::UnknownMemory { id })
    }

    pub(crate) fn gate(
        &self,
        subject: &Subject,
        action: Action,
        object: &Object<'_>,
    ) -> Result<(), EngineError> {
        if let Err(denial) = self.gates().check(subject, action, object) {
            self.append(&[Event::GateDenied(denial.event.clone())])?;
            return Err(EngineError::Denied(denial));
        }
        Ok(())
    }

    /// Records a save: validate, redact, gate, decide, then one atomic
    /// append (see the module docs). The receipt says which of the four
    /// outcomes it was.
    pub fn remember(&self, request: &Remember) -> Result<Receipt, EngineError> {
        save::remember(self, request).map_err(EngineError::from)
    }

    /// Records `turns` as the next turns of `session` (the raw session log
    /// memories reference), redacted and gated like every write, in one
    /// atomic append; returns their seqs. A model may not record a turn as
    /// the user's.
    pub fn record_turns(
        &self,
        session: &str,
        turns: &[Turn],
        subject: &Subject,
    ) -> Result<engram_log::Appended, EngineError> {
        Ok(record::record_turns(self, session, turns, subject)?.appended)
    }

    /// Saves `items` in order as one atomic append (split at item
    /// boundaries only past `engram_commands::save::PART_EVENTS_MAX` events
    /// or `PART_BYTES_MAX` bytes): each item is decided
    /// against the views and the items before it. One result per item: an
    /// item with bad input, or one a gate denies, fails alone and the
    /// others are saved. The outer error is a failure of the store, after
    /// which the items of the part that failed were not saved.
    pub fn remember_batch(
        &self,
        items: &[Remember],
    ) -> Result<Vec<Result<Receipt, EngineError>>, EngineError> {
        let texts: Vec<String> = items
            .iter()
            .filter_map(|item| match &item.content {
                Content::Text { text, .. } => Some(text.clone()),
                Content::Reference(_) => None,
            })
            .collect();
        self.prefetch_embeddings(&texts);
        let results = save::remember_batch(self, items);
        self.clear_prefetched();
        Ok(results?
            .into_iter()
            .map(|r| r.map_err(EngineError::from))
            .collect())
    }

    /// The palace coordinate of memory `id` (empty when unknown).
    #[must_use]
    pub fn coordinate(&self, id: MemoryId) -> String {
        self.core()
            .palace
            .read()
            .state
            .coordinate(id)
            .map_or_else(String::new, ToString::to_string)
    }

    /// The best memories for `query`, best first; appends a `Recalled`
    /// event (retrieval evidence and LRU touch) with the redacted query.
    pub fn recall(&self, query: &RecallQuery) -> Result<Vec<Hit>, EngineError> {
        if query.text.trim().is_empty() {
            return Err(InputError::Empty { field: "query" }.into());
        }
        if query.text.len() > memory::NOTE_BYTES_MAX {
            return Err(InputError::TooLong {
                field: "query",
                bytes: query.text.len(),
                max: memory::NOTE_BYTES_MAX,
            }
            .into());
        }
        // The caller's session compares with sessions as the log holds them.
        let query = &RecallQuery {
            session: query
                .session
                .as_deref()
                .map(|s| memory::clean_name("session", s))
                .transpose()?,
            // Trust's freshness is measured to the query's time.
            now_ms: Some(query.now_ms.unwrap_or_else(crate::engine::now_ms)),
            ..query.clone()
        };
        let vector = self.query_vector(&query.text);
        let (hits, mode) = engram_queries::recall_with(self.core(), query, vector.as_ref())?;
        let event = Recalled {
            query: redact(&query.text).text,
            // Filters are caller text too: redacted like the query.
            filters: RecallFilters {
                room: query.room.as_deref().map(|r| redact(r).text),
                tier: query.tier,
                tags: query.tags.iter().map(|t| redact(t).text).collect(),
                scope: query
                    .session
                    .as_deref()
                    .map(|s| engram_log::Scope::Session(redact(s).text)),
                limit: u32::try_from(query.limit).unwrap_or(u32::MAX),
            },
            hits: hits
                .iter()
                .map(|h| RecallHit {
                    memory: h.id,
                    score_micros: (h.score * 1e6) as u64,
                })
                .collect(),
            mode: mode.as_str().to_owned(),
        };
        // Evidence of the read, durable with the next group commit: a
        // recall never waits for an fsync.
        self.record_read(Event::Recalled(event))?;
        *self.last_recall_mode.lock() = mode;
        Ok(hits)
    }

    /// The mode the last recall ran in (`keyword` before any).
    #[must_use]
    pub fn last_recall_mode(&self) -> RecallMode {
        *self.last_recall_mode.lock()
    }

    /// The mode recall runs in now: hybrid when a model is configured and
    /// the store holds vectors of that model and dimension.
    #[must_use]
    pub fn recall_mode(&self) -> RecallMode {
        match &self.embedder {
            Some(e)
                if self.core().vectors.read().state.dimension(e.model_id())
                    == Some(e.dimension()) =>
            {
                RecallMode::Hybrid
            }
            _ => RecallMode::Keyword,
        }
    }

    /// The query's vector, when a model is configured and runs.
    fn query_vector(&self, text: &str) -> Option<QueryVector> {
        let embedder = self.embedder.as_ref()?;
        let values = embedder.embed(&[text]).ok()?.pop()?;
        Some(QueryVector {
            model: embedder.model_id().to_owned(),
            values,
        })
    }

    /// Embeds `texts` in batches now, so the saves that follow find their
    /// vectors computed (a batch costs far less per text than one by one).
    /// Texts are taken as the log will hold them (redacted).
    pub fn prefetch_embeddings(&self, texts: &[String]) {
        let Some(embedder) = self.embedder.as_ref() else {
            return;
        };
        let redacted: Vec<String> = texts.iter().map(|t| redact(t).text).collect();
        for chunk in redacted.chunks(engram_embed::BATCH_SIZE) {
            let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
            if let Ok(vectors) = embedder.embed(&refs) {
                let mut cache = self.embed_cache.lock();
                for (text, vector) in chunk.iter().zip(vectors) {
                    cache.insert(text.clone(), vector);
                }
            }
        }
    }

    /// Drops vectors prefetched for saves that did not need them
    /// (reinforced, discarded).
    pub fn clear_prefetched(&self) {
        self.embed_cache.lock().clear();
    }

    /// The vector of a memory's words, when a model is configured and runs.
    pub(crate) fn embedding_of(&self, text: &str) -> Option<engram_log::Embedding> {
        let embedder = self.embedder.as_ref()?;
        let cached = self.embed_cache.lock().remove(text);
        let values = match cached {
            Some(values) => values,
            None => embedder.embed(&[text]).ok()?.pop()?,
        };
        let q = engram_embed::quantize(&values);
        Some(engram_log::Embedding {
            model: embedder.model_id().to_owned(),
            scale: q.scale,
            values: q.values,
        })
    }

    /// Adds vectors of the configured model for every memory that has none
    /// (written before the model was configured, or under another model):
    /// the `engram_commands::reembed` handler with this store's model.
    /// Returns how many were added; 0 without a model.
    pub fn reembed(&self, progress: &dyn Fn(usize, usize)) -> Result<usize, EngineError> {
        let Some(embedder) = self.embedder.clone() else {
            return Ok(0);
        };
        let model = embedder.model_id().to_owned();
        let embed = |texts: &[&str]| -> Result<Vec<engram_log::Embedding>, String> {
            let vectors = embedder.embed(texts).map_err(|e| e.to_string())?;
            Ok(vectors
                .iter()
                .map(|v| {
                    let q = engram_embed::quantize(v);
                    engram_log::Embedding {
                        model: model.clone(),
                        scale: q.scale,
                        values: q.values,
                    }
                })
                .collect())
        };
        engram_commands::reembed::reembed(self, &model, &embed, progress).map_err(|e| match e {
            engram_commands::reembed::ReembedError::Store(e) => e,
            other => EngineError::Reembed(other.to_string()),
        })
    }

    /// Memory `id`'s original words, proven unaltered; appends `Expanded`.
    /// A forgotten memory expands only in audit mode; a purged one never
    /// (its words are gone: the error names the purge).
    pub fn expand_as(
        &self,
        id: MemoryId,
        subject: &Subject,
        audit: bool,
    ) -> Result<Expansion, EngineError> {
        let subject = &clean_subject(subject)?;
        let entry = self.entry(id)?;
        if let Some(purged) = &entry.purged {
            return Err(EngineError::Purged {
                id,
                seq: purged.seq,
                by: purged.by,
                reason: purged.reason.clone(),
            });
        }
        if let Some(forgotten) = &entry.forgotten
            && !audit
        {
            return Err(EngineError::Forgotten {
                id,
                seq: forgotten.seq,
            });
        }
        self.gate(subject, Action::Expand, &Object::Memory(&entry))?;
        let events = seal::read_sealed(
            self.log().reader(),
            self.log().key(),
            &entry.reference,
            &entry.content_sha256,
            &entry.mac,
        )?;
        // The words are the log's, proven by the seal; the view MAC proves
        // the seal and reference are this memory's, not another's.
        if entry.forgotten.is_none() {
            let words = engram_projections::text_index::referenced_text(&entry.reference, &events);
            self.core().text_index.read().verify_entry(&entry, &words)?;
        }
        self.record_read(Event::Expanded(Expanded { memory: id, audit }))?;
        Ok(Expansion {
            id,
            turns: events.iter().filter_map(turn_of).collect(),
            verified: true,
            status: entry.status,
        })
    }

    /// Tombstones memory `id` (who, why). Idempotent: forgetting a forgotten
    /// memory appends nothing and reports the first tombstone.
    pub fn forget(
        &self,
        id: MemoryId,
        subject: &Subject,
        reason: &str,
    ) -> Result<Forgetting, EngineError> {
        Ok(engram_commands::flywheel::forget(
            self, id, subject, reason,
        )?)
    }

    /// Erases `target` for good (`engram_commands::purge`): the memory (or
    /// session) and everything whose words derive from it. `Purged` is
    /// appended, the data keys destroyed and the views file rewritten
    /// before this returns. Refused with nothing changed: an unknown memory
    /// or session, a memory already purged, a store whose content is not
    /// sealed, a model purging what the user said (a `GateDenied` recorded).
    pub fn purge(
        &self,
        target: &engram_commands::purge::PurgeTarget,
        subject: &Subject,
        reason: &str,
    ) -> Result<engram_commands::purge::Purging, EngineError> {
        // Reads recorded without waiting (a recall's `Recalled`) reach the
        // log first, so the purge finds every one that hit its memories.
        self.settle()?;
        Ok(engram_commands::purge::purge(
            self, target, subject, reason,
        )?)
    }

    /// New words for a memory, recorded as a supersession in one atomic
    /// append: a new memory and the verdict that retires the old one
    /// (`engram_commands::update`). A forgotten, unknown or already
    /// superseded memory is refused with nothing written; a model may not
    /// supersede what the user said.
    pub fn update(&self, update: &Update) -> Result<Updated, EngineError> {
        Ok(engram_commands::update::update(self, update)?)
    }

    /// Checks `quote` against memory `id`'s verified source words and
    /// records `EvidenceConfirmed` (valid evidence raises trust).
    pub fn confirm(
        &self,
        id: MemoryId,
        subject: &Subject,
        quote: &str,
    ) -> Result<Confirmation, EngineError> {
        Ok(engram_commands::flywheel::confirm(
            self, id, subject, quote,
        )?)
    }
}

fn turn_of(logged: &LoggedEvent) -> Option<ExpandedTurn> {
    match &logged.event {
        Event::Session(s) => Some(ExpandedTurn {
            seq: logged.seq,
            ts_ms: logged.ts_ms,
            session: s.session.clone(),
            turn: s.turn,
            role: s.role,
            content: s.content.clone(),
        }),
        _ => None,
    }
}

impl MemoryProvider for Engram {
    type Error = EngineError;

    fn remember(&self, request: &Remember) -> Result<Receipt, EngineError> {
        Engram::remember(self, request)
    }

    fn recall(&self, query: &RecallQuery) -> Result<Vec<Hit>, EngineError> {
        Engram::recall(self, query)
    }

    fn expand(&self, id: MemoryId, subject: &Subject) -> Result<Expansion, EngineError> {
        self.expand_as(id, subject, false)
    }

    fn forget(
        &self,
        id: MemoryId,
        subject: &Subject,
        reason: &str,
    ) -> Result<Forgetting, EngineError> {
        Engram::forget(self, id, subject, reason)
    }
}

impl CommandStore for Engram {
    type Error = EngineError;

    fn views(&self) -> &engram_projections::CoreViews {
        self.core()
    }

    fn reader(&self) -> &engram_log::LogReader {
        self.log().reader()
    }

    fn key(&self) -> &engram_log::HmacKey {
        self.log().key()
    }

    fn gates(&self) -> &engram_commands::gate::GateChain {
        Engram::gates(self)
    }

    fn write_lock(&self) -> parking_lot::MutexGuard<'_, ()> {
        Engram::write_lock(self)
    }

    fn hold_reads(&self, hold: bool) -> Result<(), EngineError> {
        Engram::hold_reads(self, hold)
    }

    fn next_seq(&self) -> u64 {
        self.log().last_seq() + 1
    }

    fn append(&self, events: &[Event]) -> Result<engram_log::Appended, EngineError> {
        Engram::append(self, events)
    }

    fn append_expecting(&self, first_seq: u64, events: &[Event]) -> Result<Expecting, EngineError> {
        Engram::append_expecting(self, first_seq, events, &BTreeMap::new(), true)
    }

    fn append_expecting_unviewed(
        &self,
        first_seq: u64,
        events: &[Event],
    ) -> Result<Expecting, EngineError> {
        Engram::append_expecting(self, first_seq, events, &BTreeMap::new(), false)
    }

    fn append_expecting_unviewed_sealed(
        &self,
        first_seq: u64,
        events: &[Event],
        sealed: &BTreeMap<usize, Vec<u8>>,
    ) -> Result<Expecting, EngineError> {
        Engram::append_expecting(self, first_seq, events, sealed, false)
    }

    fn wait_for_views(&self, seq: u64) -> Result<(), EngineError> {
        Engram::wait_for_views_through(self, seq)
    }

    fn content_sha256_at(
        &self,
        seq: u64,
        event: &Event,
    ) -> Result<engram_log::Digest, EngineError> {
        // On a shared log, the bytes its writer will commit at `seq`.
        let record = match self.shared_log() {
            Some(shared) => shared.record_bytes(seq, event)?,
            None => self.log().record_bytes(seq, event)?,
        };
        Ok(engram_log::seal::content_sha256_of_records([
            record.as_slice()
        ]))
    }

    fn record_at(
        &self,
        seq: u64,
        event: &Event,
    ) -> Result<(engram_log::Digest, Option<Vec<u8>>), EngineError> {
        // A shared log's writer seals what it is sent: only this store's
        // own sealed log takes a record back.
        if self.shared_log().is_some() || !self.log().is_sealed() {
            return Ok((self.content_sha256_at(seq, event)?, None));
        }
        let record = self.log().record_bytes(seq, event)?;
        let digest = engram_log::seal::content_sha256_of_records([record.as_slice()]);
        Ok((digest, Some(record)))
    }

    fn embedding_of(&self, text: &str) -> Option<engram_log::Embedding> {
        Engram::embedding_of(self, text)
    }

    fn now_ms(&self) -> u64 {
        crate::engine::now_ms()
    }

    fn rewrite_views(&self) -> Result<(), EngineError> {
        let fresh = engram_projections::CoreViews::new(self.log().reader().clone());
        Ok(self.views().rewrite(fresh.list())?)
    }

    fn mark_purge_pending(&self, pending: bool) -> Result<(), EngineError> {
        crate::engine::mark_purge_pending(self.store(), pending)
    }
}

impl From<SaveError<EngineError>> for EngineError {
    fn from(e: SaveError<EngineError>) -> Self {
        match e {
            SaveError::Input(e) => EngineError::Input(e),
            SaveError::Denied(denial) => EngineError::Denied(denial),
            SaveError::Seal(e) => EngineError::Seal(e),
            SaveError::Store(e) => e,
            SaveError::Contended { tries } => EngineError::Contended { tries },
        }
    }
}

impl From<RecordError<EngineError>> for EngineError {
    fn from(e: RecordError<EngineError>) -> Self {
        match e {
            RecordError::Input(e) => EngineError::Input(e),
            RecordError::Denied { denial, .. } => EngineError::Denied(denial),
            RecordError::Store(e) => e,
            e
            @ (RecordError::NoTurns | RecordError::TooManyTurns { .. } | RecordError::Read(_)) => {
                EngineError::Record(e.to_string())
            }
            e @ (RecordError::Diverged { .. } | RecordError::Gap { .. }) => {
                EngineError::Transcript(e.to_string())
            }
        }
    }
}

impl From<engram_commands::flywheel::CommandError<EngineError>> for EngineError {
    fn from(e: engram_commands::flywheel::CommandError<EngineError>) -> Self {
        use engram_commands::flywheel::CommandError;
        match e {
            CommandError::Input(e) => EngineError::Input(e),
            CommandError::Flywheel(e) => EngineError::Flywheel(e),
            CommandError::Tier(e) => EngineError::Tier(e),
            CommandError::Workspace(e) => EngineError::Workspace(e),
            CommandError::Corridor(e) => EngineError::Corridor(e),
            CommandError::UnknownMemory { id } => EngineError::UnknownMemory { id },
            CommandError::Forgotten { id, seq } => EngineError::Forgotten { id, seq },
            CommandError::Purged {
                id,
                seq,
                by,
                reason,
            } => EngineError::Purged {
                id,
                seq,
                by,
                reason,
            },
            CommandError::Purge(e) => EngineError::Purge(e),
            CommandError::Denied(denial) => EngineError::Denied(denial),
            CommandError::Discarded { reason } => EngineError::Discarded { reason },
            CommandError::Seal(e) => EngineError::Seal(e),
            CommandError::Contended { tries } => EngineError::Contended { tries },
            CommandError::Store(e) => e,
        }
    }
}

impl From<DiscardedSave> for EngineError {
    fn from(e: DiscardedSave) -> Self {
        EngineError::Discarded { reason: e.reason }
    }
}

impl From<InputError> for EngineError {
    fn from(e: InputError) -> Self {
        EngineError::Input(e)
    }
}

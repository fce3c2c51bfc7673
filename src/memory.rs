//! The memory seam: remember, recall, expand, forget and confirm on an
//! [`Engram`], and the [`MemoryProvider`] trait they implement.
//!
//! Each command runs validate -> redact -> gate -> decide -> append; a gate
//! denial appends a `GateDenied` event and returns [`EngineError::Denied`].
//! Every append waits for the views, so a recall right after a remember
//! finds it (read-your-writes).
//!
//! A save is several appends, each atomic, in this order: the `note`
//! session event (plain content), then the `Remembered` event sealing the
//! words as the log holds them, then what names the new memory by its id
//! (`EntityLinked`, `TtlSet`, `ContradictionFlagged`): an id is a seq, known
//! only once appended. A crash between appends leaves a note no memory
//! references, or a memory without some of its links; never a memory that
//! does not verify. The caller saw an error and may retry (a retry of the
//! same words reinforces the memory).

use engram_commands::decide::{Decision, Neighbour, Outcome as DecidedOutcome, decide};
use engram_commands::gate::{Action, Object, Subject};
use engram_commands::memory::{
    self, InputError, MemoryMeta, NOTES_SESSION, clean_subject, content_bytes, note_event,
};
use engram_log::seal::{self, SealError};
use engram_log::{
    Event, Expanded, LoggedEvent, MemoryId, MemoryRef, RecallFilters, RecallHit, Recalled, Role,
};
use engram_projections::models::{MemoryEntry, MemoryStatus};
use engram_queries::{Hit, QueryVector, RecallMode, RecallQuery};
use engram_text::redact::redact;
use engram_text::tokenize::query_terms;
use sha2::Digest as _;

/// Neighbours a save is compared with.
const DECIDE_NEIGHBOURS: usize = 10;
/// Query terms a save's neighbours are searched with (long texts are cut).
const DECIDE_QUERY_TERMS_MAX: usize = 64;

use crate::engine::{EngineError, Engram};

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

/// How a save ended (decided before anything is appended; see
/// `engram_commands::decide`).
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

impl Receipt {
    /// The memory id of a save that made or reinforced one.
    pub fn memory(&self) -> Result<MemoryId, EngineError> {
        self.id.ok_or_else(|| EngineError::Discarded {
            reason: self.reason.clone().unwrap_or_default(),
        })
    }
}

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

/// What forget did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forgetting {
    pub id: MemoryId,
    /// Seq of the tombstone (the earlier one when already forgotten).
    pub seq: u64,
    /// The memory was already forgotten: nothing was appended.
    pub already: bool,
}

/// What confirm recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct Confirmation {
    pub id: MemoryId,
    pub seq: u64,
    /// The quote occurs in the memory's verified source words.
    pub valid: bool,
    pub trust: f64,
}

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

    /// Records a save: validate, redact, gate, decide, append (see the
    /// module docs). The receipt says which of the four outcomes it was.
    pub fn remember(&self, request: &Remember) -> Result<Receipt, EngineError> {
        let meta = request.meta.cleaned()?;
        let subject = clean_subject(&request.subject)?;
        let _writer = self.write_lock();
        // What the save says, redacted, and the turns it will reference
        // (`None`: a note not yet recorded).
        let (text, recorded) = match &request.content {
            Content::Text { text, session } => {
                // Numbered in the session as the log names it (redacted).
                let session =
                    memory::clean_name("session", session.as_deref().unwrap_or(NOTES_SESSION))?;
                let turn = self.core().sessions.read().state.next_turn(&session);
                let note = note_event(&session, turn, text)?;
                let object = Object::Content {
                    bytes: note.content.len(),
                    events: 1,
                    source: meta.source,
                    scope: &meta.scope,
                };
                self.gate(&subject, Action::Remember, &object)?;
                (note.content.clone(), Err(note))
            }
            Content::Reference(reference) => {
                let events = seal::read_reference(self.log().reader(), reference)?;
                let object = Object::Content {
                    bytes: content_bytes(&events),
                    events: events.len() as u64,
                    source: meta.source,
                    scope: &meta.scope,
                };
                self.gate(&subject, Action::Remember, &object)?;
                (
                    memory::source_text(&events),
                    Ok((reference.clone(), events)),
                )
            }
        };
        let decision = self.decide(&text, &meta);
        if let DecidedOutcome::Discarded { reason } = &decision.outcome {
            let content_sha256 = engram_log::Digest(sha2::Sha256::digest(text.as_bytes()).into());
            self.append(&[Event::Discarded(engram_log::Discarded {
                content_sha256,
                reason: reason.clone(),
            })])?;
            return Ok(Receipt {
                outcome: Outcome::Discarded,
                id: None,
                coordinate: None,
                related: None,
                reason: Some(reason.clone()),
                reference: None,
                uniqueness_permille: decision.uniqueness_permille,
            });
        }
        let (reference, events) = match recorded {
            Ok(referenced) => referenced,
            Err(note) => {
                let session = note.session.clone();
                let seq = self.append(&[Event::Session(note)])?.first_seq;
                let reference = MemoryRef {
                    session,
                    first_seq: seq,
                    last_seq: seq,
                };
                let logged = self.log().read(seq..=seq).map_err(SealError::Read)?;
                (reference, logged)
            }
        };
        let receipt = |outcome, id: MemoryId, related, reason| Receipt {
            outcome,
            id: Some(id),
            coordinate: Some(self.coordinate(id)),
            related,
            reason,
            reference: Some(reference.clone()),
            uniqueness_permille: decision.uniqueness_permille,
        };
        if let DecidedOutcome::Reinforced { memory } = decision.outcome {
            self.append(&[Event::Reinforced(engram_log::Reinforced {
                memory,
                evidence: Some(reference.clone()),
                source: meta.source,
            })])?;
            return Ok(receipt(Outcome::Reinforced, memory, Some(memory), None));
        }
        let ttl_ms = meta.ttl_ms;
        let meta = MemoryMeta {
            room: Some(decision.room.clone()),
            ..meta
        };
        let mut remembered =
            memory::remembered(self.log().key(), reference.clone(), &events, meta)?;
        remembered.uniqueness_permille = decision.uniqueness_permille;
        // Computed now and recorded, so replay never runs a model.
        remembered.embedding = self.embedding_of(&text);
        let summary = remembered.summary.clone();
        let appended = self.append(&[Event::Remembered(remembered)])?;
        let id = appended.first_seq;
        self.link_entities(id, &text, summary.as_deref())?;
        if let Some(ttl_ms) = ttl_ms {
            // The commit time of the memory plus its time to live.
            let created = self
                .log()
                .read(id..=id)
                .map_err(SealError::Read)?
                .first()
                .map_or(0, |e| e.ts_ms);
            self.append(&[Event::TtlSet(engram_log::TtlSet {
                memory: id,
                expires_at_ms: created.saturating_add(ttl_ms),
            })])?;
        }
        match decision.outcome {
            DecidedOutcome::Contradiction { memory, reason } => {
                self.append(&[Event::ContradictionFlagged(
                    engram_log::ContradictionFlagged {
                        memory: id,
                        other: memory,
                        reason: reason.clone(),
                    },
                )])?;
                Ok(receipt(
                    Outcome::Contradiction,
                    id,
                    Some(memory),
                    Some(reason),
                ))
            }
            _ => Ok(receipt(Outcome::New, id, None, None)),
        }
    }

    /// Extracts the entities `text` (and the summary) names and links them
    /// to memory `id` (`EntityLinked`, one append).
    pub(crate) fn link_entities(
        &self,
        id: MemoryId,
        text: &str,
        summary: Option<&str>,
    ) -> Result<(), EngineError> {
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
        if found.is_empty() {
            return Ok(());
        }
        let events: Vec<Event> = found
            .into_iter()
            .map(|e| {
                Event::EntityLinked(engram_log::EntityLinked {
                    memory: id,
                    entity: e.key,
                    category: e.category.to_owned(),
                })
            })
            .collect();
        self.append(&events)?;
        Ok(())
    }

    /// The decision for a save of `text`: its nearest live memories from
    /// the text index, the palace's rooms, then `engram_commands::decide`.
    fn decide(&self, text: &str, meta: &MemoryMeta) -> Decision {
        let core = self.core();
        let table = core.memory_table.read();
        let index = core.text_index.read();
        let palace = core.palace.read();
        let mut terms = query_terms(text);
        terms.truncate(DECIDE_QUERY_TERMS_MAX);
        let corridor_of = |id: MemoryId| {
            palace
                .state
                .coordinate(id)
                .map(|c| palace.state.corridor_of(&c.room).to_owned())
                .unwrap_or_default()
        };
        let neighbours: Vec<Neighbour> = index
            .state
            .search(&terms, DECIDE_NEIGHBOURS, |id| {
                table
                    .state
                    .get(id)
                    .is_some_and(|e| e.status == MemoryStatus::Live)
            })
            .into_iter()
            .filter_map(|hit| {
                let entry = table.state.get(hit.memory)?;
                Some(Neighbour {
                    id: hit.memory,
                    text: index.state.text(hit.memory)?.to_owned(),
                    corridor: corridor_of(hit.memory),
                    tags: entry.tags.clone(),
                })
            })
            .collect();
        let room_texts = |corridor: &str| -> Vec<String> {
            let corridor = palace.state.corridor_of(corridor);
            palace
                .state
                .corridor(corridor)
                .last()
                .and_then(|room| palace.state.room(room))
                .map(|room| {
                    room.slots
                        .iter()
                        .filter_map(|id| index.state.text(*id).map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        decide(
            text,
            &meta.tags,
            meta.room.as_deref(),
            &neighbours,
            &room_texts,
        )
    }

    /// Saves each item in order, each through the four outcomes; one
    /// result per item (an item's error does not stop the others).
    pub fn remember_batch(&self, items: &[Remember]) -> Vec<Result<Receipt, EngineError>> {
        let texts: Vec<String> = items
            .iter()
            .filter_map(|item| match &item.content {
                Content::Text { text, .. } => Some(text.clone()),
                Content::Reference(_) => None,
            })
            .collect();
        self.prefetch_embeddings(&texts);
        let results = items.iter().map(|item| self.remember(item)).collect();
        self.clear_prefetched();
        results
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
            ..query.clone()
        };
        let vector = self.query_vector(&query.text);
        let (hits, mode) = engram_queries::recall_with(self.core(), query, vector.as_ref());
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
        self.append(&[Event::Recalled(event)])?;
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
    /// (written before the model was configured, or under another model),
    /// in batches of `engram_embed::BATCH_SIZE`, one `Embedded` per memory.
    /// Returns how many were added; 0 without a model.
    pub fn reembed(&self, progress: &dyn Fn(usize, usize)) -> Result<usize, EngineError> {
        let Some(embedder) = self.embedder.clone() else {
            return Ok(0);
        };
        let model = embedder.model_id().to_owned();
        let todo: Vec<(MemoryId, String)> = {
            let core = self.core();
            let table = core.memory_table.read();
            let index = core.text_index.read();
            let vectors = core.vectors.read();
            table
                .state
                .iter()
                .filter(|e| {
                    e.status != MemoryStatus::Forgotten && !vectors.state.knows(&model, e.id)
                })
                .filter_map(|e| Some((e.id, index.state.text(e.id)?.to_owned())))
                .collect()
        };
        let mut done = 0;
        for chunk in todo.chunks(engram_embed::BATCH_SIZE) {
            let texts: Vec<&str> = chunk.iter().map(|(_, t)| t.as_str()).collect();
            let vectors = embedder.embed(&texts).map_err(EngineError::Embed)?;
            let events: Vec<Event> = chunk
                .iter()
                .zip(vectors)
                .map(|((memory, _), v)| {
                    let q = engram_embed::quantize(&v);
                    Event::Embedded(engram_log::Embedded {
                        memory: *memory,
                        embedding: engram_log::Embedding {
                            model: model.clone(),
                            scale: q.scale,
                            values: q.values,
                        },
                    })
                })
                .collect();
            self.append(&events)?;
            done += chunk.len();
            progress(done, todo.len());
        }
        Ok(done)
    }

    /// Memory `id`'s original words, proven unaltered; appends `Expanded`.
    /// A forgotten memory expands only in audit mode.
    pub fn expand_as(
        &self,
        id: MemoryId,
        subject: &Subject,
        audit: bool,
    ) -> Result<Expansion, EngineError> {
        let subject = &clean_subject(subject)?;
        let entry = self.entry(id)?;
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
        self.append(&[Event::Expanded(Expanded { memory: id, audit })])?;
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
        let subject = &clean_subject(subject)?;
        let event = memory::forgotten(id, subject.actor, reason)?;
        let _writer = self.write_lock();
        let entry = self.entry(id)?;
        if let Some(forgotten) = &entry.forgotten {
            return Ok(Forgetting {
                id,
                seq: forgotten.seq,
                already: true,
            });
        }
        self.gate(subject, Action::Forget, &Object::Memory(&entry))?;
        let seq = self.append(&[Event::Forgotten(event)])?.first_seq;
        Ok(Forgetting {
            id,
            seq,
            already: false,
        })
    }

    /// Checks `quote` against memory `id`'s verified source words and
    /// records `EvidenceConfirmed` (valid evidence raises trust).
    pub fn confirm(
        &self,
        id: MemoryId,
        subject: &Subject,
        quote: &str,
    ) -> Result<Confirmation, EngineError> {
        let subject = &clean_subject(subject)?;
        let entry = self.entry(id)?;
        if let Some(forgotten) = &entry.forgotten {
            return Err(EngineError::Forgotten {
                id,
                seq: forgotten.seq,
            });
        }
        self.gate(subject, Action::Confirm, &Object::Memory(&entry))?;
        let events = seal::read_sealed(
            self.log().reader(),
            self.log().key(),
            &entry.reference,
            &entry.content_sha256,
            &entry.mac,
        )?;
        let evidence = memory::evidence(id, subject.actor, quote, &events)?;
        let valid = evidence.valid;
        let seq = self
            .append(&[Event::EvidenceConfirmed(evidence)])?
            .first_seq;
        let trust = self.core().trust.read().state.trust(id).unwrap_or(0.0);
        Ok(Confirmation {
            id,
            seq,
            valid,
            trust,
        })
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

impl From<InputError> for EngineError {
    fn from(e: InputError) -> Self {
        EngineError::Input(e)
    }
}

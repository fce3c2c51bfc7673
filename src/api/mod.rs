//! The operations engram offers over its interfaces (HTTP, MCP), with typed
//! requests and JSON answers in the shapes of the CLI's `--json` output.
//!
//! A [`Service`] holds its stores open for its whole life: one store takes
//! the writes, recall searches every store it holds. Every append waits for
//! the views, so an answer sent after a write reflects it (read-your-writes
//! across requests). Errors carry a stable [`ErrorCode`] a client can branch
//! on and a sentence a person or a model can act on.

pub mod id;
pub mod json;

mod error;
mod input;
mod request;
mod time;

pub use error::{ApiError, ErrorCode};
pub use id::{IdArg, IdError, qualified};
pub use input::{BATCH_INPUT_BYTES_MAX, TEXT_INPUT_BYTES_MAX, read_batch_input, read_text_input};
pub use request::*;
pub use time::parse_time;

use engram_commands::decide::RENOVATION_BELOW_PERMILLE;
use engram_commands::ingest::{IngestError, read_transcript};
use engram_commands::maintain::MaintainPolicy;
use engram_log::{MemoryId, MemoryRef, Scope, Tier};
use serde_json::{Value, json};

use std::sync::Arc;

use crate::store::{Store, StoreOptions};

use crate::engine::{EngineError, Engram, now_ms};
use crate::{Content, Hit, MemoryMeta, RecallMode, RecallQuery, Remember, Subject};

mod ingest;
mod log;
mod memories;
mod series;

pub use ingest::{ParsedTranscript, parse_ingest, parse_ingest_from};

/// The store a [`Service`] holds open (it takes the writes), with its
/// scope name in answers. An owner serving several stores shares one
/// [`Engram`] between the services that reach it.
#[derive(Debug)]
pub struct ServedStore {
    pub scope: &'static str,
    pub engram: Arc<Engram>,
}

/// Hands out a store an owner holds open: `Some` once it is open, `None`
/// when it has no log and `create` is false (a store a read would not
/// create).
pub type HeldStore =
    Arc<dyn Fn(bool) -> Result<Option<Arc<Engram>>, EngineError> + Send + Sync + 'static>;

/// Another store a [`Service`] reaches (the user store beside a project
/// store): held open by the owner that serves both ([`SharedStore::held`]),
/// or else opened for each operation and closed after it.
pub struct SharedStore {
    pub scope: &'static str,
    store: Store,
    options: StoreOptions,
    embedder: Option<Arc<dyn engram_embed::Embedder>>,
    /// One operation at a time from this process (a store has one writer).
    turn: parking_lot::Mutex<()>,
    /// The owner's handle, when the store is held open.
    held: Option<HeldStore>,
}

impl std::fmt::Debug for SharedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedStore")
            .field("scope", &self.scope)
            .field("store", &self.store)
            .finish_non_exhaustive()
    }
}

impl SharedStore {
    #[must_use]
    pub fn new(
        scope: &'static str,
        store: Store,
        options: StoreOptions,
        embedder: Option<Arc<dyn engram_embed::Embedder>>,
    ) -> Self {
        Self {
            scope,
            store,
            options,
            embedder,
            turn: parking_lot::Mutex::new(()),
            held: None,
        }
    }

    /// A store the owner holds open and hands out through `held`.
    #[must_use]
    pub fn held(scope: &'static str, store: Store, held: HeldStore) -> Self {
        Self {
            scope,
            store,
            options: StoreOptions::default(),
            embedder: None,
            turn: parking_lot::Mutex::new(()),
            held: Some(held),
        }
    }

    /// Runs `op` on the store opened for it (created when `create`, else
    /// `None` when it has no log yet).
    fn with<T>(
        &self,
        create: bool,
        op: impl FnOnce(&Engram) -> T,
    ) -> Result<Option<T>, EngineError> {
        if let Some(held) = &self.held {
            return Ok(held(create)?.map(|engram| op(&engram)));
        }
        let _turn = self.turn.lock();
        if !create && !self.store.has_log() {
            return Ok(None);
        }
        let mut engram = Engram::open(self.store.clone(), &self.options)?;
        if let Some(embedder) = &self.embedder {
            engram = engram.with_embedder(Arc::clone(embedder));
        }
        let answer = op(&engram);
        engram.close()?;
        Ok(Some(answer))
    }
}

/// Recall hits across stores, with the mode every store ran in.
#[derive(Debug, Clone)]
pub struct Recalled {
    /// Best first; each with its store's scope name.
    pub hits: Vec<(&'static str, Hit)>,
    /// `hybrid` only when every store searched ran hybrid.
    pub mode: RecallMode,
    /// Stores that could not be searched (busy with another writer past
    /// the lock wait), with why: the hits come from the others.
    pub skipped: Vec<String>,
}

/// One transcript as ingested.
#[derive(Debug, Clone)]
pub struct Ingested {
    pub session: String,
    pub first_seq: u64,
    pub last_seq: u64,
    /// The transcript's turns.
    pub turns: usize,
    /// Of those, the turns the session already held (not recorded again).
    pub held: usize,
    pub redacted: usize,
    /// The lines left out (with `skip_bad_lines`).
    pub skipped: Vec<IngestError>,
    /// The turns recorded now (not those held before), for extraction.
    pub recorded: Vec<(u64, engram_log::SessionEvent)>,
}

/// Open stores and the operations on them.
#[derive(Debug)]
pub struct Service {
    /// The store that takes writes, held open.
    primary: ServedStore,
    /// The other stores recall searches (and batch saves may name).
    others: Vec<SharedStore>,
}

/// Which store of a [`Service`] an operation runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Primary,
    Other(usize),
}

/// A store in words: `the user store`, `this store` for a --store folder.
fn store_words(scope: &str) -> String {
    match scope {
        "store" => "this store".to_owned(),
        scope => format!("the {scope} store"),
    }
}

/// Each store's answer with its scope, and the stores left out, with why.
type Across<T> = (Vec<(&'static str, T)>, Vec<String>);

/// `answer` with `skipped` (the stores left out, with why) when any was.
fn with_skipped(mut answer: Value, skipped: Vec<String>) -> Value {
    if !skipped.is_empty() {
        answer["skipped"] = json!(skipped);
    }
    answer
}

/// The label of memory `id` in `engram`'s store, when it has one.
fn label_of(engram: &Engram, id: MemoryId) -> Option<String> {
    let core = engram.core();
    let known = core.memory_table.read().state.get(id).is_some();
    known.then(|| engram_queries::label(core, id))
}

/// The context block of hits across stores: each names its memory by the
/// id handed out (`u:2`) and its store.
#[must_use]
pub fn context_block(hits: &[(&'static str, Hit)]) -> String {
    let named: Vec<(String, &str, &Hit)> = hits
        .iter()
        .map(|(scope, hit)| (qualified(scope, hit.id), *scope, hit))
        .collect();
    engram_queries::context::context_block_named(&named)
}

fn subject(by: By, session: Option<&String>) -> Subject {
    Subject {
        actor: by.actor(),
        session: session.cloned(),
    }
}

impl Service {
    /// A service over `primary` (writes and reads, held open) and `others`
    /// (recall merges their hits by score, ties to the primary store;
    /// opened per operation).
    #[must_use]
    pub fn new(primary: ServedStore, others: Vec<SharedStore>) -> Self {
        Self { primary, others }
    }

    /// The store that takes writes.
    #[must_use]
    pub fn engram(&self) -> &Engram {
        &self.primary.engram
    }

    /// The primary store's scope name.
    #[must_use]
    pub fn scope(&self) -> &'static str {
        self.primary.scope
    }

    fn target_scope(&self, target: Target) -> &'static str {
        match target {
            Target::Primary => self.scope(),
            Target::Other(i) => self.others.get(i).map_or(self.scope(), |o| o.scope),
        }
    }

    /// Runs `op` on `target`'s store (another store is opened for it; one
    /// with no log yet holds no memory, `not_found`).
    fn on<T>(
        &self,
        target: Target,
        op: impl FnOnce(&Engram) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let other = match target {
            Target::Primary => return op(self.engram()),
            Target::Other(i) => self.others.get(i),
        };
        let Some(other) = other else {
            return Err(ApiError::new(ErrorCode::Internal, "no such store"));
        };
        other.with(false, op)?.unwrap_or_else(|| {
            Err(ApiError::new(
                ErrorCode::NotFound,
                format!(
                    "{} holds no memories yet: nothing was recorded there",
                    store_words(other.scope)
                ),
            ))
        })
    }

    /// The store `id` names. A qualified id (`u:2`) names its store, which
    /// must be open here (`no_store` otherwise); a bare number names the
    /// one store with a memory of that id, and is refused (`ambiguous_id`,
    /// listing each) when several have one.
    fn resolve(&self, id: IdArg) -> Result<Target, ApiError> {
        if let Some(scope) = id.scope {
            if scope == self.scope() {
                return Ok(Target::Primary);
            }
            if let Some(i) = self.others.iter().position(|o| o.scope == scope) {
                return Ok(Target::Other(i));
            }
            let mut open = vec![self.scope()];
            open.extend(self.others.iter().map(|o| o.scope));
            let open: Vec<String> = open
                .iter()
                .map(|scope| format!("{}:N ({scope})", id::letter(scope)))
                .collect();
            return Err(ApiError::new(
                ErrorCode::NoStore,
                format!(
                    "{id} names the {scope} store, which is not open here (a project store is open inside a git repository unless --scope or --store names another store); nothing was changed: the ids here are {}",
                    open.join(", ")
                ),
            ));
        }
        let mut found = Vec::new();
        if let Some(label) = label_of(self.engram(), id.id) {
            found.push((Target::Primary, label));
        }
        for (i, other) in self.others.iter().enumerate() {
            if let Some(Some(label)) = other.with(false, |engram| label_of(engram, id.id))? {
                found.push((Target::Other(i), label));
            }
        }
        match found.as_slice() {
            [] => {
                let mut stores = vec![store_words(self.scope())];
                stores.extend(self.others.iter().map(|o| store_words(o.scope)));
                Err(ApiError::new(
                    ErrorCode::NotFound,
                    format!(
                        "no memory with id {} in {}: give an id as recall shows it",
                        id.id,
                        stores.join(" or ")
                    ),
                ))
            }
            [(target, _)] => Ok(*target),
            several => {
                let each: Vec<String> = several
                    .iter()
                    .map(|(target, label)| {
                        format!(
                            "{} ({label:?})",
                            qualified(self.target_scope(*target), id.id)
                        )
                    })
                    .collect();
                Err(ApiError::new(
                    ErrorCode::AmbiguousId,
                    format!(
                        "memory id {} is ambiguous: it names {}; give the one you mean (nothing was changed)",
                        id.id,
                        each.join(" and ")
                    ),
                ))
            }
        }
    }

    /// Runs `op` on the memory `id` names, in its store; answers the
    /// store's scope name with `op`'s answer.
    ///
    /// # Errors
    /// A store not open here, an ambiguous bare number, an unknown memory,
    /// or `op`'s error.
    pub fn with_memory<T, E: Into<ApiError>>(
        &self,
        id: IdArg,
        op: impl FnOnce(&Engram, MemoryId) -> Result<T, E>,
    ) -> Result<(&'static str, T), ApiError> {
        let target = self.resolve(id)?;
        let scope = self.target_scope(target);
        let answer = self.on(target, |engram| {
            if label_of(engram, id.id).is_none() {
                return Err(ApiError::new(
                    ErrorCode::NotFound,
                    format!(
                        "no memory with id {} in {}: give an id as recall shows it",
                        qualified(scope, id.id),
                        store_words(scope)
                    ),
                ));
            }
            op(engram, id.id).map_err(Into::into)
        })?;
        Ok((scope, answer))
    }

    /// The one store all of `ids` name (the primary for none).
    fn resolve_all(&self, ids: &[IdArg]) -> Result<Target, ApiError> {
        let mut target = None;
        for id in ids {
            let this = self.resolve(*id)?;
            if target.is_some_and(|t| t != this) {
                return Err(ApiError::bad_request(format!(
                    "{} are not of one store: a contradiction or a rule is between memories of one store",
                    ids.iter()
                        .map(IdArg::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            target = Some(this);
        }
        Ok(target.unwrap_or(Target::Primary))
    }

    /// Closes the primary store, persisting its views (a store shared with
    /// other services of one owner is closed by that owner).
    ///
    /// # Errors
    /// When the store fails to close.
    pub fn close(self) -> Result<(), EngineError> {
        match Arc::try_unwrap(self.primary.engram) {
            Ok(engram) => engram.close(),
            // Shared with other services of one owner: it closes it.
            Err(_) => Ok(()),
        }
    }

    /// Saves one memory.
    ///
    /// # Errors
    /// Bad input, a gate's denial, a reference that does not verify.
    pub fn remember(&self, r: &RememberRequest) -> Result<Value, ApiError> {
        let content = match (r.first_seq, r.last_seq, &r.content) {
            (Some(_), Some(_), Some(_)) => {
                return Err(ApiError::bad_request(
                    "give content or first_seq/last_seq, not both",
                ));
            }
            (Some(first_seq), Some(last_seq), None) => {
                let Some(session) = r.session.clone() else {
                    return Err(ApiError::bad_request(
                        "first_seq/last_seq need the session whose turns they name",
                    ));
                };
                Content::Reference(MemoryRef {
                    session,
                    first_seq,
                    last_seq,
                })
            }
            (None, None, Some(text)) => Content::Text {
                text: text.clone(),
                session: r.session.clone(),
            },
            (Some(_), None, _) | (None, Some(_), _) => {
                return Err(ApiError::bad_request("first_seq and last_seq go together"));
            }
            (None, None, None) => {
                return Err(ApiError::bad_request(
                    "nothing to remember: give content, or session with first_seq and last_seq",
                ));
            }
        };
        if r.session_only && r.session.is_none() {
            return Err(ApiError::bad_request("session_only needs a session"));
        }
        // A memory saved in a session is that session's (L1) until it is
        // promoted (`engram_commands::tier`).
        let tier = match (r.tier, &r.session) {
            (Some(tier), _) => tier.save_tier()?,
            (None, Some(_)) => Tier::L1,
            (None, None) => Tier::L3,
        };
        let ttl_ms = match &r.ttl {
            Some(text) => Some(
                humantime::parse_duration(text)
                    .map_err(|e| {
                        ApiError::bad_request(format!("ttl {text:?}: {e} (like 30d or 12h)"))
                    })?
                    .as_millis()
                    .try_into()
                    .unwrap_or(u64::MAX),
            ),
            None => None,
        };
        let request = Remember {
            content,
            meta: MemoryMeta {
                summary: r.summary.clone(),
                tags: r.tags.clone(),
                tier,
                room: r.room.clone(),
                source: r.by.source(),
                scope: match (&r.session, r.session_only) {
                    (Some(session), true) => Scope::Session(session.clone()),
                    _ => Scope::Store,
                },
                ttl_ms,
            },
            subject: subject(r.by, r.session.as_ref()),
        };
        let receipt = self.engram().remember(&request)?;
        Ok(json::receipt(self.scope(), &receipt))
    }

    /// Saves a batch as one atomic append; one result per item, in order.
    /// An item with bad input, or one a gate denies, fails alone (its
    /// result says why and names its index) and the others are saved; no
    /// item is ever half saved.
    ///
    /// # Errors
    /// An empty batch.
    pub fn remember_batch(&self, r: &BatchRequest) -> Result<Value, ApiError> {
        if r.items.is_empty() {
            return Err(ApiError::bad_request("the batch holds no items"));
        }
        let requests: Vec<Remember> = r
            .items
            .iter()
            .map(|item| Remember {
                content: Content::Text {
                    text: item.content.clone(),
                    session: r.session.clone(),
                },
                meta: MemoryMeta {
                    summary: item.summary.clone(),
                    tags: item.tags.clone(),
                    room: item.room.clone().or_else(|| r.room.clone()),
                    source: r.by.source(),
                    tier: if r.session.is_some() {
                        Tier::L1
                    } else {
                        Tier::L3
                    },
                    ..MemoryMeta::default()
                },
                subject: subject(r.by, r.session.as_ref()),
            })
            .collect();
        let (scope, results) = match r.scope.as_deref() {
            None => (self.scope(), self.engram().remember_batch(&requests)?),
            Some(scope) if scope == self.scope() => {
                (scope, self.engram().remember_batch(&requests)?)
            }
            Some(scope) => {
                let Some(other) = self.others.iter().find(|s| s.scope == scope) else {
                    let mut known = vec![self.scope()];
                    known.extend(self.others.iter().map(|s| s.scope));
                    return Err(ApiError::bad_request(format!(
                        "no {scope:?} store here: use one of {}",
                        known.join(", ")
                    )));
                };
                let results = other
                    .with(true, |engram| engram.remember_batch(&requests))?
                    .transpose()?
                    .unwrap_or_default();
                (other.scope, results)
            }
        };
        // One result per item, in order, each naming its item's index: an
        // item that failed appended nothing (a denied one its `gate_denied`).
        let results: Vec<Value> = results
            .into_iter()
            .enumerate()
            .map(|(index, result)| match result {
                Ok(receipt) => {
                    let mut answer = json::receipt(scope, &receipt);
                    if let Some(fields) = answer.as_object_mut() {
                        fields.insert("index".to_owned(), json!(index));
                    }
                    answer
                }
                Err(e) => {
                    let e = ApiError::from(e);
                    json!({"index": index, "outcome": "error", "error": e.code.as_str(), "message": e.message})
                }
            })
            .collect();
        Ok(json!({ "results": results }))
    }

    /// Recalls across every store held.
    ///
    /// # Errors
    /// An empty query or a limit out of range.
    pub fn recall_hits(&self, r: &RecallRequest) -> Result<Recalled, ApiError> {
        let limit = r.limit()?;
        let query = RecallQuery {
            text: r.query.clone(),
            room: r.room.clone(),
            tier: r.tier.map(TierName::tier),
            tags: r.tags.clone(),
            session: r.session.clone(),
            limit,
            min_score: r.min_score()?,
            now_ms: None,
        };
        let mut hits: Vec<(usize, &'static str, Hit)> = self
            .engram()
            .recall(&query)?
            .into_iter()
            .map(|hit| (0, self.scope(), hit))
            .collect();
        let mut hybrid = self.engram().last_recall_mode() == RecallMode::Hybrid;
        let mut skipped = Vec::new();
        for (rank, other) in (1..).zip(&self.others) {
            // A store with no log has nothing to find (and is not created).
            let searched = other.with(false, |engram| {
                engram
                    .recall(&query)
                    .map(|found| (found, engram.last_recall_mode()))
            });
            match searched {
                Ok(None) => {}
                Ok(Some(found)) => {
                    let (found, mode) = found?;
                    hybrid &= mode == RecallMode::Hybrid;
                    hits.extend(found.into_iter().map(|hit| (rank, other.scope, hit)));
                }
                // Another process writing that store past the lock wait:
                // answer from the others and say so.
                Err(EngineError::Store(e)) => {
                    skipped.push(format!("the {} store: {e}", other.scope));
                }
                Err(e) => return Err(e.into()),
            }
        }
        // Merged as each store ordered them: session and workspace
        // memories first where relevance is comparable.
        let rank = |hit: &Hit| engram_queries::recall::tier_rank(Some(hit.tier), hit.score);
        hits.sort_by(|a, b| {
            rank(&b.2)
                .total_cmp(&rank(&a.2))
                .then(a.0.cmp(&b.0))
                .then(a.2.id.cmp(&b.2.id))
        });
        hits.truncate(limit);
        Ok(Recalled {
            hits: hits
                .into_iter()
                .map(|(_, scope, hit)| (scope, hit))
                .collect(),
            mode: if hybrid {
                RecallMode::Hybrid
            } else {
                RecallMode::Keyword
            },
            skipped,
        })
    }

    /// Recalls and answers `{"hits", "mode", "context"}`.
    ///
    /// # Errors
    /// As [`Service::recall_hits`].
    pub fn recall(&self, r: &RecallRequest) -> Result<Value, ApiError> {
        let recalled = self.recall_hits(r)?;
        let mut answer = json!({
            "hits": recalled.hits.iter().map(|(scope, hit)| json::hit(scope, hit)).collect::<Vec<_>>(),
            "mode": recalled.mode.as_str(),
            "context": context_block(&recalled.hits),
        });
        if !recalled.skipped.is_empty() {
            answer["skipped"] = json!(recalled.skipped);
        }
        Ok(answer)
    }

    /// A memory's table entry.
    ///
    /// # Errors
    /// `not_found` for an unknown id; `tampered` when its view entries do
    /// not match their MAC (its summary and tags are not shown).
    pub fn memory(&self, id: IdArg) -> Result<Value, ApiError> {
        let scope = self.target_scope(self.resolve(id)?);
        let named = IdArg {
            scope: Some(scope),
            id: id.id,
        };
        let (_, answer) = self.with_memory(named, |engram, id| {
            let entry = engram
                .core()
                .memory_table
                .read()
                .state
                .get(id)
                .cloned()
                .ok_or(EngineError::UnknownMemory { id })?;
            engram.core().text_index.read().verified_text(&entry)?;
            Ok::<_, ApiError>(json::memory(scope, engram, &entry))
        })?;
        Ok(answer)
    }

    /// A memory's original words, verified.
    ///
    /// # Errors
    /// Unknown, forgotten (outside audit), tampered, or gated.
    pub fn expand(
        &self,
        id: IdArg,
        session: Option<&String>,
        audit: bool,
    ) -> Result<Value, ApiError> {
        let scope = self.target_scope(self.resolve(id)?);
        let (scope, expansion) = self.with_memory(id, |engram, id| {
            engram
                .expand_as(id, &subject(By::User, session), audit)
                .map_err(|e| ApiError::of_memory(scope, e))
        })?;
        Ok(json::expansion(scope, &expansion))
    }

    /// Expands as a model would (no audit mode).
    ///
    /// # Errors
    /// As [`Service::expand`].
    pub fn expand_as_model(&self, id: IdArg, session: Option<&String>) -> Result<Value, ApiError> {
        let scope = self.target_scope(self.resolve(id)?);
        let (scope, expansion) = self.with_memory(id, |engram, id| {
            engram
                .expand_as(id, &subject(By::Model, session), false)
                .map_err(|e| ApiError::of_memory(scope, e))
        })?;
        Ok(json::expansion(scope, &expansion))
    }

    /// A memory's audit history.
    ///
    /// # Errors
    /// `not_found` for an unknown id.
    pub fn audit(&self, id: IdArg) -> Result<Value, ApiError> {
        let (scope, history) = self.with_memory(id, |engram, id| engram.audit(id))?;
        Ok(json!({
            "id": qualified(scope, id.id),
            "history": history.iter().map(json::audit_record).collect::<Vec<_>>(),
        }))
    }

    /// Tombstones a memory.
    ///
    /// # Errors
    /// Unknown or gated.
    pub fn forget(&self, id: IdArg, r: &ForgetRequest) -> Result<Value, ApiError> {
        let (scope, forgetting) = self.with_memory(id, |engram, id| {
            engram.forget(
                id,
                &subject(r.by, r.session.as_ref()),
                r.reason.as_deref().unwrap_or_default(),
            )
        })?;
        Ok(json::forgetting(scope, &forgetting))
    }

    /// Erases a memory for good (with every memory and event whose words
    /// derive from it): `Purged` appended, the data keys destroyed, the
    /// views file rewritten.
    ///
    /// # Errors
    /// Unknown, already purged, a store whose content is not sealed, or
    /// gated (a model purging what the user said).
    pub fn purge(&self, id: IdArg, r: &PurgeRequest) -> Result<Value, ApiError> {
        let (scope, purging) = self.with_memory(id, |engram, id| {
            engram.purge(
                &engram_commands::purge::PurgeTarget::Memory(id),
                &r.subject(),
                r.reason.as_deref().unwrap_or_default(),
            )
        })?;
        let mut answer = json::purging(scope, &purging);
        if let Some(fields) = answer.as_object_mut() {
            fields.insert("id".to_owned(), json!(qualified(scope, id.id)));
        }
        Ok(answer)
    }

    /// Erases a whole session for good, in every store that recorded it:
    /// its turns, every memory referencing it and what derives from them.
    ///
    /// # Errors
    /// `not_found` when no store holds the session; a store whose content
    /// is not sealed; gated (a model may not purge a session).
    pub fn purge_session(&self, name: &str, r: &PurgeRequest) -> Result<Value, ApiError> {
        let target = engram_commands::purge::PurgeTarget::Session(name.to_owned());
        let holds = |engram: &Engram| engram.core().sessions.read().state.get(name).is_some();
        let mut stores = Vec::new();
        if holds(self.engram()) {
            stores.push(Target::Primary);
        }
        for (i, other) in self.others.iter().enumerate() {
            if other.with(false, holds)? == Some(true) {
                stores.push(Target::Other(i));
            }
        }
        if stores.is_empty() {
            return Err(ApiError::from(crate::engine::EngineError::Purge(
                engram_commands::purge::PurgeError::UnknownSession {
                    name: name.to_owned(),
                },
            )));
        }
        let mut purges = Vec::new();
        for store in stores {
            let scope = self.target_scope(store);
            let purging = self.on(store, |engram| {
                engram
                    .purge(
                        &target,
                        &r.subject(),
                        r.reason.as_deref().unwrap_or_default(),
                    )
                    .map_err(ApiError::from)
            })?;
            purges.push(json::purging(scope, &purging));
        }
        Ok(json!({"session": name, "purges": purges}))
    }

    /// Checks a quote against a memory's verified source.
    ///
    /// # Errors
    /// Unknown, forgotten, tampered, or gated.
    pub fn confirm(&self, id: IdArg, r: &ConfirmRequest) -> Result<Value, ApiError> {
        let (scope, confirmation) = self.with_memory(id, |engram, id| {
            engram.confirm(id, &subject(r.by, r.session.as_ref()), &r.quote)
        })?;
        Ok(json::confirmation(scope, &confirmation))
    }

    /// Records a review grade.
    ///
    /// # Errors
    /// A grade outside 0-5, an unknown or forgotten memory, or gated.
    pub fn grade(&self, id: IdArg, r: &GradeRequest) -> Result<Value, ApiError> {
        r.validate()?;
        let subject = subject(r.by, None);
        let (scope, schedule) =
            self.with_memory(id, |engram, id| engram.grade_as(id, r.grade, &subject))?;
        Ok(json::schedule(scope, id.id, r.grade, &schedule))
    }

    /// Records workspace documents as L2 memories (unchanged ones add
    /// nothing; a changed one supersedes its older version).
    ///
    /// # Errors
    /// A document too large, not text, with a bad path, too many, or
    /// gated: nothing is written.
    pub fn workspace(&self, r: &WorkspaceRequest) -> Result<Value, ApiError> {
        r.validate()?;
        let subject = subject(r.by, None);
        let outcomes = self.engram().refresh_workspace(&r.documents(), &subject)?;
        let scope = self.scope();
        let documents: Vec<Value> = outcomes
            .iter()
            .map(|o| {
                json!({
                    "path": o.path,
                    "outcome": o.outcome,
                    "memories": o.memories.iter().map(|&id| qualified(scope, id)).collect::<Vec<_>>(),
                    "superseded": o.superseded.iter().map(|&id| qualified(scope, id)).collect::<Vec<_>>(),
                })
            })
            .collect();
        Ok(json!({ "documents": documents }))
    }

    /// The L0 block of every store held: rooms, the user profile and the
    /// most trusted facts (`engram_queries::l0`), as parts and as the block.
    #[must_use]
    pub fn l0(&self) -> Value {
        let mut parts = vec![(self.scope(), self.engram().l0())];
        for other in &self.others {
            if let Ok(Some(l0)) = other.with(false, |engram| engram.l0()) {
                parts.push((other.scope, l0));
            }
        }
        json::l0(&parts)
    }

    /// Moves a memory to another tier by hand.
    ///
    /// # Errors
    /// An unknown or forgotten memory, its own tier, into or out of l2, or
    /// gated.
    pub fn move_tier(&self, id: IdArg, r: &TierRequest) -> Result<Value, ApiError> {
        let subject = subject(r.by, None);
        let reason = r.reason.clone().unwrap_or_default();
        let (scope, moved) = self.with_memory(id, |engram, id| {
            engram.move_tier(id, r.tier.tier(), &reason, &subject)
        })?;
        Ok(json!({
            "id": qualified(scope, moved.id),
            "from": json::tier_name(moved.from),
            "to": json::tier_name(moved.to),
            "seq": moved.seq,
        }))
    }

    /// Memories due for review at `at` (default now): never content.
    ///
    /// # Errors
    /// A time that does not parse.
    pub fn review(&self, at: Option<&str>) -> Result<Value, ApiError> {
        let now = now_ms();
        let at = at.map_or(Ok(now), |text| parse_time(text, now))?;
        let (due, skipped) = self.across(|_, engram| engram.review(at))?;
        Ok(with_skipped(json::due(&due), skipped))
    }

    /// Open and shelved contradictions of every store.
    ///
    /// # Errors
    /// Another store that fails for a reason other than being unavailable.
    pub fn verdicts(&self) -> Result<Value, ApiError> {
        let (found, skipped) = self.across(|_, engram| engram.contradictions())?;
        Ok(with_skipped(json::contradictions(&found), skipped))
    }

    /// `op` on every store this service reaches, given its rank (0 for the
    /// primary, then the others in order), each answer with its store's
    /// scope. A store that cannot be opened now (another process holds it)
    /// is left out, with why.
    fn across<T>(&self, op: impl Fn(usize, &Engram) -> T) -> Result<Across<T>, ApiError> {
        let mut found = vec![(self.scope(), op(0, self.engram()))];
        let mut skipped = Vec::new();
        for (rank, other) in (1..).zip(&self.others) {
            match other.with(false, |engram| op(rank, engram)) {
                Ok(None) => {}
                Ok(Some(answer)) => found.push((other.scope, answer)),
                Err(EngineError::Store(e)) => {
                    skipped.push(format!("the {} store: {e}", other.scope));
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok((found, skipped))
    }

    /// Decides a contradiction.
    ///
    /// # Errors
    /// Not a contradiction, already decided, or gated.
    pub fn verdict(&self, r: &VerdictRequest) -> Result<Value, ApiError> {
        let target = self.resolve_all(&[r.a, r.b])?;
        let seq = self.on(target, |engram| {
            Ok(engram.verdict(
                r.a.id,
                r.b.id,
                r.verdict.verdict(),
                r.by.actor(),
                r.reason.as_deref().unwrap_or_default(),
            )?)
        })?;
        let scope = self.target_scope(target);
        Ok(json!({
            "a": qualified(scope, r.a.id),
            "b": qualified(scope, r.b.id),
            "verdict": r.verdict.as_str(),
            "seq": seq,
        }))
    }

    /// Archives expired, decayed and evicted memories.
    ///
    /// # Errors
    /// A time that does not parse, or gated.
    pub fn maintain(&self, r: &MaintainRequest) -> Result<Value, ApiError> {
        let now = now_ms();
        let at =
            r.at.as_deref()
                .map_or(Ok(now), |text| parse_time(text, now))?;
        let defaults = MaintainPolicy::default();
        let policy = MaintainPolicy {
            idle_days: r.idle_days.unwrap_or(defaults.idle_days),
            importance_below: r.importance_below.unwrap_or(defaults.importance_below),
            hot_set_capacity: r.capacity.unwrap_or(defaults.hot_set_capacity),
            keep_trust_at_least: r.keep_trust.unwrap_or(defaults.keep_trust_at_least),
            session_idle_days: r.session_idle_days.unwrap_or(defaults.session_idle_days),
            rescore_after: None,
        };
        let archived = self
            .engram()
            .maintain_as(&policy, at, r.dry_run, &subject(r.by, None))?;
        Ok(json::archived(self.scope(), &archived, r.dry_run))
    }

    /// Clusters of similar memories worth a rule.
    #[must_use]
    pub fn distill_candidates(&self) -> Value {
        json::clusters(self.scope(), &self.engram().distill_candidates_described())
    }

    /// Records a distilled rule, or with `dry_run` says what it would
    /// record.
    ///
    /// # Errors
    /// Too few members, unknown members, bad text, or gated.
    pub fn distill(&self, r: &DistillRequest) -> Result<Value, ApiError> {
        let by = r.by.unwrap_or(By::Model);
        let target = self.resolve_all(&r.members)?;
        let members: Vec<MemoryId> = r.members.iter().map(|m| m.id).collect();
        if r.dry_run {
            let plan =
                self.on(target, |engram| {
                    Ok(engram.distill_plan(
                        &members,
                        &r.rule,
                        r.room.as_deref(),
                        &subject(by, None),
                    )?)
                })?;
            return Ok(json::distill_plan(self.target_scope(target), &plan));
        }
        let d = self.on(target, |engram| {
            Ok(engram.distill(&members, &r.rule, r.room.as_deref(), &subject(by, None))?)
        })?;
        Ok(json::distillation(self.target_scope(target), &d))
    }

    /// The entity dictionary.
    ///
    /// # Errors
    /// An unknown category.
    pub fn entities(
        &self,
        category: Option<&str>,
        search: Option<&str>,
    ) -> Result<Value, ApiError> {
        const CATEGORIES: [&str; 6] =
            ["person", "project", "tool", "file", "organisation", "place"];
        if let Some(c) = category
            && !CATEGORIES.contains(&c)
        {
            return Err(ApiError::bad_request(format!(
                "unknown category {c:?}: use one of {}",
                CATEGORIES.join(", ")
            )));
        }
        let search = search.filter(|s| !s.trim().is_empty());
        let (found, skipped) = self.across(|_, engram| engram.entities(category, search))?;
        Ok(with_skipped(json::entities(&found), skipped))
    }

    /// The room directory, or one room's tour.
    ///
    /// # Errors
    /// `not_found` for an unknown room.
    pub fn palace(&self, room: Option<&str>) -> Result<Value, ApiError> {
        let core = self.engram().core();
        match room {
            Some(name) => engram_queries::palace::room(core, name)
                .map(|r| json::room(self.scope(), &r))
                .ok_or_else(|| {
                    ApiError::new(
                        ErrorCode::NotFound,
                        format!("no room {name:?}: the palace directory lists the rooms"),
                    )
                }),
            None => Ok(json!({
                "rooms": engram_queries::palace::directory(core).iter().map(|r| json::room(self.scope(), r)).collect::<Vec<_>>(),
                "corridors": engram_queries::palace::corridors(core).iter().map(json::corridor).collect::<Vec<_>>(),
            })),
        }
    }

    /// Puts a room (its topic) or a corridor on a corridor.
    ///
    /// # Errors
    /// `not_found` for an unknown name; `bad_request` for a loop, nesting
    /// too deep or a bad name; `denied` when a model moves what the user
    /// placed.
    pub fn place_corridor(&self, r: &CorridorRequest) -> Result<Value, ApiError> {
        r.validate()?;
        let subject = subject(r.by, None);
        let moved = self
            .engram()
            .place_corridor(
                &r.name,
                &r.into,
                r.kind.map(PlaceKindName::placed),
                &subject,
            )
            .map_err(ApiError::from)?;
        Ok(json!({
            "placed": match moved.placed {
                engram_log::Placed::Room => "room",
                engram_log::Placed::Corridor => "corridor",
            },
            "name": moved.name,
            "from": moved.from,
            "corridor": moved.corridor,
            "changed": moved.seq.is_some(),
            "seq": moved.seq,
        }))
    }

    /// Memories too alike to others to stand alone.
    #[must_use]
    pub fn renovation(&self) -> Value {
        json::renovation(
            self.scope(),
            &engram_queries::palace::renovation(self.engram().core(), RENOVATION_BELOW_PERMILLE),
        )
    }

    /// Waits until the events queued before (a read's `recalled`) are
    /// written and folded: asked by a process about to read the store's
    /// files (`engram log`, `export`, `verify`), so it sees every request
    /// answered before. `{"last_seq"}`: the log's end once settled.
    ///
    /// # Errors
    /// When the log cannot sync or a view fell behind past the wait.
    pub fn settle(&self) -> Result<Value, ApiError> {
        let engram = self.engram();
        engram.settle()?;
        Ok(serde_json::json!({ "last_seq": engram.log().last_seq() }))
    }

    /// Counts, views, health, recall mode.
    #[must_use]
    pub fn stats(&self) -> Value {
        let engram = self.engram();
        // Count the reads asked before (their queued `recalled` events);
        // a failure here shows in the views' own figures below.
        let _ = engram.settle();
        let model = engram.embedder().map(|e| e.model_id().to_owned());
        json::stats(
            &engram.stats(),
            None,
            engram.recall_mode().as_str(),
            model.as_deref(),
        )
    }

    /// Verifies the whole log (hash chain and HMACs).
    ///
    /// # Errors
    /// When the log cannot be read at all.
    pub fn verify(&self) -> Result<Value, ApiError> {
        let report = self
            .engram()
            .verify()
            .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?;
        Ok(json::verify_report(&report))
    }

    /// Adds vectors of the attached model to memories without one.
    ///
    /// # Errors
    /// No model attached, or the model fails.
    pub fn reembed(&self) -> Result<Value, ApiError> {
        let engram = self.engram();
        let Some(model) = engram.embedder().map(|e| e.model_id().to_owned()) else {
            return Err(ApiError::bad_request(
                "no embedding model is configured: recall is keyword-only",
            ));
        };
        let added = engram.reembed(&|_, _| {})?;
        Ok(json!({"model": model, "added": added, "mode": engram.recall_mode().as_str()}))
    }
}

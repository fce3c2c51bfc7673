//! The purge handler (`engram purge`): words erased for good by destroying
//! the data keys they were sealed with, written once over [`CommandStore`].
//!
//! **Subjects.** Every event is its own subject: its words are sealed under
//! the data key of its own seq. A purge of memory `M` destroys the keys of
//! `M`'s `Remembered`, the session turns it references (and the turns of
//! its restatements, `Reinforced` evidence), and every event whose words
//! derive from `M`: `EntityLinked`, `Embedded`, `EvidenceConfirmed`,
//! `EvidenceNoted`, `ContradictionFlagged` and `VerdictRecorded` naming
//! it, every `Recalled` whose hits include it (its query may hold the
//! words), every `Distilled` with `M` as a member, and the
//! `CorridorPlaced` of `M`'s topic when every memory of that topic is
//! purged (the topic's name came from `M`'s words; a topic other memories
//! keep is theirs too). Memories whose words would go with it are purged
//! with it: another memory referencing a purged turn (two memories
//! extracted from one turn), and a rule distilled from a purged memory
//! (its note and `Remembered`), until nothing more is reached. A purge of
//! session `S` starts from every turn of `S` and every memory referencing
//! `S`. Subjects are found with one scan of the log at purge time (a purge
//! is rare; the scan reads each event once).
//!
//! **Gate.** A purge is a write: each memory purged, and a session, is put
//! to the gate chain (a model may not purge what the user said, nor a
//! whole session); a denial is recorded as `GateDenied` and nothing is
//! purged.
//!
//! **Order.** Append `Purged` (durable) -> destroy the keys (overwritten,
//! fsynced) -> rewrite the views so no freed page keeps old words ->
//! answer. A crash after the append leaves a `Purged` whose keys may still
//! live: [`finish_pending`] finishes it when the store opens, before it
//! serves.
//!
//! **Refusals** (nothing changed): an unknown memory or session, a memory
//! already purged, a store whose content is not sealed (written before
//! encryption: it cannot be purged by key; an export imported into a new
//! store migrates it into one that can), more subjects than one purge takes.

use std::collections::{BTreeMap, BTreeSet};

use engram_log::keystore::DESTROY_SLOTS_MAX;
use engram_log::{Event, KeyStoreError, LogReader, MemoryId, MemoryRef, Placed, Purged};
use engram_projections::CoreViews;
use engram_projections::models::MemoryStatus;

use crate::flywheel::{CommandError, gate};
use crate::gate::{Action, Object, Subject};
use crate::memory::{self, NOTE_BYTES_MAX};
use crate::save::CommandStore;

/// Most subjects (events whose keys are destroyed) one purge may name: one
/// destroy of the key store, and a `Purged` event well inside the log's
/// event size limit.
pub const PURGE_SUBJECTS_MAX: usize = DESTROY_SLOTS_MAX;

/// What to purge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PurgeTarget {
    /// One memory, by id (with every memory whose words go with it).
    Memory(MemoryId),
    /// Every turn of one session and every memory referencing it.
    Session(String),
}

/// Why a purge was refused. Nothing was written, but for a denial's
/// `GateDenied`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PurgeError {
    #[error(
        "no session named {name:?}: `engram log --json` lists the sessions turns were recorded in"
    )]
    UnknownSession { name: String },
    #[error(
        "memory {id} was already purged (by the purged event at seq {seq}): nothing is left to erase"
    )]
    AlreadyPurged { id: MemoryId, seq: u64 },
    #[error(
        "this store's content is not sealed (it was written before encryption, format v1), so it cannot be purged by key: nothing was changed; migrate it into a new store, which seals its words: `engram --store OLD export > store.jsonl`, then `engram --store NEW import store.jsonl`"
    )]
    Unsealed,
    #[error(
        "subject {seq} was written before this store sealed its content (format v1), so it cannot be purged by key: nothing was changed; migrate the store by an export imported into a new store, which seals its words"
    )]
    WrittenBeforeSealing { seq: u64 },
    #[error(
        "this purge reaches {count} events, over the limit of {PURGE_SUBJECTS_MAX} per purge: purge the memories one by one"
    )]
    TooManySubjects { count: usize },
    #[error("the key store refused the purge: {0}")]
    Keys(#[from] KeyStoreError),
    #[error("reading the log to find what the purge reaches: {0}")]
    Read(#[from] engram_log::ReadError),
}

/// What a purge did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Purging {
    /// Seq of the `Purged` event.
    pub seq: u64,
    /// The memories purged, ascending.
    pub memories: Vec<MemoryId>,
    /// The session purged whole, if any.
    pub sessions: Vec<String>,
    /// Every subject whose key was destroyed, ascending.
    pub subjects: Vec<u64>,
}

/// What one purge reaches: the memories and the subjects, both ascending.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    pub memories: Vec<MemoryId>,
    pub subjects: Vec<u64>,
}

/// Events of the log that a purge may reach, gathered in one scan.
#[derive(Default)]
struct Scan {
    /// seq -> the memories its words derive from.
    naming: Vec<(u64, Vec<MemoryId>)>,
    /// A `Distilled` event's seq and members (its rule's memory is the
    /// event just before it).
    distilled: Vec<(u64, Vec<MemoryId>)>,
    /// A restatement's turns, by the memory it reinforced.
    evidence: Vec<(MemoryId, MemoryRef)>,
    /// Turns of the session purged.
    session_turns: Vec<u64>,
    /// Every placement of a topic on a corridor: seq, topic.
    placements: Vec<(u64, String)>,
}

fn scan(
    reader: &LogReader,
    session: Option<&str>,
) -> std::result::Result<Scan, engram_log::ReadError> {
    let mut out = Scan::default();
    for logged in reader.replay(1) {
        let logged = logged?;
        let seq = logged.seq;
        match logged.event {
            Event::Session(turn) if session == Some(turn.session.as_str()) => {
                out.session_turns.push(seq);
            }
            Event::EntityLinked(e) => out.naming.push((seq, vec![e.memory])),
            Event::Embedded(e) => out.naming.push((seq, vec![e.memory])),
            Event::EvidenceConfirmed(e) => out.naming.push((seq, vec![e.memory])),
            Event::EvidenceNoted(e) => out.naming.push((seq, vec![e.memory])),
            Event::ContradictionFlagged(e) => out.naming.push((seq, vec![e.memory, e.other])),
            Event::VerdictRecorded(e) => out.naming.push((seq, vec![e.a, e.b])),
            Event::Recalled(e) => out
                .naming
                .push((seq, e.hits.iter().map(|h| h.memory).collect())),
            Event::Distilled(e) => {
                out.naming.push((seq, e.members.clone()));
                out.distilled.push((seq, e.members));
            }
            Event::Reinforced(e) => {
                if let Some(evidence) = e.evidence {
                    out.evidence.push((e.memory, evidence));
                }
            }
            Event::CorridorPlaced(p) if p.placed == Placed::Room => {
                out.placements.push((seq, p.name));
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The memories and subjects a purge of `target` reaches (see the module
/// doc), read from the views and one scan of the log. Memories purged
/// before are not reached again.
pub fn reach(
    views: &CoreViews,
    reader: &LogReader,
    target: &PurgeTarget,
) -> std::result::Result<Reach, engram_log::ReadError> {
    let session = match target {
        PurgeTarget::Session(name) => Some(name.as_str()),
        PurgeTarget::Memory(_) => None,
    };
    let scan = scan(reader, session)?;
    let table = views.memory_table.read();
    let table = &table.state;
    let purgeable = |id: MemoryId| {
        table
            .get(id)
            .is_some_and(|e| e.status != MemoryStatus::Purged)
    };
    let mut memories: BTreeSet<MemoryId> = match target {
        PurgeTarget::Memory(id) => [*id].into_iter().filter(|&id| purgeable(id)).collect(),
        PurgeTarget::Session(name) => table
            .iter()
            .filter(|e| e.reference.session == *name && e.status != MemoryStatus::Purged)
            .map(|e| e.id)
            .collect(),
    };
    let mut turns: BTreeSet<u64> = scan.session_turns.iter().copied().collect();
    loop {
        for &id in &memories {
            if let Some(entry) = table.get(id) {
                turns.extend(entry.reference.first_seq..=entry.reference.last_seq);
            }
        }
        for (memory, evidence) in &scan.evidence {
            if memories.contains(memory) {
                turns.extend(evidence.first_seq..=evidence.last_seq);
            }
        }
        let mut more = BTreeSet::new();
        for entry in table.iter() {
            let reference = &entry.reference;
            if !memories.contains(&entry.id)
                && entry.status != MemoryStatus::Purged
                && turns
                    .range(reference.first_seq..=reference.last_seq)
                    .next()
                    .is_some()
            {
                more.insert(entry.id);
            }
        }
        for (seq, members) in &scan.distilled {
            let rule = seq.saturating_sub(1);
            if members.iter().any(|m| memories.contains(m))
                && !memories.contains(&rule)
                && purgeable(rule)
            {
                more.insert(rule);
            }
        }
        if more.is_empty() {
            break;
        }
        memories.extend(more);
    }
    let mut subjects: BTreeSet<u64> = memories.iter().copied().collect();
    subjects.extend(turns);
    for (seq, named) in &scan.naming {
        if named.iter().any(|m| memories.contains(m)) {
            subjects.insert(*seq);
        }
    }
    // A topic whose every memory is purged: its name came from their words.
    let palace = views.palace.read();
    let palace = &palace.state;
    let mut topics: BTreeMap<&str, bool> = BTreeMap::new();
    for &id in &memories {
        if let Some(coordinate) = palace.coordinate(id) {
            let topic = palace.topic_of(&coordinate.room);
            topics.entry(topic).or_insert_with(|| {
                palace.topic(topic).iter().all(|room| {
                    palace.room(room).is_none_or(|r| {
                        r.slots.iter().all(|m| {
                            memories.contains(m) || table.status(*m) == Some(MemoryStatus::Purged)
                        })
                    })
                })
            });
        }
    }
    for (seq, name) in &scan.placements {
        if topics.get(name.as_str()) == Some(&true) {
            subjects.insert(*seq);
        }
    }
    Ok(Reach {
        memories: memories.into_iter().collect(),
        subjects: subjects.into_iter().collect(),
    })
}

type Result<T, S> = std::result::Result<T, CommandError<<S as CommandStore>::Error>>;

/// Purges `target` (see the module doc): checks, gates, appends `Purged`,
/// destroys the keys and has the store rewrite its views, in that order.
pub fn purge<S: CommandStore>(
    store: &S,
    target: &PurgeTarget,
    subject: &Subject,
    reason: &str,
) -> Result<Purging, S> {
    let subject = &memory::clean_subject(subject)?;
    let reason = if reason.trim().is_empty() {
        "no reason given".to_owned()
    } else {
        memory::clean("reason", reason, NOTE_BYTES_MAX)?
    };
    let target = match target {
        PurgeTarget::Memory(id) => PurgeTarget::Memory(*id),
        PurgeTarget::Session(name) => PurgeTarget::Session(memory::clean_name("session", name)?),
    };
    let _writer = store.write_lock();
    let views = store.views();
    match &target {
        PurgeTarget::Memory(id) => {
            let entry = views
                .memory_table
                .read()
                .state
                .get(*id)
                .cloned()
                .ok_or(CommandError::UnknownMemory { id: *id })?;
            if let Some(purged) = &entry.purged {
                return Err(PurgeError::AlreadyPurged {
                    id: *id,
                    seq: purged.seq,
                }
                .into());
            }
        }
        PurgeTarget::Session(name) => {
            if views.sessions.read().state.get(name).is_none() {
                return Err(PurgeError::UnknownSession { name: name.clone() }.into());
            }
        }
    }
    let reader = store.reader();
    if !reader.is_sealed() {
        return Err(PurgeError::Unsealed.into());
    }
    let reach = reach(views, reader, &target).map_err(|e| CommandError::Purge(e.into()))?;
    if reach.subjects.len() > PURGE_SUBJECTS_MAX {
        return Err(PurgeError::TooManySubjects {
            count: reach.subjects.len(),
        }
        .into());
    }
    if let PurgeTarget::Session(name) = &target {
        gate(store, subject, Action::Purge, &Object::Session(name))?;
    }
    for &id in &reach.memories {
        let entry = views.memory_table.read().state.get(id).cloned();
        if let Some(entry) = entry {
            gate(store, subject, Action::Purge, &Object::Memory(&entry))?;
        }
    }
    for &seq in &reach.subjects {
        match reader.subject_key(seq) {
            Ok(_) => {}
            Err(KeyStoreError::NoSlot { .. }) => {
                return Err(PurgeError::WrittenBeforeSealing { seq }.into());
            }
            Err(e) => return Err(PurgeError::Keys(e).into()),
        }
    }
    let sessions = match &target {
        PurgeTarget::Session(name) => vec![name.clone()],
        PurgeTarget::Memory(_) => Vec::new(),
    };
    store
        .mark_purge_pending(true)
        .map_err(CommandError::Store)?;
    let event = Purged {
        by: subject.actor,
        reason,
        memories: reach.memories.clone(),
        sessions: sessions.clone(),
        subjects: reach.subjects.clone(),
    };
    let seq = store
        .append(&[Event::Purged(event)])
        .map_err(CommandError::Store)?
        .first_seq;
    destroy(reader, &reach.subjects).map_err(|e| CommandError::Purge(e.into()))?;
    store.rewrite_views().map_err(CommandError::Store)?;
    store
        .mark_purge_pending(false)
        .map_err(CommandError::Store)?;
    Ok(Purging {
        seq,
        memories: reach.memories,
        sessions,
        subjects: reach.subjects,
    })
}

/// Destroys the keys of `subjects`, at most one key store call's worth at
/// a time.
fn destroy(reader: &LogReader, subjects: &[u64]) -> std::result::Result<(), KeyStoreError> {
    for chunk in subjects.chunks(DESTROY_SLOTS_MAX) {
        reader.destroy_keys(chunk)?;
    }
    Ok(())
}

/// Events read a chunk at a time while finishing purges.
const FINISH_CHUNK_EVENTS: u64 = 4096;

/// Finishes the purges a crash interrupted (the store calls it at open
/// while its purge-pending mark is set, before anything reads the log):
/// every `Purged` in the log whose subjects still have a live key, or a
/// slot torn by the crash, has them destroyed. Returns the seqs of the
/// purges finished; the caller then rewrites its views. One scan of the
/// log; an event whose key slot a torn destroy left damaged is skipped
/// (it is no `Purged`, which holds no sealed words).
pub fn finish_pending(reader: &LogReader) -> std::result::Result<Vec<u64>, PurgeError> {
    if !reader.is_sealed() {
        return Ok(Vec::new());
    }
    let mut purges = Vec::new();
    let last = reader.last_seq();
    let mut first = 1;
    while first <= last {
        let to = last.min(first + FINISH_CHUNK_EVENTS - 1);
        let events = match reader.read(first..=to) {
            Ok(events) => events,
            Err(_) => {
                let mut events = Vec::new();
                for seq in first..=to {
                    match reader.read(seq..=seq) {
                        Ok(mut one) => events.append(&mut one),
                        Err(engram_log::ReadError::Keys { .. }) => {}
                        Err(e) => return Err(e.into()),
                    }
                }
                events
            }
        };
        purges.extend(events.into_iter().filter_map(|logged| match logged.event {
            Event::Purged(purged) => Some((logged.seq, purged)),
            _ => None,
        }));
        first = to + 1;
    }
    let mut finished = Vec::new();
    for (seq, purged) in purges {
        let mut live = Vec::new();
        for &seq in &purged.subjects {
            match reader.subject_key(seq) {
                Ok(engram_log::SubjectKey::Live(_)) => live.push(seq),
                Ok(engram_log::SubjectKey::Destroyed) => {}
                // A slot torn by a crash while it was being destroyed:
                // destroying it again finishes it.
                Err(KeyStoreError::SlotDamaged { .. }) => live.push(seq),
                Err(e) => return Err(e.into()),
            }
        }
        if !live.is_empty() {
            destroy(reader, &live)?;
            finished.push(seq);
        }
    }
    Ok(finished)
}

//! The JSON shapes of engram's answers, one builder each, shared by the
//! CLI's `--json`, the HTTP API and the MCP tools so the three never drift.

use std::time::Duration;

use engram_log::{LoggedEvent, MemoryId, Role, Tier};
use engram_projections::AuditRecord;
use engram_queries::palace::RoomEntry;
use serde_json::{Value, json};

use crate::engine::Stats;
use crate::flywheel::{DueItem, EntityEntry, OpenContradiction};
use crate::memory::{Confirmation, Expansion, Forgetting, Receipt};
use crate::{Hit, engine};

use super::id::qualified;

/// Formats a unix-millisecond time as RFC 3339 UTC.
#[must_use]
pub fn format_ts(ts_ms: u64) -> String {
    let time = std::time::UNIX_EPOCH + Duration::from_millis(ts_ms);
    humantime::format_rfc3339_millis(time).to_string()
}

/// A permille figure as a fraction (`750` -> `0.75`).
fn fraction(permille: impl Into<f64>) -> f64 {
    permille.into() / 1000.0
}

#[must_use]
pub fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
        Role::System => "system",
        Role::Note => "note",
    }
}

#[must_use]
pub fn tier_name(tier: Tier) -> &'static str {
    match tier {
        Tier::L1 => "l1",
        Tier::L2 => "l2",
        Tier::L3 => "l3",
        Tier::L4 => "l4",
    }
}

/// What `remember` answers: `scope` names the store it went to.
#[must_use]
pub fn receipt(scope: &str, receipt: &Receipt) -> Value {
    let reference = receipt.reference.as_ref();
    json!({
        "id": receipt.id.map(|id| qualified(scope, id)),
        "coordinate": receipt.coordinate,
        "outcome": receipt.outcome.as_str(),
        "related": receipt.related.map(|id| qualified(scope, id)),
        "reason": receipt.reason,
        "uniqueness": fraction(receipt.uniqueness_permille),
        "scope": scope,
        "session": reference.map(|r| r.session.clone()),
        "first_seq": reference.map(|r| r.first_seq),
        "last_seq": reference.map(|r| r.last_seq),
    })
}

/// One recall hit; `scope` names the store it came from.
#[must_use]
pub fn hit(scope: &str, hit: &Hit) -> Value {
    json!({
        "id": qualified(scope, hit.id),
        "coordinate": hit.coordinate,
        "score": (hit.score * 1e4).round() / 1e4,
        "text": hit.text,
        "restated": hit.restated,
        "trust": hit.trust,
        "status": hit.status,
        "reference_only": hit.reference_only,
        "scope": scope,
        "tier": tier_name(hit.tier),
        "room": hit.room,
        "tags": hit.tags,
        "summary": hit.summary,
        "cues": hit.cues.iter().map(|c| json!({
            "id": qualified(scope, c.id),
            "coordinate": c.coordinate,
            "label": c.label,
        })).collect::<Vec<_>>(),
    })
}

/// An expansion of a memory of `scope`'s store.
#[must_use]
pub fn expansion(scope: &str, expansion: &Expansion) -> Value {
    let events: Vec<Value> = expansion
        .turns
        .iter()
        .map(|t| {
            json!({
                "seq": t.seq,
                "ts": format_ts(t.ts_ms),
                "session": t.session,
                "turn": t.turn,
                "role": role_name(t.role),
                "content": t.content,
            })
        })
        .collect();
    json!({
        "id": qualified(scope, expansion.id),
        "events": events,
        "verified": expansion.verified,
        "status": format!("{:?}", expansion.status).to_lowercase(),
    })
}

#[must_use]
pub fn forgetting(scope: &str, forgetting: &Forgetting) -> Value {
    json!({"id": qualified(scope, forgetting.id), "seq": forgetting.seq, "already": forgetting.already})
}

/// What a purge did, in store `scope`: its event's seq, the memories
/// erased (qualified ids), the sessions purged whole and the subjects
/// whose keys were destroyed.
#[must_use]
pub fn purging(scope: &str, purging: &engram_commands::purge::Purging) -> Value {
    json!({
        "store": scope,
        "seq": purging.seq,
        "memories": purging.memories.iter().map(|&id| qualified(scope, id)).collect::<Vec<_>>(),
        "sessions": purging.sessions,
        "subjects": purging.subjects,
    })
}

#[must_use]
pub fn confirmation(scope: &str, confirmation: &Confirmation) -> Value {
    json!({
        "id": qualified(scope, confirmation.id),
        "seq": confirmation.seq,
        "valid": confirmation.valid,
        "trust": confirmation.trust,
    })
}

/// Due items of every store, earliest first (ties in store order), each
/// named by its store's id.
#[must_use]
pub fn due(stores: &[(&str, Vec<DueItem>)]) -> Value {
    let mut items: Vec<(&str, &DueItem)> = stores
        .iter()
        .flat_map(|(scope, due)| due.iter().map(move |d| (*scope, d)))
        .collect();
    items.sort_by_key(|(_, d)| d.due_ms);
    let due: Vec<Value> = items
        .into_iter()
        .map(|(scope, d)| {
            json!({
                "id": qualified(scope, d.id),
                "coordinate": d.coordinate,
                "due": format_ts(d.due_ms),
                "cues": d.cues.iter().map(|c| json!({"coordinate": c.coordinate, "label": c.label})).collect::<Vec<_>>(),
                "topic": d.topic,
                "tags": d.tags,
                "entities": d.entities.iter().map(|e| json!({"category": e.category, "key": e.key})).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "due": due })
}

#[must_use]
pub fn schedule(
    scope: &str,
    id: MemoryId,
    grade: u8,
    s: &engram_projections::models::review::Schedule,
) -> Value {
    json!({
        "id": qualified(scope, id),
        "grade": grade,
        "due": format_ts(s.due_ms),
        "interval_days": s.interval_days,
        "repetitions": s.repetitions,
        "easiness": fraction(s.ef_permille),
    })
}

fn contradiction(scope: &str, c: &OpenContradiction) -> Value {
    json!({"a": qualified(scope, c.a), "b": qualified(scope, c.b), "reason": c.reason, "a_label": c.a_label, "b_label": c.b_label})
}

/// A store's open and shelved contradictions.
pub type Contradictions = (Vec<OpenContradiction>, Vec<OpenContradiction>);

/// Open and shelved contradictions of every store, in store order.
#[must_use]
pub fn contradictions(stores: &[(&str, Contradictions)]) -> Value {
    let all = |pick: fn(&Contradictions) -> &[OpenContradiction]| {
        stores
            .iter()
            .flat_map(|(scope, lists)| pick(lists).iter().map(|c| contradiction(scope, c)))
            .collect::<Vec<_>>()
    };
    json!({
        "open": all(|(open, _)| open),
        "shelved": all(|(_, shelved)| shelved),
    })
}

#[must_use]
pub fn archived(scope: &str, done: &crate::flywheel::Maintained, dry_run: bool) -> Value {
    json!({
        "dry_run": dry_run,
        "archived": done.archived.iter().map(|(id, reason)| json!({"id": qualified(scope, *id), "reason": reason})).collect::<Vec<_>>(),
        "rescored": done.rescored.iter().map(|r| json!({
            "id": qualified(scope, r.memory),
            "from": fraction(r.from_permille),
            "uniqueness": fraction(r.to_permille),
        })).collect::<Vec<_>>(),
    })
}

/// Distillation candidates: each cluster's members as (id, coordinate, label).
#[must_use]
pub fn clusters(scope: &str, clusters: &[Vec<(MemoryId, String, String)>]) -> Value {
    json!({"clusters": clusters.iter().map(|members| json!({
        "members": members.iter().map(|(id, at, label)| json!({"id": qualified(scope, *id), "coordinate": at, "label": label})).collect::<Vec<_>>(),
    })).collect::<Vec<_>>()})
}

#[must_use]
pub fn distillation(scope: &str, d: &crate::flywheel::Distillation) -> Value {
    json!({
        "id": qualified(scope, d.id),
        "coordinate": d.coordinate,
        "members": d.members.iter().map(|id| qualified(scope, *id)).collect::<Vec<_>>(),
        "confidence": fraction(d.confidence_permille),
    })
}

/// A distillation's dry run: what it would record.
#[must_use]
pub fn distill_plan(scope: &str, plan: &crate::flywheel::DistillPlan) -> Value {
    json!({
        "members": plan.members.iter().map(|id| qualified(scope, *id)).collect::<Vec<_>>(),
        "confidence": fraction(plan.confidence_permille),
        "room": plan.room,
        "rule": plan.rule,
        "dry_run": true,
    })
}

#[must_use]
pub fn entities(stores: &[(&str, Vec<EntityEntry>)]) -> Value {
    // One entry per entity across the stores, each memory named by its
    // store's id; ordered by category and name.
    let mut merged: std::collections::BTreeMap<(&str, &str), Vec<Value>> =
        std::collections::BTreeMap::new();
    for (scope, list) in stores {
        for e in list {
            merged
                .entry((e.category.as_str(), e.key.as_str()))
                .or_default()
                .extend(e.memories.iter().map(|(id, at, label)| {
                    json!({"id": qualified(scope, *id), "coordinate": at, "label": label})
                }));
        }
    }
    json!({"entities": merged.into_iter().map(|((category, name), memories)| json!({
        "category": category,
        "name": name,
        "memories": memories,
    })).collect::<Vec<_>>()})
}

#[must_use]
/// One corridor of the palace: its rooms, the corridors inside it, the
/// one it is inside.
pub fn corridor(entry: &engram_queries::palace::CorridorEntry) -> Value {
    json!({
        "corridor": entry.corridor,
        "inside": entry.inside,
        "corridors": entry.corridors,
        "rooms": entry.rooms,
        "placed_by": entry.placed_by,
    })
}

pub fn room(scope: &str, entry: &RoomEntry) -> Value {
    json!({
        "room": entry.room,
        "corridor": entry.corridor,
        "fill": entry.fill,
        "capacity": entry.capacity,
        "topic": entry.topic,
        "tour": entry.tour.iter().map(|s| json!({
            "slot": s.slot,
            "id": qualified(scope, s.id),
            "coordinate": s.coordinate,
            "label": s.label,
            "status": s.status,
        })).collect::<Vec<_>>(),
    })
}

#[must_use]
pub fn renovation(scope: &str, list: &[engram_queries::palace::Renovation]) -> Value {
    json!({"memories": list.iter().map(|r| json!({
        "id": qualified(scope, r.id),
        "coordinate": r.coordinate,
        "uniqueness": fraction(r.uniqueness_permille),
        "label": r.label,
    })).collect::<Vec<_>>()})
}

/// `stats`, with the recall mode and model when an embedder is attached.
#[must_use]
pub fn stats(stats: &Stats, as_of: Option<u64>, mode: &str, model: Option<&str>) -> Value {
    json!({
        "as_of": as_of,
        "n_events": stats.n_events,
        "last_seq": stats.last_seq,
        "views": stats.views.iter().map(|v| json!({
            "name": v.name, "version": v.version, "applied": v.applied, "lag": v.lag, "failure": v.failure,
        })).collect::<Vec<_>>(),
        "memories_by_status": stats.by_status,
        "memories_by_tier": stats.by_tier,
        "due_reviews_today": stats.health.due_reviews,
        "open_contradictions": stats.health.open_contradictions,
        "health": {
            "score": stats.health.score,
            "uniqueness": fraction(stats.health.uniqueness),
            "consistency": fraction(stats.health.consistency),
            "review_success": fraction(stats.health.review_success),
            "trust": fraction(stats.health.trust),
        },
        "mode": mode,
        "model": model,
    })
}

/// One line of a memory's audit history.
#[must_use]
pub fn audit_record(r: &AuditRecord) -> Value {
    json!({"seq": r.seq, "ts": format_ts(r.ts_ms), "ts_ms": r.ts_ms, "kind": r.kind, "subject": r.subject, "result": r.result})
}

/// An event as `engram log --json` prints it (and an export line, less its
/// hash): seq, ts, ts_ms, kind, then the event's own fields, and
/// `"erased": true` for an event whose words a purge erased.
///
/// # Errors
/// When the event's fields do not render as a JSON object whose names stay
/// clear of the line's own keys (never for the events this version writes).
pub fn logged_event(logged: &LoggedEvent) -> Result<Value, crate::transfer::LineError> {
    let mut line = crate::transfer::event_json(logged)?;
    // An erased event's fields are its skeleton (its words' key was
    // destroyed by a purge): `"erased": true` says so.
    if logged.erased {
        line.insert("erased".to_owned(), Value::Bool(true));
    }
    Ok(Value::Object(line))
}

/// The verify report.
#[must_use]
pub fn verify_report(report: &engram_log::VerifyReport) -> Value {
    let torn = report.torn_tail.as_ref().map(
        |t| json!({"segment": t.segment, "offset": t.offset, "bytes": t.bytes, "reason": t.reason}),
    );
    let problem = report.problem.as_ref().map(
        |p| json!({"seq": p.seq, "segment": p.segment, "offset": p.offset, "reason": p.reason}),
    );
    json!({
        "ok": report.is_ok(),
        "last_seq": report.last_seq,
        "n_events": report.n_events,
        "n_frames": report.n_frames,
        "n_segments": report.n_segments,
        "bytes": report.bytes,
        "torn_tail": torn,
        "problem": problem,
    })
}

/// The comparison of `views.redb` with a replay of the log
/// (`verify --views`).
#[must_use]
pub fn views_report(report: &engram_projections::check::ViewsReport) -> Value {
    use engram_projections::check::ViewsFile;
    let (file, problem) = match &report.file {
        ViewsFile::Absent => ("absent", None),
        ViewsFile::Read { copied: false } => ("read", None),
        ViewsFile::Read { copied: true } => ("copied", None),
        ViewsFile::Unreadable { reason } => ("unreadable", Some(reason)),
    };
    json!({
        "ok": report.is_ok(),
        "file": file,
        "file_problem": problem,
        "n_differences": report.n_differences,
        "differences": report.differences.iter().map(|d| json!({
            "view": d.view,
            "key": d.key,
            "kind": d.kind.as_str(),
        })).collect::<Vec<_>>(),
        "checked": report.views.iter().map(|v| json!({
            "view": v.name,
            "applied": v.applied,
            "entries": v.entries,
            "rebuilt_on_open": v.rebuilt_on_open,
        })).collect::<Vec<_>>(),
    })
}

/// A memory's table entry, for a detail page.
#[must_use]
pub fn memory(
    scope: &str,
    engram: &engine::Engram,
    entry: &engram_projections::models::memory_table::MemoryEntry,
) -> Value {
    let core = engram.core();
    json!({
        "id": qualified(scope, entry.id),
        "scope": scope,
        "coordinate": engram.coordinate(entry.id),
        "status": format!("{:?}", entry.status).to_lowercase(),
        "tier": tier_name(entry.tier),
        "room": entry.room,
        "tags": entry.tags,
        "summary": entry.summary,
        "label": engram_queries::label(core, entry.id),
        "trust": core.trust.read().state.trust(entry.id),
        "source": entry.source,
        "session": entry.reference.session,
        "first_seq": entry.reference.first_seq,
        "last_seq": entry.reference.last_seq,
        "created": format_ts(entry.created_ts_ms),
        "reinforcements": entry.reinforcements,
        "expires": entry.expires_at_ms.map(format_ts),
    })
}

/// One memory of a list; `scope` names its store.
#[must_use]
pub fn listed(scope: &str, m: &engram_queries::list::Listed) -> Value {
    json!({
        "id": qualified(scope, m.id),
        "scope": scope,
        "status": m.status.as_str(),
        "tier": tier_name(m.tier),
        "coordinate": m.coordinate,
        "room": m.room,
        "tags": m.tags,
        "summary": m.summary,
        "label": m.label,
        "text": m.text,
        "verified": m.verified,
        "source": m.source,
        "trust": m.trust,
        "created": format_ts(m.created_ts_ms),
    })
}

/// What `ingest` answers; `extracted` are the memories extracted from the
/// turns, when asked for.
#[must_use]
pub fn ingested(ingested: &super::Ingested, extracted: &[Value]) -> Value {
    json!({
        "session": ingested.session,
        "first_seq": ingested.first_seq,
        "last_seq": ingested.last_seq,
        "turns": ingested.turns,
        "new_turns": ingested.recorded.len(),
        "held_turns": ingested.held,
        "redacted": ingested.redacted,
        "extracted": extracted,
        "skipped": ingested.skipped.iter().map(|p| match p {
            engram_commands::ingest::IngestError::Line { line, reason } =>
                json!({"line": line, "reason": reason}),
            other => json!({"line": null, "reason": other.to_string()}),
        }).collect::<Vec<_>>(),
    })
}

/// The L0 block of the stores `parts` (the store taking writes first):
/// rooms, the user profile and the most trusted facts, merged across the
/// stores (most trusted first, then store order, then id) and bounded as
/// one store's are, with the block itself (`engram_queries::l0`).
#[must_use]
pub fn l0(parts: &[(&str, engram_queries::l0::L0)]) -> Value {
    use engram_queries::l0::{
        L0_FACTS_MAX, L0_PROFILE_MAX, L0_ROOMS_MAX, L0Entry, NamedRoom, l0_block,
    };
    let several = parts.len() > 1;
    let mut rooms: Vec<(&str, &engram_queries::l0::L0Room)> = parts
        .iter()
        .flat_map(|(scope, l0)| l0.rooms.iter().map(move |r| (*scope, r)))
        .collect();
    let mut rooms_left_out: usize = parts.iter().map(|(_, l0)| l0.rooms_left_out).sum();
    rooms_left_out += rooms.len().saturating_sub(L0_ROOMS_MAX);
    rooms.truncate(L0_ROOMS_MAX);
    let merged = |pick: fn(&engram_queries::l0::L0) -> &Vec<L0Entry>, max: usize| {
        let mut all: Vec<(usize, &str, &L0Entry)> = parts
            .iter()
            .enumerate()
            .flat_map(|(rank, (scope, l0))| pick(l0).iter().map(move |e| (rank, *scope, e)))
            .collect();
        all.sort_by(|a, b| {
            b.2.trust_permille
                .cmp(&a.2.trust_permille)
                .then(a.0.cmp(&b.0))
                .then(a.2.id.cmp(&b.2.id))
        });
        all.truncate(max);
        all.into_iter()
            .map(|(_, scope, e)| (qualified(scope, e.id), scope, e))
            .collect::<Vec<_>>()
    };
    let profile = merged(|l0| &l0.profile, L0_PROFILE_MAX);
    let facts = merged(|l0| &l0.facts, L0_FACTS_MAX);
    let named = |list: &[(String, &str, &L0Entry)]| -> Vec<Value> {
        list.iter()
            .map(|(id, scope, e)| {
                json!({
                    "id": id,
                    "coordinate": e.coordinate,
                    "scope": scope,
                    "tier": tier_name(e.tier),
                    "trust": fraction(e.trust_permille),
                    "text": e.text,
                })
            })
            .collect()
    };
    let block = {
        let rooms: Vec<NamedRoom<'_>> = rooms
            .iter()
            .map(|(scope, room)| NamedRoom {
                store: several.then_some(*scope),
                room,
            })
            .collect();
        l0_block(
            &rooms,
            rooms_left_out,
            &block_entries(&profile, several),
            &block_entries(&facts, several),
        )
    };
    json!({
        "rooms": rooms.iter().map(|(scope, r)| json!({
            "room": r.room,
            "corridor": r.corridor,
            "fill": r.fill,
            "scope": scope,
        })).collect::<Vec<_>>(),
        "rooms_left_out": rooms_left_out,
        "profile": named(&profile),
        "facts": named(&facts),
        "block": block,
    })
}

/// The L0 block's entries for `list` (id, store, entry), each naming its
/// store when the block spans `several`.
fn block_entries<'a>(
    list: &'a [(String, &'a str, &'a engram_queries::l0::L0Entry)],
    several: bool,
) -> Vec<engram_queries::l0::Named<'a>> {
    list.iter()
        .map(|(id, scope, entry)| engram_queries::l0::Named {
            id,
            store: several.then_some(*scope),
            entry,
        })
        .collect()
}

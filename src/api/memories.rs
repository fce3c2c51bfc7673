//! Listing memories across the stores a service holds, a page at a time,
//! and updating one (a supersession).
//!
//! A list spans the stores recall spans (the project store and the user
//! store beside it), each memory named by its store (`p:2`, `u:2`). The
//! order is newest first by creation time, then by store (the primary
//! first), then by id, newest first: stable, so a page's `next` cursor
//! (the last memory of the page, `<created ms>:<id>`) starts the next page
//! where this one ended, and memories saved meanwhile appear only at the
//! head of the list.

use engram_log::MemoryId;
use engram_queries::list::{ListQuery, Listed, list};
use serde_json::{Value, json};

use super::{
    ApiError, EngineError, ErrorCode, IdArg, ListRequest, Service, TierName, UpdateRequest, now_ms,
    parse_time, qualified, store_words, subject,
};
use crate::Update;

/// A page's bound: the last memory shown (created time, store rank, id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cursor {
    ts_ms: u64,
    rank: usize,
    id: MemoryId,
}

impl Service {
    /// The scope names of the stores a list spans, primary first (its
    /// rank in the list's order).
    fn ranked_scopes(&self) -> Vec<&'static str> {
        std::iter::once(self.scope())
            .chain(self.others.iter().map(|o| o.scope))
            .collect()
    }

    fn parse_cursor(&self, text: &str) -> Result<Cursor, ApiError> {
        let bad = || {
            ApiError::bad_request(format!(
                "cursor {text:?} is not one a list handed out: pass the `next` of the page before as it was"
            ))
        };
        let (ts, id) = text.split_once(':').ok_or_else(bad)?;
        let ts_ms: u64 = ts.parse().map_err(|_| bad())?;
        let id: IdArg = id.parse().map_err(|_| bad())?;
        let scope = id.scope.ok_or_else(bad)?;
        let rank = self
            .ranked_scopes()
            .iter()
            .position(|s| *s == scope)
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::NoStore,
                    format!(
                        "cursor {text:?} names {}, which is not open here",
                        store_words(scope)
                    ),
                )
            })?;
        Ok(Cursor {
            ts_ms,
            rank,
            id: id.id,
        })
    }

    /// Memories newest first across every store held, filtered, one page:
    /// `{"memories": [...], "next": cursor or null}` (and `skipped`, the
    /// stores busy past the lock wait).
    ///
    /// # Errors
    /// A limit outside 1-500, a time or cursor that does not parse.
    pub fn list(&self, r: &ListRequest) -> Result<Value, ApiError> {
        let limit = r.limit()?;
        let now = now_ms();
        let since_ms = r
            .since
            .as_deref()
            .map(|text| parse_time(text, now))
            .transpose()?;
        let cursor = r
            .cursor
            .as_deref()
            .map(|text| self.parse_cursor(text))
            .transpose()?;
        let query_for = |rank: usize| ListQuery {
            room: r.room.clone(),
            tag: r.tag.clone(),
            tier: r.tier.map(TierName::tier),
            status: r.status.map(super::StatusName::status),
            since_ms,
            // One past the page, to know whether another follows.
            limit: limit + 1,
            // The order is (time, rank, id): a store ranked before the
            // cursor's continues below its time, the cursor's own below
            // its id, one ranked after it at its time too.
            before: cursor.map(|c| match rank.cmp(&c.rank) {
                std::cmp::Ordering::Less => (c.ts_ms, 0),
                std::cmp::Ordering::Equal => (c.ts_ms, c.id),
                std::cmp::Ordering::Greater => (c.ts_ms, MemoryId::MAX),
            }),
        };
        let (stores, skipped) =
            self.across(|rank, engram| (rank, list(engram.core(), &query_for(rank))))?;
        let mut found: Vec<(usize, &'static str, Listed)> = stores
            .into_iter()
            .flat_map(|(scope, (rank, listed))| listed.into_iter().map(move |m| (rank, scope, m)))
            .collect();
        found.sort_by(|a, b| {
            b.2.created_ts_ms
                .cmp(&a.2.created_ts_ms)
                .then(a.0.cmp(&b.0))
                .then(b.2.id.cmp(&a.2.id))
        });
        let more = found.len() > limit;
        found.truncate(limit);
        let next = found
            .last()
            .filter(|_| more)
            .map(|(_, scope, m)| format!("{}:{}", m.created_ts_ms, qualified(scope, m.id)));
        let answer = json!({
            "memories": found.iter().map(|(_, scope, m)| super::json::listed(scope, m)).collect::<Vec<_>>(),
            "next": next,
        });
        Ok(super::with_skipped(answer, skipped))
    }

    /// New words for memory `id`, recorded as a supersession in one atomic
    /// append (a new memory and the verdict retiring the old one). The
    /// answer is the new memory's receipt with `supersedes` (the old id)
    /// and `verdict_seq`.
    ///
    /// # Errors
    /// An unknown, ambiguous, forgotten or already superseded memory, bad
    /// input, new words too poor to keep (`discarded`), or a gate's denial
    /// (a model superseding what the user said): nothing but the denial's
    /// `GateDenied` is written.
    pub fn update(&self, id: IdArg, r: &UpdateRequest) -> Result<Value, ApiError> {
        let target = self.resolve(id)?;
        let scope = self.target_scope(target);
        let named = IdArg {
            scope: Some(scope),
            id: id.id,
        };
        let update = Update {
            memory: id.id,
            text: r.content.clone(),
            session: r.session.clone(),
            summary: r.summary.clone(),
            tags: r.tags.clone(),
            room: r.room.clone(),
            reason: r.reason.clone().unwrap_or_default(),
            subject: subject(r.by, r.session.as_ref()),
        };
        let (_, updated) = self.with_memory(named, |engram, _| {
            engram.update(&update).map_err(|e| match e {
                EngineError::Forgotten { seq, .. } => ApiError::new(
                    ErrorCode::Forgotten,
                    format!(
                        "memory {named} was forgotten at seq {seq}: a forgotten memory cannot be updated (remember the new words instead); nothing was changed"
                    ),
                ),
                e => ApiError::from(e),
            })
        })?;
        let mut answer = super::json::receipt(scope, &updated.receipt);
        if let Some(fields) = answer.as_object_mut() {
            fields.insert(
                "supersedes".to_owned(),
                json!(qualified(scope, updated.old)),
            );
            fields.insert("verdict_seq".to_owned(), json!(updated.verdict_seq));
        }
        Ok(answer)
    }
}

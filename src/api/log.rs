//! `Service::log`: the log's events, filtered, walked back from its end.

use serde_json::{Value, json};

use super::*;

/// Events read per step when [`Service::log`] walks the log back from its
/// end: a latest-events page reads about this much past what it shows.
const LOG_WALK_CHUNK: u64 = 256;

/// Whether a walk over the log goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Walk {
    On,
    Stop,
}

impl Service {
    /// Events of the log, filtered; with a limit, the last matches.
    ///
    /// # Errors
    /// Bad bounds or times, a log that cannot be read.
    pub fn log(&self, q: &LogQuery) -> Result<Value, ApiError> {
        match q.memory {
            None => Self::log_in(self.scope(), self.engram(), q, None),
            Some(id) => {
                let target = self.resolve(id)?;
                let scope = self.target_scope(target);
                self.on(target, |engram| Self::log_in(scope, engram, q, Some(id.id)))
            }
        }
    }

    /// [`Service::log`] over the log of `scope`'s store, `memory` the id there.
    fn log_in(
        scope: &str,
        engram: &Engram,
        q: &LogQuery,
        memory: Option<MemoryId>,
    ) -> Result<Value, ApiError> {
        let last = engram.log().last_seq();
        let now = now_ms();
        let since = q.since.as_deref().map(|t| parse_time(t, now)).transpose()?;
        let until = q.until.as_deref().map(|t| parse_time(t, now)).transpose()?;
        let limit = q.limit.unwrap_or(200);
        if !(1..=10_000).contains(&limit) {
            return Err(ApiError::bad_request(format!(
                "limit {limit} is outside 1-10000"
            )));
        }
        let from = q.from.unwrap_or(1).max(1);
        let to = q.to.unwrap_or(last).min(last);
        // The audit index names the seqs of one memory or one session; a
        // kind or time filter alone walks the range.
        let indexed: Option<Vec<u64>> = match (memory, &q.session) {
            (Some(memory), session) => {
                let mut seqs = engram.views().memory_seqs(memory)?;
                if let Some(session) = session {
                    let of_session = engram.views().session_seqs(session)?;
                    seqs.retain(|s| of_session.binary_search(s).is_ok());
                }
                Some(seqs)
            }
            (None, Some(session)) => Some(engram.views().session_seqs(session)?),
            (None, None) => None,
        };
        // Newest first, so the walk stops at the limit, and at `since`:
        // commit times never go back along the seqs.
        let mut newest_first = Vec::new();
        let mut keep = |logged: &engram_log::LoggedEvent| -> Result<Walk, ApiError> {
            if since.is_some_and(|s| logged.ts_ms < s) {
                return Ok(Walk::Stop);
            }
            let kind_ok = q.kind.as_deref().is_none_or(|k| k == logged.event.kind());
            let time_ok = until.is_none_or(|u| logged.ts_ms <= u);
            if kind_ok && time_ok {
                newest_first.push(
                    json::logged_event(logged)
                        .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?,
                );
            }
            Ok(if newest_first.len() == limit {
                Walk::Stop
            } else {
                Walk::On
            })
        };
        let read = |range: std::ops::RangeInclusive<u64>| {
            engram
                .log()
                .read(range)
                .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))
        };
        if from <= to {
            match indexed {
                Some(seqs) => {
                    'seqs: for &seq in seqs.iter().rev().filter(|s| (from..=to).contains(*s)) {
                        for logged in read(seq..=seq)? {
                            if keep(&logged)? == Walk::Stop {
                                break 'seqs;
                            }
                        }
                    }
                }
                None => {
                    let mut high = to;
                    'chunks: loop {
                        let low = high.saturating_sub(LOG_WALK_CHUNK - 1).max(from);
                        for logged in read(low..=high)?.iter().rev() {
                            if keep(logged)? == Walk::Stop {
                                break 'chunks;
                            }
                        }
                        if low == from {
                            break;
                        }
                        high = low - 1;
                    }
                }
            }
        }
        newest_first.reverse();
        Ok(json!({"events": newest_first, "last_seq": last, "scope": scope}))
    }
}

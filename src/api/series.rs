//! `Service::series`: charts over time, folded from the primary store's log
//! by `engram_queries::series`.

use engram_queries::series::{Buckets, Point, SeriesFold};
use serde_json::{Value, json};

use super::json::format_ts;
use super::{ApiError, ErrorCode, SeriesRequest, Service};

impl Service {
    /// The store's series: `{"scope", "bucket_ms", "last_seq", "points"}`,
    /// one point per bucket from the first event's to the last's (none for
    /// an empty log). Reads asked before are settled first, so their
    /// `recalled` events count.
    ///
    /// # Errors
    /// A bucket size that makes too many buckets, a log that cannot be read.
    pub fn series(&self, r: &SeriesRequest) -> Result<Value, ApiError> {
        let engram = self.engram();
        // A failure here only leaves the queued reads out.
        let _ = engram.settle();
        let log = engram.log();
        let last_seq = log.last_seq();
        let read_error =
            |e: engram_log::ReadError| ApiError::new(ErrorCode::Internal, e.to_string());
        let ts_of = |seq: u64| -> Result<u64, ApiError> {
            Ok(log
                .read(seq..=seq)
                .map_err(read_error)?
                .first()
                .map_or(0, |e| e.ts_ms))
        };
        if last_seq == 0 {
            return Ok(answer(self.scope(), None, last_seq, &[]));
        }
        let (first_ms, last_ms) = (ts_of(1)?, ts_of(last_seq)?);
        let buckets = match r.bucket {
            None => Buckets::auto(first_ms, last_ms),
            Some(bucket) => Buckets::of_size(first_ms, last_ms, bucket.millis())
                .map_err(|e| ApiError::bad_request(e.to_string()))?,
        };
        let mut fold = SeriesFold::new(buckets);
        for logged in log.replay(1) {
            let logged = logged.map_err(read_error)?;
            if logged.seq > last_seq {
                break;
            }
            fold.apply(&logged);
        }
        Ok(answer(
            self.scope(),
            Some(buckets.size_ms),
            last_seq,
            &fold.finish(),
        ))
    }
}

fn answer(scope: &str, bucket_ms: Option<u64>, last_seq: u64, points: &[Point]) -> Value {
    json!({
        "scope": scope,
        "bucket_ms": bucket_ms,
        "last_seq": last_seq,
        "points": points.iter().map(|p| json!({
            "start": format_ts(p.start_ms),
            "start_ms": p.start_ms,
            "live": p.live,
            "recalls": p.recalls,
            "recalls_with_hits": p.recalls_with_hits,
            "hit_rate": p.hit_rate().map(|r| (r * 1e4).round() / 1e4),
            "health": p.health,
        })).collect::<Vec<_>>(),
    })
}

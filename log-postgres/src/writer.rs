//! The group-commit writer: one thread with its own connection turns the
//! batches this process appends into append transactions, one frame each.
//!
//! Callers encode their batch on their own thread and send it over a
//! bounded channel; the writer drains whatever is queued (up to
//! `FRAME_PAYLOAD_BYTES_TARGET`), and commits the clock-stamped batches as
//! one frame in one transaction. A batch appended at a given seq and time
//! (`PgLog::append_at`, for import) gets a transaction of its own.
//!
//! The append transaction, in four round trips (five when step 3 reads
//! the row again), each statement prepared once per connection (again
//! when the writer reconnects):
//!
//! 1. `BEGIN`.
//! 2. One query reads `engram_head` `FOR UPDATE` and, by its key, the
//!    events row the head names: the one-row lock serializes appends from
//!    every process, so seqs stay contiguous and commits happen in seq
//!    order.
//! 3. Checks: the head is not behind a seq this process has seen (a
//!    rewound table), the row the head names is there with the head's
//!    hash (a truncated table); a stamped batch lands exactly at the next
//!    seq and not before the last commit time. When the row read with the
//!    head is missing or does not match, it is read again in a statement
//!    of its own (`rows::check_head_row`), which decides and names the
//!    error: after waiting for the lock, step 2 sees the head another
//!    process just committed but not that process's rows (a statement
//!    reads the rows as they were when it began), so only a statement
//!    begun after the lock was taken tells a truncated table from a
//!    concurrent commit.
//! 4. Frames the events exactly as `format::write_frame` does, with the
//!    commit time `max(clock, head's last time)` and the head's hash as
//!    the chain link, and parses the frame back (the check before the
//!    write).
//! 5. One statement inserts one row per event, moves the head, and
//!    `pg_notify`s the log's channel (queued, delivered at commit).
//! 6. `COMMIT`.
//!
//! **Invariant:** a caller is acknowledged only after COMMIT returned, which
//! with `synchronous_commit` at least `local` means the WAL record is
//! flushed (the writer's session raises `off` to `on`). Anything that fails
//! before COMMIT rolls back whole: nothing of the frame is written. A
//! connection lost during COMMIT is reported as `CommitUnknown`, never as
//! success or as a clean failure.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam_channel::{Receiver, Sender};
use std::collections::BTreeMap;

use engram_log::format::{
    FRAME_HEADER_LEN, FRAME_VERSION_PLAIN, FRAME_VERSION_SEALED, parse_frame, write_frame_version,
};
use engram_log::limits::FRAME_PAYLOAD_BYTES_TARGET;
use engram_log::sealed::{DATA_KEY_BYTES, NONCE_BYTES};
use engram_log::{AppendError, Appended, Clock, HmacKey};
use engram_log::{DataKey, MasterKey, seal_payload};
use parking_lot::Mutex;
use postgres::{Client, Statement};

use crate::connect::Connector;
use crate::error::{PgLogError, breaks_connection, classify, full_text};
use crate::keys::wrap_row;
use crate::rows::{HEAD_ROW_QUERY, check_head_row_with, ends_head_frame, head_from_rows, to_i64};
use crate::schema::damaged_or;

/// Where a stamped batch must land, and when: at the commit time it
/// carries (`append_at`), or the clock's (`append_expecting`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stamp {
    pub(crate) first_seq: u64,
    pub(crate) ts_ms: Option<u64>,
}

/// One caller's batch.
pub(crate) struct Request {
    /// Length-prefixed encoded events.
    pub(crate) payload: Vec<u8>,
    pub(crate) n_events: u32,
    pub(crate) stamp: Option<Stamp>,
    pub(crate) ack: Sender<Result<Appended, PgLogError>>,
}

/// How a sealed log's writer seals: the team's master key wraps each
/// seq's data key into its row; a key drawn ahead for a seq
/// (`PgLog::record_bytes`, a memory's content hash computed before its
/// batch is appended) is the one that seq's event is sealed under.
#[derive(Clone)]
pub(crate) struct Sealing {
    pub(crate) master: MasterKey,
    pub(crate) drawn: Arc<Mutex<BTreeMap<u64, DataKey>>>,
}

/// The writer thread's state.
pub(crate) struct Writer {
    pub(crate) connector: Connector,
    pub(crate) session: Option<Session>,
    pub(crate) key: HmacKey,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) channel: String,
    /// The highest seq this process has seen in the shared log.
    pub(crate) seen: Arc<AtomicU64>,
    pub(crate) rx: Receiver<Request>,
    /// `Some` for a sealed log.
    pub(crate) sealing: Option<Sealing>,
}

/// The writer's connection and the transaction's statements, prepared on
/// it once.
pub(crate) struct Session {
    client: Client,
    /// Step 2: [`LOCK_HEAD`].
    lock_head: Statement,
    /// Step 3 when the row read with the head does not match:
    /// [`HEAD_ROW_QUERY`].
    head_row: Statement,
    /// Step 5: [`APPEND_FRAME`].
    append_frame: Statement,
    /// Step 5 of a sealed log: [`APPEND_SEALED_FRAME`].
    append_sealed_frame: Statement,
}

/// The SQL of step 2: the head, locked, and the `frame_last_seq,
/// frame_hash` of the row it names (NULL when there is none, as at seq 0).
/// The row is looked up by seq through a lateral subquery that `OFFSET 0`
/// keeps from being flattened into a join: a statement prepared once is
/// planned once, often on a fresh log whose tables were never analyzed,
/// and a join planned there scans the whole events table on every append.
const LOCK_HEAD: &str = "SELECT h.last_seq, h.last_hash, h.last_ts_ms, \
     e.frame_last_seq, e.frame_hash \
     FROM engram_head h LEFT JOIN LATERAL ( \
     SELECT frame_last_seq, frame_hash FROM engram_events \
     WHERE seq = h.last_seq OFFSET 0 \
     ) e ON true \
     FOR UPDATE OF h";

/// The SQL of step 5, in one statement: one row per event from arrays,
/// the head moved to the frame's end, and the notification (its payload
/// the new last seq), queued until COMMIT.
const APPEND_FRAME: &str = "WITH inserted AS ( \
     INSERT INTO engram_events \
     (seq, ts_ms, event, frame_first_seq, frame_last_seq, format_version, \
      frame_prev_hash, frame_hash, frame_mac) \
     SELECT $1::bigint + t.o - 1, $2, t.e, $1, $3, $4, $5, $6, $7 \
     FROM unnest($8::bytea[]) WITH ORDINALITY AS t(e, o) \
     ), moved AS ( \
     UPDATE engram_head SET last_seq = $3, last_hash = $6, last_ts_ms = $2 \
     ) \
     SELECT pg_notify($9, $10)";

/// [`APPEND_FRAME`] for a sealed log: the rows' data keys, wrapped, are
/// inserted by the same statement, so a committed frame always has its
/// keys and a rolled-back one has none.
const APPEND_SEALED_FRAME: &str = "WITH inserted AS ( \
     INSERT INTO engram_events \
     (seq, ts_ms, event, frame_first_seq, frame_last_seq, format_version, \
      frame_prev_hash, frame_hash, frame_mac) \
     SELECT $1::bigint + t.o - 1, $2, t.e, $1, $3, $4, $5, $6, $7 \
     FROM unnest($8::bytea[]) WITH ORDINALITY AS t(e, o) \
     ), keyed AS ( \
     INSERT INTO engram_keys (seq, wrapped) \
     SELECT $1::bigint + k.o - 1, k.w \
     FROM unnest($11::bytea[]) WITH ORDINALITY AS k(w, o) \
     ), moved AS ( \
     UPDATE engram_head SET last_seq = $3, last_hash = $6, last_ts_ms = $2 \
     ) \
     SELECT pg_notify($9, $10)";

impl Writer {
    pub(crate) fn run(mut self) {
        while let Ok(request) = self.rx.recv() {
            let mut group_bytes = request.payload.len();
            let mut group = vec![request];
            while group_bytes < FRAME_PAYLOAD_BYTES_TARGET {
                match self.rx.try_recv() {
                    Ok(request) => {
                        group_bytes += request.payload.len();
                        group.push(request);
                    }
                    Err(_) => break,
                }
            }
            self.commit(group);
        }
        if let Some(session) = self.session.take() {
            // Closing politely; a failure here changes nothing.
            let _ = session.client.close();
        }
    }

    /// Commits the clock-stamped batches of `group` as one frame, and each
    /// stamped batch as a frame of its own, in the order they came.
    fn commit(&mut self, group: Vec<Request>) {
        let mut clock_batches = Vec::new();
        for request in group {
            if request.stamp.is_some() {
                self.commit_frame(std::mem::take(&mut clock_batches));
                self.commit_frame(vec![request]);
            } else {
                clock_batches.push(request);
            }
        }
        self.commit_frame(clock_batches);
    }

    fn commit_frame(&mut self, batches: Vec<Request>) {
        let Some(stamp) = batches.first().map(|first| first.stamp) else {
            return;
        };
        let n_events: u32 = batches.iter().map(|b| b.n_events).sum();
        let mut payload = Vec::with_capacity(batches.iter().map(|b| b.payload.len()).sum());
        for batch in &batches {
            payload.extend_from_slice(&batch.payload);
        }
        match self.transact(&payload, n_events, stamp) {
            Ok(first_seq) => {
                let mut next = first_seq;
                for batch in batches {
                    let last = next + u64::from(batch.n_events) - 1;
                    let _ = batch.ack.send(Ok(Appended {
                        first_seq: next,
                        last_seq: last,
                    }));
                    next = last + 1;
                }
            }
            Err(error) => {
                for batch in batches {
                    let _ = batch.ack.send(Err(error.clone()));
                }
            }
        }
    }

    /// The writer's session, connected and prepared (again) when there is
    /// none.
    fn session(&mut self) -> Result<&mut Session, PgLogError> {
        let session = match self.session.take() {
            Some(session) if !session.client.is_closed() => session,
            _ => {
                let target = self.connector.target();
                let mut client = self.connector.connect()?;
                prepare_session(&mut client, target)?;
                let op = "preparing the writer's statements";
                let mut prepare = |query: &str| {
                    client
                        .prepare(query)
                        .map_err(|e| damaged_or(target, op, &e))
                };
                let lock_head = prepare(LOCK_HEAD)?;
                let head_row = prepare(HEAD_ROW_QUERY)?;
                let append_frame = prepare(APPEND_FRAME)?;
                let append_sealed_frame = prepare(APPEND_SEALED_FRAME)?;
                Session {
                    client,
                    lock_head,
                    head_row,
                    append_frame,
                    append_sealed_frame,
                }
            }
        };
        Ok(self.session.insert(session))
    }

    /// Runs one append transaction; returns the frame's first seq.
    fn transact(
        &mut self,
        payload: &[u8],
        n_events: u32,
        stamp: Option<Stamp>,
    ) -> Result<u64, PgLogError> {
        let target = self.connector.target().to_owned();
        let mut retried = false;
        loop {
            let result = self.transact_on_client(&target, payload, n_events, stamp);
            let Err((error, broken)) = result else {
                return result.map_err(|(error, _)| error);
            };
            if broken || stale_statement(&error) {
                // The session is gone or unusable, or holds a statement
                // the server no longer runs as prepared: reconnect (and
                // prepare again) next time.
                self.session = None;
            }
            // A connection lost before COMMIT was sent leaves nothing
            // behind (the server rolls the transaction back), so one retry
            // on a new connection is safe: it heals a session the server
            // ended while idle. Never after COMMIT was sent. A statement
            // refused as stale rolled the transaction back too: prepared
            // again, it runs, or fails telling what changed.
            if (matches!(error, PgLogError::ConnectionLost { .. }) || stale_statement(&error))
                && !retried
            {
                retried = true;
                continue;
            }
            return Err(error);
        }
    }

    /// The transaction itself. An error comes with whether it broke the
    /// connection.
    fn transact_on_client(
        &mut self,
        target: &str,
        payload: &[u8],
        n_events: u32,
        stamp: Option<Stamp>,
    ) -> Result<u64, (PgLogError, bool)> {
        let key = self.key.clone();
        let clock_ms = self.clock.unix_ms();
        let seen = self.seen.load(Ordering::SeqCst);
        let channel = self.channel.clone();
        let sealing = self.sealing.clone();
        let Session {
            client,
            lock_head,
            head_row,
            append_frame,
            append_sealed_frame,
        } = self.session().map_err(|e| (e, true))?;
        let op = "appending to the shared log";
        let pg = |e: postgres::Error| {
            let broken = breaks_connection(&e);
            (classify(target, op, &e), broken)
        };
        let kept = |e: PgLogError| {
            let broken = matches!(e, PgLogError::ConnectionLost { .. });
            (e, broken)
        };
        let mut txn = client.transaction().map_err(pg)?;
        let rows = txn
            .query(&*lock_head, &[])
            .map_err(|e| kept(damaged_or(target, "reading the shared log's head", &e)))?;
        let (head, row) = head_from_rows(&rows, target).map_err(kept)?;
        if head.last_seq < seen {
            return Err(kept(PgLogError::Rewound {
                shared_last_seq: head.last_seq,
                seen_last_seq: seen,
            }));
        }
        let row_matches = head.last_seq != 0 && {
            let op = "reading the shared log's last row";
            let frame_last: Option<i64> = row
                .try_get(3)
                .map_err(|e| kept(damaged_or(target, op, &e)))?;
            let frame_hash: Option<&[u8]> = row
                .try_get(4)
                .map_err(|e| kept(damaged_or(target, op, &e)))?;
            ends_head_frame(&head, frame_last, frame_hash)
        };
        if !row_matches {
            check_head_row_with(&mut txn, &*head_row, target, &head).map_err(kept)?;
        }
        let first_seq = head.last_seq + 1;
        let ts_ms = match stamp {
            None => clock_ms.max(head.last_ts_ms),
            Some(stamp) => {
                if stamp.first_seq != first_seq {
                    return Err(kept(PgLogError::Batch(AppendError::SeqMismatch {
                        first_seq: stamp.first_seq,
                        expected: first_seq,
                    })));
                }
                match stamp.ts_ms {
                    Some(ts_ms) if ts_ms < head.last_ts_ms => {
                        return Err(kept(PgLogError::Batch(AppendError::TimeBackwards {
                            ts_ms,
                            last_ts_ms: head.last_ts_ms,
                        })));
                    }
                    Some(ts_ms) => ts_ms,
                    None => clock_ms.max(head.last_ts_ms),
                }
            }
        };
        let last_seq = first_seq + u64::from(n_events) - 1;
        // A sealed log's words are sealed now that the seqs are known,
        // exactly as a local sealed log's writer seals them.
        let sealed = match &sealing {
            None => None,
            Some(sealing) => Some(seal(sealing, payload, first_seq, last_seq).map_err(kept)?),
        };
        let (payload, version) = match &sealed {
            None => (payload, FRAME_VERSION_PLAIN),
            Some((payload, _)) => (payload.as_slice(), FRAME_VERSION_SEALED),
        };
        let mut frame = Vec::with_capacity(payload.len() + 2 * FRAME_HEADER_LEN);
        let hash = write_frame_version(
            &mut frame,
            version,
            &key,
            first_seq,
            n_events,
            ts_ms,
            &head.last_hash,
            payload,
        );
        // The check before the write: the frame parses back to what the
        // rows will hold, and its events are the payload's.
        let parsed = parse_frame(&frame).map_err(|problem| {
            kept(PgLogError::Corrupted {
                seq: first_seq,
                reason: format!("the frame just built does not parse: {problem}"),
            })
        })?;
        assert_eq!(parsed.hash, hash, "a frame parses back to its own hash");
        assert_eq!(
            parsed.header.last_seq(),
            last_seq,
            "a frame holds its batch"
        );
        let events: Vec<&[u8]> = parsed.events().map(Option::unwrap_or_default).collect();
        assert_eq!(events.len(), n_events as usize, "a frame holds its batch");
        let version = i16::try_from(parsed.header.version).unwrap_or(i16::MAX);
        let (first, ts, last, prev, notified) = (
            to_i64(first_seq),
            to_i64(ts_ms),
            to_i64(last_seq),
            &head.last_hash[..],
            last_seq.to_string(),
        );
        let (hash_bytes, mac) = (&hash[..], &parsed.mac[..]);
        let mut params: Vec<&(dyn postgres::types::ToSql + Sync)> = vec![
            &first,
            &ts,
            &last,
            &version,
            &prev,
            &hash_bytes,
            &mac,
            &events,
            &channel,
            &notified,
        ];
        // A sealed frame's statement also inserts its keys' rows.
        let statement = match &sealed {
            None => &*append_frame,
            Some((_, wrapped)) => {
                params.push(wrapped);
                &*append_sealed_frame
            }
        };
        txn.execute(statement, &params).map_err(pg)?;
        txn.commit().map_err(|e| {
            if breaks_connection(&e) {
                (
                    PgLogError::CommitUnknown {
                        first_seq,
                        last_seq,
                        reason: full_text(&e),
                    },
                    true,
                )
            } else {
                // The server answered COMMIT with an error: rolled back.
                (classify(target, op, &e), false)
            }
        })?;
        self.seen.fetch_max(last_seq, Ordering::SeqCst);
        if let Some(sealing) = &sealing {
            // The seqs are taken: keys drawn for them are spent.
            sealing.drawn.lock().retain(|&seq, _| seq > last_seq);
        }
        Ok(first_seq)
    }
}

/// Seals `payload` (unsealed records) as seqs `first_seq..=last_seq`: each
/// seq's data key is the one drawn ahead for it, or a fresh one; returns
/// the sealed payload and every seq's key wrapped for its row. Drawn keys
/// stay until the commit, so a retried transaction seals the same bytes.
fn seal(
    sealing: &Sealing,
    payload: &[u8],
    first_seq: u64,
    last_seq: u64,
) -> Result<(Vec<u8>, Vec<Vec<u8>>), PgLogError> {
    // Every fresh key and every wrapping nonce of the frame from one draw
    // of the system's random source (as a local key store's reserve does).
    let n_seqs = usize::try_from(last_seq - first_seq + 1).unwrap_or(0);
    let mut random = vec![0u8; n_seqs * (DATA_KEY_BYTES + NONCE_BYTES)];
    getrandom::fill(&mut random).map_err(|e| PgLogError::Keys(e.to_string()))?;
    let drawn_ahead = sealing.drawn.lock();
    let mut keys = Vec::with_capacity(n_seqs);
    let mut nonces = Vec::with_capacity(n_seqs);
    for (seq, draw) in (first_seq..=last_seq).zip(random.chunks_exact(DATA_KEY_BYTES + NONCE_BYTES))
    {
        let (key, nonce) = draw.split_at(DATA_KEY_BYTES);
        let fresh = <[u8; DATA_KEY_BYTES]>::try_from(key).map(DataKey::from_bytes);
        let nonce = <[u8; NONCE_BYTES]>::try_from(nonce);
        let (Ok(fresh), Ok(nonce)) = (fresh, nonce) else {
            return Err(PgLogError::Keys("a short draw of random bytes".to_owned()));
        };
        keys.push(drawn_ahead.get(&seq).cloned().unwrap_or(fresh));
        nonces.push(nonce);
    }
    drop(drawn_ahead);
    let key_of = |seq: u64| {
        usize::try_from(seq - first_seq)
            .ok()
            .and_then(|at| keys.get(at))
            .cloned()
            .ok_or_else(|| format!("no data key drawn for seq {seq}"))
    };
    let sealed = seal_payload(payload, first_seq, key_of).map_err(|reason| {
        PgLogError::Batch(AppendError::Encode {
            index: 0,
            reason: format!("the batch could not be sealed: {reason}"),
        })
    })?;
    let wrapped = (first_seq..)
        .zip(keys.iter().zip(nonces))
        .map(|(seq, (key, nonce))| wrap_row(&sealing.master, seq, key, nonce))
        .collect::<Result<_, _>>()
        .map_err(|e| PgLogError::Keys(e.to_string()))?;
    Ok((sealed, wrapped))
}

/// Whether `error` is the server refusing to run a prepared statement as
/// prepared: SQLSTATE 0A000 (feature_not_supported), "cached plan must not
/// change result type", raised when a column the statement returns
/// changed type since it was prepared. The statement failed, so the
/// transaction rolled back.
fn stale_statement(error: &PgLogError) -> bool {
    matches!(error, PgLogError::Database { code, .. } if code == "0A000")
}

/// Session settings of a writer connection: acknowledged means flushed
/// (`synchronous_commit` raised from `off`), and a transaction left idle
/// by a stalled process is ended by the server, releasing the head lock.
fn prepare_session(client: &mut Client, target: &str) -> Result<(), PgLogError> {
    let op = "preparing the writer's session";
    let setting: String = client
        .query_one("SELECT current_setting('synchronous_commit')", &[])
        .and_then(|row| row.try_get(0))
        .map_err(|e| classify(target, op, &e))?;
    if setting == "off" {
        client
            .batch_execute("SET synchronous_commit TO on")
            .map_err(|e| classify(target, op, &e))?;
    }
    client
        .batch_execute("SET idle_in_transaction_session_timeout TO '60s'")
        .map_err(|e| classify(target, op, &e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// The head query is prepared once per connection, so planned once,
    /// often on a fresh log: its plan there must find the row the head
    /// names through the events table's key, not by scanning the table.
    #[test]
    fn the_head_query_finds_the_row_by_key_on_a_fresh_log() {
        let Ok(url) = std::env::var("ENGRAM_TEST_POSTGRES_URL") else {
            assert!(
                std::env::var("ENGRAM_TEST_REQUIRE_POSTGRES").as_deref() != Ok("1"),
                "ENGRAM_TEST_REQUIRE_POSTGRES=1 but ENGRAM_TEST_POSTGRES_URL is not set"
            );
            eprintln!("skipped: set ENGRAM_TEST_POSTGRES_URL to run it");
            return;
        };
        let mut client = Client::connect(&url, postgres::NoTls).unwrap();
        let schema = format!("t_writer_plan_{}", std::process::id());
        client
            .batch_execute(&format!(
                "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}; \
                 SET search_path TO {schema}"
            ))
            .unwrap();
        let key = HmacKey::from_bytes([1; 32]);
        crate::schema::ensure(&mut client, "test", &key, None, 0, Duration::from_secs(10)).unwrap();
        let plan: Vec<String> = client
            .query(&format!("EXPLAIN {LOCK_HEAD}"), &[])
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect();
        client
            .batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
            .unwrap();
        let plan = plan.join("\n");
        assert!(
            plan.contains("Index Scan using engram_events_pkey"),
            "{plan}"
        );
        assert!(!plan.contains("Seq Scan on engram_events"), "{plan}");
    }
}

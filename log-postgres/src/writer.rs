//! The group-commit writer: one thread with its own connection turns the
//! batches this process appends into append transactions, one frame each.
//!
//! Callers encode their batch on their own thread and send it over a
//! bounded channel; the writer drains whatever is queued (up to
//! `FRAME_PAYLOAD_BYTES_TARGET`), and commits the clock-stamped batches as
//! one frame in one transaction. A batch appended at a given seq and time
//! (`PgLog::append_at`, for import) gets a transaction of its own.
//!
//! The append transaction:
//!
//! 1. `SELECT .. FROM engram_head FOR UPDATE`: the one-row lock that
//!    serializes appends from every process, so seqs stay contiguous and
//!    commits happen in seq order.
//! 2. Checks: the head is not behind a seq this process has seen (a
//!    rewound table), the row the head names is there with the head's
//!    hash (a truncated table); a stamped batch lands exactly at the next
//!    seq and not before the last commit time.
//! 3. Frames the events exactly as `format::write_frame` does, with the
//!    commit time `max(clock, head's last time)` and the head's hash as
//!    the chain link, and parses the frame back (the check before the
//!    write).
//! 4. Inserts one row per event, moves the head, `pg_notify`s the log's
//!    channel (delivered at commit), and commits.
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
use engram_log::format::{FRAME_HEADER_LEN, parse_frame, write_frame};
use engram_log::limits::FRAME_PAYLOAD_BYTES_TARGET;
use engram_log::{AppendError, Appended, Clock, HmacKey};
use postgres::Client;

use crate::connect::Connector;
use crate::error::{PgLogError, breaks_connection, classify, full_text};
use crate::rows::{check_head_row, read_head, to_i64};

/// Where and when a stamped batch must land.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stamp {
    pub(crate) first_seq: u64,
    pub(crate) ts_ms: u64,
}

/// One caller's batch.
pub(crate) struct Request {
    /// Length-prefixed encoded events.
    pub(crate) payload: Vec<u8>,
    pub(crate) n_events: u32,
    pub(crate) stamp: Option<Stamp>,
    pub(crate) ack: Sender<Result<Appended, PgLogError>>,
}

/// The writer thread's state.
pub(crate) struct Writer {
    pub(crate) connector: Connector,
    pub(crate) client: Option<Client>,
    pub(crate) key: HmacKey,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) channel: String,
    /// The highest seq this process has seen in the shared log.
    pub(crate) seen: Arc<AtomicU64>,
    pub(crate) rx: Receiver<Request>,
}

/// The SQL of step 4: one row per event from arrays, in one statement.
const INSERT_FRAME: &str = "INSERT INTO engram_events \
     (seq, ts_ms, event, frame_first_seq, frame_last_seq, format_version, \
      frame_prev_hash, frame_hash, frame_mac) \
     SELECT $1::bigint + t.o - 1, $2, t.e, $1, $3, $4, $5, $6, $7 \
     FROM unnest($8::bytea[]) WITH ORDINALITY AS t(e, o)";

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
        if let Some(client) = self.client.take() {
            // Closing politely; a failure here changes nothing.
            let _ = client.close();
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

    /// The writer's connection, made (again) when there is none.
    fn client(&mut self) -> Result<&mut Client, PgLogError> {
        let client = match self.client.take() {
            Some(client) if !client.is_closed() => client,
            _ => {
                let mut client = self.connector.connect()?;
                prepare_session(&mut client, self.connector.target())?;
                client
            }
        };
        Ok(self.client.insert(client))
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
            if broken {
                // The session is gone or unusable: reconnect next time.
                self.client = None;
            }
            // A connection lost before COMMIT was sent leaves nothing
            // behind (the server rolls the transaction back), so one retry
            // on a new connection is safe: it heals a session the server
            // ended while idle. Never after COMMIT was sent.
            if matches!(error, PgLogError::ConnectionLost { .. }) && !retried {
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
        let client = self.client().map_err(|e| (e, true))?;
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
        let head = read_head(&mut txn, target, true).map_err(kept)?;
        if head.last_seq < seen {
            return Err(kept(PgLogError::Rewound {
                shared_last_seq: head.last_seq,
                seen_last_seq: seen,
            }));
        }
        check_head_row(&mut txn, target, &head).map_err(kept)?;
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
                if stamp.ts_ms < head.last_ts_ms {
                    return Err(kept(PgLogError::Batch(AppendError::TimeBackwards {
                        ts_ms: stamp.ts_ms,
                        last_ts_ms: head.last_ts_ms,
                    })));
                }
                stamp.ts_ms
            }
        };
        let last_seq = first_seq + u64::from(n_events) - 1;
        let mut frame = Vec::with_capacity(payload.len() + 2 * FRAME_HEADER_LEN);
        let hash = write_frame(
            &mut frame,
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
        txn.execute(
            INSERT_FRAME,
            &[
                &to_i64(first_seq),
                &to_i64(ts_ms),
                &to_i64(last_seq),
                &version,
                &&head.last_hash[..],
                &&hash[..],
                &&parsed.mac[..],
                &events,
            ],
        )
        .map_err(pg)?;
        txn.execute(
            "UPDATE engram_head SET last_seq = $1, last_hash = $2, last_ts_ms = $3",
            &[&to_i64(last_seq), &&hash[..], &to_i64(ts_ms)],
        )
        .map_err(pg)?;
        txn.execute(
            "SELECT pg_notify($1, $2)",
            &[&channel, &last_seq.to_string()],
        )
        .map_err(pg)?;
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
        Ok(first_seq)
    }
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

//! Following the shared log: a [`Tailer`] owns a dedicated connection that
//! `LISTEN`s on the log's channel, waits for commits, and reads the new
//! frames in seq order.
//!
//! Every append transaction `pg_notify`s the channel; PostgreSQL delivers
//! the notification only after the commit, in commit order. The tailer
//! listens before it first reads the head, so a commit after that read
//! always leaves a notification queued; it also re-reads the head every
//! `poll_interval` whatever it hears, so a notification lost (a dropped
//! connection, a full queue) only delays a wake-up, never loses a seq.
//!
//! **Invariant:** a tailer never skips a seq. Frames come from one
//! `SELECT` each, in one snapshot, and snapshots hold seqs `1..=head`
//! with no hole: appends commit in seq order under the head row's lock.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use engram_log::{Clock, HmacKey};
use postgres::Client;
use postgres::fallible_iterator::FallibleIterator as _;

use crate::connect::Connector;
use crate::error::{PgLogError, classify};
use crate::keys::PgKeys;
use crate::rows::{PgFrame, read_head};

/// A follower of the shared log on its own connection.
pub struct Tailer {
    pub(crate) connector: Connector,
    pub(crate) client: Option<Client>,
    pub(crate) key: HmacKey,
    pub(crate) channel: String,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) poll_interval: Duration,
    pub(crate) seen: Arc<AtomicU64>,
    /// The team's key store, for a sealed log: frames' words are opened
    /// with it.
    pub(crate) keys: Option<Arc<PgKeys>>,
}

impl std::fmt::Debug for Tailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tailer")
            .field("target", &self.connector.target())
            .field("channel", &self.channel)
            .finish_non_exhaustive()
    }
}

impl Tailer {
    /// The tailer's connection, made (and `LISTEN`ing) when there is none.
    fn client(&mut self) -> Result<&mut Client, PgLogError> {
        let client = match self.client.take() {
            Some(client) if !client.is_closed() => client,
            _ => {
                let mut client = self.connector.connect()?;
                let listen = format!("LISTEN {}", quote_ident(&self.channel));
                client
                    .batch_execute(&listen)
                    .map_err(|e| classify(self.connector.target(), "listening for commits", &e))?;
                client
            }
        };
        Ok(self.client.insert(client))
    }

    /// Drops the connection when an error says it is gone.
    fn forget_on<T>(&mut self, result: Result<T, PgLogError>) -> Result<T, PgLogError> {
        if let Err(PgLogError::ConnectionLost { .. }) = &result {
            self.client = None;
        }
        result
    }

    /// The shared log's last seq.
    pub fn last_seq(&mut self) -> Result<u64, PgLogError> {
        let target = self.connector.target().to_owned();
        let head = self.client().and_then(|client| read_head(client, &target));
        let head = self.forget_on(head)?;
        self.seen.fetch_max(head.last_seq, Ordering::SeqCst);
        Ok(head.last_seq)
    }

    /// Waits until the shared log holds a seq after `after_seq`, or until
    /// `timeout` passed; returns its last seq either way (above
    /// `after_seq` when more arrived). `Rewound` when it ends before
    /// `after_seq`: the table was truncated or restored under a reader
    /// that had seen more.
    pub fn wait_for_more(&mut self, after_seq: u64, timeout: Duration) -> Result<u64, PgLogError> {
        let deadline = self.clock.monotonic().saturating_add(timeout);
        let mut reconnected = false;
        loop {
            let last_seq = match self.last_seq() {
                Ok(last_seq) => last_seq,
                // One reconnect per wait heals a connection that dropped
                // between waits; a second failure is the caller's to see.
                Err(PgLogError::ConnectionLost { .. }) if !reconnected => {
                    reconnected = true;
                    continue;
                }
                Err(other) => return Err(other),
            };
            if last_seq < after_seq {
                return Err(PgLogError::Rewound {
                    shared_last_seq: last_seq,
                    seen_last_seq: after_seq,
                });
            }
            let now = self.clock.monotonic();
            if last_seq > after_seq || now >= deadline {
                return Ok(last_seq);
            }
            let wait = deadline.saturating_sub(now).min(self.poll_interval);
            let client = self.client()?;
            let drained = {
                let mut notifications = client.notifications();
                let heard = notifications.timeout_iter(wait).next();
                // Several commits may have queued several wake-ups: one
                // head read answers them all.
                heard.is_ok() && notifications.iter().count().is_ok()
            };
            if !drained || client.is_closed() {
                // The connection broke while waiting: reconnect (and
                // listen again) on the next round; the head read then
                // catches up on anything missed.
                self.client = None;
            }
        }
    }

    /// Verified frames holding the seqs after `after_seq`, at most
    /// `max_frames` (see [`crate::PgLog::frames_after`]).
    pub fn frames_after(
        &mut self,
        after_seq: u64,
        max_frames: usize,
    ) -> Result<Vec<PgFrame>, PgLogError> {
        let target = self.connector.target().to_owned();
        let key = self.key.clone();
        let keys = self.keys.clone();
        let mut read = || {
            let read = self.client().and_then(|client| {
                crate::read::frames_after(
                    client,
                    &target,
                    &key,
                    keys.as_deref().map(|k| k as &dyn engram_log::SubjectKeys),
                    after_seq,
                    max_frames,
                )
            });
            self.forget_on(read)
        };
        // Reads change nothing: a lost connection is retried once.
        let (head, frames) = match read() {
            Err(PgLogError::ConnectionLost { .. }) => read()?,
            other => other?,
        };
        self.seen.fetch_max(head.last_seq, Ordering::SeqCst);
        Ok(frames)
    }
}

/// `name` as a quoted SQL identifier.
pub(crate) fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

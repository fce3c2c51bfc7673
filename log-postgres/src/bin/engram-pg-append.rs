//! `engram-pg-append`: appends numbered session events to a shared log on
//! PostgreSQL (`--log URL`) or to a segment log folder (`--dir PATH`), from
//! several threads, and reports throughput and acknowledgement latency on
//! stderr. The load behind the shared log's process tests (several writer
//! processes at once; a writer killed mid-stream) and its append
//! measurement beside the segment log.
//!
//! ```text
//! engram-pg-append (--log URL | --dir PATH) --key HEX [--events N] [--batch B]
//!                  [--writers W] [--tag NAME] [--print-acks] [--durability sync|none]
//! ```
//!
//! Event `i` (0-based, `0..N`) is a session turn of session `NAME` with
//! turn number `i` and content `"NAME i"`; writer thread `w` appends the
//! events with `i % W == w`, `B` per append. With `--print-acks` every
//! acknowledged append prints `first_seq last_seq` on stdout, flushed at
//! once: a line printed is an append the log acknowledged. Exit status 0
//! when every append was acknowledged, 2 on the first error (printed).
//!
//! With `ENGRAM_MASTER_KEY` (64 hex digits) set, the shared log is
//! connected with that master key: a log this run creates is sealed, and
//! a sealed log is appended to (its cost measured beside a log in the
//! clear).

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use engram_log::{Appended, Durability, Event, HmacKey, Log, LogConfig, Role, SessionEvent};
use engram_log_postgres::{PgLog, PgLogConfig};
use parking_lot::Mutex;

/// Where the events go.
enum Target {
    Postgres(String),
    Segments(std::path::PathBuf),
}

struct Args {
    target: Target,
    key: HmacKey,
    events: u64,
    batch: u64,
    writers: u64,
    tag: String,
    print_acks: bool,
    durability: Durability,
}

/// The shared log's configuration: the master key of `ENGRAM_MASTER_KEY`
/// when set.
fn pg_config() -> Result<PgLogConfig, String> {
    match std::env::var("ENGRAM_MASTER_KEY") {
        Ok(hex) if !hex.trim().is_empty() => {
            let master = engram_log::MasterKey::from_hex(&hex, "ENGRAM_MASTER_KEY")
                .map_err(|e| e.to_string())?;
            Ok(PgLogConfig::default().master_key(master))
        }
        _ => Ok(PgLogConfig::default()),
    }
}

fn parse_args() -> Result<Args, String> {
    let mut target = None;
    let mut key = std::env::var("ENGRAM_HMAC_KEY").ok();
    let mut events = 10_000u64;
    let mut batch = 1u64;
    let mut writers = 1u64;
    let mut tag = "load".to_owned();
    let mut print_acks = false;
    let mut durability = Durability::Sync;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        let number = |text: String| {
            text.parse::<u64>()
                .map_err(|e| format!("{flag}: {text:?}: {e}"))
        };
        match flag.as_str() {
            "--log" => target = Some(Target::Postgres(value()?)),
            "--dir" => target = Some(Target::Segments(value()?.into())),
            "--key" => key = Some(value()?),
            "--events" => events = number(value()?)?,
            "--batch" => batch = number(value()?)?.max(1),
            "--writers" => writers = number(value()?)?.max(1),
            "--tag" => tag = value()?,
            "--print-acks" => print_acks = true,
            "--durability" => {
                durability = match value()?.as_str() {
                    "sync" => Durability::Sync,
                    "none" => Durability::None,
                    other => return Err(format!("--durability: {other:?} is not sync or none")),
                }
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let target = target.ok_or("give --log URL or --dir PATH")?;
    let key = key.ok_or("give --key HEX or set ENGRAM_HMAC_KEY")?;
    let key = HmacKey::from_hex(&key, "--key").map_err(|e| e.to_string())?;
    Ok(Args {
        target,
        key,
        events,
        batch,
        writers,
        tag,
        print_acks,
        durability,
    })
}

/// Either log, behind one append.
enum Sink {
    Postgres(Box<PgLog>),
    Segments(Box<Log>),
}

impl Sink {
    fn append(&self, events: &[Event]) -> Result<Appended, String> {
        match self {
            Sink::Postgres(log) => log.append(events).map_err(|e| e.to_string()),
            Sink::Segments(log) => log.append(events).map_err(|e| e.to_string()),
        }
    }
}

fn event(tag: &str, i: u64) -> Event {
    Event::Session(SessionEvent {
        session: tag.to_owned(),
        turn: u32::try_from(i).unwrap_or(u32::MAX),
        role: Role::User,
        content: format!("{tag} {i}"),
    })
}

fn run(args: Args) -> Result<(), String> {
    let (sink, backend) = match &args.target {
        Target::Postgres(url) => (
            Sink::Postgres(Box::new(
                PgLog::connect(url, args.key.clone(), pg_config()?).map_err(|e| e.to_string())?,
            )),
            "postgres",
        ),
        Target::Segments(dir) => (
            Sink::Segments(Box::new(
                Log::open_dir(
                    dir,
                    LogConfig::new(args.key.clone()).durability(args.durability),
                )
                .map_err(|e| e.to_string())?,
            )),
            "segments",
        ),
    };
    let sink = Arc::new(sink);
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let stdout = Arc::new(Mutex::new(std::io::stdout()));
    let started = Instant::now();
    let threads: Vec<_> = (0..args.writers)
        .map(|w| {
            let sink = Arc::clone(&sink);
            let latencies = Arc::clone(&latencies);
            let stdout = Arc::clone(&stdout);
            let tag = args.tag.clone();
            let (events, batch, writers, print_acks) =
                (args.events, args.batch, args.writers, args.print_acks);
            std::thread::spawn(move || -> Result<(), String> {
                let mine: Vec<u64> = (w..events).step_by(writers as usize).collect();
                let mut own = Vec::new();
                for chunk in mine.chunks(batch as usize) {
                    let batch: Vec<Event> = chunk.iter().map(|&i| event(&tag, i)).collect();
                    let asked = Instant::now();
                    let appended = sink.append(&batch)?;
                    own.push(asked.elapsed());
                    if print_acks {
                        let mut out = stdout.lock();
                        writeln!(out, "{} {}", appended.first_seq, appended.last_seq)
                            .and_then(|()| out.flush())
                            .map_err(|e| format!("printing an ack: {e}"))?;
                    }
                }
                latencies.lock().extend(own);
                Ok(())
            })
        })
        .collect();
    let mut failure = None;
    for thread in threads {
        match thread.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => failure = Some(e),
            Err(_) => failure = Some("a writer thread panicked".to_owned()),
        }
    }
    let elapsed = started.elapsed();
    if let Some(failure) = failure {
        return Err(failure);
    }
    let mut latencies = std::mem::take(&mut *latencies.lock());
    latencies.sort_unstable();
    let pick = |q: f64| -> Duration {
        let at = ((latencies.len() as f64 - 1.0) * q).round() as usize;
        latencies.get(at).copied().unwrap_or_default()
    };
    eprintln!(
        "{backend}: {} events in {} appends of {} from {} writers: {:.3} s, {:.0} events/s, ack p50 {:.2} ms, p99 {:.2} ms",
        args.events,
        latencies.len(),
        args.batch,
        args.writers,
        elapsed.as_secs_f64(),
        args.events as f64 / elapsed.as_secs_f64().max(1e-9),
        pick(0.5).as_secs_f64() * 1e3,
        pick(0.99).as_secs_f64() * 1e3,
    );
    Ok(())
}

fn main() -> ExitCode {
    match parse_args().and_then(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("engram-pg-append: {e}");
            ExitCode::from(2)
        }
    }
}

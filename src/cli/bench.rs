//! `engram bench`: append and replay figures for this machine and store.

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use engram::log::limits::{BATCH_EVENTS_MAX, SEGMENT_BYTES_DEFAULT};
use engram::log::{Event, Role, SessionEvent};
use serde_json::json;

use super::{Context, DurabilityArg, EXIT_CHECK_FAILED, progress_bar};

#[derive(Debug, clap::Subcommand)]
#[command(defer = true)]
pub enum BenchCommand {
    /// Append synthetic session events with W concurrent writers and report
    /// events/s, MB/s and acknowledgement latency.
    Append(AppendArgs),
    /// Replay and verify the whole log and report events/s and MB/s.
    Replay(ReplayArgs),
}

#[derive(Debug, clap::Args)]
pub struct AppendArgs {
    /// Events to append in all.
    #[arg(long, value_name = "N")]
    events: u64,
    /// Events per append call (one atomic batch).
    #[arg(long, value_name = "B", default_value_t = 1)]
    batch: usize,
    /// Concurrent writer threads.
    #[arg(long, value_name = "W", default_value_t = 1)]
    writers: usize,
    /// When an append is acknowledged.
    #[arg(long, value_enum, default_value_t = DurabilityArg::Sync)]
    durability: DurabilityArg,
    /// Sync interval for --durability interval, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 10)]
    interval_ms: u64,
    /// Segment size limit in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = SEGMENT_BYTES_DEFAULT)]
    segment_bytes: u64,
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
    /// Print each acknowledged seq range ("FIRST LAST") on stdout as soon as
    /// it is acknowledged; the report goes to stderr. For crash tests.
    #[arg(long, hide = true)]
    print_acks: bool,
}

#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, command: &BenchCommand) -> anyhow::Result<ExitCode> {
    ctx.refuse_shared_log("bench")?;
    match command {
        BenchCommand::Append(args) => append(ctx, args),
        BenchCommand::Replay(args) => replay(ctx, args),
    }
}

/// A deterministic synthetic turn of about 150 bytes.
fn synthetic_event(writer: usize, turn: u64) -> Event {
    Event::Session(SessionEvent {
        session: format!("bench-{writer}"),
        turn: u32::try_from(turn).unwrap_or(u32::MAX),
        role: if turn.is_multiple_of(2) {
            Role::User
        } else {
            Role::Assistant
        },
        content: format!(
            "Turn {turn} of writer {writer}: the user prefers concise answers, \
             uses Python for data analysis and wants weekly summaries."
        ),
    })
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted.get(rank).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn append(ctx: &Context, args: &AppendArgs) -> anyhow::Result<ExitCode> {
    let _exclusive = super::daemon::exclusive(ctx, "bench append")?;
    if args.events == 0 {
        bail!("--events must be at least 1");
    }
    if args.batch == 0 || args.batch > BATCH_EVENTS_MAX {
        bail!("--batch must be between 1 and {BATCH_EVENTS_MAX}");
    }
    if args.writers == 0 || args.writers > 4096 {
        bail!("--writers must be between 1 and 4096");
    }
    let mut options = ctx.options();
    options.durability = args
        .durability
        .to_durability(Duration::from_millis(args.interval_ms.max(1)));
    options.segment_bytes_max = args.segment_bytes;
    let log = ctx.store.open_log(&options)?;
    if let Some(warning) = log.recovery().warning() {
        eprintln!("engram: recovered: {warning}");
    }
    let bar = progress_bar(args.events, "append");
    let writers = args.writers as u64;
    let latencies = Mutex::new(Vec::<Duration>::new());
    let bytes = std::sync::atomic::AtomicU64::new(0);
    let stdout = Mutex::new(std::io::stdout());
    let start = Instant::now();
    let outcome: anyhow::Result<()> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..args.writers)
            .map(|writer| {
                let share =
                    args.events / writers + u64::from((writer as u64) < args.events % writers);
                let (log, bar, latencies, bytes, stdout) =
                    (&log, &bar, &latencies, &bytes, &stdout);
                scope.spawn(move || -> anyhow::Result<()> {
                    let mut mine =
                        Vec::with_capacity(usize::try_from(share).unwrap_or(0) / args.batch + 1);
                    let mut turn = 0u64;
                    while turn < share {
                        let n = (share - turn).min(args.batch as u64);
                        let events: Vec<Event> = (turn..turn + n)
                            .map(|t| synthetic_event(writer, t))
                            .collect();
                        let sent = Instant::now();
                        let batch = log.encode(&events)?;
                        let n_bytes = batch.n_bytes() as u64;
                        let appended = log.append_encoded(batch)?;
                        mine.push(sent.elapsed());
                        if args.print_acks {
                            let mut out = stdout
                                .lock()
                                .unwrap_or_else(std::sync::PoisonError::into_inner);
                            writeln!(out, "{} {}", appended.first_seq, appended.last_seq)?;
                            out.flush()?;
                        }
                        bytes.fetch_add(n_bytes, std::sync::atomic::Ordering::Relaxed);
                        bar.inc(n);
                        turn += n;
                    }
                    latencies
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .extend(mine);
                    Ok(())
                })
            })
            .collect();
        for handle in handles {
            match handle.join() {
                Ok(result) => result?,
                Err(_) => bail!("a writer thread panicked"),
            }
        }
        Ok(())
    });
    let elapsed = start.elapsed();
    bar.finish_and_clear();
    outcome?;
    let last_seq = log.last_seq();
    log.close().context("closing the log")?;
    let mut latencies = latencies
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    latencies.sort_unstable();
    let bytes = bytes.into_inner();
    let secs = elapsed.as_secs_f64().max(f64::EPSILON);
    let events_per_sec = args.events as f64 / secs;
    let mb_per_sec = bytes as f64 / secs / 1e6;
    let (p50, p99) = (percentile(&latencies, 0.50), percentile(&latencies, 0.99));
    let durability = format!("{:?}", args.durability).to_lowercase();
    let report = if args.json {
        json!({
            "events": args.events, "batch": args.batch, "writers": args.writers,
            "durability": durability, "seconds": secs,
            "events_per_sec": events_per_sec, "mb_per_sec": mb_per_sec, "bytes": bytes,
            "ack_p50_ms": ms(p50), "ack_p99_ms": ms(p99), "last_seq": last_seq,
        })
        .to_string()
    } else {
        format!(
            "appended {} events ({} bytes) in {secs:.3} s: {events_per_sec:.0} events/s, {mb_per_sec:.1} MB/s; \
             ack latency p50 {:.3} ms, p99 {:.3} ms (durability {durability}, batch {}, writers {}, last seq {last_seq})",
            args.events,
            bytes,
            ms(p50),
            ms(p99),
            args.batch,
            args.writers
        )
    };
    if args.print_acks {
        eprintln!("{report}");
    } else {
        println!("{report}");
    }
    Ok(ExitCode::SUCCESS)
}

fn replay(ctx: &Context, args: &ReplayArgs) -> anyhow::Result<ExitCode> {
    let opened = Instant::now();
    let Some(reader) = ctx.store.open_reader(&ctx.key)? else {
        bail!(
            "the store at {} has no log to replay",
            ctx.store.dir().display()
        );
    };
    let open_time = opened.elapsed();
    let last = reader.last_seq();
    let bytes = reader.n_bytes();
    let bar = progress_bar(last, "replay");
    let started = Instant::now();
    let mut n_events = 0u64;
    for event in reader.replay(1) {
        let event = event?;
        n_events += 1;
        if event.seq % 4096 == 0 {
            bar.set_position(event.seq);
        }
    }
    let replay_time = started.elapsed();
    bar.finish_and_clear();
    let started = Instant::now();
    let report = reader.verify()?;
    let verify_time = started.elapsed();
    let rate = |n: u64, d: Duration| n as f64 / d.as_secs_f64().max(f64::EPSILON);
    let mb = |d: Duration| bytes as f64 / d.as_secs_f64().max(f64::EPSILON) / 1e6;
    let total = open_time + replay_time + verify_time;
    if args.json {
        println!(
            "{}",
            json!({
                "events": n_events, "bytes": bytes, "ok": report.is_ok(),
                "open_seconds": open_time.as_secs_f64(),
                "replay_seconds": replay_time.as_secs_f64(),
                "verify_seconds": verify_time.as_secs_f64(),
                "replay_events_per_sec": rate(n_events, replay_time),
                "replay_mb_per_sec": mb(replay_time),
                "verify_events_per_sec": rate(report.n_events, verify_time),
                "verify_mb_per_sec": mb(verify_time),
                "replay_verify_events_per_sec": rate(n_events, total),
            })
        );
    } else {
        println!(
            "replayed {n_events} events ({bytes} bytes) in {:.3} s: {:.0} events/s, {:.1} MB/s (open {:.3} s)",
            replay_time.as_secs_f64(),
            rate(n_events, replay_time),
            mb(replay_time),
            open_time.as_secs_f64()
        );
        println!(
            "verified in {:.3} s: {:.0} events/s, {:.1} MB/s; open+replay+verify {:.0} events/s",
            verify_time.as_secs_f64(),
            rate(report.n_events, verify_time),
            mb(verify_time),
            rate(n_events, total)
        );
    }
    if let Some(problem) = &report.problem {
        eprintln!("engram: verify failed: {problem}");
        return Ok(ExitCode::from(EXIT_CHECK_FAILED));
    }
    Ok(ExitCode::SUCCESS)
}

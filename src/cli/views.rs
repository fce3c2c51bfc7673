//! `engram stats`, `engram audit` and `engram rebuild`: the read models.

use std::process::ExitCode;

use engram::api::{IdArg, json};
use engram::engine::{AsOf, Engram, Stats};
use engram_projections::{AuditRecord, OpenOptions};
use engram_text::display::neutralize_line as line;

use super::{Context, format_ts, progress_bar};

#[derive(Debug, clap::Args)]
pub struct StatsArgs {
    /// Views as of this seq, rebuilt in memory from the log (the store is untouched).
    #[arg(long, value_name = "SEQ")]
    as_of: Option<u64>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct AuditArgs {
    /// The memory's id as recall shows it (`p:2`, `u:2`; a bare number
    /// only where one store has that memory).
    #[arg(allow_negative_numbers = true)]
    memory: IdArg,
    /// The history as of this seq, rebuilt in memory from the log.
    #[arg(long, value_name = "SEQ")]
    as_of: Option<u64>,
    /// One JSON object per operation.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct RebuildArgs {}

fn warn_report(engram: &Engram) {
    for warning in engram.views().report().warnings() {
        eprintln!("engram: warning: {warning}");
    }
}

fn open(ctx: &Context, rebuild: bool) -> anyhow::Result<Engram> {
    ctx.require_log()?;
    let bar = progress_bar(0, if rebuild { "rebuild" } else { "catch up" });
    let engram = Engram::open_with(
        ctx.store.clone(),
        &ctx.options(),
        OpenOptions { rebuild },
        &|seq, upto| {
            bar.set_length(upto);
            bar.set_position(seq);
        },
    )?;
    bar.finish_and_clear();
    warn_report(&engram);
    Ok(engram)
}

fn print_stats(stats: &Stats, as_of: Option<u64>) {
    match as_of {
        Some(seq) => println!("as of seq {seq}"),
        None => println!("events: {} (last seq {})", stats.n_events, stats.last_seq),
    }
    let join = |m: &std::collections::BTreeMap<String, u64>| {
        if m.is_empty() {
            "none".to_owned()
        } else {
            m.iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    println!("memories by status: {}", join(&stats.by_status));
    println!("memories by tier: {}", join(&stats.by_tier));
    println!(
        "health {}/100; reviews due today {}; open contradictions {}",
        stats.health.score, stats.health.due_reviews, stats.health.open_contradictions
    );
    println!("views:");
    for v in &stats.views {
        let failure = v
            .failure
            .as_deref()
            .map(|f| format!("  FAILED: {f}"))
            .unwrap_or_default();
        println!(
            "  {:<14} v{}  applied {:>8}  lag {}{failure}",
            v.name, v.version, v.applied, v.lag
        );
    }
}

pub fn stats(ctx: &Context, args: &StatsArgs) -> anyhow::Result<ExitCode> {
    let (stats, model) = match args.as_of {
        Some(seq) => {
            ctx.catch_up_replica()?;
            (AsOf::open(&ctx.store, &ctx.key, seq)?.stats(), None)
        }
        None => {
            let engram = super::model::attach(open(ctx, false)?, super::model::load());
            let stats = engram.stats();
            let model = engram
                .embedder()
                .map(|e| (e.model_id().to_owned(), engram.recall_mode()));
            engram.close()?;
            (stats, model)
        }
    };
    let (model_id, mode) = match &model {
        Some((id, mode)) => (Some(id.clone()), mode.as_str()),
        None => (None, "keyword"),
    };
    if args.json {
        println!(
            "{}",
            json::stats(&stats, args.as_of, mode, model_id.as_deref())
        );
    } else {
        print_stats(&stats, args.as_of);
        println!(
            "recall: {mode}{}",
            model_id
                .map(|m| format!(" (model {m})"))
                .unwrap_or_default()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn print_history(history: &[AuditRecord], json: bool) {
    for r in history {
        if json {
            println!("{}", json::audit_record(r));
        } else {
            println!(
                "{:>8}  {}  {:<21} {}  -> {}",
                r.seq,
                format_ts(r.ts_ms),
                r.kind,
                line(&r.subject),
                line(&r.result)
            );
        }
    }
}

pub fn audit(ctx: &Context, args: &AuditArgs) -> anyhow::Result<ExitCode> {
    // The id names the store (a bare number the one store that has it).
    let service = ctx.memory_service()?;
    let history = service.with_memory(args.memory, |engram, id| match args.as_of {
        Some(_) => Ok(Vec::new()),
        None => engram.audit(id),
    });
    service.close()?;
    let (scope, history) = history?;
    let history = match args.as_of {
        Some(seq) => {
            ctx.catch_up_replica()?;
            let store = ctx
                .recall_stores
                .iter()
                .find(|(s, _)| *s == scope)
                .map_or(&ctx.store, |(_, store)| store);
            AsOf::open(store, &ctx.key, seq)?.audit(args.memory.id)?
        }
        None => history,
    };
    print_history(&history, args.json);
    Ok(ExitCode::SUCCESS)
}

pub fn rebuild(ctx: &Context, _args: &RebuildArgs) -> anyhow::Result<ExitCode> {
    let started = std::time::Instant::now();
    let engram = open(ctx, true)?;
    let n: u64 = engram
        .views()
        .report()
        .views
        .iter()
        .map(|v| v.n_applied)
        .max()
        .unwrap_or(0);
    let views: Vec<&str> = engram
        .views()
        .report()
        .views
        .iter()
        .map(|v| v.name)
        .collect();
    engram.close()?;
    let secs = started.elapsed().as_secs_f64();
    println!(
        "rebuilt {} views ({}) from {n} events in {secs:.3} s ({:.0} events/s)",
        views.len(),
        views.join(", "),
        n as f64 / secs.max(f64::EPSILON)
    );
    Ok(ExitCode::SUCCESS)
}

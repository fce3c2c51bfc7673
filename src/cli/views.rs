//! `engram stats`, `engram audit` and `engram rebuild`: the read models.

use std::process::ExitCode;

use engram::api::{IdArg, json};
use engram::engine::Engram;
use engram_projections::OpenOptions;
use serde_json::Value;

use super::door::Door;
use super::{Context, progress_bar};

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

/// Prints `stats` as [`json::stats`] shapes it.
fn print_stats(stats: &Value) {
    match stats["as_of"].as_u64() {
        Some(seq) => println!("as of seq {seq}"),
        None => println!(
            "events: {} (last seq {})",
            stats["n_events"], stats["last_seq"]
        ),
    }
    let join = |m: &Value| match m.as_object() {
        Some(m) if !m.is_empty() => m
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", "),
        _ => "none".to_owned(),
    };
    println!("memories by status: {}", join(&stats["memories_by_status"]));
    println!("memories by tier: {}", join(&stats["memories_by_tier"]));
    println!(
        "health {}/100; reviews due today {}; open contradictions {}",
        stats["health"]["score"], stats["due_reviews_today"], stats["open_contradictions"]
    );
    println!("views:");
    for v in stats["views"].as_array().into_iter().flatten() {
        let failure = v["failure"]
            .as_str()
            .map(|f| format!("  FAILED: {f}"))
            .unwrap_or_default();
        println!(
            "  {:<14} v{}  applied {:>8}  lag {}{failure}",
            v["name"].as_str().unwrap_or_default(),
            v["version"],
            v["applied"].to_string(),
            v["lag"]
        );
    }
}

pub fn stats(ctx: &Context, args: &StatsArgs) -> anyhow::Result<ExitCode> {
    let stats = match args.as_of {
        Some(seq) => {
            ctx.catch_up_replica()?;
            json::stats(
                &ctx.as_of(&ctx.store, seq)?.stats(),
                Some(seq),
                "keyword",
                None,
            )
        }
        None => {
            ctx.require_log()?;
            let door = Door::open(ctx, &[&ctx.store])?;
            let stats = door.get("/api/stats");
            door.finish()?;
            stats?
        }
    };
    if args.json {
        println!("{stats}");
    } else {
        print_stats(&stats);
        println!(
            "recall: {}{}",
            stats["mode"].as_str().unwrap_or("keyword"),
            stats["model"]
                .as_str()
                .map(|m| format!(" (model {m})"))
                .unwrap_or_default()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn print_history(history: &[Value], json: bool) {
    for r in history {
        if json {
            println!("{r}");
        } else {
            println!(
                "{:>8}  {}  {:<21} {}  -> {}",
                r["seq"].to_string(),
                r["ts"].as_str().unwrap_or_default(),
                r["kind"].as_str().unwrap_or_default(),
                engram_text::display::neutralize_line(r["subject"].as_str().unwrap_or_default()),
                engram_text::display::neutralize_line(r["result"].as_str().unwrap_or_default())
            );
        }
    }
}

pub fn audit(ctx: &Context, args: &AuditArgs) -> anyhow::Result<ExitCode> {
    // The id names the store (a bare number the one store that has it).
    let door = Door::open(ctx, &ctx.memory_stores()?)?;
    let answer = door.get(&engram::client::memory_target(args.memory, "audit", &[]));
    door.finish()?;
    let answer = answer?;
    let history = match args.as_of {
        Some(seq) => {
            ctx.catch_up_replica()?;
            let scope = match answer["id"].as_str().and_then(|id| id.split_once(':')) {
                Some(("u", _)) => "user",
                Some(("p", _)) => "project",
                _ => ctx.scope,
            };
            let store = ctx
                .recall_stores
                .iter()
                .find(|(s, _)| *s == scope)
                .map_or(&ctx.store, |(_, store)| store);
            ctx.as_of(store, seq)?
                .audit(args.memory.id)?
                .iter()
                .map(json::audit_record)
                .collect()
        }
        None => answer["history"].as_array().cloned().unwrap_or_default(),
    };
    print_history(&history, args.json);
    Ok(ExitCode::SUCCESS)
}

pub fn rebuild(ctx: &Context, _args: &RebuildArgs) -> anyhow::Result<ExitCode> {
    // Rebuilding replaces the views: no owner may hold them meanwhile.
    let _exclusive = super::daemon::exclusive(ctx, "rebuild")?;
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

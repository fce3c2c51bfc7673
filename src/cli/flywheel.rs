//! `engram review | grade | verdicts | verdict`: SM-2 review and verdicts
//! on contradictions.

use std::process::ExitCode;

use engram::api::{
    By, DistillRequest, GradeRequest, IdArg, MaintainRequest, VerdictName, VerdictRequest,
};
use engram::client::encode;
use engram::engine::now_ms;
use engram_commands::maintain::MaintainPolicy;

use super::door::Door;
use super::{Context, format_ts};
use engram::api::parse_time;

#[derive(Debug, clap::Args)]
pub struct ReviewArgs {
    /// When: RFC 3339 (`2026-12-01T09:00:00Z`) or an offset from now
    /// (`+2d`, `+12h`, `-1h`). Default: now.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    at: Option<String>,
    /// Print one JSON object: {"due": [{"id", "coordinate", "due", "cues",
    /// "topic", "tags", "entities"}]}.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct GradeArgs {
    /// Memory id as review shows it (`p:2`, `u:2`; a bare number only
    /// where one store has it).
    #[arg(allow_negative_numbers = true)]
    id: IdArg,
    /// How well it was recalled: 0 (blackout) to 5 (perfect).
    grade: u8,
    /// Who grades (a model's grade may not lower what the user said into
    /// the range maintenance archives).
    #[arg(long, value_enum, default_value = "user")]
    by: By,
    /// Print one JSON object: id, grade, due, interval_days, repetitions, easiness.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct VerdictsArgs {
    /// Print one JSON object: {"open": [...], "shelved": [...]}, each
    /// {"a", "b", "reason", "a_label", "b_label"}.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct VerdictArgs {
    /// One memory of the contradiction (`p:2`).
    #[arg(allow_negative_numbers = true)]
    a: IdArg,
    /// The other (of the same store).
    #[arg(allow_negative_numbers = true)]
    b: IdArg,
    /// keep-a or keep-b (the other leaves recall), keep-both, or shelve.
    #[arg(value_enum)]
    verdict: VerdictName,
    /// Who decides.
    #[arg(long, value_enum, default_value = "user")]
    by: By,
    /// Why.
    #[arg(long, value_name = "TEXT", default_value = "")]
    reason: String,
    /// Print one JSON object: a, b, verdict, seq.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct MaintainArgs {
    /// Run as if at TIME (RFC 3339, or an offset from now such as `+30d`
    /// or `-1h`). Default: now.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    at: Option<String>,
    /// Days without access before a low-importance memory decays.
    #[arg(long, value_name = "DAYS", default_value_t = MaintainPolicy::default().idle_days)]
    idle_days: u64,
    /// Importance (trust + 100 per reinforcement, permille) below which an
    /// idle memory decays.
    #[arg(long, value_name = "PERMILLE", default_value_t = MaintainPolicy::default().importance_below)]
    importance_below: u32,
    /// Most live memories in L3 before the least recently used are archived.
    #[arg(long, value_name = "N", default_value_t = MaintainPolicy::default().hot_set_capacity)]
    capacity: usize,
    /// Trust (permille) at which eviction keeps a memory.
    #[arg(long, value_name = "PERMILLE", default_value_t = MaintainPolicy::default().keep_trust_at_least)]
    keep_trust: u16,
    /// Days without access before a session memory (L1) that was never
    /// promoted (reinforced from another session, confirmed) decays.
    #[arg(long, value_name = "DAYS", default_value_t = MaintainPolicy::default().session_idle_days)]
    session_idle_days: u64,
    /// Only say what would be archived.
    #[arg(long)]
    dry_run: bool,
    /// Who runs it (a model cannot archive what the user said: nothing is
    /// archived then).
    #[arg(long, value_enum, default_value = "user")]
    by: By,
    /// Print one JSON object: {"archived": [{"id", "reason"}], "rescored":
    /// [{"id", "from", "uniqueness"}], "dry_run"}.
    #[arg(long)]
    json: bool,
}

pub fn review(ctx: &Context, args: &ReviewArgs) -> anyhow::Result<ExitCode> {
    let at = match &args.at {
        Some(text) => parse_time(text, now_ms()).map_err(|e| anyhow::anyhow!("--at {e}"))?,
        None => now_ms(),
    };
    // Every store this context reaches, the first with a log first.
    let door = Door::open(ctx, &ctx.memory_stores()?)?;
    let target = match &args.at {
        Some(text) => format!("/api/review?at={}", encode(text)),
        None => "/api/review".to_owned(),
    };
    let due = door.get(&target);
    door.finish()?;
    let due = due?;
    if args.json {
        println!("{due}");
    } else {
        let due = due["due"].as_array().cloned().unwrap_or_default();
        if due.is_empty() {
            println!("nothing due at {}", format_ts(at));
        }
        for d in &due {
            let list = |field: &str, item: &dyn Fn(&serde_json::Value) -> String| {
                let items: Vec<String> = d[field]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(item)
                    .collect();
                if items.is_empty() {
                    "-".to_owned()
                } else {
                    items.join(", ")
                }
            };
            let shown = |v: &serde_json::Value, field: &str| {
                engram_text::display::neutralize_line(v[field].as_str().unwrap_or_default())
                    .into_owned()
            };
            println!(
                "memory {} at {} (due {}); topic {}",
                text(d, "id"),
                text(d, "coordinate"),
                text(d, "due"),
                text(d, "topic"),
            );
            println!(
                "  tags: {}; entities: {}",
                list("tags", &|t| engram_text::display::neutralize_line(
                    t.as_str().unwrap_or_default()
                )
                .into_owned()),
                list("entities", &|e| format!(
                    "{} {}",
                    shown(e, "category"),
                    shown(e, "key")
                )),
            );
            println!(
                "  next to: {}",
                list("cues", &|c| format!(
                    "{} {}",
                    shown(c, "coordinate"),
                    shown(c, "label")
                ))
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A text field of an answer ("" when missing), made safe for a
/// terminal (control characters shown escaped).
fn text<'a>(value: &'a serde_json::Value, field: &str) -> std::borrow::Cow<'a, str> {
    engram_text::display::neutralize_line(value[field].as_str().unwrap_or_default())
}

pub fn grade(ctx: &Context, args: &GradeArgs) -> anyhow::Result<ExitCode> {
    GradeRequest {
        grade: args.grade,
        by: args.by,
    }
    .validate()?;
    let door = Door::open(ctx, &ctx.memory_stores()?)?;
    let request = GradeRequest {
        grade: args.grade,
        by: args.by,
    };
    let s = door.post(
        &engram::client::memory_target(args.id, "grade", &[]),
        &request,
    );
    door.finish()?;
    let s = s?;
    if args.json {
        println!("{s}");
    } else {
        println!(
            "graded memory {} {}: next review {} (in {} days, easiness {:.2})",
            text(&s, "id"),
            args.grade,
            text(&s, "due"),
            s["interval_days"],
            s["easiness"].as_f64().unwrap_or_default()
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn verdicts(ctx: &Context, args: &VerdictsArgs) -> anyhow::Result<ExitCode> {
    // Every store this context reaches, the first with a log first.
    let door = Door::open(ctx, &ctx.memory_stores()?)?;
    let answer = door.get("/api/verdicts");
    door.finish()?;
    let answer = answer?;
    if args.json {
        println!("{answer}");
    } else {
        let open = answer["open"].as_array().cloned().unwrap_or_default();
        let shelved = answer["shelved"].as_array().cloned().unwrap_or_default();
        if open.is_empty() {
            println!("no open contradictions");
        }
        for c in &open {
            println!(
                "{} vs {} ({}):\n  a: {}\n  b: {}",
                text(c, "a"),
                text(c, "b"),
                text(c, "reason"),
                text(c, "a_label"),
                text(c, "b_label")
            );
        }
        if !shelved.is_empty() {
            println!("shelved:");
            for c in &shelved {
                println!(
                    "  {} vs {} ({})",
                    text(c, "a"),
                    text(c, "b"),
                    text(c, "reason")
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn verdict(ctx: &Context, args: &VerdictArgs) -> anyhow::Result<ExitCode> {
    let verdict = args.verdict;
    let request = VerdictRequest {
        a: args.a,
        b: args.b,
        verdict,
        by: args.by,
        reason: Some(args.reason.clone()),
    };
    let door = Door::open(ctx, &ctx.memory_stores()?)?;
    let answer = door.post("/api/verdict", &request);
    door.finish()?;
    let answer = answer?;
    if args.json {
        println!("{answer}");
    } else {
        let text = |key: &str| answer[key].as_str().unwrap_or_default().to_owned();
        println!(
            "recorded {} on {} vs {} (seq {})",
            verdict.as_str(),
            text("a"),
            text("b"),
            answer["seq"]
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn maintain(ctx: &Context, args: &MaintainArgs) -> anyhow::Result<ExitCode> {
    if let Some(text) = &args.at {
        parse_time(text, now_ms()).map_err(|e| anyhow::anyhow!("--at {e}"))?;
    }
    let request = MaintainRequest {
        at: args.at.clone(),
        dry_run: args.dry_run,
        idle_days: Some(args.idle_days),
        importance_below: Some(args.importance_below),
        capacity: Some(args.capacity),
        keep_trust: Some(args.keep_trust),
        session_idle_days: Some(args.session_idle_days),
        by: args.by,
    };
    ctx.require_log()?;
    let door = Door::open(ctx, &[&ctx.store])?;
    let answer = door.post("/api/maintain", &request);
    door.finish()?;
    let answer = answer?;
    if args.json {
        println!("{answer}");
    } else {
        let verb = if args.dry_run {
            "would archive"
        } else {
            "archived"
        };
        let archived = answer["archived"].as_array().cloned().unwrap_or_default();
        let rescored = answer["rescored"].as_array().cloned().unwrap_or_default();
        if archived.is_empty() && rescored.is_empty() {
            println!("nothing to archive, no uniqueness changed");
        }
        for a in &archived {
            println!("{verb} memory {}: {}", text(a, "id"), text(a, "reason"));
        }
        let verb = if args.dry_run {
            "would rescore"
        } else {
            "rescored"
        };
        for r in &rescored {
            println!(
                "{verb} memory {}: uniqueness {:.2} -> {:.2}",
                text(r, "id"),
                r["from"].as_f64().unwrap_or_default(),
                r["uniqueness"].as_f64().unwrap_or_default()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, clap::Subcommand)]
#[command(defer = true)]
pub enum DistillCommand {
    /// Clusters of similar live memories worth a rule.
    Candidates {
        /// Print one JSON object: {"clusters": [{"members": [{"id", "coordinate", "label"}]}]}.
        #[arg(long)]
        json: bool,
    },
    /// Record a rule (your words) distilled from member memories; its
    /// confidence is inherited from theirs.
    Apply {
        /// Member memory ids, comma separated (at least two, of one
        /// store: `p:2,p:5`); the rule goes to their store.
        #[arg(long, value_name = "IDS", value_delimiter = ',', required = true)]
        members: Vec<IdArg>,
        /// The rule's text.
        #[arg(long, value_name = "TEXT")]
        rule: String,
        /// Room for the rule (default: the first member's corridor).
        #[arg(long, value_name = "ROOM")]
        room: Option<String>,
        /// Who wrote the rule.
        #[arg(long, value_enum, default_value = "model")]
        by: By,
        /// Only check it and say what would be recorded; write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Print one JSON object: id, coordinate, members, confidence (with
        /// --dry-run: members, confidence, room, rule, dry_run).
        #[arg(long)]
        json: bool,
    },
}

pub fn distill(ctx: &Context, command: &DistillCommand) -> anyhow::Result<ExitCode> {
    match command {
        DistillCommand::Candidates { json } => {
            ctx.require_log()?;
            let door = Door::open(ctx, &[&ctx.store])?;
            let answer = door.get("/api/distill/candidates");
            door.finish()?;
            let answer = answer?;
            if *json {
                println!("{answer}");
            } else {
                let clusters = answer["clusters"].as_array().cloned().unwrap_or_default();
                if clusters.is_empty() {
                    println!("no clusters of similar memories");
                }
                for (i, cluster) in clusters.iter().enumerate() {
                    println!("cluster {}:", i + 1);
                    for m in cluster["members"].as_array().into_iter().flatten() {
                        println!(
                            "  memory {} at {}: {}",
                            text(m, "id"),
                            text(m, "coordinate"),
                            text(m, "label")
                        );
                    }
                }
            }
        }
        DistillCommand::Apply {
            members,
            rule,
            room,
            by,
            dry_run,
            json,
        } => {
            let request = DistillRequest {
                members: members.clone(),
                rule: rule.clone(),
                room: room.clone(),
                by: Some(*by),
                dry_run: *dry_run,
            };
            let door = Door::open(ctx, &ctx.memory_stores()?)?;
            let d = door.post("/api/distill", &request);
            door.finish()?;
            let d = d?;
            let members: Vec<&str> = d["members"]
                .as_array()
                .map(|m| m.iter().filter_map(serde_json::Value::as_str).collect())
                .unwrap_or_default();
            if *json {
                println!("{d}");
            } else if *dry_run {
                println!(
                    "would distill a rule into room {} from {} (confidence {:.2}); nothing was written",
                    text(&d, "room"),
                    members.join(", "),
                    d["confidence"].as_f64().unwrap_or_default()
                );
            } else {
                println!(
                    "distilled rule memory {} at {} from {} (confidence {:.2})",
                    d["id"].as_str().unwrap_or_default(),
                    d["coordinate"].as_str().unwrap_or_default(),
                    members.join(", "),
                    d["confidence"].as_f64().unwrap_or_default()
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, clap::Args)]
pub struct EntitiesArgs {
    /// Only this category: person, project, tool, file, organisation, place.
    #[arg(long, value_name = "CATEGORY")]
    category: Option<String>,
    /// Only entities whose name contains this.
    #[arg(long, value_name = "TEXT")]
    search: Option<String>,
    /// Print one JSON object: {"entities": [{"category", "name", "memories": [{"id", "coordinate", "label"}]}]}.
    #[arg(long)]
    json: bool,
}

pub fn entities(ctx: &Context, args: &EntitiesArgs) -> anyhow::Result<ExitCode> {
    // Every store this context reaches, the first with a log first.
    let door = Door::open(ctx, &ctx.memory_stores()?)?;
    let mut target = "/api/entities".to_owned();
    let mut separator = '?';
    for (name, value) in [("category", &args.category), ("search", &args.search)] {
        if let Some(value) = value {
            target.push_str(&format!("{separator}{name}={}", encode(value)));
            separator = '&';
        }
    }
    let answer = door.get(&target);
    door.finish()?;
    let answer = answer?;
    if args.json {
        println!("{answer}");
    } else {
        let list = answer["entities"].as_array().cloned().unwrap_or_default();
        if list.is_empty() {
            println!("no entities");
        }
        for e in &list {
            let ids: Vec<std::borrow::Cow<str>> = e["memories"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|m| text(m, "id"))
                .collect();
            println!(
                "{:<12} {:<24} memories {}",
                text(e, "category"),
                text(e, "name"),
                ids.join(", ")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

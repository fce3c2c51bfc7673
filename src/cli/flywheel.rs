//! `engram review | grade | verdicts | verdict`: SM-2 review and verdicts
//! on contradictions.

use std::process::ExitCode;

use engram::api::{
    By, DistillRequest, GradeRequest, IdArg, VerdictName, VerdictRequest, qualified,
};
use engram::engine::now_ms;
use engram_commands::maintain::MaintainPolicy;
use engram_text::display::neutralize_line as line;

use super::{Context, format_ts};
use engram::api::{json, parse_time};

#[derive(Debug, clap::Args)]
pub struct ReviewArgs {
    /// When: RFC 3339 (`2026-12-01T09:00:00Z`) or an offset from now
    /// (`+2d`, `+12h`, `-1h`). Default: now.
    #[arg(long, value_name = "TIME")]
    at: Option<String>,
    /// Print one JSON object: {"due": [{"id", "coordinate", "cues"}]}.
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
    /// Run as if at TIME (RFC 3339 or `+30d`). Default: now.
    #[arg(long, value_name = "TIME")]
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
    /// Only say what would be archived.
    #[arg(long)]
    dry_run: bool,
    /// Who runs it (a model cannot archive what the user said: nothing is
    /// archived then).
    #[arg(long, value_enum, default_value = "user")]
    by: By,
    /// Print one JSON object: {"archived": [{"id", "reason"}], "dry_run"}.
    #[arg(long)]
    json: bool,
}

pub fn review(ctx: &Context, args: &ReviewArgs) -> anyhow::Result<ExitCode> {
    let at = match &args.at {
        Some(text) => parse_time(text, now_ms()).map_err(|e| anyhow::anyhow!("--at {e}"))?,
        None => now_ms(),
    };
    let engram = ctx.open_existing()?;
    let due = engram.review(at);
    engram.close()?;
    if args.json {
        println!("{}", json::due(ctx.scope, &due));
    } else {
        if due.is_empty() {
            println!("nothing due at {}", format_ts(at));
        }
        for d in &due {
            let cues: Vec<String> = d
                .cues
                .iter()
                .map(|c| line(&c.coordinate).into_owned())
                .collect();
            println!(
                "memory {} at {} (due {}); next to: {}",
                qualified(ctx.scope, d.id),
                line(&d.coordinate),
                format_ts(d.due_ms),
                if cues.is_empty() {
                    "-".to_owned()
                } else {
                    cues.join(", ")
                }
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn grade(ctx: &Context, args: &GradeArgs) -> anyhow::Result<ExitCode> {
    GradeRequest {
        grade: args.grade,
        by: args.by,
    }
    .validate()?;
    let subject = engram::Subject {
        actor: args.by.actor(),
        session: None,
    };
    let service = ctx.memory_service()?;
    let schedule = service.with_memory(args.id, |engram, id| {
        engram.grade_as(id, args.grade, &subject)
    });
    service.close()?;
    let (scope, s) = schedule?;
    if args.json {
        println!("{}", json::schedule(scope, args.id.id, args.grade, &s));
    } else {
        println!(
            "graded memory {} {}: next review {} (in {} days, easiness {:.2})",
            qualified(scope, args.id.id),
            args.grade,
            format_ts(s.due_ms),
            s.interval_days,
            f64::from(s.ef_permille) / 1000.0
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn verdicts(ctx: &Context, args: &VerdictsArgs) -> anyhow::Result<ExitCode> {
    let engram = ctx.open_existing()?;
    let (open, shelved) = engram.contradictions();
    engram.close()?;
    if args.json {
        println!("{}", json::contradictions(ctx.scope, &open, &shelved));
    } else {
        if open.is_empty() {
            println!("no open contradictions");
        }
        for c in &open {
            println!(
                "{} vs {} ({}):\n  a: {}\n  b: {}",
                qualified(ctx.scope, c.a),
                qualified(ctx.scope, c.b),
                line(&c.reason),
                line(&c.a_label),
                line(&c.b_label)
            );
        }
        if !shelved.is_empty() {
            println!("shelved:");
            for c in &shelved {
                println!(
                    "  {} vs {} ({})",
                    qualified(ctx.scope, c.a),
                    qualified(ctx.scope, c.b),
                    line(&c.reason)
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
    let service = ctx.memory_service()?;
    let result = service.verdict(&request);
    service.close()?;
    let answer = result?;
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
    let at = match &args.at {
        Some(text) => parse_time(text, now_ms()).map_err(|e| anyhow::anyhow!("--at {e}"))?,
        None => now_ms(),
    };
    let policy = MaintainPolicy {
        idle_days: args.idle_days,
        importance_below: args.importance_below,
        hot_set_capacity: args.capacity,
        keep_trust_at_least: args.keep_trust,
    };
    let engram = ctx.open_existing()?;
    let subject = engram::Subject {
        actor: args.by.actor(),
        session: None,
    };
    let result = engram.maintain_as(&policy, at, args.dry_run, &subject);
    engram.close()?;
    let archived = result?;
    if args.json {
        println!("{}", json::archived(ctx.scope, &archived, args.dry_run));
    } else {
        let verb = if args.dry_run {
            "would archive"
        } else {
            "archived"
        };
        if archived.is_empty() {
            println!("nothing to archive");
        }
        for (id, reason) in &archived {
            println!(
                "{verb} memory {}: {}",
                qualified(ctx.scope, *id),
                line(reason)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, clap::Subcommand)]
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
        /// Print one JSON object: id, coordinate, members, confidence.
        #[arg(long)]
        json: bool,
    },
}

pub fn distill(ctx: &Context, command: &DistillCommand) -> anyhow::Result<ExitCode> {
    match command {
        DistillCommand::Candidates { json } => {
            let engram = ctx.open_existing()?;
            let described = engram.distill_candidates_described();
            engram.close()?;
            if *json {
                println!("{}", json::clusters(ctx.scope, &described));
            } else {
                if described.is_empty() {
                    println!("no clusters of similar memories");
                }
                for (i, members) in described.iter().enumerate() {
                    println!("cluster {}:", i + 1);
                    for (id, at, label) in members {
                        println!(
                            "  memory {} at {}: {}",
                            qualified(ctx.scope, *id),
                            line(at),
                            line(label)
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
            json,
        } => {
            let request = DistillRequest {
                members: members.clone(),
                rule: rule.clone(),
                room: room.clone(),
                by: Some(*by),
            };
            let service = ctx.memory_service()?;
            let result = service.distill(&request);
            service.close()?;
            let d = result?;
            if *json {
                println!("{d}");
            } else {
                let members: Vec<&str> = d["members"]
                    .as_array()
                    .map(|m| m.iter().filter_map(serde_json::Value::as_str).collect())
                    .unwrap_or_default();
                println!(
                    "distilled rule memory {} at {} from {} (confidence {:.2})",
                    d["id"].as_str().unwrap_or_default(),
                    line(d["coordinate"].as_str().unwrap_or_default()),
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
    const CATEGORIES: [&str; 6] = ["person", "project", "tool", "file", "organisation", "place"];
    if let Some(c) = &args.category {
        anyhow::ensure!(
            CATEGORIES.contains(&c.as_str()),
            "unknown category {c:?}: use one of {}",
            CATEGORIES.join(", ")
        );
    }
    let engram = ctx.open_existing()?;
    let list = engram.entities(args.category.as_deref(), args.search.as_deref());
    engram.close()?;
    if args.json {
        println!("{}", json::entities(ctx.scope, &list));
    } else {
        if list.is_empty() {
            println!("no entities");
        }
        for e in &list {
            let ids: Vec<String> = e
                .memories
                .iter()
                .map(|(id, _, _)| qualified(ctx.scope, *id))
                .collect();
            println!(
                "{:<12} {:<24} memories {}",
                line(&e.category),
                line(&e.key),
                ids.join(", ")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

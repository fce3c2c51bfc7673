//! `engram remember | recall | expand | forget | confirm`: the memory seam
//! on the command line. `--json` prints one JSON object; exit 0 success, 1
//! nothing found, 2 error.

use std::process::ExitCode;

use anyhow::Context as _;
use clap::ValueEnum;
use engram::api::{
    BatchItem, BatchRequest, By, IdArg, RecallRequest, TierName, context_block, json, qualified,
    read_batch_input, read_text_input,
};
use engram::engine::Engram;
use engram::log::{MemoryRef, Scope};
use engram::{Content, MemoryMeta, Outcome, Remember, Subject};
use engram_text::display::{neutralize, neutralize_line};
use serde_json::Value;

use super::{Context, EXIT_CHECK_FAILED};

/// Output format of recall.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RecallFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object.
    Json,
    /// The `<engram_memory_context>` block handed to a model.
    Context,
}

#[derive(Debug, clap::Args)]
pub struct RememberArgs {
    /// The words to remember (`-` reads standard input). Omit with
    /// --first-seq/--last-seq to remember session turns already recorded.
    text: Option<String>,
    /// Save a batch: a JSON file (`-` for stdin) `{"items": [{"content",
    /// "room"?, "tags"?, "summary"?}]}`; prints {"results": [...]}, one
    /// outcome per item.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["text", "first_seq"])]
    items: Option<std::path::PathBuf>,
    /// Palace room.
    #[arg(long, value_name = "ROOM")]
    room: Option<String>,
    /// Tags, comma separated.
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    tags: Vec<String>,
    /// One-line summary.
    #[arg(long, value_name = "TEXT")]
    summary: Option<String>,
    /// Session: where plain text is recorded (default `notes`), or whose
    /// turns --first-seq/--last-seq name.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// First seq of the session turns to remember (a reference).
    #[arg(long, value_name = "SEQ", requires_all = ["session", "last_seq"], conflicts_with = "text")]
    first_seq: Option<u64>,
    /// Last seq of the session turns to remember.
    #[arg(long, value_name = "SEQ", requires = "first_seq")]
    last_seq: Option<u64>,
    /// Visible only within --session.
    #[arg(long, requires = "session")]
    session_only: bool,
    /// Tier: l3 (cross-session, default), l2 (workspace document), l1.
    #[arg(long, value_enum, default_value = "l3")]
    tier: TierName,
    /// Who is saving it: the user (default) or a model.
    #[arg(long, value_enum, default_value = "user")]
    by: By,
    /// Time to live (`30d`, `12h`): past it, `engram maintain` archives it.
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    ttl: Option<std::time::Duration>,
    /// Print one JSON object: id, coordinate, outcome, related, reason,
    /// uniqueness, scope, session, first_seq, last_seq.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct RecallArgs {
    /// What to look for.
    query: String,
    /// Only memories in this room.
    #[arg(long, value_name = "ROOM")]
    room: Option<String>,
    /// Only memories in this tier (l4 searches archived memories).
    #[arg(long, value_enum)]
    tier: Option<TierName>,
    /// Only memories carrying every one of these tags.
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    tags: Vec<String>,
    /// The caller's session: its session-only memories are included.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Most hits (1-100).
    #[arg(long, value_name = "K", default_value_t = 5)]
    limit: u32,
    /// Same as --format json.
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// Output: text, json, or context (the block handed to a model).
    #[arg(long, value_enum, default_value = "text")]
    format: RecallFormat,
}

#[derive(Debug, clap::Args)]
pub struct ExpandArgs {
    /// Memory id as recall shows it: `p:2` (project store), `u:2` (user
    /// store); a bare number only where one store has that memory.
    #[arg(allow_negative_numbers = true)]
    id: IdArg,
    /// Expand a forgotten memory too (auditors).
    #[arg(long)]
    audit: bool,
    /// The caller's session (needed for session-only memories).
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Print one JSON object: id, events [{seq, ts, session, turn, role,
    /// content}], verified, status.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct ForgetArgs {
    /// Memory id as recall shows it (`p:2`, `u:2`).
    #[arg(allow_negative_numbers = true)]
    id: IdArg,
    /// Why (recorded in the tombstone).
    #[arg(long, value_name = "TEXT", default_value = "")]
    reason: String,
    /// Who forgets: the user (default) or a model.
    #[arg(long, value_enum, default_value = "user")]
    by: By,
    /// The caller's session (needed for session-only memories).
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Print one JSON object: id, seq, already.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct ConfirmArgs {
    /// Memory id as recall shows it (`p:2`, `u:2`).
    #[arg(allow_negative_numbers = true)]
    id: IdArg,
    /// Words that must occur in the memory's source.
    quote: String,
    /// Who confirms.
    #[arg(long, value_enum, default_value = "user")]
    by: By,
    /// The caller's session (needed for session-only memories).
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Print one JSON object: id, seq, valid, trust.
    #[arg(long)]
    json: bool,
}

fn subject(by: By, session: Option<&String>) -> Subject {
    Subject {
        actor: by.actor(),
        session: session.cloned(),
    }
}

#[derive(Debug, serde::Deserialize)]
struct BatchFile {
    items: Vec<BatchItem>,
}

fn remember_items(
    ctx: &Context,
    args: &RememberArgs,
    path: &std::path::Path,
) -> anyhow::Result<ExitCode> {
    let bytes = if path.as_os_str() == "-" {
        read_batch_input(std::io::stdin().lock(), "standard input")?
    } else {
        let file =
            std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
        read_batch_input(file, &path.display().to_string())?
    };
    let batch: BatchFile = serde_json::from_slice(&bytes).with_context(|| {
        format!(
            "{}: expected {{\"items\": [{{\"content\": ...}}]}}",
            path.display()
        )
    })?;
    let request = BatchRequest {
        items: batch.items,
        session: args.session.clone(),
        room: args.room.clone(),
        by: args.by,
        scope: None,
    };
    let service = ctx.own_service(super::model::load())?;
    let answer = service.remember_batch(&request);
    service.close()?;
    let answer = answer?;
    let results = answer["results"].as_array().cloned().unwrap_or_default();
    let failed = results.iter().filter(|r| r["outcome"] == "error").count();
    if args.json {
        println!("{}", serde_json::json!({ "results": results }));
    } else {
        for (i, r) in results.iter().enumerate() {
            println!(
                "item {}: {} {}",
                i + 1,
                r["outcome"].as_str().unwrap_or_default(),
                r["id"].as_str().unwrap_or_default()
            );
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_ERROR)
    })
}

pub fn remember(ctx: &Context, args: &RememberArgs) -> anyhow::Result<ExitCode> {
    if let Some(path) = &args.items {
        return remember_items(ctx, args, path);
    }
    let content = match (args.first_seq, args.last_seq, &args.text) {
        (Some(first_seq), Some(last_seq), _) => Content::Reference(MemoryRef {
            session: args.session.clone().unwrap_or_default(),
            first_seq,
            last_seq,
        }),
        (_, _, Some(text)) => {
            let text = if text == "-" {
                let bytes = read_text_input(std::io::stdin().lock(), "standard input")?;
                String::from_utf8(bytes).context("standard input is not UTF-8")?
            } else {
                text.clone()
            };
            Content::Text {
                text,
                session: args.session.clone(),
            }
        }
        _ => anyhow::bail!(
            "nothing to remember: give TEXT, or --session with --first-seq and --last-seq"
        ),
    };
    let request = Remember {
        content,
        meta: MemoryMeta {
            summary: args.summary.clone(),
            tags: args.tags.clone(),
            tier: args.tier.save_tier()?,
            room: args.room.clone(),
            source: args.by.source(),
            scope: match (&args.session, args.session_only) {
                (Some(session), true) => Scope::Session(session.clone()),
                _ => Scope::Store,
            },
            ttl_ms: args
                .ttl
                .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
        },
        subject: subject(args.by, args.session.as_ref()),
    };
    let engram = super::model::attach(
        Engram::open(ctx.store.clone(), &ctx.options())?,
        super::model::load(),
    );
    let receipt = engram.remember(&request);
    engram.close()?;
    let receipt = receipt?;
    if args.json {
        println!("{}", json::receipt(ctx.scope, &receipt));
    } else {
        let at = neutralize_line(receipt.coordinate.as_deref().unwrap_or_default());
        let id = qualified(ctx.scope, receipt.id.unwrap_or_default());
        let related = qualified(ctx.scope, receipt.related.unwrap_or_default());
        let reason = neutralize_line(receipt.reason.as_deref().unwrap_or_default());
        match receipt.outcome {
            Outcome::New => println!("remembered memory {id} at {at} ({} store)", ctx.scope),
            Outcome::Reinforced => {
                println!("reinforced memory {id} at {at}: the text restates it (no new slot)");
            }
            Outcome::Contradiction => println!(
                "remembered memory {id} at {at}; it contradicts memory {related} ({reason}): see `engram verdicts`"
            ),
            Outcome::Discarded => println!("discarded: {reason}; nothing was remembered"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn recall(ctx: &Context, args: &RecallArgs) -> anyhow::Result<ExitCode> {
    let request = RecallRequest {
        query: args.query.clone(),
        room: args.room.clone(),
        tier: args.tier,
        tags: args.tags.clone(),
        session: args.session.clone(),
        limit: Some(args.limit),
    };
    request.limit()?;
    // The first store with a log is held; the others are searched in turn
    // (each records its own `recalled`); a store without a log is not
    // created by a recall.
    let model = if ctx.recall_stores.iter().any(|(_, s)| s.has_log()) {
        super::model::load()
    } else {
        None
    };
    let with_log = ctx.recall_stores.iter().filter(|(_, s)| s.has_log());
    let (hits, mode) = match ctx.service(with_log, model)? {
        Some(service) => {
            let recalled = service.recall_hits(&request);
            service.close()?;
            let recalled = recalled?;
            for skipped in &recalled.skipped {
                eprintln!("engram: warning: not searched: {skipped}");
            }
            (recalled.hits, recalled.mode.as_str())
        }
        None => (Vec::new(), "keyword"),
    };
    let format = if args.json {
        RecallFormat::Json
    } else {
        args.format
    };
    match format {
        RecallFormat::Json => {
            let hits: Vec<Value> = hits
                .iter()
                .map(|(scope, hit)| json::hit(scope, hit))
                .collect();
            println!("{}", serde_json::json!({ "hits": hits, "mode": mode }));
        }
        RecallFormat::Context => print!("{}", context_block(&hits)),
        RecallFormat::Text => {
            if hits.is_empty() {
                println!("no memory matches {:?}", args.query);
            }
            for (scope, hit) in &hits {
                println!(
                    "memory {} at {} ({scope}, score {:.3}, trust {:.2})",
                    qualified(scope, hit.id),
                    neutralize_line(&hit.coordinate),
                    hit.score,
                    hit.trust
                );
                for line in neutralize(&hit.text).split('\n') {
                    println!("    {line}");
                }
            }
        }
    }
    Ok(if hits.is_empty() {
        ExitCode::from(EXIT_CHECK_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

pub fn expand(ctx: &Context, args: &ExpandArgs) -> anyhow::Result<ExitCode> {
    let service = ctx.memory_service()?;
    let expansion = service.with_memory(args.id, |engram, id| {
        engram.expand_as(id, &subject(By::User, args.session.as_ref()), args.audit)
    });
    service.close()?;
    let (scope, expansion) = expansion?;
    if args.json {
        println!("{}", json::expansion(scope, &expansion));
    } else {
        for t in &expansion.turns {
            println!(
                "[seq {} | {} | session {} turn {} | {}]",
                t.seq,
                json::format_ts(t.ts_ms),
                neutralize_line(&t.session),
                t.turn,
                json::role_name(t.role)
            );
            println!("{}", neutralize(&t.content));
        }
        println!(
            "verified: content hash and HMAC of memory {} match",
            qualified(scope, expansion.id)
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn forget(ctx: &Context, args: &ForgetArgs) -> anyhow::Result<ExitCode> {
    let service = ctx.memory_service()?;
    let result = service.with_memory(args.id, |engram, id| {
        engram.forget(id, &subject(args.by, args.session.as_ref()), &args.reason)
    });
    service.close()?;
    let (scope, forgetting) = result?;
    let id = qualified(scope, forgetting.id);
    if args.json {
        println!("{}", json::forgetting(scope, &forgetting));
    } else if forgetting.already {
        println!(
            "memory {id} was already forgotten at seq {} ({scope} store)",
            forgetting.seq
        );
    } else {
        println!(
            "forgot memory {id} (tombstone at seq {} of the {scope} store; the log keeps the original words)",
            forgetting.seq
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn confirm(ctx: &Context, args: &ConfirmArgs) -> anyhow::Result<ExitCode> {
    let service = ctx.memory_service()?;
    let result = service.with_memory(args.id, |engram, id| {
        engram.confirm(id, &subject(args.by, args.session.as_ref()), &args.quote)
    });
    service.close()?;
    let (scope, confirmation) = result?;
    let id = qualified(scope, confirmation.id);
    if args.json {
        println!("{}", json::confirmation(scope, &confirmation));
    } else if confirmation.valid {
        println!(
            "confirmed: the quote occurs in memory {id}'s source (trust now {:.2})",
            confirmation.trust
        );
    } else {
        println!(
            "not confirmed: the quote does not occur in memory {id}'s source (recorded at seq {} of the {scope} store)",
            confirmation.seq
        );
    }
    Ok(if confirmation.valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_CHECK_FAILED)
    })
}

#[derive(Debug, clap::Args)]
pub struct ReembedArgs {
    /// Print one JSON object: {"model", "added", "mode"}.
    #[arg(long)]
    json: bool,
}

pub fn reembed(ctx: &Context, args: &ReembedArgs) -> anyhow::Result<ExitCode> {
    ctx.require_log()?;
    let Some(model) = super::model::load() else {
        anyhow::bail!("no embedding model to reembed with (see the warning above)");
    };
    let engram = Engram::open(ctx.store.clone(), &ctx.options())?.with_embedder(model.clone());
    let bar = super::progress_bar(0, "reembed");
    let added = engram.reembed(&|done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    let mode = engram.recall_mode();
    engram.close()?;
    let added = added?;
    if args.json {
        println!(
            "{}",
            serde_json::json!({"model": model.model_id(), "added": added, "mode": mode.as_str()})
        );
    } else {
        println!(
            "added {added} vectors of {}; recall is {}",
            model.model_id(),
            mode.as_str()
        );
    }
    Ok(ExitCode::SUCCESS)
}

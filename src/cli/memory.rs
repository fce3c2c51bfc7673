//! `engram remember | recall | expand | forget | purge | confirm`: the memory seam
//! on the command line. `--json` prints one JSON object; exit 0 success, 1
//! nothing found, 2 error.

use std::process::ExitCode;

use anyhow::Context as _;
use clap::ValueEnum;
use engram::api::{
    BatchItem, BatchRequest, By, ConfirmRequest, ForgetRequest, IdArg, PurgeRequest, RecallRequest,
    RememberRequest, TierName, context_block,
};
use engram::api::{read_batch_input, read_text_input};
use engram::client::{ClientError, memory_target};
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
    /// Tier: l1 (a session memory; the default with --session), l3
    /// (cross-session; the default without), l2 (workspace document).
    #[arg(long, value_enum)]
    tier: Option<TierName>,
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
    /// Search this room's corridor; when nothing matches there, every room
    /// (a hint where to look first, not a filter).
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
    /// Leave out hits whose relevance is below SCORE instead of filling the
    /// limit: in hybrid mode relevance is the fused score, 0-1 (default
    /// 0.1); in keyword mode the BM25 score (default: no floor). `stats`
    /// names the mode.
    #[arg(long, value_name = "SCORE", allow_negative_numbers = true)]
    min_score: Option<f64>,
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
pub struct PurgeArgs {
    /// Memory id as recall shows it (`p:2`, `u:2`).
    #[arg(
        allow_negative_numbers = true,
        required_unless_present = "session",
        conflicts_with = "session"
    )]
    id: Option<IdArg>,
    /// Purge a whole session instead: every turn of it and every memory
    /// referencing it (in every store that recorded it).
    #[arg(long, value_name = "S")]
    session: Option<String>,
    #[command(flatten)]
    request: PurgeRequest,
    /// Print one JSON object: store, seq, memories, sessions, subjects
    /// (and id; a session's purge: session, purges [one per store]).
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
    let spinner = super::spinner(format!(
        "remembering {} as one batch",
        super::counted(request.items.len(), "item")
    ));
    let door = super::door::Door::open(ctx, &[&ctx.store])?;
    let answer = door.post("/api/remember/batch", &request);
    let finished = door.finish();
    spinner.finish_and_clear();
    finished?;
    // Taken, not cloned: a batch of 100,000 answers with as many results.
    let mut answer = answer?;
    let results = match answer.get_mut("results").map(Value::take) {
        Some(Value::Array(results)) => results,
        _ => Vec::new(),
    };
    let failed = results.iter().filter(|r| r["outcome"] == "error").count();
    if args.json {
        println!("{}", serde_json::json!({ "results": results }));
    } else {
        for (i, r) in results.iter().enumerate() {
            println!("item {}: {}", i + 1, batch_item_line(r));
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_ERROR)
    })
}

/// One item of a batch's answer, for people: its outcome and id, and why
/// when it was refused, discarded or contradicts a memory (an item's
/// answer without its reason left `item 2: error` unexplained).
fn batch_item_line(result: &Value) -> String {
    // Each field on the line as `remember` shows it: stored words can
    // break neither the line nor the terminal.
    let field =
        |name: &str| neutralize_line(result[name].as_str().unwrap_or_default()).into_owned();
    match result["outcome"].as_str().unwrap_or_default() {
        "error" => format!("error: {}", field("message")),
        "discarded" => format!("discarded: {}", field("reason")),
        "contradiction" => format!(
            "contradiction {}; it contradicts memory {} ({})",
            field("id"),
            field("related"),
            field("reason")
        ),
        _ => format!("{} {}", field("outcome"), field("id")),
    }
}

pub fn remember(ctx: &Context, args: &RememberArgs) -> anyhow::Result<ExitCode> {
    if let Some(path) = &args.items {
        return remember_items(ctx, args, path);
    }
    let content = match &args.text {
        Some(text) if text == "-" => {
            let bytes = read_text_input(std::io::stdin().lock(), "standard input")?;
            Some(String::from_utf8(bytes).context("standard input is not UTF-8")?)
        }
        Some(text) => Some(text.clone()),
        None => None,
    };
    if content.is_none() && args.first_seq.is_none() {
        anyhow::bail!(
            "nothing to remember: give TEXT, or --session with --first-seq and --last-seq"
        );
    }
    let request = RememberRequest {
        content,
        room: args.room.clone(),
        tags: args.tags.clone(),
        summary: args.summary.clone(),
        session: args.session.clone(),
        first_seq: args.first_seq,
        last_seq: args.last_seq,
        session_only: args.session_only,
        tier: args.tier,
        by: args.by,
        ttl: args.ttl.map(|d| humantime::format_duration(d).to_string()),
    };
    let door = super::door::Door::open(ctx, &[&ctx.store])?;
    let receipt = door.post("/api/remember", &request);
    door.finish()?;
    let receipt = receipt?;
    if args.json {
        println!("{receipt}");
    } else {
        let text =
            |field: &str| neutralize_line(receipt[field].as_str().unwrap_or_default()).into_owned();
        let (id, at, related, reason) = (
            text("id"),
            text("coordinate"),
            text("related"),
            text("reason"),
        );
        match receipt["outcome"].as_str().unwrap_or_default() {
            // A --store folder is the only store: no scope to name.
            "new" if ctx.scope == "store" => println!("remembered memory {id} at {at}"),
            "new" => println!("remembered memory {id} at {at} ({} store)", ctx.scope),
            "reinforced" => {
                println!("reinforced memory {id} at {at}: the text restates it (no new slot)");
            }
            "contradiction" => println!(
                "remembered memory {id} at {at}; it contradicts memory {related} ({reason}): see `engram verdicts`"
            ),
            _ => println!("discarded: {reason}; nothing was remembered"),
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
        min_score: args.min_score,
    };
    request.limit()?;
    request.min_score()?;
    // The first store with a log takes the recall's `recalled` event; a
    // store without a log is not created by a recall.
    let with_log = ctx.recall_stores_with_log();
    if with_log.is_empty() {
        return print_recall(
            &serde_json::json!({"hits": [], "mode": "keyword", "context": context_block(&[])}),
            args,
        );
    }
    let door = super::door::Door::open(ctx, &with_log)?;
    let answer = door.post("/api/recall", &request);
    door.finish()?;
    print_recall(&answer?, args)
}

/// Prints the answer of a recall.
fn print_recall(answer: &Value, args: &RecallArgs) -> anyhow::Result<ExitCode> {
    for skipped in answer["skipped"].as_array().into_iter().flatten() {
        eprintln!(
            "engram: warning: not searched: {}",
            skipped.as_str().unwrap_or_default()
        );
    }
    let hits = answer["hits"].as_array().cloned().unwrap_or_default();
    let format = if args.json {
        RecallFormat::Json
    } else {
        args.format
    };
    match format {
        RecallFormat::Json => {
            println!(
                "{}",
                serde_json::json!({ "hits": hits, "mode": answer["mode"] })
            );
        }
        RecallFormat::Context => print!("{}", answer["context"].as_str().unwrap_or_default()),
        RecallFormat::Text => {
            if hits.is_empty() {
                println!("no memory matches {:?}", args.query);
            }
            for hit in &hits {
                println!(
                    "memory {} at {} ({}, score {:.3}, trust {:.2})",
                    hit["id"].as_str().unwrap_or_default(),
                    neutralize_line(hit["coordinate"].as_str().unwrap_or_default()),
                    hit["scope"].as_str().unwrap_or_default(),
                    hit["score"].as_f64().unwrap_or_default(),
                    hit["trust"].as_f64().unwrap_or_default()
                );
                for line in neutralize(hit["text"].as_str().unwrap_or_default()).split('\n') {
                    println!("    {line}");
                }
                for restated in hit["restated"].as_array().into_iter().flatten() {
                    println!("  restated as:");
                    for line in neutralize(restated.as_str().unwrap_or_default()).split('\n') {
                        println!("    {line}");
                    }
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
    let door = super::door::Door::open(ctx, &ctx.memory_stores()?)?;
    let target = memory_target(
        args.id,
        "expand",
        &[
            ("audit", args.audit.then_some("true")),
            ("session", args.session.as_deref()),
        ],
    );
    let expansion = door.get(&target);
    door.finish()?;
    let expansion = match expansion {
        Err(ClientError::Api(e)) if e.code == engram::api::ErrorCode::Erased => {
            // Its words are gone: say so, with the purge that erased them.
            if args.json {
                println!("{}", e.to_json());
            }
            eprintln!("engram: {}", neutralize(&e.message));
            return Ok(ExitCode::from(EXIT_CHECK_FAILED));
        }
        other => other?,
    };
    if args.json {
        println!("{expansion}");
    } else {
        for t in expansion["events"].as_array().into_iter().flatten() {
            println!(
                "[seq {} | {} | session {} turn {} | {}]",
                t["seq"],
                t["ts"].as_str().unwrap_or_default(),
                neutralize_line(t["session"].as_str().unwrap_or_default()),
                t["turn"],
                t["role"].as_str().unwrap_or_default()
            );
            println!("{}", neutralize(t["content"].as_str().unwrap_or_default()));
        }
        println!(
            "verified: content hash and HMAC of memory {} match",
            expansion["id"].as_str().unwrap_or_default()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The scope letter's store name of a qualified id (`p:2` -> `project`).
fn scope_of_id(id: &str) -> &'static str {
    match id.split_once(':').map(|(letter, _)| letter) {
        Some("u") => "user",
        Some("p") => "project",
        _ => "store",
    }
}

pub fn purge(ctx: &Context, args: &PurgeArgs) -> anyhow::Result<ExitCode> {
    let door = super::door::Door::open(ctx, &ctx.memory_stores()?)?;
    let target = match (&args.session, args.id) {
        (Some(session), _) => format!("/api/sessions/{}/purge", engram::client::encode(session)),
        (None, Some(id)) => memory_target(id, "purge", &[]),
        (None, None) => anyhow::bail!("name the memory to purge (ID) or --session S"),
    };
    let purged = door.post(&target, &args.request);
    door.finish()?;
    let purged = purged?;
    if args.json {
        println!("{purged}");
        return Ok(ExitCode::SUCCESS);
    }
    let purges = match purged["purges"].as_array() {
        Some(purges) => purges.clone(),
        None => vec![purged.clone()],
    };
    for purge in &purges {
        let memories: Vec<&str> = purge["memories"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let what = match (purged["session"].as_str(), purged["id"].as_str()) {
            (Some(session), _) => format!(
                "session {} in the {} store",
                neutralize_line(session),
                purge["store"].as_str().unwrap_or_default()
            ),
            (None, Some(id)) => format!("memory {id}"),
            (None, None) => "nothing".to_owned(),
        };
        println!(
            "purged {what} at seq {}: {} erased{}, the keys of {} events destroyed",
            purge["seq"],
            match memories.len() {
                1 => "1 memory".to_owned(),
                n => format!("{n} memories"),
            },
            if memories.is_empty() {
                String::new()
            } else {
                format!(" ({})", memories.join(", "))
            },
            purge["subjects"].as_array().map_or(0, Vec::len)
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn forget(ctx: &Context, args: &ForgetArgs) -> anyhow::Result<ExitCode> {
    let door = super::door::Door::open(ctx, &ctx.memory_stores()?)?;
    let request = ForgetRequest {
        reason: Some(args.reason.clone()),
        by: args.by,
        session: args.session.clone(),
    };
    let forgetting = door.post(&memory_target(args.id, "forget", &[]), &request);
    door.finish()?;
    let forgetting = forgetting?;
    let id = forgetting["id"].as_str().unwrap_or_default();
    let scope = scope_of_id(id);
    if args.json {
        println!("{forgetting}");
    } else if forgetting["already"].as_bool().unwrap_or_default() {
        println!(
            "memory {id} was already forgotten at seq {} ({scope} store)",
            forgetting["seq"]
        );
    } else {
        println!(
            "forgot memory {id} (tombstone at seq {} of the {scope} store; the log keeps the original words)",
            forgetting["seq"]
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn confirm(ctx: &Context, args: &ConfirmArgs) -> anyhow::Result<ExitCode> {
    let door = super::door::Door::open(ctx, &ctx.memory_stores()?)?;
    let request = ConfirmRequest {
        quote: args.quote.clone(),
        by: args.by,
        session: args.session.clone(),
    };
    let confirmation = door.post(&memory_target(args.id, "confirm", &[]), &request);
    door.finish()?;
    let confirmation = confirmation?;
    let id = confirmation["id"].as_str().unwrap_or_default();
    let scope = scope_of_id(id);
    let valid = confirmation["valid"].as_bool().unwrap_or_default();
    if args.json {
        println!("{confirmation}");
    } else if valid {
        println!(
            "confirmed: the quote occurs in memory {id}'s source (trust now {:.2})",
            confirmation["trust"].as_f64().unwrap_or_default()
        );
    } else {
        println!(
            "not confirmed: the quote does not occur in memory {id}'s source (recorded at seq {} of the {scope} store)",
            confirmation["seq"]
        );
    }
    Ok(if valid {
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
    let door = super::door::Door::open(ctx, &[&ctx.store])?;
    eprintln!("engram: embedding every memory that has no vector yet...");
    let answer = door.call("POST", "/api/reembed", None);
    door.finish()?;
    let answer = answer?;
    if args.json {
        println!("{answer}");
    } else {
        println!(
            "added {} vectors of {}; recall is {}",
            answer["added"],
            answer["model"].as_str().unwrap_or_default(),
            answer["mode"].as_str().unwrap_or_default()
        );
    }
    Ok(ExitCode::SUCCESS)
}

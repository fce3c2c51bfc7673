//! `engram remember | recall | expand | forget | confirm`: the memory seam
//! on the command line. `--json` prints one JSON object; exit 0 success, 1
//! nothing found, 2 error.

use std::io::Read as _;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::ValueEnum;
use engram::engine::Engram;
use engram::log::{Actor, MemoryId, MemoryRef, Role, Scope, Source, Tier};
use engram::{Content, Hit, MemoryMeta, Outcome, RecallQuery, Remember, Subject};
use engram_queries::context::context_block;
use serde_json::{Value, json};

use super::{Context, EXIT_CHECK_FAILED};

/// Who acts, as a flag value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ActorArg {
    User,
    Model,
}

impl ActorArg {
    pub fn actor(self) -> Actor {
        match self {
            ActorArg::User => Actor::User,
            ActorArg::Model => Actor::Model,
        }
    }
}

/// A tier, as a flag value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TierArg {
    L1,
    L2,
    L3,
    L4,
}

impl TierArg {
    fn tier(self) -> Tier {
        match self {
            TierArg::L1 => Tier::L1,
            TierArg::L2 => Tier::L2,
            TierArg::L3 => Tier::L3,
            TierArg::L4 => Tier::L4,
        }
    }
}

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
    tier: TierArg,
    /// Who is saving it: the user (default) or a model.
    #[arg(long, value_enum, default_value = "user")]
    by: ActorArg,
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
    tier: Option<TierArg>,
    /// Only memories carrying every one of these tags.
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    tags: Vec<String>,
    /// The caller's session: its session-only memories are included.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Most hits (1-100).
    #[arg(long, value_name = "K", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100))]
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
    /// Memory id (the seq of its `remembered` event).
    id: MemoryId,
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
    /// Memory id.
    id: MemoryId,
    /// Why (recorded in the tombstone).
    #[arg(long, value_name = "TEXT", default_value = "")]
    reason: String,
    /// Who forgets: the user (default) or a model.
    #[arg(long, value_enum, default_value = "user")]
    by: ActorArg,
    /// The caller's session (needed for session-only memories).
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Print one JSON object: id, seq, already.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct ConfirmArgs {
    /// Memory id.
    id: MemoryId,
    /// Words that must occur in the memory's source.
    quote: String,
    /// Who confirms.
    #[arg(long, value_enum, default_value = "user")]
    by: ActorArg,
    /// The caller's session (needed for session-only memories).
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Print one JSON object: id, seq, valid, trust.
    #[arg(long)]
    json: bool,
}

fn subject(by: ActorArg, session: Option<&String>) -> Subject {
    Subject {
        actor: by.actor(),
        session: session.cloned(),
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
        Role::System => "system",
        Role::Note => "note",
    }
}

fn tier_name(tier: Tier) -> &'static str {
    match tier {
        Tier::L1 => "l1",
        Tier::L2 => "l2",
        Tier::L3 => "l3",
        Tier::L4 => "l4",
    }
}

#[derive(Debug, serde::Deserialize)]
struct BatchFile {
    items: Vec<BatchItem>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct BatchItem {
    content: String,
    #[serde(default)]
    room: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    summary: Option<String>,
}

fn receipt_json(ctx: &Context, receipt: &engram::Receipt) -> Value {
    let reference = receipt.reference.as_ref();
    json!({
        "id": receipt.id,
        "coordinate": receipt.coordinate,
        "outcome": receipt.outcome.as_str(),
        "related": receipt.related,
        "reason": receipt.reason,
        "uniqueness": f64::from(receipt.uniqueness_permille) / 1000.0,
        "scope": ctx.scope,
        "session": reference.map(|r| r.session.clone()),
        "first_seq": reference.map(|r| r.first_seq),
        "last_seq": reference.map(|r| r.last_seq),
    })
}

fn remember_items(
    ctx: &Context,
    args: &RememberArgs,
    path: &std::path::Path,
) -> anyhow::Result<ExitCode> {
    let bytes = if path.as_os_str() == "-" {
        let mut buffer = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buffer)
            .context("reading standard input")?;
        buffer
    } else {
        std::fs::read(path).with_context(|| format!("reading {}", path.display()))?
    };
    let batch: BatchFile = serde_json::from_slice(&bytes).with_context(|| {
        format!(
            "{}: expected {{\"items\": [{{\"content\": ...}}]}}",
            path.display()
        )
    })?;
    anyhow::ensure!(!batch.items.is_empty(), "the batch holds no items");
    let requests: Vec<Remember> = batch
        .items
        .into_iter()
        .map(|item| Remember {
            content: Content::Text {
                text: item.content,
                session: args.session.clone(),
            },
            meta: MemoryMeta {
                summary: item.summary,
                tags: item.tags,
                room: item.room.or_else(|| args.room.clone()),
                source: match args.by {
                    ActorArg::User => Source::User,
                    ActorArg::Model => Source::Model,
                },
                ..MemoryMeta::default()
            },
            subject: subject(args.by, args.session.as_ref()),
        })
        .collect();
    let engram = super::model::attach(
        Engram::open(ctx.store.clone(), &ctx.options())?,
        super::model::load(),
    );
    let results = engram.remember_batch(&requests);
    engram.close()?;
    let mut failed = 0;
    let results: Vec<Value> = results
        .iter()
        .map(|r| match r {
            Ok(receipt) => receipt_json(ctx, receipt),
            Err(e) => {
                failed += 1;
                json!({"outcome": "error", "error": e.to_string()})
            }
        })
        .collect();
    if args.json {
        println!("{}", json!({ "results": results }));
    } else {
        for (i, r) in results.iter().enumerate() {
            println!(
                "item {}: {} {}",
                i + 1,
                r["outcome"].as_str().unwrap_or_default(),
                r.get("id").map(Value::to_string).unwrap_or_default()
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
                let mut buffer = Vec::new();
                std::io::stdin()
                    .read_to_end(&mut buffer)
                    .context("reading standard input")?;
                String::from_utf8(buffer).context("standard input is not UTF-8")?
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
            tier: args.tier.tier(),
            room: args.room.clone(),
            source: match args.by {
                ActorArg::User => Source::User,
                ActorArg::Model => Source::Model,
            },
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
        println!("{}", receipt_json(ctx, &receipt));
    } else {
        let at = receipt.coordinate.as_deref().unwrap_or_default();
        let id = receipt.id.unwrap_or_default();
        let related = receipt.related.unwrap_or_default();
        let reason = receipt.reason.as_deref().unwrap_or_default();
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

fn hit_json(scope: &str, hit: &Hit) -> Value {
    json!({
        "id": hit.id,
        "coordinate": hit.coordinate,
        "score": (hit.score * 1e4).round() / 1e4,
        "text": hit.text,
        "trust": hit.trust,
        "status": hit.status,
        "scope": scope,
        "tier": tier_name(hit.tier),
        "room": hit.room,
        "tags": hit.tags,
        "summary": hit.summary,
        "cues": hit.cues.iter().map(|c| json!({
            "id": c.id,
            "coordinate": c.coordinate,
            "label": c.label,
        })).collect::<Vec<_>>(),
    })
}

pub fn recall(ctx: &Context, args: &RecallArgs) -> anyhow::Result<ExitCode> {
    let query = RecallQuery {
        text: args.query.clone(),
        room: args.room.clone(),
        tier: args.tier.map(TierArg::tier),
        tags: args.tags.clone(),
        session: args.session.clone(),
        limit: args.limit as usize,
    };
    // Every store recalls on its own (and records its own `Recalled`);
    // hits are merged by score, ties to the primary store.
    let mut hits: Vec<(usize, &'static str, Hit)> = Vec::new();
    let model = if ctx.recall_stores.iter().any(|(_, s)| s.has_log()) {
        super::model::load()
    } else {
        None
    };
    // Hybrid only when every store searched ran hybrid.
    let mut hybrid = model.is_some();
    for (rank, (scope, store)) in ctx.recall_stores.iter().enumerate() {
        if !store.has_log() {
            continue;
        }
        let engram = Engram::open(store.clone(), &ctx.options())
            .with_context(|| format!("opening the {scope} store {}", store.dir().display()))?;
        let engram = super::model::attach(engram, model.clone());
        let found = engram.recall(&query);
        hybrid &= engram.last_recall_mode() == engram::RecallMode::Hybrid;
        engram.close()?;
        hits.extend(found?.into_iter().map(|hit| (rank, *scope, hit)));
    }
    let mode = if hybrid { "hybrid" } else { "keyword" };
    hits.sort_by(|a, b| {
        b.2.score
            .total_cmp(&a.2.score)
            .then(a.0.cmp(&b.0))
            .then(a.2.id.cmp(&b.2.id))
    });
    hits.truncate(args.limit as usize);
    let format = if args.json {
        RecallFormat::Json
    } else {
        args.format
    };
    match format {
        RecallFormat::Json => {
            let hits: Vec<Value> = hits
                .iter()
                .map(|(_, scope, hit)| hit_json(scope, hit))
                .collect();
            println!("{}", json!({ "hits": hits, "mode": mode }));
        }
        RecallFormat::Context => {
            let hits: Vec<Hit> = hits.iter().map(|(_, _, hit)| hit.clone()).collect();
            print!("{}", context_block(&hits));
        }
        RecallFormat::Text => {
            if hits.is_empty() {
                println!("no memory matches {:?}", args.query);
            }
            for (_, scope, hit) in &hits {
                println!(
                    "memory {} at {} ({scope}, score {:.3}, trust {:.2})",
                    hit.id, hit.coordinate, hit.score, hit.trust
                );
                for line in hit.text.lines() {
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
    let engram = ctx.open_existing()?;
    let expansion = engram.expand_as(
        args.id,
        &subject(ActorArg::User, args.session.as_ref()),
        args.audit,
    );
    engram.close()?;
    let expansion = expansion?;
    if args.json {
        let events: Vec<Value> = expansion
            .turns
            .iter()
            .map(|t| {
                json!({
                    "seq": t.seq,
                    "ts": super::format_ts(t.ts_ms),
                    "session": t.session,
                    "turn": t.turn,
                    "role": role_name(t.role),
                    "content": t.content,
                })
            })
            .collect();
        println!(
            "{}",
            json!({
                "id": expansion.id,
                "events": events,
                "verified": expansion.verified,
                "status": format!("{:?}", expansion.status).to_lowercase(),
            })
        );
    } else {
        for t in &expansion.turns {
            println!(
                "[seq {} | {} | session {} turn {} | {}]",
                t.seq,
                super::format_ts(t.ts_ms),
                t.session,
                t.turn,
                role_name(t.role)
            );
            println!("{}", t.content);
        }
        println!(
            "verified: content hash and HMAC of memory {} match",
            expansion.id
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn forget(ctx: &Context, args: &ForgetArgs) -> anyhow::Result<ExitCode> {
    let engram = ctx.open_existing()?;
    let result = engram.forget(
        args.id,
        &subject(args.by, args.session.as_ref()),
        &args.reason,
    );
    engram.close()?;
    let forgetting = result?;
    if args.json {
        println!(
            "{}",
            json!({"id": forgetting.id, "seq": forgetting.seq, "already": forgetting.already})
        );
    } else if forgetting.already {
        println!(
            "memory {} was already forgotten at seq {}",
            forgetting.id, forgetting.seq
        );
    } else {
        println!(
            "forgot memory {} (tombstone at seq {}; the log keeps the original words)",
            forgetting.id, forgetting.seq
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn confirm(ctx: &Context, args: &ConfirmArgs) -> anyhow::Result<ExitCode> {
    let engram = ctx.open_existing()?;
    let result = engram.confirm(
        args.id,
        &subject(args.by, args.session.as_ref()),
        &args.quote,
    );
    engram.close()?;
    let confirmation = result?;
    if args.json {
        println!(
            "{}",
            json!({
                "id": confirmation.id,
                "seq": confirmation.seq,
                "valid": confirmation.valid,
                "trust": confirmation.trust,
            })
        );
    } else if confirmation.valid {
        println!(
            "confirmed: the quote occurs in memory {}'s source (trust now {:.2})",
            confirmation.id, confirmation.trust
        );
    } else {
        println!(
            "not confirmed: the quote does not occur in memory {}'s source (recorded at seq {})",
            confirmation.id, confirmation.seq
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
            json!({"model": model.model_id(), "added": added, "mode": mode.as_str()})
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

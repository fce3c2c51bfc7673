//! `engram tier`, `engram workspace` and `engram l0`: moving a memory
//! between tiers by hand, recording the workspace's documents as L2
//! memories, and the L0 block a harness puts into every prompt. Each
//! sends a request type of `engram::api` through the door, like every
//! memory command.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use engram::api::{By, IdArg, TierName, TierRequest, WorkspaceDocument, WorkspaceRequest};
use engram_commands::workspace::{DOCUMENT_BYTES_MAX, DOCUMENTS_MAX, document_text};
use serde_json::Value;

use super::Context;
use super::door::Door;

#[derive(Debug, clap::Args)]
pub struct TierArgs {
    /// Memory id as recall shows it (`p:2`, `u:2`; a bare number only
    /// where one store has it).
    #[arg(allow_negative_numbers = true)]
    id: IdArg,
    /// The tier to move it to: l1 (its session), l3 (cross-session), l4
    /// (the archive; out of l4 it is live again). l2 holds workspace
    /// documents, which move only when their file changes.
    #[arg(value_enum)]
    tier: TierName,
    /// Why (kept in the log's `tier_changed` event).
    #[arg(long, default_value = "")]
    reason: String,
    /// Who moves it (a model cannot archive what the user said).
    #[arg(long, value_enum, default_value = "user")]
    by: By,
    /// Print one JSON object: id, from, to, seq.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct WorkspaceArgs {
    /// The workspace root (default: the git repository around the working
    /// directory, else the working directory). Its AGENTS.md, CLAUDE.md,
    /// README* and the text documents under docs/ (.md, .markdown, .txt,
    /// .rst, .adoc) are recorded.
    root: Option<PathBuf>,
    /// Print one JSON object: {"documents": [{path, outcome, memories,
    /// superseded}]}.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct L0Args {
    /// Print one JSON object: rooms, rooms_left_out, profile, facts and
    /// the block.
    #[arg(long)]
    json: bool,
}

/// A text field of an answer ("" when missing), made safe for a
/// terminal (control characters shown escaped).
fn text<'a>(value: &'a Value, field: &str) -> std::borrow::Cow<'a, str> {
    engram_text::display::neutralize_line(value[field].as_str().unwrap_or_default())
}

pub fn tier(ctx: &Context, args: &TierArgs) -> anyhow::Result<ExitCode> {
    let door = Door::open(ctx, &ctx.memory_stores()?)?;
    let request = TierRequest {
        tier: args.tier,
        reason: (!args.reason.is_empty()).then(|| args.reason.clone()),
        by: args.by,
    };
    let moved = door.post(
        &engram::client::memory_target(args.id, "tier", &[]),
        &request,
    );
    door.finish()?;
    let moved = moved?;
    if args.json {
        println!("{moved}");
    } else {
        println!(
            "moved memory {} from {} to {}",
            text(&moved, "id"),
            text(&moved, "from"),
            text(&moved, "to")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Extensions of the text documents taken from `docs/`.
const DOC_EXTENSIONS: [&str; 5] = ["md", "markdown", "txt", "rst", "adoc"];
/// How deep under `docs/` documents are looked for.
const DOCS_DEPTH_MAX: usize = 4;

/// The workspace's documents, relative paths in order: AGENTS.md,
/// CLAUDE.md, README* at the root, then docs/ depth first by name.
fn discover(root: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut top: Vec<PathBuf> = std::fs::read_dir(root)
        .with_context(|| format!("reading {}", root.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|name| {
                name == "AGENTS.md" || name == "CLAUDE.md" || name.starts_with("README")
            })
        })
        .collect();
    top.sort();
    found.extend(top);
    fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
        if depth > DOCS_DEPTH_MAX || !dir.is_dir() {
            return Ok(());
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .with_context(|| format!("reading {}", dir.display()))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| !n.starts_with('.'))
            })
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, depth + 1, out)?;
            } else if path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| DOC_EXTENSIONS.contains(&e.to_lowercase().as_str()))
            {
                out.push(path);
            }
        }
        Ok(())
    }
    walk(&root.join("docs"), 0, &mut found)?;
    Ok(found
        .into_iter()
        .filter_map(|p| p.strip_prefix(root).ok().map(Path::to_path_buf))
        .collect())
}

pub fn workspace(ctx: &Context, args: &WorkspaceArgs) -> anyhow::Result<ExitCode> {
    let root = match &args.root {
        Some(root) => root.clone(),
        None => {
            let cwd = std::env::current_dir().context("reading the working directory")?;
            engram::scope::project_identity(&cwd)?.map_or(cwd, |p| p.root)
        }
    };
    let paths = discover(&root)?;
    if paths.len() > DOCUMENTS_MAX {
        anyhow::bail!(
            "{} has {} workspace documents, over the limit of {DOCUMENTS_MAX}",
            root.display(),
            paths.len()
        );
    }
    // Every document is read and checked before anything is sent: a bad
    // one changes nothing.
    let mut documents = Vec::with_capacity(paths.len());
    for relative in &paths {
        let path = relative
            .to_str()
            .ok_or_else(|| anyhow::anyhow!("{} is not a UTF-8 path", relative.display()))?
            .replace(std::path::MAIN_SEPARATOR, "/");
        let file = root.join(relative);
        let bytes = std::fs::metadata(&file)
            .with_context(|| format!("reading {}", file.display()))?
            .len();
        if bytes > DOCUMENT_BYTES_MAX as u64 {
            return Err(engram_commands::workspace::WorkspaceError::TooLarge {
                path,
                bytes: usize::try_from(bytes).unwrap_or(usize::MAX),
                max: DOCUMENT_BYTES_MAX,
            }
            .into());
        }
        let content =
            std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
        let content = document_text(&path, content)?;
        documents.push(WorkspaceDocument { path, content });
    }
    let request = WorkspaceRequest {
        documents,
        by: By::User,
    };
    request.validate()?;
    let door = Door::open(ctx, &[&ctx.store])?;
    let answer = door.post("/api/workspace", &request);
    door.finish()?;
    let answer = answer?;
    if args.json {
        println!("{answer}");
        return Ok(ExitCode::SUCCESS);
    }
    let documents = answer["documents"].as_array().cloned().unwrap_or_default();
    if documents.is_empty() {
        println!(
            "no workspace documents under {} (AGENTS.md, CLAUDE.md, README*, docs/)",
            root.display()
        );
    }
    for d in &documents {
        let ids = |field: &str| -> String {
            d[field]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match d["outcome"].as_str().unwrap_or_default() {
            "unchanged" => println!("{}: unchanged", text(d, "path")),
            "changed" => println!(
                "{}: changed; recorded {} (superseded {})",
                text(d, "path"),
                ids("memories"),
                ids("superseded")
            ),
            _ => println!("{}: recorded {}", text(d, "path"), ids("memories")),
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn l0(ctx: &Context, args: &L0Args) -> anyhow::Result<ExitCode> {
    let with_log = ctx.recall_stores_with_log();
    let answer = if with_log.is_empty() {
        let block = engram_queries::l0::l0_block(&[], 0, &[], &[]);
        serde_json::json!({"rooms": [], "rooms_left_out": 0, "profile": [], "facts": [], "block": block})
    } else {
        let door = Door::open(ctx, &with_log)?;
        let answer = door.get("/api/l0");
        door.finish()?;
        answer?
    };
    if args.json {
        println!("{answer}");
    } else {
        // The block is escaped for a model: printed as it is.
        print!("{}", answer["block"].as_str().unwrap_or_default());
    }
    Ok(ExitCode::SUCCESS)
}

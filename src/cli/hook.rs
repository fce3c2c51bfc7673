//! `engram hook prompt` and `engram hook session-end`: memory in an agent
//! harness's loop. A harness runs them on its hook events with a JSON
//! payload on stdin (Claude Code's `UserPromptSubmit`, `Stop`, `SessionEnd`
//! and `PreCompact`; any harness that can run a command with `{"prompt"}` or
//! `{"transcript_path"}`).
//!
//! - `prompt` recalls for the prompt and prints the context block on stdout
//!   (Claude Code adds a hook's stdout to the prompt's context), or with
//!   `--json` the `hookSpecificOutput.additionalContext` form. Within a time
//!   budget; nothing is printed when nothing matches.
//! - `session-end` ingests the transcript at `transcript_path` with
//!   extraction. Turns the session already holds are skipped, so a hook that
//!   runs at every stop adds only what is new.
//!
//! A hook never blocks the harness: a failure prints nothing on stdout,
//! explains itself on stderr and in `hook.log` beside the owner's socket,
//! and exits 1 (a non-blocking error to Claude Code; never 2, which would
//! block the prompt or the stop).

use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use engram::api::RecallRequest;
use serde_json::Value;

use super::{Args, Context};

/// Most bytes of a hook payload read from stdin: a prompt with a pasted
/// file is fine, an endless stream is refused.
pub const HOOK_PAYLOAD_BYTES_MAX: u64 = 4 * 1024 * 1024;
/// Characters of the prompt a recall searches with: a prompt's start says
/// what it is about; a pasted log past it would only slow the search.
pub const HOOK_QUERY_CHARS_MAX: usize = 2_000;
/// Bytes `hook.log` may reach before it is rotated to `hook.log.1`.
const HOOK_LOG_BYTES_MAX: u64 = 1024 * 1024;

#[derive(Debug, clap::Subcommand)]
#[command(defer = true)]
pub enum HookCommand {
    /// Recall for a prompt and print the context block for the model. Reads
    /// `{"prompt", "cwd"?, "session_id"?}` on stdin (Claude Code's
    /// UserPromptSubmit payload). Prints nothing when nothing matches.
    Prompt(PromptArgs),
    /// Ingest a session's transcript with extraction, adding only the turns
    /// the store does not hold yet. Reads `{"transcript_path", "cwd"?,
    /// "session_id"?}` on stdin (Claude Code's Stop, SessionEnd and
    /// PreCompact payloads).
    SessionEnd(SessionEndArgs),
}

#[derive(Debug, clap::Args)]
pub struct PromptArgs {
    /// Most memories in the block (1-100).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100))]
    limit: u32,
    /// Give up after this many milliseconds (printing nothing): a prompt
    /// never waits long for memory.
    #[arg(long, default_value_t = 2_000, value_name = "MS")]
    budget_ms: u64,
    /// Print Claude Code's JSON form:
    /// `{"hookSpecificOutput": {"hookEventName", "additionalContext"}}`.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct SessionEndArgs {
    /// Record the turns only, without proposing memories from them.
    #[arg(long)]
    no_extract: bool,
    /// Print the ingest's JSON answer.
    #[arg(long)]
    json: bool,
}

/// A harness's hook payload: the fields engram reads; others are ignored.
#[derive(Debug, serde::Deserialize)]
struct Payload {
    #[serde(default)]
    prompt: Option<String>,
    #[serde(default)]
    transcript_path: Option<PathBuf>,
    #[serde(default)]
    cwd: Option<PathBuf>,
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    hook_event_name: Option<String>,
}

/// Runs a hook. It builds its own [`Context`] from the payload's `cwd`, so
/// the project store is the one of the session's repository, wherever the
/// harness started the hook. A failure is reported, logged and exit 1.
pub fn run(mut args: Args) -> anyhow::Result<ExitCode> {
    let name = match &args.command {
        super::Command::Hook(HookCommand::Prompt(_)) => "prompt",
        _ => "session-end",
    };
    match run_hook(&mut args) {
        Ok(code) => Ok(code),
        Err(e) => {
            let message = format!("{e:#}");
            log_failure(&args, name, &message);
            eprintln!("engram hook {name}: {message}");
            Ok(ExitCode::from(super::EXIT_CHECK_FAILED))
        }
    }
}

fn run_hook(args: &mut Args) -> anyhow::Result<ExitCode> {
    let payload = read_payload()?;
    if let Some(cwd) = payload.cwd.as_deref().filter(|c| !c.as_os_str().is_empty()) {
        // Relative paths among the flags name files from where the hook ran.
        let here = std::env::current_dir().context("reading the working directory")?;
        for path in [&mut args.store, &mut args.key_file].into_iter().flatten() {
            *path = here.join(&*path);
        }
        std::env::set_current_dir(cwd)
            .with_context(|| format!("the payload's cwd {} is not a folder", cwd.display()))?;
    }
    let ctx = Context::resolve(args)?;
    if ctx.in_process {
        ctx.refuse_running_owner("--in-process")?;
    }
    match &args.command {
        super::Command::Hook(HookCommand::Prompt(a)) => prompt(ctx, &payload, a),
        super::Command::Hook(HookCommand::SessionEnd(a)) => session_end(&ctx, &payload, a),
        _ => anyhow::bail!("not a hook command"),
    }
}

fn read_payload() -> anyhow::Result<Payload> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(HOOK_PAYLOAD_BYTES_MAX + 1)
        .read_to_end(&mut bytes)
        .context("reading the hook payload on stdin")?;
    anyhow::ensure!(
        bytes.len() as u64 <= HOOK_PAYLOAD_BYTES_MAX,
        "the hook payload is over {} MiB (HOOK_PAYLOAD_BYTES_MAX)",
        HOOK_PAYLOAD_BYTES_MAX >> 20
    );
    anyhow::ensure!(
        !bytes.iter().all(u8::is_ascii_whitespace),
        "no hook payload on stdin: expected a JSON object such as {{\"prompt\": \"...\"}}"
    );
    serde_json::from_slice(&bytes).context("the hook payload is not a JSON object")
}

fn prompt(ctx: Context, payload: &Payload, args: &PromptArgs) -> anyhow::Result<ExitCode> {
    let prompt = payload
        .prompt
        .as_deref()
        .filter(|p| !p.trim().is_empty())
        .context("the hook payload has no \"prompt\"")?;
    let query: String = prompt.chars().take(HOOK_QUERY_CHARS_MAX).collect();
    let request = RecallRequest {
        query,
        room: None,
        tier: None,
        tags: Vec::new(),
        session: payload.session_id.clone(),
        limit: Some(args.limit),
        min_score: None,
    };
    // The recall runs on its own thread so the budget holds even while an
    // owner starts: past it, the hook gives up and the thread ends with the
    // process.
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(recall(&ctx, &request));
    });
    let answer = match receiver.recv_timeout(Duration::from_millis(args.budget_ms)) {
        Ok(answer) => answer?,
        Err(_) => anyhow::bail!(
            "no answer within {} ms (--budget-ms): the prompt goes on without memory",
            args.budget_ms
        ),
    };
    let hits = answer["hits"].as_array().map_or(0, Vec::len);
    if hits == 0 {
        return Ok(ExitCode::SUCCESS);
    }
    let block = answer["context"].as_str().unwrap_or_default();
    let mut stdout = std::io::stdout().lock();
    if args.json {
        let out = serde_json::json!({
            "hookSpecificOutput": {
                "hookEventName": payload.hook_event_name.as_deref().unwrap_or("UserPromptSubmit"),
                "additionalContext": block,
            }
        });
        writeln!(stdout, "{out}")?;
    } else {
        write!(stdout, "{block}")?;
    }
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// A recall over the context's stores that hold a log (no store is created
/// by a prompt).
fn recall(ctx: &Context, request: &RecallRequest) -> anyhow::Result<Value> {
    let with_log = ctx.recall_stores_with_log();
    if with_log.is_empty() {
        return Ok(serde_json::json!({"hits": []}));
    }
    let door = super::door::Door::open(ctx, &with_log)?;
    let answer = door.post("/api/recall", request);
    door.finish()?;
    Ok(answer?)
}

fn session_end(
    ctx: &Context,
    payload: &Payload,
    args: &SessionEndArgs,
) -> anyhow::Result<ExitCode> {
    let path = payload
        .transcript_path
        .as_deref()
        .filter(|p| !p.as_os_str().is_empty())
        .context("the hook payload has no \"transcript_path\"")?;
    anyhow::ensure!(
        path.is_file(),
        "the transcript {} does not exist",
        path.display()
    );
    // Skip bad lines: a harness's newer line kinds never lose the rest.
    let ingested = super::ingest::ingest_file(
        ctx,
        path,
        payload.session_id.as_deref(),
        true,
        !args.no_extract,
    )?;
    if args.json {
        println!("{ingested}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Appends a failure to `hook.log` beside the owner's socket (the engram
/// home, or the `--store` folder), rotated past [`HOOK_LOG_BYTES_MAX`].
/// Best effort: a hook that cannot log still exits quietly.
fn log_failure(args: &Args, hook: &str, message: &str) {
    let dir = match &args.store {
        Some(store) => store.clone(),
        None => match engram::scope::engram_home() {
            Ok(home) => home,
            Err(_) => return,
        },
    };
    if !dir.is_dir() {
        return;
    }
    let log = dir.join("hook.log");
    if std::fs::metadata(&log).is_ok_and(|m| m.len() > HOOK_LOG_BYTES_MAX) {
        let _ = std::fs::rename(&log, dir.join("hook.log.1"));
    }
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    if let Ok(mut file) = options.open(&log) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let line = engram_text::display::neutralize_line(message);
        let _ = writeln!(file, "{} hook {hook}: {line}", super::format_ts(now));
    }
}

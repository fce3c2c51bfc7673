//! `engram install HARNESS` and `engram uninstall HARNESS`: write engram's
//! MCP server entry (and, for Claude Code, its hooks) into a harness's
//! settings files, and take them out again.
//!
//! - **Merged, never overwritten.** A settings file is read as JSON and
//!   only engram's entries are added or removed; a file that is not a JSON
//!   object is refused and left untouched.
//! - **Idempotent and reversible.** Installing twice changes nothing (exit
//!   1, "already installed"); uninstalling restores each file byte for byte
//!   when nothing else changed since the install (the bytes it had are kept
//!   in `FILE.engram-backup` until then), and removes a file the install
//!   created once engram's entries were all it held.
//! - A file is replaced atomically (written beside it, then renamed).
//!
//! Files, per harness and place:
//!
//! | harness | `--project` (default) | `--user` |
//! | --- | --- | --- |
//! | claude-code | `.mcp.json`, `.claude/settings.json` | `~/.claude.json`, `~/.claude/settings.json` |
//! | cursor | `.cursor/mcp.json` | `~/.cursor/mcp.json` |
//!
//! The project is the git repository of the working directory (its root),
//! else the working directory.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use serde_json::{Map, Value, json};

/// The key of engram's entry under `mcpServers`.
const SERVER_NAME: &str = "engram";
/// Claude Code's hook events engram listens to, with the command for each.
const CLAUDE_HOOKS: [(&str, &str); 4] = [
    ("UserPromptSubmit", "hook prompt"),
    ("Stop", "hook session-end"),
    ("SessionEnd", "hook session-end"),
    ("PreCompact", "hook session-end"),
];
/// Most bytes of a settings file read.
const SETTINGS_BYTES_MAX: u64 = 16 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Harness {
    /// Claude Code: the MCP server and the prompt and session-end hooks.
    ClaudeCode,
    /// Cursor: the MCP server.
    Cursor,
}

#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    /// The harness to set up.
    #[arg(value_enum)]
    harness: Harness,
    /// The project's settings (the git repository of the working
    /// directory, else the working directory). The default.
    #[arg(long, conflicts_with = "user")]
    project: bool,
    /// The user's settings, for every project.
    #[arg(long)]
    user: bool,
    /// Print what would change, change nothing.
    #[arg(long)]
    dry_run: bool,
}

/// One settings file and engram's entries in it.
struct Target {
    path: PathBuf,
    kind: Entries,
}

#[derive(Clone, Copy)]
enum Entries {
    /// `mcpServers.engram`.
    McpServer,
    /// Claude Code's `hooks`.
    ClaudeHooks,
}

/// What to do to one file, decided for every file before any is written,
/// so a file that cannot be read or merged changes none.
enum Change {
    /// Write these bytes, keeping the old ones (if any) in the backup.
    Write {
        path: PathBuf,
        bytes: Vec<u8>,
        backup: Option<Vec<u8>>,
    },
    /// Put the file back as the backup holds it and drop the backup.
    Restore { path: PathBuf, saved: Vec<u8> },
    /// Remove the file (engram made it and was all it held).
    Remove { path: PathBuf },
}

pub fn install(args: &InstallArgs) -> anyhow::Result<ExitCode> {
    let command = engram_command();
    let mut changes = Vec::new();
    for target in targets(args)? {
        let (before, bytes) = read_settings(&target.path)?;
        let mut after = before.clone().unwrap_or_else(|| Value::Object(Map::new()));
        add_entries(&mut after, target.kind, &command)
            .with_context(|| format!("{}", target.path.display()))?;
        if before.as_ref() == Some(&after) {
            println!("{}: engram is already there", target.path.display());
            continue;
        }
        changes.push(Change::Write {
            path: target.path,
            bytes: pretty(&after)?,
            backup: bytes,
        });
    }
    if changes.is_empty() {
        eprintln!(
            "engram is already installed for {}: nothing changed",
            name(args.harness)
        );
        return Ok(ExitCode::from(super::EXIT_CHECK_FAILED));
    }
    apply(changes, args.dry_run)?;
    Ok(ExitCode::SUCCESS)
}

pub fn uninstall(args: &InstallArgs) -> anyhow::Result<ExitCode> {
    let mut changes = Vec::new();
    for target in targets(args)? {
        let (Some(before), Some(bytes)) = read_settings(&target.path)? else {
            continue;
        };
        let mut after = before.clone();
        remove_entries(&mut after, target.kind);
        if after == before {
            continue;
        }
        let saved = std::fs::read(backup_path(&target.path)).ok();
        let unchanged_since = saved
            .as_deref()
            .and_then(|saved| serde_json::from_slice::<Value>(saved).ok())
            .is_some_and(|saved| saved == after);
        changes.push(match saved {
            // Nothing else changed since the install: the file as it was.
            Some(saved) if unchanged_since => Change::Restore {
                path: target.path,
                saved,
            },
            // The install made the file, and engram was all it held.
            None if after == Value::Object(Map::new()) => Change::Remove { path: target.path },
            _ => Change::Write {
                path: target.path,
                bytes: pretty(&after)?,
                backup: Some(bytes),
            },
        });
    }
    if changes.is_empty() {
        eprintln!(
            "engram is not installed for {}: nothing changed",
            name(args.harness)
        );
        return Ok(ExitCode::from(super::EXIT_CHECK_FAILED));
    }
    apply(changes, args.dry_run)?;
    Ok(ExitCode::SUCCESS)
}

fn apply(changes: Vec<Change>, dry_run: bool) -> anyhow::Result<()> {
    let would = if dry_run { "would be " } else { "" };
    for change in changes {
        match change {
            Change::Write {
                path,
                bytes,
                backup,
            } => {
                if !dry_run {
                    if let Some(old) = &backup {
                        write_atomically(&backup_path(&path), old)?;
                    }
                    write_atomically(&path, &bytes)?;
                }
                let kept = match backup {
                    Some(_) => format!(" (the file as it was: {})", backup_path(&path).display()),
                    None => String::new(),
                };
                println!("{}: {would}changed{kept}", path.display());
            }
            Change::Restore { path, saved } => {
                if !dry_run {
                    write_atomically(&path, &saved)?;
                    let backup = backup_path(&path);
                    std::fs::remove_file(&backup)
                        .with_context(|| format!("removing {}", backup.display()))?;
                }
                println!(
                    "{}: {would}restored as it was before engram",
                    path.display()
                );
            }
            Change::Remove { path } => {
                if !dry_run {
                    std::fs::remove_file(&path)
                        .with_context(|| format!("removing {}", path.display()))?;
                }
                println!("{}: {would}removed (engram made it)", path.display());
                if !dry_run {
                    // The folder install made for the file (`.claude`,
                    // `.cursor`) goes too when nothing else is in it; a
                    // folder holding anything stays (`remove_dir` refuses).
                    if let Some(folder) = path.parent()
                        && folder.read_dir().is_ok_and(|mut e| e.next().is_none())
                        && std::fs::remove_dir(folder).is_ok()
                    {
                        println!("{}: removed (left empty)", folder.display());
                    }
                }
            }
        }
    }
    Ok(())
}

fn name(harness: Harness) -> &'static str {
    match harness {
        Harness::ClaudeCode => "claude-code",
        Harness::Cursor => "cursor",
    }
}

fn targets(args: &InstallArgs) -> anyhow::Result<Vec<Target>> {
    let base = if args.user {
        std::env::home_dir()
            .filter(|h| !h.as_os_str().is_empty())
            .context("no home directory for --user settings")?
    } else {
        let cwd = std::env::current_dir().context("reading the working directory")?;
        engram::scope::project_identity(&cwd)?.map_or(cwd, |p| p.root)
    };
    let target = |path: PathBuf, kind| Target { path, kind };
    Ok(match (args.harness, args.user) {
        (Harness::ClaudeCode, false) => vec![
            target(base.join(".mcp.json"), Entries::McpServer),
            target(base.join(".claude/settings.json"), Entries::ClaudeHooks),
        ],
        (Harness::ClaudeCode, true) => vec![
            target(base.join(".claude.json"), Entries::McpServer),
            target(base.join(".claude/settings.json"), Entries::ClaudeHooks),
        ],
        (Harness::Cursor, _) => vec![target(base.join(".cursor/mcp.json"), Entries::McpServer)],
    })
}

/// How settings files name engram: `engram` when the one on the PATH is
/// this binary, else this binary's path.
fn engram_command() -> String {
    let me = std::env::current_exe().and_then(std::fs::canonicalize).ok();
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("engram"))
            .find(|candidate| candidate.is_file())
            .and_then(|found| std::fs::canonicalize(found).ok())
    });
    match (me, on_path) {
        (Some(me), Some(found)) if me == found => "engram".to_owned(),
        (Some(me), _) => me.to_string_lossy().into_owned(),
        (None, _) => "engram".to_owned(),
    }
}

/// A settings file as JSON and its bytes; `(None, None)` when it does not
/// exist. Anything but a JSON object is refused.
fn read_settings(path: &Path) -> anyhow::Result<(Option<Value>, Option<Vec<u8>>)> {
    let bytes = match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((None, None)),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        Ok(meta) if meta.len() > SETTINGS_BYTES_MAX => {
            anyhow::bail!(
                "{} is over {} MiB: not a settings file",
                path.display(),
                SETTINGS_BYTES_MAX >> 20
            )
        }
        Ok(_) => std::fs::read(path).with_context(|| format!("reading {}", path.display()))?,
    };
    let value: Value = serde_json::from_slice(&bytes).with_context(|| {
        format!(
            "{} is not valid JSON: fix it first (it was left untouched)",
            path.display()
        )
    })?;
    anyhow::ensure!(
        value.is_object(),
        "{} is not a JSON object: fix it first (it was left untouched)",
        path.display()
    );
    Ok((Some(value), Some(bytes)))
}

/// The object at `key` in `parent`, made when missing; an error when the
/// key holds something else.
fn object_at<'a>(parent: &'a mut Value, key: &str) -> anyhow::Result<&'a mut Map<String, Value>> {
    let Value::Object(map) = parent else {
        anyhow::bail!("expected a JSON object holding {key:?}");
    };
    map.entry(key.to_owned())
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .with_context(|| {
            format!("{key:?} is not a JSON object: fix it first (nothing was changed)")
        })
}

fn add_entries(settings: &mut Value, kind: Entries, command: &str) -> anyhow::Result<()> {
    match kind {
        Entries::McpServer => {
            let servers = object_at(settings, "mcpServers")?;
            if !servers.contains_key(SERVER_NAME) {
                servers.insert(
                    SERVER_NAME.to_owned(),
                    json!({"command": command, "args": ["mcp"]}),
                );
            }
        }
        Entries::ClaudeHooks => {
            let hooks = object_at(settings, "hooks")?;
            for (event, what) in CLAUDE_HOOKS {
                let line = format!("{command} {what}");
                let groups = hooks
                    .entry(event.to_owned())
                    .or_insert_with(|| Value::Array(Vec::new()))
                    .as_array_mut()
                    .with_context(|| {
                        format!(
                            "hooks.{event} is not a JSON array: fix it first (nothing was changed)"
                        )
                    })?;
                let present = groups.iter().any(|group| {
                    group["hooks"]
                        .as_array()
                        .is_some_and(|hs| hs.iter().any(|h| is_engram_hook(h, what)))
                });
                if !present {
                    groups.push(json!({"hooks": [{"type": "command", "command": line}]}));
                }
            }
        }
    }
    Ok(())
}

/// Whether `hook` runs `engram ... WHAT` (whatever path names engram).
fn is_engram_hook(hook: &Value, what: &str) -> bool {
    hook["command"].as_str().is_some_and(|c| {
        c.strip_suffix(what)
            .map(str::trim_end)
            .is_some_and(|program| program == "engram" || program.ends_with("/engram"))
    })
}

fn remove_entries(settings: &mut Value, kind: Entries) {
    let Value::Object(map) = settings else {
        return;
    };
    match kind {
        Entries::McpServer => {
            if let Some(Value::Object(servers)) = map.get_mut("mcpServers") {
                servers.remove(SERVER_NAME);
                if servers.is_empty() {
                    map.remove("mcpServers");
                }
            }
        }
        Entries::ClaudeHooks => {
            let Some(Value::Object(hooks)) = map.get_mut("hooks") else {
                return;
            };
            for (event, what) in CLAUDE_HOOKS {
                let Some(Value::Array(groups)) = hooks.get_mut(event) else {
                    continue;
                };
                for group in groups.iter_mut() {
                    if let Some(Value::Array(hs)) = group.get_mut("hooks") {
                        hs.retain(|h| !is_engram_hook(h, what));
                    }
                }
                groups.retain(|g| g["hooks"].as_array().is_none_or(|hs| !hs.is_empty()));
                if groups.is_empty() {
                    hooks.remove(event);
                }
            }
            if hooks.is_empty() {
                map.remove("hooks");
            }
        }
    }
}

fn pretty(value: &Value) -> anyhow::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value)?;
    bytes.push(b'\n');
    Ok(bytes)
}

fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".engram-backup");
    path.with_file_name(name)
}

/// Writes `bytes` to a file beside `path`, syncs it, and renames it over
/// `path`: a reader sees the old file or the new one, never half of one.
fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut file = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("writing beside {}", path.display()))?;
    // The file keeps its mode (a new one gets the umask's, as an editor's).
    let mode = match std::fs::metadata(path) {
        Ok(meta) => meta.permissions(),
        Err(_) => {
            let probe = dir.join(format!(".engram-mode-{}", std::process::id()));
            let made = std::fs::File::create(&probe).and_then(|f| f.metadata());
            let _ = std::fs::remove_file(&probe);
            made.with_context(|| format!("writing in {}", dir.display()))?
                .permissions()
        }
    };
    file.as_file().set_permissions(mode)?;
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(path)
        .with_context(|| format!("replacing {}", path.display()))?;
    Ok(())
}

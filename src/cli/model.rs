//! The sentence model: `engram model install NAME` and `engram model list`,
//! and the model the commands that embed (remember, recall, reembed,
//! stats) load.
//!
//! Which model runs: the folder `ENGRAM_MODEL_DIR` or `model_dir` in the
//! config file names, else the first model of the catalogue installed
//! under `<engram home>/models`
//! (`engram_embed::install::select_model_dir`), else none. Without a usable model the
//! commands run keyword-only, with one warning on stderr saying why.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use engram::config::Source;
use engram_embed::install::{
    HUB_ENV, KNOWN_MODELS, MODELS_DIR, ModelChoice, hub_url, install, installed_models,
    known_model, known_names, select_model_dir, verify_installed,
};
use engram_embed::{BertEmbedder, Embedder, MODEL_DIR_ENV};
use serde_json::json;

use super::Context;

/// The model, or `None` after printing why recall will be keyword-only.
pub fn load(ctx: &Context) -> Option<Arc<dyn Embedder>> {
    let setting = &ctx.settings.model_dir;
    let dir = if matches!(setting.source, Source::Default) {
        // The settings' default is already the first installed model of
        // the catalogue (`select_model_dir`), else the default's folder.
        let home = engram::scope::engram_home().ok()?;
        let dir = setting.value.clone();
        if !dir.exists() {
            eprintln!(
                "engram: warning: no embedding model in {}: recall is keyword-only (`engram model install {}`, set {MODEL_DIR_ENV} to a BERT-family model folder, or set model_dir in {})",
                home.join(MODELS_DIR).display(),
                engram_embed::DEFAULT_MODEL_NAME,
                ctx.settings.path.display()
            );
            return None;
        }
        dir
    } else {
        let dir = setting.value.clone();
        if dir.as_os_str().is_empty() {
            return None;
        }
        if !dir.exists() {
            eprintln!(
                "engram: warning: no embedding model at {}: recall is keyword-only (set by {})",
                dir.display(),
                setting.source
            );
            return None;
        }
        dir
    };
    match BertEmbedder::load(&dir) {
        Ok(model) => Some(Arc::new(model)),
        Err(e) => {
            eprintln!("engram: warning: {e}; recall is keyword-only");
            None
        }
    }
}

#[derive(Debug, clap::Subcommand)]
#[command(defer = true)]
pub enum ModelCommand {
    /// Download a named sentence model from its hub into the engram home
    /// (`<home>/models/NAME`), every file checked against the SHA-256
    /// pinned for its revision; nothing is installed unless all match.
    /// engram runs the first installed model of the catalogue (see `model
    /// list`) unless ENGRAM_MODEL_DIR names another folder. A running
    /// owner picks it up when it next starts (`engram daemon stop`).
    Install(InstallArgs),
    /// The catalogue and the models installed in the engram home, with the
    /// one engram runs.
    List(ListArgs),
}

#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    /// The model's name in the catalogue (`engram model list`).
    name: String,
    /// Download from this hub instead of Hugging Face (a mirror with the
    /// same `{hub}/{repo}/resolve/{revision}/{file}` layout).
    #[arg(long, value_name = "URL", env = HUB_ENV)]
    hub: Option<String>,
    /// Print one JSON object: name, dir, bytes, already.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Print one JSON object: {"models": [...], "in_use": ...}.
    #[arg(long)]
    json: bool,
}

pub fn run(command: &ModelCommand) -> anyhow::Result<ExitCode> {
    match command {
        ModelCommand::Install(a) => install_model(a),
        ModelCommand::List(a) => list(a),
    }
}

fn models_dir() -> anyhow::Result<(PathBuf, PathBuf)> {
    let home = engram::scope::engram_home().context("finding the engram home")?;
    let models = home.join(MODELS_DIR);
    Ok((home, models))
}

fn install_model(args: &InstallArgs) -> anyhow::Result<ExitCode> {
    let model = known_model(&args.name).with_context(|| {
        format!(
            "no model is called {:?}: the known models are {}",
            args.name,
            known_names()
        )
    })?;
    let hub = hub_url(args.hub.as_deref())?;
    let (_, models) = models_dir()?;
    let bar = super::progress_bar(model.bytes(), "download");
    let mut done_before: u64 = 0;
    let mut current = String::new();
    let mut last: u64 = 0;
    let installed = install(model, &models, &hub, &mut |path, got| {
        if path != current {
            done_before += last;
            current = path.to_owned();
        }
        last = got;
        bar.set_position(done_before + got);
    });
    bar.finish_and_clear();
    let installed = installed?;
    if args.json {
        println!(
            "{}",
            json!({
                "name": installed.name,
                "dir": installed.dir,
                "bytes": installed.bytes,
                "already": installed.already,
            })
        );
    } else if installed.already {
        println!(
            "{} is already installed in {} (every file verified)",
            installed.name,
            installed.dir.display()
        );
    } else {
        println!(
            "installed {} ({} MB, every file's SHA-256 verified) in {}",
            installed.name,
            installed.bytes.div_ceil(1_000_000),
            installed.dir.display()
        );
        println!(
            "a running owner uses it once restarted (`engram daemon stop`); `engram reembed` adds vectors to earlier memories"
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn list(args: &ListArgs) -> anyhow::Result<ExitCode> {
    let (home, models) = models_dir()?;
    let (in_use, choice) = select_model_dir(&home, None);
    let in_use = (choice != ModelChoice::Default).then_some(in_use);
    let installed = installed_models(&home);
    let mut rows = Vec::new();
    for model in KNOWN_MODELS {
        let dir = models.join(model.name);
        let present = installed.iter().any(|(name, _)| name == model.name);
        rows.push(json!({
            "name": model.name,
            "repo": model.repo,
            "revision": model.revision,
            "about": model.about,
            "bytes": model.bytes(),
            "installed": present,
            "verified": present && verify_installed(&dir, model),
            "dir": present.then_some(&dir),
        }));
    }
    for (name, dir) in &installed {
        if known_model(name).is_none_or(|m| m.name != name) {
            rows.push(json!({
                "name": name,
                "installed": true,
                "verified": false,
                "dir": dir,
            }));
        }
    }
    let choice = match choice {
        ModelChoice::Env => "env",
        ModelChoice::Named => "named",
        ModelChoice::Installed => "installed",
        ModelChoice::Default => "none",
    };
    if args.json {
        println!(
            "{}",
            json!({"models": rows, "in_use": in_use, "chosen_by": choice})
        );
        return Ok(ExitCode::SUCCESS);
    }
    for row in &rows {
        let name = row["name"].as_str().unwrap_or_default();
        let state = match (row["installed"].as_bool(), row["verified"].as_bool()) {
            (Some(true), Some(true)) => "installed, verified".to_owned(),
            (Some(true), _) if row["repo"].is_null() => {
                "installed (not from the catalogue)".to_owned()
            }
            (Some(true), _) => {
                "installed, files differ from the catalogue (install again)".to_owned()
            }
            _ => format!(
                "not installed ({} MB)",
                row["bytes"].as_u64().unwrap_or(0).div_ceil(1_000_000)
            ),
        };
        let about = row["about"]
            .as_str()
            .map(|a| format!(": {a}"))
            .unwrap_or_default();
        println!("{name}{about} [{state}]");
    }
    match (&in_use, choice) {
        (Some(dir), "env") => println!("in use: {} ({MODEL_DIR_ENV})", dir.display()),
        (Some(dir), _) => println!("in use: {}", dir.display()),
        _ => println!("in use: none (recall is keyword-only; `engram model install NAME`)"),
    }
    Ok(ExitCode::SUCCESS)
}

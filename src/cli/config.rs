//! `engram config`: every setting's effective value and where it came
//! from (a flag, an environment variable, the config file's key, or the
//! default). Secrets are never printed: a token shows as `hidden`, a
//! shared log's password as `***`.

use std::process::ExitCode;

use engram::config::{IDLE_DEFAULT, Setting, Source, durability_text, mask_password};
use serde_json::{Value, json};

use super::Context;

#[derive(Debug, clap::Args)]
pub struct ConfigArgs {
    /// Print one JSON object: {"file": {"path", "exists"}, "settings":
    /// {KEY: {"value", "source", "from"}}}; source is flag, env, file or
    /// default, from the flag, variable or `PATH:KEY` (null for a default).
    #[arg(long)]
    json: bool,
}

/// A setting as printed: its key in the config file, its value (JSON) and
/// its source.
struct Row {
    key: &'static str,
    value: Value,
    note: &'static str,
    source: Source,
}

fn row<T>(key: &'static str, setting: &Setting<T>, show: impl Fn(&T) -> Value) -> Row {
    Row {
        key,
        value: show(&setting.value),
        note: "",
        source: setting.source.clone(),
    }
}

fn duration(d: std::time::Duration) -> Value {
    Value::String(humantime::format_duration(d).to_string())
}

fn rows(ctx: &Context) -> Vec<Row> {
    let s = &ctx.settings;
    let mut idle = row("daemon.idle", &s.daemon_idle, |idle| {
        duration(idle.unwrap_or(IDLE_DEFAULT))
    });
    if s.daemon_idle.value.is_none() {
        idle.note = " (a detached daemon's; none in the foreground)";
    }
    vec![
        row("model_dir", &s.model_dir, |dir| {
            Value::String(dir.display().to_string())
        }),
        row("durability", &s.durability, |d| {
            Value::String(durability_text(*d))
        }),
        row("log", &s.log, |url| {
            url.as_ref().map_or(Value::Null, |url| {
                Value::String(mask_password(url.expose()))
            })
        }),
        idle,
        row("maintenance.every", &s.maintain_every, |every| {
            every.map_or_else(|| Value::String("off".to_owned()), duration)
        }),
        row("serve.token", &s.token, |token| {
            token
                .as_ref()
                .map_or(Value::Null, |_| Value::String("hidden".to_owned()))
        }),
    ]
}

fn source_json(source: &Source) -> (&'static str, Value) {
    match source {
        Source::Flag(flag) => ("flag", Value::String((*flag).to_owned())),
        Source::Env(var) => ("env", Value::String((*var).to_owned())),
        Source::File { path, key } => ("file", Value::String(format!("{}:{key}", path.display()))),
        Source::Default => ("default", Value::Null),
    }
}

pub fn run(ctx: &Context, args: &ConfigArgs) -> anyhow::Result<ExitCode> {
    let s = &ctx.settings;
    let rows = rows(ctx);
    if args.json {
        let mut settings = serde_json::Map::new();
        for r in &rows {
            let (source, from) = source_json(&r.source);
            settings.insert(
                r.key.to_owned(),
                json!({"value": r.value, "source": source, "from": from}),
            );
        }
        println!(
            "{}",
            json!({
                "file": {"path": s.path.display().to_string(), "exists": s.file_exists},
                "settings": settings,
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "config file: {}{}",
        s.path.display(),
        if s.file_exists { "" } else { " (none)" }
    );
    let width = rows.iter().map(|r| r.key.len()).max().unwrap_or(0);
    for r in &rows {
        let value = match &r.value {
            Value::String(text) => engram_text::display::neutralize_line(text).into_owned(),
            Value::Null => "(not set)".to_owned(),
            other => other.to_string(),
        };
        println!("{:width$}  {value}{}  [{}]", r.key, r.note, r.source);
    }
    Ok(ExitCode::SUCCESS)
}

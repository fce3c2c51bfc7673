//! The config file (`$ENGRAM_HOME/config.toml`) and `engram config`, run
//! as real processes.
//!
//! Invariants checked: a flag beats the environment, the environment beats
//! the file, the file beats the default, and `engram config --json` names
//! each value's source; an unknown key and a bad value are errors naming
//! the key and the file, and nothing is changed; a secret in a file others
//! can read is refused, and a secret is never printed; a daemon a client
//! starts takes its idle period and maintenance schedule from the file.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Every variable the settings read, cleared so the test's own are the
/// only ones.
const SETTINGS_ENV: &[&str] = &[
    "ENGRAM_CONFIG",
    "ENGRAM_MODEL_DIR",
    "ENGRAM_DURABILITY",
    "ENGRAM_LOG_URL",
    "ENGRAM_DAEMON_IDLE",
    "ENGRAM_MAINTAIN_EVERY",
    "ENGRAM_TOKEN",
    "ENGRAM_HMAC_KEY",
];

/// `engram --store HOME/store ARGS` with `home` as the engram home and only
/// the variables `env` sets.
fn engram_in(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_engram"));
    cmd.arg("--store")
        .arg(home.join("store"))
        .args(args)
        .current_dir(home)
        .env("ENGRAM_HOME", home);
    for name in SETTINGS_ENV {
        cmd.env_remove(name);
    }
    cmd.envs(env.iter().copied());
    cmd.output().unwrap()
}

fn write_config(home: &Path, text: &str, mode: u32) -> std::path::PathBuf {
    let path = home.join("config.toml");
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path
}

fn config_json(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Value {
    let mut all = args.to_vec();
    all.extend(["config", "--json"]);
    let out = engram_in(home, &all, env);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_flag_beats_the_environment_which_beats_the_file_which_beats_the_default() {
    let home = tempfile::tempdir().unwrap();
    let path = write_config(
        home.path(),
        "durability = \"interval:250ms\"\n\
         log = \"postgres://file@db.internal/engram\"\n\
         [daemon]\nidle = \"5m\"\n\
         [maintenance]\nevery = \"2h\"\n",
        0o600,
    );
    let env = [
        ("ENGRAM_DAEMON_IDLE", "30s"),
        ("ENGRAM_LOG_URL", "postgres://env@db.internal/engram"),
    ];
    let flag = ["--log", "postgres://flag:hunter2@db.internal/engram"];
    let shown = config_json(home.path(), &flag, &env);
    let settings = &shown["settings"];
    assert_eq!(shown["file"]["path"], path.display().to_string());
    assert_eq!(shown["file"]["exists"], true);
    // Flag over environment over file; the password is never printed.
    assert_eq!(settings["log"]["source"], "flag", "{shown}");
    assert_eq!(settings["log"]["from"], "--log");
    assert_eq!(
        settings["log"]["value"],
        "postgres://flag:***@db.internal/engram"
    );
    assert!(!shown.to_string().contains("hunter2"), "{shown}");
    // Environment over file.
    assert_eq!(settings["daemon.idle"]["source"], "env");
    assert_eq!(settings["daemon.idle"]["from"], "ENGRAM_DAEMON_IDLE");
    assert_eq!(settings["daemon.idle"]["value"], "30s");
    // File over default.
    assert_eq!(settings["maintenance.every"]["source"], "file");
    assert_eq!(
        settings["maintenance.every"]["from"],
        format!("{}:maintenance.every", path.display())
    );
    assert_eq!(settings["maintenance.every"]["value"], "2h");
    assert_eq!(settings["durability"]["value"], "interval:250ms");
    assert_eq!(settings["durability"]["source"], "file");
    // Defaults.
    assert_eq!(settings["serve.token"]["source"], "default");
    assert_eq!(settings["serve.token"]["value"], Value::Null);
    assert_eq!(settings["serve.token"]["from"], Value::Null);
    assert_eq!(
        settings["model_dir"]["value"],
        home.path()
            .join("models/bge-small-zh-v1.5")
            .display()
            .to_string()
    );

    // Without the flag the environment wins; without both the file does.
    let shown = config_json(home.path(), &[], &env);
    assert_eq!(shown["settings"]["log"]["source"], "env");
    let shown = config_json(home.path(), &[], &[]);
    assert_eq!(shown["settings"]["log"]["source"], "file");
    assert_eq!(shown["settings"]["daemon.idle"]["value"], "5m");

    // The text form names the same sources.
    let out = engram_in(home.path(), &["config"], &env);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("[env ENGRAM_DAEMON_IDLE]"), "{text}");
    assert!(
        text.contains(&format!("[file {}:maintenance.every]", path.display())),
        "{text}"
    );
}

#[test]
fn no_file_means_the_defaults_and_config_names_where_it_would_be() {
    let home = tempfile::tempdir().unwrap();
    let shown = config_json(home.path(), &[], &[]);
    assert_eq!(shown["file"]["exists"], false);
    assert_eq!(
        shown["file"]["path"],
        home.path().join("config.toml").display().to_string()
    );
    for (key, value) in [
        ("durability", Value::from("sync")),
        ("maintenance.every", Value::from("1h")),
        ("daemon.idle", Value::from("10m")),
        ("log", Value::Null),
    ] {
        assert_eq!(shown["settings"][key]["value"], value, "{key}: {shown}");
        assert_eq!(shown["settings"][key]["source"], "default", "{key}");
    }
    // ENGRAM_CONFIG names another file; a missing one is an error, never
    // the defaults.
    let other = home.path().join("elsewhere.toml");
    std::fs::write(&other, "[maintenance]\nevery = \"off\"\n").unwrap();
    let shown = config_json(
        home.path(),
        &[],
        &[("ENGRAM_CONFIG", other.to_str().unwrap())],
    );
    assert_eq!(shown["settings"]["maintenance.every"]["value"], "off");
    let missing = home.path().join("missing.toml");
    let out = engram_in(
        home.path(),
        &["config"],
        &[("ENGRAM_CONFIG", missing.to_str().unwrap())],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("missing.toml"), "{}", stderr(&out));
}

#[test]
fn an_unknown_key_is_an_error_naming_the_key_and_the_file_and_nothing_changes() {
    let home = tempfile::tempdir().unwrap();
    let path = write_config(
        home.path(),
        "[maintenance]\nevery = \"1h\"\nevry = \"2h\"\n",
        0o600,
    );
    for args in [
        &["config"][..],
        &["remember", "the deploy window is Tuesday"],
    ] {
        let out = engram_in(home.path(), args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(err.contains("evry"), "{err}");
        assert!(err.contains(&path.display().to_string()), "{err}");
    }
    assert!(!home.path().join("store").exists(), "nothing was created");
    // A key at the top level that belongs in a table is unknown there too.
    write_config(home.path(), "idle = \"5m\"\n", 0o600);
    let out = engram_in(home.path(), &["config"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("idle"), "{}", stderr(&out));
}

#[test]
fn a_bad_value_is_an_error_naming_its_key() {
    let home = tempfile::tempdir().unwrap();
    let path = write_config(home.path(), "[daemon]\nidle = \"soon\"\n", 0o600);
    let out = engram_in(home.path(), &["config"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{}:daemon.idle", path.display())),
        "{err}"
    );
    assert!(err.contains("\"soon\""), "{err}");
    // A value of the wrong type names its key and line.
    write_config(home.path(), "durability = 5\n", 0o600);
    let out = engram_in(home.path(), &["config"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("durability"), "{}", stderr(&out));
    // Not TOML at all.
    write_config(home.path(), "[maintenance\n", 0o600);
    let out = engram_in(home.path(), &["config"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("config.toml"), "{}", stderr(&out));
    // A bad environment value names its variable, even over a good file.
    write_config(home.path(), "[maintenance]\nevery = \"1h\"\n", 0o600);
    let out = engram_in(
        home.path(),
        &["config"],
        &[("ENGRAM_MAINTAIN_EVERY", "sometimes")],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("env ENGRAM_MAINTAIN_EVERY"),
        "{}",
        stderr(&out)
    );
    // And a bad flag is clap's error.
    let out = engram_in(home.path(), &["daemon", "--maintain-every", "1ms"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--maintain-every"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_token_in_a_file_others_can_read_is_refused_and_a_token_is_never_shown() {
    let home = tempfile::tempdir().unwrap();
    let token = "0123456789abcdef0123456789abcdef-secret";
    write_config(
        home.path(),
        &format!("[serve]\ntoken = \"{token}\"\n"),
        0o644,
    );
    let out = engram_in(home.path(), &["config"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("serve.token"), "{err}");
    assert!(err.contains("chmod 600"), "{err}");
    assert!(!err.contains(token), "{err}");
    // Private, it is used but never printed.
    write_config(
        home.path(),
        &format!("[serve]\ntoken = \"{token}\"\n"),
        0o600,
    );
    let shown = config_json(home.path(), &[], &[]);
    assert_eq!(shown["settings"]["serve.token"]["value"], "hidden");
    assert_eq!(shown["settings"]["serve.token"]["source"], "file");
    let out = engram_in(home.path(), &["config"], &[]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains(token));
}

/// Whether anything owns the store (`daemon status` exits 0).
fn owned(home: &Path) -> Option<Value> {
    let out = engram_in(home, &["daemon", "status", "--json"], &[]);
    let status: Value = serde_json::from_slice(&out.stdout).ok()?;
    (!status["owner"].is_null()).then_some(status)
}

#[test]
fn a_daemon_a_client_starts_takes_its_idle_period_and_schedule_from_the_file() {
    let home = tempfile::tempdir().unwrap();
    write_config(
        home.path(),
        "[daemon]\nidle = \"2s\"\n[maintenance]\nevery = \"off\"\n",
        0o600,
    );
    let out = engram_in(
        home.path(),
        &["remember", "the deploy window is Tuesday"],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = owned(home.path()).expect("a daemon owns the store");
    assert_eq!(status["maintenance"]["every"], Value::Null, "{status}");
    let deadline = Instant::now() + Duration::from_secs(60);
    while owned(home.path()).is_some() {
        assert!(
            Instant::now() < deadline,
            "the daemon did not exit after the file's idle period"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_hook_under_a_broken_config_names_the_file_and_key_as_every_command_does() {
    use std::io::Write as _;
    let home = tempfile::tempdir().unwrap();
    let path = write_config(home.path(), "[daemon]\nidle = \"soon\"\n", 0o600);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_engram"));
    cmd.arg("--store")
        .arg(home.path().join("store"))
        .args(["hook", "prompt"])
        .current_dir(home.path())
        .env("ENGRAM_HOME", home.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    for name in SETTINGS_ENV {
        cmd.env_remove(name);
    }
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"{"prompt": "when is the deploy window?"}"#)
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "a hook failure is exit 1");
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{}:daemon.idle", path.display())),
        "{err}"
    );
    assert!(!err.contains("resolving the store"), "{err}");
    assert!(!home.path().join("store").exists(), "nothing was created");
}

#[test]
fn config_names_the_installed_model_engram_runs_when_nothing_names_one() {
    let home = tempfile::tempdir().unwrap();
    // Only the catalogue's second model is installed: it is the one run.
    let installed = home.path().join("models/all-MiniLM-L6-v2");
    std::fs::create_dir_all(&installed).unwrap();
    std::fs::write(installed.join("config.json"), "{}").unwrap();
    let shown = config_json(home.path(), &[], &[]);
    assert_eq!(
        shown["settings"]["model_dir"]["value"],
        installed.display().to_string()
    );
    assert_eq!(shown["settings"]["model_dir"]["source"], "default");
}

//! `engram daemon`: the owner of a store when no application or server
//! holds it, and the client side that finds the owner, or starts one.
//!
//! One owner per store: the daemon opens the store (the log's write lock,
//! the views, the model), serves the HTTP router on the store's socket and
//! exits after an idle period. Clients connect; when nothing answers, the
//! client holding `daemon.lock` in the store folder starts a detached
//! daemon while the others wait for the lock, and every one of them then
//! connects to the one owner.

use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt as _;
use std::os::unix::process::CommandExt as _;
use std::process::{ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use engram::client::{Client, ClientError, OwnerId};
use engram::config::{IDLE_DEFAULT, Setting, parse_every};
use engram::owner::{
    Activity, DAEMON_LOCK_FILE_NAME, DAEMON_LOG_FILE_NAME, OwnerInfo, SocketId, VERSION,
    bind_socket, prepare_store_folder, remove_socket,
};

use super::Context;

/// How long a client waits for a daemon it started to answer.
const START_DEADLINE: Duration = Duration::from_secs(60);

#[derive(Debug, clap::Args)]
pub struct DaemonArgs {
    #[command(subcommand)]
    action: Option<DaemonAction>,
    /// Run in the background: log to daemon.log in the store folder and
    /// exit after the idle period (default 10 minutes).
    #[arg(long)]
    detach: bool,
    /// Exit after this long without a request (`10m`, `30s`). Also
    /// ENGRAM_DAEMON_IDLE, or `idle` under `[daemon]` in the config file.
    /// Default: 10 minutes detached, never in the foreground.
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    idle: Option<Duration>,
    /// Run maintenance (archive what expired, decayed or is evicted;
    /// refresh uniqueness) in every store the daemon holds open this often
    /// (`1h`, `30m`), or `off`. Also ENGRAM_MAINTAIN_EVERY, or `every`
    /// under `[maintenance]` in the config file. Default: 1h, the first run
    /// 5 minutes after the start (or one interval, if shorter).
    #[arg(long, value_name = "DURATION|off", value_parser = parse_every_arg)]
    maintain_every: Option<Every>,
}

/// A `--maintain-every` value: an interval, or `None` for `off`.
#[derive(Debug, Clone, Copy)]
pub struct Every(pub Option<Duration>);

/// `--maintain-every` as clap parses it.
pub(super) fn parse_every_arg(text: &str) -> Result<Every, String> {
    parse_every(text)
        .map(Every)
        .map_err(|expected| format!("{text:?} is not {expected}"))
}

/// The daemon's idle period: the flag, else the environment or the config
/// file, else `default`.
fn idle_setting(ctx: &Context, flag: Option<Duration>) -> Setting<Option<Duration>> {
    ctx.settings
        .daemon_idle
        .clone()
        .with_flag(flag.map(Some), "--idle")
}

/// The maintenance schedule: the flag, else the environment or the config
/// file, else the default.
pub(super) fn maintain_every(ctx: &Context, flag: Option<Every>) -> Option<Duration> {
    ctx.settings
        .maintain_every
        .clone()
        .with_flag(flag.map(|e| e.0), "--maintain-every")
        .value
}

#[derive(Debug, clap::Subcommand)]
#[command(defer = true)]
enum DaemonAction {
    /// Who owns the store: pid, version, kind (daemon, serve, app) and
    /// socket. Exit 1 when nothing owns it.
    Status {
        /// Print one JSON object: {"owner": {"pid", "version", "kind"} | null, "socket"}.
        #[arg(long)]
        json: bool,
    },
    /// Stop the daemon owning the store (views persisted); nothing to do
    /// when none runs.
    Stop,
}

pub fn run(ctx: &Context, args: &DaemonArgs) -> anyhow::Result<ExitCode> {
    match &args.action {
        Some(DaemonAction::Status { json }) => status(ctx, *json),
        Some(DaemonAction::Stop) => stop(ctx),
        None if args.detach => {
            let client = client(ctx);
            if let Ok(owner) = client.owner() {
                eprintln!(
                    "engram: {} is already owned by pid {} ({}, version {})",
                    ctx.describe_owner(),
                    owner.pid,
                    owner.kind,
                    owner.version
                );
                return Ok(ExitCode::SUCCESS);
            }
            let idle = idle_setting(ctx, args.idle).value.unwrap_or(IDLE_DEFAULT);
            let owner = start(ctx, idle, args.maintain_every.map(|e| e.0))?;
            eprintln!(
                "engram: daemon started for {} (pid {}, log in {})",
                ctx.describe_owner(),
                owner.pid,
                ctx.owner_root().join(DAEMON_LOG_FILE_NAME).display()
            );
            Ok(ExitCode::SUCCESS)
        }
        None => foreground(
            ctx,
            idle_setting(ctx, args.idle).value,
            maintain_every(ctx, args.maintain_every),
        ),
    }
}

/// A client of the context's owner. Nothing is asked yet: a command's
/// first request finds out who owns the store ([`super::door::Door`]).
pub(super) fn client(ctx: &Context) -> Client {
    Client::new(ctx.owner_socket())
}

/// Takes `daemon.lock` in the owner's folder (waiting for it): whoever
/// holds it decides whether a daemon starts.
fn lock_daemon_start(ctx: &Context) -> anyhow::Result<std::fs::File> {
    let lock_path = ctx.owner_root().join(DAEMON_LOCK_FILE_NAME);
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(&lock_path)
        .with_context(|| format!("opening {}", lock_path.display()))?;
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive)
        .with_context(|| format!("locking {}", lock_path.display()))?;
    Ok(lock)
}

/// Who owns the store, asking again when the answer was cut off: an
/// owner killed while it answered leaves a socket that refuses the next
/// connection (no owner), while a stranger on the socket answers garbage
/// every time.
fn probe(client: &Client) -> Result<OwnerId, ClientError> {
    let mut tries = 0;
    loop {
        match client.owner() {
            Err(ClientError::NotEngram { .. } | ClientError::Io { .. }) if tries < 3 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

/// Owns the stores in this process until Ctrl-C, SIGTERM, the idle
/// period, or the socket file being removed or taken over.
fn foreground(
    ctx: &Context,
    idle: Option<Duration>,
    maintain_every: Option<Duration>,
) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        ctx.shared_log.is_none(),
        "a store replicating a shared log (--log) is opened by each command itself: it has no daemon"
    );
    let root = ctx.owner_root().to_owned();
    let socket = bind_socket(&root)
        .with_context(|| format!("becoming the owner of {}", ctx.describe_owner()))?;
    let owned = ctx.owned(super::model::load(ctx));
    eprintln!(
        "engram: daemon (pid {}, version {VERSION}) owns {} on {}; maintenance {}",
        std::process::id(),
        ctx.describe_owner(),
        ctx.owner_socket().display(),
        schedule_text(maintain_every)
    );
    let activity = Arc::new(Activity::default());
    let watched = Arc::clone(&activity);
    let bound = socket.id();
    let ended = async move {
        let watch = async {
            loop {
                tokio::time::sleep(Duration::from_millis(200)).await;
                if SocketId::of(&root) != bound {
                    eprintln!("engram: the socket was removed or replaced: stopping");
                    return;
                }
                if idle.is_some_and(|idle| watched.idle_for() >= idle) {
                    eprintln!("engram: idle: stopping");
                    return;
                }
            }
        };
        tokio::select! {
            () = watch => {}
            () = super::serve::shutdown_signal() => {}
        }
    };
    let runtime = super::serve::runtime()?;
    let maintenance =
        maintain_every.map(|every| runtime.spawn(Arc::clone(&owned).run_maintenance(every)));
    let served = runtime.block_on(engram::owner::serve_socket(
        &socket,
        owned.router(),
        OwnerInfo {
            kind: "daemon",
            activity: Some(activity),
        },
        ended,
    ));
    if let Some(maintenance) = maintenance {
        maintenance.abort();
    }
    runtime.shutdown_timeout(Duration::from_secs(30));
    // The stores are closed before the socket goes: a socket that no
    // longer answers means an owner that is gone.
    let closed = owned.close();
    remove_socket(socket);
    served.context("serving the socket")?;
    closed?;
    eprintln!("engram: daemon stopped; views persisted");
    Ok(ExitCode::SUCCESS)
}

/// A maintenance schedule in words: `every 1h`, `off`.
pub(super) fn schedule_text(every: Option<Duration>) -> String {
    every.map_or_else(
        || "off".to_owned(),
        |d| format!("every {}", humantime::format_duration(d)),
    )
}

/// Starts a detached daemon for the context's store and waits until it
/// answers (or another owner does). Call it holding `daemon.lock`, or
/// through [`connect`].
fn start(
    ctx: &Context,
    idle: Duration,
    maintain_every: Option<Option<Duration>>,
) -> anyhow::Result<OwnerId> {
    prepare_store_folder(ctx.owner_root())
        .with_context(|| format!("preparing {}", ctx.describe_owner()))?;
    let log_path = ctx.owner_root().join(DAEMON_LOG_FILE_NAME);
    let log = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&log_path)
        .with_context(|| format!("opening {}", log_path.display()))?;
    let log_err = log.try_clone().context("duplicating the log file")?;
    let exe = std::env::current_exe().context("finding the engram executable")?;
    let mut child = std::process::Command::new(exe)
        .args(&ctx.global_args)
        .arg("daemon")
        .arg("--idle")
        .arg(humantime::format_duration(idle).to_string())
        // The schedule given here; else the daemon reads the environment
        // and the config file itself, as this process did.
        .args(
            maintain_every
                .map(|every| {
                    let every = every.map_or_else(
                        || "off".to_owned(),
                        |d| humantime::format_duration(d).to_string(),
                    );
                    ["--maintain-every".to_owned(), every]
                })
                .into_iter()
                .flatten(),
        )
        .current_dir(ctx.owner_root())
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err)
        // Its own process group: a Ctrl-C in the terminal that started it
        // does not stop it.
        .process_group(0)
        .spawn()
        .context("starting the engram daemon")?;
    let client = client(ctx);
    let deadline = Instant::now() + START_DEADLINE;
    let mut exited = None;
    loop {
        match probe(&client) {
            Ok(owner) => {
                // Reap it later if it exits: a thread waits on it.
                std::thread::spawn(move || child.wait());
                return Ok(owner);
            }
            Err(ClientError::NoOwner { .. }) => {}
            Err(e) => return Err(e.into()),
        }
        if exited.is_none() {
            exited = child.try_wait().ok().flatten();
        }
        if Instant::now() >= deadline {
            let tail = std::fs::read_to_string(&log_path)
                .map(|t| {
                    t.lines()
                        .rev()
                        .take(5)
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .unwrap_or_default();
            anyhow::bail!(
                "the engram daemon for {} did not answer within {}s{}; its log {} ends:\n{tail}",
                ctx.describe_owner(),
                START_DEADLINE.as_secs(),
                exited
                    .map(|s| format!(" (it exited: {s})"))
                    .unwrap_or_default(),
                log_path.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A client of the store's owner, starting a daemon when nothing answers:
/// of many clients starting at once, the one holding `daemon.lock` starts
/// it and the others wait for the lock, then find it. A daemon of another
/// version is stopped and replaced (its store is closed cleanly first); an
/// owner of another version that is not a daemon is an error naming it.
pub fn connect(ctx: &Context) -> anyhow::Result<Client> {
    prepare_store_folder(ctx.owner_root())
        .with_context(|| format!("preparing {}", ctx.describe_owner()))?;
    let client = client(ctx);
    match probe(&client) {
        Ok(owner) if owner.version == VERSION => return Ok(client),
        Ok(owner) => replace_daemon(&client, owner)?,
        Err(ClientError::NoOwner { .. }) => {}
        Err(e) => return Err(e.into()),
    }
    let lock = lock_daemon_start(ctx)?;
    let owner = match probe(&client) {
        Ok(owner) => owner,
        Err(ClientError::NoOwner { .. }) => {
            let idle = ctx.settings.daemon_idle.value.unwrap_or(IDLE_DEFAULT);
            start(ctx, idle, None)?
        }
        Err(e) => return Err(e.into()),
    };
    drop(lock);
    client.check_version(&owner)?;
    Ok(client)
}

/// What a command does when its first request met no owner (nothing was
/// sent), or an owner of another version that refused it unrun: starts
/// the daemon, or replaces one of another version, as [`connect`] does,
/// so that the request can be sent again. An owner of another version
/// that is not a daemon, and any other failure, is the error itself.
pub fn recover(ctx: &Context, client: &Client, first: ClientError) -> anyhow::Result<()> {
    match first {
        ClientError::NoOwner { .. } => {}
        ClientError::Version {
            theirs, pid, kind, ..
        } => replace_daemon(
            client,
            OwnerId {
                version: theirs,
                pid,
                kind,
            },
        )?,
        other => return Err(other.into()),
    }
    connect(ctx).map(drop)
}

/// Stops a daemon of another version (its stores are closed cleanly
/// first) so that one of this version can take its place; an owner of
/// another version that is not a daemon is an error naming it.
fn replace_daemon(client: &Client, owner: OwnerId) -> anyhow::Result<()> {
    if owner.kind != "daemon" {
        return Err(ClientError::Version {
            path: client.socket().to_owned(),
            theirs: owner.version,
            pid: owner.pid,
            kind: owner.kind,
        }
        .into());
    }
    eprintln!(
        "engram: the daemon (pid {}) runs version {}, this engram is {VERSION}: restarting it",
        owner.pid, owner.version
    );
    stop_owner(client, &owner)
}

/// For a command that needs the store to itself (`rebuild`, `import`,
/// `bench append`): stops a daemon owning it (it closes the stores
/// cleanly; the next client starts another) and holds `daemon.lock`, so no
/// client starts one until the returned lock is dropped. An owner that is
/// not a daemon (`engram serve`, an application) is named and left alone.
pub fn exclusive(ctx: &Context, what: &str) -> anyhow::Result<Option<std::fs::File>> {
    // No socket, no owner: and nothing is created for a command that may
    // refuse its input (a client starting a daemon meanwhile meets the
    // log's own write lock).
    if !ctx.owner_socket().exists() {
        return Ok(None);
    }
    let lock = lock_daemon_start(ctx)?;
    let client = client(ctx);
    match probe(&client) {
        Ok(owner) if owner.kind == "daemon" => {
            eprintln!(
                "engram: {what} needs the store to itself: stopping the daemon (pid {})",
                owner.pid
            );
            stop_owner(&client, &owner)?;
        }
        Ok(owner) => anyhow::bail!(
            "{what}: {} is owned by `engram {}` (pid {}): stop it first",
            ctx.describe_owner(),
            owner.kind,
            owner.pid
        ),
        Err(ClientError::NoOwner { .. }) => {}
        Err(e) => return Err(e.into()),
    }
    Ok(Some(lock))
}

/// Stops a daemon (SIGTERM: it closes the store, persisting the views) and
/// waits until its socket no longer answers.
fn stop_owner(client: &Client, owner: &OwnerId) -> anyhow::Result<()> {
    let pid = i32::try_from(owner.pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
        .context("the owner named no valid pid")?;
    rustix::process::kill_process(pid, rustix::process::Signal::TERM)
        .with_context(|| format!("stopping the daemon (pid {})", owner.pid))?;
    let deadline = Instant::now() + Duration::from_secs(60);
    // Gone once its socket no longer answers and the process has exited.
    while client.owner().is_ok() || alive(pid) {
        anyhow::ensure!(
            Instant::now() < deadline,
            "the daemon (pid {}) did not stop within 60s",
            owner.pid
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// Whether process `pid` still runs: it exists and is not a zombie
/// waiting for a parent that may never reap it.
fn alive(pid: rustix::process::Pid) -> bool {
    if rustix::process::test_kill_process(pid).is_err() {
        return false;
    }
    // /proc/PID/stat: "PID (COMM) STATE ...", COMM may hold spaces.
    match std::fs::read_to_string(format!("/proc/{}/stat", pid.as_raw_nonzero())) {
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next())
            .is_none_or(|state| state != 'Z'),
        Err(_) => true,
    }
}

fn status(ctx: &Context, json: bool) -> anyhow::Result<ExitCode> {
    let client = client(ctx);
    let socket = client.socket().display().to_string();
    let owner = match probe(&client) {
        Ok(owner) => Some(owner),
        Err(ClientError::NoOwner { .. }) => None,
        Err(e) => return Err(e.into()),
    };
    // What the owner's scheduled maintenance did (an owner of an older
    // version does not say).
    let maintenance = owner
        .as_ref()
        .and_then(|_| client.call("GET", "/api/health", None).ok())
        .map(|health| health["maintenance"].clone())
        .unwrap_or(serde_json::Value::Null);
    if json {
        let owner = owner
            .as_ref()
            .map(|o| serde_json::json!({"pid": o.pid, "version": o.version, "kind": o.kind}));
        println!(
            "{}",
            serde_json::json!({"owner": owner, "socket": socket, "maintenance": maintenance})
        );
    } else {
        match &owner {
            Some(o) => {
                println!(
                    "{} is owned by pid {} ({}, version {}) on {socket}",
                    ctx.describe_owner(),
                    o.pid,
                    o.kind,
                    o.version
                );
                if let Some(runs) = maintenance["runs"].as_u64() {
                    println!(
                        "maintenance: {}; {runs} runs, {} archived, {} uniqueness refreshed, {} failed",
                        maintenance["every"]
                            .as_str()
                            .map_or_else(|| "off".to_owned(), |e| format!("every {e}")),
                        maintenance["archived"],
                        maintenance["rescored"],
                        maintenance["failed"]
                    );
                }
            }
            None => println!(
                "nothing owns {} (no answer on {socket})",
                ctx.describe_owner()
            ),
        }
    }
    Ok(if owner.is_some() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_CHECK_FAILED)
    })
}

fn stop(ctx: &Context) -> anyhow::Result<ExitCode> {
    let client = client(ctx);
    let owner = match probe(&client) {
        Ok(owner) => owner,
        Err(ClientError::NoOwner { .. }) => {
            println!("no daemon owns {}", ctx.describe_owner());
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => return Err(e.into()),
    };
    anyhow::ensure!(
        owner.kind == "daemon",
        "{} is owned by `engram {}` (pid {}), not a daemon: stop it where it runs",
        ctx.describe_owner(),
        owner.kind,
        owner.pid
    );
    stop_owner(&client, &owner)?;
    println!(
        "stopped the daemon (pid {}) of {}",
        owner.pid,
        ctx.describe_owner()
    );
    Ok(ExitCode::SUCCESS)
}

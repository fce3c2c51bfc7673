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
use engram::owner::{
    Activity, DAEMON_LOCK_FILE_NAME, DAEMON_LOG_FILE_NAME, OwnerInfo, SocketId, VERSION,
    bind_socket, prepare_store_folder, remove_socket,
};

use super::Context;

/// Environment variable with the idle period of daemons that clients start
/// (`10m`, `30s`).
pub const IDLE_ENV: &str = "ENGRAM_DAEMON_IDLE";
/// The idle period of a detached daemon unless told otherwise.
pub const IDLE_DEFAULT: Duration = Duration::from_secs(600);
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
    /// Exit after this long without a request (`10m`, `30s`). Default:
    /// 10 minutes detached, never in the foreground.
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration, env = IDLE_ENV)]
    idle: Option<Duration>,
}

#[derive(Debug, clap::Subcommand)]
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
            let owner = start(ctx, args.idle.unwrap_or(IDLE_DEFAULT))?;
            eprintln!(
                "engram: daemon started for {} (pid {}, log in {})",
                ctx.describe_owner(),
                owner.pid,
                ctx.owner_root().join(DAEMON_LOG_FILE_NAME).display()
            );
            Ok(ExitCode::SUCCESS)
        }
        None => foreground(ctx, args.idle),
    }
}

fn client(ctx: &Context) -> Client {
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
fn foreground(ctx: &Context, idle: Option<Duration>) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        ctx.shared_log.is_none(),
        "a store replicating a shared log (--log) is opened by each command itself: it has no daemon"
    );
    let root = ctx.owner_root().to_owned();
    let socket = bind_socket(&root)
        .with_context(|| format!("becoming the owner of {}", ctx.describe_owner()))?;
    let owned = ctx.owned(super::model::load());
    eprintln!(
        "engram: daemon (pid {}, version {VERSION}) owns {} on {}",
        std::process::id(),
        ctx.describe_owner(),
        ctx.owner_socket().display()
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
    let served = runtime.block_on(engram::owner::serve_socket(
        &socket,
        owned.router(),
        OwnerInfo {
            kind: "daemon",
            activity: Some(activity),
        },
        ended,
    ));
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

/// Starts a detached daemon for the context's store and waits until it
/// answers (or another owner does). Call it holding `daemon.lock`, or
/// through [`connect`].
fn start(ctx: &Context, idle: Duration) -> anyhow::Result<OwnerId> {
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
        Ok(owner) if owner.kind == "daemon" => {
            eprintln!(
                "engram: the daemon (pid {}) runs version {}, this engram is {VERSION}: restarting it",
                owner.pid, owner.version
            );
            stop_owner(&client, &owner)?;
        }
        Ok(owner) => {
            return Err(ClientError::Version {
                path: client.socket().to_owned(),
                theirs: owner.version,
                pid: owner.pid,
                kind: owner.kind,
            }
            .into());
        }
        Err(ClientError::NoOwner { .. }) => {}
        Err(e) => return Err(e.into()),
    }
    let lock = lock_daemon_start(ctx)?;
    let owner = match probe(&client) {
        Ok(owner) => owner,
        Err(ClientError::NoOwner { .. }) => {
            let idle = match std::env::var(IDLE_ENV) {
                Ok(text) if !text.trim().is_empty() => humantime::parse_duration(text.trim())
                    .with_context(|| format!("{IDLE_ENV}={text:?} is not a duration"))?,
                _ => IDLE_DEFAULT,
            };
            start(ctx, idle)?
        }
        Err(e) => return Err(e.into()),
    };
    drop(lock);
    client.check_version(&owner)?;
    Ok(client)
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
    if json {
        let owner = owner
            .as_ref()
            .map(|o| serde_json::json!({"pid": o.pid, "version": o.version, "kind": o.kind}));
        println!("{}", serde_json::json!({"owner": owner, "socket": socket}));
    } else {
        match &owner {
            Some(o) => println!(
                "{} is owned by pid {} ({}, version {}) on {socket}",
                ctx.describe_owner(),
                o.pid,
                o.kind,
                o.version
            ),
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

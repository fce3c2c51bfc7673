//! `engram serve` (HTTP API and web panel) and `engram mcp` (MCP over
//! stdio): long-running servers over stores held open.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use engram::http::{AppState, generate_token, router};
use engram::mcp::McpServer;
use rmcp::ServiceExt as _;
use rmcp::transport::async_rw::AsyncRwTransport;

use super::Context;

use engram::config::TOKEN_ENV;

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on. Loopback needs no token; any other address
    /// requires one: ENGRAM_TOKEN, or a random one printed once at start.
    /// Port 0 picks a free port (the address is printed on stderr).
    #[arg(long, value_name = "IP:PORT", default_value = "127.0.0.1:7373")]
    addr: SocketAddr,
    /// Run maintenance (archive what expired, decayed or is evicted;
    /// refresh uniqueness) in the stores the server owns this often (`1h`,
    /// `30m`), or `off`. Also ENGRAM_MAINTAIN_EVERY, or `every` under
    /// `[maintenance]` in the config file. Default: 1h, the first run 5
    /// minutes after the start (or one interval, if shorter). Beside
    /// another owner, that owner's schedule applies.
    #[arg(long, value_name = "DURATION|off", value_parser = super::daemon::parse_every_arg)]
    maintain_every: Option<super::daemon::Every>,
}

#[derive(Debug, clap::Args)]
pub struct McpArgs {}

/// Largest MCP message: a longer line is dropped (and logged on stderr).
pub const MCP_MESSAGE_LIMIT: usize = engram::http::BODY_LIMIT;

pub(super) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// Completes on Ctrl-C or SIGTERM.
pub(super) async fn shutdown_signal() {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}

pub fn serve(ctx: &Context, args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let token = match &ctx.settings.token.value {
        Some(token) => {
            let token = token.expose().trim();
            engram::http::check_token(token)
                .with_context(|| format!("the token ({}) is refused", ctx.settings.token.source))?;
            Some(token.to_owned())
        }
        _ if args.addr.ip().is_loopback() => None,
        _ => {
            let token = generate_token().context("generating a token")?;
            eprintln!(
                "engram: no token is set ({TOKEN_ENV}, or token under [serve] in {}) and {} is not loopback: generated a token (shown once):\n  {token}",
                ctx.settings.path.display(),
                args.addr
            );
            Some(token)
        }
    };
    // Another process owns the stores (a daemon, another server): serve
    // the panel here and forward the API to it.
    if ctx.shared_log.is_none()
        && engram::client::Client::new(ctx.owner_socket())
            .owner()
            .is_ok()
    {
        return serve_forwarding(ctx, args, token);
    }
    // The server owns the stores: other processes reach them over the
    // socket, as they would a daemon's.
    let socket = if ctx.shared_log.is_none() {
        Some(
            engram::owner::bind_socket(ctx.owner_root())
                .with_context(|| format!("becoming the owner of {}", ctx.describe_owner()))?,
        )
    } else {
        None
    };
    let owned = ctx.owned(super::model::load(ctx));
    let (service, _) = owned.service_for(&ctx.recall_store_names())?;
    let state = AppState {
        service,
        token: token.as_deref().map(Arc::from),
    };
    let runtime = runtime()?;
    // Maintenance is the owner's: only a server that owns the stores'
    // socket runs it (a replica of a shared log is opened per command).
    let every = super::daemon::maintain_every(ctx, args.maintain_every);
    let maintenance = every
        .filter(|_| socket.is_some())
        .map(|every| runtime.spawn(Arc::clone(&owned).run_maintenance(every)));
    if socket.is_some() {
        eprintln!(
            "engram: maintenance {}",
            super::daemon::schedule_text(every)
        );
    }
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let ended = |mut stopped: tokio::sync::watch::Receiver<bool>| async move {
        let _ = stopped.wait_for(|stop| *stop).await;
    };
    let served = runtime.block_on(async {
        let listener = listen(ctx, args, token.as_deref(), "").await?;
        tokio::spawn(async move {
            shutdown_signal().await;
            let _ = stop.send(true);
        });
        let http = engram::http::serve(listener, router(state), ended(stopped.clone()));
        let on_socket = async {
            match &socket {
                Some(socket) => engram::owner::serve_socket(
                    socket,
                    owned.router(),
                    engram::owner::OwnerInfo {
                        kind: "serve",
                        activity: None,
                    },
                    ended(stopped.clone()),
                )
                .await
                .context("serving the socket"),
                None => Ok(()),
            }
        };
        let (http, on_socket) = tokio::join!(http, on_socket);
        http.context("serving HTTP")?;
        on_socket
    });
    if let Some(maintenance) = maintenance {
        maintenance.abort();
    }
    // Requests still running finish before the runtime drops.
    runtime.shutdown_timeout(std::time::Duration::from_secs(30));
    let closed = owned.close();
    if let Some(socket) = socket {
        engram::owner::remove_socket(socket);
    }
    served?;
    closed?;
    eprintln!("engram: stopped; views persisted");
    Ok(ExitCode::SUCCESS)
}

/// Binds the server's address and says where it serves (the token in the
/// URL's fragment, `note` after it): tests and people read that line.
async fn listen(
    ctx: &Context,
    args: &ServeArgs,
    token: Option<&str>,
    note: &str,
) -> anyhow::Result<tokio::net::TcpListener> {
    let listener = tokio::net::TcpListener::bind(args.addr)
        .await
        .with_context(|| format!("listening on {}", args.addr))?;
    let local = listener.local_addr().context("reading the bound address")?;
    let fragment = token.map(|t| format!("#token={t}")).unwrap_or_default();
    eprintln!(
        "engram: serving {} at http://{local}/{fragment}{note}",
        ctx.describe()
    );
    Ok(listener)
}

/// `engram serve` beside an owner: the panel's files from here, each API
/// request forwarded over the owner's socket (a daemon started again when
/// the owner went away meanwhile).
fn serve_forwarding(
    ctx: &Context,
    args: &ServeArgs,
    token: Option<String>,
) -> anyhow::Result<ExitCode> {
    use engram::client::{Client, ClientError};
    let names = ctx.recall_store_names();
    let context = ctx.clone();
    let forward: engram::http::Forward = Arc::new(move |method, target, body, content_type| {
        let content_type = content_type.unwrap_or_else(|| "application/json".to_owned());
        let client = Client::new(context.owner_socket()).with_stores(&names);
        let sent = match client.send_raw(method, target, &body, &content_type) {
            // Nothing sent yet: start an owner and send it there.
            Err(ClientError::NoOwner { .. }) => super::daemon::connect(&context)
                .map_err(|e| {
                    engram::api::ApiError::new(
                        engram::api::ErrorCode::Internal,
                        format!("starting the store's owner: {e:#}"),
                    )
                })?
                .with_stores(&names)
                .send_raw(method, target, &body, &content_type),
            other => other,
        };
        let reply = sent.and_then(|reply| {
            client.check_version(&reply.owner)?;
            Ok(reply)
        });
        let reply = reply?;
        Ok(engram::http::Forwarded {
            status: reply.status,
            content_type: reply.content_type,
            disposition: reply.disposition,
            body: reply.body,
        })
    });
    let runtime = runtime()?;
    let served = runtime.block_on(async {
        let through = format!(" (through its owner on {})", ctx.owner_socket().display());
        let listener = listen(ctx, args, token.as_deref(), &through).await?;
        let router = engram::http::forwarding_router(token.as_deref().map(Arc::from), forward);
        engram::http::serve(listener, router, shutdown_signal())
            .await
            .context("serving HTTP")
    });
    runtime.shutdown_timeout(std::time::Duration::from_secs(30));
    served?;
    eprintln!("engram: stopped; the stores stay with their owner");
    Ok(ExitCode::SUCCESS)
}

/// Environment variable with the server's log filter (`warn`, `debug`,
/// `rmcp=trace`, ...): logs go to stderr.
pub const LOG_ENV: &str = "ENGRAM_TRACE";

/// Logs of the protocol layer on stderr: by default the lines it could
/// not take (not JSON, not a JSON-RPC message, over the size limit), which
/// it drops without an answer when there is no id to answer to.
fn log_to_stderr() {
    let filter = tracing_subscriber::EnvFilter::try_from_env(LOG_ENV).unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new("warn,rmcp::transport::async_rw=debug")
    });
    // A second initialisation (tests) keeps the first subscriber.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

pub fn mcp(ctx: &Context, _args: &McpArgs) -> anyhow::Result<ExitCode> {
    log_to_stderr();
    // A thin client of the store's owner (started when none answers), or
    // with --in-process the store opened here.
    let names = ctx.recall_store_names();
    let (server, owned) = if ctx.opens_in_process() {
        let owned = ctx.owned(super::model::load(ctx));
        let (service, _) = owned.service_for(&names)?;
        (McpServer::new(service), Some(owned))
    } else {
        let client = super::daemon::connect(ctx)?.with_stores(&names);
        (McpServer::with_door(Arc::new(client)), None)
    };
    eprintln!("engram: MCP server on stdio for {}", ctx.describe());
    let runtime = runtime()?;
    let served = runtime.block_on(async {
        let server = server
            .serve(
                AsyncRwTransport::new_server(tokio::io::stdin(), tokio::io::stdout())
                    .with_max_line_length(MCP_MESSAGE_LIMIT),
            )
            .await
            .context("starting the MCP session")?;
        tokio::select! {
            ended = server.waiting() => { ended.context("serving MCP")?; }
            () = shutdown_signal() => {}
        }
        anyhow::Ok(())
    });
    runtime.shutdown_timeout(std::time::Duration::from_secs(30));
    served?;
    if let Some(owned) = owned {
        owned.close()?;
    }
    Ok(ExitCode::SUCCESS)
}

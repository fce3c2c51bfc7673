//! `engram serve` (HTTP API and web panel) and `engram mcp` (MCP over
//! stdio): long-running servers over stores held open.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use engram::api::Service;
use engram::http::{AppState, check_token, generate_token, router};
use engram::mcp::McpServer;
use rmcp::ServiceExt as _;
use rmcp::transport::async_rw::AsyncRwTransport;

use super::Context;

/// Environment variable holding the HTTP API's bearer token.
pub const TOKEN_ENV: &str = "ENGRAM_TOKEN";

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on. Loopback needs no token; any other address
    /// requires one: ENGRAM_TOKEN, or a random one printed once at start.
    /// Port 0 picks a free port (the address is printed on stderr).
    #[arg(long, value_name = "IP:PORT", default_value = "127.0.0.1:7373")]
    addr: SocketAddr,
}

#[derive(Debug, clap::Args)]
pub struct McpArgs {}

/// Largest MCP message: a longer line is dropped (and logged on stderr).
pub const MCP_MESSAGE_LIMIT: usize = engram::http::BODY_LIMIT;

/// Holds the context's store open (it takes the writes); the other stores
/// recall searches (the user store beside a project store) are opened per
/// operation, so servers of several projects can share them.
fn open_service(ctx: &Context) -> anyhow::Result<Service> {
    ctx.service(ctx.recall_stores.iter(), super::model::load())?
        .context("no store to serve")
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// Completes on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
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

fn close(service: Arc<Service>) -> anyhow::Result<()> {
    match Arc::try_unwrap(service) {
        Ok(service) => Ok(service.close()?),
        // A request still running holds the service: its store is closed
        // by the process exit (the log syncs on drop).
        Err(_) => {
            eprintln!("engram: warning: a request was still running at shutdown");
            Ok(())
        }
    }
}

pub fn serve(ctx: &Context, args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let token = match std::env::var(TOKEN_ENV) {
        Ok(token) if !token.trim().is_empty() => {
            let token = token.trim();
            check_token(token).with_context(|| format!("{TOKEN_ENV} is refused"))?;
            Some(token.to_owned())
        }
        _ if args.addr.ip().is_loopback() => None,
        _ => {
            let token = generate_token().context("generating a token")?;
            eprintln!(
                "engram: {TOKEN_ENV} is not set and {} is not loopback: generated a token (shown once):\n  {token}",
                args.addr
            );
            Some(token)
        }
    };
    let service = Arc::new(open_service(ctx)?);
    let state = AppState {
        service: Arc::clone(&service),
        token: token.as_deref().map(Arc::from),
    };
    let runtime = runtime()?;
    let served = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .with_context(|| format!("listening on {}", args.addr))?;
        let local = listener.local_addr().context("reading the bound address")?;
        let fragment = token
            .as_deref()
            .map(|t| format!("#token={t}"))
            .unwrap_or_default();
        eprintln!(
            "engram: serving {} at http://{local}/{fragment}",
            ctx.describe()
        );
        engram::http::serve(listener, router(state), shutdown_signal())
            .await
            .context("serving HTTP")
    });
    // Requests still running finish before the runtime drops.
    runtime.shutdown_timeout(std::time::Duration::from_secs(30));
    served?;
    close(service)?;
    eprintln!("engram: stopped; views persisted");
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
    let service = Arc::new(open_service(ctx)?);
    eprintln!("engram: MCP server on stdio for {}", ctx.describe());
    let runtime = runtime()?;
    let served = runtime.block_on(async {
        let server = McpServer::new(Arc::clone(&service))
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
    close(service)?;
    Ok(ExitCode::SUCCESS)
}

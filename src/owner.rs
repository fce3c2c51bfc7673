//! One owner per store: the process holding the log's write lock, the views
//! and the group-commit writer serves every other process over a Unix
//! domain socket in the store folder, `engram.sock`.
//!
//! The socket is one more door to the HTTP router ([`crate::http::router`]
//! over one [`crate::api::Service`]): the same request types, handlers and
//! answers as the TCP API. The socket file is mode 0600 in a 0700 folder,
//! and a connection whose peer runs under another uid is closed unanswered.
//! Every answer carries the owner's version, pid and kind in headers, so a
//! client can tell an engram owner of another version (or something that is
//! not engram at all) from a good one.

use std::io;
use std::os::unix::fs::{
    DirBuilderExt as _, FileTypeExt as _, MetadataExt as _, PermissionsExt as _,
};
use std::os::unix::net::UnixListener as StdUnixListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

/// Name of the owner's socket inside a store folder.
pub const SOCKET_FILE_NAME: &str = "engram.sock";
/// Name of the lock file that decides which client starts a daemon.
pub const DAEMON_LOCK_FILE_NAME: &str = "daemon.lock";
/// Name of a detached daemon's log file inside the store folder.
pub const DAEMON_LOG_FILE_NAME: &str = "daemon.log";
/// Header naming the owner's engram version on every answer.
pub const VERSION_HEADER: &str = "x-engram-version";
/// Header naming the owner's process id on every answer.
pub const PID_HEADER: &str = "x-engram-pid";
/// Header naming what kind of owner answers: `daemon`, `serve`, `app`.
pub const KIND_HEADER: &str = "x-engram-owner";
/// This build's version, as owners report it and clients compare it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The owner's socket of the store at `store_dir`.
#[must_use]
pub fn socket_path(store_dir: &Path) -> PathBuf {
    store_dir.join(SOCKET_FILE_NAME)
}

/// Errors of taking a store's socket.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OwnerError {
    #[error(
        "{path} exists and is not a socket: engram keeps its owner's socket there; move that file away"
    )]
    NotASocket { path: PathBuf },
    #[error(
        "something already answers on {path}, though this process holds the store's write lock: it is not this store's engram owner; stop it or remove the socket"
    )]
    Occupied { path: PathBuf },
    #[error("{op} {path}: {source}")]
    Io {
        op: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

fn io_error<'a>(op: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> OwnerError + 'a {
    move |source| OwnerError::Io {
        op,
        path: path.to_owned(),
        source,
    }
}

/// Creates the store folder (mode 0700) when missing, and narrows an
/// existing one this user owns to 0700: the socket inside it is reachable
/// by this user alone.
///
/// # Errors
/// When the folder cannot be created or its mode changed (a folder the user
/// cannot write, or another user's).
pub fn prepare_store_folder(dir: &Path) -> Result<(), OwnerError> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io_error("creating store folder", dir))?;
    let meta = std::fs::metadata(dir).map_err(io_error("reading store folder", dir))?;
    if meta.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(io_error("making the store folder private (0700)", dir))?;
    }
    Ok(())
}

/// Binds the socket of the store at `store_dir` (mode 0600, its folder
/// 0700). Call it while holding the store's write lock: a socket file left
/// by an owner that died (nothing answers) is replaced; a file that is not
/// a socket, or a socket something else answers on, is an error.
///
/// # Errors
/// [`OwnerError`].
pub fn bind_socket(store_dir: &Path) -> Result<StdUnixListener, OwnerError> {
    prepare_store_folder(store_dir)?;
    let path = socket_path(store_dir);
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if !meta.file_type().is_socket() => {
            return Err(OwnerError::NotASocket { path });
        }
        Ok(_) => match std::os::unix::net::UnixStream::connect(&path) {
            Ok(_) => return Err(OwnerError::Occupied { path }),
            // Left by a killed owner: nobody listens.
            Err(_) => {
                std::fs::remove_file(&path).map_err(io_error("removing the stale socket", &path))?
            }
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_error("reading", &path)(e)),
    }
    let listener = StdUnixListener::bind(&path).map_err(io_error("binding socket", &path))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
        .map_err(io_error("making the socket private (0600)", &path))?;
    listener
        .set_nonblocking(true)
        .map_err(io_error("configuring socket", &path))?;
    Ok(listener)
}

/// Whether a peer may talk to the owner: only a process of the owner's own
/// uid (an unknown peer uid is refused).
#[must_use]
pub fn peer_allowed(peer_uid: Option<u32>, own_uid: u32) -> bool {
    peer_uid == Some(own_uid)
}

/// The user this process runs as.
#[must_use]
pub fn current_uid() -> u32 {
    rustix::process::getuid().as_raw()
}

/// A socket listener that closes connections of other users unanswered.
struct PeerChecked {
    inner: tokio::net::UnixListener,
    uid: u32,
}

impl axum::serve::Listener for PeerChecked {
    type Io = tokio::net::UnixStream;
    type Addr = tokio::net::unix::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let (stream, addr) = axum::serve::Listener::accept(&mut self.inner).await;
            let peer = stream.peer_cred().ok().map(|c| c.uid());
            if peer_allowed(peer, self.uid) {
                return (stream, addr);
            }
            eprintln!(
                "engram: refused a connection from uid {}: only uid {} may use this store",
                peer.map_or_else(|| "unknown".to_owned(), |u| u.to_string()),
                self.uid
            );
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// When the owner last answered, and how many requests it is answering:
/// a daemon exits once it has been idle long enough.
#[derive(Debug)]
pub struct Activity {
    start: Instant,
    last_ms: AtomicU64,
    in_flight: AtomicUsize,
}

impl Default for Activity {
    fn default() -> Self {
        Self {
            start: Instant::now(),
            last_ms: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
        }
    }
}

impl Activity {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// How long nothing was asked (zero while a request runs).
    #[must_use]
    pub fn idle_for(&self) -> Duration {
        if self.in_flight.load(Ordering::SeqCst) > 0 {
            return Duration::ZERO;
        }
        Duration::from_millis(
            self.now_ms()
                .saturating_sub(self.last_ms.load(Ordering::SeqCst)),
        )
    }

    fn begin(&self) {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
    }

    fn end(&self) {
        self.last_ms.store(self.now_ms(), Ordering::SeqCst);
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Who serves the socket, as its answers name it.
#[derive(Debug, Clone)]
pub struct OwnerInfo {
    /// `daemon`, `serve`, `app` (an application embedding the crate).
    pub kind: &'static str,
    /// Requests update it; `None` when nobody watches for idleness.
    pub activity: Option<Arc<Activity>>,
}

async fn stamp(info: Arc<OwnerInfo>, request: Request, next: Next) -> Response {
    struct Ending(Option<Arc<Activity>>);
    impl Drop for Ending {
        fn drop(&mut self) {
            if let Some(a) = &self.0 {
                a.end();
            }
        }
    }
    // A probe of who owns the store is not use: it keeps no daemon alive.
    let counted = (request.uri().path() != "/api/health")
        .then(|| info.activity.clone())
        .flatten();
    if let Some(a) = &counted {
        a.begin();
    }
    let _ending = Ending(counted);
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(VERSION_HEADER, HeaderValue::from_static(VERSION));
    headers.insert(PID_HEADER, HeaderValue::from(std::process::id()));
    headers.insert(KIND_HEADER, HeaderValue::from_static(info.kind));
    response
}

/// Serves `router` on the store socket `listener` (from [`bind_socket`])
/// until `shutdown` completes: each answer names the owner (version, pid,
/// kind), each request counts as activity, and peers of other uids are
/// refused. Must run inside a tokio runtime.
///
/// # Errors
/// When the listener cannot be handed to the runtime.
pub async fn serve_socket(
    listener: StdUnixListener,
    router: Router,
    info: OwnerInfo,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let listener = PeerChecked {
        inner: tokio::net::UnixListener::from_std(listener)?,
        uid: current_uid(),
    };
    let info = Arc::new(info);
    let router = router.layer(axum::middleware::from_fn(move |request, next| {
        stamp(Arc::clone(&info), request, next)
    }));
    axum::serve(listener, router.into_make_service())
        .with_graceful_shutdown(shutdown)
        .await
}

/// The identity of a bound socket file, to notice it was removed or
/// replaced (the store folder deleted, another owner took over).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SocketId {
    dev: u64,
    ino: u64,
}

impl SocketId {
    /// The socket file of `store_dir` as it is now.
    #[must_use]
    pub fn of(store_dir: &Path) -> Option<Self> {
        std::fs::symlink_metadata(socket_path(store_dir))
            .ok()
            .map(|m| Self {
                dev: m.dev(),
                ino: m.ino(),
            })
    }
}

/// Removes the socket file at shutdown, unless another owner replaced it.
pub fn remove_socket(store_dir: &Path, bound: Option<SocketId>) {
    if bound.is_some() && SocketId::of(store_dir) == bound {
        let _ = std::fs::remove_file(socket_path(store_dir));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_owners_uid_is_allowed() {
        assert!(peer_allowed(Some(1000), 1000));
        assert!(!peer_allowed(Some(1001), 1000));
        assert!(!peer_allowed(Some(0), 1000));
        assert!(!peer_allowed(None, 1000));
    }

    #[test]
    fn a_file_in_the_sockets_place_is_refused_and_a_stale_socket_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = socket_path(dir.path());
        std::fs::write(&path, b"not a socket").unwrap();
        assert!(matches!(
            bind_socket(dir.path()),
            Err(OwnerError::NotASocket { .. })
        ));
        std::fs::remove_file(&path).unwrap();
        // A socket whose listener is gone: stale, replaced.
        drop(StdUnixListener::bind(&path).unwrap());
        let listener = bind_socket(dir.path()).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let folder = std::fs::metadata(dir.path()).unwrap().permissions().mode() & 0o777;
        assert_eq!(folder, 0o700);
        // A live listener: occupied.
        assert!(matches!(
            bind_socket(dir.path()),
            Err(OwnerError::Occupied { .. })
        ));
        drop(listener);
    }
}

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

use std::collections::BTreeMap;
use std::sync::Weak;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use tower::ServiceExt as _;

use crate::api::{ApiError, ErrorCode, HeldStore, ServedStore, Service, SharedStore};
use crate::engine::{EngineError, Engram};
use crate::http::{AppState, HttpError, router};
use crate::store::{Store, StoreOptions};

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
/// Header naming the client's engram version on a request to the socket.
/// An owner of another version refuses the request before it runs
/// (`409 version_mismatch`, with the owner's headers), so a client sends
/// its request at once instead of asking the owner's version first. A
/// request without it (another program's client) is served.
pub const CLIENT_VERSION_HEADER: &str = "x-engram-client-version";
/// Header naming the stores a request spans, primary first, by their
/// folder names under the owner's folder (`project-0123abcd,user`), or
/// [`SINGLE_STORE_NAME`] for an owner of one store.
pub const STORES_HEADER: &str = "x-engram-stores";
/// The one store of an owner of a single store folder (`--store DIR`).
pub const SINGLE_STORE_NAME: &str = ".";

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
        "another process already owns {path} (an engram daemon, `engram serve`, or an application): use it as a client, or stop it first"
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

/// Name of the lock file an owner holds for its whole life.
pub const OWNER_LOCK_FILE_NAME: &str = "owner.lock";

/// A bound owner socket, with the lock that makes its holder the one owner.
#[derive(Debug)]
pub struct OwnerSocket {
    listener: StdUnixListener,
    id: Option<SocketId>,
    root: PathBuf,
    /// Held while the socket is served; released (by the kernel, too, when
    /// the owner is killed) when dropped.
    _lock: std::fs::File,
}

impl OwnerSocket {
    /// The identity of the socket file as bound.
    #[must_use]
    pub fn id(&self) -> Option<SocketId> {
        self.id
    }

    /// The folder holding the socket.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }
}

/// Becomes the owner of the folder `root`: takes `owner.lock` (never
/// waiting: another live owner holds it), then binds `engram.sock` (mode
/// 0600, the folder 0700). A socket file left by an owner that died is
/// replaced (the lock proves nobody serves it); a file that is not a socket
/// is an error.
///
/// # Errors
/// [`OwnerError`]: another owner, a file in the socket's place, or a folder
/// the user cannot write.
pub fn bind_socket(root: &Path) -> Result<OwnerSocket, OwnerError> {
    use std::os::unix::fs::OpenOptionsExt as _;
    prepare_store_folder(root)?;
    let lock_path = root.join(OWNER_LOCK_FILE_NAME);
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(&lock_path)
        .map_err(io_error("opening", &lock_path))?;
    match rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => {}
        Err(e) if e == rustix::io::Errno::WOULDBLOCK => {
            return Err(OwnerError::Occupied {
                path: socket_path(root),
            });
        }
        Err(e) => return Err(io_error("locking", &lock_path)(e.into())),
    }
    let path = socket_path(root);
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if !meta.file_type().is_socket() => {
            return Err(OwnerError::NotASocket { path });
        }
        Ok(_) => match std::os::unix::net::UnixStream::connect(&path) {
            // Not an engram owner (it would hold the lock): something else.
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
    Ok(OwnerSocket {
        listener,
        id: SocketId::of(root),
        root: root.to_owned(),
        _lock: lock,
    })
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
    let mut response = match refused_client(&request) {
        Some(refusal) => HttpError(refusal).into_response(),
        None => next.run(request).await,
    };
    let headers = response.headers_mut();
    headers.insert(VERSION_HEADER, HeaderValue::from_static(VERSION));
    headers.insert(PID_HEADER, HeaderValue::from(std::process::id()));
    headers.insert(KIND_HEADER, HeaderValue::from_static(info.kind));
    response
}

/// The refusal of a request from a client of another engram version
/// ([`CLIENT_VERSION_HEADER`]): it is not run, whatever it asks.
fn refused_client(request: &Request) -> Option<ApiError> {
    let theirs = request.headers().get(CLIENT_VERSION_HEADER)?;
    if theirs.as_bytes() == VERSION.as_bytes() {
        return None;
    }
    Some(ApiError::new(
        ErrorCode::VersionMismatch,
        format!(
            "this engram owner runs version {VERSION}, the client is version {}: the request was not run; restart the owner with the client's version, or use a client of its version",
            String::from_utf8_lossy(theirs.as_bytes())
        ),
    ))
}

/// Serves `router` on the store socket `listener` (from [`bind_socket`])
/// until `shutdown` completes: each answer names the owner (version, pid,
/// kind), each request counts as activity, and peers of other uids are
/// refused. Must run inside a tokio runtime.
///
/// # Errors
/// When the listener cannot be handed to the runtime.
pub async fn serve_socket(
    socket: &OwnerSocket,
    router: Router,
    info: OwnerInfo,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let listener = PeerChecked {
        inner: tokio::net::UnixListener::from_std(socket.listener.try_clone()?)?,
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

/// Removes the socket file at shutdown, unless another owner replaced it,
/// and gives up ownership.
pub fn remove_socket(socket: OwnerSocket) {
    if socket.id.is_some() && SocketId::of(&socket.root) == socket.id {
        let _ = std::fs::remove_file(socket_path(&socket.root));
    }
}

/// Which stores an owner serves from the folder holding its socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One store: the socket's folder is the store (`--store DIR`).
    Single,
    /// Every store of an engram home: `user` and `project-<hash>`. A recall
    /// spans the user store and a project store, so their one owner holds
    /// both open (no per-operation open, no lock between two owners).
    Home,
}

/// A service over some stores, and its router.
type Served = (Arc<Service>, Router);

/// The stores one owner holds open, and the service (and router) of each
/// combination of stores a request spans. Stores open on first use; a
/// store a read names but that has no log yet is not created.
pub struct Owned {
    root: PathBuf,
    layout: Layout,
    options: StoreOptions,
    embedder: Option<Arc<dyn engram_embed::Embedder>>,
    engrams: parking_lot::Mutex<BTreeMap<String, Arc<Engram>>>,
    routers: parking_lot::Mutex<BTreeMap<Vec<String>, Served>>,
    maintenance: MaintenanceCounts,
    /// Per store, the last seq an earlier run of this owner looked at: the
    /// next run rescores uniqueness only around the memories saved since
    /// (`MaintainPolicy::rescore_after`), so a run costs what arrived, not
    /// what the store holds. A new owner starts from the newest memories.
    rescored_through: parking_lot::Mutex<BTreeMap<String, u64>>,
}

/// The first scheduled maintenance run comes this long after the owner
/// starts (or one interval, when that is shorter): soon enough that an
/// owner started for a few commands still runs it, late enough that a
/// burst of commands is not slowed by it.
pub const MAINTENANCE_FIRST_RUN_AFTER: Duration = Duration::from_secs(300);

/// How the owner's maintenance went since it started (`daemon status`).
#[derive(Debug, Default)]
struct MaintenanceCounts {
    /// The schedule's interval in ms; 0 while none runs.
    every_ms: AtomicU64,
    runs: AtomicU64,
    archived: AtomicU64,
    rescored: AtomicU64,
    failed: AtomicU64,
}

/// One store's part of a maintenance run.
#[derive(Debug)]
pub struct StoreMaintained {
    /// The store's name under the owner's folder (`user`, `project-...`,
    /// `.`).
    pub store: String,
    pub result: Result<engram_commands::maintain::Maintained, EngineError>,
}

impl std::fmt::Debug for Owned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Owned")
            .field("root", &self.root)
            .field("layout", &self.layout)
            .field("open", &self.engrams.lock().keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Owned {
    /// The owner of the stores under `root` (the store itself for
    /// [`Layout::Single`]), opened with `options`, `embedder` attached.
    #[must_use]
    pub fn new(
        root: impl Into<PathBuf>,
        layout: Layout,
        options: StoreOptions,
        embedder: Option<Arc<dyn engram_embed::Embedder>>,
    ) -> Arc<Self> {
        Arc::new(Self {
            root: root.into(),
            layout,
            options,
            embedder,
            engrams: parking_lot::Mutex::new(BTreeMap::new()),
            routers: parking_lot::Mutex::new(BTreeMap::new()),
            maintenance: MaintenanceCounts::default(),
            rescored_through: parking_lot::Mutex::new(BTreeMap::new()),
        })
    }

    /// The folder holding the socket.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Refuses a store name this owner does not serve: only plain folder
    /// names of its layout, never a path.
    fn check_name(&self, name: &str) -> Result<(), ApiError> {
        let good = match self.layout {
            Layout::Single => name == SINGLE_STORE_NAME,
            Layout::Home => {
                name == "user"
                    || name.strip_prefix("project-").is_some_and(|hash| {
                        !hash.is_empty()
                            && hash.len() <= 64
                            && hash.bytes().all(|b| b.is_ascii_hexdigit())
                    })
            }
        };
        if good {
            Ok(())
        } else {
            Err(ApiError::bad_request(format!(
                "{STORES_HEADER}: {name:?} is not a store this owner serves ({})",
                match self.layout {
                    Layout::Single => "it owns one store: name it `.`".to_owned(),
                    Layout::Home => "`user` or `project-<hex>`".to_owned(),
                }
            )))
        }
    }

    fn store(&self, name: &str) -> Store {
        match self.layout {
            Layout::Single => Store::at(self.root.clone()),
            Layout::Home => Store::at(self.root.join(name)),
        }
    }

    fn scope(&self, name: &str) -> &'static str {
        match (self.layout, name) {
            (Layout::Single, _) => "store",
            (Layout::Home, "user") => "user",
            (Layout::Home, _) => "project",
        }
    }

    /// The store `name`, held open from its first use; `None` when it has
    /// no log and `create` is false.
    fn engram(&self, name: &str, create: bool) -> Result<Option<Arc<Engram>>, EngineError> {
        let mut engrams = self.engrams.lock();
        if let Some(engram) = engrams.get(name) {
            return Ok(Some(Arc::clone(engram)));
        }
        let store = self.store(name);
        if !create && !store.has_log() && self.options.shared_log.is_none() {
            return Ok(None);
        }
        let mut engram = Engram::open(store, &self.options)?;
        if let Some(embedder) = &self.embedder {
            warn_unfit_vectors(&engram, embedder.as_ref());
            engram = engram.with_embedder(Arc::clone(embedder));
        }
        let engram = Arc::new(engram);
        engrams.insert(name.to_owned(), Arc::clone(&engram));
        Ok(Some(engram))
    }

    /// The service over `names` (primary first) and its router, made on
    /// first use. The primary store is opened (created when new); the
    /// others only once they have a log.
    ///
    /// # Errors
    /// A name this owner does not serve, or a store that fails to open.
    pub fn service_for(
        self: &Arc<Self>,
        names: &[String],
    ) -> Result<(Arc<Service>, Router), ApiError> {
        let Some((primary, others)) = names.split_first() else {
            return Err(ApiError::bad_request(format!(
                "{STORES_HEADER}: name at least one store"
            )));
        };
        for name in names {
            self.check_name(name)?;
        }
        if let Some(found) = self.routers.lock().get(names) {
            return Ok(found.clone());
        }
        let engram = self
            .engram(primary, true)?
            .ok_or_else(|| ApiError::new(ErrorCode::Internal, "the primary store did not open"))?;
        let served = ServedStore {
            scope: self.scope(primary),
            engram,
        };
        let others = others
            .iter()
            .map(|name| {
                let owned: Weak<Self> = Arc::downgrade(self);
                let held_name = name.clone();
                let held: HeldStore = Arc::new(move |create| match owned.upgrade() {
                    Some(owned) => owned.engram(&held_name, create),
                    None => Err(EngineError::Closed),
                });
                SharedStore::held(self.scope(name), self.store(name), held)
            })
            .collect();
        let service = Arc::new(Service::new(served, others));
        let router = router(AppState {
            service: Arc::clone(&service),
            token: None,
        });
        self.routers
            .lock()
            .insert(names.to_vec(), (Arc::clone(&service), router.clone()));
        Ok((service, router))
    }

    /// The service and router of `names` when a request named them before
    /// (the names were checked, the stores are open).
    fn served(&self, names: &[String]) -> Option<Served> {
        self.routers.lock().get(names).cloned()
    }

    /// The router of the socket: each request goes to the service of the
    /// stores its [`STORES_HEADER`] names. A health probe needs no name.
    pub fn router(self: &Arc<Self>) -> Router {
        Router::new()
            .fallback(dispatch)
            .with_state(Arc::clone(self))
    }

    /// One maintenance run at `now_ms` over every store this owner holds
    /// open, by the system, with `policy`: what `engram maintain` does
    /// (archive what expired, decayed or is evicted; record uniqueness that
    /// changed), through the same handler and gate chain, uniqueness only
    /// around the memories saved since this owner's last run (the newest
    /// ones on its first). A store with nothing to do appends nothing. The scheduler calls it; an
    /// application or a test can call it as a tick of its own clock.
    pub fn maintain_now(
        &self,
        policy: &engram_commands::maintain::MaintainPolicy,
        now_ms: u64,
    ) -> Vec<StoreMaintained> {
        let open: Vec<(String, Arc<Engram>)> = self
            .engrams
            .lock()
            .iter()
            .map(|(name, engram)| (name.clone(), Arc::clone(engram)))
            .collect();
        let system = crate::Subject {
            actor: engram_log::Actor::System,
            session: None,
        };
        let counts = &self.maintenance;
        let done: Vec<StoreMaintained> = open
            .into_iter()
            .map(|(store, engram)| {
                let after = self.rescored_through.lock().get(&store).copied();
                let through = engram.log().last_seq();
                let policy = engram_commands::maintain::MaintainPolicy {
                    rescore_after: Some(after.unwrap_or(0)),
                    ..*policy
                };
                let result = engram.maintain_as(&policy, now_ms, false, &system);
                if result.is_ok() {
                    self.rescored_through.lock().insert(store.clone(), through);
                }
                match &result {
                    Ok(m) => {
                        counts
                            .archived
                            .fetch_add(m.archived.len() as u64, Ordering::SeqCst);
                        counts
                            .rescored
                            .fetch_add(m.rescored.len() as u64, Ordering::SeqCst);
                    }
                    Err(_) => {
                        counts.failed.fetch_add(1, Ordering::SeqCst);
                    }
                }
                StoreMaintained { store, result }
            })
            .collect();
        counts.runs.fetch_add(1, Ordering::SeqCst);
        done
    }

    /// Runs [`Owned::maintain_now`] with the default policy every `every`
    /// (the first run after [`MAINTENANCE_FIRST_RUN_AFTER`], or `every` when
    /// shorter), at the wall clock's time, reporting on stderr (the owner's
    /// log) what each run changed and what failed. Never ends: run it
    /// beside the server and drop it at shutdown. Must run inside a tokio
    /// runtime; each run is on a blocking thread.
    pub async fn run_maintenance(self: Arc<Self>, every: Duration) {
        let every_ms = u64::try_from(every.as_millis()).unwrap_or(u64::MAX).max(1);
        self.maintenance.every_ms.store(every_ms, Ordering::SeqCst);
        let first = every.min(MAINTENANCE_FIRST_RUN_AFTER);
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + first, every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            let owned = Arc::clone(&self);
            let ran = tokio::task::spawn_blocking(move || {
                let policy = engram_commands::maintain::MaintainPolicy::default();
                owned.maintain_now(&policy, crate::engine::now_ms())
            })
            .await;
            let Ok(done) = ran else {
                eprintln!("engram: maintenance stopped unexpectedly; the next run will try again");
                continue;
            };
            for StoreMaintained { store, result } in done {
                match result {
                    Ok(m) if m.is_empty() => {}
                    Ok(m) => eprintln!(
                        "engram: maintenance of store {store}: archived {}, uniqueness refreshed for {}",
                        m.archived.len(),
                        m.rescored.len()
                    ),
                    Err(e) => eprintln!("engram: maintenance of store {store} failed: {e}"),
                }
            }
        }
    }

    /// The maintenance schedule and what it did since the owner started:
    /// `{"every": "1h" | null, "runs", "archived", "rescored", "failed"}`.
    #[must_use]
    pub fn maintenance_status(&self) -> serde_json::Value {
        let c = &self.maintenance;
        let every = match c.every_ms.load(Ordering::SeqCst) {
            0 => serde_json::Value::Null,
            ms => serde_json::Value::String(
                humantime::format_duration(Duration::from_millis(ms)).to_string(),
            ),
        };
        serde_json::json!({
            "every": every,
            "runs": c.runs.load(Ordering::SeqCst),
            "archived": c.archived.load(Ordering::SeqCst),
            "rescored": c.rescored.load(Ordering::SeqCst),
            "failed": c.failed.load(Ordering::SeqCst),
        })
    }

    /// Closes every store, persisting its views. Call it once the routers
    /// are dropped (after serving ends); a store a request still holds is
    /// closed when that request ends.
    ///
    /// # Errors
    /// The first store that failed to close.
    pub fn close(&self) -> Result<(), EngineError> {
        self.routers.lock().clear();
        let engrams = std::mem::take(&mut *self.engrams.lock());
        let mut first = Ok(());
        for (_, engram) in engrams {
            if let Ok(engram) = Arc::try_unwrap(engram) {
                let closed = engram.close();
                if first.is_ok() {
                    first = closed;
                }
            }
        }
        first
    }
}

/// Warns (on stderr, the owner's log) when the store's vectors do not fit
/// `model`: another dimension, or none yet. Recall is then keyword-only
/// until `engram reembed`.
fn warn_unfit_vectors(engram: &Engram, model: &dyn engram_embed::Embedder) {
    let stored = engram
        .core()
        .vectors
        .read()
        .state
        .dimension(model.model_id());
    let memories = engram.core().memory_table.read().state.len();
    match stored {
        Some(dim) if dim != model.dimension() => eprintln!(
            "engram: warning: the stored vectors of {} have {dim} dimensions, the model gives {}: recall is keyword-only",
            model.model_id(),
            model.dimension()
        ),
        None if memories > 0 => eprintln!(
            "engram: warning: no memory has a vector of {} yet: run `engram reembed` for hybrid recall",
            model.model_id()
        ),
        _ => {}
    }
}

/// The stores a request names, from its [`STORES_HEADER`].
fn named_stores(request: &Request) -> Result<Option<Vec<String>>, ApiError> {
    let Some(value) = request.headers().get(STORES_HEADER) else {
        return Ok(None);
    };
    let text = value
        .to_str()
        .map_err(|_| ApiError::bad_request(format!("{STORES_HEADER} is not text")))?;
    Ok(Some(
        text.split(',').map(|name| name.trim().to_owned()).collect(),
    ))
}

async fn dispatch(State(owned): State<Arc<Owned>>, request: Request) -> Response {
    let names = match named_stores(&request) {
        Ok(Some(names)) => names,
        Ok(None) if request.uri().path() == "/api/health" => {
            return axum::Json(serde_json::json!({
                "ok": true, "name": "engram", "version": VERSION,
                "root": owned.root().display().to_string(),
                "maintenance": owned.maintenance_status(),
            }))
            .into_response();
        }
        Ok(None) => {
            return HttpError(ApiError::bad_request(format!(
                "name the stores of the request in the {STORES_HEADER} header"
            )))
            .into_response();
        }
        Err(e) => return HttpError(e).into_response(),
    };
    // Stores a request named before are open: no blocking thread needed.
    let opened = match owned.served(&names) {
        Some(served) => Ok(Ok(served)),
        None => tokio::task::spawn_blocking(move || owned.service_for(&names)).await,
    };
    match opened {
        Ok(Ok((_, router))) => match router.oneshot(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        },
        Ok(Err(e)) => HttpError(e).into_response(),
        Err(e) => HttpError(ApiError::new(
            ErrorCode::Internal,
            format!("opening the store failed unexpectedly: {e}"),
        ))
        .into_response(),
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
        let socket = bind_socket(dir.path()).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let folder = std::fs::metadata(dir.path()).unwrap().permissions().mode() & 0o777;
        assert_eq!(folder, 0o700);
        // A live owner: occupied.
        assert!(matches!(
            bind_socket(dir.path()),
            Err(OwnerError::Occupied { .. })
        ));
        remove_socket(socket);
        assert!(!path.exists());
        // Something else listening where no owner holds the lock.
        let foreign = StdUnixListener::bind(&path).unwrap();
        assert!(matches!(
            bind_socket(dir.path()),
            Err(OwnerError::Occupied { .. })
        ));
        drop(foreign);
    }
}

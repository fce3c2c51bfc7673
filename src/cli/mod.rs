//! Command-line arguments and dispatch. Each command lives in its own module;
//! flags are defined once here with their help.

mod bench;
mod config;
pub(crate) mod daemon;
mod door;
mod flywheel;
mod hook;
mod ingest;
mod inspect;
mod install;
mod log_cmd;
mod memories;
mod memory;
mod model;
mod palace;
mod repair;
mod serve;
mod tiers;
mod transfer;
mod verify;
mod views;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::{Parser, Subcommand, ValueEnum};
use engram::config::{Secret, Settings};
use engram::log::{Durability, KeySource};
use engram::scope::{StoreScope, default_scope, engram_home, scope_store_dir};
use engram::store::{Store, StoreOptions};

/// Exit status of a failed check (`verify` found corruption) or of nothing
/// found (`recall` without hits, `confirm` of a quote not in the source).
pub const EXIT_CHECK_FAILED: u8 = 1;
/// Exit status of any other error.
pub const EXIT_ERROR: u8 = 2;

/// engram: durable, auditable long-term memory for LLM agents.
///
/// Every memory operation is an event in an append-only log of segment files,
/// sealed with a blake3 hash chain and HMAC-SHA256. Exit status: 0 success,
/// 1 a check failed or nothing was found (verify found corruption or
/// tampering, recall found no memory), 2 any other error.
///
/// Stores live under the engram home ($ENGRAM_HOME, else ~/.engram): a user
/// store (`user/`) and one per project (`project-<hash>/`, keyed by the git
/// identity of the working directory). Inside a git repository commands use
/// the project store, elsewhere the user store; recall searches both.
#[derive(Debug, Parser)]
#[command(name = "engram", version, about, long_about)]
pub struct Args {
    /// Store folder to use directly, instead of the scope's store under the
    /// engram home (created on first write).
    #[arg(long, global = true, value_name = "DIR")]
    store: Option<PathBuf>,

    /// Which store under the engram home: `project` (the git repository of
    /// the working directory) or `user`. Default: project inside a git
    /// repository, user elsewhere; recall searches both unless given.
    #[arg(long, global = true, value_name = "SCOPE", conflicts_with = "store")]
    scope: Option<StoreScope>,

    /// HMAC key file (32 raw bytes or 64 hex digits) instead of the store's
    /// own hmac.key. ENGRAM_HMAC_KEY (64 hex digits) takes precedence.
    #[arg(long, global = true, value_name = "PATH")]
    key_file: Option<PathBuf>,

    /// A shared log on PostgreSQL (`postgres://user:password@host/db`) for
    /// a team of machines: appends go there, and this store keeps a
    /// verified copy its views fold (a read replica). Every machine needs
    /// the same HMAC key (ENGRAM_HMAC_KEY or --key-file). Also
    /// ENGRAM_LOG_URL, or `log` in the config file.
    #[arg(long = "log", global = true, value_name = "URL")]
    shared_log: Option<String>,

    /// Open the store in this process instead of asking its owner (for
    /// scripts and tests). Fails while an owner (a daemon, `engram serve`,
    /// an application) holds the store.
    #[arg(long, global = true)]
    in_process: bool,

    #[command(subcommand)]
    command: Command,
}

/// The subcommands. Each one's arguments are built only when it is the one
/// invoked (`defer`): a command line call is a whole process, and building
/// the arguments of all forty-odd subcommands took about a tenth of a
/// recall's CPU time. `clap_tree_is_consistent` builds the whole tree.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
enum Command {
    /// Verify the log: segment headers, contiguous seqs, the hash chain and
    /// every frame's HMAC. Exit 0 when it verifies (a torn tail that recovery
    /// would truncate is a warning), 1 on corruption or tampering, 2 on error.
    Verify(verify::VerifyArgs),
    /// Cut damage off the end of the log (`--truncate-from SEQ`), keeping a
    /// copy of every file the cut changes in the store. Opening never cuts
    /// damage that a crash cannot explain: it refuses and names this command.
    Repair(repair::RepairArgs),
    /// Print events in seq order; --json prints one object per line with
    /// seq, ts, kind and the event's own fields.
    Log(log_cmd::LogArgs),
    /// Measure append and replay on this machine (writes synthetic events:
    /// use a scratch --store).
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Record a transcript (JSON lines) as one session's turns, redacting
    /// secrets and personal data first. Prints the session id and seq range.
    Ingest(ingest::IngestArgs),
    /// Set up a harness (claude-code: the MCP server and the hooks; cursor:
    /// the MCP server) in the project's settings or, with --user, the
    /// user's. Merges with what is there and keeps a backup of each file it
    /// changes; exit 1 when already installed.
    Install(install::InstallArgs),
    /// Take out what `install` put in a harness's settings; a file nothing
    /// else changed is restored byte for byte. Exit 1 when not installed.
    Uninstall(install::InstallArgs),
    /// Memory in an agent harness's loop: recall for each prompt, capture
    /// each session's transcript. Reads the harness's hook JSON on stdin;
    /// never blocks it (a failure exits 1 and is logged in hook.log).
    #[command(subcommand)]
    Hook(hook::HookCommand),
    /// Counts, per-view watermark and lag, memories by status and tier.
    Stats(views::StatsArgs),
    /// A memory's full history in seq order, from the audit view.
    Audit(views::AuditArgs),
    /// Drop every view and rebuild it by replaying the log from seq 1.
    Rebuild(views::RebuildArgs),
    /// Look inside the log's files (read-only).
    #[command(subcommand)]
    Inspect(inspect::InspectCommand),
    /// Remember plain text (recorded as a note turn, then referenced) or a
    /// range of session turns already in the log (--first-seq/--last-seq).
    Remember(memory::RememberArgs),
    /// Find memories by what they say: keywords (BM25 over words and CJK
    /// bigrams), fused with the embedding model's nearest memories when a
    /// model is configured (hybrid; `stats` names the mode). Exit 1 when
    /// nothing matches. --format context prints the block for a model.
    Recall(memory::RecallArgs),
    /// Print a memory's original words and prove they were not altered
    /// (content hash and HMAC). A mismatch is an error naming the seq.
    Expand(memory::ExpandArgs),
    /// Tombstone a memory: it never comes back from recall. The log keeps
    /// the original words (see `engram log`).
    Forget(memory::ForgetArgs),
    /// Erase a memory for good, or a whole session (--session S): its
    /// words, and every memory and event derived from them, become
    /// unreadable (their data keys are destroyed) and the views are
    /// rewritten without them. The log keeps that a purge happened, who
    /// asked and the reason, in the clear: never put the secret in
    /// --reason. A store written before encryption cannot be purged.
    Purge(memory::PurgeArgs),
    /// List memories newest first, across the stores recall searches, with
    /// filters (room, tag, tier, status, creation time) and pages (--limit,
    /// --cursor with the `next` a page prints).
    List(memories::ListArgs),
    /// Correct a memory: the new words become a new memory and a verdict
    /// retires the old one (superseded: out of recall, kept in the log),
    /// in one atomic append. A forgotten memory cannot be updated.
    Update(memories::UpdateArgs),
    /// Check that QUOTE occurs in a memory's verified source words and
    /// record the evidence (valid evidence raises trust). Exit 1 when it
    /// does not occur.
    Confirm(memory::ConfirmArgs),
    /// The room directory (rooms, corridors, fill, a one-line topic each);
    /// with ROOM, that room's tour, slot by slot; `palace corridor NAME
    /// --into CORRIDOR` puts a room or corridor on a corridor.
    Palace(palace::PalaceArgs),
    /// Memories too alike to others to stand alone (low uniqueness):
    /// candidates to merge, reword or forget.
    Renovation(palace::RenovationArgs),
    /// Memories due for SM-2 review at --at (default now): coordinates and
    /// cues (the room's topic, tags, entities, the labels of neighbours
    /// that are not due themselves), never a due memory's words. Grade
    /// each with `engram grade`.
    Review(flywheel::ReviewArgs),
    /// Record a review grade 0-5 and advance the memory's SM-2 schedule.
    Grade(flywheel::GradeArgs),
    /// Move a memory to another tier by hand: l1 (its session), l3
    /// (cross-session), l4 (the archive). A forgotten memory cannot move.
    Tier(tiers::TierArgs),
    /// Record the workspace's documents (AGENTS.md, CLAUDE.md, README*,
    /// docs/) as L2 memories: an unchanged file adds nothing, a changed
    /// one supersedes its older version. A document too large or not text
    /// is refused and nothing changes.
    Workspace(tiers::WorkspaceArgs),
    /// The L0 block to put into every prompt: the room directory, the user
    /// profile (memories tagged `profile`) and the most trusted facts,
    /// bounded in size.
    L0(tiers::L0Args),
    /// Open contradictions (and shelved ones) awaiting a verdict.
    Verdicts(flywheel::VerdictsArgs),
    /// Decide a contradiction: keep-a, keep-b (the other leaves recall),
    /// keep-both, or shelve.
    Verdict(flywheel::VerdictArgs),
    /// Archive what should go: expired (--ttl), decayed (idle and
    /// unimportant), evicted (L3 over capacity, least recently used first);
    /// memories that failed their last review are kept. Also refreshes
    /// each memory's uniqueness against the memories near it now. The
    /// store's owner runs it on a schedule (--maintain-every).
    Maintain(flywheel::MaintainArgs),
    /// Propose clusters of similar memories, or record a rule distilled
    /// from some (the caller writes the rule).
    #[command(subcommand)]
    Distill(flywheel::DistillCommand),
    /// People, projects, tools, files, organisations and places named in
    /// memories, with the memories that mention them.
    Entities(flywheel::EntitiesArgs),
    /// Add vectors of the configured embedding model to memories that have
    /// none (written before a model was configured, or under another model).
    Reembed(memory::ReembedArgs),
    /// The sentence model hybrid recall runs: `install NAME` downloads one
    /// from its hub with pinned checksums, `list` shows the catalogue and
    /// what is installed.
    #[command(subcommand)]
    Model(model::ModelCommand),
    /// Serve the HTTP JSON API and the web admin panel (today's reviews,
    /// entities, verdicts, logs, palace) until Ctrl-C. The store stays open
    /// (other writers wait for it). See docs/http.md.
    Serve(serve::ServeArgs),
    /// Own the store for other processes: serve its socket (the HTTP API on
    /// `engram.sock` in the store folder) until stopped or idle. Clients
    /// start one when nothing owns the store; `daemon status`, `daemon stop`.
    Daemon(daemon::DaemonArgs),
    /// Serve the memory tools to an agent harness over MCP on stdio
    /// (stdout carries the protocol, logs go to stderr).
    Mcp(serve::McpArgs),
    /// Each setting's effective value and where it came from: a flag, an
    /// environment variable, the config file ($ENGRAM_HOME/config.toml, or
    /// ENGRAM_CONFIG) and its key, or the default. Secrets are not shown.
    Config(config::ConfigArgs),
    /// Write the log as JSON lines to standard output: a header, one line
    /// per event (seq, commit time, kind, the event's fields, a hash), a
    /// trailer with the count and a digest. `engram import` reads it.
    Export(transfer::ExportArgs),
    /// Rebuild a store from an export: same seqs, commit times and views,
    /// every memory sealed under the store's own key. Into a store with no
    /// log (the whole file is checked first; a bad line leaves nothing), or
    /// continuing a store with an export from its last seq + 1. Refuses the
    /// first bad line, naming it.
    Import(transfer::ImportArgs),
}

/// Durability of appends, as a flag value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DurabilityArg {
    /// Acknowledge after fdatasync (the default).
    Sync,
    /// Acknowledge after the write; fdatasync at least every --interval-ms.
    Interval,
    /// Acknowledge after the write; sync only when sealing and closing.
    None,
}

impl DurabilityArg {
    pub fn to_durability(self, interval: Duration) -> Durability {
        match self {
            DurabilityArg::Sync => Durability::Sync,
            DurabilityArg::Interval => Durability::Interval(interval),
            DurabilityArg::None => Durability::None,
        }
    }
}

/// What every command needs: the store, where its key comes from, and the
/// stores a recall searches.
#[derive(Debug, Clone)]
pub struct Context {
    pub store: Store,
    /// The store's scope name in output: `user`, `project`, or `store` for
    /// a folder given with --store.
    pub scope: &'static str,
    pub key: KeySource,
    /// The stores recall searches, with their scope names, primary first.
    pub recall_stores: Vec<(&'static str, Store)>,
    /// The shared log the primary store replicates (`--log`).
    pub shared_log: Option<String>,
    /// The global flags that chose this store, for a daemon started for it.
    pub global_args: Vec<std::ffi::OsString>,
    /// `--in-process`: open the store here, never through its owner.
    pub in_process: bool,
    /// The engram home whose owner serves the store, `None` for a folder
    /// given with --store (its own owner).
    pub home: Option<std::path::PathBuf>,
    /// The settings from the environment, the config file and the global
    /// flags; a command applies its own flags on top.
    pub settings: Settings,
}

impl Context {
    /// The context a command runs in. A failure says the store was being
    /// resolved, except a broken config file, which names its file and key.
    fn resolve(args: &Args) -> anyhow::Result<Self> {
        Self::new(args).map_err(|e| {
            if e.is::<engram::config::ConfigError>() {
                e
            } else {
                e.context("resolving the store")
            }
        })
    }

    fn new(args: &Args) -> anyhow::Result<Self> {
        let fallback = match &args.key_file {
            Some(path) => KeySource::File(path.clone()),
            None => KeySource::StoreFile,
        };
        let key = KeySource::from_env_or(fallback);
        let home_dir = engram_home();
        let mut settings = Settings::load(home_dir.as_ref().ok().map(PathBuf::as_path))?;
        settings.log = settings.log.with_flag(
            args.shared_log.clone().map(|url| Some(Secret::new(url))),
            "--log",
        );
        let shared_log = settings
            .log
            .value
            .as_ref()
            .map(|url| url.expose().to_owned());
        let mut global_args: Vec<std::ffi::OsString> = Vec::new();
        if let Some(dir) = &args.store {
            global_args.extend(["--store".into(), std::path::absolute(dir)?.into()]);
        }
        if let Some(scope) = args.scope {
            global_args.extend(["--scope".into(), scope.as_str().into()]);
        }
        if let Some(path) = &args.key_file {
            global_args.extend(["--key-file".into(), std::path::absolute(path)?.into()]);
        }
        if let Some(url) = &args.shared_log {
            global_args.extend(["--log".into(), url.into()]);
        }
        if let Some(dir) = &args.store {
            let store = Store::at(dir.clone());
            return Ok(Self {
                recall_stores: vec![("store", store.clone())],
                store,
                scope: "store",
                key,
                shared_log,
                global_args,
                in_process: args.in_process,
                home: None,
                settings,
            });
        }
        let cwd = std::env::current_dir().context("reading the working directory")?;
        let home = home_dir?;
        let scope = match args.scope {
            Some(scope) => scope,
            None => default_scope(&cwd)?,
        };
        let store = Store::at(scope_store_dir(&home, scope, &cwd)?);
        let mut recall_stores = vec![(scope.as_str(), store.clone())];
        // A store replicating a shared log recalls from it alone.
        if args.scope.is_none() && scope == StoreScope::Project && shared_log.is_none() {
            let user = Store::at(scope_store_dir(&home, StoreScope::User, &cwd)?);
            recall_stores.push((StoreScope::User.as_str(), user));
        }
        Ok(Self {
            store,
            scope: scope.as_str(),
            key,
            recall_stores,
            shared_log,
            global_args,
            in_process: args.in_process,
            home: Some(home),
            settings,
        })
    }

    /// The stores a recall searches that hold a log (a recall creates no
    /// store), primary first; all of them for a replica of a shared log.
    pub fn recall_stores_with_log(&self) -> Vec<&Store> {
        self.recall_stores
            .iter()
            .filter(|(_, s)| s.has_log() || self.shared_log.is_some())
            .map(|(_, s)| s)
            .collect()
    }

    /// What the owner of this context's stores owns, in words.
    pub fn describe_owner(&self) -> String {
        match &self.home {
            Some(home) => format!("the engram home at {}", home.display()),
            None => self.describe(),
        }
    }

    /// The folder of the owner's socket: the engram home, or the --store
    /// folder.
    pub fn owner_root(&self) -> &std::path::Path {
        self.home.as_deref().unwrap_or_else(|| self.store.dir())
    }

    /// What the owner of this context's stores owns.
    pub fn layout(&self) -> engram::owner::Layout {
        if self.home.is_some() {
            engram::owner::Layout::Home
        } else {
            engram::owner::Layout::Single
        }
    }

    /// The names of the stores recall searches, primary first.
    pub fn recall_store_names(&self) -> Vec<String> {
        self.recall_stores
            .iter()
            .map(|(_, store)| self.store_name(store))
            .collect()
    }

    /// The name of `store` under the owner's folder.
    pub fn store_name(&self, store: &Store) -> String {
        match &self.home {
            Some(_) => store
                .dir()
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default(),
            None => engram::owner::SINGLE_STORE_NAME.to_owned(),
        }
    }

    /// Whether commands open the stores in this process: with
    /// `--in-process`, and for a store replicating a shared log (`--log`),
    /// whose writer is the shared log's.
    pub fn opens_in_process(&self) -> bool {
        self.in_process || self.shared_log.is_some()
    }

    /// An owner of this context's stores, built in this process.
    pub fn owned(
        &self,
        model: Option<std::sync::Arc<dyn engram_embed::Embedder>>,
    ) -> std::sync::Arc<engram::owner::Owned> {
        engram::owner::Owned::new(
            self.owner_root().to_owned(),
            self.layout(),
            self.options(),
            model,
        )
    }

    /// The socket of this context's owner.
    pub fn owner_socket(&self) -> std::path::PathBuf {
        engram::owner::socket_path(self.owner_root())
    }

    /// Fails, creating nothing, when the store has no log yet: commands
    /// that only read or change what exists never create a store.
    pub fn require_log(&self) -> anyhow::Result<()> {
        // A replica is made (and caught up) on first open.
        anyhow::ensure!(
            self.store.has_log() || self.shared_log.is_some(),
            "{} has no log yet: nothing was recorded there",
            self.describe()
        );
        Ok(())
    }

    /// The store in words: `the user store at DIR`, or `the store at DIR`
    /// for a folder given with --store.
    pub fn describe(&self) -> String {
        describe_store(self.scope, &self.store)
    }

    /// The stores of a command acting on memories that exist, by their ids
    /// (an id names its store): the first with a log first. Refuses,
    /// creating nothing, when no store has a log yet.
    pub fn memory_stores(&self) -> anyhow::Result<Vec<&Store>> {
        // A replica is made (and caught up) on first open.
        let first = if self.shared_log.is_some() {
            Some(0)
        } else {
            self.recall_stores.iter().position(|(_, s)| s.has_log())
        };
        let Some(first) = first else {
            self.require_log()?;
            anyhow::bail!("no store has a log yet: nothing was recorded");
        };
        let order =
            std::iter::once(first).chain((0..self.recall_stores.len()).filter(|i| *i != first));
        Ok(order
            .filter_map(|i| self.recall_stores.get(i))
            .map(|(_, store)| store)
            .collect())
    }

    /// Opens the store for a command that only reads or changes what
    /// exists: refuses, creating nothing, when it has no log yet.
    pub fn open_existing(&self) -> anyhow::Result<engram::engine::Engram> {
        self.require_log()?;
        Ok(engram::engine::Engram::open(
            self.store.clone(),
            &self.options(),
        )?)
    }

    /// Refuses `--log` (or ENGRAM_LOG_URL) for `command`, which works on
    /// the store's own log files and cannot honour a shared log (writing
    /// to a replica's log by hand would break its replication).
    pub fn refuse_shared_log(&self, command: &str) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.shared_log.is_none(),
            "`engram {command}` works on the local log files and cannot use a shared log: \
             run it without --log (and with ENGRAM_LOG_URL and the config file's `log` unset), on a scratch --store"
        );
        Ok(())
    }

    /// Brings a replica's copy of the shared log (`--log`) up to date, so
    /// a command reading the local log sees every event committed before it
    /// ran; nothing to do for a store that keeps its own log.
    pub fn catch_up_replica(&self) -> anyhow::Result<()> {
        if self.shared_log.is_some() {
            self.open_existing()?.close()?;
        }
        Ok(())
    }

    /// Opens the store's log read-only (`None` without a log). A replica
    /// of a sealed shared log (`--log`) opens its words with the team's
    /// key store on PostgreSQL; without `--log` its words stay closed.
    pub fn open_reader(&self) -> anyhow::Result<Option<engram::log::LogReader>> {
        if let Some(url) = &self.shared_log
            && self.store.has_log()
            && self.store.is_shared_log_replica()
        {
            let shared = engram::engine::connect_shared(&self.store, &self.options(), url)?;
            let keys = shared.keys();
            shared.close();
            if let Some(keys) = keys {
                let hmac = self.store.key(&self.key, false)?;
                return Ok(Some(self.store.open_reader_with_remote_keys(hmac, keys)?));
            }
        }
        anyhow::ensure!(
            self.shared_log.is_some() || !self.store.is_shared_log_replica(),
            "{} replicates a sealed shared log: its words open only with the team's key store there: pass --log URL (or set ENGRAM_LOG_URL)",
            self.describe()
        );
        Ok(self.store.open_reader(&self.key)?)
    }

    /// The views of `store` as of `seq`, read-only: this context's store
    /// through [`Context::open_reader`] (a replica's words through the
    /// team's key store), another one from its own files.
    pub fn as_of(&self, store: &Store, seq: u64) -> anyhow::Result<engram::engine::AsOf> {
        if store.dir() != self.store.dir() {
            return Ok(engram::engine::AsOf::open(store, &self.key, seq)?);
        }
        let reader = self
            .open_reader()?
            .with_context(|| format!("{} has no log yet", self.describe()))?;
        Ok(engram::engine::AsOf::on_reader(&reader, seq)?)
    }

    /// For `--in-process` and commands that need the store to themselves:
    /// fails, naming the owner, while one holds the store.
    /// Asks a running owner to write the events it queued (a read's
    /// `recalled`, which never waits for the disk) before this process
    /// reads the store's files, so `log`, `export` and `verify` see every
    /// request answered before them. No owner, nothing queued: nothing to
    /// do. Never starts an owner.
    pub fn settle_owner(&self) {
        if self.in_process || self.shared_log.is_some() || !self.store.has_log() {
            return;
        }
        let client = engram::client::Client::new(self.owner_socket())
            .with_stores(&[self.store_name(&self.store)]);
        if client.owner().is_err() {
            return;
        }
        if let Err(e) = client.call("POST", "/api/settle", None) {
            eprintln!(
                "engram: warning: the store's owner did not write its queued events ({e}): the newest reads may be missing"
            );
        }
    }

    pub fn refuse_running_owner(&self, what: &str) -> anyhow::Result<()> {
        let client = engram::client::Client::new(self.owner_socket());
        if let Ok(owner) = client.owner() {
            anyhow::bail!(
                "{what}: {} is owned by pid {} ({}, version {}): stop it first (`engram daemon stop`, or end the server)",
                self.describe_owner(),
                owner.pid,
                owner.kind,
                owner.version
            );
        }
        Ok(())
    }

    pub fn options(&self) -> StoreOptions {
        StoreOptions {
            key: self.key.clone(),
            shared_log: self.shared_log.clone(),
            durability: self.settings.durability.value,
            ..StoreOptions::default()
        }
    }
}

/// A store in words: `the user store at DIR`, or `the store at DIR` for a
/// folder given with --store.
fn describe_store(scope: &str, store: &Store) -> String {
    match scope {
        "store" => format!("the store at {}", store.dir().display()),
        scope => format!("the {scope} store at {}", store.dir().display()),
    }
}

/// Runs a parsed command line and returns the exit status.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match &args.command {
        Command::Install(a) => return install::install(a),
        Command::Uninstall(a) => return install::uninstall(a),
        Command::Model(a) => return model::run(a),
        _ => {}
    }
    if let Command::Hook(_) = &args.command {
        // A hook resolves its stores from its payload's working directory.
        return hook::run(args);
    }
    let ctx = Context::resolve(&args)?;
    if ctx.in_process {
        ctx.refuse_running_owner("--in-process")?;
    }
    match args.command {
        Command::Verify(a) => verify::run(&ctx, &a),
        Command::Log(a) => log_cmd::run(&ctx, &a),
        Command::Repair(a) => repair::run(&ctx, &a),
        Command::Bench(a) => bench::run(&ctx, &a),
        Command::Inspect(a) => inspect::run(&ctx, &a),
        Command::Ingest(a) => ingest::run(&ctx, &a),
        Command::Stats(a) => views::stats(&ctx, &a),
        Command::Audit(a) => views::audit(&ctx, &a),
        Command::Rebuild(a) => views::rebuild(&ctx, &a),
        Command::Remember(a) => memory::remember(&ctx, &a),
        Command::Recall(a) => memory::recall(&ctx, &a),
        Command::Expand(a) => memory::expand(&ctx, &a),
        Command::Forget(a) => memory::forget(&ctx, &a),
        Command::Purge(a) => memory::purge(&ctx, &a),
        Command::List(a) => memories::list(&ctx, &a),
        Command::Update(a) => memories::update(&ctx, &a),
        Command::Confirm(a) => memory::confirm(&ctx, &a),
        Command::Palace(a) => palace::palace(&ctx, &a),
        Command::Renovation(a) => palace::renovation_list(&ctx, &a),
        Command::Review(a) => flywheel::review(&ctx, &a),
        Command::Grade(a) => flywheel::grade(&ctx, &a),
        Command::Tier(a) => tiers::tier(&ctx, &a),
        Command::Workspace(a) => tiers::workspace(&ctx, &a),
        Command::L0(a) => tiers::l0(&ctx, &a),
        Command::Verdicts(a) => flywheel::verdicts(&ctx, &a),
        Command::Verdict(a) => flywheel::verdict(&ctx, &a),
        Command::Maintain(a) => flywheel::maintain(&ctx, &a),
        Command::Distill(a) => flywheel::distill(&ctx, &a),
        Command::Entities(a) => flywheel::entities(&ctx, &a),
        Command::Reembed(a) => memory::reembed(&ctx, &a),
        Command::Serve(a) => serve::serve(&ctx, &a),
        Command::Mcp(a) => serve::mcp(&ctx, &a),
        Command::Daemon(a) => daemon::run(&ctx, &a),
        Command::Export(a) => transfer::export(&ctx, &a),
        Command::Import(a) => transfer::import(&ctx, &a),
        Command::Config(a) => config::run(&ctx, &a),
        Command::Hook(_) | Command::Install(_) | Command::Uninstall(_) | Command::Model(_) => {
            anyhow::bail!("dispatched before the context is built")
        }
    }
}

/// `n` and `word`, plural unless `n` is 1: "1 segment", "3 segments".
pub fn counted(n: impl TryInto<u64>, word: &str) -> String {
    match n.try_into().unwrap_or(u64::MAX) {
        1 => format!("1 {word}"),
        n => format!("{n} {word}s"),
    }
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
pub fn progress_bar(len: u64, what: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal as _;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(len),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{msg:>8} [{bar:40}] {human_pos}/{human_len} ({per_sec}, eta {eta})",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(what.to_owned());
    bar
}

/// A spinner on stderr for one long request whose progress the owner does
/// not report (a batch remember, an ingest: each is one atomic request):
/// what is being done and for how long, cleared when it ends. Hidden when
/// stderr is not a terminal, so piped output and `--json` carry nothing
/// of it.
pub fn spinner(what: String) -> indicatif::ProgressBar {
    use std::io::IsTerminal as _;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar =
        indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
        bar.set_style(style);
    }
    bar.set_message(what);
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

pub use engram::api::json::format_ts;

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    /// Deferred subcommands are built only when invoked, so clap's own
    /// checks (conflicting names, missing groups, bad defaults) would
    /// surface only when a user runs that one: build the whole tree here.
    #[test]
    fn clap_tree_is_consistent() {
        super::Args::command().debug_assert();
    }
}

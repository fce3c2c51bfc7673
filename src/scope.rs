//! Store scopes: which store folder a command uses.
//!
//! engram keeps one store for the user and one per project, side by side
//! under the engram home (`ENGRAM_HOME`, else `~/.engram`):
//!
//! - `<home>/user`: memories that follow the user everywhere;
//! - `<home>/project-<hash>`: memories about one project, where `<hash>` is
//!   the first 16 hex digits of the SHA-256 of the project's git identity.
//!
//! The git identity is the URL of the `origin` remote, normalised so that
//! `https://host/a/b.git` and `https://host/a/b` agree: every clone and
//! worktree of a project on this machine shares one store. A repository
//! without `origin` falls back to its canonical root path, `path:<root>`.
//!
//! Git is read from disk by hand (a `.git` folder, or a `.git` file of a
//! worktree or submodule, then the `config` file): no `git` process and no
//! git library, so resolving a scope is cheap and works without git
//! installed. Includes, `insteadOf` rewrites and `GIT_DIR` are not followed.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use sha2::{Digest, Sha256};

/// Environment variable naming the engram home, the folder holding every store.
pub const HOME_ENV: &str = "ENGRAM_HOME";

/// Name of the engram home inside the user's home directory, without `ENGRAM_HOME`.
const DEFAULT_HOME_DIR_NAME: &str = ".engram";

/// Name of the user store inside the engram home.
const USER_STORE_NAME: &str = "user";

/// Prefix of a project store's name inside the engram home.
const PROJECT_STORE_PREFIX: &str = "project-";

/// Hex digits of the identity hash in a project store's name: 64 bits keep
/// names short while collisions between one user's projects stay negligible.
const PROJECT_HASH_HEX_DIGITS: usize = 16;

/// The remote whose URL names a project.
const ORIGIN_REMOTE: &str = "origin";

/// Prefix of the identity of a repository without `origin`.
const PATH_IDENTITY_PREFIX: &str = "path:";

/// Which store a command uses: memories about the user, or about one project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StoreScope {
    /// The user's own store, the same in every folder.
    User,
    /// The store of the git repository the command runs in.
    Project,
}

impl StoreScope {
    /// The scope's name as written on the command line (`--scope user`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Project => "project",
        }
    }
}

impl FromStr for StoreScope {
    type Err = ScopeError;

    /// Parses `user` or `project`, the names [`StoreScope::as_str`] gives.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "user" => Ok(Self::User),
            "project" => Ok(Self::Project),
            _ => Err(ScopeError::UnknownScope {
                value: s.to_owned(),
            }),
        }
    }
}

/// A project as engram names it: where its repository is, and what
/// identifies it across clones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectIdentity {
    /// The working tree's root, canonical: the folder holding `.git`.
    pub root: PathBuf,
    /// The normalised `origin` URL, else `path:<root>`: what the store name hashes.
    pub identity: String,
}

impl ProjectIdentity {
    /// The project's store folder name, `project-<16 hex digits>`: a hash,
    /// so URLs never become paths and the name stays short and stable.
    #[must_use]
    pub fn store_name(&self) -> String {
        let mut hash = hex::encode(Sha256::digest(self.identity.as_bytes()));
        hash.truncate(PROJECT_HASH_HEX_DIGITS);
        format!("{PROJECT_STORE_PREFIX}{hash}")
    }
}

/// Errors of resolving a store scope.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScopeError {
    /// Neither `ENGRAM_HOME` nor a home directory: nowhere to keep stores.
    #[error("no home directory: set {HOME_ENV} or pass --store DIR")]
    NoHome,
    /// A scope name other than `user` or `project`.
    #[error("unknown scope {value:?}: use `user` or `project`")]
    UnknownScope {
        /// The name given.
        value: String,
    },
    /// The project scope was asked for outside any git repository.
    #[error(
        "--scope project needs a git repository, and {dir} is not inside one: \
         run inside a repository, or use --scope user"
    )]
    NotInRepository {
        /// The folder the command ran for, as given.
        dir: PathBuf,
    },
    /// A file or folder on the way to the repository could not be read, or
    /// a `.git` or `commondir` file is malformed.
    #[error(
        "looking for the git repository at {path}: {source}; \
         fix it, or use --scope user"
    )]
    Io {
        /// What could not be read, or is malformed.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
}

/// The project `dir` belongs to: the nearest enclosing git repository and
/// its identity; `None` outside any git repository.
///
/// # Errors
///
/// [`ScopeError::Io`] when `dir`, a `.git` entry, a `commondir` or the
/// `config` file cannot be read, or a `.git` file is malformed. A missing
/// `config` is no error: the identity falls back to the root path.
pub fn project_identity(dir: &Path) -> Result<Option<ProjectIdentity>, ScopeError> {
    // Canonical, so the walk up sees every ancestor and `path:` identities
    // do not depend on how the folder was named.
    let start = fs::canonicalize(dir).map_err(|e| io_error(dir, e))?;
    let Some((root, git_dir)) = find_repository(&start)? else {
        return Ok(None);
    };
    let config = common_dir(&git_dir)?.join("config");
    let origin = match fs::read(&config) {
        Ok(bytes) => origin_url(&String::from_utf8_lossy(&bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(io_error(&config, e)),
    };
    let identity = origin.unwrap_or_else(|| format!("{PATH_IDENTITY_PREFIX}{}", root.display()));
    Ok(Some(ProjectIdentity { root, identity }))
}

/// The engram home, the folder holding every store: `ENGRAM_HOME` if set
/// and non-empty, else `~/.engram`.
///
/// # Errors
///
/// [`ScopeError::NoHome`] when neither is available.
pub fn engram_home() -> Result<PathBuf, ScopeError> {
    home_from(std::env::var_os(HOME_ENV), std::env::home_dir())
}

/// [`engram_home`] given the environment value and the home directory, so
/// tests need not mutate the process environment.
fn home_from(env: Option<OsString>, home: Option<PathBuf>) -> Result<PathBuf, ScopeError> {
    if let Some(dir) = env.filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    home.filter(|h| !h.as_os_str().is_empty())
        .map(|h| h.join(DEFAULT_HOME_DIR_NAME))
        .ok_or(ScopeError::NoHome)
}

/// The scope a command uses without `--scope`: the project inside a git
/// repository, where memories are most likely about that project; the
/// user elsewhere.
///
/// # Errors
///
/// As [`project_identity`].
pub fn default_scope(dir: &Path) -> Result<StoreScope, ScopeError> {
    Ok(if project_identity(dir)?.is_some() {
        StoreScope::Project
    } else {
        StoreScope::User
    })
}

/// The store folder for `scope` under `home`; Project outside a git
/// repository is [`ScopeError::NotInRepository`] naming the dir. The user
/// scope touches no disk.
///
/// # Errors
///
/// [`ScopeError::NotInRepository`] as above; else as [`project_identity`].
pub fn scope_store_dir(home: &Path, scope: StoreScope, dir: &Path) -> Result<PathBuf, ScopeError> {
    match scope {
        StoreScope::User => Ok(home.join(USER_STORE_NAME)),
        StoreScope::Project => match project_identity(dir)? {
            Some(project) => Ok(home.join(project.store_name())),
            None => Err(ScopeError::NotInRepository {
                dir: dir.to_path_buf(),
            }),
        },
    }
}

fn io_error(path: &Path, source: io::Error) -> ScopeError {
    ScopeError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn malformed(path: &Path, what: &str) -> ScopeError {
    io_error(path, io::Error::new(io::ErrorKind::InvalidData, what))
}

/// Walks up from `start` (canonical) to the first folder holding `.git`:
/// that folder (the root) and the git dir it points to.
fn find_repository(start: &Path) -> Result<Option<(PathBuf, PathBuf)>, ScopeError> {
    for dir in start.ancestors() {
        let dot_git = dir.join(".git");
        let meta = match fs::metadata(&dot_git) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io_error(&dot_git, e)),
        };
        let git_dir = if meta.is_dir() {
            dot_git
        } else if meta.is_file() {
            gitdir_file_target(&dot_git, dir)?
        } else {
            // A fifo or device: reading it could block forever.
            return Err(malformed(&dot_git, "`.git` is neither a folder nor a file"));
        };
        return Ok(Some((dir.to_path_buf(), git_dir)));
    }
    Ok(None)
}

/// The git dir a `.git` file (`gitdir: <path>`, as worktrees and submodules
/// write) points to; a relative path is relative to the file's folder.
fn gitdir_file_target(dot_git: &Path, root: &Path) -> Result<PathBuf, ScopeError> {
    let text = fs::read_to_string(dot_git).map_err(|e| io_error(dot_git, e))?;
    let target = text
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("gitdir:"))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| malformed(dot_git, "expected a `.git` file starting `gitdir: <path>`"))?;
    // `join` keeps an absolute target as it is.
    let git_dir = root.join(target);
    match fs::metadata(&git_dir) {
        Ok(meta) if meta.is_dir() => Ok(git_dir),
        Ok(_) => Err(malformed(
            &git_dir,
            "the `gitdir:` of a `.git` file is not a folder",
        )),
        Err(e) => Err(io_error(&git_dir, e)),
    }
}

/// The folder holding `config`: a worktree's git dir names it in a
/// `commondir` file (relative to the git dir); other git dirs hold it.
fn common_dir(git_dir: &Path) -> Result<PathBuf, ScopeError> {
    let file = git_dir.join("commondir");
    match fs::read_to_string(&file) {
        Ok(text) => text
            .lines()
            .next()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|target| git_dir.join(target))
            .ok_or_else(|| malformed(&file, "empty `commondir` file")),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(git_dir.to_path_buf()),
        Err(e) => Err(io_error(&file, e)),
    }
}

/// The normalised URL of remote `origin` in a git `config` file's text:
/// the first non-empty `url` of a `[remote "origin"]` section.
fn origin_url(config: &str) -> Option<String> {
    let mut in_origin = false;
    for raw in config.lines() {
        let mut line = raw.trim();
        if let Some(rest) = line.strip_prefix('[') {
            let Some((header, after)) = rest.split_once(']') else {
                in_origin = false;
                continue;
            };
            in_origin = is_origin_header(header);
            // Git allows a key on the header's line: `[remote "origin"] url = ...`.
            line = after.trim();
        }
        if !in_origin || line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim().eq_ignore_ascii_case("url") {
            let url = normalise_url(&config_value(value));
            if !url.is_empty() {
                return Some(url);
            }
        }
    }
    None
}

/// Whether a section header (between `[` and `]`) is remote `origin`:
/// `remote "origin"` (section name case-insensitive, subsection exact) or
/// the legacy `remote.origin` (both case-insensitive).
fn is_origin_header(header: &str) -> bool {
    let header = header.trim();
    if let Some((section, sub)) = header.split_once(char::is_whitespace) {
        let sub = sub.trim();
        section.eq_ignore_ascii_case("remote")
            && sub
                .strip_prefix('"')
                .and_then(|s| s.strip_suffix('"'))
                .is_some_and(|s| unescape(s) == ORIGIN_REMOTE)
    } else if let Some((section, sub)) = header.split_once('.') {
        section.eq_ignore_ascii_case("remote") && sub.eq_ignore_ascii_case(ORIGIN_REMOTE)
    } else {
        false
    }
}

/// A subsection name without its escapes: git keeps the character after `\`.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        out.push(if c == '\\' {
            chars.next().unwrap_or(c)
        } else {
            c
        });
    }
    out
}

/// A config value as git reads it: double quotes removed, `#`/`;` outside
/// quotes start a comment, `\n` `\t` `\"` `\\` escapes.
fn config_value(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut quoted = false;
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '#' | ';' if !quoted => break,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                // A line continuation: URLs never use one.
                None => break,
            },
            _ => out.push(c),
        }
    }
    out
}

/// One spelling per repository URL: whitespace, trailing `/` and a trailing
/// `.git` removed, so `https://host/a/b.git` and `https://host/a/b/` match.
fn normalise_url(url: &str) -> String {
    let url = url.trim().trim_end_matches('/');
    let url = url.strip_suffix(".git").unwrap_or(url);
    url.trim_end_matches('/').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake repository at `root`: `.git/config` holding `config`, if any.
    fn make_repo(root: &Path, config: Option<&str>) {
        fs::create_dir_all(root.join(".git")).unwrap();
        if let Some(config) = config {
            fs::write(root.join(".git/config"), config).unwrap();
        }
    }

    fn origin_config(url: &str) -> String {
        format!(
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\
             [remote \"origin\"]\n\turl = {url}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n\
             [branch \"main\"]\n\tremote = origin\n"
        )
    }

    fn identity(dir: &Path) -> ProjectIdentity {
        project_identity(dir).unwrap().unwrap()
    }

    #[test]
    fn origin_url_is_the_identity() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        make_repo(&root, Some(&origin_config("https://github.com/a/b.git")));
        let project = identity(&root);
        assert_eq!(project.identity, "https://github.com/a/b");
        assert_eq!(project.root, fs::canonicalize(&root).unwrap());
    }

    #[test]
    fn store_name_is_the_pinned_hash_of_the_identity() {
        // Pinned: changing the hash would orphan every existing project store.
        let project = ProjectIdentity {
            root: PathBuf::from("/r"),
            identity: "https://github.com/a/b".to_owned(),
        };
        assert_eq!(project.store_name(), "project-426415da6467c87a");
    }

    #[test]
    fn git_suffix_and_trailing_slash_give_the_same_store() {
        let tmp = tempfile::tempdir().unwrap();
        let urls = [
            "https://github.com/a/b.git",
            "https://github.com/a/b",
            "https://github.com/a/b/",
            "  https://github.com/a/b.git/  ",
        ];
        let home = tmp.path().join("home");
        let mut dirs = Vec::new();
        for (i, url) in urls.iter().enumerate() {
            let root = tmp.path().join(format!("clone{i}"));
            make_repo(&root, Some(&origin_config(url)));
            dirs.push(scope_store_dir(&home, StoreScope::Project, &root).unwrap());
        }
        assert!(
            dirs.iter()
                .all(|d| *d == home.join("project-426415da6467c87a"))
        );
    }

    #[test]
    fn different_origins_give_different_stores() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        make_repo(&a, Some(&origin_config("https://github.com/a/one")));
        make_repo(&b, Some(&origin_config("https://github.com/a/two")));
        let home = tmp.path().join("home");
        assert_ne!(
            scope_store_dir(&home, StoreScope::Project, &a).unwrap(),
            scope_store_dir(&home, StoreScope::Project, &b).unwrap()
        );
    }

    #[test]
    fn repository_without_origin_is_named_by_its_root_path() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        make_repo(&a, Some("[core]\n\tbare = false\n"));
        make_repo(&b, None); // no config file at all
        let (pa, pb) = (identity(&a), identity(&b));
        let canon_a = fs::canonicalize(&a).unwrap();
        assert_eq!(pa.identity, format!("path:{}", canon_a.display()));
        assert_eq!(pa.root, canon_a);
        assert!(pb.identity.starts_with("path:"));
        assert_ne!(pa.store_name(), pb.store_name());
    }

    #[test]
    fn nested_subdirectory_finds_the_repository_root() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        make_repo(&root, Some(&origin_config("git@example.com:a/b.git")));
        let deep = root.join("src/deep/er");
        fs::create_dir_all(&deep).unwrap();
        let project = identity(&deep);
        assert_eq!(project.root, fs::canonicalize(&root).unwrap());
        assert_eq!(project.identity, "git@example.com:a/b");
        assert_eq!(project, identity(&root));
        assert_eq!(default_scope(&deep).unwrap(), StoreScope::Project);
    }

    #[test]
    fn nested_repository_wins_over_the_outer_one() {
        let tmp = tempfile::tempdir().unwrap();
        let outer = tmp.path().join("outer");
        make_repo(&outer, Some(&origin_config("https://h/outer")));
        let inner = outer.join("vendor/inner");
        make_repo(&inner, Some(&origin_config("https://h/inner")));
        assert_eq!(identity(&inner.join(".git")).identity, "https://h/inner");
        assert_eq!(identity(&inner).identity, "https://h/inner");
        assert_eq!(identity(&outer.join("vendor")).identity, "https://h/outer");
    }

    #[test]
    fn worktree_gitdir_file_and_commondir_resolve_the_main_config() {
        let tmp = tempfile::tempdir().unwrap();
        let main = tmp.path().join("main");
        make_repo(&main, Some(&origin_config("https://github.com/a/b.git")));
        let wt_git = main.join(".git/worktrees/feature");
        fs::create_dir_all(&wt_git).unwrap();
        fs::write(wt_git.join("commondir"), "../..\n").unwrap();
        let wt = tmp.path().join("feature");
        fs::create_dir_all(wt.join("src")).unwrap();
        // Relative, resolved against the `.git` file's folder.
        fs::write(wt.join(".git"), "gitdir: ../main/.git/worktrees/feature\n").unwrap();

        let project = identity(&wt.join("src"));
        assert_eq!(project.root, fs::canonicalize(&wt).unwrap());
        assert_eq!(project.identity, "https://github.com/a/b");
        assert_eq!(project.store_name(), identity(&main).store_name());
    }

    #[test]
    fn absolute_gitdir_without_commondir_reads_the_gitdirs_config() {
        // A submodule: `.git` names `<super>/.git/modules/<name>`, which holds its config.
        let tmp = tempfile::tempdir().unwrap();
        let module_git = tmp.path().join("super/.git/modules/sub");
        fs::create_dir_all(&module_git).unwrap();
        fs::write(module_git.join("config"), origin_config("https://h/sub")).unwrap();
        let sub = tmp.path().join("super/sub");
        fs::create_dir_all(&sub).unwrap();
        fs::write(
            sub.join(".git"),
            format!("gitdir: {}\r\n", module_git.display()),
        )
        .unwrap();
        assert_eq!(identity(&sub).identity, "https://h/sub");
    }

    #[test]
    fn malformed_or_dangling_git_file_is_an_io_error() {
        let tmp = tempfile::tempdir().unwrap();
        let bad = tmp.path().join("bad");
        fs::create_dir_all(&bad).unwrap();
        fs::write(bad.join(".git"), "not a gitdir line\n").unwrap();
        let err = project_identity(&bad).unwrap_err();
        assert!(matches!(&err, ScopeError::Io { path, .. } if path.ends_with(".git")));
        assert!(err.to_string().contains("gitdir: <path>"), "{err}");

        let empty = tmp.path().join("empty");
        fs::create_dir_all(&empty).unwrap();
        fs::write(empty.join(".git"), "gitdir:   \n").unwrap();
        assert!(matches!(
            project_identity(&empty),
            Err(ScopeError::Io { .. })
        ));

        let dangling = tmp.path().join("dangling");
        fs::create_dir_all(&dangling).unwrap();
        fs::write(dangling.join(".git"), "gitdir: ../nowhere\n").unwrap();
        let err = project_identity(&dangling).unwrap_err();
        assert!(matches!(&err, ScopeError::Io { path, source }
            if path.ends_with("nowhere") && source.kind() == io::ErrorKind::NotFound));
    }

    #[test]
    fn unreadable_config_is_an_io_error_not_a_path_identity() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        // A folder where the config file should be: reading it fails.
        fs::create_dir_all(root.join(".git/config")).unwrap();
        let err = project_identity(&root).unwrap_err();
        assert!(matches!(&err, ScopeError::Io { path, .. } if path.ends_with(".git/config")));
        assert!(err.to_string().contains("--scope user"), "{err}");
    }

    #[test]
    fn outside_any_repository() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("plain");
        fs::create_dir_all(&dir).unwrap();
        let home = tmp.path().join("home");
        assert_eq!(project_identity(&dir).unwrap(), None);
        assert_eq!(default_scope(&dir).unwrap(), StoreScope::User);
        assert_eq!(
            scope_store_dir(&home, StoreScope::User, &dir).unwrap(),
            home.join("user")
        );
        let err = scope_store_dir(&home, StoreScope::Project, &dir).unwrap_err();
        assert!(matches!(&err, ScopeError::NotInRepository { dir: d } if *d == dir));
        let msg = err.to_string();
        assert!(msg.contains(&dir.display().to_string()), "{msg}");
        assert!(msg.contains("--scope user"), "{msg}");
    }

    #[test]
    fn missing_dir_is_an_io_error() {
        let tmp = tempfile::tempdir().unwrap();
        let gone = tmp.path().join("gone");
        assert!(matches!(
            project_identity(&gone),
            Err(ScopeError::Io { path, .. }) if path == gone
        ));
        // The user scope needs no folder at all.
        assert_eq!(
            scope_store_dir(tmp.path(), StoreScope::User, &gone).unwrap(),
            tmp.path().join("user")
        );
    }

    #[test]
    fn other_remotes_are_ignored() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        make_repo(
            &root,
            Some(
                "[remote \"upstream\"]\n\turl = https://h/upstream\n[remote \"origin2\"]\n\turl = https://h/o2\n",
            ),
        );
        assert!(identity(&root).identity.starts_with("path:"));
        assert_eq!(
            origin_url(
                "[remote \"upstream\"]\nurl = https://h/up\n[remote \"origin\"]\nurl = https://h/o\n"
            ),
            Some("https://h/o".to_owned())
        );
    }

    #[test]
    fn keys_and_section_names_are_case_insensitive() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        make_repo(
            &root,
            Some("[Remote \"origin\"]\n    URL = https://h/x.git\n"),
        );
        assert_eq!(identity(&root).identity, "https://h/x");
        // The quoted subsection is case-sensitive, as in git.
        assert_eq!(origin_url("[remote \"Origin\"]\nurl = https://h/x\n"), None);
        // The legacy dotted form is case-insensitive throughout.
        assert_eq!(
            origin_url("[remote.Origin]\nUrl=https://h/x\n"),
            Some("https://h/x".to_owned())
        );
    }

    #[test]
    fn config_comments_quotes_and_section_ends() {
        let config = "# url = https://h/top\n\
                      [remote \"origin\"] ; a comment\n\
                      \t# url = https://h/hash\n\
                      \t; url = https://h/semi\n\
                      \tfetch = +refs/heads/*:refs/remotes/origin/*\n\
                      \turl = \"https://h/q;uoted.git\" # trailing\n";
        assert_eq!(origin_url(config), Some("https://h/q;uoted".to_owned()));
        // The section ends at the next header.
        assert_eq!(
            origin_url("[remote \"origin\"]\nfetch = x\n[core]\nurl = https://h/core\n"),
            None
        );
        // A key on the header's line; an empty url is skipped.
        assert_eq!(
            origin_url("[remote \"origin\"] url =\n[remote \"origin\"] url = https://h/x\n"),
            Some("https://h/x".to_owned())
        );
        // Broken headers end the section instead of panicking.
        assert_eq!(origin_url("[remote \"origin\"\nurl = https://h/x\n"), None);
        assert_eq!(origin_url("[\n=\n\\\n\"\n"), None);
    }

    #[test]
    fn normalise_url_removes_only_decoration() {
        assert_eq!(normalise_url(" https://h/a/b.git/ \n"), "https://h/a/b");
        assert_eq!(normalise_url("https://h/a/b/.git"), "https://h/a/b");
        assert_eq!(normalise_url("https://h/a.github"), "https://h/a.github");
        assert_eq!(normalise_url("/"), "");
    }

    #[test]
    fn scope_names_round_trip() {
        for scope in [StoreScope::User, StoreScope::Project] {
            assert_eq!(scope.as_str().parse::<StoreScope>().unwrap(), scope);
        }
        let err = "Project".parse::<StoreScope>().unwrap_err();
        assert!(matches!(&err, ScopeError::UnknownScope { value } if value == "Project"));
        let msg = err.to_string();
        assert!(msg.contains("user") && msg.contains("project"), "{msg}");
    }

    #[test]
    fn home_is_the_env_value_else_dot_engram_in_the_home_directory() {
        let home = Some(PathBuf::from("/home/u"));
        assert_eq!(
            home_from(Some(OsString::from("/e")), home.clone()).unwrap(),
            PathBuf::from("/e")
        );
        assert_eq!(
            home_from(Some(OsString::new()), home.clone()).unwrap(),
            PathBuf::from("/home/u/.engram")
        );
        assert_eq!(
            home_from(None, home).unwrap(),
            PathBuf::from("/home/u/.engram")
        );
        assert!(matches!(home_from(None, None), Err(ScopeError::NoHome)));
        assert!(matches!(
            home_from(Some(OsString::new()), Some(PathBuf::new())),
            Err(ScopeError::NoHome)
        ));
        assert!(
            ScopeError::NoHome
                .to_string()
                .contains("set ENGRAM_HOME or pass --store DIR")
        );
    }
}

//! Store scopes on the command line: without --store, a command uses the
//! project store of the git repository it runs in (named by the origin
//! URL) or the user store, both under ENGRAM_HOME; recall searches both.
//! Run as the real binary with the working directory set per command.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use sha2::{Digest as _, Sha256};

use crate::support::json_lines;

/// An engram home and folders to run commands in, under a temp dir that is
/// inside no git repository.
pub(crate) struct World {
    _tmp: tempfile::TempDir,
    pub(crate) home: PathBuf,
    root: PathBuf,
}

impl World {
    pub(crate) fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        assert!(
            root.ancestors().all(|d| !d.join(".git").exists()),
            "{} is inside a git repository: the scope tests need a temp dir outside one",
            root.display()
        );
        let home = root.join("engram-home");
        Self {
            _tmp: tmp,
            home,
            root,
        }
    }

    /// A fake git repository at `name` whose origin is `url`.
    pub(crate) fn repo(&self, name: &str, url: &str) -> PathBuf {
        let dir = self.root.join(name);
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        std::fs::write(
            dir.join(".git/config"),
            format!(
                "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = {url}\n\
                 \tfetch = +refs/heads/*:refs/remotes/origin/*\n"
            ),
        )
        .unwrap();
        dir
    }

    /// A folder outside any repository.
    pub(crate) fn plain(&self, name: &str) -> PathBuf {
        let dir = self.root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// `engram args` run in `cwd`, with ENGRAM_HOME and no key from the environment.
    pub(crate) fn engram(&self, cwd: &Path, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_engram"))
            .args(args)
            .current_dir(cwd)
            .env("ENGRAM_HOME", &self.home)
            .env_remove("ENGRAM_HMAC_KEY")
            .output()
            .unwrap()
    }

    /// As [`World::engram`], asserting exit status `code`.
    pub(crate) fn run(&self, cwd: &Path, args: &[&str], code: i32) -> Output {
        let out = self.engram(cwd, args);
        assert_eq!(
            out.status.code(),
            Some(code),
            "engram {args:?} in {}\nstdout: {}\nstderr: {}",
            cwd.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Runs `args` in `cwd` expecting exit 0 and one JSON object.
    pub(crate) fn json(&self, cwd: &Path, args: &[&str]) -> Value {
        serde_json::from_slice(&self.run(cwd, args, 0).stdout).unwrap()
    }

    /// `remember TEXT --json` (plus `extra`) in `cwd`: the memory's id and
    /// the scope the output names.
    fn remember(&self, cwd: &Path, text: &str, extra: &[&str]) -> (String, String) {
        let mut args = vec!["remember", text, "--json"];
        args.extend_from_slice(extra);
        let out = self.json(cwd, &args);
        (
            out["id"].as_str().unwrap().to_owned(),
            out["scope"].as_str().unwrap().to_owned(),
        )
    }

    /// The hits of `recall query --json` (plus `extra`) in `cwd`, as
    /// (text, scope) pairs sorted; exit 1 when none.
    fn recall(&self, cwd: &Path, query: &str, extra: &[&str]) -> Vec<(String, String)> {
        let mut args = vec!["recall", query, "--json", "--limit", "100"];
        args.extend_from_slice(extra);
        let out = self.engram(cwd, &args);
        let value: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "engram {args:?} in {}: {e}: {}",
                cwd.display(),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        let mut hits: Vec<(String, String)> = value["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h["text"].as_str().unwrap().to_owned(),
                    h["scope"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        hits.sort();
        let expected = if hits.is_empty() { 1 } else { 0 };
        assert_eq!(out.status.code(), Some(expected), "engram {args:?}");
        hits
    }

    /// The names of the store folders under the engram home (its owner's
    /// socket, locks and log beside them are not stores).
    fn stores(&self) -> BTreeSet<String> {
        std::fs::read_dir(&self.home)
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect()
    }
}

/// The project store name, computed independently of engram: `project-`
/// and the first 16 hex digits of the SHA-256 of the normalised origin URL.
fn project_store(identity: &str) -> String {
    let hash = hex::encode(Sha256::digest(identity.as_bytes()));
    format!("project-{}", &hash[..16])
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = items
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect();
    v.sort();
    v
}

const ALPHA: &str = "alpha project fact";
const BETA: &str = "beta project fact";
const USER: &str = "user wide fact";

#[test]
fn projects_are_isolated_and_the_user_store_follows_everywhere() {
    let w = World::new();
    let a = w.repo("a", "https://example.com/a.git");
    let b = w.repo("b", "https://example.com/b.git");
    let plain = w.plain("plain");

    assert_eq!(w.remember(&a, ALPHA, &[]).1, "project");
    assert_eq!(w.remember(&b, BETA, &[]).1, "project");
    assert_eq!(w.remember(&a, USER, &["--scope", "user"]).1, "user");

    // Each project sees its own memories and the user's, never the other project's.
    assert_eq!(
        w.recall(&a, "fact", &[]),
        pairs(&[(ALPHA, "project"), (USER, "user")])
    );
    assert_eq!(
        w.recall(&b, "fact", &[]),
        pairs(&[(BETA, "project"), (USER, "user")])
    );
    assert_eq!(w.recall(&b, "alpha", &[]), []);
    assert_eq!(w.recall(&a, "beta", &[]), []);
    // Outside any repository only the user store is searched.
    assert_eq!(w.recall(&plain, "fact", &[]), pairs(&[(USER, "user")]));
    // An explicit scope searches that store only.
    assert_eq!(
        w.recall(&a, "fact", &["--scope", "project"]),
        pairs(&[(ALPHA, "project")])
    );
    assert_eq!(
        w.recall(&b, "fact", &["--scope", "user"]),
        pairs(&[(USER, "user")])
    );

    // The project scope outside a repository is an error that says what to do.
    for args in [
        &["recall", "fact", "--scope", "project"][..],
        &["remember", "lost fact", "--scope", "project"][..],
        &["stats", "--scope", "project"][..],
    ] {
        let out = w.run(&plain, args, 2);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--scope user"), "{args:?}: {err}");
        assert!(err.contains("not inside"), "{args:?}: {err}");
    }
    // Without a scope, a plain folder writes to the user store.
    assert_eq!(w.remember(&plain, "plain folder fact", &[]).1, "user");
    assert!(
        w.recall(&b, "plain folder", &[])
            .contains(&("plain folder fact".to_owned(), "user".to_owned()))
    );

    // One `user` store and one store per project, named by the origin URL.
    let project_a = project_store("https://example.com/a");
    let project_b = project_store("https://example.com/b");
    assert_eq!(
        w.stores(),
        BTreeSet::from(["user".to_owned(), project_a.clone(), project_b.clone()])
    );
    for name in w.stores() {
        assert!(w.home.join(&name).join("log").is_dir(), "{name} has a log");
    }

    // A subfolder of a repository, and another clone of the same origin
    // (spelled without `.git`), resolve to the same project store.
    let sub = a.join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    assert_eq!(w.remember(&sub, "gamma subfolder fact", &[]).1, "project");
    let clone = w.repo("a-clone", "https://example.com/a/");
    assert_eq!(
        w.recall(&a, "fact", &["--scope", "project"]),
        pairs(&[(ALPHA, "project"), ("gamma subfolder fact", "project")])
    );
    assert_eq!(
        w.recall(&clone, "fact", &["--scope", "project"]),
        w.recall(&sub, "fact", &["--scope", "project"])
    );
    assert_eq!(w.stores().len(), 3, "{:?}", w.stores());
}

#[test]
fn verify_stats_and_log_without_store_use_the_project_store() {
    let w = World::new();
    let a = w.repo("a", "git@example.com:team/a.git");
    let b = w.repo("b", "git@example.com:team/b.git");
    let sub = a.join("sub");
    std::fs::create_dir_all(&sub).unwrap();

    // In A's project store: 2 remembers of text (note, remembered and the
    // new room's corridor_placed each)
    // and one recall (its `recalled` event); the recall also records one
    // `recalled` in the user store, which got one remember (three events)
    // before.
    w.remember(&a, ALPHA, &[]);
    w.remember(&sub, "second alpha fact", &[]);
    w.remember(&a, USER, &["--scope", "user"]);
    assert_eq!(w.recall(&sub, "fact", &[]).len(), 3);

    let project = w.home.join(project_store("git@example.com:team/a"));
    let stats = w.json(&a, &["stats", "--json"]);
    assert_eq!(stats["n_events"], 7, "{stats}");
    assert_eq!(stats["memories_by_status"]["live"], 2, "{stats}");
    let user_stats = w.json(&sub, &["stats", "--json", "--scope", "user"]);
    assert_eq!(user_stats["n_events"], 4, "{user_stats}");
    assert_eq!(user_stats["memories_by_status"]["live"], 1, "{user_stats}");

    let kinds = |cwd: &Path, extra: &[&str]| -> Vec<String> {
        let mut args = vec!["log", "--json"];
        args.extend_from_slice(extra);
        json_lines(&w.run(cwd, &args, 0).stdout)
            .iter()
            .map(|e| e["kind"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        kinds(&sub, &[]),
        [
            "session",
            "remembered",
            "corridor_placed",
            "session",
            "remembered",
            "corridor_placed",
            "recalled"
        ]
    );
    assert_eq!(
        kinds(&a, &["--scope", "user"]),
        ["session", "remembered", "corridor_placed", "recalled"]
    );

    let out = w.run(&sub, &["verify", "--json"], 0);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["last_seq"], 7, "{report}");

    // Verify reads the project store's own files: tampering with one of
    // A's segments fails A's verify and no other store's.
    let segment = std::fs::read_dir(project.join("log"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "seg"))
        .unwrap();
    let mut bytes = std::fs::read(&segment).unwrap();
    // The last byte of A's first turn (its words are sealed on disk).
    let at = crate::support::event_offset(&bytes, 1).unwrap();
    bytes[at] ^= 0x20;
    std::fs::write(&segment, &bytes).unwrap();
    w.run(&a, &["verify"], 1);
    w.run(&a, &["verify", "--scope", "user"], 0);

    // B's commands never ran: A's commands created no store for it.
    assert!(b.join(".git/config").is_file());
    assert!(
        !w.home
            .join(project_store("git@example.com:team/b"))
            .exists()
    );
    assert_eq!(w.stores().len(), 2, "{:?}", w.stores());
}

#[test]
fn verdicts_entities_and_review_span_the_user_and_project_stores() {
    let w = World::new();
    let a = w.repo("a", "https://example.com/a.git");
    // A contradiction in the user store, a person in the project store.
    w.remember(&a, "Deploys happen on Thursdays", &["--scope", "user"]);
    w.remember(&a, "Deploys happen on Fridays", &["--scope", "user"]);
    w.remember(
        &a,
        "Bob Martinez reviews the release notes",
        &["--scope", "user"],
    );
    let (project_id, _) = w.remember(&a, "Alice Chen owns the billing service", &[]);
    assert!(project_id.starts_with("p:"), "{project_id}");

    let verdicts = w.json(&a, &["verdicts", "--json"]);
    let open = verdicts["open"].as_array().unwrap();
    assert_eq!(open.len(), 1, "{verdicts}");
    for side in ["a", "b"] {
        let id = open[0][side].as_str().unwrap();
        assert!(id.starts_with("u:"), "{side}: {verdicts}");
    }

    let entities = w.json(&a, &["entities", "--json"]);
    let ids: Vec<&str> = entities["entities"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["memories"].as_array().unwrap())
        .filter_map(|m| m["id"].as_str())
        .collect();
    assert!(ids.contains(&project_id.as_str()), "{entities}");
    assert!(ids.iter().any(|id| id.starts_with("u:")), "{entities}");

    let review = w.json(&a, &["review", "--at", "+400d", "--json"]);
    let due: Vec<&str> = review["due"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["id"].as_str())
        .collect();
    assert!(due.contains(&project_id.as_str()), "{review}");
    assert!(due.iter().any(|id| id.starts_with("u:")), "{review}");
    // Outside the repository only the user store answers.
    let plain = w.plain("plain");
    let entities = w.json(&plain, &["entities", "--json"]);
    assert!(!entities.to_string().contains("\"p:"), "{entities}");
}

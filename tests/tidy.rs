//! Project rules checked as tests: the crate dependency direction and the
//! `//!` opening comment of every source file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace crates and which other workspace crates each may depend on.
/// Direction: log <- projections <- {commands, queries} <- engram (the
/// package engram-agent-memory), with the
/// text crate beside log (never used by it) and the embedding model crate
/// used only by the facade (replay never runs a model); the log's
/// PostgreSQL backend sits on the log alone and only the facade uses it;
/// benches sit on top and may use anything. commands and queries never see
/// each other.
fn allowed() -> BTreeMap<&'static str, &'static [&'static str]> {
    BTreeMap::from([
        ("engram-log", &[][..]),
        ("engram-log-postgres", &["engram-log"][..]),
        ("engram-text", &[][..]),
        ("engram-embed", &[][..]),
        ("engram-projections", &["engram-log", "engram-text"][..]),
        (
            "engram-commands",
            &["engram-log", "engram-text", "engram-projections"][..],
        ),
        (
            "engram-queries",
            &["engram-log", "engram-text", "engram-projections"][..],
        ),
        (
            "engram-agent-memory",
            &[
                "engram-log",
                "engram-log-postgres",
                "engram-text",
                "engram-projections",
                "engram-commands",
                "engram-queries",
                "engram-embed",
            ][..],
        ),
        (
            "engram-benches",
            &[
                "engram-log",
                "engram-log-postgres",
                "engram-text",
                "engram-projections",
                "engram-commands",
                "engram-queries",
                "engram-embed",
                "engram-agent-memory",
            ][..],
        ),
    ])
}

fn manifest(path: &Path) -> toml::Table {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Names of workspace crates that `manifest` depends on, in any section.
fn workspace_deps(manifest: &toml::Table, crates: &[&str]) -> Vec<String> {
    let mut deps = Vec::new();
    for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
        if let Some(table) = manifest.get(section).and_then(toml::Value::as_table) {
            for (name, spec) in table {
                let package = spec
                    .get("package")
                    .and_then(toml::Value::as_str)
                    .unwrap_or(name);
                if crates.contains(&package) {
                    deps.push(package.to_owned());
                }
            }
        }
    }
    deps
}

fn member_manifests() -> Vec<PathBuf> {
    let workspace = manifest(&root().join("Cargo.toml"));
    let members = workspace["workspace"]["members"].as_array().unwrap();
    members
        .iter()
        .map(|m| root().join(m.as_str().unwrap()).join("Cargo.toml"))
        .collect()
}

#[test]
fn crate_dependencies_point_one_way() {
    let allowed = allowed();
    let crates: Vec<&str> = allowed.keys().copied().collect();
    let manifests = member_manifests();
    assert_eq!(
        manifests.len(),
        crates.len(),
        "a workspace member is missing from the rule table"
    );
    for path in manifests {
        let manifest = manifest(&path);
        let name = manifest["package"]["name"].as_str().unwrap().to_owned();
        let Some(may_use) = allowed.get(name.as_str()) else {
            panic!(
                "{name} ({}) is not in the dependency rule table",
                path.display()
            );
        };
        // A crate may name itself as a dev-dependency to turn on a feature
        // for its own tests (engram-embed's `testing`).
        for dep in workspace_deps(&manifest, &crates)
            .into_iter()
            .filter(|dep| *dep != name)
        {
            assert!(
                may_use.contains(&dep.as_str()),
                "{name} depends on {dep}, against the one-way direction log <- projections <- commands, queries <- engram"
            );
        }
    }
}

#[test]
fn the_rule_table_catches_an_upward_dependency() {
    // Canary: the checker itself must flag a log crate that depends upward.
    let bad: toml::Table = "[package]\nname = \"engram-log\"\n[dependencies]\nengram-queries = { path = \"../queries\" }\n"
        .parse()
        .unwrap();
    let allowed = allowed();
    let crates: Vec<&str> = allowed.keys().copied().collect();
    let deps = workspace_deps(&bad, &crates);
    assert_eq!(deps, vec!["engram-queries".to_owned()]);
    assert!(!allowed["engram-log"].contains(&"engram-queries"));
}

#[test]
fn the_peers_stay_out_of_ordinary_builds() {
    // SQLite and criterion are for benchmarks only: no shipped crate may
    // depend on them. (redb is both a peer and the projections' store.)
    for path in member_manifests() {
        let manifest = manifest(&path);
        let name = manifest["package"]["name"].as_str().unwrap();
        if name == "engram-benches" {
            assert_eq!(manifest["package"]["publish"].as_bool(), Some(false));
            continue;
        }
        let deps = manifest.get("dependencies").and_then(toml::Value::as_table);
        for peer in ["rusqlite", "criterion"] {
            assert!(
                deps.is_none_or(|d| !d.contains_key(peer)),
                "{name} depends on the benchmark peer {peer}"
            );
        }
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name != "target" && name != "fixtures" && !name.starts_with('.') {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_source_file_opens_with_a_module_comment() {
    let mut files = Vec::new();
    for dir in [
        "src",
        "log",
        "log-postgres",
        "text",
        "projections",
        "commands",
        "queries",
        "benches",
        "tests",
        "examples",
        "fuzz",
    ] {
        rust_files(&root().join(dir), &mut files);
    }
    assert!(files.len() > 20, "found only {} files", files.len());
    let missing: Vec<_> = files
        .iter()
        .filter(|path| {
            let text = std::fs::read_to_string(path).unwrap();
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            !first.starts_with("//!")
        })
        .map(|p| p.strip_prefix(root()).unwrap().display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "files without a //! opening comment: {missing:?}"
    );
}

//! `engram model install` and `engram model list` as a user runs them,
//! against a local stand-in for the hub (`engram_embed::testing::TestHub`;
//! these machines reach no hub): an unknown name, a file whose checksum is
//! not the published one, a 404, an interrupted download (each a clear
//! error with nothing installed), and a model in the engram home used by
//! default, by a process of its own and through a daemon.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use engram_embed::install::known_model;
use engram_embed::testing::{Served, TestHub, tiny_model};

use crate::support::TEST_KEY_HEX;

/// Runs `engram` with `home` as the engram home and no model folder named
/// by the environment.
fn engram_home(home: &Path, args: &[&str], envs: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_engram"));
    command
        .args(args)
        .env("ENGRAM_HOME", home)
        .env("ENGRAM_HMAC_KEY", TEST_KEY_HEX)
        .env_remove("ENGRAM_MODEL_DIR")
        .env_remove("ENGRAM_MODEL_HUB");
    for (k, v) in envs {
        command.env(k, v);
    }
    command.output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// What is in `<home>/models`, staging folders included.
fn models_in(home: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(home.join("models"))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// A hub serving all-MiniLM-L6-v2's paths at the catalogue's revision,
/// each answered by `serve(path, published size)`.
fn minilm_hub(serve: impl Fn(&str, u64) -> Option<Served>) -> TestHub {
    let model = known_model("all-MiniLM-L6-v2").unwrap();
    let files: BTreeMap<String, Served> = model
        .files
        .iter()
        .filter_map(|f| {
            serve(f.path, f.bytes).map(|s| {
                (
                    format!("/{}/resolve/{}/{}", model.repo, model.revision, f.path),
                    s,
                )
            })
        })
        .collect();
    TestHub::serve(files)
}

/// Bytes of exactly `size` that are not the published file.
fn impostor(size: u64) -> Vec<u8> {
    let mut bytes = b"{\"not\": \"the published file\"}".to_vec();
    bytes.resize(usize::try_from(size).unwrap(), b' ');
    bytes
}

#[test]
fn an_unknown_model_name_lists_the_known_ones() {
    let home = tempfile::tempdir().unwrap();
    let out = engram_home(home.path(), &["model", "install", "gpt-5"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(
            "no model is called \"gpt-5\": the known models are bge-small-zh-v1.5, all-MiniLM-L6-v2"
        ),
        "{err}"
    );
    assert!(models_in(home.path()).is_empty());
    // A hub that is not a URL is refused before anything is fetched.
    let out = engram_home(
        home.path(),
        &[
            "model",
            "install",
            "all-MiniLM-L6-v2",
            "--hub",
            "huggingface.co",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not a hub URL"), "{}", stderr(&out));
    assert!(models_in(home.path()).is_empty());
}

#[test]
fn a_file_that_is_not_the_published_one_installs_nothing() {
    // Every file the right size, none the right bytes.
    let hub = minilm_hub(|_, size| Some(Served::File(impostor(size))));
    let home = tempfile::tempdir().unwrap();
    let out = engram_home(
        home.path(),
        &["model", "install", "all-MiniLM-L6-v2", "--hub", &hub.url],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("config.json of all-MiniLM-L6-v2"), "{err}");
    assert!(
        err.contains("expected 953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
        "{err}"
    );
    assert!(err.contains("nothing was installed"), "{err}");
    assert!(
        models_in(home.path()).is_empty(),
        "{:?}",
        models_in(home.path())
    );
    // Nothing installed: recall stays keyword-only and says so.
    let list = engram_home(home.path(), &["model", "list", "--json"], &[]);
    let json: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(json["in_use"], serde_json::Value::Null);
    assert_eq!(json["chosen_by"], "none");
}

#[test]
fn a_missing_file_is_the_hubs_404_and_installs_nothing() {
    // A hub holding nothing; named by the environment this time.
    let hub = TestHub::serve(BTreeMap::new());
    let home = tempfile::tempdir().unwrap();
    let out = engram_home(
        home.path(),
        &["model", "install", "bge-small-zh-v1.5"],
        &[("ENGRAM_MODEL_HUB", hub.url.as_str())],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("answered HTTP 404"), "{err}");
    assert!(
        err.contains(
            "/BAAI/bge-small-zh-v1.5/resolve/7999e1d3359715c523056ef9478215996d62a620/config.json"
        ),
        "{err}"
    );
    assert!(models_in(home.path()).is_empty());
    assert_eq!(hub.requests.lock().unwrap().len(), 1);
}

#[test]
fn an_interrupted_download_installs_nothing() {
    let hub = minilm_hub(|_, size| {
        Some(Served::Cut {
            bytes: impostor(size),
            sent: usize::try_from(size / 2).unwrap(),
        })
    });
    let home = tempfile::tempdir().unwrap();
    let out = engram_home(
        home.path(),
        &["model", "install", "all-MiniLM-L6-v2", "--hub", &hub.url],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("nothing was installed"), "{err}");
    assert!(models_in(home.path()).is_empty());
}

/// A model in the engram home is the one recall runs, with no variable
/// set: in the command's own process and in a daemon it starts.
#[test]
fn an_installed_model_is_used_by_default() {
    let home = tempfile::tempdir().unwrap();
    let models = home.path().join("models");
    let dir = tiny_model(&models, "all-MiniLM-L6-v2");
    let list = engram_home(home.path(), &["model", "list", "--json"], &[]);
    assert_eq!(list.status.code(), Some(0), "{}", stderr(&list));
    let json: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(json["in_use"], dir.to_string_lossy().as_ref());
    assert_eq!(json["chosen_by"], "installed");
    let row = json["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "all-MiniLM-L6-v2")
        .unwrap();
    assert_eq!(row["installed"], true);
    // The tiny model is not the published one.
    assert_eq!(row["verified"], false);

    for in_process in [true, false] {
        let store = home.path().join(format!("store-{in_process}"));
        let store = store.to_str().unwrap();
        let mut args = vec!["--store", store];
        if in_process {
            args.push("--in-process");
        }
        let run = |more: &[&str]| {
            let all: Vec<&str> = args.iter().chain(more).copied().collect();
            engram_home(home.path(), &all, &[])
        };
        let out = run(&["remember", "the man is eating bread"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let out = run(&["recall", "bread", "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["mode"], "hybrid", "in process: {in_process}");
        assert!(!stderr(&out).contains("keyword-only"), "{}", stderr(&out));
        if !in_process {
            let out = run(&["daemon", "stop"]);
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        }
    }
}

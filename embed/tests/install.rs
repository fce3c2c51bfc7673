//! `engram_embed::install` against a local stand-in for the hub
//! ([`TestHub`]) serving the tiny test model: a whole download is
//! verified and renamed into place; a wrong checksum, a missing file, an
//! interrupted or oversized transfer leave nothing behind.

use std::collections::BTreeMap;
use std::path::Path;

use engram_embed::install::{
    InstallError, KnownModel, ModelChoice, ModelFile, install, select_with, verify_installed,
};
use engram_embed::testing::{Served, TestHub, folder_files, tiny_model};
use engram_embed::{BertEmbedder, Embedder};
use sha2::{Digest, Sha256};

const REPO: &str = "test/tiny-bert";
const REVISION: &str = "0123456789abcdef0123456789abcdef01234567";

/// The tiny model as a catalogue entry (its files' real sizes and
/// checksums) and the files the hub serves for it.
fn tiny_entry(name: &'static str) -> (KnownModel, Vec<(String, Vec<u8>)>) {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model(dir.path(), name);
    engram_embed::testing::write_pooling(&model, false, true);
    let files = folder_files(&model);
    let pinned: Vec<ModelFile> = files
        .iter()
        .map(|(path, bytes)| ModelFile {
            path: Box::leak(path.clone().into_boxed_str()),
            bytes: bytes.len() as u64,
            sha256: Box::leak(hex::encode(Sha256::digest(bytes)).into_boxed_str()),
        })
        .collect();
    let entry = KnownModel {
        name,
        repo: REPO,
        revision: REVISION,
        about: "the tiny test model",
        files: Box::leak(pinned.into_boxed_slice()),
    };
    (entry, files)
}

fn hub_of(
    files: &[(String, Vec<u8>)],
    change: impl Fn(&str, Vec<u8>) -> Option<Served>,
) -> TestHub {
    let served: BTreeMap<String, Served> = files
        .iter()
        .filter_map(|(path, bytes)| {
            change(path, bytes.clone()).map(|s| (format!("/{REPO}/resolve/{REVISION}/{path}"), s))
        })
        .collect();
    TestHub::serve(served)
}

/// Every entry of `models`, names only (staging folders included).
fn entries(models: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(models)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn a_model_is_downloaded_verified_and_renamed_into_place() {
    let (entry, files) = tiny_entry("tiny-install");
    let hub = hub_of(&files, |_, b| Some(Served::File(b)));
    let home = tempfile::tempdir().unwrap();
    let models = home.path().join("models");
    let mut heard = Vec::new();
    let installed = install(&entry, &models, &hub.url, &mut |path, got| {
        heard.push((path.to_owned(), got));
    })
    .unwrap();
    assert!(!installed.already);
    assert_eq!(installed.dir, models.join("tiny-install"));
    assert_eq!(
        entries(&models),
        ["tiny-install"],
        "no staging folder is left"
    );
    assert_eq!(folder_files(&installed.dir), files, "byte for byte");
    assert!(verify_installed(&installed.dir, &entry));
    assert!(heard.iter().any(|(p, _)| p == "model.safetensors"));
    // Every file was asked for at the pinned revision.
    let asked = hub.requests.lock().unwrap().clone();
    assert_eq!(asked.len(), files.len());
    assert!(
        asked
            .iter()
            .all(|p| p.starts_with(&format!("/{REPO}/resolve/{REVISION}/")))
    );
    // The folder is a model engram loads.
    let model = BertEmbedder::load(&installed.dir).unwrap();
    assert_eq!(model.embed(&["alpha beta"]).unwrap().len(), 1);

    // Installing again downloads nothing.
    let again = install(&entry, &models, &hub.url, &mut |_, _| {}).unwrap();
    assert!(again.already);
    assert_eq!(hub.requests.lock().unwrap().len(), files.len());

    // A damaged installed file is replaced by a whole download.
    std::fs::write(installed.dir.join("tokenizer.json"), b"{}").unwrap();
    assert!(!verify_installed(&installed.dir, &entry));
    let repaired = install(&entry, &models, &hub.url, &mut |_, _| {}).unwrap();
    assert!(!repaired.already);
    assert_eq!(folder_files(&repaired.dir), files);
    assert_eq!(entries(&models), ["tiny-install"]);
}

/// Runs an install that must fail and checks nothing was installed.
fn refused(change: impl Fn(&str, Vec<u8>) -> Option<Served>) -> InstallError {
    let (entry, files) = tiny_entry("tiny-refused");
    let hub = hub_of(&files, change);
    let home = tempfile::tempdir().unwrap();
    let models = home.path().join("models");
    let err = install(&entry, &models, &hub.url, &mut |_, _| {}).unwrap_err();
    assert_eq!(
        entries(&models),
        Vec::<String>::new(),
        "{err}: nothing is left"
    );
    assert_eq!(select_with(None, home.path(), None).1, ModelChoice::Default);
    err
}

#[test]
fn a_checksum_mismatch_installs_nothing() {
    let err = refused(|path, mut bytes| {
        if path == "model.safetensors" {
            // Same size, one byte changed.
            let last = bytes.len() - 1;
            bytes[last] ^= 0x01;
        }
        Some(Served::File(bytes))
    });
    assert!(matches!(err, InstallError::Checksum { ref file, .. } if file == "model.safetensors"));
    let message = err.to_string();
    assert!(message.contains("SHA-256"), "{message}");
    assert!(message.contains("nothing was installed"), "{message}");
}

#[test]
fn a_missing_file_is_the_hubs_404() {
    let err = refused(|path, bytes| (path != "tokenizer.json").then_some(Served::File(bytes)));
    assert!(
        matches!(err, InstallError::Status { status: 404, ref url } if url.ends_with("/tokenizer.json"))
    );
}

#[test]
fn an_interrupted_download_installs_nothing() {
    let err = refused(|path, bytes| {
        Some(if path == "model.safetensors" {
            let sent = bytes.len() / 2;
            Served::Cut { bytes, sent }
        } else {
            Served::File(bytes)
        })
    });
    assert!(
        matches!(
            err,
            InstallError::Download { .. } | InstallError::Size { .. }
        ),
        "{err}"
    );
}

#[test]
fn a_file_longer_than_published_is_cut_off() {
    let err = refused(|path, mut bytes| {
        if path == "config.json" {
            bytes.extend_from_slice(&[b' '; 4096]);
        }
        Some(Served::File(bytes))
    });
    assert!(
        matches!(err, InstallError::Size { ref file, got, expected, .. } if file == "config.json" && got > expected),
        "{err}"
    );
}

#[test]
fn nothing_answering_is_a_clear_error() {
    let (entry, _) = tiny_entry("tiny-nohub");
    // A port nothing listens on (bound, then closed).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let home = tempfile::tempdir().unwrap();
    let models = home.path().join("models");
    let err = install(
        &entry,
        &models,
        &format!("http://127.0.0.1:{port}"),
        &mut |_, _| {},
    )
    .unwrap_err();
    assert!(matches!(err, InstallError::Download { .. }), "{err}");
    assert_eq!(entries(&models), Vec::<String>::new());
}

/// The model engram runs: the environment's folder, a named one, else the
/// catalogue's first installed, else the default (absent) folder.
#[test]
fn the_first_installed_catalogue_model_is_the_default() {
    let home = tempfile::tempdir().unwrap();
    let models = home.path().join("models");
    let (dir, choice) = select_with(None, home.path(), None);
    assert_eq!(
        (dir, choice),
        (models.join("bge-small-zh-v1.5"), ModelChoice::Default)
    );
    tiny_model(&models, "all-MiniLM-L6-v2");
    let (dir, choice) = select_with(None, home.path(), None);
    assert_eq!(
        (dir, choice),
        (models.join("all-MiniLM-L6-v2"), ModelChoice::Installed)
    );
    tiny_model(&models, "bge-small-zh-v1.5");
    assert_eq!(
        select_with(None, home.path(), None).0,
        models.join("bge-small-zh-v1.5")
    );
    // A folder outside the catalogue is used only when named.
    tiny_model(&models, "my-model");
    assert_eq!(
        select_with(None, home.path(), Some("my-model")),
        (models.join("my-model"), ModelChoice::Named)
    );
    assert_eq!(
        select_with(Some("/elsewhere".into()), home.path(), Some("my-model")),
        ("/elsewhere".into(), ModelChoice::Env)
    );
    let names: Vec<String> = engram_embed::install::installed_models(home.path())
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(names, ["all-MiniLM-L6-v2", "bge-small-zh-v1.5", "my-model"]);
}

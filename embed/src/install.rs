//! Named sentence models and their installation into engram's home.
//!
//! [`KNOWN_MODELS`] is the catalogue: each model's hub repository, the
//! revision (a commit, never a branch) and every file it needs with its
//! size and SHA-256. [`install`] downloads a model's files from a hub
//! (Hugging Face's `{hub}/{repo}/resolve/{revision}/{file}` layout) into a
//! temporary folder beside the models folder, checks each file's size and
//! checksum as it arrives, and only then renames the folder into place:
//! a failed, interrupted or mismatched download leaves nothing behind and
//! an installed model is never half replaced.
//!
//! [`select_model_dir`] is the one rule for which model engram runs:
//! [`MODEL_DIR_ENV`] when set, else the model a caller names (a
//! configuration file), else the first model of the catalogue installed in
//! the home, else the default model's folder (which need not exist).
//!
//! **Invariants**
//!
//! - A folder `<models>/<name>` is only ever created by a rename of a
//!   folder whose every file matched the catalogue.
//! - A download stops at the catalogue's size: a server cannot fill the
//!   disk by sending more.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::{DEFAULT_MODEL_NAME, MODEL_DIR_ENV};

/// The environment variable naming the hub to download from (the CLI's
/// `--hub`); [`DEFAULT_HUB`] otherwise.
pub const HUB_ENV: &str = "ENGRAM_MODEL_HUB";
/// Hugging Face, where the catalogue's models are published.
pub const DEFAULT_HUB: &str = "https://huggingface.co";
/// The folder of engram's home that holds installed models.
pub const MODELS_DIR: &str = "models";
/// How long to wait for a connection to the hub.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// How long one read may wait for the next bytes of a file.
pub const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// One file of a model, as published at the catalogue's revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelFile {
    /// The path inside the repository (and inside the installed folder).
    pub path: &'static str,
    pub bytes: u64,
    /// Lowercase hex.
    pub sha256: &'static str,
}

/// A model engram can install.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownModel {
    /// The name `engram model install` takes, and the installed folder's name.
    pub name: &'static str,
    /// The hub repository, `owner/name`.
    pub repo: &'static str,
    /// The commit the checksums were taken at.
    pub revision: &'static str,
    /// What it reads, in a few words.
    pub about: &'static str,
    pub files: &'static [ModelFile],
}

impl KnownModel {
    /// The sum of its files' sizes.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.files.iter().map(|f| f.bytes).sum()
    }
}

/// The catalogue, in order of preference: the first one installed is the
/// one engram runs when nothing names another ([`select_model_dir`]).
pub const KNOWN_MODELS: &[KnownModel] = &[
    KnownModel {
        name: "bge-small-zh-v1.5",
        repo: "BAAI/bge-small-zh-v1.5",
        revision: "7999e1d3359715c523056ef9478215996d62a620",
        about: "Chinese and English, 512 dimensions, CLS pooling",
        files: &[
            ModelFile {
                path: "config.json",
                bytes: 776,
                sha256: "3853a7979202c348751b753e36f579c41d8da7d36af617d3d907e1fc9b441f2a",
            },
            ModelFile {
                path: "tokenizer.json",
                bytes: 439_125,
                sha256: "48cea5d44424912a6fd1ea647bf4fe50b55ab8b1e5879c3275f80e339e8fae26",
            },
            ModelFile {
                path: "model.safetensors",
                bytes: 95_827_648,
                sha256: "354763b9b1357bc9c44f62c6be2276321081ed2567773608c0d0785b61d5a026",
            },
        ],
    },
    KnownModel {
        name: "all-MiniLM-L6-v2",
        repo: "sentence-transformers/all-MiniLM-L6-v2",
        revision: "1110a243fdf4706b3f48f1d95db1a4f5529b4d41",
        about: "English, 384 dimensions, mean pooling",
        files: &[
            ModelFile {
                path: "config.json",
                bytes: 612,
                sha256: "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
            },
            ModelFile {
                path: "tokenizer.json",
                bytes: 466_247,
                sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
            },
            ModelFile {
                path: "model.safetensors",
                bytes: 90_868_376,
                sha256: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
            },
            ModelFile {
                path: "sentence_bert_config.json",
                bytes: 53,
                sha256: "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
            },
            ModelFile {
                path: "1_Pooling/config.json",
                bytes: 190,
                sha256: "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
            },
        ],
    },
];

/// The catalogue's model called `name` (exact, or ignoring ASCII case).
#[must_use]
pub fn known_model(name: &str) -> Option<&'static KnownModel> {
    KNOWN_MODELS.iter().find(|m| m.name == name).or_else(|| {
        KNOWN_MODELS
            .iter()
            .find(|m| m.name.eq_ignore_ascii_case(name))
    })
}

/// The catalogue's names, comma-separated, for messages.
#[must_use]
pub fn known_names() -> String {
    KNOWN_MODELS
        .iter()
        .map(|m| m.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why a model could not be installed. Nothing is installed in any case.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    #[error("no model is called {name:?}: the known models are {known}")]
    UnknownModel { name: String, known: String },
    #[error("{hub:?} is not a hub URL: give http:// or https:// and a host")]
    BadHub { hub: String },
    #[error("{url}: the hub answered HTTP {status}; nothing was installed")]
    Status { url: String, status: u16 },
    #[error("downloading {url} failed: {reason}; nothing was installed (run the install again)")]
    Download { url: String, reason: String },
    #[error(
        "{url} sent {got} bytes where {file} of {model} has {expected} (a download cut short, \
         or not the published file); nothing was installed"
    )]
    Size {
        url: String,
        model: String,
        file: String,
        expected: u64,
        got: u64,
    },
    #[error(
        "{file} of {model} from {url} has SHA-256 {actual}, expected {expected}: \
         not the published file; nothing was installed"
    )]
    Checksum {
        url: String,
        model: String,
        file: String,
        expected: String,
        actual: String,
    },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> InstallError + '_ {
    move |source| InstallError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// What [`install`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    pub name: String,
    pub dir: PathBuf,
    pub bytes: u64,
    /// The folder held the right files already: nothing was downloaded.
    pub already: bool,
}

/// The hub to use: `given` (the CLI's `--hub`), else [`HUB_ENV`], else
/// [`DEFAULT_HUB`]; checked to be an http(s) URL with a host, without a
/// trailing slash.
///
/// # Errors
/// [`InstallError::BadHub`].
pub fn hub_url(given: Option<&str>) -> Result<String, InstallError> {
    let env = std::env::var(HUB_ENV).ok().filter(|v| !v.is_empty());
    let hub = given.map(str::to_owned).or(env);
    let hub = hub.as_deref().unwrap_or(DEFAULT_HUB).trim();
    let rest = hub
        .strip_prefix("https://")
        .or_else(|| hub.strip_prefix("http://"));
    match rest {
        Some(rest)
            if !rest.is_empty() && !rest.starts_with('/') && !hub.contains(char::is_whitespace) =>
        {
            Ok(hub.trim_end_matches('/').to_owned())
        }
        _ => Err(InstallError::BadHub {
            hub: hub.to_owned(),
        }),
    }
}

/// The URL of `file` of `model` on `hub`.
#[must_use]
pub fn file_url(hub: &str, model: &KnownModel, file: &ModelFile) -> String {
    format!(
        "{hub}/{}/resolve/{}/{}",
        model.repo, model.revision, file.path
    )
}

/// Whether `dir` holds every file of `model` with the right size and checksum.
#[must_use]
pub fn verify_installed(dir: &Path, model: &KnownModel) -> bool {
    model.files.iter().all(|file| {
        let path = dir.join(file.path);
        std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() == file.bytes)
            && std::fs::File::open(&path)
                .ok()
                .and_then(|mut f| sha256_of(&mut f).ok())
                .is_some_and(|sum| sum == file.sha256)
    })
}

fn sha256_of(reader: &mut dyn Read) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            return Ok(hex::encode(hasher.finalize()));
        }
        hasher.update(buf.get(..n).unwrap_or_default());
    }
}

/// Downloads `model` from `hub` into `<models_dir>/<name>`, every file
/// checked against the catalogue, the folder renamed into place only when
/// all are right (an installed folder that no longer verifies is replaced
/// the same way). `progress` hears each file's path and the bytes received
/// so far.
///
/// # Errors
/// The hub's refusal, a failed or interrupted transfer, a wrong size or
/// checksum, or a local I/O error; nothing is installed.
pub fn install(
    model: &KnownModel,
    models_dir: &Path,
    hub: &str,
    progress: &mut dyn FnMut(&str, u64),
) -> Result<Installed, InstallError> {
    let target = models_dir.join(model.name);
    if verify_installed(&target, model) {
        return Ok(Installed {
            name: model.name.to_owned(),
            dir: target,
            bytes: model.bytes(),
            already: true,
        });
    }
    std::fs::create_dir_all(models_dir).map_err(io_err(models_dir))?;
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{}.installing-", model.name))
        .tempdir_in(models_dir)
        .map_err(io_err(models_dir))?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(CONNECT_TIMEOUT))
        .timeout_recv_response(Some(READ_TIMEOUT))
        .timeout_per_read(Some(READ_TIMEOUT))
        .user_agent(concat!("engram/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    for file in model.files {
        fetch(&agent, hub, model, file, staging.path(), progress)?;
    }
    // Replace an old folder (it did not verify) only once the new one is whole.
    let old = staging.path().join(".replaced");
    let had_old = target.exists();
    if had_old {
        std::fs::rename(&target, &old).map_err(io_err(&target))?;
    }
    let staged = staging.path().join(".model");
    std::fs::create_dir(&staged).map_err(io_err(&staged))?;
    for top in top_level(model) {
        let from = staging.path().join(top);
        std::fs::rename(&from, staged.join(top)).map_err(io_err(&from))?;
    }
    if let Err(source) = std::fs::rename(&staged, &target) {
        if had_old {
            let _ = std::fs::rename(&old, &target);
        }
        return Err(InstallError::Io {
            path: target,
            source,
        });
    }
    if let Ok(dir) = std::fs::File::open(models_dir) {
        let _ = dir.sync_all();
    }
    drop(staging);
    Ok(Installed {
        name: model.name.to_owned(),
        dir: target,
        bytes: model.bytes(),
        already: false,
    })
}

/// The distinct first components of the model's file paths, in order.
fn top_level(model: &KnownModel) -> Vec<&'static str> {
    let mut tops: Vec<&'static str> = Vec::new();
    for file in model.files {
        let top = file.path.split('/').next().unwrap_or(file.path);
        if !tops.contains(&top) {
            tops.push(top);
        }
    }
    tops
}

fn fetch(
    agent: &ureq::Agent,
    hub: &str,
    model: &KnownModel,
    file: &ModelFile,
    staging: &Path,
    progress: &mut dyn FnMut(&str, u64),
) -> Result<(), InstallError> {
    let url = file_url(hub, model, file);
    let download = |reason: String| InstallError::Download {
        url: url.clone(),
        reason,
    };
    let response = agent.get(&url).call().map_err(|e| match e {
        ureq::Error::StatusCode(status) => InstallError::Status {
            url: url.clone(),
            status,
        },
        other => download(other.to_string()),
    })?;
    let path = staging.join(file.path);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io_err(parent))?;
    }
    let mut out = std::fs::File::create(&path).map_err(io_err(&path))?;
    let mut body = response.into_body().into_reader();
    let mut hasher = Sha256::new();
    let mut got: u64 = 0;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = body.read(&mut buf).map_err(|e| download(e.to_string()))?;
        if n == 0 {
            break;
        }
        let chunk = buf.get(..n).unwrap_or_default();
        got += n as u64;
        if got > file.bytes {
            return Err(InstallError::Size {
                url,
                model: model.name.to_owned(),
                file: file.path.to_owned(),
                expected: file.bytes,
                got,
            });
        }
        hasher.update(chunk);
        out.write_all(chunk).map_err(io_err(&path))?;
        progress(file.path, got);
    }
    if got != file.bytes {
        return Err(InstallError::Size {
            url,
            model: model.name.to_owned(),
            file: file.path.to_owned(),
            expected: file.bytes,
            got,
        });
    }
    let actual = hex::encode(hasher.finalize());
    if actual != file.sha256 {
        return Err(InstallError::Checksum {
            url,
            model: model.name.to_owned(),
            file: file.path.to_owned(),
            expected: file.sha256.to_owned(),
            actual,
        });
    }
    out.sync_all().map_err(io_err(&path))?;
    Ok(())
}

/// How the model folder was chosen ([`select_model_dir`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelChoice {
    /// [`MODEL_DIR_ENV`] names it.
    Env,
    /// The caller named it (a configuration file).
    Named,
    /// The first model of the catalogue installed in the home.
    Installed,
    /// Nothing is installed: the default model's folder, which does not exist.
    Default,
}

/// The model folder engram runs, and why: `$ENGRAM_MODEL_DIR` when set
/// (and not empty); else `<home>/models/<named>` when a caller names a
/// model; else the first model of [`KNOWN_MODELS`] whose folder in
/// `<home>/models` holds a `config.json`; else
/// `<home>/models/bge-small-zh-v1.5` (absent: recall is keyword-only).
#[must_use]
pub fn select_model_dir(home: &Path, named: Option<&str>) -> (PathBuf, ModelChoice) {
    select_with(std::env::var_os(MODEL_DIR_ENV), home, named)
}

/// [`select_model_dir`] given the environment's value, so tests need not
/// change the process environment.
#[must_use]
pub fn select_with(
    env: Option<std::ffi::OsString>,
    home: &Path,
    named: Option<&str>,
) -> (PathBuf, ModelChoice) {
    if let Some(dir) = env.filter(|d| !d.is_empty()) {
        return (PathBuf::from(dir), ModelChoice::Env);
    }
    let models = home.join(MODELS_DIR);
    if let Some(name) = named {
        return (models.join(name), ModelChoice::Named);
    }
    for model in KNOWN_MODELS {
        let dir = models.join(model.name);
        if dir.join("config.json").is_file() {
            return (dir, ModelChoice::Installed);
        }
    }
    (models.join(DEFAULT_MODEL_NAME), ModelChoice::Default)
}

/// The folders under `<home>/models` that look like models (they hold a
/// `config.json`), by name; staging folders of an install are left out.
#[must_use]
pub fn installed_models(home: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(home.join(MODELS_DIR)) else {
        return Vec::new();
    };
    let mut found: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let path = e.path();
            (!name.starts_with('.') && path.join("config.json").is_file()).then_some((name, path))
        })
        .collect();
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_is_well_formed() {
        for model in KNOWN_MODELS {
            assert_eq!(
                model.revision.len(),
                40,
                "{}: a commit, not a branch",
                model.name
            );
            assert!(model.revision.chars().all(|c| c.is_ascii_hexdigit()));
            for name in ["config.json", "tokenizer.json", "model.safetensors"] {
                assert!(
                    model.files.iter().any(|f| f.path == name),
                    "{}: {name}",
                    model.name
                );
            }
            for file in model.files {
                assert_eq!(file.sha256.len(), 64);
                assert!(
                    file.sha256
                        .chars()
                        .all(|c| matches!(c, '0'..='9' | 'a'..='f'))
                );
                assert!(file.bytes > 0);
            }
        }
        assert_eq!(KNOWN_MODELS[0].name, DEFAULT_MODEL_NAME);
        assert_eq!(
            known_model("ALL-minilm-l6-v2").map(|m| m.name),
            Some("all-MiniLM-L6-v2")
        );
        assert!(known_model("gpt-5").is_none());
    }

    #[test]
    fn a_hub_must_be_an_http_url() {
        assert_eq!(
            hub_url(Some("http://127.0.0.1:8080/")).unwrap(),
            "http://127.0.0.1:8080"
        );
        assert_eq!(
            hub_url(Some("https://hf-mirror.com")).unwrap(),
            "https://hf-mirror.com"
        );
        for bad in [
            "",
            "ftp://x",
            "huggingface.co",
            "http://",
            "https:///x",
            "http://a b",
        ] {
            assert!(
                matches!(hub_url(Some(bad)), Err(InstallError::BadHub { .. })),
                "{bad:?}"
            );
        }
    }
}

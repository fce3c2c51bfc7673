//! The config file, `$ENGRAM_HOME/config.toml` (or the file `ENGRAM_CONFIG`
//! names), and the settings resolved from it, the environment and flags.
//!
//! Every setting is resolved the same way: a command-line flag wins, then
//! the environment variable, then the file, then the default. Each
//! resolved value remembers where it came from ([`Source`]), which is
//! what `engram config` prints.
//!
//! Invariants: a file that does not parse, holds a key this build does not
//! know, or a value that does not parse is an error naming the file and the
//! key; a broken file never falls back to the defaults. A file holding a
//! secret (`serve.token`, or a `log` URL with a password) must be readable
//! by its owner alone, and that owner must be this user: otherwise it is
//! refused, since the secret has already leaked to whoever can read it.
//! Secrets never reach `Debug` output or `engram config`.
//!
//! ```toml
//! model_dir = "/srv/models/bge-small-zh-v1.5"
//! durability = "sync"              # sync | none | interval | interval:250ms
//! log = "postgres://engram@db.internal/engram"
//!
//! [daemon]
//! idle = "30m"                     # a detached daemon's idle exit
//!
//! [maintenance]
//! every = "1h"                     # or "off"
//!
//! [serve]
//! token = "..."                    # at least 32 characters; file mode 0600
//! ```

use std::fmt;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use engram_log::Durability;
use serde::Deserialize;

/// Name of the config file in the engram home.
pub const CONFIG_FILE_NAME: &str = "config.toml";
/// Environment variable naming another config file (an empty value: the
/// home's).
pub const CONFIG_ENV: &str = "ENGRAM_CONFIG";
/// Largest config file read: a config is a few lines.
pub const CONFIG_BYTES_MAX: u64 = 64 * 1024;

/// Environment variable with the embedding model's folder.
pub const MODEL_DIR_ENV: &str = engram_embed::MODEL_DIR_ENV;
/// Environment variable with the durability of appends.
pub const DURABILITY_ENV: &str = "ENGRAM_DURABILITY";
/// Environment variable with the shared log's URL (`--log`).
pub const LOG_URL_ENV: &str = "ENGRAM_LOG_URL";
/// Environment variable with the idle period of daemons (`10m`, `30s`).
pub const IDLE_ENV: &str = "ENGRAM_DAEMON_IDLE";
/// Environment variable with the maintenance schedule (`1h`, `off`).
pub const MAINTAIN_EVERY_ENV: &str = "ENGRAM_MAINTAIN_EVERY";
/// Environment variable holding the HTTP API's bearer token.
pub const TOKEN_ENV: &str = "ENGRAM_TOKEN";

/// The idle period of a detached daemon unless told otherwise.
pub const IDLE_DEFAULT: Duration = Duration::from_secs(600);
/// How often the owner of the stores runs maintenance unless told
/// otherwise.
pub const MAINTAIN_EVERY_DEFAULT: Duration = Duration::from_secs(3600);
/// The shortest maintenance interval accepted.
pub const MAINTAIN_EVERY_MIN: Duration = Duration::from_millis(100);
/// The sync interval of `durability = "interval"` without one.
pub const SYNC_INTERVAL_DEFAULT: Duration = Duration::from_millis(100);

/// Why the settings could not be resolved. Nothing was changed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    #[error("reading the config file {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{CONFIG_ENV} names {}, which does not exist (unset it for the engram home's config.toml)", path.display())]
    Missing { path: PathBuf },
    #[error("the config file {} is over {CONFIG_BYTES_MAX} bytes: it is not a config file", path.display())]
    TooLarge { path: PathBuf },
    #[error("the config file {} is not UTF-8 text", path.display())]
    NotText { path: PathBuf },
    /// Not TOML, an unknown key, or a value of the wrong type; the message
    /// names the key and its line.
    #[error("the config file {}: {message}", path.display())]
    Parse { path: PathBuf, message: String },
    /// A value that does not parse, at its source (a flag, a variable, a
    /// file's key).
    #[error("{source_name}: {value:?} is not {expected}")]
    Value {
        source_name: String,
        value: String,
        expected: &'static str,
    },
    /// A secret in a file other users can read, or that another user owns.
    #[error(
        "the config file {} holds a secret ({key}) but {problem}: the secret is refused; run `chmod 600 {}` (and keep the file yours), or move the secret to {env}",
        path.display(),
        path.display()
    )]
    Exposed {
        path: PathBuf,
        key: &'static str,
        problem: String,
        env: &'static str,
    },
}

/// Where a setting's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A command-line flag, by its name (`--idle`).
    Flag(&'static str),
    /// An environment variable.
    Env(&'static str),
    /// A key of the config file.
    File { path: PathBuf, key: &'static str },
    /// Nothing set it.
    Default,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Flag(flag) => write!(f, "flag {flag}"),
            Source::Env(var) => write!(f, "env {var}"),
            Source::File { path, key } => write!(f, "file {}:{key}", path.display()),
            Source::Default => f.write_str("default"),
        }
    }
}

/// A resolved value and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting<T> {
    pub value: T,
    pub source: Source,
}

impl<T> Setting<T> {
    /// This setting, unless `flag` was given on the command line.
    #[must_use]
    pub fn with_flag(self, flag: Option<T>, name: &'static str) -> Self {
        match flag {
            Some(value) => Setting {
                value,
                source: Source::Flag(name),
            },
            None => self,
        }
    }
}

/// A secret (a token, a URL with a password): never shown by `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    #[must_use]
    pub fn new(text: impl Into<String>) -> Self {
        Self(text.into())
    }

    /// The secret itself, for the one place that uses it.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// The config file as written. Every key is optional; an unknown key is
/// an error.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    model_dir: Option<PathBuf>,
    durability: Option<String>,
    log: Option<String>,
    #[serde(default)]
    daemon: DaemonTable,
    #[serde(default)]
    maintenance: MaintenanceTable,
    #[serde(default)]
    serve: ServeTable,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct DaemonTable {
    idle: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct MaintenanceTable {
    every: Option<String>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServeTable {
    token: Option<String>,
}

impl fmt::Debug for ServeTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServeTable")
            .field("token", &self.token.as_ref().map(|_| "..."))
            .finish()
    }
}

/// Every setting, resolved from the environment, the config file and the
/// defaults; a command applies its own flags with [`Setting::with_flag`].
#[derive(Debug, Clone)]
pub struct Settings {
    /// The config file read, or that would be read (empty without a home
    /// folder).
    pub path: PathBuf,
    /// Whether the file exists.
    pub file_exists: bool,
    /// The embedding model's folder.
    pub model_dir: Setting<PathBuf>,
    /// When appends are acknowledged (the owner's stores).
    pub durability: Setting<Durability>,
    /// The shared log on PostgreSQL, if any.
    pub log: Setting<Option<Secret>>,
    /// A daemon's idle exit; `None`: the default (10 minutes detached,
    /// never in the foreground).
    pub daemon_idle: Setting<Option<Duration>>,
    /// How often the owner runs maintenance; `None`: off.
    pub maintain_every: Setting<Option<Duration>>,
    /// The HTTP API's bearer token.
    pub token: Setting<Option<Secret>>,
}

/// The config file's path: `ENGRAM_CONFIG` when set and not empty, else
/// `config.toml` in `home`; `None` without either (no home folder).
#[must_use]
pub fn config_path(home: Option<&Path>, env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    match env(CONFIG_ENV) {
        Some(path) if !path.is_empty() => Some(PathBuf::from(path)),
        _ => home.map(|home| home.join(CONFIG_FILE_NAME)),
    }
}

/// The process environment, an empty value read as unset.
#[must_use]
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

impl Settings {
    /// The settings of the engram home `home`, from the process
    /// environment and the config file.
    ///
    /// # Errors
    /// [`ConfigError`]: a file that cannot be read or does not parse, a key
    /// it should not hold, a value that does not parse, an exposed secret.
    pub fn load(home: Option<&Path>) -> Result<Self, ConfigError> {
        Self::resolve(home, &process_env)
    }

    /// [`Settings::load`] with the environment given (tests).
    ///
    /// # Errors
    /// As [`Settings::load`].
    pub fn resolve(
        home: Option<&Path>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let env = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let path = config_path(home, &env);
        let (file, file_exists) = match &path {
            Some(path) => read_file(path)?,
            None => (ConfigFile::default(), false),
        };
        if !file_exists && let Some(named) = env(CONFIG_ENV) {
            return Err(ConfigError::Missing {
                path: PathBuf::from(named),
            });
        }
        let path = path.unwrap_or_default();
        let at = |key: &'static str| Source::File {
            path: path.clone(),
            key,
        };
        let model_dir = match (env(MODEL_DIR_ENV), &file.model_dir) {
            (Some(dir), _) => Setting {
                value: PathBuf::from(dir),
                source: Source::Env(MODEL_DIR_ENV),
            },
            (None, Some(dir)) => Setting {
                value: dir.clone(),
                source: at("model_dir"),
            },
            // The default is the model engram would run: the first of the
            // catalogue installed in the home, else the default model's folder.
            (None, None) => Setting {
                value: home
                    .map(|home| engram_embed::install::select_with(None, home, None).0)
                    .unwrap_or_default(),
                source: Source::Default,
            },
        };
        let durability = pick(
            env(DURABILITY_ENV),
            DURABILITY_ENV,
            file.durability.as_deref(),
            at("durability"),
            parse_durability,
        )?
        .unwrap_or(Setting {
            value: Durability::Sync,
            source: Source::Default,
        });
        let log = pick(
            env(LOG_URL_ENV),
            LOG_URL_ENV,
            file.log.as_deref(),
            at("log"),
            |text| Ok(Secret::new(text.trim())),
        )?;
        let daemon_idle = pick(
            env(IDLE_ENV),
            IDLE_ENV,
            file.daemon.idle.as_deref(),
            at("daemon.idle"),
            parse_duration,
        )?;
        let maintain_every = pick(
            env(MAINTAIN_EVERY_ENV),
            MAINTAIN_EVERY_ENV,
            file.maintenance.every.as_deref(),
            at("maintenance.every"),
            parse_every,
        )?
        .unwrap_or(Setting {
            value: Some(MAINTAIN_EVERY_DEFAULT),
            source: Source::Default,
        });
        let token = pick(
            env(TOKEN_ENV),
            TOKEN_ENV,
            file.serve.token.as_deref(),
            at("serve.token"),
            |text| Ok(Secret::new(text.trim())),
        )?;
        // A secret read from the file: the file must be this user's alone.
        let secrets = [
            (file.serve.token.is_some(), "serve.token", TOKEN_ENV),
            (
                file.log.as_deref().is_some_and(has_password),
                "log",
                LOG_URL_ENV,
            ),
        ];
        for (held, key, env) in secrets {
            if held {
                check_private(&path, key, env)?;
            }
        }
        Ok(Self {
            path,
            file_exists,
            model_dir,
            durability,
            log: optional(log),
            daemon_idle: optional(daemon_idle),
            maintain_every,
            token: optional(token),
        })
    }
}

/// An optional setting: unset is the default `None`.
fn optional<T>(setting: Option<Setting<T>>) -> Setting<Option<T>> {
    match setting {
        Some(Setting { value, source }) => Setting {
            value: Some(value),
            source,
        },
        None => Setting {
            value: None,
            source: Source::Default,
        },
    }
}

/// The environment's value, else the file's, parsed; `None` when neither
/// sets it.
fn pick<T>(
    env_value: Option<String>,
    env_name: &'static str,
    file_value: Option<&str>,
    file_source: Source,
    parse: impl Fn(&str) -> Result<T, &'static str>,
) -> Result<Option<Setting<T>>, ConfigError> {
    let (text, source) = match (env_value, file_value) {
        (Some(text), _) => (text, Source::Env(env_name)),
        (None, Some(text)) => (text.to_owned(), file_source),
        (None, None) => return Ok(None),
    };
    match parse(&text) {
        Ok(value) => Ok(Some(Setting { value, source })),
        Err(expected) => Err(ConfigError::Value {
            source_name: source.to_string(),
            value: text,
            expected,
        }),
    }
}

fn read_file(path: &Path) -> Result<(ConfigFile, bool), ConfigError> {
    use std::io::Read as _;
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok((ConfigFile::default(), false));
        }
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    let mut bytes = Vec::new();
    file.take(CONFIG_BYTES_MAX + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
    if bytes.len() as u64 > CONFIG_BYTES_MAX {
        return Err(ConfigError::TooLarge {
            path: path.to_owned(),
        });
    }
    let text = String::from_utf8(bytes).map_err(|_| ConfigError::NotText {
        path: path.to_owned(),
    })?;
    let parsed: ConfigFile = toml::from_str(&text).map_err(|e| ConfigError::Parse {
        path: path.to_owned(),
        message: e.to_string().trim_end().to_owned(),
    })?;
    Ok((parsed, true))
}

/// Refuses a secret in a file that is not this user's alone.
fn check_private(path: &Path, key: &'static str, env: &'static str) -> Result<(), ConfigError> {
    let meta = std::fs::metadata(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })?;
    let mode = meta.mode() & 0o777;
    let uid = rustix::process::getuid().as_raw();
    let problem = if mode & 0o077 != 0 {
        format!("other users can read or change it (mode {mode:03o})")
    } else if meta.uid() != uid {
        format!(
            "it belongs to uid {}, not to this user (uid {uid})",
            meta.uid()
        )
    } else {
        return Ok(());
    };
    Err(ConfigError::Exposed {
        path: path.to_owned(),
        key,
        problem,
        env,
    })
}

/// Whether a URL carries a password (`scheme://user:password@host`).
fn has_password(url: &str) -> bool {
    url.split_once("://")
        .and_then(|(_, rest)| rest.split_once('@'))
        .is_some_and(|(userinfo, _)| userinfo.contains(':'))
}

/// A URL with its password shown as `***`.
#[must_use]
pub fn mask_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    match rest.split_once('@') {
        Some((userinfo, host)) if userinfo.contains(':') => {
            let user = userinfo.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}:***@{host}")
        }
        _ => url.to_owned(),
    }
}

/// `sync`, `none`, `interval` or `interval:DURATION`.
///
/// # Errors
/// What was expected, for the error naming the key.
pub fn parse_durability(text: &str) -> Result<Durability, &'static str> {
    const EXPECTED: &str = "a durability: `sync`, `none`, `interval` or `interval:250ms`";
    match text.trim() {
        "sync" => Ok(Durability::Sync),
        "none" => Ok(Durability::None),
        "interval" => Ok(Durability::Interval(SYNC_INTERVAL_DEFAULT)),
        other => {
            let every = other.strip_prefix("interval:").ok_or(EXPECTED)?;
            match humantime::parse_duration(every.trim()) {
                Ok(d) if !d.is_zero() => Ok(Durability::Interval(d)),
                _ => Err(EXPECTED),
            }
        }
    }
}

/// A duration (`30s`, `10m`, `1h 30m`).
///
/// # Errors
/// What was expected.
pub fn parse_duration(text: &str) -> Result<Duration, &'static str> {
    humantime::parse_duration(text.trim()).map_err(|_| "a duration such as `30s`, `10m` or `2h`")
}

/// A maintenance schedule: `off`, or an interval of at least
/// [`MAINTAIN_EVERY_MIN`].
///
/// # Errors
/// What was expected.
pub fn parse_every(text: &str) -> Result<Option<Duration>, &'static str> {
    const EXPECTED: &str = "a maintenance interval of at least 100ms (`1h`, `30m`) or `off`";
    match text.trim() {
        "off" => Ok(None),
        other => match humantime::parse_duration(other) {
            Ok(d) if d >= MAINTAIN_EVERY_MIN => Ok(Some(d)),
            _ => Err(EXPECTED),
        },
    }
}

/// A durability as the config file writes it.
#[must_use]
pub fn durability_text(durability: Durability) -> String {
    match durability {
        Durability::Sync => "sync".to_owned(),
        Durability::None => "none".to_owned(),
        Durability::Interval(d) => format!("interval:{}", humantime::format_duration(d)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::os::unix::fs::PermissionsExt as _;

    fn env_of(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: BTreeMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| vars.get(name).cloned()
    }

    fn home_with(text: &str) -> tempfile::TempDir {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join(CONFIG_FILE_NAME);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        home
    }

    #[test]
    fn environment_beats_the_file_and_the_file_beats_the_default() {
        let home = home_with("[daemon]\nidle = \"5m\"\n[maintenance]\nevery = \"2h\"\n");
        let s = Settings::resolve(Some(home.path()), &env_of(&[(IDLE_ENV, "30s")])).unwrap();
        assert_eq!(s.daemon_idle.value, Some(Duration::from_secs(30)));
        assert_eq!(s.daemon_idle.source, Source::Env(IDLE_ENV));
        assert_eq!(s.maintain_every.value, Some(Duration::from_secs(7200)));
        assert_eq!(
            s.maintain_every.source.to_string(),
            format!(
                "file {}:maintenance.every",
                home.path().join(CONFIG_FILE_NAME).display()
            )
        );
        assert_eq!(s.durability.source, Source::Default);
        let flagged = s
            .daemon_idle
            .with_flag(Some(Some(Duration::from_secs(1))), "--idle");
        assert_eq!(flagged.source, Source::Flag("--idle"));
    }

    #[test]
    fn no_file_is_all_defaults() {
        let home = tempfile::tempdir().unwrap();
        let s = Settings::resolve(Some(home.path()), &env_of(&[])).unwrap();
        assert!(!s.file_exists);
        assert_eq!(s.maintain_every.value, Some(MAINTAIN_EVERY_DEFAULT));
        assert_eq!(s.durability.value, Durability::Sync);
        assert!(s.token.value.is_none());
    }

    #[test]
    fn an_unknown_key_names_itself_and_the_file() {
        let home = home_with("[maintenance]\nevery = \"1h\"\nsometimes = true\n");
        let err = Settings::resolve(Some(home.path()), &env_of(&[])).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, ConfigError::Parse { .. }), "{text}");
        assert!(text.contains("sometimes"), "{text}");
        assert!(text.contains(CONFIG_FILE_NAME), "{text}");
    }

    #[test]
    fn a_bad_value_names_its_key() {
        let home = home_with("durability = \"sometimes\"\n");
        let err = Settings::resolve(Some(home.path()), &env_of(&[])).unwrap_err();
        assert!(err.to_string().contains(":durability"), "{err}");
        let err =
            Settings::resolve(Some(home.path()), &env_of(&[(DURABILITY_ENV, "fast")])).unwrap_err();
        assert!(err.to_string().contains(DURABILITY_ENV), "{err}");
        let home = home_with("[maintenance]\nevery = \"1ms\"\n");
        let err = Settings::resolve(Some(home.path()), &env_of(&[])).unwrap_err();
        assert!(err.to_string().contains("maintenance.every"), "{err}");
    }

    #[test]
    fn a_token_in_a_file_others_can_read_is_refused() {
        let home = home_with("[serve]\ntoken = \"0123456789abcdef0123456789abcdef\"\n");
        let path = home.path().join(CONFIG_FILE_NAME);
        assert!(Settings::resolve(Some(home.path()), &env_of(&[])).is_ok());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = Settings::resolve(Some(home.path()), &env_of(&[])).unwrap_err();
        assert!(
            matches!(
                err,
                ConfigError::Exposed {
                    key: "serve.token",
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("chmod 600"), "{err}");
        assert!(!format!("{err:?}").contains("0123456789abcdef"));
    }

    #[test]
    fn durabilities_and_passwords() {
        assert_eq!(
            parse_durability("interval:250ms"),
            Ok(Durability::Interval(Duration::from_millis(250)))
        );
        assert!(parse_durability("interval:0s").is_err());
        assert_eq!(parse_every("off"), Ok(None));
        assert_eq!(
            mask_password("postgres://engram:hunter2@db/engram"),
            "postgres://engram:***@db/engram"
        );
        assert!(has_password("postgres://a:b@c/d"));
        assert!(!has_password("postgres://a@c/d"));
    }
}

//! Opening connections: the URL parsed once, every connection made the
//! same way, and connection failures told apart (unreachable, refused
//! credentials, missing database, TLS asked for).
//!
//! Connections are plain TCP or a Unix socket without TLS (`NoTls`): for
//! loopback or a trusted network only, until TLS support lands. A URL
//! that requires TLS (`sslmode=require`) is refused before connecting.

use std::str::FromStr as _;
use std::time::Duration;

use postgres::config::{Host, SslMode};
use postgres::{Client, Config, NoTls};

use crate::error::{PgLogError, full_text};

/// How to reach the server, parsed from a URL.
#[derive(Clone)]
pub(crate) struct Connector {
    config: Config,
    /// `user@host:port/database`, never the password.
    target: String,
    user: String,
    database: String,
}

impl std::fmt::Debug for Connector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Connector({})", self.target)
    }
}

impl Connector {
    /// Parses `url` (`postgres://user:password@host:port/database?...`, or
    /// the key=value form).
    pub(crate) fn new(url: &str, connect_timeout: Duration) -> Result<Self, PgLogError> {
        let mut config = Config::from_str(url).map_err(|e| PgLogError::BadUrl {
            reason: full_text(&e),
        })?;
        if config.get_ssl_mode() == SslMode::Require {
            return Err(PgLogError::TlsUnsupported {
                reason: "sslmode=require".to_owned(),
            });
        }
        // Without TLS, `prefer` would only try and fall back; say plainly
        // that the connection is not encrypted.
        config.ssl_mode(SslMode::Disable);
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(connect_timeout);
        }
        if config.get_application_name().is_none() {
            config.application_name("engram");
        }
        let user = config.get_user().unwrap_or("").to_owned();
        let database = config
            .get_dbname()
            .map_or_else(|| user.clone(), str::to_owned);
        let hosts: Vec<String> = config
            .get_hosts()
            .iter()
            .map(|host| match host {
                Host::Tcp(name) => name.clone(),
                Host::Unix(path) => path.display().to_string(),
            })
            .collect();
        let port = config
            .get_ports()
            .first()
            .map_or_else(|| "5432".to_owned(), u16::to_string);
        let target = format!("{user}@{}:{port}/{database}", hosts.join(","));
        Ok(Self {
            config,
            target,
            user,
            database,
        })
    }

    /// Where the connections go, for messages (no password).
    pub(crate) fn target(&self) -> &str {
        &self.target
    }

    /// A new connection, with failures classified.
    pub(crate) fn connect(&self) -> Result<Client, PgLogError> {
        self.config.connect(NoTls).map_err(|e| self.refused(&e))
    }

    fn refused(&self, error: &postgres::Error) -> PgLogError {
        let reason = full_text(error);
        if let Some(db) = error.as_db_error() {
            return match db.code().code() {
                // invalid_password, invalid_authorization_specification
                "28P01" | "28000" => PgLogError::Authentication {
                    target: self.target.clone(),
                    user: self.user.clone(),
                    reason: db.message().to_owned(),
                },
                // invalid_catalog_name
                "3D000" => PgLogError::NoDatabase {
                    target: self.target.clone(),
                    database: self.database.clone(),
                },
                code => PgLogError::Database {
                    op: "connecting",
                    code: code.to_owned(),
                    reason: db.message().to_owned(),
                },
            };
        }
        // The client's own authentication failures (a password the
        // server asks for and the URL lacks) carry no SQLSTATE.
        if error.to_string().starts_with("authentication error") {
            return PgLogError::Authentication {
                target: self.target.clone(),
                user: self.user.clone(),
                reason,
            };
        }
        PgLogError::Unreachable {
            target: self.target.clone(),
            reason,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_never_shows_the_password() {
        let connector = Connector::new(
            "postgres://engram:s3cret@127.0.0.1:5999/logs",
            Duration::from_secs(1),
        )
        .unwrap();
        assert_eq!(connector.target(), "engram@127.0.0.1:5999/logs");
        assert!(!format!("{connector:?}").contains("s3cret"));
    }

    #[test]
    fn a_url_requiring_tls_is_refused_before_connecting() {
        let refused = Connector::new(
            "postgres://engram@127.0.0.1/logs?sslmode=require",
            Duration::from_secs(1),
        );
        assert!(
            matches!(refused, Err(PgLogError::TlsUnsupported { .. })),
            "{refused:?}"
        );
        let bad = Connector::new(
            "postgres://engram@127.0.0.1:notaport/x",
            Duration::from_secs(1),
        );
        assert!(matches!(bad, Err(PgLogError::BadUrl { .. })), "{bad:?}");
    }
}

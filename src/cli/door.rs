//! How a command reaches its stores: through their owner over its socket
//! (a thin client: no log, views or model loaded here, a daemon started
//! when nothing answers), or with `--in-process` through the same owner
//! built in this process. Either way the command sends a request of the
//! HTTP API and reads its JSON answer: one path for every door.
//!
//! A request to the owner is sent at once, with no probe of who owns the
//! store first: the request carries this engram's version and an owner of
//! another version refuses it unrun ([`engram::owner::CLIENT_VERSION_HEADER`]).
//! Only when that first try meets no owner, or a daemon of another
//! version, does the command take the slow road ([`super::daemon::connect`]:
//! start or replace the daemon) and send the request again, which is safe
//! because the first one never ran.

use std::sync::Arc;

use anyhow::Context as _;
use axum::Router;
use axum::body::Body;
use axum::http::Request;
use engram::client::{Client, ClientError, answer};
use engram::owner::{Owned, STORES_HEADER};
use engram::store::Store;
use serde_json::Value;
use tower::ServiceExt as _;

use super::Context;

/// The largest answer read from the in-process router (the socket client
/// has the same bound).
const ANSWER_BYTES_MAX: usize = engram::client::REPLY_BYTES_MAX;

/// A way to the stores of one command.
pub enum Door {
    /// The store's owner, another process (started or replaced on the
    /// first request that needs it, with the context's flags).
    Owner { client: Client, ctx: Box<Context> },
    /// The owner built here (`--in-process`, or a store replicating a
    /// shared log), closed by [`Door::finish`].
    Local {
        owned: Arc<Owned>,
        router: Router,
        names: String,
        runtime: tokio::runtime::Runtime,
    },
}

impl Door {
    /// A door to `stores` (the primary first), all of the context's owner.
    pub fn open(ctx: &Context, stores: &[&Store]) -> anyhow::Result<Self> {
        let names: Vec<String> = stores.iter().map(|s| ctx.store_name(s)).collect();
        if ctx.opens_in_process() {
            let owned = ctx.owned(super::model::load(ctx));
            let router = owned.router();
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .context("starting the async runtime")?;
            return Ok(Self::Local {
                owned,
                router,
                names: names.join(","),
                runtime,
            });
        }
        Ok(Self::Owner {
            client: super::daemon::client(ctx).with_stores(&names),
            ctx: Box::new(ctx.clone()),
        })
    }

    /// One request of the HTTP API: its JSON answer, or the error it
    /// carries.
    pub fn call(
        &self,
        method: &str,
        target: &str,
        body: Option<&Value>,
    ) -> Result<Value, ClientError> {
        match self {
            Self::Owner { client, ctx } => match client.call(method, target, body) {
                // Nothing was sent, or the owner refused the request unrun:
                // start (or replace) the daemon and send it again.
                Err(first @ (ClientError::NoOwner { .. } | ClientError::Version { .. })) => {
                    super::daemon::recover(ctx, client, first).map_err(|e| {
                        e.downcast::<ClientError>()
                            .unwrap_or_else(|e| internal(format!("{e:#}")))
                    })?;
                    client.call(method, target, body)
                }
                other => other,
            },
            Self::Local {
                router,
                names,
                runtime,
                ..
            } => {
                let request = Request::builder()
                    .method(method)
                    .uri(target)
                    .header("host", "localhost")
                    .header(STORES_HEADER, names.as_str())
                    .header("content-type", "application/json")
                    .body(Body::from(body.map(Value::to_string).unwrap_or_default()))
                    .map_err(|e| internal(format!("building the request: {e}")))?;
                let (status, bytes) = runtime.block_on(async {
                    let response = match router.clone().oneshot(request).await {
                        Ok(response) => response,
                        Err(never) => match never {},
                    };
                    let status = response.status().as_u16();
                    let bytes = axum::body::to_bytes(response.into_body(), ANSWER_BYTES_MAX)
                        .await
                        .map_err(|e| internal(format!("reading the answer: {e}")))?;
                    Ok::<_, ClientError>((status, bytes))
                })?;
                let body: Value = serde_json::from_slice(&bytes)
                    .map_err(|e| internal(format!("the answer is not JSON: {e}")))?;
                Ok(answer(status, body)?)
            }
        }
    }

    pub fn get(&self, target: &str) -> Result<Value, ClientError> {
        self.call("GET", target, None)
    }

    pub fn post(&self, target: &str, body: &impl serde::Serialize) -> Result<Value, ClientError> {
        let body =
            serde_json::to_value(body).map_err(|e| internal(format!("encoding a request: {e}")))?;
        self.call("POST", target, Some(&body))
    }

    /// Ends the command: an in-process owner closes its stores (views
    /// persisted).
    pub fn finish(self) -> anyhow::Result<()> {
        if let Self::Local {
            owned,
            router,
            runtime,
            ..
        } = self
        {
            drop(router);
            drop(runtime);
            owned.close()?;
        }
        Ok(())
    }
}

fn internal(message: String) -> ClientError {
    ClientError::Api(engram::api::ApiError::new(
        engram::api::ErrorCode::Internal,
        message,
    ))
}

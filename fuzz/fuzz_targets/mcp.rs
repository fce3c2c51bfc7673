//! Fuzz target `mcp`: MCP request parsing, through the MCP server
//! (`engram::mcp::McpServer`) on rmcp's line transport, as `engram mcp`
//! serves it, over a store on disk.
//!
//! Each run is one session: the initialize handshake, then the fuzzed bytes
//! as lines, then a `ping` with the id `"fuzz-last"`, then the end of input.
//!
//! Invariants checked:
//! - no panic (in the transport, the protocol layer or a tool);
//! - every line the server writes is a JSON-RPC 2.0 object;
//! - every answer names an id the client sent (or `null`, for a line that
//!   was JSON but no message);
//! - whatever came before, the closing `ping` is answered: garbage never
//!   ends the session or wedges it.

#![no_main]

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, OnceLock};

use engram::mcp::McpServer;
use engram_fuzz::Fixture;
use libfuzzer_sys::fuzz_target;
use rmcp::ServiceExt as _;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::Value;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

const HANDSHAKE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n",
);

const LAST: &str = r#"{"jsonrpc":"2.0","id":"fuzz-last","method":"ping"}"#;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime")
    })
}

fn fixture() -> &'static Mutex<Fixture> {
    static FIXTURE: OnceLock<Mutex<Fixture>> = OnceLock::new();
    FIXTURE.get_or_init(|| Mutex::new(Fixture::new()))
}

/// The ids of the lines that are JSON objects with an `id`.
fn sent_ids(input: &[u8]) -> BTreeSet<String> {
    input
        .split(|&b| b == b'\n')
        .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
        .filter_map(|value| value.get("id").map(Value::to_string))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let service = {
        let mut fixture = fixture().lock().unwrap_or_else(|e| e.into_inner());
        if fixture.worn_out() {
            *fixture = Fixture::new();
        }
        Arc::clone(&fixture.service)
    };
    let mut input = HANDSHAKE.as_bytes().to_vec();
    input.extend_from_slice(data);
    input.push(b'\n');
    input.extend_from_slice(LAST.as_bytes());
    input.push(b'\n');
    let ids = sent_ids(&input);

    let output = runtime().block_on(async {
        let (mut client_write, server_read) = tokio::io::duplex(1 << 16);
        let (server_write, mut client_read) = tokio::io::duplex(1 << 16);
        let serving = async move {
            let transport = AsyncRwTransport::new_server(server_read, server_write)
                .with_max_line_length(engram::http::BODY_LIMIT);
            let running = McpServer::new(service)
                .serve(transport)
                .await
                .expect("the handshake is accepted");
            running.waiting().await.expect("the session ends cleanly");
        };
        let writing = async move {
            client_write
                .write_all(&input)
                .await
                .expect("the server reads its input");
            client_write.shutdown().await.expect("input closes");
        };
        let reading = async move {
            let mut output = Vec::new();
            client_read
                .read_to_end(&mut output)
                .await
                .expect("the server's output reads");
            output
        };
        let ((), (), output) = tokio::join!(serving, writing, reading);
        output
    });

    let mut answered_last = false;
    for line in output.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let value: Value = serde_json::from_slice(line).unwrap_or_else(|e| {
            panic!(
                "the server wrote a line that is not JSON ({e}): {:?}",
                String::from_utf8_lossy(line)
            )
        });
        assert_eq!(value["jsonrpc"], "2.0", "{value}");
        let id = value.get("id").unwrap_or(&Value::Null);
        assert!(
            id.is_null() || ids.contains(&id.to_string()),
            "an answer to an id never sent: {value}"
        );
        if id == "fuzz-last" && value.get("result").is_some() {
            answered_last = true;
        }
    }
    assert!(
        answered_last,
        "the closing ping was not answered: {:?}",
        String::from_utf8_lossy(&output)
    );
});

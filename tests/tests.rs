//! engram's integration tests, built as one binary. Each module is named
//! after the behaviour it tests.

mod support;

mod api_log;
mod browser;
mod cli;
mod cli_snapshots;
mod codec;
mod config;
mod corridors;
mod decide_model;
mod doors;
mod export_import;
mod flywheel;
mod golden;
mod golden_events;
mod hooks;
mod http_api;
mod hybrid;
mod ingest;
mod install;
mod log_bad_input;
mod log_concurrency;
mod log_corruption;
mod log_crash;
mod log_keys;
mod maintenance;
mod mcp_client;
mod memories;
mod memory;
mod memory_ids;
mod memory_safety;
mod memory_scopes;
mod model;
mod owner;
mod process_crash;
mod purge;
mod save_atomic;
mod sealed;
mod sentence_model;
mod server;
mod shared_log;
mod tidy;
mod tiers;
mod views;
mod views_forged;

//! Review that never shows a due memory's words (issue 17, item 3).
//!
//! Invariants checked: a review shows no due memory's words through any
//! door (the CLI, HTTP, MCP), its own nor a due neighbour's; the cues hint
//! without telling (the room's topic, tags, entities, the labels of
//! neighbours that are not due).

use std::path::Path;
use std::sync::Arc;

use engram::MemoryMeta;
use engram::log::{Event, MemoryId, Tier};
use engram_commands::memory::{note_event, remembered};
use engram_log::{EntityLinked, KeySource, Log, LogConfig, ManualClock, MemoryRef};
use engram_projections::models::review::DAY_MS;
use serde_json::{Value, json};

use crate::mcp_client::RawSession;
use crate::server::Server;
use crate::support::engram;

/// A memory written straight to a store's log.
struct Seed<'a> {
    text: &'a str,
    tier: Tier,
    room: &'a str,
    tags: &'a [&'a str],
    /// (category, key) entity links.
    entities: &'a [(&'a str, &'a str)],
}

impl<'a> Seed<'a> {
    fn new(text: &'a str, tier: Tier, room: &'a str) -> Self {
        Self {
            text,
            tier,
            room,
            tags: &[],
            entities: &[],
        }
    }
}

/// Writes `seeds` to the log of the store folder `store` (its key file
/// made if need be) as if `days_ago` days had passed since: no save
/// decision runs, so texts that look alike stay apart. Must come before
/// anything written at a later time (commit times never go backwards).
fn seed(store: &Path, days_ago: u64, seeds: &[Seed<'_>]) -> Vec<MemoryId> {
    std::fs::create_dir_all(store).unwrap();
    let key = KeySource::StoreFile.load(store, true).unwrap();
    let then = engram::engine::now_ms() - days_ago * DAY_MS;
    let config = LogConfig::new(key.clone()).clock(Arc::new(ManualClock::new(then)));
    let log = Log::open_dir(&engram::store::Store::at(store).log_dir(), config).unwrap();
    let mut ids = Vec::new();
    for (turn, s) in (0u32..).zip(seeds) {
        let session = format!("seed-{days_ago}");
        let note = note_event(&session, turn, s.text).unwrap();
        let seq = log.append_one(&Event::Session(note)).unwrap();
        let reference = MemoryRef {
            session,
            first_seq: seq,
            last_seq: seq,
        };
        let events = log.read(seq..=seq).unwrap();
        let meta = MemoryMeta {
            room: Some(s.room.to_owned()),
            tier: s.tier,
            tags: s.tags.iter().map(|t| (*t).to_owned()).collect(),
            ..MemoryMeta::default()
        };
        let hash = engram::log::seal::content_sha256(events.iter().map(|e| &e.event)).unwrap();
        let id = log
            .append_one(&Event::Remembered(remembered(&key, reference, hash, meta)))
            .unwrap();
        for (category, key) in s.entities {
            log.append_one(&Event::EntityLinked(EntityLinked {
                memory: id,
                entity: (*key).to_owned(),
                category: (*category).to_owned(),
            }))
            .unwrap();
        }
        ids.push(id);
    }
    log.close().unwrap();
    ids
}

fn ok(store: &Path, args: &[&str]) -> String {
    let out = engram(store, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "engram {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn ok_json(store: &Path, args: &[&str]) -> Value {
    let out = ok(store, args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("engram {args:?}: {e}: {out}"))
}

/// The texts of the memories a review must not show, in pieces long
/// enough to be the memory and short enough to survive a cut label.
fn due_words(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|t| t.chars().take(24).collect()).collect()
}

#[track_caller]
fn shows_no_due_words(output: &str, texts: &[&str]) {
    for words in due_words(texts) {
        assert!(!output.contains(&words), "{words:?} shown in: {output}");
    }
}

#[test]
fn review_never_shows_a_due_memorys_words_through_any_door() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let due = [
        "The user drinks green tea at 9am on weekdays.",
        "The user keeps oolong leaves in the blue tin.",
        "Alice Chen brews the office matcha on Fridays.",
    ];
    let not_due = "The kettle in the office kitchen is descaled monthly.";
    seed(
        &store,
        3,
        &[
            Seed {
                tags: &["drinks"],
                ..Seed::new(due[0], Tier::L3, "tea")
            },
            Seed::new(due[1], Tier::L3, "tea"),
            Seed {
                entities: &[("person", "alice chen")],
                ..Seed::new(due[2], Tier::L3, "tea")
            },
        ],
    );
    seed(&store, 0, &[Seed::new(not_due, Tier::L3, "tea")]);

    let cli = ok_json(&store, &["review", "--json"]);
    let items = cli["due"].as_array().unwrap();
    assert_eq!(items.len(), 3, "{cli}");
    shows_no_due_words(&cli.to_string(), &due);
    // Due neighbours are named by their state; the one not due by its words.
    assert_eq!(items[0]["cues"][0]["label"], "(due for review)");
    assert_eq!(items[1]["cues"][0]["label"], "(due for review)");
    assert_eq!(items[1]["cues"][1]["label"], "(due for review)");
    assert!(
        items[2]["cues"][1]["label"]
            .as_str()
            .unwrap()
            .starts_with("The kettle in the office"),
        "{cli}"
    );
    // Hints without telling: the topic, tags, entities.
    assert!(items.iter().all(|i| i["topic"] == "tea"));
    assert_eq!(items[0]["tags"], json!(["drinks"]));
    assert_eq!(
        items[2]["entities"],
        json!([{"category": "person", "key": "alice chen"}])
    );
    let human = ok(&store, &["review"]);
    shows_no_due_words(&human, &due);
    assert!(human.contains("tea#2 (due for review)"), "{human}");
    assert!(human.contains("person alice chen"), "{human}");

    // HTTP and MCP answer the same, and show no due words either.
    let server = Server::start(&store, "127.0.0.1:0", &[]);
    let http = server.get("/api/review").ok();
    server.stop();
    assert_eq!(http["due"].as_array().unwrap().len(), 3);
    shows_no_due_words(&http.to_string(), &due);
    let home = dir.path().join("home");
    let mut mcp = RawSession::start(&store, &home);
    mcp.initialize("review");
    mcp.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "memory_review", "arguments": {},
        }}),
    );
    let answer = mcp.answer(2);
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    shows_no_due_words(text, &due);
    let json = engram::context::parse_data_block(text).unwrap();
    let mcp: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(mcp["due"].as_array().unwrap().len(), 3);
    assert_eq!(mcp["due"][0]["cues"], cli["due"][0]["cues"]);
}

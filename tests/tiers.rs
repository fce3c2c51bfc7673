//! Tiers that move, and review that never shows a due memory's words
//! (issue 17, items 3 and 4).
//!
//! Invariants checked: a session memory (L1) is promoted to L3 by a
//! restatement from another session or by valid evidence, and decays to
//! L4 when idle, each move a `tier_changed` event; a forgotten memory does
//! not move (a clear error, nothing written); workspace documents are L2,
//! an unchanged file adds nothing, a changed one supersedes its older
//! version, and a document too large or not text changes nothing; recall
//! puts session and workspace memories first where relevance is
//! comparable; the L0 block is the same through the CLI, HTTP and MCP,
//! deterministic and bounded; a review shows no due memory's words
//! through any door; tiers survive restart and rebuild unchanged.

use std::path::Path;
use std::sync::Arc;

use engram::engine::{EngineError, Engram};
use engram::log::{Event, MemoryId, Tier};
use engram::{Content, MemoryMeta, Outcome, Remember, Subject};
use engram_commands::maintain::MaintainPolicy;
use engram_commands::memory::{note_event, remembered};
use engram_commands::tier::TierMoveError;
use engram_log::{EntityLinked, KeySource, Log, LogConfig, ManualClock, MemoryRef};
use engram_projections::models::review::DAY_MS;
use serde_json::{Value, json};

use crate::mcp_client::RawSession;
use crate::server::Server;
use crate::support::{engram, open_keyed, open_rebuilt};

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

/// The `tier_changed` events of the store's log, as (memory, from, to).
fn tier_changes(engram: &Engram) -> Vec<(MemoryId, Tier, Tier)> {
    engram
        .replay(1)
        .filter_map(|e| match e.unwrap().event {
            Event::TierChanged(t) => Some((t.memory, t.from, t.to)),
            _ => None,
        })
        .collect()
}

fn in_session(text: &str, session: &str, tier: Tier) -> Remember {
    Remember {
        content: Content::Text {
            text: text.to_owned(),
            session: Some(session.to_owned()),
        },
        meta: MemoryMeta {
            tier,
            ..MemoryMeta::default()
        },
        subject: Subject {
            actor: engram::log::Actor::User,
            session: Some(session.to_owned()),
        },
    }
}

/// Everything a tier is made of, as the views hold it.
fn tier_state(engram: &Engram) -> (String, String) {
    let core = engram.core();
    (
        format!("{:?}", core.tier_index.read().state),
        format!("{:?}", core.memory_table.read().state),
    )
}

#[test]
fn session_memories_are_promoted_and_demoted_by_tier_changed_events_that_survive_restart_and_rebuild()
 {
    let dir = tempfile::tempdir().unwrap();
    let engram = open_keyed(dir.path());
    let heron = engram
        .remember(&in_session(
            "The staging cluster is named heron and lives in Frankfurt.",
            "s1",
            Tier::L1,
        ))
        .unwrap()
        .id
        .unwrap();
    // Restated in its own session: reinforced, still a session memory.
    let again = engram
        .remember(&in_session(
            "The staging cluster is named heron and lives in Frankfurt.",
            "s1",
            Tier::L1,
        ))
        .unwrap();
    assert_eq!(again.outcome, Outcome::Reinforced);
    assert_eq!(
        engram.core().tier_index.read().state.tier_of(heron),
        Some(Tier::L1)
    );
    assert!(tier_changes(&engram).is_empty());
    // Restated from another session: promoted to the cross-session store.
    let across = engram
        .remember(&in_session(
            "The staging cluster is named heron and lives in Frankfurt.",
            "s2",
            Tier::L1,
        ))
        .unwrap();
    assert_eq!(across.outcome, Outcome::Reinforced);
    assert_eq!(
        engram.core().tier_index.read().state.tier_of(heron),
        Some(Tier::L3)
    );
    assert_eq!(tier_changes(&engram), [(heron, Tier::L1, Tier::L3)]);

    // Evidence: an invalid quote moves nothing, a valid one promotes.
    let window = engram
        .remember(&in_session(
            "The deploy window opens Thursday at 10:00 UTC.",
            "s3",
            Tier::L1,
        ))
        .unwrap()
        .id
        .unwrap();
    let user = Subject::user();
    assert!(!engram.confirm(window, &user, "Friday").unwrap().valid);
    assert_eq!(
        engram.core().tier_index.read().state.tier_of(window),
        Some(Tier::L1)
    );
    assert!(
        engram
            .confirm(window, &user, "Thursday at 10:00")
            .unwrap()
            .valid
    );
    assert_eq!(
        engram.core().tier_index.read().state.tier_of(window),
        Some(Tier::L3)
    );

    // Decay: a session memory never promoted goes to the archive once idle
    // past its days; a session-private one is never promoted.
    let idle = engram
        .remember(&in_session(
            "The coffee machine on floor two is descaled on Mondays.",
            "s4",
            Tier::L1,
        ))
        .unwrap()
        .id
        .unwrap();
    let now = engram::engine::now_ms();
    let later = now + 8 * DAY_MS;
    let archived = engram
        .maintain(&MaintainPolicy::default(), later, false)
        .unwrap();
    assert!(
        archived.archived.iter().any(|(id, _)| *id == idle),
        "{archived:?}"
    );
    assert!(
        !archived
            .archived
            .iter()
            .any(|(id, _)| *id == heron || *id == window)
    );
    assert_eq!(
        engram.core().tier_index.read().state.tier_of(idle),
        Some(Tier::L4)
    );
    assert!(tier_changes(&engram).contains(&(idle, Tier::L1, Tier::L4)));

    // A forgotten memory does not move: a clear error, nothing written.
    engram
        .forget(heron, &user, "moved to another region")
        .unwrap();
    let before = engram.log().last_seq();
    let refused = engram.move_tier(heron, Tier::L1, "", &user);
    assert!(
        matches!(
            refused,
            Err(EngineError::Tier(TierMoveError::Forgotten { id, .. })) if id == heron
        ),
        "{refused:?}"
    );
    assert_eq!(engram.log().last_seq(), before);
    // A hand move of a live one is one event; back out of the archive too.
    let moved = engram
        .move_tier(idle, Tier::L3, "still true", &user)
        .unwrap();
    assert_eq!((moved.from, moved.to), (Tier::L4, Tier::L3));
    assert_eq!(
        engram.core().memory_table.read().state.status(idle),
        Some(engram_projections::models::MemoryStatus::Live)
    );

    let state = tier_state(&engram);
    engram.close().unwrap();
    let reopened = open_keyed(dir.path());
    assert_eq!(tier_state(&reopened), state, "restart");
    reopened.close().unwrap();
    let rebuilt = open_rebuilt(dir.path());
    assert_eq!(tier_state(&rebuilt), state, "rebuild");
    rebuilt.close().unwrap();
}

#[test]
fn a_memory_saved_in_a_session_is_l1_and_a_tier_move_of_a_forgotten_one_is_refused_through_the_cli()
{
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let saved = ok_json(
        &store,
        &[
            "remember",
            "The release train leaves on Tuesdays.",
            "--session",
            "s1",
            "--json",
        ],
    );
    let id = saved["id"].as_str().unwrap().to_owned();
    let plain = ok_json(
        &store,
        &["remember", "Hotfixes ride the Thursday shuttle.", "--json"],
    );
    let plain_id = plain["id"].as_str().unwrap().to_owned();
    let recall = ok_json(&store, &["recall", "release train", "--json"]);
    assert_eq!(recall["hits"][0]["id"], id.as_str());
    assert_eq!(recall["hits"][0]["tier"], "l1");
    let recall = ok_json(&store, &["recall", "hotfixes shuttle", "--json"]);
    assert_eq!(recall["hits"][0]["tier"], "l3");

    let moved = ok_json(
        &store,
        &["tier", &plain_id, "l4", "--reason", "stale", "--json"],
    );
    assert_eq!(
        (moved["from"].as_str(), moved["to"].as_str()),
        (Some("l3"), Some("l4"))
    );
    ok(&store, &["forget", &id]);
    let before = ok(&store, &["log", "--json"]);
    let out = engram(&store, &["tier", &id, "l3"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("forgotten"), "{stderr}");
    let out = engram(&store, &["tier", &plain_id, "l2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("workspace documents"));
    assert_eq!(
        ok(&store, &["log", "--json"]),
        before,
        "nothing was written"
    );
}

fn write(root: &Path, path: &str, bytes: &[u8]) {
    let file = root.join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, bytes).unwrap();
}

#[test]
fn workspace_documents_are_l2_refreshed_by_content_and_bad_ones_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let root = dir.path().join("repo");
    write(
        &root,
        "AGENTS.md",
        b"# Agents\n\nRun `cargo test --workspace` before every commit.\n",
    );
    write(
        &root,
        "README.md",
        b"# Quokka\n\nQuokka ships invoices to the ledger.\n",
    );
    write(
        &root,
        "docs/deploy.md",
        b"# Deploys\n\nDeploys go out on Thursdays from the blue pipeline.\n\n## Rollback\n\nRoll back with the red lever.\n",
    );
    write(&root, "docs/logo.png", b"\x89PNG\r\n\x1a\n\0\0\0");
    write(&root, "src/main.rs", b"fn main() {}\n");
    let root_arg = root.to_str().unwrap();

    let first = ok_json(&store, &["workspace", root_arg, "--json"]);
    let documents = first["documents"].as_array().unwrap();
    let paths: Vec<&str> = documents
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["AGENTS.md", "README.md", "docs/deploy.md"]);
    assert!(documents.iter().all(|d| d["outcome"] == "new"), "{first}");
    assert_eq!(documents[2]["memories"].as_array().unwrap().len(), 2);
    let recall = ok_json(
        &store,
        &["recall", "which pipeline do deploys use", "--json"],
    );
    assert_eq!(recall["hits"][0]["tier"], "l2");
    assert!(
        recall["hits"][0]["text"]
            .as_str()
            .unwrap()
            .contains("blue pipeline")
    );

    // Unchanged files add nothing.
    let log = ok(&store, &["log", "--json"]);
    let again = ok_json(&store, &["workspace", root_arg, "--json"]);
    assert!(
        again["documents"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["outcome"] == "unchanged"),
        "{again}"
    );
    assert_eq!(ok(&store, &["log", "--json"]), log);

    // A changed file supersedes the older version's memories.
    write(
        &root,
        "docs/deploy.md",
        b"# Deploys\n\nDeploys go out on Tuesdays from the green pipeline.\n",
    );
    let changed = ok_json(&store, &["workspace", root_arg, "--json"]);
    let deploy = &changed["documents"][2];
    assert_eq!(deploy["outcome"], "changed", "{changed}");
    assert_eq!(deploy["superseded"], documents[2]["memories"]);
    assert_eq!(changed["documents"][0]["outcome"], "unchanged");
    let recall = ok_json(
        &store,
        &["recall", "which pipeline do deploys use", "--json"],
    );
    let texts: Vec<&str> = recall["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["text"].as_str().unwrap())
        .collect();
    assert!(texts[0].contains("green pipeline"), "{texts:?}");
    assert!(
        !texts.iter().any(|t| t.contains("blue pipeline")),
        "{texts:?}"
    );
    let archived = ok_json(
        &store,
        &["recall", "blue pipeline", "--tier", "l4", "--json"],
    );
    assert_eq!(archived["hits"][0]["tier"], "l4");

    // Too large, or not text: a clear error and nothing changes.
    let log = ok(&store, &["log", "--json"]);
    write(&root, "docs/huge.md", &vec![b'a'; 300 * 1024]);
    let out = engram(&store, &["workspace", root_arg]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("docs/huge.md") && stderr.contains("over the limit"),
        "{stderr}"
    );
    std::fs::remove_file(root.join("docs/huge.md")).unwrap();
    write(&root, "docs/notes.txt", b"caf\xe9 au lait\n");
    let out = engram(&store, &["workspace", root_arg]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("docs/notes.txt") && stderr.contains("not text"),
        "{stderr}"
    );
    write(&root, "docs/notes.txt", b"binary\0junk\n");
    let out = engram(&store, &["workspace", root_arg]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not text"));
    assert_eq!(ok(&store, &["log", "--json"]), log, "nothing was written");

    // Through HTTP: the same refusals, with nothing written.
    std::fs::remove_file(root.join("docs/notes.txt")).unwrap();
    let server = Server::start(&store, "127.0.0.1:0", &[]);
    let reply = server.post(
        "/api/workspace",
        &json!({"documents": [{"path": "../etc/passwd", "content": "x"}]}),
    );
    assert_eq!(reply.status, 400);
    let reply = server.post(
        "/api/workspace",
        &json!({"documents": [{"path": "docs/a.md", "content": "nul\u{0}byte"}]}),
    );
    assert_eq!(reply.status, 400);
    assert!(
        reply.json()["message"]
            .as_str()
            .unwrap()
            .contains("not text")
    );
    server.stop();
    assert_eq!(ok(&store, &["log", "--json"]), log, "nothing was written");

    // Tiers are a projection: the same after a rebuild.
    let tiers = |store: &Path| {
        let stats = ok_json(store, &["stats", "--json"]);
        (
            stats["memories_by_tier"].clone(),
            stats["memories_by_status"].clone(),
        )
    };
    let before = tiers(&store);
    assert_eq!(before.0["l2"], 3, "{before:?}");
    ok(&store, &["rebuild"]);
    assert_eq!(tiers(&store), before);
}

#[test]
fn recall_puts_session_and_workspace_memories_first_where_relevance_is_comparable() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let ids = seed(
        &store,
        0,
        &[
            // Shorter, so BM25 ranks it a little higher.
            Seed::new(
                "The lab printer is called lark and sits on floor three.",
                Tier::L3,
                "lab",
            ),
            Seed::new(
                "The lab printer queue is called lark and it sits on floor three.",
                Tier::L1,
                "lab",
            ),
            Seed::new("The lab printer lark.", Tier::L3, "lab"),
            Seed::new("Floor three has a printer.", Tier::L2, "lab"),
        ],
    );
    let recall = ok_json(
        &store,
        &["recall", "lab printer lark floor three", "--json"],
    );
    let order: Vec<String> = recall["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap().to_owned())
        .collect();
    let id = |i: usize| format!("s:{}", ids[i]);
    // The session memory comes before the comparable cross-session one;
    // the weak workspace match stays behind the strong ones.
    let position = |i: usize| order.iter().position(|o| *o == id(i)).unwrap();
    assert!(position(1) < position(0), "{order:?}");
    assert!(position(3) > position(0), "{order:?}");
    let scores: Vec<f64> = recall["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["score"].as_f64().unwrap())
        .collect();
    assert!(scores[position(0)] > scores[position(1)], "{scores:?}");
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

#[test]
fn the_l0_block_is_the_same_through_every_door_deterministic_bounded_and_survives_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let many: Vec<String> = (0..60)
        .map(|i| {
            format!(
                "Fact number {i}: the build host h{i} runs in rack {}.",
                i % 7
            )
        })
        .collect();
    let mut seeds = vec![
        Seed {
            tags: &["profile"],
            ..Seed::new(
                "The user prefers short answers in British English.",
                Tier::L3,
                "user",
            )
        },
        Seed::new(
            "AGENTS.md: run the tests before committing.",
            Tier::L2,
            "agents",
        ),
    ];
    for (i, text) in many.iter().enumerate() {
        seeds.push(Seed::new(
            text,
            Tier::L3,
            if i % 2 == 0 { "hosts" } else { "racks" },
        ));
    }
    seed(&store, 0, &seeds);

    let cli = ok_json(&store, &["l0", "--json"]);
    let block = cli["block"].as_str().unwrap();
    assert!(block.len() <= engram_queries::l0::L0_BYTES_MAX);
    assert!(block.starts_with("<engram_memory_context>\n"));
    assert!(block.contains("The user prefers short answers"), "{block}");
    assert!(block.contains("hosts (corridor general"), "{block}");
    assert!(
        !block.contains("AGENTS.md"),
        "workspace documents are not facts: {block}"
    );
    assert_eq!(cli["profile"].as_array().unwrap().len(), 1);
    assert_eq!(
        cli["facts"].as_array().unwrap().len(),
        engram_queries::l0::L0_FACTS_MAX
    );
    assert_eq!(ok(&store, &["l0"]), block, "the human form is the block");
    assert_eq!(ok_json(&store, &["l0", "--json"]), cli, "deterministic");

    let server = Server::start(&store, "127.0.0.1:0", &[]);
    assert_eq!(server.get("/api/l0").ok(), cli);
    server.stop();
    let home = dir.path().join("home");
    let mut mcp = RawSession::start(&store, &home);
    mcp.initialize("l0");
    mcp.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "memory_l0", "arguments": {},
        }}),
    );
    let answer = mcp.answer(2);
    assert_eq!(answer["result"]["content"][0]["text"], block);
    drop(mcp);

    ok(&store, &["rebuild"]);
    assert_eq!(ok_json(&store, &["l0", "--json"]), cli, "a projection");
}

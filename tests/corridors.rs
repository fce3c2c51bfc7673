//! Rooms named for their topic and corridors that group them (issue 17,
//! item 2), through the engine, the CLI as a client of the daemon that
//! owns the store, and in process.
//!
//! The story: rooms were named after a text's first "specific" word
//! (`absolutely`, `happens`, `户喜`, the fixture's deploy window filed
//! under `phone`), "search service" went into `billing` and "likes Go"
//! into `rust`, and a corridor always equalled its room's name. Here a
//! save names the room after what the text is about and puts a new room
//! on a corridor of related rooms (`corridor_placed`), and `engram palace
//! corridor NAME --into CORRIDOR` moves a room or nests a corridor.
//!
//! Invariants checked: the issue's examples land in the rooms a person
//! would choose; a full room's successor stays on its topic's corridor;
//! a corridor put inside itself or its own descendant is refused with
//! exit 2 and nothing written; a model cannot move what the user placed
//! (its `gate_denied` is the only event written); the palace is the same
//! after restart and `rebuild`, and through the daemon as in process.

use engram::Remember;
use engram::engine::Engram;
use serde_json::Value;

use crate::support::{
    engram, engram_expecting as run, engram_json as json_of, open_keyed as open, open_rebuilt,
};

/// The room of a save's coordinate (`deploy` of `deploy#2`).
fn room_of(engram: &Engram, text: &str) -> String {
    let receipt = engram.remember(&Remember::text(text)).unwrap();
    let coordinate = receipt
        .coordinate
        .clone()
        .unwrap_or_else(|| panic!("{receipt:?}"));
    coordinate.split('#').next().unwrap().to_owned()
}

fn corridor_of(engram: &Engram, room: &str) -> String {
    engram
        .core()
        .palace
        .read()
        .state
        .corridor_of(room)
        .to_owned()
}

/// Issue 17's measured list about rooms, each failing on the old rules.
#[test]
fn issue_17_rooms_are_named_for_their_topic_and_grouped_on_corridors() {
    let dir = tempfile::tempdir().unwrap();
    let engram = open(dir.path());
    let billing = room_of(&engram, "The billing service listens on port 8080.");
    let search = room_of(&engram, "The search service listens on port 9090.");
    assert_eq!((billing.as_str(), search.as_str()), ("billing", "search"));
    let rust = room_of(&engram, "The user likes Rust for systems programming.");
    let go = room_of(&engram, "The user likes Go for network services.");
    assert_eq!((rust.as_str(), go.as_str()), ("rust", "go"));
    // Related rooms share a corridor; a corridor is not a room's name.
    for room in ["billing", "search", "rust", "go"] {
        assert_eq!(corridor_of(&engram, room), "engineering", "{room}");
    }
    let tea = room_of(&engram, "用户喜欢喝绿茶。");
    assert_eq!(tea, "绿茶");
    assert_eq!(corridor_of(&engram, &tea), "food");
    let never = [
        "absolutely",
        "quarterly",
        "teach",
        "teaches",
        "happen",
        "happens",
        "decided",
        "directly",
        "户喜",
        "phone",
        "the",
    ];
    for text in [
        "Absolutely always run the migrations before deploys.",
        "Quarterly planning needs the finance numbers.",
        "Alice teaches the onboarding workshop.",
        "It happens that backups fail on Sundays.",
        "We decided to move billing to the new cluster.",
        "Directly message the oncall engineer for outages.",
        "用户喜欢吃火锅。",
        "The user is always happy to help.",
    ] {
        let room = room_of(&engram, text);
        assert!(!never.contains(&room.as_str()), "{text:?} filed in {room}");
    }
    engram.close().unwrap();
}

/// The shared fixture's deploy-window fact was filed under `phone` (the
/// first word of its redacted clause); its correction must join it.
#[test]
fn the_fixture_deploy_window_lands_in_the_deploy_room_with_its_correction() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let store = store.as_path();
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/transcripts/generic-transcript.jsonl"
    );
    run(store, &["--in-process", "ingest", fixture], 0);
    let list = json_of(store, &["--in-process", "list", "--json"]);
    let coordinates: Vec<(String, String)> = list["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["text"].as_str().unwrap_or_default().to_owned(),
                m["coordinate"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let deploy: Vec<&(String, String)> = coordinates
        .iter()
        .filter(|(text, _)| text.contains("deploy window"))
        .collect();
    assert_eq!(deploy.len(), 2, "{coordinates:?}");
    for (text, coordinate) in &deploy {
        assert!(
            coordinate.starts_with("deploy#"),
            "{text:?} at {coordinate}"
        );
    }
    let palace = json_of(store, &["--in-process", "palace", "--json"]);
    let deploy_room = palace["rooms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["room"] == "deploy")
        .unwrap_or_else(|| panic!("{palace}"));
    assert_eq!(deploy_room["corridor"], "engineering", "{palace}");
}

/// A full room opens its successor on its topic, and so on its corridor,
/// also when the user moved the topic before the room filled up.
#[test]
fn a_full_room_opens_its_successor_on_the_same_corridor() {
    let dir = tempfile::tempdir().unwrap();
    let engram = open(dir.path());
    let subject = engram::Subject::user();
    for i in 0..3 {
        let text = format!("The deploy runbook step {i} checks replica {i}.");
        let receipt = engram
            .remember(&Remember {
                meta: engram::MemoryMeta {
                    room: Some("runbook".to_owned()),
                    ..engram::MemoryMeta::default()
                },
                ..Remember::text(&text)
            })
            .unwrap();
        assert!(receipt.coordinate.unwrap().starts_with("runbook#"));
    }
    engram
        .place_corridor("runbook", "operations", None, &subject)
        .unwrap();
    for i in 3..10 {
        let text = format!("Runbook entry {i}: restart worker {i} after the drain.");
        engram
            .remember(&Remember {
                meta: engram::MemoryMeta {
                    room: Some("runbook".to_owned()),
                    ..engram::MemoryMeta::default()
                },
                ..Remember::text(&text)
            })
            .unwrap();
    }
    let palace = engram.core().palace.read().state.clone();
    assert_eq!(palace.topic("runbook"), ["runbook", "runbook-2"]);
    assert_eq!(palace.corridor_of("runbook-2"), "operations");
    assert_eq!(
        palace.corridor_rooms("operations"),
        ["runbook", "runbook-2"]
    );
    engram.close().unwrap();
}

/// Through the CLI as the daemon's client: corridors moved and nested,
/// a loop refused with nothing written, a model refused what the user
/// placed, and the same palace after `rebuild` and in process.
#[test]
fn corridors_through_the_daemon_refuse_loops_and_survive_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let store = store.as_path();
    for text in [
        "The billing service listens on port 8080.",
        "The CI pipeline caches cargo builds between runs.",
        "The user drinks green tea at 9am on weekdays.",
    ] {
        run(store, &["remember", text], 0);
    }
    let moved = json_of(
        store,
        &["palace", "corridor", "tea", "--into", "kitchen", "--json"],
    );
    assert_eq!(moved["placed"], "room");
    assert_eq!(moved["from"], "food");
    assert_eq!(moved["changed"], true);
    let nested = json_of(
        store,
        &[
            "palace",
            "corridor",
            "engineering",
            "--into",
            "work",
            "--json",
        ],
    );
    assert_eq!(nested["placed"], "corridor");
    run(
        store,
        &["palace", "corridor", "work", "--into", "office"],
        0,
    );
    let seq_before = json_of(store, &["verify", "--json"])["n_events"].clone();
    // A corridor into itself, into its child, into its grandchild.
    for (name, into) in [
        ("work", "work"),
        ("work", "engineering"),
        ("office", "engineering"),
    ] {
        let (_, stderr) = run(store, &["palace", "corridor", name, "--into", into], 2);
        assert!(stderr.contains("would loop"), "{stderr}");
    }
    // Unknown names, and a name too long.
    let (_, stderr) = run(store, &["palace", "corridor", "nowhere", "--into", "x"], 2);
    assert!(stderr.contains("no room or corridor named"), "{stderr}");
    let long = "x".repeat(300);
    run(store, &["palace", "corridor", "tea", "--into", &long], 2);
    assert_eq!(
        json_of(store, &["verify", "--json"])["n_events"],
        seq_before,
        "a refused placement wrote nothing"
    );
    // A model may not move what the user placed: only its denial is kept.
    let (_, stderr) = run(
        store,
        &[
            "palace", "corridor", "tea", "--into", "food", "--by", "model",
        ],
        2,
    );
    assert!(stderr.contains("a model cannot move tea"), "{stderr}");
    let log = run(store, &["log", "--json"], 0).0;
    let last = log.lines().last().unwrap();
    assert!(last.contains("gate_denied"), "{last}");
    let palace = json_of(store, &["palace", "--json"]);
    let corridor = |name: &str| -> Value {
        palace["corridors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["corridor"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no corridor {name}: {palace}"))
    };
    assert_eq!(corridor("kitchen")["rooms"], serde_json::json!(["tea"]));
    assert_eq!(corridor("engineering")["inside"], "work");
    assert_eq!(corridor("work")["inside"], "office");
    assert_eq!(corridor("office")["corridors"], serde_json::json!(["work"]));
    let engineering = corridor("engineering");
    let engineering: Vec<&str> = engineering["rooms"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(engineering, ["billing", "cargo"], "{palace}");
    let _ = engram(store, &["daemon", "stop"]);
    run(store, &["rebuild"], 0);
    let rebuilt = json_of(store, &["--in-process", "palace", "--json"]);
    assert_eq!(rebuilt, palace, "rebuild replays the same palace");
    let _ = engram(store, &["daemon", "stop"]);
}

/// The palace, corridors included, is the same after a restart and after
/// a rebuild from the log.
#[test]
fn corridors_survive_restart_and_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let subject = engram::Subject::user();
    let before = {
        let engram = open(dir.path());
        room_of(&engram, "The billing service listens on port 8080.");
        room_of(&engram, "用户喜欢喝绿茶。");
        engram
            .place_corridor("绿茶", "drinks", None, &subject)
            .unwrap();
        engram
            .place_corridor("drinks", "home", None, &subject)
            .unwrap();
        let err = engram
            .place_corridor("home", "drinks", None, &subject)
            .unwrap_err();
        assert!(err.to_string().contains("would loop"), "{err}");
        let state = format!("{:?}", engram.core().palace.read().state);
        engram.close().unwrap();
        state
    };
    let engram = open(dir.path());
    assert_eq!(format!("{:?}", engram.core().palace.read().state), before);
    engram.close().unwrap();
    let engram = open_rebuilt(dir.path());
    assert_eq!(format!("{:?}", engram.core().palace.read().state), before);
    assert_eq!(corridor_of(&engram, "绿茶"), "drinks");
    engram.close().unwrap();
}

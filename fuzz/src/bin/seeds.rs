//! Writes the seed corpora, a few valid inputs per target, into
//! `fuzz/seeds/<target>/` (checked in; `cargo fuzz run <target>
//! corpus/<target> seeds/<target>` reads them). Run from `fuzz/`:
//! `cargo +nightly run --bin seeds`. Deterministic: the same files every run.

#[path = "../../../tests/golden_events.rs"]
#[allow(dead_code)]
mod golden_events;

use std::path::Path;
use std::sync::Arc;

use engram::log::{
    Durability, Event, HmacKey, KeySource, Log, LogConfig, ManualClock, MemStorage, Storage,
};
use engram::store::{Store, StoreOptions};
use engram::{Engram, Remember, Subject};

/// The frame target's key (`fuzz_targets/frame.rs`).
const FRAME_KEY: [u8; 32] = [0x5a; 32];

fn write(target: &str, name: &str, bytes: &[u8]) {
    let dir = Path::new("seeds").join(target);
    std::fs::create_dir_all(&dir).expect("creating the seed folder");
    std::fs::write(dir.join(name), bytes).expect("writing a seed");
}

fn with_mode(mode: u8, bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![mode];
    out.extend_from_slice(bytes);
    out
}

/// Every event variant, encoded; and a log of them in small segments.
fn codec_and_frames() {
    let batches = golden_events::golden_v1_3_batches();
    let events: Vec<&Event> = batches.iter().flatten().collect();
    let mut kinds = std::collections::BTreeSet::new();
    for event in &events {
        if kinds.insert(event.kind()) {
            let bytes = engram::log::codec::encode(event).expect("a golden event encodes");
            write("codec", event.kind(), &bytes);
        }
    }
    let storage = Arc::new(MemStorage::new());
    let log = Log::open(
        Arc::clone(&storage) as Arc<dyn Storage>,
        LogConfig::new(HmacKey::from_bytes(FRAME_KEY))
            .segment_bytes_max(golden_events::GOLDEN_SEGMENT_BYTES)
            .clock(Arc::new(ManualClock::new(golden_events::GOLDEN_T0_MS))),
    )
    .expect("a log opens in memory");
    for batch in &batches {
        log.append(batch).expect("appending a golden batch");
    }
    log.close().expect("closing the log");
    for (n, name) in storage
        .list()
        .expect("listing the log")
        .iter()
        .enumerate()
        .take(3)
    {
        let bytes = storage.file_bytes(name).expect("a listed file");
        write("frame", &format!("segment-{n}"), &with_mode(0, &bytes));
    }
    // A damaged log: one flipped byte, the last file cut.
    write("frame", "damaged", &[2, 1, 0x40, 0, 0, 0, 0x10, 1, 7, 0x30, 0, 0, 0, 1]);
    write("frame", "sealed", &[1; 120]);
}

/// A store with sessions, memories, a forget, a verdict and recalls.
fn store(dir: &Path) -> Engram {
    let options = StoreOptions {
        key: KeySource::Hex("42".repeat(32)),
        durability: Durability::None,
        ..StoreOptions::default()
    };
    let engram = Engram::open(Store::at(dir), &options).expect("a new store opens");
    let mut ids = Vec::new();
    for text in [
        "The billing service listens on port 8080 in staging.",
        "The billing service listens on port 9090 in staging.",
        "Deploys happen on Thursdays after the standup.",
        "用户偏好使用 Python 处理数据分析",
    ] {
        let receipt = engram
            .remember(&Remember::text(text))
            .expect("a plain save succeeds");
        if let Ok(id) = receipt.memory() {
            ids.push(id);
        }
    }
    engram
        .recall(&engram::RecallQuery::new("billing port"))
        .expect("a recall succeeds");
    engram
        .forget(ids[2], &Subject::user(), "moved")
        .expect("forgetting succeeds");
    let _ = engram.verdict(
        ids[0],
        ids[1],
        engram::log::Verdict::KeepB,
        engram::log::Actor::User,
        "checked",
    );
    engram
}

fn import(dir: &Path) {
    let engram = store(&dir.join("export"));
    let mut whole = Vec::new();
    engram::transfer::export(engram.log().reader(), 1, &mut whole, &|_, _| {})
        .expect("exporting the store");
    write("import", "whole", &with_mode(0, &whole));
    write("import", "whole-rehashed", &with_mode(1, &whole));
    let mut tail = Vec::new();
    engram::transfer::export(engram.log().reader(), 5, &mut tail, &|_, _| {})
        .expect("exporting a continuation");
    write("import", "continuation", &with_mode(0, &tail));
    engram.close().expect("closing the store");
}

fn http() {
    let requests: &[(&str, &str)] = &[
        ("stats", "GET /api/stats\nHost: localhost\n\n"),
        ("health", "GET /api/health\nHost: 127.0.0.1:7777\n\n"),
        (
            "remember",
            "POST /api/remember\nHost: localhost\nContent-Type: application/json\n\n{\"content\":\"The lantern hangs in the hall.\",\"tags\":[\"home\"]}",
        ),
        (
            "batch",
            "POST /api/remember/batch\nHost: localhost\nContent-Type: application/json\n\n{\"items\":[{\"content\":\"Tea at four.\"},{\"content\":\"Coffee at nine.\"}]}",
        ),
        (
            "recall",
            "POST /api/recall\nHost: localhost\nContent-Type: application/json\n\n{\"query\":\"billing port\",\"limit\":5}",
        ),
        ("memory", "GET /api/memories/2\nHost: localhost\n\n"),
        ("expand", "GET /api/memories/2/expand?by=model\nHost: localhost\n\n"),
        ("audit", "GET /api/memories/2/audit\nHost: localhost\n\n"),
        (
            "forget",
            "POST /api/memories/6/forget\nHost: localhost\nContent-Type: application/json\n\n{\"reason\":\"stale\"}",
        ),
        (
            "confirm",
            "POST /api/memories/2/confirm\nHost: localhost\nContent-Type: application/json\n\n{\"quote\":\"port 8080\"}",
        ),
        (
            "grade",
            "POST /api/memories/2/grade\nHost: localhost\nContent-Type: application/json\n\n{\"grade\":4}",
        ),
        ("review", "GET /api/review\nHost: localhost\n\n"),
        ("verdicts", "GET /api/verdicts\nHost: localhost\n\n"),
        (
            "verdict",
            "POST /api/verdict\nHost: localhost\nContent-Type: application/json\n\n{\"a\":\"2\",\"b\":\"4\",\"verdict\":\"keep-a\"}",
        ),
        (
            "maintain",
            "POST /api/maintain\nHost: localhost\nContent-Type: application/json\n\n{\"dry_run\":true}",
        ),
        ("candidates", "GET /api/distill/candidates\nHost: localhost\n\n"),
        ("entities", "GET /api/entities?category=tool\nHost: localhost\n\n"),
        ("palace", "GET /api/palace\nHost: localhost\n\n"),
        ("room", "GET /api/palace/billing\nHost: localhost\n\n"),
        ("renovation", "GET /api/renovation\nHost: localhost\n\n"),
        ("log", "GET /api/log?limit=5&kind=remembered\nHost: localhost\n\n"),
        ("verify", "POST /api/verify\nHost: localhost\n\n"),
        ("export", "GET /api/export\nHost: localhost\n\n"),
        (
            "ingest",
            "POST /api/ingest\nHost: localhost\nContent-Type: application/json\n\n{\"transcript\":\"{\\\"role\\\":\\\"user\\\",\\\"content\\\":\\\"hi there\\\"}\\n\",\"session\":\"s1\"}",
        ),
        ("panel", "GET /\nHost: localhost\n\n"),
        ("foreign-host", "GET /api/stats\nHost: example.com\n\n"),
    ];
    for (name, text) in requests {
        write("http", name, &with_mode(0, text.as_bytes()));
    }
}

fn mcp() {
    let call = |name: &str, arguments: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}}}}}"#
        )
    };
    let sessions: Vec<(&str, String)> = vec![
        (
            "list",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.to_owned(),
        ),
        (
            "remember",
            call(
                "memory_remember",
                r#"{"content":"The lantern hangs in the hall.","tags":["home"]}"#,
            ),
        ),
        (
            "recall",
            call("memory_recall", r#"{"query":"billing port","limit":3}"#),
        ),
        ("expand", call("memory_expand", r#"{"id":"2"}"#)),
        (
            "forget",
            call("memory_forget", r#"{"id":"6","reason":"stale"}"#),
        ),
        ("stats", call("memory_stats", "{}")),
        ("palace", call("memory_palace", "{}")),
        ("review", call("memory_review", "{}")),
        ("grade", call("memory_grade", r#"{"id":"2","grade":4}"#)),
        (
            "confirm",
            call("memory_confirm", r#"{"id":"2","quote":"port 8080"}"#),
        ),
        (
            "save",
            call(
                "engram_save",
                r#"{"items":[{"content":"Tea at four."},{"content":"Coffee at nine."}]}"#,
            ),
        ),
        ("search", call("engram_search", r#"{"query":"lantern"}"#)),
        (
            "bad-args",
            call("memory_recall", r#"{"query":5,"unknown":true}"#),
        ),
        ("garbage", "{not json\n[1,2]\n{}".to_owned()),
    ];
    for (name, text) in sessions {
        write("mcp", name, text.as_bytes());
    }
}

fn main() {
    codec_and_frames();
    let dir = tempfile::tempdir().expect("a temporary folder");
    import(dir.path());
    http();
    mcp();
    println!("seeds written under fuzz/seeds/");
}

//! `engram purge`: words erased for good by destroying their data keys.
//!
//! The story. `forget` only tombstones: the words stay in the log, by
//! design. A person asking for their data to be erased, or a secret that
//! slipped past redaction, needs more: after a purge no byte under the
//! store folder may hold the words (the log keeps ciphertext whose key is
//! gone, the key store's slot is overwritten, the views file is rewritten
//! so no freed page keeps them), while the log still verifies and says
//! who purged what and why.
//!
//! Checked here: the canary (a unique word) is found in no file of the
//! store after its purge, through the CLI with a daemon owning the store
//! (the socket client's door); `verify` passes; `expand` says erased,
//! naming the purge; `recall` never returns it; a rebuild gives the same
//! views; what derives from a memory (its entities, the recalls that hit
//! it, evidence, a memory over the same turns) is purged with it; a
//! session's purge erases its every turn; the live fold of a purge equals
//! a rebuild over the erased events; a model cannot purge what the user
//! said; every refusal changes nothing; and a crash at every sync point of
//! a purge leaves it done entirely or not at all.

use std::path::Path;
use std::sync::Arc;

use engram::engine::{EngineError, Engram};
use engram::log::{Actor, Event, FaultyStorage, Log, LogConfig, Role, Storage, SubjectKey, Tear};
use engram::store::Store;
use engram::{Content, MemoryMeta, RecallQuery, Remember, Subject, Turn};
use engram_commands::purge::PurgeTarget;
use engram_projections::CoreViews;
use engram_projections::models::MemoryStatus;
use serde_json::Value;

use crate::mcp_client::RawSession;
use crate::shared_log;
use crate::support::{
    arc, engram, engram_expecting, engram_json, exited_with, open_keyed, open_rebuilt, replay_all,
    test_key,
};

/// A word found nowhere else: its bytes anywhere under the store mean the
/// purge left something behind. Lower case too: the text index keeps
/// folded terms.
const CANARY: &str = "Xylophraxquill";

fn model() -> Subject {
    Subject {
        actor: Actor::Model,
        session: None,
    }
}

/// Every regular file under `dir` (recursively) holding `needle`, in any
/// case the index may have folded it to.
fn files_holding(dir: &Path, needle: &str) -> Vec<String> {
    let needles = [needle.to_owned(), needle.to_lowercase()];
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap().filter_map(Result::ok) {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                let bytes = std::fs::read(&path).unwrap_or_default();
                if needles
                    .iter()
                    .any(|n| bytes.windows(n.len()).any(|w| w == n.as_bytes()))
                {
                    found.push(path.display().to_string());
                }
            }
        }
    }
    found
}

fn remember_text(engram: &Engram, text: &str) -> u64 {
    engram
        .remember(&Remember::text(text))
        .unwrap()
        .memory()
        .unwrap()
}

fn key_of(engram: &Engram, seq: u64) -> SubjectKey {
    engram.log().subject_key(seq).unwrap()
}

#[test]
fn purge_a_canary_leaves_no_byte_of_it_under_the_store_and_the_log_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    // No --in-process: a daemon owns the store and every command is its
    // client over the socket (the daemon's log is in the store folder).
    let saved = engram_json(
        &store,
        &[
            "remember",
            "--json",
            &format!("the lighthouse keeper's cat is named {CANARY}"),
        ],
    );
    let id = saved["id"].as_str().unwrap().to_owned();
    engram_json(
        &store,
        &["remember", "--json", "deploys happen on Thursdays"],
    );
    let recalled = engram_json(&store, &["recall", "--json", CANARY]);
    assert_eq!(recalled["hits"][0]["id"], id.as_str());
    let expanded = engram_json(&store, &["expand", "--json", &id]);
    assert!(
        expanded["events"][0]["content"]
            .as_str()
            .unwrap()
            .contains(CANARY)
    );
    // The scan sees the words before the purge (the views hold them once
    // the daemon persisted them), so finding none afterwards means something.
    engram_expecting(&store, &["daemon", "stop"], 0);
    assert!(!files_holding(&store, CANARY).is_empty());

    let purged = engram_json(
        &store,
        &["purge", &id, "--reason", "asked to erase", "--json"],
    );
    assert_eq!(purged["id"], id.as_str());
    assert_eq!(purged["memories"], serde_json::json!([id]));
    let purge_seq = purged["seq"].as_u64().unwrap();
    // The recall that hit it is one of the subjects (its query held the word).
    let subjects: Vec<u64> = purged["subjects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .collect();
    assert!(subjects.windows(2).all(|w| w[0] < w[1]), "{subjects:?}");
    // The log shows the erased events as such, and only those.
    let (log, _) = engram_expecting(&store, &["log", "--json"], 0);
    let erased: Vec<u64> = log
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|line| line.get("erased").is_some())
        .map(|line| {
            assert_eq!(line["erased"], true, "{line}");
            line["seq"].as_u64().unwrap()
        })
        .collect();
    assert!(
        erased.iter().all(|seq| subjects.contains(seq)),
        "{erased:?} {subjects:?}"
    );
    let turn_seq = saved["first_seq"].as_u64().unwrap();
    assert!(erased.contains(&turn_seq), "the canary's turn: {erased:?}");
    let (human, _) = engram_expecting(&store, &["log"], 0);
    assert_eq!(
        human.matches("(words erased by a purge)").count(),
        erased.len(),
        "{human}"
    );

    engram_expecting(&store, &["daemon", "stop"], 0);
    assert_eq!(
        files_holding(&store, CANARY),
        Vec::<String>::new(),
        "the canary survived the purge"
    );

    // An export made now holds no canary either (a recall typed with the
    // word after the purge would record it anew, as any new words).
    let (export, _) = engram_expecting(&store, &["export"], 0);
    assert!(!export.contains(CANARY), "the export holds the canary");
    let file = dir.path().join("after-purge.jsonl");
    std::fs::write(&file, &export).unwrap();

    engram_expecting(&store, &["verify"], 0);
    let (_, stderr) = engram_expecting(&store, &["expand", &id], 1);
    assert!(
        stderr.contains(&format!("memory {id} was erased")),
        "the id as recall shows it: {stderr}"
    );
    assert!(stderr.contains(&format!("seq {purge_seq}")), "{stderr}");
    assert!(stderr.contains("asked to erase"), "{stderr}");
    let (stdout, _) = engram_expecting(&store, &["expand", &id, "--json"], 1);
    let erased: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(erased["error"], "erased");
    assert_eq!(erased["details"]["id"], id.as_str());
    assert_eq!(erased["details"]["purged_seq"], purge_seq);
    assert_eq!(erased["details"]["by"], "user");
    assert_eq!(erased["details"]["reason"], "asked to erase");
    engram_expecting(&store, &["recall", CANARY], 1);

    let listed = engram_json(&store, &["list", "--json"]);
    let purged_row = listed["memories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == id.as_str())
        .unwrap()
        .clone();
    assert_eq!(purged_row["status"], "purged");
    assert_eq!(purged_row["summary"], Value::Null);
    assert_eq!(purged_row["tags"], serde_json::json!([]));
    assert_eq!(purged_row["text"], Value::Null);
    let stats = engram_json(&store, &["stats", "--json"]);
    assert_eq!(stats["memories_by_status"]["purged"], 1, "{stats}");
    engram_expecting(&store, &["daemon", "stop"], 0);
    engram_expecting(&store, &["rebuild", "--in-process"], 0);
    assert_eq!(engram_json(&store, &["list", "--json"]), listed);
    assert_eq!(
        engram_json(&store, &["stats", "--json"])["memories_by_status"],
        stats["memories_by_status"]
    );
    engram_expecting(&store, &["daemon", "stop"], 0);
    assert_eq!(files_holding(&store, CANARY), Vec::<String>::new());

    // The export made right after the purge imports into a store with the
    // same views, the purged memory still erased there.
    let copy = dir.path().join("copy");
    engram_expecting(&copy, &["import", file.to_str().unwrap()], 0);
    assert_eq!(engram_json(&copy, &["list", "--json"]), listed);
    assert_eq!(
        engram_json(&copy, &["stats", "--json"])["memories_by_status"],
        stats["memories_by_status"]
    );
    engram_expecting(&copy, &["verify"], 0);
    let (_, stderr) = engram_expecting(&copy, &["expand", &id], 1);
    assert!(stderr.contains("erased"), "{stderr}");
    engram_expecting(&copy, &["recall", CANARY], 1);
    engram_expecting(&copy, &["daemon", "stop"], 0);
    assert_eq!(files_holding(&copy, CANARY), Vec::<String>::new());
}

/// Runs `engram --store STORE --log URL ARGS` (the team's master key
/// given) expecting exit `code`: its stdout and stderr.
#[track_caller]
fn replica_expecting(store: &Path, url: &str, args: &[&str], code: i32) -> (String, String) {
    exited_with(&shared_log::engram(store, Some(url), args), args, code)
}

/// The same canary, in stores replicating one sealed shared log on
/// PostgreSQL (three machines): remembered on the first, recalled and
/// expanded on the second, purged on the first, while the third made its
/// replica before the canary and stays behind until after the purge.
/// Afterwards no file under any replica's store holds the canary, no row
/// of the shared log ever did, the purged subjects' key rows are empty,
/// every local log and the shared log verify, every replica says the
/// memory was erased and recalls nothing, and a rebuild gives the views
/// back unchanged.
/// A restatement's words are kept with the memory it reinforced, to be
/// shown when it is recalled: a purge of the memory takes them too, and no
/// file of the store holds them afterwards.
#[test]
fn purge_takes_the_words_of_a_restatement_shown_with_the_memory() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let saved = engram_json(
        &store,
        &["remember", "--json", "Mia is allergic to mangoes"],
    );
    let id = saved["id"].as_str().unwrap().to_owned();
    let again = engram_json(
        &store,
        &[
            "remember",
            "--json",
            &format!("Mia is allergic to mangoes, she gets {CANARY} hives from them"),
        ],
    );
    assert_eq!(again["outcome"], "reinforced", "{again}");
    assert_eq!(again["id"], id.as_str());
    let recalled = engram_json(&store, &["recall", "--json", "mangoes"]);
    assert_eq!(recalled["hits"][0]["id"], id.as_str());
    assert_eq!(
        recalled["hits"][0]["restated"],
        serde_json::json!([format!(
            "Mia is allergic to mangoes, she gets {CANARY} hives from them"
        )])
    );
    engram_expecting(&store, &["daemon", "stop"], 0);
    assert!(!files_holding(&store, CANARY).is_empty());
    engram_json(
        &store,
        &["purge", &id, "--reason", "asked to erase", "--json"],
    );
    // No hit: recall exits 1.
    let (recalled, _) = engram_expecting(&store, &["recall", "--json", "hives"], 1);
    let recalled: Value = serde_json::from_str(&recalled).unwrap();
    assert_eq!(recalled["hits"], serde_json::json!([]), "{recalled}");
    engram_expecting(&store, &["daemon", "stop"], 0);
    assert_eq!(
        files_holding(&store, CANARY),
        Vec::<String>::new(),
        "the restatement's words survived the purge"
    );
}

#[test]
fn purge_a_canary_on_a_shared_log_leaves_no_byte_of_it_under_any_replica() {
    let Some(schema) = shared_log::Schema::new("purge_canary") else {
        return;
    };
    let url = schema.url.as_str();
    let dir = tempfile::tempdir().unwrap();
    let (first, second, lagging) = (
        dir.path().join("first"),
        dir.path().join("second"),
        dir.path().join("lagging"),
    );
    replica_expecting(&lagging, url, &["stats", "--json"], 0);
    let (saved, _) = replica_expecting(
        &first,
        url,
        &[
            "remember",
            "--json",
            &format!("the lighthouse keeper's cat is named {CANARY}"),
        ],
        0,
    );
    let saved: Value = serde_json::from_str(&saved).unwrap();
    let id = saved["id"].as_str().unwrap().to_owned();
    replica_expecting(
        &first,
        url,
        &["remember", "--json", "deploys happen on Thursdays"],
        0,
    );
    let (recalled, _) = replica_expecting(&second, url, &["recall", "--json", CANARY], 0);
    let recalled: Value = serde_json::from_str(&recalled).unwrap();
    assert_eq!(recalled["hits"][0]["id"], id.as_str());
    let (expanded, _) = replica_expecting(&second, url, &["expand", "--json", &id], 0);
    assert!(expanded.contains(CANARY), "{expanded}");
    // The scan sees the words before the purge (the views hold them), so
    // finding none afterwards means something.
    for store in [&first, &second] {
        assert!(!files_holding(store, CANARY).is_empty());
    }
    // The shared log holds ciphertext only, before the purge as after.
    let rows_holding_canary = || {
        schema.rows(&format!(
            "SELECT count(*)::text FROM engram_events \
             WHERE position('{CANARY}'::bytea in event) > 0 \
             OR position('{}'::bytea in event) > 0",
            CANARY.to_lowercase()
        ))
    };
    assert_eq!(rows_holding_canary(), ["0"]);

    let (purged, _) = replica_expecting(
        &first,
        url,
        &["purge", &id, "--reason", "asked to erase", "--json"],
        0,
    );
    let purged: Value = serde_json::from_str(&purged).unwrap();
    let purge_seq = purged["seq"].as_u64().unwrap();
    let subjects: Vec<String> = purged["subjects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap().to_string())
        .collect();
    assert!(!subjects.is_empty());
    // The team's key store: every subject's row emptied, the others live.
    let live_subject_rows = schema.rows(&format!(
        "SELECT count(*)::text FROM engram_keys WHERE seq IN ({}) AND octet_length(wrapped) > 0",
        subjects.join(",")
    ));
    assert_eq!(live_subject_rows, ["0"]);
    let live_rows =
        schema.rows("SELECT count(*)::text FROM engram_keys WHERE octet_length(wrapped) = 72");
    assert_ne!(live_rows, ["0"]);
    assert_eq!(rows_holding_canary(), ["0"]);

    for store in [&first, &second, &lagging] {
        let (stdout, _) = replica_expecting(store, url, &["expand", &id, "--json"], 1);
        let erased: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(erased["error"], "erased", "{}", store.display());
        assert_eq!(erased["details"]["purged_seq"], purge_seq);
        assert_eq!(erased["details"]["reason"], "asked to erase");
        replica_expecting(store, url, &["recall", CANARY], 1);
        // The local copy verifies without any key; so does the shared log.
        replica_expecting(store, url, &["verify"], 0);
        let out = shared_log::engram(store, None, &["verify"]);
        assert_eq!(out.status.code(), Some(0), "{}", store.display());
        let (listed, _) = replica_expecting(store, url, &["list", "--json"], 0);
        let (stats, _) = replica_expecting(store, url, &["stats", "--json"], 0);
        replica_expecting(store, url, &["rebuild"], 0);
        assert_eq!(
            replica_expecting(store, url, &["list", "--json"], 0).0,
            listed
        );
        let rebuilt: Value =
            serde_json::from_str(&replica_expecting(store, url, &["stats", "--json"], 0).0)
                .unwrap();
        let stats: Value = serde_json::from_str(&stats).unwrap();
        for part in ["memories_by_status", "memories_by_tier", "views"] {
            assert_eq!(rebuilt[part], stats[part], "{part}");
        }
        assert_eq!(stats["memories_by_status"]["purged"], 1, "{stats}");
        let listed: Value = serde_json::from_str(&listed).unwrap();
        let row = listed["memories"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == id.as_str())
            .unwrap()
            .clone();
        assert_eq!(row["status"], "purged");
        assert_eq!(
            files_holding(store, CANARY),
            Vec::<String>::new(),
            "the canary survived the purge under {}",
            store.display()
        );
    }
    // The recalls typed with the word after the purge hold it sealed.
    assert_eq!(rows_holding_canary(), ["0"]);
}

#[test]
fn purge_refusals_are_clear_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let saved = engram_json(
        &store,
        &["remember", "--json", "--in-process", "tea at four"],
    );
    let id = saved["id"].as_str().unwrap().to_owned();
    let log_len = |store: &Path| {
        let out = engram(store, &["log", "--json", "--in-process"]);
        out.stdout.iter().filter(|&&b| b == b'\n').count()
    };
    let before = log_len(&store);
    let (_, stderr) = engram_expecting(&store, &["purge", "99", "--in-process"], 2);
    assert!(stderr.contains("no memory with id 99"), "{stderr}");
    let (_, stderr) = engram_expecting(&store, &["purge", "--session", "nope", "--in-process"], 2);
    assert!(stderr.contains("no session named \"nope\""), "{stderr}");
    assert_eq!(log_len(&store), before);
    engram_expecting(&store, &["purge", &id, "--in-process"], 0);
    let after_purge = log_len(&store);
    let (_, stderr) = engram_expecting(&store, &["purge", &id, "--in-process"], 2);
    assert!(stderr.contains("already purged"), "{stderr}");
    assert_eq!(log_len(&store), after_purge);

    // A store written before encryption (format v1) cannot be purged by key.
    let plain = dir.path().join("plain");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_engram"))
        .args(["--store"])
        .arg(&plain)
        .args(["remember", "--in-process", "tea at five"])
        .env("ENGRAM_SEAL", "0")
        .env_remove("ENGRAM_HMAC_KEY")
        .env_remove("ENGRAM_HOME")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!plain.join("keys.engram").exists());
    let before = log_len(&plain);
    let (_, stderr) = engram_expecting(&plain, &["purge", "2", "--in-process"], 2);
    assert!(stderr.contains("not sealed"), "{stderr}");
    assert!(stderr.contains("import store.jsonl"), "{stderr}");
    assert!(stderr.contains("nothing was changed"), "{stderr}");
    assert_eq!(log_len(&plain), before);
}

/// `memory_purge`, the model's door (the MCP process is a client of the
/// store's owner, the daemon): a model may not purge what the user said,
/// and may purge what it said itself; the owner runs the same handler.
#[test]
fn memory_purge_through_mcp_is_the_models_and_is_gated() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let users = engram_json(
        &store,
        &["remember", "--json", "the user's locker is number 12"],
    );
    let users = users["id"].as_str().unwrap().to_owned();
    let mut mcp = RawSession::start(&store, &dir.path().join("home"));
    mcp.initialize("purge");
    let mut call = |id: u64, tool: &str, arguments: Value| -> Value {
        mcp.send(
            &serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}),
        );
        mcp.answer(id)
    };
    let denied = call(
        2,
        "memory_purge",
        serde_json::json!({"id": users, "reason": "tidy"}),
    );
    assert_eq!(denied["result"]["isError"], true, "{denied}");
    let text = denied["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("cannot purge what the user said"), "{text}");
    let saved = call(
        3,
        "memory_remember",
        serde_json::json!({"content": format!("the model noted {CANARY} as the build host")}),
    );
    let saved: Value =
        serde_json::from_str(saved["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    let models = saved["id"].as_str().unwrap().to_owned();
    let purged = call(
        4,
        "memory_purge",
        serde_json::json!({"id": models, "reason": "wrong host"}),
    );
    assert_eq!(purged["result"]["isError"], false, "{purged}");
    let purged: Value =
        serde_json::from_str(purged["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(purged["memories"], serde_json::json!([models]));
    drop(mcp);
    let listed = engram_json(&store, &["list", "--json"]);
    let status = |id: &str| {
        listed["memories"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == id)
            .map(|m| m["status"].clone())
    };
    assert_eq!(status(&users), Some(Value::from("live")));
    assert_eq!(status(&models), Some(Value::from("purged")));
    engram_expecting(&store, &["daemon", "stop"], 0);
}

#[test]
fn a_model_cannot_purge_what_the_user_said_nor_a_session() {
    let dir = tempfile::tempdir().unwrap();
    let engram = open_keyed(dir.path());
    let users = remember_text(&engram, "the user was born in Lisbon");
    let models = engram
        .remember(&Remember {
            content: Content::Text {
                text: "the build takes nine minutes".into(),
                session: None,
            },
            meta: MemoryMeta {
                source: engram::log::Source::Model,
                ..MemoryMeta::default()
            },
            subject: model(),
        })
        .unwrap()
        .memory()
        .unwrap();
    let last = engram.log().last_seq();
    let err = engram
        .purge(&PurgeTarget::Memory(users), &model(), "")
        .unwrap_err();
    assert!(matches!(err, EngineError::Denied(_)), "{err}");
    assert!(
        err.to_string().contains("cannot purge what the user said"),
        "{err}"
    );
    // The denial is recorded, nothing is purged, no key destroyed.
    let events = replay_all(engram.log().reader());
    assert_eq!(events.len() as u64, last + 1);
    assert!(matches!(&events[events.len() - 1].event, Event::GateDenied(d) if d.action == "purge"));
    assert!(matches!(key_of(&engram, users), SubjectKey::Live(_)));
    let err = engram
        .purge(&PurgeTarget::Session("notes".into()), &model(), "")
        .unwrap_err();
    assert!(matches!(err, EngineError::Denied(_)), "{err}");
    assert!(matches!(key_of(&engram, users), SubjectKey::Live(_)));
    // A model may purge its own memory; the user may purge anything.
    engram
        .purge(&PurgeTarget::Memory(models), &model(), "wrong")
        .unwrap();
    engram
        .purge(&PurgeTarget::Memory(users), &Subject::user(), "")
        .unwrap();
    assert!(matches!(key_of(&engram, users), SubjectKey::Destroyed));
}

#[test]
fn a_purge_reaches_what_derives_from_the_memory_and_no_more() {
    let dir = tempfile::tempdir().unwrap();
    let engram = open_keyed(dir.path());
    // Two turns; the secret memory stands for both, another for the second
    // alone (two memories over one turn, as ingest extracts them).
    let turns = [
        Turn::new(
            Role::User,
            format!("Alice Chen keeps the {CANARY} runbook in the ops wiki"),
        ),
        Turn::new(Role::User, "Bob Marsh rotates the pager every Monday"),
    ];
    let appended = engram
        .record_turns("ops", &turns, &Subject::user())
        .unwrap();
    let reference = |first_seq: u64| Remember {
        content: Content::Reference(engram::log::MemoryRef {
            session: "ops".into(),
            first_seq,
            last_seq: appended.last_seq,
        }),
        meta: MemoryMeta::default(),
        subject: Subject::user(),
    };
    let secret = engram
        .remember(&reference(appended.first_seq))
        .unwrap()
        .memory()
        .unwrap();
    let twin = engram
        .remember(&reference(appended.last_seq))
        .unwrap()
        .memory()
        .unwrap();
    assert_ne!(secret, twin);
    let kept = remember_text(&engram, "the standup is at half past nine");
    let hits = engram.recall(&RecallQuery::new(CANARY)).unwrap();
    assert_eq!(hits[0].id, secret);
    engram.settle().unwrap();
    engram
        .confirm(secret, &Subject::user(), "runbook in the ops wiki")
        .unwrap();
    let kept_keys: Vec<u64> = (kept - 1..=kept).collect();

    let purging = engram
        .purge(
            &PurgeTarget::Memory(secret),
            &Subject::user(),
            "erasure request",
        )
        .unwrap();
    assert_eq!(purging.memories, vec![secret, twin]);
    let events = replay_all(engram.log().reader());
    let naming = |seq: u64| purging.subjects.contains(&seq);
    for logged in &events {
        let derived = match &logged.event {
            Event::EntityLinked(e) => e.memory == secret || e.memory == twin,
            Event::EvidenceConfirmed(e) => e.memory == secret,
            Event::Recalled(r) => r.hits.iter().any(|h| h.memory == secret),
            _ => false,
        };
        if derived {
            assert!(
                naming(logged.seq),
                "seq {} ({}) not purged",
                logged.seq,
                logged.event.kind()
            );
            assert!(logged.erased, "seq {} still readable", logged.seq);
        }
    }
    for seq in [appended.first_seq, appended.last_seq, secret, twin] {
        assert!(naming(seq), "seq {seq}");
        assert!(matches!(key_of(&engram, seq), SubjectKey::Destroyed));
    }
    for seq in kept_keys {
        assert!(!naming(seq));
        assert!(matches!(key_of(&engram, seq), SubjectKey::Live(_)));
    }
    assert!(matches!(
        events.last().map(|e| &e.event),
        Some(Event::Purged(p)) if p.subjects == purging.subjects && p.reason == "erasure request"
    ));
    let table = engram.core().memory_table.read();
    assert_eq!(table.state.status(secret), Some(MemoryStatus::Purged));
    assert_eq!(table.state.status(twin), Some(MemoryStatus::Purged));
    assert_eq!(table.state.status(kept), Some(MemoryStatus::Live));
    drop(table);
    // The person named only in the purged words is no entity any more.
    assert!(
        !format!("{:?}", engram.core().entities.read().state)
            .to_lowercase()
            .contains("alice")
    );
    let err = engram.expand_as(twin, &Subject::user(), true).unwrap_err();
    assert!(matches!(err, EngineError::Purged { .. }), "{err}");
    assert!(engram.recall(&RecallQuery::new(CANARY)).unwrap().is_empty());
    assert!(
        engram
            .recall(&RecallQuery::new("runbook"))
            .unwrap()
            .is_empty()
    );
    let err = engram
        .confirm(secret, &Subject::user(), "runbook")
        .unwrap_err();
    assert!(err.to_string().contains("erased"), "{err}");
}

#[test]
fn a_session_purge_erases_every_turn_of_it_and_every_memory_over_it() {
    let dir = tempfile::tempdir().unwrap();
    let engram = open_keyed(dir.path());
    let turns = [
        Turn::new(Role::User, format!("my locker code is {CANARY}")),
        Turn::new(Role::Assistant, "noted"),
    ];
    let appended = engram
        .record_turns("chat-7", &turns, &Subject::user())
        .unwrap();
    // Session-only: the user still purges it from outside the session.
    let over = engram
        .remember(&Remember {
            content: Content::Text {
                text: "the locker is on floor three".into(),
                session: Some("chat-7".into()),
            },
            meta: MemoryMeta {
                scope: engram::log::Scope::Session("chat-7".into()),
                ..MemoryMeta::default()
            },
            subject: Subject {
                actor: Actor::User,
                session: Some("chat-7".into()),
            },
        })
        .unwrap()
        .memory()
        .unwrap();
    let other = remember_text(&engram, "the printer is on floor two");
    let purging = engram
        .purge(&PurgeTarget::Session("chat-7".into()), &Subject::user(), "")
        .unwrap();
    assert_eq!(purging.sessions, vec!["chat-7".to_owned()]);
    assert_eq!(purging.memories, vec![over]);
    for seq in appended.first_seq..=appended.last_seq {
        assert!(
            matches!(key_of(&engram, seq), SubjectKey::Destroyed),
            "turn {seq}"
        );
    }
    assert!(matches!(key_of(&engram, other), SubjectKey::Live(_)));
    assert_eq!(
        engram.core().memory_table.read().state.status(other),
        Some(MemoryStatus::Live)
    );
    engram.close().unwrap();
    assert_eq!(files_holding(dir.path(), CANARY), Vec::<String>::new());
}

/// The live fold of `Purged` over the words as they were equals a replay
/// over the erased events: both give the same view entries.
#[test]
fn the_live_fold_of_a_purge_equals_a_rebuild_over_the_erased_events() {
    let dir = tempfile::tempdir().unwrap();
    let engram = open_keyed(dir.path());
    let a = engram
        .remember(&Remember {
            content: Content::Text {
                text: format!("deploys of {CANARY} run from the ci runner on Fridays"),
                session: None,
            },
            meta: MemoryMeta {
                tags: vec!["deploy".into()],
                ..MemoryMeta::default()
            },
            subject: Subject::user(),
        })
        .unwrap()
        .memory()
        .unwrap();
    remember_text(&engram, "deploys run from the ci runner on Thursdays");
    remember_text(&engram, "the gardener waters the ferns on Mondays");
    engram.recall(&RecallQuery::new("deploys")).unwrap();
    engram.settle().unwrap();
    let before = replay_all(engram.log().reader());
    engram
        .purge(&PurgeTarget::Memory(a), &Subject::user(), "")
        .unwrap();
    let after = replay_all(engram.log().reader());
    assert!(after.iter().any(|e| e.erased));
    let purged = after.last().unwrap().clone();
    assert!(matches!(purged.event, Event::Purged(_)));

    let fold = |events: &[engram::log::LoggedEvent]| {
        let core = CoreViews::new(engram.log().reader().clone());
        let views = core.list();
        for event in events {
            for view in &views {
                view.write().apply(event).unwrap();
            }
        }
        views
            .iter()
            .map(|v| {
                let v = v.read();
                (v.name(), v.entries().unwrap())
            })
            .collect::<Vec<_>>()
    };
    let mut live = before.clone();
    live.extend(after[before.len()..].iter().cloned());
    // Events after `before` (the purge) as the live views met them.
    let live = fold(&live);
    let rebuilt = fold(&after);
    for ((name, live), (_, rebuilt)) in live.iter().zip(&rebuilt) {
        assert!(
            live == rebuilt,
            "view {name} differs between the live fold and a rebuild"
        );
    }
    drop(engram);
    let engram = open_rebuilt(dir.path());
    assert!(engram.recall(&RecallQuery::new(CANARY)).unwrap().is_empty());
}

fn open_faulty(log: &FaultyStorage, keys: &FaultyStorage, views: &Path) -> Result<Engram, String> {
    let keys: Arc<dyn Storage> = arc(keys.clone());
    let config = LogConfig::new(test_key()).keys(keys, engram::log::MasterKey::from_bytes([7; 32]));
    let log = Log::open(arc(log.clone()), config).map_err(|e| e.to_string())?;
    Engram::open_on_log(Store::at(views), log).map_err(|e| e.to_string())
}

/// A crash at each sync of a purge (the `Purged` append's, the key store's
/// destroy), under each tear: reopened, the store either holds the purge
/// with every subject's key destroyed and the memory purged in its views,
/// or holds no purge, every key live and the memory recallable.
#[test]
fn a_crash_at_every_sync_point_of_a_purge_leaves_all_of_it_or_none() {
    let script = |engram: &Engram| -> u64 {
        let id = remember_text(
            engram,
            &format!("the vault is behind the {CANARY} painting"),
        );
        remember_text(engram, "the kettle is in the kitchen");
        id
    };
    // How many syncs of each storage a purge makes, in a run without faults.
    let (log_syncs, key_syncs) = {
        let (log, keys) = (FaultyStorage::new(), FaultyStorage::new());
        let views = tempfile::tempdir().unwrap();
        let engram = open_faulty(&log, &keys, views.path()).unwrap();
        let id = script(&engram);
        let before = (log.n_syncs(), keys.n_syncs());
        engram
            .purge(&PurgeTarget::Memory(id), &Subject::user(), "")
            .unwrap();
        (log.n_syncs() - before.0, keys.n_syncs() - before.1)
    };
    assert!(
        log_syncs >= 1 && key_syncs >= 1,
        "{log_syncs} log and {key_syncs} key store syncs"
    );
    for tear in [Tear::LoseUnsynced, Tear::KeepPrefix(100), Tear::Garbage(64)] {
        for crash_log in [true, false] {
            let n_syncs = if crash_log { log_syncs } else { key_syncs };
            for at in 1..=n_syncs {
                let (log, keys) = (FaultyStorage::new(), FaultyStorage::new());
                let views = tempfile::tempdir().unwrap();
                let engram = open_faulty(&log, &keys, views.path()).unwrap();
                let id = script(&engram);
                let target = if crash_log { &log } else { &keys };
                target.crash_at_sync(at);
                let purged = engram.purge(&PurgeTarget::Memory(id), &Subject::user(), "");
                drop(engram);
                assert!(target.crashed(), "no crash at purge sync {at}: {purged:?}");
                let context = format!(
                    "{tear:?}, crash of the {} at its purge sync {at}",
                    if crash_log { "log" } else { "key store" }
                );
                let engram = open_faulty(
                    &log.crash_image(tear),
                    &keys.crash_image(tear),
                    views.path(),
                )
                .unwrap_or_else(|e| panic!("{context}: reopen failed: {e}"));
                let events = replay_all(engram.log().reader());
                let purge = events.iter().find_map(|e| match &e.event {
                    Event::Purged(p) => Some(p.clone()),
                    _ => None,
                });
                let status = engram.core().memory_table.read().state.status(id);
                match purge {
                    Some(p) => {
                        for &seq in &p.subjects {
                            assert!(
                                matches!(key_of(&engram, seq), SubjectKey::Destroyed),
                                "{context}: seq {seq}"
                            );
                        }
                        assert_eq!(status, Some(MemoryStatus::Purged), "{context}");
                        assert!(
                            engram.recall(&RecallQuery::new(CANARY)).unwrap().is_empty(),
                            "{context}"
                        );
                        assert_eq!(
                            files_holding(views.path(), CANARY),
                            Vec::<String>::new(),
                            "{context}"
                        );
                    }
                    None => {
                        for seq in 1..=engram.log().last_seq() {
                            assert!(
                                matches!(key_of(&engram, seq), SubjectKey::Live(_)),
                                "{context}: seq {seq}"
                            );
                        }
                        assert_eq!(status, Some(MemoryStatus::Live), "{context}");
                        assert_eq!(
                            engram.recall(&RecallQuery::new(CANARY)).unwrap()[0].id,
                            id,
                            "{context}"
                        );
                    }
                }
                drop(engram);
            }
        }
    }
}

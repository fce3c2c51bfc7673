//! `engram export` / `engram import` (`engram::transfer`): a store moved
//! through an export file comes back with the same seqs, commit times and
//! views, every memory sealed under the new store's own key; a file that
//! was edited, cut short or reordered is refused at its first bad line and
//! leaves nothing behind; a store with events takes only the export that
//! continues it. The last test is a property test: every event variant
//! survives its export line.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;

use engram::log::{
    Event, KeySource, LoggedEvent, MemStorage, MemoryId, MemoryRef, Role, Scope, SessionEvent,
    Source,
};
use engram::store::{Store, StoreOptions};
use engram::transfer::{self, ExportReader, ImportError};
use engram::{Content, Engram, MemoryMeta, Remember, Subject};
use engram_embed::{BertEmbedder, Embedder};
use proptest::prelude::*;
use serde_json::Value;
use sha2::Digest as _;

use crate::codec::{any_event, check};
use crate::golden_events::GOLDEN_KEY;
use crate::support::{dir_files, replay_all, session_event};

const DAY_MS: u64 = 86_400_000;

/// Options with the store's own key file (created on first write), so
/// every store in these tests has a key of its own.
fn own_key() -> StoreOptions {
    StoreOptions {
        key: KeySource::StoreFile,
        ..StoreOptions::default()
    }
}

/// The `engram` binary with a scratch home and the tiny test model, so
/// recall runs hybrid on both sides of a move.
struct Cli {
    home: tempfile::TempDir,
    model: PathBuf,
    /// New stores keep their words in the clear (`ENGRAM_SEAL=0`).
    in_the_clear: bool,
}

impl Cli {
    fn new() -> Self {
        let home = tempfile::tempdir().unwrap();
        let model = engram_embed::testing::tiny_model(home.path(), "tiny");
        Self {
            home,
            model,
            in_the_clear: false,
        }
    }

    /// A CLI whose new stores keep their words in the clear (format v1):
    /// their exports carry no sealed records, so a forged line is caught
    /// by the memory seal over the words.
    fn in_the_clear() -> Self {
        Self {
            in_the_clear: true,
            ..Self::new()
        }
    }

    fn run(&self, store: &Path, args: &[&str]) -> Output {
        std::process::Command::new(env!("CARGO_BIN_EXE_engram"))
            .arg("--store")
            .arg(store)
            .args(args)
            .env_remove("ENGRAM_HMAC_KEY")
            .env("ENGRAM_HOME", self.home.path().join("home"))
            .env("ENGRAM_MODEL_DIR", &self.model)
            .env("ENGRAM_SEAL", if self.in_the_clear { "0" } else { "1" })
            .output()
            .unwrap()
    }

    /// Runs and requires exit 0; returns stdout.
    fn ok(&self, store: &Path, args: &[&str]) -> String {
        let out = self.run(store, args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "engram {args:?} on {}: {}",
            store.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Runs and requires exit 2 (an error); returns stderr.
    fn refused(&self, store: &Path, args: &[&str]) -> String {
        let out = self.run(store, args);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "engram {args:?}: {stderr}");
        stderr
    }

    fn export_to(&self, store: &Path, args: &[&str], file: &Path) {
        let mut all = vec!["export"];
        all.extend_from_slice(args);
        std::fs::write(file, self.ok(store, &all)).unwrap();
    }

    fn embedder(&self) -> Arc<dyn Embedder> {
        Arc::new(BertEmbedder::load(&self.model).unwrap())
    }
}

fn remember(engram: &Engram, text: &str, meta: MemoryMeta) -> Option<MemoryId> {
    engram
        .remember(&Remember {
            meta,
            ..Remember::text(text)
        })
        .unwrap()
        .id
}

fn in_room(room: &str) -> MemoryMeta {
    MemoryMeta {
        room: Some(room.to_owned()),
        ..MemoryMeta::default()
    }
}

/// A store with a history of every kind: memories in rooms, with tags,
/// summaries, a TTL, session scope, written by the model; a multi-turn
/// session remembered by reference; reinforcements, contradictions and
/// verdicts; grades; valid and invalid evidence; a forget; a distilled
/// rule; archiving by maintenance; recalls and expands; entities; vectors
/// recorded at write and added later by reembed; a discarded save.
/// Returns every memory id.
fn seed(dir: &Path, cli: &Cli) -> Vec<MemoryId> {
    let mut ids = Vec::new();
    {
        // Without a model first: these get their vectors from reembed.
        let engram = Engram::open(Store::at(dir), &own_key()).unwrap();
        ids.extend(remember(
            &engram,
            "I prefer green tea over coffee in the morning.",
            MemoryMeta {
                tags: vec!["drink".into(), "morning".into()],
                summary: Some("tea in the morning".into()),
                ..in_room("food")
            },
        ));
        ids.extend(remember(
            &engram,
            "The launch budget is 10k euros.",
            in_room("launch"),
        ));
        ids.extend(remember(
            &engram,
            "The launch budget is 25k euros.",
            in_room("launch"),
        ));
        ids.extend(remember(
            &engram,
            "用户偏好使用 Python 而非 Node.js 处理数据分析。",
            in_room("tools"),
        ));
        assert_eq!(remember(&engram, "thanks!", MemoryMeta::default()), None);
        engram.close().unwrap();
    }
    let engram = Engram::open(Store::at(dir), &own_key())
        .unwrap()
        .with_embedder(cli.embedder());
    assert_eq!(engram.reembed(&|_, _| {}).unwrap(), ids.len());
    let turns = engram
        .append(&[
            session_event(
                "chat-1",
                0,
                "Alice from Acme said the Berlin office opens in May.",
            ),
            Event::Session(SessionEvent {
                session: "chat-1".into(),
                turn: 1,
                role: Role::Assistant,
                content: "Noted: the Berlin office opens in May.".into(),
            }),
        ])
        .unwrap();
    ids.extend(
        engram
            .remember(&Remember {
                content: Content::Reference(MemoryRef {
                    session: "chat-1".into(),
                    first_seq: turns.first_seq,
                    last_seq: turns.last_seq,
                }),
                meta: in_room("office"),
                subject: Subject::user(),
            })
            .unwrap()
            .id,
    );
    ids.extend(remember(
        &engram,
        "The staging server runs Postgres 15 on host db2.",
        MemoryMeta {
            source: Source::Model,
            ..in_room("ops")
        },
    ));
    ids.extend(remember(
        &engram,
        "The staging server runs Postgres 16 on host db2.",
        in_room("ops"),
    ));
    ids.extend(remember(
        &engram,
        "Deploys to production need two reviewers.",
        in_room("deploys"),
    ));
    ids.extend(remember(
        &engram,
        "Hotfix deploys skip staging but still need two reviewers.",
        in_room("deploys"),
    ));
    ids.extend(remember(
        &engram,
        "The conference badge expires after the event week.",
        MemoryMeta {
            ttl_ms: Some(5 * DAY_MS),
            ..in_room("events")
        },
    ));
    // A session-scoped memory: refused from outside the session (the
    // denial is recorded), saved from inside it.
    let scoped = Remember {
        meta: MemoryMeta {
            scope: Scope::Session("chat-1".into()),
            ..MemoryMeta::default()
        },
        ..Remember::text("In this session we only discuss the quarterly report draft.")
    };
    assert!(engram.remember(&scoped).is_err());
    let in_session = Subject {
        session: Some("chat-1".into()),
        ..Subject::user()
    };
    ids.extend(
        engram
            .remember(&Remember {
                subject: in_session,
                ..scoped
            })
            .unwrap()
            .id,
    );
    // A restatement reinforces the first memory.
    let again = remember(
        &engram,
        "I prefer green tea over coffee in the mornings.",
        in_room("food"),
    );
    assert_eq!(again, Some(ids[0]));
    let (open, _) = engram.contradictions();
    assert!(open.len() >= 2, "{open:?}");
    let budget = &open[0];
    engram
        .verdict(
            budget.a,
            budget.b,
            engram::log::Verdict::KeepB,
            engram::log::Actor::User,
            "the later figure is right",
        )
        .unwrap();
    let staging = &open[1];
    engram
        .verdict(
            staging.a,
            staging.b,
            engram::log::Verdict::Shelve,
            engram::log::Actor::User,
            "",
        )
        .unwrap();
    engram.grade(ids[0], 5).unwrap();
    engram.grade(ids[3], 1).unwrap();
    let user = Subject::user();
    assert!(
        engram
            .confirm(ids[4], &user, "Berlin office")
            .unwrap()
            .valid
    );
    assert!(!engram.confirm(ids[4], &user, "Paris office").unwrap().valid);
    engram
        .distill(
            &[ids[7], ids[8]],
            "Production deploys need two reviewers.",
            None,
            &user,
        )
        .unwrap();
    engram.forget(ids[1], &user, "superseded").unwrap();
    engram
        .recall(&engram::RecallQuery::new("green tea"))
        .unwrap();
    engram.expand_as(ids[4], &user, false).unwrap();
    // Maintenance well after the TTL: the badge memory is archived.
    let later = engram.log().read(1..=1).unwrap()[0].ts_ms + 30 * DAY_MS;
    let archived = engram
        .maintain(
            &engram_commands::maintain::MaintainPolicy::default(),
            later,
            false,
        )
        .unwrap()
        .archived;
    assert!(archived.iter().any(|(id, _)| *id == ids[9]), "{archived:?}");
    let ids = engram
        .core()
        .memory_table
        .read()
        .state
        .iter()
        .map(|e| e.id)
        .collect();
    engram.close().unwrap();
    ids
}

/// `engram log --json` lines with every `mac` (the store-keyed HMAC of a
/// memory's seal) taken out, and the macs apart.
fn log_without_macs(cli: &Cli, store: &Path) -> (Vec<Value>, Vec<String>) {
    let mut macs = Vec::new();
    let lines = crate::support::json_lines(cli.ok(store, &["log", "--json"]).as_bytes())
        .into_iter()
        .map(|mut line| {
            if line["kind"] == "remembered" {
                let mac = line.as_object_mut().unwrap().remove("mac").unwrap();
                macs.push(mac.as_str().unwrap().to_owned());
            }
            line
        })
        .collect();
    (lines, macs)
}

#[test]
fn export_then_import_gives_the_same_stats_recalls_and_views_under_a_new_key() {
    let cli = Cli::new();
    let scratch = tempfile::tempdir().unwrap();
    let a = scratch.path().join("a");
    let b = scratch.path().join("b");
    let ids = seed(&a, &cli);
    assert!(ids.len() >= 12, "{ids:?}");
    let file = scratch.path().join("a.jsonl");
    cli.export_to(&a, &[], &file);

    let summary: Value =
        serde_json::from_str(&cli.ok(&b, &["import", file.to_str().unwrap(), "--json"])).unwrap();
    let (log_a, macs_a) = log_without_macs(&cli, &a);
    let kinds: std::collections::BTreeSet<&str> =
        log_a.iter().map(|l| l["kind"].as_str().unwrap()).collect();
    for kind in [
        "session",
        "remembered",
        "reinforced",
        "contradiction_flagged",
        "verdict_recorded",
        "distilled",
        "tier_changed",
        "archived",
        "forgotten",
        "graded",
        "recalled",
        "expanded",
        "entity_linked",
        "gate_denied",
        "discarded",
        "evidence_confirmed",
        "ttl_set",
        "embedded",
    ] {
        assert!(
            kinds.contains(kind),
            "the seeded history has no {kind}: {kinds:?}"
        );
    }
    assert_eq!(summary["n_events"], log_a.len());
    assert_eq!(summary["last_seq"], log_a.len());
    assert_eq!(summary["n_memories"], macs_a.len());
    assert_eq!(summary["continuation"], false);

    // The new store has its own key; every memory was sealed under it.
    let key = |dir: &Path| std::fs::read(dir.join("hmac.key")).unwrap();
    assert_ne!(key(&a), key(&b));
    let (log_b, macs_b) = log_without_macs(&cli, &b);
    assert_eq!(log_a, log_b, "same seqs, commit times, kinds and fields");
    assert_eq!(macs_a.len(), macs_b.len());
    assert!(macs_a.iter().zip(&macs_b).all(|(x, y)| x != y));
    assert!(cli.ok(&b, &["verify"]).starts_with("ok:"));

    // Every view reads the same. (The memory table also holds each
    // memory's mac, the one value that differs: it is under another key.)
    let same = |args: &[&str]| {
        let (x, y) = (cli.run(&a, args), cli.run(&b, args));
        assert!(
            x.status.code().is_some_and(|c| c < 2),
            "engram {args:?}: {x:?}"
        );
        assert_eq!(
            (x.status.code(), x.stdout),
            (y.status.code(), y.stdout),
            "engram {args:?}"
        );
    };
    same(&["stats", "--json"]);
    same(&["palace", "--json"]);
    same(&["renovation", "--json"]);
    same(&["entities", "--json"]);
    same(&["verdicts", "--json"]);
    same(&["review", "--json", "--at", "2100-01-01T00:00:00Z"]);
    for id in &ids {
        same(&["audit", &id.to_string(), "--json"]);
    }
    // Each recall appends the same `Recalled` to both, so they stay alike.
    for query in [
        "green tea",
        "launch budget",
        "数据分析",
        "Berlin office",
        "Postgres staging",
        "deploys reviewers",
        "conference badge",
    ] {
        same(&["recall", query, "--json", "--limit", "10"]);
        same(&["recall", query, "--json", "--tier", "l4"]);
    }
    same(&[
        "recall",
        "quarterly report",
        "--json",
        "--session",
        "chat-1",
    ]);
    same(&["recall", "tea", "--json", "--tags", "drink"]);
    same(&["recall", "office", "--json", "--room", "office"]);
    same(&["stats", "--json"]);

    // Every memory expands verified under the new key, the forgotten one
    // in audit mode.
    for id in &ids {
        let words = cli.ok(
            &b,
            &[
                "expand",
                &id.to_string(),
                "--audit",
                "--session",
                "chat-1",
                "--json",
            ],
        );
        let words: Value = serde_json::from_str(&words).unwrap();
        assert_eq!(words["verified"], true, "memory {id}: {words}");
    }

    // Exported again, the imported store gives the same lines but for the
    // macs: the line hashes and the digest leave the store key out.
    let again = scratch.path().join("b.jsonl");
    cli.export_to(&b, &[], &again);
    let without_macs = |path: &Path| -> Vec<Value> {
        let text = std::fs::read_to_string(path).unwrap();
        let mut lines = crate::support::json_lines(text.as_bytes());
        for line in &mut lines {
            let object = line.as_object_mut().unwrap();
            object.remove("mac");
            // A memory's record holds its mac; its key is the same.
            if object.get("kind").is_some_and(|k| k == "remembered") {
                let sealed = object.get_mut("sealed").unwrap().as_object_mut().unwrap();
                assert!(sealed.remove("record").is_some());
            }
        }
        lines
    };
    let (first, second) = (without_macs(&file), without_macs(&again));
    let n = first.len() - 1;
    assert_eq!(first[1..n], second[1..n]);
    let trailer = |lines: &[Value]| lines.last().unwrap()["sha256"].clone();
    // An export of B up to A's end matches A's exactly, digest included.
    let prefix = scratch.path().join("b-prefix.jsonl");
    let c = scratch.path().join("c");
    cli.ok(&c, &["import", file.to_str().unwrap()]);
    cli.export_to(&c, &[], &prefix);
    assert_eq!(trailer(&without_macs(&prefix)), trailer(&first));
}

#[test]
fn log_json_lines_are_export_lines_without_their_hash() {
    let cli = Cli::new();
    let scratch = tempfile::tempdir().unwrap();
    let a = scratch.path().join("a");
    cli.ok(
        &a,
        &[
            "remember",
            "The backup job runs nightly at 02:00.",
            "--room",
            "ops",
        ],
    );
    cli.ok(&a, &["recall", "backup"]);
    let file = scratch.path().join("a.jsonl");
    cli.export_to(&a, &[], &file);
    let mut lines = crate::support::json_lines(&std::fs::read(&file).unwrap());
    let n = lines.len() - 1;
    let events: Vec<Value> = lines[1..n]
        .iter_mut()
        .map(|line| {
            let object = line.as_object_mut().unwrap();
            assert!(object.remove("sha256").is_some());
            // A sealed store's record and key, export only.
            if object.get("kind").is_some_and(|k| k == "session") {
                assert!(object.remove("sealed").is_some());
            } else {
                object.remove("sealed");
            }
            line.clone()
        })
        .collect();
    let log = crate::support::json_lines(cli.ok(&a, &["log", "--json"]).as_bytes());
    assert_eq!(events, log);
}

/// A small store `a` exported to `a.jsonl`, with the file's lines.
fn small_export(cli: &Cli, scratch: &Path) -> (PathBuf, Vec<String>) {
    let a = scratch.join("a");
    for text in [
        "The backup job runs nightly at 02:00 on host db3.",
        "Deploys happen on Fridays after 5pm.",
        "The staging cluster is in Frankfurt.",
    ] {
        cli.ok(&a, &["remember", text]);
    }
    cli.ok(&a, &["recall", "backup"]);
    let file = scratch.join("a.jsonl");
    cli.export_to(&a, &[], &file);
    let text = std::fs::read_to_string(&file).unwrap();
    (file, text.lines().map(str::to_owned).collect())
}

fn write_lines(path: &Path, lines: &[String]) {
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn an_edited_reordered_or_foreign_line_is_refused_naming_it_and_leaves_no_store() {
    let cli = Cli::new();
    let scratch = tempfile::tempdir().unwrap();
    let (_, lines) = small_export(&cli, scratch.path());
    let edit = |at: usize, from: &str, to: &str| {
        let mut edited = lines.clone();
        assert!(edited[at].contains(from), "{}", edited[at]);
        edited[at] = edited[at].replacen(from, to, 1);
        edited
    };
    let swapped = {
        let mut swapped = lines.clone();
        swapped.swap(3, 4);
        swapped
    };
    let dropped = {
        let mut dropped = lines.clone();
        dropped.remove(3);
        dropped
    };
    let cases: Vec<(&str, Vec<String>, &str)> = vec![
        (
            "edited content",
            edit(4, "Deploys happen", "Deploys never happen"),
            "line 5 (seq 4): the line hash is",
        ),
        (
            "edited commit time",
            edit(2, "\"ts_ms\":17", "\"ts_ms\":18"),
            "line 3 (seq 2): the line hash",
        ),
        (
            "edited memory room",
            edit(2, "\"tier\":\"l3\"", "\"tier\":\"l1\""),
            "line 3 (seq 2)",
        ),
        (
            "a field gone",
            edit(2, "\"content_sha256\"", "\"content_sha\""),
            "line 3: the fields of a remembered event do not decode",
        ),
        (
            "unknown kind",
            edit(5, "\"kind\":\"remembered\"", "\"kind\":\"teleported\""),
            "unknown event kind",
        ),
        ("reordered", swapped, "line 4 (seq 4): expected seq 3"),
        ("a line gone", dropped, "line 4 (seq 4): expected seq 3"),
        ("not JSON", edit(5, "{", "{{"), "line 6: not a JSON line"),
        (
            "digest",
            {
                let last = lines.len() - 1;
                let mut edited = lines.clone();
                let trailer: Value = serde_json::from_str(&lines[last]).unwrap();
                let digest = trailer["sha256"].as_str().unwrap();
                let other = if digest.starts_with('0') { "1" } else { "0" };
                edited[last] = lines[last].replacen(digest, &(other.to_owned() + &digest[1..]), 1);
                edited
            },
            "the trailer's digest does not match",
        ),
    ];
    for (name, bad, expect) in cases {
        let file = scratch.path().join("bad.jsonl");
        write_lines(&file, &bad);
        let target = scratch.path().join("new");
        let stderr = cli.refused(&target, &["import", file.to_str().unwrap()]);
        assert!(stderr.contains(expect), "{name}: {stderr}");
        assert!(
            !target.exists(),
            "{name}: the refused import left {target:?}"
        );
    }

    // A store folder that existed (with a key of its own) is left as it was.
    let target = scratch.path().join("keyed");
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("hmac.key"), [7u8; 32]).unwrap();
    let file = scratch.path().join("bad.jsonl");
    write_lines(&file, &edit(4, "Deploys", "Deploy"));
    cli.refused(&target, &["import", file.to_str().unwrap()]);
    let left: Vec<_> = std::fs::read_dir(&target)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["hmac.key"]);
    assert_eq!(std::fs::read(target.join("hmac.key")).unwrap(), [7u8; 32]);
}

#[test]
fn a_truncated_export_is_refused_wherever_it_was_cut() {
    let cli = Cli::new();
    let scratch = tempfile::tempdir().unwrap();
    let (file, lines) = small_export(&cli, scratch.path());
    let bytes = std::fs::read(&file).unwrap();
    let n_lines = lines.len();
    // Whole lines gone from the end (the trailer first), and cuts inside
    // a line.
    let mut cuts: Vec<(Vec<u8>, &str)> = (1..n_lines)
        .map(|keep| {
            let text = lines[..keep].join("\n") + "\n";
            (text.into_bytes(), "cut short")
        })
        .collect();
    let second_line_end = lines[0].len() + 1 + lines[1].len();
    cuts.push((
        bytes[..second_line_end - 10].to_vec(),
        "line 2: not a JSON line",
    ));
    cuts.push((bytes[..bytes.len() - 5].to_vec(), "not a JSON line"));
    cuts.push((Vec::new(), "line 1: the file is empty"));
    for (text, expect) in cuts {
        let cut = scratch.path().join("cut.jsonl");
        std::fs::write(&cut, &text).unwrap();
        let target = scratch.path().join("new");
        let stderr = cli.refused(&target, &["import", cut.to_str().unwrap()]);
        assert!(stderr.contains(expect), "{} bytes: {stderr}", text.len());
        assert!(!target.exists());
    }
    // The library names the truncation by its type.
    let header_only = lines[0].clone() + "\n";
    let events: Vec<_> = ExportReader::new(header_only.as_bytes()).unwrap().collect();
    assert!(
        matches!(
            events.as_slice(),
            [Err(ImportError::Truncated {
                n_lines: 1,
                last_seq_read: 0,
                ..
            })]
        ),
        "{events:?}"
    );
}

/// SHA-256 over `parts` (the export format's hashes, recomputed here from
/// their definition in docs/design.md).
fn sha256(parts: &[&[u8]]) -> String {
    let mut hasher = sha2::Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    hex::encode(hasher.finalize())
}

/// `lines` with the session turn at `seq` rewritten to `content`, its line
/// hash and the trailer's digest recomputed: a forgery made with the
/// format's definition, which only the memory seals can catch.
fn forge(lines: &[String], seq: u64, content: &str) -> Vec<String> {
    let mut values: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let n = values.len() - 1;
    let mut hashes = Vec::new();
    for value in &mut values[1..n] {
        if value["seq"] == seq {
            value["content"] = content.into();
            let mut fields = value.as_object().unwrap().clone();
            let kind = fields.remove("kind").unwrap();
            let event =
                Event::deserialize_fields(kind.as_str().unwrap(), Value::Object(fields)).unwrap();
            let ts_ms = value["ts_ms"].as_u64().unwrap();
            let (hash, _) = transfer::line_sha256(seq, ts_ms, &event).unwrap();
            let bytes = engram::log::codec::encode(&event).unwrap();
            let by_definition = sha256(&[
                b"engram export v1 event",
                &seq.to_le_bytes(),
                &ts_ms.to_le_bytes(),
                &(bytes.len() as u64).to_le_bytes(),
                &bytes,
            ]);
            assert_eq!(hex::encode(hash.0), by_definition);
            value["sha256"] = by_definition.into();
        }
        hashes.push(hex::decode(value["sha256"].as_str().unwrap()).unwrap());
    }
    let mut parts: Vec<&[u8]> = vec![b"engram export v1 digest"];
    parts.extend(hashes.iter().map(Vec::as_slice));
    values[n]["sha256"] = sha256(&parts).into();
    values.iter().map(Value::to_string).collect()
}

/// Forges seq 4 (the second note; seq 3 put the first memory's new room
/// on its corridor, seq 5 is the memory sealed over it) of `cli`'s export
/// with fresh line hashes: the import is refused with `refusal` and leaves
/// no store; the same words rewritten to themselves import.
fn forged_words_are_refused(cli: &Cli, refusal: &str) {
    let scratch = tempfile::tempdir().unwrap();
    let (_, lines) = small_export(cli, scratch.path());
    let forged = scratch.path().join("forged.jsonl");
    write_lines(
        &forged,
        &forge(&lines, 4, "Deploys never happen on Fridays."),
    );
    let target = scratch.path().join("new");
    let stderr = cli.refused(&target, &["import", forged.to_str().unwrap()]);
    assert!(stderr.contains(refusal), "{stderr}");
    assert!(!target.exists());
    write_lines(
        &forged,
        &forge(&lines, 4, "Deploys happen on Fridays after 5pm."),
    );
    cli.ok(&target, &["import", forged.to_str().unwrap()]);
}

#[test]
fn words_rewritten_in_a_sealed_export_are_refused_at_their_line_and_leave_no_store() {
    // The line's record (ciphertext) no longer holds the line's words.
    forged_words_are_refused(
        &Cli::new(),
        "line 5 (seq 4): its sealed record does not hold the line's event",
    );
}

#[test]
fn words_rewritten_with_fresh_hashes_fail_the_memory_seal_and_leave_no_store() {
    // In the clear the words import; the memory sealed over them does not.
    forged_words_are_refused(
        &Cli::in_the_clear(),
        "line 6 (seq 5): the memory's words (seqs 4 to 4) hash to",
    );
}

/// The last seq of store `dir`.
fn last_seq(cli: &Cli, dir: &Path) -> u64 {
    let stats: Value = serde_json::from_str(&cli.ok(dir, &["stats", "--json"])).unwrap();
    stats["last_seq"].as_u64().unwrap()
}

#[test]
fn a_store_with_events_takes_only_the_export_that_continues_it() {
    let cli = Cli::new();
    let scratch = tempfile::tempdir().unwrap();
    let (file, _) = small_export(&cli, scratch.path());
    let a = scratch.path().join("a");
    let b = scratch.path().join("b");
    cli.ok(&b, &["import", file.to_str().unwrap()]);
    let end = last_seq(&cli, &b);
    let next = (end + 1).to_string();

    // The same export again, into the store it built: refused, unchanged
    // (its owner, which `last_seq` started, closes it first).
    let _ = crate::support::engram(&b, &["daemon", "stop"]);
    let before = dir_files(&b.join("log"));
    let stderr = cli.refused(&b, &["import", file.to_str().unwrap()]);
    assert!(
        stderr.contains(&format!(
            "already holds seqs 1 to {end} and this export starts at seq 1"
        )),
        "{stderr}"
    );
    assert!(stderr.contains(&format!("--from {next}")), "{stderr}");
    assert_eq!(dir_files(&b.join("log")), before);

    // More history in A; the export from B's end continues B.
    cli.ok(
        &a,
        &["remember", "The on-call rotation changes every Monday."],
    );
    cli.ok(&a, &["forget", "2", "--reason", "moved to a wiki"]);
    let more = scratch.path().join("more.jsonl");
    cli.export_to(&a, &["--from", &next], &more);
    let summary: Value =
        serde_json::from_str(&cli.ok(&b, &["import", more.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(summary["continuation"], true);
    assert_eq!(summary["first_seq"], end + 1);
    assert_eq!(summary["n_memories"], 1);
    assert_eq!(
        cli.ok(&a, &["stats", "--json"]),
        cli.ok(&b, &["stats", "--json"])
    );
    assert_eq!(
        cli.ok(&a, &["recall", "rotation Monday", "--json"]),
        cli.ok(&b, &["recall", "rotation Monday", "--json"])
    );
    assert!(cli.ok(&b, &["verify"]).starts_with("ok:"));
    cli.ok(&b, &["expand", &(end + 2).to_string()]);

    // A continuation into a store with no log: refused, nothing created.
    let fresh = scratch.path().join("fresh");
    let stderr = cli.refused(&fresh, &["import", more.to_str().unwrap()]);
    assert!(
        stderr.contains(&format!("starts at seq {next} (written with --from)")),
        "{stderr}"
    );
    assert!(!fresh.exists());

    // An export of nothing new continues A's copy as nothing.
    let c = scratch.path().join("c");
    let whole = scratch.path().join("whole.jsonl");
    cli.export_to(&a, &[], &whole);
    cli.ok(&c, &["import", whole.to_str().unwrap()]);
    let empty = scratch.path().join("empty.jsonl");
    cli.export_to(
        &a,
        &["--from", &(last_seq(&cli, &a) + 1).to_string()],
        &empty,
    );
    let summary: Value =
        serde_json::from_str(&cli.ok(&c, &["import", empty.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(summary["n_events"], 0);
    assert_eq!(summary["last_seq"], last_seq(&cli, &a));

    // Another store that ends at the same seq is not continued.
    let other = scratch.path().join("other");
    cli.ok(
        &other,
        &["remember", "The printer on floor two jams on A3 paper."],
    );
    while last_seq(&cli, &other) < end {
        cli.run(&other, &["recall", "printer"]);
    }
    assert_eq!(last_seq(&cli, &other), end);
    let stderr = cli.refused(&other, &["import", more.to_str().unwrap()]);
    assert!(
        stderr.contains(&format!(
            "the store's event at seq {end} is not the one this export continues from"
        )),
        "{stderr}"
    );
}

#[test]
fn a_continuation_that_fails_its_seals_stops_at_a_whole_event_and_says_where() {
    let cli = Cli::in_the_clear();
    let scratch = tempfile::tempdir().unwrap();
    let (file, _) = small_export(&cli, scratch.path());
    let a = scratch.path().join("a");
    let b = scratch.path().join("b");
    cli.ok(&b, &["import", file.to_str().unwrap()]);
    let end = last_seq(&cli, &b);
    cli.ok(&a, &["recall", "backup"]);
    cli.ok(
        &a,
        &["remember", "The on-call rotation changes every Monday."],
    );
    let more = scratch.path().join("more.jsonl");
    cli.export_to(&a, &["--from", &(end + 1).to_string()], &more);
    let lines: Vec<String> = std::fs::read_to_string(&more)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    // Past B's end: the recall, the note, the memory over it (lines 2-4).
    let forged = scratch.path().join("forged.jsonl");
    write_lines(
        &forged,
        &forge(&lines, end + 2, "The on-call rotation never changes."),
    );
    let stderr = cli.refused(&b, &["import", forged.to_str().unwrap()]);
    assert!(
        stderr.contains(&format!("line 4 (seq {})", end + 3)),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("the store now ends at seq {}", end + 2)),
        "{stderr}"
    );
    assert!(cli.ok(&b, &["verify"]).starts_with("ok:"));
    assert_eq!(last_seq(&cli, &b), end + 2);
}

#[test]
fn a_staging_folder_left_by_an_interrupted_import_is_not_reused() {
    let cli = Cli::new();
    let scratch = tempfile::tempdir().unwrap();
    let (file, _) = small_export(&cli, scratch.path());
    let target = scratch.path().join("new");
    std::fs::create_dir_all(target.join(transfer::STAGING_DIR_NAME)).unwrap();
    let stderr = cli.refused(&target, &["import", file.to_str().unwrap()]);
    assert!(stderr.contains("was interrupted"), "{stderr}");
    assert!(!target.join("log").exists());
}

#[test]
fn export_and_import_refuse_what_they_cannot_do_with_exit_status_2() {
    let cli = Cli::new();
    let scratch = tempfile::tempdir().unwrap();
    let empty = scratch.path().join("empty");
    let stderr = cli.refused(&empty, &["export"]);
    assert!(stderr.contains("has no log yet"), "{stderr}");
    assert!(!empty.exists());
    let (file, lines) = small_export(&cli, scratch.path());
    let a = scratch.path().join("a");
    let end = lines.len() - 2;
    let stderr = cli.refused(&a, &["export", "--from", &(end + 2).to_string()]);
    assert!(
        stderr.contains(&format!(
            "the last seq is {end}, so an export can start at {}",
            end + 1
        )),
        "{stderr}"
    );
    assert!(
        cli.refused(&a, &["export", "--from", "0"])
            .contains("seqs start at 1")
    );
    let stderr = cli.refused(&empty, &["import", "-"]);
    assert!(stderr.contains("reads its file twice"), "{stderr}");
    let missing = scratch.path().join("missing.jsonl");
    let stderr = cli.refused(&empty, &["import", missing.to_str().unwrap()]);
    assert!(stderr.contains("missing.jsonl"), "{stderr}");
    assert!(!empty.exists());
    let human = cli.ok(&empty, &["import", file.to_str().unwrap()]);
    assert!(
        human.starts_with(&format!(
            "built {} with {end} events (seqs 1 to {end}); memories sealed under its key: 3",
            empty.display()
        )),
        "{human}"
    );
}

#[test]
fn every_golden_fixture_exports_and_import_refuses_their_unsealed_memories() {
    // The fixtures hold every variant (the v1 evidence layout and a
    // checkpoint too) and memories sealed with made-up hashes: they export
    // and read back to the very events, and import refuses the first
    // memory whose words do not match its hash.
    let key = engram::log::HmacKey::from_bytes(GOLDEN_KEY);
    for version in ["v1", "v1.1", "v1.2", "v1.3", "v1.4", "v1.5"] {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(version)
            .join("log");
        let reader = engram::log::LogReader::open_dir(&dir, key.clone()).unwrap();
        let mut out = Vec::new();
        transfer::export(&reader, 1, &mut out, &|_, _| {}).unwrap();
        let back: Vec<transfer::ExportedEvent> = ExportReader::new(out.as_slice())
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let events: Vec<LoggedEvent> = back.iter().map(|e| e.logged.clone()).collect();
        assert_eq!(events, replay_all(&reader), "{version}");

        let log = engram::log::Log::open(
            Arc::new(MemStorage::new()),
            engram::log::LogConfig::new(engram::log::HmacKey::from_bytes([1; 32])),
        )
        .unwrap();
        let refused = transfer::import_events(&log, back.into_iter().map(Ok), &|_| {});
        assert!(
            matches!(refused, Err(ImportError::Seal { seq: 7, .. })),
            "{version}: {refused:?}"
        );
        // Everything before the refused memory was appended.
        assert_eq!(log.last_seq(), 6);
    }
}

#[test]
fn every_event_survives_its_export_line() {
    // Event -> JSON line -> Event for every variant: an export of random
    // events (a memory's reference pointed at seq 1, a session turn) reads
    // back to exactly the events and commit times of the log.
    let strategy = proptest::collection::vec((any_event(), 0..3u64), 1..10);
    check("export lines", 64, &strategy, |events| {
        let log = engram::log::Log::open(
            Arc::new(MemStorage::new()),
            engram::log::LogConfig::new(engram::log::HmacKey::from_bytes([3; 32])),
        )
        .unwrap();
        let mut ts_ms = 1_795_000_000_000;
        log.append_at(1, ts_ms, &[session_event("s", 0, "the words")])
            .unwrap();
        for (seq, (event, step)) in (2..).zip(events) {
            let event = match event {
                Event::Remembered(mut memory) => {
                    memory.reference.first_seq = 1;
                    memory.reference.last_seq = 1;
                    Event::Remembered(memory)
                }
                other => other,
            };
            ts_ms += step;
            log.append_at(seq, ts_ms, &[event]).unwrap();
        }
        let mut out = Vec::new();
        transfer::export(log.reader(), 1, &mut out, &|_, _| {}).unwrap();
        let back: Result<Vec<transfer::ExportedEvent>, _> =
            ExportReader::new(out.as_slice()).unwrap().collect();
        let back: Vec<LoggedEvent> = back.unwrap().into_iter().map(|e| e.logged).collect();
        prop_assert_eq!(back, replay_all(log.reader()));
        Ok(())
    });
}

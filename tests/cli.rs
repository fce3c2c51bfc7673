//! The `engram` command line: exit statuses, output formats and errors, run
//! as a real process against real store folders.

use std::path::Path;
use std::process::{Command, Output};

use engram::store::{Store, StoreOptions};
use engram_log::{Durability, KeySource};
use serde_json::Value;

use crate::support::{engram, json_lines, session_event};

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// A store with `n` session events in segments of `segment_bytes`.
fn store_with_events(dir: &Path, n: u32, segment_bytes: u64) -> Store {
    let store = Store::at(dir);
    let options = StoreOptions {
        key: KeySource::StoreFile,
        durability: Durability::None,
        segment_bytes_max: segment_bytes,
        shared_log: None,
        ..StoreOptions::default()
    };
    let log = store.open_log(&options).unwrap();
    for turn in 0..n {
        let content =
            format!("turn {turn}: 用户偏好使用 Python 而非 Node.js 处理数据分析。\nsecond line");
        log.append(&[session_event("cli", turn, &content)]).unwrap();
    }
    log.close().unwrap();
    store
}

fn segments(store: &Store) -> Vec<std::path::PathBuf> {
    let mut names: Vec<_> = std::fs::read_dir(store.log_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "seg"))
        .collect();
    names.sort();
    names
}

#[test]
fn verify_exits_0_on_a_sound_log() {
    let dir = tempfile::tempdir().unwrap();
    store_with_events(dir.path(), 50, 2048);
    let out = engram(dir.path(), &["verify"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("50 events"), "{}", stdout(&out));

    let out = engram(dir.path(), &["verify", "--json"]);
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["ok"], true);
    assert_eq!(report["last_seq"], 50);
    assert_eq!(report["problem"], Value::Null);
}

#[test]
fn verify_exits_1_naming_the_first_bad_seq_and_segment() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_events(dir.path(), 60, 2048);
    let segs = segments(&store);
    assert!(segs.len() >= 3);
    // Flip a byte inside the payload of the last frame of the first segment.
    let victim = &segs[0];
    let mut bytes = std::fs::read(victim).unwrap();
    let at = bytes.len() - 80;
    bytes[at] ^= 0x20;
    std::fs::write(victim, &bytes).unwrap();

    let out = engram(dir.path(), &["verify", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["ok"], false);
    let name = victim.file_name().unwrap().to_str().unwrap();
    assert_eq!(report["problem"]["segment"], name);
    // Every event is its own frame here: the bad seq is the segment's last.
    let next_first: u64 = segs[1]
        .file_stem()
        .unwrap()
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(report["problem"]["seq"], next_first - 1);

    let out = engram(dir.path(), &["verify"]);
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(
        message.contains(&format!("seq {}", next_first - 1)),
        "{message}"
    );
    assert!(message.contains(name), "{message}");
}

#[test]
fn verify_warns_but_passes_on_a_torn_tail() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_events(dir.path(), 10, 64 * 1024);
    let last = segments(&store).pop().unwrap();
    let mut bytes = std::fs::read(&last).unwrap();
    let before = bytes.len();
    bytes.extend_from_slice(b"EGFR partial frame from a crash");
    std::fs::write(&last, &bytes).unwrap();
    // The process that had the log open died writing that frame.
    let key = KeySource::StoreFile.load(dir.path(), false).unwrap();
    crate::support::mark_crashed_dir(&store.log_dir(), &key);

    let out = engram(dir.path(), &["verify"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("torn tail"), "{}", stderr(&out));
    // verify is read-only: the tail is still there.
    assert_eq!(std::fs::read(&last).unwrap().len(), bytes.len());

    // The next write open truncates it and everything acknowledged remains.
    let log = store
        .open_log(&StoreOptions {
            key: KeySource::StoreFile,
            ..StoreOptions::default()
        })
        .unwrap();
    assert_eq!(log.last_seq(), 10);
    assert!(log.recovery().torn_tail.is_some());
    drop(log);
    assert_eq!(std::fs::read(&last).unwrap().len(), before);
}

#[test]
fn verify_exits_2_without_the_key_or_with_a_wrong_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_events(dir.path(), 5, 64 * 1024);
    let key_path = store.dir().join("hmac.key");

    let wrong = Command::new(env!("CARGO_BIN_EXE_engram"))
        .arg("--store")
        .arg(dir.path())
        .arg("verify")
        .env("ENGRAM_HMAC_KEY", "11".repeat(32))
        .output()
        .unwrap();
    assert_eq!(wrong.status.code(), Some(2));
    assert!(
        stderr(&wrong).contains("key does not match"),
        "{}",
        stderr(&wrong)
    );

    std::fs::rename(&key_path, dir.path().join("elsewhere.key")).unwrap();
    let out = engram(dir.path(), &["verify"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no HMAC key"), "{}", stderr(&out));
    assert!(!key_path.exists(), "verify must never invent a key");

    // An auditor keeping the key elsewhere passes it explicitly.
    let out = engram(
        dir.path(),
        &[
            "--key-file",
            dir.path().join("elsewhere.key").to_str().unwrap(),
            "verify",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // Writing to a store that has a log but lost its key is refused too.
    let out = engram(dir.path(), &["bench", "append", "--events", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!key_path.exists());
}

#[test]
fn log_json_prints_one_object_per_event_with_its_fields() {
    let dir = tempfile::tempdir().unwrap();
    store_with_events(dir.path(), 12, 2048);
    let out = engram(dir.path(), &["log", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 12);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["seq"], i as u64 + 1);
        assert_eq!(line["kind"], "session");
        assert_eq!(line["session"], "cli");
        assert_eq!(line["turn"], i as u64);
        assert_eq!(line["role"], "user");
        assert!(line["content"].as_str().unwrap().contains("数据分析"));
        assert!(line["ts"].as_str().unwrap().ends_with('Z'));
        assert!(line["ts_ms"].as_u64().unwrap() > 0);
    }

    let out = engram(dir.path(), &["log", "--from", "3", "--to", "5", "--json"]);
    let seqs: Vec<u64> = json_lines(&out.stdout)
        .iter()
        .map(|l| l["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, vec![3, 4, 5]);

    // Human output keeps one line per event even when content has newlines.
    let out = engram(dir.path(), &["log", "--to", "2"]);
    assert_eq!(stdout(&out).lines().count(), 2, "{}", stdout(&out));
}

#[test]
fn log_past_the_end_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    store_with_events(dir.path(), 3, 2048);
    let out = engram(dir.path(), &["log", "--from", "4"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("past the end of the log (last seq is 3)"),
        "{}",
        stderr(&out)
    );
    let out = engram(dir.path(), &["log", "--from", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn unknown_file_in_the_log_folder_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_events(dir.path(), 3, 2048);
    let stranger = store.log_dir().join("notes.txt");
    std::fs::write(&stranger, "mine").unwrap();
    for args in [
        &["verify"][..],
        &["log"][..],
        &["bench", "append", "--events", "1"][..],
    ] {
        let out = engram(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains("notes.txt"), "{}", stderr(&out));
    }
    assert_eq!(std::fs::read_to_string(&stranger).unwrap(), "mine");
}

#[test]
fn bench_append_and_replay_report_their_figures() {
    let dir = tempfile::tempdir().unwrap();
    let out = engram(
        dir.path(),
        &[
            "bench",
            "append",
            "--events",
            "300",
            "--batch",
            "7",
            "--writers",
            "3",
            "--durability",
            "none",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["events"], 300);
    assert_eq!(report["last_seq"], 300);
    assert!(report["events_per_sec"].as_f64().unwrap() > 0.0);
    assert!(report["ack_p99_ms"].as_f64().unwrap() >= report["ack_p50_ms"].as_f64().unwrap());

    let out = engram(dir.path(), &["bench", "replay", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["events"], 300);
    assert_eq!(report["ok"], true);

    let out = engram(dir.path(), &["bench", "append", "--events", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn commands_on_the_local_log_files_refuse_a_shared_log() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let store = store.as_path();
    let url = "postgres://engram@127.0.0.1:1/nowhere";
    for args in [
        vec!["--log", url, "bench", "append", "--events", "10"],
        vec!["--log", url, "bench", "replay"],
        vec!["--log", url, "inspect", "segment", "no-such-file"],
    ] {
        let out = engram(store, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.starts_with("engram: ") && err.contains("cannot use a shared log"),
            "{args:?}: {err}"
        );
        assert!(!store.exists(), "{args:?} created the store");
    }
    // ENGRAM_LOG_URL is the same option.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_engram"))
        .arg("--store")
        .arg(store)
        .args(["bench", "append", "--events", "10"])
        .env("ENGRAM_LOG_URL", url)
        .env_remove("ENGRAM_HMAC_KEY")
        .env_remove("ENGRAM_HOME")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!store.exists());
}

#[test]
fn out_of_range_values_get_the_messages_every_door_gives() {
    let dir = tempfile::tempdir().unwrap();
    let out = engram(
        dir.path(),
        &["remember", "the runner has two disks", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for (args, message) in [
        (
            vec!["remember", "a fact for the archive", "--tier", "l4"],
            "a memory cannot be saved to l4 (the archive): use l1, l2 or l3",
        ),
        (
            vec!["recall", "disks", "--limit", "0"],
            "limit 0 is outside 1-100",
        ),
        (
            vec!["recall", "disks", "--limit", "101"],
            "limit 101 is outside 1-100",
        ),
        (vec!["grade", "2", "7"], "grade 7 is outside 0-5"),
    ] {
        let out = engram(dir.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.starts_with(&format!("engram: {message}")),
            "{args:?}: {err}"
        );
    }
    // The flag values keep their spellings.
    for args in [
        vec!["recall", "disks", "--tier", "l3", "--json"],
        vec![
            "remember",
            "the runner has three fans",
            "--tier",
            "l2",
            "--by",
            "model",
        ],
    ] {
        let out = engram(dir.path(), &args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn outside_a_repository_the_default_store_is_the_user_store_created_on_first_use() {
    let dir = tempfile::tempdir().unwrap();
    let engram_home = dir.path().join("home");
    let home = engram_home.join("user");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_engram"))
            .args(args)
            .current_dir(dir.path())
            .env("ENGRAM_HOME", &engram_home)
            .env_remove("ENGRAM_HMAC_KEY")
            .output()
            .unwrap()
    };
    let out = run(&["verify"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run(&["bench", "append", "--events", "5", "--durability", "none"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(home.join("log").is_dir());
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(home.join("hmac.key"))
            .unwrap()
            .permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
    let out = run(&["log", "--json"]);
    assert_eq!(stdout(&out).lines().count(), 5);
}

#[test]
fn help_names_every_command_and_the_exit_statuses() {
    let out = Command::new(env!("CARGO_BIN_EXE_engram"))
        .arg("--help")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = stdout(&out);
    for word in ["verify", "log", "bench", "--store", "Exit status"] {
        assert!(help.contains(word), "help lacks {word}: {help}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_engram"))
        .arg("frobnicate")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_second_writer_process_is_refused_while_readers_may_look() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_events(dir.path(), 4, 64 * 1024);
    let options = StoreOptions {
        key: KeySource::StoreFile,
        ..StoreOptions::default()
    };
    let writer = store.open_log(&options).unwrap();
    let out = engram(dir.path(), &["bench", "append", "--events", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("open for writing by another engram process"),
        "{}",
        stderr(&out)
    );
    let out = engram(dir.path(), &["verify"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    drop(writer);
    let out = engram(
        dir.path(),
        &["bench", "append", "--events", "1", "--durability", "none"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn no_progress_bar_when_piped() {
    let dir = tempfile::tempdir().unwrap();
    let out = engram(
        dir.path(),
        &[
            "bench",
            "append",
            "--events",
            "2000",
            "--batch",
            "4",
            "--durability",
            "none",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stderr(&out),
        "",
        "stderr is not a terminal: nothing may be drawn"
    );
    let out = engram(dir.path(), &["bench", "replay"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stderr(&out), "");
}

#[test]
fn inspect_segment_lists_frames_and_stops_at_damage() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_events(dir.path(), 6, 64 * 1024);
    let segment = segments(&store).remove(0);
    let path = segment.to_str().unwrap();
    let out = engram(dir.path(), &["inspect", "segment", path, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = json_lines(&out.stdout);
    assert_eq!(lines[0]["type"], "segment");
    assert_eq!(lines[0]["key_matches"], true);
    let frames: Vec<&Value> = lines.iter().filter(|l| l["type"] == "frame").collect();
    assert_eq!(frames.len(), 6);
    assert!(
        frames
            .iter()
            .all(|f| f["hmac_ok"] == true && f["linked"] == true)
    );
    assert_eq!(frames[5]["last_seq"], 6);

    let mut bytes = std::fs::read(&segment).unwrap();
    let third = frames[2]["offset"].as_u64().unwrap() as usize;
    bytes[third + 70] ^= 1;
    std::fs::write(&segment, &bytes).unwrap();
    let out = engram(dir.path(), &["inspect", "segment", path]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("stop: frame hash mismatch"), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.contains("hmac ok")).count(),
        2,
        "{text}"
    );
}

/// A store with two session turns, a memory over them, a recall and a forget.
fn store_with_a_memory(dir: &Path) -> u64 {
    use engram_log::{Actor, Digest, Event, Forgotten, MemoryRef, Remembered, Scope, Source, Tier};
    let engram = engram::Engram::open(
        Store::at(dir),
        &StoreOptions {
            key: KeySource::StoreFile,
            ..StoreOptions::default()
        },
    )
    .unwrap();
    engram
        .append(&[
            session_event("cli", 0, "I prefer tea."),
            session_event("cli", 1, "Noted."),
        ])
        .unwrap();
    let id = engram
        .append(&[Event::Remembered(Remembered {
            reference: MemoryRef {
                session: "cli".into(),
                first_seq: 1,
                last_seq: 2,
            },
            content_sha256: Digest([1; 32]),
            mac: Digest([2; 32]),
            summary: Some("prefers tea".into()),
            tags: vec![],
            tier: Tier::L3,
            room: None,
            uniqueness_permille: 900,
            source: Source::User,
            scope: Scope::Store,
            embedding: None,
        })])
        .unwrap()
        .first_seq;
    engram
        .append(&[Event::Forgotten(Forgotten {
            memory: id,
            by: Actor::User,
            reason: "changed mind".into(),
        })])
        .unwrap();
    engram.close().unwrap();
    id
}

#[test]
fn stats_reports_counts_watermarks_and_lag() {
    let dir = tempfile::tempdir().unwrap();
    store_with_a_memory(dir.path());
    let out = engram(dir.path(), &["stats", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stats: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(stats["n_events"], 4);
    assert_eq!(stats["last_seq"], 4);
    assert_eq!(stats["memories_by_status"]["forgotten"], 1);
    let views = stats["views"].as_array().unwrap();
    let names: Vec<&str> = views.iter().map(|v| v["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "memory_table",
            "tier_index",
            "lru",
            "trust",
            "audit",
            "sessions",
            "palace",
            "verdicts",
            "review",
            "entities",
            "vector_index",
            "text_index"
        ]
    );
    assert!(views.iter().all(|v| v["applied"] == 4 && v["lag"] == 0));

    // As of seq 3 the memory was still live; the store is not touched.
    let out = engram(dir.path(), &["stats", "--as-of", "3", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stats: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(stats["as_of"], 3);
    assert_eq!(stats["memories_by_status"]["live"], 1);
    assert_eq!(stats["memories_by_tier"]["l3"], 1);

    let out = engram(dir.path(), &["stats", "--as-of", "5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("past the end of the log (last seq is 4)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn audit_prints_a_memory_history_in_seq_order() {
    let dir = tempfile::tempdir().unwrap();
    let id = store_with_a_memory(dir.path());
    let out = engram(dir.path(), &["audit", &id.to_string(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = json_lines(&out.stdout);
    let kinds: Vec<&str> = lines.iter().map(|l| l["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["remembered", "forgotten"]);
    assert_eq!(lines[0]["seq"], id);
    assert_eq!(lines[1]["result"], "forgotten");
    assert!(
        lines[1]["subject"]
            .as_str()
            .unwrap()
            .contains("changed mind")
    );

    let out = engram(
        dir.path(),
        &[
            "audit",
            &id.to_string(),
            "--as-of",
            &id.to_string(),
            "--json",
        ],
    );
    assert_eq!(stdout(&out).lines().count(), 1, "{}", stdout(&out));

    let out = engram(dir.path(), &["audit", "999"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no memory with id 999"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn rebuild_replays_every_view_and_keeps_the_figures() {
    let dir = tempfile::tempdir().unwrap();
    store_with_a_memory(dir.path());
    let before = stdout(&engram(dir.path(), &["stats", "--json"]));
    let out = engram(dir.path(), &["rebuild"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("rebuilt 12 views"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("from 4 events"), "{}", stdout(&out));
    assert_eq!(stdout(&engram(dir.path(), &["stats", "--json"])), before);
    // Deleting the views file loses nothing.
    std::fs::remove_file(dir.path().join("views.redb")).unwrap();
    assert_eq!(stdout(&engram(dir.path(), &["stats", "--json"])), before);
}

/// ANSI escapes, `\r` and the right-to-left override in memory text reached
/// the terminal raw in human output: a memory could clear the screen,
/// recolour it or rewrite a line. Human output shows them as visible
/// escapes; `--json` keeps the text exactly as stored.
#[test]
fn ansi_escapes_in_memory_text_reached_the_terminal_raw() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let text = "quince tango \u{1b}[2J\u{1b}[31mred alert\u{1b}[0m\rall clear \u{202e}gnp.exe";
    let out = engram(&store, &["remember", text, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let id = json_lines(&out.stdout)[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let raw = ['\u{1b}', '\r', '\u{202e}'];
    for args in [
        vec!["recall", "quince tango"],
        vec!["expand", &id],
        vec!["log"],
    ] {
        let out = engram(&store, &args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let shown = stdout(&out);
        assert!(!shown.contains(raw), "{args:?} printed raw: {shown:?}");
        assert!(shown.contains("\\u{1b}[2J"), "{args:?}: {shown}");
    }
    let out = engram(&store, &["recall", "quince tango", "--json"]);
    assert_eq!(json_lines(&out.stdout)[0]["hits"][0]["text"], text);
}

/// Every folder and file under `dir` with its permission bits.
fn modes(dir: &Path) -> Vec<(std::path::PathBuf, u32, bool)> {
    use std::os::unix::fs::PermissionsExt as _;
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        out.push((
            path.clone(),
            meta.permissions().mode() & 0o777,
            meta.is_dir(),
        ));
        if meta.is_dir() {
            out.extend(modes(&path));
        }
    }
    out
}

/// Asserts that `store` and everything in it is private: folders 0700,
/// files 0600.
fn assert_private(store: &Path, context: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(store).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "{context}: {}", store.display());
    assert_private_contents(store, context);
}

/// Asserts that everything in `store` is private (the folder itself may
/// be one that existed before engram used it).
fn assert_private_contents(store: &Path, context: &str) {
    for (path, mode, is_dir) in modes(store) {
        let expected = if is_dir { 0o700 } else { 0o600 };
        assert_eq!(mode, expected, "{context}: {:o} {}", mode, path.display());
    }
}

#[test]
fn store_files_are_private_whatever_the_umask() {
    // Regression: under umask 022 the store folders were 0755 and the
    // segments and views.redb 0644 (only hmac.key was 0600): anyone on the
    // machine could read every memory.
    for umask in ["022", "000"] {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("home").join("store");
        let run = |args: &[&str]| {
            let out = Command::new("sh")
                .arg("-c")
                .arg(format!("umask {umask}; exec \"$0\" \"$@\""))
                .arg(env!("CARGO_BIN_EXE_engram"))
                .arg("--store")
                .arg(&store)
                .args(args)
                .env_remove("ENGRAM_HMAC_KEY")
                .env_remove("ENGRAM_HOME")
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        };
        run(&["remember", "the staging password rotates on mondays"]);
        run(&["recall", "staging"]);
        let names: Vec<String> = modes(&store)
            .iter()
            .map(|(p, _, _)| p.strip_prefix(&store).unwrap().display().to_string())
            .collect();
        for expected in ["hmac.key", "views.redb", "log", "log/LOCK", "log/TAIL"] {
            assert!(names.iter().any(|n| n == expected), "{expected}: {names:?}");
        }
        assert!(names.iter().any(|n| n.ends_with(".seg")), "{names:?}");
        assert_private(&store, &format!("umask {umask}"));
        // The folder it created above the store is private too.
        assert_private(&dir.path().join("home"), &format!("umask {umask}"));
    }
}

#[test]
fn repair_cuts_damage_off_a_closed_log_and_keeps_a_copy() {
    // Regression story: a flipped byte in the last frame of a cleanly
    // closed store was reported by verify as a torn tail (exit 0), and the
    // next command opening the store for writing (expand) deleted the frame:
    // acknowledged memories gone. Now verify exits 1 naming the seq, every
    // command that would open for writing refuses naming the repair
    // command and changes nothing, and `engram repair` cuts the damage on
    // an operator's word, keeping a copy of what it cut.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    let out = engram(
        store,
        &[
            "bench",
            "append",
            "--events",
            "300",
            "--batch",
            "8",
            "--segment-bytes",
            "8192",
            "--durability",
            "none",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut last_id = String::new();
    for i in 0..6 {
        let out = engram(
            store,
            &[
                "remember",
                &format!("note {i}: the deploy window is friday {i}"),
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        last_id = stdout(&out)
            .split_whitespace()
            .find(|w| w.starts_with("s:"))
            .unwrap()
            .to_owned();
    }
    // The owner closes the log cleanly: damage after that is no torn tail.
    let out = engram(store, &["daemon", "stop"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let segs = segments(&Store::at(store));
    let last = segs.last().unwrap();
    let last_name = last.file_name().unwrap().to_string_lossy().into_owned();
    let mut bytes = std::fs::read(last).unwrap();
    let at = bytes.len() - 100;
    bytes[at] ^= 0x01;
    std::fs::write(last, &bytes).unwrap();

    let out = engram(store, &["verify", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["torn_tail"], Value::Null, "{report}");
    assert_eq!(report["problem"]["segment"], last_name.as_str());
    let bad_seq = report["problem"]["seq"].as_u64().unwrap();
    assert_eq!(report["last_seq"].as_u64().unwrap(), bad_seq - 1);

    let before = crate::support::dir_files(&store.join("log"));
    let out = engram(store, &["expand", &last_id]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let repair = format!("engram repair --truncate-from {bad_seq}");
    assert!(stderr(&out).contains(&repair), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("seq {bad_seq}")),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        crate::support::dir_files(&store.join("log")),
        before,
        "nothing was deleted"
    );

    // Read commands open read-only: they never cut anything either.
    let last_path = last.display().to_string();
    for args in [
        vec!["log"],
        vec!["export"],
        vec!["verify"],
        vec!["inspect", "segment", &last_path],
    ] {
        let out = engram(store, &args);
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        assert_eq!(
            crate::support::dir_files(&store.join("log")),
            before,
            "{args:?}"
        );
    }

    // A cut that would keep the damage is refused, and changes nothing.
    let out = engram(
        store,
        &["repair", "--truncate-from", &(bad_seq + 1).to_string()],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(crate::support::dir_files(&store.join("log")), before);

    let out = engram(
        store,
        &["repair", "--truncate-from", &bad_seq.to_string(), "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let cut: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(cut["last_seq"].as_u64().unwrap(), bad_seq - 1);
    let copy = std::path::PathBuf::from(cut["copy"].as_str().unwrap());
    assert!(copy.starts_with(store), "{}", copy.display());
    // The copy holds the damaged segment as it was, whole.
    assert_eq!(std::fs::read(copy.join(&last_name)).unwrap(), bytes);
    assert!(copy.join("TAIL").exists());
    assert_private_contents(store, "after the repair");

    let out = engram(store, &["verify", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["last_seq"].as_u64().unwrap(), bad_seq - 1);
    // The store takes writes again, from the next seq.
    let out = engram(store, &["remember", "after the repair", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = engram(store, &["log", "--json"]);
    let lines = json_lines(&out.stdout);
    assert_eq!(lines[usize::try_from(bad_seq - 1).unwrap()]["seq"], bad_seq);
    // A log that verifies has nothing to repair.
    let out = engram(store, &["repair", "--truncate-from", "2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no damage to cut"),
        "{}",
        stderr(&out)
    );
}

/// `engram stats --json | head -c 300` panicked with a backtrace (exit
/// 101) once `head` closed the pipe: every command now ends quietly with 0
/// on a closed stdout, whether it prints through `println!` or a writer.
#[test]
fn a_closed_pipe_panicked_with_a_backtrace() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    for i in 0..3 {
        let out = engram(
            &store,
            &["remember", &format!("pipe note {i} about the orchard")],
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    for args in [
        &["stats", "--json"][..],
        &["stats"][..],
        &["log", "--json"][..],
        &["recall", "orchard", "--json"][..],
        &["palace"][..],
    ] {
        // The reading end is closed before the command writes a byte.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_engram"))
            .arg("--store")
            .arg(&store)
            .args(args)
            .env_remove("ENGRAM_HMAC_KEY")
            .env_remove("ENGRAM_HOME")
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let _ = engram(&store, &["daemon", "stop"]);
}

#[test]
fn a_batch_remember_and_an_ingest_piped_carry_no_progress_noise() {
    // Both show a spinner on a terminal; piped (as here, and as a harness
    // reads them), stderr carries none of it and stdout only the answer.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let items: Vec<Value> = (0..200)
        .map(
            |i| serde_json::json!({"content": format!("service {i} deploys on weekday {}", i % 7)}),
        )
        .collect();
    let batch = dir.path().join("batch.json");
    std::fs::write(&batch, serde_json::json!({"items": items}).to_string()).unwrap();
    let transcript = dir.path().join("session.jsonl");
    std::fs::write(
        &transcript,
        "{\"role\": \"user\", \"content\": \"I prefer tabs over spaces.\"}\n\
         {\"role\": \"assistant\", \"content\": \"Noted.\"}\n",
    )
    .unwrap();
    let batch_arg = batch.to_str().unwrap();
    let transcript_arg = transcript.to_str().unwrap();
    for args in [
        &["--in-process", "remember", "--items", batch_arg][..],
        &["--in-process", "remember", "--items", batch_arg, "--json"],
        &["--in-process", "ingest", transcript_arg, "--extract"],
        &["--in-process", "ingest", transcript_arg, "--json"],
    ] {
        let out = engram(&store, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        for noise in ["\r", "\u{1b}", "remembering", "ingesting", "item"] {
            assert!(!err.contains(noise), "{args:?}: {noise:?} in {err:?}");
        }
        if args.contains(&"--json") {
            let _: Value = serde_json::from_slice(&out.stdout).unwrap();
        }
    }
}

#[test]
fn a_batch_says_why_an_item_was_refused_or_discarded() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let batch = crate::support::batch_file(
        dir.path(),
        serde_json::json!([
            {"content": "The billing service listens on port 8080."},
            {"content": "   "},
            {"content": "Can you check whether staging is up?"},
            {"content": "The billing service listens on port 9090."},
        ]),
    );
    let out = engram(
        &store,
        &[
            "--in-process",
            "remember",
            "--items",
            batch.to_str().unwrap(),
        ],
    );
    // An item refused: exit 2, the others answered.
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let lines: Vec<String> = stdout(&out).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(lines[0].starts_with("item 1: new "), "{lines:?}");
    assert!(
        lines[1].starts_with("item 2: error: ") && lines[1].contains("empty"),
        "{lines:?}"
    );
    assert!(
        lines[2].starts_with("item 3: discarded: a question"),
        "{lines:?}"
    );
    assert!(
        lines[3].starts_with("item 4: contradiction ") && lines[3].contains("8080"),
        "{lines:?}"
    );
}

#[test]
fn review_and_maintain_take_a_past_offset_as_their_help_says() {
    let dir = tempfile::tempdir().unwrap();
    store_with_a_memory(dir.path());
    for args in [
        &["review", "--at", "-1h", "--json"][..],
        &["maintain", "--at", "-1h", "--dry-run", "--json"],
    ] {
        let out = engram(dir.path(), args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let _: Value = serde_json::from_str(&stdout(&out)).unwrap();
    }
    // A value that only looks like an offset is the time parser's error.
    let out = engram(dir.path(), &["review", "--at", "-soon"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("an offset is like"),
        "{}",
        stderr(&out)
    );
}

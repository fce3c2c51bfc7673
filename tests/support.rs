//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::sync::Arc;

use engram_log::{Event, HmacKey, Role, SessionEvent};

/// A fixed test key.
pub fn test_key() -> HmacKey {
    HmacKey::from_bytes([0x42; 32])
}

/// A session event with recognisable content.
pub fn session_event(session: &str, turn: u32, content: &str) -> Event {
    Event::Session(SessionEvent {
        session: session.to_owned(),
        turn,
        role: Role::User,
        content: content.to_owned(),
    })
}

/// `Arc`-wraps a storage for `Log::open`.
pub fn arc<S: engram_log::Storage + 'static>(storage: S) -> Arc<dyn engram_log::Storage> {
    Arc::new(storage)
}

/// A seed for a randomized test: `ENGRAM_TEST_SEED` when set, else `default`.
/// Tests print the seed they use so a failure can be replayed.
pub fn seed(default: u64) -> u64 {
    std::env::var("ENGRAM_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// A PRNG for a randomized test, seeded from `ENGRAM_TEST_SEED` or
/// `default`. Prints the seed (shown when the test fails) so a failure can be
/// replayed.
pub fn seeded_rng(test: &str, default: u64) -> rand::rngs::StdRng {
    use rand::SeedableRng as _;
    let seed = seed(default);
    eprintln!("{test}: seed {seed} (replay with ENGRAM_TEST_SEED={seed})");
    rand::rngs::StdRng::seed_from_u64(seed)
}

/// Up to `chars_max` characters mixing ASCII, accented Latin, CJK and emoji,
/// so frames of many sizes and multi-byte UTF-8 are both exercised. Never
/// contains the frame magic `EGFR` (upper case is left out).
pub fn random_text(rng: &mut impl rand::Rng, chars_max: usize) -> String {
    const ALPHABET: &[char] = &[
        'a', 'e', 'n', 't', 'x', ' ', '.', '0', '7', 'é', 'ß', '记', '忆', '茶', '😀', '🦀',
    ];
    let n_chars = rng.random_range(0..=chars_max);
    (0..n_chars)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())])
        .collect()
}

/// A batch of 1..=`n_max` session events of `session`, turns from
/// `first_turn`, contents of random length (up to `chars_max`).
pub fn random_batch(
    rng: &mut impl rand::Rng,
    session: &str,
    first_turn: usize,
    n_max: usize,
    chars_max: usize,
) -> Vec<Event> {
    let n_events = rng.random_range(1..=n_max);
    (0..n_events)
        .map(|i| {
            let turn = u32::try_from(first_turn + i).unwrap_or(u32::MAX);
            session_event(session, turn, &random_text(rng, chars_max))
        })
        .collect()
}

/// Every event of the log, by a full replay that must not fail.
pub fn replay_all(reader: &engram_log::LogReader) -> Vec<engram_log::LoggedEvent> {
    reader
        .replay(1)
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_else(|e| panic!("replay failed: {e}"))
}

/// Asserts that `logged` holds exactly `expected`, at seqs 1, 2, 3, ...
pub fn assert_events(logged: &[engram_log::LoggedEvent], expected: &[Event]) {
    assert_eq!(logged.len(), expected.len(), "number of events");
    for (i, (got, want)) in logged.iter().zip(expected).enumerate() {
        assert_eq!(got.seq, i as u64 + 1, "seqs must be contiguous from 1");
        assert_eq!(&got.event, want, "event at seq {}", got.seq);
    }
}

/// A deep copy of an in-memory folder (clones of a `MemStorage` share files).
pub fn copy_mem(storage: &engram_log::MemStorage) -> engram_log::MemStorage {
    use engram_log::Storage as _;
    let copy = engram_log::MemStorage::new();
    for name in storage.list().unwrap_or_default() {
        if let Some(bytes) = storage.file_bytes(&name) {
            copy.set_file_bytes(&name, bytes);
        }
    }
    copy
}

/// Every file of an in-memory folder with its bytes, for before/after checks.
pub fn mem_files(storage: &engram_log::MemStorage) -> Vec<(String, Vec<u8>)> {
    use engram_log::Storage as _;
    storage
        .list()
        .unwrap_or_default()
        .into_iter()
        .map(|name| {
            let bytes = storage.file_bytes(&name).unwrap_or_default();
            (name, bytes)
        })
        .collect()
}

/// Every file of a real log folder with its bytes, for before/after checks.
/// The writer's lock file is left out: it is the storage's, not the log's.
pub fn dir_files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|entry| entry.file_name() != engram_log::storage::LOCK_FILE_NAME)
                .map(|entry| {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    let bytes = std::fs::read(entry.path()).unwrap_or_default();
                    (name, bytes)
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Writes `items` as a `remember --items` file (`{"items": [...]}`) named
/// `batch.json` in `dir`, and returns its path.
pub fn batch_file(dir: &std::path::Path, items: serde_json::Value) -> std::path::PathBuf {
    let path = dir.join("batch.json");
    std::fs::write(&path, serde_json::json!({ "items": items }).to_string()).unwrap();
    path
}

/// Runs the `engram` binary on store `store` with `args`, with no key or home
/// from the environment.
pub fn engram(store: &std::path::Path, args: &[&str]) -> std::process::Output {
    engram_with(store, &[], args)
}

/// [`engram`] with the variables `env` set.
pub fn engram_with(
    store: &std::path::Path,
    env: &[(&str, &str)],
    args: &[&str],
) -> std::process::Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_engram"));
    command
        .arg("--store")
        .arg(store)
        .args(args)
        .env_remove("ENGRAM_HMAC_KEY")
        .env_remove("ENGRAM_HOME")
        .env_remove("ENGRAM_SEAL")
        .env_remove("ENGRAM_MASTER_KEY");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

/// [`engram`] expecting exit `code`: its stdout and stderr.
#[track_caller]
pub fn engram_expecting(store: &std::path::Path, args: &[&str], code: i32) -> (String, String) {
    exited_with(&engram(store, args), args, code)
}

/// The stdout and stderr of `out`, a run of `engram ARGS` that must have
/// exited with `code` (else the test fails, showing both).
#[track_caller]
pub fn exited_with(out: &std::process::Output, args: &[&str], code: i32) -> (String, String) {
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert_eq!(
        out.status.code(),
        Some(code),
        "engram {args:?}\nstdout: {stdout}\nstderr: {stderr}"
    );
    (stdout, stderr)
}

/// [`engram`] expecting exit 0 and one JSON value on stdout.
#[track_caller]
pub fn engram_json(store: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let (stdout, _) = engram_expecting(store, args, 0);
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// One JSON value per line of `--json` output.
pub fn json_lines(stdout: &[u8]) -> Vec<serde_json::Value> {
    std::str::from_utf8(stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// An optional test's prerequisite is missing (`what`): prints a skip
/// notice, or fails when `require_env` is `1`, as CI sets it, so that a
/// skip there is a failure rather than a silent pass.
#[track_caller]
pub fn skip_unless_required(require_env: &str, what: &str) {
    assert!(
        std::env::var_os(require_env).is_none_or(|v| v != "1"),
        "{require_env}=1 but {what}"
    );
    eprintln!("skipped: {what} (set {require_env}=1 to make this a failure)");
}

/// [`test_key`] as hex, for `ENGRAM_HMAC_KEY` and `KeySource::Hex`.
pub const TEST_KEY_HEX: &str = "4242424242424242424242424242424242424242424242424242424242424242";

/// Store options with the test key and the default (sync) durability.
pub fn keyed_options() -> engram::store::StoreOptions {
    engram::store::StoreOptions {
        key: engram_log::KeySource::Hex(TEST_KEY_HEX.to_owned()),
        ..engram::store::StoreOptions::default()
    }
}

/// The engine on the store folder `dir`, opened with [`keyed_options`].
pub fn open_keyed(dir: &std::path::Path) -> engram::engine::Engram {
    engram::engine::Engram::open(engram::store::Store::at(dir), &keyed_options()).unwrap()
}

/// [`open_keyed`], every view dropped and rebuilt from the log first.
pub fn open_rebuilt(dir: &std::path::Path) -> engram::engine::Engram {
    engram::engine::Engram::open_with(
        engram::store::Store::at(dir),
        &keyed_options(),
        engram_projections::OpenOptions { rebuild: true },
        &|_, _| {},
    )
    .unwrap()
}

/// The ids of recall hits, in order.
pub fn hit_ids(hits: &[engram::Hit]) -> Vec<u64> {
    hits.iter().map(|h| h.id).collect()
}

/// The tail record `bytes` (sealed with [`test_key`]) as a writer leaves
/// it while the log is open: what a crash of the process that had the log
/// open for writing leaves, where a clean close would have said `Closed`.
fn reopened_tail(bytes: &[u8], key: &HmacKey) -> Vec<u8> {
    let record = engram_log::TailRecord::decode(bytes, key).unwrap();
    engram_log::TailRecord {
        state: engram_log::TailState::Open,
        ..record
    }
    .encode(key)
    .to_vec()
}

/// Makes an in-memory log closed at its end look opened there and never
/// closed (a crashed writer): past that end, the crash rules apply.
pub fn mark_crashed_mem(storage: &engram_log::MemStorage) {
    let bytes = storage.file_bytes(engram_log::TAIL_FILE_NAME).unwrap();
    storage.set_file_bytes(
        engram_log::TAIL_FILE_NAME,
        reopened_tail(&bytes, &test_key()),
    );
}

/// [`mark_crashed_mem`] for a log folder written with `key`.
pub fn mark_crashed_dir(dir: &std::path::Path, key: &HmacKey) {
    let path = dir.join(engram_log::TAIL_FILE_NAME);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, reopened_tail(&bytes, key)).unwrap();
}

/// The segment files of a log folder, in seq order.
pub fn segment_paths(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "seg"))
        .collect();
    paths.sort();
    paths
}

/// The offset, within `segment` (a segment file's bytes), of the last byte
/// of the event at `seq`: in a sealed log the words are ciphertext, so a
/// test that damages an event's bytes finds them by frame, not by text.
pub fn event_offset(segment: &[u8], seq: u64) -> Option<usize> {
    use engram_log::format::{EVENT_LEN_PREFIX, FRAME_HEADER_LEN, SEGMENT_HEADER_LEN, parse_frame};
    let mut at = SEGMENT_HEADER_LEN;
    while let Ok(frame) = parse_frame(segment.get(at..)?) {
        let first = frame.header.first_seq;
        if (first..first + u64::from(frame.header.n_events)).contains(&seq) {
            let mut offset = at + FRAME_HEADER_LEN;
            for (s, event) in (first..).zip(frame.events()) {
                let len = event?.len();
                if s == seq {
                    return Some(offset + EVENT_LEN_PREFIX + len - 1);
                }
                offset += EVENT_LEN_PREFIX + len;
            }
        }
        at += frame.len();
    }
    None
}

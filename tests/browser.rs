//! The web panel end to end: `engram serve` on a free loopback port over a
//! seeded store, the panel driven in headless Chromium over the DevTools
//! protocol, and every result checked through the HTTP API.
//!
//! Invariants checked: Today lists a due review without its words; a grade
//! from the panel is recorded (the memory leaves the due list, the audit
//! trail has a `graded` event) and only then may the words be revealed; a
//! verdict from the panel closes the contradiction and lands in the audit
//! trail; an action on a memory forgotten behind the panel's back shows the
//! error notice, records nothing, and leaves the server answering. Search
//! shows a hit and the very context block the API answers; an empty query,
//! empty words to add, a forget without a reason and an unknown id each
//! show an error and change nothing; a memory added in the panel is listed
//! and, forgotten after the confirm step, leaves the list with its reason
//! in the tombstone; the charts draw one point per bucket of the series
//! (the hit rate one per bucket with recalls) with the series' values.
//! Beside a daemon (the server forwarding the API to it): an uploaded
//! transcript is ingested once (a file that is not one shows the API's
//! error and writes nothing), the export link is named by the server,
//! maintenance and distill dry runs write nothing and their apply does.
//! The Palace page shows the corridors as the API answers them: every room
//! once, under its corridor, and every corridor inside its parent; its form
//! moves a room onto a corridor (the tree and the API then agree on the new
//! place), and a placement that would loop shows the API's error, writes
//! nothing and leaves the tree as it was.
//!
//! Chromium is the system's (`/usr/bin/chromium`, Debian's package; nothing
//! is downloaded). Without it the test prints a skip notice, unless
//! `ENGRAM_TEST_REQUIRE_BROWSER=1` (set by CI), where it fails.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use engram::store::Store;
use engram_commands::memory::{MemoryMeta, note_event, remembered};
use engram_log::{
    Event, HmacKey, KeySource, Log, LogConfig, ManualClock, MemoryRef, RecallFilters, RecallHit,
    Recalled,
};
use engram_projections::models::review::DAY_MS;
use headless_chrome::{Browser, LaunchOptions, Tab};
use serde_json::{Value, json};

use crate::server::Server;
use crate::support::skip_unless_required;

const CHROMIUM: &str = "/usr/bin/chromium";
/// How long any one condition may take to become true.
const WAIT: Duration = Duration::from_secs(20);
/// The flags the panel test starts Chromium with (besides the profile folder
/// and the debugging port, which the driver adds).
const CHROMIUM_FLAGS: [&str; 7] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// Words of the two memories seeded as due: the panel must not show them
/// before a grade.
const GRADED_WORDS: &str = "The office kettle descales itself every Thursday at noon.";
const FORGOTTEN_WORDS: &str = "The parking barrier code changes when the quarter turns.";

/// Chromium's path, or `None` (after a skip notice) when it is missing and
/// not required.
fn chromium() -> Option<PathBuf> {
    let path = Path::new(CHROMIUM);
    if path.exists() {
        return Some(path.to_path_buf());
    }
    skip_unless_required(
        "ENGRAM_TEST_REQUIRE_BROWSER",
        &format!(
            "there is no Chromium at {CHROMIUM}: install Debian's `chromium` package (.ci/run does)"
        ),
    );
    None
}

/// Remembers `texts` as if `days_ago` days had passed since: the session
/// turns and sealed `Remembered` events are written straight to the store's
/// log with a clock set back. A memory is first due for review one day after
/// its `Remembered` commit time, and even a failed grade puts the next review
/// a day later, so nothing written at today's time is due now. Must run
/// before anything else is written (commit times never go backwards).
fn remember_days_ago(store: &Path, days_ago: u64, texts: &[&str]) -> Vec<u64> {
    std::fs::create_dir_all(store).unwrap();
    let key = KeySource::StoreFile.load(store, true).unwrap();
    let then = engram::engine::now_ms() - days_ago * DAY_MS;
    let config = LogConfig::new(key.clone()).clock(Arc::new(ManualClock::new(then)));
    let log = Log::open_dir(&Store::at(store).log_dir(), config).unwrap();
    let ids = (0u32..)
        .zip(texts)
        .map(|(turn, text)| seal_note(&log, &key, turn, text))
        .collect();
    log.close().unwrap();
    ids
}

/// Writes `text` as turn `turn` of the session `seed` and the sealed
/// `Remembered` over it (room `office`); the memory's id.
fn seal_note(log: &Log, key: &HmacKey, turn: u32, text: &str) -> u64 {
    let note = note_event("seed", turn, text).unwrap();
    let seq = log.append_one(&Event::Session(note)).unwrap();
    let reference = MemoryRef {
        session: "seed".to_owned(),
        first_seq: seq,
        last_seq: seq,
    };
    let events = log.read(seq..=seq).unwrap();
    let meta = MemoryMeta {
        room: Some("office".to_owned()),
        ..MemoryMeta::default()
    };
    let hash = engram::log::seal::content_sha256(events.iter().map(|e| &e.event)).unwrap();
    let memory = remembered(key, reference, hash, meta);
    log.append_one(&Event::Remembered(memory)).unwrap()
}

/// Words of the memory the panel searches for.
const SEARCHED_WORDS: &str = "The staging database listens on port 5433 behind the bastion.";

/// Seeds `store` as if three days had passed since: the searched memory,
/// then recall evidence in two buckets of the series (an hour later a
/// recall that found it and one that found nothing; a day after that one
/// more that found it). Returns the memory's id. Must run first (commit
/// times never go backwards).
fn seed_recalls(store: &Path) -> u64 {
    std::fs::create_dir_all(store).unwrap();
    let key = KeySource::StoreFile.load(store, true).unwrap();
    let clock = Arc::new(ManualClock::new(engram::engine::now_ms() - 3 * DAY_MS));
    let config = LogConfig::new(key.clone()).clock(clock.clone());
    let log = Log::open_dir(&Store::at(store).log_dir(), config).unwrap();
    let id = seal_note(&log, &key, 0, SEARCHED_WORDS);
    let recalled = |hits: &[u64]| {
        Event::Recalled(Recalled {
            query: "staging database port".to_owned(),
            filters: RecallFilters {
                room: None,
                tier: None,
                tags: Vec::new(),
                scope: None,
                limit: 5,
            },
            hits: hits
                .iter()
                .map(|&memory| RecallHit {
                    memory,
                    score_micros: 1_000_000,
                })
                .collect(),
            mode: "keyword".to_owned(),
        })
    };
    clock.advance(Duration::from_secs(3600));
    log.append_one(&recalled(&[id])).unwrap();
    log.append_one(&recalled(&[])).unwrap();
    clock.advance(Duration::from_secs(24 * 3600));
    log.append_one(&recalled(&[id])).unwrap();
    log.close().unwrap();
    id
}

/// The ids `GET /api/review` lists as due (`query` like `?at=+1h`).
fn due_ids(server: &Server, query: &str) -> Vec<u64> {
    server.get(&format!("/api/review{query}")).ok()["due"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| seq(&d["id"]))
        .collect()
}

/// The seq of a memory id the server hands out (`s:7` for a --store folder).
fn seq(id: &Value) -> u64 {
    id.as_str()
        .and_then(|id| id.strip_prefix("s:"))
        .and_then(|seq| seq.parse().ok())
        .unwrap_or_else(|| panic!("not a store id: {id}"))
}

/// The kinds in a memory's audit history, in seq order.
fn audit_kinds(server: &Server, id: u64) -> Vec<String> {
    server.get(&format!("/api/memories/{id}/audit")).ok()["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_owned())
        .collect()
}

/// Headless Chromium with the test's flags and a fresh profile folder (and
/// temporary folder) under `scratch`; closed on drop.
fn launch(chromium: PathBuf, scratch: &Path) -> Browser {
    let profile = scratch.join("profile");
    let tmp = scratch.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let options = LaunchOptions::default_builder()
        .path(Some(chromium))
        .headless(true)
        .sandbox(false)
        .enable_gpu(false)
        .disable_default_args(true)
        .args(CHROMIUM_FLAGS.iter().map(OsStr::new).collect())
        .user_data_dir(Some(profile))
        .window_size(Some((1280, 900)))
        .idle_browser_timeout(Duration::from_secs(120))
        .process_envs(Some(
            [("TMPDIR".to_owned(), tmp.display().to_string())].into(),
        ))
        .build()
        .unwrap();
    Browser::new(options).unwrap_or_else(|e| panic!("starting Chromium: {e:#}"))
}

/// Evaluates `js` in the page and returns its JSON value (null if none).
fn eval(tab: &Tab, js: &str) -> Value {
    tab.evaluate(js, false)
        .unwrap_or_else(|e| panic!("evaluating {js}: {e:#}"))
        .value
        .unwrap_or(Value::Null)
}

/// Polls `js` until it is `true`, up to [`WAIT`]; fails naming `what` and
/// the page's readiness and notices.
fn wait_until(tab: &Tab, what: &str, js: &str) {
    let deadline = Instant::now() + WAIT;
    loop {
        if eval(tab, js) == Value::Bool(true) {
            return;
        }
        if Instant::now() > deadline {
            let page = eval(
                tab,
                "JSON.stringify({ready: document.body.dataset.ready || null, \
                 url: location.href, notices: document.querySelector('#notices')?.innerText})",
            );
            panic!("waited {WAIT:?} for {what}; page: {page}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The condition that view `view` finished loading or acting.
fn ready(view: &str) -> String {
    format!("document.body.dataset.ready === '{view}'")
}

fn page_contains(tab: &Tab, words: &str) -> bool {
    let js = format!(
        "document.documentElement.outerHTML.includes({})",
        json!(words)
    );
    eval(tab, &js) == Value::Bool(true)
}

fn click(tab: &Tab, selector: &str) {
    tab.find_element(selector)
        .unwrap_or_else(|e| panic!("no element {selector}: {e:#}"))
        .click()
        .unwrap_or_else(|e| panic!("clicking {selector}: {e:#}"));
}

/// The answer of `engram remember TEXT --json` on `store`.
fn remember_cli(store: &Path, text: &str) -> Value {
    let out = crate::support::engram(store, &["remember", text, "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    crate::support::json_lines(&out.stdout).remove(0)
}

#[test]
fn the_panel_grades_a_review_and_decides_a_verdict() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let due = remember_days_ago(&store, 2, &[GRADED_WORDS, FORGOTTEN_WORDS]);
    let (graded, forgotten) = (due[0], due[1]);
    let first = remember_cli(&store, "The user prefers green tea in the morning.");
    let second = remember_cli(&store, "The user does not like green tea in the morning.");
    assert_eq!(second["outcome"], "contradiction", "{second}");
    assert_eq!(second["related"], first["id"], "{second}");
    let (a, b) = (seq(&first["id"]), seq(&second["id"]));

    let server = Server::start(&store, "127.0.0.1:0", &[]);
    assert_eq!(
        due_ids(&server, ""),
        [graded, forgotten],
        "seeded reviews due now"
    );
    let verdicts = server.get("/api/verdicts").ok();
    let open = verdicts["open"].as_array().unwrap();
    assert_eq!(open.len(), 1, "{verdicts}");
    let (kept, lost) = (seq(&open[0]["a"]), seq(&open[0]["b"]));
    let mut pair = [kept, lost];
    pair.sort_unstable();
    assert_eq!(pair, [a, b], "{verdicts}");

    let browser = launch(chromium, &dir.path().join("chromium"));
    let tab = browser.new_tab().unwrap();
    tab.navigate_to(&server.url("/#/today"))
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    wait_until(&tab, "Today to load", &ready("today"));
    let item = |id: u64| format!("[data-testid=\"review-item\"][data-id=\"s:{id}\"]");
    for id in [graded, forgotten] {
        let due_item = format!("{}[data-state=\"due\"]", item(id));
        let js = format!("document.querySelector({}) !== null", json!(due_item));
        assert_eq!(
            eval(&tab, &js),
            Value::Bool(true),
            "memory {id} listed as due"
        );
    }
    for words in [GRADED_WORDS, FORGOTTEN_WORDS] {
        assert!(
            !page_contains(&tab, words),
            "a due memory's words are in the page before grading: {words}"
        );
    }

    // Grade one review from the panel.
    click(&tab, &format!("{} [data-testid=\"grade-4\"]", item(graded)));
    let graded_state = format!("{}[data-state=\"graded\"]", item(graded));
    wait_until(
        &tab,
        "the review to be graded",
        &format!(
            "document.querySelector({}) !== null && {}",
            json!(graded_state),
            ready("today")
        ),
    );
    assert!(!page_contains(&tab, GRADED_WORDS), "words shown unasked");
    // A grade of 4 on a first review puts the next one a day later: not due
    // within the hour, while the other seeded memory still is.
    assert_eq!(due_ids(&server, "?at=%2B1h"), [forgotten]);
    assert!(
        audit_kinds(&server, graded).contains(&"graded".to_owned()),
        "{:?}",
        audit_kinds(&server, graded)
    );
    // Once graded, the words may be revealed (verified by the server).
    click(&tab, &format!("{} [data-testid=\"reveal\"]", item(graded)));
    wait_until(
        &tab,
        "the words to be revealed",
        &format!(
            "document.querySelector({})?.innerText.includes({}) === true && {}",
            json!(format!("{} [data-testid=\"revealed\"]", item(graded))),
            json!(GRADED_WORDS),
            ready("today")
        ),
    );

    // Forget the other memory behind the panel's back, then grade it there.
    server
        .post(
            &format!("/api/memories/{forgotten}/forget"),
            &json!({"reason": "behind the panel's back"}),
        )
        .ok();
    click(
        &tab,
        &format!("{} [data-testid=\"grade-3\"]", item(forgotten)),
    );
    wait_until(
        &tab,
        "the error notice",
        &format!(
            "document.querySelector('[data-testid=\"error\"]') !== null && {}",
            ready("today")
        ),
    );
    let message = eval(
        &tab,
        "document.querySelector('[data-testid=\"error-message\"]').innerText",
    );
    assert!(
        message
            .as_str()
            .is_some_and(|m| m.contains(&forgotten.to_string())),
        "the notice names the memory: {message}"
    );
    let js = format!(
        "document.querySelector({}) === null",
        json!(item(forgotten))
    );
    assert_eq!(
        eval(&tab, &js),
        Value::Bool(true),
        "forgotten item left listed"
    );
    assert!(!audit_kinds(&server, forgotten).contains(&"graded".to_owned()));
    let health = server.get("/api/health").ok();
    assert_eq!(health["ok"], true, "{health}");

    // Decide the open contradiction from the panel: keep A.
    eval(&tab, "location.hash = '#/verdicts'; true");
    let row = format!("[data-testid=\"verdict\"][data-a=\"s:{kept}\"][data-b=\"s:{lost}\"]");
    wait_until(
        &tab,
        "the open contradiction to be listed",
        &format!(
            "document.querySelector({}) !== null && {}",
            json!(row),
            ready("verdicts")
        ),
    );
    click(&tab, &format!("{row} [data-testid=\"verdict-keep-a\"]"));
    wait_until(
        &tab,
        "the decided contradiction to leave the list",
        &format!(
            "document.querySelector({}) === null && \
             document.querySelector('[data-testid=\"verdicts-empty\"]') !== null && {}",
            json!(row),
            ready("verdicts")
        ),
    );
    let verdicts = server.get("/api/verdicts").ok();
    assert_eq!(verdicts["open"], json!([]), "{verdicts}");
    for id in [kept, lost] {
        let kinds = audit_kinds(&server, id);
        assert!(
            kinds.contains(&"verdict_recorded".to_owned()),
            "{id}: {kinds:?}"
        );
    }
    // Keep A: only A still comes back from recall.
    let recalled = server
        .post("/api/recall", &json!({"query": "green tea morning"}))
        .ok();
    let hits: Vec<u64> = recalled["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| seq(&h["id"]))
        .collect();
    assert_eq!(hits, [kept], "{recalled}");
    drop(browser);
    drop(server);
}

/// The text of the error notice, once it shows (after the view is ready).
fn error_notice(tab: &Tab, view: &str) -> String {
    wait_until(
        tab,
        "the error notice",
        &format!(
            "document.querySelector('[data-testid=\"error-message\"]') !== null && {}",
            ready(view)
        ),
    );
    eval(
        tab,
        "document.querySelector('[data-testid=\"error-message\"]').innerText",
    )
    .as_str()
    .unwrap_or_default()
    .to_owned()
}

/// Types `text` into the (emptied) field `selector`.
fn type_into(tab: &Tab, selector: &str, text: &str) {
    let js = format!(
        "document.querySelector({}).value = ''; true",
        json!(selector)
    );
    eval(tab, &js);
    tab.find_element(selector)
        .unwrap_or_else(|e| panic!("no element {selector}: {e:#}"))
        .type_into(text)
        .unwrap_or_else(|e| panic!("typing into {selector}: {e:#}"));
}

/// Goes to `hash` and waits for `view` to be ready.
fn open(tab: &Tab, hash: &str, view: &str) {
    eval(tab, &format!("location.hash = {}; true", json!(hash)));
    wait_until(
        tab,
        &format!("{view} to load"),
        &format!("location.hash === {} && {}", json!(hash), ready(view)),
    );
}

/// The numbers in `data-value` of the points of chart `series`, in order.
fn chart_values(tab: &Tab, series: &str) -> Vec<f64> {
    let js = format!(
        "JSON.stringify([...document.querySelectorAll('[data-testid=\"chart\"][data-series=\"{series}\"] [data-testid=\"chart-point\"]')].map((e) => Number(e.dataset.value)))"
    );
    let text = eval(tab, &js);
    serde_json::from_str(text.as_str().unwrap()).unwrap()
}

#[test]
fn the_panel_searches_adds_forgets_and_charts_the_log() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let searched = seed_recalls(&store);
    let server = Server::start(&store, "127.0.0.1:0", &[]);
    let browser = launch(chromium, &dir.path().join("chromium"));
    let tab = browser.new_tab().unwrap();
    tab.navigate_to(&server.url("/#/search"))
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    wait_until(&tab, "Search to load", &ready("search"));

    // Search: nothing typed is refused in the page; a query shows its hit
    // and the context block an agent gets.
    click(&tab, "[data-testid=\"search-submit\"]");
    let message = error_notice(&tab, "search");
    assert!(message.contains("Type what to look for"), "{message}");
    type_into(
        &tab,
        "[data-testid=\"search-query\"]",
        "staging database port",
    );
    click(&tab, "[data-testid=\"search-submit\"]");
    let hit = format!("[data-testid=\"search-hit\"][data-id=\"s:{searched}\"]");
    wait_until(
        &tab,
        "the hit and the context block",
        &format!(
            "document.querySelector({}) !== null && \
             document.querySelector('[data-testid=\"search-context\"]')?.textContent.includes('<engram_memory_context>') === true && {}",
            json!(hit),
            ready("search")
        ),
    );
    let context = eval(
        &tab,
        "document.querySelector('[data-testid=\"search-context\"]').textContent",
    );
    let recalled = server
        .post(
            "/api/recall",
            &json!({"query": "staging database port", "limit": 5}),
        )
        .ok();
    assert_eq!(context, recalled["context"], "the block shown is the API's");
    assert!(
        context.as_str().unwrap().contains(SEARCHED_WORDS),
        "{context}"
    );
    let status = eval(
        &tab,
        &format!("document.querySelector({}).dataset.status", json!(hit)),
    );
    assert_eq!(status, recalled["hits"][0]["status"]);
    // The API's recall above was one more recall in this bucket.

    // Add: empty words are refused; words typed appear in the list.
    open(&tab, "#/memories", "memories");
    click(&tab, "[data-testid=\"add-submit\"]");
    let message = error_notice(&tab, "memories");
    assert!(message.contains("Write the words"), "{message}");
    let added_words = "The release train leaves every second Wednesday at noon.";
    type_into(&tab, "[data-testid=\"add-text\"]", added_words);
    type_into(&tab, "[data-testid=\"add-tags\"]", "release, cadence");
    click(&tab, "[data-testid=\"add-submit\"]");
    wait_until(
        &tab,
        "the added memory to be listed",
        &format!(
            "document.querySelector('[data-testid=\"memory-row\"]')?.innerText.includes({}) === true && {}",
            json!(added_words),
            ready("memories")
        ),
    );
    let listed = server.get("/api/memories?tag=release").ok();
    let memories = listed["memories"].as_array().unwrap();
    assert_eq!(memories.len(), 1, "{listed}");
    assert_eq!(memories[0]["text"], added_words, "{listed}");
    assert_eq!(
        memories[0]["tags"],
        json!(["release", "cadence"]),
        "{listed}"
    );
    let added = seq(&memories[0]["id"]);
    let row = format!("[data-testid=\"memory-row\"][data-id=\"s:{added}\"]");
    let js = format!("document.querySelector({}) !== null", json!(row));
    assert_eq!(eval(&tab, &js), Value::Bool(true), "row of s:{added}");

    // Forget: a confirm step that wants a reason; then the row leaves the
    // list and the tombstone keeps the reason.
    click(&tab, &format!("{row} [data-testid=\"memory-forget\"]"));
    wait_until(
        &tab,
        "the confirm step",
        &format!(
            "document.querySelector({}) !== null",
            json!(format!("{row} [data-testid=\"forget-confirm\"]"))
        ),
    );
    assert_eq!(
        server.get(&format!("/api/memories/{added}")).ok()["status"],
        "live",
        "nothing forgotten before the confirm"
    );
    click(&tab, &format!("{row} [data-testid=\"forget-confirm\"]"));
    let message = error_notice(&tab, "memories");
    assert!(message.contains("Give a reason"), "{message}");
    assert_eq!(
        server.get(&format!("/api/memories/{added}")).ok()["status"],
        "live"
    );
    type_into(
        &tab,
        &format!("{row} [data-testid=\"forget-reason\"]"),
        "the cadence changed",
    );
    click(&tab, &format!("{row} [data-testid=\"forget-confirm\"]"));
    wait_until(
        &tab,
        "the forgotten memory to leave the list",
        &format!(
            "document.querySelector({}) === null && \
             document.querySelector('[data-testid=\"info-message\"]')?.innerText.includes('Forgot') === true && {}",
            json!(row),
            ready("memories")
        ),
    );
    assert_eq!(
        server.get(&format!("/api/memories/{added}")).ok()["status"],
        "forgotten"
    );
    let tombstones = server
        .get(&format!("/api/log?memory={added}&kind=forgotten"))
        .ok();
    assert_eq!(
        tombstones["events"][0]["reason"], "the cadence changed",
        "{tombstones}"
    );
    // Shown again with the forgotten filter.
    open(&tab, "#/memories?status=forgotten", "memories");
    let js = format!("document.querySelector({})?.dataset.status", json!(row));
    assert_eq!(eval(&tab, &js), "forgotten");

    // An unknown id: the memory page says so and shows the API's error.
    open(&tab, "#/memory/s:999", "memory");
    let js = "document.querySelector('[data-testid=\"memory-missing\"]') !== null";
    assert_eq!(eval(&tab, js), Value::Bool(true));
    let message = error_notice(&tab, "memory");
    assert!(message.contains("no memory with id"), "{message}");

    // Charts: one hit-rate point per bucket with recalls, the values the
    // series query computed from the log.
    open(&tab, "#/charts", "charts");
    let series = server.get("/api/series").ok();
    let points = series["points"].as_array().unwrap();
    let recalls: Vec<f64> = points
        .iter()
        .map(|p| p["recalls"].as_f64().unwrap())
        .collect();
    let rates: Vec<f64> = points
        .iter()
        .filter_map(|p| p["hit_rate"].as_f64())
        .collect();
    // Seeded: two buckets with recalls (1 of 2 found something, then 1 of
    // 1); now: the panel's search and the API's, both finding it.
    assert_eq!(rates, [0.5, 1.0, 1.0], "{series}");
    assert_eq!(recalls.iter().sum::<f64>(), 5.0, "{series}");
    assert!(points.len() > rates.len(), "{series}");
    assert_eq!(chart_values(&tab, "hit_rate"), rates);
    assert_eq!(chart_values(&tab, "recalls"), recalls);
    let lives: Vec<f64> = points.iter().map(|p| p["live"].as_f64().unwrap()).collect();
    assert_eq!(chart_values(&tab, "live"), lives);
    assert_eq!(lives.first(), Some(&1.0), "{series}");
    // The added memory was forgotten again: one live memory at the end.
    assert_eq!(lives.last(), Some(&1.0), "{series}");
    assert_eq!(chart_values(&tab, "health").len(), points.len());
    drop(browser);
    drop(server);
}

/// `engram remember TEXT --room ROOM [extra...] --json` on `store`: the id's seq.
fn remember_in(store: &Path, text: &str, room: &str, extra: &[&str]) -> u64 {
    let mut args = vec!["remember", text, "--room", room, "--json"];
    args.extend_from_slice(extra);
    let out = crate::support::engram(store, &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    seq(&crate::support::json_lines(&out.stdout).remove(0)["id"])
}

#[test]
fn the_panel_ingests_an_upload_and_dry_runs_maintenance_and_distill() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let a = remember_in(
        &store,
        "Deploys to production need two reviewers.",
        "deploys",
        &[],
    );
    let b = remember_in(
        &store,
        "Hotfix deploys skip staging but still need two reviewers.",
        "deploys",
        &[],
    );
    let expiring = remember_in(
        &store,
        "The visitor badge for Mateo is valid this week only.",
        "office",
        &["--ttl", "1s"],
    );
    let transcript = dir.path().join("session.jsonl");
    std::fs::write(
        &transcript,
        "{\"role\":\"user\",\"content\":\"I prefer dark roast coffee in the morning.\"}\n\
         {\"role\":\"assistant\",\"content\":\"Noted: dark roast in the morning.\"}\n",
    )
    .unwrap();
    let garbage = dir.path().join("garbage.jsonl");
    std::fs::write(&garbage, "this is not a transcript\n").unwrap();

    // The CLI above started a daemon: this server forwards the API to it,
    // and the panel works the same.
    let server = Server::start(&store, "127.0.0.1:0", &[]);
    assert!(
        server
            .stderr
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains("through its owner")),
        "{:?}",
        server.stderr.lock().unwrap()
    );
    let browser = launch(chromium, &dir.path().join("chromium"));
    let tab = browser.new_tab().unwrap();
    tab.navigate_to(&server.url("/#/data"))
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    wait_until(&tab, "Data to load", &ready("data"));
    let last_seq =
        |server: &Server| server.post("/api/settle", &json!({})).ok()["last_seq"].clone();

    // Ingest: no file, then a file that is not a transcript (the API's
    // message, nothing written), then the transcript, twice.
    let before = last_seq(&server);
    click(&tab, "[data-testid=\"ingest-submit\"]");
    let message = error_notice(&tab, "data");
    assert!(message.contains("Choose a transcript file"), "{message}");
    let input = tab.find_element("[data-testid=\"ingest-file\"]").unwrap();
    input.set_input_files(&[garbage.to_str().unwrap()]).unwrap();
    click(&tab, "[data-testid=\"ingest-submit\"]");
    let message = error_notice(&tab, "data");
    assert!(message.contains("line 1"), "{message}");
    assert_eq!(last_seq(&server), before, "a refused upload wrote");
    input
        .set_input_files(&[transcript.to_str().unwrap()])
        .unwrap();
    type_into(&tab, "[data-testid=\"ingest-session\"]", "upload-1");
    for new_turns in [2, 0] {
        click(&tab, "[data-testid=\"ingest-submit\"]");
        let summary = format!(
            "[data-testid=\"ingest-summary\"][data-session=\"upload-1\"][data-new-turns=\"{new_turns}\"]"
        );
        wait_until(
            &tab,
            "the ingest summary",
            &format!(
                "document.querySelector({}) !== null && {}",
                json!(summary),
                ready("data")
            ),
        );
    }
    let turns = server.get("/api/log?session=upload-1&kind=session").ok();
    assert_eq!(turns["events"].as_array().unwrap().len(), 2, "{turns}");
    let coffee = server
        .post("/api/recall", &json!({"query": "dark roast coffee"}))
        .ok();
    assert!(
        !coffee["hits"].as_array().unwrap().is_empty(),
        "the extracted preference is recallable: {coffee}"
    );
    // The export: a link the browser saves, the server naming the file.
    let js = "document.querySelector('[data-testid=\"export-link\"]')?.getAttribute('href')";
    assert_eq!(eval(&tab, js), "api/export");
    let export = server.get("/api/export");
    assert!(
        export
            .header("content-disposition")
            .is_some_and(|d| d.starts_with("attachment; filename=\"engram-store-1-")),
        "{:?}",
        export.headers
    );

    // Maintenance: the dry run lists the expired memory and archives
    // nothing; apply archives it.
    open(&tab, "#/maintain", "maintain");
    let js = "document.querySelector('[data-testid=\"maintain-apply\"]').disabled";
    assert_eq!(eval(&tab, js), Value::Bool(true), "apply before a dry run");
    type_into(&tab, "[data-testid=\"maintain-at\"]", "+1d");
    click(&tab, "[data-testid=\"maintain-dry-run\"]");
    let archive = format!("[data-testid=\"maintain-archive\"][data-id=\"s:{expiring}\"]");
    wait_until(
        &tab,
        "the dry run's plan",
        &format!(
            "document.querySelector({}) !== null && \
             document.querySelector('[data-testid=\"maintain-summary\"]')?.dataset.dryRun === 'true' && {}",
            json!(archive),
            ready("maintain")
        ),
    );
    assert_eq!(
        server.get(&format!("/api/memories/{expiring}")).ok()["status"],
        "live",
        "a dry run archived"
    );
    click(&tab, "[data-testid=\"maintain-apply\"]");
    wait_until(
        &tab,
        "maintenance to run",
        &format!(
            "document.querySelector('[data-testid=\"maintain-summary\"]')?.dataset.dryRun === 'false' && {}",
            ready("maintain")
        ),
    );
    assert_eq!(
        server.get(&format!("/api/memories/{expiring}")).ok()["status"],
        "archived"
    );

    // Distill: the cluster of the two deploy memories; an empty rule is
    // refused, a dry run writes nothing, then the rule is recorded.
    let cluster = format!("[data-testid=\"distill-cluster\"][data-members=\"s:{a},s:{b}\"]");
    let js = format!("document.querySelector({}) !== null", json!(cluster));
    assert_eq!(eval(&tab, &js), Value::Bool(true), "the cluster is listed");
    click(
        &tab,
        &format!("{cluster} [data-testid=\"distill-dry-run\"]"),
    );
    let message = error_notice(&tab, "maintain");
    assert!(message.contains("Write the rule"), "{message}");
    type_into(
        &tab,
        &format!("{cluster} [data-testid=\"distill-rule\"]"),
        "Every production deploy needs two reviewers.",
    );
    let before = last_seq(&server);
    click(
        &tab,
        &format!("{cluster} [data-testid=\"distill-dry-run\"]"),
    );
    wait_until(
        &tab,
        "the distill plan",
        &format!(
            "document.querySelector({})?.innerText.includes('Would record in room deploys') === true && \
             !document.querySelector({}).disabled && {}",
            json!(format!("{cluster} [data-testid=\"distill-plan\"]")),
            json!(format!("{cluster} [data-testid=\"distill-apply\"]")),
            ready("maintain")
        ),
    );
    assert_eq!(last_seq(&server), before, "a dry run wrote");
    click(&tab, &format!("{cluster} [data-testid=\"distill-apply\"]"));
    wait_until(
        &tab,
        "the rule to be recorded",
        &format!(
            "document.querySelector({})?.innerText.includes('Recorded as') === true && {}",
            json!(format!("{cluster} [data-testid=\"distill-plan\"]")),
            ready("maintain")
        ),
    );
    let rules = server.get("/api/memories?tag=rule").ok();
    let rules = rules["memories"].as_array().unwrap();
    assert_eq!(rules.len(), 1, "{rules:?}");
    assert_eq!(
        rules[0]["text"],
        "Every production deploy needs two reviewers."
    );
    drop(browser);
    drop(server);
}

/// `engram --in-process ARGS` on `store`, which must succeed.
fn in_process(store: &Path, args: &[&str]) {
    let mut all = vec!["--in-process"];
    all.extend_from_slice(args);
    let out = crate::support::engram(store, &all);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What the Palace page shows: the corridor section each room card sits
/// in, the corridor section each corridor section sits in (null at the
/// top), and how many room cards there are.
fn palace_shown(tab: &Tab) -> Value {
    let js = "(() => { \
        const around = (e) => e.parentElement.closest('[data-testid=\"corridor\"]')?.dataset.corridor ?? null; \
        const rooms = [...document.querySelectorAll('[data-testid=\"room\"]')]; \
        const corridors = [...document.querySelectorAll('[data-testid=\"corridor\"]')]; \
        return JSON.stringify({ \
            rooms: Object.fromEntries(rooms.map((e) => [e.dataset.room, around(e)])), \
            corridors: Object.fromEntries(corridors.map((e) => [e.dataset.corridor, around(e)])), \
            n_rooms: rooms.length }); })()";
    let text = eval(tab, js);
    serde_json::from_str(text.as_str().unwrap()).unwrap()
}

/// [`palace_shown`] as `GET /api/palace` says it should be: every room
/// under its corridor, every corridor inside its parent.
fn palace_expected(server: &Server) -> Value {
    let palace = server.get("/api/palace").ok();
    let rooms = palace["rooms"].as_array().unwrap();
    let corridors = palace["corridors"].as_array().unwrap();
    json!({
        "rooms": rooms
            .iter()
            .map(|r| (r["room"].as_str().unwrap().to_owned(), r["corridor"].clone()))
            .collect::<serde_json::Map<_, _>>(),
        "corridors": corridors
            .iter()
            .map(|c| (c["corridor"].as_str().unwrap().to_owned(), c["inside"].clone()))
            .collect::<serde_json::Map<_, _>>(),
        "n_rooms": rooms.len(),
    })
}

#[test]
fn the_panel_shows_corridors_as_a_tree_and_places_a_room_on_one() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    for (text, room) in [
        ("The billing service listens on port 8080.", "billing"),
        ("The user drinks green tea at 9am on weekdays.", "tea"),
        ("Zorblax quibbles over the frobnicated widgets.", "zorblax"),
    ] {
        in_process(&store, &["remember", text, "--room", room]);
    }
    in_process(&store, &["palace", "corridor", "tea", "--into", "kitchen"]);
    in_process(
        &store,
        &[
            "palace", "corridor", "kitchen", "--into", "home", "--kind", "corridor",
        ],
    );

    let server = Server::start(&store, "127.0.0.1:0", &[]);
    let browser = launch(chromium, &dir.path().join("chromium"));
    let tab = browser.new_tab().unwrap();
    tab.navigate_to(&server.url("/#/palace"))
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    wait_until(&tab, "Palace to load", &ready("palace"));

    // The tree: every room once, under the corridor the API names, and
    // each corridor inside its parent; tea on kitchen, kitchen in home.
    let shown = palace_shown(&tab);
    assert_eq!(shown, palace_expected(&server));
    assert_eq!(shown["n_rooms"], 3, "{shown}");
    assert_eq!(shown["rooms"]["tea"], "kitchen", "{shown}");
    assert_eq!(shown["corridors"]["kitchen"], "home", "{shown}");
    assert_eq!(shown["corridors"]["home"], Value::Null, "{shown}");
    assert_ne!(shown["rooms"]["billing"], "kitchen", "{shown}");
    let kitchen = "document.querySelector('[data-testid=\"corridor\"][data-corridor=\"kitchen\"]')";
    let js = format!("{kitchen}.dataset.inside + ' ' + {kitchen}.dataset.placedBy");
    assert_eq!(eval(&tab, &js), "home user");
    let link =
        "document.querySelector('[data-testid=\"room\"][data-room=\"tea\"]').getAttribute('href')";
    assert_eq!(eval(&tab, link), "#/palace/tea");

    // Nothing named: refused in the page.
    click(&tab, "[data-testid=\"corridor-submit\"]");
    let message = error_notice(&tab, "palace");
    assert!(message.contains("Name the room or corridor"), "{message}");

    // The form moves billing onto kitchen: the tree shows it there, and
    // so does the API.
    type_into(&tab, "[data-testid=\"corridor-name\"]", "billing");
    type_into(&tab, "[data-testid=\"corridor-into\"]", "kitchen");
    click(&tab, "[data-testid=\"corridor-submit\"]");
    wait_until(
        &tab,
        "billing to show on kitchen",
        &format!(
            "document.querySelector('[data-testid=\"room\"][data-room=\"billing\"]')\
             ?.parentElement.closest('[data-testid=\"corridor\"]')?.dataset.corridor === 'kitchen' && \
             document.querySelector('[data-testid=\"info-message\"]')?.innerText.includes('now on corridor kitchen') === true && {}",
            ready("palace")
        ),
    );
    let palace = server.get("/api/palace").ok();
    let mut on_kitchen: Vec<&str> = palace["corridors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["corridor"] == "kitchen")
        .and_then(|c| c["rooms"].as_array())
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    on_kitchen.sort_unstable();
    assert_eq!(on_kitchen, ["billing", "tea"], "{palace}");
    let shown = palace_shown(&tab);
    assert_eq!(shown, palace_expected(&server));

    // A loop (home inside kitchen, which is inside home): the API's error,
    // nothing written, the tree unchanged.
    let last_seq =
        |server: &Server| server.post("/api/settle", &json!({})).ok()["last_seq"].clone();
    let before = last_seq(&server);
    type_into(&tab, "[data-testid=\"corridor-name\"]", "home");
    eval(
        &tab,
        "document.querySelector('[data-testid=\"corridor-kind\"]').value = 'corridor'; true",
    );
    type_into(&tab, "[data-testid=\"corridor-into\"]", "kitchen");
    click(&tab, "[data-testid=\"corridor-submit\"]");
    let message = error_notice(&tab, "palace");
    assert!(message.contains("would loop"), "{message}");
    assert_eq!(last_seq(&server), before, "a refused placement wrote");
    assert_eq!(server.get("/api/palace").ok(), palace);
    assert_eq!(palace_shown(&tab), shown, "the tree changed");
    drop(browser);
    drop(server);
}

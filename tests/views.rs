//! The projection runtime and the core views: determinism, incremental
//! equals rebuild, tail-only restart, rebuild on a version change or a
//! damaged database, read-your-writes under concurrent writers, as-of views.

use std::sync::Arc;
use std::time::Duration;

use engram::engine::{AsOf, EngineError, Engram};
use engram::store::{Store, StoreOptions};
use engram_log::{
    Actor, Archived, Digest, Event, Expanded, Forgotten, Graded, KeySource, Log, LogConfig,
    LoggedEvent, ManualClock, MemoryRef, RecallFilters, RecallHit, Recalled, Reinforced,
    Remembered, Role, Scope, SessionEvent, Source, Tier, TierChanged,
};
use engram_projections::dump::{logical_rows_at, persisted_rows_at};
use engram_projections::{OpenOptions, View, ViewError, Views};
use parking_lot::RwLock;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::support::seed;

fn options() -> StoreOptions {
    StoreOptions {
        key: KeySource::StoreFile,
        durability: engram_log::Durability::None,
        ..StoreOptions::default()
    }
}

/// A random but well-formed event at `seq`, given the memory ids so far.
fn random_event(rng: &mut StdRng, seq: u64, memories: &mut Vec<u64>) -> Event {
    let pick = |rng: &mut StdRng, memories: &[u64]| -> u64 {
        if memories.is_empty() || rng.random_bool(0.05) {
            rng.random_range(1..=seq) // sometimes an id that is no memory
        } else {
            memories[rng.random_range(0..memories.len())]
        }
    };
    let tiers = [Tier::L1, Tier::L2, Tier::L3, Tier::L4];
    match rng.random_range(0..10) {
        0 | 1 => Event::Session(SessionEvent {
            session: format!("s{}", rng.random_range(0..3)),
            turn: rng.random_range(0..50),
            role: Role::User,
            content: format!("turn at {seq}"),
        }),
        2 | 3 => {
            memories.push(seq);
            Event::Remembered(Remembered {
                reference: MemoryRef {
                    session: format!("s{}", rng.random_range(0..3)),
                    first_seq: 1,
                    last_seq: seq.saturating_sub(1).max(1),
                },
                content_sha256: Digest([rng.random(); 32]),
                mac: Digest([rng.random(); 32]),
                summary: Some(format!("memory {seq}")),
                tags: vec!["t".to_owned()],
                tier: tiers[rng.random_range(0..4)],
                room: None,
                uniqueness_permille: rng.random_range(0..=1000),
                source: [Source::User, Source::Model, Source::Ingest][rng.random_range(0..3)],
                scope: Scope::Store,
                embedding: None,
            })
        }
        4 => Event::Reinforced(Reinforced {
            memory: pick(rng, memories),
            evidence: None,
            source: Source::User,
        }),
        5 => Event::Recalled(Recalled {
            query: "q".to_owned(),
            filters: RecallFilters {
                room: None,
                tier: None,
                tags: Vec::new(),
                scope: None,
                limit: 5,
            },
            hits: (0..rng.random_range(0..3))
                .map(|_| RecallHit {
                    memory: pick(rng, memories),
                    score_micros: rng.random_range(0..2_000_000),
                })
                .collect(),
            mode: "keyword".to_owned(),
        }),
        6 => Event::Graded(Graded {
            memory: pick(rng, memories),
            grade: rng.random_range(0..=5),
        }),
        7 => Event::TierChanged(TierChanged {
            memory: pick(rng, memories),
            from: Tier::L3,
            to: tiers[rng.random_range(0..4)],
            reason: "decay".to_owned(),
        }),
        8 => {
            if rng.random_bool(0.5) {
                Event::Archived(Archived {
                    memory: pick(rng, memories),
                    reason: "old".to_owned(),
                })
            } else {
                Event::Expanded(Expanded {
                    memory: pick(rng, memories),
                    audit: false,
                })
            }
        }
        _ => Event::Forgotten(Forgotten {
            memory: pick(rng, memories),
            by: Actor::User,
            reason: "asked".to_owned(),
        }),
    }
}

/// `n` random events, in random batches.
fn random_batches(rng: &mut StdRng, n: u64) -> Vec<Vec<Event>> {
    let mut memories = Vec::new();
    let mut batches = Vec::new();
    let mut seq = 1;
    while seq <= n {
        let size = rng.random_range(1..=8).min(n - seq + 1);
        let batch = (0..size)
            .map(|i| random_event(rng, seq + i, &mut memories))
            .collect();
        batches.push(batch);
        seq += size;
    }
    batches
}

/// Writes `batches` straight to the store's log with a fixed clock (no views).
fn write_log(store: &Store, batches: &[Vec<Event>]) {
    std::fs::create_dir_all(store.dir()).unwrap();
    let key = KeySource::StoreFile.load(store.dir(), true).unwrap();
    let config = LogConfig::new(key)
        .durability(engram_log::Durability::None)
        .clock(Arc::new(ManualClock::new(1_700_000_000_000)));
    let log = Log::open_dir(&store.log_dir(), config).unwrap();
    for batch in batches {
        log.append(batch).unwrap();
    }
    log.close().unwrap();
}

fn copy_log(from: &Store, to: &Store) {
    std::fs::create_dir_all(to.log_dir()).unwrap();
    std::fs::copy(from.dir().join("hmac.key"), to.dir().join("hmac.key")).unwrap();
    // The key store and its master key open the sealed words.
    for name in ["keys.engram", "master.key"] {
        if from.dir().join(name).exists() {
            std::fs::copy(from.dir().join(name), to.dir().join(name)).unwrap();
        }
    }
    for entry in std::fs::read_dir(from.log_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "seg") {
            std::fs::copy(&path, to.log_dir().join(path.file_name().unwrap())).unwrap();
        }
    }
}

#[test]
fn replaying_the_same_log_twice_gives_byte_identical_views() {
    let seed = seed(0xD1CE);
    eprintln!("seed {seed}");
    let mut rng = StdRng::seed_from_u64(seed);
    let dir = tempfile::tempdir().unwrap();
    let a = Store::at(dir.path().join("a"));
    let b = Store::at(dir.path().join("b"));
    write_log(&a, &random_batches(&mut rng, 600));
    copy_log(&a, &b);
    for store in [&a, &b] {
        Engram::open(store.clone(), &options())
            .unwrap()
            .close()
            .unwrap();
    }
    let rows_a = persisted_rows_at(&a.views_path()).unwrap();
    let rows_b = persisted_rows_at(&b.views_path()).unwrap();
    assert!(rows_a.iter().any(|r| r.0 == "snapshots"));
    assert!(rows_a.iter().any(|r| r.0 == "audit_by_memory"));
    assert_eq!(rows_a, rows_b);
}

#[test]
fn views_kept_live_equal_a_rebuild_from_scratch() {
    let base = seed(0x1CE_BABE);
    for i in 0..12 {
        let seed = base.wrapping_add(i);
        eprintln!("seed {seed}");
        let mut rng = StdRng::seed_from_u64(seed);
        let dir = tempfile::tempdir().unwrap();
        let live = Store::at(dir.path().join("live"));
        let engram = Engram::open(live.clone(), &options()).unwrap();
        let n = rng.random_range(50..400);
        for (k, batch) in random_batches(&mut rng, n).iter().enumerate() {
            engram.append(batch).unwrap();
            if k % 17 == 0 {
                // Reopen now and then: live state must survive restarts too.
                engram
                    .views()
                    .wait_for(engram.log().last_seq(), Duration::from_secs(10))
                    .unwrap();
            }
        }
        let live_stats = engram.stats();
        engram.close().unwrap();

        let rebuilt = Store::at(dir.path().join("rebuilt"));
        copy_log(&live, &rebuilt);
        let engram = Engram::open_with(
            rebuilt.clone(),
            &options(),
            OpenOptions { rebuild: true },
            &|_, _| {},
        )
        .unwrap();
        assert_eq!(engram.stats(), live_stats, "seed {seed}");
        engram.close().unwrap();
        // The same state; the audit index may be split into rows
        // differently (one row per memory per commit of the view).
        assert_eq!(
            logical_rows_at(&live.views_path()).unwrap(),
            logical_rows_at(&rebuilt.views_path()).unwrap(),
            "seed {seed}"
        );
    }
}

#[test]
fn a_restart_replays_only_the_tail() {
    let mut rng = StdRng::seed_from_u64(seed(7));
    let dir = tempfile::tempdir().unwrap();
    let store = Store::at(dir.path().join("s"));
    let batches = random_batches(&mut rng, 200);
    let engram = Engram::open(store.clone(), &options()).unwrap();
    for batch in &batches {
        engram.append(batch).unwrap();
    }
    engram.close().unwrap();

    let engram = Engram::open(store.clone(), &options()).unwrap();
    for v in &engram.views().report().views {
        assert_eq!(
            v.n_applied, 0,
            "{} replayed events it had already applied",
            v.name
        );
        assert_eq!(v.rebuilt, None);
    }
    engram.close().unwrap();

    // Seven events land while no views run.
    let log = store.open_log(&options()).unwrap();
    for turn in 0..7 {
        log.append(&[crate::support::session_event(
            "tail",
            turn,
            "while the views were closed",
        )])
        .unwrap();
    }
    log.close().unwrap();
    let engram = Engram::open(store, &options()).unwrap();
    for v in &engram.views().report().views {
        assert_eq!(v.n_applied, 7, "{} replayed more than the tail", v.name);
    }
    assert!(engram.stats().views.iter().all(|v| v.lag == 0));
    engram.close().unwrap();
}

/// A test view that counts events, with a chosen code version.
#[derive(Default)]
struct Counter {
    version: u32,
    count: u64,
}

const COUNTER: redb::TableDefinition<&str, u64> = redb::TableDefinition::new("counter_test");

impl View for Counter {
    fn name(&self) -> &'static str {
        "counter"
    }
    fn version(&self) -> u32 {
        self.version
    }
    fn apply(&mut self, event: &LoggedEvent) -> Result<(), ViewError> {
        assert!(event.seq != 0);
        if let Event::Session(s) = &event.event
            && s.content == "poison"
        {
            panic!("the counter cannot digest poison");
        }
        self.count += 1;
        Ok(())
    }
    fn persist(&mut self, txn: &redb::WriteTransaction) -> Result<(), ViewError> {
        txn.open_table(COUNTER)
            .map_err(redb::Error::from)?
            .insert("n", self.count)
            .map_err(redb::Error::from)?;
        Ok(())
    }
    fn load(&mut self, txn: &redb::ReadTransaction) -> Result<(), ViewError> {
        let table = txn.open_table(COUNTER).map_err(redb::Error::from)?;
        self.count = table
            .get("n")
            .map_err(redb::Error::from)?
            .map_or(0, |v| v.value());
        Ok(())
    }
    fn clear(&mut self, txn: &redb::WriteTransaction) -> Result<(), ViewError> {
        txn.delete_table(COUNTER).map_err(redb::Error::from)?;
        self.count = 0;
        Ok(())
    }
}

fn open_counter(log: &Log, path: &std::path::Path, version: u32) -> (Views, Arc<RwLock<Counter>>) {
    let counter = Arc::new(RwLock::new(Counter { version, count: 0 }));
    let views = Views::open(
        path,
        vec![Arc::clone(&counter) as engram_projections::SharedView],
        log.reader().clone(),
        log.subscribe(),
        OpenOptions::default(),
        &|_, _| {},
    )
    .unwrap();
    (views, counter)
}

#[test]
fn a_bumped_version_rebuilds_and_a_damaged_file_is_rebuilt_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let log = Log::open_dir(
        &dir.path().join("log"),
        LogConfig::new(crate::support::test_key()),
    )
    .unwrap();
    for turn in 0..25 {
        log.append(&[crate::support::session_event("v", turn, "x")])
            .unwrap();
    }
    let path = dir.path().join("views.redb");
    let (views, counter) = open_counter(&log, &path, 1);
    assert_eq!(counter.read().count, 25);
    views.close().unwrap();

    let (views, counter) = open_counter(&log, &path, 1);
    assert_eq!(views.report().views[0].n_applied, 0);
    assert_eq!(counter.read().count, 25);
    views.close().unwrap();

    let (views, counter) = open_counter(&log, &path, 2);
    let opened = &views.report().views[0];
    assert_eq!(opened.n_applied, 25, "a new version replays from seq 1");
    assert!(
        opened
            .rebuilt
            .as_deref()
            .unwrap()
            .contains("version changed from 1 to 2")
    );
    assert_eq!(counter.read().count, 25);
    views.close().unwrap();

    // Damage the database file: the views are rebuilt, with a warning.
    let mut bytes = std::fs::read(&path).unwrap();
    for b in bytes.iter_mut().take(4096) {
        *b ^= 0x5A;
    }
    std::fs::write(&path, &bytes).unwrap();
    let (views, counter) = open_counter(&log, &path, 2);
    assert!(views.report().damaged.is_some());
    assert!(!views.report().warnings().is_empty());
    assert_eq!(counter.read().count, 25);
    views.close().unwrap();
    let aside: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("damaged"))
        .collect();
    assert_eq!(aside.len(), 1, "the damaged file is set aside, not deleted");

    // Deleting the file loses nothing.
    std::fs::remove_file(&path).unwrap();
    let (views, counter) = open_counter(&log, &path, 2);
    assert_eq!(counter.read().count, 25);
    views.close().unwrap();
}

#[test]
fn a_failing_view_makes_waiters_fail_instead_of_hang() {
    let dir = tempfile::tempdir().unwrap();
    let log = Log::open_dir(
        &dir.path().join("log"),
        LogConfig::new(crate::support::test_key()),
    )
    .unwrap();
    let (views, _counter) = open_counter(&log, &dir.path().join("views.redb"), 1);
    let good = log
        .append(&[crate::support::session_event("f", 0, "fine")])
        .unwrap();
    views
        .wait_for(good.last_seq, Duration::from_secs(10))
        .unwrap();
    let bad = log
        .append(&[crate::support::session_event("f", 1, "poison")])
        .unwrap();
    let err = views
        .wait_for(bad.last_seq, Duration::from_secs(10))
        .unwrap_err();
    match &err {
        ViewError::Failed { view, seq, reason } => {
            assert_eq!(*view, "counter");
            assert_eq!(*seq, bad.last_seq);
            assert!(reason.contains("poison"), "{reason}");
        }
        other => panic!("expected Failed, got {other}"),
    }
    assert!(views.health().is_some());
    assert!(views.close().is_err());
}

#[test]
fn wait_for_times_out_with_an_error_never_a_stale_read() {
    let dir = tempfile::tempdir().unwrap();
    let log = Log::open_dir(
        &dir.path().join("log"),
        LogConfig::new(crate::support::test_key()),
    )
    .unwrap();
    let (views, _) = open_counter(&log, &dir.path().join("views.redb"), 1);
    let err = views.wait_for(5, Duration::from_millis(20)).unwrap_err();
    assert!(
        matches!(
            err,
            ViewError::Timeout {
                applied: 0,
                wanted: 5,
                ..
            }
        ),
        "{err}"
    );
    views.close().unwrap();
}

#[test]
fn four_writers_read_their_own_writes() {
    let dir = tempfile::tempdir().unwrap();
    let engram = Engram::open(Store::at(dir.path().join("s")), &options()).unwrap();
    std::thread::scope(|scope| {
        for writer in 0..4u32 {
            let engram = &engram;
            scope.spawn(move || {
                for turn in 0..40u32 {
                    let event = Event::Remembered(Remembered {
                        reference: MemoryRef {
                            session: format!("w{writer}"),
                            first_seq: 1,
                            last_seq: 1,
                        },
                        content_sha256: Digest([1; 32]),
                        mac: Digest([2; 32]),
                        summary: Some(format!("writer {writer} turn {turn}")),
                        tags: Vec::new(),
                        tier: Tier::L3,
                        room: None,
                        uniqueness_permille: 500,
                        source: Source::User,
                        scope: Scope::Store,
                        embedding: None,
                    });
                    let appended = engram.append(&[event]).unwrap();
                    let id = appended.first_seq;
                    // Read-your-writes: the memory is in every view at once.
                    assert!(engram.core().memory_table.read().state.get(id).is_some());
                    assert!(engram.core().tier_index.read().state.tier_of(id).is_some());
                    let history = engram.audit(id).unwrap();
                    assert_eq!(history.len(), 1);
                    assert_eq!(history[0].seq, id);
                }
            });
        }
    });
    assert_eq!(engram.stats().by_status.get("live"), Some(&160));
    engram.close().unwrap();
}

#[test]
fn views_as_of_a_seq_equal_a_store_holding_only_that_prefix() {
    let mut rng = StdRng::seed_from_u64(seed(0xA50F));
    let dir = tempfile::tempdir().unwrap();
    let full = Store::at(dir.path().join("full"));
    let batches = random_batches(&mut rng, 300);
    write_log(&full, &batches);
    // Cut at a batch boundary so both stores frame the prefix alike.
    let cut_batches = batches.len() / 2;
    let n: u64 = batches[..cut_batches].iter().map(|b| b.len() as u64).sum();
    let prefix = Store::at(dir.path().join("prefix"));
    write_log(&prefix, &batches[..cut_batches]);

    let as_of = AsOf::open(&full, &KeySource::StoreFile, n).unwrap();
    let engram = Engram::open(prefix, &options()).unwrap();
    let mut expected = engram.stats();
    for v in &mut expected.views {
        v.applied = n;
    }
    assert_eq!(as_of.stats(), expected);
    for id in 1..=n {
        match (as_of.audit(id), engram.audit(id)) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "memory {id}"),
            (Err(EngineError::UnknownMemory { .. }), Err(EngineError::UnknownMemory { .. })) => {}
            (a, b) => panic!("memory {id}: {a:?} vs {b:?}"),
        }
    }
    engram.close().unwrap();

    // The live store is untouched by an as-of view: no views file appears.
    assert!(!full.views_path().exists());
    let err = AsOf::open(&full, &KeySource::StoreFile, 10_000)
        .err()
        .unwrap();
    assert!(
        matches!(err, EngineError::View(ViewError::AsOfPastEnd { .. })),
        "{err}"
    );
}

#[test]
fn an_unknown_memory_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let engram = Engram::open(Store::at(dir.path().join("s")), &options()).unwrap();
    engram
        .append(&[crate::support::session_event("s", 0, "hello")])
        .unwrap();
    let err = engram.audit(1).unwrap_err();
    assert!(matches!(err, EngineError::UnknownMemory { id: 1 }), "{err}");
    let err = engram.audit(99).unwrap_err();
    assert!(err.to_string().contains("no memory with id 99"));
    engram.close().unwrap();
}

#[test]
fn a_views_file_locked_by_another_process_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::at(dir.path().join("s"));
    Engram::open(store.clone(), &options())
        .unwrap()
        .close()
        .unwrap();
    let held = redb::Database::open(store.views_path()).unwrap();
    let log = store.open_log(&options()).unwrap();
    let err = Views::open(
        &store.views_path(),
        engram_projections::CoreViews::new(log.reader().clone()).list(),
        log.reader().clone(),
        log.subscribe(),
        OpenOptions::default(),
        &|_, _| {},
    )
    .unwrap_err();
    assert!(matches!(err, ViewError::Locked { .. }), "{err}");
    drop(held);
}

#[test]
fn views_ahead_of_the_log_are_rebuilt() {
    // Under a lazy durability a crash can lose acknowledged events the views
    // already applied: views that claim more than the log holds start over.
    let dir = tempfile::tempdir().unwrap();
    let log_dir = dir.path().join("log");
    let path = dir.path().join("views.redb");
    let log = Log::open_dir(&log_dir, LogConfig::new(crate::support::test_key())).unwrap();
    for turn in 0..10 {
        log.append(&[crate::support::session_event("a", turn, "x")])
            .unwrap();
    }
    let (views, counter) = open_counter(&log, &path, 1);
    assert_eq!(counter.read().count, 10);
    views.close().unwrap();
    drop(log);

    // The same views over a shorter log.
    std::fs::remove_dir_all(&log_dir).unwrap();
    let log = Log::open_dir(&log_dir, LogConfig::new(crate::support::test_key())).unwrap();
    for turn in 0..4 {
        log.append(&[crate::support::session_event("b", turn, "y")])
            .unwrap();
    }
    let (views, counter) = open_counter(&log, &path, 1);
    let opened = &views.report().views[0];
    assert!(
        opened.rebuilt.as_deref().unwrap().contains("log ends at 4"),
        "{opened:?}"
    );
    assert_eq!(counter.read().count, 4);
    assert!(!views.report().warnings().is_empty());
    views.close().unwrap();
}

#[test]
fn views_built_from_another_log_are_rebuilt() {
    // A views file copied from another store, or a log restored from a
    // different backup: same length or longer, different history.
    let dir = tempfile::tempdir().unwrap();
    let log_dir = dir.path().join("log");
    let path = dir.path().join("views.redb");
    let log = Log::open_dir(&log_dir, LogConfig::new(crate::support::test_key())).unwrap();
    for turn in 0..10 {
        log.append(&[crate::support::session_event("a", turn, "first history")])
            .unwrap();
    }
    let (views, _) = open_counter(&log, &path, 1);
    views.close().unwrap();
    drop(log);

    std::fs::remove_dir_all(&log_dir).unwrap();
    let log = Log::open_dir(&log_dir, LogConfig::new(crate::support::test_key())).unwrap();
    for turn in 0..12 {
        log.append(&[crate::support::session_event("b", turn, "another history")])
            .unwrap();
    }
    let (views, counter) = open_counter(&log, &path, 1);
    let opened = &views.report().views[0];
    assert!(
        opened
            .rebuilt
            .as_deref()
            .unwrap()
            .contains("not the one it was built from"),
        "{opened:?}"
    );
    assert_eq!(opened.n_applied, 12);
    assert_eq!(counter.read().count, 12);
    views.close().unwrap();

    // Its own log again: only the tail is replayed.
    log.append(&[crate::support::session_event("b", 12, "more")])
        .unwrap();
    let (views, counter) = open_counter(&log, &path, 1);
    assert_eq!(views.report().views[0].rebuilt, None);
    assert_eq!(views.report().views[0].n_applied, 1);
    assert_eq!(counter.read().count, 13);
    views.close().unwrap();
}

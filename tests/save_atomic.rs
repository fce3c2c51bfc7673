//! A save is one atomic append: the note, the `Remembered` sealing it and
//! the events naming the new memory (entities, TTL, contradiction) reach the
//! log together, with one fsync, or not at all.
//!
//! The story: a save used to be two to five appends, each with its own
//! fsync, so a crash between them left a note no memory referenced, or a
//! memory without its entity links or its time to live; and a batch of
//! 100,000 saves paid 100,000 x 2-5 fsyncs. Here a save runs on the
//! fault-injecting storage, which counts syncs and crashes at any one of
//! them.

use std::collections::BTreeMap;

use engram::engine::Engram;
use engram::log::{Event, FaultyStorage, Log, LogConfig, LoggedEvent, Tear};
use engram::store::Store;
use engram::{Content, MemoryMeta, Remember, Subject};

use crate::support::{arc, replay_all, test_key};

/// One step of the script: a save, or a batch of saves.
enum Step {
    One(Remember),
    Batch(Vec<Remember>),
}

fn text(words: &str) -> Remember {
    Remember::text(words)
}

fn with_ttl(words: &str, ttl_ms: u64) -> Remember {
    Remember {
        meta: MemoryMeta {
            ttl_ms: Some(ttl_ms),
            ..MemoryMeta::default()
        },
        ..Remember::text(words)
    }
}

/// Saves of every shape: plain, with a TTL and entities, one that a later
/// save contradicts, one that a later save restates, a discarded one, and a
/// batch whose items restate each other.
fn script() -> Vec<Step> {
    vec![
        Step::One(with_ttl(
            "kumquat alpha: deploys happen on Thursdays, see src/deploy.rs and ops@example.org",
            86_400_000,
        )),
        Step::One(text(
            "kumquat bravo: the billing service listens on port 8080",
        )),
        Step::One(text("kumquat charlie: the user prefers tabs over spaces")),
        Step::Batch(vec![
            text("kumquat delta: the staging database lives in eu-west-1"),
            text("kumquat echo: releases are tagged from the main branch in /srv/release"),
            text("kumquat delta: the staging database lives in eu-west-1"),
            with_ttl(
                "kumquat foxtrot: the office wifi is called lighthouse",
                3_600_000,
            ),
        ]),
        Step::One(text("kumquat charlie: the user prefers spaces over tabs")),
        Step::One(text(
            "kumquat bravo: the billing service listens on port 8080",
        )),
        Step::One(text("ok")),
        Step::One(Remember {
            content: Content::Text {
                text: "kumquat golf: the team standup is at 9:30 in room 4".into(),
                session: Some("standup".into()),
            },
            meta: MemoryMeta::default(),
            subject: Subject::user(),
        }),
    ]
}

fn open(storage: &FaultyStorage, views: &std::path::Path) -> Engram {
    let log = Log::open(arc(storage.clone()), LogConfig::new(test_key())).unwrap();
    Engram::open_on_log(Store::at(views), log).unwrap()
}

/// Runs the script until the first failure; returns how many steps were
/// acknowledged.
fn run(engram: &Engram, steps: &[Step]) -> usize {
    for (done, step) in steps.iter().enumerate() {
        let ok = match step {
            Step::One(request) => engram.remember(request).is_ok(),
            Step::Batch(items) => engram
                .remember_batch(items)
                .is_ok_and(|results| results.iter().all(Result::is_ok)),
        };
        if !ok {
            return done;
        }
    }
    steps.len()
}

/// The kinds of events each note's save wrote, keyed by the note's words:
/// the note, what seals or reinforces it, and what names the memory it made.
fn saves_by_note(events: &[LoggedEvent]) -> BTreeMap<String, Vec<&'static str>> {
    let mut note_words: BTreeMap<u64, String> = BTreeMap::new();
    let mut memory_note: BTreeMap<u64, u64> = BTreeMap::new();
    let mut saves: BTreeMap<String, Vec<&'static str>> = BTreeMap::new();
    let mut add = |words: &String, kind: &'static str, seq: u64| {
        saves
            .entry(format!("{seq:06} {words}"))
            .or_default()
            .push(kind);
    };
    for logged in events {
        let event = &logged.event;
        match event {
            Event::Session(turn) => {
                note_words.insert(logged.seq, turn.content.clone());
                add(&turn.content, event.kind(), logged.seq);
            }
            Event::Remembered(r) => {
                let note = r.reference.first_seq;
                let words = note_words.get(&note).unwrap_or_else(|| {
                    panic!("memory {} seals seq {note}, not a note", logged.seq)
                });
                memory_note.insert(logged.seq, note);
                add(words, event.kind(), note);
            }
            Event::Reinforced(r) => {
                let note = r.evidence.as_ref().map(|e| e.first_seq).unwrap();
                add(&note_words[&note], event.kind(), note);
            }
            Event::EntityLinked(engram::log::EntityLinked { memory, .. })
            | Event::TtlSet(engram::log::TtlSet { memory, .. })
            | Event::ContradictionFlagged(engram::log::ContradictionFlagged { memory, .. }) => {
                let note = *memory_note.get(memory).unwrap_or_else(|| {
                    panic!("seq {} names memory {memory}, not in the log", logged.seq)
                });
                add(&note_words[&note], event.kind(), note);
            }
            _ => {}
        }
    }
    saves
}

#[test]
fn a_save_and_a_batch_each_cost_exactly_one_fsync() {
    let storage = FaultyStorage::new();
    let views = tempfile::tempdir().unwrap();
    let engram = open(&storage, views.path());
    // The first append creates the first segment (its own syncs).
    engram.remember(&text("warm up the log")).unwrap();
    for step in script() {
        let before = storage.n_syncs();
        match &step {
            Step::One(request) => {
                engram.remember(request).unwrap();
            }
            Step::Batch(items) => {
                let results = engram.remember_batch(items).unwrap();
                assert!(results.iter().all(Result::is_ok));
            }
        }
        assert_eq!(
            storage.n_syncs() - before,
            1,
            "a save (or a batch of saves) is one append with one fsync"
        );
    }
    // A distilled rule (note, seal, `Distilled`, entity links) is one
    // append too.
    let members: Vec<u64> = engram
        .core()
        .memory_table
        .read()
        .state
        .iter()
        .map(|entry| entry.id)
        .take(2)
        .collect();
    let before = storage.n_syncs();
    engram
        .distill(
            &members,
            "Deploy rules live in src/deploy.rs and are reviewed on Thursdays.",
            None,
            &Subject::user(),
        )
        .unwrap();
    assert_eq!(
        storage.n_syncs() - before,
        1,
        "a distillation is one append"
    );
    // An update (the new words, their seal and links, the edge and the
    // verdict retiring the old memory) is one append too.
    let before = storage.n_syncs();
    let before_seq = engram.log().last_seq();
    let updated = engram
        .update(&engram::Update {
            memory: members[0],
            text: "kumquat alpha: deploys happen on Wednesdays now".into(),
            session: None,
            summary: None,
            tags: None,
            room: None,
            reason: String::new(),
            subject: Subject::user(),
        })
        .unwrap();
    assert_eq!(storage.n_syncs() - before, 1, "an update is one append");
    let written: Vec<&str> = replay_all(engram.log().reader())
        .iter()
        .filter(|e| e.seq > before_seq)
        .map(|e| e.event.kind())
        .collect();
    assert_eq!(written.first(), Some(&"session"), "{written:?}");
    assert_eq!(written.get(1), Some(&"remembered"), "{written:?}");
    assert_eq!(written.last(), Some(&"verdict_recorded"), "{written:?}");
    assert!(written.contains(&"contradiction_flagged"), "{written:?}");
    assert!(
        engram
            .core()
            .verdicts
            .read()
            .state
            .is_overruled(updated.old)
    );
    let events = replay_all(engram.log().reader());
    let saves = saves_by_note(&events);
    // The saves of every shape were exercised.
    let kinds: Vec<&str> = saves.values().flatten().copied().collect();
    for kind in ["remembered", "entity_linked", "ttl_set", "reinforced"] {
        assert!(kinds.contains(&kind), "no {kind} event in {saves:#?}");
    }
    assert!(events.iter().any(|e| e.event.kind() == "discarded"));
    engram.close().unwrap();
}

#[test]
fn a_crash_at_every_sync_of_a_save_keeps_all_of_it_or_none() {
    // The reference run, uncrashed.
    let reference = {
        let storage = FaultyStorage::new();
        let views = tempfile::tempdir().unwrap();
        let engram = open(&storage, views.path());
        let opened = storage.n_syncs();
        assert_eq!(run(&engram, &script()), script().len());
        let saves = saves_by_note(&replay_all(engram.log().reader()));
        let n_syncs = storage.n_syncs() - opened;
        engram.close().unwrap();
        (saves, n_syncs)
    };
    let (complete, n_syncs) = reference;
    assert!(complete.len() >= 9, "{complete:#?}");
    let mut n_partial_runs = 0;
    for crash_at in 1..=n_syncs {
        for tear in [
            Tear::LoseUnsynced,
            Tear::KeepPrefix(1 << 20),
            Tear::KeepPrefix(97),
            Tear::Garbage(64),
        ] {
            let storage = FaultyStorage::new();
            let views = tempfile::tempdir().unwrap();
            let engram = open(&storage, views.path());
            // The nth sync of the saves (opening synced the new segment).
            storage.crash_at_sync(crash_at);
            let acknowledged = run(&engram, &script());
            assert!(storage.crashed(), "sync {crash_at} of {n_syncs} never came");
            drop(engram);

            let image = storage.crash_image(tear);
            let log = Log::open(arc(image), LogConfig::new(test_key()))
                .unwrap_or_else(|e| panic!("sync {crash_at}, {tear:?}: reopening failed: {e}"));
            let report = log.verify().unwrap();
            assert!(
                report.is_ok(),
                "sync {crash_at}, {tear:?}: {:?}",
                report.problem
            );
            let saves = saves_by_note(&replay_all(log.reader()));
            // Every save the log holds is whole, exactly as the uncrashed
            // run wrote it.
            for (note, kinds) in &saves {
                assert_eq!(
                    Some(kinds),
                    complete.get(note),
                    "sync {crash_at}, {tear:?}: the save of {note:?} is partial"
                );
            }
            // Every acknowledged step survived: its saves are a prefix of
            // the reference run's, in the same order.
            let kept: Vec<&String> = saves.keys().collect();
            let all: Vec<&String> = complete.keys().collect();
            assert!(all.starts_with(&kept) || kept.is_empty());
            let acknowledged_saves: usize = script()
                .iter()
                .take(acknowledged)
                .map(|step| match step {
                    // The discarded save records no note.
                    Step::One(r) if matches!(&r.content, Content::Text { text, .. } if text == "ok") => 0,
                    Step::One(_) => 1,
                    Step::Batch(items) => items.len(),
                })
                .sum();
            assert!(
                saves.len() >= acknowledged_saves,
                "sync {crash_at}, {tear:?}: {} saves acknowledged, {} kept",
                acknowledged_saves,
                saves.len()
            );
            if saves.len() < complete.len() {
                n_partial_runs += 1;
            }
            // The memories it holds verify.
            let views = tempfile::tempdir().unwrap();
            let engram = Engram::open_on_log(Store::at(views.path()), log).unwrap();
            // (Ids first: no view lock is held across an expand.)
            let ids: Vec<u64> = engram
                .core()
                .memory_table
                .read()
                .state
                .iter()
                .map(|entry| entry.id)
                .collect();
            for id in ids {
                engram
                    .expand_as(id, &Subject::user(), false)
                    .unwrap_or_else(|e| panic!("sync {crash_at}, {tear:?}: memory {id}: {e}"));
            }
            engram.close().unwrap();
        }
    }
    assert!(n_partial_runs > 0, "no crash cut the script short");
}

#[test]
fn a_batch_decides_each_item_against_the_ones_before_it_and_fails_bad_items_alone() {
    let storage = FaultyStorage::new();
    let views = tempfile::tempdir().unwrap();
    let engram = open(&storage, views.path());
    engram.remember(&text("warm up the log")).unwrap();
    let model_claiming_the_user = Remember {
        subject: Subject {
            actor: engram::log::Actor::Model,
            session: None,
        },
        ..text("kumquat hotel: the user said to deploy on Sundays")
    };
    let items = vec![
        text("kumquat india: the staging cluster runs Kubernetes 1.31 in eu-west-1"),
        text("   "),
        text("kumquat india: the staging cluster runs Kubernetes 1.31 in eu-west-1"),
        model_claiming_the_user,
        text("kumquat juliet: the nightly build cache on the runner holds 40 GB"),
        text("kumquat juliet: the nightly build cache on the runner holds 80 GB"),
    ];
    let last_before = engram.log().last_seq();
    let syncs_before = storage.n_syncs();
    let results = engram.remember_batch(&items).unwrap();
    assert_eq!(
        storage.n_syncs() - syncs_before,
        1,
        "the batch is one append"
    );
    assert_eq!(results.len(), items.len(), "one result per item, in order");

    let first = results[0].as_ref().unwrap();
    assert_eq!(first.outcome, engram::Outcome::New);
    assert!(
        matches!(&results[1], Err(engram::EngineError::Input(_))),
        "{:?}",
        results[1]
    );
    // The third restates the first, which the views did not hold yet.
    let third = results[2].as_ref().unwrap();
    assert_eq!(third.outcome, engram::Outcome::Reinforced);
    assert_eq!(third.id, first.id);
    assert!(
        matches!(&results[3], Err(engram::EngineError::Denied(_))),
        "{:?}",
        results[3]
    );
    let forty = results[4].as_ref().unwrap();
    let eighty = results[5].as_ref().unwrap();
    assert_eq!(eighty.outcome, engram::Outcome::Contradiction, "{eighty:?}");
    assert_eq!(eighty.related, forty.id);

    // What the log holds: the denial recorded, nothing of the bad item,
    // and every memory sealed over its own note.
    let events = replay_all(engram.log().reader());
    let batch: Vec<&LoggedEvent> = events.iter().filter(|e| e.seq > last_before).collect();
    assert_eq!(
        batch
            .iter()
            .filter(|e| e.event.kind() == "gate_denied")
            .count(),
        1
    );
    assert!(
        !batch
            .iter()
            .any(|e| matches!(&e.event, Event::Session(s) if s.content.trim().is_empty()))
    );
    for id in [first.id, forty.id, eighty.id] {
        let id = id.unwrap();
        assert!(id > last_before);
        let expansion = engram.expand_as(id, &Subject::user(), false).unwrap();
        assert!(expansion.verified);
    }
    // Read-your-writes: the batch's memories are recalled at once.
    let hits = engram
        .recall(&engram::RecallQuery::new("staging cluster Kubernetes"))
        .unwrap();
    assert_eq!(hits.first().map(|h| h.id), first.id);
    engram.close().unwrap();
}

/// A large batch decides the same whether its items are all prepared
/// first or prepared on other threads while the planner decides
/// (`engram::set_prepare_while_planning`): same outcomes, ids, rooms,
/// related memories, reasons and uniqueness, item for item. The batch
/// restates, updates and repeats its own earlier items, so each decision
/// depends on the ones before it.
#[test]
fn a_batch_prepared_while_planning_decides_as_one_prepared_first() {
    let services = [
        "billing",
        "search",
        "ledger",
        "gateway",
        "mailer",
        "scheduler",
    ];
    let items: Vec<Remember> = (0..700)
        .map(|i| {
            let service = services[i % services.len()];
            match i % 5 {
                0 => text(&format!(
                    "The {service} service listens on port {}",
                    8000 + (i / 30) % 3
                )),
                1 => text(&format!(
                    "Deploys of {service} happen on {}",
                    ["Tuesday", "Thursday"][(i / 30) % 2]
                )),
                2 => text(&format!(
                    "Ticket {i}: {service} owners rotate weekly after the standup"
                )),
                3 if i % 2 == 0 => text("   "),
                3 => text("The on-call rotation starts on Mondays at nine"),
                _ => text(&format!(
                    "The {service} team prefers {} to {}",
                    ["Rust", "Go"][(i / 30) % 2],
                    ["Go", "Rust"][(i / 30) % 2]
                )),
            }
        })
        .collect();
    let decide = |overlap: bool| {
        engram::set_prepare_while_planning(overlap);
        let dir = tempfile::tempdir().unwrap();
        let engram = Engram::open(
            Store::at(dir.path()),
            &engram::store::StoreOptions::default(),
        )
        .unwrap();
        let results = engram.remember_batch(&items).unwrap();
        engram.close().unwrap();
        results
            .into_iter()
            .map(|r| match r {
                Ok(r) => Ok((
                    r.outcome,
                    r.id,
                    r.coordinate,
                    r.related,
                    r.reason,
                    r.uniqueness_permille,
                )),
                Err(e) => Err(e.to_string()),
            })
            .collect::<Vec<_>>()
    };
    let upfront = decide(false);
    let overlapped = decide(true);
    engram::set_prepare_while_planning(false);
    assert_eq!(upfront.len(), items.len());
    let outcomes: std::collections::BTreeSet<String> = upfront
        .iter()
        .filter_map(|r| r.as_ref().ok().map(|r| format!("{:?}", r.0)))
        .collect();
    assert!(
        outcomes.len() >= 3,
        "the batch exercises several outcomes: {outcomes:?}"
    );
    assert_eq!(overlapped, upfront);
}

/// A batch appended in several parts while another client recalls in a
/// tight loop: every read records its evidence (an append of its own), and
/// each part is built for the seq the log is expected to give it, so reads
/// landing first used to move the part again and again until the batch
/// gave up (`Contended`). The batch saves every item; the reads all answer.
#[test]
fn a_batch_in_parts_saves_while_another_client_recalls_in_a_loop() {
    let items: Vec<Remember> = (0..24_000)
        .map(|i| {
            text(&format!(
                "Service s{i} of team t{} listens on port {}",
                i % 97,
                10_000 + i
            ))
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let engram = Engram::open(
        Store::at(dir.path()),
        &engram::store::StoreOptions::default(),
    )
    .unwrap();
    engram
        .remember_batch(&[text("Service s0 of team t0 listens on port 10000")])
        .unwrap();
    let saving = std::sync::atomic::AtomicBool::new(true);
    let (results, reads) = std::thread::scope(|scope| {
        let reader = scope.spawn(|| {
            let mut reads = 0usize;
            while saving.load(std::sync::atomic::Ordering::Relaxed) {
                engram
                    .recall(&engram::RecallQuery::new("which port does service s0 use"))
                    .unwrap();
                reads += 1;
            }
            reads
        });
        let results = engram.remember_batch(&items);
        saving.store(false, std::sync::atomic::Ordering::Relaxed);
        (results, reader.join().unwrap())
    });
    let results = results.unwrap();
    let failed: Vec<String> = results
        .iter()
        .filter_map(|r| r.as_ref().err().map(ToString::to_string))
        .collect();
    assert!(
        failed.is_empty(),
        "{} failed, first: {:?}",
        failed.len(),
        failed.first()
    );
    // Every read's evidence reached the log: held while the parts were
    // appended, then appended.
    engram.settle().unwrap();
    let recalled = replay_all(engram.log().reader())
        .iter()
        .filter(|e| matches!(e.event, Event::Recalled(_)))
        .count();
    assert!(reads > 0);
    assert_eq!(recalled, reads);
    engram.close().unwrap();
}

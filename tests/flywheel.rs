//! The palace and the flywheel through the engine: rooms and slots, the
//! four save outcomes, verdicts, SM-2 review, and all of it surviving
//! restart and rebuild.

use engram::engine::{EngineError, Engram};
use engram::flywheel::FlywheelError;
use engram::log::{Actor, MemoryId, Verdict};
use engram::{MemoryMeta, Outcome, RecallQuery, Remember};
use engram_projections::models::review::DAY_MS;

use crate::support::{hit_ids as ids, open_keyed as open, open_rebuilt};

fn in_room(text: &str, room: &str) -> Remember {
    Remember {
        meta: MemoryMeta {
            room: Some(room.to_owned()),
            ..MemoryMeta::default()
        },
        ..Remember::text(text)
    }
}

/// Distinct facts, so no save restates another: owner, colour, thing and
/// place vary with co-prime periods, so any two share at most half their
/// content terms.
fn fact(i: usize) -> String {
    const OWNERS: [&str; 24] = [
        "alice", "bruno", "chen", "dara", "emil", "fatima", "goran", "hana", "ivan", "jun", "kofi",
        "lena", "mateo", "nadia", "oskar", "priya", "quinn", "rosa", "sven", "tariq", "uma",
        "viktor", "wen", "yara",
    ];
    const COLOURS: [&str; 7] = ["red", "blue", "green", "amber", "violet", "grey", "teal"];
    const THINGS: [&str; 12] = [
        "kettle",
        "bicycle",
        "lantern",
        "compass",
        "notebook",
        "umbrella",
        "telescope",
        "harmonica",
        "backpack",
        "teapot",
        "hammock",
        "microscope",
    ];
    const PLACES: [&str; 11] = [
        "garage", "attic", "cellar", "balcony", "library", "office", "kitchen", "studio", "garden",
        "hallway", "pantry",
    ];
    format!(
        "{} keeps the {} {} in the {}",
        OWNERS[i % 24],
        COLOURS[i % 7],
        THINGS[i % 12],
        PLACES[i % 11]
    )
}

#[test]
fn ten_memories_fill_a_room_and_open_its_successor_and_slots_are_never_reused() {
    let dir = tempfile::tempdir().unwrap();
    let engram = open(dir.path());
    let mut saved = Vec::new();
    for i in 0..10 {
        let receipt = engram.remember(&in_room(&fact(i), "things")).unwrap();
        assert_eq!(receipt.outcome, Outcome::New, "{}", fact(i));
        saved.push(receipt);
    }
    let coordinates: Vec<String> = saved
        .iter()
        .map(|r| r.coordinate.clone().unwrap())
        .collect();
    let mut expected: Vec<String> = (1..=9).map(|s| format!("things#{s}")).collect();
    expected.push("things-2#1".to_owned());
    assert_eq!(coordinates, expected);
    // A forget does not free a slot.
    engram
        .forget(saved[3].id.unwrap(), &engram::Subject::user(), "gone")
        .unwrap();
    let next = engram.remember(&in_room(&fact(10), "things")).unwrap();
    assert_eq!(next.coordinate.as_deref(), Some("things-2#2"));
    // Naming the successor files on the same corridor.
    let named = engram.remember(&in_room(&fact(11), "things-2")).unwrap();
    assert_eq!(named.coordinate.as_deref(), Some("things-2#3"));
    engram.close().unwrap();
}

#[test]
fn concurrent_saves_never_share_a_slot() {
    let dir = tempfile::tempdir().unwrap();
    let engram = open(dir.path());
    let coordinates = parking_lot::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for writer in 0..4 {
            let (engram, coordinates) = (&engram, &coordinates);
            scope.spawn(move || {
                for i in 0..6 {
                    let text = fact(writer * 6 + i);
                    let r = engram.remember(&in_room(&text, "shared")).unwrap();
                    assert_eq!(r.outcome, Outcome::New, "{text}: {r:?}");
                    coordinates.lock().push(r.coordinate.unwrap());
                }
            });
        }
    });
    let mut all = coordinates.into_inner();
    let n = all.len();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), n, "no two saves share a slot: {all:?}");
    assert_eq!(n, 24);
    engram.close().unwrap();
}

#[test]
fn the_four_outcomes_in_english_and_chinese() {
    let dir = tempfile::tempdir().unwrap();
    let engram = open(dir.path());
    let first = engram
        .remember(&Remember::text(
            "The user prefers green tea in the morning.",
        ))
        .unwrap();
    assert_eq!(first.outcome, Outcome::New);
    let first = first.id.unwrap();

    let again = engram
        .remember(&Remember::text("User prefers green tea in the morning"))
        .unwrap();
    assert_eq!(
        (again.outcome, again.id, again.related),
        (Outcome::Reinforced, Some(first), Some(first))
    );
    assert_eq!(
        engram
            .core()
            .memory_table
            .read()
            .state
            .get(first)
            .unwrap()
            .reinforcements,
        1
    );

    let against = engram
        .remember(&Remember::text(
            "The user does not like green tea in the morning.",
        ))
        .unwrap();
    assert_eq!(against.outcome, Outcome::Contradiction);
    assert_eq!(against.related, Some(first));
    let budget = engram
        .remember(&Remember::text("The launch budget is 10k euros."))
        .unwrap();
    let budget2 = engram
        .remember(&Remember::text("The launch budget is 25k euros."))
        .unwrap();
    assert_eq!(budget2.outcome, Outcome::Contradiction);
    assert_eq!(budget2.related, budget.id);

    let discarded = engram.remember(&Remember::text("thanks!")).unwrap();
    assert_eq!(discarded.outcome, Outcome::Discarded);
    assert_eq!(discarded.id, None);
    assert!(matches!(
        discarded.memory().map_err(EngineError::from),
        Err(EngineError::Discarded { .. })
    ));

    // Chinese.
    let zh = engram
        .remember(&Remember::text("用户喜欢在早上喝绿茶。"))
        .unwrap();
    assert_eq!(zh.outcome, Outcome::New);
    let zh_again = engram
        .remember(&Remember::text("用户喜欢早上喝绿茶"))
        .unwrap();
    assert_eq!(zh_again.outcome, Outcome::Reinforced);
    assert_eq!(zh_again.id, zh.id);
    let zh_not = engram
        .remember(&Remember::text("用户不喜欢在早上喝绿茶。"))
        .unwrap();
    assert_eq!(zh_not.outcome, Outcome::Contradiction);
    assert_eq!(zh_not.related, zh.id);
    assert_eq!(
        engram.remember(&Remember::text("好的")).unwrap().outcome,
        Outcome::Discarded
    );
    let (open_edges, _) = engram.contradictions();
    assert_eq!(open_edges.len(), 3);
    engram.close().unwrap();
}

#[test]
fn verdicts_change_recall_and_refuse_pairs_that_do_not_contradict() {
    let dir = tempfile::tempdir().unwrap();
    let engram = open(dir.path());
    let save = |text: &str| engram.remember(&Remember::text(text)).unwrap();
    let a = save("The staging server runs Postgres 15 on host db2.")
        .id
        .unwrap();
    let b = save("The staging server runs Postgres 16 on host db2.");
    assert_eq!(b.outcome, Outcome::Contradiction);
    let b = b.id.unwrap();
    let c = save("The backup job runs nightly at 02:00 on host db3.")
        .id
        .unwrap();

    let recall = |q: &str| {
        let mut found = ids(&engram.recall(&RecallQuery::new(q)).unwrap());
        found.sort_unstable();
        found
    };
    assert_eq!(recall("staging postgres"), [a, b]);

    // Not in contradiction: refused, nothing appended.
    let before = engram.log().last_seq();
    let err = engram
        .verdict(a, c, Verdict::KeepA, Actor::User, "no")
        .unwrap_err();
    assert!(
        matches!(
            err,
            EngineError::Flywheel(FlywheelError::NotInContradiction { .. })
        ),
        "{err}"
    );
    assert_eq!(engram.log().last_seq(), before);

    // Shelve: listed apart, both still recalled.
    engram
        .verdict(b, a, Verdict::Shelve, Actor::User, "unsure")
        .unwrap();
    let (open_edges, shelved) = engram.contradictions();
    assert!(open_edges.is_empty());
    assert_eq!(shelved.len(), 1);
    assert_eq!(recall("staging postgres"), [a, b]);

    // keep-a (a = b here): the loser leaves recall but is not forgotten.
    engram
        .verdict(b, a, Verdict::KeepA, Actor::User, "upgraded")
        .unwrap();
    assert_eq!(recall("staging postgres"), [b]);
    assert!(
        engram
            .audit(a)
            .unwrap()
            .iter()
            .any(|r| r.kind == "verdict_recorded")
    );
    assert!(engram.expand_as(a, &engram::Subject::user(), false).is_ok());
    // Decided is final.
    assert!(matches!(
        engram.verdict(a, b, Verdict::KeepBoth, Actor::User, ""),
        Err(EngineError::Flywheel(FlywheelError::AlreadyDecided { .. }))
    ));
    engram.close().unwrap();
}

#[test]
fn review_follows_sm2_and_shows_no_content() {
    let dir = tempfile::tempdir().unwrap();
    let engram = open(dir.path());
    let id = engram
        .remember(&in_room("The wifi in the lab is called orchid-5.", "lab"))
        .unwrap()
        .id
        .unwrap();
    engram
        .remember(&in_room("The lab door code changes every Monday.", "lab"))
        .unwrap();
    let created = engram.core().review.read().state.get(id).unwrap().due_ms - DAY_MS;
    assert!(
        engram.review(created + DAY_MS - 1).is_empty(),
        "not due before a day"
    );
    // Due one day after it was written (the second memory, written in the
    // same millisecond or later, is due then or later: earliest first).
    let due = engram.review(created + DAY_MS);
    assert_eq!(due[0].id, id);
    assert!(due.len() <= 2);
    assert_eq!(due[0].coordinate, "lab#1");
    assert_eq!(due[0].cues[0].coordinate, "lab#2");

    let s = engram.grade(id, 5).unwrap();
    assert_eq!(
        (s.repetitions, s.interval_days, s.ef_permille),
        (1, 1, 2600)
    );
    let s = engram.grade(id, 4).unwrap();
    assert_eq!(
        (s.repetitions, s.interval_days, s.ef_permille),
        (2, 6, 2600)
    );
    let s = engram.grade(id, 1).unwrap();
    assert_eq!((s.repetitions, s.interval_days), (0, 1));
    assert!(s.failed_last);
    // Out of range: refused, nothing appended.
    let before = engram.log().last_seq();
    assert!(matches!(
        engram.grade(id, 6),
        Err(EngineError::Flywheel(FlywheelError::Grade { grade: 6 }))
    ));
    assert!(matches!(
        engram.grade(9999, 3),
        Err(EngineError::UnknownMemory { .. })
    ));
    assert_eq!(engram.log().last_seq(), before);
    engram.close().unwrap();
}

#[test]
fn palace_schedule_and_verdicts_survive_restart_and_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let snapshot = |engram: &Engram| {
        let core = engram.core();
        (
            format!("{:?}", core.palace.read().state),
            format!("{:?}", core.review.read().state),
            format!("{:?}", core.verdicts.read().state),
            format!("{:?}", core.text_index.read().state),
            format!("{:?}", core.entities.read().state),
        )
    };
    let before = {
        let engram = open(dir.path());
        for i in 0..11 {
            engram.remember(&in_room(&fact(i), "things")).unwrap();
        }
        let a = engram
            .remember(&Remember::text("The launch budget is 10k euros."))
            .unwrap()
            .id
            .unwrap();
        let b = engram
            .remember(&Remember::text("The launch budget is 25k euros."))
            .unwrap()
            .id
            .unwrap();
        engram
            .verdict(a, b, Verdict::KeepB, Actor::User, "")
            .unwrap();
        engram.grade(a, 2).unwrap();
        engram.grade(b, 5).unwrap();
        engram
            .remember(&Remember::text(
                "Pair with Maria on project Apollo in Frankfurt, using Node.js.",
            ))
            .unwrap();
        assert!(!engram.core().entities.read().state.is_empty());
        let state = snapshot(&engram);
        engram.close().unwrap();
        state
    };
    let engram = open(dir.path());
    assert_eq!(snapshot(&engram), before, "after restart");
    engram.close().unwrap();
    let engram = open_rebuilt(dir.path());
    assert_eq!(snapshot(&engram), before, "after rebuild");
    engram.close().unwrap();
}

#[test]
fn the_health_score_falls_with_contradictions_and_failed_reviews() {
    let dir = tempfile::tempdir().unwrap();
    let engram = open(dir.path());
    assert_eq!(
        engram.stats().health.score,
        100,
        "an empty store is healthy"
    );
    let a = engram
        .remember(&Remember::text("The launch budget is 10k euros."))
        .unwrap()
        .id
        .unwrap();
    let fresh = engram.stats().health;
    engram
        .remember(&Remember::text("The launch budget is 25k euros."))
        .unwrap();
    let contradicted = engram.stats().health;
    assert_eq!(contradicted.open_contradictions, 1);
    assert!(contradicted.consistency < fresh.consistency);
    assert!(
        contradicted.score < fresh.score,
        "{contradicted:?} vs {fresh:?}"
    );
    engram.grade(a, 1).unwrap();
    let failed = engram.stats().health;
    assert_eq!(failed.review_success, 0);
    assert!(failed.score < contradicted.score);
    engram.close().unwrap();
}

#[test]
fn maintenance_archives_decayed_expired_and_evicted_memories_but_not_failed_reviews() {
    use engram_commands::maintain::MaintainPolicy;
    let dir = tempfile::tempdir().unwrap();
    let engram = open(dir.path());
    // Model-written memories start at low trust (they decay when idle);
    // the user's start high enough not to.
    let save = |i: usize, ttl_ms: Option<u64>, source| {
        engram
            .remember(&Remember {
                meta: MemoryMeta {
                    ttl_ms,
                    source,
                    ..MemoryMeta::default()
                },
                ..Remember::text(fact(i))
            })
            .unwrap()
            .id
            .unwrap()
    };
    let model = engram::log::Source::Model;
    let idle = save(0, None, model);
    let failed = save(1, None, model);
    let expiring = save(2, Some(5 * DAY_MS), engram::log::Source::User);
    let important = save(3, None, engram::log::Source::User);
    engram.grade(failed, 1).unwrap();
    let now = engram.core().review.read().state.get(idle).unwrap().due_ms - DAY_MS;
    let later = now + 40 * DAY_MS;
    let policy = MaintainPolicy::default();
    let before_dry_run = engram.log().last_seq();
    let planned = engram.maintain(&policy, later, true).unwrap();
    assert_eq!(
        engram.log().last_seq(),
        before_dry_run,
        "a dry run appends nothing"
    );
    let ids: Vec<MemoryId> = planned.archived.iter().map(|(id, _)| *id).collect();
    assert!(ids.contains(&expiring), "{planned:?}");
    assert!(ids.contains(&idle), "{planned:?}");
    assert!(
        !ids.contains(&failed),
        "a failed review is exempt from decay"
    );
    assert!(!ids.contains(&important), "important memories do not decay");
    let before = engram.log().last_seq();
    let done = engram.maintain(&policy, later, false).unwrap();
    assert_eq!(done, planned);
    // Each archive is a demotion to L4 (`tier_changed`) and an `archived`;
    // each refreshed score a `uniqueness_scored`.
    assert_eq!(
        engram.log().last_seq(),
        before + (2 * done.archived.len() + done.rescored.len()) as u64
    );
    let demoted: Vec<MemoryId> = engram
        .replay(before + 1)
        .filter_map(|e| match e.unwrap().event {
            engram::log::Event::TierChanged(t) if t.to == engram::log::Tier::L4 => Some(t.memory),
            _ => None,
        })
        .collect();
    assert_eq!(demoted, ids);
    // Archived memories are recalled only when tier L4 is asked for.
    let words = fact(0);
    let thing = words.split(' ').nth(4).unwrap().to_owned();
    assert!(!ids_of(&engram, &thing, None).contains(&idle));
    assert!(ids_of(&engram, &thing, Some(engram::log::Tier::L4)).contains(&idle));
    // Nothing left to do at the same time.
    assert!(engram.maintain(&policy, later, false).unwrap().is_empty());

    // Eviction: over a capacity of 1, the least recently used goes; the
    // memory whose review failed is kept even so.
    let tight = MaintainPolicy {
        hot_set_capacity: 1,
        idle_days: 10_000,
        ..MaintainPolicy::default()
    };
    let evicted = engram.maintain(&tight, later, false).unwrap().archived;
    assert_eq!(evicted.len(), 1, "{evicted:?}");
    assert_eq!(evicted[0].0, important);
    assert!(evicted[0].1.starts_with("evicted"), "{evicted:?}");
    engram.close().unwrap();
}

fn ids_of(engram: &Engram, query: &str, tier: Option<engram::log::Tier>) -> Vec<MemoryId> {
    let mut q = RecallQuery::new(query);
    q.tier = tier;
    ids(&engram.recall(&q).unwrap())
}

#[test]
fn distillation_proposes_clusters_and_records_a_rule_with_inherited_confidence() {
    let dir = tempfile::tempdir().unwrap();
    let engram = open(dir.path());
    let save = |text: &str| {
        engram
            .remember(&in_room(text, "deploys"))
            .unwrap()
            .id
            .unwrap()
    };
    let a = save("Deploys to production need two reviewers.");
    let b = save("Hotfix deploys skip staging but still need two reviewers.");
    let lonely = save("The cafeteria closes at three on Fridays.");
    let clusters = engram.distill_candidates();
    assert_eq!(clusters, vec![vec![a, b]]);

    let trust = |id| engram.core().trust.read().state.trust_permille(id).unwrap();
    let expected = engram_commands::distill::confidence(&[trust(a), trust(b)], 0);
    let rule = engram
        .distill(
            &[b, a, a],
            "Production deploys need two reviewers.",
            None,
            &engram::Subject::user(),
        )
        .unwrap();
    assert_eq!(rule.members, [a, b]);
    assert_eq!(rule.confidence_permille, expected);
    assert_eq!(trust(rule.id), expected, "the rule's trust starts from it");
    assert!(
        rule.coordinate.starts_with("deploys"),
        "{}",
        rule.coordinate
    );
    let event = engram
        .log()
        .read(rule.id + 1..=rule.id + 1)
        .unwrap()
        .remove(0)
        .event;
    match event {
        engram::log::Event::Distilled(d) => {
            assert_eq!(d.members, [a, b]);
            assert_eq!(d.confidence_permille, expected);
        }
        other => panic!("expected the Distilled event after the rule, got {other:?}"),
    }
    // The rule is a memory like any other: recalled and expanded, verified.
    assert!(ids(&engram.recall(&RecallQuery::new("reviewers")).unwrap()).contains(&rule.id));
    assert!(
        engram
            .expand_as(rule.id, &engram::Subject::user(), false)
            .unwrap()
            .verified
    );

    // Bad input: fewer than two members, forgotten members; nothing changes.
    engram.forget(lonely, &engram::Subject::user(), "").unwrap();
    let before = engram.log().last_seq();
    assert!(matches!(
        engram.distill(&[a, a], "x rule", None, &engram::Subject::user()),
        Err(EngineError::Flywheel(FlywheelError::TooFewMembers {
            count: 1
        }))
    ));
    assert!(matches!(
        engram.distill(&[a, lonely], "x rule", None, &engram::Subject::user()),
        Err(EngineError::Forgotten { .. })
    ));
    assert!(matches!(
        engram.distill(&[a, 9999], "x rule", None, &engram::Subject::user()),
        Err(EngineError::UnknownMemory { .. })
    ));
    assert_eq!(engram.log().last_seq(), before);
    engram.close().unwrap();
}

#[test]
fn entities_are_extracted_resolved_and_listed_with_their_memories() {
    let dir = tempfile::tempdir().unwrap();
    let engram = open(dir.path());
    let save = |text: &str| engram.remember(&Remember::text(text)).unwrap().id.unwrap();
    let a = save("Pair with Maria on the NodeJS service in src/server.ts before Friday.");
    let b = save("The analytics jobs run on Node.js workers in Frankfurt.");
    let c = save("和小王一起在北京讨论星火项目的排期。");
    let tool = engram.entities(Some("tool"), None);
    let node = tool.iter().find(|e| e.key == "node.js").unwrap();
    assert_eq!(
        node.memories.iter().map(|m| m.0).collect::<Vec<_>>(),
        [a, b],
        "NodeJS and Node.js resolve to one entity"
    );
    let people: Vec<String> = engram
        .entities(Some("person"), None)
        .into_iter()
        .map(|e| e.key)
        .collect();
    assert_eq!(people, ["maria", "小王"]);
    let projects = engram.entities(Some("project"), None);
    assert_eq!(projects[0].key, "星火项目");
    assert_eq!(projects[0].memories[0].0, c);
    assert!(
        engram
            .entities(None, Some("frank"))
            .iter()
            .any(|e| e.category == "place")
    );
    // A forgotten memory leaves every entity.
    engram.forget(b, &engram::Subject::user(), "").unwrap();
    let node = engram
        .entities(Some("tool"), Some("node"))
        .into_iter()
        .next()
        .unwrap();
    assert_eq!(node.memories.iter().map(|m| m.0).collect::<Vec<_>>(), [a]);
    engram.close().unwrap();
}

#[test]
fn a_batch_save_reports_one_outcome_per_item() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let batch = crate::support::batch_file(
        dir.path(),
        serde_json::json!([
            {"content": "The user prefers green tea in the morning."},
            {"content": "User prefers green tea in the morning"},
            {"content": "The user does not like green tea in the morning."},
            {"content": "ok"},
            {"content": "Kofi owns the billing service.", "room": "people", "tags": ["team"]},
        ]),
    );
    let out = crate::support::engram(
        &store,
        &["remember", "--items", batch.to_str().unwrap(), "--json"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results = crate::support::json_lines(&out.stdout)[0]["results"].clone();
    let outcomes: Vec<&str> = results
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(
        outcomes,
        ["new", "reinforced", "contradiction", "discarded", "new"]
    );
    assert_eq!(results[1]["related"], results[0]["id"]);
    assert_eq!(results[2]["related"], results[0]["id"]);
    assert_eq!(results[4]["coordinate"], "people#1");
    // A malformed batch is refused whole.
    std::fs::write(&batch, r#"{"items": [{"text": "wrong field"}]}"#).unwrap();
    let out = crate::support::engram(&store, &["remember", "--items", batch.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn room_recall_searches_the_corridor_first_then_widens() {
    let dir = tempfile::tempdir().unwrap();
    let engram = open(dir.path());
    for i in 0..10 {
        engram.remember(&in_room(&fact(i), "things")).unwrap();
    }
    let elsewhere = engram
        .remember(&in_room("alice keeps a spare kettle at her desk", "desk"))
        .unwrap()
        .id
        .unwrap();
    // Naming the successor room searches its whole corridor (things,
    // things-2), and only it, while something is found there.
    let mut query = RecallQuery::new("kettle");
    query.room = Some("things-2".to_owned());
    let found = engram.recall(&query).unwrap();
    assert!(!found.is_empty());
    assert!(
        found.iter().all(|h| h.coordinate.starts_with("things")),
        "{:?}",
        found.iter().map(|h| &h.coordinate).collect::<Vec<_>>()
    );
    assert!(found.iter().any(|h| h.coordinate.starts_with("things#")));
    query.room = Some("desk".to_owned());
    assert_eq!(ids(&engram.recall(&query).unwrap()), [elsewhere]);
    // Nothing about a garage in the desk room: widen to every room.
    query.text = "garage".to_owned();
    let widened = ids(&engram.recall(&query).unwrap());
    assert!(
        !widened.is_empty() && !widened.contains(&elsewhere),
        "{widened:?}"
    );
    engram.close().unwrap();
}

#[test]
fn a_room_name_with_control_characters_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let engram = open(dir.path());
    let before = engram.log().last_seq();
    let err = engram
        .remember(&in_room("the printer is on floor two", "bad\u{7}room"))
        .unwrap_err();
    assert!(err.to_string().contains("control characters"), "{err}");
    assert_eq!(engram.log().last_seq(), before);
    engram.close().unwrap();
}

#[test]
fn cues_never_carry_the_words_of_forgotten_or_overruled_neighbours() {
    let dir = tempfile::tempdir().unwrap();
    let engram = open(dir.path());
    let save = |remember: Remember| engram.remember(&remember).unwrap();
    let old = save(in_room(
        "The staging server runs Postgres 15 on host db2.",
        "infra",
    ));
    let kettle = save(in_room("alice keeps the red kettle in the garage", "infra"));
    let new = save(in_room(
        "The staging server runs Postgres 16 on host db2.",
        "infra",
    ));
    assert_eq!(new.outcome, Outcome::Contradiction);
    let secret = save(Remember {
        meta: MemoryMeta {
            room: Some("infra".to_owned()),
            summary: Some("codename bluebird".to_owned()),
            ..MemoryMeta::default()
        },
        ..Remember::text("bruno keeps the blue bicycle in the attic")
    });
    save(in_room(
        "chen keeps the green lantern in the cellar",
        "infra",
    ));
    let (old, new, secret) = (old.id.unwrap(), new.id.unwrap(), secret.id.unwrap());
    engram
        .verdict(old, new, Verdict::KeepB, Actor::User, "upgraded")
        .unwrap();
    engram
        .forget(secret, &engram::Subject::user(), "not for recall")
        .unwrap();

    let cues = |query: &str| {
        let hits = engram.recall(&RecallQuery::new(query)).unwrap();
        hits[0]
            .cues
            .iter()
            .map(|c| (c.id, c.label.clone()))
            .collect::<Vec<_>>()
    };
    let around_kettle = cues("kettle");
    assert_eq!(kettle.coordinate.as_deref(), Some("infra#2"));
    assert!(
        around_kettle.contains(&(old, "(overruled)".to_owned())),
        "{around_kettle:?}"
    );
    assert!(
        around_kettle
            .iter()
            .any(|(id, label)| *id == new && label.contains("Postgres 16")),
        "{around_kettle:?}"
    );
    let around_lantern = cues("lantern");
    assert_eq!(
        around_lantern,
        [(secret, "(forgotten)".to_owned())],
        "a forgotten neighbour's summary stays out of recall"
    );
    engram.close().unwrap();
}

/// The last event of the log.
fn last_event(engram: &Engram) -> engram::log::Event {
    let last = engram.log().last_seq();
    engram.log().read(last..=last).unwrap().remove(0).event
}

/// `result` is a gate denial by `policy` on `action`, recorded as the
/// log's last event (nothing else appended since `before`).
fn assert_denied<T: std::fmt::Debug>(
    engram: &Engram,
    before: u64,
    result: Result<T, EngineError>,
    policy: &str,
    action: &str,
) {
    match result {
        Err(EngineError::Denied(denial)) => {
            assert_eq!(denial.policy, policy, "{denial}");
            assert_eq!(denial.event.action, action, "{denial}");
        }
        other => panic!("expected a {policy} denial of {action}, got {other:?}"),
    }
    assert_eq!(engram.log().last_seq(), before + 1, "one event appended");
    match last_event(engram) {
        engram::log::Event::GateDenied(denied) => {
            assert_eq!(denied.action, action);
            assert!(denied.reason.starts_with(policy), "{denied:?}");
        }
        other => panic!("the last event is {other:?}, not gate_denied"),
    }
}

#[test]
fn a_model_cannot_retire_or_archive_a_user_memory_through_the_flywheel() {
    use engram::log::Source;
    use engram_commands::maintain::MaintainPolicy;
    let dir = tempfile::tempdir().unwrap();
    let engram = open(dir.path());
    let model = engram::Subject {
        actor: Actor::Model,
        session: None,
    };
    let user = engram
        .remember(&Remember::text(
            "The staging server runs Postgres 15 on host db2.",
        ))
        .unwrap()
        .id
        .unwrap();
    let saved = engram
        .remember(&Remember {
            meta: MemoryMeta {
                source: Source::Model,
                ..MemoryMeta::default()
            },
            subject: model.clone(),
            ..Remember::text("The staging server runs Postgres 16 on host db2.")
        })
        .unwrap();
    assert_eq!(saved.outcome, Outcome::Contradiction);
    let theirs = saved.id.unwrap();
    let recall = || {
        let found = ids(&engram
            .recall(&RecallQuery::new("staging postgres"))
            .unwrap());
        // The recall's evidence is queued for the next commit: wait for it,
        // so the counts of appended events below see only the command.
        engram.log().sync().unwrap();
        found
    };

    // Verdicts: keep-a / keep-b against the user's memory, or shelving it.
    for (a, b, verdict) in [
        (theirs, user, Verdict::KeepA),
        (user, theirs, Verdict::KeepB),
        (user, theirs, Verdict::Shelve),
    ] {
        let before = engram.log().last_seq();
        let result = engram.verdict(a, b, verdict, Actor::Model, "newer");
        assert_denied(&engram, before, result, "write_trust", "verdict");
    }
    assert_eq!(engram.contradictions().0.len(), 1, "still open");
    assert!(recall().contains(&user));
    assert!(!engram.core().verdicts.read().state.is_overruled(user));

    // A failing grade would push the user's memory further below the line
    // at which maintenance archives it.
    let schedule = engram.core().review.read().state.get(user).cloned();
    let trust = engram.core().trust.read().state.trust_permille(user);
    let before = engram.log().last_seq();
    let result = engram.grade_as(user, 0, &model);
    assert_denied(&engram, before, result, "write_trust", "grade");
    assert_eq!(
        engram.core().review.read().state.get(user).cloned(),
        schedule
    );
    assert_eq!(engram.core().trust.read().state.trust_permille(user), trust);

    // Maintenance: idle and unimportant forty days on, the user's memory
    // would be archived; by a model nothing is.
    let later = engram::engine::now_ms() + 40 * DAY_MS;
    let policy = MaintainPolicy::default();
    let planned = engram.maintain(&policy, later, true).unwrap();
    assert!(
        planned.archived.iter().any(|(id, _)| *id == user),
        "{planned:?}"
    );
    let before = engram.log().last_seq();
    let result = engram.maintain_as(&policy, later, false, &model);
    assert_denied(&engram, before, result, "write_trust", "archive");
    assert_eq!(
        engram.core().memory_table.read().state.status(user),
        Some(engram_projections::models::MemoryStatus::Live)
    );
    assert_eq!(
        engram.core().memory_table.read().state.status(theirs),
        Some(engram_projections::models::MemoryStatus::Live),
        "nothing is archived when any archive is denied"
    );

    // Distillation: the rule is held to the size limit of any memory.
    let before = engram.log().last_seq();
    let rule = "always ".repeat(10_000);
    let result = engram.distill(&[user, theirs], &rule, None, &model);
    assert_denied(&engram, before, result, "size_limits", "distill");

    // The user may do all of it.
    engram
        .verdict(theirs, user, Verdict::KeepA, Actor::User, "upgraded")
        .unwrap();
    assert!(!recall().contains(&user));
    engram.grade(user, 0).unwrap();
    engram.close().unwrap();
}

/// Issue 17 through the engine: decisions, rooms and entities, and all of
/// it the same after restart and rebuild (the views are folds of what the
/// saves recorded).
#[test]
fn issue_17_decisions_rooms_and_people_survive_restart_and_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let snapshot = |engram: &Engram| {
        let core = engram.core();
        (
            format!("{:?}", core.palace.read().state),
            format!("{:?}", core.verdicts.read().state),
            format!("{:?}", core.entities.read().state),
        )
    };
    let save = |engram: &Engram, text: &str| engram.remember(&Remember::text(text)).unwrap();
    let before = {
        let engram = open(dir.path());
        let billing = save(&engram, "The billing service listens on port 8080.");
        let search = save(&engram, "The search service listens on port 9090.");
        assert_eq!(search.outcome, Outcome::New, "{search:?}");
        let room = |r: &engram::Receipt| r.coordinate.clone().unwrap();
        assert!(room(&billing).starts_with("billing#"), "{billing:?}");
        assert!(room(&search).starts_with("search#"), "{search:?}");
        let moved = save(&engram, "The billing service listens on port 9090.");
        assert_eq!(
            (moved.outcome, moved.related),
            (Outcome::Contradiction, billing.id)
        );
        let python = save(&engram, "The user prefers Python to Node.js.");
        let node = save(&engram, "The user prefers Node.js to Python.");
        assert_eq!(
            (node.outcome, node.related),
            (Outcome::Contradiction, python.id)
        );
        let thursday = save(&engram, "Deploys happen on Thursdays.");
        let friday = save(&engram, "Deploys happen on Fridays.");
        assert_eq!(
            (friday.outcome, friday.related),
            (Outcome::Contradiction, thursday.id)
        );
        save(&engram, "Alice joined 2021.");
        assert_eq!(save(&engram, "Bob joined 2023.").outcome, Outcome::New);
        let owner = save(&engram, "Alice Chen owns the payments dashboard.");
        let later = save(&engram, "Alice reviews every payments migration.");
        let dictionary = engram.core().entities.read().state.clone();
        let memories = dictionary.memories("person", "alice chen").unwrap();
        assert!(memories.contains(&owner.id.unwrap()), "{dictionary:?}");
        assert!(memories.contains(&later.id.unwrap()), "{dictionary:?}");
        for (text, person) in [
            ("Bob Martinez is the release manager.", "bob martinez"),
            ("Carol Wu maintains the search cluster.", "carol wu"),
            ("张伟负责支付系统。", "张伟"),
        ] {
            let id = save(&engram, text).id.unwrap();
            let dictionary = engram.core().entities.read().state.clone();
            assert!(
                dictionary
                    .memories("person", person)
                    .is_some_and(|m| m.contains(&id)),
                "{text}: {dictionary:?}"
            );
        }
        let state = snapshot(&engram);
        engram.close().unwrap();
        state
    };
    let engram = open(dir.path());
    assert_eq!(snapshot(&engram), before, "after restart");
    engram.close().unwrap();
    let engram = open_rebuilt(dir.path());
    assert_eq!(snapshot(&engram), before, "after rebuild");
    engram.close().unwrap();
}

/// A restatement that says a little more reinforces its memory, and the
/// words it adds find that memory and are shown with it (the hit's
/// `restated`, after a `(restated as:)` line in the context block), after
/// a restart and a rebuild too; a forget takes them with it.
#[test]
fn a_restatements_own_words_find_the_memory_it_reinforced() {
    let dir = tempfile::tempdir().unwrap();
    let first;
    {
        let engram = open(dir.path());
        first = engram
            .remember(&Remember::text("Mia is allergic to mangoes"))
            .unwrap()
            .id
            .unwrap();
        let other = engram
            .remember(&Remember::text("Bob plays the cello on Sundays"))
            .unwrap()
            .id
            .unwrap();
        assert!(ids(&engram.recall(&RecallQuery::new("hives")).unwrap()).is_empty());
        let again = engram
            .remember(&Remember::text(
                "Mia is allergic to mangoes, she gets hives from them",
            ))
            .unwrap();
        assert_eq!(
            (again.outcome, again.id),
            (Outcome::Reinforced, Some(first))
        );
        assert_eq!(
            ids(&engram.recall(&RecallQuery::new("hives")).unwrap()),
            [first]
        );
        let hits = engram.recall(&RecallQuery::new("cello")).unwrap();
        assert_eq!(ids(&hits), [other]);
        assert!(hits[0].restated.is_empty(), "{hits:?}");
        // The same words again add nothing to show.
        let same = engram
            .remember(&Remember::text("Mia is allergic to mangoes"))
            .unwrap();
        assert_eq!(same.id, Some(first));
        engram.close().unwrap();
    }
    let shown = |engram: &Engram| {
        let hits = engram.recall(&RecallQuery::new("hives")).unwrap();
        assert_eq!(ids(&hits), [first]);
        assert_eq!(hits[0].text, "Mia is allergic to mangoes");
        assert_eq!(
            hits[0].restated,
            ["Mia is allergic to mangoes, she gets hives from them"]
        );
        let block = engram::context_block(&hits);
        assert!(
            block.contains(
                "> Mia is allergic to mangoes\n  (restated as:)\n> Mia is allergic to mangoes, she gets hives from them\n"
            ),
            "{block}"
        );
    };
    let engram = open(dir.path());
    shown(&engram);
    engram.close().unwrap();
    let engram = open_rebuilt(dir.path());
    shown(&engram);
    // More restatements: the latest three are shown, oldest first; the
    // words of every one still find the memory.
    let more = [
        "Mia is allergic to mangoes, she gets a rash from them",
        "Mia is allergic to mangoes, her lips swell up",
        "Mia is allergic to mangoes, she carries an antihistamine",
    ];
    for text in more {
        let again = engram.remember(&Remember::text(text)).unwrap();
        assert_eq!(
            (again.outcome, again.id),
            (Outcome::Reinforced, Some(first)),
            "{text}"
        );
    }
    let hits = engram.recall(&RecallQuery::new("hives")).unwrap();
    assert_eq!(ids(&hits), [first]);
    assert_eq!(hits[0].restated, more);
    engram
        .forget(first, &engram::Subject::user(), "wrong person")
        .unwrap();
    assert!(ids(&engram.recall(&RecallQuery::new("hives")).unwrap()).is_empty());
    assert!(ids(&engram.recall(&RecallQuery::new("antihistamine")).unwrap()).is_empty());
    engram.close().unwrap();
}

//! The save-decision corpus (`tests/corpus/decide/{dev,test}.jsonl`): pairs
//! of an existing memory and a new text, labelled with the outcome a save
//! of the new text must have. Precision and recall of every outcome must
//! be at least [`FLOOR`] on each split. Tuning looks at `dev` only; `test`
//! uses other vocabulary and phrasing and is the reported figure.
//!
//! `blind` (182 pairs, 31% Chinese) was written by someone who had seen
//! neither the rules nor the other splits, and scored once with the rules
//! alone (no model) on 2026-12-02: precision/recall contradiction
//! 0.750/0.400, discarded 0.907/0.848, new 0.430/0.935, reinforced
//! 0.800/0.267. Far under the 0.9 target: a paraphrase ("Carol doesn't
//! eat meat" after "Carol is vegetarian", 30 days and thirty days) reads
//! as a new fact, and an update said as a move ("moved to Lisbon",
//! "改成了9090") rarely reads as a contradiction. Its floor
//! ([`BLIND_FLOOR`]) sits just under those figures, so it guards against
//! losing ground, not for the target; tuning against it spends it. A
//! number written two ways (`2 AM` and `2am`, `$1,800` and `1800`) was
//! then read as one value, a fix made after reading its misses, so the
//! split no longer measures it cleanly: 68 misses instead of 70
//! (contradiction 0.792/0.422, reinforced 0.812/0.289).
//!
//! `blind2` (240 pairs, 35% Chinese, 60 per outcome) was written the same
//! way on 2026-12-02 (third session) and kept outside the repository while
//! the rules changed; it was scored by its figures alone
//! ([`held_out_figures`]), never its rows. Rules only: before that
//! session's changes contradiction 0.955/0.350, discarded 1.000/0.800, new
//! 0.380/1.000, reinforced 0.667/0.133 (103 misses); after them (updates
//! said as changes, more restatements) contradiction 0.974/0.633,
//! discarded 1.000/0.800, new 0.438/1.000, reinforced 0.875/0.233 (80
//! misses). With MiniLM attached 80 misses (`tests/decide_model.rs`).
//!
//! From the fourth session on, `blind2` is a tuning split like `dev`: its
//! misses were read and the rules changed for the families they showed
//! (conversation kept as a fact, updates said with other verbs and
//! markers, restatements in abbreviations, other inflections, other units
//! of a span of time, light verbs). Every rule was written as a general
//! pattern with sentences of its own in the unit tests, and a fresh split,
//! never read, measures the result. Rules only, before and after that
//! session:
//!
//! | split | misses | contradiction | discarded | new | reinforced |
//! | --- | --- | --- | --- | --- | --- |
//! | dev, before | 0 | 1.000/1.000 | 1.000/1.000 | 1.000/1.000 | 1.000/1.000 |
//! | dev, after | 0 | 1.000/1.000 | 1.000/1.000 | 1.000/1.000 | 1.000/1.000 |
//! | test, before | 0 | 1.000/1.000 | 1.000/1.000 | 1.000/1.000 | 1.000/1.000 |
//! | test, after | 0 | 1.000/1.000 | 1.000/1.000 | 1.000/1.000 | 1.000/1.000 |
//! | blind, before | 47 | 0.917/0.733 | 0.946/0.761 | 0.530/0.957 | 0.885/0.511 |
//! | blind, after | 16 | 0.932/0.911 | 0.979/1.000 | 0.786/0.957 | 1.000/0.778 |
//! | blind2, before | 80 | 0.974/0.633 | 1.000/0.800 | 0.438/1.000 | 0.875/0.233 |
//! | blind2, after | 22 | 1.000/0.933 | 1.000/1.000 | 0.732/1.000 | 1.000/0.700 |
//!
//! (precision/recall). With MiniLM attached (`tests/decide_model.rs`),
//! after: `blind` the same, `blind2` 22 misses (contradiction precision
//! 0.982, new precision 0.741, the rest the same). The floors of `blind` ([`BLIND_FLOOR`]) and
//! `blind2` ([`BLIND2_FLOOR`]) sit just under the figures after; both
//! splits are spent for measuring, and guard against losing ground.
//!
//! `blind3` (239 pairs, 39% Chinese; 240 written without sight of the
//! rules or the other splits, one pair also in `dev` left out) was kept
//! outside the repository and scored by its figures alone, rules only:
//! before the fourth session's rules 106 misses (contradiction
//! 0.909/0.615, discarded 1.000/0.575, new 0.405/0.971, reinforced
//! 0.600/0.046); after them 92 misses (contradiction 0.896/0.662,
//! discarded 1.000/0.775, new 0.438/0.971, reinforced 0.857/0.092). With
//! MiniLM 91 misses (reinforced 0.875/0.108); 78 once the model's cosine
//! was read in the band where restatements live, and 73 with questions
//! discarded (rules alone 87; `tests/decide_model.rs`). The rules fit the splits
//! they were tuned on (`blind2` 80 -> 22 misses) far better than new
//! text: restatements in other words remain the gap. Committed with a
//! floor ([`BLIND3_FLOOR`]) just under its lowest figure; the next round
//! needs a fresh split.
//!
//! `blind4` (240 pairs, 60 per outcome, 38% Chinese) was written the same
//! way on 2026-12-05 and kept outside the repository while that session
//! changed the decisions (the model's cosine read in the band where
//! restatements live; a text whose every sentence is a question
//! discarded, a family found among `blind3`'s misses). Scored by its
//! figures alone, rules only: before 106 misses (contradiction
//! 0.808/0.350, discarded 0.930/0.667, new 0.378/0.983, reinforced
//! 0.933/0.233), after 100 (contradiction 0.840/0.350, discarded
//! 0.939/0.767, new 0.388/0.983, reinforced 1.000/0.233). With MiniLM 106
//! before, 97 after (`tests/decide_model.rs`). Still far under the 0.9
//! target: updates and restatements in words the rules do not pair are
//! read as new facts. Committed with a floor ([`BLIND4_FLOOR`]) just
//! under its lowest figure; the next round needs a fresh split.
//!
//! In the next round (2026-12-05) `blind3` and `blind4` became tuning
//! splits: their misses were read for families of errors, and each family
//! got a general rule with sentences of its own in the unit tests
//! (reactions and interjections with nothing to keep; values written two
//! ways: glued units, ages, ranges, `4/15`, rates, clock times in words,
//! `'25`, currencies; amounts of two things; updates said with other
//! verbs, cancellations, "no longer" with the memory's every word, "X is
//! now the R", one word after a copula filled two ways; synonyms, Chinese
//! pronouns). Rules only, before and after:
//!
//! | split | misses | contradiction | discarded | new | reinforced |
//! | --- | --- | --- | --- | --- | --- |
//! | blind3, before | 87 | 0.915/0.662 | 1.000/0.900 | 0.450/0.971 | 0.857/0.092 |
//! | blind3, after | 63 | 0.931/0.831 | 1.000/1.000 | 0.535/0.986 | 1.000/0.215 |
//! | blind4, before | 100 | 0.840/0.350 | 0.939/0.767 | 0.388/0.983 | 1.000/0.233 |
//! | blind4, after | 63 | 1.000/0.567 | 0.952/0.983 | 0.500/1.000 | 1.000/0.400 |
//!
//! `dev` and `test` stay at 0 misses, `blind` went from 16 to 9 and
//! `blind2` from 22 to 19. Restatements in other words remain the gap:
//! most of the misses left are pairs whose words differ both ways
//! ("cardiologist" and "heart doctor"), which the rules read as two
//! subjects. All four splits are spent; the floors sit just under their
//! figures after, and a fresh split measures the round.
//!
//! That fresh split is `blind5` (240 pairs, 60 per outcome, 38% Chinese,
//! nine pairs across languages), written by someone who had seen neither
//! the rules nor the other splits, kept outside the repository and scored
//! by its figures alone, at the round's start and at its end. Rules only:
//!
//! | split | misses | contradiction | discarded | new | reinforced |
//! | --- | --- | --- | --- | --- | --- |
//! | blind5, before | 92 | 0.875/0.467 | 0.977/0.717 | 0.408/1.000 | 1.000/0.283 |
//! | blind5, after | 84 | 0.969/0.517 | 0.977/0.717 | 0.423/1.000 | 1.000/0.367 |
//!
//! The tuned splits gained far more (37 misses each) than the unseen one
//! (8): the families found were real, but most unseen misses are other
//! wordings. Committed with a floor ([`BLIND5_FLOOR`]) just under its
//! figures after; spent.
//!
//! The next round (2026-12-05, third session) read the spent splits'
//! misses for families of pairs *worded apart* (the same values in other
//! words, a changed value said with other verbs, a named old value, a
//! changed choice) and for reactions, each a general rule with unit-test
//! sentences of its own: the spent splits went from 238 misses to 166
//! (`blind` 9 to 7, `blind2` 19 to 16, `blind3` 63 to 54, `blind4` 63 to
//! 44, `blind5` 84 to 45). `blind6` (240 pairs, 60 per outcome, 38%
//! Chinese), written before the round by someone who had seen neither
//! the rules nor the other splits and kept outside the repository,
//! measured it by its figures alone. Rules only:
//!
//! | split | misses | contradiction | discarded | new | reinforced |
//! | --- | --- | --- | --- | --- | --- |
//! | blind6, before | 135 | 0.800/0.133 | 0.969/0.517 | 0.305/0.967 | 1.000/0.133 |
//! | blind6, after | 115 | 0.846/0.183 | 0.977/0.700 | 0.341/0.967 | 1.000/0.233 |
//!
//! `blind6` is harder than any split before it (135 misses at the
//! round's start, against 92 for `blind5` at its own): most of its
//! restatements and updates share almost no words with the memory. The
//! tuned splits again gained far more than the unseen one. Committed with
//! a floor ([`BLIND6_FLOOR`]) just under its figures after; spent.
//!
//! The next round (2026-12-05, fourth session) read the spent splits'
//! misses again, for remarks on the moment ("standup ran long again, so
//! tedious"), a change said by "now" or a period that opens ("this
//! season", "after the refinance"), ends and ended pursuits ("lost",
//! "withdrew from", "passed" of "studying for"), a role left ("Kenji
//! stepped down"), distinctive values restated with no word in common,
//! Chinese ends around their verb, kin said the familiar way, and an
//! avoidance an allergy or diet entails. `blind` to `blind5` went from 166
//! misses to 153 (`blind3` 54 to 51, `blind4` 44 to 38, `blind5` 45 to 41),
//! and `blind6` from 115 to 84. `blind7` (240 pairs, 60 per outcome, 38%
//! Chinese), written before the round the same way and kept outside the
//! repository, measured it by its figures alone. Rules only:
//!
//! | split | misses | contradiction | discarded | new | reinforced |
//! | --- | --- | --- | --- | --- | --- |
//! | blind7, before | 82 | 0.909/0.500 | 1.000/0.783 | 0.428/0.983 | 1.000/0.367 |
//! | blind7, after | 76 | 0.914/0.533 | 1.000/0.817 | 0.447/0.983 | 1.000/0.400 |
//!
//! Committed with a floor ([`BLIND7_FLOOR`]) just under its figures
//! after; spent. The floors of `blind3` to `blind6` rose to just under
//! their figures after the round.
//!
//! The round after (2026-12-05, fifth session) read the spent splits for
//! a plain change of what both texts share (`changes_what_it_shares`: "I
//! dropped French and I'm doing Italian instead", `换老师了，现在教我日语的是
//! 佐藤老师`, with the checks that keep a change of another person's or
//! another thing's value apart), a text saying nothing the memory does
//! not, one word swapped each side, and more conversation and reactions.
//! The spent splits went from 308 misses to 244 (`blind4` 38 to 26,
//! `blind7` 71 to 53). `blind8` (240 pairs, 38% Chinese), written the
//! round before and kept outside the repository, measured it by its
//! figures alone (it was also read, by its figures only, for the choice
//! of a rule's guards, so `blind9` below is the cleaner measure):
//!
//! | split | misses | contradiction | discarded | new | reinforced |
//! | --- | --- | --- | --- | --- | --- |
//! | blind8, before | 101 | 0.950/0.317 | 1.000/0.767 | 0.377/1.000 | 0.933/0.233 |
//! | blind8, after | 88 | 0.968/0.500 | 1.000/0.767 | 0.411/1.000 | 0.941/0.267 |
//! | blind9, before | 93 | 0.852/0.383 | 0.980/0.817 | 0.404/0.983 | 0.941/0.267 |
//! | blind9, after | 69 | 0.872/0.683 | 0.980/0.817 | 0.492/0.983 | 0.957/0.367 |
//!
//! `blind8` is committed with a floor ([`BLIND8_FLOOR`]) just under its
//! figures after; `blind9`, written at the start of the round by someone
//! who had seen neither the rules nor the splits, stays outside the
//! repository for the next round. The floors of `blind`, `blind2` and
//! `blind4` to `blind6` rose to just under their figures after the round.
//!
//! `blind9` was lost with the machine it was kept on before a round could
//! use it. `blind10` (240 pairs, 40% Chinese, 60 per outcome), written on
//! 2026-12-07 the same way and kept outside the repository, measured that
//! day's round by its figures alone: tasks on code asked of the assistant
//! and judgements of a thing in general discarded (read from `blind8`'s
//! misses, which went from 88 to 82), and Chinese restatements read in
//! segmented words (`blind2` 11 to 10, `blind3` 45 to 44; `blind5` 28 to
//! 27 by the discards). It moved nothing on `blind10`: 64
//! misses before and after (contradiction 0.909/0.667, discarded
//! 1.000/0.750, new 0.491/0.950, reinforced 0.971/0.567); 63 with MiniLM,
//! 67 through the save path. Lexicons grown from read misses did not
//! carry over to text written apart from them.
//!
//! `blind11` (240 pairs, 40% Chinese, written the same way on 2026-12-07
//! and kept outside the repository) measured the next round, which read
//! values and subjects rather than growing word lists: Chinese amounts as
//! spoken (`六千八`), `用户` as the subject read as `我` (as `User` and `I`
//! read alike in English), weekday spans and day ranges, a count a week
//! no weekday, Chinese clock minutes, spans of time, decimals and
//! percentages, and a Chinese question without its mark. Spent splits
//! 323 to 309 misses, none new; figures before and after, by its counts
//! alone:
//!
//! | split | misses | contradiction | discarded | new | reinforced |
//! | --- | --- | --- | --- | --- | --- |
//! | blind11, before | 41 | 0.945/0.867 | 1.000/0.817 | 0.615/0.983 | 0.975/0.650 |
//! | blind11, after | 34 | 0.964/0.883 | 1.000/0.817 | 0.656/0.983 | 0.978/0.750 |
//! | blind10, before | 64 | 0.909/0.667 | 1.000/0.750 | 0.491/0.950 | 0.971/0.567 |
//! | blind10, after | 61 | 0.911/0.683 | 1.000/0.750 | 0.500/0.950 | 0.972/0.583 |
//!
//! With MiniLM `blind11` is at 34 too; through the save path 42 to 36.
//! Its misses by kind (counts the held-out scorer prints): restatements
//! read as new 14, discards read as new 11, contradictions read as new 6.
//!
//! The round after (2026-12-08) read more values as written (counts joined
//! by a hyphen, `08/2026`, `14 Mar`, `first Thursday`, `'16`, `80 grand`),
//! corrections by value ("March 21, not the 14th"), a switch to what a
//! memory ranks below, the speaker's facts said tersely or with a laugh,
//! and questions without their mark. Spent splits 310 to 295 misses (one
//! lost and won back); by the held-out splits' counts alone:
//!
//! | split | misses | contradiction | discarded | new | reinforced |
//! | --- | --- | --- | --- | --- | --- |
//! | blind11, after | 32 | 0.964/0.883 | 1.000/0.817 | 0.670/0.983 | 0.979/0.783 |
//! | blind10, after | 62 | 0.909/0.667 | 1.000/0.750 | 0.500/0.950 | 0.973/0.600 |
//!
//! `blind10` lost one contradiction to the hyphenated counts and one
//! restatement to the ordinal days and won one back with `grand`. A first
//! form of the speaker's facts (any text with "I" or "my") cost `blind11`
//! two discards and was narrowed to the copula and "have": that choice was
//! made on `blind11`'s counts, so its discard figures are no longer
//! untouched. With MiniLM `blind11` 32, `blind10` 61; through the save
//! path 34 and 67.
//!
//! `cargo test -p engram-commands --test decide_corpus -- --nocapture`
//! prints the figures and every miss.

mod support;

use std::collections::BTreeMap;

use engram_commands::decide::{Neighbour, Outcome, decide};

const FLOOR: f64 = 0.9;
/// The floor on `blind`'s precision and recall of every outcome: just
/// under its lowest figure (new precision 0.900).
const BLIND_FLOOR: f64 = 0.88;
/// The floor on `blind2`'s precision and recall of every outcome: just
/// under its lowest figure (reinforced recall 0.817).
const BLIND2_FLOOR: f64 = 0.8;
/// The floor on `blind3`'s precision and recall of every outcome: just
/// under its lowest figure (reinforced recall 0.369).
const BLIND3_FLOOR: f64 = 0.35;
/// The floor on `blind4`'s precision and recall of every outcome: just
/// under its lowest figure (reinforced recall 0.600).
const BLIND4_FLOOR: f64 = 0.58;
/// The floor on `blind5`'s precision and recall of every outcome: just
/// under its lowest figure (reinforced recall 0.633; 0.367 when
/// committed).
const BLIND5_FLOOR: f64 = 0.62;
/// The floor on `blind6`'s precision and recall of every outcome: just
/// under its lowest figure (reinforced recall 0.317; contradiction recall
/// 0.183 when committed).
const BLIND6_FLOOR: f64 = 0.3;
/// The floor on `blind7`'s precision and recall of every outcome: just
/// under its scoring when committed (reinforced recall 0.400).
const BLIND7_FLOOR: f64 = 0.38;
/// The floor on `blind8`'s precision and recall of every outcome: just
/// under its scoring when committed (reinforced recall 0.267).
const BLIND8_FLOOR: f64 = 0.25;
const OUTCOMES: [&str; 4] = ["new", "reinforced", "contradiction", "discarded"];

struct Row {
    lang: String,
    existing: String,
    new: String,
    expected: String,
}

fn rows(split: &str) -> Vec<Row> {
    rows_of(support::corpus_lines("decide", split))
}

fn rows_of(lines: Vec<serde_json::Value>) -> Vec<Row> {
    lines
        .into_iter()
        .map(|v| {
            let field = |name: &str| v[name].as_str().unwrap().to_owned();
            Row {
                lang: field("lang"),
                existing: field("existing"),
                new: field("new"),
                expected: field("expected"),
            }
        })
        .collect()
}

fn label(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::New => "new",
        Outcome::Reinforced { .. } => "reinforced",
        Outcome::Contradiction { .. } => "contradiction",
        Outcome::Discarded { .. } => "discarded",
    }
}

/// Per outcome (precision, recall), and the misses.
fn measure(split: &str) -> (BTreeMap<&'static str, (f64, f64)>, Vec<String>) {
    measure_rows(&rows(split))
}

/// The decision on a row's new text, its existing text the one neighbour.
fn decide_row(row: &Row) -> engram_commands::decide::Decision {
    let existing = Neighbour {
        id: 1,
        text: row.existing.as_str().into(),
        topic: "room".into(),
        corridor: "general".into(),
        tags: Vec::new().into(),
        profile: None,
        semantic: None,
    };
    decide(&row.new, &[], None, &[existing], &|_| Vec::new())
}

fn measure_rows(rows: &[Row]) -> (BTreeMap<&'static str, (f64, f64)>, Vec<String>) {
    let mut counts: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new(); // (tp, predicted, actual)
    let mut misses = Vec::new();
    for row in rows {
        let decision = decide_row(row);
        let got = label(&decision.outcome);
        let expected = OUTCOMES
            .iter()
            .find(|o| **o == row.expected)
            .copied()
            .unwrap_or_else(|| panic!("unknown label {:?}", row.expected));
        counts.entry(got).or_default().1 += 1;
        counts.entry(expected).or_default().2 += 1;
        if got == expected {
            counts.entry(got).or_default().0 += 1;
        } else {
            misses.push(format!(
                "[{}] {:?} then {:?}: expected {expected}, got {:?}",
                row.lang, row.existing, row.new, decision.outcome
            ));
        }
    }
    let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
    let figures = OUTCOMES
        .iter()
        .map(|o| {
            let (tp, predicted, actual) = counts.get(o).copied().unwrap_or_default();
            (*o, (ratio(tp, predicted), ratio(tp, actual)))
        })
        .collect();
    (figures, misses)
}

fn check(split: &str, floor: f64) {
    let (figures, misses) = measure(split);
    println!("decide corpus, {split} split ({} misses):", misses.len());
    for (outcome, (precision, recall)) in &figures {
        println!("  {outcome:<14} precision {precision:.3}  recall {recall:.3}");
    }
    for miss in &misses {
        println!("  miss: {miss}");
    }
    for (outcome, (precision, recall)) in &figures {
        assert!(
            *precision >= floor && *recall >= floor,
            "{split}: {outcome} precision {precision:.3}, recall {recall:.3} (floor {floor})"
        );
    }
}

#[test]
fn dev_split_meets_the_floor() {
    check("dev", FLOOR);
}

#[test]
fn test_split_meets_the_floor() {
    check("test", FLOOR);
}

#[test]
fn blind_split_holds_its_ground() {
    check("blind", BLIND_FLOOR);
}

#[test]
fn blind2_split_holds_its_ground() {
    check("blind2", BLIND2_FLOOR);
}

#[test]
fn blind3_split_holds_its_ground() {
    check("blind3", BLIND3_FLOOR);
}

#[test]
fn blind4_split_holds_its_ground() {
    check("blind4", BLIND4_FLOOR);
}

#[test]
fn blind5_split_holds_its_ground() {
    check("blind5", BLIND5_FLOOR);
}

#[test]
fn blind6_split_holds_its_ground() {
    check("blind6", BLIND6_FLOOR);
}

#[test]
fn blind7_split_holds_its_ground() {
    check("blind7", BLIND7_FLOOR);
}

#[test]
fn blind8_split_holds_its_ground() {
    check("blind8", BLIND8_FLOOR);
}

#[test]
fn the_splits_share_no_pair() {
    let dev: Vec<(String, String)> = rows("dev")
        .into_iter()
        .map(|r| (r.existing, r.new))
        .collect();
    for row in rows("test")
        .into_iter()
        .chain(rows("blind"))
        .chain(rows("blind2"))
        .chain(rows("blind3"))
        .chain(rows("blind4"))
        .chain(rows("blind5"))
        .chain(rows("blind6"))
        .chain(rows("blind7"))
        .chain(rows("blind8"))
    {
        assert!(
            !dev.contains(&(row.existing.clone(), row.new.clone())),
            "{:?} / {:?} is in both splits",
            row.existing,
            row.new
        );
    }
}

/// Scores the held-out file that `ENGRAM_DECIDE_HELDOUT` names and prints
/// the figures alone, never a row or a miss, so the split stays unseen by
/// whoever tunes the rules: `ENGRAM_DECIDE_HELDOUT=FILE cargo test -p
/// engram-commands --test decide_corpus held_out -- --ignored --nocapture`.
#[test]
#[ignore = "needs a held-out file named by ENGRAM_DECIDE_HELDOUT"]
fn held_out_figures() {
    let path = std::env::var("ENGRAM_DECIDE_HELDOUT").expect("ENGRAM_DECIDE_HELDOUT names a file");
    let lines = support::json_lines(&path);
    let rows = rows_of(lines);
    let (figures, misses) = measure_rows(&rows);
    println!(
        "held-out {path}: {} pairs, {} misses",
        rows.len(),
        misses.len()
    );
    for (outcome, (precision, recall)) in &figures {
        println!("  {outcome:<14} precision {precision:.3}  recall {recall:.3}");
    }
    // Where the misses lie, in counts only (no row is shown): what each
    // expected outcome was decided as, and the misses by the scripts of
    // the two texts.
    let mut confusion: BTreeMap<(String, &str), usize> = BTreeMap::new();
    let mut by_scripts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for row in &rows {
        let got = label(&decide_row(row).outcome);
        let cjk = |t: &str| t.chars().any(engram_text::script::is_cjk);
        let scripts = match (cjk(&row.existing), cjk(&row.new)) {
            (false, false) => "both English",
            (true, true) => "both Chinese",
            _ => "one of each",
        };
        let entry = by_scripts.entry(scripts).or_default();
        entry.1 += 1;
        if got != row.expected {
            entry.0 += 1;
            *confusion.entry((row.expected.clone(), got)).or_default() += 1;
        }
    }
    println!("  misses, expected -> decided:");
    for ((expected, got), n) in &confusion {
        println!("    {expected} -> {got}: {n}");
    }
    println!("  misses by the scripts of the pair:");
    for (scripts, (missed, all)) in &by_scripts {
        println!("    {scripts}: {missed} of {all}");
    }
}

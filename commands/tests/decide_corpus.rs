//! The save-decision corpus (`tests/corpus/decide/{dev,test}.jsonl`): pairs
//! of an existing memory and a new text, labelled with the outcome a save
//! of the new text must have. Precision and recall of every outcome must
//! be at least [`FLOOR`] on each split. Tuning looks at `dev` only; `test`
//! uses other vocabulary and phrasing and is the reported figure.
//!
//! `cargo test -p engram-commands --test decide_corpus -- --nocapture`
//! prints the figures and every miss.

mod support;

use std::collections::BTreeMap;

use engram_commands::decide::{Neighbour, Outcome, decide};

const FLOOR: f64 = 0.9;
const OUTCOMES: [&str; 4] = ["new", "reinforced", "contradiction", "discarded"];

struct Row {
    lang: String,
    existing: String,
    new: String,
    expected: String,
}

fn rows(split: &str) -> Vec<Row> {
    support::corpus_lines("decide", split)
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
    let rows = rows(split);
    let mut counts: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new(); // (tp, predicted, actual)
    let mut misses = Vec::new();
    for row in &rows {
        let existing = Neighbour {
            id: 1,
            text: row.existing.clone(),
            topic: "room".to_owned(),
            corridor: "general".to_owned(),
            tags: Vec::new(),
            profile: None,
            semantic: None,
        };
        let decision = decide(&row.new, &[], None, &[existing], &|_| Vec::new());
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

fn check(split: &str) {
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
            *precision >= FLOOR && *recall >= FLOOR,
            "{split}: {outcome} precision {precision:.3}, recall {recall:.3} (floor {FLOOR})"
        );
    }
}

#[test]
fn dev_split_meets_the_floor() {
    check("dev");
}

#[test]
fn test_split_meets_the_floor() {
    check("test");
}

#[test]
fn the_splits_share_no_pair() {
    let dev: Vec<(String, String)> = rows("dev")
        .into_iter()
        .map(|r| (r.existing, r.new))
        .collect();
    for row in rows("test") {
        assert!(
            !dev.contains(&(row.existing.clone(), row.new.clone())),
            "{:?} / {:?} is in both splits",
            row.existing,
            row.new
        );
    }
}

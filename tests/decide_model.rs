//! Save decisions with a sentence model: the decide corpus
//! (`commands/tests/corpus/decide`) decided as a save with all-MiniLM-L6-v2
//! attached decides it, each pair's existing memory carrying the cosine of
//! the two texts' vectors (`Neighbour::semantic`). The rules-only figures
//! are `commands/tests/decide_corpus.rs`'s; these say what the model adds.
//!
//! Needs the published weights (`ENGRAM_TEST_MINILM_DIR`, required in CI).
//! With `ENGRAM_DECIDE_HELDOUT` naming a held-out file, its figures are
//! printed too (never its rows): `ENGRAM_TEST_MINILM_DIR=DIR
//! ENGRAM_DECIDE_HELDOUT=FILE cargo test --test tests decide_model --
//! --nocapture`.

use std::collections::BTreeMap;
use std::path::Path;

use engram_commands::decide::{Neighbour, Outcome, decide};
use engram_embed::{BertEmbedder, Embedder};
use engram_text::script::model_reads;

use crate::support::skip_unless_required;

const OUTCOMES: [&str; 4] = ["new", "reinforced", "contradiction", "discarded"];
/// A model attached must keep every outcome at the rules' floor on the dev
/// and test splits (`decide_corpus.rs`'s `FLOOR`) ...
const FLOOR: f64 = 0.9;
/// ... and `blind` and `blind2` at their floors (`BLIND_FLOOR` and
/// `BLIND2_FLOOR` there).
const BLIND_FLOOR: f64 = 0.75;
const BLIND2_FLOOR: f64 = 0.68;
/// `blind3`'s floor, as in `decide_corpus.rs`.
const BLIND3_FLOOR: f64 = 0.08;

struct Pair {
    existing: String,
    new: String,
    expected: String,
}

fn pairs(path: &Path) -> Vec<Pair> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let field = |name: &str| v[name].as_str().unwrap().to_owned();
            Pair {
                existing: field("existing"),
                new: field("new"),
                expected: field("expected"),
            }
        })
        .collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (norm(a) * norm(b)).max(f32::EPSILON)
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
fn measure(
    model: &dyn Embedder,
    pairs: &[Pair],
) -> (BTreeMap<&'static str, (f64, f64)>, Vec<String>) {
    let mut counts: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    for pair in pairs {
        let vectors = model
            .embed(&[pair.existing.as_str(), pair.new.as_str()])
            .unwrap();
        // As a save asks: never about text the model cannot read.
        let reads = |text: &str| model_reads(model.model_id(), text);
        let existing = Neighbour {
            id: 1,
            text: pair.existing.as_str().into(),
            topic: "room".into(),
            corridor: "general".into(),
            tags: Vec::new().into(),
            profile: None,
            semantic: (reads(&pair.existing) && reads(&pair.new))
                .then(|| cosine(&vectors[0], &vectors[1])),
        };
        let semantic = existing.semantic;
        let got = label(&decide(&pair.new, &[], None, &[existing], &|_| Vec::new()).outcome);
        let expected = OUTCOMES
            .iter()
            .find(|o| **o == pair.expected)
            .copied()
            .unwrap();
        counts.entry(got).or_default().1 += 1;
        counts.entry(expected).or_default().2 += 1;
        if got == expected {
            counts.entry(got).or_default().0 += 1;
        } else {
            misses.push(format!(
                "{:?} then {:?} (cosine {semantic:?}): expected {expected}, got {got}",
                pair.existing, pair.new
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

fn print(name: &str, n: usize, figures: &BTreeMap<&str, (f64, f64)>, misses: usize) {
    println!("decide with MiniLM, {name} ({n} pairs, {misses} misses):");
    for (outcome, (precision, recall)) in figures {
        println!("  {outcome:<14} precision {precision:.3}  recall {recall:.3}");
    }
}

#[test]
fn decide_corpus_with_the_sentence_model() {
    let Some(dir) = std::env::var_os("ENGRAM_TEST_MINILM_DIR").filter(|d| !d.is_empty()) else {
        skip_unless_required(
            "ENGRAM_TEST_REQUIRE_MINILM",
            "ENGRAM_TEST_MINILM_DIR is not set: run embed/fetch-minilm.sh DIR and point it at DIR",
        );
        return;
    };
    let model = BertEmbedder::load(Path::new(&dir)).unwrap();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("commands/tests/corpus/decide");
    for (split, floor) in [
        ("dev", FLOOR),
        ("test", FLOOR),
        ("blind", BLIND_FLOOR),
        ("blind2", BLIND2_FLOOR),
        ("blind3", BLIND3_FLOOR),
    ] {
        let pairs = pairs(&corpus.join(format!("{split}.jsonl")));
        let (figures, misses) = measure(&model, &pairs);
        print(split, pairs.len(), &figures, misses.len());
        for miss in &misses {
            println!("  miss: {miss}");
        }
        for (outcome, (precision, recall)) in &figures {
            assert!(
                *precision >= floor && *recall >= floor,
                "{split} with the model: {outcome} precision {precision:.3}, recall {recall:.3} (floor {floor})"
            );
        }
    }
    if let Some(path) = std::env::var_os("ENGRAM_DECIDE_HELDOUT").filter(|p| !p.is_empty()) {
        let pairs = pairs(Path::new(&path));
        let (figures, misses) = measure(&model, &pairs);
        print("held-out", pairs.len(), &figures, misses.len());
    }
}

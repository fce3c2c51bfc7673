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
//! --nocapture`. With `ENGRAM_DECIDE_COSINES=1` it also prints where the
//! model puts each expected outcome, per split and language and pooled
//! over the tuning splits ([`print_cosines`]): quartiles, and pairs per
//! cosine bin with how many the save got right.
//!
//! The model reads English only (`model_reads`): Chinese pairs (31-39% of
//! each split) carry no cosine and go by the rules alone. On the English
//! pairs of the tuning splits (dev, blind, blind2, blind3; `test` checks),
//! restatements sit at cosine first quartile 0.76, median 0.86;
//! contradictions at 0.77 and 0.86, where restatements are; new facts at
//! median 0.55, third quartile 0.71; discarded pairs under 0.21 (one at
//! 0.61). Restatements sit lower the later the split was written: median
//! 0.96 in dev, 0.89 in blind, 0.85 in blind2, 0.76 in blind3.
//!
//! Before, a cosine counted from 0.8 (near) and 0.92 (restatement), above
//! 70% of the restatements, and the model changed one pair of blind3.
//! Now ([`engram_commands::decide`]'s module doc) a pair restates from
//! 0.75 when the rules find nothing that makes the two texts two facts (a
//! paraphrase), is near from 0.75, and one sentence with one slot after
//! its subject filled two ways contradicts from 0.8. Precision/recall with
//! the model, before and after:
//!
//! | split | misses | contradiction | discarded | new | reinforced |
//! | --- | --- | --- | --- | --- | --- |
//! | dev, before | 0 | 1.000/1.000 | 1.000/1.000 | 1.000/1.000 | 1.000/1.000 |
//! | dev, after | 0 | 1.000/1.000 | 1.000/1.000 | 1.000/1.000 | 1.000/1.000 |
//! | test, before | 0 | 1.000/1.000 | 1.000/1.000 | 1.000/1.000 | 1.000/1.000 |
//! | test, after | 0 | 1.000/1.000 | 1.000/1.000 | 1.000/1.000 | 1.000/1.000 |
//! | blind, before | 16 | 0.932/0.911 | 0.979/1.000 | 0.786/0.957 | 1.000/0.778 |
//! | blind, after | 14 | 0.932/0.911 | 0.979/1.000 | 0.815/0.957 | 1.000/0.822 |
//! | blind2, before | 22 | 0.982/0.933 | 1.000/1.000 | 0.741/1.000 | 1.000/0.700 |
//! | blind2, after | 19 | 0.982/0.933 | 1.000/1.000 | 0.776/0.983 | 0.979/0.767 |
//! | blind3, before | 91 | 0.896/0.662 | 1.000/0.775 | 0.441/0.971 | 0.875/0.108 |
//! | blind3, after | 78 | 0.909/0.769 | 1.000/0.775 | 0.482/0.971 | 0.929/0.200 |
//! | blind3, and questions discarded | 73 | 0.926/0.769 | 1.000/0.900 | 0.496/0.971 | 0.929/0.200 |
//! | blind4, before | 106 | 0.808/0.350 | 0.930/0.667 | 0.378/0.983 | 0.933/0.233 |
//! | blind4, after | 103 | 0.815/0.367 | 0.930/0.667 | 0.386/0.983 | 0.941/0.267 |
//! | blind4, and questions discarded | 97 | 0.846/0.367 | 0.939/0.767 | 0.396/0.983 | 1.000/0.267 |
//!
//! `blind4` was written after the thresholds were chosen and kept outside
//! the repository, scored by its figures alone (the rules alone: 106
//! misses before, 100 after): the measure of this change on unseen text.
//! The model reads few more of its pairs right: most of its restatements
//! and updates the rules set against it, or the text index never hands
//! the save as a neighbour.
//!
//! In the next round (2026-12-05, second session) the rules learned the
//! families `blind3` and `blind4` showed (see `decide_corpus.rs`), and a
//! fresh split, `blind5`, measured it; with the model, before and after:
//!
//! | split | misses | contradiction | discarded | new | reinforced |
//! | --- | --- | --- | --- | --- | --- |
//! | blind, after | 9 | 0.977/0.933 | 0.979/1.000 | 0.865/0.978 | 1.000/0.889 |
//! | blind2, after | 18 | 0.983/0.950 | 1.000/1.000 | 0.787/0.983 | 0.979/0.767 |
//! | blind3, after | 57 | 0.934/0.877 | 1.000/1.000 | 0.562/0.986 | 1.000/0.262 |
//! | blind4, after | 61 | 1.000/0.567 | 0.952/0.983 | 0.508/1.000 | 1.000/0.433 |
//! | blind5, before | 85 | 0.879/0.483 | 0.977/0.717 | 0.428/0.983 | 0.960/0.400 |
//! | blind5, after | 78 | 0.970/0.533 | 0.977/0.717 | 0.440/0.983 | 0.966/0.467 |
//!
//! The round after (2026-12-05, third session: pairs worded apart read
//! by their values, changed values, named old values and changed
//! choices; reactions discarded), with the model:
//!
//! | split | misses | contradiction | discarded | new | reinforced |
//! | --- | --- | --- | --- | --- | --- |
//! | blind5, after | 42 | 0.978/0.733 | 0.983/0.950 | 0.600/1.000 | 1.000/0.617 |
//! | blind6, before | 133 | 0.800/0.133 | 0.969/0.517 | 0.309/0.967 | 1.000/0.167 |
//! | blind6, after | 115 | 0.846/0.183 | 0.977/0.700 | 0.341/0.967 | 1.000/0.233 |
//!
//! `blind6` was written before the round and scored by its figures alone;
//! with the model it now scores as the rules do alone.
//!
//! The round after that (2026-12-05, fourth session: remarks on the
//! moment, changes said by "now" or a period that opens, ends, a role
//! left, distinctive values, an avoidance a condition entails), with the
//! model:
//!
//! | split | misses | contradiction | discarded | new | reinforced |
//! | --- | --- | --- | --- | --- | --- |
//! | blind6, after | 84 | 0.929/0.433 | 0.982/0.917 | 0.417/0.967 | 1.000/0.283 |
//! | blind7, before | 81 | 0.909/0.500 | 1.000/0.783 | 0.431/0.983 | 1.000/0.383 |
//! | blind7, after | 75 | 0.914/0.533 | 1.000/0.817 | 0.450/0.983 | 1.000/0.417 |
//!
//! `blind7` was written before the round and scored by its figures alone;
//! the model adds one reinforcement to the rules' figures there.
//!
//! `test` does not tell the change apart: its restatements sit at 0.84 or
//! more and its close new facts differ by an identifier. Of blind3's 39
//! English restatements 11 reinforce now (5 before); the 26 Chinese ones
//! are the rules' (2 reinforce). What the model still misses, the
//! rules decide against it: a restatement with a negation on one side only
//! ("Carol doesn't eat meat" after "Carol is vegetarian", which reads as
//! a contradiction would), a value written in two ways the reading does
//! not join ("5k" and "5 km", "half past nine" and "9:30"), more than
//! two words of its own (three would reinforce 6 more here, and also
//! "Hotfix deploys skip staging but still need two reviewers" after
//! "Deploys to production need two reviewers"), or under 0.75.

use std::collections::BTreeMap;
use std::path::Path;

use engram_commands::decide::{Neighbour, Outcome, decide};
use engram_embed::{BertEmbedder, Embedder};
use engram_text::script::model_reads;

use crate::support::skip_unless_required;

/// The four outcomes, as the corpus labels them.
pub(crate) const OUTCOMES: [&str; 4] = ["new", "reinforced", "contradiction", "discarded"];
/// A model attached must keep every outcome at the rules' floor on the dev
/// and test splits (`decide_corpus.rs`'s `FLOOR`, the target) ...
const FLOOR: f64 = 0.9;
/// ... and `blind`, `blind2` and `blind3` just under their lowest figures
/// with the model (new precision 0.865, reinforced recall 0.767 and
/// 0.262), above the rules' floors there.
const BLIND_FLOOR: f64 = 0.85;
const BLIND2_FLOOR: f64 = 0.75;
const BLIND3_FLOOR: f64 = 0.25;
/// `blind4`, written after those thresholds were chosen and scored by its
/// figures alone until committed: just under its lowest figure with the
/// model (reinforced recall 0.433).
const BLIND4_FLOOR: f64 = 0.41;
/// `blind5`, the same way a round later: just under its lowest figure
/// with the model (new precision 0.440).
const BLIND5_FLOOR: f64 = 0.42;
/// `blind6`, a round later again: just under its lowest figure with the
/// model (reinforced recall 0.283; contradiction recall 0.183 when
/// committed).
const BLIND6_FLOOR: f64 = 0.27;
/// `blind7`, a round later again: just under its lowest figure with the
/// model when committed (reinforced recall 0.417).
const BLIND7_FLOOR: f64 = 0.4;
/// `blind8`, a round later again: just under its lowest figure with the
/// model when committed (reinforced recall 0.283; 87 misses against the
/// rules' 88).
const BLIND8_FLOOR: f64 = 0.26;

/// One labelled pair of the decide corpus.
pub(crate) struct Pair {
    pub(crate) lang: String,
    pub(crate) existing: String,
    pub(crate) new: String,
    pub(crate) expected: String,
}

/// The pairs of a decide corpus file (JSON lines).
pub(crate) fn pairs(path: &Path) -> Vec<Pair> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let field = |name: &str| v[name].as_str().unwrap().to_owned();
            Pair {
                lang: field("lang"),
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

/// What one pair was decided with: its language and expected outcome, its
/// cosine (`None` where the model does not read the text) and the outcome
/// the save took.
#[derive(Clone)]
struct Scored {
    lang: String,
    expected: &'static str,
    cosine: Option<f32>,
    got: &'static str,
}

/// Per outcome (precision, recall), the misses, and each pair's cosine and
/// outcome.
type Measured = (BTreeMap<&'static str, (f64, f64)>, Vec<String>, Vec<Scored>);

fn measure(model: &dyn Embedder, pairs: &[Pair]) -> Measured {
    let mut counts: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    let mut scored = Vec::new();
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
        scored.push(Scored {
            lang: pair.lang.clone(),
            expected,
            cosine: semantic,
            got,
        });
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
    (figures, misses, scored)
}

fn print(name: &str, n: usize, figures: &BTreeMap<&str, (f64, f64)>, misses: usize) {
    println!("decide with MiniLM, {name} ({n} pairs, {misses} misses):");
    for (outcome, (precision, recall)) in figures {
        println!("  {outcome:<14} precision {precision:.3}  recall {recall:.3}");
    }
}

/// Lower edges of the cosine bins [`print_cosines`] counts pairs in; the
/// last bin runs to 1.
const COSINE_BINS: [f32; 9] = [0.0, 0.4, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9];

/// Where the model puts each expected outcome, per language: how many
/// pairs, how many it does not read (no cosine: they go by rules alone),
/// the quartiles of the rest, and a count per [`COSINE_BINS`] bin, with
/// how many of those the save decided as expected (`hits/pairs`). Never
/// printed for a held-out file: only the figures leave it.
fn print_cosines(split: &str, scored: &[Scored]) {
    println!("cosines, {split} (bins from {COSINE_BINS:?}; hits/pairs):");
    let mut groups: BTreeMap<(&str, &str), Vec<&Scored>> = BTreeMap::new();
    for s in scored {
        groups
            .entry((s.expected, s.lang.as_str()))
            .or_default()
            .push(s);
    }
    for ((expected, lang), group) in groups {
        let mut cosines: Vec<f32> = group.iter().filter_map(|s| s.cosine).collect();
        cosines.sort_by(f32::total_cmp);
        let unread = group.len() - cosines.len();
        let quantile = |q: f64| -> String {
            if cosines.is_empty() {
                return "-".to_owned();
            }
            let at = ((cosines.len() - 1) as f64 * q).round() as usize;
            format!("{:.2}", cosines[at])
        };
        let bins: Vec<String> = COSINE_BINS
            .iter()
            .enumerate()
            .map(|(i, low)| {
                let high = COSINE_BINS.get(i + 1).copied().unwrap_or(f32::INFINITY);
                let in_bin: Vec<_> = group
                    .iter()
                    .filter(|s| s.cosine.is_some_and(|c| c >= *low && c < high))
                    .collect();
                let hits = in_bin.iter().filter(|s| s.got == expected).count();
                format!("{hits}/{}", in_bin.len())
            })
            .collect();
        println!(
            "  {expected:<14} {lang} n={:<3} unread={unread:<3} min {} q1 {} median {} q3 {} max {}  bins {}",
            group.len(),
            quantile(0.0),
            quantile(0.25),
            quantile(0.5),
            quantile(0.75),
            quantile(1.0),
            bins.join(" ")
        );
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
    let print_distribution =
        std::env::var_os("ENGRAM_DECIDE_COSINES").is_some_and(|v| !v.is_empty());
    // The splits the thresholds were chosen on, pooled: `test` is left
    // out, to check them.
    let mut tuning: Vec<Scored> = Vec::new();
    for (split, floor) in [
        ("dev", FLOOR),
        ("test", FLOOR),
        ("blind", BLIND_FLOOR),
        ("blind2", BLIND2_FLOOR),
        ("blind3", BLIND3_FLOOR),
        ("blind4", BLIND4_FLOOR),
        ("blind5", BLIND5_FLOOR),
        ("blind6", BLIND6_FLOOR),
        ("blind7", BLIND7_FLOOR),
        ("blind8", BLIND8_FLOOR),
    ] {
        let pairs = pairs(&corpus.join(format!("{split}.jsonl")));
        let (figures, misses, scored) = measure(&model, &pairs);
        if print_distribution {
            print_cosines(split, &scored);
        }
        if !matches!(
            split,
            "test" | "blind4" | "blind5" | "blind6" | "blind7" | "blind8"
        ) {
            tuning.extend(scored);
        }
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
    if print_distribution {
        print_cosines("dev, blind, blind2 and blind3 pooled", &tuning);
    }
    if let Some(path) = std::env::var_os("ENGRAM_DECIDE_HELDOUT").filter(|p| !p.is_empty()) {
        let pairs = pairs(Path::new(&path));
        let (figures, misses, _) = measure(&model, &pairs);
        print("held-out", pairs.len(), &figures, misses.len());
    }
}

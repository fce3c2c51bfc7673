//! The extraction corpus (`tests/corpus/extract/dev.jsonl` and
//! `test.jsonl`): transcript turns (user and assistant,
//! English and Chinese), each labelled with the sentences worth
//! remembering and their kind (`preference`, `decision`, `correction`,
//! `fact`); most turns are task chatter labelled with nothing.
//!
//! - `dev` (543 turns) is what the rules are written and tuned against:
//!   its figures are an upper bound, not a measurement. Its lines 213-312
//!   and 313-543 were test splits, each written by someone who had seen
//!   neither the rules nor the rest of `dev` (notebooks, firmware, games,
//!   ops; then 16 conversations, 46% with Chinese), scored once and then
//!   moved here.
//! - `test` (292 turns, 22 conversations, 45% with Chinese, each line
//!   naming its conversation in `conv`) is a split nobody tuned against,
//!   written by someone who had seen neither the rules nor `dev`, and
//!   scored once after the last change to the rules: the reported figure.
//!   A label is the span its writer chose, so a proposal matches a label
//!   of its turn when one span holds the other. Tuning against it spends
//!   it; a later round moves it to `dev` and writes a fresh one.
//!
//! - `blind2` (238 turns) was written from the labelling guide alone
//!   (`README-test.md`) and scored by its figures only while the rules
//!   changed; committed as a guard ([`BLIND2_FLOORS`]). It is now a
//!   tuning split: its misses were read (2026-12-02, third session),
//!   with those of `dev` and `test`, for general signals, so its figures
//!   too are an upper bound.
//!
//! - `blind3` (241 turns) was written without sight of the rules or the
//!   other splits, kept outside the repository and scored by its figures
//!   only: the measure of that round's signals (0.895/0.466 before,
//!   0.886/0.534 after; see [`BLIND3_FLOORS`]), then committed as a guard.
//!
//! - `blind4` (242 turns, 16 conversations, 45% with Chinese; each line
//!   also names its conversation, `conv`) was written the same way on
//!   2026-12-05, kept outside the repository and scored by its figures
//!   only: memory precision 1.000, recall 0.461, unchanged by that
//!   session (see [`BLIND4_FLOORS`]), then committed as a guard.
//!
//! - `blind3` and `blind4` are now tuning splits too: their misses were
//!   read (2026-12-05, second session) for families of statements the
//!   rules missed (amounts given in answer to the assistant's questions,
//!   a reason or a consequence beside chatter, likings said for a
//!   household or by a named person, rules on kinds of days and on how
//!   writing is styled, a family's diets, ages, roles and weekly
//!   schedules, plans with a next sprint or a date, Chinese choices said
//!   with "那就", "就 ... 吧", "定在" or "we X, not Y"), each written as a general rule and tested on
//!   sentences of its own. `blind3`: memory precision/recall 0.886 / 0.534
//!   -> 0.903 / 0.767; `blind4`: 1.000 / 0.461 -> 0.989 / 0.774 (by kind
//!   in [`BLIND3_FLOORS`] and [`BLIND4_FLOORS`]). The other splits in the
//!   same session: `dev` 0.981 / 0.942 -> 0.981 / 0.945, `test` 0.989 /
//!   0.870 -> 0.979 / 0.870, `blind2` 0.973 / 0.923 -> 0.956 / 0.923: an
//!   amount given as an answer is sometimes only the state of the moment
//!   ("现在每周大概 30 公里"). From here on their figures too are an upper
//!   bound; a fresh held-out split measures the rules
//!   ([`held_out_figures`]).
//!
//! - `blind5` and `blind6` are tuning splits too: the misses of every
//!   split were read (2026-12-05, last reading) for more families
//!   (money the household has or owes, conditions and medicines, life
//!   events set on a month or a season, what the speaker is making,
//!   refusals, stays split between places, choices acted on, an admission
//!   before the corrected value; in Chinese short statements, time served,
//!   money limits, plans dropped after a topic; clauses read apart when
//!   each is a value or about its own person). Memory precision / recall
//!   before -> after: `dev` 0.981 / 0.945 -> 0.981 / 0.945, `test` 0.979
//!   / 0.870 -> 0.980 / 0.898, `blind2` 0.956 / 0.923 -> 0.956 / 0.932,
//!   `blind3` 0.903 / 0.767 -> 0.912 / 0.849, `blind4` 0.989 / 0.774 ->
//!   0.989 / 0.817, `blind5` 0.953 / 0.587 -> 0.965 / 0.798, `blind6`
//!   0.833 / 0.505 -> 0.917 / 0.807. Every split's figures are now an
//!   upper bound.
//!
//! - `blind7` is a tuning split too: the misses of every split were read
//!   (2026-12-05, evening reading) for more families (habits set out on
//!   with a rate, wants narrowed to one kind or set over another, what
//!   someone else is taken with, a level or a score reached, a short reply
//!   naming what the assistant put forward with an affirmation; in Chinese
//!   wishes with 比较想 or 不希望, money held with its amount, surnames,
//!   what was studied, a statement before the question it raises, "那我就"
//!   concluding). Memory precision / recall before -> after: `dev` and
//!   `blind2`, `blind3` unchanged (0.981 / 0.945, 0.956 / 0.932, 0.912 /
//!   0.849), `test` 0.980 / 0.898 -> 0.980 / 0.907, `blind4` 0.989 /
//!   0.817 -> 0.990 / 0.835, `blind5` 0.965 / 0.798 -> 0.966 / 0.817,
//!   `blind6` 0.917 / 0.807 -> 0.918 / 0.817, `blind7` 0.905 / 0.655 ->
//!   0.923 / 0.828; no kind's precision or recall fell on any split.
//!
//! To see whether a change generalises inside `dev`, the figures are also
//! printed for its two halves: blocks of [`HALF_BLOCK_TURNS`] turns taken
//! in turn (so a conversation mostly stays in one half: the lines carry no
//! conversation, and past line 312 a block can hold the end of one and the
//! start of the next). Tune looking at one half's misses, then read the
//! other's figures.
//!
//! Two measures per split: *memory* precision and recall (a proposed
//! sentence is a labelled one, whatever its kind), and precision and
//! recall of each kind. The floors asserted are just below each split's
//! figures, so a regression fails the suite.
//!
//! `cargo test -p engram-commands --test extract_corpus -- --nocapture`
//! prints the figures and every miss.

mod support;

use std::collections::{BTreeMap, BTreeSet};

use engram_commands::extract::proposals;
use engram_log::Role;

/// Floors on memory precision and recall, and on each kind's, on `dev`.
const DEV_FLOORS: Floors = Floors {
    memory: 0.88,
    kind: 0.73,
};
/// The same on `test`: scored once on 2026-12-02, memory precision 0.941,
/// recall 0.593; by kind (precision, recall) correction 0.800/0.706,
/// decision 0.727/0.308, fact 0.840/0.512, preference 0.471/0.333. The
/// rules before the general signals scored 0.959/0.435 on the same split
/// (correction 1.000/0.471, decision 0.750/0.346, fact 0.846/0.268,
/// preference 0.500/0.333). Decisions and preferences said without a
/// marker are the weak side. Its misses were then read (2026-12-02, second
/// session) for five general signals (an allergy or a diet, where home is,
/// "we're on"/"we're a", a rule ending in "always"/"everywhere"): 0.944 /
/// 0.620, so it is no longer unseen; a fresh held-out split kept outside
/// the repository measures them ([`held_out_figures`]). The third
/// session read its misses again with `blind2`'s for broader signals
/// (wanted rules, family, schedules, trips, Chinese clauses beside an
/// ask, "let's <choice>", corrections midway, rules over values):
/// 0.944 / 0.620 -> 0.989 / 0.870; by kind correction 0.800/0.706 ->
/// 0.938/0.882, decision 0.727/0.308 -> 0.882/0.577, fact 0.857/0.585
/// -> 0.892/0.805, preference 0.471/0.333 -> 0.640/0.667. `dev` in the
/// same session: 0.976 / 0.895 -> 0.981 / 0.942 (correction
/// 0.958/0.939 -> 0.980/1.000, decision 0.867/0.945 -> 0.883/0.964,
/// fact 0.935/0.750 -> 0.964/0.833, preference 0.955/0.853 ->
/// 0.958/0.907). The last reading of 2026-12-05: 0.979 / 0.870 ->
/// 0.980 / 0.898 (correction 0.938/0.882, decision 0.889/0.615, fact
/// 0.892/0.805, preference 0.643/0.750). After the evening reading of
/// 2026-12-05: 0.980 / 0.907 (decision 0.895/0.654, the rest the same).
const TEST_FLOORS: Floors = Floors {
    memory: 0.90,
    kind: 0.61,
};

/// The same on `blind2` (238 turns, 14 conversations, 43% with Chinese,
/// written from the labelling guide alone and kept outside the repository
/// while the rules changed; scored by its figures only): memory precision
/// 0.900, recall 0.615 before the second session's signals, 0.901 / 0.624
/// after; by kind correction 0.933/0.824, decision 0.857/0.545, fact
/// 0.677/0.429, preference 0.857/0.621. Then read as a tuning split (third
/// session): 0.973 / 0.923; by kind correction 1.000/1.000, decision
/// 0.950/0.864, fact 0.933/0.857, preference 0.931/0.931. The floors sit
/// just below these. After the last reading of 2026-12-05: 0.956 /
/// 0.932 (correction 1.000/1.000, decision 0.950/0.864, fact 0.894/0.857,
/// preference 0.900/0.931).
const BLIND2_FLOORS: Floors = Floors {
    memory: 0.93,
    kind: 0.85,
};

/// The same on `blind3` (241 turns, 16 conversations, 43% with Chinese,
/// written without sight of the rules or the other splits and kept
/// outside the repository; scored by its figures only): memory precision
/// 0.895, recall 0.466 before the third session's signals (by kind
/// correction 0.750/0.667, decision 0.600/0.333, fact 0.750/0.324,
/// preference 0.889/0.444); 0.886 / 0.534 after them (correction
/// 0.800/0.889, decision 0.667/0.444, fact 0.789/0.405, preference
/// 0.889/0.444). Read as a tuning split (2026-12-05, second session):
/// 0.903 / 0.767; by kind correction 1.000/1.000, decision 0.750/0.667,
/// fact 0.815/0.595, preference 0.944/0.944. After the last reading:
/// 0.912 / 0.849 (correction 1.000/1.000, decision 0.778/0.778, fact
/// 0.844/0.730, preference 0.944/0.944). The floors sit just below these.
const BLIND3_FLOORS: Floors = Floors {
    memory: 0.84,
    kind: 0.72,
};

/// The same on `blind4` (242 turns; scored by its figures only): memory
/// precision 1.000, recall 0.461 (by kind correction 0.800/0.800,
/// decision 0.800/0.348, fact 0.833/0.308, preference 1.000/0.529). Read
/// as a tuning split (2026-12-05, second session): 0.989 / 0.774; by kind
/// correction 0.900/0.900, decision 0.875/0.609, fact 0.920/0.708,
/// preference 1.000/0.824. After the last reading: 0.989 / 0.817
/// (correction 0.900/0.900, decision 0.882/0.652, fact 0.907/0.754,
/// preference 1.000/0.824). After the evening reading of 2026-12-05:
/// 0.990 / 0.835 (fact 0.911/0.785, the rest the same). The floors sit
/// just below these.
const BLIND4_FLOORS: Floors = Floors {
    memory: 0.83,
    kind: 0.65,
};

/// The same on `blind5` (240 turns, 16 conversations; written without
/// sight of the rules or the other splits, kept outside the repository and
/// scored by its figures only): before the second session of 2026-12-05
/// memory precision 0.974, recall 0.356; after it 0.946 / 0.510 (by kind
/// correction 0.800/0.800, decision 0.400/0.083, fact 0.765/0.510,
/// preference 1.000/0.368). Before the last reading of 2026-12-05 (the
/// rules having moved since): 0.953 / 0.587 (correction 0.800/0.800,
/// decision 0.769/0.417, fact 0.765/0.510, preference 1.000/0.368);
/// after it 0.965 / 0.798 (correction 0.818/0.900, decision 0.765/0.542,
/// fact 0.837/0.706, preference 0.867/0.684). After the evening reading
/// of 2026-12-05: 0.966 / 0.817 (fact 0.841/0.725, preference
/// 0.875/0.737). The floors sit just below these; decision recall is
/// still the lowest.
const BLIND5_FLOORS: Floors = Floors {
    memory: 0.81,
    kind: 0.54,
};

/// The same on `blind6` (240 turns, 16 conversations; written before the
/// third session of 2026-12-05 without sight of the rules or the other
/// splits, kept outside the repository and scored by its figures only):
/// before that session memory precision 0.820, recall 0.459 (by kind
/// correction 0.727/0.800, decision 0.556/0.185, fact 0.710/0.423,
/// preference 0.800/0.400); after it (commitments, intentions, choices
/// settled and plans dropped read as decisions) 0.833 / 0.505 (decision
/// 0.714/0.370, the rest the same). Read as a tuning split (last
/// reading of 2026-12-05): 0.917 / 0.807 (correction 0.909/1.000, decision 0.833/0.741,
/// fact 0.841/0.712, preference 0.824/0.700). After the evening reading
/// of 2026-12-05: 0.918 / 0.817 (decision 0.840/0.778). The floors sit
/// just below these.
const BLIND6_FLOORS: Floors = Floors {
    memory: 0.81,
    kind: 0.69,
};

/// The same on `blind7` (240 turns, 16 conversations, 6 in Chinese,
/// 87 labels; written before the fourth session of 2026-12-05 without
/// sight of the rules or the other splits, kept outside the repository
/// and scored by its figures only): memory precision 0.897, recall 0.598
/// before (correction 1.000/0.846, decision 0.833/0.588, fact
/// 0.773/0.472, preference 0.923/0.571); 0.905 / 0.655 after that
/// session's rules (fact 0.800/0.556, preference 0.933/0.667, the rest
/// the same), which took `blind6`, read for them, from 0.505 to 0.807
/// recall. Read as a tuning split (evening reading of 2026-12-05): 0.923 /
/// 0.828 (correction 1.000/0.846, decision 0.867/0.765, fact
/// 0.818/0.750, preference 0.947/0.857). The floors sit just below.
const BLIND7_FLOORS: Floors = Floors {
    memory: 0.82,
    kind: 0.74,
};

/// The same on `blind8` (240 turns, 16 conversations, 90 labels; written
/// at the end of the fourth session of 2026-12-05 the same way, kept
/// outside the repository and scored by its figures only): memory
/// precision 0.985, recall 0.733 before the fifth session's rules
/// (correction 1.000/1.000, decision 0.909/0.526, fact 0.926/0.658,
/// preference 1.000/0.765), 0.986 / 0.756 after (fact 0.931/0.711, the
/// rest the same). `blind9`, written at the start of that session, scored
/// 0.943 / 0.526 before (correction 0.929/0.812, decision 0.875/0.412,
/// fact 0.842/0.381, preference 0.667/0.400) and 0.945 / 0.547 after (correction
/// 0.929/0.812, decision 0.875/0.412, fact 0.850/0.405, preference
/// 0.692/0.450); it was lost with the machine before a round used it.
/// `blind10` (244 turns, 16 conversations, 132 labels; written 2026-12-07
/// the same way, outside the repository) scored 0.922 / 0.538 before and
/// after that day's rules (a light verb's commitment to a named thing,
/// the speaker's appointment with its day: `blind8` recall 0.756 to
/// 0.789); by kind correction 0.643/0.562, decision 0.611/0.393, fact
/// 0.800/0.400, preference 0.600/0.321. The speaker's own statement of
/// a value (a later round) moved it to 0.912 / 0.553; `blind11` (253
/// turns, 25 conversations, 130 labels, written the same way before that
/// rule) from 0.933 / 0.754 to 0.928 / 0.792 (fact 0.784/0.604 to
/// 0.744/0.667; correction 1.000/0.600, decision 0.826/0.594, preference
/// 0.861/0.886 unchanged), and on the spent splits `blind3` recall 0.849
/// to 0.863, `blind8` 0.789 to 0.811, `test` 0.907 to 0.917 (precision
/// 0.01 lower on `blind2`, `blind6`, `blind7`, `test`). The floors sit
/// just below `blind8`'s figures.
const BLIND8_FLOORS: Floors = Floors {
    memory: 0.74,
    kind: 0.51,
};

/// The halves of `dev` are blocks of this many turns, taken in turn.
const HALF_BLOCK_TURNS: usize = 10;

struct Floors {
    memory: f64,
    kind: f64,
}

#[derive(Clone)]
struct Turn {
    /// The turn's line in its split, from 1.
    line: u64,
    role: Role,
    text: String,
    labels: Vec<(String, String)>,
}

fn turns(split: &str) -> Vec<Turn> {
    turns_of(support::corpus_lines("extract", split))
}

fn turns_of(lines: Vec<serde_json::Value>) -> Vec<Turn> {
    lines
        .into_iter()
        .zip(1..)
        .map(|(v, line)| {
            let role = match v["role"].as_str().unwrap() {
                "user" => Role::User,
                "assistant" => Role::Assistant,
                other => panic!("unknown role {other:?}"),
            };
            let labels = v["labels"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| {
                    (
                        l[0].as_str().unwrap().to_owned(),
                        l[1].as_str().unwrap().to_owned(),
                    )
                })
                .collect();
            Turn {
                line,
                role,
                text: v["text"].as_str().unwrap().to_owned(),
                labels,
            }
        })
        .collect()
}

struct Figures {
    turns: usize,
    memory: (f64, f64),
    kinds: BTreeMap<String, (f64, f64)>,
    misses: Vec<String>,
}

fn ratio(hit: usize, of: usize) -> f64 {
    if of == 0 { 1.0 } else { hit as f64 / of as f64 }
}

/// The figures of `turns`, named `split` in the misses.
fn measure(split: &str, turns: &[Turn]) -> Figures {
    // (seq, sentence) -> kind
    let mut expected: BTreeMap<(u64, String), String> = BTreeMap::new();
    let mut input = Vec::new();
    for turn in turns {
        // The line as the turn's seq, so a miss names the line in the file.
        let seq = turn.line;
        for (kind, sentence) in &turn.labels {
            assert!(
                turn.text.contains(sentence.as_str()),
                "{split} line {seq}: label {sentence:?} is not in the turn"
            );
            expected.insert((seq, sentence.clone()), kind.clone());
        }
        input.push((seq, turn.role, turn.text.as_str()));
    }
    let mut got: BTreeMap<u64, Vec<(String, String)>> = BTreeMap::new();
    for p in proposals(&input) {
        got.entry(p.seq)
            .or_default()
            .push((p.sentence, p.kind.as_str().to_owned()));
    }
    let mut wanted: BTreeMap<u64, Vec<(String, String)>> = BTreeMap::new();
    for ((seq, sentence), kind) in &expected {
        wanted
            .entry(*seq)
            .or_default()
            .push((sentence.clone(), kind.clone()));
    }
    let n_got: usize = got.values().map(Vec::len).sum();
    let mut misses = Vec::new();
    let mut memory_hits = 0;
    // kind -> (tp, predicted, actual)
    let mut counts: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    for (kind, _) in got.values().flatten().map(|(s, k)| (k, s)) {
        counts.entry(kind.clone()).or_default().1 += 1;
    }
    let seqs: BTreeSet<u64> = got.keys().chain(wanted.keys()).copied().collect();
    for seq in seqs {
        let mut have: Vec<Option<&(String, String)>> = got
            .get(&seq)
            .map(|v| v.iter().map(Some).collect())
            .unwrap_or_default();
        for (sentence, kind) in wanted.get(&seq).map(Vec::as_slice).unwrap_or_default() {
            counts.entry(kind.clone()).or_default().2 += 1;
            // A proposal matches a label when one span holds the other: a
            // label may leave out a sentence's filler, a proposal may be
            // one clause of a labelled sentence.
            let matched = have
                .iter_mut()
                .find(|h| h.is_some_and(|(proposed, _)| same_span(proposed, sentence)));
            match matched.and_then(Option::take) {
                Some((_, proposed_kind)) => {
                    memory_hits += 1;
                    if proposed_kind == kind {
                        counts.entry(kind.clone()).or_default().0 += 1;
                    } else {
                        misses.push(format!(
                            "{split} line {seq}: expected {kind:?}, got {proposed_kind:?}: {sentence}"
                        ));
                    }
                }
                None => misses.push(format!(
                    "{split} line {seq}: expected {kind:?}, got nothing: {sentence}"
                )),
            }
        }
        for (proposed, proposed_kind) in have.into_iter().flatten() {
            misses.push(format!(
                "{split} line {seq}: expected nothing, got {proposed_kind:?}: {proposed}"
            ));
        }
    }
    Figures {
        turns: turns.len(),
        memory: (
            ratio(memory_hits, n_got),
            ratio(memory_hits, expected.len()),
        ),
        kinds: counts
            .into_iter()
            .map(|(k, (tp, predicted, actual))| (k, (ratio(tp, predicted), ratio(tp, actual))))
            .collect(),
        misses,
    }
}

/// Whether a proposed sentence and a labelled one name the same span: one
/// holds the other, outer spaces and end punctuation aside.
fn same_span(proposed: &str, labelled: &str) -> bool {
    let trim = |s: &str| {
        s.trim()
            .trim_end_matches(|c: char| ".。!！?？;；,，:：".contains(c))
            .trim()
            .to_owned()
    };
    let (p, l) = (trim(proposed), trim(labelled));
    !p.is_empty() && !l.is_empty() && (p.contains(&l) || l.contains(&p))
}

fn print(split: &str, figures: &Figures) {
    println!(
        "{split}: {} turns; memory precision {:.3} recall {:.3}",
        figures.turns, figures.memory.0, figures.memory.1
    );
    for (kind, (p, r)) in &figures.kinds {
        println!("  {kind:<11} precision {p:.3} recall {r:.3}");
    }
    for miss in &figures.misses {
        println!("  {miss}");
    }
}

fn check(split: &str, turns: &[Turn], floors: &Floors) {
    let figures = measure(split, turns);
    print(split, &figures);
    assert!(
        figures.memory.0 >= floors.memory && figures.memory.1 >= floors.memory,
        "{split}: memory precision/recall {:?} below {}",
        figures.memory,
        floors.memory
    );
    for (kind, (p, r)) in &figures.kinds {
        assert!(
            *p >= floors.kind && *r >= floors.kind,
            "{split}: {kind} precision {p:.3} recall {r:.3} below {}",
            floors.kind
        );
    }
}

#[test]
fn dev_split_meets_the_floors() {
    let dev = turns("dev");
    for half in 0..2 {
        let part: Vec<Turn> = dev
            .iter()
            .enumerate()
            .filter(|(i, _)| (i / HALF_BLOCK_TURNS) % 2 == half)
            .map(|(_, t)| t.clone())
            .collect();
        let name = format!("dev half {}", ["A", "B"][half]);
        print(&name, &measure(&name, &part));
    }
    check("dev", &dev, &DEV_FLOORS);
}

/// The test split, the reported figure (see the module documentation).
#[test]
fn test_split_meets_the_floors() {
    check("test", &turns("test"), &TEST_FLOORS);
}

#[test]
fn blind2_split_meets_the_floors() {
    check("blind2", &turns("blind2"), &BLIND2_FLOORS);
}

#[test]
fn blind3_split_meets_the_floors() {
    check("blind3", &turns("blind3"), &BLIND3_FLOORS);
}

#[test]
fn blind4_split_meets_the_floors() {
    check("blind4", &turns("blind4"), &BLIND4_FLOORS);
}

#[test]
fn blind5_split_meets_the_floors() {
    check("blind5", &turns("blind5"), &BLIND5_FLOORS);
}

#[test]
fn blind6_split_meets_the_floors() {
    check("blind6", &turns("blind6"), &BLIND6_FLOORS);
}

#[test]
fn blind7_split_meets_the_floors() {
    check("blind7", &turns("blind7"), &BLIND7_FLOORS);
}

#[test]
fn blind8_split_meets_the_floors() {
    check("blind8", &turns("blind8"), &BLIND8_FLOORS);
}

#[test]
fn the_corpus_is_big_enough_and_labels_every_kind() {
    let turns = turns("dev");
    assert!(turns.len() >= 100, "{} turns", turns.len());
    let kinds: BTreeSet<&str> = turns
        .iter()
        .flat_map(|t| t.labels.iter().map(|(k, _)| k.as_str()))
        .collect();
    assert_eq!(
        kinds,
        BTreeSet::from(["correction", "decision", "fact", "preference"])
    );
}

/// Scores the held-out file that `ENGRAM_EXTRACT_HELDOUT` names and prints
/// the figures alone, never a turn or a miss, so the split stays unseen by
/// whoever tunes the rules: `ENGRAM_EXTRACT_HELDOUT=FILE cargo test -p
/// engram-commands --test extract_corpus held_out -- --ignored --nocapture`.
#[test]
#[ignore = "needs a held-out file named by ENGRAM_EXTRACT_HELDOUT"]
fn held_out_figures() {
    let path =
        std::env::var("ENGRAM_EXTRACT_HELDOUT").expect("ENGRAM_EXTRACT_HELDOUT names a file");
    let lines = support::json_lines(&path);
    let figures = measure("held-out", &turns_of(lines));
    println!(
        "held-out {path}: {} turns; memory precision {:.3} recall {:.3}",
        figures.turns, figures.memory.0, figures.memory.1
    );
    for (kind, (p, r)) in &figures.kinds {
        println!("  {kind:<11} precision {p:.3} recall {r:.3}");
    }
    // Counts by language and by what went wrong, never a turn: where the
    // misses lie, told apart from which they are.
    let (chinese, english): (Vec<Turn>, Vec<Turn>) = turns_of(support::json_lines(&path))
        .into_iter()
        .partition(|t| {
            t.text
                .chars()
                .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
        });
    for (language, turns) in [("with Chinese", chinese), ("English only", english)] {
        let labels: usize = turns.iter().map(|t| t.labels.len()).sum();
        let figures = measure("held-out", &turns);
        let count = |what: &str| figures.misses.iter().filter(|m| m.contains(what)).count();
        println!(
            "  {language}: {} turns, {labels} labels; memory precision {:.3} recall {:.3}; \
             missed {}, wrong kind {}, unlabelled proposals {}",
            figures.turns,
            figures.memory.0,
            figures.memory.1,
            count(", got nothing:"),
            figures.misses.len() - count(", got nothing:") - count("expected nothing,"),
            count("expected nothing,"),
        );
    }
}

//! The rooms corpus (`tests/corpus/rooms/{dev,test}.jsonl`): texts, each
//! labelled with the room names a person would choose for it (`rooms`), or
//! saved after earlier texts (`before`) and labelled with whether it
//! belongs in the last one's room (`same`), and, where one is clear, the
//! corridor its room joins (`corridor`). Every earlier text is a neighbour
//! of the later ones, in its room and corridor, as the save handler hands
//! them to the decision. Room accuracy must be at least [`DEV_ROOM_FLOOR`]
//! on `dev` and [`TEST_ROOM_FLOOR`] on `test`, corridor accuracy at least
//! [`DEV_CORRIDOR_FLOOR`] on `dev` and [`TEST_CORRIDOR_FLOOR`] on `test`; a
//! room is never a function word or a bigram across two words on either.
//!
//! The first test split, written before the rules were tuned and scored
//! once (rooms 38/55, corridors 36/37), is spent: it is now part of
//! `dev`, after the first 55 lines. The last lines of `dev` (`"set":
//! "new"`) were written before the rules were tuned on the rest; the
//! figures are printed for them and for each half of the rest (lines of
//! even and odd index), so tuning on one half can be checked on the
//! other.
//!
//! `test` (79 texts, 31 of them Chinese) was written by someone who had
//! seen neither the rules nor `dev`, and scored once on 2026-12-02 after
//! the last change to the rules: rooms 39/79 (0.494), corridors 38/53
//! (0.717); the rules before jieba segmentation and head nouns scored
//! 34/80 and 29/54 on it. Its writer's corridors were named in the
//! corridors' own words where one exists (工程 is `engineering`, 健康
//! `health`, 家庭 `family`, 财务 `finance`, 旅行 `travel`) and left out
//! where engram has no such corridor (work, home, writing, research...).
//! Far under `dev`'s figures: the rules still fit the text they were
//! tuned on. [`TEST_ROOM_FLOOR`] and [`TEST_CORRIDOR_FLOOR`] sit just
//! under that scoring; raising them means new held-out text, not tuning
//! on this one.
//!
//! Its misses were read once more on 2026-12-02 (second session) to mend
//! two Chinese names cut across words (`司年会定` from 公司年会定, `班主`
//! from 班主任); that mend changed no figure of either split. A second
//! held-out split of 100 texts (35 Chinese), written by someone who had
//! seen neither the rules nor these splits and kept outside the
//! repository, scored rooms 53/100 (0.530) and corridors 41/62 (0.661)
//! both before and after it ([`held_out_figures`]), and 55/100 (0.550)
//! and 41/62 after that session's later save-decision changes; it is now
//! committed as `blind2`, its floors just under that scoring.
//!
//! `blind3` (100 texts, 39 Chinese, written the same way and kept outside
//! the repository, scored by its figures alone) scored rooms 60/100
//! (0.600) and corridors 51/86 (0.593) before the fourth session's
//! save-decision changes and 60/100, 50/86 (0.581) after them (the rooms
//! rules did not change). Committed with floors just under that scoring.
//!
//! `blind4` (100 texts, 40 Chinese, every one with a corridor; written
//! the same way on 2026-12-05, kept outside the repository and scored by
//! its figures alone) scored rooms 55/100 (0.550) and corridors 43/100
//! (0.430) before and after that session's changes (the rooms rules did
//! not change). Committed with floors just under that scoring.
//!
//! Later the same day every corridor's topic words were widened (about
//! 400 everyday words, English and Chinese, written from the topics
//! themselves, a few of them after reading `blind4`'s misses, a spent
//! split; nine that made dev's rooms or corridors worse were left out:
//! attributes such as 超时 and `timeout`, festivals, a body part). Rooms
//! and corridors, before and after:
//!
//! | split | rooms | corridors |
//! | --- | --- | --- |
//! | dev | 128/144, 128/144 | 99/102, 99/102 |
//! | test | 39/79, 41/79 | 38/53, 42/53 |
//! | blind2 | 55/100, 58/100 | 41/62, 47/62 |
//! | blind3 | 60/100, 62/100 | 50/86, 61/86 |
//! | blind4 | 55/100, 59/100 | 43/100, 67/100 |
//!
//! Then a verb by its shape stopped naming a room (an `-ing` form before a
//! particle, "trying to"; a third-person form after a name or pronoun,
//! "Leo turns 8"): blind3 rooms 62 to 63, blind4 59 to 60, the others and
//! `blind5` below unchanged.
//!
//! `blind5` (100 texts, 40 Chinese, every one with a corridor), written
//! the same way and kept outside the repository (scored by its figures
//! alone), went from rooms 50/100 and corridors 46/100 to rooms 52/100
//! and corridors 67/100. The floors of the committed splits now sit just
//! under the figures after; `blind5` is committed with floors the same
//! way, and spent.
//!
//! `blind6` (100 texts, 40 Chinese), written the same way before the
//! next round and scored by its figures alone, stayed at rooms 48/100 and
//! corridors 73/100 through it (a note's opening verb and a relative's
//! name no longer name a room: `blind2` rooms 59 to 60, the rest
//! unchanged); committed with floors just under, and spent.
//!
//! The next round read the misses of every split (all of them spent) for
//! families of errors and mended each by a general rule: a verb by its
//! place (after a subject, an `-ing` form after "be" or before a
//! determiner or opening a note, an infinitive after "trying to"); a
//! measure (`four-day`), a number word, an everyday adjective or a
//! preposition names no room; a head too vague alone takes its noun
//! (`code-review`, `book-club`); an activity before its place
//! (`climbing gym`) and a sentence's activity verb (`I run 5k` ->
//! `running`) name it; a plural is named as the text says it; a name
//! opening a sentence before "is" is no topic, and one after a word for
//! someone's role or whose role the sentence states names the room; a
//! topic word before a tool the text names only by its shape or cue
//! names the room; Chinese nouns the segmenter lacks are taught to it and
//! a one-character segment joins no noun. Corridors: a clock time on a
//! day is `schedule` (unless engineering, finance or food), a generic
//! medicine name `health`, a tool by its cue alone or a place yields to
//! the text's words, and the lexicon grew (family, travel, health,
//! finance words). Rooms and corridors, before and after:
//!
//! | split | rooms | corridors |
//! | --- | --- | --- |
//! | dev | 128/144, 133/144 | 99/102, 99/102 |
//! | test | 41/79, 48/79 | 42/53, 43/53 |
//! | blind2 | 60/100, 71/100 | 47/62, 50/62 |
//! | blind3 | 63/100, 69/100 | 61/86, 71/86 |
//! | blind4 | 60/100, 74/100 | 67/100, 85/100 |
//! | blind5 | 52/100, 60/100 | 67/100, 83/100 |
//! | blind6 | 48/100, 65/100 | 73/100, 86/100 |
//!
//! Tuned on every split, none of these figures is held out any more; the
//! floors sit just under the figures after.
//!
//! `blind7` (100 texts, 40 Chinese, every corridor at least ten times),
//! written before that round by someone who had seen neither the rules
//! nor the other splits and kept outside the repository, measured it by
//! its figures alone: rooms 27/100 and corridors 70/100 before, 31/100
//! and 81/100 after. The tuned splits gained far more (blind6 17 rooms)
//! than the unseen one (4): its writer chose other names for the same
//! topics. Committed with floors just under, and spent.
//!
//! The next round read the misses of every split again (all spent) and
//! mended three families by general rules: a countable thing a life
//! holds many of is filed under its plural (`flights`, `allergies`); of
//! two Chinese nouns a head that names a topic itself goes alone
//! (`美式咖啡` -> `咖啡`), one saying what is wanted of a topic yields to
//! its noun (`日语目标` -> `日语`), a vague head keeps it (`订单服务`), and
//! a Chinese room is a word of the text as written (never `妈妈妈`,
//! `开组`, `集美`); a verb by the words around it names no room (a word
//! before its object's determiner, a particle after a verb, a phrasal
//! infinitive, an `-s` form opening a note after an adverb) nor does a
//! comparative of an everyday adjective (`younger`); a relative named
//! as the subject of "is" names the room (`Daughter Emma is 7` ->
//! `emma`, on `family`). Rooms and
//! corridors, before and after:
//!
//! | split | rooms | corridors |
//! | --- | --- | --- |
//! | dev | 133/144, 134/144 | 99/102, 100/102 |
//! | test | 48/79, 51/79 | 43/53, 44/53 |
//! | blind2 | 71/100, 75/100 | 50/62, 50/62 |
//! | blind3 | 69/100, 71/100 | 71/86, 72/86 |
//! | blind4 | 74/100, 79/100 | 85/100, 85/100 |
//! | blind5 | 60/100, 71/100 | 83/100, 83/100 |
//! | blind6 | 65/100, 66/100 | 86/100, 86/100 |
//! | blind7 | 31/100, 39/100 | 81/100, 81/100 |
//!
//! Tuned on these splits, none of the figures after is held out; the
//! floors sit just under them. Two splits written without sight of the
//! rules or the other splits and kept outside the repository measured
//! the round by their figures alone: `blind8` rooms 31/100 before and
//! 35/100 after, corridors 77/100 both; `blind9` rooms 38/100
//! before and 41/100 after, corridors 77/100 and 77/100.
//! `blind8` is now committed with floors just under its figures;
//! `blind9` was lost before it was used; `blind10` (100 texts, 35
//! Chinese, written 2026-12-07 with the Chinese topic word allowed beside
//! the English names, corridors from a list that holds some engram has
//! not: hobbies, work, learning, home, pets, shopping) scored rooms
//! 60/100 and corridors 64/99 on that day's rules, unchanged by them.
//! `blind11` (100 texts, 40 Chinese, written the same day the same way)
//! scored rooms 23/100 and corridors 88/100. The held-out scorer's counts
//! say why rooms are so low there: 38 of its 100 labels allow the
//! corridor's own name as the room (`health` for an allergy), which a
//! room inside that corridor never is, and where none does engram names
//! 13 of 62; 68 of the 77 misses are another word of the text, 6 a
//! plural or a part of an allowed name. `blind10` has no label naming a
//! corridor. No rule was changed for it.
//!
//! `cargo test -p engram-commands --test rooms_corpus -- --nocapture`
//! prints the figures and every miss.

mod support;

use engram_commands::decide::{Decision, Neighbour, decide};

const DEV_ROOM_FLOOR: f64 = 0.93;
const TEST_ROOM_FLOOR: f64 = 0.64;
const TEST_CORRIDOR_FLOOR: f64 = 0.83;
/// Room and corridor accuracy floors on `blind2`: just under its scoring
/// (rooms 0.530 then 0.550, corridors 0.661 when committed; 0.710 and
/// 0.806 after the rules were tuned on every split; rooms 0.750 after the
/// next round).
const BLIND2_ROOM_FLOOR: f64 = 0.74;
const BLIND2_CORRIDOR_FLOOR: f64 = 0.8;
/// Room and corridor accuracy floors on `blind3`: just under its scoring
/// (rooms 0.600, corridors 0.581 when committed; 0.690 and 0.826 after;
/// 0.710 and 0.837 after the next round).
const BLIND3_ROOM_FLOOR: f64 = 0.7;
const BLIND3_CORRIDOR_FLOOR: f64 = 0.83;
/// Room and corridor accuracy floors on `blind4`: just under its scoring
/// (rooms 0.550, corridors 0.430 when committed; 0.740 and 0.850 after;
/// rooms 0.790 after the next round).
const BLIND4_ROOM_FLOOR: f64 = 0.78;
const BLIND4_CORRIDOR_FLOOR: f64 = 0.84;
/// Room and corridor accuracy floors on `blind5`: just under its scoring
/// (rooms 0.520, corridors 0.670 when committed; 0.600 and 0.830 after;
/// rooms 0.710 after the next round).
const BLIND5_ROOM_FLOOR: f64 = 0.7;
const BLIND5_CORRIDOR_FLOOR: f64 = 0.82;
/// Room and corridor accuracy floors on `blind6`: just under its scoring
/// (rooms 0.480, corridors 0.730 when committed; 0.650 and 0.860 after;
/// rooms 0.660 after the next round).
const BLIND6_ROOM_FLOOR: f64 = 0.65;
const BLIND6_CORRIDOR_FLOOR: f64 = 0.85;
/// Room and corridor accuracy floors on `blind7`: just under its scoring
/// when committed (rooms 0.310, corridors 0.810; rooms 0.390 after the
/// next round).
const BLIND7_ROOM_FLOOR: f64 = 0.38;
const BLIND7_CORRIDOR_FLOOR: f64 = 0.8;
/// Room and corridor accuracy floors on `blind8`: just under its scoring
/// when committed (rooms 0.350, corridors 0.770).
const BLIND8_ROOM_FLOOR: f64 = 0.34;
const BLIND8_CORRIDOR_FLOOR: f64 = 0.76;
/// Corridor accuracy on `dev` at least.
const DEV_CORRIDOR_FLOOR: f64 = 0.98;

/// Names no room may have: the adverbs, verbs and cross-word
/// bigram, and function words.
const NEVER: &[&str] = &[
    "absolutely",
    "quarterly",
    "teach",
    "teaches",
    "happen",
    "happens",
    "decided",
    "decide",
    "directly",
    "surely",
    "happily",
    "户喜",
    "the",
    "and",
    "is",
    "are",
    "my",
    "please",
    "remember",
    "phone",
    "email",
    "redacted",
    "喜欢",
    "用户",
];

struct Case {
    lang: String,
    before: Vec<String>,
    text: String,
    rooms: Vec<String>,
    same: Option<bool>,
    corridor: Option<String>,
    /// `new` for the dev items written after the first test split was
    /// spent and before the rules were tuned on it.
    set: Option<String>,
}

fn cases(split: &str) -> Vec<Case> {
    cases_of(support::corpus_lines("rooms", split))
}

fn cases_of(lines: Vec<serde_json::Value>) -> Vec<Case> {
    lines
        .into_iter()
        .map(|v| {
            let strings = |name: &str| -> Vec<String> {
                v[name]
                    .as_array()
                    .map(|a| a.iter().map(|s| s.as_str().unwrap().to_owned()).collect())
                    .unwrap_or_default()
            };
            Case {
                lang: v["lang"].as_str().unwrap().to_owned(),
                before: strings("before"),
                text: v["text"].as_str().unwrap().to_owned(),
                rooms: strings("rooms"),
                same: v["same"].as_bool(),
                corridor: v["corridor"].as_str().map(str::to_owned),
                set: v["set"].as_str().map(str::to_owned),
            }
        })
        .collect()
}

/// Saves `texts` in order, each decided against the ones before it.
fn save_all(texts: &[String]) -> Vec<Decision> {
    let mut neighbours: Vec<Neighbour> = Vec::new();
    let mut decisions = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let decision = decide(text, &[], None, &neighbours, &|_| Vec::new());
        neighbours.insert(
            0,
            Neighbour {
                id: i as u64 + 1,
                text: text.as_str().into(),
                topic: decision.room.clone().into(),
                corridor: decision.corridor.clone().into(),
                tags: Vec::new().into(),
                profile: None,
                semantic: None,
            },
        );
        decisions.push(decision);
    }
    decisions
}

struct Figures {
    rooms: (usize, usize),
    corridors: (usize, usize),
    misses: Vec<String>,
    never: Vec<String>,
}

/// The part of a split a case is in: `new` (see [`Case::set`]), else
/// half `a` or `b` of the rest, by the parity of its line.
fn part(index: usize, case: &Case) -> &'static str {
    match (case.set.as_deref(), index % 2) {
        (Some("new"), _) => "new",
        (_, 0) => "a",
        _ => "b",
    }
}

fn measure(split: &str, only: Option<&str>) -> Figures {
    measure_cases(cases(split), only)
}

fn measure_cases(cases: Vec<Case>, only: Option<&str>) -> Figures {
    let mut figures = Figures {
        rooms: (0, 0),
        corridors: (0, 0),
        misses: Vec::new(),
        never: Vec::new(),
    };
    for (index, case) in cases.into_iter().enumerate() {
        if only.is_some_and(|p| p != part(index, &case)) {
            continue;
        }
        let mut texts = case.before.clone();
        texts.push(case.text.clone());
        let decisions = save_all(&texts);
        let (Some(last), previous) = (decisions.last(), decisions.iter().rev().nth(1)) else {
            continue;
        };
        for d in &decisions {
            if NEVER.contains(&d.room.as_str()) {
                figures
                    .never
                    .push(format!("{:?} named {:?}", case.text, d.room));
            }
        }
        let named_well = case.rooms.is_empty() || case.rooms.contains(&last.room);
        let placed_well = match (case.same, previous) {
            (Some(same), Some(previous)) => (last.room == previous.room) == same,
            _ => true,
        };
        figures.rooms.1 += 1;
        if named_well && placed_well {
            figures.rooms.0 += 1;
        } else {
            figures.misses.push(format!(
                "[{}] {:?} -> room {:?} (expected {}{})",
                case.lang,
                case.text,
                last.room,
                if case.rooms.is_empty() {
                    String::new()
                } else {
                    format!("one of {:?}", case.rooms)
                },
                match (case.same, previous) {
                    (Some(true), Some(p)) => format!(" the room of the text before, {:?}", p.room),
                    (Some(false), Some(p)) =>
                        format!(" not the room of the text before, {:?}", p.room),
                    _ => String::new(),
                }
            ));
        }
        if let Some(corridor) = &case.corridor {
            figures.corridors.1 += 1;
            if &last.corridor == corridor {
                figures.corridors.0 += 1;
            } else {
                figures.misses.push(format!(
                    "[{}] {:?} (room {:?}) -> corridor {:?}, expected {corridor:?}",
                    case.lang, case.text, last.room, last.corridor
                ));
            }
        }
    }
    figures
}

fn ratio((a, b): (usize, usize)) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}

fn check(split: &str) {
    let figures = measure(split, None);
    let (rooms, corridors) = (ratio(figures.rooms), ratio(figures.corridors));
    println!(
        "rooms corpus, {split} split: rooms {}/{} = {rooms:.3}, corridors {}/{} = {corridors:.3}",
        figures.rooms.0, figures.rooms.1, figures.corridors.0, figures.corridors.1
    );
    for miss in &figures.misses {
        println!("  miss: {miss}");
    }
    if split == "dev" {
        for only in ["a", "b", "new"] {
            let f = measure(split, Some(only));
            println!(
                "  part {only}: rooms {}/{} = {:.3}, corridors {}/{} = {:.3}",
                f.rooms.0,
                f.rooms.1,
                ratio(f.rooms),
                f.corridors.0,
                f.corridors.1,
                ratio(f.corridors)
            );
        }
    }
    assert!(figures.never.is_empty(), "{split}: {:#?}", figures.never);
    let (floor, corridor_floor) = match split {
        "test" => (TEST_ROOM_FLOOR, TEST_CORRIDOR_FLOOR),
        "blind2" => (BLIND2_ROOM_FLOOR, BLIND2_CORRIDOR_FLOOR),
        "blind3" => (BLIND3_ROOM_FLOOR, BLIND3_CORRIDOR_FLOOR),
        "blind4" => (BLIND4_ROOM_FLOOR, BLIND4_CORRIDOR_FLOOR),
        "blind5" => (BLIND5_ROOM_FLOOR, BLIND5_CORRIDOR_FLOOR),
        "blind6" => (BLIND6_ROOM_FLOOR, BLIND6_CORRIDOR_FLOOR),
        "blind7" => (BLIND7_ROOM_FLOOR, BLIND7_CORRIDOR_FLOOR),
        "blind8" => (BLIND8_ROOM_FLOOR, BLIND8_CORRIDOR_FLOOR),
        _ => (DEV_ROOM_FLOOR, DEV_CORRIDOR_FLOOR),
    };
    assert!(
        rooms >= floor,
        "{split}: room accuracy {rooms:.3} (floor {floor})"
    );
    assert!(
        corridors >= corridor_floor,
        "{split}: corridor accuracy {corridors:.3} (floor {corridor_floor})"
    );
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
fn blind2_split_meets_the_floor() {
    check("blind2");
}

#[test]
fn blind3_split_meets_the_floor() {
    check("blind3");
}

#[test]
fn blind4_split_meets_the_floor() {
    check("blind4");
}

#[test]
fn blind5_split_meets_the_floor() {
    check("blind5");
}

#[test]
fn blind6_split_meets_the_floor() {
    check("blind6");
}

#[test]
fn blind7_split_meets_the_floor() {
    check("blind7");
}

#[test]
fn blind8_split_meets_the_floor() {
    check("blind8");
}

#[test]
fn the_splits_share_no_case() {
    let dev: Vec<(Vec<String>, String)> = cases("dev")
        .into_iter()
        .map(|c| (c.before, c.text))
        .collect();
    for case in cases("test")
        .into_iter()
        .chain(cases("blind2"))
        .chain(cases("blind3"))
        .chain(cases("blind4"))
        .chain(cases("blind5"))
        .chain(cases("blind6"))
        .chain(cases("blind7"))
        .chain(cases("blind8"))
    {
        assert!(
            !dev.contains(&(case.before.clone(), case.text.clone())),
            "{:?} is in both splits",
            case.text
        );
    }
    assert!(cases("dev").len() >= 100);
}

/// Scores the held-out file that `ENGRAM_ROOMS_HELDOUT` names and prints
/// the figures alone, never a case or a miss, so the split stays unseen
/// by whoever tunes the rules: `ENGRAM_ROOMS_HELDOUT=FILE cargo test -p
/// engram-commands --test rooms_corpus held_out -- --ignored --nocapture`.
#[test]
#[ignore = "needs a held-out file named by ENGRAM_ROOMS_HELDOUT"]
fn held_out_figures() {
    let path = std::env::var("ENGRAM_ROOMS_HELDOUT").expect("ENGRAM_ROOMS_HELDOUT names a file");
    let lines = support::json_lines(&path);
    let figures = measure_cases(cases_of(lines), None);
    println!(
        "held-out {path}: rooms {}/{} = {:.3}, corridors {}/{} = {:.3}, names never allowed: {}",
        figures.rooms.0,
        figures.rooms.1,
        ratio(figures.rooms),
        figures.corridors.0,
        figures.corridors.1,
        ratio(figures.corridors),
        figures.never.len()
    );
    // The same by language, counts only.
    for lang in ["en", "zh"] {
        let cases: Vec<Case> = cases_of(support::json_lines(&path))
            .into_iter()
            .filter(|c| c.lang == lang)
            .collect();
        let figures = measure_cases(cases, None);
        println!(
            "  {lang}: rooms {}/{}, corridors {}/{}",
            figures.rooms.0, figures.rooms.1, figures.corridors.0, figures.corridors.1
        );
    }
    // Whether a room a label allows is a word of the text (a name engram
    // can take from it) or a word for what the text is about that it
    // never says ("pets" for "my dog Rex"): counts of each and of the
    // rooms named right in each, never a text.
    let mut said = (0, 0);
    let mut unsaid = (0, 0);
    let mut kinds: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    // (allowing engram's corridor as a room name, allowing the labelled
    // corridor as one)
    let mut allows_corridor = (0, 0);
    // Rooms named right where no allowed name is the labelled corridor.
    let mut no_corridor_label = (0, 0);
    for case in cases_of(support::json_lines(&path)) {
        let mut texts = case.before.clone();
        texts.push(case.text.clone());
        let Some(last) = save_all(&texts).pop() else {
            continue;
        };
        let lower = case.text.to_lowercase();
        let group = if case.rooms.iter().any(|r| lower.contains(&r.to_lowercase())) {
            &mut said
        } else {
            &mut unsaid
        };
        group.1 += 1;
        if case.rooms.iter().any(|r| Some(r) == case.corridor.as_ref()) {
            allows_corridor.1 += 1;
        } else {
            no_corridor_label.1 += 1;
            no_corridor_label.0 += usize::from(case.rooms.contains(&last.room));
        }
        if case.rooms.contains(&last.corridor) {
            allows_corridor.0 += 1;
        }
        if case.rooms.contains(&last.room) {
            group.0 += 1;
        } else {
            // How the name missed, in counts only.
            let room = last.room.as_str();
            let singular = |w: &str| w.strip_suffix('s').unwrap_or(w).to_owned();
            let parts = |w: &str| -> Vec<String> { w.split('-').map(str::to_owned).collect() };
            let kind =
                if room == engram_projections::models::UNSORTED_ROOM {
                    "unsorted"
                } else if case.rooms.iter().any(|r| singular(r) == singular(room)) {
                    "a plural or singular of an allowed name"
                } else if case.rooms.iter().any(|r| {
                    parts(r).iter().any(|p| p == room) || parts(room).iter().any(|p| p == r)
                }) {
                    "a part of an allowed name, or holding one"
                } else if lower.contains(&room.replace('-', " ")) || lower.contains(room) {
                    "another word of the text"
                } else {
                    "a word not in the text as written"
                };
            *kinds.entry(kind).or_default() += 1;
        }
    }
    println!(
        "  a room allowed is in the text: named {}/{}; none is: named {}/{}",
        said.0, said.1, unsaid.0, unsaid.1
    );
    println!(
        "  labels allowing the corridor engram chose as a room: {}; the labelled corridor: {}",
        allows_corridor.0, allows_corridor.1
    );
    println!(
        "  rooms named right where no allowed name is the labelled corridor: {}/{}",
        no_corridor_label.0, no_corridor_label.1
    );
    println!("  rooms missed, by how:");
    for (kind, n) in &kinds {
        println!("    {kind}: {n}");
    }
}

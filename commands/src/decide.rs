//! Decide: what a save becomes, before anything is appended.
//!
//! Given the new content and its nearest existing memories (the engine
//! finds them with the text index), [`decide`] picks one of four outcomes,
//! a uniqueness score and a room. Pure and deterministic: the same content
//! and neighbours always give the same decision.
//!
//! **Similarity** is the Sørensen-Dice coefficient of the two texts'
//! *content terms* (Dice rather than Jaccard: one inserted CJK character
//! changes two bigrams, and Dice weighs the shared ones more):
//! the tokenizer's terms without stopwords, numbers, negations and
//! preference words. Leaving those out is deliberate: they are exactly
//! what a disagreement consists of, so two texts that differ only in them
//! are near-duplicates, and [`disagreement`] then looks at them.
//!
//! | outcome | when |
//! | --- | --- |
//! | `Discarded` | low entropy: under [`CONTENT_CHARS_MIN`] characters, fewer than [`CONTENT_TERMS_MIN`] content terms, or a boilerplate phrase |
//! | `Contradiction` | similarity >= [`NEAR_DUPLICATE_MIN`] to a memory it disagrees with (negation on one side only, different numbers, different dates, opposite preference) |
//! | `Reinforced` | similarity >= [`RESTATEMENT_MIN`] to a memory it agrees with: a restatement, no new slot |
//! | `New` | anything else |
//!
//! **Uniqueness** (0-1000 permille): `1 - best similarity`, plus
//! [`DATE_ANCHOR_BONUS`] when the text carries a number or date (anchored
//! facts are rarely duplicates), minus [`PREFIX_REPEAT_PENALTY`] when its
//! first six characters repeat a memory's in the same room; clamped.
//!
//! **Room**: the caller's, else the room of the most similar neighbour at
//! similarity >= [`ROOM_MATCH_MIN`] or sharing a tag, else a new room named
//! after the text's most specific early term ([`room_name_from`]).
//!
//! Known limit: word order is not compared, so "tea over coffee" and
//! "coffee over tea" read as a restatement.

use std::collections::BTreeSet;

use engram_log::MemoryId;
use engram_text::tokenize::{is_stopword, tokenize};

/// Fewer characters than this (trimmed) is low entropy.
pub const CONTENT_CHARS_MIN: usize = 8;
/// Fewer content terms than this is low entropy.
pub const CONTENT_TERMS_MIN: usize = 2;
/// Similarity at which an agreeing text restates a memory.
pub const RESTATEMENT_MIN: f64 = 0.75;
/// Similarity at which a disagreeing text contradicts a memory.
pub const NEAR_DUPLICATE_MIN: f64 = 0.5;
/// Similarity at which a text joins a neighbour's room.
pub const ROOM_MATCH_MIN: f64 = 0.25;
/// Uniqueness added for a number or date in the text.
pub const DATE_ANCHOR_BONUS: f64 = 0.1;
/// Uniqueness taken away when the first six characters repeat in the room.
pub const PREFIX_REPEAT_PENALTY: f64 = 0.3;
/// Memories below this uniqueness (permille) are on the renovation list.
pub const RENOVATION_BELOW_PERMILLE: u16 = 400;

/// Phrases that carry nothing to remember.
const BOILERPLATE: &[&str] = &[
    "ok",
    "okay",
    "thanks",
    "thank you",
    "hello",
    "hi",
    "yes",
    "no",
    "sure",
    "got it",
    "好的",
    "谢谢",
    "你好",
    "收到",
    "嗯",
    "是的",
    "好",
];

/// Words (English, case-folded) that negate a statement.
const NEGATIONS: &[&str] = &[
    "not", "no", "never", "don't", "doesn't", "didn't", "isn't", "wasn't", "aren't", "won't",
    "can't", "cannot", "dont", "doesnt", "didnt", "isnt", "wont", "cant", "neither", "nor",
];
/// CJK characters that negate.
const CJK_NEGATIONS: &[char] = &[
    '不', '没', '沒', '别', '別', '未', '非', '无', '無', '勿', '莫',
];
/// Words stating a liking.
const LIKES: &[&str] = &[
    "like",
    "likes",
    "love",
    "loves",
    "prefer",
    "prefers",
    "preferred",
    "enjoy",
    "enjoys",
    "want",
    "wants",
    "favor",
    "favors",
    "favour",
    "favours",
];
/// Words stating a dislike.
const DISLIKES: &[&str] = &[
    "dislike", "dislikes", "hate", "hates", "avoid", "avoids", "detest", "detests",
];
/// Date words: weekdays and months, English and Chinese.
const DATE_WORDS: &[&str] = &[
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "周一",
    "周二",
    "周三",
    "周四",
    "周五",
    "周六",
    "周日",
    "星期",
    "今天",
    "明天",
    "昨天",
];
/// Words too generic to name a room.
const GENERIC: &[&str] = &[
    "user", "users", "用户", "我们", "project", "always", "please",
];

/// A text broken into what decisions look at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// Content terms, in first-seen order, without repeats.
    pub terms: Vec<String>,
    /// The same terms sorted, so [`similarity`] is one merge with no
    /// allocation (a batch save compares every item with ten neighbours).
    sorted_terms: Vec<String>,
    pub numbers: BTreeSet<String>,
    pub dates: BTreeSet<String>,
    pub negated: bool,
    /// +1 likes, -1 dislikes, 0 neither.
    pub polarity: i8,
}

/// A number, amount, version or date (`10k`, `3.14`, `2024-03-01`), not an
/// identifier that merely holds digits (`marker0x1`, `ipv6`).
fn is_numeric(term: &str) -> bool {
    term.chars().next().is_some_and(|c| c.is_ascii_digit())
}

/// The profile of `text`.
#[must_use]
pub fn profile(text: &str) -> Profile {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    let negated = words.iter().any(|w| NEGATIONS.contains(w))
        || text.chars().any(|c| CJK_NEGATIONS.contains(&c));
    let dislikes = words.iter().any(|w| DISLIKES.contains(w)) || text.contains("讨厌");
    let likes = words.iter().any(|w| LIKES.contains(w))
        || text.contains("喜欢")
        || text.contains("偏好")
        || text.contains('爱');
    let polarity = if dislikes {
        -1
    } else if likes {
        1
    } else {
        0
    };
    let mut out = Profile {
        negated,
        polarity,
        ..Profile::default()
    };
    let mut seen = BTreeSet::new();
    for token in tokenize(text) {
        let term = token.term;
        if is_numeric(&term) {
            out.numbers.insert(term);
            continue;
        }
        if DATE_WORDS.contains(&term.as_str()) {
            out.dates.insert(term.clone());
        }
        let excluded = is_stopword(&term)
            || NEGATIONS.contains(&term.as_str())
            || LIKES.contains(&term.as_str())
            || DISLIKES.contains(&term.as_str())
            || term.chars().any(|c| CJK_NEGATIONS.contains(&c))
            || ["喜欢", "讨厌", "偏好"].contains(&term.as_str());
        if !excluded && seen.insert(term.clone()) {
            out.terms.push(term);
        }
    }
    out.sorted_terms = seen.into_iter().collect();
    out
}

/// Sørensen-Dice similarity of two profiles' content terms (0 when both
/// are empty).
#[must_use]
pub fn similarity(a: &Profile, b: &Profile) -> f64 {
    debug_assert!(a.sorted_terms.len() == a.terms.len() && b.sorted_terms.len() == b.terms.len());
    let total = a.sorted_terms.len() + b.sorted_terms.len();
    if total == 0 {
        return 0.0;
    }
    let (mut left, mut right) = (
        a.sorted_terms.iter().peekable(),
        b.sorted_terms.iter().peekable(),
    );
    let mut shared = 0_usize;
    while let (Some(x), Some(y)) = (left.peek(), right.peek()) {
        match x.cmp(y) {
            std::cmp::Ordering::Less => {
                left.next();
            }
            std::cmp::Ordering::Greater => {
                right.next();
            }
            std::cmp::Ordering::Equal => {
                shared += 1;
                left.next();
                right.next();
            }
        }
    }
    2.0 * shared as f64 / total as f64
}

/// Why two near-duplicate texts disagree, if they do.
#[must_use]
pub fn disagreement(a: &Profile, b: &Profile) -> Option<String> {
    if a.negated != b.negated {
        return Some("one side is negated".to_owned());
    }
    if a.polarity != 0 && b.polarity != 0 && a.polarity != b.polarity {
        return Some("opposite preference".to_owned());
    }
    if !a.numbers.is_empty() && !b.numbers.is_empty() && a.numbers != b.numbers {
        return Some(format!(
            "different numbers: {} vs {}",
            join(&a.numbers),
            join(&b.numbers)
        ));
    }
    if !a.dates.is_empty() && !b.dates.is_empty() && a.dates != b.dates {
        return Some(format!(
            "different dates: {} vs {}",
            join(&a.dates),
            join(&b.dates)
        ));
    }
    None
}

fn join(set: &BTreeSet<String>) -> String {
    set.iter().cloned().collect::<Vec<_>>().join(", ")
}

/// Why `text` is not worth a memory, if it is not.
#[must_use]
pub fn low_entropy(text: &str, profile: &Profile) -> Option<String> {
    let trimmed = text.trim();
    let lower = trimmed
        .trim_end_matches(['.', '!', '?', '。', '！', '？'])
        .to_lowercase();
    if BOILERPLATE.contains(&lower.as_str()) {
        return Some(format!("boilerplate: {lower:?}"));
    }
    if trimmed.chars().count() < CONTENT_CHARS_MIN {
        return Some(format!("too short: under {CONTENT_CHARS_MIN} characters"));
    }
    if profile.terms.len() < CONTENT_TERMS_MIN {
        return Some(format!(
            "too little content: under {CONTENT_TERMS_MIN} distinct terms"
        ));
    }
    None
}

/// A room name from the text: the longest of its first six content terms
/// that is not too generic (ties to the earlier), else `None`.
#[must_use]
pub fn room_name_from(profile: &Profile) -> Option<String> {
    profile
        .terms
        .iter()
        .filter(|t| !GENERIC.contains(&t.as_str()))
        .take(6)
        .fold(None::<&String>, |best, term| match best {
            Some(b) if b.chars().count() >= term.chars().count() => Some(b),
            _ => Some(term),
        })
        .cloned()
}

/// An existing memory near the new content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Neighbour {
    pub id: MemoryId,
    pub text: String,
    /// The corridor of its room.
    pub corridor: String,
    pub tags: Vec<String>,
    /// `profile(text)`, when the caller already has it (a batch's own
    /// memories are compared with every later item); computed otherwise.
    pub profile: Option<std::sync::Arc<Profile>>,
}

/// What a save becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    New,
    Reinforced { memory: MemoryId },
    Contradiction { memory: MemoryId, reason: String },
    Discarded { reason: String },
}

/// The decision for one save.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub outcome: Outcome,
    pub uniqueness_permille: u16,
    /// The corridor the memory goes to.
    pub room: String,
}

fn first_six(text: &str) -> String {
    text.trim()
        .chars()
        .take(6)
        .flat_map(char::to_lowercase)
        .collect()
}

/// Decides a save of `text` with `tags`, given its nearest `neighbours`
/// (best first), the caller's room if any, and the texts already in the
/// room each candidate room would file it to (`room_texts(corridor)`), for
/// the first-six-characters rule.
#[must_use]
pub fn decide(
    text: &str,
    tags: &[String],
    room: Option<&str>,
    neighbours: &[Neighbour],
    room_texts: &dyn Fn(&str) -> Vec<String>,
) -> Decision {
    decide_profiled(text, &profile(text), tags, room, neighbours, room_texts)
}

/// [`decide`] with `text`'s profile computed by the caller (a batch keeps
/// it for comparing later items).
#[must_use]
pub fn decide_profiled(
    text: &str,
    mine: &Profile,
    tags: &[String],
    room: Option<&str>,
    neighbours: &[Neighbour],
    room_texts: &dyn Fn(&str) -> Vec<String>,
) -> Decision {
    let scored: Vec<(f64, &Neighbour, std::sync::Arc<Profile>)> = neighbours
        .iter()
        .map(|n| {
            let theirs = n
                .profile
                .clone()
                .unwrap_or_else(|| std::sync::Arc::new(profile(&n.text)));
            (similarity(mine, &theirs), n, theirs)
        })
        .collect();
    let best = scored.iter().map(|(s, _, _)| *s).fold(0.0_f64, f64::max);
    let room = room.map(str::to_owned).unwrap_or_else(|| {
        scored
            .iter()
            .filter(|(s, n, _)| *s >= ROOM_MATCH_MIN || n.tags.iter().any(|t| tags.contains(t)))
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.id.cmp(&a.1.id)))
            .map(|(_, n, _)| n.corridor.clone())
            .or_else(|| room_name_from(mine))
            .unwrap_or_else(|| engram_projections::models::UNSORTED_ROOM.to_owned())
    });
    let mut uniqueness = 1.0 - best;
    if !mine.numbers.is_empty() || !mine.dates.is_empty() {
        uniqueness += DATE_ANCHOR_BONUS;
    }
    let prefix = first_six(text);
    if room_texts(&room).iter().any(|t| first_six(t) == prefix) {
        uniqueness -= PREFIX_REPEAT_PENALTY;
    }
    let uniqueness_permille = (uniqueness.clamp(0.0, 1.0) * 1000.0).round() as u16;
    let outcome = if let Some(reason) = low_entropy(text, mine) {
        Outcome::Discarded { reason }
    } else if let Some((_, n, reason)) = scored
        .iter()
        .filter(|(s, _, _)| *s >= NEAR_DUPLICATE_MIN)
        .find_map(|(s, n, theirs)| disagreement(mine, theirs).map(|r| (*s, n, r)))
    {
        Outcome::Contradiction {
            memory: n.id,
            reason,
        }
    } else if let Some((_, n, _)) = scored
        .iter()
        .filter(|(s, _, _)| *s >= RESTATEMENT_MIN)
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.id.cmp(&a.1.id)))
    {
        Outcome::Reinforced { memory: n.id }
    } else {
        Outcome::New
    };
    Decision {
        outcome,
        uniqueness_permille,
        room,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn neighbour(id: MemoryId, text: &str) -> Neighbour {
        Neighbour {
            profile: None,
            id,
            text: text.to_owned(),
            corridor: "room".to_owned(),
            tags: Vec::new(),
        }
    }

    fn outcome(text: &str, existing: &str) -> Outcome {
        decide(text, &[], None, &[neighbour(7, existing)], &|_| Vec::new()).outcome
    }

    /// The merge in [`similarity`] counts exactly the shared distinct terms:
    /// Dice over the term sets, symmetric, 1 for a text against itself.
    #[test]
    fn similarity_is_dice_over_the_term_sets() {
        let texts = [
            "The user prefers green tea in the morning.",
            "Morning tea: green, always green, for the user",
            "Deploys run from the CI pipeline on main.",
            "用户喜欢喝绿茶 and green tea",
            "",
            "the a an",
        ];
        for x in texts {
            for y in texts {
                let (a, b) = (profile(x), profile(y));
                let set_a: BTreeSet<&String> = a.terms.iter().collect();
                let set_b: BTreeSet<&String> = b.terms.iter().collect();
                let total = set_a.len() + set_b.len();
                let expected = if total == 0 {
                    0.0
                } else {
                    2.0 * set_a.intersection(&set_b).count() as f64 / total as f64
                };
                assert!(
                    (similarity(&a, &b) - expected).abs() < 1e-12,
                    "{x:?} vs {y:?}"
                );
                assert!((similarity(&a, &b) - similarity(&b, &a)).abs() < 1e-12);
            }
            if !profile(x).terms.is_empty() {
                assert!((similarity(&profile(x), &profile(x)) - 1.0).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn the_four_outcomes_in_english() {
        let existing = "The user prefers green tea in the morning.";
        assert_eq!(
            outcome("User prefers green tea in the morning", existing),
            Outcome::Reinforced { memory: 7 }
        );
        assert!(matches!(
            outcome("The user does not like green tea in the morning.", existing),
            Outcome::Contradiction { memory: 7, .. }
        ));
        assert!(matches!(
            outcome("The user hates green tea in the morning.", existing),
            Outcome::Contradiction { memory: 7, .. }
        ));
        assert_eq!(
            outcome("Deploys run from the CI pipeline on main.", existing),
            Outcome::New
        );
        assert!(matches!(outcome("ok", existing), Outcome::Discarded { .. }));
        assert!(matches!(
            outcome("Thanks!", existing),
            Outcome::Discarded { .. }
        ));
    }

    #[test]
    fn the_four_outcomes_in_chinese() {
        let existing = "用户喜欢在早上喝绿茶。";
        assert_eq!(
            outcome("用户喜欢早上喝绿茶", existing),
            Outcome::Reinforced { memory: 7 }
        );
        assert!(matches!(
            outcome("用户不喜欢在早上喝绿茶。", existing),
            Outcome::Contradiction { memory: 7, .. }
        ));
        assert_eq!(
            outcome("部署流程在周五下午进行审核。", existing),
            Outcome::New
        );
        assert!(matches!(
            outcome("好的", existing),
            Outcome::Discarded { .. }
        ));
    }

    #[test]
    fn different_numbers_and_dates_contradict() {
        match outcome(
            "The project budget is 20k for the launch.",
            "The project budget is 10k for the launch.",
        ) {
            Outcome::Contradiction { reason, .. } => {
                assert!(reason.contains("numbers"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
        match outcome(
            "The release meeting happens on Monday afternoon.",
            "The release meeting happens on Friday afternoon.",
        ) {
            Outcome::Contradiction { reason, .. } => assert!(reason.contains("dates"), "{reason}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn uniqueness_falls_with_similarity_and_a_repeated_prefix() {
        let fresh = decide("Kubernetes runs on three nodes.", &[], None, &[], &|_| {
            Vec::new()
        });
        assert_eq!(fresh.uniqueness_permille, 1000);
        let similar = decide(
            "The cluster has three worker nodes in Frankfurt.",
            &[],
            Some("infra"),
            &[neighbour(1, "The cluster has worker nodes in Frankfurt.")],
            &|_| Vec::new(),
        );
        assert!(similar.uniqueness_permille < 500, "{similar:?}");
        let repeated = decide(
            "Kubernetes upgrades are manual.",
            &[],
            Some("infra"),
            &[],
            &|room| {
                assert_eq!(room, "infra");
                vec!["Kubernetes runs on three nodes.".to_owned()]
            },
        );
        assert_eq!(repeated.uniqueness_permille, 700);
    }

    #[test]
    fn room_is_the_callers_else_a_matching_neighbours_else_named_from_the_text() {
        let near = Neighbour {
            corridor: "tea".to_owned(),
            ..neighbour(3, "green tea every morning before work")
        };
        let joined = decide(
            "green tea every morning",
            &[],
            None,
            std::slice::from_ref(&near),
            &|_| vec![],
        );
        assert_eq!(joined.room, "tea");
        let named = decide(
            "green tea every morning",
            &[],
            Some("drinks"),
            &[near],
            &|_| vec![],
        );
        assert_eq!(named.room, "drinks");
        let tagged = Neighbour {
            corridor: "ops".to_owned(),
            tags: vec!["deploy".to_owned()],
            ..neighbour(4, "unrelated words entirely")
        };
        let by_tag = decide(
            "rollbacks need two approvals",
            &["deploy".to_owned()],
            None,
            &[tagged],
            &|_| vec![],
        );
        assert_eq!(by_tag.room, "ops");
        let new = decide(
            "The user prefers Python for data analysis",
            &[],
            None,
            &[],
            &|_| vec![],
        );
        assert_eq!(new.room, "analysis");
    }
}

//! Room names a person would choose: the topic of a text, from its tags,
//! the entities it names, or its first topic word.
//!
//! In order:
//!
//! 1. the first tag (the caller said what the memory is about);
//! 2. the first project, tool or organisation the text names (`likes Go`
//!    files under `go`);
//! 3. the first topic word: an English content term that is not a
//!    function word, an adverb (`absolutely`, `quarterly`), a verb of
//!    [`VERBS`] (`teaches`, `decided`, `happens`), a value or an
//!    identifier; for Chinese, a word cut at particles, markers, values
//!    and common verbs, never a bigram across two words: the object after
//!    the first verb (`用户喜欢喝绿茶` -> `绿茶`, `张伟负责支付系统` ->
//!    `支付系统`), else the first word;
//! 4. the first person or place named.
//!
//! So one topic is one room: every text about billing names `billing`,
//! and the palace files a name that is already a room in that room.

use engram_text::entities::Entity;

use crate::meaning::{Profile, is_salient, rewrite_cjk, stem};

/// Verbs (stemmed) that never name a room.
pub const VERBS: &[&str] = &[
    "teach",
    "own",
    "maintain",
    "lead",
    "manage",
    "join",
    "joined",
    "review",
    "approve",
    "write",
    "wrote",
    "written",
    "say",
    "said",
    "think",
    "need",
    "work",
    "listen",
    "live",
    "come",
    "fix",
    "fixed",
    "start",
    "stop",
    "move",
    "call",
    "ask",
    "tell",
    "told",
    "send",
    "sent",
    "help",
    "show",
    "try",
    "feel",
    "seem",
    "become",
    "include",
    "contain",
    "allow",
    "let",
    "put",
    "mean",
    "give",
    "find",
    "know",
    "happen",
    "decide",
    "consume",
    "shipped",
    "ship",
    "scrape",
    "scraped",
    "store",
    "stored",
    "build",
    "built",
    "sit",
    "pay",
    "renew",
    "retry",
    "sign",
    "signed",
    "generate",
    "generated",
    "delete",
    "deleted",
    "target",
    "close",
    "open",
    "drink",
    "read",
    "prefer",
    "has",
    "ha",
    "get",
    "goe",
    "doe",
];
/// Words too generic to name a room.
const GENERIC: &[&str] = &[
    "user", "users", "用户", "我们", "你们", "他们", "project", "always", "please", "team",
];
/// Chinese verbs a topic word is cut at.
const CJK_VERBS: &[&str] = &[
    "负责",
    "使用",
    "进行",
    "维护",
    "加入",
    "处理",
    "需要",
    "开始",
    "完成",
    "参加",
    "管理",
    "开发",
    "部署在",
    "设置为",
    "托管",
    "保留",
    "喝",
    "吃",
    "用",
    "写",
    "做",
    "有",
    "去",
    "来",
    "说",
    "看",
    "要",
    "会",
    "能",
    "让",
    "开",
    "跑",
    "见",
    "每",
];
/// Characters in a Chinese topic word at most.
const CJK_TOPIC_CHARS_MAX: usize = 4;

fn is_han(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c)
}

/// Whether an English term could name a topic.
fn english_topic(term: &str) -> bool {
    term.chars()
        .all(|c| c.is_ascii_alphabetic() || c == '.' || c == '-' || c == '_')
        && term.chars().count() >= 3
        && is_salient(term)
        && !term.ends_with("ly")
        && !term.ends_with("ed")
        && !VERBS.contains(&term)
        && !VERBS.contains(&stem(term).as_str())
        && !GENERIC.contains(&term)
}

/// The Chinese words of `text`, each with whether a verb came before it.
fn cjk_words(text: &str) -> Vec<(String, bool)> {
    let (rewritten, _) = rewrite_cjk(text);
    let mut words = Vec::new();
    let mut after_verb = false;
    for run in rewritten.split(|c: char| !is_han(c)) {
        let mut rest = run;
        let mut word = String::new();
        while let Some(c) = rest.chars().next() {
            if let Some(verb) = CJK_VERBS.iter().find(|v| rest.starts_with(**v)) {
                if !word.is_empty() {
                    words.push((std::mem::take(&mut word), after_verb));
                }
                after_verb = true;
                rest = &rest[verb.len()..];
                continue;
            }
            word.push(c);
            rest = &rest[c.len_utf8()..];
        }
        if !word.is_empty() {
            words.push((word, after_verb));
        }
    }
    words
}

/// A Chinese topic word of `text`, if it has one.
fn cjk_topic(text: &str) -> Option<String> {
    let words: Vec<(String, bool)> = cjk_words(text)
        .into_iter()
        .filter(|(w, _)| w.chars().count() >= 2 && !GENERIC.contains(&w.as_str()))
        .collect();
    let (word, _) = words
        .iter()
        .find(|(_, after_verb)| *after_verb)
        .or_else(|| words.first())?;
    // A long run is a phrase: its last characters are its head noun.
    let chars: Vec<char> = word.chars().collect();
    let from = chars.len().saturating_sub(CJK_TOPIC_CHARS_MAX);
    Some(chars.get(from..).unwrap_or_default().iter().collect())
}

/// The room name for a text (see the module documentation), if any.
#[must_use]
pub fn room_name(
    text: &str,
    profile: &Profile,
    entities: &[Entity],
    tags: &[String],
) -> Option<String> {
    if let Some(tag) = tags.first() {
        return Some(tag.clone());
    }
    let named = |categories: &[&str]| {
        entities
            .iter()
            .find(|e| categories.contains(&e.category))
            .map(|e| e.key.clone())
    };
    if let Some(name) = named(&["project", "tool", "organisation"]) {
        return Some(name);
    }
    // Words of a person's or place's name are not topics (`Alice teaches`).
    let name_words: Vec<&str> = entities
        .iter()
        .filter(|e| matches!(e.category, "person" | "place"))
        .flat_map(|e| e.key.split(' '))
        .collect();
    let english = profile
        .terms
        .iter()
        .find(|t| english_topic(t) && !name_words.contains(&t.as_str()))
        .cloned();
    let has_han = text.chars().any(is_han);
    let topic = if has_han {
        cjk_topic(text).or(english)
    } else {
        english
    };
    topic.or_else(|| named(&["person", "place"]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meaning::profile;

    fn room(text: &str) -> Option<String> {
        room_name(
            text,
            &profile(text),
            &engram_text::entities::extract(text),
            &[],
        )
    }

    /// Issue 17: rooms were named after adverbs, verbs and bigrams across
    /// two words.
    #[test]
    fn issue_17_rooms_are_topics() {
        for (text, expected) in [
            (
                "Absolutely always run the migrations before deploys.",
                "migration",
            ),
            ("Quarterly planning needs the finance numbers.", "planning"),
            ("Alice teaches the onboarding workshop.", "onboarding"),
            ("It happens that backups fail on Sundays.", "backup"),
            ("We decided to move billing to the new cluster.", "billing"),
            (
                "Directly message the oncall engineer for outages.",
                "message",
            ),
            ("用户喜欢喝绿茶。", "绿茶"),
            ("张伟负责支付系统。", "支付系统"),
            ("The search service listens on port 9090.", "search"),
            ("The user likes Go for network services.", "go"),
        ] {
            assert_eq!(room(text).as_deref(), Some(expected), "{text:?}");
        }
        let bad = [
            "absolutely",
            "quarterly",
            "teach",
            "teaches",
            "happens",
            "decided",
            "directly",
            "户喜",
        ];
        for text in [
            "Absolutely always run the migrations before deploys.",
            "用户喜欢喝绿茶。",
            "The user decided it happens directly.",
        ] {
            if let Some(name) = room(text) {
                assert!(!bad.contains(&name.as_str()), "{text:?} named {name}");
            }
        }
    }

    #[test]
    fn a_tag_names_the_room_first() {
        let text = "The user likes Go for network services.";
        let tags = ["languages".to_owned()];
        assert_eq!(
            room_name(text, &profile(text), &[], &tags).as_deref(),
            Some("languages")
        );
    }
}

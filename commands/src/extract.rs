//! Ingest extraction: memories proposed from a transcript's user turns —
//! stated preferences, decisions, facts about the user or the project, in
//! English and Chinese — each referencing its exact source turn. The
//! proposals go through the same save path as any memory (gates, the four
//! outcomes), so a restated preference reinforces instead of duplicating.
//!
//! A turn is split into sentences (`.`, `!`, `?`, `。`, `！`, `？`, line
//! breaks); a sentence of at least [`SENTENCE_CHARS_MIN`] characters is
//! proposed when it contains one of the cue phrases of [`CUES_EN`]
//! (case-insensitive, at a word start) or [`CUES_ZH`]. Questions are not
//! proposed.

use engram_log::Role;

/// Shortest sentence worth proposing.
pub const SENTENCE_CHARS_MIN: usize = 8;

/// English cue phrases (lower case).
pub const CUES_EN: &[&str] = &[
    "i prefer",
    "i like",
    "i love",
    "i don't like",
    "i do not like",
    "i dislike",
    "i hate",
    "i always",
    "i never",
    "i usually",
    "i want",
    "i need",
    "please always",
    "please never",
    "always use",
    "never use",
    "don't use",
    "do not use",
    "we decided",
    "we agreed",
    "we will use",
    "we'll use",
    "let's use",
    "we use",
    "we are using",
    "my name is",
    "i am a",
    "i'm a",
    "i work",
    "our team",
    "our project",
    "the project uses",
    "this project",
    "remember that",
    "from now on",
];

/// Chinese cue phrases.
pub const CUES_ZH: &[&str] = &[
    "我喜欢",
    "我偏好",
    "我更喜欢",
    "我不喜欢",
    "我讨厌",
    "我习惯",
    "我希望",
    "我需要",
    "以后",
    "总是",
    "不要用",
    "别用",
    "记住",
    "我们决定",
    "我们用",
    "我们使用",
    "决定",
    "我叫",
    "我是",
    "我们的项目",
    "这个项目",
    "项目使用",
];

/// A sentence proposed as a memory, from the turn at `seq`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposal {
    pub seq: u64,
    pub sentence: String,
}

/// Sentences of `text`: ends at `!`, `?`, `。`, `！`, `？` and line
/// breaks, and at `.` followed by whitespace or the end (so `3.12` and
/// `node.js` stay whole).
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next_is_space = chars.peek().is_none_or(|(_, n)| n.is_whitespace());
        let ends =
            matches!(c, '!' | '?' | '。' | '！' | '？' | '\n') || (c == '.' && next_is_space);
        if ends {
            let end = at + c.len_utf8();
            if let Some(sentence) = text.get(start..end) {
                out.push(sentence.trim());
            }
            start = end;
        }
    }
    if let Some(rest) = text.get(start..) {
        out.push(rest.trim());
    }
    out.retain(|s| !s.is_empty());
    out
}

fn has_cue(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    let at_word_start = |cue: &str| {
        lower.match_indices(cue).any(|(at, _)| {
            lower[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric())
        })
    };
    CUES_EN.iter().any(|cue| at_word_start(cue)) || CUES_ZH.iter().any(|cue| sentence.contains(cue))
}

/// Proposals from `turns` (seq, role, content): user turns only (what the
/// user said about themselves or the project), in seq order.
#[must_use]
pub fn proposals(turns: &[(u64, Role, &str)]) -> Vec<Proposal> {
    let mut out = Vec::new();
    for &(seq, role, content) in turns {
        if role != Role::User {
            continue;
        }
        for sentence in sentences(content) {
            let question = sentence.ends_with('?') || sentence.ends_with('？');
            if !question && sentence.chars().count() >= SENTENCE_CHARS_MIN && has_cue(sentence) {
                out.push(Proposal {
                    seq,
                    sentence: sentence.to_owned(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preferences_decisions_and_facts_are_proposed_from_user_turns() {
        let turns = [
            (
                1,
                Role::User,
                "Hi there. I prefer tabs over spaces in Go code. Can you fix the build?",
            ),
            (2, Role::Assistant, "I like that idea, I will use tabs."),
            (
                3,
                Role::User,
                "We decided to ship on Fridays only.\nThanks!",
            ),
            (
                4,
                Role::User,
                "我喜欢用 Python 3.12 做数据分析。今天天气不错。",
            ),
            (5, Role::User, "Do you always use tabs?"),
            (6, Role::User, "This is unlike anything; brilliant."),
        ];
        let got: Vec<(u64, String)> = proposals(&turns)
            .into_iter()
            .map(|p| (p.seq, p.sentence))
            .collect();
        assert_eq!(
            got,
            [
                (1, "I prefer tabs over spaces in Go code.".to_owned()),
                (3, "We decided to ship on Fridays only.".to_owned()),
                (4, "我喜欢用 Python 3.12 做数据分析。".to_owned()),
            ]
        );
    }
}

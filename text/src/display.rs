//! What stored text may not carry raw onto a terminal or into a model's
//! context: characters that move the cursor or break a line (control
//! characters: ANSI escape sequences begin with one, `\r` rewinds the line),
//! separators some readers break lines at (U+2028, U+2029), and invisible
//! characters that hide or reorder text (bidi overrides and isolates,
//! zero-width space, word joiner, BOM).
//!
//! Human output shows such characters as visible escapes (`\u{1b}`,
//! `\u{202e}`) through [`neutralize`] (multi-line text) or
//! [`neutralize_line`] (a name, a tag, a session id: one line). JSON
//! output keeps text exactly as stored; JSON escaping protects it there.
//! The context block handed to a model escapes the same set its own way
//! (`engram_queries::context`).
//!
//! Zero-width joiner and non-joiner (U+200D, U+200C) are not hazards:
//! emoji sequences and several scripts need them.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` is shown escaped rather than raw: a control character
/// (including `\n` and `\t`, which [`neutralize`] keeps), U+2028 or
/// U+2029, or an invisible character that can hide or reorder text.
#[must_use]
pub fn is_hazard(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            // Line and paragraph separators.
            '\u{2028}' | '\u{2029}'
            // Arabic letter mark, Mongolian vowel separator, zero-width
            // space, LRM, RLM, word joiner and the invisible operators,
            // BOM, interlinear annotations.
            | '\u{061C}' | '\u{180E}' | '\u{200B}' | '\u{200E}' | '\u{200F}'
            | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}'
            // Bidi embeddings, overrides and isolates.
            | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

fn neutralized(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_hazard(c) && !keep(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_hazard(c) && !keep(c) {
            // Writing to a String cannot fail.
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` for a terminal, its lines kept: every hazard but `\n` and `\t`
/// shown as `\u{hex}`. Text without hazards is returned as it is.
#[must_use]
pub fn neutralize(text: &str) -> Cow<'_, str> {
    neutralized(text, |c| c == '\n' || c == '\t')
}

/// `text` for one line of a terminal: every hazard, `\n` and `\t`
/// included, shown as `\u{hex}`.
#[must_use]
pub fn neutralize_line(text: &str) -> Cow<'_, str> {
    neutralized(text, |_| false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_escapes_cr_and_bidi_overrides_become_visible() {
        let text = "a\u{1b}[2J\u{1b}[31mred\rb\u{202e}cba\u{2066}\u{85}\u{2028}";
        assert_eq!(
            neutralize(text),
            "a\\u{1b}[2J\\u{1b}[31mred\\u{d}b\\u{202e}cba\\u{2066}\\u{85}\\u{2028}"
        );
    }

    #[test]
    fn lines_and_tabs_stay_in_text_and_are_escaped_in_a_line() {
        assert_eq!(neutralize("one\n\ttwo"), "one\n\ttwo");
        assert_eq!(neutralize_line("one\n\ttwo"), "one\\u{a}\\u{9}two");
    }

    #[test]
    fn ordinary_text_is_borrowed_unchanged() {
        for text in [
            "plain",
            "用户偏好 Python",
            "emoji 👨\u{200d}👩\u{200d}👧 ok",
            "",
        ] {
            assert!(matches!(neutralize(text), Cow::Borrowed(t) if t == text));
            assert!(matches!(neutralize_line(text), Cow::Borrowed(t) if t == text));
        }
    }

    #[test]
    fn no_hazard_survives_neutralizing() {
        let every: String = (0..=0x10FFFF_u32).filter_map(char::from_u32).collect();
        assert!(!neutralize_line(&every).chars().any(is_hazard));
        assert!(
            !neutralize(&every)
                .chars()
                .any(|c| is_hazard(c) && c != '\n' && c != '\t')
        );
    }
}

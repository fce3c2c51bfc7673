//! Personal data with a checkable shape: US Social Security numbers, IBANs
//! and the phone numbers the E.164 and China-mobile rules of the parent
//! module do not reach (North American national forms, `00` international
//! prefixes, any number right after a phone word).
//!
//! Invariants: every candidate is a whole number (not glued to letters,
//! digits or a `-`/`.`/`/` that continues it, nor to a reference such as
//! `INV-` or `#`), and each shape is validated before it is reported: SSN
//! area, group and serial ranges; IBAN country length and ISO 7064 mod-97
//! check; NANP area and exchange codes; 7-15 digits for a phone.

use std::sync::LazyLock;

use regex::Regex;

use super::{
    Candidates, SecretKind, count_digits, is_word, next_char, number_after_ok, number_edges_ok,
    prev_char, re, scan,
};

/// The number is glued to a reference before it: `INV-415-...`,
/// `#415...`, `v2.555...`, `ab_123...`.
fn reference_before(text: &str, start: usize) -> bool {
    match prev_char(text, start) {
        Some('#') => true,
        // `before` is ASCII here, so `start - 1` is a char boundary.
        Some('-' | '_' | '/' | '.') => is_word(prev_char(text, start - 1)),
        _ => false,
    }
}

fn whole_number(text: &str, start: usize, end: usize) -> bool {
    number_edges_ok(text, start, end) && !reference_before(text, start)
}

// ---------------------------------------------------------------------- SSN

static SSN: LazyLock<Regex> = LazyLock::new(|| re(r"[0-9]{3}-[0-9]{2}-[0-9]{4}"));

/// After a key word, spaces, dots or nothing may separate the groups.
static SSN_KEYWORD: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)(?-u:\b)(?:ssn|social[ -]security(?:[ -](?:number|no\.?|#))?)",
        r"[ \t]*[:=#]?[ \t]*([0-9]{3}[ .-]?[0-9]{2}[ .-]?[0-9]{4})"
    ))
});

/// Area 001-899 except 666, group 01-99, serial 0001-9999.
fn ssn_valid(s: &str) -> bool {
    let d: Vec<u32> = s.chars().filter_map(|c| c.to_digit(10)).collect();
    if d.len() != 9 {
        return false;
    }
    let area = d[0] * 100 + d[1] * 10 + d[2];
    let group = d[3] * 10 + d[4];
    let serial = d[5] * 1000 + d[6] * 100 + d[7] * 10 + d[8];
    (1..=899).contains(&area) && area != 666 && group != 0 && serial != 0
}

pub(super) fn detect_ssn(c: &mut Candidates<'_>) {
    let text = c.text;
    let mut spans = scan(&SSN, text, |caps| {
        let m = caps.get(0)?;
        (whole_number(text, m.start(), m.end()) && ssn_valid(m.as_str()))
            .then_some((m.start(), m.end()))
    });
    spans.extend(scan(&SSN_KEYWORD, text, |caps| {
        let m = caps.get(1)?;
        (number_after_ok(text, m.end()) && ssn_valid(m.as_str())).then_some((m.start(), m.end()))
    }));
    for (s, e) in spans {
        c.push(SecretKind::Ssn, s, e);
    }
}

// ------------------------------------------------------------- ID documents

/// Digits the number of an identity document holds at least (passports:
/// 7 to 9; licences and national ids more): fewer is a count or a year.
pub(super) const ID_DOCUMENT_DIGITS_MIN: usize = 6;

/// A document's name, its number's label and a separator, then the
/// number: capitals and digits, with a hyphen or a space inside
/// (`X1234567`, `E12345678`, `D123-4567-8901`). English names need a label
/// ("number", "no.", "#", "ID") or a separator (`:`, "is"): "my passport
/// expires 2031" names no number.
static ID_DOCUMENT: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i:(?-u:\b)(?:passport|driver'?s?[ -]licen[cs]e|driving[ -]licen[cs]e",
        r"|national[ -](?:id(?:entity)?(?:[ -]card)?|insurance)|tax[ -](?:id|identification))",
        r"(?:[ \t]+(?:number|no\.?|num|#|id)|[ \t]*#)?",
        r"(?:[ \t]*[:=][ \t]*|[ \t]+(?:is|was)[ \t]+|[ \t]+))",
        r"(?:(?:number|no\.?|#)[ \t]*)?",
        r"([A-Z0-9](?:[A-Z0-9]|[ -][A-Z0-9]){5,19})",
        r"|(?:护照|驾照|驾驶证)(?:号码?|编号)?[ \t]*(?:[:：]|是|为)?[ \t]*([A-Z0-9]{6,18})",
    ))
});

/// Whether the words between a document's name and its number say it is
/// the number: a label or a separator (see [`ID_DOCUMENT`]).
fn labelled(between: &str) -> bool {
    let lower = between.to_ascii_lowercase();
    lower.contains(['#', ':', '='])
        || lower.split_whitespace().any(|w| {
            matches!(
                w.trim_end_matches('.'),
                "number" | "no" | "num" | "id" | "is" | "was"
            )
        })
}

pub(super) fn detect_id_documents(c: &mut Candidates<'_>) {
    let text = c.text;
    let spans = scan(&ID_DOCUMENT, text, |caps| {
        let whole = caps.get(0)?;
        let (m, chinese) = match (caps.get(1), caps.get(2)) {
            (Some(m), _) => (m, false),
            (None, Some(m)) => (m, true),
            (None, None) => return None,
        };
        let number = m.as_str().trim_end_matches([' ', '-']);
        let end = m.start() + number.len();
        // A date or a year range is no document number (`2031-05-01`).
        let dated = number.len() >= 7
            && number.as_bytes()[4] == b'-'
            && number[..4].bytes().all(|b| b.is_ascii_digit());
        let between = &text[whole.start()..m.start()];
        (count_digits(number) >= ID_DOCUMENT_DIGITS_MIN
            && !dated
            && (chinese || labelled(between))
            && number_after_ok(text, end))
        .then_some((m.start(), end))
    });
    for (s, e) in spans {
        c.push(SecretKind::IdDocument, s, e);
    }
}

// --------------------------------------------------------------------- IBAN

static IBAN: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"[A-Z]{2}[0-9]{2}",
        r"(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,4})?)"
    ))
});

/// IBAN length by country (ISO 13616 registry).
const IBAN_LENGTHS: &[(&str, usize)] = &[
    ("AD", 24),
    ("AE", 23),
    ("AL", 28),
    ("AT", 20),
    ("AZ", 28),
    ("BA", 20),
    ("BE", 16),
    ("BG", 22),
    ("BH", 22),
    ("BR", 29),
    ("CH", 21),
    ("CR", 22),
    ("CY", 28),
    ("CZ", 24),
    ("DE", 22),
    ("DK", 18),
    ("DO", 28),
    ("EE", 20),
    ("EG", 29),
    ("ES", 24),
    ("FI", 18),
    ("FO", 18),
    ("FR", 27),
    ("GB", 22),
    ("GE", 22),
    ("GI", 23),
    ("GL", 18),
    ("GR", 27),
    ("GT", 28),
    ("HR", 21),
    ("HU", 28),
    ("IE", 22),
    ("IL", 23),
    ("IQ", 23),
    ("IS", 26),
    ("IT", 27),
    ("JO", 30),
    ("KW", 30),
    ("KZ", 20),
    ("LB", 28),
    ("LC", 32),
    ("LI", 21),
    ("LT", 20),
    ("LU", 20),
    ("LV", 21),
    ("MC", 27),
    ("MD", 24),
    ("ME", 22),
    ("MK", 19),
    ("MR", 27),
    ("MT", 31),
    ("MU", 30),
    ("NL", 18),
    ("NO", 15),
    ("PK", 24),
    ("PL", 28),
    ("PS", 29),
    ("PT", 25),
    ("QA", 29),
    ("RO", 24),
    ("RS", 22),
    ("SA", 24),
    ("SC", 31),
    ("SE", 24),
    ("SI", 19),
    ("SK", 24),
    ("SM", 27),
    ("ST", 25),
    ("SV", 28),
    ("TL", 23),
    ("TN", 24),
    ("TR", 26),
    ("UA", 29),
    ("VA", 22),
    ("VG", 24),
    ("XK", 20),
];

/// ISO 7064 MOD 97-10 over the IBAN with its first four characters moved
/// to the end and letters as 10..35.
fn iban_checksum_ok(iban: &[u8]) -> bool {
    let mut rem: u32 = 0;
    for &b in iban[4..].iter().chain(&iban[..4]) {
        let v = match b {
            b'0'..=b'9' => u32::from(b - b'0'),
            b'A'..=b'Z' => u32::from(b - b'A') + 10,
            _ => return false,
        };
        rem = if v >= 10 {
            (rem * 100 + v) % 97
        } else {
            (rem * 10 + v) % 97
        };
    }
    rem == 1
}

pub(super) fn detect_iban(c: &mut Candidates<'_>) {
    let text = c.text;
    let spans = scan(&IBAN, text, |caps| {
        let m = caps.get(0)?;
        let s = m.start();
        if prev_char(text, s).is_some_and(|ch| ch.is_alphanumeric()) {
            return None;
        }
        let len = IBAN_LENGTHS
            .iter()
            .find(|(cc, _)| m.as_str().starts_with(cc))?
            .1;
        // The first `len` characters that are not spaces, ending where a
        // group ends.
        let mut chars = Vec::with_capacity(len);
        let mut end = s;
        for (i, b) in m.as_str().bytes().enumerate() {
            if b != b' ' {
                chars.push(b);
                end = s + i + 1;
                if chars.len() == len {
                    break;
                }
            }
        }
        if chars.len() != len || next_char(text, end).is_some_and(|ch| ch.is_alphanumeric()) {
            return None;
        }
        iban_checksum_ok(&chars).then_some((s, end))
    });
    for (s, e) in spans {
        c.push(SecretKind::Iban, s, e);
    }
}

// ------------------------------------------------------------------- phones

/// North American numbering plan: `(415) 555-0100`, `415-555-0100`,
/// `415.555.0100`, `1-800-555-0199`, `+1 415 555 0100`.
static NANP: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?:\+?1[ .-]?)?(?:\([2-9][0-9]{2}\)[ .-]?|[2-9][0-9]{2}[ .-])",
        r"[2-9][0-9]{2}[ .-][0-9]{4}"
    ))
});

/// `00` international prefix, then groups with separators.
static INTL_00: LazyLock<Regex> =
    LazyLock::new(|| re(r"00[1-9][0-9]{0,2}(?:[ .-](?:\([0-9]{1,5}\)|[0-9]{1,8})){2,6}"));

/// Any number right after a phone word.
static PHONE_WORD: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)(?:(?-u:\b)(?:(?:phone|telephone|tel|mobile|cell|fax|whatsapp|sms|contact)",
        r"(?:[ \t]+(?:me|us|him|her|them))?(?:[ \t]+(?:at|on))?",
        r"|(?:call|text|ring)(?:[ \t]+(?:me|us|him|her|them))?[ \t]+(?:at|on)",
        r"|(?:call|text|ring)[ \t]+(?:me|us|him|her|them))",
        r"(?:[ \t]*(?:no\.?|number|nr\.?|#))?",
        r"|电话|手机|手机号|联系电话|座机)",
        r"[ \t]*[:：.]?[ \t]*",
        r"(\+?\(?[0-9][0-9 ().-]{5,20}[0-9])"
    ))
});

static DATE_OR_TIME: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(?:[0-9]{4}[-./][0-9]{1,2}[-./][0-9]{1,2}|[0-9]{1,2}[-./][0-9]{1,2}[-./][0-9]{2,4})")
});

fn parens_balanced(s: &str) -> bool {
    s.matches('(').count() == s.matches(')').count()
}

pub(super) fn detect_phones(c: &mut Candidates<'_>) {
    let text = c.text;
    let mut spans = scan(&NANP, text, |caps| {
        let m = caps.get(0)?;
        let (s, e) = (m.start(), m.end());
        let ok = whole_number(text, s, e) && parens_balanced(m.as_str());
        ok.then_some((s, e))
    });
    spans.extend(scan(&INTL_00, text, |caps| {
        let m = caps.get(0)?;
        let n = count_digits(m.as_str()) - 2;
        // Not the middle of a longer grouped number (`DE00 3704 0044 ...`).
        // (`before` is ASCII here, so `start - 1` is a char boundary.)
        let grouped = prev_char(text, m.start()) == Some(' ')
            && prev_char(text, m.start() - 1).is_some_and(|ch| ch.is_ascii_alphanumeric());
        (!grouped
            && whole_number(text, m.start(), m.end())
            && (8..=15).contains(&n)
            && parens_balanced(m.as_str()))
        .then_some((m.start(), m.end()))
    }));
    spans.extend(scan(&PHONE_WORD, text, |caps| {
        let m = caps.get(1)?;
        let mut num = m.as_str().trim_end_matches([' ', '.', '-', '(']);
        if !parens_balanced(num) {
            num = num.trim_end_matches(')');
        }
        let e = m.start() + num.len();
        let n = count_digits(num);
        let ok = (7..=15).contains(&n)
            && parens_balanced(num)
            && !DATE_OR_TIME.is_match(num)
            && number_after_ok(text, e)
            && next_char(text, e) != Some(':');
        ok.then_some((m.start(), e))
    }));
    for (s, e) in spans {
        c.push(SecretKind::Phone, s, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iban_checksums() {
        assert!(iban_checksum_ok(b"DE89370400440532013000"));
        assert!(iban_checksum_ok(b"GB82WEST12345698765432"));
        assert!(!iban_checksum_ok(b"GB82WEST12345698765433"));
    }

    #[test]
    fn ssn_ranges() {
        assert!(ssn_valid("536-22-1234"));
        assert!(!ssn_valid("000-22-1234"));
        assert!(!ssn_valid("666-22-1234"));
        assert!(!ssn_valid("912-22-1234"));
        assert!(!ssn_valid("536-00-1234"));
        assert!(!ssn_valid("536-22-0000"));
    }
}

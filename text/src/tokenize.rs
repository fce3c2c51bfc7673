//! Tokenization: the terms the full-text (BM25) index counts.
//!
//! One pass over the text, no dictionary, no allocation per character beyond
//! the terms themselves; linear in the input, deterministic, pure, and it
//! never panics.
//!
//! # Rules
//!
//! 1. **Unicode normalization**: NFKC (`unicode-normalization`), one
//!    character with the marks that combine with it at a time (so a term's
//!    span stays in the original text): full-width ASCII becomes half-width
//!    (`Ｐｙｔｈｏｎ３` is `python3`), half-width katakana full-width, the
//!    ideographic space a space, ligatures (`ﬁ`) and compatibility forms
//!    (`㎏`, `①`) their letters, and decomposed accents are composed (`e` +
//!    `U+0301` is `é`). The hyphens `U+2010`/`U+2011` then become `-`. Text
//!    already in NFKC (all ASCII, most text) takes a fast path.
//! 2. **CJK runs** (Han incl. extensions and compatibility ideographs, `々`,
//!    `〇`; Hiragana; Katakana incl. `ー`; Hangul syllables and jamo) become
//!    overlapping character bigrams: `数据分析` is `数据`, `据分`, `分析`. A run
//!    of a single CJK character becomes that character (a unigram). Scripts
//!    inside one run are not separated (`東京に` is `東京`, `京に`). CJK is
//!    never dropped.
//! 3. **Word runs** (any other `char::is_alphanumeric`, so Latin, Cyrillic,
//!    Greek, digits, ...) become words, case-folded: Unicode lowercase, plus
//!    `ß`/`ẞ` → `ss` and `ς` → `σ`. Combining marks left after composition
//!    (`U+0300..=U+036F` and the other combining diacritical blocks) stay
//!    inside the word they follow.
//! 4. **Joined words**: a single `.`, `_` or `-` *between* two word characters
//!    joins them. The joined word is emitted as one [`TokenKind::Compound`]
//!    term (`node.js`) immediately followed by each of its parts as
//!    [`TokenKind::Part`] terms (`node`, `js`). So the query `Node.js`
//!    matches the text `Node.js` on all three terms (best score), and the
//!    query `node` still matches it. `3.14`, `snake_case`, `e-mail`,
//!    `v1.2.3` work the same way. A trailing or doubled joiner (`end.`,
//!    `a..b`) separates.
//! 5. **Everything else separates** and is dropped: whitespace, punctuation
//!    (incl. CJK punctuation `。，、`), symbols, **emoji** (`🚀`, `C++` is
//!    `c`, `C#` is `c`). Invisible format characters (soft hyphen, zero-width
//!    joiner and non-joiner, word joiner, BOM, variation selectors) are
//!    skipped without separating.
//! 6. **Length cap**: a term is cut to its first [`MAX_TERM_CHARS`]
//!    characters (the same cut on both the index and the query side).
//! 7. **Stemming** ([`index_terms`], [`query_terms`]; not [`tokenize`],
//!    which gives the words as written): words and compound parts are
//!    stemmed by the Snowball stemmer of their language (see
//!    [`crate::stem`]: English, 13 other Latin-script languages decided per
//!    text, Russian, Greek, Arabic, Tamil); a whole compound (`node.js`), a
//!    word with a digit and CJK terms are kept as they are. `Deploys` and
//!    `deploy` are both `deploy`.
//! 8. **Stopwords**: [`tokenize`] and [`index_terms`] keep every word
//!    (documents are indexed whole, so a query made only of stopwords —
//!    "The Who" — can still be answered). [`query_terms`] drops the
//!    stopwords of the query's language ([`crate::stem::is_stopword`]:
//!    English function words and pronouns, and those of the query's
//!    language) unless the query has nothing else.
//!
//! # Positions
//!
//! [`Token::position`] is the token's index in the returned vector (0, 1, 2,
//! ...): a compound and its parts take consecutive positions, and so do the
//! overlapping bigrams of a CJK run. The document length for BM25 is
//! `tokenize(text).len()`.
//!
//! ```
//! use engram_text::tokenize::{query_terms, tokenize};
//!
//! let terms: Vec<String> = tokenize("用户偏好使用 Python 而非 Node.js 处理数据分析。")
//!     .into_iter()
//!     .map(|t| t.term)
//!     .collect();
//! assert_eq!(
//!     terms,
//!     [
//!         "用户", "户偏", "偏好", "好使", "使用", "python", "而非", "node.js", "node",
//!         "js", "处理", "理数", "数据", "据分", "分析",
//!     ]
//! );
//! // The query shares 数据, 据分, 分析 and 偏好 with the text above.
//! assert_eq!(query_terms("数据分析偏好"), ["数据", "据分", "分析", "析偏", "偏好"]);
//! ```

use std::collections::HashSet;
use std::ops::Range;

/// Terms longer than this many characters are cut to this many characters.
pub const MAX_TERM_CHARS: usize = 128;

pub use crate::stem::STOPWORDS;
use crate::stem::{Language, detect_latin, language_of, stem};

/// Whether `term` (already normalised, i.e. lowercase) is in the English
/// [`STOPWORDS`].
///
/// ```
/// use engram_text::tokenize::is_stopword;
/// assert!(is_stopword("the"));
/// assert!(is_stopword("my"));
/// assert!(!is_stopword("The")); // terms are lowercase already
/// assert!(!is_stopword("not"));
/// ```
#[must_use]
pub fn is_stopword(term: &str) -> bool {
    crate::stem::is_stopword(term, Language::English)
}

/// What produced a [`Token`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// A word with no joiners: `python`.
    Word,
    /// A word joined by `.`, `_` or `-`, whole: `node.js`. Its parts follow
    /// it as [`TokenKind::Part`] tokens.
    Compound,
    /// One part of the preceding [`TokenKind::Compound`]: `node`, `js`.
    Part,
    /// Two adjacent CJK characters: `数据`.
    CjkBigram,
    /// A CJK character standing alone (a CJK run of length one): `猫`.
    CjkUnigram,
}

/// One term occurrence.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Token {
    /// The normalised term (what the index keys on).
    pub term: String,
    /// Index of this token in the token sequence (0-based, consecutive).
    pub position: usize,
    /// Byte range in the *original* text this term came from (for snippets
    /// and highlighting); always on `char` boundaries.
    pub span: Range<usize>,
    /// What produced the term.
    pub kind: TokenKind,
}

/// Splits `text` into normalised terms with their positions (see the
/// [module documentation](self) for the rules).
///
/// ```
/// use engram_text::tokenize::{tokenize, TokenKind};
///
/// let tokens = tokenize("数据分析");
/// let terms: Vec<&str> = tokens.iter().map(|t| t.term.as_str()).collect();
/// assert_eq!(terms, ["数据", "据分", "分析"]);
/// assert_eq!(tokens[2].position, 2);
/// assert_eq!(tokens[2].kind, TokenKind::CjkBigram);
/// assert_eq!(&"数据分析"[tokens[2].span.clone()], "分析");
///
/// // Mixed text, full-width letters, a lone CJK character, emoji dropped.
/// let terms: Vec<String> = tokenize("我用ＰＹＴＨＯＮ３写了 snake_case 代码 🚀 猫")
///     .into_iter()
///     .map(|t| t.term)
///     .collect();
/// assert_eq!(
///     terms,
///     ["我用", "python3", "写了", "snake_case", "snake", "case", "代码", "猫"]
/// );
/// ```
#[must_use]
pub fn tokenize(text: &str) -> Vec<Token> {
    use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};
    let mut tokenizer = Tokenizer::with_capacity(text.len() / 4);
    if is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        for (at, c) in text.char_indices() {
            tokenizer.push(at..at + c.len_utf8(), c);
        }
        return tokenizer.finish();
    }
    // One starter with the characters that combine with it at a time: each
    // normalized character takes the span of its chunk.
    let mut start = 0;
    for (at, c) in text.char_indices() {
        if at > start && starts_chunk(c) {
            if let Some(chunk) = text.get(start..at) {
                for n in chunk.nfkc() {
                    tokenizer.push(start..at, n);
                }
            }
            start = at;
        }
    }
    if let Some(chunk) = text.get(start..) {
        for n in chunk.nfkc() {
            tokenizer.push(start..text.len(), n);
        }
    }
    tokenizer.finish()
}

/// Whether `c` begins a normalization chunk: a starter (combining class 0)
/// that is not a Hangul medial or final jamo (which compose with the
/// preceding jamo into a syllable) and does not decompose into marks (the
/// Tibetan vowel sign U+0F73 is a starter whose parts, U+0F71 U+0F72, are
/// reordered with the marks before them).
fn starts_chunk(c: char) -> bool {
    use unicode_normalization::char::{canonical_combining_class, decompose_compatible};
    if canonical_combining_class(c) != 0 || matches!(u32::from(c), 0x1160..=0x11FF) {
        return false;
    }
    let mut first = None;
    decompose_compatible(c, |part| {
        first.get_or_insert(part);
    });
    first.is_none_or(|part| canonical_combining_class(part) == 0)
}

/// The language of the Latin-script words among `tokens`.
fn latin_language(tokens: &[Token]) -> Language {
    detect_latin(
        tokens
            .iter()
            .filter(|t| matches!(t.kind, TokenKind::Word | TokenKind::Part))
            .map(|t| t.term.as_str()),
    )
}

/// The index term of `token`: words and compound parts stemmed, the rest
/// as they are.
fn stemmed(token: Token, latin: Language) -> String {
    if !matches!(token.kind, TokenKind::Word | TokenKind::Part) {
        return token.term;
    }
    match language_of(&token.term, latin) {
        Some(language) => match stem(&token.term, language) {
            std::borrow::Cow::Borrowed(_) => token.term,
            std::borrow::Cow::Owned(stemmed) => stemmed,
        },
        None => token.term,
    }
}

/// The terms the text index counts for `text`, in order: [`tokenize`]'s,
/// with words and compound parts stemmed (rule 7). Its length is
/// `tokenize(text).len()`.
///
/// ```
/// use engram_text::tokenize::index_terms;
/// assert_eq!(index_terms("Deploys happen on Thursdays"), ["deploy", "happen", "on", "thursday"]);
/// assert_eq!(index_terms("node.js 数据"), ["node.js", "node", "js", "数据"]);
/// ```
#[must_use]
pub fn index_terms(text: &str) -> Vec<String> {
    let tokens = tokenize(text);
    let latin = latin_language(&tokens);
    tokens.into_iter().map(|t| stemmed(t, latin)).collect()
}

/// The terms of a query, normalised and stemmed exactly as
/// [`index_terms`] treats documents, deduplicated (first occurrence wins,
/// order kept), with the stopwords of the query's language removed unless
/// every word is a stopword.
///
/// ```
/// use engram_text::tokenize::query_terms;
///
/// assert_eq!(query_terms("What does the user use, Node.js?"), ["user", "use", "node.js", "node", "js"]);
/// assert_eq!(query_terms("When is my deploy day?"), ["deploy", "day"]);
/// assert_eq!(query_terms("The Who"), ["the", "who"]); // nothing else: keep them
/// assert_eq!(query_terms("数据分析 数据"), ["数据", "据分", "分析"]);
/// assert!(query_terms("  ,.!? ").is_empty());
/// ```
#[must_use]
pub fn query_terms(query: &str) -> Vec<String> {
    let tokens = tokenize(query);
    let latin = latin_language(&tokens);
    let is_stop = |t: &Token| {
        matches!(t.kind, TokenKind::Word | TokenKind::Part)
            && crate::stem::is_stopword(&t.term, latin)
    };
    let keep_all = tokens.iter().all(is_stop);
    let mut seen = HashSet::new();
    let mut terms = Vec::new();
    for token in tokens {
        if !keep_all && is_stop(&token) {
            continue;
        }
        let term = stemmed(token, latin);
        if seen.insert(term.clone()) {
            terms.push(term);
        }
    }
    terms
}

/// How one (width-folded) character takes part in tokenization.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Cjk,
    Word,
    Joiner,
    Mark,
    Ignore,
    Separator,
}

fn classify(c: char) -> Class {
    if is_cjk(c) {
        Class::Cjk
    } else if c.is_alphanumeric() {
        Class::Word
    } else if matches!(c, '.' | '_' | '-') {
        Class::Joiner
    } else if is_combining_mark(c) {
        Class::Mark
    } else if is_ignorable(c) {
        Class::Ignore
    } else {
        Class::Separator
    }
}

/// The Unicode hyphens to `-` (after NFKC, which does the rest).
fn fold_width(c: char) -> char {
    match u32::from(c) {
        0x2010 | 0x2011 => '-',
        _ => c,
    }
}

fn is_cjk(c: char) -> bool {
    matches!(
        u32::from(c),
        // Hangul Jamo
        0x1100..=0x11FF
        // CJK symbols that are letters: 々 〆 〇, Hangzhou numerals, kana
        // repeat marks, 〻 〼
        | 0x3005..=0x3007
        | 0x3021..=0x3029
        | 0x3031..=0x3035
        | 0x303B..=0x303C
        // Hiragana; Katakana without ・ (U+30FB, punctuation)
        | 0x3040..=0x309F
        | 0x30A0..=0x30FA
        | 0x30FC..=0x30FF
        // Hangul Compatibility Jamo; Katakana Phonetic Extensions
        | 0x3130..=0x318F
        | 0x31F0..=0x31FF
        // CJK Unified Ideographs Extension A; CJK Unified Ideographs
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        // Hangul Jamo Extended-A; Hangul Syllables; Jamo Extended-B
        | 0xA960..=0xA97F
        | 0xAC00..=0xD7AF
        | 0xD7B0..=0xD7FF
        // CJK Compatibility Ideographs
        | 0xF900..=0xFAFF
        // Half-width Katakana (without ･ U+FF65) and Hangul
        | 0xFF66..=0xFF9F
        | 0xFFA0..=0xFFDC
        // Kana Supplement, Extended-A, Small Kana Extension
        | 0x1_B000..=0x1_B16F
        // Han extensions B..I and the compatibility supplement
        | 0x2_0000..=0x3_FFFF
    )
}

fn is_combining_mark(c: char) -> bool {
    matches!(
        u32::from(c),
        0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F
    )
}

/// Invisible format characters skipped without separating words.
fn is_ignorable(c: char) -> bool {
    matches!(
        u32::from(c),
        0x00AD | 0x200C | 0x200D | 0x2060 | 0xFEFF | 0xFE00..=0xFE0F | 0xE0100..=0xE01EF
    )
}

/// A term being built, with its character count for the length cap.
#[derive(Debug)]
struct Term {
    text: String,
    chars: usize,
}

impl Term {
    fn new() -> Self {
        Term {
            text: String::new(),
            chars: 0,
        }
    }

    fn push_char(&mut self, c: char) {
        if self.chars < MAX_TERM_CHARS {
            self.text.push(c);
            self.chars += 1;
        }
    }

    fn push_str(&mut self, s: &str) {
        for c in s.chars() {
            self.push_char(c);
        }
    }

    /// Appends `c` case-folded.
    fn push_folded(&mut self, c: char) {
        match c {
            'ß' | 'ẞ' => self.push_str("ss"),
            'ς' => self.push_char('σ'),
            _ => {
                for lower in c.to_lowercase() {
                    self.push_char(lower);
                }
            }
        }
    }
}

#[derive(Debug)]
struct Part {
    term: Term,
    span: Range<usize>,
}

#[derive(Debug)]
struct Tokenizer {
    out: Vec<Token>,
    /// Parts of the word being read (one unless joined); empty when not in
    /// a word.
    parts: Vec<Part>,
    /// The joiner between `parts[i]` and `parts[i + 1]`.
    joiners: Vec<char>,
    /// A joiner read after the current part, waiting for a word character.
    pending_joiner: Option<char>,
    /// The previous character of the current CJK run: (char, span).
    cjk_prev: Option<(char, Range<usize>)>,
    /// Characters in the current CJK run.
    cjk_run: usize,
}

impl Tokenizer {
    fn with_capacity(capacity: usize) -> Self {
        Tokenizer {
            out: Vec::with_capacity(capacity),
            parts: Vec::new(),
            joiners: Vec::new(),
            pending_joiner: None,
            cjk_prev: None,
            cjk_run: 0,
        }
    }

    fn emit(&mut self, term: String, span: Range<usize>, kind: TokenKind) {
        let position = self.out.len();
        self.out.push(Token {
            term,
            position,
            span,
            kind,
        });
    }

    /// Takes `c` (normalized), which came from `span` of the text.
    fn push(&mut self, span: Range<usize>, c: char) {
        let c = fold_width(c);
        let (at, end) = (span.start, span.end);
        match classify(c) {
            Class::Cjk => {
                self.end_word();
                self.cjk_char(c, at..end);
            }
            Class::Word => {
                self.end_cjk();
                self.word_char(c, at..end);
            }
            Class::Joiner => {
                self.end_cjk();
                if !self.parts.is_empty() && self.pending_joiner.is_none() {
                    self.pending_joiner = Some(c);
                } else {
                    self.end_word();
                }
            }
            Class::Mark => {
                if self.pending_joiner.is_none()
                    && let Some(part) = self.parts.last_mut()
                {
                    part.term.push_char(c);
                    part.span.end = end;
                }
            }
            Class::Ignore => {}
            Class::Separator => {
                self.end_word();
                self.end_cjk();
            }
        }
    }

    fn word_char(&mut self, c: char, span: Range<usize>) {
        if let Some(joiner) = self.pending_joiner.take() {
            self.joiners.push(joiner);
            self.parts.push(Part {
                term: Term::new(),
                span: span.start..span.start,
            });
        } else if self.parts.is_empty() {
            self.parts.push(Part {
                term: Term::new(),
                span: span.start..span.start,
            });
        }
        if let Some(part) = self.parts.last_mut() {
            part.term.push_folded(c);
            part.span.end = span.end;
        }
    }

    fn end_word(&mut self) {
        self.pending_joiner = None;
        let mut parts = std::mem::take(&mut self.parts);
        match parts.len() {
            0 => {}
            1 => {
                let part = parts.remove(0);
                self.emit(part.term.text, part.span, TokenKind::Word);
            }
            _ => {
                let mut whole = Term::new();
                for (i, part) in parts.iter().enumerate() {
                    if whole.chars >= MAX_TERM_CHARS {
                        break;
                    }
                    if i > 0
                        && let Some(&joiner) = self.joiners.get(i - 1)
                    {
                        whole.push_char(joiner);
                    }
                    whole.push_str(&part.term.text);
                }
                let first = parts.first().map_or(0, |p| p.span.start);
                let last = parts.last().map_or(first, |p| p.span.end);
                self.emit(whole.text, first..last, TokenKind::Compound);
                for part in parts.drain(..) {
                    self.emit(part.term.text, part.span, TokenKind::Part);
                }
            }
        }
        // Keep the allocation for the next word.
        self.parts = parts;
        self.parts.clear();
        self.joiners.clear();
    }

    fn cjk_char(&mut self, c: char, span: Range<usize>) {
        if let Some((prev, prev_span)) = self.cjk_prev.take() {
            let mut bigram = String::with_capacity(prev.len_utf8() + c.len_utf8());
            bigram.push(prev);
            bigram.push(c);
            self.emit(bigram, prev_span.start..span.end, TokenKind::CjkBigram);
        }
        self.cjk_prev = Some((c, span));
        self.cjk_run += 1;
    }

    fn end_cjk(&mut self) {
        if let Some((prev, span)) = self.cjk_prev.take()
            && self.cjk_run == 1
        {
            self.emit(prev.to_string(), span, TokenKind::CjkUnigram);
        }
        self.cjk_run = 0;
    }

    fn finish(mut self) -> Vec<Token> {
        self.end_word();
        self.end_cjk();
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopwords_are_sorted_and_lowercase() {
        assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
        for word in STOPWORDS {
            // A query of one stopword keeps it (stemmed, as documents are).
            assert_eq!(query_terms(word), index_terms(word));
            assert_eq!(query_terms(word).len(), 1);
        }
    }

    #[test]
    fn classes() {
        assert_eq!(classify('数'), Class::Cjk);
        assert_eq!(classify('の'), Class::Cjk);
        assert_eq!(classify('ー'), Class::Cjk);
        assert_eq!(classify('・'), Class::Separator);
        assert_eq!(classify('한'), Class::Cjk);
        assert_eq!(classify('a'), Class::Word);
        assert_eq!(classify('é'), Class::Word);
        assert_eq!(classify('7'), Class::Word);
        assert_eq!(classify('-'), Class::Joiner);
        assert_eq!(classify('\u{301}'), Class::Mark);
        assert_eq!(classify('\u{200D}'), Class::Ignore);
        assert_eq!(classify('。'), Class::Separator);
        assert_eq!(classify('🚀'), Class::Separator);
        assert_eq!(fold_width('\u{2011}'), '-');
        assert_eq!(fold_width('a'), 'a');
    }
}

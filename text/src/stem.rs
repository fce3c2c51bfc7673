//! Stemming and stopwords: which Snowball stemmer a word gets and which
//! query words carry no meaning.
//!
//! **Languages.** A word's script picks its stemmer: Cyrillic is Russian,
//! Greek is Greek, Arabic is Arabic, Tamil is Tamil. Latin-script words take
//! the language of their text, decided by counting the words of the text
//! that are in each language's [`function_words`] (the most frequent ~20
//! function words of English, French, German, Spanish, Italian, Portuguese,
//! Dutch, Swedish, Danish, Norwegian, Finnish, Romanian, Hungarian and
//! Turkish): the language with the most wins, English on a tie or when none
//! is found. Every other script (CJK is bigrammed instead; Hebrew,
//! Devanagari, Thai, ...) is left as it is. The stemmers are the Snowball
//! algorithms of `rust-stemmers`.
//!
//! **The same rule on both sides.** Documents and queries are stemmed by
//! this one rule, so a term matches when both sides land in the same
//! language. A Latin-script query with no function word is stemmed as
//! English: a French memory is found by a French question ("où est le
//! déploiement ?"), not always by bare French keywords.
//!
//! **Stopwords.** [`is_stopword`] is true for the English [`STOPWORDS`]
//! (function words, pronouns and contraction tails) and, for a text in
//! another Latin-script language, for that language's function words.
//! Negations (`no`, `not`, `never`) are kept: they change what a memory
//! means.

use std::borrow::Cow;

use rust_stemmers::{Algorithm, Stemmer};

/// A language with a stemmer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Language {
    English,
    French,
    German,
    Spanish,
    Italian,
    Portuguese,
    Dutch,
    Swedish,
    Danish,
    Norwegian,
    Finnish,
    Romanian,
    Hungarian,
    Turkish,
    Russian,
    Greek,
    Arabic,
    Tamil,
}

impl Language {
    fn algorithm(self) -> Algorithm {
        match self {
            Language::English => Algorithm::English,
            Language::French => Algorithm::French,
            Language::German => Algorithm::German,
            Language::Spanish => Algorithm::Spanish,
            Language::Italian => Algorithm::Italian,
            Language::Portuguese => Algorithm::Portuguese,
            Language::Dutch => Algorithm::Dutch,
            Language::Swedish => Algorithm::Swedish,
            Language::Danish => Algorithm::Danish,
            Language::Norwegian => Algorithm::Norwegian,
            Language::Finnish => Algorithm::Finnish,
            Language::Romanian => Algorithm::Romanian,
            Language::Hungarian => Algorithm::Hungarian,
            Language::Turkish => Algorithm::Turkish,
            Language::Russian => Algorithm::Russian,
            Language::Greek => Algorithm::Greek,
            Language::Arabic => Algorithm::Arabic,
            Language::Tamil => Algorithm::Tamil,
        }
    }
}

/// English stopwords dropped from queries, sorted: function words,
/// pronouns (all persons and cases), auxiliaries, question words and the
/// tails contractions leave (`'s`, `'ve`, `n't`). `no`, `not`, `nor` and
/// `never` are not in it.
#[rustfmt::skip]
pub const STOPWORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
    "but", "by", "can", "could", "d", "did", "do", "does", "doing", "down", "during", "each",
    "else", "ever", "every", "few", "for", "from", "further", "had", "has", "have", "having", "he",
    "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is",
    "it", "its", "itself", "just", "ll", "m", "may", "me", "might", "mine", "more", "most", "must",
    "my", "myself", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves",
    "out", "over", "own", "re", "s", "same", "shall", "she", "should", "so", "some", "such", "t",
    "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these",
    "they", "this", "those", "through", "to", "too", "under", "until", "up", "us", "ve", "very",
    "was", "we", "were", "what", "whatever", "when", "where", "whether", "which", "while", "who",
    "whom", "whose", "why", "will", "with", "would", "you", "your", "yours", "yourself",
    "yourselves",
];

/// The most frequent function words of each Latin-script language with a
/// stemmer: what decides a text's language, and the query stopwords of
/// that language.
#[must_use]
pub fn function_words(language: Language) -> &'static [&'static str] {
    match language {
        Language::English => &[
            "the", "and", "is", "are", "was", "of", "to", "in", "that", "it", "with", "for", "on",
            "this", "what", "when", "my", "you", "have", "do", "i", "we", "our", "your",
        ],
        Language::French => &[
            "le", "la", "les", "des", "est", "et", "une", "un", "du", "qui", "dans", "pour", "pas",
            "sur", "je", "nous", "vous", "avec", "ce", "au", "mon", "où", "quand",
        ],
        Language::German => &[
            "der", "die", "das", "und", "ist", "nicht", "ein", "eine", "ich", "zu", "mit", "den",
            "dem", "auf", "für", "sich", "wir", "auch", "es", "im", "wann", "wo",
        ],
        Language::Spanish => &[
            "el", "los", "las", "del", "y", "es", "una", "por", "con", "para", "pero", "como",
            "su", "al", "lo", "se", "mi", "yo", "qué", "cuándo", "dónde", "está",
        ],
        Language::Italian => &[
            "il", "di", "che", "è", "e", "non", "per", "sono", "della", "gli", "ho", "nel",
            "anche", "questo", "quando", "dove", "cosa", "mio", "alla", "io",
        ],
        Language::Portuguese => &[
            "o", "os", "da", "do", "não", "em", "um", "é", "na", "no", "mais", "eu", "você",
            "quando", "onde", "meu", "minha", "das", "dos", "ao",
        ],
        Language::Dutch => &[
            "de", "het", "een", "en", "van", "niet", "ik", "dat", "op", "te", "zijn", "met",
            "voor", "maar", "wij", "ook", "er", "naar", "je", "wanneer", "waar",
        ],
        Language::Swedish => &[
            "och", "att", "det", "som", "är", "på", "jag", "för", "med", "inte", "har", "till",
            "av", "den", "om", "vi", "ett", "så", "när", "var",
        ],
        Language::Danish => &[
            "og", "at", "det", "er", "til", "på", "jeg", "med", "ikke", "for", "af", "den", "har",
            "vi", "som", "et", "men", "hvad", "hvor", "hvornår",
        ],
        Language::Norwegian => &[
            "og", "det", "er", "ikke", "jeg", "på", "til", "som", "av", "med", "har", "vi", "et",
            "men", "hva", "hvor", "når", "å", "hun", "jeg",
        ],
        Language::Finnish => &[
            "ja", "on", "ei", "se", "että", "hän", "oli", "mutta", "kun", "minä", "olen", "tämä",
            "myös", "niin", "kuin", "jos", "vain", "mikä", "missä", "milloin",
        ],
        Language::Romanian => &[
            "și", "în", "nu", "pe", "cu", "este", "sunt", "din", "care", "pentru", "ce", "ca",
            "eu", "să", "lui", "dar", "când", "unde", "meu", "mai",
        ],
        Language::Hungarian => &[
            "az", "és", "hogy", "nem", "egy", "van", "meg", "ez", "csak", "már", "mint", "én",
            "volt", "még", "ha", "mikor", "hol", "mi", "nekem", "vagy",
        ],
        Language::Turkish => &[
            "ve", "bir", "bu", "için", "ile", "ne", "çok", "ben", "ama", "gibi", "var", "daha",
            "sen", "biz", "değil", "nerede", "zaman", "benim", "mı", "mi",
        ],
        _ => &[],
    }
}

/// The Latin-script languages, in the order ties are broken (English first).
const LATIN: [Language; 14] = [
    Language::English,
    Language::French,
    Language::German,
    Language::Spanish,
    Language::Italian,
    Language::Portuguese,
    Language::Dutch,
    Language::Swedish,
    Language::Danish,
    Language::Norwegian,
    Language::Finnish,
    Language::Romanian,
    Language::Hungarian,
    Language::Turkish,
];

/// The language of the Latin-script words of a text, from its (normalised,
/// lowercase) words: the one with the most function words among them,
/// English on a tie or when there are none.
#[must_use]
pub fn detect_latin<'a>(words: impl IntoIterator<Item = &'a str>) -> Language {
    let mut counts = [0usize; LATIN.len()];
    for word in words {
        let Some(&languages) = FUNCTION_WORD_LANGUAGES.get(word) else {
            continue;
        };
        for (at, count) in counts.iter_mut().enumerate() {
            if languages & (1 << at) != 0 {
                *count += 1;
            }
        }
    }
    let mut best = (0, Language::English);
    for (count, language) in counts.into_iter().zip(LATIN) {
        if count > best.0 {
            best = (count, language);
        }
    }
    best.1
}

/// Each function word of a [`LATIN`] language, with one bit per language
/// (bit `i` for `LATIN[i]`) whose list holds it: one lookup per word of a
/// text, where scanning the fourteen lists was most of a save's string
/// comparisons.
static FUNCTION_WORD_LANGUAGES: std::sync::LazyLock<std::collections::HashMap<&'static str, u16>> =
    std::sync::LazyLock::new(|| {
        let mut map = std::collections::HashMap::new();
        for (at, language) in LATIN.into_iter().enumerate() {
            for &word in function_words(language) {
                *map.entry(word).or_insert(0u16) |= 1 << at;
            }
        }
        map
    });

const _: () = assert!(LATIN.len() <= u16::BITS as usize);

/// The stemmer a word gets, from the script of its first letter: see the
/// [module documentation](self). `latin` is the language of the text.
#[must_use]
pub fn language_of(word: &str, latin: Language) -> Option<Language> {
    let first = word.chars().find(|c| c.is_alphabetic())?;
    match u32::from(first) {
        0x0041..=0x005A | 0x0061..=0x007A | 0x00C0..=0x024F | 0x1E00..=0x1EFF => Some(latin),
        0x0370..=0x03FF | 0x1F00..=0x1FFF => Some(Language::Greek),
        0x0400..=0x052F => Some(Language::Russian),
        0x0600..=0x06FF | 0x0750..=0x077F => Some(Language::Arabic),
        0x0B80..=0x0BFF => Some(Language::Tamil),
        _ => None,
    }
}

/// `word` (normalised, lowercase) stemmed for `language`. Words with a
/// digit and one-letter words are left as they are.
#[must_use]
pub fn stem(word: &str, language: Language) -> Cow<'_, str> {
    if word.chars().nth(1).is_none() || word.chars().any(|c| c.is_numeric()) {
        return Cow::Borrowed(word);
    }
    // Words repeat (a batch of saves, the text index folding them): each
    // thread remembers the stems it computed, a pure function of the word
    // and language, so a repeated word skips the stemmer.
    STEMS.with_borrow_mut(|stems| {
        if let Some((cached_language, stemmed)) = stems.get(word)
            && *cached_language == language
        {
            return match stemmed {
                Some(stemmed) => Cow::Owned(String::from(&**stemmed)),
                None => Cow::Borrowed(word),
            };
        }
        let stemmed = Stemmer::create(language.algorithm()).stem(word);
        // A stemmer never empties a word; keep it whole if one did.
        let stemmed = match stemmed {
            Cow::Owned(stemmed) if !stemmed.is_empty() && stemmed != word => Some(stemmed),
            _ => None,
        };
        if stems.len() >= STEMS_CACHED_MAX {
            stems.clear();
        }
        stems.insert(word.into(), (language, stemmed.as_deref().map(Box::from)));
        match stemmed {
            Some(stemmed) => Cow::Owned(stemmed),
            None => Cow::Borrowed(word),
        }
    })
}

/// Words whose stems a thread keeps at most (then it starts over).
const STEMS_CACHED_MAX: usize = 16_384;

/// Word -> (the language it was stemmed as, its stem when that differs
/// from the word).
type StemCache = std::collections::HashMap<Box<str>, (Language, Option<Box<str>>)>;

thread_local! {
    static STEMS: std::cell::RefCell<StemCache> = std::cell::RefCell::new(StemCache::new());
}

/// Whether `word` (normalised, lowercase, not stemmed) is a stopword of a
/// query whose Latin-script language is `latin`: the English
/// [`STOPWORDS`], and `latin`'s [`function_words`].
///
/// ```
/// use engram_text::stem::{is_stopword, Language};
/// assert!(is_stopword("my", Language::English));
/// assert!(!is_stopword("not", Language::English));
/// assert!(is_stopword("le", Language::French));
/// assert!(!is_stopword("le", Language::English));
/// ```
#[must_use]
pub fn is_stopword(word: &str, latin: Language) -> bool {
    STOPWORD_SET.contains(word)
        || (latin != Language::English && function_words(latin).contains(&word))
}

/// [`STOPWORDS`] as a set: asked of every word of every text saved or
/// searched, several times over, where a binary search over the list cost
/// a tenth of preparing a save.
static STOPWORD_SET: std::sync::LazyLock<rustc_hash::FxHashSet<&'static str>> =
    std::sync::LazyLock::new(|| STOPWORDS.iter().copied().collect());

#[cfg(test)]
mod tests {
    use super::*;

    /// A stem remembered is the stem the stemmer gives, whichever language
    /// asked first.
    #[test]
    fn remembered_stems_are_the_stemmers() {
        let words = [
            "deploys",
            "running",
            "happiness",
            "x1",
            "a",
            "maisons",
            "deploys",
        ];
        for _ in 0..2 {
            for language in [Language::English, Language::French, Language::English] {
                for word in words {
                    let direct =
                        if word.chars().nth(1).is_none() || word.chars().any(|c| c.is_numeric()) {
                            word.to_owned()
                        } else {
                            Stemmer::create(language.algorithm())
                                .stem(word)
                                .into_owned()
                        };
                    assert_eq!(stem(word, language), direct, "{word} in {language:?}");
                }
            }
        }
    }

    /// What `detect_latin` computed before its lookup table: a scan of
    /// every language's list per word.
    fn detect_latin_by_scan(words: &[&str]) -> Language {
        let mut best = (0, Language::English);
        for language in LATIN {
            let count = words
                .iter()
                .filter(|w| function_words(language).contains(w))
                .count();
            if count > best.0 {
                best = (count, language);
            }
        }
        best.1
    }

    proptest::proptest! {
        #[test]
        fn the_lookup_detects_what_a_scan_of_every_list_does(
            picks in proptest::collection::vec((0usize..14, 0usize..40), 0..12),
            others in proptest::collection::vec("[a-zà-ü]{1,6}", 0..6),
        ) {
            let mut words: Vec<&str> = picks
                .iter()
                .filter_map(|&(l, w)| function_words(LATIN[l]).get(w).copied())
                .collect();
            words.extend(others.iter().map(String::as_str));
            proptest::prop_assert_eq!(
                detect_latin(words.iter().copied()),
                detect_latin_by_scan(&words)
            );
        }
    }

    #[test]
    fn stopwords_are_sorted_and_keep_negations() {
        assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
        for kept in ["no", "not", "nor", "never"] {
            assert!(!is_stopword(kept, Language::English));
        }
    }

    #[test]
    fn languages_and_stems() {
        assert_eq!(detect_latin("où est le chat".split(' ')), Language::French);
        assert_eq!(
            detect_latin("deploy thursday".split(' ')),
            Language::English
        );
        assert_eq!(detect_latin(std::iter::empty()), Language::English);
        assert_eq!(stem("deploys", Language::English), "deploy");
        assert_eq!(stem("happening", Language::English), "happen");
        assert_eq!(stem("thursdays", Language::English), "thursday");
        assert_eq!(stem("déploiements", Language::French), "déploi");
        assert_eq!(stem("v2", Language::English), "v2");
        assert_eq!(
            language_of("книги", Language::English),
            Some(Language::Russian)
        );
        assert_eq!(stem("книги", Language::Russian), "книг");
        assert_eq!(language_of("שלום", Language::English), None);
    }
}

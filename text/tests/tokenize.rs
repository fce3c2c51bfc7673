//! Integration tests for `engram_text::tokenize`.

use std::collections::HashSet;
use std::time::Instant;

use engram_text::tokenize::{
    MAX_TERM_CHARS, TokenKind, index_terms, is_stopword, query_terms, tokenize,
};
use proptest::prelude::*;

fn terms(text: &str) -> Vec<String> {
    tokenize(text).into_iter().map(|t| t.term).collect()
}

const MEMORY: &str = "用户偏好使用 Python 而非 Node.js 处理数据分析。";

#[test]
fn chinese_query_shares_bigrams_with_memory() {
    let doc: HashSet<String> = terms(MEMORY).into_iter().collect();
    let query = query_terms("数据分析偏好");
    assert_eq!(query, ["数据", "据分", "分析", "析偏", "偏好"]);
    let shared: Vec<&String> = query.iter().filter(|t| doc.contains(*t)).collect();
    assert_eq!(shared, ["数据", "据分", "分析", "偏好"]);
}

#[test]
fn node_js_query_matches_node_js_text() {
    let doc: HashSet<String> = terms(MEMORY).into_iter().collect();
    let query = query_terms("Node.js");
    assert_eq!(query, ["node.js", "node", "js"]);
    assert!(query.iter().all(|t| doc.contains(t)));
    // The part alone still matches.
    assert!(doc.contains("node"));
}

#[test]
fn memory_tokens_positions_spans_kinds() {
    let tokens = tokenize(MEMORY);
    for (i, token) in tokens.iter().enumerate() {
        assert_eq!(token.position, i);
    }
    let node = tokens.iter().find(|t| t.term == "node.js").unwrap();
    assert_eq!(node.kind, TokenKind::Compound);
    assert_eq!(&MEMORY[node.span.clone()], "Node.js");
    let next: Vec<(&str, TokenKind, &str)> = tokens[node.position + 1..node.position + 3]
        .iter()
        .map(|t| (t.term.as_str(), t.kind, &MEMORY[t.span.clone()]))
        .collect();
    assert_eq!(
        next,
        [
            ("node", TokenKind::Part, "Node"),
            ("js", TokenKind::Part, "js")
        ]
    );
    let python = tokens.iter().find(|t| t.term == "python").unwrap();
    assert_eq!(python.kind, TokenKind::Word);
    assert_eq!(&MEMORY[python.span.clone()], "Python");
}

#[test]
fn mixed_english_chinese_without_spaces() {
    assert_eq!(
        terms("我喜欢Rust和Go语言,尤其是async/await。"),
        [
            "我喜", "喜欢", "rust", "和", "go", "语言", "尤其", "其是", "async", "await"
        ]
    );
}

#[test]
fn japanese_kana_and_kanji() {
    assert_eq!(
        terms("東京でラーメンを食べた"),
        [
            "東京", "京で", "でラ", "ラー", "ーメ", "メン", "ンを", "を食", "食べ", "べた"
        ]
    );
    // ・ (katakana middle dot) separates.
    assert_eq!(
        terms("コーヒー・ブレイク"),
        ["コー", "ーヒ", "ヒー", "ブレ", "レイ", "イク"]
    );
    assert_eq!(terms("ひらがな"), ["ひら", "らが", "がな"]);
}

#[test]
fn korean_hangul() {
    assert_eq!(terms("한국어 검색"), ["한국", "국어", "검색"]);
}

#[test]
fn single_cjk_char_is_unigram() {
    let tokens = tokenize("猫 and 犬");
    let got: Vec<(&str, TokenKind)> = tokens.iter().map(|t| (t.term.as_str(), t.kind)).collect();
    assert_eq!(
        got,
        [
            ("猫", TokenKind::CjkUnigram),
            ("and", TokenKind::Word),
            ("犬", TokenKind::CjkUnigram)
        ]
    );
}

#[test]
fn full_width_letters_and_digits_fold() {
    assert_eq!(terms("ＰＹＴＨＯＮ３　ｐｙｔｈｏｎ"), ["python3", "python"]);
    assert_eq!(terms("Ｎｏｄｅ．ｊｓ"), ["node.js", "node", "js"]);
    assert_eq!(query_terms("Ｎｏｄｅ．ｊｓ"), query_terms("node.js"));
    assert_eq!(terms("２０２４年"), ["2024", "年"]);
}

#[test]
fn case_folding() {
    assert_eq!(terms("HELLO Hello hello"), ["hello", "hello", "hello"]);
    assert_eq!(terms("ÉCOLE école"), ["école", "école"]);
    assert_eq!(terms("ΟΔΥΣΣΕΥΣ οδυσσευς"), ["οδυσσευσ", "οδυσσευσ"]);
    assert_eq!(terms("STRASSE Straße"), ["strasse", "strasse"]);
    assert_eq!(terms("ПРИВЕТ мир"), ["привет", "мир"]);
    assert_eq!(terms("ﬁle"), ["file"]);
}

#[test]
fn joiners() {
    assert_eq!(terms("snake_case"), ["snake_case", "snake", "case"]);
    assert_eq!(terms("e-mail"), ["e-mail", "e", "mail"]);
    assert_eq!(terms("pi is 3.14."), ["pi", "is", "3.14", "3", "14"]);
    assert_eq!(terms("v1.2.3"), ["v1.2.3", "v1", "2", "3"]);
    assert_eq!(terms("end. next"), ["end", "next"]);
    assert_eq!(terms("a..b -c- _d_"), ["a", "b", "c", "d"]);
    assert_eq!(
        terms("user@example.com"),
        ["user", "example.com", "example", "com"]
    );
    // A joiner next to CJK does not join.
    assert_eq!(terms("Python-数据"), ["python", "数据"]);
}

#[test]
fn emoji_and_symbols_are_dropped() {
    assert_eq!(terms("🚀 launch 🎉🎉 ok 👍🏽"), ["launch", "ok"]);
    assert_eq!(terms("C++ & C# → $100 ©"), ["c", "c", "100"]);
    assert_eq!(terms("数据🚀分析"), ["数据", "分析"]);
    // Zero-width joiner / soft hyphen do not split words.
    assert_eq!(terms("inter\u{AD}national"), ["international"]);
}

#[test]
fn combining_marks_stay_in_words() {
    // NFKC composes what has a composed form ...
    assert_eq!(terms("cafe\u{301} ok"), ["café", "ok"]);
    assert_eq!(terms("cafe\u{301}"), terms("café"));
    // ... and the rest stays in the word.
    assert_eq!(terms("x\u{301}y"), ["x\u{301}y"]);
}

#[test]
fn nfkc_normalizes_compatibility_forms() {
    // Half-width katakana become full-width; compatibility forms their letters.
    assert_eq!(terms("ｶﾀｶﾅ"), terms("カタカナ"));
    assert_eq!(terms("5㎏ ① ﬀ"), ["5kg", "1", "ff"]);
    // Spans stay in the original text.
    let text = "ｶﾀｶﾅ ｐｙ";
    for token in tokenize(text) {
        assert!(text.get(token.span.clone()).is_some());
    }
    assert_eq!(&text[tokenize(text)[3].span.clone()], "ｐｙ");
}

#[test]
fn stemming_matches_inflected_forms() {
    let doc: HashSet<String> = index_terms("Deploys happen on Thursdays")
        .into_iter()
        .collect();
    assert_eq!(
        query_terms("deploy day thursday"),
        ["deploy", "day", "thursday"]
    );
    assert!(doc.contains("deploy") && doc.contains("thursday"));
    assert_eq!(
        index_terms("We adopted a beagle"),
        ["we", "adopt", "a", "beagl"]
    );
    assert_eq!(query_terms("the beagle we adopt"), ["beagl", "adopt"]);
    // A compound stays whole; its parts are stemmed; digits are not stemmed.
    assert_eq!(
        index_terms("running_jobs 2024s"),
        ["running_jobs", "run", "job", "2024s"]
    );
    // CJK terms are never stemmed.
    assert_eq!(index_terms("部署数据"), ["部署", "署数", "数据"]);
}

#[test]
fn other_languages_are_stemmed_by_their_own_stemmer() {
    // French, decided by its function words, on both sides.
    let doc = index_terms("Les déploiements ont lieu le jeudi");
    let query = query_terms("Quand est le déploiement ?");
    assert!(
        query.iter().all(|t| doc.contains(t)),
        "{query:?} in {doc:?}"
    );
    // German.
    let doc = index_terms("Die Besprechungen sind am Montag");
    let query = query_terms("Wann ist die Besprechung");
    assert_eq!(query.len(), 1);
    assert!(
        query.iter().all(|t| doc.contains(t)),
        "{query:?} in {doc:?}"
    );
    // Russian by its script.
    assert_eq!(index_terms("книги"), index_terms("книга"));
    // A script with no stemmer is kept as written.
    assert_eq!(index_terms("שלום עולם"), ["שלום", "עולם"]);
}

#[test]
fn empty_and_whitespace() {
    assert!(tokenize("").is_empty());
    assert!(tokenize("   \t\n\r\u{3000}\u{a0}").is_empty());
    assert!(tokenize("。，、！？…—").is_empty());
    assert!(query_terms("").is_empty());
    assert!(query_terms(" \n ").is_empty());
}

#[test]
fn query_terms_dedup_and_stopwords() {
    assert_eq!(
        query_terms("What is the user's preferred language for the data?"),
        ["user", "prefer", "languag", "data"]
    );
    assert_eq!(query_terms("the the THE"), ["the"]);
    assert_eq!(query_terms("not python"), ["not", "python"]);
    assert!(is_stopword("the"));
    // Pronouns are stopwords.
    assert_eq!(
        query_terms("What did my sister tell me?"),
        ["sister", "tell"]
    );
    assert_eq!(query_terms("I we you they"), ["i", "we", "you", "they"]);
    // CJK is never dropped.
    assert_eq!(query_terms("的 the"), ["的"]);
}

#[test]
fn very_long_input() {
    let unit = "用户偏好使用 Python 而非 Node.js 处理数据分析。 ";
    let text = unit.repeat(20_000); // ~1.2 MB
    let start = Instant::now();
    let tokens = tokenize(&text);
    let elapsed = start.elapsed();
    assert_eq!(tokens.len(), terms(unit).len() * 20_000);
    assert_eq!(tokens.last().unwrap().position, tokens.len() - 1);
    assert!(elapsed.as_secs() < 10, "took {elapsed:?}");

    // One enormous word is capped.
    let word = "a".repeat(1_000_000);
    let tokens = tokenize(&word);
    assert_eq!(tokens.len(), 1);
    assert_eq!(tokens[0].term.chars().count(), MAX_TERM_CHARS);
    assert_eq!(tokens[0].span, 0..word.len());

    // One enormous compound: the whole is capped, every part is kept.
    let compound = "ab.".repeat(100_000);
    let tokens = tokenize(&compound);
    assert_eq!(tokens.len(), 1 + 100_000);
    assert_eq!(tokens[0].kind, TokenKind::Compound);
    assert_eq!(tokens[0].term.chars().count(), MAX_TERM_CHARS);

    // One enormous CJK run.
    let cjk = "数".repeat(500_000);
    assert_eq!(tokenize(&cjk).len(), 499_999);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn never_panics_and_is_well_formed(text in any::<String>()) {
        let tokens = tokenize(&text);
        prop_assert_eq!(&tokens, &tokenize(&text));
        for (i, token) in tokens.iter().enumerate() {
            prop_assert_eq!(token.position, i);
            prop_assert!(!token.term.is_empty());
            prop_assert!(token.term.chars().count() <= MAX_TERM_CHARS);
            prop_assert!(token.span.start < token.span.end);
            prop_assert!(text.get(token.span.clone()).is_some());
        }
    }

    #[test]
    fn mixed_scripts_well_formed(text in "[a-zA-Z0-9._\\- 数据分析偏好用户ひらカナ한국ＡＢ１２。🚀\u{301}\u{200d}]{0,64}") {
        let tokens = tokenize(&text);
        for (i, token) in tokens.iter().enumerate() {
            prop_assert_eq!(token.position, i);
            prop_assert!(text.get(token.span.clone()).is_some());
        }
        // Query normalisation is the document normalisation, and only
        // stopwords are dropped: a query term is an index term, and a
        // non-empty text gives a non-empty query.
        let doc = index_terms(&text);
        prop_assert_eq!(doc.len(), tokens.len());
        let doc: HashSet<String> = doc.into_iter().collect();
        let query = query_terms(&text);
        for term in &query {
            prop_assert!(doc.contains(term));
        }
        prop_assert_eq!(query.is_empty(), doc.is_empty());
    }

    #[test]
    fn words_are_idempotent(text in any::<String>()) {
        for token in tokenize(&text) {
            if token.kind == TokenKind::Word || token.kind == TokenKind::CjkUnigram {
                prop_assert_eq!(terms(&token.term), vec![token.term.clone()]);
            }
        }
    }
}

/// A starter that decomposes into marks (U+0F73) after a mark: its parts
/// are ordered with that mark, so the word's term is a term of itself
/// (found by the idempotence proptest).
#[test]
fn marks_from_a_decomposed_starter_are_ordered_with_the_marks_before() {
    for token in tokenize("\u{1e026}\u{f73}") {
        assert_eq!(terms(&token.term), vec![token.term.clone()]);
    }
}

#[test]
fn unseen_scripts_and_odd_queries_are_answered() {
    // Scripts the tokenizer has no rule for: words as written, no stemmer.
    assert_eq!(query_terms("ሰላም ዓለም"), ["ሰላም", "ዓለም"]); // Ethiopic
    assert_eq!(query_terms("𒀀𒀁"), ["𒀀𒀁"]); // Cuneiform
    assert_eq!(query_terms("ᏣᎳᎩ"), query_terms("ꮳꮃꭹ")); // Cherokee, case-folded
    assert_eq!(query_terms("ᏣᎳᎩ").len(), 1);
    // Only punctuation or symbols: nothing to look up.
    assert!(query_terms("?!… ,.;:").is_empty());
    assert!(query_terms("🚀🚀").is_empty());
    // Only stopwords: kept.
    assert_eq!(
        query_terms("what is it to me"),
        ["what", "is", "it", "to", "me"]
    );
    // A megabyte of query.
    let big = "deploy thursday 数据 ".repeat(50_000);
    assert!(big.len() > 1_000_000);
    assert_eq!(query_terms(&big), ["deploy", "thursday", "数据"]);
}

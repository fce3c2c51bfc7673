//! What the corpus tests share.

/// The JSON lines of `tests/corpus/{corpus}/{split}.jsonl`, blank lines
/// left out.
pub fn corpus_lines(corpus: &str, split: &str) -> Vec<serde_json::Value> {
    json_lines(&corpus_path(corpus, split))
}

/// The JSON lines of the file at `path`, blank lines left out.
pub fn json_lines(path: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{path}: {e}: {line}")))
        .collect()
}

/// Where the split `split` of corpus `corpus` is kept.
pub fn corpus_path(corpus: &str, split: &str) -> String {
    format!(
        "{}/tests/corpus/{corpus}/{split}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    )
}

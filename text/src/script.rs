//! Which writing systems a text uses, and whether an embedding model reads
//! them: the search and the save decision both ask before trusting a
//! model's vectors of a text.

/// Whether `c` is CJK: kana, Han (with extension A and the compatibility
/// block) or Hangul.
#[must_use]
pub fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

/// Whether the embedding model `model` reads `text`: a text holding CJK
/// needs a model trained on it (a name saying Chinese or multilingual). On
/// the retrieval benchmark, hybrid recall with the English
/// all-MiniLM-L6-v2 found less than keyword recall on Chinese and mixed
/// English-Chinese questions (recall@10 0.365 against 0.811): its vectors
/// of Chinese text are noise (two unrelated Chinese sentences can have a
/// cosine of 1.0), so neither a search nor a save decision asks it about
/// such text.
#[must_use]
pub fn model_reads(model: &str, text: &str) -> bool {
    const CJK_MODEL_MARKS: [&str; 6] = ["zh", "chinese", "multilingual", "m3", "xlm", "cjk"];
    if !text.chars().any(is_cjk) {
        return true;
    }
    let model = model.to_lowercase();
    CJK_MODEL_MARKS.iter().any(|mark| model.contains(mark))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An English model is not asked about CJK text; a Chinese or
    /// multilingual one is, and any model reads other scripts.
    #[test]
    fn a_model_reads_the_scripts_it_was_trained_on() {
        let english = "sentence-transformers/all-MiniLM-L6-v2";
        assert!(model_reads(english, "when do deploys happen"));
        assert!(!model_reads(english, "部署在哪天"));
        assert!(!model_reads(english, "deploy 在周四"));
        assert!(model_reads("BAAI/bge-small-zh-v1.5", "部署在哪天"));
        assert!(model_reads(
            "paraphrase-multilingual-MiniLM-L12-v2",
            "デプロイ"
        ));
        assert!(model_reads(english, "déploiement le jeudi"));
    }
}

//! The entity corpus (`tests/corpus/entities/{dev,test}.jsonl`): texts
//! labelled with every entity (category, key) they name, people without
//! cue words and tools outside the fixed list among them. Precision and
//! recall over all (text, entity) pairs must be at least [`FLOOR`] on each
//! split; tuning looks at `dev` only.
//!
//! `cargo test -p engram-text --test entities_corpus -- --nocapture`
//! prints the figures and every miss.

use std::collections::BTreeSet;

use engram_text::entities::extract;

const FLOOR: f64 = 0.9;

fn check(split: &str) {
    let path = format!(
        "{}/tests/corpus/entities/{split}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let (mut hits, mut found, mut labelled) = (0_usize, 0_usize, 0_usize);
    let mut misses = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let sentence = v["text"].as_str().unwrap();
        let expected: BTreeSet<(String, String)> = v["entities"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e[0].as_str().unwrap().to_owned(),
                    e[1].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let got: BTreeSet<(String, String)> = extract(sentence)
            .into_iter()
            .map(|e| (e.category.to_owned(), e.key))
            .collect();
        hits += got.intersection(&expected).count();
        found += got.len();
        labelled += expected.len();
        for extra in got.difference(&expected) {
            misses.push(format!("{sentence:?}: found {extra:?}, not labelled"));
        }
        for missing in expected.difference(&got) {
            misses.push(format!("{sentence:?}: missed {missing:?}"));
        }
    }
    let precision = hits as f64 / found.max(1) as f64;
    let recall = hits as f64 / labelled.max(1) as f64;
    println!(
        "entities, {split} split: precision {precision:.3}, recall {recall:.3} ({hits} of {labelled} labelled, {found} found)"
    );
    for miss in &misses {
        println!("  {miss}");
    }
    assert!(
        precision >= FLOOR && recall >= FLOOR,
        "{split}: precision {precision:.3}, recall {recall:.3} (floor {FLOOR})"
    );
}

#[test]
fn dev_split_meets_the_floor() {
    check("dev");
}

#[test]
fn test_split_meets_the_floor() {
    check("test");
}

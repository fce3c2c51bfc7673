//! Redaction throughput: `engram_text::redact::redact` over the texts the
//! save path sees, since every saved text is redacted before anything
//! else happens.
//!
//! One group, `redact`, with ids:
//!
//! - `memory_texts/<n>`: the save benchmark's synthetic memories
//!   (`engram_benches::recall::memory_texts`), short English and Chinese
//!   sentences with almost nothing to redact: the common case.
//! - `corpus/<n>`: every text of the labelled redaction corpus
//!   (`text/tests/corpus/redaction/{dev,test}.jsonl`), about half of them
//!   holding a secret or personal data: the dense case.
//!
//! A figure is the time for all `n` texts; criterion's throughput is
//! texts/s. Under `cargo test --benches` the memory texts are 2,000.

use std::path::Path;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput};
use engram_benches::recall::{Vocabulary, memory_texts};
use engram_text::redact::redact;

const BENCH_ITEMS: usize = 20_000;
const SMOKE_ITEMS: usize = 2_000;
const SEED: u64 = 0x5a7e;

fn n_items() -> usize {
    if std::env::args().any(|arg| arg == "--bench") {
        BENCH_ITEMS
    } else {
        SMOKE_ITEMS
    }
}

/// The corpus texts without their `⟦⟧` labels.
fn corpus_texts() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../text/tests/corpus/redaction");
    let mut texts = Vec::new();
    for split in ["dev.jsonl", "test.jsonl"] {
        let path = dir.join(split);
        let data = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        for line in data.lines() {
            let record: serde_json::Value = serde_json::from_str(line).expect("a corpus record");
            let text = record["text"].as_str().expect("a text field");
            texts.push(text.replace(['⟦', '⟧'], ""));
        }
    }
    texts
}

fn redact_all(texts: &[String]) -> usize {
    texts.iter().map(|t| redact(t).findings.len()).sum()
}

fn redact_group(c: &mut Criterion) {
    let memories = memory_texts(&Vocabulary::new(), SEED, n_items());
    let corpus = corpus_texts();
    let mut group = c.benchmark_group("redact");
    group.measurement_time(Duration::from_secs(10));
    for (name, texts) in [("memory_texts", &memories), ("corpus", &corpus)] {
        group.throughput(Throughput::Elements(texts.len() as u64));
        group.bench_with_input(BenchmarkId::new(name, texts.len()), texts, |b, texts| {
            b.iter(|| redact_all(texts));
        });
    }
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    redact_group(&mut criterion);
    criterion.final_summary();
}

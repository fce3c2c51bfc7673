//! Retrieval quality on the conversational corpus: engram keyword, engram
//! hybrid and the SQLite FTS5 peer (`porter unicode61` with a stoplist,
//! trigram for CJK) over the same texts, in one run
//! (`engram_benches::retrieval`).
//!
//! ```text
//! cargo bench -p engram-benches --bench retrieval
//! ENGRAM_BENCH_MINILM_DIR=~/.cache/engram-ci/minilm cargo bench -p engram-benches --bench retrieval
//! ```
//!
//! Without `ENGRAM_BENCH_MINILM_DIR` (an all-MiniLM-L6-v2 folder, `bash
//! embed/fetch-minilm.sh DIR`) the hybrid rows are skipped with a note.
//! `ENGRAM_BENCH_RETRIEVAL_SPLITS` picks the splits (`dev,test` by default):
//! tune on dev, report test. `ENGRAM_BENCH_RETRIEVAL_SWEEP=1` adds the
//! tuning grids (BM25, fusion, trust weight), `=trust` the trust weight
//! alone. With a model, each split also reports what one query's embedding
//! costs (the owner pays it per hybrid recall; a client never loads the
//! model).

use std::path::PathBuf;
use std::sync::Arc;

use engram_benches::retrieval::{
    QuestionVectors, Stores, build_split, evaluate, load_split, report, sweep_bm25, sweep_fusion,
    sweep_trust,
};
use engram_embed::{BertEmbedder, Embedder};
use engram_projections::text_index::Bm25;
use engram_queries::Fusion;

const MINILM_ENV: &str = "ENGRAM_BENCH_MINILM_DIR";
const SPLITS_ENV: &str = "ENGRAM_BENCH_RETRIEVAL_SPLITS";
const SWEEP_ENV: &str = "ENGRAM_BENCH_RETRIEVAL_SWEEP";

/// The tuning grids, printed for `split` (tune on dev only).
fn sweep(
    split: &str,
    stores: &[Stores],
    vectors: Option<&[QuestionVectors]>,
) -> anyhow::Result<()> {
    let mut grid = Vec::new();
    for k1 in [0.6f32, 0.9, 1.2, 1.5, 2.0] {
        for b in [0.3f32, 0.5, 0.75, 0.9] {
            grid.push(Bm25 { k1, b });
        }
    }
    for (bm25, s) in sweep_bm25(stores, &grid) {
        println!(
            "sweep {split} bm25 k1 {:.1} b {:.2}: R@1 {:.3} R@5 {:.3} R@10 {:.3} MRR {:.3} nDCG {:.3}",
            bm25.k1, bm25.b, s.recall[0], s.recall[1], s.recall[2], s.mrr, s.ndcg
        );
    }
    let Some(vectors) = vectors else {
        return Ok(());
    };
    let mut grid = Vec::new();
    for keyword_weight in [0.3, 0.4, 0.5, 0.6, 0.7] {
        for cosine_floor in [0.0, 0.1, 0.2, 0.3] {
            grid.push((
                Fusion {
                    keyword_weight,
                    cosine_floor,
                    ..Fusion::default()
                },
                0.0,
            ));
        }
    }
    for floor in [0.05, 0.1, 0.15, 0.2, 0.25, 0.3] {
        grid.push((Fusion::default(), floor));
    }
    for (fusion, floor, s, hits) in sweep_fusion(stores, vectors, &grid)? {
        println!(
            "sweep {split} fusion w {:.1} cos0 {:.1} floor {:.2}: R@1 {:.3} R@5 {:.3} R@10 {:.3} MRR {:.3} nDCG {:.3} hits {:.1}",
            fusion.keyword_weight,
            fusion.cosine_floor,
            floor,
            s.recall[0],
            s.recall[1],
            s.recall[2],
            s.mrr,
            s.ndcg,
            hits
        );
    }
    Ok(())
}

/// Trust (freshness included) in the ranking: each weight's scores per
/// question type (tune on dev only).
fn sweep_trust_weight(
    split: &str,
    stores: &[Stores],
    vectors: Option<&[QuestionVectors]>,
) -> anyhow::Result<()> {
    let weights = [0.0, 0.1, 0.2, 0.3, 0.5, 0.8, 1.0];
    for (weight, system, kind, s) in sweep_trust(stores, vectors, &weights)? {
        println!(
            "sweep {split} trust w {weight:.1} {:<8} {kind:<11}: R@1 {:.3} R@5 {:.3} R@10 {:.3} MRR {:.3} nDCG {:.3}",
            system.name(),
            s.recall[0],
            s.recall[1],
            s.recall[2],
            s.mrr,
            s.ndcg
        );
    }
    Ok(())
}

/// What one query's embedding costs: each question of `split` embedded
/// alone (a batch of one, as recall does), p50 and p99.
fn embedding_cost(split: &str, embedder: &dyn Embedder) -> anyhow::Result<()> {
    let questions: Vec<String> = load_split(split)?
        .into_iter()
        .flat_map(|c| c.questions.into_iter().map(|q| q.text))
        .collect();
    // Warm the model's buffers first.
    embedder.embed(&["warm up"])?;
    let mut times = Vec::with_capacity(questions.len());
    for q in &questions {
        let started = std::time::Instant::now();
        embedder.embed(&[q.as_str()])?;
        times.push(started.elapsed());
    }
    times.sort();
    let at = |p: f64| {
        let i = ((times.len() as f64 * p).ceil() as usize).clamp(1, times.len()) - 1;
        times[i].as_secs_f64() * 1e3
    };
    println!(
        "query embedding ({}, {} questions of {split}, one at a time): p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        embedder.model_id(),
        times.len(),
        at(0.5),
        at(0.99),
        at(1.0)
    );
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let embedder: Option<Arc<dyn Embedder>> =
        match std::env::var_os(MINILM_ENV).filter(|d| !d.is_empty()) {
            Some(dir) => {
                let dir = PathBuf::from(dir);
                Some(Arc::new(BertEmbedder::load(&dir).map_err(|e| {
                    anyhow::anyhow!("loading the model in {}: {e}", dir.display())
                })?))
            }
            None => {
                eprintln!(
                    "retrieval: hybrid skipped: set {MINILM_ENV} to an all-MiniLM-L6-v2 folder \
                     (bash embed/fetch-minilm.sh /tmp/models/minilm)"
                );
                None
            }
        };
    let splits = std::env::var(SPLITS_ENV).unwrap_or_else(|_| "dev,test".to_owned());
    for split in splits.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (stores, vectors) = build_split(split, embedder.as_ref())?;
        let tally = evaluate(&stores, vectors.as_deref())?;
        println!("{}", report(split, &tally));
        if std::env::var(SWEEP_ENV).is_ok_and(|v| v == "1") {
            sweep(split, &stores, vectors.as_deref())?;
        }
        if std::env::var(SWEEP_ENV).is_ok_and(|v| v == "1" || v == "trust") {
            sweep_trust_weight(split, &stores, vectors.as_deref())?;
        }
        if let Some(embedder) = &embedder {
            embedding_cost(split, embedder.as_ref())?;
        }
    }
    Ok(())
}

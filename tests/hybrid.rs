//! Hybrid recall: vectors recorded at write time, the vector index, rank
//! fusion, and the keyword-only fallback. A tiny random BERT (written by
//! the test) exercises the plumbing; the published all-MiniLM-L6-v2 weights
//! (`ENGRAM_TEST_MINILM_DIR`, fetched by `embed/fetch-minilm.sh`; required
//! when `ENGRAM_TEST_REQUIRE_MINILM=1`, as in CI) check that meaning is found
//! where words are not.

use std::path::Path;
use std::sync::Arc;

use engram::engine::Engram;
use engram::log::Event;
use engram::{RecallMode, RecallQuery, Remember};
use engram_embed::{BertEmbedder, Embedder};

use crate::support::{TEST_KEY_HEX, open_keyed, open_rebuilt, skip_unless_required};

fn open(dir: &Path, model: Option<Arc<dyn Embedder>>) -> Engram {
    let engram = open_keyed(dir);
    match model {
        Some(model) => engram.with_embedder(model),
        None => engram,
    }
}

fn tiny(parent: &Path, name: &str) -> Arc<dyn Embedder> {
    let dir = engram_embed::testing::tiny_model(parent, name);
    Arc::new(BertEmbedder::load(&dir).unwrap())
}

fn views(engram: &Engram) -> (String, String, String) {
    let core = engram.core();
    (
        format!("{:?}", core.vectors.read().state),
        format!("{:?}", core.text_index.read().state),
        format!("{:?}", core.memory_table.read().state),
    )
}

#[test]
fn vectors_are_recorded_at_write_and_replay_needs_no_model() {
    let models = tempfile::tempdir().unwrap();
    let model = tiny(models.path(), "tiny");
    let dir = tempfile::tempdir().unwrap();
    let engram = open(dir.path(), Some(Arc::clone(&model)));
    let id = engram
        .remember(&Remember::text("the man is eating a piece of bread"))
        .unwrap()
        .id
        .unwrap();
    engram
        .remember(&Remember::text("a woman is playing the guitar on stage"))
        .unwrap();
    let logged = engram.log().read(id..=id).unwrap().remove(0).event;
    let Event::Remembered(r) = logged else {
        panic!("memory {id} is not a Remembered event");
    };
    let embedding = r.embedding.expect("a vector was recorded");
    assert_eq!(embedding.model, model.model_id());
    assert_eq!(embedding.values.len(), model.dimension());
    assert_eq!(engram.recall_mode(), RecallMode::Hybrid);
    let hits = engram.recall(&RecallQuery::new("bread")).unwrap();
    assert_eq!(hits.first().map(|h| h.id), Some(id));
    assert_eq!(engram.last_recall_mode(), RecallMode::Hybrid);
    let with_model = views(&engram);
    engram.close().unwrap();

    // Rebuilt without any model folder: identical views (the vectors come
    // from the events), and recall falls back to keywords.
    let engram = open_rebuilt(dir.path());
    assert_eq!(views(&engram), with_model);
    assert_eq!(engram.recall_mode(), RecallMode::Keyword);
    let hits = engram.recall(&RecallQuery::new("bread")).unwrap();
    assert_eq!(hits.first().map(|h| h.id), Some(id));
    assert_eq!(engram.last_recall_mode(), RecallMode::Keyword);
    // A recall's evidence is queued for the next group commit; a sync
    // waits for it.
    engram.log().sync().unwrap();
    let modes: Vec<String> = engram
        .log()
        .replay(1)
        .filter_map(|e| match e.unwrap().event {
            Event::Recalled(r) => Some(r.mode),
            _ => None,
        })
        .collect();
    assert_eq!(modes, ["hybrid", "keyword"]);
    engram.close().unwrap();
}

#[test]
fn a_batch_save_embeds_in_one_pass_with_the_same_vectors() {
    let models = tempfile::tempdir().unwrap();
    let model = tiny(models.path(), "tiny");
    let texts = [
        "the man is eating a piece of bread",
        "a woman is playing the guitar on stage",
        "the cat is sleeping on the sofa today",
    ];
    let vectors = |batch: bool| {
        let dir = tempfile::tempdir().unwrap();
        let engram = open(dir.path(), Some(Arc::clone(&model)));
        let ids: Vec<u64> = if batch {
            let items: Vec<Remember> = texts.iter().map(|t| Remember::text(*t)).collect();
            engram
                .remember_batch(&items)
                .unwrap()
                .into_iter()
                .map(|r| r.unwrap().id.unwrap())
                .collect()
        } else {
            texts
                .iter()
                .map(|t| engram.remember(&Remember::text(*t)).unwrap().id.unwrap())
                .collect()
        };
        let out: Vec<Vec<i8>> = ids
            .iter()
            .map(
                |&id| match engram.log().read(id..=id).unwrap().remove(0).event {
                    Event::Remembered(r) => r.embedding.unwrap().values,
                    other => panic!("{other:?}"),
                },
            )
            .collect();
        engram.close().unwrap();
        out
    };
    // Padding in a batch changes the float summation order, so a component
    // may round to the neighbouring int8 step; nothing more.
    let (batched, single) = (vectors(true), vectors(false));
    assert_eq!(batched.len(), single.len());
    for (a, b) in batched.iter().zip(&single) {
        assert_eq!(a.len(), b.len());
        assert!(
            a.iter()
                .zip(b)
                .all(|(x, y)| (i16::from(*x) - i16::from(*y)).abs() <= 1),
            "{a:?} vs {b:?}"
        );
    }
}

#[test]
fn another_model_falls_back_to_keywords_until_reembed() {
    let models = tempfile::tempdir().unwrap();
    let first = tiny(models.path(), "first");
    let dir = tempfile::tempdir().unwrap();
    // Written with no model at all, then with the first model.
    let engram = open(dir.path(), None);
    let old = engram
        .remember(&Remember::text("the guitar lesson is on tuesday"))
        .unwrap()
        .id
        .unwrap();
    engram.close().unwrap();
    let engram = open(dir.path(), Some(Arc::clone(&first)));
    assert_eq!(
        engram.recall_mode(),
        RecallMode::Keyword,
        "no vector of this model yet"
    );
    assert_eq!(engram.reembed(&|_, _| {}).unwrap(), 1);
    assert_eq!(engram.reembed(&|_, _| {}).unwrap(), 0, "nothing left to do");
    assert!(
        engram
            .core()
            .vectors
            .read()
            .state
            .has(first.model_id(), old)
    );
    assert_eq!(engram.recall_mode(), RecallMode::Hybrid);
    engram.close().unwrap();

    // A model of another dimension (and so another id): keyword-only, and
    // recall still works.
    let other_dir = models.path().join("wider");
    std::fs::create_dir_all(&other_dir).unwrap();
    std::fs::write(
        other_dir.join("config.json"),
        engram_embed::testing::config_json(48),
    )
    .unwrap();
    engram_embed::testing::write_tokenizer(&other_dir.join("tokenizer.json"));
    engram_embed::testing::write_weights(&other_dir.join("model.safetensors"), 48, 7);
    let wider: Arc<dyn Embedder> = Arc::new(BertEmbedder::load(&other_dir).unwrap());
    assert_ne!(wider.dimension(), first.dimension());
    let engram = open(dir.path(), Some(wider));
    assert_eq!(engram.recall_mode(), RecallMode::Keyword);
    let hits = engram.recall(&RecallQuery::new("guitar lesson")).unwrap();
    assert_eq!(hits.first().map(|h| h.id), Some(old));
    assert_eq!(engram.last_recall_mode(), RecallMode::Keyword);
    engram.close().unwrap();
}

#[test]
fn the_cli_reports_the_mode_and_runs_without_a_model() {
    let models = tempfile::tempdir().unwrap();
    let model_dir = engram_embed::testing::tiny_model(models.path(), "tiny");
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str], model: Option<&Path>| {
        // In the command's own process: each run loads the model its
        // environment names (an owner keeps the one it started with).
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_engram"));
        command
            .arg("--store")
            .arg(dir.path())
            .arg("--in-process")
            .args(args)
            .env("ENGRAM_HMAC_KEY", TEST_KEY_HEX)
            .env("ENGRAM_HOME", models.path().join("home"));
        match model {
            Some(path) => command.env("ENGRAM_MODEL_DIR", path),
            None => command.env("ENGRAM_MODEL_DIR", models.path().join("no-model-here")),
        };
        command.output().unwrap()
    };
    let out = run(&["remember", "the man is eating bread"], Some(&model_dir));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&["recall", "bread", "--json"], Some(&model_dir));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["mode"], "hybrid");
    let out = run(&["stats", "--json"], Some(&model_dir));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["mode"], "hybrid");
    // No model folder: keyword mode, one warning, recall still answers.
    let out = run(&["recall", "bread", "--json"], None);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["mode"], "keyword");
    assert_eq!(json["hits"].as_array().unwrap().len(), 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("keyword-only").count(), 1, "{stderr}");
    // A damaged model folder: the same.
    std::fs::write(model_dir.join("model.safetensors"), b"not weights").unwrap();
    let out = run(&["recall", "bread", "--json"], Some(&model_dir));
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["mode"], "keyword");
}

/// The published weights, when present (required in CI).
fn minilm() -> Option<Arc<dyn Embedder>> {
    match std::env::var_os("ENGRAM_TEST_MINILM_DIR").filter(|dir| !dir.is_empty()) {
        Some(dir) => Some(Arc::new(BertEmbedder::load(Path::new(&dir)).unwrap())),
        None => {
            skip_unless_required(
                "ENGRAM_TEST_REQUIRE_MINILM",
                "ENGRAM_TEST_MINILM_DIR is not set: run embed/fetch-minilm.sh DIR and point it at DIR",
            );
            None
        }
    }
}

#[test]
fn hybrid_recall_finds_what_keywords_cannot() {
    let Some(model) = minilm() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let engram = open(dir.path(), Some(model));
    let noodles = engram
        .remember(&Remember::text("I love noodles, especially ramen."))
        .unwrap()
        .id
        .unwrap();
    for text in [
        "The deploy pipeline runs every Friday afternoon.",
        "The staging database lives on host db2.",
        "Kofi owns the billing service.",
        "The office wifi password rotates monthly.",
    ] {
        engram.remember(&Remember::text(text)).unwrap();
    }
    let query = RecallQuery::new("what does the user like to eat");
    let hits = engram.recall(&query).unwrap();
    assert_eq!(engram.last_recall_mode(), RecallMode::Hybrid);
    assert_eq!(hits.first().map(|h| h.id), Some(noodles), "hybrid finds it");
    engram.close().unwrap();
    // The same store without the model: keywords share nothing with it.
    let engram = open(dir.path(), None);
    let hits = engram.recall(&query).unwrap();
    assert!(
        !hits.iter().any(|h| h.id == noodles),
        "keyword recall cannot"
    );
    engram.close().unwrap();
}

/// An English model's vectors of Chinese text are noise: two different
/// Chinese facts can have a cosine near 1.0. A save decides such text by
/// its words alone, so the deploy review is not taken for a restatement of
/// the deploy day.
#[test]
fn an_english_model_does_not_decide_chinese_saves() {
    let Some(model) = minilm() else {
        return;
    };
    let first = "部署在周五下午进行。";
    let second = "部署流程在周五下午进行审核。";
    let vectors = model.embed(&[first, second]).unwrap();
    let dot: f32 = vectors[0].iter().zip(&vectors[1]).map(|(a, b)| a * b).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let cosine = dot / (norm(&vectors[0]) * norm(&vectors[1]));
    assert!(
        cosine > 0.92,
        "the model's noise this test is about: {cosine}"
    );
    let dir = tempfile::tempdir().unwrap();
    let engram = open(dir.path(), Some(model));
    engram.remember(&Remember::text(first)).unwrap();
    let receipt = engram.remember(&Remember::text(second)).unwrap();
    assert_eq!(receipt.outcome, engram::Outcome::New, "{receipt:?}");
}

//! Tests of engram-embed on a tiny random BERT that the tests write themselves,
//! plus one test on the published all-MiniLM-L6-v2 weights when
//! `ENGRAM_TEST_MINILM_DIR` names a folder holding them (see `fetch-minilm.sh`).

use std::path::{Path, PathBuf};

use engram_embed::testing::{
    HIDDEN, MAX_POSITIONS, WORDS, config_json, tiny_model as write_tiny_model, write_pooling,
    write_weights,
};
use engram_embed::{
    BertEmbedder, EmbedError, Embedder, MODEL_DIR_ENV, Pooling, Quantized, default_model_dir,
    dequantize, quantize,
};
use proptest::prelude::*;

/// Writes a tiny model into `<tmp>/<name>` and returns the folder.
fn tiny_model(tmp: &tempfile::TempDir, name: &str) -> PathBuf {
    write_tiny_model(tmp.path(), name)
}

fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt()
}

fn cos(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>() / (norm(a) * norm(b))
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

fn embed_one(e: &BertEmbedder, text: &str) -> Vec<f32> {
    e.embed(&[text]).unwrap().pop().unwrap()
}

#[test]
fn loads_and_reads_dimension_and_identity() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tiny_model(&tmp, "tiny-minilm");
    let e = BertEmbedder::load(&dir).unwrap();
    assert_eq!(e.dimension(), HIDDEN);
    assert_eq!(e.max_tokens(), MAX_POSITIONS);
    assert_eq!(e.pooling(), Pooling::Mean);
    let id = e.model_id();
    let (name, hash) = id.split_once('@').unwrap();
    assert_eq!(name, "tiny-minilm");
    assert_eq!(hash.len(), 8);
    assert!(
        hash.chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    );
    // Another config gives another id.
    let other = tiny_model(&tmp, "tiny-minilm-2");
    let mut config: serde_json::Value = serde_json::from_str(&config_json(HIDDEN)).unwrap();
    config["layer_norm_eps"] = serde_json::json!(1e-7);
    std::fs::write(other.join("config.json"), config.to_string()).unwrap();
    let e2 = BertEmbedder::load(&other).unwrap();
    assert_ne!(e2.model_id().split_once('@').unwrap().1, hash);
    // Usable as a trait object shared between threads.
    let shared: std::sync::Arc<dyn Embedder> = std::sync::Arc::new(e);
    let s2 = shared.clone();
    let v = std::thread::spawn(move || s2.embed(&["a cat"]).unwrap())
        .join()
        .unwrap();
    assert_eq!(v.len(), 1);
    assert_eq!(shared.embed(&[]).unwrap().len(), 0);
}

#[test]
fn vectors_are_unit_length_and_deterministic() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tiny_model(&tmp, "tiny");
    let e = BertEmbedder::load(&dir).unwrap();
    let texts = [
        "the man is eating food.",
        "a cat",
        "",
        "我们爱猫",
        "unknown words zzz qqq",
        "The DOG runs FAST!",
    ];
    let vs = e.embed(&texts).unwrap();
    assert_eq!(vs.len(), texts.len());
    for v in &vs {
        assert_eq!(v.len(), HIDDEN);
        assert!(v.iter().all(|x| x.is_finite()));
        assert!((norm(v) - 1.0).abs() < 1e-5, "norm {}", norm(v));
    }
    // Same text, same vector: within a call, across calls, across loads.
    let again = e.embed(&["a cat", "a cat"]).unwrap();
    assert_eq!(again[0], again[1]);
    assert!(max_diff(&again[0], &vs[1]) < 1e-6);
    let reloaded = BertEmbedder::load(&dir).unwrap();
    assert_eq!(reloaded.model_id(), e.model_id());
    assert!(max_diff(&embed_one(&reloaded, "a cat"), &vs[1]) < 1e-6);
    // Different texts differ.
    assert!(cos(&vs[0], &vs[1]) < 0.9999);
}

#[test]
fn batch_equals_one_by_one() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, pooling) in [("tiny", Pooling::Mean), ("tiny-bge", Pooling::Cls)] {
        let dir = tiny_model(&tmp, name);
        let e = BertEmbedder::load(&dir).unwrap();
        assert_eq!(e.pooling(), pooling);
        // Mixed lengths, and more than one chunk of 32.
        let owned: Vec<String> = (0..40)
            .map(|i| {
                let words = ["the", "man", "is", "eating", "bread", "cat", "dog", "我"];
                (0..=(i % 13))
                    .map(|j| words[(i + j) % words.len()])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
        let batch = e.embed(&texts).unwrap();
        assert_eq!(batch.len(), texts.len());
        for (text, v) in texts.iter().zip(&batch) {
            let single = embed_one(&e, text);
            let d = max_diff(v, &single);
            assert!(d < 1e-5, "{pooling}: {text:?} differs by {d} in a batch");
        }
    }
}

#[test]
fn pooling_is_read_from_the_folder() {
    let tmp = tempfile::tempdir().unwrap();
    // No 1_Pooling: by name.
    let mean_dir = tiny_model(&tmp, "tiny-model");
    let bge_dir = tiny_model(&tmp, "my-BGE-small");
    let mean = BertEmbedder::load(&mean_dir).unwrap();
    let cls = BertEmbedder::load(&bge_dir).unwrap();
    assert_eq!(mean.pooling(), Pooling::Mean);
    assert_eq!(cls.pooling(), Pooling::Cls);
    let text = "the man is eating a piece of bread.";
    let vm = embed_one(&mean, text);
    let vc = embed_one(&cls, text);
    assert!(
        max_diff(&vm, &vc) > 1e-3,
        "CLS and mean pooling gave the same vector"
    );

    // 1_Pooling/config.json wins over the name, both ways.
    write_pooling(&mean_dir, true, false);
    let switched = BertEmbedder::load(&mean_dir).unwrap();
    assert_eq!(switched.pooling(), Pooling::Cls);
    assert!(max_diff(&embed_one(&switched, text), &vc) < 1e-6);
    write_pooling(&bge_dir, false, true);
    let switched = BertEmbedder::load(&bge_dir).unwrap();
    assert_eq!(switched.pooling(), Pooling::Mean);
    assert!(max_diff(&embed_one(&switched, text), &vm) < 1e-6);

    // Unsupported or contradictory pooling files are refused.
    for (cls, mean) in [(true, true), (false, false)] {
        write_pooling(&mean_dir, cls, mean);
        let err = BertEmbedder::load(&mean_dir).unwrap_err();
        assert!(
            matches!(err, EmbedError::BadConfig { ref path, .. } if path.ends_with("1_Pooling/config.json")),
            "{err}"
        );
    }
}

#[test]
fn long_text_is_truncated_not_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tiny_model(&tmp, "tiny");
    let e = BertEmbedder::load(&dir).unwrap();
    // Every word is one token: [CLS] + 62 words + [SEP] fill the 64 positions.
    let words: Vec<&str> = (0..500).map(|i| WORDS[5 + i % 30]).collect();
    let long = words.join(" ");
    let fits = words[..MAX_POSITIONS - 2].join(" ");
    let shorter = words[..MAX_POSITIONS - 3].join(" ");
    let v = e.embed(&[long.as_str(), "a cat"]).unwrap();
    assert!((norm(&v[0]) - 1.0).abs() < 1e-5);
    assert!(max_diff(&v[0], &embed_one(&e, &fits)) < 1e-5);
    assert!(max_diff(&v[0], &embed_one(&e, &shorter)) > 1e-6);
    // The short text in the same batch is unaffected by the long one.
    assert!(max_diff(&v[1], &embed_one(&e, "a cat")) < 1e-5);
}

#[test]
fn sentence_bert_max_seq_length_lowers_the_window() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tiny_model(&tmp, "tiny");
    std::fs::write(
        dir.join("sentence_bert_config.json"),
        r#"{"max_seq_length": 16, "do_lower_case": false}"#,
    )
    .unwrap();
    let e = BertEmbedder::load(&dir).unwrap();
    assert_eq!(e.max_tokens(), 16);
    let words: Vec<&str> = (0..40).map(|i| WORDS[5 + i % 30]).collect();
    let a = embed_one(&e, &words.join(" "));
    let b = embed_one(&e, &words[..14].join(" "));
    assert!(max_diff(&a, &b) < 1e-5);
}

#[test]
fn missing_files_are_named() {
    for file in ["config.json", "tokenizer.json", "model.safetensors"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tiny_model(&tmp, "tiny");
        std::fs::remove_file(dir.join(file)).unwrap();
        let err = BertEmbedder::load(&dir).unwrap_err();
        match &err {
            EmbedError::MissingFile { path } => assert_eq!(path, &dir.join(file)),
            other => panic!("{file}: expected MissingFile, got {other:?}"),
        }
        let message = err.to_string();
        assert!(message.contains(file), "{message}");
        assert!(message.contains(MODEL_DIR_ENV), "{message}");
    }
    let tmp = tempfile::tempdir().unwrap();
    let err = BertEmbedder::load(&tmp.path().join("nowhere")).unwrap_err();
    assert!(matches!(err, EmbedError::MissingFile { .. }), "{err:?}");
}

#[test]
fn config_disagreeing_with_weights_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tiny_model(&tmp, "tiny");
    std::fs::write(dir.join("config.json"), config_json(48)).unwrap();
    let err = BertEmbedder::load(&dir).unwrap_err();
    let message = err.to_string();
    assert!(
        matches!(&err, EmbedError::WeightsMismatch { path, .. } if path.ends_with("model.safetensors")),
        "{err:?}"
    );
    assert!(message.contains("hidden_size 48"), "{message}");
    assert!(message.contains("[60, 32]"), "{message}");

    // Weights written for another hidden size, config intact.
    let dir = tiny_model(&tmp, "tiny2");
    write_weights(&dir.join("model.safetensors"), 16, 7);
    let err = BertEmbedder::load(&dir).unwrap_err();
    assert!(matches!(err, EmbedError::WeightsMismatch { .. }), "{err:?}");

    // A truncated weights file.
    let dir = tiny_model(&tmp, "tiny3");
    let bytes = std::fs::read(dir.join("model.safetensors")).unwrap();
    std::fs::write(dir.join("model.safetensors"), &bytes[..bytes.len() / 2]).unwrap();
    let err = BertEmbedder::load(&dir).unwrap_err();
    assert!(matches!(err, EmbedError::WeightsMismatch { .. }), "{err:?}");
}

#[test]
fn bad_configs_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tiny_model(&tmp, "tiny");
    let cases: [(&str, serde_json::Value); 5] = [
        ("not json", serde_json::json!("{")),
        (
            "model_type",
            serde_json::json!({"model_type": "xlm-roberta"}),
        ),
        ("hidden_act", serde_json::json!({"hidden_act": "swish"})),
        (
            "num_attention_heads",
            serde_json::json!({"num_attention_heads": 3}),
        ),
        ("vocab_size", serde_json::json!({"vocab_size": 10})),
    ];
    for (what, change) in cases {
        let text = if what == "not json" {
            "{".to_owned()
        } else {
            let mut config: serde_json::Value = serde_json::from_str(&config_json(HIDDEN)).unwrap();
            for (k, v) in change.as_object().unwrap() {
                config[k] = v.clone();
            }
            config.to_string()
        };
        std::fs::write(dir.join("config.json"), text).unwrap();
        let err = BertEmbedder::load(&dir).unwrap_err();
        assert!(
            matches!(&err, EmbedError::BadConfig { path, .. } if path.ends_with("config.json")),
            "{what}: {err:?}"
        );
    }
    std::fs::write(dir.join("config.json"), config_json(HIDDEN)).unwrap();
    std::fs::write(dir.join("tokenizer.json"), "{}").unwrap();
    let err = BertEmbedder::load(&dir).unwrap_err();
    assert!(matches!(err, EmbedError::Tokenizer { .. }), "{err:?}");
}

#[test]
fn default_model_dir_uses_home_unless_env_set() {
    let home = Path::new("/home/someone/.engram");
    let dir = default_model_dir(home);
    match std::env::var_os(MODEL_DIR_ENV) {
        Some(v) if !v.is_empty() => assert_eq!(dir, PathBuf::from(v)),
        _ => assert_eq!(dir, home.join("models").join("bge-small-zh-v1.5")),
    }
}

#[test]
fn quantize_round_trip() {
    let v = [0.5f32, -0.25, 0.0, 1e-4, -0.5, 0.3333];
    let q = quantize(&v);
    assert!((q.scale - 0.5 / 127.0).abs() < 1e-9);
    assert_eq!(q.values[0], 127);
    assert_eq!(q.values[4], -127);
    assert_eq!(q.values[2], 0);
    let back = dequantize(&q);
    for (a, b) in v.iter().zip(&back) {
        assert!((a - b).abs() <= q.scale / 2.0 + 1e-7);
    }
    let zero = quantize(&[0.0; 4]);
    assert_eq!(
        zero,
        Quantized {
            scale: 1.0,
            values: vec![0; 4]
        }
    );
    assert_eq!(
        quantize(&[]),
        Quantized {
            scale: 1.0,
            values: vec![]
        }
    );
    // A real embedding survives with a cosine near 1.
    let tmp = tempfile::tempdir().unwrap();
    let e = BertEmbedder::load(&tiny_model(&tmp, "tiny")).unwrap();
    let v = embed_one(&e, "the man is eating food.");
    assert!(cos(&v, &dequantize(&quantize(&v))) > 0.999);
}

proptest! {
    #[test]
    fn quantize_error_is_at_most_half_a_step(v in prop::collection::vec(-1000.0f32..1000.0, 0..64)) {
        let q = quantize(&v);
        prop_assert_eq!(q.values.len(), v.len());
        prop_assert!(q.scale > 0.0);
        let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        if max == 0.0 {
            prop_assert_eq!(q.scale, 1.0);
        } else {
            prop_assert!((q.scale - max / 127.0).abs() <= max * 1e-6);
        }
        prop_assert!(q.values.iter().all(|&x| (-127..=127).contains(&x)));
        let back = dequantize(&q);
        for (a, b) in v.iter().zip(&back) {
            prop_assert!((a - b).abs() <= q.scale / 2.0 + max * 1e-6, "{} vs {}", a, b);
        }
    }
}

/// The published all-MiniLM-L6-v2 similarity; needs the real weights
/// (`embed/fetch-minilm.sh DIR`, then `ENGRAM_TEST_MINILM_DIR=DIR`).
#[test]
fn minilm_published_similarity() {
    let Some(dir) = std::env::var_os("ENGRAM_TEST_MINILM_DIR").filter(|d| !d.is_empty()) else {
        // CI fetches the weights and requires them: a skip there is a failure.
        assert!(
            std::env::var_os("ENGRAM_TEST_REQUIRE_MINILM").is_none_or(|v| v != "1"),
            "ENGRAM_TEST_REQUIRE_MINILM=1 but ENGRAM_TEST_MINILM_DIR is not set"
        );
        println!(
            "skipped: ENGRAM_TEST_MINILM_DIR unset (run embed/fetch-minilm.sh DIR and set it)"
        );
        eprintln!("skipped: ENGRAM_TEST_MINILM_DIR unset");
        return;
    };
    let e = BertEmbedder::load(Path::new(&dir)).unwrap();
    assert_eq!(e.dimension(), 384);
    assert_eq!(e.pooling(), Pooling::Mean);
    let v = e
        .embed(&["A man is eating food.", "A man is eating a piece of bread."])
        .unwrap();
    let c = cos(&v[0], &v[1]);
    println!("all-MiniLM-L6-v2 cosine: {c:.6} (model {})", e.model_id());
    assert!((c - 0.7553).abs() < 0.001, "cosine {c}, expected 0.7553");
    let unrelated = embed_one(&e, "The new movie is awesome.");
    assert!(cos(&v[0], &unrelated) < 0.3);
}

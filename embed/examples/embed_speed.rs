//! Times a model folder on batches of 32 short sentences:
//! `cargo run --release -p engram-embed --example embed_speed -- DIR`.

use std::path::PathBuf;
use std::time::Instant;

use engram_embed::{BertEmbedder, Embedder};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .ok_or("usage: embed_speed MODEL_DIR")?;
    let start = Instant::now();
    let embedder = BertEmbedder::load(&dir)?;
    println!(
        "loaded {} (dimension {}, {} pooling, {} tokens) in {:?}",
        embedder.model_id(),
        embedder.dimension(),
        embedder.pooling(),
        embedder.max_tokens(),
        start.elapsed()
    );
    let subjects = [
        "A man",
        "The woman",
        "A child",
        "Our agent",
        "The old dog",
        "A student",
        "My neighbour",
        "The team",
    ];
    let verbs = [
        "is eating food",
        "reads a long book",
        "remembers the meeting",
        "plays the guitar",
    ];
    let sentences: Vec<String> = (0..32)
        .map(|i| {
            format!(
                "{} {}.",
                subjects[i % subjects.len()],
                verbs[(i / subjects.len()) % verbs.len()]
            )
        })
        .collect();
    let texts: Vec<&str> = sentences.iter().map(String::as_str).collect();
    embedder.embed(&texts)?; // warm-up
    let rounds = 10;
    let start = Instant::now();
    for _ in 0..rounds {
        let vectors = embedder.embed(&texts)?;
        assert_eq!(vectors.len(), texts.len());
    }
    let per_text = start.elapsed().as_secs_f64() * 1000.0 / f64::from(rounds * 32);
    println!("{per_text:.2} ms per embedding (batches of 32 short sentences, {rounds} rounds)");
    let start = Instant::now();
    for text in &texts {
        embedder.embed(&[text])?;
    }
    let single = start.elapsed().as_secs_f64() * 1000.0 / 32.0;
    println!("{single:.2} ms per embedding one at a time");
    Ok(())
}

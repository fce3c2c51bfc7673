//! A tiny random-initialised BERT for tests (enabled by the `testing`
//! feature): a config, a WordPiece tokenizer over a few dozen words and
//! deterministic pseudo-random weights, written to a folder in
//! milliseconds. Its vectors carry no meaning; it exercises loading,
//! pooling, dimensions and quantisation. Test support: it panics on I/O
//! errors.
#![allow(clippy::unwrap_used, clippy::missing_panics_doc)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use candle_core::{Device, Tensor};
use tokenizers::models::wordpiece::WordPiece;
use tokenizers::normalizers::bert::BertNormalizer;
use tokenizers::pre_tokenizers::bert::BertPreTokenizer;
use tokenizers::processors::template::TemplateProcessing;

pub const HIDDEN: usize = 32;
pub const LAYERS: usize = 2;
pub const HEADS: usize = 2;
pub const INTERMEDIATE: usize = 64;
pub const VOCAB: usize = 60;
pub const MAX_POSITIONS: usize = 64;

pub const WORDS: [&str; 48] = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "the",
    "a",
    "man",
    "is",
    "eating",
    "food",
    "bread",
    "piece",
    "of",
    "cat",
    "dog",
    "runs",
    "fast",
    "slow",
    "memory",
    "agent",
    "remembers",
    "forgets",
    "long",
    "short",
    "term",
    "text",
    "vector",
    "model",
    "small",
    "big",
    "red",
    "blue",
    "green",
    ".",
    ",",
    "!",
    "?",
    "我",
    "们",
    "爱",
    "猫",
    "狗",
    "吃",
    "##s",
    "##ing",
    "##ed",
    "##er",
];

pub fn config_json(hidden: usize) -> String {
    serde_json::json!({
        "architectures": ["BertModel"],
        "attention_probs_dropout_prob": 0.1,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": hidden,
        "initializer_range": 0.02,
        "intermediate_size": INTERMEDIATE,
        "layer_norm_eps": 1e-12,
        "max_position_embeddings": MAX_POSITIONS,
        "model_type": "bert",
        "num_attention_heads": HEADS,
        "num_hidden_layers": LAYERS,
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
        "type_vocab_size": 2,
        "vocab_size": VOCAB
    })
    .to_string()
}

pub fn write_tokenizer(path: &Path) {
    let vocab: [(String, u32); WORDS.len()] =
        std::array::from_fn(|i| (WORDS[i].to_owned(), u32::try_from(i).unwrap()));
    let model = WordPiece::builder()
        .vocab(vocab)
        .unk_token("[UNK]".to_owned())
        .build()
        .unwrap();
    let mut tokenizer = tokenizers::Tokenizer::new(model);
    tokenizer
        .with_normalizer(Some(BertNormalizer::new(true, true, Some(false), true)))
        .unwrap();
    tokenizer.with_pre_tokenizer(Some(BertPreTokenizer));
    tokenizer.with_post_processor(Some(
        TemplateProcessing::builder()
            .try_single("[CLS] $A [SEP]")
            .unwrap()
            .try_pair("[CLS] $A [SEP] $B:1 [SEP]:1")
            .unwrap()
            .special_tokens(vec![("[CLS]", 2), ("[SEP]", 3)])
            .build()
            .unwrap(),
    ));
    // A fixed padding in the file, as some published tokenizers have: the
    // embedder must turn it off.
    tokenizer.with_padding(Some(tokenizers::PaddingParams {
        strategy: tokenizers::PaddingStrategy::Fixed(MAX_POSITIONS),
        pad_id: 0,
        pad_token: "[PAD]".to_owned(),
        ..Default::default()
    }));
    tokenizer.save(path, false).unwrap();
}

/// xorshift64*: deterministic pseudo-random numbers in [-1, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40;
        (x as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    fn tensor(&mut self, shape: &[usize], around: f32, spread: f32) -> Tensor {
        let n: usize = shape.iter().product();
        let data: Vec<f32> = (0..n).map(|_| around + spread * self.next()).collect();
        Tensor::from_vec(data, shape, &Device::Cpu).unwrap()
    }
}

pub fn write_weights(path: &Path, hidden: usize, seed: u64) {
    let mut rng = Rng(seed);
    let mut t: HashMap<String, Tensor> = HashMap::new();
    let linear =
        |t: &mut HashMap<String, Tensor>, rng: &mut Rng, name: String, out: usize, inp: usize| {
            t.insert(format!("{name}.weight"), rng.tensor(&[out, inp], 0.0, 0.3));
            t.insert(format!("{name}.bias"), rng.tensor(&[out], 0.0, 0.05));
        };
    let norm = |t: &mut HashMap<String, Tensor>, rng: &mut Rng, name: String| {
        t.insert(format!("{name}.weight"), rng.tensor(&[hidden], 1.0, 0.1));
        t.insert(format!("{name}.bias"), rng.tensor(&[hidden], 0.0, 0.05));
    };
    t.insert(
        "embeddings.word_embeddings.weight".into(),
        rng.tensor(&[VOCAB, hidden], 0.0, 1.0),
    );
    t.insert(
        "embeddings.position_embeddings.weight".into(),
        rng.tensor(&[MAX_POSITIONS, hidden], 0.0, 0.5),
    );
    t.insert(
        "embeddings.token_type_embeddings.weight".into(),
        rng.tensor(&[2, hidden], 0.0, 0.1),
    );
    norm(&mut t, &mut rng, "embeddings.LayerNorm".into());
    for l in 0..LAYERS {
        let p = format!("encoder.layer.{l}");
        for q in ["query", "key", "value"] {
            linear(
                &mut t,
                &mut rng,
                format!("{p}.attention.self.{q}"),
                hidden,
                hidden,
            );
        }
        linear(
            &mut t,
            &mut rng,
            format!("{p}.attention.output.dense"),
            hidden,
            hidden,
        );
        norm(&mut t, &mut rng, format!("{p}.attention.output.LayerNorm"));
        linear(
            &mut t,
            &mut rng,
            format!("{p}.intermediate.dense"),
            INTERMEDIATE,
            hidden,
        );
        linear(
            &mut t,
            &mut rng,
            format!("{p}.output.dense"),
            hidden,
            INTERMEDIATE,
        );
        norm(&mut t, &mut rng, format!("{p}.output.LayerNorm"));
    }
    candle_core::safetensors::save(&t, path).unwrap();
}

/// Writes a tiny model into `<parent>/<name>` and returns the folder.
pub fn tiny_model(parent: &Path, name: &str) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.json"), config_json(HIDDEN)).unwrap();
    write_tokenizer(&dir.join("tokenizer.json"));
    write_weights(
        &dir.join("model.safetensors"),
        HIDDEN,
        0x9E37_79B9_7F4A_7C15,
    );
    dir
}

pub fn write_pooling(dir: &Path, cls: bool, mean: bool) {
    std::fs::create_dir_all(dir.join("1_Pooling")).unwrap();
    let json = serde_json::json!({
        "word_embedding_dimension": HIDDEN,
        "pooling_mode_cls_token": cls,
        "pooling_mode_mean_tokens": mean,
        "pooling_mode_max_tokens": false,
        "pooling_mode_mean_sqrt_len_tokens": false
    });
    std::fs::write(dir.join("1_Pooling/config.json"), json.to_string()).unwrap();
}

/// What a [`TestHub`] answers for one path.
#[derive(Debug, Clone)]
pub enum Served {
    /// The bytes, whole.
    File(Vec<u8>),
    /// Announces the bytes' full length, sends the first `sent` of them and
    /// closes the connection: an interrupted download.
    Cut { bytes: Vec<u8>, sent: usize },
}

/// A tiny HTTP/1.1 server on 127.0.0.1 standing in for a model hub: GET of
/// a path it holds answers 200 with the bytes; any other path 404. One
/// connection at a time, each closed after its answer. Stops when dropped.
pub struct TestHub {
    pub url: String,
    addr: std::net::SocketAddr,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// The paths asked for, in order.
    pub requests: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl TestHub {
    /// Serves `files` (URL path, starting with `/`, to what is answered).
    pub fn serve(files: std::collections::BTreeMap<String, Served>) -> Self {
        use std::io::{BufRead, BufReader, Write};
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let requests = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (stop2, requests2) = (stop.clone(), requests.clone());
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut first = String::new();
                if reader.read_line(&mut first).is_err() {
                    continue;
                }
                loop {
                    let mut line = String::new();
                    match reader.read_line(&mut line) {
                        Ok(0) | Err(_) => break,
                        Ok(_) if line == "\r\n" || line == "\n" => break,
                        Ok(_) => {}
                    }
                }
                let path = first.split_whitespace().nth(1).unwrap_or("").to_owned();
                requests2.lock().unwrap().push(path.clone());
                let (status, body, sent) = match files.get(&path) {
                    Some(Served::File(bytes)) => ("200 OK", bytes.clone(), bytes.len()),
                    Some(Served::Cut { bytes, sent }) => ("200 OK", bytes.clone(), *sent),
                    None => ("404 Not Found", b"Entry not found".to_vec(), 15),
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Length: {}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&body[..sent.min(body.len())]);
                let _ = stream.flush();
                let _ = stream.shutdown(std::net::Shutdown::Both);
            }
        });
        TestHub {
            url: format!("http://{addr}"),
            addr,
            stop,
            thread: Some(thread),
            requests,
        }
    }
}

impl Drop for TestHub {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = std::net::TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The files of a model folder, by path relative to it (`/` separated).
pub fn folder_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

//! engram's sentence embedder.
//!
//! [`BertEmbedder`] loads a BERT-family sentence model (bge, sentence-transformers
//! MiniLM, ...) from a local folder holding `config.json`, `tokenizer.json` and
//! `model.safetensors`, and runs it on the CPU with candle. Loading never
//! downloads: the folder must already be there (see [`default_model_dir`] and
//! [`MODEL_DIR_ENV`]). [`install`] is the one place that downloads, when asked
//! (`engram model install NAME`): the catalogue's models, checksummed.
//!
//! Every vector is L2-normalised. The pooling (CLS or masked mean) and the
//! dimension come from the model's own files. Texts longer than the model's
//! window ([`BertEmbedder::max_tokens`] tokens, `[CLS]` and `[SEP]` included)
//! are truncated at the end, never rejected.
//!
//! [`quantize`] and [`dequantize`] turn a vector into the int8 form stored in the
//! log and back.
#![forbid(unsafe_code)]

pub mod install;
#[cfg(feature = "testing")]
pub mod testing;

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config, HiddenAct, PositionEmbeddingType};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

/// The environment variable naming the model folder; it wins over [`default_model_dir`].
pub const MODEL_DIR_ENV: &str = "ENGRAM_MODEL_DIR";

/// The model used when [`MODEL_DIR_ENV`] is not set.
pub const DEFAULT_MODEL_NAME: &str = "bge-small-zh-v1.5";

/// How many texts go through the model at once; a batch is padded to its longest text.
pub const BATCH_SIZE: usize = 32;

const CONFIG_FILE: &str = "config.json";
const TOKENIZER_FILE: &str = "tokenizer.json";
const WEIGHTS_FILE: &str = "model.safetensors";
const POOLING_FILE: &str = "1_Pooling/config.json";
const SENTENCE_BERT_FILE: &str = "sentence_bert_config.json";

/// The model folder: `$ENGRAM_MODEL_DIR` if set (and not empty), else
/// the first model of the catalogue installed under `<home>/models`
/// ([`install::select_model_dir`]), else `<home>/models/bge-small-zh-v1.5`,
/// `home` being engram's home folder.
pub fn default_model_dir(home: &Path) -> PathBuf {
    install::select_model_dir(home, None).0
}

/// Why a model could not be loaded or run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmbedError {
    /// A file the model folder must hold is not there.
    #[error(
        "model file {} is missing: the model folder needs config.json, tokenizer.json and \
         model.safetensors of a BERT-family sentence model (set {MODEL_DIR_ENV} to point at another folder)",
        path.display()
    )]
    MissingFile { path: PathBuf },
    /// A file is there but could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A configuration file is not valid or describes a model this crate cannot run.
    #[error("{} is not a usable model configuration: {reason}", path.display())]
    BadConfig { path: PathBuf, reason: String },
    /// The tokenizer could not be loaded or failed on a text.
    #[error("tokenizer error: {reason}")]
    Tokenizer { reason: String },
    /// The weights do not match `config.json` (another model's weights or config?).
    #[error(
        "{} does not match config.json: {reason}; download the model folder again so that its files belong together",
        path.display()
    )]
    WeightsMismatch { path: PathBuf, reason: String },
    /// The weights would not fit in the memory this machine has free: loading
    /// them (twice their size, file and tensors) would exhaust it.
    #[error(
        "{} is {size_mb} MB and needs about {needed_mb} MB to load, but only {available_mb} MB of memory is available: use a smaller model",
        path.display()
    )]
    TooLarge {
        path: PathBuf,
        size_mb: u64,
        needed_mb: u64,
        available_mb: u64,
    },
    /// The model failed to load or to run.
    #[error("model error: {reason}")]
    Model { reason: String },
}

fn model_err(e: candle_core::Error) -> EmbedError {
    EmbedError::Model {
        reason: e.to_string(),
    }
}

/// Something that turns texts into vectors.
pub trait Embedder: Send + Sync {
    /// Stable model identity recorded with every vector:
    /// `"<folder-name>@<first 8 hex digits of sha256(config.json)>"`, e.g.
    /// `"bge-small-zh-v1.5@1a2b3c4d"`.
    fn model_id(&self) -> &str;
    /// Length of every vector.
    fn dimension(&self) -> usize;
    /// One L2-normalised vector per text, in order. Texts longer than the
    /// model's window are truncated (their end is dropped), not rejected.
    /// (Only a tokenizer that adds no special tokens can give a text no
    /// tokens at all; with mean pooling such a text gets the zero vector.)
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// How token vectors become one sentence vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// The `[CLS]` token's vector (bge).
    Cls,
    /// The mean of the token vectors, padding excluded (sentence-transformers MiniLM).
    Mean,
}

impl fmt::Display for Pooling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Pooling::Cls => "cls",
            Pooling::Mean => "mean",
        })
    }
}

/// A BERT-family sentence model run with candle on the CPU.
pub struct BertEmbedder {
    model: BertModel,
    tokenizer: Tokenizer,
    device: Device,
    model_id: String,
    dimension: usize,
    pooling: Pooling,
    max_tokens: usize,
    pad_id: u32,
}

impl fmt::Debug for BertEmbedder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BertEmbedder")
            .field("model_id", &self.model_id)
            .field("dimension", &self.dimension)
            .field("pooling", &self.pooling)
            .field("max_tokens", &self.max_tokens)
            .finish_non_exhaustive()
    }
}

/// The fields of a BERT `config.json` this crate reads; the others are ignored.
#[derive(Debug, Deserialize)]
struct RawConfig {
    vocab_size: usize,
    hidden_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    max_position_embeddings: usize,
    #[serde(default = "default_hidden_act")]
    hidden_act: String,
    #[serde(default = "default_type_vocab_size")]
    type_vocab_size: usize,
    #[serde(default = "default_layer_norm_eps")]
    layer_norm_eps: f64,
    #[serde(default)]
    pad_token_id: Option<u32>,
    #[serde(default)]
    position_embedding_type: Option<String>,
    #[serde(default)]
    model_type: Option<String>,
}

fn default_hidden_act() -> String {
    "gelu".to_owned()
}
fn default_type_vocab_size() -> usize {
    2
}
fn default_layer_norm_eps() -> f64 {
    1e-12
}

/// sentence-transformers' `1_Pooling/config.json`.
#[derive(Debug, Deserialize)]
struct RawPooling {
    #[serde(default)]
    word_embedding_dimension: Option<usize>,
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
    #[serde(default)]
    pooling_mode_weightedmean_tokens: bool,
    #[serde(default)]
    pooling_mode_lasttoken: bool,
}

/// sentence-transformers' `sentence_bert_config.json`.
#[derive(Debug, Deserialize)]
struct RawSentenceBert {
    #[serde(default)]
    max_seq_length: Option<usize>,
}

/// Memory available to new allocations, from `/proc/meminfo` (Linux);
/// `None` where it cannot be told.
fn available_memory_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

/// Refuses weights that cannot be loaded in the memory available: the file
/// and the tensors built from it are both held for a moment, so loading
/// takes about twice the file's size. An allocation failure would abort the
/// process instead of giving an error.
fn check_fits_in_memory(path: &Path) -> Result<(), EmbedError> {
    let size = std::fs::metadata(path)
        .map_err(|source| EmbedError::Io {
            path: path.to_path_buf(),
            source,
        })?
        .len();
    fits_in_memory(path, size, available_memory_bytes())
}

/// [`check_fits_in_memory`] given the file's size and the memory available.
fn fits_in_memory(path: &Path, size: u64, available: Option<u64>) -> Result<(), EmbedError> {
    let needed = size.saturating_mul(2);
    match available {
        Some(available) if needed > available => Err(EmbedError::TooLarge {
            path: path.to_path_buf(),
            size_mb: size / 1_000_000,
            needed_mb: needed / 1_000_000,
            available_mb: available / 1_000_000,
        }),
        _ => Ok(()),
    }
}

fn read_required(path: &Path) -> Result<Vec<u8>, EmbedError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(EmbedError::MissingFile {
            path: path.to_path_buf(),
        }),
        Err(source) => Err(EmbedError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, EmbedError> {
    match read_required(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(EmbedError::MissingFile { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

fn bad_config(path: &Path, reason: impl Into<String>) -> EmbedError {
    EmbedError::BadConfig {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

fn parse_json<T: for<'de> Deserialize<'de>>(path: &Path, bytes: &[u8]) -> Result<T, EmbedError> {
    serde_json::from_slice(bytes).map_err(|e| bad_config(path, e.to_string()))
}

/// The folder's own name, used in the model id; `.` and the like are resolved first.
fn folder_name(dir: &Path) -> String {
    let named = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| !n.is_empty())
    };
    named(dir)
        .filter(|n| n != "." && n != "..")
        .or_else(|| dir.canonicalize().ok().as_deref().and_then(named))
        .unwrap_or_else(|| "model".to_owned())
}

fn candle_config(path: &Path, raw: &RawConfig) -> Result<Config, EmbedError> {
    if let Some(model_type) = raw.model_type.as_deref()
        && model_type != "bert"
    {
        return Err(bad_config(
            path,
            format!("model_type is {model_type:?}; only \"bert\" models are supported"),
        ));
    }
    if let Some(kind) = raw.position_embedding_type.as_deref()
        && kind != "absolute"
    {
        return Err(bad_config(
            path,
            format!("position_embedding_type {kind:?} is not supported (only \"absolute\")"),
        ));
    }
    let hidden_act = match raw.hidden_act.as_str() {
        "gelu" => HiddenAct::Gelu,
        "gelu_new" | "gelu_pytorch_tanh" | "gelu_approximate" => HiddenAct::GeluApproximate,
        "relu" => HiddenAct::Relu,
        other => {
            return Err(bad_config(
                path,
                format!("hidden_act {other:?} is not supported (gelu, gelu_new, relu are)"),
            ));
        }
    };
    let positive = [
        ("vocab_size", raw.vocab_size),
        ("hidden_size", raw.hidden_size),
        ("num_hidden_layers", raw.num_hidden_layers),
        ("num_attention_heads", raw.num_attention_heads),
        ("intermediate_size", raw.intermediate_size),
        ("max_position_embeddings", raw.max_position_embeddings),
        ("type_vocab_size", raw.type_vocab_size),
    ];
    if let Some((name, _)) = positive.iter().find(|(_, v)| *v == 0) {
        return Err(bad_config(path, format!("{name} is 0")));
    }
    if !raw.hidden_size.is_multiple_of(raw.num_attention_heads) {
        return Err(bad_config(
            path,
            format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                raw.hidden_size, raw.num_attention_heads
            ),
        ));
    }
    if !(raw.layer_norm_eps.is_finite() && raw.layer_norm_eps > 0.0) {
        return Err(bad_config(path, "layer_norm_eps must be a positive number"));
    }
    Ok(Config {
        vocab_size: raw.vocab_size,
        hidden_size: raw.hidden_size,
        num_hidden_layers: raw.num_hidden_layers,
        num_attention_heads: raw.num_attention_heads,
        intermediate_size: raw.intermediate_size,
        hidden_act,
        hidden_dropout_prob: 0.0,
        max_position_embeddings: raw.max_position_embeddings,
        type_vocab_size: raw.type_vocab_size,
        initializer_range: 0.02,
        layer_norm_eps: raw.layer_norm_eps,
        pad_token_id: raw.pad_token_id.unwrap_or(0) as usize,
        position_embedding_type: PositionEmbeddingType::Absolute,
        use_cache: false,
        classifier_dropout: None,
        model_type: Some("bert".to_owned()),
    })
}

/// The pooling of the folder: `1_Pooling/config.json` when present, else CLS
/// for a folder whose name contains "bge", else mean.
fn read_pooling(dir: &Path, name: &str, hidden: usize) -> Result<Pooling, EmbedError> {
    let path = dir.join(POOLING_FILE);
    let Some(bytes) = read_optional(&path)? else {
        return Ok(if name.to_lowercase().contains("bge") {
            Pooling::Cls
        } else {
            Pooling::Mean
        });
    };
    let raw: RawPooling = parse_json(&path, &bytes)?;
    if let Some(dim) = raw.word_embedding_dimension
        && dim != hidden
    {
        return Err(bad_config(
            &path,
            format!("word_embedding_dimension is {dim} but config.json has hidden_size {hidden}"),
        ));
    }
    let others = raw.pooling_mode_max_tokens
        || raw.pooling_mode_mean_sqrt_len_tokens
        || raw.pooling_mode_weightedmean_tokens
        || raw.pooling_mode_lasttoken;
    match (
        raw.pooling_mode_cls_token,
        raw.pooling_mode_mean_tokens,
        others,
    ) {
        (true, false, false) => Ok(Pooling::Cls),
        (false, true, false) => Ok(Pooling::Mean),
        _ => Err(bad_config(
            &path,
            "exactly one of pooling_mode_cls_token and pooling_mode_mean_tokens must be true \
             (other pooling modes are not supported)",
        )),
    }
}

/// The model's window: `max_position_embeddings`, lowered by
/// sentence-transformers' `max_seq_length` when the folder has one.
fn read_max_tokens(dir: &Path, max_positions: usize) -> Result<usize, EmbedError> {
    let path = dir.join(SENTENCE_BERT_FILE);
    let Some(bytes) = read_optional(&path)? else {
        return Ok(max_positions);
    };
    let raw: RawSentenceBert = parse_json(&path, &bytes)?;
    Ok(match raw.max_seq_length {
        Some(n) if n >= 2 => n.min(max_positions),
        _ => max_positions,
    })
}

fn load_tokenizer(path: &Path, bytes: &[u8], max_tokens: usize) -> Result<Tokenizer, EmbedError> {
    let mut tokenizer = Tokenizer::from_bytes(bytes).map_err(|e| EmbedError::Tokenizer {
        reason: format!("cannot load {}: {e}", path.display()),
    })?;
    // Padding is done per batch, to the batch's longest text.
    tokenizer.with_padding(None);
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length: max_tokens,
            strategy: TruncationStrategy::LongestFirst,
            stride: 0,
            direction: TruncationDirection::Right,
        }))
        .map_err(|e| EmbedError::Tokenizer {
            reason: format!("cannot truncate at {max_tokens} tokens: {e}"),
        })?;
    Ok(tokenizer)
}

/// Checks the tensors the model needs against `config.json` before candle
/// loads them, so that a mismatch names the tensor and both shapes.
fn check_weights(
    path: &Path,
    tensors: &HashMap<String, Tensor>,
    config: &Config,
) -> Result<(), EmbedError> {
    let prefix = if tensors.keys().any(|k| k.starts_with("bert.")) {
        "bert."
    } else {
        ""
    };
    let h = config.hidden_size;
    let expected: [(&str, Vec<usize>); 4] = [
        (
            "embeddings.word_embeddings.weight",
            vec![config.vocab_size, h],
        ),
        (
            "embeddings.position_embeddings.weight",
            vec![config.max_position_embeddings, h],
        ),
        ("encoder.layer.0.attention.self.query.weight", vec![h, h]),
        (
            "encoder.layer.0.intermediate.dense.weight",
            vec![config.intermediate_size, h],
        ),
    ];
    for (name, shape) in expected {
        let full = format!("{prefix}{name}");
        let Some(t) = tensors.get(&full) else {
            return Err(EmbedError::WeightsMismatch {
                path: path.to_path_buf(),
                reason: format!("tensor {full} is missing (is this a BERT model?)"),
            });
        };
        if t.dims() != shape.as_slice() {
            return Err(EmbedError::WeightsMismatch {
                path: path.to_path_buf(),
                reason: format!(
                    "tensor {full} has shape {:?} but config.json implies {shape:?} \
                     (hidden_size {h}, vocab_size {}, intermediate_size {})",
                    t.dims(),
                    config.vocab_size,
                    config.intermediate_size
                ),
            });
        }
    }
    Ok(())
}

impl BertEmbedder {
    /// Loads the model in `dir`: `config.json`, `tokenizer.json` and
    /// `model.safetensors` are required; `1_Pooling/config.json` and
    /// `sentence_bert_config.json` (sentence-transformers) are read when present.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let config_path = dir.join(CONFIG_FILE);
        let tokenizer_path = dir.join(TOKENIZER_FILE);
        let weights_path = dir.join(WEIGHTS_FILE);
        let config_bytes = read_required(&config_path)?;
        let tokenizer_bytes = read_required(&tokenizer_path)?;
        if !weights_path.exists() {
            return Err(EmbedError::MissingFile { path: weights_path });
        }

        let raw: RawConfig = parse_json(&config_path, &config_bytes)?;
        let config = candle_config(&config_path, &raw)?;
        let name = folder_name(dir);
        let hash = hex::encode(Sha256::digest(&config_bytes));
        let model_id = format!("{name}@{}", hash.get(..8).unwrap_or(&hash));
        let pooling = read_pooling(dir, &name, config.hidden_size)?;
        let max_tokens = read_max_tokens(dir, config.max_position_embeddings)?;

        let tokenizer = load_tokenizer(&tokenizer_path, &tokenizer_bytes, max_tokens)?;
        let tokenizer_vocab = tokenizer.get_vocab_size(true);
        if tokenizer_vocab > config.vocab_size {
            return Err(bad_config(
                &config_path,
                format!(
                    "vocab_size is {} but tokenizer.json has {tokenizer_vocab} tokens",
                    config.vocab_size
                ),
            ));
        }
        let pad_id = raw.pad_token_id.unwrap_or(0);

        check_fits_in_memory(&weights_path)?;
        let device = Device::Cpu;
        // Read into memory rather than mmap: no unsafe code, and a file changed
        // on disk meanwhile cannot change the weights under us.
        let weights_bytes = read_required(&weights_path)?;
        let tensors =
            candle_core::safetensors::load_buffer(&weights_bytes, &device).map_err(|e| {
                EmbedError::WeightsMismatch {
                    path: weights_path.clone(),
                    reason: format!("not a readable safetensors file: {e}"),
                }
            })?;
        drop(weights_bytes);
        check_weights(&weights_path, &tensors, &config)?;
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &device);
        let model = BertModel::load(vb, &config).map_err(|e| EmbedError::WeightsMismatch {
            path: weights_path.clone(),
            reason: e.to_string(),
        })?;

        Ok(Self {
            model,
            tokenizer,
            device,
            model_id,
            dimension: config.hidden_size,
            pooling,
            max_tokens,
            pad_id,
        })
    }

    /// The pooling read from the folder.
    pub fn pooling(&self) -> Pooling {
        self.pooling
    }

    /// The most tokens of a text the model sees, `[CLS]` and `[SEP]` included;
    /// the rest of a longer text is dropped.
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// Embeds one batch, padded to its longest text.
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let inputs: Vec<String> = texts.iter().map(|t| (*t).to_owned()).collect();
        let encodings =
            self.tokenizer
                .encode_batch(inputs, true)
                .map_err(|e| EmbedError::Tokenizer {
                    reason: e.to_string(),
                })?;
        let batch = encodings.len();
        let len = encodings
            .iter()
            .map(|e| e.get_ids().len())
            .max()
            .unwrap_or(0)
            .max(1);
        let mut ids = vec![self.pad_id; batch * len];
        let mut types = vec![0u32; batch * len];
        let mut mask = vec![0u32; batch * len];
        for (row, enc) in encodings.iter().enumerate() {
            let start = row * len;
            for (i, ((&id, &ty), &m)) in enc
                .get_ids()
                .iter()
                .zip(enc.get_type_ids())
                .zip(enc.get_attention_mask())
                .enumerate()
            {
                if let (Some(a), Some(b), Some(c)) = (
                    ids.get_mut(start + i),
                    types.get_mut(start + i),
                    mask.get_mut(start + i),
                ) {
                    *a = id;
                    *b = ty;
                    *c = m;
                }
            }
        }
        let ids = Tensor::from_vec(ids, (batch, len), &self.device).map_err(model_err)?;
        let types = Tensor::from_vec(types, (batch, len), &self.device).map_err(model_err)?;
        let mask = Tensor::from_vec(mask, (batch, len), &self.device).map_err(model_err)?;
        let hidden = self
            .model
            .forward(&ids, &types, Some(&mask))
            .map_err(model_err)?;
        let pooled = match self.pooling {
            Pooling::Cls => hidden.narrow(1, 0, 1).and_then(|t| t.squeeze(1)),
            Pooling::Mean => (|| {
                let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
                let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
                let counts = mask.sum(1)?.clamp(1e-9f32, f32::MAX)?;
                summed.broadcast_div(&counts)
            })(),
        }
        .map_err(model_err)?;
        let rows: Vec<Vec<f32>> = pooled.to_vec2().map_err(model_err)?;
        Ok(rows.into_iter().map(normalize).collect())
    }
}

/// Scales `v` to unit length; a zero vector stays zero.
fn normalize(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

impl Embedder for BertEmbedder {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH_SIZE) {
            out.extend(self.embed_batch(chunk)?);
        }
        Ok(out)
    }
}

/// An int8 vector as stored in the log: component `i` is `values[i] as f32 * scale`.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantized {
    pub scale: f32,
    pub values: Vec<i8>,
}

/// int8 quantisation: `scale = max|x| / 127` (1.0 for an all-zero vector),
/// `values = round(x / scale)` clamped to `-127..=127`. Non-finite components
/// are treated as 0.
pub fn quantize(v: &[f32]) -> Quantized {
    let max = v
        .iter()
        .filter(|x| x.is_finite())
        .fold(0.0f32, |m, x| m.max(x.abs()));
    let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
    // A max so small that max / 127 underflows to 0 gets the smallest positive scale.
    let scale = if scale > 0.0 {
        scale
    } else {
        f32::MIN_POSITIVE
    };
    let values = v
        .iter()
        .map(|&x| {
            if x.is_finite() {
                // In range after the clamp, so the cast is exact.
                (x / scale).round().clamp(-127.0, 127.0) as i8
            } else {
                0
            }
        })
        .collect();
    Quantized { scale, values }
}

/// The vector a [`Quantized`] stands for.
pub fn dequantize(q: &Quantized) -> Vec<f32> {
    q.values.iter().map(|&x| f32::from(x) * q.scale).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_larger_than_the_free_memory_are_refused_with_the_sizes() {
        let path = Path::new("model.safetensors");
        let err = fits_in_memory(path, 3_000_000_000, Some(4_000_000_000)).unwrap_err();
        assert!(matches!(
            err,
            EmbedError::TooLarge {
                size_mb: 3000,
                needed_mb: 6000,
                available_mb: 4000,
                ..
            }
        ));
        assert!(err.to_string().contains("smaller model"), "{err}");
        assert!(fits_in_memory(path, 1_000_000_000, Some(4_000_000_000)).is_ok());
        assert!(fits_in_memory(path, u64::MAX, None).is_ok(), "unknown: try");
    }

    #[test]
    fn this_machine_reports_its_free_memory() {
        if cfg!(target_os = "linux") {
            assert!(available_memory_bytes().is_some_and(|b| b > 0));
        }
    }
}

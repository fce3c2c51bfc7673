//! The sentence model for the commands that use one (remember, recall,
//! reembed, stats): loaded from `ENGRAM_MODEL_DIR`, else
//! `<engram home>/models/bge-small-zh-v1.5`. Without a usable model the
//! commands run keyword-only, with one warning on stderr saying why.

use std::sync::Arc;

use engram_embed::{BertEmbedder, Embedder, MODEL_DIR_ENV, default_model_dir};

/// The model, or `None` after printing why recall will be keyword-only.
pub fn load() -> Option<Arc<dyn Embedder>> {
    let home = engram::scope::engram_home().ok()?;
    let dir = default_model_dir(&home);
    if !dir.exists() {
        eprintln!(
            "engram: warning: no embedding model at {}: recall is keyword-only (put a BERT-family model there or set {MODEL_DIR_ENV})",
            dir.display()
        );
        return None;
    }
    match BertEmbedder::load(&dir) {
        Ok(model) => Some(Arc::new(model)),
        Err(e) => {
            eprintln!("engram: warning: {e}; recall is keyword-only");
            None
        }
    }
}

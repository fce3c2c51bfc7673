//! The sentence model for the commands that use one (remember, recall,
//! reembed, stats): loaded from the folder the settings name
//! (`ENGRAM_MODEL_DIR`, else `model_dir` in the config file, else
//! `<engram home>/models/bge-small-zh-v1.5`). Without a usable model the
//! commands run keyword-only, with one warning on stderr saying why.

use std::sync::Arc;

use engram::config::{MODEL_DIR_ENV, Source};
use engram_embed::{BertEmbedder, Embedder};

use super::Context;

/// The model, or `None` after printing why recall will be keyword-only.
pub fn load(ctx: &Context) -> Option<Arc<dyn Embedder>> {
    let setting = &ctx.settings.model_dir;
    let dir = &setting.value;
    if dir.as_os_str().is_empty() {
        return None;
    }
    if !dir.exists() {
        let hint = match setting.source {
            Source::Default => format!(
                "put a BERT-family model there, set {MODEL_DIR_ENV}, or set model_dir in {}",
                ctx.settings.path.display()
            ),
            ref source => format!("set by {source}"),
        };
        eprintln!(
            "engram: warning: no embedding model at {}: recall is keyword-only ({hint})",
            dir.display()
        );
        return None;
    }
    match BertEmbedder::load(dir) {
        Ok(model) => Some(Arc::new(model)),
        Err(e) => {
            eprintln!("engram: warning: {e}; recall is keyword-only");
            None
        }
    }
}

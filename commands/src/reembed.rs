//! `reembed`: vectors for the memories that have none under a model, so
//! that recall can run hybrid over memories saved before the model was
//! configured (or under another one).
//!
//! Each batch of [`REEMBED_BATCH`] memories is one append of `Embedded`
//! events. A vector is derived data: it writes no words, decides nothing
//! and passes no gate (the model reads what the log already holds).

use engram_log::{Embedded, Embedding, Event, MemoryId};
use engram_projections::models::MemoryStatus;

use crate::save::CommandStore;

/// A model's batch call: one vector per text, or why it failed.
pub type EmbedBatch<'a> = &'a dyn Fn(&[&str]) -> Result<Vec<Embedding>, String>;

/// Memories embedded, and appended, at a time.
pub const REEMBED_BATCH: usize = 32;

/// Why a reembed stopped. The batches appended before it stay.
#[derive(Debug, thiserror::Error)]
pub enum ReembedError<E: std::error::Error + 'static> {
    /// The model failed on a batch.
    #[error("the embedding model failed: {0}")]
    Model(String),
    #[error("the model gave {got} vectors for {asked} texts")]
    Count { asked: usize, got: usize },
    #[error(transparent)]
    Store(E),
}

/// The memories (not forgotten) with words and no vector of `model`, in id
/// order.
#[must_use]
pub fn missing<S: CommandStore + ?Sized>(store: &S, model: &str) -> Vec<(MemoryId, String)> {
    let core = store.views();
    let table = core.memory_table.read();
    let index = core.text_index.read();
    let vectors = core.vectors.read();
    table
        .state
        .iter()
        .filter(|e| e.status != MemoryStatus::Forgotten && !vectors.state.knows(model, e.id))
        // Only words the views prove the log holds (a vector is recorded
        // in the log): an entry failing its MAC waits for a rebuild.
        .filter_map(|e| Some((e.id, index.verified_text(e).ok()??.to_owned())))
        .collect()
}

/// Embeds every memory [`missing`] a vector of `model` with `embed` (a
/// batch of texts to one vector each), one append per batch; `progress`
/// hears (done, total) after each. Answers how many were embedded.
///
/// # Errors
/// The model's failure, or the store's.
pub fn reembed<S: CommandStore + ?Sized>(
    store: &S,
    model: &str,
    embed: EmbedBatch<'_>,
    progress: &dyn Fn(usize, usize),
) -> Result<usize, ReembedError<S::Error>> {
    let todo = missing(store, model);
    let mut done = 0;
    for chunk in todo.chunks(REEMBED_BATCH) {
        let texts: Vec<&str> = chunk.iter().map(|(_, t)| t.as_str()).collect();
        let vectors = embed(&texts).map_err(ReembedError::Model)?;
        if vectors.len() != chunk.len() {
            return Err(ReembedError::Count {
                asked: chunk.len(),
                got: vectors.len(),
            });
        }
        let events: Vec<Event> = chunk
            .iter()
            .zip(vectors)
            .map(|((memory, _), embedding)| {
                Event::Embedded(Embedded {
                    memory: *memory,
                    embedding,
                })
            })
            .collect();
        store.append(&events).map_err(ReembedError::Store)?;
        done += chunk.len();
        progress(done, todo.len());
    }
    Ok(done)
}

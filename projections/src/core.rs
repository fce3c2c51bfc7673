//! The core views of every store, created together so the runtime, the
//! engine and as-of replays all use the same set.

use std::sync::Arc;

use engram_log::LogReader;
use parking_lot::RwLock;

use crate::audit::AuditView;
use crate::models::{
    EntityDictionary, LruTable, MemoryTable, PalaceView, ReviewSchedule, SessionTable, TierIndex,
    TrustScores, Verdicts,
};
use crate::runtime::SharedView;
use crate::text_index::TextIndex;
use crate::vector_index::VectorIndex;
use crate::view::Snapshot;

/// Typed handles to the core views, plus the list the runtime drives.
///
/// **Lock order.** Code that holds several views' read locks at once takes
/// them in this order: `memory_table`, `text_index`, `vectors`, `verdicts`,
/// `palace`, `trust`, `lru`, `review`. A projector waiting to write a view blocks new
/// readers of it, so two readers taking two views in opposite orders
/// deadlock with the two projectors between them (a save deciding while a
/// recall ran did).
#[derive(Clone)]
pub struct CoreViews {
    pub memory_table: Arc<RwLock<Snapshot<MemoryTable>>>,
    pub tier_index: Arc<RwLock<Snapshot<TierIndex>>>,
    pub lru: Arc<RwLock<Snapshot<LruTable>>>,
    pub trust: Arc<RwLock<Snapshot<TrustScores>>>,
    pub audit: Arc<RwLock<AuditView>>,
    pub sessions: Arc<RwLock<Snapshot<SessionTable>>>,
    pub palace: Arc<RwLock<PalaceView>>,
    pub verdicts: Arc<RwLock<Snapshot<Verdicts>>>,
    pub review: Arc<RwLock<Snapshot<ReviewSchedule>>>,
    pub entities: Arc<RwLock<Snapshot<EntityDictionary>>>,
    pub vectors: Arc<RwLock<Snapshot<VectorIndex>>>,
    pub text_index: Arc<RwLock<TextIndex>>,
}

impl std::fmt::Debug for CoreViews {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoreViews").finish_non_exhaustive()
    }
}

impl CoreViews {
    /// Fresh, empty views over the log `reader` reads (the text index reads
    /// the words a memory references back from it).
    #[must_use]
    pub fn new(reader: LogReader) -> Self {
        Self {
            memory_table: Arc::default(),
            tier_index: Arc::default(),
            lru: Arc::default(),
            trust: Arc::default(),
            audit: Arc::default(),
            sessions: Arc::default(),
            palace: Arc::new(RwLock::new(PalaceView::new(reader.key().clone()))),
            verdicts: Arc::default(),
            review: Arc::default(),
            entities: Arc::default(),
            vectors: Arc::default(),
            text_index: Arc::new(RwLock::new(TextIndex::new(reader))),
        }
    }

    /// The views as the runtime drives them, in a fixed order.
    #[must_use]
    pub fn list(&self) -> Vec<SharedView> {
        vec![
            Arc::clone(&self.memory_table) as SharedView,
            Arc::clone(&self.tier_index) as SharedView,
            Arc::clone(&self.lru) as SharedView,
            Arc::clone(&self.trust) as SharedView,
            Arc::clone(&self.audit) as SharedView,
            Arc::clone(&self.sessions) as SharedView,
            Arc::clone(&self.palace) as SharedView,
            Arc::clone(&self.verdicts) as SharedView,
            Arc::clone(&self.review) as SharedView,
            Arc::clone(&self.entities) as SharedView,
            Arc::clone(&self.vectors) as SharedView,
            Arc::clone(&self.text_index) as SharedView,
        ]
    }
}

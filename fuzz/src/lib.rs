//! What the request-parsing fuzz targets share: a store on disk with a few
//! memories, served by one `Service`, renewed every so many runs so a long
//! campaign does not grow one log without bound.

use std::sync::Arc;

use engram::api::{ServedStore, Service};
use engram::log::{Durability, KeySource};
use engram::store::{Store, StoreOptions};
use engram::{Engram, Remember, Subject};

/// Runs served by one store before a fresh one replaces it.
pub const RUNS_PER_STORE: u32 = 2_000;

/// A store folder, its service, and how many runs it served.
pub struct Fixture {
    pub service: Arc<Service>,
    runs: u32,
    // Dropped last: the folder outlives the service.
    _dir: tempfile::TempDir,
}

impl Fixture {
    /// A new store with three memories, the second forgotten.
    #[must_use]
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let options = StoreOptions {
            key: KeySource::Hex("42".repeat(32)),
            durability: Durability::None,
            ..StoreOptions::default()
        };
        let engram = Engram::open(Store::at(dir.path().join("store")), &options)
            .expect("a new store opens");
        let mut ids = Vec::new();
        for text in [
            "The billing service listens on port 8080 in staging.",
            "Deploys happen on Thursdays after the standup.",
            "The office wifi is called lighthouse.",
        ] {
            let receipt = engram
                .remember(&Remember::text(text))
                .expect("a plain save succeeds");
            ids.push(receipt.memory().expect("a new memory"));
        }
        engram
            .forget(ids[1], &Subject::user(), "moved")
            .expect("forgetting a live memory succeeds");
        let service = Arc::new(Service::new(
            ServedStore {
                scope: "store",
                engram: Arc::new(engram),
            },
            Vec::new(),
        ));
        Self {
            service,
            runs: 0,
            _dir: dir,
        }
    }

    /// Counts a run; `true` once the store served its share.
    pub fn worn_out(&mut self) -> bool {
        self.runs += 1;
        self.runs > RUNS_PER_STORE
    }
}

impl Default for Fixture {
    fn default() -> Self {
        Self::new()
    }
}

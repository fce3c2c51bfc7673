//! The retrieval corpus in the stable suite: engram's keyword recall on
//! the dev and test splits of `benches/corpus/retrieval` (in-process
//! stores, keyword mode) must stay above floors a little below what was
//! measured (`benches/runs/2026-12-01/retrieval.txt`), and above the SQLite
//! FTS5 peer by the margin, so a change that loses recall fails.

use engram_benches::retrieval::{System, build_split, evaluate};

/// (split, evidence recall@10 floor, MRR floor), a little below the
/// measured figures.
const FLOORS: [(&str, f64, f64); 2] = [("dev", 0.60, 0.50), ("test", 0.60, 0.49)];

/// Keyword recall@10 over the peer's, at least.
const OVER_PEER: f64 = 1.1;

#[test]
fn keyword_recall_stays_above_its_floors() {
    for (split, recall_floor, mrr_floor) in FLOORS {
        let (stores, _) = build_split(split, None).expect("building the stores");
        let tally = evaluate(&stores, None).expect("evaluating");
        let keyword = tally.mean("all", System::Keyword).expect("keyword scores");
        let peer = tally.mean("all", System::Fts5).expect("peer scores");
        assert!(keyword.n > 400, "{split}: {} questions", keyword.n);
        assert!(
            keyword.recall[2] >= recall_floor,
            "{split}: keyword recall@10 {:.3} fell below {recall_floor}",
            keyword.recall[2]
        );
        assert!(
            keyword.mrr >= mrr_floor,
            "{split}: keyword MRR {:.3} fell below {mrr_floor}",
            keyword.mrr
        );
        assert!(
            keyword.recall[2] >= OVER_PEER * peer.recall[2],
            "{split}: keyword recall@10 {:.3} is not {OVER_PEER}x the peer's {:.3}",
            keyword.recall[2],
            peer.recall[2]
        );
    }
}

//! The SQLite FTS5 peer: what a user would pick to search the same texts.
//!
//! Two FTS5 tables over the same rows (rowid = engram memory id):
//!
//! - `en`: `tokenize = 'porter unicode61'`, Porter stemming over
//!   Unicode-aware words (diacritics folded), for English and every other
//!   language written with spaces;
//! - `cjk`: `tokenize = 'trigram'`, the built-in tokenizer that indexes
//!   Chinese, Japanese and Korean (unicode61 would take a whole CJK run
//!   for one word).
//!
//! A query is split the way unicode61 splits it: its words outside CJK
//! runs, lowercased, less [`PEER_STOPWORDS`] (60 English words, pronouns
//! among them), become an OR of quoted terms against `en`
//! ([`english_match`]); each CJK run of 3 or more characters gives its
//! overlapping 3-character windows, an OR against `cjk` ([`cjk_match`]; a
//! 2-character run cannot be looked up in a trigram index and is skipped).
//! Each table answers with `bm25()` ordered by rank, the best `limit`; when
//! a query has both parts, a row's score is the sum of its two (negated)
//! BM25 scores and the union is cut to `limit`. Ties go to the lower rowid.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::{Result, ensure};
use engram_log::MemoryId;

/// The peer's English stoplist (60 words): what a user would drop from a
/// question before an OR query.
#[rustfmt::skip]
pub const PEER_STOPWORDS: &[&str] = &[
    "a", "about", "after", "all", "am", "an", "and", "any", "are", "as", "at", "be", "been",
    "but", "by", "can", "could", "did", "do", "does", "for", "from", "had", "has", "have", "he",
    "her", "his", "how", "i", "if", "in", "is", "it", "its", "me", "my", "of", "on", "or", "our",
    "s", "she", "so", "t", "that", "the", "their", "they", "this", "to", "was", "we", "what",
    "when", "where", "which", "who", "with", "you",
];

/// One FTS5 hit.
#[derive(Debug, Clone, PartialEq)]
pub struct FtsHit {
    pub id: MemoryId,
    pub text: String,
    /// The negated BM25 score (higher is better), summed over both tables.
    pub score: f64,
}

/// Whether `c` is written in a CJK script (no spaces between words).
#[must_use]
pub fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{1100}'..='\u{11ff}'
        | '\u{3040}'..='\u{30ff}'
        | '\u{3130}'..='\u{318f}'
        | '\u{3400}'..='\u{4dbf}'
        | '\u{4e00}'..='\u{9fff}'
        | '\u{f900}'..='\u{faff}'
        | '\u{ac00}'..='\u{d7af}'
        | '\u{20000}'..='\u{3ffff}')
}

fn quote(term: &str) -> String {
    format!("\"{}\"", term.replace('"', "\"\""))
}

fn or_of(terms: Vec<String>) -> Option<String> {
    if terms.is_empty() {
        return None;
    }
    Some(
        terms
            .iter()
            .map(|t| quote(t))
            .collect::<Vec<_>>()
            .join(" OR "),
    )
}

/// The `MATCH` expression of `query` for the `porter unicode61` table: its
/// words outside CJK runs, lowercased, deduplicated, less
/// [`PEER_STOPWORDS`], ORed. `None` when none is left.
#[must_use]
pub fn english_match(query: &str) -> Option<String> {
    let mut terms: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut flush = |word: &mut String| {
        if !word.is_empty() && !PEER_STOPWORDS.contains(&word.as_str()) && !terms.contains(word) {
            terms.push(word.clone());
        }
        word.clear();
    };
    for c in query.chars() {
        if c.is_alphanumeric() && !is_cjk(c) {
            word.extend(c.to_lowercase());
        } else {
            flush(&mut word);
        }
    }
    flush(&mut word);
    or_of(terms)
}

/// The `MATCH` expression of `query` for the trigram table: the
/// 3-character windows of each CJK run, ORed. `None` when no run has 3
/// characters.
#[must_use]
pub fn cjk_match(query: &str) -> Option<String> {
    let mut terms: Vec<String> = Vec::new();
    let mut run: Vec<char> = Vec::new();
    let mut flush = |run: &mut Vec<char>| {
        for window in run.windows(3) {
            let term: String = window.iter().collect();
            if !terms.contains(&term) {
                terms.push(term);
            }
        }
        run.clear();
    };
    for c in query.chars() {
        if is_cjk(c) {
            run.push(c);
        } else {
            flush(&mut run);
        }
    }
    flush(&mut run);
    or_of(terms)
}

/// SQLite FTS5 holding texts under engram's memory ids (see the module
/// documentation).
pub struct Fts5Peer {
    conn: rusqlite::Connection,
    /// Time to insert every row and merge both indexes.
    pub build: Duration,
}

impl Fts5Peer {
    const SELECT_EN: &'static str =
        "SELECT rowid, content, bm25(en) FROM en WHERE en MATCH ?1 ORDER BY rank LIMIT ?2";
    const SELECT_CJK: &'static str =
        "SELECT rowid, content, bm25(cjk) FROM cjk WHERE cjk MATCH ?1 ORDER BY rank LIMIT ?2";

    /// Creates both tables on `conn` (a fresh database), inserts `texts`
    /// under `ids` in transactions of `batch` rows, and merges the indexes.
    pub fn build(
        mut conn: rusqlite::Connection,
        texts: &[String],
        ids: &[MemoryId],
        batch: usize,
    ) -> Result<Self> {
        ensure!(texts.len() == ids.len(), "one id per text");
        let fts5: i64 =
            conn.query_row("SELECT sqlite_compileoption_used('ENABLE_FTS5')", [], |r| {
                r.get(0)
            })?;
        ensure!(fts5 == 1, "this SQLite was built without FTS5");
        conn.execute_batch(
            "CREATE VIRTUAL TABLE en USING fts5(content, tokenize = 'porter unicode61');
             CREATE VIRTUAL TABLE cjk USING fts5(content, tokenize = 'trigram');",
        )?;
        let started = Instant::now();
        for (texts, ids) in texts.chunks(batch.max(1)).zip(ids.chunks(batch.max(1))) {
            let txn = conn.transaction()?;
            {
                let mut en =
                    txn.prepare_cached("INSERT INTO en (rowid, content) VALUES (?1, ?2)")?;
                let mut cjk =
                    txn.prepare_cached("INSERT INTO cjk (rowid, content) VALUES (?1, ?2)")?;
                for (text, &id) in texts.iter().zip(ids) {
                    let id = i64::try_from(id)?;
                    en.execute(rusqlite::params![id, text])?;
                    cjk.execute(rusqlite::params![id, text])?;
                }
            }
            txn.commit()?;
        }
        conn.execute_batch(
            "INSERT INTO en (en) VALUES ('optimize'); INSERT INTO cjk (cjk) VALUES ('optimize');",
        )?;
        let build = started.elapsed();
        let rows: i64 = conn.query_row("SELECT count(*) FROM en", [], |r| r.get(0))?;
        ensure!(
            rows == i64::try_from(texts.len())?,
            "FTS5 holds {rows} rows"
        );
        Ok(Self { conn, build })
    }

    fn select(&self, sql: &str, expression: &str, limit: usize) -> Result<Vec<FtsHit>> {
        let mut select = self.conn.prepare_cached(sql)?;
        let rows = select.query_map(
            rusqlite::params![expression, i64::try_from(limit)?],
            |row| {
                Ok(FtsHit {
                    id: u64::try_from(row.get::<_, i64>(0)?).unwrap_or_default(),
                    text: row.get(1)?,
                    score: -row.get::<_, f64>(2)?,
                })
            },
        )?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// The best `limit` rows for `query`, best first (none when neither
    /// match expression keeps a term).
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<FtsHit>> {
        let en = english_match(query);
        let cjk = cjk_match(query);
        match (en, cjk) {
            (None, None) => Ok(Vec::new()),
            (Some(en), None) => self.select(Self::SELECT_EN, &en, limit),
            (None, Some(cjk)) => self.select(Self::SELECT_CJK, &cjk, limit),
            (Some(en), Some(cjk)) => {
                let mut merged: BTreeMap<MemoryId, FtsHit> = BTreeMap::new();
                for hit in self
                    .select(Self::SELECT_EN, &en, limit)?
                    .into_iter()
                    .chain(self.select(Self::SELECT_CJK, &cjk, limit)?)
                {
                    merged
                        .entry(hit.id)
                        .and_modify(|h| h.score += hit.score)
                        .or_insert(hit);
                }
                let mut hits: Vec<FtsHit> = merged.into_values().collect();
                hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
                hits.truncate(limit);
                Ok(hits)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_expressions() {
        assert_eq!(
            english_match("What day do we deploy, now?").as_deref(),
            Some("\"day\" OR \"deploy\" OR \"now\"")
        );
        assert_eq!(english_match("数据分析"), None);
        assert_eq!(
            cjk_match("我们 team 哪天 deploy 数据分析").as_deref(),
            Some("\"数据分\" OR \"据分析\"")
        );
        assert_eq!(english_match("the my"), None);
        assert!(PEER_STOPWORDS.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(PEER_STOPWORDS.len(), 60);
    }

    #[test]
    fn stems_and_cjk_are_found() -> Result<()> {
        let texts = [
            "Deploys happen on Thursdays".to_owned(),
            "我们组每个周四下午上线新版本".to_owned(),
            "unrelated words".to_owned(),
        ];
        let peer = Fts5Peer::build(
            rusqlite::Connection::open_in_memory()?,
            &texts,
            &[1, 2, 3],
            10,
        )?;
        let hits = peer.search("deploy thursday", 10)?;
        assert_eq!(hits.first().map(|h| h.id), Some(1));
        let hits = peer.search("周四下午上线", 10)?;
        assert_eq!(hits.first().map(|h| h.id), Some(2));
        assert!(peer.search("the my", 10)?.is_empty());
        Ok(())
    }
}

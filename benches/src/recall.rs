//! Recall latency: engram's BM25 recall against SQLite FTS5 holding the same
//! memories and answering the same queries.
//!
//! **Corpus.** Memory `i` of [`memory_text`] is a deterministic sentence of
//! 8 to 30 words. About 80% are English, drawn with a Zipf-like law (rank
//! `r` has weight about `1 / (r + 3)`) from [`english_vocabulary`]: about 50
//! function words first, then about 350 words a memory engine hears
//! (preferences, plans, code, people), then synthetic words built from
//! syllables (names and jargon) up to [`ENGLISH_VOCABULARY`] words. The rest
//! are Chinese sentences of common 2-4 character words ([`CHINESE_WORDS`],
//! a law of the same kind), written without spaces as Chinese is, with a
//! comma every few words and now and then an English word.
//!
//! **Queries.** [`queries`] gives deterministic queries of 2 to 4 words,
//! keywords as a person or an agent would type them: 70% English words
//! (curated or synthetic, never function words, same law as the
//! documents), 20% 2 to 4 Chinese words run together (`数据分析偏好`), 10%
//! one or two English words then two Chinese words.
//!
//! **engram.** One [`Engram`] store (no fsync) holds one memory per text:
//! a `Session` event (session `bench`, role user) and a `Remembered` event
//! referencing it, sealed with the store's key, appended 2000 memories per
//! [`Engram::append`], which returns once every view (the text index among
//! them) applied the batch. A recall is [`engram_queries::recall`] with
//! limit 5: query terms, BM25 over the text index, the memory table's
//! filters, the hits with their text, trust and palace coordinate. It is the
//! read path only: [`Engram::recall`] would also append a `Recalled` event.
//!
//! **FTS5.** The peer a user would pick ([`crate::fts5::Fts5Peer`], the same
//! as in the retrieval benchmark): one SQLite database (a file in the same
//! temporary folder, WAL, 1 GiB page cache and 1 GiB mmap, so it is read
//! from memory like engram's index) with a `porter unicode61` FTS5 table
//! queried with an OR of the query's words less a 60-word stoplist, and a
//! trigram table queried with the 3-character windows of its CJK runs,
//! rowid = engram memory id, both merged by `optimize` after loading. A
//! recall is one or two `SELECT rowid, content, bm25(..) ... ORDER BY rank
//! LIMIT 5` through cached prepared statements, reading every row into
//! owned values (summed per row when a query has both parts). (Until
//! 2026-12-01 the peer was a trigram table alone, slower and weaker than
//! this one.) [`queries`] still draws queries by [`fts5_match`], the
//! trigram rule, so the query set is the one earlier runs measured.
//!
//! The two do not return the same hits (bigrams against substring trigrams,
//! different BM25 parameters); [`latency_report`] prints how far their top 5
//! overlap. The figures compare the cost of answering the same question from
//! the same texts.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, ensure};
use engram::Engram;
use engram::store::{Store, StoreOptions};
use engram_commands::memory::{MemoryMeta, remembered};
use engram_embed::Embedder;
use engram_log::{
    Durability, Embedding, Event, HmacKey, KeySource, MemoryId, MemoryRef, Role, SessionEvent,
};
use engram_projections::vector_index::VectorSearch;
use engram_queries::{Hit, QueryVector, RecallMode, RecallQuery, model_reads};
use tempfile::TempDir;

use crate::fts5::Fts5Peer;

/// The seed of the recall corpus and queries.
pub const RECALL_SEED: u64 = 0x007e_c411_2026;

/// The store key of the recall benchmark (64 hex digits).
pub const RECALL_KEY_HEX: &str = "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";

/// Hits per recall, in both engines.
pub const RECALL_HITS: usize = 5;

/// Memories per `Engram::append` (two events each) and per SQLite
/// transaction.
pub const MEMORIES_PER_BATCH: usize = 2000;

/// Words of the English vocabulary, curated and synthetic.
pub const ENGLISH_VOCABULARY: usize = 3000;

/// Head flattening of the English word law (`the` is about 4% of words).
const ENGLISH_ZIPF_OFFSET: usize = 3;

/// Head flattening of the Chinese word law (`用户` is about 4% of words).
const CHINESE_ZIPF_OFFSET: usize = 8;

/// The session every benchmark memory references.
const SESSION: &str = "bench";

/// Function words, the most frequent ranks.
#[rustfmt::skip]
const FUNCTION_WORDS: &[&str] = &[
    "the", "to", "and", "a", "of", "in", "is", "for", "that", "on", "with", "at", "it", "we",
    "be", "this", "was", "are", "from", "by", "as", "after", "before", "about", "not", "but",
    "or", "an", "has", "have", "should", "will", "can", "when", "into", "over", "under", "every",
    "next", "last", "again", "also", "only", "still", "then", "there", "they", "their", "our",
    "his", "her",
];

/// Words a memory engine hears, by rough frequency.
#[rustfmt::skip]
const CONTENT_WORDS: &[&str] = &[
    "user", "prefers", "likes", "wants", "needs", "project", "meeting", "team", "deploy",
    "release", "tests", "database", "server", "client", "code", "review", "bug", "fix", "build",
    "script", "config", "file", "branch", "merge", "issue", "ticket", "customer", "budget",
    "report", "schedule", "friday", "monday", "tuesday", "wednesday", "thursday", "saturday",
    "sunday", "morning", "afternoon", "evening", "tomorrow", "yesterday", "week", "month",
    "quarter", "year", "deadline", "plan", "goal", "task", "note", "remember", "forget",
    "always", "never", "usually", "coffee", "tea", "lunch", "dinner", "breakfast", "travel",
    "flight", "hotel", "train", "airport", "visa", "passport", "family", "daughter", "son",
    "wife", "husband", "mother", "father", "birthday", "anniversary", "gift", "doctor",
    "appointment", "allergic", "peanuts", "gluten", "vegetarian", "running", "gym", "yoga",
    "music", "guitar", "piano", "book", "novel", "movie", "series", "python", "rust", "java",
    "typescript", "javascript", "golang", "kotlin", "swift", "sql", "postgres", "sqlite",
    "redis", "kafka", "docker", "kubernetes", "linux", "windows", "macos", "laptop", "phone",
    "editor", "vim", "emacs", "vscode", "terminal", "shell", "git", "github", "gitlab", "pipeline",
    "cache", "latency", "throughput", "memory", "cpu", "disk", "network", "timeout", "retry",
    "error", "warning", "crash", "panic", "log", "metrics", "dashboard", "alert", "incident",
    "oncall", "rollback", "migration", "schema", "index", "query", "table", "column", "backup",
    "restore", "encryption", "token", "password", "secret", "permission", "access", "login",
    "account", "invoice", "payment", "contract", "vendor", "partner", "manager", "engineer",
    "designer", "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan",
    "judy", "mallory", "oscar", "peggy", "trent", "victor", "walter", "london", "paris",
    "berlin", "lisbon", "tokyo", "beijing", "shanghai", "singapore", "toronto", "seattle",
    "office", "remote", "home", "green", "blue", "red", "short", "long", "fast", "slow",
    "simple", "clear", "concise", "detailed", "formal", "casual", "answers", "summary",
    "lines", "bullet", "points", "format", "markdown", "tables", "examples", "comments",
    "documentation", "style", "naming", "functions", "modules", "parser", "compiler",
    "refactor", "rewrite", "upgrade", "version", "dependency", "library", "framework", "api",
    "endpoint", "request", "response", "json", "yaml", "toml", "csv", "export", "import",
    "upload", "download", "sync", "async", "thread", "lock", "queue", "worker", "job", "cron",
    "daily", "weekly", "monthly", "approved", "rejected", "pending", "blocked", "done",
    "started", "finished", "moved", "changed", "decided", "agreed", "asked", "told", "said",
    "promised", "booked", "cancelled", "delayed", "prefer", "avoid", "use", "keep", "send",
    "call", "email", "message", "chat", "slack", "discord", "calendar", "reminder", "invite",
    "agenda", "minutes", "notes", "draft", "proposal", "design", "architecture", "diagram",
    "prototype", "demo", "launch", "beta", "feedback", "survey", "interview", "hiring",
    "salary", "vacation", "holiday", "sick", "leave", "garden", "plants", "dog", "cat",
    "walk", "bike", "car", "parking", "rent", "apartment", "kitchen", "recipe", "pasta",
    "rice", "noodles", "spicy", "sweet", "wine", "beer", "water", "sleep", "early", "late",
    "night", "weekend", "timezone", "utc", "pacific", "eastern", "language", "english",
    "chinese", "spanish", "french", "german", "japanese", "translation", "accent", "quiet",
    "noise", "headphones", "monitor", "keyboard", "mouse", "chair", "desk", "window", "light",
    "dark", "theme", "font", "size", "width", "mobile", "desktop", "browser", "firefox",
    "chrome", "safari", "extension", "plugin", "model", "prompt", "context", "embedding",
    "vector", "search", "ranking", "score", "recall", "precision", "benchmark", "profile",
];

/// Common Chinese words (2 to 4 characters), by rough frequency.
#[rustfmt::skip]
pub const CHINESE_WORDS: &[&str] = &[
    "用户", "我们", "需要", "已经", "项目", "数据", "会议", "周五", "下午", "上午", "明天",
    "偏好", "分析", "部署", "测试", "服务器", "数据库", "系统", "问题", "记得", "喜欢", "使用",
    "处理", "完成", "计划", "时间", "客户", "团队", "经理", "工程师", "报告", "预算", "版本",
    "发布", "代码", "审查", "修复", "错误", "日志", "监控", "告警", "性能", "延迟", "缓存",
    "配置", "文件", "接口", "请求", "响应", "网络", "安全", "密码", "权限", "账户", "登录",
    "备份", "恢复", "迁移", "升级", "依赖", "框架", "模型", "训练", "推理", "向量", "检索",
    "搜索", "排序", "文档", "设计", "架构", "原型", "演示", "反馈", "调查", "面试", "招聘",
    "工资", "假期", "出差", "航班", "酒店", "火车", "机场", "护照", "家人", "女儿", "儿子",
    "生日", "礼物", "医生", "预约", "过敏", "花生", "咖啡", "绿茶", "午饭", "晚饭", "早餐",
    "运动", "跑步", "音乐", "电影", "小说", "北京", "上海", "深圳", "杭州", "周一", "周二",
    "周三", "周四", "周末", "每天", "每周", "每月", "季度", "截止日期", "数据分析",
    "机器学习", "人工智能", "用户体验", "产品经理", "项目管理", "代码审查", "持续集成",
    "自动化", "可观测性", "负载均衡", "微服务",
];

/// English words mixed into Chinese sentences.
const MIXED_ENGLISH: &[&str] = &[
    "Python",
    "Rust",
    "SQL",
    "Docker",
    "Kubernetes",
    "API",
    "GitHub",
    "Slack",
    "Redis",
];

/// Syllables of the synthetic words.
#[rustfmt::skip]
const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ra", "ten", "vor", "sil", "qua", "den", "bri", "tho", "mar", "zel",
    "pin", "cor", "fal", "gru", "hex", "jun", "lum", "nav", "orb", "pex", "rin", "sta",
    "tor", "ul", "ven", "wex", "yor",
];

/// A SplitMix64 step.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A deterministic stream of numbers for one document or query.
struct Rng(u64);

impl Rng {
    fn new(seed: u64, stream: u64, index: u64) -> Self {
        let mut state = seed ^ stream.wrapping_mul(0xa076_1d64_78bd_642f);
        state ^= index.wrapping_mul(0xd6e8_feb8_6659_fd93);
        splitmix64(&mut state);
        Self(state)
    }

    fn next(&mut self) -> u64 {
        splitmix64(&mut self.0)
    }

    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// A rank in `0..n` with weight about `1 / (rank + offset)` (a Zipf
    /// law flattened at the head by `offset >= 1`): `rank + offset` is
    /// log-uniform in `offset..n + offset`.
    fn zipf(&mut self, n: usize, offset: usize) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        let (lo, hi) = (offset as f64, (n + offset) as f64);
        let x = (lo.ln() + (hi.ln() - lo.ln()) * u).exp() as usize;
        x.saturating_sub(offset).min(n - 1)
    }
}

/// The English vocabulary, most frequent first: [`FUNCTION_WORDS`], the
/// curated words, then synthetic words of 2 or 3 syllables up to
/// [`ENGLISH_VOCABULARY`] words, without repeats.
#[must_use]
pub fn english_vocabulary() -> Vec<String> {
    let mut words: Vec<String> = Vec::with_capacity(ENGLISH_VOCABULARY);
    let mut seen = std::collections::HashSet::new();
    for word in FUNCTION_WORDS.iter().chain(CONTENT_WORDS) {
        if seen.insert((*word).to_owned()) {
            words.push((*word).to_owned());
        }
    }
    let mut rng = Rng::new(RECALL_SEED, 0, 0);
    while words.len() < ENGLISH_VOCABULARY {
        let syllables = rng.between(2, 3);
        let word: String = (0..syllables)
            .map(|_| SYLLABLES[rng.below(SYLLABLES.len())])
            .collect();
        if seen.insert(word.clone()) {
            words.push(word);
        }
    }
    words
}

/// The vocabularies the corpus and the queries draw from.
#[derive(Debug, Clone)]
pub struct Vocabulary {
    english: Vec<String>,
    /// Ranks of the English words past the function words that are not
    /// stopwords, in rank order.
    content: Vec<usize>,
    /// Rank of each English word.
    rank: HashMap<String, usize>,
}

impl Default for Vocabulary {
    fn default() -> Self {
        Self::new()
    }
}

impl Vocabulary {
    /// The fixed vocabularies.
    #[must_use]
    pub fn new() -> Self {
        let english = english_vocabulary();
        let content = (FUNCTION_WORDS.len()..english.len())
            .filter(|&i| !is_stopword(&english[i]))
            .collect();
        let rank = english
            .iter()
            .enumerate()
            .map(|(i, w)| (w.clone(), i))
            .collect();
        Self {
            english,
            content,
            rank,
        }
    }

    fn english_word(&self, rng: &mut Rng) -> &str {
        &self.english[rng.zipf(self.english.len(), ENGLISH_ZIPF_OFFSET)]
    }

    /// A query word: a curated or synthetic word, never a function word.
    fn content_word(&self, rng: &mut Rng) -> &str {
        &self.english[self.content[rng.zipf(self.content.len(), ENGLISH_ZIPF_OFFSET)]]
    }

    fn chinese_word(rng: &mut Rng) -> &'static str {
        CHINESE_WORDS[rng.zipf(CHINESE_WORDS.len(), CHINESE_ZIPF_OFFSET)]
    }

    /// Memory `index`'s words: an English or (one in five) Chinese sentence
    /// of 8 to 30 words.
    #[must_use]
    pub fn memory_text(&self, seed: u64, index: u64) -> String {
        let mut rng = Rng::new(seed, 1, index);
        let words = rng.between(8, 30);
        let mut text = String::with_capacity(words * 8);
        if rng.below(5) == 0 {
            let mut since_comma = 0;
            for i in 0..words {
                if rng.below(12) == 0 {
                    text.push(' ');
                    text.push_str(MIXED_ENGLISH[rng.below(MIXED_ENGLISH.len())]);
                    text.push(' ');
                } else {
                    text.push_str(Self::chinese_word(&mut rng));
                }
                since_comma += 1;
                if i + 1 < words && since_comma >= 4 && rng.below(3) == 0 {
                    text.push('，');
                    since_comma = 0;
                }
            }
            text.push('。');
        } else {
            for i in 0..words {
                let word = self.english_word(&mut rng);
                if i == 0 {
                    let mut chars = word.chars();
                    if let Some(first) = chars.next() {
                        text.extend(first.to_uppercase());
                        text.push_str(chars.as_str());
                    }
                } else {
                    text.push(' ');
                    text.push_str(word);
                }
            }
            text.push('.');
        }
        text
    }

    /// Query `index`: 2 to 4 words, English (70%), Chinese run together
    /// (20%) or mixed (10%). Drawn again until [`fts5_match`] keeps a term.
    #[must_use]
    pub fn query(&self, seed: u64, index: u64) -> String {
        let mut rng = Rng::new(seed, 2, index);
        loop {
            let words = rng.between(2, 4);
            let roll = rng.below(10);
            let mut query = String::new();
            match roll {
                0..7 => {
                    let mut chosen: Vec<&str> = Vec::new();
                    while chosen.len() < words {
                        let word = self.content_word(&mut rng);
                        if !chosen.contains(&word) {
                            chosen.push(word);
                        }
                    }
                    query = chosen.join(" ");
                }
                7..9 => {
                    for _ in 0..words {
                        query.push_str(Self::chinese_word(&mut rng));
                    }
                }
                _ => {
                    let english = rng.between(1, 2);
                    for _ in 0..english {
                        query.push_str(self.content_word(&mut rng));
                        query.push(' ');
                    }
                    for _ in 0..2 {
                        query.push_str(Self::chinese_word(&mut rng));
                    }
                }
            }
            if fts5_match(&query).is_some() {
                return query;
            }
        }
    }

    /// A query that must find memory text `text`: its three rarest English
    /// words, or for a Chinese text its first 16 Chinese characters (about
    /// seven words: a few common words alone would match shorter memories
    /// better).
    #[must_use]
    pub fn known_query(&self, text: &str) -> String {
        let chinese: String = text.chars().filter(|&c| is_cjk(c)).take(16).collect();
        if chinese.chars().count() >= 3 {
            return chinese;
        }
        let mut words: Vec<(usize, String)> = text
            .split(|c: char| !c.is_alphanumeric())
            .map(str::to_lowercase)
            .filter(|w| w.chars().count() >= 3 && !is_stopword(w))
            .map(|w| (self.rank.get(&w).copied().unwrap_or(0), w))
            .collect();
        words.sort_unstable_by(|a, b| b.cmp(a));
        words.dedup();
        words
            .into_iter()
            .take(3)
            .map(|(_, w)| w)
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Memory texts `0..n` of the corpus seeded by `seed`.
#[must_use]
pub fn memory_texts(vocabulary: &Vocabulary, seed: u64, n: usize) -> Vec<String> {
    (0..n as u64)
        .map(|i| vocabulary.memory_text(seed, i))
        .collect()
}

/// Queries `0..n` seeded by `seed`.
#[must_use]
pub fn queries(vocabulary: &Vocabulary, seed: u64, n: usize) -> Vec<String> {
    (0..n as u64).map(|i| vocabulary.query(seed, i)).collect()
}

/// Memory `index` of the corpus seeded by `seed` (see [`Vocabulary::memory_text`]).
#[must_use]
pub fn memory_text(seed: u64, index: u64) -> String {
    Vocabulary::new().memory_text(seed, index)
}

/// Whether `c` is written in a CJK script (no spaces between words).
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30ff}'
        | '\u{3400}'..='\u{4dbf}'
        | '\u{4e00}'..='\u{9fff}'
        | '\u{f900}'..='\u{faff}'
        | '\u{ac00}'..='\u{d7af}')
}

/// The English stopwords engram dropped from queries until 2026-12-01:
/// [`fts5_match`] keeps them so [`queries`] draws the query set earlier
/// runs measured.
#[rustfmt::skip]
const TRIGRAM_STOPWORDS: &[&str] = &[
    "a", "about", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did",
    "do", "does", "for", "from", "had", "has", "have", "how", "if", "in", "into", "is", "it",
    "its", "of", "on", "or", "should", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "were", "what", "when", "where", "which", "who", "whom", "why",
    "will", "with", "would",
];

fn is_stopword(word: &str) -> bool {
    TRIGRAM_STOPWORDS.binary_search(&word).is_ok()
}

/// The FTS5 `MATCH` expression of `query` for the trigram tokenizer: an OR
/// of quoted strings, one per word of 3 or more characters that is not a
/// stopword, and one per 3-character window of each CJK run. Words shorter
/// than 3 characters and CJK runs of 2 characters are skipped (a trigram
/// index cannot look them up). `None` when nothing is left.
#[must_use]
pub fn fts5_match(query: &str) -> Option<String> {
    let mut terms: Vec<String> = Vec::new();
    let mut push = |term: String| {
        if !terms.contains(&term) {
            terms.push(term);
        }
    };
    let mut word = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let mut flush = |word: &mut String, cjk: &mut Vec<char>| {
        if word.chars().count() >= 3 && !is_stopword(word) {
            push(std::mem::take(word));
        }
        word.clear();
        for window in cjk.windows(3) {
            push(window.iter().collect());
        }
        cjk.clear();
    };
    for c in query.chars() {
        if is_cjk(c) {
            if !word.is_empty() {
                flush(&mut word, &mut Vec::new());
            }
            cjk.push(c);
        } else if c.is_alphanumeric() {
            if !cjk.is_empty() {
                flush(&mut String::new(), &mut cjk);
            }
            word.extend(c.to_lowercase());
        } else {
            flush(&mut word, &mut cjk);
        }
    }
    flush(&mut word, &mut cjk);
    if terms.is_empty() {
        return None;
    }
    Some(
        terms
            .iter()
            .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(" OR "),
    )
}

/// An engram store holding one memory per text, in a temporary folder.
pub struct EngramRecall {
    engram: Engram,
    /// Memory id of each text, in text order.
    pub ids: Vec<MemoryId>,
    /// Time to append every memory and have the views apply it.
    pub build: Duration,
    _dir: TempDir,
}

impl EngramRecall {
    /// A fresh store holding `texts`, [`MEMORIES_PER_BATCH`] per append.
    pub fn build(texts: &[String]) -> Result<Self> {
        Self::build_with_vectors(texts, None)
    }

    /// As [`EngramRecall::build`]; with `Some((model, dimension))` each
    /// `Remembered` carries memory `i`'s [`synthetic_embedding`] under
    /// `model`.
    pub fn build_with_vectors(texts: &[String], vectors: Option<(&str, usize)>) -> Result<Self> {
        Self::build_with(texts, vectors, true)
    }

    /// As [`EngramRecall::build_with_vectors`], its words sealed (a new
    /// store's default) or in the clear.
    pub fn build_with(
        texts: &[String],
        vectors: Option<(&str, usize)>,
        sealed: bool,
    ) -> Result<Self> {
        let dir = tempfile::tempdir().context("temporary folder for the engram store")?;
        let options = StoreOptions {
            key: KeySource::Hex(RECALL_KEY_HEX.to_owned()),
            durability: Durability::None,
            segment_bytes_max: engram_log::limits::SEGMENT_BYTES_DEFAULT,
            shared_log: None,
            master_key: engram_log::MasterKeySource::StoreFile,
            seal_new_stores: sealed,
        };
        let key = HmacKey::from_hex(RECALL_KEY_HEX, "recall benchmark")?;
        let started = Instant::now();
        let engram = Engram::open(Store::at(dir.path().join("store")), &options)?;
        let mut ids = Vec::with_capacity(texts.len());
        let mut next = engram.log().last_seq() + 1;
        for (chunk_at, chunk) in texts.chunks(MEMORIES_PER_BATCH).enumerate() {
            let mut events = Vec::with_capacity(2 * chunk.len());
            for (i, text) in chunk.iter().enumerate() {
                let turn_index = chunk_at * MEMORIES_PER_BATCH + i;
                let turn = Event::Session(SessionEvent {
                    session: SESSION.to_owned(),
                    turn: u32::try_from(turn_index)?,
                    role: Role::User,
                    content: text.clone(),
                });
                let reference = MemoryRef {
                    session: SESSION.to_owned(),
                    first_seq: next,
                    last_seq: next,
                };
                let hash = engram_log::seal::content_sha256(std::iter::once(&turn))?;
                let mut memory = remembered(&key, reference, hash, MemoryMeta::default());
                memory.embedding = vectors.map(|(model, dimension)| {
                    synthetic_embedding(model, RECALL_SEED, turn_index as u64, dimension)
                });
                events.push(turn);
                events.push(Event::Remembered(memory));
                ids.push(next + 1);
                next += 2;
            }
            ensure!(
                events.len() <= engram_log::limits::BATCH_EVENTS_MAX,
                "batch of {} events",
                events.len()
            );
            let appended = engram.append(&events)?;
            ensure!(
                appended.last_seq == next - 1,
                "engram gave seqs up to {}, expected {}: another writer?",
                appended.last_seq,
                next - 1
            );
        }
        let build = started.elapsed();
        let live = engram.core().text_index.read().state.live_count();
        ensure!(
            live == texts.len() as u64,
            "the text index holds {live} memories, expected {}",
            texts.len()
        );
        if let Some((model, _)) = vectors {
            let held = engram.core().vectors.read().state.len(model);
            ensure!(
                held == texts.len(),
                "the vector index holds {held} vectors of {model}, expected {}",
                texts.len()
            );
        }
        Ok(Self {
            engram,
            ids,
            build,
            _dir: dir,
        })
    }

    /// The best [`RECALL_HITS`] memories for `query`.
    #[must_use]
    pub fn recall(&self, query: &str) -> Vec<Hit> {
        engram_queries::recall(
            self.engram.core(),
            &RecallQuery {
                limit: RECALL_HITS,
                ..RecallQuery::new(query)
            },
        )
        .unwrap_or_else(|e| panic!("recall on the bench store: {e}"))
    }

    /// Whether the store's words are sealed.
    #[must_use]
    pub fn is_sealed(&self) -> bool {
        self.engram.store().is_sealed()
    }

    /// The best [`RECALL_HITS`] memories for `query` as a user's recall
    /// runs it ([`Engram::recall`]): the same read, then a `Recalled` event
    /// (the query, sealed in a sealed store) appended.
    pub fn recall_recorded(&self, query: &str) -> Result<Vec<Hit>> {
        Ok(self.engram.recall(&RecallQuery {
            limit: RECALL_HITS,
            ..RecallQuery::new(query)
        })?)
    }

    /// The best [`RECALL_HITS`] memories for `query` with query vector
    /// `vector` ([`engram_queries::recall_with`]: hybrid when the store
    /// holds vectors of its model and dimension), and the mode that ran.
    #[must_use]
    pub fn recall_with(&self, query: &str, vector: &QueryVector) -> (Vec<Hit>, RecallMode) {
        engram_queries::recall_with(
            self.engram.core(),
            &RecallQuery {
                limit: RECALL_HITS,
                ..RecallQuery::new(query)
            },
            Some(vector),
        )
        .unwrap_or_else(|e| panic!("recall on the bench store: {e}"))
    }

    /// The same store with `embedder` attached ([`Engram::with_embedder`]):
    /// [`Engram::recall`] then embeds each query and runs hybrid.
    #[must_use]
    pub fn with_embedder(self, embedder: Arc<dyn Embedder>) -> Self {
        Self {
            engram: self.engram.with_embedder(embedder),
            ..self
        }
    }

    /// The engine.
    #[must_use]
    pub fn engram(&self) -> &Engram {
        &self.engram
    }
}

pub use crate::fts5::FtsHit;

/// SQLite FTS5 holding the same texts under the same ids: the peer of
/// [`crate::fts5`] (`porter unicode61` with a stoplist, trigram for CJK) in
/// a database file read from memory.
pub struct Fts5Recall {
    peer: Fts5Peer,
    /// Time to insert every row and merge the indexes.
    pub build: Duration,
    dir: TempDir,
}

impl Fts5Recall {
    /// A fresh database holding `texts` under `ids`.
    pub fn build(texts: &[String], ids: &[MemoryId]) -> Result<Self> {
        let dir = tempfile::tempdir().context("temporary folder for the SQLite database")?;
        let conn = Self::open(&dir.path().join("fts5.sqlite"))?;
        let peer = Fts5Peer::build(conn, texts, ids, MEMORIES_PER_BATCH)?;
        Ok(Self {
            build: peer.build,
            peer,
            dir,
        })
    }

    fn open(path: &Path) -> Result<rusqlite::Connection> {
        let conn = rusqlite::Connection::open(path)?;
        let journal: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        ensure!(journal == "wal", "SQLite refused WAL mode: {journal}");
        conn.pragma_update(None, "synchronous", "OFF")?;
        conn.pragma_update(None, "cache_size", -1_048_576)?;
        conn.pragma_update(None, "mmap_size", 1_i64 << 30)?;
        Ok(conn)
    }

    /// The best [`RECALL_HITS`] rows for `query` ([`Fts5Peer::search`]).
    pub fn recall(&self, query: &str) -> Result<Vec<FtsHit>> {
        self.peer.search(query, RECALL_HITS)
    }

    /// Bytes of the database file and its WAL.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        let path = self.dir.path().join("fts5.sqlite");
        ["", "-wal"]
            .iter()
            .filter_map(|suffix| {
                let mut p = path.clone().into_os_string();
                p.push(suffix);
                std::fs::metadata(p).ok().map(|m| m.len())
            })
            .sum()
    }
}

/// Both engines over the same `n` memories, and the queries.
pub struct RecallBench {
    pub n: usize,
    pub texts: Vec<String>,
    pub queries: Vec<String>,
    pub engram: EngramRecall,
    pub fts5: Fts5Recall,
    vocabulary: Vocabulary,
}

impl RecallBench {
    /// Builds both stores over `n_memories` memories and draws `n_queries`
    /// queries, then runs [`RecallBench::check`].
    pub fn build(n_memories: usize, n_queries: usize) -> Result<Self> {
        let vocabulary = Vocabulary::new();
        let texts = memory_texts(&vocabulary, RECALL_SEED, n_memories);
        let queries = queries(&vocabulary, RECALL_SEED, n_queries);
        let engram = EngramRecall::build(&texts)?;
        let fts5 = Fts5Recall::build(&texts, &engram.ids)?;
        let bench = Self {
            n: n_memories,
            texts,
            queries,
            engram,
            fts5,
            vocabulary,
        };
        bench.check()?;
        Ok(bench)
    }

    /// Each engine finds known memories: for a few memories spread over the
    /// corpus (one Chinese among them), a query of their rarest words must
    /// give at least one hit in both engines and that memory among engram's
    /// hits. Fails loudly otherwise (a broken index or id mapping).
    pub fn check(&self) -> Result<()> {
        let n = self.texts.len();
        ensure!(n > 0, "no memories");
        let mut known: Vec<usize> = vec![0, n / 7, n / 3, n / 2, n - 1];
        if let Some(chinese) = self.texts.iter().position(|t| t.chars().any(is_cjk)) {
            known.push(chinese);
        }
        for index in known {
            let query = self.vocabulary.known_query(&self.texts[index]);
            let id = self.engram.ids[index];
            let hits = self.engram.recall(&query);
            ensure!(
                !hits.is_empty(),
                "engram recalled nothing for {query:?}, built from memory {id} ({:?}): the text index is broken",
                self.texts[index]
            );
            ensure!(
                hits.iter().any(|h| h.id == id),
                "engram did not recall memory {id} ({:?}) for {query:?}: got {:?}",
                self.texts[index],
                hits.iter().map(|h| (h.id, &h.text)).collect::<Vec<_>>()
            );
            ensure!(
                hits.iter().all(|h| !h.text.is_empty()),
                "engram recalled a hit without text for {query:?}"
            );
            let fts = self.fts5.recall(&query)?;
            ensure!(
                !fts.is_empty(),
                "FTS5 recalled nothing for {query:?} ({:?}), built from memory {id} ({:?})",
                fts5_match(&query),
                self.texts[index]
            );
        }
        Ok(())
    }

    /// Times `executions` recalls per engine one by one after one warm-up
    /// pass over every query, and describes the latency percentiles and the
    /// hits. The engines take turns by passes over the queries (one pass of
    /// engram, one of FTS5, ...), so machine noise falls on both while each
    /// runs warm, as under criterion. (Alternating query by query, each
    /// engine evicts the other's data from the caches: at 10k memories that
    /// made engram's individually timed recalls about 2.5 times slower than
    /// under criterion.)
    pub fn report(&self, executions: usize) -> Result<String> {
        ensure!(!self.queries.is_empty(), "no queries");
        let mut with_hits = [0usize; 2];
        let mut overlap = 0usize;
        let mut engram_hits = 0usize;
        let mut fts_hits = 0usize;
        for query in &self.queries {
            let a = self.engram.recall(query);
            let b = self.fts5.recall(query)?;
            with_hits[0] += usize::from(!a.is_empty());
            with_hits[1] += usize::from(!b.is_empty());
            engram_hits += a.len();
            fts_hits += b.len();
            overlap += a.iter().filter(|h| b.iter().any(|f| f.id == h.id)).count();
        }
        let mut engram_times = Vec::with_capacity(executions);
        let mut fts_times = Vec::with_capacity(executions);
        while engram_times.len() < executions {
            let pass = (executions - engram_times.len()).min(self.queries.len());
            for query in &self.queries[..pass] {
                let started = Instant::now();
                black_box(self.engram.recall(black_box(query)));
                engram_times.push(started.elapsed());
            }
            for query in &self.queries[..pass] {
                let started = Instant::now();
                black_box(self.fts5.recall(black_box(query))?);
                fts_times.push(started.elapsed());
            }
        }
        engram_times.sort_unstable();
        fts_times.sort_unstable();
        let mut out = String::new();
        writeln!(
            out,
            "recall report, {} memories, {} queries, {executions} timed recalls per engine, limit {RECALL_HITS}",
            self.n,
            self.queries.len()
        )?;
        writeln!(
            out,
            "  build: engram {:.2} s (append + views), fts5 {:.2} s (insert + optimize, {:.1} MB)",
            self.engram.build.as_secs_f64(),
            self.fts5.build.as_secs_f64(),
            self.fts5.bytes() as f64 / 1e6
        )?;
        for (name, times) in [("engram", &engram_times), ("fts5", &fts_times)] {
            let [p50, p90, p99, max, mean] = latency_figures_us(times);
            writeln!(
                out,
                "  {name:<6}: p50 {:8.1} us  p90 {:8.1} us  p99 {:8.1} us  max {:8.1} us  mean {:8.1} us",
                p50, p90, p99, max, mean,
            )?;
        }
        let ratio = |p| us(percentile(&engram_times, p)) / us(percentile(&fts_times, p)).max(1e-9);
        writeln!(
            out,
            "  engram/fts5: p50 {:.3}, p99 {:.3}",
            ratio(0.50),
            ratio(0.99)
        )?;
        writeln!(
            out,
            "  hits: queries with a hit engram {}/{q}, fts5 {}/{q}; hits returned engram {engram_hits}, fts5 {fts_hits}; engram hits also in fts5's top {RECALL_HITS}: {overlap} ({:.0}%)",
            with_hits[0],
            with_hits[1],
            100.0 * overlap as f64 / engram_hits.max(1) as f64,
            q = self.queries.len(),
        )?;
        Ok(out)
    }
}

/// The value at quantile `p` of sorted `sorted` (nearest rank).
#[must_use]
/// A duration in microseconds.
fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// p50, p90, p99, max and mean of `sorted` latencies, in microseconds.
fn latency_figures_us(sorted: &[Duration]) -> [f64; 5] {
    [
        us(percentile(sorted, 0.50)),
        us(percentile(sorted, 0.90)),
        us(percentile(sorted, 0.99)),
        us(sorted.last().copied().unwrap_or_default()),
        us(sorted.iter().sum::<Duration>()) / sorted.len().max(1) as f64,
    ]
}

pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((sorted.len().saturating_sub(1)) as f64 * p).round() as usize;
    sorted.get(rank).copied().unwrap_or_default()
}

/// Builds both engines over `n_memories` memories, draws `n_queries`
/// queries, checks both find known memories, warms every query once, then
/// times 2000 recalls per engine one by one ([`RecallBench::report`]) and
/// returns p50/p99/max for each and the engram/FTS5 ratio.
pub fn latency_report(n_memories: usize, n_queries: usize) -> Result<String> {
    RecallBench::build(n_memories, n_queries)?.report(2000)
}

/// Dimension of the synthetic memory vectors when no model says otherwise
/// (all-MiniLM-L6-v2's).
pub const HYBRID_DIMENSION: usize = 384;

/// Memory `index`'s synthetic vector: `dimension` components, each a
/// standard normal draw (Box-Muller over the corpus's [`Rng`], stream 3),
/// L2-normalised, so the vectors are spread evenly over the unit sphere.
#[must_use]
pub fn synthetic_vector(seed: u64, index: u64, dimension: usize) -> Vec<f32> {
    let mut rng = Rng::new(seed, 3, index);
    let mut uniform = || ((rng.next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    let mut v: Vec<f32> = Vec::with_capacity(dimension + 1);
    while v.len() < dimension {
        let (u1, u2) = (uniform(), uniform());
        let r = (-2.0 * u1.ln()).sqrt();
        let theta = std::f64::consts::TAU * u2;
        v.push((r * theta.cos()) as f32);
        v.push((r * theta.sin()) as f32);
    }
    v.truncate(dimension);
    let norm = v
        .iter()
        .map(|x| x * x)
        .sum::<f32>()
        .sqrt()
        .max(f32::MIN_POSITIVE);
    v.iter_mut().for_each(|x| *x /= norm);
    v
}

/// Memory `index`'s synthetic vector as the log records it: int8 by
/// [`engram_embed::quantize`], under `model`.
#[must_use]
pub fn synthetic_embedding(model: &str, seed: u64, index: u64, dimension: usize) -> Embedding {
    let q = engram_embed::quantize(&synthetic_vector(seed, index, dimension));
    Embedding {
        model: model.to_owned(),
        scale: q.scale,
        values: q.values,
    }
}

/// A store whose memories carry vectors, for hybrid recall (BM25 and
/// vectors fused by reciprocal rank).
///
/// **Memories.** The keyword benchmark's texts, each `Remembered` carrying
/// the synthetic unit vector [`synthetic_embedding`] of its index under the
/// query model's id and dimension: running the model over 100k memories
/// would take minutes (several ms each), and the vector index's cost does
/// not depend on what the vectors mean.
///
/// **Queries.** The keyword benchmark's queries. Their vectors come from
/// the real model when one is given ([`HybridBench::build`]), computed once
/// up front for the index-only path; [`HybridBench::recall`] embeds the
/// query again each time, as [`Engram::recall`] does.
///
/// Two paths are timed:
///
/// - **full**, [`HybridBench::recall`]: [`Engram::recall`] with the model
///   attached, limit 5. It embeds the query with the model, runs
///   [`engram_queries::recall_with`] and appends a `Recalled` event (no
///   fsync: `Durability::None`) that every view applies before it returns.
///   That append is part of what engram's recall costs.
/// - **index**, [`HybridBench::recall_index`]: [`engram_queries::recall_with`]
///   with the precomputed query vector: BM25, the exact int8 vector scan,
///   the fusion and the hits, without the model and without the append.
pub struct HybridBench {
    pub n: usize,
    pub queries: Vec<String>,
    /// Each query's vector under [`HybridBench::model`].
    pub query_vectors: Vec<QueryVector>,
    pub engram: EngramRecall,
    /// The model id the memory vectors are recorded under.
    pub model: String,
    pub dimension: usize,
    texts: Vec<String>,
    vocabulary: Vocabulary,
    embedder: Option<Arc<dyn Embedder>>,
}

impl HybridBench {
    /// A store of `n_memories` memories with synthetic vectors of
    /// `embedder`'s id and dimension, `n_queries` queries embedded by
    /// `embedder`, the model attached to the engine. Runs
    /// [`HybridBench::check`]. The queries are the first `n_queries` of the
    /// recall benchmark's that the model reads ([`model_reads`]): recall
    /// runs a query in a script the model was not trained on (Chinese for
    /// an English model) in keyword mode, which is not what is timed here.
    pub fn build(n_memories: usize, n_queries: usize, embedder: Arc<dyn Embedder>) -> Result<Self> {
        let vocabulary = Vocabulary::new();
        let model = embedder.model_id().to_owned();
        let queries: Vec<String> = (0..n_queries as u64 * 20)
            .map(|i| vocabulary.query(RECALL_SEED, i))
            .filter(|q| model_reads(&model, q))
            .take(n_queries)
            .collect();
        ensure!(
            queries.len() == n_queries,
            "only {} of the recall benchmark's queries are read by {model}",
            queries.len()
        );
        let texts: Vec<&str> = queries.iter().map(String::as_str).collect();
        let query_vectors = embedder
            .embed(&texts)
            .context("embedding the queries")?
            .into_iter()
            .map(|values| QueryVector {
                model: model.clone(),
                values,
            })
            .collect();
        Self::assemble(
            vocabulary,
            n_memories,
            queries,
            query_vectors,
            &model,
            embedder.dimension(),
            Some(embedder),
        )
    }

    /// As [`HybridBench::build`] without a model: memory and query vectors
    /// are all synthetic, under `model`. Only the index path runs
    /// ([`HybridBench::recall`] fails).
    pub fn synthetic(
        n_memories: usize,
        n_queries: usize,
        model: &str,
        dimension: usize,
    ) -> Result<Self> {
        let vocabulary = Vocabulary::new();
        let queries = queries(&vocabulary, RECALL_SEED, n_queries);
        let query_vectors = (0..n_queries as u64)
            .map(|i| QueryVector {
                model: model.to_owned(),
                values: synthetic_vector(RECALL_SEED ^ 0x5eed, i, dimension),
            })
            .collect();
        Self::assemble(
            vocabulary,
            n_memories,
            queries,
            query_vectors,
            model,
            dimension,
            None,
        )
    }

    fn assemble(
        vocabulary: Vocabulary,
        n_memories: usize,
        queries: Vec<String>,
        query_vectors: Vec<QueryVector>,
        model: &str,
        dimension: usize,
        embedder: Option<Arc<dyn Embedder>>,
    ) -> Result<Self> {
        let texts = memory_texts(&vocabulary, RECALL_SEED, n_memories);
        let mut engram = EngramRecall::build_with_vectors(&texts, Some((model, dimension)))?;
        if let Some(embedder) = &embedder {
            engram = engram.with_embedder(Arc::clone(embedder));
        }
        let bench = Self {
            n: n_memories,
            queries,
            query_vectors,
            engram,
            model: model.to_owned(),
            dimension,
            texts,
            vocabulary,
            embedder,
        };
        bench.check()?;
        Ok(bench)
    }

    /// The store recalls in hybrid mode and finds known memories: for a
    /// few memories, their keyword query with their own vector as the
    /// query vector must put them among the index path's hits; with a model
    /// attached, a full recall must run in hybrid mode. Fails loudly
    /// otherwise.
    pub fn check(&self) -> Result<()> {
        let n = self.texts.len();
        ensure!(n > 0 && !self.queries.is_empty(), "no memories or queries");
        let vectors = self
            .engram
            .engram()
            .core()
            .vectors
            .read()
            .state
            .len(&self.model);
        ensure!(
            vectors == n,
            "the vector index holds {vectors} vectors of {}, expected {n}",
            self.model
        );
        for index in [0, n / 3, n - 1] {
            let query = self.vocabulary.known_query(&self.texts[index]);
            let vector = QueryVector {
                model: self.model.clone(),
                values: synthetic_vector(RECALL_SEED, index as u64, self.dimension),
            };
            let (hits, mode) = self.engram.recall_with(&query, &vector);
            ensure!(
                mode == RecallMode::Hybrid || !engram_queries::model_reads(&self.model, &query),
                "recall ran in {} mode with a query vector of {}",
                mode.as_str(),
                self.model
            );
            let id = self.engram.ids[index];
            ensure!(
                hits.iter().any(|h| h.id == id),
                "hybrid recall did not find memory {id} from its words and its own vector: got {:?}",
                hits.iter().map(|h| h.id).collect::<Vec<_>>()
            );
        }
        let (_, mode) = self.recall_index(0);
        ensure!(
            mode == RecallMode::Hybrid,
            "recall of a model query vector ran in {} mode",
            mode.as_str()
        );
        if self.embedder.is_some() {
            self.recall(0)?;
        }
        Ok(())
    }

    /// Full recall of query `i` (modulo the query count) through
    /// [`Engram::recall`]: query embedding, hybrid recall, `Recalled`
    /// append. Fails unless a model is attached and the recall ran hybrid.
    pub fn recall(&self, i: usize) -> Result<Vec<Hit>> {
        ensure!(self.embedder.is_some(), "no model attached");
        let engram = self.engram.engram();
        let hits = engram.recall(&RecallQuery {
            limit: RECALL_HITS,
            ..RecallQuery::new(&self.queries[i % self.queries.len()])
        })?;
        ensure!(
            engram.last_recall_mode() == RecallMode::Hybrid,
            "Engram::recall ran in {} mode, not hybrid",
            engram.last_recall_mode().as_str()
        );
        Ok(hits)
    }

    /// Hybrid recall of query `i` (modulo the query count) with its
    /// precomputed vector: [`engram_queries::recall_with`], no model, no
    /// append.
    #[must_use]
    pub fn recall_index(&self, i: usize) -> (Vec<Hit>, RecallMode) {
        let i = i % self.queries.len();
        self.engram
            .recall_with(&self.queries[i], &self.query_vectors[i])
    }

    /// Times, one by one after a warm-up pass over every query, `executions`
    /// recalls of each: the index path, the keyword-only recall on the same
    /// store, the vector scan alone (`VectorSearch::nearest`, depth 20, no
    /// filter), and with a model the query embedding alone and the full
    /// recall. Kinds take turns by passes over the queries. Describes their
    /// percentiles.
    pub fn report(&self, executions: usize) -> Result<String> {
        ensure!(!self.queries.is_empty(), "no queries");
        let core = self.engram.engram().core();
        let depth = RECALL_HITS * engram_queries::recall::FUSION_DEPTH;
        let q = self.queries.len();
        let mut kinds: Vec<(&str, Vec<Duration>)> = vec![
            ("hybrid index (precomputed vector)", Vec::new()),
            ("keyword only (same store)", Vec::new()),
            ("vector scan only (nearest, depth 20)", Vec::new()),
        ];
        if self.embedder.is_some() {
            kinds.push(("query embedding only (model)", Vec::new()));
            kinds.push(("hybrid full (Engram::recall)", Vec::new()));
        }
        let run = |kind: usize, i: usize| -> Result<()> {
            match kind {
                0 => {
                    let (hits, mode) = self.recall_index(i);
                    ensure!(mode == RecallMode::Hybrid, "index path ran keyword");
                    black_box(hits);
                }
                1 => {
                    black_box(self.engram.recall(&self.queries[i % q]));
                }
                2 => {
                    let vectors = core.vectors.read();
                    black_box(vectors.state.nearest(
                        &self.model,
                        &self.query_vectors[i % q].values,
                        depth,
                        &|_| true,
                    ));
                }
                3 => {
                    if let Some(embedder) = &self.embedder {
                        black_box(embedder.embed(&[self.queries[i % q].as_str()])?);
                    }
                }
                _ => {
                    black_box(self.recall(i)?);
                }
            }
            Ok(())
        };
        for kind in 0..kinds.len() {
            for i in 0..q {
                run(kind, i)?;
            }
        }
        let mut done = 0;
        while done < executions {
            let pass = (executions - done).min(q);
            for (kind, (_, times)) in kinds.iter_mut().enumerate() {
                for i in 0..pass {
                    let started = Instant::now();
                    run(kind, i)?;
                    times.push(started.elapsed());
                }
            }
            done += pass;
        }
        let mut out = String::new();
        writeln!(
            out,
            "hybrid recall report, {} memories with {}-dimensional int8 vectors of {}, {q} queries, {executions} timed recalls per kind, limit {RECALL_HITS}",
            self.n, self.dimension, self.model
        )?;
        writeln!(
            out,
            "  build: {:.2} s (append + views, vectors in the Remembered events)",
            self.engram.build.as_secs_f64()
        )?;
        for (name, times) in &mut kinds {
            times.sort_unstable();
            let [p50, p90, p99, max, mean] = latency_figures_us(times);
            writeln!(
                out,
                "  {name:<38}: p50 {:9.1} us  p90 {:9.1} us  p99 {:9.1} us  max {:9.1} us  mean {:9.1} us",
                p50, p90, p99, max, mean,
            )?;
        }
        Ok(out)
    }
}

/// Embedding cost of `embedder`: `batches` batches of
/// [`engram_embed::BATCH_SIZE`] memory texts (the recall corpus's
/// sentences, 8 to 30 words), then `singles` texts one per call, then the
/// same for the benchmark's queries (2 to 4 words) one per call. One
/// warm-up call first. Describes ms per text.
pub fn embedding_report(embedder: &dyn Embedder, batches: usize, singles: usize) -> Result<String> {
    let vocabulary = Vocabulary::new();
    let batch = engram_embed::BATCH_SIZE;
    let texts = memory_texts(&vocabulary, RECALL_SEED ^ 0xe3b, batches * batch + singles);
    let query_texts = queries(&vocabulary, RECALL_SEED ^ 0xe3b, singles);
    black_box(embedder.embed(&[texts[0].as_str()])?);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut per_batch = Vec::with_capacity(batches);
    for chunk in texts[..batches * batch].chunks(batch) {
        let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
        let started = Instant::now();
        let vectors = embedder.embed(&refs)?;
        per_batch.push(started.elapsed());
        ensure!(vectors.len() == refs.len(), "one vector per text");
    }
    let time_singles = |texts: &[String]| -> Result<Vec<Duration>> {
        let mut times = Vec::with_capacity(texts.len());
        for text in texts {
            let started = Instant::now();
            black_box(embedder.embed(&[text.as_str()])?);
            times.push(started.elapsed());
        }
        times.sort_unstable();
        Ok(times)
    };
    let singles_times = time_singles(&texts[batches * batch..])?;
    let query_times = time_singles(&query_texts)?;
    per_batch.sort_unstable();
    let chars = |ts: &[String]| {
        ts.iter().map(|t| t.chars().count()).sum::<usize>() as f64 / ts.len().max(1) as f64
    };
    let mut out = String::new();
    writeln!(
        out,
        "embedding cost, model {} (dimension {}), release build, CPU",
        embedder.model_id(),
        embedder.dimension()
    )?;
    let total: Duration = per_batch.iter().sum();
    writeln!(
        out,
        "  batches of {batch} memory texts ({batches} batches): {:.2} ms per memory (mean); per batch p50 {:.1} ms, max {:.1} ms",
        ms(total) / (batches * batch) as f64,
        ms(percentile(&per_batch, 0.5)),
        ms(per_batch.last().copied().unwrap_or_default()),
    )?;
    for (name, times, source) in [
        (
            "single memory texts",
            &singles_times,
            &texts[batches * batch..],
        ),
        ("single queries", &query_times, &query_texts[..]),
    ] {
        writeln!(
            out,
            "  {name} ({} texts, {:.0} characters on average): {:.2} ms per text (mean); p50 {:.2} ms, p99 {:.2} ms",
            times.len(),
            chars(source),
            ms(times.iter().sum::<Duration>()) / times.len().max(1) as f64,
            ms(percentile(times, 0.5)),
            ms(percentile(times, 0.99)),
        )?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_and_queries_are_deterministic_and_mixed() {
        let vocabulary = Vocabulary::new();
        assert_eq!(english_vocabulary().len(), ENGLISH_VOCABULARY);
        let texts = memory_texts(&vocabulary, RECALL_SEED, 1000);
        assert_eq!(texts, memory_texts(&vocabulary, RECALL_SEED, 1000));
        let chinese = texts.iter().filter(|t| t.chars().any(is_cjk)).count();
        assert!((120..=280).contains(&chinese), "{chinese} Chinese memories");
        for text in &texts {
            if !text.chars().any(is_cjk) {
                let words = text.split(' ').count();
                assert!((8..=30).contains(&words), "{words} words: {text}");
            }
        }
        let queries = queries(&vocabulary, RECALL_SEED, 200);
        assert!(queries.iter().all(|q| fts5_match(q).is_some()));
        assert!(queries.iter().any(|q| q.chars().all(is_cjk)));
    }

    #[test]
    fn fts5_match_ors_trigram_terms_and_skips_short_ones() {
        assert_eq!(
            fts5_match("deploy the DB on friday").as_deref(),
            Some(r#""deploy" OR "friday""#)
        );
        assert_eq!(
            fts5_match("数据分析偏好").as_deref(),
            Some(r#""数据分" OR "据分析" OR "分析偏" OR "析偏好""#)
        );
        assert_eq!(
            fts5_match("python数据库").as_deref(),
            Some(r#""python" OR "数据库""#)
        );
        assert_eq!(fts5_match("用户 on"), None);
    }

    #[test]
    fn synthetic_vectors_are_deterministic_unit_vectors() {
        let v = synthetic_vector(RECALL_SEED, 7, HYBRID_DIMENSION);
        assert_eq!(v.len(), HYBRID_DIMENSION);
        assert_eq!(v, synthetic_vector(RECALL_SEED, 7, HYBRID_DIMENSION));
        assert_ne!(v, synthetic_vector(RECALL_SEED, 8, HYBRID_DIMENSION));
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "norm {norm}");
        let e = synthetic_embedding("m", RECALL_SEED, 7, HYBRID_DIMENSION);
        assert_eq!(e.values.len(), HYBRID_DIMENSION);
        assert_eq!(e.values.iter().map(|x| x.unsigned_abs()).max(), Some(127));
    }

    #[test]
    fn hybrid_store_recalls_in_hybrid_mode() {
        let bench =
            // Its queries mix English and Chinese: the synthetic vectors
            // stand for a model that reads both (`model_reads`).
            HybridBench::synthetic(2000, 20, "bench-multilingual@00000000", HYBRID_DIMENSION)
                .unwrap();
        let (hits, mode) = bench.recall_index(3);
        assert_eq!(mode, RecallMode::Hybrid);
        assert_eq!(hits.len(), RECALL_HITS);
        assert!(bench.recall(0).is_err(), "no model attached");
        let report = bench.report(40).unwrap();
        assert!(report.contains("hybrid index"), "{report}");
    }

    #[test]
    fn both_engines_find_known_memories() {
        let bench = RecallBench::build(3000, 50).unwrap();
        let report = bench.report(100).unwrap();
        assert!(report.contains("engram/fts5"), "{report}");
    }
}

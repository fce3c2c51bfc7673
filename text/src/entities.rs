//! Entity extraction by rules: people, projects, tools, files,
//! organisations and places named in a text, each with a canonical key so
//! different spellings resolve to one entity.
//!
//! Rules, in order (the first category that claims a span wins):
//!
//! | category | rule |
//! | --- | --- |
//! | `file` | a word of path characters (letters, digits, `._-~+@:/`) with a `/` separator, or ending in a known file extension (`main.rs`, `docs/design.md`); markup such as `<b>x</b>` is not a path |
//! | `tool` | a known tool or language from [`TOOLS`] (with aliases: `nodejs`, `node` -> `node.js`; `k8s` -> `kubernetes`; `postgresql` -> `postgres`); beyond the list, a CamelCase name (`ClickHouse`, `RabbitMQ`; not an error's name such as `TypeError`), a capitalised `X.js`, a capitalised word after a tool cue (`via Promtail`, `adopted Svelte`, `Next.js and Tailwind`, `Terraform over Pulumi`, `from Webpack to Vite`), or a Latin-letter name after a Chinese one (`用 pnpm`, `换成 Buildkite`), never a place, month, weekday, time zone or sentence start |
//! | `organisation` | capitalised words ending in `Inc`, `Ltd`, `Corp`, `GmbH`, `LLC`, `Foundation`, `University`; Chinese names ending in 公司, 集团, 大学 |
//! | `place` | a known place from [`PLACES`] (English and Chinese) |
//! | `project` | a capitalised word after "project" or before "project" (`project Apollo`, `the Apollo project`), or before 项目 |
//! | `person` | two capitalised words starting with a given name from [`GIVEN_NAMES`] or followed by a person verb (`Alice Chen owns`, `Bob Martinez is`); a given name alone (`Alice joined`); any name-shaped word before a verb only people do (`Jonas approved`, `Dana said`); a capitalised word after a person cue (`with`, `ask`, `told`, `by`, `from`, `owner:`, `Mr.`, `Ms.`, `Dr.`), never a weekday or month (`by Friday`); Chinese 小/老 + surname, surname + 总/经理/老师, or a surname starting a word with one or two given characters before a verb (`张伟负责`, `王芳是`) |
//!
//! The canonical key is the case-folded name (`Node.JS` and `node.js` are
//! one tool). [`resolve`] maps a key onto the entities already stored: a
//! given name alone is the one known person of that given name (`alice` ->
//! `alice chen`). The labelled corpus `tests/corpus/entities/{dev,test}.jsonl`
//! keeps precision and recall at 0.9 or more (`tests/entities_corpus.rs`). Deterministic, no dictionary download; recall-oriented rules,
//! so false positives are possible and the dictionary is reviewable.

/// An entity found in a text.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entity {
    /// `person`, `project`, `tool`, `file`, `organisation` or `place`.
    pub category: &'static str,
    /// Canonical key: case-folded, aliases resolved.
    pub key: String,
    /// The spelling found in the text.
    pub name: String,
}

/// Known tools and languages: (canonical key, aliases).
pub const TOOLS: &[(&str, &[&str])] = &[
    ("python", &["py", "python3"]),
    ("node.js", &["nodejs", "node"]),
    ("rust", &[]),
    ("cargo", &[]),
    ("docker", &[]),
    ("kubernetes", &["k8s"]),
    ("postgres", &["postgresql", "psql"]),
    ("sqlite", &["sqlite3"]),
    ("redis", &[]),
    ("git", &[]),
    ("github", &[]),
    ("npm", &[]),
    ("pip", &[]),
    ("react", &[]),
    ("typescript", &["ts"]),
    ("javascript", &["js"]),
    ("java", &[]),
    ("go", &["golang"]),
    ("vim", &["neovim", "nvim"]),
    ("vscode", &["vs code"]),
    ("terraform", &[]),
    ("aws", &[]),
    ("linux", &[]),
    ("pandas", &[]),
    ("jupyter", &[]),
    ("excel", &[]),
    ("slack", &[]),
    ("jira", &[]),
    ("redb", &[]),
    ("mysql", &[]),
    ("kotlin", &[]),
    ("swift", &[]),
    ("scala", &[]),
    ("ruby", &[]),
    ("php", &[]),
    ("kafka", &[]),
    ("prometheus", &[]),
    ("grafana", &[]),
];

/// Given names read as a person with no cue word (`Alice joined`,
/// `Alice Chen owns`). Names that are also common words (`May`, `Will`,
/// `Mark`, `Grace`) are left out.
pub const GIVEN_NAMES: &[&str] = &[
    "aaron", "adam", "ahmed", "aisha", "alex", "alice", "amir", "ana", "andrea", "anna", "arjun",
    "ben", "bob", "carlos", "carol", "chen", "chloe", "daniel", "david", "diana", "dmitri",
    "elena", "emma", "erin", "eva", "farah", "fatima", "gustav", "hana", "hannah", "hiro", "ivan",
    "james", "jane", "jia", "john", "jose", "julia", "karen", "kofi", "kenji", "lars", "lena",
    "leo", "li", "lucas", "luis", "maria", "mateo", "mei", "mohammed", "nina", "noah", "nora",
    "olga", "omar", "paul", "pedro", "peter", "priya", "quinn", "rahul", "raj", "rosa", "sam",
    "sara", "sarah", "sofia", "sven", "tariq", "tom", "yuki", "zoe",
];

/// Known places (canonical key = the lower-case English or the Chinese name).
pub const PLACES: &[&str] = &[
    "london",
    "paris",
    "berlin",
    "frankfurt",
    "munich",
    "tokyo",
    "beijing",
    "shanghai",
    "shenzhen",
    "hangzhou",
    "singapore",
    "new york",
    "san francisco",
    "seattle",
    "toronto",
    "sydney",
    "amsterdam",
    "dublin",
    "zurich",
    "北京",
    "上海",
    "深圳",
    "杭州",
    "广州",
    "东京",
    "香港",
    "台北",
    "成都",
];

const FILE_EXTENSIONS: &[&str] = &[
    "rs", "py", "js", "ts", "md", "toml", "json", "yaml", "yml", "go", "java", "c", "h", "cpp",
    "txt", "sh", "sql", "csv", "html", "css", "lock",
];
const ORG_SUFFIXES: &[&str] = &[
    "inc",
    "ltd",
    "corp",
    "gmbh",
    "llc",
    "foundation",
    "university",
];
const PERSON_CUES: &[&str] = &[
    "with", "ask", "asked", "told", "by", "from", "owner", "mr", "ms", "dr", "cc",
];
/// Verbs after a capitalised pair that make it a person (`Bob Martinez
/// is`, `Carol Wu maintains`).
const PERSON_VERBS: &[&str] = &[
    "is",
    "was",
    "owns",
    "owned",
    "maintains",
    "leads",
    "led",
    "manages",
    "runs",
    "wrote",
    "reviews",
    "joined",
    "approves",
    "prefers",
    "said",
    "says",
    "works",
    "handles",
    "built",
    "has",
    "asked",
    "thinks",
    "wants",
    "likes",
    "documented",
];
/// Words before a name that make a capitalised word a tool (`via Promtail`,
/// `adopted Svelte`).
const TOOL_CUES: &[&str] = &[
    "via",
    "using",
    "uses",
    "use",
    "used",
    "with",
    "adopted",
    "adopt",
    "from",
    "to",
    "into",
    "in",
    "through",
    "runs",
    "run",
    "install",
    "installed",
    "switched",
    "migrated",
    "moved",
];
/// Capitalised words that are never a tool or a person's name, with the
/// weekdays and months ([`crate::calendar`]): see [`is_not_a_name`].
const NOT_NAMES: &[&str] = &[
    "the",
    "a",
    "an",
    "we",
    "our",
    "this",
    "that",
    "it",
    "they",
    "i",
    "he",
    "she",
    "project",
    "team",
    "api",
    "ci",
    "cd",
    "ui",
    "sdk",
    "url",
    "http",
    "json",
    "sql",
    "pr",
    "qa",
    "english",
    "chinese",
    "german",
    "french",
    "spanish",
    "japanese",
    "main",
    "staging",
    "production",
];
/// Verbs only a person does: a name-shaped word before one is a person
/// even when it is no known given name (`Jonas approved`, `Dana said`).
const HUMAN_VERBS: &[&str] = &[
    "said",
    "says",
    "thinks",
    "asked",
    "asks",
    "approved",
    "approves",
    "joined",
    "owns",
    "leads",
    "wrote",
    "prefers",
    "likes",
    "wants",
    "agreed",
    "suggested",
    "mentioned",
    "reviewed",
];
/// Words between two tools (`Terraform over Pulumi`, `GitHub Actions
/// rather than Jenkins`): the second is a tool too.
const TOOL_CONNECTORS: &[&str] = &["over", "than", "vs", "versus", "not"];
/// How far back a tool may be for [`TOOL_CONNECTORS`] to join another.
const TOOL_CONNECTOR_WORDS_MAX: usize = 4;
/// Chinese words before a Latin-letter name that make it a tool (`用
/// pnpm`, `换成 GitLab`).
const CJK_TOOL_CUES: &[&str] = &[
    "用",
    "换成",
    "换到",
    "迁到",
    "迁移到",
    "切到",
    "切换到",
    "选了",
    "选择了",
    "而不是",
    "基于",
];
/// Time zones are written in capitals after `use` but are no tool.
const TIME_ZONES: &[&str] = &[
    "utc", "gmt", "cet", "cest", "pst", "pdt", "est", "edt", "jst", "ist",
];
/// Verbs after a Chinese name (`张伟负责`, `王芳是`).
const CJK_PERSON_VERBS: &[&str] = &[
    "负责", "是", "在", "说", "加入", "维护", "喜欢", "认为", "提出", "完成", "参加", "管理",
    "开发", "去", "和", "写", "带", "要", "会", "已经", "正在", "明天", "今天", "下周",
];
/// Characters that end a name to their left (particles, conjunctions).
const CJK_BOUNDARIES: &str = "的和在去与及是了做把被给对跟向从为";
/// Verbs that often precede an organisation or project name.
const CJK_LEADING_VERBS: &[&str] = &["讨论", "参加", "负责", "关于", "推进", "启动", "加入"];
/// Common Chinese surnames, one character each: where a name starts.
pub const CJK_SURNAMES: &str = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗高梁宋郑谢唐韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵钱严覃武戴孔向汤";
/// Characters that never begin a given name (numerals: `周一是` is a day).
const CJK_NOT_GIVEN: &str = "一二三四五六七八九十日天末的了在是和与年月号点个";

/// `lower` (case-folded) is never a tool or a person's name.
fn is_not_a_name(lower: &str) -> bool {
    NOT_NAMES.contains(&lower)
        || crate::calendar::is_calendar_word(lower)
        || TIME_ZONES.contains(&lower)
        || crate::tokenize::is_stopword(lower)
}

/// `TypeError`, `IOException`: an error's name, not a tool.
fn is_error_name(word: &str) -> bool {
    ["Error", "Exception", "Warning"]
        .iter()
        .any(|suffix| word.len() > suffix.len() && word.ends_with(suffix))
}

/// `word` (a slice of `text`) is a Latin-letter name right after a Chinese
/// tool cue (`用 pnpm，`), standing alone (the first of several Latin words
/// names no tool, `用 type hints`, unless it is capitalised) and no host
/// (`换成 test.internal`).
fn after_cjk_tool_cue(text: &str, word: &str) -> bool {
    let at = (word.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    let Some(before) = text.get(..at) else {
        return false;
    };
    let shaped = word.len() >= 2
        && word.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
    let Some(after) = text.get(at + word.len()..) else {
        return false;
    };
    let alone = after
        .chars()
        .find(|c| *c != ' ')
        .is_none_or(|c| !c.is_ascii_alphabetic());
    shaped
        && (alone || capitalised(word))
        && !is_not_a_name(&word.to_lowercase())
        && CJK_TOOL_CUES
            .iter()
            .any(|cue| before.trim_end().ends_with(cue))
}

fn trim_word(word: &str) -> &str {
    word.trim_matches(|c: char| {
        !(c.is_alphanumeric() || c == '.' || c == '/' || c == '_' || c == '-')
    })
    .trim_end_matches('.')
}

fn capitalised(word: &str) -> bool {
    word.chars().next().is_some_and(char::is_uppercase)
}

/// `Alice`, `Martinez`: a capital, then lower-case letters.
fn name_shaped(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(char::is_uppercase)
        && word.chars().count() >= 2
        && chars.all(char::is_lowercase)
        && !is_not_a_name(&word.to_lowercase())
}

/// `ClickHouse`, `MongoDB`, `RabbitMQ`: a capital, lower-case letters, and
/// another capital later.
fn camel_case(word: &str) -> bool {
    // ASCII only, so bytes are characters.
    let bytes = word.as_bytes();
    bytes.len() >= 4
        && bytes[0].is_ascii_uppercase()
        && bytes.iter().all(u8::is_ascii_alphanumeric)
        && bytes
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
}

/// `Next.js`, `Vue.js`: a capitalised name of a JavaScript framework.
fn js_name(word: &str) -> bool {
    word.strip_suffix(".js")
        .is_some_and(|stem| capitalised(stem) && stem.chars().all(char::is_alphanumeric))
}

fn is_cjk(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c)
        || ('\u{3000}'..='\u{303f}').contains(&c)
        || ('\u{ff00}'..='\u{ffef}').contains(&c)
}

fn tool_key(word: &str) -> Option<&'static str> {
    let tools = &*TOOL_KEYS;
    // Lower-casing never makes a word fewer characters: a longer word than
    // every name is none of them, and is not lower-cased to find out.
    if word.chars().count() > tools.chars_max {
        return None;
    }
    tools.by_name.get(word.to_lowercase().as_str()).copied()
}

/// [`TOOLS`] by name and alias, each to its key (the first entry naming it,
/// as a scan in order finds it), and the most characters a name has.
struct ToolKeys {
    by_name: std::collections::HashMap<&'static str, &'static str>,
    chars_max: usize,
}

static TOOL_KEYS: std::sync::LazyLock<ToolKeys> = std::sync::LazyLock::new(|| {
    let mut by_name = std::collections::HashMap::new();
    for (key, aliases) in TOOLS {
        for name in std::iter::once(key).chain(aliases.iter()) {
            by_name.entry(*name).or_insert(*key);
        }
    }
    let chars_max = by_name.keys().map(|n| n.chars().count()).max().unwrap_or(0);
    ToolKeys { by_name, chars_max }
});

fn is_file(word: &str) -> bool {
    if word.len() < 3 || word.starts_with("http") {
        return false;
    }
    // Markup and code (`<b>bold</b>`, `f(a/b)`) have slashes too; a path
    // is made of name characters and separators only (`:` for a line
    // number, as in `src/main.rs:42`).
    let path_char =
        |c: char| c.is_alphanumeric() || matches!(c, '.' | '/' | '_' | '-' | '~' | '+' | '@' | ':');
    if !word.chars().all(path_char) {
        return false;
    }
    let has_path = word.contains('/') && word.chars().any(char::is_alphabetic);
    let ext = word
        .rsplit_once('.')
        .filter(|(stem, _)| !stem.is_empty())
        .is_some_and(|(_, ext)| FILE_EXTENSIONS.contains(&ext.to_lowercase().as_str()));
    has_path || ext
}

/// The entities named in `text`, in order of first appearance, each once.
#[must_use]
pub fn extract(text: &str) -> Vec<Entity> {
    let mut out: Vec<Entity> = Vec::new();
    let mut push = |category: &'static str, key: String, name: &str| {
        if !out.iter().any(|e| e.category == category && e.key == key) {
            out.push(Entity {
                category,
                key,
                name: name.to_owned(),
            });
        }
    };
    // Words split at spaces and at CJK characters (`用Rust写` holds `Rust`).
    let raw: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || is_cjk(c))
        .filter(|w| !w.is_empty())
        .collect();
    let words: Vec<&str> = raw.iter().map(|w| trim_word(w)).collect();
    // Each word case-folded once: read as the word, the next and the one
    // before.
    let lowers: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let lower_text = text.to_lowercase();
    let is_place = |lower: &str| PLACES.contains(&lower);
    let mut skip = false;
    // The index of the last word read as a tool (`Next.js and Tailwind`).
    let mut last_tool: Option<usize> = None;
    for (i, &word) in words.iter().enumerate() {
        if std::mem::take(&mut skip) || word.is_empty() {
            continue;
        }
        let lower: &str = lowers.get(i).map_or("", String::as_str);
        let prev = i
            .checked_sub(1)
            .and_then(|j| lowers.get(j))
            .map_or("", |w| w.trim_end_matches([':', '.']));
        let sentence_start = i
            .checked_sub(1)
            .and_then(|j| raw.get(j))
            .is_none_or(|w| w.ends_with(['.', '!', '?', ':']));
        let next_word = words.get(i + 1).copied().unwrap_or_default();
        let next = lowers.get(i + 1).map_or("", String::as_str);
        let after_next = lowers.get(i + 2).map_or("", String::as_str);
        if js_name(word) {
            push("tool", tool_key(word).unwrap_or(lower).to_owned(), word);
            last_tool = Some(i);
        } else if is_file(word) && tool_key(word).is_none() {
            push("file", lower.to_owned(), word);
        } else if let Some(key) = tool_key(word) {
            // `go`, `js`, `ts` and `node` are common words: only as a name.
            let ambiguous = ["go", "js", "ts", "node", "py"].contains(&lower);
            if !ambiguous || capitalised(word) || word.contains('.') {
                push("tool", key.to_owned(), word);
                last_tool = Some(i);
            }
        } else if capitalised(word) && ORG_SUFFIXES.contains(&next.trim_end_matches(['.', ','])) {
            let name = format!("{word} {next_word}");
            push("organisation", name.to_lowercase(), &name);
            skip = true;
        } else if capitalised(word) && (prev == "project" || next == "project") {
            push("project", lower.to_owned(), word);
        } else if name_shaped(word)
            && name_shaped(next_word)
            && tool_key(next_word).is_none()
            && !is_place_pair(lower, next)
            && (GIVEN_NAMES.contains(&lower) || PERSON_VERBS.contains(&after_next))
        {
            // `Alice Chen owns`, `Bob Martinez is`.
            push(
                "person",
                format!("{lower} {next}"),
                &format!("{word} {next_word}"),
            );
            skip = true;
        } else if name_shaped(word) && GIVEN_NAMES.contains(&lower) {
            push("person", lower.to_owned(), word);
        } else if camel_case(word) && !is_error_name(word) {
            push("tool", lower.to_owned(), word);
            last_tool = Some(i);
        } else if name_shaped(word)
            && HUMAN_VERBS.contains(&next)
            && tool_key(word).is_none()
            && !is_place(lower)
        {
            // `Jonas approved`: no known given name, a person's verb.
            push("person", lower.to_owned(), word);
        } else if capitalised(word)
            && prev == "from"
            && next == "to"
            && words.get(i + 2).is_some_and(|w| capitalised(w))
        {
            // `from Webpack to Vite`: a move between two tools.
            push("tool", lower.to_owned(), word);
            last_tool = Some(i);
        } else if capitalised(word) && i > 0 && PERSON_CUES.contains(&prev) {
            if !is_place(lower) && !is_not_a_name(lower) {
                push("person", lower.to_owned(), word);
            }
        } else if after_cjk_tool_cue(text, word) {
            push("tool", tool_key(word).unwrap_or(lower).to_owned(), word);
            last_tool = Some(i);
        } else if capitalised(word)
            && !sentence_start
            && word.chars().all(char::is_alphanumeric)
            && !is_not_a_name(lower)
            && !is_place(lower)
            && (TOOL_CUES.contains(&prev)
                || (["and", "or"].contains(&prev) && last_tool == i.checked_sub(2))
                || (TOOL_CONNECTORS.contains(&prev)
                    && last_tool.is_some_and(|t| i - t <= TOOL_CONNECTOR_WORDS_MAX)))
        {
            // `via Promtail`, `adopted Svelte`, `Next.js and Tailwind`.
            push("tool", lower.to_owned(), word);
            last_tool = Some(i);
        }
    }
    for (place, at) in first_places(&lower_text) {
        let before_ok = lower_text[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_ascii_alphanumeric());
        let after_ok = lower_text[at + place.len()..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_ascii_alphanumeric());
        if before_ok && after_ok {
            let name = text.get(at..at + place.len()).unwrap_or(place);
            push("place", place.to_owned(), name);
        }
    }
    cjk_entities(text, &mut push);
    out
}

/// Whether `{first} {second}` is a place, read without building the pair.
fn is_place_pair(first: &str, second: &str) -> bool {
    PLACES.iter().any(|place| {
        place.len() == first.len() + 1 + second.len()
            && place.starts_with(first)
            && place.ends_with(second)
            && place.as_bytes().get(first.len()) == Some(&b' ')
    })
}

/// Each place of [`PLACES`] that `lower_text` holds, in the table's order,
/// with where it first occurs (one pass over the text for all of them).
fn first_places(lower_text: &str) -> Vec<(&'static str, usize)> {
    let mut first: Vec<Option<usize>> = vec![None; PLACES.len()];
    // Overlapping matches come in the order they end; a place's name has
    // one length, so its first match is its first occurrence.
    for found in PLACE_FINDER.find_overlapping_iter(lower_text) {
        if let Some(slot @ None) = first.get_mut(found.pattern().as_usize()) {
            *slot = Some(found.start());
        }
    }
    PLACES
        .iter()
        .zip(first)
        .filter_map(|(place, at)| Some((*place, at?)))
        .collect()
}

static PLACE_FINDER: std::sync::LazyLock<aho_corasick::AhoCorasick> =
    std::sync::LazyLock::new(|| {
        // A fixed table of short names: building the automaton cannot fail.
        aho_corasick::AhoCorasick::new(PLACES).expect("an automaton of the places table")
    });

/// The key an entity of `category` found as `key` resolves to among the
/// keys already known for its category (`known`): a
/// person named by one word (`alice`) is the one known person whose name
/// begins with that word (`alice chen`), when exactly one does; any other
/// entity keeps its own key (case and aliases are already folded).
#[must_use]
pub fn resolve<'a>(category: &str, key: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    if category != "person" || key.contains(' ') || !key.is_ascii() {
        return key.to_owned();
    }
    let prefix = format!("{key} ");
    let mut fuller = known.into_iter().filter(|k| k.starts_with(&prefix));
    match (fuller.next(), fuller.next()) {
        (Some(one), None) => one.to_owned(),
        _ => key.to_owned(),
    }
}

fn cjk_entities(text: &str, push: &mut impl FnMut(&'static str, String, &str)) {
    // Every rule below starts at a Han character.
    if text.is_ascii() {
        return;
    }
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let slice = |from: usize, to: usize| -> Option<&str> {
        let start = chars.get(from)?.0;
        let end = chars.get(to).map_or(text.len(), |(at, _)| *at);
        text.get(start..end)
    };
    for (i, &(_, c)) in chars.iter().enumerate() {
        // A name starts at a Han character (`小`, `老` or a surname).
        if !is_han(c) {
            continue;
        }
        let next = chars.get(i + 1).map(|(_, c)| *c);
        // 小王, 老李
        if (c == '小' || c == '老')
            && next.is_some_and(|n| CJK_SURNAMES.contains(n))
            && let Some(name) = slice(i, i + 2)
        {
            push("person", name.to_owned(), name);
        }
        // 张伟负责, 王芳是: a surname at a word start, one or two given
        // characters, then a verb.
        let starts_word = i
            .checked_sub(1)
            .and_then(|j| chars.get(j))
            .is_none_or(|(_, p)| {
                !('\u{4e00}'..='\u{9fff}').contains(p) || CJK_BOUNDARIES.contains(*p)
            });
        if CJK_SURNAMES.contains(c)
            && starts_word
            && next.is_some_and(|n| {
                ('\u{4e00}'..='\u{9fff}').contains(&n) && !CJK_NOT_GIVEN.contains(n)
            })
        {
            for given in [2, 1] {
                let end = i + 1 + given;
                let rest = chars.get(end).map_or("", |(at, _)| &text[*at..]);
                let plain = chars
                    .get(i + 1..end)
                    .is_some_and(|g| g.iter().all(|(_, g)| !CJK_BOUNDARIES.contains(*g)));
                if plain
                    && CJK_PERSON_VERBS.iter().any(|v| rest.starts_with(v))
                    && let Some(name) = slice(i, end)
                {
                    push("person", name.to_owned(), name);
                    break;
                }
            }
        }
        // 王总, 李经理, 张老师
        if CJK_SURNAMES.contains(c) {
            for title in ["总", "经理", "老师"] {
                if text
                    .get(chars.get(i + 1).map_or(text.len(), |(at, _)| *at)..)
                    .is_some_and(|rest| rest.starts_with(title))
                    && let Some(name) = slice(i, i + 1 + title.chars().count())
                {
                    push("person", name.to_owned(), name);
                }
            }
        }
    }
    // XX公司, XX集团, XX大学, XX项目: the Han run before the suffix.
    for (suffix, category) in [
        ("公司", "organisation"),
        ("集团", "organisation"),
        ("大学", "organisation"),
        ("项目", "project"),
    ] {
        let mut from = 0;
        while let Some(found) = text.get(from..).and_then(|rest| rest.find(suffix)) {
            let at = from + found;
            let run: String = text[..at]
                .chars()
                .rev()
                .take_while(|c| {
                    ('\u{4e00}'..='\u{9fff}').contains(c) && !CJK_BOUNDARIES.contains(*c)
                })
                .take(6)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            // The name starts after the last verb or earlier name suffix.
            let start = CJK_LEADING_VERBS
                .iter()
                .chain(["公司", "集团", "大学", "项目"].iter())
                .filter_map(|marker| run.rfind(marker).map(|at| at + marker.len()))
                .max()
                .unwrap_or(0);
            let head = run.get(start..).unwrap_or_default().to_owned();
            if head.chars().count() >= 2 {
                let name = format!("{head}{suffix}");
                push(category, name.clone(), &name);
            }
            from = at + suffix.len();
        }
    }
}

/// Whether `c` is in the CJK Unified Ideographs block, where every
/// character a Chinese name rule starts at lies.
fn is_han(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tool table read by a scan in order, as [`tool_key`] must answer.
    fn tool_key_by_scan(word: &str) -> Option<&'static str> {
        let lower = word.to_lowercase();
        TOOLS
            .iter()
            .find(|(key, aliases)| *key == lower || aliases.contains(&lower.as_str()))
            .map(|(key, _)| *key)
    }

    /// Places by a search of the text for each, in the table's order.
    fn places_by_search(lower_text: &str) -> Vec<(&'static str, usize)> {
        PLACES
            .iter()
            .filter_map(|place| Some((*place, lower_text.find(place)?)))
            .collect()
    }

    fn camel_case_by_chars(word: &str) -> bool {
        let chars: Vec<char> = word.chars().collect();
        chars.len() >= 4
            && chars.first().is_some_and(|c| c.is_ascii_uppercase())
            && chars.iter().all(char::is_ascii_alphanumeric)
            && chars
                .windows(2)
                .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
    }

    /// Words made of the tables' names, their case changed, and the
    /// characters that lower-case to fewer bytes or more characters.
    fn word() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::strategy::Strategy as _;
        let names: Vec<String> = TOOLS
            .iter()
            .flat_map(|(key, aliases)| std::iter::once(*key).chain(aliases.iter().copied()))
            .chain(PLACES.iter().copied())
            .map(str::to_owned)
            .collect();
        proptest::prop_oneof![
            proptest::sample::select(names.clone()),
            proptest::sample::select(names).prop_map(|n| n.to_uppercase()),
            "[a-zA-Z0-9\u{212a}\u{130}\u{1e9e} .-]{0,12}",
        ]
    }

    proptest::proptest! {
        #[test]
        fn tool_keys_by_map_are_the_scan_in_order(w in word()) {
            proptest::prop_assert_eq!(tool_key(&w), tool_key_by_scan(&w));
            proptest::prop_assert_eq!(camel_case(&w), camel_case_by_chars(&w));
        }

        #[test]
        fn a_place_pair_is_the_pair_built_and_looked_up(
            first in proptest::sample::select(&["new", "san", "york", "", "new york"][..]),
            second in proptest::sample::select(&["york", "francisco", "new", "", " york"][..]),
        ) {
            let built = format!("{first} {second}");
            proptest::prop_assert_eq!(
                is_place_pair(first, second),
                PLACES.contains(&built.as_str())
            );
        }

        #[test]
        fn places_in_one_pass_are_each_first_occurrence(
            words in proptest::collection::vec(
                proptest::sample::select(
                    &["paris", "parisian ", "new york", "new", " york", " ", "北京", "x", "sydney"][..],
                ),
                0..8,
            ),
        ) {
            let lower_text = words.concat().to_lowercase();
            proptest::prop_assert_eq!(first_places(&lower_text), places_by_search(&lower_text));
        }
    }

    #[test]
    fn every_character_a_chinese_name_starts_at_is_han() {
        assert!(CJK_SURNAMES.chars().chain(['小', '老']).all(is_han));
    }

    fn found(text: &str) -> Vec<(&'static str, String)> {
        extract(text)
            .into_iter()
            .map(|e| (e.category, e.key))
            .collect()
    }

    #[test]
    fn english_rules() {
        let got = found(
            "Pair with Maria on project Apollo: fix src/engine.rs, then deploy to Kubernetes \
             in Frankfurt for Acme Inc. The Node.js service uses Postgres.",
        );
        for expected in [
            ("person", "maria"),
            ("project", "apollo"),
            ("file", "src/engine.rs"),
            ("tool", "kubernetes"),
            ("place", "frankfurt"),
            ("organisation", "acme inc"),
            ("tool", "node.js"),
            ("tool", "postgres"),
        ] {
            assert!(
                got.contains(&(expected.0, expected.1.to_owned())),
                "{expected:?} not in {got:?}"
            );
        }
    }

    #[test]
    fn markup_and_code_are_not_files() {
        for text in [
            "<script>alert(1)</script>",
            "<b>bold</b> text",
            "call f(a/b) twice",
            "see [docs](docs/x) <img src=x/y>",
        ] {
            let files: Vec<_> = found(text)
                .into_iter()
                .filter(|(category, _)| *category == "file")
                .collect();
            assert!(files.is_empty(), "{text:?} gave {files:?}");
        }
        // Paths keep being found when punctuation only surrounds them.
        let got =
            found("Edit (src/main.rs), /etc/hosts, log/src/seal.rs:42 and build/out-1.2/app.");
        for path in [
            "src/main.rs",
            "/etc/hosts",
            "log/src/seal.rs:42",
            "build/out-1.2/app",
        ] {
            assert!(
                got.contains(&("file", path.to_owned())),
                "{path} not in {got:?}"
            );
        }
    }

    #[test]
    fn aliases_and_case_resolve_to_one_entity() {
        let keys = |t: &str| -> Vec<String> { extract(t).into_iter().map(|e| e.key).collect() };
        assert_eq!(keys("NodeJS"), ["node.js"]);
        assert_eq!(keys("Node.JS"), ["node.js"]);
        assert_eq!(keys("k8s"), ["kubernetes"]);
        assert_eq!(keys("PostgreSQL"), ["postgres"]);
        // Common words are not tools unless written as a name.
        assert!(keys("we go to the node at noon").is_empty());
    }

    #[test]
    fn chinese_rules() {
        let got = found("明天和小王、李经理去北京的字节跳动公司讨论星火项目。");
        for expected in [
            ("person", "小王"),
            ("person", "李经理"),
            ("place", "北京"),
            ("organisation", "字节跳动公司"),
            ("project", "星火项目"),
        ] {
            assert!(
                got.contains(&(expected.0, expected.1.to_owned())),
                "{expected:?} not in {got:?}"
            );
        }
    }

    #[test]
    fn nothing_is_invented_from_plain_text() {
        assert!(extract("the user prefers tea in the morning").is_empty());
        assert!(extract("").is_empty());
    }

    /// Issue 17: these gave no person entity.
    #[test]
    fn issue_17_people_without_cue_words() {
        for (text, person) in [
            ("Alice Chen owns the billing service.", "alice chen"),
            ("Bob Martinez is the release manager.", "bob martinez"),
            ("Carol Wu maintains the search cluster.", "carol wu"),
            ("张伟负责支付系统。", "张伟"),
        ] {
            assert!(
                found(text).contains(&("person", person.to_owned())),
                "{text:?}: {:?}",
                found(text)
            );
        }
    }

    #[test]
    fn tools_outside_the_list_by_shape_and_cue() {
        let got = found(
            "Logs go to Loki via Promtail; analytics run ClickHouse and Next.js with Tailwind.",
        );
        for tool in ["loki", "promtail", "clickhouse", "next.js"] {
            assert!(
                got.contains(&("tool", tool.to_owned())),
                "{tool} not in {got:?}"
            );
        }
        // Places, months and sentence starts are not tools.
        assert!(
            found("Deploy in Frankfurt in March.")
                .iter()
                .all(|(c, _)| *c != "tool")
        );
        assert!(found("用户喜欢用Rust写系统程序").contains(&("tool", "rust".to_owned())));
    }

    #[test]
    fn a_given_name_resolves_to_the_one_known_full_name() {
        let alice = &extract("Alice approved it.")[0];
        let resolved =
            |e: &Entity, known: &[&'static str]| resolve(e.category, &e.key, known.iter().copied());
        assert_eq!(
            resolved(alice, &["alice chen", "bob martinez"]),
            "alice chen"
        );
        // Two known Alices: ambiguous, the mention keeps its own key.
        assert_eq!(resolved(alice, &["alice chen", "alice wu"]), "alice");
        assert_eq!(resolved(alice, &["alicex"]), "alice");
        let full = &extract("Alice Chen approved it.")[0];
        assert_eq!(resolved(full, &["alice chen"]), "alice chen");
    }

    #[test]
    fn people_and_tools_beyond_the_lists_and_what_is_neither() {
        for (text, expected) in [
            ("Jonas approved the schema change.", ("person", "jonas")),
            ("We moved from Webpack to Vite.", ("tool", "webpack")),
            ("We chose Terraform over Pulumi.", ("tool", "pulumi")),
            ("我们用 pnpm 管理依赖。", ("tool", "pnpm")),
            ("CI 换成 Buildkite 了。", ("tool", "buildkite")),
        ] {
            let got = found(text);
            assert!(
                got.contains(&(expected.0, expected.1.to_owned())),
                "{text:?}: {got:?}"
            );
        }
        for text in [
            "I need the report by Friday.",
            "Always use UTC in log timestamps.",
            "The job failed with a TypeError.",
            "以后写代码都用 type hints。",
            "地址已经换成 test.internal 了。",
        ] {
            assert_eq!(found(text), [], "{text:?}");
        }
    }
}

//! Entity extraction by rules: people, projects, tools, files,
//! organisations and places named in a text, each with a canonical key so
//! different spellings resolve to one entity.
//!
//! Rules, in order (the first category that claims a span wins):
//!
//! | category | rule |
//! | --- | --- |
//! | `file` | a word of path characters (letters, digits, `._-~+@:/`) with a `/` separator, or ending in a known file extension (`main.rs`, `docs/design.md`); markup such as `<b>x</b>` is not a path |
//! | `tool` | a known tool or language from [`TOOLS`] (with aliases: `nodejs`, `node` -> `node.js`; `k8s` -> `kubernetes`; `postgresql` -> `postgres`) |
//! | `organisation` | capitalised words ending in `Inc`, `Ltd`, `Corp`, `GmbH`, `LLC`, `Foundation`, `University`; Chinese names ending in 公司, 集团, 大学 |
//! | `place` | a known place from [`PLACES`] (English and Chinese) |
//! | `project` | a capitalised word after "project" or before "project" (`project Apollo`, `the Apollo project`), or before 项目 |
//! | `person` | a capitalised word after a person cue (`with`, `ask`, `told`, `by`, `from`, `owner:`, `Mr.`, `Ms.`, `Dr.`); Chinese 小/老 + surname, or surname + 总/经理/老师 |
//!
//! The canonical key is the case-folded name (`Node.JS` and `node.js` are
//! one tool). Deterministic, no dictionary download; recall-oriented rules,
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
/// Characters that end a name to their left (particles, conjunctions).
const CJK_BOUNDARIES: &str = "的和在去与及是了做把被给对跟向从为";
/// Verbs that often precede an organisation or project name.
const CJK_LEADING_VERBS: &[&str] = &["讨论", "参加", "负责", "关于", "推进", "启动", "加入"];
const CJK_SURNAMES: &str = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗高梁宋郑谢唐韩冯邓曹彭曾";

fn trim_word(word: &str) -> &str {
    word.trim_matches(|c: char| {
        !(c.is_alphanumeric() || c == '.' || c == '/' || c == '_' || c == '-')
    })
    .trim_end_matches('.')
}

fn capitalised(word: &str) -> bool {
    word.chars().next().is_some_and(char::is_uppercase)
}

fn tool_key(word: &str) -> Option<&'static str> {
    let lower = word.to_lowercase();
    TOOLS
        .iter()
        .find(|(key, aliases)| *key == lower || aliases.contains(&lower.as_str()))
        .map(|(key, _)| *key)
}

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
    let words: Vec<&str> = text.split_whitespace().map(trim_word).collect();
    let lower_text = text.to_lowercase();
    for (i, &word) in words.iter().enumerate() {
        if word.is_empty() {
            continue;
        }
        let prev = i
            .checked_sub(1)
            .and_then(|j| words.get(j))
            .map(|w| w.to_lowercase().trim_end_matches([':', '.']).to_owned())
            .unwrap_or_default();
        let next = words
            .get(i + 1)
            .map(|w| w.to_lowercase())
            .unwrap_or_default();
        if is_file(word) && tool_key(word).is_none() {
            push("file", word.to_lowercase(), word);
        } else if let Some(key) = tool_key(word) {
            // `go`, `js`, `ts` and `node` are common words: only as a name.
            let ambiguous =
                ["go", "js", "ts", "node", "py"].contains(&word.to_lowercase().as_str());
            if !ambiguous || capitalised(word) || word.contains('.') {
                push("tool", key.to_owned(), word);
            }
        } else if capitalised(word) && ORG_SUFFIXES.contains(&next.trim_end_matches(['.', ','])) {
            let name = format!("{word} {}", words.get(i + 1).copied().unwrap_or_default());
            push("organisation", name.to_lowercase(), &name);
        } else if capitalised(word) && (prev == "project" || next == "project") {
            push("project", word.to_lowercase(), word);
        } else if capitalised(word) && i > 0 && PERSON_CUES.contains(&prev.as_str()) {
            push("person", word.to_lowercase(), word);
        }
    }
    for place in PLACES {
        if let Some(at) = lower_text.find(place) {
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
                push("place", (*place).to_owned(), name);
            }
        }
    }
    cjk_entities(text, &mut push);
    out
}

fn cjk_entities(text: &str, push: &mut impl FnMut(&'static str, String, &str)) {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let slice = |from: usize, to: usize| -> Option<&str> {
        let start = chars.get(from)?.0;
        let end = chars.get(to).map_or(text.len(), |(at, _)| *at);
        text.get(start..end)
    };
    for (i, &(_, c)) in chars.iter().enumerate() {
        let next = chars.get(i + 1).map(|(_, c)| *c);
        // 小王, 老李
        if (c == '小' || c == '老')
            && next.is_some_and(|n| CJK_SURNAMES.contains(n))
            && let Some(name) = slice(i, i + 2)
        {
            push("person", name.to_owned(), name);
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

#[cfg(test)]
mod tests {
    use super::*;

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
}

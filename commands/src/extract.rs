//! Ingest extraction: memories proposed from a transcript's user turns, in
//! English and Chinese, each referencing its exact source turn and labelled
//! with its [`Kind`]: a stated **preference** or standing instruction, a
//! **decision**, a **correction** of something said before, or a durable
//! **fact** about the user, the people or the project. The proposals go
//! through the same save path as any memory (gates, the four outcomes), so
//! a restated preference reinforces instead of duplicating, and a
//! correction that contradicts what it corrects supersedes it.
//!
//! A turn's prose is split into sentences (`.`, `!`, `?`, `。`, `！`, `？`,
//! line breaks); fenced code blocks, indented code, stack frames, log lines
//! (a timestamp or a level first) and lines mostly of code punctuation are
//! never read. Each sentence is read on its own by rules, in order:
//! questions, hedged or hypothetical sentences ("maybe we should", "I
//! think", "也许", "要不要") and sentences shorter than
//! [`SENTENCE_CHARS_MIN`] are never proposed; then a correction (a marker
//! such as "actually" or "no wait", an admission such as "I mixed them up",
//! a denial then what is so: "it isn't X, it's Y", "不是 X，是 Y"), a
//! decision (also "we won't", "decided:", "X it is"; a choice for now such
//! as "I decided to just ..." is none), a standing instruction or liking
//! (also "I'm not a fan of", "..., always"; "I never remember" is none), a
//! statement about a named person, a fact. A sentence that is only a
//! correction marker ("Wait, no.") makes the next statement of the same
//! turn a correction. Task chatter ("the build is red again", "run the
//! tests") and incident reports ("the run diverged, loss went to nan") have
//! none of these and are not proposed.
//!
//! The rules are measured on a labelled corpus of transcript turns
//! (`tests/corpus/extract/dev.jsonl`, and a `test.jsonl` split when one is
//! kept; `tests/extract_corpus.rs`).

use engram_log::Role;

/// Shortest sentence worth proposing.
pub const SENTENCE_CHARS_MIN: usize = 8;

/// What a proposed memory is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A liking, a dislike, or a standing instruction ("always use UTC").
    Preference,
    /// A choice made ("we settled on Postgres").
    Decision,
    /// A change to something said before ("actually, it moved to Wednesday").
    Correction,
    /// A durable fact about the user, a person or the project.
    Fact,
}

impl Kind {
    /// The kind's name in answers: `preference`, `decision`, `correction`, `fact`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Preference => "preference",
            Kind::Decision => "decision",
            Kind::Correction => "correction",
            Kind::Fact => "fact",
        }
    }
}

/// A sentence proposed as a memory, from the turn at `seq`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposal {
    pub seq: u64,
    pub sentence: String,
    pub kind: Kind,
}

/// Words that open a sentence without meaning anything to it; left off
/// before the rules read the sentence (the proposal keeps them).
const OPENERS_EN: &[&str] = &[
    "also",
    "and",
    "but",
    "so",
    "oh",
    "ok",
    "okay",
    "btw",
    "fwiw",
    "by the way",
    "ps",
    "plus",
    "hey",
    "well",
    "hmm",
    "ah",
];

/// A sentence that starts with one of these corrects something said before.
const CORRECTION_STARTS_EN: &[&str] = &[
    "actually",
    "correction",
    "scratch that",
    "no wait",
    "no, wait",
    "wait, no",
    "nah wait",
    "nah, wait",
    "hold on, no",
    "nope",
    "sorry, i was wrong",
    "not quite",
    "to correct",
    "update:",
    "oops",
    "it's the other way round",
    "it's the other way around",
    "it is the other way round",
    "it is the other way around",
];

/// Anywhere in a sentence, these admit that something said was wrong.
const CORRECTION_ANYWHERE_EN: &[&str] = &[
    "i was wrong",
    "i made a mistake",
    "my mistake",
    "my bad",
    "i misspoke",
    "i meant",
    "i mixed up",
    "i mixed it up",
    "i mixed them up",
    "i got that wrong",
    "i got it wrong",
    "i had it wrong",
    "i had that wrong",
    "i confused",
    "that's not right",
    "that is not right",
    "that's wrong",
    "that is wrong",
    "that's incorrect",
    "that is incorrect",
    "not correct anymore",
    "no longer true",
];

/// A sentence opening with one of these and going on to state something
/// ("No, the staging DB is on 5433", "Sorry, the name is order-svc")
/// corrects what was said before.
const CORRECTION_OPENERS_EN: &[&str] = &[
    "no,", "nope,", "nah,", "nah ", "sorry,", "wait,", "hold on,", "hang on,", "hmm no", "no no",
];

/// Words that make an opened sentence a statement rather than an ask.
const STATEMENT_VERBS_EN: &[&str] = &[
    "is", "are", "was", "were", "it's", "that's", "runs", "lives", "uses", "moved", "changed",
    "means", "should", "has", "have", "called", "named",
];

/// A sentence that is nothing but one of these (after trimming punctuation)
/// makes the next statement a correction.
const CORRECTION_MARKERS_EN: &[&str] = &[
    "no",
    "nope",
    "wait",
    "wait, no",
    "no, wait",
    "no wait",
    "actually",
    "correction",
    "sorry",
    "oops",
    "scratch that",
    "not quite",
];

/// "We're dropping Python 3.8", "we'll keep the monorepo": the team, in
/// the future or now, changing how things are done.
const WE_WILL_EN: &[&str] = &[
    "we're",
    "we are",
    "we'll",
    "we will",
    "we're going to",
    "we are going to",
    "we've",
    "we have",
    "the team is",
    "the team will",
    "the team's",
    "we won't",
    "we will not",
    "we're not going to",
    "we are not going to",
    "we're no longer",
    "we are no longer",
    "we no longer",
];
const CHANGE_VERBS_EN: &[&str] = &[
    "drop",
    "move",
    "migrat",
    "switch",
    "adopt",
    "deprecat",
    "remov",
    "replac",
    "standardiz",
    "keep",
    "split",
    "merg",
    "freez",
    "sunset",
    "retir",
    "upgrad",
    "downgrad",
    "pin",
    "stick",
    "stop",
    "start",
    "go with",
    "going with",
    "consolidat",
    "rewrit",
    "port",
];

const DECISION_EN: &[&str] = &[
    "we decided",
    "we've decided",
    "we have decided",
    "i decided",
    "i've decided",
    "i have decided",
    "team decided",
    "we agreed",
    "we've agreed",
    "team agreed",
    "we all agreed",
    "we chose",
    "we've chosen",
    "we have chosen",
    "we picked",
    "we settled on",
    "we've settled on",
    "we're going with",
    "we are going with",
    "we'll go with",
    "we will go with",
    "let's go with",
    "let's use",
    "let's switch",
    "let's stick with",
    "let's move to",
    "we switched",
    "we've switched",
    "we're switching",
    "we are switching",
    "we'll use",
    "we will use",
    "we'll write",
    "we will write",
    "we're going to use",
    "we are going to use",
    "we'll migrate",
    "we will migrate",
    "we'll drop",
    "we will drop",
    "decision:",
    "the decision is",
    "we went with",
    "going with",
    "decided to",
    "agreed to",
    "we chose",
    "we're sticking with",
    "we are sticking with",
    "we'll stick with",
    "we will stick with",
    "let's standardize on",
    "let's standardise on",
    "let's drop",
    "let's keep using",
    "let's not use",
];

/// A sentence opening with one of these reports a decision ("Decided:
/// helm charts stay in one repo", "Agreed, we ship weekly").
const DECISION_STARTS_EN: &[&str] = &[
    "decided",
    "decision",
    "agreed",
    "settled",
    "final call",
    "final decision",
    "the plan is",
    "the call is",
];

const PREFERENCE_EN: &[&str] = &[
    "i prefer",
    "i'd prefer",
    "i would prefer",
    "i really prefer",
    "i'd rather",
    "i would rather",
    "i like",
    "i really like",
    "i love",
    "i hate",
    "i really hate",
    "i dislike",
    "i don't like",
    "i do not like",
    "i can't stand",
    "i cannot stand",
    "i'm a fan of",
    "i am a fan of",
    "i'm a big fan of",
    "i'm not a fan of",
    "i am not a fan of",
    "i'm not a big fan of",
    "drives me crazy",
    "drives me nuts",
    "i enjoy",
    "i'd like you to",
    "i would like you to",
    "my favourite",
    "my favorite",
    "i always",
    "i never",
    "i usually",
    "i tend to",
    "i want you to",
    "please always",
    "please never",
    "please don't",
    "please do not",
    "please avoid",
    "from now on",
    "going forward",
    "in the future",
    "for anything",
    "for any ",
    "whenever you",
    "every time you",
    "each time you",
    "make sure to always",
    "make sure you always",
];

/// A standing instruction opens with one of these ("Never print secrets").
const INSTRUCTION_STARTS_EN: &[&str] = &[
    "always",
    "never",
    "don't",
    "do not",
    "avoid",
    "prefer",
    "stick to",
    "only use",
    "stop",
    "please stop",
    "please keep",
    "keep using",
    "for anything",
    "for any",
    "for all",
    "whenever",
    "every time",
    "any time",
    "anytime",
];

/// "Use X instead of Y": an instruction when it says what over what.
const USE_OVER_EN: &[&str] = &[
    " instead of ",
    " rather than ",
    " over ",
    " not ",
    " everywhere",
    " whenever ",
    " when you ",
    " for all ",
    " in all ",
];

/// Pointing words: an instruction about *this* thing is a task, not a rule.
const DEICTIC_EN: &[&str] = &[
    "this", "that", "it", "these", "those", "the last", "there", "here",
];

/// A rule scoped to the task at hand, or to what the assistant just
/// showed, is not a standing one.
const MOMENT_EN: &[&str] = &[
    "for this change",
    "for this pr",
    "in this pr",
    "for this one",
    "for now",
    "this time",
    "right now",
    "yet",
    "you showed",
    "you wrote",
    "you suggested",
    "you proposed",
    "you just",
    "if you just",
    "that one",
    "this one",
    "the first one",
    "the second one",
    "the last one",
    "the first version",
    "the second version",
];

/// Explicit asks to keep something.
const REMEMBER_EN: &[&str] = &[
    "remember that",
    "please remember",
    "remember:",
    "note that",
    "please note",
    "keep in mind",
    "fyi",
    "for the record",
    "heads up",
    "for future reference",
    "don't forget that",
];

/// Facts about the speaker.
const SELF_FACT_EN: &[&str] = &[
    "my name is",
    "my name's",
    "i maintain ",
    "i own ",
    "i lead ",
    "i manage ",
    "i'm responsible for",
    "i am responsible for",
    "i'm the ",
    "i am the ",
    "i'm called",
    "call me ",
    "i am a ",
    "i'm a ",
    "i am an ",
    "i'm an ",
    "i work ",
    "i live ",
    "i'm based ",
    "i am based ",
    "i'm from ",
    "i am from ",
    "my timezone",
    "my time zone",
    "my role",
    "my team ",
    "my pronouns",
];

/// A sentence about the project or team opens with one of these.
const PROJECT_STARTS_EN: &[&str] = &[
    "our ",
    "we use ",
    "we're using ",
    "we are using ",
    "we run ",
    "we deploy ",
    "we host ",
    "we ship ",
    "this repo",
    "this project",
    "this codebase",
    "the repo",
    "the project",
    "the team",
    "the ",
    "production ",
    "prod ",
    "staging ",
];

/// Somewhere in a durable statement about the project, one of these.
const STABLE_MARKERS_EN: &[&str] = &[
    "in this repo",
    "in this project",
    "in our repo",
    "in this codebase",
    "owned by",
    "is owned",
    "is maintained",
    " since ",
    " every ",
];

/// What people do with things; "Alice Chen owns billing".
const ROLE_VERBS_EN: &[&str] = &[
    "owns",
    "maintains",
    "handles",
    "leads",
    "manages",
    "runs",
    "is",
    "was",
    "works",
    "is responsible",
    "looks after",
    "takes care",
    "reviews",
];

/// Words of the moment: a sentence with one is about today's task.
const TRANSIENT_EN: &[&str] = &[
    "again",
    "still",
    "fails",
    "failing",
    "failed",
    "error",
    "broken",
    "crash",
    "panic",
    "bug",
    "red",
    "wrong",
    "slow",
    "today",
    "right now",
    "this time",
    "flaky",
    "complains",
    "looks good",
    "works now",
    "stack trace",
];

/// Numbers as words past [`crate::meaning::NUMBER_WORDS`] (zero to twelve).
const LARGER_NUMBER_WORDS_EN: &[&str] = &["twenty", "thirty", "hundred", "thousand", "dozen"];

const CORRECTION_ZH: &[&str] = &[
    "不对",
    "其实是",
    "实际上是",
    "搞混",
    "弄混",
    "记混",
    "说反了",
    "之前说的",
    "刚才说的",
    "上次说的",
    "更正",
    "说错了",
    "搞错了",
    "记错了",
    "纠正",
    "弄错了",
    "写错了",
    "不是这样",
    "不准确",
    "说的不准",
];
const DECISION_ZH: &[&str] = &[
    "决定",
    "选了",
    "选择了",
    "选定",
    "采用",
    "改用",
    "定了",
    "统一用",
    "我们同意",
    "敲定",
    "那就",
    "就用",
    "就定",
    "定成",
    "定为",
    "定下来",
    "就这么办",
    "就这样吧",
];
/// "我们下个季度把 auth 迁到 Keycloak": we, moving something.
const CHANGE_VERBS_ZH: &[&str] = &[
    "迁到",
    "迁移到",
    "换成",
    "换到",
    "切到",
    "切换到",
    "升级到",
    "改成",
    "统一",
    "废弃",
    "下线",
];
const PREFERENCE_ZH: &[&str] = &[
    "我喜欢",
    "不喜欢",
    "最喜欢",
    "比较喜欢",
    "一直喜欢",
    "倾向于",
    "的时候请",
    "的时候都",
    "每次都",
    "每次请",
    "我更喜欢",
    "我偏好",
    "我倾向",
    "我不喜欢",
    "我讨厌",
    "我习惯",
    "受不了",
    "以后",
    "今后",
    "从现在起",
    "从现在开始",
    "不要用",
    "别用",
    "不要",
    "总是",
    "一律",
    "永远不要",
    "务必",
    "尽量",
    "优先用",
    "优先使用",
    "习惯用",
    "偏好",
];
const FACT_ZH: &[&str] = &[
    "我叫",
    "我是",
    "工作",
    "我住在",
    "时区",
    "我们的",
    "我们用",
    "我们使用",
    "这个项目",
    "项目使用",
    "负责",
    "维护",
    "部署在",
    "端口是",
    "地址是",
    "请记住",
    "记住",
    "记一下",
    "经理",
    "负责人",
    "工程师",
    "设计师",
    "主管",
    "架构师",
];
/// Hedged or hypothetical: a guess, an option weighed, a condition not
/// met. Not a memory, whatever else the sentence says.
const HEDGES_EN: &[&str] = &[
    "maybe",
    "perhaps",
    "might",
    "possibly",
    "probably",
    "i think",
    "i guess",
    "i suppose",
    "i'm not sure",
    "i am not sure",
    "not sure",
    "i wonder",
    "wondering",
    "what if",
    "we could",
    "could we",
    "we might",
    "in theory",
    "hypothetically",
    "thinking about",
    "considering",
    "whether",
    "i'm tempted",
];
const HEDGES_ZH: &[&str] = &[
    "也许",
    "可能",
    "或许",
    "大概",
    "要不要",
    "考虑",
    "不确定",
    "如果",
    "是不是",
    "好像",
    "不知道",
];
/// What the speaker does not know or does by habit of mind ("I never
/// remember the flag", "I always forget"): not a liking.
const MIND_VERBS_EN: &[&str] = &[
    "remember",
    "forget",
    "know",
    "recall",
    "understand",
    "get",
    "decide",
    "notice",
    "mix",
    "think",
    "find",
    "check",
];
/// A choice for now, not for good ("I decided to just delete the
/// branch", "我决定先去吃个饭").
const MOMENT_DECISION_EN: &[&str] = &["just", "first", "for now", "for today", "this time"];
const MOMENT_ZH: &[&str] = &["先", "这次", "今天", "暂时"];
/// A sentence opening with these is about the moment ("never mind, ...").
const DISMISS_EN: &[&str] = &["never mind", "nevermind", "nvm", "forget it", "forget that"];
/// Incident and log words: a sentence with one reports what happened.
const INCIDENT_EN: &[&str] = &[
    "nan",
    "diverged",
    "oom",
    "timed out",
    "timeout",
    "exception",
    "traceback",
    "segfault",
    "died",
    "dying",
    "hangs",
    "hung",
    "stuck",
];

const TRANSIENT_ZH: &[&str] = &[
    "报错", "失败", "错误", "崩溃", "又", "还是", "今天", "一下", "帮我", "看看", "等下", "待会",
];
const QUESTION_ZH: &[&str] = &["吗", "呢", "什么", "为什么", "怎么", "能不能", "是否"];

/// Sentences of `text`: ends at `!`, `?`, `。`, `！`, `？`, line breaks and
/// any character of `also`, and at `.` followed by whitespace or the end (so
/// `3.12` and `node.js` stay whole). Each keeps its closing punctuation.
pub(crate) fn sentences<'t>(text: &'t str, also: &[char]) -> Vec<&'t str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next_is_space = chars.peek().is_none_or(|(_, n)| n.is_whitespace());
        let ends = matches!(c, '!' | '?' | '。' | '！' | '？' | '\n')
            || also.contains(&c)
            || (c == '.' && next_is_space);
        if ends {
            let end = at + c.len_utf8();
            if let Some(sentence) = text.get(start..end) {
                out.push(sentence.trim());
            }
            start = end;
        }
    }
    if let Some(rest) = text.get(start..) {
        out.push(rest.trim());
    }
    out.retain(|s| !s.is_empty());
    out
}

/// What follows each place `phrase` stands in `lower` at a word start.
/// The places are found by the phrase's first byte: a sentence is read
/// against some hundreds of phrases, and building a substring searcher
/// for each cost more than the scan.
fn after_word_start<'l>(lower: &'l str, phrase: &'l str) -> impl Iterator<Item = &'l str> {
    let first = phrase.as_bytes().first().copied();
    lower
        .bytes()
        .enumerate()
        .filter(move |(_, b)| Some(*b) == first)
        .filter_map(move |(at, _)| {
            let rest = lower.get(at..)?.strip_prefix(phrase)?;
            let starts_word = lower
                .get(..at)?
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric());
            starts_word.then_some(rest)
        })
}

/// Whether one of `phrases` stands in `lower` at a word start: one pass
/// over the places a word may start, each compared with every phrase.
fn any_at_word_start(lower: &str, phrases: &[&str]) -> bool {
    let mut after_alphanumeric = false;
    lower.char_indices().any(|(at, c)| {
        let starts_word = !after_alphanumeric;
        after_alphanumeric = c.is_alphanumeric();
        starts_word
            && lower
                .get(at..)
                .is_some_and(|rest| phrases.iter().any(|p| rest.starts_with(p)))
    })
}

/// `lower` starts with `phrase` followed by a word boundary.
fn starts_with_word(lower: &str, phrase: &str) -> bool {
    lower.strip_prefix(phrase).is_some_and(|rest| {
        phrase.ends_with([' ', ':'])
            || rest
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric() && c != '\'')
    })
}

fn words(lower: &str) -> impl Iterator<Item = &str> {
    lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
}

fn has_word(lower: &str, list: &[&str]) -> bool {
    words(lower).any(|w| list.contains(&w))
}

fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{9fff}' | '\u{f900}'..='\u{faff}')
}

/// Lower case, curly apostrophes made straight, the openers left off.
fn normalized(sentence: &str) -> String {
    let mut lower = sentence
        .to_lowercase()
        .replace(['\u{2019}', '\u{2018}'], "'");
    loop {
        let before = lower.len();
        for opener in OPENERS_EN {
            if starts_with_word(&lower, opener) {
                lower = lower[opener.len()..]
                    .trim_start_matches([',', ':', ' ', '-'])
                    .to_owned();
            }
        }
        if lower.len() == before {
            return lower;
        }
    }
}

fn is_question(sentence: &str, lower: &str) -> bool {
    if sentence.ends_with('?') || sentence.ends_with('？') {
        return true;
    }
    let cjk = sentence.chars().any(is_cjk);
    cjk && QUESTION_ZH.iter().any(|q| {
        sentence
            .trim_end_matches(['。', '！', '.', '!'])
            .ends_with(q)
            || sentence.starts_with(q)
    }) || [
        "can you ",
        "could you ",
        "would you ",
        "will you ",
        "why ",
        "how ",
        "what ",
        "where ",
        "when ",
        "is there ",
        "are there ",
        "do we ",
        "does ",
        "should we ",
    ]
    .iter()
    .any(|q| lower.starts_with(q))
}

/// A sentence that only marks what follows as a correction.
fn is_bare_marker(lower: &str, sentence: &str) -> bool {
    let bare = lower.trim_end_matches(['.', '!', ',', ':', ' ', '…']);
    CORRECTION_MARKERS_EN.contains(&bare)
        || ["不对", "不是", "等等", "更正", "说错了"]
            .contains(&sentence.trim_end_matches(['，', '。', '！', ',', '.', ':', '：']))
}

/// A specific value: a digit, a number word, a name or product further in
/// (a capital not at the start), or a host/path-like token.
fn has_specific_value(sentence: &str, lower: &str) -> bool {
    if sentence.chars().any(|c| c.is_ascii_digit())
        || has_word(lower, crate::meaning::NUMBER_WORDS)
        || has_word(lower, LARGER_NUMBER_WORDS_EN)
    {
        return true;
    }
    let mut tokens = sentence.split_whitespace();
    tokens.next();
    tokens.any(|t| {
        let t = t.trim_matches(|c: char| !c.is_alphanumeric());
        t.chars().next().is_some_and(char::is_uppercase)
            || (t.len() > 3 && t.contains(['.', '/']) && t.chars().any(char::is_alphabetic))
    }) || engram_text::calendar::WEEKDAYS
        .iter()
        .any(|d| has_word(lower, &[d]))
}

/// "Alice Chen owns billing": a capitalized name, then what the person does.
fn is_person_statement(sentence: &str) -> bool {
    let tokens: Vec<&str> = sentence.split_whitespace().take(4).collect();
    let capital = |t: &&str| t.chars().next().is_some_and(char::is_uppercase);
    let Some(first) = tokens.first() else {
        return false;
    };
    // A function word is no name ("Here is what I ran").
    if !capital(first)
        || engram_text::tokenize::is_stopword(&first.to_lowercase())
        || [
            "The", "This", "That", "It", "I", "We", "Our", "My", "You", "Please", "Let's",
        ]
        .contains(first)
    {
        return false;
    }
    let name_words = tokens.iter().take_while(|t| capital(t)).count();
    let rest = tokens[name_words.min(tokens.len())..]
        .join(" ")
        .to_lowercase();
    (1..=3).contains(&name_words)
        && ROLE_VERBS_EN
            .iter()
            .any(|v| rest == *v || rest.starts_with(&format!("{v} ")))
}

/// "we're dropping", "we'll keep": the team and a change, a word or two apart.
fn is_we_will_change(lower: &str) -> bool {
    WE_WILL_EN.iter().any(|we| {
        after_word_start(lower, we).any(|after| {
            after.starts_with(' ')
                && words(after)
                    .take(2)
                    .any(|w| CHANGE_VERBS_EN.iter().any(|v| w.starts_with(v)))
        })
    })
}

/// "No, the DB is on 5433", "Wait, I said 5 but it's 3": a correction
/// without a fixed phrase.
fn is_opened_correction(lower: &str) -> bool {
    let opened = CORRECTION_OPENERS_EN
        .iter()
        .find_map(|o| lower.strip_prefix(o));
    let statement = |rest: &str| {
        let rest = rest.trim_start_matches([',', ' ']);
        !INSTRUCTION_STARTS_EN
            .iter()
            .any(|p| starts_with_word(rest, p))
            && !starts_with_word(rest, "please")
            && has_word(rest, STATEMENT_VERBS_EN)
    };
    opened.is_some_and(statement)
        || (any_at_word_start(lower, &["i said", "i told you", "i mentioned", "you said"])
            && (lower.contains(" but ") || lower.contains("actually")))
}

/// "The bucket isn't in eu-central-1, it's eu-west-1": a denial, then
/// what is so. ("Our cluster lives in eu-west-1, not us-east-1" states a
/// fact: the denial comes second.)
fn is_contrast_correction(lower: &str) -> bool {
    any_at_word_start(
        lower,
        &["isn't", "is not", "aren't", "are not", "wasn't", "was not"],
    ) && [
        ", it's ",
        ", it is ",
        ", they're ",
        ", they are ",
        ", that's ",
        "; it's ",
        " but it's ",
        " but it is ",
        " - it's ",
        " — it's ",
    ]
    .iter()
    .any(|p| lower.contains(p))
}

/// An instruction to do something every time: opens with an instruction
/// word ("Never print secrets", "Use X instead of Y"), or ends by saying
/// so ("only touch the lines you change, always").
fn is_standing_instruction(lower: &str) -> bool {
    let instruction = INSTRUCTION_STARTS_EN
        .iter()
        .find_map(|p| starts_with_word(lower, p).then(|| lower[p.len()..].trim_start()));
    let ending = lower.trim_end_matches(['.', '!', ' ']);
    instruction.is_some_and(|rest| !is_pointed(rest))
        || (starts_with_word(lower, "use")
            && USE_OVER_EN.iter().any(|p| lower.contains(p))
            && !is_pointed(&lower[3..]))
        || ([", always", ", never", ", every time", "every single time"]
            .iter()
            .any(|e| ending.ends_with(e))
            && !starts_with_word(lower, "i"))
}

/// The first words after a verb name *this* thing: a task, not a rule.
fn is_pointed(rest: &str) -> bool {
    let head: Vec<&str> = words(rest).take(3).collect();
    DEICTIC_EN.iter().any(|d| head.contains(d)) || rest.starts_with("mind")
}

/// "We train on SLURM", "we're on Unity 2022.3": the team's habit, a verb
/// in the present after "we" (not a modal, not a past tense).
fn is_we_habit(lower: &str) -> bool {
    const NOT_HABITS: &[&str] = &[
        "should", "could", "would", "can", "need", "needs", "might", "must", "may", "will",
        "shall", "did", "do", "don't", "just", "also", "still", "had", "were", "was", "got",
        "want", "gotta", "tried", "probably", "really", "finally", "now",
    ];
    if [
        "we're on ",
        "we are on ",
        "we're running ",
        "we are running ",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
    {
        return true;
    }
    lower.strip_prefix("we ").is_some_and(|rest| {
        words(rest)
            .next()
            .is_some_and(|verb| !NOT_HABITS.contains(&verb) && !verb.ends_with("ed"))
    })
}

fn classify_en(sentence: &str, lower: &str) -> Option<Kind> {
    if DISMISS_EN.iter().any(|p| starts_with_word(lower, p)) {
        return None;
    }
    if CORRECTION_STARTS_EN
        .iter()
        .any(|p| starts_with_word(lower, p))
        || any_at_word_start(lower, CORRECTION_ANYWHERE_EN)
        || is_opened_correction(lower)
        || (is_contrast_correction(lower) && !is_standing_instruction(lower))
    {
        return Some(Kind::Correction);
    }
    if any_at_word_start(lower, DECISION_EN)
        || is_we_will_change(lower)
        || DECISION_STARTS_EN
            .iter()
            .any(|p| starts_with_word(lower, p))
        || lower.trim_end_matches(['.', '!', ' ']).ends_with(" it is")
    {
        // "I decided to just delete the branch": a choice for now.
        let for_now = starts_with_word(lower, "i") && any_at_word_start(lower, MOMENT_DECISION_EN);
        return (!for_now).then_some(Kind::Decision);
    }
    let of_the_moment = any_at_word_start(lower, MOMENT_EN);
    if !of_the_moment && is_standing_instruction(lower) {
        return Some(Kind::Preference);
    }
    let transient = any_at_word_start(lower, TRANSIENT_EN) || any_at_word_start(lower, INCIDENT_EN);
    // "Jonas is the only one with prod access, so ask him": about a person.
    if !transient && is_person_statement(sentence) {
        return Some(Kind::Fact);
    }
    if !of_the_moment
        && PREFERENCE_EN.iter().any(|p| {
            // "I like this approach" is about the moment; "I like small PRs"
            // is not; "I never remember the flag" is no liking.
            after_word_start(lower, p).any(|after| {
                !is_pointed(after)
                    && !words(after)
                        .next()
                        .is_some_and(|w| MIND_VERBS_EN.iter().any(|v| w.starts_with(v)))
            })
        })
    {
        return Some(Kind::Preference);
    }
    if any_at_word_start(lower, REMEMBER_EN) || any_at_word_start(lower, SELF_FACT_EN) {
        return Some(Kind::Fact);
    }
    if transient {
        return None;
    }
    // "The SLA doc is where that number comes from" points into the talk.
    let without_own = ["this repo", "this project", "this codebase"]
        .iter()
        .fold(lower.to_owned(), |text, own| text.replace(own, ""));
    let about_project = (PROJECT_STARTS_EN.iter().any(|p| starts_with_word(lower, p))
        || is_we_habit(lower))
        && !has_word(&without_own, &["this", "that", "it", "these", "those"]);
    let stable = any_at_word_start(lower, STABLE_MARKERS_EN);
    if about_project && (stable || has_specific_value(sentence, lower)) {
        return Some(Kind::Fact);
    }
    None
}

/// "不是 README，支持列表在 docs 里", "用的是 Riverpod，不是 Bloc": a
/// clause that denies, beside one that states.
fn is_contrast_correction_zh(sentence: &str) -> bool {
    let clauses: Vec<&str> = sentence
        .split(['，', ',', '；', ';'])
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    clauses.len() >= 2 && clauses.iter().any(|c| c.starts_with("不是"))
}

fn classify_zh(sentence: &str) -> Option<Kind> {
    let contains = |list: &[&str]| list.iter().any(|p| sentence.contains(p));
    let corrected_value = (sentence.contains("应该是") || sentence.contains("其实"))
        && (sentence.contains("不是")
            || sentence.contains("已经")
            || sentence.contains("换成")
            || sentence.contains("改成"));
    if contains(CORRECTION_ZH) || corrected_value || is_contrast_correction_zh(sentence) {
        return Some(Kind::Correction);
    }
    if contains(DECISION_ZH) || (sentence.contains("我们") && contains(CHANGE_VERBS_ZH)) {
        // "我决定先去吃个饭": my choice for now.
        let for_now = sentence.contains('我') && !sentence.contains("我们") && contains(MOMENT_ZH);
        return (!for_now).then_some(Kind::Decision);
    }
    // "以后再说": later, not from now on.
    if contains(PREFERENCE_ZH) && !sentence.contains("以后再") {
        return Some(Kind::Preference);
    }
    if contains(FACT_ZH) && !contains(TRANSIENT_ZH) {
        return Some(Kind::Fact);
    }
    None
}

/// A guess, an option weighed or a condition: not a memory.
fn is_hedged(sentence: &str, lower: &str) -> bool {
    any_at_word_start(lower, HEDGES_EN) || HEDGES_ZH.iter().any(|h| sentence.contains(h))
}

/// What `sentence` (`lower` is it [`normalized`]) is, if it is worth
/// remembering; `after_marker` when the sentence before it in the turn was
/// a bare correction marker.
fn classify(sentence: &str, lower: &str, after_marker: bool) -> Option<Kind> {
    if sentence.chars().count() < SENTENCE_CHARS_MIN || is_question(sentence, lower) {
        return None;
    }
    let cjk = sentence.chars().filter(|c| is_cjk(*c)).count();
    let kind = if cjk * 4 >= sentence.chars().filter(|c| !c.is_whitespace()).count() {
        classify_zh(sentence).or_else(|| classify_en(sentence, lower))
    } else {
        classify_en(sentence, lower).or_else(|| classify_zh(sentence))
    };
    // Read last: most sentences are chatter, and a hedge makes any kind none.
    if (kind.is_some() || after_marker) && is_hedged(sentence, lower) {
        return None;
    }
    if after_marker {
        // "Wait, no. The frontend is on 5173": the statement corrects.
        let statement = kind.is_some_and(|k| k != Kind::Preference)
            || has_specific_value(sentence, lower)
            || cjk > 0;
        return statement.then_some(Kind::Correction);
    }
    kind
}

/// A line of code or of a log, never a memory: indented four spaces or a
/// tab, a stack frame, a log line (a timestamp or a level first), a shell
/// prompt, a quote, or mostly code punctuation.
fn is_code_or_log(line: &str) -> bool {
    let t = line.trim();
    if line.starts_with("    ") || line.starts_with('\t') {
        return true;
    }
    let frame = (t.starts_with("at ") && t.ends_with(')'))
        || t.starts_with("File \"")
        || t.starts_with("Traceback")
        || t.starts_with("thread '")
        || t.contains("panicked at")
        || t.starts_with("error[")
        || t.starts_with("$ ")
        || t.starts_with("> ")
        || t.starts_with("#!");
    let bytes = t.as_bytes();
    let timestamp = bytes.len() >= 10
        && bytes.iter().take(4).all(u8::is_ascii_digit)
        && bytes.get(4) == Some(&b'-');
    let level = t.split_whitespace().take(3).any(|w| {
        let w = w.trim_matches(['[', ']', ':']);
        [
            "INFO", "WARN", "WARNING", "ERROR", "DEBUG", "TRACE", "FATAL",
        ]
        .contains(&w)
    });
    let punctuation = t.chars().filter(|c| "{}[]();=<>|\\$`".contains(*c)).count();
    let code = punctuation >= 4 && punctuation * 10 > t.chars().count()
        || t.ends_with(['{', ';'])
        || t == "}";
    frame || timestamp || level || code
}

/// The prose of `content`: its lines outside fenced code blocks that are
/// not code or a log ([`is_code_or_log`]).
fn prose_lines(content: &str) -> impl Iterator<Item = &str> {
    let mut fenced = false;
    content.lines().filter(move |line| {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            return false;
        }
        !fenced && !is_code_or_log(line)
    })
}

/// Proposals from `turns` (seq, role, content): user turns only (what the
/// user said about themselves or the project), in seq order. Code blocks,
/// code lines and log lines are skipped.
#[must_use]
pub fn proposals(turns: &[(u64, Role, &str)]) -> Vec<Proposal> {
    let mut out = Vec::new();
    for &(seq, role, content) in turns {
        if role != Role::User {
            continue;
        }
        let mut after_marker = false;
        for sentence in prose_lines(content).flat_map(|line| sentences(line, &[])) {
            let lower = normalized(sentence);
            if is_bare_marker(&lower, sentence) {
                after_marker = true;
                continue;
            }
            if let Some(kind) = classify(sentence, &lower, after_marker) {
                out.push(Proposal {
                    seq,
                    sentence: sentence.to_owned(),
                    kind,
                });
            }
            after_marker = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn got(turns: &[(u64, Role, &str)]) -> Vec<(u64, String, Kind)> {
        proposals(turns)
            .into_iter()
            .map(|p| (p.seq, p.sentence, p.kind))
            .collect()
    }

    #[test]
    fn preferences_decisions_and_facts_are_proposed_from_user_turns() {
        let turns = [
            (
                1,
                Role::User,
                "Hi there. I prefer tabs over spaces in Go code. Can you fix the build?",
            ),
            (2, Role::Assistant, "I like that idea, I will use tabs."),
            (
                3,
                Role::User,
                "We decided to ship on Fridays only.\nThanks!",
            ),
            (
                4,
                Role::User,
                "我喜欢用 Python 3.12 做数据分析。今天天气不错。",
            ),
            (5, Role::User, "Do you always use tabs?"),
            (6, Role::User, "This is unlike anything; brilliant."),
        ];
        assert_eq!(
            got(&turns),
            [
                (
                    1,
                    "I prefer tabs over spaces in Go code.".to_owned(),
                    Kind::Preference
                ),
                (
                    3,
                    "We decided to ship on Fridays only.".to_owned(),
                    Kind::Decision
                ),
                (
                    4,
                    "我喜欢用 Python 3.12 做数据分析。".to_owned(),
                    Kind::Preference
                ),
            ]
        );
    }

    #[test]
    fn a_remembered_fact_and_its_correction_are_both_proposed() {
        let turns = [
            (
                1,
                Role::User,
                "Please remember the deploy window is Tuesday between 2 and 4pm.",
            ),
            (
                2,
                Role::User,
                "Actually the deploy window moved to Wednesday.",
            ),
        ];
        let kinds: Vec<Kind> = got(&turns).into_iter().map(|(_, _, k)| k).collect();
        assert_eq!(kinds, [Kind::Fact, Kind::Correction]);
    }

    #[test]
    fn a_bare_marker_makes_the_next_statement_a_correction() {
        let turns = [(
            1,
            Role::User,
            "Wait, no. The frontend is on port 5173, the backend on 3000.",
        )];
        assert_eq!(
            got(&turns),
            [(
                1,
                "The frontend is on port 5173, the backend on 3000.".to_owned(),
                Kind::Correction
            )]
        );
    }

    #[test]
    fn instructions_about_this_thing_are_tasks_not_rules() {
        let turns = [
            (1, Role::User, "Don't change that file."),
            (2, Role::User, "Never mind, it works."),
            (3, Role::User, "I like this approach, go ahead."),
            (4, Role::User, "Never use unwrap in library code."),
        ];
        assert_eq!(
            got(&turns),
            [(
                4,
                "Never use unwrap in library code.".to_owned(),
                Kind::Preference
            )]
        );
    }

    #[test]
    fn people_are_facts_and_chatter_is_nothing() {
        let turns = [
            (1, Role::User, "Alice Chen owns the billing service."),
            (2, Role::User, "The build is red again."),
            (3, Role::User, "Try adding a print statement there."),
            (4, Role::User, "张伟负责后端的部署。"),
            (5, Role::User, "帮我看看这个测试为什么失败？"),
        ];
        let kinds: Vec<(u64, Kind)> = got(&turns).into_iter().map(|(s, _, k)| (s, k)).collect();
        assert_eq!(kinds, [(1, Kind::Fact), (4, Kind::Fact)]);
    }

    fn kinds(turns: &[&str]) -> Vec<Option<Kind>> {
        turns
            .iter()
            .map(|t| {
                let got = proposals(&[(1, Role::User, t)]);
                assert!(got.len() <= 1, "{t:?}: {got:?}");
                got.first().map(|p| p.kind)
            })
            .collect()
    }

    #[test]
    fn corrections_without_a_fixed_opener() {
        let turns = [
            "Hold on, no, the cutoff is 6pm.",
            "The cache isn't Redis, it's Memcached.",
            "I mixed them up: staging is on 10.0.0.2.",
            "其实是周四上午开会。",
            "前端用的是 pnpm，不是 npm。",
            "不是 8080，改到 9090 了。",
        ];
        assert_eq!(kinds(&turns), [Some(Kind::Correction); 6]);
    }

    #[test]
    fn preferences_and_decisions_said_indirectly() {
        let preferences = [
            "I'm not a fan of trailing commas in JSON.",
            "Only touch the lines you need to change, always.",
            "尽量用中文回复我。",
        ];
        assert_eq!(kinds(&preferences), [Some(Kind::Preference); 3]);
        let decisions = [
            "Decided: the cron jobs move to Nomad.",
            "Postgres it is.",
            "We won't upgrade Node until the audit is done.",
            "发版日我们定成每周四。",
        ];
        assert_eq!(kinds(&decisions), [Some(Kind::Decision); 4]);
    }

    #[test]
    fn hedges_guesses_and_choices_of_the_moment_are_not_memories() {
        let turns = [
            "Maybe we should switch to Postgres.",
            "I think we're going with Kafka.",
            "We might move the docs to mdBook next year.",
            "I'm not sure whether the staging DB is on 5433.",
            "也许我们以后改用 Kafka。",
            "Never mind, I decided to just delete the branch.",
            "我决定先去吃个饭，回来再看。",
            "I never remember the flag for verbose output.",
            "I'd prefer you not restart the controller yet.",
        ];
        assert_eq!(kinds(&turns), [None; 9]);
    }

    #[test]
    fn code_logs_and_stack_traces_are_never_proposed() {
        let turn = "Here is what I ran:\n\
                    ```\n\
                    // We always use tabs in this file.\n\
                    let port = 8080; // the API listens on 8080\n\
                    ```\n\
                    2024-05-01 12:00:03 ERROR we decided to retry the upload\n\
                    [WARN] our cache lives on redis-2 since 2021\n\
                    thread 'main' panicked at src/main.rs:10:5\n\
                    \x20   at Billing.charge (billing.js:42:7)\n\
                    I prefer tabs over spaces in Go code.";
        assert_eq!(
            proposals(&[(1, Role::User, turn)]),
            [Proposal {
                seq: 1,
                sentence: "I prefer tabs over spaces in Go code.".to_owned(),
                kind: Kind::Preference,
            }]
        );
    }
}

//! Ingest extraction: memories proposed from a transcript's turns, in
//! English and Chinese, each referencing its exact source turn and labelled
//! with its [`Kind`]: a stated **preference** or standing instruction, a
//! **decision**, a **correction** of something said before, or a durable
//! **fact** about the user, the people or the project. The proposals go
//! through the same save path as any memory (gates, the four outcomes), so
//! a restated preference reinforces instead of duplicating, and a
//! correction that contradicts what it corrects supersedes it.
//!
//! A turn's prose is split into sentences (`.`, `!`, `?`, `。`, `！`, `？`,
//! line breaks; a lone `?` is an operator); fenced code blocks, indented
//! code, stack frames, log lines (a timestamp or a level first) and lines
//! mostly of code punctuation are never read. Each sentence of a user turn
//! is read on its own by rules, in order: questions, hedged or
//! hypothetical sentences ("maybe we should", "I think", "也许", "感觉")
//! and sentences shorter than [`SENTENCE_CHARS_MIN`] are never proposed;
//! then
//!
//! - a correction: a marker ("actually", "no wait", "make that", "其实是"),
//!   also after an interjection ("wait, actually ..."), an admission
//!   ("I mixed them up"), a denial then what is so ("it isn't X, it's Y",
//!   "X, not Y", "not X but Y", "不是 X，是 Y", "姓刘，不姓柳"), what was
//!   said before named beside a denial ("like I said", "you wrote"), a
//!   thing whose value changed ("moved to", "is now", "改到…了", "涨到"),
//!   a value put right midway ("rent actually went up to", "isn't ...
//!   anymore", "it's 38, not 40") or a plan reversed ("... after all");
//! - a decision: a marker ("we decided", "let's go with", "决定", "就用"),
//!   the team and a change ("we're moving CI to"), a choice concluded ("let's
//!   do the SSD then", "用 citext 吧"), a lasting choice about how things
//!   are ("... should run at 18:00 from now on", "every chart gets an exact
//!   version", "going forward all changes go through ..."), "let's" and a
//!   verb of choice ("let's do LXC on pve2"), an option and "then"
//!   ("SQLite then, ..."), the speaker's own move ("I'm moving X from A to
//!   B"), the speaker taking on something that recurs ("I'll log it every
//!   morning", "I'm going to swim twice a week"), a change the team has planned for a next sprint or week,
//!   an amount settled on ("let's say $800 a month"), the
//!   speakers' way and the one they rule out ("我们坐地铁去，不坐出租车"),
//!   a value after "那就" ("那就 3 个副本"), "就 X 吧", a time fixed ("定在"),
//!   a date the speakers concluded on ("那我们 12 号走"), "那我就" and a
//!   verb of choice ("那我就留三万应急"), a light verb's commitment to a
//!   named thing ("we'll do Lisbon", "I'll take the 7:15 ferry"), a commitment
//!   at the start of a sentence ("we'll skip the JR Pass", "I want to move
//!   to Aurora"; not a step of the talk: "I'll check"), read past an
//!   acknowledgement too ("Great, let's ..."), an intention, a choice
//!   settled or a plan dropped in Chinese (`我打算…`, `想开始`, `就按…`,
//!   `从下周开始…`, `先不…`, `不去…了`),
//!   or the user naming one of the options the assistant just offered
//!   ("threaded loading." after "... or threaded loading?"), or naming
//!   what it put forward with an affirmation ("Avalanche, definitely.",
//!   "go sharded."); stays split
//!   between places ("Tokyo for four nights, then Kyoto for three",
//!   "大理三天、丽江三天"), a choice acted on ("we're booking the barn"),
//!   work put off to a named round ("下个迭代再做"), a plan dropped after
//!   its topic ("缓存先不上");
//! - a preference: a standing instruction ("never print secrets", "use X
//!   instead of Y", "..., always", "keep them short and always ..."), a
//!   rule named as one, a liking, what the speaker does or will not do ("I
//!   don't do X", "I'd like the output to stay plain"), what the speaker
//!   wants of all things of a kind ("I want every handler to ...",
//!   "我希望都用中文写"), a rule over a value ("X should ..., not Y"), an
//!   ask that recurs ("remind me every year", "每周六帮我列清单"), a liking
//!   said for the household or by a named person ("we hate layovers",
//!   "Priya prefers ..."), one thing rather than another whatever the
//!   moment ("I'd rather X than Y right now"), what the speaker wants on a
//!   kind of day or a
//!   limit there ("two coffees max on weekdays"), how the speaker's writing
//!   is styled ("cite with footnotes, not links", "... in my notes"), what
//!   the speaker does not eat ("我不吃香菜"), how early to be reminded;
//!   what the speakers want, narrowed to one kind or over another ("I only
//!   want morning flights", "we want X instead of Y");
//!   what the speakers will not or would rather not do ("I don't want to
//!   open any new cards", "我不想引入 X"), a money limit ("每晚500以内"),
//!   a wish said with `比较想`, `更想` or `不希望` ("我比较想住海边"), a
//!   dislike from too much of a thing ("日料吃腻了");
//! - a fact: something that has lasted ("flaky for months"), a statement
//!   about a named person, about the speaker (family, health, schedules,
//!   trips with dates, appointments with their day ("I have an interview
//!   on Thursday", `下周二有一个面试`), money, what they are making, what they live with:
//!   "I have two kids"), what a thing is built on ("it's a Django 4.2
//!   app", "pve2 has an Intel Arc A380"), or a short subject with a copula and a
//!   specific value (a number, version, port, day, time, name, path:
//!   "target is 60fps", "样式我们是 Tailwind"); what holds for the
//!   speaker's family ("my wife works nights"), an age, a role taken on, a
//!   time served ("turns 40", "will take over as", "been with them six
//!   years"), days named for what the speaker does, a flight out on a date,
//!   what the team is on even "right now"; money the household has or
//!   owes ("I take home about $4,800 a month"), a condition or a medicine
//!   ("she has ADHD"), a life event set on a month, a season or a year
//!   ("we're redoing our kitchen this fall"), what the speaker is making,
//!   a count planned for, a rate ("twice a week"); what someone else is
//!   taken with, even for now ("my son is obsessed with trains right now");
//!   a level or a score the speaker reached ("came out at B1", "托福考了
//!   98", "词汇量大概三千");
//!   in Chinese what someone does not eat, a family member's weekday, an
//!   amount that recurs, a date that cannot move, a thing's name ("叫“飞鸽”"),
//!   the speaker's tool ("我用 Obsidian"), a port, a book's title, money
//!   held or set aside with its amount ("预算大概三十万"), a surname ("经理
//!   姓周"), what the speaker studied ("我本科学的是会计").
//!
//! A user's reply to an assistant's question that gives an amount ("About
//! 40 pipelines." after "how many pipelines do you have?") is a fact.
//!
//! A Chinese sentence that says nothing as a whole (an ask beside a
//! lasting clause, or a statement before the question it raises:
//! "孩子对芒果过敏，要跟学校说吗？", not a recent state asked about) is
//! read clause by clause, and so is an English one at
//! "so", "because" and "but" (a reason or a consequence beside chatter),
//! "and" or a comma before a new subject ("I", "we", "my", "our"); a
//! rule a clause leads to stays with it ("we're on 15, so don't use ..."),
//! and an English sentence whose clauses are of two kinds gives each, as
//! does one whose clauses are each a value or about another person ("I'm
//! vegetarian, and my husband doesn't eat mushrooms", "小林吃素，老陈不吃
//! 辣"). A Chinese semicolon parts two statements; a Chinese statement
//! needs [`CJK_CHARS_MIN`] characters, not [`SENTENCE_CHARS_MIN`]. An
//! admission without the value ("I got the dates wrong.") marks the
//! statement after it as the correction.
//!
//! A choice for now ("I decided to just ..."), a rule about *this* thing
//! ("don't change that file") and the words of the moment ("today", "this
//! week", "again", "failing") make most of these none, so task chatter
//! and incident reports are not proposed. A sentence that is only a
//! correction marker ("Wait, no.") makes the next statement of the same
//! turn a correction. An assistant turn is read only when the user turn
//! before it left the choice to it ("your call", "你定"): its first
//! statement is a decision. A proposal leaves off the words that open a
//! sentence without meaning anything to it ("yeah, ", "btw ", "对了，").
//!
//! The rules are measured on a labelled corpus of transcript turns
//! (`tests/corpus/extract/dev.jsonl`, and a `test.jsonl` split when one is
//! kept; `tests/extract_corpus.rs`).

use engram_log::Role;

/// Shortest sentence worth proposing.
pub const SENTENCE_CHARS_MIN: usize = 8;

/// Shortest Chinese sentence worth proposing, in Chinese characters.
pub const CJK_CHARS_MIN: usize = 4;

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
    "one more thing",
    "for context",
    "then",
    "one last thing",
    "another thing",
];

/// A sentence that starts with one of these corrects something said before.
const CORRECTION_STARTS_EN: &[&str] = &[
    "make that",
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
    "one correction",
    "small correction",
    "quick correction",
    "minor correction",
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
    "i misremembered",
    "i misread",
    "i mistyped",
    "i was mistaken",
    "i stand corrected",
    "my typo",
    "sorry, typo",
    "turns out",
    "on second thought",
    "on second thoughts",
    "change of plan",
    "let me correct",
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
    "mov",
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
    "we opted for",
    "we've opted for",
    "opted to",
    "we landed on",
    "we've landed on",
    "we've gone with",
    "we'll be using",
    "we will be using",
    "i'll go with",
    "i'm going with",
    "i went with",
    "i'm sticking with",
    "i'll stick with",
    "i'll keep using",
    "i'm keeping",
    "i'll stay with",
    "i'll stay on",
    "we'll stay on",
    "we'll stay with",
    "we're staying with",
    "we're staying on",
    "we'll keep using",
    "i chose",
    "i've chosen",
    "i picked",
    "i settled on",
    "let's settle on",
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
    "we prefer",
    "we'd rather",
    "we love",
    "we hate",
    "we like",
    "we really like",
    "we enjoy",
    "i don't trust",
    "i never trust",
    "i'm sick of",
    "i'm tired of",
    "i learn best",
    "i work best",
    "works best for me",
    "we can't stand",
    "we don't like",
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
    "i really dislike",
    "i really love",
    "i really don't like",
    "i strongly prefer",
    "i much prefer",
    "i generally prefer",
    "i absolutely hate",
    "drives me crazy",
    "drives me nuts",
    "i enjoy",
    "i'm into",
    "i'm not into",
    "i'm partial to",
    "i appreciate it when",
    "it annoys me when",
    "i find it annoying when",
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
    "please no",
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
    "my weak spot",
    "my weakest",
    "my weak point",
    "my strongest",
    "my strong point",
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
    // Lasting facts about a person: birth, age, languages, pets, schooling.
    "i was born",
    "my birthday",
    "years old",
    "i speak ",
    "my native language",
    "my first language",
    "i'm married",
    "i am married",
    "i studied",
    "i graduated",
    "my dog",
    "my cat",
    "our dog",
    "our cat",
    // Health and diet: lasting, however the sentence is built.
    "allergic to",
    "i'm vegetarian",
    "i am vegetarian",
    "i'm vegan",
    "i am vegan",
    "i'm pescatarian",
    "i am pescatarian",
    "i'm diabetic",
    "i am diabetic",
    "i'm celiac",
    "i keep kosher",
    "intolerant",
    "i bank with",
    "i get paid",
    "i'm paid",
    "i am paid",
];

/// Family, named by the speaker: "my wife Anna", "our two kids".
const FAMILY_EN: &[&str] = &[
    "my wife",
    "my husband",
    "my partner",
    "my spouse",
    "my son",
    "my daughter",
    "my kids",
    "my children",
    "my mother",
    "my father",
    "my mom",
    "my mum",
    "my dad",
    "my parents",
    "my sister",
    "my brother",
    "our kids",
    "our children",
    "our son",
    "our daughter",
    "our two kids",
    "our three kids",
    "my youngest",
    "my oldest",
    "my eldest",
];

/// A sentence about the project or team opens with one of these.
const PROJECT_STARTS_EN: &[&str] = &[
    "our ",
    "my ",
    "we use ",
    "we're using ",
    "we are using ",
    "we run ",
    "we deploy ",
    "we host ",
    "we ship ",
    // "we're on Godot 4.2", "we're a pnpm monorepo with turborepo".
    "we're on ",
    "we are on ",
    "we're a ",
    "we are a ",
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
    "wrote",
    "built",
    "designed",
    "approves",
    "signs",
    "knows",
    "speaks",
    "prefers",
    "likes",
    "hates",
    "uses",
    "needs",
    "has",
    "does",
    "goes",
    "translates",
    "covers",
    "teaches",
    "studies",
    "plays",
    "trains",
    "lives",
    "drives",
    "picks",
    "expires",
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
    "tonight",
    "tomorrow",
    "yesterday",
    "last night",
    "this morning",
    "this afternoon",
    "this week",
    "right now",
    "this time",
    "flaky",
    "complains",
    "looks good",
    "works now",
    "stack trace",
];

/// How long something has been so: it lasts, whatever else it says.
const DURATION_EN: &[&str] = &[
    "for months",
    "for years",
    "for weeks",
    "for ages",
    "for a long time",
    "for decades",
    "since forever",
];
const COPULAS_EN: &[&str] = &[
    "is", "are", "was", "were", "has", "have", "been", "it's", "that's",
];
/// Markers of a choice that lasts.
const LASTING_EN: &[&str] = &[
    "from now on",
    "going forward",
    "moving forward",
    "from here on",
    "henceforth",
    "for good",
];
/// A standing rule, named as one.
const RULE_EN: &[&str] = &[
    "the rule",
    "a rule",
    "one rule",
    "as a rule",
    "house rule",
    "rule of thumb",
    "the policy",
    "our policy",
    "the convention",
    "our convention",
    // What is not up for discussion.
    "non-negotiable",
    "non negotiable",
    "a hard requirement",
    "a must-have",
    "a dealbreaker",
    "a deal-breaker",
    "a deal breaker",
];
/// What was said before, named: a sentence naming it beside a denial
/// corrects it.
const RECALLED_EN: &[&str] = &[
    "like i said",
    "as i said",
    "i said",
    "i told you",
    "i mentioned",
    "you said",
    "you wrote",
    "you put",
    "you have it as",
    "you've got",
    "you listed",
];
/// What recurs ("every year", "each sprint").
const PERIODS_EN: &[&str] = &[
    "day", "week", "month", "year", "morning", "evening", "night", "sprint", "release", "quarter",
    "weekend",
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
    "口误",
    "打错了",
    "看错了",
    "修正一下",
    "订正",
    "其实不是",
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
    "确定用",
    "最终用",
    "最后决定",
    "选用",
    "拍板",
    "最终选",
    "统一成",
    "那就",
    "就用",
    "就定",
    "定在",
    "定成",
    "定为",
    "定下来",
    "就这么办",
    "就这样吧",
    "不再用",
    "不再使用",
    // "zero dates 全部转成 NULL": all of a kind, changed.
    "全部转成",
    "全部改成",
    "全部换成",
    "都转成",
    "都改成",
    "都换成",
];
/// "我们也不打算上 GraphQL": we, planning.
const PLAN_ZH: &[&str] = &["打算", "计划", "准备"];
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
    "我不太喜欢",
    "我不怎么喜欢",
    "我不大喜欢",
    "喜欢用",
    "爱用",
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
    "我不吃",
    "我不爱",
    "不爱吃",
    "我习惯",
    "受不了",
    // "日料吃腻了": a dislike grown from having had too much of it.
    "吃腻",
    "吃够了",
    "看腻",
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
    "别给我",
    "不要给我",
    "请始终",
    "请一直",
    "记得每次",
    "以后都",
    "不要再",
    "别再",
];
/// A wish or a habit of the speaker ("代码注释我希望都用中文写",
/// "我一般提前 30 分钟出门"): a preference unless it is about the moment
/// ("我希望今天能跑完", "不过这次先这样").
const WISH_ZH: &[&str] = &["我希望", "我们希望", "我一般", "我通常", "我平时", "我向来"];
const FACT_ZH: &[&str] = &[
    // Health and diet, and where home is: lasting facts about a person.
    "过敏",
    "吃素",
    "晕机",
    "晕车",
    "不耐受",
    "老毛病",
    "旧伤",
    "慢性",
    // Family.
    "我老婆",
    "我老公",
    "我妻子",
    "我丈夫",
    "我太太",
    "我先生",
    "我儿子",
    "我女儿",
    "我爸",
    "我妈",
    "我父母",
    // Where things run, what one aims at.
    "跑在",
    "运行在",
    "托管在",
    "我的目标是",
    // Birth, age, home, pets, where the speaker works.
    "我出生",
    "我的生日",
    "我生日",
    "我今年",
    "我老家",
    "我养了",
    // What the speaker signed up for: a course, a race, an exam.
    "我报了",
    "户口在",
    "我家有",
    "我们家有",
    "我们公司",
    "我们团队",
    // Rules set by others: a school, a company, a contract.
    "学校要求",
    "学校规定",
    "公司要求",
    "公司规定",
    "合同里",
    "合同规定",
    // What is supported, how many there are.
    "最低支持",
    "只支持",
    "一共有",
    "总共有",
    "我家在",
    "我们家在",
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
    "老师",
    "导师",
    "老板",
    "同事",
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
    "感觉",
    "觉得",
    "我猜",
    "估计",
    "不太确定",
    "没想好",
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

/// A user leaving the choice to the assistant.
const DELEGATION_EN: &[&str] = &[
    "your call",
    "up to you",
    "you decide",
    "you choose",
    "you pick",
    "your choice",
    "whatever you think",
    "whatever you prefer",
    "whatever works for you",
    "i'll leave it to you",
    "i leave it to you",
    "no strong feelings",
    "i don't have strong feelings",
    "no strong opinion",
    "i don't have a strong opinion",
    "dealer's choice",
];
const DELEGATION_ZH: &[&str] = &[
    "你定",
    "你决定",
    "你来定",
    "你看着办",
    "随你",
    "你选",
    "听你的",
];

const TRANSIENT_ZH: &[&str] = &[
    "报错",
    "失败",
    "错误",
    "崩溃",
    "又",
    "还是",
    "今天",
    "一下",
    "帮我",
    "看看",
    "等下",
    "待会",
    "这周",
    "本周",
    "上周",
    "昨天",
    "昨晚",
    "刚才",
    "刚刚",
    "很慢",
    "特别慢",
    "太慢",
    "变慢",
    "卡顿",
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
        // "use ? or expect": a lone `?` is an operator, not a question.
        let lone = c == '?' && next_is_space && text[..at].ends_with(' ') && chars.peek().is_some();
        let ends = (matches!(c, '!' | '?' | '。' | '！' | '？' | '\n') && !lone)
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

/// Whether one of `phrases` stands in `lower` as whole words: "red" in
/// "CI is red", not in "we're redoing the kitchen".
fn any_word_at_start(lower: &str, phrases: &[&str]) -> bool {
    phrases
        .iter()
        .any(|p| after_word_start(lower, p).any(|after| !after.starts_with(char::is_alphanumeric)))
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

/// The words of a lowercased English text: runs of letters, digits and
/// apostrophes (`don't`, `i'm`).
pub(crate) fn words(lower: &str) -> impl Iterator<Item = &str> {
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
    // "When you page me, use Slack DM.": a condition, then an instruction.
    .any(|q| lower.starts_with(q) && !(*q == "when " && lower.contains(", ")))
}

/// A sentence that only marks what follows as a correction.
fn is_bare_marker(lower: &str, sentence: &str) -> bool {
    let bare = lower.trim_end_matches(['.', '!', ',', ':', ' ', '…']);
    let bare_zh = sentence.trim_end_matches(['，', '。', '！', ',', '.', ':', '：']);
    CORRECTION_MARKERS_EN.contains(&bare)
        || ["不对", "不是", "等等", "更正", "说错了"].contains(&bare_zh)
        // "I got the dates wrong.", "I mixed up the digits.": an admission
        // without the value, so what follows is the correction.
        || (CORRECTION_ANYWHERE_EN
            .iter()
            .filter(|m| !["turns out", "on second thought", "on second thoughts", "change of plan"].contains(m))
            .any(|m| after_word_start(bare, m).next().is_some())
            || any_at_word_start(bare, &["i gave you the wrong"])
            || (any_at_word_start(bare, &["i got the"]) && bare.ends_with("wrong")))
            && words(bare).count() <= 8
            // (The speaker's "I" names no value.)
            && !has_specific_value(&sentence.replace(" I ", " i "), bare)
        // "我记错了", "刚才打错了", "纠正一下": an admission alone.
        || (bare_zh.chars().count() <= 6
            && ["错了", "更正", "纠正", "搞混"]
                .iter()
                .any(|m| bare_zh.contains(m)))
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
    // "Anna's a nurse": a name and "is" run together.
    if let Some(name) = first
        .strip_suffix("'s")
        .or_else(|| first.strip_suffix("\u{2019}s"))
        && name.chars().skip(1).all(char::is_lowercase)
        && !engram_text::tokenize::is_stopword(&name.to_lowercase())
        && ![
            "Here",
            "There",
            "That",
            "It",
            "What",
            "Who",
            "Where",
            "Let",
            "He",
            "She",
            "Everything",
            "Nothing",
            "Something",
            "Today",
            "Now",
        ]
        .contains(&name)
        && tokens
            .get(1)
            .is_some_and(|t| ["a", "an", "the", "our", "my", "on", "in"].contains(t))
    {
        return true;
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

/// "I'm moving my finances from a spreadsheet to beancount": the speaker
/// changing what they use, from one thing to another.
fn is_own_migration(lower: &str) -> bool {
    ["i'm ", "i am ", "i'll ", "i will ", "i've "]
        .iter()
        .any(|p| {
            lower.strip_prefix(p).is_some_and(|rest| {
                words(rest).take(2).any(|w| {
                    ["mov", "switch", "migrat", "port"]
                        .iter()
                        .any(|v| w.starts_with(v))
                }) && rest.contains(" from ")
                    && rest.contains(" to ")
                    && !is_pointed(rest)
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
            && !any_at_word_start(rest, MOMENT_EN)
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
        &[
            "isn't",
            "is not",
            "aren't",
            "are not",
            "wasn't",
            "was not",
            // "We don't have a cat, it's the dog".
            "don't have",
            "doesn't have",
            "don't own",
            "doesn't use",
            "don't use",
        ],
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
        // "Oxford comma always", "keep texture filter on nearest
        // everywhere": a rule said as a thing and how widely it holds.
        || ([" always", " everywhere"].iter().any(|e| ending.ends_with(e))
            && !starts_with_subject(lower))
        // "..., so keep the filter on nearest everywhere, it's pixel art":
        // a clause that is a rule and how widely it holds.
        || lower.split([',', ';']).skip(1).chain(lower.split([',', ';']).take(1)).any(|clause| {
            let clause = clause.trim().trim_end_matches(['.', '!', ' ']);
            let clause = ["so ", "and ", "also ", "then "]
                .iter()
                .find_map(|o| clause.strip_prefix(o))
                .unwrap_or(clause);
            [" always", " everywhere"].iter().any(|e| clause.ends_with(e))
                && words(clause).count() >= 2
                && !starts_with_subject(clause)
        })
        // "When you page me, use Slack DM, not email": a clause saying what
        // to use over what.
        || lower.match_indices(", use ").any(|(at, _)| {
            let rest = &lower[at + 2..];
            USE_OVER_EN[..4].iter().any(|p| rest.contains(p)) || rest.contains(", not ")
        })
        // "Please write docs in plain prose, no marketing fluff": an ask
        // and what it rules out.
        || (starts_with_word(lower, "please")
            && lower.match_indices(", no ").any(|(at, _)| {
                let after = &lower[at + ", no ".len()..];
                words(after).next().is_some_and(|w| {
                    ![
                        "rush", "hurry", "worries", "problem", "pressure", "need", "changes",
                        "change", "idea", "clue", "luck", "matter", "big",
                    ]
                    .contains(&w)
                })
            })
            && !is_pointed(&lower["please".len()..]))
        // "For postmortems, keep them blameless and always put the timeline
        // in UTC": an always or a never joined to an instruction.
        || ([", always ", " and always ", ", never ", " and never ", "; always ", "; never "]
            .iter()
            .any(|p| lower.contains(p))
            && !starts_with_subject(lower))
}

/// `lower` opens with a subject or a determiner: a statement, not an
/// instruction.
fn starts_with_subject(lower: &str) -> bool {
    words(lower).next().is_some_and(|w| {
        [
            "i", "i'm", "i've", "i'd", "i'll", "we", "we're", "we've", "we'll", "it", "it's", "he",
            "he's", "she", "she's", "they", "they're", "the", "this", "that", "these", "those",
            "my", "our", "there", "there's", "you", "you're", "your",
        ]
        .contains(&w)
    })
}

/// "The firmware is 1.8.3, not 1.9": a statement, then the value it
/// replaces. ("Our cluster lives in eu-west-1, not us-east-1" states what
/// the team has; "use pnpm, not npm" is an instruction.)
fn is_value_contrast(lower: &str) -> bool {
    let Some(at) = [", not ", " — not ", "; not "]
        .iter()
        .find_map(|p| lower.find(p))
    else {
        return false;
    };
    let before = &lower[..at];
    // "The budget month should run 25th to 24th, not calendar months": a
    // rule and what it rules out, not a correction ([`is_rule_over`]).
    if has_word(before, RULE_WORDS_EN) {
        return false;
    }
    // "It's 38 pipelines, not 40": a value said again.
    let restated = ["it's ", "it is ", "that's ", "that is "]
        .iter()
        .any(|p| lower.starts_with(p))
        && before.bytes().any(|b| b.is_ascii_digit());
    !starts_with_word(lower, "our")
        && !starts_with_word(lower, "we")
        && (restated
            || words(before)
                .skip(1)
                .any(|w| STATEMENT_VERBS_EN.contains(&w) || (w.len() > 4 && w.ends_with("ed"))))
}

/// Words that make a statement a rule: what should or must always be.
const RULE_WORDS_EN: &[&str] = &["should", "must", "always", "please", "everywhere"];

/// "Runs should always log to the team entity, not my account": a rule,
/// then what it rules out.
fn is_rule_over(lower: &str) -> bool {
    [", not ", " — not ", "; not "]
        .iter()
        .find_map(|p| lower.find(p))
        .is_some_and(|at| has_word(&lower[..at], RULE_WORDS_EN))
}

/// "Rent actually went up to 15,200", "the cluster isn't 2 nodes anymore":
/// a value put right midway, or a denial of what held until now.
fn is_midway_correction(sentence: &str, lower: &str) -> bool {
    // "It's actually 15", "rent actually went up": what is so, or what
    // changed, after "actually".
    let actually = after_word_start(lower, "actually ").any(|after| {
        words(after).next().is_some_and(|w| {
            [
                "is", "are", "was", "were", "went", "moved", "changed", "starts", "ends", "runs",
                "costs", "lives", "means", "has", "have", "uses", "on", "in", "at", "from",
            ]
            .contains(&w)
                || w.starts_with(|c: char| c.is_ascii_digit())
        })
    }) && sentence.bytes().any(|b| b.is_ascii_digit());
    let anymore = has_word(lower, &["anymore"])
        && has_word(
            lower,
            &[
                "not", "isn't", "aren't", "doesn't", "don't", "no", "never", "can't", "won't",
            ],
        );
    actually || anymore
}

/// "I want every handler to return a Result", "I'd like everything
/// defined in Ansible": what the speaker wants of all things of a kind.
fn is_wanted_rule(lower: &str) -> bool {
    const ALL: &[&str] = &["every", "everything", "all", "each", "any", "no", "nothing"];
    ["i want ", "i'd like ", "i would like ", "i really want "]
        .iter()
        .any(|p| {
            after_word_start(lower, p).any(|after| {
                let head: Vec<&str> = words(after).take(6).collect();
                // "every handler", "all categorisation rules"; not "all the
                // tests", "each of you".
                let all = head.first().is_some_and(|w| ALL.contains(w))
                    && !head.get(1).is_some_and(|w| {
                        ["the", "of", "these", "those", "this", "that", "my", "your"].contains(w)
                    });
                // "I want workflow names to match the job names": a thing of
                // a kind and what it should do (not "I want to", "I want you
                // to", "I want it to").
                let kind_to = head.first().is_some_and(|w| {
                    ![
                        "to", "you", "a", "an", "the", "my", "this", "that", "it", "them",
                    ]
                    .contains(w)
                        && !ALL.contains(w)
                }) && head.iter().skip(1).any(|w| *w == "to");
                (all || kind_to) && !is_pointed(after) && !has_deadline(lower)
            })
        })
}

/// "I only want remote jobs", "we both want a buffet instead of a sit-down
/// meal": what the speakers want, narrowed to one kind or set over another;
/// a liking that holds past the task.
fn is_narrowed_want(lower: &str) -> bool {
    const SPEAKERS: &[&str] = &[
        "i only want ",
        "we only want ",
        "i want ",
        "we want ",
        "we both want ",
        "we all want ",
        "i really want ",
    ];
    SPEAKERS.iter().any(|speaker| {
        lower.strip_prefix(speaker).is_some_and(|rest| {
            let first = words(rest).next().unwrap_or_default();
            let thing = ![
                "to", "you", "it", "the", "this", "that", "them", "these", "those",
            ]
            .contains(&first)
                && !is_pointed(rest);
            let narrowed = speaker.contains(" only ")
                || [" instead of ", " rather than ", " over "]
                    .iter()
                    .any(|over| rest.contains(over));
            thing && narrowed
        })
    })
}

/// "I came out at B1 on the placement test", "I passed level 3 last
/// spring": a level the speaker reached, on the common European scale or
/// numbered, which holds past the talk.
fn is_level_reached(lower: &str) -> bool {
    const CEFR: &[&str] = &["a1", "a2", "b1", "b2", "c1", "c2"];
    let speaker = words(lower)
        .next()
        .is_some_and(|w| w == "i" || w.starts_with("i'"));
    let level = has_word(lower, CEFR)
        || after_word_start(lower, "level ").any(|after| {
            words(after)
                .next()
                .is_some_and(|w| w.bytes().all(|b| b.is_ascii_digit()))
        });
    speaker && level
}

/// "Mia is obsessed with dinosaurs right now", "my son is really into
/// chess": what someone other than the speaker is taken with, worth
/// knowing later even when said to hold for now.
fn is_someone_taken_with(lower: &str) -> bool {
    const TAKEN: &[&str] = &["obsessed with", "really into", "crazy about", "mad about"];
    const NOT_OTHERS: &[&str] = &["i", "i'm", "we", "we're", "you", "you're", "it", "it's"];
    words(lower)
        .next()
        .is_some_and(|first| !NOT_OTHERS.contains(&first))
        && any_at_word_start(lower, TAKEN)
}

/// "I'll be in Lisbon Oct 14-17", "I'm on leave from 3 to 10 June": the
/// speaker away or travelling, with a date (a month named, a day number).
fn is_own_trip(sentence: &str, lower: &str) -> bool {
    const AWAY: &[&str] = &[
        "i'll be in ",
        "i will be in ",
        "i'll be there",
        "i'll be away",
        "i will be away",
        "i'll be out",
        "i'm away",
        "i'm on leave",
        "i'm on vacation",
        "i'm on holiday",
        "i'm off from",
        "i'm flying",
        "i'm travelling",
        "i'm traveling",
        "we're flying",
        "we're travelling",
        "we're traveling",
        "we'll be in ",
        "we'll be away",
        "flying out",
        "i fly out",
        "we fly out",
        "i leave for",
        "we leave for",
    ];
    const MONTHS: &[&str] = &[
        "jan",
        "january",
        "feb",
        "february",
        "mar",
        "march",
        "apr",
        "april",
        "may",
        "jun",
        "june",
        "jul",
        "july",
        "aug",
        "august",
        "sep",
        "sept",
        "september",
        "oct",
        "october",
        "nov",
        "november",
        "dec",
        "december",
    ];
    any_at_word_start(lower, AWAY)
        && has_word(lower, MONTHS)
        && sentence.bytes().any(|b| b.is_ascii_digit())
}

/// "I have two kids", "I have a peanut allergy", "we have a cat": family,
/// pets, health and standing memberships the speaker has (not "I have a
/// question").
fn is_own_household(lower: &str) -> bool {
    const HELD: &[&str] = &[
        "kid",
        "kids",
        "child",
        "children",
        "son",
        "sons",
        "daughter",
        "daughters",
        "twins",
        "baby",
        "dog",
        "dogs",
        "cat",
        "cats",
        "allergy",
        "allergies",
        "diabetes",
        "asthma",
        "migraines",
        "condition",
        "membership",
        "status",
        "card",
        "license",
        "licence",
        "degree",
        "phd",
        "mortgage",
        "car",
        "wife",
        "husband",
        "partner",
        "brother",
        "brothers",
        "sister",
        "sisters",
    ];
    ["i have ", "i've got ", "we have ", "we've got "]
        .iter()
        .any(|p| {
            after_word_start(lower, p)
                .any(|after| !is_pointed(after) && words(after).take(5).any(|w| HELD.contains(&w)))
        })
}

/// "... by Friday", "by tomorrow", "by end of day": a deadline, so a task.
fn has_deadline(lower: &str) -> bool {
    after_word_start(lower, "by ").any(|after| {
        words(after).next().is_some_and(|w| {
            engram_text::calendar::WEEKDAYS.contains(&w)
                || [
                    "tomorrow", "tonight", "eod", "end", "noon", "lunch", "then", "next", "today",
                ]
                .contains(&w)
        })
    })
}

/// "I publish every other Sunday", "I do Mondays and Fridays": what the
/// speaker does on a schedule.
fn is_own_schedule(lower: &str) -> bool {
    const NOT_VERBS: &[&str] = &[
        "will", "would", "can", "could", "should", "might", "must", "need", "want", "think",
        "just", "guess", "hope", "tried", "was", "am", "have", "had", "did",
    ];
    let mut w = words(lower);
    if w.next() != Some("i") || w.next().is_none_or(|v| NOT_VERBS.contains(&v)) {
        return false;
    }
    let plural_day = words(lower).any(|w| {
        w.strip_suffix('s').is_some_and(|d| {
            engram_text::calendar::WEEKDAYS.contains(&d) || ["weekend", "weekday"].contains(&d)
        })
    });
    // "I run Tuesday, Thursday and Sunday": two days or more named.
    let days = words(lower)
        .filter(|w| engram_text::calendar::WEEKDAYS.contains(w))
        .count();
    // "I run 5 km twice a week", "I listen to it on my commute".
    let recurring = any_at_word_start(
        lower,
        &[
            "twice a ",
            "once a ",
            "three times a ",
            "four times a ",
            "on my commute",
            "most days",
            "most mornings",
            "most evenings",
            "most nights",
        ],
    );
    plural_day
        || recurring
        || days >= 2
        || after_word_start(lower, "every ").any(|after| {
            words(after)
                .find(|w| *w != "other" && *w != "single")
                .is_some_and(|w| {
                    PERIODS_EN.contains(&w) || engram_text::calendar::WEEKDAYS.contains(&w)
                })
        })
}

/// "The timeout isn't 30s like I said", "it's Kenji, you wrote Kenzi": what
/// was said before, named, beside a denial or what is so.
fn is_recalled(lower: &str) -> bool {
    any_at_word_start(lower, RECALLED_EN)
        && (has_word(
            lower,
            &[
                "not", "isn't", "wasn't", "aren't", "weren't", "but", "actually",
            ],
        ) || any_at_word_start(lower, &["it's ", "it is "]))
}

/// "The standup moved to 10:30": a thing (not the speaker) whose value
/// changed.
fn is_changed_value(sentence: &str, lower: &str) -> bool {
    !words(lower)
        .next()
        .is_some_and(|w| ["i", "i'm", "i've", "we", "we're", "we've", "let's"].contains(&w))
        && any_at_word_start(
            lower,
            &[
                "moved to",
                "changed to",
                "was moved",
                "has moved",
                "got moved",
                "was changed",
                "got changed",
                "was renamed",
                "got renamed",
                "is now ",
                "are now ",
            ],
        )
        && has_specific_value(sentence, lower)
}

/// "It's not Redis but Memcached", "the standup is on Friday instead": a
/// statement of what is so in place of something else.
fn is_instead(sentence: &str, lower: &str) -> bool {
    if starts_with_subject(lower)
        && !starts_with_word(lower, "it's")
        && !starts_with_word(lower, "the")
    {
        return false;
    }
    let not_but = lower.find(" not ").is_some_and(|at| {
        has_word(&lower[..at + 1], STATEMENT_VERBS_EN)
            && sentence.rfind(" but ").is_some_and(|but| {
                let tail = &sentence[but..];
                has_specific_value(tail, &tail.to_lowercase())
            })
    });
    let instead = lower
        .trim_end_matches(['.', '!', ' '])
        .ends_with(" instead")
        && has_word(lower, STATEMENT_VERBS_EN);
    not_but || instead
}

/// "Target is 60fps on Steam Deck", "staging cluster is k3s on three
/// nodes": a short subject, a copula, a specific value.
fn is_subject_value(sentence: &str, lower: &str) -> bool {
    const NOT_SUBJECTS: &[&str] = &[
        "i",
        "you",
        "we",
        "it",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "what",
        "which",
        "who",
        "he",
        "she",
        "they",
        "everything",
        "something",
        "nothing",
        "anything",
        "make",
        "check",
        "ensure",
        "verify",
        "confirm",
        "assume",
        "see",
        "guess",
        "hope",
        "sure",
        "if",
        "when",
        "why",
        "how",
        "where",
        "whether",
        "not",
        "one",
    ];
    let head: Vec<&str> = words(lower).take(4).collect();
    let Some(copula) = head.iter().skip(1).position(|w| ["is", "are"].contains(w)) else {
        return false;
    };
    // "The plan is showing 37 changes": what is going on, not what is so.
    if head[..=copula].iter().any(|w| NOT_SUBJECTS.contains(w))
        || head[0].starts_with(|c: char| c.is_ascii_digit())
        || head.get(copula + 2).is_some_and(|w| w.ends_with("ing"))
    {
        return false;
    }
    [" is ", " are "]
        .iter()
        .find_map(|c| sentence.find(c))
        .is_some_and(|at| {
            let tail = &sentence[at..];
            has_specific_value(tail, &tail.to_lowercase())
        })
}

/// "pve2 has an Intel Arc A380": a short subject that has a named product
/// with a model (a second name or a number).
fn is_subject_has_product(sentence: &str, lower: &str) -> bool {
    const NOT_SUBJECTS: &[&str] = &[
        "i",
        "you",
        "we",
        "it",
        "this",
        "that",
        "they",
        "he",
        "she",
        "there",
        "everyone",
        "nobody",
        "who",
        "what",
        "which",
        "everything",
        "nothing",
        "something",
    ];
    let head: Vec<&str> = words(lower).take(3).collect();
    let Some(verb) = head.iter().position(|w| ["has", "have"].contains(w)) else {
        return false;
    };
    if verb == 0 || head[..verb].iter().any(|w| NOT_SUBJECTS.contains(w)) {
        return false;
    }
    [" has ", " have "]
        .iter()
        .find_map(|v| sentence.find(v).map(|at| &sentence[at + v.len()..]))
        .is_some_and(|tail| {
            let tail = ["a ", "an ", "the "]
                .iter()
                .find_map(|d| tail.strip_prefix(d))
                .unwrap_or(tail);
            let mut tokens = tail.split_whitespace().take(4);
            tokens
                .next()
                .is_some_and(|t| t.starts_with(|c: char| c.is_uppercase()))
                && tokens.any(|t| {
                    t.starts_with(|c: char| c.is_uppercase())
                        || t.bytes().any(|b| b.is_ascii_digit())
                })
        })
}

/// "Let's add voided_at", "let's do LXC on pve2": a choice, said as
/// what the team will do (not "let's just", "let's look at it").
fn is_lets_choice(lower: &str) -> bool {
    const CHOICE_VERBS: &[&str] = &[
        "add",
        "do",
        "use",
        "pick",
        "adopt",
        "store",
        "target",
        "support",
        "require",
        "go",
        "stick",
        "switch",
        "standardize",
        "standardise",
        "move",
    ];
    // What a task is made of: a step, a check, a try, not a choice.
    const TASK_WORDS: &[&str] = &[
        "quick", "check", "rerun", "retry", "try", "test", "debug", "debugger", "step", "look",
        "see", "fix", "print", "going", "again", "now", "today", "sanity", "branch", "ahead",
    ];
    // "let's say $800 a month": an amount settled on (not "let's say we
    // ...", a supposition).
    let said_amount = lower.strip_prefix("let's say ").is_some_and(|rest| {
        rest.starts_with(|c: char| c.is_ascii_digit() || c == '$' || c == '€' || c == '£')
    });
    said_amount
        || lower.strip_prefix("let's ").is_some_and(|rest| {
            words(rest)
            .next()
            .is_some_and(|v| CHOICE_VERBS.contains(&v))
            // ("let's move on" is no choice.)
            && !rest.starts_with("move on")
            && !is_pointed(&rest[rest.find(' ').unwrap_or(rest.len())..])
            && !any_at_word_start(lower, MOMENT_DECISION_EN)
            && !any_word_at_start(lower, TRANSIENT_EN)
            && !has_word(lower, TASK_WORDS)
        })
}

/// "We'll skip the JR Pass and buy single tickets", "I'll pay off the
/// card with the highest rate", "We want to move to Aurora": the speaker
/// or the team committing to a course of action, said at the start of the
/// sentence. Not a step of the conversation or of a task ("I'll check",
/// "I'll let you know", "we'll see", "I want to understand why").
fn is_commitment(lower: &str) -> bool {
    const OPENINGS: &[&str] = &[
        "i'll ",
        "we'll ",
        "i will ",
        "we will ",
        "i want to ",
        "we want to ",
        "i plan to ",
        "we plan to ",
        "i'm planning to ",
        "we're planning to ",
        "i intend to ",
        "we intend to ",
    ];
    // Steps of the talk or of a task, and verbs of mind.
    const STEP_VERBS: &[&str] = &[
        "let",
        "check",
        "think",
        "see",
        "try",
        "look",
        "ask",
        "send",
        "share",
        "be",
        "have",
        "need",
        "tell",
        "follow",
        "reply",
        "ping",
        "circle",
        "double",
        "read",
        "test",
        "rerun",
        "run",
        "debug",
        "figure",
        "know",
        "understand",
        "find",
        "remember",
        "get",
        "give",
        "talk",
        "mention",
        "add",
        "make",
        "do",
        "keep",
        "probably",
        "maybe",
        "also",
        "still",
        "just",
        "report",
        "post",
        "update",
        "paste",
        "explain",
        "clarify",
        "wait",
        "sleep",
        "help",
        "grab",
        "call",
        "text",
        "email",
        "write",
        "confirm",
        "bring",
        "push",
        "fix",
        "merge",
        "handle",
        "take",
    ];
    OPENINGS.iter().any(|opening| {
        lower.strip_prefix(opening).is_some_and(|rest| {
            // An adverb first ("finally", "probably") hedges or colours it.
            let mut rest_words = words(rest);
            rest_words.next().is_some_and(|verb| {
                verb.len() > 1 && !verb.ends_with("ly") && !STEP_VERBS.contains(&verb)
            }) && rest_words.next().is_some()
                && !is_pointed(&rest[rest.find(' ').unwrap_or(rest.len())..])
                && !any_word_at_start(lower, TRANSIENT_EN)
        })
    })
}

/// "We'll do Lisbon, then Porto", "I'll do the Databricks certification
/// this month", "we'll take the 8:40 train": a commitment with a light
/// verb ("do", "get", "take") whose object is named, with a capital or a
/// digit. The same verbs before what the talk points at ("I'll do that",
/// "I'll get back to you", "I'll take a look") are steps of the talk, as
/// [`is_commitment`] reads them; so is an acronym ("I'll do the PR").
fn is_named_commitment(sentence: &str) -> bool {
    let words: Vec<&str> = sentence.split_whitespace().collect();
    let lower: Vec<String> = words
        .iter()
        .map(|w| w.to_lowercase().replace('’', "'"))
        .collect();
    let is =
        |at: usize, options: &[&str]| lower.get(at).is_some_and(|w| options.contains(&w.as_str()));
    let verb_at = if is(0, &["i'll", "we'll"]) {
        1
    } else if is(0, &["i", "we"]) && is(1, &["will"]) {
        2
    } else if is(0, &["i'm", "we're"]) && is(1, &["going"]) && is(2, &["to"]) {
        3
    } else {
        return false;
    };
    if !is(verb_at, &["do", "get", "take"]) {
        return false;
    }
    let object_at = verb_at + 1 + usize::from(is(verb_at + 1, &["the", "a", "an"]));
    words.get(object_at).is_some_and(|object| {
        let object = object.trim_matches(|c: char| !c.is_alphanumeric());
        let acronym = object.chars().all(|c| !c.is_lowercase());
        let named = object.chars().next().is_some_and(char::is_uppercase) && !acronym;
        named || object.chars().any(|c| c.is_ascii_digit())
    })
}

/// "I have an interview with Shopify on Thursday", "my retest is in three
/// months": an appointment of the speaker's that matters past the talk
/// ([`APPOINTMENTS_EN`]), with when it is. A meeting or a call is the
/// day's business, not a memory.
fn is_own_appointment(lower: &str) -> bool {
    const OWNERS: &[&str] = &[
        "i have ",
        "i've got ",
        "i got ",
        "we have ",
        "we've got ",
        "my ",
        "our ",
    ];
    let Some(rest) = OWNERS.iter().find_map(|o| lower.strip_prefix(o)) else {
        return false;
    };
    // The appointment within the first few words: "an interview", "my
    // visa appointment", "the final exam".
    let named = words(rest)
        .take(APPOINTMENT_WORDS_MAX)
        .any(|w| APPOINTMENTS_EN.contains(&w))
        || any_at_word_start(rest, &["follow-up", "check-up"]);
    let when = words(rest).any(|w| {
        engram_text::calendar::WEEKDAYS.contains(&w)
            || MONTH_NAMES_EN.contains(&w)
            || ["tomorrow", "tonight"].contains(&w)
    }) || any_at_word_start(
        rest,
        &[
            "next week",
            "next month",
            "next year",
            "in two ",
            "in three ",
            "in a few ",
            "in a couple ",
        ],
    ) || words(rest).collect::<Vec<_>>().windows(3).any(|w| {
        w[0] == "in"
            && w[1].bytes().all(|b| b.is_ascii_digit())
            && ["days", "weeks", "months"].contains(&w[2])
    });
    named && when
}

/// Words past the owner within which an appointment is named.
const APPOINTMENT_WORDS_MAX: usize = 4;

/// Appointments that matter past the talk: interviews, exams, medical
/// visits, and life's events.
const APPOINTMENTS_EN: &[&str] = &[
    "interview",
    "appointment",
    "exam",
    "surgery",
    "operation",
    "checkup",
    "retest",
    "screening",
    "biopsy",
    "mri",
    "recital",
    "tournament",
    "marathon",
    "wedding",
    "graduation",
    "audition",
    "hearing",
    "vaccination",
];

/// `下周二有一个网易的面试`, `我月底要去复查`: an appointment of the
/// speaker's that matters past the talk ([`APPOINTMENTS_ZH`]), with a day
/// or a month named before it, said with `有` or `要`, and no question.
fn is_own_appointment_zh(sentence: &str) -> bool {
    const WHEN: &[&str] = &[
        "下周",
        "下个月",
        "下星期",
        "明天",
        "后天",
        "月底",
        "月初",
        "周一",
        "周二",
        "周三",
        "周四",
        "周五",
        "周六",
        "周日",
        "星期",
        "号",
        "月",
    ];
    APPOINTMENTS_ZH.iter().any(|a| {
        sentence.find(a).is_some_and(|at| {
            let before = &sentence[..at];
            WHEN.iter().any(|w| before.contains(w))
                && ["有", "要"].iter().any(|v| before.contains(v))
                && !["吗", "？", "?", "呢"].iter().any(|q| sentence.contains(q))
        })
    })
}

/// Chinese appointments that matter past the talk.
const APPOINTMENTS_ZH: &[&str] = &[
    "面试", "考试", "复查", "复诊", "手术", "体检", "婚礼", "比赛", "答辩", "签证",
];

/// "It's a Django 4.2 app", "it's Rust with axum 0.7": what the thing
/// talked about is built on, a name and a version.
fn is_it_product(sentence: &str) -> bool {
    [
        "it's ",
        "It's ",
        "it is ",
        "It is ",
        "it\u{2019}s ",
        "it targets ",
        "It targets ",
        "it runs on ",
        "It runs on ",
        "it's built on ",
        "It's built on ",
        "it's written in ",
        "It's written in ",
    ]
    .iter()
    .flat_map(|p| {
        sentence
            .match_indices(p)
            .map(move |(at, _)| &sentence[at + p.len()..])
    })
    .any(|tail| {
        let tail = tail
            .strip_prefix("a ")
            .or_else(|| tail.strip_prefix("an "))
            .unwrap_or(tail);
        tail.starts_with(|c: char| c.is_uppercase())
            && tail.split_whitespace().any(|t| {
                let t = t.trim_matches(|c: char| !c.is_alphanumeric());
                t.contains('.')
                    && t.split('.')
                        .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            })
    })
}

/// Words that acknowledge or wave on ("Done then", "Merge then"), never
/// an option named.
const ACKNOWLEDGED_EN: &[&str] = &[
    "ok", "okay", "fine", "alright", "right", "done", "good", "great", "cool", "perfect", "nice",
    "sure", "yes", "no", "thanks", "merge", "deploy", "ship", "go", "run", "fix", "try", "push",
    "continue", "proceed", "bye", "later", "see", "until", "till",
];

/// "SQLite then, one file in my Dropbox": an option named, then "then".
fn is_named_then(lower: &str) -> bool {
    let Some(at) = lower.find(" then") else {
        return false;
    };
    let head = &lower[..at];
    let after = &lower[at + " then".len()..];
    let head_words: Vec<&str> = words(head).collect();
    (1..=3).contains(&head_words.len())
        && !head_words
            .iter()
            .any(|w| engram_text::tokenize::is_stopword(w) || ACKNOWLEDGED_EN.contains(w))
        && (after.is_empty() || after.starts_with([',', '.', '!', ';']))
}

/// "Let's do the SSD then": a choice concluded from what was weighed.
fn is_concluded_choice(lower: &str) -> bool {
    starts_with_word(lower, "let's")
        && has_word(lower, &["then"])
        && !any_at_word_start(lower, MOMENT_DECISION_EN)
}

/// "The scale-down should run at 18:00 UTC from now on", "every chart
/// dependency gets an exact version": a lasting choice about how things
/// are, not an ask of the assistant.
fn is_lasting_choice(lower: &str) -> bool {
    // "Going forward all infra changes go through Terraform", "keying
    // everything by id from now on": how things go, not an ask ("please
    // keep ... from now on").
    let rest = LASTING_EN
        .iter()
        .find_map(|m| lower.strip_prefix(m))
        .unwrap_or(lower)
        .trim_start_matches([',', ' ']);
    let how_things_go = words(rest).next().is_some_and(|w| {
        (w.len() > 4 && w.ends_with("ing"))
            || ["all", "every", "everything", "each", "any"].contains(&w)
    }) && !any_at_word_start(lower, &["please", "you", "me", "my"]);
    let lasting = any_at_word_start(lower, LASTING_EN)
        && (how_things_go
            || has_word(
                lower,
                &["we", "we'll", "we're", "i'll", "should", "will", "shall"],
            ));
    let every = ["every ", "each ", "all new ", "all future "]
        .iter()
        .any(|p| lower.starts_with(p))
        && !["every time", "each time"]
            .iter()
            .any(|p| lower.starts_with(p))
        && words(lower).count() >= 5
        && !any_word_at_start(lower, TRANSIENT_EN);
    lasting || every
}

/// "I don't do medical stuff the week before travel": what the speaker
/// does or will not do, as a habit (not what they know or feel now).
fn is_own_habit(lower: &str) -> bool {
    const NOT_HABITS: &[&str] = &[
        "care",
        "have",
        "mind",
        "need",
        "see",
        "get",
        "really",
        "think",
        "know",
        "remember",
        "understand",
        "like",
        "want",
        "trust",
        "feel",
        "believe",
        "recall",
        "agree",
    ];
    [
        "i don't ",
        "i do not ",
        "i only ",
        "i'd like ",
        "i would like ",
    ]
    .iter()
    .any(|p| {
        after_word_start(lower, p).any(|after| {
            if p.starts_with("i'd") || p.starts_with("i would") {
                // "I'd like the output to stay plain text".
                return !is_pointed(after)
                    && [
                        " to stay ",
                        " to be ",
                        " to remain ",
                        " to always ",
                        " to never ",
                    ]
                    .iter()
                    .any(|t| after.contains(t));
            }
            words(after)
                .next()
                .is_some_and(|w| !NOT_HABITS.contains(&w) && !is_pointed(after))
        })
    })
}

/// "Remind me two weeks before every year": an ask that recurs.
fn is_recurring_ask(lower: &str) -> bool {
    !starts_with_subject(lower)
        && after_word_start(lower, "every ")
            .chain(after_word_start(lower, "each "))
            .any(|after| {
                words(after).next().is_some_and(|w| {
                    PERIODS_EN.contains(&w)
                        || engram_text::calendar::WEEKDAYS.iter().any(|d| d == &w)
                })
            })
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

/// "My husband doesn't eat pork", "my partner walks with a cane": someone
/// of the speaker's family and what holds for them, a verb in the present
/// (not what they think, say or want).
fn is_family_statement(lower: &str) -> bool {
    const VERBS: &[&str] = &[
        "is", "isn't", "has", "doesn't", "does", "can't", "cannot", "won't", "can", "needs",
        "uses", "works", "lives", "walks", "eats", "drinks", "takes", "gets", "plays",
    ];
    const NOT_VERBS: &[&str] = &[
        "thinks", "says", "wants", "asks", "wonders", "hopes", "believes", "guess", "thanks",
    ];
    FAMILY_EN.iter().any(|f| {
        after_word_start(lower, f).any(|after| {
            let mut next = words(after);
            after.starts_with(' ')
                && next.next().is_some_and(|w| {
                    VERBS.contains(&w)
                        || (w.len() > 4
                            && w.ends_with('s')
                            && !w.ends_with("ss")
                            && !NOT_VERBS.contains(&w))
                })
                // "my husband is pushing for quartz": what one is doing
                // now, not what holds.
                && !next
                    .next()
                    .is_some_and(|w| w.len() > 4 && w.ends_with("ing") && !w.ends_with("thing"))
        })
    })
}

/// "he turns 8 on September 20", "Aisha will take over as lead", "she's
/// been on the team three years": an age, a role taken on, a time served.
fn is_age_or_tenure(lower: &str) -> bool {
    let number = |w: &str| {
        w.bytes().all(|b| b.is_ascii_digit())
            || crate::meaning::NUMBER_WORDS.contains(&w)
            || LARGER_NUMBER_WORDS_EN.contains(&w)
    };
    let turns =
        after_word_start(lower, "turns ").any(|after| words(after).next().is_some_and(number));
    let takes_over = any_at_word_start(
        lower,
        &["take over as ", "takes over as ", "taking over as "],
    );
    let served = after_word_start(lower, "been ").any(|after| {
        // "been a backend engineer at an insurance company for six years".
        let head: Vec<&str> = words(after).take(12).collect();
        head.windows(2)
            .any(|p| number(p[0]) && ["years", "months"].contains(&p[1]))
    });
    turns || takes_over || served
}

/// "$12,000", "$165k", "4,800 dollars": an amount of money.
fn has_money(lower: &str) -> bool {
    let sign = lower.char_indices().any(|(at, c)| {
        "$€£".contains(c)
            && lower
                .get(at + c.len_utf8()..)
                .is_some_and(|rest| rest.starts_with(|d: char| d.is_ascii_digit()))
    });
    let named = words(lower).collect::<Vec<_>>().windows(2).any(|p| {
        p[0].starts_with(|d: char| d.is_ascii_digit())
            && ["dollars", "euros", "pounds", "bucks", "usd", "eur", "gbp"].contains(&p[1])
    });
    sign || named
}

/// "I take home about $4,800 a month", "I keep $3,000 in savings", "my
/// parents are contributing $10,000": money the speaker or the family
/// has, earns, owes or puts aside, which later advice depends on.
fn is_own_money(lower: &str) -> bool {
    const VERBS: &[&str] = &[
        "have",
        "has",
        "got",
        "keep",
        "keeps",
        "take",
        "takes",
        "earn",
        "earns",
        "earning",
        "make",
        "makes",
        "owe",
        "owes",
        "pay",
        "pays",
        "paying",
        "spend",
        "spends",
        "save",
        "saves",
        "saving",
        "put",
        "puts",
        "putting",
        "contribute",
        "contributes",
        "contributing",
        "invest",
        "investing",
    ];
    let subject = ["i ", "i've ", "i'm ", "we ", "we've ", "we're ", "have "]
        .iter()
        .any(|s| lower.starts_with(s))
        || FAMILY_EN.iter().any(|f| starts_with_word(lower, f));
    subject && has_money(lower) && words(lower).take(6).any(|w| VERBS.contains(&w))
}

/// "I've got a bad left knee", "she has ADHD", "I've had heel pain for
/// two months", "I'm taking ibuprofen most days": a condition or a
/// medicine of the speaker or the family, which lasts past the talk.
fn is_health_state(lower: &str) -> bool {
    const CONDITIONS: &[&str] = &[
        "pain",
        "knee",
        "knees",
        "hip",
        "shoulder",
        "ankle",
        "wrist",
        "adhd",
        "autism",
        "dyslexia",
        "iep",
        "asthma",
        "diabetes",
        "migraine",
        "migraines",
        "arthritis",
        "anxiety",
        "depression",
        "insomnia",
        "eczema",
        "celiac",
        "epilepsy",
        "cholesterol",
        "hypertension",
        "tendonitis",
        "fasciitis",
        "sciatica",
        "apnea",
    ];
    const HOLDERS: &[&str] = &[
        "i have ",
        "i've got ",
        "i've had ",
        "i have had ",
        "she has ",
        "he has ",
        "she's got ",
        "he's got ",
        "she's had ",
        "he's had ",
        "has ",
    ];
    let holds = HOLDERS.iter().any(|h| {
        after_word_start(lower, h)
            .any(|after| words(after).take(5).any(|w| CONDITIONS.contains(&w)))
    }) && (starts_with_subject(lower)
        || FAMILY_EN.iter().any(|f| starts_with_word(lower, f)));
    let taking = any_at_word_start(
        lower,
        &[
            "i'm taking ",
            "i am taking ",
            "i'm also taking ",
            "she's taking ",
            "he's taking ",
            "put me on ",
            "i'm on ",
        ],
    ) && (any_at_word_start(
        lower,
        &[
            "most days",
            "every day",
            "daily",
            "once a day",
            "twice a day",
            "every morning",
            "every night",
        ],
    ) || words(lower)
        .any(|w| w == "mg" || (w.ends_with("mg") && w.starts_with(|c: char| c.is_ascii_digit()))));
    holds || taking
}

/// Months by their full names (not "may", a modal verb first), and
/// seasons: a time far enough off that a life event set on it lasts in
/// memory past the talk.
static MONTH_NAMES_EN: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    engram_text::calendar::MONTHS
        .iter()
        .filter(|month| **month != "may")
        .chain(SEASONS_EN)
        .copied()
        .collect()
});

/// Seasons, as [`MONTH_NAMES_EN`] holds them.
const SEASONS_EN: &[&str] = &["spring", "summer", "fall", "autumn", "winter"];

/// "I'm getting married next October", "we're redoing our kitchen this
/// fall", "my daughter is starting 6th grade in the fall": something the
/// speaker's household is under way with, set on a month, a season or a
/// year.
fn is_dated_life_event(lower: &str) -> bool {
    const SUBJECTS: &[&str] = &[
        "i'm ",
        "i am ",
        "we're ",
        "we are ",
        "i've been ",
        "we've been ",
        "she's ",
        "he's ",
        "she is ",
        "he is ",
    ];
    // Verbs of the mind or of the task at hand, not of a life.
    const NOT_EVENTS: &[&str] = &[
        "trying",
        "thinking",
        "wondering",
        "hoping",
        "looking",
        "seeing",
        "having",
        "struggling",
        "asking",
        "considering",
        "debugging",
        "testing",
        "running",
        "using",
        "writing",
        "reading",
        "working",
        "being",
        "going",
        "doing",
    ];
    let rest = SUBJECTS
        .iter()
        .find_map(|s| lower.strip_prefix(s))
        .or_else(|| {
            FAMILY_EN.iter().find_map(|f| {
                let rest = lower.strip_prefix(f)?;
                let at = rest.find(" is ").or_else(|| rest.find(" are "))?;
                (words(&rest[..at]).count() <= 2).then(|| &rest[at + 4..])
            })
        });
    let Some(rest) = rest else {
        return false;
    };
    // "I'm going to Florence": "going to" and a place is a trip.
    let going_to_place = rest.strip_prefix("going to ").is_some_and(|after| {
        after.starts_with(|c: char| c.is_alphabetic())
            && words(after).next().is_some_and(|w| {
                ![
                    "be", "have", "try", "need", "do", "use", "keep", "ask", "check",
                ]
                .contains(&w)
            })
    });
    let under_way = words(rest)
        .take(3)
        .find(|w| !["also", "finally", "already", "just", "now"].contains(w))
        .is_some_and(|w| w.len() > 4 && w.ends_with("ing") && !NOT_EVENTS.contains(&w));
    let dated = has_word(rest, &MONTH_NAMES_EN)
        || words(rest)
            .any(|w| w.len() == 4 && w.starts_with("20") && w.bytes().all(|b| b.is_ascii_digit()))
        || any_at_word_start(rest, &["next year", "next month", "this year"]);
    (under_way || going_to_place) && dated
}

/// "I'm building an invoicing app for my sister's bakery", "we're
/// writing a cookbook": what the speaker is making, which later talk
/// builds on (not "I'm writing a test").
fn is_own_project(lower: &str) -> bool {
    const MAKES: &[&str] = &[
        "building ",
        "making ",
        "developing ",
        "writing ",
        "designing ",
        "starting ",
        "launching ",
        "running ",
    ];
    const PROJECTS: &[&str] = &[
        "app",
        "tool",
        "website",
        "site",
        "game",
        "library",
        "bot",
        "platform",
        "plugin",
        "extension",
        "dashboard",
        "book",
        "novel",
        "thesis",
        "dissertation",
        "course",
        "newsletter",
        "podcast",
        "blog",
        "cookbook",
        "business",
        "startup",
        "shop",
        "job",
        "role",
    ];
    ["i'm ", "we're ", "i am ", "we are "]
        .iter()
        .find_map(|s| lower.strip_prefix(s))
        .and_then(|rest| MAKES.iter().find_map(|m| rest.strip_prefix(m)))
        .is_some_and(|rest| {
            ["a ", "an ", "my ", "our "]
                .iter()
                .any(|d| rest.starts_with(d))
                && words(rest).take(4).any(|w| PROJECTS.contains(&w))
        })
}

/// "we're planning on about 120 guests", "we're expecting 40 people": a
/// count the speakers plan for.
fn is_planned_count(sentence: &str, lower: &str) -> bool {
    [
        "planning on ",
        "planning for ",
        "expecting ",
        "budgeting for ",
    ]
    .iter()
    .any(|p| after_word_start(lower, p).next().is_some())
        && starts_with_subject(lower)
        && has_number(sentence, lower)
}

/// "we're booking the barn", "I'm turning it down": a choice the
/// speakers are already acting on.
fn is_acted_choice(lower: &str) -> bool {
    const ACTS: &[&str] = &[
        "booking ",
        "buying ",
        "hiring ",
        "renting ",
        "ordering ",
        "signing up",
        "turning it down",
        "turning them down",
        "turning down",
        "declining ",
        "accepting ",
        "skipping ",
        "going ahead with ",
        "cancelling ",
        "canceling ",
        "enrolling ",
    ];
    lower.split(", ").any(|clause| {
        ["i'm ", "we're ", "i am ", "we are "]
            .iter()
            .find_map(|s| clause.strip_prefix(s))
            .is_some_and(|rest| {
                let rest = ["also ", "just ", "definitely "]
                    .iter()
                    .find_map(|a| rest.strip_prefix(a))
                    .unwrap_or(rest);
                ACTS.iter().any(|a| rest.starts_with(a))
            })
    })
}

/// "I don't want to open any new cards", "neither of us wants to drive
/// abroad": what the speakers will not do, whatever the occasion.
fn is_refusal(lower: &str) -> bool {
    let neither = any_at_word_start(
        lower,
        &[
            "neither of us want",
            "none of us want",
            "neither of us like",
        ],
    );
    let never = [
        "i don't want ",
        "we don't want ",
        "i do not want ",
        "we do not want ",
    ]
    .iter()
    .any(|p| {
        after_word_start(lower, p).any(|after| {
            !is_pointed(after)
                && words(after)
                    .take(6)
                    .any(|w| ["any", "another", "new", "anything", "ever", "yet"].contains(&w))
        })
    });
    neither || never
}

/// "Tokyo for four nights, then Kyoto for three", "six nights Lisbon, four
/// in Porto": a trip split into stays, two places or more with a length.
fn is_itinerary(sentence: &str, lower: &str) -> bool {
    let numbers = words(lower)
        .filter(|w| {
            w.bytes().all(|b| b.is_ascii_digit()) || crate::meaning::NUMBER_WORDS.contains(w)
        })
        .count();
    let places = sentence
        .split_whitespace()
        .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|t| {
            t.len() > 2
                && t.chars().next().is_some_and(char::is_uppercase)
                && t.chars().skip(1).all(char::is_lowercase)
                && !engram_text::calendar::WEEKDAYS.contains(&t.to_lowercase().as_str())
                && !MONTH_NAMES_EN.contains(&t.to_lowercase().as_str())
                && !engram_text::tokenize::is_stopword(&t.to_lowercase())
        })
        .count();
    has_word(lower, &["nights", "days"]) && numbers >= 2 && places >= 2
}

/// "On weeknights I want meals under 30 minutes", "30 minutes max on
/// weekdays": what the speaker wants, or a limit, on a kind of day.
fn is_wanted_on_days(lower: &str) -> bool {
    const DAYS: &[&str] = &[
        "weeknights",
        "weekdays",
        "weekends",
        "mornings",
        "evenings",
        "nights",
        "workdays",
    ];
    let wanted = any_at_word_start(
        lower,
        &["i want ", "i like ", "i need ", "i prefer ", "i'd like "],
    ) || has_word(lower, &["max", "maximum", "tops"])
        || any_at_word_start(lower, &["at most ", "no more than "]);
    wanted && has_word(lower, DAYS) && !is_pointed(lower)
}

/// "I'll log it every morning", "we'll review the budget every quarter",
/// "I'm going to swim twice a week": the speaker's commitment to
/// something that recurs.
fn is_committed_habit(lower: &str) -> bool {
    /// Times of day that recur as well as [`PERIODS_EN`] do ("every lunch
    /// break"), unlike "every file" or "every time".
    const RECURRING_TIMES: &[&str] = &["lunch", "payday", "commute", "shift", "weekday"];
    [
        "i'll ",
        "i will ",
        "we'll ",
        "we will ",
        "i'm going to ",
        "i am going to ",
        "we're going to ",
        "we are going to ",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
        && (after_word_start(lower, "every ").any(|after| {
            words(after).next().is_some_and(|w| {
                PERIODS_EN.contains(&w)
                    || RECURRING_TIMES.contains(&w)
                    || engram_text::calendar::WEEKDAYS.contains(&w)
            })
        })
            // "I'll do the yogurt on weekdays": on a kind of day.
            || any_at_word_start(
                lower,
                &["on weekdays", "on weekends", "on weeknights", "on workdays"],
            )
            || is_rate(lower))
}

/// Whether `lower` ends on a rate ("five applications a week", "30
/// minutes per day"): an amount and the period it recurs in.
fn is_rate(lower: &str) -> bool {
    let tail: Vec<&str> = words(lower)
        .filter(|w| !["too", "also", "then"].contains(w))
        .collect();
    match tail.as_slice() {
        [.., per, period] => {
            ["a", "per", "each"].contains(per)
                && PERIODS_EN.contains(period)
                && has_number(lower, lower)
        }
        _ => false,
    }
}

/// "We're bumping the pool to 50 and adding rate limiting next sprint":
/// a change the team has planned, with when.
fn is_planned_change(lower: &str) -> bool {
    const NOT_CHANGES: &[&str] = &[
        "going",
        "being",
        "having",
        "seeing",
        "getting",
        "trying",
        "thinking",
        "hoping",
        "waiting",
        "looking",
        "talking",
        "wondering",
        "planning",
    ];
    ["we're ", "we are "]
        .iter()
        .find_map(|p| lower.strip_prefix(p))
        .is_some_and(|rest| {
            words(rest)
                .next()
                .is_some_and(|w| w.len() > 4 && w.ends_with("ing") && !NOT_CHANGES.contains(&w))
        })
        && after_word_start(lower, "next ").any(|after| {
            words(after)
                .next()
                .is_some_and(|w| PERIODS_EN.contains(&w) || w == "release")
        })
}

/// "Cite with author-year style, not numbers", "use 'we' sparingly in my
/// writing": how the speaker's writing or code is to be done, said as a
/// style or over what it rules out.
fn is_style_instruction(lower: &str) -> bool {
    const STYLE_VERBS: &[&str] = &[
        "cite", "format", "write", "name", "sort", "spell", "date", "quote", "indent", "number",
        "use", "address", "sign",
    ];
    const OUTPUTS: &[&str] = &[
        "writing", "code", "emails", "docs", "messages", "answers", "replies", "commits", "prose",
        "reports", "notes",
    ];
    let styled = words(lower)
        .next()
        .is_some_and(|w| STYLE_VERBS.contains(&w));
    let scoped = [
        "in my ",
        "in all my ",
        "everything you write",
        "anything you write",
    ]
    .iter()
    .any(|s| {
        after_word_start(lower, s).any(|after| {
            s.starts_with("every")
                || s.starts_with("any")
                || words(after).next().is_some_and(|w| OUTPUTS.contains(&w))
        })
    });
    styled
        && (scoped
            || (lower.contains(", not ")
                && !STYLE_VERBS[11..].iter().any(|v| lower.starts_with(v))))
        && !is_pointed(lower.split_once(' ').map_or("", |(_, rest)| rest))
}

fn classify_en(sentence: &str, lower: &str) -> Option<Kind> {
    if DISMISS_EN.iter().any(|p| starts_with_word(lower, p)) {
        return None;
    }
    // "Wait, actually we run four": a marker after an interjection.
    let after_interjection = ["wait", "oh wait", "sorry", "um", "uh"]
        .iter()
        .find_map(|i| lower.strip_prefix(i)?.strip_prefix(", "))
        .unwrap_or(lower);
    if CORRECTION_STARTS_EN
        .iter()
        .any(|p| starts_with_word(lower, p) || starts_with_word(after_interjection, p))
        || any_at_word_start(lower, CORRECTION_ANYWHERE_EN)
        || is_opened_correction(lower)
        || ((is_contrast_correction(lower)
            || is_value_contrast(lower)
            || is_recalled(lower)
            || is_changed_value(sentence, lower)
            || is_instead(sentence, lower)
            || is_midway_correction(sentence, lower)
            // "there won't be a series after all": a plan reversed.
            || lower.trim_end_matches(['.', '!', ' ']).ends_with(" after all")
            || lower.contains(" after all,"))
            && !is_standing_instruction(lower))
    {
        return Some(Kind::Correction);
    }
    // "Let's make that the rule": a standing rule, said as one.
    if any_at_word_start(lower, RULE_EN) || is_rule_over(lower) {
        return Some(Kind::Preference);
    }
    if any_at_word_start(lower, DECISION_EN)
        || is_we_will_change(lower)
        || is_own_migration(lower)
        || DECISION_STARTS_EN
            .iter()
            .any(|p| starts_with_word(lower, p))
        || lower.trim_end_matches(['.', '!', ' ']).ends_with(" it is")
        // "query_as! it is for the whole service".
        || lower.contains(" it is for ")
        || is_named_then(lower)
        || is_concluded_choice(lower)
        || is_lets_choice(lower)
        || is_lasting_choice(lower)
        || is_committed_habit(lower)
        || is_planned_change(lower)
        || is_commitment(lower)
        || is_named_commitment(without_fillers(sentence))
        || is_acted_choice(lower)
        || is_itinerary(sentence, lower)
    {
        // "I decided to just delete the branch": a choice for now.
        let for_now = starts_with_word(lower, "i") && any_at_word_start(lower, MOMENT_DECISION_EN);
        return (!for_now).then_some(Kind::Decision);
    }
    let of_the_moment = any_at_word_start(lower, MOMENT_EN);
    if is_someone_taken_with(lower) || is_level_reached(lower) {
        return Some(Kind::Fact);
    }
    if !of_the_moment && is_narrowed_want(lower) {
        return Some(Kind::Preference);
    }
    if !of_the_moment
        && (is_standing_instruction(lower)
            || is_style_instruction(lower)
            || is_wanted_on_days(lower))
    {
        return Some(Kind::Preference);
    }
    // "TestRefundWebhook has been flaky for months": lasting, whatever it says.
    if any_at_word_start(lower, DURATION_EN) && has_word(lower, COPULAS_EN) {
        return Some(Kind::Fact);
    }
    // "The player keeps clipping through walls": a problem going on.
    let keeps_doing = after_word_start(lower, "keeps ")
        .chain(after_word_start(lower, "keep "))
        .any(|after| {
            words(after)
                .next()
                .is_some_and(|w| w.len() > 4 && w.ends_with("ing"))
        });
    // "against" is not "again".
    // "staging is still on 13" says how things stand, not that a failure
    // goes on.
    let unagainst = [
        "still on ",
        "still in ",
        "still at ",
        "still uses ",
        "still runs ",
    ]
    .iter()
    .fold(lower.replace("against", "versus"), |text, s| {
        text.replace(s, "on ")
    });
    let transient = any_word_at_start(&unagainst, TRANSIENT_EN)
        || any_at_word_start(lower, INCIDENT_EN)
        || keeps_doing;
    if !of_the_moment && (is_own_habit(lower) || (!transient && is_wanted_rule(lower))) {
        return Some(Kind::Preference);
    }
    // "Jonas is the only one with prod access, so ask him": about a person.
    if !transient && is_person_statement(without_fillers(sentence)) {
        // "Aisha prefers written updates": what a person likes is a preference.
        let liking = has_word(lower, &["prefers", "likes", "loves", "hates"]);
        return Some(if liking { Kind::Preference } else { Kind::Fact });
    }
    // "I'd rather pay off the loan than invest right now": one thing over
    // another, whatever the moment.
    let rather_than =
        any_at_word_start(lower, &["i'd rather ", "i would rather "]) && lower.contains(" than ");
    // "I'd rather not open new credit lines right now", "I'd rather keep
    // it under $15 a month": what the speaker would not do, or a limit.
    let rather_not = ["i'd rather ", "i would rather "]
        .iter()
        .find_map(|p| lower.strip_prefix(p))
        .is_some_and(|rest| rest.starts_with("not ") || has_money(rest));
    if rather_than || rather_not || (!of_the_moment && is_refusal(lower)) {
        return Some(Kind::Preference);
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
    if !transient
        && (is_family_statement(lower)
            || is_own_appointment(lower)
            || is_age_or_tenure(lower)
            || is_health_state(lower)
            || is_dated_life_event(lower)
            || is_own_project(lower)
            || is_planned_count(sentence, lower)
            || (!of_the_moment && is_own_money(lower)))
    {
        return Some(Kind::Fact);
    }
    // "The passport expires in May 2031": a date a thing lapses or renews.
    if !transient
        && has_word(
            lower,
            &["expires", "expire", "expiry", "renews", "renewal", "valid"],
        )
        && words(lower).any(|w| {
            w.len() == 4
                && (w.starts_with("19") || w.starts_with("20"))
                && w.bytes().all(|b| b.is_ascii_digit())
        })
    {
        return Some(Kind::Fact);
    }
    // "I'll be in Lisbon Oct 14-17": the speaker away, on dates.
    if !transient && is_own_trip(sentence, lower) {
        return Some(Kind::Fact);
    }
    // "I have two kids", "we have a dog": what the speaker lives with.
    if !of_the_moment && !transient && is_own_household(lower) {
        return Some(Kind::Fact);
    }
    // "I'm using beancount for my finances": the speaker's tools.
    if !of_the_moment
        && !transient
        && ["i use ", "i'm using ", "i am using "]
            .iter()
            .any(|p| lower.starts_with(p))
        && !is_pointed(
            lower
                .find(" us")
                .and_then(|at| lower.get(at + 4..))
                .unwrap_or_default(),
        )
    {
        return Some(Kind::Fact);
    }
    // "It's me, my wife Anna and our two kids", "I publish every other
    // Sunday": the speaker's family and schedule.
    if !of_the_moment
        && !transient
        && ((any_at_word_start(lower, FAMILY_EN) && has_specific_value(sentence, lower))
            || is_own_schedule(lower))
    {
        return Some(Kind::Fact);
    }
    if !of_the_moment && !transient && is_recurring_ask(lower) {
        return Some(Kind::Preference);
    }
    // "We're on Jenkins right now": what the team runs, at present.
    let on_product = ["We're on ", "We are on ", "we're on ", "we are on "]
        .iter()
        .find_map(|p| without_fillers(sentence).strip_prefix(p))
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_uppercase()));
    if on_product && !any_at_word_start(lower, INCIDENT_EN) {
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
    // Last, the speaker's own statement with a value in it.
    (is_subject_value(sentence, lower)
        || is_it_product(sentence)
        || is_subject_has_product(sentence, lower)
        || (!of_the_moment && is_own_statement_of_a_value(sentence)))
    .then_some(Kind::Fact)
}

/// "不是 README，支持列表在 docs 里", "用的是 Riverpod，不是 Bloc": a
/// clause that denies, beside one that states.
fn is_contrast_correction_zh(sentence: &str) -> bool {
    let clauses: Vec<&str> = sentence
        .split(['，', ',', '；', ';'])
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    // "比赛不是 4 月，我刚看了官网，是 3 月 23 号": a later clause says
    // what is.
    let denied_then_stated = clauses
        .iter()
        .position(|c| c.contains("不是"))
        .is_some_and(|at| {
            clauses[at + 1..]
                .iter()
                .any(|c| c.starts_with('是') && c.chars().any(|c| c.is_ascii_alphanumeric()))
        });
    clauses.len() >= 2 && (clauses.iter().any(|c| c.starts_with("不是")) || denied_then_stated)
}

fn classify_zh(sentence: &str) -> Option<Kind> {
    let contains = |list: &[&str]| list.iter().any(|p| sentence.contains(p));
    let corrected_value = (sentence.contains("不是") && sentence.contains("而是"))
        || ((sentence.contains("应该是") || sentence.contains("其实"))
            && (sentence.contains("不是")
                || sentence.contains("已经")
                || sentence.contains("换成")
                || sentence.contains("改成")));
    // "半小时就搞定了": done, not decided.
    let undone = sentence.replace("搞定", "");
    let we = sentence.contains("我们");
    // "我们定了用 FreeRTOS，不用 RT-Thread": the option ruled out is part
    // of the decision, not a correction.
    let decided = ["决定", "定了", "敲定", "选定", "拍板"]
        .iter()
        .any(|p| undone.contains(p));
    // "我们坐高铁过去，不坐飞机": the speakers' way, and the one they
    // rule out: a choice, unless a marker says it puts something right.
    // ("我们组长姓王，不姓汪" puts a name right.)
    if !contains(CORRECTION_ZH)
        && we
        && denied_verb_zh(sentence).is_some_and(|v| !"姓叫是在有".contains(v))
    {
        return Some(Kind::Decision);
    }
    if contains(CORRECTION_ZH)
        || ((corrected_value
            || is_contrast_correction_zh(sentence)
            || is_changed_value_zh(sentence))
            && !decided)
    {
        return Some(Kind::Correction);
    }
    // "那就分批写", "那就试一下": a next step; "那就 SQS 吧", "那就用 X": a
    // choice.
    // "那就 70%": a value named after "那就" is chosen too.
    let chosen_then = |p: &str| {
        p != "那就"
            || ["吧", "用", "定", "选", "按"]
                .iter()
                .any(|c| undone.contains(c))
            || undone.split("那就").nth(1).is_some_and(|rest| {
                rest.trim_start()
                    .starts_with(|c: char| c.is_ascii_alphanumeric())
            })
    };
    if DECISION_ZH
        .iter()
        .any(|p| undone.contains(p) && chosen_then(p))
        || (we && (contains(CHANGE_VERBS_ZH) || contains(PLAN_ZH)))
        || sentence.starts_with("同意")
        || is_chosen_zh(sentence)
        || is_concluded_plan_zh(sentence)
        || is_itinerary_zh(sentence)
        || is_settled_zh(sentence)
    {
        // "我决定先去吃个饭": my choice for now.
        let for_now = sentence.contains('我') && !sentence.contains("我们") && contains(MOMENT_ZH);
        return (!for_now).then_some(Kind::Decision);
    }
    // "以后再说": later, not from now on; "2022 年以后": after a time.
    let later = |at: usize| {
        sentence[at..].starts_with("以后再")
            || sentence[..at]
                .trim_end()
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_digit() || "年月日天号点周时之".contains(c))
    };
    let preference = PREFERENCE_ZH.iter().any(|p| {
        if *p == "以后" {
            sentence.match_indices(p).any(|(at, _)| !later(at))
        } else {
            sentence.contains(p)
        }
    }) || (contains(WISH_ZH) && !contains(TRANSIENT_ZH) && !contains(MOMENT_ZH));
    // "每周六早上帮我列一下买菜清单": an ask that recurs.
    let periodic = [
        "每周",
        "每天",
        "每月",
        "每年",
        "每晚",
        "每个月",
        "每个星期",
        "每星期",
    ]
    .iter()
    .any(|p| sentence.contains(p));
    // ("帮我记一下" asks to keep what follows, not to do it again.)
    let asked = ["帮我", "提醒我", "给我"]
        .iter()
        .any(|a| sentence.contains(a))
        && !sentence.contains("帮我记");
    // "提前一小时提醒我就行": how early to be reminded, for every reminder.
    // ("提前一周提醒我" beside a birthday asks once.)
    let lead_time = sentence.contains("提前")
        && sentence.contains("提醒我")
        && ["就行", "就好", "就可以", "都"]
            .iter()
            .any(|m| sentence.contains(m));
    if preference
        || (periodic && asked)
        || lead_time
        || is_stop_ask_zh(sentence)
        || is_unwanted_zh(sentence)
        || is_limit_zh(sentence)
        || is_wish_zh(sentence)
    {
        return Some(Kind::Preference);
    }
    // "女儿每周二和周四下午四点半有钢琴课": what happens on a schedule, at
    // a time of day or on a day.
    let timed = sentence.contains('点')
        || [
            "周一", "周二", "周三", "周四", "周五", "周六", "周日", "周末", "星期",
        ]
        .iter()
        .any(|d| sentence.contains(d));
    // "每个月定投 2000 块": an amount that recurs.
    let money = sentence.match_indices(['块', '元', '万']).any(|(at, _)| {
        sentence[..at]
            .trim_end()
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_digit() || "两三四五六七八九十百千".contains(c))
    });
    // "女儿周二晚上游泳，七点到八点": someone of the family on a weekday,
    // at a time of day (not this week's or next week's one-off).
    let family_day = [
        "女儿", "儿子", "孩子", "老大", "老二", "老公", "老婆", "我妈", "我爸",
    ]
    .iter()
    .any(|f| sentence.starts_with(f))
        && [
            "周一", "周二", "周三", "周四", "周五", "周六", "周日", "星期",
        ]
        .iter()
        .any(|d| sentence.contains(d))
        && ["上午", "下午", "晚上", "早上", "中午", "点"]
            .iter()
            .any(|t| sentence.contains(t))
        && !["这周", "下周", "本周", "这个周", "下个周", "上周"]
            .iter()
            .any(|o| sentence.contains(o));
    if ((periodic && (timed || money)) || family_day)
        && !contains(TRANSIENT_ZH)
        && !["请", "你", "吧"].iter().any(|a| sentence.contains(a))
    {
        return Some(Kind::Fact);
    }
    // "我有两个孩子", "我有东航的金卡": what the speaker lives with or holds.
    let household = ["我有", "我们有", "家里有"].iter().any(|h| {
        sentence.match_indices(h).any(|(at, _)| {
            let rest: String = sentence[at + h.len()..].chars().take(12).collect();
            [
                "孩子",
                "儿子",
                "女儿",
                "双胞胎",
                "狗",
                "猫",
                "会员",
                "金卡",
                "银卡",
                "白金卡",
                "驾照",
                "房贷",
                "车贷",
                "糖尿病",
                "高血压",
                "哮喘",
                "老人",
            ]
            .iter()
            .any(|n| rest.contains(n))
        })
    });
    // "我只能早上跑": what the speaker can only do (not for now: "我只能先").
    let only_can = sentence.contains("我只能") && !contains(MOMENT_ZH);
    // "五一我们要去成都，4 月 30 号出发": a trip with its dates.
    let trip = ["我要去", "我们要去", "出差", "出发", "飞去", "回国", "休假"]
        .iter()
        .any(|t| sentence.contains(t))
        && sentence.match_indices(['月', '号', '日']).any(|(at, _)| {
            sentence[..at]
                .trim_end()
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_digit() || "一二三四五六七八九十".contains(c))
        });
    // "孩子 6 岁", "他们都六十多岁了": an age.
    let age = sentence.match_indices('岁').any(|(at, _)| {
        sentence[..at]
            .trim_end()
            .trim_end_matches('多')
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_digit() || "一二三四五六七八九十".contains(c))
    });
    // "在外企干了五年": a time served.
    let served = ["干了", "工作了", "做了", "待了", "教了", "学了"]
        .iter()
        .any(|v| {
            sentence.match_indices(v).any(|(at, _)| {
                let rest: String = sentence[at + v.len()..]
                    .trim_start()
                    .chars()
                    .take(4)
                    .collect();
                rest.starts_with(|c: char| {
                    c.is_ascii_digit() || "一二两三四五六七八九十半".contains(c)
                }) && rest.contains('年')
            })
        });
    // "3月31日必须上线": a date that cannot move.
    let fixed_date = ["必须", "之前", "截止"]
        .iter()
        .any(|m| sentence.contains(m))
        && sentence.match_indices(['号', '日']).any(|(at, _)| {
            sentence[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_digit())
        });
    // "项目叫“青鸟”": a thing and its name.
    let named = sentence.match_indices('叫').any(|(at, _)| {
        let rest = sentence[at + '叫'.len_utf8()..].trim_start();
        at > 0 && rest.starts_with(['“', '"', '《', '「'])
            || rest.starts_with(|c: char| c.is_ascii_uppercase())
    });
    // "生词我用 Anki", "服务监听 8080": the speaker's tool, a port.
    let tool = sentence.match_indices("我用").any(|(at, _)| {
        sentence[at + "我用".len()..]
            .trim_start()
            .starts_with(|c: char| c.is_ascii_alphabetic())
    }) && !["吧", "了", "帮", "试"]
        .iter()
        .any(|m| sentence.contains(m));
    // "小王不吃猪肉", "老李不能吃辣": what someone does not eat (not "有时候
    // 不吃", a meal skipped).
    let diet = ["不吃", "不能吃", "吃不了"].iter().any(|d| {
        sentence.match_indices(d).any(|(at, _)| {
            sentence[at + d.len()..]
                .chars()
                .next()
                .is_some_and(|c| is_cjk(c) && c != '了')
        })
    });
    // "体重 78 公斤，身高 175": the speaker's measures.
    let measured = ["体重", "身高", "腰围"]
        .iter()
        .any(|m| sentence.contains(m))
        && sentence.chars().any(|c| c.is_ascii_digit())
        && !sentence.contains('你');
    let port = ["监听", "端口"].iter().any(|p| sentence.contains(p))
        && sentence.chars().filter(char::is_ascii_digit).count() >= 2;
    if (contains(FACT_ZH)
        || fixed_date
        || named
        || tool
        || diet
        || measured
        || port
        || is_copula_value_zh(sentence)
        || is_own_work_zh(sentence)
        || age
        || served
        || is_about_person_zh(sentence)
        || household
        || only_can
        || trip
        || is_money_held_zh(sentence)
        || is_surname_zh(sentence)
        || is_schooling_zh(sentence)
        || is_score_zh(sentence)
        || is_own_appointment_zh(sentence))
        && !contains(TRANSIENT_ZH)
    {
        return Some(Kind::Fact);
    }
    if is_intent_zh(sentence) {
        return Some(Kind::Decision);
    }
    // Last, the speaker's own statement with a count or a number in it.
    is_own_statement_of_a_value_zh(sentence).then_some(Kind::Fact)
}

/// "我打算明年开始定投基金", "我想开始早睡", "那就不去玉龙雪山了", "这个先不考
/// 虑", "就按 CPU 70% 扩容", "从今晚开始十二点前放下手机": the speaker
/// setting out to do something, settling on it, or dropping a plan. An
/// intention (`打算`, `准备`, `计划`, `想开始`) at the start of a clause,
/// after the speaker or no subject; `就` and a verb of choice; `从` a day
/// `开始`; or a clause that opens with `不` or `先不` before a verb and
/// ends in `了` or names what is dropped (not "先不管", a task left). Not
/// what one cannot or does not do by habit (`不能`, `不会`, `不吃` is the
/// diet rule's), not a question or a request to the other.
fn is_intent_zh(sentence: &str) -> bool {
    const INTENTS: &[&str] = &["打算", "准备", "计划", "想开始", "要开始", "决心"];
    const SUBJECTS: &[&str] = &["我们", "我", "咱们", ""];
    const NOT_PLANS: &[&str] = &[
        "不能",
        "不会",
        "不吃",
        "不喝",
        "不是",
        "不要",
        "不用",
        "不错",
        "不好",
        "不行",
        "不太",
        "不知道",
        "不确定",
    ];
    if sentence.contains('你') || sentence.contains('？') || sentence.contains('?') {
        return false;
    }
    sentence
        .split(['，', ',', '。', '！', '!', '；'])
        .map(str::trim)
        .any(|clause| {
            // "那我就留三万应急": "那" before the speaker concludes, as in
            // "那就".
            let clause = clause
                .strip_prefix('那')
                .filter(|rest| rest.starts_with('我') || rest.starts_with("咱们"))
                .unwrap_or(clause);
            let after_subject = SUBJECTS
                .iter()
                .find_map(|s| {
                    clause
                        .strip_prefix(s)
                        .filter(|_| !s.is_empty() || !clause.is_empty())
                })
                .unwrap_or(clause);
            let intends = INTENTS.iter().any(|i| {
                after_subject
                    .strip_prefix(i)
                    .is_some_and(|rest| rest.chars().filter(|c| is_cjk(*c)).count() >= 2)
            });
            let body = ["这个", "那个", "那就", "那", "就"]
                .iter()
                .fold(after_subject, |rest, lead| {
                    rest.strip_prefix(lead).unwrap_or(rest)
                })
                .trim_start();
            // "就按 CPU 70% 扩容", "那就定在周六": a choice concluded.
            let concluded = ["那就", "就"].iter().any(|lead| {
                after_subject.strip_prefix(lead).is_some_and(|rest| {
                    [
                        "按", "定", "选", "订", "去", "买", "报", "走", "住", "留", "存", "投",
                    ]
                    .iter()
                    .any(|v| rest.trim_start().starts_with(v))
                })
            }) && clause.chars().filter(|c| is_cjk(*c)).count() >= 4;
            // "从今晚开始十二点前放下手机": a habit from a day on.
            let from_now = after_subject.strip_prefix('从').is_some_and(|rest| {
                [
                    "今天",
                    "今晚",
                    "明天",
                    "下周",
                    "下个月",
                    "现在",
                    "这周",
                    "本周",
                ]
                .iter()
                .any(|d| rest.starts_with(d))
                    && rest.contains("开始")
                    && rest.chars().filter(|c| is_cjk(*c)).count() >= 6
            });
            let dropped = ["先不", "不"].iter().any(|n| {
                body.strip_prefix(n).is_some_and(|rest| {
                    rest.chars().next().is_some_and(is_cjk)
                        && (clause.ends_with('了') || n.len() > "不".len())
                        && rest.chars().filter(|c| is_cjk(*c)).count() >= 2
                        // "先不管", "先不动": a task left for later.
                        && !["管", "动", "用管"].iter().any(|t| rest.starts_with(t))
                })
            }) && !NOT_PLANS.iter().any(|p| body.starts_with(p));
            // "缓存先不上", "香格里拉就不去了", "数据库这次不动": a thing,
            // then the plan for it dropped.
            let topic_dropped = ["先不", "就不", "这次不", "暂时不"].iter().any(|n| {
                clause.match_indices(n).any(|(at, _)| {
                    let topic = &clause[..at];
                    let rest = &clause[at + n.len()..];
                    topic
                        .chars()
                        .filter(|c| is_cjk(*c) || c.is_ascii_alphanumeric())
                        .count()
                        >= 2
                        && !topic.contains('我')
                        && rest.chars().next().is_some_and(is_cjk)
                        && rest.chars().count() <= 4
                        && ![
                            "管", "动了", "用管", "知道", "确定", "太", "好", "行", "错", "能",
                            "会", "是", "要", "用",
                        ]
                        .iter()
                        .any(|t| rest.starts_with(t))
                })
            });
            intends || dropped || concluded || from_now || topic_dropped
        })
}

/// "样式我们是 Tailwind", "信用卡是每月 8 号出账单": something *is* a
/// specific value (a Latin name, a number).
fn is_copula_value_zh(sentence: &str) -> bool {
    if sentence.starts_with("这是") || sentence.starts_with("那是") {
        return false;
    }
    sentence.match_indices('是').any(|(at, _)| {
        let joined = sentence[..at]
            .chars()
            .next_back()
            .is_some_and(|c| "不还但可于总只就或真正算要若凡也倒像是".contains(c))
            // "依赖注入现在是手写的": how things stand now.
            || ["现在", "目前"].iter().any(|n| sentence[..at].ends_with(n));
        let clause = sentence[at..]
            .split(['，', ',', '。', '；', ';', '！', '!'])
            .next()
            .unwrap_or_default();
        // ("用的是《新标准日本语》": a title is a name too.)
        !joined
            && at > 0
            && (clause
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| w.len() >= 2 || w.bytes().any(|b| b.is_ascii_digit()))
                || clause.contains(['《', '“']))
    })
}

/// "失败告警别发邮件了": stop doing something, for good (not "你别管了",
/// not 别人, 特别, 区别 ...).
fn is_stop_ask_zh(sentence: &str) -> bool {
    sentence
        .split(['，', ',', '；', '。', '！'])
        .map(str::trim)
        .any(|clause| {
            !clause.contains('你')
                && clause.ends_with('了')
                && clause.match_indices('别').any(|(at, _)| {
                    let before = clause[..at].chars().next_back();
                    let after = clause[at + '别'.len_utf8()..].chars().next();
                    !before.is_some_and(|c| "特区分级类告识差个性派鉴辨".contains(c))
                        && after.is_some_and(|c| is_cjk(c) && c != '人' && c != '的')
                        && clause.chars().count() >= 5
                })
        })
}

/// "我比较想住海边", "我不希望周末加班": what the speaker would rather
/// have, or would rather not, said as a wish; not a wish to know or to ask
/// ("我比较想知道…").
fn is_wish_zh(sentence: &str) -> bool {
    const WISHES: &[&str] = &[
        "我不希望",
        "我们不希望",
        "我比较想",
        "我们比较想",
        "我更想",
        "我们更想",
        "我更希望",
        "我比较希望",
    ];
    const MIND_VERBS: &[&str] = &["知道", "问", "了解", "听", "看", "确认", "试"];
    !sentence.contains('你')
        && !contains_any(sentence, MOMENT_ZH)
        && !contains_any(sentence, TRANSIENT_ZH)
        && WISHES.iter().any(|w| {
            sentence.match_indices(w).any(|(at, _)| {
                let rest = sentence[at + w.len()..].trim_start();
                rest.chars().filter(|c| is_cjk(*c)).count() >= 2
                    && !MIND_VERBS.iter().any(|v| rest.starts_with(v))
            })
        })
}

/// "预算大概三十万", "现在有五万块存款", "月收入一万二": money the
/// household has, earns, owes or sets aside, with its amount.
fn is_money_held_zh(sentence: &str) -> bool {
    const MONEY_NOUNS: &[&str] = &[
        "预算", "存款", "积蓄", "收入", "月薪", "年薪", "工资", "房贷", "车贷", "月供", "房租",
        "首付", "欠款",
    ];
    // An amount: a numeral before 万, 块 or 元 ("一万二", "八万块", "3000 元").
    let amount = sentence
        .match_indices(['万', '块', '元'])
        .any(|(at, unit)| {
            sentence[..at]
                .trim_end()
                .chars()
                .next_back()
                .is_some_and(|c| {
                    c.is_ascii_digit()
                        || "两三四五六七八九十百千".contains(c)
                        || (c == '一' && unit == "万")
                })
        });
    amount && contains_any(sentence, MONEY_NOUNS) && !sentence.contains('你')
}

/// "我们经理姓周": someone's surname (not "姓名", not "不姓 X", which
/// puts a name right).
fn is_surname_zh(sentence: &str) -> bool {
    sentence.match_indices('姓').any(|(at, _)| {
        let before = sentence[..at].chars().next_back();
        let after = sentence[at + '姓'.len_utf8()..].chars().next();
        before.is_some_and(|c| is_cjk(c) && c != '不' && c != '贵')
            && after.is_some_and(|c| is_cjk(c) && !"名氏什啥".contains(c))
    }) && !sentence.contains('你')
}

/// "托福考了 95", "词汇量大概六千": a score or a level the speaker
/// reached, a number after what measures it.
fn is_score_zh(sentence: &str) -> bool {
    ["考了", "考过", "词汇量", "分数"].iter().any(|m| {
        sentence.match_indices(m).any(|(at, _)| {
            let rest = sentence[at + m.len()..]
                .trim_start()
                .trim_start_matches("大概")
                .trim_start_matches("有")
                .trim_start();
            rest.starts_with(|c: char| c.is_ascii_digit() || "一二两三四五六七八九十".contains(c))
        })
    }) && !sentence.contains('你')
}

/// "我本科学的是金融", "我研究生是读历史的": what the speaker studied.
fn is_schooling_zh(sentence: &str) -> bool {
    ["我本科", "我硕士", "我博士", "我研究生", "我大学"]
        .iter()
        .any(|d| {
            sentence.match_indices(d).any(|(at, _)| {
                let rest: String = sentence[at + d.len()..].chars().take(6).collect();
                rest.contains('学') || rest.contains('读')
            })
        })
}

/// "我在做一个记账 app", "我在写硕士论文": what the speaker is making.
fn is_own_work_zh(sentence: &str) -> bool {
    // "我们组在做一个工单系统": the speaker's team too.
    ["我在", "我们在", "我们组在", "我们团队在", "我们公司在"]
        .iter()
        .any(|p| is_own_work_after_zh(sentence, p))
}

fn is_own_work_after_zh(sentence: &str, subject: &str) -> bool {
    sentence.match_indices(subject).any(|(at, _)| {
        let rest = &sentence[at + subject.len()..];
        [
            "做", "写", "开发", "训", "搞", "读", "学", "带", "准备", "备考",
        ]
        .iter()
        .any(|v| rest.starts_with(v))
            && [
                "一个", "一篇", "一本", "一款", "一套", "论文", "综述", "项目", "课题", "博士",
                "硕士", "大学", "考",
            ]
            .iter()
            .any(|o| rest.contains(o))
            // "我在准备 JLPT N2": a named exam or course.
            || (["准备", "备考", "学", "考"].iter().any(|v| rest.starts_with(v))
                && rest.contains(|c: char| c.is_ascii_uppercase()))
    })
}

/// "我不想引入 Elasticsearch", "晚上九点以后不想再开会": what the speaker
/// does not want, whatever the day (not "今天不想", not a reply to "你").
fn is_unwanted_zh(sentence: &str) -> bool {
    !sentence.contains('你')
        && !contains_any(sentence, MOMENT_ZH)
        && !contains_any(sentence, TRANSIENT_ZH)
        && sentence
            .split(['，', ',', '。', '！', '!', '；'])
            .map(str::trim)
            .any(|clause| {
                ["我不想", "我们不想", "不想再"].iter().any(|p| {
                    clause.match_indices(p).any(|(at, _)| {
                        (at == 0 || p.starts_with("不想再"))
                            && clause[at + p.len()..]
                                .chars()
                                .filter(|c| !c.is_whitespace())
                                .count()
                                >= 2
                    })
                })
            })
}

/// "住宿每晚 500 以内", "亏 20% 以内能接受": a limit on money the
/// speaker sets, for every choice it bears on.
fn is_limit_zh(sentence: &str) -> bool {
    ["以内", "以下", "之内", "不超过", "封顶", "最多"]
        .iter()
        .any(|l| sentence.contains(l))
        && [
            "预算",
            "budget",
            "每晚",
            "每月",
            "每个月",
            "%",
            "块",
            "元",
            "万",
            "能接受",
        ]
        .iter()
        .any(|m| sentence.contains(m))
        && has_number(sentence, "")
        && !sentence.contains('你')
}

/// "他挺喜欢画画", "听力最弱", "我最拿手的是红烧肉", "游标分页下个迭代再做":
/// what someone of the family likes, where the speaker is weakest or best,
/// and work put off to a named later round.
fn is_about_person_zh(sentence: &str) -> bool {
    let liking = ["他", "她", "孩子", "儿子", "女儿", "老大", "老二"]
        .iter()
        .any(|p| sentence.starts_with(p))
        && sentence.contains("喜欢")
        && !sentence.contains('你');
    let ranked = ["最弱", "最差", "最拿手", "最擅长", "最薄弱"]
        .iter()
        .any(|r| sentence.contains(r))
        && !["这", "那", "你"].iter().any(|d| sentence.contains(d));
    liking || ranked
}

/// "游标分页下个迭代再做", "那我每天晚上看一集日剧", "那就周三下午去试驾":
/// work put off to a named later round, a habit or a visit concluded.
fn is_settled_zh(sentence: &str) -> bool {
    let deferred = ["下个迭代", "下个版本", "下一版", "下个季度", "下一期", "下个 sprint", "下个sprint"]
        .iter()
        .any(|l| sentence.contains(l))
        && sentence.contains('再')
        // "等下个季度再说": left open, not settled.
        && !["再说", "再看", "再议", "再定"].iter().any(|o| sentence.contains(o));
    let habit = ["那我", "那我们", "那就"]
        .iter()
        .any(|p| sentence.starts_with(p))
        && ["每天", "每周", "每晚", "以后"]
            .iter()
            .any(|d| sentence.contains(d));
    let visit = sentence.strip_prefix("那就").is_some_and(|rest| {
        ["周", "下周", "明天", "后天"]
            .iter()
            .any(|d| rest.starts_with(d))
            && ["去", "买", "订", "报", "走"]
                .iter()
                .any(|v| rest.contains(v))
    });
    (deferred || habit || visit) && !sentence.contains('你')
}

/// "大理三天、丽江三天", "东京四晚，京都三晚": a trip split into stays,
/// two places or more each with a length.
fn is_itinerary_zh(sentence: &str) -> bool {
    sentence
        .split(['、', '，', ','])
        .map(|part| part.trim().trim_end_matches(['。', '！']))
        .filter(|part| {
            let Some(head) = part
                .strip_suffix('天')
                .or_else(|| part.strip_suffix('晚'))
                .or_else(|| part.strip_suffix("个晚上"))
            else {
                return false;
            };
            let place = head.trim_end_matches(|c: char| {
                c.is_ascii_digit() || c.is_whitespace() || "一二两三四五六七八九十".contains(c)
            });
            place.len() < head.len()
                && place.chars().filter(|c| is_cjk(*c)).count() >= 2
                && !["每", "第", "几", "这", "那", "前", "后"]
                    .iter()
                    .any(|m| place.ends_with(m))
        })
        .count()
        >= 2
}

fn contains_any(sentence: &str, list: &[&str]) -> bool {
    list.iter().any(|p| sentence.contains(p))
}

/// "钢琴老师姓刘，不姓柳": a clause denies with the verb of the one before.
fn is_repeated_denial_zh(sentence: &str) -> bool {
    denied_verb_zh(sentence).is_some()
}

/// The verb a clause denies after the clause before used it ("姓" in
/// "钢琴老师姓刘，不姓柳").
fn denied_verb_zh(sentence: &str) -> Option<char> {
    let clauses: Vec<&str> = sentence
        .split(['，', ',', '；', ';'])
        .map(str::trim)
        .collect();
    clauses.windows(2).find_map(|pair| {
        // ("我喜欢民宿，不喜欢酒店" likes one thing over another: a
        // preference.)
        pair[1]
            .strip_prefix('不')
            .and_then(|rest| rest.chars().next())
            .filter(|verb| is_cjk(*verb) && !"要喜爱".contains(*verb) && pair[0].contains(*verb))
    })
}

/// "发版改到周四了": a thing's value changed (not what I just did).
fn is_changed_value_zh(sentence: &str) -> bool {
    is_repeated_denial_zh(sentence)
        || ([
            "改成",
            "改为",
            "改到",
            "换成",
            "挪到",
            "推迟到",
            "提前到",
            "调整为",
            "调到",
            "涨到",
            "降到",
            "升到",
        ]
        .iter()
        .any(|v| sentence.contains(v))
            && sentence.contains('了')
            && !sentence.contains('我')
            && !sentence.contains('吧')
            && !sentence.contains('帮'))
}

/// "那我们 5 号出发": what the speakers will do on a date, concluded from
/// what was said ("那").
fn is_concluded_plan_zh(sentence: &str) -> bool {
    sentence.starts_with('那')
        && sentence.contains("我们")
        && sentence.match_indices(['号', '日']).any(|(at, _)| {
            sentence[..at]
                .trim_end()
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_digit() || "一二三四五六七八九十".contains(c))
        })
}

/// "email 用 citext 吧": a clause choosing what to use.
fn is_chosen_zh(sentence: &str) -> bool {
    sentence
        .split(['，', ',', '。', '！', '!', '；'])
        .map(str::trim)
        .any(|c| {
            // "日志就用 Loki 吧", "默认语言定英文吧", "用 ECB 的汇率就行",
            // "就昆明和大理吧".
            // "力量训练放周六吧": a thing placed on a day.
            (c.ends_with('吧')
                && (c.contains('用')
                    || c.contains('定')
                    || c.starts_with('就')
                    || (["放", "排", "挪"].iter().any(|v| c.contains(v))
                        && ["周", "号", "点", "月"].iter().any(|d| c.contains(d))))
                || (["就行", "就好", "就可以"].iter().any(|e| c.ends_with(e))
                    && c.contains('用')
                    && !c.contains('我')))
                && !["帮", "看", "先", "试", "不用", "你"]
                    .iter()
                    .any(|m| c.contains(m))
        })
}

/// What follows a short lead-in ("For meal ideas: Leo has a nut
/// allergy"): a topic of a few words and a colon.
fn after_lead_in(sentence: &str) -> Option<&str> {
    let at = sentence.find(": ")?;
    let lead = &sentence[..at];
    let rest = sentence[at + 2..].trim_start();
    (lead.split_whitespace().count() <= 6
        && lead.chars().all(|c| c.is_alphabetic() || c == ' ')
        && rest.chars().count() >= SENTENCE_CHARS_MIN)
        .then_some(rest)
}

/// A guess, an option weighed or a condition: not a memory.
fn is_hedged(sentence: &str, lower: &str) -> bool {
    // "大概 3 亿行" is about a number, not a guess.
    any_at_word_start(lower, HEDGES_EN)
        || HEDGES_ZH.iter().any(|h| {
            sentence.match_indices(h).any(|(at, _)| {
                // "以后不考虑了" rules an option out: no hedge.
                (*h != "考虑" || !sentence[..at].ends_with('不'))
                    // "单程大概四十公里": Chinese numerals too.
                    && (*h != "大概"
                        || !sentence[at + h.len()..].trim_start().starts_with(|c: char| {
                            c.is_ascii_digit() || "一二两三四五六七八九十百千万半".contains(c)
                        }))
            })
        })
}

/// What `sentence` (`lower` is it [`normalized`]) is, if it is worth
/// remembering; `after_marker` when the sentence before it in the turn was
/// a bare correction marker.
fn classify(sentence: &str, lower: &str, after_marker: bool) -> Option<Kind> {
    let cjk = sentence.chars().filter(|c| is_cjk(*c)).count();
    // "老陈不吃辣", "我妈晕机": a Chinese statement says much in few
    // characters.
    let short = sentence.chars().count() < SENTENCE_CHARS_MIN && cjk < CJK_CHARS_MIN;
    if short || is_question(sentence, lower) {
        return None;
    }
    let kind = if cjk * 4 >= sentence.chars().filter(|c| !c.is_whitespace()).count() {
        classify_zh(sentence).or_else(|| classify_en(sentence, lower))
    } else {
        classify_en(sentence, lower)
            .or_else(|| classify_zh(sentence))
            .or_else(|| {
                after_lead_in(sentence).and_then(|rest| classify_en(rest, &normalized(rest)))
            })
            .or_else(|| {
                // "Great, let's do the fossil dig!": read past an
                // acknowledgement as past an opener, when a statement of
                // its own follows ("yep, agreed, do that" only agrees).
                let rest = without_fillers(sentence);
                (rest.len() < sentence.len() && rest.split_whitespace().count() >= 4)
                    .then(|| classify_en(rest, &normalized(rest)))?
            })
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

/// Whether `sentence` is the speaker's own statement of how things stand
/// with a specific value in it, which no other reading took: "I have
/// three cats", "Our office is on Pier 39", "My rent is $1,800",
/// `我们家有两辆车`. The last reading of a user's sentence: it opens with
/// the speaker (`I`, `my`, `we`, `our`; `我`, `我们`, `我家`) and names a
/// number, a name or a day (a Chinese count: a numeral and its measure),
/// and is neither an ask, an intent or an event ("I need help with...",
/// "I'm thinking of...", "I tried X last weekend") nor about the talk
/// itself ("this", "it", "you").
fn is_own_statement_of_a_value(sentence: &str) -> bool {
    let rest = without_fillers(sentence);
    let lower = normalized(rest);
    let own = OWN_OPENERS_EN.iter().any(|p| lower.starts_with(p));
    let second = lower.split_whitespace().nth(1).unwrap_or_default();
    // The speaker's "I" further in is no name.
    let unnamed_speaker = rest.replace(" I ", " i ").replace(" I'", " i'");
    // "I watched 3 episodes", "we went to Lisbon in 2019": an event told.
    // ("I've got a bike" holds one.)
    let holds = lower.starts_with("i've got ") || lower.starts_with("we've got ");
    let told = !holds
        && ((second.len() > 4 && second.ends_with("ed")) || PAST_EVENTS_EN.contains(&second));
    own && !told
        && !NOT_A_STANDING_EN.contains(&second)
        && !has_word(&lower, NOT_A_STANDING_WORDS_EN)
        && !any_word_at_start(&lower, TRANSIENT_EN)
        && !any_at_word_start(&lower, MOMENT_EN)
        && !any_at_word_start(&lower, INCIDENT_EN)
        && has_specific_value(&unnamed_speaker, &lower)
}

/// [`is_own_statement_of_a_value`] in Chinese: `我家有两辆车`, not
/// `我想买两辆车`, `我们今天加班到十点`.
fn is_own_statement_of_a_value_zh(sentence: &str) -> bool {
    let rest = without_fillers(sentence);
    rest.chars().any(is_cjk)
        && OWN_OPENERS_ZH.iter().any(|p| rest.starts_with(p))
        && (rest.chars().any(|c| c.is_ascii_digit()) || states_a_count_zh(rest))
        && !TRANSIENT_ZH.iter().any(|t| rest.contains(t))
        && !NOT_A_STANDING_ZH.iter().any(|t| rest.contains(t))
        // "我们下午三点开会": a clock time, not every day's, is the day's
        // appointment.
        && (!says_a_clock_time_zh(rest) || rest.contains('每'))
}

/// Whether a Chinese sentence says a clock time (`三点`, `10点`).
fn says_a_clock_time_zh(sentence: &str) -> bool {
    sentence.match_indices('点').any(|(at, _)| {
        sentence[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_digit() || "一二两三四五六七八九十".contains(c))
    })
}

/// How the speaker opens a statement about themselves or their own.
const OWN_OPENERS_EN: &[&str] = &[
    "i ", "i'm ", "i've ", "my ", "we ", "we're ", "we've ", "our ",
];

/// Words after the speaker that make an ask, an intent, a wish, a try or
/// a passing event of the sentence, not how things stand.
#[rustfmt::skip]
const NOT_A_STANDING_EN: &[&str] = &[
    "need", "want", "wanna", "think", "thinking", "wonder", "tried", "try", "trying", "hope",
    "guess", "looking", "going", "missed", "finally", "just", "sometimes", "basically", "don't",
    "keep",
];

/// Verbs in the past, after the speaker, that tell an event.
const PAST_EVENTS_EN: &[&str] = &[
    "went", "saw", "did", "ate", "came", "bought", "made", "took", "met", "ran", "had", "got",
];

/// Words anywhere that tie a sentence to the talk or to the moment.
#[rustfmt::skip]
const NOT_A_STANDING_WORDS_EN: &[&str] = &[
    "you", "this", "that", "it", "now", "last", "yesterday", "today", "tonight", "meeting", "call",
];

/// How the speaker opens a statement about themselves in Chinese.
const OWN_OPENERS_ZH: &[&str] = &["我们", "我家", "我的", "我"];

/// Marks of an ask, a wish, a passing moment or a feeling in Chinese.
const NOT_A_STANDING_ZH: &[&str] = &[
    "你", "吗", "想", "需要", "最近", "刚", "昨天", "今天", "啊", "吧", "难",
];

/// Whether a Chinese sentence states a count: a numeral before a measure
/// word or another numeral (`两辆`, `三十岁`, `五千块`), not the 一 of
/// `一起`, `一直` or `一般`.
fn states_a_count_zh(sentence: &str) -> bool {
    const NUMERALS: &str = "一二两三四五六七八九十百千万半";
    const MEASURES: &str = "个岁年月号日点天周次块元辆台套间只条口本门节分斤米里人位家层";
    let chars: Vec<char> = sentence.chars().collect();
    chars.windows(2).any(|pair| {
        NUMERALS.contains(pair[0]) && (MEASURES.contains(pair[1]) || NUMERALS.contains(pair[1]))
    })
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

/// `sentence` without the words that open it and mean nothing to it
/// ("yeah, ", "ok so ", "对了，"): what a memory keeps.
fn without_fillers(sentence: &str) -> &str {
    const ACKNOWLEDGEMENTS: &[&str] = &[
        "yeah", "yes", "yep", "sure", "cool", "alright", "fine", "great", "wait", "nah", "hmm",
        "对了", "另外", "好的", "好", "嗯", "哦", "还有", "行",
    ];
    fn opener<'s>(rest: &'s str, word: &str, ends: &[char]) -> Option<&'s str> {
        let head = rest.get(..word.len())?;
        let after = rest.get(word.len()..)?;
        (head.eq_ignore_ascii_case(word) && after.starts_with(ends))
            .then(|| after.trim_start_matches([',', '，', ':', ' ', '-']))
    }
    let mut rest = sentence;
    loop {
        let next = OPENERS_EN
            .iter()
            .chain(&["yeah", "yes", "yep", "nah", "hmm", "alright"])
            .find_map(|w| opener(rest, w, &[',', ' ']))
            .or_else(|| {
                ACKNOWLEDGEMENTS
                    .iter()
                    .find_map(|w| opener(rest, w, &[',', '，']))
            });
        match next {
            Some(after) if after.chars().count() >= SENTENCE_CHARS_MIN => rest = after,
            _ => return rest,
        }
    }
}

/// Whether clauses of one kind are memories of their own: the speaker
/// and one of the family ("I'm vegetarian, and my husband doesn't eat
/// mushrooms"), each its own value ("Rent is $1,850, the car payment is
/// $390"), or each about its own person ("小林吃素，老陈不吃辣").
fn of_several(parts: &[(&str, Kind)], cjk: bool) -> bool {
    if cjk {
        const PEOPLE: &[&str] = &[
            "老大", "老二", "女儿", "儿子", "孩子", "我妈", "我爸", "老公", "老婆", "爸爸", "妈妈",
        ];
        let person = |c: &str| {
            PEOPLE
                .iter()
                .find(|p| c.starts_with(*p))
                .map(|p| (*p).to_owned())
                .or_else(|| {
                    // "小林", "老陈": a name with its prefix.
                    let mut chars = c.chars();
                    let first = chars.next().filter(|f| "小老".contains(*f))?;
                    let second = chars.next().filter(|s| is_cjk(*s))?;
                    Some(format!("{first}{second}"))
                })
        };
        let people: Vec<Option<String>> = parts.iter().map(|(c, _)| person(c)).collect();
        // "我妈血压有点高，香格里拉就不去了": one of the family, and the
        // plan it leads to.
        let family_and_plan = parts.iter().any(|(_, k)| *k != parts[0].1)
            && parts
                .iter()
                .any(|(c, _)| PEOPLE.iter().any(|p| c.starts_with(p)));
        return family_and_plan
            || (people.iter().all(Option::is_some) && people.windows(2).all(|p| p[0] != p[1]));
    }
    let lowers: Vec<String> = parts.iter().map(|(c, _)| normalized(c)).collect();
    let speaker = lowers.iter().any(|l| {
        words(l)
            .next()
            .is_some_and(|w| w == "i" || w.starts_with("i'"))
    });
    let family = lowers
        .iter()
        .any(|l| FAMILY_EN.iter().any(|f| starts_with_word(l, f)));
    let values = parts
        .iter()
        .zip(&lowers)
        .all(|((c, _), l)| is_subject_value(c, l) && has_money(l));
    (speaker && family) || values
}

/// The clauses of a Chinese sentence that says nothing as a whole, each
/// with its kind when it is worth remembering on its own; none when the
/// sentence is a question or hedged.
fn clauses_zh<'s>(sentence: &'s str, lower: &str) -> Vec<(&'s str, Kind)> {
    let cjk = sentence.chars().filter(|c| is_cjk(*c)).count();
    if cjk * 4 < sentence.chars().filter(|c| !c.is_whitespace()).count()
        || is_hedged(sentence, lower)
    {
        return Vec::new();
    }
    // "孩子对芒果过敏，要跟学校说吗？": a statement, then the question it
    // raises; the question clause is left out, the statement read. (A
    // recent state asked about, "最近总是失眠，怎么办？", is a complaint.)
    const RECENT: &[&str] = &["最近", "这几天", "这两天", "这阵子", "这段时间"];
    let asked = is_question(sentence, lower);
    let split: Vec<&str> = sentence.split(['，', '；']).collect();
    let statements = if asked {
        match split.split_last() {
            Some((question, before))
                if !before.is_empty()
                    && is_question(question, &normalized(question))
                    && !before
                        .iter()
                        .any(|c| c.contains('你') || contains_any(c, RECENT)) =>
            {
                before
            }
            _ => return Vec::new(),
        }
    } else {
        &split[..]
    };
    let clauses: Vec<&str> = statements
        .iter()
        .copied()
        .map(str::trim)
        // "记住这个 PID", "我一般不这样写": a clause pointing at the talk is
        // about the moment.
        .filter(|c| {
            !c.is_empty()
                && !["这个", "那个", "这样", "这么"]
                    .iter()
                    .any(|d| c.contains(d))
        })
        .collect();
    if clauses.len() < 2 && !(asked && clauses.len() == 1) {
        return Vec::new();
    }
    clauses
        .into_iter()
        .filter_map(|c| classify(c, &normalized(c), false).map(|k| (c, k)))
        .collect()
}

/// The clauses of an English sentence that says nothing as a whole,
/// each with its kind when it is worth remembering on its own: a reason
/// or a consequence joined to an ask or to chatter ("I'm useless after
/// 3pm, so never put focus time in the afternoon", "we'll need runners
/// because the tests hit the DB on port 5433"). None when the sentence
/// is a question or hedged.
fn clauses_en<'s>(sentence: &'s str, lower: &str) -> Vec<(&'s str, Kind)> {
    const JOINS: &[&str] = &[", so ", " because ", ", but ", " but ", "; ", ", since "];
    // "I'm pescatarian, and my partner is allergic to shellfish": "and"
    // before a subject joins two statements.
    const SUBJECTS: &[&str] = &[
        "i ", "i'm ", "i've ", "we ", "we're ", "we've ", "my ", "our ", "she ", "she's ", "he ",
        "he's ", "it's ", "have ",
    ];
    if sentence.chars().any(is_cjk) || is_question(sentence, lower) {
        return Vec::new();
    }
    let plain = sentence.to_ascii_lowercase();
    // "I mixed it up: Anna does Mondays, I do Tuesdays": a correction
    // says all of it.
    let spliced: &[&str] = if classify_en(sentence, lower) == Some(Kind::Correction) {
        &[]
    } else {
        &[", let's ", ", i ", ", we ", ", my ", ", our ", ", the "]
    };
    let mut cuts: Vec<(usize, usize)> = JOINS
        .iter()
        .flat_map(|j| sentence.match_indices(j).map(|(at, j)| (at, at + j.len())))
        // "Love that idea, let's do the dig", "Let's go with X, I don't
        // trust Y": a comma before a new subject starts a clause.
        .chain(spliced.iter().flat_map(|j| {
            // (ASCII lower case keeps the offsets of `sentence`.)
            plain
                .match_indices(j)
                .map(|(at, _)| (at, at + 2))
                .collect::<Vec<_>>()
        }))
        .chain(
            [", and ", " and "]
                .iter()
                .flat_map(|j| sentence.match_indices(j).map(|(at, j)| (at, at + j.len())))
                .filter(|(_, end)| {
                    sentence.get(*end..).is_some_and(|rest| {
                        let rest = rest.to_lowercase().replace('\u{2019}', "'");
                        SUBJECTS.iter().any(|s| rest.starts_with(s))
                    })
                }),
        )
        .collect();
    if cuts.is_empty() {
        return Vec::new();
    }
    cuts.sort_unstable();
    let mut clauses = Vec::new();
    let mut start = 0;
    for (at, end) in cuts {
        if at >= start {
            clauses.push(&sentence[start..at]);
            start = end;
        }
    }
    clauses.push(&sentence[start..]);
    let mut read: Vec<(&str, Kind)> = Vec::new();
    for (at, clause) in clauses.into_iter().map(str::trim).enumerate() {
        // A hedge in the first clause hedges the sentence; a later one
        // hedges its own clause ("I've been a nurse for six years and I'm
        // thinking about leaving").
        let clause_lower = normalized(clause);
        if is_hedged(clause, &clause_lower) {
            if at == 0 {
                return Vec::new();
            }
            continue;
        }
        let Some(kind) = classify(clause, &clause_lower, false) else {
            continue;
        };
        // "we're on 15, so don't use anything newer": the rule a fact or a
        // choice leads to stays with it, to the end of the sentence.
        // ("Let's go with X, I don't trust Y": a liking of its own, with
        // its subject, is no rule the choice leads to.)
        if let Some(last) = read.last_mut()
            && last.1 != Kind::Preference
            && kind == Kind::Preference
            && !starts_with_subject(&clause_lower)
        {
            if let Some(start) = sentence.find(last.0) {
                last.0 = sentence[start..].trim_end();
            }
            break;
        }
        read.push((clause, kind));
    }
    read
}

/// The question of an assistant turn that offers options ("X, or Y?",
/// "你更喜欢 A 还是 B？"): its last sentence.
fn offered_choice(content: &str) -> Option<&str> {
    if !content.contains(['?', '？']) {
        return None;
    }
    let last = prose_lines(content)
        .flat_map(|line| sentences(line, &[]))
        .last()?;
    (last.ends_with(['?', '？']) && (last.contains(" or ") || last.contains("还是")))
        .then_some(last)
}

/// Whether `sentence`, a user's answer, picks an option of `question`: a
/// short statement that names one (a word of four letters or more from it).
fn is_pick(sentence: &str, question: &str) -> bool {
    let lower = normalized(sentence);
    let question = question.to_lowercase();
    let named = words(&lower).any(|w| {
        w.len() >= 4
            && w.is_ascii()
            && !engram_text::tokenize::is_stopword(w)
            // ("Mornings" names "morning".)
            && words(&question).any(|q| q == w || q == w.trim_end_matches('s'))
    });
    named
        && sentence.chars().count() >= SENTENCE_CHARS_MIN
        && words(&lower).count() <= 8
        && !is_question(sentence, &lower)
        && !is_hedged(sentence, &lower)
        && classify(sentence, &lower, false).is_none()
}

/// Whether `sentence`, the first of a user's reply, picks something the
/// assistant turn `before` put forward, with an affirmation ("Avalanche,
/// definitely." after a turn comparing avalanche and snowball, "go
/// sharded." after "... or we could switch to sharded checkpoints"): a
/// short statement naming a word of the turn (four letters or more, not an
/// affirmation or a stop word).
fn is_affirmed_pick(sentence: &str, before: &str) -> bool {
    const AFFIRMATIONS: &[&str] = &["definitely", "absolutely", "for sure", "it is", "obviously"];
    let lower = normalized(sentence);
    let n_words = words(&lower).count();
    let affirmed = any_at_word_start(&lower, AFFIRMATIONS) || starts_with_word(&lower, "go");
    if !affirmed || n_words > 4 || is_question(sentence, &lower) || is_hedged(sentence, &lower) {
        return false;
    }
    let before = before.to_lowercase();
    let named = words(&lower).any(|w| {
        w.len() >= 4
            && w.is_ascii()
            && !engram_text::tokenize::is_stopword(w)
            && !AFFIRMATIONS.iter().any(|a| a.starts_with(w))
            && words(&before).any(|b| b == w)
    });
    named && classify(sentence, &lower, false).is_none()
}

/// The question an assistant turn ends on, when it asks the user for
/// something to know ("How long will you stay?", "现在是什么水平？"), not
/// for a go-ahead ("Want me to draft it?") or between options.
fn asked_question(content: &str) -> Option<&str> {
    let last = prose_lines(content)
        .flat_map(|line| sentences(line, &[]))
        .last()?;
    if !last.ends_with(['?', '？']) || offered_choice(content).is_some() {
        return None;
    }
    let lower = last.to_lowercase();
    let go_ahead = [
        "want me",
        "should i",
        "shall i",
        "do you want",
        "would you like",
        "need me",
        "要我",
        "需要我",
    ]
    .iter()
    .any(|a| lower.contains(a));
    (!go_ahead).then_some(last)
}

/// A number in `sentence`: a digit, an English number word, or a Chinese
/// numeral.
fn has_number(sentence: &str, lower: &str) -> bool {
    sentence.chars().any(|c| {
        // (Not 一: "出一版", "看一下" count nothing.)
        c.is_ascii_digit() || "二两三四五六七八九十百千万半".contains(c)
    }) || has_word(lower, crate::meaning::NUMBER_WORDS)
        || has_word(lower, LARGER_NUMBER_WORDS_EN)
}

/// Whether `sentence`, the first of a user's reply to an assistant's
/// question, answers it with an amount, a date or a time ("About 40
/// pipelines.", "Ten days.", "去年十二月考过了 N3，分数 142"): a short
/// statement with a number that no rule reads. A rough amount is still an
/// answer ("about $500"), so a short one is not taken for a hedge; a
/// guess is not ("Probably around $900.": what the speaker might do).
fn is_numbered_answer(sentence: &str) -> bool {
    let lower = normalized(sentence);
    let n_words = words(&lower).count();
    let cjk = sentence.chars().filter(|c| is_cjk(*c)).count();
    // "你先按常规的出一版吧", "loss 突然变成 NaN 了，log 如下：": an ask,
    // an event, a lead-in; not an answer.
    let ask_or_event = cjk > 0
        && (["你", "吧", "如下", "了，", "了。"]
            .iter()
            .any(|a| sentence.contains(a))
            || sentence.ends_with(['了', ':', '：']));
    let short = if cjk > 0 {
        sentence.chars().count() <= 40
    } else {
        n_words <= 8
    };
    short
        && !ask_or_event
        && sentence.chars().count() >= SENTENCE_CHARS_MIN
        && has_number(sentence, &lower)
        && !is_question(sentence, &lower)
        && ((cjk == 0
            && n_words <= 5
            && !has_word(&lower, &["probably", "maybe", "perhaps", "possibly"]))
            || !is_hedged(sentence, &lower))
        && !["thanks", "thank", "谢谢"]
            .iter()
            .any(|t| lower.contains(t))
        && classify(sentence, &lower, false).is_none()
}

/// Whether a sentence of a user turn leaves a choice to the assistant
/// ("your call", "你定吧"); `lower` is it [`normalized`].
fn is_delegation(sentence: &str, lower: &str) -> bool {
    ((lower.contains("you") || lower.contains("strong") || lower.contains("dealer"))
        && any_at_word_start(lower, DELEGATION_EN))
        || (sentence.contains('你') && DELEGATION_ZH.iter().any(|d| sentence.contains(d)))
}

/// The choice an assistant turn makes when the user left it the choice:
/// its first sentence, when that states something.
fn delegated_choice(content: &str) -> Option<&str> {
    let sentence = prose_lines(content)
        .flat_map(|line| sentences(line, &[]))
        .next()?;
    let lower = normalized(sentence);
    (sentence.chars().count() >= SENTENCE_CHARS_MIN
        && !is_question(sentence, &lower)
        && !is_hedged(sentence, &lower))
    .then_some(sentence)
}

/// Proposals from `turns` (seq, role, content), in seq order: what the
/// user said about themselves or the project, and the choice an assistant
/// turn makes when the user turn before it left it the choice. Code
/// blocks, code lines and log lines are skipped.
#[must_use]
pub fn proposals(turns: &[(u64, Role, &str)]) -> Vec<Proposal> {
    let mut out = Vec::new();
    let mut delegated = false;
    let mut offered: Option<&str> = None;
    let mut asked = false;
    let mut assistant_said: Option<&str> = None;
    for &(seq, role, content) in turns {
        if role != Role::User {
            if std::mem::take(&mut delegated)
                && let Some(sentence) = delegated_choice(content)
            {
                out.push(Proposal {
                    seq,
                    sentence: sentence.to_owned(),
                    kind: Kind::Decision,
                });
            }
            offered = offered_choice(content);
            asked = asked_question(content).is_some();
            assistant_said = Some(content);
            continue;
        }
        delegated = false;
        // "About 40 pipelines." after "how many pipelines do you have?":
        // the user answers with an amount.
        let mut answered = None;
        if std::mem::take(&mut asked)
            && let Some(first) = prose_lines(content).flat_map(|l| sentences(l, &[])).next()
            && is_numbered_answer(first)
        {
            answered = Some(first);
            out.push(Proposal {
                seq,
                sentence: without_fillers(first).to_owned(),
                kind: Kind::Fact,
            });
        }
        // "Threaded loading." after "preloads, or threaded loading?": the
        // user picks one of the options the assistant offered.
        let question = offered.take();
        let said = assistant_said.take();
        if let Some(first) = prose_lines(content).flat_map(|l| sentences(l, &[])).next()
            && (question.is_some_and(|question| is_pick(first, question))
                || said.is_some_and(|before| is_affirmed_pick(first, before)))
        {
            out.push(Proposal {
                seq,
                sentence: without_fillers(first).to_owned(),
                kind: Kind::Decision,
            });
        }
        let mut after_marker = false;
        // "小王不吃猪肉；Emily 是 vegan": a semicolon parts two statements.
        for sentence in prose_lines(content).flat_map(|line| sentences(line, &['；'])) {
            let lower = normalized(sentence);
            delegated = delegated || is_delegation(sentence, &lower);
            if is_bare_marker(&lower, sentence) {
                after_marker = true;
                continue;
            }
            if answered.is_some_and(|a| std::ptr::eq(a, sentence)) {
                continue;
            }
            // "Aisha prefers written updates, so let's move the call to
            // Slack": clauses of different kinds are two memories. (A fact
            // or a choice and the rule it leads to, "we're on 15, so don't
            // use anything newer", stay one.)
            // "I'm pescatarian, and my partner is allergic to shellfish":
            // two statements, each worth keeping, are two memories.
            // "小林吃素，老陈不吃辣": a Chinese sentence about two people
            // is read clause by clause too.
            let cjk = sentence.chars().any(is_cjk);
            let parts = if cjk {
                clauses_zh(sentence, &lower)
            } else {
                clauses_en(sentence, &lower)
            };
            if parts.len() >= 2
                && ((!cjk && parts.iter().any(|(_, k)| *k != parts[0].1))
                    || of_several(&parts, cjk))
                && !after_marker
            {
                for (clause, kind) in parts {
                    out.push(Proposal {
                        seq,
                        sentence: without_fillers(clause).to_owned(),
                        kind,
                    });
                }
            } else if let Some(kind) = classify(sentence, &lower, after_marker) {
                out.push(Proposal {
                    seq,
                    sentence: without_fillers(sentence).to_owned(),
                    kind,
                });
            } else {
                // "帮我制定一个跑步计划，我的目标是明年 4 月的马拉松": an ask
                // beside a lasting clause; each clause read on its own.
                for (clause, kind) in clauses_zh(sentence, &lower)
                    .into_iter()
                    .chain(clauses_en(sentence, &lower))
                {
                    out.push(Proposal {
                        seq,
                        sentence: without_fillers(clause).to_owned(),
                        kind,
                    });
                }
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

    /// A commitment at the start of a sentence, after an acknowledgement
    /// too, and a Chinese intention, choice or dropped plan are decisions;
    /// a step of the talk, a pointed or hedged one, or what one cannot do
    /// is none.
    #[test]
    fn commitments_and_intentions_are_decisions() {
        for text in [
            "We'll rent a cabin near the lake instead of a hotel.",
            "I'll cancel the gym membership at the end of March.",
            "We want to replace the cron jobs with a scheduler.",
            "Sounds good, let's use the blue tiles for the bathroom.",
            "我打算下个月开始学游泳。",
            "那就不报暑期班了。",
            "就选靠窗的那张桌子吧。",
            "先不装这个插件了，没必要。",
            "从下周开始每天走一万步。",
        ] {
            let got = got(&[(1, Role::User, text)]);
            assert!(
                got.iter().any(|(_, _, kind)| *kind == Kind::Decision),
                "{text}: {got:?}"
            );
        }
        for text in [
            "I'll check the logs and get back to you.",
            "I'll take it from here.",
            "We'll probably keep it as is.",
            "yep, agreed, do that.",
            "我不能吃花生。",
            "你打算什么时候去？",
        ] {
            let got = got(&[(1, Role::User, text)]);
            assert!(
                !got.iter().any(|(_, _, kind)| *kind == Kind::Decision),
                "{text}: {got:?}"
            );
        }
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

    /// Sentences written for these tests, none from a corpus: a diet, an allergy, a
    /// home, what a project is on, and a rule said as a thing and how
    /// widely it holds. A sentence that starts with its subject and ends
    /// in "always" stays no rule.
    #[test]
    fn lasting_facts_and_rules_without_a_marker() {
        let facts = [
            "My son is allergic to shellfish.",
            "I'm vegan, so skip the cheese board.",
            "我女儿对猫毛和花粉都过敏。",
            "我们全家平时都吃素。",
            "我家在杭州西湖区。",
            "We're on Rails 7.1 with Sidekiq.",
            "We're a Yarn workspace with three packages.",
        ];
        assert_eq!(kinds(&facts), [Some(Kind::Fact); 7]);
        let rules = ["Semicolons always.", "Strict null checks everywhere."];
        assert_eq!(kinds(&rules), [Some(Kind::Preference); 2]);
        assert_eq!(kinds(&["It breaks always."]), [None]);
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

    #[test]
    fn general_signals_of_each_kind() {
        let corrections = [
            "The retro is on Friday, not Thursday.",
            "The cache size isn't 2GB like I said, it's 4GB.",
            "The standup moved to 10:30.",
            "数据库不是 MySQL，而是 Postgres。",
            "我们组长姓王，不姓汪。",
        ];
        assert_eq!(kinds(&corrections), [Some(Kind::Correction); 5]);
        let decisions = [
            "Let's do the blue theme then.",
            "Nightly backups should run at 02:00 UTC from now on.",
            "Every service gets its own database schema.",
            "日志就用 Loki 吧，省事。",
            "我们不打算支持 IE11。",
        ];
        assert_eq!(kinds(&decisions), [Some(Kind::Decision); 5]);
        let preferences = [
            "For release notes, keep them short and always link the PR.",
            "I don't answer work email on weekends.",
            "Send me a summary every Monday morning.",
        ];
        assert_eq!(kinds(&preferences), [Some(Kind::Preference); 3]);
        let facts = [
            "The nightly job has been broken for months.",
            "Build target is arm64 on the CI boxes.",
            "My sister's wedding is on October 12th.",
            "部署脚本是 Ansible 写的。",
        ];
        assert_eq!(kinds(&facts), [Some(Kind::Fact); 4]);
        let none = [
            "kubectl is showing 3 pending pods.",
            "Priya is on call this week, so ping her.",
            "我感觉是内存泄漏。",
            "No, leave them as they are for this PR.",
        ];
        assert_eq!(kinds(&none), [None; 4]);
    }

    #[test]
    fn an_assistant_choice_counts_when_the_user_left_it_the_choice() {
        let turns = [
            (1, Role::User, "For the cache key format, your call."),
            (
                2,
                Role::Assistant,
                "Then keys will be tenant:resource:id. I'll add a helper.",
            ),
            (3, Role::Assistant, "Keys could also carry a version."),
            (
                4,
                Role::Assistant,
                "Should the worker poll, or listen on a webhook?",
            ),
            (5, Role::User, "Webhook, please."),
            (6, Role::Assistant, "Want me to run the tests?"),
            (7, Role::User, "yes go ahead"),
        ];
        assert_eq!(
            got(&turns),
            [
                (
                    2,
                    "Then keys will be tenant:resource:id.".to_owned(),
                    Kind::Decision
                ),
                (5, "Webhook, please.".to_owned(), Kind::Decision),
            ]
        );
    }

    #[test]
    fn a_proposal_leaves_off_the_words_that_open_it() {
        let turns = [(1, Role::User, "yeah, from now on we use Ruff for linting.")];
        assert_eq!(
            got(&turns),
            [(
                1,
                "from now on we use Ruff for linting.".to_owned(),
                Kind::Decision
            )]
        );
    }

    /// Sentences written for these tests: what the speaker wants of all things of a
    /// kind, family and schedules, lead-ins, people after a filler, what a
    /// thing is built on, and values put right midway.
    #[test]
    fn wanted_rules_family_schedules_and_midway_corrections() {
        let preferences = [
            "I want every endpoint to return JSON.",
            "I'd like all config kept in one TOML file.",
            "I want commit messages to follow Conventional Commits.",
            "文档我希望都用英文写。",
            "我一般晚上十点以后不看消息。",
        ];
        assert_eq!(kinds(&preferences), [Some(Kind::Preference); 5]);
        let facts = [
            "It's me, my husband and our two kids.",
            "I swim every Saturday morning.",
            "I do the school run on Mondays and Thursdays.",
            "I bank with a small credit union.",
            "For context: Marta owns the payments service.",
            "btw Omar handles the on-call rota.",
            "About the importer: it's a Flask 2.3 app.",
            "我爸有高血压，不能吃太咸。",
            "我在写一个浏览器插件，用 TypeScript。",
            "我们的 wiki 跑在一台 NUC 上。",
            "我乳糖不耐受，不能喝牛奶。",
        ];
        assert_eq!(kinds(&facts), [Some(Kind::Fact); 11]);
        let corrections = [
            "The fee actually went up to 40 euros.",
            "The repo isn't on GitLab anymore.",
            "It's 12 services, not 10.",
            "会议不是周二，我查了日历，是周三 3 点。",
            "预算涨到 2000 了。",
        ];
        assert_eq!(kinds(&corrections), [Some(Kind::Correction); 5]);
        let decisions = [
            "Let's use Caddy as the reverse proxy.",
            "那就 Vue 吧，React 不考虑了。",
            "默认时区定 UTC 吧。",
            "日志格式用 JSON 就行。",
            "我们以后不再用 Jenkins。",
        ];
        assert_eq!(kinds(&decisions), [Some(Kind::Decision); 5]);
        let none = [
            "I want to see the full log.",
            "I want it to stop crashing.",
            "I want the build to finish first.",
            "Let's just restart it.",
            "Let's look at the logs.",
            "Let's run it again.",
            "I did Mondays last month.",
            "# TODO: prefer tabs once the linter is fixed",
            "Can you check if my wife's laptop is on the VPN?",
            "这周是小李值班，有事找他。",
            "昨天半夜出了个告警，十分钟就搞定了。",
            "依赖注入现在是手写的 ServiceLocator，太乱了。",
            "这个怎么存你定吧。",
            "以后回复我用中文就行。",
        ];
        let got = kinds(&none);
        assert_eq!(got[..13], [None; 13]);
        // A standing ask of the assistant, not a choice of the team.
        assert_eq!(got[13], Some(Kind::Preference));
    }

    /// Sentences written for these tests: Chinese clauses read on their own beside an
    /// ask, schedules and recurring asks in Chinese, what is supported,
    /// "X then" and "X it is for", intensified likings, and the speaker's
    /// tools.
    #[test]
    fn clauses_schedules_and_named_choices() {
        let got = proposals(&[(
            1,
            Role::User,
            "帮我订个餐厅，我对海鲜和花生都过敏，别选日料。",
        )]);
        assert_eq!(
            got.iter()
                .map(|p| (p.sentence.as_str(), p.kind))
                .collect::<Vec<_>>(),
            [("我对海鲜和花生都过敏", Kind::Fact)]
        );
        let facts = [
            "儿子每周三下午五点有游泳课。",
            "备份每天凌晨 2 点跑。",
            "我们的小程序最低支持微信 8.0。",
            "测试组一共有 5 台设备。",
            "I'm using Obsidian for my notes.",
        ];
        assert_eq!(kinds(&facts), [Some(Kind::Fact); 5]);
        let preferences = [
            "每个月月底提醒我交房租。",
            "I really dislike long meetings.",
            "Please write commit messages in English, no emoji.",
        ];
        assert_eq!(kinds(&preferences), [Some(Kind::Preference); 3]);
        let decisions = [
            "Caddy then, with automatic HTTPS.",
            "Redis it is for the cache.",
        ];
        assert_eq!(kinds(&decisions), [Some(Kind::Decision); 2]);
        let none = [
            "每周大概跑 20 公里。",
            "记住这个端口，等下要用。",
            "帮我看看这个报错，今天又挂了。",
            "OK then, go ahead.",
            "Please fix the test, no rush.",
            "I'm using it wrong, I guess.",
            "如果你有空，帮我改一下这个函数，顺便加个测试。",
        ];
        assert_eq!(kinds(&none), [None; 7]);
    }

    /// Sentences written for these tests: what a thing is built on, "against" (no
    /// "again"), a plan reversed, the speaker's own migration, ages, and
    /// what is not up for discussion.
    #[test]
    fn products_migrations_reversals_and_ages() {
        let facts = [
            "It targets Python 3.12 only.",
            "The tool compares staging against Postgres 16.2 nightly.",
            "两个孩子，大的 9 岁，小的 4 岁。",
        ];
        assert_eq!(kinds(&facts), [Some(Kind::Fact); 3]);
        assert_eq!(
            kinds(&["I'm switching my notes from Notion to Obsidian."]),
            [Some(Kind::Decision)]
        );
        assert_eq!(
            kinds(&["We're not doing a launch party after all."]),
            [Some(Kind::Correction)]
        );
        assert_eq!(
            kinds(&["Two reviewers per PR, that's non-negotiable."]),
            [Some(Kind::Preference)]
        );
        let none = [
            "I'm moving this file to src/ now.",
            "After all that, the build still fails.",
            "It's a mess, honestly.",
            "The tests ran again against staging.",
        ];
        assert_eq!(kinds(&none), [None; 4]);
    }

    /// Sentences written for these tests: how things go from now on, a date a thing
    /// lapses, and a rule said as one clause of a sentence.
    #[test]
    fn lasting_ways_expiry_dates_and_rule_clauses() {
        let decisions = [
            "Going forward all releases go through the staging tag.",
            "Naming every table in the singular from now on.",
        ];
        assert_eq!(kinds(&decisions), [Some(Kind::Decision); 2]);
        assert_eq!(
            kinds(&["Please keep answers short from now on."]),
            [Some(Kind::Preference)]
        );
        assert_eq!(
            kinds(&["My driving licence expires in March 2029."]),
            [Some(Kind::Fact)]
        );
        let preferences = [
            "The client is picky, so tabs everywhere, they insist.",
            "If you deploy anything, use the blue-green script, not a manual push.",
        ];
        assert_eq!(kinds(&preferences), [Some(Kind::Preference); 2]);
        let none = [
            "I guess the domain expires in 2027 or so.",
            "It crashed again, always the same way.",
            "It fails everywhere, I checked.",
        ];
        assert_eq!(kinds(&none), [None; 3]);
    }

    /// Sentences written for these tests: how a thing still stands, a name run into
    /// "is", Chinese likings said mildly, and all of a kind changed.
    #[test]
    fn standing_values_names_and_mild_likings() {
        let facts = [
            "Production is still on Java 17.",
            "Priya's a pharmacist at the county hospital.",
        ];
        assert_eq!(kinds(&facts), [Some(Kind::Fact); 2]);
        let preferences = [
            "我不太喜欢吃香菜，能不放就不放。",
            "我写脚本喜欢用 Python。",
        ];
        assert_eq!(kinds(&preferences), [Some(Kind::Preference); 2]);
        assert_eq!(kinds(&["旧的时间戳全部转成 UTC。"]), [Some(Kind::Decision)]);
        let none = [
            "The deploy is still failing on step 3.",
            "Here's the config I used.",
            "There's a typo in the README.",
            "That's a good point about caching.",
        ];
        assert_eq!(kinds(&none), [None; 4]);
    }

    /// Sentences written for these tests, for the broader lexicons: corrections, choices
    /// made by the speaker or the team, likings, facts about a person, and
    /// a standing "stop doing it" in Chinese.
    #[test]
    fn broader_lexicons_of_each_kind() {
        let corrections = [
            "Turns out the API limit is 100 requests a minute.",
            "On second thought, the offsite is in Lisbon.",
            "I misremembered the date, the launch is on the 9th.",
            "We don't use Jira, it's Linear.",
            "刚才口误，会议室在三楼。",
            "我看错了，截止日期是周五。",
        ];
        assert_eq!(kinds(&corrections), [Some(Kind::Correction); 6]);
        let decisions = [
            "We opted for Terraform Cloud over Atlantis.",
            "I'll go with the standing desk from IKEA.",
            "前端最终用 Svelte，不折腾 React 了。",
            "日志格式统一成 JSON Lines。",
        ];
        assert_eq!(kinds(&decisions), [Some(Kind::Decision); 4]);
        let preferences = [
            "I'm not into heavy frameworks for small scripts.",
            "It annoys me when commit messages are vague.",
            "别给我推荐付费课程，我只看免费的。",
            "周报别抄送老板了。",
        ];
        assert_eq!(kinds(&preferences), [Some(Kind::Preference); 4]);
        let facts = [
            "I was born in Porto and grew up in Lyon.",
            "I speak Portuguese and French at home.",
            "Our dog needs his pills twice a day.",
            "我老家在四川绵阳。",
            "我们公司在深圳南山。",
        ];
        assert_eq!(kinds(&facts), [Some(Kind::Fact); 5]);
        let none = [
            "Fix the typo in the README.",
            "你别管了，我自己来。",
            "这两个方案的区别不大了。",
        ];
        assert_eq!(kinds(&none), [None; 3]);
    }

    /// Sentences written for these tests: trips with their dates, what the speaker can
    /// only do, and rules set by a school or a company.
    #[test]
    fn trips_constraints_and_rules_set_by_others() {
        let facts = [
            "I'll be in Berlin for a workshop, March 3-5.",
            "I'm on leave from 12 to 19 August.",
            "国庆我们要去西安，10 月 2 号出发。",
            "我只能周末写代码，平时要上班。",
            "公司规定代码必须两人评审才能合并。",
        ];
        assert_eq!(kinds(&facts), [Some(Kind::Fact); 5]);
        let none = [
            "I'll be in a meeting until 3.",
            "我只能先重启一下试试。",
            "I'm flying through these tickets today.",
        ];
        assert_eq!(kinds(&none), [None; 3]);
    }

    /// Sentences written for these tests: a rule and what it rules out is a preference,
    /// not a correction; a Chinese decision keeps the option it rules out.
    #[test]
    fn rules_over_values_and_decisions_that_rule_out() {
        let preferences = [
            "Invoices should always be in EUR, not the local currency.",
            "Dates must be ISO 8601, not US format.",
        ];
        assert_eq!(kinds(&preferences), [Some(Kind::Preference); 2]);
        assert_eq!(
            kinds(&["The invoice is in EUR, not USD."]),
            [Some(Kind::Correction)]
        );
        assert_eq!(
            kinds(&["我们决定用 Rust，不用 Go。"]),
            [Some(Kind::Decision)]
        );
        assert_eq!(
            kinds(&["数据库用的是 Postgres，不用 MySQL。"]),
            [Some(Kind::Correction)]
        );
    }

    /// Sentences written for these tests: "那就" is a choice only with what is chosen, a
    /// problem going on ("keeps crashing", 很慢) is no fact.
    #[test]
    fn next_steps_and_problems_going_on_are_not_memories() {
        let none = [
            "那就先拆成两个函数。",
            "那就重跑一遍。",
            "Our staging app keeps timing out on Fridays.",
            "我们的官网首页加载特别慢，大概 6 秒。",
        ];
        assert_eq!(kinds(&none), [None; 4]);
        assert_eq!(
            kinds(&["那就 Caddy 吧，配置简单。", "那就用 Caddy，配置简单。"]),
            [Some(Kind::Decision); 2]
        );
    }

    /// Chatter written for this test that the signals above must leave alone: asks
    /// with a deadline, steps of a task, acknowledgements before "then",
    /// greetings from family, wishes about today.
    #[test]
    fn task_chatter_stays_unextracted() {
        let none = [
            "I want all the tests to pass before merging.",
            "I want each of you to review this.",
            "I'd like everything cleaned up by Friday.",
            "Let's add a print statement and rerun.",
            "Let's do a quick sanity check.",
            "Let's keep going.",
            "Let's make a branch for the fix.",
            "My wife says hi.",
            "帮我写一个脚本，我希望今天能跑完。",
            "我一般不这样写，不过这次先这样。",
            "Done then.",
            "Good then, thanks.",
            "Merge then.",
            "Please run the script, no changes needed.",
        ];
        assert_eq!(kinds(&none), [None; 14]);
        assert_eq!(
            kinds(&["The venue is actually 12th to 14th, not the 11th."]),
            [Some(Kind::Correction)]
        );
    }

    /// Sentences written for this test: the speaker's own statement with
    /// a value in it is a fact when no other reading takes it; an ask, an
    /// intent, a try or a moment with a value is not.
    #[test]
    fn the_speakers_own_statements_of_a_value_are_facts() {
        let facts = [
            "I commute 40 minutes each way.",
            "我们家两辆车都是电动的。",
            "我每天走一万步。",
            "我家离地铁站五百米。",
        ];
        assert_eq!(kinds(&facts), [Some(Kind::Fact); 4]);
        let none = [
            "I need 3 volunteers for Saturday.",
            "I tried Nomad 2 years ago.",
            "I watched 3 episodes of Severance.",
            "My build failed 3 times today.",
            "I have a call with Priya at 4.",
            "我想买两辆车。",
            "我们今天加班到十点。",
            "我们下午三点开会。",
        ];
        assert_eq!(kinds(&none), [None; 8]);
    }

    /// Sentences written for these tests: what the speaker lives with or holds.
    #[test]
    fn households_and_what_the_speaker_holds() {
        let facts = [
            "I have two kids in primary school.",
            "We have a very old cat who needs a quiet room.",
            "I've got a peanut allergy, a mild one.",
            "我有两个孩子，都在上小学。",
            "我有国航的金卡，可以走快速通道。",
        ];
        assert_eq!(kinds(&facts), [Some(Kind::Fact); 5]);
        let none = [
            "I have a question about the parser.",
            "I have a meeting at 3, back soon.",
            "We have a problem with the cache.",
            "我有个问题想问一下。",
        ];
        assert_eq!(kinds(&none), [None; 4]);
    }

    /// Sentences written for these tests: a condition then an instruction is no
    /// question; the speaker staying with what they use is a choice.
    #[test]
    fn conditions_before_rules_and_staying_with_a_choice() {
        assert_eq!(
            kinds(&["When you send me reports, use PDF, not Word."]),
            [Some(Kind::Preference)]
        );
        assert_eq!(kinds(&["when is the next release"]), [None]);
        assert_eq!(
            kinds(&["I'll stay with Firefox for development."]),
            [Some(Kind::Decision)]
        );
    }

    /// Sentences written for these tests: a short subject that has a named product with
    /// a model; a name alone, or a pronoun subject, is not one.
    #[test]
    fn subjects_that_have_a_named_product() {
        let facts = [
            "The build box has an AMD Ryzen 7950X and 64GB of RAM.",
            "node3 has a Mellanox ConnectX-5 card.",
        ];
        assert_eq!(kinds(&facts), [Some(Kind::Fact); 2]);
        let none = [
            "This has a GitHub Action attached.",
            "It has a Dockerfile somewhere.",
        ];
        assert_eq!(kinds(&none), [None; 2]);
    }

    /// Sentences written for these tests: a reply with an amount to what
    /// the assistant asked is a fact; a reply to an offer to act, a reply
    /// without a number, an ask, and an amount nobody asked for are not.
    #[test]
    fn amounts_given_as_answers() {
        let turns = [
            (
                1,
                Role::Assistant,
                "Sounds good. How many services do you run?",
            ),
            (2, Role::User, "Around 30 services."),
            (3, Role::Assistant, "了解。你们一周发几次版？"),
            (4, Role::User, "两次，周二和周四。"),
            (5, Role::Assistant, "Want me to write the migration?"),
            (6, Role::User, "Yes, all 3 of them."),
            (7, Role::Assistant, "How did the rollout go?"),
            (8, Role::User, "Thanks, all good now."),
            (9, Role::Assistant, "需要多长时间？"),
            (10, Role::User, "你先按三天估吧。"),
            (11, Role::Assistant, "Done, the report is attached."),
            (12, Role::User, "About 40 minutes."),
            (13, Role::Assistant, "什么时候要？"),
            (14, Role::User, "一点都不急，慢慢来。"),
        ];
        assert_eq!(
            got(&turns),
            [
                (2, "Around 30 services.".to_owned(), Kind::Fact),
                (4, "两次，周二和周四。".to_owned(), Kind::Fact),
            ]
        );
    }

    /// Sentences written for these tests: a reason or a consequence beside
    /// chatter is read as a clause; clauses of two kinds are two memories;
    /// a rule a fact leads to stays with the fact.
    #[test]
    fn clauses_of_english_sentences() {
        let turns = [
            (
                1,
                Role::User,
                "I get migraines from bright screens, so never suggest a light theme.",
            ),
            (
                2,
                Role::User,
                "Marta prefers async reviews, so let's move the weekly sync to a doc.",
            ),
            (
                3,
                Role::User,
                "sure thing. the billing box runs Debian 11 but my laptop is still on 12, so don't pin anything to 12 only.",
            ),
        ];
        assert_eq!(
            got(&turns),
            [
                (1, "never suggest a light theme.".to_owned(), Kind::Preference),
                (2, "Marta prefers async reviews".to_owned(), Kind::Preference),
                (2, "let's move the weekly sync to a doc.".to_owned(), Kind::Decision),
                (
                    3,
                    "the billing box runs Debian 11 but my laptop is still on 12, so don't pin anything to 12 only.".to_owned(),
                    Kind::Fact
                ),
            ]
        );
    }

    /// Sentences written for these tests: a semicolon parts two statements.
    #[test]
    fn semicolons_part_chinese_statements() {
        let turns = [(1, Role::User, "阿强对芒果过敏；小美是 vegan。")];
        assert_eq!(
            got(&turns),
            [
                (1, "阿强对芒果过敏；".to_owned(), Kind::Fact),
                (1, "小美是 vegan。".to_owned(), Kind::Fact),
            ]
        );
    }

    /// Sentences written for these tests: Chinese likings, diets, choices
    /// and the facts of a family's week, a budget, a deadline, a name, a
    /// tool and a port.
    #[test]
    fn chinese_likings_choices_and_facts() {
        let preferences = [
            "我比较喜欢靠窗的位子，不喜欢过道。",
            "我不吃香菜和芹菜。",
            "我不爱喝冰的饮料。",
            "提前半小时提醒我就行。",
        ];
        assert_eq!(kinds(&preferences), [Some(Kind::Preference); 4]);
        let decisions = [
            "我们坐地铁去，不坐出租车。",
            "那我们 12 号晚上走，住两晚。",
            "那就 3 个副本。",
            "就周五和周六吧。",
            "年会定在十二月二十号。",
        ];
        assert_eq!(kinds(&decisions), [Some(Kind::Decision); 5]);
        let facts = [
            "阿强不吃羊肉和牛肉。",
            "儿子周三下午五点上画画课。",
            "每个月给爸妈转 3000 块。",
            "6月15日之前必须交稿。",
            "公司内部的工单系统叫“飞鸽”。",
            "记笔记我用 Obsidian。",
            "网关监听 9443。",
            "课本用的是《标准韩国语》第一册。",
            "我在准备雅思，十月份考。",
        ];
        assert_eq!(kinds(&facts), [Some(Kind::Fact); 9]);
        let none = [
            "有时候晚上不吃。",
            "明天提醒我交电费。",
            "下周三下午三点开会。",
        ];
        assert_eq!(kinds(&none), [None; 3]);
    }

    /// Sentences written for these tests: English likings said for a team
    /// or a person, rules on kinds of days and on how writing is styled,
    /// commitments, amounts settled on, corrections after an interjection,
    /// and facts about family, ages, roles, tenures, schedules and trips.
    #[test]
    fn english_likings_choices_and_facts() {
        let preferences = [
            "We hate long layovers.",
            "One rule for every script you write for me: no global variables.",
            "On weekdays I want lunches I can make in ten minutes.",
            "Two coffees max on weekdays.",
            "Cite sources with footnotes, not inline links.",
            "Write dates as ISO 8601 in my notes.",
            "Priya prefers morning meetings.",
        ];
        assert_eq!(kinds(&preferences), [Some(Kind::Preference); 7]);
        let decisions = [
            "I'll review the budget every Sunday.",
            "Let's say €200 a month for groceries.",
            "Let's move the retro to Thursdays.",
            "We're doubling the cache today and adding a CDN next quarter.",
        ];
        assert_eq!(kinds(&decisions), [Some(Kind::Decision); 4]);
        assert_eq!(
            kinds(&["Honestly I'd rather rent than buy right now."]),
            [Some(Kind::Preference)]
        );
        assert_eq!(
            kinds(&["We're on Bitbucket right now, sadly."]),
            [Some(Kind::Fact)]
        );
        let corrections = [
            "Make that Friday at noon.",
            "Wait, actually we fly home on the 9th.",
        ];
        assert_eq!(kinds(&corrections), [Some(Kind::Correction); 2]);
        let facts = [
            "My wife works night shifts at the hospital.",
            "My youngest can't have dairy.",
            "Dev turns 40 in June.",
            "Lena will take over as release manager.",
            "She's been with the company six years.",
            "I swim Monday, Wednesday and Friday.",
            "Flying out June 3 for the conference.",
            "Some news about the whole team: Ravi leads the data group.",
        ];
        assert_eq!(kinds(&facts), [Some(Kind::Fact); 8]);
        let none = [
            "My husband thinks the cache is fine.",
            "Let's move on.",
            "Let's say we had ten users.",
        ];
        assert_eq!(kinds(&none), [None; 3]);
    }

    /// Each text of a user turn alone, with the proposals it gave; the
    /// texts whose proposals differ from `want` (all of a kind, or none),
    /// so a failure names every text a rule misses.
    fn misses(cases: &[(&str, &[Kind])]) -> Vec<String> {
        cases
            .iter()
            .filter_map(|(text, want)| {
                let kinds: Vec<Kind> = got(&[(1, Role::User, text)])
                    .into_iter()
                    .map(|(_, _, kind)| kind)
                    .collect();
                (kinds != *want).then(|| format!("{text}: {kinds:?}"))
            })
            .collect()
    }

    /// Money the household has or owes, a condition or a medicine, a life
    /// event set on a month or a season, what the speaker is making, a
    /// count planned for and a time served are facts; chatter with the same
    /// words is none.
    #[test]
    fn household_money_health_and_life_events_are_facts() {
        use Kind::Fact;
        let missed = misses(&[
            ("I take home about $3,900 a month.", &[Fact]),
            ("I owe $8,500 on my student loan.", &[Fact]),
            ("I keep $2,000 in a savings account for repairs.", &[Fact]),
            ("I've got a bad shoulder from climbing.", &[Fact]),
            ("I've had lower back pain for three weeks.", &[Fact]),
            ("I'm taking metformin twice a day.", &[Fact]),
            ("We're renovating the bathroom next spring.", &[Fact]),
            ("We're getting married in October.", &[Fact]),
            ("I'm going to Oslo in November.", &[Fact]),
            // ("redoing" holds "red", a word of a failing build.)
            ("We're redoing the patio this spring.", &[Fact]),
            ("I'm building a budgeting app for my parents.", &[Fact]),
            ("We're expecting about 60 people at the reunion.", &[Fact]),
            (
                "I've been a teacher at a public school for nine years and I'm thinking about quitting.",
                &[Fact],
            ),
            ("I have back-to-back meetings.", &[]),
            ("I'm taking the dog out.", &[]),
            ("I'm looking at flights for August.", &[]),
            ("I'm writing a test for the parser.", &[]),
            ("Can I afford $700 a month?", &[]),
        ]);
        assert!(missed.is_empty(), "{missed:#?}");
    }

    /// A commitment whose light verb takes a named object is a decision;
    /// an appointment of the speaker's with its day is a fact. The same
    /// verbs on what the talk points at, and the day's meetings, are none.
    #[test]
    fn named_commitments_and_appointments() {
        use Kind::{Decision, Fact};
        let missed = misses(&[
            ("We'll do Kyoto first and Osaka after.", &[Decision]),
            ("I'll take the 7:15 ferry.", &[Decision]),
            ("we're going to get a Subaru", &[Decision]),
            ("I'll do that.", &[]),
            ("I'll get back to you on it.", &[]),
            ("I'll take a look.", &[]),
            ("I'll do the PR.", &[]),
            ("I have a dentist appointment on Friday.", &[Fact]),
            ("My final exam is in two weeks.", &[Fact]),
            (
                "I've got a follow-up with the cardiologist in 3 months.",
                &[Fact],
            ),
            ("I have a meeting on Friday.", &[]),
            ("I have an interview question about heaps.", &[]),
            ("下个月我要去医院复查", &[Fact]),
            ("周五有个面试，有点紧张", &[Fact]),
            ("面试怎么准备比较好？", &[]),
            ("我有一个考试的问题想问你", &[]),
        ]);
        assert!(missed.is_empty(), "{missed:#?}");
    }

    /// Two statements joined by "and" before a subject, or about the
    /// speaker and one of the family, are two memories; a comma before a
    /// new subject or "let's" starts a clause, unless the sentence corrects.
    #[test]
    fn joined_statements_are_read_apart() {
        use Kind::{Correction, Decision, Fact, Preference};
        let missed = misses(&[
            (
                "I'm a night-shift nurse, and my brother is allergic to peanuts.",
                &[Fact, Fact],
            ),
            (
                "Let's go with the blue paint, I don't trust the grey samples.",
                &[Decision, Preference],
            ),
            (
                "Love the sound of that, let's do the canal walk.",
                &[Decision],
            ),
            (
                "I mixed it up: Sam does Mondays, I do Fridays.",
                &[Correction],
            ),
            ("I'm vegan, my brother eats everything.", &[Fact, Fact]),
            ("Rent is $1,400, the car payment is $320.", &[Fact, Fact]),
            ("My sister is arguing for the grey tiles.", &[]),
            ("小王吃素，老李不吃海鲜。", &[Fact, Fact]),
        ]);
        assert!(missed.is_empty(), "{missed:#?}");
    }

    /// What the speakers will not do, would rather not do, or like as a
    /// household, and what they learn best by, are preferences; a refusal
    /// about this one thing is none.
    #[test]
    fn refusals_and_household_likings_are_preferences() {
        use Kind::Preference;
        let missed = misses(&[
            ("I don't want to take on any new debt.", &[Preference]),
            ("Neither of us wants to fly overnight.", &[Preference]),
            (
                "I'd rather not take on a second car loan right now.",
                &[Preference],
            ),
            ("I'd rather keep it under $1,200 a month.", &[Preference]),
            (
                "We like quiet beaches much more than big resorts.",
                &[Preference],
            ),
            ("I'm sick of meal plans built on tofu.", &[Preference]),
            ("I learn best by doing exercises.", &[Preference]),
            ("I don't want to break this.", &[]),
            ("I'm sick of this error.", &[]),
        ]);
        assert!(missed.is_empty(), "{missed:#?}");
    }

    /// Stays split between places, a choice acted on, a commitment on a
    /// kind of day and one after "then" are decisions.
    #[test]
    fn itineraries_and_choices_acted_on_are_decisions() {
        use Kind::Decision;
        let missed = misses(&[
            (
                "Madrid for three nights, then Seville for two.",
                &[Decision],
            ),
            (
                "The venue allows pets, so we're booking the lodge.",
                &[Decision],
            ),
            ("I'm turning down the second offer.", &[Decision]),
            ("I'll do the oatmeal with berries on weekdays.", &[Decision]),
            ("Then we'll rent bikes and skip the tour bus.", &[Decision]),
            ("杭州两天、苏州三天。", &[Decision]),
            ("游泳课先不报。", &[Decision]),
            ("长城就不去了。", &[Decision]),
            ("登录页下个版本再改。", &[Decision]),
            ("那我每天早上跑三公里。", &[Decision]),
            ("那就周六上午去看房。", &[Decision]),
            ("游泳课放周四吧。", &[Decision]),
            ("I'm checking the lodge's reviews.", &[]),
            ("这个先不管。", &[]),
            ("下个版本再说。", &[]),
        ]);
        assert!(missed.is_empty(), "{missed:#?}");
    }

    /// What the speaker does at a rate or on the commute, and the
    /// speaker's measures, are facts; an option named in the plural is
    /// picked; one of the family beside the plan it leads to is two
    /// memories.
    #[test]
    fn rates_measures_plural_picks_and_family_plans_are_read() {
        use Kind::{Decision, Fact};
        let missed = misses(&[
            ("I swim twice a week at the community pool.", &[Fact]),
            ("I read the news on my commute.", &[Fact]),
            ("我现在体重 65 公斤。", &[Fact]),
            ("我爸腰不好，黄山就不爬了。", &[Fact, Decision]),
        ]);
        assert!(missed.is_empty(), "{missed:#?}");
        let picked = got(&[
            (
                1,
                Role::Assistant,
                "Do you train in the morning or the evening?",
            ),
            (2, Role::User, "Mornings, before work."),
        ]);
        assert_eq!(picked.len(), 1, "{picked:?}");
    }

    /// An amount given in answer is a fact; a guess at one is not.
    #[test]
    fn a_guessed_amount_is_no_answer() {
        let asked = "How much could you set aside each month?";
        let reply = |text| got(&[(1, Role::Assistant, asked), (2, Role::User, text)]);
        assert_eq!(reply("About $700.").len(), 1);
        assert!(reply("Probably around $700.").is_empty());
    }

    /// An admission without the value marks the next statement as the
    /// correction, and is none alone; "one correction:" opens one.
    #[test]
    fn admissions_mark_the_correction_that_follows() {
        use Kind::Correction;
        let missed = misses(&[
            (
                "Oh, I got the times wrong. Class starts at 6:30.",
                &[Correction],
            ),
            (
                "Sorry, I gave you the wrong street. We live on Elm Road.",
                &[Correction],
            ),
            ("I mixed up the names.", &[]),
            (
                "One correction: the garage is 3 by 7 meters.",
                &[Correction],
            ),
            ("我说错了。", &[]),
        ]);
        assert!(missed.is_empty(), "{missed:#?}");
    }

    /// Short Chinese statements, ages said with 多, a time served, a course
    /// signed up for, a named exam, the team's work, what the speaker does
    /// not want or caps, a family member's liking and a weakest skill are
    /// read; a guess stays none, an amount after 大概 does not.
    #[test]
    fn short_and_numbered_chinese_statements_are_read() {
        use Kind::{Fact, Preference};
        let missed = misses(&[
            ("我爸晕车。", &[Fact]),
            ("我爷爷八十多岁了。", &[Fact]),
            ("我在银行干了八年。", &[Fact]),
            ("我报了一个周末的瑜伽班。", &[Fact]),
            ("我在准备 CPA。", &[Fact]),
            ("我们组在做一个内部的报销系统。", &[Fact]),
            ("我们团队大概二十个人。", &[Fact]),
            ("她特别喜欢跳舞。", &[Fact]),
            ("口语最弱。", &[Fact]),
            ("我不想用 Docker，太重了。", &[Preference]),
            ("晚上十点以后不想再看邮件。", &[Preference]),
            ("房租每月 4000 以内。", &[Preference]),
            ("今天不想写代码。", &[]),
            ("他可能喜欢吧。", &[]),
        ]);
        assert!(missed.is_empty(), "{missed:#?}");
    }

    /// A habit the speaker sets out on with "going to" and a rate or a
    /// recurring time is a decision; a one-off with the same words is none.
    #[test]
    fn habits_set_out_on_with_a_rate_are_decisions() {
        use Kind::Decision;
        let missed = misses(&[
            ("I'm going to swim 40 lengths twice a week.", &[Decision]),
            (
                "We're going to cook at home five nights a week.",
                &[Decision],
            ),
            (
                "I'm going to stretch for ten minutes every lunch break.",
                &[Decision],
            ),
            ("I'll read 20 pages per day.", &[Decision]),
            ("I'm going to check every file in the folder.", &[]),
            ("I'm going to grab a coffee.", &[]),
        ]);
        assert!(missed.is_empty(), "{missed:#?}");
    }

    /// What the speakers want, narrowed to one kind or set over another,
    /// is a preference; a want pointed at the task is none.
    #[test]
    fn narrowed_wants_are_preferences() {
        use Kind::Preference;
        let missed = misses(&[
            ("I only want morning flights.", &[Preference]),
            (
                "We both want a small ceremony instead of a big party.",
                &[Preference],
            ),
            ("We want hardwood floors rather than carpet.", &[Preference]),
            ("I only want the first page of it.", &[]),
            ("I only want to change the header.", &[]),
        ]);
        assert!(missed.is_empty(), "{missed:#?}");
    }

    /// What someone else is taken with is a fact, even "right now"; the
    /// speaker's own or the task's is not read this way.
    #[test]
    fn what_someone_is_taken_with_is_a_fact() {
        use Kind::Fact;
        let missed = misses(&[
            ("My daughter is obsessed with horses right now.", &[Fact]),
            ("The twins are crazy about trains right now.", &[Fact]),
            ("It's obsessed with retrying, look at this log.", &[]),
        ]);
        assert!(missed.is_empty(), "{missed:#?}");
    }

    /// A choice, then a clause about what the team has after ", our ": two
    /// memories.
    #[test]
    fn our_after_a_comma_starts_a_clause() {
        let kinds: Vec<Kind> = got(&[(
            1,
            Role::User,
            "Let's go with Redis, our ops team already runs a Redis 7 cluster in the office.",
        )])
        .into_iter()
        .map(|(_, _, kind)| kind)
        .collect();
        assert_eq!(kinds, [Kind::Decision, Kind::Fact]);
    }

    /// In Chinese a wish said with 比较想, 更想 or 不希望 is a preference, a
    /// wish to know is not; money held or set aside with its amount, a
    /// surname and what the speaker studied are facts.
    #[test]
    fn chinese_wishes_money_surnames_and_schooling_are_read() {
        use Kind::{Fact, Preference};
        let missed = misses(&[
            ("我比较想住在海边的民宿。", &[Preference]),
            ("我不希望周末还要开会。", &[Preference]),
            ("我比较想知道这个怎么配置。", &[]),
            ("装修预算大概三十万。", &[Fact]),
            ("现在手上有五万块存款。", &[Fact]),
            ("我们房东姓黄，人还不错。", &[Fact]),
            ("他叫什么我不记得了，姓名在合同上。", &[]),
            ("我本科学的是会计。", &[Fact]),
        ]);
        assert!(missed.is_empty(), "{missed:#?}");
    }

    /// A Chinese statement before the question it raises is read, the
    /// question left out; a recent state asked about is none. A dislike
    /// grown from too much of a thing is a preference.
    #[test]
    fn chinese_statements_before_a_question_and_dislikes_are_read() {
        use Kind::{Fact, Preference};
        let missed = misses(&[
            ("小宇对花生过敏，订蛋糕要注意什么吗？", &[Fact]),
            ("这几天总是头疼，怎么办？", &[]),
            ("你们用的是哪个版本，需要升级吗？", &[]),
            ("孩子们说披萨吃腻了。", &[Preference]),
        ]);
        assert!(missed.is_empty(), "{missed:#?}");
    }

    /// "那我就…" concludes like "那就"; keeping an amount aside is a choice.
    #[test]
    fn a_conclusion_after_na_and_the_speaker_is_a_decision() {
        use Kind::Decision;
        let missed = misses(&[
            ("那我就留五千块当备用金。", &[Decision]),
            ("那我们就存一半到定期里。", &[Decision]),
        ]);
        assert!(missed.is_empty(), "{missed:#?}");
    }

    /// A short reply naming what the assistant put forward, with an
    /// affirmation, picks it; an affirmation alone, or a name without one,
    /// picks nothing.
    #[test]
    fn an_affirmed_name_from_the_assistant_is_a_pick() {
        let said = "Rebasing keeps history linear; merging keeps every branch visible.";
        let reply = |text| {
            got(&[(1, Role::Assistant, said), (2, Role::User, text)])
                .into_iter()
                .map(|(_, _, kind)| kind)
                .collect::<Vec<_>>()
        };
        assert_eq!(reply("Rebasing, definitely."), [Kind::Decision]);
        assert_eq!(reply("go rebasing."), [Kind::Decision]);
        assert!(reply("Yes, definitely.").is_empty());
        assert!(reply("Rebasing sounds scary.").is_empty());
    }

    /// A level or a score the speaker reached is a fact, in English and
    /// in Chinese; a guessed level is none.
    #[test]
    fn levels_and_scores_reached_are_facts() {
        use Kind::Fact;
        let missed = misses(&[
            ("I tested at C1 in French two years ago.", &[Fact]),
            ("I passed level 4 of the piano exams in school.", &[Fact]),
            ("I think I'm around B1.", &[]),
            ("我托福考了 98 分。", &[Fact]),
            ("日语词汇量大概三千。", &[Fact]),
        ]);
        assert!(missed.is_empty(), "{missed:#?}");
    }
}

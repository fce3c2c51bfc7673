//! Reading a text for a save decision: what it is about, the values it
//! states, whether it is negated, and which of two things it ranks first.
//!
//! [`profile`] turns a text into a [`Profile`]; [`crate::decide`] compares
//! profiles. Pure and deterministic; no dictionary, no model.
//!
//! **Units.** The text is tokenized ([`engram_text::tokenize`]) after a
//! rewrite of Chinese marker words into spaced English markers (`不` ->
//! `not`, `喜欢` -> `prefers`, `而不是` -> `over`, `比起` -> `compared`,
//! `搬到` -> `moved to`; adverbs and modal verbs, `通常` -> `usually`),
//! Chinese values (`周五`, `两点`, `下午两点`, `九十天`, the `年` of
//! `2021年`) into values, and Chinese particles (`的 了 在 是 ...`) into
//! spaces, so a CJK run is cut where a word ends and no bigram spans a
//! value or a particle. `我` is a word of its own, and so is `用户` as the
//! subject of what it does or is, read as `我` (`用户对青霉素过敏` says
//! what `我对青霉素过敏` says, as `User` and `I` read the same in English;
//! `用户名` keeps its word).
//! Each token becomes one unit:
//!
//! | unit | examples | part of the content terms |
//! | --- | --- | --- |
//! | value | `8080`, `3.5`, `2024-03-01`, `5pm`, `three`, `Fridays`, `March`, `周五`, `九十天` | no |
//! | identifier | `3fa9c2`, `0x1f`, `4936514` (7 digits or more), `host-17`, `ENG-101`, the number after `order`, `ticket`, `build`, ... | yes |
//! | negation | `not`, `never`, `no`, `don't`, `can't`, `cancelled`, `不`, `没`, `取消` | no |
//! | liking / dislike | `prefers`, `likes`, `hates`, `喜欢`, `讨厌` | no |
//! | connector | `over`, `than`, `rather`, `instead`, `compared` | no |
//! | change | `moved`, `switched`, `replaced`, `changed`, `raised`, `bumped`, `postponed`, "moves to", "went up", "took over", `now`, "from now on", `currently`, `no longer`, `搬到`, `换成`, `改成`, `调成`, `涨到`, `推迟到`, `现在`, `今后`, `不再` | no |
//! | function word | stopwords, pronouns, light verbs (`use`, `runs`, `happens`), adverbs (`always`) | no |
//! | content | everything else, English words compared by their key: an abbreviation spelled out (`DB`, `k8s`, `min`), then the Snowball stem (`cached`, `caches`, `cache`), a common synonym read as one word (`begins` -> `start`, `studying` -> `learn`, `保存` -> `保留`) | yes |
//!
//! A content word keeps the form the text gives it (lightly stemmed:
//! `deploys` -> `deploy`) in [`Profile::words`], which names rooms; its
//! key is what decisions compare. Before tokenizing, a term written as
//! two words is one (`time zone`, `pull request` and `merge request`, `wi-fi`)
//! and a phrasal verb its one-word synonym (`kicks off` -> `starts`).
//!
//! A clock time is one value on the 24-hour clock however it is written
//! (`2 PM`, `2:00pm`, `14:00`, `下午两点` and `14点` are all `14:00`), so a
//! restatement in the other notation is no changed value; so is an ISO
//! date its year, month and day, and a thousands suffix its thousands
//! (`10k`, `10,000`, `10 thousand`), a version its number (`v20.11`),
//! `midnight` and `noon` their clock times (and Chinese minutes however
//! said: `三点一刻`, `十点十五`, `8点05`). A span of time is one value,
//! counted in seconds up to a week and in months from a month (`30 days`,
//! `thirty days`, `30天`; `one year`, `12 months`, `一年`; `every quarter`,
//! `every three months`, `300 s`; `1.5 hours`, `an hour and a half`,
//! `一个半小时`), its amount and unit word part of it, but a person's
//! age in years is its amount (`7 years old`, `seven`); a unit glued to
//! an amount reads as written apart (`45s`, `25MB`, `24h`, `10mg`,
//! `110cm`), and one after a slash is a rate's (`$95/hr`). A clock time
//! in words is its digits ("half past nine", "quarter to one", "7 in the
//! evening"); a range is both its ends (`3-4`, `Mon-Fri`, "Monday through
//! Friday", `周一到周五`, and so `weekdays` and `工作日`); `4/15` is a
//! month and a day when only one side can be a month; `'25` after a month
//! is 2025. The content words right after an
//! amount are what it counts (`Profile::counted`). An amount in
//! words is its digits (`thirty`, `twenty-four`, `two hundred`, `三十天`,
//! `十二名`, `第三`), so the two spellings of an amount are one value;
//! so are Chinese amounts as they are spoken (`六千八` is 6800, `一百二`
//! 120), digits before a magnitude (`2万`, `1.5万`, `3千`) and a year
//! read digit by digit (`二〇二四`).
//!
//! **Changes.** The first verb of change gives the text's [`Change`]: its
//! kind (a move, a switch, another change), the content after it in its
//! clause as the new value (a compound with its word parts), and what lies
//! between `from` or `off` and `to` (or `replaced` and `with`) as the old
//! one, what lies before `from` being neither ("switched our CI from
//! Jenkins to ..."), with the values there (`从 5.7 升级到 8.0`: `from`
//! before the verb, in its clause, is the same); "X has replaced Y" names
//! the new value before the verb; a change word that ends its
//! clause ("lives in Lisbon now") and, without a verb, a closing
//! `instead` ("uses GitLab instead") change to what comes before them. A
//! correction ("Correction: ...", `更正`) changes to the whole text after
//! it.
//!
//! **Preference pairs.** "A over B", "prefers A to B", "A rather than B",
//! "A instead of B", "more A than B", "比起 B 更喜欢 A", "A 而不是 B": the
//! content units next to the connector (at most two each side, within one
//! clause) are the preferred and the other side.

use std::collections::BTreeSet;

use engram_text::calendar::{MONTHS, WEEKDAYS};
use engram_text::tokenize::{Token, TokenKind, is_stopword, tokenize};

/// What kind of value a text states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ValueKind {
    /// A number, amount, time, version or date (`8080`, `5pm`, `3.5`).
    Number,
    /// A day of the week, as 1 (Monday) to 7.
    Weekday,
    /// A month, as 1 to 12.
    Month,
}

/// A ranking of one thing over another.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preference {
    pub preferred: BTreeSet<String>,
    pub other: BTreeSet<String>,
}

/// A text broken into what decisions look at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// Content terms (content units, identifiers and the word parts of
    /// compounds), in first-seen order, without repeats: each word's key
    /// (see `key`: `cached` and `caches` are `cach`, `DB` is `databas`).
    pub terms: Vec<String>,
    /// The words of `terms` as the text says them (lightly stemmed: `cached`,
    /// `cache`, `db`), one for each term: what names a room.
    pub words: Vec<String>,
    /// The same terms sorted (searched by [`has_salient_only_in`]; the order
    /// [`similarity`]'s merge breaks equal hashes by).
    pub(crate) sorted_terms: Vec<String>,
    /// `sorted_terms` as [`similarity`] merges them: (a hash of the term,
    /// its index in `sorted_terms`), in the order of hash then term, so the
    /// merge compares integers and reads a term's bytes only when two
    /// hashes are equal. Two entries match exactly when their terms do.
    pub(crate) keyed_terms: Vec<(u64, u32)>,
    /// The non-ASCII characters that end a term, sorted and without
    /// repeats: half of what [`is_seam`] asks of this text, answered by a
    /// binary search instead of a pass over every term.
    pub(crate) seam_ends: Vec<char>,
    /// The non-ASCII characters that start a term (the other half).
    pub(crate) seam_starts: Vec<char>,
    /// For each of `sorted_terms`, whether it is salient ([`is_salient`]):
    /// asked of every term a neighbour lacks, for every neighbour of every
    /// save.
    pub(crate) salient: Vec<bool>,
    /// Whether the text may say several things (a character a clause can
    /// end at before its last one): asked of every neighbour of every
    /// save, so answered once, with the profile.
    pub(crate) may_say_several: bool,
    /// The times relative to now the text says ("next week", `下周`): two
    /// texts saying such times apart are no restatement, asked of every
    /// neighbour of a save that says one, so read once, with the profile
    /// (`decide::relative_times`).
    pub(crate) relative_times: BTreeSet<String>,
    /// Whether the text sets one clause against another ("but", `但是`:
    /// `decide::contrasts`), and whether it adds to what was said ("also",
    /// `decide::adds`): asked of the save and of each neighbour, so read
    /// once, with the profile.
    pub(crate) contrasts: bool,
    pub(crate) adds: bool,
    /// The values stated, by kind.
    pub values: BTreeSet<(ValueKind, String)>,
    pub negated: bool,
    /// +1 likes, -1 dislikes, 0 neither.
    pub polarity: i8,
    /// "A over B", when the text ranks two things.
    pub preference: Option<Preference>,
    /// The change the text states, when it says something changed ("moved
    /// to Lisbon", "switched from GitHub to GitLab", "now uses Neovim").
    pub change: Option<Change>,
    /// Whether the text says where someone or something is (`lives in`,
    /// `based in`, `住在`, a name after `in` or `at`): the slot a move
    /// changes.
    pub states_place: bool,
    /// Whether the text says what someone uses or runs (`uses`, `runs`,
    /// `使用`): the slot a switch changes.
    pub states_use: bool,
    /// The content terms right after an amount, what it counts ("three
    /// read replicas", "12 worker nodes"): an amount of something the
    /// other text does not name is no other value of its amounts.
    pub counted: BTreeSet<String>,
    /// Each content term directly followed by a name (a capitalized
    /// content word), with the name's term: "our son Leo", "my sister
    /// Ana", where the noun says who the name is, not someone else.
    pub apposed: Vec<(String, String)>,
    /// The people, places, projects, tools and organisations the text
    /// names, worked out when first asked (the decision rules ask it of a
    /// pair again and again).
    pub(crate) names: NamesCache,
}

/// A cache of the names a text gives ([`Profile::names`]), beside what the
/// profile says rather than part of it: two profiles of one text are
/// equal whether or not it was asked.
#[derive(Debug, Clone, Default)]
pub(crate) struct NamesCache(std::sync::OnceLock<Vec<String>>);

impl PartialEq for NamesCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for NamesCache {}

impl NamesCache {
    /// The keys of the names `text` (the profile's text) gives.
    pub(crate) fn of(&self, text: &str) -> &[String] {
        self.0.get_or_init(|| {
            engram_text::entities::extract(text)
                .into_iter()
                .filter(|e| {
                    matches!(
                        e.category,
                        "person" | "place" | "project" | "tool" | "organisation"
                    )
                })
                .map(|e| e.key)
                .collect()
        })
    }
}

/// What kind of change a text states, by its verb: a move changes where,
/// a switch changes what is used, any other change (`changed to`, `now`,
/// `改成`) a slot the two texts must name themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Move,
    Switch,
    Other,
    /// "Correction: ...", `更正`: what follows replaces what was said.
    Correction,
}

/// A change a text states: its kind, the content terms of the new value
/// (what follows the verb, or its `to`, `with` or `成`, in the clause) and
/// of the old value when the text names it ("from GitHub", "replaced
/// Jenkins").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub kind: ChangeKind,
    pub value: BTreeSet<String>,
    pub old: BTreeSet<String>,
    /// The values of the old value ("from 5.7 to 8.0", `从 14 升级到 16`):
    /// the text states them as what was, not what is.
    pub old_values: BTreeSet<(ValueKind, String)>,
    /// Whether a time adverb says the change (`now`, `currently`, `现在`),
    /// not a verb: the value is what the text says is so now.
    pub adverb: bool,
}

impl Profile {
    /// Whether the text states a number or a date.
    #[must_use]
    pub fn is_anchored(&self) -> bool {
        !self.values.is_empty()
    }

    /// The values of `kind`.
    pub fn values_of(&self, kind: ValueKind) -> impl Iterator<Item = &str> + '_ {
        self.values
            .iter()
            .filter(move |(k, _)| *k == kind)
            .map(|(_, v)| v.as_str())
    }
}

/// Words (English, case-folded) that negate a statement.
pub const NEGATIONS: &[&str] = &[
    "not",
    "no",
    "never",
    "don't",
    "doesn't",
    "didn't",
    "isn't",
    "wasn't",
    "aren't",
    "won't",
    "can't",
    "cannot",
    "dont",
    "doesnt",
    "didnt",
    "isnt",
    "wont",
    "cant",
    "neither",
    "nor",
    "don",
    "doesn",
    "didn",
    "isn",
    "wasn",
    "aren",
    "couldn",
    "shouldn",
    "wouldn",
    "hasn",
    "haven",
    "hadn",
    "weren",
    "couldn't",
    "shouldn't",
    "wouldn't",
    "hasn't",
    "haven't",
    "hadn't",
    "weren't",
    // A prohibition says "not" of what it forbids ("force pushes are
    // forbidden", "never force-push"), and ending a habit says it of the
    // habit ("stopped squashing", "quit coffee").
    "forbidden",
    "prohibited",
    "banned",
    "disallowed",
    "stopped",
    "quit",
    "ceased",
    // A cancellation says "not" of what it cancels ("cancelled the hotel
    // booking" against "the hotel is booked").
    "cancelled",
    "canceled",
];
/// Words that permit: light verbs, as `use` is ("deploys are allowed on
/// Fridays" says "deploys happen on Fridays"). Their negation is a
/// prohibition.
const PERMISSIONS: &[&str] = &[
    "allowed",
    "permitted",
    "allow",
    "allows",
    "permit",
    "permits",
    "enabled",
];
/// A state that forbids what it is said of when it is the predicate
/// ("deploys are frozen"), not when it qualifies a noun ("frozen pizza").
const PREDICATE_NEGATIONS: &[&str] = &[
    "frozen",
    "paused",
    "suspended",
    "disabled",
    "freezes",
    "pauses",
];
/// Words stating a liking.
pub const LIKES: &[&str] = &[
    "like",
    "likes",
    "liked",
    "love",
    "loves",
    "loved",
    "prefer",
    "prefers",
    "preferred",
    "enjoy",
    "enjoys",
    "enjoyed",
    "want",
    "wants",
    "favor",
    "favors",
    "favour",
    "favours",
];
/// Words stating a dislike.
pub const DISLIKES: &[&str] = &[
    "dislike", "dislikes", "hate", "hates", "avoid", "avoids", "detest", "detests",
];
/// Verbs (and `now`) that state a change of a value, with the slot they
/// change. Past forms and `now`: the present (`change`, `switch`) is as
/// often a noun or a plan as an update.
const CHANGES: &[(&str, ChangeKind)] = &[
    ("moved", ChangeKind::Move),
    ("relocated", ChangeKind::Move),
    ("switched", ChangeKind::Switch),
    ("migrated", ChangeKind::Switch),
    ("replaced", ChangeKind::Switch),
    ("changed", ChangeKind::Other),
    ("updated", ChangeKind::Other),
    ("upgraded", ChangeKind::Other),
    ("downgraded", ChangeKind::Other),
    ("became", ChangeKind::Other),
    ("now", ChangeKind::Other),
    ("currently", ChangeKind::Other),
    ("transferred", ChangeKind::Move),
    ("converted", ChangeKind::Switch),
    ("swapped", ChangeKind::Switch),
    ("transitioned", ChangeKind::Switch),
    ("renamed", ChangeKind::Other),
    ("rescheduled", ChangeKind::Other),
    ("postponed", ChangeKind::Other),
    ("delayed", ChangeKind::Other),
    ("shifted", ChangeKind::Other),
    ("promoted", ChangeKind::Other),
    ("increased", ChangeKind::Other),
    ("raised", ChangeKind::Other),
    ("reduced", ChangeKind::Other),
    ("lowered", ChangeKind::Other),
    ("decreased", ChangeKind::Other),
    ("extended", ChangeKind::Other),
    ("shortened", ChangeKind::Other),
    ("bumped", ChangeKind::Other),
    ("scaled", ChangeKind::Other),
    ("upped", ChangeKind::Other),
    ("doubled", ChangeKind::Other),
    ("halved", ChangeKind::Other),
    ("adjusted", ChangeKind::Other),
    ("revised", ChangeKind::Other),
    ("rebooked", ChangeKind::Other),
    ("turned", ChangeKind::Other),
    ("moving", ChangeKind::Move),
    ("relocating", ChangeKind::Move),
    ("switching", ChangeKind::Switch),
    ("migrating", ChangeKind::Switch),
    ("superseded", ChangeKind::Switch),
    ("substituted", ChangeKind::Switch),
    ("rewritten", ChangeKind::Other),
    ("rewrote", ChangeKind::Other),
    ("reassigned", ChangeKind::Other),
    ("correction", ChangeKind::Correction),
    ("corrected", ChangeKind::Correction),
];
/// Verbs whose object is the old value ("replaced Jenkins with ...").
const REPLACEMENTS: &[&str] = &["replaced", "superseded", "substituted"];
/// Words that correct what was said before: the whole text after them is
/// the new value.
const CORRECTIONS: &[&str] = &["correction", "corrected"];
/// Common English synonyms (stems), each read as the word after it, so a
/// restatement in other words is no other subject (`begins` and `starts`,
/// `large` and `big`). Short and general on purpose: a word with another
/// everyday sense (`pick`, `stay`) is left out.
const SYNONYMS: &[(&str, &str)] = &[
    ("begin", "start"),
    ("commence", "start"),
    ("finish", "end"),
    ("shut", "close"),
    ("large", "big"),
    ("huge", "big"),
    ("purchase", "buy"),
    ("permit", "allow"),
    ("assist", "help"),
    ("quick", "fast"),
    ("rapid", "fast"),
    ("automobile", "car"),
    ("telephone", "phone"),
    ("film", "movie"),
    ("holiday", "vacation"),
    ("respond", "reply"),
    ("repair", "fix"),
    ("select", "choose"),
    ("require", "need"),
    ("utilize", "use"),
    ("utilise", "use"),
    ("retain", "keep"),
    ("retained", "kept"),
    ("study", "learn"),
    ("colour", "color"),
    ("favourite", "favorite"),
    ("brief", "short"),
    ("concise", "short"),
    ("reside", "live"),
    // A birth date is a birthday ("born on 3 May", "birthday is May 3"),
    // a payment said in either tense one word.
    ("born", "birthday"),
    ("paid", "pay"),
    // An adjective of a condition is its noun (`allergic to peanuts`, `a
    // peanut allergy`), as a room is named.
    ("allergic", "allergy"),
    ("intolerant", "intolerance"),
    ("diabetic", "diabetes"),
    ("annually", "yearly"),
    ("fly", "flight"),
    ("physician", "doctor"),
    ("attorney", "lawyer"),
    ("beverage", "drink"),
    ("kid", "child"),
    ("terminate", "end"),
    ("complete", "end"),
    ("attempt", "try"),
    ("salary", "pay"),
    ("wage", "pay"),
    ("defect", "bug"),
    ("supper", "dinner"),
    ("residence", "home"),
    ("ship", "deploy"),
    ("rollout", "deploy"),
    // A ceiling said three ways.
    ("maximum", "limit"),
    ("cap", "limit"),
    ("annual", "yearly"),
    ("codebase", "code"),
    ("deadline", "due"),
    ("depart", "leave"),
    ("departure", "leave"),
    ("marry", "wedding"),
    ("final", "last"),
];
/// Abbreviations, short forms and other spellings of common technical and
/// everyday words, each read as the word it stands for (`DB` is
/// `database`, `k8s` is `Kubernetes`, `min` is `minutes`), so a
/// restatement in short form is no other subject. General on purpose:
/// an abbreviation with two common readings (`auth`, `dev`, `ts`) is
/// left out.
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("db", "database"),
    ("dbs", "database"),
    ("prod", "production"),
    ("k8s", "kubernetes"),
    ("kube", "kubernetes"),
    ("infra", "infrastructure"),
    // `postgres` as the light stem leaves it.
    ("postgre", "postgresql"),
    ("pg", "postgresql"),
    ("mongo", "mongodb"),
    ("golang", "go"),
    ("repo", "repository"),
    ("config", "configuration"),
    ("configs", "configuration"),
    ("env", "environment"),
    ("envs", "environment"),
    ("doc", "documentation"),
    ("docs", "documentation"),
    ("app", "application"),
    ("admin", "administrator"),
    ("info", "information"),
    ("stat", "statistic"),
    ("spec", "specification"),
    ("msg", "message"),
    ("dept", "department"),
    ("mgr", "manager"),
    ("org", "organization"),
    ("approx", "approximately"),
    ("max", "maximum"),
    ("min", "minute"),
    ("mins", "minute"),
    ("sec", "second"),
    ("secs", "second"),
    ("hr", "hour"),
    ("hrs", "hour"),
    ("wk", "week"),
    ("wks", "week"),
    ("yr", "year"),
    ("yrs", "year"),
    ("ms", "millisecond"),
    ("kb", "kilobyte"),
    ("mb", "megabyte"),
    ("gb", "gigabyte"),
    ("tb", "terabyte"),
    ("km", "kilometer"),
    ("kilometre", "kilometer"),
    ("cm", "centimeter"),
    ("centimetre", "centimeter"),
    ("mm", "millimeter"),
    ("millimetre", "millimeter"),
    ("kg", "kilogram"),
    ("mg", "milligram"),
    ("ml", "milliliter"),
    ("millilitre", "milliliter"),
    ("lb", "pound"),
    ("lbs", "pound"),
    ("char", "character"),
    ("chars", "character"),
    ("pic", "picture"),
    ("photo", "picture"),
    ("tz", "timezone"),
    ("req", "request"),
    ("reqs", "request"),
    // An irregular past read as its verb.
    ("led", "lead"),
    // Family words said the familiar way.
    ("dad", "father"),
    ("mom", "mother"),
    ("mum", "mother"),
    ("grandma", "grandmother"),
    ("grandpa", "grandfather"),
    ("granny", "grandmother"),
    ("nana", "grandmother"),
    ("mama", "mother"),
    ("mommy", "mother"),
    ("papa", "father"),
    ("daddy", "father"),
    ("sis", "sister"),
    ("bro", "brother"),
    ("hubby", "husband"),
    ("kiddo", "child"),
    ("bf", "boyfriend"),
    ("gf", "girlfriend"),
    // Short forms of the calendar and of appointments.
    ("mo", "month"),
    ("mos", "month"),
    ("appt", "appointment"),
    ("uni", "university"),
    ("bday", "birthday"),
    ("ppl", "people"),
    ("ci/cd", "ci"),
    ("dir", "directory"),
    ("folder", "directory"),
    ("func", "function"),
    ("param", "parameter"),
    ("arg", "argument"),
    ("lib", "library"),
    ("pkg", "package"),
    ("dep", "dependency"),
    ("deps", "dependency"),
    ("pwd", "password"),
    ("passwd", "password"),
    ("ram", "memory"),
    ("mem", "memory"),
    ("perf", "performance"),
    ("impl", "implementation"),
    ("tmrw", "tomorrow"),
    ("prs", "pr"),
    ("js", "javascript"),
    ("py", "python"),
];
/// Units an amount may carry glued to it (`45s`, `25MB`, `24h`), each read
/// as the word it stands for.
const UNIT_SUFFIXES: &[(&str, &str)] = &[
    ("s", "second"),
    ("sec", "second"),
    ("secs", "second"),
    ("ms", "millisecond"),
    ("min", "minute"),
    ("mins", "minute"),
    ("h", "hour"),
    ("hr", "hour"),
    ("hrs", "hour"),
    ("d", "day"),
    ("wk", "week"),
    ("wks", "week"),
    ("mo", "month"),
    ("yr", "year"),
    ("yrs", "year"),
    ("kb", "kilobyte"),
    ("mb", "megabyte"),
    ("gb", "gigabyte"),
    ("tb", "terabyte"),
    ("km", "kilometer"),
    ("cm", "centimeter"),
    ("mm", "millimeter"),
    ("kg", "kilogram"),
    ("mg", "milligram"),
    ("ml", "milliliter"),
    ("lb", "pound"),
    ("lbs", "pound"),
];
/// Whether a value is a span of time as this module writes one
/// (`172800s`, `12mo`: see [`DURATIONS`]).
pub(crate) fn is_span(value: &str) -> bool {
    ["s", "mo"].iter().any(|unit| {
        value
            .strip_suffix(unit)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Whether a word is a unit an amount is counted in: a span of time
/// (`days`, `hrs`) or a measure (`km`, `megabytes`), in full or short.
fn is_unit_word(word: &str) -> bool {
    let full = ABBREVIATIONS
        .iter()
        .chain(UNIT_SUFFIXES)
        .find(|(short, _)| *short == word)
        .map_or(word, |(_, full)| full);
    let singular = full.strip_suffix('s').unwrap_or(full);
    DURATIONS
        .iter()
        .any(|(span, _, _)| *span == full || *span == singular)
        || UNIT_SUFFIXES
            .iter()
            .any(|(_, unit)| *unit == full || *unit == singular)
}

/// Spans of time, in the smaller unit each is counted in: seconds for a
/// second to a week, months for a month to a year (a month is no whole
/// number of days). An amount of one is written with it as one value
/// (`one year` is `12 months`, `every quarter` is `every 3 months`).
const DURATIONS: &[(&str, u64, &str)] = &[
    ("second", 1, "s"),
    ("minute", 60, "s"),
    ("hour", 3600, "s"),
    ("day", 86_400, "s"),
    ("week", 604_800, "s"),
    ("fortnight", 1_209_600, "s"),
    ("month", 1, "mo"),
    ("quarter", 3, "mo"),
    ("year", 12, "mo"),
    ("decade", 120, "mo"),
];
/// English phrases rewritten before tokenizing, each as one word: a term
/// written as two words or one (`time zone`, `timezone`), a phrasal verb
/// read as its one-word synonym (`kicks off` is `starts`).
const PHRASES: &[(&str, &str)] = &[
    // "right" of "right now" is no word of what is so.
    ("right now", "currently"),
    ("half an hour", "30 minutes"),
    ("half hour", "30 minutes"),
    ("an hour and a half", "90 minutes"),
    ("pull requests", "pr"),
    ("pull request", "pr"),
    ("merge requests", "pr"),
    ("merge request", "pr"),
    ("continuous integration", "ci"),
    ("time zones", "timezone"),
    ("time zone", "timezone"),
    ("web site", "website"),
    ("data base", "database"),
    ("e mail", "email"),
    ("times out", "timeout"),
    ("timed out", "timeout"),
    ("time out", "timeout"),
    ("time-out", "timeout"),
    ("reports to", "managed by"),
    ("report to", "managed by"),
    ("reported to", "managed by"),
    ("reporting to", "managed by"),
    ("rolls out", "deploys"),
    ("rolled out", "deployed"),
    ("roll out", "deploy"),
    ("kicks off", "starts"),
    // Contractions the tokenizer would split into a verb and a `t`.
    ("can't", "cannot"),
    ("won't", "wont"),
    // A present verb of change before `to` states the change as the past
    // one does ("standup moves to 10:00"); alone it is as often a noun.
    ("moves to", "moved to"),
    ("switches to", "switched to"),
    ("changes to", "changed to"),
    // "From now on" says what holds now, as `now` does.
    ("from now on", "now"),
    ("going forward", "now"),
    ("went up", "increased"),
    ("gone up", "increased"),
    ("went down", "decreased"),
    ("gone down", "decreased"),
    ("took over", "replaced"),
    ("taken over", "replaced"),
    ("called off", "cancelled"),
    ("kicked off", "started"),
    ("kick off", "start"),
    ("sets up", "configures"),
    ("set up", "configured"),
    ("signs up", "registers"),
    ("signed up", "registered"),
    ("phone number", "phone"),
    ("cell phone", "phone"),
    ("mobile phone", "phone"),
    ("on call", "on-call"),
    ("front end", "frontend"),
    ("front-end", "frontend"),
    ("back end", "backend"),
    ("back-end", "backend"),
    ("open source", "open-source"),
    ("check in", "check-in"),
    ("backed up", "backup"),
    ("backs up", "backup"),
    ("back up", "backup"),
    ("logged in", "login"),
    ("logs in", "login"),
    ("log in", "login"),
    ("wi-fi", "wifi"),
    ("e-mail", "email"),
];

/// The key a content word is compared by: its abbreviation spelled out,
/// then its English stem (Snowball: `cached`, `caches` and `cache` are
/// one key, as are `provisioned` and `provisioning`), then a synonym's
/// key (`studying` is `learn`). Words with a digit or other marks, and
/// Chinese, are their own key.
pub(crate) fn key(word: &str) -> String {
    let word = ABBREVIATIONS
        .iter()
        .find(|(w, _)| *w == word)
        .map_or(word, |(_, full)| full);
    if word.len() <= 3 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return word.to_owned();
    }
    let stemmed = engram_text::stem::stem(word, engram_text::stem::Language::English);
    synonym_keys()
        .get(stemmed.as_ref())
        .map_or_else(|| stemmed.into_owned(), |same| (*same).to_owned())
}

/// The keys of [`SYNONYMS`]: a stemmed word to the stem it is read as.
fn synonym_keys() -> &'static std::collections::HashMap<String, String> {
    static KEYS: std::sync::OnceLock<std::collections::HashMap<String, String>> =
        std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        let stemmed =
            |w: &str| engram_text::stem::stem(w, engram_text::stem::Language::English).into_owned();
        SYNONYMS
            .iter()
            .map(|(word, same)| (stemmed(word), stemmed(same)))
            .filter(|(word, same)| word != same)
            .collect()
    })
}

/// Whether `term`, a key, is one of the words saying where something is.
#[must_use]
pub fn is_place_term(term: &str) -> bool {
    PLACE_WORDS.iter().any(|w| *w == term || key(w) == term)
}

/// An amount with its unit glued to it (`45s`, `25MB`, `1.5GB`): the
/// digits and the unit's word.
fn split_unit(term: &str) -> Option<(&str, &'static str)> {
    let at = term.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, suffix) = term.split_at(at);
    if number.is_empty() || number.ends_with('.') || number.starts_with('.') {
        return None;
    }
    UNIT_SUFFIXES
        .iter()
        .find(|(s, _)| *s == suffix)
        .map(|(_, word)| (number, *word))
}

/// Rewrites [`PHRASES`] in `text` (ASCII, case folded, at word edges).
/// Runs for every text a save compares: one pass over the word starts,
/// and no copy of a text that holds none of the phrases.
fn rewrite_phrases(text: &str) -> std::borrow::Cow<'_, str> {
    // The letters a phrase starts with, as bits: most words start with
    // none of them and are passed over without a look at the list.
    const STARTS: u32 = {
        let mut mask = 0_u32;
        let mut at = 0;
        while at < PHRASES.len() {
            mask |= 1 << (PHRASES[at].0.as_bytes()[0] - b'a');
            at += 1;
        }
        mask
    };
    let bytes = text.as_bytes();
    let word_end = |at: usize| bytes.get(at).is_none_or(|b| !b.is_ascii_alphanumeric());
    let phrase_at = |at: usize| {
        PHRASES.iter().find(|(from, _)| {
            bytes
                .get(at..at + from.len())
                .is_some_and(|run| run.eq_ignore_ascii_case(from.as_bytes()))
                && word_end(at + from.len())
        })
    };
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut at = 0;
    while at < bytes.len() {
        let starts_word = bytes[at].is_ascii_alphabetic()
            && STARTS & (1 << (bytes[at].to_ascii_lowercase() - b'a')) != 0
            && (at == 0 || !bytes[at - 1].is_ascii_alphanumeric());
        if starts_word && let Some((from, to)) = phrase_at(at) {
            let buffer = out.get_or_insert_with(|| String::with_capacity(text.len()));
            // Phrases are ASCII and start at an ASCII letter: `at` and the
            // phrase's end are character boundaries.
            buffer.push_str(&text[copied..at]);
            buffer.push_str(to);
            at += from.len();
            copied = at;
            continue;
        }
        at += 1;
    }
    match out {
        Some(mut buffer) => {
            buffer.push_str(&text[copied..]);
            std::borrow::Cow::Owned(buffer)
        }
        None => std::borrow::Cow::Borrowed(text),
    }
}

/// A count joined to what it counts by a hyphen, written apart: `5-year`
/// is `5 year` (a span, as `5 years` is), `2-space` is `2 space` (an
/// amount of spaces, as `two spaces` is), `7-year-old` is `7 year old`.
/// The count is digits (`1.5-hour`) or a number word; `one` only before a
/// span of time (`one-year`, not `one-off` or `one-time`). Every part after
/// it is letters, none of them a number word (`1-on-1`, `9-to-5` and
/// `twenty-four` keep their hyphens). The rewrite keeps every byte's place.
fn split_counted_compounds(text: &str) -> std::borrow::Cow<'_, str> {
    // Most texts join nothing with a hyphen: one scan, no copy.
    if !text.contains('-') {
        return std::borrow::Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let in_run = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'.';
    let mut out: Option<Vec<u8>> = None;
    let mut at = 0;
    while at < bytes.len() {
        if !in_run(bytes[at]) {
            at += 1;
            continue;
        }
        let start = at;
        while at < bytes.len() && in_run(bytes[at]) {
            at += 1;
        }
        // A sentence's full stop ends the run, not a part of it.
        let mut end = at;
        while end > start && bytes[end - 1] == b'.' {
            end -= 1;
        }
        // The run is ASCII (every byte of it passed `in_run`).
        let run = &text[start..end];
        if run.contains('-') && counts_with_hyphen(run) {
            let buffer = out.get_or_insert_with(|| bytes.to_vec());
            for (offset, b) in run.bytes().enumerate() {
                if b == b'-' {
                    buffer[start + offset] = b' ';
                }
            }
        }
    }
    match out {
        // Only ASCII hyphens became ASCII spaces: still UTF-8.
        Some(buffer) => {
            std::borrow::Cow::Owned(String::from_utf8(buffer).unwrap_or_else(|_| text.to_owned()))
        }
        None => std::borrow::Cow::Borrowed(text),
    }
}

/// Whether a hyphenated run is a count joined to what it counts
/// ([`split_counted_compounds`]).
fn counts_with_hyphen(run: &str) -> bool {
    let mut parts = run.split('-');
    let Some(count) = parts.next() else {
        return false;
    };
    let rest: Vec<&str> = parts.collect();
    let Some(first) = rest.first() else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let counted = match count.split_once('.') {
        Some((whole, fraction)) => digits(whole) && digits(fraction),
        None => digits(count),
    };
    let lower = count.to_ascii_lowercase();
    let named = number_word(&lower).is_some_and(|_| {
        lower != "one"
            || DURATIONS
                .iter()
                .any(|(span, _, _)| first.eq_ignore_ascii_case(span))
    });
    (counted || named)
        && rest.iter().all(|part| {
            !part.is_empty()
                && part.bytes().all(|b| b.is_ascii_alphabetic())
                && number_word(&part.to_ascii_lowercase()).is_none()
        })
}

/// Periods and the adverb that says "every" one of them.
const PERIODS: &[(&str, &str)] = &[
    ("day", "daily"),
    ("night", "nightly"),
    ("week", "weekly"),
    ("month", "monthly"),
    ("year", "yearly"),
    ("hour", "hourly"),
];
/// Forms of "to be" before `now` ("is now", "are now").
const COPULAS: &[&str] = &["is", "are", "was", "were", "'s"];
/// Words that make a period after them a time relative to now ("last
/// month", "next week", "this year"), which says when a fact holds or
/// changed, not what it is about.
const RELATIVE_TIMES: &[&str] = &["last", "next", "this", "coming", "past"];
/// Words saying where someone or something is (English stems and Chinese).
pub const PLACE_WORDS: &[&str] = &[
    "live",
    "lives",
    "lived",
    "living",
    "based",
    "located",
    "reside",
    "resides",
    "resided",
    "resident",
    "moved",
    "relocated",
    "hosted",
    "headquartered",
    "situated",
    "stationed",
    "住",
    "位于",
    "定居",
    "居住",
];
/// Words saying what someone uses or runs.
const USE_WORDS: &[&str] = &[
    "use", "uses", "used", "using", "run", "runs", "running", "switched", "migrated", "adopted",
    "使用",
];
/// Words that join the two sides of a ranking.
const CONNECTORS: &[&str] = &["over", "than", "rather", "instead", "compared", "versus"];
/// Words that carry no topic: pronouns, light verbs, adverbs, prepositions
/// the tokenizer's stopword list leaves in. They are not content terms, do
/// not tell two subjects apart and never name a room.
pub const FUNCTION_WORDS: &[&str] = &[
    "absolutely",
    "actually",
    "already",
    "after",
    "again",
    "all",
    "also",
    "always",
    "am",
    "any",
    "anything",
    "away",
    "basically",
    "because",
    "before",
    "being",
    "better",
    "both",
    "certainly",
    "correction",
    "currently",
    "daily",
    "decide",
    "decided",
    "definitely",
    "directly",
    "during",
    "each",
    "else",
    "ever",
    "every",
    "everything",
    "exactly",
    "fyi",
    "get",
    "getting",
    "goe",
    "going",
    "gone",
    "got",
    "happen",
    "happened",
    "happening",
    "he",
    "her",
    "here",
    "him",
    "his",
    "i",
    "just",
    "keep",
    "kept",
    "least",
    "less",
    "make",
    "made",
    "making",
    "may",
    "me",
    "might",
    "mine",
    "more",
    "most",
    "much",
    "must",
    "my",
    "need",
    "needed",
    "now",
    "note",
    "often",
    "okay",
    "once",
    "twice",
    "one",
    "only",
    "our",
    "ours",
    "out",
    "over",
    "per",
    "percent",
    "please",
    "probably",
    "quite",
    "rather",
    "really",
    "remember",
    "run",
    "running",
    "ran",
    "same",
    "set",
    "she",
    "since",
    "so",
    "some",
    "something",
    "sometime",
    "sometimes",
    "still",
    "take",
    "taken",
    "taking",
    "took",
    "than",
    "thing",
    "through",
    "too",
    "up",
    "us",
    "use",
    "used",
    "using",
    "usually",
    "very",
    "via",
    "way",
    "we",
    "well",
    "whatever",
    "within",
    "yet",
    "you",
    "your",
    "yours",
    "user",
    "users",
    // Verbs that say where or that something is there, light as `runs`:
    // "listens on 5433" says "runs on port 5433", "lives in Chengdu" says
    // "is in Chengdu", "is called X" says "its name is X".
    "listen",
    "listens",
    "listened",
    "listening",
    "live",
    "lives",
    "lived",
    "living",
    "based",
    "located",
    "reside",
    "resides",
    "resided",
    "situated",
    "hosted",
    "called",
    "named",
    "sits",
    // Nouns that name a slot, not a subject: "the standup time is 9:30"
    // says "the standup is at 9:30", "the Go version is 1.22" says "Go
    // 1.22".
    "name",
    "version",
    "size",
    "tool",
    "type",
    "kind",
    "value",
    "setting",
    "time",
    "city",
    // Currencies: the unit of an amount, however written (`$1,800`,
    // `1800 dollars`, `25 EUR`, `25 euros`).
    "dollar",
    "usd",
    "euro",
    "eur",
    "gbp",
    "yuan",
    "rmb",
    "cny",
    "yen",
    "jpy",
    "bucks",
    // A dose's unit (`10 mg`, `10mg`): what it measures is the drug.
    "mg",
    "ml",
    "milligram",
    "milligrams",
    "milliliter",
    "milliliters",
    "day",
    "date",
    "length",
    "duration",
    // Prepositions of place and amount, and adverbs of how often or how
    // lately: no topic ("I usually go to bed around 11" is not about
    // "around").
    "around",
    "about",
    "roughly",
    "approximately",
    "nearly",
    "almost",
    "across",
    "along",
    "among",
    "behind",
    "beside",
    "beyond",
    "toward",
    "towards",
    "upon",
    "throughout",
    "despite",
    "lately",
    "recently",
    "generally",
    "typically",
    "normally",
    "mostly",
];
/// Nouns after which a number names something (`order 40213`) instead of
/// stating a value.
const ID_NOUNS: &[&str] = &[
    "order", "ticket", "issue", "pr", "build", "commit", "invoice", "customer", "user", "account",
    "employee", "case", "incident", "bug", "job", "request", "item", "id", "number", "release",
    "run", "task", "story", "epic", "fact", "note", "record", "entry", "row", "page", "section",
    "chapter", "step", "rule", "patient", "student", "shipment", "batch", "sample",
];
/// Numbers written as words, zero to twelve.
pub(crate) const NUMBER_WORDS: &[&str] = &[
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve",
];
/// Numbers written as words past twelve: thirteen to nineteen, then the
/// tens, twenty to ninety (`thirty days` is `30 days`).
const TEENS: &[&str] = &[
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const TENS: &[&str] = &[
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];
/// Words that multiply the number before them (`two hundred` is 200).
/// (`80 grand` is 80,000, as `$80k` is.)
const MULTIPLIERS: &[(&str, u64)] = &[
    ("hundred", 100),
    ("thousand", 1000),
    ("grand", 1000),
    ("million", 1_000_000),
];

/// The number a number word names (`one` included: [`value_of_word`]
/// leaves it out, as it is more often a pronoun than an amount).
fn number_word(term: &str) -> Option<u64> {
    let at = |list: &[&str]| list.iter().position(|w| *w == term);
    at(NUMBER_WORDS)
        .map(|n| n as u64)
        .or_else(|| at(TEENS).map(|n| n as u64 + 13))
        .or_else(|| at(TENS).map(|n| (n as u64 + 2) * 10))
}

/// A number written as a hyphenated word: `twenty-four` is 24.
fn compound_number(parts: &[String]) -> Option<u64> {
    match parts {
        [tens, units] => {
            let (tens, units) = (number_word(tens)?, number_word(units)?);
            (tens >= 20 && tens % 10 == 0 && (1..10).contains(&units)).then_some(tens + units)
        }
        _ => None,
    }
}

/// Chinese phrases rewritten before tokenizing, longest first where one
/// contains another: connectors, likings, negations.
const CJK_MARKERS: &[(&str, &str)] = &[
    // Changes, read as the English verbs (see `CHANGES`).
    ("改成", " changed to "),
    ("改为", " changed to "),
    ("变成", " changed to "),
    ("切换到", " switched to "),
    ("切换成", " switched to "),
    ("换成", " switched to "),
    ("换到", " switched to "),
    ("改用", " switched to "),
    ("迁移到", " migrated to "),
    ("搬家到", " moved to "),
    ("搬到", " moved to "),
    ("搬去", " moved to "),
    ("迁到", " moved to "),
    ("现在", " now "),
    ("更正", " correction "),
    // `从 A 到 B`, from A to B (`从来`, ever, is no origin).
    ("从来", " ever "),
    // "From now on", as `现在` is `now`.
    ("从今以后", " now "),
    ("从现在起", " now "),
    ("从现在开始", " now "),
    ("今后", " now "),
    // When, relative to now: no subject (see `RELATIVE_TIMES`).
    ("上个月", " last month "),
    ("下个月", " next month "),
    ("去年", " last year "),
    ("今年", " this year "),
    ("明年", " next year "),
    ("从", " from "),
    // `把 A 换成 B`, A changed to B: what `把` puts first is what was (or
    // the slot that changed), as after `from`.
    ("把", " from "),
    ("纠正", " correction "),
    ("目前", " currently "),
    ("改到", " changed to "),
    ("挪到", " moved to "),
    ("改去", " changed to "),
    ("调到", " changed to "),
    ("调整到", " changed to "),
    ("调整为", " changed to "),
    ("推迟到", " postponed to "),
    ("改期到", " postponed to "),
    ("改期", " rescheduled "),
    ("调成", " changed to "),
    ("加到", " increased to "),
    ("增加到", " increased to "),
    ("提高到", " increased to "),
    ("涨到", " increased to "),
    ("减到", " reduced to "),
    ("减少到", " reduced to "),
    ("降低到", " reduced to "),
    ("降到", " reduced to "),
    ("改名为", " renamed to "),
    ("改名成", " renamed to "),
    ("交给", " changed to "),
    // A cancellation, read as the English verb (see `NEGATIONS`).
    ("取消", " cancelled "),
    ("延期到", " postponed to "),
    ("提前到", " changed to "),
    ("改回", " changed to "),
    ("升到", " increased to "),
    ("延到", " postponed to "),
    ("升级到", " upgraded to "),
    ("转到", " moved to "),
    ("移到", " moved to "),
    // The verbs of use, a word of their own, so they join no bigram with
    // the words beside them (`服务使用端口`: `服务`, `使用`, `端口`).
    // The verbs of use, read as the English light verb, so they join no
    // bigram with the words beside them (`服务使用端口`: `服务`, `端口`).
    ("使用", " uses "),
    ("采用", " uses "),
    // `X用的是Y`, "X uses Y"; `用` alone is too often part of a word
    // (`用户`, the user).
    ("用的是", " uses "),
    // Where one lives, and the nouns of a slot (time, tool, version,
    // name, city), read as the English function words.
    ("居住", " lives "),
    ("住在", " lives in "),
    ("时间", " time "),
    ("工具", " tool "),
    ("版本", " version "),
    ("名字", " name "),
    ("名称", " name "),
    ("城市", " city "),
    // Plural pronouns: no topic.
    ("我们", " we "),
    ("咱们", " we "),
    ("他们", " they "),
    ("她们", " they "),
    ("它们", " they "),
    // Synonyms, read as one word.
    ("保存", "保留"),
    ("回答", "回复"),
    ("答复", "回复"),
    ("简短", "简洁"),
    ("简要", "简洁"),
    ("咖啡店", "咖啡馆"),
    ("每日", "每天"),
    ("早晨", "早上"),
    ("母亲", "妈妈"),
    ("父亲", "爸爸"),
    ("老婆", "妻子"),
    ("老公", "丈夫"),
    ("爸妈", "父母"),
    ("闺女", "女儿"),
    ("电脑", "计算机"),
    ("喜爱", " prefers "),
    // Adverbs and modal verbs, read as the English function words they
    // are: they say how sure or how often, not what about.
    ("总是", " always "),
    ("全部", " all "),
    ("而且", " also "),
    ("挺", " quite "),
    // `有`, has, is a particle (`集群有 5 个 broker`); not in the words
    // it is part of.
    ("共有", " all "),
    ("所有", " all "),
    ("没有", " not "),
    ("只有", " only "),
    ("有时", " sometimes "),
    ("有些", " some "),
    ("有限", "有限"),
    ("有效", "有效"),
    ("有关", "有关"),
    ("有用", "有用"),
    ("拥有", "拥有"),
    ("具有", "具有"),
    ("含有", "含有"),
    // Kin said the familiar way, and `每个月` as `每月`.
    ("我妈", "妈妈"),
    ("我爸", "爸爸"),
    ("老妈", "妈妈"),
    ("老爸", "爸爸"),
    ("闺女", "女儿"),
    ("每个月", "每月"),
    ("整体", " all "),
    ("一共", " all "),
    ("总共", " all "),
    ("一直", " always "),
    ("通常", " usually "),
    ("一般", " usually "),
    ("经常", " often "),
    ("已经", " already "),
    ("已", " already "),
    ("非常", " very "),
    ("可能", " probably "),
    ("必须", " must "),
    ("需要", " need "),
    // `记住` (remember) is a function word, and its `住` (live) no
    // statement of where one lives.
    ("记住", " remember "),
    ("而不是", " over "),
    ("而非", " over "),
    ("胜过", " over "),
    ("比起", " compared "),
    ("不再", " no longer "),
    ("更喜欢", " prefers "),
    ("喜欢", " prefers "),
    ("偏好", " prefers "),
    ("偏爱", " prefers "),
    ("更爱", " prefers "),
    ("热爱", " prefers "),
    ("讨厌", " hates "),
    ("不", " not "),
    ("没", " not "),
    ("沒", " not "),
    ("别", " not "),
    ("別", " not "),
    ("未", " not "),
    ("勿", " not "),
    ("莫", " not "),
    // Singular pronouns, last (after the plurals, `我妈` and the words
    // they are part of: `其他`, other; `自我`, self): a word of their own,
    // which joins no bigram with the words beside them (`我儿子` holds
    // `儿子`, not `我儿`) and still names who.
    ("其他", "其他"),
    ("自我", "自我"),
    ("我", " 我 "),
    ("你", " 你 "),
    ("他", " 他 "),
    ("她", " 她 "),
];
/// What follows `用户` when it is the subject of a statement about the
/// user: a particle, a preposition, a verb of liking, being, having or
/// doing, a word of time or frequency. Never a noun (`用户名`, `用户需求`).
const SPEAKER_AFTER_USER_ZH: &[&str] = &[
    "的", "对", "是", "在", "有", "和", "跟", "比", "把", "给", "被", "从", "也", "都", "就", "还",
    "只", "很", "更", "最", "不", "没", "别", "喜欢", "爱", "讨厌", "偏好", "习惯", "倾向", "想",
    "要", "会", "需要", "希望", "觉得", "认为", "打算", "计划", "准备", "决定", "正在", "已经",
    "刚", "曾", "一直", "一般", "平时", "经常", "通常", "总是", "每", "目前", "现在", "今年",
    "明年", "去年", "住", "养", "吃", "喝", "开", "学", "叫", "姓", "来自", "换", "搬", "买", "带",
    "穿", "看", "听", "读", "跑", "骑", "睡", "回", "去", "做", "用",
];
/// What follows `用户` opening `text` when it is the speaker's subject
/// (`用户对青霉素过敏`, not `用户名`): see [`SPEAKER_AFTER_USER_ZH`].
pub(crate) fn after_user_as_speaker_zh(text: &str) -> Option<&str> {
    let after = text.strip_prefix("用户")?;
    (after.is_empty()
        || after.starts_with(|n: char| !engram_text::script::is_cjk(n))
        || SPEAKER_AFTER_USER_ZH.iter().any(|w| after.starts_with(*w)))
    .then_some(after)
}

/// Chinese particles that end a word: a space in their place.
const CJK_PARTICLES: &str = "的了在是和与及把被给对跟也都就还很吗呢吧啊着过有";
const CJK_NUMERALS: &str = "零〇一二两三四五六七八九十百千万";
/// Units after a number (Chinese numerals or ASCII digits).
const CJK_UNITS: &[&str] = &[
    "小时", "分钟", "毫秒", "公里", "千米", "公斤", "千克", "个月", "周年", "美元", "块钱", "点",
    "年", "月", "日", "号", "天", "秒", "个", "次", "倍", "台", "人", "岁", "元", "条", "张", "份",
    "遍", "周", "分", "名", "位", "项", "层", "页", "件", "辆", "套",
];

/// Magnitudes that scale the digits before them (`2万`, `1.5万`, `3千`).
const CJK_MAGNITUDES: &[(&str, u64)] = &[("万", 10_000), ("千", 1000), ("亿", 100_000_000)];

/// The length in bytes of the Chinese number at the start of `text`: its
/// run of numerals, but where the run counts by places (`三千五`) a
/// second digit in a row starts something else (`三千五一个月` is 3500
/// and the 一 of 一个月).
fn cjk_number_len(text: &str) -> usize {
    let mut len = 0;
    let (mut places, mut after_digit) = (false, false);
    for c in text.chars() {
        if !CJK_NUMERALS.contains(c) {
            break;
        }
        let digit = cjk_numeral(c).is_some_and(|d| d > 0);
        if digit && after_digit && places {
            break;
        }
        places |= matches!(c, '十' | '百' | '千' | '万');
        after_digit = digit;
        len += c.len_utf8();
    }
    len
}

fn cjk_numeral(c: char) -> Option<u64> {
    Some(match c {
        '零' | '〇' => 0,
        '一' => 1,
        '二' | '两' => 2,
        '三' => 3,
        '四' => 4,
        '五' => 5,
        '六' => 6,
        '七' => 7,
        '八' => 8,
        '九' => 9,
        _ => return None,
    })
}

/// The value of a run of Chinese numerals (`九十` is 90, `两` is 2).
///
/// A digit ending the run straight after 百, 千 or 万 counts in the next
/// lower place, as everyday speech says it: `六千八` is 6800, `一百二` 120,
/// `三万五` 35,000; after 零 it is ones again (`一千零八` is 1008).
fn cjk_number(run: &str) -> u64 {
    // Three or more digits and no place: a number read digit by digit,
    // as years are (`二〇二四` is 2024); two are a range (`三四天`).
    if run.chars().count() >= 3 && run.chars().all(|c| cjk_numeral(c).is_some() && c != '两') {
        return run
            .chars()
            .filter_map(cjk_numeral)
            .fold(0_u64, |n, d| n.saturating_mul(10).saturating_add(d));
    }
    let (mut total, mut section, mut number) = (0_u64, 0_u64, 0_u64);
    // The place of the unit just before the last digit, when nothing (no
    // 零) stands between them.
    let mut place_before_digit = 0_u64;
    let mut last_place = 0_u64;
    for c in run.chars() {
        if let Some(d) = cjk_numeral(c) {
            number = d;
            place_before_digit = if d == 0 { 0 } else { last_place };
            last_place = 0;
            continue;
        }
        let unit = match c {
            '十' => 10,
            '百' => 100,
            '千' => 1000,
            '万' => {
                total = total.saturating_add(section.saturating_add(number).saturating_mul(10_000));
                section = 0;
                number = 0;
                last_place = 10_000;
                continue;
            }
            _ => continue,
        };
        section = section.saturating_add(number.max(1).saturating_mul(unit));
        number = 0;
        last_place = unit;
    }
    if place_before_digit >= 100 {
        number = number.saturating_mul(place_before_digit / 10);
    }
    total.saturating_add(section).saturating_add(number)
}

fn weekday_of_cjk(c: char) -> Option<u64> {
    match c {
        '日' | '天' => Some(7),
        c => cjk_numeral(c).filter(|d| (1..=6).contains(d)),
    }
}

/// Measures after a numeral that make `周三` of `每周三次` a count, not a
/// weekday: three times, three days, three hours a week.
const COUNTS_AFTER_A_WEEK: &[&str] = &["次", "回", "遍", "趟", "小时", "个小时", "天"];

/// A weekday at the start of `text` (`周五`, `星期五`, `礼拜天`): the day
/// and its length in bytes. Not the numeral of a count per week
/// (`每周三次`, `每周一天`, `每周一次`).
fn cjk_weekday(text: &str) -> Option<(u64, usize)> {
    let prefix = ["星期", "礼拜", "周"]
        .into_iter()
        .find(|p| text.starts_with(*p))?;
    let c = text[prefix.len()..].chars().next()?;
    let day = weekday_of_cjk(c)?;
    let after = &text[prefix.len() + c.len_utf8()..];
    let counted = !matches!(c, '日' | '天')
        && COUNTS_AFTER_A_WEEK.iter().any(|m| {
            after.starts_with(*m) && !after.starts_with("天气") && !after.starts_with("次日")
        });
    (!counted).then_some((day, prefix.len() + c.len_utf8()))
}

/// Parts of the day that may open a Chinese clock time, and whether the
/// hour after them is past noon (`下午两点` is 14:00, `凌晨两点` 02:00).
const CJK_DAY_PARTS: &[(&str, bool)] = &[
    ("凌晨", false),
    ("早上", false),
    ("早晨", false),
    ("上午", false),
    ("中午", true),
    ("下午", true),
    ("傍晚", true),
    ("晚上", true),
    ("夜里", true),
];

/// A number at the start of `text`, written in ASCII digits or Chinese
/// numerals, and its length in bytes.
fn leading_number(text: &str) -> Option<(u64, usize)> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 {
        return text[..digits].parse().ok().map(|n| (n, digits));
    }
    let run = cjk_number_len(text);
    (run > 0).then(|| (cjk_number(&text[..run]), run))
}

/// A Chinese clock time at the start of `text` (`两点`, `14点`, `三点半`,
/// `九点十五分`), after a part of the day that is past noon or not: the
/// time as `HH:MM` and its length in bytes. `两点` alone is 02:00, as
/// `2:00` is; the part of the day is what says afternoon.
fn cjk_clock(text: &str, past_noon: bool) -> Option<(String, usize)> {
    let (hour, mut at) = leading_number(text)?;
    let rest = &text[at..];
    let mark = ["点钟", "点"].iter().find(|m| rest.starts_with(**m))?;
    at += mark.len();
    // `一点五倍`, `三点五公里`: a decimal, not a time.
    if cjk_decimal(text).is_some() {
        return None;
    }
    let (minute, len) = clock_minutes(&text[at..]).unwrap_or((0, 0));
    at += len;
    if hour > 24 || minute >= 60 {
        return None;
    }
    let hour = if past_noon && (1..12).contains(&hour) {
        hour + 12
    } else {
        hour
    };
    Some((format!("{hour:02}:{minute:02}"), at))
}

/// The minutes after the `点` of a Chinese clock time and their length in
/// bytes: `半` (30), `一刻` (15), `三刻` (45), a number and `分` (`十五分`),
/// or a number of two characters or digits said alone (`十五`, `零五`,
/// `30`) when no measure follows it.
fn clock_minutes(text: &str) -> Option<(u64, usize)> {
    if text.starts_with('半') {
        return Some((30, '半'.len_utf8()));
    }
    for (quarter, minutes) in [("一刻", 15), ("三刻", 45)] {
        if text.starts_with(quarter) {
            return Some((minutes, quarter.len()));
        }
    }
    let (minute, len) = leading_number(text)?;
    let after = &text[len..];
    if let Some(rest) = after.strip_prefix('分')
        && !rest.starts_with('钟')
    {
        return Some((minute, len + '分'.len_utf8()));
    }
    let said_alone = text[..len].chars().count() >= 2
        && after.chars().next().is_none_or(|n| {
            !CJK_NUMERALS.contains(n) && !CJK_UNITS.iter().any(|u| u.starts_with(n))
        });
    (said_alone && minute < 60).then_some((minute, len))
}

/// Measures after which `X点Y` is the decimal X.Y (`一点五倍`, `三点五
/// 公里`), not a clock time.
const DECIMAL_MEASURES: &[&str] = &[
    "倍",
    "万",
    "亿",
    "公里",
    "公斤",
    "千克",
    "千米",
    "米",
    "斤",
    "升",
    "元",
    "块",
    "度",
    "个百分点",
];

/// A decimal written in Chinese at the start of `text` (`一点五倍`, `1点5
/// 公里`, a measure after it): the number as written in digits and its
/// length in bytes, the measure not included.
fn cjk_decimal(text: &str) -> Option<(String, usize)> {
    let (number, len) = cjk_number_with_point(text)?;
    let measure = &text[len..];
    (number.contains('.') && DECIMAL_MEASURES.iter().any(|m| measure.starts_with(*m)))
        .then_some((number, len))
}

/// A number at the start of `text` with the digits after its `点` if it
/// has one (`三点五` is `3.5`, `三` is `3`), as written in digits, and its
/// length in bytes.
fn cjk_number_with_point(text: &str) -> Option<(String, usize)> {
    let (whole, at) = leading_number(text)?;
    let Some(after_point) = text[at..].strip_prefix('点') else {
        return Some((whole.to_string(), at));
    };
    let (mut digits, mut digits_len) = (String::new(), 0);
    for c in after_point.chars() {
        let Some(d) = c
            .to_digit(10)
            .or_else(|| {
                cjk_numeral(c)
                    .filter(|_| c != '两')
                    .and_then(|d| u32::try_from(d).ok())
            })
            .and_then(|d| char::from_digit(d, 10))
        else {
            break;
        };
        digits.push(d);
        digits_len += c.len_utf8();
    }
    Some(if digits.is_empty() {
        (whole.to_string(), at)
    } else {
        (
            format!("{whole}.{digits}"),
            at + '点'.len_utf8() + digits_len,
        )
    })
}

/// Units of time after an amount in Chinese, as [`DURATIONS`] counts
/// them: seconds up to a week, months from a month.
const CJK_DURATIONS: &[(&str, u64, &str)] = &[
    ("秒钟", 1, "s"),
    ("秒", 1, "s"),
    ("分钟", 60, "s"),
    // An hour and a half: `cjk_span` adds the half.
    ("个半小时", 3600, "s"),
    ("个小时", 3600, "s"),
    ("小时", 3600, "s"),
    ("个钟头", 3600, "s"),
    ("钟头", 3600, "s"),
    ("天", 86_400, "s"),
    ("个星期", 604_800, "s"),
    ("周", 604_800, "s"),
    ("个月", 1, "mo"),
    ("年", 12, "mo"),
];

/// The span of time an amount (as written: `30`, `1.5`) and the Chinese
/// unit at the start of `after` say (`30天` is `2592000s`, `两年` `24mo`,
/// `一个半小时` `5400s`, `三年半` `42mo`), and the length in bytes of the
/// unit. Not a year named (`2021年`), a school year (`三年级`) or a decade
/// (`90年代`).
fn cjk_span(amount: &str, after: &str) -> Option<(String, usize)> {
    let (unit, times, counted) = CJK_DURATIONS
        .iter()
        .find(|(u, _, _)| after.starts_with(*u))?;
    let rest = &after[unit.len()..];
    if (*unit == "年" && (amount.len() >= 4 || rest.starts_with(['级', '代'])))
        || (*unit == "周" && rest.starts_with('年'))
    {
        return None;
    }
    let mut total = scaled(amount, *times)?;
    let mut len = unit.len();
    if *unit == "个半小时" {
        total = total.checked_add(1800)?;
    } else if *unit == "年" && rest.starts_with('半') {
        total = total.checked_add(6)?;
        len += '半'.len_utf8();
    }
    Some((format!("{total}{counted}"), len))
}

/// Rewrites the Chinese in `text` (see the module documentation) and
/// returns the rewritten text with the Chinese values found.
pub(crate) fn rewrite_cjk(text: &str) -> (String, Vec<(ValueKind, String)>) {
    let mut out = String::with_capacity(text.len() + 16);
    let mut values = Vec::new();
    let mut rest = text;
    // The last character written that was not a space: a digit there
    // makes a following unit part of its number (`30 秒`, `2021年`).
    let mut after_digit = false;
    while let Some(c) = rest.chars().next() {
        if c.is_ascii() {
            out.push(c);
            if !c.is_whitespace() {
                after_digit = c.is_ascii_digit();
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        // A magnitude after digits scales them: `2万` is 20000, `1.5万`
        // 15000, `3千` 3000 (not `3千米`, kilometres, a unit below).
        if after_digit
            && let Some((mark, times)) = CJK_MAGNITUDES.iter().find(|(m, _)| rest.starts_with(*m))
            && !CJK_UNITS
                .iter()
                .any(|u| u.len() > mark.len() && rest.starts_with(*u))
        {
            let number_at = out
                .trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
                .len();
            if let Some(n) = scaled(&out[number_at..], *times) {
                out.truncate(number_at);
                out.push_str(&n.to_string());
                rest = &rest[mark.len()..];
                continue;
            }
        }
        // A span of time after digits is its seconds or months, as
        // `30 days` is (`30天`, `1.5小时`).
        if after_digit {
            let number_at = out
                .trim_end()
                .trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
                .len();
            if let Some((span, len)) = cjk_span(out[number_at..].trim_end(), rest) {
                out.truncate(number_at);
                values.push((ValueKind::Number, span));
                out.push(' ');
                rest = &rest[len..];
                after_digit = false;
                continue;
            }
        }
        // A unit after digits belongs to the number.
        if after_digit && let Some(unit) = CJK_UNITS.iter().find(|u| rest.starts_with(**u)) {
            if *unit == "月" {
                // `3月` is the month March, as `三月` is.
                // `3 月`, spaced as `3月` is.
                out.truncate(out.trim_end().len());
                let digits_at = out.trim_end_matches(|c: char| c.is_ascii_digit()).len();
                if let Ok(month) = out[digits_at..].parse::<u64>()
                    && (1..=12).contains(&month)
                {
                    out.truncate(digits_at);
                    values.push((ValueKind::Month, month.to_string()));
                    out.push(' ');
                    rest = &rest[unit.len()..];
                    after_digit = false;
                    continue;
                }
            }
            if *unit == "点" {
                // `14点` is `14:00`, `9点半` is `9:30`, `7点30分` and
                // `7点30` are `7:30` (read as a clock time by
                // `whole_numbers`).
                let (minute, len) = clock_minutes(&rest[unit.len()..]).unwrap_or((0, 0));
                if minute < 60 {
                    out.push_str(&format!(":{minute:02} "));
                    rest = &rest[unit.len() + len..];
                    after_digit = false;
                    continue;
                }
            }
            out.push(' ');
            rest = &rest[unit.len()..];
            after_digit = false;
            continue;
        }
        after_digit = false;
        // `一点五倍`: a decimal before a measure.
        if let Some((number, len)) = cjk_decimal(rest) {
            // Its measure read as after digits: a magnitude scales it
            // (`一点五万` is 15000), a unit is part of it (`三点五公里`).
            let after = &rest[len..];
            let (number, len) = match CJK_MAGNITUDES.iter().find(|(m, _)| after.starts_with(*m)) {
                Some((mark, times)) => (
                    scaled(&number, *times).map_or(number, |n| n.to_string()),
                    len + mark.len(),
                ),
                None => (
                    number,
                    len + CJK_UNITS
                        .iter()
                        .find(|u| after.starts_with(**u))
                        .map_or(0, |u| u.len()),
                ),
            };
            values.push((ValueKind::Number, number));
            out.push(' ');
            rest = &rest[len..];
            continue;
        }
        // `百分之五` is 5%, the amount 5 as `5%` is.
        if let Some(after) = rest.strip_prefix("百分之")
            && let Some((number, len)) = cjk_number_with_point(after)
        {
            values.push((ValueKind::Number, number));
            out.push(' ');
            rest = &after[len..];
            continue;
        }
        // `半小时`, `半年`: half of a unit of time.
        if let Some((half, span)) = [
            ("半个小时", "1800s"),
            ("半小时", "1800s"),
            ("半个钟头", "1800s"),
            ("半年", "6mo"),
        ]
        .iter()
        .find(|(half, _)| rest.starts_with(*half))
        {
            values.push((ValueKind::Number, (*span).to_owned()));
            out.push(' ');
            rest = &rest[half.len()..];
            continue;
        }
        // 下午两点, 凌晨2点, 两点半: a clock time, one value however it
        // is written (`14:00` and `2 PM` read as the same).
        let day_part = CJK_DAY_PARTS
            .iter()
            .find(|(part, _)| rest.starts_with(*part))
            .map_or((0, false), |(part, past_noon)| (part.len(), *past_noon));
        if let Some((time, len)) = cjk_clock(&rest[day_part.0..], day_part.1) {
            values.push((ValueKind::Number, time));
            out.push(' ');
            rest = &rest[day_part.0 + len..];
            continue;
        }
        // `用` at an edge of a Chinese run (`统一用 UTC`, `我们用飞书`) is
        // the verb "uses"; inside a run it is as often part of a word
        // (`用户`, `费用`, `常用`).
        if let Some(after) = rest.strip_prefix('用')
            && !after.starts_with('户')
            && (out.chars().next_back().is_none_or(|p| p.is_ascii())
                || after.chars().next().is_none_or(|n| n.is_ascii()))
        {
            out.push_str(" uses ");
            rest = after;
            continue;
        }
        // `工作日`, the weekdays: Monday to Friday, both ends of the range
        // as `周一到周五` says them.
        if let Some(after) = rest.strip_prefix("工作日") {
            values.push((ValueKind::Weekday, "1".to_owned()));
            values.push((ValueKind::Weekday, "5".to_owned()));
            out.push(' ');
            rest = after;
            continue;
        }
        // `每周四`, every Thursday: `每` is no word of its own.
        if let Some(after) = rest.strip_prefix('每')
            && cjk_weekday(after).is_some()
        {
            out.push_str(" every ");
            rest = after;
            continue;
        }
        // `周一到周五`, `周一至周五`: a range of days is both its ends, the
        // word between them none.
        if let Some(after) = rest.strip_prefix('到').or_else(|| rest.strip_prefix('至'))
            && values
                .last()
                .is_some_and(|(kind, _)| *kind == ValueKind::Weekday)
            && text[..text.len() - rest.len()]
                .chars()
                .next_back()
                .is_some_and(|d| weekday_of_cjk(d).is_some())
            && cjk_weekday(after).is_some()
        {
            out.push(' ');
            rest = after;
            continue;
        }
        // 周五, 星期五, 礼拜天.
        if let Some((day, len)) = cjk_weekday(rest) {
            values.push((ValueKind::Weekday, day.to_string()));
            out.push(' ');
            rest = &rest[len..];
            continue;
        }
        // `一次`, once: how often, no amount.
        if let Some(after) = rest.strip_prefix("一次") {
            out.push_str(" once ");
            rest = after;
            continue;
        }
        // 两点, 九十天, 三月.
        let run = &rest[..cjk_number_len(rest)];
        // `三十天`, `两个小时`: a span of time, as `30天` is.
        if !run.is_empty()
            && let Some((span, len)) = cjk_span(&cjk_number(run).to_string(), &rest[run.len()..])
        {
            values.push((ValueKind::Number, span));
            out.push(' ');
            rest = &rest[run.len() + len..];
            continue;
        }
        if !run.is_empty()
            && let Some(unit) = CJK_UNITS
                .iter()
                .find(|u| rest[run.len()..].starts_with(**u))
        {
            let kind = if *unit == "月" {
                ValueKind::Month
            } else {
                ValueKind::Number
            };
            values.push((kind, cjk_number(run).to_string()));
            out.push(' ');
            rest = &rest[run.len() + unit.len()..];
            continue;
        }
        // `五千`, `六十五`: numerals that say their magnitude are a number
        // with no unit after them, at the end of a word (not `千万别`).
        if run.chars().count() >= 2
            && run.contains(['十', '百', '千', '万'])
            && rest[run.len()..].chars().next().is_none_or(|n| {
                !engram_text::script::is_cjk(n)
                    || CJK_PARTICLES.contains(n)
                    || CJK_NUMERALS.contains(n)
            })
        {
            values.push((ValueKind::Number, cjk_number(run).to_string()));
            out.push(' ');
            rest = &rest[run.len()..];
            continue;
        }
        // An ordinal: `第三` is `第3`, both the value 3.
        if c == '第' {
            let after = &rest[c.len_utf8()..];
            if after.starts_with(|d: char| d.is_ascii_digit()) {
                out.push(' ');
                rest = after;
                continue;
            }
            if let Some((n, len)) = leading_number(after) {
                values.push((ValueKind::Number, n.to_string()));
                out.push(' ');
                rest = &after[len..];
                continue;
            }
        }
        // `用户` as the subject of what it does or is (`用户对青霉素过敏`,
        // `用户的时区`) is the speaker, `我`, as `User` and `I` read the
        // same in English; in a noun (`用户名`, `用户表`, `用户登录`) it is
        // a product's users, a word of its own.
        if let Some(after) = after_user_as_speaker_zh(rest) {
            out.push_str(" 我 ");
            rest = after;
            continue;
        }
        if let Some((from, to)) = CJK_MARKERS.iter().find(|(from, _)| rest.starts_with(*from)) {
            out.push_str(to);
            rest = &rest[from.len()..];
            continue;
        }
        if CJK_PARTICLES.contains(c) {
            out.push(' ');
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    (out, values)
}

/// A light English stem: plurals and third persons (`deploys`, `fixes`,
/// `libraries`) lose their ending. Idempotent on its own output for the
/// words it changes.
#[must_use]
pub fn stem(word: &str) -> String {
    if !word.is_ascii() || word.len() <= 3 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return word.to_owned();
    }
    if let Some(base) = word.strip_suffix("ies")
        && base.len() >= 2
    {
        return format!("{base}y");
    }
    for ending in ["sses", "xes", "ches", "shes", "zes"] {
        if word.ends_with(ending) {
            return word[..word.len() - 2].to_owned();
        }
    }
    if word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
        && !word.ends_with("os")
    {
        return word[..word.len() - 1].to_owned();
    }
    word.to_owned()
}

/// What a unit is (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Content,
    Value,
    Negation,
    /// A verb of change (see `CHANGES`).
    Change,
    Like,
    Dislike,
    Connector,
    Function,
    Stop,
}

#[derive(Debug, Clone)]
struct Unit {
    /// What the unit is compared by: a content word's key ([`key`]),
    /// anything else as written (lowercase).
    term: String,
    /// A content word as the text says it (lightly stemmed), when its key
    /// differs (empty otherwise: see [`Unit::word`]).
    word: String,
    class: Class,
    /// Byte range in the rewritten text.
    start: usize,
    end: usize,
}

impl Unit {
    /// The unit as the text says it (lightly stemmed): what names a room,
    /// and what the word lists (`PLACE_WORDS`, `ID_NOUNS`) hold.
    fn word(&self) -> &str {
        if self.word.is_empty() {
            &self.term
        } else {
            &self.word
        }
    }
}

/// Digits in a plain number from which it reads as a code (a short commit
/// hash that happens to hold no letter, an order number), not an amount.
const CODE_DIGITS_MIN: usize = 7;

/// Whether `word` is a hexadecimal code (`3fa9c2`, `0x1f`, `4936514`): a
/// name, not a value.
fn is_hex_code(word: &str) -> bool {
    if let Some(rest) = word.strip_prefix("0x") {
        return !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_hexdigit());
    }
    if word.len() >= CODE_DIGITS_MIN && word.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    word.len() >= 6
        && word.bytes().all(|b| b.is_ascii_hexdigit())
        && word.bytes().any(|b| b.is_ascii_digit())
        && word.bytes().any(|b| b.is_ascii_alphabetic())
}

fn starts_with_digit(term: &str) -> bool {
    term.chars().next().is_some_and(|c| c.is_ascii_digit())
}

fn is_function(term: &str) -> bool {
    FUNCTION_WORD_SET.contains(term)
}

/// [`FUNCTION_WORDS`] and the English stopwords as one set: asked of every
/// word of every text, up to three times (the word, its stem, its synonym).
static FUNCTION_WORD_SET: std::sync::LazyLock<rustc_hash::FxHashSet<&'static str>> =
    std::sync::LazyLock::new(|| {
        FUNCTION_WORDS
            .iter()
            .chain(engram_text::tokenize::STOPWORDS)
            .copied()
            .collect()
    });

/// Whether `term` takes part in telling two subjects apart: a content term
/// that is not a function word.
#[must_use]
pub fn is_salient(term: &str) -> bool {
    !is_function(term)
}

/// The units with each number written as one value, however it was
/// written: digit groups split at a thousands comma joined (`1,800` is
/// `1800`), a time's `am`/`pm` after a space joined to it (`2 AM` is
/// `2am`, still not `2pm`), an ordinal's suffix dropped (`1st` is `1`).
fn whole_numbers(units: Vec<Unit>, rewritten: &str) -> Vec<Unit> {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let spelled = |u: &Unit| {
        rewritten
            .get(u.start..u.end)
            .is_some_and(|s| s.starts_with(|c: char| c.is_ascii_alphabetic()))
    };
    let spaced = |from: usize, to: usize| {
        rewritten
            .get(from..to)
            .is_some_and(|b| !b.is_empty() && b.chars().all(char::is_whitespace))
    };
    // A number of one or two digits, `separator`, then a value: the first
    // half of a clock time (`9:30`) or of a date (`4/15`).
    let short_number_then = |last: &Unit, separator: &str, unit: &Unit| {
        last.class == Class::Value
            && digits(&last.term)
            && last.term.len() <= 2
            && rewritten.get(last.end..unit.start) == Some(separator)
            && unit.class == Class::Value
    };
    let mut out: Vec<Unit> = Vec::with_capacity(units.len());
    for mut unit in units {
        // A number word is its digits (`thirty` is `30`), so the two
        // spellings of an amount are one value.
        if unit.class == Class::Value
            && let Some(n) = number_word(&unit.term)
        {
            unit.term = n.to_string();
        }
        // `two hundred`, `5 thousand`, `one hundred`.
        if let Some(last) = out.last_mut()
            && (last.class == Class::Value || last.term == "one")
            && spaced(last.end, unit.start)
            && let Some((_, times)) = MULTIPLIERS.iter().find(|(w, _)| *w == unit.word())
            && let Some(n) = (if last.term == "one" {
                Some(*times)
            } else {
                scaled(&last.term, *times)
            })
        {
            last.term = n.to_string();
            last.class = Class::Value;
            last.end = unit.end;
            continue;
        }
        // `twenty four`: spelled tens, then spelled units.
        if let Some(last) = out.last_mut()
            && last.class == Class::Value
            && unit.class == Class::Value
            && spelled(last)
            && spelled(&unit)
            && spaced(last.end, unit.start)
            && let (Ok(tens), Ok(units)) = (last.term.parse::<u64>(), unit.term.parse::<u64>())
            && (20..100).contains(&tens)
            && tens % 10 == 0
            && (1..10).contains(&units)
        {
            last.term = (tens + units).to_string();
            last.end = unit.end;
            continue;
        }
        if let Some(last) = out.last_mut()
            && last.class == Class::Value
            && digits(&last.term)
        {
            let between = rewritten.get(last.end..unit.start).unwrap_or_default();
            let thousands = between == ","
                && unit.class == Class::Value
                && unit.term.len() == 3
                && digits(&unit.term);
            let meridiem = (unit.term == "am" || unit.term == "pm") && spaced(last.end, unit.start);
            if thousands || meridiem {
                last.term.push_str(&unit.term);
                last.end = unit.end;
                continue;
            }
        }
        // `9:30`, `14:00`, `2:30pm`: the tokenizer splits at the colon.
        if let Some(last) = out.last_mut()
            && short_number_then(last, ":", &unit)
            && is_minutes(&unit.term)
        {
            last.term.push(':');
            last.term.push_str(&unit.term);
            last.end = unit.end;
            continue;
        }
        // `14:00-16:00`: the tokenizer joins the first time's minutes and
        // the second's hour (`00-16`); each time is its own value.
        if let Some(last) = out.last_mut()
            && short_number_then(last, ":", &unit)
            && let Some((minutes, hour)) = unit.term.split_once('-')
            && is_minutes(minutes)
            && digits(hour)
            && hour.len() <= 2
        {
            last.term.push(':');
            last.term.push_str(minutes);
            last.end = unit.start + minutes.len();
            out.push(Unit {
                term: hour.to_owned(),
                word: String::new(),
                class: Class::Value,
                start: unit.end - hour.len(),
                end: unit.end,
            });
            continue;
        }
        // `Sept '25`, "a '16 Civic": a year in two digits after an
        // apostrophe, next to a month or opening a word, is the year in
        // four (`2025`, `2016`; `'98` is `1998`).
        let apostrophe = |at: usize| {
            ["'", "’"]
                .iter()
                .find(|mark| {
                    rewritten
                        .get(..at)
                        .is_some_and(|before| before.ends_with(**mark))
                })
                .map(|mark| at - mark.len())
        };
        if unit.class == Class::Value
            && unit.term.len() == 2
            && digits(&unit.term)
            && let Some(mark) = apostrophe(unit.start)
            && (out.last().is_some_and(|m| {
                value_of_word(&m.term, None).is_some_and(|(k, _)| k == ValueKind::Month)
            }) || rewritten[..mark]
                .chars()
                .next_back()
                .is_none_or(|c| c.is_whitespace() || c == '('))
        {
            let century = if unit.term.as_str() < "50" {
                "20"
            } else {
                "19"
            };
            unit.term.insert_str(0, century);
        }
        // `4/15`, `15/4`: a month and a day (see `number_values`).
        if let Some(last) = out.last_mut()
            && short_number_then(last, "/", &unit)
            && digits(&unit.term)
            && (unit.term.len() <= 2 || is_month_year(&last.term, &unit.term))
        {
            last.term.push('/');
            last.term.push_str(&unit.term);
            last.end = unit.end;
            continue;
        }
        // `2:30 PM`.
        if let Some(last) = out.last_mut()
            && last.class == Class::Value
            && last.term.contains(':')
            && (unit.term == "am" || unit.term == "pm")
            && spaced(last.end, unit.start)
        {
            last.term.push_str(&unit.term);
            last.end = unit.end;
            continue;
        }
        if unit.class == Class::Value
            && let Some(number) = ["st", "nd", "rd", "th"]
                .iter()
                .find_map(|suffix| unit.term.strip_suffix(suffix))
                .filter(|n| digits(n))
        {
            unit.term = number.to_owned();
        }
        // "half past nine", "ten past eight", "quarter to nine": a clock
        // time said in words.
        // `one` is no amount alone (a pronoun as often), but an hour here.
        let hour = match unit.term.as_str() {
            "one" => Some(1),
            term if unit.class == Class::Value => term.parse::<u32>().ok(),
            _ => None,
        };
        if let Some(hour) = hour
            && (1..=12).contains(&hour)
            && let [.., minutes, link] = out.as_slice()
            && spaced(minutes.end, link.start)
            && spaced(link.end, unit.start)
            && let Some(time) = clock_in_words(minutes, link.word(), hour)
        {
            let start = minutes.start;
            out.truncate(out.len() - 2);
            unit.term = time;
            unit.class = Class::Value;
            unit.start = start;
        }
        out.push(unit);
    }
    // "7 in the evening", "11 at night": the part of the day says which
    // half of the clock.
    for at in 0..out.len() {
        let half = match (out.get(at + 1), out.get(at + 2), out.get(at + 3)) {
            (Some(a), Some(b), Some(c)) if a.word() == "in" && b.word() == "the" => {
                match c.word() {
                    "morning" => Some("am"),
                    "afternoon" | "evening" => Some("pm"),
                    _ => None,
                }
            }
            (Some(a), Some(b), _) if a.word() == "at" && b.word() == "night" => Some("pm"),
            _ => None,
        };
        if let Some(half) = half
            && let Some(unit) = out.get_mut(at)
            && unit.class == Class::Value
            && !unit.term.ends_with('m')
            && unit
                .term
                .split(':')
                .next()
                .and_then(|h| h.parse::<u32>().ok())
                .is_some_and(|h| (1..=12).contains(&h))
            && unit.term.bytes().all(|b| b.is_ascii_digit() || b == b':')
        {
            unit.term.push_str(half);
        }
    }
    for unit in &mut out {
        if unit.class == Class::Value
            && let Some(time) = clock_time(&unit.term)
        {
            unit.term = time;
        }
    }
    out
}

/// The time "`minutes` `link` `hour`" says (`half past 9`, `10 past 8`,
/// `quarter to 9`), as `H:MM`.
fn clock_in_words(minutes: &Unit, link: &str, hour: u32) -> Option<String> {
    let amount = match minutes.word() {
        "half" => 30,
        "quarter" => 15,
        _ if minutes.class == Class::Value => minutes
            .term
            .parse::<u32>()
            .ok()
            .filter(|m| (1..60).contains(m))?,
        _ => return None,
    };
    match link {
        "past" => Some(format!("{hour}:{amount:02}")),
        // "to" joins amounts as often ("5 to 9 people"): a quarter only.
        "to" if minutes.word() == "quarter" => {
            let before = if hour == 1 { 12 } else { hour - 1 };
            Some(format!("{before}:{:02}", 60 - amount))
        }
        _ => None,
    }
}

/// `number` times `times`, when `number` is a plain or decimal number and
/// the product a whole one (`1.5` million is 1500000).
fn scaled(number: &str, times: u64) -> Option<u64> {
    if let Ok(n) = number.parse::<u64>() {
        return n.checked_mul(times);
    }
    let (whole, fraction) = number.split_once('.')?;
    if whole.is_empty() || !(whole.bytes().chain(fraction.bytes())).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let scale = 10_u64.checked_pow(u32::try_from(fraction.len()).ok()?)?;
    let exact = format!("{whole}{fraction}")
        .parse::<u64>()
        .ok()?
        .checked_mul(times)?;
    (exact % scale == 0).then(|| exact / scale)
}

/// The values a number states, each one way however it was written: an
/// ISO date is its year, month and day (`2024-03-01` is what `March 1,
/// 2024` and `2024年3月1日` say), a thousands suffix is the thousands
/// (`10k` is `10000`, as `$10,000` and `10 thousand` are).
fn number_values(term: &str) -> Vec<(ValueKind, String)> {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let parts: Vec<&str> = term.split('-').collect();
    if let [year, month, day] = parts[..]
        && year.len() == 4
        && month.len() == 2
        && day.len() == 2
        && digits(year)
        && digits(month)
        && digits(day)
        && let (Ok(m), Ok(d)) = (month.parse::<u32>(), day.parse::<u32>())
        && (1..=12).contains(&m)
        && (1..=31).contains(&d)
    {
        return vec![
            (ValueKind::Number, year.to_owned()),
            (ValueKind::Month, m.to_string()),
            (ValueKind::Number, d.to_string()),
        ];
    }
    // `24-25`, a range: both its ends (`24 and 25`).
    if let [from, to] = parts[..]
        && digits(from)
        && digits(to)
    {
        return vec![
            (ValueKind::Number, from.to_owned()),
            (ValueKind::Number, to.to_owned()),
        ];
    }
    // `4/15` and `15/4` are April 15 when one side can be a month and
    // the other only a day; `3/4` could be either, and stays two numbers.
    if let Some((a, b)) = term.split_once('/')
        && digits(a)
        && digits(b)
        && let (Ok(x), Ok(y)) = (a.parse::<u32>(), b.parse::<u32>())
    {
        let month_day = |month: u32, day: u32| {
            vec![
                (ValueKind::Month, month.to_string()),
                (ValueKind::Number, day.to_string()),
            ]
        };
        // `08/2026` is August 2026, as `2026-08` would be.
        if is_month_year(a, b) {
            return vec![
                (ValueKind::Month, x.to_string()),
                (ValueKind::Number, b.to_owned()),
            ];
        }
        return match (x, y) {
            (1..=12, 13..=31) => month_day(x, y),
            (13..=31, 1..=12) => month_day(y, x),
            _ => vec![
                (ValueKind::Number, x.to_string()),
                (ValueKind::Number, y.to_string()),
            ],
        };
    }
    if let Some(number) = term.strip_suffix('k')
        && let Some(n) = scaled(number, 1000)
    {
        return vec![(ValueKind::Number, n.to_string())];
    }
    // A version is its number (`v20.11` is `20.11`).
    if let Some(number) = term.strip_prefix('v')
        && number.starts_with(|c: char| c.is_ascii_digit())
    {
        return vec![(ValueKind::Number, number.to_owned())];
    }
    vec![(ValueKind::Number, term.to_owned())]
}

/// Whether `month/year` is a month and a year of a card or a document
/// (`08/2026`, `8/2026`): a month, then four digits that can be a year.
fn is_month_year(month: &str, year: &str) -> bool {
    year.len() == 4
        && year.starts_with(['1', '2'])
        && year.bytes().all(|b| b.is_ascii_digit())
        && month.len() <= 2
        && month.parse::<u32>().is_ok_and(|m| (1..=12).contains(&m))
}

/// Minutes after a colon: two digits, an `am` or `pm` perhaps after them.
fn is_minutes(term: &str) -> bool {
    let body = term
        .strip_suffix("am")
        .or_else(|| term.strip_suffix("pm"))
        .unwrap_or(term);
    body.len() == 2 && body.bytes().all(|b| b.is_ascii_digit())
}

/// A clock time as `HH:MM` on the 24-hour clock, however it was written:
/// `2pm`, `2:00pm` and `14:00` are one time, `9:30` and `09:30` another,
/// so a restatement in the other notation is no changed value. A number
/// with neither a colon nor `am`/`pm` is no time (`at 2` stays `2`).
fn clock_time(term: &str) -> Option<String> {
    let (body, past_noon) = match (term.strip_suffix("am"), term.strip_suffix("pm")) {
        (Some(body), _) => (body, Some(false)),
        (_, Some(body)) => (body, Some(true)),
        _ => (term, None),
    };
    let (hour, minute) = match (body.split_once(':'), past_noon) {
        (Some(parts), _) => parts,
        (None, Some(_)) => (body, "00"),
        (None, None) => return None,
    };
    let digits = |t: &str, max: usize| {
        !t.is_empty() && t.len() <= max && t.bytes().all(|b| b.is_ascii_digit())
    };
    if !digits(hour, 2) || !digits(minute, 2) || minute.len() != 2 {
        return None;
    }
    let (hour, minute): (u32, u32) = (hour.parse().ok()?, minute.parse().ok()?);
    let hour = match past_noon {
        Some(_) if !(1..=12).contains(&hour) => return None,
        Some(pm) => hour % 12 + if pm { 12 } else { 0 },
        None if hour > 24 => return None,
        None => hour,
    };
    (minute < 60).then(|| format!("{hour:02}:{minute:02}"))
}

/// The units of the rewritten text, and the word parts of its compounds.
fn units_of(rewritten: &str) -> (Vec<Unit>, Vec<String>) {
    let tokens = tokenize(rewritten);
    let mut units: Vec<Unit> = Vec::with_capacity(tokens.len());
    let mut parts_out = Vec::new();
    let mut i = 0;
    while let Some(token) = tokens.get(i) {
        i += 1;
        let (start, end) = (token.span.start, token.span.end);
        let unit = |term: String, class: Class| Unit {
            word: String::new(),
            term,
            class,
            start,
            end,
        };
        if token.kind == TokenKind::Compound {
            let mut parts = Vec::new();
            while let Some(part) = tokens.get(i).filter(|t| t.kind == TokenKind::Part) {
                parts.push(part.term.clone());
                i += 1;
            }
            let numeric = parts.iter().all(|p| starts_with_digit(p));
            let version = parts.first().is_some_and(|p| {
                p.strip_prefix('v')
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            }) && parts.iter().skip(1).all(|p| starts_with_digit(p));
            let has_digit = token.term.chars().any(|c| c.is_ascii_digit());
            // `Mon-Fri`, `Jan-Mar`: a range of dates is both its ends, as
            // `Mon–Fri` and "Monday through Friday" are.
            let dates = parts.len() >= 2
                && parts.iter().all(|p| {
                    matches!(
                        value_of_word(p, None),
                        Some((ValueKind::Weekday | ValueKind::Month, _))
                    )
                });
            if numeric || version {
                units.push(unit(token.term.clone(), Class::Value));
            } else if dates {
                units.extend(parts.into_iter().map(|p| unit(p, Class::Value)));
            } else if let Some(number) = compound_number(&parts) {
                units.push(unit(number.to_string(), Class::Value));
            } else {
                units.push(unit(token.term.clone(), Class::Content));
                parts_out.extend(
                    parts
                        .into_iter()
                        .filter(|p| !(has_digit && starts_with_digit(p)))
                        .filter(|p| !is_function(p))
                        .map(|p| stem(&p)),
                );
            }
            continue;
        }
        let term = token.term.as_str();
        let previous = units.last().map(Unit::word);
        // `weekdays` are Monday to Friday, a range: both its ends, as
        // "Monday through Friday" is.
        if let Some(ends) = DAY_SPANS
            .iter()
            .find(|(span, _)| term.strip_suffix('s').unwrap_or(term) == *span)
            .map(|(_, ends)| ends)
        {
            units.extend(ends.iter().map(|day| unit((*day).to_owned(), Class::Value)));
            continue;
        }
        // `14 Mar`, `Sat 10am`: a short name that is also a common word
        // is a date beside a number; `first Thursday` and "the first of
        // every month" count the day as `1st` does.
        let spaced_number = |from: usize, to: usize, number: &str| {
            number.starts_with(|c: char| c.is_ascii_digit())
                && rewritten
                    .get(from..to)
                    .is_some_and(|between| between.chars().all(char::is_whitespace))
        };
        let beside_a_number = || {
            units
                .last()
                .is_some_and(|u| u.class == Class::Value && spaced_number(u.end, start, &u.term))
                || tokens
                    .get(i)
                    .is_some_and(|next| spaced_number(end, next.span.start, &next.term))
        };
        // (The word first: most are no short date, and are passed over
        // without a look at their neighbours.)
        if let Some(date) = dated_short_form(term, rewritten.get(start..end))
            && beside_a_number()
        {
            units.push(unit(date.to_owned(), Class::Value));
            continue;
        }
        if let Some(nth) = ordinal_of_a_day(term, &tokens[i..]) {
            units.push(unit(nth.to_string(), Class::Value));
            continue;
        }
        // `45s`, `25MB`, `24h`: the amount and its unit, as `45 seconds`.
        if let Some((number, unit_word)) = split_unit(term) {
            units.push(Unit {
                term: number.to_owned(),
                word: String::new(),
                class: Class::Value,
                start,
                end: start + number.len(),
            });
            units.push(Unit {
                term: key(unit_word),
                word: unit_word.to_owned(),
                class: if is_function(unit_word) {
                    Class::Function
                } else {
                    Class::Content
                },
                start: start + number.len(),
                end,
            });
            continue;
        }
        let class = if starts_with_digit(term) {
            // "order 40213" names an order; "jobs 3 times" counts, a
            // plural before the number.
            // "sprints run 14 days" measures: a number before a unit of
            // time or measure is an amount whatever names it.
            let measured = tokens.get(i).is_some_and(|next| is_unit_word(&next.term));
            let named = previous.is_some_and(|p| ID_NOUNS.contains(&p))
                && !measured
                && units
                    .last()
                    .and_then(|u| rewritten.get(u.start..u.end))
                    .is_some_and(|w| !w.ends_with(['s', 'S']));
            if is_hex_code(term) || named {
                Class::Content
            } else {
                Class::Value
            }
        } else if NEGATIONS.contains(&term) {
            Class::Negation
        } else if PERMISSIONS.contains(&term) {
            Class::Function
        } else if PREDICATE_NEGATIONS.contains(&term) {
            // "are frozen on Fridays", not "frozen pizza".
            let qualifies = tokens.get(i).is_some_and(|next| {
                next.kind == TokenKind::Word
                    && !is_function(&next.term)
                    && rewritten
                        .get(end..next.span.start)
                        .is_some_and(|b| b.chars().all(char::is_whitespace))
            });
            if qualifies {
                Class::Content
            } else {
                Class::Negation
            }
        } else if CHANGES.iter().any(|(w, _)| *w == term) {
            Class::Change
        } else if (term == "longer" && previous == Some("no")) || term == "anymore" {
            // "no longer", "anymore": a change, the negation says to what.
            Class::Change
        } else if LIKES.contains(&term) {
            Class::Like
        } else if DISLIKES.contains(&term) {
            Class::Dislike
        } else if CONNECTORS.contains(&term) {
            Class::Connector
        } else if is_hex_code(term) {
            Class::Content
        } else if term.len() == 1 && term.is_ascii() {
            // The `t` of `don't`, the `s` of `user's`.
            Class::Stop
        } else if value_of_word(term, rewritten.get(start..end)).is_some() {
            Class::Value
        } else if term == "one"
            && previous
                .is_some_and(|p| ["only", "just", "exactly", "least", "most", "than"].contains(&p))
        {
            // "only one approval", "at least one reviewer": an amount,
            // not the pronoun.
            Class::Value
        } else if is_function(term) || is_function(&stem(term)) {
            if is_stopword(term) || term == "to" {
                Class::Stop
            } else {
                Class::Function
            }
        } else {
            Class::Content
        };
        let (term, class) = match class {
            Class::Content => {
                let stemmed = stem(term);
                // `every night` is `nightly`, `every day` is `daily`.
                let stemmed = match (previous, stemmed.as_str()) {
                    (Some("every" | "each"), period) => PERIODS
                        .iter()
                        .find(|(p, _)| *p == period)
                        .map_or(stemmed.clone(), |(_, adverb)| (*adverb).to_owned()),
                    _ => stemmed,
                };
                let word = SYNONYMS
                    .iter()
                    .find(|(w, _)| *w == stemmed)
                    .map_or(stemmed, |(_, same)| (*same).to_owned());
                let keyed = key(&word);
                // `requires` is `needs`, a light verb like it.
                let class = if is_function(&word) || (keyed != word && is_function(&keyed)) {
                    Class::Function
                } else {
                    Class::Content
                };
                // The word is kept beside its key only when they differ.
                let (term, word) = if class == Class::Function || keyed == word {
                    (word, String::new())
                } else {
                    (keyed, word)
                };
                units.push(Unit {
                    term,
                    word,
                    class,
                    start,
                    end,
                });
                continue;
            }
            _ => (term.to_owned(), class),
        };
        units.push(unit(term, class));
    }
    (units, parts_out)
}

/// Short names of dates that are also common words (`mar`, `sat`,
/// `sun`, `wed`; see [`SHORT_DATES`]), with the name each stands for
/// beside a number. A weekday's must be written as a name (`Sat 10am`,
/// not "sat 2 hours").
const AMBIGUOUS_SHORT_DATES: &[(&str, &str, bool)] = &[
    ("mar", "march", false),
    ("sat", "saturday", true),
    ("sun", "sunday", true),
    ("wed", "wednesday", true),
];

/// The date an ambiguous short name stands for ([`AMBIGUOUS_SHORT_DATES`])
/// when written as `spelled`; asked only of a word beside a number.
fn dated_short_form(term: &str, spelled: Option<&str>) -> Option<&'static str> {
    AMBIGUOUS_SHORT_DATES
        .iter()
        .find(|(short, _, _)| *short == term)
        .filter(|(_, _, named)| {
            !named || spelled.is_some_and(|s| s.starts_with(char::is_uppercase))
        })
        .map(|(_, full, _)| *full)
}

/// Ordinal words that count a day of the week or of the month.
const ORDINAL_WORDS: &[&str] = &["first", "second", "third", "fourth", "fifth"];

/// The number an ordinal word gives a day (`first Thursday`, "the
/// second of every month", "first of March"), the tokens after it in
/// `next`; `None` for any other ordinal ("first of all", "my first job").
///
/// `last` counts from the end, as `-1` (iCalendar's `BYDAY=-1TH`), when a
/// month follows ("the last Thursday of the month"); "last Thursday"
/// alone is a time relative to now.
fn ordinal_of_a_day(term: &str, next: &[Token]) -> Option<i64> {
    let word = |at: usize| next.get(at).map(|t| t.term.as_str());
    let weekday_at =
        |at: usize| word(at).is_some_and(|w| WEEKDAYS.contains(&w.strip_suffix('s').unwrap_or(w)));
    let of_a_month = |at: usize| {
        word(at) == Some("of")
            && (word(at + 1).is_some_and(|w| MONTHS.contains(&w))
                || (matches!(word(at + 1), Some("the" | "every" | "each" | "a"))
                    && word(at + 2) == Some("month")))
    };
    // `final` is read as `last` (see `SYNONYMS`).
    if term == "last" || term == "final" {
        return (weekday_at(0) && of_a_month(1)).then_some(-1);
    }
    let nth = ORDINAL_WORDS.iter().position(|w| *w == term)? as i64 + 1;
    (weekday_at(0) || of_a_month(0)).then_some(nth)
}

/// Words for a span of weekdays, and the days that end it.
const DAY_SPANS: &[(&str, [&str; 2])] = &[("weekday", ["monday", "friday"])];

/// The value a word states: a weekday, a month, a number word.
/// Short names of weekdays and months (`Thu`, `Sept`), with the day or
/// month each names. Those that are also common words (`sun`, `sat`,
/// `wed`, `mar`, `may`) are left out.
const SHORT_DATES: &[(&str, ValueKind, u8)] = &[
    ("mon", ValueKind::Weekday, 1),
    ("tue", ValueKind::Weekday, 2),
    ("tues", ValueKind::Weekday, 2),
    ("thu", ValueKind::Weekday, 4),
    ("thur", ValueKind::Weekday, 4),
    ("thurs", ValueKind::Weekday, 4),
    ("fri", ValueKind::Weekday, 5),
    ("jan", ValueKind::Month, 1),
    ("feb", ValueKind::Month, 2),
    ("apr", ValueKind::Month, 4),
    ("jun", ValueKind::Month, 6),
    ("jul", ValueKind::Month, 7),
    ("aug", ValueKind::Month, 8),
    ("sep", ValueKind::Month, 9),
    ("sept", ValueKind::Month, 9),
    ("oct", ValueKind::Month, 10),
    ("nov", ValueKind::Month, 11),
    ("dec", ValueKind::Month, 12),
];

fn value_of_word(term: &str, spelled: Option<&str>) -> Option<(ValueKind, String)> {
    if let Some((_, kind, n)) = SHORT_DATES.iter().find(|(w, _, _)| *w == term) {
        return Some((*kind, n.to_string()));
    }
    // Times of day said as words are clock times (`midnight` is `00:00`).
    match term {
        "midnight" => return Some((ValueKind::Number, "00:00".to_owned())),
        "noon" | "midday" => return Some((ValueKind::Number, "12:00".to_owned())),
        _ => {}
    }
    let day = term.strip_suffix('s').unwrap_or(term);
    if let Some(at) = WEEKDAYS.iter().position(|d| *d == day) {
        return Some((ValueKind::Weekday, (at + 1).to_string()));
    }
    if let Some(at) = MONTHS.iter().position(|m| *m == term) {
        // "may" is a month only when written as a name.
        let named = spelled.is_some_and(|s| s.starts_with('M'));
        if term != "may" || named {
            return Some((ValueKind::Month, (at + 1).to_string()));
        }
    }
    number_word(term)
        .filter(|_| term != "one")
        .map(|n| (ValueKind::Number, n.to_string()))
}

/// Whether the text between two units ends a clause.
fn clause_break(text: &str, from: usize, to: usize) -> bool {
    text.get(from..to).is_some_and(|between| {
        between.chars().any(|c| {
            matches!(
                c,
                '.' | ','
                    | ';'
                    | ':'
                    | '!'
                    | '?'
                    | '('
                    | ')'
                    | '\n'
                    | '。'
                    | '，'
                    | '、'
                    | '；'
                    | '：'
                    | '！'
                    | '？'
            )
        })
    })
}

/// Whether units `from..=to` lie in one clause.
fn same_clause(units: &[Unit], text: &str, from: usize, to: usize) -> bool {
    units.get(from..=to).is_some_and(|run| {
        run.windows(2)
            .all(|w| !clause_break(text, w[0].end, w[1].start))
    })
}

/// Up to two content units going back from `before` (exclusive), within
/// the clause.
fn collect_back(units: &[Unit], text: &str, before: usize) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut at = before;
    let mut edge = units.get(before).map_or(text.len(), |u| u.start);
    while at > 0 && out.len() < 2 {
        at -= 1;
        let Some(unit) = units.get(at) else { break };
        if clause_break(text, unit.end, edge) {
            break;
        }
        edge = unit.start;
        match unit.class {
            Class::Content => {
                out.insert(unit.term.clone());
            }
            Class::Value => {}
            Class::Stop if ["the", "a", "an"].contains(&unit.term.as_str()) => {}
            _ => break,
        }
    }
    out
}

/// Up to two content units going forward from `from` (inclusive), within
/// the clause.
fn collect_forward(units: &[Unit], text: &str, from: usize) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut edge = from
        .checked_sub(1)
        .and_then(|i| units.get(i))
        .map_or(0, |u| u.end);
    for unit in units.iter().skip(from) {
        if out.len() >= 2 || clause_break(text, edge, unit.start) {
            break;
        }
        edge = unit.end;
        match unit.class {
            Class::Content => {
                out.insert(unit.term.clone());
            }
            Class::Value | Class::Function => {}
            Class::Stop if ["the", "a", "an"].contains(&unit.term.as_str()) => {}
            _ => break,
        }
    }
    out
}

/// The ranking a text states, if any (see the module documentation).
fn preference_of(units: &[Unit], text: &str) -> Option<Preference> {
    let term = |i: usize| units.get(i).map(|u| u.term.as_str());
    for (k, unit) in units.iter().enumerate() {
        let (preferred, other) = match unit.term.as_str() {
            "over" | "versus" if unit.class == Class::Connector => (
                collect_back(units, text, k),
                collect_forward(units, text, k + 1),
            ),
            "than" => {
                // "rather A than B", "more A than B": A lies between.
                let back = match k.checked_sub(1).and_then(term) {
                    Some("rather" | "more" | "better") => k - 1,
                    _ => k,
                };
                (
                    collect_back(units, text, back),
                    collect_forward(units, text, k + 1),
                )
            }
            "instead" if term(k + 1) == Some("of") => (
                collect_back(units, text, k),
                collect_forward(units, text, k + 2),
            ),
            "to" => {
                // "prefers A to B", within one clause.
                let liked = units[..k]
                    .iter()
                    .rposition(|u| u.class == Class::Like && u.term.starts_with("prefer"));
                match liked {
                    Some(at) if same_clause(units, text, at, k) => (
                        collect_back(units, text, k),
                        collect_forward(units, text, k + 1),
                    ),
                    _ => continue,
                }
            }
            "compared" => {
                // "比起 B，更喜欢 A", "compared to B, prefers A".
                let from = match term(k + 1) {
                    Some("to" | "with") => k + 2,
                    _ => k + 1,
                };
                let other = collect_forward(units, text, from);
                let Some(liked) = units.iter().skip(k).position(|u| u.class == Class::Like) else {
                    continue;
                };
                (collect_forward(units, text, k + liked + 1), other)
            }
            _ => continue,
        };
        if !preferred.is_empty() && !other.is_empty() {
            return Some(Preference { preferred, other });
        }
    }
    None
}

/// The change a text states, if any: the first verb of change, the
/// content after it in its clause as the new value, and what lies between
/// `from` and `to` (or `replaced` and `with`) as the old one.
fn change_of(units: &[Unit], text: &str) -> Option<Change> {
    // A verb of change names its slot; a correction does not.
    let verb = units
        .iter()
        .position(|u| u.class == Class::Change && !CORRECTIONS.contains(&u.term.as_str()));
    let Some(at) = verb.or_else(|| units.iter().position(|u| u.class == Class::Change)) else {
        // "uses GitLab instead": the new value is what comes before.
        let at = units.iter().enumerate().position(|(k, u)| {
            u.term == "instead" && units.get(k + 1).is_none_or(|next| next.term != "of")
        })?;
        return Some(Change {
            kind: ChangeKind::Switch,
            value: collect_back(units, text, at),
            old: BTreeSet::new(),
            old_values: BTreeSet::new(),
            adverb: false,
        });
    };
    let kind = CHANGES
        .iter()
        .find(|(w, _)| *w == units[at].term)
        .map_or(ChangeKind::Other, |(_, k)| *k);
    let mut change = Change {
        kind,
        value: BTreeSet::new(),
        old: BTreeSet::new(),
        old_values: BTreeSet::new(),
        adverb: matches!(units[at].term.as_str(), "now" | "currently"),
    };
    // A correction runs to the end of the text ("Correction: Ana lives in
    // Lisbon"); any other change to the end of its clause.
    let whole_text = CORRECTIONS.contains(&units[at].term.as_str());
    let mut edge = units[at].end;
    let mut clause: Vec<&Unit> = Vec::new();
    for unit in &units[at + 1..] {
        if !whole_text && clause_break(text, edge, unit.start) {
            break;
        }
        edge = unit.end;
        clause.push(unit);
    }
    let stated_after = clause
        .iter()
        .any(|u| matches!(u.class, Class::Content | Class::Value));
    let position = |words: &[&str], from: usize| {
        clause
            .iter()
            .skip(from)
            .position(|u| words.contains(&u.term.as_str()))
            .map(|k| k + from)
    };
    let content = |run: &[&Unit]| -> BTreeSet<String> {
        run.iter()
            .filter(|u| u.class == Class::Content)
            .flat_map(|u| with_parts(u))
            .collect()
    };
    // The old value runs from `from` or `off` to `to` ("switched our CI
    // from Jenkins to GitHub Actions": what lies before `from` is what
    // changed, neither value), or after `replaced` to `with` or `by`; a
    // replacement without them names the new value before the verb
    // ("Marco has replaced Priya as lead").
    let from = (!whole_text)
        .then(|| position(&["from", "off"], 0))
        .flatten();
    let values = |run: &[&Unit]| -> BTreeSet<(ValueKind, String)> {
        run.iter()
            .filter(|u| u.class == Class::Value)
            .flat_map(|u| unit_values(u, text))
            .collect()
    };
    // `从 5.7 升级到 8.0`: the old value before the verb, in its clause.
    let from_before = units[..at]
        .iter()
        .rposition(|u| u.term == "from")
        .filter(|f| same_clause(units, text, *f, at));
    if let Some(f) = from {
        let to = position(&["to", "with", "by"], f + 1).unwrap_or(clause.len());
        change.old = content(&clause[f + 1..to]);
        change.old_values = values(&clause[f + 1..to]);
        change.value = content(clause.get(to + 1..).unwrap_or_default());
    } else if let Some(f) = from_before {
        let run: Vec<&Unit> = units[f + 1..at].iter().collect();
        change.old = content(&run);
        change.old_values = values(&run);
        change.value = content(&clause);
    } else if REPLACEMENTS.contains(&units[at].term.as_str()) {
        match position(&["with", "by"], 0) {
            Some(w) => {
                change.old = content(&clause[..w]);
                change.value = content(&clause[w + 1..]);
            }
            None => {
                let until = position(&["as", "for", "on", "in", "at"], 0).unwrap_or(clause.len());
                change.old = content(&clause[..until]);
                change.value = subject_before(units, text, at);
            }
        }
    } else {
        change.value = content(&clause);
    }
    // "Tobias is now the product owner": after a copula, `now` says the
    // subject before it is what holds now, as "the product owner is now
    // Tobias" does.
    if change.adverb
        && at
            .checked_sub(1)
            .and_then(|k| units.get(k))
            .is_some_and(|u| COPULAS.contains(&u.term.as_str()))
    {
        change.value.extend(subject_before(units, text, at));
    }
    if !stated_after && !whole_text {
        // "Ana lives in Lisbon now": the new value is what comes before
        // (not when a value follows: "the standup moved to 1 PM").
        change.value = collect_back(units, text, at);
    }
    Some(change)
}

/// The values a value unit states (see [`number_values`]).
fn unit_values(unit: &Unit, text: &str) -> Vec<(ValueKind, String)> {
    match value_of_word(&unit.term, text.get(unit.start..unit.end)) {
        Some(value) => vec![value],
        // A percentage is an amount, whatever zeros end its decimals
        // (`4.10%` is `4.1%`); a version keeps them (`3.10` is no `3.1`).
        None if text
            .get(unit.end..)
            .is_some_and(|after| after.starts_with('%')) =>
        {
            number_values(percentage(&unit.term))
        }
        None => number_values(&unit.term),
    }
}

/// A percentage's amount without the zeros that end its decimals (`4.10`
/// is `4.1`, `5.0` is `5`).
fn percentage(amount: &str) -> &str {
    match amount.split_once('.') {
        Some((whole, decimals))
            if !whole.is_empty() && decimals.bytes().all(|b| b.is_ascii_digit()) =>
        {
            amount.trim_end_matches('0').trim_end_matches('.')
        }
        _ => amount,
    }
}

/// A content unit's key, and the keys of its word parts when it is a
/// compound (`ci-artifacts-prod` is also `artifact`).
fn with_parts(unit: &Unit) -> Vec<String> {
    let mut out = vec![unit.term.clone()];
    if unit.word().contains(['-', '.', '_', '/']) {
        out.extend(
            unit.word()
                .split(['-', '.', '_', '/'])
                .filter(|p| p.len() > 1 && !starts_with_digit(p) && !is_function(p))
                // `four-day` is an amount, no name.
                .filter(|p| number_word(p).is_none())
                .map(|p| key(&stem(p))),
        );
    }
    out
}

/// Up to two content units before the verb at `at`, auxiliaries skipped
/// ("Marco has replaced"), within the clause: who or what did the change.
fn subject_before(units: &[Unit], text: &str, at: usize) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut edge = units.get(at).map_or(text.len(), |u| u.start);
    for unit in units[..at].iter().rev() {
        if out.len() >= 2 || clause_break(text, unit.end, edge) {
            break;
        }
        edge = unit.start;
        match unit.class {
            Class::Content => {
                out.insert(unit.term.clone());
            }
            Class::Stop | Class::Function if out.is_empty() => {}
            _ => break,
        }
    }
    out
}

/// The span of time `unit` says with the unit before it, as seconds or
/// months (`30 days` is `2592000s`, `one year` and `12 months` are `12mo`,
/// `every quarter` is `3mo`): an amount, `one`, `every` or `each` and a
/// unit of time. `a`, `per` and a slash make a rate (`$1,800 a month`,
/// `$95/hr`), whose unit stays a word.
fn span_of(unit: &Unit, before: Option<&Unit>, text: &str) -> Option<String> {
    // Asked of every word: the cheap test first.
    let before = before.filter(|b| {
        b.class == Class::Value || matches!(b.term.as_str(), "one" | "every" | "each")
    })?;
    if before.end > unit.start
        || text
            .get(before.end..unit.start)
            .is_some_and(|between| between.contains('/'))
    {
        return None;
    }
    // By the word, not its key: `monthly` (`every month`) has the key of
    // `month` but is no amount.
    // `300 s`, `24 h`: a unit's one-letter form after an amount.
    let word = ABBREVIATIONS
        .iter()
        .chain(UNIT_SUFFIXES)
        .find(|(short, _)| *short == unit.word())
        .map_or(unit.word(), |(_, full)| full);
    // A function word (`day`, a slot noun) keeps its plural.
    let singular = word.strip_suffix('s').unwrap_or(word);
    let (_, times, counted) = DURATIONS
        .iter()
        .find(|(w, _, _)| *w == word || *w == singular)?;
    let amount = match before.term.as_str() {
        // "one second" and "a second reviewer": an ordinal as often.
        "one" if *times == 1 && counted == &"s" => return None,
        "one" | "every" | "each" => *times,
        // `1.5 hours` is `5400s`, a whole number of the smaller unit.
        number if before.class == Class::Value => scaled(number, *times)?,
        _ => return None,
    };
    Some(format!("{amount}{counted}"))
}

/// The profile of `text`: of its statements when it also asks questions
/// ("Billing moved to port 9090. Should search follow?" says what the
/// first sentence says), of all of it when it only asks.
#[must_use]
pub fn profile(text: &str) -> Profile {
    match statements(text) {
        Some(statements) => profile_of(&statements, text),
        None => profile_of(text, text),
    }
}

/// What the sentences of `text` state ([`crate::decide::stated`]: a
/// question nothing, one that asks to be confirmed its statement),
/// joined, when that differs from the text and is not nothing.
fn statements(text: &str) -> Option<String> {
    // Cheap first: a question ends in a question mark, or in `吗` or `呢`
    // in Chinese chat.
    if !text.contains(['?', '？', '吗', '呢']) {
        return None;
    }
    // Clauses as `only_asks` reads them: "moved to 9090; should search
    // follow?" states the first.
    let sentences = crate::extract::sentences(text, &crate::decide::CLAUSE_ENDS);
    let kept: Vec<&str> = sentences
        .iter()
        .filter_map(|s| crate::decide::stated(s))
        .collect();
    let changed = kept.len() < sentences.len() || kept.iter().zip(&sentences).any(|(k, s)| k != s);
    (!kept.is_empty() && changed).then(|| kept.join(" "))
}

/// The profile of `text`, `whole` being the text it was taken from (whether
/// that may say several things).
fn profile_of(text: &str, whole: &str) -> Profile {
    let (rewritten, cjk_values) = rewrite_cjk(&split_counted_compounds(&rewrite_phrases(text)));
    // Case is kept for the words that need it ("May"); the rewrite changes
    // no ASCII, so spans of the rewritten text index it.
    let (units, parts) = units_of(&rewritten);
    let units = whole_numbers(units, &rewritten);
    let mut out = Profile::default();
    out.values.extend(cjk_values);
    let mut seen = BTreeSet::new();
    let (mut likes, mut dislikes) = (false, false);
    // The amounts a span of time consumes (`30` of `30 days`): the span
    // says them.
    let spanned: Vec<bool> = (0..units.len())
        .map(|at| {
            units.get(at + 1).is_some_and(|next| {
                units[at].class == Class::Value
                    && span_of(next, Some(&units[at]), &rewritten).is_some()
            })
        })
        .collect();
    // The `old` of an age (`7 years old`): the age says it.
    let mut aged = false;
    for (at, unit) in units.iter().enumerate() {
        if spanned[at] || std::mem::take(&mut aged) {
            continue;
        }
        match unit.class {
            Class::Content | Class::Function => {
                // A span of time is a value, its unit word part of it; a
                // person's age is its amount alone (`7 years old` says what
                // `seven` and `7岁` say; `30 days old` stays a span).
                let before = at.checked_sub(1).and_then(|i| units.get(i));
                if let Some(span) = span_of(unit, before, &rewritten) {
                    aged = units.get(at + 1).is_some_and(|next| next.word() == "old")
                        && matches!(unit.word(), "year" | "years" | "yr" | "yrs")
                        && before.is_some_and(|b| b.class == Class::Value);
                    match before.filter(|_| aged) {
                        Some(amount) => out.values.extend(unit_values(amount, &rewritten)),
                        None => {
                            out.values.insert((ValueKind::Number, span));
                        }
                    }
                    continue;
                }
                // "last month", "next week": when, not what about.
                let period = |u: &Unit| PERIODS.iter().any(|(p, _)| *p == u.word());
                let relative = (before.is_some_and(|b| RELATIVE_TIMES.contains(&b.word()))
                    && period(unit))
                    || (RELATIVE_TIMES.contains(&unit.word())
                        && units.get(at + 1).is_some_and(period));
                // "Sprints last 2 weeks": the verb of a duration, light as
                // `is`.
                let lasts = matches!(unit.word(), "last" | "lasts" | "lasted")
                    && units
                        .get(at + 1)
                        .is_some_and(|u| u.class == Class::Value && starts_with_digit(&u.term));
                if relative || lasts {
                    continue;
                }
                if unit.class == Class::Content && seen.insert(unit.term.clone()) {
                    out.terms.push(unit.term.clone());
                    out.words.push(unit.word().to_owned());
                }
            }
            Class::Value => out.values.extend(unit_values(unit, &rewritten)),
            Class::Negation => out.negated = true,
            Class::Change => {}
            Class::Like => likes = true,
            Class::Dislike => dislikes = true,
            Class::Stop => {
                // `300 s`: a unit's letter, a stopword alone.
                let before = at.checked_sub(1).and_then(|i| units.get(i));
                if let Some(span) = span_of(unit, before, &rewritten) {
                    out.values.insert((ValueKind::Number, span));
                }
            }
            Class::Connector => {}
        }
    }
    for part in parts {
        let keyed = key(&part);
        if seen.insert(keyed.clone()) {
            out.terms.push(keyed);
            out.words.push(part);
        }
    }
    out.polarity = if dislikes {
        -1
    } else if likes {
        1
    } else {
        0
    };
    // What each amount counts: the content words right after it.
    for (at, unit) in units.iter().enumerate() {
        if unit.class != Class::Value || spanned[at] {
            continue;
        }
        let mut edge = unit.end;
        for next in &units[at + 1..] {
            let spaced = rewritten
                .get(edge..next.start)
                .is_some_and(|b| !b.is_empty() && b.chars().all(char::is_whitespace));
            if next.class != Class::Content || !spaced {
                break;
            }
            out.counted.insert(next.term.clone());
            edge = next.end;
        }
    }
    for pair in units.windows(2) {
        let [noun, name] = pair else { continue };
        let capitalized = rewritten
            .get(name.start..name.end)
            .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_uppercase()));
        let spaced = rewritten
            .get(noun.end..name.start)
            .is_some_and(|b| !b.is_empty() && b.chars().all(char::is_whitespace));
        if noun.class == Class::Content && name.class == Class::Content && capitalized && spaced {
            out.apposed.push((noun.term.clone(), name.term.clone()));
        }
    }
    out.preference = preference_of(&units, &rewritten);
    out.change = change_of(&units, &rewritten);
    let states = |words: &[&str]| {
        units.iter().any(|u| words.contains(&u.word()))
            || words
                .iter()
                .any(|w| !w.is_ascii() && rewritten.contains(*w))
    };
    // "is in Berlin", "at Acme": a name after `in` or `at` is a place.
    let named_place = units.windows(2).any(|w| {
        matches!(w[0].term.as_str(), "in" | "at")
            && w[1].class == Class::Content
            && rewritten
                .get(w[1].start..w[1].end)
                .is_some_and(|s| s.starts_with(|c: char| c.is_ascii_uppercase()))
    });
    out.states_place = states(PLACE_WORDS) || named_place;
    out.states_use = states(USE_WORDS);
    out.sorted_terms = seen.into_iter().collect();
    out.keyed_terms = keyed(&out.sorted_terms);
    out.salient = out.sorted_terms.iter().map(|t| is_salient(t)).collect();
    (out.seam_ends, out.seam_starts) = seam_chars(&out.sorted_terms);
    out.may_say_several = crate::decide::one_clause(whole).is_none();
    out.relative_times = crate::decide::relative_times(whole);
    out.contrasts = crate::decide::contrasts(whole);
    out.adds = crate::decide::adds(whole);
    out
}

/// The non-ASCII characters that end and that start `terms` (see
/// [`Profile::seam_ends`]).
fn seam_chars(terms: &[String]) -> (Vec<char>, Vec<char>) {
    let mut ends: Vec<char> = terms
        .iter()
        .filter_map(|t| t.chars().next_back())
        .filter(|c| !c.is_ascii())
        .collect();
    let mut starts: Vec<char> = terms
        .iter()
        .filter_map(|t| t.chars().next())
        .filter(|c| !c.is_ascii())
        .collect();
    for chars in [&mut ends, &mut starts] {
        chars.sort_unstable();
        chars.dedup();
    }
    (ends, starts)
}

/// The merge keys of `sorted_terms` (see [`Profile::keyed_terms`]).
fn keyed(sorted_terms: &[String]) -> Vec<(u64, u32)> {
    // FNV-1a: any fixed hash gives the same matches; this one is short and
    // quick on words.
    let hash = |term: &str| {
        term.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
    };
    let mut keyed: Vec<(u64, u32)> = sorted_terms
        .iter()
        .zip(0u32..)
        .map(|(term, at)| (hash(term), at))
        .collect();
    // Terms are distinct, so the order is total.
    keyed.sort_unstable_by(|a, b| {
        a.0.cmp(&b.0).then_with(|| {
            sorted_terms
                .get(a.1 as usize)
                .cmp(&sorted_terms.get(b.1 as usize))
        })
    });
    keyed
}

/// Sørensen-Dice similarity of two profiles' content terms (0 when both
/// are empty).
#[must_use]
pub fn similarity(a: &Profile, b: &Profile) -> f64 {
    debug_assert!(a.sorted_terms.len() == a.terms.len() && b.sorted_terms.len() == b.terms.len());
    debug_assert!(a.keyed_terms.len() == a.terms.len() && b.keyed_terms.len() == b.terms.len());
    let total = a.sorted_terms.len() + b.sorted_terms.len();
    if total == 0 {
        return 0.0;
    }
    let (mut left, mut right) = (
        a.keyed_terms.iter().peekable(),
        b.keyed_terms.iter().peekable(),
    );
    let mut shared = 0_usize;
    while let (Some(&&(hx, x)), Some(&&(hy, y))) = (left.peek(), right.peek()) {
        let order = hx.cmp(&hy).then_with(|| {
            a.sorted_terms
                .get(x as usize)
                .cmp(&b.sorted_terms.get(y as usize))
        });
        match order {
            std::cmp::Ordering::Less => {
                left.next();
            }
            std::cmp::Ordering::Greater => {
                right.next();
            }
            std::cmp::Ordering::Equal => {
                shared += 1;
                left.next();
                right.next();
            }
        }
    }
    2.0 * shared as f64 / total as f64
}

/// The salient terms of `a` that `b` lacks, seams against `b` left out
/// (see [`is_seam`]).
#[must_use]
pub fn salient_only_in<'a>(a: &'a Profile, b: &Profile) -> Vec<&'a str> {
    debug_assert!(
        a.keyed_terms.len() == a.sorted_terms.len() && a.salient.len() == a.sorted_terms.len()
    );
    debug_assert!(b.keyed_terms.len() == b.sorted_terms.len());
    // One merge of the two texts' hashed terms (integers compared; a
    // term's bytes only on equal hashes) finds the terms `b` lacks, by
    // their index in `a.sorted_terms`.
    let mut missing: Vec<u32> = Vec::new();
    let (mut left, mut right) = (
        a.keyed_terms.iter().peekable(),
        b.keyed_terms.iter().peekable(),
    );
    while let Some(&&(hx, x)) = left.peek() {
        let order = right.peek().map_or(std::cmp::Ordering::Less, |&&(hy, y)| {
            hx.cmp(&hy).then_with(|| {
                a.sorted_terms
                    .get(x as usize)
                    .cmp(&b.sorted_terms.get(y as usize))
            })
        });
        match order {
            std::cmp::Ordering::Less => {
                missing.push(x);
                left.next();
            }
            std::cmp::Ordering::Greater => {
                right.next();
            }
            std::cmp::Ordering::Equal => {
                left.next();
                right.next();
            }
        }
    }
    // In the order of `a.sorted_terms`, as the terms are shown.
    missing.sort_unstable();
    missing
        .into_iter()
        .filter_map(|at| {
            let term = a.sorted_terms.get(at as usize)?;
            let salient = a.salient.get(at as usize).copied().unwrap_or(false);
            (salient && !missing_term_is_seam(term, b)).then_some(term.as_str())
        })
        .collect()
}

/// Whether `b` lacks `term` (of another text), a seam against `b` not
/// counting.
fn missing_not_seam(term: &str, b: &Profile) -> bool {
    b.sorted_terms
        .binary_search_by(|t| t.as_str().cmp(term))
        .is_err()
        && !missing_term_is_seam(term, b)
}

/// Whether a Chinese bigram is no word of the segmenter's dictionary: a
/// pair of characters across two words (`床后`, `列最`), not a word
/// (`起床`, `最终`).
pub(crate) fn straddles_words_zh(term: &str) -> bool {
    cjk_bigram(term).is_some() && !crate::topic::JIEBA.has_word(term)
}

/// Whether `term`, a Chinese bigram of one text, is a seam against
/// `other`: its first character ends a word of `other` and its second
/// starts one, so it spans two words `other` holds in another order
/// (`明每` of `小明每天` against `每天早上小明`, `务端` of `服务端口` against
/// `服务` and `端口`). Chinese is cut into bigrams, not words, so a
/// reordering or a particle more or less changes the bigrams across word
/// ends while the words stay; such a bigram is no word of its own.
#[must_use]
pub fn is_seam(term: &str, other: &Profile) -> bool {
    let Some((first, second)) = cjk_bigram(term) else {
        return false;
    };
    if other
        .sorted_terms
        .binary_search_by(|t| t.as_str().cmp(term))
        .is_ok()
    {
        // `other` holds the bigram itself, which does not count as the
        // word it ends or starts: ask the other terms one by one.
        let ends = other
            .sorted_terms
            .iter()
            .any(|w| w != term && w.ends_with(first));
        let starts = other
            .sorted_terms
            .iter()
            .any(|w| w != term && w.starts_with(second));
        return ends && starts;
    }
    bigram_is_seam(first, second, other)
}

/// The two characters of `term` when it is two non-ASCII characters (a
/// Chinese bigram), the only terms that can be seams.
fn cjk_bigram(term: &str) -> Option<(char, char)> {
    let mut chars = term.chars();
    match (chars.next(), chars.next(), chars.next()) {
        (Some(first), Some(second), None) if !first.is_ascii() && !second.is_ascii() => {
            Some((first, second))
        }
        _ => None,
    }
}

/// [`is_seam`] for a bigram `other` does not hold.
fn bigram_is_seam(first: char, second: char, other: &Profile) -> bool {
    other.seam_ends.binary_search(&first).is_ok()
        && other.seam_starts.binary_search(&second).is_ok()
}

/// Whether `term`, which `other` does not hold, is a seam against it.
fn missing_term_is_seam(term: &str, other: &Profile) -> bool {
    cjk_bigram(term).is_some_and(|(first, second)| bigram_is_seam(first, second, other))
}

/// [`similarity`] with the seams of each text against the other left out
/// of both counts (see [`is_seam`]): `小明每天早上喝咖啡` and
/// `每天早上小明都喝咖啡` hold the same words. The same as [`similarity`]
/// for texts without Chinese. What a save decides by.
#[must_use]
pub fn similarity_across_seams(a: &Profile, b: &Profile) -> f64 {
    // A seam of either text ends a term of the other in a non-ASCII
    // character, and is itself such a term of its own.
    if a.seam_ends.is_empty() || b.seam_ends.is_empty() {
        return similarity(a, b);
    }
    // One merge of the hashed terms (integers compared; a term's bytes
    // only on equal hashes): the shared ones, and each side's unmatched
    // ones asked whether they are seams against the other. Which terms are
    // unmatched does not depend on the order merged in.
    debug_assert!(
        a.keyed_terms.len() == a.sorted_terms.len() && b.keyed_terms.len() == b.sorted_terms.len()
    );
    fn term(p: &Profile, at: u32) -> &str {
        p.sorted_terms.get(at as usize).map_or("", String::as_str)
    }
    let (mut left, mut right) = (
        a.keyed_terms.iter().peekable(),
        b.keyed_terms.iter().peekable(),
    );
    let (mut shared, mut seams) = (0_usize, 0_usize);
    loop {
        match (left.peek(), right.peek()) {
            (Some(&&(hx, x)), Some(&&(hy, y))) => {
                match hx.cmp(&hy).then_with(|| term(a, x).cmp(term(b, y))) {
                    std::cmp::Ordering::Equal => {
                        shared += 1;
                        left.next();
                        right.next();
                    }
                    std::cmp::Ordering::Less => {
                        seams += usize::from(missing_term_is_seam(term(a, x), b));
                        left.next();
                    }
                    std::cmp::Ordering::Greater => {
                        seams += usize::from(missing_term_is_seam(term(b, y), a));
                        right.next();
                    }
                }
            }
            (Some(&&(_, x)), None) => {
                seams += usize::from(missing_term_is_seam(term(a, x), b));
                left.next();
            }
            (None, Some(&&(_, y))) => {
                seams += usize::from(missing_term_is_seam(term(b, y), a));
                right.next();
            }
            (None, None) => break,
        }
    }
    let total = a.sorted_terms.len() + b.sorted_terms.len() - seams;
    if total == 0 {
        return 0.0;
    }
    2.0 * shared as f64 / total as f64
}

/// Whether `a` has a salient term that `b` lacks: [`salient_only_in`] is
/// not empty (found without collecting them).
#[must_use]
pub(crate) fn has_salient_only_in(a: &Profile, b: &Profile) -> bool {
    debug_assert_eq!(a.salient.len(), a.sorted_terms.len());
    a.sorted_terms
        .iter()
        .zip(&a.salient)
        .any(|(t, salient)| *salient && missing_not_seam(t, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(text: &str) -> Vec<String> {
        profile(text)
            .values_of(ValueKind::Number)
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn a_number_is_one_value_however_it_is_written() {
        // Thousands commas, a spaced am/pm, ordinal suffixes.
        assert_eq!(numbers("The lease costs $2,450 every month."), ["2450"]);
        assert_eq!(
            numbers("The lease costs 2450 dollars every month."),
            ["2450"]
        );
        assert_eq!(
            numbers("The sync job starts at 4 PM."),
            numbers("The sync job starts at 4pm.")
        );
        assert_ne!(
            numbers("The sync job starts at 4 PM."),
            numbers("The sync job starts at 4 AM.")
        );
        assert_eq!(numbers("Invoices go out on the 15th."), ["15"]);
        // A list is not one number, and a comma before four digits is no
        // thousands separator.
        assert_eq!(
            numbers("Ports 8080, 9090 and 7070 are open."),
            ["7070", "8080", "9090"]
        );
        assert_eq!(numbers("Between 3,2024 and 5."), ["2024", "3", "5"]);
    }

    /// An amount spelled in words is the amount in digits, past twelve
    /// too: `thirty days` restates `30 days`.
    #[test]
    fn a_number_in_words_is_its_digits() {
        for (words, digits) in [
            (
                "Logs are kept for thirty days.",
                "Logs are kept for 30 days.",
            ),
            (
                "The cluster has twenty-four nodes.",
                "The cluster has 24 nodes.",
            ),
            (
                "The cluster has twenty four nodes.",
                "The cluster has 24 nodes.",
            ),
            ("The queue holds fifteen jobs.", "The queue holds 15 jobs."),
            ("The limit is two hundred users.", "The limit is 200 users."),
            ("The limit is one hundred users.", "The limit is 100 users."),
            (
                "The budget is five thousand dollars.",
                "The budget is 5000 dollars.",
            ),
            (
                "Staging deploys need two approvals.",
                "Staging deploys need 2 approvals.",
            ),
        ] {
            assert_eq!(numbers(words), numbers(digits), "{words}");
            assert_eq!(profile(words).terms, profile(digits).terms, "{words}");
        }
        for (words, digits) in [
            ("日志保留三十天。", "日志保留30天。"),
            ("团队有十二名工程师。", "团队有12名工程师。"),
            ("上线需要两位同事审批。", "上线需要2位同事审批。"),
            ("集群有一百二十台机器。", "集群有120台机器。"),
            ("第三季度发布新版本。", "第3季度发布新版本。"),
        ] {
            assert_eq!(numbers(words), numbers(digits), "{words}");
            assert!(!numbers(words).is_empty(), "{words}");
            assert_eq!(profile(words).terms, profile(digits).terms, "{words}");
        }
        assert_ne!(numbers("thirty days"), numbers("forty days"));
        // Thousands however written, an ISO date as its parts.
        assert_eq!(numbers("The budget is 10k."), ["10000"]);
        assert_eq!(numbers("The budget is 1.5k."), ["1500"]);
        assert_eq!(numbers("The budget is $10,000."), ["10000"]);
        assert_eq!(numbers("The budget is 10 thousand."), ["10000"]);
        assert_eq!(numbers("The budget is 1.5 million."), ["1500000"]);
        assert_eq!(numbers("The budget is 1,500,000."), ["1500000"]);
        let date = |t: &str| profile(t).values;
        assert_eq!(
            date("The freeze starts on 2024-03-01."),
            date("The freeze starts on March 1, 2024.")
        );
        assert_eq!(
            date("The freeze starts on 2024-03-01."),
            date("冻结从2024年3月1日开始。")
        );
        assert_ne!(
            date("The freeze starts on 2024-03-01."),
            date("The freeze starts on 2024-03-08.")
        );
        assert!(
            !profile("Coverage stays above 80 percent.")
                .terms
                .contains(&"percent".to_owned())
        );
        // A month in digits is a month, as in numerals.
        let months = |t: &str| {
            profile(t)
                .values_of(ValueKind::Month)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(months("项目截止日期是3月15日。"), ["3"]);
        assert_eq!(months("项目截止日期是三月十五日。"), ["3"]);
        assert_eq!(numbers("项目截止日期是3月15日。"), ["15"]);
        assert_eq!(months("2024年12月"), ["12"]);
        // Two numbers side by side are not summed unless tens then units.
        assert_eq!(numbers("Ports ten twenty"), ["10", "20"]);
        // `one` alone is still a pronoun more often than an amount.
        assert!(numbers("The one in the corner.").is_empty());
    }

    /// A clock time is one value in either notation, in English and
    /// Chinese: a restatement `14:00` of `2 PM` is no changed value.
    #[test]
    fn a_clock_time_is_one_value_on_the_24_hour_clock() {
        for text in [
            "The sync runs at 2 PM.",
            "The sync runs at 2pm.",
            "The sync runs at 2:00 pm.",
            "The sync runs at 14:00.",
            "同步在下午两点运行。",
            "同步在下午2点运行。",
            "同步在14点运行。",
            "同步14:00运行。",
        ] {
            assert_eq!(numbers(text), ["14:00"], "{text}");
        }
        assert_eq!(numbers("Standup is at 9:30."), ["09:30"]);
        assert_eq!(numbers("Standup is at 09:30."), ["09:30"]);
        assert_eq!(numbers("Standup is at 9:30 am."), ["09:30"]);
        assert_eq!(numbers("站会在上午九点半。"), ["09:30"]);
        assert_eq!(numbers("备份在凌晨两点。"), ["02:00"]);
        assert_eq!(numbers("The job runs at 12am."), ["00:00"]);
        assert_eq!(numbers("The job runs at 12pm."), ["12:00"]);
        // Still two times, and a bare number or a ratio is no time.
        assert_ne!(numbers("at 2 AM"), numbers("at 2 PM"));
        assert_eq!(numbers("Meet at 2."), ["2"]);
        assert_eq!(numbers("The ratio is 16:9."), ["16", "9"]);
        // A range is two times.
        assert_eq!(
            numbers("The window is 14:00-16:00 UTC."),
            ["14:00", "16:00"]
        );
        assert_eq!(
            numbers("The window is 14:00-16:00 UTC."),
            numbers("The window is 2 PM to 4 PM UTC.")
        );
    }

    #[test]
    fn chinese_values_markers_and_particles_are_rewritten() {
        let p = profile("部署在周五下午进行。");
        assert!(
            p.values.contains(&(ValueKind::Weekday, "5".to_owned())),
            "{p:?}"
        );
        assert!(p.terms.contains(&"部署".to_owned()), "{p:?}");
        assert!(!p.terms.iter().any(|t| t.contains('周')), "{p:?}");
        let p = profile("日志保留九十天");
        assert!(
            p.values
                .contains(&(ValueKind::Number, "7776000s".to_owned())),
            "{p:?}"
        );
        let p = profile("用户不喜欢在早上喝绿茶。");
        assert!(p.negated && p.polarity == 1, "{p:?}");
        assert_eq!(profile("张伟在2021年加入公司").values.len(), 1);
        assert_eq!(cjk_number("两"), 2);
        assert_eq!(cjk_number("十五"), 15);
        assert_eq!(cjk_number("三百二十"), 320);
        assert_eq!(cjk_number("一万二千"), 12_000);
        // Everyday shortenings: the last digit counts in the next place.
        assert_eq!(cjk_number("六千八"), 6_800);
        assert_eq!(cjk_number("一百二"), 120);
        assert_eq!(cjk_number("三万五"), 35_000);
        assert_eq!(cjk_number("两万五千"), 25_000);
        assert_eq!(cjk_number("一千零八"), 1_008);
        assert_eq!(cjk_number("二十五"), 25);
        assert_eq!(cjk_number("三百零五"), 305);
        // Digit by digit with no place: a year; two digits are a range.
        assert_eq!(cjk_number("二〇二四"), 2024);
        assert_eq!(cjk_number("一九九八"), 1998);
        assert_eq!(cjk_number_len("三千五一个月"), "三千五".len());
        assert_eq!(cjk_number_len("二〇二四年"), "二〇二四".len());
    }

    /// A Chinese clock time's minutes however they are said, a decimal
    /// before a measure and a percentage, each the value digits write.
    #[test]
    fn chinese_clock_times_decimals_and_percentages_are_their_digits() {
        let numbers = |t: &str| {
            profile(t)
                .values_of(ValueKind::Number)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        for (said, written) in [
            ("三点一刻", "03:15"),
            ("十点十五", "10:15"),
            ("八点零五", "08:05"),
            ("下午三点四十五分", "15:45"),
            ("7点30分", "07:30"),
            ("7点30", "07:30"),
            ("晚上九点三刻", "21:45"),
        ] {
            assert_eq!(numbers(&format!("站会在{said}开始")), [written], "{said}");
        }
        assert_eq!(numbers("工资涨了一点五倍"), ["1.5"]);
        assert_eq!(numbers("每天跑三点五公里"), numbers("每天跑3.5公里"));
        assert_eq!(numbers("预算一点五万"), ["15000"]);
        assert_eq!(numbers("利率是百分之三点五"), ["3.5"]);
        // A percentage's trailing zeros say nothing; a version's do.
        assert_eq!(numbers("The rate is 4.10%."), numbers("The rate is 4.1%."));
        assert_eq!(numbers("Fees are 2.0%."), ["2"]);
        assert_ne!(
            numbers("We run Python 3.10."),
            numbers("We run Python 3.1.")
        );
        assert_eq!(numbers("首付百分之三十"), numbers("首付30%"));
    }

    /// `用户` as the subject is the speaker, as `User` and `I` read the same
    /// in English; in a noun it is a product's users.
    #[test]
    fn the_user_as_subject_is_the_speaker() {
        for (user, speaker) in [
            ("用户对猫毛过敏。", "我对猫毛过敏。"),
            ("用户的老家在大连。", "我的老家在大连。"),
            ("用户每周五晚上打篮球。", "我每周五晚上打篮球。"),
            ("用户喜欢用机械键盘", "我喜欢用机械键盘"),
        ] {
            assert_eq!(profile(user).terms, profile(speaker).terms, "{user}");
        }
        for noun in [
            "用户名最长二十个字符。",
            "用户表按月分区。",
            "用户登录要两步验证。",
        ] {
            let p = profile(noun);
            assert!(!p.terms.contains(&"我".to_owned()), "{noun}: {p:?}");
            assert!(
                p.terms.iter().any(|t| t.starts_with("用户")),
                "{noun}: {p:?}"
            );
        }
    }

    /// Weekdays, a range of days written with a hyphen or `到`, and a unit
    /// glued to its amount read as they are written out; a count a week
    /// (`每周三次`) no weekday.
    #[test]
    fn spans_of_days_and_glued_units_are_their_values() {
        let days = |t: &str| {
            profile(t)
                .values_of(ValueKind::Weekday)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        for t in [
            "Office hours are on weekdays.",
            "Office hours: Mon-Fri.",
            "Office hours Monday through Friday.",
            "答疑时间是工作日。",
            "答疑时间是周一到周五。",
        ] {
            assert_eq!(days(t), ["1", "5"], "{t}");
        }
        assert_eq!(
            profile("答疑时间是周一到周五。").terms,
            profile("答疑时间是工作日。").terms
        );
        assert_eq!(
            profile("Office hours: Mon-Fri.").terms,
            profile("Office hours Monday through Friday.").terms
        );
        // A count a week is no weekday: three times, once, one day.
        assert_eq!(days("每周三去游泳"), ["3"]);
        for t in ["每周三次去游泳", "每周一次去游泳", "每周一天在家办公"] {
            assert!(days(t).is_empty(), "{t}: {:?}", profile(t));
        }
        assert!(
            profile("每周三次去游泳")
                .values
                .contains(&(ValueKind::Number, "3".to_owned()))
        );
        let (glued, spaced) = (
            profile("The shelf is 80cm wide."),
            profile("The shelf is 80 cm wide."),
        );
        assert_eq!(
            (&glued.terms, &glued.values),
            (&spaced.terms, &spaced.values)
        );
        assert_eq!(
            glued.values_of(ValueKind::Number).collect::<Vec<_>>(),
            ["80"]
        );
    }

    #[test]
    fn counts_joined_short_dates_and_ordinals_read_as_written() {
        let same = |a: &str, b: &str| {
            let (a_profile, b_profile) = (profile(a), profile(b));
            assert_eq!(
                (&a_profile.terms, &a_profile.values),
                (&b_profile.terms, &b_profile.values),
                "{a} / {b}"
            );
        };
        // A count joined by a hyphen to what it counts.
        same("We signed a 2-year lease.", "We signed a 2 year lease.");
        same("We signed a two-year lease.", "We signed a 2 year lease.");
        same("Tabs are 8-wide columns.", "Tabs are 8 wide columns.");
        same(
            "The heater takes a 1.5-hour cycle.",
            "The heater takes a 90 minute cycle.",
        );
        same("Use three-space indents.", "Use three spaces indents.");
        same("A one-year warranty.", "A 12 month warranty.");
        // Hyphens that join no count to what it counts stay.
        for word in ["one-time", "1-on-1", "9-to-5", "x86-64", "covid-19"] {
            assert!(
                profile(&format!("We talked about {word} yesterday."))
                    .terms
                    .contains(&word.to_owned()),
                "{word}"
            );
        }
        // A number before its unit is an amount after a name's noun too.
        let run = profile("Each build run takes 12 minutes.");
        assert_eq!(
            run.values_of(ValueKind::Number).collect::<Vec<_>>(),
            ["720s"],
            "{run:?}"
        );
        assert!(profile("Run 12 failed.").terms.contains(&"12".to_owned()));
        // A month and a year.
        same(
            "The card expires 11/2027.",
            "The card expires November 2027.",
        );
        let day = profile("Due 11/12.");
        assert!(day.values_of(ValueKind::Month).count() == 0, "{day:?}");
        // A short date that is also a word, beside a number.
        same("Rent is due 5 Mar.", "Rent is due March 5.");
        same("Brunch Sun 11am.", "Brunch Sunday 11am.");
        assert!(
            profile("I sat 3 rows back.")
                .values_of(ValueKind::Weekday)
                .next()
                .is_none()
        );
        assert!(
            profile("Don't mar the table.")
                .values_of(ValueKind::Month)
                .next()
                .is_none()
        );
        // An ordinal that counts a day.
        same("Dinner on the second Friday.", "Dinner on the 2nd Friday.");
        same(
            "Rent is due the third of every month.",
            "Rent is due the 3rd of every month.",
        );
        assert_eq!(
            profile("Meetup on the last Monday of the month.")
                .values_of(ValueKind::Number)
                .collect::<Vec<_>>(),
            ["-1"]
        );
        assert!(
            profile("Last Monday we met.")
                .values_of(ValueKind::Number)
                .next()
                .is_none()
        );
        // A year after an apostrophe opening a word; thousands as `grand`.
        same("She rides a '19 Trek.", "She rides a 2019 Trek.");
        same("He restored a '67 Mustang.", "He restored a 1967 Mustang.");
        same("The roof cost 12 grand.", "The roof cost $12k.");
        same("The roof cost twelve grand.", "The roof cost 12,000.");
        assert!(
            profile("Don't 16 of them fit?")
                .values
                .contains(&(ValueKind::Number, "16".to_owned()))
        );
        for t in ["My first job was in Oslo.", "Second of all, it rained."] {
            assert!(
                profile(t).values_of(ValueKind::Number).next().is_none(),
                "{t}"
            );
        }
    }

    #[test]
    fn identifiers_are_names_and_values_are_values() {
        let p = profile("Build 3fa9c2 on host-17 listens on port 8080 since 2024-03-01, v1.2.3");
        assert!(p.terms.contains(&"3fa9c2".to_owned()), "{p:?}");
        assert!(p.terms.contains(&"host-17".to_owned()), "{p:?}");
        let numbers: Vec<&str> = p.values_of(ValueKind::Number).collect();
        // The date is its year, month and day; a version its number.
        assert_eq!(numbers, ["1", "1.2.3", "2024", "8080"], "{p:?}");
        assert_eq!(p.values_of(ValueKind::Month).collect::<Vec<_>>(), ["3"]);
        let p = profile("Order 40213 shipped on Fridays");
        assert!(p.terms.contains(&"40213".to_owned()), "{p:?}");
        assert_eq!(p.values_of(ValueKind::Weekday).collect::<Vec<_>>(), ["5"]);
    }

    #[test]
    fn preference_pairs_keep_their_roles() {
        let pair = |t: &str| {
            let p = profile(t).preference.unwrap_or_default();
            (
                p.preferred.into_iter().collect::<Vec<_>>(),
                p.other.into_iter().collect::<Vec<_>>(),
            )
        };
        // Each side holds the words' keys.
        let s = |v: &[&str]| v.iter().map(|x| key(x)).collect::<Vec<_>>();
        assert_eq!(
            pair("prefers Node.js to Python"),
            (s(&["node.js"]), s(&["python"]))
        );
        assert_eq!(pair("Use spaces over tabs."), (s(&["space"]), s(&["tab"])));
        assert_eq!(
            pair("Tom would rather use Ruby than Perl"),
            (s(&["ruby"]), s(&["perl"]))
        );
        assert_eq!(
            pair("prefers email instead of phone calls"),
            (s(&["email"]), s(&["call", "phone"]))
        );
        assert_eq!(
            pair("用户更喜欢Python而不是Node.js。"),
            (s(&["python"]), s(&["node.js"]))
        );
        assert_eq!(
            pair("比起邮件，用户更喜欢电话。"),
            (s(&["电话"]), s(&["邮件"]))
        );
        assert_eq!(pair("went to the shop"), (s(&[]), s(&[])));
    }

    #[test]
    fn a_seam_is_a_bigram_across_two_words_the_other_text_holds() {
        let (a, b) = (
            profile("小明每天早上喝咖啡"),
            profile("每天早上小明都喝咖啡"),
        );
        assert!(is_seam("明每", &b) && is_seam("上喝", &b) && is_seam("上小", &a));
        assert!(!is_seam("咖啡", &b) && !is_seam("红茶", &b) && !is_seam("ab", &b));
        assert!(similarity(&a, &b) < 0.9);
        assert!((similarity_across_seams(&a, &b) - 1.0).abs() < 1e-12);
        assert!((similarity_across_seams(&b, &a) - 1.0).abs() < 1e-12);
        // Without Chinese it is Dice.
        let (c, d) = (
            profile("green tea every morning"),
            profile("tea in the morning"),
        );
        assert!((similarity_across_seams(&c, &d) - similarity(&c, &d)).abs() < 1e-12);
    }

    /// Seams by their definition: a term of one text that the other lacks,
    /// two non-ASCII characters, the first ending one of the other's terms
    /// and the second starting one.
    fn seams_by_definition(x: &Profile, y: &Profile) -> usize {
        x.sorted_terms
            .iter()
            .filter(|t| {
                let chars: Vec<char> = t.chars().collect();
                chars.len() == 2
                    && chars.iter().all(|c| !c.is_ascii())
                    && !y.sorted_terms.contains(t)
                    && y.sorted_terms.iter().any(|w| w.ends_with(chars[0]))
                    && y.sorted_terms.iter().any(|w| w.starts_with(chars[1]))
            })
            .count()
    }

    proptest::proptest! {
        /// The one-pass merge over the seam characters counts what the
        /// definition counts, on texts that reorder a few Chinese words.
        #[test]
        fn similarity_across_seams_leaves_out_exactly_the_seams(
            x in proptest::collection::vec(proptest::sample::select(SEAM_WORDS.to_vec()), 0..8),
            y in proptest::collection::vec(proptest::sample::select(SEAM_WORDS.to_vec()), 0..8),
        ) {
            let (a, b) = (profile(&x.concat()), profile(&y.concat()));
            let shared = a.sorted_terms.iter().filter(|t| b.sorted_terms.contains(t)).count();
            let total = a.sorted_terms.len() + b.sorted_terms.len()
                - seams_by_definition(&a, &b)
                - seams_by_definition(&b, &a);
            let expected = if total == 0 { 0.0 } else { 2.0 * shared as f64 / total as f64 };
            proptest::prop_assert!((similarity_across_seams(&a, &b) - expected).abs() < 1e-12);
            for term in &a.sorted_terms {
                let missing = !b.sorted_terms.contains(term);
                let by_definition = missing
                    && seams_by_definition(&Profile { sorted_terms: vec![term.clone()], ..Profile::default() }, &b) == 1;
                if missing {
                    proptest::prop_assert_eq!(is_seam(term, &b), by_definition);
                }
            }
        }
    }

    proptest::proptest! {
        /// The merge finds exactly the salient terms of one text the other
        /// lacks, seams left out, in the order of its sorted terms; and
        /// `has_salient_only_in` says whether there are any.
        #[test]
        fn salient_only_in_is_the_definition(
            x in proptest::collection::vec(proptest::sample::select(SALIENT_WORDS.to_vec()), 0..10),
            y in proptest::collection::vec(proptest::sample::select(SALIENT_WORDS.to_vec()), 0..10),
        ) {
            let (a, b) = (profile(&x.join(" ")), profile(&y.join(" ")));
            for (a, b) in [(&a, &b), (&b, &a)] {
                let by_definition: Vec<&str> = a
                    .sorted_terms
                    .iter()
                    .filter(|t| {
                        b.sorted_terms.binary_search(t).is_err()
                            && is_salient(t)
                            && !missing_term_is_seam(t, b)
                    })
                    .map(String::as_str)
                    .collect();
                proptest::prop_assert_eq!(&salient_only_in(a, b), &by_definition);
                proptest::prop_assert_eq!(has_salient_only_in(a, b), !by_definition.is_empty());
            }
        }
    }

    /// Content words, function words, numbers and Chinese (whose bigrams
    /// make seams).
    const SALIENT_WORDS: [&str; 16] = [
        "the",
        "billing",
        "service",
        "port",
        "8080",
        "is",
        "on",
        "Alice",
        "likes",
        "tea",
        "用户每天",
        "早上",
        "喝咖啡",
        "服务端口",
        "not",
        "Tuesday",
    ];

    const SEAM_WORDS: [&str; 12] = [
        "用户", "每天", "早上", "喝", "咖啡", "都", "服务", "端口", "部署", "在", "周五", " tea ",
    ];

    /// A common synonym is one word: a restatement in other words shares
    /// its terms.
    #[test]
    fn common_synonyms_are_one_word() {
        for (a, b) in [
            ("The meeting begins at noon.", "The meeting starts at noon."),
            ("The office shuts early.", "The office closes early."),
            ("The car is large.", "The car is big."),
            (
                "Staging deploys require approval.",
                "Staging deploys need approval.",
            ),
            (
                "Logs are retained for a month.",
                "Logs are kept for a month.",
            ),
            ("The user studies Japanese.", "The user learns Japanese."),
            ("Ana resides in Porto.", "Ana lives in Porto."),
            (
                "Kofi is allergic to peanuts.",
                "Kofi has an allergy to peanuts.",
            ),
            (
                "The user wants brief answers.",
                "The user wants short answers.",
            ),
            (
                "Backups run every night at 2am.",
                "Backups run nightly at 2am.",
            ),
            ("Reports go out every week.", "Reports go out weekly."),
            (
                "The review happens every year.",
                "The review happens annually.",
            ),
            ("Backups run every day.", "Backups run daily."),
            ("日志保存一个月。", "日志保留一个月。"),
            ("团队采用敏捷开发。", "团队使用敏捷开发。"),
            ("日志统一用 UTC。", "日志统一使用 UTC。"),
            ("我们用飞书。", "我们使用飞书。"),
        ] {
            assert_eq!(profile(a).terms, profile(b).terms, "{a} / {b}");
        }
        assert_ne!(
            profile("The car is small.").terms,
            profile("The car is big.").terms
        );
    }

    /// A Chinese adverb or modal verb is a function word, as its English
    /// counterpart is, and joins no bigram with the words beside it.
    #[test]
    fn chinese_adverbs_are_function_words() {
        for (plain, said) in [
            ("团队周五发布。", "团队通常周五发布。"),
            ("张伟负责支付系统。", "张伟一直负责支付系统。"),
            ("部署两位同事审批。", "部署必须两位同事审批。"),
        ] {
            let (a, b) = (profile(plain), profile(said));
            assert!(
                (similarity_across_seams(&a, &b) - 1.0).abs() < 1e-12,
                "{said}: {:?} / {:?}",
                a.terms,
                b.terms
            );
        }
    }

    /// A word's inflections, its abbreviation and a two-word spelling are
    /// one key; another word is another key.
    #[test]
    fn inflections_and_short_forms_are_one_word() {
        for (a, b) in [
            ("Builds are cached.", "The build cache."),
            (
                "Servers get provisioned by Ansible.",
                "Ansible provisioning of servers.",
            ),
            ("The prod DB.", "The production database."),
            ("Our k8s infra.", "Our Kubernetes infrastructure."),
            ("Postgres and Mongo.", "PostgreSQL and MongoDB."),
            ("Open a pull request.", "Open a merge request."),
            ("The time zone.", "The timezone."),
            ("Kicks off at noon.", "Starts at noon."),
            ("The office wi-fi.", "The office WiFi."),
            ("Reviews of all PRs.", "Reviews of all pull requests."),
            ("Flying to Oslo.", "A flight to Oslo."),
            (
                "The data team reports to Ines.",
                "Ines manages the data team.",
            ),
            ("We ship on Mondays.", "We deploy on Mondays."),
            ("The lib dir.", "The library folder."),
            ("The user's physician.", "The user's doctor."),
            ("用户喜欢简短的回答。", "用户喜欢简洁的答复。"),
            ("用户每日早晨跑步。", "用户每天早上跑步。"),
        ] {
            assert_eq!(
                profile(a).sorted_terms,
                profile(b).sorted_terms,
                "{a} / {b}"
            );
        }
        assert_ne!(
            profile("The staging database.").terms,
            profile("The production database.").terms
        );
        assert_ne!(
            profile("Builds are cached.").terms,
            profile("Builds are cancelled.").terms
        );
    }

    /// A span of time is one value however it is written: an amount and a
    /// unit, a unit glued to the amount, `one` or `every` and a unit.
    #[test]
    fn a_span_of_time_is_one_value() {
        let spans = |t: &str| {
            profile(t)
                .values_of(ValueKind::Number)
                .filter(|v| v.ends_with('s') || v.ends_with("mo"))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        for (a, b) in [
            (
                "Sessions expire after 90 seconds.",
                "Sessions expire after 90s.",
            ),
            ("Keys rotate every two weeks.", "Keys rotate every 14 days."),
            (
                "Logs are kept for one year.",
                "Logs are kept for 12 months.",
            ),
            (
                "Audits happen every quarter.",
                "Audits happen every three months.",
            ),
            ("The lock lasts 2 hours.", "The lock lasts 120 min."),
            ("Backups run for 24h.", "Backups run for one day."),
        ] {
            assert!(!spans(a).is_empty(), "{a}");
            assert_eq!(spans(a), spans(b), "{a} / {b}");
        }
        assert_ne!(spans("Wait 5 minutes."), spans("Wait 5 seconds."));
        // The span says its amount: no bare number beside it.
        assert_eq!(numbers("Logs are kept for 12 months."), ["12mo"]);
        // "only one", "at least one" are amounts; "one of" is no amount.
        assert_eq!(numbers("Merges need only one approval."), ["1"]);
        assert_eq!(numbers("Merges need at least one approval."), ["1"]);
        assert!(numbers("One of the approvals is enough.").is_empty());
        // A Chinese distance is its amount; a Chinese span of time is the
        // span, as in English.
        assert_eq!(numbers("用户每天跑五公里。"), ["5"]);
        assert_eq!(numbers("试用期三个月。"), ["3mo"]);
        for (a, b) in [
            ("日志保留30天。", "Logs are kept for 30 days."),
            ("日志保留三十天。", "日志保留30天。"),
            ("会议开一个半小时。", "The meeting runs an hour and a half."),
            ("会议开半小时。", "The meeting runs half an hour."),
            ("会议开1.5小时。", "The meeting runs 1.5 hours."),
            ("合同签了两年。", "合同签了24个月。"),
            ("项目做了三年半。", "The project took 42 months."),
            ("Keys rotate every two weeks.", "密钥两周轮换一次。"),
        ] {
            assert!(!spans(a).is_empty(), "{a}");
            assert_eq!(spans(a), spans(b), "{a} / {b}");
        }
        // A year named, a school year, a decade and an anniversary are no
        // span.
        assert_eq!(numbers("2021年入职。"), ["2021"]);
        assert_eq!(numbers("孩子读三年级。"), ["3"]);
        assert_eq!(numbers("公司成立两周年。"), ["2"]);
        // A short weekday or month name is the day or month.
        let dates = |t: &str| profile(t).values;
        assert_eq!(
            dates("Standup moved to Thu."),
            dates("Standup moved to Thursday.")
        );
        assert_eq!(
            dates("Renewal is due in Sept."),
            dates("Renewal is due in September.")
        );
        assert!(dates("The user sat down.").is_empty());
        // `一次`, once, is how often, no amount.
        assert_eq!(numbers("数据库每天备份一次"), Vec::<String>::new());
        // A rate keeps its unit as a word: no span.
        assert!(spans("Rent is $900 a month.").is_empty());
        assert!(spans("Two reviewers, then a second one.").is_empty());
        // Midnight and noon are clock times.
        assert_eq!(numbers("The job starts at midnight."), ["00:00"]);
        assert_eq!(numbers("Lunch is at noon."), numbers("Lunch is at 12:00."));
        // A size glued to its unit is the amount and the unit's word.
        assert_eq!(
            profile("Uploads cap at 25MB.").terms,
            profile("Uploads cap at 25 megabytes.").terms
        );
        assert_eq!(numbers("Uploads cap at 25MB."), ["25"]);
    }

    /// A prohibition, a habit ended and a predicate state that forbids are
    /// negations; a permission is a light verb; a state before its noun
    /// qualifies it.
    #[test]
    fn prohibitions_negate_and_permissions_are_light() {
        for text in [
            "Force pushes are forbidden.",
            "Smoking is banned on the roof.",
            "We stopped pinning versions.",
            "Merges are frozen until Monday.",
            "The cron job is paused.",
        ] {
            assert!(profile(text).negated, "{text}");
        }
        for text in [
            "The user eats frozen peas.",
            "Deploys are allowed on Fridays.",
        ] {
            assert!(!profile(text).negated, "{text}");
        }
        assert_eq!(
            profile("Deploys are allowed on Fridays.").terms,
            profile("Deploys happen on Fridays.").terms
        );
    }

    #[test]
    fn stems_are_light() {
        for (word, stemmed) in [
            ("deploys", "deploy"),
            ("fixes", "fix"),
            ("libraries", "library"),
            ("class", "class"),
            ("status", "status"),
            ("tabs", "tab"),
            ("go", "go"),
        ] {
            assert_eq!(stem(word), stemmed);
            assert_eq!(stem(&stem(word)), stemmed);
        }
    }

    /// A rate's unit after a slash stays a word (`$12/day` is no span of
    /// twelve days); a span of days called old stays a span, an age in
    /// years is its amount; a month after a spaced number is a month; an
    /// ambiguous `3/4` is two numbers.
    #[test]
    fn rates_ages_and_dates_read_as_written() {
        let values = |text: &str| profile(text).values;
        assert!(values("Parking costs $12/day").contains(&(ValueKind::Number, "12".to_owned())));
        assert!(
            values("Logs are deleted once 14 days old")
                .contains(&(ValueKind::Number, "1209600s".to_owned()))
        );
        assert!(values("Noah is 9 years old").contains(&(ValueKind::Number, "9".to_owned())));
        assert!(values("会议在 6 月 3 日").contains(&(ValueKind::Month, "6".to_owned())));
        let ambiguous = values("Mix 3/4 of the flour");
        assert!(ambiguous.contains(&(ValueKind::Number, "3".to_owned())));
        assert!(ambiguous.contains(&(ValueKind::Number, "4".to_owned())));
        assert!(values("Due 15/4").contains(&(ValueKind::Month, "4".to_owned())));
    }

    /// Verbs and markers of change beyond the past forms: "went up",
    /// "bumped", `调成`, `涨到`; a time relative to now names no subject.
    #[test]
    fn changes_said_other_ways_are_changes() {
        for text in [
            "The gym fee went up to $60",
            "Bumped the pool size to 16",
            "副本数调成 6 了",
            "房租涨到 5000 元",
        ] {
            assert!(profile(text).change.is_some(), "{text}");
        }
        assert_eq!(
            profile("Ana moved to Oslo last month").terms,
            ["ana", "oslo"]
        );
    }

    /// A number after a plural counts ("jobs 3 times"); after a singular
    /// noun of a thing with numbers it names one ("job 3").
    #[test]
    fn a_number_after_a_plural_counts() {
        assert!(
            profile("Retry failed uploads 4 times")
                .values
                .contains(&(ValueKind::Number, "4".to_owned()))
        );
        assert!(
            profile("Retry failed jobs 4 times")
                .values
                .contains(&(ValueKind::Number, "4".to_owned()))
        );
        assert!(
            profile("Look at job 4417")
                .terms
                .contains(&"4417".to_owned())
        );
    }

    /// A clock time said in words is the time in digits ("half past
    /// nine", "ten past eight", "quarter to nine", "7 in the evening"),
    /// and a unit's letter after an amount a span (`300 s`); "5 to 9"
    /// stays two amounts.
    #[test]
    fn clock_times_in_words_and_unit_letters_are_values() {
        let values = |text: &str| profile(text).values;
        let time = |t: &str| (ValueKind::Number, t.to_owned());
        assert!(values("The bakery opens at half past six").contains(&time("06:30")));
        assert!(values("Pickup is at twenty past three").contains(&time("03:20")));
        assert!(values("The ferry leaves at quarter to one").contains(&time("12:45")));
        assert!(values("Dinner is at 8 in the evening").contains(&time("20:00")));
        assert!(values("The alarm rings at 6 in the morning").contains(&time("06:00")));
        assert!(values("Polls every 90 s").contains(&time("90s")));
        let amounts = values("Groups of 5 to 9 people");
        assert!(amounts.contains(&time("5")) && amounts.contains(&time("9")));
    }

    /// A Chinese pronoun is a word of its own: it joins no bigram with the
    /// words beside it, and `我妈` is still `妈妈`.
    #[test]
    fn a_chinese_pronoun_joins_no_bigram() {
        let terms = profile("周六上午我儿子去上课").terms;
        assert!(terms.contains(&"儿子".to_owned()), "{terms:?}");
        assert!(
            !terms.iter().any(|t| t == "我儿" || t == "午我"),
            "{terms:?}"
        );
        assert!(profile("我妈住在杭州").terms.contains(&"妈妈".to_owned()));
    }

    /// A present verb of change before `to`, and "from now on" (`今后`),
    /// state a change; the verb alone does not ("the moves list").
    #[test]
    fn present_changes_and_from_now_on_are_changes() {
        for text in [
            "Yoga class moves to 7:30",
            "The default shell switches to zsh",
            "From now on, reviews need two approvals",
            "今后用英文回复",
        ] {
            assert!(profile(text).change.is_some(), "{text}");
        }
        assert!(
            profile("The chess club keeps a list of opening moves")
                .change
                .is_none()
        );
    }

    /// A year in two digits after an apostrophe, next to a month or
    /// opening a word, is the year in four; a foot mark's inches stay as
    /// written.
    #[test]
    fn a_short_year_after_a_month_is_the_full_year() {
        let values = profile("The lease starts Oct '26").values;
        assert!(
            values.contains(&(ValueKind::Number, "2026".to_owned())),
            "{values:?}"
        );
        assert!(
            profile("Rock 'n' roll since '99")
                .values
                .contains(&(ValueKind::Number, "1999".to_owned()))
        );
        let height = profile("He is 5'11 tall");
        assert!(
            height
                .values
                .contains(&(ValueKind::Number, "11".to_owned())),
            "{height:?}"
        );
    }
}

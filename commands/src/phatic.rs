//! Phatic talk: what a conversation says to keep itself going (greetings,
//! thanks, acknowledgements, asking to wait, thinking aloud, asking the
//! other's opinion, farewells) and nothing to remember.
//!
//! [`is_phatic`] holds when every word of a text is conversational: an
//! English word of `PHATIC_WORDS` or a run of Chinese covered by
//! `PHATIC_PHRASES`. A text with a digit, or any word outside the
//! lexicons, says something ("The user says good morning in Portuguese",
//! "Let me check the logs on Friday"), and is no filler. Pure; a fixed
//! lexicon, no model.

/// English words that carry no fact in conversation: greetings, thanks,
/// acknowledgements, hedges, waiting, thinking aloud, asking an opinion,
/// farewells, and the pronouns, articles and light verbs they are said
/// with. A word of a fact ("user", "uses", "vim", a name) is not here.
const PHATIC_WORDS: &[&str] = &[
    // Greetings and times of day said in them.
    "hi",
    "hello",
    "hey",
    "heya",
    "hiya",
    "howdy",
    "greetings",
    "yo",
    "good",
    "morning",
    "afternoon",
    "evening",
    "night",
    "day",
    "weekend",
    "welcome",
    "back",
    // Thanks and praise.
    "thanks",
    "thank",
    "thx",
    "ty",
    "cheers",
    "appreciate",
    "appreciated",
    "grateful",
    "great",
    "perfect",
    "awesome",
    "excellent",
    "wonderful",
    "amazing",
    "fantastic",
    "brilliant",
    "cool",
    "nice",
    "lovely",
    "neat",
    "sweet",
    "helpful",
    "help",
    "helps",
    "helped",
    "kind",
    // Acknowledgements and agreement.
    "ok",
    "okay",
    "k",
    "kk",
    "alright",
    "right",
    "sure",
    "yes",
    "yeah",
    "yep",
    "yup",
    "no",
    "nope",
    "nah",
    "fine",
    "noted",
    "understood",
    "understand",
    "gotcha",
    "got",
    "get",
    "it",
    "makes",
    "make",
    "sense",
    "agreed",
    "agree",
    "exactly",
    "indeed",
    "true",
    "correct",
    "absolutely",
    "definitely",
    "certainly",
    "of",
    "course",
    "sounds",
    "sound",
    "works",
    "work",
    "done",
    "deal",
    "fair",
    "enough",
    "problem",
    "problems",
    "worries",
    "bet",
    "roger",
    "copy",
    "that",
    "that's",
    "thats",
    "this",
    "will",
    "do",
    "can",
    "could",
    "would",
    "should",
    "sorry",
    "excuse",
    "pardon",
    "oops",
    "np",
    // Reactions and feelings said of the moment, with nothing to keep:
    // "meh, weird", "wow, I'm exhausted", "never expected that", "you're
    // a lifesaver".
    "ugh",
    "argh",
    "aww",
    "aw",
    "meh",
    "yay",
    "phew",
    "whoa",
    "geez",
    "jeez",
    "omg",
    "hehe",
    "heh",
    "rofl",
    "damn",
    "funny",
    "hilarious",
    "tired",
    "exhausted",
    "stressed",
    "crazy",
    "wild",
    "weird",
    "honestly",
    "seriously",
    "literally",
    "know",
    "knew",
    "expect",
    "expected",
    "not",
    "didn't",
    "didnt",
    "never",
    "mind",
    "you're",
    "youre",
    "it's",
    "lifesaver",
    // Going on with the conversation: "go ahead", "let's move on".
    "go",
    "ahead",
    "continue",
    "proceed",
    "carry",
    "move",
    // Waiting, checking, thinking aloud.
    "wait",
    "moment",
    "sec",
    "second",
    "minute",
    "hold",
    "on",
    "hang",
    "let",
    "let's",
    "lets",
    "me",
    "check",
    "checking",
    "see",
    "look",
    "looking",
    "think",
    "thinking",
    "about",
    "over",
    "hmm",
    "hm",
    "hmmm",
    "um",
    "umm",
    "uh",
    "er",
    "erm",
    "ah",
    "oh",
    "ooh",
    "wow",
    "well",
    "so",
    "anyway",
    "interesting",
    "really",
    "huh",
    "haha",
    "hahaha",
    "lol",
    "lmao",
    "ha",
    "just",
    "quick",
    "give",
    "gimme",
    "bit",
    "little",
    "while",
    "sec.",
    "again",
    "say",
    "repeat",
    "come",
    "get",
    "back",
    "to",
    "later",
    "soon",
    // Asking the other's opinion.
    "what",
    "you",
    "your",
    "think",
    "do",
    "how",
    "about",
    "does",
    "opinion",
    "thoughts",
    "any",
    "ideas",
    "idea",
    "is",
    "are",
    "was",
    "be",
    "am",
    "i",
    "i'm",
    "im",
    "i'll",
    "ill",
    "we",
    "we'll",
    "us",
    "for",
    "the",
    "a",
    "an",
    "and",
    "or",
    "but",
    "all",
    "very",
    "much",
    "so",
    "lot",
    "lots",
    "ton",
    "tons",
    "too",
    "as",
    "always",
    "again",
    "now",
    "then",
    "here",
    "there",
    // Farewells.
    "bye",
    "goodbye",
    "byebye",
    "bye-bye",
    "farewell",
    "talk",
    "catch",
    "take",
    "care",
    "have",
    "having",
    "enjoy",
    "rest",
    "tomorrow",
    "tonight",
    "today",
    "fun",
    "till",
    "until",
    "next",
    "time",
    "meet",
    "later",
    "cya",
    "ttyl",
    "gn",
    "gm",
];

/// Chinese phrases that carry no fact in conversation, longest first
/// where one begins another (`好的好的` before `好的` before `好`).
const PHATIC_PHRASES: &[&str] = &[
    // Greetings.
    "早上好",
    "早安",
    "上午好",
    "中午好",
    "下午好",
    "晚上好",
    "晚安",
    "你好",
    "您好",
    "大家好",
    "哈喽",
    "嗨",
    "在吗",
    "在么",
    "周末愉快",
    "节日快乐",
    "新年快乐",
    "玩得开心",
    // Thanks.
    "非常感谢",
    "谢谢你",
    "谢谢您",
    "谢谢",
    "多谢",
    "感谢",
    "辛苦了",
    "辛苦",
    "麻烦了",
    "麻烦你了",
    "不客气",
    "不用谢",
    "客气了",
    // Sighs and feelings of the moment.
    "唉",
    "哎呀",
    "哎",
    "天哪",
    "天啊",
    "好累",
    "太累了",
    "累死了",
    "压力好大",
    "压力太大了",
    "好烦",
    "无语",
    "真的假的",
    // Acknowledgements and agreement.
    "好的",
    "好滴",
    "好嘞",
    "好吧",
    "好啊",
    "好呀",
    "行吧",
    "行",
    "可以",
    "没问题",
    "没事",
    "没关系",
    "知道了",
    "知道",
    "明白了",
    "明白",
    "了解",
    "懂了",
    "收到",
    "嗯嗯",
    "嗯",
    "哦哦",
    "哦",
    "噢",
    "喔",
    "啊",
    "呃",
    "额",
    "对的",
    "对",
    "是的",
    "是",
    "没错",
    "当然",
    "确实",
    "好",
    "太好了",
    "太棒了",
    "很好",
    "不错",
    "棒",
    "完美",
    "厉害",
    "搞定了",
    "搞定",
    "完成了",
    "哈哈哈",
    "哈哈",
    "嘿嘿",
    "呵呵",
    "真的吗",
    "真的",
    "原来如此",
    "这样啊",
    "这样",
    // Waiting and thinking aloud.
    "稍等一下",
    "稍等",
    "等一下",
    "等一等",
    "等等",
    "等会",
    "一下",
    "让我想想",
    "我想想",
    "再想想",
    "再说吧",
    "再说",
    "再聊",
    "明天再聊",
    "改天",
    "算了",
    "不说了",
    "想一想",
    "想想",
    "我看看",
    "看看",
    "我查一下",
    "查一下",
    "我确认一下",
    "确认一下",
    "马上",
    // Asking the other's opinion.
    "你觉得呢",
    "你觉得怎么样",
    "你觉得",
    "你看呢",
    "你看",
    "怎么样",
    "如何",
    "呢",
    "吧",
    "吗",
    "啦",
    "呀",
    "哈",
    "了",
    "我",
    "你",
    "您",
    // Farewells.
    "再见",
    "拜拜",
    "回头见",
    "明天见",
    "下次见",
    "回聊",
    "回头聊",
    "先这样",
    "就这样",
];

/// Whether every word of `text` is conversational (see the module
/// documentation): no digit, no word outside the lexicons, and at least
/// one word.
#[must_use]
pub fn is_phatic(text: &str) -> bool {
    if text.chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    let mut words = 0_usize;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c.is_ascii_alphabetic() {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '\'' || c == '’' || c == '-'))
                .unwrap_or(rest.len());
            let word = rest[..end]
                .trim_end_matches(['\'', '’', '-'])
                .replace('’', "'")
                .to_lowercase();
            if !PHATIC_WORDS.contains(&word.as_str()) {
                return false;
            }
            words += 1;
            rest = &rest[end..];
        } else if c.is_alphabetic() {
            let Some(phrase) = PHATIC_PHRASES.iter().find(|p| rest.starts_with(**p)) else {
                return false;
            };
            words += 1;
            rest = &rest[phrase.len()..];
        } else {
            rest = &rest[c.len_utf8()..];
        }
    }
    words > 0
}

/// English words that say how something feels or strikes the speaker
/// now, not what is so: tiredness, hunger, moods, and the praise or
/// complaint of a reaction ("so tired", "the worst", "going to be
/// amazing"). With a mark of a reaction around them (see [`is_reaction`])
/// they make a text a reaction.
const FEELING_WORDS: &[&str] = &[
    "tired",
    "exhausted",
    "sleepy",
    "hungry",
    "starving",
    "thirsty",
    "bored",
    "stressed",
    "nervous",
    "anxious",
    "worried",
    "scared",
    "excited",
    "sad",
    "happy",
    "glad",
    "upset",
    "annoyed",
    "annoying",
    "frustrated",
    "frustrating",
    "overwhelmed",
    "sick",
    "sore",
    "cold",
    "hot",
    "amazing",
    "awesome",
    "great",
    "fun",
    "funny",
    "cute",
    "lovely",
    "terrible",
    "awful",
    "horrible",
    "worst",
    "best",
    "crazy",
    "insane",
    "wild",
    "expensive",
    "pricey",
    "cheap",
    "hard",
    "tough",
    "rough",
    "boring",
    "exciting",
    "delicious",
    "yummy",
    "tasty",
    "poor",
    "lucky",
    "luck",
    "proud",
    "jealous",
    "miss",
    "nice",
    "beautiful",
    "busy",
    "long",
    "late",
    "early",
    "weird",
    "strange",
    "painful",
    "hurt",
    "hurts",
    "ugh",
];

/// Whether `word` (a text's word, lower case) names a feeling of the
/// moment ("tired", "hungry", "busy"; see [`FEELING_WORDS`]).
#[must_use]
pub fn is_feeling_word(word: &str) -> bool {
    FEELING_WORDS.contains(&word)
}

/// Words by which a text speaks of the speaker or the speaker's people.
const SPEAKER_WORDS: &[&str] = &[
    "i", "i'm", "im", "i've", "i'd", "me", "my", "we", "we're", "we've", "us", "our",
];

/// Possessives: a feeling word after one names a thing of someone's ("my
/// best friend", "our busy season"), not how someone is. ("The worst" is
/// a judgement: "meetings are the worst".)
const POSSESSIVES: &[&str] = &["my", "our", "your", "his", "her", "their", "its"];

/// Whether the word at `at` of `words` follows a possessive ([`POSSESSIVES`]).
fn after_possessive(words: &[&str], at: usize) -> bool {
    at.checked_sub(1)
        .and_then(|before| words.get(before))
        .is_some_and(|before| POSSESSIVES.contains(before))
}

/// Intensifiers, which mark a reaction before a feeling ("so tired",
/// "really expensive").
const INTENSIFIERS: &[&str] = &["so", "such", "really", "too", "very", "super"];

/// Laughter, interjections, wishes and thanks: a reaction by themselves
/// ("wish me luck haha", "thanks for remembering that").
const EXPRESSIONS: &[&str] = &[
    "lol",
    "lmao",
    "haha",
    "hahaha",
    "hehe",
    "omg",
    "ugh",
    "oh",
    "wow",
    "yay",
    "aww",
    "sigh",
    "wish",
    "hope",
    "hopefully",
    "thanks",
    "thank",
    "fingers",
    "crossed",
    "congrats",
    "cheers",
    "mmm",
    "meh",
    "yikes",
    "phew",
    "whew",
    "ooh",
    "jeez",
    "damn",
    "dang",
];

/// Words a reaction is said with that name nothing: pronouns, light verbs,
/// times of the moment ("today", "right now").
const REACTION_LIGHT_WORDS: &[&str] = &[
    "i",
    "i'm",
    "im",
    "me",
    "my",
    "we",
    "we're",
    "you",
    "it",
    "it's",
    "its",
    "this",
    "that",
    "is",
    "are",
    "was",
    "be",
    "been",
    "being",
    "am",
    "going",
    "gonna",
    "to",
    "the",
    "a",
    "an",
    "of",
    "for",
    "and",
    "but",
    "no",
    "not",
    "here",
    "there",
    "today",
    "tonight",
    "now",
    "right",
    "again",
    "all",
    "day",
    "week",
    "feel",
    "feeling",
    "felt",
    "getting",
    "got",
    "should",
    "will",
    "would",
    "could",
    "see",
    "just",
    "what",
    "how",
    "remembering",
    "reminding",
    "remind",
    "poor",
    "man",
    "dude",
    "pretty",
    "kinda",
    "bit",
    "little",
    "these",
    "days",
];

/// Chinese marks of a reaction: intensifiers before a feeling, sentence
/// particles of feeling, laughter, wishes and thanks.
const REACTION_MARKS_ZH: &[&str] = &[
    "好累",
    "好饿",
    "好困",
    "好烦",
    "好大",
    "好贵",
    "好难",
    "好开心",
    "好棒",
    "真香",
    "真累",
    "真棒",
    "真好",
    "真烦",
    "真贵",
    "太累",
    "太贵",
    "太难",
    "太好了",
    "太棒了",
    "太烦",
    "累死",
    "饿死",
    "困死",
    "烦死",
    "哈哈",
    "呵呵",
    "嘿嘿",
    "希望",
    "祝",
    "快乐",
    "谢谢",
    "多谢",
    "感谢",
    "加油",
    "辛苦了",
    "羡慕",
    "心疼",
    "可怜",
    "无语",
    "崩溃",
    "郁闷",
    "心累",
    "气死",
    "热死",
    "冷死",
    "忙死",
    "笑死",
    "吵死",
    "好热",
    "好冷",
    "太热",
    "太冷",
    "期待",
    "费劲",
    "有点难",
];

/// Whether `text` is a reaction: how the moment feels, with nothing to keep
/// ("so hungry right now", "ugh, allergies are the worst", "thanks for
/// remembering that!", `今天的瑜伽课好累`, `春节快乐！`). A mark of a
/// reaction (an intensifier, laughter, an interjection, a wish, thanks, or
/// an exclamation mark), no digit, at most [`REACTION_CONTENT_MAX`] words
/// that are neither feelings nor light words (English), or a Chinese mark
/// of feeling in a text of at most [`REACTION_CJK_MAX`] characters. A
/// liking said with nothing else ("I love sushi!") states a preference
/// and is kept by the caller, which asks this only of a text that states
/// no value, change or liking. Of the speaker or theirs, laughter is the
/// tone of a fact ("I'm allergic to shellfish lol" is kept).
#[must_use]
pub fn is_reaction(text: &str) -> bool {
    // A reaction is short: a text of many words says more.
    // A digit, or a secret redacted out of it (`电话[REDACTED:phone]，谢谢`),
    // is something specific: no reaction.
    if text.len() > REACTION_BYTES_MAX
        || text.chars().any(|c| c.is_ascii_digit())
        || text.contains("[REDACTED")
    {
        return false;
    }
    let cjk = text
        .chars()
        .filter(|c| engram_text::script::is_cjk(*c))
        .count();
    if cjk > 0 {
        // A Latin name or word in a Chinese text ("Code review 要求…") says
        // what it is about.
        if text.chars().any(|c| c.is_ascii_alphanumeric()) {
            return false;
        }
        let marked = REACTION_MARKS_ZH.iter().any(|m| text.contains(m))
            || judged_by_degree_zh(text)
            || text
                .trim_end_matches(['。', '！', '!', '…', '~', '～'])
                .ends_with('烦');
        // A mark in a short exclamation, or in a remark on the moment
        // (`又`, `今天`) that names no habit (`每天`, `总是`).
        let of_the_moment = MOMENT_MARKS_ZH.iter().any(|m| text.contains(m))
            && !HABIT_MARKS_ZH.iter().any(|m| text.contains(m));
        return marked
            && (cjk <= REACTION_CJK_MAX || (of_the_moment && cjk <= PASSING_REMARK_CJK_MAX));
    }
    let lower = text.to_lowercase().replace('’', "'");
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\''))
        .filter(|w| !w.is_empty())
        .collect();
    let expresses = |w: &&str| EXPRESSIONS.contains(w);
    let marked = text.contains('!')
        || words
            .iter()
            .any(|w| INTENSIFIERS.contains(w) || expresses(w));
    // Of the speaker or theirs ("I'm allergic to shellfish lol", "my
    // best friend is Sam haha"), laughter or an interjection is the tone
    // of a fact, and a feeling word names the moment only as what they
    // are ("I'm so tired", "we're lucky"), not as a word of a thing
    // ("my best friend").
    let of_the_speaker = words.iter().any(|w| SPEAKER_WORDS.contains(w));
    let feels = if of_the_speaker {
        words.iter().enumerate().any(|(at, w)| {
            FEELING_WORDS.contains(w) && !expresses(w) && !after_possessive(&words, at)
        })
    } else {
        words
            .iter()
            .any(|w| FEELING_WORDS.contains(w) || expresses(w))
    };
    let other = words
        .iter()
        .filter(|w| {
            !FEELING_WORDS.contains(w)
                && !INTENSIFIERS.contains(w)
                && !expresses(w)
                && !REACTION_LIGHT_WORDS.contains(w)
                && !PHATIC_WORDS.contains(w)
        })
        .count();
    // A habit ("always", "every") is worth keeping, however it is said.
    if words.iter().any(|w| HABIT_WORDS.contains(w)) {
        return false;
    }
    (marked && feels && other <= REACTION_CONTENT_MAX) || is_passing_remark(&lower, &words, text)
}

/// Whether an English text (lowercased, and its words) is a remark on the
/// moment: two of a time of the moment ("again", "today"), a tone of
/// voice (laughter, an interjection, thanks, an exclamation mark) and a
/// judgement of how it strikes the speaker ("tedious", "the worst"), as
/// in "standup ran long again, so tedious" or "Luna is asleep on my
/// keyboard again lol"; or a hardship or a greeting passed on by itself
/// ("grad school is exhausting", "Elena says hi!"). Such a remark may
/// name what it is about in up to [`PASSING_REMARK_WORDS_MAX`] words. A
/// lasting event ("passed", "married") or a choice or want ("rather",
/// "need") is something to keep however it is said, as is a habit (see
/// [`is_reaction`]).
fn is_passing_remark(lower: &str, words: &[&str], text: &str) -> bool {
    if words.len() > PASSING_REMARK_WORDS_MAX
        || words
            .iter()
            .any(|w| LASTING_EVENT_WORDS.contains(w) || WANT_WORDS.contains(w))
    {
        return false;
    }
    let of_the_moment = words.iter().any(|w| MOMENT_WORDS.contains(w))
        || MOMENT_PHRASES.iter().any(|p| contains_phrase(lower, p));
    let toned = text.contains('!') || words.iter().any(|w| EXPRESSIONS.contains(w));
    // A word counts once: "ugh" is a tone, not a judgement too; after a
    // possessive it names a thing ("my best friend is Sam lol").
    let judged = words.iter().enumerate().any(|(at, w)| {
        (FEELING_WORDS.contains(w) || JUDGEMENT_WORDS.contains(w) || HARDSHIP_WORDS.contains(w))
            && !EXPRESSIONS.contains(w)
            && !after_possessive(words, at)
    });
    // A hardship ("grad school is exhausting") or a greeting passed on
    // ("Elena says hi!") is a remark by itself.
    let hardship = words.iter().any(|w| HARDSHIP_WORDS.contains(w));
    let greeting_passed_on = words.len() <= GREETING_PASSED_ON_WORDS_MAX
        && GREETINGS_PASSED_ON
            .iter()
            .any(|p| contains_phrase(lower, p));
    hardship
        || greeting_passed_on
        || is_generic_judgement(words, text)
        || usize::from(of_the_moment) + usize::from(toned) + usize::from(judged) >= 2
}

/// Whether an English text (its lowercased words) only judges a thing in
/// general ("budgeting is hard", "music is life", "meetings are so
/// boring lol"): a short subject of common words, a copula, intensifiers
/// and a word of judgement, with nothing of the speaker, a person or a
/// named thing in it. "I find budgeting hard" or "Kubernetes is overkill
/// for us" says something of someone and is kept.
fn is_generic_judgement(words: &[&str], text: &str) -> bool {
    if words.len() > GENERIC_JUDGEMENT_WORDS_MAX
        || words.iter().any(|w| SOMEONE_WORDS.contains(w))
        // A capital past the first letter names something.
        || text
            .trim_start()
            .chars()
            .skip(1)
            .any(char::is_uppercase)
    {
        return false;
    }
    let Some(copula) = words
        .iter()
        .take(GENERIC_SUBJECT_WORDS_MAX + 1)
        .position(|w| ["is", "are"].contains(w))
    else {
        return false;
    };
    if copula == 0 {
        return false;
    }
    let mut predicate = words[copula + 1..]
        .iter()
        .filter(|w| !INTENSIFIERS.contains(w) && !EXPRESSIONS.contains(w))
        .filter(|w| !["a", "an", "the", "just", "kinda", "pretty"].contains(w));
    predicate
        .next()
        .is_some_and(|w| GENERIC_JUDGEMENTS.contains(w))
        && predicate.next().is_none()
        // A tool, person or place judged ("Rust is hard", "Kubernetes is
        // overkill") is an opinion of something named, kept.
        && engram_text::entities::extract(text).is_empty()
}

/// Words past which a text is more than a judgement in general.
const GENERIC_JUDGEMENT_WORDS_MAX: usize = 7;

/// Words a subject judged in general may have ("budgeting", "group
/// chats").
const GENERIC_SUBJECT_WORDS_MAX: usize = 2;

/// Words of someone: a judgement said of them, or by them of themselves,
/// is kept.
const SOMEONE_WORDS: &[&str] = &[
    "i", "i'm", "me", "my", "we", "we're", "our", "us", "you", "your", "he", "she", "his", "her",
    "they", "their", "user", "user's",
];

/// Words that judge a thing in general, not what it is.
const GENERIC_JUDGEMENTS: &[&str] = &[
    "hard",
    "tough",
    "difficult",
    "easy",
    "fun",
    "boring",
    "annoying",
    "confusing",
    "overrated",
    "underrated",
    "weird",
    "wild",
    "crazy",
    "insane",
    "awful",
    "terrible",
    "life",
    "everything",
    "overkill",
];

/// Whether a Chinese text judges with a degree adverb before a word of
/// judgement (`开会好无聊`, `这题也太难了`, `瑜伽真的很难坚持`): how a
/// thing strikes the speaker, not what it is. [`is_reaction`] asks it of
/// short texts with no digit or Latin word only. Said of someone
/// (`用户觉得数学很难`, `女儿觉得钢琴课挺无聊`) it is something of them, kept.
fn judged_by_degree_zh(text: &str) -> bool {
    if SOMEONE_MARKS_ZH.iter().any(|m| text.contains(m)) {
        return false;
    }
    DEGREE_ADVERBS_ZH.iter().any(|degree| {
        text.match_indices(degree).any(|(at, _)| {
            let after = &text[at + degree.len()..];
            // `难过` is sadness, said of what happened.
            JUDGEMENTS_ZH.iter().any(|j| after.starts_with(j)) && !after.starts_with("难过")
        })
    })
}

/// Chinese marks of someone a judgement may be said of.
const SOMEONE_MARKS_ZH: &[&str] = &["用户", "我", "你", "他", "她", "孩子", "女儿", "儿子"];

/// Chinese degree adverbs that open a judgement.
const DEGREE_ADVERBS_ZH: &[&str] = &["好", "太", "真", "挺", "超", "很", "真的很", "真的好"];

/// Chinese words of judgement after a degree adverb: how a thing strikes
/// the speaker.
const JUDGEMENTS_ZH: &[&str] = &[
    "无聊",
    "难",
    "累",
    "烦",
    "贵",
    "麻烦",
    "辛苦",
    "郁闷",
    "头疼",
    "尴尬",
    "好玩",
    "有意思",
];

/// English words of a hardship of the moment: how something wears on the
/// speaker, never what they like or what is so.
const HARDSHIP_WORDS: &[&str] = &[
    "tedious",
    "brutal",
    "exhausting",
    "draining",
    "grueling",
    "gruelling",
    "chaos",
    "chaotic",
    "unbearable",
    "miserable",
    "hectic",
    "nightmare",
    "disaster",
    "slammed",
    "swamped",
];

/// English words of a choice or a want: "standups are tedious, I'd
/// rather do async updates" says what to do.
const WANT_WORDS: &[&str] = &[
    "rather", "prefer", "prefers", "instead", "want", "wants", "should", "need", "needs",
];

/// A greeting passed on from someone ("Elena says hi!").
const GREETINGS_PASSED_ON: &[&str] = &[
    "says hi",
    "says hello",
    "said hi",
    "said hello",
    "sends her love",
    "sends his love",
    "sends their love",
    "sends love",
    "sends regards",
    "sends her regards",
    "sends his regards",
];

/// Words past which a text says more than a greeting passed on.
const GREETING_PASSED_ON_WORDS_MAX: usize = 6;

/// Whether `phrase` occurs in `lower` between word boundaries ("this
/// term", not "this terminal").
pub(crate) fn contains_phrase(lower: &str, phrase: &str) -> bool {
    lower.match_indices(phrase).any(|(at, _)| {
        let before = lower[..at].chars().next_back();
        let after = lower[at + phrase.len()..].chars().next();
        before.is_none_or(|c| !c.is_alphanumeric()) && after.is_none_or(|c| !c.is_alphanumeric())
    })
}

/// Whether `text` only asks the assistant for a task ("Write me a haiku
/// about Mondays", "Please rewrite that paragraph more formally",
/// "Interesting, tell me more.", `帮我翻译一下这句话`): a verb of a task
/// opens it, after a courtesy ("please", "could you", `请`) or a word of
/// talk ("Interesting,"). Nothing in it is the user's to keep, unless it
/// asks to remember ("remember", `记住`), sets a standing rule ("always",
/// "from now on", `以后`), names the user's own things ("my", `我的`) or
/// says something of the user ("I don't want ...").
#[must_use]
pub fn is_task_request(text: &str) -> bool {
    let lower = text.trim().to_lowercase().replace('’', "'");
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    if words.len() > TASK_REQUEST_WORDS_MAX
        || words.iter().any(|w| KEEPING_WORDS.contains(w))
        || KEEPING_MARKS_ZH.iter().any(|m| lower.contains(m))
    {
        return false;
    }
    // What opens the request: past a word of talk before a comma
    // ("Interesting, tell me more"), past courtesies.
    let opening = match lower.split_once([',', '，']) {
        Some((talk, rest)) if is_phatic(talk) => rest.trim(),
        _ => lower.as_str(),
    };
    let mut rest = opening;
    loop {
        let trimmed = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        // An English courtesy ends at a word's end; a Chinese one runs on
        // into the request (`请帮我`).
        match COURTESIES.iter().find(|c| {
            trimmed
                .strip_prefix(**c)
                .is_some_and(|after| !c.is_ascii() || !after.starts_with(char::is_alphanumeric))
        }) {
            Some(courtesy) => rest = &trimmed[courtesy.len()..],
            None => {
                rest = trimmed;
                break;
            }
        }
    }
    if rest.chars().next().is_some_and(engram_text::script::is_cjk) {
        let after_the_thing = DEMONSTRATIVES_ZH.iter().any(|d| rest.starts_with(d))
            && ASKS_ZH.iter().any(|a| rest.contains(a));
        return after_the_thing || TASK_OPENINGS_ZH.iter().any(|t| rest.starts_with(t));
    }
    let mut words = rest
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty());
    match words.next() {
        Some(first) if TASK_VERBS.contains(&first) => true,
        Some(first) if TASK_VERBS_WITH_AN_OBJECT.contains(&first) => words
            .next()
            .is_some_and(|next| TASK_OBJECTS.contains(&next)),
        _ => false,
    }
}

/// Words past which a text is more than a request for a task.
const TASK_REQUEST_WORDS_MAX: usize = 15;

/// Courtesies before a request ("please", "could you", `请`, `麻烦`).
const COURTESIES: &[&str] = &[
    "please",
    "pls",
    "plz",
    "can you",
    "could you",
    "would you",
    "will you",
    "can u",
    "hey",
    "ok",
    "okay",
    "now",
    "just",
    "请",
    "麻烦你",
    "麻烦",
    "能不能",
    "可以",
    "你",
];

/// English verbs that open a request for a task. Not "remind": "remind
/// me to call mom on Sunday" asks the assistant to keep something.
const TASK_VERBS: &[&str] = &[
    "write",
    "rewrite",
    "translate",
    "summarize",
    "summarise",
    "draft",
    "explain",
    "tell",
    "show",
    "give",
    "help",
    "list",
    "generate",
    "compose",
    "edit",
    "proofread",
    "convert",
    "format",
    "outline",
    "brainstorm",
    "describe",
    "compare",
    "reword",
    "rephrase",
    "shorten",
    "polish",
];

/// English verbs of a task that are also nouns ("search results are
/// cached", "review meetings are on Fridays"): a request only when what
/// follows is the thing in front of the two or a question word ("please
/// refactor this component", "look at why the build fails").
const TASK_VERBS_WITH_AN_OBJECT: &[&str] = &[
    // Work on code or a document in front of the two of them.
    "refactor",
    "fix",
    "debug",
    "review",
    "implement",
    "optimize",
    "optimise",
    "simplify",
    "rename",
    "check",
    "look",
    // Finding and suggesting, for the moment.
    "recommend",
    "suggest",
    "find",
    "search",
];

/// Words after such a verb that make it a request: a thing of the moment,
/// a preposition of looking, a question word, someone to do it for.
const TASK_OBJECTS: &[&str] = &[
    "this", "that", "these", "those", "it", "the", "a", "an", "some", "me", "us", "at", "into",
    "over", "why", "what", "how", "where", "whether", "if",
];

/// Chinese openings of a request for a task.
const TASK_OPENINGS_ZH: &[&str] = &[
    "帮我",
    "给我写",
    "给我讲",
    "翻译",
    "总结",
    "解释",
    "改写",
    "润色",
    "写一",
    "列一",
    // "推荐几本书", not "推荐系统".
    "推荐一",
    "推荐几",
    "推荐个",
    "推荐些",
    "推荐下",
    "查一下",
    "看一下",
    "检查一下",
    "修一下",
    "优化一下",
    "重构一下",
    "找一下",
];

/// Chinese demonstratives that open a request about what is in front of
/// the two (`这个工单帮我看一下`, `这段代码帮我改改`): the thing of the
/// moment first, then the ask.
const DEMONSTRATIVES_ZH: &[&str] = &["这个", "这段", "这篇", "这几", "这些", "那个", "这份"];

/// Chinese asks that follow a thing of the moment.
const ASKS_ZH: &[&str] = &["帮我", "帮忙", "麻烦"];

/// English words of a request that keeps something: to remember, a
/// standing rule, the user's own things, or the user speaking of
/// themselves ("Give me bulleted summaries; I don't want blocks of
/// prose" says how they like answers).
const KEEPING_WORDS: &[&str] = &[
    "remember", "note", "save", "always", "never", "whenever", "every", "default", "future",
    "forward", "my", "our", "mine", "ours", "i", "i'd", "i'm", "we", "we're", "want", "prefer",
];

/// Chinese marks of a request that keeps something.
const KEEPING_MARKS_ZH: &[&str] = &[
    "记住",
    "记一下",
    "记下",
    "以后",
    "每次",
    "总是",
    "一直",
    "我的",
    "我们的",
];

/// Words past which a text says too much to be a remark on the moment.
const PASSING_REMARK_WORDS_MAX: usize = 12;

/// Characters a Chinese remark on the moment may have (`咪咪又把沙发抓坏了，
/// 气死我了`): more than an exclamation, as it tells what happened.
const PASSING_REMARK_CJK_MAX: usize = 16;

/// English words that put a remark in the moment it is said.
const MOMENT_WORDS: &[&str] = &["again", "today", "tonight", "yesterday", "rn"];

/// English phrases that put a remark in the moment it is said.
const MOMENT_PHRASES: &[&str] = &[
    "this morning",
    "this afternoon",
    "this evening",
    "right now",
    "just now",
];

/// English words of judgement beside [`FEELING_WORDS`] and
/// [`HARDSHIP_WORDS`]: how something strikes the speaker, not what it is.
const JUDGEMENT_WORDS: &[&str] = &[
    "gross",
    "disgusting",
    "stressful",
    "mess",
    "hilarious",
    "awkward",
    "embarrassing",
    "relaxing",
    "gorgeous",
    "adorable",
    "fantastic",
    "incredible",
    "sucks",
    "freezing",
    "boiling",
    "soaked",
];

/// English words of a habit: what is so every time is worth keeping.
const HABIT_WORDS: &[&str] = &[
    "always",
    "usually",
    "every",
    "never",
    "each",
    "often",
    "normally",
    "typically",
    "generally",
    "daily",
    "weekly",
];

/// English words of an event whose outcome lasts: worth keeping however
/// it is cheered ("passed the exam yesterday!!").
const LASTING_EVENT_WORDS: &[&str] = &[
    "passed",
    "graduated",
    "married",
    "engaged",
    "divorced",
    "hired",
    "promoted",
    "adopted",
    "accepted",
    "retired",
    "diagnosed",
    "bought",
    "joined",
    "started",
    "finished",
    "signed",
    "born",
];

/// Chinese marks that put a remark in the moment it is said.
const MOMENT_MARKS_ZH: &[&str] = &["又", "今天", "今晚", "刚才", "刚刚", "昨天"];

/// Chinese marks of a habit.
const HABIT_MARKS_ZH: &[&str] = &["每天", "每周", "每月", "总是", "一直", "经常", "平时"];

/// Bytes past which a text is no reaction (twelve short words, or a
/// Chinese text of [`REACTION_CJK_MAX`] characters with room to spare).
const REACTION_BYTES_MAX: usize = 80;

/// Words of its own (not a feeling, mark or light word) a reaction may
/// name: what it is about ("rent is so expensive here", "Kyoto is going
/// to be amazing").
pub const REACTION_CONTENT_MAX: usize = 2;

/// Characters a Chinese reaction may have: a short exclamation
/// (`房贷压力好大啊`), not a sentence that also states something.
pub const REACTION_CJK_MAX: usize = 12;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversation_alone_is_phatic() {
        for text in [
            "Hey there, good evening!",
            "Thanks so much, that was really helpful.",
            "OK, got it.",
            "Makes sense to me.",
            "Hold on a sec...",
            "Hmm, let me see.",
            "What do you think?",
            "Alright, talk to you tomorrow. Bye!",
            "Enjoy your evening!",
            "嗯嗯，明白了",
            "麻烦你了，谢谢！",
            "等一下，我看看",
            "你看呢？",
            "好吧，回头见",
            "Ugh, I'm exhausted honestly.",
            "Haha, didn't expect that!",
            "Sure, go ahead and continue.",
            "唉，好累",
            "算了，再说吧",
            "啊？真的假的",
            "好嘞，回头聊",
            "Really appreciate all the help today, thanks.",
            "Should be fun, see you tomorrow then.",
            "改天再聊吧",
        ] {
            assert!(is_phatic(text), "{text}");
        }
    }

    #[test]
    fn a_judgement_in_general_is_a_remark() {
        for text in [
            "budgeting is hard",
            "music is life",
            "group chats are so annoying lol",
            "开会好无聊",
            "这题也太难了",
            "瑜伽真的很难坚持",
        ] {
            assert!(is_reaction(text), "{text}");
        }
        for text in [
            "I find budgeting hard",
            "Kubernetes is overkill for us",
            "Alice is hard to reach",
            "the staging database is Postgres",
            "budgeting is hard when rent is half the salary and the car needs fixing",
            "数学是他最喜欢的科目",
            "他很难过，奶奶去世了",
            "Rust is hard",
            "Kubernetes is overkill",
            "用户觉得数学很难",
            "女儿觉得钢琴课挺无聊",
        ] {
            assert!(!is_reaction(text), "{text}");
        }
    }

    #[test]
    fn a_task_asked_of_the_assistant_is_a_request() {
        for text in [
            "Summarize this thread in three lines.",
            "Could you draft a polite reply to the landlord?",
            "Cool, explain the second option again.",
            "pls translate this into Spanish",
            "请帮我润色一下这段话",
            "麻烦总结一下刚才的会议",
            "please refactor this component",
            "can you look at why the build fails",
            "recommend a good sci-fi novel",
            "推荐几部电影吧",
            "这段代码帮我改改",
            "那个报错帮忙查一下",
        ] {
            assert!(is_task_request(text), "{text}");
        }
        for text in [
            "Please remember that the deploy freeze starts Friday.",
            "Always explain code changes before showing the diff.",
            "Summarize my notes from the Lisbon trip.",
            "Give me short answers, I prefer bullet points.",
            "以后回复都用中文",
            "remind me to call mom on Sunday",
            "帮我记住：周五发版",
            "The summary is due Friday.",
            "Check the backups every Friday.",
            "Review PRs before noon, always.",
            "这个项目我们用 Go 写",
            "推荐系统的负责人是小王",
            "Search results are cached for 5 min.",
            "review meetings are on Fridays",
            "search-svc is a Rust codebase.",
        ] {
            assert!(!is_task_request(text), "{text}");
        }
    }

    #[test]
    fn a_fact_among_conversation_is_not_phatic() {
        for text in [
            "Uses vim.",
            "The user says good morning in Portuguese.",
            "Let me check the logs on Friday.",
            "Thanks, the deploy is done.",
            "Good morning at 9 works.",
            "Mornings are best for calls.",
            "用户早上好像不喝咖啡",
            "好的，周五发版",
            "I know the deploy broke.",
            "唉，服务器又挂了",
            "谢谢，端口是8080",
            "",
            "...",
        ] {
            assert!(!is_phatic(text), "{text}");
        }
    }
}

//! Room names a person would choose: the topic of a text, from its tags,
//! the entities it names, or its first topic word.
//!
//! In order:
//!
//! 1. the first tag (the caller said what the memory is about);
//! 2. the first project, tool or organisation the text names (`likes Go`
//!    files under `go`), unless a topic word comes before a tool known
//!    only by its shape or the word before it (`Rent is paid via Zelle`
//!    files under `rent`);
//! 3. the first topic word: an English content term that is not a
//!    function word, an adverb (`absolutely`, `quarterly`), a verb of
//!    [`VERBS`] (`teaches`, `decided`, `happens`) or by its shape or
//!    place (`They block`, `is saving`, `trying to cut`, `Order the`,
//!    `cut back`), an everyday adjective or its comparative, a measure
//!    (`four-day`), a number, a preposition, a time word, a value or an
//!    identifier, a name (`Marta is`), nor a family word while there is
//!    another; an adjective a person names by its noun is that noun
//!    (`allergic` -> `allergy`), a modifier that names no topic itself
//!    names the compound with its head (`pull requests` ->
//!    `pull-requests`), as does any noun before a head too vague alone
//!    (`code review` -> `code-review`); a plural is named as said, a
//!    countable thing a life holds many of by its plural (`flight` ->
//!    `flights`), an activity before its place is the topic (`climbing
//!    gym` -> `climbing`), the sentence's activity verb names it when it
//!    comes first (`I run 5k` -> `running`), and a colleague's name after
//!    their role names their room (`my coworker Dave` -> `dave`), as does
//!    a relative's as the subject of "is" (`Daughter Emma is 7` ->
//!    `emma`). For
//!    Chinese, the text is segmented into words (`jieba-rs`) and the
//!    first noun phrase that is not a modifier, a setting, a pronoun, a
//!    family member or a home names the room (`我老公每周六去游泳` -> `游泳`,
//!    `家里的路由器经常断网` -> `路由器`), its head alone when that names a topic
//!    itself (`美式咖啡` -> `咖啡`), its modifier when the head says what is
//!    wanted of it (`日语目标` -> `日语`); else a word of the text as written,
//!    cut at particles, markers, values and common verbs, never a bigram
//!    across two words: the object after the first verb (`用户喜欢喝绿茶` ->
//!    `绿茶`, `张伟负责支付系统` -> `支付系统`), else the first word;
//! 4. the first person or place named.
//!
//! So one topic is one room: every text about billing names `billing`,
//! and the palace files a name that is already a room in that room.

use engram_text::entities::Entity;

use crate::decide::Neighbour;
use crate::meaning::{Profile, is_salient, rewrite_cjk, stem};

pub use engram_projections::models::DEFAULT_CORRIDOR;
/// Similarity at which a neighbour is related enough that a new room
/// joins its corridor (below [`crate::decide::ROOM_MATCH_MIN`], where it
/// would join its room).
pub const CORRIDOR_MATCH_MIN: f64 = 0.15;
/// Cosine at which a neighbour is related enough that a new room joins
/// its corridor, when a model is configured.
pub const SEMANTIC_CORRIDOR_MIN: f32 = 0.5;

/// Corridors and the topic words (stemmed English, Chinese) that put a
/// room on them. A Chinese word matches a room or word containing it.
pub const CORRIDORS: &[(&str, &[&str])] = &[
    (
        "engineering",
        &[
            "deploy",
            "deployment",
            "release",
            "migration",
            "database",
            "db",
            "server",
            "service",
            "api",
            "port",
            "cluster",
            "backup",
            "outage",
            "oncall",
            "on-call",
            "incident",
            "test",
            "testing",
            "bug",
            "code",
            "repo",
            "repository",
            "git",
            "branch",
            "commit",
            "merge",
            "ci",
            "pipeline",
            "build",
            "kubernete",
            "kubernetes",
            "docker",
            "container",
            "infra",
            "infrastructure",
            "monitoring",
            "logging",
            "metric",
            "dashboard",
            "cache",
            "queue",
            "frontend",
            "backend",
            "endpoint",
            "latency",
            "gateway",
            "editor",
            "ide",
            "linter",
            "compiler",
            "script",
            "config",
            "vpn",
            "ssh",
            "terraform",
            "doc",
            "docs",
            "documentation",
            "wiki",
            "search",
            "billing",
            "payment",
            "tab",
            "space",
            "indentation",
            "makefile",
            "programming",
            "bucket",
            "index",
            "replica",
            "node",
            "cluster",
            "schema",
            "query",
            "mode",
            "app",
            "mobile",
            "network",
            "python",
            "rust",
            "go",
            "java",
            "typescript",
            "javascript",
            "react",
            "部署",
            "发布",
            "发版",
            "版本",
            "数据库",
            "集群",
            "服务",
            "系统",
            "网关",
            "端口",
            "代码",
            "评审",
            "测试",
            "前端",
            "后端",
            "开发",
            "接口",
            "服务器",
            "环境",
            "域名",
            "平台",
            "迁移",
            "备份",
            "监控",
            "日志",
            "缓存",
            "注释",
            "数据分析",
            "支付",
            "kafka",
            "redis",
            "postgres",
            "postgresql",
            "mysql",
            "sqlite",
            "mongodb",
            "nginx",
            "grpc",
            "graphql",
            "microservice",
            "balancer",
            "certificate",
            "tls",
            "ssl",
            "dns",
            "domain",
            "firewall",
            "auth",
            "authentication",
            "login",
            "sso",
            "oauth",
            "webhook",
            "cron",
            "worker",
            "cpu",
            "disk",
            "storage",
            "aws",
            "gcp",
            "azure",
            "cloud",
            "library",
            "package",
            "dependency",
            "upgrade",
            "framework",
            "sdk",
            "cli",
            "terminal",
            "shell",
            "bash",
            "linux",
            "staging",
            "production",
            "prod",
            "environment",
            "e2e",
            "lint",
            "refactor",
            "pr",
            "ticket",
            "jira",
            "feature",
            "rollout",
            "rollback",
            "hotfix",
            "patch",
            "alert",
            "alerting",
            "pagerduty",
            "grafana",
            "prometheus",
            "throughput",
            "selenium",
            "jenkins",
            "github",
            "gitlab",
            "runner",
            "vm",
            "k8s",
            "helm",
            "kotlin",
            "swift",
            "ruby",
            "php",
            "scala",
            "django",
            "flask",
            "rails",
            "etl",
            "sql",
            "代码库",
            "仓库",
            "分支",
            "上线",
            "回滚",
            "告警",
            "报警",
            "负载",
            "容器",
            "镜像",
            "线上",
            "预发",
            "框架",
            "依赖",
            "编译",
            "脚本",
            "配置",
            "证书",
            "权限",
            "鉴权",
            "队列",
            "中间件",
            "运维",
            "研发",
            "安卓",
            "android",
            "ios",
            "工单",
        ],
    ),
    (
        "schedule",
        &[
            "meeting",
            "standup",
            "planning",
            "sprint",
            "calendar",
            "schedule",
            "holiday",
            "vacation",
            "deadline",
            "会议",
            "周会",
            "例会",
            "年会",
            "日程",
            "假期",
            "agenda",
            "reminder",
            "one-on-one",
            "conference",
            "event",
            "shift",
            "timezone",
            "pto",
            "提醒",
            "安排",
            "截止",
            "请假",
            "调休",
            "加班",
            "值班表",
            "offsite",
            "routine",
            "availability",
            "offline",
            "weekday",
            "作息",
            "排期",
            "预约",
        ],
    ),
    (
        "food",
        &[
            "tea",
            "coffee",
            "lunch",
            "dinner",
            "breakfast",
            "food",
            "meal",
            "restaurant",
            "vegetarian",
            "vegan",
            "diet",
            "snack",
            "茶",
            "咖啡",
            "午饭",
            "晚饭",
            "早饭",
            "火锅",
            "辣",
            "饮食",
            "素食",
            "吃素",
            "菜",
            "pizza",
            "pasta",
            "rice",
            "noodle",
            "ramen",
            "sushi",
            "bread",
            "sourdough",
            "baking",
            "bake",
            "cooking",
            "recipe",
            "kitchen",
            "grocery",
            "groceries",
            "takeout",
            "cafe",
            "wine",
            "beer",
            "drink",
            "alcohol",
            "juice",
            "milk",
            "cheese",
            "meat",
            "beef",
            "pork",
            "chicken",
            "fish",
            "seafood",
            "vegetable",
            "fruit",
            "salad",
            "soup",
            "spicy",
            "sugar",
            "dessert",
            "cake",
            "chocolate",
            "soda",
            "cuisine",
            "curry",
            "burger",
            "sandwich",
            "brunch",
            "espresso",
            "latte",
            "cilantro",
            "egg",
            "tofu",
            "面条",
            "拉面",
            "米饭",
            "饺子",
            "包子",
            "早餐",
            "午餐",
            "晚餐",
            "夜宵",
            "外卖",
            "餐厅",
            "饭店",
            "食堂",
            "做饭",
            "菜谱",
            "烘焙",
            "蛋糕",
            "甜点",
            "甜食",
            "奶茶",
            "牛奶",
            "豆浆",
            "啤酒",
            "红酒",
            "白酒",
            "水果",
            "蔬菜",
            "牛肉",
            "猪肉",
            "鸡肉",
            "海鲜",
            "香菜",
            "口味",
            "忌口",
            "零食",
            "烧烤",
            "小吃",
        ],
    ),
    (
        "health",
        &[
            "gym",
            "exercise",
            "running",
            "sleep",
            "doctor",
            "dentist",
            "allergy",
            "allergic",
            "peanut",
            "health",
            "medicine",
            "workout",
            "yoga",
            "appointment",
            "swimming",
            "swim",
            "hiking",
            "hike",
            "cycling",
            "climbing",
            "bouldering",
            "run",
            "marathon",
            "surgery",
            "gluten",
            "intolerance",
            "allergies",
            "injury",
            "游泳",
            "羽毛球",
            "篮球",
            "爬山",
            "瑜伽",
            "手术",
            "花粉",
            "跑步",
            "睡觉",
            "睡眠",
            "健身",
            "医生",
            "过敏",
            "牙医",
            "运动",
            "medication",
            "pill",
            "prescription",
            "dose",
            "vitamin",
            "supplement",
            "therapy",
            "therapist",
            "physio",
            "physiotherapy",
            "clinic",
            "hospital",
            "checkup",
            "bloodwork",
            "cholesterol",
            "diabetes",
            "asthma",
            "migraine",
            "headache",
            "pain",
            "flu",
            "vaccine",
            "symptom",
            "diagnosis",
            "anxiety",
            "depression",
            "stress",
            "meditation",
            "weight",
            "calorie",
            "fitness",
            "pilates",
            "stretching",
            "physician",
            "nurse",
            "dental",
            "teeth",
            "tooth",
            "insulin",
            "inhaler",
            "celiac",
            "医院",
            "复查",
            "体检",
            "看病",
            "吃药",
            "血压",
            "血糖",
            "胆固醇",
            "糖尿病",
            "哮喘",
            "头疼",
            "头痛",
            "膝盖",
            "康复",
            "理疗",
            "针灸",
            "中医",
            "疫苗",
            "感冒",
            "发烧",
            "咳嗽",
            "失眠",
            "减肥",
            "体重",
            "太极",
            "牙齿",
            "近视",
            "心理",
            "焦虑",
            "冥想",
            "pharmacy",
            "refill",
            "dermatologist",
            "pediatrician",
            "epipen",
            "pregnancy",
            "mental",
            "支架",
            "皮肤",
            "药",
            "维生素",
            "地平",
            "沙坦",
            "普利",
            "洛尔",
            "他汀",
            "霉素",
            "西林",
            "沙星",
            "替丁",
            "拉唑",
        ],
    ),
    (
        "finance",
        &[
            "budget",
            "invoice",
            "expense",
            "salary",
            "finance",
            "tax",
            "payroll",
            "reimbursement",
            "mortgage",
            "loan",
            "saving",
            "savings",
            "fund",
            "retirement",
            "pension",
            "insurance",
            "rent",
            "investment",
            "stock",
            "bank",
            "account",
            "debt",
            "报销",
            "房贷",
            "贷款",
            "基金",
            "保险",
            "理财",
            "存款",
            "股票",
            "储蓄",
            "退休",
            "定投",
            "预算",
            "发票",
            "工资",
            "财务",
            "税",
            "ira",
            "401k",
            "roth",
            "brokerage",
            "etf",
            "crypto",
            "bitcoin",
            "credit",
            "bill",
            "utility",
            "utilities",
            "subscription",
            "price",
            "cost",
            "fee",
            "spending",
            "money",
            "cash",
            "income",
            "bonus",
            "paycheck",
            "refund",
            "deposit",
            "transfer",
            "paypal",
            "accountant",
            "deduction",
            "receipt",
            "wallet",
            "portfolio",
            "dividend",
            "interest",
            "lease",
            "donation",
            "账单",
            "信用卡",
            "还款",
            "还贷",
            "房租",
            "租金",
            "水电",
            "物业费",
            "奖金",
            "年终奖",
            "收入",
            "支出",
            "开销",
            "记账",
            "转账",
            "存钱",
            "攒钱",
            "投资",
            "指数",
            "分红",
            "利息",
            "利率",
            "个税",
            "社保",
            "公积金",
            "费用",
            "借钱",
            "生活费",
            "freelance",
            "freelancer",
            "ynab",
            "expensify",
            "splitwise",
            "zelle",
            "venmo",
        ],
    ),
    (
        "travel",
        &[
            "flight",
            "hotel",
            "trip",
            "travel",
            "visa",
            "airport",
            "booking",
            "passport",
            "seat",
            "luggage",
            "出差",
            "旅行",
            "旅游",
            "护照",
            "航班",
            "酒店",
            "机票",
            "签证",
            "itinerary",
            "layover",
            "airline",
            "mileage",
            "lounge",
            "train",
            "rail",
            "rental",
            "cruise",
            "resort",
            "hostel",
            "airbnb",
            "tour",
            "tourist",
            "sightseeing",
            "abroad",
            "overseas",
            "customs",
            "boarding",
            "jetlag",
            "suitcase",
            "packing",
            "camping",
            "embassy",
            "destination",
            "honeymoon",
            "高铁",
            "火车",
            "动车",
            "飞机",
            "自驾",
            "租车",
            "景点",
            "门票",
            "行程",
            "攻略",
            "民宿",
            "度假",
            "出国",
            "海关",
            "登机",
            "行李",
            "导游",
            "机场",
            "车站",
            "邮轮",
            "露营",
            "traveler",
            "traveller",
            "red-eye",
            "ryokan",
            "road-trip",
            "自驾游",
            "国道",
            "出发",
        ],
    ),
    (
        "family",
        &[
            "daughter",
            "son",
            "wife",
            "husband",
            "kid",
            "child",
            "children",
            "family",
            "school",
            "parent",
            "mother",
            "father",
            "football",
            "sister",
            "brother",
            "dad",
            "mom",
            "mum",
            "wedding",
            "kindergarten",
            "baby",
            "老公",
            "老婆",
            "妈",
            "爸",
            "初中",
            "幼儿园",
            "婚礼",
            "女儿",
            "儿子",
            "妻子",
            "丈夫",
            "孩子",
            "家人",
            "小学",
            "学校",
            "父母",
            "grandma",
            "grandmother",
            "grandpa",
            "grandfather",
            "grandparent",
            "aunt",
            "uncle",
            "cousin",
            "niece",
            "nephew",
            "in-law",
            "sibling",
            "spouse",
            "fiance",
            "fiancee",
            "girlfriend",
            "boyfriend",
            "pet",
            "dog",
            "cat",
            "puppy",
            "kitten",
            "vet",
            "birthday",
            "anniversary",
            "thanksgiving",
            "christmas",
            "babysitter",
            "nanny",
            "daycare",
            "homework",
            "toddler",
            "teenager",
            "奶奶",
            "爷爷",
            "外婆",
            "外公",
            "姥姥",
            "姥爷",
            "岳父",
            "岳母",
            "公公",
            "婆婆",
            "舅舅",
            "姑姑",
            "哥哥",
            "姐姐",
            "弟弟",
            "妹妹",
            "亲戚",
            "全家",
            "宠物",
            "生日",
            "纪念日",
            "家长会",
            "作业",
            "班主任",
            "兴趣班",
            "in-laws",
            "household",
            "grade",
            "recital",
            "pregnancy",
            "柯基",
            "猫",
            "狗",
            "岳父母",
        ],
    ),
    (
        "people",
        &[
            "team",
            "hiring",
            "interview",
            "onboarding",
            "团队",
            "招聘",
            "面试",
            "colleague",
            "coworker",
            "manager",
            "boss",
            "teammate",
            "friend",
            "neighbor",
            "neighbour",
            "roommate",
            "landlord",
            "mentor",
            "mentee",
            "client",
            "customer",
            "vendor",
            "contractor",
            "recruiter",
            "classmate",
            "同事",
            "领导",
            "老板",
            "经理",
            "主管",
            "组长",
            "朋友",
            "邻居",
            "室友",
            "房东",
            "客户",
            "同学",
            "导师",
            "club",
            "coworkers",
            "neighbors",
            "friends",
        ],
    ),
    (
        "language",
        &[
            "中文",
            "英文",
            "english",
            "chinese",
            "translation",
            "翻译",
            "spanish",
            "japanese",
            "french",
            "german",
            "日语",
            "英语",
            "vocabulary",
            "grammar",
            "pronunciation",
            "accent",
            "fluency",
            "conjugation",
            "kanji",
            "hiragana",
            "katakana",
            "hangul",
            "pinyin",
            "korean",
            "portuguese",
            "russian",
            "arabic",
            "hindi",
            "cantonese",
            "mandarin",
            "jlpt",
            "toefl",
            "ielts",
            "hsk",
            "tutor",
            "flashcard",
            "粤语",
            "普通话",
            "韩语",
            "法语",
            "德语",
            "西班牙语",
            "俄语",
            "单词",
            "语法",
            "发音",
            "口语",
            "听力",
            "拼音",
            "汉字",
            "雅思",
            "托福",
        ],
    ),
];

/// The corridor whose words name `word`, if any: the first of
/// [`CORRIDORS`] with a word equal to `word`, to its stem, or to the stem
/// of one of its parts (split at hyphens and spaces), or, for Han text,
/// contained in it.
fn corridor_of_word(word: &str) -> Option<&'static str> {
    let stemmed = stem(word);
    let parts: Vec<String> = word
        .split(['-', ' '])
        .filter(|part| *part != word)
        .map(stem)
        .collect();
    // The first corridor (lowest index) any candidate names.
    let mut first = [word, stemmed.as_str()]
        .into_iter()
        .chain(parts.iter().map(String::as_str))
        .filter_map(|candidate| CORRIDOR_OF_WORD.get(candidate).copied())
        .min();
    if word.chars().any(is_han) {
        let contained = CORRIDORS.iter().position(|(_, words)| {
            words
                .iter()
                .any(|w| w.chars().any(is_han) && word.contains(w))
        });
        first = first.into_iter().chain(contained).min();
    }
    first
        .and_then(|at| CORRIDORS.get(at))
        .map(|(corridor, _)| *corridor)
}

/// Each word of [`CORRIDORS`] with the index of the first corridor that
/// lists it: one lookup per candidate, where scanning every corridor's
/// words (and stemming each part again for each) cost a save more than
/// its sealing.
static CORRIDOR_OF_WORD: std::sync::LazyLock<std::collections::HashMap<&'static str, usize>> =
    std::sync::LazyLock::new(|| {
        let mut map = std::collections::HashMap::new();
        for (at, (_, words)) in CORRIDORS.iter().enumerate() {
            for &w in *words {
                map.entry(w).or_insert(at);
            }
        }
        map
    });

/// The corridor a new room `room` for `text` joins: the one whose words
/// name the room, else the tags', the entities' (a tool or project is
/// engineering, a person people, a place travel), the text's topic
/// words'; else a related neighbour's (it shares words, or meaning when
/// a model is configured); else [`DEFAULT_CORRIDOR`].
#[must_use]
pub fn corridor_for(
    text: &str,
    room: &str,
    profile: &Profile,
    entities: &[Entity],
    tags: &[String],
    neighbours: &[(f64, &Neighbour)],
) -> String {
    let entities = &reread_entities(text, entities)[..];
    // A tool only by the word before it (`through Splitwise`, `in Anki`)
    // says engineering only when the text's words say nothing else.
    let by_entity = |name: &str, sure: bool| {
        entities
            .iter()
            .find(|e| e.key == name)
            .and_then(|e| match e.category {
                "tool" if sure && !known_tool(e) => None,
                "place" if sure => None,
                "tool" | "project" | "file" => Some("engineering"),
                "person" => Some("people"),
                "place" => Some("travel"),
                _ => None,
            })
    };
    // A relative's name ("daughter Emma") is family, not people.
    let relative = profile
        .apposed
        .iter()
        .any(|(noun, name)| name == room && RELATIONS.contains(&noun.as_str()))
        .then_some("family");
    let named = corridor_of_term(room)
        .or(relative)
        .or_else(|| by_entity(room, true))
        .or_else(|| tags.iter().find_map(|t| corridor_of_term(t)))
        .or_else(|| {
            entities
                .iter()
                .find_map(|e| by_entity(&e.key, true).filter(|c| *c == "engineering"))
        });
    // A clock time on a day or a date is an appointment, whatever it is
    // for ("Piano recital is on June 14th at 6pm", "每周六上午九点上游泳课"),
    // unless its room is a system's, money's or a meal's ("drinks green
    // tea at 9am on weekdays" is about the tea).
    if named.is_none_or(|c| !matches!(c, "engineering" | "finance" | "food")) && appointment(text) {
        return "schedule".to_owned();
    }
    if let Some(corridor) = named {
        return corridor.to_owned();
    }
    let cjk: Vec<String> = if text.chars().any(is_han) {
        cjk_words(text).into_iter().map(|(w, _)| w).collect()
    } else {
        Vec::new()
    };
    let from_words = profile
        .words
        .iter()
        .filter(|t| is_salient(t))
        .map(String::as_str)
        .chain(cjk.iter().map(String::as_str))
        .find_map(corridor_of_term)
        .or_else(|| by_entity(room, false))
        .or_else(|| {
            entities
                .iter()
                .find_map(|e| by_entity(&e.key, false).filter(|c| *c == "engineering"))
        });
    if let Some(corridor) = from_words {
        return corridor.to_owned();
    }
    neighbours
        .iter()
        .filter(|(s, n)| {
            (*s >= CORRIDOR_MATCH_MIN || n.semantic.is_some_and(|c| c >= SEMANTIC_CORRIDOR_MIN))
                && n.corridor != DEFAULT_CORRIDOR
        })
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.id.cmp(&a.1.id)))
        .map_or_else(
            || DEFAULT_CORRIDOR.to_owned(),
            |(_, n)| n.corridor.clone().into_owned(),
        )
}

/// Endings of generic medicine names (the naming stems of drug classes:
/// `lisinopril`, `sertraline`, `levothyroxine`, `atorvastatin`).
const MEDICINE_ENDINGS: &[&str] = &[
    "pril",
    "sartan",
    "olol",
    "statin",
    "dipine",
    "prazole",
    "tidine",
    "oxetine",
    "traline",
    "thyroxine",
    "formin",
    "profen",
    "azepam",
    "triptan",
    "cycline",
    "cillin",
    "mycin",
    "floxacin",
    "lukast",
    "semide",
    "thiazide",
    "codone",
    "ciclovir",
    "navir",
    "prednisone",
    "olone",
];

/// [`corridor_of_word`], and `health` for a medicine's name.
fn corridor_of_term(word: &str) -> Option<&'static str> {
    corridor_of_word(word).or_else(|| {
        (word.len() >= 7
            && word.bytes().all(|b| b.is_ascii_lowercase())
            && MEDICINE_ENDINGS.iter().any(|e| word.ends_with(e)))
        .then_some("health")
    })
}

/// Whether `text` sets a clock time on a day: `6pm`, `6 pm` or `10:30`
/// with a weekday (`Tuesdays`, `Fri`, `weekdays`) or a month; `九点` or
/// `十点半` with 周, 星期, 礼拜, 月 or 号.
fn appointment(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == ':'))
        .filter(|w| !w.is_empty())
        .collect();
    let clock = words.iter().enumerate().any(|(at, w)| {
        let digits = w.trim_end_matches("am").trim_end_matches("pm");
        let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let suffixed = digits.len() < w.len() && numeric(digits.replace(':', "").as_str());
        let spaced = numeric(w) && words.get(at + 1).is_some_and(|n| matches!(*n, "am" | "pm"));
        let colon = w
            .split_once(':')
            .is_some_and(|(h, m)| numeric(h) && h.len() <= 2 && m.len() == 2 && numeric(m));
        suffixed || spaced || colon
    });
    let day = words.iter().any(|w| {
        let w = w.trim_end_matches('s');
        engram_text::calendar::is_calendar_word(w)
            || matches!(
                w,
                "weekday"
                    | "mon"
                    | "tue"
                    | "tues"
                    | "wed"
                    | "thu"
                    | "thur"
                    | "thurs"
                    | "fri"
                    | "sat"
                    | "sun"
            )
    });
    let han_clock = text.char_indices().any(|(at, c)| {
        c == '点'
            && text[..at]
                .chars()
                .next_back()
                .is_some_and(|p| p.is_ascii_digit() || CJK_NUMERALS.contains(p))
    });
    let han_day = ["周", "星期", "礼拜", "月", "号"]
        .iter()
        .any(|m| text.contains(m));
    (clock && day) || (han_clock && han_day)
}

/// Verbs (stemmed) that never name a room.
pub const VERBS: &[&str] = &[
    "teach",
    "own",
    "maintain",
    "lead",
    "manage",
    "join",
    "joined",
    "review",
    "approve",
    "write",
    "wrote",
    "written",
    "say",
    "said",
    "think",
    "need",
    "work",
    "listen",
    "live",
    "come",
    "fix",
    "fixed",
    "start",
    "stop",
    "move",
    "call",
    "ask",
    "tell",
    "told",
    "send",
    "sent",
    "help",
    "show",
    "try",
    "feel",
    "seem",
    "become",
    "include",
    "contain",
    "allow",
    "let",
    "put",
    "mean",
    "give",
    "find",
    "know",
    "happen",
    "decide",
    "consume",
    "shipped",
    "ship",
    "scrape",
    "scraped",
    "store",
    "stored",
    "build",
    "built",
    "sit",
    "pay",
    "renew",
    "retry",
    "sign",
    "signed",
    "generate",
    "generated",
    "delete",
    "deleted",
    "target",
    "close",
    "open",
    "drink",
    "read",
    "prefer",
    "has",
    "ha",
    "get",
    "goe",
    "doe",
    "learn",
    "eat",
    "pick",
    "push",
    "book",
    "keep",
    "go",
    "make",
    "take",
    "use",
    "want",
    "like",
    "love",
    "avoid",
    "invest",
    "stay",
    "getting",
    "going",
    "learning",
    "drinking",
    "eating",
    "expire",
    "fail",
    "play",
    "change",
];
/// Words of time, besides weekdays and months
/// ([`engram_text::calendar::is_calendar_word`]): never a topic while the
/// text has another.
const TIME_WORDS: &[&str] = &[
    "morning",
    "evening",
    "night",
    "afternoon",
    "weekend",
    "week",
    "day",
    "month",
    "year",
    "today",
    "tomorrow",
    "yesterday",
    "tonight",
    "spring",
    "summer",
    "autumn",
    "fall",
    "winter",
    "hour",
    "minute",
    "time",
];
/// Words for the people of a family: a topic only when the text has no
/// other (`My sister is getting married` is about a wedding).
const RELATIONS: &[&str] = &[
    "daughter",
    "son",
    "wife",
    "husband",
    "mother",
    "father",
    "mom",
    "mum",
    "dad",
    "sister",
    "brother",
    "kid",
    "kids",
    "child",
    "parent",
    "parents",
    "grandma",
    "grandpa",
    "partner",
    "boyfriend",
    "girlfriend",
    "baby",
];
/// Adjectives and participles a person would name by their noun.
const NOMINALISED: &[(&str, &str)] = &[
    ("allergic", "allergy"),
    ("intolerant", "intolerance"),
    ("married", "wedding"),
    ("pregnant", "pregnancy"),
    ("diabetic", "diabetes"),
    ("retired", "retirement"),
    ("asleep", "sleep"),
];
/// Words too generic to name a room.
const GENERIC: &[&str] = &[
    "user", "users", "用户", "我们", "你们", "他们", "我的", "project", "always", "please", "team",
    "company", "remember", "actually", "以后", "时候",
];
/// Adjectives that qualify a topic rather than name one (`green tea`).
const ADJECTIVES: &[&str] = &[
    "green",
    "black",
    "red",
    "blue",
    "white",
    "new",
    "old",
    "big",
    "small",
    "main",
    "local",
    "nightly",
    "daily",
    "weekly",
    "monthly",
    "early",
    "late",
    "first",
    "last",
    "next",
    "dark",
    "light",
    "hot",
    "cold",
    "spare",
    "every",
    "other",
    "good",
    "bad",
    "best",
    "favourite",
    "favorite",
    // Common English adjectives (the everyday ones a note qualifies a
    // topic with), none of them a topic by itself.
    "able",
    "afraid",
    "asleep",
    "annual",
    "async",
    "available",
    "basic",
    "blunt",
    "busy",
    "cheap",
    "clean",
    "clear",
    "common",
    "complete",
    "current",
    "deep",
    "different",
    "difficult",
    "easy",
    "empty",
    "entire",
    "expensive",
    "extra",
    "fair",
    "familiar",
    "famous",
    "fast",
    "few",
    "fine",
    "flexible",
    "fresh",
    "full",
    "great",
    "happy",
    "hard",
    "heavy",
    "high",
    "huge",
    "important",
    "junior",
    "senior",
    "large",
    "little",
    "long",
    "low",
    "major",
    "minor",
    "many",
    "native",
    "nice",
    "normal",
    "past",
    "plain",
    "poor",
    "popular",
    "possible",
    "pretty",
    "proper",
    "quick",
    "quiet",
    "rainy",
    "rare",
    "ready",
    "real",
    "recent",
    "regular",
    "rich",
    "right",
    "rough",
    "safe",
    "same",
    "serious",
    "severe",
    "sharp",
    "short",
    "similar",
    "simple",
    "single",
    "slow",
    "soft",
    "special",
    "specific",
    "standing",
    "strict",
    "strong",
    "sure",
    "sweet",
    "tall",
    "tough",
    "true",
    "typical",
    "usual",
    "various",
    "warm",
    "weak",
    "whole",
    "wide",
    "wrong",
    "young",
    "double",
    "alone",
    "offline",
    "online",
    "second",
    "third",
    "fourth",
    "fifth",
    "max",
    "go-to",
    "remaining",
];
/// Prepositions the function words leave out: never a topic (`Runs a 10k
/// along the canal`).
const PREPOSITIONS: &[&str] = &[
    "along",
    "across",
    "toward",
    "towards",
    "within",
    "without",
    "beside",
    "besides",
    "except",
    "among",
    "amid",
    "despite",
    "throughout",
    "upon",
    "onto",
    "beneath",
    "behind",
    "beyond",
    "inside",
    "outside",
    "versus",
    "near",
    "whenever",
    "wherever",
];
/// Heads too vague to name a room alone: a noun before one makes the
/// compound the room even when it names a topic itself (`code review`,
/// `credit card`, `mobile app`, `book club`, `emergency fund`).
const VAGUE_HEADS: &[&str] = &[
    "review",
    "app",
    "card",
    "club",
    "fund",
    "rate",
    "flag",
    "membership",
    "request",
    "site",
    "lab",
    "check",
    "prep",
    "pickup",
    "account",
    "team",
    "assistant",
    "project",
];
/// Chinese time words: never a topic, and a topic word is cut at them.
const CJK_TIMES: &[&str] = &[
    "每天",
    "每周",
    "每月",
    "每年",
    "每季度",
    "季度",
    "晚上",
    "早上",
    "上午",
    "下午",
    "中午",
    "凌晨",
    "今天",
    "明天",
    "昨天",
    "下周",
    "上周",
    "下个月",
    "上个月",
    "以后",
    "之前",
    "之后",
    "时候",
    "每晚",
    "经常",
    "最近",
    "学期",
    "周末",
];
/// Chinese nouns holding a character of [`CJK_VERBS`], or ones the
/// segmenter cuts across a neighbour (`一集美剧` as 集美 剧, `其实发版` as
/// 发 版), kept whole.
const CJK_NOUNS: &[&str] = &[
    "周会", "例会", "年会", "晨会", "组会", "会议", "用户", "应用", "安卓", "美剧", "发版",
];
/// The least dictionary frequency a noun of [`CJK_NOUNS`] is taught
/// with: an everyday word's, so it wins over a rare word overlapping it
/// (`开组会` is 开 组会, not 开组 会), where the least frequency that
/// keeps it whole alone would not.
const TAUGHT_NOUN_FREQ: usize = 100;
/// Chinese numerals: a run of them is a value, never part of a topic.
const CJK_NUMERALS: &str = "零〇一二三四五六七八九十百千万两";
/// Chinese verbs a topic word is cut at.
const CJK_VERBS: &[&str] = &[
    "负责",
    "使用",
    "进行",
    "维护",
    "加入",
    "处理",
    "需要",
    "开始",
    "完成",
    "参加",
    "管理",
    "开发",
    "部署在",
    "设置为",
    "改到",
    "改成",
    "改为",
    "监听",
    "审核",
    "发布",
    "决定",
    "喜欢",
    "回答",
    "保持",
    "开始",
    "是",
    "托管",
    "保留",
    "喝",
    "吃",
    "用",
    "写",
    "做",
    "有",
    "去",
    "来",
    "说",
    "看",
    "要",
    "会",
    "能",
    "让",
    "开",
    "跑",
    "见",
    "每",
];
/// Characters in a Chinese topic word at most.
const CJK_TOPIC_CHARS_MAX: usize = 4;

fn is_han(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c)
}

/// Whether an English term could name a topic.
fn english_topic(term: &str) -> bool {
    english_topic_or_relation(term) && !RELATIONS.contains(&term)
}

/// [`english_topic`], counting family words too.
fn english_topic_or_relation(term: &str) -> bool {
    term.chars()
        .all(|c| c.is_ascii_alphabetic() || c == '.' || c == '-' || c == '_')
        && term.chars().count() >= 3
        && is_salient(term)
        && !term.ends_with("ly")
        && !term.ends_with("ed")
        && !NOT_A_TOPIC.contains(term)
        && !measure_adjective(term)
        && !comparative_adjective(term)
        && !engram_text::calendar::is_calendar_word(term)
        && !VERB_SET.contains(stem(term).as_str())
}

/// Whether `term` compares an everyday adjective of [`ADJECTIVES`]
/// (`younger`, `bigger`, `later`, `earliest`): it qualifies, like the
/// adjective.
fn comparative_adjective(term: &str) -> bool {
    ["er", "est"].iter().any(|suffix| {
        let Some(base) = term.strip_suffix(suffix) else {
            return false;
        };
        let undoubled = base
            .char_indices()
            .next_back()
            .filter(|&(at, last)| base[..at].ends_with(last))
            .map(|(at, _)| &base[..at]);
        let with_e = format!("{base}e");
        let with_y = base.strip_suffix('i').map(|b| format!("{b}y"));
        [
            Some(base),
            undoubled,
            Some(with_e.as_str()),
            with_y.as_deref(),
        ]
        .into_iter()
        .flatten()
        .any(|candidate| candidate.len() >= 3 && ADJECTIVE_SET.contains(candidate))
    })
}

/// [`ADJECTIVES`] as a set.
static ADJECTIVE_SET: std::sync::LazyLock<rustc_hash::FxHashSet<&'static str>> =
    std::sync::LazyLock::new(|| ADJECTIVES.iter().copied().collect());

/// [`ADJECTIVES`], [`PREPOSITIONS`], number words, [`VERBS`], [`GENERIC`]
/// and [`TIME_WORDS`] in one set: asked of every word of every save.
static NOT_A_TOPIC: std::sync::LazyLock<rustc_hash::FxHashSet<&'static str>> =
    std::sync::LazyLock::new(|| {
        ADJECTIVES
            .iter()
            .chain(PREPOSITIONS)
            .chain(crate::meaning::NUMBER_WORDS)
            .chain(VERBS)
            .chain(GENERIC)
            .chain(TIME_WORDS)
            .copied()
            .collect()
    });

/// [`VERBS`] as a set, for a word's stem.
static VERB_SET: std::sync::LazyLock<rustc_hash::FxHashSet<&'static str>> =
    std::sync::LazyLock::new(|| VERBS.iter().copied().collect());

/// Whether `term` is a hyphenated measure or negation before a noun
/// (`four-day week`, `six-month fund`, `10-minute call`, `no-meeting
/// Fridays`): it says how much or which, never what.
fn measure_adjective(term: &str) -> bool {
    let mut parts = term.split('-');
    let (Some(first), Some(_), None) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    first == "no"
        || crate::meaning::NUMBER_WORDS.contains(&first)
        || (!first.is_empty() && first.bytes().all(|b| b.is_ascii_digit()))
}

/// The noun an adjective or participle of [`NOMINALISED`] names.
fn nominalised(term: &str) -> Option<&'static str> {
    NOMINALISED
        .iter()
        .find(|(adjective, _)| *adjective == term)
        .map(|(_, noun)| *noun)
}

/// Whether `word` (lowercased, as the text says it) could be a noun
/// before another: a content word that is no adjective, preposition,
/// time word or value, whether or not it is also a verb (`book club`).
fn noun_like(word: &str) -> bool {
    word.chars().all(|c| c.is_ascii_alphabetic())
        && word.len() >= 2
        && is_salient(word)
        && !word.ends_with("ly")
        && !word.ends_with("ed")
        && !ADJECTIVE_SET.contains(word)
        && !PREPOSITIONS.contains(&word)
        && !GENERIC.contains(&word)
        && !TIME_WORDS.contains(&word)
        && !engram_text::calendar::is_calendar_word(word)
}

/// The room of an English topic term of `text`: the compound it starts
/// when the next word of the text is a topic noun too (`pull requests`
/// -> `pull-requests`, `emergency fund` -> `emergency-fund`), its head
/// as the text says it; the compound it ends when it is a vague head after a noun
/// (`book club`); else the term.
fn english_compound(text: &str, term: &str) -> String {
    let words: Vec<String> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let Some(at) = words.iter().position(|w| stem(w) == term || w == term) else {
        return term.to_owned();
    };
    // A plural names the room as the text says it (`migraines`,
    // `taxes`): a person names a folder of many by the many.
    let said = |w: &String, t: &str| -> String {
        if w != t && stem(w) == t && w.ends_with('s') {
            w.clone()
        } else {
            t.to_owned()
        }
    };
    let single = words
        .get(at)
        .map_or_else(|| term.to_owned(), |w| said(w, term));
    let before = at.checked_sub(1).and_then(|i| words.get(i));
    if VAGUE_HEADS.contains(&term)
        && let Some(modifier) = before.filter(|w| noun_like(w))
    {
        return format!("{modifier}-{single}");
    }
    let (Some(modifier), Some(head)) = (words.get(at), words.get(at + 1)) else {
        return single;
    };
    let head_stem = stem(head);
    let noun = |w: &str, s: &str| english_topic(w) && english_topic(s) && !w.ends_with("ing");
    // An activity before the place or kit for it is the topic
    // (`climbing gym`, `swimming lessons`).
    let compound_after = words
        .get(at + 2)
        .is_some_and(|w| VAGUE_HEADS.contains(&stem(w).as_str()));
    if modifier.len() > 5 && modifier.ends_with("ing") && noun(head, &head_stem) && !compound_after
    {
        return modifier.clone();
    }
    // A modifier that names a topic itself keeps its room (`dentist
    // appointment`), unless the head is too vague to go without it
    // (`code review`); a plural is a subject, not a modifier (`backups
    // fail`).
    let vague_head = VAGUE_HEADS.contains(&head_stem.as_str()) && noun_like(modifier);
    let modifier_names_a_topic = !vague_head
        && (CORRIDOR_OF_WORD.contains_key(modifier.as_str())
            || CORRIDOR_OF_WORD.contains_key(term)
            || modifier.ends_with('s') && !modifier.ends_with("ss"));
    if (noun(head, &head_stem) || vague_head)
        && !modifier_names_a_topic
        && !modifier.contains('-')
        && !head.contains('-')
    {
        format!("{modifier}-{}", said(head, &head_stem))
    } else {
        single
    }
}

/// The Chinese words of `text`, each with whether a verb came before it.
fn cjk_words(text: &str) -> Vec<(String, bool)> {
    let (rewritten, _) = rewrite_cjk(text);
    let mut words = Vec::new();
    let mut after_verb = false;
    for run in rewritten.split(|c: char| !is_han(c)) {
        let mut rest = run;
        let mut word = String::new();
        while let Some(c) = rest.chars().next() {
            // A time word or a numeral ends a word (and is none).
            let cut = CJK_TIMES
                .iter()
                .find(|t| rest.starts_with(**t))
                .map(|t| t.len())
                .or_else(|| CJK_NUMERALS.contains(c).then(|| c.len_utf8()));
            if let Some(len) = cut {
                if !word.is_empty() {
                    words.push((std::mem::take(&mut word), after_verb));
                }
                rest = &rest[len..];
                continue;
            }
            // A noun holding a verb's character (`周会`) stays whole.
            if let Some(noun) = CJK_NOUNS.iter().find(|n| rest.starts_with(**n)) {
                word.push_str(noun);
                rest = &rest[noun.len()..];
                continue;
            }
            if let Some(verb) = CJK_VERBS.iter().find(|v| rest.starts_with(**v)) {
                if !word.is_empty() {
                    words.push((std::mem::take(&mut word), after_verb));
                }
                after_verb = true;
                rest = &rest[verb.len()..];
                continue;
            }
            word.push(c);
            rest = &rest[c.len_utf8()..];
        }
        if !word.is_empty() {
            words.push((word, after_verb));
        }
    }
    words
}

/// A Chinese topic word of `text`, if it has one: the subject (the
/// first word) unless it is generic or a person's name, else the object
/// after the first verb, else the first word.
fn cjk_topic(text: &str, people: &[&str]) -> Option<String> {
    let words: Vec<(String, bool)> = cjk_words(text)
        .into_iter()
        .filter(|(w, _)| w.chars().count() >= 2 && !GENERIC.contains(&w.as_str()))
        .collect();
    let subject = cjk_words(text)
        .into_iter()
        .next()
        .filter(|(w, after_verb)| {
            !after_verb
                && w.chars().count() >= 2
                && !GENERIC.contains(&w.as_str())
                && !people
                    .iter()
                    .any(|p| w.contains(p) || p.contains(w.as_str()))
        });
    let (word, _) = subject
        .as_ref()
        .or_else(|| words.iter().find(|(_, after_verb)| *after_verb))
        .or_else(|| words.first())?;
    if word.chars().count() <= CJK_TOPIC_CHARS_MAX {
        // A run opening with a function word or a word for who or where
        // (`其实发版`, `个人博客`) is named by the words after it; a name
        // the text does not hold (its pronouns rewritten) is none.
        let tags = JIEBA.tag(word, false);
        let skipped = tags
            .iter()
            .take_while(|t| {
                matches!(t.tag, "d" | "r" | "p" | "c" | "u" | "uj")
                    || CJK_NOT_TOPICS.contains(&t.word)
            })
            .map(|t| t.word.len())
            .sum::<usize>();
        let rest = word.get(skipped..).unwrap_or_default();
        let name = cjk_noun_part(rest);
        return (name.chars().count() >= 2 && text.contains(name)).then(|| name.to_owned());
    }
    // A long run is a phrase: its head noun is its last word the segmenter
    // finds (`公司年会定` is 公司 年会 定: 年会), never a window of
    // characters, which would cut across words (`司年会定`).
    JIEBA
        .cut(word, false)
        .into_iter()
        .rev()
        .map(|token| cjk_noun_part(token.word))
        .find(|w| {
            (2..=CJK_TOPIC_CHARS_MAX).contains(&w.chars().count())
                && !CJK_NOT_TOPICS.contains(w)
                && !GENERIC.contains(w)
                && text.contains(*w)
        })
        .map(str::to_owned)
}

/// The Chinese word segmenter, its dictionary loaded once.
/// The nouns of [`CJK_NOUNS`] it does not know whole (`年会` is 年 会 to
/// it) are added, so a room is never cut across one (`公司年会定在` is
/// 公司 年会 定 在).
pub(crate) static JIEBA: std::sync::LazyLock<jieba_rs::Jieba> = std::sync::LazyLock::new(|| {
    let mut jieba = jieba_rs::Jieba::new();
    for word in CJK_NOUNS {
        if word.chars().count() >= 2 && word.chars().all(is_han) && !jieba.has_word(word) {
            let freq = jieba.suggest_freq(word).max(TAUGHT_NOUN_FREQ);
            jieba.add_word(word, Some(freq), Some("n"));
        }
    }
    jieba
});

/// Chinese nouns that name who or where, not what a text is about: the
/// people of a family and a home (`我老公每周六去游泳` is about swimming).
const CJK_NOT_TOPICS: &[&str] = &[
    "老公", "老婆", "丈夫", "妻子", "爱人", "妈", "妈妈", "爸", "爸爸", "母亲", "父亲", "儿子",
    "女儿", "孩子", "宝宝", "哥哥", "姐姐", "弟弟", "妹妹", "爷爷", "奶奶", "家", "家里", "家人",
    "公司", "事", "事情", "东西", "人", "时候", "时间", "问题", "情况", "方面", "任何", "用户",
    "个人", "习惯", "年度", "项目", "团队", "关系", "自动", "统一", "轮流", "家养",
];
/// Words before a noun that make it a place, a party or a time around
/// the topic rather than the topic (`在学校踢足球`, `给孩子买保险`).
const CJK_SETTING_MARKS: &[&str] = &["在", "从", "给", "跟", "和", "向", "对", "为", "到", "替"];

/// Heads too vague to name a room alone, as [`VAGUE_HEADS`] in English:
/// the noun before one stays in the name (`订单服务`, `支付系统`, `测试环境`).
const CJK_VAGUE_HEADS: &[&str] = &[
    "服务", "系统", "环境", "平台", "网关", "基金", "规范", "风格", "仓库", "队列", "集群", "接口",
    "超时", "评审", "定投", "工程", "开发", "管理", "配置",
];
/// Heads that say what is wanted of a topic or where it is kept, not what
/// it is (`日语目标`, `假期计划`, `股票账户`): the noun before one names the
/// room.
const CJK_EMPTY_HEADS: &[&str] = &["目标", "计划", "建议", "账户", "安排", "打算"];

/// [`CJK_VERBS`] as a set.
static CJK_VERB_SET: std::sync::LazyLock<rustc_hash::FxHashSet<&'static str>> =
    std::sync::LazyLock::new(|| CJK_VERBS.iter().copied().collect());

/// Whether the segment at `at` is a verb with the particle after it
/// (`部署` before `在`: [`CJK_VERBS`] lists 部署在), which the segmenter
/// may tag a noun.
fn cjk_verb_phrase(tags: &[jieba_rs::Tag<'_>], at: usize) -> bool {
    let (Some(word), Some(particle)) = (tags.get(at), tags.get(at + 1)) else {
        return false;
    };
    particle.word.chars().count() == 1
        && CJK_VERB_SET.contains(format!("{}{}", word.word, particle.word).as_str())
}

/// Whether a segment tagged `tag` is a content noun: a common, proper,
/// place or organisation noun, a verbal noun, or a Latin word.
fn cjk_noun_tag(tag: &str) -> bool {
    matches!(tag, "n" | "nz" | "vn" | "nt" | "ns" | "nl" | "j")
}

/// Whether the segmenter keeps `word` whole and gives it a tag `wanted`.
fn cjk_tag_alone(word: &str, wanted: fn(&str) -> bool) -> bool {
    JIEBA
        .tag(word, false)
        .first()
        .is_some_and(|t| t.word == word && wanted(t.tag))
}

/// A noun of three characters that holds a verb or pronoun and a noun
/// (`弹钢琴`, `我妈`, `年会定`): the noun; else the word.
fn cjk_noun_part(word: &str) -> &str {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    if chars.len() != 3 {
        return word;
    }
    let not_noun = |w: &str| cjk_tag_alone(w, |t| matches!(t, "v" | "r" | "p" | "d"));
    let noun = |w: &str| cjk_tag_alone(w, cjk_noun_tag);
    let (Some(&(second, _)), Some(&(third, _))) = (chars.get(1), chars.get(2)) else {
        return word;
    };
    let (head, tail) = word.split_at(second);
    if not_noun(head) && noun(tail) {
        return tail;
    }
    // A noun the dictionary knows whole (`班主任`) keeps its last
    // character (not `班主`).
    if noun(word) {
        return word;
    }
    let (head, tail) = word.split_at(third);
    if noun(head) && not_noun(tail) {
        return head;
    }
    word
}

/// The topic of a Chinese text by word segmentation: the first noun
/// phrase (adjacent nouns joined, `测试环境`, at most
/// [`CJK_TOPIC_CHARS_MAX`] characters, else its head) that is not a
/// modifier (`公司的`), a setting (`在学校`), a person, a family member or
/// a home; an activity word of a corridor (`跑步`, `过敏`) counts as a
/// noun. None when the text has none.
fn cjk_segmented_topic(text: &str, people: &[&str]) -> Option<String> {
    let tags = JIEBA.tag(text, false);
    let is_activity = |w: &str| w.chars().all(is_han) && CORRIDOR_OF_WORD.contains_key(w);
    let mut phrases: Vec<(String, bool)> = Vec::new();
    let mut at = 0;
    while at < tags.len() {
        let Some(first) = tags.get(at) else { break };
        let noun = cjk_noun_tag(first.tag) || is_activity(first.word);
        if !noun || !first.word.chars().all(is_han) || cjk_verb_phrase(&tags, at) {
            at += 1;
            continue;
        }
        let mut end = at;
        // Two short nouns make one (`指数基金`); a verbal noun after a
        // noun is what is done to it (`服务监听`), not part of it.
        while let (Some(last), Some(next)) = (tags.get(end), tags.get(end + 1))
            && (matches!(next.tag, "n" | "nz" | "j") || (next.tag == "vn" && last.tag == "n"))
            && next.word.chars().all(is_han)
            && last.word.chars().count() == 2
            && next.word.chars().count() == 2
            && !CJK_NOT_TOPICS.contains(&last.word)
            && !CJK_EMPTY_HEADS.contains(&next.word)
            && !cjk_verb_phrase(&tags, end + 1)
        {
            end += 1;
        }
        // A head that names a topic of a corridor itself, after nouns that
        // name none, is the room alone (`美式咖啡`: 咖啡), unless it is too
        // vague to go without them (`订单服务`).
        let head_alone = end > at
            && tags
                .get(end)
                .is_some_and(|h| is_activity(h.word) && !CJK_VAGUE_HEADS.contains(&h.word))
            && tags
                .get(at..end)
                .is_some_and(|modifiers| modifiers.iter().all(|m| !is_activity(m.word)));
        let from = if head_alone { end } else { at };
        let before = at.checked_sub(1).and_then(|i| tags.get(i)).map(|t| t.word);
        let after = tags.get(end + 1).map(|t| t.word);
        let setting = before.is_some_and(|w| CJK_SETTING_MARKS.contains(&w));
        let modifier = after == Some("的");
        // The head: the longest tail of the phrase that fits.
        let words: Vec<&str> = tags
            .get(from..=end)
            .unwrap_or_default()
            .iter()
            .map(|t| cjk_noun_part(t.word))
            .filter(|w| !CJK_NOT_TOPICS.contains(w))
            .collect();
        let mut name = String::new();
        for w in words.iter().rev() {
            if name.chars().count() + w.chars().count() > CJK_TOPIC_CHARS_MAX {
                break;
            }
            name.insert_str(0, w);
        }
        let wanted = (name.chars().count() >= 2 || is_activity(&name))
            && !GENERIC.contains(&name.as_str())
            && !CJK_TIMES.iter().any(|t| name.contains(t))
            && !people
                .iter()
                .any(|p| name.contains(p) || p.contains(name.as_str()));
        if wanted {
            phrases.push((name, setting || modifier));
        }
        at = end + 1;
    }
    phrases
        .iter()
        .find(|(_, aside)| !aside)
        .or_else(|| phrases.first())
        .map(|(name, _)| name.clone())
}

/// The part of `text` that says what it is about: what follows "please
/// remember" (`记住`), else its clauses that hold no redacted personal
/// data (`My phone is [REDACTED:phone]; ...` is not about phones), else
/// the whole text.
#[must_use]
pub fn focus(text: &str) -> &str {
    let lower = text.to_lowercase();
    // Lowercasing keeps ASCII offsets; the marker is ASCII.
    if lower.len() == text.len()
        && let Some(at) = lower.rfind("remember")
    {
        let rest = text.get(at + "remember".len()..).unwrap_or_default();
        let rest = rest.trim_start();
        let rest = rest
            .strip_prefix("that ")
            .or_else(|| rest.strip_prefix("That "))
            .unwrap_or(rest);
        if rest.chars().any(char::is_alphanumeric) {
            return rest;
        }
    }
    if let Some(at) = text.find("记住") {
        let rest = &text[at + "记住".len()..];
        if rest.chars().any(is_han) {
            return rest;
        }
    }
    if text.contains(REDACTED_MARK) {
        // The first clause without a placeholder.
        if let Some(clause) = text
            .split([';', '；', '。', '，'])
            .flat_map(|c| c.split(", "))
            .flat_map(|c| c.split(" and "))
            .find(|c| !c.contains(REDACTED_MARK) && c.chars().any(char::is_alphanumeric))
        {
            return clause;
        }
    }
    text
}

/// How a redaction placeholder begins.
const REDACTED_MARK: &str = "[REDACTED:";

/// The room name for a text (see the module documentation), if any.
#[must_use]
pub fn room_name(
    text: &str,
    profile: &Profile,
    entities: &[Entity],
    tags: &[String],
) -> Option<String> {
    if let Some(tag) = tags.first() {
        return Some(tag.clone());
    }
    let focused = focus(text);
    if focused.len() < text.len() {
        let profile = crate::meaning::profile(focused);
        let entities = engram_text::entities::extract(focused);
        if let Some(name) = topic_of_text(focused, &profile, &entities) {
            return Some(name);
        }
    }
    topic_of_text(text, profile, entities)
}

/// Particles and prepositions a verb's `-ing` form is followed by ("trying
/// to", "mixing up", "visiting from"), where a noun's rarely is.
const AFTER_A_VERB: &[&str] = &[
    "to", "up", "from", "with", "on", "out", "for", "about", "into", "back", "down", "off", "over",
    "through", "around", "at",
];

/// Words that follow a plural noun opening a sentence, its verb or what
/// joins it to more ("Taxes are due", "Meetings start at 10", "Kids and
/// dogs welcome"): after any other word, an opening `-s` form is a verb
/// ("Bakes sourdough bread", "Runs a 10k").
const SUBJECT_FOLLOWERS: &[&str] = &[
    "are", "were", "have", "had", "will", "would", "can", "could", "should", "must", "may",
    "might", "need", "start", "begin", "end", "happen", "run", "go", "cost", "take", "get", "come",
    "stay", "close", "open", "include", "matter", "and", "or", "of", "in", "for", "at", "on", "to",
    "from", "with", "is", "was", "don't", "do", "did", "aren't", "usually", "always", "never",
    "often",
];

/// Words of `text` that its shape shows are verbs, lowercased: an `-ing`
/// form followed by a particle or preposition and not a topic word of a
/// corridor ("trying to", but "meeting with"), a third-person `-s`
/// form right after a name of `names` or a pronoun ("Leo turns 8"), and
/// one opening a note with no subject ("Runs a 10k every Sunday").
fn verbs_in(text: &str, names: &[&str]) -> std::collections::BTreeSet<String> {
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    // Whether only spaces part each word from the next (no comma: "Ravi,
    // the product manager" is a name and its apposition).
    let spaced: Vec<bool> = {
        let mut rest = text;
        words
            .iter()
            .map(|w| {
                let after = rest
                    .find(*w)
                    .and_then(|at| rest.get(at + w.len()..))
                    .unwrap_or_default();
                rest = after;
                after.starts_with(' ')
                    && after
                        .trim_start()
                        .starts_with(|c: char| c.is_ascii_alphanumeric())
            })
            .collect()
    };
    let mut verbs = std::collections::BTreeSet::new();
    for (at, word) in words.iter().enumerate() {
        let lower = word.to_ascii_lowercase();
        let next = words.get(at + 1).map(|w| w.to_ascii_lowercase());
        let before = at
            .checked_sub(1)
            .and_then(|i| words.get(i))
            .map(|w| w.to_ascii_lowercase());
        let gerund = lower.len() > 5
            && lower.ends_with("ing")
            && next.as_deref().is_some_and(|n| AFTER_A_VERB.contains(&n))
            && corridor_of_word(&lower).is_none();
        let third_person = lower.len() > 3 && lower.ends_with('s') && !lower.ends_with("ss");
        let after_subject = third_person
            && before
                .as_deref()
                .is_some_and(|b| names.contains(&b) || matches!(b, "he" | "she" | "it"));
        // A note with no subject opens with its verb ("Runs a 10k every
        // Sunday", "Speaks Tagalog with her mother"); a plural noun
        // opening a sentence is followed by its verb ("Taxes are due") or
        // a colon ("Taxes: due April 15").
        let opens_a_note = words.get(..at).is_some_and(|opening| {
            opening
                .iter()
                .all(|w| BETWEEN_SUBJECT_AND_VERB.contains(&w.to_ascii_lowercase().as_str()))
        }) && third_person
            && text
                .find(*word)
                .and_then(|from| text.get(from + word.len()..))
                .is_some_and(|rest| rest.starts_with(' '))
            && words.get(1).is_some_and(|next| {
                let next = next.to_ascii_lowercase();
                // "Migraines triggered by red wine": a participle after.
                !next.ends_with("ed") && !SUBJECT_FOLLOWERS.contains(&next.as_str())
            });
        // After a subject pronoun, past its adverbs and auxiliaries, comes
        // its verb ("They block 7 to 8am", "I max out my IRA", "User
        // sees a therapist"); after a form of "be" an `-ing` form is one
        // ("is saving", "are expecting"), and so is one before a
        // determiner ("saving their", "starting next week"); after
        // "trying to", an infinitive ("trying to cut sugar").
        let subject_before = (1..=3).find_map(|back| {
            let w = words.get(at.checked_sub(back)?)?.to_ascii_lowercase();
            if SUBJECTS.contains(&w.as_str()) {
                Some(true)
            } else if BETWEEN_SUBJECT_AND_VERB.contains(&w.as_str()) {
                None
            } else {
                Some(false)
            }
        }) == Some(true);
        // A compound after a subject is a noun used as a verb ("User
        // meal-preps on Sundays"): it names the topic, see
        // [`noun_verb`].
        let after_subject_pronoun = subject_before
            && !lower.contains('-')
            && !BETWEEN_SUBJECT_AND_VERB.contains(&lower.as_str())
            && !BE_FORMS.contains(&lower.as_str());
        // A topic word in the same shape stays one ("hosting Thanksgiving
        // this year", "is saving for a house").
        let ing = lower.len() > 5 && lower.ends_with("ing") && corridor_of_word(&lower).is_none();
        let progressive = ing && before.as_deref().is_some_and(|b| BE_FORMS.contains(&b));
        let before_a_determiner = ing
            && !before
                .as_deref()
                .is_some_and(|b| matches!(b, "a" | "an" | "the"))
            && next.as_deref().is_some_and(|n| DETERMINERS.contains(&n));
        // A note opening with an `-ing` form opens with its verb
        // ("Splitting utilities with...", "Keeping a vocab deck").
        let opens_with_ing = at == 0
            && ing
            && next
                .as_deref()
                .is_some_and(|n| !SUBJECT_FOLLOWERS.contains(&n));
        let infinitive = before.as_deref() == Some("to")
            && at
                .checked_sub(2)
                .and_then(|i| words.get(i))
                .is_some_and(|w| TO_VERBS.contains(&w.to_ascii_lowercase().as_str()));
        // After "to" and before a particle is a phrasal verb ("to grow up",
        // "to pay off").
        let phrasal = before.as_deref() == Some("to")
            && next.as_deref().is_some_and(|n| PARTICLES.contains(&n));
        // A word that takes a determiner's noun phrase right after it,
        // not after a determiner itself, is a verb ("rents the cabin",
        // "Cancel the membership", "lost his tooth"), unless a topic word
        // ("message the engineer"); "a week" after a
        // noun is a rate and "this year" a time, not its object.
        let before_an_object = next.as_deref().is_some_and(|n| OBJECT_OPENERS.contains(&n))
            && spaced.get(at).copied().unwrap_or(false)
            && !words.get(at + 2).is_some_and(|w| {
                let w = w.to_ascii_lowercase();
                TIME_WORDS.contains(&w.as_str()) || engram_text::calendar::is_calendar_word(&w)
            })
            && !before.as_deref().is_some_and(|b| {
                DETERMINERS.contains(&b) || ADJECTIVE_SET.contains(b) || b.ends_with("'s")
            })
            && !lower.ends_with("'s")
            && corridor_of_word(&lower).is_none()
            && is_salient(&lower)
            && lower.chars().all(|c| c.is_ascii_alphabetic());
        // A particle right after a verb is part of it ("cut back on").
        let particle = PARTICLES.contains(&lower.as_str())
            && before.as_deref().is_some_and(|b| verbs.contains(b));
        if gerund
            || phrasal
            || before_an_object
            || particle
            || after_subject
            || opens_a_note
            || after_subject_pronoun
            || progressive
            || before_a_determiner
            || opens_with_ing
            || infinitive
        {
            verbs.insert(stem(&lower));
            verbs.insert(lower);
        }
    }
    verbs
}

/// Words for someone's role at work, besides the people corridor's.
const ROLES: &[&str] = &[
    "lead",
    "engineer",
    "designer",
    "director",
    "owner",
    "pm",
    "cto",
    "ceo",
    "skip-level",
];
/// Words that open a clause as its subject, so the next content word is
/// its verb.
const SUBJECTS: &[&str] = &["i", "we", "they", "you", "he", "she", "user", "users"];
/// Adverbs and auxiliaries between a subject and its verb.
const BETWEEN_SUBJECT_AND_VERB: &[&str] = &[
    "always",
    "usually",
    "never",
    "also",
    "often",
    "sometimes",
    "really",
    "only",
    "just",
    "still",
    "rarely",
    "typically",
    "normally",
    "generally",
    "mostly",
    "already",
    "now",
    "even",
    "mainly",
    "occasionally",
    "regularly",
    "don't",
    "can't",
    "won't",
    "didn't",
    "doesn't",
    "do",
    "does",
    "did",
    "can",
    "will",
    "would",
    "should",
    "must",
    "may",
    "might",
    "could",
];
/// Forms of "be", an `-ing` form after which is a verb.
const BE_FORMS: &[&str] = &[
    "is", "are", "am", "was", "were", "be", "been", "i'm", "we're", "they're", "you're", "he's",
    "she's", "it's", "keep", "keeps",
];
/// Words that start a noun phrase: an `-ing` form before one is a verb.
const DETERMINERS: &[&str] = &[
    "a", "an", "the", "my", "our", "their", "his", "her", "its", "your", "this", "that", "these",
    "those", "next", "some", "every", "each", "two", "three", "four", "five",
];
/// Particles of a phrasal verb ("cut back", "grow up", "pay off").
const PARTICLES: &[&str] = &["back", "up", "out", "off", "down", "away"];
/// Words that open a noun phrase a verb takes as its object.
const OBJECT_OPENERS: &[&str] = &[
    "the", "a", "an", "my", "our", "their", "his", "her", "your", "this", "these", "those",
];
/// Verbs an infinitive follows ("trying to cut").
const TO_VERBS: &[&str] = &[
    "trying", "try", "tries", "want", "wants", "need", "needs", "plan", "plans", "planning",
    "hoping", "hope", "going", "have", "has", "had", "like", "likes", "prefer", "prefers",
    "learning", "decided", "able", "used",
];

/// The entities of `text` as a room reads them: a capitalised word read
/// as a tool only by the word before it (not a known tool, not CamelCase)
/// is a place when that word puts it somewhere (`in Lisbon`, `into
/// Narita`).
fn reread_entities(text: &str, entities: &[Entity]) -> Vec<Entity> {
    entities
        .iter()
        .map(|e| {
            let mut e = e.clone();
            if e.category == "tool" && !known_tool(&e) {
                let before = text
                    .find(e.name.as_str())
                    .and_then(|at| text.get(..at))
                    .and_then(|head| head.split_whitespace().next_back())
                    .map(str::to_ascii_lowercase);
                if before
                    .as_deref()
                    .is_some_and(|b| matches!(b, "in" | "into" | "near" | "around"))
                {
                    e.category = "place";
                }
            }
            e
        })
        .collect()
}

/// Whether a tool entity is one by its name (a known tool, a CamelCase or
/// dotted name), not only by the word before it.
fn known_tool(e: &Entity) -> bool {
    let key = e.key.as_str();
    engram_text::entities::TOOLS
        .iter()
        .any(|(k, aliases)| *k == key || aliases.contains(&key))
        || e.name.contains('.')
        || !e.name.is_ascii()
        || e.name.chars().skip(1).any(|c| c.is_ascii_uppercase())
}

/// The gerund of a verb that names an activity of a corridor (`run` ->
/// `running`, `bake` -> `baking`), if any.
fn activity(verb: &str) -> Option<String> {
    let base = stem(verb);
    let mut forms = vec![format!("{base}ing")];
    if let Some(last) = base.chars().last() {
        forms.push(format!("{base}{last}ing"));
    }
    if let Some(cut) = base.strip_suffix('e') {
        forms.push(format!("{cut}ing"));
    }
    forms
        .into_iter()
        .find(|f| CORRIDOR_OF_WORD.contains_key(f.as_str()))
}

/// The plural a person files a countable thing under when a life holds
/// many of it, each saved on its own (`flight` -> `flights`, `allergy` ->
/// `allergies`): one room gathers every flight, whichever one a text is
/// about. A mass or one-off topic (`medication`, `mortgage`) has none.
fn folder_plural(word: &str) -> Option<&'static str> {
    Some(match word {
        "allergy" => "allergies",
        "appointment" => "appointments",
        "bill" => "bills",
        "birthday" => "birthdays",
        "colleague" => "colleagues",
        "expense" => "expenses",
        "flight" => "flights",
        "friend" => "friends",
        "grocery" => "groceries",
        "holiday" => "holidays",
        "investment" => "investments",
        "invoice" => "invoices",
        "lesson" => "lessons",
        "meeting" => "meetings",
        "migraine" => "migraines",
        "neighbor" => "neighbors",
        "neighbour" => "neighbours",
        "payment" => "payments",
        "pet" => "pets",
        "prescription" => "prescriptions",
        "recipe" => "recipes",
        "restaurant" => "restaurants",
        "saving" => "savings",
        "subscription" => "subscriptions",
        "supplement" => "supplements",
        "vitamin" => "vitamins",
        _ => return None,
    })
}

/// Each word of `text` (letters, digits, `-` and `'`) lowercased, with
/// the byte offset it starts at.
fn word_spans(text: &str) -> Vec<(usize, String)> {
    let mut spans = Vec::new();
    let mut start = None;
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '\'';
    for (at, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (is_word(c), start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                if let Some(word) = text.get(from..at) {
                    spans.push((from, word.to_ascii_lowercase()));
                }
                start = None;
            }
            _ => {}
        }
    }
    spans
}

/// A compound used as a verb right after its subject names the topic
/// ("User meal-preps on Sundays", "I meal-prep chicken"): the compound,
/// without a third-person `s`.
fn noun_verb(words: &[(usize, String)]) -> Option<(usize, String)> {
    words.windows(2).find_map(|pair| {
        let [(_, subject), (at, word)] = pair else {
            return None;
        };
        (SUBJECTS.contains(&subject.as_str())
            && word.contains('-')
            && word
                .split('-')
                .all(|part| part.len() >= 3 && is_salient(part)))
        .then(|| {
            let noun = word.strip_suffix('s').filter(|_| !word.ends_with("ss"));
            (*at, noun.unwrap_or(word).to_owned())
        })
    })
}

/// A capitalised word opening `text` that names no topic of a corridor
/// and is followed by a form of "be" or "have" ("Marta is allergic",
/// "Jake is into birdwatching"): someone's name, not a topic.
fn opening_name(text: &str) -> Option<String> {
    let mut words = text.split_whitespace();
    let first = words.next()?;
    let next = words.next()?;
    (first.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && first.chars().all(|c| c.is_ascii_alphabetic())
        && matches!(next, "is" | "was" | "has" | "had")
        && corridor_of_word(&first.to_ascii_lowercase()).is_none())
    .then(|| first.to_ascii_lowercase())
}

/// [`room_name`] of a text without tags.
fn topic_of_text<'a>(text: &str, profile: &'a Profile, entities: &'a [Entity]) -> Option<String> {
    let named = |categories: &[&str]| {
        entities
            .iter()
            .find(|e| categories.contains(&e.category))
            .map(|e| e.key.clone())
    };
    let opening = opening_name(text);
    // Words of a person's or place's name are not topics (`Alice teaches`).
    // A name right after a relative ("daughter Ines", "my brother Tomas")
    // is someone's name too, as the text says it (`apposed` holds keys).
    let said = |key: &'a str| -> &'a str {
        profile
            .terms
            .iter()
            .position(|t| t == key)
            .and_then(|at| profile.words.get(at))
            .map_or(key, String::as_str)
    };
    let name_words: Vec<&str> = entities
        .iter()
        .filter(|e| matches!(e.category, "person" | "place"))
        .flat_map(|e| e.key.split(' '))
        .chain(
            profile
                .apposed
                .iter()
                .filter(|(noun, _)| RELATIONS.contains(&noun.as_str()))
                .flat_map(|(_, name)| [name.as_str(), said(name)]),
        )
        .chain(opening.as_deref())
        .collect();
    let verbs = verbs_in(text, &name_words);
    let spans = word_spans(text);
    // Where a profile word is first said (its own or its stem's form).
    let position = |term: &str| {
        spans
            .iter()
            .position(|(_, w)| w == term || stem(w) == term || nominalised(w) == Some(term))
    };
    // The first topic word, with the word of the text it comes from.
    let english = profile
        .words
        .iter()
        .find_map(|t| {
            let noun = nominalised(t);
            let name = noun.unwrap_or(t);
            (english_topic(name) && !name_words.contains(&name) && !verbs.contains(name)).then(
                || {
                    let room = if noun.is_some() {
                        name.to_owned()
                    } else {
                        english_compound(text, name)
                    };
                    (room, t.as_str())
                },
            )
        })
        .or_else(|| {
            profile
                .words
                .iter()
                .find(|t| {
                    english_topic_or_relation(t)
                        && !name_words.contains(&t.as_str())
                        && !verbs.contains(t.as_str())
                })
                .map(|t| (t.clone(), t.as_str()))
        });
    let english_at = english.as_ref().and_then(|(_, source)| position(source));
    // The sentence's verb names the room when it is an activity done
    // with no object and comes before every topic word ("I run 5k three
    // mornings a week", "Runs a 10k"), and so does a compound used as a
    // verb ("User meal-preps on Sundays").
    let acted = spans.iter().enumerate().find_map(|(at, (_, w))| {
        let object = spans
            .get(at + 1)
            .is_some_and(|(_, next)| english_topic(&stem(next)));
        if verbs.contains(w.as_str()) && !object {
            activity(w).map(|a| (at, a))
        } else {
            None
        }
    });
    let english = [acted, noun_verb(&spans)]
        .into_iter()
        .flatten()
        .filter(|(at, _)| english_at.is_none_or(|e| *at <= e))
        .min_by_key(|(at, _)| *at)
        .map(|(_, name)| name)
        .or(english.map(|(room, _)| room));
    // A name after a word for who someone is to the user, or opening a
    // sentence that says what role they have, names the room: the text
    // is about that person ("Their coworker Dave tends to...", "Kenji is
    // the mobile tech lead").
    let role = |w: &str| {
        ROLES.contains(&w)
            || CORRIDOR_OF_WORD.get(stem(w).as_str())
                == CORRIDORS.iter().position(|(c, _)| *c == "people").as_ref()
    };
    let english = english.map(|name| {
        let about = spans
            .iter()
            .position(|(_, w)| name.split('-').next_back() == Some(w.as_str()) || stem(w) == name);
        profile
            .apposed
            .iter()
            .find(|(noun, _)| {
                let noun = said(noun);
                role(noun)
                    && about.is_some_and(|at| {
                        spans
                            .get(at)
                            .is_some_and(|(_, w)| w == noun || stem(w) == stem(noun))
                    })
            })
            .map_or(name, |(_, person)| said(person).to_owned())
    });
    let english = english.map(|name| folder_plural(&name).map_or(name, str::to_owned));
    let subject = spans
        .first()
        .map(|(_, w)| w.as_str())
        .filter(|w| name_words.contains(w));
    let copula = spans.get(1).is_some_and(|(_, w)| w == "is" || w == "was");
    if let Some(subject) = subject
        && copula
        && spans.iter().skip(2).take(5).any(|(_, w)| role(w))
        && !text.chars().any(is_han)
    {
        return Some(subject.to_owned());
    }
    // A relative named as the subject of "is" ("Daughter Emma is 7",
    // "Our son Leo is afraid of the dark"): the text says what that
    // person is, and their name is the room.
    let relative_subject = spans
        .iter()
        .take(5)
        .position(|(_, w)| w == "is")
        .and_then(|at| {
            let (_, name) = spans.get(at.checked_sub(1)?)?;
            let (_, noun) = spans.get(at.checked_sub(2)?)?;
            profile
                .apposed
                .iter()
                .find(|(n, person)| {
                    RELATIONS.contains(&said(n)) && said(n) == noun && said(person) == name
                })
                .map(|_| name.clone())
        });
    if let Some(name) = relative_subject
        && !text.chars().any(is_han)
    {
        return Some(name);
    }
    // The same in Chinese: a person opening the text, 是, and a role in
    // the clause (`小王是前端组的负责人`, `老周是我大学室友`).
    let people = CORRIDORS.iter().find(|(c, _)| *c == "people");
    let cjk_role = |clause: &str| {
        clause.contains("负责人")
            || people.is_some_and(|(_, words)| {
                words
                    .iter()
                    .any(|w| w.chars().all(is_han) && clause.contains(w))
            })
    };
    let cjk_subject = entities.iter().find(|e| {
        e.category == "person"
            && text
                .strip_prefix(e.name.as_str())
                .and_then(|rest| rest.strip_prefix('是'))
                .and_then(|rest| rest.split(['，', '。', ',', '；']).next())
                .is_some_and(cjk_role)
    });
    if let Some(person) = cjk_subject {
        return Some(person.key.clone());
    }
    let has_han = text.chars().any(is_han);
    let topic = if has_han {
        cjk_segmented_topic(text, &name_words)
            .or_else(|| cjk_topic(text, &name_words))
            .or(english)
    } else {
        english
    };
    // A project, tool or organisation names the room, unless a topic
    // word comes before one the text reads as a tool only by its shape or
    // the word before it ("Rent is paid via Zelle"), or before any in a
    // Chinese text ("订单服务部署在阿里云, 用 Kubernetes 管理").
    let thing = entities
        .iter()
        .find(|e| matches!(e.category, "project" | "tool" | "organisation"));
    if let Some(thing) = thing {
        let listed = engram_text::entities::TOOLS
            .iter()
            .any(|(key, _)| *key == thing.key);
        let thing_at = text.find(thing.name.as_str());
        let topic_at = match topic.as_deref() {
            Some(t) if t.chars().any(is_han) => text.find(t),
            Some(_) if !listed => english_at.and_then(|at| spans.get(at)).map(|(b, _)| *b),
            _ => None,
        };
        let topic_first = matches!((topic_at, thing_at), (Some(t), Some(e)) if t < e);
        if !topic_first {
            return Some(thing.key.clone());
        }
    }
    topic.or_else(|| named(&["person", "place"]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meaning::profile;

    /// What `corridor_of_word` computed before its lookup table: a scan of
    /// every corridor's words.
    fn corridor_of_word_by_scan(word: &str) -> Option<&'static str> {
        let stemmed = stem(word);
        let han = word.chars().any(is_han);
        CORRIDORS
            .iter()
            .find(|(_, words)| {
                words.iter().any(|w| {
                    *w == word
                        || *w == stemmed
                        || (han && w.chars().any(is_han) && word.contains(w))
                        || word
                            .split(['-', ' '])
                            .any(|part| part != word && *w == stem(part))
                })
            })
            .map(|(corridor, _)| *corridor)
    }

    proptest::proptest! {
        #[test]
        fn the_lookup_finds_the_corridor_a_scan_of_every_corridor_does(
            picks in proptest::collection::vec((0usize..64, 0usize..64, 0usize..4), 1..4),
            joiner in proptest::sample::select(vec!["", "-", " "]),
            other in "[a-z]{0,6}|[\\u{4e00}-\\u{4e20}]{1,3}",
        ) {
            let all: Vec<&str> = CORRIDORS.iter().flat_map(|(_, words)| words.iter().copied()).collect();
            let mut parts: Vec<String> = picks
                .iter()
                .map(|&(a, b, form)| {
                    let w = all[(a * 64 + b) % all.len()];
                    match form {
                        0 => w.to_owned(),
                        1 => format!("{w}s"),
                        2 => format!("{w}es"),
                        _ => format!("x{w}"),
                    }
                })
                .collect();
            parts.push(other);
            let word = parts.join(joiner);
            proptest::prop_assert_eq!(corridor_of_word(&word), corridor_of_word_by_scan(&word), "{}", word);
        }
    }

    /// A Chinese room name is whole words of its text, never a window of
    /// characters across them: 公司年会定 once gave 司年会定, and the
    /// dictionary noun 班主任 gave 班主.
    #[test]
    fn a_chinese_room_is_never_cut_across_words() {
        for text in [
            "公司年会定在1月18号。",
            "公司年会定在十二月二十日。",
            "孩子的班主任是张老师。",
            "我们的生产环境部署在阿里云杭州区域。",
            "每个月工资的20%自动转入指数基金定投。",
            "其实发版改成每两周的周二了。",
            "我妈最近在学弹钢琴。",
        ] {
            let Some(name) = room(text) else { continue };
            if !name.chars().any(is_han) {
                continue;
            }
            // Where a word ends or a three-character word holds a noun of
            // two (`弹钢琴`: 钢琴), a room may start or end.
            let mut bounds = vec![0];
            for token in JIEBA.cut(text, false) {
                let part = cjk_noun_part(token.word);
                if let Some(at) = token.word.find(part) {
                    bounds.push(token.byte_start + at);
                    bounds.push(token.byte_start + at + part.len());
                }
                bounds.push(token.byte_end);
            }
            let at = text.find(&name);
            assert!(
                at.is_some_and(|at| bounds.contains(&at) && bounds.contains(&(at + name.len()))),
                "{text}: room {name:?} cuts across words"
            );
        }
        assert_eq!(room("孩子的班主任是张老师。").as_deref(), Some("班主任"));
    }

    fn room(text: &str) -> Option<String> {
        room_name(
            text,
            &profile(text),
            &engram_text::entities::extract(text),
            &[],
        )
    }

    /// A note with no subject opens with its verb, which names no room; a
    /// name after a relative is a person's, not a topic.
    #[test]
    fn an_opening_verb_or_a_relatives_name_is_no_room() {
        for (text, not) in [
            ("Bakes sourdough bread every Saturday morning.", "bake"),
            ("Coaches a youth football team on Wednesdays.", "coach"),
            ("Son Mateo starts swimming lessons in June.", "mateo"),
            ("My sister Ilse teaches chemistry in Leiden.", "ilse"),
        ] {
            let name = room(text);
            assert!(
                name.as_deref().is_some_and(|n| !n.starts_with(not)),
                "{text}: {name:?}"
            );
        }
        // A plural noun opening a sentence, followed by its verb, still can.
        assert_eq!(
            room("Taxes are due on April 15 this year.").as_deref(),
            Some("taxes")
        );
    }

    /// A verb by its shape is not a room: an `-ing` form before a particle
    /// or preposition, a third-person form after a name or a pronoun. A
    /// topic word in the same shape ("meeting with") still is.
    #[test]
    fn a_verb_by_its_shape_is_not_a_room() {
        for (text, not) in [
            ("Struggling with the violin vibrato lately.", "struggling"),
            ("Thinking about switching the blog to Hugo.", "thinking"),
            ("Every spring he repaints the fence.", "repaint"),
            ("She collects vintage fountain pens.", "collect"),
        ] {
            let name = room(text);
            assert!(
                name.as_deref().is_some_and(|n| !n.starts_with(not)),
                "{text}: {name:?}"
            );
        }
        assert_eq!(
            room("Meeting with the landlord about the lease.").as_deref(),
            Some("meetings")
        );
    }

    /// Issue 17: rooms were named after adverbs, verbs and bigrams across
    /// two words.
    #[test]
    fn issue_17_rooms_are_topics() {
        for (text, expected) in [
            (
                "Absolutely always run the migrations before deploys.",
                "migrations",
            ),
            ("Quarterly planning needs the finance numbers.", "planning"),
            ("Alice teaches the onboarding workshop.", "onboarding"),
            ("It happens that backups fail on Sundays.", "backups"),
            ("We decided to move billing to the new cluster.", "billing"),
            // "message the" is its verb: the text is about the on-call
            // engineer (the corpus's first name for it).
            (
                "Directly message the oncall engineer for outages.",
                "oncall",
            ),
            ("用户喜欢喝绿茶。", "绿茶"),
            ("张伟负责支付系统。", "支付系统"),
            ("The search service listens on port 9090.", "search"),
            ("The user likes Go for network services.", "go"),
        ] {
            assert_eq!(room(text).as_deref(), Some(expected), "{text:?}");
        }
        let bad = [
            "absolutely",
            "quarterly",
            "teach",
            "teaches",
            "happens",
            "decided",
            "directly",
            "户喜",
        ];
        for text in [
            "Absolutely always run the migrations before deploys.",
            "用户喜欢喝绿茶。",
            "The user decided it happens directly.",
        ] {
            if let Some(name) = room(text) {
                assert!(!bad.contains(&name.as_str()), "{text:?} named {name}");
            }
        }
    }

    #[test]
    fn a_tag_names_the_room_first() {
        let text = "The user likes Go for network services.";
        let tags = ["languages".to_owned()];
        assert_eq!(
            room_name(text, &profile(text), &[], &tags).as_deref(),
            Some("languages")
        );
    }

    fn corridor(text: &str, room: &str) -> String {
        corridor_for(
            text,
            room,
            &profile(text),
            &engram_text::entities::extract(text),
            &[],
            &[],
        )
    }

    /// A verb by its place is no room: after a subject ("They skip"), an
    /// `-ing` form after "be" or before a determiner, one opening a note,
    /// an infinitive after "trying to".
    #[test]
    fn a_verb_by_its_place_is_not_a_room() {
        for (text, expected) in [
            ("They skip breakfast on weekdays.", "breakfast"),
            ("User rewires the garage lights himself.", "garage"),
            ("Nora is renovating her kitchen.", "kitchen"),
            (
                "Lena is recovering slowly from knee surgery.",
                "knee-surgery",
            ),
            ("We spent June painting the garage.", "garage"),
            ("Sketching portraits at the Tuesday class.", "portraits"),
        ] {
            assert_eq!(room(text).as_deref(), Some(expected), "{text}");
        }
        let name = room("Hoping to repaint the shed before winter.");
        assert!(
            name.as_deref().is_none_or(|n| !n.starts_with("repaint")),
            "{name:?}"
        );
    }

    /// A measure, a number, an everyday adjective or a preposition names
    /// no room; the noun it qualifies does.
    #[test]
    fn a_measure_or_an_adjective_is_not_a_room() {
        for (text, expected) in [
            ("Booked a three-night cabin near the lake.", "cabin"),
            ("Prefers quiet cafes for reading.", "cafes"),
            ("Jogs along the harbour at dawn.", "harbour"),
            ("Eight glasses of water a day.", "glasses"),
        ] {
            assert_eq!(room(text).as_deref(), Some(expected), "{text}");
        }
        let name = room("She works a three-day week.");
        assert!(name.as_deref() != Some("three"), "{name:?}");
    }

    /// A head too vague alone takes the noun before it, even one that
    /// names a topic (`book club`, `credit card`); an activity before the
    /// place for it is the topic; a plural is named as said.
    #[test]
    fn compounds_activities_and_plurals_are_named_as_a_person_would() {
        for (text, expected) in [
            ("Our book club reads one novel a month.", "book-club"),
            ("The credit card bill is due on the 5th.", "credit-card"),
            ("The knitting circle meets on Thursdays.", "knitting"),
            ("Invoices go out on the first Monday.", "invoices"),
            ("I swim 2 km before work.", "swimming"),
            ("He dry-cleans his suits every month.", "dry-clean"),
        ] {
            assert_eq!(room(text).as_deref(), Some(expected), "{text}");
        }
    }

    /// A name is no topic: one opening a sentence before "is", a name
    /// after a word for someone's role names the room, and so does one
    /// whose role the sentence states.
    #[test]
    fn names_and_roles_name_rooms_of_people() {
        let name = room("Zofia is lactose intolerant.");
        assert!(name.as_deref().is_some_and(|n| n != "zofia"), "{name:?}");
        for (text, expected) in [
            ("My landlord Greta answers texts fast.", "greta"),
            ("Pia is our office manager.", "pia"),
            ("小李是我们组的组长，请假找他。", "小李"),
        ] {
            assert_eq!(room(text).as_deref(), Some(expected), "{text}");
        }
    }

    /// A topic word before a tool the text names only by its shape or the
    /// word before it names the room; a known tool still does first.
    #[test]
    fn a_topic_before_an_unknown_tool_names_the_room() {
        assert_eq!(
            room("Receipts are scanned into Evernote.").as_deref(),
            Some("receipts")
        );
        assert_eq!(
            room("Our search backend runs on Redis.").as_deref(),
            Some("redis")
        );
    }

    /// Corridors: a clock time on a day is an appointment unless a system's,
    /// money's or a meal's; a medicine's name is health's; a tool by its cue alone
    /// and a place yield to the text's words.
    #[test]
    fn corridors_of_appointments_medicines_and_cued_names() {
        assert_eq!(
            corridor("Piano recital on May 9 at 7pm.", "piano-recital"),
            "schedule"
        );
        assert_eq!(corridor("每周四下午三点上书法课。", "书法课"), "schedule");
        assert_eq!(
            corridor("Drinks black coffee at 7am on weekdays.", "coffee"),
            "food"
        );
        assert_eq!(
            corridor("Deploy freeze starts Friday at 6pm.", "deploy-freeze"),
            "engineering"
        );
        assert_eq!(
            corridor("Takes metformin with dinner.", "metformin"),
            "health"
        );
        assert_eq!(
            corridor("Tracks vocabulary in Memrise.", "memrise"),
            "language"
        );
        assert_eq!(
            corridor("Drills vocabulary via Memrise.", "memrise"),
            "language"
        );
        assert_eq!(
            corridor("My parents retired in Tavira.", "tavira"),
            "family"
        );
    }

    /// Chinese rooms are whole words: a noun the segmenter lacks is taught
    /// to it, a one-character segment never joins a noun, a short word
    /// keeps its noun, and modifiers such as 习惯 or 年度 name none.
    #[test]
    fn chinese_rooms_are_whole_nouns() {
        for (text, expected) in [
            ("公司年会定在三月。", "年会"),
            ("他习惯每天早上跑步。", "跑步"),
            ("她的年度体检在十一月。", "体检"),
            ("他的化学学得不错。", "化学"),
            ("周会定在周一上午。", "周会"),
        ] {
            assert_eq!(room(text).as_deref(), Some(expected), "{text}");
        }
    }

    /// A countable thing a life holds many of is filed under its plural,
    /// however one text says it; a mass noun keeps its form.
    #[test]
    fn a_countable_thing_is_filed_under_its_plural() {
        for (text, expected) in [
            ("Flight home from Oslo leaves at dawn.", "flights"),
            ("She is allergic to shellfish.", "allergies"),
            (
                "The best restaurant near the office serves pho.",
                "restaurants",
            ),
        ] {
            assert_eq!(room(text).as_deref(), Some(expected), "{text}");
        }
        assert_eq!(
            room("Medication refills come by mail.").as_deref(),
            Some("medication")
        );
    }

    /// Two Chinese nouns: a head that names a topic itself goes alone
    /// after a modifier that names none; a head that says what is wanted
    /// of a topic yields to the noun before it; a verb the segmenter tags
    /// a noun (`部署` before 在) ends the phrase, so a vague head keeps its
    /// noun.
    #[test]
    fn a_chinese_head_noun_names_the_room_by_its_kind() {
        for (text, expected) in [
            ("他最爱喝手工奶茶。", "奶茶"),
            ("德语目标是年底考过B1。", "德语"),
            ("基金账户在招商银行。", "基金"),
            ("库存服务部署在腾讯云上。", "库存服务"),
        ] {
            assert_eq!(room(text).as_deref(), Some(expected), "{text}");
        }
    }

    /// A Chinese room is a word of the text as written: never a run its
    /// pronouns were rewritten into (`我爸爸` read as 爸爸爸), a run opening
    /// with an adverb, nor a word the segmenter made across two (`开组`
    /// from 开组会, `集美` from 一集美剧).
    #[test]
    fn a_chinese_room_is_a_word_of_the_text() {
        for (text, expected) in [
            ("我爸爸住在杭州。", "杭州"),
            ("每周四上午开组会。", "组会"),
            ("晚上一般看一集美剧再睡。", "美剧"),
            ("其实发版挪到周四了。", "发版"),
        ] {
            assert_eq!(room(text).as_deref(), Some(expected), "{text}");
        }
    }

    /// A verb by the words around it names no room: a word before its
    /// object's determiner ("Repaint the", "Order the"), an `-s` form
    /// opening a note after an adverb, a particle after a verb ("cut
    /// back"), a phrasal infinitive ("to grow up"); nor does a comparative of an
    /// everyday adjective or a participle used as one ("older",
    /// "remaining"). "this year" after a topic is a time, not an object.
    #[test]
    fn a_verb_by_the_words_around_it_is_not_a_room() {
        for (text, not) in [
            ("Repaint the garage door before the sale.", "repaint"),
            ("Order the mushroom risotto at Luigi's.", "order"),
            ("Also sketches birds at the lake.", "sketch"),
            ("Trying to cut back on caffeine.", "back"),
            ("He hopes to grow up a pilot.", "grow"),
            ("My older sister moved to Perth.", "older"),
            (
                "Wants to pay off the remaining car loan by June.",
                "remaining",
            ),
        ] {
            let name = room(text);
            assert!(
                name.as_deref().is_some_and(|n| !n.starts_with(not)),
                "{text}: {name:?}"
            );
        }
        assert_eq!(
            room("Hosting Passover this year for the whole family.").as_deref(),
            Some("passover")
        );
    }

    /// A relative named as the subject of "is" is what the text is about:
    /// their name is the room, on the family corridor.
    #[test]
    fn a_relative_said_to_be_something_names_the_room() {
        for (text, expected) in [
            ("Our daughter Ottilie is learning to swim.", "ottilie"),
            ("Grandpa Joe is 90 this spring.", "joe"),
        ] {
            assert_eq!(room(text).as_deref(), Some(expected), "{text}");
            assert_eq!(corridor(text, expected), "family", "{text}");
        }
    }
}

//! Writes the labelled redaction corpus, `tests/corpus/redaction/{dev,test}.jsonl`.
//!
//! `cargo run -p engram-text --example redaction_corpus` (from any folder;
//! the files land under the crate). The output is a pure function of the
//! seeds below: running it again rewrites the same bytes.
//!
//! Every value is synthetic: random characters of the alphabet and length
//! a vendor documents for its tokens (or a checksum-valid card, IBAN, SSN
//! or Chinese id), placed in a context sentence. No real credential and no
//! scanner's test string is copied.
//!
//! The split is by context, not only by value: each family's context
//! templates alternate between the two splits, and the two splits draw
//! their random values from different seeds. Patterns are written against
//! `dev`; `test` measures them on contexts they were not tuned on.
//!
//! One JSON object per line: `{"family", "kind", "text"}`. `kind` is the
//! `SecretKind` name expected for the spans marked `⟦...⟧` in `text`, or
//! `null` for a look-alike that must stay untouched.

use std::fmt::Write as _;
use std::path::Path;

const SEED_DEV: u64 = 0x0d3f_2026_0001;
const SEED_TEST: u64 = 0x7e57_2026_0002;
/// Records per token generator per split.
const PER_TOKEN: usize = 3;

/// SplitMix64: small, seeded, good enough to draw characters.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn chars(&mut self, alphabet: &str, n: usize) -> String {
        let a = alphabet.as_bytes();
        (0..n).map(|_| char::from(a[self.below(a.len())])).collect()
    }
}

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const DIGITS: &str = "0123456789";
const HEX: &str = "0123456789abcdef";
const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const LOWER_ALNUM: &str = "abcdefghijklmnopqrstuvwxyz0123456789";
const URLSAFE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const PASSWORD: &str = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!#$%^*_-+=.?~";

fn base64url(bytes: &[u8]) -> String {
    let a = URLSAFE.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(char::from(a[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

// ------------------------------------------------------------ vendor tokens

/// One token shape: family, expected kind, a typical variable name, and
/// the generator.
struct TokenShape {
    family: &'static str,
    kind: &'static str,
    env: &'static str,
    make: fn(&mut Rng) -> String,
}

macro_rules! shape {
    ($family:literal, $kind:literal, $env:literal, |$r:ident| $body:expr) => {
        TokenShape {
            family: $family,
            kind: $kind,
            env: $env,
            make: |$r: &mut Rng| $body,
        }
    };
}

fn token_shapes() -> Vec<TokenShape> {
    vec![
        // Cloud providers.
        shape!("cloud", "aws_access_key", "AWS_ACCESS_KEY_ID", |r| format!(
            "{}{}",
            r.pick(&["AKIA", "ASIA", "AROA", "AIDA"]),
            r.chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
        )),
        shape!("cloud", "google_api_key", "GOOGLE_API_KEY", |r| format!(
            "AIza{}",
            r.chars(URLSAFE, 35)
        )),
        shape!("cloud", "google_api_key", "GCP_ACCESS_TOKEN", |r| format!(
            "ya29.{}",
            r.chars(URLSAFE, 60)
        )),
        shape!("cloud", "azure_secret", "AZURE_CLIENT_SECRET", |r| format!(
            "{}{}Q~{}",
            r.chars(ALNUM, 3),
            r.chars(DIGITS, 1),
            r.chars(
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_~.-",
                34
            )
        )),
        shape!("cloud", "vault_token", "VAULT_TOKEN", |r| format!(
            "hvs.{}",
            r.chars(URLSAFE, 94)
        )),
        shape!("cloud", "vault_token", "VAULT_TOKEN", |r| format!(
            "s.{}",
            r.chars(ALNUM, 24)
        )),
        shape!("cloud", "heroku_key", "HEROKU_API_KEY", |r| format!(
            "HRKU-AA{}",
            r.chars(URLSAFE, 58)
        )),
        shape!(
            "cloud",
            "databricks_token",
            "DATABRICKS_TOKEN",
            |r| format!("dapi{}", r.chars(HEX, 32))
        ),
        shape!("cloud", "flyio_token", "FLY_API_TOKEN", |r| format!(
            "fm2_{}",
            r.chars(B64, 120)
        )),
        shape!("cloud", "flyio_token", "FLY_ACCESS_TOKEN", |r| format!(
            "fo1_{}",
            r.chars(URLSAFE, 43)
        )),
        shape!("cloud", "api_token", "DIGITALOCEAN_TOKEN", |r| format!(
            "dop_v1_{}",
            r.chars(HEX, 64)
        )),
        shape!("cloud", "api_token", "ALIBABA_ACCESS_KEY_ID", |r| format!(
            "LTAI{}",
            r.chars(ALNUM, 20)
        )),
        shape!("cloud", "api_token", "DOPPLER_TOKEN", |r| format!(
            "dp.pt.{}",
            r.chars(ALNUM, 43)
        )),
        shape!(
            "cloud",
            "api_token",
            "TF_TOKEN_app_terraform_io",
            |r| format!(
                "{}.atlasv1.{}",
                r.chars(LOWER_ALNUM, 14),
                r.chars(URLSAFE, 67)
            )
        ),
        shape!("cloud", "api_token", "DT_API_TOKEN", |r| format!(
            "dt0c01.{}.{}",
            r.chars(UPPER_ALNUM, 24),
            r.chars(UPPER_ALNUM, 64)
        )),
        shape!("cloud", "api_token", "PULUMI_ACCESS_TOKEN", |r| format!(
            "pul-{}",
            r.chars(HEX, 40)
        )),
        shape!("cloud", "api_token", "PLANETSCALE_TOKEN", |r| format!(
            "pscale_tkn_{}",
            r.chars(URLSAFE, 43)
        )),
        // VCS hosts and developer tools.
        shape!("vcs", "github_token", "GITHUB_TOKEN", |r| format!(
            "{}_{}",
            r.pick(&["ghp", "gho", "ghu", "ghs", "ghr"]),
            r.chars(ALNUM, 36)
        )),
        shape!("vcs", "github_token", "GH_TOKEN", |r| format!(
            "github_pat_{}_{}",
            r.chars(ALNUM, 22),
            r.chars(ALNUM, 59)
        )),
        shape!("vcs", "gitlab_token", "GITLAB_TOKEN", |r| format!(
            "{}{}",
            r.pick(&["glpat-", "gldt-", "glrt-", "glsoat-"]),
            r.chars(URLSAFE, 20)
        )),
        shape!("vcs", "sourcegraph_token", "SRC_ACCESS_TOKEN", |r| format!(
            "sgp_{}_{}",
            r.chars(HEX, 16),
            r.chars(HEX, 40)
        )),
        shape!("vcs", "sourcegraph_token", "SRC_ACCESS_TOKEN", |r| format!(
            "sgp_{}",
            r.chars(HEX, 40)
        )),
        shape!("vcs", "atlassian_token", "JIRA_API_TOKEN", |r| format!(
            "ATATT3xFfGF0{}",
            r.chars(
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
                180
            )
        )),
        shape!("vcs", "npm_token", "NPM_TOKEN", |r| format!(
            "npm_{}",
            r.chars(ALNUM, 36)
        )),
        shape!("vcs", "api_token", "PYPI_TOKEN", |r| format!(
            "pypi-AgEIcHlwaS5vcmc{}",
            r.chars(URLSAFE, 70)
        )),
        shape!("vcs", "api_token", "GEM_HOST_API_KEY", |r| format!(
            "rubygems_{}",
            r.chars(HEX, 48)
        )),
        shape!("vcs", "api_token", "CLOJARS_TOKEN", |r| format!(
            "CLOJARS_{}",
            r.chars(LOWER_ALNUM, 60)
        )),
        shape!("vcs", "api_token", "POSTMAN_API_KEY", |r| format!(
            "PMAK-{}-{}",
            r.chars(HEX, 24),
            r.chars(HEX, 34)
        )),
        shape!("vcs", "api_token", "LINEAR_API_KEY", |r| format!(
            "lin_api_{}",
            r.chars(ALNUM, 40)
        )),
        shape!("vcs", "api_token", "SENTRY_AUTH_TOKEN", |r| format!(
            "sntryu_{}",
            r.chars(HEX, 64)
        )),
        shape!("vcs", "api_token", "PREFECT_API_KEY", |r| format!(
            "pnu_{}",
            r.chars(ALNUM, 36)
        )),
        shape!("vcs", "api_token", "GRAFANA_TOKEN", |r| format!(
            "glsa_{}_{}",
            r.chars(ALNUM, 32),
            r.chars(HEX, 8)
        )),
        shape!("vcs", "api_token", "NEW_RELIC_API_KEY", |r| format!(
            "NRAK-{}",
            r.chars(UPPER_ALNUM, 27)
        )),
        // Chat and collaboration.
        shape!("chat", "slack_token", "SLACK_BOT_TOKEN", |r| format!(
            "xoxb-{}-{}-{}",
            r.chars(DIGITS, 12),
            r.chars(DIGITS, 13),
            r.chars(ALNUM, 24)
        )),
        shape!("chat", "slack_token", "SLACK_USER_TOKEN", |r| format!(
            "xoxp-{}-{}-{}-{}",
            r.chars(DIGITS, 12),
            r.chars(DIGITS, 12),
            r.chars(DIGITS, 13),
            r.chars(HEX, 32)
        )),
        shape!("chat", "notion_token", "NOTION_TOKEN", |r| format!(
            "ntn_{}{}",
            r.chars(DIGITS, 11),
            r.chars(ALNUM, 35)
        )),
        shape!("chat", "notion_token", "NOTION_API_KEY", |r| format!(
            "secret_{}",
            r.chars(ALNUM, 43)
        )),
        shape!("chat", "api_token", "TELEGRAM_BOT_TOKEN", |r| format!(
            "{}:AA{}",
            r.chars(DIGITS, 10),
            r.chars(URLSAFE, 33)
        )),
        shape!("chat", "facebook_token", "FB_PAGE_TOKEN", |r| format!(
            "EAA{}{}",
            r.pick(&["C", "M", "B", "G"]),
            r.chars(ALNUM, 140)
        )),
        shape!("chat", "api_token", "SENDGRID_API_KEY", |r| format!(
            "SG.{}.{}",
            r.chars(URLSAFE, 22),
            r.chars(URLSAFE, 43)
        )),
        shape!("chat", "api_token", "BREVO_API_KEY", |r| format!(
            "xkeysib-{}-{}",
            r.chars(HEX, 64),
            r.chars(ALNUM, 16)
        )),
        shape!("chat", "api_token", "TWILIO_API_KEY", |r| format!(
            "SK{}",
            r.chars(HEX, 32)
        )),
        shape!("chat", "api_token", "MAILCHIMP_API_KEY", |r| format!(
            "{}-us{}",
            r.chars(HEX, 32),
            r.range(1, 21)
        )),
        // Payment.
        shape!("payment", "stripe_key", "STRIPE_SECRET_KEY", |r| format!(
            "{}_{}_{}",
            r.pick(&["sk", "rk"]),
            r.pick(&["live", "test"]),
            r.chars(ALNUM, 99)
        )),
        shape!(
            "payment",
            "stripe_key",
            "STRIPE_WEBHOOK_SECRET",
            |r| format!("whsec_{}", r.chars(ALNUM, 32))
        ),
        shape!("payment", "api_token", "SQUARE_ACCESS_TOKEN", |r| format!(
            "EAAA{}",
            r.chars(URLSAFE, 60)
        )),
        shape!("payment", "api_token", "SHOPIFY_ACCESS_TOKEN", |r| format!(
            "{}_{}",
            r.pick(&["shpat", "shpca", "shppa", "shpss"]),
            r.chars(HEX, 32)
        )),
        shape!("payment", "api_token", "SHIPPO_API_TOKEN", |r| format!(
            "shippo_live_{}",
            r.chars(HEX, 40)
        )),
        shape!("payment", "api_token", "FLW_SECRET_KEY", |r| format!(
            "FLWSECK_TEST-{}-X",
            r.chars("abcdefgh0123456789", 32)
        )),
        shape!("payment", "api_token", "EASYPOST_API_KEY", |r| format!(
            "EZAK{}",
            r.chars(ALNUM, 54)
        )),
        // AI vendors.
        shape!("ai", "openai_key", "OPENAI_API_KEY", |r| format!(
            "sk-proj-{}T3BlbkFJ{}",
            r.chars(URLSAFE, 74),
            r.chars(URLSAFE, 74)
        )),
        shape!("ai", "openai_key", "OPENAI_API_KEY", |r| format!(
            "sk-{}T3BlbkFJ{}",
            r.chars(ALNUM, 20),
            r.chars(ALNUM, 20)
        )),
        shape!("ai", "anthropic_key", "ANTHROPIC_API_KEY", |r| format!(
            "sk-ant-api03-{}AA",
            r.chars(URLSAFE, 93)
        )),
        shape!("ai", "huggingface_token", "HF_TOKEN", |r| format!(
            "hf_{}",
            r.chars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 34)
        )),
        shape!("ai", "api_token", "GROQ_API_KEY", |r| format!(
            "gsk_{}",
            r.chars(ALNUM, 52)
        )),
        shape!("ai", "api_token", "PERPLEXITY_API_KEY", |r| format!(
            "pplx-{}",
            r.chars(ALNUM, 48)
        )),
        shape!("ai", "api_token", "REPLICATE_API_TOKEN", |r| format!(
            "r8_{}",
            r.chars(ALNUM, 37)
        )),
        shape!("ai", "api_token", "XAI_API_KEY", |r| format!(
            "xai-{}",
            r.chars(ALNUM, 80)
        )),
        shape!("ai", "api_token", "LANGSMITH_API_KEY", |r| format!(
            "lsv2_pt_{}_{}",
            r.chars(HEX, 32),
            r.chars(HEX, 10)
        )),
        // Identity and secret managers.
        shape!(
            "identity",
            "onepassword_token",
            "OP_SERVICE_ACCOUNT_TOKEN",
            |r| format!("ops_eyJ{}", r.chars(B64, 300))
        ),
        shape!(
            "identity",
            "onepassword_token",
            "OP_SECRET_KEY",
            |r| format!(
                "A3-{}-{}-{}-{}-{}",
                r.chars(UPPER_ALNUM, 6),
                r.chars(UPPER_ALNUM, 11),
                r.chars(UPPER_ALNUM, 5),
                r.chars(UPPER_ALNUM, 5),
                r.chars(UPPER_ALNUM, 5)
            )
        ),
        shape!("identity", "api_token", "AGE_KEY", |r| format!(
            "AGE-SECRET-KEY-1{}",
            r.chars("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)
        )),
    ]
}

/// Contexts for vendor tokens: `{}` is the token, `{ENV}` its variable.
/// Even entries belong to dev, odd ones to test.
const TOKEN_CONTEXTS: &[&str] = &[
    "export {ENV}={}",
    "{ENV}: {}",
    "I pasted {} into the CI settings yesterday.",
    "the new one is {} - rotate the old one",
    "{\"{ENV}\":\"{}\"}",
    "env:\n  {ENV}: \"{}\"\n",
    "用这个 {} 登录",
    "这是新的令牌：{}，用完删掉",
    "{}",
    "- staging: {}\n- prod: rotated",
    "client = Client(\"{}\")",
    "ok so {} works now",
    "{ENV}='{}'",
    "set it to {}, thanks!",
    "[{}]",
    "<value>{}</value>",
    "Using {} for the staging deploy.",
    "got 401 with {} again?",
    "docker run -e {ENV}={} app:latest",
    "`{}`",
];

/// Vendors that are only recognised by a key word next to the value.
/// `(family, kind, key, generator)` of a vendor recognised by its key word.
type KeywordShape = (
    &'static str,
    &'static str,
    &'static str,
    fn(&mut Rng) -> String,
);

fn keyword_shapes() -> Vec<KeywordShape> {
    vec![
        ("identity", "okta_token", "OKTA_API_TOKEN", |r| {
            format!("00{}", r.chars(URLSAFE, 40))
        }),
        ("identity", "okta_token", "okta_client_token", |r| {
            format!("00{}", r.chars(ALNUM, 40))
        }),
        ("cloud", "heroku_key", "HEROKU_API_KEY", |r| uuid(r)),
        ("vcs", "atlassian_token", "JIRA_TOKEN", |r| {
            r.chars(ALNUM, 24)
        }),
        ("vcs", "atlassian_token", "confluence_api_token", |r| {
            r.chars(ALNUM, 24)
        }),
    ]
}

/// Vendors whose secrets have no prefix: recognised by the key they are
/// assigned to. `(vendor, alphabet, length)`.
const KEYWORD_VENDORS: &[(&str, &str, usize)] = &[
    ("adafruit", "abcdefghijklmnopqrstuvwxyz0123456789_-", 32),
    ("algolia", LOWER_ALNUM, 32),
    ("bitbucket", LOWER_ALNUM, 32),
    ("cloudflare", "abcdefghijklmnopqrstuvwxyz0123456789_-", 40),
    ("codecov", LOWER_ALNUM, 32),
    ("datadog", LOWER_ALNUM, 40),
    ("discord", HEX, 64),
    ("dropbox", LOWER_ALNUM, 15),
    ("etsy", LOWER_ALNUM, 24),
    ("fastly", "abcdefghijklmnopqrstuvwxyz0123456789=_-", 32),
    ("finnhub", LOWER_ALNUM, 20),
    ("freshbooks", LOWER_ALNUM, 64),
    ("gitter", "abcdefghijklmnopqrstuvwxyz0123456789_-", 40),
    ("hubspot", HEX, 32),
    ("kucoin", HEX, 24),
    (
        "launchdarkly",
        "abcdefghijklmnopqrstuvwxyz0123456789=_-",
        40,
    ),
    ("mattermost", LOWER_ALNUM, 26),
    ("netlify", "abcdefghijklmnopqrstuvwxyz0123456789=_-", 43),
    ("sentry", HEX, 64),
    ("twitter", LOWER_ALNUM, 45),
    ("travis", LOWER_ALNUM, 22),
    ("twitch", LOWER_ALNUM, 30),
    ("cohere", ALNUM, 40),
    ("mistral", ALNUM, 32),
];

const KEYWORD_VENDOR_KEYS: &[&str] = &[
    "{v}_api_token",
    "{V}_TOKEN",
    "{v}Token",
    "{v}_api_key",
    "{V}_SECRET",
    "{v}.access_token",
];

const KEYWORD_CONTEXTS: &[&str] = &[
    "{ENV}={}",
    "{ENV}: {}",
    "\"{ENV}\": \"{}\"",
    "export {ENV}=\"{}\"",
];

fn uuid(r: &mut Rng) -> String {
    format!(
        "{}-{}-4{}-{}{}-{}",
        r.chars(HEX, 8),
        r.chars(HEX, 4),
        r.chars(HEX, 3),
        r.pick(&["8", "9", "a", "b"]),
        r.chars(HEX, 3),
        r.chars(HEX, 12)
    )
}

// ------------------------------------------------------------ personal data

fn luhn_complete(r: &mut Rng, prefix: &str, len: usize) -> String {
    let mut digits: Vec<u32> = prefix.chars().filter_map(|c| c.to_digit(10)).collect();
    while digits.len() < len - 1 {
        digits.push(r.below(10) as u32);
    }
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if i % 2 == 0 {
                let x = d * 2;
                if x > 9 { x - 9 } else { x }
            } else {
                d
            }
        })
        .sum();
    digits.push((10 - sum % 10) % 10);
    digits.iter().map(|d| char::from(b'0' + *d as u8)).collect()
}

fn group(s: &str, sizes: &[usize], seps: &[char]) -> String {
    let mut out = String::new();
    let mut at = 0;
    for (i, &n) in sizes.iter().enumerate() {
        if i > 0 {
            out.push(seps[(i - 1) % seps.len()]);
        }
        out.push_str(&s[at..at + n]);
        at += n;
    }
    out
}

fn card(r: &mut Rng) -> String {
    let (prefix, len) = *r.pick(&[
        ("4", 16),
        ("51", 16),
        ("55", 16),
        ("2221", 16),
        ("37", 15),
        ("34", 15),
        ("6011", 16),
        ("4", 19),
    ]);
    let number = luhn_complete(r, prefix, len);
    let seps: Vec<char> = match r.below(6) {
        0 => vec![' '],
        1 => vec!['-'],
        2 => vec!['.'],
        3 => vec!['-', ' ', '-'],
        4 => vec![' ', '-', ' '],
        _ => return number,
    };
    let sizes: &[usize] = match len {
        15 => &[4, 6, 5],
        19 => &[4, 4, 4, 4, 3],
        _ => &[4, 4, 4, 4],
    };
    group(&number, sizes, &seps)
}

fn iban(r: &mut Rng) -> String {
    let (cc, bban) = match r.below(7) {
        0 => ("DE", r.chars(DIGITS, 18)),
        1 => (
            "GB",
            format!("{}{}", r.chars(UPPER, 4), r.chars(DIGITS, 14)),
        ),
        2 => ("FR", r.chars(DIGITS, 23)),
        3 => (
            "NL",
            format!("{}{}", r.chars(UPPER, 4), r.chars(DIGITS, 10)),
        ),
        4 => ("ES", r.chars(DIGITS, 20)),
        5 => (
            "IT",
            format!("{}{}", r.chars(UPPER, 1), r.chars(DIGITS, 22)),
        ),
        _ => ("CH", r.chars(DIGITS, 17)),
    };
    let numeric: String = format!("{bban}{cc}00")
        .chars()
        .map(|c| {
            if c.is_ascii_digit() {
                c.to_string()
            } else {
                (u32::from(c) - u32::from('A') + 10).to_string()
            }
        })
        .collect();
    let rem = numeric
        .bytes()
        .fold(0u32, |acc, b| (acc * 10 + u32::from(b - b'0')) % 97);
    let iban = format!("{cc}{:02}{bban}", 98 - rem);
    if r.below(2) == 0 {
        iban
    } else {
        let mut out = String::new();
        for (i, ch) in iban.chars().enumerate() {
            if i > 0 && i % 4 == 0 {
                out.push(' ');
            }
            out.push(ch);
        }
        out
    }
}

fn ssn(r: &mut Rng) -> String {
    let area = loop {
        let a = r.range(1, 899);
        if a != 666 {
            break a;
        }
    };
    format!("{area:03}-{:02}-{:04}", r.range(1, 99), r.range(1, 9999))
}

fn us_phone(r: &mut Rng) -> String {
    let area = format!("{}{}", r.range(2, 9), r.chars(DIGITS, 2));
    let exchange = format!("{}{}", r.range(2, 9), r.chars(DIGITS, 2));
    let line = r.chars(DIGITS, 4);
    match r.below(6) {
        0 => format!("({area}) {exchange}-{line}"),
        1 => format!("{area}-{exchange}-{line}"),
        2 => format!("{area}.{exchange}.{line}"),
        3 => format!("+1 {area} {exchange} {line}"),
        4 => format!("1-{area}-{exchange}-{line}"),
        _ => format!("+1 ({area}) {exchange}-{line}"),
    }
}

fn intl_phone(r: &mut Rng) -> String {
    match r.below(8) {
        0 => format!("+44 20 {} {}", r.chars(DIGITS, 4), r.chars(DIGITS, 4)),
        1 => format!("+49 30 {}", r.chars(DIGITS, 8)),
        2 => format!(
            "+33 {} {} {} {} {}",
            r.range(1, 9),
            r.chars(DIGITS, 2),
            r.chars(DIGITS, 2),
            r.chars(DIGITS, 2),
            r.chars(DIGITS, 2)
        ),
        3 => format!("+81 3-{}-{}", r.chars(DIGITS, 4), r.chars(DIGITS, 4)),
        4 => format!(
            "+86 1{}{} {} {}",
            r.range(3, 9),
            r.chars(DIGITS, 1),
            r.chars(DIGITS, 4),
            r.chars(DIGITS, 4)
        ),
        5 => format!("0044 20 {} {}", r.chars(DIGITS, 4), r.chars(DIGITS, 4)),
        6 => format!(
            "+61 4{} {} {}",
            r.chars(DIGITS, 2),
            r.chars(DIGITS, 3),
            r.chars(DIGITS, 3)
        ),
        _ => format!(
            "1{}{}{}",
            r.range(3, 9),
            r.chars(DIGITS, 1),
            r.chars(DIGITS, 8)
        ),
    }
}

fn cn_id(r: &mut Rng) -> String {
    let province = *r.pick(&["11", "31", "44", "51", "33", "42"]);
    let body = format!(
        "{province}{}{}{:02}{:02}{}",
        r.chars(DIGITS, 4),
        r.range(1950, 2005),
        r.range(1, 12),
        r.range(1, 28),
        r.chars(DIGITS, 3)
    );
    const WEIGHTS: [u32; 17] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
    let sum: u32 = body
        .bytes()
        .zip(WEIGHTS)
        .map(|(b, w)| u32::from(b - b'0') * w)
        .sum();
    let check = b"10X98765432"[(sum % 11) as usize];
    format!("{body}{}", char::from(check))
}

fn email(r: &mut Rng) -> String {
    let first = *r.pick(&[
        "john", "maria", "li.wei", "a.b", "ops", "sam", "priya", "k.tanaka",
    ]);
    match r.below(8) {
        0 => format!("{first}{}@example.com", r.range(1, 99)),
        1 => format!("{first}+{}@mail.example.co.uk", r.chars(LOWER, 4)),
        2 => format!("{first}@corp-{}.example.org", r.chars(LOWER, 5)),
        3 => format!("josé.garcía{}@correo.example.es", r.range(1, 9)),
        4 => format!("müller.{}@bücher.example", r.chars(LOWER, 3)),
        5 => format!("用户{}@例子.中国", r.range(1, 99)),
        6 => format!("иван.{}@пример.рф", r.chars(LOWER, 3)),
        _ => format!(
            "{}@{}.example.net",
            r.chars(LOWER_ALNUM, 8),
            r.chars(LOWER, 6)
        ),
    }
}

type PiiShape = (
    &'static str,
    &'static str,
    fn(&mut Rng) -> String,
    &'static [&'static str],
);

fn pii_shapes() -> Vec<PiiShape> {
    vec![
        (
            "pii_card",
            "card_number",
            card,
            &[
                "card {} exp 09/28",
                "pay with {} please",
                "卡号 {}",
                "{\"card\":\"{}\"}",
                "the number is {}.",
                "charged {} twice",
            ],
        ),
        (
            "pii_iban",
            "iban",
            iban,
            &[
                "IBAN: {}",
                "wire it to {} by Friday",
                "收款账户 {}",
                "{\"iban\":\"{}\"}",
                "account {} (personal)",
                "send to: {}",
            ],
        ),
        (
            "pii_ssn",
            "ssn",
            ssn,
            &[
                "SSN: {}",
                "her social security number is {}",
                "{\"ssn\":\"{}\"}",
                "ssn {} on the W-2",
                "tax id {}",
                "SSN#{}",
            ],
        ),
        (
            "pii_phone",
            "phone",
            us_phone,
            &[
                "call me at {}",
                "my number is {}",
                "phone: {}",
                "reach her on {} after 5",
                "{\"phone\":\"{}\"}",
                "电话 {}",
                "text {} when you land",
                "Tel. {}",
            ],
        ),
        (
            "pii_phone",
            "phone",
            intl_phone,
            &[
                "call me at {}",
                "my number is {}",
                "phone: {}",
                "WhatsApp {}",
                "mobile {}",
                "手机 {}",
                "office line {}",
                "contact: {}",
            ],
        ),
        (
            "pii_cn_id",
            "cn_id",
            cn_id,
            &[
                "身份证号 {}",
                "id {}.",
                "证件号码：{}，请保密",
                "{\"id_card\":\"{}\"}",
            ],
        ),
        (
            "pii_email",
            "email",
            email,
            &[
                "mail me at {}",
                "contact: {}",
                "{\"email\":\"{}\"}",
                "发邮件到{}谢谢",
                "cc {} please",
                "<{}>",
                "From: Sam <{}>",
                "reply to {}.",
            ],
        ),
    ]
}

// ------------------------------------------------ generic secrets and DB URLs

const SECRET_KEYS: &[&str] = &[
    "api_key",
    "API_KEY",
    "apiKey",
    "client_secret",
    "SECRET_KEY",
    "auth_token",
    "access_token",
    "X-Api-Key",
    "token",
    "webhook_secret",
    "app_secret",
    "MAPS_KEY",
    "signing_secret",
    "encryption_key",
    "secret",
    "license_key",
    "DATADOG_API_KEY",
    "service_token",
];

const PASSWORD_KEYS: &[&str] = &[
    "password",
    "DB_PASSWORD",
    "passwd",
    "pwd",
    "smtp_password",
    "PGPASSWORD",
    "admin_pass",
    "Password",
];

/// Assignment forms of config files, shells and programming languages.
const ASSIGN_FORMS: &[&str] = &[
    "{K}={V}",
    "{K}: {V}",
    "\"{K}\": \"{V}\"",
    "{K} = '{V}'",
    "--{K} {V}",
    "<{K}>{V}</{K}>",
    "{K}:={V}",
    "{\"{K}\":\"{V}\",\"region\":\"eu-west-1\"}",
    "my {K} is {V}",
    "{K} => \"{V}\"",
    "set {K}={V} in .env",
    "?{K}={V}&page=2",
    "var {K} string = \"{V}\"",
    "const {K}: &str = \"{V}\";",
    "{K}: |\n  {V}\n",
    "<{K}>\n    {V}\n</{K}>",
    "{K} ?= \"{V}\"",
    "${K} .= \"{V}\";",
    "{K},{V},",
    "os.setenv(\"{K}\", \"{V}\")",
    "\\\"{K}\\\": \\\"{V}\\\"",
    "<add key=\"{K}\" value=\"{V}\" />",
    "{K} ::= {V}",
    "headers = {\"{K}\": \"{V}\"}",
];

fn secret_value(r: &mut Rng) -> String {
    match r.below(6) {
        0 => r.chars(HEX, 32),
        1 => r.chars(HEX, 40),
        2 => {
            let n = r.range(24, 48);
            r.chars(ALNUM, n)
        }
        3 => uuid(r),
        4 => r.chars(HEX, 64),
        _ => r.chars(URLSAFE, 32),
    }
}

fn password_value(r: &mut Rng) -> String {
    loop {
        let n = r.range(8, 18);
        let p = r.chars(PASSWORD, n);
        let classes = [
            p.bytes().any(|b| b.is_ascii_uppercase()),
            p.bytes().any(|b| b.is_ascii_lowercase()),
            p.bytes().any(|b| b.is_ascii_digit()),
        ];
        // `$` and `%` start variable references, not passwords.
        if classes.iter().filter(|&&c| c).count() >= 2 && !p.starts_with(['$', '%']) {
            return p;
        }
    }
}

const DB_URL_FORMS: &[&str] = &[
    "DATABASE_URL=postgres://app:{V}@db.internal:5432/app",
    "mongodb+srv://admin:{V}@cluster0.example.mongodb.net/prod",
    "redis://:{V}@cache.local:6379/0",
    "mysql://root:{V}@10.0.0.5:3306/shop",
    "amqp://worker:{V}@rabbit.example/vhost",
    "postgresql://reporting:{V}@analytics.example.com/warehouse?sslmode=require",
];

const CONN_STRING_FORMS: &[&str] = &[
    "Server=tcp:sql.example.net,1433;Database=app;User ID=app;Password={V};Encrypt=true",
    "jdbc:postgresql://db:5432/app?user=app&password={V}",
    "curl -u deploy:{V} https://ci.example.com/api/json",
    "Data Source=db;Initial Catalog=crm;User Id=sa;Pwd={V};",
];

fn db_password(r: &mut Rng) -> String {
    loop {
        let n = r.range(10, 20);
        let p = r.chars(
            "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!$^*_-+.~",
            n,
        );
        if p.bytes().any(|b| b.is_ascii_digit()) && p.bytes().any(|b| b.is_ascii_alphabetic()) {
            return p;
        }
    }
}

fn jwt(r: &mut Rng) -> String {
    let header = format!(
        "{{\"alg\":\"{}\",\"typ\":\"JWT\"}}",
        r.pick(&["HS256", "RS256", "ES256"])
    );
    let payload = format!(
        "{{\"sub\":\"{}\",\"iat\":{},\"role\":\"{}\"}}",
        r.chars(DIGITS, 8),
        1_700_000_000 + r.below(50_000_000),
        r.pick(&["admin", "user", "service"])
    );
    format!(
        "{}.{}.{}",
        base64url(header.as_bytes()),
        base64url(payload.as_bytes()),
        r.chars(URLSAFE, 43)
    )
}

fn pem(r: &mut Rng, escaped: bool) -> String {
    let label = *r.pick(&[
        "RSA PRIVATE KEY",
        "PRIVATE KEY",
        "EC PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY",
    ]);
    let nl = if escaped { "\\n" } else { "\n" };
    let mut s = format!("-----BEGIN {label}-----");
    for _ in 0..r.range(3, 8) {
        s.push_str(nl);
        s.push_str(&r.chars(B64, 64));
    }
    s.push_str(nl);
    s.push_str(&r.chars(B64, 20));
    s.push_str("==");
    s.push_str(nl);
    let _ = write!(s, "-----END {label}-----");
    s
}

// --------------------------------------------------------------- look-alikes

/// Look-alike generators: each takes a variant number; even variants are
/// dev contexts, odd ones test contexts.
type Negative = (&'static str, fn(&mut Rng, usize) -> String);

fn negatives() -> Vec<Negative> {
    vec![
        // Variants come in pairs, (2k, 2k + 1): the same trap in two
        // surface forms, one per split.
        ("filename", |r, v| match v % 16 {
            0 => format!(
                "IMG_{}_{}.jpg",
                r.range(2015, 2025) * 10000 + r.range(101, 1228),
                r.chars(DIGITS, 6)
            ),
            1 => format!(
                "Screenshot {}-{:02}-{:02} at {}.{:02}.{:02}.png",
                r.range(2019, 2026),
                r.range(1, 12),
                r.range(1, 28),
                r.range(1, 12),
                r.range(0, 59),
                r.range(0, 59)
            ),
            2 => format!(
                "uploaded wallpaper-{}-{}-xoxp-4k-ultra-hd-{}.jpg",
                r.range(2010, 2024),
                r.range(100, 999),
                r.chars(LOWER_ALNUM, 6)
            ),
            3 => format!(
                "DSC-{}-{}-ghp_{}.JPG",
                r.range(2010, 2024),
                r.range(100, 999),
                r.chars(ALNUM, 36)
            ),
            4 => format!(
                "scan-{}-{}-{}.pdf",
                r.range(200, 999),
                r.range(200, 999),
                r.chars(DIGITS, 4)
            ),
            5 => format!(
                "see attachment {}-{:02}-{}_final.docx",
                r.range(100, 899),
                r.range(10, 99),
                r.chars(DIGITS, 4)
            ),
            6 => format!(
                "photo_{}-{}-sk-{}.png",
                r.range(2010, 2024),
                r.range(100, 999),
                r.chars(ALNUM, 24)
            ),
            7 => format!(
                "renders/frame-xoxb-{}-{}.webp",
                r.chars(DIGITS, 10),
                r.chars(ALNUM, 20)
            ),
            8 => format!("report_{}.csv", luhn_complete(r, "4", 16)),
            9 => format!("statement-{}.pdf", luhn_complete(r, "5", 16)),
            10 => format!(
                "backup-{}-{:02}-{:02}.tar.gz",
                r.range(2019, 2026),
                r.range(1, 12),
                r.range(1, 28)
            ),
            11 => format!(
                "/var/log/app/{}-{}.log",
                r.chars(HEX, 12),
                r.chars(DIGITS, 10)
            ),
            12 => format!("download {}.zip", r.chars(ALNUM, 40)),
            13 => format!("cache/{}.json", r.chars(HEX, 64)),
            14 => format!("assets/{}/{}@2x.png", r.chars(HEX, 8), r.chars(LOWER, 6)),
            _ => format!(
                "voice-memo-+{}-{}.m4a.mp3",
                r.chars(DIGITS, 11),
                r.range(1, 9)
            ),
        }),
        ("uuid_url", |r, v| {
            let u = uuid(r);
            match v % 6 {
                0 => format!("https://app.example.com/projects/{u}/settings"),
                1 => format!("opened https://console.example.io/runs/{u}?tab=logs"),
                2 => format!("{{\"id\":\"{u}\",\"status\":\"ok\"}}"),
                3 => format!("request_id={u} took 120ms"),
                4 => format!("trace {u} span {}", r.chars(HEX, 16)),
                _ => format!("idempotency_key: {u}"),
            }
        }),
        ("git_sha", |r, v| {
            let sha = r.chars(HEX, 40);
            match v % 6 {
                0 => format!("fixed in {sha}, see the PR"),
                1 => format!("commit {sha}\nAuthor: dev"),
                2 => format!("git checkout {}", &sha[..12]),
                3 => format!("merged {} into main", &sha[..7]),
                4 => format!("sha256:{}{}", sha, r.chars(HEX, 24)),
                _ => format!("HEAD is now at {} fix flaky test", &sha[..10]),
            }
        }),
        ("version", |r, v| match v % 6 {
            0 => format!(
                "version {}.{}.{}",
                r.range(0, 20),
                r.range(0, 40),
                r.range(0, 200)
            ),
            1 => format!(
                "bump to v{}.{}.{}-rc.{}+build.{}",
                r.range(0, 9),
                r.range(0, 20),
                r.range(0, 30),
                r.range(1, 9),
                r.range(100, 9999)
            ),
            2 => format!(
                "node {}.{}.{} and python 3.{}.{}",
                r.range(16, 22),
                r.range(0, 20),
                r.range(0, 9),
                r.range(8, 13),
                r.range(0, 9)
            ),
            3 => format!(
                "ubuntu-{}.04 kernel {}.{}.{}-{}-generic",
                r.range(18, 24),
                r.range(4, 6),
                r.range(0, 19),
                r.range(0, 99),
                r.range(100, 999)
            ),
            4 => format!(
                "npm i lodash@{}.{}.{}",
                r.range(1, 4),
                r.range(0, 17),
                r.range(0, 21)
            ),
            _ => format!(
                "build {}{:02}{:02}.{}",
                r.range(2020, 2026),
                r.range(1, 12),
                r.range(1, 28),
                r.range(1, 9999)
            ),
        }),
        ("datetime", |r, v| match v % 6 {
            0 => format!(
                "{}-{:02}-{:02}T{:02}:{:02}:{:02}.{}Z",
                r.range(2000, 2030),
                r.range(1, 12),
                r.range(1, 28),
                r.range(0, 23),
                r.range(0, 59),
                r.range(0, 59),
                r.chars(DIGITS, 3)
            ),
            1 => format!(
                "meeting on {:02}/{:02}/{} at {}:{:02}",
                r.range(1, 28),
                r.range(1, 12),
                r.range(2000, 2030),
                r.range(1, 12),
                r.range(0, 59)
            ),
            2 => format!(
                "window {:02}:00-{:02}:00 UTC on {}.{:02}.{:02}",
                r.range(0, 11),
                r.range(12, 23),
                r.range(2000, 2030),
                r.range(1, 12),
                r.range(1, 28)
            ),
            3 => format!(
                "epoch {} ms",
                1_600_000_000_000u64 + r.next() % 100_000_000_000
            ),
            4 => format!(
                "会议在 {}年{}月{}日 {}:00",
                r.range(2020, 2030),
                r.range(1, 12),
                r.range(1, 28),
                r.range(8, 18)
            ),
            _ => format!(
                "took {}.{}s (p99 {}ms)",
                r.range(0, 99),
                r.chars(DIGITS, 3),
                r.range(100, 9999)
            ),
        }),
        ("number", |r, v| match v % 20 {
            0 => format!(
                "order #{}-{}-{}",
                r.range(200, 999),
                r.range(200, 999),
                r.chars(DIGITS, 4)
            ),
            1 => format!(
                "invoice INV-{}-{}-{}",
                r.range(200, 999),
                r.range(200, 999),
                r.chars(DIGITS, 4)
            ),
            2 => "ISBN 978-0-306-40615-7".to_owned(),
            3 => format!("ISSN {}-{}", r.chars(DIGITS, 4), r.chars(DIGITS, 4)),
            4 => format!("port {} pid {}", r.range(1024, 65535), r.range(100, 99999)),
            5 => format!("{} rows in {} ms", r.chars(DIGITS, 9), r.range(1, 999)),
            6 => format!(
                "ip 10.{}.{}.{} mask 255.255.255.0",
                r.range(0, 255),
                r.range(0, 255),
                r.range(0, 255)
            ),
            7 => format!(
                "MAC {}:{}:{}:{}:{}:{}",
                r.chars(HEX, 2),
                r.chars(HEX, 2),
                r.chars(HEX, 2),
                r.chars(HEX, 2),
                r.chars(HEX, 2),
                r.chars(HEX, 2)
            ),
            8 => format!(
                "total ${},{}.{:02}",
                r.range(1, 999),
                r.chars(DIGITS, 3),
                r.range(0, 99)
            ),
            9 => format!(
                "growth +{}.{}% to {},{},{}",
                r.range(1, 99),
                r.range(0, 9),
                r.range(1, 99),
                r.chars(DIGITS, 3),
                r.chars(DIGITS, 3)
            ),
            10 => format!(
                "tracking 1Z{}{}",
                r.chars(UPPER_ALNUM, 6),
                r.chars(DIGITS, 10)
            ),
            11 => format!("zip {}-{}", r.chars(DIGITS, 5), r.chars(DIGITS, 4)),
            12 => format!(
                "coordinates {}.{}, -{}.{}",
                r.range(10, 60),
                r.chars(DIGITS, 4),
                r.range(10, 120),
                r.chars(DIGITS, 4)
            ),
            13 => format!(
                "lat/long +{}.{}, +{}.{}",
                r.range(10, 60),
                r.chars(DIGITS, 6),
                r.range(10, 120),
                r.chars(DIGITS, 6)
            ),
            14 => format!(
                "ticket PROJ-{} and PR #{}",
                r.range(1, 99999),
                r.range(1, 9999)
            ),
            15 => format!(
                "build #{} (job {}-{}-{})",
                r.range(100, 9999),
                r.range(200, 999),
                r.range(200, 999),
                r.chars(DIGITS, 4)
            ),
            16 => format!(
                "sku {}-{:02}-{}",
                r.range(100, 999),
                r.range(10, 99),
                r.chars(DIGITS, 3)
            ),
            17 => format!(
                "part no. {}-{}-{}",
                r.chars(DIGITS, 3),
                r.chars(DIGITS, 3),
                r.chars(DIGITS, 3)
            ),
            18 => format!(
                "diff +{} -{} lines",
                r.range(1000, 99999),
                r.range(100, 9999)
            ),
            _ => format!(
                "score went from +{} to +{}",
                r.range(100, 9999),
                r.range(10_000, 99_999_999)
            ),
        }),
        ("checksum_invalid", |r, v| match v % 6 {
            0 => {
                let mut c = luhn_complete(r, "4", 16);
                let last = c.pop().and_then(|d| d.to_digit(10)).unwrap_or(0);
                format!("card {c}{}", (last + 1) % 10)
            }
            1 => format!("SSN-like 000-{:02}-{:04}", r.range(1, 99), r.range(1, 9999)),
            2 => format!("ref 666-{:02}-{:04}", r.range(1, 99), r.range(1, 9999)),
            3 => format!("IBAN DE00{}", r.chars(DIGITS, 18)),
            4 => format!("account GB00 {} {}", r.chars(UPPER, 4), r.chars(DIGITS, 14)),
            _ => format!("reference {}", r.chars(DIGITS, 16).replacen('0', "1", 1)),
        }),
        ("key_value_benign", |r, v| match v % 24 {
            0 => "token_type=bearer expires_in=3600".to_owned(),
            1 => format!("max_tokens={}", r.range(256, 8192)),
            2 => format!("password_min_length: {}", r.range(8, 16)),
            3 => format!("api_key_id={}", r.chars(DIGITS, 6)),
            4 => "api_key=${API_KEY}".to_owned(),
            5 => "password: <your-password>".to_owned(),
            6 => "secret = os.environ['APP_SECRET']".to_owned(),
            7 => "SECRET_KEY = env('DJANGO_SECRET_KEY')".to_owned(),
            8 => format!("next_page_token={}", r.chars(URLSAFE, 32)),
            9 => "primary_key=id".to_owned(),
            10 => format!("cache_key=user:{}:profile", r.range(1, 99999)),
            11 => "token: str".to_owned(),
            12 => "password = getpass.getpass()".to_owned(),
            13 => "auth: true".to_owned(),
            14 => "api_key_file=/etc/keys/api.key".to_owned(),
            15 => format!("csrf_token={}", r.chars(ALNUM, 32)),
            16 => "OPENAI_API_KEY=sk-your-key-here".to_owned(),
            17 => "the password field is required".to_owned(),
            18 => format!("tokens used: {}", r.range(100, 99999)),
            19 => "secret: {{ .Values.secretName }}".to_owned(),
            20 => "key: value".to_owned(),
            21 => format!("public_key={}", r.chars(B64, 44)),
            22 => "password=changeme".to_owned(),
            _ => format!("sort_key={}#{}", r.chars(LOWER, 5), r.range(1, 999)),
        }),
        ("prefix_prose", |_, v| {
            const TEXTS: &[&str] = &[
                "the ghp_ prefix marks a personal access token",
                "Slack bot tokens start with xoxb-",
                "AKIA is how AWS access key ids begin",
                "sgp_ tokens come from Sourcegraph",
                "Vault service tokens look like hvs. followed by random text",
                "Heroku's new keys start with HRKU-",
                "Facebook page tokens begin with EAA",
                "use s.execute() for that query",
                "1Password service accounts use ops_ tokens",
                "Databricks tokens start with dapi",
                "the Azure secret has a Q~ in it",
                "Fly.io macaroons start fm2_",
                "Notion switched to ntn_ tokens",
                "an sk-ant key is Anthropic's",
                "xoxp-style user tokens are deprecated",
                "the string 'secret_' prefixes Notion's old tokens",
                "glpat- tokens expire after a year",
                "tokens like SK followed by 32 hex chars are Twilio keys",
                "use the eyJ header to spot a JWT",
                "sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                "ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
                "AKIAXXXXXXXXXXXXXXXX",
                "hvs.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                "Authorization: Bearer <token>",
            ];
            const _: () = assert!(
                TEXTS.len().is_multiple_of(2),
                "even: variants alternate splits"
            );
            TEXTS[v % TEXTS.len()].to_owned()
        }),
        ("email_like", |r, v| match v % 8 {
            0 => "git clone git@github.com:org/repo.git".to_owned(),
            1 => format!("icon@{}x.png", r.range(2, 3)),
            2 => format!(
                "npm i react@{}.{}.{}",
                r.range(16, 19),
                r.range(0, 3),
                r.range(0, 9)
            ),
            3 => format!("thanks @{} for the review", r.chars(LOWER, 7)),
            4 => "ping user@ later".to_owned(),
            5 => format!("docker pull nginx@sha256:{}", r.chars(HEX, 64)),
            6 => "email me at name at example dot com".to_owned(),
            _ => format!(
                "ssh://git@git.example.com:22/team/{}.git",
                r.chars(LOWER, 6)
            ),
        }),
        ("hash_blob", |r, v| match v % 8 {
            0 => format!("sha256 {}", r.chars(HEX, 64)),
            1 => format!("md5sum {}  file.tar", r.chars(HEX, 32)),
            2 => format!("integrity=\"sha512-{}==\"", r.chars(B64, 86)),
            3 => format!("data:image/png;base64,{}", r.chars(B64, 120)),
            4 => format!("\"signature\":\"{}\"", r.chars(B64, 88)),
            5 => format!("etag W/\"{}\"", r.chars(HEX, 32)),
            6 => format!("color #{} on #{}", r.chars(HEX, 6), r.chars(HEX, 6)),
            _ => format!("nonce={} (public)", r.chars(HEX, 16)),
        }),
        ("code_ident", |r, v| match v % 8 {
            0 => "const key = getApiKeyFromEnv();".to_owned(),
            1 => "SECRET_KEY_BASE is set by the platform".to_owned(),
            2 => "class TokenBucketRateLimiter implements RateLimiter".to_owned(),
            3 => format!("fn password_hash(input: &str) -> [u8; {}]", r.range(16, 64)),
            4 => "if (token == null) return unauthorized();".to_owned(),
            5 => "let secret = vault.read(\"kv/app\")?;".to_owned(),
            6 => format!("apiKeyHeaderName = \"X-Api-Key-{}\"", r.range(1, 9)),
            _ => "auth_method: oauth2".to_owned(),
        }),
        ("config_benign", |r, v| {
            const TEXTS: &[&str] = &[
                "timeout_seconds: 30",
                "retries=5 backoff=exponential",
                "log_level=debug",
                "region: us-east-1",
                "api_version: 2023-10-01",
                "token_endpoint=https://auth.example.com/oauth/token",
                "secret_name: prod-db-creds",
                "key_vault_name=kv-prod-eastus",
                "password_policy: strong",
                "auth_method=oauth2",
                "access_log: /var/log/nginx/access.log",
                "api_base=https://api.example.com/v1",
                "keyboard_layout=us",
                "monkey_patch=true",
                "tokenizer: cl100k_base",
                "passthrough=enabled",
                "auth_required: false",
                "api_key_header: X-API-Key",
                "token_ttl=86400",
                "secret_rotation_days: 90",
            ];
            let _ = r;
            const _: () = assert!(
                TEXTS.len().is_multiple_of(2),
                "even: variants alternate splits"
            );
            TEXTS[v % TEXTS.len()].to_owned()
        }),
        ("url_benign", |r, v| match v % 8 {
            0 => format!(
                "https://example.com/reset?token_type=Bearer&id={}",
                r.range(1, 9999)
            ),
            1 => format!(
                "https://docs.example.com/api/keys#section-{}",
                r.range(1, 20)
            ),
            2 => "postgres://app@db:5432/app".to_owned(),
            3 => format!("https://user{}@example.com/repo.git", r.range(1, 99)),
            4 => "redis://cache:6379/0".to_owned(),
            5 => "mongodb://db1,db2/app?replicaSet=rs0".to_owned(),
            6 => format!(
                "https://maps.example.com/?q={}.{},{}.{}",
                r.range(10, 60),
                r.chars(DIGITS, 5),
                r.range(10, 99),
                r.chars(DIGITS, 5)
            ),
            _ => format!(
                "https://cdn.example.net/v{}/{}/app.min.js",
                r.range(1, 9),
                r.chars(HEX, 20)
            ),
        }),
        ("prose_secret_word", |_, v| {
            const TEXTS: &[&str] = &[
                "the api key rotation runs nightly",
                "password managers help a lot",
                "store the token in the keychain",
                "secrets are mounted at /run/secrets",
                "auth failed 3 times for user alice",
                "access denied for 10.0.0.5",
                "token count: 1532",
                "the key insight is caching",
                "my password is not something I share",
                "your api key expired yesterday",
                "secret sauce: more garlic",
                "tokens per second went up 40%",
            ];
            const _: () = assert!(
                TEXTS.len().is_multiple_of(2),
                "even: variants alternate splits"
            );
            TEXTS[v % TEXTS.len()].to_owned()
        }),
        ("prose", |r, v| match v % 8 {
            0 => format!(
                "we shipped {} features in Q{}",
                r.range(2, 40),
                r.range(1, 4)
            ),
            1 => "我们决定数据分析统一用 Python 3.12 和 polars".to_owned(),
            2 => format!("the token bucket refills {} per second", r.range(10, 5000)),
            3 => "remember: the user prefers dark mode and tabs".to_owned(),
            4 => format!("room 1{} floor {}", r.chars(DIGITS, 3), r.range(2, 40)),
            5 => "password reset emails are sent by the auth service".to_owned(),
            6 => format!(
                "scored {}/{} on the eval, up from {}",
                r.range(50, 99),
                100,
                r.range(10, 49)
            ),
            _ => "the secret to good ramen is the broth".to_owned(),
        }),
    ]
}

// --------------------------------------------------------------------- main

struct Record {
    family: &'static str,
    kind: Option<&'static str>,
    text: String,
}

fn marked(context: &str, env: &str, secret: &str) -> String {
    context
        .replace("{ENV}", env)
        .replace("{}", &format!("⟦{secret}⟧"))
}

fn split_contexts<'a>(all: &'a [&'a str], dev: bool) -> Vec<&'a str> {
    all.iter()
        .enumerate()
        .filter(|(i, _)| (i % 2 == 0) == dev)
        .map(|(_, c)| *c)
        .collect()
}

fn generate(dev: bool) -> Vec<Record> {
    let mut r = Rng(if dev { SEED_DEV } else { SEED_TEST });
    let mut out = Vec::new();
    let forms = split_contexts(ASSIGN_FORMS, dev);
    let token_contexts = split_contexts(TOKEN_CONTEXTS, dev);
    for (i, shape) in token_shapes().iter().enumerate() {
        for j in 0..PER_TOKEN {
            let context = token_contexts[(i * PER_TOKEN + j) % token_contexts.len()];
            let token = (shape.make)(&mut r);
            out.push(Record {
                family: shape.family,
                kind: Some(shape.kind),
                text: marked(context, shape.env, &token),
            });
        }
    }
    let keyword_contexts = split_contexts(KEYWORD_CONTEXTS, dev);
    for (i, (family, kind, env, make)) in keyword_shapes().into_iter().enumerate() {
        for j in 0..PER_TOKEN {
            let context = keyword_contexts[(i + j) % keyword_contexts.len()];
            out.push(Record {
                family,
                kind: Some(kind),
                text: marked(context, env, &make(&mut r)),
            });
        }
    }
    let vendor_keys = split_contexts(KEYWORD_VENDOR_KEYS, dev);
    for (i, (vendor, alphabet, len)) in KEYWORD_VENDORS.iter().enumerate() {
        let key = vendor_keys[i % vendor_keys.len()]
            .replace("{v}", vendor)
            .replace("{V}", &vendor.to_ascii_uppercase());
        let form = forms[(i * 3) % forms.len()];
        let value = r.chars(alphabet, *len);
        out.push(Record {
            family: "keyword_vendor",
            kind: Some("generic_secret"),
            text: form
                .replace("{K}", &key)
                .replace("{V}", &format!("⟦{value}⟧")),
        });
    }
    // AWS secret keys need their context word.
    let aws_contexts = split_contexts(
        &[
            "aws_secret_access_key = {}",
            "AWS_SECRET_ACCESS_KEY={}",
            "\"SecretAccessKey\": \"{}\"",
            "aws configure set aws_secret_access_key {}",
        ],
        dev,
    );
    for j in 0..4 {
        let secret = r.chars(B64, 40);
        out.push(Record {
            family: "cloud",
            kind: Some("aws_secret_key"),
            text: marked(aws_contexts[j % aws_contexts.len()], "", &secret),
        });
    }
    for (family, kind, make, contexts) in pii_shapes() {
        let contexts = split_contexts(contexts, dev);
        for j in 0..18 {
            let value = make(&mut r);
            out.push(Record {
                family,
                kind: Some(kind),
                text: marked(contexts[j % contexts.len()], "", &value),
            });
        }
    }
    let secret_keys = split_contexts(SECRET_KEYS, dev);
    let password_keys = split_contexts(PASSWORD_KEYS, dev);
    for j in 0..30 {
        let key = secret_keys[j % secret_keys.len()];
        let form = forms[(j * 7) % forms.len()];
        let value = secret_value(&mut r);
        out.push(Record {
            family: "generic",
            kind: Some("generic_secret"),
            text: form
                .replace("{K}", key)
                .replace("{V}", &format!("⟦{value}⟧")),
        });
    }
    for j in 0..20 {
        let key = password_keys[j % password_keys.len()];
        let form = forms[(j * 5 + 1) % forms.len()];
        let value = password_value(&mut r);
        out.push(Record {
            family: "password",
            kind: Some("password"),
            text: form
                .replace("{K}", key)
                .replace("{V}", &format!("⟦{value}⟧")),
        });
    }
    let db_forms = split_contexts(DB_URL_FORMS, dev);
    for j in 0..12 {
        let value = db_password(&mut r);
        out.push(Record {
            family: "db_url",
            kind: Some("url_password"),
            text: db_forms[j % db_forms.len()].replace("{V}", &format!("⟦{value}⟧")),
        });
    }
    let conn_forms = split_contexts(CONN_STRING_FORMS, dev);
    for j in 0..6 {
        let value = db_password(&mut r);
        out.push(Record {
            family: "db_url",
            kind: Some("password"),
            text: conn_forms[j % conn_forms.len()].replace("{V}", &format!("⟦{value}⟧")),
        });
    }
    let jwt_contexts = split_contexts(
        &[
            "Authorization: Bearer {}",
            "token={}",
            "cookie: session={}; Path=/",
            "the id_token was {} and it expired",
            "{\"access_token\":\"{}\"}",
            "jwt {}",
        ],
        dev,
    );
    for j in 0..10 {
        let value = jwt(&mut r);
        out.push(Record {
            family: "jwt",
            kind: Some("jwt"),
            text: marked(jwt_contexts[j % jwt_contexts.len()], "", &value),
        });
    }
    let pem_contexts = split_contexts(
        &[
            "the deploy key:\n{}\nthanks",
            "{\"private_key\":\"{}\"}",
            "私钥：{}。",
            "key = \"\"\"{}\"\"\"",
        ],
        dev,
    );
    for j in 0..8 {
        let escaped = pem_contexts[j % pem_contexts.len()].starts_with('{');
        let value = pem(&mut r, escaped);
        out.push(Record {
            family: "private_key",
            kind: Some("private_key"),
            text: marked(pem_contexts[j % pem_contexts.len()], "", &value),
        });
    }
    for (family, make) in negatives() {
        for j in 0..30 {
            // Even variants for dev, odd for test; a text already drawn
            // (fixed look-alikes repeat) is kept once.
            let variant = 2 * j + usize::from(!dev);
            let text = make(&mut r, variant);
            if out.iter().any(|rec: &Record| rec.text == text) {
                continue;
            }
            out.push(Record {
                family,
                kind: None,
                text,
            });
        }
    }
    out
}

fn main() -> std::io::Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/redaction");
    std::fs::create_dir_all(&dir)?;
    for (name, dev) in [("dev.jsonl", true), ("test.jsonl", false)] {
        let mut out = String::new();
        for rec in generate(dev) {
            let line = serde_json::json!({
                "family": rec.family,
                "kind": rec.kind,
                "text": rec.text,
            });
            out.push_str(&line.to_string());
            out.push('\n');
        }
        std::fs::write(dir.join(name), out)?;
    }
    Ok(())
}

//! Redaction: secrets and personal data become `[REDACTED:<kind>]` before
//! anything reaches the log (the log is immutable: a secret that lands there
//! stays).
//!
//! [`redact`] is a pure function of its input: no randomness, no clock, no
//! configuration. It never panics on any UTF-8 input, every [`Finding`] is a
//! byte range of the *original* text on `char` boundaries, findings never
//! overlap, and it is idempotent: redacting already-redacted text finds
//! nothing new and returns it unchanged.
//!
//! # What it catches
//!
//! | kind | shape |
//! |---|---|
//! | `private_key` | PEM/PGP `-----BEGIN ... PRIVATE KEY-----` through the matching `END` line, multi-line (also with JSON-escaped `\n`); a block cut off before `END` is redacted from `BEGIN` through its base64 lines |
//! | `jwt` | `eyJ<header>.<payload>.<signature>` (base64url; also `ey...` headers with an `ey...` payload, unsigned tokens, and a JWT encoded again as `ZXlK...`) |
//! | `anthropic_key` | `sk-ant-...` (32+ body chars) |
//! | `openai_key` | `sk-...`, `sk-proj-...`, `sk-svcacct-...`: 20+ body chars with upper, lower and digits, or 32+ of two classes with at most three dashes |
//! | `aws_access_key` | `AKIA`/`ASIA`/`AROA`/`A3T.`/... + 16 upper-case base32 characters (not AWS's documentation id ending in `EXAMPLE`) |
//! | `aws_secret_key` | 40 base64 characters with upper, lower and digits, **only** on a line that also holds an AWS access key id or a context word (`aws`, `secret access key`, `SecretAccessKey`, ...) |
//! | `github_token` | `ghp_`/`gho_`/`ghu_`/`ghs_`/`ghr_` + 30+ alphanumerics; `github_pat_...` |
//! | `gitlab_token` | `glpat-`, `gldt-`, `glrt-`, `glptt-`, `glcbt-`, `glsoat-` and the other GitLab prefixes + 20+ characters; `GR1348941...`; `_gitlab_session=` cookies |
//! | `slack_token` | `xoxb-`/`xoxp-`/`xoxa-`/`xoxr-`/`xoxs-`/`xoxe-`, `xapp-`; the secret path of `hooks.slack.com/services/...` webhooks |
//! | `google_api_key` | `AIza` + 35 characters; OAuth access tokens `ya29.` |
//! | `stripe_key` | `sk_`/`rk_`/`pk_` + `live`/`test`/`prod` + 10+ alphanumerics; `whsec_` webhook secrets |
//! | `npm_token` | `npm_` + 36 alphanumerics |
//! | `huggingface_token` | `hf_` / `api_org_` + 34 letters |
//! | `azure_secret` | Azure AD client secrets (`xxx9Q~` + 31-34 characters); `AccountKey=` storage keys |
//! | `vault_token` | `hvs.` / `hvb.` + 90+ characters; legacy `s.` + 24 letters and digits |
//! | `heroku_key` | `HRKU-AA` + 58 characters; a UUID assigned to a `heroku` key |
//! | `facebook_token` | `EAA` + 90+ alphanumerics; `<app id>\|<secret>` app tokens; 32 hex after a `facebook` key |
//! | `onepassword_token` | `ops_eyJ` + 250+ base64 characters; `A3-` secret keys |
//! | `databricks_token` | `dapi` + 32 hex |
//! | `okta_token` | `00` + 40 characters after `SSWS` or assigned to an `okta` key |
//! | `flyio_token` | `fo1_`, `fm1a_`/`fm1r_`/`fm2_` macaroons |
//! | `atlassian_token` | `ATATT3`/`ATCTT3` + 150+ characters; 24 alphanumerics assigned to a `jira`/`confluence`/`atlassian` key |
//! | `sourcegraph_token` | `sgp_` (+ 16 hex `_` or `local_`) + 40 hex; 40 hex assigned to a `sourcegraph` key |
//! | `notion_token` | `ntn_` + 11 digits + 35 alphanumerics; `secret_` + 43 alphanumerics |
//! | `api_token` | another vendor's prefixed token (DigitalOcean `dop_v1_`, SendGrid `SG.`, Shopify `shpat_`, PyPI `pypi-AgE`, Twilio `SK`, Telegram bot tokens, Groq `gsk_`, Perplexity `pplx-`, Grafana, Sentry, Postman, Doppler, Terraform, ...; the table is `tokens::RULES`) |
//! | `url_password` | only the password of `scheme://user:password@host` (the rest of the URL stays) |
//! | `bearer_token` | the token after `Bearer ` (16+ characters, mixed classes); the word `Bearer` stays |
//! | `password` | the value assigned to a password key (`password=`, `DB_PASSWORD:`, `pwd`, `Password=...;` in connection strings, `my password is ...`): 6+ characters with two character classes or a symbol; `Authorization: Basic ...`; the password of `curl -u user:password` |
//! | `generic_secret` | a value of high entropy (12+ characters, two classes, 8 distinct, Shannon entropy >= 3 bits) assigned to a key naming a secret (`api_key`, `secret`, `token`, `access_key`, `X-Api-Key`, `<vendor>_api_token`, ...), in env, JSON, YAML, XML, code and `key="..." value="..."` forms, or right after such a key word in prose (16+ characters) |
//! | `cn_id` | 18-character Chinese resident id (GB 11643): known province code, valid `YYYYMMDD` birth date (1900-2099), valid ISO 7064 MOD 11-2 check character |
//! | `ssn` | US Social Security number `AAA-GG-SSSS` (area 001-899 but 666, group and serial not zero); spaced, dotted or plain after `SSN` / `social security number` |
//! | `id_document` | the number of a passport, a driving licence, a national id or insurance card or a tax id, after the document's name and a label or a separator (`passport number`, `Passport No.`, `driver's license #`, `passport:`, `护照号`); capitals and digits, at least six digits, not a date |
//! | `iban` | country code, check digits and BBAN of the country's registered length, plain or in groups of four, mod-97 valid |
//! | `card_number` | a network's length for its leading digits (Visa 13/16/19, Mastercard 16, Amex 15, ...), plain or grouped `4-4-4-4(-1..3)` / `4-6-4(5)` by spaces, dashes or dots (mixed allowed), Luhn-valid |
//! | `phone` | China mobile `1[3-9]x xxxx xxxx` with optional `+86`/`0086`; E.164 `+` then 8-15 digits with at most six separators; `00` + country code with separators; North American `(415) 555-0100`, `415-555-0100`, `415.555.0100`, `1-800-...`; any 7-15 digit number right after a phone word (`phone:`, `tel`, `mobile`, `call me at`, `电话`, ...) |
//! | `email` | `local@domain.tld`, Unicode letters allowed (`josé@correo.es`, `用户@例子.中国`); glued to CJK text it starts and ends where the script changes |
//!
//! Vendor tokens run through one [`regex::RegexSet`] of their literal
//! prefixes first, so a text without any prefix costs one scan, not one per
//! rule; every regex is the `regex` crate's (linear time, no backtracking).
//!
//! # Overlaps
//!
//! Candidates from all detectors are resolved deterministically: the longest
//! span wins, then the earliest, then the kind listed first in [`SecretKind`]
//! (the more specific: a JWT after `Bearer` is reported as `jwt`, a GitHub
//! token assigned to `token=` as `github_token`). One finding per span; spans
//! never overlap.
//!
//! # Look-alikes it leaves alone
//!
//! Numbers embedded in longer digit or letter runs or after a reference
//! (`INV-415-555-0100`, `#415...`), dates and times, version strings, git
//! hashes, UUIDs, Luhn-invalid or wrong-length card numbers, IBANs with a bad
//! checksum, SSNs in impossible ranges, 18-digit strings with a bad checksum
//! or an impossible date, `sk-` in prose without a key body, placeholder keys
//! (`sk-xxxx...`, `sk-your-key-here`, `${API_KEY}`, `<password>`,
//! `changeme`), keys that name something about a secret rather than the
//! secret (`token_type`, `max_tokens`, `password_min_length`, `api_key_id`,
//! `next_page_token`, `primary_key`), values without entropy (words,
//! numbers, dotted names such as `settings.SECRET_KEY`, paths, file names),
//! short tokens, `user@` without a domain, `git@host:path` SSH addresses,
//! `icon@2x.png`, URLs without a password or with a `${VAR}` / `****`
//! placeholder password, prices and decimals such as `+3.14159265`.
//!
//! Nothing is redacted inside a file name: a finding followed, within the
//! same run of characters, by a file extension (`IMG_2018-250-xoxp-...jpg`,
//! `scan-415-555-0100.pdf`) is dropped (private keys and passwords keep
//! their own rules).
//!
//! # Limits
//!
//! - Pattern-based: a secret without a recognisable shape and without a key
//!   word before it (a bare random string in prose) is not caught; neither
//!   are 15-digit (first-generation) Chinese ids, national phone numbers
//!   outside North America and China without `+`, `00` or a phone word
//!   (`020 7946 0958` alone), nor card numbers grouped in other ways or glued
//!   to other digits.
//! - AWS secret keys need context on the same line.
//! - Shape checks accept synthetic values of the right shape (that is the
//!   point: the corpus tests use them); a Luhn-valid 16-digit number that is
//!   not a card is still redacted, about one random digit string in twenty,
//!   and so is a random `AAA-GG-SSSS` or `415-555-0100` number.
//! - ASCII boundaries: a secret glued to ASCII letters or digits
//!   (`xghp_...`) is not matched; CJK or punctuation around it is fine.
//! - The corpus under `tests/corpus/redaction/` is synthetic (generated by
//!   `examples/redaction_corpus.rs` from the formats): its figures say the
//!   formats and contexts it holds are covered, not how real text fares.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::LazyLock;

use regex::Regex;

mod assign;
mod personal;
mod tokens;

/// Defines [`SecretKind`] from one list: variant, marker name, doc. The
/// order of the list is the tie-break order when two detectors report the
/// same span (earlier = more specific wins).
macro_rules! secret_kinds {
    ($($(#[doc = $doc:literal])+ $variant:ident => $name:literal,)+) => {
        /// What a [`Finding`] is. The order of the variants is the tie-break
        /// order when two detectors report the same span (earlier = more
        /// specific wins).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum SecretKind {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl SecretKind {
            /// Every kind, in tie-break order.
            pub const ALL: [SecretKind; [$($name),+].len()] = [$(SecretKind::$variant),+];

            /// The stable snake_case name used in the `[REDACTED:<name>]` marker.
            pub const fn name(self) -> &'static str {
                match self {
                    $(SecretKind::$variant => $name,)+
                }
            }
        }
    };
}

secret_kinds! {
    /// PEM / PGP private key block.
    PrivateKey => "private_key",
    /// JSON Web Token.
    Jwt => "jwt",
    /// Anthropic API key (`sk-ant-...`).
    AnthropicKey => "anthropic_key",
    /// OpenAI API key (`sk-...`, `sk-proj-...`).
    OpenaiKey => "openai_key",
    /// AWS access key id (`AKIA...`).
    AwsAccessKey => "aws_access_key",
    /// AWS secret access key (with context).
    AwsSecretKey => "aws_secret_key",
    /// GitHub token (`ghp_...`, `github_pat_...`).
    GithubToken => "github_token",
    /// GitLab token (`glpat-...`, `gldt-...`, runner and trigger tokens).
    GitlabToken => "gitlab_token",
    /// Slack token or webhook secret.
    SlackToken => "slack_token",
    /// Google API key (`AIza...`) or OAuth token (`ya29.`).
    GoogleApiKey => "google_api_key",
    /// Stripe key (`sk_live_...`, `whsec_...`).
    StripeKey => "stripe_key",
    /// npm access token (`npm_...`).
    NpmToken => "npm_token",
    /// Hugging Face token (`hf_...`, `api_org_...`).
    HuggingfaceToken => "huggingface_token",
    /// Azure AD client secret (`...Q~...`) or storage account key.
    AzureSecret => "azure_secret",
    /// HashiCorp Vault token (`hvs.`, `hvb.`, legacy `s.`).
    VaultToken => "vault_token",
    /// Heroku API key (`HRKU-AA...`, or a UUID after `heroku`).
    HerokuKey => "heroku_key",
    /// Facebook / Meta access token (`EAA...`) or app secret.
    FacebookToken => "facebook_token",
    /// 1Password service account token (`ops_eyJ...`) or secret key (`A3-...`).
    OnepasswordToken => "onepassword_token",
    /// Databricks personal access token (`dapi...`).
    DatabricksToken => "databricks_token",
    /// Okta API token (`00...` after `okta` or `SSWS`).
    OktaToken => "okta_token",
    /// Fly.io token (`fo1_`, `fm1a_`, `fm2_`).
    FlyioToken => "flyio_token",
    /// Atlassian API token (`ATATT3...`, or after `jira`/`confluence`).
    AtlassianToken => "atlassian_token",
    /// Sourcegraph access token (`sgp_...`).
    SourcegraphToken => "sourcegraph_token",
    /// Notion integration token (`ntn_...`, `secret_...`).
    NotionToken => "notion_token",
    /// Another vendor's token, recognised by its documented prefix.
    ApiToken => "api_token",
    /// The password part of `scheme://user:password@host`.
    UrlPassword => "url_password",
    /// The token after `Bearer`.
    BearerToken => "bearer_token",
    /// A password after a password key word (`password=`, `pwd:`, `-u user:`).
    Password => "password",
    /// A high-entropy value after a secret key word (`api_key=`, `token:`).
    GenericSecret => "generic_secret",
    /// Chinese resident id number (18 characters, checksum-valid).
    CnId => "cn_id",
    /// US Social Security number.
    Ssn => "ssn",
    /// Number of a passport, a driving licence or a national id or tax
    /// card, after the document's name.
    IdDocument => "id_document",
    /// International bank account number (mod-97 valid).
    Iban => "iban",
    /// Payment card number (Luhn-valid).
    CardNumber => "card_number",
    /// Phone number (China mobile, E.164, North American, after a phone word).
    Phone => "phone",
    /// Email address.
    Email => "email",
}

impl SecretKind {
    /// The kind whose [`name`](Self::name) is `name`.
    pub fn from_name(name: &str) -> Option<SecretKind> {
        SecretKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The marker that replaces a finding of this kind: `[REDACTED:<name>]`.
    pub fn marker(self) -> String {
        format!("[REDACTED:{}]", self.name())
    }
}

impl fmt::Display for SecretKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One redacted span: `start..end` are byte offsets in the original text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What was found.
    pub kind: SecretKind,
    /// Byte offset of the first byte (on a `char` boundary).
    pub start: usize,
    /// Byte offset one past the last byte (on a `char` boundary).
    pub end: usize,
}

/// The redacted text and what was replaced, findings in text order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted {
    /// The text with every finding replaced by `[REDACTED:<kind>]`.
    pub text: String,
    /// The findings, sorted by `start`, never overlapping.
    pub findings: Vec<Finding>,
}

/// Redacts secrets and personal data in `text`; see the [module docs](self).
pub fn redact(text: &str) -> Redacted {
    // Replacing a secret changes the characters next to its neighbours
    // (`-----BEGIN...-----a@b.example` → `[REDACTED:private_key]a@b.example`),
    // which can turn a rejected look-alike into a match. Detection runs again
    // on the redacted text until nothing new is found, so the result is a
    // fixed point and `redact` is idempotent by construction. Each round
    // redacts at least one more character and most texts need one round (or
    // two when there are findings); the cap only bounds adversarial input.
    const MAX_ROUNDS: usize = 16;
    let mut findings = find(text);
    if findings.is_empty() {
        return Redacted {
            text: text.to_owned(),
            findings,
        };
    }
    findings.sort_by_key(|f| f.start);
    let (mut out, mut spans) = render(text, &findings);
    for _ in 1..MAX_ROUNDS {
        let new = find(&out);
        if new.is_empty() {
            break;
        }
        // `find` never reports a span overlapping a marker, so every new
        // span lies in unredacted text: shift it back to original offsets.
        for f in new {
            let i = spans.partition_point(|s| s.out_end <= f.start);
            let shift = |p: usize| match i.checked_sub(1) {
                Some(j) => p - spans[j].out_end + spans[j].end,
                None => p,
            };
            findings.push(Finding {
                kind: f.kind,
                start: shift(f.start),
                end: shift(f.end),
            });
        }
        findings.sort_by_key(|f| f.start);
        (out, spans) = render(text, &findings);
    }
    Redacted {
        text: out,
        findings,
    }
}

/// Where a finding's marker sits in the rendered text.
struct Placed {
    /// End of the finding in the original text.
    end: usize,
    /// End of its marker in the rendered text.
    out_end: usize,
}

/// `text` with each finding (sorted, disjoint) replaced by its marker.
fn render(text: &str, findings: &[Finding]) -> (String, Vec<Placed>) {
    let mut out = String::with_capacity(text.len());
    let mut spans = Vec::with_capacity(findings.len());
    let mut at = 0;
    for f in findings {
        out.push_str(&text[at..f.start]);
        out.push_str("[REDACTED:");
        out.push_str(f.kind.name());
        out.push(']');
        at = f.end;
        spans.push(Placed {
            end: f.end,
            out_end: out.len(),
        });
    }
    out.push_str(&text[at..]);
    (out, spans)
}

/// The resolved (non-overlapping) findings of `text`, unsorted.
///
/// Each detector runs only on a text holding what every one of its matches
/// needs (a literal, or enough digits): most texts are prose without any
/// of them, and the save path redacts every text.
fn find(text: &str) -> Vec<Finding> {
    let mut c = Candidates::new(text);
    let n_digits = count_digits(text);
    let run_digits = longest_number_run(text);
    if text.contains("-----BEGIN") {
        detect_private_keys(&mut c);
    }
    tokens::detect(&mut c);
    if AWS_CONTEXT.is_match(text) {
        detect_aws_secret(&mut c);
    }
    if text.contains("://") {
        detect_url_password(&mut c);
    }
    detect_bearer(&mut c);
    assign::detect(&mut c);
    if n_digits >= 6 {
        personal::detect_iban(&mut c);
    }
    if run_digits >= 7 {
        detect_phones(&mut c);
        personal::detect_phones(&mut c);
    }
    if run_digits >= 9 {
        personal::detect_ssn(&mut c);
    }
    if n_digits >= personal::ID_DOCUMENT_DIGITS_MIN {
        personal::detect_id_documents(&mut c);
    }
    if run_digits >= 13 {
        detect_cards(&mut c);
    }
    if run_digits >= 17 {
        detect_cn_id(&mut c);
    }
    if text.contains('@') {
        detect_emails(&mut c);
    }
    c.drop_inside_file_names();
    resolve(c.found)
}

/// Longest wins, then earliest, then the kind listed first; one finding per
/// span, no overlaps.
fn resolve(mut cands: Vec<Finding>) -> Vec<Finding> {
    cands.sort_by(|a, b| {
        (b.end - b.start)
            .cmp(&(a.end - a.start))
            .then(a.start.cmp(&b.start))
            .then(a.kind.cmp(&b.kind))
    });
    // start -> end of accepted spans.
    let mut taken: BTreeMap<usize, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for f in cands {
        if f.start >= f.end {
            continue;
        }
        let before = taken.range(..=f.start).next_back();
        if before.is_some_and(|(_, &end)| end > f.start) {
            continue;
        }
        let after = taken.range(f.start..).next();
        if after.is_some_and(|(&start, _)| start < f.end) {
            continue;
        }
        taken.insert(f.start, f.end);
        out.push(f);
    }
    out
}

struct Candidates<'t> {
    text: &'t str,
    /// Spans of `[REDACTED:...]` markers already in the text: nothing inside
    /// them is a secret, and they give no context.
    markers: Vec<(usize, usize)>,
    found: Vec<Finding>,
}

impl<'t> Candidates<'t> {
    fn new(text: &'t str) -> Self {
        let markers = MARKER
            .find_iter(text)
            .map(|m| (m.start(), m.end()))
            .collect();
        Candidates {
            text,
            markers,
            found: Vec::new(),
        }
    }

    fn in_marker(&self, start: usize, end: usize) -> bool {
        // Markers are sorted and disjoint: only the last one starting before
        // `end` can overlap `start..end`.
        let i = self.markers.partition_point(|&(s, _)| s < end);
        i > 0 && self.markers[i - 1].1 > start
    }

    /// Drops findings inside a file name (`IMG_2018-250-xoxb-...jpg`,
    /// `scan-555-201-3344.pdf`): a run of characters up to a delimiter
    /// that ends in a known file extension after the finding. Whole
    /// blocks and URL passwords keep their own rules.
    fn drop_inside_file_names(&mut self) {
        let text = self.text;
        self.found.retain(|f| {
            if matches!(
                f.kind,
                SecretKind::PrivateKey | SecretKind::UrlPassword | SecretKind::Password
            ) {
                return true;
            }
            let delimiter = |ch: char| ch.is_whitespace() || "\"'`<>()[]{},;=|".contains(ch);
            let token_end = text[f.end..]
                .find(delimiter)
                .map_or(text.len(), |i| f.end + i);
            let tail = &text[f.end..token_end];
            let tail = tail.trim_end_matches(['.', ':', '!', '?']);
            let ext = tail
                .rsplit_once('.')
                .map(|(_, ext)| ext.to_ascii_lowercase());
            !ext.is_some_and(|ext| FILE_NAME_EXTENSIONS.contains(&ext.as_str()))
        });
    }

    fn push(&mut self, kind: SecretKind, start: usize, end: usize) {
        if start < end && !self.in_marker(start, end) {
            self.found.push(Finding { kind, start, end });
        }
    }
}

/// Extensions that make a run of characters a file name.
const FILE_NAME_EXTENSIONS: &[&str] = &[
    "jpg", "jpeg", "png", "gif", "webp", "svg", "bmp", "tif", "tiff", "heic", "avif", "ico", "pdf",
    "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "csv", "txt", "md", "log", "json", "yaml",
    "yml", "xml", "html", "htm", "zip", "gz", "tgz", "tar", "7z", "rar", "mp3", "mp4", "mov",
    "avi", "mkv", "wav", "flac", "ogg", "webm", "js", "ts", "tsx", "jsx", "rs", "py", "go", "java",
    "rb", "php", "c", "h", "cpp", "sh", "bak", "tmp", "iso", "dmg", "exe", "apk", "parquet",
];

/// Every match of `re` in `text` for which `accept` returns a span to keep.
/// A rejected match does not hide a later one starting inside it: the search
/// resumes one character after the rejected match's start.
fn scan<T>(
    re: &Regex,
    text: &str,
    mut accept: impl FnMut(&regex::Captures<'_>) -> Option<T>,
) -> Vec<T> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos <= text.len() {
        // The match alone first (the fast engines); the groups only for a
        // match, from where it starts.
        let Some(m) = re.find_at(text, pos) else {
            break;
        };
        let Some(caps) = re.captures_at(text, m.start()) else {
            break;
        };
        match accept(&caps) {
            Some(span) => {
                out.push(span);
                pos = if m.end() > m.start() {
                    m.end()
                } else {
                    next_boundary(text, m.end())
                };
            }
            None => pos = next_boundary(text, m.start()),
        }
    }
    out
}

/// The byte offset of the next `char` boundary after `i` (or `len + 1`).
fn next_boundary(text: &str, i: usize) -> usize {
    match text[i..].chars().next() {
        Some(ch) => i + ch.len_utf8(),
        None => text.len() + 1,
    }
}

fn prev_char(text: &str, i: usize) -> Option<char> {
    text[..i].chars().next_back()
}

fn next_char(text: &str, i: usize) -> Option<char> {
    text[i..].chars().next()
}

fn is_word(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_digit(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_digit())
}

/// Number of character classes (upper, lower, digit) in `s`.
fn classes(s: &str) -> usize {
    let upper = s.bytes().any(|b| b.is_ascii_uppercase());
    let lower = s.bytes().any(|b| b.is_ascii_lowercase());
    let digit = s.bytes().any(|b| b.is_ascii_digit());
    usize::from(upper) + usize::from(lower) + usize::from(digit)
}

/// At least `min` distinct bytes: rules out `xxxxxxxx` placeholders.
fn distinct(s: &str, min: usize) -> bool {
    let mut seen = [false; 256];
    let mut n = 0;
    for b in s.bytes() {
        if !seen[b as usize] {
            seen[b as usize] = true;
            n += 1;
            if n >= min {
                return true;
            }
        }
    }
    false
}

/// Looks like a generated token body rather than a word or a placeholder.
fn random_enough(body: &str) -> bool {
    classes(body) >= 2 && distinct(body, 8)
}

/// Characters that continue a token: a match glued to one of these is part
/// of something longer and is not reported.
fn token_char(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Shannon entropy of `s` in bits per byte.
fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in s.bytes() {
        counts[usize::from(b)] += 1;
    }
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("redaction patterns are valid")
}

static MARKER: LazyLock<Regex> = LazyLock::new(|| re(r"\[REDACTED:[a-z0-9_]+\]"));

// ---------------------------------------------------------------- private keys

static PEM_BLOCK: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?s)-----BEGIN[A-Z0-9 _-]{0,100}PRIVATE KEY(?: BLOCK)?-----",
        r".*?-----END[A-Z0-9 _-]{0,100}KEY(?: BLOCK)?-----"
    ))
});

/// A block cut off before its END line: the header and its base64 lines.
static PEM_OPEN: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"-----BEGIN[A-Z0-9 _-]{0,100}PRIVATE KEY(?: BLOCK)?-----",
        r"(?:(?:\r?\n|\\r\\n|\\n)+(?:[A-Za-z0-9+/=]{16,}|(?:Proc-Type|DEK-Info|Comment): [^\r\n\\]*))*"
    ))
});

fn detect_private_keys(c: &mut Candidates<'_>) {
    for re in [&*PEM_BLOCK, &*PEM_OPEN] {
        for m in re.find_iter(c.text) {
            c.push(SecretKind::PrivateKey, m.start(), m.end());
        }
    }
}

// ------------------------------------------------------------- aws secret key

static AWS_SECRET: LazyLock<Regex> = LazyLock::new(|| re(r"[A-Za-z0-9/+]{40}"));

static AWS_CONTEXT: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)aws|secret[_ .-]?access[_ .-]?key|(?:AKIA|ASIA)[A-Z0-9]{16}"));

fn detect_aws_secret(c: &mut Candidates<'_>) {
    let text = c.text;
    let base64 =
        |ch: Option<char>| ch.is_some_and(|ch| ch.is_ascii_alphanumeric() || "/+".contains(ch));
    let spans = scan(&AWS_SECRET, text, |caps| {
        let m = caps.get(0)?;
        let after = next_char(text, m.end());
        if base64(prev_char(text, m.start())) || base64(after) || after == Some('=') {
            return None;
        }
        let s = m.as_str();
        // AWS's documentation secret (`...EXAMPLEKEY`) is a placeholder.
        if classes(s) < 3 || !distinct(s, 16) || s.ends_with("EXAMPLEKEY") {
            return None;
        }
        // Context on the same line, outside the candidate and outside markers.
        let line_start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[m.end()..]
            .find('\n')
            .map_or(text.len(), |i| m.end() + i);
        let line = &text[line_start..line_end];
        let has_context = AWS_CONTEXT.find_iter(line).any(|w| {
            let (ws, we) = (line_start + w.start(), line_start + w.end());
            let outside = we <= m.start() || ws >= m.end();
            outside && !c.in_marker(ws, we)
        });
        has_context.then_some((m.start(), m.end()))
    });
    for (s, e) in spans {
        c.push(SecretKind::AwsSecretKey, s, e);
    }
}

// ------------------------------------------------------------- url password

static URL_USERINFO: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r#"(?i)(?-u:\b)[a-z][a-z0-9+.-]{1,15}://[^\s:/?#@\[\]"'<>]*:"#,
        r#"([^\s/?#\[\]"'<>]+)@[^\s/?#@\[\]"'<>]"#
    ))
});

fn detect_url_password(c: &mut Candidates<'_>) {
    let spans: Vec<_> = URL_USERINFO
        .captures_iter(c.text)
        .filter_map(|caps| caps.get(1))
        .filter(|m| {
            let p = m.as_str();
            let placeholder = p.starts_with(['$', '{', '%'])
                || p.bytes()
                    .all(|b| b == b'*' || b == b'x' || b == b'X' || b == b'.');
            !placeholder
        })
        .map(|m| (m.start(), m.end()))
        .collect();
    for (s, e) in spans {
        c.push(SecretKind::UrlPassword, s, e);
    }
}

// ------------------------------------------------------------- bearer token

static BEARER: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)(?-u:\b)bearer[ \t]+([A-Za-z0-9._~+/-]{16,}=*)"));

/// `Authorization: Basic <base64 of user:password>`.
static BASIC: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?-u:\b)authorization[\x22']?[ \t]*[:=][ \t]*[\x22']?basic[ \t]+([A-Za-z0-9+/]{8,}={0,2})",
    )
});

/// `curl -u user:password` / `--user user:password`.
static CURL_USER: LazyLock<Regex> = LazyLock::new(|| {
    re(r#"(?-u:\b)curl(?-u:\b)[^\n]*?[ \t](?:-u|--user)(?:[ \t]+|=)["']?[^\s:"']+:([^\s"']{3,})"#)
});

fn detect_bearer(c: &mut Candidates<'_>) {
    let text = c.text;
    let mut spans: Vec<(usize, usize)> = BASIC
        .captures_iter(text)
        .filter_map(|caps| caps.get(1))
        .filter(|m| distinct(m.as_str(), 6) && !token_char(next_char(text, m.end())))
        .map(|m| (m.start(), m.end()))
        .collect();
    spans.extend(
        CURL_USER
            .captures_iter(text)
            .filter_map(|caps| caps.get(1))
            .filter(|m| {
                let p = m.as_str();
                !p.starts_with(['$', '<', '{', '%']) && p.bytes().any(|b| b != b'*' && b != b'x')
            })
            .map(|m| (m.start(), m.end())),
    );
    for (s, e) in spans {
        c.push(SecretKind::Password, s, e);
    }
    detect_bearer_token(c);
}

fn detect_bearer_token(c: &mut Candidates<'_>) {
    let text = c.text;
    let spans: Vec<_> = BEARER
        .captures_iter(text)
        .filter_map(|caps| caps.get(1))
        .filter(|m| random_enough(m.as_str()) && !token_char(next_char(text, m.end())))
        .map(|m| (m.start(), m.end()))
        .collect();
    for (s, e) in spans {
        c.push(SecretKind::BearerToken, s, e);
    }
}

// ------------------------------------------------------------------ numbers

/// A digit run's boundary: not glued to letters or digits, and not continued
/// by `-`, `.`, `/` plus a digit (dates, versions, longer numbers).
fn number_edges_ok(text: &str, start: usize, end: usize) -> bool {
    number_before_ok(text, start) && number_after_ok(text, end)
}

fn number_before_ok(text: &str, start: usize) -> bool {
    let before = prev_char(text, start);
    if is_word(before) || before == Some('+') {
        return false;
    }
    // `before` is ASCII here, so `start - 1` is a char boundary.
    !(matches!(before, Some('-' | '.' | '/' | ',')) && is_digit(prev_char(text, start - 1)))
}

fn number_after_ok(text: &str, end: usize) -> bool {
    let after = next_char(text, end);
    if is_word(after) {
        return false;
    }
    // `after` is ASCII here, so `end + 1` is a char boundary.
    !(matches!(after, Some('-' | '.' | '/' | ',')) && is_digit(next_char(text, end + 1)))
}

static CN_ID: LazyLock<Regex> = LazyLock::new(|| re(r"[0-9]{17}[0-9Xx]"));

fn detect_cn_id(c: &mut Candidates<'_>) {
    let text = c.text;
    let spans = scan(&CN_ID, text, |caps| {
        let m = caps.get(0)?;
        (number_edges_ok(text, m.start(), m.end()) && cn_id_valid(m.as_str()))
            .then_some((m.start(), m.end()))
    });
    for (s, e) in spans {
        c.push(SecretKind::CnId, s, e);
    }
}

/// GB 11643-1999: province code, birth date, ISO 7064 MOD 11-2 check.
fn cn_id_valid(id: &str) -> bool {
    let b = id.as_bytes();
    if b.len() != 18 || !b[..17].iter().all(u8::is_ascii_digit) {
        return false;
    }
    let d = |i: usize| u32::from(b[i] - b'0');
    let province = d(0) * 10 + d(1);
    let provinces_ok = matches!(province, 11..=15 | 21..=23 | 31..=37 | 41..=46 | 50..=54 | 61..=65 | 71 | 81..=83);
    if !provinces_ok {
        return false;
    }
    let year = d(6) * 1000 + d(7) * 100 + d(8) * 10 + d(9);
    let month = d(10) * 10 + d(11);
    let day = d(12) * 10 + d(13);
    if !(1900..=2099).contains(&year) || !(1..=12).contains(&month) {
        return false;
    }
    let leap = (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400);
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    if !(1..=days).contains(&day) {
        return false;
    }
    const WEIGHTS: [u32; 17] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
    const CHECK: &[u8; 11] = b"10X98765432";
    let sum: u32 = (0..17).map(|i| d(i) * WEIGHTS[i]).sum();
    CHECK[(sum % 11) as usize] == b[17].to_ascii_uppercase()
}

static CARD: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"[0-9]{13,19}",
        r"|[0-9]{4}(?:[ .-][0-9]{4}){3}(?:[ .-][0-9]{1,3})?",
        r"|[0-9]{4}[ .-][0-9]{6}[ .-][0-9]{4,5}",
    ))
});

fn detect_cards(c: &mut Candidates<'_>) {
    let text = c.text;
    let spans = scan(&CARD, text, |caps| {
        let m = caps.get(0)?;
        let (s, e) = (m.start(), m.end());
        let before = prev_char(text, s);
        let after = next_char(text, e);
        // Grouped numbers must not continue with another group.
        // (The separators are ASCII, so `s - 1` and `e + 1` are boundaries.)
        let sep = |ch: Option<char>| matches!(ch, Some(' ' | '-' | '.'));
        if !number_edges_ok(text, s, e)
            || (sep(before) && is_digit(prev_char(text, s - 1)))
            || (sep(after) && is_digit(next_char(text, e + 1)))
        {
            return None;
        }
        let digits: Vec<u8> = m
            .as_str()
            .bytes()
            .filter(u8::is_ascii_digit)
            .map(|b| b - b'0')
            .collect();
        let ok =
            card_length_ok(&digits) && luhn(&digits) && !digits.iter().all(|&d| d == digits[0]);
        ok.then_some((s, e))
    });
    for (s, e) in spans {
        c.push(SecretKind::CardNumber, s, e);
    }
}

/// The lengths the card networks issue for the number's leading digits
/// (Visa 13/16/19, Mastercard 16, Amex 15, Diners 14-16, Discover, JCB,
/// UnionPay and Maestro 16-19).
fn card_length_ok(digits: &[u8]) -> bool {
    let n = digits.len();
    let lead = |k: usize| {
        digits
            .iter()
            .take(k)
            .fold(0u32, |acc, &d| acc * 10 + u32::from(d))
    };
    match digits.first() {
        Some(4) => matches!(n, 13 | 16 | 19),
        Some(2) => (2221..=2720).contains(&lead(4)) && n == 16,
        Some(5) if (51..=55).contains(&lead(2)) => n == 16,
        Some(5) => (16..=19).contains(&n),
        Some(3) => match lead(2) {
            34 | 37 => n == 15,
            30 | 36 | 38 | 39 => (14..=16).contains(&n),
            35 => (16..=19).contains(&n),
            _ => false,
        },
        Some(6) => (16..=19).contains(&n),
        _ => false,
    }
}

fn luhn(digits: &[u8]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            let d = u32::from(d);
            if i % 2 == 1 {
                let x = d * 2;
                if x > 9 { x - 9 } else { x }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

static CN_MOBILE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?:(?:\+|00)86[ -]?)?1[3-9][0-9](?:[0-9]{8}| [0-9]{4} [0-9]{4}|-[0-9]{4}-[0-9]{4})")
});

static E164: LazyLock<Regex> =
    LazyLock::new(|| re(r"\+[1-9][0-9]{0,3}(?:[ .-]?(?:\([0-9]{1,5}\)|[0-9]{1,8})){1,6}"));

fn detect_phones(c: &mut Candidates<'_>) {
    let text = c.text;
    let spans = scan(&CN_MOBILE, text, |caps| {
        let m = caps.get(0)?;
        number_edges_ok(text, m.start(), m.end()).then_some((m.start(), m.end()))
    });
    for (s, e) in spans {
        c.push(SecretKind::Phone, s, e);
    }
    let spans = scan(&E164, text, |caps| {
        let m = caps.get(0)?;
        let s = m.start();
        // Trim trailing groups until at most 15 digits remain.
        let mut cand = m.as_str();
        while count_digits(cand) > 15 {
            let cut = cand.rfind([' ', '.', '-', '('])?;
            cand = &cand[..cut];
        }
        let e = s + cand.len();
        let n = count_digits(cand);
        let dots = cand.matches('.').count();
        let ok = (8..=15).contains(&n)
            && dots != 1
            && cand.ends_with(|ch: char| ch.is_ascii_digit() || ch == ')')
            && cand.matches('(').count() == cand.matches(')').count()
            && !is_word(prev_char(text, s))
            && number_after_ok(text, e);
        ok.then_some((s, e))
    });
    for (s, e) in spans {
        c.push(SecretKind::Phone, s, e);
    }
}

/// The most digits in one run of digits and number separators (space,
/// `(`, `)`, `.`, `+`, `-`): an upper bound on the digits of any phone,
/// card, SSN or id in the text (`x` ends a Chinese id, so it does not break
/// a run either).
fn longest_number_run(s: &str) -> usize {
    let (mut best, mut run) = (0, 0);
    for b in s.bytes() {
        if b.is_ascii_digit() {
            run += 1;
            best = best.max(run);
        } else if !matches!(b, b' ' | b'(' | b')' | b'.' | b'+' | b'-' | b'X' | b'x') {
            run = 0;
        }
    }
    best
}

fn count_digits(s: &str) -> usize {
    s.bytes().filter(u8::is_ascii_digit).count()
}

// -------------------------------------------------------------------- email

static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"[\p{L}\p{N}](?:[\p{L}\p{N}._%+-]*[\p{L}\p{N}_%+-])?",
        r"@[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?",
        r"(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)*\.(\p{L}{2,24})"
    ))
});

/// File extensions that follow `@2x`-style names, not top-level domains.
const IMAGE_EXTENSIONS: [&str; 12] = [
    "png", "jpg", "jpeg", "gif", "svg", "webp", "bmp", "ico", "tif", "tiff", "avif", "heic",
];

/// Han, kana and Hangul: scripts written without spaces, so an email glued
/// to them (`联系oncall@shop.example谢谢`) starts and ends where the script
/// changes.
fn is_cjk(ch: char) -> bool {
    matches!(ch,
        '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}'
        | '\u{ac00}'..='\u{d7af}' | '\u{f900}'..='\u{faff}' | '\u{ff00}'..='\u{ffef}')
}

fn detect_emails(c: &mut Candidates<'_>) {
    let text = c.text;
    let spans = scan(&EMAIL, text, |caps| {
        let m = caps.get(0)?;
        let (mut s, mut e) = (m.start(), m.end());
        let at = s + m.as_str().find('@')?;
        // A local part mixing CJK and ASCII starts after the last CJK
        // character; a top-level domain mixing them ends at the first.
        let local = &text[s..at];
        if local.chars().any(is_cjk) && local.chars().any(|ch| ch.is_ascii_alphabetic()) {
            let (i, ch) = local.char_indices().rfind(|&(_, ch)| is_cjk(ch))?;
            s += i + ch.len_utf8();
        }
        let tld_m = caps.get(1)?;
        let mut tld = tld_m.as_str();
        if tld.chars().any(is_cjk) && tld.chars().any(|ch| ch.is_ascii_alphabetic()) {
            let cut = tld.find(is_cjk)?;
            tld = &tld[..cut];
            e = tld_m.start() + cut;
        }
        if s >= at || tld.chars().count() < 2 {
            return None;
        }
        let first = next_char(text, s)?;
        if !first.is_alphanumeric() {
            return None;
        }
        let before = prev_char(text, s);
        if before.is_some_and(|ch| ch.is_ascii_alphanumeric() || "._%+-".contains(ch)) {
            return None;
        }
        let after = next_char(text, e);
        if after.is_some_and(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_' || ch == '@')
        {
            return None;
        }
        // `git@github.com:org/repo.git`: an SSH address, not an email.
        if after == Some(':') && next_char(text, e + 1).is_some_and(|ch| !ch.is_whitespace()) {
            return None;
        }
        if IMAGE_EXTENSIONS.contains(&tld.to_ascii_lowercase().as_str()) {
            return None;
        }
        // `scheme://user:pass@host`: userinfo of a URL, not an email.
        let token_start = text[..s]
            .rfind(char::is_whitespace)
            .map_or(0, |i| next_boundary(text, i));
        if let Some(p) = text[token_start..s].rfind("://") {
            let authority = &text[token_start + p + 3..s];
            if !authority.contains(['/', '?', '#']) {
                return None;
            }
        }
        Some((s, e))
    });
    for (s, e) in spans {
        c.push(SecretKind::Email, s, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(SecretKind, &str)> {
        redact(text)
            .findings
            .iter()
            .map(|f| (f.kind, &text[f.start..f.end]))
            .collect()
    }

    fn one(text: &str, kind: SecretKind, secret: &str) {
        assert_eq!(kinds(text), vec![(kind, secret)], "in {text:?}");
        let r = redact(text);
        assert_eq!(r.text, text.replacen(secret, &kind.marker(), 1));
    }

    fn none(text: &str) {
        assert_eq!(kinds(text), vec![], "in {text:?}");
        assert_eq!(redact(text).text, text);
    }

    #[test]
    fn names_are_stable_and_round_trip() {
        for k in SecretKind::ALL {
            assert_eq!(SecretKind::from_name(k.name()), Some(k));
            assert_eq!(k.to_string(), k.name());
        }
        assert_eq!(SecretKind::CnId.marker(), "[REDACTED:cn_id]");
        assert_eq!(SecretKind::from_name("nope"), None);
    }

    #[test]
    fn openai_and_anthropic() {
        let k = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";
        one(&format!("OPENAI_API_KEY={k}"), SecretKind::OpenaiKey, k);
        let a = "sk-ant-api03-Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Ji0Hg9Fe8Dc7Ba6-AbCdEfGh";
        one(&format!("key: {a}."), SecretKind::AnthropicKey, a);
        none("the sk- prefix marks secret keys");
        none("sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxx");
        none("sk-your-api-key-goes-right-here");
        none("task-ab12cd34ef56gh78ij90kl"); // glued to a word
    }

    #[test]
    fn aws_keys_with_context() {
        let id = "AKIAQ3EXAMPLE7ZK5W2M";
        let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLE9Q";
        let line = format!("aws_access_key_id={id} aws_secret_access_key={secret}");
        let r = kinds(&line);
        assert_eq!(
            r,
            vec![
                (SecretKind::AwsAccessKey, id),
                (SecretKind::AwsSecretKey, secret)
            ]
        );
        // Without context the 40-character string stays.
        none(&format!("blob {secret} here"));
        // A git hash never qualifies, even with context.
        none("aws commit 3f786850e387550fdab836ed7e6dc881de23001b");
        // AWS's documentation pair is a placeholder.
        none("AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
        // The context lives on the same line only.
        let two_lines = format!("{id}\nvalue {secret}");
        let r = kinds(&two_lines);
        assert_eq!(r, vec![(SecretKind::AwsAccessKey, id)]);
    }

    #[test]
    fn github_slack_google_stripe_and_others() {
        let g = "ghp_R3nq8ZkLw2VbXc9TyHs4MdJf6PaQe1UoNiGt";
        one(&format!("token {g}, ok"), SecretKind::GithubToken, g);
        let s = "xoxb-2048-40962048-q8W3e5R7t9Y1u3I5o7P9";
        one(s, SecretKind::SlackToken, s);
        let hook = "T0A1B2C3D/B4E5F6G7H/q1w2e3r4t5y6u7i8o9p0a1s2";
        one(
            &format!("https://hooks.slack.com/services/{hook}"),
            SecretKind::SlackToken,
            hook,
        );
        let goog = "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q";
        one(&format!("\"{goog}\""), SecretKind::GoogleApiKey, goog);
        let st = "sk_live_51Hx9Yz2Ab3Cd4Ef5Gh6Ij7Kl";
        one(st, SecretKind::StripeKey, st);
        let gl = "glpat-x9Y8z7W6v5U4t3S2r1Q0";
        one(gl, SecretKind::GitlabToken, gl);
        let npm = "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
        one(npm, SecretKind::NpmToken, npm);
        let hf = "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh";
        one(hf, SecretKind::HuggingfaceToken, hf);
        none("ghp_short");
        none("AIza is how Google keys start");
    }

    #[test]
    fn private_key_block_multiline() {
        let pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onL\n-----END RSA PRIVATE KEY-----";
        let text = format!("key:\n{pem}\ndone");
        one(&text, SecretKind::PrivateKey, pem);
        // JSON-escaped newlines.
        let esc =
            r"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\n-----END PRIVATE KEY-----";
        one(&format!("{{\"k\":\"{esc}\"}}"), SecretKind::PrivateKey, esc);
        // Cut off before END: header and base64 lines, not the prose after.
        let open = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU";
        one(
            &format!("{open}\n... truncated"),
            SecretKind::PrivateKey,
            open,
        );
        none(
            "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
        );
    }

    #[test]
    fn jwt_and_bearer() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        one(
            &format!("Authorization: Bearer {jwt}"),
            SecretKind::Jwt,
            jwt,
        );
        let tok = "mF_9.B5f-4.1JqM8nYbQ2";
        one(
            &format!("Authorization: Bearer {tok}"),
            SecretKind::BearerToken,
            tok,
        );
        none("Use bearer tokens for authentication.");
        none("eyJ is the start of base64 JSON");
    }

    #[test]
    fn url_password_keeps_the_rest() {
        let r = redact("postgres://admin:s3cr3t-P4ss@db.internal:5432/app");
        assert_eq!(
            r.text,
            "postgres://admin:[REDACTED:url_password]@db.internal:5432/app"
        );
        one(
            "redis://:p@ss!word@cache:6379",
            SecretKind::UrlPassword,
            "p@ss!word",
        );
        none("https://example.com:8443/path?q=1");
        none("https://alice@example.com/repo");
        none("postgres://app:${DB_PASSWORD}@db/app");
        none("mysql://root:****@localhost/db");
    }

    #[test]
    fn cn_id_checksum_and_date() {
        one(
            "身份证号11010519491231002X，请保密",
            SecretKind::CnId,
            "11010519491231002X",
        );
        one(
            "id 440308199901011234.",
            SecretKind::CnId,
            "440308199901011234",
        );
        none("id 110105194912310021"); // bad checksum
        none("id 110105194913310029"); // month 13
        none("id 990105194912310025"); // no such province
        none("1101051949123100211"); // 19 digits
    }

    #[test]
    fn card_numbers_luhn() {
        one(
            "card 4111 1111 1111 1111 exp 12/29",
            SecretKind::CardNumber,
            "4111 1111 1111 1111",
        );
        one(
            "5500-0000-0000-0004",
            SecretKind::CardNumber,
            "5500-0000-0000-0004",
        );
        one(
            "amex 3782 822463 10005",
            SecretKind::CardNumber,
            "3782 822463 10005",
        );
        one(
            "4012888888881881",
            SecretKind::CardNumber,
            "4012888888881881",
        );
        none("4111 1111 1111 1112");
        // Mixed and dotted separators are still a card.
        one(
            "order 4111-1111 1111-1111",
            SecretKind::CardNumber,
            "4111-1111 1111-1111",
        );
        one(
            "card 5500.0000.0000.0004.",
            SecretKind::CardNumber,
            "5500.0000.0000.0004",
        );
        none("1234567812345670"); // Luhn-valid, but no card starts with 1
        none("id 41111111111111112345");
    }

    #[test]
    fn phones() {
        one("电话13800138000，谢谢", SecretKind::Phone, "13800138000");
        one(
            "call +86 138 0013 8000 now",
            SecretKind::Phone,
            "+86 138 0013 8000",
        );
        one(
            "call +1 (415) 555-0100.",
            SecretKind::Phone,
            "+1 (415) 555-0100",
        );
        one(
            "call +44 20 7946 0958",
            SecretKind::Phone,
            "+44 20 7946 0958",
        );
        none("order 9913800138000123");
        none("pi is +3.14159265");
        none("2 +12 = 14");
        none("timestamp 1727860452000");
    }

    #[test]
    fn emails() {
        one(
            "mail me: a.b+tag@mail.example.co.uk.",
            SecretKind::Email,
            "a.b+tag@mail.example.co.uk",
        );
        one(
            "联系oncall@shop.example谢谢",
            SecretKind::Email,
            "oncall@shop.example",
        );
        none("git clone git@github.com:org/repo.git");
        none("icon@2x.png");
        none("ping user@ later");
        none("npm i lodash@4.17.21");
    }

    #[test]
    fn vendor_tokens_by_prefix() {
        let sgp = "sgp_0123456789abcdef_3f786850e387550fdab836ed7e6dc881de23001b";
        one(
            &format!("SRC_ACCESS_TOKEN={sgp}"),
            SecretKind::SourcegraphToken,
            sgp,
        );
        let dapi = "dapi4f2a9c81e07b3d56a1c9e8f70b2d4c6a";
        one(&format!("token {dapi}."), SecretKind::DatabricksToken, dapi);
        let azure = "Ab19Q~xY7.kL_2mN-3pQ4rS5tU6vW7xY8zA9bC0d";
        one(
            &format!("secret: '{azure}'"),
            SecretKind::AzureSecret,
            azure,
        );
        let legacy = "s.Xy7Qw3Er9Ty1Ui5Op2As8Df4";
        one(
            &format!("VAULT_TOKEN={legacy}"),
            SecretKind::VaultToken,
            legacy,
        );
        none("use s.execute_query_for_all_rows() here");
        none("the sgp_ prefix marks Sourcegraph tokens");
    }

    #[test]
    fn values_after_secret_key_words() {
        let hex = "9f86d081884c7d659a2feaa0c55ad015";
        one(
            &format!("api_key = \"{hex}\""),
            SecretKind::GenericSecret,
            hex,
        );
        one(
            &format!("my datadog API key is {hex}"),
            SecretKind::GenericSecret,
            hex,
        );
        one(
            "DB_PASSWORD=Tr0ub4dor!3",
            SecretKind::Password,
            "Tr0ub4dor!3",
        );
        one("password=hunter2", SecretKind::Password, "hunter2");
        one(
            "<add key=\"ApiToken\" value=\"q8W3e5R7t9Y1u3I5o7P9\" />",
            SecretKind::GenericSecret,
            "q8W3e5R7t9Y1u3I5o7P9",
        );
        let okta = "00Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3A";
        one(
            &format!("okta_api_token: {okta}"),
            SecretKind::OktaToken,
            okta,
        );
        none("token_type=bearer max_tokens=4096 password_min_length: 12");
        none("api_key=${API_KEY} password: <your-password> api_key_id=123456");
        none("SECRET_KEY = settings.SECRET_KEY");
        none("next_page_token=Zq1Xw2Ce3Vr4Bt5Ny6Mu7Ki8Lo9Pp0A");
        none("the token bucket refills 500 per second");
        none("secret = \"arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCd\"");
    }

    #[test]
    fn ssn_iban_and_national_phones() {
        one("SSN: 536-22-1234", SecretKind::Ssn, "536-22-1234");
        one("ssn 536 22 1234", SecretKind::Ssn, "536 22 1234");
        none("ref 666-22-1234 and 000-12-3456");
        one(
            "IBAN DE89 3704 0044 0532 0130 00, thanks",
            SecretKind::Iban,
            "DE89 3704 0044 0532 0130 00",
        );
        none("IBAN DE00 3704 0044 0532 0130 00");
        one("call (415) 555-0100", SecretKind::Phone, "(415) 555-0100");
        one(
            "my number is 555-201-3344.",
            SecretKind::Phone,
            "555-201-3344",
        );
        one("tel: 020 7946 0958", SecretKind::Phone, "020 7946 0958");
        none("order #415-555-0100 and INV-415-555-0100");
        none("fax 2024-03-15");
        one(
            "écris à josé.garcía@correo.example.es",
            SecretKind::Email,
            "josé.garcía@correo.example.es",
        );
    }

    #[test]
    fn nothing_inside_file_names() {
        none("uploaded wallpaper-2018-250-xoxp-4k-ultra-hd-ab12cd.jpg");
        none("scan-415-555-0100.pdf and report_4111111111111111.csv");
        none("DSC-2019-250-ghp_R3nq8ZkLw2VbXc9TyHs4MdJf6PaQe1UoNiGt.JPG");
    }

    #[test]
    fn offsets_are_char_boundaries_in_cjk_text() {
        let text = "我的邮箱是 test@example.com，手机 13912345678，卡号 4111111111111111。";
        let r = redact(text);
        assert_eq!(r.findings.len(), 3);
        for f in &r.findings {
            assert!(text.is_char_boundary(f.start) && text.is_char_boundary(f.end));
        }
        assert_eq!(
            r.text,
            "我的邮箱是 [REDACTED:email]，手机 [REDACTED:phone]，卡号 [REDACTED:card_number]。"
        );
        assert_eq!(
            &text[r.findings[0].start..r.findings[0].end],
            "test@example.com"
        );
    }

    #[test]
    fn overlaps_longest_then_specific() {
        // The URL password `pw` and the email-shaped `pw@host.example`: the
        // password wins, the host stays.
        let r = redact("https://u:pw@host.example/x");
        assert_eq!(r.text, "https://u:[REDACTED:url_password]@host.example/x");
        // An Anthropic key is also `sk-` shaped: the specific kind wins.
        let a = "sk-ant-api03-Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Ji0Hg9Fe8Dc7Ba6";
        assert_eq!(kinds(a), vec![(SecretKind::AnthropicKey, a)]);
        // A PEM block swallows everything inside it.
        let pem = "-----BEGIN EC PRIVATE KEY-----\nAKIAQ3EXAMPLE7ZK5W2M a@b.example\n-----END EC PRIVATE KEY-----";
        assert_eq!(kinds(pem), vec![(SecretKind::PrivateKey, pem)]);
        // Resolution in isolation.
        let f = |kind, start, end| Finding { kind, start, end };
        let got = resolve(vec![
            f(SecretKind::Email, 0, 5),
            f(SecretKind::Phone, 3, 10),
            f(SecretKind::Jwt, 3, 10),
            f(SecretKind::CardNumber, 10, 12),
        ]);
        assert_eq!(
            got,
            vec![f(SecretKind::Jwt, 3, 10), f(SecretKind::CardNumber, 10, 12)]
        );
    }

    #[test]
    fn idempotent_on_examples() {
        let text = "aws AKIAQ3EXAMPLE7ZK5W2M wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLE9Q \
                    https://u:pw@h.example Bearer abcdEFGH1234ijklMNOP 13800138000 x@y.example";
        let once = redact(text);
        assert!(once.findings.len() >= 6, "{once:?}");
        let twice = redact(&once.text);
        assert_eq!(twice.text, once.text);
        assert!(twice.findings.is_empty());
    }

    #[test]
    fn fixture_like_noise_is_left_alone() {
        none(
            r#"{"uuid":"a1f0e2d3-0001-4c8e-a0f2-9d8e7c6b5a41","timestamp":"2026-10-02T09:14:03.120Z","version":"2.0.14"}"#,
        );
        none("commit 3f786850e387550fdab836ed7e6dc881de23001b, price $1,299.00, v1.2.3-rc.4");
    }

    mod props {
        use super::super::*;
        use proptest::prelude::*;

        const PIECES: &[&str] = &[
            "ghp_R3nq8ZkLw2VbXc9TyHs4MdJf6PaQe1UoNiGt",
            "AKIAQ3EXAMPLE7ZK5W2M",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLE9Q",
            "aws",
            "13800138000",
            "+86 ",
            "4111 1111 1111 1111",
            "11010519491231002X",
            "a@b.example",
            "://u:",
            "@h",
            "Bearer ",
            "sk-",
            "eyJhbGciOiJIUzI1NiJ9.",
            "-----BEGIN PRIVATE KEY-----",
            "-----END PRIVATE KEY-----",
            "[REDACTED:phone]",
            "password=",
            "api_key: ",
            "hvs.",
            "s.",
            "9Q~",
            "SSN ",
            "DE89 3704 0044 0532 0130 00",
            "(415) 555-0100",
            ".jpg",
            "josé@correo.es",
            "用户@例子.中国",
            "\n",
            " ",
            "中文",
            "-",
            ":",
            "1",
            "x",
        ];

        fn soup() -> impl Strategy<Value = String> {
            prop::collection::vec(
                prop_oneof![
                    prop::sample::select(PIECES).prop_map(str::to_owned),
                    "[a-zA-Z0-9 +@:/._-]{0,12}",
                    any::<String>(),
                ],
                0..12,
            )
            .prop_map(|v| v.concat())
        }

        fn check(text: &str) -> Result<(), TestCaseError> {
            let r = redact(text);
            let mut prev_end = 0;
            for f in &r.findings {
                prop_assert!(f.start < f.end && f.end <= text.len());
                prop_assert!(f.start >= prev_end, "overlap or disorder");
                prop_assert!(text.is_char_boundary(f.start) && text.is_char_boundary(f.end));
                prev_end = f.end;
            }
            prop_assert_eq!(&redact(text), &r, "deterministic");
            let again = redact(&r.text);
            prop_assert_eq!(&again.text, &r.text, "idempotent");
            prop_assert!(again.findings.is_empty());
            Ok(())
        }

        proptest! {
            #![proptest_config(ProptestConfig {
                cases: 512,
                failure_persistence: None,
                ..ProptestConfig::default()
            })]

            #[test]
            fn never_panics_on_any_string(text in any::<String>()) {
                check(&text)?;
            }

            #[test]
            fn sound_and_idempotent_on_secret_soup(text in soup()) {
                check(&text)?;
            }
        }
    }
}

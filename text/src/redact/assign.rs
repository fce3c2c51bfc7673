//! Values after a secret key word: `api_key=...`, `"token": "..."`,
//! `password: ...`, `SECRET_KEY ...`, `my password is ...`, `<password>`.
//!
//! The regex finds a key that contains a secret word, a separator and a
//! value; the key is then read word by word (`clientSecret`, `API_KEY`,
//! `x-api-key` split alike) and the value must look generated. Invariants:
//! the value alone is redacted (the key stays, so the text still says what
//! was there); a key whose last words name something that is not the
//! secret itself (`token_type`, `password_min_length`, `api_key_id`,
//! `next_page_token`) never qualifies; placeholders (`${VAR}`, `<token>`,
//! `your-api-key`, `changeme`, `os.environ`) and values without entropy
//! (words, numbers, versions, paths, dotted names) are left alone.

use std::sync::LazyLock;

use regex::Regex;

use super::{Candidates, SecretKind, classes, distinct, entropy, next_char, prev_char, re, scan};

static ASSIGN: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        // The key: an identifier holding a secret word, maybe after a
        // word (`my password`, `var apiToken`) or as a flag (`--token`).
        // The secret word starts the key or a part of it (after `_`, `-`,
        // `.`, or capitalised: `clientSecret`, `PGPASSWORD`) and the rest
        // of the key starts a new part, so `monkey`, `author`, `passed` and
        // `tokenizer` never reach the captures. Long words may also end a
        // lower-case compound (`rootpassword`).
        r"(?P<key>(?:(?-u:\b)[A-Za-z]{2,12} )?(?:--?)?(?-u:\b)(?:",
        r"(?:[A-Za-z0-9_.-]*[_.-])?(?i:",
        r"pass(?:w(?:or)?d|phrase|code)?|pwd|pw|secrets?|tokens?|keys?|apikey|apitoken|secretkey",
        r"|accesskey|accesstoken|authtoken|privatekey|clientsecret|auth|creds?|credentials?|access",
        r"|api|okta|heroku|atlassian|jira|confluence|sourcegraph|facebook)",
        r"|[A-Za-z0-9_.-]*?[A-Za-z0-9](?:",
        r"Pass(?:w(?:or)?d|phrase|code)?|Pwd|Secrets?|Tokens?|Keys?|Auth|Creds?|Credentials?|Access",
        r"|Api|Okta|Heroku|Atlassian|Jira|Confluence|Sourcegraph|Facebook",
        r"|PASS(?:W(?:OR)?D|PHRASE|CODE)?|PWD|PW|SECRETS?|TOKENS?|KEYS?|AUTH|CREDS?|CREDENTIALS?",
        r"|ACCESS|API|OKTA|HEROKU|ATLASSIAN|JIRA|CONFLUENCE|SOURCEGRAPH|FACEBOOK",
        r"|password|passwd|passphrase|secrets?|token|apikey|credentials?)",
        r")(?:[_.0-9A-Z-][A-Za-z0-9_.-]*)?)",
        // Its closing quote and a type annotation (`apiToken string =`).
        r#"\\?["'`]?\]?(?:[ \t]+string|[ \t]*:[ \t]*(?:string|str))?"#,
        // The operator: assignments of most languages and config formats,
        // a call, a CSV comma, an XML `>`, or prose (`token abc`, `is`).
        r"[ \t]*(?P<sep>[<>?+.]?=|:{1,3}=|\?\?=|\|\|=|=>|->|==|:|>|,|\(",
        r"|[ \t](?:is |was |are |of )?)[ \t]*",
        // YAML block scalars and values on the next line.
        r"(?:[|>][-+]?[ \t]*)?(?:\r?\n[ \t]*)?",
        r#"(?P<open>\\?["'`])?"#,
        r"(?P<value>[A-Za-z0-9!#$%*+./:=?@^_~-]{4,})",
    ))
});

/// The longest key and value the rule judges; longer runs are data, not
/// assignments (and unbounded repetitions keep the regex fast).
const KEY_BYTES_MAX: usize = 80;
const VALUE_BYTES_MAX: usize = 300;

/// Every key word [`ASSIGN`] can match holds one of these: texts without
/// any skip the rule.
static KEY_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        "(?i)pass|pwd|pw|secret|token|key|auth|cred|access|api|okta|heroku|atlassian|jira",
        "|confluence|sourcegraph|facebook"
    ))
});

/// `<add key="ApiToken" value="..." />`, `name="password" value="..."`: the
/// key and its value in two attributes.
static ATTRIBUTES: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r#"(?i)(?-u:\b)(?:key|name)[ \t]*=[ \t]*\\?["'](?P<key>[A-Za-z0-9_.:-]{2,60})\\?["']"#,
        r#"[ \t]+value[ \t]*=[ \t]*\\?["'](?P<value>[^"'\\\s<>]{4,200})\\?["']"#,
    ))
});

/// Words that make a key a password key.
const PASSWORD_WORDS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "pass",
    "passphrase",
    "passcode",
    "pw",
];

/// Words that make a key a secret key on their own.
const SECRET_WORDS: &[&str] = &[
    "secret",
    "secrets",
    "token",
    "access",
    "api",
    "apikey",
    "credential",
    "credentials",
    "creds",
    "auth",
    "okta",
    "heroku",
    "atlassian",
    "jira",
    "confluence",
    "sourcegraph",
    "facebook",
];

/// Words that, before `key`, name something other than a credential.
const KEY_NOT_SECRET_BEFORE: &[&str] = &[
    "primary",
    "foreign",
    "sort",
    "partition",
    "cache",
    "idempotency",
    "public",
    "pub",
    "lookup",
    "hot",
    "group",
    "row",
    "map",
    "dict",
    "hash",
    "object",
    "unique",
    "composite",
    "natural",
    "routing",
    "dedup",
    "dedupe",
    "shard",
    "index",
    "join",
    "cursor",
    "registry",
    "translation",
    "i18n",
    "react",
    "list",
    "config",
    "settings",
    "ssh",
    "gpg",
    "pgp",
    "host",
];

/// Words anywhere in a key that make it name something that is not secret.
const NOT_SECRET_ANYWHERE: &[&str] = &[
    "page",
    "next",
    "cursor",
    "continuation",
    "csrf",
    "xsrf",
    "public",
    "publishable",
    "sync",
    "max",
    "min",
    "num",
    "tokens",
    "keys",
];

/// Words after the secret word that make a key name something about the
/// secret rather than the secret itself.
const NOT_SECRET_AFTER: &[&str] = &[
    "id",
    "arn",
    "ids",
    "type",
    "name",
    "names",
    "url",
    "uri",
    "endpoint",
    "path",
    "file",
    "filename",
    "dir",
    "length",
    "len",
    "size",
    "count",
    "limit",
    "expiry",
    "expires",
    "expiration",
    "exp",
    "ttl",
    "timeout",
    "hash",
    "hashed",
    "digest",
    "format",
    "version",
    "field",
    "header",
    "prefix",
    "suffix",
    "hint",
    "policy",
    "mode",
    "pattern",
    "label",
    "placeholder",
    "env",
    "var",
    "required",
    "enabled",
    "rotation",
    "manager",
    "store",
    "storage",
    "provider",
    "usage",
    "budget",
    "index",
    "idx",
    "at",
    "ref",
    "source",
    "algorithm",
    "alg",
    "method",
    "scope",
    "scopes",
    "kind",
    "status",
    "location",
    "reset",
    "age",
    "strength",
    "rules",
    "expired",
    "count",
    "estimate",
    "used",
    "ok",
    "valid",
    "set",
    "changed",
];

/// Values that stand for a secret rather than being one (lower case).
const PLACEHOLDERS: &[&str] = &[
    "xxxx",
    "****",
    "...",
    "your",
    "example",
    "changeme",
    "change_me",
    "change-me",
    "placeholder",
    "redacted",
    "dummy",
    "sample",
    "insert",
    "replace",
    "fixme",
    "todo",
    "here",
    "secret",
    "password",
    "token",
    "undefined",
    "null",
    "none",
    "true",
    "false",
    "string",
    "required",
    "optional",
    "hidden",
    "masked",
];

/// File extensions that make a value a file name, not a secret.
const FILE_EXTENSIONS: &[&str] = &[
    "pem", "key", "crt", "cer", "p12", "pfx", "json", "yaml", "yml", "toml", "txt", "env", "cfg",
    "conf", "ini", "gpg", "asc", "pub", "jks", "keystore", "der", "csv", "log", "md", "sh", "py",
    "js", "ts", "rs", "go", "rb", "java",
];

/// Lower-case words of a key: `clientSecret`, `CLIENT_SECRET` and
/// `client-secret` all give `client`, `secret`.
fn words(key: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for ch in key.chars() {
        if !ch.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if ch.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = ch.is_ascii_lowercase() || ch.is_ascii_digit();
        cur.push(ch.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// What a key says its value is: a password, another secret, or nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyClass {
    Password,
    Secret,
}

fn classify(key: &str) -> Option<KeyClass> {
    let w = words(key);
    if w.iter().any(|x| NOT_SECRET_ANYWHERE.contains(&x.as_str())) {
        return None;
    }
    // The last secret word decides; every word after it must not turn the
    // key into a name for something about the secret.
    let (i, class) = w.iter().enumerate().rev().find_map(|(i, x)| {
        let x = x.as_str();
        if PASSWORD_WORDS.contains(&x) {
            Some((i, KeyClass::Password))
        } else if SECRET_WORDS.contains(&x) {
            Some((i, KeyClass::Secret))
        } else if ["password", "passwd", "passphrase"]
            .iter()
            .any(|w| x.ends_with(w))
        {
            // A lower-case compound: `rootpassword`.
            Some((i, KeyClass::Password))
        } else if ["secret", "token", "apikey", "credentials"]
            .iter()
            .any(|w| x.ends_with(w))
        {
            Some((i, KeyClass::Secret))
        } else if x == "key" {
            let before = i.checked_sub(1).and_then(|j| w.get(j));
            let ok = before.is_none_or(|b| !KEY_NOT_SECRET_BEFORE.contains(&b.as_str()));
            ok.then_some((i, KeyClass::Secret))
        } else {
            None
        }
    })?;
    let after_ok = w[i + 1..]
        .iter()
        .all(|x| !NOT_SECRET_AFTER.contains(&x.as_str()));
    after_ok.then_some(class)
}

/// Whether `v` is a placeholder, a reference, a name, a number or a path.
fn not_a_value(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    // `$VAR`, `%VAR%`, `{{ tpl }}`, `<placeholder>`, paths, YAML tags.
    let yaml_tag = v.starts_with('!') && v[1..].bytes().all(|b| b.is_ascii_alphabetic());
    if v.starts_with(['$', '%', '{', '<', '/'])
        || ["~/", "./", "../"].iter().any(|p| v.starts_with(p))
        || yaml_tag
        || lower.starts_with("http")
        || lower.starts_with("arn:")
        || lower.contains("://")
        || PLACEHOLDERS.iter().any(|p| lower.contains(p))
        || !distinct(v, 4)
    {
        return true;
    }
    // Numbers, versions, dates and times (long digit strings are ids and
    // keys: judged by the caller).
    let digits_only = v.bytes().all(|b| b.is_ascii_digit());
    if !(digits_only && v.len() >= 16)
        && v.bytes()
            .all(|b| b.is_ascii_digit() || b".-:_/+".contains(&b))
    {
        return true;
    }
    // Another assignment (`api_key_id=123456` after a placeholder).
    if let Some((name, _)) = v.split_once('=')
        && !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-')
        && name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && (name.bytes().any(|b| b == b'_' || b == b'.' || b == b'-')
            || name.bytes().all(|b| b.is_ascii_lowercase()))
    {
        return true;
    }
    // Dotted names: `settings.SECRET_KEY`, `os.environ`, `config.api.token`.
    if v.contains('.')
        && v.split('.')
            .all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphabetic() || b == b'_'))
    {
        return true;
    }
    // File names.
    if let Some((_, ext)) = v.rsplit_once('.')
        && FILE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
    {
        return true;
    }
    // Identifiers in snake or kebab case: `get_token`, `read-only-key`,
    // and an attribute name with its `=` (`value=`).
    let is_name = |s: &str| s.bytes().all(|b| b.is_ascii_alphabetic());
    v.trim_end_matches('=').split(['_', '-']).all(is_name)
}

fn has_symbol(v: &str) -> bool {
    v.bytes().any(|b| !b.is_ascii_alphanumeric())
}

fn password_like(v: &str) -> bool {
    v.len() >= 6 && (classes(v) >= 2 || has_symbol(v)) && distinct(v, 5)
}

fn generated_like(v: &str, min_len: usize) -> bool {
    let digits_only = v.bytes().all(|b| b.is_ascii_digit());
    v.len() >= min_len
        && (classes(v) >= 2 || (digits_only && v.len() >= 16))
        && distinct(v, 8)
        && entropy(v) >= 3.0
}

fn is_hex(v: &str, len: usize) -> bool {
    v.len() == len && v.bytes().all(|b| b.is_ascii_hexdigit())
}

fn is_uuid(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                c == b'-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

/// The vendor whose key word appears in the key and whose shape the value
/// has, if any.
fn vendor(key: &str, v: &str) -> Option<SecretKind> {
    let k = key.to_ascii_lowercase();
    let alnum = |n: usize| v.len() == n && v.bytes().all(|b| b.is_ascii_alphanumeric());
    if k.contains("okta")
        && v.len() == 42
        && v.starts_with("00")
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_=-".contains(&b))
    {
        return Some(SecretKind::OktaToken);
    }
    if k.contains("heroku") && is_uuid(v) {
        return Some(SecretKind::HerokuKey);
    }
    if (k.contains("atlassian") || k.contains("jira") || k.contains("confluence")) && alnum(24) {
        return Some(SecretKind::AtlassianToken);
    }
    if k.contains("sourcegraph") && is_hex(v, 40) {
        return Some(SecretKind::SourcegraphToken);
    }
    if k.contains("facebook") && is_hex(v, 32) {
        return Some(SecretKind::FacebookToken);
    }
    None
}

/// Adds every secret value after a secret key word in `c.text`.
pub(super) fn detect(c: &mut Candidates<'_>) {
    let text = c.text;
    if !KEY_WORDS.is_match(text) {
        return;
    }
    let found = scan(&ASSIGN, text, |caps| {
        let key_m = caps.name("key")?;
        let key = key_m.as_str();
        if key.len() > KEY_BYTES_MAX || caps.name("value")?.len() > VALUE_BYTES_MAX {
            return None;
        }
        // A retry inside a rejected key (`rimary_key` of `primary_key`)
        // would judge the wrong words: keys start at a key boundary.
        let before = prev_char(text, key_m.start());
        // Nor inside a path or a URN (`arn:...:secret:prod/db`).
        if before.is_some_and(|ch| ch.is_ascii_alphanumeric() || "_.-:/".contains(ch)) {
            return None;
        }
        let sep = caps.name("sep")?.as_str();
        let m = caps.name("value")?;
        let quoted = caps.name("open").is_some();
        let mut v = m.as_str();
        // A sentence's full stop is not part of an unquoted value.
        if !quoted && next_char(text, m.end()).is_none_or(char::is_whitespace) {
            v = v.strip_suffix(['.', ',']).unwrap_or(v);
        }
        if v.len() < 4 {
            return None;
        }
        // `>` closes an XML start tag (`<password>...`), nothing else.
        if sep == ">" && before != Some('<') {
            return None;
        }
        let class = classify(key)?;
        if not_a_value(v) {
            return None;
        }
        // Prose (`token 5f4d...`, `password is ...`) asks more of the
        // value than an assignment does.
        // (`is` / `was` state it: judged like an assignment.)
        let prose = sep.trim().is_empty();
        let kind = if let Some(kind) = vendor(key, v) {
            kind
        } else {
            match class {
                KeyClass::Password
                    if password_like(v) && (!prose || classes(v) == 3 || has_symbol(v)) =>
                {
                    SecretKind::Password
                }
                KeyClass::Secret if generated_like(v, if prose { 16 } else { 12 }) => {
                    SecretKind::GenericSecret
                }
                KeyClass::Secret if quoted && generated_like(v, 10) => SecretKind::GenericSecret,
                _ => return None,
            }
        };
        Some((m.start(), m.start() + v.len(), kind))
    });
    let attributes = scan(&ATTRIBUTES, text, |caps| {
        let key = caps.name("key")?.as_str();
        let m = caps.name("value")?;
        let v = m.as_str();
        let kind = match classify(key)? {
            _ if not_a_value(v) => return None,
            KeyClass::Password if password_like(v) => SecretKind::Password,
            KeyClass::Secret if generated_like(v, 10) => SecretKind::GenericSecret,
            _ => return None,
        };
        Some((m.start(), m.end(), kind))
    });
    for (s, e, kind) in found.into_iter().chain(attributes) {
        c.push(kind, s, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_words_split_every_case() {
        assert_eq!(words("clientSecret"), ["client", "secret"]);
        assert_eq!(words("CLIENT_SECRET"), ["client", "secret"]);
        assert_eq!(words("x-api-key"), ["x", "api", "key"]);
        assert_eq!(words("my password"), ["my", "password"]);
    }

    #[test]
    fn keys_are_classified_by_their_last_secret_word() {
        assert_eq!(classify("DB_PASSWORD"), Some(KeyClass::Password));
        assert_eq!(classify("apiKey"), Some(KeyClass::Secret));
        assert_eq!(classify("STRIPE_KEY"), Some(KeyClass::Secret));
        assert_eq!(classify("token_type"), None);
        assert_eq!(classify("api_key_id"), None);
        assert_eq!(classify("password_min_length"), None);
        assert_eq!(classify("primary_key"), None);
        assert_eq!(classify("next_page_token"), None);
        assert_eq!(classify("max_tokens"), None);
        assert_eq!(classify("monkey"), None);
    }
}

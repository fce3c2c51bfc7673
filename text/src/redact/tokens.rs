//! Vendor tokens recognised by their documented shape: a fixed prefix (or a
//! fixed infix such as Azure's `Q~`) and a body of a known alphabet and
//! length. The formats follow each vendor's documentation and the public
//! catalogue kept by secret scanners (gitleaks' rule list, MIT); the
//! patterns here are written from those descriptions.
//!
//! Invariants: every rule names the literal(s) each of its matches contains,
//! and a rule's regex runs only on texts that hold one of them (one
//! [`RegexSet`] pass over the text picks the rules), so the cost of a text
//! without tokens is one literal scan. A match glued to a word character
//! before it or a token character after it is part of something longer and
//! is skipped, and every body must look generated (see [`Check`]), which
//! keeps `sk-your-key-here` and `xoxb-...` placeholders out.

use std::sync::LazyLock;

use regex::{Regex, RegexSet};

use super::{
    Candidates, SecretKind, classes, distinct, is_word, next_char, prev_char, random_enough, re,
    scan, token_char,
};

/// How random a token's body (the match without its literal prefix) must
/// look.
#[derive(Clone, Copy)]
enum Check {
    /// At least two character classes and eight distinct characters.
    Random,
    /// Upper, lower and digits, ten distinct characters: for prefixes that
    /// also start ordinary words or identifiers (`sk-`, `s.`, `secret_`).
    Strong,
    /// Letters and digits, ten distinct characters.
    Mixed,
    /// OpenAI: [`Check::Strong`], or a long body of two classes (hex keys
    /// of OpenAI-compatible vendors) with few dashes.
    OpenAi,
    /// At least this many distinct characters (single-class alphabets).
    Distinct(usize),
}

impl Check {
    fn passes(self, body: &str) -> bool {
        match self {
            Check::Random => random_enough(body),
            Check::Strong => classes(body) == 3 && distinct(body, 10),
            Check::Mixed => {
                body.bytes().any(|b| b.is_ascii_digit())
                    && body.bytes().any(|b| b.is_ascii_alphabetic())
                    && distinct(body, 10)
            }
            Check::OpenAi => {
                (classes(body) == 3 && distinct(body, 10))
                    || (body.len() >= 32 && random_enough(body) && body.matches('-').count() <= 3)
            }
            Check::Distinct(n) => distinct(body, n),
        }
    }
}

struct Rule {
    kind: SecretKind,
    /// Literals one of which every match contains; the prefilter.
    keywords: &'static [&'static str],
    /// The token; when the pattern has a group 1, that group is the secret
    /// and the rest is context that stays.
    pattern: &'static str,
    check: Check,
    /// Characters besides ASCII letters, digits and `_` that glue a match
    /// to its neighbours (Azure secrets contain `~` and `.`).
    glue: &'static str,
}

const fn rule(
    kind: SecretKind,
    keywords: &'static [&'static str],
    pattern: &'static str,
    check: Check,
) -> Rule {
    Rule {
        kind,
        keywords,
        pattern,
        check,
        glue: "",
    }
}

use Check::{Distinct, Mixed, OpenAi, Random, Strong};
use SecretKind as K;

/// The rules, most specific first where two can match the same span.
const RULES: &[Rule] = &[
    rule(
        K::Jwt,
        &["eyJ"],
        r"eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
        Random,
    ),
    // Headers other than `{"` (`{ "alg"` is `eyAi...`), and signatures
    // with `/` from standard base64.
    rule(
        K::Jwt,
        &["ey"],
        r"ey[A-Za-z0-9_-]{15,}\.ey[A-Za-z0-9/_-]{15,}\.(?:[A-Za-z0-9/_-]{10,}={0,2})?",
        Random,
    ),
    // A JWT encoded once more in base64 (`eyJ` is `ZXlK`).
    rule(K::Jwt, &["ZXlK"], r"ZXlK[A-Za-z0-9/_+-]{60,}={0,2}", Random),
    rule(
        K::AnthropicKey,
        &["sk-ant-"],
        r"sk-ant-[A-Za-z0-9_-]{32,}",
        Random,
    ),
    rule(K::OpenaiKey, &["sk-"], r"sk-[A-Za-z0-9_-]{20,}", OpenAi),
    rule(
        K::AwsAccessKey,
        &[
            "AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA",
            "A3T",
        ],
        r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}",
        Distinct(8),
    ),
    rule(
        K::GithubToken,
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        r"gh[pousr]_[A-Za-z0-9]{30,251}",
        Random,
    ),
    rule(
        K::GithubToken,
        &["github_pat_"],
        r"github_pat_[A-Za-z0-9_]{30,}",
        Random,
    ),
    rule(
        K::GitlabToken,
        &[
            "glpat-", "gldt-", "glrt-", "glsoat-", "glffct-", "glft-", "glimt-", "glagent-",
            "gloas-", "glptt-", "glcbt-",
        ],
        r"gl(?:pat|dt|rt|soat|ffct|ft|imt|agent|oas|ptt|cbt)-[A-Za-z0-9_.-]{20,}",
        Random,
    ),
    rule(
        K::GitlabToken,
        &["GR1348941"],
        r"GR1348941[A-Za-z0-9_-]{20,}",
        Random,
    ),
    rule(
        K::GitlabToken,
        &["_gitlab_session="],
        r"_gitlab_session=([0-9a-z]{32})",
        Random,
    ),
    rule(
        K::SlackToken,
        &[
            "xoxa-", "xoxb-", "xoxe-", "xoxo-", "xoxp-", "xoxr-", "xoxs-",
        ],
        r"xox[abeoprs]-[A-Za-z0-9-]{10,}",
        Random,
    ),
    rule(K::SlackToken, &["xapp-"], r"xapp-[A-Za-z0-9-]{20,}", Random),
    rule(K::GoogleApiKey, &["AIza"], r"AIza[A-Za-z0-9_-]{35}", Random),
    rule(
        K::GoogleApiKey,
        &["ya29."],
        r"ya29\.[A-Za-z0-9_-]{20,}",
        Random,
    ),
    rule(
        K::StripeKey,
        &["sk_", "rk_", "pk_"],
        r"(?:sk|rk|pk)_(?:live|test|prod)_[A-Za-z0-9]{10,}",
        Random,
    ),
    rule(K::StripeKey, &["whsec_"], r"whsec_[A-Za-z0-9]{24,}", Random),
    rule(K::NpmToken, &["npm_"], r"npm_[A-Za-z0-9]{36}", Random),
    rule(
        K::HuggingfaceToken,
        &["hf_", "api_org_"],
        r"(?:hf|api_org)_[A-Za-z]{34}",
        Random,
    ),
    Rule {
        glue: "~.",
        ..rule(
            K::AzureSecret,
            &["Q~"],
            r"[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
            Random,
        )
    },
    rule(
        K::AzureSecret,
        &["AccountKey="],
        r"AccountKey=([A-Za-z0-9+/]{86}==)",
        Random,
    ),
    rule(
        K::VaultToken,
        &["hvs.", "hvb."],
        r"hv[sb]\.[A-Za-z0-9_-]{90,300}",
        Random,
    ),
    rule(K::VaultToken, &["s."], r"s\.[A-Za-z0-9]{24}", Mixed),
    rule(
        K::HerokuKey,
        &["HRKU-"],
        r"HRKU-AA[A-Za-z0-9_-]{58}",
        Random,
    ),
    rule(K::FacebookToken, &["EAA"], r"EAA[A-Za-z0-9]{90,}", Random),
    rule(
        K::FacebookToken,
        &["|", "%"],
        r"[0-9]{15,16}(?:\||%7C|%)([A-Za-z0-9_-]{27,40})",
        Random,
    ),
    rule(
        K::OnepasswordToken,
        &["ops_eyJ"],
        r"ops_eyJ[A-Za-z0-9+/]{250,}={0,3}",
        Random,
    ),
    rule(
        K::OnepasswordToken,
        &["A3-"],
        r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}",
        Distinct(10),
    ),
    rule(
        K::DatabricksToken,
        &["dapi"],
        r"dapi[a-f0-9]{32}(?:-[0-9])?",
        Random,
    ),
    rule(
        K::OktaToken,
        &["SSWS"],
        r"SSWS[ \t]+(00[A-Za-z0-9_=-]{40})",
        Random,
    ),
    rule(K::FlyioToken, &["fo1_"], r"fo1_[A-Za-z0-9_-]{43}", Random),
    rule(
        K::FlyioToken,
        &["fm1a_", "fm1r_", "fm2_"],
        r"fm(?:1[ar]|2)_[A-Za-z0-9+/]{64,}={0,3}",
        Random,
    ),
    rule(
        K::AtlassianToken,
        &["ATATT3", "ATCTT3"],
        r"AT[AC]TT3[A-Za-z0-9_=-]{150,}",
        Random,
    ),
    rule(
        K::SourcegraphToken,
        &["sgp_"],
        r"sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}",
        Random,
    ),
    rule(
        K::NotionToken,
        &["ntn_"],
        r"ntn_[0-9]{11}[A-Za-z0-9]{35}",
        Random,
    ),
    rule(
        K::NotionToken,
        &["secret_"],
        r"secret_[A-Za-z0-9]{43}",
        Strong,
    ),
    // The long tail: one kind, recognised by prefix.
    rule(
        K::ApiToken,
        &["AGE-SECRET-KEY-1"],
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        Distinct(10),
    ),
    rule(K::ApiToken, &["p8e-"], r"p8e-[A-Za-z0-9]{32}", Random),
    rule(K::ApiToken, &["LTAI"], r"LTAI[A-Za-z0-9]{20}", Random),
    rule(K::ApiToken, &["AKCp"], r"AKCp[A-Za-z0-9]{69}", Random),
    rule(K::ApiToken, &["cmVmd"], r"cmVmd[A-Za-z0-9]{59}", Random),
    rule(
        K::ApiToken,
        &[".acc_", ".acc-"],
        r"(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["CLOJARS_"],
        r"CLOJARS_[A-Za-z0-9]{60}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["v1.0-"],
        r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["dop_v1_", "doo_v1_", "dor_v1_"],
        r"do[opr]_v1_[a-f0-9]{64}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["dp."],
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["dt0c01."],
        r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["EZAK", "EZTK"],
        r"EZ[AT]K[A-Za-z0-9]{54}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["duffel_"],
        r"duffel_(?:test|live)_[A-Za-z0-9_=-]{43}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["FLWSECK", "FLWPUBK"],
        r"FLW(?:SECK|PUBK)_TEST-[a-hA-H0-9]{12}(?:[a-hA-H0-9]{20}-X)?",
        Random,
    ),
    rule(
        K::ApiToken,
        &["fio-u-"],
        r"fio-u-[A-Za-z0-9_=-]{64}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["glc_"],
        r"glc_[A-Za-z0-9+/]{32,400}={0,3}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["glsa_"],
        r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["eyJrIjoi"],
        r"eyJrIjoi[A-Za-z0-9]{70,400}={0,3}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["pat.", "sat."],
        r"[ps]at\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}",
        Random,
    ),
    rule(
        K::ApiToken,
        &[".atlasv1."],
        r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}",
        Random,
    ),
    rule(K::ApiToken, &["ico-"], r"ico-[A-Za-z0-9]{32}", Random),
    rule(
        K::ApiToken,
        &["lin_api_"],
        r"lin_api_[A-Za-z0-9]{40}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["pk.eyJ", "sk.eyJ"],
        r"[ps]k\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["NRAK-", "NRJS-", "NRII-"],
        r"NR(?:AK-[A-Za-z0-9]{27}|JS-[A-Fa-f0-9]{19}|II-[A-Za-z0-9-]{32})",
        Random,
    ),
    rule(K::ApiToken, &["API-"], r"API-[A-Z0-9]{26}", Random),
    rule(
        K::ApiToken,
        &["sha256~"],
        r"sha256~[A-Za-z0-9_-]{43}",
        Random,
    ),
    rule(K::ApiToken, &["pplx-"], r"pplx-[A-Za-z0-9]{48}", Random),
    rule(K::ApiToken, &["gsk_"], r"gsk_[A-Za-z0-9]{52}", Random),
    rule(K::ApiToken, &["xai-"], r"xai-[A-Za-z0-9]{70,90}", Random),
    rule(K::ApiToken, &["r8_"], r"r8_[A-Za-z0-9]{37}", Random),
    rule(
        K::ApiToken,
        &["lsv2_"],
        r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["pscale_"],
        r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=.-]{32,64}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["PMAK-"],
        r"PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}",
        Random,
    ),
    rule(K::ApiToken, &["pnu_"], r"pnu_[A-Za-z0-9]{36}", Random),
    rule(K::ApiToken, &["pul-"], r"pul-[a-f0-9]{40}", Random),
    rule(
        K::ApiToken,
        &["pypi-AgE"],
        r"pypi-AgE[A-Za-z0-9_-]{50,}",
        Random,
    ),
    rule(K::ApiToken, &["rdme_"], r"rdme_[a-z0-9]{70}", Random),
    rule(
        K::ApiToken,
        &["rubygems_"],
        r"rubygems_[a-f0-9]{48}",
        Random,
    ),
    rule(K::ApiToken, &["tk-us-"], r"tk-us-[A-Za-z0-9_-]{48}", Random),
    rule(K::ApiToken, &["SG."], r"SG\.[A-Za-z0-9_=.-]{60,70}", Random),
    rule(
        K::ApiToken,
        &["xkeysib-", "xsmtpsib-"],
        r"x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["sntryu_", "sntrys_"],
        r"sntry(?:u_[a-f0-9]{64}|s_eyJ[A-Za-z0-9+/=_]{50,})",
        Random,
    ),
    rule(
        K::ApiToken,
        &["shippo_"],
        r"shippo_(?:live|test)_[a-fA-F0-9]{40}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["shpat_", "shpca_", "shppa_", "shpss_"],
        r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
        Random,
    ),
    rule(K::ApiToken, &["EAAA"], r"EAAA[A-Za-z0-9_-]{22,60}", Random),
    rule(
        K::ApiToken,
        &["sq0atp-", "sq0csp-"],
        r"sq0(?:atp|csp)-[A-Za-z0-9_-]{22,43}",
        Random,
    ),
    rule(K::ApiToken, &["SK"], r"SK[0-9a-fA-F]{32}", Random),
    rule(K::ApiToken, &["tfp_"], r"tfp_[A-Za-z0-9_.=-]{59}", Random),
    rule(
        K::ApiToken,
        &["_mmk"],
        r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk",
        Random,
    ),
    rule(
        K::ApiToken,
        &["-us"],
        r"[a-fA-F0-9]{32}-us[0-9]{1,2}",
        Random,
    ),
    rule(K::ApiToken, &["4b1d"], r"4b1d[A-Za-z0-9]{38}", Random),
    rule(
        K::ApiToken,
        &["sm_aat_", "sm_pat_", "sm_sat_"],
        r"sm_[aps]at_[A-Za-z0-9]{16}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["s-s4t2"],
        r"s-s4t2(?:ud|af)-[a-fA-F0-9]{64}",
        Random,
    ),
    rule(
        K::ApiToken,
        &[":A"],
        r"[0-9]{5,16}:A[A-Za-z0-9_-]{34}",
        Random,
    ),
    rule(
        K::ApiToken,
        &["/api/webhooks/"],
        r"discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/([A-Za-z0-9_-]{60,72})",
        Random,
    ),
    rule(
        K::SlackToken,
        &["hooks.slack.com/"],
        r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9_/-]{20,})",
        Random,
    ),
];

struct Compiled {
    rules: Vec<(&'static Rule, Regex)>,
    /// Pattern `i` matches when a text holds one of rule `i`'s keywords.
    prefilter: RegexSet,
}

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| Compiled {
    rules: RULES.iter().map(|r| (r, re(r.pattern))).collect(),
    prefilter: RegexSet::new(RULES.iter().map(|r| {
        r.keywords
            .iter()
            .map(|k| regex::escape(k))
            .collect::<Vec<_>>()
            .join("|")
    }))
    .expect("the keyword prefilter is valid"),
});

/// Adds every vendor token of `c.text`.
pub(super) fn detect(c: &mut Candidates<'_>) {
    let text = c.text;
    let compiled = &*COMPILED;
    for i in compiled.prefilter.matches(text).iter() {
        let (rule, regex) = &compiled.rules[i];
        let glued = |ch: Option<char>| ch.is_some_and(|ch| rule.glue.contains(ch));
        let spans = scan(regex, text, |caps| {
            let whole = caps.get(0)?;
            let secret = caps.get(1).unwrap_or(whole);
            let (before, after) = (prev_char(text, whole.start()), next_char(text, whole.end()));
            if is_word(before) || glued(before) || token_char(after) || glued(after) {
                return None;
            }
            let s = secret.as_str();
            // AWS's documentation key id (`...EXAMPLE`) is a placeholder.
            if rule.kind == K::AwsAccessKey && s.ends_with("EXAMPLE") {
                return None;
            }
            let body = rule
                .keywords
                .iter()
                .find_map(|k| s.strip_prefix(k))
                .unwrap_or(s);
            rule.check
                .passes(body)
                .then_some((secret.start(), secret.end()))
        });
        for (s, e) in spans {
            c.push(rule.kind, s, e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_compile_with_one_prefilter_pattern_each() {
        for (rule, regex) in &COMPILED.rules {
            assert!(!rule.keywords.is_empty(), "{}", rule.pattern);
            // Every keyword is a literal of its own pattern's matches: a
            // match found without the prefilter has one of them.
            for m in regex.find_iter(&sample(rule)) {
                let s = m.as_str();
                assert!(
                    rule.keywords.iter().any(|k| s.contains(k)),
                    "{} matched {s:?} without a keyword",
                    rule.pattern
                );
            }
        }
        assert_eq!(COMPILED.prefilter.len(), RULES.len());
    }

    /// A text for `rule`: each keyword followed by characters of every
    /// class, so most patterns match somewhere in it.
    fn sample(rule: &Rule) -> String {
        let body = "Ab3Cd5Ef7Gh9Jk2Lm4Np6Qr8St1Uv3Wx5Yz7aB2cD4eF6gH8jK1mN3pQ5rS7tU9vW2xY4zA6bC8dE1fG3hJ5kL7mN9pQ2rS4tU6vW8xY1zA3bC5dE7fG9hJ2kL4mN6pQ8rS1tU3vW5xY7zA9bC2dE4fG6hJ8kL1mN3pQ5rS7tU9vW2xY4zA6bC8dE1fG3hJ5kL7mN9pQ2rS4tU6vW8xY1zA3bC5dE7fG9hJ2kL4mN6pQ8rS1tU3vW5xY7zA9bC2dE4fG6hJ8kL1mN3pQ5rS7tU9vW2xY4";
        rule.keywords
            .iter()
            .map(|k| format!(" {k}{body} "))
            .collect()
    }
}

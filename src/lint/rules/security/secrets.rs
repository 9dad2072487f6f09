//! SG608: credentials written into the skill's files — tokens with a known prefix and
//! private keys — reported by kind with the value masked.

use crate::lint::RuleDoc;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::scan;
use crate::finding::Severity;
use crate::lint::Rule;

/// SG608.
pub const SECRET_IN_SKILL: Rule = Rule {
    doc: RuleDoc {
        code: "SG608",
        name: "secret-in-skill",
        severity: Severity::Error,
        summary: "A token or private key is written in the skill",
        what: "Reads every text file of the skill for credentials with a recognisable shape: AWS \
           access key ids, GitHub, GitLab, Slack, OpenAI, Anthropic, Stripe, Google, npm, \
           PyPI, Hugging Face and SendGrid tokens, and PEM or OpenSSH private keys with a key \
           body. Documented placeholders (`AKIAIOSFODNN7EXAMPLE`, `ghp_xxxx…`, values \
           saying \"example\", \"your\", \"dummy\", runs of one character) pass. The message \
           names the kind and masks the value.",
        why: "A published skill is public: a key in it is leaked to everyone who installs it, and \
          an agent told to use it acts with someone else's identity.",
        fires: "---\nname: demo\ndescription: Calls the demo API. Use when querying demo.\n---\n```bash\nexport GITHUB_TOKEN=ghp_R4nd0mL00k1ngT0k3nV4lu3Zq8Wx2Yp6Mn1K\n```\n",
        passes: "---\nname: demo\ndescription: Calls the demo API. Use when querying demo.\n---\n```bash\nexport GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nexport AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n```\n",
    },
    check: |cx, out| {
        let scan = scan(cx);
        for file in &scan.files {
            for (span, kind) in secrets(&file.source.text) {
                let value = &file.source.text[span.clone()];
                out.report(file.source, span.clone(), format!("{kind} in the skill: {}", mask(value, kind)))
                    .help("remove it and revoke it: anything published is leaked; have the user supply credentials through their environment");
            }
        }
    },
};

/// Credential shapes: what each is, and its pattern.
const SHAPES: &[(&str, &str)] = &[
    ("AWS access key id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    (
        "GitHub token",
        r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}\b",
    ),
    (
        "GitHub fine-grained token",
        r"\bgithub_pat_[A-Za-z0-9_]{60,}\b",
    ),
    ("GitLab token", r"\bglpat-[A-Za-z0-9_-]{20}\b"),
    ("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"),
    (
        "Anthropic API key",
        r"\bsk-ant-(?:api|admin)[0-9]{2}-[A-Za-z0-9_-]{80,}",
    ),
    (
        "OpenAI API key",
        r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|\bsk-[A-Za-z0-9]{48}\b",
    ),
    ("Stripe secret key", r"\b[sr]k_live_[A-Za-z0-9]{24,}\b"),
    ("Google API key", r"\bAIza[0-9A-Za-z_-]{35}\b"),
    ("npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("PyPI token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
    ("Hugging Face token", r"\bhf_[A-Za-z]{34}\b"),
    (
        "SendGrid API key",
        r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b",
    ),
    (
        "private key",
        r"-----BEGIN (?:(?:RSA|DSA|EC|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY(?: BLOCK)?-----",
    ),
];

/// Any of the prefixes, to skip files with none cheaply.
static PREFIXES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"AKIA|ASIA|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|sk-|k_live_|AIza|npm_|pypi-|hf_|SG\.|PRIVATE KEY")
        .expect("valid regex")
});

static COMPILED: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    SHAPES
        .iter()
        // ASCII word boundaries keep every pattern on the fast DFA engines.
        .map(|(kind, pattern)| {
            let re = Regex::new(&format!("(?-u){pattern}")).expect("valid regex");
            (*kind, re)
        })
        .collect()
});

/// A base64 line of a key body.
static KEY_BODY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z0-9+/=]{40,}\s*$").expect("valid regex"));

/// Credentials in `text`: span and kind.
fn secrets(text: &str) -> Vec<(Range<usize>, &'static str)> {
    if !PREFIXES.is_match(text) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (kind, re) in COMPILED.iter() {
        for m in re.find_iter(text) {
            let real = if *kind == "private key" {
                has_key_body(&text[m.end()..])
            } else {
                !placeholder(m.as_str()) && !example_line(text, m.start())
            };
            if real {
                out.push((m.range(), *kind));
            }
        }
    }
    out.sort_by_key(|(span, _)| span.start);
    out
}

/// Whether the lines after a key header hold a key body rather than `...`.
fn has_key_body(after: &str) -> bool {
    after
        .lines()
        .skip(1)
        .take(4)
        .filter(|l| !l.contains(':'))
        .any(|l| KEY_BODY.is_match(l.trim()))
}

/// Whether the value's line presents it as an example (`Example: AIza…`, a format line).
fn example_line(text: &str, at: usize) -> bool {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let lower = text[start..at].to_ascii_lowercase();
    [
        "example",
        "e.g.",
        "format",
        "looks like",
        "pattern",
        "placeholder",
        "fake",
        "dummy",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

/// Documented examples and obvious fill-ins.
fn placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    const WORDS: &[&str] = &[
        "example",
        "xxxx",
        "your",
        "dummy",
        "fake",
        "sample",
        "placeholder",
        "redacted",
        "0000000000",
        "1234567890",
        "abcdef",
        "test",
        "here",
    ];
    if WORDS.iter().any(|w| lower.contains(w)) {
        return true;
    }
    // The random part of a real token uses many distinct characters.
    let tail = value.rsplit(['_', '-']).next().unwrap_or(value);
    let mut distinct: Vec<char> = tail.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    distinct.len() < 10
}

/// The kind's prefix kept, the rest masked, and the length.
fn mask(value: &str, kind: &str) -> String {
    if kind == "private key" {
        return "a key block (value not shown)".to_owned();
    }
    let shown: String = value.chars().take(4).collect();
    format!(
        "`{shown}…` ({} characters, value masked)",
        value.chars().count()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_looking_tokens_are_found_and_masked() {
        let text = "a ghp_R4nd0mL00k1ngT0k3nV4lu3Zq8Wx2Yp6Mn1K b AKIA4QWERTYUPLKJHGFD";
        let found = secrets(text);
        assert_eq!(
            found.iter().map(|(_, k)| *k).collect::<Vec<_>>(),
            ["GitHub token", "AWS access key id"]
        );
        let value = &text[found[0].0.clone()];
        assert_eq!(
            mask(value, found[0].1),
            "`ghp_…` (40 characters, value masked)"
        );
    }

    #[test]
    fn placeholders_pass() {
        for text in [
            "AKIAIOSFODNN7EXAMPLE",
            "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "sk-proj-your-key-here-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
            "Example: AIzaSyQ7vR2mK9pL4xT8wN3bJ6hF1dG5cS0eZ1q",
        ] {
            assert!(secrets(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn private_keys_need_a_body() {
        let key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n";
        assert_eq!(secrets(key).len(), 1);
        assert_eq!(mask("x", "private key"), "a key block (value not shown)");
    }
}

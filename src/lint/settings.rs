//! The lint layer's settings: which rules run, their severities, the size limits and the
//! frontmatter policy. The command layer assembles them from `skillgate.toml`.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::RULES;
use crate::finding::Severity;
use crate::targets::{self, Client, Strictest, Target};

/// Everything the rules and the rule runner read besides the skill and the project.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Which rules run.
    pub selection: Selection,
    /// Per-rule severity overrides, by code.
    pub severity: BTreeMap<String, Severity>,
    /// Thresholds used by the size and structure rules.
    pub limits: Limits,
    /// Frontmatter policy.
    pub frontmatter: FrontmatterPolicy,
    /// The clients the skill is written for (every client when empty).
    pub targets: Vec<Target>,
    /// Count reference files' tokens exactly when a size rule reports them
    /// (`--exact-tokens`); otherwise counting stops once a threshold is passed and the
    /// message says "more than" the threshold.
    pub exact_tokens: bool,
}

impl Settings {
    /// The targets in force: those configured, or every client.
    pub fn targets(&self) -> &[Target] {
        if self.targets.is_empty() {
            Target::ALL
        } else {
            &self.targets
        }
    }

    /// The longest `description` in force: `limits.description-chars`, else the strictest
    /// target's.
    pub fn description_chars(&self) -> Limit {
        self.limit(self.limits.description_chars, |c| c.description_chars)
    }

    /// The most SKILL.md lines in force: `limits.body-lines`, else the strictest target's.
    pub fn body_lines(&self) -> Limit {
        self.limit(self.limits.body_lines, |c| c.body_lines)
    }

    /// The body token budget in force: `limits.body-tokens`, else the strictest target's.
    pub fn body_tokens(&self) -> Limit {
        self.limit(self.limits.body_tokens, |c| c.body_tokens)
    }

    /// The placeholders for the skill folder that the targets expand in paths.
    pub fn placeholders(&self) -> Vec<&'static str> {
        targets::placeholders(self.targets())
    }

    fn limit(&self, configured: Option<usize>, of: fn(&Client) -> usize) -> Limit {
        match configured {
            Some(value) => Limit {
                value,
                source: None,
            },
            None => {
                let Strictest { value, clients } = targets::strictest(self.targets(), of);
                Limit {
                    value,
                    source: Some(targets::names(&clients)),
                }
            }
        }
    }
}

/// A limit a rule applies, and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limit {
    /// The value.
    pub value: usize,
    /// The targets that set it ("Codex and Cursor"); `None` when skillgate.toml sets it.
    pub source: Option<String>,
}

impl Limit {
    /// "the limit is 500 (Claude Code)" or "the limit is 500 (skillgate.toml)".
    pub fn describe(&self, noun: &str) -> String {
        let from = self.source.as_deref().unwrap_or("skillgate.toml");
        format!("the {noun} is {} ({from})", self.value)
    }
}

/// Which rules run: codes or prefixes to select (all when empty) and to ignore.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Codes or prefixes to run.
    pub select: Vec<String>,
    /// Codes or prefixes to skip.
    pub ignore: Vec<String>,
}

impl Selection {
    /// Whether the rule with `code` runs.
    pub fn enabled(&self, code: &str) -> bool {
        let matches = |pat: &String| code_matches(code, pat);
        (self.select.is_empty() || self.select.iter().any(matches))
            && !self.ignore.iter().any(matches)
    }

    /// Every selector that matches no code of [`RULES`], the rules of one skill.
    pub fn unknown(&self) -> Vec<&str> {
        self.select
            .iter()
            .chain(&self.ignore)
            .filter(|p| !RULES.iter().any(|r| code_matches(r.doc.code, p)))
            .map(String::as_str)
            .collect()
    }
}

/// Whether a selector (a code or a prefix of one, in any case) matches the rule `code`.
pub fn code_matches(code: &str, selector: &str) -> bool {
    code.to_ascii_uppercase()
        .starts_with(&selector.to_ascii_uppercase())
}

/// Numeric thresholds (the `[limits]` table of `skillgate.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
pub struct Limits {
    /// Most o200k tokens a SKILL.md body should have (the targets' when unset).
    pub body_tokens: Option<usize>,
    /// Most lines a SKILL.md should have (the targets' when unset).
    pub body_lines: Option<usize>,
    /// Highest share of body tokens in code blocks.
    pub code_share: f64,
    /// Most lines in one code block.
    pub code_block_lines: usize,
    /// Tokens above which a reference file needs a table of contents.
    pub reference_tokens: usize,
    /// Longest `description`, in characters (the targets' when unset).
    pub description_chars: Option<usize>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            body_tokens: None,
            body_lines: None,
            code_share: 0.40,
            code_block_lines: 60,
            reference_tokens: 10_000,
            description_chars: None,
        }
    }
}

/// Which frontmatter keys beyond the specification are accepted (the `[frontmatter]` table).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FrontmatterPolicy {
    /// Extra keys that are fine here (e.g. `version`, `author`).
    #[serde(default)]
    pub allow_keys: Vec<String>,
}

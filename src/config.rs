//! `skillgate.toml`: rule selection, severities, limits and allowed frontmatter keys.
//!
//! Found at the repository root or given with `--config`. Unknown keys are errors, so a typo
//! never silently changes what is checked.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::finding::Severity;

/// The file name looked for at the repository root.
pub const FILE_NAME: &str = "skillgate.toml";

/// The whole configuration.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    /// Rule codes or prefixes to run (all when empty).
    #[serde(default)]
    pub select: Vec<String>,
    /// Rule codes or prefixes never to run.
    #[serde(default)]
    pub ignore: Vec<String>,
    /// The lowest severity that fails a run.
    pub fail_on: Option<FailOn>,
    /// Per-rule severity overrides, by code.
    #[serde(default)]
    pub severity: BTreeMap<String, Severity>,
    /// Thresholds used by the size and structure rules.
    #[serde(default)]
    pub limits: Limits,
    /// Frontmatter policy.
    #[serde(default)]
    pub frontmatter: FrontmatterPolicy,
    /// The clients the skills are written for (every client when empty): which frontmatter
    /// keys are documented, and which only another client knows.
    #[serde(default)]
    pub targets: Vec<crate::targets::Target>,
    /// Defaults for `skillgate eval`.
    #[serde(default)]
    pub eval: crate::eval::EvalConfig,
    /// How evaluation figures become intervals.
    #[serde(default)]
    pub stats: crate::stats::StatsOptions,
    /// When the verdict is `inject`.
    #[serde(default)]
    pub verdict: crate::verdict::VerdictPolicy,
}

/// When a run fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    /// Fail on any error-level finding.
    Error,
    /// Fail on warnings and errors.
    Warning,
    /// Fail on any finding.
    Info,
    /// Never fail because of findings.
    Never,
}

impl FailOn {
    /// Whether a finding of `severity` fails the run.
    pub fn fails(self, severity: Severity) -> bool {
        match self {
            FailOn::Error => severity >= Severity::Error,
            FailOn::Warning => severity >= Severity::Warning,
            FailOn::Info => true,
            FailOn::Never => false,
        }
    }
}

/// Numeric thresholds.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
pub struct Limits {
    /// Most o200k tokens a SKILL.md body should have.
    pub body_tokens: usize,
    /// Most lines a SKILL.md should have.
    pub body_lines: usize,
    /// Highest share of body tokens in code blocks.
    pub code_share: f64,
    /// Most lines in one code block.
    pub code_block_lines: usize,
    /// Tokens above which a reference file needs a table of contents.
    pub reference_tokens: usize,
    /// Longest `description`, in characters.
    pub description_chars: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            body_tokens: 5_000,
            body_lines: 500,
            code_share: 0.40,
            code_block_lines: 60,
            reference_tokens: 10_000,
            description_chars: 1_024,
        }
    }
}

/// Which frontmatter keys beyond the specification are accepted.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FrontmatterPolicy {
    /// Extra keys that are fine here (e.g. `version`, `author`).
    #[serde(default)]
    pub allow_keys: Vec<String>,
}

/// A configuration file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Unreadable.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not valid TOML, or not the expected shape.
    #[error("{path}:{line}:{column}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Line.
        line: u32,
        /// Column.
        column: u32,
        /// What is wrong.
        message: String,
    },
}

impl Config {
    /// The targets in force: those configured, or every client.
    pub fn targets(&self) -> &[crate::targets::Target] {
        if self.targets.is_empty() {
            crate::targets::Target::ALL
        } else {
            &self.targets
        }
    }

    /// Read and validate a configuration file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_owned(),
            source,
        })?;
        Config::parse(&text, path)
    }

    /// Parse configuration text; `path` is only used in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let config: Config = toml::from_str(text).map_err(|e| {
            let offset = e.span().map_or(0, |s| s.start);
            let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
            ConfigError::Invalid {
                path: path.to_owned(),
                line: u32::try_from(text[..offset].matches('\n').count() + 1).unwrap_or(u32::MAX),
                column: u32::try_from(text[line_start..offset].chars().count() + 1)
                    .unwrap_or(u32::MAX),
                message: e.message().trim().to_owned(),
            }
        })?;
        let invalid = |message: String| ConfigError::Invalid {
            path: path.to_owned(),
            line: 1,
            column: 1,
            message,
        };
        config
            .verdict
            .validate()
            .map_err(|e| invalid(e.to_string()))?;
        Ok(config)
    }

    /// Find `skillgate.toml` at the repository root, if there is one.
    pub fn discover(repo: &Path) -> Result<Option<(PathBuf, Config)>, ConfigError> {
        let path = repo.join(FILE_NAME);
        if !path.is_file() {
            return Ok(None);
        }
        Config::load(&path).map(|c| Some((path, c)))
    }
}

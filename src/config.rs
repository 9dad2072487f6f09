//! `skillgate.toml`, the file the command layer reads and splits into each layer's settings.
//!
//! Found at the repository root or given with `--config`. Unknown keys are errors, so a typo
//! never silently changes what is checked. Each table's type belongs to the layer that reads
//! it (`lint`, `eval`, `stats`, `verdict`); only the command layer sees the whole file, and no
//! layer below it imports this module.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::finding::Severity;
use crate::lint::{self, FrontmatterPolicy, Limits, Selection};
use crate::snippet::Snippet;

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
    pub eval: crate::eval::Settings,
    /// How evaluation figures become intervals.
    #[serde(default)]
    pub stats: crate::stats::StatsOptions,
    /// When the verdict is `inject`.
    #[serde(default)]
    pub verdict: crate::verdict::VerdictPolicy,
    /// Set-level limits of `skillgate audit`.
    #[serde(default)]
    pub audit: crate::audit::AuditSettings,
    /// The check-run conclusion `skillgate gate` posts for each outcome.
    #[serde(default)]
    pub gate: crate::github::Settings,
    /// Knowledge packs added to the built-in knowledge, as folders; relative paths are
    /// relative to the configuration file's folder.
    #[serde(default)]
    pub knowledge: Vec<PathBuf>,
}

/// When a run fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
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
        /// The file's text and the span the parser points at.
        snippet: Box<Snippet>,
    },
    /// Well-formed, but the `[verdict]` policy cannot be applied.
    #[error("{path}:1:1: {source}")]
    Policy {
        /// The file.
        path: PathBuf,
        /// What is wrong with the policy.
        source: crate::verdict::PolicyError,
    },
}

impl miette::Diagnostic for ConfigError {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(Box::new(match self {
            ConfigError::Io { .. } => "skillgate::config::io",
            ConfigError::Invalid { .. } => "skillgate::config::invalid",
            ConfigError::Policy { .. } => "skillgate::config::policy",
        }))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        match self {
            ConfigError::Invalid { .. } => Some(Box::new(
                "the README's Configuration section lists the tables and keys of skillgate.toml",
            )),
            _ => None,
        }
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        match self {
            ConfigError::Invalid { snippet, .. } => Some(snippet.source_code()),
            _ => None,
        }
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        match self {
            ConfigError::Invalid { snippet, .. } => Some(snippet.labels()),
            _ => None,
        }
    }
}

impl Config {
    /// Read and validate a configuration file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_owned(),
            source,
        })?;
        let mut config = Config::parse(&text, path)?;
        let base = path.parent().unwrap_or(Path::new(""));
        for dir in &mut config.knowledge {
            if dir.is_relative() {
                *dir = base.join(&*dir);
            }
        }
        Ok(config)
    }

    /// Parse configuration text; `path` is only used in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let config: Config = toml::from_str(text).map_err(|e| {
            let span = e.span().unwrap_or(0..0);
            let offset = span.start.min(text.len());
            let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
            ConfigError::Invalid {
                path: path.to_owned(),
                line: u32::try_from(text[..offset].matches('\n').count() + 1).unwrap_or(u32::MAX),
                column: u32::try_from(text[line_start..offset].chars().count() + 1)
                    .unwrap_or(u32::MAX),
                message: e.message().trim().to_owned(),
                snippet: Box::new(Snippet::new(
                    &path.display().to_string(),
                    text,
                    span,
                    "here",
                )),
            }
        })?;
        config
            .verdict
            .validate()
            .map_err(|source| ConfigError::Policy {
                path: path.to_owned(),
                source,
            })?;
        Ok(config)
    }

    /// The lint layer's share: selection, severities, limits and frontmatter policy.
    pub fn lint(&self) -> lint::Settings {
        lint::Settings {
            selection: Selection {
                select: self.select.clone(),
                ignore: self.ignore.clone(),
            },
            severity: self.severity.clone(),
            limits: self.limits.clone(),
            frontmatter: self.frontmatter.clone(),
            targets: self.targets.clone(),
            exact_tokens: false,
        }
    }

    /// The configuration a command runs with, and the file it came from: the file given
    /// with `--config` (which must load), else the first of `candidates` that exists, else
    /// the defaults. Every command finds its configuration this one way; each names its own
    /// candidates (`skillgate.toml` in the repository, or the one recorded with a run).
    pub fn resolve(
        given: Option<&Path>,
        candidates: impl IntoIterator<Item = PathBuf>,
    ) -> Result<(Option<PathBuf>, Config), ConfigError> {
        let path = match given {
            Some(path) => Some(path.to_owned()),
            None => candidates.into_iter().find(|p| p.is_file()),
        };
        match path {
            Some(path) => Config::load(&path).map(|c| (Some(path), c)),
            None => Ok((None, Config::default())),
        }
    }

    /// [`Config::resolve`] for a command that reads `skillgate.toml` at the root of `repo`.
    pub fn for_repo(given: Option<&Path>, repo: &Path) -> Result<Config, ConfigError> {
        Config::resolve(given, [repo.join(FILE_NAME)]).map(|(_, config)| config)
    }
}

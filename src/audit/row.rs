//! One audited skill as a row: the facts every audit format prints, written typed and read
//! back typed by `skillgate merge`.

use serde::{Deserialize, Serialize};

use crate::finding::{Finding, Severity};
use crate::lint::{Family, StackFit};
use crate::render::display;
use crate::verdict::Decision;

use super::fingerprint::Fingerprint;

/// One skill of an audit. A skill that could not be read has `error` set and no facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The SKILL.md path as found (for an unreadable skill, where it was looked for).
    pub path: String,
    /// `name` from the frontmatter.
    pub name: Option<String>,
    /// o200k_base tokens of the body.
    pub tokens: Option<usize>,
    /// Code-block tokens / body tokens, rounded to three decimals.
    pub code_share: Option<f64>,
    /// Error-level findings.
    pub errors: usize,
    /// Warning-level findings.
    pub warnings: usize,
    /// Info-level findings.
    pub infos: usize,
    /// Findings of the security family (SG6xx), at any severity.
    pub security: usize,
    /// The skill's stack fit with the repository, when one was scanned (`--repo`).
    pub fit: Option<RowFit>,
    /// The static inject-or-skip decision over the skill's own findings.
    pub decision: Option<Decision>,
    /// Why the skill could not be read.
    pub error: Option<String>,
    /// o200k_base tokens of the `description`, which an agent's skill listing carries.
    pub description_tokens: usize,
    /// What the set-level comparisons read, so shards can be merged and compared again.
    pub fingerprint: Fingerprint,
    /// The findings, as `check --format json` prints them: the skill's own, then the
    /// set-level ones (SG7xx).
    pub findings: Vec<FindingRecord>,
}

/// The stack fit of a row: [`crate::lint::Fit`], or `unknown` when the skill names no
/// language or package.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RowFit {
    /// Every ecosystem of the skill is one the project uses.
    Core,
    /// Some are.
    Partial,
    /// None is.
    OffStack,
    /// The skill shows no language or package.
    Unknown,
}

impl RowFit {
    /// The fit of a reviewed skill.
    pub fn of(fit: &StackFit) -> RowFit {
        match fit.fit {
            Some(crate::lint::Fit::Core) => RowFit::Core,
            Some(crate::lint::Fit::Partial) => RowFit::Partial,
            Some(crate::lint::Fit::OffStack) => RowFit::OffStack,
            None => RowFit::Unknown,
        }
    }

    /// The kebab-case label used in every format.
    pub fn as_str(self) -> &'static str {
        match self {
            RowFit::Core => "core",
            RowFit::Partial => "partial",
            RowFit::OffStack => "off-stack",
            RowFit::Unknown => "unknown",
        }
    }
}

/// A finding in the shape of the JSON contract (docs/json.md), owned so it can be read back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingRecord {
    /// Rule code.
    pub code: String,
    /// Rule name.
    pub name: String,
    /// Effective severity.
    pub severity: Severity,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub help: Option<String>,
    /// File.
    pub path: String,
    /// First line, 1-based.
    pub line: u32,
    /// First column, 1-based.
    pub column: u32,
    /// Last line.
    pub end_line: u32,
    /// Column past the end.
    pub end_column: u32,
    /// Other places that explain it.
    pub related: Vec<RelatedRecord>,
}

/// A related location of a [`FindingRecord`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelatedRecord {
    /// File.
    pub path: String,
    /// Line, 1-based.
    pub line: u32,
    /// Why this place matters.
    pub message: String,
}

impl From<&Finding> for FindingRecord {
    fn from(f: &Finding) -> Self {
        let l = &f.location;
        FindingRecord {
            code: f.code.to_owned(),
            name: f.name.to_owned(),
            severity: f.severity,
            message: f.message.clone(),
            help: f.help.clone(),
            path: display(&l.path),
            line: l.line,
            column: l.column,
            end_line: l.end_line,
            end_column: l.end_column,
            related: f
                .related
                .iter()
                .map(|r| RelatedRecord {
                    path: display(&r.location.path),
                    line: r.location.line,
                    message: r.message.clone(),
                })
                .collect(),
        }
    }
}

impl FindingRecord {
    /// Whether this finding compares the skill with others of the set (SG7xx), and so is
    /// recomputed whenever the set changes.
    pub fn is_set_level(&self) -> bool {
        self.code.starts_with("SG7")
    }
}

impl Row {
    /// Recount the severity and security columns from the findings.
    pub fn recount(&mut self) {
        let n = |s| self.findings.iter().filter(|f| f.severity == s).count();
        self.errors = n(Severity::Error);
        self.warnings = n(Severity::Warning);
        self.infos = n(Severity::Info);
        self.security = self
            .findings
            .iter()
            .filter(|f| Family::of(&f.code) == Family::Security)
            .count();
    }

    /// Whether the row makes the audit fail at `fail_on`: an unreadable skill fails at any
    /// level but `never`, as an error would.
    pub fn fails(&self, fail_on: crate::config::FailOn) -> bool {
        if self.error.is_some() {
            return fail_on.fails(Severity::Error);
        }
        self.findings.iter().any(|f| fail_on.fails(f.severity))
    }
}

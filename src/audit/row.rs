//! One audited skill as a row: the facts every audit format prints, written typed and read
//! back typed by `skillgate merge`.

use serde::{Deserialize, Serialize};

use crate::finding::Severity;
use crate::lint::{Family, StackFit};
use crate::verdict::Decision;

pub use crate::render::json::{FindingRecord, RelatedRecord};

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

/// Whether a finding compares the skill with others of the set (SG7xx), and so is
/// recomputed whenever the set changes.
pub fn is_set_level(finding: &FindingRecord) -> bool {
    finding.code.starts_with("SG7")
}

impl Row {
    /// The skill's own error findings, which decide its static verdict: each rule's code and
    /// name with how often it fires, by code. Empty for an unreadable skill and for one
    /// nothing blocks.
    pub fn blocking(&self) -> Vec<(&str, &str, usize)> {
        let mut codes: std::collections::BTreeMap<&str, (&str, usize)> =
            std::collections::BTreeMap::new();
        for f in self
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error && !is_set_level(f))
        {
            codes.entry(&f.code).or_insert((&f.name, 0)).1 += 1;
        }
        codes
            .into_iter()
            .map(|(code, (name, n))| (code, name, n))
            .collect()
    }

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

    /// Whether the row fails a run that fails on the severities `fails` accepts: an
    /// unreadable skill counts as an error.
    pub fn fails(&self, fails: impl Fn(Severity) -> bool) -> bool {
        if self.error.is_some() {
            return fails(Severity::Error);
        }
        self.findings.iter().any(|f| fails(f.severity))
    }
}

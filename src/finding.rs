//! The one diagnostic type every rule produces and every renderer consumes.

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// How serious a finding is. Ordered: `Info < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; never fails a run unless `--fail-on info`.
    Info,
    /// Likely to hurt an agent; fails with `--fail-on warning`.
    Warning,
    /// Wrong or harmful; fails a run by default.
    Error,
}

impl Severity {
    /// The lowercase name used in every output format and in `skillgate.toml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A place in a file: 1-based lines and columns (columns count Unicode scalar values), plus
/// the byte span for renderers that show source.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Location {
    /// Path as shown to the user (relative to the working directory when possible).
    pub path: PathBuf,
    /// First line, 1-based.
    pub line: u32,
    /// First column, 1-based.
    pub column: u32,
    /// Last line, 1-based, inclusive.
    pub end_line: u32,
    /// Column just past the end, 1-based.
    pub end_column: u32,
    /// Byte range in the file's text.
    #[serde(skip)]
    pub span: std::ops::Range<usize>,
}

/// A secondary location that explains a finding (the lockfile line a version came from, the
/// link that points at a missing file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Related {
    /// Where.
    pub location: Location,
    /// Why this place matters.
    pub message: String,
}

/// One problem found in a skill. It reads back with serde through the rule registry
/// (`code` and `name` point at a rule's own), so `Deserialize` is implemented in `lint`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Stable rule code, e.g. `SG201`.
    pub code: &'static str,
    /// Kebab-case rule name, e.g. `body-too-long`.
    pub name: &'static str,
    /// Effective severity after configuration.
    pub severity: Severity,
    /// What is wrong, in one sentence.
    pub message: String,
    /// What to do about it.
    pub help: Option<String>,
    /// Where it is.
    pub location: Location,
    /// Other places that explain it.
    pub related: Vec<Related>,
}

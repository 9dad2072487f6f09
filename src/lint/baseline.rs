//! Baselines: record today's findings once, then report only new ones.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::finding::Finding;

/// The file written by `--write-baseline` and read by `--baseline`.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Baseline {
    /// Format version, 1.
    pub schema: u32,
    /// The accepted findings.
    pub findings: Vec<Entry>,
}

/// One accepted finding, identified without its line so edits elsewhere do not revive it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Entry {
    /// Rule code.
    pub code: String,
    /// File path as reported.
    pub path: PathBuf,
    /// The finding's message.
    pub message: String,
}

/// A baseline that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not a baseline file.
    #[error("{path}:{line}:{column}: not a skillgate baseline: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Line.
        line: usize,
        /// Column.
        column: usize,
        /// What is wrong.
        message: String,
    },
}

impl Baseline {
    /// A baseline accepting exactly `findings`.
    pub fn from_findings<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> Baseline {
        let mut findings: Vec<Entry> = findings.into_iter().map(Entry::of).collect();
        findings
            .sort_by(|a, b| (&a.path, &a.code, &a.message).cmp(&(&b.path, &b.code, &b.message)));
        Baseline {
            schema: 1,
            findings,
        }
    }

    /// Read a baseline file.
    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let text = std::fs::read_to_string(path).map_err(|source| BaselineError::Io {
            path: path.to_owned(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|e| BaselineError::Invalid {
            path: path.to_owned(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })
    }

    /// Write the baseline as pretty JSON.
    pub fn save(&self, path: &Path) -> Result<(), BaselineError> {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        std::fs::write(path, text).map_err(|source| BaselineError::Io {
            path: path.to_owned(),
            source,
        })
    }

    /// Keep only findings the baseline does not account for. Each entry accounts for one
    /// finding, so a second identical finding is new.
    pub fn filter_new(&self, findings: Vec<Finding>) -> Vec<Finding> {
        let mut budget: HashMap<&Entry, usize> = HashMap::new();
        for entry in &self.findings {
            *budget.entry(entry).or_default() += 1;
        }
        findings
            .into_iter()
            .filter(|f| match budget.get_mut(&Entry::of(f)) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    false
                }
                _ => true,
            })
            .collect()
    }
}

impl Entry {
    fn of(finding: &Finding) -> Entry {
        Entry {
            code: finding.code.to_owned(),
            path: finding.location.path.clone(),
            message: finding.message.clone(),
        }
    }
}

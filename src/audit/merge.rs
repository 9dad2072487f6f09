//! `skillgate merge`: the JSON or JSON-lines outputs of the shards of an audit, read back
//! typed and combined into the audit a single machine would have produced.
//!
//! Rows are sorted by path again and the set-level findings recomputed over the whole set,
//! so duplicates that sit in different shards are found; the result renders byte for byte
//! as the unsharded run does.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Audit, AuditSettings, Row, Shard, Summary};

/// Why outputs cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// Unreadable file.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not an audit output.
    #[error("{path}:{line}: not an audit's JSON or JSON lines output: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The line (1 for a whole JSON document).
        line: usize,
        /// The parser's message.
        message: String,
    },
    /// A JSON-lines file without its closing summary line (cut short).
    #[error(
        "{path}: no summary line at the end: the output is incomplete (was the audit interrupted?)"
    )]
    NoSummary {
        /// The file.
        path: PathBuf,
    },
    /// Outputs made with different settings or of different shard sets.
    #[error("{0}")]
    Mismatch(String),
}

/// One line of the JSON-lines output.
#[derive(Deserialize)]
#[serde(untagged)]
enum Line {
    Summary { summary: Summary },
    Skill(Box<Row>),
}

/// One audit output as read back.
struct Part {
    path: PathBuf,
    rows: Vec<Row>,
    summary: Summary,
}

/// Read `files` and combine them into one audit.
pub fn merge(files: &[PathBuf]) -> Result<Audit, MergeError> {
    let parts = files
        .iter()
        .map(|p| read(p))
        .collect::<Result<Vec<_>, _>>()?;
    let Some(first) = parts.first() else {
        return Err(MergeError::Mismatch("no files to merge".into()));
    };
    let settings = AuditSettings {
        listing_tokens: first.summary.listing_budget,
        near_duplicate: first.summary.near_duplicate,
        disabled: first.summary.disabled_set_rules.clone(),
    };
    let repo_scanned = first.summary.fit.is_some();
    for part in &parts[1..] {
        let s = &part.summary;
        if s.listing_budget != settings.listing_tokens
            || s.near_duplicate != settings.near_duplicate
            || s.disabled_set_rules != settings.disabled
        {
            return Err(MergeError::Mismatch(format!(
                "{} was audited with other [audit] settings or rule selection than {}",
                part.path.display(),
                first.path.display()
            )));
        }
        if s.fit.is_some() != repo_scanned {
            return Err(MergeError::Mismatch(format!(
                "{} and {}: one was audited with --repo and the other without",
                part.path.display(),
                first.path.display()
            )));
        }
    }
    check_shards(&parts)?;
    let rows = parts.into_iter().flat_map(|p| p.rows).collect();
    Ok(Audit::assemble(rows, &settings, repo_scanned, None))
}

/// Sharded outputs must be every shard of one split, each once.
fn check_shards(parts: &[Part]) -> Result<(), MergeError> {
    let shards: Vec<(Option<Shard>, &Path)> = parts
        .iter()
        .map(|p| (p.summary.shard, p.path.as_path()))
        .collect();
    if shards.iter().all(|(s, _)| s.is_none()) {
        return Ok(());
    }
    let mut seen = BTreeSet::new();
    let mut count = None;
    for (shard, path) in &shards {
        let Some(shard) = shard else {
            return Err(MergeError::Mismatch(format!(
                "{} is a whole audit, not a shard; merge the shards of one split",
                path.display()
            )));
        };
        if *count.get_or_insert(shard.count) != shard.count {
            return Err(MergeError::Mismatch(format!(
                "{} is shard {shard}, of another split than the other files",
                path.display()
            )));
        }
        if !seen.insert(shard.index) {
            return Err(MergeError::Mismatch(format!(
                "shard {shard} is given twice (again in {})",
                path.display()
            )));
        }
    }
    let count = count.unwrap_or(0);
    let missing: Vec<String> = (1..=count)
        .filter(|i| !seen.contains(i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(MergeError::Mismatch(format!(
            "shard {} missing: the merged audit would leave skills out",
            missing.join(", ")
        )))
    }
}

/// Read one output, JSON document or JSON lines.
fn read(path: &Path) -> Result<Part, MergeError> {
    let text = std::fs::read_to_string(path).map_err(|source| MergeError::Io {
        path: path.to_owned(),
        source,
    })?;
    if let Ok(audit) = serde_json::from_str::<Audit>(&text) {
        return Ok(Part {
            path: path.to_owned(),
            rows: audit.skills,
            summary: audit.summary,
        });
    }
    let mut rows = Vec::new();
    let mut summary = None;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let invalid = |message: String| MergeError::Invalid {
            path: path.to_owned(),
            line: i + 1,
            message,
        };
        if summary.is_some() {
            return Err(invalid("a line after the summary line".into()));
        }
        match serde_json::from_str::<Line>(line) {
            Ok(Line::Skill(row)) => rows.push(*row),
            Ok(Line::Summary { summary: s }) => summary = Some(s),
            Err(e) => {
                // Say what is wrong with the line read as a skill row, the common case.
                let message = serde_json::from_str::<Row>(line)
                    .err()
                    .map_or_else(|| e.to_string(), |e| e.to_string());
                return Err(invalid(message));
            }
        }
    }
    let summary = summary.ok_or_else(|| MergeError::NoSummary {
        path: path.to_owned(),
    })?;
    Ok(Part {
        path: path.to_owned(),
        rows,
        summary,
    })
}

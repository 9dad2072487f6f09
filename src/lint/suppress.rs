//! Inline suppressions in markdown comments.
//!
//! `<!-- skillgate-ignore SG201, SG3: reason -->` silences those codes (or prefixes) on the
//! comment's own line and on the next non-blank line; `<!-- skillgate-ignore-file SG201:
//! reason -->` silences them in the whole file. A suppression without a reason is not
//! honoured, and is reported (SG001), as is one that names no known rule (SG002).

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::RULES;
use crate::finding::Finding;
use crate::skill::{Document, Skill, SourceFile};

/// Where a suppression applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// These 1-based lines.
    Lines(u32, u32),
    /// The whole file.
    File,
}

/// One parsed suppression comment.
#[derive(Debug, Clone)]
pub struct Suppression<'a> {
    /// The file it sits in.
    pub file: &'a SourceFile,
    /// Byte range of the comment.
    pub span: Range<usize>,
    /// Codes or code prefixes, upper-cased.
    pub codes: Vec<String>,
    /// Why, when given.
    pub reason: Option<String>,
    /// Where it applies.
    pub scope: Scope,
}

impl Suppression<'_> {
    /// Codes that match no registered rule.
    pub fn unknown_codes(&self) -> impl Iterator<Item = &str> {
        self.codes
            .iter()
            .filter(|c| !RULES.iter().any(|r| r.doc.code.starts_with(c.as_str())))
            .map(String::as_str)
    }

    fn covers(&self, finding: &Finding) -> bool {
        self.reason.is_some()
            && finding.location.path == self.file.path
            && self
                .codes
                .iter()
                .any(|c| finding.code.starts_with(c.as_str()))
            && match self.scope {
                Scope::File => true,
                Scope::Lines(first, last) => (first..=last).contains(&finding.location.line),
            }
    }
}

static COMMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?s)^<!--\s*skillgate-ignore(-file)?(?:\s+([A-Za-z0-9_,\s]*?))?\s*(?::\s*(.*?))?\s*-->",
    )
    .expect("valid regex")
});

/// Every suppression comment in the SKILL.md and in the skill's markdown files.
pub fn comments(skill: &Skill) -> Vec<Suppression<'_>> {
    let mut out = Vec::new();
    collect(&skill.source, &skill.body, &mut out);
    for file in &skill.files {
        if let (Some(source), Some(doc)) = (&file.source, &file.doc) {
            collect(source, doc, &mut out);
        }
    }
    out
}

fn collect<'a>(file: &'a SourceFile, doc: &Document, out: &mut Vec<Suppression<'a>>) {
    for span in &doc.comments {
        let text = &file.text[span.clone()];
        let Some(caps) = COMMENT.captures(text.trim_start()) else {
            continue;
        };
        let codes = caps
            .get(2)
            .map(|m| m.as_str())
            .unwrap_or_default()
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|c| !c.is_empty())
            .map(str::to_ascii_uppercase)
            .collect();
        let reason = caps
            .get(3)
            .map(|m| m.as_str().trim().to_owned())
            .filter(|r| !r.is_empty());
        let scope = if caps.get(1).is_some() {
            Scope::File
        } else {
            line_scope(file, span)
        };
        out.push(Suppression {
            file,
            span: span.clone(),
            codes,
            reason,
            scope,
        });
    }
}

/// The comment's last line and the next non-blank line after it.
fn line_scope(file: &SourceFile, span: &Range<usize>) -> Scope {
    let (first, _) = file.line_column(span.start);
    let last_index = file.line_index(span.end.saturating_sub(1).max(span.start));
    let next = (last_index + 1..file.line_count())
        .find(|&i| !file.text[file.line_range(i)].trim().is_empty())
        .unwrap_or(last_index);
    Scope::Lines(first, u32::try_from(next + 1).unwrap_or(u32::MAX))
}

/// Drop findings covered by an honoured suppression. Engine findings about suppressions
/// themselves are never suppressed, and a suppression of a rule that did not run is fine.
pub fn apply(skill: &Skill, findings: Vec<Finding>) -> Vec<Finding> {
    let suppressions = comments(skill);
    findings
        .into_iter()
        .filter(|f| f.code.starts_with("SG0") || !suppressions.iter().any(|s| s.covers(f)))
        .collect()
}

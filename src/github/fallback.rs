//! When check runs are not possible (no token, or a read-only one as on pull requests from
//! forks): workflow-command annotations on stdout, most severe first, and the full report in
//! the step summary.

use std::io::Write;
use std::path::Path;

use super::summary::{self, STEP_SUMMARY_LIMIT};
use super::{GateError, Gated, Published};
use crate::finding::{Finding, Severity};
use crate::render::{self, Format, Report, Style};

/// Annotations GitHub shows per step and per level (error, warning, notice).
pub const SHOWN_PER_LEVEL: usize = 10;

/// The fallback for `gated`, for `reason`.
pub(super) fn published(reason: String, gated: &[Gated<'_>], root: &Path) -> Published {
    Published::Fallback {
        reason,
        commands: commands(gated, root),
    }
}

/// Workflow-command annotations for every finding of every skill, most severe first, with
/// paths relative to the repository root.
fn commands(gated: &[Gated<'_>], root: &Path) -> String {
    let Some(first) = gated.first() else {
        return String::new();
    };
    let mut findings: Vec<Finding> = gated
        .iter()
        .flat_map(|g| g.report.findings.iter().cloned())
        .map(|mut f| {
            f.location.path = super::root_relative(&f.location.path, root).into();
            f
        })
        .collect();
    // Stable: within a level, the order of the skills and of their findings is kept.
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    // The workflow-command renderer reads only the findings (and verdicts, left out here:
    // they are in the step summary); the skill is there because a report needs one.
    let all = Report {
        skill: first.report.skill,
        summary: first.report.summary.clone(),
        findings,
        verdict: None,
        panel: None,
        project: None,
    };
    render::render(
        Format::Github,
        &[all],
        Style {
            color: false,
            width: 100,
            rules_doc: None,
        },
    )
}

/// Append the full report to `GITHUB_STEP_SUMMARY`, opened by the reason and, when GitHub
/// will not show every annotation, a note saying where the rest are.
pub(super) fn write_step_summary(
    context: &super::Context,
    gated: &[Gated<'_>],
    reason: &str,
) -> Result<(), GateError> {
    let Some(path) = &context.step_summary else {
        eprintln!("skillgate: GITHUB_STEP_SUMMARY is not set, so the report is only in this log");
        return Ok(());
    };
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path);
    let io = |source| GateError::Io {
        path: path.clone(),
        source,
    };
    let mut file = file.map_err(io)?;
    file.write_all(summary::cap(&step_summary(gated, reason), STEP_SUMMARY_LIMIT).as_bytes())
        .map_err(io)
}

/// The step summary's markdown.
pub fn step_summary(gated: &[Gated<'_>], reason: &str) -> String {
    let mut out = format!(
        "> [!NOTE]\n> skillgate reports here and in annotations instead of check runs: {reason}.\n"
    );
    let count = |s| {
        gated
            .iter()
            .flat_map(|g| &g.report.findings)
            .filter(|f| f.severity == s)
            .count()
    };
    let (errors, warnings, notices) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
    );
    if errors > SHOWN_PER_LEVEL || warnings > SHOWN_PER_LEVEL || notices > SHOWN_PER_LEVEL {
        out.push_str(&format!(
            ">\n> GitHub shows only the first {SHOWN_PER_LEVEL} error, {SHOWN_PER_LEVEL} warning \
             and {SHOWN_PER_LEVEL} notice annotations of a step; this step wrote {errors} errors, \
             {warnings} warnings and {notices} notices, most severe first. The rest are in the \
             job log and every finding is listed below.\n"
        ));
    }
    out.push('\n');
    for g in gated {
        out.push_str(&format!("## skillgate: {}\n\n", g.name));
        out.push_str(&summary::check_summary(g));
        out.push('\n');
        out.push_str(&summary::check_text(g));
    }
    out
}

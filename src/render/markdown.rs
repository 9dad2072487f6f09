//! Markdown for GitHub step summaries and pull request comments.

use std::fmt::Write;

use super::verdict_text::{model_lines, panel_line};
use super::{Report, display, plural, verdict_label};
use crate::finding::Severity;

pub(super) fn render(reports: &[Report<'_>]) -> String {
    let mut out = String::new();
    for report in reports {
        let s = &report.summary;
        let (e, w, i) = report.counts();
        let title = s.name.as_deref().unwrap_or(&s.path);
        let _ = writeln!(out, "### skillgate: `{}`\n", cell(title));
        if report.skill.is_none() {
            let _ = writeln!(
                out,
                "`{}` · cannot be loaded · {}, {}, {} info\n",
                cell(&s.path),
                plural(e, "error"),
                plural(w, "warning"),
                i,
            );
        } else {
            let _ = writeln!(
                out,
                "`{}` · {} tokens · {} lines · {:.0}% example code · {}, {}, {} info\n",
                cell(&s.path),
                s.tokens,
                s.lines,
                s.code_share * 100.0,
                plural(e, "error"),
                plural(w, "warning"),
                i,
            );
        }
        if let Some(project) = &report.project {
            let _ = writeln!(out, "{}\n", cell(&project.line()));
        }
        if !report.findings.is_empty() {
            out.push_str("| | Rule | Where | Finding |\n|---|---|---|---|\n");
            for f in &report.findings {
                let icon = match f.severity {
                    Severity::Error => "❌ error",
                    Severity::Warning => "⚠️ warning",
                    Severity::Info => "ℹ️ info",
                };
                let mut text = cell(&f.message);
                if let Some(help) = &f.help {
                    let _ = write!(text, "<br>*{}*", cell(help));
                }
                let l = &f.location;
                let _ = writeln!(
                    out,
                    "| {icon} | `{}` {} | `{}:{}` | {text} |",
                    f.code,
                    f.name,
                    cell(&display(&l.path)),
                    l.line
                );
            }
            out.push('\n');
        }
        if let Some(panel) = &report.panel {
            let _ = writeln!(out, "**Verdicts: {}**\n", cell(&panel_line(panel)));
            for line in model_lines(panel) {
                let _ = writeln!(out, "- {}", cell(&line));
            }
            out.push('\n');
        }
        if let Some(v) = &report.verdict {
            let _ = writeln!(out, "**Verdict: {}**\n", verdict_label(v));
            for reason in &v.reasons {
                let _ = writeln!(out, "- {}", cell(reason));
            }
            out.push('\n');
        }
        if !s.sections.is_empty() {
            out.push_str("<details><summary>Tokens per section</summary>\n\n| Section | Tokens |\n|---|---:|\n");
            for section in &s.sections {
                let title = if section.level == 0 {
                    "(before the first heading)".to_owned()
                } else {
                    cell(&section.title)
                };
                let _ = writeln!(
                    out,
                    "| {}{title} | {} |",
                    "&nbsp;&nbsp;".repeat(usize::from(section.level.saturating_sub(1))),
                    section.tokens
                );
            }
            out.push_str("\n</details>\n\n");
        }
    }
    out
}

/// Text made safe for a table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('\n', " ")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

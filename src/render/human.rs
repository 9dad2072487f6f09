//! The default terminal output: miette diagnostics with the source line, a label and help,
//! then a per-section token table and a one-line summary per skill; with several skills, the
//! repository and its own findings once, and a closing summary.

use std::fmt::{self, Write};
use std::path::Path;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use super::verdict_text::{model_lines, panel_line};
use super::{Report, Style, display, plural, verdict_label};
use crate::finding::{Finding, Severity};

pub(super) fn render(reports: &[Report<'_>], style: Style) -> String {
    let theme = if style.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        .with_links(false);
    let several = reports.len() > 1;
    // Findings about the repository itself (a manifest it cannot read) are the same for every
    // skill: with several skills they are shown once, after the skills.
    let mut project_level: Vec<(&Report<'_>, &Finding)> = Vec::new();
    let mut out = String::new();
    for (n, report) in reports.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let mut own = Vec::with_capacity(report.findings.len());
        for finding in &report.findings {
            if several && is_project_level(report, finding) {
                if !project_level.iter().any(|(_, f)| same_place(f, finding)) {
                    project_level.push((report, finding));
                }
            } else {
                own.push(finding);
            }
        }
        for finding in &own {
            write_finding(&mut out, &handler, report, finding);
        }
        write_sections(&mut out, report);
        let count = |s| own.iter().filter(|f| f.severity == s).count();
        let (e, w, i) = (
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Info),
        );
        let s = &report.summary;
        if report.skill.is_none() {
            let _ = writeln!(
                out,
                "{}: cannot be loaded · {}, {}, {} info",
                s.path,
                plural(e, "error"),
                plural(w, "warning"),
                i,
            );
            continue;
        }
        let _ = writeln!(
            out,
            "{}: {} tokens, {} lines, {:.0}% example code · {}, {}, {} info",
            s.path,
            s.tokens,
            s.lines,
            s.code_share * 100.0,
            plural(e, "error"),
            plural(w, "warning"),
            i,
        );
        if let Some(project) = &report.project {
            // With several skills the repository is said once, at the end; each skill keeps
            // its own fit.
            let line = if several {
                project.fit.summary()
            } else {
                project.line()
            };
            let _ = writeln!(out, "{line}");
        }
        if let Some(v) = &report.verdict {
            let _ = writeln!(out, "verdict: {}", verdict_label(v));
            for reason in &v.reasons {
                let _ = writeln!(out, "  - {reason}");
            }
        }
        if let Some(panel) = &report.panel {
            let _ = writeln!(out, "verdicts: {}", panel_line(panel));
            for line in model_lines(panel) {
                let _ = writeln!(out, "  - {line}");
            }
        }
    }
    if several {
        out.push('\n');
        for (report, finding) in &project_level {
            write_finding(&mut out, &handler, report, finding);
        }
        if let Some(project) = reports.iter().find_map(|r| r.project.as_ref()) {
            let _ = writeln!(out, "{}", project.header());
        }
        write_closing(&mut out, reports, &project_level);
    }
    out
}

/// One finding as a miette diagnostic, with its source lines when the file is the skill's.
fn write_finding(
    out: &mut String,
    handler: &GraphicalReportHandler,
    report: &Report<'_>,
    finding: &Finding,
) {
    let source = report.source(&finding.location.path).map(|s| Named {
        name: display(&s.path),
        text: &s.text,
    });
    let diagnostic = FindingDiagnostic { finding, source };
    let _ = handler.render_report(out, &diagnostic);
    out.push('\n');
}

/// Whether a finding is about the repository rather than the skill: it lies outside the
/// skill's folder (SG400 on a manifest of the repository).
fn is_project_level(report: &Report<'_>, finding: &Finding) -> bool {
    let Some(skill) = report.skill else {
        return false;
    };
    let folder = skill.source.path.parent().unwrap_or(Path::new(""));
    report.project.is_some() && !finding.location.path.starts_with(folder)
}

/// The same finding reported through two skills.
fn same_place(a: &Finding, b: &Finding) -> bool {
    (
        a.code,
        &a.location.path,
        a.location.line,
        a.location.column,
        &a.message,
    ) == (
        b.code,
        &b.location.path,
        b.location.line,
        b.location.column,
        &b.message,
    )
}

/// The closing summary of several skills: how many, their findings (a repository finding
/// counted once), and their verdicts.
fn write_closing(
    out: &mut String,
    reports: &[Report<'_>],
    project_level: &[(&Report<'_>, &Finding)],
) {
    let own = reports
        .iter()
        .flat_map(|r| r.findings.iter().filter(move |f| !is_project_level(r, f)));
    let all: Vec<&Finding> = own.chain(project_level.iter().map(|(_, f)| *f)).collect();
    let count = |s| all.iter().filter(|f| f.severity == s).count();
    let unloaded = reports.iter().filter(|r| r.skill.is_none()).count();
    let _ = writeln!(
        out,
        "{}{}: {}, {}, {} info",
        plural(reports.len(), "skill"),
        if unloaded > 0 {
            format!(" ({unloaded} cannot be loaded)")
        } else {
            String::new()
        },
        plural(count(Severity::Error), "error"),
        plural(count(Severity::Warning), "warning"),
        count(Severity::Info),
    );
    let mut verdicts: Vec<(String, usize)> = Vec::new();
    for v in reports.iter().filter_map(|r| r.verdict.as_ref()) {
        let label = verdict_label(v);
        match verdicts.iter_mut().find(|(l, _)| *l == label) {
            Some((_, n)) => *n += 1,
            None => verdicts.push((label, 1)),
        }
    }
    if !verdicts.is_empty() {
        let parts: Vec<String> = verdicts
            .iter()
            .map(|(label, n)| format!("{n} {label}"))
            .collect();
        let _ = writeln!(out, "verdicts: {}", parts.join(" · "));
    }
}

fn write_sections(out: &mut String, report: &Report<'_>) {
    let s = &report.summary;
    if s.sections.is_empty() {
        return;
    }
    let _ = writeln!(out, "  tokens  share  section");
    for section in &s.sections {
        let share = if s.tokens == 0 {
            0.0
        } else {
            section.tokens as f64 * 100.0 / s.tokens as f64
        };
        let indent = "  ".repeat(usize::from(section.level.saturating_sub(1)));
        let title = if section.level == 0 {
            "(before the first heading)".to_owned()
        } else {
            format!(
                "{} {}",
                "#".repeat(usize::from(section.level)),
                section.title
            )
        };
        let _ = writeln!(
            out,
            "  {:>6}  {:>4.0}%  {indent}{title}",
            section.tokens, share
        );
    }
    out.push('\n');
}

/// A file's text with its display name, so miette prints `[path:line:col]`.
struct Named<'a> {
    name: String,
    text: &'a str,
}

impl SourceCode for Named<'_> {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self.text.read_span(span, before, after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            *inner.span(),
            inner.line(),
            inner.column(),
            inner.line_count(),
        )))
    }
}

/// A finding seen through miette's eyes.
struct FindingDiagnostic<'a> {
    finding: &'a Finding,
    source: Option<Named<'a>>,
}

impl fmt::Debug for FindingDiagnostic<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("FindingDiagnostic")
            .field(&self.finding.code)
            .finish()
    }
}

impl fmt::Display for FindingDiagnostic<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.finding.message)
    }
}

impl std::error::Error for FindingDiagnostic<'_> {}

impl Diagnostic for FindingDiagnostic<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(format!(
            "{}({})",
            self.finding.code, self.finding.name
        )))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.finding.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.finding
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.source.as_ref()?;
        let span = &self.finding.location.span;
        let len = span.end.saturating_sub(span.start);
        let main = LabeledSpan::new_primary_with_span(
            Some(self.finding.code.to_owned()),
            (span.start, len),
        );
        let related = self
            .finding
            .related
            .iter()
            .filter(|r| r.location.path == self.finding.location.path)
            .map(|r| {
                let s = &r.location.span;
                LabeledSpan::new_with_span(
                    Some(r.message.clone()),
                    (s.start, s.end.saturating_sub(s.start)),
                )
            });
        Some(Box::new(std::iter::once(main).chain(related)))
    }
}

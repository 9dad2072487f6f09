//! The default terminal output: miette diagnostics with the source line, a label and help,
//! then a per-section token table and a one-line summary per skill.

use std::fmt::{self, Write};

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

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
    let mut out = String::new();
    for report in reports {
        for finding in &report.findings {
            let source = report.source(&finding.location.path).map(|s| Named {
                name: display(&s.path),
                text: &s.text,
            });
            let diagnostic = FindingDiagnostic { finding, source };
            let _ = handler.render_report(&mut out, &diagnostic);
            out.push('\n');
        }
        write_sections(&mut out, report);
        let (e, w, i) = report.counts();
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
            let _ = writeln!(out, "{}", project.line());
        }
        if let Some(v) = &report.verdict {
            let _ = writeln!(out, "verdict: {}", verdict_label(v));
            for reason in &v.reasons {
                let _ = writeln!(out, "  - {reason}");
            }
        }
    }
    out
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

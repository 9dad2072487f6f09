//! GitHub Actions workflow commands: one annotation per finding.

use std::fmt::Write;

use super::{Report, display, verdict_label};
use crate::finding::Severity;

pub(super) fn render(reports: &[Report<'_>]) -> String {
    let mut out = String::new();
    for f in reports.iter().flat_map(|r| &r.findings) {
        let command = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let l = &f.location;
        let mut props = format!(
            "file={},line={},endLine={}",
            property(&display(&l.path)),
            l.line,
            l.end_line
        );
        // Columns are only meaningful to GitHub when the annotation stays on one line.
        if l.line == l.end_line {
            let _ = write!(
                props,
                ",col={},endColumn={}",
                l.column,
                l.end_column.max(l.column)
            );
        }
        let _ = write!(
            props,
            ",title={}",
            property(&format!("{} {}", f.code, f.name))
        );
        let mut message = f.message.clone();
        if let Some(help) = &f.help {
            let _ = write!(message, "\nhelp: {help}");
        }
        let _ = writeln!(out, "::{command} {props}::{}", data(&message));
    }
    for report in reports {
        if let Some(v) = &report.verdict {
            let title = property(&format!("skillgate verdict: {}", verdict_label(v)));
            let message = format!(
                "{}: {}\n{}",
                report.summary.path,
                verdict_label(v),
                v.reasons.join("\n")
            );
            let _ = writeln!(out, "::notice title={title}::{}", data(&message));
        }
    }
    out
}

/// Escape a command's message.
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a command property's value.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_follow_the_workflow_command_rules() {
        assert_eq!(data("50% done\r\nnext"), "50%25 done%0D%0Anext");
        assert_eq!(property("a:b,c%"), "a%3Ab%2Cc%25");
    }
}

//! `path:line:col: CODE message`, one line per finding, for editors and grep.

use std::fmt::Write;

use super::{Report, display, verdict_label};

pub(super) fn render(reports: &[Report<'_>]) -> String {
    let mut out = String::new();
    for report in reports {
        for f in &report.findings {
            let l = &f.location;
            let path = display(&l.path);
            let _ = writeln!(
                out,
                "{path}:{}:{}: {} {}",
                l.line, l.column, f.code, f.message
            );
        }
        if let Some(v) = &report.verdict {
            let reasons = v.reasons.join("; ");
            let _ = writeln!(
                out,
                "{}: verdict {}: {reasons}",
                report.summary.path,
                verdict_label(v)
            );
        }
    }
    out
}

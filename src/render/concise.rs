//! `path:line:col: CODE message`, one line per finding, for editors and grep.

use std::fmt::Write;

use super::{Report, display};

pub(super) fn render(reports: &[Report<'_>]) -> String {
    let mut out = String::new();
    for f in reports.iter().flat_map(|r| &r.findings) {
        let l = &f.location;
        let _ = writeln!(
            out,
            "{}:{}:{}: {} {}",
            display(&l.path),
            l.line,
            l.column,
            f.code,
            f.message
        );
    }
    out
}

//! The markdown a check run, the pull-request comment and the step summary show, and the cap
//! that keeps each within what GitHub accepts.

use std::fmt::Write;

use super::Gated;
use crate::render::verdict_text::{model_lines, panel_line};
use crate::render::{self, Format, Style};
use crate::verdict::{Basis, Decision, Verdict};

/// The longest `summary` or `text` of a check run, in characters.
pub const CHECK_RUN_LIMIT: usize = 65_535;
/// The longest issue comment body, in characters.
pub const COMMENT_LIMIT: usize = 65_536;
/// The longest step summary GitHub shows (1 MiB), in characters, leaving room for bytes
/// beyond ASCII.
pub const STEP_SUMMARY_LIMIT: usize = 250_000;
/// The hidden line that marks the gate's pull-request comment.
pub const COMMENT_MARKER: &str = "<!-- skillgate-gate: verdicts of the changed skills -->";

/// The room kept for the note that says how much was cut.
const NOTE_ROOM: usize = 200;

/// `text` cut at a line boundary to at most `limit` characters, with a last line saying how
/// many characters were left out.
pub fn cap(text: &str, limit: usize) -> String {
    let total = text.chars().count();
    if total <= limit {
        return text.to_owned();
    }
    let budget = limit.saturating_sub(NOTE_ROOM);
    let mut kept = String::new();
    let mut kept_chars = 0;
    for line in text.split_inclusive('\n') {
        let n = line.chars().count();
        if kept_chars + n > budget {
            break;
        }
        kept.push_str(line);
        kept_chars += n;
    }
    if !kept.is_empty() && !kept.ends_with('\n') {
        kept.push('\n');
    }
    let _ = write!(
        kept,
        "\n*… {} more characters of this report were left out to stay within GitHub's limit \
         of {} characters; `skillgate check` prints all of it.*\n",
        group(total - kept_chars),
        group(limit)
    );
    kept
}

/// The check run's title: the decision and the counts.
pub fn title(gated: &Gated<'_>) -> String {
    let (e, w, i) = counts(gated);
    format!(
        "{}: {e} errors, {w} warnings, {i} info",
        verdict_cell(gated)
    )
}

/// The verdict as a title or a table cell shows it: one model's label, or the panel's line
/// (`skip (panel: all)`, `inject on a, skip on b (panel: per-model)`).
fn verdict_cell(gated: &Gated<'_>) -> String {
    match (&gated.report.verdict, &gated.report.panel) {
        (Some(v), _) => label(v),
        (None, Some(panel)) => panel_line(panel),
        (None, None) => "no verdict".to_owned(),
    }
}

/// The check run's summary: verdict, reasons, size, fit, tokens per section and, when the
/// evaluation ran, its tables.
pub fn check_summary(gated: &Gated<'_>) -> String {
    let report = &gated.report;
    let s = &report.summary;
    let mut out = String::new();
    match &report.verdict {
        Some(v) => {
            let _ = writeln!(
                out,
                "**Verdict: {}** · conclusion `{}`\n",
                label(v),
                gated.conclusion.as_str()
            );
            for reason in &v.reasons {
                let _ = writeln!(out, "- {}", escape(reason));
            }
            out.push('\n');
        }
        None => match &report.panel {
            Some(panel) => {
                let _ = writeln!(
                    out,
                    "**Verdicts: {}** · conclusion `{}`\n",
                    escape(&panel_line(panel)),
                    gated.conclusion.as_str()
                );
                for line in model_lines(panel) {
                    let _ = writeln!(out, "- {}", escape(&line));
                }
                for reason in &panel.reasons {
                    let _ = writeln!(out, "- {}", escape(reason));
                }
                out.push('\n');
            }
            None => {
                let _ = writeln!(out, "conclusion `{}`\n", gated.conclusion.as_str());
            }
        },
    }
    let (e, w, i) = counts(gated);
    let _ = writeln!(
        out,
        "`{}` · {} tokens · {} lines · {:.0}% example code · {e} errors, {w} warnings, {i} info\n",
        escape(&s.path),
        group(s.tokens),
        s.lines,
        s.code_share * 100.0
    );
    if let Some(project) = &report.project {
        let _ = writeln!(out, "{}\n", escape(&project.line()));
    }
    if !s.sections.is_empty() {
        out.push_str("| Section | Tokens |\n|---|---:|\n");
        for section in &s.sections {
            let title = if section.level == 0 {
                "(before the first heading)".to_owned()
            } else {
                escape(&section.title)
            };
            let indent = "&nbsp;&nbsp;".repeat(usize::from(section.level.saturating_sub(1)));
            let _ = writeln!(out, "| {indent}{title} | {} |", group(section.tokens));
        }
        out.push('\n');
    }
    if let Some(v) = &report.verdict
        && v.eval.is_some()
    {
        out.push_str(&render::verdict_text::markdown(v));
    }
    if let Some(panel) = &report.panel {
        out.push_str(&render::verdict_text::panel_markdown(panel));
    }
    out
}

/// The check run's details: every finding with its help, as the markdown format shows it.
pub fn check_text(gated: &Gated<'_>) -> String {
    render::render(
        Format::Markdown,
        std::slice::from_ref(&gated.report),
        Style {
            color: false,
            width: 100,
            rules_doc: None,
        },
    )
}

/// The sticky pull-request comment: one row per judged skill.
pub fn comment(gated: &[Gated<'_>]) -> String {
    let mut out = format!("{COMMENT_MARKER}\n### skillgate\n\n");
    out.push_str("| Skill | Verdict | Conclusion | Errors | Warnings | Info |\n");
    out.push_str("|---|---|---|---:|---:|---:|\n");
    for g in gated {
        let (e, w, i) = counts(g);
        let verdict = match (&g.report.verdict, &g.report.panel) {
            (None, None) => String::new(),
            _ => escape(&verdict_cell(g)),
        };
        let _ = writeln!(
            out,
            "| `{}` | {verdict} | `{}` | {e} | {w} | {i} |",
            escape(&g.name),
            g.conclusion.as_str()
        );
    }
    for g in gated {
        let (lines, reasons) = match (&g.report.verdict, &g.report.panel) {
            (Some(v), _) => (Vec::new(), v.reasons.as_slice()),
            (None, Some(panel)) => (model_lines(panel), panel.reasons.as_slice()),
            (None, None) => continue,
        };
        let _ = writeln!(
            out,
            "\n<details><summary><code>{}</code>: {}</summary>\n",
            escape(&g.name),
            escape(&verdict_cell(g))
        );
        for line in lines.iter().chain(reasons) {
            let _ = writeln!(out, "- {}", escape(line));
        }
        out.push_str("\n</details>\n");
    }
    out.push_str("\n*Updated on every push by `skillgate gate`.*\n");
    cap(&out, COMMENT_LIMIT)
}

/// The sticky comment once the pull request changes no skill any more: what it held before
/// no longer applies.
pub fn comment_no_change(head_sha: Option<&str>) -> String {
    let at = head_sha.map_or_else(String::new, |sha| {
        format!(" as of `{}`", sha.get(..12).unwrap_or(sha))
    });
    format!(
        "{COMMENT_MARKER}\n### skillgate\n\nThis pull request changes no skill{at}, so there is \
         nothing to judge; the verdicts this comment showed before no longer apply.\n\n\
         *Updated on every push by `skillgate gate`.*\n"
    )
}

/// `inject (evaluated)` and the like; a static verdict says it was not evaluated, as no
/// skill is injected before an evaluation shows it helps.
pub fn label(v: &Verdict) -> String {
    if v.basis == Basis::Static && v.decision == Decision::Skip {
        return crate::render::NOT_EVALUATED.to_owned();
    }
    let decision = match v.decision {
        Decision::Inject => "inject",
        Decision::Skip => "skip",
    };
    let basis = match v.basis {
        Basis::Static => "static",
        Basis::Eval => "evaluated",
    };
    format!("{decision} ({basis})")
}

/// (errors, warnings, infos) of one skill.
pub fn counts(gated: &Gated<'_>) -> (usize, usize, usize) {
    use crate::finding::Severity;
    let n = |s| {
        gated
            .report
            .findings
            .iter()
            .filter(|f| f.severity == s)
            .count()
    };
    (n(Severity::Error), n(Severity::Warning), n(Severity::Info))
}

/// Text made safe for a table cell or a list item.
fn escape(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('\n', " ")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// `65535` as `65,535`.
fn group(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept_whole() {
        assert_eq!(cap("a\nb\n", 10), "a\nb\n");
    }

    #[test]
    fn long_text_is_cut_at_a_line_with_a_note() {
        let text: String = (0..10_000).map(|i| format!("line {i}\n")).collect();
        let capped = cap(&text, 1_000);
        assert!(
            capped.chars().count() <= 1_000,
            "{}",
            capped.chars().count()
        );
        let (body, note) = capped.rsplit_once("\n\n").unwrap();
        assert!(text.starts_with(body), "cut mid-line");
        assert!(text[body.len()..].starts_with('\n'), "cut mid-line");
        let left_out = text.chars().count() - body.chars().count() - 1;
        assert!(
            note.contains(&format!("{} more characters", group(left_out))),
            "{note}"
        );
    }

    #[test]
    fn characters_not_bytes_are_counted() {
        let text = "é".repeat(400) + "\n" + &"é".repeat(400) + "\n";
        let capped = cap(&text, 700);
        assert!(capped.chars().count() <= 700);
        assert!(capped.starts_with(&"é".repeat(400)));
    }

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(group(65_535), "65,535");
        assert_eq!(group(999), "999");
        assert_eq!(group(1_000_000), "1,000,000");
    }
}

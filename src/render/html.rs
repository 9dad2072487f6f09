//! The evaluation as one self-contained HTML page: inline CSS, inline SVG drawn here, no
//! scripts and no network, so it can be attached to a run or opened from disk.

use std::fmt::Write as _;

use crate::stats::{EvalSummary, Interval, TaskComparison, TaskResult};
use crate::verdict::panel::model_label;
use crate::verdict::{Decision, PanelVerdict, Verdict, signed, signed_whole};

use super::verdict_text::{
    CONDITION_HEADERS, DELTA_HEADERS, MODEL_HEADERS, NETWORK_HEADERS, SKILLS_REMOVED_TITLE,
    STORAGE_TITLE, TRANSFER_HEADERS, basis_word, condition_rows, decision_word, delta_rows, deltas,
    evidence_line, evidence_word, headline, measured_line, model_rows, network_rows, panel_line,
    points_bracket, skills_removed_lines, storage_lines, transfer_rows,
};

/// Width of the drawings, in CSS pixels.
const WIDTH: f64 = 720.0;
/// Left margin of the forest plot, where the row labels go.
const LABEL_WIDTH: f64 = 150.0;
/// Right margin of the forest plot, where the figures go.
const FIGURE_WIDTH: f64 = 190.0;
/// Height of one forest plot row.
const ROW: f64 = 34.0;
/// Side of one task's square in the strip, and the gap after it.
const CELL: f64 = 16.0;
const GAP: f64 = 3.0;

const STYLE: &str = "\
body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1d2329;margin:2rem auto;max-width:760px;padding:0 1rem}\
h1{font-size:1.5rem;margin:0 0 .25rem}h2{font-size:1.1rem;margin:1.8rem 0 .5rem}\
.decision{padding:.05rem .5rem;border-radius:4px;color:#fff}.inject{background:#1a7f37}.skip{background:#6e7781}\
.meta{color:#57606a;margin:0}ul{padding-left:1.2rem}li{margin:.2rem 0}\
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}\
th,td{padding:.3rem .45rem;border-bottom:1px solid #d0d7de;text-align:right;white-space:nowrap}th{white-space:normal}\
th.l,td.l{text-align:left}th{font-weight:600;background:#f6f8fa}\
svg{display:block;margin:.5rem 0}svg text{font:13px system-ui,sans-serif;fill:#1d2329}\
.legend{color:#57606a;font-size:.9rem}";

/// Colours of the win/tie/loss strip; the legend names them, so colour is never the only cue.
const WIN: &str = "#1a7f37";
const TIE: &str = "#afb8c1";
const LOSS: &str = "#cf222e";

/// The whole page. `title` names what was judged (e.g. the skill and the repository).
pub fn page(verdict: &Verdict, title: &str) -> String {
    let decision = decision_word(verdict.decision);
    let class = match verdict.decision {
        Decision::Inject => "inject",
        Decision::Skip => "skip",
    };
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let _ = writeln!(out, "<title>{} — {decision}</title>", escape(title));
    let _ = writeln!(out, "<style>{STYLE}</style>\n</head>\n<body>");
    let _ = writeln!(out, "<h1>{}</h1>", escape(title));
    let _ = writeln!(
        out,
        "<p>Verdict: <span class=\"decision {class}\">{decision}</span> \
         <span class=\"meta\">(basis: {})</span></p>",
        basis_word(verdict.basis)
    );
    if let Some(line) = evidence_line(verdict) {
        let _ = writeln!(out, "<p>Evidence: <strong>{}</strong></p>", escape(&line));
    }
    if let Some(line) = measured_line(verdict) {
        let _ = writeln!(
            out,
            "<p class=\"meta\">Measured with: {}</p>",
            escape(&line)
        );
    }
    if let Some(summary) = &verdict.eval {
        let _ = writeln!(out, "<p class=\"meta\">{}</p>", escape(&headline(summary)));
    }
    out.push_str("<h2>Reasons</h2>\n<ul>\n");
    for reason in &verdict.reasons {
        let _ = writeln!(out, "<li>{}</li>", escape(reason));
    }
    out.push_str("</ul>\n");
    if let Some(summary) = &verdict.eval {
        out.push_str(&evaluation(summary));
    }
    out.push_str("</body>\n</html>\n");
    out
}

fn evaluation(summary: &EvalSummary) -> String {
    let mut out = String::from("<h2>Conditions</h2>\n");
    out.push_str(&table(&CONDITION_HEADERS, &condition_rows(summary), 1));
    out.push_str("<h2>Paired differences (percentage points)</h2>\n");
    out.push_str(&forest_plot(summary));
    out.push_str(&table(&DELTA_HEADERS, &delta_rows(summary), 2));
    out.push_str("<h2>Per task: skill against no skill</h2>\n");
    out.push_str(&strip(&summary.per_task));
    let _ = writeln!(
        out,
        "<p class=\"legend\"><span style=\"color:{WIN}\">■</span> {} won · \
         <span style=\"color:{TIE}\">■</span> {} tied · \
         <span style=\"color:{LOSS}\">■</span> {} lost · □ {} without a pair \
         (hover a square for the task)</p>",
        summary.win,
        summary.tie,
        summary.loss,
        summary.tasks_without_pair.len()
    );
    let environment = &summary.environment;
    if !environment.network.is_empty() {
        out.push_str("<h2>Environment</h2>\n");
        out.push_str(&table(&NETWORK_HEADERS, &network_rows(environment), 4));
    }
    if !environment.skills_removed.is_empty() {
        let _ = writeln!(out, "<p>{}</p>\n<ul>", escape(SKILLS_REMOVED_TITLE));
        for line in skills_removed_lines(environment) {
            let _ = writeln!(out, "<li>{}</li>", escape(&line));
        }
        out.push_str("</ul>\n");
    }
    if !environment.storage_not_enforced.is_empty() {
        let _ = writeln!(out, "<p>{}</p>\n<ul>", escape(STORAGE_TITLE));
        for line in storage_lines(environment) {
            let _ = writeln!(out, "<li>{}</li>", escape(&line));
        }
        out.push_str("</ul>\n");
    }
    out
}

/// A table whose first `text_columns` columns are left aligned and the rest right aligned.
fn table(headers: &[&str], rows: &[Vec<String>], text_columns: usize) -> String {
    let align = |col: usize| {
        if col < text_columns {
            " class=\"l\""
        } else {
            ""
        }
    };
    let mut out = String::from("<table>\n<tr>");
    for (col, header) in headers.iter().enumerate() {
        let _ = write!(out, "<th{}>{}</th>", align(col), escape(header));
    }
    out.push_str("</tr>\n");
    for row in rows {
        out.push_str("<tr>");
        for (col, cell) in row.iter().enumerate() {
            let _ = write!(out, "<td{}>{}</td>", align(col), escape(cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    out
}

/// The horizontal axis of the forest plot, in points: a symmetric-enough range that holds
/// zero and every bound, with ticks at a round step.
struct Axis {
    min: f64,
    max: f64,
    step: f64,
}

impl Axis {
    fn new(intervals: &[&Interval]) -> Self {
        let (lo, hi) = intervals.iter().fold((0.0_f64, 0.0_f64), |(lo, hi), i| {
            (lo.min(i.lo * 100.0), hi.max(i.hi * 100.0))
        });
        let span = (hi - lo).max(1.0);
        let step = [1.0, 2.0, 5.0, 10.0, 20.0, 25.0, 50.0]
            .into_iter()
            .find(|s| span / s <= 8.0)
            .unwrap_or(50.0);
        Self {
            min: (lo / step).floor() * step - step,
            max: (hi / step).ceil() * step + step,
            step,
        }
    }

    fn x(&self, points: f64) -> f64 {
        let plot = WIDTH - LABEL_WIDTH - FIGURE_WIDTH;
        LABEL_WIDTH + (points - self.min) / (self.max - self.min) * plot
    }

    fn ticks(&self) -> impl Iterator<Item = f64> + '_ {
        let n = ((self.max - self.min) / self.step).round() as i64;
        (0..=n).map(|i| self.min + i as f64 * self.step)
    }
}

/// Δ, ΔLength and ΔContent as points with interval whiskers against a zero line.
fn forest_plot(summary: &EvalSummary) -> String {
    let rows: Vec<(String, String, Option<&Interval>)> = deltas(summary)
        .into_iter()
        .map(|(name, comparison, interval)| (name.to_string(), comparison.to_string(), interval))
        .collect();
    forest(&rows, "Forest plot of the paired differences")
}

/// Rows of (label, detail, interval in fractions) drawn on one axis in points.
fn forest(rows: &[(String, String, Option<&Interval>)], label: &str) -> String {
    let measured: Vec<&Interval> = rows.iter().filter_map(|r| r.2).collect();
    let axis = Axis::new(&measured);
    let height = ROW * rows.len() as f64 + 40.0;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-label=\"{label}\">\n"
    );
    let axis_y = ROW * rows.len() as f64 + 8.0;
    for tick in axis.ticks() {
        let x = axis.x(tick);
        let _ = writeln!(
            svg,
            "<line x1=\"{x:.1}\" y1=\"4\" x2=\"{x:.1}\" y2=\"{axis_y}\" stroke=\"#eaeef2\"/>\
             <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            axis_y + 18.0,
            signed_whole(tick)
        );
    }
    let zero = axis.x(0.0);
    let _ = writeln!(
        svg,
        "<line x1=\"{zero:.1}\" y1=\"4\" x2=\"{zero:.1}\" y2=\"{axis_y}\" stroke=\"#1d2329\" stroke-dasharray=\"4 3\"/>"
    );
    for (index, (name, comparison, interval)) in rows.iter().enumerate() {
        let y = ROW * index as f64 + ROW / 2.0 + 4.0;
        let _ = writeln!(
            svg,
            "<text x=\"8\" y=\"{:.1}\">{} <tspan fill=\"#57606a\">{}</tspan></text>",
            y + 4.5,
            escape(name),
            escape(comparison)
        );
        svg.push_str(&forest_row(&axis, y, *interval));
    }
    svg.push_str("</svg>\n");
    svg
}

fn forest_row(axis: &Axis, y: f64, interval: Option<&Interval>) -> String {
    let figure_x = WIDTH - FIGURE_WIDTH + 12.0;
    let Some(i) = interval else {
        return format!(
            "<text x=\"{figure_x:.1}\" y=\"{:.1}\" fill=\"#57606a\">not measured</text>\n",
            y + 4.5
        );
    };
    let (lo, point, hi) = (
        axis.x(i.lo * 100.0),
        axis.x(i.point * 100.0),
        axis.x(i.hi * 100.0),
    );
    format!(
        "<line x1=\"{lo:.1}\" y1=\"{y:.1}\" x2=\"{hi:.1}\" y2=\"{y:.1}\" stroke=\"#0969da\" stroke-width=\"2\"/>\
         <line x1=\"{lo:.1}\" y1=\"{:.1}\" x2=\"{lo:.1}\" y2=\"{:.1}\" stroke=\"#0969da\" stroke-width=\"2\"/>\
         <line x1=\"{hi:.1}\" y1=\"{:.1}\" x2=\"{hi:.1}\" y2=\"{:.1}\" stroke=\"#0969da\" stroke-width=\"2\"/>\
         <circle cx=\"{point:.1}\" cy=\"{y:.1}\" r=\"5\" fill=\"#0969da\"/>\
         <text x=\"{figure_x:.1}\" y=\"{:.1}\">{} {}</text>\n",
        y - 6.0,
        y + 6.0,
        y - 6.0,
        y + 6.0,
        y + 4.5,
        signed(i.point * 100.0),
        points_bracket(i)
    )
}

/// The page of a run over several models: the panel's decision, a forest plot of each
/// model's Δ, the models and transfer tables, the reasons, then each model's own sections.
pub fn panel_page(panel: &PanelVerdict, title: &str) -> String {
    let mut body = format!(
        "<h1>{}</h1>\n<p>Verdicts per model: <strong>{}</strong></p>\n",
        escape(title),
        escape(&panel_line(panel))
    );
    body.push_str("<h2>Δ per model</h2>\n");
    let rows: Vec<(String, String, Option<&Interval>)> = panel
        .verdicts
        .iter()
        .map(|v| {
            (
                model_label(v.model.as_deref().unwrap_or_default()).to_owned(),
                v.evidence.map_or("", evidence_word).to_owned(),
                v.eval.as_ref().and_then(|e| e.delta.as_ref()),
            )
        })
        .collect();
    body.push_str(&forest(&rows, "Forest plot of Δ per model"));
    body.push_str("<h2>Models</h2>\n");
    body.push_str(&table(&MODEL_HEADERS, &model_rows(panel), 4));
    body.push_str("<h2>Transfer</h2>\n");
    body.push_str(&table(&TRANSFER_HEADERS, &transfer_rows(panel), 1));
    body.push_str("<h2>Reasons</h2>\n<ul>\n");
    for reason in &panel.reasons {
        let _ = writeln!(body, "<li>{}</li>", escape(reason));
    }
    body.push_str("</ul>\n");
    let mut page = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}",
        escape(title)
    );
    for verdict in &panel.verdicts {
        let one = self::page(
            verdict,
            &format!(
                "{title}: {}",
                model_label(verdict.model.as_deref().unwrap_or_default())
            ),
        );
        if let (Some(start), Some(end)) = (one.find("<h1>"), one.rfind("</body>")) {
            page.push_str("<hr>\n");
            page.push_str(
                &one[start..end]
                    .replacen("<h1>", "<h2>", 1)
                    .replacen("</h1>", "</h2>", 1),
            );
        }
    }
    page.push_str("</body>\n</html>\n");
    page
}

/// One square per task, in task order, wrapping to new rows; each square's tooltip names the
/// task and its pass shares.
fn strip(tasks: &[TaskComparison]) -> String {
    let per_row = ((WIDTH + GAP) / (CELL + GAP)).floor().max(1.0) as usize;
    let rows = tasks.len().div_ceil(per_row).max(1);
    let height = rows as f64 * (CELL + GAP);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-label=\"Win, tie or loss per task\">\n"
    );
    for (index, task) in tasks.iter().enumerate() {
        let x = (index % per_row) as f64 * (CELL + GAP);
        let y = (index / per_row) as f64 * (CELL + GAP);
        let (fill, stroke) = match task.result {
            TaskResult::Win => (WIN, WIN),
            TaskResult::Tie => (TIE, TIE),
            TaskResult::Loss => (LOSS, LOSS),
            TaskResult::NoPair => ("#ffffff", "#57606a"),
        };
        let _ = writeln!(
            svg,
            "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{CELL}\" height=\"{CELL}\" rx=\"2\" \
             fill=\"{fill}\" stroke=\"{stroke}\"><title>{}</title></rect>",
            escape(&task_tooltip(task))
        );
    }
    svg.push_str("</svg>\n");
    svg
}

fn task_tooltip(task: &TaskComparison) -> String {
    match (task.c1, task.c0) {
        (Some(c1), Some(c0)) => format!(
            "{}: skill {:.0}%, no skill {:.0}% over {} paired seeds",
            task.task,
            c1 * 100.0,
            c0 * 100.0,
            task.pairs
        ),
        _ => format!("{}: no usable pair", task.task),
    }
}

/// Escapes text for HTML element content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn the_axis_holds_zero_and_every_bound() {
        let i = Interval {
            point: 0.08,
            lo: 0.017,
            hi: 0.15,
            tasks: 12,
            pairs: 36,
        };
        let axis = Axis::new(&[&i]);
        assert!(axis.min < 0.0 && axis.max > 15.0);
        assert!(axis.x(axis.min) >= LABEL_WIDTH - 1e-9);
        assert!(axis.x(axis.max) <= WIDTH - FIGURE_WIDTH + 1e-9);
    }
}

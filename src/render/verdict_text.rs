//! The evaluation as text: a conditions table, the three paired deltas and the decision with
//! its reasons, in plain fixed-width text (no colour) or in markdown. Pure: `String` out.

use crate::eval::condition::Condition;
use crate::eval::journal::EnvironmentSummary;
use crate::stats::{ConditionStats, EvalSummary, Interval};
use crate::verdict::panel::model_label;
use crate::verdict::{
    Basis, Decision, Evidence, Panel, PanelVerdict, Verdict, grouped, percent_label, signed,
    signed_fixed,
};

/// Column headers of the conditions table.
pub(crate) const CONDITION_HEADERS: [&str; 9] = [
    "Condition",
    "Pass rate",
    "Pass@1",
    "Mean tokens",
    "Median tokens",
    "Mean wall",
    "Cells",
    "Errors",
    "Skill read",
];

/// Column headers of the deltas table.
pub(crate) const DELTA_HEADERS: [&str; 4] = ["Difference", "Comparison", "Points", "Interval"];

/// Column headers of the environment table.
pub(crate) const NETWORK_HEADERS: [&str; 6] = [
    "Task",
    "Agent network",
    "Verifier network",
    "Conditions",
    "Cells",
    "Attempts",
];

/// Heads the list of skills removed from tasks' environments.
pub(crate) const SKILLS_REMOVED_TITLE: &str =
    "Skills already in the environment, removed before the agent ran:";

/// Heads the list of tasks whose storage limit was not enforced.
pub(crate) const STORAGE_TITLE: &str = "Storage limits not enforced (the cells ran without them):";

/// Shown where a figure could not be computed.
const MISSING: &str = "n/a";

/// The plain-text report: fixed width, no colour, ready for a terminal or a log.
pub fn human(verdict: &Verdict) -> String {
    let mut out = String::new();
    if let Some(summary) = &verdict.eval {
        out.push_str(&headline(summary));
        out.push_str("\n\n");
        out.push_str(&fixed_width(
            &CONDITION_HEADERS,
            &condition_rows(summary),
            1,
        ));
        out.push('\n');
        out.push_str(&fixed_width(&DELTA_HEADERS, &delta_rows(summary), 2));
        out.push('\n');
        if !summary.environment.network.is_empty() {
            out.push_str("Environment\n");
            out.push_str(&fixed_width(
                &NETWORK_HEADERS,
                &network_rows(&summary.environment),
                4,
            ));
            out.push('\n');
        }
        if !summary.environment.skills_removed.is_empty() {
            out.push_str(&format!("{SKILLS_REMOVED_TITLE}\n"));
            for line in skills_removed_lines(&summary.environment) {
                out.push_str(&format!("  - {line}\n"));
            }
            out.push('\n');
        }
        if !summary.environment.storage_not_enforced.is_empty() {
            out.push_str(&format!("{STORAGE_TITLE}\n"));
            for line in storage_lines(&summary.environment) {
                out.push_str(&format!("  - {line}\n"));
            }
            out.push('\n');
        }
    }
    out.push_str(&format!(
        "Decision: {} (basis: {})\n",
        decision_word(verdict.decision),
        basis_word(verdict.basis)
    ));
    if let Some(line) = measured_line(verdict) {
        out.push_str(&format!("Measured with: {line}\n"));
    }
    if let Some(line) = evidence_line(verdict) {
        out.push_str(&format!("Evidence: {line}\n"));
    }
    for reason in &verdict.reasons {
        out.push_str(&format!("  - {reason}\n"));
    }
    out
}

/// The markdown report, for job step summaries and check runs.
pub fn markdown(verdict: &Verdict) -> String {
    let mut out = format!(
        "### skillgate verdict: **{}** ({})\n\n",
        decision_word(verdict.decision),
        basis_word(verdict.basis)
    );
    if let Some(summary) = &verdict.eval {
        out.push_str(&markdown_escape(&headline(summary)));
        out.push_str("\n\n");
        out.push_str(&markdown_table(
            &CONDITION_HEADERS,
            &condition_rows(summary),
            1,
        ));
        out.push('\n');
        out.push_str(&markdown_table(&DELTA_HEADERS, &delta_rows(summary), 2));
        out.push('\n');
        if !summary.environment.network.is_empty() {
            out.push_str("**Environment**\n\n");
            out.push_str(&markdown_table(
                &NETWORK_HEADERS,
                &network_rows(&summary.environment),
                4,
            ));
            out.push('\n');
        }
        if !summary.environment.skills_removed.is_empty() {
            out.push_str(&format!("{SKILLS_REMOVED_TITLE}\n\n"));
            for line in skills_removed_lines(&summary.environment) {
                out.push_str(&format!("- {}\n", markdown_escape(&line)));
            }
            out.push('\n');
        }
        if !summary.environment.storage_not_enforced.is_empty() {
            out.push_str(&format!("{STORAGE_TITLE}\n\n"));
            for line in storage_lines(&summary.environment) {
                out.push_str(&format!("- {}\n", markdown_escape(&line)));
            }
            out.push('\n');
        }
    }
    if let Some(line) = measured_line(verdict) {
        out.push_str(&format!("Measured with: {}\n\n", markdown_escape(&line)));
    }
    if let Some(line) = evidence_line(verdict) {
        out.push_str(&format!("Evidence: **{}**\n\n", markdown_escape(&line)));
    }
    out.push_str("**Reasons**\n\n");
    for reason in &verdict.reasons {
        out.push_str(&format!("- {}\n", markdown_escape(reason)));
    }
    out
}

/// "12 tasks × 3 seeds, 95% intervals from 10,000 bootstrap resamples over tasks".
pub(crate) fn headline(summary: &EvalSummary) -> String {
    format!(
        "Evaluation: {} tasks × {} seeds, {} intervals from {} bootstrap resamples over tasks",
        summary.tasks,
        summary.seeds,
        percent_label(summary.confidence * 100.0),
        grouped(u64::from(summary.resamples))
    )
}

/// One row per condition present in the journal.
pub(crate) fn condition_rows(summary: &EvalSummary) -> Vec<Vec<String>> {
    summary
        .conditions
        .iter()
        .map(|(&condition, stats)| condition_row(condition, stats))
        .collect()
}

fn condition_row(condition: Condition, stats: &ConditionStats) -> Vec<String> {
    let percent = |v: Option<f64>| v.map_or(MISSING.to_owned(), |v| format!("{:.1}%", v * 100.0));
    let tokens = |v: Option<f64>| v.map_or(MISSING.to_owned(), |v| grouped(v.round() as u64));
    vec![
        format!("{condition:?} {}", condition_name(condition)),
        percent(stats.pass_rate),
        percent(stats.pass1_rate),
        tokens(stats.mean_tokens),
        tokens(stats.median_tokens),
        stats
            .mean_wall_s
            .map_or(MISSING.to_owned(), |w| format!("{w:.1} s")),
        stats.cells.to_string(),
        stats.errors.to_string(),
        stats.skill_read_rate.map_or(MISSING.to_owned(), |_| {
            format!("{}/{}", stats.skill_reads, stats.skill_read_known)
        }),
    ]
}

/// The three paired deltas, in points.
pub(crate) fn delta_rows(summary: &EvalSummary) -> Vec<Vec<String>> {
    deltas(summary)
        .into_iter()
        .map(|(name, comparison, interval)| {
            let (point, bounds) = interval.map_or((MISSING.to_owned(), MISSING.to_owned()), |i| {
                (signed(i.point * 100.0), points_bracket(i))
            });
            vec![name.to_owned(), comparison.to_owned(), point, bounds]
        })
        .collect()
}

/// (name, comparison, interval) of Δ, ΔLength and ΔContent, then Δ at the first attempt
/// when cells ran more than one.
pub(crate) fn deltas(
    summary: &EvalSummary,
) -> Vec<(&'static str, &'static str, Option<&Interval>)> {
    let mut rows = vec![
        ("Δ", "C1 − C0", summary.delta.as_ref()),
        ("ΔLength", "C2 − C0", summary.delta_length.as_ref()),
        ("ΔContent", "C1 − C2", summary.delta_content.as_ref()),
    ];
    if let Some(first) = summary.delta_pass1.as_ref() {
        rows.push(("Δ Pass@1", "C1 − C0, first attempt", Some(first)));
    }
    if let Some(aa) = summary.aa.as_ref() {
        rows.push(("A/A", "C0b − C0", Some(&aa.difference)));
    }
    rows
}

/// One row per task and network setting of its phases.
pub(crate) fn network_rows(environment: &EnvironmentSummary) -> Vec<Vec<String>> {
    let word = |on: bool| if on { "yes" } else { "no" };
    environment
        .network
        .iter()
        .map(|row| {
            vec![
                row.task.clone(),
                word(row.agent).to_owned(),
                row.verifier.map_or("did not run", word).to_owned(),
                conditions_list(&row.conditions),
                row.cells.to_string(),
                row.attempts.to_string(),
            ]
        })
        .collect()
}

/// `task-01: /root/.claude/skills/pdf, /root/.claude/skills/xlsx (C0, C1, C2; 9 cells)`.
pub(crate) fn skills_removed_lines(environment: &EnvironmentSummary) -> Vec<String> {
    environment
        .skills_removed
        .iter()
        .map(|row| {
            format!(
                "{}: {} ({}; {} {})",
                row.task,
                row.skills.join(", "),
                conditions_list(&row.conditions),
                row.cells,
                if row.cells == 1 { "cell" } else { "cells" }
            )
        })
        .collect()
}

/// `task-01: 10240 MB, the engine's storage driver ... (C0, C1, C2; 9 cells)`.
pub(crate) fn storage_lines(environment: &EnvironmentSummary) -> Vec<String> {
    environment
        .storage_not_enforced
        .iter()
        .map(|row| {
            format!(
                "{}: {} MB, {} ({}; {} {})",
                row.task,
                row.limit_mb,
                row.reason,
                conditions_list(&row.conditions),
                row.cells,
                if row.cells == 1 { "cell" } else { "cells" }
            )
        })
        .collect()
}

fn conditions_list(conditions: &[Condition]) -> String {
    let names: Vec<String> = conditions.iter().map(|c| format!("{c:?}")).collect();
    names.join(", ")
}

/// `[+1.7, +15.0]` in points.
pub(crate) fn points_bracket(interval: &Interval) -> String {
    format!(
        "[{}, {}]",
        signed(interval.lo * 100.0),
        signed(interval.hi * 100.0)
    )
}

/// What a condition is, in a few words.
pub(crate) fn condition_name(condition: Condition) -> &'static str {
    match condition {
        Condition::C0 => "no skill",
        Condition::C0b => "no skill, A/A",
        Condition::C1 => "skill",
        Condition::C2 => "length control",
        Condition::C3a => "no examples",
        Condition::C3b => "prohibitions only",
    }
}

pub(crate) fn decision_word(decision: Decision) -> &'static str {
    match decision {
        Decision::Inject => "inject",
        Decision::Skip => "skip",
    }
}

/// `no-benefit (MDE 7.1 pts at 80% power)`, or `inconclusive (no MDE: …)` when the design
/// cannot estimate one, when there was an evaluation.
pub(crate) fn evidence_line(verdict: &Verdict) -> Option<String> {
    let word = evidence_word(verdict.evidence?);
    Some(match verdict.mde_points {
        Some(Some(mde)) => format!("{word} (MDE {mde:.1} pts at 80% power)"),
        Some(None) => match verdict.undefined.get("mde_points") {
            Some(why) => format!("{word} (no MDE: {why})"),
            None => format!("{word} (no MDE)"),
        },
        None => word.to_owned(),
    })
}

/// `agent command (version not recorded), model m-1`, when the verdict names them.
pub(crate) fn measured_line(verdict: &Verdict) -> Option<String> {
    let agent = verdict.agent.as_deref()?;
    let version = match verdict.agent_version.as_ref() {
        Some(Some(v)) => v.clone(),
        _ => "version not recorded".to_owned(),
    };
    let model = model_label(verdict.model.as_deref().unwrap_or_default());
    Some(format!("agent {agent} ({version}), model {model}"))
}

/// Headers of the per-model table of a panel.
pub(crate) const MODEL_HEADERS: [&str; 7] = [
    "Model",
    "Agent",
    "Decision",
    "Evidence",
    "Δ (pts)",
    "Interval",
    "MDE (pts)",
];

/// One row per model of a panel.
pub(crate) fn model_rows(panel: &PanelVerdict) -> Vec<Vec<String>> {
    panel
        .verdicts
        .iter()
        .map(|v| {
            let delta = v.eval.as_ref().and_then(|e| e.delta);
            vec![
                model_label(v.model.as_deref().unwrap_or_default()).to_owned(),
                v.agent.clone().unwrap_or_else(|| MISSING.to_owned()),
                decision_word(v.decision).to_owned(),
                v.evidence.map_or(MISSING, evidence_word).to_owned(),
                delta.map_or_else(|| MISSING.to_owned(), |d| signed(d.point * 100.0)),
                delta.map_or_else(|| MISSING.to_owned(), |d| points_bracket(&d)),
                match v.mde_points {
                    Some(Some(m)) => format!("{m:.1}"),
                    _ => MISSING.to_owned(),
                },
            ]
        })
        .collect()
}

/// Headers of the transfer table.
pub(crate) const TRANSFER_HEADERS: [&str; 6] = [
    "Models",
    "Tasks",
    "Signs agree",
    "Spearman ρ",
    "ρ interval",
    "Decisions",
];

/// One row per pair of models.
pub(crate) fn transfer_rows(panel: &PanelVerdict) -> Vec<Vec<String>> {
    panel
        .transfer
        .iter()
        .map(|row| {
            let t = &row.figures;
            vec![
                format!("{} / {}", model_label(&t.a), model_label(&t.b)),
                t.tasks.to_string(),
                t.sign_agreement
                    .map_or_else(|| MISSING.to_owned(), |s| format!("{:.0}%", s * 100.0)),
                t.spearman
                    .map_or_else(|| MISSING.to_owned(), |r| signed_fixed(r, 2)),
                match (t.spearman_lo, t.spearman_hi) {
                    (Some(lo), Some(hi)) => {
                        format!("[{}, {}]", signed_fixed(lo, 2), signed_fixed(hi, 2))
                    }
                    _ => MISSING.to_owned(),
                },
                if row.decisions_agree {
                    "agree"
                } else {
                    "differ"
                }
                .to_owned(),
            ]
        })
        .collect()
}

/// The panel's decision line: `all: skip`, or one decision per model.
pub(crate) fn panel_line(panel: &PanelVerdict) -> String {
    let policy = match panel.panel {
        Panel::PerModel => "per-model",
        Panel::All => "all",
        Panel::Any => "any",
    };
    match panel.decision {
        Some(d) => format!("{} (panel: {policy})", decision_word(d)),
        None => {
            let each: Vec<String> = panel
                .verdicts
                .iter()
                .map(|v| {
                    format!(
                        "{} on {}",
                        decision_word(v.decision),
                        model_label(v.model.as_deref().unwrap_or_default())
                    )
                })
                .collect();
            format!("{} (panel: {policy})", each.join(", "))
        }
    }
}

/// One line per model of a panel: the model, the agent and its version, the decision, the
/// evidence and Δ with its interval, as the gate's check run and comment list them.
pub(crate) fn model_lines(panel: &PanelVerdict) -> Vec<String> {
    panel
        .verdicts
        .iter()
        .map(|v| {
            let mut line = model_label(v.model.as_deref().unwrap_or_default()).to_owned();
            if let Some(agent) = &v.agent {
                line.push_str(&format!(" ({agent}"));
                if let Some(Some(version)) = &v.agent_version {
                    line.push_str(&format!(" {version}"));
                }
                line.push(')');
            }
            line.push_str(&format!(": {}", decision_word(v.decision)));
            if let Some(evidence) = v.evidence {
                line.push_str(&format!(" · {}", evidence_word(evidence)));
            }
            if let Some(delta) = v.eval.as_ref().and_then(|e| e.delta) {
                line.push_str(&format!(
                    " · Δ {} pts {}",
                    signed(delta.point * 100.0),
                    points_bracket(&delta)
                ));
            }
            line
        })
        .collect()
}

/// The plain-text report of a run over several models: the panel, the models side by side,
/// the transfer table, then each model's own report.
pub fn panel_human(panel: &PanelVerdict) -> String {
    let mut out = format!("Decision: {}\n\n", panel_line(panel));
    out.push_str(&fixed_width(&MODEL_HEADERS, &model_rows(panel), 4));
    out.push('\n');
    out.push_str("Transfer\n");
    out.push_str(&fixed_width(&TRANSFER_HEADERS, &transfer_rows(panel), 1));
    out.push('\n');
    for reason in &panel.reasons {
        out.push_str(&format!("  - {reason}\n"));
    }
    for verdict in &panel.verdicts {
        out.push_str(&format!(
            "\n== {} ==\n",
            model_label(verdict.model.as_deref().unwrap_or_default())
        ));
        out.push_str(&human(verdict));
    }
    out
}

/// The markdown report of a run over several models.
pub fn panel_markdown(panel: &PanelVerdict) -> String {
    let mut out = format!(
        "### skillgate verdicts per model: {}\n\n",
        markdown_escape(&panel_line(panel))
    );
    out.push_str(&markdown_table(&MODEL_HEADERS, &model_rows(panel), 4));
    out.push_str("\n**Transfer**\n\n");
    out.push_str(&markdown_table(&TRANSFER_HEADERS, &transfer_rows(panel), 1));
    out.push('\n');
    for reason in &panel.reasons {
        out.push_str(&format!("- {}\n", markdown_escape(reason)));
    }
    for verdict in &panel.verdicts {
        out.push_str(&format!(
            "\n#### {}\n\n",
            markdown_escape(model_label(verdict.model.as_deref().unwrap_or_default()))
        ));
        out.push_str(&markdown(verdict));
    }
    out
}

/// The evidence as the JSON contract spells it.
pub(crate) fn evidence_word(evidence: Evidence) -> &'static str {
    match evidence {
        Evidence::Benefit => "benefit",
        Evidence::Harm => "harm",
        Evidence::NoBenefit => "no-benefit",
        Evidence::Inconclusive => "inconclusive",
    }
}

pub(crate) fn basis_word(basis: Basis) -> &'static str {
    match basis {
        Basis::Static => "static",
        Basis::Eval => "eval",
    }
}

/// Columns padded to their widest cell (counted in characters); the first `text_columns`
/// columns are left aligned, the others right aligned like numbers.
pub(crate) fn fixed_width(headers: &[&str], rows: &[Vec<String>], text_columns: usize) -> String {
    let widths: Vec<usize> = (0..headers.len())
        .map(|col| {
            rows.iter()
                .map(|r| r[col].chars().count())
                .chain([headers[col].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(col, (cell, &width))| pad(cell, width, col < text_columns))
            .collect();
        format!("{}\n", padded.join("  ").trim_end())
    };
    let mut out = line(headers.to_vec());
    for row in rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    out
}

fn pad(cell: &str, width: usize, left: bool) -> String {
    let fill = " ".repeat(width.saturating_sub(cell.chars().count()));
    if left {
        format!("{cell}{fill}")
    } else {
        format!("{fill}{cell}")
    }
}

/// A markdown table; the first `text_columns` columns are left aligned, the rest right.
fn markdown_table(headers: &[&str], rows: &[Vec<String>], text_columns: usize) -> String {
    let row = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    let mut out = row(headers.iter().map(|h| markdown_escape(h)).collect());
    let rule = (0..headers.len())
        .map(|col| if col < text_columns { "---" } else { "--:" }.to_owned())
        .collect();
    out.push_str(&row(rule));
    for cells in rows {
        out.push_str(&row(cells.iter().map(|c| markdown_escape(c)).collect()));
    }
    out
}

/// Escapes what would break a table or be read as HTML by a markdown renderer.
fn markdown_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_cells_cannot_break_the_table_or_inject_html() {
        assert_eq!(markdown_escape("a|b <img>"), "a\\|b &lt;img&gt;");
    }
}

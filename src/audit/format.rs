//! Every audit format, fed by one [`Audit`]: a table for terminals, JSON and JSON lines for
//! machines (and `skillgate merge`), CSV for spreadsheets, markdown for step summaries, one
//! HTML page, and SARIF.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::set::SET_RULES;
use super::{Audit, html, render};
use crate::render::sarif::{self, ListedRule, Run};

/// Output formats of `skillgate audit` and `skillgate merge`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuditFormat {
    /// One line per skill, then the summary (the default).
    Table,
    /// One JSON document: the rows and the summary.
    Json,
    /// One JSON object per skill per line, then one line holding the summary.
    Jsonl,
    /// One CSV record per skill, with a header.
    Csv,
    /// A markdown table and the summary, for step summaries and pull request comments.
    Markdown,
    /// One self-contained HTML page: the skills, what blocks each, and every finding by
    /// severity, with a chart of the rules that fire most and filters.
    Html,
    /// SARIF 2.1.0: every finding of every skill, unreadable skills as notifications.
    Sarif,
}

/// Render `audit` in `format`; `rules_doc` is the URL of the rules' documentation, which
/// SARIF and HTML link each rule to (none when it is not known).
pub fn render(format: AuditFormat, audit: &Audit, rules_doc: Option<&str>) -> String {
    match format {
        AuditFormat::Table => render::table(audit),
        AuditFormat::Json => {
            let mut out = serde_json::to_string_pretty(audit).unwrap_or_default();
            out.push('\n');
            out
        }
        AuditFormat::Jsonl => render::jsonl(audit),
        AuditFormat::Csv => render::csv(audit),
        AuditFormat::Markdown => render::markdown(audit),
        AuditFormat::Html => html::render(audit, rules_doc),
        AuditFormat::Sarif => audit_sarif(audit, rules_doc),
    }
}

/// The SARIF of `audit` and `merge`, written through the one SARIF model: every finding of
/// every skill (set-level ones included, their rules listed after the per-skill ones),
/// unreadable skills as tool execution notifications, and the summary.
fn audit_sarif(audit: &Audit, rules_doc: Option<&str>) -> String {
    let listed: Vec<ListedRule> = SET_RULES
        .iter()
        .map(|&doc| ListedRule { doc, tag: "set" })
        .collect();
    let mut seen = HashMap::new();
    let results: Vec<Value> = audit
        .skills
        .iter()
        .flat_map(|r| &r.findings)
        .map(|f| sarif::result(f, None, &mut seen, &listed))
        .collect();
    let notifications: Vec<Value> = audit
        .skills
        .iter()
        .filter_map(|r| {
            let error = r.error.as_ref()?;
            Some(json!({
                "level": "error",
                "message": { "text": error },
                "locations": [{
                    "physicalLocation": { "artifactLocation": { "uri": sarif::uri(&r.path) } }
                }],
            }))
        })
        .collect();
    let run = Run {
        results,
        notifications: Some(notifications),
        properties: json!({ "summary": &audit.summary }),
        listed: &listed,
    };
    sarif::log(run, rules_doc)
}

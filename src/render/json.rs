//! The JSON contract (docs/json.md): one object per skill.

use serde::Serialize;

use super::{ProjectSummary, Report, Summary, display};
use crate::finding::Finding;
use crate::verdict::Verdict;

/// Version of the JSON contract.
pub const SCHEMA: u32 = 1;

#[derive(Serialize)]
struct Document<'a> {
    schema: u32,
    skill: &'a Summary,
    #[serde(skip_serializing_if = "Option::is_none")]
    project: Option<&'a ProjectSummary>,
    findings: Vec<JsonFinding<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<&'a Verdict>,
}

#[derive(Serialize)]
struct JsonFinding<'a> {
    code: &'a str,
    name: &'a str,
    severity: &'a str,
    message: &'a str,
    help: Option<&'a str>,
    path: String,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    related: Vec<JsonRelated<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<JsonFix<'a>>,
}

#[derive(Serialize)]
struct JsonFix<'a> {
    description: &'a str,
    safe: bool,
    edits: Vec<JsonEdit<'a>>,
}

#[derive(Serialize)]
struct JsonEdit<'a> {
    path: String,
    start: usize,
    end: usize,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    text: &'a str,
}

#[derive(Serialize)]
struct JsonRelated<'a> {
    path: String,
    line: u32,
    message: &'a str,
}

impl<'a> From<&'a Finding> for JsonFinding<'a> {
    fn from(f: &'a Finding) -> Self {
        let l = &f.location;
        JsonFinding {
            code: f.code,
            name: f.name,
            severity: f.severity.as_str(),
            message: &f.message,
            help: f.help.as_deref(),
            path: display(&l.path),
            line: l.line,
            column: l.column,
            end_line: l.end_line,
            end_column: l.end_column,
            related: f
                .related
                .iter()
                .map(|r| JsonRelated {
                    path: display(&r.location.path),
                    line: r.location.line,
                    message: &r.message,
                })
                .collect(),
            fix: f.fix.as_ref().map(|fx| JsonFix {
                description: &fx.description,
                safe: fx.safe,
                edits: fx
                    .edits
                    .iter()
                    .map(|e| JsonEdit {
                        path: display(&e.location.path),
                        start: e.location.span.start,
                        end: e.location.span.end,
                        line: e.location.line,
                        column: e.location.column,
                        end_line: e.location.end_line,
                        end_column: e.location.end_column,
                        text: &e.text,
                    })
                    .collect(),
            }),
        }
    }
}

/// One pretty JSON object for a single skill; one compact object per line for several.
pub(super) fn render(reports: &[Report<'_>]) -> String {
    let docs = reports.iter().map(|r| Document {
        schema: SCHEMA,
        skill: &r.summary,
        project: r.project.as_ref(),
        findings: r.findings.iter().map(JsonFinding::from).collect(),
        verdict: r.verdict.as_ref(),
    });
    let mut out = String::new();
    if reports.len() == 1 {
        for doc in docs {
            out.push_str(&serde_json::to_string_pretty(&doc).unwrap_or_default());
            out.push('\n');
        }
    } else {
        for doc in docs {
            out.push_str(&serde_json::to_string(&doc).unwrap_or_default());
            out.push('\n');
        }
    }
    out
}

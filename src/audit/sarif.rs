//! The audit as SARIF 2.1.0: every finding of every skill as a result, the set-level rules
//! beside the per-skill ones, and each unreadable skill as a tool execution notification.

use serde_json::{Value, json};

use super::Audit;
use super::row::FindingRecord;
use super::set::SET_RULES;
use crate::lint::RULES;
use crate::render::sarif::{help_uri, level, uri};

fn location(path: &str, line: u32, column: u32, end_line: u32, end_column: u32) -> Value {
    json!({
        "physicalLocation": {
            "artifactLocation": { "uri": uri(path) },
            "region": {
                "startLine": line.max(1),
                "startColumn": column.max(1),
                "endLine": end_line.max(line).max(1),
                "endColumn": end_column.max(1),
            }
        }
    })
}

/// Every rule a result may name: the per-skill rules, then the set-level ones.
fn rules(rules_doc: Option<&str>) -> Vec<Value> {
    let with_help = |mut rule: Value, code: &str| {
        if let Some(uri) = help_uri(rules_doc, code) {
            rule["helpUri"] = json!(uri);
        }
        rule
    };
    let per_skill = RULES.iter().map(|r| {
        let rule = json!({
            "id": r.code,
            "name": r.name,
            "shortDescription": { "text": r.summary },
            "fullDescription": { "text": r.what },
            "help": { "text": format!("{}\n\nWhy: {}", r.what, r.why) },
            "defaultConfiguration": { "level": level(r.severity) },
            "properties": { "tags": [r.family().as_str()] },
        });
        with_help(rule, r.code)
    });
    let set = SET_RULES.iter().map(|r| {
        let rule = json!({
            "id": r.code,
            "name": r.name,
            "shortDescription": { "text": r.summary },
            "help": { "text": format!("{}\n\nWhy: {}", r.what, r.why) },
            "defaultConfiguration": { "level": level(r.severity) },
            "properties": { "tags": ["set"] },
        });
        with_help(rule, r.code)
    });
    per_skill.chain(set).collect()
}

fn rule_index(code: &str) -> Option<usize> {
    RULES.iter().position(|r| r.code == code).or_else(|| {
        SET_RULES
            .iter()
            .position(|r| r.code == code)
            .map(|i| RULES.len() + i)
    })
}

fn result(f: &FindingRecord) -> Value {
    let mut message = f.message.clone();
    if let Some(help) = &f.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let mut result = json!({
        "ruleId": f.code,
        "level": level(f.severity),
        "message": { "text": message },
        "locations": [location(&f.path, f.line, f.column, f.end_line, f.end_column)],
    });
    if let Some(index) = rule_index(&f.code) {
        result["ruleIndex"] = json!(index);
    }
    if !f.related.is_empty() {
        result["relatedLocations"] = f
            .related
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut loc = location(&r.path, r.line, 1, r.line, 1);
                loc["id"] = json!(i);
                loc["message"] = json!({ "text": r.message });
                loc
            })
            .collect();
    }
    result
}

pub(super) fn render(audit: &Audit, rules_doc: Option<&str>) -> String {
    let results: Vec<Value> = audit
        .skills
        .iter()
        .flat_map(|r| &r.findings)
        .map(result)
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
                    "physicalLocation": { "artifactLocation": { "uri": uri(&r.path) } }
                }],
            }))
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "skillgate",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules(rules_doc),
                }
            },
            "invocations": [{
                "executionSuccessful": true,
                "toolExecutionNotifications": notifications,
            }],
            "columnKind": "unicodeCodePoints",
            "results": results,
            "properties": { "summary": &audit.summary },
        }]
    });
    let mut out = serde_json::to_string_pretty(&log).unwrap_or_default();
    out.push('\n');
    out
}

//! SARIF 2.1.0, as GitHub code scanning accepts it: every rule with id, name, help and (when
//! the rules' documentation URL is known) a `helpUri` to its section of docs/rules.md; results with physical
//! locations, regions and `partialFingerprints` that survive edits elsewhere in the file, and a
//! finding's fix as `fixes` with `artifactChanges` (GitHub rejects `fixes` without them).

use std::collections::HashMap;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{Report, display};
use crate::finding::{Finding, Fix, Location, Severity};
use crate::lint::RULES;

/// A severity as a SARIF result level.
pub(crate) fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A fix as a SARIF `fix`: one artifact change per file, one replacement per edit.
fn sarif_fix(fix: &Fix) -> Value {
    let mut files: Vec<(String, Vec<Value>)> = Vec::new();
    for edit in &fix.edits {
        let l = &edit.location;
        let replacement = json!({
            "deletedRegion": {
                "startLine": l.line,
                "startColumn": l.column,
                "endLine": l.end_line,
                "endColumn": l.end_column.max(1),
            },
            "insertedContent": { "text": edit.text },
        });
        let path = uri(&display(&l.path));
        match files.iter_mut().find(|(p, _)| *p == path) {
            Some((_, list)) => list.push(replacement),
            None => files.push((path, vec![replacement])),
        }
    }
    json!({
        "description": { "text": fix.description },
        "artifactChanges": files.into_iter().map(|(path, replacements)| json!({
            "artifactLocation": { "uri": path },
            "replacements": replacements,
        })).collect::<Vec<_>>(),
    })
}

fn physical(l: &Location) -> Value {
    json!({
        "physicalLocation": {
            "artifactLocation": { "uri": uri(&display(&l.path)) },
            "region": {
                "startLine": l.line,
                "startColumn": l.column,
                "endLine": l.end_line,
                "endColumn": l.end_column.max(1),
            }
        }
    })
}

/// A relative URI reference: forward slashes, with characters outside the URI grammar
/// percent-encoded.
pub(crate) fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(char::from(b))
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The rule's section of the rules' documentation at `rules_doc` (docs/rules.md, whose
/// headings are the codes, so GitHub's anchors are the codes in lower case).
pub(crate) fn help_uri(rules_doc: Option<&str>, code: &str) -> Option<String> {
    let doc = rules_doc?.trim();
    (!doc.is_empty()).then(|| format!("{doc}#{}", code.to_lowercase()))
}

/// A fingerprint of the finding's rule, file and message (not its line, so GitHub keeps
/// tracking it when lines above move), numbered when the same one occurs again.
fn fingerprint(f: &Finding, seen: &mut HashMap<String, usize>) -> String {
    let mut hash = Sha256::new();
    for part in [f.code, &display(&f.location.path), &f.message] {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    let hex: String = hash.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let n = seen.entry(hex.clone()).or_default();
    *n += 1;
    format!("{hex}:{n}")
}

fn rules(rules_doc: Option<&str>) -> Vec<Value> {
    RULES
        .iter()
        .map(|r| {
            let mut rule = json!({
                "id": r.code,
                "name": r.name,
                "shortDescription": { "text": r.summary },
                "fullDescription": { "text": r.what },
                "help": {
                    "text": format!("{}\n\nWhy: {}", r.what, r.why),
                    "markdown": format!("{}\n\n**Why:** {}\n\nRun `skillgate rule {}` for examples.", r.what, r.why, r.code),
                },
                "defaultConfiguration": { "level": level(r.severity) },
                "properties": { "tags": [r.family().as_str()] },
            });
            if let Some(uri) = help_uri(rules_doc, r.code) {
                rule["helpUri"] = json!(uri);
            }
            rule
        })
        .collect()
}

pub(super) fn render(reports: &[Report<'_>], rules_doc: Option<&str>) -> String {
    let mut seen = HashMap::new();
    let results: Vec<Value> = reports
        .iter()
        .flat_map(|r| &r.findings)
        .map(|f| {
            let mut message = f.message.clone();
            if let Some(help) = &f.help {
                message.push_str("\nhelp: ");
                message.push_str(help);
            }
            let mut result = json!({
                "ruleId": f.code,
                "ruleIndex": RULES.iter().position(|r| r.code == f.code).unwrap_or(0),
                "level": level(f.severity),
                "message": { "text": message },
                "locations": [physical(&f.location)],
                "partialFingerprints": { "skillgateFinding/v1": fingerprint(f, &mut seen) },
            });
            if let Some(fix) = &f.fix {
                result["fixes"] = json!([sarif_fix(fix)]);
            }
            if !f.related.is_empty() {
                result["relatedLocations"] = f
                    .related
                    .iter()
                    .enumerate()
                    .map(|(i, rel)| {
                        let mut loc = physical(&rel.location);
                        loc["id"] = json!(i);
                        loc["message"] = json!({ "text": rel.message });
                        loc
                    })
                    .collect();
            }
            result
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
            "columnKind": "unicodeCodePoints",
            "results": results,
            "properties": {
                "verdicts": reports.iter().filter_map(|r| {
                    let v = r.verdict.as_ref()?;
                    Some(json!({ "skill": r.summary.path, "verdict": v }))
                }).collect::<Vec<_>>(),
            },
        }]
    });
    let mut out = serde_json::to_string_pretty(&log).unwrap_or_default();
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_uris_point_at_the_rules_section() {
        assert_eq!(
            help_uri(
                Some("https://github.com/owner/skillgate/blob/v1.2.0/docs/rules.md"),
                "SG201"
            )
            .as_deref(),
            Some("https://github.com/owner/skillgate/blob/v1.2.0/docs/rules.md#sg201")
        );
        assert_eq!(help_uri(Some(" "), "SG201"), None);
        assert_eq!(help_uri(None, "SG201"), None);
    }
}

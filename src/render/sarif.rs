//! SARIF 2.1.0, as GitHub code scanning accepts it, for every command that writes it (`check`,
//! `gate` and `audit`): one model of a log, fed by findings as the JSON contract records them.
//!
//! Every rule with id, name, help and (when the rules' documentation URL is known) a `helpUri`
//! to its section of docs/rules.md; results with physical locations, regions and
//! `partialFingerprints` that survive edits elsewhere in the file, and a finding's fix as
//! `fixes` with `artifactChanges` (GitHub rejects `fixes` without them). An audit builds its
//! own [`Run`] (its set-level rules listed after the per-skill ones, its unreadable skills as
//! tool execution notifications, its summary) and writes it through [`log`].

use std::collections::HashMap;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::json::{FindingRecord, FixRecord};
use super::{Report, display};
use crate::finding::Severity;
use crate::lint::load::UNLOADABLE_SKILL;
use crate::lint::{RULES, RuleDoc};

/// A severity as a SARIF result level.
pub(crate) fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A place in a file: its path as shown to the user and its region, 1-based.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Region<'a> {
    path: &'a str,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
}

impl Region<'_> {
    fn physical(&self) -> Value {
        json!({
            "physicalLocation": {
                "artifactLocation": { "uri": uri(self.path) },
                "region": {
                    "startLine": self.line.max(1),
                    "startColumn": self.column.max(1),
                    "endLine": self.end_line.max(self.line).max(1),
                    "endColumn": self.end_column.max(1),
                }
            }
        })
    }
}

/// A fix as a SARIF `fix`: one artifact change per file, one replacement per edit.
fn sarif_fix(fix: &FixRecord) -> Value {
    let mut files: Vec<(String, Vec<Value>)> = Vec::new();
    for edit in &fix.edits {
        let replacement = json!({
            "deletedRegion": {
                "startLine": edit.line,
                "startColumn": edit.column,
                "endLine": edit.end_line,
                "endColumn": edit.end_column.max(1),
            },
            "insertedContent": { "text": edit.text },
        });
        let path = uri(&edit.path);
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
fn fingerprint(f: &FindingRecord, seen: &mut HashMap<String, usize>) -> String {
    let mut hash = Sha256::new();
    for part in [&f.code, &f.path, &f.message] {
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

/// A rule a run lists after the per-skill ones (the audit's set-level rules), described as
/// every rule is.
pub(crate) struct ListedRule {
    /// The rule's documentation.
    pub doc: &'static RuleDoc,
    /// The rule's family tag.
    pub tag: &'static str,
}

/// Every rule a result may name: the per-skill rules, then the run's `listed` ones.
fn rules(rules_doc: Option<&str>, listed: &[ListedRule]) -> Vec<Value> {
    let rule = |doc: &RuleDoc, tag: &str| {
        let RuleDoc {
            code,
            name,
            summary,
            what,
            why,
            severity,
            ..
        } = *doc;
        let mut rule = json!({
            "id": code,
            "name": name,
            "shortDescription": { "text": summary },
            "fullDescription": { "text": what },
            "help": {
                "text": format!("{what}\n\nWhy: {why}"),
                "markdown": format!("{what}\n\n**Why:** {why}\n\nRun `skillgate rule {code}` for examples."),
            },
            "defaultConfiguration": { "level": level(severity) },
            "properties": { "tags": [tag] },
        });
        if let Some(uri) = help_uri(rules_doc, code) {
            rule["helpUri"] = json!(uri);
        }
        rule
    };
    let per_skill = RULES.iter().map(|r| rule(&r.doc, r.family().as_str()));
    let loader = std::iter::once(rule(
        &UNLOADABLE_SKILL,
        crate::lint::Family::of(UNLOADABLE_SKILL.code).as_str(),
    ));
    let listed = listed.iter().map(|r| rule(r.doc, r.tag));
    per_skill.chain(loader).chain(listed).collect()
}

/// The per-skill rules listed first: those of the registry, then the loader's (SG509).
const PER_SKILL: usize = RULES.len() + 1;

/// The index of `code` in [`rules`] with the run's `listed` rules.
fn rule_index(code: &str, listed: &[ListedRule]) -> Option<usize> {
    RULES
        .iter()
        .position(|r| r.doc.code == code)
        .or_else(|| (code == UNLOADABLE_SKILL.code).then_some(RULES.len()))
        .or_else(|| {
            listed
                .iter()
                .position(|r| r.doc.code == code)
                .map(|i| PER_SKILL + i)
        })
}

/// One result. `related` are the regions of the finding's related places when the caller
/// knows them whole; otherwise the record's lines are used.
pub(crate) fn result(
    f: &FindingRecord,
    related: Option<Vec<Region<'_>>>,
    seen: &mut HashMap<String, usize>,
    listed: &[ListedRule],
) -> Value {
    let mut message = f.message.clone();
    if let Some(help) = &f.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let place = Region {
        path: &f.path,
        line: f.line,
        column: f.column,
        end_line: f.end_line,
        end_column: f.end_column,
    };
    let mut result = json!({
        "ruleId": f.code,
        "level": level(f.severity),
        "message": { "text": message },
        "locations": [place.physical()],
        "partialFingerprints": { "skillgateFinding/v1": fingerprint(f, seen) },
    });
    if let Some(index) = rule_index(&f.code, listed) {
        result["ruleIndex"] = json!(index);
    }
    if let Some(fix) = &f.fix {
        result["fixes"] = json!([sarif_fix(fix)]);
    }
    if !f.related.is_empty() {
        let regions = related.unwrap_or_else(|| {
            f.related
                .iter()
                .map(|r| Region {
                    path: &r.path,
                    line: r.line,
                    column: 1,
                    end_line: r.line,
                    end_column: 1,
                })
                .collect()
        });
        result["relatedLocations"] = regions
            .iter()
            .zip(&f.related)
            .enumerate()
            .map(|(i, (region, r))| {
                let mut loc = region.physical();
                loc["id"] = json!(i);
                loc["message"] = json!({ "text": r.message });
                loc
            })
            .collect();
    }
    result
}

/// What one SARIF run holds besides the per-skill rules.
pub(crate) struct Run<'r> {
    pub results: Vec<Value>,
    /// Tool execution notifications, when the command has any to report.
    pub notifications: Option<Vec<Value>>,
    pub properties: Value,
    /// Rules listed after the per-skill ones, which results may name too.
    pub listed: &'r [ListedRule],
}

/// The log of one run, with every rule its results may name.
pub(crate) fn log(run: Run<'_>, rules_doc: Option<&str>) -> String {
    let mut body = json!({
        "tool": {
            "driver": {
                "name": "skillgate",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules(rules_doc, run.listed),
            }
        },
    });
    if let Some(notifications) = run.notifications {
        body["invocations"] = json!([{
            "executionSuccessful": true,
            "toolExecutionNotifications": notifications,
        }]);
    }
    body["columnKind"] = json!("unicodeCodePoints");
    body["results"] = json!(run.results);
    body["properties"] = run.properties;
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [body],
    });
    let mut out = serde_json::to_string_pretty(&log).unwrap_or_default();
    out.push('\n');
    out
}

/// The SARIF of `check` and `gate`: every finding of every report, and the verdicts.
pub(super) fn render(reports: &[Report<'_>], rules_doc: Option<&str>) -> String {
    let mut seen = HashMap::new();
    let results: Vec<Value> = reports
        .iter()
        .flat_map(|r| &r.findings)
        .map(|f| {
            let record = FindingRecord::from(f);
            let paths: Vec<String> = f
                .related
                .iter()
                .map(|r| display(&r.location.path))
                .collect();
            let related = f
                .related
                .iter()
                .zip(&paths)
                .map(|(r, path)| Region {
                    path,
                    line: r.location.line,
                    column: r.location.column,
                    end_line: r.location.end_line,
                    end_column: r.location.end_column,
                })
                .collect();
            result(&record, Some(related), &mut seen, &[])
        })
        .collect();
    let verdicts: Vec<Value> = reports
        .iter()
        .filter_map(|r| match (&r.verdict, &r.panel) {
            (Some(v), _) => Some(json!({ "skill": r.summary.path, "verdict": v })),
            (None, Some(panel)) => Some(json!({ "skill": r.summary.path, "verdicts": panel })),
            (None, None) => None,
        })
        .collect();
    let run = Run {
        results,
        notifications: None,
        properties: json!({ "verdicts": verdicts }),
        listed: &[],
    };
    log(run, rules_doc)
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

    #[test]
    fn listed_rules_follow_the_per_skill_ones() {
        const LISTED: RuleDoc = RuleDoc {
            code: "SG799",
            name: "listed",
            severity: Severity::Warning,
            summary: "s",
            what: "w",
            why: "y",
            fires: "",
            passes: "",
        };
        let listed = [ListedRule {
            doc: &LISTED,
            tag: "set",
        }];
        let all = rules(None, &listed);
        assert_eq!(all.len(), PER_SKILL + 1);
        for (i, rule) in all.iter().enumerate() {
            assert_eq!(
                rule_index(rule["id"].as_str().unwrap_or(""), &listed),
                Some(i)
            );
        }
        assert_eq!(rules(None, &[]).len(), PER_SKILL);
        assert_eq!(rule_index("SG509", &[]), Some(RULES.len()));
        assert_eq!(rule_index("SG799", &[]), None);
    }
}

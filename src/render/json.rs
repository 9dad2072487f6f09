//! The JSON contract (docs/json.md): one object per skill.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{ProjectSummary, Report, Summary, display};
use crate::finding::{Edit, Finding, Fix, Location, Related, Severity};
use crate::verdict::{PanelVerdict, Verdict};

/// Version of the JSON contract.
pub const SCHEMA: u32 = 1;

#[derive(Serialize)]
struct Document<'a> {
    schema: u32,
    skill: &'a Summary,
    #[serde(skip_serializing_if = "Option::is_none")]
    project: Option<&'a ProjectSummary>,
    findings: Vec<FindingRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<&'a Verdict>,
    /// An evaluation over several models: the panel, as `report` writes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    verdicts: Option<&'a PanelVerdict>,
}

/// One finding as the JSON contract writes it, and as `report` reads it back from a run's
/// `check.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingRecord {
    /// Rule code, e.g. `SG201`.
    pub code: String,
    /// Rule name, e.g. `body-too-many-tokens`.
    pub name: String,
    /// Effective severity.
    pub severity: Severity,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub help: Option<String>,
    /// The file, as shown to the user.
    pub path: String,
    /// First line, 1-based.
    pub line: u32,
    /// First column, 1-based.
    pub column: u32,
    /// Last line, 1-based, inclusive.
    pub end_line: u32,
    /// Column just past the end, 1-based.
    pub end_column: u32,
    /// Other places that explain it.
    pub related: Vec<RelatedRecord>,
    /// Edits that resolve it, when the rule knows them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<FixRecord>,
}

/// A finding's fix as the contract writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FixRecord {
    /// What the fix does, in one line.
    pub description: String,
    /// Whether `--fix` applies it without `--unsafe-fixes`.
    pub safe: bool,
    /// The edits.
    pub edits: Vec<EditRecord>,
}

/// One edit of a [`FixRecord`]: the text at `start..end` (bytes) of `path` becomes `text`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EditRecord {
    /// The file, as shown to the user.
    pub path: String,
    /// First byte replaced.
    pub start: usize,
    /// Byte just past the replaced text (equal to `start` for an insertion).
    pub end: usize,
    /// First line, 1-based.
    pub line: u32,
    /// First column, 1-based.
    pub column: u32,
    /// Last line, 1-based.
    pub end_line: u32,
    /// Column just past the end, 1-based.
    pub end_column: u32,
    /// The replacement.
    pub text: String,
}

/// A related place of a [`FindingRecord`]: the contract keeps its line only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelatedRecord {
    /// The file, as shown to the user.
    pub path: String,
    /// Line, 1-based.
    pub line: u32,
    /// Why this place matters.
    pub message: String,
}

impl From<&Finding> for FindingRecord {
    fn from(f: &Finding) -> Self {
        let l = &f.location;
        FindingRecord {
            code: f.code.to_owned(),
            name: f.name.to_owned(),
            severity: f.severity,
            message: f.message.clone(),
            help: f.help.clone(),
            path: display(&l.path),
            line: l.line,
            column: l.column,
            end_line: l.end_line,
            end_column: l.end_column,
            related: f
                .related
                .iter()
                .map(|r| RelatedRecord {
                    path: display(&r.location.path),
                    line: r.location.line,
                    message: r.message.clone(),
                })
                .collect(),
            fix: f.fix.as_ref().map(|fx| FixRecord {
                description: fx.description.clone(),
                safe: fx.safe,
                edits: fx
                    .edits
                    .iter()
                    .map(|e| EditRecord {
                        path: display(&e.location.path),
                        start: e.location.span.start,
                        end: e.location.span.end,
                        line: e.location.line,
                        column: e.location.column,
                        end_line: e.location.end_line,
                        end_column: e.location.end_column,
                        text: e.text.clone(),
                    })
                    .collect(),
            }),
        }
    }
}

impl FindingRecord {
    /// The finding again, when its code names a rule this version knows (`None` otherwise).
    /// Byte spans are not part of the contract, and a related place keeps its line only.
    pub fn to_finding(&self) -> Option<Finding> {
        let rule = crate::lint::rule(&self.code)?;
        let place = |path: &str, line, column, end_line, end_column| Location {
            path: PathBuf::from(path),
            line,
            column,
            end_line,
            end_column,
            span: 0..0,
        };
        Some(Finding {
            code: rule.doc.code,
            name: rule.doc.name,
            severity: self.severity,
            message: self.message.clone(),
            help: self.help.clone(),
            location: place(
                &self.path,
                self.line,
                self.column,
                self.end_line,
                self.end_column,
            ),
            related: self
                .related
                .iter()
                .map(|r| Related {
                    location: place(&r.path, r.line, 1, r.line, 1),
                    message: r.message.clone(),
                })
                .collect(),
            fix: self.fix.as_ref().map(|fx| Fix {
                description: fx.description.clone(),
                safe: fx.safe,
                edits: fx
                    .edits
                    .iter()
                    .map(|e| Edit {
                        location: Location {
                            span: e.start..e.end,
                            ..place(&e.path, e.line, e.column, e.end_line, e.end_column)
                        },
                        text: e.text.clone(),
                    })
                    .collect(),
            }),
        })
    }
}

/// What `report` reads back from a check document: the skill's name and the findings.
#[derive(Debug, Clone, Deserialize)]
pub struct CheckRecord {
    /// The skill's facts; only its name is read back.
    #[serde(default)]
    pub skill: SkillRecord,
    /// The findings.
    #[serde(default)]
    pub findings: Vec<FindingRecord>,
}

/// The part of a check document's `skill` object read back.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct SkillRecord {
    /// `name` from the frontmatter.
    pub name: Option<String>,
}

/// One pretty JSON object for a single skill; one compact object per line for several.
pub(super) fn render(reports: &[Report<'_>]) -> String {
    let docs = reports.iter().map(|r| Document {
        schema: SCHEMA,
        skill: &r.summary,
        project: r.project.as_ref(),
        findings: r.findings.iter().map(FindingRecord::from).collect(),
        verdict: r.verdict.as_ref(),
        verdicts: r.panel.as_ref(),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn place(path: &str, line: u32, column: u32, end_line: u32, end_column: u32) -> Location {
        Location {
            path: PathBuf::from(path),
            line,
            column,
            end_line,
            end_column,
            span: 0..0,
        }
    }

    #[test]
    fn a_finding_reads_back_from_the_contract_as_written() {
        let rule = crate::lint::rule("SG201").expect("SG201 is a rule");
        let finding = Finding {
            code: rule.doc.code,
            name: rule.doc.name,
            severity: Severity::Error,
            message: "the body has 6,000 tokens".into(),
            help: Some("move detail into references/".into()),
            location: place("s/SKILL.md", 3, 1, 9, 4),
            related: vec![Related {
                location: place("package.json", 7, 1, 7, 1),
                message: "declared here".into(),
            }],
            fix: Some(Fix {
                description: "close the code fence".into(),
                safe: true,
                edits: vec![Edit {
                    location: Location {
                        span: 40..40,
                        ..place("s/SKILL.md", 9, 1, 9, 1)
                    },
                    text: "```\n".into(),
                }],
            }),
        };
        let text = serde_json::to_string(&FindingRecord::from(&finding)).unwrap();
        let record: FindingRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(record, FindingRecord::from(&finding));
        assert_eq!(record.to_finding(), Some(finding));
    }

    #[test]
    fn a_check_document_reads_back_with_unknown_codes_dropped() {
        let text = r#"{"schema":1,"skill":{"name":"demo","tokens":3},"findings":[
            {"code":"SG999","name":"gone","severity":"info","message":"m","help":null,
             "path":"SKILL.md","line":1,"column":1,"end_line":1,"end_column":2,"related":[]}]}"#;
        let check: CheckRecord = serde_json::from_str(text).unwrap();
        assert_eq!(check.skill.name.as_deref(), Some("demo"));
        assert_eq!(check.findings.len(), 1);
        assert_eq!(check.findings[0].to_finding(), None);
        assert!(serde_json::from_str::<CheckRecord>(r#"{"findings":[{"code":1}]}"#).is_err());
    }
}

//! The rule engine: the registry of rules, selection, severities, suppressions and baselines.
//!
//! A rule is plain data beside its documentation plus a pure `check` function over the
//! parsed [`Skill`]. One list, [`RULES`], registers them all; the CLI, the docs and the tests
//! read that list.

pub mod baseline;
pub mod example;
pub mod fit;
pub mod fix;
pub mod load;
mod rules;
pub mod settings;
pub mod suppress;

use std::cell::OnceCell;
use std::ops::Range;

use serde::{Deserialize, Deserializer};

use crate::claims::Analysis;
use crate::finding::{Edit, Finding, Fix, Location, Related, Severity};
use crate::project::Project;
use crate::skill::references::References;
use crate::skill::{Skill, SourceFile};

pub use fit::{Fit, StackFit};
pub use settings::{FrontmatterPolicy, Limits, Selection, Settings, code_matches};

pub use rules::{ApiHit, ApiMatcher, PatternError, RULES, snippet_fires};

/// A rule family, by the hundreds digit of its code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// SG0xx: the engine itself (suppressions).
    Engine,
    /// SG1xx: the specification and the frontmatter.
    Spec,
    /// SG2xx: size and cost.
    Size,
    /// SG3xx: content.
    Content,
    /// SG4xx: fit with the project.
    Project,
    /// SG5xx: structure of the skill folder.
    Structure,
    /// SG6xx: security.
    Security,
}

impl Family {
    /// The family of a rule code such as `SG201`.
    pub fn of(code: &str) -> Family {
        match code.as_bytes().get(2) {
            Some(b'1') => Family::Spec,
            Some(b'2') => Family::Size,
            Some(b'3') => Family::Content,
            Some(b'4') => Family::Project,
            Some(b'5') => Family::Structure,
            Some(b'6') => Family::Security,
            _ => Family::Engine,
        }
    }

    /// Human name of the family.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Engine => "engine",
            Family::Spec => "spec",
            Family::Size => "size",
            Family::Content => "content",
            Family::Project => "project",
            Family::Structure => "structure",
            Family::Security => "security",
        }
    }
}

/// The documentation of a finding that no per-skill rule's check makes: the loader's (a skill
/// that cannot be read) and the audit's set-level rules (which compare skills).
#[derive(Debug, Clone, Copy)]
pub struct RuleDoc {
    /// Stable code.
    pub code: &'static str,
    /// Kebab-case name.
    pub name: &'static str,
    /// Severity.
    pub severity: Severity,
    /// One line: what it flags.
    pub summary: &'static str,
    /// What it checks, and what it leaves alone.
    pub what: &'static str,
    /// Why it matters.
    pub why: &'static str,
    /// An input it fires on, in the example notation ([`example`]); for a set-level rule a
    /// `@folder` line names the audited folder and each skill's files follow `==> path <==`.
    pub fires: &'static str,
    /// An input it passes.
    pub passes: &'static str,
}

/// A rule: its documentation and the check.
pub struct Rule {
    /// Code, name, severity and documentation, as `skillgate rule` prints them.
    pub doc: RuleDoc,
    /// The check: pure, reads the context, reports through the emitter.
    pub check: fn(&Context<'_>, &mut Emitter),
}

impl Rule {
    /// The rule's family.
    pub fn family(&self) -> Family {
        Family::of(self.doc.code)
    }
}

impl std::fmt::Debug for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rule")
            .field("code", &self.doc.code)
            .field("name", &self.doc.name)
            .finish()
    }
}

/// Look a rule up by code (`SG201`) or name (`body-too-long`), case-insensitively.
pub fn rule(key: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .find(|r| r.doc.code.eq_ignore_ascii_case(key) || r.doc.name.eq_ignore_ascii_case(key))
}

/// A finding read back in its own serde shape: its code must name a rule of this version,
/// whose code and name it points at again (the byte span is not serialised).
impl<'de> Deserialize<'de> for Finding {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Written {
            code: String,
            severity: Severity,
            message: String,
            help: Option<String>,
            location: Location,
            related: Vec<Related>,
            #[serde(default)]
            fix: Option<Fix>,
        }
        let written = Written::deserialize(deserializer)?;
        let rule = rule(&written.code).ok_or_else(|| {
            serde::de::Error::custom(format!("no rule {:?} in this version", written.code))
        })?;
        Ok(Finding {
            code: rule.doc.code,
            name: rule.doc.name,
            severity: written.severity,
            message: written.message,
            help: written.help,
            location: written.location,
            related: written.related,
            fix: written.fix,
        })
    }
}

/// What a rule may read.
pub struct Context<'a> {
    /// The skill under review.
    pub skill: &'a Skill,
    /// The lint settings in force.
    pub settings: &'a Settings,
    /// The repository the skill is checked against, when one was scanned; the SG4xx rules
    /// stay silent without it.
    pub project: Option<&'a Project>,
    analysis: OnceCell<Analysis>,
    references: OnceCell<References>,
    security: OnceCell<rules::security::Scan<'a>>,
}

impl<'a> Context<'a> {
    /// A context for one skill.
    pub fn new(skill: &'a Skill, settings: &'a Settings, project: Option<&'a Project>) -> Self {
        Context {
            skill,
            settings,
            project,
            analysis: OnceCell::new(),
            references: OnceCell::new(),
            security: OnceCell::new(),
        }
    }

    /// The skill's code facts and claims, read on first use and shared by every rule.
    pub fn analysis(&self) -> &Analysis {
        self.analysis
            .get_or_init(|| Analysis::of(self.skill, self.references()))
    }

    /// Every path the skill mentions, resolved once and shared by the structure rules.
    pub fn references(&self) -> &References {
        self.references.get_or_init(|| {
            References::of(
                self.skill,
                &self.settings.placeholders(),
                self.project.map(|p| p.root.as_path()),
            )
        })
    }
}

/// Collects the findings of one rule.
pub struct Emitter {
    rule: &'static Rule,
    findings: Vec<Finding>,
}

impl Emitter {
    fn new(rule: &'static Rule) -> Self {
        Emitter {
            rule,
            findings: Vec::new(),
        }
    }

    /// Report a finding at `span` of `file`; set `help` and `related` on the returned value.
    pub fn report(
        &mut self,
        file: &SourceFile,
        span: Range<usize>,
        message: impl Into<String>,
    ) -> &mut Finding {
        self.report_at(file.location(span), message)
    }

    /// The finding reported last, to add help or a fix after the fact.
    pub fn last(&mut self) -> Option<&mut Finding> {
        self.findings.last_mut()
    }

    /// Report a finding at a place outside the skill (a manifest of the project).
    pub fn report_at(&mut self, location: Location, message: impl Into<String>) -> &mut Finding {
        self.findings.push(Finding {
            code: self.rule.doc.code,
            name: self.rule.doc.name,
            severity: self.rule.doc.severity,
            message: message.into(),
            help: None,
            location,
            related: Vec::new(),
            fix: None,
        });
        let last = self.findings.len() - 1;
        &mut self.findings[last]
    }
}

impl Finding {
    /// Set the help text.
    pub fn help(&mut self, help: impl Into<String>) -> &mut Finding {
        self.help = Some(help.into());
        self
    }

    /// Set the severity, for rules whose findings differ in weight (a removal against a
    /// deprecation); configured severities still win.
    pub fn severity(&mut self, severity: Severity) -> &mut Finding {
        self.severity = severity;
        self
    }

    /// Attach a fix: `edits` are (span, replacement) pairs in `file`. `safe` fixes keep the
    /// skill's meaning and are applied by `--fix`; others need `--unsafe-fixes`.
    pub fn fix(
        &mut self,
        file: &SourceFile,
        description: impl Into<String>,
        safe: bool,
        edits: Vec<(Range<usize>, String)>,
    ) -> &mut Finding {
        self.fix = Some(Fix {
            description: description.into(),
            safe,
            edits: edits
                .into_iter()
                .map(|(span, text)| Edit {
                    location: file.location(span),
                    text,
                })
                .collect(),
        });
        self
    }

    /// Add a related location outside the skill.
    pub fn related_at(&mut self, location: Location, message: impl Into<String>) -> &mut Finding {
        self.related.push(Related {
            location,
            message: message.into(),
        });
        self
    }

    /// Add a related location.
    pub fn related(
        &mut self,
        file: &SourceFile,
        span: Range<usize>,
        message: impl Into<String>,
    ) -> &mut Finding {
        self.related.push(Related {
            location: file.location(span),
            message: message.into(),
        });
        self
    }
}

/// The outcome of checking one skill.
#[derive(Debug)]
pub struct Review {
    /// The findings, sorted by place.
    pub findings: Vec<Finding>,
    /// How the skill's stack fits the project's, when a project was scanned.
    pub fit: Option<StackFit>,
}

/// Run every selected rule over `skill`, apply configured severities and inline
/// suppressions, and return the findings sorted by place.
pub fn check(skill: &Skill, settings: &Settings, project: Option<&Project>) -> Vec<Finding> {
    review(skill, settings, project).findings
}

/// [`check`], plus the stack fit computed from the same reading of the skill.
pub fn review(skill: &Skill, settings: &Settings, project: Option<&Project>) -> Review {
    let cx = Context::new(skill, settings, project);
    let findings = run_rules(&cx);
    let fit = project.map(|project| fit::stack_fit(cx.analysis(), project));
    Review { findings, fit }
}

fn run_rules(cx: &Context<'_>) -> Vec<Finding> {
    let (skill, settings) = (cx.skill, cx.settings);
    let mut findings = Vec::new();
    for rule in RULES
        .iter()
        .filter(|r| settings.selection.enabled(r.doc.code))
    {
        let mut emitter = Emitter::new(rule);
        (rule.check)(cx, &mut emitter);
        findings.append(&mut emitter.findings);
    }
    for finding in &mut findings {
        if let Some(&severity) = settings.severity.get(finding.code) {
            finding.severity = severity;
        }
    }
    let mut findings = suppress::apply(skill, findings);
    findings.sort_by(|a, b| {
        (&a.location.path, a.location.line, a.location.column, a.code).cmp(&(
            &b.location.path,
            b.location.line,
            b.location.column,
            b.code,
        ))
    });
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_reads_back_as_written() {
        let place = |path: &str, line| Location {
            path: path.into(),
            line,
            column: 2,
            end_line: line + 1,
            end_column: 5,
            span: 0..0,
        };
        let sg201 = rule("SG201").expect("SG201 is a rule");
        let finding = Finding {
            code: sg201.doc.code,
            name: sg201.doc.name,
            severity: Severity::Warning,
            message: "the body has 6,000 tokens".into(),
            help: Some("move detail into references/".into()),
            location: place("s/SKILL.md", 3),
            related: vec![Related {
                location: place("package.json", 7),
                message: "declared here".into(),
            }],
            fix: Some(Fix {
                description: "close the code fence".into(),
                safe: true,
                edits: vec![Edit {
                    location: place("s/SKILL.md", 9),
                    text: "```\n".into(),
                }],
            }),
        };
        let text = serde_json::to_string(&finding).unwrap();
        assert_eq!(serde_json::from_str::<Finding>(&text).unwrap(), finding);
        let unknown = text.replace("SG201", "SG999");
        let error = serde_json::from_str::<Finding>(&unknown).unwrap_err();
        assert!(error.to_string().contains("no rule \"SG999\""), "{error}");
    }
}

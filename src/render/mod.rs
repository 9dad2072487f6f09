//! Every output format, fed by one [`Report`]. Renderers only format; they never re-derive
//! facts.

mod concise;
mod github;
pub mod html;
mod human;
pub mod json;
pub mod knowledge;
mod markdown;
pub(crate) mod sarif;
pub mod verdict_text;

use std::path::Path;

use serde::Serialize;

use crate::finding::{Finding, Severity};
use crate::lint::fit::StackFit;
use crate::project::{Ecosystem, Project, RuntimeKind};
use crate::skill::{Skill, SourceFile};
use crate::verdict::{Basis, Decision, PanelVerdict, Verdict};

/// Output formats of `skillgate check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Diagnostics with source lines, labels and help (the default).
    Human,
    /// One line per finding: `path:line:col: CODE message`.
    Concise,
    /// The stable JSON contract (docs/json.md).
    Json,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF consumers.
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// Markdown for step summaries and pull request comments.
    Markdown,
}

/// What the renderers show for one skill.
#[derive(Debug)]
pub struct Report<'a> {
    /// The skill, for its source text; none for a skill that could not be loaded, whose one
    /// finding says why.
    pub skill: Option<&'a Skill>,
    /// Facts about the skill, as shown in every format.
    pub summary: Summary,
    /// The findings that count, sorted.
    pub findings: Vec<Finding>,
    /// The inject-or-skip decision, when one was made on one model.
    pub verdict: Option<Verdict>,
    /// The verdicts of an evaluation over several models, one per model with the panel's
    /// decision; `verdict` is then none, as no single verdict speaks for every model.
    pub panel: Option<PanelVerdict>,
    /// The repository the skill was checked against, when one was scanned.
    pub project: Option<ProjectSummary>,
}

/// What the renderers show about the scanned repository and the skill's fit with it.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectSummary {
    /// The repository root as given.
    pub root: String,
    /// Package ecosystems with at least one dependency, sorted.
    pub ecosystems: Vec<&'static str>,
    /// Runtime versions and ranges the repository declares.
    pub runtimes: Vec<RuntimeSummary>,
    /// Package managers in use (`pnpm`, `uv`...), by lockfile and manifest fields.
    pub package_manager: Vec<String>,
    /// Test runners in use.
    pub test_runner: Vec<String>,
    /// Build tools in use.
    pub build_tool: Vec<String>,
    /// Number of dependency entries (declared and locked).
    pub dependency_count: usize,
    /// How the skill's stack fits the repository's.
    pub fit: StackFit,
}

/// One runtime entry of [`ProjectSummary`].
#[derive(Debug, Clone, Serialize)]
pub struct RuntimeSummary {
    /// `python`, `node`...
    pub name: String,
    /// `range` or `pin`.
    pub kind: RuntimeKind,
    /// The version or range as written.
    pub version: String,
    /// Where it is declared, `path:line` relative to the root.
    pub source: String,
}

impl ProjectSummary {
    /// Summarise a scanned project and the skill's fit with it.
    pub fn of(project: &Project, fit: StackFit) -> ProjectSummary {
        let names = |tools: &[crate::project::Tool]| tools.iter().map(|t| t.name.clone()).collect();
        ProjectSummary {
            root: display(&project.root),
            ecosystems: project
                .ecosystems()
                .into_iter()
                .map(Ecosystem::as_str)
                .collect(),
            runtimes: project
                .runtimes
                .iter()
                .map(|r| RuntimeSummary {
                    name: r.name.clone(),
                    kind: r.kind,
                    version: r.version.value.clone(),
                    source: format!("{}:{}", display(&r.version.path), r.version.line),
                })
                .collect(),
            package_manager: names(&project.tools.package_manager),
            test_runner: names(&project.tools.test_runner),
            build_tool: names(&project.tools.build_tool),
            dependency_count: project.dependencies.len(),
            fit,
        }
    }

    /// `project fixtures/repos/webapp · ecosystems: npm · package managers: pnpm · 5
    /// dependencies`: the repository, said once per run.
    pub fn header(&self) -> String {
        let mut parts = vec![format!("project {}", self.root)];
        if !self.ecosystems.is_empty() {
            parts.push(format!("ecosystems: {}", self.ecosystems.join(", ")));
        }
        if !self.package_manager.is_empty() {
            parts.push(format!(
                "package managers: {}",
                self.package_manager.join(", ")
            ));
        }
        parts.push(
            plural(self.dependency_count, "dependency").replace("dependencys", "dependencies"),
        );
        parts.join(" · ")
    }

    /// [`Self::header`] and the skill's fit, `· fit: core (...)`, for the text formats of
    /// one skill.
    pub fn line(&self) -> String {
        format!("{} · {}", self.header(), self.fit.summary())
    }
}

/// Size facts about a skill.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// The SKILL.md path as given.
    pub path: String,
    /// `name` from the frontmatter.
    pub name: Option<String>,
    /// o200k_base tokens of the body.
    pub tokens: usize,
    /// Lines of SKILL.md.
    pub lines: usize,
    /// Code-block tokens / body tokens.
    pub code_share: f64,
    /// Tokens per section.
    pub sections: Vec<SectionSummary>,
}

/// One row of the per-section token table.
#[derive(Debug, Clone, Serialize)]
pub struct SectionSummary {
    /// Heading text ("" for the preamble).
    pub title: String,
    /// Heading level, 0 for the preamble.
    pub level: u8,
    /// Line of the heading.
    pub line: u32,
    /// Tokens from this heading to the next.
    pub tokens: usize,
}

impl Summary {
    /// The summary of a skill that could not be loaded: its path, and nothing measured.
    pub fn unloaded(path: &Path) -> Summary {
        Summary {
            path: display(path),
            name: None,
            tokens: 0,
            lines: 0,
            code_share: 0.0,
            sections: Vec::new(),
        }
    }

    /// Summarise a parsed skill.
    pub fn of(skill: &Skill) -> Summary {
        let src = &skill.source;
        Summary {
            path: display(&src.path),
            name: skill.name().map(str::to_owned),
            tokens: skill.body.tokens,
            lines: src.line_count(),
            code_share: (skill.body.code_share() * 1000.0).round() / 1000.0,
            sections: skill
                .body
                .sections
                .iter()
                .map(|s| SectionSummary {
                    title: s.title.clone(),
                    level: s.level,
                    line: src.line_column(s.heading.start).0,
                    tokens: s.tokens,
                })
                .collect(),
        }
    }
}

impl<'a> Report<'a> {
    /// The one decision this report stands for: its verdict's, or the panel's as a single
    /// gate takes it; none without a verdict.
    pub fn decision(&self) -> Option<Decision> {
        match (&self.verdict, &self.panel) {
            (Some(v), _) => Some(v.decision),
            (None, Some(panel)) => Some(panel.gate_decision()),
            (None, None) => None,
        }
    }

    /// The report of a skill that could not be loaded: the one finding that says why, no
    /// verdict.
    pub fn unloaded(error: &crate::skill::LoadError) -> Report<'a> {
        Report {
            skill: None,
            summary: Summary::unloaded(error.path()),
            findings: vec![crate::lint::load::unloadable(error)],
            verdict: None,
            panel: None,
            project: None,
        }
    }

    /// The source file a finding points into.
    fn source(&self, path: &Path) -> Option<&SourceFile> {
        let skill = self.skill?;
        std::iter::once(&skill.source)
            .chain(skill.files.iter().filter_map(|f| f.source.as_ref()))
            .find(|s| s.path == path)
    }

    /// (errors, warnings, infos).
    fn counts(&self) -> (usize, usize, usize) {
        let n = |s| self.findings.iter().filter(|f| f.severity == s).count();
        (n(Severity::Error), n(Severity::Warning), n(Severity::Info))
    }
}

/// Options that change how reports look, not what they say.
#[derive(Debug, Clone, Copy)]
pub struct Style<'a> {
    /// Use colour (human format only).
    pub color: bool,
    /// Wrap width for the human format.
    pub width: usize,
    /// The URL of the rules' documentation (docs/rules.md of the running version), which
    /// SARIF links each rule to with `helpUri`; none when it is not known.
    pub rules_doc: Option<&'a str>,
}

/// Render `reports` in `format`.
pub fn render(format: Format, reports: &[Report<'_>], style: Style<'_>) -> String {
    match format {
        Format::Human => human::render(reports, style),
        Format::Concise => concise::render(reports),
        Format::Json => json::render(reports),
        Format::Sarif => sarif::render(reports, style.rules_doc),
        Format::Github => github::render(reports),
        Format::Markdown => markdown::render(reports),
    }
}

/// What a static verdict is: not a judgement of the skill, but the absence of an evaluation.
pub const NOT_EVALUATED: &str = "not evaluated (injecting needs an evaluation)";

/// "skip (evaluated)" and the like; a static verdict says it was not evaluated.
fn verdict_label(v: &Verdict) -> String {
    if v.basis == Basis::Static && v.decision == Decision::Skip {
        return NOT_EVALUATED.to_owned();
    }
    let decision = match v.decision {
        Decision::Inject => "inject",
        Decision::Skip => "skip",
    };
    let basis = match v.basis {
        Basis::Static => "static",
        Basis::Eval => "evaluated",
    };
    match v.evidence {
        Some(e) => format!(
            "{decision} ({basis}, evidence: {})",
            verdict_text::evidence_word(e)
        ),
        None => format!("{decision} ({basis})"),
    }
}

/// A path as shown in output: forward slashes on every platform.
pub fn display(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// "1 error, 2 warnings" style counts.
fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

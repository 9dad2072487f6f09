//! `skillgate gate`: judge the skills a change touched and report where reviewers look.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::Args;

use super::{ColorChoice, EXIT_INPUT, fail, print, terminal_width, use_color};
use crate::config::{Config, FailOn};
use crate::github::{self, Context, Gated, Published};
use crate::lint::{self, Selection};
use crate::project;
use crate::render::{self, Format, ProjectSummary, Report, Style, Summary};
use crate::skill::Skill;
use crate::verdict;

/// Examples printed after `skillgate gate --help`.
pub(super) const GATE_EXAMPLES: &str = "\
Examples:
  skillgate gate --changed-since origin/main
  skillgate gate skills/react-upgrade --repo . --sarif skillgate.sarif
  skillgate gate --github --comment        # in a pull_request workflow";

/// `skillgate gate` arguments.
#[derive(Debug, Args)]
pub(super) struct GateArgs {
    /// SKILL.md files or skill folders [default: the skill folders with a file changed since
    /// --changed-since; every skill folder below --repo when there is nothing to compare with].
    #[arg(value_name = "SKILL")]
    skills: Vec<PathBuf>,
    /// The repository: searched for changed skills, and scanned for the project rules (SG4xx).
    #[arg(long, value_name = "DIR", default_value = ".")]
    repo: PathBuf,
    /// Judge the skill folders with a file changed between REF and HEAD (`git diff
    /// REF...HEAD`) [default on GitHub Actions: the pull request's base commit, or the commit
    /// before a push].
    #[arg(long, value_name = "REF", conflicts_with = "skills")]
    changed_since: Option<String>,
    /// Post one check run per skill (`skillgate: <name>`) on the pull request's head commit,
    /// through GITHUB_API_URL with GITHUB_TOKEN; without a token, or with one that may not
    /// write checks (pull requests from forks), print workflow-command annotations and write
    /// the report to GITHUB_STEP_SUMMARY instead.
    #[arg(long)]
    github: bool,
    /// Keep one pull-request comment with every skill's verdict, edited in place on each push.
    #[arg(long, requires = "github")]
    comment: bool,
    /// Also write the findings as SARIF 2.1.0 to FILE (for code scanning).
    #[arg(long, value_name = "FILE")]
    sarif: Option<PathBuf>,
    /// Also write the findings and verdicts as JSON (docs/json.md) to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Lowest severity that fails the run and the check [default: error].
    #[arg(long, value_enum, value_name = "LEVEL")]
    fail_on: Option<FailOn>,
    /// Configuration file [default: skillgate.toml at the repository root, if present].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Colour in human output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

/// Run `skillgate gate`.
pub(super) fn run(args: &GateArgs) -> ExitCode {
    if !args.repo.is_dir() {
        return fail(&format!(
            "{}: the repository folder does not exist",
            args.repo.display()
        ));
    }
    let context = match Context::from_env() {
        Ok(c) => c,
        Err(e) => return fail(&e.to_string()),
    };
    let paths = match skill_paths(args, &context) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    if paths.is_empty() {
        eprintln!("skillgate: no skill to judge");
        return ExitCode::SUCCESS;
    }
    let config = match load_config(args) {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    let project = match project::scan(&args.repo) {
        Ok(p) => p,
        Err(e) => return fail(&e.to_string()),
    };
    let selection = Selection {
        select: config.select.clone(),
        ignore: config.ignore.clone(),
    };
    let fail_on = args.fail_on.or(config.fail_on).unwrap_or(FailOn::Error);

    let mut input_error = false;
    let mut skills = Vec::with_capacity(paths.len());
    for path in &paths {
        match Skill::load(path) {
            Ok(skill) => skills.push(skill),
            Err(e) => {
                eprintln!("error: {e}");
                input_error = true;
            }
        }
    }
    let gated: Vec<Gated<'_>> = skills
        .iter()
        .map(|skill| {
            let review = lint::review(skill, &config, Some(&project), &selection);
            let verdict = verdict::decide(&config.verdict, &review.findings, None);
            let conclusion =
                github::conclusion(&config.gate, Some(&verdict), &review.findings, fail_on);
            Gated {
                name: skill_name(skill),
                conclusion,
                report: Report {
                    skill,
                    summary: Summary::of(skill),
                    findings: review.findings,
                    verdict: Some(verdict),
                    project: review.fit.map(|fit| ProjectSummary::of(&project, fit)),
                },
            }
        })
        .collect();
    let reports: Vec<&Report<'_>> = gated.iter().map(|g| &g.report).collect();

    let style = Style {
        color: use_color(args.color),
        width: terminal_width(),
    };
    let printed = print(&render_all(Format::Human, &gated, style));
    for (path, format) in [(&args.sarif, Format::Sarif), (&args.json, Format::Json)] {
        let Some(path) = path else { continue };
        if let Err(e) = std::fs::write(path, render_all(format, &gated, style)) {
            return fail(&format!("{}: cannot write: {e}", path.display()));
        }
    }

    if args.github {
        let root = repository_root(&args.repo);
        match github::publish(&context, &gated, &root, args.comment) {
            Ok(Published::CheckRuns(ids)) => {
                eprintln!("skillgate: posted {} check runs", ids.len());
            }
            Ok(Published::Fallback { reason, commands }) => {
                eprintln!(
                    "skillgate: {reason}; reporting through workflow-command annotations and \
                     the step summary instead"
                );
                print(&commands);
            }
            Err(e) => return fail(&e.to_string()),
        }
        let findings = reports.iter().map(|r| r.findings.len()).sum::<usize>();
        let mut outputs = vec![("findings", findings.to_string())];
        if let [one] = gated.as_slice()
            && let Some(v) = &one.report.verdict
        {
            let decision = match v.decision {
                verdict::Decision::Inject => "inject",
                verdict::Decision::Skip => "skip",
            };
            outputs.push(("decision", decision.to_owned()));
        }
        if let Err(e) = github::write_outputs(&context, &outputs) {
            return fail(&e.to_string());
        }
    }

    if input_error {
        ExitCode::from(EXIT_INPUT)
    } else if printed != ExitCode::SUCCESS {
        printed
    } else if reports
        .iter()
        .flat_map(|r| &r.findings)
        .any(|f| fail_on.fails(f.severity))
    {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The skills given, or those changed since the base, or all of them.
fn skill_paths(args: &GateArgs, context: &Context) -> Result<Vec<PathBuf>, String> {
    if !args.skills.is_empty() {
        return Ok(args.skills.clone());
    }
    match args.changed_since.as_ref().or(context.base_sha.as_ref()) {
        Some(base) => {
            let changed =
                github::changed::changed_skills(&args.repo, base).map_err(|e| e.to_string())?;
            eprintln!(
                "skillgate: {} skill folders changed since {}",
                changed.len(),
                short(base)
            );
            Ok(changed)
        }
        None => {
            eprintln!(
                "skillgate: nothing to compare with (no --changed-since, no pull request or \
                 push base); judging every skill below {}",
                args.repo.display()
            );
            Ok(github::changed::all_skills(&args.repo))
        }
    }
}

/// A commit shown short, as git does.
fn short(sha: &str) -> &str {
    if sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        &sha[..12]
    } else {
        sha
    }
}

/// The frontmatter name, or the skill folder's name.
fn skill_name(skill: &Skill) -> String {
    if let Some(name) = skill.name() {
        return name.to_owned();
    }
    let path = &skill.source.path;
    path.parent().and_then(Path::file_name).map_or_else(
        || render::display(path),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn render_all(format: Format, gated: &[Gated<'_>], style: Style) -> String {
    let reports: Vec<Report<'_>> = gated
        .iter()
        .map(|g| Report {
            skill: g.report.skill,
            summary: g.report.summary.clone(),
            findings: g.report.findings.clone(),
            verdict: g.report.verdict.clone(),
            project: g.report.project.clone(),
        })
        .collect();
    render::render(format, &reports, style)
}

/// The root annotation paths are relative to: the git work tree holding the repository, or
/// the repository itself outside git.
fn repository_root(repo: &Path) -> PathBuf {
    let output = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["rev-parse", "--show-toplevel"])
        .output();
    match output {
        Ok(o) if o.status.success() => {
            PathBuf::from(String::from_utf8_lossy(&o.stdout).trim_end_matches(['\n', '\r']))
        }
        _ => repo.to_path_buf(),
    }
}

fn load_config(args: &GateArgs) -> Result<Config, String> {
    match &args.config {
        Some(path) => Config::load(path).map_err(|e| e.to_string()),
        None => Config::discover(&args.repo)
            .map(|c| c.map(|(_, c)| c).unwrap_or_default())
            .map_err(|e| e.to_string()),
    }
}

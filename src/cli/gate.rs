//! `skillgate gate`: judge the skills a change touched and report where reviewers look.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::Args;

use super::error::{self, EXIT_INPUT};
use super::eval_args::BackendArg;
use super::{ColorChoice, Error, FailOnArg, print, rules_doc, terminal_width, use_color};
use crate::assess::{self, Policy, Rounds};
use crate::config::{Config, FailOn};
use crate::eval::{self, Overrides, SkillParts};
use crate::finding::Finding;
use crate::github::{self, Context, Gated, Published};
use crate::lint;
use crate::project;
use crate::render::{self, Format, ProjectSummary, Report, Style, Summary};
use crate::skill::Skill;
use crate::verdict::{self, PanelVerdict, Verdict};

/// Examples printed after `skillgate gate --help`.
pub(super) const GATE_EXAMPLES: &str = "\
Examples:
  skillgate gate --changed-since origin/main
  skillgate gate skills/react-upgrade --repo . --sarif skillgate.sarif
  skillgate gate --github --comment        # in a pull_request workflow
  skillgate gate --eval --tasks tasks/ --agent claude-code --seeds 3";

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
    fail_on: Option<FailOnArg>,
    /// Configuration file [default: skillgate.toml at the repository root, if present].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Colour in human output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Also evaluate each skill as `skillgate eval` does, and decide inject or skip from the
    /// outcomes; the options below are those of `skillgate eval`, with `[eval]` in
    /// skillgate.toml as defaults.
    #[arg(long)]
    eval: bool,
    #[command(flatten)]
    evaluation: GateEval,
}

/// The evaluation options of `skillgate gate --eval`.
#[derive(Debug, Args)]
#[command(next_help_heading = "Evaluation (with --eval)")]
struct GateEval {
    /// A task folder, or a folder of tasks [default: tasks].
    #[arg(long, value_name = "DIR", requires = "eval")]
    tasks: Option<PathBuf>,
    /// The agent: claude-code, codex or command.
    #[arg(long, requires = "eval")]
    agent: Option<String>,
    /// The program (or, for `command`, shell command) that starts the agent.
    #[arg(long, value_name = "CMD", requires = "eval")]
    agent_cmd: Option<String>,
    /// The model the agent uses.
    #[arg(long, requires = "eval", conflicts_with = "models")]
    model: Option<String>,
    /// Several models, comma-separated (`--models A,B`): each skill is evaluated on every
    /// model, gets a verdict per model, and the check run and comment show one line per
    /// model and the panel's decision (`[verdict] panel`).
    #[arg(long, value_delimiter = ',', value_name = "MODELS", requires = "eval")]
    models: Option<Vec<String>>,
    /// Seeds per task and condition.
    #[arg(long, value_name = "N", requires = "eval")]
    seeds: Option<u32>,
    /// Attempts per cell (Pass@k).
    #[arg(long, value_name = "N", requires = "eval")]
    attempts: Option<u32>,
    /// Conditions, e.g. C0,C1,C2.
    #[arg(long, value_name = "LIST", requires = "eval")]
    conditions: Option<String>,
    /// `discover` or `inject`.
    #[arg(long, requires = "eval")]
    placement: Option<String>,
    /// `docker` or `local`.
    #[arg(long, value_enum, requires = "eval")]
    backend: Option<BackendArg>,
    /// Cells at once.
    #[arg(short = 'j', long, value_name = "N", requires = "eval")]
    jobs: Option<usize>,
    /// Re-runs of a cell that ended in error.
    #[arg(long, value_name = "N", requires = "eval")]
    retries: Option<u32>,
    /// Upload the working tree instead of the files tracked at HEAD.
    #[arg(long, requires = "eval")]
    worktree: bool,
    /// Run every cell again instead of reusing cached outcomes.
    #[arg(long, requires = "eval")]
    no_cache: bool,
    /// Run seed rounds and stop as soon as the verdict cannot change.
    #[arg(long, requires = "eval")]
    sequential: bool,
    /// Most seed rounds in sequential mode.
    #[arg(long, value_name = "N", default_value_t = 6, requires = "sequential")]
    max_seeds: u32,
    /// Where each skill's run directory goes (`DIR/<skill>`) [default: skillgate-runs/gate-<unix time>].
    #[arg(long, value_name = "DIR", requires = "eval")]
    runs: Option<PathBuf>,
}

/// Run `skillgate gate`.
pub(super) fn run(args: &GateArgs) -> Result<ExitCode, Error> {
    if !args.repo.is_dir() {
        return Err(Error::usage(
            format!(
                "{}: the repository folder does not exist",
                args.repo.display()
            ),
            None,
        ));
    }
    let context = Context::from_env()?;
    let paths = skill_paths(args, &context)?;
    if paths.is_empty() {
        eprintln!("skillgate: no skill to judge");
        if args.github && args.comment && github::publish_no_change(&context)? {
            eprintln!("skillgate: the pull request comment now says that no skill changed");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let config = Config::for_repo(args.config.as_deref(), &args.repo)?;
    super::knowledge::install_configured(&config)?;
    let project = project::scan(&args.repo)?;
    let settings = config.lint();
    let fail_on = args
        .fail_on
        .map(FailOn::from)
        .or(config.fail_on)
        .unwrap_or(FailOn::Error);

    let mut input_error = false;
    let mut skills = Vec::with_capacity(paths.len());
    let mut unloaded = Vec::new();
    // A skill reached through a symlinked folder too (one folder per client) is judged once.
    for found in crate::skill::discover::skills_of(&paths) {
        match found.and_then(|path| Skill::load(&path)) {
            Ok(skill) => skills.push(skill),
            Err(e) => {
                // Said on stderr with its context and, unless nothing is there at all, made
                // the skill's one finding (SG509), reported with the others, which are still
                // judged.
                if !e.is_missing() {
                    unloaded.push((folder_name(e.path()), Report::unloaded(&e)));
                }
                error::show(&Error::from(e));
                input_error = true;
            }
        }
    }
    let runs = args.evaluation.runs.clone().unwrap_or_else(|| {
        // One root per gate run, so the skills' run directories never mix with an earlier run.
        let seconds = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        PathBuf::from(format!("skillgate-runs/gate-{seconds}"))
    });
    let mut gated: Vec<Gated<'_>> = Vec::with_capacity(skills.len());
    let mut unavailable = Vec::new();
    for skill in &skills {
        let review = lint::review(skill, &settings, Some(&project));
        let judged = if args.eval {
            evaluate(args, &config, skill, &runs, &review.findings)?
        } else {
            Judged {
                verdict: Some(verdict::decide(&config.verdict, &review.findings, None)),
                panel: None,
                unavailable: Vec::new(),
            }
        };
        unavailable.extend(judged.unavailable);
        let failing = review.findings.iter().any(|f| fail_on.fails(f.severity));
        let report = Report {
            skill: Some(skill),
            summary: Summary::of(skill),
            findings: review.findings,
            verdict: judged.verdict,
            panel: judged.panel,
            project: review.fit.map(|fit| ProjectSummary::of(&project, fit)),
        };
        gated.push(Gated {
            name: skill_name(skill),
            conclusion: github::conclusion(&config.gate, report.decision(), failing),
            report,
        });
    }

    for (name, report) in unloaded {
        let failing = report.findings.iter().any(|f| fail_on.fails(f.severity));
        gated.push(Gated {
            name,
            conclusion: github::conclusion(&config.gate, None, failing),
            report,
        });
    }

    let rules_doc = rules_doc();
    let style = Style {
        color: use_color(args.color),
        width: terminal_width(),
        rules_doc: rules_doc.as_deref(),
    };
    print(&render_all(Format::Human, &gated, style))?;
    for (path, format) in [(&args.sarif, Format::Sarif), (&args.json, Format::Json)] {
        let Some(path) = path else { continue };
        std::fs::write(path, render_all(format, &gated, style))
            .map_err(|e| Error::usage(format!("{}: cannot write: {e}", path.display()), None))?;
    }

    if args.github {
        publish(args, &context, &gated)?;
    }

    let failing = gated
        .iter()
        .flat_map(|g| &g.report.findings)
        .any(|f| fail_on.fails(f.severity));
    if let Some(line) = eval::left_out_line(&unavailable, "verdicts") {
        eprintln!("skillgate: {line}");
    }
    Ok(if input_error {
        ExitCode::from(EXIT_INPUT)
    } else if failing || !unavailable.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Check runs (or the fallback), the comment, and the step's outputs.
fn publish(args: &GateArgs, context: &Context, gated: &[Gated<'_>]) -> Result<(), Error> {
    let root = repository_root(&args.repo);
    match github::publish(context, gated, &root, args.comment)? {
        Published::CheckRuns(ids) => {
            eprintln!("skillgate: posted {} check runs", ids.len());
        }
        Published::Fallback { reason, commands } => {
            eprintln!(
                "skillgate: {reason}; reporting through workflow-command annotations and the \
                 step summary instead"
            );
            print(&commands)?;
        }
    }
    let findings = gated.iter().map(|g| g.report.findings.len()).sum::<usize>();
    let mut outputs = vec![("findings", findings.to_string())];
    if let [one] = gated
        && let Some(decision) = one.report.decision()
    {
        let decision = match decision {
            verdict::Decision::Inject => "inject",
            verdict::Decision::Skip => "skip",
        };
        outputs.push(("decision", decision.to_owned()));
    }
    github::write_outputs(context, &outputs)?;
    Ok(())
}

/// What the gate decided for one skill.
struct Judged {
    /// One model's verdict (or the static one).
    verdict: Option<Verdict>,
    /// An evaluation over several models: a verdict per model.
    panel: Option<PanelVerdict>,
    /// Tasks whose environment could not be had.
    unavailable: Vec<eval::task::Refusal>,
}

/// Evaluate one skill as `skillgate eval` does, in `runs/<skill folder>`, and decide from the
/// journal and the findings: one verdict, or one per model with `--models`.
fn evaluate(
    args: &GateArgs,
    config: &Config,
    skill: &Skill,
    runs: &Path,
    findings: &[Finding],
) -> Result<Judged, Error> {
    let e = &args.evaluation;
    let folder = skill
        .source
        .path
        .parent()
        .and_then(Path::file_name)
        .map_or_else(|| "skill".into(), |n| n.to_string_lossy().into_owned());
    let overrides = Overrides {
        skill: Some(skill.source.path.clone()),
        repo: Some(args.repo.clone()),
        tasks: e.tasks.clone(),
        agent: e.agent.clone(),
        agent_cmd: e.agent_cmd.clone(),
        model: e.model.clone(),
        models: e.models.clone(),
        seeds: e.seeds,
        attempts: e.attempts,
        conditions: e.conditions.clone(),
        placement: e.placement.clone(),
        backend: e.backend.map(Into::into),
        jobs: e.jobs,
        out: Some(runs.join(&folder)),
        resume: None,
        retries: e.retries,
        worktree: e.worktree,
        no_cache: e.no_cache,
        aa: false,
        verifier_offline: false,
        require_storage_limits: false,
        build: false,
        quiet: true,
        // The gate decides each skill, so it runs every cell of its evaluation.
        shard: None,
    };
    let options = overrides.into_options(&config.eval)?;
    std::fs::create_dir_all(&options.out)
        .map_err(|e| eval::EvalError::io("creating", &options.out, e))?;
    let policy = Policy {
        stats: &config.stats,
        verdict: &config.verdict,
    };
    if !options.models.is_empty() {
        if e.sequential {
            return Err(Error::usage(
                "--sequential settles one verdict between rounds, so it cannot run over several --models",
                Some("evaluate the models with fixed --seeds; each gets its own verdict"),
            ));
        }
        let run = eval::evaluate(&options, SkillParts::from_skill(skill))?;
        let (verdict, panel) = match assess::assess_run(&options.out, findings, policy)? {
            assess::Assessment::One(v) => (Some(*v), None),
            assess::Assessment::Panel(p) => (None, Some(p)),
        };
        eprintln!(
            "skillgate: evaluated {} on {} models in {}",
            skill.source.path.display(),
            options.models.len(),
            options.out.display()
        );
        return Ok(Judged {
            verdict,
            panel,
            unavailable: run.unavailable,
        });
    }
    let evaluated = assess::evaluate(
        &options,
        SkillParts::from_skill(skill),
        findings,
        policy,
        if e.sequential {
            Rounds::Sequential(e.max_seeds)
        } else {
            Rounds::Once
        },
        |look, step| eprintln!("skillgate: {folder}: seed round {look}: {step:?}"),
    )?;
    eprintln!(
        "skillgate: evaluated {} in {}",
        skill.source.path.display(),
        options.out.display()
    );
    Ok(Judged {
        verdict: Some(evaluated.verdict),
        panel: None,
        unavailable: evaluated.unavailable,
    })
}

/// The skills given, or those changed since the base, or all of them.
fn skill_paths(args: &GateArgs, context: &Context) -> Result<Vec<PathBuf>, Error> {
    if !args.skills.is_empty() {
        return Ok(args.skills.clone());
    }
    match args.changed_since.as_ref().or(context.base_sha.as_ref()) {
        Some(base) => {
            let changed = github::changed::changed_skills(&args.repo, base)?;
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
    folder_name(&skill.source.path)
}

/// The name of the folder holding `path` (a SKILL.md), or of `path` itself when it is a folder.
fn folder_name(path: &Path) -> String {
    let folder = if path.is_dir() {
        Some(path)
    } else {
        path.parent()
    };
    folder.and_then(Path::file_name).map_or_else(
        || render::display(path),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn render_all(format: Format, gated: &[Gated<'_>], style: Style<'_>) -> String {
    let reports: Vec<Report<'_>> = gated
        .iter()
        .map(|g| Report {
            skill: g.report.skill,
            summary: g.report.summary.clone(),
            findings: g.report.findings.clone(),
            verdict: g.report.verdict.clone(),
            panel: g.report.panel.clone(),
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

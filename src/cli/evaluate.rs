//! `skillgate eval`, `skillgate tasks check` and `skillgate report`: the evaluation
//! commands, from options to a verdict on the terminal.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

use super::{EvalCommand, ReportArgs, ReportFormat, print};
use crate::config::Config;
use crate::eval::{self, EvalError, SkillParts, TasksCheckArgs, journal};
use crate::finding::{Finding, Location};
use crate::lint::{self, Selection};
use crate::render::{self, Format, ProjectSummary, Report, Style, Summary};
use crate::skill::Skill;
use crate::stats::{self, sequential::SequentialPlan};
use crate::verdict::{self, Verdict};

/// The static check of the skill, saved with the run so `report` needs nothing else.
const CHECK_FILE: &str = "check.json";
/// The configuration the run was made with.
const CONFIG_FILE: &str = "skillgate.toml";

/// Run the evaluation, then print the conditions table and the verdict.
pub(super) fn run(command: EvalCommand) -> Result<ExitCode, EvalError> {
    // A resumed run keeps the configuration it was started with (copied into the run).
    let recorded = command.eval.resume.as_ref().map(|d| d.join(CONFIG_FILE));
    let config_path = command
        .config
        .clone()
        .or_else(|| recorded.filter(|p| p.is_file()))
        .or_else(|| discover(&command.eval.repo()));
    let config = load_config(config_path.as_deref())?;
    let mut options = match command.eval.resume.clone() {
        Some(run_dir) => command.eval.resume_options(&run_dir)?,
        None => command.eval.into_options(&config.eval)?,
    };
    let skill = Skill::load(&options.skill).map_err(|e| EvalError::Usage(e.to_string()))?;
    let project = crate::project::scan(&options.repo).map_err(usage)?;
    let review = lint::review(&skill, &config, Some(&project), &selection(&config));
    let findings = review.findings;

    std::fs::create_dir_all(&options.out)
        .map_err(|e| EvalError::io("creating", &options.out, e))?;
    let fit = review.fit.map(|fit| ProjectSummary::of(&project, fit));
    save_check(&options.out, &skill, &findings, fit)?;
    if let Some(path) = &config_path {
        let kept = options.out.join(CONFIG_FILE);
        // Copying a file onto itself would empty it.
        let same = std::fs::canonicalize(path).ok() == std::fs::canonicalize(&kept).ok();
        if !same {
            std::fs::copy(path, &kept).map_err(|e| EvalError::io("copying", path, e))?;
        }
    }

    let verdict = if command.sequential {
        let plan =
            SequentialPlan::new(command.max_seeds, config.stats.confidence).map_err(usage)?;
        let mut last = None;
        for look in 1..=plan.max_looks() {
            options.seeds = look;
            options.resume = look > 1 || options.resume;
            eval::evaluate(&options, SkillParts::from_skill(&skill))?;
            let cells = journal::read_cells(&options.out.join("cells.jsonl"))?;
            let summary = stats::summarize(
                &cells,
                &plan.options_at(look, &config.stats).map_err(usage)?,
            )
            .map_err(usage)?;
            let step =
                verdict::decide_sequential(&config.verdict, &findings, &summary, &plan, look)
                    .map_err(usage)?;
            eprintln!("seed round {look}: {:?}", step.step);
            let settled = step.step != stats::sequential::Step::Continue;
            last = Some(step.verdict);
            if settled {
                break;
            }
        }
        last.ok_or_else(|| EvalError::Usage("no seed round ran".into()))?
    } else {
        eval::evaluate(&options, SkillParts::from_skill(&skill))?;
        decide(&options.out, &config, &findings)?
    };
    print(&crate::render::eval_table::human(&verdict));
    eprintln!(
        "run directory: {} (skillgate report {0} --format html > report.html)",
        options.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Validate tasks and prove each one discriminates.
pub(super) fn tasks_check(args: &TasksCheckArgs) -> Result<ExitCode, EvalError> {
    let skill = match &args.skill {
        Some(path) => Some(Skill::load(path).map_err(|e| EvalError::Usage(e.to_string()))?),
        None => None,
    };
    let parts = skill.as_ref().map(SkillParts::from_skill);
    let repo = eval::repo_bundle(&args.repo, args.worktree)?;
    let logs =
        tempfile::tempdir().map_err(|e| EvalError::io("creating", "a temporary folder", e))?;
    let sandbox = eval::sandbox_for(args.backend, &eval::run_id(logs.path()), None)?;
    let checks = eval::check_tasks(
        &args.dir,
        parts.as_ref(),
        &repo,
        sandbox.as_ref(),
        logs.path(),
        false,
    )?;
    let mut out = String::new();
    for check in &checks {
        for note in &check.notes {
            out.push_str(&format!("note     {}: {note}\n", check.task));
        }
        if check.problems.is_empty() {
            out.push_str(&format!("ok       {}\n", check.task));
        } else {
            for problem in &check.problems {
                out.push_str(&format!("problem  {}: {problem}\n", check.task));
            }
        }
    }
    let failed = checks.iter().filter(|c| !c.problems.is_empty()).count();
    out.push_str(&format!(
        "{} tasks, {} with problems\n",
        checks.len(),
        failed
    ));
    print(&out);
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Render a run's verdict from its directory alone.
pub(super) fn report(args: &ReportArgs) -> Result<ExitCode, EvalError> {
    let recorded = args.run_dir.join(CONFIG_FILE);
    let config_path = args
        .config
        .clone()
        .or_else(|| recorded.is_file().then_some(recorded));
    let config = load_config(config_path.as_deref())?;
    let check_path = args.run_dir.join(CHECK_FILE);
    let text = std::fs::read_to_string(&check_path)
        .map_err(|e| EvalError::io("reading", &check_path, e))?;
    let mut document: Value = serde_json::from_str(&text).map_err(|e| {
        EvalError::Usage(format!(
            "{}: not a skillgate check document: {e}",
            check_path.display()
        ))
    })?;
    let findings = findings_of(&document);
    let verdict = decide(&args.run_dir, &config, &findings)?;
    let title = document["skill"]["name"]
        .as_str()
        .unwrap_or("skill")
        .to_owned();
    let out = match args.format {
        ReportFormat::Human => render::eval_table::human(&verdict),
        ReportFormat::Markdown => render::eval_table::markdown(&verdict),
        ReportFormat::Html => render::html::page(&verdict, &title),
        ReportFormat::Json => {
            document["verdict"] = serde_json::to_value(&verdict).unwrap_or(Value::Null);
            let mut s = serde_json::to_string_pretty(&document).unwrap_or_default();
            s.push('\n');
            s
        }
    };
    print(&out);
    Ok(ExitCode::SUCCESS)
}

/// The verdict from a run directory's journal.
fn decide(run_dir: &Path, config: &Config, findings: &[Finding]) -> Result<Verdict, EvalError> {
    let cells = journal::read_cells(&run_dir.join("cells.jsonl"))?;
    let summary = stats::summarize(&cells, &config.stats).map_err(usage)?;
    Ok(verdict::decide(&config.verdict, findings, Some(&summary)))
}

/// Write the static check of the skill into the run directory, in the JSON contract.
fn save_check(
    run_dir: &Path,
    skill: &Skill,
    findings: &[Finding],
    project: Option<ProjectSummary>,
) -> Result<(), EvalError> {
    let report = Report {
        skill,
        summary: Summary::of(skill),
        findings: findings.to_vec(),
        verdict: None,
        project,
    };
    let text = render::render(
        Format::Json,
        &[report],
        Style {
            color: false,
            width: 100,
        },
    );
    let path = run_dir.join(CHECK_FILE);
    std::fs::write(&path, text).map_err(|e| EvalError::io("writing", &path, e))
}

/// Findings back from a saved check document, for the verdict. Codes no longer known to
/// this version are dropped.
fn findings_of(document: &Value) -> Vec<Finding> {
    let Some(items) = document["findings"].as_array() else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|f| {
            let rule = lint::rule(f["code"].as_str()?)?;
            let severity = serde_json::from_value(f["severity"].clone()).ok()?;
            let number = |key: &str| {
                f[key]
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .unwrap_or(1)
            };
            Some(Finding {
                code: rule.code,
                name: rule.name,
                severity,
                message: f["message"].as_str().unwrap_or_default().to_owned(),
                help: f["help"].as_str().map(str::to_owned),
                location: Location {
                    path: PathBuf::from(f["path"].as_str().unwrap_or_default()),
                    line: number("line"),
                    column: number("column"),
                    end_line: number("end_line"),
                    end_column: number("end_column"),
                    span: 0..0,
                },
                related: Vec::new(),
            })
        })
        .collect()
}

fn selection(config: &Config) -> Selection {
    Selection {
        select: config.select.clone(),
        ignore: config.ignore.clone(),
    }
}

fn discover(repo: &Path) -> Option<PathBuf> {
    let path = repo.join(crate::config::FILE_NAME);
    path.is_file().then_some(path)
}

fn load_config(path: Option<&Path>) -> Result<Config, EvalError> {
    match path {
        Some(p) => Config::load(p).map_err(|e| EvalError::Usage(e.to_string())),
        None => Ok(Config::default()),
    }
}

fn usage(e: impl std::fmt::Display) -> EvalError {
    EvalError::Usage(e.to_string())
}

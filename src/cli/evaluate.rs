//! `skillgate eval`, `skillgate tasks check` and `skillgate report`: the evaluation
//! commands, from options to a verdict on the terminal.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

use super::eval_args::TasksCheckArgs;
use super::{Error, EvalCommand, ReportArgs, ReportFormat, print};
use crate::assess::{self, Policy, Rounds};
use crate::config::Config;
use crate::eval::{self, EvalError, Overrides, SkillParts};
use crate::finding::Finding;
use crate::lint;
use crate::render::json::{CheckRecord, FindingRecord};
use crate::render::{self, Format, ProjectSummary, Report, Style, Summary};
use crate::skill::Skill;

/// The static check of the skill, saved with the run so `report` needs nothing else.
const CHECK_FILE: &str = "check.json";
/// The configuration the run was made with.
const CONFIG_FILE: &str = "skillgate.toml";

/// Run the evaluation, then print the conditions table and the verdict.
pub(super) fn run(command: EvalCommand) -> Result<ExitCode, Error> {
    // A resumed run keeps the configuration it was started with (copied into the run).
    let recorded = command.eval.resume.as_ref().map(|d| d.join(CONFIG_FILE));
    let candidates = recorded
        .into_iter()
        .chain([command.eval.repo().join(crate::config::FILE_NAME)]);
    let (config_path, config) = Config::resolve(command.config.as_deref(), candidates)?;
    super::knowledge::install_configured(&config)?;
    let given = Overrides::from(command.eval);
    let options = match given.resume.clone() {
        Some(run_dir) => {
            given.resume_options(&run_dir, eval::journal::read_run_info(&run_dir)?.config)?
        }
        None => given.into_options(&config.eval)?,
    };
    let skill = Skill::load(&options.skill)?;
    let project = crate::project::scan(&options.repo)?;
    let review = lint::review(&skill, &config.lint(), Some(&project));
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

    if let Some(shard) = options.shard {
        if command.sequential {
            return Err(Error::usage(
                "--sequential decides between rounds from every cell, so it cannot run as one shard of a split",
                Some(
                    "run each shard with fixed --seeds, then `skillgate merge RUN_DIR... --out DIR`",
                ),
            ));
        }
        let summary = eval::evaluate(&options, SkillParts::from_skill(&skill))?;
        print(&format!(
            "shard {shard}: {} cells ({} run now, {} cached, {} already in the journal)\n",
            summary.planned, summary.ran, summary.cached, summary.skipped
        ))?;
        eprintln!(
            "run directory: {} (join every shard with: skillgate merge RUN_DIR... --out DIR)",
            options.out.display()
        );
        return Ok(whole(&summary.unavailable));
    }
    if !options.models.is_empty() {
        if command.sequential {
            return Err(Error::usage(
                "--sequential settles one verdict between rounds, so it cannot run over several --models",
                Some("run the models with fixed --seeds; each gets its own verdict"),
            ));
        }
        let run = eval::evaluate(&options, SkillParts::from_skill(&skill))?;
        let out = match assess::assess_run(&options.out, &findings, policy(&config))? {
            assess::Assessment::One(verdict) => crate::render::verdict_text::human(&verdict),
            assess::Assessment::Panel(panel) => crate::render::verdict_text::panel_human(&panel),
        };
        print(&out)?;
        eprintln!(
            "run directory: {} (skillgate report {0} --format html > report.html)",
            options.out.display()
        );
        return Ok(whole(&run.unavailable));
    }
    let rounds = if command.sequential {
        Rounds::Sequential(command.max_seeds)
    } else {
        Rounds::Once
    };
    let evaluated = assess::evaluate(
        &options,
        SkillParts::from_skill(&skill),
        &findings,
        policy(&config),
        rounds,
        |look, step| eprintln!("seed round {look}: {step:?}"),
    )?;
    print(&crate::render::verdict_text::human(&evaluated.verdict))?;
    eprintln!(
        "run directory: {} (skillgate report {0} --format html > report.html)",
        options.out.display()
    );
    Ok(whole(&evaluated.unavailable))
}

/// Success when every task the backend accepts ran; exit 1, after saying which tasks are
/// missing, when some could not be run because their environment could not be had: the
/// verdict printed stands on the others, and a CI job should not read it as the whole set's.
fn whole(unavailable: &[eval::task::Refusal]) -> ExitCode {
    match eval::left_out_line(unavailable, "verdict") {
        Some(line) => {
            eprintln!("skillgate: {line}");
            ExitCode::from(1)
        }
        None => ExitCode::SUCCESS,
    }
}

/// Join the run directories of every shard of one evaluation into `out`, with the static
/// check and configuration the shards recorded, then print its verdict as `report` does.
pub(super) fn merge_runs(dirs: &[PathBuf], out: &Path) -> Result<ExitCode, Error> {
    let kept = |dir: &Path, name: &str| -> Result<Option<Vec<u8>>, Error> {
        let path = dir.join(name);
        match std::fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(EvalError::io("reading", &path, e).into()),
        }
    };
    // Every shard judged the same skill with the same configuration.
    let mut files = Vec::new();
    for name in [CHECK_FILE, CONFIG_FILE] {
        let first = kept(&dirs[0], name)?;
        for dir in &dirs[1..] {
            if kept(dir, name)? != first {
                return Err(Error::usage(
                    format!(
                        "{} and {} hold different {name}: they are not shards of one evaluation",
                        dirs[0].display(),
                        dir.display()
                    ),
                    None,
                ));
            }
        }
        files.push((name, first));
    }
    eval::merge::merge_runs(dirs, out)?;
    for (name, bytes) in files {
        if let Some(bytes) = bytes {
            let path = out.join(name);
            std::fs::write(&path, bytes).map_err(|e| EvalError::io("writing", &path, e))?;
        }
    }
    eprintln!(
        "merged {} shards into {} (skillgate report {1} --format html > report.html)",
        dirs.len(),
        out.display()
    );
    report(&ReportArgs {
        run_dir: out.to_path_buf(),
        format: ReportFormat::Human,
        config: None,
    })
}

/// Validate tasks and prove each one discriminates.
pub(super) fn tasks_check(args: &TasksCheckArgs) -> Result<ExitCode, Error> {
    let skill = match &args.skill {
        Some(path) => Some(Skill::load(path)?),
        None => None,
    };
    let parts = skill.as_ref().map(SkillParts::from_skill);
    let repo = eval::repo_bundle(&args.repo, args.worktree)?;
    let logs =
        tempfile::tempdir().map_err(|e| EvalError::io("creating", "a temporary folder", e))?;
    let sandbox = eval::sandbox_for(
        args.backend.into(),
        &eval::run_id(logs.path()),
        None,
        args.build,
        args.require_storage_limits,
    )?;
    let mut checks = eval::check_tasks(
        &args.dir,
        parts.as_ref(),
        &repo,
        &args.repo,
        sandbox.as_ref(),
        logs.path(),
        args.verifier_offline,
    )?;
    let mut out = String::new();
    for check in &mut checks {
        // The tests the verifier ran, as its runner's summary counts them: a pass after the
        // solution that ran no test proves nothing.
        let counts = check.discrimination.as_ref().map(|d| {
            (
                crate::mine::counts::read(&d.untouched.output),
                crate::mine::counts::read(&d.solved.output),
            )
        });
        if let Some((_, Some(after))) = &counts
            && after.run == 0
            && check.problems.is_empty()
        {
            check.problems.push(format!(
                "the verifier ran no test after solution/solve.sh ({after})"
            ));
        }
        let shown = match counts {
            Some((Some(before), Some(after))) => {
                format!("  (tests on base: {before}; with solution: {after})")
            }
            Some((None, Some(after))) => format!("  (tests with solution: {after})"),
            _ => String::new(),
        };
        for note in &check.notes {
            out.push_str(&format!("note     {}: {note}\n", check.task));
        }
        if check.problems.is_empty() && check.discrimination.is_none() {
            // Nothing ran: without an oracle the task is not proven, whatever else holds.
            out.push_str(&format!(
                "unproven {}: no solution: not proven\n",
                check.task
            ));
        } else if check.problems.is_empty() {
            out.push_str(&format!("ok       {}{shown}\n", check.task));
        } else {
            for problem in &check.problems {
                out.push_str(&format!("problem  {}: {problem}\n", check.task));
            }
        }
    }
    let failed = checks.iter().filter(|c| !c.problems.is_empty()).count();
    let unproven = checks
        .iter()
        .filter(|c| c.problems.is_empty() && c.discrimination.is_none())
        .count();
    let noun = if checks.len() == 1 { "task" } else { "tasks" };
    out.push_str(&format!("{} {noun}, {failed} with problems", checks.len()));
    if unproven > 0 {
        out.push_str(&format!(", {unproven} not proven (no solution)"));
    }
    out.push('\n');
    print(&out)?;
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Render a run's verdict from its directory alone.
pub(super) fn report(args: &ReportArgs) -> Result<ExitCode, Error> {
    let recorded = args.run_dir.join(CONFIG_FILE);
    let (_, config) = Config::resolve(args.config.as_deref(), [recorded])?;
    let check_path = args.run_dir.join(CHECK_FILE);
    let text = std::fs::read_to_string(&check_path)
        .map_err(|e| EvalError::io("reading", &check_path, e))?;
    let not_a_check = |e: serde_json::Error| {
        Error::usage(
            format!(
                "{}: not a skillgate check document: {e}",
                check_path.display()
            ),
            None,
        )
    };
    let check: CheckRecord = serde_json::from_str(&text).map_err(not_a_check)?;
    // Codes no longer known to this version are dropped.
    let findings: Vec<Finding> = check
        .findings
        .iter()
        .filter_map(FindingRecord::to_finding)
        .collect();
    let title = check.skill.name.unwrap_or_else(|| "skill".to_owned());
    let verdict = match assess::assess_run(&args.run_dir, &findings, policy(&config))? {
        assess::Assessment::One(verdict) => *verdict,
        assess::Assessment::Panel(panel) => {
            let out = match args.format {
                ReportFormat::Human => render::verdict_text::panel_human(&panel),
                ReportFormat::Markdown => render::verdict_text::panel_markdown(&panel),
                ReportFormat::Html => render::html::panel_page(&panel, &title),
                ReportFormat::Json => {
                    let mut document: Value = serde_json::from_str(&text).map_err(not_a_check)?;
                    document["verdicts"] = serde_json::to_value(&panel).unwrap_or(Value::Null);
                    let mut s = serde_json::to_string_pretty(&document).unwrap_or_default();
                    s.push('\n');
                    s
                }
            };
            print(&out)?;
            return Ok(ExitCode::SUCCESS);
        }
    };
    let out = match args.format {
        ReportFormat::Human => render::verdict_text::human(&verdict),
        ReportFormat::Markdown => render::verdict_text::markdown(&verdict),
        ReportFormat::Html => render::html::page(&verdict, &title),
        ReportFormat::Json => {
            // The document is passed through as written, with the verdict added.
            let mut document: Value = serde_json::from_str(&text).map_err(not_a_check)?;
            document["verdict"] = serde_json::to_value(&verdict).unwrap_or(Value::Null);
            let mut s = serde_json::to_string_pretty(&document).unwrap_or_default();
            s.push('\n');
            s
        }
    };
    print(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// The statistics and verdict settings of `config`.
fn policy(config: &Config) -> Policy<'_> {
    Policy {
        stats: &config.stats,
        verdict: &config.verdict,
    }
}

/// Write the static check of the skill into the run directory, in the JSON contract.
fn save_check(
    run_dir: &Path,
    skill: &Skill,
    findings: &[Finding],
    project: Option<ProjectSummary>,
) -> Result<(), EvalError> {
    let report = Report {
        skill: Some(skill),
        summary: Summary::of(skill),
        findings: findings.to_vec(),
        verdict: None,
        panel: None,
        project,
    };
    let text = render::render(
        Format::Json,
        &[report],
        Style {
            color: false,
            width: 100,
            rules_doc: None,
        },
    );
    let path = run_dir.join(CHECK_FILE);
    std::fs::write(&path, text).map_err(|e| EvalError::io("writing", &path, e))
}

//! Command-line interface: clap definitions and the commands they run.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::audit::set::SET_RULES;
use crate::config::{Config, FailOn};
use crate::lint::baseline::Baseline;
use crate::lint::{self, RULES};
use crate::project;
use crate::render::{self, Format, ProjectSummary, Report, Style, Summary};
use crate::skill::{Skill, discover};
use crate::verdict;

/// Decide whether an agent skill should be injected into an agent working on your repository.
///
/// `skillgate check` lints a SKILL.md against the repository: the Agent Skills specification,
/// size and example-code cost, content that misleads agents, and the skill folder's
/// structure, and its fit with the repository's dependencies. `skillgate eval` runs an agent
/// on tasks with and without the skill and decides inject or skip; `skillgate report`
/// re-renders a run. Exit status: 0 when no finding reaches --fail-on, 1 when one does, 2 on
/// a usage or input error.
#[derive(Debug, Parser)]
#[command(
    name = "skillgate",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

const CHECK_EXAMPLES: &str = "\
Examples:
  skillgate check SKILL.md --repo .
  skillgate check skills/*/ --format concise --fail-on warning
  skillgate check SKILL.md --format sarif > skillgate.sarif";

const EVAL_EXAMPLES: &str = "\
Examples:
  skillgate eval SKILL.md --repo . --tasks tasks/ --agent claude-code --seeds 3
  skillgate eval SKILL.md --agent command --agent-cmd ./agent.sh --backend local
  skillgate eval SKILL.md --agent codex --sequential --max-seeds 6
  skillgate eval --resume skillgate-runs/2026-11-29T18-00-00Z";

#[derive(Debug, Subcommand)]
enum Command {
    /// Lint one or more skills against a repository.
    ///
    /// Each SKILL is a SKILL.md file or a folder holding one. Configuration comes from
    /// skillgate.toml at the repository root, or from --config.
    #[command(after_long_help = CHECK_EXAMPLES)]
    Check(CheckArgs),
    /// List every rule: code, severity, name and summary.
    Rules {
        /// Print the full documentation of every rule as markdown (docs/rules.md).
        #[arg(long)]
        markdown: bool,
    },
    /// Explain one rule: what it checks, why, and examples that fire and pass.
    Rule {
        /// A rule code (SG201) or name (body-too-many-tokens).
        code: String,
    },
    /// Run an agent on tasks with and without the skill, paired and length-matched, and
    /// decide inject or skip from the outcomes.
    ///
    /// Every finished cell is appended to RUN_DIR/cells.jsonl; `--resume RUN_DIR` finishes an
    /// interrupted run, with the options recorded in it, without repeating a cell. `skillgate report RUN_DIR` re-renders it.
    #[command(after_long_help = EVAL_EXAMPLES)]
    Eval(Box<EvalCommand>),
    /// Work with evaluation tasks.
    Tasks {
        #[command(subcommand)]
        command: TasksCommand,
    },
    /// Render the verdict of an evaluation run from its run directory alone.
    Report(ReportArgs),
    /// Check every skill below some folders in parallel: one row per skill, findings across
    /// the set (duplicates, a crowded skill listing), and a summary.
    ///
    /// A folder that holds a SKILL.md is one skill; folders below are searched, hidden ones
    /// included (.claude/skills/, .agents/skills/), but not .git, node_modules or what
    /// .gitignore excludes. An unreadable skill is a row with its error, and counts as an
    /// error for --fail-on. With --shard K/N one of N jobs audits its share; `skillgate merge`
    /// combines their outputs into exactly what one job would have printed.
    #[command(after_long_help = audit::AUDIT_EXAMPLES)]
    Audit(audit::AuditArgs),
    /// Combine the JSON or JSON-lines outputs of `skillgate audit` (the shards of one split)
    /// into one audit, as a single run would have printed it; or join the run directories of
    /// `skillgate eval --shard K/N` into one (`--out DIR`) and print its verdict.
    Merge(audit::MergeArgs),
    /// Judge the skills a change touched and report where reviewers look: check runs with
    /// annotations on GitHub, a pull-request comment, SARIF.
    ///
    /// Exit status as for `check`: 0 when no finding reaches --fail-on, 1 when one does, 2 on
    /// a usage, input or GitHub API error.
    #[command(after_long_help = gate::GATE_EXAMPLES)]
    Gate(Box<gate::GateArgs>),
    /// List the API changes skillgate knows (id, kind, since, replacement, source), or
    /// validate your own knowledge pack with `skillgate knowledge check DIR`.
    ///
    /// `knowledge = ["DIR"]` in skillgate.toml adds packs to the built-in knowledge for
    /// `check`, `audit`, `gate` and `eval`; a pack that does not validate stops the run.
    #[command(after_long_help = knowledge::KNOWLEDGE_EXAMPLES)]
    Knowledge(knowledge::KnowledgeArgs),
}

#[derive(Debug, Subcommand)]
enum TasksCommand {
    /// Validate tasks and prove each one discriminates: its verifier fails on the untouched
    /// repository and passes after its solution.
    Check(TasksCheckArgs),
    /// Turn commits that changed source and tests into tasks: the message is the
    /// instruction, the parent the base commit, the tests the verifier, the rest of the diff
    /// the oracle. Each task is kept only when its verifier fails on the base and passes
    /// after the oracle, twice each.
    #[command(after_long_help = mine::MINE_EXAMPLES)]
    Mine(mine::MineArgs),
}

#[derive(Debug, Args)]
struct EvalCommand {
    #[command(flatten)]
    eval: EvalArgs,
    /// Configuration file [default: skillgate.toml at the repository root, if present].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Run seed rounds and stop as soon as the verdict cannot change.
    #[arg(long)]
    sequential: bool,
    /// Most seed rounds in sequential mode.
    #[arg(long, value_name = "N", default_value_t = 6, requires = "sequential")]
    max_seeds: u32,
}

#[derive(Debug, Args)]
struct ReportArgs {
    /// A run directory written by `skillgate eval`.
    run_dir: PathBuf,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t = ReportFormat::Human)]
    format: ReportFormat,
    /// Configuration file for the verdict policy [default: the one recorded with the run].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ReportFormat {
    Human,
    Json,
    Markdown,
    Html,
}

#[derive(Debug, Clone, Args)]
struct CheckArgs {
    /// SKILL.md files or skill folders.
    #[arg(required = true, value_name = "SKILL")]
    skills: Vec<PathBuf>,
    /// The repository the skill is meant for: it is scanned once, and the project rules
    /// (SG4xx) compare the skill with it. Without it, configuration is read from the
    /// current folder and the project rules stay silent.
    #[arg(long, value_name = "DIR")]
    repo: Option<PathBuf>,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t = FormatArg::Human)]
    format: FormatArg,
    /// Run only these rules (codes or prefixes, e.g. SG2,SG301); replaces the config's list.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    select: Vec<String>,
    /// Skip these rules (codes or prefixes); added to the config's list.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    ignore: Vec<String>,
    /// The clients the skill is written for, e.g. `claude-code,codex` (claude-code, codex,
    /// cursor, copilot, generic); replaces the config's `targets`. Frontmatter keys that only
    /// other clients document become notes naming them [default: every client].
    #[arg(long, value_delimiter = ',', value_name = "CLIENTS", value_parser = parse_target)]
    target: Vec<crate::targets::Target>,
    /// Configuration file [default: skillgate.toml at the repository root, if present].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Report only findings not recorded in this baseline file.
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    baseline: Option<PathBuf>,
    /// Record the current findings as the baseline in FILE, and exit 0.
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
    /// Lowest severity that makes the exit status 1 [default: error].
    #[arg(long, value_enum, value_name = "LEVEL")]
    fail_on: Option<FailOnArg>,
    /// Colour in human output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Apply the safe fixes in place (unknown keys moved under `metadata`, unclosed fences
    /// closed, backslashes in paths turned into slashes, an invalid `name` set to the
    /// folder's name), say what changed on stderr, then check again.
    #[arg(long, conflicts_with_all = ["diff", "write_baseline"])]
    fix: bool,
    /// Print the fixes `--fix` would apply as a unified diff, write nothing, and exit 1 when
    /// the diff is not empty.
    #[arg(long, conflicts_with = "write_baseline")]
    diff: bool,
    /// With --fix or --diff, also apply fixes that change the skill's meaning (such as
    /// renaming `name` to match its folder).
    #[arg(long)]
    unsafe_fixes: bool,
    /// Count the tokens of a reference file that a size rule reports exactly; by default
    /// counting stops once the file is past the limit, and the message says "more than".
    #[arg(long)]
    exact_tokens: bool,
}

/// Output formats of `skillgate check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FormatArg {
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

impl From<FormatArg> for Format {
    fn from(arg: FormatArg) -> Format {
        match arg {
            FormatArg::Human => Format::Human,
            FormatArg::Concise => Format::Concise,
            FormatArg::Json => Format::Json,
            FormatArg::Sarif => Format::Sarif,
            FormatArg::Github => Format::Github,
            FormatArg::Markdown => Format::Markdown,
        }
    }
}

/// When a run fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FailOnArg {
    /// Fail on any error-level finding.
    Error,
    /// Fail on warnings and errors.
    Warning,
    /// Fail on any finding.
    Info,
    /// Never fail because of findings.
    Never,
}

impl From<FailOnArg> for FailOn {
    fn from(arg: FailOnArg) -> FailOn {
        match arg {
            FailOnArg::Error => FailOn::Error,
            FailOnArg::Warning => FailOn::Warning,
            FailOnArg::Info => FailOn::Info,
            FailOnArg::Never => FailOn::Never,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

mod audit;
mod error;
mod eval_args;
mod evaluate;
mod fix;
mod gate;
mod knowledge;
mod mine;

fn parse_target(s: &str) -> Result<crate::targets::Target, String> {
    s.parse()
}

use error::EXIT_INPUT;
pub use error::Error;
use eval_args::{EvalArgs, TasksCheckArgs};

/// Parse arguments and run; the binary's whole `main`.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // `--help` and `--version` print to stdout and succeed.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => return Error::from(e).report(),
    };
    let result = match cli.command {
        Command::Check(args) => check(&args),
        Command::Rules { markdown } => {
            let text = if markdown {
                rules_markdown()
            } else {
                rules_table()
            };
            print(&text).map(|()| ExitCode::SUCCESS)
        }
        Command::Rule { code } => match rule_doc(&code) {
            Some(rule) => print(&rule_text(&rule)).map(|()| ExitCode::SUCCESS),
            None => Err(Error::usage(
                format!("no rule {code:?}"),
                Some("`skillgate rules` lists them"),
            )),
        },
        Command::Eval(command) => evaluate::run(*command),
        Command::Tasks {
            command: TasksCommand::Check(args),
        } => evaluate::tasks_check(&args),
        Command::Tasks {
            command: TasksCommand::Mine(args),
        } => mine::run(&args),
        Command::Report(args) => evaluate::report(&args),
        Command::Audit(args) => audit::run(&args),
        Command::Merge(args) => audit::merge(&args),
        Command::Gate(args) => gate::run(&args),
        Command::Knowledge(args) => knowledge::run(&args),
    };
    result.unwrap_or_else(|e| e.report())
}

fn check(args: &CheckArgs) -> Result<ExitCode, Error> {
    let project = match &args.repo {
        Some(repo) if !repo.exists() => {
            return Err(Error::usage(
                format!("{}: the repository folder does not exist", repo.display()),
                None,
            ));
        }
        Some(repo) => Some(project::scan(repo)?),
        None => None,
    };
    let config = Config::for_repo(
        args.config.as_deref(),
        args.repo.as_deref().unwrap_or(Path::new(".")),
    )?;
    knowledge::install_configured(&config)?;
    let mut settings = config.lint();
    settings.exact_tokens = args.exact_tokens;
    if !args.target.is_empty() {
        settings.targets = args.target.clone();
    }
    if !args.select.is_empty() {
        settings.selection.select = args.select.clone();
    }
    settings
        .selection
        .ignore
        .extend(args.ignore.iter().cloned());
    if let Some(bad) = crate::audit::set::unknown(&settings.selection).first() {
        return Err(Error::usage(
            format!("--select/--ignore: {bad:?} matches no rule"),
            Some("`skillgate rules` lists them"),
        ));
    }
    let baseline = args.baseline.as_deref().map(Baseline::load).transpose()?;

    /// A skill of the report, in the order given: loaded (its index in `skills`), or not.
    enum Loaded {
        At(usize),
        Failed(Box<Report<'static>>),
    }
    let mut input_error = false;
    let mut skills = Vec::with_capacity(args.skills.len());
    let mut order = Vec::with_capacity(args.skills.len());
    // A folder without a manifest stands for every skill found below it; a skill reached
    // through a linked folder too is checked once.
    for found in discover::skills_of(&args.skills) {
        let loaded = found.and_then(|path| Skill::load(&path));
        match loaded {
            Ok(skill) => {
                order.push(Loaded::At(skills.len()));
                skills.push(skill);
            }
            Err(e) => {
                // Said on stderr with its context and, unless nothing is there at all,
                // made the skill's one finding (SG509) in the report; the other skills
                // are still checked.
                if !e.is_missing() {
                    order.push(Loaded::Failed(Box::new(Report::unloaded(&e))));
                }
                error::show(&Error::from(e));
                input_error = true;
            }
        }
    }
    let reports: Vec<Report<'_>> = order
        .into_iter()
        .map(|loaded| {
            let skill = match loaded {
                Loaded::At(i) => &skills[i],
                Loaded::Failed(report) => return *report,
            };
            let review = lint::review(skill, &settings, project.as_ref());
            // The verdict weighs every finding; a baseline only quiets the report.
            let verdict = Some(verdict::decide(&config.verdict, &review.findings, None));
            let findings = match &baseline {
                Some(b) => b.filter_new(review.findings),
                None => review.findings,
            };
            Report {
                skill: Some(skill),
                summary: Summary::of(skill),
                findings,
                verdict,
                panel: None,
                project: project
                    .as_ref()
                    .zip(review.fit)
                    .map(|(p, fit)| ProjectSummary::of(p, fit)),
            }
        })
        .collect();

    if args.fix || args.diff {
        let files = fix::plan(reports.iter().flat_map(|r| &r.findings), args.unsafe_fixes)?;
        if args.diff {
            let diff = fix::diff(&files);
            print(&diff)?;
            return Ok(ExitCode::from(if input_error {
                EXIT_INPUT
            } else {
                u8::from(!diff.is_empty())
            }));
        }
        fix::write(&files)?;
        drop(reports);
        drop(skills);
        let again = CheckArgs {
            fix: false,
            ..args.clone()
        };
        return check(&again);
    }

    if let Some(path) = &args.write_baseline {
        let all = Baseline::from_findings(reports.iter().flat_map(|r| &r.findings));
        all.save(path)?;
        eprintln!(
            "wrote {} findings to {}",
            all.findings.len(),
            path.display()
        );
        return Ok(ExitCode::from(if input_error { EXIT_INPUT } else { 0 }));
    }

    let rules_doc = rules_doc();
    let style = Style {
        color: use_color(args.color),
        width: terminal_width(),
        rules_doc: rules_doc.as_deref(),
    };
    print(&render::render(args.format.into(), &reports, style))?;
    let fail_on = args
        .fail_on
        .map(FailOn::from)
        .or(config.fail_on)
        .unwrap_or(FailOn::Error);
    Ok(if input_error {
        ExitCode::from(EXIT_INPUT)
    } else if reports
        .iter()
        .flat_map(|r| &r.findings)
        .any(|f| fail_on.fails(f.severity))
    {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal()
        }
    }
}

/// Where the rules' documentation of this version lives, for SARIF's `helpUri`: the URL in
/// `SKILLGATE_RULES_DOC` (the GitHub Action sets it to docs/rules.md at the action's own
/// ref), else docs/rules.md at this version's tag when the package names its repository.
fn rules_doc() -> Option<String> {
    if let Some(url) = std::env::var("SKILLGATE_RULES_DOC")
        .ok()
        .filter(|url| !url.trim().is_empty())
    {
        return Some(url.trim().to_owned());
    }
    let repository = env!("CARGO_PKG_REPOSITORY").trim_end_matches('/');
    (!repository.is_empty()).then(|| {
        format!(
            "{repository}/blob/v{}/docs/rules.md",
            env!("CARGO_PKG_VERSION")
        )
    })
}

fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(100)
}

/// One rule's documentation, for a per-skill rule and a set-level one alike: what
/// `skillgate rules`, `skillgate rule` and docs/rules.md print.
struct RuleText {
    /// Code, name, severity, what, why and the examples.
    doc: &'static crate::lint::RuleDoc,
    /// The family the rule is listed under.
    family: &'static str,
    /// A line after "Why" that only some rules have.
    note: Option<&'static str>,
}

/// Every rule in code order: the per-skill rules (the loader's among them), then the
/// set-level ones.
fn rule_docs() -> impl Iterator<Item = RuleText> {
    let skill = RULES.iter().map(|r| RuleText {
        doc: &r.doc,
        family: r.family().as_str(),
        note: None,
    });
    let load = &crate::lint::load::UNLOADABLE_SKILL;
    let load = std::iter::once(RuleText {
        doc: load,
        family: crate::lint::Family::of(load.code).as_str(),
        note: None,
    });
    let set = SET_RULES.iter().map(|&doc| RuleText {
        doc,
        family: "set",
        note: Some(
            "`skillgate audit` reports it across the skills it checks; see [audit] in skillgate.toml for its limits.",
        ),
    });
    let mut all: Vec<RuleText> = skill.chain(load).chain(set).collect();
    // In code order: the loader's rule sits among the per-skill rules of its family.
    all.sort_by_key(|r| r.doc.code);
    all.into_iter()
}

/// The documentation of the rule with this code or name.
fn rule_doc(key: &str) -> Option<RuleText> {
    rule_docs()
        .find(|r| r.doc.code.eq_ignore_ascii_case(key) || r.doc.name.eq_ignore_ascii_case(key))
}

fn rules_table() -> String {
    rule_docs()
        .map(|r| {
            format!(
                "{}  {:<7}  {:<30}  {}\n",
                r.doc.code,
                r.doc.severity.as_str(),
                r.doc.name,
                r.doc.summary
            )
        })
        .collect()
}

/// The full documentation of one rule, as printed by `skillgate rule`.
fn rule_text(r: &RuleText) -> String {
    let note = r.note.map(|n| format!("{n}\n\n")).unwrap_or_default();
    format!(
        "{code} {name} ({family}, {severity} by default)\n\n{summary}.\n\nWhat it checks\n  {what}\n\nWhy\n  {why}\n\n{note}Fires on\n{fires}\nPasses on\n{passes}",
        code = r.doc.code,
        name = r.doc.name,
        family = r.family,
        severity = r.doc.severity,
        summary = r.doc.summary,
        what = r.doc.what,
        why = r.doc.why,
        fires = indent(r.doc.fires),
        passes = indent(r.doc.passes),
    )
}

/// Every rule's documentation as one markdown page (docs/rules.md).
pub fn rules_markdown() -> String {
    let mut out = String::from(
        "# skillgate rules\n\nGenerated by `skillgate rules --markdown`; do not edit by hand.\n\n\
         An example of several files introduces each with a `==> path <==` line; a path under \
         `@repo/` is a file of the repository the skill is checked against (`--repo`), written \
         beside the skill folder.\n\n",
    );
    out.push_str("| Code | Name | Severity | Summary |\n|---|---|---|---|\n");
    for r in rule_docs() {
        out.push_str(&format!(
            "| [{code}](#{anchor}) | `{name}` | {severity} | {summary} |\n",
            code = r.doc.code,
            anchor = r.doc.code.to_lowercase(),
            name = r.doc.name,
            severity = r.doc.severity,
            summary = r.doc.summary,
        ));
    }
    for r in rule_docs() {
        out.push_str(&format!(
            "\n## {code}\n\n`{name}` · {family} · {severity} by default\n\n**What it checks.** {what}\n\n**Why.** {why}\n\n**Fires on:**\n\n````markdown\n{fires}````\n\n**Passes on:**\n\n````markdown\n{passes}````\n",
            code = r.doc.code,
            name = r.doc.name,
            family = r.family,
            severity = r.doc.severity,
            what = r.doc.what,
            why = r.doc.why,
            fires = r.doc.fires,
            passes = r.doc.passes,
        ));
    }
    out
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}\n")).collect()
}

/// Print to stdout; a closed pipe is not an error worth a message.
fn print(text: &str) -> Result<(), Error> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Output(e)),
        _ => Ok(()),
    }
}

//! `skillgate audit` and `skillgate merge`: many skills at once, and the shards of one audit
//! combined.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::{Error, FailOnArg, print};
use crate::audit::format::{AuditFormat, render};
use crate::audit::{self, Audit, AuditSettings, Checker, Shard, merge};
use crate::config::{Config, FailOn};
use crate::project;

/// Examples printed after `skillgate audit --help`.
pub(super) const AUDIT_EXAMPLES: &str = "\
Examples:
  skillgate audit skills/
  skillgate audit .claude/skills/ --repo . --fail-on warning
  skillgate audit pack/ --format html > audit.html
  skillgate audit pack/ --shard 2/4 --format jsonl > shard-2.jsonl
  skillgate merge shard-*.jsonl --format table";

/// Options of `skillgate audit`.
#[derive(Debug, Args)]
pub(super) struct AuditArgs {
    /// Folders holding skills anywhere below them (or skill folders, or SKILL.md files).
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// The repository the skills are meant for: scanned once, it adds the project rules
    /// (SG4xx) and each skill's stack fit.
    #[arg(long, value_name = "DIR")]
    repo: Option<PathBuf>,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t = AuditFormatArg::Table)]
    format: AuditFormatArg,
    /// Lowest severity that makes the exit status 1 [default: error]; an unreadable skill
    /// counts as an error.
    #[arg(long, value_enum, value_name = "LEVEL")]
    fail_on: Option<FailOnArg>,
    /// Audit only share K of N (1-based), chosen by a stable hash of each skill's path
    /// relative to its DIR; `skillgate merge` combines the N outputs (json or jsonl).
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Run only these rules (codes or prefixes, e.g. SG2,SG301); replaces the config's list.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    select: Vec<String>,
    /// Skip these rules (codes or prefixes); added to the config's list.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    ignore: Vec<String>,
    /// Configuration file [default: skillgate.toml at the repository root (or the current
    /// folder without --repo), if present].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Count the tokens of a reference file that a size rule reports exactly; by default
    /// counting stops once the file is past the limit, and the message says "more than".
    #[arg(long)]
    exact_tokens: bool,
}

/// Options of `skillgate merge`.
#[derive(Debug, Args)]
pub(super) struct MergeArgs {
    /// Outputs of `skillgate audit --format jsonl` or `--format json` (every shard of one
    /// split, or whole audits to combine); or the run directories of every shard of one
    /// `skillgate eval --shard K/N` split, joined into `--out`.
    #[arg(required = true, value_name = "FILE|RUN_DIR")]
    files: Vec<PathBuf>,
    /// Where the joined run directory goes (run directories only; a new folder).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t = AuditFormatArg::Table)]
    format: AuditFormatArg,
    /// Lowest severity that makes the exit status 1 [default: error].
    #[arg(long, value_enum, value_name = "LEVEL")]
    fail_on: Option<FailOnArg>,
}

/// Output formats of `skillgate audit` and `skillgate merge`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum AuditFormatArg {
    /// One line per skill, then the summary (the default).
    Table,
    /// One JSON document: the rows and the summary (docs/audit.md).
    Json,
    /// One JSON object per skill per line, then one line holding the summary.
    Jsonl,
    /// One CSV record per skill, with a header.
    Csv,
    /// A markdown table and the summary, for step summaries and pull request comments.
    Markdown,
    /// One self-contained HTML page: a sortable table and histograms.
    Html,
    /// SARIF 2.1.0: every finding of every skill, unreadable skills as notifications.
    Sarif,
}

impl From<AuditFormatArg> for AuditFormat {
    fn from(arg: AuditFormatArg) -> AuditFormat {
        match arg {
            AuditFormatArg::Table => AuditFormat::Table,
            AuditFormatArg::Json => AuditFormat::Json,
            AuditFormatArg::Jsonl => AuditFormat::Jsonl,
            AuditFormatArg::Csv => AuditFormat::Csv,
            AuditFormatArg::Markdown => AuditFormat::Markdown,
            AuditFormatArg::Html => AuditFormat::Html,
            AuditFormatArg::Sarif => AuditFormat::Sarif,
        }
    }
}

/// Run `skillgate audit`.
pub(super) fn run(args: &AuditArgs) -> Result<ExitCode, Error> {
    let config = Config::for_repo(
        args.config.as_deref(),
        args.repo.as_deref().unwrap_or(Path::new(".")),
    )?;
    super::knowledge::install_configured(&config)?;
    let mut settings = config.lint();
    settings.exact_tokens = args.exact_tokens;
    if !args.select.is_empty() {
        settings.selection.select = args.select.clone();
    }
    settings
        .selection
        .ignore
        .extend(args.ignore.iter().cloned());
    if let Some(bad) = audit::set::unknown(&settings.selection).first() {
        return Err(Error::usage(
            format!("--select/--ignore: {bad:?} matches no rule"),
            Some("`skillgate rules` lists them"),
        ));
    }
    let project = match &args.repo {
        Some(repo) if !repo.is_dir() => {
            return Err(Error::usage(
                format!("{}: the repository folder does not exist", repo.display()),
                None,
            ));
        }
        Some(repo) => Some(project::scan(repo)?),
        None => None,
    };
    let targets = audit::targets(&args.dirs, args.shard);
    // A given path with nothing there is the user's mistake (exit 2), said once on stderr;
    // the skills of the other paths are still audited.
    for e in &targets.unreachable {
        super::error::show(e);
    }
    let input_error = !targets.unreachable.is_empty();
    if input_error && targets.paths.is_empty() {
        return Ok(ExitCode::from(super::error::EXIT_INPUT));
    }
    let checker = Checker {
        settings: &settings,
        policy: &config.verdict,
        project: project.as_ref(),
    };
    let rows = audit::check_all(&targets.paths, &checker, std::io::stderr().is_terminal());
    let audit_settings = AuditSettings {
        disabled: audit::set::disabled(&settings.selection),
        ..config.audit.clone()
    };
    let audit = Audit::assemble(rows, &audit_settings, project.is_some(), args.shard);
    let fail_on = args.fail_on.map(FailOn::from).or(config.fail_on);
    let status = finish(&audit, args.format.into(), fail_on)?;
    Ok(if input_error {
        ExitCode::from(super::error::EXIT_INPUT)
    } else {
        status
    })
}

/// Run `skillgate merge`: evaluation run directories when every input is a folder, audit
/// outputs otherwise.
pub(super) fn merge(args: &MergeArgs) -> Result<ExitCode, Error> {
    let folders = args.files.iter().filter(|p| p.is_dir()).count();
    if folders == args.files.len() {
        let out = args.out.as_deref().ok_or_else(|| {
            Error::usage(
                "merging run directories needs --out DIR, the new run directory",
                Some("skillgate merge shard-1 shard-2 --out run"),
            )
        })?;
        return super::evaluate::merge_runs(&args.files, out);
    }
    if folders > 0 {
        return Err(Error::usage(
            "give either audit outputs (files) or evaluation run directories (folders), not both",
            None,
        ));
    }
    if args.out.is_some() {
        return Err(Error::usage(
            "--out is for run directories; an audit merge prints to standard output",
            None,
        ));
    }
    let audit = merge::merge(&args.files)?;
    finish(&audit, args.format.into(), args.fail_on.map(FailOn::from))
}

/// Print the audit and choose the exit status.
fn finish(audit: &Audit, format: AuditFormat, fail_on: Option<FailOn>) -> Result<ExitCode, Error> {
    print(&render(format, audit, super::rules_doc().as_deref()))?;
    let fail_on = fail_on.unwrap_or(FailOn::Error);
    Ok(if audit.fails(|s| fail_on.fails(s)) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

//! `skillgate audit` and `skillgate merge`: many skills at once, and the shards of one audit
//! combined.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::{fail, print};
use crate::audit::render::{AuditFormat, render};
use crate::audit::{self, Audit, Checker, Shard, merge};
use crate::config::{Config, FailOn};
use crate::lint::Selection;
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
    #[arg(long, short, value_enum, default_value_t = AuditFormat::Table)]
    format: AuditFormat,
    /// Lowest severity that makes the exit status 1 [default: error]; an unreadable skill
    /// counts as an error.
    #[arg(long, value_enum, value_name = "LEVEL")]
    fail_on: Option<FailOn>,
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
}

/// Options of `skillgate merge`.
#[derive(Debug, Args)]
pub(super) struct MergeArgs {
    /// Outputs of `skillgate audit --format jsonl` or `--format json`: every shard of one
    /// split, or whole audits to combine.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t = AuditFormat::Table)]
    format: AuditFormat,
    /// Lowest severity that makes the exit status 1 [default: error].
    #[arg(long, value_enum, value_name = "LEVEL")]
    fail_on: Option<FailOn>,
}

/// Run `skillgate audit`.
pub(super) fn run(args: &AuditArgs) -> ExitCode {
    let config = match load_config(args.config.as_deref(), args.repo.as_deref()) {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    let selection = Selection {
        select: if args.select.is_empty() {
            config.select.clone()
        } else {
            args.select.clone()
        },
        ignore: config.ignore.iter().chain(&args.ignore).cloned().collect(),
    };
    if let Some(bad) = selection.unknown().first() {
        return fail(&format!(
            "--select/--ignore: {bad:?} matches no rule; `skillgate rules` lists them"
        ));
    }
    let project = match &args.repo {
        Some(repo) if !repo.is_dir() => {
            return fail(&format!(
                "{}: the repository folder does not exist",
                repo.display()
            ));
        }
        Some(repo) => match project::scan(repo) {
            Ok(project) => Some(project),
            Err(e) => return fail(&e.to_string()),
        },
        None => None,
    };
    let targets = match audit::targets(&args.dirs, args.shard) {
        Ok(t) => t,
        Err(e) => return fail(&e.to_string()),
    };
    let checker = Checker {
        config: &config,
        selection: &selection,
        project: project.as_ref(),
    };
    let rows = audit::check_all(&targets, &checker, std::io::stderr().is_terminal());
    let audit = Audit::assemble(rows, &config.audit, project.is_some(), args.shard);
    finish(&audit, args.format, args.fail_on.or(config.fail_on))
}

/// Run `skillgate merge`.
pub(super) fn merge(args: &MergeArgs) -> ExitCode {
    match merge::merge(&args.files) {
        Ok(audit) => finish(&audit, args.format, args.fail_on),
        Err(e) => fail(&e.to_string()),
    }
}

/// Print the audit and choose the exit status.
fn finish(audit: &Audit, format: AuditFormat, fail_on: Option<FailOn>) -> ExitCode {
    let printed = print(&render(format, audit));
    if printed != ExitCode::SUCCESS {
        printed
    } else if audit.fails(fail_on.unwrap_or(FailOn::Error)) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn load_config(path: Option<&Path>, repo: Option<&Path>) -> Result<Config, String> {
    match path {
        Some(path) => Config::load(path).map_err(|e| e.to_string()),
        None => Config::discover(repo.unwrap_or(Path::new(".")))
            .map(|c| c.map(|(_, c)| c).unwrap_or_default())
            .map_err(|e| e.to_string()),
    }
}

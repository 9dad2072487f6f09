//! `skillgate tasks mine`: tasks from the repository's own history.

use std::path::PathBuf;
use std::process::ExitCode;

use super::Error;
use super::eval_args::BackendArg;
use crate::eval::Backend;
use crate::mine::history::Range;
use crate::mine::{self, DEFAULT_MAX_LINES, MineError, MineOptions};

pub(super) const MINE_EXAMPLES: &str = "\
Examples:
  skillgate tasks mine --repo . --out tasks/mined --last 200 --max 20 --backend local
  skillgate tasks mine --repo . --out tasks/mined --since v1.4.0 --paths 'src/**'
  skillgate tasks mine --repo . --out tasks/mined --test-cmd 'make test TESTS=\"{files}\"'";

/// `skillgate tasks mine` arguments.
#[derive(Debug, Clone, clap::Args)]
pub(super) struct MineArgs {
    /// The repository whose history is mined (its top-level folder).
    #[arg(long, default_value = ".")]
    repo: PathBuf,
    /// Where the task folders are written (one per kept commit).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Read the commits after this revision (a tag, branch or hash), up to HEAD.
    #[arg(long, value_name = "REV", conflicts_with = "last")]
    since: Option<String>,
    /// Read the last N first-parent commits of HEAD [default: 100].
    #[arg(long, value_name = "N")]
    last: Option<usize>,
    /// Stop after keeping N tasks (each costs four test runs).
    #[arg(long, value_name = "N", default_value_t = 20)]
    max: usize,
    /// Only commits that change a path matching one of these globs (`*`, `**`, `?`; a
    /// folder matches everything under it).
    #[arg(long, value_name = "GLOB", num_args = 1..)]
    paths: Vec<String>,
    /// Drop commits whose diff has more changed lines (added plus removed) than this.
    #[arg(long, value_name = "LINES", default_value_t = DEFAULT_MAX_LINES)]
    max_lines: u64,
    /// The test command, instead of the one detected per ecosystem; `{files}` expands to
    /// the commit's test source files (not the data beside them). Its output must show a
    /// test runner's summary (or a JUnit XML report) for the tests to count.
    #[arg(long, value_name = "CMD")]
    test_cmd: Option<String>,
    /// The Docker image the tasks run in [default: one per ecosystem, e.g. python:3.12-slim].
    #[arg(long, value_name = "IMAGE")]
    image: Option<String>,
    /// Sandbox backend proving each task (the verifier fails on the base and passes after
    /// the oracle, twice each).
    #[arg(long, value_enum, default_value = "docker")]
    backend: BackendArg,
    /// Continue the mining run recorded in --out: commits it decided are not tried again,
    /// and the tasks it kept count toward --max.
    #[arg(long)]
    resume: bool,
}

/// Mines, printing each candidate with kept or the reason it was dropped.
pub(super) fn run(args: &MineArgs) -> Result<ExitCode, Error> {
    if args.max == 0 {
        return Err(Error::usage("--max must be at least 1", None));
    }
    let range = match (&args.since, args.last) {
        (Some(rev), _) => Range::Since(rev.clone()),
        (None, Some(0)) => return Err(Error::usage("--last must be at least 1", None)),
        (None, last) => Range::Last(last.unwrap_or(100)),
    };
    let options = MineOptions {
        repo: args.repo.clone(),
        out: args.out.clone(),
        range,
        max: args.max,
        paths: args.paths.clone(),
        max_lines: args.max_lines,
        test_cmd: args.test_cmd.clone(),
        image: args.image.clone(),
        resume: args.resume,
    };
    let logs = tempfile::tempdir()
        .map_err(|e| crate::eval::EvalError::io("creating", "a temporary folder", e))?;
    let backend = Backend::from(args.backend);
    let sandbox = crate::eval::sandbox_for(
        backend,
        &crate::eval::run_id(logs.path()),
        None,
        false,
        false,
    )?;
    let mut print = |c: &mine::Candidate| println!("{c}");
    let candidates = mine::mine(&options, sandbox.as_ref(), &mut print).map_err(|e| match e {
        // Interruptions and sandbox failures end the command as they end `eval`.
        MineError::Eval(e) => Error::from(e),
        other => Error::Mine(other),
    })?;
    let kept = candidates.iter().filter(|c| c.result.is_ok()).count();
    let tried = candidates
        .iter()
        .filter(|c| match &c.result {
            Ok(_) => true,
            Err(reason) => matches!(reason, mine::history::Drop::Task(_)),
        })
        .count();
    eprintln!(
        "{kept} task(s) kept of {tried} candidate(s) in {} commit(s) read, in {}",
        candidates.len(),
        args.out.display()
    );
    let mut reasons: std::collections::BTreeMap<&str, usize> = Default::default();
    for c in &candidates {
        if let Err(reason) = &c.result {
            *reasons.entry(reason.label()).or_default() += 1;
        }
    }
    if !reasons.is_empty() {
        let listed: Vec<String> = reasons.iter().map(|(r, n)| format!("{n} {r}")).collect();
        eprintln!("dropped: {}", listed.join(", "));
    }
    Ok(ExitCode::SUCCESS)
}

//! `skillgate tasks mine`: evaluation tasks from a repository's own history.
//!
//! Every first-parent commit that changed source together with tests is a task: its message
//! is the instruction, its parent the base commit, its test files the verifier and the rest
//! of its diff the oracle. A merge on the first-parent line is one too, through its diff
//! against its first parent and the pull request's title and body. Discovery reads the
//! history with one `git log`; each candidate is then written in the Harbor layout into a
//! staging folder beside `--out` and moved into `--out` only when proved: twice each, at least
//! one selected test fails on the base and every selected test passes after the oracle, as
//! counted from the test runner's own summary, in the evaluation's own sandbox.
//!
//! This layer sits above `eval` (it writes the folders `eval` reads, and proves them with its
//! sandboxes) and below the command line.

pub mod cfg_test;
pub mod counts;
pub mod history;
pub mod paths;
pub mod unstated;
pub mod verifier;
pub mod write;

use std::path::{Path, PathBuf};

use std::io::Write as _;

use crate::eval::sandbox::Sandbox;
use crate::eval::task::Task;
use crate::eval::{EvalError, runner};
use counts::TestCounts;
use history::{Commit, Drop, Range, glob_lite};

/// Diff size bound (lines added plus removed) when none is given.
pub const DEFAULT_MAX_LINES: u64 = 1000;
/// Runs of the verifier on each side of the proof: a result that flips between them is flaky.
const PROOF_RUNS: usize = 2;
/// Longest slug of the subject in a task id.
const SLUG_CHARS: usize = 48;
/// The record of a mining run inside `--out`, one decided commit a line, which `--resume`
/// continues from: `<hash>\tkept\t<task id>` or `<hash>\tdropped\t<reason>`.
pub const PROGRESS_FILE: &str = ".skillgate-mine.tsv";

/// Everything that stops mining as a whole.
#[derive(Debug, thiserror::Error)]
pub enum MineError {
    /// git cannot be started.
    #[error("cannot run git: {0}")]
    NoGit(std::io::Error),
    /// A git command failed.
    #[error("git {command} in {}: {stderr}", repo.display())]
    Git {
        /// The arguments given to git.
        command: String,
        /// The repository.
        repo: PathBuf,
        /// What git said.
        stderr: String,
    },
    /// The repository cannot be scanned for its test runners.
    #[error(transparent)]
    Scan(#[from] crate::project::ScanError),
    /// `--repo` names no folder.
    #[error("--repo {}: no such folder", .0.display())]
    NoRepository(PathBuf),
    /// `--repo` is not in a git repository.
    #[error("--repo {}: not a git repository (mining reads its history)", .0.display())]
    NotARepository(PathBuf),
    /// `--repo` is inside a repository but not its top-level folder.
    #[error("--repo {}: give the repository's top-level folder ({})", repo.display(), top.display())]
    NotTopLevel {
        /// The folder given.
        repo: PathBuf,
        /// The repository's top-level folder.
        top: PathBuf,
    },
    /// `--since` names no commit.
    #[error("--since {0}: no such commit in the repository")]
    UnknownRevision(String),
    /// A `--paths` glob cannot be compiled.
    #[error("--paths {glob:?}: {error}")]
    BadPattern {
        /// The glob as given.
        glob: String,
        /// Why it cannot be compiled.
        error: regex::Error,
    },
    /// A file could not be read or written.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The evaluation layer failed (sandbox unusable, interrupted...).
    #[error(transparent)]
    Eval(#[from] EvalError),
}

impl miette::Diagnostic for MineError {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        let code = match self {
            Self::Eval(e) => return e.code(),
            Self::NoGit(_) | Self::Git { .. } => "git",
            Self::Scan(_) => "scan",
            Self::NoRepository(_) | Self::NotARepository(_) | Self::NotTopLevel { .. } => {
                "repository"
            }
            Self::UnknownRevision(_) | Self::BadPattern { .. } => "option",
            Self::Io { .. } => "io",
        };
        Some(Box::new(format!("skillgate::mine::{code}")))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        let help = match self {
            Self::Eval(e) => return e.help(),
            Self::NoGit(_) => "install git; mining reads the repository's history with it",
            Self::NotARepository(_) => "mine a clone with its history (not a shallow export)",
            Self::UnknownRevision(_) => {
                "give a commit, tag or branch of this clone (fetch it first if it is remote)"
            }
            Self::BadPattern { .. } => "`*` matches within a folder, `**/` any folders",
            _ => return None,
        };
        Some(Box::new(help))
    }
}

impl MineError {
    /// Wraps an I/O error with the action and path it happened on.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

/// The options of one mining run.
#[derive(Debug, Clone)]
pub struct MineOptions {
    /// The repository (its top-level folder).
    pub repo: PathBuf,
    /// Where task folders are written.
    pub out: PathBuf,
    /// Which commits to read.
    pub range: Range,
    /// Most tasks to keep.
    pub max: usize,
    /// Only commits changing a path matching one of these globs.
    pub paths: Vec<String>,
    /// Diff size bound (lines added plus removed).
    pub max_lines: u64,
    /// The test command, instead of the detected one (`{files}`: the test files).
    pub test_cmd: Option<String>,
    /// `[environment] docker_image` of the tasks (default: one per ecosystem).
    pub image: Option<String>,
    /// Continue the run recorded in `out`: commits it decided are not tried again and its
    /// kept tasks count toward `max`.
    pub resume: bool,
}

/// What became of one commit.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The commit's short hash.
    pub commit: String,
    /// Its subject.
    pub subject: String,
    /// The task id when kept, the reason when dropped.
    pub result: Result<String, Drop>,
    /// What the proof counted: the tests on the base, then after the oracle (first run).
    pub counts: Option<(TestCounts, TestCounts)>,
    /// Whether an earlier run decided it (`--resume`).
    pub earlier: bool,
}

impl std::fmt::Display for Candidate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let status = if self.result.is_ok() {
            "kept    "
        } else {
            "dropped "
        };
        write!(f, "{status} {}  {}", self.commit, self.subject)?;
        if let Some((base, oracle)) = &self.counts {
            write!(f, "  [tests on base: {base}; with oracle: {oracle}]")?;
        }
        if self.earlier {
            write!(f, "  (earlier run)")?;
        }
        match &self.result {
            Ok(task) => write!(f, "  -> {task}"),
            Err(reason) => write!(f, "  ({reason})"),
        }
    }
}

/// The two sides of a proof, as counted from the first run of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proof {
    /// The verifier on the base commit.
    pub base: TestCounts,
    /// The verifier after the oracle.
    pub oracle: TestCounts,
}

/// Reads the history and judges every commit from its paths alone (no test runs).
pub fn discover(
    repo: &Path,
    range: &Range,
    paths: &[String],
    max_lines: u64,
) -> Result<Vec<(Commit, Option<Drop>)>, MineError> {
    let patterns = paths
        .iter()
        .map(|p| glob_lite::Pattern::new(p))
        .collect::<Result<Vec<_>, _>>()?;
    let commits = history::read(repo, range)?;
    Ok(commits
        .into_iter()
        .map(|c| {
            let verdict = history::judge(&c, &patterns, max_lines);
            (c, verdict)
        })
        .collect())
}

/// Mines `options.repo`: discovers candidates, writes each as a task and keeps those whose
/// proof holds, until `options.max` are kept. `report` sees every candidate as it is decided.
/// A commit that git cannot read (a missing object, a broken archive) is dropped with git's
/// own words; the run goes on.
pub fn mine(
    options: &MineOptions,
    sandbox: &dyn Sandbox,
    report: &mut dyn FnMut(&Candidate),
) -> Result<Vec<Candidate>, MineError> {
    let repo = top_level(&options.repo)?;
    let found = discover(&repo, &options.range, &options.paths, options.max_lines)?;
    let project = crate::project::scan(&repo)?;
    let writer = write::Writer {
        runners: verifier::Runners::detect(&project, &repo),
        test_cmd: options.test_cmd.clone(),
        image: options.image.clone(),
    };
    std::fs::create_dir_all(&options.out)
        .map_err(|e| MineError::io("creating", &options.out, e))?;
    let earlier = match options.resume {
        true => progress::read(&options.out)?,
        false => Vec::new(),
    };
    let mut log = progress::Log::open(&options.out, options.resume)?;
    // A run cut short at once (a second Ctrl-C) cannot remove its staging folder: the next
    // run into the same `--out` does.
    remove_stale_staging(&options.out);
    let staging = staging_dir(&options.out)?;
    let scratch = tempfile::Builder::new()
        .prefix("skillgate-mine-")
        .tempdir()
        .map_err(|e| MineError::io("creating", "a temporary folder", e))?;
    let mut kept = 0;
    let mut all = Vec::new();
    for (commit, dropped) in found {
        if kept >= options.max {
            break;
        }
        if let Some(done) = earlier.iter().find(|d| d.commit == commit.id) {
            // Decided by the run being resumed: a kept task counts while its folder is there.
            let result = match &done.result {
                Ok(id) if options.out.join(id).join("task.toml").is_file() => Ok(id.clone()),
                Ok(_) => Err(None),
                Err(reason) => Err(Some(reason.clone())),
            };
            if let Err(None) = result {
                // Its folder was removed since: tried again below.
            } else {
                let candidate = Candidate {
                    commit: commit.short().to_owned(),
                    subject: commit.subject.clone(),
                    result: result.map_err(|r| Drop::Task(r.unwrap_or_default())),
                    counts: None,
                    earlier: true,
                };
                kept += usize::from(candidate.result.is_ok());
                report(&candidate);
                all.push(candidate);
                continue;
            }
        }
        let mut counts = None;
        let result = match dropped {
            Some(reason) => Err(reason),
            None => {
                let id = task_id(&commit);
                let staged = staging.path().join(&id);
                let proved =
                    match make_task(&repo, &writer, &commit, &staged, sandbox, scratch.path()) {
                        Ok(proved) => proved,
                        // git could not read this commit: its reason, and on to the next.
                        Err(e @ MineError::Git { .. }) => {
                            Err(format!("git failed: {}", e.to_string().replace('\n', "; ")))
                        }
                        Err(e) => return Err(e),
                    };
                match proved {
                    Ok(proof) => {
                        counts = Some((proof.base, proof.oracle));
                        record_counts(&staged, &proof)?;
                        publish(&staged, &options.out.join(&id))?;
                        Ok(id)
                    }
                    Err(reason) => {
                        if staged.exists() {
                            std::fs::remove_dir_all(&staged)
                                .map_err(|e| MineError::io("removing", &staged, e))?;
                        }
                        Err(Drop::Task(reason))
                    }
                }
            }
        };
        kept += usize::from(result.is_ok());
        let candidate = Candidate {
            commit: commit.short().to_owned(),
            subject: commit.subject.clone(),
            result,
            counts,
            earlier: false,
        };
        log.record(&commit.id, &candidate.result)?;
        report(&candidate);
        all.push(candidate);
    }
    Ok(all)
}

/// The folder tasks are written in before their proof: beside `out` (same file system, so a
/// proved task moves in with one rename; `out` itself only ever holds whole tasks).
fn staging_dir(out: &Path) -> Result<tempfile::TempDir, MineError> {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    tempfile::Builder::new()
        .prefix(&staging_prefix(out))
        .tempdir_in(&parent)
        .map_err(|e| MineError::io("creating a staging folder in", parent, e))
}

/// The prefix of the staging folders of `out` in its parent.
fn staging_prefix(out: &Path) -> String {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "tasks".into());
    format!(".{name}.mining-")
}

/// Removes the staging folders a killed run left beside `out` (a run that ends on its own
/// removes its own).
fn remove_stale_staging(out: &Path) {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    let prefix = staging_prefix(out);
    for entry in std::fs::read_dir(&parent).into_iter().flatten().flatten() {
        if entry.file_name().to_string_lossy().starts_with(&prefix) && entry.path().is_dir() {
            std::fs::remove_dir_all(entry.path()).ok();
        }
    }
}

/// Moves a proved task into `out`, replacing a task of the same id.
fn publish(staged: &Path, dest: &Path) -> Result<(), MineError> {
    if dest.exists() {
        std::fs::remove_dir_all(dest).map_err(|e| MineError::io("removing", dest, e))?;
    }
    std::fs::rename(staged, dest).map_err(|e| MineError::io("moving a proved task to", dest, e))
}

/// Writes what the proof counted into the task's `[metadata]`.
fn record_counts(dir: &Path, proof: &Proof) -> Result<(), MineError> {
    let path = dir.join("task.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| MineError::io("reading", &path, e))?;
    let table = |c: &TestCounts| {
        format!(
            "{{ run = {}, passed = {}, failed = {}{} }}",
            c.run,
            c.passed,
            c.failed,
            if c.build_failed {
                ", build_failed = true"
            } else {
                ""
            }
        )
    };
    let lines = format!(
        "[metadata]\ntests_on_base = {}\ntests_with_oracle = {}\n",
        table(&proof.base),
        table(&proof.oracle)
    );
    let text = text.replacen("[metadata]\n", &lines, 1);
    std::fs::write(&path, text).map_err(|e| MineError::io("writing", &path, e))
}

/// Writes one candidate in `dir` and proves it; `Err(reason)` drops it.
fn make_task(
    repo: &Path,
    writer: &write::Writer,
    commit: &Commit,
    dir: &Path,
    sandbox: &dyn Sandbox,
    scratch: &Path,
) -> Result<Result<Proof, String>, MineError> {
    if let Err(reason) = writer.write(repo, commit, dir)? {
        return Ok(Err(reason));
    }
    let task = match Task::load(dir) {
        Ok(task) => task,
        Err(e) => return Ok(Err(format!("the written task does not load: {e}"))),
    };
    let problems = task.problems(None);
    if !problems.is_empty() {
        return Ok(Err(crate::eval::task::join(&problems)));
    }
    let Some(base_commit) = task.base_commit() else {
        return Ok(Err("the task names no base commit".into()));
    };
    let unpacked = scratch.join(commit.short());
    let workspace = match crate::eval::base::unpack(repo, base_commit, &unpacked) {
        Ok(workspace) => workspace,
        // git cannot read this commit (a missing object): git's words are the reason.
        Err(e @ (EvalError::Archive { .. } | EvalError::MissingBaseCommit { .. })) => {
            return Ok(Err(format!("git failed: {e}")));
        }
        Err(e) => return Err(e.into()),
    };
    sandbox.prepare(std::slice::from_ref(&task))?;
    let mut untouched = Vec::new();
    let mut solved = Vec::new();
    for run in 0..PROOF_RUNS {
        let logs = scratch.join(format!("logs-{}-{run}", commit.short()));
        let proof = runner::prove_discrimination(sandbox, &task, &workspace, &logs, false);
        if sandbox.interrupted() {
            sandbox.after_interrupt();
            return Err(EvalError::Interrupted.into());
        }
        match proof {
            Ok(Some(d)) => {
                untouched.push(d.untouched);
                solved.push(d.solved);
            }
            Ok(None) => return Ok(Err("the task has no solution".into())),
            Err(e) => return Ok(Err(format!("proof failed: {e}"))),
        }
    }
    std::fs::remove_dir_all(&unpacked).ok();
    Ok(judge_proof(&untouched, &solved))
}

/// Kept only when every run on the base fails, every run after the oracle passes, and the
/// test runner's summaries say so too: at least one selected test failed on the base (or
/// none could be built) and tests ran after the oracle, all passing.
fn judge_proof(untouched: &[runner::Verdict], solved: &[runner::Verdict]) -> Result<Proof, String> {
    let passes = |v: &[runner::Verdict]| v.iter().filter(|r| r.passed).count();
    let (base, oracle) = (passes(untouched), passes(solved));
    // The first line a tool marks as an error (cargo's reason comes before its reminders),
    // else the last line (a Python traceback ends with the exception).
    let last_line = |v: &[runner::Verdict]| {
        v.iter()
            .find(|r| !r.passed)
            .and_then(|r| {
                let mut lines = r.output.lines().map(str::trim);
                lines
                    .clone()
                    .find(|l| l.starts_with("error:") || l.starts_with("error["))
                    .or_else(|| lines.rfind(|l| !l.is_empty()))
            })
            .map(|l| format!(": {l}"))
            .unwrap_or_default()
    };
    if (base > 0 && base < untouched.len()) || (oracle > 0 && oracle < solved.len()) {
        return Err(format!(
            "flaky: the verifier passed {base}/{} runs on the base and {oracle}/{} after the oracle",
            untouched.len(),
            solved.len()
        ));
    }
    if base > 0 {
        return Err(
            "the verifier passes on the base commit (the tests do not need the change)".into(),
        );
    }
    if oracle == 0 {
        return Err(format!(
            "the verifier fails after the oracle{}",
            last_line(solved)
        ));
    }
    let mut proof: Option<Proof> = None;
    for (u, s) in untouched.iter().zip(solved) {
        let Some(after) = counts::read(&s.output) else {
            return Err(
                "the verifier's output shows no test count after the oracle (no test runner's summary to read)"
                    .into(),
            );
        };
        if after.run == 0 {
            return Err(format!(
                "the verifier ran no test after the oracle ({after}): a pass that proves nothing"
            ));
        }
        if !after.all_passed() {
            return Err(format!(
                "the verifier exits 0 after the oracle but its tests report {after}"
            ));
        }
        let before = match counts::read(&u.output) {
            Some(c) if c.some_failed() => c,
            Some(c) => {
                return Err(format!(
                    "no selected test fails on the base ({c}): the verifier fails for another reason{}",
                    last_line(untouched)
                ));
            }
            None => {
                return Err(format!(
                    "no selected test ran on the base: the verifier fails before its tests{}",
                    last_line(untouched)
                ));
            }
        };
        proof.get_or_insert(Proof {
            base: before,
            oracle: after,
        });
    }
    proof.ok_or_else(|| "the proof ran no verifier".to_owned())
}

/// The repository's top-level folder; `--repo` must be it (paths in the history are
/// relative to it).
fn top_level(repo: &Path) -> Result<PathBuf, MineError> {
    if !repo.is_dir() {
        return Err(MineError::NoRepository(repo.to_owned()));
    }
    let out = history::git(repo, &["rev-parse", "--show-toplevel"])
        .map_err(|_| MineError::NotARepository(repo.to_owned()))?;
    let top = PathBuf::from(String::from_utf8_lossy(&out).trim());
    let same = std::fs::canonicalize(&top).ok() == std::fs::canonicalize(repo).ok();
    if !same {
        return Err(MineError::NotTopLevel {
            repo: repo.to_owned(),
            top,
        });
    }
    Ok(repo.to_owned())
}

/// `<short hash>-<subject slug>`.
pub fn task_id(commit: &Commit) -> String {
    let mut slug = String::new();
    for word in write::clean_subject(&commit.subject)
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if slug.len() + word.len() + 1 > SLUG_CHARS {
            break;
        }
        slug.push('-');
        slug.push_str(&word.to_ascii_lowercase());
    }
    format!("{}{slug}", &commit.id[..commit.id.len().min(7)])
}

/// The record of a mining run, for `--resume`.
mod progress {
    use super::*;

    /// One commit an earlier run decided.
    pub struct Done {
        /// Its full hash.
        pub commit: String,
        /// The task id when kept, the reason when dropped.
        pub result: Result<String, String>,
    }

    /// The commits recorded in `out` (none when no run was recorded there).
    pub fn read(out: &Path) -> Result<Vec<Done>, MineError> {
        let path = out.join(PROGRESS_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(MineError::io("reading", &path, e)),
        };
        Ok(text
            .lines()
            .filter_map(|line| {
                let mut fields = line.splitn(3, '\t');
                let commit = fields.next()?.to_owned();
                let result = match (fields.next()?, fields.next()?) {
                    ("kept", id) => Ok(id.to_owned()),
                    ("dropped", reason) => Err(reason.to_owned()),
                    _ => return None,
                };
                Some(Done { commit, result })
            })
            .collect())
    }

    /// The record being written.
    pub struct Log {
        file: std::fs::File,
        path: PathBuf,
    }

    impl Log {
        /// Opens the record in `out`: appended to when resuming, else started afresh.
        pub fn open(out: &Path, resume: bool) -> Result<Log, MineError> {
            let path = out.join(PROGRESS_FILE);
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(resume)
                .write(true)
                .truncate(!resume)
                .open(&path)
                .map_err(|e| MineError::io("opening", &path, e))?;
            Ok(Log { file, path })
        }

        /// Records one decided commit.
        pub fn record(
            &mut self,
            commit: &str,
            result: &Result<String, Drop>,
        ) -> Result<(), MineError> {
            let line = match result {
                Ok(id) => format!("{commit}\tkept\t{id}\n"),
                Err(reason) => {
                    let reason = reason.to_string().replace(['\n', '\t'], " ");
                    format!("{commit}\tdropped\t{reason}\n")
                }
            };
            self.file
                .write_all(line.as_bytes())
                .and_then(|()| self.file.flush())
                .map_err(|e| MineError::io("writing", &self.path, e))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(passed: bool) -> runner::Verdict {
        runner::Verdict {
            passed,
            reward: None,
            rewards: Default::default(),
            timed_out: false,
            network: false,
            output: if passed {
                "Ran 1 test in 0.001s\n\nOK\n"
            } else {
                "AssertionError: 2 != 3\n\nRan 1 test in 0.001s\n\nFAILED (failures=1)\n"
            }
            .into(),
        }
    }

    #[test]
    fn proofs_are_judged_over_both_runs() {
        let (f, p) = (verdict(false), verdict(true));
        let one = |passed, failed| TestCounts {
            run: passed + failed,
            passed,
            failed,
            build_failed: false,
        };
        assert_eq!(
            judge_proof(&[f.clone(), f.clone()], &[p.clone(), p.clone()]),
            Ok(Proof {
                base: one(0, 1),
                oracle: one(1, 0)
            })
        );
        assert!(
            judge_proof(&[f.clone(), p.clone()], &[p.clone(), p.clone()])
                .unwrap_err()
                .starts_with("flaky")
        );
        assert!(
            judge_proof(&[f.clone(), f.clone()], &[p.clone(), f.clone()])
                .unwrap_err()
                .starts_with("flaky")
        );
        assert!(
            judge_proof(&[p.clone(), p.clone()], &[p.clone(), p.clone()])
                .unwrap_err()
                .contains("passes on the base")
        );
        assert!(
            judge_proof(&[f.clone(), f.clone()], &[f.clone(), f.clone()])
                .unwrap_err()
                .ends_with("FAILED (failures=1)")
        );
        let mut offline = f.clone();
        offline.output = "error: no matching package named `memchr` found\nnote: offline\nAs a reminder, you're using offline mode\n".into();
        assert!(
            judge_proof(&[f.clone(), f], &[offline.clone(), offline])
                .unwrap_err()
                .ends_with("error: no matching package named `memchr` found")
        );
    }

    #[test]
    fn a_pass_is_a_proof_only_when_tests_ran() {
        let f = verdict(false);
        let mut zero = verdict(true);
        zero.output = "\n----------------------------------------------------------------------\nRan 0 tests in 0.000s\n\nOK\n".into();
        let reason = judge_proof(&[f.clone(), f.clone()], &[zero.clone(), zero]).unwrap_err();
        assert!(reason.contains("ran no test after the oracle"), "{reason}");
        let mut silent = verdict(true);
        silent.output = "done\n".into();
        let reason = judge_proof(&[f.clone(), f.clone()], &[silent.clone(), silent]).unwrap_err();
        assert!(reason.contains("shows no test count"), "{reason}");
        // The base fails, but before any test: a missing file, not a missing change.
        let mut broken = verdict(false);
        broken.output = "cp: cannot stat 'tests/files/.': No such file or directory\n".into();
        let p = verdict(true);
        let reason = judge_proof(&[broken.clone(), broken], &[p.clone(), p.clone()]).unwrap_err();
        assert!(
            reason.starts_with("no selected test ran on the base"),
            "{reason}"
        );
        // A compile error on the base fails every selected test.
        let mut compile = verdict(false);
        compile.output = "error[E0425]: cannot find function `mul`\nerror: could not compile `tiny` (test \"mul\") due to 1 previous error\n".into();
        let mut cargo = verdict(true);
        cargo.output = "test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n".into();
        let proof = judge_proof(&[compile.clone(), compile], &[cargo.clone(), cargo]).unwrap();
        assert!(proof.base.build_failed && proof.oracle.passed == 1);
    }

    #[test]
    fn task_ids_are_hash_and_slug() {
        let commit = Commit {
            id: "0123456789abcdef".into(),
            parents: vec![],
            subject: "Parse: empty input (#12) as []".into(),
            files: vec![],
        };
        assert_eq!(task_id(&commit), "0123456-parse-empty-input-as");
    }
}

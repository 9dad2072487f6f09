//! `skillgate tasks mine`: evaluation tasks from a repository's own history.
//!
//! Every first-parent commit that changed source together with tests is a task: its message
//! is the instruction, its parent the base commit, its test files the verifier and the rest
//! of its diff the oracle. Discovery reads the history with one `git log`; each candidate is
//! then written in the Harbor layout and kept only when its verifier fails on the base and
//! passes after the oracle, twice each, in the evaluation's own sandbox.
//!
//! This layer sits above `eval` (it writes the folders `eval` reads, and proves them with its
//! sandboxes) and below the command line.

pub mod cfg_test;
pub mod history;
pub mod paths;
pub mod verifier;
pub mod write;

use std::path::{Path, PathBuf};

use crate::eval::sandbox::Sandbox;
use crate::eval::task::Task;
use crate::eval::{EvalError, base, runner};
use history::{Commit, Drop, Range, glob_lite};

/// Diff size bound (lines added plus removed) when none is given.
pub const DEFAULT_MAX_LINES: u64 = 1000;
/// Runs of the verifier on each side of the proof: a result that flips between them is flaky.
const PROOF_RUNS: usize = 2;
/// Longest slug of the subject in a task id.
const SLUG_CHARS: usize = 48;

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
}

impl std::fmt::Display for Candidate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.result {
            Ok(task) => write!(f, "kept     {}  {}  -> {task}", self.commit, self.subject),
            Err(reason) => write!(f, "dropped  {}  {}  ({reason})", self.commit, self.subject),
        }
    }
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
        let result = match dropped {
            Some(reason) => Err(reason),
            None => {
                let id = task_id(&commit);
                let dir = options.out.join(&id);
                let proved = make_task(&repo, &writer, &commit, &dir, sandbox, scratch.path())?;
                if proved.is_err() && dir.exists() {
                    std::fs::remove_dir_all(&dir)
                        .map_err(|e| MineError::io("removing", &dir, e))?;
                }
                proved.map(|()| id).map_err(Drop::Task)
            }
        };
        kept += usize::from(result.is_ok());
        let candidate = Candidate {
            commit: commit.short().to_owned(),
            subject: commit.subject.clone(),
            result,
        };
        report(&candidate);
        all.push(candidate);
    }
    Ok(all)
}

/// Writes one candidate and proves it; `Err(reason)` drops it.
fn make_task(
    repo: &Path,
    writer: &write::Writer,
    commit: &Commit,
    dir: &Path,
    sandbox: &dyn Sandbox,
    scratch: &Path,
) -> Result<Result<(), String>, MineError> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| MineError::io("removing", dir, e))?;
    }
    if let Err(reason) = writer.write(repo, commit, dir)? {
        return Ok(Err(reason));
    }
    let task = Task::load(dir)?;
    let problems = task.problems(None);
    if !problems.is_empty() {
        return Ok(Err(crate::eval::task::join(&problems)));
    }
    let Some(base_commit) = task.base_commit() else {
        return Ok(Err("the task names no base commit".into()));
    };
    let workspace = base::unpack(repo, base_commit, &scratch.join(commit.short()))?;
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
    std::fs::remove_dir_all(scratch.join(commit.short())).ok();
    Ok(judge_proof(&untouched, &solved))
}

/// Kept only when every run on the base fails and every run after the oracle passes.
fn judge_proof(untouched: &[runner::Verdict], solved: &[runner::Verdict]) -> Result<(), String> {
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
    Ok(())
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
                "ok\n"
            } else {
                "AssertionError: 2 != 3\n"
            }
            .into(),
        }
    }

    #[test]
    fn proofs_are_judged_over_both_runs() {
        let (f, p) = (verdict(false), verdict(true));
        assert_eq!(
            judge_proof(&[f.clone(), f.clone()], &[p.clone(), p.clone()]),
            Ok(())
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
                .ends_with("AssertionError: 2 != 3")
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

//! Per-task base commits: a task whose `task.toml` names `[metadata] base_commit` starts from
//! the repository as it was at that commit, not from its current state.
//!
//! Each distinct commit is unpacked once (`git archive`) into a temporary folder that lives as
//! long as the [`Bases`]; the workspace bundles point at those files, so a run holding many
//! bases keeps them on disk, not in memory.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

use crate::eval::EvalError;
use crate::eval::sandbox::Bundle;
use crate::eval::task::Task;

/// The `[metadata]` key naming the commit a task starts from.
pub const BASE_COMMIT_KEY: &str = "base_commit";

/// The repository at every base commit the tasks name.
#[derive(Debug, Clone, Default)]
pub struct Bases {
    bundles: BTreeMap<String, Bundle>,
    /// Keeps the unpacked trees alive while the bundles are in use.
    _unpacked: Option<Arc<tempfile::TempDir>>,
}

impl Bases {
    /// Unpacks `repo` at each base commit named by `tasks` (none: nothing is read).
    pub fn load(repo: &Path, tasks: &[Task]) -> Result<Bases, EvalError> {
        let commits: std::collections::BTreeSet<&str> =
            tasks.iter().filter_map(Task::base_commit).collect();
        if commits.is_empty() {
            return Ok(Bases::default());
        }
        let root = tempfile::Builder::new()
            .prefix("skillgate-bases-")
            .tempdir()
            .map_err(|e| EvalError::io("creating", "a temporary folder", e))?;
        let mut bundles = BTreeMap::new();
        for commit in commits {
            let dir = root.path().join(commit);
            bundles.insert(commit.to_owned(), unpack(repo, commit, &dir)?);
        }
        Ok(Bases {
            bundles,
            _unpacked: Some(Arc::new(root)),
        })
    }

    /// The files `task` starts from: the repository at its base commit, or `head` when it
    /// names none.
    pub fn for_task<'a>(&'a self, task: &Task, head: &'a Bundle) -> &'a Bundle {
        task.base_commit()
            .and_then(|c| self.bundles.get(c))
            .unwrap_or(head)
    }

    /// Every base commit held, in order.
    pub fn commits(&self) -> impl Iterator<Item = &str> {
        self.bundles.keys().map(String::as_str)
    }
}

/// Writes the files of `repo` (a git repository or a folder of one) as at `commit` into
/// `dest`, and returns them as a bundle.
pub fn unpack(repo: &Path, commit: &str, dest: &Path) -> Result<Bundle, EvalError> {
    let prefix = git_text(repo, &["rev-parse", "--show-prefix"]).map_err(|message| {
        EvalError::Usage(format!(
            "{}: tasks name a base commit, so --repo must be a git repository: {message}",
            repo.display()
        ))
    })?;
    let object = format!("{commit}^{{commit}}");
    git_text(repo, &["rev-parse", "--verify", "--quiet", &object]).map_err(|_| {
        EvalError::Usage(format!(
            "{}: base commit {commit} is not in this repository (fetch it, or mine the tasks from this clone)",
            repo.display()
        ))
    })?;
    let tree = format!("{commit}:{}", prefix.trim());
    let mut child = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["archive", "--format=tar", &tree])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| EvalError::io("running git in", repo, e))?;
    std::fs::create_dir_all(dest).map_err(|e| EvalError::io("creating", dest, e))?;
    let unpacked = match child.stdout.take() {
        Some(out) => tar::Archive::new(out).unpack(dest),
        None => Err(std::io::Error::other("git archive has no output")),
    };
    let status = child
        .wait()
        .map_err(|e| EvalError::io("running git in", repo, e))?;
    unpacked.map_err(|e| EvalError::io("unpacking git archive of", repo, e))?;
    if !status.success() {
        return Err(EvalError::Usage(format!(
            "{}: git archive {tree} failed",
            repo.display()
        )));
    }
    let mut bundle = Bundle::new();
    bundle.add_dir("", dest)?;
    Ok(bundle)
}

fn git_text(repo: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_owned())
    }
}

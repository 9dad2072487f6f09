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
    let prefix = git_text(repo, &["rev-parse", "--show-prefix"]).map_err(|detail| {
        EvalError::BaseNeedsGit {
            repo: repo.to_owned(),
            detail,
        }
    })?;
    let object = format!("{commit}^{{commit}}");
    git_text(repo, &["rev-parse", "--verify", "--quiet", &object]).map_err(|_| {
        EvalError::MissingBaseCommit {
            repo: repo.to_owned(),
            commit: commit.to_owned(),
        }
    })?;
    let tree = format!("{commit}:{}", prefix.trim());
    let mut child = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["archive", "--format=tar", &tree])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| EvalError::io("running git in", repo, e))?;
    // git's stderr is drained beside its output, so neither pipe can fill and stall it.
    let said = child.stderr.take().map(|mut err| {
        std::thread::spawn(move || {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut err, &mut text).ok();
            text
        })
    });
    std::fs::create_dir_all(dest).map_err(|e| EvalError::io("creating", dest, e))?;
    let unpacked = match child.stdout.take() {
        // The archive ends before git's output does (tar pads its last block): the rest is
        // read too, or git dies of a closed pipe.
        Some(mut out) => tar::Archive::new(&mut out)
            .unpack(dest)
            .and_then(|()| std::io::copy(&mut out, &mut std::io::sink()).map(drop)),
        None => Err(std::io::Error::other("git archive has no output")),
    };
    let status = child
        .wait()
        .map_err(|e| EvalError::io("running git in", repo, e))?;
    let said = said.and_then(|t| t.join().ok()).unwrap_or_default();
    if !status.success() || unpacked.is_err() {
        let said = match (said.trim(), unpacked) {
            ("", Err(e)) => format!("unpacking its output: {e}"),
            ("", Ok(())) => format!("exit {status}"),
            (text, _) => text.replace('\n', "; "),
        };
        return Err(EvalError::Archive {
            repo: repo.to_owned(),
            tree: tree.trim_end_matches(':').to_owned(),
            said,
        });
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

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    fn task(root: &Path, name: &str, base: &str) -> Task {
        let dir = root.join(name);
        std::fs::create_dir_all(dir.join("tests")).unwrap();
        std::fs::write(
            dir.join("task.toml"),
            format!("[metadata]\nbase_commit = \"{base}\"\n"),
        )
        .unwrap();
        std::fs::write(dir.join("instruction.md"), "Do it.\n").unwrap();
        Task::load(&dir).unwrap()
    }

    #[test]
    fn a_task_starts_from_its_base_commit() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        git(&repo, &["init", "-q"]);
        std::fs::write(repo.join("a.txt"), "old\n").unwrap();
        git(&repo, &["add", "-A"]);
        git(
            &repo,
            &[
                "-c",
                "user.name=A",
                "-c",
                "user.email=a@b",
                "commit",
                "-qm",
                "one",
            ],
        );
        let first = git(&repo, &["rev-parse", "HEAD"]);
        std::fs::write(repo.join("a.txt"), "new\n").unwrap();
        git(
            &repo,
            &[
                "-c",
                "user.name=A",
                "-c",
                "user.email=a@b",
                "commit",
                "-qam",
                "two",
            ],
        );

        let based = task(tmp.path(), "based", &first);
        let plain = task(tmp.path(), "plain", " ");
        assert_eq!(plain.base_commit(), None);
        let bases = Bases::load(&repo, &[based.clone(), plain.clone()]).unwrap();
        assert_eq!(bases.commits().collect::<Vec<_>>(), [first.as_str()]);
        let mut head = Bundle::new();
        head.add_bytes("a.txt", "new\n", false);
        let files = bases.for_task(&based, &head);
        assert_eq!(files.entries().len(), 1);
        assert_eq!(files.entries()[0].read().unwrap(), b"old\n");
        assert_eq!(bases.for_task(&plain, &head), &head);

        let missing = task(tmp.path(), "missing", &"0".repeat(40));
        let err = Bases::load(&repo, &[missing]).unwrap_err().to_string();
        assert!(err.contains("is not in this repository"), "{err}");
    }
}

//! Which skills a change touched: the skill folders (those holding a `SKILL.md`) of the files
//! `git diff` names between a base commit and `HEAD`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::GateError;

/// The file that makes a folder a skill.
const SKILL_FILE: &str = "SKILL.md";

/// The skill folders below `repo` with a file changed between `base` and `HEAD`, sorted.
/// Deleted skills are left out: there is nothing left to judge.
pub fn changed_skills(repo: &Path, base: &str) -> Result<Vec<PathBuf>, GateError> {
    if base.starts_with('-') {
        return Err(GateError::Git(format!("{base:?} is not a commit")));
    }
    // Three dots compare with the merge base, as a pull request does; two (a plain range)
    // when the histories share no merge base.
    let files = match git_diff(repo, &[&format!("{base}...HEAD")]) {
        Ok(files) => files,
        Err(first) => git_diff(repo, &[base, "HEAD"]).map_err(|_| first)?,
    };
    Ok(skill_folders(repo, &files))
}

/// Every skill folder below `repo` (`.gitignore` respected), sorted.
pub fn all_skills(repo: &Path) -> Vec<PathBuf> {
    let mut found = BTreeSet::new();
    let walk = ignore::WalkBuilder::new(repo)
        .hidden(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    for entry in walk.flatten() {
        if entry.file_name() == SKILL_FILE
            && entry.file_type().is_some_and(|t| t.is_file())
            && let Some(dir) = entry.path().parent()
        {
            found.insert(dir.to_path_buf());
        }
    }
    found.into_iter().collect()
}

fn git_diff(repo: &Path, range: &[&str]) -> Result<Vec<String>, GateError> {
    let output = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["diff", "--name-only", "--relative", "-z"])
        .args(range)
        .arg("--")
        .output()
        .map_err(|e| GateError::Git(format!("cannot run git: {e}")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let first = stderr.lines().next().unwrap_or("").trim();
        return Err(GateError::Git(format!(
            "git diff {} failed in {}: {first} (on GitHub Actions, check out with \
             `fetch-depth: 0` so the base commit is there)",
            range.join(" "),
            repo.display()
        )));
    }
    Ok(output
        .stdout
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect())
}

/// The nearest folder at or above each file (inside `repo`) that holds a `SKILL.md`.
fn skill_folders(repo: &Path, files: &[String]) -> Vec<PathBuf> {
    let mut found = BTreeSet::new();
    for file in files {
        let mut dir = Path::new(file).parent();
        while let Some(d) = dir {
            let candidate = repo.join(d);
            if candidate.join(SKILL_FILE).is_file() {
                found.insert(candidate);
                break;
            }
            if d.as_os_str().is_empty() {
                break;
            }
            dir = d.parent();
        }
    }
    found.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let status = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn finds_the_skill_folders_a_change_touched() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q", "-b", "main"]);
        write(&root.join("skills/a/SKILL.md"), "---\nname: a\n---\n");
        write(&root.join("skills/b/SKILL.md"), "---\nname: b\n---\n");
        write(&root.join("skills/c/SKILL.md"), "---\nname: c\n---\n");
        write(&root.join("README.md"), "pack\n");
        git(root, &["add", "."]);
        git(root, &["commit", "-q", "-m", "base"]);
        git(root, &["checkout", "-q", "-b", "change"]);
        write(&root.join("skills/a/references/deep/notes.md"), "more\n");
        write(
            &root.join("skills/b/SKILL.md"),
            "---\nname: b\n---\nchanged\n",
        );
        std::fs::remove_dir_all(root.join("skills/c")).unwrap();
        write(&root.join("README.md"), "pack, changed\n");
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", "change"]);

        let changed = changed_skills(root, "main").unwrap();
        assert_eq!(
            changed,
            vec![root.join("skills/a"), root.join("skills/b")],
            "c was deleted and README.md is no skill"
        );
        assert_eq!(
            all_skills(root),
            vec![root.join("skills/a"), root.join("skills/b")]
        );
        let e = changed_skills(root, "no-such-ref").unwrap_err();
        assert!(e.to_string().contains("fetch-depth: 0"), "{e}");
        let e = changed_skills(root, "--output=x").unwrap_err();
        assert!(e.to_string().contains("not a commit"), "{e}");
    }
}

//! Rule documentation examples: a small skill folder written as text.
//!
//! An example is a SKILL.md by itself, or several files each introduced by a `==> path <==`
//! line (paths relative to the skill folder). An optional first line `@folder NAME` names the
//! folder; otherwise it is named after the frontmatter's `name`, or `example`. A file named
//! `skillgate.toml` is the configuration the example runs with: it is written beside the
//! skill folder, at the root of the repository the example stands for.
//!
//! A path starting with `@repo/` is a file of that repository rather than of the skill:
//! `==> @repo/package.json <==` is written at the repository root, next to the skill
//! folder. An example with such files is checked against the scanned repository, so the
//! project rules (SG4xx) can show what they compare.
//!
//! A marker `==> a.md -> b.md <==` writes a symbolic link `a.md` to `b.md` (relative to the
//! link's folder; on Unix), for the rules about entries that cannot be read.

use std::path::Path;

/// The file of an example that holds its configuration (a `skillgate.toml`).
const CONFIG_FILE: &str = "skillgate.toml";

/// A parsed example.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    /// The skill folder's name.
    pub folder: String,
    /// (relative path, contents) pairs; the first is the manifest.
    pub files: Vec<(String, String)>,
}

impl Example {
    /// Parse the example notation.
    pub fn parse(text: &str) -> Example {
        let (folder, rest) = match text.strip_prefix("@folder ") {
            Some(rest) => {
                let (name, rest) = rest.split_once('\n').unwrap_or((rest, ""));
                (Some(name.trim().to_owned()), rest)
            }
            None => (None, text),
        };
        let mut files: Vec<(String, String)> = Vec::new();
        for line in rest.split_inclusive('\n') {
            let marker = line
                .trim_end()
                .strip_prefix("==> ")
                .and_then(|l| l.strip_suffix(" <=="));
            match (marker, files.last_mut()) {
                (Some(path), _) => files.push((path.to_owned(), String::new())),
                (None, Some((_, body))) => body.push_str(line),
                (None, None) => files.push(("SKILL.md".to_owned(), line.to_owned())),
            }
        }
        let folder = folder.unwrap_or_else(|| {
            files
                .first()
                .and_then(|(_, body)| body.lines().find_map(|l| l.strip_prefix("name:")))
                .map_or_else(|| "example".to_owned(), |n| n.trim().to_owned())
        });
        Example { folder, files }
    }

    /// The example's `skillgate.toml`, if it has one.
    pub fn config(&self) -> Option<&str> {
        self.files
            .iter()
            .find(|(rel, _)| rel == CONFIG_FILE)
            .map(|(_, body)| body.as_str())
    }

    /// Whether the example includes repository files (`@repo/...`).
    pub fn has_repo_files(&self) -> bool {
        self.files.iter().any(|(rel, _)| repo_path(rel).is_some())
    }

    /// Write the example under `parent` (the repository root), returning the skill folder.
    pub fn write_to(&self, parent: &Path) -> std::io::Result<std::path::PathBuf> {
        let root = parent.join(&self.folder);
        std::fs::create_dir_all(&root)?;
        for (rel, body) in &self.files {
            let path = if rel == CONFIG_FILE {
                parent.join(rel)
            } else if let Some(in_repo) = repo_path(rel) {
                parent.join(in_repo)
            } else {
                root.join(rel)
            };
            if let Some((link, target)) = rel.split_once(" -> ") {
                let link = root.join(link);
                if let Some(dir) = link.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                #[cfg(unix)]
                std::os::unix::fs::symlink(target, &link)?;
                #[cfg(not(unix))]
                let _ = (target, link);
                continue;
            }
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(path, body)?;
        }
        Ok(root)
    }
}

/// The repository-relative path of an `@repo/` file.
fn repo_path(rel: &str) -> Option<&str> {
    rel.strip_prefix(REPO_PREFIX).filter(|p| !p.is_empty())
}

/// The prefix that marks a repository file in an example.
pub const REPO_PREFIX: &str = "@repo/";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_file_is_the_manifest_named_after_the_skill() {
        let ex = Example::parse("---\nname: demo\n---\nbody\n");
        assert_eq!(ex.folder, "demo");
        assert_eq!(
            ex.files,
            [(
                "SKILL.md".to_owned(),
                "---\nname: demo\n---\nbody\n".to_owned()
            )]
        );
    }

    #[test]
    fn markers_split_files_and_folder_can_be_named() {
        let ex = Example::parse("@folder other\n==> SKILL.md <==\na\n==> references/r.md <==\nb\n");
        assert_eq!(ex.folder, "other");
        assert_eq!(
            ex.files[1],
            ("references/r.md".to_owned(), "b\n".to_owned())
        );
    }

    #[test]
    fn repo_files_are_written_at_the_repository_root() {
        let ex = Example::parse(
            "==> SKILL.md <==\n---\nname: demo\n---\n==> @repo/package.json <==\n{}\n",
        );
        assert!(ex.has_repo_files());
        assert_eq!(ex.folder, "demo");
        let dir = tempfile::tempdir().expect("temp dir");
        let root = ex.write_to(dir.path()).expect("written");
        assert!(root.join("SKILL.md").is_file());
        assert!(dir.path().join("package.json").is_file());
        assert!(!root.join("@repo").exists());
        assert!(!Example::parse("---\nname: demo\n---\n").has_repo_files());
    }
}

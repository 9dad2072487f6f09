//! Finding skills below a folder: every folder that holds a `SKILL.md` is one skill.
//!
//! Packs keep their skills in hidden folders (`.claude/skills/`, `.agents/skills/`), so
//! hidden folders are searched; `.git`, `node_modules` and paths the pack's `.gitignore`
//! excludes are not. A skill folder is not searched further: its own subfolders belong to it.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fs;
use std::path::{Path, PathBuf};

use ignore::WalkBuilder;

use super::LoadError;
use super::frontmatter::is_manifest_name;

/// Folders never searched for skills.
const SKIPPED_DIRS: &[&str] = &[".git", "node_modules"];

/// The skills a user-given path names, sorted by path: the path itself when it is a file or
/// a folder with a manifest, otherwise every folder below it that holds a `SKILL.md`.
///
/// A folder with no skill anywhere below it is an error, as is a path that does not exist.
pub fn skills(path: &Path) -> Result<Vec<PathBuf>, LoadError> {
    named(path, false)
}

/// The skills a user-given path names, as [`skills`] does, with the links to nothing found
/// below it where a skill or a folder of skills would be (`.claude/skills` linked to a
/// folder on another machine), each as a path of its own: loading one says what it is.
fn named(path: &Path, with_dangling: bool) -> Result<Vec<PathBuf>, LoadError> {
    let meta = fs::metadata(path).map_err(|source| super::unreachable_path(path, source))?;
    if !meta.is_dir() || has_manifest(path) {
        return Ok(vec![path.to_owned()]);
    }
    let Below {
        mut found,
        dangling,
    } = below(path);
    if with_dangling {
        found.extend(dangling);
        found.sort();
    }
    if found.is_empty() {
        return Err(LoadError::NoSkillFile {
            path: path.to_owned(),
        });
    }
    Ok(found)
}

/// The skills the user-given paths name, in the order given, each real skill once.
///
/// A skill reached through a symlinked folder as well as its own (`.claude/skills` linked to
/// `.agents/skills`, one folder per client) is the same skill: it is kept under the path
/// that is its own, at the place the first of its paths came. A path that names nothing is
/// its error, in order among the others, and the rest are still listed.
pub fn skills_of(paths: &[PathBuf]) -> Vec<Result<PathBuf, LoadError>> {
    listed(paths, false)
}

/// The skills the user-given paths name, as [`skills_of`] lists them, and every link to
/// nothing found below them where a skill or a folder of skills would be, as a path to
/// report (`skillgate audit` gives it a row of its own: the skills it pointed at were not
/// audited).
pub fn entries_of(paths: &[PathBuf]) -> Vec<Result<PathBuf, LoadError>> {
    listed(paths, true)
}

fn listed(paths: &[PathBuf], with_dangling: bool) -> Vec<Result<PathBuf, LoadError>> {
    let mut found = Vec::new();
    for path in paths {
        match named(path, with_dangling) {
            Ok(skills) => found.extend(skills.into_iter().map(Ok)),
            Err(e) => found.push(Err(e)),
        }
    }
    let mut at: HashMap<PathBuf, usize> = HashMap::new();
    let mut out: Vec<Result<PathBuf, LoadError>> = Vec::with_capacity(found.len());
    for item in found {
        let Ok(path) = item else {
            out.push(item);
            continue;
        };
        let Some(real) = real_folder(&path) else {
            out.push(Ok(path));
            continue;
        };
        match at.entry(real) {
            Entry::Vacant(slot) => {
                slot.insert(out.len());
                out.push(Ok(path));
            }
            Entry::Occupied(slot) => {
                let kept = &mut out[*slot.get()];
                if kept.as_ref().is_ok_and(|k| !is_own_path(k)) && is_own_path(&path) {
                    *kept = Ok(path);
                }
            }
        }
    }
    out
}

/// The real folder of a skill path (the folder itself, or the folder of a named manifest).
fn real_folder(path: &Path) -> Option<PathBuf> {
    let folder = if path.is_file() { path.parent()? } else { path };
    let folder = if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    };
    folder.canonicalize().ok()
}

/// Whether a path reaches its file without passing through a symbolic link.
fn is_own_path(path: &Path) -> bool {
    let Ok(absolute) = std::path::absolute(path) else {
        return false;
    };
    let mut plain = PathBuf::new();
    for part in absolute.components() {
        match part {
            std::path::Component::ParentDir => {
                plain.pop();
            }
            std::path::Component::CurDir => {}
            other => plain.push(other),
        }
    }
    path.canonicalize().is_ok_and(|real| real == plain)
}

/// Whether `dir` holds a manifest (`SKILL.md`, or a misspelling of it that the loader
/// accepts and SG114 reports).
fn has_manifest(dir: &Path) -> bool {
    dir.join("SKILL.md").is_file()
        || fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .filter_map(Result::ok)
                .any(|e| is_manifest_name(Path::new(&e.file_name())) && e.path().is_file())
        })
}

/// What a walk below a folder finds.
#[derive(Debug, Default)]
struct Below {
    /// Every skill folder, sorted.
    found: Vec<PathBuf>,
    /// Symbolic links to nothing where a skill or a folder of skills would be, sorted.
    dangling: Vec<PathBuf>,
}

/// Every folder strictly below `root` that holds a `SKILL.md`, not searching inside one,
/// and the links to nothing where one would be.
///
/// Symlinked folders are followed while they stay inside `root` (packs link one skill into
/// `.claude/skills/` and `.agents/skills/`); a skill reached twice is listed once, under the
/// path that is its own rather than a link's.
fn below(root: &Path) -> Below {
    let Ok(canonical_root) = root.canonicalize() else {
        return Below::default();
    };
    // Links are followed within the folder searched, and within the git repository that
    // holds it (a `.claude/skills/x` link to the repository's `skills/x`).
    let allowed = super::enclosing_repository(&canonical_root).unwrap_or(canonical_root.clone());
    let walker = WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .follow_links(true)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry({
            let allowed = allowed.clone();
            move |entry| {
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                if !is_dir || entry.depth() == 0 {
                    return true;
                }
                let skipped = entry
                    .file_name()
                    .to_str()
                    .is_some_and(|name| SKIPPED_DIRS.contains(&name));
                // A folder inside a skill folder belongs to that skill.
                let inside_skill = entry
                    .path()
                    .parent()
                    .is_some_and(|parent| parent.join("SKILL.md").is_file());
                let leaves_root = entry.path_is_symlink()
                    && !entry
                        .path()
                        .canonicalize()
                        .is_ok_and(|target| target.starts_with(&allowed));
                !skipped && !inside_skill && !leaves_root
            }
        })
        .build();
    let mut found: Vec<PathBuf> = Vec::new();
    let mut dangling: Vec<PathBuf> = Vec::new();
    for entry in walker {
        match entry {
            Ok(e) => {
                if e.depth() > 1
                    && e.file_name() == "SKILL.md"
                    && e.file_type().is_some_and(|t| t.is_file())
                    && let Some(parent) = e.path().parent()
                {
                    found.push(parent.to_owned());
                }
            }
            Err(e) => dangling.extend(
                walk_error_path(&e)
                    .filter(|p| is_dangling_skill_link(root, p))
                    .map(Path::to_owned),
            ),
        }
    }
    found.sort();
    dangling.sort();
    // One path per skill: its own path over a link's, else the first in order.
    let mut chosen: HashMap<PathBuf, PathBuf> = HashMap::new();
    for dir in found {
        let canonical = dir.canonicalize().unwrap_or_else(|_| dir.clone());
        let direct = dir
            .strip_prefix(root)
            .is_ok_and(|rel| canonical_root.join(rel) == canonical);
        match chosen.entry(canonical) {
            Entry::Vacant(slot) => {
                slot.insert(dir);
            }
            Entry::Occupied(mut slot) if direct => {
                slot.insert(dir);
            }
            Entry::Occupied(_) => {}
        }
    }
    let mut found: Vec<PathBuf> = chosen.into_values().collect();
    found.sort();
    Below { found, dangling }
}

/// The path a walk error is about, when it names one.
fn walk_error_path(error: &ignore::Error) -> Option<&Path> {
    match error {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            walk_error_path(err)
        }
        _ => None,
    }
}

/// Whether `path`, below `root`, is a symbolic link to nothing at a place where skills are
/// found: a folder of skills (`.claude/skills`), a skill folder in one (`skills/x`), or a
/// manifest. A dangling link anywhere else (a build output, a dotfile) is not a skill's.
fn is_dangling_skill_link(root: &Path, path: &Path) -> bool {
    let is_link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link || path.exists() || path == root {
        return false;
    }
    let named = |p: Option<&Path>, name: &str| {
        p.and_then(Path::file_name)
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
    };
    named(Some(path), "skills") || named(Some(path), "SKILL.md") || named(path.parent(), "skills")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        for rel in files {
            let path = dir.path().join(rel);
            fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            fs::write(path, "---\nname: x\n---\n").expect("write");
        }
        dir
    }

    fn rels(root: &Path, found: &[PathBuf]) -> Vec<String> {
        found
            .iter()
            .map(|p| {
                p.strip_prefix(root)
                    .expect("below")
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    }

    #[test]
    fn hidden_folders_are_searched_and_node_modules_is_not() {
        let dir = tree(&[
            ".claude/skills/a/SKILL.md",
            ".agents/skills/b/SKILL.md",
            "packs/c/SKILL.md",
            "node_modules/d/SKILL.md",
            ".git/e/SKILL.md",
            "packs/c/references/nested/SKILL.md",
        ]);
        let found = skills(dir.path()).expect("skills");
        assert_eq!(
            rels(dir.path(), &found),
            [".agents/skills/b", ".claude/skills/a", "packs/c"]
        );
    }

    #[test]
    fn gitignored_folders_are_skipped() {
        let dir = tree(&["keep/SKILL.md", "build-out/copy/SKILL.md"]);
        fs::write(dir.path().join(".gitignore"), "build-out/\n").expect("write");
        let found = skills(dir.path()).expect("skills");
        assert_eq!(rels(dir.path(), &found), ["keep"]);
    }

    #[test]
    fn a_skill_folder_or_file_is_itself() {
        let dir = tree(&["s/SKILL.md", "s/sub/SKILL.md"]);
        let s = dir.path().join("s");
        assert_eq!(skills(&s).expect("skill"), vec![s.clone()]);
        let file = s.join("SKILL.md");
        assert_eq!(skills(&file).expect("skill"), vec![file]);
    }

    #[test]
    fn symlinked_skills_are_found_once_and_links_out_of_the_folder_are_not_followed() {
        let dir = tree(&["pack/skills/a/SKILL.md", "outside/b/SKILL.md"]);
        let pack = dir.path().join("pack");
        fs::create_dir_all(pack.join(".claude/skills")).expect("mkdir");
        std::os::unix::fs::symlink(pack.join("skills/a"), pack.join(".claude/skills/a"))
            .expect("link");
        std::os::unix::fs::symlink(dir.path().join("outside/b"), pack.join("skills/b"))
            .expect("link");
        let found = skills(&pack).expect("skills");
        assert_eq!(rels(&pack, &found), ["skills/a"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_skill_named_through_a_linked_folder_and_its_own_is_listed_once_under_its_own() {
        let dir = tree(&[".agents/skills/a/SKILL.md", ".agents/skills/b/SKILL.md"]);
        fs::create_dir_all(dir.path().join(".git")).expect("mkdir");
        std::os::unix::fs::symlink(".agents/skills", dir.path().join(".claude")).expect("link");
        let claude = dir.path().join(".claude");
        let agents = dir.path().join(".agents/skills");
        let listed = |paths: &[PathBuf]| -> Vec<String> {
            skills_of(paths)
                .into_iter()
                .map(|r| {
                    let p = r.expect("a skill");
                    p.strip_prefix(dir.path())
                        .expect("below")
                        .to_string_lossy()
                        .into_owned()
                })
                .collect()
        };
        // The linked folder first: its skills keep their place, under their own paths.
        assert_eq!(
            listed(&[claude.clone(), agents.clone()]),
            [".agents/skills/a", ".agents/skills/b"]
        );
        // One skill by its manifest through the link and by its folder.
        assert_eq!(
            listed(&[claude.join("a/SKILL.md"), agents.join("a")]),
            [".agents/skills/a"]
        );
        // Only through the link: kept as given.
        assert_eq!(listed(&[claude.join("b")]), [".claude/b"]);
        // Two different skills stay two.
        assert_eq!(
            listed(&[agents.join("b"), claude.join("a")]),
            [".agents/skills/b", ".claude/a"]
        );
    }

    #[test]
    fn a_path_that_names_nothing_keeps_its_place_among_the_others() {
        let dir = tree(&["a/SKILL.md"]);
        let found = skills_of(&[dir.path().join("gone"), dir.path().join("a")]);
        assert!(matches!(found[0], Err(LoadError::NotFound { .. })));
        assert_eq!(found[1].as_ref().expect("a skill"), &dir.path().join("a"));
    }

    #[test]
    fn a_folder_without_skills_is_an_error() {
        let dir = tree(&["node_modules/x/SKILL.md"]);
        fs::write(dir.path().join("readme.txt"), "hi").expect("write");
        let err = skills(dir.path()).expect_err("no skill");
        assert!(matches!(err, LoadError::NoSkillFile { .. }), "{err}");
    }
}

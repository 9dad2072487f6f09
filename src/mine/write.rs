//! Writing one candidate as a task in the Harbor layout: the message as the instruction, the
//! parent as the base commit, the commit's test files as the verifier, the rest of its diff
//! as the oracle.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::MineError;
use super::cfg_test;
use super::history::{Commit, Drop, git, is_merge_line, merged_message};
use super::paths::{FileKind, is_test_source};
use super::verifier::{self, Runners, sh};
use crate::lint::fix::unified_diff;

/// Agent time limit written into mined tasks.
const AGENT_TIMEOUT_SEC: f64 = 900.0;
/// Verifier time limit written into mined tasks (a build may precede the tests).
const VERIFIER_TIMEOUT_SEC: f64 = 600.0;
/// Where a task keeps the commit's changes inside `#[cfg(test)]` items, one patch per file.
const TEST_ITEMS_DIR: &str = "cfg-test";
/// What the verifier prints when the `#[cfg(test)]` items cannot be patched in (their file
/// or module does not exist yet): the selected tests cannot be built, which the proof counts
/// as every one of them failing.
pub const NOT_BUILT: &str = "skillgate: tests not built";
/// Instruction lines shorter than this are never checked against the diff (`}`, `fi`...).
const LEAK_MIN_CHARS: usize = 8;

/// Git trailers dropped from the message (compared case-insensitively).
const TRAILERS: &[&str] = &[
    "signed-off-by",
    "co-authored-by",
    "reviewed-by",
    "acked-by",
    "tested-by",
    "reported-by",
    "suggested-by",
    "helped-by",
    "cc",
    "change-id",
    "fixes",
    "closes",
    "resolves",
    "refs",
    "ref",
    "see-also",
    "pr-url",
    "reviewed-on",
    "link",
    "issue",
    "bug",
];

/// One file of a commit: its path and, unless the commit deleted it, its contents and
/// whether it is executable.
type FileAt = (String, Option<(Vec<u8>, bool)>);

/// How to write tasks.
#[derive(Debug, Clone, Default)]
pub struct Writer {
    /// The repository's test runners.
    pub runners: Runners,
    /// A test command given by the user (`{files}` expands to the test files).
    pub test_cmd: Option<String>,
    /// `[environment] docker_image`; `None` picks one per ecosystem.
    pub image: Option<String>,
}

/// A written task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// Its folder.
    pub dir: PathBuf,
    /// The test command `tests/test.sh` runs.
    pub commands: Vec<String>,
}

impl Writer {
    /// Writes `commit` as a task in `dir` (created; must not exist). `Err(Drop reason)` as a
    /// plain string when the commit cannot make a task (no runnable test...).
    pub fn write(
        &self,
        repo: &Path,
        commit: &Commit,
        dir: &Path,
    ) -> Result<Result<Written, String>, MineError> {
        let base = commit.parents.first().cloned().unwrap_or_default();
        let tests = self.files_at(repo, commit, true)?;
        let present: Vec<(String, Vec<u8>)> = tests
            .iter()
            .filter_map(|(p, c)| c.as_ref().map(|(bytes, _)| (p.clone(), bytes.clone())))
            .collect();
        let mut sources = self.files_at(repo, commit, false)?;
        let items = split_test_items(repo, commit, &base, &mut sources)?;
        if tests.is_empty() && items.patches.is_empty() {
            return Ok(Err(Drop::SourceOnly.to_string()));
        }
        if !items.source_changed && !changes_source(commit, &sources) {
            return Ok(Err(format!(
                "{} (the Rust files changed only in #[cfg(test)] items)",
                Drop::TestsOnly
            )));
        }
        let mut commands = match &self.test_cmd {
            Some(cmd) => {
                // The test sources only: data files beside them are read by the tests, not run.
                let files: Vec<String> = present
                    .iter()
                    .filter(|(p, _)| is_test_source(p))
                    .map(|(p, _)| sh(p))
                    .collect();
                vec![cmd.replace("{files}", &files.join(" "))]
            }
            None => self.runners.commands(&present).unwrap_or_default(),
        };
        if self.test_cmd.is_none() && !items.filters.is_empty() {
            commands.push(verifier::cargo_test_items(&items.filters));
        }
        if commands.is_empty() && !items.patches.is_empty() {
            return Ok(Err(
                "the #[cfg(test)] items it changed hold no test to run (give --test-cmd)".into(),
            ));
        }
        if commands.is_empty() {
            return Ok(Err("no runnable test file (give --test-cmd)".into()));
        }
        let message = String::from_utf8_lossy(&git(
            repo,
            &["show", "-s", "--format=%B", commit.id.as_str()],
        )?)
        .into_owned();
        // A merge's change is its diff against its first parent; its words are the pull
        // request's title and body under the merge line.
        let message = merged_message(&message);
        let diff = String::from_utf8_lossy(&git(
            repo,
            &[
                "diff",
                "--no-renames",
                "--no-ext-diff",
                base.as_str(),
                commit.id.as_str(),
                "--",
            ],
        )?)
        .into_owned();
        let instruction = instruction(message, &diff_lines(&diff));
        if instruction.trim().is_empty() {
            return Ok(Err(if commit.is_merge() {
                "the merge message holds no pull-request title or body".into()
            } else {
                "the message says nothing once trailers and diff lines are removed".into()
            }));
        }
        if let Some(message) = super::unstated::messages(&diff, &instruction).first() {
            return Ok(Err(format!(
                "the hidden test asserts a message the instruction never states ({message:?})"
            )));
        }
        std::fs::create_dir_all(dir).map_err(|e| MineError::io("creating", dir, e))?;
        write(&dir.join("instruction.md"), instruction.as_bytes(), false)?;
        let image = self
            .image
            .clone()
            .unwrap_or_else(|| default_image(&commands).to_owned());
        write(
            &dir.join("task.toml"),
            task_toml(commit, &base, &image).as_bytes(),
            false,
        )?;
        write_tree(&dir.join("tests/files"), &tests)?;
        for (path, patch) in &items.patches {
            let name = format!("{}.patch", path.replace('/', "__"));
            let file = dir.join("tests").join(TEST_ITEMS_DIR).join(name);
            write(&file, patch.as_bytes(), false)?;
        }
        write(
            &dir.join("tests/test.sh"),
            test_sh(commit, &tests, !items.patches.is_empty(), &commands).as_bytes(),
            true,
        )?;
        write_tree(&dir.join("solution/files"), &sources)?;
        write(
            &dir.join("solution/solve.sh"),
            solve_sh(commit, &sources).as_bytes(),
            true,
        )?;
        Ok(Ok(Written {
            dir: dir.to_owned(),
            commands,
        }))
    }

    /// The commit's test files (`tests`) or every other file, each with its contents and
    /// executable bit at the commit, or `None` when the commit deleted it.
    fn files_at(
        &self,
        repo: &Path,
        commit: &Commit,
        tests: bool,
    ) -> Result<Vec<FileAt>, MineError> {
        let paths: Vec<&str> = commit
            .files
            .iter()
            .filter(|f| (f.kind == FileKind::Test) == tests)
            .map(|f| f.path.as_str())
            .collect();
        let modes = tree_modes(repo, &commit.id, &paths)?;
        let mut out = Vec::new();
        for path in paths {
            let contents = match modes.iter().find(|(p, _)| p == path) {
                Some((_, mode)) => {
                    let bytes = git(repo, &["show", &format!("{}:{path}", commit.id)])?;
                    Some((bytes, mode == "100755"))
                }
                None => None,
            };
            out.push((path.to_owned(), contents));
        }
        Ok(out)
    }
}

/// The commit's changes inside the `#[cfg(test)]` items of its Rust files.
#[derive(Debug, Default)]
struct TestItems {
    /// Per file, a unified diff (for `patch -p1`) from the oracle's version to the commit's.
    patches: Vec<(String, String)>,
    /// `cargo test` filters for the items added or edited.
    filters: Vec<String>,
    /// Whether a split Rust file also changed outside its test items.
    source_changed: bool,
}

/// Splits every changed Rust source file at its `#[cfg(test)]` items: `sources` keeps, for
/// the oracle, each file with the commit's change outside its test items only (a file whose
/// change was all tests leaves the list); the rest becomes the returned patches.
fn split_test_items(
    repo: &Path,
    commit: &Commit,
    base: &str,
    sources: &mut Vec<FileAt>,
) -> Result<TestItems, MineError> {
    let rust: Vec<&str> = sources
        .iter()
        .filter(|(p, c)| c.is_some() && p.ends_with(".rs"))
        .filter(|(p, _)| is_source(commit, p))
        .map(|(p, _)| p.as_str())
        .collect();
    let at_base = if base.is_empty() {
        Vec::new()
    } else {
        tree_modes(repo, base, &rust)?
    };
    let mut items = TestItems::default();
    let mut drop_paths = Vec::new();
    let mut replaced = Vec::new();
    for path in rust {
        let Some((after, _)) = sources
            .iter()
            .find(|(p, _)| p == path)
            .and_then(|(_, c)| c.as_ref())
        else {
            continue;
        };
        let Ok(after) = std::str::from_utf8(after) else {
            items.source_changed = true;
            continue;
        };
        let before = match at_base.iter().any(|(p, _)| p == path) {
            true => Some(
                String::from_utf8_lossy(&git(repo, &["show", &format!("{base}:{path}")])?)
                    .into_owned(),
            ),
            false => None,
        };
        let Some(split) = cfg_test::split(path, before.as_deref(), after) else {
            items.source_changed = true; // unreadable as Rust: all of it is the oracle's
            continue;
        };
        items.source_changed |= split.source_changed;
        if !split.tests_changed {
            continue;
        }
        let oracle = split.source.clone().unwrap_or_default();
        items
            .patches
            .push((path.to_owned(), unified_diff(path, &oracle, after)));
        items.filters.extend(split.filters);
        match split.source {
            Some(text) if split.source_changed => replaced.push((path.to_owned(), text)),
            _ => drop_paths.push(path.to_owned()),
        }
    }
    sources.retain(|(p, _)| !drop_paths.contains(p));
    for (path, text) in replaced {
        if let Some((_, Some((bytes, _)))) = sources.iter_mut().find(|(p, _)| *p == path) {
            *bytes = text.into_bytes();
        }
    }
    items.filters.sort();
    items.filters.dedup();
    Ok(items)
}

/// Whether the oracle changes a source file other than a Rust one (whose source part
/// `split_test_items` judges).
fn changes_source(commit: &Commit, sources: &[FileAt]) -> bool {
    sources
        .iter()
        .any(|(p, c)| (!p.ends_with(".rs") || c.is_none()) && is_source(commit, p))
}

/// Whether `path` is a source file (not a test) that `commit` changes.
fn is_source(commit: &Commit, path: &str) -> bool {
    commit
        .files
        .iter()
        .any(|f| f.path == path && f.kind == FileKind::Source)
}

/// The modes of `paths` that exist at `commit` (`git ls-tree`).
fn tree_modes(
    repo: &Path,
    commit: &str,
    paths: &[&str],
) -> Result<Vec<(String, String)>, MineError> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let mut args = vec!["ls-tree", "-z", "--full-tree", commit, "--"];
    args.extend(paths);
    let out = git(repo, &args)?;
    Ok(String::from_utf8_lossy(&out)
        .split('\0')
        .filter_map(|entry| {
            let (meta, path) = entry.split_once('\t')?;
            let mode = meta.split_whitespace().next()?;
            meta.contains(" blob ")
                .then(|| (path.to_owned(), mode.to_owned()))
        })
        .collect())
}

/// The trimmed lines a diff adds or removes, long enough to matter.
fn diff_lines(diff: &str) -> HashSet<String> {
    diff.lines()
        .filter(|l| !l.starts_with("+++") && !l.starts_with("---"))
        .filter_map(|l| l.strip_prefix('+').or_else(|| l.strip_prefix('-')))
        .map(|l| l.trim().to_owned())
        .filter(|l| l.chars().count() >= LEAK_MIN_CHARS)
        .collect()
}

/// The instruction from a commit message: the subject as a heading, then the body, with
/// trailers, issue references and every line of the diff removed.
pub fn instruction(message: &str, diff: &HashSet<String>) -> String {
    let issue_refs = issue_refs();
    let mut lines = message.lines();
    let subject = clean_subject(lines.next().unwrap_or_default());
    let mut body: Vec<String> = Vec::new();
    for line in lines {
        if is_trailer(line) || is_squash_noise(line) {
            continue;
        }
        if diff.contains(line.trim()) {
            continue;
        }
        let cleaned = issue_refs.replace_all(line, "");
        if !cleaned.chars().any(char::is_alphanumeric) && !line.trim().is_empty() {
            continue; // the line held only references
        }
        let cleaned = clean_residue(&cleaned);
        if body.last().is_some_and(|l| l.trim().is_empty()) && cleaned.trim().is_empty() {
            continue; // one blank line where dropped lines leave several
        }
        body.push(cleaned.trim_end().to_owned());
    }
    while body.last().is_some_and(|l| l.trim().is_empty()) {
        body.pop();
    }
    while body.first().is_some_and(|l| l.trim().is_empty()) {
        body.remove(0);
    }
    let mut out = String::new();
    if !subject.is_empty() && !diff.contains(subject.trim()) {
        out.push_str(&format!("# {subject}\n\n"));
    }
    if !body.is_empty() {
        out.push_str(&body.join("\n"));
        out.push_str("\n\n");
    }
    if out.trim().is_empty() {
        return String::new();
    }
    out.push_str(
        "Make this change in the repository. The work is checked by running the project's \
         tests for it.\n",
    );
    out
}

/// A subject line without issue references.
pub fn clean_subject(subject: &str) -> String {
    clean_spaces(&clean_residue(&issue_refs().replace_all(subject, "")))
}

/// `Fixes #12`, `(#12)`, `Issue #12:`, `owner/repo#12`, `GH-12`, `[ABC-123]`, GitLab's
/// `See merge request group/project!12`, issue and pull-request URLs.
fn issue_refs() -> &'static regex::Regex {
    static REFS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        // A fixed pattern: compiling it cannot fail.
        #[allow(clippy::unwrap_used)]
        regex::Regex::new(
            r"(?i)(?:\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|refs?|see(?: merge request)?|issues?|pr|pull request|bug|ticket)\s*:?\s*)?(?:\(\s*)?(?:https?://\S+/(?:issues|pull|merge_requests)/\d+\S*|\b[\w.-]+/[\w./-]+[#!]\d+\b|\bGH-\d+\b|#\d+\b|\b(?:issue|pr|bug|ticket)\s+\d+\b|\[[A-Z][A-Z0-9]+-\d+\])(?:\s*\))?(?:\s*[:-](?:\s|$))?",
        )
        .unwrap()
    });
    &REFS
}

/// What a removed reference leaves at the start of a line: `Issue : Add x` (from `Issue
/// #23: Add x`), `PR - Add x`, `Bug: `.
fn clean_residue(line: &str) -> String {
    static RESIDUE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        // A fixed pattern: compiling it cannot fail.
        #[allow(clippy::unwrap_used)]
        regex::Regex::new(
            r"(?i)^(\s*(?:[#*-]+\s+)?)(?:issues?|pr|pull request|bug|ticket)\s*[:-]\s*",
        )
        .unwrap()
    });
    RESIDUE.replace(line, "$1").into_owned()
}

/// Words that, alone, make up the subjects of a squashed branch's housekeeping commits.
const NOISE_WORDS: &[&str] = &[
    "fix",
    "fixes",
    "fixed",
    "fixup",
    "wip",
    "lint",
    "linting",
    "linter",
    "format",
    "formatting",
    "formatted",
    "typo",
    "typos",
    "test",
    "tests",
    "cleanup",
    "clean",
    "up",
    "review",
    "comments",
    "comment",
    "address",
    "addressed",
    "feedback",
    "update",
    "updates",
    "updated",
    "minor",
    "change",
    "changes",
    "tweak",
    "tweaks",
    "more",
    "oops",
    "style",
    "black",
    "ruff",
    "flake8",
    "mypy",
    "pre-commit",
    "precommit",
    "ci",
    "and",
    "the",
    "a",
    "docs",
    "doc",
    "changelog",
    "rebase",
    "nit",
    "nits",
    "pr",
    "suggestion",
    "suggestions",
    "code",
    "from",
    "apply",
    "applied",
    "again",
    "some",
    "small",
    "stuff",
    "it",
    "this",
    "try",
    "retry",
    "revert",
];

/// A bullet of a squash merge's list of the branch's commits that says nothing about the
/// change: a file edited on the web (`* Update src/stats.py`), a merge of the base branch, an
/// automatic fix, or only housekeeping words (`* fix lint`, `* address review comments`).
fn is_squash_noise(line: &str) -> bool {
    let Some(text) = line
        .trim_start()
        .strip_prefix("* ")
        .or_else(|| line.trim_start().strip_prefix("- "))
    else {
        return false;
    };
    let text = text.trim();
    let words: Vec<&str> = text.split_whitespace().collect();
    let web_edit = matches!(
        words.as_slice(),
        ["Update" | "Create" | "Delete" | "Rename" | "Add", path]
            if path.contains('/') || path.contains('.')
    ) || text == "Add files via upload";
    let automatic = text.starts_with("[pre-commit.ci]")
        || text.starts_with("[autofix.ci]")
        || text.starts_with("Apply suggestion")
        || text.starts_with("Merge branch ")
        || text.starts_with("Merge remote-tracking branch")
        || is_merge_line(text);
    let housekeeping = !words.is_empty()
        && words.len() <= 4
        && words.iter().all(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-');
            w.is_empty() || NOISE_WORDS.contains(&w.to_ascii_lowercase().as_str())
        });
    web_edit || automatic || housekeeping
}

fn is_trailer(line: &str) -> bool {
    let Some((key, value)) = line.split_once(':') else {
        return false;
    };
    !value.trim().is_empty() && TRAILERS.contains(&key.trim().to_ascii_lowercase().as_str())
}

fn clean_spaces(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    joined
        .trim_end_matches([',', ';', ':', '-'])
        .trim()
        .to_owned()
}

fn default_image(commands: &[String]) -> &'static str {
    let first = commands.first().map(String::as_str).unwrap_or_default();
    match first.split_whitespace().next().unwrap_or_default() {
        "cargo" => "rust:1-slim",
        "go" => "golang:1",
        "node" | "npm" | "pnpm" | "yarn" | "bun" => "node:20-slim",
        "mvn" => "maven:3-eclipse-temurin-21",
        "gradle" | "./gradlew" => "gradle:8-jdk21",
        _ => "python:3.12-slim",
    }
}

fn task_toml(commit: &Commit, base: &str, image: &str) -> String {
    // A JSON string is a valid TOML basic string (same escapes).
    let q = |s: &str| serde_json::Value::from(s).to_string();
    format!(
        "# Mined from commit {short}; the workspace is the repository at its parent.\n\
         version = \"1.0\"\n\n[metadata]\ncategory = \"mined\"\ntags = [\"mined\"]\n\
         source_commit = {source}\n{key} = {base}\n\n[agent]\ntimeout_sec = {agent:.1}\n\n\
         [verifier]\ntimeout_sec = {verifier:.1}\n\n[environment]\ndocker_image = {image}\n",
        short = commit.short(),
        source = q(&commit.id),
        key = crate::eval::task::BASE_COMMIT_KEY,
        base = q(base),
        agent = AGENT_TIMEOUT_SEC,
        verifier = VERIFIER_TIMEOUT_SEC,
        image = q(image),
    )
}

fn test_sh(commit: &Commit, tests: &[FileAt], patch: bool, commands: &[String]) -> String {
    let mut s = format!(
        "#!/bin/sh\n# Verifier mined from commit {}: its test files, copied into the workspace, then\n\
         # the tests they hold. Runs from the workspace root; exit 0 = pass.\nset -eu\n\
         here=$(cd \"$(dirname \"$0\")\" && pwd)\n",
        commit.short()
    );
    if tests.iter().any(|(_, c)| c.is_some()) {
        s.push_str("cp -R \"$here/files/.\" .\n");
    }
    for (path, _) in tests.iter().filter(|(_, c)| c.is_none()) {
        s.push_str(&format!("rm -f {}\n", sh(path)));
    }
    if patch {
        // A file that already holds the items (the patch reverses cleanly) is left alone: the
        // proof runs the verifier twice in one workspace, the oracle between.
        s.push_str(&format!(
            "# The commit's #[cfg(test)] items, patched into the source files as they are now.\n\
             for p in \"$here\"/{TEST_ITEMS_DIR}/*.patch; do\n\
             \x20 patch -p1 -s -f -R --dry-run -i \"$p\" >/dev/null 2>&1 || patch -p1 -s -f -i \"$p\" ||\n\
             \x20   {{ echo \"{NOT_BUILT}: $(basename \"$p\") does not apply (the code it tests is not there)\"; exit 1; }}\n\
             done\n"
        ));
    }
    for command in commands {
        s.push_str(command);
        s.push('\n');
    }
    s
}

fn solve_sh(commit: &Commit, sources: &[FileAt]) -> String {
    let mut s = format!(
        "#!/bin/sh\n# Oracle mined from commit {}: applies its change outside the tests (every file\n\
         # it changed, as it left them). Runs from the workspace root.\nset -eu\n\
         here=$(cd \"$(dirname \"$0\")\" && pwd)\n",
        commit.short()
    );
    if sources.iter().any(|(_, c)| c.is_some()) {
        s.push_str("cp -R \"$here/files/.\" .\n");
    }
    for (path, _) in sources.iter().filter(|(_, c)| c.is_none()) {
        s.push_str(&format!("rm -f {}\n", sh(path)));
    }
    s
}

fn write_tree(root: &Path, files: &[FileAt]) -> Result<(), MineError> {
    for (path, contents) in files {
        if let Some((bytes, executable)) = contents {
            write(&root.join(path), bytes, *executable)?;
        }
    }
    Ok(())
}

fn write(path: &Path, bytes: &[u8], executable: bool) -> Result<(), MineError> {
    use std::os::unix::fs::PermissionsExt;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| MineError::io("creating", parent, e))?;
    }
    std::fs::write(path, bytes).map_err(|e| MineError::io("writing", path, e))?;
    let mode = if executable { 0o755 } else { 0o644 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| MineError::io("setting mode of", path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_drop_trailers_references_and_diff_lines() {
        let message = "Parse empty input as an empty list (#42)\n\n\
            An empty file used to raise; callers expect [].\n\
            Fixes #41, see owner/repo#7.\n\
            return []  # nothing to parse\n\n\
            Closes: https://github.com/o/r/issues/41\n\
            Signed-off-by: A Person <a@example.com>\n\
            Co-authored-by: B <b@example.com>\n";
        let diff = HashSet::from(["return []  # nothing to parse".to_owned()]);
        let text = instruction(message, &diff);
        assert!(text.starts_with("# Parse empty input as an empty list\n\n"));
        assert!(text.contains("callers expect []."));
        for gone in [
            "#42",
            "#41",
            "owner/repo#7",
            "Signed-off",
            "Co-authored",
            "return []",
            "github.com",
        ] {
            assert!(!text.contains(gone), "{gone} in {text}");
        }
    }

    #[test]
    fn reference_residue_and_squash_noise_are_cleaned() {
        assert_eq!(
            clean_subject("Issue #23: Add running_statistics"),
            "Add running_statistics"
        );
        assert_eq!(
            clean_subject("Issue : Add running_statistics"),
            "Add running_statistics"
        );
        assert_eq!(clean_subject("PR #7 - Parse dates"), "Parse dates");
        assert_eq!(
            clean_subject("Issue 1214: Update __eq__ and __hash__ for numeric_range"),
            "Update __eq__ and __hash__ for numeric_range"
        );
        assert_eq!(
            clean_subject("Add mode() for categorical data (#453)"),
            "Add mode() for categorical data"
        );
        assert_eq!(
            clean_subject("Fix the bug tracker link in the README"),
            "Fix the bug tracker link in the README",
            "words alone are not references"
        );
        let squash = "Add running_statistics (#31)\n\n\
            * Add running_statistics\n\n\
            It keeps a mean and a variance in one pass.\n\n\
            * Update src/stats.py\n\n\
            * fix lint\n\n\
            * Apply suggestions from code review\n\n\
            * Merge branch 'main' into stats\n\n\
            * [pre-commit.ci] auto fixes from pre-commit.com hooks\n\n\
            * Handle an empty input\n\n\
            See merge request group/project!12\n\n\
            Co-authored-by: A <a@example.com>\n";
        let text = instruction(squash, &HashSet::new());
        assert!(text.starts_with("# Add running_statistics\n\n"), "{text}");
        for kept in [
            "* Add running_statistics",
            "one pass",
            "* Handle an empty input",
        ] {
            assert!(text.contains(kept), "{kept} missing from {text}");
        }
        for gone in [
            "src/stats.py",
            "fix lint",
            "suggestions",
            "Merge branch",
            "pre-commit",
            "merge request",
            "!12",
            "\n\n\n",
        ] {
            assert!(!text.contains(gone), "{gone:?} in {text}");
        }
    }
}

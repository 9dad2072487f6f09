//! Candidate discovery: the first-parent history read with one `git log`, each commit kept
//! as a candidate or dropped with the reason, from paths and line counts alone. A merge on
//! the first-parent line is read through its diff against its first parent: the whole pull
//! request it brought in.

use std::path::Path;

use super::MineError;
use super::paths::{FileKind, classify};

/// One file a commit changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Path relative to the repository root.
    pub path: String,
    /// Lines added and removed (0 for binary files).
    pub lines: u64,
    /// What the file is.
    pub kind: FileKind,
}

/// One commit of the first-parent history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    /// Full hash.
    pub id: String,
    /// Parent hashes (two or more for a merge).
    pub parents: Vec<String>,
    /// The subject line; for a merge whose subject only names what was merged (`Merge pull
    /// request #12 from a/b`), the title under it.
    pub subject: String,
    /// The files it changed against its first parent (for a merge, the whole merged change).
    pub files: Vec<FileChange>,
}

impl Commit {
    /// The first 10 hex digits of the hash.
    pub fn short(&self) -> &str {
        &self.id[..self.id.len().min(10)]
    }

    /// Whether it merges another line of history.
    pub fn is_merge(&self) -> bool {
        self.parents.len() > 1
    }

    /// The changed files of one kind.
    pub fn of_kind(&self, kind: FileKind) -> impl Iterator<Item = &FileChange> {
        self.files.iter().filter(move |f| f.kind == kind)
    }
}

/// Why a commit is not a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drop {
    /// The root commit (no parent to start from).
    Root,
    /// No changed file matches `--paths`.
    OutsidePaths,
    /// A lockfile changed (the task's dependencies would differ from its base).
    Lockfile(String),
    /// A dependency manifest changed.
    Manifest(String),
    /// Vendored code changed.
    Vendored(String),
    /// Generated code changed.
    Generated(String),
    /// The diff is longer than the bound.
    TooLarge {
        /// Lines added and removed.
        lines: u64,
        /// The bound.
        max: u64,
    },
    /// Only documentation changed.
    DocsOnly,
    /// Tests changed, source did not.
    TestsOnly,
    /// Source changed, tests did not.
    SourceOnly,
    /// Neither source nor tests changed.
    NoSourceOrTests,
    /// Reasons found by writing or validating the task (no test command, flaky...).
    Task(String),
}

impl std::fmt::Display for Drop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Drop::Root => write!(f, "root commit (no parent to start from)"),
            Drop::OutsidePaths => write!(f, "no change under --paths"),
            Drop::Lockfile(p) => write!(f, "lockfile change ({p})"),
            Drop::Manifest(p) => write!(f, "dependency manifest change ({p})"),
            Drop::Vendored(p) => write!(f, "vendored code change ({p})"),
            Drop::Generated(p) => write!(f, "generated code change ({p})"),
            Drop::TooLarge { lines, max } => {
                write!(f, "too large ({lines} changed lines, bound {max})")
            }
            Drop::DocsOnly => write!(f, "docs-only"),
            Drop::TestsOnly => write!(f, "tests-only"),
            Drop::SourceOnly => write!(f, "source-only (no test changed)"),
            Drop::NoSourceOrTests => write!(f, "no source or test change"),
            Drop::Task(reason) => write!(f, "{reason}"),
        }
    }
}

impl Drop {
    /// A short name of the reason, for counting drops by kind.
    pub fn label(&self) -> &'static str {
        match self {
            Drop::Root => "root",
            Drop::OutsidePaths => "outside --paths",
            Drop::Lockfile(_) => "lockfile",
            Drop::Manifest(_) => "manifest",
            Drop::Vendored(_) => "vendored",
            Drop::Generated(_) => "generated",
            Drop::TooLarge { .. } => "too large",
            Drop::DocsOnly => "docs-only",
            Drop::TestsOnly => "tests-only",
            Drop::SourceOnly => "source-only",
            Drop::NoSourceOrTests => "no source or test",
            Drop::Task(reason) => task_label(reason),
        }
    }
}

/// The kind of a reason found while writing or proving a task.
fn task_label(reason: &str) -> &'static str {
    const LABELS: &[(&str, &str)] = &[
        ("git failed", "git failed"),
        ("flaky", "flaky"),
        ("the hidden test asserts a message", "unstated message"),
        ("the verifier passes on the base", "passes on base"),
        ("the verifier fails after the oracle", "fails with oracle"),
        ("the verifier ran no test", "no test ran"),
        ("the verifier's output shows no test count", "no test count"),
        (
            "the verifier exits 0 after the oracle but",
            "tests failed with oracle",
        ),
        ("no selected test", "no test failed on base"),
        ("tests-only", "tests-only"),
        ("source-only", "source-only"),
        ("no runnable test", "no runnable test"),
        ("the #[cfg(test)] items", "no runnable test"),
        ("the message says nothing", "empty message"),
        ("the merge message", "empty message"),
        ("proof failed", "proof failed"),
    ];
    LABELS
        .iter()
        .find(|(prefix, _)| reason.starts_with(prefix))
        .map_or("other task problem", |(_, label)| label)
}

/// Which commits to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Range {
    /// The commits after this revision, up to `HEAD`.
    Since(String),
    /// The last N first-parent commits of `HEAD`.
    Last(usize),
}

/// The first-parent history of `repo` in `range`, newest first.
pub fn read(repo: &Path, range: &Range) -> Result<Vec<Commit>, MineError> {
    let mut args: Vec<String> = [
        "log",
        "--first-parent",
        "--diff-merges=first-parent",
        "--no-renames",
        "--numstat",
        "-z",
        "--format=%x1e%H%x1f%P%x1f%s%x1f%b",
    ]
    .map(str::to_owned)
    .to_vec();
    match range {
        Range::Since(rev) => {
            check_revision(repo, rev)?;
            args.push(format!("{rev}..HEAD"));
        }
        Range::Last(n) => {
            args.push(format!("--max-count={n}"));
            args.push("HEAD".to_owned());
        }
    }
    args.push("--".to_owned());
    let out = git(repo, &args)?;
    Ok(parse_log(&String::from_utf8_lossy(&out)))
}

/// Parses `git log --numstat -z --format=%x1e%H%x1f%P%x1f%s%x1f%b` output.
fn parse_log(text: &str) -> Vec<Commit> {
    let mut commits = Vec::new();
    for record in text.split('\u{1e}').filter(|r| !r.trim().is_empty()) {
        let (header, rest) = record.split_once('\0').unwrap_or((record, ""));
        let mut fields = header.trim_end_matches('\n').splitn(4, '\u{1f}');
        let id = fields.next().unwrap_or_default().to_owned();
        let parents = fields
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        let mut subject = fields.next().unwrap_or_default().to_owned();
        let body = fields.next().unwrap_or_default();
        if is_merge_line(&subject)
            && let Some(title) = body.lines().map(str::trim).find(|l| !l.is_empty())
        {
            subject = title.to_owned();
        }
        let files = rest
            .split('\0')
            .map(|e| e.trim_start_matches('\n'))
            .filter(|e| !e.is_empty())
            .filter_map(|entry| {
                let mut cols = entry.splitn(3, '\t');
                let added = cols.next()?.parse::<u64>().unwrap_or(0);
                let removed = cols.next()?.parse::<u64>().unwrap_or(0);
                let path = cols.next()?.to_owned();
                Some(FileChange {
                    kind: classify(&path),
                    path,
                    lines: added + removed,
                })
            })
            .collect();
        commits.push(Commit {
            id,
            parents,
            subject,
            files,
        });
    }
    commits
}

/// Whether a subject line only says what was merged: GitHub's `Merge pull request #12 from
/// owner/branch`, git's `Merge branch 'x' [of URL] [into y]` and `Merge remote-tracking
/// branch`, GitLab's `Merge branch 'x' into 'main'`.
pub fn is_merge_line(subject: &str) -> bool {
    static MERGE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        // A fixed pattern: compiling it cannot fail.
        #[allow(clippy::unwrap_used)]
        regex::Regex::new(
            r"^Merge (?:pull request #\d+ from \S+|(?:remote-tracking )?branch(?:es)? '[^']+'(?: of \S+)?(?: into '?[^'\s]+'?)?|tag '[^']+'|commit '[0-9a-f]+')\s*$",
        )
        .unwrap()
    });
    MERGE.is_match(subject.trim())
}

/// The message of a merge without its merge line (the pull request's title and body), or
/// the message as it is when its first line says more than what was merged.
pub fn merged_message(message: &str) -> &str {
    let first = message.lines().next().unwrap_or_default();
    if is_merge_line(first) {
        message[first.len()..].trim_start_matches(['\r', '\n'])
    } else {
        message
    }
}

/// Keeps a commit as a candidate (`None`) or says why it is dropped.
pub fn judge(commit: &Commit, paths: &[glob_lite::Pattern], max_lines: u64) -> Option<Drop> {
    if commit.parents.is_empty() {
        return Some(Drop::Root);
    }
    if !paths.is_empty()
        && !commit
            .files
            .iter()
            .any(|f| paths.iter().any(|p| p.matches(&f.path)))
    {
        return Some(Drop::OutsidePaths);
    }
    let first = |kind| commit.of_kind(kind).next().map(|f| f.path.clone());
    if let Some(p) = first(FileKind::Lockfile) {
        return Some(Drop::Lockfile(p));
    }
    if let Some(p) = first(FileKind::Manifest) {
        return Some(Drop::Manifest(p));
    }
    if let Some(p) = first(FileKind::Vendored) {
        return Some(Drop::Vendored(p));
    }
    if let Some(p) = first(FileKind::Generated) {
        return Some(Drop::Generated(p));
    }
    let lines: u64 = commit.files.iter().map(|f| f.lines).sum();
    if lines > max_lines {
        return Some(Drop::TooLarge {
            lines,
            max: max_lines,
        });
    }
    let tests = commit.of_kind(FileKind::Test).next().is_some();
    let source = commit.of_kind(FileKind::Source).next().is_some();
    // A Rust file may hold its tests in `#[cfg(test)]` items: that is read when the task
    // is written (`cfg_test`), not from the path.
    let rust = commit
        .of_kind(FileKind::Source)
        .any(|f| f.path.ends_with(".rs"));
    match (source, tests) {
        (true, true) => None,
        (false, true) => Some(Drop::TestsOnly),
        (true, false) if rust => None,
        (true, false) => Some(Drop::SourceOnly),
        (false, false) if commit.files.iter().all(|f| f.kind == FileKind::Docs) => {
            Some(Drop::DocsOnly)
        }
        (false, false) => Some(Drop::NoSourceOrTests),
    }
}

/// Glob patterns for `--paths`: `*` within a path segment, `**` across segments, `?` one
/// character; a pattern without a wildcard also matches everything under it.
pub mod glob_lite {
    /// One compiled pattern.
    #[derive(Debug, Clone)]
    pub struct Pattern(regex::Regex);

    impl Pattern {
        /// Compiles `glob`.
        pub fn new(glob: &str) -> Result<Pattern, crate::mine::MineError> {
            let glob = glob.trim_start_matches("./").trim_end_matches('/');
            let mut re = String::from("^");
            let mut chars = glob.chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    '*' if chars.peek() == Some(&'*') => {
                        chars.next();
                        if chars.peek() == Some(&'/') {
                            chars.next();
                            re.push_str("(?:.*/)?");
                        } else {
                            re.push_str(".*");
                        }
                    }
                    '*' => re.push_str("[^/]*"),
                    '?' => re.push_str("[^/]"),
                    c => re.push_str(&regex::escape(&c.to_string())),
                }
            }
            re.push_str("(?:/.*)?$");
            regex::Regex::new(&re).map(Pattern).map_err(|error| {
                crate::mine::MineError::BadPattern {
                    glob: glob.to_owned(),
                    error,
                }
            })
        }

        /// Whether `path` matches.
        pub fn matches(&self, path: &str) -> bool {
            self.0.is_match(path)
        }
    }
}

fn check_revision(repo: &Path, rev: &str) -> Result<(), MineError> {
    let object = format!("{rev}^{{commit}}");
    git(repo, &["rev-parse", "--verify", "--quiet", &object])
        .map(drop)
        .map_err(|_| MineError::UnknownRevision(rev.to_owned()))
}

/// Runs git in `repo` and returns its standard output.
pub fn git<S: AsRef<std::ffi::OsStr>>(repo: &Path, args: &[S]) -> Result<Vec<u8>, MineError> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .output()
        .map_err(MineError::NoGit)?;
    if !out.status.success() {
        let shown: Vec<String> = args
            .iter()
            .map(|a| a.as_ref().to_string_lossy().into_owned())
            .collect();
        return Err(MineError::Git {
            command: shown.join(" "),
            repo: repo.to_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        });
    }
    Ok(out.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(parents: usize, files: &[(&str, u64)]) -> Commit {
        Commit {
            id: "a".repeat(40),
            parents: (0..parents).map(|i| format!("{i}")).collect(),
            subject: "s".into(),
            files: files
                .iter()
                .map(|(p, l)| FileChange {
                    path: (*p).into(),
                    lines: *l,
                    kind: classify(p),
                })
                .collect(),
        }
    }

    #[test]
    fn commits_are_judged_by_their_paths() {
        let keep = commit(1, &[("src/a.py", 3), ("tests/test_a.py", 4)]);
        assert_eq!(judge(&keep, &[], 100), None);
        let rust = commit(1, &[("src/a.rs", 3)]);
        assert_eq!(
            judge(&rust, &[], 100),
            None,
            "its tests may be #[cfg(test)] items"
        );
        let merge = commit(2, &[("src/a.py", 3), ("tests/test_a.py", 4)]);
        assert_eq!(
            judge(&merge, &[], 100),
            None,
            "a merge is judged by its diff"
        );
        let cases = [
            (commit(0, &[("a.py", 1)]), Drop::Root),
            (commit(1, &[("README.md", 1)]), Drop::DocsOnly),
            (commit(1, &[("tests/test_a.py", 1)]), Drop::TestsOnly),
            (commit(1, &[("src/a.py", 1)]), Drop::SourceOnly),
            (
                commit(1, &[("src/a.py", 1), ("doc.md", 1)]),
                Drop::SourceOnly,
            ),
            (commit(1, &[(".github/ci.yml", 1)]), Drop::NoSourceOrTests),
            (
                commit(1, &[("a.py", 1), ("test_a.py", 1), ("uv.lock", 1)]),
                Drop::Lockfile("uv.lock".into()),
            ),
            (
                commit(1, &[("a.py", 1), ("test_a.py", 1), ("pyproject.toml", 1)]),
                Drop::Manifest("pyproject.toml".into()),
            ),
            (
                commit(1, &[("a.py", 90), ("test_a.py", 20)]),
                Drop::TooLarge {
                    lines: 110,
                    max: 100,
                },
            ),
        ];
        for (c, reason) in cases {
            assert_eq!(judge(&c, &[], 100), Some(reason));
        }
        let only_web = [glob_lite::Pattern::new("web/**/*.ts").unwrap()];
        assert_eq!(judge(&keep, &only_web, 100), Some(Drop::OutsidePaths));
        let pkg = [glob_lite::Pattern::new("src").unwrap()];
        assert_eq!(judge(&keep, &pkg, 100), None);
    }

    #[test]
    fn log_output_is_parsed() {
        let text = "\u{1e}abc\u{1f}p1\u{1f}Fix it\u{1f}Why.\n\0\n3\t1\tsrc/a.py\0-\t-\timg.png\0\
            \u{1e}def\u{1f}p2 p3\u{1f}Merge pull request #7 from a/b\u{1f}\nParse empty input\n\nBody.\n\0\n1\t1\tsrc/b.py\0\
            \u{1e}123\u{1f}p4 p5\u{1f}Merge branch 'topic'\u{1f}\0";
        let commits = parse_log(text);
        assert_eq!(commits.len(), 3);
        assert_eq!(commits[0].subject, "Fix it");
        assert_eq!(commits[0].files[0].lines, 4);
        assert_eq!(commits[0].files[1].path, "img.png");
        assert!(commits[1].is_merge());
        assert_eq!(commits[1].subject, "Parse empty input");
        assert_eq!(commits[1].files[0].path, "src/b.py");
        assert_eq!(commits[2].subject, "Merge branch 'topic'");
        assert!(commits[2].files.is_empty());
    }

    #[test]
    fn merge_lines_give_way_to_the_pull_request() {
        for line in [
            "Merge pull request #1238 from more-itertools/flit-no-setup-py",
            "Merge branch 'darrenhuai-test/complete-line-coverage2'",
            "Merge branch 'fix-x' into 'main'",
            "Merge branch 'main' of https://github.com/a/b into main",
            "Merge remote-tracking branch 'origin/dev'",
        ] {
            assert!(is_merge_line(line), "{line}");
        }
        assert!(!is_merge_line("Merge adjacent ranges in the index"));
        assert_eq!(
            merged_message("Merge pull request #3 from a/b\n\nAdd mul\n\nWhy.\n"),
            "Add mul\n\nWhy.\n"
        );
        assert_eq!(
            merged_message("Merge adjacent ranges\n"),
            "Merge adjacent ranges\n"
        );
    }
}

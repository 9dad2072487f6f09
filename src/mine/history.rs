//! Candidate discovery: the first-parent history read with one `git log`, each commit kept
//! as a candidate or dropped with the reason, from paths and line counts alone.

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
    /// The subject line.
    pub subject: String,
    /// The files it changed against its first parent (empty for merges).
    pub files: Vec<FileChange>,
}

impl Commit {
    /// The first 10 hex digits of the hash.
    pub fn short(&self) -> &str {
        &self.id[..self.id.len().min(10)]
    }

    /// The changed files of one kind.
    pub fn of_kind(&self, kind: FileKind) -> impl Iterator<Item = &FileChange> {
        self.files.iter().filter(move |f| f.kind == kind)
    }
}

/// Why a commit is not a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drop {
    /// A merge commit.
    Merge,
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
            Drop::Merge => write!(f, "merge commit"),
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
        "--no-renames",
        "--numstat",
        "-z",
        "--format=%x1e%H%x1f%P%x1f%s",
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

/// Parses `git log --numstat -z --format=%x1e%H%x1f%P%x1f%s` output.
fn parse_log(text: &str) -> Vec<Commit> {
    let mut commits = Vec::new();
    for record in text.split('\u{1e}').filter(|r| !r.trim().is_empty()) {
        let (header, rest) = record.split_once('\0').unwrap_or((record, ""));
        let mut fields = header.trim_end_matches('\n').splitn(3, '\u{1f}');
        let id = fields.next().unwrap_or_default().to_owned();
        let parents = fields
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        let subject = fields.next().unwrap_or_default().to_owned();
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

/// Keeps a commit as a candidate (`None`) or says why it is dropped.
pub fn judge(commit: &Commit, paths: &[glob_lite::Pattern], max_lines: u64) -> Option<Drop> {
    if commit.parents.len() > 1 {
        return Some(Drop::Merge);
    }
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
        let cases = [
            (commit(2, &[]), Drop::Merge),
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
        let text = "\u{1e}abc\u{1f}p1\u{1f}Fix it\0\n3\t1\tsrc/a.py\0-\t-\timg.png\0\u{1e}def\u{1f}p2 p3\u{1f}Merge\0";
        let commits = parse_log(text);
        assert_eq!(commits.len(), 2);
        assert_eq!(commits[0].subject, "Fix it");
        assert_eq!(commits[0].files[0].lines, 4);
        assert_eq!(commits[0].files[1].path, "img.png");
        assert_eq!(commits[1].parents.len(), 2);
        assert!(commits[1].files.is_empty());
    }
}

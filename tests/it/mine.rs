//! `skillgate tasks mine` on small repositories with real history (Python with unittest, a
//! Rust crate, a Node package with `node --test`, a POSIX sh tool): the right commits are
//! kept, the others dropped with their reasons, kept tasks pass `tasks check`, and an `eval`
//! runs on them from their base commits.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::eval::support::{BUSYBOX_IMAGE, docker, fixture};

/// A git repository in a temporary folder, committed to file by file.
struct Repo {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

impl Repo {
    fn new() -> Repo {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("repo");
        std::fs::create_dir_all(&dir).unwrap();
        let repo = Repo { _tmp: tmp, dir };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.email", "dev@example.com"]);
        repo.git(&["config", "user.name", "Dev"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        repo
    }

    fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .arg("-C")
            .arg(&self.dir)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Writes the files (an empty content deletes one) and commits them; returns the hash.
    fn commit(&self, message: &str, files: &[(&str, &str)]) -> String {
        for (path, contents) in files {
            let path = self.dir.join(path);
            if contents.is_empty() {
                std::fs::remove_file(&path).unwrap();
                continue;
            }
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, contents).unwrap();
        }
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
        self.git(&["rev-parse", "HEAD"])
    }

    fn short(hash: &str) -> &str {
        &hash[..10]
    }
}

fn skillgate() -> Command {
    Command::new(env!("CARGO_BIN_EXE_skillgate"))
}

/// Runs `tasks mine` and returns (status, stdout lines).
fn mine(repo: &Repo, out: &Path, extra: &[&str]) -> Vec<String> {
    let output = skillgate()
        .args(["tasks", "mine", "--repo"])
        .arg(&repo.dir)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "tasks mine failed: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout.lines().map(str::to_owned).collect()
}

/// The line `tasks mine` printed for a commit.
fn line_of<'a>(lines: &'a [String], hash: &str) -> &'a str {
    lines
        .iter()
        .find(|l| l.split_whitespace().nth(1) == Some(Repo::short(hash)))
        .unwrap_or_else(|| panic!("no line for {hash} in {lines:#?}"))
}

fn assert_dropped(lines: &[String], hash: &str, reason: &str) {
    let line = line_of(lines, hash);
    assert!(
        line.starts_with("dropped") && line.contains(reason),
        "expected {hash} dropped for {reason:?}: {line}"
    );
}

fn assert_kept(lines: &[String], hash: &str) -> String {
    let line = line_of(lines, hash);
    assert!(line.starts_with("kept"), "expected {hash} kept: {line}");
    line.rsplit("-> ").next().unwrap().trim().to_owned()
}

/// `tasks check` of a folder of tasks on a backend; every task must be `ok`.
fn tasks_check(tasks: &Path, repo: &Repo, backend: &str) {
    let output = skillgate()
        .args(["tasks", "check"])
        .arg(tasks)
        .arg("--repo")
        .arg(&repo.dir)
        .args(["--backend", backend])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && !stdout.lines().any(|l| l.starts_with("problem")),
        "tasks check: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Each line says how many tests ran on each side.
    for line in stdout.lines().filter(|l| l.starts_with("ok")) {
        assert!(
            line.contains("(tests on base: ") && line.contains("; with solution: "),
            "{line}"
        );
        assert!(!line.contains("with solution: 0 run"), "{line}");
    }
}

/// The task folders in `out` (the run's record beside them is a file).
fn task_dirs(out: &Path) -> Vec<String> {
    let mut dirs: Vec<String> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    dirs
}

/// Folders a mining run left beside `out` (its staging folders must be gone).
fn leftovers(out: &Path) -> Vec<String> {
    std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".mining-"))
        .collect()
}

const CALC_V1: &str = "def add(a, b):\n    return a + b\n";
const CALC_V2: &str = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n";

fn unittest(import: &str, body: &str) -> String {
    format!(
        "import unittest\n\nfrom calc import {import}\n\n\nclass Test(unittest.TestCase):\n    def test_it(self):\n{body}\n"
    )
}

/// The Python history: one good commit and one of each kind that must be dropped.
struct PythonHistory {
    repo: Repo,
    root: String,
    good: String,
    docs: String,
    tests_only: String,
    source_only: String,
    lockfile: String,
    passes_on_base: String,
    flaky: String,
    too_large: String,
    zero_tests: String,
    helpers_only: String,
    merge: String,
    /// Counts the flaky test's runs, outside every sandbox.
    _marker: tempfile::NamedTempFile,
}

fn python_history() -> PythonHistory {
    let repo = Repo::new();
    let root = repo.commit(
        "Start the calculator",
        &[
            ("calc/__init__.py", CALC_V1),
            ("tests/__init__.py", "\n"),
            (
                "tests/test_add.py",
                &unittest("add", "        self.assertEqual(add(1, 2), 3)"),
            ),
        ],
    );
    let good = repo.commit(
        "Add multiplication (#3)\n\nCallers need the product of two numbers.\nreturn a * b\n\nFixes #2\nSigned-off-by: Dev <dev@example.com>",
        &[
            ("calc/__init__.py", CALC_V2),
            ("tests/test_mul.py", &unittest("mul", "        self.assertEqual(mul(2, 3), 6)")),
        ],
    );
    let docs = repo.commit("Document the calculator", &[("README.md", "# calc\n")]);
    let tests_only = repo.commit(
        "Test adding negatives",
        &[(
            "tests/test_add.py",
            &unittest("add", "        self.assertEqual(add(-1, -2), -3)"),
        )],
    );
    let v3 = CALC_V2.replace("return a + b", "return b + a");
    let source_only = repo.commit("Commute the sum", &[("calc/__init__.py", &v3)]);
    let v4 = format!("{v3}\n\ndef neg(a):\n    return -a\n");
    let lockfile = repo.commit(
        "Add negation",
        &[
            ("calc/__init__.py", &v4),
            (
                "tests/test_neg.py",
                &unittest("neg", "        self.assertEqual(neg(2), -2)"),
            ),
            ("uv.lock", "version = 1\n"),
        ],
    );
    let v5 = v4.replace("return b + a", "return sum((a, b))");
    let passes_on_base = repo.commit(
        "Sum through the builtin",
        &[
            ("calc/__init__.py", &v5),
            (
                "tests/test_sum.py",
                &unittest("add", "        self.assertEqual(add(2, 2), 4)"),
            ),
        ],
    );
    // The local backend gives each command a private /tmp and a read-only view of the
    // host's folders; /dev/shm is the kernel's and stays shared, so the count survives runs.
    let marker = tempfile::NamedTempFile::new_in("/dev/shm").unwrap();
    let flaky_test = format!(
        "import unittest\n\nfrom calc import div\n\nMARK = {:?}\n\n\nclass Test(unittest.TestCase):\n    def test_it(self):\n        runs = len(open(MARK).read())\n        open(MARK, 'a').write('x')\n        self.assertEqual(div(6, 3), 2)\n        self.assertEqual(runs % 2, 0)\n",
        marker.path().display().to_string()
    );
    let v6 = format!("{v5}\n\ndef div(a, b):\n    return a // b\n");
    let flaky = repo.commit(
        "Add integer division",
        &[
            ("calc/__init__.py", &v6),
            ("tests/test_div.py", &flaky_test),
        ],
    );
    let big: String = (0..300).map(|i| format!("C{i} = {i}\n")).collect();
    let too_large = repo.commit(
        "Add constants",
        &[
            ("calc/constants.py", &big),
            ("tests/test_constants.py", "import unittest\n"),
        ],
    );
    // The test imports `sub`, so it errors on the base; after the oracle its class holds no
    // test method: unittest runs nothing and exits 0.
    let v7 = format!("{v6}\n\ndef sub(a, b):\n    return a - b\n");
    let zero_tests = repo.commit(
        "Add subtraction",
        &[
            ("calc/__init__.py", &v7),
            (
                "tests/test_sub.py",
                "import unittest\n\nfrom calc import sub\n\n\nclass Test(unittest.TestCase):\n    def check(self):\n        self.assertEqual(sub(3, 2), 1)\n",
            ),
        ],
    );
    // Source outside the tests changed only in test-support code.
    let helpers_only = repo.commit(
        "Share a checker between the tests",
        &[
            ("calc/testutil/__init__.py", "def same(a, b):\n    return a == b\n"),
            (
                "tests/test_add.py",
                &unittest("add", "        self.assertEqual(add(-1, -2), -3)\n        self.assertEqual(add(0, 0), 0)"),
            ),
        ],
    );
    // A pull request merged with a merge commit: the branch's own commits are not on the
    // first-parent line; the merge brings their whole change.
    repo.git(&["checkout", "-q", "-b", "topic"]);
    let v8 = format!("{v7}\n\ndef square(a):\n    return a * a\n");
    repo.commit("wip", &[("calc/__init__.py", &v8)]);
    repo.commit(
        "fix lint",
        &[(
            "tests/test_square.py",
            &unittest("square", "        self.assertEqual(square(3), 9)"),
        )],
    );
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&[
        "merge",
        "-q",
        "--no-ff",
        "-m",
        "Merge pull request #9 from dev/square\n\nAdd square (#8)\n\nSquares come up in the statistics module.\n\n* wip\n\n* fix lint",
        "topic",
    ]);
    let merge = repo.git(&["rev-parse", "HEAD"]);
    PythonHistory {
        repo,
        root,
        good,
        docs,
        tests_only,
        source_only,
        lockfile,
        passes_on_base,
        flaky,
        too_large,
        zero_tests,
        helpers_only,
        merge,
        _marker: marker,
    }
}

#[test]
fn python_history_is_mined_checked_and_evaluated_from_base_commits() {
    let h = python_history();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("tasks");
    let lines = mine(
        &h.repo,
        &out,
        &["--backend", "local", "--max-lines", "200", "--last", "50"],
    );
    let id = assert_kept(&lines, &h.good);
    assert_dropped(&lines, &h.root, "root commit");
    assert_dropped(&lines, &h.docs, "docs-only");
    assert_dropped(&lines, &h.tests_only, "tests-only");
    assert_dropped(&lines, &h.source_only, "source-only");
    assert_dropped(&lines, &h.lockfile, "lockfile change (uv.lock)");
    assert_dropped(&lines, &h.passes_on_base, "passes on the base commit");
    assert_dropped(&lines, &h.flaky, "flaky");
    assert_dropped(&lines, &h.too_large, "too large");
    // Python 3.11 says `Ran 0 tests ... OK` and exits 0 (the pass that proves nothing);
    // 3.12 and later exit 5 with `NO TESTS RAN`.
    let zero = line_of(&lines, &h.zero_tests);
    assert!(
        zero.starts_with("dropped")
            && (zero.contains("ran no test after the oracle (0 run")
                || zero.contains("NO TESTS RAN")),
        "{zero}"
    );
    assert_dropped(&lines, &h.helpers_only, "tests-only");
    let merged = assert_kept(&lines, &h.merge);
    assert!(
        line_of(&lines, &h.merge).contains("Add square"),
        "a merge is shown by its pull request's title: {lines:#?}"
    );
    assert_eq!(lines.len(), 12, "{lines:#?}");
    assert_eq!(
        task_dirs(&out),
        [id.clone(), merged.clone()]
            .into_iter()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>(),
        "dropped tasks leave no folder behind"
    );
    assert!(leftovers(&out).is_empty(), "{:?}", leftovers(&out));

    // The merge: its first-parent diff, the pull request's title and body as the instruction.
    let task = out.join(&merged);
    let instruction = std::fs::read_to_string(task.join("instruction.md")).unwrap();
    assert!(
        instruction.starts_with("# Add square\n\nSquares come up"),
        "{instruction}"
    );
    for noise in ["Merge pull request", "#9", "#8", "wip", "fix lint"] {
        assert!(!instruction.contains(noise), "{noise:?} in {instruction}");
    }
    let toml = std::fs::read_to_string(task.join("task.toml")).unwrap();
    let first_parent = h.repo.git(&["rev-parse", &format!("{}^1", h.merge)]);
    assert!(
        toml.contains(&format!("base_commit = \"{first_parent}\"")),
        "{toml}"
    );
    assert!(task.join("tests/files/tests/test_square.py").is_file());
    assert!(task.join("solution/files/calc/__init__.py").is_file());

    let task = out.join(&id);
    let instruction = std::fs::read_to_string(task.join("instruction.md")).unwrap();
    assert!(
        instruction.starts_with("# Add multiplication\n"),
        "{instruction}"
    );
    assert!(instruction.contains("product of two numbers"));
    for leaked in ["#3", "#2", "Signed-off-by", "return a * b"] {
        assert!(!instruction.contains(leaked), "{leaked:?} in {instruction}");
    }
    let toml = std::fs::read_to_string(task.join("task.toml")).unwrap();
    assert!(
        toml.contains("tests_on_base = { run = 1, passed = 0, failed = 1 }\ntests_with_oracle = { run = 1, passed = 1, failed = 0 }\n"),
        "the proof's counts are in the metadata: {toml}"
    );
    let parent = h.repo.git(&["rev-parse", &format!("{}^", h.good)]);
    assert!(
        toml.contains(&format!("base_commit = \"{parent}\"")),
        "{toml}"
    );
    assert!(
        toml.contains(&format!("source_commit = \"{}\"", h.good)),
        "{toml}"
    );
    let test_sh = std::fs::read_to_string(task.join("tests/test.sh")).unwrap();
    assert!(
        test_sh.contains("python3 -m unittest tests.test_mul\n"),
        "{test_sh}"
    );
    assert!(task.join("tests/files/tests/test_mul.py").is_file());
    assert!(task.join("solution/files/calc/__init__.py").is_file());
    assert!(
        !task.join("solution/files/tests").exists(),
        "tests stay out of the oracle"
    );

    tasks_check(&out, &h.repo, "local");

    // The agent solves only with the skill; HEAD already has `mul`, so C0 fails only
    // because the workspace is the task's base commit.
    let skill = tmp.path().join("calc-skill/SKILL.md");
    std::fs::create_dir_all(skill.parent().unwrap()).unwrap();
    std::fs::write(
        &skill,
        "---\nname: calc-helper\ndescription: Extends the calc package. Use when adding arithmetic.\n---\n\n\
         # Calc helper\n\nNew operations go at the end of the package module.\n\n```sh\n# fixture:solve\n\
         printf '\\n\\ndef mul(a, b):\\n    return a * b\\n' >> calc/__init__.py\n```\n",
    )
    .unwrap();
    let run = tmp.path().join("run");
    let output = skillgate()
        .arg("eval")
        .arg(&skill)
        .arg("--repo")
        .arg(&h.repo.dir)
        .arg("--tasks")
        .arg(&out)
        .args(["--agent", "command", "--agent-cmd"])
        .arg(fixture("agents/command-agent.sh"))
        .args([
            "--conditions",
            "C0,C1",
            "--no-cache",
            "--quiet",
            "--backend",
            "local",
        ])
        .arg("--out")
        .arg(&run)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "eval: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let cells = skillgate::eval::journal::read_cells(&run.join("cells.jsonl")).unwrap();
    assert_eq!(cells.len(), 4, "two tasks, two conditions");
    // The skill knows how to add `mul`; nothing solves the merged `square`.
    for cell in cells.iter().filter(|c| c.task == id) {
        let expected = if cell.condition == skillgate::eval::Condition::C1 {
            skillgate::eval::Outcome::Pass
        } else {
            skillgate::eval::Outcome::Fail
        };
        assert_eq!(cell.outcome, expected, "{:?}", cell.condition);
    }
}

/// A small calculator history for the run-level behaviours: a root, two good commits, docs.
fn calc_history(extra_root_file: Option<(&str, &str)>) -> (Repo, [String; 4]) {
    let repo = Repo::new();
    let mut files = vec![("calc/__init__.py", CALC_V1), ("tests/__init__.py", "\n")];
    files.extend(extra_root_file);
    let root = repo.commit("Start the calculator", &files);
    let mul = repo.commit(
        "Add multiplication",
        &[
            ("calc/__init__.py", CALC_V2),
            (
                "tests/test_mul.py",
                &unittest("mul", "        self.assertEqual(mul(2, 3), 6)"),
            ),
        ],
    );
    let v3 = format!("{CALC_V2}\n\ndef neg(a):\n    return -a\n");
    let neg = repo.commit(
        "Add negation",
        &[
            ("calc/__init__.py", &v3),
            (
                "tests/test_neg.py",
                &unittest("neg", "        self.assertEqual(neg(2), -2)"),
            ),
        ],
    );
    let docs = repo.commit("Document the calculator", &[("README.md", "# calc\n")]);
    (repo, [root, mul, neg, docs])
}

/// Runs `tasks mine` and returns (exit code, stdout lines, stderr).
fn mine_status(repo: &Repo, out: &Path, extra: &[&str]) -> (Option<i32>, Vec<String>, String) {
    let output = skillgate()
        .args(["tasks", "mine", "--backend", "local", "--repo"])
        .arg(&repo.dir)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    (
        output.status.code(),
        stdout.lines().map(str::to_owned).collect(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_git_failure_drops_its_commit_with_gits_words_and_the_run_goes_on() {
    // The root's diff is not shown, so only `git archive` reads the folder whose objects
    // are removed below: every candidate's base holds it.
    let (repo, [root, mul, neg, docs]) =
        calc_history(Some(("assets/logo.txt", "a logo only the archive reads\n")));
    repo.git(&["config", "log.showRoot", "false"]);
    let objects = ["HEAD:assets", "HEAD:assets/logo.txt"].map(|o| repo.git(&["rev-parse", o]));
    for hash in objects {
        let path = repo
            .dir
            .join(".git/objects")
            .join(&hash[..2])
            .join(&hash[2..]);
        std::fs::remove_file(&path).unwrap();
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("tasks");
    // The staging folder of a run stopped at once (a second Ctrl-C): this run removes it.
    std::fs::create_dir_all(tmp.path().join(".tasks.mining-Xk3p9Q/half-written")).unwrap();
    let (code, lines, stderr) = mine_status(&repo, &out, &[]);
    assert_eq!(
        code,
        Some(0),
        "one commit's git failure does not end the run: {stderr}"
    );
    for hash in [&mul, &neg] {
        let line = line_of(&lines, hash);
        assert!(
            line.starts_with("dropped")
                && line.contains("git failed: ")
                && line.contains("git archive ")
                && line.contains("fatal: "),
            "git's own message: {line}"
        );
    }
    assert_dropped(&lines, &docs, "docs-only");
    assert_dropped(&lines, &root, "root commit");
    assert!(task_dirs(&out).is_empty(), "{:?}", task_dirs(&out));
    assert!(leftovers(&out).is_empty(), "{:?}", leftovers(&out));
    assert!(
        stderr.contains("0 task(s) kept of 2 candidate(s) in 4 commit(s) read"),
        "{stderr}"
    );
    assert!(stderr.contains("2 git failed"), "{stderr}");
}

#[test]
fn a_mining_run_is_resumed_where_it_stopped() {
    let (repo, [root, mul, neg, docs]) = calc_history(None);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("tasks");
    let (code, lines, stderr) = mine_status(&repo, &out, &["--max", "1"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(lines.len(), 2, "{lines:#?}");
    let first = assert_kept(&lines, &neg);
    assert_dropped(&lines, &docs, "docs-only");

    let (code, lines, stderr) = mine_status(&repo, &out, &["--max", "5", "--resume"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(lines.len(), 4, "{lines:#?}");
    assert!(
        line_of(&lines, &neg).contains("(earlier run)"),
        "{lines:#?}"
    );
    assert!(
        line_of(&lines, &docs).contains("(earlier run)"),
        "{lines:#?}"
    );
    assert_eq!(assert_kept(&lines, &neg), first);
    let second = assert_kept(&lines, &mul);
    assert!(!line_of(&lines, &mul).contains("earlier run"));
    assert_dropped(&lines, &root, "root commit");
    let mut both = vec![first.clone(), second];
    both.sort();
    assert_eq!(task_dirs(&out), both);
    let record = std::fs::read_to_string(out.join(".skillgate-mine.tsv")).unwrap();
    assert_eq!(record.lines().count(), 4, "{record}");

    // Without --resume, a run starts afresh.
    let (_, lines, _) = mine_status(&repo, &out, &["--max", "1"]);
    assert!(!line_of(&lines, &neg).contains("earlier run"), "{lines:#?}");
    let record = std::fs::read_to_string(out.join(".skillgate-mine.tsv")).unwrap();
    assert_eq!(record.lines().count(), 2, "{record}");
}

#[test]
fn tasks_check_reports_a_verifier_that_ran_no_test() {
    let (repo, [_, _, neg, _]) = calc_history(None);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("tasks");
    let (_, lines, stderr) = mine_status(&repo, &out, &["--max", "1"]);
    let id = assert_kept(&lines, &neg);
    assert!(
        stderr.contains("1 task(s) kept of 1 candidate(s) in 2 commit(s) read"),
        "{stderr}"
    );
    // A verifier that tells the states apart by its exit code but runs no test.
    std::fs::write(
        out.join(&id).join("tests/test.sh"),
        "#!/bin/sh\ngrep -q 'def neg' calc/__init__.py || exit 1\nprintf 'Ran 0 tests in 0.000s\\n\\nOK\\n'\n",
    )
    .unwrap();
    let output = skillgate()
        .args(["tasks", "check"])
        .arg(&out)
        .arg("--repo")
        .arg(&repo.dir)
        .args(["--backend", "local"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "problem  {id}: the verifier ran no test after solution/solve.sh (0 run, 0 passed, 0 failed)"
        )),
        "{stdout}"
    );
}

const RUST_CALC: &str = "pub fn double(a: i32) -> i32 {\n    a * 2\n}\n\n\
    #[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn doubles() {\n        assert_eq!(double(2), 4);\n    }\n}\n";

/// A Rust crate's history: tests in `tests/` and in `#[cfg(test)]` modules beside the code.
struct RustHistory {
    repo: Repo,
    integration: String,
    manifest_change: String,
    unit: String,
    source_only: String,
    tests_only: String,
    new_module: String,
    ported: String,
}

fn rust_history() -> RustHistory {
    let repo = Repo::new();
    let manifest = "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
    let lib = "pub mod calc;\n\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n";
    repo.commit(
        "Start the crate",
        &[
            ("Cargo.toml", manifest),
            (".gitignore", "/target\nCargo.lock\n"),
            ("src/lib.rs", lib),
            ("src/calc.rs", RUST_CALC),
            (
                "tests/add.rs",
                "#[test]\nfn adds() {\n    assert_eq!(tiny::add(1, 2), 3);\n}\n",
            ),
        ],
    );
    let lib = format!("{lib}\npub fn mul(a: i32, b: i32) -> i32 {{\n    a * b\n}}\n");
    let integration = repo.commit(
        "Add mul\n\nCo-authored-by: Other <o@example.com>",
        &[
            ("src/lib.rs", &lib),
            (
                "tests/mul.rs",
                "#[test]\nfn multiplies() {\n    assert_eq!(tiny::mul(2, 3), 6);\n}\n",
            ),
        ],
    );
    let manifest_change = repo.commit(
        "Release 0.2 with sub",
        &[
            ("Cargo.toml", &manifest.replace("0.1.0", "0.2.0")),
            ("src/sub.rs", "pub fn sub() {}\n"),
            ("tests/sub.rs", "#[test]\nfn subs() {}\n"),
        ],
    );
    // The function and its test in one file: the test goes to the verifier, the function to
    // the oracle.
    let calc = RUST_CALC
        .replace(
            "}\n\n#[cfg(test)]",
            "}\n\npub fn halve(a: i32) -> i32 {\n    a / 2\n}\n\n#[cfg(test)]",
        )
        .replace(
            "    }\n}\n",
            "    }\n\n    #[test]\n    fn halves() {\n        assert_eq!(halve(8), 4);\n    }\n}\n",
        );
    // lib.rs gains a test only: the oracle leaves it alone, the verifier patches it.
    let lib = format!(
        "{lib}\n#[cfg(test)]\nmod tests {{\n    #[test]\n    fn halves_through_the_crate() {{\n        assert_eq!(crate::calc::halve(4), 2);\n    }}\n}}\n"
    );
    let unit = repo.commit(
        "Halve numbers too",
        &[("src/calc.rs", &calc), ("src/lib.rs", &lib)],
    );
    let calc = calc.replace("a * 2", "a + a");
    let source_only = repo.commit("Double by adding", &[("src/calc.rs", &calc)]);
    let calc = calc.replace(
        "    fn doubles() {\n",
        "    fn doubles() {\n        assert_eq!(double(0), 0);\n",
    );
    let tests_only = repo.commit("Test doubling zero", &[("src/calc.rs", &calc)]);
    let new_module = repo.commit(
        "Negate in a module of its own",
        &[
            ("src/lib.rs", &lib.replace("pub mod calc;", "pub mod calc;\npub mod neg;")),
            (
                "src/neg.rs",
                "pub fn neg(a: i32) -> i32 {\n    -a\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn negates() {\n        assert_eq!(super::neg(2), -2);\n    }\n}\n",
            ),
        ],
    );
    // A test suite moved into a module file of its own: the only non-test change is the
    // `#[cfg(test)] mod test;` that declares it, so the oracle would be the tests themselves.
    let lib = lib.replace("pub mod calc;", "pub mod calc;\npub mod neg;");
    let ported = repo.commit(
        "Port test suite",
        &[
            ("src/lib.rs", &format!("{lib}\n#[cfg(test)]\nmod test;\n")),
            (
                "src/test.rs",
                "use crate::add;\n\n#[test]\nfn ported() {\n    assert_eq!(add(1, 1), 2);\n}\n",
            ),
        ],
    );
    RustHistory {
        repo,
        integration,
        manifest_change,
        unit,
        source_only,
        tests_only,
        new_module,
        ported,
    }
}

#[test]
fn rust_crate_commits_become_cargo_test_tasks() {
    let h = rust_history();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("tasks");
    let lines = mine(&h.repo, &out, &["--backend", "local"]);
    let id = assert_kept(&lines, &h.integration);
    assert_dropped(
        &lines,
        &h.manifest_change,
        "dependency manifest change (Cargo.toml)",
    );
    assert_dropped(&lines, &h.source_only, "source-only");
    assert_dropped(&lines, &h.tests_only, "tests-only");
    let test_sh = std::fs::read_to_string(out.join(&id).join("tests/test.sh")).unwrap();
    assert!(
        test_sh.contains("cargo test --offline --test mul\n"),
        "{test_sh}"
    );
    let instruction = std::fs::read_to_string(out.join(&id).join("instruction.md")).unwrap();
    assert!(!instruction.contains("Co-authored-by"), "{instruction}");

    // `#[cfg(test)]` items: the verifier patches them in and runs only their tests; the
    // oracle holds the code without them.
    let unit = out.join(assert_kept(&lines, &h.unit));
    let test_sh = std::fs::read_to_string(unit.join("tests/test.sh")).unwrap();
    assert!(
        test_sh.contains(
            "(the code it tests is not there)\"; exit 1; }\ndone\ncargo test --offline --workspace -- calc::tests:: tests::\n"
        ),
        "{test_sh}"
    );
    let patch = std::fs::read_to_string(unit.join("tests/cfg-test/src__calc.rs.patch")).unwrap();
    assert!(
        patch.starts_with("--- a/src/calc.rs\n+++ b/src/calc.rs\n"),
        "{patch}"
    );
    assert!(
        patch.contains("+    fn halves() {\n") && !patch.contains("+pub fn halve"),
        "{patch}"
    );
    let oracle = std::fs::read_to_string(unit.join("solution/files/src/calc.rs")).unwrap();
    assert!(
        oracle.contains("pub fn halve(") && oracle.contains("fn doubles()"),
        "{oracle}"
    );
    assert!(!oracle.contains("fn halves()"), "{oracle}");
    assert!(
        !unit.join("tests/files").exists(),
        "no test file of its own"
    );
    assert!(unit.join("tests/cfg-test/src__lib.rs.patch").is_file());
    assert!(
        !unit.join("solution/files/src/lib.rs").exists(),
        "lib.rs changed only in its tests"
    );

    let module = out.join(assert_kept(&lines, &h.new_module));
    let test_sh = std::fs::read_to_string(module.join("tests/test.sh")).unwrap();
    assert!(test_sh.contains("-- neg::tests::\n"), "{test_sh}");
    let oracle = std::fs::read_to_string(module.join("solution/files/src/neg.rs")).unwrap();
    assert_eq!(oracle, "pub fn neg(a: i32) -> i32 {\n    -a\n}\n\n");
    assert!(module.join("solution/files/src/lib.rs").is_file());
    assert_dropped(&lines, &h.ported, "tests-only");
    assert_eq!(task_dirs(&out).len(), 3, "{lines:#?}");
    tasks_check(&out, &h.repo, "local");
}

/// A Node package tested with `node --test`: one good commit and one with a lockfile.
fn node_history() -> (Repo, String, String) {
    let repo = Repo::new();
    repo.commit(
        "Start the package",
        &[
            ("package.json", "{\"name\": \"tiny\", \"version\": \"1.0.0\", \"scripts\": {\"test\": \"node --test\"}}\n"),
            ("lib.js", "exports.add = (a, b) => a + b;\n"),
            (
                "test/add.test.js",
                "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../lib.js');\ntest('adds', () => assert.strictEqual(add(1, 2), 3));\n",
            ),
        ],
    );
    let good = repo.commit(
        "Add mul",
        &[
            ("lib.js", "exports.add = (a, b) => a + b;\nexports.mul = (a, b) => a * b;\n"),
            (
                "test/mul.test.js",
                "const test = require('node:test');\nconst assert = require('node:assert');\nconst { mul } = require('../lib.js');\ntest('multiplies', () => assert.strictEqual(mul(2, 3), 6));\n",
            ),
        ],
    );
    let lock = repo.commit(
        "Add sub",
        &[
            ("lib.js", "exports.add = (a, b) => a + b;\nexports.mul = (a, b) => a * b;\nexports.sub = (a, b) => a - b;\n"),
            ("test/sub.test.js", "require('node:test')('subs', () => {});\n"),
            ("package-lock.json", "{}\n"),
        ],
    );
    (repo, good, lock)
}

#[test]
fn node_package_commits_become_node_test_tasks() {
    let (repo, good, lock) = node_history();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("tasks");
    let lines = mine(&repo, &out, &["--backend", "local"]);
    let id = assert_kept(&lines, &good);
    assert_dropped(&lines, &lock, "lockfile change (package-lock.json)");
    let test_sh = std::fs::read_to_string(out.join(&id).join("tests/test.sh")).unwrap();
    assert!(
        test_sh.contains("node --test test/mul.test.js\n"),
        "{test_sh}"
    );
    tasks_check(&out, &repo, "local");
}

/// The image the Docker runs of mined tasks use: Debian with python3 and pytest, cargo and
/// rustc, nodejs and patch, built by `.ci/toolchain-image`. Panics when it is missing: these
/// tests must not pass silently.
const TOOLCHAIN_IMAGE: &str = "skillgate-test-toolchains:bookworm";

fn toolchain_image() -> &'static str {
    let sandbox = skillgate::eval::sandbox::docker::DockerSandbox::connect("mine-toolchains", None)
        .unwrap_or_else(|e| panic!("Docker is required for these tests and is not usable: {e}"));
    let found = sandbox.block_on(sandbox.client().inspect_image(TOOLCHAIN_IMAGE));
    assert!(
        found.is_ok(),
        "the image {TOOLCHAIN_IMAGE} is missing: build it with .ci/toolchain-image (as root, with debootstrap and Docker)"
    );
    TOOLCHAIN_IMAGE
}

/// Mines `repo` on Docker in the toolchain image, keeps `good`, and checks the kept tasks
/// there; returns the folder of tasks (inside the temporary folder) and the lines `tasks
/// mine` printed.
fn mined_and_checked_on_docker(
    repo: &Repo,
    good: &[&str],
) -> (tempfile::TempDir, PathBuf, Vec<String>) {
    let image = toolchain_image();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("tasks");
    let lines = mine(repo, &out, &["--backend", "docker", "--image", image]);
    for hash in good {
        assert_kept(&lines, hash);
    }
    tasks_check(&out, repo, "docker");
    (tmp, out, lines)
}

/// A Python package with one commit that adds a function and its test, for unittest or,
/// with a `conftest.py` at the root, for pytest.
fn python_pair(pytest: bool) -> (Repo, String) {
    let repo = Repo::new();
    let test = if pytest {
        "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n".to_owned()
    } else {
        unittest("mul", "        self.assertEqual(mul(2, 3), 6)")
    };
    // unittest imports the tests as a package; pytest finds the root from its conftest.py.
    let marker = if pytest {
        ("conftest.py", "\n")
    } else {
        ("tests/__init__.py", "\n")
    };
    repo.commit(
        "Start the calculator",
        &[("calc/__init__.py", CALC_V1), marker],
    );
    let good = repo.commit(
        "Add multiplication",
        &[("calc/__init__.py", CALC_V2), ("tests/test_mul.py", &test)],
    );
    (repo, good)
}

#[test]
fn python_tasks_pass_check_on_docker() {
    for (pytest, runner) in [
        (false, "python3 -m unittest tests.test_mul\n"),
        (true, "python3 -m pytest -q tests/test_mul.py\n"),
    ] {
        let (repo, good) = python_pair(pytest);
        let (_tmp, out, lines) = mined_and_checked_on_docker(&repo, &[&good]);
        let id = assert_kept(&lines, &good);
        let test_sh = std::fs::read_to_string(out.join(id).join("tests/test.sh")).unwrap();
        assert!(test_sh.contains(runner), "{test_sh}");
    }
}

#[test]
fn rust_tasks_pass_check_on_docker() {
    let h = rust_history();
    let (_tmp, _, lines) =
        mined_and_checked_on_docker(&h.repo, &[&h.integration, &h.unit, &h.new_module]);
    assert_dropped(&lines, &h.source_only, "source-only");
    assert_dropped(&lines, &h.tests_only, "tests-only");
    assert_dropped(&lines, &h.ported, "tests-only");
}

#[test]
fn node_tasks_pass_check_on_docker() {
    let (repo, good, _) = node_history();
    mined_and_checked_on_docker(&repo, &[&good]);
}

/// A POSIX sh tool, whose tests run in the busybox image: mined with `--test-cmd`, checked
/// and evaluated on Docker from the base commit.
#[test]
fn shell_tool_is_mined_and_evaluated_on_docker() {
    drop(docker("mine-busybox")); // builds the image when missing
    let image = BUSYBOX_IMAGE;
    let repo = Repo::new();
    repo.commit(
        "Start the greeter",
        &[
            ("bin/greet.sh", "echo hello\n"),
            ("tests/hello.sh", "[ \"$(sh bin/greet.sh)\" = hello ]\n"),
        ],
    );
    let good = repo.commit(
        "Greet by name when one is given",
        &[
            ("bin/greet.sh", "echo hello${1:+ $1}\n"),
            (
                "tests/name.sh",
                "[ \"$(sh bin/greet.sh \"$(cat tests/data/name.txt)\")\" = 'hello ann' ]\n",
            ),
            ("tests/data/name.txt", "ann\n"),
        ],
    );
    repo.commit("Describe the greeter", &[("README.md", "greet\n")]);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("tasks");
    let lines = mine(
        &repo,
        &out,
        &[
            "--backend",
            "docker",
            "--image",
            image,
            "--test-cmd",
            // TAP lines: what any test command prints for its tests to be counted.
            "n=0; s=0; for t in {files}; do n=$((n+1)); if sh \"$t\"; then echo \"ok $n $t\"; else echo \"not ok $n $t\"; s=1; fi; done; exit $s",
        ],
    );
    let id = assert_kept(&lines, &good);
    let test_sh = std::fs::read_to_string(out.join(&id).join("tests/test.sh")).unwrap();
    assert!(
        test_sh.contains("for t in tests/name.sh; do"),
        "{{files}} names the test sources, not their data: {test_sh}"
    );
    tasks_check(&out, &repo, "docker");

    let skill = tmp.path().join("greet-skill/SKILL.md");
    std::fs::create_dir_all(skill.parent().unwrap()).unwrap();
    std::fs::write(
        &skill,
        "---\nname: greeter-style\ndescription: Conventions of the greeter tool. Use when changing bin/.\n---\n\n\
         # Greeter style\n\nArguments extend the greeting.\n\n```sh\n# fixture:solve\n\
         echo 'echo hello${1:+ $1}' > bin/greet.sh\n```\n",
    )
    .unwrap();
    let run = tmp.path().join("run");
    let output = skillgate()
        .arg("eval")
        .arg(&skill)
        .arg("--repo")
        .arg(&repo.dir)
        .arg("--tasks")
        .arg(&out)
        .args(["--agent", "command", "--agent-cmd"])
        .arg(fixture("agents/command-agent.sh"))
        .args([
            "--conditions",
            "C0,C1",
            "--no-cache",
            "--quiet",
            "--backend",
            "docker",
        ])
        .arg("--out")
        .arg(&run)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "eval: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let cells = skillgate::eval::journal::read_cells(&run.join("cells.jsonl")).unwrap();
    let outcome = |c| {
        cells
            .iter()
            .find(|cell| cell.condition == c)
            .map(|cell| cell.outcome)
    };
    assert_eq!(
        outcome(skillgate::eval::Condition::C0),
        Some(skillgate::eval::Outcome::Fail)
    );
    assert_eq!(
        outcome(skillgate::eval::Condition::C1),
        Some(skillgate::eval::Outcome::Pass)
    );
}

#[test]
fn bad_input_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let output = skillgate()
        .args(["tasks", "mine", "--backend", "local", "--repo"])
        .arg(tmp.path())
        .arg("--out")
        .arg(tmp.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("not a git repository"), "{stderr}");
    let repo = Repo::new();
    repo.commit("One", &[("a.py", "x = 1\n")]);
    let output = skillgate()
        .args([
            "tasks",
            "mine",
            "--backend",
            "local",
            "--since",
            "no-such-tag",
            "--repo",
        ])
        .arg(&repo.dir)
        .arg("--out")
        .arg(tmp.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--since no-such-tag: no such commit"),
        "{stderr}"
    );
}

#[test]
fn a_hidden_test_demanding_an_unstated_message_is_no_task() {
    let repo = Repo::new();
    repo.commit(
        "Start the calculator",
        &[("calc/__init__.py", CALC_V1), ("tests/__init__.py", "\n")],
    );
    let checked = |message: &str| {
        format!(
            "{CALC_V1}\n\ndef div(a, b):\n    if b == 0:\n        raise ValueError(\"{message}\")\n    return a / b\n"
        )
    };
    let test = |message: &str| {
        unittest(
            "div",
            &format!(
                "        with self.assertRaisesRegex(ValueError, \"{message}\"):\n            div(1, 0)"
            ),
        )
    };
    // The wording exists only in the code and its test: no instruction could lead to it.
    let hidden = repo.commit(
        "Refuse to divide by zero",
        &[
            (
                "calc/__init__.py",
                &checked("cannot divide by zero, give another b"),
            ),
            (
                "tests/test_div.py",
                &test("cannot divide by zero, give another b"),
            ),
        ],
    );
    // The same change, with the message in the commit's words: a fair task.
    let stated = repo.commit(
        "Refuse to divide by zero, plainly\n\nRaise ValueError(\"division by zero is not allowed\") when b is 0.",
        &[
            ("calc/__init__.py", &checked("division by zero is not allowed")),
            ("tests/test_div.py", &test("division by zero is not allowed")),
        ],
    );
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("tasks");
    let (code, lines, stderr) = mine_status(&repo, &out, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let line = line_of(&lines, &hidden);
    assert!(
        line.starts_with("dropped")
            && line.contains(
                "the hidden test asserts a message the instruction never states \
                 (\"cannot divide by zero, give another b\")"
            ),
        "{line}"
    );
    assert!(stderr.contains("1 unstated message"), "{stderr}");
    let line = line_of(&lines, &stated);
    assert!(
        !line.contains("unstated") && !line.contains("never states"),
        "a stated message is fair: {line}"
    );
}

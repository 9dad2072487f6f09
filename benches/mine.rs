//! `cargo bench --bench mine [-- COMMITS LAST]`: generates a repository with COMMITS commits
//! (2,000 by default; one `git fast-import`), then times candidate discovery over its last
//! LAST (200) first-parent commits and the writing of every candidate as a task. Validation
//! is not timed: its cost is the test runs themselves.
//!
//! Budget: discovery under 2 s.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use skillgate::mine::history::{Commit, Range};
use skillgate::mine::{self, write::Writer};

const DISCOVERY_BUDGET_MS: f64 = 2000.0;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let commits = args.first().copied().unwrap_or(2000);
    let last = args.get(1).copied().unwrap_or(200);
    let tmp = tempfile::tempdir().expect("temporary folder");
    let repo = tmp.path().join("repo");
    let started = Instant::now();
    generate(&repo, commits);
    println!(
        "generated {commits} commits in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let started = Instant::now();
    let found =
        mine::discover(&repo, &Range::Last(last), &[], mine::DEFAULT_MAX_LINES).expect("discovery");
    let discovery = started.elapsed().as_secs_f64() * 1000.0;
    let candidates: Vec<&Commit> = found
        .iter()
        .filter(|(_, d)| d.is_none())
        .map(|(c, _)| c)
        .collect();
    let mut reasons = std::collections::BTreeMap::new();
    for (_, drop) in &found {
        if let Some(d) = drop {
            let text = d.to_string();
            let kind = text.split(" (").next().unwrap_or(&text).to_owned();
            *reasons.entry(kind).or_insert(0) += 1;
        }
    }
    println!(
        "discovery: {} commits read, {} candidates, {discovery:.1} ms ({:.3} ms per commit, {:.3} ms per candidate); budget {DISCOVERY_BUDGET_MS:.0} ms: {}",
        found.len(),
        candidates.len(),
        discovery / found.len().max(1) as f64,
        discovery / candidates.len().max(1) as f64,
        if discovery < DISCOVERY_BUDGET_MS {
            "met"
        } else {
            "NOT met"
        }
    );
    for (reason, n) in &reasons {
        println!("  dropped {n:>4}  {reason}");
    }

    let writer = Writer::default();
    let out = tmp.path().join("tasks");
    let started = Instant::now();
    let mut written = 0;
    for commit in &candidates {
        let dir = out.join(mine::task_id(commit));
        if let Ok(Ok(_)) = writer.write(&repo, commit, &dir) {
            written += 1;
        }
    }
    let writing = started.elapsed().as_secs_f64() * 1000.0;
    println!(
        "writing: {written} tasks in {writing:.1} ms ({:.2} ms per candidate)",
        writing / candidates.len().max(1) as f64
    );
}

/// A Python package whose history mixes every kind of commit: source with tests (most),
/// docs only, tests only, source only, lockfile changes.
fn generate(repo: &Path, commits: usize) {
    std::fs::create_dir_all(repo).expect("repo folder");
    git(repo, &["init", "-q", "-b", "main"]);
    let mut stream = Vec::new();
    for i in 0..commits {
        let module = i % 50;
        let mut files: Vec<(String, String)> = Vec::new();
        let source = format!(
            "def f{module}(x):\n    return x + {i}\n\n\ndef g{module}(x):\n    return x * {i}\n"
        );
        let test = format!(
            "import unittest\n\nfrom pkg.m{module} import f{module}\n\n\nclass T(unittest.TestCase):\n    def test_f(self):\n        self.assertEqual(f{module}(0), {i})\n"
        );
        match i % 10 {
            0 => files.push((format!("docs/m{module}.md"), format!("# m{module} {i}\n"))),
            1 => files.push((format!("tests/test_m{module}.py"), test)),
            2 => files.push((format!("pkg/m{module}.py"), source)),
            3 => {
                files.push((format!("pkg/m{module}.py"), source));
                files.push((format!("tests/test_m{module}.py"), test));
                files.push(("uv.lock".into(), format!("version = {i}\n")));
            }
            _ => {
                files.push((format!("pkg/m{module}.py"), source));
                files.push((format!("tests/test_m{module}.py"), test));
            }
        }
        if i == 0 {
            files.push(("pkg/__init__.py".into(), "\n".into()));
            files.push(("tests/__init__.py".into(), "\n".into()));
        }
        let message =
            format!("Change module {module} ({i})\n\nStep {i} of the generated history.\n");
        write!(
            stream,
            "commit refs/heads/main\ncommitter Dev <dev@example.com> {} +0000\ndata {}\n{message}",
            1_700_000_000 + i,
            message.len()
        )
        .expect("stream");
        for (path, contents) in files {
            write!(
                stream,
                "M 100644 inline {path}\ndata {}\n{contents}\n",
                contents.len()
            )
            .expect("stream");
        }
        stream.push(b'\n');
    }
    let mut child = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["fast-import", "--quiet"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("git fast-import");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&stream)
        .expect("feeding git fast-import");
    assert!(child.wait().expect("git fast-import").success());
    git(repo, &["checkout", "-q", "main"]);
}

fn git(repo: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .status()
        .expect("git");
    assert!(status.success(), "git {args:?}");
}

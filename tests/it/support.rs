//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The repository root, so tests can use relative paths like `skills/release-notes`.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `skillgate` run from the repository root with a fixed terminal width and no colour.
pub fn skillgate() -> Command {
    let mut cmd = Command::cargo_bin("skillgate").expect("binary builds");
    cmd.current_dir(root())
        .env("COLUMNS", "100")
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("SKILLGATE_RULES_DOC");
    cmd
}

/// Run skillgate with `args` from `dir`; returns (exit code, stdout, stderr).
pub fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = skillgate()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("skillgate runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Run skillgate from the repository root.
pub fn run(args: &[&str]) -> (i32, String, String) {
    run_in(&root(), args)
}

/// Write `files` (relative path, contents) under a new temporary folder.
pub fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("has parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    dir
}

/// A minimal valid skill manifest named `name`.
pub fn manifest(name: &str, body: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Drafts release notes from merged pull requests. Use when preparing a release.\n---\n{body}"
    )
}

/// The finding lines of concise output (the closing verdict line left out).
pub fn finding_lines(out: &str) -> Vec<&str> {
    out.lines().filter(|l| !l.contains(": verdict ")).collect()
}

/// The review of the fixture skill `skill` against the fixture repository `repo`, with
/// only the rules `select` names, and its findings as a user reads them: `path:line:col
/// CODE severity message`, then each related place and the help, indented.
pub fn selected_review(skill: &str, repo: &str, select: &str) -> (skillgate::lint::Review, String) {
    use std::fmt::Write;

    use skillgate::lint::{self, Selection, Settings};

    let skill = skillgate::skill::Skill::load(Path::new(skill)).expect("fixture skill loads");
    let project = skillgate::project::scan(Path::new(repo)).expect("fixture repository scans");
    let settings = Settings {
        selection: Selection {
            select: vec![select.to_owned()],
            ignore: vec![],
        },
        ..Settings::default()
    };
    let review = lint::review(&skill, &settings, Some(&project));
    let mut out = String::new();
    for f in &review.findings {
        let l = &f.location;
        let path = l.path.to_string_lossy().replace('\\', "/");
        let _ = writeln!(
            out,
            "{path}:{}:{} {} {} {}",
            l.line, l.column, f.code, f.severity, f.message
        );
        for r in &f.related {
            let path = r.location.path.to_string_lossy().replace('\\', "/");
            let _ = writeln!(out, "    related {path}:{} {}", r.location.line, r.message);
        }
        if let Some(help) = &f.help {
            let _ = writeln!(out, "    help: {help}");
        }
    }
    (review, out)
}

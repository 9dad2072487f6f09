//! One clear error per command: a bad argument or input ends with exit status 2 and one
//! report on stderr, never a panic. Without a terminal the report is plain ASCII at a fixed
//! width: the error's code, `x` and what is wrong, the file's lines with the span labelled
//! when the error points into a file, and `help:`.

use super::support::{manifest, run_in, tree};

/// Run `args` in a folder holding the skill `s/`, check the exit status and return stderr.
fn error_of(args: &[&str]) -> String {
    let dir = tree(&[("s/SKILL.md", &manifest("s", "# Steps\n\nDo it.\n"))]);
    error_in(dir.path(), args)
}

/// Run `args` in `dir`, check the exit status and that stderr is one plain report.
fn error_in(dir: &std::path::Path, args: &[&str]) -> String {
    let (code, stdout, stderr) = run_in(dir, args);
    assert_eq!(code, 2, "{args:?}: stdout={stdout} stderr={stderr}");
    assert!(
        stdout.is_empty(),
        "{args:?}: nothing on stdout, got {stdout}"
    );
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    let whats = stderr.lines().filter(|l| l.starts_with("  x ")).count();
    assert_eq!(whats, 1, "{args:?}: one error, got {stderr}");
    assert!(stderr.starts_with("skillgate::"), "{args:?}: {stderr}");
    assert!(stderr.is_ascii(), "{args:?}: plain ASCII, got {stderr}");
    assert!(
        !stderr.contains('\u{1b}'),
        "{args:?}: no colour, got {stderr}"
    );
    stderr
}

#[test]
fn check_with_an_unknown_rule() {
    insta::assert_snapshot!(error_of(&["check", "s", "--select", "SG9"]));
}

#[test]
fn check_with_a_bad_level() {
    insta::assert_snapshot!(error_of(&["check", "s", "--fail-on", "loud"]));
}

#[test]
fn rules_with_an_unknown_flag() {
    insta::assert_snapshot!(error_of(&["rules", "--bogus"]));
}

#[test]
fn rule_that_does_not_exist() {
    insta::assert_snapshot!(error_of(&["rule", "SG999"]));
}

#[test]
fn eval_with_an_unknown_agent() {
    insta::assert_snapshot!(error_of(&["eval", "s", "--agent", "robot"]));
}

#[test]
fn report_of_a_missing_run() {
    insta::assert_snapshot!(error_of(&["report", "no/such/run"]));
}

#[test]
fn tasks_check_outside_a_repository() {
    insta::assert_snapshot!(error_of(&[
        "tasks",
        "check",
        "tasks",
        "--backend",
        "local",
        "--repo",
        "nowhere"
    ]));
}

#[test]
fn tasks_mine_without_a_repository() {
    insta::assert_snapshot!(error_of(&[
        "tasks",
        "mine",
        "--repo",
        "nowhere",
        "--out",
        "mined",
        "--backend",
        "local"
    ]));
}

#[test]
fn audit_with_a_bad_shard() {
    insta::assert_snapshot!(error_of(&["audit", "s", "--shard", "3/2"]));
}

#[test]
fn merge_of_a_missing_file() {
    insta::assert_snapshot!(error_of(&["merge", "nope.json"]));
}

#[test]
fn gate_with_a_missing_repository() {
    insta::assert_snapshot!(error_of(&["gate", "s", "--repo", "nowhere"]));
}

#[test]
fn a_configuration_error_shows_the_line_and_labels_the_key() {
    let dir = tree(&[
        ("s/SKILL.md", &manifest("s", "Body.\n")),
        (
            "skillgate.toml",
            "select = [\"SG1\"]\n\n[limits]\nbody-tokns = 3\n",
        ),
    ]);
    let stderr = error_in(dir.path(), &["check", "s"]);
    assert!(stderr.contains(" 4 | body-tokns = 3\n"), "{stderr}");
    assert!(
        stderr.contains("^^^^^|^^^^"),
        "the key is underlined: {stderr}"
    );
    insta::assert_snapshot!(stderr);
}

#[test]
fn a_frontmatter_yaml_error_shows_the_line_and_labels_it() {
    let dir = tree(&[(
        "s/SKILL.md",
        "---\nname: s\ndescription: [unclosed\nlicense: MIT\n---\nbody\n",
    )]);
    let (code, stdout, stderr) = run_in(dir.path(), &["check", "s/SKILL.md"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stdout.contains("SG509(unloadable-skill)"),
        "the report has it too: {stdout}"
    );
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with("  x ")).count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains(",-[s/SKILL.md:"), "{stderr}");
    insta::assert_snapshot!(stderr);
}

#[test]
fn knowledge_check_of_a_file_that_does_not_parse_shows_the_line_and_labels_it() {
    let dir = tree(&[(
        "pack/apis/npm/left-pad.toml",
        "ecosystem = \"npm\"\npackage = \"left-pad\"\n\n[[change]]\nid = \"x\"\nkind = \"gone\"\n",
    )]);
    let stderr = error_in(dir.path(), &["knowledge", "check", "pack"]);
    assert!(
        stderr.starts_with("skillgate::knowledge::invalid"),
        "{stderr}"
    );
    assert!(stderr.contains(" 6 | kind = \"gone\"\n"), "{stderr}");
    insta::assert_snapshot!(stderr);
}

#[test]
fn a_task_toml_error_shows_the_line_and_labels_the_value() {
    let dir = tree(&[
        ("s/SKILL.md", &manifest("s", "# Steps\n\nDo it.\n")),
        ("t1/task.toml", "[agent]\ntimeout_sec = \"soon\"\n"),
        ("t1/instruction.md", "Do the thing.\n"),
        ("t1/tests/test.sh", "exit 0\n"),
    ]);
    let stderr = error_in(
        dir.path(),
        &[
            "eval",
            "s",
            "--tasks",
            "t1",
            "--backend",
            "local",
            "--agent",
            "command",
            "--agent-cmd",
            "true",
            "--repo",
            ".",
        ],
    );
    assert!(stderr.starts_with("skillgate::eval::task"), "{stderr}");
    assert!(
        stderr.contains("x task t1: task.toml: invalid type: string \"soon\", expected f64"),
        "{stderr}"
    );
    assert!(stderr.contains("t1/task.toml:2:15]"), "{stderr}");
    assert!(stderr.contains(" 2 | timeout_sec = \"soon\"\n"), "{stderr}");
}

//! One clear error per command: a bad argument or input ends with exit status 2 and one
//! message on stderr (plain, fixed width), never a panic.

use super::support::{manifest, run_in, tree};

/// Run `args` in a folder holding the skill `s/`, check the exit status and return stderr.
fn error_of(args: &[&str]) -> String {
    let dir = tree(&[("s/SKILL.md", &manifest("s", "# Steps\n\nDo it.\n"))]);
    let (code, stdout, stderr) = run_in(dir.path(), args);
    assert_eq!(code, 2, "{args:?}: stdout={stdout} stderr={stderr}");
    assert!(
        stdout.is_empty(),
        "{args:?}: nothing on stdout, got {stdout}"
    );
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
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

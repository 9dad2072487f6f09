//! Bad input gets one clear error on stderr and exit status 2, never a panic.

use super::support::{manifest, run_in, tree};

/// Run `check` on `target` inside `dir` and assert a clean input error mentioning `needle`.
fn assert_input_error(dir: &std::path::Path, target: &str, needle: &str) {
    let (code, stdout, stderr) = run_in(dir, &["check", target]);
    assert_eq!(code, 2, "exit code for {target}: stderr={stderr}");
    assert!(stdout.is_empty(), "no report on input error, got {stdout}");
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    let whats: Vec<_> = stderr.lines().filter(|l| l.starts_with("  x ")).collect();
    assert_eq!(whats.len(), 1, "one error, got {stderr:?}");
    assert!(
        whats[0].contains(needle),
        "expected {needle:?} in {stderr:?}"
    );
}

#[test]
fn missing_file() {
    let dir = tree(&[]);
    assert_input_error(
        dir.path(),
        "nope/SKILL.md",
        "nope/SKILL.md: no such file or directory",
    );
}

#[test]
fn folder_without_a_skill() {
    let dir = tree(&[("empty/readme.txt", "hi")]);
    assert_input_error(dir.path(), "empty", "empty: no SKILL.md in this folder");
}

#[test]
fn empty_file() {
    let dir = tree(&[("s/SKILL.md", "  \n\n")]);
    assert_input_error(dir.path(), "s/SKILL.md", "the file is empty");
}

#[test]
fn binary_file() {
    let dir = tree(&[]);
    std::fs::create_dir(dir.path().join("s")).expect("mkdir");
    std::fs::write(dir.path().join("s/SKILL.md"), b"---\x00\x01\x02binary").expect("write");
    assert_input_error(dir.path(), "s/SKILL.md", "binary file");
}

#[test]
fn non_utf8_points_at_the_byte() {
    let dir = tree(&[]);
    std::fs::create_dir(dir.path().join("s")).expect("mkdir");
    std::fs::write(
        dir.path().join("s/SKILL.md"),
        b"---\nname: s\n---\nok\nbad \xff here\n",
    )
    .expect("write");
    assert_input_error(
        dir.path(),
        "s/SKILL.md",
        "s/SKILL.md:5:5: the file is not valid UTF-8",
    );
}

#[test]
fn file_over_five_mebibytes() {
    let big = manifest("s", &"word ".repeat(1_100_000));
    let dir = tree(&[("s/SKILL.md", &big)]);
    assert_input_error(dir.path(), "s/SKILL.md", "over the 5242880-byte limit");
}

#[test]
fn missing_frontmatter() {
    let dir = tree(&[("s/SKILL.md", "# Just a heading\n")]);
    assert_input_error(
        dir.path(),
        "s/SKILL.md",
        "s/SKILL.md:1:1: missing frontmatter",
    );
}

#[test]
fn unclosed_frontmatter() {
    let dir = tree(&[("s/SKILL.md", "---\nname: s\n# body\n")]);
    assert_input_error(
        dir.path(),
        "s/SKILL.md",
        "s/SKILL.md:1:1: unclosed frontmatter",
    );
}

#[test]
fn invalid_yaml_points_at_line_and_column() {
    let dir = tree(&[(
        "s/SKILL.md",
        "---\nname: s\ndescription: \"unterminated\n---\nbody\n",
    )]);
    let (code, _, stderr) = run_in(dir.path(), &["check", "s/SKILL.md"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("  x s/SKILL.md:"), "{stderr}");
    assert!(stderr.contains("invalid frontmatter YAML"), "{stderr}");
    assert!(
        !stderr.contains(" at line "),
        "positions are file positions only: {stderr}"
    );
}

#[test]
fn yaml_alias_bomb_is_refused_quickly() {
    let mut yaml = String::from("---\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..15 {
        let p = i - 1;
        yaml.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    yaml.push_str("---\nbody\n");
    let dir = tree(&[("s/SKILL.md", &yaml)]);
    assert_input_error(dir.path(), "s/SKILL.md", "invalid frontmatter YAML");
}

#[test]
fn frontmatter_that_is_not_a_mapping() {
    let dir = tree(&[("s/SKILL.md", "---\n- a\n- b\n---\nbody\n")]);
    assert_input_error(
        dir.path(),
        "s/SKILL.md",
        "s/SKILL.md:2:1: invalid frontmatter YAML: the frontmatter must be a mapping",
    );
}

#[cfg(unix)]
#[test]
fn symlink_out_of_the_skill_folder_is_one_error_and_is_not_read() {
    let dir = tree(&[
        ("s/SKILL.md", &manifest("s", "body\n")),
        ("secret.txt", "top secret"),
    ]);
    std::os::unix::fs::symlink(dir.path().join("secret.txt"), dir.path().join("s/leak.txt"))
        .expect("symlink");
    let (code, stdout, stderr) = run_in(dir.path(), &["check", "s", "-f", "json"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let sg508: Vec<&serde_json::Value> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == "SG508")
        .collect();
    assert_eq!(sg508.len(), 1, "{stdout}");
    assert_eq!(sg508[0]["severity"], "error");
    let message = sg508[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("`leak.txt` is a symlink out of the skill folder and its repository"),
        "{message}"
    );
    assert!(!stdout.contains("top secret"), "{stdout}");
}

#[cfg(unix)]
#[test]
fn symlink_inside_the_skill_folder_is_fine() {
    let dir = tree(&[
        (
            "s/SKILL.md",
            &manifest(
                "s",
                "See [a](references/a.md) and [b](references/b.md).\nNever guess.\n",
            ),
        ),
        ("s/references/a.md", "# A\n"),
    ]);
    std::os::unix::fs::symlink(
        dir.path().join("s/references/a.md"),
        dir.path().join("s/references/b.md"),
    )
    .expect("symlink");
    let (code, _, stderr) = run_in(dir.path(), &["check", "s"]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn one_bad_skill_does_not_hide_the_others() {
    let dir = tree(&[
        ("good/SKILL.md", &manifest("good", "Never guess.\n")),
        ("bad/SKILL.md", "no frontmatter\n"),
    ]);
    let (code, stdout, stderr) = run_in(
        dir.path(),
        &[
            "check",
            "bad",
            "good",
            "--format",
            "concise",
            "--fail-on",
            "info",
        ],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("bad/SKILL.md:1:1: missing frontmatter"),
        "{stderr}"
    );
    assert!(
        super::support::finding_lines(&stdout).is_empty(),
        "good has no findings: {stdout}"
    );
}

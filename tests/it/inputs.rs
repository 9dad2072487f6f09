//! Bad input gets one clear error on stderr and exit status 2, never a panic.

use super::support::{manifest, run_in, tree};

/// Run `check` on `target` inside `dir` and assert a clean input error mentioning `needle`.
fn assert_input_error(dir: &std::path::Path, target: &str, needle: &str) {
    let (code, stdout, stderr) = run_in(dir, &["check", target]);
    assert_eq!(code, 2, "exit code for {target}: stderr={stderr}");
    // A skill that is there but cannot be read is also its one SG509 finding in the report;
    // a path with nothing at it is a usage error only.
    let missing = needle.contains("no such file") || needle.contains("no SKILL.md");
    if missing {
        assert!(
            stdout.is_empty(),
            "no report for a missing skill, got {stdout}"
        );
    } else {
        assert_eq!(
            stdout.matches("SG509(unloadable-skill)").count(),
            1,
            "one finding in the report: {stdout}"
        );
        assert!(stdout.contains("cannot be loaded · 1 error"), "{stdout}");
    }
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
    let lines = super::support::finding_lines(&stdout);
    assert_eq!(lines.len(), 1, "good has no findings: {stdout}");
    assert!(
        lines[0]
            .starts_with("bad/SKILL.md:1:1: SG509 the skill cannot be loaded: missing frontmatter"),
        "bad has its one: {stdout}"
    );
}

#[test]
fn an_unloadable_skill_among_several_is_one_json_document_with_one_error() {
    let good = |name: &str| manifest(name, "# Steps\n\nNever skip the review.\n");
    let dir = tree(&[
        ("a/SKILL.md", &good("a")),
        (
            "b/SKILL.md",
            "---\nname: b\ndescription: [unclosed\n---\nbody\n",
        ),
        ("c/SKILL.md", &good("c")),
    ]);
    let (code, stdout, stderr) = run_in(dir.path(), &["check", "a", "b", "c", "--format", "json"]);
    assert_eq!(code, 2, "unreadable input, as DESIGN.md says: {stderr}");
    assert!(stderr.contains("invalid frontmatter YAML"), "{stderr}");
    let docs: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let paths: Vec<&str> = docs
        .iter()
        .map(|d| d["skill"]["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        ["a/SKILL.md", "b/SKILL.md", "c/SKILL.md"],
        "in the order given"
    );
    let findings = docs[1]["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{stdout}");
    assert_eq!(findings[0]["code"], "SG509");
    assert_eq!(findings[0]["severity"], "error");
    assert_eq!(findings[0]["path"], "b/SKILL.md");
    assert_eq!(findings[0]["line"], 4, "where the parser stopped");
    assert!(
        findings[0]["message"]
            .as_str()
            .unwrap()
            .contains("invalid frontmatter YAML"),
        "{stdout}"
    );
    assert!(
        docs[1].get("verdict").is_none(),
        "nothing to decide on: {stdout}"
    );
    for d in [&docs[0], &docs[2]] {
        assert!(d["verdict"].is_object(), "{d}");
    }

    // The markdown format says so rather than counting nothing.
    let (_, stdout, _) = run_in(dir.path(), &["check", "b", "--format", "markdown"]);
    assert!(
        stdout.contains("`b/SKILL.md` · cannot be loaded · 1 error"),
        "{stdout}"
    );
    assert!(!stdout.contains("0 tokens"), "{stdout}");

    // An unreadable SKILL.md is the same: one finding, the others checked.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(dir.path().join("b/SKILL.md"), good("b")).unwrap();
        let locked = dir.path().join("b/SKILL.md");
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
        if std::fs::read(&locked).is_err() {
            let (code, stdout, _) =
                run_in(dir.path(), &["check", "a", "b", "c", "--format", "json"]);
            assert_eq!(code, 2);
            let codes: Vec<Vec<String>> = stdout
                .lines()
                .map(|l| {
                    let d: serde_json::Value = serde_json::from_str(l).unwrap();
                    d["findings"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|f| f["code"].as_str().unwrap().to_owned())
                        .collect()
                })
                .collect();
            assert_eq!(
                codes,
                [vec![], vec!["SG509".to_owned()], vec![]],
                "{stdout}"
            );
        }
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
}

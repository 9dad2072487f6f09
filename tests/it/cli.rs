//! Command-line behaviour: exit codes, selection, configuration, suppressions, baselines.

use super::support::{finding_lines, manifest, run, run_in, tree};

const NOISY: &str = "As of 2024 the latest version is fine.\nNever guess.\n";

#[test]
fn exit_codes_follow_fail_on() {
    let dir = tree(&[("s/SKILL.md", &manifest("s", NOISY))]);
    let check = |level: &str| {
        run_in(
            dir.path(),
            &["check", "s", "--format", "concise", "--fail-on", level],
        )
        .0
    };
    assert_eq!(check("error"), 0, "only warnings");
    assert_eq!(check("warning"), 1);
    assert_eq!(check("info"), 1);
    assert_eq!(check("never"), 0);
    let (code, _, _) = run(&[
        "check",
        "skills/react-upgrade",
        "--repo",
        "fixtures/repos/webapp",
    ]);
    assert_eq!(code, 1, "the bad example has error-level findings");
    let (code, stdout, _) = run(&["check", "skills/release-notes", "--fail-on", "info"]);
    assert_eq!(code, 0, "the good example is clean: {stdout}");
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(run(&["check"]).0, 2, "no skill given");
    assert_eq!(
        run(&["check", "skills/release-notes", "--format", "xml"]).0,
        2
    );
    let (code, _, stderr) = run(&["check", "skills/release-notes", "--select", "SG9"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("\"SG9\" matches no rule"), "{stderr}");
    let (code, _, stderr) = run(&["check", "skills/release-notes", "--repo", "no/such/dir"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("no/such/dir: the repository folder does not exist"),
        "{stderr}"
    );
}

#[test]
fn select_and_ignore_take_codes_and_prefixes() {
    let dir = tree(&[("s/SKILL.md", &manifest("s", NOISY))]);
    let codes = |extra: &[&str]| {
        let mut args = vec!["check", "s", "--format", "concise"];
        args.extend_from_slice(extra);
        let (_, out, _) = run_in(dir.path(), &args);
        finding_lines(&out)
            .into_iter()
            .map(|l| l.split(' ').nth(1).unwrap_or_default().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(codes(&[]), ["SG303", "SG303"]);
    assert!(codes(&["--ignore", "SG3"]).is_empty());
    assert!(codes(&["--select", "SG1,SG2"]).is_empty());
    assert_eq!(codes(&["--select", "SG303"]).len(), 2);
}

#[test]
fn config_sets_severity_limits_and_allowed_keys() {
    let body = "---\nname: s\ndescription: Drafts release notes. Use when preparing a release.\nversion: 2\n---\nAs of 2024 it works.\nNever guess.\n";
    let config = "fail-on = \"warning\"\n[severity]\nSG303 = \"error\"\n[frontmatter]\nallow-keys = [\"version\"]\n[limits]\nbody-tokens = 3\n";
    let dir = tree(&[("s/SKILL.md", body), ("skillgate.toml", config)]);
    let (code, out, stderr) = run_in(dir.path(), &["check", "s", "--format", "json"]);
    assert_eq!(code, 1, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("json");
    let findings = json["findings"].as_array().expect("findings");
    let codes: Vec<_> = findings
        .iter()
        .map(|f| f["code"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        codes,
        ["SG201", "SG303"],
        "SG111 allowed, SG201 from the lowered budget"
    );
    assert_eq!(findings[1]["severity"], "error");
}

#[test]
fn config_errors_point_at_the_line() {
    let dir = tree(&[
        ("s/SKILL.md", &manifest("s", "Never.\n")),
        (
            "skillgate.toml",
            "select = [\"SG1\"]\n\n[limits]\nbody-tokns = 3\n",
        ),
    ]);
    let (code, _, stderr) = run_in(dir.path(), &["check", "s"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("  x ") && stderr.contains("skillgate.toml:4:1:"),
        "{stderr}"
    );
    assert!(stderr.contains("body-tokns"), "{stderr}");
    let (code, _, stderr) = run_in(dir.path(), &["check", "s", "--config", "missing.toml"]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn suppressions_need_a_reason() {
    let body = "<!-- skillgate-ignore SG303: the date is part of a quoted changelog -->\nAs of 2024 it works.\n\n<!-- skillgate-ignore SG303 -->\nCurrently it works.\nNever guess.\n";
    let dir = tree(&[("s/SKILL.md", &manifest("s", body))]);
    let (_, out, _) = run_in(dir.path(), &["check", "s", "--format", "concise"]);
    let lines = finding_lines(&out);
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[0].contains(":8:1: SG001 suppression without a reason"),
        "{out}"
    );
    assert!(lines[1].contains(":9:1: SG303 \"Currently\""), "{out}");
}

#[test]
fn file_wide_suppression() {
    let body = "<!-- skillgate-ignore-file SG3: historical document -->\n\nAs of 2024 it works.\n\nCurrently it works.\n";
    let dir = tree(&[("s/SKILL.md", &manifest("s", body))]);
    let (_, out, _) = run_in(
        dir.path(),
        &["check", "s", "--format", "concise", "--fail-on", "info"],
    );
    assert!(
        finding_lines(&out).is_empty(),
        "every SG3xx finding is suppressed: {out}"
    );
    assert!(
        out.contains("s/SKILL.md: verdict not evaluated (injecting needs an evaluation)"),
        "the verdict still closes the output: {out}"
    );
}

#[test]
fn baseline_reports_only_new_findings() {
    let dir = tree(&[(
        "s/SKILL.md",
        &manifest("s", "As of 2024 it works.\nNever guess.\n"),
    )]);
    let (code, out, stderr) = run_in(
        dir.path(),
        &["check", "s", "--write-baseline", "baseline.json"],
    );
    assert_eq!((code, out.as_str()), (0, ""), "{stderr}");
    assert!(
        stderr.contains("wrote 1 findings to baseline.json"),
        "{stderr}"
    );
    let (code, out, _) = run_in(
        dir.path(),
        &[
            "check",
            "s",
            "--baseline",
            "baseline.json",
            "--format",
            "concise",
            "--fail-on",
            "warning",
        ],
    );
    assert_eq!(code, 0);
    assert!(
        finding_lines(&out).is_empty(),
        "the old finding is accepted: {out}"
    );
    std::fs::write(
        dir.path().join("s/SKILL.md"),
        manifest(
            "s",
            "Intro line.\n\nAs of 2024 it works.\nCurrently too.\nNever guess.\n",
        ),
    )
    .expect("write");
    let (code, out, _) = run_in(
        dir.path(),
        &[
            "check",
            "s",
            "--baseline",
            "baseline.json",
            "--format",
            "concise",
            "--fail-on",
            "warning",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(
        finding_lines(&out).len(),
        1,
        "only the new finding, though the old one moved: {out}"
    );
    assert!(out.contains("\"Currently\""), "{out}");
    let (code, _, stderr) = run_in(dir.path(), &["check", "s", "--baseline", "nope.json"]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn rules_and_rule_commands() {
    let (code, out, _) = run(&["rules"]);
    assert_eq!(code, 0);
    assert!(
        out.lines()
            .any(|l| l.starts_with("SG203  warning  example-code-share")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("SG703  warning  near-duplicate-body")),
        "set-level rules are listed too: {out}"
    );
    let (code, out, _) = run(&["rule", "SG703"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("SG703 near-duplicate-body (set, warning by default)")
            && out.contains("Fires on")
            && out.contains("Passes on"),
        "{out}"
    );
    let (code, out, _) = run(&["rule", "sg203"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("SG203 example-code-share (size, warning by default)"),
        "{out}"
    );
    assert!(
        out.contains("Fires on") && out.contains("Passes on"),
        "{out}"
    );
    assert_eq!(
        run(&["rule", "body-too-many-tokens"]).0,
        0,
        "names work too"
    );
    let (code, _, stderr) = run(&["rule", "SG999"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no rule \"SG999\""), "{stderr}");
}

#[test]
fn help_teaches_usage() {
    let (code, out, _) = run(&["check", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("skillgate check SKILL.md --repo ."), "{out}");
    assert!(out.contains("--fail-on <LEVEL>"), "{out}");
}

#[test]
fn repo_check_shows_project_findings_and_the_fit() {
    let (code, out, _) = run(&[
        "check",
        "skills/react-upgrade",
        "--repo",
        "fixtures/repos/webapp",
        "--format",
        "concise",
    ]);
    assert_eq!(code, 1);
    for expected in [
        "SG401 the skill is written for react 17, but the project requires react ^19.0.0",
        "SG402 `react-dom.render` is removed",
        "SG402 `react-dom/test-utils` is removed",
    ] {
        assert!(out.contains(expected), "missing {expected:?} in:\n{out}");
    }
    let (code, out, _) = run(&[
        "check",
        "fixtures/skills/webapp-agrees",
        "--repo",
        "fixtures/repos/webapp",
        "--fail-on",
        "info",
    ]);
    assert_eq!(code, 0, "the skill written for the webapp is clean: {out}");
    assert!(out.contains("0 errors, 0 warnings, 0 info"), "{out}");
    assert!(
        out.contains("· ecosystems: npm · package managers: pnpm · 5 dependencies · fit: core"),
        "{out}"
    );
}

#[test]
fn a_repository_that_is_a_file_is_a_usage_error() {
    let (code, _, stderr) = run(&["check", "skills/release-notes", "--repo", "Cargo.toml"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("repository root Cargo.toml is not a directory"),
        "{stderr}"
    );
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with("  x ")).count(),
        1,
        "{stderr}"
    );
}

#[test]
fn at_includes_reach_their_files_and_lend_them_their_prohibitions() {
    let skill = ".claude/skills/notes";
    let body = "# Notes\n\nFollow @.github/copilot-instructions.md, then read \
                @references/layout.md and @references/style.md.\n";
    let dir = tree(&[
        (&format!("{skill}/SKILL.md"), &manifest("notes", body)),
        (
            &format!("{skill}/references/layout.md"),
            "# Layout\n\nTitle first.\n",
        ),
        (
            &format!("{skill}/references/style.md"),
            "# Style\n\nShort lines.\n",
        ),
        (
            ".github/copilot-instructions.md",
            "# Rules\n\nNever edit generated files by hand.\n",
        ),
    ]);
    let check = |args: &[&str]| {
        let mut all = vec![
            "check",
            skill,
            "--select",
            "SG301,SG504",
            "--format",
            "concise",
        ];
        all.extend_from_slice(args);
        let (_, out, stderr) = run_in(dir.path(), &all);
        assert!(!stderr.contains("panicked"), "{stderr}");
        finding_lines(&out).join("\n")
    };
    // The included references are linked, and the included instructions say what not to do.
    assert_eq!(check(&["--repo", "."]), "", "with the repository");
    // Without the repository the instructions file is not there to read; the references
    // still are.
    let out = check(&[]);
    assert!(
        out.contains("SG301 the skill states no prohibitions"),
        "{out}"
    );
    assert!(!out.contains("SG504"), "{out}");
    // An included file without a prohibition lends none.
    std::fs::write(
        dir.path().join(".github/copilot-instructions.md"),
        "# Rules\n\nKeep functions short.\n",
    )
    .unwrap();
    let out = check(&["--repo", "."]);
    assert!(
        out.contains("SG301 the skill states no prohibitions"),
        "{out}"
    );
    // A prohibition in an included file of the skill counts too.
    std::fs::write(
        dir.path().join(format!("{skill}/references/style.md")),
        "# Style\n\nDo not wrap lines.\n",
    )
    .unwrap();
    assert_eq!(check(&[]), "", "the skill's own include");
}

#[test]
fn a_folder_named_by_its_bare_name_is_not_unlinked() {
    let check = |sentence: &str| {
        let body = format!("# Notes\n\nNever guess. {sentence}\n");
        let dir = tree(&[
            ("s/SKILL.md", &manifest("s", &body)),
            ("s/references/layout.md", "# Layout\n"),
            ("s/references/style.md", "# Style\n"),
        ]);
        let (_, out, _) = run_in(
            dir.path(),
            &["check", "s", "--select", "SG504", "--format", "concise"],
        );
        finding_lines(&out).join("\n")
    };
    for named in [
        "Read the guides in `references` first.",
        "Read the guides in the references folder first.",
        "Read the guides in the `references` directory first.",
        "Read the guides in [references](references/) first.",
    ] {
        assert_eq!(check(named), "", "{named}");
    }
    let out = check("Read the guides in the build folder first.");
    assert!(
        out.contains("SG504 the folder `references/` (2 files) is not linked"),
        "{out}"
    );
}

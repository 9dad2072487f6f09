//! Findings a skill author trusts: the reference resolver on the shapes real packs use
//! (folders named as folders, stems in lists, globs, client placeholders, client metadata),
//! and quoted text read as a quotation, not as the skill's own voice.

use super::support::{finding_lines, run};

/// Concise findings for one fixture skill under `fixtures/precision/`.
fn concise(name: &str) -> String {
    let path = format!("fixtures/precision/{name}");
    let (_, out, err) = run(&["check", &path, "-f", "concise", "--fail-on", "never"]);
    assert!(err.is_empty(), "{name}: {err}");
    finding_lines(&out).join("\n")
}

#[test]
fn shapes_of_reference_real_packs_use_resolve() {
    for name in [
        "folder-named-as-folder",
        "stems-in-list",
        "placeholders",
        "glob",
        "codex-agent-metadata",
        "quoted-phrases",
    ] {
        assert_eq!(concise(name), "", "{name} should have no finding");
    }
}

#[test]
fn placeholders_still_report_missing_files() {
    insta::assert_snapshot!("placeholder_missing", concise("placeholder-missing"));
}

#[test]
fn orphans_are_reported_per_folder_and_per_file() {
    insta::assert_snapshot!("orphans", concise("orphans"));
    let (_, out, _) = run(&[
        "check",
        "fixtures/precision/orphans",
        "-f",
        "json",
        "--fail-on",
        "never",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).expect("json");
    let folder = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| {
            f["message"]
                .as_str()
                .is_some_and(|m| m.contains("`drafts/`"))
        })
        .expect("one finding for the folder");
    let related: Vec<&str> = folder["related"]
        .as_array()
        .expect("related")
        .iter()
        .filter_map(|r| r["path"].as_str())
        .collect();
    assert_eq!(related.len(), 3, "{related:?}");
    assert!(related.iter().all(|p| p.contains("drafts/")));
}

/// Concise findings for a fixture with extra arguments.
fn concise_with(name: &str, extra: &[&str]) -> String {
    let path = format!("fixtures/precision/{name}");
    let mut args = vec![
        "check",
        path.as_str(),
        "-f",
        "concise",
        "--fail-on",
        "never",
    ];
    args.extend_from_slice(extra);
    let (_, out, err) = run(&args);
    assert!(err.is_empty(), "{name}: {err}");
    finding_lines(&out).join("\n")
}

#[test]
fn vendor_keys_follow_the_targets() {
    insta::assert_snapshot!("vendor_keys_default", concise("vendor-keys"));
    insta::assert_snapshot!(
        "vendor_keys_codex",
        concise_with("vendor-keys", &["--target", "codex"])
    );
    let (_, human, _) = run(&[
        "check",
        "fixtures/precision/vendor-keys",
        "--target",
        "codex,cursor",
        "--fail-on",
        "never",
    ]);
    insta::assert_snapshot!("vendor_keys_human", human);
}

#[test]
fn targets_come_from_the_config_and_the_flag_replaces_them() {
    let config = "fixtures/precision/vendor-keys-config/skillgate.toml";
    let from_config = concise_with("vendor-keys-config", &["--config", config]);
    assert!(
        from_config.contains("SG111 `argument-hint` is documented by Claude Code"),
        "{from_config}"
    );
    let flag = concise_with(
        "vendor-keys-config",
        &["--config", config, "--target", "claude-code"],
    );
    assert_eq!(flag, "");
}

#[test]
fn an_unknown_target_is_a_usage_error() {
    let (code, _, err) = run(&[
        "check",
        "fixtures/precision/vendor-keys",
        "--target",
        "claud",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown target \"claud\""), "{err}");
}

/// The look-alike fixtures of the judged hits (tests/precision/cases.tsv) give exactly the
/// findings their row says, so a change that brings a false-positive class back fails here.
#[test]
fn judged_shapes_give_the_findings_recorded_for_them() {
    let table = std::fs::read_to_string(super::support::root().join("tests/precision/cases.tsv"))
        .expect("cases.tsv");
    let mut rows = 0;
    for line in table.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let [fixture, rule, expected, class] = cols[..] else {
            panic!("malformed row: {line:?}");
        };
        let expected: usize = expected.parse().expect("a count");
        // A fixture with a `repo/` folder is its `skill/` checked against that repository.
        let dir = format!("fixtures/precision/{fixture}");
        let repo = format!("{dir}/repo");
        let (path, mut args) = if super::support::root().join(&repo).is_dir() {
            (format!("{dir}/skill"), vec!["--repo", repo.as_str()])
        } else {
            (dir.clone(), Vec::new())
        };
        args.extend(["-f", "json", "--fail-on", "never"]);
        let mut argv = vec!["check", path.as_str()];
        argv.extend(args);
        let (_, out, _) = run(&argv);
        let json: serde_json::Value = serde_json::from_str(&out).expect("json");
        let found = json["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| f["code"] == rule)
            .count();
        assert_eq!(found, expected, "{fixture} {rule} ({class}): {out}");
        rows += 1;
    }
    assert!(rows >= 20, "only {rows} rows read");
}

/// Concise findings of a skill under `fixtures/targets/` with extra arguments.
fn targets_case(path: &str, extra: &[&str]) -> String {
    let path = format!("fixtures/targets/{path}");
    let mut args = vec![
        "check",
        path.as_str(),
        "-f",
        "concise",
        "--fail-on",
        "never",
    ];
    args.extend_from_slice(extra);
    let (_, out, err) = run(&args);
    assert!(err.is_empty(), "{path}: {err}");
    finding_lines(&out).join("\n")
}

#[test]
fn the_description_limit_is_the_strictest_targets_and_names_them() {
    insta::assert_snapshot!(
        "targets_description_default",
        targets_case("description-1100", &[])
    );
    // Claude Code reads 1,536 characters: 1,131 pass, 1,659 do not.
    assert_eq!(
        targets_case("description-1100", &["--target", "claude-code"]),
        ""
    );
    insta::assert_snapshot!(
        "targets_description_claude_code",
        targets_case("description-1600", &["--target", "claude-code"])
    );
    // With Codex among the targets its 1,024 wins again.
    insta::assert_snapshot!(
        "targets_description_claude_code_codex",
        targets_case("description-1100", &["--target", "claude-code,codex"])
    );
}

#[test]
fn configured_limits_override_the_targets() {
    let out = targets_case(
        "description-1600",
        &[
            "--target",
            "claude-code",
            "--config",
            "fixtures/targets/limits.toml",
        ],
    );
    assert_eq!(out, "");
    let out = targets_case(
        "description-1100",
        &["--config", "fixtures/targets/limits-low.toml"],
    );
    assert!(
        out.contains("SG107 `description` has 1131 characters; the limit is 1000 (skillgate.toml)"),
        "{out}"
    );
}

#[test]
fn placeholders_are_those_the_targets_expand() {
    insta::assert_snapshot!(
        "targets_placeholders_codex",
        concise_with("placeholders", &["--target", "codex"])
    );
    insta::assert_snapshot!(
        "targets_placeholders_claude_code",
        concise_with("placeholders", &["--target", "claude-code"])
    );
    assert_eq!(concise_with("placeholders", &["--target", "generic"]), "");
}

/// SG507 findings for a skill of the `fixtures/targets/repo` repository.
fn discovery(skill: &str, extra: &[&str]) -> String {
    let mut args = vec!["--repo", "fixtures/targets/repo", "--select", "SG507"];
    args.extend_from_slice(extra);
    targets_case(&format!("repo/{skill}"), &args)
}

#[test]
fn a_skill_outside_every_targets_discovery_folders_gets_a_note() {
    insta::assert_snapshot!(
        "targets_discovery",
        [
            discovery("tools/loose-notes", &[]),
            discovery("tools/loose-notes", &["--target", "copilot"]),
            discovery(".claude/skills/claude-notes", &["--target", "codex"]),
            discovery(
                "plugins/notes-plugin/skills/plugin-notes",
                &["--target", "cursor"]
            ),
        ]
        .join("\n")
    );
    for (skill, target) in [
        (".agents/skills/shared-notes", "codex,copilot"),
        (".claude/skills/claude-notes", "claude-code,cursor,copilot"),
        ("plugins/notes-plugin/skills/plugin-notes", "claude-code"),
        ("tools/loose-notes", "generic"),
    ] {
        assert_eq!(
            discovery(skill, &["--target", target]),
            "",
            "{skill} for {target}"
        );
    }
    // Without a repository there is nothing to compare with.
    assert_eq!(
        targets_case("repo/tools/loose-notes", &["--select", "SG507"]),
        ""
    );
}

/// The code and severity of every finding of a check, as `CODE severity message`.
fn coded(path: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["check", path, "-f", "json", "--fail-on", "never"];
    args.extend_from_slice(extra);
    let (_, out, err) = run(&args);
    let json: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            format!(
                "{} {} {}",
                f["code"].as_str().unwrap_or_default(),
                f["severity"].as_str().unwrap_or_default(),
                f["message"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

#[test]
fn paths_that_are_not_this_skills_files_are_not_reported_missing() {
    let found = coded("fixtures/precision/not-this-skills-paths", &[]);
    let structure: Vec<&String> = found.iter().filter(|f| f.starts_with("SG50")).collect();
    assert_eq!(
        structure,
        [
            "SG501 warning `references/checklist.md` does not exist in the skill folder",
            "SG504 info the folder `drafts/` (2 files) is not linked or named from SKILL.md",
        ],
        "{found:#?}"
    );
}

#[test]
fn a_placeholder_the_targets_do_not_expand_is_a_note_when_the_file_exists() {
    let found = coded(
        "fixtures/precision/placeholders",
        &["--target", "claude-code", "--select", "SG501,SG502"],
    );
    assert_eq!(
        found,
        [
            "SG501 info `{baseDir}` in `{baseDir}/references/style.md` is not expanded by Claude Code"
        ]
    );
    // A placeholder before a missing file stays what it was.
    let missing = coded(
        "fixtures/precision/placeholder-missing",
        &["--target", "claude-code", "--select", "SG501"],
    );
    assert!(
        missing.iter().all(|f| f.starts_with("SG501 error")),
        "{missing:#?}"
    );
}

#[cfg(unix)]
#[test]
fn an_unreadable_entry_is_one_finding_and_the_rest_is_checked() {
    use super::support::{manifest, tree};
    let dir = tree(&[
        (
            "s/SKILL.md",
            &manifest("s", "See [the guide](references/gone.md).\nNever guess.\n"),
        ),
        ("s/references/ok.md", "# Ok\n"),
    ]);
    let s = dir.path().join("s");
    std::os::unix::fs::symlink("b.md", s.join("a.md")).expect("symlink");
    std::os::unix::fs::symlink("a.md", s.join("b.md")).expect("symlink");
    std::os::unix::fs::symlink("nowhere.md", s.join("references/dangling.md")).expect("symlink");
    let path = s.to_string_lossy().into_owned();
    let found = coded(&path, &["--select", "SG501,SG508"]);
    assert_eq!(found.len(), 4, "{found:#?}");
    assert_eq!(
        found[0],
        "SG501 error `references/gone.md` does not exist in the skill folder"
    );
    assert!(
        found[1].starts_with("SG508 warning `a.md` cannot be read: "),
        "{found:#?}"
    );
    assert!(
        found[2].starts_with("SG508 warning `b.md` cannot be read: "),
        "{found:#?}"
    );
    assert!(
        found[3].starts_with("SG508 warning `references/dangling.md` cannot be read: "),
        "{found:#?}"
    );
}

/// A repository that keeps its own skills: one in `.claude/skills` that links the
/// repository's tests and scripts and links its `tools` folder to the repository's scripts,
/// the same skill linked again from `.agents/skills`, and a pack skill under `packs/skills`
/// with the same link.
#[cfg(unix)]
fn repository_with_skills() -> tempfile::TempDir {
    use super::support::{manifest, tree};
    let body = "Read [the API test](../../../tests/api.spec.ts) before changing a route.\n\
                Run `scripts/regen-oas.sh` after every change, or `tools/regen-oas.sh`.\n\
                Never edit `openapi.json` by hand.\n";
    let dir = tree(&[
        ("README.md", "# Service\n"),
        ("scripts/regen-oas.sh", "#!/bin/sh\necho regen\n"),
        ("tests/api.spec.ts", "test('api', () => {});\n"),
        (".claude/skills/api/SKILL.md", &manifest("api", body)),
        (
            "packs/skills/api-pack/SKILL.md",
            &manifest("api-pack", body),
        ),
    ]);
    std::fs::create_dir(dir.path().join(".git")).expect(".git");
    std::os::unix::fs::symlink(
        "../../../scripts",
        dir.path().join(".claude/skills/api/tools"),
    )
    .expect("symlink");
    std::fs::create_dir_all(dir.path().join(".agents/skills")).expect("mkdir");
    std::os::unix::fs::symlink(
        "../../.claude/skills/api",
        dir.path().join(".agents/skills/api"),
    )
    .expect("symlink");
    dir
}

#[cfg(unix)]
#[test]
fn a_skill_kept_in_its_repository_may_link_the_repositorys_files() {
    use super::support::run_in;
    let dir = repository_with_skills();
    let (code, out, err) = run_in(
        dir.path(),
        &[
            "check",
            ".claude/skills/api",
            "--repo",
            ".",
            "-f",
            "json",
            "--select",
            "SG5",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("json");
    let codes: Vec<&str> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["code"].as_str())
        .collect();
    assert!(
        codes.iter().all(|c| *c == "SG504" || *c == "SG507"),
        "{out}"
    );
}

#[cfg(unix)]
#[test]
fn a_pack_skill_linking_the_repository_gets_a_warning_and_linked_skills_are_checked_once() {
    use super::support::run_in;
    let dir = repository_with_skills();
    let (_, out, err) = run_in(
        dir.path(),
        &[
            "check",
            "packs",
            "--repo",
            ".",
            "-f",
            "json",
            "--select",
            "SG501,SG502",
        ],
    );
    let json: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let found: Vec<String> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| format!("{} {} {}", f["code"], f["severity"], f["message"]))
        .collect();
    assert_eq!(
        found,
        [
            "\"SG501\" \"warning\" \"`../../../tests/api.spec.ts` is a file of the repository (`tests/api.spec.ts`), outside the skill folder\"",
            "\"SG502\" \"warning\" \"`scripts/regen-oas.sh` is a file of the repository (`scripts/regen-oas.sh`), outside the skill folder\"",
        ],
        "{out}"
    );
    // The whole repository: the linked `.agents/skills/api` is the same skill, checked once.
    let (code, out, err) = run_in(dir.path(), &["check", ".", "--repo", ".", "-f", "concise"]);
    assert_ne!(code, 2, "{out}{err}");
    let api = out
        .lines()
        .filter(|l| l.contains("skills/api/SKILL.md: verdict "))
        .count();
    assert_eq!(api, 1, "{out}");
}

/// `check` and `audit` given a skill through a linked folder and through its own folder
/// (`.claude/skills` linked to `.agents/skills`, as repositories keep one copy for two
/// clients) report it once, under its own path, with no set finding against itself.
#[cfg(unix)]
#[test]
fn a_skill_named_twice_through_a_linked_folder_is_reported_once() {
    use super::support::{run_in, tree};
    let dir = tree(&[
        (
            ".agents/skills/api/SKILL.md",
            "---\nname: api\ndescription: Changes API routes. Use when a route changes.\n---\nRun the API tests before a change.\nNever edit `openapi.json` by hand.\n",
        ),
        (
            ".agents/skills/docs/SKILL.md",
            "---\nname: docs\ndescription: Writes user guides. Use when a feature ships.\n---\nWrite the guides in plain words.\nNever guess.\n",
        ),
    ]);
    std::fs::create_dir(dir.path().join(".git")).expect(".git");
    std::fs::create_dir(dir.path().join(".claude")).expect("mkdir");
    std::os::unix::fs::symlink("../.agents/skills", dir.path().join(".claude/skills"))
        .expect("symlink");
    let (code, out, err) = run_in(
        dir.path(),
        &[
            "check",
            ".claude/skills",
            ".agents/skills",
            "-f",
            "concise",
            "--fail-on",
            "never",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let verdicts: Vec<&str> = out.lines().filter(|l| l.contains(": verdict ")).collect();
    assert_eq!(verdicts.len(), 2, "{out}");
    assert!(
        verdicts[0].starts_with(".agents/skills/api/SKILL.md"),
        "{out}"
    );
    assert!(
        verdicts[1].starts_with(".agents/skills/docs/SKILL.md"),
        "{out}"
    );
    let (_, out, err) = run_in(
        dir.path(),
        &["audit", ".claude/skills", ".agents/skills", "-f", "json"],
    );
    let json: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let paths: Vec<&str> = json["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .filter_map(|s| s["path"].as_str())
        .collect();
    assert_eq!(
        paths,
        [
            ".agents/skills/api/SKILL.md",
            ".agents/skills/docs/SKILL.md"
        ],
        "{out}"
    );
    assert!(
        !out.contains("SG70"),
        "no set finding of a skill against itself: {out}"
    );
}

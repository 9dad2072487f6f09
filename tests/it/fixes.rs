//! Fixes: every fixable rule's firing example, fixed, checks again with no new finding;
//! `--diff` is a patch `git apply` accepts; `--fix` writes, reports and checks again; JSON
//! and SARIF carry the edits.

use std::path::Path;
use std::process::Command;

use skillgate::config::Config;
use skillgate::lint::example::Example;
use skillgate::lint::{self, RULES, fix};
use skillgate::skill::Skill;

use super::support::{root, run_in};

/// Every finding of every rule on the skill at `root`, as `CODE message`.
fn all_findings(root: &Path, config: &Config) -> Vec<skillgate::finding::Finding> {
    let skill = Skill::load(root).expect("skill loads");
    lint::check(&skill, &config.lint(), None)
}

#[test]
fn every_fix_re_checks_with_no_new_finding() {
    let mut fixable = Vec::new();
    for rule in RULES {
        let example = Example::parse(rule.fires);
        let dir = tempfile::tempdir().expect("temp dir");
        let skill_root = example.write_to(dir.path()).expect("example written");
        let config = example
            .config()
            .map(|t| Config::parse(t, "skillgate.toml".as_ref()).expect("valid config"))
            .unwrap_or_default();
        let before = all_findings(&skill_root, &config);
        let fixes: Vec<_> = before
            .iter()
            .filter(|f| f.code == rule.code)
            .filter_map(|f| f.fix.as_ref())
            .collect();
        if fixes.is_empty() {
            continue;
        }
        fixable.push(rule.code);
        for fx in &fixes {
            let path = &fx.edits[0].location.path;
            let text = std::fs::read_to_string(path).expect("read");
            let edits: Vec<_> = fx
                .edits
                .iter()
                .map(|e| (e.location.span.clone(), e.text.as_str()))
                .collect();
            let (fixed, skipped) = fix::apply(&text, &edits);
            assert!(skipped.is_empty(), "{}: a fix overlaps itself", rule.code);
            std::fs::write(path, fixed).expect("write");
        }
        let after = all_findings(&skill_root, &config);
        assert!(
            after.iter().all(|f| f.code != rule.code),
            "{} still fires after its fix: {after:?}",
            rule.code
        );
        // A rule may word its finding differently once the file changed; a fix must not
        // make any rule fire more often.
        let count = |list: &[skillgate::finding::Finding], code: &str| {
            list.iter().filter(|f| f.code == code).count()
        };
        let new: Vec<_> = after
            .iter()
            .filter(|a| count(&after, a.code) > count(&before, a.code))
            .map(|f| format!("{} {}", f.code, f.message))
            .collect();
        assert!(
            new.is_empty(),
            "{}'s fix brought new findings: {new:?}",
            rule.code
        );
    }
    for code in [
        "SG102", "SG103", "SG104", "SG105", "SG111", "SG115", "SG505", "SG506",
    ] {
        assert!(
            fixable.contains(&code),
            "{code} offers no fix on its example: {fixable:?}"
        );
    }
}

/// A copy of `fixtures/precision/fixable` in a new git repository.
fn fixable_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = root().join("fixtures/precision/fixable");
    let dst = dir.path().join("fixable");
    std::fs::create_dir_all(dst.join("scripts")).expect("mkdir");
    for rel in ["SKILL.md", "scripts/fmt.py"] {
        std::fs::copy(src.join(rel), dst.join(rel)).expect("copy");
    }
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .status()
            .expect("git runs");
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q", "."]);
    dir
}

#[test]
fn diff_is_a_patch_git_applies_and_writes_nothing() {
    let dir = fixable_repo();
    let before = std::fs::read_to_string(dir.path().join("fixable/SKILL.md")).expect("read");
    let (code, diff, err) = run_in(dir.path(), &["check", "fixable", "--diff"]);
    assert_eq!(code, 1, "{err}");
    insta::assert_snapshot!("fixable_diff", diff);
    let after = std::fs::read_to_string(dir.path().join("fixable/SKILL.md")).expect("read");
    assert_eq!(before, after, "--diff wrote the file");
    std::fs::write(dir.path().join("fix.patch"), &diff).expect("write patch");
    let status = Command::new("git")
        .args(["apply", "--check", "fix.patch"])
        .current_dir(dir.path())
        .status()
        .expect("git runs");
    assert!(status.success(), "git apply --check rejected the diff");
}

#[test]
fn fix_writes_reports_and_checks_again() {
    let dir = fixable_repo();
    let (code, out, err) = run_in(dir.path(), &["check", "fixable", "--fix", "-f", "concise"]);
    assert_eq!(code, 0, "{out}{err}");
    insta::assert_snapshot!("fixable_fix_stderr", err);
    assert!(!out.contains(" SG"), "findings remain: {out}");
    let text = std::fs::read_to_string(dir.path().join("fixable/SKILL.md")).expect("read");
    insta::assert_snapshot!("fixable_fixed", text);
    // The unsafe fix waits for --unsafe-fixes.
    let (_, out, _) = run_in(
        dir.path(),
        &["check", "fixable", "-f", "json", "--fail-on", "never"],
    );
    assert!(!out.contains("\"fix\""), "{out}");
}

#[test]
fn unsafe_fixes_need_the_flag() {
    let dir = fixable_repo();
    let manifest = dir.path().join("fixable/SKILL.md");
    let text = std::fs::read_to_string(&manifest).expect("read");
    std::fs::write(&manifest, text.replace("Fixable_Notes", "other-notes")).expect("write");
    let (_, diff, _) = run_in(dir.path(), &["check", "fixable", "--diff"]);
    assert!(!diff.contains("+name: fixable"), "{diff}");
    let (_, diff, _) = run_in(
        dir.path(),
        &["check", "fixable", "--diff", "--unsafe-fixes"],
    );
    assert!(
        diff.contains("-name: other-notes\n+name: fixable\n"),
        "{diff}"
    );
}

#[test]
fn json_and_sarif_carry_the_edits() {
    let dir = fixable_repo();
    let (_, out, _) = run_in(
        dir.path(),
        &["check", "fixable", "-f", "json", "--fail-on", "never"],
    );
    let json: serde_json::Value = serde_json::from_str(&out).expect("json");
    let fence = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["code"] == "SG505")
        .expect("SG505");
    assert_eq!(fence["fix"]["safe"], true);
    assert_eq!(fence["fix"]["edits"][0]["text"], "```\n");
    let (_, out, _) = run_in(
        dir.path(),
        &["check", "fixable", "-f", "sarif", "--fail-on", "never"],
    );
    let sarif: serde_json::Value = serde_json::from_str(&out).expect("sarif");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    let with_fixes: Vec<_> = results
        .iter()
        .filter(|r| r.get("fixes").is_some())
        .collect();
    let codes: Vec<_> = with_fixes
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    assert_eq!(
        codes,
        ["SG103", "SG105", "SG111", "SG506", "SG505"],
        "{codes:?}"
    );
    for r in with_fixes {
        let change = &r["fixes"][0]["artifactChanges"][0];
        assert_eq!(change["artifactLocation"]["uri"], "fixable/SKILL.md");
        assert!(change["replacements"][0]["deletedRegion"]["startLine"].is_u64());
    }
}

//! Fixes: every fixable rule's firing example, fixed, checks again with no new finding;
//! `--diff` is a patch `git apply` accepts; `--fix` writes, reports and checks again; JSON
//! and SARIF carry the edits.

use std::path::Path;
use std::process::Command;

use skillgate::config::Config;
use skillgate::lint::example::Example;
use skillgate::lint::{self, RULES, fix};
use skillgate::skill::Skill;

use super::support::{manifest, root, run_in, tree};

/// Every finding of every rule on the skill at `root`, as `CODE message`.
fn all_findings(root: &Path, config: &Config) -> Vec<skillgate::finding::Finding> {
    let skill = Skill::load(root).expect("skill loads");
    lint::check(&skill, &config.lint(), None)
}

#[test]
fn every_fix_re_checks_with_no_new_finding() {
    let mut fixable = Vec::new();
    for rule in RULES {
        let example = Example::parse(rule.doc.fires);
        let dir = tempfile::tempdir().expect("temp dir");
        let skill_root = example.write_to(dir.path()).expect("example written");
        let config = example
            .config()
            .map(|t| Config::parse(t, "skillgate.toml".as_ref()).expect("valid config"))
            .unwrap_or_default();
        let before = all_findings(&skill_root, &config);
        let fixes: Vec<_> = before
            .iter()
            .filter(|f| f.code == rule.doc.code)
            .filter_map(|f| f.fix.as_ref())
            .collect();
        if fixes.is_empty() {
            continue;
        }
        fixable.push(rule.doc.code);
        for fx in &fixes {
            let path = &fx.edits[0].location.path;
            let text = std::fs::read_to_string(path).expect("read");
            let edits: Vec<_> = fx
                .edits
                .iter()
                .map(|e| (e.location.span.clone(), e.text.as_str()))
                .collect();
            let (fixed, skipped) = fix::apply(&text, &edits);
            assert!(
                skipped.is_empty(),
                "{}: a fix overlaps itself",
                rule.doc.code
            );
            std::fs::write(path, fixed).expect("write");
        }
        let after = all_findings(&skill_root, &config);
        assert!(
            after.iter().all(|f| f.code != rule.doc.code),
            "{} still fires after its fix: {after:?}",
            rule.doc.code
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
            rule.doc.code
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

/// Copy a folder (files and folders only; links are left out) under `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let kind = entry.file_type().expect("file type");
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// Every markdown file below `dir`, by path relative to it, with its text.
fn markdown_files(dir: &Path) -> Vec<(std::path::PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md")
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                out.push((path.strip_prefix(dir).expect("below").to_path_buf(), text));
            }
        }
    }
    out.sort();
    out
}

/// The contents of a document's closed code blocks, in order.
fn closed_code(text: &str) -> Vec<String> {
    let doc = skillgate::skill::Document::parse(text, 0..text.len());
    doc.code_blocks
        .iter()
        .filter(|b| b.closed)
        .map(|b| text[b.content.clone()].to_owned())
        .collect()
}

/// `--fix` on a copy of every skill below `root`: no closed code block changes, the number
/// of findings does not grow, and each file still parses with at least the headings, links
/// and list items it had. Returns how many skills were fixed.
fn fix_never_damages(root: &Path) -> usize {
    let skills = skillgate::skill::discover::skills(root).expect("skills below the root");
    let mut changed = 0;
    for skill in &skills {
        let work = tempfile::tempdir().expect("temp dir");
        let copy = work.path().join(skill.file_name().expect("a folder name"));
        copy_tree(skill, &copy);
        let count = |dir: &Path| {
            let (_, out, _) = run_in(dir, &["check", ".", "-f", "json", "--fail-on", "never"]);
            let json: serde_json::Value = serde_json::from_str(&out).expect("json");
            json["findings"].as_array().map_or(0, Vec::len)
        };
        let before_count = count(&copy);
        let before = markdown_files(&copy);
        let (code, _, err) = run_in(&copy, &["check", ".", "--fix", "--fail-on", "never"]);
        assert_ne!(code, 2, "{}: {err}", skill.display());
        let after = markdown_files(&copy);
        assert_eq!(before.len(), after.len(), "{}", skill.display());
        for ((path, old), (_, new)) in before.iter().zip(&after) {
            if old == new {
                continue;
            }
            changed += 1;
            let place = format!("{}/{}", skill.display(), path.display());
            // Every closed code block keeps its content, in order; a fence the fix closed
            // adds a block.
            let new_code = closed_code(new);
            let mut rest = new_code.iter();
            assert!(
                closed_code(old).iter().all(|code| rest.any(|c| c == code)),
                "{place}: a code block changed:\n{old}\n---\n{new}"
            );
            let (a, b) = (
                skillgate::skill::Document::parse(old, 0..old.len()),
                skillgate::skill::Document::parse(new, 0..new.len()),
            );
            assert!(
                b.sections.len() >= a.sections.len(),
                "{place}: a heading was lost"
            );
            assert!(b.links.len() >= a.links.len(), "{place}: a link was lost");
            assert!(
                b.list_items.len() >= a.list_items.len(),
                "{place}: a list item was lost"
            );
        }
        let after_count = count(&copy);
        assert!(
            after_count <= before_count,
            "{}: {before_count} findings before --fix, {after_count} after",
            skill.display()
        );
    }
    changed
}

/// The property over the repository's own fixtures (and the blockquote and Windows shapes
/// below). The same check runs over any folder of skills with
/// `SKILLGATE_FIX_CORPUS=/path/to/skills cargo test --test it fix_never_damages` (the test
/// says on stderr which folder it read).
#[test]
fn fix_never_damages_a_skill() {
    let shapes = tree(&[
        (
            "quoted/SKILL.md",
            &manifest(
                "quoted",
                "> Example:\n>\n> ```sh\n> make notes\n> ```\n\nRun `scripts\\notes.py` first.\n\n> ```sh\n> open fence in a quote\n\n## Next\n\nNever guess.\n",
            ),
        ),
        ("quoted/scripts/notes.py", "print('ok')\n"),
        (
            "windows/SKILL.md",
            &manifest(
                "windows",
                "On Windows, settings live in `C:\\Users\\name\\AppData\\notes.ini`.\n\n```powershell\nCopy-Item scripts\\notes.ps1 C:\\Tools\\\n```\n\nNever guess.\n",
            ),
        ),
    ]);
    let fixed = fix_never_damages(shapes.path());
    assert!(fixed >= 1, "the backslash path in `quoted` is fixed");
    let (code, _, err) = run_in(
        shapes.path(),
        &["check", "quoted", "windows", "--fix", "--fail-on", "never"],
    );
    assert_eq!(code, 0, "{err}");
    let quoted = std::fs::read_to_string(shapes.path().join("quoted/SKILL.md")).expect("read");
    assert!(quoted.contains("`scripts/notes.py`"), "{quoted}");
    assert!(
        quoted.contains("> ```sh\n> make notes\n> ```\n"),
        "{quoted}"
    );
    let windows = std::fs::read_to_string(shapes.path().join("windows/SKILL.md")).expect("read");
    assert!(
        windows.contains("C:\\Users\\name\\AppData\\notes.ini"),
        "{windows}"
    );
    assert!(
        windows.contains("Copy-Item scripts\\notes.ps1"),
        "{windows}"
    );

    let fixtures = root().join("fixtures");
    fix_never_damages(&fixtures.join("precision"));
    fix_never_damages(&fixtures.join("skills"));
    if let Some(corpus) = std::env::var_os("SKILLGATE_FIX_CORPUS").map(std::path::PathBuf::from) {
        eprintln!("fix_never_damages_a_skill: also over {}", corpus.display());
        let fixed = fix_never_damages(&corpus);
        eprintln!("fix_never_damages_a_skill: --fix changed {fixed} skills there");
    }
}

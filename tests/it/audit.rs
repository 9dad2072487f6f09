//! `skillgate audit` and `skillgate merge`: finding skills below folders, the counts over a
//! generated set of thousands, every format, set-level findings, and shards merged back byte
//! for byte.

use std::path::Path;

use super::packs::generate;
use super::support::{manifest, run_in, tree};

/// The body shared by the two copies in the small set.
const NOTES_BODY: &str = "# Release notes\n\nCollect the merged pull requests since the last tag, group them by label, and write one line per change in the imperative mood. Link each line to its pull request. Never invent a change that has no pull request behind it, and keep breaking changes at the top under their own heading.\n";

/// A small pack: two copies of one skill in hidden folders, an unreadable skill, another
/// skill with code, and a vendored skill that must be skipped.
fn small_pack() -> tempfile::TempDir {
    let notes = manifest("release-notes", NOTES_BODY);
    let client = "---\nname: api-client\ndescription: Calls the billing API with retries and timeouts. Use when code talks to the billing service.\n---\n# API client\n\nUse the shared session, never a bare request. Check the limits with `python scripts/limits.py` first.\n\n```python\nimport requests\n\ndef get(session, url):\n    return session.get(url, timeout=10)\n```\n";
    tree(&[
        ("skillgate.toml", "[audit]\nlisting-tokens = 40\n"),
        ("pack/.claude/skills/release-notes/SKILL.md", &notes),
        ("pack/.agents/skills/release-notes/SKILL.md", &notes),
        ("pack/skills/broken/SKILL.md", "# No frontmatter here\n"),
        ("pack/skills/api-client/SKILL.md", client),
        ("pack/node_modules/dep/vendored/SKILL.md", &notes),
    ])
}

fn audit_small(format: &str) -> (i32, String) {
    let dir = small_pack();
    let (code, out, stderr) = run_in(dir.path(), &["audit", "pack", "--format", format]);
    assert!(!stderr.contains("panicked"), "{stderr}");
    (code, out)
}

#[test]
fn table() {
    let (code, out) = audit_small("table");
    assert_eq!(code, 1, "an unreadable skill fails the audit: {out}");
    insta::assert_snapshot!(out);
}

#[test]
fn json() {
    insta::assert_snapshot!(audit_small("json").1);
}

#[test]
fn jsonl() {
    insta::assert_snapshot!(audit_small("jsonl").1);
}

#[test]
fn csv() {
    insta::assert_snapshot!(audit_small("csv").1);
}

#[test]
fn markdown() {
    insta::assert_snapshot!(audit_small("markdown").1);
}

#[test]
fn html() {
    let out = audit_small("html").1;
    assert!(out.starts_with("<!DOCTYPE html>") && out.trim_end().ends_with("</html>"));
    for fetch in ["src=", "<link", "@import", "url("] {
        assert!(
            !out.contains(fetch),
            "self-contained: nothing is fetched ({fetch})"
        );
    }
    insta::assert_snapshot!(out);
}

#[test]
fn sarif() {
    let out = audit_small("sarif").1;
    super::formats::assert_valid_sarif(&out);
    let log: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let run = &log["runs"][0];
    let notes = run["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .expect("notifications");
    assert_eq!(notes.len(), 1, "the unreadable skill: {notes:?}");
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    for result in run["results"].as_array().expect("results") {
        let index = result["ruleIndex"]
            .as_u64()
            .expect("every result names its rule") as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
    }
    // Every rule is listed; the snapshot keeps what this audit adds.
    let mut log = log;
    log["runs"][0]["tool"]["driver"]["rules"] = serde_json::json!("(every rule)");
    insta::assert_json_snapshot!(log);
}

#[test]
fn jsonl_findings_are_those_of_check_json() {
    let dir = small_pack();
    let (_, lines, _) = run_in(dir.path(), &["audit", "pack", "--format", "jsonl"]);
    let row: serde_json::Value = lines
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON line"))
        .find(|r| r["name"] == "api-client")
        .expect("api-client row");
    let (_, checked, _) = run_in(
        dir.path(),
        &["check", "pack/skills/api-client", "--format", "json"],
    );
    let checked: serde_json::Value = serde_json::from_str(&checked).expect("JSON");
    let own: Vec<&serde_json::Value> = row["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| !f["code"].as_str().is_some_and(|c| c.starts_with("SG7")))
        .collect();
    let checked_findings: Vec<&serde_json::Value> = checked["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .collect();
    assert!(!own.is_empty());
    assert_eq!(own, checked_findings);
    assert_eq!(row["path"], checked["skill"]["path"]);
    assert_eq!(row["tokens"], checked["skill"]["tokens"]);
}

#[test]
fn set_level_findings_name_the_first_copy() {
    let dir = small_pack();
    let (_, out, _) = run_in(dir.path(), &["audit", "pack", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let codes_of = |path: &str| -> Vec<String> {
        row_set_codes(
            doc["skills"]
                .as_array()
                .expect("rows")
                .iter()
                .find(|r| r["path"] == path)
                .expect("row"),
        )
    };
    // Path order: `.agents` before `.claude`, so the `.claude` copy is the later one.
    assert_eq!(
        codes_of("pack/.claude/skills/release-notes/SKILL.md"),
        ["SG701", "SG702", "SG703"]
    );
    assert!(codes_of("pack/.agents/skills/release-notes/SKILL.md").is_empty());
    // The listing budget is 40 tokens: the longest description carries the set's finding.
    assert_eq!(codes_of("pack/skills/api-client/SKILL.md"), ["SG704"]);
    assert_eq!(doc["summary"]["skills"], 4, "node_modules is skipped");
    assert_eq!(doc["summary"]["unreadable"], 1);
}

/// The set-level (SG7xx) codes of one row of an audit's JSON output.
fn row_set_codes(row: &serde_json::Value) -> Vec<String> {
    row["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["code"].as_str().filter(|c| c.starts_with("SG7")))
        .map(str::to_owned)
        .collect()
}

/// The set-level codes of every row of an audit's JSON output, row by row.
fn set_codes(out: &str) -> Vec<Vec<String>> {
    let doc: serde_json::Value = serde_json::from_str(out).expect("JSON");
    doc["skills"]
        .as_array()
        .expect("rows")
        .iter()
        .map(row_set_codes)
        .collect()
}

#[test]
fn set_level_rules_follow_select_and_ignore() {
    let dir = small_pack();
    let codes = |extra: &[&str]| {
        let mut args = vec!["audit", "pack", "--format", "json"];
        args.extend_from_slice(extra);
        let (code, out, stderr) = run_in(dir.path(), &args);
        assert!(code < 2, "{stderr}");
        let all: Vec<String> = set_codes(&out).into_iter().flatten().collect();
        let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        (all, doc["summary"].clone())
    };
    let (all, summary) = codes(&[]);
    assert_eq!(all, ["SG701", "SG702", "SG703", "SG704"]);
    assert!(summary.get("disabled_set_rules").is_none());

    let (ignored, summary) = codes(&["--ignore", "SG701,SG704"]);
    assert_eq!(ignored, ["SG702", "SG703"]);
    assert_eq!(
        summary["disabled_set_rules"],
        serde_json::json!(["SG701", "SG704"])
    );
    assert_eq!(summary["duplicate_names"], 0);
    assert_eq!(summary["duplicate_descriptions"], 1);

    let (selected, _) = codes(&["--select", "SG703"]);
    assert_eq!(selected, ["SG703"]);
    let (per_skill_only, _) = codes(&["--select", "SG1,SG2,SG3,SG4,SG5,SG6"]);
    assert!(per_skill_only.is_empty(), "{per_skill_only:?}");

    std::fs::write(
        dir.path().join("skillgate.toml"),
        "ignore = [\"SG701\", \"SG702\", \"SG703\"]\n\n[audit]\nlisting-tokens = 40\n",
    )
    .expect("write");
    let (from_config, _) = codes(&[]);
    assert_eq!(from_config, ["SG704"]);

    let (code, _, stderr) = run_in(dir.path(), &["audit", "pack", "--ignore", "SG79"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("\"SG79\" matches no rule"), "{stderr}");
}

#[test]
fn shards_merge_with_the_set_level_rules_their_selection_ran() {
    let dir = tempfile::tempdir().expect("temp dir");
    generate(&dir.path().join("set"), 200, 60);
    let (_, whole, _) = summary(dir.path(), &["--ignore", "SG702"]);
    let mut files = Vec::new();
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let (_, out, _) = summary(dir.path(), &["--shard", &shard, "--ignore", "SG702"]);
        let file = format!("shard-{k}.jsonl");
        std::fs::write(dir.path().join(&file), out).expect("write");
        files.push(file);
    }
    let (_, merged, stderr) = run_in(
        dir.path(),
        &["merge", &files[0], &files[1], "--format", "jsonl"],
    );
    assert_eq!(merged, whole, "{stderr}");
    assert!(!merged.contains("\"code\":\"SG702\""));
    assert!(merged.contains("\"code\":\"SG701\""));

    let (_, other, _) = summary(dir.path(), &["--shard", "2/2"]);
    std::fs::write(dir.path().join("other.jsonl"), other).expect("write");
    let (code, _, stderr) = run_in(dir.path(), &["merge", &files[0], "other.jsonl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("rule selection"), "{stderr}");
}

#[test]
fn exit_status_follows_fail_on() {
    let dir = tree(&[
        (
            "s/a/SKILL.md",
            &manifest(
                "a",
                "As of 2024 the latest version is fine.\nNever guess.\n",
            ),
        ),
        (
            "s/b/SKILL.md",
            &manifest("b", "Never guess the version; read the lockfile.\n"),
        ),
    ]);
    let status = |level: &str| run_in(dir.path(), &["audit", "s", "--fail-on", level]).0;
    assert_eq!(status("error"), 0);
    assert_eq!(status("warning"), 1);
    assert_eq!(status("never"), 0);
}

#[test]
fn a_folder_without_skills_is_a_usage_error() {
    let dir = tree(&[
        ("empty/readme.txt", "hi"),
        ("empty/node_modules/x/SKILL.md", &manifest("x", "Body.\n")),
    ]);
    for command in ["audit", "check"] {
        let (code, out, stderr) = run_in(dir.path(), &[command, "empty"]);
        assert_eq!(code, 2, "{command}: {stderr}");
        assert!(out.is_empty());
        assert_eq!(
            stderr,
            "skillgate::skill::no-skill\n\n  x empty: no SKILL.md in this folder or in any folder below it\n"
        );
    }
    let (code, _, stderr) = run_in(dir.path(), &["audit", "empty", "--shard", "3/2"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("is not a shard"), "{stderr}");
}

#[test]
fn check_finds_skills_below_a_pack_folder() {
    let dir = tree(&[
        (
            "pack/.claude/skills/a/SKILL.md",
            &manifest("a", "Never guess.\n"),
        ),
        (
            "pack/.agents/skills/b/SKILL.md",
            &manifest("b", "Never guess.\n"),
        ),
        (
            "pack/node_modules/c/SKILL.md",
            &manifest("c", "Never guess.\n"),
        ),
        ("pack/ignored/d/SKILL.md", &manifest("d", "Never guess.\n")),
        ("pack/.gitignore", "ignored/\n"),
    ]);
    let (code, out, stderr) = run_in(dir.path(), &["check", "pack", "--format", "concise"]);
    assert_eq!(code, 0, "{stderr}");
    let verdicts: Vec<&str> = out.lines().filter(|l| l.contains(": verdict ")).collect();
    assert_eq!(verdicts.len(), 2, "{out}");
    assert!(
        verdicts[0].starts_with("pack/.agents/skills/b/SKILL.md"),
        "{out}"
    );
    assert!(
        verdicts[1].starts_with("pack/.claude/skills/a/SKILL.md"),
        "{out}"
    );
}

/// Run `audit` over a generated set and return the parsed summary line of its JSON lines.
fn summary(dir: &Path, extra: &[&str]) -> (i32, String, serde_json::Value) {
    let mut args = vec!["audit", "set", "--format", "jsonl"];
    args.extend_from_slice(extra);
    let (code, out, stderr) = run_in(dir, &args);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let last = out.lines().last().expect("a summary line");
    let summary: serde_json::Value = serde_json::from_str(last).expect("JSON");
    (code, out, summary["summary"].clone())
}

#[test]
fn two_thousand_generated_skills_give_the_right_counts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let made = generate(&dir.path().join("set"), 2_000, 60);
    assert_eq!((made.skills, made.unreadable, made.copies), (2_020, 20, 20));
    let (code, out, s) = summary(dir.path(), &["--fail-on", "never"]);
    assert_eq!(code, 0);
    assert_eq!(
        out.lines().count(),
        made.skills + 1,
        "one line per skill, then the summary"
    );
    assert_eq!(s["skills"], made.skills);
    assert_eq!(s["unreadable"], made.unreadable);
    assert_eq!(s["duplicate_names"], made.copies);
    assert_eq!(s["duplicate_descriptions"], made.copies);
    assert_eq!(s["near_duplicates"], made.copies);
    assert_eq!(s["skip"], made.skills - made.unreadable);
    assert_eq!(s["inject"], 0);
    assert_eq!(s["security"], 0);
    let hidden = out
        .lines()
        .filter(|l| l.starts_with("{\"path\":\"set/.claude/skills/"))
        .count();
    assert_eq!(hidden, 200, "hidden folders are searched");
    assert!(!out.contains("node_modules"), "node_modules is skipped");
    let crowded = out.matches("\"code\":\"SG704\"").count();
    assert_eq!(crowded, 1, "one listing finding for the set");
}

#[test]
fn shards_merged_equal_the_unsharded_run_byte_for_byte() {
    let dir = tempfile::tempdir().expect("temp dir");
    generate(&dir.path().join("set"), 300, 60);
    let (_, whole, _) = summary(dir.path(), &[]);
    let mut files = Vec::new();
    let mut rows = 0;
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let (_, out, s) = summary(dir.path(), &["--shard", &shard]);
        assert_eq!(s["shard"], shard);
        rows += out.lines().count() - 1;
        let file = format!("shard-{k}.jsonl");
        std::fs::write(dir.path().join(&file), out).expect("write");
        files.push(file);
    }
    assert_eq!(
        rows,
        whole.lines().count() - 1,
        "each skill in exactly one shard"
    );
    for format in ["jsonl", "json", "table", "csv", "markdown", "html", "sarif"] {
        let mut args = vec!["merge"];
        args.extend(files.iter().map(String::as_str));
        args.extend(["--format", format]);
        let (_, merged, stderr) = run_in(dir.path(), &args);
        let (_, single, _) = run_in(dir.path(), &["audit", "set", "--format", format]);
        assert!(merged == single, "{format} differs after merge: {stderr}");
    }
    // A merged JSON document merges again to the same thing.
    let (_, json, _) = run_in(dir.path(), &["audit", "set", "--format", "json"]);
    std::fs::write(dir.path().join("whole.json"), &json).expect("write");
    let (_, again, _) = run_in(dir.path(), &["merge", "whole.json", "--format", "jsonl"]);
    assert!(again == whole);
    // An incomplete split is refused.
    let (code, _, stderr) = run_in(dir.path(), &["merge", &files[0], &files[2]]);
    assert_eq!(code, 2);
    assert!(stderr.contains("shard 2/3 missing"), "{stderr}");
}

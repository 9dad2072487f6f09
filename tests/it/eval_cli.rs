//! `skillgate eval --sequential` and `skillgate report` end to end, on the local backend with
//! the command fixture agent (which follows the skill when it finds one).

use std::path::Path;

use serde_json::Value;

use super::support::{root, run};

fn eval_args<'a>(out: &'a str, extra: &[&'a str]) -> Vec<String> {
    let agent = root().join("fixtures/agents/command-agent.sh");
    let mut args: Vec<String> = [
        "eval",
        "fixtures/skills/inventory-conventions/SKILL.md",
        "--repo",
        "fixtures/repos/inventory",
        "--worktree",
        "--tasks",
        "tasks",
        "--agent",
        "command",
        "--backend",
        "local",
        "--conditions",
        "C0,C1,C2",
        "--no-cache",
        "--quiet",
        "--out",
        out,
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    args.push("--agent-cmd".into());
    args.push(agent.display().to_string());
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args
}

fn cells(run_dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(run_dir.join("cells.jsonl"))
        .expect("journal")
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

#[test]
fn sequential_stops_once_the_verdict_is_settled() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("run");
    let out_str = out.display().to_string();
    let args = eval_args(&out_str, &["--sequential", "--max-seeds", "4"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("Decision: inject (basis: eval)"),
        "{stdout}"
    );
    // Every task passes with the skill and fails without it, so the first round settles it:
    // 3 tasks x 3 conditions x 1 seed, not 4 seeds.
    let journal = cells(&out);
    assert_eq!(journal.len(), 9, "{stderr}");
    assert!(journal.iter().all(|c| c["seed"] == 0));
    assert!(stderr.contains("seed round 1: InjectSettled"), "{stderr}");
}

#[test]
fn report_renders_from_the_run_directory_alone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("run");
    let out_str = out.display().to_string();
    let args = eval_args(&out_str, &["--seeds", "1"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, eval_stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");

    let (code, json, stderr) = run(&["report", &out_str, "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let doc: Value = serde_json::from_str(&json).expect("JSON");
    let keys: Vec<&str> = doc
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        ["schema", "skill", "project", "findings", "verdict"],
        "same shape as check --format json --repo"
    );
    assert_eq!(doc["verdict"]["basis"], "eval");
    assert_eq!(doc["verdict"]["eval"]["tasks"], 3);

    let (_, human, _) = run(&["report", &out_str]);
    assert_eq!(human, eval_stdout, "re-rendering gives what eval printed");
    let (_, again, _) = run(&["report", &out_str]);
    assert_eq!(human, again, "deterministic");

    let (code, html, _) = run(&["report", &out_str, "--format", "html"]);
    assert_eq!(code, 0);
    assert!(
        html.starts_with("<!DOCTYPE html>") && html.contains("<svg"),
        "{html}"
    );
    assert!(!html.contains("<script"), "no scripts");
    assert!(
        !html.contains("src=\"http") && !html.contains("href=\"http") && !html.contains("url(http"),
        "no network"
    );

    let (code, _, stderr) = run(&["report", "no/such/run"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: ") && stderr.lines().count() == 1,
        "{stderr}"
    );
}

#[test]
fn aa_on_the_fixture_agent_shows_the_noise_floor_in_every_format() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("run");
    let out_str = out.display().to_string();
    let args = eval_args(&out_str, &["--seeds", "2", "--aa"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, human, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    let journal = cells(&out);
    let c0b = journal.iter().filter(|c| c["condition"] == "C0b").count();
    assert_eq!(c0b, 6, "3 tasks × 2 seeds of C0b");
    // The fixture fails every task without the skill, in C0 and C0b alike.
    let reason = "A/A: two runs without the skill differ by 0.0 pts [0.0, 0.0]; the outcome \
                  flips on 0 of 3 tasks (0%)";
    assert!(human.contains(reason), "{human}");
    assert!(human.contains("A/A         C0b − C0"), "{human}");

    let (code, json, stderr) = run(&["report", &out_str, "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let doc: Value = serde_json::from_str(&json).expect("JSON");
    let aa = &doc["verdict"]["eval"]["aa"];
    assert_eq!(aa["flips"], 0);
    assert_eq!(aa["flip_share"], 0.0);
    assert_eq!(aa["difference"]["lo"], 0.0);
    assert_eq!(aa["difference"]["hi"], 0.0);
    assert_eq!(aa["difference"]["tasks"], 3);
    assert_eq!(doc["verdict"]["eval"]["conditions"]["C0b"]["cells"], 6);

    for format in ["markdown", "html"] {
        let (code, text, stderr) = run(&["report", &out_str, "--format", format]);
        assert_eq!(code, 0, "{stderr}");
        assert!(
            text.contains("flips on 0 of 3 tasks (0%)"),
            "{format}: {text}"
        );
        assert!(text.contains("C0b − C0"), "{format}: {text}");
    }
}

#[test]
fn inject_on_retry_gives_the_skill_with_the_feedback_only() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("run");
    let out_str = out.display().to_string();
    let mut args = eval_args(
        &out_str,
        &[
            "--seeds",
            "1",
            "--attempts",
            "2",
            "--placement",
            "inject-on-retry",
        ],
    );
    // The learner fixture acts only from attempt 2, on what its instruction holds.
    let cmd = args
        .iter()
        .position(|a| a == "--agent-cmd")
        .expect("agent cmd")
        + 1;
    args[cmd].push_str(" learner");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, human, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    for cell in cells(&out) {
        let attempts = cell["attempts"].as_array().expect("attempts");
        assert_eq!(attempts.len(), 2, "{cell}");
        assert_eq!(attempts[0]["outcome"], "fail", "{cell}");
        assert_eq!(
            attempts[0]["skill_read"],
            Value::Null,
            "no skill at attempt 1"
        );
        let (outcome, read) = match cell["condition"].as_str() {
            Some("C0") => ("fail", Value::Null),
            Some("C1") => ("pass", Value::Bool(true)),
            // The length control's body carries no procedure to follow.
            _ => ("fail", Value::Bool(true)),
        };
        assert_eq!(attempts[1]["outcome"], outcome, "{cell}");
        assert_eq!(attempts[1]["skill_read"], read, "{cell}");
    }
    assert!(
        human.contains("route on-retry: the gain appears only after feedback"),
        "{human}"
    );
    let (_, json, _) = run(&["report", &out_str, "--format", "json"]);
    let doc: Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(doc["verdict"]["route"], "on-retry");
}

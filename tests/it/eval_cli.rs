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
    // Three tasks are enough under a policy that asks for three.
    let config = dir.path().join("skillgate.toml");
    std::fs::write(&config, "[verdict]\nmin-tasks = 3\n").expect("config");
    let config_str = config.display().to_string();
    let args = eval_args(
        &out_str,
        &["--sequential", "--max-seeds", "4", "--config", &config_str],
    );
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
fn sequential_with_fewer_tasks_than_min_tasks_settles_skip_at_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("run");
    let out_str = out.display().to_string();
    let args = eval_args(&out_str, &["--sequential", "--max-seeds", "4"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    // The skill wins every pair, but three tasks are fewer than the default ten: more seed
    // rounds cannot add tasks, so the first round settles skip, and says why first.
    assert!(stdout.contains("Decision: skip (basis: eval)"), "{stdout}");
    assert!(
        stdout.contains("  - evidence inconclusive: Δ rests on 3 tasks, fewer than the 10"),
        "{stdout}"
    );
    assert!(stdout.contains("no MDE: Δ rests on 3 tasks"), "{stdout}");
    assert_eq!(cells(&out).len(), 9, "{stderr}");
    assert!(stderr.contains("seed round 1: SkipSettled"), "{stderr}");
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
        stderr.lines().filter(|l| l.starts_with("  x ")).count() == 1
            && stderr.contains("no/such/run"),
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

/// Runs `skillgate eval` with `extra` arguments into `out`, caching cells in `config`'s
/// cache; returns stdout.
fn eval_into(out: &Path, config: &Path, extra: &[&str]) -> String {
    let out_str = out.display().to_string();
    let mut args = eval_args(&out_str, &["--seeds", "2"]);
    args.retain(|a| a != "--no-cache");
    args.extend(["--config".to_owned(), config.display().to_string()]);
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    stdout
}

/// The cells of a journal as (task, condition, seed, outcome, tokens), sorted.
fn measured(run_dir: &Path) -> Vec<(String, String, u64, String, u64)> {
    let mut cells: Vec<_> = cells(run_dir)
        .iter()
        .map(|c| {
            (
                c["task"].as_str().unwrap_or_default().to_owned(),
                c["condition"].as_str().unwrap_or_default().to_owned(),
                c["seed"].as_u64().unwrap_or_default(),
                c["outcome"].as_str().unwrap_or_default().to_owned(),
                c["input_tokens"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    cells.sort();
    cells
}

#[test]
fn shards_merged_report_what_one_machine_reports() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("skillgate.toml");
    let cache = dir.path().join("cache");
    std::fs::write(
        &config,
        format!(
            "[eval]\ncache-dir = {:?}\n\n[verdict]\nmin-tasks = 3\n",
            cache.display().to_string()
        ),
    )
    .expect("config");
    let whole = dir.path().join("whole");
    eval_into(&whole, &config, &[]);

    // Three machines of a matrix, each with one share; with the cache the first run filled,
    // every shard holds exactly the cells the whole run measured.
    let shards: Vec<_> = (1..=3)
        .map(|k| {
            let out = dir.path().join(format!("shard-{k}"));
            let printed = eval_into(&out, &config, &["--shard", &format!("{k}/3")]);
            assert!(printed.starts_with(&format!("shard {k}/3: ")), "{printed}");
            assert!(
                !printed.contains("Decision"),
                "a shard decides nothing: {printed}"
            );
            out
        })
        .collect();
    let sizes: Vec<usize> = shards.iter().map(|s| cells(s).len()).collect();
    assert_eq!(
        sizes.iter().sum::<usize>(),
        cells(&whole).len(),
        "{sizes:?}"
    );
    assert!(sizes.iter().all(|&n| n > 0), "{sizes:?}");

    let merged = dir.path().join("merged");
    let mut args: Vec<String> = vec!["merge".into()];
    // Given in any order.
    for shard in shards.iter().rev() {
        args.push(shard.display().to_string());
    }
    args.extend(["--out".into(), merged.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, printed, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(printed.contains("Decision: inject"), "{printed}");

    for format in ["human", "json", "markdown", "html"] {
        let report = |run_dir: &Path| {
            let dir = run_dir.display().to_string();
            let (code, out, stderr) = run(&["report", &dir, "--format", format]);
            assert_eq!(code, 0, "{stderr}");
            out
        };
        assert_eq!(report(&merged), report(&whole), "{format}");
    }
    assert_eq!(measured(&merged), measured(&whole));

    // Without the cache, the shards measure every cell again, and the same cells.
    std::fs::remove_dir_all(&cache).expect("clear the cache");
    let fresh: Vec<_> = (1..=2)
        .map(|k| {
            let out = dir.path().join(format!("fresh-{k}"));
            eval_into(&out, &config, &["--shard", &format!("{k}/2")]);
            out
        })
        .collect();
    let joined = dir.path().join("joined");
    let (code, _, stderr) = run(&[
        "merge",
        &fresh[0].display().to_string(),
        &fresh[1].display().to_string(),
        "--out",
        &joined.display().to_string(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(measured(&joined), measured(&whole));
}

#[test]
fn merge_refuses_an_incomplete_or_mixed_split() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("skillgate.toml");
    std::fs::write(&config, "[eval]\n").expect("config");
    let one = dir.path().join("one");
    eval_into(&one, &config, &["--shard", "1/2", "--no-cache"]);
    let whole = dir.path().join("whole");
    eval_into(&whole, &config, &["--no-cache"]);
    let out = dir.path().join("merged").display().to_string();
    let one = one.display().to_string();

    let (code, _, stderr) = run(&["merge", &one, "--out", &out]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("shards 2 of 2 are missing"), "{stderr}");

    let whole = whole.display().to_string();
    let (code, _, stderr) = run(&["merge", &one, &whole, "--out", &out]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("not a shard"), "{stderr}");

    let (code, _, stderr) = run(&["merge", &one]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("needs --out DIR"), "{stderr}");

    let args = eval_args(&out, &["--shard", "1/2", "--sequential"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, _, stderr) = run(&args);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot run as one shard"), "{stderr}");
}

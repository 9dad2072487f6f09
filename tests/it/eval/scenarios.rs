//! Scenarios run on both backends. Each returns the run directory for backend-specific checks.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use skillgate::eval::Backend;
use skillgate::eval::agent::AgentKind;
use skillgate::eval::journal::{CellRecord, Outcome};
use skillgate::eval::{Condition, Placement, evaluate};

use super::support::*;

/// C1 workspaces hold the skill where the agent looks, C0 ones do not; the fixture agent
/// solves every task only when it finds the skill; tests stay invisible; C2 is matched.
pub fn conditions_and_discovery(backend: Backend, out: &Path) {
    let mut o = options(backend, out, "");
    o.conditions = Condition::ALL.to_vec();
    let summary = evaluate(&o, fixture_skill()).unwrap();
    assert_eq!(summary.planned, 15);
    let cells = cells(out);
    assert_eq!(cells.len(), 15);
    let by = by_condition(&cells);
    for (condition, expected) in [
        (Condition::C0, Outcome::Fail),
        (Condition::C1, Outcome::Pass),
        (Condition::C2, Outcome::Fail),
        (Condition::C3a, Outcome::Fail),
        (Condition::C3b, Outcome::Fail),
    ] {
        let outcomes: Vec<_> = by[&condition].iter().map(|c| c.outcome).collect();
        assert_eq!(outcomes, vec![expected; 3], "{condition}");
        // The command fixture says it read the skill in its usage file whenever it had one.
        let read = (condition != Condition::C0).then_some(true);
        for cell in &by[&condition] {
            assert_eq!(cell.attempts[0].skill_read, read, "{condition}");
        }
    }
    let c0_tokens: u64 = by[&Condition::C0].iter().map(|c| c.input_tokens).sum();
    let c1_tokens: u64 = by[&Condition::C1].iter().map(|c| c.input_tokens).sum();
    assert!(
        c1_tokens > c0_tokens,
        "the skill adds input: {c1_tokens} vs {c0_tokens}"
    );
    let logs = agent_logs(out);
    assert_eq!(logs.len(), 15);
    for (path, log) in &logs {
        let path = path.to_string_lossy();
        assert!(log.contains("tests-visible: no"), "{path}: {log}");
        if path.contains("/C0-") {
            assert!(log.contains("skill: none"), "{path}: {log}");
        } else {
            assert!(
                log.contains("/.skills/inventory-conventions"),
                "{path}: {log}"
            );
        }
    }
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
    let skill_tokens = run["skill_body"]["tokens"].as_f64().unwrap();
    let control_tokens = run["control_body"]["tokens"].as_f64().unwrap();
    assert!(
        (control_tokens - skill_tokens).abs() / skill_tokens <= 0.02,
        "{run}"
    );
    let share = |k: &str| run[k]["code_share"].as_f64().unwrap();
    assert!(
        (share("control_body") - share("skill_body")).abs() <= 0.05,
        "{run}"
    );
    assert!(run["finished_at"].is_string() && run["started_at"].is_string());
}

/// Runs C0 and C1 of one task with a fixture standing in for a known agent: it solves the
/// task only with the skill, and reports more input with it. Returns the cells, for the
/// checks of each agent's own output format.
fn known_agent(backend: Backend, out: &Path, agent: AgentKind, program: &str) -> Vec<CellRecord> {
    let mut o = options(backend, out, "");
    o.agent = agent;
    o.agent_cmd = Some(fixture(program).to_string_lossy().into_owned());
    o.tasks = root().join("tasks/low-stock-report");
    evaluate(&o, fixture_skill()).unwrap();
    let cells = cells(out);
    let by = by_condition(&cells);
    assert_eq!(by[&Condition::C0][0].outcome, Outcome::Fail);
    assert_eq!(by[&Condition::C1][0].outcome, Outcome::Pass);
    assert!(by[&Condition::C1][0].input_tokens > by[&Condition::C0][0].input_tokens);
    // Read from the agent's own transcript: the skill was opened with it, and C0 had none.
    assert_eq!(by[&Condition::C1][0].attempts[0].skill_read, Some(true));
    assert_eq!(by[&Condition::C0][0].attempts[0].skill_read, None);
    cells
}

/// The claude-code fixture speaks stream-json; the totals and the cost come from the result
/// event's `modelUsage` (summed over both models, kept per model), not from the snapshots.
pub fn claude_code_stream(backend: Backend, out: &Path) {
    for cell in known_agent(backend, out, AgentKind::ClaudeCode, "agents/claude-code.sh") {
        let a = &cell.attempts[0];
        assert_eq!(
            a.output_tokens, 22,
            "15 (main model) + 7 (background model)"
        );
        assert_eq!((a.cache_read_tokens, a.cache_write_tokens), (100, 10));
        assert_eq!(a.cost_usd, Some(0.0042));
        assert_eq!(a.models.len(), 2, "{:?}", a.models);
        assert_eq!(a.models["claude-haiku-4-5-20251001"].input_tokens, 50);
    }
}

/// The codex fixture speaks `codex exec --json`: turns are summed and the cached input
/// Codex counts inside `input_tokens` is moved to cache reads. It finds the skill where
/// Codex looks.
pub fn codex_json(backend: Backend, out: &Path) {
    for cell in known_agent(backend, out, AgentKind::Codex, "agents/codex.sh") {
        let a = &cell.attempts[0];
        assert_eq!(a.output_tokens, 25, "two turns: 20 + 5");
        assert_eq!((a.cache_read_tokens, a.cache_write_tokens), (1300, 0));
        assert_eq!(a.cost_usd, None, "codex reports no cost");
    }
    for (path, log) in agent_logs(out) {
        let expected = if path.to_string_lossy().contains("/C0-") {
            "skill: none"
        } else {
            "skill: .agents/skills/inventory-conventions/SKILL.md"
        };
        assert!(log.contains(expected), "{}: {log}", path.display());
    }
}

/// An agent that exits 0 but says it failed (claude-code's `is_error: true`, codex's
/// `turn.failed`) ends its attempt in `error`, with the agent's own reason and its tokens.
pub fn agent_reported_failure(backend: Backend, out: &Path, scratch: &Path) {
    for (agent, transcript, reason, output_tokens) in [
        (
            AgentKind::ClaudeCode,
            "claude-code/error-max-turns.jsonl",
            "claude-code reported error_max_turns",
            311,
        ),
        (
            AgentKind::Codex,
            "codex/turn-failed.jsonl",
            "codex reported turn.failed: stream disconnected",
            0,
        ),
    ] {
        let text = std::fs::read_to_string(fixture(&format!("transcripts/{transcript}"))).unwrap();
        let program = script(
            scratch,
            &format!("{agent}-failing.sh"),
            &format!("cat <<'EOF'\n{text}EOF\nexit 0\n"),
        );
        let run = out.join(agent.as_str());
        let mut o = options(backend, &run, "");
        o.agent = agent;
        o.agent_cmd = Some(program);
        o.tasks = root().join("tasks/remove-command");
        o.conditions = vec![Condition::C0];
        evaluate(&o, fixture_skill()).unwrap();
        let cells = cells(&run);
        let a = &cells[0].attempts[0];
        assert_eq!(cells[0].outcome, Outcome::Error, "{agent}");
        assert_eq!(a.agent_exit, Some(0), "{agent}");
        let error = a.error.as_deref().unwrap_or_default();
        assert!(error.starts_with(reason), "{agent}: {error}");
        assert_eq!(a.output_tokens, output_tokens, "{agent}");
    }
}

/// Under `inject` the body reaches the agent through the instruction, and no skill folder.
pub fn inject(backend: Backend, out: &Path) {
    let mut o = options(backend, out, "");
    o.placement = Placement::Inject;
    o.tasks = root().join("tasks/remove-command");
    evaluate(&o, fixture_skill()).unwrap();
    let cells = cells(out);
    let by = by_condition(&cells);
    assert_eq!(by[&Condition::C1][0].outcome, Outcome::Pass);
    assert_eq!(by[&Condition::C0][0].outcome, Outcome::Fail);
    assert_eq!(
        by[&Condition::C1][0].attempts[0].skill_read,
        Some(true),
        "an injected skill is read by construction"
    );
    for (_, log) in agent_logs(out) {
        assert!(log.contains("skill: none"), "{log}");
    }
}

/// A hanging agent is killed at its time limit, with everything it started.
/// Returns the pid of the background process it left, read from its log.
/// Returns the duration the agent's background sleeper was started with (which finds it
/// among the host's processes).
pub fn timeout(backend: Backend, out: &Path, scratch: &Path) -> String {
    let mut o = options(backend, out, "sleep");
    o.tasks = task_copy(scratch, "remove-command", 1.0);
    o.conditions = vec![Condition::C0];
    let started = Instant::now();
    evaluate(&o, fixture_skill()).unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    let cells = cells(out);
    assert_eq!(cells[0].outcome, Outcome::Timeout);
    assert!(
        cells[0].attempts[0]
            .error
            .as_deref()
            .unwrap_or("")
            .contains("time limit")
    );
    let logs = agent_logs(out);
    let pid = logs[0]
        .1
        .lines()
        .find_map(|l| l.strip_prefix("sleeper: "))
        .expect("sleeper logged");
    pid.trim().to_owned()
}

/// A crashing agent is an error, retried, never a fail.
pub fn crash_is_error(backend: Backend, out: &Path) {
    let mut o = options(backend, out, "crash");
    o.tasks = root().join("tasks/remove-command");
    o.conditions = vec![Condition::C1];
    o.retries = 1;
    evaluate(&o, fixture_skill()).unwrap();
    let cells = cells(out);
    assert_eq!(cells.len(), 1);
    assert_eq!(cells[0].outcome, Outcome::Error);
    assert!(
        cells[0].attempts[0]
            .error
            .as_deref()
            .unwrap()
            .contains("status 3")
    );
    let retries = std::fs::read_dir(out.join("logs/remove-command"))
        .unwrap()
        .count();
    assert_eq!(retries, 2, "first run and one retry");
}

/// The verifier's output reaches the next attempt; a later pass makes the cell pass.
pub fn feedback(backend: Backend, out: &Path) {
    let mut o = options(backend, out, "learner");
    o.tasks = root().join("tasks/total-skips-comments");
    o.conditions = vec![Condition::C1];
    o.attempts = 2;
    evaluate(&o, fixture_skill()).unwrap();
    let cells = cells(out);
    let a = &cells[0].attempts;
    assert_eq!(a.len(), 2);
    assert_eq!((a[0].outcome, a[0].reward), (Outcome::Fail, Some(0.0)));
    assert_eq!((a[1].outcome, a[1].reward), (Outcome::Pass, Some(1.0)));
    assert_eq!(cells[0].outcome, Outcome::Pass);
    let logs = agent_logs(out);
    let second = logs
        .iter()
        .find(|(p, _)| p.ends_with("attempt-2-agent.stdout"))
        .unwrap();
    assert!(second.1.contains("feedback: FAIL"), "{}", second.1);
}

/// A second run with the same cells takes every outcome from the cache.
pub fn cache(backend: Backend, scratch: &Path) {
    let mut o = options(backend, &scratch.join("run-1"), "");
    o.tasks = root().join("tasks/low-stock-report");
    o.cache_dir = Some(scratch.join("cache"));
    let first = evaluate(&o, fixture_skill()).unwrap();
    assert_eq!((first.ran, first.cached), (2, 0));
    o.out = scratch.join("run-2");
    let second = evaluate(&o, fixture_skill()).unwrap();
    assert_eq!((second.ran, second.cached), (0, 2));
    assert_eq!(cells(&scratch.join("run-1")), cells(&scratch.join("run-2")));
}

/// Runs one C0 cell of `task` with the agent script `body`, without retries; returns the
/// cell and the run directory.
fn one_cell(backend: Backend, scratch: &Path, task: PathBuf, body: &str) -> (CellRecord, PathBuf) {
    one_cell_with(backend, scratch, task, body, false)
}

fn one_cell_with(
    backend: Backend,
    scratch: &Path,
    task: PathBuf,
    body: &str,
    verifier_offline: bool,
) -> (CellRecord, PathBuf) {
    let out = scratch.join("run");
    let mut o = options(backend, &out, "");
    o.verifier_offline = verifier_offline;
    o.tasks = task;
    o.agent_cmd = Some(script(scratch, "agent.sh", body));
    o.conditions = vec![Condition::C0];
    o.retries = 0;
    evaluate(&o, fixture_skill()).unwrap();
    let mut cells = cells(&out);
    assert_eq!(cells.len(), 1);
    (cells.remove(0), out)
}

/// A command outgrowing the task's memory limit is killed by the kernel; the cell is an
/// error naming the cause, never a fail.
pub fn out_of_memory(backend: Backend, scratch: &Path) {
    let task = task_copy(scratch, "remove-command", 60.0);
    edit(&task.join("task.toml"), "memory_mb = 256", "memory_mb = 32");
    let hog = "x=$(head -c 400000000 /dev/zero | tr '\\0' a)\necho \"survived ${#x}\"\n";
    let (cell, _) = one_cell(backend, scratch, task, hog);
    assert_eq!(cell.outcome, Outcome::Error, "{cell:?}");
    let error = cell.attempts[0].error.as_deref().unwrap_or_default();
    assert!(
        error.contains("agent ran out of memory (the task allows 32 MB)"),
        "{error}"
    );
}

/// A task whose files outgrow its `[environment] storage` ends as an error naming the limit,
/// even when the agent shrugs the full disk off and exits 0; within the limit it runs as
/// usual. `storage = "16M"` is Harbor's older string form.
pub fn storage_limit(backend: Backend, scratch: &Path) {
    for (case, megabytes, over) in [("over", 40, true), ("within", 4, false)] {
        let dir = scratch.join(case);
        std::fs::create_dir_all(&dir).unwrap();
        let task = task_copy(&dir, "remove-command", 60.0);
        edit(
            &task.join("task.toml"),
            "memory_mb = 256",
            "memory_mb = 256\nstorage = \"16M\"",
        );
        let writer = format!(
            "head -c {megabytes}000000 /dev/zero > big.bin || echo \"disk full\"\nrm -f big.bin\nhead -c {megabytes}000000 /dev/zero > /tmp/big.bin || true\nexit 0\n"
        );
        let (cell, _) = one_cell(backend, &dir, task, &writer);
        let error = cell.attempts[0].error.clone().unwrap_or_default();
        if over {
            assert_eq!(cell.outcome, Outcome::Error, "{cell:?}");
            assert_eq!(
                error,
                "agent wrote past the task's storage limit of 16 MB ([environment] storage)"
            );
        } else {
            assert_ne!(cell.outcome, Outcome::Error, "{cell:?}");
            assert!(!error.contains("storage"), "{error}");
        }
    }
}

/// On an engine that cannot limit a container's disk, a task's `storage` does not stop it:
/// the cell runs without the limit (writing past it is no error) and records the limit and
/// `why` it was not enforced.
pub fn storage_not_enforced(backend: Backend, scratch: &Path, why: &str) {
    let task = task_copy(scratch, "remove-command", 60.0);
    edit(
        &task.join("task.toml"),
        "memory_mb = 256",
        "memory_mb = 256\nstorage = \"16M\"",
    );
    let writer = "head -c 40000000 /dev/zero > /tmp/big.bin\nrm -f /tmp/big.bin\nexit 0\n";
    let (cell, _) = one_cell(backend, scratch, task, writer);
    assert_ne!(cell.outcome, Outcome::Error, "{cell:?}");
    assert_eq!(
        cell.storage_not_enforced,
        Some(skillgate::eval::journal::StorageNotEnforced {
            limit_mb: 16,
            reason: why.to_owned(),
        })
    );
}

/// A command may not start more processes than a container could (1,024).
pub fn pid_limit(backend: Backend, scratch: &Path) {
    let task = task_copy(scratch, "remove-command", 60.0);
    let forker =
        "i=0\nwhile [ $i -lt 1100 ]; do sleep 60 & i=$((i + 1)); done\necho \"started $i\"\n";
    let (cell, out) = one_cell(backend, scratch, task, forker);
    assert_eq!(cell.outcome, Outcome::Error, "{cell:?}");
    let logs = run_logs(&out, "attempt-1-agent.stderr");
    assert!(
        logs.iter().any(|(_, l)| l.to_lowercase().contains("fork")),
        "the shell could not fork: {logs:?}"
    );
}

/// The verifier follows the task's own network settings (Harbor's default: network), and
/// `--verifier-offline` cuts it whatever the task says; the journal says which phase had it.
pub fn verifier_network_follows_the_task(backend: Backend, scratch: &Path) {
    for (case, forced, verifier_network) in [("default", false, true), ("forced", true, false)] {
        let dir = scratch.join(case);
        std::fs::create_dir_all(&dir).unwrap();
        let task = task_copy(&dir, "remove-command", 30.0);
        edit(
            &task.join("task.toml"),
            "allow_internet = false",
            "allow_internet = true",
        );
        std::fs::write(
            task.join("tests/test.sh"),
            "[ \"$(grep -c : /proc/net/dev)\" = 1 ] && grep -q 'lo:' /proc/net/dev\n",
        )
        .unwrap();
        let (cell, _) = one_cell_with(backend, &dir, task, "true\n", forced);
        let expected = if verifier_network {
            Outcome::Fail
        } else {
            Outcome::Pass
        };
        assert_eq!(cell.outcome, expected, "{case}: {cell:?}");
        let network = cell.attempts[0].network.unwrap();
        assert_eq!(
            (network.agent, network.verifier),
            (true, Some(verifier_network)),
            "{case}"
        );
    }
}

/// The verifier follows the task's own network settings: under `[verifier] network_mode =
/// "no-network"` it has no network but loopback, even when the agent had one; the journal
/// says which phase had network.
pub fn verifier_offline(backend: Backend, scratch: &Path) {
    let task = task_copy(scratch, "remove-command", 30.0);
    edit(
        &task.join("task.toml"),
        "allow_internet = false",
        "allow_internet = true",
    );
    edit(
        &task.join("task.toml"),
        "[verifier]\n",
        "[verifier]\nnetwork_mode = \"no-network\"\n",
    );
    // Passes only when loopback is the one interface.
    std::fs::write(
        task.join("tests/test.sh"),
        "cat /proc/net/dev\n[ \"$(grep -c : /proc/net/dev)\" = 1 ] && grep -q 'lo:' /proc/net/dev\n",
    )
    .unwrap();
    let count = "echo \"interfaces: $(grep -c : /proc/net/dev)\"\n";
    let (cell, out) = one_cell(backend, scratch, task, count);
    assert_eq!(cell.outcome, Outcome::Pass, "{cell:?}");
    let network = cell.attempts[0].network.unwrap();
    assert_eq!((network.agent, network.verifier), (true, Some(false)));
    let logs = agent_logs(&out);
    let seen: u32 = logs[0]
        .1
        .lines()
        .find_map(|l| l.strip_prefix("interfaces: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    assert!(seen >= 2, "the agent phase had a network: {}", logs[0].1);
}

/// `kill -9` midway, a torn last line, then `--resume`: every cell exactly once. The run
/// also shows that only configured variables reach the agent, and never a GitHub token.
pub fn kill_and_resume(backend: &str, scratch: &Path) -> PathBuf {
    let out = scratch.join("run");
    std::fs::write(
        scratch.join("skillgate.toml"),
        "[eval]\npass-env = [\"GITHUB_TOKEN\", \"FIXTURE_SECRET\"]\n",
    )
    .unwrap();
    let args = |resume: bool| {
        let mut cmd = eval_command(backend, &root().join("tasks"), "slow");
        cmd.current_dir(scratch)
            .env("GITHUB_TOKEN", "ghp_fixture")
            .env("FIXTURE_SECRET", "s3cret")
            .arg("--config")
            .arg(scratch.join("skillgate.toml"))
            .args(["--seeds", "4"])
            .arg(if resume { "--resume" } else { "--out" })
            .arg(&out);
        cmd
    };
    let mut child = args(false)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while cells_on_disk(&out) < 4 {
        assert!(Instant::now() < deadline, "the run made no progress");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it could be killed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before = cells_on_disk(&out);
    assert!(before < 24, "killed midway ({before} cells)");
    let mut journal = std::fs::OpenOptions::new()
        .append(true)
        .open(out.join("cells.jsonl"))
        .unwrap();
    std::io::Write::write_all(&mut journal, b"{\"schema\":1,\"skill_sha256\":\"torn").unwrap();
    // Options given again must agree with the run's.
    let refused = args(true).args(["--attempts", "3"]).output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(
        message.contains("--attempts 3 (the run has 1)"),
        "{message}"
    );
    // The rest comes from run.json and the configuration kept in the run directory; the
    // resume runs from another directory, with none of the original options.
    let status = Command::new(env!("CARGO_BIN_EXE_skillgate"))
        .current_dir(std::env::temp_dir())
        .env("GITHUB_TOKEN", "ghp_fixture")
        .env("FIXTURE_SECRET", "s3cret")
        .args(["eval", "--quiet", "--resume"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
    assert!(run["command"].to_string().contains("--out"), "{run}");
    assert_eq!(run["resumed"].as_array().map(Vec::len), Some(1), "{run}");
    assert!(run["finished_at"].is_string(), "{run}");
    let cells = cells(&out);
    assert_eq!(cells.len(), 24);
    let keys: HashSet<_> = cells.iter().map(|c| c.key()).collect();
    assert_eq!(keys.len(), 24, "no cell twice");
    for (_, log) in agent_logs(&out) {
        assert!(!log.contains("env-leak: GITHUB_TOKEN"), "{log}");
        assert!(log.contains("env-leak: FIXTURE_SECRET"), "{log}");
    }
    out
}

fn cells_on_disk(out: &Path) -> usize {
    std::fs::read_to_string(out.join("cells.jsonl"))
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

/// `tasks check` on the example tasks: valid, not leaking the skill, discriminating.
pub fn tasks_check(sandbox: &dyn skillgate::eval::sandbox::Sandbox, logs: &Path) {
    let repo_dir = fixture("repos/inventory");
    let repo = skillgate::eval::repo_bundle(&repo_dir, true).unwrap();
    let skill = fixture_skill();
    let checks = skillgate::eval::check_tasks(
        &root().join("tasks"),
        Some(&skill),
        &repo,
        &repo_dir,
        sandbox,
        logs,
        false,
    )
    .unwrap();
    assert_eq!(checks.len(), 3);
    for check in &checks {
        assert!(
            check.problems.is_empty(),
            "{}: {:?}",
            check.task,
            check.problems
        );
        let d = check.discrimination.as_ref().unwrap();
        assert!(d.holds(), "{}: {d:?}", check.task);
    }
}

/// `skillgate tasks check` of the Harbor look-alikes: the two runnable tasks prove they
/// discriminate (reward.json and reward.txt read, bash scripts, absolute paths, env tables),
/// the multi-step and the broken task are each one problem line, and the others still run.
/// `low_stock_problem` is the one line refusing `low-stock-json` where the backend cannot
/// enforce its settings, `low_stock_note` the note listed for it where the backend runs it
/// without enforcing one; `flags` are added to the command. Returns its stderr.
pub fn harbor_tasks_check(
    backend: &str,
    tasks: &Path,
    flags: &[&str],
    low_stock_problem: Option<&str>,
    low_stock_note: Option<&str>,
) -> String {
    let out = tasks_check_command(tasks, backend)
        .args(flags)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut expected = vec![
        "problem  broken-config: task.toml: unclosed table, expected `]`".to_owned(),
        "ok       count-reward-txt".to_owned(),
    ];
    expected.extend(low_stock_note.map(|note| format!("note     low-stock-json: {note}")));
    expected.extend([
        match low_stock_problem {
            Some(problem) => format!("problem  low-stock-json: {problem}"),
            None => "ok       low-stock-json".to_owned(),
        },
        "problem  two-steps: multi-step tasks (`steps`) are not supported".to_owned(),
        format!(
            "4 tasks, {} with problems",
            2 + usize::from(low_stock_problem.is_some())
        ),
    ]);
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        expected,
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    stderr.into_owned()
}

//! Every scenario on the real Docker engine, plus the checks only Docker has (no container
//! left behind, one clear error before any cell when an image is missing).

use skillgate::eval::Backend;
use skillgate::eval::{evaluate, run_id};

use super::scenarios;
use super::support::*;

/// Runs a scenario with the busybox image ready, then checks no container of the run is left.
fn with_docker(f: impl FnOnce(&std::path::Path)) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    docker("image-setup");
    f(tmp.path());
    let sandbox = docker(&run_id(&out));
    assert_eq!(
        leftover_containers(&sandbox),
        Vec::<String>::new(),
        "containers left behind"
    );
}

#[test]
fn conditions_and_discovery() {
    with_docker(|dir| scenarios::conditions_and_discovery(Backend::Docker, &dir.join("run")));
}

#[test]
fn claude_code_stream() {
    with_docker(|dir| scenarios::claude_code_stream(Backend::Docker, &dir.join("run")));
}

#[test]
fn agent_reported_failure() {
    with_docker(|dir| {
        scenarios::agent_reported_failure(Backend::Docker, &dir.join("run"), dir);
    });
}

#[test]
fn inject() {
    with_docker(|dir| scenarios::inject(Backend::Docker, &dir.join("run")));
}

#[test]
fn timeout_kills() {
    with_docker(|dir| {
        scenarios::timeout(Backend::Docker, &dir.join("run"), dir);
    });
}

#[test]
fn crash_is_error() {
    with_docker(|dir| scenarios::crash_is_error(Backend::Docker, &dir.join("run")));
}

#[test]
fn feedback() {
    with_docker(|dir| scenarios::feedback(Backend::Docker, &dir.join("run")));
}

#[test]
fn cache() {
    with_docker(|dir| scenarios::cache(Backend::Docker, dir));
}

#[test]
fn kill_and_resume() {
    with_docker(|dir| {
        scenarios::kill_and_resume("docker", dir);
    });
}

#[test]
fn tasks_check() {
    let tmp = tempfile::tempdir().unwrap();
    let sandbox = docker(&run_id(tmp.path()));
    scenarios::tasks_check(&sandbox, tmp.path());
    drop(sandbox);
    assert!(leftover_containers(&docker(&run_id(tmp.path()))).is_empty());
}

#[test]
fn unreachable_daemon_is_one_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_skillgate"))
        .env(
            "DOCKER_HOST",
            format!("unix://{}", tmp.path().join("no.sock").display()),
        )
        .arg("eval")
        .arg(fixture("skills/inventory-conventions/SKILL.md"))
        .arg("--repo")
        .arg(fixture("repos/inventory"))
        .arg("--worktree")
        .arg("--tasks")
        .arg(root().join("tasks"))
        .args([
            "--agent",
            "command",
            "--agent-cmd",
            "true",
            "--backend",
            "docker",
            "--out",
        ])
        .arg(tmp.path().join("run"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unreachable"), "{stderr}");
    assert!(
        !tmp.path().join("run/cells.jsonl").exists() || cells(&tmp.path().join("run")).is_empty()
    );
}

#[test]
fn agent_install_runs_once_per_image_as_a_derived_image() {
    let tmp = tempfile::tempdir().unwrap();
    docker("image-setup");
    // A per-test marker keeps the derived image new for this run.
    let marker = format!("installed-{}", std::process::id());
    let install = format!(
        "mkdir -p /opt/agent && echo {marker} >/opt/agent/marker && date +%s%N >/opt/agent/when"
    );
    let tasks = skillgate::eval::task::Task::load_all(&root().join("tasks/remove-command"))
        .unwrap()
        .tasks;
    let read_when = |run: &str| {
        let sandbox =
            skillgate::eval::sandbox::docker::DockerSandbox::connect(run, Some(install.clone()))
                .unwrap();
        use skillgate::eval::sandbox::Sandbox;
        sandbox.prepare(&tasks).unwrap();
        let mut session = sandbox
            .open(&tasks[0], &skillgate::eval::sandbox::Bundle::new())
            .unwrap();
        let seen = session.read("/opt/agent/marker").unwrap().unwrap();
        assert_eq!(String::from_utf8_lossy(&seen).trim(), marker);
        let when = session.read("/opt/agent/when").unwrap().unwrap();
        drop(session);
        drop(sandbox); // also removes the container it had warmed up for a next cell
        assert!(leftover_containers(&docker(run)).is_empty());
        when
    };
    let first = read_when(&run_id(&tmp.path().join("a")));
    let second = read_when(&run_id(&tmp.path().join("b")));
    assert_eq!(
        first, second,
        "the install step ran again instead of reusing the derived image"
    );
    let sandbox = docker("image-setup");
    let base = sandbox
        .block_on(sandbox.client().inspect_image(BUSYBOX_IMAGE))
        .unwrap()
        .id
        .unwrap();
    let hash = skillgate::eval::sha256_hex(format!("{base}\0{install}").as_bytes());
    remove_image(&sandbox, &format!("skillgate-agent:{}", &hash[..16]));
}

/// On Docker the agent's `--version` is asked inside the task's image (here one whose
/// install step put the agent there, absent from the host), in a container removed after.
#[test]
fn the_agent_version_is_asked_in_the_image() {
    let tmp = tempfile::tempdir().unwrap();
    docker("image-setup");
    let marker = std::process::id();
    let install = format!(
        "printf '#!/bin/sh\\necho fake-agent 3.{marker}\\n' >/bin/fake-agent-{marker} && chmod +x /bin/fake-agent-{marker}"
    );
    let run = run_id(tmp.path());
    let sandbox =
        skillgate::eval::sandbox::docker::DockerSandbox::connect(&run, Some(install.clone()))
            .unwrap();
    use skillgate::eval::sandbox::Sandbox;
    let tasks = skillgate::eval::task::Task::load_all(&root().join("tasks/remove-command"))
        .unwrap()
        .tasks;
    assert!(sandbox.prepare(&tasks).unwrap().is_empty());
    assert_eq!(
        sandbox.program_version(&format!("fake-agent-{marker}")),
        Some(format!("fake-agent 3.{marker}"))
    );
    assert_eq!(sandbox.program_version("no-such-agent"), None);
    assert!(leftover_containers(&sandbox).is_empty());
    drop(sandbox);
    let sandbox = docker("image-setup");
    let base = sandbox
        .block_on(sandbox.client().inspect_image(BUSYBOX_IMAGE))
        .unwrap()
        .id
        .unwrap();
    let hash = skillgate::eval::sha256_hex(format!("{base}\0{install}").as_bytes());
    remove_image(&sandbox, &format!("skillgate-agent:{}", &hash[..16]));
}

#[test]
fn ctrl_c_removes_the_containers() {
    let tmp = tempfile::tempdir().unwrap();
    docker("image-setup");
    let out = tmp.path().join("run");
    let mut child = eval_command("docker", &root().join("tasks/remove-command"), "sleep")
        .arg("--out")
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let sandbox = docker(&run_id(&out));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while leftover_containers(&sandbox).len() < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the run started no container"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let pid = child.id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert_eq!(leftover_containers(&sandbox), Vec::<String>::new());
}

#[test]
fn verifier_offline() {
    with_docker(|dir| scenarios::verifier_offline(Backend::Docker, dir));
}

#[test]
fn codex_json() {
    with_docker(|dir| scenarios::codex_json(Backend::Docker, &dir.join("run")));
}

#[test]
fn out_of_memory() {
    with_docker(|dir| scenarios::out_of_memory(Backend::Docker, dir));
}

/// Where the engine limits a container's disk, a task outgrowing `storage` is an error naming
/// the limit; where it cannot (fuse-overlayfs, overlay2 on ext4...), the task runs without
/// it and its cells say why, and with `--require-storage-limits` it is refused in one line
/// before any container starts.
#[test]
fn storage_limit() {
    let sandbox = docker("image-setup");
    match sandbox.storage_support() {
        Ok(()) => with_docker(|dir| scenarios::storage_limit(Backend::Docker, dir)),
        Err(why) => {
            with_docker(|dir| scenarios::storage_not_enforced(Backend::Docker, dir, &why));
            let sandbox = sandbox.require_storage_limits(true);
            let tmp = tempfile::tempdir().unwrap();
            let task = task_copy(tmp.path(), "remove-command", 60.0);
            edit(
                &task.join("task.toml"),
                "memory_mb = 256",
                "memory_mb = 256\nstorage_mb = 16",
            );
            let task = skillgate::eval::task::Task::load(&task).unwrap();
            use skillgate::eval::sandbox::Sandbox;
            assert_eq!(
                sandbox.refuses(&task).as_deref(),
                Some(format!("[environment] storage (16 MB) cannot be enforced on this Docker engine: {why}; use --backend local as root").as_str())
            );
            assert!(!why.contains('\n'), "{why}");
            assert_eq!(sandbox.storage_not_enforced(&task), None);
        }
    }
}

/// Host files the agent command names after its first word (`sh /tmp/x/agent.sh
/// --data=/tmp/x/data.txt`) are copied into the container at their own paths, without write
/// permission, so the command finds them there.
#[test]
fn host_paths_the_agent_command_names_are_uploaded() {
    docker("image-setup");
    let tmp = tempfile::tempdir_in("/tmp").unwrap();
    let agent_dir = tmp.path().join("agent");
    std::fs::create_dir_all(agent_dir.join("lib")).unwrap();
    let data = agent_dir.join("data.txt");
    std::fs::write(&data, "hello from the host\n").unwrap();
    std::fs::write(agent_dir.join("lib/part.txt"), "and a folder\n").unwrap();
    let body =
        "data=${1#--data=}\ncat \"$data\" \"$2/part.txt\"\nls -l \"$data\" | cut -c1-10 >&2\n";
    let agent = script(&agent_dir, "agent.sh", body);
    let task = task_copy(tmp.path(), "remove-command", 60.0);
    let out = tmp.path().join("run");
    let mut o = options(Backend::Docker, &out, "");
    o.tasks = task;
    o.agent_cmd = Some(format!(
        "sh {agent} --data={} {}",
        data.display(),
        agent_dir.join("lib").display()
    ));
    o.conditions = vec![skillgate::eval::Condition::C0];
    evaluate(&o, fixture_skill()).unwrap();
    let logs = agent_logs(&out);
    let stderr = run_logs(&out, "attempt-1-agent.stderr");
    assert_eq!(logs.len(), 1, "{logs:?} {stderr:?}");
    assert_eq!(
        logs[0].1, "hello from the host\nand a folder\n",
        "{logs:?} {stderr:?}"
    );
    assert_eq!(stderr[0].1.trim(), "-r--r--r--", "{stderr:?}");
}

#[test]
fn pid_limit() {
    with_docker(|dir| scenarios::pid_limit(Backend::Docker, dir));
}

/// A task without `docker_image` whose `environment/Dockerfile` says `dockerfile`.
fn built_task(dir: &std::path::Path, dockerfile: &str) -> std::path::PathBuf {
    let task = task_copy(dir, "remove-command", 30.0);
    let toml = std::fs::read_to_string(task.join("task.toml")).unwrap();
    std::fs::write(
        task.join("task.toml"),
        toml.replace(&format!("docker_image = \"{BUSYBOX_IMAGE}\"\n"), ""),
    )
    .unwrap();
    std::fs::create_dir_all(task.join("environment")).unwrap();
    std::fs::write(task.join("environment/Dockerfile"), dockerfile).unwrap();
    std::fs::write(
        task.join("tests/test.sh"),
        "[ \"$(cat /built-marker)\" = \"built $(pwd)\" ]\n",
    )
    .unwrap();
    task
}

#[test]
fn task_images_are_built_from_environment_dockerfile() {
    let tmp = tempfile::tempdir().unwrap();
    docker("image-setup");
    let marker = std::process::id();
    let dockerfile = format!(
        "FROM {BUSYBOX_IMAGE}\nWORKDIR /srv/{marker}\nRUN echo \"built /srv/{marker}\" >/built-marker\n"
    );
    let out = tmp.path().join("run");
    let mut o = options(Backend::Docker, &out, "");
    o.tasks = built_task(tmp.path(), &dockerfile);
    o.agent_cmd = Some("true".into());
    o.conditions = vec![skillgate::eval::Condition::C0];
    evaluate(&o, fixture_skill()).unwrap();
    let cells = cells(&out);
    assert_eq!(
        cells[0].outcome,
        skillgate::eval::Outcome::Pass,
        "ran in the built image, in its WORKDIR: {:?}",
        cells[0]
    );
    let hash = skillgate::eval::task::tree_sha256(&o.tasks.join("environment")).unwrap();
    remove_image(
        &docker("image-setup"),
        &format!("skillgate-task-remove-command:{}", &hash[..12]),
    );
}

/// A tasks folder shaped like a public set with one bad apple of each kind: a good task, a
/// task whose `docker_image` cannot be pulled (and has no Dockerfile), one whose
/// Dockerfile starts `FROM` an image no registry has, and one refused statically.
fn folder_with_unavailable_images(dir: &std::path::Path) -> std::path::PathBuf {
    let tasks = dir.join("tasks");
    let good = task_copy(dir, "remove-command", 30.0);
    copy_dir(&good, &tasks.join("good"));
    let unpullable = tasks.join("unpullable-image");
    copy_dir(&good, &unpullable);
    // A registry that answers nothing, so the pull fails at once.
    edit(
        &unpullable.join("task.toml"),
        BUSYBOX_IMAGE,
        "127.0.0.1:9/skillgate-no-such-image:0",
    );
    let built = built_task(
        &dir.join("built"),
        "FROM nonexistent.invalid/x:1
WORKDIR /app
",
    );
    copy_dir(&built, &tasks.join("unbuildable"));
    let broken = tasks.join("broken-config");
    copy_dir(&good, &broken);
    std::fs::write(broken.join("task.toml"), "[agent\n").unwrap();
    tasks
}

/// An image that cannot be pulled or built refuses that task in its own line with the
/// pull's or the build's error; every other task is still checked (exit 1, not 2).
#[test]
fn an_unavailable_image_refuses_its_task_only_in_tasks_check() {
    let tmp = tempfile::tempdir().unwrap();
    docker("image-setup");
    let tasks = folder_with_unavailable_images(tmp.path());
    let out = tasks_check_command(&tasks, "docker").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert_eq!(lines.len(), 5, "{stdout}\n{stderr}");
    assert!(
        lines[0].starts_with("problem  broken-config: task.toml:"),
        "{stdout}"
    );
    assert_eq!(lines[1], "ok       good", "{stdout}\n{stderr}");
    assert!(
        lines[2].starts_with("problem  unbuildable: building environment/Dockerfile failed: ")
            && lines[2].contains("nonexistent.invalid"),
        "{stdout}"
    );
    assert!(
        lines[3].starts_with(
            "problem  unpullable-image: image `127.0.0.1:9/skillgate-no-such-image:0` is missing and cannot be pulled: "
        ),
        "{stdout}"
    );
    assert!(
        lines.iter().all(|l| l.len() < 500),
        "one short line each: {stdout}"
    );
    assert_eq!(lines[4], "4 tasks, 3 with problems");
}

/// The same folder in `eval`: the unavailable images' tasks are skipped with their reasons
/// (on stderr and in run.json, beside the statically refused one) and the good task runs.
#[test]
fn an_unavailable_image_refuses_its_task_only_in_eval() {
    let tmp = tempfile::tempdir().unwrap();
    docker("image-setup");
    let out = tmp.path().join("run");
    let mut o = options(Backend::Docker, &out, "");
    o.tasks = folder_with_unavailable_images(tmp.path());
    o.conditions = vec![skillgate::eval::Condition::C0];
    let summary = evaluate(&o, fixture_skill()).unwrap();
    assert_eq!(summary.planned, 1);
    let cells = cells(&out);
    assert_eq!(cells.len(), 1);
    assert_eq!(cells[0].task, "good");
    let info = skillgate::eval::journal::read_run_info(&out).unwrap();
    let mut refused: Vec<&str> = info.tasks_refused.iter().map(|r| r.task.as_str()).collect();
    refused.sort_unstable();
    assert_eq!(
        refused,
        ["broken-config", "unbuildable", "unpullable-image"]
    );
    let unpullable = &info
        .tasks_refused
        .iter()
        .find(|r| r.task == "unpullable-image")
        .unwrap()
        .reason;
    assert!(unpullable.contains("cannot be pulled"), "{unpullable}");
    let mut unavailable: Vec<&str> = summary
        .unavailable
        .iter()
        .map(|r| r.task.as_str())
        .collect();
    unavailable.sort_unstable();
    assert_eq!(unavailable, ["unbuildable", "unpullable-image"]);
    assert!(leftover_containers(&docker(&run_id(&out))).is_empty());

    // On the command line the verdict is printed, and the exit status says the run was not
    // whole: 1, naming the tasks left out (the statically refused task is no such failure).
    let again = tmp.path().join("run-cli");
    let agent = o.agent_cmd.clone().unwrap();
    let cli = std::process::Command::new(env!("CARGO_BIN_EXE_skillgate"))
        .arg("eval")
        .arg(&o.skill)
        .arg("--repo")
        .arg(&o.repo)
        .arg("--tasks")
        .arg(&o.tasks)
        .args(["--agent", "command", "--agent-cmd", &agent])
        .args([
            "--backend",
            "docker",
            "--conditions",
            "C0",
            "--worktree",
            "--quiet",
        ])
        .arg("--out")
        .arg(&again)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&cli.stdout);
    let stderr = String::from_utf8_lossy(&cli.stderr);
    assert_eq!(cli.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("Decision: skip (basis: eval)"), "{stdout}");
    assert!(
        stderr.contains(
            "2 tasks could not be run because their environment could not be had (unbuildable, unpullable-image)"
        ),
        "{stderr}"
    );
    assert!(leftover_containers(&docker(&run_id(&again))).is_empty());
}

#[test]
fn harbor_tasks_check() {
    let sandbox = docker_with_bash("image-setup");
    let tasks = fixture("harbor-tasks");
    match sandbox.storage_support() {
        Ok(()) => {
            let stderr = scenarios::harbor_tasks_check("docker", &tasks, &[], None, None);
            assert!(!stderr.contains("storage"), "{stderr}");
        }
        Err(why) => {
            // An engine that cannot limit a container's disk runs the task that sets
            // `storage` without it, and lists why beside that task.
            let stderr = scenarios::harbor_tasks_check("docker", &tasks, &[], None, Some(&why));
            assert!(!stderr.contains("storage"), "{stderr}");
            // Asked to, it refuses that task in one line instead.
            let refusal = format!(
                "[environment] storage (1024 MB) cannot be enforced on this Docker engine: {why}; use --backend local as root"
            );
            scenarios::harbor_tasks_check(
                "docker",
                &tasks,
                &["--require-storage-limits"],
                Some(&refusal),
                None,
            );
        }
    }
    // The task whose image cannot be pulled was built from its Dockerfile.
    let task = root().join("fixtures/harbor-tasks/count-reward-txt/environment");
    let hash = skillgate::eval::task::tree_sha256(&task).unwrap();
    remove_image(
        &sandbox,
        &format!("skillgate-task-count-reward-txt:{}", &hash[..12]),
    );
}

/// Skills an image ships in an agent's skill folder are removed in every condition and the
/// journal names them; the condition's own skill is still placed.
#[test]
fn environment_skills_are_removed_in_every_condition() {
    let tmp = tempfile::tempdir().unwrap();
    docker("image-setup");
    let dockerfile = format!(
        "FROM {BUSYBOX_IMAGE}\nWORKDIR /app\nRUN mkdir -p /root/.claude/skills/bundled /root/.agents/skills/other \\\n && echo {} > /root/.claude/skills/bundled/SKILL.md && echo x > /root/.agents/skills/other/SKILL.md\n",
        std::process::id()
    );
    let task = built_task(tmp.path(), &dockerfile);
    std::fs::write(task.join("tests/test.sh"), "exit 1\n").unwrap();
    let agent = script(
        tmp.path(),
        "look.sh",
        "echo \"home: $(ls -A /root/.claude/skills | wc -l) $(ls -A /root/.agents/skills | wc -l)\"\n\
         echo \"placed: $(ls .claude/skills 2>/dev/null)\"\n",
    );
    let out = tmp.path().join("run");
    let mut o = options(Backend::Docker, &out, "");
    o.tasks = task.clone();
    o.agent = skillgate::eval::agent::AgentKind::ClaudeCode;
    o.agent_cmd = Some(agent);
    evaluate(&o, fixture_skill()).unwrap();
    let cells = cells(&out);
    assert_eq!(cells.len(), 2);
    for cell in &cells {
        // The look-alike agent prints no stream-json: its usage cannot be read.
        assert_eq!(cell.outcome, skillgate::eval::Outcome::Error, "{cell:?}");
        assert_eq!(
            cell.environment_skills_removed,
            ["/root/.claude/skills/bundled", "/root/.agents/skills/other"],
            "{cell:?}"
        );
    }
    for (path, log) in agent_logs(&out) {
        let home = log
            .lines()
            .find(|l| l.starts_with("home:"))
            .unwrap_or_default();
        assert_eq!(home.trim(), "home: 0 0", "{}", path.display());
        let placed = log
            .lines()
            .find(|l| l.starts_with("placed:"))
            .unwrap_or_default();
        let expected = if path.to_string_lossy().contains("/C0-") {
            "placed:"
        } else {
            "placed: inventory-conventions"
        };
        assert_eq!(placed.trim(), expected, "{}", path.display());
    }
    let hash = skillgate::eval::task::tree_sha256(&task.join("environment")).unwrap();
    remove_image(
        &docker("image-setup"),
        &format!("skillgate-task-remove-command:{}", &hash[..12]),
    );
}

#[test]
fn verifier_network_follows_the_task() {
    with_docker(|dir| scenarios::verifier_network_follows_the_task(Backend::Docker, dir));
}

/// `[agent] user` and `[verifier] user` run each phase as that user (a uid here: the
/// busybox image names only root).
#[test]
fn phases_run_as_the_task_users() {
    let tmp = tempfile::tempdir().unwrap();
    docker("image-setup");
    let task = task_copy(tmp.path(), "remove-command", 30.0);
    edit(
        &task.join("task.toml"),
        "[agent]\n",
        "[agent]\nuser = 1000\n",
    );
    edit(
        &task.join("task.toml"),
        "[verifier]\n",
        "[verifier]\nuser = 65534\n",
    );
    std::fs::write(
        task.join("tests/test.sh"),
        "[ \"$(id -u)\" = 65534 ] && echo 1 > /logs/verifier/reward.txt\n",
    )
    .unwrap();
    let out = tmp.path().join("run");
    let mut o = options(Backend::Docker, &out, "");
    o.tasks = task;
    o.agent_cmd = Some(script(
        tmp.path(),
        "who.sh",
        "echo \"agent uid: $(id -u)\"\n",
    ));
    o.conditions = vec![skillgate::eval::Condition::C0];
    evaluate(&o, fixture_skill()).unwrap();
    let cells = cells(&out);
    assert_eq!(
        cells[0].outcome,
        skillgate::eval::Outcome::Pass,
        "{:?}",
        cells[0]
    );
    let logs = agent_logs(&out);
    assert!(logs[0].1.contains("agent uid: 1000"), "{}", logs[0].1);
}

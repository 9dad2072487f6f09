//! Every scenario on the `local` backend.

use std::path::Path;
use std::time::{Duration, Instant};

use skillgate::eval::Backend;
use skillgate::eval::sandbox::cgroup::Hierarchy;
use skillgate::eval::sandbox::local::{LocalSandbox, stale_roots};
use skillgate::eval::sandbox::{Bundle, ExecSpec, Sandbox};
use skillgate::eval::task::Task;

use super::scenarios;
use super::support::*;

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn conditions_and_discovery() {
    let tmp = scratch();
    scenarios::conditions_and_discovery(Backend::Local, &tmp.path().join("run"));
}

#[test]
fn claude_code_stream() {
    let tmp = scratch();
    scenarios::claude_code_stream(Backend::Local, &tmp.path().join("run"));
}

#[test]
fn agent_reported_failure() {
    let tmp = scratch();
    scenarios::agent_reported_failure(Backend::Local, &tmp.path().join("run"), tmp.path());
}

#[test]
fn inject() {
    let tmp = scratch();
    scenarios::inject(Backend::Local, &tmp.path().join("run"));
}

#[test]
fn timeout_kills_the_process_group() {
    let tmp = scratch();
    let sleeper = scenarios::timeout(Backend::Local, &tmp.path().join("run"), tmp.path());
    // SIGKILL is delivered asynchronously and the orphan is reaped by init: allow a moment.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while sleeper_alive(&sleeper) {
        assert!(
            std::time::Instant::now() < deadline,
            "background process sleep {sleeper} survived"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Whether a host process runs `sleep DURATION` (the agent fixture's background sleeper,
/// whose process id inside its cell means nothing on the host).
fn sleeper_alive(duration: &str) -> bool {
    let wanted = format!("sleep\0{duration}\0");
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .any(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c.ends_with(wanted.as_bytes()))
                && alive(pid)
        })
}

/// Whether a process exists and is not a zombie.
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[test]
fn crash_is_error() {
    let tmp = scratch();
    scenarios::crash_is_error(Backend::Local, &tmp.path().join("run"));
}

#[test]
fn feedback() {
    let tmp = scratch();
    scenarios::feedback(Backend::Local, &tmp.path().join("run"));
}

#[test]
fn cache() {
    let tmp = scratch();
    scenarios::cache(Backend::Local, tmp.path());
}

#[test]
fn kill_and_resume() {
    let tmp = scratch();
    scenarios::kill_and_resume("local", tmp.path());
    // The resumed run removed what the killed one left: its groups, with the agents still
    // running in them, and its temporary roots.
    let hierarchy = Hierarchy::detect().unwrap();
    assert_eq!(hierarchy.stale_groups(), Vec::<std::path::PathBuf>::new());
    assert_eq!(
        stale_roots(&std::env::temp_dir()),
        Vec::<std::path::PathBuf>::new()
    );
}

/// Prints the limits of the command's own group, read from the cgroup files (v1 or v2).
const SHOW_LIMITS: &str = r#"
while IFS=: read -r _ controllers path; do
    case ",$controllers," in
        *,pids,*) echo "pids $(cat /sys/fs/cgroup/pids$path/pids.max)" ;;
        *,cpu,*) echo "cpu $(cat /sys/fs/cgroup/cpu$path/cpu.cfs_quota_us)" ;;
        *,memory,*) echo "memory $(cat /sys/fs/cgroup/memory$path/memory.limit_in_bytes)" ;;
        ,,) if [ -f "/sys/fs/cgroup$path/cpu.max" ]; then
                echo "pids $(cat /sys/fs/cgroup$path/pids.max)"
                echo "cpu $(cut -d' ' -f1 /sys/fs/cgroup$path/cpu.max)"
                echo "memory $(cat /sys/fs/cgroup$path/memory.max)"
            fi ;;
    esac
done </proc/self/cgroup
"#;

/// Binds and connects on 127.0.0.1: loopback must be up without a network too.
const LOOPBACK: &str = "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); \
    socket.create_connection(s.getsockname()).close(); print('loopback up')";

fn run(
    session: &mut dyn skillgate::eval::sandbox::Session,
    dir: &Path,
    argv: &[&str],
    network: bool,
) -> String {
    let spec = ExecSpec {
        argv: argv.iter().map(|a| (*a).to_owned()).collect(),
        env: Vec::new(),
        workdir: session.workdir(),
        timeout: Duration::from_secs(30),
        network,
        stdout: dir.join("stdout"),
        stderr: dir.join("stderr"),
        fresh_dirs: Vec::new(),
        user: None,
        host_paths: Vec::new(),
    };
    let ran = session.exec(&spec).unwrap();
    let stdout = std::fs::read_to_string(dir.join("stdout")).unwrap();
    let stderr = std::fs::read_to_string(dir.join("stderr")).unwrap();
    assert_eq!(ran.exit, Some(0), "{argv:?}: {stdout}{stderr}");
    stdout
}

#[test]
fn a_command_gets_the_task_limits_and_a_network_only_when_allowed() {
    let tmp = scratch();
    let task = task_copy(tmp.path(), "remove-command", 30.0);
    edit(&task.join("task.toml"), "cpus = 1", "cpus = 0.5");
    edit(&task.join("task.toml"), "memory_mb = 256", "memory_mb = 64");
    let tasks = Task::load_all(&task).unwrap().tasks;
    let sandbox = LocalSandbox::default();
    sandbox.prepare(&tasks).unwrap();
    let mut session = sandbox.open(&tasks[0], &Bundle::new()).unwrap();
    let limits = run(
        session.as_mut(),
        tmp.path(),
        &["sh", "-c", SHOW_LIMITS],
        true,
    );
    for line in ["pids 1024", "cpu 50000", "memory 67108864"] {
        assert!(limits.lines().any(|l| l == line), "{line:?} in {limits}");
    }
    let mut interfaces = |network| {
        let dev = run(
            session.as_mut(),
            tmp.path(),
            &["cat", "/proc/net/dev"],
            network,
        );
        dev.lines().filter(|l| l.contains(':')).count()
    };
    assert_eq!(interfaces(false), 1, "loopback only");
    assert!(interfaces(true) > 1, "the host's interfaces");
    let up = run(
        session.as_mut(),
        tmp.path(),
        &["python3", "-c", LOOPBACK],
        false,
    );
    assert_eq!(up.trim(), "loopback up");
}

#[test]
fn ctrl_c_kills_the_agents_and_removes_their_groups_and_roots() {
    let tmp = scratch();
    let temp = tmp.path().join("tmp");
    std::fs::create_dir(&temp).unwrap();
    let out = tmp.path().join("run");
    let mut child = eval_command("local", &root().join("tasks/remove-command"), "sleep")
        .env("TMPDIR", &temp)
        .arg("--out")
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let sleepers = loop {
        let pids: Vec<String> = agent_logs(&out)
            .iter()
            .filter_map(|(_, log)| {
                log.lines()
                    .find_map(|l| l.strip_prefix("sleeper: "))
                    .map(|p| p.trim().to_owned())
            })
            .collect();
        if pids.len() == 2 {
            break pids;
        }
        assert!(Instant::now() < deadline, "the agents did not start");
        std::thread::sleep(Duration::from_millis(20));
    };
    for sleeper in &sleepers {
        assert!(sleeper_alive(sleeper), "sleep {sleeper} is not running");
    }
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(child.wait().unwrap().code(), Some(130));
    for sleeper in sleepers {
        assert!(
            !sleeper_alive(&sleeper),
            "background process sleep {sleeper} survived"
        );
    }
    let left: Vec<_> = std::fs::read_dir(&temp).unwrap().flatten().collect();
    assert!(left.is_empty(), "temporary roots left: {left:?}");
    let prefix = format!("skillgate-{}-", child.id());
    let groups: Vec<_> = Hierarchy::detect()
        .unwrap()
        .stale_groups()
        .into_iter()
        .filter(|g| g.to_string_lossy().contains(&prefix))
        .collect();
    assert!(groups.is_empty(), "groups left: {groups:?}");
}

#[test]
fn tasks_check() {
    let tmp = scratch();
    scenarios::tasks_check(&LocalSandbox::default(), tmp.path());
}

#[test]
fn codex_json() {
    let tmp = scratch();
    scenarios::codex_json(Backend::Local, &tmp.path().join("run"));
}

#[test]
fn out_of_memory() {
    let tmp = scratch();
    scenarios::out_of_memory(Backend::Local, tmp.path());
}

#[test]
fn storage_limit() {
    let tmp = scratch();
    scenarios::storage_limit(Backend::Local, tmp.path());
}

#[test]
fn pid_limit() {
    let tmp = scratch();
    scenarios::pid_limit(Backend::Local, tmp.path());
}

#[test]
fn verifier_offline() {
    let tmp = scratch();
    scenarios::verifier_offline(Backend::Local, tmp.path());
}

/// The host paths Harbor tasks write (`/app`, `/tests`, `/logs`, `/solution`), each as a
/// sorted listing of what is there (nothing when absent).
fn host_task_paths() -> Vec<(String, Vec<String>)> {
    ["/app", "/tests", "/logs", "/solution"]
        .iter()
        .map(|dir| {
            let mut found = Vec::new();
            let mut stack = vec![std::path::PathBuf::from(dir)];
            while let Some(d) = stack.pop() {
                for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                    let meta = e.metadata().unwrap();
                    found.push(format!(
                        "{} {} {:?}",
                        e.path().display(),
                        meta.len(),
                        meta.modified().ok()
                    ));
                    if meta.is_dir() {
                        stack.push(e.path());
                    }
                }
            }
            found.sort();
            ((*dir).to_owned(), found)
        })
        .collect()
}

#[test]
fn harbor_tasks_check_touches_no_host_path() {
    let before = host_task_paths();
    let stderr = scenarios::harbor_tasks_check(
        "local",
        &fixture("harbor-tasks"),
        &[],
        None,
        // Its `RUN mkdir -p /app/reports /logs/verifier` runs in the cell.
        None,
    );
    assert!(!stderr.contains("storage"), "{stderr}");
    assert_eq!(host_task_paths(), before, "a task wrote on the host");
}

/// Every command sees the cell's folders at the task's paths; what it writes there, and in
/// `/tmp`, stays in the cell, and the host's other folders are read-only.
#[test]
fn absolute_paths_stay_in_the_cell() {
    let tmp = scratch();
    let sandbox = LocalSandbox::default();
    let tasks = Task::load_all(&root().join("tasks/remove-command"))
        .unwrap()
        .tasks;
    sandbox.prepare(&tasks).unwrap();
    let before = host_task_paths();
    let probe = format!("/tmp/skillgate-probe-{}", std::process::id());
    let mut session = sandbox.open(&tasks[0], &Bundle::new()).unwrap();
    let script = format!(
        "pwd; mkdir -p /logs/verifier /tests; echo 0.5 > /logs/verifier/reward.txt; \
         echo made > /app/made.txt; echo t > /tests/t; echo p > {probe}; ls /app; \
         touch /etc{probe} 2>/dev/null && echo wrote the host; echo x > /dev/null"
    );
    let printed = run(session.as_mut(), tmp.path(), &["sh", "-c", &script], false);
    assert_eq!(
        printed, "/app\nmade.txt\n",
        "the host's folders are read-only"
    );
    assert!(!std::path::Path::new(&format!("/etc{probe}")).exists());
    assert_eq!(
        session
            .read("/logs/verifier/reward.txt")
            .unwrap()
            .as_deref(),
        Some(&b"0.5\n"[..])
    );
    assert_eq!(
        session.read("/app/made.txt").unwrap().as_deref(),
        Some(&b"made\n"[..])
    );
    assert_eq!(session.read(&probe).unwrap().as_deref(), Some(&b"p\n"[..]));
    assert!(
        !std::path::Path::new(&probe).exists(),
        "{probe} written on the host"
    );
    assert_eq!(host_task_paths(), before, "a command wrote on the host");
}

#[test]
fn verifier_network_follows_the_task() {
    let tmp = scratch();
    scenarios::verifier_network_follows_the_task(Backend::Local, tmp.path());
}

/// A run over a folder with tasks that cannot be run runs the others and lists the refused
/// ones, each with its one-line reason, in run.json.
#[test]
fn unusable_tasks_are_skipped_and_listed() {
    let tmp = scratch();
    let out = tmp.path().join("run");
    let mut o = options(Backend::Local, &out, "");
    o.tasks = fixture("harbor-tasks");
    let summary = skillgate::eval::evaluate(&o, fixture_skill()).unwrap();
    assert_eq!(summary.planned, 4, "2 runnable tasks × C0, C1");
    let mut tasks: Vec<String> = cells(&out).into_iter().map(|c| c.task).collect();
    tasks.dedup();
    assert_eq!(tasks, ["count-reward-txt", "low-stock-json"]);
    let info = skillgate::eval::journal::read_run_info(&out).unwrap();
    let refused: Vec<(&str, &str)> = info
        .tasks_refused
        .iter()
        .map(|r| (r.task.as_str(), r.reason.as_str()))
        .collect();
    assert_eq!(
        refused,
        [
            ("broken-config", "task.toml: unclosed table, expected `]`"),
            ("two-steps", "multi-step tasks (`steps`) are not supported"),
        ]
    );
}

/// The local backend runs every command as the user running skillgate: a task naming
/// another user is refused in one line naming the field, never run as the wrong user.
#[test]
fn a_task_user_is_refused_on_the_local_backend() {
    let tmp = scratch();
    let task = task_copy(tmp.path(), "remove-command", 30.0);
    edit(
        &task.join("task.toml"),
        "[verifier]\n",
        "[verifier]\nuser = \"tester\"\n",
    );
    let tasks = Task::load_all(&task).unwrap().tasks;
    let reason = LocalSandbox::default().refuses(&tasks[0]).unwrap();
    assert!(
        reason.starts_with("[verifier] user = \"tester\" is not supported on the local backend"),
        "{reason}"
    );
}

/// A cell has its own `/tmp`, so host files an agent command names there after its first
/// word (`sh /tmp/x/agent.sh --data=/tmp/x/data.txt`) are bound into the cell, read-only,
/// at their own paths; the agent reads them and cannot change them.
#[test]
fn host_paths_the_agent_command_names_resolve_in_the_cell() {
    let tmp = tempfile::tempdir_in("/tmp").unwrap();
    let agent_dir = tmp.path().join("agent");
    std::fs::create_dir_all(&agent_dir).unwrap();
    let data = agent_dir.join("data.txt");
    std::fs::write(&data, "hello from the host\n").unwrap();
    let body =
        "data=${1#--data=}\ncat \"$data\"\nif echo changed >> \"$data\"; then echo WRITABLE; fi\n";
    let agent = script(&agent_dir, "agent.sh", body);
    let task = task_copy(tmp.path(), "remove-command", 60.0);
    let out = tmp.path().join("run");
    let mut o = options(Backend::Local, &out, "");
    o.tasks = task;
    o.agent_cmd = Some(format!("sh {agent} --data={}", data.display()));
    o.conditions = vec![skillgate::eval::Condition::C0];
    skillgate::eval::evaluate(&o, fixture_skill()).unwrap();
    let logs = agent_logs(&out);
    let stderr = run_logs(&out, "attempt-1-agent.stderr");
    assert_eq!(logs.len(), 1, "{logs:?} {stderr:?}");
    assert_eq!(logs[0].1, "hello from the host\n", "{logs:?} {stderr:?}");
    assert_eq!(
        std::fs::read_to_string(&data).unwrap(),
        "hello from the host\n"
    );
    assert!(stderr[0].1.contains("Read-only file system"), "{stderr:?}");
}

#[test]
fn named_host_paths_are_words_or_option_values_that_exist() {
    let tmp = tempfile::tempdir_in("/tmp").unwrap();
    let file = tmp.path().join("agent.py");
    std::fs::write(&file, "").unwrap();
    let f = file.display();
    let command = format!(
        "python3 {f} --config='{f}' -x {}/missing /tmp/../etc relative.txt {f}",
        tmp.path().display()
    );
    assert_eq!(
        skillgate::eval::named_host_paths(&command),
        vec![file.clone()]
    );
    assert_eq!(
        skillgate::eval::named_host_paths(&format!("{f} run")),
        Vec::<std::path::PathBuf>::new(),
        "the first word is uploaded, not bound"
    );
}

/// Runs `argv` in a fresh cell of the `remove-command` task and returns the error or output.
fn in_cell(argv: &[&str]) -> Result<String, String> {
    let tmp = scratch();
    let task = task_copy(tmp.path(), "remove-command", 30.0);
    let tasks = Task::load_all(&task).unwrap().tasks;
    let sandbox = LocalSandbox::default();
    sandbox.prepare(&tasks).unwrap();
    let mut session = sandbox.open(&tasks[0], &Bundle::new()).unwrap();
    let spec = ExecSpec {
        argv: argv.iter().map(|a| (*a).to_owned()).collect(),
        env: Vec::new(),
        workdir: session.workdir(),
        timeout: Duration::from_secs(30),
        network: false,
        stdout: tmp.path().join("stdout"),
        stderr: tmp.path().join("stderr"),
        fresh_dirs: Vec::new(),
        user: None,
        host_paths: Vec::new(),
    };
    let ran = session.exec(&spec).map_err(|e| e.to_string())?;
    let out = std::fs::read_to_string(tmp.path().join("stdout")).unwrap();
    assert_eq!(ran.exit, Some(0), "{out}");
    Ok(out)
}

#[test]
fn a_cell_sees_and_signals_only_its_own_processes() {
    // A host process a task script would kill by name (`pkill -f`) or by number.
    let mut host = std::process::Command::new("sleep")
        .arg(format!("301.{}", std::process::id()))
        .spawn()
        .unwrap();
    let left = format!("302.{}", std::process::id());
    let script = format!(
        "echo \"self $$\"; echo \"parent $PPID\"; echo \"processes $(ls /proc | grep -c '^[0-9]')\"; \
         s=301; pkill -f \"sleep $s.{me}\"; kill -0 {host} 2>/dev/null && echo reached || echo unreachable; \
         sleep {left} & echo started",
        host = host.id(),
        me = std::process::id()
    );
    let out = in_cell(&["sh", "-c", &script]).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    // The command is PID 1's child in a namespace of its own; its /proc lists the cell's
    // processes only (PID 1, the shell, the command substitution's subshell, `ls`, `grep`).
    assert_eq!(&lines[..2], ["self 2", "parent 1"], "{out}");
    let count: usize = lines[2]
        .strip_prefix("processes ")
        .unwrap()
        .parse()
        .unwrap();
    assert!(count <= 5, "{out}");
    assert_eq!(&lines[3..], ["unreachable", "started"], "{out}");
    assert!(
        host.try_wait().unwrap().is_none(),
        "the host's process was killed"
    );
    // What the command left running ended with it.
    assert!(!sleeper_alive(&left), "sleep {left} outlived its command");
    host.kill().unwrap();
    host.wait().unwrap();
}

#[test]
fn a_program_the_cell_cannot_see_is_named_with_the_reason() {
    // A program under the host's /tmp (a virtualenv there): the cell has its own /tmp.
    let host_tmp = tempfile::Builder::new()
        .prefix("venv-")
        .tempdir_in("/tmp")
        .unwrap();
    let program = host_tmp.path().join("bin/claude");
    std::fs::create_dir_all(program.parent().unwrap()).unwrap();
    std::fs::write(&program, "#!/bin/sh\necho hi\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    let error = in_cell(&[program.to_str().unwrap()]).unwrap_err();
    for part in [
        program.to_str().unwrap(),
        "No such file or directory",
        "the cell has its own /tmp",
        "--agent-cmd",
    ] {
        assert!(error.contains(part), "{part:?} in {error}");
    }
    let error = in_cell(&["no-such-program-anywhere"]).unwrap_err();
    assert!(
        error.contains("/usr/bin/no-such-program-anywhere"),
        "{error}"
    );
}

#[test]
fn the_environment_files_and_variables_reach_the_cell() {
    // Shaped like public Harbor tasks: the Dockerfile copies the task's inputs into /app.
    let tmp = scratch();
    let task = task_copy(tmp.path(), "remove-command", 30.0);
    let env = task.join("environment");
    std::fs::create_dir_all(env.join("data")).unwrap();
    std::fs::write(
        env.join("Dockerfile"),
        "FROM python:3.12-slim\nWORKDIR /app\nCOPY --chown=1000:1000 problem.json /app/\n\
         COPY data/*.txt /data/\nENV MODE=fast\nRUN ./configure && make\n",
    )
    .unwrap();
    std::fs::write(env.join("problem.json"), "{\"n\": 3}\n").unwrap();
    std::fs::write(env.join("data/in.txt"), "input\n").unwrap();
    let tasks = Task::load_all(&task).unwrap().tasks;
    let sandbox = LocalSandbox::default();
    sandbox.prepare(&tasks).unwrap();
    assert_eq!(
        sandbox.environment_note(&tasks[0]).as_deref(),
        Some(
            "the local backend does not reproduce these environment/Dockerfile steps: \
             RUN ./configure && make"
        )
    );
    let mut session = sandbox.open(&tasks[0], &Bundle::new()).unwrap();
    let out = run(
        session.as_mut(),
        tmp.path(),
        &[
            "sh",
            "-c",
            "pwd; cat problem.json /data/in.txt; echo \"$MODE\"",
        ],
        false,
    );
    assert_eq!(out, "/app\n{\"n\": 3}\ninput\nfast\n");
}

/// The cache fingerprint holds the agent's version: for an `--agent-cmd` host file, its
/// hash. The same agent is served from the cache; a changed one runs again, and the run
/// and its verdict record the version.
#[test]
fn a_changed_agent_is_not_served_from_the_cache() {
    let tmp = scratch();
    let agent = script(tmp.path(), "agent.sh", "# release 1\nexit 0\n");
    let mut o = options(Backend::Local, &tmp.path().join("run-1"), "");
    o.tasks = task_copy(tmp.path(), "remove-command", 30.0);
    o.cache_dir = Some(tmp.path().join("cache"));
    o.conditions = vec![skillgate::eval::Condition::C0];
    o.agent_cmd = Some(agent.clone());
    let version_of = |run: &Path| {
        skillgate::eval::journal::read_run_info(run)
            .unwrap()
            .versions
            .get("agent")
            .cloned()
            .unwrap()
    };
    let first = skillgate::eval::evaluate(&o, fixture_skill()).unwrap();
    assert_eq!((first.ran, first.cached), (1, 0));
    o.out = tmp.path().join("run-2");
    let same = skillgate::eval::evaluate(&o, fixture_skill()).unwrap();
    assert_eq!((same.ran, same.cached), (0, 1), "the same agent is cached");
    std::fs::write(&agent, "#!/bin/sh\n# release 2\nexit 0\n").unwrap();
    o.out = tmp.path().join("run-3");
    let changed = skillgate::eval::evaluate(&o, fixture_skill()).unwrap();
    assert_eq!(
        (changed.ran, changed.cached),
        (1, 0),
        "a changed agent runs again"
    );
    let (v1, v3) = (version_of(&tmp.path().join("run-1")), version_of(&o.out));
    assert!(v1.starts_with("sha256:") && v1.len() == 7 + 16, "{v1}");
    assert_ne!(v1, v3);
    let policy = skillgate::assess::Policy {
        stats: &skillgate::stats::StatsOptions::default(),
        verdict: &skillgate::verdict::VerdictPolicy::default(),
    };
    let verdict = skillgate::assess::decide(&o.out, &[], policy).unwrap();
    assert_eq!(verdict.agent_version, Some(Some(v3)));
}

/// A program the agent command names by name (not a host file) is asked for its
/// `--version` where the cells run it; its first line is the version, and a program that
/// fails or prints nothing has none.
#[test]
fn the_agent_version_is_its_version_output() {
    use skillgate::eval::runner::AgentSetup;
    let tmp = scratch();
    let fake = script(
        tmp.path(),
        "fake-agent",
        "[ \"$1\" = --version ] && printf '\\n  2.1.7 (Claude Code)\\nmore\\n'\n",
    );
    let failing = script(tmp.path(), "failing", "echo 1.0; exit 3\n");
    let silent = script(tmp.path(), "silent", "exit 0\n");
    let sandbox = LocalSandbox::default();
    assert_eq!(
        sandbox.program_version(&fake).as_deref(),
        Some("2.1.7 (Claude Code)")
    );
    assert_eq!(sandbox.program_version(&failing), None);
    assert_eq!(sandbox.program_version(&silent), None);
    assert_eq!(sandbox.program_version("no-such-program-here"), None);
    let setup = |program: &str, host_program: Option<std::path::PathBuf>| AgentSetup {
        kind: skillgate::eval::agent::AgentKind::Command,
        program: program.to_owned(),
        host_program,
        host_paths: Vec::new(),
        model: None,
        models: Vec::new(),
        pass_env: Vec::new(),
        version: None,
    };
    // Found along PATH in the cell (as `fake-agent --flag`): its output.
    assert_eq!(
        skillgate::eval::agent_version(&setup(&format!("{fake} --flag"), None), &sandbox)
            .as_deref(),
        Some("2.1.7 (Claude Code)")
    );
    // Uploaded as a host file: its hash, never run.
    let hashed =
        skillgate::eval::agent_version(&setup(&fake, Some(fake.clone().into())), &sandbox).unwrap();
    assert!(hashed.starts_with("sha256:"), "{hashed}");
    assert_eq!(
        skillgate::eval::agent_version(&setup(&silent, None), &sandbox),
        None
    );
}

/// A `RUN` step that installs packages is checked on the host: what the host lacks makes
/// the task unproven on it, in one line naming the packages, and nothing runs; what it
/// has lets the proof run without a note, and a pin it has at another version with one;
/// any other `RUN` is noted as not reproduced and the proof still runs.
#[test]
fn run_steps_are_checked_on_the_host() {
    let tmp = scratch();
    let tasks = tmp.path().join("tasks");
    let base = task_copy(tmp.path(), "remove-command", 30.0);
    let with_dockerfile = |name: &str, dockerfile: &str| {
        let task = tasks.join(name);
        copy_dir(&base, &task);
        std::fs::create_dir_all(task.join("environment")).unwrap();
        std::fs::write(task.join("environment/Dockerfile"), dockerfile).unwrap();
    };
    with_dockerfile(
        "host-has-it",
        "FROM debian:12\nWORKDIR /app\nRUN apt-get update && apt-get install -y --no-install-recommends sh \\\n && rm -rf /var/lib/apt/lists/*\n",
    );
    with_dockerfile(
        "other-version",
        "FROM python:3.12\nWORKDIR /app\nRUN pip install pip==0.0.1\n",
    );
    let pip = std::process::Command::new("python3")
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('pip'))",
        ])
        .output()
        .unwrap();
    let pip = String::from_utf8_lossy(&pip.stdout).trim().to_owned();
    assert!(!pip.is_empty(), "the test host's python3 has pip");
    with_dockerfile(
        "host-lacks-it",
        "FROM python:3.12\nWORKDIR /app\nRUN apt-get update && apt-get install -y skillgate-no-such-tool\n\
         RUN pip install --no-cache-dir skillgate-no-such-dist==1.0\n",
    );
    with_dockerfile(
        "unknown-step",
        "FROM debian:12\nWORKDIR /app\nRUN curl -fsSL https://example.org/install.sh | sh\n",
    );
    let out = tasks_check_command(&tasks, "local").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            "ok       host-has-it".to_owned(),
            "problem  host-lacks-it: not proven on this host: environment/Dockerfile's RUN installs \
             what the host lacks (apt skillgate-no-such-tool, pip skillgate-no-such-dist==1.0), \
             and the local backend runs the host's programs; install them on the host or use \
             --backend docker"
                .to_owned(),
            format!(
                "note     other-version: the host has other versions than environment/Dockerfile's \
                 RUN pins: pip pip==0.0.1 (the host has {pip})"
            ),
            "ok       other-version".to_owned(),
            "note     unknown-step: the local backend does not reproduce these environment/Dockerfile \
             steps: RUN curl -fsSL https://example.org/install.sh | sh"
                .to_owned(),
            "ok       unknown-step".to_owned(),
            "4 tasks, 1 with problems".to_owned(),
        ],
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(1));
}

/// A `RUN` step that only makes files runs in the cell, in the Dockerfile's order among its
/// `COPY` steps, with the stage's `ARG` and `ENV` values and without network; one naming
/// the host's own folders is noted and not run; one that fails stops the cell with its
/// error.
#[test]
fn run_steps_that_make_files_run_in_the_cell() {
    let tmp = scratch();
    let task = task_copy(tmp.path(), "remove-command", 30.0);
    let env = task.join("environment");
    std::fs::create_dir_all(&env).unwrap();
    let dockerfile = |text: &str| std::fs::write(env.join("Dockerfile"), text).unwrap();
    dockerfile(
        "FROM debian:12\nARG N=3\nENV MODE=fast\n\
         RUN mkdir -p /app/data && printf \"1\\n2\\n$N\\n\" > /app/data/numbers.txt\n\
         WORKDIR /app\nCOPY problem.json /app/data/\n\
         RUN chmod 600 data/problem.json; echo \"$MODE\" >> data/numbers.txt && touch /tmp/made\n\
         RUN mkdir -p /etc/skillgate-test-step\n",
    );
    std::fs::write(env.join("problem.json"), "{\"n\": 3}\n").unwrap();
    let tasks = Task::load_all(&task).unwrap().tasks;
    let sandbox = LocalSandbox::default();
    sandbox.prepare(&tasks).unwrap();
    assert_eq!(
        sandbox.environment_note(&tasks[0]).as_deref(),
        Some(
            "the local backend does not reproduce these environment/Dockerfile steps: \
             RUN mkdir -p /etc/skillgate-test-step"
        )
    );
    let mut session = sandbox.open(&tasks[0], &Bundle::new()).unwrap();
    let out = run(
        session.as_mut(),
        tmp.path(),
        &[
            "sh",
            "-c",
            "cat data/numbers.txt; stat -c %a data/problem.json; ls /tmp/made",
        ],
        false,
    );
    assert_eq!(out, "1\n2\n3\nfast\n600\n/tmp/made\n");
    drop(session);
    assert!(!Path::new("/etc/skillgate-test-step").exists());
    dockerfile("FROM debian:12\nWORKDIR /app\nRUN cp /app/no-such-file /app/copy\n");
    let tasks = Task::load_all(&task).unwrap().tasks;
    let error = sandbox
        .open(&tasks[0], &Bundle::new())
        .err()
        .expect("a failing step stops the cell")
        .to_string();
    assert!(
        error.starts_with(
            "environment/Dockerfile's `RUN cp /app/no-such-file /app/copy` fails on the local \
             backend (exit 1): cp: "
        ),
        "{error}"
    );
}

/// `[environment] skills_dir` (where Harbor installs a task's own skills): `tasks check`
/// proves the oracle as it is and notes the field, since the proof injects no skill; `eval`
/// refuses the task in one line, since the condition decides which skill the agent sees.
#[test]
fn skills_dir_is_proved_by_tasks_check_and_refused_by_eval() {
    let tmp = scratch();
    let task = task_copy(tmp.path(), "remove-command", 30.0);
    edit(
        &task.join("task.toml"),
        "allow_internet = false",
        "allow_internet = false\nskills_dir = \"/root/.claude/skills\"",
    );
    let check = tasks_check_command(&task, "local").output().unwrap();
    let stdout = String::from_utf8_lossy(&check.stdout);
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            "note     remove-command: [environment] skills_dir = \"/root/.claude/skills\" is not \
             used: the oracle proof injects no skill, and eval refuses the task (the condition \
             decides which skill the agent sees)",
            "ok       remove-command",
            "1 task, 0 with problems",
        ],
        "stderr:\n{stderr}"
    );
    assert_eq!(check.status.code(), Some(0), "{stderr}");
    let eval = eval_command("local", &task, "")
        .arg("--out")
        .arg(tmp.path().join("run"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&eval.stderr);
    assert_ne!(eval.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "[environment] skills_dir = \"/root/.claude/skills\" is not supported by eval"
        ),
        "{stderr}"
    );
}

/// A cell's `/etc` is its own copy of the host's: a Harbor verifier that adds a user (as
/// real ones do before dropping to it) proves the task, and the host's `/etc` is untouched.
#[test]
fn a_verifier_that_adds_a_user_proves_and_leaves_the_host_etc_alone() {
    let tmp = scratch();
    let task = tmp.path().join("useradd-verifier");
    for dir in ["environment", "solution", "tests"] {
        std::fs::create_dir_all(task.join(dir)).unwrap();
    }
    let user = format!("sg{}", std::process::id());
    std::fs::write(
        task.join("task.toml"),
        "version = \"1.0\"\n\n[verifier]\ntimeout_sec = 60.0\n\n[agent]\ntimeout_sec = 60.0\n\n\
         [environment]\ncpus = 1\nmemory_mb = 512\nallow_internet = false\n",
    )
    .unwrap();
    std::fs::write(
        task.join("instruction.md"),
        "Write 42 into /app/answer.txt.\n",
    )
    .unwrap();
    std::fs::write(
        task.join("environment/Dockerfile"),
        "FROM debian:12\nWORKDIR /app\n",
    )
    .unwrap();
    std::fs::write(
        task.join("solution/solve.sh"),
        "#!/bin/bash\necho 42 > /app/answer.txt\n",
    )
    .unwrap();
    // Harbor's shape: add the restricted user once, then grade.
    std::fs::write(
        task.join("tests/test.sh"),
        format!(
            "#!/bin/bash\nexport PATH=\"$PATH:/usr/sbin:/sbin\"\nmkdir -p /logs/verifier\n\
             if ! id -u {user} >/dev/null 2>&1; then\n\
             \x20 if command -v useradd >/dev/null; then useradd -M -s /bin/false {user} || exit 3\n\
             \x20 else echo '{user}:x:4242:4242::/nonexistent:/bin/false' >> /etc/passwd || exit 3; fi\n\
             fi\n\
             grep -q '^{user}:' /etc/passwd || exit 4\n\
             if [ \"$(cat /app/answer.txt 2>/dev/null)\" = 42 ]; then echo 1 > /logs/verifier/reward.txt\n\
             else echo 0 > /logs/verifier/reward.txt; fi\n"
        ),
    )
    .unwrap();
    let etc = ["/etc/passwd", "/etc/group", "/etc/shadow", "/etc/gshadow"];
    let read = || etc.map(|p| std::fs::read(p).ok());
    let before = read();
    let out = tasks_check_command(&task, "local").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        ["ok       useradd-verifier", "1 task, 0 with problems"],
        "stderr:\n{stderr}"
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(read() == before, "the host's /etc changed");
    let host = std::fs::read_to_string("/etc/passwd").unwrap();
    assert!(
        !host.contains(&format!("{user}:")),
        "{user} added on the host"
    );
}

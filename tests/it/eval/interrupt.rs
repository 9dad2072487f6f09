//! SIGINT and SIGTERM in the middle of a cell, on both backends: `skillgate tasks check`
//! runs as a child on a task whose oracle sleeps, is signalled while the oracle runs, and
//! must leave no process, no mount and no container behind.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use skillgate::eval::run_id;
use skillgate::eval::sandbox::cgroup::Hierarchy;
use skillgate::eval::sandbox::docker::DockerSandbox;
use skillgate::eval::sandbox::local::stale_roots;

use super::support::*;

/// How long a cell may take to start, and its processes to go.
const PATIENCE: Duration = Duration::from_secs(60);
/// How long a second Ctrl-C may take to end the docker backend's run: killing a container
/// takes the engine a fraction of a second, and the removal is given half a second.
const SECOND_CTRL_C: Duration = Duration::from_secs(3);

/// A copy of `remove-command` whose oracle starts a background sleeper and then sleeps,
/// both as `sleep MARKER…` so the host can find them; `storage_mb` mounts the local
/// backend's tmpfs (as root). Returns the task and the two sleeps' arguments.
fn sleeping_oracle(dir: &Path, storage: bool) -> (PathBuf, [String; 2]) {
    let task = task_copy(dir, "remove-command", 30.0);
    let marker = format!("{}{}", std::process::id(), dir.to_string_lossy().len());
    let sleeps = [format!("41{marker}"), format!("42{marker}")];
    std::fs::write(
        task.join("solution/solve.sh"),
        format!("#!/bin/sh\nsleep {} &\nsleep {}\n", sleeps[0], sleeps[1]),
    )
    .unwrap();
    edit(
        &task.join("task.toml"),
        "[agent]\n",
        "[solution]\ntimeout_sec = 600.0\n\n[agent]\n",
    );
    if storage {
        edit(
            &task.join("task.toml"),
            "memory_mb = 256",
            "memory_mb = 256\nstorage_mb = 64",
        );
    }
    (task, sleeps)
}

/// Whether a live host process runs `sleep ARG`.
fn sleeping(arg: &str) -> bool {
    let wanted = format!("sleep\0{arg}\0");
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .any(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c.ends_with(wanted.as_bytes()))
                && std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                    stat.rsplit(')')
                        .next()
                        .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
                })
        })
}

/// Mount points (of this test's mount namespace, which the backend's storage tmpfs is
/// mounted in) whose path contains `part`.
fn mounts_containing(part: &str) -> Vec<String> {
    std::fs::read_to_string("/proc/self/mountinfo")
        .unwrap()
        .lines()
        .filter_map(|l| l.split(' ').nth(4))
        .filter(|m| m.contains(part))
        .map(str::to_owned)
        .collect()
}

/// `skillgate tasks check TASK` on `backend`, with its temporary files under `temp`.
fn check_command(backend: &str, task: &Path, temp: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_skillgate"));
    command
        .args(["tasks", "check"])
        .arg(task)
        .arg("--repo")
        .arg(fixture("repos/inventory"))
        .args(["--worktree", "--backend", backend])
        .env("TMPDIR", temp)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// [`check_command`], started.
fn start_check(backend: &str, task: &Path, temp: &Path) -> Child {
    check_command(backend, task, temp).spawn().unwrap()
}

/// Waits until both sleeps of the oracle run.
fn wait_for_oracle(child: &mut Child, sleeps: &[String; 2]) {
    let deadline = Instant::now() + PATIENCE;
    while !sleeps.iter().all(|s| sleeping(s)) {
        assert!(
            child.try_wait().unwrap().is_none(),
            "tasks check ended before its oracle ran"
        );
        assert!(Instant::now() < deadline, "the oracle did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends the signals to the child, `gap` apart, and returns its exit code.
fn signal(child: &mut Child, signals: &[&str], gap: Duration) -> Option<i32> {
    for (i, sig) in signals.iter().enumerate() {
        if i > 0 {
            std::thread::sleep(gap);
        }
        let sent = Command::new("kill")
            .arg(format!("-{sig}"))
            .arg(child.id().to_string())
            .status()
            .unwrap();
        assert!(sent.success());
    }
    child.wait().unwrap().code()
}

/// Asserts that no sleep of the oracle is left (SIGKILL is delivered asynchronously).
fn assert_no_sleeper(sleeps: &[String; 2]) {
    let deadline = Instant::now() + Duration::from_secs(5);
    for s in sleeps {
        while sleeping(s) {
            assert!(Instant::now() < deadline, "sleep {s} survived");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The local backend's cell roots of process `pid` under `temp`.
fn cell_roots(temp: &Path, pid: u32) -> Vec<PathBuf> {
    let prefix = format!("skillgate-cell-{pid}-");
    std::fs::read_dir(temp)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect()
}

/// The local backend, signalled once (SIGTERM, then separately SIGINT): the orderly
/// teardown kills the oracle, unmounts the storage tmpfs and removes the cell's root and
/// control group.
#[test]
fn local_one_signal_tears_the_cell_down() {
    for sig in ["TERM", "INT"] {
        let tmp = tempfile::tempdir().unwrap();
        let temp = tmp.path().join("tmp");
        std::fs::create_dir(&temp).unwrap();
        let (task, sleeps) = sleeping_oracle(&tmp.path().join(sig), true);
        let mut child = start_check("local", &task, &temp);
        wait_for_oracle(&mut child, &sleeps);
        let cell = format!("skillgate-cell-{}-", child.id());
        assert_eq!(
            mounts_containing(&cell).len(),
            1,
            "the storage tmpfs is mounted"
        );
        assert_eq!(
            signal(&mut child, &[sig], Duration::ZERO),
            Some(130),
            "SIG{sig}"
        );
        assert_no_sleeper(&sleeps);
        assert_eq!(mounts_containing(&cell), Vec::<String>::new(), "SIG{sig}");
        assert_eq!(
            cell_roots(&temp, child.id()),
            Vec::<PathBuf>::new(),
            "SIG{sig}"
        );
        let groups: Vec<_> = Hierarchy::detect()
            .unwrap()
            .stale_groups()
            .into_iter()
            .filter(|g| {
                g.to_string_lossy()
                    .contains(&format!("skillgate-{}-", child.id()))
            })
            .collect();
        assert!(groups.is_empty(), "SIG{sig}: groups left: {groups:?}");
    }
}

/// The local backend, Ctrl-C twice: the second exits at once from the signal handler, yet
/// kills the oracle's processes and detaches the storage tmpfs first. Only the cell's
/// (unmounted) root is left, for the next run to remove.
#[test]
fn local_second_ctrl_c_exits_at_once_and_still_kills_and_unmounts() {
    let tmp = tempfile::tempdir().unwrap();
    let temp = tmp.path().join("tmp");
    std::fs::create_dir(&temp).unwrap();
    let (task, sleeps) = sleeping_oracle(tmp.path(), true);
    let mut child = start_check("local", &task, &temp);
    wait_for_oracle(&mut child, &sleeps);
    let cell = format!("skillgate-cell-{}-", child.id());
    assert_eq!(
        mounts_containing(&cell).len(),
        1,
        "the storage tmpfs is mounted"
    );
    let code = signal(&mut child, &["INT", "INT"], Duration::from_millis(2));
    assert_eq!(code, Some(130));
    assert_no_sleeper(&sleeps);
    assert_eq!(mounts_containing(&cell), Vec::<String>::new());
    // The root is still there: the second Ctrl-C, not the orderly teardown, ended the run.
    let roots = cell_roots(&temp, child.id());
    assert_eq!(roots.len(), 1, "{roots:?}");
    // The next run removes it: its process is gone.
    assert_eq!(stale_roots(&temp), roots);
}

/// The `tasks check` folder the child made under `temp`, once it exists: its path names the
/// run whose label its containers carry.
fn check_run_id(child: &mut Child, temp: &Path) -> String {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let made: Vec<PathBuf> = std::fs::read_dir(temp)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        if let [logs] = made.as_slice() {
            return run_id(logs);
        }
        assert!(child.try_wait().unwrap().is_none(), "tasks check ended");
        assert!(Instant::now() < deadline, "tasks check made no folder");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The docker backend, signalled once (SIGTERM, then separately SIGINT): the cell's
/// container is removed, with the oracle's processes, before the process exits.
#[test]
fn docker_signals_remove_the_cell_container() {
    docker("image-setup");
    for signals in [&["TERM"][..], &["INT"][..]] {
        let tmp = tempfile::tempdir().unwrap();
        let temp = tmp.path().join("tmp");
        std::fs::create_dir(&temp).unwrap();
        let (task, sleeps) = sleeping_oracle(tmp.path(), false);
        let mut child = start_check("docker", &task, &temp);
        let run = check_run_id(&mut child, &temp);
        wait_for_oracle(&mut child, &sleeps);
        let sandbox = docker(&run);
        assert!(
            !leftover_containers(&sandbox).is_empty(),
            "the cell's container is labelled with the run"
        );
        let code = signal(&mut child, signals, Duration::from_millis(2));
        assert_eq!(code, Some(130), "{signals:?}");
        assert_eq!(
            leftover_containers(&sandbox),
            Vec::<String>::new(),
            "{signals:?}"
        );
        assert_no_sleeper(&sleeps);
    }
}

/// Removes a run's containers when dropped, so a failing test leaves none behind.
struct RunContainers<'a>(&'a DockerSandbox);

impl RunContainers<'_> {
    /// The run's containers that are running, as the engine says.
    fn running(&self) -> Vec<String> {
        let docker = self.0.client().clone();
        leftover_containers(self.0)
            .into_iter()
            .filter(|id| {
                self.0
                    .block_on(docker.inspect_container(id, None))
                    .ok()
                    .and_then(|c| c.state?.running)
                    .unwrap_or(false)
            })
            .collect()
    }
}

impl Drop for RunContainers<'_> {
    fn drop(&mut self) {
        let docker = self.0.client().clone();
        let options = bollard::query_parameters::RemoveContainerOptionsBuilder::default()
            .force(true)
            .build();
        for id in self.0.run_containers().unwrap_or_default() {
            let _ = self
                .0
                .block_on(docker.remove_container(&id, Some(options.clone())));
        }
    }
}

/// The docker backend, Ctrl-C twice in quick succession: the second cuts the orderly
/// removal short, kills every container of the run at once and exits; no container of the
/// run is left running, and none of the oracle's processes.
#[test]
fn docker_second_ctrl_c_exits_at_once_and_still_kills_the_containers() {
    docker("image-setup");
    let tmp = tempfile::tempdir().unwrap();
    let temp = tmp.path().join("tmp");
    std::fs::create_dir(&temp).unwrap();
    let (task, sleeps) = sleeping_oracle(tmp.path(), false);
    let said = tmp.path().join("stderr");
    let mut child = check_command("docker", &task, &temp)
        .stderr(std::fs::File::create(&said).unwrap())
        .spawn()
        .unwrap();
    let run = check_run_id(&mut child, &temp);
    wait_for_oracle(&mut child, &sleeps);
    let sandbox = docker(&run);
    let containers = RunContainers(&sandbox);
    assert!(
        !containers.running().is_empty(),
        "the cell's container runs, labelled with the run"
    );
    let sent = Instant::now();
    let code = signal(&mut child, &["INT", "INT"], Duration::from_millis(2));
    let took = sent.elapsed();
    let said = std::fs::read_to_string(&said).unwrap();
    assert_eq!(code, Some(130), "{said}");
    // The second Ctrl-C, not the orderly removal, ended the run.
    assert!(
        said.contains("interrupted again: killed ") && !said.contains("killed 0 "),
        "{said}"
    );
    assert!(!said.contains("interrupted: removed"), "{said}");
    assert!(took < SECOND_CTRL_C, "{took:?}: {said}");
    assert_eq!(containers.running(), Vec::<String>::new(), "{said}");
    assert_no_sleeper(&sleeps);
}

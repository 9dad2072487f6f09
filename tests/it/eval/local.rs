//! Every scenario on the `local` backend.

use skillgate::eval::args::Backend;
use skillgate::eval::sandbox::local::LocalSandbox;

use super::scenarios;

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
fn inject() {
    let tmp = scratch();
    scenarios::inject(Backend::Local, &tmp.path().join("run"));
}

#[test]
fn timeout_kills_the_process_group() {
    let tmp = scratch();
    let pid = scenarios::timeout(Backend::Local, &tmp.path().join("run"), tmp.path());
    // SIGKILL is delivered asynchronously and the orphan is reaped by init: allow a moment.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while alive(pid) {
        assert!(
            std::time::Instant::now() < deadline,
            "background process {pid} survived"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
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
fn pid_limit() {
    let tmp = scratch();
    scenarios::pid_limit(Backend::Local, tmp.path());
}

#[test]
fn verifier_offline() {
    let tmp = scratch();
    scenarios::verifier_offline(Backend::Local, tmp.path());
}

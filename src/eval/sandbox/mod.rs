//! Sandboxes run a cell's agent and verifier in isolation: `docker` (a container per cell)
//! or `local` (a temporary copy of the repository and a process group).
//!
//! Paths given to a [`Session`] are the sandbox's own: the backend maps the fixed layout
//! (workspace, `/tests`, `/logs`, `/skillgate`) onto real locations.

pub mod cgroup;
pub mod docker;
pub mod dockerfile;
pub mod error;
pub mod init;
pub mod installs;
pub mod local;
pub mod mounts;
pub mod signals;
pub mod teardown;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::eval::EvalError;
use crate::eval::task::{Refusal, Task};
pub use error::SandboxError;

/// Where the cell's own files (instruction, usage, feedback, agent program) live.
pub const CONTROL_DIR: &str = "/skillgate";
/// Where the task's tests are copied after the agent stops.
pub const TESTS_DIR: &str = "/tests";
/// Where the solution is copied when proving a task discriminates.
pub const SOLUTION_DIR: &str = "/solution";
/// The verifier's log directory (`reward.txt` goes here).
pub const VERIFIER_LOGS_DIR: &str = "/logs/verifier";

/// Processes (and threads) a cell may have at once on either backend: enough for an agent
/// and a test suite, not for a fork bomb.
pub const PIDS_LIMIT: u64 = 1024;

/// A failure inside one cell: recorded as an `error` outcome and retried, never fatal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CellError(pub String);

impl CellError {
    /// An error with context, e.g. `CellError::new("uploading tests", e)`.
    pub fn new(action: &str, cause: impl std::fmt::Display) -> Self {
        Self(format!("{action}: {cause}"))
    }
}

/// One command to run in a session.
#[derive(Debug, Clone)]
pub struct ExecSpec {
    /// Program and arguments.
    pub argv: Vec<String>,
    /// The complete environment beyond the sandbox's minimal one.
    pub env: Vec<(String, String)>,
    /// Working directory (a session path).
    pub workdir: String,
    /// Wall-clock limit; the whole process tree is killed when it runs out.
    pub timeout: Duration,
    /// Whether the command may use the network.
    pub network: bool,
    /// Host file receiving standard output.
    pub stdout: PathBuf,
    /// Host file receiving standard error.
    pub stderr: PathBuf,
    /// Session folders emptied (and created) right before the command starts.
    pub fresh_dirs: Vec<String>,
    /// The user to run as (name or uid); the sandbox's default user when `None`.
    pub user: Option<String>,
    /// Host files or folders the command names, shown read-only at their own paths where
    /// the cell's folders would hide them (the local backend's `/tmp`...). The docker
    /// backend copies them into the container at the same paths, once per cell, without
    /// write permission.
    pub host_paths: Vec<PathBuf>,
}

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecResult {
    /// Exit code; `None` when it was killed by a signal.
    pub exit: Option<i32>,
    /// Whether the time limit killed it.
    pub timed_out: bool,
    /// Whether the kernel killed a process of it for lack of memory.
    pub oom_killed: bool,
    /// Whether the cell's files filled the task's storage limit (`[environment] storage`).
    pub storage_full: bool,
}

/// A sandbox backend.
pub trait Sandbox: Send + Sync {
    /// `docker` or `local`, for `run.json`.
    fn name(&self) -> &'static str;

    /// Everything that can fail for all cells alike (daemon unreachable, no shell, no
    /// namespaces), checked once before any cell runs; an error stops the run. What fails
    /// for one task only (its image cannot be pulled or built, the agent cannot be
    /// installed in it) refuses that task: it is returned with its one-line reason, and
    /// the other tasks are still prepared.
    fn prepare(&self, tasks: &[Task]) -> Result<Vec<Refusal>, EvalError>;

    /// A fresh sandbox for one cell of `task`, holding `workspace` at its workspace root.
    /// The sandbox is torn down when the session is dropped, on every path.
    fn open(&self, task: &Task, workspace: &Bundle) -> Result<Box<dyn Session + '_>, CellError>;

    /// Why this backend cannot run `task` as its settings say, in one line naming the
    /// field; `None` when it can.
    fn refuses(&self, _task: &Task) -> Option<String> {
        None
    }

    /// Why this backend runs `task` without enforcing its `[environment] storage` (one
    /// line), when it does; the cells record it and the report says so.
    fn storage_not_enforced(&self, _task: &Task) -> Option<String> {
        None
    }

    /// What of the task's `environment/Dockerfile` this backend does not reproduce (one
    /// line), when something is not; the cells record it and `tasks check` says it.
    fn environment_note(&self, _task: &Task) -> Option<String> {
        None
    }

    /// The first line `program --version` prints where the cells run it (on the host,
    /// or in the first prepared task's image), when it exits 0 within
    /// [`VERSION_TIMEOUT`] and prints one; `None` otherwise.
    fn program_version(&self, program: &str) -> Option<String> {
        host_version(program)
    }

    /// Whether the run was interrupted (Ctrl-C): cells that ended after it are not results.
    fn interrupted(&self) -> bool {
        false
    }

    /// Called once an interrupted run has stopped its workers: a backend whose interrupt
    /// handler cleans up and ends the process waits for it here.
    fn after_interrupt(&self) {}
}

/// A running sandbox for one cell.
pub trait Session {
    /// The workspace root, as commands see it.
    fn workdir(&self) -> String;

    /// A fixed-layout path (e.g. [`TESTS_DIR`]) as commands see it.
    fn path(&self, fixed: &str) -> String;

    /// Writes the bundle's files under `dest` (a session path).
    fn upload(&mut self, dest: &str, bundle: &Bundle) -> Result<(), CellError>;

    /// Runs a command to completion or to its time limit.
    fn exec(&mut self, spec: &ExecSpec) -> Result<ExecResult, CellError>;

    /// Reads a file; `None` when it does not exist.
    fn read(&mut self, path: &str) -> Result<Option<Vec<u8>>, CellError>;

    /// Removes files or directory trees (missing ones are fine), in one step.
    fn remove(&mut self, paths: &[&str]) -> Result<(), CellError>;

    /// Skills the environment held in an agent's skill folder ([`AGENT_SKILL_DIRS`]),
    /// removed when the session opened.
    fn removed_skills(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Where agents look for skills outside the workspace (their user-level folders). A task's
/// image may ship skills there (benchmarks copy theirs in); they are removed in every cell,
/// so that the only skill an agent finds is the one its condition places.
pub const AGENT_SKILL_DIRS: [&str; 8] = [
    "$HOME/.claude/skills",
    "/root/.claude/skills",
    "$HOME/.agents/skills",
    "/root/.agents/skills",
    "$HOME/.codex/skills",
    "/root/.codex/skills",
    "/etc/claude-code/skills",
    "/etc/codex/skills",
];

/// A shell script printing, then removing, every entry of [`AGENT_SKILL_DIRS`].
pub fn remove_skills_script() -> String {
    let dirs: Vec<String> = AGENT_SKILL_DIRS
        .iter()
        .map(|d| format!("\"{d}\""))
        .collect();
    format!(
        "for d in {}; do [ -d \"$d\" ] || continue; for s in \"$d\"/* \"$d\"/.[!.]*; do \
         [ -e \"$s\" ] || continue; echo \"$s\"; rm -rf \"$s\" || exit 97; done; done",
        dirs.join(" ")
    )
}

/// The contents of one bundled file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Contents {
    /// Read from this host file when the bundle is written.
    File(PathBuf),
    /// These bytes.
    Bytes(Vec<u8>),
}

/// One file of a bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Relative path with `/` separators.
    pub path: String,
    /// What the file holds.
    pub contents: Contents,
    /// Whether it is executable.
    pub executable: bool,
}

/// A set of files to place in a sandbox: the workspace, the tests, the instruction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bundle {
    entries: Vec<Entry>,
}

impl Bundle {
    /// An empty bundle.
    pub fn new() -> Self {
        Self::default()
    }

    /// The files, in insertion order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Adds a file from bytes.
    pub fn add_bytes(&mut self, path: &str, bytes: impl Into<Vec<u8>>, executable: bool) {
        self.entries.push(Entry {
            path: path.trim_start_matches('/').to_owned(),
            contents: Contents::Bytes(bytes.into()),
            executable,
        });
    }

    /// Adds every regular file under `dir`, placed under `prefix`. Links are not followed,
    /// so a skill or task cannot pull in files from outside its folder.
    pub fn add_dir(&mut self, prefix: &str, dir: &Path) -> Result<(), EvalError> {
        let walker = ignore::WalkBuilder::new(dir)
            .standard_filters(false)
            .follow_links(false)
            .sort_by_file_name(std::ffi::OsStr::cmp)
            .build();
        for entry in walker {
            let entry =
                entry.map_err(|e| EvalError::io("reading", dir, std::io::Error::other(e)))?;
            self.add_walked(prefix, dir, entry.path())?;
        }
        Ok(())
    }

    /// Adds the repository's working tree with `.gitignore` respected (and `.git` left out).
    pub fn add_worktree(&mut self, dir: &Path) -> Result<(), EvalError> {
        let walker = ignore::WalkBuilder::new(dir)
            .hidden(false)
            .require_git(false)
            .follow_links(false)
            .filter_entry(|e| e.file_name() != ".git")
            .sort_by_file_name(std::ffi::OsStr::cmp)
            .build();
        for entry in walker {
            let entry =
                entry.map_err(|e| EvalError::io("reading", dir, std::io::Error::other(e)))?;
            self.add_walked("", dir, entry.path())?;
        }
        Ok(())
    }

    /// Adds the files tracked at `HEAD` of the git repository in `dir` (via `git archive`).
    pub fn add_git_head(&mut self, dir: &Path) -> Result<(), EvalError> {
        let prefix = git(dir, &["rev-parse", "--show-prefix"])?;
        let tree = format!("HEAD:{}", String::from_utf8_lossy(&prefix).trim());
        let tar = git(dir, &["archive", "--format=tar", &tree])?;
        let mut archive = tar::Archive::new(tar.as_slice());
        let entries = archive
            .entries()
            .map_err(|e| EvalError::io("reading git archive of", dir, e))?;
        for entry in entries {
            let mut entry = entry.map_err(|e| EvalError::io("reading git archive of", dir, e))?;
            if !entry.header().entry_type().is_file() {
                continue;
            }
            let path = entry
                .path()
                .map_err(|e| EvalError::io("reading git archive of", dir, e))?;
            let path = path.to_string_lossy().into_owned();
            let executable = entry.header().mode().is_ok_and(|m| m & 0o111 != 0);
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut entry, &mut bytes)
                .map_err(|e| EvalError::io("reading git archive of", dir, e))?;
            self.add_bytes(&path, bytes, executable);
        }
        Ok(())
    }

    fn add_walked(&mut self, prefix: &str, root: &Path, path: &Path) -> Result<(), EvalError> {
        let meta =
            std::fs::symlink_metadata(path).map_err(|e| EvalError::io("reading", path, e))?;
        if !meta.is_file() {
            return Ok(());
        }
        let Ok(rel) = path.strip_prefix(root) else {
            return Ok(());
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        let full = if prefix.is_empty() {
            rel
        } else {
            format!("{}/{rel}", prefix.trim_end_matches('/'))
        };
        self.entries.push(Entry {
            path: full,
            contents: Contents::File(path.to_owned()),
            executable: is_executable(&meta),
        });
        Ok(())
    }

    /// sha256 over paths, modes and contents, for the outcome cache.
    pub fn sha256(&self) -> Result<String, EvalError> {
        let mut all = Vec::new();
        let mut sorted: Vec<&Entry> = self.entries.iter().collect();
        sorted.sort_by(|a, b| a.path.cmp(&b.path));
        for e in sorted {
            let bytes = e.read()?;
            all.extend_from_slice(
                format!(
                    "{}\0{}\0{}\n",
                    e.path,
                    e.executable,
                    crate::eval::sha256_hex(&bytes)
                )
                .as_bytes(),
            );
        }
        Ok(crate::eval::sha256_hex(&all))
    }

    /// Writes every file under `root` on the host.
    pub fn write_into(&self, root: &Path) -> Result<(), EvalError> {
        for e in &self.entries {
            let dest = root.join(&e.path);
            if let Some(parent) = dest.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|err| EvalError::io("creating", parent, err))?;
            }
            match &e.contents {
                Contents::File(src) => std::fs::copy(src, &dest).map(drop),
                Contents::Bytes(bytes) => std::fs::write(&dest, bytes),
            }
            .map_err(|err| EvalError::io("writing", &dest, err))?;
            set_mode(&dest, if e.executable { 0o755 } else { 0o644 })?;
        }
        Ok(())
    }

    /// The bundle as an uncompressed tar archive (for the docker upload).
    pub fn to_tar(&self) -> Result<Vec<u8>, EvalError> {
        let mut builder = tar::Builder::new(Vec::new());
        for e in &self.entries {
            let bytes = e.read()?;
            let mut header = tar::Header::new_gnu();
            header.set_size(bytes.len() as u64);
            header.set_mode(if e.executable { 0o755 } else { 0o644 });
            header.set_mtime(0);
            header.set_entry_type(tar::EntryType::Regular);
            builder
                .append_data(&mut header, &e.path, bytes.as_slice())
                .map_err(|err| EvalError::io("archiving", &e.path, err))?;
        }
        builder
            .into_inner()
            .map_err(|err| EvalError::io("archiving", "bundle", err))
    }
}

impl Entry {
    /// The file's bytes.
    pub fn read(&self) -> Result<Vec<u8>, EvalError> {
        match &self.contents {
            Contents::File(p) => std::fs::read(p).map_err(|e| EvalError::io("reading", p, e)),
            Contents::Bytes(b) => Ok(b.clone()),
        }
    }
}

fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, EvalError> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| EvalError::io("running git in", dir, e))?;
    if !out.status.success() {
        return Err(EvalError::NotARepository {
            path: dir.to_owned(),
            detail: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        });
    }
    Ok(out.stdout)
}

#[cfg(unix)]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &std::fs::Metadata) -> bool {
    false
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> Result<(), EvalError> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| EvalError::io("setting mode of", path, e))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> Result<(), EvalError> {
    Ok(())
}

/// Keeps at most `limit` bytes of a log for feedback, cutting from the front: the end of a
/// verifier's output usually says what failed.
pub fn tail(bytes: &[u8], limit: usize) -> String {
    let start = bytes.len().saturating_sub(limit);
    String::from_utf8_lossy(&bytes[start..]).into_owned()
}

/// How long `--version` may take.
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// `program --version` run on the host: its first line (see [`version_line`]), when it
/// exits 0 within [`VERSION_TIMEOUT`].
pub fn host_version(program: &str) -> Option<String> {
    let mut child = std::process::Command::new(program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let deadline = std::time::Instant::now() + VERSION_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let out = child.wait_with_output().ok()?;
    if !out.status.success() {
        return None;
    }
    version_line(&out.stdout)
}

/// The first non-empty line of a `--version` output, trimmed and cut at [`LINE_LIMIT`]
/// characters; `None` when there is none.
pub fn version_line(stdout: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stdout);
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(one_line(line))
}

/// Longest reason [`one_line`] keeps, in characters.
const LINE_LIMIT: usize = 300;

/// A message as one line for a task's refusal: its first line, and its last non-empty
/// line too when it has several (a build log ends with what failed), with runs of
/// whitespace made one space and cut at [`LINE_LIMIT`] characters.
pub fn one_line(message: &str) -> String {
    let lines: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let joined = match lines.as_slice() {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [first, .., last] => format!("{first} ... {last}"),
    };
    let squeezed = joined.split_whitespace().collect::<Vec<_>>().join(" ");
    match squeezed.char_indices().nth(LINE_LIMIT) {
        Some((at, _)) => format!("{}...", &squeezed[..at]),
        None => squeezed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundle_round_trips_through_tar_and_disk() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        std::fs::create_dir_all(src.join("sub")).unwrap();
        std::fs::write(src.join("sub/a.txt"), "a").unwrap();
        std::fs::write(src.join(".gitignore"), "ignored.txt\n").unwrap();
        std::fs::write(src.join("ignored.txt"), "x").unwrap();
        let mut b = Bundle::new();
        b.add_worktree(&src).unwrap();
        let paths: Vec<_> = b.entries().iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, vec![".gitignore", "sub/a.txt"]);
        b.add_bytes("run.sh", "echo", true);
        let out = tmp.path().join("out");
        b.write_into(&out).unwrap();
        assert_eq!(std::fs::read_to_string(out.join("sub/a.txt")).unwrap(), "a");
        let tar = b.to_tar().unwrap();
        let mut archive = tar::Archive::new(tar.as_slice());
        assert_eq!(archive.entries().unwrap().count(), 3);
    }

    #[test]
    fn a_message_becomes_one_short_line() {
        assert_eq!(one_line("  pull  failed \n"), "pull failed");
        assert_eq!(
            one_line("Step 1/2 : FROM x\n\n ---> abc\nmanifest for x not found\n"),
            "Step 1/2 : FROM x ... manifest for x not found"
        );
        let long = one_line(&"a".repeat(LINE_LIMIT + 10));
        assert_eq!(long.chars().count(), LINE_LIMIT + 3);
        assert!(long.ends_with("..."));
        assert_eq!(one_line(""), "");
    }
}

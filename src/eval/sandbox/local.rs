//! The `local` backend: a temporary directory holding a cell's folders (workspace, `tests/`,
//! `logs/`, `solution/`, `skillgate/`, `tmp/`, and `etc/`, a copy of the host's), each
//! command in a process group, a control group and a mount namespace of its own. The mount
//! namespace shows the cell's folders at the paths tasks use (`/app` or the task's workdir,
//! `/tests`, `/logs`, `/solution`, `/skillgate`, `/tmp`, `/etc`) over the host's other
//! top-level folders, read-only (see [`mounts`]), so nothing a task does touches the host's
//! files while the host's programs stay visible. The control
//! group carries the task's CPU and memory limits and the pid limit a container gets, and
//! reaches every process the command started; commands that may not use the network run in
//! a network namespace of their own holding only a loopback interface, as under Docker's
//! `none` network. For machines without Docker.
//!
//! [`mounts`]: crate::eval::sandbox::mounts

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock, mpsc};
use std::time::{Duration, Instant};

use nix::libc;
use nix::sched::CloneFlags;
use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, killpg, sigaction};
use nix::unistd::Pid;

use crate::eval::EvalError;
use crate::eval::sandbox::cgroup::{Group, Hierarchy, Limits};
use crate::eval::sandbox::dockerfile::{Placed, Recipe, top};
use crate::eval::sandbox::error::{CgroupError, SandboxError};
use crate::eval::sandbox::init::{Failure, Launch, Report, report_pipe};
use crate::eval::sandbox::installs;
use crate::eval::sandbox::mounts::{Layout, View, copy_host_etc};
use crate::eval::sandbox::teardown;
use crate::eval::sandbox::{Bundle, CellError, ExecResult, ExecSpec, PIDS_LIMIT, Sandbox, Session};
use crate::eval::task::{Refusal, Task};

/// The workspace directory inside a session's root, and its sandbox path unless the task
/// names another.
const WORKSPACE: &str = "/app";
/// The cell's own folders: inside the session's root, and at the same sandbox path.
const CELL_DIRS: [&str; 5] = ["/tests", "/logs", "/solution", "/skillgate", "/tmp"];
/// The cell's own copy of the host's `/etc`, writable (a verifier may add a user), shown at
/// the same path.
const ETC: &str = "/etc";
/// `HOME` of every command (under the cell's control folder).
const HOME: &str = "/skillgate/home";
/// Temporary roots are named `skillgate-cell-PID-…`, so a later run can remove those of a
/// killed one.
const CELL_PREFIX: &str = "skillgate-cell-";
/// The longest a `RUN` step that only makes files may take.
const STEP_TIMEOUT: Duration = Duration::from_secs(120);
/// How often a running command checks for an interruption.
const POLL: Duration = Duration::from_millis(50);

/// Set by the first Ctrl-C (or SIGTERM): running commands are killed, no cell starts.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The local backend.
#[derive(Debug, Default)]
pub struct LocalSandbox {
    /// Where temporary roots are made (the system temp dir when `None`).
    pub temp_root: Option<PathBuf>,
    /// Where control groups are made, once [`Sandbox::prepare`] has found a place.
    cgroups: OnceLock<Hierarchy>,
    /// What the host makes of each task's `RUN` installs, by task folder (asked once).
    host_checks: Mutex<HashMap<PathBuf, installs::HostCheck>>,
}

impl Sandbox for LocalSandbox {
    fn name(&self) -> &'static str {
        "local"
    }

    fn prepare(&self, _tasks: &[Task]) -> Result<Vec<Refusal>, EvalError> {
        // The protocol needs a POSIX shell; nothing else is assumed.
        match Command::new("sh").arg("-c").arg("exit 0").status() {
            Ok(s) if s.success() => {}
            Ok(s) => return Err(SandboxError::ShellFails(s).into()),
            Err(e) => return Err(SandboxError::NoShell(e).into()),
        }
        let hierarchy = Hierarchy::detect().map_err(cannot_limit)?;
        let probe = Limits {
            cpus: Some(1.0),
            memory_mb: Some(64),
            pids: 16,
        };
        drop(Group::create(&hierarchy, &probe).map_err(cannot_limit)?);
        probe_network_isolation()?;
        catch_interrupts()?;
        // What a run killed with `kill -9` left: its groups (and anything still in them) and
        // its temporary roots.
        hierarchy.sweep_stale();
        for dir in stale_roots(&self.temp_root()) {
            // A killed run's cell may still have its storage tmpfs mounted.
            let _ = nix::mount::umount2(&dir, nix::mount::MntFlags::MNT_DETACH);
            let _ = std::fs::remove_dir_all(dir);
        }
        let _ = self.cgroups.set(hierarchy);
        Ok(Vec::new())
    }

    fn open(&self, task: &Task, workspace: &Bundle) -> Result<Box<dyn Session + '_>, CellError> {
        let cgroups = self
            .cgroups
            .get()
            .ok_or_else(|| CellError("the local backend was not prepared".into()))?;
        let root = tempfile::Builder::new()
            .prefix(&format!("{CELL_PREFIX}{}-", std::process::id()))
            .tempdir_in(self.temp_root())
            .map_err(|e| CellError::new("creating a temporary workspace", e))?;
        let storage = match task.settings.storage_mb {
            Some(mb) => Some(
                Storage::mount(root.path(), mb)
                    .map_err(|e| CellError::new("mounting the cell's size-limited tmpfs", e))?,
            ),
            None => None,
        };
        let recipe = environment(task).ok().flatten().unwrap_or_default();
        let workdir = workdir(task, &recipe);
        let shown = |t: &str| {
            top(&workdir).as_deref() == Some(t)
                || CELL_DIRS.iter().any(|d| top(d).as_deref() == Some(t))
        };
        let mut session = LocalSession {
            storage,
            root,
            own_tops: recipe.own_tops(shown),
            workdir,
            env: recipe.env.clone(),
            cgroups,
            limits: Limits {
                cpus: task.config.environment.cpus,
                memory_mb: task.settings.memory_mb,
                pids: PIDS_LIMIT,
            },
        };
        for dir in [
            "skillgate/home",
            "tmp",
            "logs/agent",
            "logs/verifier",
            "rootfs",
        ] {
            std::fs::create_dir_all(session.root.path().join(dir))
                .map_err(|e| CellError::new("creating the layout", e))?;
        }
        copy_host_etc(&session.real(ETC))
            .map_err(|e| CellError::new("copying the host's /etc into the cell", e))?;
        // The image's files first, then the repository over them, as on Docker.
        for (n, placed) in recipe.files.iter().enumerate() {
            let dest = session.real(placed.to());
            if let Placed::Run { .. } = placed {
                session.run_step(placed, n)?;
                continue;
            }
            if let Some(parent) = dest.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| CellError::new("creating the environment's folders", e))?;
            }
            match placed {
                Placed::File { from, .. } => std::fs::copy(from, &dest).map(drop),
                Placed::Text { text, .. } => std::fs::write(&dest, text),
                Placed::Run { .. } => Ok(()),
            }
            .map_err(|e| CellError::new(&format!("placing {}", placed.to()), e))?;
        }
        session.upload(WORKSPACE, workspace)?;
        Ok(Box::new(session))
    }

    fn interrupted(&self) -> bool {
        INTERRUPTED.load(Ordering::SeqCst)
    }

    fn refuses(&self, task: &Task) -> Option<String> {
        [("agent", task.settings.agent_user.as_ref()), ("verifier", task.settings.verifier_user.as_ref())]
            .into_iter()
            .find_map(|(table, user)| {
                user.map(|u| format!("[{table}] user = \"{u}\" is not supported on the local backend (commands run as the user running skillgate); use --backend docker"))
            })
            .or_else(|| {
                // SAFETY: `geteuid` cannot fail and touches no memory.
                let root = unsafe { libc::geteuid() } == 0;
                task.settings.storage_mb.filter(|_| !root).map(|mb| {
                    format!("[environment] storage ({mb} MB) is enforced on the local backend by a size-limited tmpfs holding the cell's files, which only root can mount; run skillgate as root or use --backend docker")
                })
            })
            .or_else(|| {
                let lacking = self.host_check(task).missing;
                (!lacking.is_empty()).then(|| {
                    format!(
                        "not proven on this host: environment/Dockerfile's RUN installs what the host lacks ({}), and the local backend runs the host's programs; install them on the host or use --backend docker",
                        lacking.join(", ")
                    )
                })
            })
    }

    fn environment_note(&self, task: &Task) -> Option<String> {
        let note = match environment(task) {
            Ok(recipe) => recipe.and_then(|r| r.note()),
            Err(e) => Some(format!(
                "environment/Dockerfile is not reproduced on the local backend: {e}"
            )),
        };
        let versions = self.host_check(task).other_versions;
        if versions.is_empty() {
            return note;
        }
        let differs = format!(
            "the host has other versions than environment/Dockerfile's RUN pins: {}",
            versions.join(", ")
        );
        Some(match note {
            Some(note) => format!("{note}; {differs}"),
            None => differs,
        })
    }
}

/// The working directory of a task's cells: the task's `[environment] workdir`, else the
/// Dockerfile's last `WORKDIR` (not `/`), else `/app`.
fn workdir(task: &Task, recipe: &Recipe) -> String {
    task.settings
        .workdir
        .clone()
        .or_else(|| recipe.workdir.clone().filter(|w| w != "/"))
        .unwrap_or_else(|| WORKSPACE.to_owned())
}

/// What the local backend makes of the task's `environment/Dockerfile`: files whose place
/// is neither the workspace, a cell folder nor a top-level folder the host lacks (the cell
/// shows the host's own folders read-only, so `/usr/local/bin/tool` cannot be placed) are
/// moved to what is not reproduced.
fn environment(
    task: &Task,
) -> Result<Option<Recipe>, crate::eval::sandbox::dockerfile::DockerfileError> {
    let Some(mut recipe) = Recipe::read(&task.dir)? else {
        return Ok(None);
    };
    let workdir = workdir(task, &recipe);
    let cell_tops: Vec<String> = CELL_DIRS.iter().filter_map(|d| top(d)).collect();
    let own = |to: &str| {
        let t = top(to).unwrap_or_default();
        Path::new(to).starts_with(&workdir)
            || cell_tops.contains(&t)
            || (top(&workdir).as_ref() != Some(&t) && !Path::new("/").join(&t).exists())
    };
    let (kept, outside): (Vec<Placed>, Vec<Placed>) = recipe
        .files
        .into_iter()
        .partition(|p| p.places().into_iter().all(own));
    recipe.files = kept;
    for placed in outside {
        recipe.missing.push(match placed {
            // A step working or writing in the host's folders (or in `/`) is not run.
            Placed::Run { step, .. } => step,
            _ => format!("a file for {} (inside the host's own folders)", placed.to()),
        });
    }
    Ok(Some(recipe))
}

impl LocalSandbox {
    /// What the host makes of the packages `task`'s `RUN` steps install (asked once a
    /// task).
    fn host_check(&self, task: &Task) -> installs::HostCheck {
        if let Some(known) = self
            .host_checks
            .lock()
            .ok()
            .and_then(|m| m.get(&task.dir).cloned())
        {
            return known;
        }
        let installs = environment(task)
            .ok()
            .flatten()
            .map(|r| r.installs)
            .unwrap_or_default();
        let check = installs::check_host(&installs);
        if let Ok(mut known) = self.host_checks.lock() {
            known.insert(task.dir.clone(), check.clone());
        }
        check
    }

    /// Where cells' temporary roots are made.
    pub fn temp_root(&self) -> PathBuf {
        self.temp_root.clone().unwrap_or_else(std::env::temp_dir)
    }
}

/// Temporary roots in `dir` whose skillgate process no longer exists.
pub fn stale_roots(dir: &std::path::Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut stale: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let owner = name
                .to_str()
                .and_then(|n| n.strip_prefix(CELL_PREFIX))
                .and_then(|rest| rest.split_once('-'))
                .and_then(|(pid, _)| pid.parse::<u32>().ok());
            owner.is_some_and(|pid| !std::path::Path::new(&format!("/proc/{pid}")).exists())
        })
        .map(|e| e.path())
        .collect();
    stale.sort();
    stale
}

fn cannot_limit(e: impl Into<CgroupError>) -> EvalError {
    SandboxError::NoControlGroup(e.into()).into()
}

/// Starts `sh -c 'exit 0'` in a mount namespace without a network, as commands will be.
fn probe_network_isolation() -> Result<(), EvalError> {
    let flags = namespace_flags(true);
    let mut command = Command::new("sh");
    command.arg("-c").arg("exit 0");
    // SAFETY: the hook makes only system calls (see `enter`).
    unsafe { command.pre_exec(move || enter(&[], flags, true, None)) };
    match command.status() {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(SandboxError::IsolatedCommandFails(s).into()),
        Err(e) => Err(SandboxError::NoNamespaces(e).into()),
    }
}

/// A new mount and PID namespace, a new network namespace when the command may not use the
/// network, and a new user namespace too when not root, which lets an ordinary user make
/// the others.
fn namespace_flags(no_network: bool) -> CloneFlags {
    let mut flags = CloneFlags::CLONE_NEWNS | CloneFlags::CLONE_NEWPID;
    if no_network {
        flags |= CloneFlags::CLONE_NEWNET;
    }
    // SAFETY: `geteuid` cannot fail and touches no memory.
    if unsafe { libc::geteuid() } != 0 {
        flags |= CloneFlags::CLONE_NEWUSER;
    }
    flags
}

/// Runs in the child between fork and exec, so it makes system calls only: joins the
/// control group through the parent's open `cgroup.procs` files and leaves the host's
/// mounts (and network, and processes: see [`init`]). With a view and a launch, the child
/// becomes the waiting parent of the cell's PID namespace and never returns; without (the
/// probe), it enters its own namespaces and execs as it is.
///
/// [`init`]: crate::eval::sandbox::init
fn enter(
    cgroup_procs: &[RawFd],
    flags: CloneFlags,
    no_network: bool,
    cell: Option<(&View, &Launch, RawFd)>,
) -> io::Result<()> {
    for &fd in cgroup_procs {
        // SAFETY: `fd` stays open in the parent until the child has exec'd or failed to.
        if unsafe { libc::write(fd, b"0".as_ptr().cast(), 1) } < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    nix::sched::unshare(flags)?;
    if let Some((view, _, _)) = cell {
        view.map_user()?;
    }
    if no_network {
        loopback_up()?;
    }
    if let Some((view, launch, report)) = cell {
        // SAFETY: system calls only, as here.
        unsafe { launch.run(view, report) };
    }
    Ok(())
}

/// Brings up the loopback interface of a new network namespace (it starts down).
fn loopback_up() -> io::Result<()> {
    // SAFETY: system calls on a socket this function owns, with a zeroed C request.
    unsafe {
        let sock = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if sock < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut request: libc::ifreq = std::mem::zeroed();
        for (to, from) in request.ifr_name.iter_mut().zip(b"lo") {
            *to = *from as libc::c_char;
        }
        let result = if libc::ioctl(sock, libc::SIOCGIFFLAGS as _, &mut request) < 0 {
            Err(io::Error::last_os_error())
        } else {
            request.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            if libc::ioctl(sock, libc::SIOCSIFFLAGS as _, &request) < 0 {
                Err(io::Error::last_os_error())
            } else {
                Ok(())
            }
        };
        libc::close(sock);
        result
    }
}

extern "C" fn on_interrupt(_signal: libc::c_int) {
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        // A second Ctrl-C: kill the running commands' processes and detach the cells'
        // mounts, then leave at once.
        teardown::now();
        // SAFETY: `_exit` is async-signal-safe.
        unsafe { libc::_exit(130) };
    }
}

/// Ctrl-C and SIGTERM set [`INTERRUPTED`]: running commands are killed and their groups and
/// temporary roots removed before the run returns as interrupted. A second one kills the
/// running commands' processes and detaches the cells' storage mounts, then exits at once
/// (see [`teardown`]).
fn catch_interrupts() -> Result<(), EvalError> {
    static INSTALLED: OnceLock<Result<(), (Signal, nix::errno::Errno)>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            let action = SigAction::new(
                SigHandler::Handler(on_interrupt),
                SaFlags::SA_RESTART,
                SigSet::empty(),
            );
            for signal in [Signal::SIGINT, Signal::SIGTERM] {
                // SAFETY: the handler only touches an atomic and calls `_exit`.
                unsafe { sigaction(signal, &action) }.map_err(|e| (signal, e))?;
            }
            Ok(())
        })
        .map_err(|(signal, error)| SandboxError::SignalHandler { signal, error }.into())
}

/// The cell's `[environment] storage`: a tmpfs of that size mounted on the cell's root, so
/// the kernel refuses writes past it (`ENOSPC`) in every folder the cell can write (the
/// workspace, `/tmp`, `/logs`, `/tests`, its control folder). Its pages count towards the
/// command's memory limit too, as a tmpfs's do.
struct Storage {
    at: PathBuf,
    /// Lists the mount for a second Ctrl-C; dropped before the unmount.
    listed: Option<teardown::MountGuard>,
}

impl Storage {
    fn mount(at: &Path, mb: u64) -> nix::Result<Self> {
        let options = format!("size={mb}m,mode=0700");
        nix::mount::mount(
            Some("tmpfs"),
            at,
            Some("tmpfs"),
            nix::mount::MsFlags::MS_NOSUID | nix::mount::MsFlags::MS_NODEV,
            Some(options.as_str()),
        )?;
        Ok(Self {
            at: at.to_owned(),
            listed: Some(teardown::MountGuard::new(at)),
        })
    }

    /// Whether the tmpfs is full: a write past the limit fills every block before it fails.
    fn full(&self) -> bool {
        nix::sys::statvfs::statvfs(&self.at).is_ok_and(|s| s.blocks_available() == 0)
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        self.listed = None;
        let _ = nix::mount::umount2(&self.at, nix::mount::MntFlags::MNT_DETACH);
    }
}

/// One cell's temporary root; removed when dropped (after its storage tmpfs, when it has
/// one, is unmounted: fields drop in order).
struct LocalSession<'a> {
    storage: Option<Storage>,
    root: tempfile::TempDir,
    /// The workspace's sandbox path.
    workdir: String,
    /// Top-level folders of the cell's own that the environment's files need (`/data`),
    /// shown at their paths.
    own_tops: Vec<String>,
    /// The environment's variables (the Dockerfile's `ENV`), under every command's own.
    env: Vec<(String, String)>,
    cgroups: &'a Hierarchy,
    limits: Limits,
}

impl LocalSession<'_> {
    /// Runs a `RUN` step that only makes files (the `n`th of the environment's), in its
    /// working directory, without network; one that fails stops the cell with its error
    /// output's last line, as a failing step stops Docker's build.
    fn run_step(&mut self, placed: &Placed, n: usize) -> Result<(), CellError> {
        let Placed::Run {
            argv,
            workdir,
            env,
            step,
            ..
        } = placed
        else {
            return Ok(());
        };
        std::fs::create_dir_all(self.real(workdir))
            .map_err(|e| CellError::new(&format!("creating {workdir}"), e))?;
        let logs = self.root.path().join("environment");
        std::fs::create_dir_all(&logs)
            .map_err(|e| CellError::new("creating the environment's log folder", e))?;
        let spec = ExecSpec {
            argv: argv.clone(),
            env: env.clone(),
            workdir: workdir.clone(),
            timeout: STEP_TIMEOUT,
            network: false,
            stdout: logs.join(format!("step-{n}.out")),
            stderr: logs.join(format!("step-{n}.err")),
            fresh_dirs: Vec::new(),
            user: None,
            host_paths: Vec::new(),
        };
        let result = self.exec(&spec)?;
        if result.exit == Some(0) {
            return Ok(());
        }
        let said = std::fs::read_to_string(&spec.stderr).unwrap_or_default();
        let last = said
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        let ended = match (result.timed_out, result.exit) {
            (true, _) => "timed out".to_owned(),
            (false, Some(code)) => format!("exit {code}"),
            (false, None) => "killed".to_owned(),
        };
        Err(CellError(format!(
            "environment/Dockerfile's `{step}` fails on the local backend ({ended}){}{}",
            if last.is_empty() { "" } else { ": " },
            last.trim()
        )))
    }

    /// The host path of a sandbox path: the workspace, a cell folder, or (for anything else,
    /// such as an absolute path a task names) the same place under the cell's root.
    fn real(&self, path: &str) -> PathBuf {
        let within = |base: &str| {
            Path::new(path)
                .strip_prefix(base)
                .ok()
                .map(Path::to_path_buf)
        };
        match within(&self.workdir) {
            Some(rest) => self
                .root
                .path()
                .join(WORKSPACE.trim_start_matches('/'))
                .join(rest),
            None => self.root.path().join(path.trim_start_matches('/')),
        }
    }

    /// What each command sees: the workspace and the cell's folders at their paths, and the
    /// host paths the command names (never over the workspace).
    fn layout(&self, workdir: &str, host_paths: &[PathBuf]) -> Layout {
        let mut binds = vec![(self.workdir.clone(), self.real(&self.workdir))];
        binds.extend(
            self.own_tops
                .iter()
                .map(|t| (format!("/{t}"), self.root.path().join(t))),
        );
        binds.extend(CELL_DIRS.iter().chain([&ETC]).map(|d| {
            (
                (*d).to_owned(),
                self.root.path().join(d.trim_start_matches('/')),
            )
        }));
        Layout {
            new_root: self.root.path().join("rootfs"),
            binds,
            workdir: workdir.to_owned(),
            host_paths: host_paths
                .iter()
                .filter(|p| !p.starts_with(&self.workdir))
                .cloned()
                .collect(),
        }
    }
}

/// Where the host's toolchains live, for commands whose `HOME` is the sandbox's own: the
/// variable when the host sets it, else the folder under the real home when it exists
/// (rustup's proxies find no toolchain without it).
fn toolchain_homes() -> Vec<(&'static str, std::ffi::OsString)> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    [("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")]
        .into_iter()
        .filter_map(|(var, dir)| {
            let value = std::env::var_os(var).or_else(|| {
                let path = home.as_ref()?.join(dir);
                path.is_dir().then(|| path.into_os_string())
            })?;
            Some((var, value))
        })
        .collect()
}

impl Session for LocalSession<'_> {
    fn workdir(&self) -> String {
        self.workdir.clone()
    }

    fn path(&self, fixed: &str) -> String {
        fixed.to_owned()
    }

    fn upload(&mut self, dest: &str, bundle: &Bundle) -> Result<(), CellError> {
        let dest = self.real(dest);
        std::fs::create_dir_all(&dest).map_err(|e| CellError::new("creating a folder", e))?;
        bundle
            .write_into(&dest)
            .map_err(|e| CellError::new("copying files", e))
    }

    fn exec(&mut self, spec: &ExecSpec) -> Result<ExecResult, CellError> {
        if INTERRUPTED.load(Ordering::SeqCst) {
            return Err(CellError("interrupted".into()));
        }
        for dir in &spec.fresh_dirs {
            self.remove(&[dir])?;
            std::fs::create_dir_all(self.real(dir))
                .map_err(|e| CellError::new(&format!("creating {dir}"), e))?;
        }
        if spec.user.is_some() {
            return Err(CellError(
                "running as another user is not supported on the local backend".into(),
            ));
        }
        let layout = self.layout(&spec.workdir, &spec.host_paths);
        for (_, host) in &layout.binds {
            // A folder removed between commands (the tests, before an agent) is shown empty.
            std::fs::create_dir_all(host)
                .map_err(|e| CellError::new(&format!("creating {}", host.display()), e))?;
        }
        let view = View::plan(&layout).map_err(|e| CellError::new("planning the mounts", e))?;
        let program = spec
            .argv
            .first()
            .ok_or_else(|| CellError("empty command".into()))?;
        let mut env: Vec<(String, std::ffi::OsString)> = vec![
            (
                "PATH".into(),
                std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
            ),
            ("HOME".into(), HOME.into()),
            ("TMPDIR".into(), "/tmp".into()),
            ("LOGS_DIR".into(), "/logs".into()),
        ];
        env.extend(
            toolchain_homes()
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v)),
        );
        env.extend(self.env.iter().map(|(k, v)| (k.clone(), v.into())));
        env.extend(spec.env.iter().map(|(k, v)| (k.clone(), v.into())));
        let launch = Launch::plan(&spec.argv, &env)
            .map_err(|e| CellError::new(&format!("starting {program}"), e))?;
        let places = launch.places();
        let (report_read, report_write) =
            report_pipe().map_err(|e| CellError::new("making the report pipe", e))?;
        let stdout =
            File::create(&spec.stdout).map_err(|e| CellError::new("creating the log", e))?;
        let stderr =
            File::create(&spec.stderr).map_err(|e| CellError::new("creating the log", e))?;
        let group = Group::create(self.cgroups, &self.limits)
            .map_err(|e| CellError::new("creating the command's control group", e))?;
        let join = group.join_fds();
        let flags = namespace_flags(!spec.network);
        // The program is looked up and started inside the cell (see `init`); `Command` only
        // forks the process that leaves the host's namespaces.
        let mut command = Command::new(program);
        command
            .env_clear()
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .process_group(0);
        // SAFETY: the hook makes only system calls (see `enter` and `init`), on descriptors
        // `group` and this function keep open until after the child has been waited for,
        // and on the view's and launch's strings.
        let no_network = !spec.network;
        let report = report_write.as_raw_fd();
        unsafe {
            command
                .pre_exec(move || enter(&join, flags, no_network, Some((&view, &launch, report))))
        };
        let spawned = command.spawn();
        drop(report_write);
        let mut child = spawned.map_err(|e| CellError::new(&format!("starting {program}"), e))?;
        let pgid = Pid::from_raw(child.id() as i32);
        let listed = teardown::GroupGuard::new(pgid.as_raw());
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait());
        });
        let deadline = Instant::now() + spec.timeout;
        let (status, timed_out) = loop {
            if INTERRUPTED.load(Ordering::SeqCst) {
                let _ = killpg(pgid, Signal::SIGKILL);
                group.kill();
                let _ = rx.recv();
                return Err(CellError("interrupted".into()));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left.min(POLL)) {
                Ok(status) => break (status, false),
                Err(mpsc::RecvTimeoutError::Timeout) if left.is_zero() => {
                    let _ = killpg(pgid, Signal::SIGKILL);
                    group.kill();
                    break (rx.recv().map_err(|e| CellError::new("waiting", e))?, true);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(CellError("the waiting thread ended".into()));
                }
            }
        };
        // Reaped: the group's id may be reused from now on.
        drop(listed);
        // Processes the command left behind die with it, also ones that left its group.
        group.kill();
        let oom_killed = group.oom_kills() > 0;
        drop(group);
        let status = status.map_err(|e| CellError::new("waiting", e))?;
        let report = Report::read(&report_read);
        if let Some(failure) = report.failure {
            return Err(not_started(program, &places, failure));
        }
        let exit = match report.status {
            Some(raw) if libc::WIFEXITED(raw) => Some(libc::WEXITSTATUS(raw)),
            Some(_) => None,
            None => status.code(),
        };
        Ok(ExecResult {
            exit,
            timed_out,
            oom_killed,
            storage_full: self.storage.as_ref().is_some_and(Storage::full),
        })
    }

    fn read(&mut self, path: &str) -> Result<Option<Vec<u8>>, CellError> {
        match std::fs::read(self.real(path)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(CellError::new(&format!("reading {path}"), e)),
        }
    }

    fn remove(&mut self, paths: &[&str]) -> Result<(), CellError> {
        for path in paths {
            let p = self.real(path);
            let result = if p.is_dir() {
                std::fs::remove_dir_all(&p)
            } else {
                std::fs::remove_file(&p)
            };
            match result {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(CellError::new(&format!("removing {path}"), e));
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// The error for a command that never ran inside its cell.
fn not_started(program: &str, places: &[String], failure: Failure) -> CellError {
    let os = |errno: i32| io::Error::from_raw_os_error(errno);
    match failure {
        Failure::View(e) => CellError::new("building the cell's file-system view", os(e)),
        Failure::Fork(e) => CellError::new("starting the cell's first process", os(e)),
        Failure::Exec(e, index) => {
            let looked = if e == libc::ENOENT || e == libc::ENOTDIR {
                format!("looked up at {}", places.join(", "))
            } else {
                format!("at {}", places.get(index).map_or("?", String::as_str))
            };
            CellError(format!(
                "starting {program} inside the cell: {} ({looked}); the cell has its own /tmp, \
                 so a program or virtualenv under the host's /tmp is not visible in it: install \
                 it elsewhere or name a program the cell can see with --agent-cmd",
                os(e)
            ))
        }
    }
}

//! Resource limits for the `local` backend, through the kernel's control groups.
//!
//! Each command runs in a group of its own holding the task's CPU and memory limits (swap
//! included) and the pid limit a container gets, so a cell has the same room on both
//! backends. The group also counts OOM kills, and reaches every process the command started,
//! including ones that left its process group, so nothing outlives the command.
//!
//! Both layouts are supported. On the unified hierarchy (cgroup v2) groups are made under the
//! process's own group when it can hand the controllers down (after moving this process into
//! a leaf when it is the group's only member, as under `systemd-run --scope -p Delegate=yes`),
//! else under a `skillgate` group at the root. On the legacy hierarchy (v1) each controller
//! has a tree of its own, and groups are made under this process's group in each.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The controllers a group needs.
const CONTROLLERS: [&str; 3] = ["cpu", "memory", "pids"];
/// The CPU accounting period, in µs; a task's `cpus` becomes a quota per period.
const PERIOD_US: u64 = 100_000;
/// How long killing and removing a group may take before giving up on it.
const TEARDOWN: Duration = Duration::from_secs(5);

/// What one command may use.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// CPUs (fractions allowed), unlimited when `None`.
    pub cpus: Option<f64>,
    /// Memory in MiB, swap included; unlimited when `None`.
    pub memory_mb: Option<u64>,
    /// Processes and threads at once.
    pub pids: u64,
}

/// Where this process makes its groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hierarchy {
    /// cgroup v2: groups go under `parent`, which hands down cpu, memory and pids.
    Unified {
        /// The group whose children skillgate makes.
        parent: PathBuf,
    },
    /// cgroup v1: one parent per controller.
    Legacy {
        /// Parent in the pids tree.
        pids: PathBuf,
        /// Parent in the cpu tree.
        cpu: PathBuf,
        /// Parent in the memory tree.
        memory: PathBuf,
    },
}

impl Hierarchy {
    /// Finds where this process may make groups under `/sys/fs/cgroup`.
    pub fn detect() -> Result<Self, String> {
        let own = std::fs::read_to_string("/proc/self/cgroup")
            .map_err(|e| format!("reading /proc/self/cgroup: {e}"))?;
        Self::detect_in(Path::new("/sys/fs/cgroup"), &own)
    }

    /// [`Hierarchy::detect`] for a cgroup mount at `root` and the given `/proc/self/cgroup`.
    pub fn detect_in(root: &Path, own: &str) -> Result<Self, String> {
        if root.join("cgroup.controllers").is_file() {
            unified(root, own)
        } else {
            legacy(root, own)
        }
    }
}

fn unified(root: &Path, own: &str) -> Result<Hierarchy, String> {
    let path = own
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .ok_or("/proc/self/cgroup has no cgroup v2 entry")?;
    let mine = root.join(path.trim_start_matches('/'));
    let first = match delegate(&mine) {
        Ok(()) => return Ok(Hierarchy::Unified { parent: mine }),
        Err(e) => e,
    };
    // A group holding processes cannot hand controllers down; when this process is its only
    // member, it moves into a leaf of its own first.
    if first.kind() == io::ErrorKind::ResourceBusy && only_this_process(&mine) {
        let leaf = mine.join("skillgate-main");
        let moved = create_dir(&leaf)
            .and_then(|()| write(&leaf.join("cgroup.procs"), &std::process::id().to_string()));
        if moved.is_ok() && delegate(&mine).is_ok() {
            return Ok(Hierarchy::Unified { parent: mine });
        }
    }
    // Else a group of skillgate's own beside the others (this takes root).
    let ours = root.join("skillgate");
    delegate(root)
        .and_then(|()| create_dir(&ours))
        .and_then(|()| delegate(&ours))
        .map(|()| Hierarchy::Unified { parent: ours })
        .map_err(|e| {
            format!(
                "{} cannot hand down the cpu, memory and pids controllers ({first}), and {} cannot be used either ({e})",
                mine.display(),
                root.join("skillgate").display()
            )
        })
}

/// Makes `dir` hand cpu, memory and pids down to its children.
fn delegate(dir: &Path) -> io::Result<()> {
    let available = std::fs::read_to_string(dir.join("cgroup.controllers"))?;
    let enabled = std::fs::read_to_string(dir.join("cgroup.subtree_control"))?;
    for controller in CONTROLLERS {
        if !available.split_whitespace().any(|c| c == controller) {
            return Err(io::Error::other(format!(
                "the {controller} controller is not available in {}",
                dir.display()
            )));
        }
        if !enabled.split_whitespace().any(|c| c == controller) {
            write(
                &dir.join("cgroup.subtree_control"),
                &format!("+{controller}"),
            )?;
        }
    }
    Ok(())
}

fn only_this_process(dir: &Path) -> bool {
    let me = std::process::id().to_string();
    std::fs::read_to_string(dir.join("cgroup.procs"))
        .is_ok_and(|procs| procs.split_whitespace().eq(std::iter::once(me.as_str())))
}

fn legacy(root: &Path, own: &str) -> Result<Hierarchy, String> {
    let parent = |name: &str| -> Result<PathBuf, String> {
        let mount = root.join(name);
        if !mount.is_dir() {
            return Err(format!(
                "no cgroup v2 mount at {} and no {name} controller at {}",
                root.display(),
                mount.display()
            ));
        }
        let path = own
            .lines()
            .find_map(|line| {
                let mut parts = line.splitn(3, ':');
                let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
                controllers.split(',').any(|c| c == name).then_some(path)
            })
            .unwrap_or("/");
        // Inside a container the mount may start at this process's group already.
        let own_group = mount.join(path.trim_start_matches('/'));
        Ok(if own_group.is_dir() { own_group } else { mount })
    };
    Ok(Hierarchy::Legacy {
        pids: parent("pids")?,
        cpu: parent("cpu")?,
        memory: parent("memory")?,
    })
}

impl Hierarchy {
    /// The parent directories groups are made in (one per tree on v1).
    fn parents(&self) -> Vec<&Path> {
        match self {
            Hierarchy::Unified { parent } => vec![parent],
            Hierarchy::Legacy { pids, cpu, memory } => vec![pids, cpu, memory],
        }
    }

    /// Groups left by skillgate processes that no longer exist (killed with `kill -9`).
    pub fn stale_groups(&self) -> Vec<PathBuf> {
        let mut stale = Vec::new();
        for parent in self.parents() {
            let Ok(entries) = std::fs::read_dir(parent) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(pid) = name.to_str().and_then(group_owner) else {
                    continue;
                };
                if !Path::new(&format!("/proc/{pid}")).exists() {
                    stale.push(entry.path());
                }
            }
        }
        stale.sort();
        stale
    }

    /// Kills what runs in stale groups and removes them; returns how many there were.
    pub fn sweep_stale(&self) -> usize {
        let stale = self.stale_groups();
        kill_members(&stale);
        remove_groups(&stale);
        stale.len()
    }
}

/// The pid in a group name `skillgate-PID-N`.
fn group_owner(name: &str) -> Option<u32> {
    let (pid, n) = name.strip_prefix("skillgate-")?.split_once('-')?;
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// One command's group; killed and removed when dropped.
#[derive(Debug)]
pub struct Group {
    /// The group's directories (one per tree on v1), each removed on drop.
    dirs: Vec<PathBuf>,
    /// `cgroup.procs` of each, open for writing: a process joins by writing `0` to them.
    procs: Vec<File>,
    /// Where the memory controller's files are.
    memory: PathBuf,
    /// Whether this is the unified layout.
    unified: bool,
}

/// Numbers groups within this process.
static NEXT: AtomicU64 = AtomicU64::new(0);

impl Group {
    /// Makes a group with `limits` in `hierarchy`.
    pub fn create(hierarchy: &Hierarchy, limits: &Limits) -> io::Result<Self> {
        let name = format!(
            "skillgate-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let quota = limits
            .cpus
            .map(|cpus| ((cpus * PERIOD_US as f64).round() as u64).max(1_000));
        let memory = limits.memory_mb.map(|mb| mb * 1024 * 1024);
        match hierarchy {
            Hierarchy::Unified { parent } => {
                let dir = parent.join(&name);
                create_dir(&dir)?;
                let mut group = Group {
                    dirs: vec![dir.clone()],
                    procs: Vec::new(),
                    memory: dir.clone(),
                    unified: true,
                };
                write(&dir.join("pids.max"), &limits.pids.to_string())?;
                if let Some(quota) = quota {
                    write(&dir.join("cpu.max"), &format!("{quota} {PERIOD_US}"))?;
                }
                if let Some(bytes) = memory {
                    write(&dir.join("memory.max"), &bytes.to_string())?;
                    write_if_present(&dir.join("memory.swap.max"), "0")?;
                }
                group.procs.push(open_procs(&dir)?);
                Ok(group)
            }
            Hierarchy::Legacy {
                pids,
                cpu,
                memory: memory_tree,
            } => {
                let mut group = Group {
                    dirs: Vec::new(),
                    procs: Vec::new(),
                    memory: memory_tree.join(&name),
                    unified: false,
                };
                for parent in [pids, cpu, memory_tree] {
                    let dir = parent.join(&name);
                    create_dir(&dir)?;
                    group.dirs.push(dir);
                }
                let [pids_dir, cpu_dir, memory_dir] =
                    [&group.dirs[0], &group.dirs[1], &group.memory];
                write(&pids_dir.join("pids.max"), &limits.pids.to_string())?;
                if let Some(quota) = quota {
                    write(&cpu_dir.join("cpu.cfs_period_us"), &PERIOD_US.to_string())?;
                    write(&cpu_dir.join("cpu.cfs_quota_us"), &quota.to_string())?;
                }
                if let Some(bytes) = memory {
                    write(
                        &memory_dir.join("memory.limit_in_bytes"),
                        &bytes.to_string(),
                    )?;
                    // Present only with swap accounting; without it there is no swap to limit.
                    write_if_present(
                        &memory_dir.join("memory.memsw.limit_in_bytes"),
                        &bytes.to_string(),
                    )?;
                }
                let procs = group
                    .dirs
                    .iter()
                    .map(|d| open_procs(d))
                    .collect::<io::Result<Vec<_>>>()?;
                group.procs = procs;
                Ok(group)
            }
        }
    }

    /// File descriptors a child writes `0` to, between fork and exec, to join the group
    /// before it can start anything. Valid while the group lives.
    pub fn join_fds(&self) -> Vec<RawFd> {
        self.procs.iter().map(AsRawFd::as_raw_fd).collect()
    }

    /// How many processes of the group the kernel killed for lack of memory.
    pub fn oom_kills(&self) -> u64 {
        let file = if self.unified {
            "memory.events"
        } else {
            "memory.oom_control"
        };
        std::fs::read_to_string(self.memory.join(file))
            .ok()
            .and_then(|text| oom_kill_count(&text))
            .unwrap_or(0)
    }

    /// Kills every process in the group, and waits until none is left (or gives up).
    pub fn kill(&self) {
        if self.unified {
            // One write kills the whole group where the kernel has `cgroup.kill` (5.14+).
            let _ = write_if_present(&self.dirs[0].join("cgroup.kill"), "1");
        }
        kill_members(&self.dirs);
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
        self.procs.clear();
        remove_groups(&self.dirs);
    }
}

/// Sends SIGKILL to every member of the groups until none is left (or gives up).
fn kill_members(dirs: &[PathBuf]) {
    let deadline = Instant::now() + TEARDOWN;
    loop {
        let mut left = false;
        for pid in dirs.iter().flat_map(|d| members(d)) {
            left = true;
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        if !left || Instant::now() > deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Removes empty groups; the kernel refuses while it still finishes the last exits, so
/// that is retried briefly.
fn remove_groups(dirs: &[PathBuf]) {
    let deadline = Instant::now() + TEARDOWN;
    for dir in dirs {
        while let Err(e) = std::fs::remove_dir(dir) {
            if e.kind() != io::ErrorKind::ResourceBusy || Instant::now() > deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// The `oom_kill N` counter of `memory.events` (v2) or `memory.oom_control` (v1).
pub(crate) fn oom_kill_count(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("oom_kill "))
        .and_then(|n| n.trim().parse().ok())
}

fn members(dir: &Path) -> Vec<i32> {
    std::fs::read_to_string(dir.join("cgroup.procs"))
        .map(|text| {
            text.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

fn create_dir(dir: &Path) -> io::Result<()> {
    match std::fs::create_dir(dir) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    }
    .map_err(|e| io::Error::new(e.kind(), format!("creating {}: {e}", dir.display())))
}

fn write(path: &Path, value: &str) -> io::Result<()> {
    std::fs::write(path, value).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("writing {value:?} to {}: {e}", path.display()),
        )
    })
}

fn write_if_present(path: &Path, value: &str) -> io::Result<()> {
    if path.exists() {
        write(path, value)
    } else {
        Ok(())
    }
}

fn open_procs(dir: &Path) -> io::Result<File> {
    let path = dir.join("cgroup.procs");
    // The kernel made the file with the group; `create` only matters on a plain file system.
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| io::Error::new(e.kind(), format!("opening {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake v2 mount: the kernel's files as plain files.
    fn fake_unified(root: &Path, own: &str, subtree: &str) {
        let dir = root.join(own.trim_start_matches('/'));
        std::fs::create_dir_all(&dir).unwrap();
        for d in [root, dir.as_path()] {
            std::fs::write(d.join("cgroup.controllers"), "cpuset cpu io memory pids\n").unwrap();
            std::fs::write(d.join("cgroup.subtree_control"), subtree).unwrap();
        }
    }

    #[test]
    fn unified_groups_carry_the_limits_in_v2_files() {
        let tmp = tempfile::tempdir().unwrap();
        fake_unified(tmp.path(), "/user.slice/run.scope", "cpu memory pids\n");
        let h = Hierarchy::detect_in(tmp.path(), "0::/user.slice/run.scope\n").unwrap();
        let parent = tmp.path().join("user.slice/run.scope");
        assert_eq!(
            h,
            Hierarchy::Unified {
                parent: parent.clone()
            }
        );
        // The kernel makes these files with the directory; a plain file system does not.
        let limits = Limits {
            cpus: Some(1.5),
            memory_mb: Some(64),
            pids: 1024,
        };
        let group = Group::create(&h, &limits).unwrap();
        let dir = group.dirs[0].clone();
        assert!(dir.starts_with(&parent));
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
        assert_eq!(read("cpu.max"), "150000 100000");
        assert_eq!(read("memory.max"), (64u64 << 20).to_string());
        assert_eq!(read("pids.max"), "1024");
        assert_eq!(group.join_fds().len(), 1);
        std::fs::write(
            dir.join("memory.events"),
            "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n",
        )
        .unwrap();
        assert_eq!(group.oom_kills(), 1);
        // Plain files keep the directory from being removed; the kernel's would not.
        for f in [
            "cpu.max",
            "memory.max",
            "pids.max",
            "cgroup.procs",
            "memory.events",
        ] {
            std::fs::remove_file(dir.join(f)).unwrap();
        }
        drop(group);
        assert!(!dir.exists());
    }

    #[test]
    fn a_unified_group_that_cannot_delegate_falls_back_to_a_group_at_the_root() {
        let tmp = tempfile::tempdir().unwrap();
        fake_unified(tmp.path(), "/busy", "");
        // The own group lacks the pids controller: it cannot hand it down.
        std::fs::write(tmp.path().join("busy/cgroup.controllers"), "cpu memory\n").unwrap();
        std::fs::create_dir_all(tmp.path().join("skillgate")).unwrap();
        std::fs::write(
            tmp.path().join("skillgate/cgroup.controllers"),
            "cpu memory pids\n",
        )
        .unwrap();
        std::fs::write(tmp.path().join("skillgate/cgroup.subtree_control"), "").unwrap();
        let h = Hierarchy::detect_in(tmp.path(), "0::/busy\n").unwrap();
        assert_eq!(
            h,
            Hierarchy::Unified {
                parent: tmp.path().join("skillgate")
            }
        );
    }

    #[test]
    fn legacy_trees_are_found_per_controller() {
        let tmp = tempfile::tempdir().unwrap();
        for dir in ["pids", "cpu/batch", "memory/jobs/7"] {
            std::fs::create_dir_all(tmp.path().join(dir)).unwrap();
        }
        let own = "9:name=systemd:/\n8:pids:/\n4:memory:/jobs/7\n1:cpu,cpuacct:/batch\n0::/\n";
        let h = Hierarchy::detect_in(tmp.path(), own).unwrap();
        assert_eq!(
            h,
            Hierarchy::Legacy {
                pids: tmp.path().join("pids"),
                cpu: tmp.path().join("cpu/batch"),
                memory: tmp.path().join("memory/jobs/7"),
            }
        );
        let limits = Limits {
            cpus: Some(0.5),
            memory_mb: Some(32),
            pids: 64,
        };
        let group = Group::create(&h, &limits).unwrap();
        let cpu = &group.dirs[1];
        assert_eq!(
            std::fs::read_to_string(cpu.join("cpu.cfs_quota_us")).unwrap(),
            "50000"
        );
        assert_eq!(
            std::fs::read_to_string(group.memory.join("memory.limit_in_bytes")).unwrap(),
            (32u64 << 20).to_string()
        );
        assert_eq!(group.join_fds().len(), 3);
    }

    #[test]
    fn no_controllers_is_a_clear_error() {
        let tmp = tempfile::tempdir().unwrap();
        let e = Hierarchy::detect_in(tmp.path(), "0::/\n").unwrap_err();
        assert!(e.contains("no pids controller"), "{e}");
    }

    #[test]
    fn only_numbered_groups_of_dead_processes_are_stale() {
        assert_eq!(group_owner("skillgate-123-4"), Some(123));
        assert_eq!(group_owner("skillgate-main"), None);
        assert_eq!(group_owner("skillgate-12-x"), None);
        let tmp = tempfile::tempdir().unwrap();
        let dead = u32::MAX - 1; // above any pid the kernel hands out
        for name in [
            format!("skillgate-{dead}-0"),
            format!("skillgate-{}-0", std::process::id()),
            "skillgate-main".to_owned(),
        ] {
            std::fs::create_dir(tmp.path().join(name)).unwrap();
        }
        let h = Hierarchy::Unified {
            parent: tmp.path().to_owned(),
        };
        assert_eq!(
            h.stale_groups(),
            vec![tmp.path().join(format!("skillgate-{dead}-0"))]
        );
        assert_eq!(h.sweep_stale(), 1);
        assert!(h.stale_groups().is_empty());
    }

    #[test]
    fn oom_kill_counters_are_read_from_both_layouts() {
        assert_eq!(oom_kill_count("oom 2\noom_kill 2\n"), Some(2));
        assert_eq!(
            oom_kill_count("oom_kill_disable 0\nunder_oom 0\noom_kill 1\n"),
            Some(1)
        );
        assert_eq!(oom_kill_count("oom_kill_disable 0\n"), None);
    }
}

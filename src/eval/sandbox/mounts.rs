//! The file-system view of a `local` command: a mount namespace of its own whose root is a
//! fresh tmpfs holding the host's top-level folders (bound in read-only, so the host's
//! programs stay visible and unchanged; `/dev` and `/sys` as they are, and a `/proc` of the
//! cell's own PID namespace, so it lists the cell's processes only) and the
//! cell's own folders bound at the paths tasks use (`/app` or the task's workdir, `/tests`,
//! `/logs`, `/solution`, `/skillgate`, `/tmp`, and `/etc`, a copy of the host's made when
//! the cell opens: [`copy_host_etc`]). A task that writes `/logs/verifier/reward.txt` or
//! `/app/out.txt`, or adds a user to `/etc/passwd`, writes into its cell, never onto the
//! host.
//!
//! Everything is planned before `fork` ([`View::plan`]); the child only makes system calls
//! ([`View::enter`]), as it must between `fork` and `exec`.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use nix::libc;

/// Top-level host folders the cell's own replace, whatever the layout says.
const REPLACED: [&str; 5] = ["tests", "logs", "solution", "skillgate", "tmp"];
/// Top-level host folders bound as they are: the kernel's, which commands write to.
const KERNEL: [&str; 2] = ["dev", "sys"];
/// Where the cell's own `/proc` is mounted.
const PROC: &str = "proc";
/// `mount_setattr`'s flag for a read-only mount, and the flag applying it to submounts.
const MOUNT_ATTR_RDONLY: u64 = 0x1;
const AT_RECURSIVE: libc::c_int = 0x8000;

/// One step of building the view, with its paths ready for the system calls.
#[derive(Debug)]
enum Step {
    /// `mkdir`, ignoring an existing folder.
    Dir(CString),
    /// An empty file to bind a file onto, ignoring an existing one.
    File(CString),
    /// A recursive bind mount of `from` onto `to`.
    Bind { from: CString, to: CString },
    /// A symbolic link at `at` pointing to `target`.
    Link { target: CString, at: CString },
    /// Makes the mount at the path (and those below it) read-only.
    ReadOnly(CString),
    /// A new `proc` file system, showing the PID namespace of the process mounting it.
    Proc(CString),
}

/// The planned view of one command.
#[derive(Debug)]
pub struct View {
    root: CString,
    steps: Vec<Step>,
    workdir: CString,
    /// `uid_map`/`gid_map` lines when a user namespace is made (not root).
    user_maps: Option<(CString, CString)>,
}

/// What the view binds where: sandbox path → host folder.
#[derive(Debug, Clone)]
pub struct Layout {
    /// An empty folder that becomes the command's `/` (a tmpfs is mounted on it).
    pub new_root: PathBuf,
    /// Cell folders and the sandbox paths they appear at.
    pub binds: Vec<(String, PathBuf)>,
    /// The working directory, a sandbox path.
    pub workdir: String,
    /// Host files or folders shown read-only at their own path, bound after the cell's
    /// folders; those the host's read-only folders already show are left as they are.
    pub host_paths: Vec<PathBuf>,
}

fn c(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)
}

impl View {
    /// Plans the view: the host's top-level entries (except those a cell path replaces),
    /// then the cell's folders with every parent they need.
    pub fn plan(layout: &Layout) -> io::Result<Self> {
        let root = &layout.new_root;
        let replaced: Vec<String> = layout
            .binds
            .iter()
            .filter_map(|(at, _)| {
                at.trim_start_matches('/')
                    .split('/')
                    .next()
                    .map(str::to_owned)
            })
            .chain(REPLACED.iter().map(|s| (*s).to_owned()))
            .collect();
        let mut steps = Vec::new();
        for entry in std::fs::read_dir("/")?.flatten() {
            let name = entry.file_name();
            let Some(text) = name.to_str() else { continue };
            if replaced.iter().any(|r| r == text) {
                continue;
            }
            let host = Path::new("/").join(&name);
            let inside = root.join(&name);
            let kind = entry.file_type()?;
            if text == PROC {
                steps.push(Step::Dir(c(&inside)?));
                steps.push(Step::Proc(c(&inside)?));
            } else if kind.is_symlink() {
                steps.push(Step::Link {
                    target: c(&std::fs::read_link(&host)?)?,
                    at: c(&inside)?,
                });
            } else if kind.is_dir() {
                steps.push(Step::Dir(c(&inside)?));
                steps.push(Step::Bind {
                    from: c(&host)?,
                    to: c(&inside)?,
                });
                if !KERNEL.contains(&text) {
                    steps.push(Step::ReadOnly(c(&inside)?));
                }
            }
        }
        let mut made: Vec<PathBuf> = Vec::new();
        for (at, host) in &layout.binds {
            let inside = root.join(at.trim_start_matches('/'));
            let mut parents: Vec<&Path> = inside.ancestors().skip(1).collect();
            parents.reverse();
            for dir in parents.into_iter().chain(std::iter::once(inside.as_path())) {
                if dir.starts_with(root) && dir != root && !made.iter().any(|m| m == dir) {
                    made.push(dir.to_owned());
                    steps.push(Step::Dir(c(dir)?));
                }
            }
            steps.push(Step::Bind {
                from: c(host)?,
                to: c(&inside)?,
            });
        }
        for host in &layout.host_paths {
            let top = host
                .components()
                .nth(1)
                .map(|c| c.as_os_str().to_string_lossy().into_owned());
            if !top.is_some_and(|t| replaced.contains(&t)) {
                continue;
            }
            let inside = root.join(host.strip_prefix("/").unwrap_or(host));
            let mut parents: Vec<&Path> = inside.ancestors().skip(1).collect();
            parents.reverse();
            for dir in parents {
                if dir.starts_with(root) && dir != root && !made.iter().any(|m| m == dir) {
                    made.push(dir.to_owned());
                    steps.push(Step::Dir(c(dir)?));
                }
            }
            steps.push(if host.is_dir() {
                Step::Dir(c(&inside)?)
            } else {
                Step::File(c(&inside)?)
            });
            steps.push(Step::Bind {
                from: c(host)?,
                to: c(&inside)?,
            });
            steps.push(Step::ReadOnly(c(&inside)?));
        }
        // SAFETY: `geteuid`/`getegid` cannot fail and touch no memory.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let user_maps = (uid != 0)
            .then(|| -> io::Result<_> {
                let map = |id: u32| CString::new(format!("0 {id} 1")).map_err(io::Error::other);
                Ok((map(uid)?, map(gid)?))
            })
            .transpose()?;
        Ok(Self {
            root: c(root)?,
            steps,
            workdir: CString::new(layout.workdir.as_bytes()).map_err(io::Error::other)?,
            user_maps,
        })
    }

    /// Runs in the child between `fork` and `exec`, right after `unshare(CLONE_NEWUSER…)`:
    /// maps the user (not root) to root in the new user namespace, so that the namespace's
    /// processes may mount. Nothing to do as root.
    pub fn map_user(&self) -> io::Result<()> {
        if let Some((uid_map, gid_map)) = &self.user_maps {
            write_file(c"/proc/self/setgroups", c"deny")?;
            write_file(c"/proc/self/uid_map", uid_map)?;
            write_file(c"/proc/self/gid_map", gid_map)?;
        }
        Ok(())
    }

    /// Runs in the cell's first process (PID 1 of its PID namespace), between `fork` and
    /// `exec`, after [`View::map_user`]: makes every mount private, builds the view (its
    /// `/proc` showing this PID namespace) and enters it.
    pub fn enter(&self) -> io::Result<()> {
        // SAFETY: system calls on NUL-terminated strings this view owns.
        unsafe {
            check(libc::mount(
                c"none".as_ptr(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ))?;
            check(libc::mount(
                c"tmpfs".as_ptr(),
                self.root.as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID,
                c"mode=0755".as_ptr().cast(),
            ))?;
            for step in &self.steps {
                match step {
                    Step::Dir(path) => {
                        if libc::mkdir(path.as_ptr(), 0o755) != 0 {
                            let e = io::Error::last_os_error();
                            if e.raw_os_error() != Some(libc::EEXIST) {
                                return Err(e);
                            }
                        }
                    }
                    Step::File(path) => {
                        let fd = libc::open(
                            path.as_ptr(),
                            libc::O_WRONLY | libc::O_CREAT | libc::O_CLOEXEC,
                            0o644,
                        );
                        if fd < 0 {
                            return Err(io::Error::last_os_error());
                        }
                        libc::close(fd);
                    }
                    Step::Bind { from, to } => check(libc::mount(
                        from.as_ptr(),
                        to.as_ptr(),
                        std::ptr::null(),
                        libc::MS_BIND | libc::MS_REC,
                        std::ptr::null(),
                    ))?,
                    Step::Link { target, at } => {
                        check(libc::symlink(target.as_ptr(), at.as_ptr()))?;
                    }
                    Step::ReadOnly(path) => read_only(path)?,
                    Step::Proc(path) => check(libc::mount(
                        c"proc".as_ptr(),
                        path.as_ptr(),
                        c"proc".as_ptr(),
                        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                        std::ptr::null(),
                    ))?,
                }
            }
            check(libc::chdir(self.root.as_ptr()))?;
            check(libc::chroot(c".".as_ptr()))?;
            check(libc::chdir(self.workdir.as_ptr()))?;
        }
        Ok(())
    }
}

/// Copies the host's `/etc` into `to` (which must not exist), for a cell's own writable
/// `/etc`: a verifier that adds a user (`useradd` writes `/etc/passwd`, `/etc/group` and
/// `/etc/shadow`) changes the cell's copy, which goes with the cell, and never the host's.
/// Folders, files and symbolic links keep their modes, and their owners when run as root;
/// what the user running skillgate cannot read (another user's secrets) and what is neither
/// a folder, a file nor a link is left out, as the cell could not read it either.
pub fn copy_host_etc(to: &Path) -> io::Result<()> {
    // SAFETY: `geteuid` cannot fail and touches no memory.
    let root = unsafe { libc::geteuid() } == 0;
    copy_tree(Path::new("/etc"), to, root)
}

fn copy_tree(from: &Path, to: &Path, owners: bool) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let entries = std::fs::read_dir(from)?;
    let meta = std::fs::metadata(from)?;
    std::fs::create_dir(to)?;
    for entry in entries {
        let entry = entry?;
        let (src, dest) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        let copied = if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&src)?, &dest)
        } else if kind.is_dir() {
            copy_tree(&src, &dest, owners)
        } else if kind.is_file() {
            std::fs::copy(&src, &dest).map(drop)
        } else {
            continue;
        };
        match copied {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => continue,
            Err(e) => return Err(e),
        }
        if owners {
            let own = std::fs::symlink_metadata(&src)?;
            std::os::unix::fs::lchown(&dest, Some(own.uid()), Some(own.gid()))?;
            if !kind.is_symlink() {
                // `chown` clears the set-id bits `copy` kept.
                std::fs::set_permissions(
                    &dest,
                    std::fs::Permissions::from_mode(own.mode() & 0o7777),
                )?;
            }
        }
    }
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(meta.mode() & 0o7777))?;
    Ok(())
}

/// Makes a mount and every mount below it read-only (`mount_setattr`, Linux 5.12), or the
/// mount alone on older kernels.
///
/// # Safety
/// Only system calls, on a NUL-terminated path.
unsafe fn read_only(path: &std::ffi::CStr) -> io::Result<()> {
    #[repr(C)]
    struct MountAttr {
        attr_set: u64,
        attr_clr: u64,
        propagation: u64,
        userns_fd: u64,
    }
    let attr = MountAttr {
        attr_set: MOUNT_ATTR_RDONLY,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: the caller's path is NUL-terminated; `attr` lives across the call.
    let done = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            path.as_ptr(),
            AT_RECURSIVE,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if done == 0 {
        return Ok(());
    }
    let e = io::Error::last_os_error();
    if e.raw_os_error() != Some(libc::ENOSYS) {
        return Err(e);
    }
    // SAFETY: as above.
    check(unsafe {
        libc::mount(
            std::ptr::null(),
            path.as_ptr(),
            std::ptr::null(),
            libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY,
            std::ptr::null(),
        )
    })
}

fn check(result: libc::c_int) -> io::Result<()> {
    if result != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn write_file(path: &std::ffi::CStr, text: &std::ffi::CStr) -> io::Result<()> {
    // SAFETY: system calls on a descriptor this function owns and NUL-terminated strings.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let bytes = text.to_bytes();
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        libc::close(fd);
        if written < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

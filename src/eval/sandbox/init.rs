//! The first process of a `local` command's PID namespace.
//!
//! A command on the local backend starts as a process `P` in the host's PID namespace, which
//! joins the command's control group and leaves the host's namespaces (`unshare`, with
//! `CLONE_NEWPID` among them). `P`'s first child `C` is PID 1 of the new PID namespace: it
//! builds the cell's view (mounts, its own `/proc`), then starts the command as its own
//! child and reaps every process orphaned into it until the command ends. When `C` exits,
//! the kernel kills everything left in the namespace, so nothing a command started outlives
//! it, and nothing in the namespace can see or signal a host process.
//!
//! Everything runs between `fork` and `exec` of a multi-threaded parent, so it makes system
//! calls only: argument and environment strings, the places to look the program up and the
//! pointer arrays `execve` takes are all made before the fork ([`Launch::plan`]). What the
//! parent must learn (the command's wait status, or why it never started) comes back as
//! fixed-size records on a close-on-exec pipe ([`Report`]).

use std::ffi::{CString, OsStr};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;

use nix::libc;

use crate::eval::sandbox::mounts::View;

/// One record on the report pipe: a tag and two numbers.
const RECORD: usize = 9;
/// The command ended with this wait status.
const TAG_STATUS: u8 = b's';
/// The view could not be built (errno).
const TAG_VIEW: u8 = b'v';
/// A `fork` failed (errno).
const TAG_FORK: u8 = b'f';
/// No place the program was looked up at could be executed (errno, index of the place).
const TAG_EXEC: u8 = b'x';

/// A command, ready for `execve` in a process that may not allocate.
#[derive(Debug)]
pub struct Launch {
    /// The program as the command names it.
    program: String,
    /// Where it is looked up, in order: itself when it names a path, else each folder of
    /// the command's `PATH`.
    places: Vec<CString>,
    /// Kept alive for the pointers in `argv_ptrs`.
    _argv: Vec<CString>,
    /// Kept alive for the pointers in `envp_ptrs`.
    _envp: Vec<CString>,
    argv_ptrs: Vec<*const libc::c_char>,
    envp_ptrs: Vec<*const libc::c_char>,
}

// SAFETY: the raw pointers point into the `CString`s the launch owns, which are never
// changed after `plan`; the launch is only read, by the forked child.
unsafe impl Send for Launch {}
// SAFETY: as above.
unsafe impl Sync for Launch {}

impl Launch {
    /// Plans `argv` with the environment `env` (later entries win over earlier ones with
    /// the same name), looked up along the environment's `PATH` as `execvp` would.
    pub fn plan(argv: &[String], env: &[(String, std::ffi::OsString)]) -> io::Result<Self> {
        let program = argv
            .first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty command"))?
            .clone();
        let cstr = |bytes: &[u8]| CString::new(bytes).map_err(io::Error::other);
        let mut final_env: Vec<(&str, &std::ffi::OsString)> = Vec::new();
        for (name, value) in env {
            final_env.retain(|(n, _)| n != name);
            final_env.push((name, value));
        }
        let path = final_env
            .iter()
            .find(|(n, _)| *n == "PATH")
            .map_or(OsStr::new("/usr/bin:/bin"), |(_, v)| v.as_os_str());
        let places = if program.contains('/') {
            vec![cstr(program.as_bytes())?]
        } else {
            path.as_bytes()
                .split(|b| *b == b':')
                .map(|dir| {
                    let dir = if dir.is_empty() { b".".as_slice() } else { dir };
                    let mut full = dir.to_vec();
                    full.push(b'/');
                    full.extend_from_slice(program.as_bytes());
                    cstr(&full)
                })
                .collect::<io::Result<_>>()?
        };
        let argv: Vec<CString> = argv
            .iter()
            .map(|a| cstr(a.as_bytes()))
            .collect::<io::Result<_>>()?;
        let envp: Vec<CString> = final_env
            .iter()
            .map(|(n, v)| {
                let mut pair = n.as_bytes().to_vec();
                pair.push(b'=');
                pair.extend_from_slice(v.as_bytes());
                cstr(&pair)
            })
            .collect::<io::Result<_>>()?;
        let pointers = |strings: &[CString]| {
            strings
                .iter()
                .map(|s| s.as_ptr())
                .chain(std::iter::once(std::ptr::null()))
                .collect::<Vec<_>>()
        };
        Ok(Self {
            argv_ptrs: pointers(&argv),
            envp_ptrs: pointers(&envp),
            program,
            places,
            _argv: argv,
            _envp: envp,
        })
    }

    /// The program as the command names it.
    pub fn program(&self) -> &str {
        &self.program
    }

    /// The places the program is looked up at, for messages.
    pub fn places(&self) -> Vec<String> {
        self.places
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect()
    }

    /// Runs in `P` after it has left the host's namespaces; never returns. Closes every
    /// descriptor but the standard ones and `report` (so the spawning parent sees `P` as
    /// started), forks `C` and exits with `C`'s status.
    ///
    /// # Safety
    /// Only system calls, between `fork` and `exec`.
    pub unsafe fn run(&self, view: &View, report: RawFd) -> ! {
        // SAFETY: system calls only, on descriptors and strings this function is given.
        unsafe {
            for signal in [libc::SIGINT, libc::SIGTERM] {
                libc::signal(signal, libc::SIG_DFL);
            }
            close_others(report);
            let first = libc::fork();
            if first < 0 {
                send(report, TAG_FORK, errno(), 0);
                libc::_exit(126);
            }
            if first == 0 {
                self.first_process(view, report);
            }
            let mut status = 0;
            while libc::waitpid(first, &mut status, 0) < 0 {
                if errno() != libc::EINTR {
                    libc::_exit(126);
                }
            }
            if libc::WIFEXITED(status) {
                libc::_exit(libc::WEXITSTATUS(status));
            }
            libc::_exit(128 + libc::WTERMSIG(status));
        }
    }

    /// `C`, PID 1 of the namespace: enters the view, starts the command, reaps orphans until
    /// the command has ended, reports its status and exits (which ends the namespace).
    ///
    /// # Safety
    /// Only system calls, between `fork` and `exec`.
    unsafe fn first_process(&self, view: &View, report: RawFd) -> ! {
        // SAFETY: system calls only.
        unsafe {
            if view.enter().is_err() {
                send(report, TAG_VIEW, errno(), 0);
                libc::_exit(126);
            }
            let command = libc::fork();
            if command < 0 {
                send(report, TAG_FORK, errno(), 0);
                libc::_exit(126);
            }
            if command == 0 {
                self.exec(report);
            }
            let mut status = 0;
            loop {
                let mut reaped = 0;
                let pid = libc::waitpid(-1, &mut reaped, 0);
                if pid == command {
                    status = reaped;
                    break;
                }
                if pid < 0 && errno() != libc::EINTR {
                    break;
                }
            }
            send(report, TAG_STATUS, status, 0);
            if libc::WIFEXITED(status) {
                libc::_exit(libc::WEXITSTATUS(status));
            }
            libc::_exit(128 + libc::WTERMSIG(status));
        }
    }

    /// The command itself: `execve` at each place in turn, as `execvp` does.
    ///
    /// # Safety
    /// Only system calls, between `fork` and `exec`.
    unsafe fn exec(&self, report: RawFd) -> ! {
        // SAFETY: NUL-terminated strings and NULL-terminated pointer arrays owned by `self`.
        unsafe {
            let mut worst = (libc::ENOENT, 0);
            for (index, place) in self.places.iter().enumerate() {
                libc::execve(
                    place.as_ptr(),
                    self.argv_ptrs.as_ptr(),
                    self.envp_ptrs.as_ptr(),
                );
                let e = errno();
                match e {
                    libc::ENOENT | libc::ENOTDIR => {}
                    // Found but not runnable: said rather than "not found".
                    libc::EACCES => worst = (e, index),
                    _ => {
                        worst = (e, index);
                        break;
                    }
                }
            }
            send(report, TAG_EXEC, worst.0, worst.1 as i32);
            libc::_exit(127);
        }
    }
}

/// What the parent learns from the report pipe once the command has ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Report {
    /// The command's wait status, when it ran.
    pub status: Option<i32>,
    /// Why it never ran, when it did not.
    pub failure: Option<Failure>,
}

/// Why a command never ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Building the view failed with this errno.
    View(i32),
    /// A `fork` failed with this errno.
    Fork(i32),
    /// No place could be executed; the errno and the index of the place it came from.
    Exec(i32, usize),
}

impl Report {
    /// Reads every record the command's processes wrote (they have all exited).
    pub fn read(pipe: &OwnedFd) -> Self {
        let mut bytes = Vec::new();
        let mut chunk = [0u8; 512];
        loop {
            // SAFETY: reads into a buffer this function owns, from a descriptor it borrows.
            let n = unsafe { libc::read(pipe.as_raw_fd(), chunk.as_mut_ptr().cast(), chunk.len()) };
            if n <= 0 {
                break;
            }
            bytes.extend_from_slice(&chunk[..n as usize]);
        }
        let mut report = Self::default();
        for record in bytes.chunks_exact(RECORD) {
            let number = |at: usize| {
                let mut b = [0u8; 4];
                b.copy_from_slice(&record[at..at + 4]);
                i32::from_ne_bytes(b)
            };
            let (a, b) = (number(1), number(5));
            match record[0] {
                TAG_STATUS => report.status = Some(a),
                TAG_VIEW => report.failure = Some(Failure::View(a)),
                TAG_FORK => report.failure = Some(Failure::Fork(a)),
                TAG_EXEC => report.failure = Some(Failure::Exec(a, b.max(0) as usize)),
                _ => {}
            }
        }
        report
    }
}

/// The report pipe: a read end for the parent (not blocking: it is read once the writers
/// have exited) and a write end for the command's first processes; both close on `exec`.
pub fn report_pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let (read, write) =
        nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC | nix::fcntl::OFlag::O_NONBLOCK)?;
    Ok((read, write))
}

fn errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Writes one record (a pipe write this small is atomic).
///
/// # Safety
/// A system call on a descriptor the caller owns.
unsafe fn send(fd: RawFd, tag: u8, a: i32, b: i32) {
    let mut record = [0u8; RECORD];
    record[0] = tag;
    record[1..5].copy_from_slice(&a.to_ne_bytes());
    record[5..9].copy_from_slice(&b.to_ne_bytes());
    // SAFETY: a buffer on this stack frame.
    unsafe { libc::write(fd, record.as_ptr().cast(), RECORD) };
}

/// Closes every descriptor but 0, 1, 2 and `keep` (`close_range`, Linux 5.9, else one by
/// one).
///
/// # Safety
/// System calls only.
unsafe fn close_others(keep: RawFd) {
    let ranges = [(3, keep - 1), (keep + 1, libc::c_int::MAX)];
    for (first, last) in ranges {
        if first > last {
            continue;
        }
        // SAFETY: `close_range` touches no memory.
        let done = unsafe { libc::syscall(libc::SYS_close_range, first as u32, last as u32, 0u32) };
        if done != 0 {
            for fd in first..=last.min(4096) {
                // SAFETY: closing a descriptor number, open or not.
                unsafe { libc::close(fd) };
            }
        }
    }
}

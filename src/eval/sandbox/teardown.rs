//! What a second Ctrl-C undoes before the local backend exits at once.
//!
//! The first Ctrl-C (or SIGTERM) lets every running command be killed and every cell be
//! dropped in order: its control group removed, its storage tmpfs unmounted, its temporary
//! root deleted. A second one exits from the signal handler, where nothing may allocate or
//! lock, so what must not outlive the process is kept here beforehand, in fixed slots of
//! atomics: the process group of each running command (its first process is the waiting
//! parent of the cell's PID namespace, so killing the group ends every process of the
//! cell) and the path of each mounted storage tmpfs (detached lazily, which never
//! blocks). The temporary roots and the emptied control groups are left to the next run,
//! which removes what a killed run left.

use std::ffi::CString;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, Ordering};

use nix::libc;

/// Cells that can run at once (`-j` beyond this still runs; its extra cells are only
/// torn down by the first Ctrl-C's orderly path).
const SLOTS: usize = 64;

/// Set by [`now`]: the process is exiting from a signal handler.
static EXITING: AtomicBool = AtomicBool::new(false);
/// Process groups of running commands (0: free).
static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];
/// Mounted storage tmpfs paths, NUL-terminated (null: free).
static MOUNTS: [AtomicPtr<libc::c_char>; SLOTS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

/// A running command's process group, listed until dropped.
#[derive(Debug)]
pub struct GroupGuard(Option<usize>);

impl GroupGuard {
    /// Lists process group `pgid`.
    pub fn new(pgid: i32) -> Self {
        Self(GROUPS.iter().position(|slot| {
            slot.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        }))
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(at) = self.0 {
            GROUPS[at].store(0, Ordering::SeqCst);
        }
    }
}

/// A mounted storage tmpfs, listed until dropped.
#[derive(Debug)]
pub struct MountGuard(Option<usize>);

impl MountGuard {
    /// Lists the mount at `path`.
    pub fn new(path: &Path) -> Self {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
            return Self(None);
        };
        let raw = c.into_raw();
        let at = MOUNTS.iter().position(|slot| {
            slot.compare_exchange(
                std::ptr::null_mut(),
                raw,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
        });
        if at.is_none() {
            // SAFETY: `raw` came from `into_raw` just above and was never shared.
            drop(unsafe { CString::from_raw(raw) });
        }
        Self(at)
    }
}

impl Drop for MountGuard {
    fn drop(&mut self) {
        let Some(at) = self.0 else { return };
        let raw = MOUNTS[at].swap(std::ptr::null_mut(), Ordering::SeqCst);
        if !raw.is_null() {
            // `now` marks the exit before it reads a slot: unmarked after the swap, it can
            // only read the slot after it, and finds it empty; marked, the string is left
            // for the exit to take.
            if !EXITING.load(Ordering::SeqCst) {
                // SAFETY: the slot held the only copy of a pointer from `into_raw`.
                drop(unsafe { CString::from_raw(raw) });
            }
        }
    }
}

/// Kills every listed process group and lazily detaches every listed mount. Makes only
/// system calls and atomic loads, so it may run in a signal handler.
pub fn now() {
    EXITING.store(true, Ordering::SeqCst);
    for slot in &GROUPS {
        let pgid = slot.load(Ordering::SeqCst);
        if pgid > 0 {
            // SAFETY: `kill` is async-signal-safe.
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
        }
    }
    for slot in &MOUNTS {
        let path = slot.load(Ordering::SeqCst);
        if !path.is_null() {
            // SAFETY: `umount2` is async-signal-safe; `path` is NUL-terminated and freed
            // only once the slot is cleared outside an exit (see `MountGuard`).
            unsafe { libc::umount2(path, libc::MNT_DETACH) };
        }
    }
}

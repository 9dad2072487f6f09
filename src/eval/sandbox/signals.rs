//! Ctrl-C and SIGTERM as a count, for the docker backend, whose teardown talks to the
//! engine and so cannot run in a signal handler (the local backend's can: see
//! [`teardown`](crate::eval::sandbox::teardown)). The handler only writes one byte per
//! signal into a pipe; a thread reads them and publishes how many were caught, so two
//! signals in quick succession are never read as one (tokio's signal streams merge them).

use std::io::Read;
use std::os::fd::IntoRawFd;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicI32, Ordering};

use nix::errno::Errno;
use nix::fcntl::{FcntlArg, OFlag, fcntl};
use nix::libc;
use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};
use tokio::sync::watch;

use crate::eval::sandbox::error::SandboxError;

/// The pipe's write end (-1 until installed); open for the rest of the process.
static WAKE: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_signal(_signal: libc::c_int) {
    let saved = Errno::last_raw();
    let fd = WAKE.load(Ordering::SeqCst);
    if fd >= 0 {
        let byte = 1u8;
        // SAFETY: `write` is async-signal-safe; the descriptor is never closed. The write end
        // does not block: a full pipe (thousands of unread signals) drops the byte.
        unsafe { libc::write(fd, (&raw const byte).cast(), 1) };
    }
    Errno::set_raw(saved);
}

/// How many Ctrl-C and SIGTERM signals the process has caught, as a watch whose value
/// only grows. The first call installs the handlers (for the rest of the process).
pub fn caught() -> Result<watch::Receiver<u64>, SandboxError> {
    static COUNT: OnceLock<Result<watch::Sender<u64>, (Signal, Errno)>> = OnceLock::new();
    COUNT
        .get_or_init(install)
        .as_ref()
        .map(watch::Sender::subscribe)
        .map_err(|&(signal, error)| SandboxError::SignalHandler { signal, error })
}

fn install() -> Result<watch::Sender<u64>, (Signal, Errno)> {
    let failed = |error| (Signal::SIGINT, error);
    let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC).map_err(failed)?;
    fcntl(&write, FcntlArg::F_SETFL(OFlag::O_NONBLOCK)).map_err(failed)?;
    let (count, _) = watch::channel(0u64);
    let publish = count.clone();
    std::thread::Builder::new()
        .name("skillgate-signals".into())
        .spawn(move || {
            let mut pipe = std::fs::File::from(read);
            let mut byte = [0u8; 1];
            loop {
                match pipe.read(&mut byte) {
                    Ok(1) => publish.send_modify(|n| *n += 1),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    _ => break,
                }
            }
        })
        .map_err(|e| failed(Errno::from_raw(e.raw_os_error().unwrap_or(libc::EAGAIN))))?;
    WAKE.store(write.into_raw_fd(), Ordering::SeqCst);
    let action = SigAction::new(
        SigHandler::Handler(on_signal),
        SaFlags::SA_RESTART,
        SigSet::empty(),
    );
    for signal in [Signal::SIGINT, Signal::SIGTERM] {
        // SAFETY: the handler only makes async-signal-safe calls on a descriptor that is
        // never closed.
        unsafe { sigaction(signal, &action) }.map_err(|e| (signal, e))?;
    }
    Ok(count)
}

//! Why a sandbox cannot run cells at all. These stop the run before its cells (or after a
//! worker died), except a task's own image failing (missing, not pulled, not built, the
//! agent not installed in it), which `prepare` turns into that task's refusal; a failure
//! inside one cell is a [`CellError`], journaled and retried.

use std::fmt;
use std::process::ExitStatus;

use super::CellError;

/// A sandbox that cannot run cells: the daemon is unreachable, an image is missing, the
/// agent cannot be installed, or the host cannot isolate commands.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The async runtime the Docker client needs cannot start.
    #[error("sandbox: starting the async runtime: {0}")]
    Runtime(std::io::Error),
    /// No Docker daemon answers.
    #[error("sandbox: the Docker daemon is unreachable: {0}")]
    Unreachable(bollard::errors::Error),
    /// The daemon refused a request that every run needs.
    #[error("sandbox: {action}: {error}")]
    Docker {
        /// What was asked, e.g. "listing containers".
        action: &'static str,
        /// What the daemon said.
        error: bollard::errors::Error,
    },
    /// A task's image is not on this machine.
    #[error("sandbox: task {task}: image `{image}` is missing ({error})")]
    ImageMissing {
        /// The task id.
        task: String,
        /// The image.
        image: String,
        /// What the daemon said.
        error: bollard::errors::Error,
    },
    /// A task's image is neither here nor in its registry, and the task has no Dockerfile.
    #[error("sandbox: task {task}: image `{image}` is missing and cannot be pulled: {error}")]
    Pull {
        /// The task id.
        task: String,
        /// The image.
        image: String,
        /// Why the pull failed.
        error: PullError,
    },
    /// A task's `environment/Dockerfile` does not build.
    #[error("sandbox: task {task}: building environment/Dockerfile failed: {error}")]
    Build {
        /// The task id.
        task: String,
        /// Why the build failed.
        error: BuildError,
    },
    /// The agent's install step fails in a task's image.
    #[error("sandbox: agent install in {image}: {error}")]
    AgentInstall {
        /// The image the agent was installed into.
        image: String,
        /// Why the install failed.
        error: InstallError,
    },
    /// A thread panicked while holding the table of resolved images.
    #[error("sandbox: the image table was left inconsistent by a panicked thread")]
    ImageTable,
    /// A worker thread panicked; the cells it ran are in the journal.
    #[error("sandbox: a worker panicked")]
    WorkerPanicked,
    /// `sh` cannot be started on this host.
    #[error("sandbox: cannot start `sh`: {0}")]
    NoShell(std::io::Error),
    /// `sh -c 'exit 0'` does not succeed on this host.
    #[error("sandbox: `sh -c 'exit 0'` failed: {0}")]
    ShellFails(ExitStatus),
    /// The local backend cannot make a control group to apply a task's limits.
    #[error(
        "sandbox: the local backend applies each task's CPU, memory and pid limits through \
         control groups and cannot make one: {0}"
    )]
    NoControlGroup(CgroupError),
    /// The local backend cannot make the namespaces that cut a command off the network.
    #[error(
        "sandbox: the local backend runs each command in mount and network namespaces of its \
         own and cannot make them ({0})"
    )]
    NoNamespaces(std::io::Error),
    /// A command in those namespaces does not start.
    #[error("sandbox: a command without network failed to start: {0}")]
    IsolatedCommandFails(ExitStatus),
    /// Ctrl-C cannot be caught, so an interrupted run could not clean up.
    #[error("sandbox: installing the {signal} handler: {error}")]
    SignalHandler {
        /// The signal.
        signal: nix::sys::signal::Signal,
        /// What the system said.
        error: nix::errno::Errno,
    },
}

/// Why no control group can be made.
#[derive(Debug, thiserror::Error)]
pub enum CgroupError {
    /// No writable cgroup hierarchy was found for this process.
    #[error("{0}")]
    Hierarchy(String),
    /// The hierarchy refuses a new group.
    #[error("{0}")]
    Create(std::io::Error),
}

impl From<String> for CgroupError {
    fn from(reason: String) -> Self {
        Self::Hierarchy(reason)
    }
}

impl From<std::io::Error> for CgroupError {
    fn from(e: std::io::Error) -> Self {
        Self::Create(e)
    }
}

/// Why an image cannot be pulled.
#[derive(Debug, thiserror::Error)]
pub enum PullError {
    /// The daemon failed the request.
    #[error("{0}")]
    Docker(bollard::errors::Error),
    /// The registry refused (the daemon passes its message on).
    #[error("{0}")]
    Registry(String),
}

/// Why an `environment/Dockerfile` does not build.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// `docker build` cannot be started.
    #[error("starting `docker build`: {0}")]
    Start(std::io::Error),
    /// `docker build` failed; the end of what it printed.
    #[error("{0}")]
    Failed(String),
    /// The engine's builder failed a step.
    #[error("{0}")]
    Docker(bollard::errors::Error),
}

/// Why the agent's install step fails.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The container for the install cannot be made.
    #[error("{0}")]
    Container(CellError),
    /// The daemon failed a request.
    #[error("{0}")]
    Docker(bollard::errors::Error),
    /// The install command exits with a failure.
    #[error("`{command}` exited with {code}: {log}")]
    Exited {
        /// The install command.
        command: String,
        /// Its exit code.
        code: ExitCode,
        /// The end of its output.
        log: String,
    },
}

/// An exit code as the daemon reports it (none when the command never finished).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitCode(pub Option<i64>);

impl fmt::Display for ExitCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(code) => write!(f, "code {code}"),
            None => f.write_str("no exit code"),
        }
    }
}

impl miette::Diagnostic for SandboxError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        let code = match self {
            Self::Runtime(_) => "runtime",
            Self::Unreachable(_) => "docker-unreachable",
            Self::Docker { .. } => "docker",
            Self::ImageMissing { .. } => "image-missing",
            Self::Pull { .. } => "image-pull",
            Self::Build { .. } => "image-build",
            Self::AgentInstall { .. } => "agent-install",
            Self::ImageTable | Self::WorkerPanicked => "panicked",
            Self::NoShell(_) | Self::ShellFails(_) => "no-shell",
            Self::NoControlGroup(_) => "no-cgroup",
            Self::NoNamespaces(_) | Self::IsolatedCommandFails(_) => "no-namespaces",
            Self::SignalHandler { .. } => "signal-handler",
        };
        Some(Box::new(format!("skillgate::sandbox::{code}")))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        let help = match self {
            Self::Unreachable(_) => {
                "start Docker (or set DOCKER_HOST to its socket), or use --backend local"
            }
            Self::ImageMissing { .. } | Self::Pull { .. } => {
                "pull or build the image, or give the task an environment/Dockerfile"
            }
            Self::Build { .. } => "run `docker build` on the task's environment/ folder to see why",
            Self::AgentInstall { .. } => {
                "check `install` in [eval] of skillgate.toml, or use an image with the agent installed"
            }
            Self::NoControlGroup(_) => {
                "run skillgate as root, or (with cgroup v2) under \
                 `systemd-run --user --scope -p Delegate=yes`, or use --backend docker"
            }
            Self::NoNamespaces(_) | Self::IsolatedCommandFails(_) => {
                "allow user namespaces (sysctl kernel.unprivileged_userns_clone=1), run \
                 skillgate as root, or use --backend docker"
            }
            _ => return None,
        };
        Some(Box::new(help))
    }
}

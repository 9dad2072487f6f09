//! The `local` backend: a temporary directory laid out like the container (workspace,
//! `tests/`, `logs/`, `skillgate/`), and each command in its own process group so a
//! time-out kills the whole tree. For machines without Docker; it isolates less (no
//! network switch, the host's programs are visible); `run.json` names the backend used.

use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use crate::eval::EvalError;
use crate::eval::sandbox::{Bundle, CellError, ExecResult, ExecSpec, Sandbox, Session};
use crate::eval::task::Task;

/// The workspace directory inside a session's root.
const WORKSPACE: &str = "/app";

/// The local backend.
#[derive(Debug, Clone, Default)]
pub struct LocalSandbox {
    /// Where temporary roots are made (the system temp dir when `None`).
    pub temp_root: Option<PathBuf>,
}

impl Sandbox for LocalSandbox {
    fn name(&self) -> &'static str {
        "local"
    }

    fn prepare(&self, _tasks: &[Task]) -> Result<(), EvalError> {
        // The protocol needs a POSIX shell; nothing else is assumed.
        match Command::new("sh").arg("-c").arg("exit 0").status() {
            Ok(s) if s.success() => Ok(()),
            Ok(s) => Err(EvalError::Sandbox(format!("`sh -c 'exit 0'` failed: {s}"))),
            Err(e) => Err(EvalError::Sandbox(format!("cannot start `sh`: {e}"))),
        }
    }

    fn open(&self, task: &Task, workspace: &Bundle) -> Result<Box<dyn Session + '_>, CellError> {
        let mut builder = tempfile::Builder::new();
        builder.prefix("skillgate-cell-");
        let root = match &self.temp_root {
            Some(dir) => builder.tempdir_in(dir),
            None => builder.tempdir(),
        }
        .map_err(|e| CellError::new("creating a temporary workspace", e))?;
        let mut session = LocalSession {
            root,
            memory_mb: task.config.environment.memory_mb,
        };
        for dir in ["home", "tmp", "logs/agent", "logs/verifier"] {
            std::fs::create_dir_all(session.root.path().join(dir))
                .map_err(|e| CellError::new("creating the layout", e))?;
        }
        session.upload(WORKSPACE, workspace)?;
        Ok(Box::new(session))
    }
}

/// One cell's temporary root; removed when dropped.
struct LocalSession {
    root: tempfile::TempDir,
    memory_mb: Option<u64>,
}

impl LocalSession {
    fn real(&self, path: &str) -> PathBuf {
        self.root.path().join(path.trim_start_matches('/'))
    }

    /// Wraps the command so a task's memory limit applies (as an address-space limit).
    fn argv(&self, argv: &[String]) -> Vec<String> {
        match self.memory_mb {
            Some(mb) => {
                let mut wrapped = vec![
                    "sh".to_owned(),
                    "-c".to_owned(),
                    format!("ulimit -v {} 2>/dev/null; exec \"$@\"", mb * 1024),
                    "sh".to_owned(),
                ];
                wrapped.extend_from_slice(argv);
                wrapped
            }
            None => argv.to_vec(),
        }
    }
}

impl Session for LocalSession {
    fn workdir(&self) -> String {
        self.real(WORKSPACE).to_string_lossy().into_owned()
    }

    fn path(&self, fixed: &str) -> String {
        self.real(fixed).to_string_lossy().into_owned()
    }

    fn upload(&mut self, dest: &str, bundle: &Bundle) -> Result<(), CellError> {
        // Session paths handed out by `path()` are already real; fixed ones are mapped.
        let dest = PathBuf::from(dest);
        let dest = if dest.starts_with(self.root.path()) {
            dest
        } else {
            self.real(&dest.to_string_lossy())
        };
        std::fs::create_dir_all(&dest).map_err(|e| CellError::new("creating a folder", e))?;
        bundle
            .write_into(&dest)
            .map_err(|e| CellError::new("copying files", e))
    }

    fn exec(&mut self, spec: &ExecSpec) -> Result<ExecResult, CellError> {
        for dir in &spec.fresh_dirs {
            self.remove(&[dir])?;
            std::fs::create_dir_all(dir)
                .map_err(|e| CellError::new(&format!("creating {dir}"), e))?;
        }
        let argv = self.argv(&spec.argv);
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| CellError("empty command".into()))?;
        let stdout =
            File::create(&spec.stdout).map_err(|e| CellError::new("creating the log", e))?;
        let stderr =
            File::create(&spec.stderr).map_err(|e| CellError::new("creating the log", e))?;
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(&spec.workdir)
            .env_clear()
            .env(
                "PATH",
                std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
            )
            .env("HOME", self.real("/home"))
            .env("TMPDIR", self.real("/tmp"))
            .env("LOGS_DIR", self.real("/logs"))
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .process_group(0);
        let mut child = command
            .spawn()
            .map_err(|e| CellError::new(&format!("starting {program}"), e))?;
        let pgid = Pid::from_raw(child.id() as i32);
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait());
        });
        let (status, timed_out) = match rx.recv_timeout(spec.timeout) {
            Ok(status) => (status, false),
            Err(_) => {
                let _ = killpg(pgid, Signal::SIGKILL);
                (rx.recv().map_err(|e| CellError::new("waiting", e))?, true)
            }
        };
        // Background processes the command left behind die with it.
        let _ = killpg(pgid, Signal::SIGKILL);
        let status = status.map_err(|e| CellError::new("waiting", e))?;
        Ok(ExecResult {
            exit: status.code(),
            timed_out,
        })
    }

    fn read(&mut self, path: &str) -> Result<Option<Vec<u8>>, CellError> {
        match std::fs::read(path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(CellError::new(&format!("reading {path}"), e)),
        }
    }

    fn remove(&mut self, paths: &[&str]) -> Result<(), CellError> {
        for path in paths {
            let p = PathBuf::from(path);
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

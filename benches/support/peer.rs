//! Finding a peer's own binary for the benchmarks: a version manager's shell shim in front of
//! it (pyenv's) adds tens of milliseconds per run, so the benches time what the shim runs.

use std::path::{Path, PathBuf};
use std::process::Command;

/// agnix's own binary: `AGNIX`, else the first `agnix` on PATH that is not a script, else
/// the binary a pyenv shim would run.
pub fn agnix() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("AGNIX").map(PathBuf::from) {
        return Some(path);
    }
    let found = which("agnix")?;
    if !is_script(&found) {
        return Some(found);
    }
    let out = Command::new("pyenv")
        .args(["which", "agnix"])
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    (out.status.success() && path.is_file() && !is_script(&path)).then_some(path)
}

/// Whether `path` starts with `#!` (a shell or Python shim rather than the program).
fn is_script(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|bytes| bytes.starts_with(b"#!"))
}

/// The first file called `name` on PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

//! The `[eval]` table of `skillgate.toml`: the evaluation layer's settings, every one of
//! which an option given for the run overrides.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::condition::Placement;

/// Which sandbox runs the cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// A container per cell (bollard).
    #[default]
    Docker,
    /// A temporary copy and a process group, for machines without Docker.
    Local,
}

impl Backend {
    /// `docker` or `local`.
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Docker => "docker",
            Backend::Local => "local",
        }
    }
}

/// The `[eval]` table of `skillgate.toml`; every field optional, command-line flags win.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Settings {
    /// `claude-code`, `codex` or `command`.
    pub agent: Option<String>,
    /// Program (or shell command, for `command`) that starts the agent.
    pub agent_cmd: Option<String>,
    /// Model name.
    pub model: Option<String>,
    /// Several models, each run on the same tasks, seeds and conditions, with a verdict
    /// for each (in place of `model`).
    pub models: Option<Vec<String>>,
    /// Seeds per (task, condition).
    pub seeds: Option<u32>,
    /// Attempts per cell.
    pub attempts: Option<u32>,
    /// Conditions, e.g. `["C0", "C1", "C2"]`.
    pub conditions: Option<Vec<String>>,
    /// `discover` or `inject`.
    pub placement: Option<Placement>,
    /// `docker` or `local`.
    pub backend: Option<Backend>,
    /// Cells at once.
    pub jobs: Option<usize>,
    /// Re-runs of a cell that ended in `error`.
    pub retries: Option<u32>,
    /// Upload the working tree (`.gitignore` respected) instead of the files tracked at HEAD.
    pub worktree: Option<bool>,
    /// Where cell outcomes are cached across runs.
    pub cache_dir: Option<PathBuf>,
    /// Host variables passed to the agent (model keys); GitHub tokens never are.
    pub pass_env: Option<Vec<String>>,
    /// Shell command installing the agent in the task image, run once per image and kept
    /// as a derived image.
    pub install: Option<String>,
    /// Refuse a task whose `[environment] storage` the backend cannot enforce (an engine
    /// without disk quotas), rather than run it without the limit.
    pub require_storage_limits: Option<bool>,
}

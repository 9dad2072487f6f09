//! Tasks in the Harbor/SkillsBench layout, and the checks `skillgate tasks check` runs.
//!
//! ```text
//! <task>/task.toml          [metadata] [agent] [verifier] [environment] [solution]
//! <task>/instruction.md     what the agent is asked to do; never names the skill
//! <task>/tests/test.sh      reward in /logs/verifier/reward.json or reward.txt, else exit 0
//! <task>/solution/solve.sh  optional oracle
//! <task>/environment/       optional Dockerfile (the image is built from it when
//!                           [environment] docker_image is absent, or cannot be had)
//! ```
//!
//! Every field Harbor defines is either honoured or refused with one line naming it, so a
//! task never runs under settings other than its own; see [`Task::load`].

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::eval::EvalError;
use crate::eval::condition::SkillParts;
use crate::snippet::Snippet;

/// The `[metadata]` key naming the commit a task starts from.
pub const BASE_COMMIT_KEY: &str = "base_commit";

/// Agent time limit when `task.toml` gives none (Harbor's default).
pub const DEFAULT_AGENT_TIMEOUT_SEC: f64 = 600.0;
/// Verifier time limit when `task.toml` gives none (Harbor's default).
pub const DEFAULT_VERIFIER_TIMEOUT_SEC: f64 = 600.0;
/// Length of the word runs compared when looking for a quoted skill in an instruction.
const QUOTE_WORDS: usize = 8;

/// `task.toml`. Unknown tables and keys are kept so tasks written for other runners load
/// unchanged; the ones that would change how the task runs are refused by [`Task::load`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskConfig {
    /// Free-form metadata (author, difficulty, tags...).
    #[serde(default)]
    pub metadata: toml::Table,
    /// The agent phase.
    #[serde(default)]
    pub agent: PhaseConfig,
    /// The verifier phase.
    #[serde(default)]
    pub verifier: PhaseConfig,
    /// The oracle (`solution/solve.sh`).
    #[serde(default)]
    pub solution: PhaseConfig,
    /// The sandbox the task runs in.
    #[serde(default)]
    pub environment: EnvironmentConfig,
    /// Anything else (`version`, `schema_version`, `[task]`, runner-specific tables).
    #[serde(flatten)]
    pub extra: toml::Table,
}

/// `[agent]`, `[verifier]` or `[solution]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseConfig {
    /// Wall-clock limit in seconds.
    pub timeout_sec: Option<f64>,
    /// Variables set for this phase; `${VAR}` and `${VAR:-default}` are read from the host.
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    /// The user the phase runs as (name or uid); the image's user when absent.
    pub user: Option<toml::Value>,
    /// `public` or `no-network` (`allowlist` is refused); the environment's when absent.
    pub network_mode: Option<String>,
    /// Hosts of an allowlist (refused: skillgate cannot enforce one).
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    /// Unknown keys, kept.
    #[serde(flatten)]
    pub extra: toml::Table,
}

/// `[environment]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EnvironmentConfig {
    /// A ready image; `environment/Dockerfile` may come with it for rebuilding.
    pub docker_image: Option<String>,
    /// CPU limit (cores).
    pub cpus: Option<f64>,
    /// Memory limit in MiB.
    pub memory_mb: Option<u64>,
    /// The older form of the memory limit (`"2G"`, `"512M"`); wins over `memory_mb`, as in
    /// Harbor.
    pub memory: Option<String>,
    /// Disk limit in MiB.
    pub storage_mb: Option<u64>,
    /// The older form of the disk limit (`"10G"`).
    pub storage: Option<String>,
    /// Whether the task may reach the network (Harbor's default: yes).
    pub allow_internet: Option<bool>,
    /// `public` or `no-network`; wins over `allow_internet`.
    pub network_mode: Option<String>,
    /// Hosts of an allowlist (refused: skillgate cannot enforce one).
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    /// Variables set for every phase; `${VAR}` and `${VAR:-default}` are read from the host.
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    /// The workspace root; the image's working directory, else `/app`, when absent.
    pub workdir: Option<String>,
    /// Unknown keys (`build_timeout_sec`...), kept.
    #[serde(flatten)]
    pub extra: toml::Table,
}

/// A phase of a cell, as the task's settings name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The agent.
    Agent,
    /// `tests/test.sh`.
    Verifier,
    /// `solution/solve.sh`.
    Solution,
}

/// What a task's settings resolve to: limits, variables, network and users per phase.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskSettings {
    /// Memory limit in MiB (from `memory_mb` or `memory`).
    pub memory_mb: Option<u64>,
    /// Disk limit in MiB (from `storage_mb` or `storage`).
    pub storage_mb: Option<u64>,
    /// The workspace root, when the task names one.
    pub workdir: Option<String>,
    /// `[environment.env]`, resolved.
    pub environment_env: Vec<(String, String)>,
    /// `[agent.env]`, resolved.
    pub agent_env: Vec<(String, String)>,
    /// `[verifier.env]`, resolved.
    pub verifier_env: Vec<(String, String)>,
    /// `[solution.env]`, resolved; read only when the oracle runs (`tasks check`), as
    /// Harbor reads it, so a host variable it needs is asked for then and only then.
    pub solution_env: Vec<(String, String)>,
    /// Why `[solution.env]` cannot be resolved (a host variable it needs is unset): the
    /// oracle cannot run, the agent and verifier can.
    pub solution_env_problem: Option<String>,
    /// Whether the environment (and so every phase without its own mode) has network.
    pub network: bool,
    /// `[agent] network_mode`, when given.
    pub agent_network: Option<bool>,
    /// `[verifier] network_mode`, when given.
    pub verifier_network: Option<bool>,
    /// `[agent] user`.
    pub agent_user: Option<String>,
    /// `[verifier] user`.
    pub verifier_user: Option<String>,
}

/// One loaded task.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// The task id: its directory name.
    pub id: String,
    /// The task directory.
    pub dir: PathBuf,
    /// The parsed `task.toml`.
    pub config: TaskConfig,
    /// The text of `instruction.md`.
    pub instruction: String,
    /// sha256 over every file of the task (paths and contents).
    pub sha256: String,
    /// The settings of `config`, resolved.
    pub settings: TaskSettings,
}

/// A task folder that could not be used, with the one line saying why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    /// The task id (its directory name).
    pub task: String,
    /// Why it was refused.
    pub reason: String,
}

/// The tasks of a folder: those that loaded, and why each other one did not.
#[derive(Debug, Default)]
pub struct TaskSet {
    /// Loaded tasks, sorted by id.
    pub tasks: Vec<Task>,
    /// Tasks that cannot be run, sorted by id.
    pub refused: Vec<Refused>,
}

/// A task that cannot be run, and every reason, typed.
#[derive(Debug)]
pub struct Refused {
    /// The task id (its directory name).
    pub task: String,
    /// Why; never empty.
    pub problems: Vec<TaskProblem>,
}

impl Refused {
    /// The line recorded in the run description and printed on stderr.
    pub fn record(&self) -> Refusal {
        Refusal {
            task: self.task.clone(),
            reason: join(&self.problems),
        }
    }
}

/// The problems as one line, `; `-separated.
pub fn join(problems: &[TaskProblem]) -> String {
    problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Why a task cannot be loaded or run as its files say, in one line naming the field.
#[derive(Debug, thiserror::Error)]
pub enum TaskProblem {
    /// A file of the task cannot be read.
    #[error("{action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `task.toml` is not valid TOML or not a task description.
    #[error("task.toml: {}", source.message())]
    Syntax {
        /// What the TOML reader said.
        source: toml::de::Error,
        /// The file and the span the reader pointed at.
        snippet: Box<Snippet>,
    },
    /// Harbor's multi-step tasks.
    #[error("multi-step tasks (`steps`) are not supported")]
    Steps,
    /// `allowed_hosts`, which would need a filtering proxy.
    #[error(
        "[{table}] allowed_hosts is not supported: skillgate cannot limit the network to some hosts"
    )]
    AllowedHosts {
        /// The table that sets it.
        table: &'static str,
    },
    /// A key of a table that would change how the task runs.
    #[error("[{table}] {key} is not supported")]
    UnsupportedKey {
        /// The table.
        table: &'static str,
        /// The key.
        key: &'static str,
    },
    /// A table that would change how the task runs.
    #[error("[{table}] is not supported (the verifier runs in the agent's environment)")]
    UnsupportedTable {
        /// The table.
        table: &'static str,
    },
    /// A top-level key that would change how the task runs.
    #[error("`{key}` is not supported")]
    UnsupportedTopKey {
        /// The key.
        key: &'static str,
    },
    /// A file that would change how the task runs.
    #[error("{file} is not supported")]
    UnsupportedFile {
        /// The path under the task folder.
        file: &'static str,
    },
    /// `[environment] memory` or `storage` is not a size.
    #[error("[environment] {field}: {problem}")]
    Size {
        /// `memory` or `storage`.
        field: &'static str,
        /// What is wrong with it.
        problem: SizeError,
    },
    /// `[environment] workdir` is relative or climbs out.
    #[error("[environment] workdir must be an absolute path without `..`, not `{workdir}`")]
    Workdir {
        /// The value as written.
        workdir: String,
    },
    /// An `env` value names a host variable that is not set.
    #[error("[{table}] {key} needs the host variable {variable}, which is not set")]
    HostVariable {
        /// The env table, e.g. `agent.env`.
        table: &'static str,
        /// The task's variable.
        key: String,
        /// The host variable it reads.
        variable: String,
    },
    /// `network_mode = "allowlist"`.
    #[error(
        "[{table}] network_mode = \"allowlist\" is not supported: skillgate cannot limit the network to some hosts"
    )]
    Allowlist {
        /// The table.
        table: &'static str,
    },
    /// A `network_mode` Harbor does not define.
    #[error("[{table}] network_mode must be \"public\" or \"no-network\", not \"{mode}\"")]
    NetworkMode {
        /// The table.
        table: &'static str,
        /// The value as written.
        mode: String,
    },
    /// A `user` that is neither a name nor a uid.
    #[error("[{table}] user must be a user name or a uid, not a {kind}")]
    User {
        /// The table.
        table: &'static str,
        /// The TOML type given instead.
        kind: &'static str,
    },
    /// `instruction.md` holds nothing.
    #[error("instruction.md is empty")]
    EmptyInstruction,
    /// The verifier script is missing.
    #[error("tests/test.sh is missing")]
    MissingVerifier,
    /// A time limit that is not a positive number.
    #[error("[{phase}] timeout_sec must be a positive number")]
    Timeout {
        /// `agent` or `verifier`.
        phase: &'static str,
    },
    /// `[environment] skills_dir`: the folder Harbor fills with the task's own skills. In
    /// `eval` the condition decides which skill the agent sees; a second one would blur it.
    #[error(
        "[environment] skills_dir = \"{dir}\" is not supported by eval: the condition decides which skill the agent sees, and the task's own skills would be a second one"
    )]
    SkillsDir {
        /// The folder as written.
        dir: String,
    },
    /// The instruction names the skill under evaluation.
    #[error("instruction names the skill `{name}`")]
    NamesSkill {
        /// The skill's name.
        name: String,
    },
    /// The instruction quotes a run of the skill's body.
    #[error("instruction quotes the skill: \"{quote}\"")]
    QuotesSkill {
        /// The quoted words.
        quote: String,
    },
    /// The docker backend has neither an image nor a Dockerfile to start from.
    #[error("needs [environment] docker_image or environment/Dockerfile for the docker backend")]
    NoImage,
    /// More than one of the above.
    #[error("{}", join(.0))]
    Several(Vec<TaskProblem>),
}

impl TaskProblem {
    /// One problem for a non-empty list: the problem itself when there is one.
    pub fn all(mut problems: Vec<TaskProblem>) -> Self {
        if problems.len() == 1 {
            problems.remove(0)
        } else {
            Self::Several(problems)
        }
    }

    /// The file and span the problem points at, when it has one.
    pub fn snippet(&self) -> Option<&Snippet> {
        match self {
            Self::Syntax { snippet, .. } => Some(snippet),
            _ => None,
        }
    }
}

/// Why a Harbor size string is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    /// Not a number with a `G`, `M` or `K` unit.
    #[error("`{0}` is not a size like \"2G\" or \"512M\"")]
    NotASize(String),
    /// Under one MiB.
    #[error("`{0}` is less than 1 MiB")]
    TooSmall(String),
}

/// A task's id: its directory name.
fn task_id(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string())
}

impl Task {
    /// Loads the task in `dir`.
    pub fn load(dir: &Path) -> Result<Task, EvalError> {
        let id = task_id(dir);
        Self::read(dir, id.clone()).map_err(|problem| EvalError::Task {
            task: id,
            problem: Box::new(problem),
        })
    }

    fn read(dir: &Path, id: String) -> Result<Task, TaskProblem> {
        let toml_path = dir.join("task.toml");
        let text = read_text(&toml_path)?;
        let config: TaskConfig = toml::from_str(&text).map_err(|source| {
            let span = source.span().unwrap_or(0..0);
            let name = toml_path.display().to_string();
            TaskProblem::Syntax {
                snippet: Box::new(Snippet::new(&name, &text, span, "here")),
                source,
            }
        })?;
        let settings = resolve(dir, &config, |k| std::env::var(k).ok())?;
        let instruction = read_text(&dir.join("instruction.md"))?;
        let sha256 = hash_tree(dir).map_err(|(action, path, source)| TaskProblem::Io {
            action,
            path,
            source,
        })?;
        Ok(Task {
            id,
            dir: dir.to_owned(),
            config,
            instruction,
            sha256,
            settings,
        })
    }

    /// Loads every task under `dir` (or `dir` itself when it is one task), sorted by id. A
    /// task that cannot load is refused with its reason, and the others still load.
    pub fn load_all(dir: &Path) -> Result<TaskSet, EvalError> {
        if dir.join("task.toml").is_file() {
            return Ok(TaskSet {
                tasks: vec![Task::load(dir)?],
                refused: Vec::new(),
            });
        }
        let entries = std::fs::read_dir(dir).map_err(|e| EvalError::io("reading", dir, e))?;
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join("task.toml").is_file())
            .collect();
        dirs.sort();
        if dirs.is_empty() {
            return Err(EvalError::NoTasks(dir.to_owned()));
        }
        let mut set = TaskSet::default();
        for d in &dirs {
            let id = task_id(d);
            match Task::read(d, id.clone()) {
                Ok(task) => set.tasks.push(task),
                Err(problem) => set.refused.push(Refused {
                    task: id,
                    problems: vec![problem],
                }),
            }
        }
        Ok(set)
    }

    /// The variables of a phase: the environment's, then the phase's own.
    pub fn env(&self, phase: Phase) -> Vec<(String, String)> {
        let own = match phase {
            Phase::Agent => &self.settings.agent_env,
            Phase::Verifier => &self.settings.verifier_env,
            Phase::Solution => &self.settings.solution_env,
        };
        let mut env = self.settings.environment_env.clone();
        env.extend(own.iter().cloned());
        env
    }

    /// Whether a phase has network under the task's own settings (Harbor's defaults: the
    /// environment's setting, and network when the task says nothing).
    pub fn network(&self, phase: Phase) -> bool {
        let own = match phase {
            Phase::Agent | Phase::Solution => self.settings.agent_network,
            Phase::Verifier => self.settings.verifier_network,
        };
        own.unwrap_or(self.settings.network)
    }

    /// The user a phase runs as, when the task names one.
    pub fn user(&self, phase: Phase) -> Option<&str> {
        match phase {
            Phase::Agent | Phase::Solution => self.settings.agent_user.as_deref(),
            Phase::Verifier => self.settings.verifier_user.as_deref(),
        }
    }

    /// The agent's time limit.
    pub fn agent_timeout(&self) -> std::time::Duration {
        seconds(
            self.config
                .agent
                .timeout_sec
                .unwrap_or(DEFAULT_AGENT_TIMEOUT_SEC),
        )
    }

    /// The verifier's time limit.
    pub fn verifier_timeout(&self) -> std::time::Duration {
        seconds(
            self.config
                .verifier
                .timeout_sec
                .unwrap_or(DEFAULT_VERIFIER_TIMEOUT_SEC),
        )
    }

    /// The commit the task starts from (`[metadata] base_commit`), when it names one: its
    /// workspace is `--repo` at that commit instead of the repository's current state.
    pub fn base_commit(&self) -> Option<&str> {
        self.config
            .metadata
            .get(BASE_COMMIT_KEY)
            .and_then(toml::Value::as_str)
            .map(str::trim)
            .filter(|c| !c.is_empty())
    }

    /// `tests/`, copied in only after the agent stops.
    pub fn tests_dir(&self) -> PathBuf {
        self.dir.join("tests")
    }

    /// `solution/`, when the task ships an oracle.
    pub fn solution_dir(&self) -> Option<PathBuf> {
        let dir = self.dir.join("solution");
        dir.join("solve.sh").is_file().then_some(dir)
    }

    /// `environment/Dockerfile`, when the task is built rather than pulled.
    pub fn dockerfile_dir(&self) -> Option<PathBuf> {
        let dir = self.dir.join("environment");
        dir.join("Dockerfile").is_file().then_some(dir)
    }

    /// `[environment] skills_dir`, when the task asks for one: the folder Harbor would
    /// install the task's own skills into before the agent runs. Only `eval` refuses it; the
    /// oracle proof of `tasks check` runs no agent and injects no skill.
    pub fn skills_dir(&self) -> Option<String> {
        let value = self.config.environment.extra.get("skills_dir")?;
        if !asks_for_something(value) {
            return None;
        }
        Some(match value {
            toml::Value::String(s) => s.trim().to_owned(),
            other => format!("a {}", other.type_str()),
        })
    }

    /// Problems that make the task unusable, without running anything. With a skill, an
    /// instruction that names or quotes it is refused: the agent must earn the skill's help.
    pub fn problems(&self, skill: Option<&SkillParts>) -> Vec<TaskProblem> {
        let mut problems = Vec::new();
        if self.instruction.trim().is_empty() {
            problems.push(TaskProblem::EmptyInstruction);
        }
        if !self.tests_dir().join("test.sh").is_file() {
            problems.push(TaskProblem::MissingVerifier);
        }
        for (phase, timeout) in [
            ("agent", self.config.agent.timeout_sec),
            ("verifier", self.config.verifier.timeout_sec),
        ] {
            if timeout.is_some_and(|t| !(t.is_finite() && t > 0.0)) {
                problems.push(TaskProblem::Timeout { phase });
            }
        }
        if let Some(skill) = skill {
            problems.extend(self.leaks(skill));
        }
        problems
    }

    /// Whether the instruction names the skill or quotes a run of its body.
    fn leaks(&self, skill: &SkillParts) -> Vec<TaskProblem> {
        let mut found = Vec::new();
        let instruction = words(&self.instruction);
        let name = words(&skill.name);
        if !name.is_empty()
            && instruction
                .windows(name.len())
                .any(|w| w == name.as_slice())
        {
            found.push(TaskProblem::NamesSkill {
                name: skill.name.clone(),
            });
        }
        let body = words(&skill.body);
        if let Some(quote) = body
            .windows(QUOTE_WORDS)
            .find(|run| instruction.windows(QUOTE_WORDS).any(|w| w == *run))
        {
            found.push(TaskProblem::QuotesSkill {
                quote: quote.join(" "),
            });
        }
        found
    }
}

/// Resolves the settings, or says (in one line naming the field) why the task is refused.
fn resolve(
    dir: &Path,
    config: &TaskConfig,
    host: impl Fn(&str) -> Option<String>,
) -> Result<TaskSettings, TaskProblem> {
    refuse_unsupported(dir, config)?;
    let environment = &config.environment;
    let memory_mb = match &environment.memory {
        Some(text) => Some(size_mb(text).map_err(|problem| TaskProblem::Size {
            field: "memory",
            problem,
        })?),
        None => environment.memory_mb,
    };
    let storage_mb = match &environment.storage {
        Some(text) => Some(size_mb(text).map_err(|problem| TaskProblem::Size {
            field: "storage",
            problem,
        })?),
        None => environment.storage_mb,
    };
    if let Some(workdir) = environment
        .workdir
        .as_ref()
        .filter(|w| !w.starts_with('/') || w.split('/').any(|p| p == ".."))
    {
        return Err(TaskProblem::Workdir {
            workdir: workdir.clone(),
        });
    }
    let env = |table: &'static str, vars: &std::collections::BTreeMap<String, String>| {
        vars.iter()
            .map(|(k, v)| {
                expand(v, &host)
                    .map(|v| (k.clone(), v))
                    .map_err(|variable| TaskProblem::HostVariable {
                        table,
                        key: k.clone(),
                        variable,
                    })
            })
            .collect::<Result<Vec<_>, TaskProblem>>()
    };
    let solution_env = env("solution.env", &config.solution.env);
    let network = match environment.network_mode.as_deref() {
        Some(mode) => network_mode("environment", mode)?,
        None => environment.allow_internet.unwrap_or(true),
    };
    let phase_network = |table: &'static str, phase: &PhaseConfig| {
        phase
            .network_mode
            .as_deref()
            .map(|m| network_mode(table, m))
            .transpose()
    };
    Ok(TaskSettings {
        memory_mb,
        storage_mb,
        workdir: environment.workdir.clone(),
        environment_env: env("environment.env", &environment.env)?,
        agent_env: env("agent.env", &config.agent.env)?,
        verifier_env: env("verifier.env", &config.verifier.env)?,
        solution_env: solution_env.as_ref().ok().cloned().unwrap_or_default(),
        solution_env_problem: solution_env.err().map(|p| p.to_string()),
        network,
        agent_network: phase_network("agent", &config.agent)?,
        verifier_network: phase_network("verifier", &config.verifier)?,
        agent_user: user("agent", config.agent.user.as_ref())?,
        verifier_user: user("verifier", config.verifier.user.as_ref())?,
    })
}

/// Fields and files that would change how the task runs, and that skillgate cannot honour.
fn refuse_unsupported(dir: &Path, config: &TaskConfig) -> Result<(), TaskProblem> {
    if config.extra.contains_key("steps") {
        return Err(TaskProblem::Steps);
    }
    let environment = &config.environment;
    for (table, hosts) in [
        ("environment", &environment.allowed_hosts),
        ("agent", &config.agent.allowed_hosts),
        ("verifier", &config.verifier.allowed_hosts),
    ] {
        if !hosts.is_empty() {
            return Err(TaskProblem::AllowedHosts { table });
        }
    }
    let asks = |table: &toml::Table, key: &str| table.get(key).is_some_and(asks_for_something);
    // `skills_dir` only matters where skills are injected: `eval` refuses it there (see
    // [`Task::skills_dir`]), while `tasks check` proves the oracle without any skill.
    for key in ["healthcheck", "mcp_servers", "gpu_types", "gpus"] {
        if asks(&environment.extra, key) {
            return Err(TaskProblem::UnsupportedKey {
                table: "environment",
                key,
            });
        }
    }
    // Harbor's `os` is `linux` (its default) or `windows`; a Windows environment cannot run
    // here.
    if environment
        .extra
        .get("os")
        .and_then(toml::Value::as_str)
        .is_some_and(|os| !os.trim().eq_ignore_ascii_case("linux"))
    {
        return Err(TaskProblem::UnsupportedKey {
            table: "environment",
            key: "os",
        });
    }
    // `environment_mode = "shared"` (Harbor's default, written out) runs the verifier in the
    // agent's environment, as skillgate does; a separate verifier environment is refused.
    let separate = |table: &toml::Table| {
        table
            .get("environment_mode")
            .and_then(toml::Value::as_str)
            .is_some_and(|mode| !matches!(mode.trim(), "" | "shared"))
    };
    if separate(&config.verifier.extra) {
        return Err(TaskProblem::UnsupportedKey {
            table: "verifier",
            key: "environment_mode",
        });
    }
    if asks(&config.verifier.extra, "environment") {
        return Err(TaskProblem::UnsupportedTable {
            table: "verifier.environment",
        });
    }
    for key in ["collect", "environment_mode", "artifacts"] {
        if key == "environment_mode" {
            if separate(&config.extra) {
                return Err(TaskProblem::UnsupportedTopKey { key });
            }
            continue;
        }
        if asks(&config.verifier.extra, key) {
            return Err(TaskProblem::UnsupportedKey {
                table: "verifier",
                key,
            });
        }
        if asks(&config.extra, key) {
            return Err(TaskProblem::UnsupportedTopKey { key });
        }
    }
    for file in [
        "environment/docker-compose.yaml",
        "environment/docker-compose.yml",
        "tests/Dockerfile",
    ] {
        if dir.join(file).is_file() {
            return Err(TaskProblem::UnsupportedFile { file });
        }
    }
    Ok(())
}

/// Whether a field's value asks for something: Harbor writes `mcp_servers = []` and
/// `gpus = 0` into tasks that want no MCP server and no GPU, and those run as they are.
fn asks_for_something(value: &toml::Value) -> bool {
    match value {
        toml::Value::String(s) => !s.trim().is_empty(),
        toml::Value::Integer(n) => *n != 0,
        toml::Value::Float(f) => *f != 0.0,
        toml::Value::Boolean(b) => *b,
        toml::Value::Array(items) => !items.is_empty(),
        toml::Value::Table(table) => !table.is_empty(),
        toml::Value::Datetime(_) => true,
    }
}

/// `public` → network, `no-network` → none; anything else is refused.
fn network_mode(table: &'static str, mode: &str) -> Result<bool, TaskProblem> {
    match mode {
        "public" => Ok(true),
        "no-network" => Ok(false),
        "allowlist" => Err(TaskProblem::Allowlist { table }),
        other => Err(TaskProblem::NetworkMode {
            table,
            mode: other.to_owned(),
        }),
    }
}

/// A user as a name or a uid.
fn user(table: &'static str, value: Option<&toml::Value>) -> Result<Option<String>, TaskProblem> {
    match value {
        None => Ok(None),
        Some(toml::Value::String(name)) if !name.trim().is_empty() => Ok(Some(name.clone())),
        Some(toml::Value::Integer(uid)) if *uid >= 0 => Ok(Some(uid.to_string())),
        Some(other) => Err(TaskProblem::User {
            table,
            kind: other.type_str(),
        }),
    }
}

/// Harbor's size strings: `2G`, `512M`, `4096K` (case-insensitive), in MiB.
pub fn size_mb(text: &str) -> Result<u64, SizeError> {
    let t = text.trim().to_ascii_uppercase();
    // The unit is the last character, whatever its width: `2é` is no size, not a panic.
    let unit_at = t.char_indices().last().map_or(0, |(at, _)| at);
    let (number, unit) = t.split_at(unit_at);
    let not_a_size = || SizeError::NotASize(text.to_owned());
    let value: f64 = number.trim().parse().map_err(|_| not_a_size())?;
    let mb = match unit {
        "G" => value * 1024.0,
        "M" => value,
        "K" => value / 1024.0,
        _ => return Err(not_a_size()),
    };
    if !(mb.is_finite() && mb >= 1.0) {
        return Err(SizeError::TooSmall(text.to_owned()));
    }
    Ok(mb as u64)
}

/// Expands `${VAR}` and `${VAR:-default}` from `host`; the error names the missing variable.
fn expand(value: &str, host: &impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        match (host(name), default) {
            (Some(v), _) => out.push_str(&v),
            (None, Some(d)) => out.push_str(d),
            (None, None) => return Err(name.to_owned()),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Lower-cased words (letters and digits), so punctuation and case do not hide a quote.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn seconds(s: f64) -> std::time::Duration {
    std::time::Duration::try_from_secs_f64(s).unwrap_or(std::time::Duration::from_secs(1))
}

fn read_text(path: &Path) -> Result<String, TaskProblem> {
    std::fs::read_to_string(path).map_err(|source| TaskProblem::Io {
        action: "reading",
        path: path.to_owned(),
        source,
    })
}

/// A failed file operation: what was done, on which path, and why.
type FileFailure = (&'static str, PathBuf, std::io::Error);

/// sha256 over the relative paths and contents of every file under `dir`, in path order.
/// Symbolic links are hashed by their target, never followed out of the tree.
pub fn tree_sha256(dir: &Path) -> Result<String, EvalError> {
    hash_tree(dir).map_err(|(action, path, source)| EvalError::io(action, path, source))
}

fn hash_tree(dir: &Path) -> Result<String, FileFailure> {
    let mut files = Vec::new();
    collect_files(dir, dir, &mut files)?;
    files.sort();
    let reading = |path: &Path| {
        let path = path.to_owned();
        move |e| ("reading", path, e)
    };
    let mut all = Vec::new();
    for rel in files {
        let path = dir.join(&rel);
        let meta = std::fs::symlink_metadata(&path).map_err(reading(&path))?;
        let contents = if meta.file_type().is_symlink() {
            std::fs::read_link(&path)
                .map_err(reading(&path))?
                .to_string_lossy()
                .into_owned()
                .into_bytes()
        } else {
            std::fs::read(&path).map_err(reading(&path))?
        };
        all.extend_from_slice(rel.as_bytes());
        all.push(0);
        all.extend_from_slice(crate::eval::sha256_hex(&contents).as_bytes());
        all.push(b'\n');
    }
    Ok(crate::eval::sha256_hex(&all))
}

fn collect_files(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<(), FileFailure> {
    let reading = |path: &Path| {
        let path = path.to_owned();
        move |e| ("reading", path, e)
    };
    let entries = std::fs::read_dir(dir).map_err(reading(dir))?;
    for entry in entries {
        let entry = entry.map_err(reading(dir))?;
        let path = entry.path();
        let kind = entry.file_type().map_err(reading(&path))?;
        if kind.is_dir() {
            collect_files(root, &path, out)?;
        } else if let Ok(rel) = path.strip_prefix(root) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task_in(dir: &Path, toml: &str, instruction: &str) -> Option<Task> {
        std::fs::create_dir_all(dir.join("tests")).unwrap();
        std::fs::write(dir.join("task.toml"), toml).unwrap();
        std::fs::write(dir.join("instruction.md"), instruction).unwrap();
        std::fs::write(dir.join("tests/test.sh"), "exit 0\n").unwrap();
        Task::load(dir).ok()
    }

    #[test]
    fn unknown_fields_are_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let toml = "version = \"1.0\"\n[metadata]\ndifficulty = \"easy\"\n[agent]\ntimeout_sec = 30.0\n\
                    [verifier]\ntimeout_sec = 5\nretries = 2\n[environment]\ncpus = 1\nmemory_mb = 512\nstorage_mb = 100\n[harbor]\nx = 1\n";
        let task = task_in(tmp.path(), toml, "Do it.\n").unwrap();
        assert_eq!(task.config.agent.timeout_sec, Some(30.0));
        assert_eq!(task.config.verifier.timeout_sec, Some(5.0));
        assert_eq!(task.config.verifier.extra["retries"].as_integer(), Some(2));
        assert_eq!(task.settings.storage_mb, Some(100));
        assert!(task.config.extra.contains_key("harbor"));
        assert!(task.config.extra.contains_key("version"));
        assert_eq!(task.agent_timeout().as_secs(), 30);
        assert!(task.problems(None).is_empty());
    }

    #[test]
    fn instructions_that_name_or_quote_the_skill_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let skill = SkillParts {
            name: "release-notes".into(),
            dir: tmp.path().into(),
            frontmatter: String::new(),
            body: "Always group the changes by component and list breaking changes first in the notes.\n".into(),
            code_blocks: vec![],
            prohibitions: vec![],
        };
        let named = task_in(&tmp.path().join("a"), "", "Use the Release Notes skill.\n").unwrap();
        assert!(
            named.problems(Some(&skill))[0]
                .to_string()
                .contains("names the skill")
        );
        let quoted = task_in(
            &tmp.path().join("b"),
            "",
            "Please: group the changes by component, and list breaking changes first!\n",
        )
        .unwrap();
        assert!(
            quoted.problems(Some(&skill))[0]
                .to_string()
                .contains("quotes the skill")
        );
        let clean = task_in(&tmp.path().join("c"), "", "Write notes for version 2.\n").unwrap();
        assert!(clean.problems(Some(&skill)).is_empty());
    }

    fn settings(toml: &str) -> Result<TaskSettings, String> {
        let config: TaskConfig = toml::from_str(toml).unwrap();
        let host = |k: &str| (k == "HOST_KEY").then(|| "secret".to_owned());
        resolve(Path::new("/nonexistent"), &config, host).map_err(|e| e.to_string())
    }

    #[test]
    fn harbor_settings_resolve() {
        let s = settings(
            "[environment]\nmemory = \"2G\"\nmemory_mb = 512\nstorage = \"10G\"\nworkdir = \"/workspace\"\n\
             allow_internet = false\n[environment.env]\nMODE = \"ci\"\n\
             [verifier]\nnetwork_mode = \"public\"\nuser = 1000\n[verifier.env]\nKEY = \"${HOST_KEY}\"\n\
             OTHER = \"x-${MISSING:-fallback}-y\"\n[solution.env]\nS = \"1\"\n[agent]\nuser = \"agent\"\n",
        )
        .unwrap();
        assert_eq!((s.memory_mb, s.storage_mb), (Some(2048), Some(10240)));
        assert_eq!(s.workdir.as_deref(), Some("/workspace"));
        assert_eq!(s.environment_env, vec![("MODE".into(), "ci".into())]);
        assert_eq!(
            s.verifier_env,
            vec![
                ("KEY".into(), "secret".into()),
                ("OTHER".into(), "x-fallback-y".into())
            ]
        );
        assert_eq!(s.solution_env, vec![("S".into(), "1".into())]);
        assert!(!s.network);
        assert_eq!((s.agent_network, s.verifier_network), (None, Some(true)));
        assert_eq!(s.agent_user.as_deref(), Some("agent"));
        assert_eq!(s.verifier_user.as_deref(), Some("1000"));
        let defaults = settings("").unwrap();
        assert!(defaults.network, "Harbor's default: internet allowed");
        assert_eq!(defaults.memory_mb, None);
    }

    #[test]
    fn unsupported_fields_are_refused_in_one_line_naming_them() {
        for (toml, expected) in [
            ("[[steps]]\nname = \"a\"\n", "`steps`"),
            (
                "[environment]\nnetwork_mode = \"allowlist\"\nallowed_hosts = [\"pypi.org\"]\n",
                "allowed_hosts",
            ),
            (
                "[verifier]\nnetwork_mode = \"allowlist\"\n",
                "[verifier] network_mode",
            ),
            ("[environment]\nmemory = \"lots\"\n", "[environment] memory"),
            (
                "[environment.healthcheck]\ncommand = \"true\"\n",
                "[environment] healthcheck",
            ),
            ("[environment]\ngpus = 1\n", "[environment] gpus"),
            (
                "[[verifier.collect]]\npath = \"/x\"\n",
                "[verifier] collect",
            ),
            (
                "[verifier]\nenvironment_mode = \"separate\"\n",
                "[verifier] environment_mode",
            ),
            (
                "[verifier.env]\nK = \"${NOT_SET_ANYWHERE}\"\n",
                "[verifier.env] K needs the host variable NOT_SET_ANYWHERE",
            ),
            (
                "[environment]\nworkdir = \"app\"\n",
                "[environment] workdir",
            ),
            ("[environment]\nos = \"windows\"\n", "[environment] os"),
            (
                "[verifier.environment]\ndocker_image = \"python:3.12\"\n",
                "[verifier.environment]",
            ),
        ] {
            let reason = settings(toml).unwrap_err();
            assert!(reason.contains(expected), "{toml}: {reason}");
            assert!(!reason.contains('\n'), "{reason}");
        }
    }

    /// Fields Harbor reads one way and skillgate runs the same way: the verifier in the
    /// agent's environment (`environment_mode = "shared"`), Linux, and `[solution.env]`
    /// read only when the oracle runs.
    #[test]
    fn harbor_defaults_written_out_are_accepted() {
        let harbor = "[verifier]\nenvironment_mode = \"shared\"\n[environment]\nos = \"linux\"\n\
                      [solution.env]\nKEY = \"${NOT_SET_ANYWHERE_EITHER}\"\n";
        let s = settings(harbor).unwrap();
        assert!(
            s.solution_env_problem
                .unwrap()
                .contains("[solution.env] KEY needs the host variable NOT_SET_ANYWHERE_EITHER")
        );
    }

    /// Harbor's task template writes the fields it does not use as empty values; a task
    /// that asks for no MCP server and no GPU runs (the shape of real Harbor tasks).
    #[test]
    fn empty_values_of_unsupported_fields_ask_for_nothing() {
        let harbor = "[environment]\ncpus = 1\nmemory_mb = 2048\nstorage_mb = 10240\ngpus = 0\n\
                      allow_internet = false\nmcp_servers = []\ngpu_types = []\n";
        assert!(settings(harbor).is_ok(), "{:?}", settings(harbor));
        let asked = "[environment]\nmcp_servers = [{ name = \"db\" }]\n";
        assert!(
            settings(asked)
                .unwrap_err()
                .contains("[environment] mcp_servers")
        );
    }

    /// `skills_dir` loads: `tasks check` proves such a task's oracle; only `eval`, which
    /// injects skills, refuses it (with [`TaskProblem::SkillsDir`]).
    #[test]
    fn skills_dir_loads_and_is_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        let task = |toml: &str| task_in(tmp.path(), toml, "Do it.\n").expect("loads");
        let asked = task("[environment]\nskills_dir = \"/root/.claude/skills\"\n");
        assert_eq!(asked.skills_dir().as_deref(), Some("/root/.claude/skills"));
        assert_eq!(
            TaskProblem::SkillsDir {
                dir: asked.skills_dir().unwrap()
            }
            .to_string(),
            "[environment] skills_dir = \"/root/.claude/skills\" is not supported by eval: the \
             condition decides which skill the agent sees, and the task's own skills would be a \
             second one"
        );
        assert_eq!(
            task("[environment]\nskills_dir = \"\"\n").skills_dir(),
            None
        );
        assert_eq!(task("").skills_dir(), None);
    }

    #[test]
    fn sizes_read_like_harbor() {
        assert_eq!(size_mb("2G"), Ok(2048));
        assert_eq!(size_mb("512m"), Ok(512));
        assert_eq!(size_mb(" 1.5G "), Ok(1536));
        assert_eq!(size_mb("4096K"), Ok(4));
        assert!(size_mb("2GB").is_err());
        assert!(size_mb("2é").is_err());
        assert!(size_mb("é").is_err());
        assert!(size_mb("").is_err());
        assert!(size_mb("10K").is_err());
    }

    #[test]
    fn one_unloadable_task_is_refused_and_the_rest_load() {
        let tmp = tempfile::tempdir().unwrap();
        task_in(&tmp.path().join("good"), "", "Do it.\n");
        task_in(
            &tmp.path().join("steps"),
            "[[steps]]\nname = \"one\"\n",
            "Do it.\n",
        );
        let broken = tmp.path().join("broken");
        std::fs::create_dir_all(&broken).unwrap();
        std::fs::write(broken.join("task.toml"), "[agent\n").unwrap();
        let set = Task::load_all(tmp.path()).unwrap();
        assert_eq!(
            set.tasks.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
            ["good"]
        );
        let refused: Vec<_> = set.refused.iter().map(Refused::record).collect();
        assert_eq!(refused.len(), 2, "{refused:?}");
        assert!(
            refused[0].task == "broken" && refused[0].reason.starts_with("task.toml:"),
            "{refused:?}"
        );
        assert!(matches!(
            set.refused[0].problems.as_slice(),
            [TaskProblem::Syntax { .. }]
        ));
        assert_eq!(
            (refused[1].task.as_str(), refused[1].reason.as_str()),
            ("steps", "multi-step tasks (`steps`) are not supported")
        );
    }

    #[test]
    fn task_hash_changes_with_any_file() {
        let tmp = tempfile::tempdir().unwrap();
        let before = task_in(tmp.path(), "", "Do it.\n").unwrap().sha256;
        std::fs::write(tmp.path().join("tests/test.sh"), "exit 1\n").unwrap();
        assert_ne!(before, Task::load(tmp.path()).unwrap().sha256);
    }
}

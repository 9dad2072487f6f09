//! The paired evaluation: run an agent on a repository's tasks with and without the skill,
//! in a sandbox, and journal every cell's outcome.
//!
//! Data flows one way: tasks and the skill are loaded once, each cell is rendered into a
//! workspace (condition + placement), run in a sandbox by an agent, verified, and appended
//! to the journal. Statistics read the journal; nothing here decides a verdict.

pub mod agent;
pub mod base;
mod clock;
pub mod condition;
pub mod control;
pub mod journal;
pub mod merge;
pub mod options;
pub mod runner;
pub mod sandbox;
pub mod settings;
pub mod task;

use std::path::PathBuf;

pub use condition::{Condition, Placement, SkillParts};
pub use journal::{AttemptRecord, CellRecord, Outcome};
pub use options::{EvalOptions, Overrides};
pub use settings::{Backend, Settings};

/// Everything that can go wrong while preparing or running an evaluation.
///
/// An agent that crashes inside a cell is not an `EvalError`: it is recorded as an `error`
/// outcome in the journal. These errors stop the run (or a check) as a whole.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A file or directory could not be read or written.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done, e.g. "reading".
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A task directory does not follow the task layout, or asks for what cannot be given.
    #[error("task {task}: {problem}")]
    Task {
        /// The task id (its directory name).
        task: String,
        /// What is wrong.
        problem: Box<task::TaskProblem>,
    },
    /// The repository's files cannot be read from git.
    #[error(
        "{} is not a git repository with a HEAD commit (use --worktree to upload the working tree): {detail}",
        path.display()
    )]
    NotARepository {
        /// The repository folder.
        path: PathBuf,
        /// What git said.
        detail: String,
    },
    /// A tasks folder holds no task.
    #[error("no task (a folder with task.toml) in {}", .0.display())]
    NoTasks(PathBuf),
    /// The control-text pool cannot produce a matched C2 body.
    #[error("control pool: the pool needs both prose paragraphs and code blocks")]
    ControlPool,
    /// The journal or the run description of a run directory is unusable.
    #[error("journal {}: {problem}", path.display())]
    Journal {
        /// The journal file, or `run.json`.
        path: PathBuf,
        /// What is wrong.
        problem: journal::JournalProblem,
    },
    /// The sandbox cannot run cells at all (daemon unreachable, no namespaces); a task's
    /// image that cannot be had refuses that task instead.
    #[error(transparent)]
    Sandbox(#[from] sandbox::SandboxError),
    /// The run was interrupted (Ctrl-C); its journal holds every cell finished before.
    #[error("interrupted")]
    Interrupted,
    /// No SKILL.md was named.
    #[error("the SKILL.md to evaluate is required")]
    MissingSkill,
    /// No agent was named, by flag or in `[eval]`.
    #[error("--agent is required (claude-code, codex or command)")]
    MissingAgent,
    /// `--agent command` without the command.
    #[error("--agent command needs --agent-cmd")]
    MissingAgentCommand,
    /// A flag's (or its `[eval]` key's) value cannot be read.
    #[error("{flag}: {reason}")]
    InvalidValue {
        /// The flag, e.g. `--agent`.
        flag: &'static str,
        /// Why the value is refused, as its parser says.
        reason: String,
    },
    /// A count that must be at least 1 is 0.
    #[error("--seeds, --attempts and -j must be at least 1")]
    ZeroCount,
    /// `--resume` with options that differ from the run's.
    #[error(
        "a resumed run keeps the options it was started with, and these differ: {}",
        differs.join(", ")
    )]
    ResumeDiffers {
        /// Each differing flag: `--seeds 3 (the run has 2)`.
        differs: Vec<String>,
    },
    /// Every task of the folder was refused.
    #[error("none of the {count} tasks in {} can be run", tasks.display())]
    NoUsableTask {
        /// The tasks folder.
        tasks: PathBuf,
        /// How many tasks it holds.
        count: usize,
    },
    /// Every task needs something the chosen backend does not have.
    #[error("no task in {} can be run on the {backend} backend", tasks.display())]
    NoTaskForBackend {
        /// The tasks folder.
        tasks: PathBuf,
        /// The backend's name.
        backend: &'static str,
    },
    /// Tasks name a base commit, so the repository must be a git repository.
    #[error(
        "{}: tasks name a base commit, so --repo must be a git repository: {detail}",
        repo.display()
    )]
    BaseNeedsGit {
        /// The repository folder.
        repo: PathBuf,
        /// What git said.
        detail: String,
    },
    /// A task's base commit is not in the repository.
    #[error("{}: base commit {commit} is not in this repository", repo.display())]
    MissingBaseCommit {
        /// The repository folder.
        repo: PathBuf,
        /// The commit.
        commit: String,
    },
    /// `git archive` of a base commit failed.
    #[error("{}: git archive {tree}: {said}", repo.display())]
    Archive {
        /// The repository folder.
        repo: PathBuf,
        /// The tree asked for (`commit`, or `commit:prefix` below the top level).
        tree: String,
        /// What git said (its stderr), or how unpacking its output failed.
        said: String,
    },
    /// Shards' run directories that cannot be joined.
    #[error(transparent)]
    Merge(#[from] merge::MergeError),
}

impl miette::Diagnostic for EvalError {
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        match self {
            Self::Task { problem, .. } => problem.snippet().map(|s| s.source_code()),
            _ => None,
        }
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        match self {
            Self::Task { problem, .. } => problem.snippet().map(|s| s.labels()),
            _ => None,
        }
    }

    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        let code = match self {
            Self::Sandbox(e) => return e.code(),
            Self::Io { .. } => "io",
            Self::Task { .. } => "task",
            Self::NotARepository { .. } | Self::BaseNeedsGit { .. } => "not-a-repository",
            Self::NoTasks(_) | Self::NoUsableTask { .. } | Self::NoTaskForBackend { .. } => {
                "no-task"
            }
            Self::ControlPool => "control-pool",
            Self::Journal { .. } => "journal",
            Self::Interrupted => "interrupted",
            Self::MissingSkill
            | Self::MissingAgent
            | Self::MissingAgentCommand
            | Self::InvalidValue { .. }
            | Self::ZeroCount => "option",
            Self::ResumeDiffers { .. } => "resume",
            Self::MissingBaseCommit { .. } | Self::Archive { .. } => "base-commit",
            Self::Merge(_) => "merge",
        };
        Some(Box::new(format!("skillgate::eval::{code}")))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        let help = match self {
            Self::Sandbox(e) => return e.help(),
            Self::MissingSkill => "name it: `skillgate eval path/to/SKILL.md ...`",
            Self::MissingAgent => "pass --agent, or set `agent` in [eval] of skillgate.toml",
            Self::MissingAgentCommand => {
                "--agent-cmd gives the program that plays the agent (docs/agents.md)"
            }
            Self::ResumeDiffers { .. } => "start a new run with --out to change them",
            Self::NoTaskForBackend { .. } => "the lines above say why each task was skipped",
            Self::MissingBaseCommit { .. } => "fetch it, or mine the tasks from this clone",
            Self::NoTasks(_) => "`skillgate tasks mine` writes tasks from a repository's history",
            _ => return None,
        };
        Some(Box::new(help))
    }
}

impl EvalError {
    /// Wraps an I/O error with the action and path it happened on.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

/// Hex-encoded sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The sandbox `options` ask for; `run_id` labels its containers.
pub fn sandbox_for(
    backend: Backend,
    run_id: &str,
    install: Option<String>,
    build: bool,
    require_storage_limits: bool,
) -> Result<Box<dyn sandbox::Sandbox>, EvalError> {
    Ok(match backend {
        Backend::Docker => Box::new(
            sandbox::docker::DockerSandbox::connect(run_id, install)?
                .build_images(build)
                .require_storage_limits(require_storage_limits),
        ),
        Backend::Local => Box::new(sandbox::local::LocalSandbox::default()),
    })
}

/// The repository files every workspace starts from.
pub fn repo_bundle(repo: &std::path::Path, worktree: bool) -> Result<sandbox::Bundle, EvalError> {
    let mut bundle = sandbox::Bundle::new();
    if worktree {
        bundle.add_worktree(repo)?;
    } else {
        bundle.add_git_head(repo)?;
    }
    Ok(bundle)
}

/// Runs `skillgate eval`: loads the tasks, builds the C2 control, prepares the sandbox
/// (failing once, before any cell, if it cannot run) and runs every cell not yet journaled.
pub fn evaluate(options: &EvalOptions, skill: SkillParts) -> Result<runner::RunSummary, EvalError> {
    let mut set = task::Task::load_all(&options.tasks)?;
    // A task that cannot be used is reported and left out; the others still run.
    let mut tasks = Vec::new();
    for task in std::mem::take(&mut set.tasks) {
        let mut problems = task.problems(Some(&skill));
        // The task's own skills would sit beside the condition's.
        problems.extend(
            task.skills_dir()
                .map(|dir| task::TaskProblem::SkillsDir { dir }),
        );
        if problems.is_empty() {
            tasks.push(task);
        } else {
            set.refused.push(task::Refused {
                task: task.id,
                problems,
            });
        }
    }
    set.refused.sort_by(|a, b| a.task.cmp(&b.task));
    let refused: Vec<task::Refusal> = set.refused.iter().map(task::Refused::record).collect();
    for refusal in &refused {
        eprintln!("skipped task {}: {}", refusal.task, refusal.reason);
    }
    if tasks.is_empty() {
        let count = set.refused.len();
        return Err(match <[task::Refused; 1]>::try_from(set.refused) {
            Ok([one]) => EvalError::Task {
                task: one.task,
                problem: Box::new(task::TaskProblem::all(one.problems)),
            },
            Err(_) => EvalError::NoUsableTask {
                tasks: options.tasks.clone(),
                count,
            },
        });
    }
    let control = control::ControlPool::builtin().matched_body(&skill)?;
    let repo = repo_bundle(&options.repo, options.worktree)?;
    let bases = base::Bases::load(&options.repo, &tasks)?;
    let skill_sha256 = if skill.dir.is_dir() {
        task::tree_sha256(&skill.dir)?
    } else {
        sha256_hex(format!("{}{}", skill.frontmatter, skill.body).as_bytes())
    };
    let plan = runner::Plan {
        repo_sha256: repo.sha256()?,
        repo,
        bases,
        skill,
        skill_sha256,
        control,
        tasks,
        agent: agent_setup(options),
        conditions: options.conditions.clone(),
        placement: options.placement,
        seeds: options.seeds,
        attempts: options.attempts,
        retries: options.retries,
        jobs: options.jobs,
        cache: options.cache_dir.as_ref().map(journal::OutcomeCache::new),
        quiet: options.quiet,
        verifier_offline: options.verifier_offline,
        refused,
        shard: options.shard,
    };
    let run_id = run_id(&options.out);
    let sandbox = sandbox_for(
        options.backend,
        &run_id,
        options.install.clone(),
        options.build,
        options.require_storage_limits,
    )?;
    let mut plan = plan;
    let (runnable, refused): (Vec<_>, Vec<_>) = std::mem::take(&mut plan.tasks)
        .into_iter()
        .partition(|t| sandbox.refuses(t).is_none());
    for task in &refused {
        let reason = sandbox.refuses(task).unwrap_or_default();
        eprintln!("skipped task {}: {reason}", task.id);
        plan.refused.push(task::Refusal {
            task: task.id.clone(),
            reason,
        });
    }
    // A task whose environment cannot be had (an image neither pulled nor built) is
    // skipped with the reason; the others still run.
    let unavailable = sandbox.prepare(&runnable)?;
    for refusal in &unavailable {
        eprintln!("skipped task {}: {}", refusal.task, refusal.reason);
    }
    let runnable: Vec<task::Task> = runnable
        .into_iter()
        .filter(|t| !unavailable.iter().any(|r| r.task == t.id))
        .collect();
    plan.refused.extend(unavailable.iter().cloned());
    if runnable.is_empty() {
        return Err(EvalError::NoTaskForBackend {
            tasks: options.tasks.clone(),
            backend: sandbox.name(),
        });
    }
    plan.tasks = runnable;
    plan.agent.version = agent_version(&plan.agent, sandbox.as_ref());
    if let Some(line) = storage_not_enforced_line(sandbox.as_ref(), &plan.tasks) {
        eprintln!("{line}");
    }
    let mut summary = runner::run(
        &plan,
        sandbox.as_ref(),
        &options.out,
        options.resume,
        options,
    )?;
    summary.unavailable = unavailable;
    Ok(summary)
}

/// The one line saying that the backend runs tasks without their `[environment] storage`
/// limit (`None` when every limit is enforced): the reason, and how many tasks set one.
pub fn storage_not_enforced_line(
    sandbox: &dyn sandbox::Sandbox,
    tasks: &[task::Task],
) -> Option<String> {
    let reasons: Vec<String> = tasks
        .iter()
        .filter_map(|t| sandbox.storage_not_enforced(t))
        .collect();
    let first = reasons.first()?;
    Some(format!(
        "storage limits are not enforced: {first}; {} {} set one (--require-storage-limits refuses {} instead)",
        reasons.len(),
        if reasons.len() == 1 { "task" } else { "tasks" },
        if reasons.len() == 1 { "it" } else { "them" },
    ))
}

/// The line that names the tasks left out because their environment could not be had
/// (`None` when every task ran): `verdicts` is what stands on the other tasks.
pub fn left_out_line(unavailable: &[task::Refusal], verdicts: &str) -> Option<String> {
    if unavailable.is_empty() {
        return None;
    }
    let names: Vec<&str> = unavailable.iter().map(|r| r.task.as_str()).collect();
    let one = names.len() == 1;
    Some(format!(
        "{} {} could not be run because {} environment could not be had ({}); the {verdicts} \
         {} on the other tasks",
        names.len(),
        if one { "task" } else { "tasks" },
        if one { "its" } else { "their" },
        names.join(", "),
        if verdicts.ends_with('s') {
            "stand"
        } else {
            "stands"
        },
    ))
}

/// The agent as the options describe it; an `--agent-cmd` naming a host file is uploaded.
pub fn agent_setup(options: &EvalOptions) -> runner::AgentSetup {
    let program = options
        .agent_cmd
        .clone()
        .or_else(|| options.agent.default_program().map(str::to_owned))
        .unwrap_or_default();
    // Inside a container, or under the local backend's private `/tmp`, a program given as a
    // host path (its first word) may be out of reach: it is uploaded with the cell.
    let first = program.split_whitespace().next().unwrap_or_default();
    let host = std::path::Path::new(first);
    let host_program = host.is_file().then(|| host.to_owned());
    let host_paths = named_host_paths(&program);
    runner::AgentSetup {
        kind: options.agent,
        host_paths,
        program,
        host_program,
        model: options.model.clone(),
        models: options.models.clone(),
        pass_env: options.pass_env.clone(),
        version: None,
    }
}

/// The agent's version, as the cache fingerprint and the verdict use it: the `--version`
/// output of the command's program where the cells run it (unless that program is a host
/// file, uploaded as it is), and `sha256:` with the first 16 hex digits of a hash over the
/// host files and folders the command names (an `--agent-cmd` script, `python3
/// /opt/agent/main.py`'s script), joined by `; `. `None` when neither says anything (a
/// program without `--version`, naming no host file).
pub fn agent_version(setup: &runner::AgentSetup, sandbox: &dyn sandbox::Sandbox) -> Option<String> {
    let mut parts = Vec::new();
    if setup.host_program.is_none()
        && let Some(program) = setup.program.split_whitespace().next()
        && let Some(version) = sandbox.program_version(program)
    {
        parts.push(version);
    }
    let files: Vec<&PathBuf> = setup.host_program.iter().chain(&setup.host_paths).collect();
    if !files.is_empty() {
        let mut all = String::new();
        for file in files {
            let hash = if file.is_dir() {
                task::tree_sha256(file).ok()
            } else {
                std::fs::read(file).ok().map(|b| sha256_hex(&b))
            };
            all.push_str(&format!(
                "{}\0{}\n",
                file.display(),
                hash.unwrap_or_default()
            ));
        }
        parts.push(format!("sha256:{}", &sha256_hex(all.as_bytes())[..16]));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The absolute host paths that a command names after its first word, as words of their
/// own or as an option's value (`--config=/tmp/x.toml`), with quotes taken off; only those
/// that exist, in order, each once.
pub fn named_host_paths(command: &str) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = Vec::new();
    for word in command.split_whitespace().skip(1) {
        let word = word.trim_matches(|c| c == '"' || c == '\'');
        let value = match word.split_once('=') {
            Some((name, value)) if name.starts_with('-') => value,
            _ => word,
        };
        let path = std::path::Path::new(value);
        if path.is_absolute()
            && path
                .components()
                .all(|c| c != std::path::Component::ParentDir)
            && path.exists()
            && !paths.iter().any(|p| p == path)
        {
            paths.push(path.to_owned());
        }
    }
    paths
}

/// A stable identity for a run directory (its absolute path, hashed).
pub fn run_id(run_dir: &std::path::Path) -> String {
    let abs = std::path::absolute(run_dir).unwrap_or_else(|_| run_dir.to_owned());
    sha256_hex(abs.to_string_lossy().as_bytes())[..16].to_owned()
}

/// One task's result in `skillgate tasks check`.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskCheck {
    /// The task id.
    pub task: String,
    /// Problems found (empty when the task is usable).
    pub problems: Vec<String>,
    /// Settings of the task that the backend does not enforce.
    pub notes: Vec<String>,
    /// The discrimination proof, when the task has a solution and the sandbox could run.
    pub discrimination: Option<runner::Discrimination>,
}

/// What `tasks check` says of a task's `[environment] skills_dir`: the oracle proof needs
/// no skill, so it is proved as it is, and `eval` refuses it.
fn skills_dir_note(task: &task::Task) -> Option<String> {
    task.skills_dir().map(|dir| {
        format!(
            "[environment] skills_dir = \"{dir}\" is not used: the oracle proof injects no skill, and eval refuses the task (the condition decides which skill the agent sees)"
        )
    })
}

/// Runs `skillgate tasks check`: validates every task and proves the ones with a solution
/// discriminate (the verifier fails untouched and passes after the oracle). A task that
/// cannot be loaded, or that the backend cannot run as its settings say, is a problem of
/// that task; the others are still checked.
pub fn check_tasks(
    tasks_dir: &std::path::Path,
    skill: Option<&SkillParts>,
    repo: &sandbox::Bundle,
    repo_dir: &std::path::Path,
    sandbox: &dyn sandbox::Sandbox,
    logs: &std::path::Path,
    verifier_offline: bool,
) -> Result<Vec<TaskCheck>, EvalError> {
    let set = task::Task::load_all(tasks_dir)?;
    let mut out: Vec<TaskCheck> = set
        .refused
        .iter()
        .map(|r| TaskCheck {
            task: r.task.clone(),
            problems: r.problems.iter().map(ToString::to_string).collect(),
            notes: Vec::new(),
            discrimination: None,
        })
        .collect();
    let (tasks, refused): (Vec<_>, Vec<_>) = set
        .tasks
        .into_iter()
        .partition(|t| sandbox.refuses(t).is_none());
    for task in &refused {
        out.push(TaskCheck {
            task: task.id.clone(),
            problems: sandbox.refuses(task).into_iter().collect(),
            notes: Vec::new(),
            discrimination: None,
        });
    }
    // A task whose environment cannot be had (an image neither pulled nor built) is a
    // problem of that task; the others are still proved.
    let unavailable = sandbox.prepare(&tasks)?;
    let (tasks, unprepared): (Vec<_>, Vec<_>) = tasks
        .into_iter()
        .partition(|t| !unavailable.iter().any(|r| r.task == t.id));
    for task in &unprepared {
        out.push(TaskCheck {
            task: task.id.clone(),
            problems: unavailable
                .iter()
                .filter(|r| r.task == task.id)
                .map(|r| r.reason.clone())
                .collect(),
            notes: sandbox.environment_note(task).into_iter().collect(),
            discrimination: None,
        });
    }
    let bases = base::Bases::load(repo_dir, &tasks)?;
    for task in &tasks {
        let mut problems: Vec<String> = task
            .problems(skill)
            .iter()
            .map(ToString::to_string)
            .collect();
        let discrimination = match runner::prove_discrimination(
            sandbox,
            task,
            bases.for_task(task, repo),
            &logs.join(&task.id),
            verifier_offline,
        ) {
            Ok(d) => d,
            Err(e) => {
                problems.push(format!("discrimination proof: {e}"));
                None
            }
        };
        if sandbox.interrupted() {
            // Ended by the interruption: not a finding about the task.
            sandbox.after_interrupt();
            return Err(EvalError::Interrupted);
        }
        if let Some(d) = &discrimination {
            if d.untouched.passed {
                problems.push("the verifier passes on the untouched repository".into());
            }
            if !d.solved.passed {
                problems.push("the verifier fails after solution/solve.sh".into());
            }
        }
        let environment = sandbox.environment_note(task);
        if let Some(note) = &environment {
            // A proof that failed where the environment was not fully reproduced says so.
            for problem in &mut problems {
                if problem.starts_with("discrimination proof")
                    || problem.starts_with("the verifier fails after")
                {
                    problem.push_str(&format!(" ({note})"));
                }
            }
        }
        out.push(TaskCheck {
            task: task.id.clone(),
            problems,
            notes: sandbox
                .storage_not_enforced(task)
                .into_iter()
                .chain(environment)
                .chain(skills_dir_note(task))
                .collect(),
            discrimination,
        });
    }
    out.sort_by(|a, b| a.task.cmp(&b.task));
    Ok(out)
}

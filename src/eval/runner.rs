//! Runs the cells of an evaluation: conditions × tasks × seeds, each with up to K attempts
//! in a fresh sandbox, `-j N` at a time, appending each finished cell to the journal.

use std::collections::{BTreeMap, HashMap};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;

use crate::eval::EvalError;
use crate::eval::agent::{AgentKind, AgentReport, Invocation, Usage, passed_env, protocol_env};
use crate::eval::clock::rfc3339;
use crate::eval::condition::{
    Condition, Placement, PresentedSkill, SkillParts, instruction_at, present,
};
use crate::eval::control::{BodyMeasure, ControlBody};
use crate::eval::journal::{
    AttemptRecord, CellKey, CellRecord, Journal, Outcome, OutcomeCache, Resumption, RunInfo,
    read_run_info, write_run_info,
};
use crate::eval::journal::{PhaseNetwork, StorageNotEnforced};
use crate::eval::options::EvalOptions;
use crate::eval::sandbox::{
    Bundle, CONTROL_DIR, CellError, ExecSpec, SOLUTION_DIR, Sandbox, Session, TESTS_DIR,
    VERIFIER_LOGS_DIR, tail,
};
use crate::eval::task::{Phase, Task};
use crate::shard::Shard;

/// The key of the agent's version in `run.json`'s `versions`.
pub const AGENT_VERSION: &str = "agent";

/// Verifier output kept as feedback for the next attempt.
const FEEDBACK_BYTES: usize = 16 * 1024;

/// How the agent is started.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentSetup {
    /// The kind (decides the command line, the skills folder and the usage format).
    pub kind: AgentKind,
    /// The program or, for `command`, the shell command.
    pub program: String,
    /// A host file uploaded into the sandbox and run in place of `program`'s first word
    /// (the rest of `program` follows it as arguments).
    pub host_program: Option<PathBuf>,
    /// Host files and folders the rest of `program` names (`python3 /tmp/x/agent.py`),
    /// shown read-only at their own paths where the sandbox can (see [`ExecSpec`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub host_paths: Vec<PathBuf>,
    /// The model, if chosen.
    pub model: Option<String>,
    /// The models of a run over several (`--models`): every cell is run once per model,
    /// and the model replaces `model`. Empty for a run over one model.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<String>,
    /// Names of host variables passed to the agent (model keys).
    pub pass_env: Vec<String>,
    /// The agent's version: its `--version` output where it runs, and the hash of the
    /// host files its command names (see [`crate::eval::agent_version`]); `None` when
    /// neither says anything. Part of the cache fingerprint, and recorded in `run.json`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

impl AgentSetup {
    /// The models cells are run with: `models`, or the one `model` (empty when the agent
    /// chooses).
    pub fn cell_models(&self) -> Vec<String> {
        if self.models.is_empty() {
            vec![self.model.clone().unwrap_or_default()]
        } else {
            self.models.clone()
        }
    }
}

/// Everything a run needs, resolved.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The skill under evaluation.
    pub skill: SkillParts,
    /// sha256 of the skill folder (or text, when it has no folder).
    pub skill_sha256: String,
    /// The matched C2 body.
    pub control: ControlBody,
    /// The tasks.
    pub tasks: Vec<Task>,
    /// The repository files every workspace starts from.
    pub repo: Bundle,
    /// sha256 of `repo`.
    pub repo_sha256: String,
    /// The repository at each task's base commit (tasks naming none start from `repo`).
    pub bases: crate::eval::base::Bases,
    /// The agent.
    pub agent: AgentSetup,
    /// Conditions to run.
    pub conditions: Vec<Condition>,
    /// Placement of the skill.
    pub placement: Placement,
    /// Seeds per (task, condition).
    pub seeds: u32,
    /// Attempts per cell (Pass@k).
    pub attempts: u32,
    /// How often a cell that ended in `error` is run again.
    pub retries: u32,
    /// Cells run at once.
    pub jobs: usize,
    /// Cross-run cache of outcomes.
    pub cache: Option<OutcomeCache>,
    /// Plain progress lines instead of a bar.
    pub quiet: bool,
    /// Run every verifier without network, whatever the task allows.
    pub verifier_offline: bool,
    /// Task folders that could not be used, each with its reason.
    pub refused: Vec<crate::eval::task::Refusal>,
    /// The share of the cells this run holds, when it is one of several.
    pub shard: Option<Shard>,
}

/// Counts of a finished run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunSummary {
    /// Cells in the plan.
    pub planned: usize,
    /// Cells already in the journal when the run started (resume).
    pub skipped: usize,
    /// Cells taken from the cache.
    pub cached: usize,
    /// Cells run now.
    pub ran: usize,
    /// Passes per condition among the cells run or cached now.
    pub passes: BTreeMap<Condition, usize>,
    /// Cells per outcome run or cached now.
    pub outcomes: BTreeMap<&'static str, usize>,
    /// Tasks left out because their environment could not be had (an image neither pulled
    /// nor built), with the reason: the run went on without them, but it is not whole.
    pub unavailable: Vec<crate::eval::task::Refusal>,
}

impl Plan {
    /// Every cell of the plan (of this run's shard, when it is one), seed-major so a
    /// partial run is balanced across conditions.
    pub fn cells(&self) -> Vec<(CellKey, usize)> {
        let mut cells = Vec::new();
        let several = !self.agent.models.is_empty();
        for seed in 0..self.seeds {
            for (t, task) in self.tasks.iter().enumerate() {
                for model in self.agent.cell_models() {
                    for &condition in &self.conditions {
                        let shard_key = if several {
                            model_shard_key(&model, &task.id, condition, seed)
                        } else {
                            cell_shard_key(&task.id, condition, seed)
                        };
                        if self.shard.is_some_and(|s| !s.owns(&shard_key)) {
                            continue;
                        }
                        cells.push((
                            CellKey {
                                skill_sha256: self.skill_sha256.clone(),
                                task: task.id.clone(),
                                task_sha256: task.sha256.clone(),
                                agent: self.agent.kind.as_str().to_owned(),
                                model: model.clone(),
                                condition,
                                seed,
                            },
                            t,
                        ));
                    }
                }
            }
        }
        cells
    }

    /// What, beyond the cell key, can change a cell's outcome (for the cache).
    fn cache_context(&self, backend: &str) -> serde_json::Value {
        serde_json::json!({
            "repo": self.repo_sha256,
            "placement": self.placement,
            "attempts": self.attempts,
            "program": self.agent.program,
            "agent_version": self.agent.version,
            "backend": backend,
        })
    }

    /// The skill as each condition presents it.
    fn presented(&self) -> HashMap<Condition, Option<PresentedSkill>> {
        self.conditions
            .iter()
            .map(|&c| (c, present(c, &self.skill, &self.control.body)))
            .collect()
    }

    /// The workspace of a condition: the repository (`repo`, the current state or a task's
    /// base commit) plus, under `discover`, the skill folder.
    fn workspace(
        &self,
        repo: &Bundle,
        skill: Option<&PresentedSkill>,
    ) -> Result<Bundle, EvalError> {
        let mut bundle = repo.clone();
        let (Some(skill), Placement::Discover) = (skill, self.placement) else {
            return Ok(bundle);
        };
        let dir = self.agent.kind.skill_dir(&skill.name);
        if let Some(support) = &skill.support_dir {
            let mut files = Bundle::new();
            if support.is_dir() {
                files.add_dir(&dir, support)?;
            }
            for entry in files.entries() {
                if entry.path != format!("{dir}/SKILL.md") {
                    bundle.add_bytes(&entry.path, entry.read()?, entry.executable);
                }
            }
        }
        bundle.add_bytes(&format!("{dir}/SKILL.md"), skill.skill_md.clone(), false);
        Ok(bundle)
    }
}

/// The key that decides a cell's shard: its task, condition and seed, so every shard of a
/// run agrees on the split whatever its machine.
pub fn cell_shard_key(task: &str, condition: Condition, seed: u32) -> String {
    format!("{task}/{condition:?}/{seed}")
}

/// The shard key of a cell in a run over several models: the model is part of it, so the
/// shares of a matrix spread every model's cells.
pub fn model_shard_key(model: &str, task: &str, condition: Condition, seed: u32) -> String {
    format!("{model}/{task}/{condition:?}/{seed}")
}

/// A model's name as a folder name: characters other than letters, digits, `.`, `_` and
/// `-` become `_`.
fn model_dir(model: &str) -> String {
    model
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Runs every cell of `plan` not yet in the journal of `run_dir`, on a sandbox already
/// prepared for the plan's tasks.
pub fn run(
    plan: &Plan,
    sandbox: &dyn Sandbox,
    run_dir: &Path,
    resume: bool,
    options: &EvalOptions,
) -> Result<RunSummary, EvalError> {
    if plan.jobs == 0 || plan.attempts == 0 || plan.seeds == 0 {
        return Err(EvalError::ZeroCount);
    }
    let journal = if resume {
        Journal::resume(run_dir)?
    } else {
        Journal::create(run_dir)?
    };
    let command: Vec<String> = std::env::args().collect();
    let now = rfc3339(SystemTime::now());
    // A resumed run keeps its first command and start, and adds this invocation to them.
    let previous = resume.then(|| read_run_info(run_dir).ok()).flatten();
    let mut resumed = previous
        .as_ref()
        .map(|p| p.resumed.clone())
        .unwrap_or_default();
    if resume {
        resumed.push(Resumption {
            command: command.clone(),
            at: now.clone(),
        });
    }
    let mut info = RunInfo {
        schema: 1,
        command: previous.as_ref().map_or(command, |p| p.command.clone()),
        config: options.clone(),
        versions: BTreeMap::from([
            ("skillgate".to_owned(), env!("CARGO_PKG_VERSION").to_owned()),
            ("backend".to_owned(), sandbox.name().to_owned()),
        ])
        .into_iter()
        .chain(
            plan.agent
                .version
                .clone()
                .map(|v| (AGENT_VERSION.to_owned(), v)),
        )
        .collect(),
        skill_body: BodyMeasure::of_skill(&plan.skill),
        control_body: plan.control.measure,
        started_at: previous.map_or(now, |p| p.started_at),
        resumed,
        finished_at: None,
        cells: BTreeMap::from([("planned".to_owned(), plan.cells().len())]),
        tasks_refused: plan.refused.clone(),
    };
    write_run_info(run_dir, &info)?;
    let summary = run_cells(plan, sandbox, run_dir, journal)?;
    info.finished_at = Some(rfc3339(SystemTime::now()));
    info.cells
        .extend(summary.outcomes.iter().map(|(k, v)| ((*k).to_owned(), *v)));
    write_run_info(run_dir, &info)?;
    Ok(summary)
}

fn run_cells(
    plan: &Plan,
    sandbox: &dyn Sandbox,
    run_dir: &Path,
    journal: Journal,
) -> Result<RunSummary, EvalError> {
    let presented = plan.presented();
    let mut workspaces = HashMap::new();
    for (&c, skill) in &presented {
        workspaces.insert((c, None), plan.workspace(&plan.repo, skill.as_ref())?);
        for task in &plan.tasks {
            let Some(base) = task.base_commit() else {
                continue;
            };
            if let std::collections::hash_map::Entry::Vacant(slot) =
                workspaces.entry((c, Some(base.to_owned())))
            {
                let repo = plan.bases.for_task(task, &plan.repo);
                slot.insert(plan.workspace(repo, skill.as_ref())?);
            }
        }
    }
    let all = plan.cells();
    let todo: Vec<_> = all
        .iter()
        .filter(|(k, _)| !journal.contains(k))
        .cloned()
        .collect();
    let summary = RunSummary {
        planned: all.len(),
        skipped: all.len() - todo.len(),
        ..RunSummary::default()
    };
    let workers = Workers {
        plan,
        sandbox,
        run_dir,
        presented,
        workspaces,
        context: plan.cache_context(sandbox.name()),
        progress: Progress::new(todo.len() as u64, plan.quiet),
        state: Mutex::new(WorkState {
            journal,
            noted: std::collections::HashSet::new(),
            summary,
            todo: todo.into_iter(),
            failure: None,
        }),
    };
    std::thread::scope(|scope| {
        for _ in 0..plan.jobs {
            scope.spawn(|| workers.work());
        }
    });
    workers.progress.finish();
    if sandbox.interrupted() {
        // Never report an interrupted run as finished.
        sandbox.after_interrupt();
        return Err(EvalError::Interrupted);
    }
    let state = workers
        .state
        .into_inner()
        .map_err(|_| crate::eval::sandbox::SandboxError::WorkerPanicked)?;
    match state.failure {
        Some(e) => Err(e),
        None => Ok(state.summary),
    }
}

/// What the workers share, behind one lock: taking a cell and journaling one are short.
struct WorkState {
    journal: Journal,
    /// Tasks whose removed environment skills were already reported.
    noted: std::collections::HashSet<String>,
    summary: RunSummary,
    todo: std::vec::IntoIter<(CellKey, usize)>,
    failure: Option<EvalError>,
}

/// The `-j N` workers of one run.
struct Workers<'a> {
    plan: &'a Plan,
    sandbox: &'a dyn Sandbox,
    run_dir: &'a Path,
    presented: HashMap<Condition, Option<PresentedSkill>>,
    /// Per condition and base commit (`None`: the repository's current state).
    workspaces: HashMap<(Condition, Option<String>), Bundle>,
    context: serde_json::Value,
    progress: Progress,
    state: Mutex<WorkState>,
}

impl Workers<'_> {
    /// Takes cells until none is left, the journal fails or the run is interrupted.
    fn work(&self) {
        while let Some((key, task)) = self.next() {
            let fingerprint = OutcomeCache::fingerprint(&key, &self.context);
            let cached = self.plan.cache.as_ref().and_then(|c| c.get(&fingerprint));
            let from_cache = cached.is_some();
            let cell = cached.unwrap_or_else(|| self.run(&key, task));
            if self.sandbox.interrupted() {
                break; // ended by the interruption: not a result
            }
            let stored = match (&self.plan.cache, from_cache) {
                (Some(cache), false) => cache.put(&fingerprint, &cell),
                _ => Ok(()),
            };
            if let Err(e) = stored {
                self.fail(e);
                break;
            }
            if !self.record(&cell, from_cache) {
                break;
            }
        }
    }

    fn next(&self) -> Option<(CellKey, usize)> {
        let mut state = self.state.lock().ok()?;
        if state.failure.is_some() {
            return None;
        }
        state.todo.next()
    }

    fn run(&self, key: &CellKey, task: usize) -> CellRecord {
        let skill = self.presented.get(&key.condition).cloned().flatten();
        let task = &self.plan.tasks[task];
        let base = task.base_commit().map(str::to_owned);
        let Some(workspace) = self.workspaces.get(&(key.condition, base)) else {
            return CellRecord::new(key.clone(), Vec::new());
        };
        run_cell(
            self.plan,
            self.sandbox,
            task,
            key,
            skill.as_ref(),
            workspace,
            self.run_dir,
        )
    }

    /// Journals a finished cell and counts it; false when the journal failed.
    fn record(&self, cell: &CellRecord, from_cache: bool) -> bool {
        let Ok(mut state) = self.state.lock() else {
            return false;
        };
        if let Err(e) = state.journal.append(cell) {
            state.failure.get_or_insert(e);
            return false;
        }
        if !cell.environment_skills_removed.is_empty() && state.noted.insert(cell.task.clone()) {
            eprintln!(
                "note: the environment of task {} holds skills where agents look ({}); they are removed in every cell, so only the condition's own skill is there",
                cell.task,
                cell.environment_skills_removed.join(", ")
            );
        }
        let totals = &mut state.summary;
        if from_cache {
            totals.cached += 1;
        } else {
            totals.ran += 1;
        }
        *totals
            .outcomes
            .entry(outcome_name(cell.outcome))
            .or_default() += 1;
        if cell.outcome == Outcome::Pass {
            *totals.passes.entry(cell.condition).or_default() += 1;
        }
        self.progress.cell_done(cell, &totals.passes, from_cache);
        true
    }

    fn fail(&self, e: EvalError) {
        if let Ok(mut state) = self.state.lock() {
            state.failure.get_or_insert(e);
        }
    }
}

fn outcome_name(o: Outcome) -> &'static str {
    match o {
        Outcome::Pass => "pass",
        Outcome::Fail => "fail",
        Outcome::Error => "error",
        Outcome::Timeout => "timeout",
    }
}

/// One cell, retried while it ends in `error` (up to the plan's retry count).
fn run_cell(
    plan: &Plan,
    sandbox: &dyn Sandbox,
    task: &Task,
    key: &CellKey,
    skill: Option<&PresentedSkill>,
    workspace: &Bundle,
    run_dir: &Path,
) -> CellRecord {
    let mut record = None;
    for retry in 0..=plan.retries {
        let mut logs = run_dir.join("logs").join(&task.id);
        if !plan.agent.models.is_empty() {
            logs.push(model_dir(&key.model));
        }
        let logs = logs.join(format!("{}-s{}-r{retry}", key.condition, key.seed));
        let model = Some(key.model.as_str()).filter(|m| !m.is_empty());
        let (attempts, removed) = match std::fs::create_dir_all(&logs) {
            Ok(()) => run_attempts(plan, sandbox, task, (skill, model), workspace, &logs),
            Err(e) => (
                vec![error_attempt(
                    0.0,
                    CellError::new("creating the log directory", e),
                )],
                Vec::new(),
            ),
        };
        let mut cell = CellRecord::new(key.clone(), attempts);
        cell.environment_skills_removed = removed;
        cell.storage_not_enforced = task.settings.storage_mb.and_then(|limit_mb| {
            let reason = sandbox.storage_not_enforced(task)?;
            Some(StorageNotEnforced { limit_mb, reason })
        });
        cell.environment_not_reproduced = sandbox.environment_note(task);
        let done = cell.outcome != Outcome::Error;
        record = Some(cell);
        if done {
            break;
        }
    }
    record.unwrap_or_else(|| CellRecord::new(key.clone(), Vec::new()))
}

fn run_attempts(
    plan: &Plan,
    sandbox: &dyn Sandbox,
    task: &Task,
    (skill, model): (Option<&PresentedSkill>, Option<&str>),
    workspace: &Bundle,
    logs: &Path,
) -> (Vec<AttemptRecord>, Vec<String>) {
    let started = Instant::now();
    let mut session = match sandbox.open(task, workspace) {
        Ok(s) => s,
        Err(e) => {
            return (
                vec![error_attempt(started.elapsed().as_secs_f64(), e)],
                Vec::new(),
            );
        }
    };
    let removed = session.removed_skills();
    let cell = CellRun {
        plan,
        task,
        skill,
        model,
        logs,
    };
    let mut attempts = Vec::new();
    let mut feedback = None;
    for n in 1..=plan.attempts {
        let t0 = Instant::now();
        let result = cell.attempt(session.as_mut(), n, feedback.as_deref());
        let record = match result {
            Ok((mut record, next_feedback)) => {
                record.wall_s = t0.elapsed().as_secs_f64();
                feedback = next_feedback;
                record
            }
            Err(e) => error_attempt(t0.elapsed().as_secs_f64(), e),
        };
        let stop = matches!(record.outcome, Outcome::Pass | Outcome::Error);
        attempts.push(record);
        if stop {
            break;
        }
    }
    (attempts, removed)
}

fn error_attempt(wall_s: f64, e: CellError) -> AttemptRecord {
    AttemptRecord {
        outcome: Outcome::Error,
        reward: None,
        input_tokens: 0,
        output_tokens: 0,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        reasoning_output_tokens: 0,
        cost_usd: None,
        models: Default::default(),
        rewards: BTreeMap::new(),
        network: None,
        wall_s,
        agent_exit: None,
        error: Some(e.0),
        skill_read: None,
    }
}

/// What stays the same across a cell's attempts.
struct CellRun<'a> {
    plan: &'a Plan,
    task: &'a Task,
    skill: Option<&'a PresentedSkill>,
    /// The cell's model (its key's), if one is chosen.
    model: Option<&'a str>,
    logs: &'a Path,
}

impl CellRun<'_> {
    /// One attempt: agent, then (if it stopped on its own) the verifier. Returns the record
    /// and the feedback for the next attempt.
    fn attempt(
        &self,
        session: &mut dyn Session,
        n: u32,
        feedback: Option<&str>,
    ) -> Result<(AttemptRecord, Option<String>), CellError> {
        let Self {
            plan,
            task,
            skill,
            logs,
            ..
        } = self;
        let (plan, task, skill, logs) = (*plan, *task, *skill, *logs);
        let instruction = instruction_at(&task.instruction, skill, plan.placement, n);
        let instruction = instruction.as_str();
        let control = session.path(CONTROL_DIR);
        let mut files = Bundle::new();
        files.add_bytes("instruction.md", instruction, false);
        if let Some(text) = feedback {
            files.add_bytes("feedback.txt", text, false);
        }
        let program = match &plan.agent.host_program {
            Some(host) => {
                let bytes = std::fs::read(host)
                    .map_err(|e| CellError::new(&format!("reading {}", host.display()), e))?;
                files.add_bytes("bin/agent", bytes, true);
                let args = plan
                    .agent
                    .program
                    .trim_start()
                    .split_once(char::is_whitespace)
                    .map_or("", |(_, rest)| rest);
                format!("{control}/bin/agent {args}").trim_end().to_owned()
            }
            None => plan.agent.program.clone(),
        };
        session.upload(&control, &files)?;
        let usage_file = format!("{control}/usage.json");
        if n > 1 {
            // What the previous attempt left must not be read as this one's, nor its tests seen.
            let tests = session.path(TESTS_DIR);
            session.remove(&[&usage_file, &tests])?;
        }
        let workdir = session.workdir();
        let skill_dir = match (skill, plan.placement) {
            (Some(s), Placement::Discover) => {
                Some(format!("{workdir}/{}", plan.agent.kind.skill_dir(&s.name)))
            }
            _ => None,
        };
        let inv = Invocation {
            program,
            instruction: instruction.to_owned(),
            instruction_file: format!("{control}/instruction.md"),
            workdir: workdir.clone(),
            skill_dir,
            attempt: n,
            feedback_file: feedback.map(|_| format!("{control}/feedback.txt")),
            usage_file: usage_file.clone(),
            model: self.model.map(str::to_owned),
        };
        let mut env = task.env(Phase::Agent);
        env.extend(protocol_env(&inv));
        env.extend(passed_env(&plan.agent.pass_env, |k| std::env::var(k).ok()));
        let stdout = logs.join(format!("attempt-{n}-agent.stdout"));
        let spec = ExecSpec {
            argv: plan.agent.kind.argv(&inv),
            env,
            workdir: workdir.clone(),
            timeout: task.agent_timeout(),
            network: task.network(Phase::Agent),
            stdout: stdout.clone(),
            stderr: logs.join(format!("attempt-{n}-agent.stderr")),
            fresh_dirs: Vec::new(),
            user: task.user(Phase::Agent).map(str::to_owned),
            host_paths: plan.agent.host_paths.clone(),
        };
        let ran = session.exec(&spec)?;
        let out = std::fs::read(&stdout).unwrap_or_default();
        let usage_bytes = session.read(&usage_file)?;
        let report = plan.agent.kind.report(&out, usage_bytes.as_deref());
        let report = match report {
            Ok(report) => report,
            // A killed agent's output may be cut anywhere: the kill is the reason.
            Err(_) if ran.timed_out || ran.exit != Some(0) => AgentReport::default(),
            Err(e) => return Err(CellError::new("reading the agent's usage", e)),
        };
        let skill_read = skill.and_then(|s| match plan.placement {
            Placement::Inject => Some(true),
            Placement::InjectOnRetry => (n > 1).then_some(true),
            Placement::Discover => plan.agent.kind.skill_read(&out, &s.name, &report.usage),
        });
        let mut record = usage_attempt(report.usage, ran.exit);
        record.skill_read = skill_read;
        record.network = Some(PhaseNetwork {
            agent: spec.network,
            verifier: None,
        });
        if ran.timed_out {
            record.outcome = Outcome::Timeout;
            record.error = Some(format!(
                "agent exceeded its time limit of {:.0} s",
                spec.timeout.as_secs_f64()
            ));
            let note = "The previous attempt was stopped: it ran out of time.".to_owned();
            return Ok((record, Some(note)));
        }
        if ran.storage_full {
            // Whatever the agent made of the full disk, the task's limit decided the attempt.
            record.outcome = Outcome::Error;
            record.error = Some(out_of_storage("agent", task));
            return Ok((record, None));
        }
        if ran.exit != Some(0) || report.failure.is_some() {
            record.outcome = Outcome::Error;
            record.error = Some(if ran.oom_killed {
                out_of_memory("agent", task)
            } else if let Some(failure) = report.failure {
                failure
            } else {
                match ran.exit {
                    Some(code) => format!("agent exited with status {code}"),
                    None => "agent was killed by a signal".to_owned(),
                }
            });
            return Ok((record, None));
        }
        let verdict = verify(
            session,
            task,
            logs,
            &format!("attempt-{n}-verifier"),
            plan.verifier_offline,
        )?;
        record.network = Some(PhaseNetwork {
            agent: spec.network,
            verifier: Some(verdict.network),
        });
        record.reward = verdict.reward;
        record.rewards = verdict.rewards;
        record.outcome = if verdict.passed {
            Outcome::Pass
        } else {
            Outcome::Fail
        };
        if verdict.timed_out {
            record.error = Some("verifier exceeded its time limit".to_owned());
        }
        Ok((record, Some(verdict.output)))
    }
}

fn usage_attempt(u: Usage, exit: Option<i32>) -> AttemptRecord {
    AttemptRecord {
        outcome: Outcome::Fail,
        reward: None,
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        cache_read_tokens: u.cache_read_tokens,
        cache_write_tokens: u.cache_write_tokens,
        reasoning_output_tokens: u.reasoning_output_tokens,
        cost_usd: u.cost_usd,
        models: u.models,
        rewards: BTreeMap::new(),
        network: None,
        wall_s: 0.0,
        agent_exit: exit,
        error: None,
        skill_read: None,
    }
}

/// The verifier's judgement of the workspace as it is now.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Whether it passed: a reward of 1 if one was written, exit 0 otherwise.
    pub passed: bool,
    /// The reward, if written (`reward` of `reward.json`, else `reward.txt`).
    pub reward: Option<f64>,
    /// Every numeric field of `reward.json`, when it has more than `reward`.
    pub rewards: BTreeMap<String, f64>,
    /// Whether the verifier ran out of time (then it did not pass).
    pub timed_out: bool,
    /// Whether it ran with network.
    pub network: bool,
    /// The end of its output.
    pub output: String,
}

/// Copies `tests/` in, runs `tests/test.sh` from the workspace root with the task's network
/// (none when `offline`), its variables and an empty log folder, and reads the reward. The
/// tests stay until the sandbox is dropped or the next attempt starts (which removes them
/// before its agent runs).
pub fn verify(
    session: &mut dyn Session,
    task: &Task,
    logs: &Path,
    name: &str,
    offline: bool,
) -> Result<Verdict, CellError> {
    let tests = session.path(TESTS_DIR);
    let mut bundle = Bundle::new();
    bundle
        .add_dir("", &task.tests_dir())
        .map_err(|e| CellError::new("reading tests", e))?;
    session.upload(&tests, &bundle)?;
    let verifier_logs = session.path(VERIFIER_LOGS_DIR);
    let stdout = logs.join(format!("{name}.stdout"));
    let stderr = logs.join(format!("{name}.stderr"));
    let mut env = task.env(Phase::Verifier);
    env.push(("LOGS_DIR".into(), session.path("/logs")));
    let spec = ExecSpec {
        argv: script_argv(
            &task.tests_dir().join("test.sh"),
            &format!("{tests}/test.sh"),
        ),
        env,
        workdir: session.workdir(),
        timeout: task.verifier_timeout(),
        network: task.network(Phase::Verifier) && !offline,
        stdout: stdout.clone(),
        stderr: stderr.clone(),
        fresh_dirs: vec![verifier_logs.clone()],
        user: task.user(Phase::Verifier).map(str::to_owned),
        host_paths: Vec::new(),
    };
    let ran = session.exec(&spec)?;
    let (reward, rewards) = read_reward(session, &verifier_logs)?;
    let mut output = std::fs::read(&stdout).unwrap_or_default();
    output.extend(std::fs::read(&stderr).unwrap_or_default());
    let passed = !ran.timed_out && reward.map_or(ran.exit == Some(0), |r| r >= 1.0);
    if ran.oom_killed && !passed {
        // The verifier could not judge: an error of the cell, not a fail of the agent.
        return Err(CellError(out_of_memory("verifier", task)));
    }
    if ran.storage_full && !passed {
        return Err(CellError(out_of_storage("verifier", task)));
    }
    Ok(Verdict {
        passed,
        reward,
        rewards,
        timed_out: ran.timed_out,
        network: spec.network,
        output: tail(&output, FEEDBACK_BYTES),
    })
}

/// How a task script runs, as Harbor runs it: with the interpreter its `#!` line names, and
/// with bash when it has none (with `sh` in images that have no bash).
pub fn script_argv(host_script: &Path, sandbox_script: &str) -> Vec<String> {
    let first = std::fs::read(host_script)
        .ok()
        .and_then(|bytes| {
            let line = bytes.split(|&b| b == b'\n').next()?.to_vec();
            String::from_utf8(line).ok()
        })
        .unwrap_or_default();
    if let Some(shebang) = first.strip_prefix("#!") {
        let mut words = shebang.trim().splitn(2, char::is_whitespace);
        if let Some(interpreter) = words.next().filter(|w| !w.is_empty()) {
            // The kernel passes everything after the interpreter as one argument.
            let mut argv = vec![interpreter.to_owned()];
            argv.extend(
                words
                    .next()
                    .map(str::trim)
                    .filter(|a| !a.is_empty())
                    .map(str::to_owned),
            );
            argv.push(sandbox_script.to_owned());
            return argv;
        }
    }
    vec![
        "sh".into(),
        "-c".into(),
        "if command -v bash >/dev/null 2>&1; then exec bash \"$0\"; else exec sh \"$0\"; fi".into(),
        sandbox_script.to_owned(),
    ]
}

/// Reads the reward files the verifier left in `dir` (see [`parse_reward`]).
fn read_reward(
    session: &mut dyn Session,
    dir: &str,
) -> Result<(Option<f64>, BTreeMap<String, f64>), CellError> {
    let text = session.read(&format!("{dir}/reward.txt"))?;
    let json = session.read(&format!("{dir}/reward.json"))?;
    parse_reward(json.as_deref(), text.as_deref()).map_err(CellError)
}

/// The reward as Harbor reads it: the numeric fields of `reward.json` (its `reward`, else
/// `reward.txt` beside it, else its one numeric field), else `reward.txt`. A reward file
/// that cannot be read is an error (the verifier could not judge); no file is no reward.
/// The map holds every numeric field of `reward.json` when it has more than one.
pub fn parse_reward(
    json: Option<&[u8]>,
    text: Option<&[u8]>,
) -> Result<(Option<f64>, BTreeMap<String, f64>), String> {
    let from_text = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        text.trim().parse::<f64>().map_err(|_| {
            format!(
                "reward.txt holds `{}`, not a number",
                first_chars(text.trim())
            )
        })
    };
    let Some(json) = json else {
        return match text {
            Some(bytes) => Ok((Some(from_text(bytes)?), BTreeMap::new())),
            None => Ok((None, BTreeMap::new())),
        };
    };
    let value: serde_json::Value =
        serde_json::from_slice(json).map_err(|e| format!("reward.json is not JSON: {e}"))?;
    let serde_json::Value::Object(fields) = value else {
        return Err("reward.json must be a JSON object".into());
    };
    let rewards: BTreeMap<String, f64> = fields
        .iter()
        .filter(|(_, v)| v.is_number())
        .filter_map(|(k, v)| v.as_f64().map(|x| (k.clone(), x)))
        .collect();
    let reward = match (rewards.get("reward"), text, rewards.len()) {
        (Some(r), _, _) => *r,
        (None, Some(bytes), _) => from_text(bytes)?,
        (None, None, 1) => rewards.values().copied().sum(),
        (None, None, _) => {
            let keys: Vec<&str> = rewards.keys().map(String::as_str).collect();
            return Err(format!(
                "reward.json has no `reward` field and no reward.txt beside it (numeric fields: {})",
                if keys.is_empty() {
                    "none".to_owned()
                } else {
                    keys.join(", ")
                }
            ));
        }
    };
    let rewards = if rewards.len() > 1 {
        rewards
    } else {
        BTreeMap::new()
    };
    Ok((Some(reward), rewards))
}

fn first_chars(text: &str) -> String {
    text.chars().take(40).collect()
}

/// The reason recorded when the kernel killed a command for lack of memory.
fn out_of_memory(what: &str, task: &Task) -> String {
    match task.settings.memory_mb {
        Some(mb) => format!("{what} ran out of memory (the task allows {mb} MB)"),
        None => format!("{what} ran out of memory"),
    }
}

fn out_of_storage(what: &str, task: &Task) -> String {
    let mb = task.settings.storage_mb.unwrap_or_default();
    format!("{what} wrote past the task's storage limit of {mb} MB ([environment] storage)")
}

/// The result of proving that a task discriminates.
#[derive(Debug, Clone, PartialEq)]
pub struct Discrimination {
    /// The verifier on the untouched repository (must fail).
    pub untouched: Verdict,
    /// The verifier after the oracle ran (must pass).
    pub solved: Verdict,
}

impl Discrimination {
    /// Whether the task tells a solved repository from an untouched one.
    pub fn holds(&self) -> bool {
        !self.untouched.passed && self.solved.passed
    }
}

/// Runs the verifier on the untouched repository, then the oracle, then the verifier again,
/// in one fresh sandbox (the verifier without network when `offline`). `None` when the task
/// has no solution.
pub fn prove_discrimination(
    sandbox: &dyn Sandbox,
    task: &Task,
    repo: &Bundle,
    logs: &Path,
    offline: bool,
) -> Result<Option<Discrimination>, CellError> {
    let Some(solution_dir) = task.solution_dir() else {
        return Ok(None);
    };
    if let Some(problem) = &task.settings.solution_env_problem {
        return Err(CellError(problem.clone()));
    }
    std::fs::create_dir_all(logs).map_err(|e| CellError::new("creating the log directory", e))?;
    let mut session = sandbox.open(task, repo)?;
    let untouched = verify(session.as_mut(), task, logs, "untouched-verifier", offline)?;
    // The oracle works like an agent: without the tests in sight.
    let tests = session.path(TESTS_DIR);
    session.remove(&[&tests])?;
    let solution = session.path(SOLUTION_DIR);
    let mut bundle = Bundle::new();
    bundle
        .add_dir("", &solution_dir)
        .map_err(|e| CellError::new("reading the solution", e))?;
    session.upload(&solution, &bundle)?;
    let spec = ExecSpec {
        argv: script_argv(
            &solution_dir.join("solve.sh"),
            &format!("{solution}/solve.sh"),
        ),
        env: task.env(Phase::Solution),
        workdir: session.workdir(),
        timeout: task.agent_timeout(),
        network: task.network(Phase::Solution),
        stdout: logs.join("oracle.stdout"),
        stderr: logs.join("oracle.stderr"),
        fresh_dirs: Vec::new(),
        user: task.user(Phase::Agent).map(str::to_owned),
        host_paths: Vec::new(),
    };
    let ran = session.exec(&spec)?;
    if ran.storage_full {
        return Err(CellError(out_of_storage("solution/solve.sh", task)));
    }
    if ran.timed_out || ran.exit != Some(0) {
        let how = match ran.exit {
            _ if ran.timed_out => "timed out".to_owned(),
            Some(code) => format!("exit {code}"),
            None => "ended by a signal".to_owned(),
        };
        return Err(CellError(format!("solution/solve.sh failed ({how})")));
    }
    session.remove(&[&solution])?;
    let solved = verify(session.as_mut(), task, logs, "solved-verifier", offline)?;
    Ok(Some(Discrimination { untouched, solved }))
}

/// A progress bar on a terminal, plain lines otherwise.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    total: u64,
    done: Mutex<u64>,
    started: Instant,
}

impl Progress {
    fn new(total: u64, quiet: bool) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(total);
            let style = indicatif::ProgressStyle::with_template(
                "{bar:30} {pos}/{len} cells  {elapsed_precise} elapsed  ETA {eta}  {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
            bar.set_style(style);
            bar
        });
        Self {
            bar,
            total,
            done: Mutex::new(0),
            started: Instant::now(),
        }
    }

    fn cell_done(&self, cell: &CellRecord, passes: &BTreeMap<Condition, usize>, cached: bool) {
        let passes: Vec<String> = passes.iter().map(|(c, n)| format!("{c}:{n}")).collect();
        let passes = if passes.is_empty() {
            "no passes yet".to_owned()
        } else {
            format!("passes {}", passes.join(" "))
        };
        if let Some(bar) = &self.bar {
            bar.set_message(passes);
            bar.inc(1);
            return;
        }
        let Ok(mut done) = self.done.lock() else {
            return;
        };
        *done += 1;
        let elapsed = self.started.elapsed();
        let eta = Duration::from_secs_f64(
            elapsed.as_secs_f64() / *done as f64 * (self.total - *done) as f64,
        );
        eprintln!(
            "[{}/{}] {} {} seed {}: {}{} ({:.1}s elapsed, ETA {:.0}s; {passes})",
            *done,
            self.total,
            cell.task,
            cell.condition,
            cell.seed,
            outcome_name(cell.outcome),
            if cached { " (cached)" } else { "" },
            elapsed.as_secs_f64(),
            eta.as_secs_f64(),
        );
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewards_are_read_as_harbor_reads_them() {
        let p = |json: Option<&str>, text: Option<&str>| {
            parse_reward(json.map(str::as_bytes), text.map(str::as_bytes))
        };
        assert_eq!(p(None, None), Ok((None, BTreeMap::new())));
        assert_eq!(p(None, Some("0\n")).unwrap().0, Some(0.0));
        let (reward, all) = p(
            Some(r#"{"reward": 0.75, "tests": 8, "note": "x", "ok": true}"#),
            None,
        )
        .unwrap();
        assert_eq!(reward, Some(0.75));
        assert_eq!(
            all,
            BTreeMap::from([("reward".to_owned(), 0.75), ("tests".to_owned(), 8.0)])
        );
        // reward.json wins over reward.txt; without `reward` the text gives it.
        assert_eq!(p(Some(r#"{"reward": 1}"#), Some("0")).unwrap().0, Some(1.0));
        assert_eq!(
            p(Some(r#"{"accuracy": 0.5, "f1": 0.4}"#), Some("1"))
                .unwrap()
                .0,
            Some(1.0)
        );
        assert_eq!(p(Some(r#"{"accuracy": 0.5}"#), None).unwrap().0, Some(0.5));
        assert!(
            p(Some(r#"{"accuracy": 0.5, "f1": 0.4}"#), None)
                .unwrap_err()
                .contains("accuracy, f1")
        );
        assert!(p(Some("[1]"), None).is_err());
        assert!(p(None, Some("passed")).unwrap_err().contains("`passed`"));
    }

    #[test]
    fn scripts_run_with_their_interpreter_or_bash() {
        let tmp = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let path = tmp.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        assert_eq!(
            script_argv(
                &write("a", "#!/usr/bin/env bash\nset -e\n"),
                "/tests/test.sh"
            ),
            ["/usr/bin/env", "bash", "/tests/test.sh"]
        );
        assert_eq!(
            script_argv(&write("b", "#! /bin/bash -eu\n"), "/s.sh"),
            ["/bin/bash", "-eu", "/s.sh"]
        );
        let plain = script_argv(&write("c", "names=(a b)\n"), "/solution/solve.sh");
        assert_eq!(plain[0], "sh");
        assert!(plain[2].contains("exec bash"), "{plain:?}");
        assert_eq!(plain[3], "/solution/solve.sh");
    }
}

//! The resolved options of a run (`run.json` records them, `--resume` reads them back) and
//! how they are made: options given for the run merged over the `[eval]` settings.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::EvalError;
use super::agent::AgentKind;
use super::condition::{Condition, Placement};
use super::settings::{Backend, Settings};
use crate::shard::Shard;

/// The options given for one run (on the command line), before they are merged over the
/// [`Settings`]; `None` and `false` mean not given.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// The SKILL.md to evaluate (optional with --resume, which reads it from run.json).
    pub skill: Option<PathBuf>,
    /// The repository the agent works on [default: .].
    pub repo: Option<PathBuf>,
    /// A task folder, or a folder of tasks [default: tasks].
    pub tasks: Option<PathBuf>,
    /// The agent: claude-code, codex or command.
    pub agent: Option<String>,
    /// Program that starts the agent (for command: a shell command).
    pub agent_cmd: Option<String>,
    /// Model name.
    pub model: Option<String>,
    /// Several models, comma-separated: every cell is run once per model.
    pub models: Option<Vec<String>>,
    /// Seeds per (task, condition).
    pub seeds: Option<u32>,
    /// Attempts per cell (Pass@k; the verifier's output feeds the next attempt).
    pub attempts: Option<u32>,
    /// Conditions, comma-separated: C0,C1,C2,C3a,C3b.
    pub conditions: Option<String>,
    /// Where the skill goes: discover (skills folder), inject (prepended to the instruction) or
    /// inject-on-retry (prepended from attempt 2 on, with the feedback).
    pub placement: Option<String>,
    /// Sandbox backend.
    pub backend: Option<Backend>,
    /// Cells run at once.
    pub jobs: Option<usize>,
    /// Run directory for a new run.
    pub out: Option<PathBuf>,
    /// Finish an interrupted run in this directory, with the options recorded in its
    /// run.json (options given again must agree; -j and --quiet may change).
    pub resume: Option<PathBuf>,
    /// Re-runs of a cell that ended in `error`.
    pub retries: Option<u32>,
    /// Upload the working tree (.gitignore respected) instead of the files tracked at HEAD.
    pub worktree: bool,
    /// Add condition C0b (no skill, run independently of C0): the A/A noise floor.
    pub aa: bool,
    /// Do not reuse or store cached cell outcomes.
    pub no_cache: bool,
    /// Plain progress lines instead of a progress bar.
    pub quiet: bool,
    /// Run every verifier without network, whatever its task allows.
    pub verifier_offline: bool,
    /// Refuse a task whose `[environment] storage` the backend cannot enforce (by default
    /// it runs without the limit, and the report says so).
    pub require_storage_limits: bool,
    /// Build `environment/Dockerfile` even for tasks that name a `docker_image`.
    pub build: bool,
    /// Run only share K of N of the cells (by a stable hash of task, condition and seed);
    /// `skillgate merge` joins the shares' run directories.
    pub shard: Option<Shard>,
}

/// The resolved options of a run, recorded in `run.json` (paths absolute) and read back by
/// `--resume`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalOptions {
    /// The SKILL.md.
    pub skill: PathBuf,
    /// The repository.
    pub repo: PathBuf,
    /// The tasks.
    pub tasks: PathBuf,
    /// The agent kind.
    pub agent: AgentKind,
    /// Program or shell command starting the agent.
    pub agent_cmd: Option<String>,
    /// Model.
    pub model: Option<String>,
    /// The models of a run over several (`--models`); empty for one model.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<String>,
    /// Seeds.
    pub seeds: u32,
    /// Attempts per cell.
    pub attempts: u32,
    /// Conditions.
    pub conditions: Vec<Condition>,
    /// Placement.
    pub placement: Placement,
    /// Backend.
    pub backend: Backend,
    /// Cells at once.
    pub jobs: usize,
    /// Run directory.
    pub out: PathBuf,
    /// Whether `out` is resumed.
    pub resume: bool,
    /// Re-runs of error cells.
    pub retries: u32,
    /// Upload the working tree rather than HEAD.
    pub worktree: bool,
    /// Outcome cache, if enabled.
    pub cache_dir: Option<PathBuf>,
    /// Variables passed to the agent.
    pub pass_env: Vec<String>,
    /// Agent install command (docker backend).
    pub install: Option<String>,
    /// Plain progress lines.
    pub quiet: bool,
    /// Every verifier without network, whatever its task allows.
    #[serde(default)]
    pub verifier_offline: bool,
    /// Refuse tasks whose storage limit the backend cannot enforce.
    #[serde(default)]
    pub require_storage_limits: bool,
    /// Build task images from their Dockerfile even when they name an image.
    #[serde(default)]
    pub build: bool,
    /// The share of the cells this run holds, when it is one of several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

impl Overrides {
    /// The repository: `--repo`, else the current directory.
    pub fn repo(&self) -> PathBuf {
        self.repo.clone().unwrap_or_else(|| PathBuf::from("."))
    }

    /// Merges the flags over the `[eval]` configuration; flags win.
    pub fn into_options(self, config: &Settings) -> Result<EvalOptions, EvalError> {
        let repo = self.repo();
        let skill = self.skill.clone().ok_or(EvalError::MissingSkill)?;
        let agent: AgentKind = self
            .agent
            .or_else(|| config.agent.clone())
            .ok_or(EvalError::MissingAgent)?
            .parse()
            .map_err(invalid("--agent"))?;
        let agent_cmd = self.agent_cmd.or_else(|| config.agent_cmd.clone());
        if agent == AgentKind::Command && agent_cmd.is_none() {
            return Err(EvalError::MissingAgentCommand);
        }
        let conditions = match (self.conditions, &config.conditions) {
            (Some(list), _) => Condition::parse_list(&list),
            (None, Some(list)) => Condition::parse_list(&list.join(",")),
            (None, None) => Ok(vec![Condition::C0, Condition::C1, Condition::C2]),
        }
        .map_err(invalid("--conditions"))?;
        let mut conditions = conditions;
        if self.aa && !conditions.contains(&Condition::C0b) {
            conditions.push(Condition::C0b);
        }
        let placement = match self.placement {
            Some(p) => p.parse().map_err(invalid("--placement"))?,
            None => config.placement.unwrap_or_default(),
        };
        let (out, resume) = match (self.resume, self.out) {
            (Some(dir), _) => (dir, true),
            (None, Some(dir)) => (dir, false),
            (None, None) => (
                PathBuf::from(format!(
                    "skillgate-runs/{}",
                    super::clock::rfc3339(std::time::SystemTime::now()).replace(':', "-")
                )),
                false,
            ),
        };
        let backend = self.backend.or(config.backend).unwrap_or_default();
        let install = config
            .install
            .clone()
            .or_else(|| default_install(agent, backend, agent_cmd.is_some()));
        let cache_dir = (!self.no_cache).then(|| {
            config
                .cache_dir
                .clone()
                .unwrap_or_else(|| PathBuf::from(".skillgate/cache/eval"))
        });
        let options = EvalOptions {
            skill: absolute(&skill)?,
            repo: absolute(&repo)?,
            tasks: absolute(&self.tasks.unwrap_or_else(|| PathBuf::from("tasks")))?,
            agent,
            agent_cmd,
            model: self.model.clone().or_else(|| config.model.clone()),
            models: models(
                self.models.clone(),
                config.models.clone(),
                self.model.is_some(),
            )?,
            seeds: self.seeds.or(config.seeds).unwrap_or(1),
            attempts: self.attempts.or(config.attempts).unwrap_or(1),
            conditions,
            placement,
            backend,
            jobs: self.jobs.or(config.jobs).unwrap_or(1),
            out: absolute(&out)?,
            resume,
            retries: self.retries.or(config.retries).unwrap_or(2),
            worktree: self.worktree || config.worktree.unwrap_or(false),
            cache_dir,
            pass_env: config
                .pass_env
                .clone()
                .unwrap_or_else(|| default_pass_env(agent)),
            install,
            quiet: self.quiet,
            verifier_offline: self.verifier_offline,
            require_storage_limits: self.require_storage_limits
                || config.require_storage_limits.unwrap_or(false),
            build: self.build,
            shard: self.shard,
        };
        if options.seeds == 0 || options.attempts == 0 || options.jobs == 0 {
            return Err(EvalError::ZeroCount);
        }
        Ok(options)
    }

    /// The options the run in `run_dir` recorded in its `run.json` (`recorded`), for `--resume`. Options given again
    /// must agree with the recorded ones (a run's cells are only comparable under one set
    /// of options); `-j`, `--quiet` and `--no-cache` only change how the rest is run.
    pub fn resume_options(
        self,
        run_dir: &Path,
        recorded: EvalOptions,
    ) -> Result<EvalOptions, EvalError> {
        // Each option given again, normalized as the run records it, beside the recorded one.
        let shown = |p: &Path| p.display().to_string();
        let list = |c: &[Condition]| c.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(",");
        let mut given: Vec<(&str, Option<String>, String)> = Vec::new();
        for (flag, path, kept) in [
            ("SKILL", &self.skill, &recorded.skill),
            ("--repo", &self.repo, &recorded.repo),
            ("--tasks", &self.tasks, &recorded.tasks),
        ] {
            let path = path.as_deref().map(absolute).transpose()?;
            given.push((flag, path.as_deref().map(shown), shown(kept)));
        }
        for (flag, text, kept) in [
            ("--agent-cmd", self.agent_cmd, &recorded.agent_cmd),
            ("--model", self.model, &recorded.model),
        ] {
            given.push((flag, text, kept.clone().unwrap_or_default()));
        }
        given.push((
            "--models",
            self.models.map(|m| m.join(",")),
            recorded.models.join(","),
        ));
        for (flag, number, kept) in [
            ("--seeds", self.seeds, recorded.seeds),
            ("--attempts", self.attempts, recorded.attempts),
            ("--retries", self.retries, recorded.retries),
        ] {
            given.push((flag, number.map(|n| n.to_string()), kept.to_string()));
        }
        let agent = parsed::<AgentKind>("--agent", self.agent.as_deref())?;
        let conditions = self.conditions.as_deref().map(Condition::parse_list);
        let conditions = conditions.transpose().map_err(invalid("--conditions"))?;
        let placement = parsed::<Placement>("--placement", self.placement.as_deref())?;
        let on_off = |on: bool| if on { "on" } else { "off" }.to_owned();
        given.extend([
            (
                "--agent",
                agent.map(|a| a.as_str().into()),
                recorded.agent.as_str().into(),
            ),
            (
                "--conditions",
                conditions.as_deref().map(list),
                list(&recorded.conditions),
            ),
            (
                "--placement",
                placement.map(|p| p.as_str().into()),
                recorded.placement.as_str().into(),
            ),
            (
                "--backend",
                self.backend.map(|b| b.as_str().into()),
                recorded.backend.as_str().into(),
            ),
            (
                "--worktree",
                self.worktree.then(|| on_off(true)),
                on_off(recorded.worktree),
            ),
            (
                "--aa",
                self.aa.then(|| on_off(true)),
                on_off(recorded.conditions.contains(&Condition::C0b)),
            ),
            (
                "--verifier-offline",
                self.verifier_offline.then(|| on_off(true)),
                on_off(recorded.verifier_offline),
            ),
            (
                "--require-storage-limits",
                self.require_storage_limits.then(|| on_off(true)),
                on_off(recorded.require_storage_limits),
            ),
            (
                "--build",
                self.build.then(|| on_off(true)),
                on_off(recorded.build),
            ),
            (
                "--shard",
                self.shard.map(|s| s.to_string()),
                recorded
                    .shard
                    .map_or_else(|| "none".to_owned(), |s| s.to_string()),
            ),
        ]);
        let differs: Vec<String> = given
            .into_iter()
            .filter_map(|(flag, given, kept)| {
                let given = given.filter(|g| *g != kept)?;
                Some(format!("{flag} {given} (the run has {kept})"))
            })
            .collect();
        if !differs.is_empty() {
            return Err(EvalError::ResumeDiffers { differs });
        }
        Ok(EvalOptions {
            out: absolute(run_dir)?,
            resume: true,
            jobs: self.jobs.unwrap_or(recorded.jobs),
            quiet: self.quiet,
            cache_dir: if self.no_cache {
                None
            } else {
                recorded.cache_dir.clone()
            },
            ..recorded
        })
    }
}

/// A flag's value parsed, when given.
fn parsed<T: std::str::FromStr<Err = String>>(
    flag: &'static str,
    text: Option<&str>,
) -> Result<Option<T>, EvalError> {
    text.map(str::parse).transpose().map_err(invalid(flag))
}

/// The models of a run: `--models` over `[eval] models`; none when `--model` picks one.
/// Names must be non-empty and distinct.
fn models(
    given: Option<Vec<String>>,
    configured: Option<Vec<String>>,
    one_given: bool,
) -> Result<Vec<String>, EvalError> {
    let models = match given {
        Some(models) => models,
        None if one_given => Vec::new(),
        None => configured.unwrap_or_default(),
    };
    let models: Vec<String> = models.into_iter().map(|m| m.trim().to_owned()).collect();
    if models.iter().any(String::is_empty) {
        return Err(invalid("--models")("a model name is empty".to_owned()));
    }
    if let Some(twice) = models
        .iter()
        .find(|m| models.iter().filter(|n| n == m).count() > 1)
    {
        return Err(invalid("--models")(format!("`{twice}` is named twice")));
    }
    Ok(models)
}

/// The error for a value of `flag` its parser refuses.
fn invalid(flag: &'static str) -> impl FnOnce(String) -> EvalError {
    move |reason| EvalError::InvalidValue { flag, reason }
}

fn absolute(path: &Path) -> Result<PathBuf, EvalError> {
    std::path::absolute(path).map_err(|e| EvalError::io("resolving", path, e))
}

/// The install step of the known agents (only when no program of one's own is given).
fn default_install(agent: AgentKind, backend: Backend, own_program: bool) -> Option<String> {
    let package = match (agent, backend, own_program) {
        (AgentKind::ClaudeCode, Backend::Docker, false) => "@anthropic-ai/claude-code",
        (AgentKind::Codex, Backend::Docker, false) => "@openai/codex",
        _ => return None,
    };
    Some(format!("npm install -g {package}"))
}

/// The model keys each agent needs.
fn default_pass_env(agent: AgentKind) -> Vec<String> {
    match agent {
        AgentKind::ClaudeCode => vec!["ANTHROPIC_API_KEY".into()],
        AgentKind::Codex => vec!["OPENAI_API_KEY".into()],
        AgentKind::Command => Vec::new(),
    }
}

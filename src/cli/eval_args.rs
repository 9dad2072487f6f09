//! The command-line arguments of `skillgate eval` and `skillgate tasks check`, and how they
//! map to the evaluation's plain options.

use std::path::PathBuf;

use crate::eval::{Backend, Overrides};
use crate::shard::Shard;

/// Which sandbox runs the cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum BackendArg {
    /// A container per cell (bollard).
    Docker,
    /// A temporary copy and a process group, for machines without Docker.
    Local,
}

impl From<BackendArg> for Backend {
    fn from(arg: BackendArg) -> Backend {
        match arg {
            BackendArg::Docker => Backend::Docker,
            BackendArg::Local => Backend::Local,
        }
    }
}

/// `skillgate eval` arguments.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct EvalArgs {
    /// The SKILL.md to evaluate (optional with --resume, which reads it from run.json).
    #[arg(required_unless_present = "resume")]
    pub skill: Option<PathBuf>,
    /// The repository the agent works on [default: .]; a task naming `[metadata]
    /// base_commit` runs on it as it was at that commit.
    #[arg(long)]
    pub repo: Option<PathBuf>,
    /// A task folder, or a folder of tasks [default: tasks].
    #[arg(long)]
    pub tasks: Option<PathBuf>,
    /// The agent: claude-code, codex or command.
    #[arg(long)]
    pub agent: Option<String>,
    /// Program that starts the agent (for command: a shell command).
    #[arg(long)]
    pub agent_cmd: Option<String>,
    /// Model name.
    #[arg(long, conflicts_with = "models")]
    pub model: Option<String>,
    /// Several models, comma-separated (`--models A,B`): the same tasks, seeds and
    /// conditions per model, a verdict per model and how far the effect transfers between
    /// them. A `command` agent reads the cell's model from SKILLGATE_MODEL.
    #[arg(long, value_delimiter = ',', value_name = "MODELS")]
    pub models: Option<Vec<String>>,
    /// Seeds per (task, condition).
    #[arg(long)]
    pub seeds: Option<u32>,
    /// Attempts per cell (Pass@k; the verifier's output feeds the next attempt).
    #[arg(long)]
    pub attempts: Option<u32>,
    /// Conditions, comma-separated: C0,C1,C2,C3a,C3b.
    #[arg(long)]
    pub conditions: Option<String>,
    /// Where the skill goes: discover (skills folder), inject (prepended to the instruction) or
    /// inject-on-retry (prepended from attempt 2 on, with the feedback).
    #[arg(long)]
    pub placement: Option<String>,
    /// Sandbox backend.
    #[arg(long, value_enum)]
    pub backend: Option<BackendArg>,
    /// Cells run at once.
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
    /// Run directory for a new run.
    #[arg(long, conflicts_with = "resume")]
    pub out: Option<PathBuf>,
    /// Finish an interrupted run in this directory, with the options recorded in its
    /// run.json (options given again must agree; -j and --quiet may change).
    #[arg(long, value_name = "RUN_DIR")]
    pub resume: Option<PathBuf>,
    /// Re-runs of a cell that ended in `error`.
    #[arg(long)]
    pub retries: Option<u32>,
    /// Upload the working tree (.gitignore respected) instead of the files tracked at HEAD.
    #[arg(long)]
    pub worktree: bool,
    /// A/A check: also run C0b, no skill again with independent runs, and report how far
    /// two identical conditions differ (the noise floor Δ must clear).
    #[arg(long)]
    pub aa: bool,
    /// Do not reuse or store cached cell outcomes.
    #[arg(long)]
    pub no_cache: bool,
    /// Plain progress lines instead of a progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Run every verifier without network, whatever its task allows (by default the
    /// verifier has the network its task gives it, as under Harbor).
    #[arg(long)]
    pub verifier_offline: bool,
    /// Refuse a task whose [environment] storage the backend cannot enforce (a Docker
    /// engine whose storage driver has no disk quotas); by default it runs without the
    /// limit, said on stderr and in the report.
    #[arg(long)]
    pub require_storage_limits: bool,
    /// Build each task's environment/Dockerfile even when the task names a docker_image
    /// (by default the image is used, and pulled when missing).
    #[arg(long)]
    pub build: bool,
    /// Run only share K of N of the cells (1-based), chosen by a stable hash of each cell's
    /// task, condition and seed, so N machines (a CI matrix) split one evaluation;
    /// `skillgate merge RUN_DIR... --out DIR` joins their run directories, and `report`
    /// reads the result. A shard prints no verdict of its own.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
}

/// `skillgate tasks check` arguments.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct TasksCheckArgs {
    /// A task folder, or a folder of tasks.
    pub dir: PathBuf,
    /// Refuse instructions that name or quote this skill.
    #[arg(long)]
    pub skill: Option<PathBuf>,
    /// The repository the tasks run against (for the discrimination proof); a task naming
    /// `[metadata] base_commit` runs on it as it was at that commit.
    #[arg(long, default_value = ".")]
    pub repo: PathBuf,
    /// Sandbox backend for the proof.
    #[arg(long, value_enum, default_value = "docker")]
    pub backend: BackendArg,
    /// Upload the working tree instead of the files tracked at HEAD.
    #[arg(long)]
    pub worktree: bool,
    /// Run every verifier without network, whatever its task allows.
    #[arg(long)]
    pub verifier_offline: bool,
    /// Refuse a task whose [environment] storage the backend cannot enforce, rather than
    /// check it without the limit.
    #[arg(long)]
    pub require_storage_limits: bool,
    /// Build each task's environment/Dockerfile even when the task names a docker_image.
    #[arg(long)]
    pub build: bool,
}

impl EvalArgs {
    /// The repository: `--repo`, else the current directory.
    pub(crate) fn repo(&self) -> PathBuf {
        self.repo.clone().unwrap_or_else(|| PathBuf::from("."))
    }
}

impl From<EvalArgs> for Overrides {
    fn from(args: EvalArgs) -> Overrides {
        Overrides {
            skill: args.skill,
            repo: args.repo,
            tasks: args.tasks,
            agent: args.agent,
            agent_cmd: args.agent_cmd,
            model: args.model,
            models: args.models,
            seeds: args.seeds,
            attempts: args.attempts,
            conditions: args.conditions,
            placement: args.placement,
            backend: args.backend.map(Backend::from),
            jobs: args.jobs,
            out: args.out,
            resume: args.resume,
            retries: args.retries,
            worktree: args.worktree,
            aa: args.aa,
            no_cache: args.no_cache,
            quiet: args.quiet,
            verifier_offline: args.verifier_offline,
            require_storage_limits: args.require_storage_limits,
            build: args.build,
            shard: args.shard,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Settings;
    use crate::eval::condition::{Condition, Placement};
    use crate::eval::control::BodyMeasure;
    use crate::eval::journal::{RunInfo, write_run_info};
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        eval: EvalArgs,
    }

    #[test]
    fn flags_win_over_config() {
        let cli = Cli::parse_from([
            "x",
            "SKILL.md",
            "--agent",
            "command",
            "--agent-cmd",
            "./a.sh",
            "-j",
            "2",
            "--conditions",
            "C0,C2",
        ]);
        let config: Settings =
            toml::from_str("seeds = 3\njobs = 4\nplacement = \"inject\"\nbackend = \"local\"\n")
                .unwrap();
        let o = Overrides::from(cli.eval).into_options(&config).unwrap();
        assert_eq!(
            (o.seeds, o.jobs, o.placement, o.backend),
            (3, 2, Placement::Inject, Backend::Local)
        );
        assert!(o.skill.is_absolute() && o.repo.is_absolute() && o.out.is_absolute());
        assert_eq!(o.conditions, vec![Condition::C0, Condition::C2]);
        assert_eq!(o.install, None);
    }

    #[test]
    fn storage_limits_are_required_by_the_flag_or_the_config() {
        let args = [
            "x",
            "SKILL.md",
            "--agent",
            "command",
            "--agent-cmd",
            "./a.sh",
        ];
        let plain = Settings::default();
        let required: Settings = toml::from_str("require-storage-limits = true\n").unwrap();
        let options = |flag: bool, config: &Settings| {
            let mut argv = args.to_vec();
            if flag {
                argv.push("--require-storage-limits");
            }
            let cli = Cli::parse_from(argv);
            Overrides::from(cli.eval)
                .into_options(config)
                .unwrap()
                .require_storage_limits
        };
        assert!(!options(false, &plain));
        assert!(options(true, &plain));
        assert!(options(false, &required));
    }

    #[test]
    fn resume_reads_the_options_back_and_refuses_different_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path().join("run");
        let out = run.to_str().unwrap();
        let started = Cli::parse_from([
            "x",
            "SKILL.md",
            "--agent",
            "codex",
            "--seeds",
            "3",
            "--conditions",
            "C0,C1",
            "--backend",
            "local",
            "--out",
            out,
        ])
        .eval;
        let mut started = Overrides::from(started)
            .into_options(&Settings::default())
            .unwrap();
        std::fs::create_dir_all(&run).unwrap();
        let measure = BodyMeasure {
            tokens: 1,
            code_tokens: 0,
            code_share: 0.0,
        };
        let info = RunInfo {
            schema: 1,
            command: vec!["skillgate".into()],
            config: started.clone(),
            versions: Default::default(),
            skill_body: measure,
            control_body: measure,
            started_at: "2026-11-30T18:00:00Z".into(),
            resumed: Vec::new(),
            finished_at: None,
            cells: Default::default(),
            tasks_refused: Vec::new(),
        };
        write_run_info(&run, &info).unwrap();

        let again = |flags: &[&str]| {
            let mut argv = vec!["x", "--resume", "RUN"];
            argv.extend_from_slice(flags);
            Overrides::from(Cli::parse_from(argv).eval)
                .resume_options(&run, crate::eval::journal::read_run_info(&run)?.config)
        };
        let resumed = again(&["-j", "2"]).unwrap();
        started.resume = true;
        started.jobs = 2;
        assert_eq!(resumed, started);
        // The same options given again are fine, in any spelling that means the same.
        assert!(again(&["--agent", "codex", "--conditions", "C0,C1", "SKILL.md"]).is_ok());
        let refused = again(&["--seeds", "4", "--backend", "docker", "--worktree", "--aa"]);
        let message = refused.unwrap_err().to_string();
        for part in [
            "--seeds 4 (the run has 3)",
            "--backend docker (the run has local)",
            "--worktree on (the run has off)",
            "--aa on (the run has off)",
        ] {
            assert!(message.contains(part), "{part}: {message}");
        }
    }

    #[test]
    fn aa_adds_c0b_once() {
        let cli = Cli::parse_from(["x", "SKILL.md", "--agent", "codex", "--aa"]);
        let o = Overrides::from(cli.eval)
            .into_options(&Settings::default())
            .unwrap();
        assert_eq!(
            o.conditions,
            [Condition::C0, Condition::C1, Condition::C2, Condition::C0b]
        );
        let cli = Cli::parse_from([
            "x",
            "SKILL.md",
            "--agent",
            "codex",
            "--aa",
            "--conditions",
            "C0b,C0,C1",
        ]);
        let o = Overrides::from(cli.eval)
            .into_options(&Settings::default())
            .unwrap();
        assert_eq!(o.conditions, [Condition::C0b, Condition::C0, Condition::C1]);
    }

    #[test]
    fn command_agent_needs_a_command() {
        let cli = Cli::parse_from(["x", "SKILL.md", "--agent", "command"]);
        assert!(
            Overrides::from(cli.eval)
                .into_options(&Settings::default())
                .is_err()
        );
        assert!(toml::from_str::<Settings>("nope = 1").is_err());
    }
}

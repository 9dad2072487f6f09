//! The run journal: `cells.jsonl` (one finished cell per line, appended and flushed as it
//! finishes), `run.json` (what ran, with what), and a cache of outcomes keyed by content
//! hashes. See `docs/journal.md`.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::eval::EvalError;
use crate::eval::agent::ModelUsage;
use crate::eval::condition::Condition;
use crate::eval::control::BodyMeasure;
use crate::eval::options::EvalOptions;

/// The `schema` written in every cell line.
pub const SCHEMA: u32 = 1;
/// The journal file inside a run directory.
pub const CELLS_FILE: &str = "cells.jsonl";
/// The run description inside a run directory.
pub const RUN_FILE: &str = "run.json";

/// How an attempt or a cell ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The verifier passed.
    Pass,
    /// The verifier failed.
    Fail,
    /// The run could not be judged (agent crash, OOM kill, lost container).
    Error,
    /// The agent hit its time limit.
    Timeout,
}

/// One attempt of a cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptRecord {
    /// How the attempt ended.
    pub outcome: Outcome,
    /// The reward the verifier wrote, if it wrote one.
    pub reward: Option<f64>,
    /// Input tokens the agent reported.
    pub input_tokens: u64,
    /// Output tokens the agent reported.
    pub output_tokens: u64,
    /// Prompt-cache reads.
    pub cache_read_tokens: u64,
    /// Prompt-cache writes.
    pub cache_write_tokens: u64,
    /// The part of `output_tokens` spent on reasoning, when the agent reports it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_output_tokens: u64,
    /// Cost the agent reported, if it reports one.
    pub cost_usd: Option<f64>,
    /// The usage split by model, when the agent reports the split (claude-code's
    /// `modelUsage`: the main model, sub-agents and background models).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub models: BTreeMap<String, ModelUsage>,
    /// Every numeric field of `reward.json`, when it holds more than `reward`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rewards: BTreeMap<String, f64>,
    /// Which phases had network (absent when the agent never started).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<PhaseNetwork>,
    /// Wall time of the attempt (agent + verifier), seconds.
    pub wall_s: f64,
    /// The agent's exit code (`None` when it was killed or never started).
    pub agent_exit: Option<i32>,
    /// Why the attempt is an error or a time-out.
    pub error: Option<String>,
    /// Whether the agent opened the skill: `None` when it had none in its skills folder
    /// (C0, a control without one) or when the agent cannot tell; always true when the skill
    /// was injected into the instruction. Journals written before it read back as `None`.
    #[serde(default)]
    pub skill_read: Option<bool>,
}

/// Whether each phase of an attempt could reach the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseNetwork {
    /// The agent.
    pub agent: bool,
    /// The verifier; absent when it did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verifier: Option<bool>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One finished cell: a line of `cells.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellRecord {
    /// Always [`SCHEMA`].
    pub schema: u32,
    /// sha256 of the skill folder.
    pub skill_sha256: String,
    /// The task id.
    pub task: String,
    /// sha256 of the task folder.
    pub task_sha256: String,
    /// The agent kind (`claude-code`, `codex`, `command`).
    pub agent: String,
    /// The model (empty when the agent chooses).
    pub model: String,
    /// The condition.
    pub condition: Condition,
    /// The seed (repetition index).
    pub seed: u32,
    /// Pass if any attempt passed; otherwise error, fail or timeout (see [`cell_outcome`]).
    pub outcome: Outcome,
    /// Attempts in order.
    pub attempts: Vec<AttemptRecord>,
    /// Sum of the attempts' input tokens.
    pub input_tokens: u64,
    /// Sum of the attempts' output tokens.
    pub output_tokens: u64,
    /// Sum of the attempts' wall times.
    pub wall_s: f64,
    /// Skills the task's environment already held in an agent's skill folder (such as
    /// `/root/.claude/skills/NAME`), removed before the agent ran so that only the
    /// condition's own skill is there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub environment_skills_removed: Vec<String>,
    /// The task's `[environment] storage` limit when the backend ran the cell without
    /// enforcing it, and why; absent when there was no limit or it was enforced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_not_enforced: Option<StorageNotEnforced>,
    /// What of the task's `environment/Dockerfile` the backend did not reproduce (the
    /// local backend runs no `RUN` step, for one); absent when it reproduced all of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment_not_reproduced: Option<String>,
}

/// A task's storage limit that a cell ran without (the engine could not enforce it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StorageNotEnforced {
    /// The limit the task sets, in MB.
    pub limit_mb: u64,
    /// Why it was not enforced, in one line.
    pub reason: String,
}

/// What the cells of a journal ran in, per task: which phases could reach the network, and
/// which skills the task's environment already held where agents look (removed before the
/// agent ran). Read from the cells alone, so `report` says it for any run directory.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EnvironmentSummary {
    /// One row per task and network setting of its phases, sorted by task.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub network: Vec<NetworkRow>,
    /// One row per task whose environment held skills, sorted by task.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skills_removed: Vec<SkillsRemoved>,
    /// One row per task, limit and reason whose storage limit was not enforced, sorted by
    /// task.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub storage_not_enforced: Vec<StorageRow>,
}

/// The cells of one task that ran without its storage limit, for one reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StorageRow {
    /// The task id.
    pub task: String,
    /// The limit the task sets, in MB.
    pub limit_mb: u64,
    /// Why it was not enforced.
    pub reason: String,
    /// The conditions of those cells.
    pub conditions: Vec<Condition>,
    /// How many cells.
    pub cells: u32,
}

/// The cells of one task whose attempts ran with the same network per phase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkRow {
    /// The task id.
    pub task: String,
    /// Whether the agent (and the oracle) could reach the network.
    pub agent: bool,
    /// Whether the verifier could; `None` for attempts whose verifier did not run.
    pub verifier: Option<bool>,
    /// The conditions of those cells.
    pub conditions: Vec<Condition>,
    /// How many cells.
    pub cells: u32,
    /// How many attempts.
    pub attempts: u32,
}

/// The skills removed from one task's environment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillsRemoved {
    /// The task id.
    pub task: String,
    /// The removed skill folders, as the environment named them.
    pub skills: Vec<String>,
    /// The conditions of the cells they were removed from.
    pub conditions: Vec<Condition>,
    /// How many cells.
    pub cells: u32,
}

impl EnvironmentSummary {
    /// Groups the cells' records (the last record of a cell written twice wins); attempts
    /// whose agent never started say nothing here.
    pub fn of(cells: &[CellRecord]) -> Self {
        let latest: BTreeMap<CellKey, &CellRecord> = cells.iter().map(|c| (c.key(), c)).collect();
        type NetworkKey = (String, bool, Option<bool>);
        let mut network: BTreeMap<NetworkKey, (BTreeSet<Condition>, u32, u32)> = BTreeMap::new();
        let mut removed: BTreeMap<String, (BTreeSet<String>, BTreeSet<Condition>, u32)> =
            BTreeMap::new();
        let mut storage: BTreeMap<(String, u64, String), (BTreeSet<Condition>, u32)> =
            BTreeMap::new();
        for cell in latest.into_values() {
            let mut counted = BTreeSet::new();
            for phases in cell.attempts.iter().filter_map(|a| a.network) {
                let row = network
                    .entry((cell.task.clone(), phases.agent, phases.verifier))
                    .or_default();
                row.0.insert(cell.condition);
                // A cell counts once per setting, however many attempts ran with it.
                row.1 += u32::from(counted.insert((phases.agent, phases.verifier)));
                row.2 += 1;
            }
            if !cell.environment_skills_removed.is_empty() {
                let row = removed.entry(cell.task.clone()).or_default();
                row.0
                    .extend(cell.environment_skills_removed.iter().cloned());
                row.1.insert(cell.condition);
                row.2 += 1;
            }
            if let Some(s) = &cell.storage_not_enforced {
                let row = storage
                    .entry((cell.task.clone(), s.limit_mb, s.reason.clone()))
                    .or_default();
                row.0.insert(cell.condition);
                row.1 += 1;
            }
        }
        Self {
            network: network
                .into_iter()
                .map(
                    |((task, agent, verifier), (conditions, cells, attempts))| NetworkRow {
                        task,
                        agent,
                        verifier,
                        conditions: conditions.into_iter().collect(),
                        cells,
                        attempts,
                    },
                )
                .collect(),
            skills_removed: removed
                .into_iter()
                .map(|(task, (skills, conditions, cells))| SkillsRemoved {
                    task,
                    skills: skills.into_iter().collect(),
                    conditions: conditions.into_iter().collect(),
                    cells,
                })
                .collect(),
            storage_not_enforced: storage
                .into_iter()
                .map(
                    |((task, limit_mb, reason), (conditions, cells))| StorageRow {
                        task,
                        limit_mb,
                        reason,
                        conditions: conditions.into_iter().collect(),
                        cells,
                    },
                )
                .collect(),
        }
    }

    /// Whether the journal said nothing about the environment (written before it did).
    pub fn is_empty(&self) -> bool {
        self.network.is_empty()
            && self.skills_removed.is_empty()
            && self.storage_not_enforced.is_empty()
    }
}

/// The identity of a cell: what must be equal for two cells to be the same measurement.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CellKey {
    /// sha256 of the skill folder.
    pub skill_sha256: String,
    /// The task id.
    pub task: String,
    /// sha256 of the task folder.
    pub task_sha256: String,
    /// The agent kind.
    pub agent: String,
    /// The model.
    pub model: String,
    /// The condition.
    pub condition: Condition,
    /// The seed.
    pub seed: u32,
}

/// A cell's outcome from its attempts: any pass wins; an error (never a fail) comes next so
/// a broken run is retried rather than counted; then fail; time-outs only when nothing else.
pub fn cell_outcome(attempts: &[AttemptRecord]) -> Outcome {
    let any = |o: Outcome| attempts.iter().any(|a| a.outcome == o);
    if any(Outcome::Pass) {
        Outcome::Pass
    } else if any(Outcome::Error) || attempts.is_empty() {
        Outcome::Error
    } else if any(Outcome::Fail) {
        Outcome::Fail
    } else {
        Outcome::Timeout
    }
}

impl CellRecord {
    /// A record from the cell's key and attempts, with outcome and totals derived.
    pub fn new(key: CellKey, attempts: Vec<AttemptRecord>) -> Self {
        Self {
            schema: SCHEMA,
            outcome: cell_outcome(&attempts),
            input_tokens: attempts.iter().map(|a| a.input_tokens).sum(),
            output_tokens: attempts.iter().map(|a| a.output_tokens).sum(),
            wall_s: attempts.iter().map(|a| a.wall_s).sum(),
            environment_skills_removed: Vec::new(),
            storage_not_enforced: None,
            environment_not_reproduced: None,
            attempts,
            skill_sha256: key.skill_sha256,
            task: key.task,
            task_sha256: key.task_sha256,
            agent: key.agent,
            model: key.model,
            condition: key.condition,
            seed: key.seed,
        }
    }

    /// The cell's identity.
    pub fn key(&self) -> CellKey {
        CellKey {
            skill_sha256: self.skill_sha256.clone(),
            task: self.task.clone(),
            task_sha256: self.task_sha256.clone(),
            agent: self.agent.clone(),
            model: self.model.clone(),
            condition: self.condition,
            seed: self.seed,
        }
    }
}

/// What is wrong with a journal or a run description.
#[derive(Debug, thiserror::Error)]
pub enum JournalProblem {
    /// A new run was pointed at a journal that already holds cells.
    #[error("already holds cells; resume the run or choose another directory")]
    HoldsCells,
    /// A line of the journal is not a cell record.
    #[error("line {number}: {source}")]
    Line {
        /// 1-based line number.
        number: usize,
        /// What the JSON reader said.
        source: serde_json::Error,
    },
    /// `run.json` is not what `skillgate eval` writes.
    #[error("not a run description of skillgate eval: {0}")]
    NotARunDescription(#[source] serde_json::Error),
    /// A record could not be written as JSON.
    #[error("{0}")]
    Encode(#[source] serde_json::Error),
}

/// The append-only `cells.jsonl` of one run directory.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
    done: HashSet<CellKey>,
}

impl Journal {
    /// Starts a new run in `run_dir`; refuses a directory that already holds cells, so a
    /// finished run is never silently mixed with a new one (use [`Journal::resume`]).
    pub fn create(run_dir: &Path) -> Result<Self, EvalError> {
        let path = run_dir.join(CELLS_FILE);
        if std::fs::metadata(&path).is_ok_and(|m| m.len() > 0) {
            return Err(EvalError::Journal {
                path,
                problem: JournalProblem::HoldsCells,
            });
        }
        Self::open(run_dir)
    }

    /// Re-opens the run in `run_dir` after a crash or a kill: a torn last line (a write cut
    /// short) is dropped, and every complete line counts as done.
    pub fn resume(run_dir: &Path) -> Result<Self, EvalError> {
        let path = run_dir.join(CELLS_FILE);
        if path.exists() {
            drop_torn_tail(&path)?;
        }
        Self::open(run_dir)
    }

    fn open(run_dir: &Path) -> Result<Self, EvalError> {
        std::fs::create_dir_all(run_dir).map_err(|e| EvalError::io("creating", run_dir, e))?;
        let path = run_dir.join(CELLS_FILE);
        let done = read_cells(&path)?.iter().map(CellRecord::key).collect();
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| EvalError::io("opening", &path, e))?;
        Ok(Self { path, file, done })
    }

    /// Whether the cell is already in the journal.
    pub fn contains(&self, key: &CellKey) -> bool {
        self.done.contains(key)
    }

    /// Number of cells in the journal.
    pub fn len(&self) -> usize {
        self.done.len()
    }

    /// Whether the journal holds no cell.
    pub fn is_empty(&self) -> bool {
        self.done.is_empty()
    }

    /// Appends one finished cell as a single line and forces it to disk before returning,
    /// so a kill right after loses nothing that was reported done.
    pub fn append(&mut self, cell: &CellRecord) -> Result<(), EvalError> {
        let mut line = serde_json::to_vec(cell).map_err(|e| EvalError::Journal {
            path: self.path.clone(),
            problem: JournalProblem::Encode(e),
        })?;
        line.push(b'\n');
        let io = |e| EvalError::io("appending to", &self.path, e);
        self.file.write_all(&line).map_err(io)?;
        self.file.flush().map_err(io)?;
        self.file.sync_data().map_err(io)?;
        self.done.insert(cell.key());
        Ok(())
    }
}

/// Reads every complete cell line of a journal; a missing file is an empty journal. A last
/// line without its newline is a torn write and ignored; any other bad line is an error.
pub fn read_cells(path: &Path) -> Result<Vec<CellRecord>, EvalError> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(EvalError::io("reading", path, e)),
    };
    let mut cells = Vec::new();
    let mut reader = BufReader::new(file);
    let mut line = String::new();
    let mut number = 0;
    loop {
        line.clear();
        let n = reader
            .read_line(&mut line)
            .map_err(|e| EvalError::io("reading", path, e))?;
        number += 1;
        if n == 0 || !line.ends_with('\n') {
            break;
        }
        if line.trim().is_empty() {
            continue;
        }
        let cell = serde_json::from_str(&line).map_err(|source| EvalError::Journal {
            path: path.to_owned(),
            problem: JournalProblem::Line { number, source },
        })?;
        cells.push(cell);
    }
    Ok(cells)
}

/// Truncates the file after its last newline.
fn drop_torn_tail(path: &Path) -> Result<(), EvalError> {
    let bytes = std::fs::read(path).map_err(|e| EvalError::io("reading", path, e))?;
    let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if keep == bytes.len() {
        return Ok(());
    }
    let file = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| EvalError::io("opening", path, e))?;
    file.set_len(keep as u64)
        .map_err(|e| EvalError::io("truncating", path, e))?;
    file.sync_data()
        .map_err(|e| EvalError::io("syncing", path, e))
}

/// What `run.json` records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// Always 1.
    pub schema: u32,
    /// The command line.
    pub command: Vec<String>,
    /// The resolved options.
    pub config: EvalOptions,
    /// Versions of skillgate and the backend.
    pub versions: BTreeMap<String, String>,
    /// The skill body's measure.
    pub skill_body: BodyMeasure,
    /// The C2 control body's measure.
    pub control_body: BodyMeasure,
    /// Start time (RFC 3339, UTC) of the first invocation.
    pub started_at: String,
    /// Every `--resume` of the run, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resumed: Vec<Resumption>,
    /// End time, once the run has finished.
    pub finished_at: Option<String>,
    /// Cells planned, and how many ended in each outcome.
    pub cells: BTreeMap<String, usize>,
    /// Task folders that were not run, each with its reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks_refused: Vec<crate::eval::task::Refusal>,
}

/// One `--resume` of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resumption {
    /// Its command line.
    pub command: Vec<String>,
    /// When it started (RFC 3339, UTC).
    pub at: String,
}

/// Reads `run_dir/run.json` back.
pub fn read_run_info(run_dir: &Path) -> Result<RunInfo, EvalError> {
    let path = run_dir.join(RUN_FILE);
    let text = std::fs::read(&path).map_err(|e| EvalError::io("reading", &path, e))?;
    serde_json::from_slice(&text).map_err(|e| EvalError::Journal {
        path,
        problem: JournalProblem::NotARunDescription(e),
    })
}

/// Writes `run.json` atomically (temporary file, then rename), so a reader never sees half.
pub fn write_run_info(run_dir: &Path, info: &RunInfo) -> Result<(), EvalError> {
    let path = run_dir.join(RUN_FILE);
    let tmp = run_dir.join(format!("{RUN_FILE}.tmp"));
    let text = serde_json::to_vec_pretty(info).map_err(|e| EvalError::Journal {
        path: path.clone(),
        problem: JournalProblem::Encode(e),
    })?;
    std::fs::write(&tmp, text).map_err(|e| EvalError::io("writing", &tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| EvalError::io("renaming", &path, e))
}

/// Outcomes of finished cells kept across runs, one file per cell fingerprint. The
/// fingerprint hashes the cell key with everything else that can change the result
/// (repository content, attempts, placement, agent command, backend).
#[derive(Debug, Clone)]
pub struct OutcomeCache {
    dir: PathBuf,
}

impl OutcomeCache {
    /// A cache stored in `dir` (created on first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The fingerprint of a cell and its context.
    pub fn fingerprint(key: &CellKey, context: &impl Serialize) -> String {
        let json = serde_json::to_vec(&(key, context)).unwrap_or_default();
        crate::eval::sha256_hex(&json)
    }

    /// A cached cell, if one exists and is readable; a damaged entry counts as a miss.
    pub fn get(&self, fingerprint: &str) -> Option<CellRecord> {
        let text = std::fs::read(self.dir.join(format!("{fingerprint}.json"))).ok()?;
        serde_json::from_slice(&text).ok()
    }

    /// Stores a cell. Errors are never cached: they say nothing about the skill.
    pub fn put(&self, fingerprint: &str, cell: &CellRecord) -> Result<(), EvalError> {
        if cell.outcome == Outcome::Error {
            return Ok(());
        }
        std::fs::create_dir_all(&self.dir).map_err(|e| EvalError::io("creating", &self.dir, e))?;
        let path = self.dir.join(format!("{fingerprint}.json"));
        let tmp = self.dir.join(format!("{fingerprint}.json.tmp"));
        let text = serde_json::to_vec(cell).map_err(|e| EvalError::Journal {
            path: path.clone(),
            problem: JournalProblem::Encode(e),
        })?;
        std::fs::write(&tmp, text).map_err(|e| EvalError::io("writing", &tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| EvalError::io("renaming", &path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_info_reads_back_as_written() {
        let tmp = tempfile::tempdir().unwrap();
        let given = crate::eval::Overrides {
            skill: Some(PathBuf::from("SKILL.md")),
            agent: Some("codex".into()),
            out: Some(tmp.path().to_owned()),
            ..Default::default()
        };
        let options = given
            .into_options(&crate::eval::Settings::default())
            .unwrap();
        let measure = BodyMeasure {
            tokens: 120,
            code_tokens: 30,
            code_share: 0.25,
        };
        let info = RunInfo {
            schema: 1,
            command: vec!["skillgate".into(), "eval".into()],
            config: options,
            versions: BTreeMap::from([("skillgate".into(), "0.1.0".into())]),
            skill_body: measure,
            control_body: measure,
            started_at: "2026-11-30T18:00:00Z".into(),
            resumed: vec![Resumption {
                command: vec!["skillgate".into(), "eval".into(), "--resume".into()],
                at: "2026-11-30T18:05:00Z".into(),
            }],
            finished_at: None,
            cells: BTreeMap::from([("planned".into(), 6), ("pass".into(), 4)]),
            tasks_refused: vec![crate::eval::task::Refusal {
                task: "two-steps".into(),
                reason: "multi-step tasks (`steps`) are not supported".into(),
            }],
        };
        write_run_info(tmp.path(), &info).unwrap();
        assert_eq!(read_run_info(tmp.path()).unwrap(), info);
        std::fs::write(tmp.path().join(RUN_FILE), "{\"schema\": 1}").unwrap();
        let error = read_run_info(tmp.path()).unwrap_err().to_string();
        assert!(error.contains("missing field"), "{error}");
    }

    fn attempt(outcome: Outcome) -> AttemptRecord {
        AttemptRecord {
            outcome,
            reward: None,
            input_tokens: 10,
            output_tokens: 5,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
            reasoning_output_tokens: 0,
            cost_usd: None,
            models: BTreeMap::new(),
            rewards: BTreeMap::new(),
            network: None,
            wall_s: 1.5,
            agent_exit: Some(0),
            error: None,
            skill_read: None,
        }
    }

    fn key(seed: u32) -> CellKey {
        CellKey {
            skill_sha256: "s".into(),
            task: "t".into(),
            task_sha256: "h".into(),
            agent: "command".into(),
            model: String::new(),
            condition: Condition::C1,
            seed,
        }
    }

    #[test]
    fn outcome_rules() {
        use Outcome::*;
        let o = |v: &[Outcome]| cell_outcome(&v.iter().map(|&x| attempt(x)).collect::<Vec<_>>());
        assert_eq!(o(&[Fail, Pass]), Pass);
        assert_eq!(o(&[Fail, Error]), Error);
        assert_eq!(o(&[Timeout, Fail]), Fail);
        assert_eq!(o(&[Timeout]), Timeout);
        assert_eq!(o(&[]), Error);
    }

    #[test]
    fn cell_json_has_the_contract_fields() {
        let cell = CellRecord::new(key(3), vec![attempt(Outcome::Fail), attempt(Outcome::Pass)]);
        let v: serde_json::Value = serde_json::to_value(&cell).unwrap();
        assert_eq!(v["schema"], 1);
        assert_eq!(v["condition"], "C1");
        assert_eq!(v["outcome"], "pass");
        assert_eq!(v["attempts"][0]["outcome"], "fail");
        assert_eq!(v["input_tokens"], 20);
        assert_eq!(v["wall_s"], 3.0);
    }

    #[test]
    fn costs_survive_the_journal_to_the_last_bit() {
        // A fixed generator of awkward 17-digit values; the default float parser of
        // serde_json may be one unit off in the last place for such values.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let cost = (x >> 11) as f64 / (1u64 << 53) as f64 * 3.0;
            let mut a = attempt(Outcome::Pass);
            a.cost_usd = Some(cost);
            let line = serde_json::to_string(&a).unwrap();
            let back: AttemptRecord = serde_json::from_str(&line).unwrap();
            assert_eq!(back.cost_usd, Some(cost), "{line}");
        }
    }

    #[test]
    fn resume_drops_a_torn_line_and_keeps_complete_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let mut j = Journal::create(tmp.path()).unwrap();
        j.append(&CellRecord::new(key(0), vec![attempt(Outcome::Pass)]))
            .unwrap();
        drop(j);
        let path = tmp.path().join(CELLS_FILE);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"schema\":1,\"skill_sha").unwrap();
        drop(f);
        assert!(Journal::create(tmp.path()).is_err());
        let mut j = Journal::resume(tmp.path()).unwrap();
        assert_eq!(j.len(), 1);
        assert!(j.contains(&key(0)));
        j.append(&CellRecord::new(key(1), vec![attempt(Outcome::Fail)]))
            .unwrap();
        let cells = read_cells(&path).unwrap();
        assert_eq!(cells.iter().map(|c| c.seed).collect::<Vec<_>>(), vec![0, 1]);
    }

    #[test]
    fn cache_round_trips_and_skips_errors() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = OutcomeCache::new(tmp.path());
        let fp = OutcomeCache::fingerprint(&key(0), &"ctx");
        assert_ne!(fp, OutcomeCache::fingerprint(&key(0), &"other"));
        let cell = CellRecord::new(key(0), vec![attempt(Outcome::Pass)]);
        cache.put(&fp, &cell).unwrap();
        assert_eq!(cache.get(&fp), Some(cell));
        let err = CellRecord::new(key(1), vec![attempt(Outcome::Error)]);
        let fp1 = OutcomeCache::fingerprint(&key(1), &"ctx");
        cache.put(&fp1, &err).unwrap();
        assert_eq!(cache.get(&fp1), None);
    }
}

//! Paired statistics over journal cells. Pure functions: the same cells always give the same
//! numbers, byte for byte.
//!
//! Units: every rate, delta and interval in this API (and in the JSON it serialises to) is a
//! fraction (`0.083` is a gain of 8.3 percentage points); reports convert to points. Token
//! overhead is a fraction too (`0.42` is +42% tokens).
//!
//! The figures compare one skill with one agent and one model. A cell with outcome `error` (a
//! harness failure, not the agent's) is excluded from every figure and counted; `timeout` is
//! the agent's failure and counts as a fail.

mod bootstrap;
mod mcnemar;
pub mod power;
mod rng;
pub mod sequential;
pub mod transfer;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::eval::condition::Condition;
use crate::eval::journal::{CellRecord, EnvironmentSummary, Outcome};

pub use mcnemar::mcnemar_exact;
use rng::SplitMix64;

/// Default number of bootstrap resamples.
pub const DEFAULT_RESAMPLES: u32 = 10_000;
/// Default two-sided confidence level of the intervals.
pub const DEFAULT_CONFIDENCE: f64 = 0.95;
/// Default bootstrap seed. Fixed so that a journal always gives the same intervals; it is
/// below 2^53 so JSON readers that use doubles keep it exact.
pub const DEFAULT_RNG_SEED: u64 = 0x5C11_6A7E;

/// Why the statistics could not be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// Nothing to summarise.
    #[error("the journal has no cells")]
    Empty,
    /// Cells of different agents or models would be compared as if they were one.
    #[error(
        "the journal mixes {field} `{first}` and `{other}`; statistics compare one agent and one model at a time"
    )]
    Mixed {
        /// Which field differs (`agent` or `model`).
        field: &'static str,
        /// The first value seen.
        first: String,
        /// A different value.
        other: String,
    },
    /// A bootstrap needs at least one resample.
    #[error("the number of bootstrap resamples must be at least 1")]
    NoResamples,
    /// The confidence level must be a probability strictly between 0 and 1.
    #[error("the confidence level must be strictly between 0 and 1, got {0}")]
    Confidence(f64),
}

/// How the intervals are computed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct StatsOptions {
    /// Bootstrap resamples per interval.
    pub resamples: u32,
    /// Two-sided confidence level of every interval, e.g. `0.95`.
    pub confidence: f64,
    /// Seed of the bootstrap's random stream.
    pub rng_seed: u64,
}

impl Default for StatsOptions {
    fn default() -> Self {
        Self {
            resamples: DEFAULT_RESAMPLES,
            confidence: DEFAULT_CONFIDENCE,
            rng_seed: DEFAULT_RNG_SEED,
        }
    }
}

impl StatsOptions {
    /// Checks that the options describe a computable bootstrap.
    pub fn validate(&self) -> Result<(), StatsError> {
        if self.resamples == 0 {
            return Err(StatsError::NoResamples);
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(StatsError::Confidence(self.confidence));
        }
        Ok(())
    }
}

/// The figures of one condition. Rates are `None` when every cell of the condition was an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConditionStats {
    /// Mean over tasks of the share of the task's usable seeds whose cell passed.
    pub pass_rate: Option<f64>,
    /// The same, counting only each cell's first attempt (Pass@1).
    pub pass1_rate: Option<f64>,
    /// Mean over usable cells of total tokens (input + output + cache read + cache write).
    pub mean_tokens: Option<f64>,
    /// Median over usable cells of total tokens.
    pub median_tokens: Option<f64>,
    /// Mean over usable cells of wall time, in seconds.
    pub mean_wall_s: Option<f64>,
    /// Mean over usable cells of cost in US dollars; `None` unless every attempt reported one.
    pub mean_cost_usd: Option<f64>,
    /// Usable cells (outcome other than `error`): the figures above rest on these.
    pub cells: u32,
    /// Cells with outcome `error`, excluded from every figure.
    pub errors: u32,
    /// Share of the usable cells' attempts that opened the skill, over the attempts where
    /// that is known; `None` when it is known for none (no skill, or an agent that cannot
    /// tell).
    pub skill_read_rate: Option<f64>,
    /// Attempts that opened the skill.
    #[serde(default)]
    pub skill_reads: u32,
    /// Attempts where whether the skill was opened is known.
    #[serde(default)]
    pub skill_read_known: u32,
}

/// A paired difference between two conditions with its bootstrap interval (fractions).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Mean over paired tasks of the task's pass-share difference.
    pub point: f64,
    /// Lower bound of the interval.
    pub lo: f64,
    /// Upper bound of the interval.
    pub hi: f64,
    /// Tasks with at least one (seed) pair where both cells are usable.
    pub tasks: u32,
    /// (task, seed) pairs where both cells are usable.
    pub pairs: u32,
}

/// How a task came out for the skill against no skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskResult {
    /// C1 passed a larger share of the paired seeds than C0.
    Win,
    /// Equal shares.
    Tie,
    /// C0 passed a larger share.
    Loss,
    /// No seed had a usable cell in both C0 and C1.
    NoPair,
}

/// One task's comparison of the skill (C1) with no skill (C0), over the seeds where both
/// cells are usable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskComparison {
    /// Task id.
    pub task: String,
    /// Share of paired seeds that passed without the skill (`None` without a pair).
    pub c0: Option<f64>,
    /// Share of paired seeds that passed with the skill.
    pub c1: Option<f64>,
    /// Number of paired seeds.
    pub pairs: u32,
    /// Win, tie, loss or no pair.
    pub result: TaskResult,
}

/// Discordant (task, seed) pairs of C1 against C0, the input of the McNemar test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Discordant {
    /// Pairs where only the skill's cell passed.
    pub c1_only: u32,
    /// Pairs where only the no-skill cell passed.
    pub c0_only: u32,
}

/// The A/A check: two independent runs of the same condition (C0b against C0, no skill in
/// either), so any difference is noise.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AaSummary {
    /// C0b − C0 with its paired bootstrap interval: the noise floor Δ must clear.
    pub difference: Interval,
    /// Tasks whose pass share differs between C0 and C0b.
    pub flips: u32,
    /// `flips` over the tasks with a usable C0/C0b pair.
    pub flip_share: f64,
}

/// Everything the verdict and the reports need from an evaluation; serialises to the
/// `verdict.eval` JSON object (see `docs/json.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalSummary {
    /// Distinct tasks in the journal.
    pub tasks: u32,
    /// Distinct seeds in the journal.
    pub seeds: u32,
    /// Figures per condition, for the conditions present in the journal.
    pub conditions: BTreeMap<Condition, ConditionStats>,
    /// Δ = C1 − C0.
    pub delta: Option<Interval>,
    /// ΔLength = C2 − C0: what an equally long irrelevant text does.
    pub delta_length: Option<Interval>,
    /// ΔContent = C1 − C2: what the skill's content adds beyond its length.
    pub delta_content: Option<Interval>,
    /// Most attempts any cell ran (`--attempts`); 1 for a journal without retries.
    #[serde(default)]
    pub attempts: u32,
    /// Δ at the first attempt (Pass@1), when some cell ran more than one attempt; `delta`
    /// is then Δ at the last (Pass@N). `None` with one attempt per cell.
    #[serde(default)]
    pub delta_pass1: Option<Interval>,
    /// The A/A check, when the journal has C0b cells (`--aa`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aa: Option<AaSummary>,
    /// Exact McNemar p-value for C1 against C0.
    pub mcnemar_p: Option<f64>,
    /// The discordant pairs behind `mcnemar_p`.
    pub discordant: Discordant,
    /// Tasks where the skill passed a larger share of seeds.
    pub win: u32,
    /// Tasks with equal shares.
    pub tie: u32,
    /// Tasks where the skill passed a smaller share.
    pub loss: u32,
    /// (T1 − T0) / T0 over mean total tokens per cell.
    pub token_overhead: Option<f64>,
    /// Δ / token overhead: points of pass rate gained per percent of extra tokens.
    pub cost_efficiency: Option<f64>,
    /// For each figure that is `null`, why it could not be computed.
    pub undefined: BTreeMap<String, String>,
    /// Tasks with no seed where both C0 and C1 are usable; left out of Δ, McNemar and
    /// win/tie/loss.
    pub tasks_without_pair: Vec<String>,
    /// Per-task comparison of C1 with C0, sorted by task id.
    pub per_task: Vec<TaskComparison>,
    /// Two-sided confidence level of the intervals.
    pub confidence: f64,
    /// Bootstrap resamples per interval.
    pub resamples: u32,
    /// Seed of the bootstrap's random stream.
    pub rng_seed: u64,
    /// What the cells ran in: network per phase and skills removed, per task; empty for
    /// journals written before cells recorded it.
    #[serde(default, skip_serializing_if = "EnvironmentSummary::is_empty")]
    pub environment: EnvironmentSummary,
}

/// The paired differences: (minuend, subtrahend, bootstrap stream, JSON name). Each has its
/// own random stream so that each interval is reproducible on its own.
const PAIRED: [(Condition, Condition, u64, &str); 3] = [
    (Condition::C1, Condition::C0, 1, "delta"),
    (Condition::C2, Condition::C0, 2, "delta_length"),
    (Condition::C1, Condition::C2, 3, "delta_content"),
];

/// Summarises a journal: per-condition figures, the three paired deltas with their
/// intervals, McNemar, win/tie/loss and the token figures.
///
/// When several records share a (task, condition, seed) the last one wins: an append-only
/// journal supersedes a cell by writing it again.
pub fn summarize(cells: &[CellRecord], options: &StatsOptions) -> Result<EvalSummary, StatsError> {
    options.validate()?;
    check_single_triple(cells)?;
    let grid = Grid::new(cells);
    let conditions = grid.condition_stats();
    let mut undefined = BTreeMap::new();
    let [delta, delta_length, delta_content] = PAIRED.map(|(a, b, stream, name)| {
        let interval = grid
            .paired_interval(a, b, options, stream)
            .ok_or_else(|| format!("no task has a seed with usable {a:?} and {b:?} cells"));
        defined(interval, name, &mut undefined)
    });
    let attempts = grid.max_attempts;
    let delta_pass1 = (attempts > 1)
        .then(|| grid.paired_interval_at(Condition::C1, Condition::C0, options, 4, true))
        .flatten();
    let aa = grid.aa(options);
    let per_task = grid.per_task();
    let count = |r| per_task.iter().filter(|t| t.result == r).count() as u32;
    let discordant = grid.discordant();
    let mcnemar_p = delta
        .map(|_| mcnemar_exact(discordant.c1_only.into(), discordant.c0_only.into()))
        .ok_or_else(|| "no (task, seed) pair of usable C0 and C1 cells".to_owned());
    let mcnemar_p = defined(mcnemar_p, "mcnemar_p", &mut undefined);
    let token_overhead = defined(
        token_overhead(&conditions),
        "token_overhead",
        &mut undefined,
    );
    let cost_efficiency = cost_efficiency(delta.as_ref(), token_overhead);
    let cost_efficiency = defined(cost_efficiency, "cost_efficiency", &mut undefined);
    Ok(EvalSummary {
        tasks: grid.tasks.len() as u32,
        seeds: grid.seeds.len() as u32,
        delta,
        delta_length,
        delta_content,
        attempts,
        delta_pass1,
        aa,
        mcnemar_p,
        discordant,
        win: count(TaskResult::Win),
        tie: count(TaskResult::Tie),
        loss: count(TaskResult::Loss),
        token_overhead,
        cost_efficiency,
        undefined,
        tasks_without_pair: per_task
            .iter()
            .filter(|t| t.result == TaskResult::NoPair)
            .map(|t| t.task.clone())
            .collect(),
        per_task,
        conditions,
        confidence: options.confidence,
        resamples: options.resamples,
        rng_seed: options.rng_seed,
        environment: EnvironmentSummary::of(cells),
    })
}

/// The agent and model a journal's cells were measured with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Measured {
    /// The agent kind (`claude-code`, `codex`, `command`, ...).
    pub agent: String,
    /// The model (empty when the agent chose).
    pub model: String,
}

/// Summarises a journal per model, in the order the models first appear: one
/// [`EvalSummary`] for each, computed as [`summarize`] would on that model's cells alone. A
/// journal that mixes agents is refused.
pub fn summarize_by_model(
    cells: &[CellRecord],
    options: &StatsOptions,
) -> Result<Vec<(Measured, EvalSummary)>, StatsError> {
    let first = cells.first().ok_or(StatsError::Empty)?;
    let mut models: Vec<&str> = Vec::new();
    for cell in cells {
        if cell.agent != first.agent {
            return Err(StatsError::Mixed {
                field: "agent",
                first: first.agent.clone(),
                other: cell.agent.clone(),
            });
        }
        if !models.contains(&cell.model.as_str()) {
            models.push(&cell.model);
        }
    }
    models
        .into_iter()
        .map(|model| {
            let own: Vec<CellRecord> = cells.iter().filter(|c| c.model == model).cloned().collect();
            let measured = Measured {
                agent: first.agent.clone(),
                model: model.to_owned(),
            };
            Ok((measured, summarize(&own, options)?))
        })
        .collect()
}

/// The value, or `None` with the reason recorded under the figure's JSON name.
fn defined<T>(
    value: Result<T, String>,
    name: &str,
    undefined: &mut BTreeMap<String, String>,
) -> Option<T> {
    value
        .map_err(|why| undefined.insert(name.to_owned(), why))
        .ok()
}

/// Refuses journals that mix agents or models.
fn check_single_triple(cells: &[CellRecord]) -> Result<(), StatsError> {
    let first = cells.first().ok_or(StatsError::Empty)?;
    let mixed = |field, other: &str, mine: &str| StatsError::Mixed {
        field,
        first: mine.to_owned(),
        other: other.to_owned(),
    };
    for cell in cells {
        if cell.agent != first.agent {
            return Err(mixed("agent", &cell.agent, &first.agent));
        }
        if cell.model != first.model {
            return Err(mixed("model", &cell.model, &first.model));
        }
    }
    Ok(())
}

/// (T1 − T0) / T0, or why it is undefined.
fn token_overhead(conditions: &BTreeMap<Condition, ConditionStats>) -> Result<f64, String> {
    let mean = |c: Condition| conditions.get(&c).and_then(|s| s.mean_tokens);
    let t0 = mean(Condition::C0).ok_or("no usable C0 cells")?;
    let t1 = mean(Condition::C1).ok_or("no usable C1 cells")?;
    if t0 == 0.0 {
        return Err("C0 cells report no tokens, so a relative overhead is undefined".to_owned());
    }
    Ok((t1 - t0) / t0)
}

/// Δ / overhead, or why it is undefined. A ratio to a zero or negative overhead would read
/// as an infinite or sign-flipped efficiency, so it is withheld with the reason instead.
fn cost_efficiency(delta: Option<&Interval>, overhead: Option<f64>) -> Result<f64, String> {
    let delta = delta.ok_or("Δ was not measured")?;
    let overhead = overhead.ok_or("token overhead is undefined")?;
    if overhead == 0.0 {
        return Err("token overhead is zero; a gain per extra token is undefined".to_owned());
    }
    if overhead < 0.0 {
        return Err(format!(
            "the skill saves tokens ({:+.1}%); a gain per extra token is undefined",
            overhead * 100.0
        ));
    }
    Ok(delta.point / overhead)
}

/// A cell reduced to what the statistics read.
#[derive(Debug, Clone, Copy)]
struct Cell {
    usable: bool,
    passed: bool,
    passed_first: bool,
    tokens: u128,
    wall_s: f64,
    cost_usd: Option<f64>,
    /// Attempts that opened the skill, and attempts where that is known.
    reads: u32,
    read_known: u32,
}

impl Cell {
    fn new(record: &CellRecord) -> Self {
        let attempts = &record.attempts;
        let tokens = if attempts.is_empty() {
            u128::from(record.input_tokens) + u128::from(record.output_tokens)
        } else {
            attempts
                .iter()
                .map(|a| {
                    u128::from(a.input_tokens)
                        + u128::from(a.output_tokens)
                        + u128::from(a.cache_read_tokens)
                        + u128::from(a.cache_write_tokens)
                })
                .sum()
        };
        // No attempt means no cost was reported, not that the cell was free.
        let cost_usd = if attempts.is_empty() {
            None
        } else {
            attempts.iter().map(|a| a.cost_usd).sum()
        };
        Self {
            usable: record.outcome != Outcome::Error,
            passed: record.outcome == Outcome::Pass,
            passed_first: attempts
                .first()
                .map_or(record.outcome == Outcome::Pass, |a| {
                    a.outcome == Outcome::Pass
                }),
            tokens,
            wall_s: record.wall_s,
            cost_usd,
            reads: attempts
                .iter()
                .filter(|a| a.skill_read == Some(true))
                .count() as u32,
            read_known: attempts.iter().filter(|a| a.skill_read.is_some()).count() as u32,
        }
    }
}

/// The journal as a grid of cells keyed by (task, condition, seed), in sorted order.
struct Grid<'a> {
    cells: BTreeMap<(&'a str, Condition, u32), Cell>,
    tasks: BTreeSet<&'a str>,
    seeds: BTreeSet<u32>,
    max_attempts: u32,
}

impl<'a> Grid<'a> {
    fn new(records: &'a [CellRecord]) -> Self {
        let mut grid = Self {
            cells: BTreeMap::new(),
            tasks: BTreeSet::new(),
            seeds: BTreeSet::new(),
            max_attempts: 1,
        };
        for record in records {
            grid.tasks.insert(&record.task);
            grid.seeds.insert(record.seed);
            grid.max_attempts = grid.max_attempts.max(record.attempts.len() as u32);
            grid.cells.insert(
                (&record.task, record.condition, record.seed),
                Cell::new(record),
            );
        }
        grid
    }

    fn condition_stats(&self) -> BTreeMap<Condition, ConditionStats> {
        let present: BTreeSet<Condition> = self.cells.keys().map(|k| k.1).collect();
        present
            .into_iter()
            .map(|c| (c, self.one_condition(c)))
            .collect()
    }

    fn one_condition(&self, condition: Condition) -> ConditionStats {
        let all: Vec<(&str, Cell)> = self
            .cells
            .iter()
            .filter(|(k, _)| k.1 == condition)
            .map(|(k, cell)| (k.0, *cell))
            .collect();
        let usable: Vec<Cell> = all
            .iter()
            .filter(|(_, c)| c.usable)
            .map(|(_, c)| *c)
            .collect();
        let mut tokens: Vec<u128> = usable.iter().map(|c| c.tokens).collect();
        tokens.sort_unstable();
        let cost: Option<Vec<f64>> = usable.iter().map(|c| c.cost_usd).collect();
        let skill_reads = usable.iter().map(|c| c.reads).sum();
        let skill_read_known: u32 = usable.iter().map(|c| c.read_known).sum();
        ConditionStats {
            pass_rate: task_mean(&all, |c| c.passed),
            pass1_rate: task_mean(&all, |c| c.passed_first),
            mean_tokens: mean(tokens.iter().map(|&t| t as f64)),
            median_tokens: median(&tokens),
            mean_wall_s: mean(usable.iter().map(|c| c.wall_s)),
            mean_cost_usd: cost.and_then(|c| mean(c.into_iter())),
            cells: usable.len() as u32,
            errors: (all.len() - usable.len()) as u32,
            skill_read_rate: (skill_read_known > 0)
                .then(|| f64::from(skill_reads) / f64::from(skill_read_known)),
            skill_reads,
            skill_read_known,
        }
    }

    /// The usable outcome of a cell, if there is one.
    fn passed(&self, task: &'a str, condition: Condition, seed: u32) -> Option<bool> {
        self.passed_at(task, condition, seed, false)
    }

    /// The usable outcome of a cell at its first attempt (`first`) or at any attempt.
    fn passed_at(
        &self,
        task: &'a str,
        condition: Condition,
        seed: u32,
        first: bool,
    ) -> Option<bool> {
        self.cells
            .get(&(task, condition, seed))
            .filter(|c| c.usable)
            .map(|c| if first { c.passed_first } else { c.passed })
    }

    /// For one task, the (passes in `a`, passes in `b`, pairs) over seeds usable in both.
    fn task_pairs(&self, task: &'a str, a: Condition, b: Condition) -> (u32, u32, u32) {
        self.task_pairs_at(task, a, b, false)
    }

    /// [`Self::task_pairs`] at the first attempt (`first`) or at any attempt.
    fn task_pairs_at(
        &self,
        task: &'a str,
        a: Condition,
        b: Condition,
        first: bool,
    ) -> (u32, u32, u32) {
        self.seeds
            .iter()
            .filter_map(|&s| {
                Some((
                    self.passed_at(task, a, s, first)?,
                    self.passed_at(task, b, s, first)?,
                ))
            })
            .fold((0, 0, 0), |(pa, pb, n), (x, y)| {
                (pa + u32::from(x), pb + u32::from(y), n + 1)
            })
    }

    /// Per-task paired differences share(a) − share(b), for tasks with at least one pair.
    fn task_differences(&self, a: Condition, b: Condition, first: bool) -> (Vec<f64>, u32) {
        let mut pairs_total = 0;
        let differences = self
            .tasks
            .iter()
            .filter_map(|&t| {
                let (pa, pb, n) = self.task_pairs_at(t, a, b, first);
                pairs_total += n;
                (n > 0).then(|| (f64::from(pa) - f64::from(pb)) / f64::from(n))
            })
            .collect();
        (differences, pairs_total)
    }

    fn paired_interval(
        &self,
        a: Condition,
        b: Condition,
        options: &StatsOptions,
        stream: u64,
    ) -> Option<Interval> {
        self.paired_interval_at(a, b, options, stream, false)
    }

    /// The paired interval of `a − b` at the first attempt (`first`) or at any attempt.
    fn paired_interval_at(
        &self,
        a: Condition,
        b: Condition,
        options: &StatsOptions,
        stream: u64,
        first: bool,
    ) -> Option<Interval> {
        let (differences, pairs) = self.task_differences(a, b, first);
        let point = mean(differences.iter().copied())?;
        let mut rng = SplitMix64::stream(options.rng_seed, stream);
        let (lo, hi) = bootstrap::percentile_interval(
            &differences,
            options.resamples,
            options.confidence,
            &mut rng,
        );
        Some(Interval {
            point,
            lo,
            hi,
            tasks: differences.len() as u32,
            pairs,
        })
    }

    /// C0b against C0, when both were run.
    fn aa(&self, options: &StatsOptions) -> Option<AaSummary> {
        let difference = self.paired_interval(Condition::C0b, Condition::C0, options, 5)?;
        let flips = self
            .tasks
            .iter()
            .filter(|&&t| {
                let (pa, pb, n) = self.task_pairs(t, Condition::C0b, Condition::C0);
                n > 0 && pa != pb
            })
            .count() as u32;
        Some(AaSummary {
            difference,
            flips,
            flip_share: f64::from(flips) / f64::from(difference.tasks),
        })
    }

    fn per_task(&self) -> Vec<TaskComparison> {
        self.tasks
            .iter()
            .map(|&task| {
                let (p1, p0, n) = self.task_pairs(task, Condition::C1, Condition::C0);
                let share = |p: u32| (n > 0).then(|| f64::from(p) / f64::from(n));
                let result = match (n, p1.cmp(&p0)) {
                    (0, _) => TaskResult::NoPair,
                    (_, std::cmp::Ordering::Greater) => TaskResult::Win,
                    (_, std::cmp::Ordering::Equal) => TaskResult::Tie,
                    (_, std::cmp::Ordering::Less) => TaskResult::Loss,
                };
                TaskComparison {
                    task: task.to_owned(),
                    c0: share(p0),
                    c1: share(p1),
                    pairs: n,
                    result,
                }
            })
            .collect()
    }

    fn discordant(&self) -> Discordant {
        let mut d = Discordant {
            c1_only: 0,
            c0_only: 0,
        };
        for &task in &self.tasks {
            for &seed in &self.seeds {
                match (
                    self.passed(task, Condition::C1, seed),
                    self.passed(task, Condition::C0, seed),
                ) {
                    (Some(true), Some(false)) => d.c1_only += 1,
                    (Some(false), Some(true)) => d.c0_only += 1,
                    _ => {}
                }
            }
        }
        d
    }
}

/// Mean over tasks of the share of a task's usable cells for which `hit` holds.
fn task_mean(cells: &[(&str, Cell)], hit: impl Fn(&Cell) -> bool) -> Option<f64> {
    let mut per_task: BTreeMap<&str, (u32, u32)> = BTreeMap::new();
    for (task, cell) in cells.iter().filter(|(_, c)| c.usable) {
        let entry = per_task.entry(task).or_default();
        entry.0 += u32::from(hit(cell));
        entry.1 += 1;
    }
    mean(per_task.values().map(|&(h, n)| f64::from(h) / f64::from(n)))
}

/// Arithmetic mean, `None` for no values.
fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0_u32), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / f64::from(n))
}

/// Median of sorted values, `None` for no values.
fn median(sorted: &[u128]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2] as f64),
        _ => Some((sorted[n / 2 - 1] as f64 + sorted[n / 2] as f64) / 2.0),
    }
}

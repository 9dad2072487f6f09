//! From evaluation to verdict: run the paired evaluation, summarise its journal and decide,
//! in one pass or in sequential seed rounds. Plain inputs only, so every command that
//! evaluates (eval, report, a CI gate) goes through the same steps.

use std::path::Path;

use crate::eval::task::Refusal;
use crate::eval::{self, EvalError, EvalOptions, SkillParts, journal};
use crate::finding::Finding;
use crate::stats::sequential::{SequentialError, SequentialPlan, Step};
use crate::stats::{self, StatsError, StatsOptions};
use crate::verdict::{self, PanelVerdict, Verdict, VerdictPolicy};

/// Why no verdict could be reached.
#[derive(Debug, thiserror::Error)]
pub enum AssessError {
    /// The evaluation itself failed (or was interrupted).
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// The journal's cells cannot be summarised.
    #[error(transparent)]
    Stats(#[from] StatsError),
    /// The sequential plan cannot be followed.
    #[error(transparent)]
    Sequential(#[from] SequentialError),
}

/// The policies that turn a journal into a verdict.
#[derive(Debug, Clone, Copy)]
pub struct Policy<'a> {
    /// How figures become intervals.
    pub stats: &'a StatsOptions,
    /// When the verdict is `inject`.
    pub verdict: &'a VerdictPolicy,
}

/// How many seed rounds to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounds {
    /// The seeds of the options, in one pass.
    Once,
    /// One seed per round, stopping as soon as the verdict cannot change, at most this many.
    Sequential(u32),
}

/// A verdict from an evaluation run now, and the tasks that run had to leave out.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluated {
    /// The decision from the run's journal.
    pub verdict: Verdict,
    /// Tasks whose environment could not be had (an image neither pulled nor built): the
    /// verdict stands on the other tasks, and the command says the run was not whole.
    pub unavailable: Vec<Refusal>,
}

/// Runs the evaluation `options` describe and decides from its journal. In sequential mode,
/// `on_round` hears each round's step; `findings` are the skill's static check.
pub fn evaluate(
    options: &EvalOptions,
    skill: SkillParts,
    findings: &[Finding],
    policy: Policy<'_>,
    rounds: Rounds,
    mut on_round: impl FnMut(u32, Step),
) -> Result<Evaluated, AssessError> {
    let max_seeds = match rounds {
        Rounds::Once => {
            let run = eval::evaluate(options, skill)?;
            return Ok(Evaluated {
                verdict: decide(&options.out, findings, policy)?,
                unavailable: run.unavailable,
            });
        }
        Rounds::Sequential(max_seeds) => max_seeds,
    };
    let plan = SequentialPlan::new(max_seeds, policy.stats.confidence)?;
    let mut options = options.clone();
    let mut last = None;
    for look in 1..=plan.max_looks() {
        options.seeds = look;
        options.resume = look > 1 || options.resume;
        let run = eval::evaluate(&options, skill.clone())?;
        let cells = journal::read_cells(&options.out.join(journal::CELLS_FILE))?;
        let summary = stats::summarize(&cells, &plan.options_at(look, policy.stats)?)?;
        let step = verdict::decide_sequential(policy.verdict, findings, &summary, &plan, look)?;
        on_round(look, step.step);
        let settled = step.step != Step::Continue;
        last = Some(Evaluated {
            verdict: step.verdict,
            unavailable: run.unavailable,
        });
        if settled {
            break;
        }
    }
    // A plan has at least one look, so a round ran.
    last.ok_or(AssessError::Sequential(SequentialError::NoLooks))
}

/// The verdict from a run directory's journal, naming the agent and model it measured.
pub fn decide(
    run_dir: &Path,
    findings: &[Finding],
    policy: Policy<'_>,
) -> Result<Verdict, AssessError> {
    let cells = journal::read_cells(&run_dir.join(journal::CELLS_FILE))?;
    let summary = stats::summarize(&cells, policy.stats)?;
    let verdict = verdict::decide(policy.verdict, findings, Some(&summary));
    let version = recorded_agent_version(run_dir);
    Ok(match cells.first() {
        Some(cell) => verdict.measured_with(&cell.agent, &cell.model, version.as_deref()),
        None => verdict,
    })
}

/// The agent's version the run recorded in `run.json` (`None` when it recorded none, or
/// when the run directory has no readable `run.json`).
fn recorded_agent_version(run_dir: &Path) -> Option<String> {
    journal::read_run_info(run_dir)
        .ok()?
        .versions
        .remove(eval::runner::AGENT_VERSION)
}

/// What a run directory's journal decides: one verdict, or a panel when its cells were
/// measured on several models.
#[derive(Debug, Clone, PartialEq)]
pub enum Assessment {
    /// One model.
    One(Box<Verdict>),
    /// Several models: a verdict per model and the transfer between them.
    Panel(PanelVerdict),
}

/// The verdict, or the panel of verdicts, from a run directory's journal.
pub fn assess_run(
    run_dir: &Path,
    findings: &[Finding],
    policy: Policy<'_>,
) -> Result<Assessment, AssessError> {
    let cells = journal::read_cells(&run_dir.join(journal::CELLS_FILE))?;
    let measured = stats::summarize_by_model(&cells, policy.stats)?;
    if measured.len() < 2 {
        return decide(run_dir, findings, policy).map(|v| Assessment::One(Box::new(v)));
    }
    Ok(Assessment::Panel(verdict::decide_panel(
        policy.verdict,
        findings,
        &measured,
        recorded_agent_version(run_dir).as_deref(),
        policy.stats,
    )))
}

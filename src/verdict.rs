//! The inject-or-skip decision: a pure function of the policy, the findings and, when there
//! was one, the evaluation. Every verdict carries its reasons as plain sentences tied to a
//! figure or a finding, and never claims what was not measured.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub mod panel;

pub use panel::{ModelVerdict, Panel, PanelVerdict, TransferRow, decide_panel};

use crate::eval::condition::Condition;
use crate::finding::{Finding, Severity};
use crate::stats::sequential::{self, SequentialError, SequentialPlan, Settlement, Step};
use crate::stats::{EvalSummary, Interval, power};

/// The decision policy, from the `[verdict]` table of `skillgate.toml`.
///
/// Always required for `inject`: no error-level finding, Δ's lower bound above zero, and
/// ΔContent above zero (the skill's content beats an equally long irrelevant text).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct VerdictPolicy {
    /// Smallest gain worth injecting, in percentage points; Δ's point estimate must reach it.
    pub min_gain_points: Option<f64>,
    /// Largest acceptable token overhead as a fraction (`0.5` allows up to +50% tokens).
    pub max_token_overhead: Option<f64>,
    /// Require ΔContent's lower bound, not only its point estimate, to be above zero.
    pub strict_content: bool,
    /// The smallest gain worth the skill's tokens, in percentage points: an interval whose
    /// upper bound is below it rules a worthwhile gain out (`no-benefit`).
    pub worthwhile_gain_points: f64,
    /// Fewer paired tasks than this make the evidence `inconclusive` whatever the interval
    /// says: a percentile bootstrap over a handful of tasks covers poorly.
    pub min_tasks: u32,
    /// How the verdicts of a run over several models become decisions.
    pub panel: Panel,
}

/// Default of `worthwhile-gain-points`.
pub const DEFAULT_WORTHWHILE_GAIN_POINTS: f64 = 5.0;
/// Default of `min-tasks`.
pub const DEFAULT_MIN_TASKS: u32 = 10;

impl Default for VerdictPolicy {
    fn default() -> Self {
        Self {
            min_gain_points: None,
            max_token_overhead: None,
            strict_content: false,
            worthwhile_gain_points: DEFAULT_WORTHWHILE_GAIN_POINTS,
            min_tasks: DEFAULT_MIN_TASKS,
            panel: Panel::PerModel,
        }
    }
}

/// Why a policy cannot be applied.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PolicyError {
    /// A limit is negative, infinite or not a number.
    #[error("`[verdict] {field}` must be a finite, non-negative number, got {value}")]
    BadLimit {
        /// The key in `[verdict]`.
        field: &'static str,
        /// The value found.
        value: f64,
    },
}

impl VerdictPolicy {
    /// Checks the optional limits.
    pub fn validate(&self) -> Result<(), PolicyError> {
        let limits = [
            ("min-gain-points", self.min_gain_points),
            ("max-token-overhead", self.max_token_overhead),
            ("worthwhile-gain-points", Some(self.worthwhile_gain_points)),
        ];
        for (field, value) in limits {
            if let Some(value) = value.filter(|v| !v.is_finite() || *v < 0.0) {
                return Err(PolicyError::BadLimit { field, value });
            }
        }
        Ok(())
    }

    /// The smallest gain worth injecting, as a fraction.
    fn gain_floor(&self) -> f64 {
        self.min_gain_points.map_or(0.0, |p| p / 100.0)
    }
}

/// Inject the skill or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// The evidence says the skill helps on this project.
    Inject,
    /// It does not, or we do not know.
    Skip,
}

/// What the evaluation shows, whatever the decision: the gate stays opt-in, the evidence
/// says how much the figures can be trusted to mean what they say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Evidence {
    /// Δ's interval lies above zero: the skill helps.
    Benefit,
    /// Δ's interval lies below zero: the skill hurts.
    Harm,
    /// Δ's interval rules out a gain worth having (its upper bound is below the worthwhile gain).
    NoBenefit,
    /// The evaluation cannot tell: too few tasks, an interval too wide, or a skill the agent
    /// rarely opened.
    Inconclusive,
}

/// When to give the skill, from the per-attempt effect of an evaluation with retries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Route {
    /// The skill helps from the first attempt: give it always.
    Always,
    /// The gain appears only after feedback: give it with the feedback of attempt 2 on
    /// (`--placement inject-on-retry` confirms it).
    OnRetry,
}

/// What the decision rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Basis {
    /// Findings only; nothing was run.
    Static,
    /// Findings and a paired evaluation.
    Eval,
}

/// The verdict on one skill for one project: serialises to the `verdict` JSON object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Inject or skip.
    pub decision: Decision,
    /// Static or eval.
    pub basis: Basis,
    /// The model the evaluation measured (empty when the agent chose); absent without one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub model: Option<String>,
    /// The agent the evaluation ran; absent without one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub agent: Option<String>,
    /// The agent's version as the run recorded it: absent without an evaluation, `null`
    /// when the run did not record it.
    #[serde(
        skip_serializing_if = "Option::is_none",
        default,
        with = "present_or_null"
    )]
    pub agent_version: Option<Option<String>>,
    /// What the evaluation shows; absent without one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub evidence: Option<Evidence>,
    /// The smallest gain, in points, this evaluation detects with 80% power. `None` (absent
    /// in JSON) without an evaluation; `Some(None)` (JSON `null`) when the design cannot
    /// estimate it, with the reason in `undefined`.
    #[serde(
        skip_serializing_if = "Option::is_none",
        default,
        with = "present_or_null"
    )]
    pub mde_points: Option<Option<f64>>,
    /// For every verdict figure that is `null`, why (`mde_points`); absent when none is.
    #[serde(skip_serializing_if = "BTreeMap::is_empty", default)]
    pub undefined: BTreeMap<String, String>,
    /// When to give the skill; absent unless cells ran more than one attempt and the
    /// per-attempt figures settle it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub route: Option<Route>,
    /// Plain sentences, each tied to a figure or a finding.
    pub reasons: Vec<String>,
    /// The evaluation's figures, when there was one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub eval: Option<EvalSummary>,
}

/// The one rule that turns evidence into a decision: inject only when the evidence is
/// `benefit` (which already requires `min-tasks` paired tasks) and nothing blocks it (an
/// error-level finding or a policy check that fails). Both the fixed and the sequential
/// evaluation decide through it.
pub fn decision_for(evidence: Evidence, blocked: bool) -> Decision {
    if evidence == Evidence::Benefit && !blocked {
        Decision::Inject
    } else {
        Decision::Skip
    }
}

/// Decides from the findings and, when there was one, the evaluation. The evidence is
/// weighed first and the decision follows from it (`decision_for`); the reasons open with
/// what decided: the evidence when it is not `benefit`, else the finding or the failed
/// check that blocks the skill, else the evidence.
pub fn decide(policy: &VerdictPolicy, findings: &[Finding], eval: Option<&EvalSummary>) -> Verdict {
    let blocking: Vec<String> = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| format!("{}: {}", f.code, f.message))
        .collect();
    let Some(summary) = eval else {
        let mut reasons = blocking;
        if reasons.is_empty() {
            reasons.push(NOT_EVALUATED.to_owned());
        }
        return Verdict {
            decision: Decision::Skip,
            basis: Basis::Static,
            model: None,
            agent: None,
            agent_version: None,
            evidence: None,
            mde_points: None,
            undefined: BTreeMap::new(),
            route: None,
            reasons,
            eval: None,
        };
    };
    let mut weighed = weigh(policy, summary);
    // Δ then measures the skill's description, not its content: say so first.
    let unread = rarely_read(summary);
    if unread.is_some() {
        weighed.evidence = Evidence::Inconclusive;
    }
    let checks = assess(policy, summary);
    let blocked = !blocking.is_empty() || checks.iter().any(|c| !c.passed);
    let decision = decision_for(weighed.evidence, blocked);
    let (failed, passed): (Vec<Check>, Vec<Check>) = checks.into_iter().partition(|c| !c.passed);
    let mut reasons = Vec::new();
    if weighed.evidence == Evidence::Benefit {
        reasons.extend(blocking);
        reasons.extend(failed.into_iter().map(|c| c.reason));
        reasons.push(weighed.reason);
    } else {
        reasons.extend(unread);
        reasons.push(weighed.reason);
        reasons.extend(blocking);
        reasons.extend(failed.into_iter().map(|c| c.reason));
    }
    reasons.extend(passed.into_iter().map(|c| c.reason));
    let route = route(policy, summary);
    reasons.extend(route_reason(route, summary));
    reasons.extend(noise_floor(summary));
    reasons.extend(context(summary));
    let mut undefined = BTreeMap::new();
    let mde_points = match weighed.mde {
        Ok(mde) => Some(mde * 100.0),
        Err(why) => {
            undefined.insert("mde_points".to_owned(), why);
            None
        }
    };
    Verdict {
        decision,
        basis: Basis::Eval,
        model: None,
        agent: None,
        agent_version: None,
        evidence: Some(weighed.evidence),
        mde_points: Some(mde_points),
        undefined,
        route,
        reasons,
        eval: Some(summary.clone()),
    }
}

impl Verdict {
    /// The same verdict naming what it was measured with.
    pub fn measured_with(mut self, agent: &str, model: &str, agent_version: Option<&str>) -> Self {
        self.agent = Some(agent.to_owned());
        self.model = Some(model.to_owned());
        self.agent_version = Some(agent_version.map(str::to_owned));
        self
    }
}

/// Serialises `Option<Option<T>>` as absent (outer `None`), `null` or the value, and reads
/// `null` back as `Some(None)`.
mod present_or_null {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer, T: Serialize>(
        value: &Option<Option<T>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(inner) => inner.serialize(serializer),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        deserializer: D,
    ) -> Result<Option<Option<T>>, D::Error> {
        Option::<T>::deserialize(deserializer).map(Some)
    }
}

/// The outcome of one look of a sequential evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct SequentialLook {
    /// Stop or continue.
    pub step: Step,
    /// The verdict at this look, from intervals at the look's confidence level.
    pub verdict: Verdict,
}

/// Decides after seed round `look` of a sequential evaluation. `summary` must have been
/// computed with `plan.options_at(look, ..)` so that its intervals spend the error rate as
/// the plan says. The verdict is final when the step is not `Continue`.
pub fn decide_sequential(
    policy: &VerdictPolicy,
    findings: &[Finding],
    summary: &EvalSummary,
    plan: &SequentialPlan,
    look: u32,
) -> Result<SequentialLook, SequentialError> {
    let last = plan.is_last(look)?;
    let verdict = decide(policy, findings, Some(summary));
    let step = if verdict.decision == Decision::Inject {
        Step::InjectSettled
    } else if last
        || cannot_inject(policy, findings, summary)
        || futile(policy, summary, plan, look)?
    {
        Step::SkipSettled
    } else {
        Step::Continue
    };
    Ok(SequentialLook { step, verdict })
}

/// True when more seed rounds cannot lead to inject: an error finding, fewer paired tasks
/// than `min-tasks`, or an interval that already rules out the gain the policy asks for.
fn cannot_inject(policy: &VerdictPolicy, findings: &[Finding], summary: &EvalSummary) -> bool {
    let below = |i: Option<&Interval>, floor| {
        i.is_some_and(|i| sequential::settle(i, floor) == Settlement::Below)
    };
    // More seed rounds add pairs, never tasks: below `min-tasks` the evidence stays
    // inconclusive, so the decision stays skip.
    let too_few = summary
        .delta
        .as_ref()
        .is_some_and(|d| d.tasks < policy.min_tasks);
    findings.iter().any(|f| f.severity == Severity::Error)
        || too_few
        || below(summary.delta.as_ref(), policy.gain_floor())
        || below(summary.delta_content.as_ref(), 0.0)
}

/// The plan's futility rule applied to Δ and the policy's gain floor.
fn futile(
    policy: &VerdictPolicy,
    summary: &EvalSummary,
    plan: &SequentialPlan,
    look: u32,
) -> Result<bool, SequentialError> {
    match summary.delta.as_ref() {
        Some(delta) => plan.futile(look, delta, policy.gain_floor()),
        None => Ok(false),
    }
}

/// The evidence, the MDE behind it (or why the design cannot estimate one) and the sentence
/// that explains it.
struct Weighed {
    evidence: Evidence,
    mde: Result<f64, String>,
    reason: String,
}

/// `on-retry` when the first-attempt gain's lower bound is at or below zero while the
/// last attempt's is above zero; `always` when the first attempt's is above zero; either only
/// when ΔContent holds. `None` with one attempt per cell or otherwise.
fn route(policy: &VerdictPolicy, summary: &EvalSummary) -> Option<Route> {
    let first = summary.delta_pass1.as_ref()?;
    let last = summary.delta.as_ref()?;
    if !content_check(policy, summary).passed {
        return None;
    }
    if first.lo > 0.0 {
        Some(Route::Always)
    } else if last.lo > 0.0 {
        Some(Route::OnRetry)
    } else {
        None
    }
}

/// The A/A difference, its flips, and whether Δ stands out of that noise.
fn noise_floor(summary: &EvalSummary) -> Vec<String> {
    let Some(aa) = summary.aa.as_ref() else {
        return Vec::new();
    };
    let d = &aa.difference;
    let mut lines = vec![format!(
        "A/A: two runs without the skill differ by {} pts {}; the outcome flips on {} of {} {} \
         ({:.0}%)",
        signed(d.point * 100.0),
        bracket(d),
        aa.flips,
        d.tasks,
        plural(d.tasks, "task", "tasks"),
        aa.flip_share * 100.0
    )];
    let floor = d.lo.abs().max(d.hi.abs());
    if let Some(delta) = summary.delta.as_ref().filter(|x| x.point.abs() <= floor) {
        lines.push(format!(
            "Δ {} pts is within the A/A noise floor of ±{} pts: two identical conditions \
             differ as much",
            signed(delta.point * 100.0),
            format_args!("{:.1}", floor * 100.0)
        ));
    }
    lines
}

/// The per-attempt figures, when there were retries.
fn route_reason(route: Option<Route>, summary: &EvalSummary) -> Option<String> {
    let first = summary.delta_pass1.as_ref()?;
    let last = summary.delta.as_ref()?;
    let figures = format!(
        "Δ at Pass@1 {} pts {}, at Pass@{} {} pts {}",
        signed(first.point * 100.0),
        bracket(first),
        summary.attempts,
        signed(last.point * 100.0),
        bracket(last)
    );
    Some(match route {
        Some(Route::OnRetry) => format!(
            "route on-retry: the gain appears only after feedback ({figures}); confirm it with \
             `--placement inject-on-retry`"
        ),
        Some(Route::Always) => {
            format!("route always: the skill helps from the first attempt ({figures})")
        }
        None => format!("per attempt: {figures}"),
    })
}

/// The sentence that leads the reasons when the agent opened the skill in under half of
/// C1's attempts (where that is known).
fn rarely_read(summary: &EvalSummary) -> Option<String> {
    let c1 = summary.conditions.get(&Condition::C1)?;
    let rate = c1.skill_read_rate?;
    (rate < 0.5).then(|| {
        format!(
            "the agent opened the skill in {} of {} {}: its description does not trigger it, \
             so the figures below measure the description rather than the skill's content \
             and the evidence is at most inconclusive",
            c1.skill_reads,
            c1.skill_read_known,
            plural(c1.skill_read_known, "run", "runs")
        )
    })
}

/// Weighs Δ's interval against zero and the worthwhile gain; see `docs/statistics.md`.
fn weigh(policy: &VerdictPolicy, summary: &EvalSummary) -> Weighed {
    let Some(delta) = summary.delta.as_ref() else {
        return Weighed {
            evidence: Evidence::Inconclusive,
            mde: Err("no gain was measured, so there is no spread to estimate it from".to_owned()),
            reason: "evidence inconclusive: no gain was measured".to_owned(),
        };
    };
    let worthwhile = policy.worthwhile_gain_points / 100.0;
    let worth_text = format!("{} pts", fixed(policy.worthwhile_gain_points));
    if delta.tasks < policy.min_tasks {
        let tasks = format!("{} {}", delta.tasks, plural(delta.tasks, "task", "tasks"));
        return Weighed {
            evidence: Evidence::Inconclusive,
            mde: Err(format!(
                "Δ rests on {tasks}, fewer than `min-tasks` ({}): too few to estimate the \
                 spread",
                policy.min_tasks
            )),
            reason: format!(
                "evidence inconclusive: Δ rests on {tasks}, fewer than the {} a task \
                 bootstrap needs to cover well (`min-tasks`), whatever its interval says; run \
                 at least {}",
                policy.min_tasks, policy.min_tasks,
            ),
        };
    }
    let mde = if delta.hi > delta.lo {
        Ok(power::mde(delta, summary.confidence))
    } else {
        Err(format!(
            "every paired task differs by the same {} pts, so the observed spread is zero and \
             the spread a repeat would show cannot be estimated",
            signed(delta.point * 100.0)
        ))
    };
    let evidence = interval_evidence(delta, worthwhile);
    let detects = match &mde {
        Ok(m) => format!(
            "this evaluation detects gains of {} pts or more with 80% power",
            fixed(m * 100.0)
        ),
        Err(_) => "the MDE cannot be estimated: every task differs by the same amount".to_owned(),
    };
    let reason = match evidence {
        Evidence::Benefit => format!("evidence benefit: Δ's interval lies above zero; {detects}"),
        Evidence::Harm => "evidence harm: Δ's interval lies below zero".to_owned(),
        Evidence::NoBenefit => format!(
            "evidence no benefit: Δ's upper bound {} pts rules out the worthwhile gain of \
             {worth_text}",
            signed(delta.hi * 100.0)
        ),
        Evidence::Inconclusive => {
            let more = match mde.as_ref().ok().and_then(|&m| {
                power::tasks_for(m, delta.tasks, worthwhile).filter(|_| m >= worthwhile)
            }) {
                Some(n) => format!(
                    "; about {n} tasks at {} {} would bring it under {worth_text}",
                    summary.seeds,
                    plural(summary.seeds, "seed", "seeds")
                ),
                None => "; more tasks would narrow the interval".to_owned(),
            };
            format!(
                "evidence inconclusive: Δ's interval {} neither excludes zero nor rules out \
                 the worthwhile gain of {worth_text}; {detects}{more}",
                bracket(delta)
            )
        }
    };
    Weighed {
        evidence,
        mde,
        reason,
    }
}

/// The evidence an interval gives on its own, before the task count is considered.
fn interval_evidence(delta: &Interval, worthwhile: f64) -> Evidence {
    if delta.lo > 0.0 {
        Evidence::Benefit
    } else if delta.hi < 0.0 {
        Evidence::Harm
    } else if delta.hi < worthwhile {
        Evidence::NoBenefit
    } else {
        Evidence::Inconclusive
    }
}

/// A non-negative value with one decimal.
fn fixed(value: f64) -> String {
    format!("{value:.1}")
}

/// The static verdict's reason when nothing blocks the skill but nothing was measured either.
const NOT_EVALUATED: &str = "no evaluation was run, so whether the skill helps on this project \
    is unmeasured; run `skillgate eval` with a set of tasks to measure it";

/// One condition of the policy and the sentence that explains how it came out.
struct Check {
    passed: bool,
    reason: String,
}

/// Applies the policy's conditions to the evaluation, in the order a reader checks them.
fn assess(policy: &VerdictPolicy, summary: &EvalSummary) -> Vec<Check> {
    let mut checks = vec![gain_check(summary)];
    if let (Some(points), Some(delta)) = (policy.min_gain_points, summary.delta.as_ref()) {
        checks.push(min_gain_check(points, delta));
    }
    checks.push(content_check(policy, summary));
    if let Some(limit) = policy.max_token_overhead {
        checks.push(overhead_check(limit, summary));
    }
    checks
}

fn gain_check(summary: &EvalSummary) -> Check {
    let Some(delta) = summary.delta.as_ref() else {
        return Check {
            passed: false,
            reason: "no task has a seed with usable cells both with and without the skill, \
                     so no gain was measured"
                .to_owned(),
        };
    };
    let figure = format!(
        "{} pts {}{} {}",
        signed(delta.point * 100.0),
        bracket(delta),
        level(summary),
        sample(delta, summary)
    );
    let (passed, reason) = if delta.lo > 0.0 {
        (true, format!("gain {figure}"))
    } else if delta.hi < 0.0 {
        (false, format!("the skill lowers the pass rate: {figure}"))
    } else {
        (
            false,
            format!("no clear gain: {figure}; the interval includes zero"),
        )
    };
    Check { passed, reason }
}

fn min_gain_check(points: f64, delta: &Interval) -> Check {
    let gain = delta.point * 100.0;
    let passed = gain >= points;
    let relation = if passed { "reaches" } else { "is below" };
    Check {
        passed,
        reason: format!(
            "gain {} pts {relation} the required {} pts",
            signed(gain),
            signed(points)
        ),
    }
}

fn content_check(policy: &VerdictPolicy, summary: &EvalSummary) -> Check {
    let Some(content) = summary.delta_content.as_ref() else {
        return Check {
            passed: false,
            reason: "the skill was not compared with an equally long irrelevant text (no usable \
                     C2 cells), so length cannot be ruled out as the cause of any gain"
                .to_owned(),
        };
    };
    let bound = if policy.strict_content {
        content.lo
    } else {
        content.point
    };
    let content_figure = format!(
        "ΔContent {} {}{}",
        signed(content.point * 100.0),
        bracket(content),
        level(summary)
    );
    let length = summary
        .delta_length
        .as_ref()
        .map(|l| format!("ΔLength {}", signed(l.point * 100.0)));
    if bound > 0.0 {
        let caveat = if content.lo > 0.0 {
            ""
        } else {
            ", an interval that includes zero"
        };
        let length = length.map(|l| format!("; {l}")).unwrap_or_default();
        return Check {
            passed: true,
            reason: format!(
                "the skill's content beats an equally long irrelevant text: \
                 {content_figure}{caveat}{length}"
            ),
        };
    }
    let gain_from_length = summary.delta_length.as_ref().is_some_and(|l| l.point > 0.0);
    let reason = match length {
        Some(length) if gain_from_length => {
            format!("an equally long irrelevant text explains the gain: {length}, {content_figure}")
        }
        Some(length) => format!(
            "the skill's content does no better than an equally long irrelevant text: \
             {content_figure}, {length}"
        ),
        None => format!(
            "the skill's content does no better than an equally long irrelevant text: \
             {content_figure}"
        ),
    };
    Check {
        passed: false,
        reason,
    }
}

fn overhead_check(limit: f64, summary: &EvalSummary) -> Check {
    let limit_text = format!("{}%", signed_whole(limit * 100.0));
    let Some(overhead) = summary.token_overhead else {
        let why = summary
            .undefined
            .get("token_overhead")
            .map_or("not measured", String::as_str);
        return Check {
            passed: false,
            reason: format!(
                "token overhead could not be measured ({why}), so the limit of {limit_text} \
                 cannot be checked"
            ),
        };
    };
    let passed = overhead <= limit;
    let relation = if passed { "within" } else { "exceeding" };
    Check {
        passed,
        reason: format!(
            "tokens {}% over no skill, {relation} the limit of {limit_text}",
            signed_whole(overhead * 100.0)
        ),
    }
}

/// Figures that do not decide but let a reader check the decision.
fn context(summary: &EvalSummary) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(p) = summary.mcnemar_p {
        let d = summary.discordant;
        lines.push(format!(
            "exact McNemar p = {} on {} discordant runs ({} favour the skill, {} favour no skill)",
            p_value(p),
            d.c1_only + d.c0_only,
            d.c1_only,
            d.c0_only
        ));
        lines.push(format!(
            "per task: {} {}, {} {}, {} {}",
            summary.win,
            plural(summary.win, "win", "wins"),
            summary.tie,
            plural(summary.tie, "tie", "ties"),
            summary.loss,
            plural(summary.loss, "loss", "losses")
        ));
    }
    lines.extend(token_context(summary));
    lines.extend(exclusions(summary));
    lines
}

fn token_context(summary: &EvalSummary) -> Vec<String> {
    let mut lines = Vec::new();
    let mean = |c| summary.conditions.get(&c).and_then(|s| s.mean_tokens);
    if let (Some(overhead), Some(t0), Some(t1)) = (
        summary.token_overhead,
        mean(Condition::C0),
        mean(Condition::C1),
    ) {
        lines.push(format!(
            "tokens {}% with the skill: {} per run against {} without",
            signed_whole(overhead * 100.0),
            grouped(t1.round() as u64),
            grouped(t0.round() as u64)
        ));
    }
    match (
        summary.cost_efficiency,
        summary.undefined.get("cost_efficiency"),
    ) {
        (Some(e), _) => lines.push(format!(
            "cost efficiency {} pts of pass rate per 1% more tokens",
            signed_fixed(e, 2)
        )),
        (None, Some(why)) if summary.delta.is_some() => {
            lines.push(format!("cost efficiency undefined: {why}"));
        }
        _ => {}
    }
    lines
}

fn exclusions(summary: &EvalSummary) -> Vec<String> {
    let mut lines = Vec::new();
    let errors: Vec<String> = summary
        .conditions
        .iter()
        .filter(|(_, s)| s.errors > 0)
        .map(|(c, s)| format!("{c:?}: {}", s.errors))
        .collect();
    if !errors.is_empty() {
        let total: u32 = summary.conditions.values().map(|s| s.errors).sum();
        lines.push(format!(
            "{total} error {} excluded ({})",
            plural(total, "cell", "cells"),
            errors.join(", ")
        ));
    }
    let missing = &summary.tasks_without_pair;
    if !missing.is_empty() {
        let n = missing.len() as u32;
        lines.push(format!(
            "{n} {} no usable pair with and without the skill and {} left out: {}",
            plural(n, "task had", "tasks had"),
            plural(n, "is", "are"),
            named_list(missing)
        ));
    }
    lines
}

/// Most task ids a reason names before summarising the rest, so that a journal with many
/// broken tasks still gives a readable reason (and a check-run summary within its size cap).
const NAMED_TASKS: usize = 10;

/// `a, b, c`, or the first few and how many more.
fn named_list(items: &[String]) -> String {
    let shown = items[..items.len().min(NAMED_TASKS)].join(", ");
    match items.len().checked_sub(NAMED_TASKS) {
        Some(rest) if rest > 0 => format!("{shown} and {rest} more"),
        _ => shown,
    }
}

/// `[lo, hi]` in signed points with one decimal.
fn bracket(interval: &Interval) -> String {
    format!(
        "[{}, {}]",
        signed(interval.lo * 100.0),
        signed(interval.hi * 100.0)
    )
}

/// The interval's level, named only when it is not the usual 95%.
fn level(summary: &EvalSummary) -> String {
    let percent = summary.confidence * 100.0;
    if (percent - 95.0).abs() < 1e-9 {
        String::new()
    } else {
        format!(" ({} interval)", percent_label(percent))
    }
}

/// "on 12 tasks × 3 seeds", or the pair count when some pairs are missing.
fn sample(delta: &Interval, summary: &EvalSummary) -> String {
    let tasks = plural(delta.tasks, "task", "tasks");
    if delta.pairs == delta.tasks * summary.seeds {
        format!(
            "on {} {tasks} × {} {}",
            delta.tasks,
            summary.seeds,
            plural(summary.seeds, "seed", "seeds")
        )
    } else {
        format!("on {} {tasks} ({} paired runs)", delta.tasks, delta.pairs)
    }
}

fn plural(n: u32, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

/// A value with one decimal and an explicit sign: `+8.3`, `−5.0` (true minus sign), `0.0`.
pub fn signed(value: f64) -> String {
    signed_fixed(value, 1)
}

/// A value rounded to a whole number with an explicit sign: `+42`, `−12`, `0`.
pub fn signed_whole(value: f64) -> String {
    signed_fixed(value, 0)
}

/// A value with `decimals` decimals and an explicit sign; a value that rounds to zero is
/// shown unsigned so that no `−0.0` appears.
pub fn signed_fixed(value: f64, decimals: usize) -> String {
    let text = format!("{:.*}", decimals, value.abs());
    let zero = text.chars().all(|c| c == '0' || c == '.');
    match () {
        _ if zero || value.is_nan() => text,
        _ if value > 0.0 => format!("+{text}"),
        _ => format!("\u{2212}{text}"),
    }
}

/// A p-value with three significant decimals, or `< 0.001`.
pub fn p_value(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".to_owned()
    } else {
        format!("{p:.3}")
    }
}

/// `95%`, `99%`, `99.5%`: a confidence level without trailing zeros.
pub fn percent_label(percent: f64) -> String {
    let text = format!("{percent:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}%")
}

/// An integer with thousands separators: `12,345`.
pub fn grouped(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

//! Sequential looks: when to stop and what the verdict is then.

use skillgate::finding::Severity;
use skillgate::stats::sequential::{SequentialError, SequentialPlan, Step};
use skillgate::stats::{StatsOptions, summarize};
use skillgate::verdict::{Decision, Evidence, VerdictPolicy, decide_sequential};

use crate::synthetic::{four_tasks, from_counts, open_twelve};
use crate::verdict::finding;

fn look(
    cells: &[skillgate::eval::journal::CellRecord],
    findings: &[skillgate::finding::Finding],
    plan: &SequentialPlan,
    k: u32,
) -> (Step, Decision, f64) {
    let options = plan.options_at(k, &StatsOptions::default()).unwrap();
    let summary = summarize(cells, &options).unwrap();
    let look = decide_sequential(&VerdictPolicy::default(), findings, &summary, plan, k).unwrap();
    (look.step, look.verdict.decision, summary.confidence)
}

#[test]
fn a_clear_gain_settles_inject_at_the_first_look() {
    // Ten tasks, one seed: the skill always passes, no skill and the control never do.
    let cells = from_counts(1, &[(0, 1, 0); 10]);
    let plan = SequentialPlan::new(3, 0.95).unwrap();
    let (step, decision, confidence) = look(&cells, &[], &plan, 1);
    assert_eq!((step, decision), (Step::InjectSettled, Decision::Inject));
    // An interim look of three: 1 - 0.05 / 10 / 2 = 0.9975.
    assert!((confidence - 0.9975).abs() < 1e-12);
}

#[test]
fn a_clear_loss_settles_skip_before_the_last_look() {
    let cells = from_counts(1, &[(1, 0, 1); 10]);
    let plan = SequentialPlan::new(3, 0.95).unwrap();
    assert_eq!(
        look(&cells, &[], &plan, 1).0,
        Step::SkipSettled,
        "Δ = -1 [-1, -1] cannot become a gain"
    );
}

#[test]
fn too_few_tasks_settle_skip_at_the_first_look() {
    // Four tasks where the skill always wins: more seed rounds add pairs, never tasks, so
    // the evidence stays inconclusive and the one rule can never inject.
    let cells = from_counts(1, &[(0, 1, 0); 4]);
    let plan = SequentialPlan::new(3, 0.95).unwrap();
    let options = plan.options_at(1, &StatsOptions::default()).unwrap();
    let summary = summarize(&cells, &options).unwrap();
    let look = decide_sequential(&VerdictPolicy::default(), &[], &summary, &plan, 1).unwrap();
    assert_eq!(look.step, Step::SkipSettled);
    assert_eq!(look.verdict.decision, Decision::Skip);
    assert_eq!(look.verdict.evidence, Some(Evidence::Inconclusive));
    assert!(look.verdict.reasons[0].starts_with("evidence inconclusive: Δ rests on 4 tasks"));
    assert_eq!(look.verdict.mde_points, Some(None));
}

#[test]
fn an_open_interval_continues_until_the_last_look() {
    let plan = SequentialPlan::new(3, 0.95).unwrap();
    let cells = open_twelve();
    assert_eq!(look(&cells, &[], &plan, 1).0, Step::Continue);
    assert_eq!(look(&cells, &[], &plan, 2).0, Step::Continue);
    assert_eq!(
        look(&cells, &[], &plan, 3).0,
        Step::SkipSettled,
        "no rounds remain"
    );
}

#[test]
fn a_flat_estimate_stops_for_futility_from_the_second_look() {
    // Sixteen tasks, two seeds: the skill wins eight tasks and loses eight, Δ = 0 exactly.
    let rows: Vec<(u32, u32, u32)> = (0..16)
        .map(|i| if i < 8 { (0, 2, 0) } else { (2, 0, 2) })
        .collect();
    let cells = from_counts(2, &rows);
    let plan = SequentialPlan::new(4, 0.95).unwrap();
    assert_eq!(look(&cells, &[], &plan, 2).0, Step::SkipSettled);
}

#[test]
fn an_error_finding_settles_skip_at_once() {
    let plan = SequentialPlan::new(3, 0.95).unwrap();
    let findings = [finding("SG401", Severity::Error, "version mismatch")];
    let cells = four_tasks();
    assert_eq!(look(&cells, &findings, &plan, 1).0, Step::SkipSettled);
}

#[test]
fn a_look_outside_the_plan_is_an_error() {
    let plan = SequentialPlan::new(2, 0.95).unwrap();
    let summary = summarize(&four_tasks(), &StatsOptions::default()).unwrap();
    let result = decide_sequential(&VerdictPolicy::default(), &[], &summary, &plan, 3);
    assert_eq!(
        result.err(),
        Some(SequentialError::LookOutOfRange {
            look: 3,
            max_looks: 2
        })
    );
}

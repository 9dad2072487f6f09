//! What the evaluation shows beside the decision: benefit, harm, no benefit or inconclusive,
//! with the minimum detectable effect, on journals built to show each.

use skillgate::eval::journal::CellRecord;
use skillgate::stats::{StatsOptions, summarize};
use skillgate::verdict::{Decision, Evidence, Verdict, VerdictPolicy, decide};

use crate::synthetic::{from_counts, gain_at_attempt_two, twelve_tasks};

fn verdict(cells: &[CellRecord]) -> Verdict {
    let summary = summarize(cells, &StatsOptions::default()).unwrap();
    decide(&VerdictPolicy::default(), &[], Some(&summary))
}

fn evidence_reason(v: &Verdict) -> &str {
    v.reasons
        .iter()
        .find(|r| r.starts_with("evidence "))
        .expect("an evaluated verdict explains its evidence")
}

/// Twenty tasks × 3 seeds where the skill costs passes on most tasks.
fn harmful() -> Vec<CellRecord> {
    let rows: Vec<(u32, u32, u32)> = (0..20_u32)
        .map(|i| {
            let c0 = 2 + i % 2;
            let c1 = if i % 4 == 0 { c0 } else { c0 - 2 };
            (c0, c1, c0)
        })
        .collect();
    from_counts(3, &rows)
}

/// Forty tasks × 3 seeds with no effect: three tasks gain a pass, three lose one.
fn no_effect_forty() -> Vec<CellRecord> {
    let rows: Vec<(u32, u32, u32)> = (0..40_u32)
        .map(|i| {
            let c0 = 1 + i % 2;
            let c1 = match i {
                3 | 17 | 29 => c0 + 1,
                8 | 22 | 35 => c0 - 1,
                _ => c0,
            };
            (c0, c1, c0)
        })
        .collect();
    from_counts(3, &rows)
}

#[test]
fn a_harmful_skill_is_harm() {
    let v = verdict(&harmful());
    assert_eq!(v.decision, Decision::Skip);
    assert_eq!(v.evidence, Some(Evidence::Harm));
    assert_eq!(
        evidence_reason(&v),
        "evidence harm: Δ's interval lies below zero"
    );
    assert!(v.mde_points.is_some_and(|m| m > 0.0));
}

#[test]
fn no_effect_on_forty_tasks_is_no_benefit() {
    let v = verdict(&no_effect_forty());
    let delta = v.eval.as_ref().unwrap().delta.unwrap();
    assert!(
        delta.lo < 0.0 && delta.hi > 0.0 && delta.hi < 0.05,
        "{delta:?}"
    );
    assert_eq!(v.decision, Decision::Skip);
    assert_eq!(v.evidence, Some(Evidence::NoBenefit));
    assert!(
        evidence_reason(&v).contains("rules out the worthwhile gain of 5.0 pts"),
        "{}",
        evidence_reason(&v)
    );
    // A stricter idea of a worthwhile gain makes the same interval inconclusive.
    let summary = v.eval.unwrap();
    let strict = VerdictPolicy {
        worthwhile_gain_points: 2.0,
        ..VerdictPolicy::default()
    };
    let v = decide(&strict, &[], Some(&summary));
    assert_eq!(v.evidence, Some(Evidence::Inconclusive));
    let reason = evidence_reason(&v);
    assert!(
        reason.contains("tasks at 3 seeds would bring it under 2.0 pts"),
        "{reason}"
    );
}

#[test]
fn all_wins_on_three_tasks_is_inconclusive() {
    let v = verdict(&from_counts(3, &[(0, 3, 0), (0, 3, 0), (0, 3, 0)]));
    // The inject rule is unchanged: the interval [+100, +100] decides inject ...
    assert_eq!(v.decision, Decision::Inject);
    // ... but three tasks are too few for the interval to mean much.
    assert_eq!(v.evidence, Some(Evidence::Inconclusive));
    assert_eq!(
        evidence_reason(&v),
        "evidence inconclusive: Δ rests on 3 tasks, fewer than the 10 a task bootstrap needs \
         to cover well (`min-tasks`), whatever its interval says; run at least 10"
    );
}

#[test]
fn a_clear_gain_on_twelve_tasks_is_benefit_with_its_mde() {
    let v = verdict(&twelve_tasks());
    assert_eq!(v.decision, Decision::Inject);
    assert_eq!(v.evidence, Some(Evidence::Benefit));
    let delta = v.eval.as_ref().unwrap().delta.unwrap();
    // The MDE is the interval's half-width scaled for 80% power (2.80 / 1.96).
    let expected = (delta.hi - delta.lo) / 2.0 * (1.0 + 0.841_621 / 1.959_964) * 100.0;
    let mde = v.mde_points.unwrap();
    assert!((mde - expected).abs() < 1e-3, "{mde} against {expected}");
    assert!(evidence_reason(&v).starts_with("evidence benefit: Δ's interval lies above zero"));
}

#[test]
fn a_wide_interval_says_how_many_tasks_would_settle_it() {
    // Twelve tasks, a small noisy gain: the interval straddles zero and +5 points.
    let rows: Vec<(u32, u32, u32)> = (0..12_u32)
        .map(|i| match i % 4 {
            0 => (1, 3, 1),
            1 => (2, 0, 2),
            2 => (1, 2, 1),
            _ => (2, 2, 2),
        })
        .collect();
    let v = verdict(&from_counts(3, &rows));
    assert_eq!(v.evidence, Some(Evidence::Inconclusive));
    let mde = v.mde_points.unwrap();
    let tasks = (12.0 * (mde / 5.0_f64).powi(2)).floor() as u32 + 1;
    let reason = evidence_reason(&v);
    assert!(
        reason.ends_with(&format!(
            "; about {tasks} tasks at 3 seeds would bring it under 5.0 pts"
        )),
        "{reason}"
    );
}

#[test]
fn a_static_verdict_claims_no_evidence() {
    let v = decide(&VerdictPolicy::default(), &[], None);
    assert_eq!((v.evidence, v.mde_points), (None, None));
    let json = serde_json::to_value(&v).unwrap();
    assert!(json.get("evidence").is_none());
}

#[test]
fn the_evidence_reads_back_from_json() {
    let v = verdict(&harmful());
    let back: Verdict = serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap();
    assert_eq!(back, v);
    let json = serde_json::to_value(&v).unwrap();
    assert_eq!(json["evidence"], "harm");
}

#[test]
fn a_skill_read_in_two_of_twenty_runs_is_said_first_and_inconclusive() {
    use skillgate::eval::condition::Condition;
    // Twenty tasks, one seed: the skill wins 16, ties 4 — a clear benefit on its own.
    let rows: Vec<(u32, u32, u32)> = (0..20).map(|i| (0, u32::from(i % 5 != 0), 0)).collect();
    let mut cells = from_counts(1, &rows);
    assert_eq!(verdict(&cells).evidence, Some(Evidence::Benefit));
    let c1 = cells.iter_mut().filter(|c| c.condition == Condition::C1);
    for (index, cell) in c1.enumerate() {
        cell.attempts[0].skill_read = Some(index < 2);
    }
    let v = verdict(&cells);
    let stats = &v.eval.as_ref().unwrap().conditions[&Condition::C1];
    assert_eq!(stats.skill_read_rate, Some(0.1));
    assert_eq!(
        v.eval.as_ref().unwrap().conditions[&Condition::C0].skill_read_rate,
        None,
        "unknown, not zero"
    );
    assert_eq!(
        v.reasons[0],
        "the agent opened the skill in 2 of 20 runs: its description does not trigger it, so \
         the figures below measure the description rather than the skill's content and the \
         evidence is at most inconclusive"
    );
    assert_eq!(v.evidence, Some(Evidence::Inconclusive));
    // Read in half of the runs or more, nothing is said and the interval decides.
    for cell in cells.iter_mut().filter(|c| c.condition == Condition::C1) {
        cell.attempts[0].skill_read = Some(cell.task.as_str() < "task-11");
    }
    let v = verdict(&cells);
    assert_eq!(v.evidence, Some(Evidence::Benefit));
    assert!(!v.reasons[0].starts_with("the agent opened"));
}

#[test]
fn a_gain_only_at_attempt_two_routes_on_retry() {
    use skillgate::verdict::Route;
    let v = verdict(&gain_at_attempt_two());
    let summary = v.eval.as_ref().unwrap();
    assert_eq!(summary.attempts, 2);
    let first = summary.delta_pass1.unwrap();
    assert_eq!((first.point, first.lo, first.hi), (0.0, 0.0, 0.0));
    assert!(summary.delta.unwrap().lo > 0.0);
    assert_eq!(v.route, Some(Route::OnRetry));
    let reason = v.reasons.iter().find(|r| r.starts_with("route ")).unwrap();
    assert!(
        reason.starts_with(
            "route on-retry: the gain appears only after feedback (Δ at Pass@1 0.0 pts [0.0, 0.0], at Pass@2 +80.0 pts"
        ),
        "{reason}"
    );
    assert!(reason.ends_with("confirm it with `--placement inject-on-retry`"));
    let json = serde_json::to_value(&v).unwrap();
    assert_eq!(json["route"], "on-retry");
    // One attempt per cell: no per-attempt figure and no route.
    let once = verdict(&twelve_tasks());
    assert_eq!((once.route, once.eval.unwrap().delta_pass1), (None, None));
}

#[test]
fn a_delta_inside_the_aa_noise_floor_is_called_so() {
    use crate::synthetic::passes;
    use skillgate::eval::condition::Condition;
    // Twelve tasks: the skill gains a pass on two tasks; C0b, no skill again, differs from
    // C0 on four tasks by a pass either way.
    let rows: Vec<(u32, u32, u32)> = (0..12).map(|i| (1, if i < 2 { 2 } else { 1 }, 1)).collect();
    let mut cells = from_counts(3, &rows);
    for i in 0..12_u32 {
        let c0b = match i {
            0 | 5 => 2,
            3 | 8 => 0,
            _ => 1,
        };
        cells.extend(passes(
            &format!("task-{:02}", i + 1),
            Condition::C0b,
            3,
            c0b,
        ));
    }
    let v = verdict(&cells);
    let aa = v.eval.as_ref().unwrap().aa.unwrap();
    assert_eq!((aa.flips, aa.difference.tasks), (4, 12));
    assert!((aa.flip_share - 1.0 / 3.0).abs() < 1e-12);
    let floor = aa.difference.lo.abs().max(aa.difference.hi.abs()) * 100.0;
    let aa_reason = v
        .reasons
        .iter()
        .position(|r| r.starts_with("A/A: "))
        .unwrap();
    assert!(v.reasons[aa_reason].ends_with("the outcome flips on 4 of 12 tasks (33%)"));
    assert_eq!(
        v.reasons[aa_reason + 1],
        format!(
            "Δ +5.6 pts is within the A/A noise floor of ±{floor:.1} pts: two identical \
             conditions differ as much"
        )
    );
    // Without C0b there is no A/A block and nothing is said about it.
    let plain = verdict(&from_counts(3, &rows));
    assert!(plain.eval.unwrap().aa.is_none());
    assert!(!plain.reasons.iter().any(|r| r.contains("A/A")));
}

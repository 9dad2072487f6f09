//! What the evaluation shows beside the decision: benefit, harm, no benefit or inconclusive,
//! with the minimum detectable effect, on journals built to show each.

use skillgate::eval::journal::CellRecord;
use skillgate::stats::{StatsOptions, summarize};
use skillgate::verdict::{Decision, Evidence, Verdict, VerdictPolicy, decide};

use crate::synthetic::{from_counts, twelve_tasks};

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

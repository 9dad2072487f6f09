//! The decision and its reasons, for static and evaluated verdicts.

use std::path::PathBuf;

use skillgate::finding::{Finding, Location, Severity};
use skillgate::stats::{EvalSummary, StatsOptions, summarize};
use skillgate::verdict::{Basis, Decision, PolicyError, VerdictPolicy, decide, signed};

use crate::synthetic::{four_tasks, from_counts, twelve_tasks};

pub fn finding(code: &'static str, severity: Severity, message: &str) -> Finding {
    Finding {
        code,
        name: "skill-version-mismatch",
        severity,
        message: message.into(),
        help: None,
        location: Location {
            path: PathBuf::from("skills/django/SKILL.md"),
            line: 3,
            column: 1,
            end_line: 3,
            end_column: 20,
            span: 10..29,
        },
        related: Vec::new(),
        fix: None,
    }
}

fn summary(cells: &[skillgate::eval::journal::CellRecord]) -> EvalSummary {
    summarize(cells, &StatsOptions::default()).unwrap()
}

/// Twelve tasks where an equally long irrelevant text does as well as the skill:
/// C2 has the skill's pass counts except on task 9, where it passes once more.
fn length_explains() -> EvalSummary {
    let c0 = [1, 2, 2, 0, 1, 0, 3, 1, 1, 2, 1, 0];
    let c1 = [3, 3, 2, 3, 1, 2, 3, 3, 0, 2, 3, 1];
    let c2 = [3, 3, 2, 3, 1, 2, 3, 3, 1, 2, 3, 1];
    let rows: Vec<(u32, u32, u32)> = (0..12).map(|i| (c0[i], c1[i], c2[i])).collect();
    summary(&from_counts(3, &rows))
}

#[test]
fn static_verdict_with_an_error_finding_skips_with_that_finding() {
    let findings = [
        finding(
            "SG401",
            Severity::Error,
            "skill targets Django 3.2, project resolves 5.0.6",
        ),
        finding("SG201", Severity::Warning, "body is long"),
    ];
    let v = decide(&VerdictPolicy::default(), &findings, None);
    assert_eq!((v.decision, v.basis), (Decision::Skip, Basis::Static));
    assert_eq!(
        v.reasons,
        ["SG401: skill targets Django 3.2, project resolves 5.0.6"]
    );
    assert_eq!(v.eval, None);
}

#[test]
fn static_verdict_without_errors_says_nothing_was_measured() {
    let findings = [finding("SG201", Severity::Warning, "body is long")];
    let v = decide(&VerdictPolicy::default(), &findings, None);
    assert_eq!((v.decision, v.basis), (Decision::Skip, Basis::Static));
    assert_eq!(v.reasons.len(), 1);
    assert!(v.reasons[0].starts_with("no evaluation was run"));
    assert!(v.reasons[0].contains("skillgate eval"));
    let json = serde_json::to_value(&v).unwrap();
    assert!(
        json.get("eval").is_none(),
        "no eval object without an evaluation"
    );
}

#[test]
fn a_clear_content_gain_injects_with_figures_in_the_reasons() {
    let s = summary(&twelve_tasks());
    let v = decide(&VerdictPolicy::default(), &[], Some(&s));
    assert_eq!((v.decision, v.basis), (Decision::Inject, Basis::Eval));
    // The evidence that decided comes first, then the figures.
    assert!(v.reasons[0].starts_with("evidence benefit: Δ's interval lies above zero"));
    // Δ = 12/36 = +33.3 pts, interval [0.111, 0.556] from the bootstrap reference.
    assert_eq!(
        v.reasons[1],
        "gain +33.3 pts [+11.1, +55.6] on 12 tasks × 3 seeds"
    );
    assert!(v.reasons[2].starts_with(
        "the skill's content beats an equally long irrelevant text: ΔContent +36.1 [+22.2, +50.0]"
    ));
    assert!(
        v.reasons
            .iter()
            .any(|r| r == "per task: 7 wins, 4 ties, 1 loss")
    );
    assert!(
        v.reasons
            .iter()
            .any(|r| r.starts_with("exact McNemar p = 0.002 on 14"))
    );
}

#[test]
fn an_error_finding_blocks_inject_even_with_a_gain() {
    let s = summary(&twelve_tasks());
    let findings = [finding(
        "SG601",
        Severity::Error,
        "hidden Unicode in the body",
    )];
    let v = decide(&VerdictPolicy::default(), &findings, Some(&s));
    assert_eq!((v.decision, v.basis), (Decision::Skip, Basis::Eval));
    assert_eq!(v.reasons[0], "SG601: hidden Unicode in the body");
}

#[test]
fn an_interval_including_zero_skips() {
    let s = summary(&four_tasks());
    let v = decide(&VerdictPolicy::default(), &[], Some(&s));
    assert_eq!(v.decision, Decision::Skip);
    // Four tasks: the evidence decides first; Δ = 1/12 = +8.3 pts, interval [-0.25, 0.5].
    assert!(v.reasons[0].starts_with("evidence inconclusive: Δ rests on 4 tasks"));
    assert_eq!(
        v.reasons[1],
        "no clear gain: +8.3 pts [\u{2212}25.0, +50.0] on 4 tasks × 3 seeds; the interval includes zero"
    );
}

#[test]
fn length_explaining_the_gain_skips() {
    let s = length_explains();
    let delta = s.delta.unwrap();
    assert!(delta.lo > 0.0, "the skill does beat no skill");
    let v = decide(&VerdictPolicy::default(), &[], Some(&s));
    assert_eq!(v.decision, Decision::Skip);
    // ΔLength = (27 - 14) / 36 = +36.1 pts; ΔContent = (26 - 27) / 36 = -2.8 pts.
    let content = s.delta_content.unwrap();
    let expected = format!(
        "an equally long irrelevant text explains the gain: ΔLength +36.1, ΔContent \u{2212}2.8 [{}, {}]",
        signed(content.lo * 100.0),
        signed(content.hi * 100.0)
    );
    assert!(v.reasons.contains(&expected), "{:#?}", v.reasons);
}

#[test]
fn strict_content_requires_the_content_interval_above_zero() {
    // ΔContent +1/36 on twelve tasks: positive point, interval across zero.
    let c0 = [1, 2, 2, 0, 1, 0, 3, 1, 1, 2, 1, 0];
    let c1 = [3, 3, 2, 3, 1, 2, 3, 3, 0, 2, 3, 1];
    let c2 = [3, 3, 2, 3, 1, 2, 3, 3, 1, 2, 2, 0];
    let rows: Vec<(u32, u32, u32)> = (0..12).map(|i| (c0[i], c1[i], c2[i])).collect();
    let s = summary(&from_counts(3, &rows));
    let content = s.delta_content.unwrap();
    assert!(content.point > 0.0 && content.lo <= 0.0);
    let lenient = decide(&VerdictPolicy::default(), &[], Some(&s));
    assert_eq!(lenient.decision, Decision::Inject);
    assert!(lenient.reasons[2].contains(", an interval that includes zero; ΔLength"));
    let strict = VerdictPolicy {
        strict_content: true,
        ..VerdictPolicy::default()
    };
    let v = decide(&strict, &[], Some(&s));
    assert_eq!(v.decision, Decision::Skip);
    // Benefit, blocked by the content check: the failed check leads.
    assert!(v.reasons[0].starts_with("an equally long irrelevant text explains the gain"));
}

#[test]
fn optional_limits_can_turn_inject_into_skip() {
    let s = summary(&twelve_tasks());
    let high_bar = VerdictPolicy {
        min_gain_points: Some(40.0),
        ..VerdictPolicy::default()
    };
    let v = decide(&high_bar, &[], Some(&s));
    assert_eq!(v.decision, Decision::Skip);
    assert!(
        v.reasons
            .contains(&"gain +33.3 pts is below the required +40.0 pts".to_owned())
    );

    // The fixture skill costs +40% tokens.
    let lean = VerdictPolicy {
        max_token_overhead: Some(0.25),
        ..VerdictPolicy::default()
    };
    let v = decide(&lean, &[], Some(&s));
    assert_eq!(v.decision, Decision::Skip);
    assert!(
        v.reasons
            .contains(&"tokens +40% over no skill, exceeding the limit of +25%".to_owned())
    );

    let generous = VerdictPolicy {
        min_gain_points: Some(20.0),
        max_token_overhead: Some(0.5),
        strict_content: false,
        ..VerdictPolicy::default()
    };
    assert_eq!(decide(&generous, &[], Some(&s)).decision, Decision::Inject);
}

#[test]
fn a_missing_length_control_is_not_claimed_as_content() {
    let cells: Vec<_> = twelve_tasks()
        .into_iter()
        .filter(|c| c.condition != skillgate::eval::condition::Condition::C2)
        .collect();
    let v = decide(&VerdictPolicy::default(), &[], Some(&summary(&cells)));
    assert_eq!(v.decision, Decision::Skip);
    assert!(v.reasons[0].contains("not compared with an equally long irrelevant text"));
}

#[test]
fn policy_reads_from_the_verdict_table() {
    #[derive(serde::Deserialize)]
    struct File {
        verdict: VerdictPolicy,
    }
    let file: File = toml::from_str(
        "[verdict]\nmin-gain-points = 5.0\nmax-token-overhead = 0.5\nstrict-content = true\n\
         worthwhile-gain-points = 3.0\nmin-tasks = 20\n",
    )
    .unwrap();
    assert_eq!(
        file.verdict,
        VerdictPolicy {
            min_gain_points: Some(5.0),
            max_token_overhead: Some(0.5),
            strict_content: true,
            worthwhile_gain_points: 3.0,
            min_tasks: 20,
            panel: skillgate::verdict::Panel::PerModel,
        }
    );
    let empty: File = toml::from_str("[verdict]\n").unwrap();
    assert_eq!(empty.verdict, VerdictPolicy::default());
    assert_eq!(empty.verdict.worthwhile_gain_points, 5.0);
    assert_eq!(empty.verdict.min_tasks, 10);
    assert!(toml::from_str::<File>("[verdict]\nmin-gain = 5\n").is_err());
}

#[test]
fn negative_limits_are_refused() {
    let bad = VerdictPolicy {
        min_gain_points: Some(-1.0),
        ..VerdictPolicy::default()
    };
    assert_eq!(
        bad.validate(),
        Err(PolicyError::BadLimit {
            field: "min-gain-points",
            value: -1.0
        })
    );
    assert!(VerdictPolicy::default().validate().is_ok());
}

#[test]
fn signed_numbers_use_a_true_minus_and_never_show_negative_zero() {
    assert_eq!(signed(8.333), "+8.3");
    assert_eq!(signed(-5.0), "\u{2212}5.0");
    assert_eq!(signed(-0.04), "0.0");
    assert_eq!(signed(0.0), "0.0");
}

#[test]
fn integers_are_grouped_by_thousands() {
    use skillgate::verdict::grouped;
    assert_eq!(grouped(0), "0");
    assert_eq!(grouped(999), "999");
    assert_eq!(grouped(1_000), "1,000");
    assert_eq!(grouped(12_345_678), "12,345,678");
}

#[test]
fn confidence_labels_drop_trailing_zeros() {
    use skillgate::verdict::percent_label;
    assert_eq!(percent_label(95.0), "95%");
    assert_eq!(percent_label(95.5), "95.5%");
    assert_eq!(percent_label(99.875), "99.875%");
}

#[test]
fn a_long_list_of_unpaired_tasks_is_summarised() {
    use skillgate::eval::condition::Condition;
    use skillgate::eval::journal::Outcome;
    // Twelve tasks with C0 cells only, one task with a pair.
    let mut cells: Vec<_> = (0..12)
        .map(|i| crate::synthetic::cell(&format!("t{i:02}"), Condition::C0, 0, Outcome::Fail))
        .collect();
    cells.push(crate::synthetic::cell(
        "zz",
        Condition::C0,
        0,
        Outcome::Fail,
    ));
    cells.push(crate::synthetic::cell(
        "zz",
        Condition::C1,
        0,
        Outcome::Pass,
    ));
    let v = decide(&VerdictPolicy::default(), &[], Some(&summary(&cells)));
    let expected = "12 tasks had no usable pair with and without the skill and are left out: \
                    t00, t01, t02, t03, t04, t05, t06, t07, t08, t09 and 2 more";
    assert!(v.reasons.iter().any(|r| r == expected), "{:#?}", v.reasons);
}

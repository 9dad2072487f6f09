//! What the evaluation shows beside the decision: benefit, harm, no benefit or inconclusive,
//! with the minimum detectable effect, on journals built to show each.

use skillgate::eval::journal::CellRecord;
use skillgate::stats::{StatsOptions, summarize};
use skillgate::verdict::{Decision, Evidence, Verdict, VerdictPolicy, decide, decision_for};

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
    assert!(v.mde_points.flatten().is_some_and(|m| m > 0.0));
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
fn all_wins_on_three_tasks_skip_as_inconclusive_without_an_mde() {
    let v = verdict(&three_wins());
    // The interval is [+100, +100], but three tasks are too few for it to mean much: the
    // decision follows the evidence, and the first reason names it.
    assert_eq!(v.decision, Decision::Skip);
    assert_eq!(v.evidence, Some(Evidence::Inconclusive));
    assert_eq!(
        v.reasons[0],
        "evidence inconclusive: Δ rests on 3 tasks, fewer than the 10 a task bootstrap needs \
         to cover well (`min-tasks`), whatever its interval says; run at least 10"
    );
    // No MDE: not 0.0 (the spread of three identical wins), but null with the reason.
    assert_eq!(v.mde_points, Some(None));
    assert_eq!(
        v.undefined["mde_points"],
        "Δ rests on 3 tasks, fewer than `min-tasks` (10): too few to estimate the spread"
    );
    let json = serde_json::to_value(&v).unwrap();
    assert!(json["mde_points"].is_null(), "{json}");
    assert!(json["undefined"]["mde_points"].is_string(), "{json}");
    // Read back, the null stays a null.
    let back: Verdict = serde_json::from_value(json).unwrap();
    assert_eq!(back.mde_points, Some(None));
}

#[test]
fn a_lower_min_tasks_lets_the_same_wins_count() {
    // The same three tasks under `min-tasks = 3`: the interval now decides, but three
    // identical wins have no spread, so the MDE is still null.
    let cells = from_counts(3, &[(0, 3, 0), (0, 3, 0), (0, 3, 0)]);
    let summary = summarize(&cells, &StatsOptions::default()).unwrap();
    let policy = VerdictPolicy {
        min_tasks: 3,
        ..VerdictPolicy::default()
    };
    let v = decide(&policy, &[], Some(&summary));
    assert_eq!(v.evidence, Some(Evidence::Benefit));
    assert_eq!(v.decision, Decision::Inject);
    assert_eq!(v.mde_points, Some(None));
    assert!(
        v.undefined["mde_points"].contains("the observed spread is zero"),
        "{:?}",
        v.undefined
    );
    assert_eq!(
        v.reasons[0],
        "evidence benefit: Δ's interval lies above zero; the MDE cannot be estimated: every \
         task differs by the same amount"
    );
}

#[test]
fn forty_tasks_with_a_real_gain_inject_on_benefit() {
    let v = verdict(&forty_gain());
    assert_eq!(v.evidence, Some(Evidence::Benefit));
    assert_eq!(v.decision, Decision::Inject);
    assert!(v.reasons[0].starts_with("evidence benefit: Δ's interval lies above zero"));
    let delta = v.eval.as_ref().unwrap().delta.unwrap();
    assert_eq!(delta.tasks, 40);
    assert!(delta.lo > 0.0, "{delta:?}");
    let mde = v
        .mde_points
        .flatten()
        .expect("forty varied tasks estimate an MDE");
    assert!(mde > 0.0 && mde < 20.0, "{mde}");
    assert!(v.undefined.is_empty());
}

#[test]
fn benefit_blocked_by_a_policy_check_leads_with_that_check() {
    // Twelve tasks with a clear gain but a token limit the skill exceeds.
    let summary = summarize(&twelve_tasks(), &StatsOptions::default()).unwrap();
    let policy = VerdictPolicy {
        max_token_overhead: Some(0.1),
        ..VerdictPolicy::default()
    };
    let v = decide(&policy, &[], Some(&summary));
    assert_eq!(v.evidence, Some(Evidence::Benefit));
    assert_eq!(v.decision, Decision::Skip);
    assert!(v.reasons[0].starts_with("tokens +"), "{:?}", v.reasons);
    assert!(
        v.reasons[0].contains("exceeding the limit of +10%"),
        "{:?}",
        v.reasons
    );
    assert!(
        v.reasons[1].starts_with("evidence benefit"),
        "{:?}",
        v.reasons
    );
}

#[test]
fn the_decision_is_the_one_rule_over_every_evidence_state() {
    for evidence in [
        Evidence::Benefit,
        Evidence::Harm,
        Evidence::NoBenefit,
        Evidence::Inconclusive,
    ] {
        for blocked in [false, true] {
            let expected = if evidence == Evidence::Benefit && !blocked {
                Decision::Inject
            } else {
                Decision::Skip
            };
            assert_eq!(
                decision_for(evidence, blocked),
                expected,
                "{evidence:?} {blocked}"
            );
        }
    }
}

#[test]
fn a_clear_gain_on_twelve_tasks_is_benefit_with_its_mde() {
    let v = verdict(&twelve_tasks());
    assert_eq!(v.decision, Decision::Inject);
    assert_eq!(v.evidence, Some(Evidence::Benefit));
    let delta = v.eval.as_ref().unwrap().delta.unwrap();
    // The MDE is the interval's half-width scaled for 80% power (2.80 / 1.96).
    let expected = (delta.hi - delta.lo) / 2.0 * (1.0 + 0.841_621 / 1.959_964) * 100.0;
    let mde = v.mde_points.flatten().unwrap();
    assert!((mde - expected).abs() < 1e-3, "{mde} against {expected}");
    assert!(evidence_reason(&v).starts_with("evidence benefit: Δ's interval lies above zero"));
}

#[test]
fn a_wide_interval_says_how_many_tasks_would_settle_it() {
    let v = verdict(&crate::synthetic::open_twelve());
    assert_eq!(v.evidence, Some(Evidence::Inconclusive));
    let mde = v.mde_points.flatten().unwrap();
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
    assert!(json.get("mde_points").is_none());
    assert!(json.get("undefined").is_none());
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

/// Three tasks × 3 seeds where the skill wins every pair.
fn three_wins() -> Vec<CellRecord> {
    from_counts(3, &[(0, 3, 0), (0, 3, 0), (0, 3, 0)])
}

/// Forty tasks × 3 seeds with a real gain: the skill adds a pass on three tasks in four, and
/// one task in eight loses one; the length control does as no skill.
fn forty_gain() -> Vec<CellRecord> {
    let rows: Vec<(u32, u32, u32)> = (0..40_u32)
        .map(|i| {
            let c0 = 1 + i % 2;
            let c1 = match i % 8 {
                7 => c0 - 1,
                0 | 4 => c0,
                _ => c0 + 1,
            };
            (c0, c1, c0)
        })
        .collect();
    from_counts(3, &rows)
}

/// The verdict in every format the project writes: the report's (human, markdown, JSON,
/// HTML) and the check's (human, concise, GitHub annotations, SARIF's verdict property).
fn every_format(name: &str, v: &Verdict) {
    use skillgate::render::{Format, Report, Style, Summary, html, render, verdict_text};
    use skillgate::skill::Skill;

    insta::assert_json_snapshot!(format!("{name}_json"), v);
    insta::assert_snapshot!(format!("{name}_human"), verdict_text::human(v));
    insta::assert_snapshot!(format!("{name}_markdown"), verdict_text::markdown(v));
    let page = html::page(v, "inventory-conventions on example/shop");
    let start = page.find("<h1").expect("a heading");
    let end = page.find("<h2>Reasons</h2>").expect("a reasons heading");
    insta::assert_snapshot!(format!("{name}_html_head"), &page[start..end]);

    let path = crate::support::root().join("fixtures/skills/inventory-conventions/SKILL.md");
    let skill = Skill::load(&path).unwrap();
    let report = || Report {
        skill: Some(&skill),
        summary: Summary::of(&skill),
        findings: Vec::new(),
        verdict: Some(v.clone()),
        panel: None,
        project: None,
    };
    let style = Style {
        color: false,
        width: 100,
        rules_doc: None,
    };
    let root = crate::support::root().display().to_string();
    let out = |format| render(format, &[report()], style).replace(&root, "ROOT");
    insta::assert_snapshot!(format!("{name}_check_human"), out(Format::Human));
    insta::assert_snapshot!(format!("{name}_check_concise"), out(Format::Concise));
    insta::assert_snapshot!(format!("{name}_check_github"), out(Format::Github));
    insta::assert_snapshot!(format!("{name}_check_markdown"), out(Format::Markdown));
    let sarif: serde_json::Value = serde_json::from_str(&out(Format::Sarif)).unwrap();
    let verdicts = &sarif["runs"][0]["properties"]["verdicts"][0]["verdict"];
    assert_eq!(
        verdicts,
        &serde_json::to_value(v).unwrap(),
        "SARIF carries the verdict as is"
    );
}

#[test]
fn three_wins_skip_as_inconclusive_in_every_format() {
    let v = verdict(&three_wins());
    assert_eq!(
        (v.decision, v.evidence),
        (Decision::Skip, Some(Evidence::Inconclusive))
    );
    every_format("three_wins", &v);
}

#[test]
fn forty_tasks_with_a_gain_inject_in_every_format() {
    let v = verdict(&forty_gain());
    assert_eq!(
        (v.decision, v.evidence),
        (Decision::Inject, Some(Evidence::Benefit))
    );
    every_format("forty_gain", &v);
}

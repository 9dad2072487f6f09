//! Every figure of `stats::summarize` against values computed by hand or by an independent tool.

use skillgate::eval::condition::Condition;
use skillgate::eval::journal::{AttemptRecord, CellRecord, Outcome};
use skillgate::stats::{
    Discordant, EvalSummary, StatsError, StatsOptions, TaskResult, mcnemar_exact, summarize,
};

use crate::synthetic::{attempt, cell, cell_with, four_tasks, passes, twelve_tasks};

const EPS: f64 = 1e-12;

fn close(actual: f64, expected: f64) {
    assert!(
        (actual - expected).abs() < EPS,
        "expected {expected}, got {actual}"
    );
}

fn summary(cells: &[CellRecord]) -> EvalSummary {
    summarize(cells, &StatsOptions::default()).unwrap()
}

#[test]
fn pass_rates_are_means_over_tasks_of_seed_shares() {
    let s = summary(&four_tasks());
    // C0: t1 1/3, t2 3/3, t3 0/3, t4 1/3 -> (1/3 + 1 + 0 + 1/3) / 4 = 5/12.
    close(s.conditions[&Condition::C0].pass_rate.unwrap(), 5.0 / 12.0);
    // C1: 1, 1, 0, 0 -> 2/4.
    close(s.conditions[&Condition::C1].pass_rate.unwrap(), 0.5);
    // C2: 1/3, 1, 0, 1/3 -> 5/12.
    close(s.conditions[&Condition::C2].pass_rate.unwrap(), 5.0 / 12.0);
    assert_eq!((s.tasks, s.seeds), (4, 3));
    assert_eq!(s.conditions[&Condition::C1].cells, 12);
    assert_eq!(s.conditions[&Condition::C1].errors, 0);
}

#[test]
fn deltas_are_paired_means_of_task_differences() {
    let s = summary(&four_tasks());
    // Δ per task: t1 3/3 - 1/3 = 2/3, t2 0, t3 0, t4 0 - 1/3 -> (2/3 - 1/3) / 4 = 1/12.
    let delta = s.delta.unwrap();
    close(delta.point, 1.0 / 12.0);
    assert_eq!((delta.tasks, delta.pairs), (4, 12));
    // ΔLength per task: 1/3 - 1/3, 1 - 1, 0 - 0, 1/3 - 1/3 -> 0; every resample is 0 too.
    let length = s.delta_length.unwrap();
    assert_eq!((length.point, length.lo, length.hi), (0.0, 0.0, 0.0));
    // ΔContent per task: 2/3, 0, 0, -1/3 -> 1/12.
    close(s.delta_content.unwrap().point, 1.0 / 12.0);
}

#[test]
fn bootstrap_intervals_match_an_independent_implementation() {
    // Expected bounds from `python3 tests/it/bootstrap_reference.py` (numpy 2, type-7
    // quantiles over the same SplitMix64 stream), run once and pasted here.
    let small = summary(&four_tasks()).delta.unwrap();
    close(small.lo, -0.25);
    close(small.hi, 0.5);

    let twelve = summary(&twelve_tasks());
    let delta = twelve.delta.unwrap();
    close(delta.lo, 0.1111111111111111);
    close(delta.hi, 0.5555555555555556);
    let length = twelve.delta_length.unwrap();
    close(length.lo, -0.16666666666666666);
    close(length.hi, 0.1111111111111111);
    let content = twelve.delta_content.unwrap();
    close(content.lo, 0.2222222222222222);
    close(content.hi, 0.5);

    let options = StatsOptions {
        resamples: 2_000,
        confidence: 0.99,
        rng_seed: 7,
    };
    let other = summarize(&twelve_tasks(), &options).unwrap().delta.unwrap();
    close(other.lo, 0.055416666666666885);
    close(other.hi, 0.638888888888889);
}

#[test]
fn twelve_task_figures_by_hand() {
    let s = summary(&twelve_tasks());
    // C1 passes 26 of 36, C0 14 of 36, C2 13 of 36, all tasks complete.
    close(s.delta.unwrap().point, 12.0 / 36.0);
    close(s.delta_length.unwrap().point, -1.0 / 36.0);
    close(s.delta_content.unwrap().point, 13.0 / 36.0);
    // Seeds below the pass count pass, so each task's discordant pairs are |c1 - c0|:
    // c1_only = 2+1+3+2+2+2+1 = 13, c0_only = 1 (task 9).
    assert_eq!(
        s.discordant,
        Discordant {
            c1_only: 13,
            c0_only: 1
        }
    );
    // scipy.stats.binomtest(13, 14, 0.5).pvalue == 0.0018310546875
    close(s.mcnemar_p.unwrap(), 0.0018310546875);
    assert_eq!((s.win, s.tie, s.loss), (7, 4, 1));
    // Tokens: C0 cells 1,000 each, C1 cells 1,400 each -> overhead 0.4; efficiency (1/3) / 0.4.
    close(s.token_overhead.unwrap(), 0.4);
    close(s.cost_efficiency.unwrap(), (1.0 / 3.0) / 0.4);
    assert!(s.undefined.is_empty(), "{:?}", s.undefined);
}

#[test]
fn mcnemar_matches_scipy_binomtest() {
    // python3 -c "from scipy.stats import binomtest; print(binomtest(b, b + c, 0.5).pvalue)"
    // with scipy 1.17.1, for each (b, c) below.
    let cases = [
        (0, 0, 1.0),
        (1, 0, 1.0),
        (2, 1, 1.0),
        (7, 7, 1.0),
        (11, 3, 0.057373046875),
        (3, 11, 0.057373046875),
        (30, 10, 0.0022214337732293643),
        (0, 25, 5.960464477539063e-08),
        (500, 430, 0.023608839292547163),
        (5000, 4800, 0.04440414879984631),
    ];
    for (b, c, expected) in cases {
        let p = mcnemar_exact(b, c);
        assert!(
            (p - expected).abs() <= 1e-9 * expected.max(1e-300),
            "({b}, {c}): expected {expected}, got {p}"
        );
    }
}

#[test]
fn mcnemar_on_the_four_task_journal() {
    let s = summary(&four_tasks());
    // t1 seeds 0 and 1 pass only with the skill, t4 seed 0 only without: b = 2, c = 1;
    // p = 2 P(X <= 1 | n = 3) = 2 (1 + 3) / 8 = 1, capped at 1.
    assert_eq!(
        s.discordant,
        Discordant {
            c1_only: 2,
            c0_only: 1
        }
    );
    close(s.mcnemar_p.unwrap(), 1.0);
    // t1 win, t2 (all pass) and t3 (all fail) ties, t4 loss.
    assert_eq!((s.win, s.tie, s.loss), (1, 2, 1));
    let results: Vec<TaskResult> = s.per_task.iter().map(|t| t.result).collect();
    assert_eq!(
        results,
        [
            TaskResult::Win,
            TaskResult::Tie,
            TaskResult::Tie,
            TaskResult::Loss
        ]
    );
}

#[test]
fn all_pass_and_all_fail_give_zero_deltas() {
    for outcome in [Outcome::Pass, Outcome::Fail] {
        let cells: Vec<CellRecord> = ["a", "b", "c", "d", "e"]
            .into_iter()
            .flat_map(|t| {
                [Condition::C0, Condition::C1, Condition::C2]
                    .into_iter()
                    .flat_map(move |c| (0..2).map(move |seed| cell(t, c, seed, outcome)))
            })
            .collect();
        let s = summary(&cells);
        let rate = if outcome == Outcome::Pass { 1.0 } else { 0.0 };
        for stats in s.conditions.values() {
            assert_eq!(stats.pass_rate, Some(rate));
            assert_eq!(stats.pass1_rate, Some(rate));
        }
        for interval in [s.delta, s.delta_length, s.delta_content] {
            let i = interval.unwrap();
            assert_eq!((i.point, i.lo, i.hi), (0.0, 0.0, 0.0));
        }
        // No discordant pair: the test has nothing to say.
        assert_eq!(s.mcnemar_p, Some(1.0));
        assert_eq!((s.win, s.tie, s.loss), (0, 5, 0));
    }
}

/// Three tasks, two seeds, C0 and C1 only:
///
/// | task | C0 seed 0 | C0 seed 1 | C1 seed 0 | C1 seed 1 |
/// |------|-----------|-----------|-----------|-----------|
/// | a    | pass      | error     | pass      | pass      |
/// | b    | fail      | fail      | error     | pass      |
/// | c    | fail      | (missing) | (missing) | pass      |
fn with_errors_and_gaps() -> Vec<CellRecord> {
    vec![
        cell("a", Condition::C0, 0, Outcome::Pass),
        cell("a", Condition::C0, 1, Outcome::Error),
        cell("a", Condition::C1, 0, Outcome::Pass),
        cell("a", Condition::C1, 1, Outcome::Pass),
        cell("b", Condition::C0, 0, Outcome::Fail),
        cell("b", Condition::C0, 1, Outcome::Fail),
        cell("b", Condition::C1, 0, Outcome::Error),
        cell("b", Condition::C1, 1, Outcome::Pass),
        cell("c", Condition::C0, 0, Outcome::Fail),
        cell("c", Condition::C1, 1, Outcome::Pass),
    ]
}

#[test]
fn error_cells_are_excluded_and_counted() {
    let s = summary(&with_errors_and_gaps());
    let c0 = &s.conditions[&Condition::C0];
    let c1 = &s.conditions[&Condition::C1];
    assert_eq!((c0.cells, c0.errors), (4, 1));
    assert_eq!((c1.cells, c1.errors), (4, 1));
    // C0: a 1/1 (the error is not a fail), b 0/2, c 0/1 -> 1/3. C1: a 2/2, b 1/1, c 1/1 -> 1.
    close(c0.pass_rate.unwrap(), 1.0 / 3.0);
    close(c1.pass_rate.unwrap(), 1.0);
}

#[test]
fn a_task_without_a_pair_is_reported_not_dropped() {
    let s = summary(&with_errors_and_gaps());
    // Pairs: a seed 0 (pass, pass), b seed 1 (pass vs fail); c has none.
    let delta = s.delta.unwrap();
    assert_eq!((delta.tasks, delta.pairs), (2, 2));
    close(delta.point, (0.0 + 1.0) / 2.0);
    assert_eq!(s.tasks_without_pair, ["c"]);
    assert_eq!((s.win, s.tie, s.loss), (1, 1, 0));
    let c = &s.per_task[2];
    assert_eq!(
        (c.result, c.c0, c.c1, c.pairs),
        (TaskResult::NoPair, None, None, 0)
    );
    // One discordant pair in favour of the skill: p = 2 P(X <= 0 | n = 1) = 1.
    close(s.mcnemar_p.unwrap(), 1.0);
    // Without C2 the length comparisons are absent, with the reason recorded.
    assert!(s.delta_length.is_none() && s.delta_content.is_none());
    assert!(s.undefined.contains_key("delta_length"));
    assert!(s.undefined.contains_key("delta_content"));
}

#[test]
fn tokens_sum_every_kind_over_every_attempt() {
    let tokens = |input, output, cache_read, cache_write, outcome| AttemptRecord {
        output_tokens: output,
        cache_read_tokens: cache_read,
        cache_write_tokens: cache_write,
        ..attempt(outcome, input)
    };
    let mut no_cost = tokens(2_000, 300, 600, 100, Outcome::Pass);
    no_cost.cost_usd = None;
    let cells = vec![
        cell_with(
            "t",
            Condition::C0,
            0,
            vec![tokens(1_000, 0, 0, 0, Outcome::Pass)],
        ),
        cell_with(
            "t",
            Condition::C0,
            1,
            vec![tokens(1_500, 500, 0, 0, Outcome::Fail)],
        ),
        cell_with(
            "t",
            Condition::C0,
            2,
            vec![tokens(4_000, 1_000, 500, 500, Outcome::Fail)],
        ),
        cell_with(
            "t",
            Condition::C1,
            0,
            vec![tokens(1_500, 0, 0, 0, Outcome::Pass)],
        ),
        cell_with(
            "t",
            Condition::C1,
            1,
            vec![tokens(2_000, 500, 400, 100, Outcome::Pass)],
        ),
        cell_with(
            "t",
            Condition::C1,
            2,
            vec![tokens(4_000, 500, 1_000, 500, Outcome::Fail), no_cost],
        ),
    ];
    let s = summary(&cells);
    let c0 = &s.conditions[&Condition::C0];
    let c1 = &s.conditions[&Condition::C1];
    // C0 totals 1,000, 2,000, 6,000: mean 3,000, median 2,000.
    assert_eq!(
        (c0.mean_tokens, c0.median_tokens),
        (Some(3_000.0), Some(2_000.0))
    );
    // C1 totals 1,500, 3,000 and 6,000 + 3,000 over two attempts: mean 4,500, median 3,000.
    assert_eq!(
        (c1.mean_tokens, c1.median_tokens),
        (Some(4_500.0), Some(3_000.0))
    );
    // Overhead (4,500 - 3,000) / 3,000 = 0.5; Δ = 3/3 - 1/3 = 2/3; efficiency (2/3) / 0.5.
    close(s.token_overhead.unwrap(), 0.5);
    close(s.cost_efficiency.unwrap(), 4.0 / 3.0);
    // The two-attempt cell passes but not at its first attempt: Pass@1 = 2/3.
    close(c1.pass1_rate.unwrap(), 2.0 / 3.0);
    close(c1.pass_rate.unwrap(), 1.0);
    // Wall: one attempt of 10 s per cell, two in the last C1 cell -> C1 mean 40/3.
    close(c1.mean_wall_s.unwrap(), 40.0 / 3.0);
    // Cost: C0 every attempt $0.01 -> 0.01; C1 has an attempt without cost -> not claimed.
    close(c0.mean_cost_usd.unwrap(), 0.01);
    assert_eq!(c1.mean_cost_usd, None);
}

#[test]
fn zero_or_negative_overhead_leaves_efficiency_undefined_with_a_reason() {
    // Same tokens in C0 and C1: overhead 0.
    let mut cells = passes("t", Condition::C0, 2, 1);
    cells.extend(passes("t", Condition::C1, 2, 2).into_iter().map(|mut c| {
        c.attempts[0].input_tokens = 1_000;
        c
    }));
    let s = summary(&cells);
    assert_eq!(s.token_overhead, Some(0.0));
    assert_eq!(s.cost_efficiency, None);
    assert!(s.undefined["cost_efficiency"].contains("zero"));

    // C0 reports no tokens at all: the relative overhead itself is undefined.
    let mut cells = passes("t", Condition::C0, 2, 1);
    for c in &mut cells {
        c.attempts[0].input_tokens = 0;
    }
    cells.extend(passes("t", Condition::C1, 2, 2));
    let s = summary(&cells);
    assert_eq!((s.token_overhead, s.cost_efficiency), (None, None));
    assert!(s.undefined["token_overhead"].contains("no tokens"));
}

#[test]
fn a_later_record_of_the_same_cell_supersedes_the_earlier() {
    let mut cells = passes("t", Condition::C0, 1, 0);
    cells.push(cell("t", Condition::C1, 0, Outcome::Error));
    cells.push(cell("t", Condition::C1, 0, Outcome::Pass));
    let s = summary(&cells);
    let c1 = &s.conditions[&Condition::C1];
    assert_eq!((c1.cells, c1.errors, c1.pass_rate), (1, 0, Some(1.0)));
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    assert_eq!(
        summarize(&[], &StatsOptions::default()),
        Err(StatsError::Empty)
    );
    let mut cells = four_tasks();
    cells[3].model = "other".into();
    assert!(matches!(
        summarize(&cells, &StatsOptions::default()),
        Err(StatsError::Mixed { field: "model", .. })
    ));
    let zero = StatsOptions {
        resamples: 0,
        ..StatsOptions::default()
    };
    assert_eq!(
        summarize(&four_tasks(), &zero),
        Err(StatsError::NoResamples)
    );
    let nan = StatsOptions {
        confidence: f64::NAN,
        ..StatsOptions::default()
    };
    assert!(summarize(&four_tasks(), &nan).is_err());
}

#[test]
fn only_error_cells_leave_the_condition_without_figures() {
    let mut cells = passes("t", Condition::C0, 2, 1);
    cells.push(cell("t", Condition::C1, 0, Outcome::Error));
    let s = summary(&cells);
    let c1 = &s.conditions[&Condition::C1];
    assert_eq!(
        (c1.cells, c1.errors, c1.pass_rate, c1.mean_tokens),
        (0, 1, None, None)
    );
    assert_eq!(s.delta, None);
    assert_eq!(s.mcnemar_p, None);
    assert_eq!(s.tasks_without_pair, ["t"]);
}

#[test]
fn timeouts_count_as_fails() {
    let cells = vec![
        cell("t", Condition::C0, 0, Outcome::Timeout),
        cell("t", Condition::C1, 0, Outcome::Pass),
    ];
    let s = summary(&cells);
    assert_eq!(s.conditions[&Condition::C0].pass_rate, Some(0.0));
    assert_eq!(s.conditions[&Condition::C0].errors, 0);
    assert_eq!(s.win, 1);
}

#[test]
fn the_same_journal_gives_byte_identical_json() {
    let cells = twelve_tasks();
    let first = serde_json::to_string(&summary(&cells)).unwrap();
    let second = serde_json::to_string(&summary(&cells)).unwrap();
    assert_eq!(first, second);
    // The order of records does not matter either: the grid is keyed and sorted.
    let mut reversed = cells;
    reversed.reverse();
    assert_eq!(first, serde_json::to_string(&summary(&reversed)).unwrap());
}

#[test]
fn the_summary_round_trips_through_json() {
    let s = summary(&with_errors_and_gaps());
    let text = serde_json::to_string(&s).unwrap();
    let back: EvalSummary = serde_json::from_str(&text).unwrap();
    assert_eq!(back, s);
}

//! Builders of small synthetic journals for the statistics, verdict and report tests.

use skillgate::eval::condition::Condition;
use skillgate::eval::journal::{AttemptRecord, CellRecord, Outcome};

/// Tokens of a cell's single attempt, by condition: the skill adds 40% over no skill.
fn default_tokens(condition: Condition) -> u64 {
    match condition {
        Condition::C0 => 1_000,
        _ => 1_400,
    }
}

/// One attempt with only input tokens.
pub fn attempt(outcome: Outcome, input_tokens: u64) -> AttemptRecord {
    AttemptRecord {
        outcome,
        reward: None,
        input_tokens,
        output_tokens: 0,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        reasoning_output_tokens: 0,
        cost_usd: Some(0.01),
        models: Default::default(),
        rewards: Default::default(),
        network: None,
        wall_s: 10.0,
        agent_exit: Some(0),
        error: None,
        skill_read: None,
    }
}

/// A cell with explicit attempts; the cell's outcome is pass if any attempt passed, error if
/// the last attempt was one, fail otherwise.
pub fn cell_with(
    task: &str,
    condition: Condition,
    seed: u32,
    attempts: Vec<AttemptRecord>,
) -> CellRecord {
    let outcome = if attempts.iter().any(|a| a.outcome == Outcome::Pass) {
        Outcome::Pass
    } else {
        attempts.last().map_or(Outcome::Error, |a| a.outcome)
    };
    CellRecord {
        schema: 1,
        skill_sha256: "5k111".into(),
        task: task.into(),
        task_sha256: format!("sha-{task}"),
        agent: "command".into(),
        model: "fixture".into(),
        condition,
        seed,
        outcome,
        input_tokens: attempts.iter().map(|a| a.input_tokens).sum(),
        output_tokens: attempts.iter().map(|a| a.output_tokens).sum(),
        wall_s: attempts.iter().map(|a| a.wall_s).sum(),
        environment_skills_removed: Vec::new(),
        storage_not_enforced: None,
        environment_not_reproduced: None,
        attempts,
    }
}

/// A one-attempt cell with the condition's default tokens.
pub fn cell(task: &str, condition: Condition, seed: u32, outcome: Outcome) -> CellRecord {
    cell_with(
        task,
        condition,
        seed,
        vec![attempt(outcome, default_tokens(condition))],
    )
}

/// Cells for seeds `0..seeds` of one task and condition, where the first `passed` seeds pass.
pub fn passes(task: &str, condition: Condition, seeds: u32, passed: u32) -> Vec<CellRecord> {
    (0..seeds)
        .map(|seed| {
            let outcome = if seed < passed {
                Outcome::Pass
            } else {
                Outcome::Fail
            };
            cell(task, condition, seed, outcome)
        })
        .collect()
}

/// Builds a journal from per-task pass counts: `rows[i] = (c0, c1, c2)` passes of `seeds`.
pub fn from_counts(seeds: u32, rows: &[(u32, u32, u32)]) -> Vec<CellRecord> {
    rows.iter()
        .enumerate()
        .flat_map(|(i, &(c0, c1, c2))| {
            let task = format!("task-{:02}", i + 1);
            [
                (Condition::C0, c0),
                (Condition::C1, c1),
                (Condition::C2, c2),
            ]
            .into_iter()
            .flat_map(move |(condition, passed)| passes(&task, condition, seeds, passed))
            .collect::<Vec<_>>()
        })
        .collect()
}

/// Twelve tasks × three seeds with a clear gain that the skill's content explains.
/// Pass counts per task (C0, C1, C2), also used by `bootstrap_reference.py`.
pub fn twelve_tasks() -> Vec<CellRecord> {
    let c1 = [3, 3, 2, 3, 1, 2, 3, 3, 0, 2, 3, 1];
    let c0 = [1, 2, 2, 0, 1, 0, 3, 1, 1, 2, 1, 0];
    let c2 = [1, 2, 1, 1, 1, 1, 2, 1, 0, 1, 1, 1];
    let rows: Vec<(u32, u32, u32)> = (0..12).map(|i| (c0[i], c1[i], c2[i])).collect();
    from_counts(3, &rows)
}

/// Four tasks × three seeds with a win, an all-pass tie, an all-fail tie and a loss.
///
/// | task | C0    | C1    | C2    |
/// |------|-------|-------|-------|
/// | t1   | F F P | P P P | F P F |
/// | t2   | P P P | P P P | P P P |
/// | t3   | F F F | F F F | F F F |
/// | t4   | P F F | F F F | F F P |
pub fn four_tasks() -> Vec<CellRecord> {
    use Outcome::{Fail as F, Pass as P};
    let table = [
        ("t1", [F, F, P], [P, P, P], [F, P, F]),
        ("t2", [P, P, P], [P, P, P], [P, P, P]),
        ("t3", [F, F, F], [F, F, F], [F, F, F]),
        ("t4", [P, F, F], [F, F, F], [F, F, P]),
    ];
    let mut cells = Vec::new();
    for (task, c0, c1, c2) in table {
        for (condition, row) in [
            (Condition::C0, c0),
            (Condition::C1, c1),
            (Condition::C2, c2),
        ] {
            for (seed, outcome) in row.into_iter().enumerate() {
                cells.push(cell(task, condition, seed as u32, outcome));
            }
        }
    }
    cells
}

/// Twenty tasks × 2 seeds, two attempts: no skill and the length control fail both attempts;
/// the skill fails the first and, after feedback, passes the second on all but four tasks.
pub fn gain_at_attempt_two() -> Vec<CellRecord> {
    use Outcome::{Fail, Pass};
    let mut cells = Vec::new();
    for t in 0..20 {
        let task = format!("task-{t:02}");
        for seed in 0..2 {
            for condition in [Condition::C0, Condition::C1, Condition::C2] {
                let second = if condition == Condition::C1 && t % 5 != 0 {
                    Pass
                } else {
                    Fail
                };
                let attempts = vec![attempt(Fail, 1_000), attempt(second, 1_000)];
                cells.push(cell_with(&task, condition, seed, attempts));
            }
        }
    }
    cells
}

/// Twelve tasks × 3 seeds with a small noisy gain: Δ's interval straddles zero (and +5 points).
pub fn open_twelve() -> Vec<CellRecord> {
    let rows: Vec<(u32, u32, u32)> = (0..12_u32)
        .map(|i| match i % 4 {
            0 => (1, 3, 1),
            1 => (2, 0, 2),
            2 => (1, 2, 1),
            _ => (2, 2, 2),
        })
        .collect();
    from_counts(3, &rows)
}

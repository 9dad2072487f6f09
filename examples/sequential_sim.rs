//! Fixed-size against sequential evaluation on synthetic journals with known true effects.
//!
//! Each replicate draws a fresh set of tasks with heterogeneous difficulty (baseline logit
//! ~ N(0, 1.2²)) and, except under "zero", a heterogeneous effect of the skill (logit shift
//! ~ N(β, 0.5²)). The length control C2 behaves like no skill, so the true ΔContent equals
//! the true Δ. The correct verdict is inject exactly when the true Δ is positive.
//!
//! Both designs see the same cells (common random numbers): the fixed design decides once
//! after all seed rounds at 95%; the sequential design looks after every round with the
//! spending rule of `stats::sequential` and stops when the verdict is settled.
//!
//! Run: `cargo run --release --example sequential_sim -- [replicates] [tasks] [seeds] [resamples] [max-seeds]`
//! (defaults 400, 40, 5, 2000, = seeds; the bootstrap uses 2,000 resamples instead of the CLI's 10,000
//! so that the whole table takes well under a minute on two cores).
//!
//! `cargo run --release --example sequential_sim -- evidence [replicates] [seeds] [resamples]`
//! prints instead the fixed design's decision and evidence for 3, 5, 10, 20 and 40 tasks and
//! true effects of −10, 0, +5, +10 and +20 points (defaults 2000, 5, 2000): the table of
//! `docs/statistics.md`.
//!
//! `cargo run --release --example sequential_sim -- transfer [replicates] [seeds] [resamples]`
//! prints the transfer table: two models on 10, 20 and 40 tasks whose per-task effects
//! correlate as given, and what Spearman's ρ and its task-bootstrap interval show (defaults
//! 1000, 3, 1000).

use skillgate::eval::condition::Condition;
use skillgate::eval::journal::{AttemptRecord, CellRecord, Outcome};
use skillgate::stats::sequential::{SequentialPlan, Step};
use skillgate::stats::{StatsOptions, summarize};
use skillgate::verdict::{Decision, Evidence, VerdictPolicy, decide, decide_sequential};

/// Spread of task difficulty on the logit scale.
const DIFFICULTY_SD: f64 = 1.2;
/// Spread of the skill's effect across tasks on the logit scale.
const EFFECT_SD: f64 = 0.5;
const CONDITIONS: [Condition; 3] = [Condition::C0, Condition::C1, Condition::C2];

/// A known truth to simulate.
struct Scenario {
    name: &'static str,
    /// Mean logit shift of the skill.
    beta: f64,
    /// Whether the skill's effect varies across tasks.
    heterogeneous: bool,
}

const SCENARIOS: [Scenario; 4] = [
    Scenario {
        name: "zero",
        beta: 0.0,
        heterogeneous: false,
    },
    Scenario {
        name: "small",
        beta: 0.5,
        heterogeneous: true,
    },
    Scenario {
        name: "large",
        beta: 1.5,
        heterogeneous: true,
    },
    Scenario {
        name: "harmful",
        beta: -0.6,
        heterogeneous: true,
    },
];

/// The simulation's own SplitMix64 stream (the library's is private on purpose).
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1_u64 << 53) as f64
    }

    /// Standard normal by Box–Muller.
    fn normal(&mut self) -> f64 {
        let u = self.uniform().max(f64::MIN_POSITIVE);
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * self.uniform()).cos()
    }
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Per-task pass probabilities (C0, C1) for one replicate.
fn draw_tasks(s: &Scenario, tasks: usize, rng: &mut Rng) -> Vec<(f64, f64)> {
    (0..tasks)
        .map(|_| {
            let base = DIFFICULTY_SD * rng.normal();
            let spread = if s.heterogeneous { EFFECT_SD } else { 0.0 };
            let shift = s.beta + spread * rng.normal();
            (logistic(base), logistic(base + shift))
        })
        .collect()
}

/// The population's true Δ, by a large Monte Carlo sample.
fn true_delta(s: &Scenario) -> f64 {
    let mut rng = Rng(99);
    let tasks = draw_tasks(s, 400_000, &mut rng);
    tasks.iter().map(|(p0, p1)| p1 - p0).sum::<f64>() / tasks.len() as f64
}

fn cell(task: usize, condition: Condition, seed: u32, passed: bool) -> CellRecord {
    let outcome = if passed { Outcome::Pass } else { Outcome::Fail };
    let tokens = if condition == Condition::C0 {
        1_000
    } else {
        1_400
    };
    CellRecord {
        schema: 1,
        skill_sha256: "sim".into(),
        task: format!("task-{task:03}"),
        task_sha256: String::new(),
        agent: "sim".into(),
        model: "sim".into(),
        condition,
        seed,
        outcome,
        attempts: vec![AttemptRecord {
            outcome,
            reward: None,
            input_tokens: tokens,
            output_tokens: 0,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
            reasoning_output_tokens: 0,
            cost_usd: None,
            models: Default::default(),
            rewards: Default::default(),
            network: None,
            wall_s: 1.0,
            agent_exit: Some(0),
            error: None,
            skill_read: None,
        }],
        input_tokens: tokens,
        output_tokens: 0,
        wall_s: 1.0,
        environment_skills_removed: Vec::new(),
        storage_not_enforced: None,
        environment_not_reproduced: None,
    }
}

/// All cells of one replicate, seed round by seed round.
fn draw_journal(probabilities: &[(f64, f64)], seeds: u32, rng: &mut Rng) -> Vec<CellRecord> {
    let mut cells = Vec::new();
    for seed in 0..seeds {
        for (task, &(p0, p1)) in probabilities.iter().enumerate() {
            for condition in CONDITIONS {
                let p = if condition == Condition::C1 { p1 } else { p0 };
                cells.push(cell(task, condition, seed, rng.uniform() < p));
            }
        }
    }
    cells
}

/// (decision, seed rounds used) of the fixed design.
fn fixed(cells: &[CellRecord], seeds: u32, options: &StatsOptions) -> (Decision, u32) {
    let summary = summarize(cells, options).expect("simulated journals are valid");
    let verdict = decide(&VerdictPolicy::default(), &[], Some(&summary));
    (verdict.decision, seeds)
}

/// (decision, seed rounds used) of the sequential design.
fn sequential(cells: &[CellRecord], plan: &SequentialPlan, base: &StatsOptions) -> (Decision, u32) {
    for look in 1..=plan.max_looks() {
        let seen: Vec<CellRecord> = cells.iter().filter(|c| c.seed < look).cloned().collect();
        let options = plan.options_at(look, base).expect("look within the plan");
        let summary = summarize(&seen, &options).expect("simulated journals are valid");
        let step = decide_sequential(&VerdictPolicy::default(), &[], &summary, plan, look)
            .expect("look within the plan");
        if step.step != Step::Continue {
            return (step.verdict.decision, look);
        }
    }
    unreachable!("the last look always settles")
}

fn arg(index: usize, default: u32) -> u32 {
    std::env::args()
        .nth(index)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("evidence") {
        evidence_table(arg(2, 2_000), arg(3, 5), arg(4, 2_000));
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("transfer") {
        transfer_table(arg(2, 1_000), arg(3, 3), arg(4, 1_000));
        return;
    }
    let replicates = arg(1, 400);
    let tasks = arg(2, 40) as usize;
    let seeds = arg(3, 5);
    let resamples = arg(4, 2_000);
    let max_seeds = arg(5, seeds);
    let base = StatsOptions {
        resamples,
        ..StatsOptions::default()
    };
    let plan = SequentialPlan::new(max_seeds, base.confidence).expect("valid plan");
    println!(
        "{replicates} replicates × {tasks} tasks × 3 conditions; fixed: {seeds} seeds at 95%; \
         sequential: up to {max_seeds} seeds, interim looks at {:.3}%, last at {:.2}%; \
         {resamples} bootstrap resamples\n",
        plan.confidence_at(1).expect("valid look") * 100.0,
        plan.confidence_at(max_seeds).expect("valid look") * 100.0
    );
    println!(
        "| true effect | true Δ (pts) | correct | fixed wrong | fixed runs | sequential wrong | sequential runs | runs saved |"
    );
    println!("|---|--:|---|--:|--:|--:|--:|--:|");
    let mut totals = [0.0_f64; 4];
    for (index, scenario) in SCENARIOS.iter().enumerate() {
        let truth = true_delta(scenario);
        let correct = if truth > 0.0 {
            Decision::Inject
        } else {
            Decision::Skip
        };
        let (mut fixed_wrong, mut fixed_rounds, mut seq_wrong, mut seq_rounds) = (0, 0, 0, 0);
        for replicate in 0..replicates {
            // One stream per replicate, drawn round by round: the fixed design sees the same
            // cells whatever the sequential maximum.
            let mut rng = Rng(((index as u64) << 32) | u64::from(replicate));
            let probabilities = draw_tasks(scenario, tasks, &mut rng);
            let cells = draw_journal(&probabilities, seeds.max(max_seeds), &mut rng);
            let first: Vec<CellRecord> = cells.iter().filter(|c| c.seed < seeds).cloned().collect();
            let (f, fr) = fixed(&first, seeds, &base);
            let (s, sr) = sequential(&cells, &plan, &base);
            fixed_wrong += u32::from(f != correct);
            seq_wrong += u32::from(s != correct);
            fixed_rounds += fr;
            seq_rounds += sr;
        }
        let runs_per_round = (tasks * CONDITIONS.len()) as f64;
        let n = f64::from(replicates);
        let row = [
            f64::from(fixed_wrong) / n,
            f64::from(fixed_rounds) / n * runs_per_round,
            f64::from(seq_wrong) / n,
            f64::from(seq_rounds) / n * runs_per_round,
        ];
        print_row(scenario.name, Some((truth, correct)), &row);
        for (total, value) in totals.iter_mut().zip(row) {
            *total += value / SCENARIOS.len() as f64;
        }
    }
    print_row("mean", None, &totals);
    println!(
        "\nMonte Carlo standard error of a wrong-verdict share: at most {:.1} pts per row.",
        50.0 / f64::from(replicates).sqrt()
    );
}

fn print_row(name: &str, truth: Option<(f64, Decision)>, row: &[f64; 4]) {
    let (truth, correct) = truth.map_or((String::new(), String::new()), |(t, c)| {
        (
            format!("{:+.1}", t * 100.0),
            format!("{c:?}").to_lowercase(),
        )
    });
    println!(
        "| {name} | {truth} | {correct} | {:.1}% | {:.0} | {:.1}% | {:.0} | {:.0}% |",
        row[0] * 100.0,
        row[1],
        row[2] * 100.0,
        row[3],
        (1.0 - row[3] / row[1]) * 100.0
    );
}

/// Task counts of the evidence table.
const TASK_COUNTS: [usize; 5] = [3, 5, 10, 20, 40];
/// True effects of the evidence table, in points of pass rate.
const EFFECTS: [f64; 5] = [-10.0, 0.0, 5.0, 10.0, 20.0];

/// The mean logit shift whose population Δ is `points` (bisection on a fixed sample, so the
/// true Δ is monotone in the shift); zero is the homogeneous null.
fn scenario_for(points: f64) -> Scenario {
    if points == 0.0 {
        return Scenario {
            name: "zero",
            beta: 0.0,
            heterogeneous: false,
        };
    }
    let delta = |beta: f64| {
        let mut rng = Rng(7);
        let s = Scenario {
            name: "",
            beta,
            heterogeneous: true,
        };
        let tasks = draw_tasks(&s, 100_000, &mut rng);
        tasks.iter().map(|(p0, p1)| p1 - p0).sum::<f64>() / tasks.len() as f64
    };
    let (mut lo, mut hi) = (-4.0, 4.0);
    for _ in 0..40 {
        let mid = (lo + hi) / 2.0;
        if delta(mid) * 100.0 < points {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Scenario {
        name: "",
        beta: (lo + hi) / 2.0,
        heterogeneous: true,
    }
}

/// Shares of (inject, skip by evidence [benefit, no-benefit, harm, inconclusive], any
/// inconclusive) over the replicates of one (tasks, effect) cell.
fn evidence_row(
    scenario: &Scenario,
    tasks: usize,
    seeds: u32,
    replicates: u32,
    options: &StatsOptions,
) -> [f64; 6] {
    let mut counts = [0_u32; 6];
    for replicate in 0..replicates {
        let mut rng = Rng((tasks as u64) << 40 ^ scenario.beta.to_bits() ^ u64::from(replicate));
        let probabilities = draw_tasks(scenario, tasks, &mut rng);
        let cells = draw_journal(&probabilities, seeds, &mut rng);
        let summary = summarize(&cells, options).expect("simulated journals are valid");
        let verdict = decide(&VerdictPolicy::default(), &[], Some(&summary));
        let evidence = verdict.evidence.expect("an evaluated verdict has evidence");
        if verdict.decision == Decision::Inject {
            counts[0] += 1;
        } else {
            counts[match evidence {
                Evidence::Benefit => 1,
                Evidence::NoBenefit => 2,
                Evidence::Harm => 3,
                Evidence::Inconclusive => 4,
            }] += 1;
        }
        counts[5] += u32::from(evidence == Evidence::Inconclusive);
    }
    counts.map(|c| f64::from(c) / f64::from(replicates))
}

fn evidence_table(replicates: u32, seeds: u32, resamples: u32) {
    let options = StatsOptions {
        resamples,
        ..StatsOptions::default()
    };
    println!(
        "{replicates} replicates per row, {seeds} seeds, C0, C1 and C2, fixed design at 95%, \
         default policy (worthwhile gain 5 pts, min-tasks 10), {resamples} bootstrap resamples\n"
    );
    println!(
        "| tasks | true Δ (pts) | inject | skip: benefit | skip: no-benefit | skip: harm | skip: inconclusive | inconclusive |"
    );
    println!("|--:|--:|--:|--:|--:|--:|--:|--:|");
    let scenarios: Vec<(f64, Scenario)> = EFFECTS.iter().map(|&e| (e, scenario_for(e))).collect();
    for tasks in TASK_COUNTS {
        for (effect, scenario) in &scenarios {
            let row = evidence_row(scenario, tasks, seeds, replicates, &options);
            let cells: Vec<String> = row.iter().map(|v| format!("{:.1}%", v * 100.0)).collect();
            println!("| {tasks} | {effect:+.0} | {} |", cells.join(" | "));
        }
    }
    println!(
        "\nMonte Carlo standard error of a share: at most {:.1} pts per cell.",
        50.0 / f64::from(replicates).sqrt()
    );
}

/// Correlations, across tasks, of the two models' effects (on the logit scale) in the
/// transfer table.
const TRANSFER_CORRELATIONS: [f64; 3] = [0.0, 0.5, 0.9];
/// Task counts of the transfer table.
const TRANSFER_TASKS: [usize; 3] = [10, 20, 40];
/// Mean and spread, across tasks, of each model's effect on the logit scale.
const TRANSFER_EFFECT: (f64, f64) = (0.5, 1.0);

/// Per task: (p0, p1 under model A, p1 under model B), the models' effects correlated `r`.
fn draw_two_models(tasks: usize, r: f64, rng: &mut Rng) -> Vec<(f64, f64, f64)> {
    let (mean, sd) = TRANSFER_EFFECT;
    (0..tasks)
        .map(|_| {
            let base = DIFFICULTY_SD * rng.normal();
            let za = rng.normal();
            let zb = r * za + (1.0 - r * r).sqrt() * rng.normal();
            (
                logistic(base),
                logistic(base + mean + sd * za),
                logistic(base + mean + sd * zb),
            )
        })
        .collect()
}

/// The population's Spearman ρ between the two models' true per-task effects.
fn true_spearman(r: f64) -> f64 {
    let mut rng = Rng(11);
    let pairs: Vec<(f64, f64)> = draw_two_models(100_000, r, &mut rng)
        .into_iter()
        .map(|(p0, pa, pb)| (pa - p0, pb - p0))
        .collect();
    skillgate::stats::transfer::spearman(&pairs).unwrap_or(0.0)
}

fn model_cells(
    model: &str,
    probabilities: &[(f64, f64)],
    seeds: u32,
    rng: &mut Rng,
) -> Vec<CellRecord> {
    let mut cells = Vec::new();
    for seed in 0..seeds {
        for (task, &(p0, p1)) in probabilities.iter().enumerate() {
            for (condition, p) in [(Condition::C0, p0), (Condition::C1, p1)] {
                let mut c = cell(task, condition, seed, rng.uniform() < p);
                c.model = model.to_owned();
                cells.push(c);
            }
        }
    }
    cells
}

fn transfer_table(replicates: u32, seeds: u32, resamples: u32) {
    use skillgate::stats::transfer::transfer;
    let options = StatsOptions {
        resamples,
        ..StatsOptions::default()
    };
    println!(
        "{replicates} replicates per row, {seeds} seeds, C0 and C1 per model, each model's \
         effect N({}, {}²) on the logit scale, {resamples} bootstrap resamples\n",
        TRANSFER_EFFECT.0, TRANSFER_EFFECT.1
    );
    println!(
        "| tasks | effect correlation | true ρ | mean ρ̂ | mean interval width | interval excludes 0 | interval covers true ρ | sign agreement | ρ undefined |"
    );
    println!("|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    for tasks in TRANSFER_TASKS {
        for r in TRANSFER_CORRELATIONS {
            let truth = true_spearman(r);
            let (mut sum_rho, mut sum_width, mut excludes, mut covers, mut signs) =
                (0.0, 0.0, 0_u32, 0_u32, 0.0);
            let (mut defined, mut with_interval) = (0_u32, 0_u32);
            for replicate in 0..replicates {
                let mut rng =
                    Rng((tasks as u64) << 40 ^ r.to_bits() ^ u64::from(replicate) ^ 0x7A11);
                let draws = draw_two_models(tasks, r, &mut rng);
                let a: Vec<(f64, f64)> = draws.iter().map(|&(p0, pa, _)| (p0, pa)).collect();
                let b: Vec<(f64, f64)> = draws.iter().map(|&(p0, _, pb)| (p0, pb)).collect();
                let sa = summarize(&model_cells("a", &a, seeds, &mut rng), &options)
                    .expect("simulated journals are valid");
                let sb = summarize(&model_cells("b", &b, seeds, &mut rng), &options)
                    .expect("simulated journals are valid");
                let t = transfer(("a", &sa), ("b", &sb), &options);
                signs += t.sign_agreement.unwrap_or(0.0);
                let Some(rho) = t.spearman else { continue };
                defined += 1;
                sum_rho += rho;
                if let (Some(lo), Some(hi)) = (t.spearman_lo, t.spearman_hi) {
                    with_interval += 1;
                    sum_width += hi - lo;
                    excludes += u32::from(lo > 0.0 || hi < 0.0);
                    covers += u32::from(lo <= truth && truth <= hi);
                }
            }
            let n = f64::from(replicates);
            let share = |k: u32, of: u32| f64::from(k) / f64::from(of.max(1)) * 100.0;
            println!(
                "| {tasks} | {r:.1} | {truth:+.2} | {:+.2} | {:.2} | {:.1}% | {:.1}% | {:.0}% | {:.1}% |",
                sum_rho / f64::from(defined.max(1)),
                sum_width / f64::from(with_interval.max(1)),
                share(excludes, with_interval),
                share(covers, with_interval),
                signs / n * 100.0,
                100.0 - share(defined, replicates),
            );
        }
    }
}

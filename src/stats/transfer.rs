//! How far a skill's effect transfers between models: the per-task effects (C1 share − C0
//! share) of two models' evaluations on the same tasks, compared task by task.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::rng::SplitMix64;
use super::{EvalSummary, StatsOptions};

/// Random stream id of the transfer bootstrap (Δ uses 1 to 5).
const STREAM: u64 = 6;

/// Two models' per-task effects compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transfer {
    /// The first model (the earlier in the run's order).
    pub a: String,
    /// The second model.
    pub b: String,
    /// Tasks with a C0/C1 pair under both models: what every figure below rests on.
    pub tasks: u32,
    /// Share of those tasks whose effect has the same sign (gain, none, loss) under both.
    pub sign_agreement: Option<f64>,
    /// Spearman's ρ between the two models' per-task effects (ranks with ties averaged).
    pub spearman: Option<f64>,
    /// Percentile interval of ρ from a task bootstrap (tasks resampled with replacement,
    /// both models' effects kept together); resamples where ρ is undefined are left out.
    pub spearman_lo: Option<f64>,
    /// Upper bound of that interval.
    pub spearman_hi: Option<f64>,
    /// For every figure that is `null`, why.
    pub undefined: BTreeMap<String, String>,
}

/// Each task's effect, C1 share − C0 share over its paired seeds, for tasks with a pair.
fn effects(summary: &EvalSummary) -> BTreeMap<&str, f64> {
    summary
        .per_task
        .iter()
        .filter_map(|t| Some((t.task.as_str(), t.c1? - t.c0?)))
        .collect()
}

/// Compares the per-task effects of two models' evaluations of the same skill on the same
/// tasks. Deterministic: the bootstrap's stream depends on the run seed and the two names.
pub fn transfer(
    a: (&str, &EvalSummary),
    b: (&str, &EvalSummary),
    options: &StatsOptions,
) -> Transfer {
    let (ea, eb) = (effects(a.1), effects(b.1));
    let pairs: Vec<(f64, f64)> = ea
        .iter()
        .filter_map(|(task, &x)| Some((x, *eb.get(task)?)))
        .collect();
    let mut undefined = BTreeMap::new();
    let sign_agreement = if pairs.is_empty() {
        undefined.insert(
            "sign_agreement".to_owned(),
            "no task has a pair under both models".to_owned(),
        );
        None
    } else {
        let same = pairs.iter().filter(|(x, y)| sign(*x) == sign(*y)).count();
        Some(same as f64 / pairs.len() as f64)
    };
    let spearman = spearman(&pairs);
    let (mut lo, mut hi) = (None, None);
    match spearman {
        None => {
            let why = if pairs.len() < 3 {
                format!(
                    "{} common {}: a rank correlation needs at least 3",
                    pairs.len(),
                    if pairs.len() == 1 { "task" } else { "tasks" }
                )
            } else {
                "one model's effect is the same on every common task, so it has no ranks".to_owned()
            };
            undefined.insert("spearman".to_owned(), why);
        }
        Some(_) => match bootstrap(&pairs, options, stream_seed(options.rng_seed, a.0, b.0)) {
            Some((l, h)) => (lo, hi) = (Some(l), Some(h)),
            None => {
                undefined.insert(
                    "spearman_interval".to_owned(),
                    "ρ is undefined in most task resamples".to_owned(),
                );
            }
        },
    }
    Transfer {
        a: a.0.to_owned(),
        b: b.0.to_owned(),
        tasks: pairs.len() as u32,
        sign_agreement,
        spearman,
        spearman_lo: lo,
        spearman_hi: hi,
        undefined,
    }
}

fn sign(x: f64) -> i8 {
    if x > 1e-12 {
        1
    } else if x < -1e-12 {
        -1
    } else {
        0
    }
}

/// Spearman's ρ: Pearson's correlation of the ranks, ties given their average rank. `None`
/// with fewer than three pairs or when either side is constant.
pub fn spearman(pairs: &[(f64, f64)]) -> Option<f64> {
    if pairs.len() < 3 {
        return None;
    }
    let xs: Vec<f64> = pairs.iter().map(|p| p.0).collect();
    let ys: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    pearson(&ranks(&xs), &ranks(&ys))
}

/// Average ranks (1-based) of `values`.
fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start;
        while end + 1 < order.len() && values[order[end + 1]] == values[order[start]] {
            end += 1;
        }
        let average = (start + end) as f64 / 2.0 + 1.0;
        for &i in &order[start..=end] {
            ranks[i] = average;
        }
        start = end + 1;
    }
    ranks
}

fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| (sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0))
}

/// A seed for the pair's own stream: the run seed mixed with the two names (FNV-1a).
fn stream_seed(seed: u64, a: &str, b: &str) -> u64 {
    let mut hash: u64 = 0xCBF2_9CE4_8422_2325;
    for byte in a.bytes().chain([0]).chain(b.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01B3);
    }
    seed ^ hash
}

/// The percentile interval of ρ over task resamples; `None` when ρ is undefined in more than
/// half of them.
fn bootstrap(pairs: &[(f64, f64)], options: &StatsOptions, seed: u64) -> Option<(f64, f64)> {
    let mut rng = SplitMix64::stream(seed, STREAM);
    let n = pairs.len();
    let mut values: Vec<f64> = (0..options.resamples)
        .filter_map(|_| {
            let sample: Vec<(f64, f64)> = (0..n).map(|_| pairs[rng.below(n)]).collect();
            spearman(&sample)
        })
        .collect();
    if values.len() * 2 < options.resamples as usize {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let tail = (1.0 - options.confidence) / 2.0;
    Some((
        super::bootstrap::quantile(&values, tail),
        super::bootstrap::quantile(&values, 1.0 - tail),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_average_ties() {
        assert_eq!(ranks(&[0.5, -1.0, 0.5, 2.0]), [2.5, 1.0, 2.5, 4.0]);
    }

    #[test]
    fn spearman_matches_a_hand_computation() {
        // Ranks x: 1 2 3 4 5, y: 2 1 4 3 5; Σd² = 4, ρ = 1 − 6·4/(5·24) = 0.8.
        let pairs = [(0.1, 0.2), (0.2, 0.1), (0.3, 0.4), (0.4, 0.3), (0.5, 0.5)];
        assert!((spearman(&pairs).unwrap() - 0.8).abs() < 1e-12);
        let reversed: Vec<(f64, f64)> = pairs.iter().map(|&(x, y)| (x, -y)).collect();
        assert!((spearman(&reversed).unwrap() + 0.8).abs() < 1e-12);
        assert_eq!(spearman(&[(0.1, 0.1), (0.2, 0.2)]), None);
        assert_eq!(spearman(&[(0.1, 0.0), (0.2, 0.0), (0.3, 0.0)]), None);
    }
}

//! The cluster bootstrap: resample tasks with replacement, keeping each task's seeds together.

use super::rng::SplitMix64;

/// A percentile interval `(lo, hi)` for the mean of per-cluster values.
///
/// Each cluster (task) enters as one number, its paired pass-share difference over its seeds,
/// so resampling a value resamples the task with all of its seeds. Each of `resamples` rounds
/// draws `values.len()` clusters with replacement and takes their mean; the bounds are the
/// `(1 - confidence) / 2` and `(1 + confidence) / 2` quantiles of those means, interpolated
/// linearly between order statistics (Hyndman and Fan type 7, numpy's default).
///
/// `values` must be non-empty and `resamples` at least 1; callers check both.
pub(crate) fn percentile_interval(
    values: &[f64],
    resamples: u32,
    confidence: f64,
    rng: &mut SplitMix64,
) -> (f64, f64) {
    let n = values.len();
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| (0..n).map(|_| values[rng.below(n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    let tail = (1.0 - confidence) / 2.0;
    (quantile(&means, tail), quantile(&means, 1.0 - tail))
}

/// Type-7 quantile of sorted, non-empty data.
pub(crate) fn quantile(sorted: &[f64], q: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * q.clamp(0.0, 1.0);
    let below = h.floor() as usize;
    let above = (below + 1).min(sorted.len() - 1);
    sorted[below] + (h - below as f64) * (sorted[above] - sorted[below])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_7_quantiles_match_numpy() {
        // numpy.quantile([1, 2, 3, 4], [0.025, 0.5, 0.975]) = [1.075, 2.5, 3.925]
        let data = [1.0, 2.0, 3.0, 4.0];
        assert!((quantile(&data, 0.025) - 1.075).abs() < 1e-12);
        assert!((quantile(&data, 0.5) - 2.5).abs() < 1e-12);
        assert!((quantile(&data, 0.975) - 3.925).abs() < 1e-12);
    }

    #[test]
    fn identical_clusters_give_a_zero_width_interval() {
        let mut rng = SplitMix64::stream(1, 0);
        let (lo, hi) = percentile_interval(&[0.25; 7], 500, 0.95, &mut rng);
        assert_eq!((lo, hi), (0.25, 0.25));
    }
}

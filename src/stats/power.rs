//! Power of the paired task bootstrap: the smallest gain an evaluation of this size would
//! detect, and how many tasks would bring that gain under a target.

use super::Interval;

/// Power at which the minimum detectable effect is quoted.
pub const POWER: f64 = 0.8;

/// The smallest true Δ (a fraction) that an evaluation like this one (same tasks, seeds and
/// observed spread) would detect with [`POWER`], i.e. whose interval would lie above zero.
///
/// The percentile interval's half-width is the bootstrap's `z₍₁₊c₎/₂ · SE`; a true gain is
/// detected with power `1 − β` when it is `(z₍₁₊c₎/₂ + z₁₋β) · SE` or more, so the MDE is the
/// half-width scaled by `1 + z₁₋β / z₍₁₊c₎/₂` (2.80/1.96 at 95% and 80% power).
pub fn mde(delta: &Interval, confidence: f64) -> f64 {
    let half_width = ((delta.hi - delta.lo) / 2.0).max(0.0);
    let z_alpha = normal_quantile((1.0 + confidence) / 2.0);
    half_width * (1.0 + normal_quantile(POWER) / z_alpha)
}

/// Tasks (at the same seeds per task) that would bring `mde` under `target` (fractions),
/// given that it was measured on `tasks` tasks: the standard error shrinks as `1/√tasks`.
/// `None` when `target` is not positive (no evaluation reaches it).
pub fn tasks_for(mde: f64, tasks: u32, target: f64) -> Option<u32> {
    if target <= 0.0 || !target.is_finite() {
        return None;
    }
    let needed = (f64::from(tasks) * (mde / target).powi(2)).floor() + 1.0;
    Some(needed.clamp(1.0, f64::from(u32::MAX)) as u32)
}

/// The standard normal quantile, by Acklam's rational approximation refined to a relative
/// error below 1.2e-9 over (0, 1); `p` outside (0, 1) gives ±∞.
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    const LOW: f64 = 0.024_25;
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    let tail = |q: f64| {
        let num = ((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5];
        let den = (((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0;
        num / den
    };
    if p < LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - LOW {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        let num = (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q;
        let den = ((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0;
        num / den
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interval(lo: f64, hi: f64, tasks: u32) -> Interval {
        Interval {
            point: (lo + hi) / 2.0,
            lo,
            hi,
            tasks,
            pairs: tasks,
        }
    }

    #[test]
    fn quantiles_match_the_tables() {
        // scipy.stats.norm.ppf
        for (p, z) in [
            (0.975, 1.959_963_984_540_054),
            (0.8, 0.841_621_233_572_914_2),
            (0.5, 0.0),
            (0.01, -2.326_347_874_040_841),
            (0.999_5, 3.290_526_731_491_926),
        ] {
            assert!((normal_quantile(p) - z).abs() < 1e-8, "{p}");
        }
        assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn the_mde_is_the_half_width_scaled_for_power() {
        // Half-width 0.1 at 95%: 0.1 × (1.96 + 0.8416) / 1.96.
        let m = mde(&interval(0.0, 0.2, 12), 0.95);
        assert!((m - 0.142_94).abs() < 1e-4, "{m}");
        assert_eq!(mde(&interval(1.0, 1.0, 3), 0.95), 0.0);
    }

    #[test]
    fn tasks_needed_grow_with_the_square_of_the_ratio() {
        // MDE 0.10 on 10 tasks; 0.05 needs four times the tasks, just over.
        assert_eq!(tasks_for(0.10, 10, 0.05), Some(41));
        assert_eq!(tasks_for(0.0, 10, 0.05), Some(1));
        assert_eq!(tasks_for(0.1, 10, 0.0), None);
    }
}

//! The exact McNemar test: a two-sided binomial test on discordant pairs.

use std::f64::consts::LN_2;

/// Two-sided exact McNemar p-value for `b` pairs where only the first condition passed and
/// `c` pairs where only the second did.
///
/// Under the null each discordant pair favours either side with probability 1/2, so the
/// p-value is `min(1, 2 P(X <= min(b, c)))` with `X ~ Binomial(b + c, 1/2)` (the binomial is
/// symmetric, so doubling the smaller tail is the exact two-sided test). The tail is summed in
/// log space, so it stays exact to rounding for any `n` (no `2^n` overflow, no underflow of the
/// individual terms). With no discordant pair the test has nothing to say and returns 1.
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c);
    let ln_half_n = -(n as f64) * LN_2;
    // ln C(n, i) built up term by term: C(n, i + 1) = C(n, i) (n - i) / (i + 1).
    let mut ln_choose = 0.0_f64;
    let mut ln_tail = ln_half_n;
    for i in 0..k {
        ln_choose += ((n - i) as f64).ln() - ((i + 1) as f64).ln();
        ln_tail = ln_add(ln_tail, ln_choose + ln_half_n);
    }
    (2.0 * ln_tail.exp()).min(1.0)
}

/// `ln(e^a + e^b)` without overflow.
fn ln_add(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    hi + (lo - hi).exp().ln_1p()
}

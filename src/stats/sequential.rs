//! Sequential evaluation: look at the evidence after every seed round and stop as soon as the
//! verdict is settled.
//!
//! # Spending rule
//!
//! A fixed-size evaluation injects only when the lower bound of Δ's two-sided interval at
//! level `1 − α` is above zero, so it wrongly injects a useless skill with probability at most
//! `α / 2`. Looking after each of up to `K` rounds gives `K` chances to be wrong, so the error
//! is split across the looks (a Haybittle–Peto-style split, made valid by the union bound):
//!
//! - the `K − 1` interim looks share a tenth of α equally: each uses a two-sided interval at
//!   level `1 − α / (10 (K − 1))` (99.875% for α = 0.05, K = 5), strict enough that only a
//!   clear effect stops early;
//! - the last look keeps the other nine tenths: level `1 − 0.9 α` (95.5%), close to the fixed
//!   design's 95%, so little power is lost when the evaluation runs to the end.
//!
//! The levels add up to α, so by the union bound the chance that *any* look wrongly settles
//! on inject is at most `α / 2`, whatever the correlation between looks: the sequential
//! verdict is at least as safe as the fixed one. With `K = 1` it is the fixed design.
//!
//! # Stopping for skip
//!
//! A look settles on skip when Δ's interval lies at or below the smallest gain worth
//! injecting (the gain is ruled out), and, as a non-binding futility rule, at an interim look
//! from the second on when Δ's point estimate is at or below that gain (the evidence points
//! the wrong way; a skill that helps rarely looks useless after two full rounds). Stopping
//! for skip only ever turns a possible inject into skip, so it never raises the wrong-inject
//! rate; the futility rule trades a little power for many fewer runs on useless skills.

use serde::{Deserialize, Serialize};

use super::{Interval, StatsOptions};

/// Share of α spent by the interim looks together; the last look keeps the rest.
const INTERIM_SHARE: f64 = 0.1;

/// Why a sequential plan or look is invalid.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SequentialError {
    /// A plan needs at least one look.
    #[error("a sequential evaluation needs at least one seed round")]
    NoLooks,
    /// Looks are numbered 1..=max_looks.
    #[error("look {look} is outside the plan's 1..={max_looks} seed rounds")]
    LookOutOfRange {
        /// The look asked for.
        look: u32,
        /// The plan's last look.
        max_looks: u32,
    },
    /// The overall confidence must be a probability strictly between 0 and 1.
    #[error("the confidence level must be strictly between 0 and 1, got {0}")]
    Confidence(f64),
}

/// The shape of a sequential evaluation: how many seed rounds at most, at what overall level.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SequentialPlan {
    max_looks: u32,
    confidence: f64,
}

impl SequentialPlan {
    /// A plan of at most `max_looks` seed rounds (`--max-seeds`) whose verdict keeps the
    /// error rate of a fixed evaluation at two-sided level `confidence`.
    pub fn new(max_looks: u32, confidence: f64) -> Result<Self, SequentialError> {
        if max_looks == 0 {
            return Err(SequentialError::NoLooks);
        }
        if !(confidence > 0.0 && confidence < 1.0) {
            return Err(SequentialError::Confidence(confidence));
        }
        Ok(Self {
            max_looks,
            confidence,
        })
    }

    /// The last look (the maximum number of seed rounds).
    pub fn max_looks(&self) -> u32 {
        self.max_looks
    }

    /// Two-sided confidence level of the interval at `look` (1-based); see the module docs.
    pub fn confidence_at(&self, look: u32) -> Result<f64, SequentialError> {
        self.check(look)?;
        let alpha = 1.0 - self.confidence;
        let spent = if self.max_looks == 1 {
            alpha
        } else if look < self.max_looks {
            alpha * INTERIM_SHARE / f64::from(self.max_looks - 1)
        } else {
            alpha * (1.0 - INTERIM_SHARE)
        };
        Ok(1.0 - spent)
    }

    /// The non-binding futility rule: at an interim look from the second on, a Δ estimate at
    /// or below `floor` (a fraction) stops with skip.
    pub fn futile(&self, look: u32, delta: &Interval, floor: f64) -> Result<bool, SequentialError> {
        Ok(look >= 2 && !self.is_last(look)? && delta.point <= floor)
    }

    /// The statistics options for `look`: `base` with the look's confidence level.
    pub fn options_at(
        &self,
        look: u32,
        base: &StatsOptions,
    ) -> Result<StatsOptions, SequentialError> {
        Ok(StatsOptions {
            confidence: self.confidence_at(look)?,
            ..*base
        })
    }

    /// Whether `look` is the last one allowed.
    pub fn is_last(&self, look: u32) -> Result<bool, SequentialError> {
        self.check(look)?;
        Ok(look == self.max_looks)
    }

    fn check(&self, look: u32) -> Result<(), SequentialError> {
        if look == 0 || look > self.max_looks {
            return Err(SequentialError::LookOutOfRange {
                look,
                max_looks: self.max_looks,
            });
        }
        Ok(())
    }
}

/// Where an interval lies relative to a threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settlement {
    /// Entirely above: the lower bound exceeds the threshold.
    Above,
    /// At or below: the upper bound does not exceed the threshold.
    Below,
    /// The interval straddles the threshold; more evidence could move it either way.
    Open,
}

/// Where `interval` lies relative to `threshold` (a fraction, like the interval).
pub fn settle(interval: &Interval, threshold: f64) -> Settlement {
    if interval.lo > threshold {
        Settlement::Above
    } else if interval.hi <= threshold {
        Settlement::Below
    } else {
        Settlement::Open
    }
}

/// What to do after a look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// The verdict is inject and further rounds cannot make it safer: stop.
    InjectSettled,
    /// The verdict is skip and further rounds cannot turn it into inject (or no rounds remain).
    SkipSettled,
    /// Run another seed round.
    Continue,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interval(lo: f64, hi: f64) -> Interval {
        Interval {
            point: (lo + hi) / 2.0,
            lo,
            hi,
            tasks: 1,
            pairs: 1,
        }
    }

    #[test]
    fn interim_looks_share_a_tenth_of_alpha_and_the_last_keeps_the_rest() {
        // alpha = 0.05, 5 looks: interim 1 - 0.05 / 10 / 4 = 0.99875, last 1 - 0.045.
        let plan = SequentialPlan::new(5, 0.95).unwrap();
        for look in 1..=4 {
            assert!((plan.confidence_at(look).unwrap() - 0.998_75).abs() < 1e-12);
        }
        assert!((plan.confidence_at(5).unwrap() - 0.955).abs() < 1e-12);
        // The levels spend exactly alpha in total.
        let spent: f64 = (1..=5).map(|k| 1.0 - plan.confidence_at(k).unwrap()).sum();
        assert!((spent - 0.05).abs() < 1e-12);
        assert_eq!(
            plan.confidence_at(6),
            Err(SequentialError::LookOutOfRange {
                look: 6,
                max_looks: 5
            })
        );
        assert!(plan.confidence_at(0).is_err());
    }

    #[test]
    fn one_look_is_the_fixed_design() {
        let plan = SequentialPlan::new(1, 0.95).unwrap();
        assert!((plan.confidence_at(1).unwrap() - 0.95).abs() < 1e-12);
    }

    #[test]
    fn futility_applies_to_interim_looks_from_the_second() {
        let plan = SequentialPlan::new(4, 0.95).unwrap();
        let flat = interval(-0.1, 0.1);
        assert!(
            !plan.futile(1, &flat, 0.0).unwrap(),
            "one round is too little to give up"
        );
        assert!(plan.futile(2, &flat, 0.0).unwrap());
        assert!(
            !plan.futile(4, &flat, 0.0).unwrap(),
            "the last look decides on its own"
        );
        assert!(!plan.futile(2, &interval(-0.05, 0.25), 0.0).unwrap());
        assert!(plan.futile(2, &interval(-0.05, 0.25), 0.1).unwrap());
    }

    #[test]
    fn bad_plans_are_refused() {
        assert_eq!(SequentialPlan::new(0, 0.95), Err(SequentialError::NoLooks));
        assert!(SequentialPlan::new(3, 1.0).is_err());
        assert!(SequentialPlan::new(3, f64::NAN).is_err());
    }

    #[test]
    fn settlement_is_strict_above_and_inclusive_below() {
        assert_eq!(settle(&interval(0.01, 0.2), 0.0), Settlement::Above);
        assert_eq!(settle(&interval(0.0, 0.2), 0.0), Settlement::Open);
        assert_eq!(settle(&interval(-0.2, 0.0), 0.0), Settlement::Below);
        assert_eq!(settle(&interval(-0.1, 0.04), 0.05), Settlement::Below);
    }
}

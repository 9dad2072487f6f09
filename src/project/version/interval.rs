//! Version ranges as unions of intervals over an ecosystem's own ordering.

/// One end of an interval: a version and whether it is included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound<V> {
    /// The version at the bound.
    pub version: V,
    /// Whether the bound itself is included.
    pub inclusive: bool,
}

/// The versions between two bounds; `None` is unbounded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Interval<V> {
    pub(crate) lower: Option<Bound<V>>,
    pub(crate) upper: Option<Bound<V>>,
}

impl<V: Ord + Clone> Interval<V> {
    /// Every version.
    pub(crate) fn any() -> Self {
        Self {
            lower: None,
            upper: None,
        }
    }

    /// Exactly one version.
    pub(crate) fn exactly(version: V) -> Self {
        Self::between(version.clone(), true, version, true)
    }

    /// `from` (inclusive or not) up to `to` (inclusive or not).
    pub(crate) fn between(from: V, from_inclusive: bool, to: V, to_inclusive: bool) -> Self {
        Self {
            lower: Some(Bound {
                version: from,
                inclusive: from_inclusive,
            }),
            upper: Some(Bound {
                version: to,
                inclusive: to_inclusive,
            }),
        }
    }

    /// `version` and above (or strictly above).
    pub(crate) fn at_least(version: V, inclusive: bool) -> Self {
        Self {
            lower: Some(Bound { version, inclusive }),
            upper: None,
        }
    }

    /// Below `version` (or up to and including it).
    pub(crate) fn below(version: V, inclusive: bool) -> Self {
        Self {
            lower: None,
            upper: Some(Bound { version, inclusive }),
        }
    }

    /// The versions in both intervals.
    pub(crate) fn intersect(self, other: Self) -> Self {
        let lower = tighter(self.lower, other.lower, std::cmp::Ordering::Greater);
        let upper = tighter(self.upper, other.upper, std::cmp::Ordering::Less);
        Self { lower, upper }
    }

    /// Whether `version` is inside.
    pub(crate) fn contains(&self, version: &V) -> bool {
        let above = self
            .lower
            .as_ref()
            .is_none_or(|b| version > &b.version || (b.inclusive && version == &b.version));
        let below = self
            .upper
            .as_ref()
            .is_none_or(|b| version < &b.version || (b.inclusive && version == &b.version));
        above && below
    }

    /// Whether no version can be inside.
    pub(crate) fn is_empty(&self) -> bool {
        match (&self.lower, &self.upper) {
            (Some(l), Some(u)) => {
                l.version > u.version || (l.version == u.version && !(l.inclusive && u.inclusive))
            }
            _ => false,
        }
    }

    /// Whether some version `>= floor` is inside.
    pub(crate) fn admits_at_least(&self, floor: &V) -> bool {
        !self.is_empty()
            && self
                .upper
                .as_ref()
                .is_none_or(|u| &u.version > floor || (u.inclusive && &u.version == floor))
    }

    /// Whether some version `< ceiling` is inside.
    pub(crate) fn admits_below(&self, ceiling: &V) -> bool {
        !self.is_empty() && self.lower.as_ref().is_none_or(|l| &l.version < ceiling)
    }
}

/// The stricter of two bounds: `prefer` says which direction is stricter.
fn tighter<V: Ord>(
    a: Option<Bound<V>>,
    b: Option<Bound<V>>,
    prefer: std::cmp::Ordering,
) -> Option<Bound<V>> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => Some(match a.version.cmp(&b.version) {
            std::cmp::Ordering::Equal => Bound {
                inclusive: a.inclusive && b.inclusive,
                ..a
            },
            order if order == prefer => a,
            _ => b,
        }),
    }
}

/// A union of intervals, with versions excluded one by one (`!=`).
#[derive(Debug, Clone)]
pub(crate) struct Ranges<V> {
    pub(crate) intervals: Vec<Interval<V>>,
    pub(crate) excluded: Vec<V>,
}

impl<V: Ord + Clone> Ranges<V> {
    /// A single interval.
    pub(crate) fn one(interval: Interval<V>) -> Self {
        Self {
            intervals: vec![interval],
            excluded: Vec::new(),
        }
    }

    /// Whether `version` is admitted.
    pub(crate) fn contains(&self, version: &V) -> bool {
        !self.excluded.contains(version) && self.intervals.iter().any(|i| i.contains(version))
    }

    /// Whether some version `>= floor` is admitted.
    pub(crate) fn admits_at_least(&self, floor: &V) -> bool {
        self.intervals.iter().any(|i| i.admits_at_least(floor))
    }

    /// Whether some version `< ceiling` is admitted.
    pub(crate) fn admits_below(&self, ceiling: &V) -> bool {
        self.intervals.iter().any(|i| i.admits_below(ceiling))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intersection_and_questions() {
        let range = Interval::at_least(3, true).intersect(Interval::below(5, false));
        assert!(range.contains(&3) && range.contains(&4) && !range.contains(&5));
        assert!(range.admits_below(&4) && !range.admits_below(&3));
        assert!(range.admits_at_least(&4) && !range.admits_at_least(&5));
        assert!(Interval::between(5, true, 5, false).is_empty());
        assert!(!Interval::exactly(5).is_empty());
    }
}

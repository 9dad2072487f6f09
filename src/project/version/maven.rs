//! Maven version ordering (as `ComparableVersion` defines it) and version ranges.
//!
//! Also used for NuGet, whose versions and interval notation order the same way for
//! the releases and prereleases projects write.

use std::cmp::Ordering;

use super::interval::{Interval, Ranges};

/// One item of a parsed version: a number or a qualifier.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    Number(u64),
    Qualifier(String),
}

/// A Maven version, ordered as Maven orders it.
#[derive(Debug, Clone)]
pub(crate) struct MavenVersion {
    items: Vec<Item>,
}

impl MavenVersion {
    /// Parses any string: Maven accepts every string as a version.
    pub(crate) fn parse(text: &str) -> Self {
        let mut items = Vec::new();
        for token in tokens(&text.trim().to_ascii_lowercase()) {
            items.push(match token.parse::<u64>() {
                Ok(n) => Item::Number(n),
                Err(_) => Item::Qualifier(canonical_qualifier(&token)),
            });
        }
        while items.last().is_some_and(is_null) {
            items.pop();
        }
        Self { items }
    }
}

/// Splits at `.`, `-`, `_` and at every change between digits and letters.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        let boundary = matches!(c, '.' | '-' | '_');
        let switch = current
            .chars()
            .last()
            .is_some_and(|last| last.is_ascii_digit() != c.is_ascii_digit());
        if (boundary || switch) && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        if !boundary {
            current.push(c);
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn canonical_qualifier(token: &str) -> String {
    match token {
        "a" => "alpha",
        "b" => "beta",
        "m" => "milestone",
        "cr" => "rc",
        "ga" | "final" | "release" => "",
        other => other,
    }
    .to_string()
}

/// Items equal to the absence of an item (`1.0` = `1` = `1-final`).
fn is_null(item: &Item) -> bool {
    match item {
        Item::Number(n) => *n == 0,
        Item::Qualifier(q) => q.is_empty(),
    }
}

/// Known qualifiers rank in this order, releases (`""`) before `sp`; others rank after all
/// known ones, by their text.
fn qualifier_rank(qualifier: &str) -> (u8, &str) {
    let rank = match qualifier {
        "alpha" => 0,
        "beta" => 1,
        "milestone" => 2,
        "rc" => 3,
        "snapshot" => 4,
        "" => 5,
        "sp" => 6,
        _ => return (7, qualifier),
    };
    (rank, "")
}

fn compare_items(a: Option<&Item>, b: Option<&Item>) -> Ordering {
    let null = Item::Qualifier(String::new());
    let zero = Item::Number(0);
    let (a, b) = match (a, b) {
        (Some(a), None) => (
            a,
            if matches!(a, Item::Number(_)) {
                &zero
            } else {
                &null
            },
        ),
        (None, Some(b)) => (
            if matches!(b, Item::Number(_)) {
                &zero
            } else {
                &null
            },
            b,
        ),
        (Some(a), Some(b)) => (a, b),
        (None, None) => return Ordering::Equal,
    };
    match (a, b) {
        (Item::Number(x), Item::Number(y)) => x.cmp(y),
        (Item::Qualifier(x), Item::Qualifier(y)) => qualifier_rank(x).cmp(&qualifier_rank(y)),
        // A number after a release is a later release; a qualifier is a prerelease.
        (Item::Number(_), Item::Qualifier(_)) => Ordering::Greater,
        (Item::Qualifier(_), Item::Number(_)) => Ordering::Less,
    }
}

impl Ord for MavenVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        let len = self.items.len().max(other.items.len());
        (0..len)
            .map(|i| compare_items(self.items.get(i), other.items.get(i)))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    }
}

impl PartialOrd for MavenVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for MavenVersion {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for MavenVersion {}

/// Parses a Maven/NuGet constraint. A bare version means `soft`: exactly that version for
/// Maven (what it resolves to), at least that version for NuGet.
pub(crate) fn parse_ranges(
    constraint: &str,
    bare_is_minimum: bool,
) -> Option<Ranges<MavenVersion>> {
    let constraint = constraint.trim();
    if constraint.is_empty() || constraint.contains("${") || constraint.contains("$(") {
        return None;
    }
    if !constraint.starts_with(['[', '(']) {
        let version = MavenVersion::parse(constraint);
        let interval = if bare_is_minimum {
            Interval::at_least(version, true)
        } else {
            Interval::exactly(version)
        };
        return Some(Ranges::one(interval));
    }
    let mut intervals = Vec::new();
    let mut rest = constraint;
    while !rest.is_empty() {
        let end = rest.find([']', ')'])?;
        intervals.push(parse_interval(&rest[..=end])?);
        rest = rest[end + 1..].trim_start_matches([',', ' ']);
    }
    Some(Ranges {
        intervals,
        excluded: Vec::new(),
    })
}

/// `[1.0,2.0)`, `[1.0,)`, `(,1.0]`, `[1.5]`.
fn parse_interval(text: &str) -> Option<Interval<MavenVersion>> {
    let lower_inclusive = text.starts_with('[');
    let upper_inclusive = text.ends_with(']');
    let inner = text.strip_prefix(['[', '('])?.strip_suffix([']', ')'])?;
    let Some((low, high)) = inner.split_once(',') else {
        return Some(Interval::exactly(MavenVersion::parse(inner)));
    };
    let (low, high) = (low.trim(), high.trim());
    let lower =
        (!low.is_empty()).then(|| Interval::at_least(MavenVersion::parse(low), lower_inclusive));
    let upper =
        (!high.is_empty()).then(|| Interval::below(MavenVersion::parse(high), upper_inclusive));
    Some(match (lower, upper) {
        (Some(l), Some(u)) => l.intersect(u),
        (Some(one), None) | (None, Some(one)) => one,
        (None, None) => Interval::any(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(a: &str, b: &str) -> Ordering {
        MavenVersion::parse(a).cmp(&MavenVersion::parse(b))
    }

    #[test]
    fn qualifiers_order_as_maven_does() {
        let ascending = [
            "1.0-alpha1",
            "1.0-alpha2",
            "1.0-beta",
            "1.0-M1",
            "1.0-RC1",
            "1.0-RC2",
            "1.0-SNAPSHOT",
            "1.0",
            "1.0-sp",
            "1.0-zeta",
            "1.0.1",
            "1.1",
            "1.9",
            "1.10",
            "2.0",
        ];
        for pair in ascending.windows(2) {
            assert_eq!(
                order(pair[0], pair[1]),
                Ordering::Less,
                "{} < {}",
                pair[0],
                pair[1]
            );
        }
    }

    #[test]
    fn release_spellings_are_equal() {
        assert_eq!(order("1.0", "1"), Ordering::Equal);
        assert_eq!(order("1.0.0", "1.0-final"), Ordering::Equal);
        assert_eq!(order("3.2.0.RELEASE", "3.2.0"), Ordering::Equal);
        assert_eq!(order("1.0-cr1", "1.0-rc1"), Ordering::Equal);
    }

    #[test]
    fn ranges() {
        let range = parse_ranges("[1.0,2.0)", false).unwrap();
        assert!(range.contains(&MavenVersion::parse("1.5")));
        assert!(!range.contains(&MavenVersion::parse("2.0")));
        assert!(range.contains(&MavenVersion::parse("1.0")));
        let union = parse_ranges("(,1.0],[1.2,)", false).unwrap();
        assert!(union.contains(&MavenVersion::parse("0.9")));
        assert!(!union.contains(&MavenVersion::parse("1.1")));
        assert!(union.contains(&MavenVersion::parse("5")));
        let soft = parse_ranges("3.2.0", false).unwrap();
        assert!(soft.contains(&MavenVersion::parse("3.2")));
        assert!(!soft.contains(&MavenVersion::parse("3.2.1")));
        let nuget = parse_ranges("6.0.1", true).unwrap();
        assert!(nuget.contains(&MavenVersion::parse("7.0.0")));
        assert!(parse_ranges("${spring.version}", false).is_none());
    }
}

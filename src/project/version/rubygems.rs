//! RubyGems versions and requirements (`~>`, `>=`, `!=`, ...).

use std::cmp::Ordering;

use super::interval::{Interval, Ranges};

/// One segment: numbers rank above strings, so `1.0.a` (a prerelease) is below `1.0`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Number(u64),
    Text(String),
}

/// A gem version, ordered as RubyGems orders it.
#[derive(Debug, Clone)]
pub(crate) struct GemVersion {
    segments: Vec<Segment>,
}

impl GemVersion {
    /// Parses `1.2.3`, `1.0.0.pre2`, `1.0.0-rc1`; `None` for anything else.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        let text = text.trim().replace('-', ".pre.");
        if text.is_empty() || !text.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        let mut segments = Vec::new();
        for part in text.split('.') {
            split_digits(part, &mut segments)?;
        }
        Some(Self { segments })
    }

    fn is_prerelease(&self) -> bool {
        self.segments.iter().any(|s| matches!(s, Segment::Text(_)))
    }

    /// `~>` upper bound: drop the last release segment and bump the one before
    /// (`2.3.1` -> `2.4`, `2.3` -> `3`, `2` -> `3`).
    fn bump(&self) -> Self {
        let mut numbers: Vec<u64> = self
            .segments
            .iter()
            .map_while(|s| match s {
                Segment::Number(n) => Some(*n),
                Segment::Text(_) => None,
            })
            .collect();
        if numbers.len() > 1 {
            numbers.pop();
        }
        if let Some(last) = numbers.last_mut() {
            *last += 1;
        }
        Self {
            segments: numbers.into_iter().map(Segment::Number).collect(),
        }
    }
}

fn split_digits(part: &str, segments: &mut Vec<Segment>) -> Option<()> {
    let mut rest = part;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if digits > 0 {
            segments.push(Segment::Number(rest[..digits].parse().ok()?));
            rest = &rest[digits..];
        } else {
            let letters = rest
                .find(|c: char| c.is_ascii_digit())
                .unwrap_or(rest.len());
            if !rest[..letters].chars().all(|c| c.is_ascii_alphanumeric()) {
                return None;
            }
            segments.push(Segment::Text(rest[..letters].to_string()));
            rest = &rest[letters..];
        }
    }
    Some(())
}

impl Ord for GemVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        let zero = Segment::Number(0);
        let len = self.segments.len().max(other.segments.len());
        (0..len)
            .map(|i| {
                let a = self.segments.get(i).unwrap_or(&zero);
                let b = other.segments.get(i).unwrap_or(&zero);
                match (a, b) {
                    (Segment::Number(x), Segment::Number(y)) => x.cmp(y),
                    (Segment::Text(x), Segment::Text(y)) => x.cmp(y),
                    (Segment::Number(_), Segment::Text(_)) => Ordering::Greater,
                    (Segment::Text(_), Segment::Number(_)) => Ordering::Less,
                }
            })
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    }
}

impl PartialOrd for GemVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for GemVersion {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for GemVersion {}

/// Parses a requirement list such as `~> 7.1, >= 7.1.2`.
pub(crate) fn parse_ranges(constraint: &str) -> Option<Ranges<GemVersion>> {
    let mut interval = Interval::any();
    let mut excluded = Vec::new();
    for part in constraint.split(',') {
        let part = part.trim();
        let op_len = part
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(part.len());
        let (op, version) = (part[..op_len].trim(), GemVersion::parse(&part[op_len..])?);
        let next = match op {
            "~>" => {
                let upper = version.bump();
                Interval::at_least(version, true).intersect(Interval::below(upper, false))
            }
            "" | "=" => Interval::exactly(version),
            ">=" => Interval::at_least(version, true),
            ">" => Interval::at_least(version, false),
            "<=" => Interval::below(version, true),
            "<" => Interval::below(version, false),
            "!=" => {
                excluded.push(version);
                continue;
            }
            _ => return None,
        };
        interval = interval.intersect(next);
    }
    Some(Ranges {
        intervals: vec![interval],
        excluded,
    })
}

/// Whether `version` meets the requirement; prereleases only meet requirements that name
/// a prerelease, as in RubyGems.
pub(crate) fn satisfies(constraint: &str, version: &str) -> Option<bool> {
    let ranges = parse_ranges(constraint)?;
    let version = GemVersion::parse(version)?;
    let names_prerelease = constraint.chars().any(|c| c.is_ascii_alphabetic());
    Some(ranges.contains(&version) && (!version.is_prerelease() || names_prerelease))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> GemVersion {
        GemVersion::parse(text).unwrap()
    }

    #[test]
    fn ordering_puts_prereleases_first() {
        assert!(v("1.0.0.pre1") < v("1.0.0"));
        assert!(v("1.0.0-rc1") < v("1.0.0"));
        assert!(v("1.0.0.pre1") < v("1.0.0.pre2"));
        assert!(v("1.10") > v("1.9"));
        assert_eq!(v("1.0"), v("1.0.0"));
    }

    #[test]
    fn pessimistic_operator() {
        assert_eq!(satisfies("~> 2.3", "2.9.1"), Some(true));
        assert_eq!(satisfies("~> 2.3", "3.0"), Some(false));
        assert_eq!(satisfies("~> 2.3.1", "2.3.9"), Some(true));
        assert_eq!(satisfies("~> 2.3.1", "2.4.0"), Some(false));
        assert_eq!(satisfies("~> 2.3.1", "2.3.0"), Some(false));
        assert_eq!(satisfies("~> 2", "2.99"), Some(true));
        assert_eq!(satisfies("~> 2", "3.0"), Some(false));
    }

    #[test]
    fn compound_requirements_and_prereleases() {
        assert_eq!(satisfies("~> 1.1, >= 1.1.4", "1.1.3"), Some(false));
        assert_eq!(satisfies("~> 1.1, >= 1.1.4", "1.5"), Some(true));
        assert_eq!(satisfies(">= 1, != 1.2", "1.2"), Some(false));
        assert_eq!(satisfies(">= 7", "8.0.0.rc1"), Some(false));
        assert_eq!(satisfies(">= 8.0.0.beta", "8.0.0.rc1"), Some(true));
        assert_eq!(satisfies("~> x", "1"), None);
    }
}

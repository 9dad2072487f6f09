//! PEP 440 versions and specifiers (through `pep440_rs`), plus Poetry's `^`/`~`/bare
//! constraints, which Poetry projects write in the same place.

use std::str::FromStr;

use pep440_rs::{Operator, Version, VersionSpecifiers};

use super::interval::{Interval, Ranges};

/// Parses a PEP 440 version.
pub(crate) fn parse_version(text: &str) -> Option<Version> {
    Version::from_str(text.trim()).ok()
}

/// The alternatives of a constraint (`||` separates them in Poetry), each as PEP 440
/// specifiers.
fn alternatives(constraint: &str) -> Option<Vec<VersionSpecifiers>> {
    constraint
        .split("||")
        .map(|alternative| VersionSpecifiers::from_str(&to_pep440(alternative)?).ok())
        .collect()
}

/// Rewrites Poetry syntax into PEP 440: `^1.2` -> `>=1.2,<2`, `~1.2` -> `>=1.2,<1.3`,
/// `1.2.3` -> `==1.2.3`, `*` -> any. PEP 440 text passes through unchanged.
fn to_pep440(constraint: &str) -> Option<String> {
    let parts: Option<Vec<String>> = constraint
        .split([',', ' '])
        .map(str::trim)
        .filter(|p| !p.is_empty() && *p != "*")
        .map(|part| {
            if let Some(v) = part.strip_prefix('^') {
                bounded(v, caret_upper(&release(v)?))
            } else if let Some(v) = part.strip_prefix('~').filter(|v| !v.starts_with('=')) {
                bounded(v, tilde_upper(&release(v)?))
            } else if part.starts_with(|c: char| c.is_ascii_digit()) {
                Some(format!("=={part}"))
            } else {
                Some(part.to_string())
            }
        })
        .collect();
    Some(parts?.join(","))
}

fn release(version: &str) -> Option<Vec<u64>> {
    Some(parse_version(version)?.release().to_vec())
}

fn bounded(lower: &str, upper: Vec<u64>) -> Option<String> {
    let upper: Vec<String> = upper.iter().map(u64::to_string).collect();
    Some(format!(">={lower},<{}", upper.join(".")))
}

/// `^1.2.3` -> `2`, `^0.2.3` -> `0.3`, `^0.0.3` -> `0.0.4`, `^0` -> `1`.
fn caret_upper(release: &[u64]) -> Vec<u64> {
    let first = release
        .iter()
        .position(|&n| n != 0)
        .unwrap_or(release.len().saturating_sub(1));
    let mut upper: Vec<u64> = release.iter().take(first + 1).copied().collect();
    if let Some(last) = upper.last_mut() {
        *last += 1;
    }
    upper
}

/// `~1.2.3` -> `1.3`, `~1.2` -> `1.3`, `~1` -> `2`.
fn tilde_upper(release: &[u64]) -> Vec<u64> {
    let keep = if release.len() > 1 { 2 } else { 1 };
    let mut upper: Vec<u64> = release.iter().take(keep).copied().collect();
    if let Some(last) = upper.last_mut() {
        *last += 1;
    }
    upper
}

/// Whether `version` meets the constraint, with PEP 440's own prerelease rules.
pub(crate) fn satisfies(constraint: &str, version: &str) -> Option<bool> {
    let version = parse_version(version)?;
    Some(
        alternatives(constraint)?
            .iter()
            .any(|a| a.contains(&version)),
    )
}

/// The constraint as intervals, for questions about the versions it admits.
pub(crate) fn parse_ranges(constraint: &str) -> Option<Ranges<Version>> {
    let mut intervals = Vec::new();
    let mut excluded = Vec::new();
    for specifiers in alternatives(constraint)? {
        let mut interval = Interval::any();
        for specifier in specifiers.iter() {
            let version = specifier.version().clone();
            let next = match specifier.operator() {
                Operator::Equal | Operator::ExactEqual => Interval::exactly(version),
                Operator::EqualStar => star_interval(&version, version.release().len()),
                Operator::TildeEqual => {
                    star_interval(&version, version.release().len().saturating_sub(1))
                        .intersect(Interval::at_least(version, true))
                }
                Operator::GreaterThanEqual => Interval::at_least(version, true),
                Operator::GreaterThan => Interval::at_least(version, false),
                Operator::LessThanEqual => Interval::below(version, true),
                Operator::LessThan => Interval::below(version, false),
                Operator::NotEqual => {
                    excluded.push(version);
                    continue;
                }
                Operator::NotEqualStar => continue,
            };
            interval = interval.intersect(next);
        }
        intervals.push(interval);
    }
    Some(Ranges {
        intervals,
        excluded,
    })
}

/// The versions starting with the first `keep` release numbers of `version`
/// (`==1.2.*` keeps 2): from `1.2.dev0` up to, not including, `1.3.dev0`.
fn star_interval(version: &Version, keep: usize) -> Interval<Version> {
    let prefix: Vec<u64> = version
        .release()
        .iter()
        .take(keep.max(1))
        .copied()
        .collect();
    let mut upper = prefix.clone();
    if let Some(last) = upper.last_mut() {
        *last += 1;
    }
    let epoch = version.epoch();
    let lower = Version::new(prefix).with_epoch(epoch).with_dev(Some(0));
    let upper = Version::new(upper).with_epoch(epoch).with_dev(Some(0));
    Interval::between(lower, true, upper, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poetry_constraints_become_pep440() {
        assert_eq!(to_pep440("^1.2.3").as_deref(), Some(">=1.2.3,<2"));
        assert_eq!(to_pep440("^0.2.3").as_deref(), Some(">=0.2.3,<0.3"));
        assert_eq!(to_pep440("^0.0.3").as_deref(), Some(">=0.0.3,<0.0.4"));
        assert_eq!(to_pep440("~1.2").as_deref(), Some(">=1.2,<1.3"));
        assert_eq!(to_pep440("1.2.*").as_deref(), Some("==1.2.*"));
        assert_eq!(to_pep440(">=3.9,<4").as_deref(), Some(">=3.9,<4"));
        assert_eq!(to_pep440("*").as_deref(), Some(""));
    }

    #[test]
    fn satisfies_follows_pep440() {
        assert_eq!(satisfies(">=3.9", "3.12.1"), Some(true));
        assert_eq!(satisfies("~=1.4.2", "1.4.9"), Some(true));
        assert_eq!(satisfies("~=1.4.2", "1.5.0"), Some(false));
        assert_eq!(satisfies("==2.*", "2.1.post1"), Some(true));
        // Epochs order before everything else.
        assert_eq!(satisfies(">=2020.1", "1!1.0"), Some(true));
        assert_eq!(satisfies("<2", "1!1.0"), Some(false));
        // Containment itself admits prereleases; excluding them is an installer's policy, and
        // a prerelease already in a lockfile was admitted by one.
        assert_eq!(satisfies(">=1.0", "2.0.dev1"), Some(true));
        // But `<2.0` excludes 2.0's own prereleases (PEP 440's exclusive ordered comparison).
        assert_eq!(satisfies("<2.0", "2.0.dev1"), Some(false));
        assert_eq!(satisfies(">=2.0", "2.0.dev1"), Some(false));
        assert_eq!(satisfies("^3.8", "3.12"), Some(true));
        assert_eq!(satisfies("^3.8 || ^4.0", "4.1"), Some(true));
        assert_eq!(satisfies("!!", "1"), None);
    }

    #[test]
    fn ranges_answer_floor_and_ceiling_questions() {
        let project = parse_ranges(">=3.9").unwrap();
        let v312 = parse_version("3.12").unwrap();
        assert!(project.admits_below(&v312));
        let strict = parse_ranges(">=3.12,<4").unwrap();
        assert!(!strict.admits_below(&v312));
        assert!(strict.admits_at_least(&v312));
        let compatible = parse_ranges("~=2.2").unwrap();
        assert!(!compatible.admits_at_least(&parse_version("3.0").unwrap()));
        assert!(compatible.admits_at_least(&parse_version("2.9").unwrap()));
        let post = parse_ranges("==1.0.post1").unwrap();
        assert!(post.contains(&parse_version("1.0.post1").unwrap()));
        assert!(!post.contains(&parse_version("1.0").unwrap()));
    }
}

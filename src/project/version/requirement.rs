//! What a requirement written by a person means: `18`, `>= 20`, `3.12+`, `^1`, `2.x`,
//! `~=1.4`, `>=1,<2`, read as an interval of [`Release`]s. A bare version means what the
//! tool it was written for makes of it ([`Dialect`]).

use std::fmt;

use super::interval::Bound;
use crate::project::Ecosystem;

/// One end of a requirement's interval.
pub type ReleaseBound = Bound<Release>;

/// The meaning of a version requirement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requirement {
    /// No version: the package is used, at whatever version.
    Any,
    /// Exactly this version (`==1.2.3`, `go get x@v1.2.3`).
    Exact(Release),
    /// Every version starting with these components ("React 18", "Django 3.2", "2.x", "v2").
    Series(Release),
    /// This version or later (`>=20`, "3.12+", "18 or later").
    AtLeast(Release),
    /// Compatible updates: the first non-zero component is fixed (`^1.2`, Cargo's `1.2`).
    Caret(Release),
    /// Any other interval (`>=1,<2`, `~1.2`, `~=1.4`, `~> 2.1`, `<3`, `1.0 - 2.0`).
    Range {
        /// The lower bound, if any.
        min: Option<ReleaseBound>,
        /// The upper bound, if any.
        max: Option<ReleaseBound>,
    },
    /// A form skillgate does not normalise (`1 || 2`, Maven `[1.0,2.0)`); only `written`
    /// says what it means.
    Unparsed,
}

/// A release number: numeric components, compared with missing components as zero.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// The components (`3.12` -> `[3, 12]`).
    pub parts: Vec<u64>,
}

impl Release {
    /// Parses `1`, `1.2`, `v1.2.3`; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim().trim_start_matches(['v', 'V']);
        let parts: Option<Vec<u64>> = text
            .split('.')
            .map(|part| {
                let digits =
                    !part.is_empty() && part.len() <= 9 && part.bytes().all(|b| b.is_ascii_digit());
                digits.then(|| part.parse().ok()).flatten()
            })
            .collect();
        parts
            .filter(|p| !p.is_empty() && p.len() <= 4)
            .map(|parts| Self { parts })
    }

    /// The release a ref or tag starts with: `v4.1` -> `4.1`, `3.12-slim` -> `3.12`,
    /// `20240101123456` -> itself; `None` when it does not start with a number.
    pub fn leading(text: &str) -> Option<Self> {
        let text = text.trim().trim_start_matches('v');
        let end = text
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(text.len());
        let parts: Option<Vec<u64>> = text[..end].split('.').map(|n| n.parse().ok()).collect();
        parts.filter(|p| !p.is_empty()).map(|parts| Self { parts })
    }

    fn component(&self, index: usize) -> u64 {
        self.parts.get(index).copied().unwrap_or(0)
    }

    /// The first version after every version of this series (`3.2` -> `3.3`).
    fn next_series(&self) -> Self {
        let mut parts = self.parts.clone();
        if let Some(last) = parts.last_mut() {
            *last = last.saturating_add(1);
        }
        Self { parts }
    }

    /// The first version a caret excludes (`1.2` -> `2`, `0.2` -> `0.3`, `0.0.3` -> `0.0.4`).
    fn next_caret(&self) -> Self {
        let Some(last) = self.parts.len().checked_sub(1) else {
            return self.clone();
        };
        let fixed = self.parts.iter().position(|&p| p != 0).unwrap_or(last);
        let mut parts = self.parts[..=fixed].to_vec();
        if let Some(last) = parts.last_mut() {
            *last = last.saturating_add(1);
        }
        Self { parts }
    }
}

impl PartialOrd for Release {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Release {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let len = self.parts.len().max(other.parts.len());
        (0..len)
            .map(|i| self.component(i).cmp(&other.component(i)))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.parts.iter().map(u64::to_string).collect();
        f.write_str(&parts.join("."))
    }
}

impl Requirement {
    /// The meaning of `text` read in `dialect`; `None` when it is not a form skillgate
    /// reads (`1 || 2`, Maven's `[1.0,2.0)`).
    pub fn parse(text: &str, dialect: Dialect) -> Option<Self> {
        requirement(text.trim(), dialect)
    }

    /// The interval of versions the requirement allows; `None` for [`Self::Any`] and
    /// [`Self::Unparsed`], whose interval is unbounded or unknown.
    pub fn bounds(&self) -> Option<(Option<ReleaseBound>, Option<ReleaseBound>)> {
        let inclusive = |version: &Release| {
            Some(Bound {
                version: version.clone(),
                inclusive: true,
            })
        };
        let exclusive = |version: Release| {
            Some(Bound {
                version,
                inclusive: false,
            })
        };
        match self {
            Self::Any | Self::Unparsed => None,
            Self::Exact(v) => Some((inclusive(v), inclusive(v))),
            Self::Series(v) => Some((inclusive(v), exclusive(v.next_series()))),
            Self::AtLeast(v) => Some((inclusive(v), None)),
            Self::Caret(v) => Some((inclusive(v), exclusive(v.next_caret()))),
            Self::Range { min, max } => Some((min.clone(), max.clone())),
        }
    }
}

/// Which syntax a version text follows: a bare `1.2` means different things per tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Prose, npm, Docker tags and Actions refs: a bare version is a series (`18` = 18.x).
    Series,
    /// Cargo: a bare version is a caret requirement.
    Cargo,
    /// pip, gem, Go, Maven, Composer: a bare version is exact.
    Exact,
    /// `rust-version`, NuGet: a bare version is a minimum.
    Minimum,
}

impl Dialect {
    /// How a manifest of the ecosystem reads a bare version: a caret in Cargo, a minimum
    /// in NuGet, a series in npm and for runtimes, exact elsewhere.
    pub fn of(ecosystem: Ecosystem) -> Self {
        match ecosystem {
            Ecosystem::Cargo => Self::Cargo,
            Ecosystem::Nuget => Self::Minimum,
            Ecosystem::Npm | Ecosystem::Runtime => Self::Series,
            _ => Self::Exact,
        }
    }
}

/// The meaning of one requirement text; `None` when it is not a form skillgate reads.
fn requirement(text: &str, dialect: Dialect) -> Option<Requirement> {
    if matches!(text, "" | "*" | "latest" | "x") {
        return Some(Requirement::Any);
    }
    if text.contains("||") || text.starts_with(['[', '(']) {
        return None;
    }
    if let Some((low, high)) = text.split_once(" - ") {
        let min = Some(Bound {
            version: Release::parse(low)?,
            inclusive: true,
        });
        let max = Some(Bound {
            version: Release::parse(high)?,
            inclusive: true,
        });
        return Some(Requirement::Range { min, max });
    }
    let parts: Vec<&str> = text
        .split([',', ' '])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    match parts.as_slice() {
        [one] => single(one, dialect),
        // `>= 20` written with a space, or `~> 2.1`.
        [op, version] if op.bytes().all(|b| b"<>=!~^".contains(&b)) => {
            single(&format!("{op}{version}"), dialect)
        }
        many => intersect(
            many.iter()
                .map(|p| single(p, dialect))
                .collect::<Option<Vec<_>>>()?,
        ),
    }
}

/// One comparator: `>=1.2`, `^1`, `~1.2`, `~=1.4`, `~>2.1`, `==1.*`, `1.x`, `3.12+`, `1.2`.
fn single(text: &str, dialect: Dialect) -> Option<Requirement> {
    let op_len = text
        .find(|c: char| !"<>=!~^".contains(c))
        .unwrap_or(text.len());
    let (op, rest) = text.split_at(op_len);
    let rest = rest.trim();
    if let Some(at_least) = rest.strip_suffix('+').filter(|_| op.is_empty()) {
        return Some(Requirement::AtLeast(Release::parse(at_least)?));
    }
    let series = rest
        .strip_suffix(".x")
        .or_else(|| rest.strip_suffix(".*"))
        .or_else(|| rest.strip_suffix(".X"));
    if let Some(series) = series.filter(|_| matches!(op, "" | "==" | "=")) {
        return Some(Requirement::Series(Release::parse(series)?));
    }
    let version = Release::parse(rest)?;
    let bound = |inclusive| {
        Some(Bound {
            version: version.clone(),
            inclusive,
        })
    };
    let requirement = match op {
        "" => match dialect {
            Dialect::Series => Requirement::Series(version),
            Dialect::Cargo => Requirement::Caret(version),
            Dialect::Exact => Requirement::Exact(version),
            Dialect::Minimum => Requirement::AtLeast(version),
        },
        "=" | "==" | "===" => Requirement::Exact(version),
        ">=" | "=>" => Requirement::AtLeast(version),
        ">" => Requirement::Range {
            min: bound(false),
            max: None,
        },
        "<=" => Requirement::Range {
            min: None,
            max: bound(true),
        },
        "<" => Requirement::Range {
            min: None,
            max: bound(false),
        },
        "^" => Requirement::Caret(version),
        // npm/Cargo `~1.2`: patch updates only (`~1` allows minors).
        "~" => Requirement::Range {
            max: exclusive(tilde_end(&version, 2)),
            min: bound(true),
        },
        // PEP 440 `~=1.4` and RubyGems `~> 1.4`: the last component may grow.
        "~=" | "~>" if version.parts.len() >= 2 => {
            let end = tilde_end(&version, version.parts.len() - 1);
            Requirement::Range {
                min: bound(true),
                max: exclusive(end),
            }
        }
        _ => return None,
    };
    Some(requirement)
}

fn exclusive(version: Release) -> Option<ReleaseBound> {
    Some(Bound {
        version,
        inclusive: false,
    })
}

/// The end of a tilde range: components after `keep` dropped, the last kept one bumped.
fn tilde_end(version: &Release, keep: usize) -> Release {
    let keep = keep.min(version.parts.len()).max(1);
    Release {
        parts: version.parts[..keep].to_vec(),
    }
    .next_series()
}

/// The intersection of comparators (`>=1,<2`); `None` if one is not an interval.
fn intersect(parts: Vec<Requirement>) -> Option<Requirement> {
    let mut min: Option<ReleaseBound> = None;
    let mut max: Option<ReleaseBound> = None;
    for part in parts {
        let (low, high) = part.bounds()?;
        if let Some(low) = low.filter(|l| min.as_ref().is_none_or(|m| l.version > m.version)) {
            min = Some(low);
        }
        if let Some(high) = high.filter(|h| max.as_ref().is_none_or(|m| h.version < m.version)) {
            max = Some(high);
        }
    }
    Some(Requirement::Range { min, max })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Release {
        Release::parse(text).expect("test version parses")
    }

    fn read(written: &str, dialect: Dialect) -> Requirement {
        Requirement::parse(written, dialect).unwrap_or(Requirement::Unparsed)
    }

    #[test]
    fn requirement_forms_normalise() {
        use Requirement::*;
        let at = |v: &str, inclusive| {
            Some(Bound {
                version: Release::parse(v).expect("bound"),
                inclusive,
            })
        };
        let cases = [
            ("==1.2", Dialect::Exact, Exact(v("1.2"))),
            (">=2", Dialect::Exact, AtLeast(v("2"))),
            (
                ">=1,<2",
                Dialect::Exact,
                Range {
                    min: at("1", true),
                    max: at("2", false),
                },
            ),
            ("^1.2", Dialect::Series, Caret(v("1.2"))),
            ("1.2", Dialect::Cargo, Caret(v("1.2"))),
            ("18", Dialect::Series, Series(v("18"))),
            ("2.x", Dialect::Series, Series(v("2"))),
            (
                "~1.2.3",
                Dialect::Series,
                Range {
                    min: at("1.2.3", true),
                    max: at("1.3", false),
                },
            ),
            (
                "~=1.4",
                Dialect::Exact,
                Range {
                    min: at("1.4", true),
                    max: at("2", false),
                },
            ),
            (
                "~> 2.1",
                Dialect::Exact,
                Range {
                    min: at("2.1", true),
                    max: at("3", false),
                },
            ),
            ("v1.9.1", Dialect::Exact, Exact(v("1.9.1"))),
            (
                "1.0 - 2.0",
                Dialect::Series,
                Range {
                    min: at("1.0", true),
                    max: at("2.0", true),
                },
            ),
            ("1 || 2", Dialect::Series, Unparsed),
            ("[1.0,2.0)", Dialect::Exact, Unparsed),
            ("*", Dialect::Series, Any),
        ];
        for (written, dialect, kind) in cases {
            assert_eq!(read(written, dialect), kind, "{written}");
        }
    }
}

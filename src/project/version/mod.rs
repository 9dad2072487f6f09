//! Version semantics per ecosystem: does a version meet a constraint, how do two versions
//! order, and which versions can a constraint admit.
//!
//! Every function answers `None` when it cannot parse its input in the ecosystem's own
//! syntax (`latest`, a git URL, a `${placeholder}`): "unknown" is never "no".
//!
//! - npm: `nodejs-semver` (node-semver's ranges); Composer constraints are rewritten to it.
//! - Cargo: `semver` (Cargo's own crate).
//! - PyPI: `pep440_rs`, plus Poetry's `^`/`~` syntax.
//! - Go modules: semantic versions with a `v`; a requirement admits later versions of the
//!   same major version (minimal version selection).
//! - Maven and NuGet: [`maven`] ordering and interval ranges.
//! - RubyGems: [`rubygems`], including `~>`.
//! - Actions refs and Docker tags: dotted numbers; `v4` admits every `v4.x.y`.
//! - Requirements a person writes in prose or an install command: [`Requirement`], an
//!   interval of numeric [`Release`]s whose bare versions read per ecosystem ([`Dialect`]).
//! - Runtimes and Kubernetes, named without the runtime: PEP 440 releases (`3.12`, `1.25`);
//!   [`runtime_ecosystem`] names the semantics of one runtime.

mod interval;
mod maven;
mod pep440;
mod requirement;
mod rubygems;

use std::cmp::Ordering;

use nodejs_semver::{Range, Version as NpmVersion};

pub use self::interval::Bound;
use self::interval::{Interval, Ranges};
use self::maven::MavenVersion;
pub use self::requirement::{Dialect, Release, Requirement};
use super::Ecosystem;

/// Whether `version` meets `constraint` in the ecosystem's semantics.
pub fn satisfies(ecosystem: Ecosystem, constraint: &str, version: &str) -> Option<bool> {
    match ecosystem {
        Ecosystem::Npm | Ecosystem::Composer => {
            Some(npm_range(ecosystem, constraint)?.satisfies(&npm_version(version)?))
        }
        Ecosystem::Cargo => {
            let req = semver::VersionReq::parse(constraint.trim()).ok()?;
            Some(req.matches(&semver::Version::parse(version.trim()).ok()?))
        }
        Ecosystem::Pypi | Ecosystem::Runtime | Ecosystem::Kubernetes => {
            pep440::satisfies(constraint, version)
        }
        Ecosystem::Rubygems => rubygems::satisfies(constraint, version),
        _ => with_ranges(ecosystem, constraint, version, Question::Contains),
    }
}

/// How two versions order in the ecosystem.
pub fn compare(ecosystem: Ecosystem, a: &str, b: &str) -> Option<Ordering> {
    match ecosystem {
        Ecosystem::Npm | Ecosystem::Composer => Some(npm_version(a)?.cmp(&npm_version(b)?)),
        Ecosystem::Cargo => Some(loose_semver(a)?.cmp(&loose_semver(b)?)),
        Ecosystem::Go => Some(go_version(a)?.cmp(&go_version(b)?)),
        Ecosystem::Pypi | Ecosystem::Runtime | Ecosystem::Kubernetes => {
            Some(pep440::parse_version(a)?.cmp(&pep440::parse_version(b)?))
        }
        Ecosystem::Maven | Ecosystem::Nuget => {
            Some(MavenVersion::parse(a).cmp(&MavenVersion::parse(b)))
        }
        Ecosystem::Rubygems => {
            let (a, b) = (
                rubygems::GemVersion::parse(a)?,
                rubygems::GemVersion::parse(b)?,
            );
            Some(a.cmp(&b))
        }
        Ecosystem::Actions | Ecosystem::Docker => Some(tag_order(a)?.cmp(&tag_order(b)?)),
    }
}

/// Whether `version` meets a requirement a person wrote, its bounds ordered against
/// `version` by the ecosystem's [`compare`]; `None` when the requirement cannot say or a
/// version does not parse in the ecosystem.
pub fn allows(ecosystem: Ecosystem, requirement: &Requirement, version: &str) -> Option<bool> {
    if *requirement == Requirement::Any {
        return Some(true);
    }
    let (min, max) = requirement.bounds()?;
    let order = |bound: &Bound<Release>| compare(ecosystem, version, &bound.version.to_string());
    let above = match min {
        Some(b) => order(&b)?.is_gt() || (b.inclusive && order(&b)?.is_eq()),
        None => true,
    };
    let below = match max {
        Some(b) => order(&b)?.is_lt() || (b.inclusive && order(&b)?.is_eq()),
        None => true,
    };
    Some(above && below)
}

/// The lowest version `constraint` admits, read as the ecosystem's manifests read it: the
/// inclusive lower bound of its interval (`^19.0.0`, `>=2.0,<3`, `~=1.4`, `2.x`, `v1.9.1`).
/// `None` when the constraint has no inclusive lower bound (`<3`, `>1.0`, `*`) or is not a
/// form [`Requirement`] reads (`1 || 2`, a tag such as `3.12-slim`, a pre-release): a
/// change since `X` applies to every admitted version exactly when this floor is at or
/// above `X`, so nothing rests on a guess.
pub fn floor(ecosystem: Ecosystem, constraint: &str) -> Option<String> {
    let constraint = match ecosystem {
        Ecosystem::Maven => without_release_qualifier(constraint),
        _ => constraint,
    };
    let requirement = Requirement::parse(constraint, Dialect::of(ecosystem))?;
    let (min, _) = requirement.bounds()?;
    min.filter(|bound| bound.inclusive)
        .map(|bound| bound.version.to_string())
}

/// A Maven version without the qualifier Maven orders equal to the release itself
/// (`6.6.0.Final`, `5.3.9.RELEASE`, `1.0-GA` -> the numbers), so Hibernate's and older
/// Spring's versions have a floor; any other qualifier (`-SNAPSHOT`, `.CR1`) is kept.
fn without_release_qualifier(version: &str) -> &str {
    let version = version.trim();
    version
        .rsplit_once(['.', '-'])
        .filter(|(numbers, qualifier)| {
            numbers.ends_with(|c: char| c.is_ascii_digit())
                && ["final", "release", "ga"]
                    .iter()
                    .any(|q| qualifier.eq_ignore_ascii_case(q))
        })
        .map_or(version, |(numbers, _)| numbers)
}

/// Whether `constraint` admits some version at or above `floor`.
///
/// A skill written for React 19 (`floor` 19) against a project constrained to `^18.2`
/// answers `false`: the project cannot be on the skill's version.
pub fn admits_at_least(ecosystem: Ecosystem, constraint: &str, floor: &str) -> Option<bool> {
    match ecosystem {
        Ecosystem::Npm | Ecosystem::Composer | Ecosystem::Cargo => {
            let range = npm_range(ecosystem, constraint)?;
            let floor = Range::parse(format!(">={}", npm_version(floor)?)).ok()?;
            Some(range.allows_any(&floor))
        }
        _ => with_ranges(ecosystem, constraint, floor, Question::AtLeast),
    }
}

/// Whether `constraint` admits some version below `ceiling`.
///
/// A skill that needs Python 3.12 (`ceiling` 3.12) against a project that declares
/// `requires-python = ">=3.9"` answers `true`: the project must keep working on versions
/// the skill's advice breaks.
pub fn admits_below(ecosystem: Ecosystem, constraint: &str, ceiling: &str) -> Option<bool> {
    match ecosystem {
        Ecosystem::Npm | Ecosystem::Composer | Ecosystem::Cargo => {
            let range = npm_range(ecosystem, constraint)?;
            let below = Range::parse(format!("<{}", npm_version(ceiling)?)).ok()?;
            Some(range.allows_any(&below))
        }
        _ => with_ranges(ecosystem, constraint, ceiling, Question::Below),
    }
}

/// The release a version belongs to, without its pre-release and build metadata, read by
/// the ecosystem's own rules: `13.3.2-canary.13` and `13.3.2+build.5` (semver: npm, Cargo,
/// Go, Composer, Actions, Docker) are 13.3.2; `5.0rc1`, `1!2.0.post1`, `4.2.dev3+local`
/// (PEP 440) are 5.0, 2.0, 4.2; `4.0.0-M1`, `3.2.0-SNAPSHOT`, `5.3.1.RELEASE` (Maven, NuGet)
/// are 4.0.0, 3.2.0, 5.3.1; `7.1.0.rc1` and `1.15.5-x86_64-linux` (RubyGems) are 7.1.0 and
/// 1.15.5. `None` when the text does not start with a release number in that syntax.
pub fn release_line(ecosystem: Ecosystem, version: &str) -> Option<Release> {
    let text = version.trim();
    let numbers = match ecosystem {
        Ecosystem::Pypi | Ecosystem::Runtime | Ecosystem::Kubernetes => {
            let text = text.split('+').next().unwrap_or(text);
            let text = text.split_once('!').map_or(text, |(_, rest)| rest);
            let text = text.trim_start_matches(['v', 'V']);
            let end = text
                .find(|c: char| !c.is_ascii_digit() && c != '.')
                .unwrap_or(text.len());
            let (numbers, rest) = text.split_at(end);
            let marker = rest
                .trim_start_matches(['.', '-', '_'])
                .trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
            let known = [
                "", "a", "b", "c", "rc", "alpha", "beta", "pre", "preview", "post", "dev", "r",
                "rev",
            ];
            if !known.contains(&marker.to_ascii_lowercase().as_str()) {
                return None;
            }
            numbers.trim_end_matches('.')
        }
        Ecosystem::Maven | Ecosystem::Nuget | Ecosystem::Rubygems => {
            let text = text.split(['-', '+']).next().unwrap_or(text);
            let end = text
                .split('.')
                .take_while(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
                .map(|part| part.len() + 1)
                .sum::<usize>();
            text.get(..end.saturating_sub(1))?
        }
        Ecosystem::Npm
        | Ecosystem::Cargo
        | Ecosystem::Go
        | Ecosystem::Composer
        | Ecosystem::Actions
        | Ecosystem::Docker => text.split(['-', '+']).next().unwrap_or(text),
    };
    Release::parse(numbers)
}

/// The ecosystem whose version semantics a runtime's versions follow
/// (`python` -> PyPI, `node` -> npm, `rust` -> Cargo, ...).
pub fn runtime_ecosystem(runtime: &str) -> Option<Ecosystem> {
    Some(match runtime {
        "python" => Ecosystem::Pypi,
        "node" | "bun" | "deno" => Ecosystem::Npm,
        "rust" => Ecosystem::Cargo,
        "go" => Ecosystem::Go,
        "java" | "dotnet" => Ecosystem::Maven,
        "ruby" => Ecosystem::Rubygems,
        "php" => Ecosystem::Composer,
        _ => return None,
    })
}

/// An npm range; Cargo and Composer constraints are rewritten into npm's syntax, which
/// shares their caret, tilde and wildcard semantics once the differences are spelled out.
fn npm_range(ecosystem: Ecosystem, constraint: &str) -> Option<Range> {
    let text = match ecosystem {
        Ecosystem::Cargo => cargo_as_npm(constraint)?,
        Ecosystem::Composer => composer_as_npm(constraint),
        _ => npm_alias_range(constraint).to_string(),
    };
    Range::parse(text.trim()).ok()
}

/// `npm:other@^1.2` (an alias) -> `^1.2`.
fn npm_alias_range(constraint: &str) -> &str {
    match constraint.trim().strip_prefix("npm:") {
        Some(alias) => alias
            .get(1..)
            .and_then(|s| s.split_once('@'))
            .map_or(alias, |(_, r)| r),
        None => constraint,
    }
}

/// Cargo's comparators, each written with its operator (a bare `1.2` is `^1.2`).
fn cargo_as_npm(constraint: &str) -> Option<String> {
    let req = semver::VersionReq::parse(constraint.trim()).ok()?;
    let parts: Vec<String> = req.comparators.iter().map(ToString::to_string).collect();
    Some(if parts.is_empty() {
        "*".to_string()
    } else {
        parts.join(" ")
    })
}

/// Composer: `,` and space mean AND, `|`/`||` OR; `~1.2` means `>=1.2 <2.0` (npm's `~1.2`
/// would stop at 1.3); `v` prefixes and `@stability` flags are dropped.
fn composer_as_npm(constraint: &str) -> String {
    let alternatives: Vec<String> = constraint
        .split('|')
        .filter(|a| !a.trim().is_empty())
        .map(|alternative| {
            alternative
                .split([',', ' '])
                .filter(|p| !p.is_empty())
                .map(composer_part)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    alternatives.join(" || ")
}

fn composer_part(part: &str) -> String {
    let part = part.split('@').next().unwrap_or(part);
    let (op, version) = part.split_at(part.find(|c: char| c.is_ascii_digit()).unwrap_or(0));
    let op = op.trim_end_matches('v');
    let numbers: Vec<&str> = version.split('.').collect();
    match (op, numbers.as_slice()) {
        ("~", [major, minor]) => match major.parse::<u64>() {
            Ok(m) => format!(">={major}.{minor}.0 <{}.0.0", m + 1),
            Err(_) => format!("{op}{version}"),
        },
        _ => format!("{op}{version}"),
    }
}

/// An npm version, accepting the partial (`18`, `3.12`) and `v`-prefixed forms people write.
fn npm_version(text: &str) -> Option<NpmVersion> {
    let text = text.trim().trim_start_matches(['v', '=']);
    NpmVersion::parse(pad_release(text)).ok()
}

/// A semantic version, padding `1` and `1.2` to three numbers.
fn loose_semver(text: &str) -> Option<semver::Version> {
    semver::Version::parse(&pad_release(text.trim().trim_start_matches('v'))).ok()
}

/// Pads the release part of a version to three numbers, keeping any suffix.
fn pad_release(text: &str) -> String {
    let end = text.find(['-', '+']).unwrap_or(text.len());
    let (release, suffix) = text.split_at(end);
    let count = release.split('.').count();
    let padding = ".0".repeat(3usize.saturating_sub(count));
    format!("{release}{padding}{suffix}")
}

/// A Go module version (`v1.2.3`, `v0.0.0-2023...-abcdef`, `v2.0.0+incompatible`) or a Go
/// release (`1.21`, `1.21.3`, `1.22rc1`).
fn go_version(text: &str) -> Option<semver::Version> {
    let text = text.trim().trim_start_matches("go").trim_start_matches('v');
    let text = text.trim_end_matches("+incompatible");
    let split = text
        .find(|c: char| c.is_ascii_alphabetic())
        .filter(|_| !text.contains('-'));
    let padded = match split {
        Some(i) => format!("{}-{}", pad_release(&text[..i]), &text[i..]),
        None => pad_release(text),
    };
    semver::Version::parse(&padded).ok()
}

/// A ref or tag as the key it orders by: the components of its [`Release::leading`] as
/// written, so `v4` orders before `v4.0` (a tag names a series, not a zero-padded release).
fn tag_order(text: &str) -> Option<Vec<u64>> {
    Release::leading(text).map(|release| release.parts)
}

/// A question about the versions a constraint admits.
#[derive(Clone, Copy)]
enum Question {
    Contains,
    AtLeast,
    Below,
}

fn ask<V: Ord + Clone>(ranges: &Ranges<V>, question: Question, version: &V) -> bool {
    match question {
        Question::Contains => ranges.contains(version),
        Question::AtLeast => ranges.admits_at_least(version),
        Question::Below => ranges.admits_below(version),
    }
}

/// Parses the constraint and the version in an ecosystem whose ranges are built here, then
/// asks the question.
fn with_ranges(
    ecosystem: Ecosystem,
    constraint: &str,
    version: &str,
    question: Question,
) -> Option<bool> {
    match ecosystem {
        Ecosystem::Maven | Ecosystem::Nuget => {
            let ranges = maven::parse_ranges(constraint, ecosystem == Ecosystem::Nuget)?;
            Some(ask(&ranges, question, &MavenVersion::parse(version)))
        }
        Ecosystem::Rubygems => {
            let ranges = rubygems::parse_ranges(constraint)?;
            Some(ask(
                &ranges,
                question,
                &rubygems::GemVersion::parse(version)?,
            ))
        }
        Ecosystem::Go => Some(ask(
            &go_ranges(constraint)?,
            question,
            &go_version(version)?,
        )),
        Ecosystem::Actions | Ecosystem::Docker => Some(ask(
            &prefix_ranges(constraint)?,
            question,
            &tag_order(version)?,
        )),
        Ecosystem::Pypi | Ecosystem::Runtime | Ecosystem::Kubernetes => Some(ask(
            &pep440::parse_ranges(constraint)?,
            question,
            &pep440::parse_version(version)?,
        )),
        Ecosystem::Npm | Ecosystem::Composer | Ecosystem::Cargo => None,
    }
}

/// A `go.mod` requirement is a minimum within its major version: `v1.2.3` admits
/// `[1.2.3, 2.0.0)`, and `v0.x` shares its module path with `v1`.
fn go_ranges(constraint: &str) -> Option<Ranges<semver::Version>> {
    let minimum = go_version(constraint)?;
    let next_major = minimum.major.max(1) + 1;
    let mut upper = semver::Version::new(next_major, 0, 0);
    upper.pre = semver::Prerelease::new("0").ok()?;
    Some(Ranges::one(Interval::between(minimum, true, upper, false)))
}

/// A ref or tag admits the versions it prefixes: `v4` admits `4.x.y`, `3.12` admits `3.12.x`.
fn prefix_ranges(constraint: &str) -> Option<Ranges<Vec<u64>>> {
    let lower = tag_order(constraint)?;
    let mut upper = lower.clone();
    if let Some(last) = upper.last_mut() {
        *last += 1;
    }
    Some(Ranges::one(Interval::between(lower, true, upper, false)))
}

#[cfg(test)]
mod tests;

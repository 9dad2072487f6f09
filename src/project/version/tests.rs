//! Hand-checked cases for every ecosystem's semantics.

use std::cmp::Ordering;

use super::*;
use crate::project::Ecosystem::{
    Actions, Cargo, Composer, Docker, Go, Maven, Npm, Nuget, Pypi, Rubygems, Runtime,
};

#[test]
fn npm_ranges() {
    assert_eq!(satisfies(Npm, "^18.2.0", "18.3.1"), Some(true));
    assert_eq!(satisfies(Npm, "^18.2.0", "19.0.0"), Some(false));
    // `^0.x` stops at the next minor.
    assert_eq!(satisfies(Npm, "^0.2.3", "0.2.9"), Some(true));
    assert_eq!(satisfies(Npm, "^0.2.3", "0.3.0"), Some(false));
    // Prereleases only match a range that names the same release.
    assert_eq!(satisfies(Npm, "^19.0.0", "19.1.0-rc.1"), Some(false));
    assert_eq!(satisfies(Npm, "^19.1.0-rc.0", "19.1.0-rc.1"), Some(true));
    assert_eq!(satisfies(Npm, "18", "18.2.0"), Some(true));
    assert_eq!(satisfies(Npm, ">=1.2 <2 || 3.x", "3.4.0"), Some(true));
    assert_eq!(satisfies(Npm, "npm:react@^18", "18.1.0"), Some(true));
    assert_eq!(satisfies(Npm, "workspace:*", "1.0.0"), None);
    assert_eq!(satisfies(Npm, "github:user/repo", "1.0.0"), None);
}

#[test]
fn npm_floor_and_ceiling() {
    // Skill says React 19; project constrained to ^18.2: it cannot be on 19.
    assert_eq!(admits_at_least(Npm, "^18.2.0", "19"), Some(false));
    assert_eq!(admits_at_least(Npm, ">=18", "19"), Some(true));
    // Skill needs Node 20; project supports >=18.
    assert_eq!(admits_below(Npm, ">=18", "20"), Some(true));
    assert_eq!(admits_below(Npm, ">=20.1", "20"), Some(false));
}

#[test]
fn cargo_requirements() {
    assert_eq!(satisfies(Cargo, "1.2", "1.9.0"), Some(true));
    assert_eq!(satisfies(Cargo, "0.2", "0.3.0"), Some(false));
    assert_eq!(satisfies(Cargo, "~1.2.3", "1.3.0"), Some(false));
    assert_eq!(satisfies(Cargo, ">=1.0, <1.5", "1.4.9"), Some(true));
    assert_eq!(satisfies(Cargo, "=1.0.0", "1.0.0-alpha"), Some(false));
    assert_eq!(admits_at_least(Cargo, "0.2", "1"), Some(false));
    assert_eq!(admits_at_least(Cargo, "1", "1.30"), Some(true));
    assert_eq!(admits_below(Cargo, "1.70", "1.75"), Some(true));
    assert_eq!(compare(Cargo, "1.75", "1.75.0"), Some(Ordering::Equal));
}

#[test]
fn pypi_specifiers() {
    assert_eq!(satisfies(Pypi, ">=4.2,<5", "4.2.11"), Some(true));
    assert_eq!(satisfies(Pypi, ">=4.2,<5", "5.0"), Some(false));
    // Python 3.12+ skill vs requires-python >=3.9: the project supports older versions.
    assert_eq!(admits_below(Pypi, ">=3.9", "3.12"), Some(true));
    assert_eq!(admits_below(Pypi, ">=3.12", "3.12"), Some(false));
    assert_eq!(admits_at_least(Pypi, "<2", "2"), Some(false));
    assert_eq!(admits_at_least(Pypi, "^1.10", "2.0"), Some(false));
    assert_eq!(compare(Pypi, "1.0.dev1", "1.0a1"), Some(Ordering::Less));
    assert_eq!(compare(Pypi, "1.0", "1.0.post1"), Some(Ordering::Less));
    assert_eq!(compare(Pypi, "1!0.1", "2024.1"), Some(Ordering::Greater));
}

#[test]
fn go_modules() {
    assert_eq!(satisfies(Go, "v1.9.0", "v1.10.2"), Some(true));
    assert_eq!(satisfies(Go, "v1.9.0", "v1.8.0"), Some(false));
    assert_eq!(satisfies(Go, "v1.9.0", "v2.0.0"), Some(false));
    assert_eq!(
        compare(Go, "v0.0.0-20230101000000-abcdef123456", "v0.1.0"),
        Some(Ordering::Less)
    );
    assert_eq!(
        compare(Go, "v2.0.0+incompatible", "v2.0.0"),
        Some(Ordering::Equal)
    );
    // `go` directives and toolchains.
    assert_eq!(compare(Go, "1.21", "1.21.0"), Some(Ordering::Equal));
    assert_eq!(compare(Go, "go1.22rc1", "1.22"), Some(Ordering::Less));
    assert_eq!(admits_below(Go, "1.21", "1.22"), Some(true));
}

#[test]
fn maven_and_nuget() {
    assert_eq!(satisfies(Maven, "[5.0,6.0)", "5.3.31"), Some(true));
    assert_eq!(satisfies(Maven, "3.2.0", "3.2.0.RELEASE"), Some(true));
    assert_eq!(compare(Maven, "3.2.0-RC1", "3.2.0"), Some(Ordering::Less));
    assert_eq!(admits_at_least(Maven, "2.7.18", "3"), Some(false));
    assert_eq!(satisfies(Maven, "${spring.version}", "6.0"), None);
    assert_eq!(satisfies(Nuget, "6.0.0", "8.0.1"), Some(true));
    assert_eq!(satisfies(Nuget, "[6.0,7.0)", "7.0.0"), Some(false));
}

#[test]
fn rubygems_and_composer() {
    assert_eq!(satisfies(Rubygems, "~> 7.1", "7.2.0"), Some(true));
    assert_eq!(satisfies(Rubygems, "~> 7.1.0", "7.2.0"), Some(false));
    assert_eq!(admits_at_least(Rubygems, "~> 6.1", "7"), Some(false));
    assert_eq!(satisfies(Composer, "^10.0", "10.48.4"), Some(true));
    // Composer's `~1.2` reaches up to 2.0, unlike npm's.
    assert_eq!(satisfies(Composer, "~1.2", "1.9.0"), Some(true));
    assert_eq!(satisfies(Npm, "~1.2", "1.9.0"), Some(false));
    assert_eq!(satisfies(Composer, "^7.4 || ^8.0", "8.2.1"), Some(true));
    assert_eq!(satisfies(Composer, ">=8.1,<8.3", "8.3.0"), Some(false));
}

#[test]
fn actions_refs_and_docker_tags() {
    assert_eq!(satisfies(Actions, "v4", "v4.1.7"), Some(true));
    assert_eq!(satisfies(Actions, "v3", "v4.0.0"), Some(false));
    assert_eq!(admits_at_least(Actions, "v3", "4"), Some(false));
    assert_eq!(satisfies(Actions, "main", "v4"), None);
    assert_eq!(satisfies(Docker, "3.12-slim", "3.12.4"), Some(true));
    assert_eq!(compare(Docker, "3.9", "3.12"), Some(Ordering::Less));
}

/// Refs and tags order by the release they start with, component by component as written:
/// a suffix does not count, a shorter tag orders before a longer one it prefixes, and long
/// date tags are numbers too. Anything else is unknown.
#[test]
fn tags_order_by_their_leading_release() {
    assert_eq!(compare(Docker, "3.12-slim", "3.12"), Some(Ordering::Equal));
    assert_eq!(
        compare(Docker, "3.12-slim", "3.11.9"),
        Some(Ordering::Greater)
    );
    assert_eq!(
        compare(Docker, "1.25-alpine3.20", "1.25.4"),
        Some(Ordering::Less)
    );
    assert_eq!(compare(Actions, "v4", "v4.0"), Some(Ordering::Less));
    assert_eq!(
        compare(Docker, "20240101123456", "20240101123455"),
        Some(Ordering::Greater)
    );
    assert_eq!(satisfies(Docker, "3.12-slim", "3.13"), Some(false));
    assert_eq!(satisfies(Actions, "v4", "v4"), Some(true));
    assert_eq!(satisfies(Actions, "v4.1", "v4.10"), Some(false));
    for unknown in ["latest", "V4", "2.x", "3.12.", "v", ""] {
        assert_eq!(compare(Actions, unknown, "4"), None, "{unknown:?}");
    }
}

#[test]
fn runtimes_map_to_ecosystems() {
    assert_eq!(runtime_ecosystem("python"), Some(Pypi));
    assert_eq!(runtime_ecosystem("node"), Some(Npm));
    assert_eq!(runtime_ecosystem("cobol"), None);
}

/// Inputs that are wrong in every way a manifest can be wrong.
const HOSTILE: &[&str] = &[
    "",
    " ",
    "*",
    "^",
    "~",
    "~>",
    "=",
    "!=",
    "[",
    "]",
    "(",
    ")",
    "[1,2)]",
    "[1,2)\u{e9}]",
    "(,)",
    "[,1",
    "v",
    "vv1",
    "1..2",
    ".1",
    "1.",
    "-1",
    "1-",
    "+",
    "1+",
    "@",
    "npm:",
    "npm:@",
    "${x}",
    "$(",
    "||",
    "|",
    ",",
    ">=",
    "<",
    "1 - 2",
    "x.y.z",
    "\u{e9}1",
    "1\u{e9}",
    "~=1",
    "===",
    "==1.*.2",
    "99999999999999999999999",
    "1.2.3.4.5.6",
    "go1.2rc",
    "1.0-",
    "0!",
    "1!",
    "~1.2.3-beta",
    "^0.0",
    ">1 <",
    "~> 1, ",
    "latest",
    "lts/*",
    "a\u{0}b",
];

#[test]
fn hostile_input_never_panics() {
    let ecosystems = [
        Npm, Cargo, Pypi, Go, Maven, Rubygems, Composer, Nuget, Actions, Docker,
    ];
    for ecosystem in ecosystems {
        for a in HOSTILE {
            for b in HOSTILE {
                let _ = satisfies(ecosystem, a, b);
                let _ = compare(ecosystem, a, b);
                let _ = admits_at_least(ecosystem, a, b);
                let _ = admits_below(ecosystem, a, b);
            }
        }
    }
}

#[test]
fn requirements_allow_versions_in_the_ecosystems_order() {
    let read = |written: &str| Requirement::parse(written, Dialect::Series).expect("parses");
    assert_eq!(allows(Npm, &read("18"), "18.3.1"), Some(true));
    assert_eq!(allows(Npm, &read("18"), "19.0.0"), Some(false));
    assert_eq!(allows(Npm, &read("^0.2"), "0.2.25"), Some(true));
    assert_eq!(allows(Npm, &read("^0.2"), "1.0.0"), Some(false));
    assert_eq!(allows(Pypi, &read("3.12+"), "3.9"), Some(false));
    assert_eq!(allows(Pypi, &read("3.12+"), "3.12"), Some(true));
    assert_eq!(allows(Maven, &read("2"), "2.7.18"), Some(true));
    assert_eq!(allows(Npm, &read("*"), "anything"), Some(true));
    assert_eq!(allows(Npm, &Requirement::Unparsed, "1.0.0"), None);
}

#[test]
fn release_lines_drop_prerelease_and_build_per_ecosystem() {
    let line = |ecosystem, text| release_line(ecosystem, text).map(|r| r.to_string());
    let some = |text: &str| Some(text.to_owned());
    assert_eq!(line(Ecosystem::Npm, "13.3.2-canary.13"), some("13.3.2"));
    assert_eq!(line(Ecosystem::Npm, "1.0.0+build.5"), some("1.0.0"));
    assert_eq!(line(Ecosystem::Cargo, "1.0.0-alpha.1"), some("1.0.0"));
    assert_eq!(
        line(Ecosystem::Go, "v0.0.0-20230101120000-abcdef123456"),
        some("0.0.0")
    );
    assert_eq!(line(Ecosystem::Pypi, "5.0rc1"), some("5.0"));
    assert_eq!(line(Ecosystem::Pypi, "1!2.0.post1"), some("2.0"));
    assert_eq!(line(Ecosystem::Pypi, "4.2.dev3+local.7"), some("4.2"));
    assert_eq!(line(Ecosystem::Pypi, "2.0b2"), some("2.0"));
    assert_eq!(line(Ecosystem::Pypi, "4.2-foo"), None);
    assert_eq!(line(Ecosystem::Maven, "4.0.0-M1"), some("4.0.0"));
    assert_eq!(line(Ecosystem::Maven, "5.3.1.RELEASE"), some("5.3.1"));
    assert_eq!(line(Ecosystem::Maven, "3.2.0-SNAPSHOT"), some("3.2.0"));
    assert_eq!(line(Ecosystem::Rubygems, "7.1.0.rc1"), some("7.1.0"));
    assert_eq!(
        line(Ecosystem::Rubygems, "1.15.5-x86_64-linux"),
        some("1.15.5")
    );
    assert_eq!(line(Ecosystem::Npm, "latest"), None);
    assert_eq!(line(Ecosystem::Npm, "github:user/repo#main"), None);
}

#[test]
fn floors_are_inclusive_lower_bounds_read_per_ecosystem() {
    let floor = |ecosystem, constraint| super::floor(ecosystem, constraint);
    let some = |text: &str| Some(text.to_owned());
    assert_eq!(floor(Npm, "^19.0.0"), some("19.0.0"));
    assert_eq!(floor(Pypi, ">=2.0,<3"), some("2.0"));
    assert_eq!(floor(Pypi, "~=1.4"), some("1.4"));
    assert_eq!(floor(Go, "v1.9.1"), some("1.9.1"));
    assert_eq!(floor(Go, "V1.9"), some("1.9"));
    assert_eq!(floor(Cargo, "=1.2.3"), some("1.2.3"));
    assert_eq!(floor(Cargo, "1.2"), some("1.2"));
    assert_eq!(floor(Rubygems, "~> 2.1"), some("2.1"));
    assert_eq!(floor(Runtime, ">= 3.12"), some("3.12"));
    assert_eq!(floor(Npm, "2.x"), some("2"));
    assert_eq!(floor(Npm, "1.2.3 - 2.0"), some("1.2.3"));
    assert_eq!(floor(Maven, "1.2.3.4"), some("1.2.3.4"));
    // The qualifiers Maven orders equal to the release: Hibernate's and older Spring's.
    assert_eq!(floor(Maven, "6.6.0.Final"), some("6.6.0"));
    assert_eq!(floor(Maven, "5.3.9.RELEASE"), some("5.3.9"));
    assert_eq!(floor(Maven, "1.0-ga"), some("1.0"));
    assert_eq!(floor(Maven, "6.6.0.CR1"), None);
    assert_eq!(floor(Maven, "2.0-SNAPSHOT"), None);
    // No inclusive lower bound, or not a form a requirement is read in: no floor, so no
    // finding rests on a guess.
    for constraint in [
        "<3",
        ">1.0",
        "1 || 2",
        "latest",
        "*",
        "3.12-slim",
        "1.2.3.4.5",
        "^19.0.0-rc.1",
        "[1.0,2.0)",
    ] {
        assert_eq!(floor(Npm, constraint), None, "{constraint:?}");
    }
}

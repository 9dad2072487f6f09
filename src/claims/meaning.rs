//! What a version mention means for the skill as a whole, decided once after every
//! document is read: an upgrade skill's versions are where it leads, a floor the skill
//! states covers the versions it names above it, and a version is compared at the
//! precision of its release line.
//!
//! The sentence-level roles come from [`super::context`]; this pass adds what only the
//! whole skill shows. SG401, SG403 and SG404 read the result and never re-derive it.

use super::{Claim, Origin, Role, Subject};
use crate::project::Ecosystem;
use crate::project::version::{Release, Requirement};

/// Whether the skill's name or description makes it an upgrade skill: "Upgrades Rails
/// applications", "Migrate Pydantic v1 models to v2". Its versions are destinations; it
/// fits a project that is still on the version it starts from.
pub fn is_upgrade_skill(name: &str, description: &str) -> bool {
    let text = format!("{name} {description}").to_ascii_lowercase();
    let upgrade = ["upgrade", "upgrading", "version bump", "bump to"]
        .iter()
        .any(|w| text.contains(w));
    // "migration" alone is also the database kind (Django, Alembic, Rails migrations):
    // only a migration between versions counts.
    let migration = text.contains("migrat")
        && (text.contains(" to v")
            || text.contains(" from v")
            || text.contains("migration guide")
            || text.contains("version migration"));
    upgrade || migration
}

/// Settles the roles and compared ranges of a skill's claims, in file order.
pub(super) fn settle(claims: &mut [Claim], upgrade: bool) {
    if upgrade {
        for claim in claims.iter_mut() {
            if claim.role == Role::Target
                && !claim.stated
                && claim.origin != Origin::Import
                && has_version(claim)
            {
                claim.role = Role::Destination;
            }
        }
    }
    cover_by_floors(claims);
    for claim in claims.iter_mut() {
        if claim.role == Role::Target {
            claim.requirement.kind = at_series_precision(&claim.subject, &claim.requirement.kind);
        }
    }
}

fn has_version(claim: &Claim) -> bool {
    !matches!(
        claim.requirement.kind,
        Requirement::Any | Requirement::Unparsed
    )
}

/// Runtimes whose release line is a minor version (Python 3.12 and 3.9 are different
/// languages to a project; Node 20.11 and 20.1 are one line).
const MINOR_LINE_RUNTIMES: &[&str] = &[
    "python", "ruby", "php", "go", "rust", "bun", "perl", "elixir", "swift", "dart", "kotlin",
];

/// How many components name a release line of `subject` at `release`: a runtime of
/// [`MINOR_LINE_RUNTIMES`] or a `0.x` package by two (`3.12`, `0.8`), any other by its
/// major (`5`, `18`).
pub fn line_precision(subject: &Subject, release: &Release) -> usize {
    let minor_runtime = subject.ecosystem == Ecosystem::Runtime
        && MINOR_LINE_RUNTIMES.contains(&subject.package.as_str());
    if minor_runtime || release.parts.first() == Some(&0) {
        2
    } else {
        1
    }
}

/// A version named inside a release line compares as the line: "Django 5.0" on 5.2.17 and
/// "Ruby 3.4.1" on 3.4.4 agree with the project; a newer API inside the line is SG407's to
/// report from the knowledge. Floors and ranges keep what they say.
fn at_series_precision(subject: &Subject, kind: &Requirement) -> Requirement {
    let release = match kind {
        Requirement::Series(r) | Requirement::Exact(r) | Requirement::Caret(r) => r,
        _ => return kind.clone(),
    };
    let keep = line_precision(subject, release);
    if release.parts.len() <= keep && !matches!(kind, Requirement::Exact(_)) {
        return kind.clone();
    }
    Requirement::Series(Release {
        parts: release.parts.iter().take(keep).copied().collect(),
    })
}

/// A floor the skill states ("Next.js 14+", ".NET 8+") covers every version it names at or
/// above it ("Triggers on: Next.js 14", "React 19 features" beside "React 18+"): they
/// compare as the floor, so one mismatch is one finding with the others as its places.
fn cover_by_floors(claims: &mut [Claim]) {
    let floors: Vec<(Subject, Release)> = claims
        .iter()
        .filter(|c| c.role == Role::Target)
        .filter_map(|c| match &c.requirement.kind {
            Requirement::AtLeast(floor) => Some((c.subject.clone(), floor.clone())),
            _ => None,
        })
        .collect();
    for claim in claims.iter_mut().filter(|c| c.role == Role::Target) {
        let Requirement::Series(named) = &claim.requirement.kind else {
            continue;
        };
        let lowest = floors
            .iter()
            .filter(|(subject, floor)| *subject == claim.subject && !is_below(named, floor))
            .map(|(_, floor)| floor)
            .min_by(|a, b| order(a, b));
        if let Some(floor) = lowest {
            claim.requirement.kind = Requirement::AtLeast(floor.clone());
        }
    }
}

/// Component-wise order, a missing component counting as zero.
fn order(a: &Release, b: &Release) -> std::cmp::Ordering {
    let len = a.parts.len().max(b.parts.len());
    let at = |r: &Release, i: usize| r.parts.get(i).copied().unwrap_or(0);
    (0..len)
        .map(|i| at(a, i).cmp(&at(b, i)))
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

/// Whether the line `named` lies wholly below `floor` (`13` below `14`; `14` is not).
fn is_below(named: &Release, floor: &Release) -> bool {
    let prefix = Release {
        parts: floor
            .parts
            .iter()
            .take(named.parts.len())
            .copied()
            .collect(),
    };
    order(named, &prefix).is_lt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claims::VersionReq;
    use crate::skill::code::Span;

    fn claim(ecosystem: Ecosystem, package: &str, kind: Requirement) -> Claim {
        Claim {
            subject: Subject {
                ecosystem,
                package: package.to_owned(),
            },
            requirement: VersionReq {
                written: String::new(),
                kind,
            },
            span: Span { start: 0, end: 0 },
            origin: Origin::Prose,
            role: Role::Target,
            stated: false,
        }
    }

    fn v(text: &str) -> Release {
        Release::parse(text).expect("test version parses")
    }

    #[test]
    fn upgrade_skills_are_told_from_database_migrations() {
        assert!(is_upgrade_skill("rails-upgrade", "Upgrades Rails apps."));
        assert!(is_upgrade_skill(
            "pydantic",
            "Migrate Pydantic models from v1 to v2."
        ));
        assert!(!is_upgrade_skill(
            "django-migrations",
            "Writes Django migrations for new models."
        ));
    }

    #[test]
    fn versions_compare_at_their_release_line() {
        let django = claim(Ecosystem::Pypi, "django", Requirement::Series(v("5.0")));
        let ruby = claim(Ecosystem::Runtime, "ruby", Requirement::Series(v("3.4.1")));
        let axum = claim(Ecosystem::Cargo, "axum", Requirement::Exact(v("0.7.5")));
        let floor = claim(Ecosystem::Pypi, "django", Requirement::AtLeast(v("5.2")));
        let mut all = [django, ruby, axum, floor];
        settle(&mut all, false);
        let kinds: Vec<_> = all.iter().map(|c| c.requirement.kind.clone()).collect();
        assert_eq!(
            kinds,
            [
                Requirement::Series(v("5")),
                Requirement::Series(v("3.4")),
                Requirement::Series(v("0.7")),
                Requirement::AtLeast(v("5.2")),
            ]
        );
    }

    #[test]
    fn a_floor_covers_the_versions_named_above_it_and_an_upgrade_leads_somewhere() {
        let mut all = [
            claim(Ecosystem::Npm, "next", Requirement::AtLeast(v("14"))),
            claim(Ecosystem::Npm, "next", Requirement::Series(v("14"))),
            claim(Ecosystem::Npm, "next", Requirement::Series(v("16"))),
            claim(Ecosystem::Npm, "next", Requirement::Series(v("13"))),
        ];
        settle(&mut all, false);
        let kinds: Vec<_> = all.iter().map(|c| c.requirement.kind.clone()).collect();
        assert_eq!(
            kinds,
            [
                Requirement::AtLeast(v("14")),
                Requirement::AtLeast(v("14")),
                Requirement::AtLeast(v("14")),
                Requirement::Series(v("13")),
            ]
        );
        let mut upgrade = [claim(
            Ecosystem::Rubygems,
            "rails",
            Requirement::Series(v("8.1")),
        )];
        settle(&mut upgrade, true);
        assert_eq!(upgrade[0].role, Role::Destination);
    }
}

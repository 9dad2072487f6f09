//! SG401 version-conflict: a version the skill states against the project's version.

use super::{file_line, located};
use crate::claims::{Claim, Role};
use crate::finding::Severity;
use crate::lint::RuleDoc;
use crate::lint::fit::dependencies_for;
use crate::lint::{Context, Emitter, Rule};
use crate::project::version::{self, Requirement};
use crate::project::{Ecosystem, Located, Project};

/// SG401.
pub const VERSION_CONFLICT: Rule = Rule {
    doc: RuleDoc {
        code: "SG401",
        name: "version-conflict",
        severity: Severity::Error,
        summary: "The skill claims a package version the project does not use",
        what: "Compares each version the skill says it is written for (\"React 17\" in the \
           description, the body or a file SKILL.md names, `pip install django==3.2`, an \
           Actions `uses:` ref) with the version the project's lockfile resolves, or with its \
           declared constraint when there is no lockfile. A version the skill warns against, \
           gates a section on, states as a fact about a release, or shows as constraint \
           syntax (a manifest snippet, `uv add \"django>=4.0,<5.0\"`) is not compared. One \
           finding per package and range, the other places in `related`.",
        why: "Guidance written for another major version of the project's framework is the \
          failure that measurably hurts agents: they follow it and write code that no \
          longer works.",
        fires: r#"==> SKILL.md <==
---
name: demo
description: Mounts React apps. Use when editing the entry point.
---
This skill targets React 17.
==> @repo/package.json <==
{ "name": "app", "dependencies": { "react": "^19.0.0" } }
"#,
        passes: r#"==> SKILL.md <==
---
name: demo
description: Mounts React apps. Use when editing the entry point.
---
This skill targets React 19.
==> @repo/package.json <==
{ "name": "app", "dependencies": { "react": "^19.0.0" } }
"#,
    },
    check: version_conflict,
};

/// SG401: each version the skill is written for that the project's version of the package
/// cannot meet, once per package and claimed range, with the other places it is stated.
fn version_conflict(cx: &Context<'_>, out: &mut Emitter) {
    let Some(project) = cx.project else {
        return;
    };
    let mut groups: Vec<(&Claim, Vec<&Claim>)> = Vec::new();
    for claim in cx.analysis().claims.iter().filter(|c| is_target(c)) {
        match groups.iter_mut().find(|(head, _)| {
            head.subject == claim.subject && head.requirement.kind == claim.requirement.kind
        }) {
            Some((_, more)) => more.push(claim),
            None => groups.push((claim, Vec::new())),
        }
    }
    for (claim, more) in groups {
        let Some((used, resolved)) = conflicting_version(project, claim) else {
            continue;
        };
        let verb = if resolved { "resolves" } else { "requires" };
        let package = &claim.subject.package;
        let finding = out
            .report_at(
                cx.analysis().location(cx.skill, claim.span),
                format!(
                    "the skill is written for {package} {}, but the project {verb} {package} {} ({})",
                    claim.requirement.written,
                    used.value,
                    file_line(used)
                ),
            )
            .help(format!(
                "update the skill for {} {}, or say which versions it is for so it is not \
                 injected into projects on another one",
                claim.subject.package, used.value
            ))
            .related_at(
                located(project, used),
                format!("the project's {}", claim.subject.package),
            );
        for other in more {
            finding.related_at(
                cx.analysis().location(cx.skill, other.span),
                format!("{package} {} again", other.requirement.written),
            );
        }
    }
}

/// A claim SG401 compares: what the skill is written for, with a version.
fn is_target(claim: &Claim) -> bool {
    claim.role == Role::Target
        && !matches!(
            claim.requirement.kind,
            Requirement::Any | Requirement::Unparsed
        )
        && claim.subject.ecosystem.has_dependencies()
}

/// The project's entry the claim conflicts with. Resolved versions are alternatives (two
/// lockfiles of a monorepo, two workflows on `actions/checkout@v4` and `@v2`): the claim
/// conflicts when it meets none of them. Declared constraints of one package apply together,
/// so one that excludes the claim is enough, except for workflows, which each pin their own.
fn conflicting_version<'p>(
    project: &'p Project,
    claim: &Claim,
) -> Option<(&'p Located<String>, bool)> {
    let ecosystem = claim.subject.ecosystem;
    let entries = dependencies_for(project, ecosystem, &claim.subject.package);
    let resolved: Vec<&Located<String>> =
        entries.iter().filter_map(|d| d.resolved.as_ref()).collect();
    let (values, resolved, all) = if resolved.is_empty() {
        let constraints = entries
            .iter()
            .filter_map(|d| d.constraint.as_ref())
            .collect();
        (constraints, false, ecosystem == Ecosystem::Actions)
    } else {
        (resolved, true, true)
    };
    let mut first = None;
    for used in values {
        let conflict = claim_conflicts(ecosystem, claim, &used.value, resolved);
        // A workflow on an older action than the skill's is the project's to update: the
        // skill's newer ref is no conflict with it.
        let conflict = if ecosystem == Ecosystem::Actions && conflict == Some(true) {
            older_than_project(claim, &used.value)
        } else {
            conflict
        };
        match conflict {
            Some(true) if !all => return Some((used, resolved)),
            Some(true) => {
                first.get_or_insert((used, resolved));
            }
            Some(false) if all => return None,
            Some(false) | None => {}
        }
    }
    first
}

/// Whether the claim and the project's version cannot both hold; `None` when unknown.
fn claim_conflicts(
    ecosystem: Ecosystem,
    claim: &Claim,
    used: &str,
    resolved: bool,
) -> Option<bool> {
    if is_commit(used) {
        // `actions/checkout@3d3c42e…` names a commit, not a version.
        return None;
    }
    if resolved {
        // A pre-release or build belongs to its release line: `13.3.2-canary.13` is a
        // Next.js 13, not a Next.js 14.
        let line = version::release_line(ecosystem, used)?;
        return version::allows(ecosystem, &claim.requirement.kind, &line.to_string())
            .map(|ok| !ok);
    }
    if let Requirement::Exact(exact) = &claim.requirement.kind {
        return version::satisfies(ecosystem, used, &exact.to_string()).map(|ok| !ok);
    }
    let (min, max) = claim.requirement.kind.bounds()?;
    let too_new = min
        .and_then(|m| version::admits_at_least(ecosystem, used, &m.version.to_string()))
        .map(|ok| !ok);
    let too_old = max
        .filter(|m| !m.inclusive)
        .and_then(|m| version::admits_below(ecosystem, used, &m.version.to_string()))
        .map(|ok| !ok);
    match (too_new, too_old) {
        (None, None) => None,
        (a, b) => Some(a == Some(true) || b == Some(true)),
    }
}

/// Whether the claim's version is below the project's (`Some(false)` when above).
fn older_than_project(claim: &Claim, used: &str) -> Option<bool> {
    let (min, _) = claim.requirement.kind.bounds()?;
    let min = min?.version.to_string();
    version::compare(Ecosystem::Actions, used, &min).map(|order| order.is_gt())
}

/// Whether a reference is a commit hash rather than a version.
fn is_commit(reference: &str) -> bool {
    reference.len() >= 7
        && reference.bytes().all(|b| b.is_ascii_hexdigit())
        && reference.bytes().any(|b| b.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claims::Origin;

    fn claim(written: &str, dialect: crate::project::version::Dialect) -> Claim {
        Claim {
            subject: crate::claims::Subject {
                ecosystem: Ecosystem::Npm,
                package: "react".to_owned(),
            },
            requirement: crate::claims::VersionReq::parse(written, dialect),
            span: crate::skill::code::Span { start: 0, end: 0 },
            origin: Origin::Prose,
            role: crate::claims::Role::Target,
            stated: false,
        }
    }

    #[test]
    fn a_claim_conflicts_with_a_lockfile_version_outside_it() {
        use crate::project::version::Dialect::Series;
        let npm = Ecosystem::Npm;
        assert_eq!(
            claim_conflicts(npm, &claim("17", Series), "19.0.0", true),
            Some(true)
        );
        assert_eq!(
            claim_conflicts(npm, &claim("19", Series), "19.1.0", true),
            Some(false)
        );
        assert_eq!(
            claim_conflicts(npm, &claim(">=18", Series), "19.1.0", true),
            Some(false)
        );
        assert_eq!(
            claim_conflicts(npm, &claim("19", Series), "19.0.0-rc.1", true),
            Some(false)
        );
        assert_eq!(
            claim_conflicts(npm, &claim("14", Series), "13.3.2-canary.13", true),
            Some(true)
        );
        assert_eq!(
            claim_conflicts(npm, &claim("13", Series), "13.3.2-canary.13", true),
            Some(false)
        );
    }

    #[test]
    fn a_claim_conflicts_with_a_constraint_that_admits_none_of_it() {
        use crate::project::version::Dialect::{Exact, Series};
        let npm = Ecosystem::Npm;
        assert_eq!(
            claim_conflicts(npm, &claim("17", Series), "^19.0.0", false),
            Some(true)
        );
        assert_eq!(
            claim_conflicts(npm, &claim("20", Series), "^19.0.0", false),
            Some(true)
        );
        assert_eq!(
            claim_conflicts(npm, &claim("19", Series), "^19.0.0", false),
            Some(false)
        );
        assert_eq!(
            claim_conflicts(npm, &claim("18", Series), ">=17", false),
            Some(false)
        );
        assert_eq!(
            claim_conflicts(npm, &claim("19.1.0", Exact), "^19.0.0", false),
            Some(false)
        );
        assert_eq!(
            claim_conflicts(npm, &claim("18", Series), "latest", false),
            None
        );
    }

    #[test]
    fn a_commit_pin_is_not_a_version() {
        use crate::project::version::Dialect::Series;
        let actions = Ecosystem::Actions;
        let pin = "3d3c42e5aac5ba805825da76410c181273ba90b1";
        assert_eq!(
            claim_conflicts(actions, &claim("4", Series), pin, false),
            None
        );
        assert!(!is_commit("v4"));
        assert!(!is_commit("20240101"));
    }
}

//! SG401 version-conflict: a version the skill states against the project's version.

use super::{file_line, located, project_version, range};
use crate::claims::Claim;
use crate::finding::Severity;
use crate::lint::{Context, Emitter, Rule};
use crate::project::Ecosystem;
use crate::project::version::{self, Release, Requirement};

/// SG401.
pub const VERSION_CONFLICT: Rule = Rule {
    code: "SG401",
    name: "version-conflict",
    severity: Severity::Error,
    summary: "The skill claims a package version the project does not use",
    what: "Compares each version the skill states (\"React 17\", `pip install django==3.2`, \
           a manifest snippet, an Actions `uses:` ref) with the version the project's \
           lockfile resolves, or with its declared constraint when there is no lockfile.",
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
    check: version_conflict,
};

/// SG401: each version claim the project's version of the package cannot meet.
fn version_conflict(cx: &Context<'_>, out: &mut Emitter) {
    let Some(project) = cx.project else {
        return;
    };
    for claim in &cx.analysis().claims {
        if matches!(
            claim.requirement.kind,
            Requirement::Any | Requirement::Unparsed
        ) {
            continue;
        }
        let ecosystem = claim.subject.ecosystem;
        if !ecosystem.has_dependencies() {
            continue;
        }
        let Some((used, resolved)) = project_version(project, ecosystem, &claim.subject.package)
        else {
            continue;
        };
        if claim_conflicts(ecosystem, claim, &used.value, resolved) != Some(true) {
            continue;
        }
        let verb = if resolved { "resolves" } else { "requires" };
        let package = &claim.subject.package;
        out.report(
            &cx.skill.source,
            range(claim.span),
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
    }
}

/// Whether the claim and the project's version cannot both hold; `None` when unknown.
fn claim_conflicts(
    ecosystem: Ecosystem,
    claim: &Claim,
    used: &str,
    resolved: bool,
) -> Option<bool> {
    if resolved {
        // A prerelease or build the claim's numbers cannot place stays unknown.
        Release::parse(used)?;
        return version::allows(ecosystem, &claim.requirement.kind, used).map(|ok| !ok);
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
            None
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
}

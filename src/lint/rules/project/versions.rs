//! SG401, SG402 and SG403: the versions a skill is written for against the project's.

use std::sync::LazyLock;

use super::{file_line, located, project_version, range};
use crate::claims::{Claim, Origin};
use crate::finding::Severity;
use crate::knowledge::{ChangeKind, knowledge};
use crate::lint::{Context, Emitter};
use crate::project::version::{self, Bound, Release, Requirement, runtime_ecosystem};
use crate::project::{Ecosystem, Located, Project, Runtime, RuntimeKind};
use crate::skill::code::{ApiMatcher, keep_strongest};
// SG401

/// SG401: each version claim the project's version of the package cannot meet.
pub(super) fn version_conflict(cx: &Context<'_>, out: &mut Emitter) {
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
        let version = Release::parse(used)?;
        return claim.requirement.kind.allows(&version).map(|ok| !ok);
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

// SG402

/// Every known API change, prepared once per process. `None` only if a pattern did not
/// compile, which the knowledge tests rule out; the rule is then silent.
static API_MATCHER: LazyLock<Option<ApiMatcher<'static>>> =
    LazyLock::new(|| ApiMatcher::new(knowledge().changes()).ok());

/// The lowest version a constraint admits, when it is a plain lower bound (`^19.0.0`,
/// `>=2.0,<3`, `~=1.4`, `v1.9.1`); a change since `X` applies to every admitted version
/// exactly when this floor is at or above `X`.
fn floor(constraint: &str) -> Option<String> {
    let text = constraint.trim();
    if text.contains("||") || text.contains(" - ") {
        return None;
    }
    let first = text.split([',', ' ']).find(|s| !s.is_empty())?;
    let bare = ["^", "~=", "~>", "~", ">=", "==", "="]
        .iter()
        .find_map(|op| first.strip_prefix(op))
        .unwrap_or(first)
        .trim();
    Release::parse(bare).map(|_| bare.trim_start_matches(['v', 'V']).to_owned())
}

/// The project's version of a knowledge package, and where it comes from: a lockfile
/// version, the floor of a constraint, or a runtime's range floor or pin.
fn knowledge_version<'p>(
    project: &'p Project,
    ecosystem: Ecosystem,
    package: &str,
) -> Option<(String, &'p Located<String>)> {
    if ecosystem == Ecosystem::Runtime {
        let runtime = runtime_of(project, package)?;
        let value = &runtime.version;
        return match runtime.kind {
            RuntimeKind::Range => floor(&value.value).map(|v| (v, value)),
            RuntimeKind::Pin => Release::parse(&value.value).map(|v| (v.to_string(), value)),
        };
    }
    if !ecosystem.has_dependencies() {
        return None;
    }
    let (used, resolved) = project_version(project, ecosystem, package)?;
    let version = if resolved {
        used.value.clone()
    } else {
        floor(&used.value)?
    };
    Some((version, used))
}

/// SG402: each use of an API the project's version removed or deprecated, strongest first.
pub(super) fn changed_api(cx: &Context<'_>, out: &mut Emitter) {
    let (Some(project), Some(matcher)) = (cx.project, API_MATCHER.as_ref()) else {
        return;
    };
    let versions =
        |ecosystem, package: &str| knowledge_version(project, ecosystem, package).map(|(v, _)| v);
    let compare = |ecosystem: Ecosystem, a: &str, b: &str| version::compare(ecosystem, a, b);
    let hits = keep_strongest(matcher.hits(&cx.analysis().facts, &versions, &compare));
    for hit in hits {
        let Some((file, change)) = knowledge().change(&hit.change_id) else {
            continue;
        };
        let severity = match hit.kind {
            ChangeKind::Removed => Severity::Error,
            ChangeKind::Deprecated | ChangeKind::Renamed => Severity::Warning,
        };
        let since = change
            .since
            .as_deref()
            .map(|s| format!(" since {} {s}", file.package))
            .unwrap_or_default();
        let place = knowledge_version(project, file.ecosystem, &file.package).map(|(_, p)| p);
        let used = place
            .map(|p| {
                format!(
                    ", and the project uses {} {} ({})",
                    file.package,
                    p.value,
                    file_line(p)
                )
            })
            .unwrap_or_default();
        let help = match &change.replacement {
            Some(replacement) => format!("use {replacement} instead; see {}", change.source),
            None => format!("see {}", change.source),
        };
        let finding = out
            .report(
                &cx.skill.source,
                range(hit.span),
                format!(
                    "{} is {}{since}{used}: {}",
                    shown(&hit.matched, &file.package),
                    hit.kind,
                    change.summary
                ),
            )
            .severity(severity)
            .help(help);
        if let Some(place) = place {
            finding.related_at(
                located(project, place),
                format!("the project's {}", file.package),
            );
        }
    }
}

/// How a matched use is named in a message: a method call matched by name alone
/// (`.append(`) says which package's objects it is about.
fn shown(matched: &str, package: &str) -> String {
    match matched.strip_prefix('.').and_then(|m| m.strip_suffix('(')) {
        Some(method) => format!("`.{method}()` on a {package} object"),
        None => format!("`{matched}`"),
    }
}

// SG403

/// SG403: each runtime claim the project's supported range or pins contradict.
pub(super) fn runtime_conflict(cx: &Context<'_>, out: &mut Emitter) {
    let Some(project) = cx.project else {
        return;
    };
    for claim in &cx.analysis().claims {
        if claim.subject.ecosystem != Ecosystem::Runtime {
            continue;
        }
        let name = claim.subject.package.as_str();
        let (Some(runtime), Some(ecosystem)) = (runtime_of(project, name), runtime_ecosystem(name))
        else {
            continue;
        };
        let Some((min, max)) = claim.requirement.kind.bounds() else {
            continue;
        };
        let value = &runtime.version;
        let conflict = match runtime.kind {
            // Prose states a requirement ("needs Python 3.12"): the project must not support
            // anything older. A CI version or base image only runs on one version: it
            // conflicts only when the range excludes it.
            RuntimeKind::Range if claim.origin == Origin::Prose => {
                range_conflict(ecosystem, &value.value, min, max)
            }
            RuntimeKind::Range => outside_range(ecosystem, &value.value, min, max),
            // Repositories often pin a runtime in several places (CI matrix, Dockerfile,
            // version files); the claim conflicts only when it misses every pin.
            RuntimeKind::Pin => Some(
                project
                    .runtimes_named(name)
                    .filter(|r| r.kind == RuntimeKind::Pin)
                    .filter_map(|r| pin_conflict(&r.version.value, min.clone(), max.clone()))
                    .all(|conflict| conflict),
            ),
        };
        if conflict != Some(true) {
            continue;
        }
        let (verb, guarantee) = match runtime.kind {
            RuntimeKind::Range => (
                "supports",
                "make the advice work on every version the project supports",
            ),
            RuntimeKind::Pin => ("pins", "match the runtime the project pins"),
        };
        out.report(
            &cx.skill.source,
            range(claim.span),
            format!(
                "the skill needs {name} {}, but the project {verb} {name} {} ({})",
                claim.requirement.written,
                value.value,
                file_line(value)
            ),
        )
        .help(format!(
            "{guarantee}, or say which {name} versions the skill is for"
        ))
        .related_at(located(project, value), format!("the project's {name}"));
    }
}

/// The runtime entry a claim is compared with: the supported range, else the first pin
/// that reads as a version (`global.json`'s `8.0.203` rather than a `net8.0` target).
fn runtime_of<'p>(project: &'p Project, name: &str) -> Option<&'p Runtime> {
    let range = project
        .runtime(name)
        .filter(|r| r.kind == RuntimeKind::Range);
    range.or_else(|| {
        project
            .runtimes
            .iter()
            .find(|r| r.name == name && Release::parse(&r.version.value).is_some())
    })
}

/// A supported range conflicts with the claim when it admits versions below the claim's
/// minimum (the project must keep working there) or only versions past its maximum.
fn range_conflict(
    ecosystem: Ecosystem,
    range: &str,
    min: Option<Bound<Release>>,
    max: Option<Bound<Release>>,
) -> Option<bool> {
    let below_min =
        min.and_then(|m| version::admits_below(ecosystem, range, &m.version.to_string()));
    let reaches = max
        .filter(|m| !m.inclusive)
        .and_then(|m| version::admits_below(ecosystem, range, &m.version.to_string()));
    match (below_min, reaches) {
        (None, None) => None,
        (a, b) => Some(a == Some(true) || b == Some(false)),
    }
}

/// Whether a range admits no version of the claim's interval.
fn outside_range(
    ecosystem: Ecosystem,
    range: &str,
    min: Option<Bound<Release>>,
    max: Option<Bound<Release>>,
) -> Option<bool> {
    let reaches_min =
        min.and_then(|m| version::admits_at_least(ecosystem, range, &m.version.to_string()));
    let reaches_below_max = max
        .filter(|m| !m.inclusive)
        .and_then(|m| version::admits_below(ecosystem, range, &m.version.to_string()));
    match (reaches_min, reaches_below_max) {
        (None, None) => None,
        (a, b) => Some(a == Some(false) || b == Some(false)),
    }
}

/// A pin (`3.12` stands for every `3.12.x`) conflicts when it and the claim share no version.
fn pin_conflict(
    pin: &str,
    min: Option<Bound<Release>>,
    max: Option<Bound<Release>>,
) -> Option<bool> {
    let low = Release::parse(pin)?;
    let mut high = low.clone();
    if let Some(last) = high.parts.last_mut() {
        *last = last.saturating_add(1);
    }
    let past = max.is_some_and(|b| {
        if b.inclusive {
            b.version < low
        } else {
            b.version <= low
        }
    });
    let before = min.is_some_and(|b| b.version >= high);
    Some(past || before)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_reads_plain_lower_bounds_only() {
        assert_eq!(floor("^19.0.0").as_deref(), Some("19.0.0"));
        assert_eq!(floor(">=2.0,<3").as_deref(), Some("2.0"));
        assert_eq!(floor("~=1.4").as_deref(), Some("1.4"));
        assert_eq!(floor("v1.9.1").as_deref(), Some("1.9.1"));
        assert_eq!(floor("<3"), None);
        assert_eq!(floor("1 || 2"), None);
        assert_eq!(floor("latest"), None);
    }

    #[test]
    fn a_pin_conflicts_only_with_disjoint_claims() {
        let at = |v: &str, inclusive| Release::parse(v).map(|version| Bound { version, inclusive });
        assert_eq!(pin_conflict("3.12", at("3.12", true), None), Some(false));
        assert_eq!(
            pin_conflict("3.12.1", at("3.12", true), at("3.13", false)),
            Some(false)
        );
        assert_eq!(pin_conflict("3.11", at("3.12", true), None), Some(true));
        assert_eq!(
            pin_conflict("20", at("18", true), at("19", false)),
            Some(true)
        );
        assert_eq!(pin_conflict("lts/iron", at("18", true), None), None);
    }

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

    #[test]
    fn ranges_against_requirements_and_single_versions() {
        let at = |v: &str, inclusive| Release::parse(v).map(|version| Bound { version, inclusive });
        let pypi = Ecosystem::Pypi;
        // "needs 3.12" against >=3.9: the project still supports 3.9 to 3.11.
        assert_eq!(
            range_conflict(pypi, ">=3.9", at("3.12", true), None),
            Some(true)
        );
        assert_eq!(
            range_conflict(pypi, ">=3.12", at("3.12", true), None),
            Some(false)
        );
        // A CI matrix on 3.12 inside >=3.9 is fine; on 3.8 it is not.
        assert_eq!(
            outside_range(pypi, ">=3.9", at("3.12", true), at("3.13", false)),
            Some(false)
        );
        assert_eq!(
            outside_range(pypi, ">=3.9", at("3.8", true), at("3.9", false)),
            Some(true)
        );
        assert_eq!(outside_range(pypi, "whatever", at("3.8", true), None), None);
    }
}

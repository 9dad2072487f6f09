//! SG403 runtime-conflict: a runtime version the skill needs against the project's
//! supported range or pins.

use super::{file_line, located, runtime_of};
use crate::claims::{Claim, Origin, Role};
use crate::finding::Severity;
use crate::lint::RuleDoc;
use crate::lint::{Context, Emitter, Rule};
use crate::project::version::{self, Bound, Release, Requirement, runtime_ecosystem};
use crate::project::{Ecosystem, RuntimeKind};

/// SG403.
pub const RUNTIME_CONFLICT: Rule = Rule {
    doc: RuleDoc {
        code: "SG403",
        name: "runtime-conflict",
        severity: Severity::Warning,
        summary: "The skill needs a runtime version the project does not guarantee",
        what: "Compares runtime claims (\"Python 3.12\", \"Node.js >= 20\", `FROM python:3.12`, \
           `setup-node` versions) with the project's supported range (`requires-python`, \
           `engines.node`, `rust-version`, the `go` directive) or, without a range, its pin \
           (`.python-version`, `.nvmrc`). A requirement in prose conflicts with a range that \
           still admits older versions; a CI version or base image only when the range \
           excludes it.",
        why: "A skill that needs Python 3.12 syntax makes the agent break a project that must \
          keep working on 3.9.",
        fires: r#"==> SKILL.md <==
---
name: demo
description: Writes data models. Use when adding a model.
---
This skill needs Python 3.12 or later.
==> @repo/pyproject.toml <==
[project]
name = "app"
requires-python = ">=3.9"
"#,
        passes: r#"==> SKILL.md <==
---
name: demo
description: Writes data models. Use when adding a model.
---
This skill needs Python 3.9 or later.
==> @repo/pyproject.toml <==
[project]
name = "app"
requires-python = ">=3.9"
"#,
    },
    check: runtime_conflict,
};

/// SG403: each runtime claim the project's supported range or pins contradict.
fn runtime_conflict(cx: &Context<'_>, out: &mut Emitter) {
    let Some(project) = cx.project else {
        return;
    };
    // "Django 5.1 requires Python 3.10+" is a fact about Django, not what the skill needs.
    // One finding per runtime and claimed range, the other places in `related`.
    let mut groups: Vec<(&Claim, Vec<&Claim>)> = Vec::new();
    for claim in cx
        .analysis()
        .claims
        .iter()
        .filter(|c| c.subject.ecosystem == Ecosystem::Runtime && c.role == Role::Target)
    {
        match groups.iter_mut().find(|(head, _)| {
            head.subject == claim.subject
                && head.requirement.kind == claim.requirement.kind
                && (head.origin == Origin::Prose) == (claim.origin == Origin::Prose)
        }) {
            Some((_, more)) => more.push(claim),
            None => groups.push((claim, Vec::new())),
        }
    }
    for (claim, more) in groups {
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
                    .filter_map(|r| {
                        pin_conflict(ecosystem, &r.version.value, min.clone(), max.clone())
                    })
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
        let finding = out
            .report_at(
                cx.analysis().location(cx.skill, claim.span),
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
        for other in more {
            finding.related_at(
                cx.analysis().location(cx.skill, other.span),
                format!("{name} {} again", other.requirement.written),
            );
        }
    }
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

/// A pin (`3.12` stands for every `3.12.x`) conflicts when it and the claim share no version,
/// the claim's bounds ordered against the pin by the runtime's ecosystem.
fn pin_conflict(
    ecosystem: Ecosystem,
    pin: &str,
    min: Option<Bound<Release>>,
    max: Option<Bound<Release>>,
) -> Option<bool> {
    let series = Requirement::Series(Release::parse(pin)?);
    let (Some(low), Some(high)) = series.bounds()? else {
        return None;
    };
    let (low, high) = (low.version, high.version);
    let order =
        |a: &Release, b: &Release| version::compare(ecosystem, &a.to_string(), &b.to_string());
    let past = match max {
        Some(b) if b.inclusive => order(&b.version, &low)?.is_lt(),
        Some(b) => order(&b.version, &low)?.is_le(),
        None => false,
    };
    let before = match min {
        Some(b) => order(&b.version, &high)?.is_ge(),
        None => false,
    };
    Some(past || before)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pin_conflicts_only_with_disjoint_claims() {
        let npm = Ecosystem::Npm;
        let at = |v: &str, inclusive| Release::parse(v).map(|version| Bound { version, inclusive });
        assert_eq!(
            pin_conflict(npm, "3.12", at("3.12", true), None),
            Some(false)
        );
        assert_eq!(
            pin_conflict(npm, "3.12.1", at("3.12", true), at("3.13", false)),
            Some(false)
        );
        assert_eq!(
            pin_conflict(npm, "3.11", at("3.12", true), None),
            Some(true)
        );
        assert_eq!(
            pin_conflict(npm, "20", at("18", true), at("19", false)),
            Some(true)
        );
        assert_eq!(pin_conflict(npm, "lts/iron", at("18", true), None), None);
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

//! SG407 api-too-new: uses in the skill's examples of an API that first appeared in a
//! version newer than the project's, matched against the knowledge files' `added` entries.

use super::{
    Changes, KnownVersion, VersionSource, file_line, knowledge_version, located, project_matcher,
    shown,
};
use crate::claims::Role;
use crate::finding::Severity;
use crate::knowledge::{ApiFile, Pattern};
use crate::lint::RuleDoc;
use crate::lint::{Context, Emitter, Rule};
use crate::project::version::{self, Release};
use crate::project::{Ecosystem, Project, RuntimeKind};

/// SG407.
pub const API_TOO_NEW: Rule = Rule {
    doc: RuleDoc {
        code: "SG407",
        name: "api-too-new",
        severity: Severity::Warning,
        summary: "An example uses an API that first appeared after the project's version",
        what: "Matches the skill's code blocks against the known API additions (`added` entries \
           in rules/apis) and reports each use of an API that the project's version of the \
           package, or of the runtime, does not have yet, naming the version that introduced \
           it and the project's own. Language syntax counts as a runtime addition: a Java \
           `record`, `var`, text block, arrow switch, `instanceof` pattern, `sealed` type, \
           `var` lambda parameter, record pattern or pattern `case` above the project's Java \
           release (a POM's or a Gradle build's), and a Python `:=`, positional-only `/`, `match`, \
           parenthesized `with`, `except*`, `type` statement or type-parameter list above its \
           Python floor, read from the parse tree (`var` as a method name or `match = ...` is \
           no use). A lockfile's version is compared as resolved; a \
           dependency constraint only when even the newest version it admits is older \
           (`^18.2.0` cannot be React 19, `>=18` can); a runtime's supported range \
           (`requires-python`, `engines`, the `go` directive) by its floor, which the \
           project must keep working on; runtime pins when every pin is older. In a project \
           that depends on Next.js, whose App Router runs on the React canary it bundles, \
           React 19.0's additions are not reported, and later ones only while next is older \
           than 15 (a next whose version cannot be read counts as 15 or newer).",
        why: "An agent copies examples: `useEffectEvent` on React 18 or `tomllib` on Python 3.10 \
          is code that does not build or run on the project. A warning rather than an error, \
          because a skill may offer the new API only for newer versions in words the rule \
          does not read; the help says what older versions use instead.",
        fires: r#"==> SKILL.md <==
---
name: demo
description: Writes React effects. Use when an effect reads changing values.
---
```jsx
import { useEffect, useEffectEvent } from 'react';
const onTick = useEffectEvent(() => log(count));
useEffect(() => { const id = setInterval(onTick, 1000); return () => clearInterval(id); }, []);
```
==> @repo/package.json <==
{ "name": "app", "dependencies": { "react": "^18.2.0" } }
"#,
        passes: r#"==> SKILL.md <==
---
name: demo
description: Writes React effects. Use when an effect reads changing values.
---
```jsx
import { useEffect, useRef } from 'react';
const latest = useRef(count);
useEffect(() => { latest.current = count; });
useEffect(() => { const id = setInterval(() => log(latest.current), 1000); return () => clearInterval(id); }, []);
```
==> @repo/package.json <==
{ "name": "app", "dependencies": { "react": "^18.2.0" } }
"#,
    },
    check: api_too_new,
};

/// SG407: each use of an API the project's version does not have yet.
fn api_too_new(cx: &Context<'_>, out: &mut Emitter) {
    let Some(project) = cx.project else {
        return;
    };
    if cx.analysis().facts.is_empty() {
        return;
    }
    let Some(built) = project_matcher(project, Changes::Added) else {
        return;
    };
    let matcher = &built.matcher;
    let versions = |ecosystem, package: &str| {
        knowledge_version(project, ecosystem, package).map(|known| compared(ecosystem, &known))
    };
    let compare = |ecosystem: Ecosystem, a: &str, b: &str| version::compare(ecosystem, a, b);
    let mut hits = matcher.hits(&cx.analysis().facts, &versions, &compare);
    // Code in a section for readers on another version ("If you are on Java 17 or later"),
    // in the part of an upgrade that shows where it leads, or shown as what not to do, is
    // not the skill's advice for this project.
    hits.retain(|hit| {
        !matches!(
            cx.analysis().section_role_at(cx.skill, hit.span.start),
            Some(Role::Gated | Role::Destination | Role::Avoided)
        )
    });
    // One finding per API, at its first use; the other uses are related locations.
    let mut reported: Vec<&str> = Vec::new();
    for hit in &hits {
        if reported.contains(&hit.change_id.as_str()) {
            continue;
        }
        reported.push(&hit.change_id);
        let Some((file, change)) = built.change(&hit.change_id) else {
            continue;
        };
        let (Some(since), Some(known)) = (
            change.since.as_deref(),
            knowledge_version(project, file.ecosystem, &file.package),
        ) else {
            continue;
        };
        if !too_old(project, file, since, &known) || bundled_by_next(project, file, since) {
            continue;
        }
        let package = &file.package;
        let verb = match known.source {
            VersionSource::Resolved => "uses",
            VersionSource::Constraint => "requires",
            VersionSource::RuntimeRange => "supports",
            VersionSource::RuntimePin => "pins",
        };
        let help = match &change.replacement {
            Some(older) => format!(
                "on {package} before {since}: {older}; or upgrade {package} to {since} or later; see {}",
                change.source
            ),
            None => format!(
                "this needs {package} {since} or later; see {}",
                change.source
            ),
        };
        let finding = out
            .report_at(
                cx.analysis().location(cx.skill, hit.span),
                format!(
                    "{} is new in {package} {since}, but the project {verb} {package} {} ({}): {}",
                    match &change.pattern {
                        Pattern::Syntax { syntax } => syntax.noun().to_owned(),
                        _ => named(file.ecosystem, &hit.matched, package),
                    },
                    known.place.value,
                    file_line(known.place),
                    change.summary
                ),
            )
            .help(help)
            .related_at(
                located(project, known.place),
                format!("the project's {package}"),
            );
        for again in hits.iter().filter(|h| h.change_id == hit.change_id).skip(1) {
            finding.related_at(
                cx.analysis().location(cx.skill, again.span),
                "used here too".to_owned(),
            );
        }
    }
}

/// How a matched use is named: a method of a runtime's standard library is a call, not an
/// object of the runtime.
fn named(ecosystem: Ecosystem, matched: &str, package: &str) -> String {
    let method = matched.strip_prefix('.').and_then(|m| m.strip_suffix('('));
    match (ecosystem, method) {
        (Ecosystem::Runtime, Some(method)) => format!("a `.{method}()` call"),
        _ => shown(matched, package),
    }
}

/// The version the matcher compares with `since`: a resolved pre-release counts as its
/// release (`19.2.0-canary.3` already has what 19.2.0 adds), so only a version that is
/// older in its release numbers reports.
fn compared(ecosystem: Ecosystem, known: &KnownVersion<'_>) -> String {
    match known.source {
        VersionSource::Resolved => version::release_line(ecosystem, &known.version)
            .map_or_else(|| known.version.clone(), |release| release.to_string()),
        _ => known.version.clone(),
    }
}

/// Next.js's App Router runs on the React canary it bundles, not on the project's own
/// react: that canary had React 19.0's additions before 19.0 shipped, and from Next.js 15 on
/// it may be ahead of any stable React. So in a Next.js project, React 19.0's additions are
/// not reported, and later ones only while next itself is older than 15. A next whose version
/// cannot be read (`latest`, a git URL) counts as 15 or newer: a wrong finding costs more than
/// a missed one.
fn bundled_by_next(project: &Project, file: &ApiFile, since: &str) -> bool {
    if file.ecosystem != Ecosystem::Npm || !matches!(file.package.as_str(), "react" | "react-dom") {
        return false;
    }
    if project
        .dependencies_named(Ecosystem::Npm, "next")
        .next()
        .is_none()
    {
        return false;
    }
    let before = |a: &str, b: &str| {
        version::compare(Ecosystem::Npm, a, b).is_some_and(|order| order.is_lt())
    };
    if before(since, "19.1.0") {
        return true;
    }
    let next = knowledge_version(project, Ecosystem::Npm, "next")
        .and_then(|known| version::release_line(Ecosystem::Npm, &known.version));
    next.is_none_or(|next| !before(&next.to_string(), "15.0.0"))
}

/// Whether the project cannot have an API added in `since`, beyond the matcher's floor
/// comparison: a constraint that still admits `since` or later may be on it (no lockfile
/// says otherwise), and a project pinning a runtime in several places is too old only when
/// every pin is.
fn too_old(project: &Project, file: &ApiFile, since: &str, known: &KnownVersion<'_>) -> bool {
    match known.source {
        VersionSource::Resolved | VersionSource::RuntimeRange => true,
        VersionSource::Constraint => {
            version::admits_at_least(file.ecosystem, &known.place.value, since) == Some(false)
        }
        VersionSource::RuntimePin => project
            .runtimes_named(&file.package)
            .filter(|runtime| runtime.kind == RuntimeKind::Pin)
            .filter_map(|runtime| Release::parse(&runtime.version.value))
            .all(|pin| {
                version::compare(file.ecosystem, since, &pin.to_string()).is_some_and(|o| o.is_gt())
            }),
    }
}

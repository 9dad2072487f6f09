//! SG4xx: the skill against the repository it is meant for.
//!
//! Every rule here reads the scanned [`Project`] and the skill's [`Analysis`] and stays
//! silent when there is no project, when the two agree, and when a version cannot be
//! parsed: a wrong finding about someone's own repository costs more trust than a missed
//! one.
//!
//! [`Analysis`]: crate::skill::analysis::Analysis

use std::collections::HashSet;
use std::ops::Range;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::head;
use crate::finding::{Location, Severity};
use crate::knowledge::{self, ChangeKind, knowledge};
use crate::lint::fit::{self, Fit};
use crate::lint::{Context, Emitter, Rule};
use crate::project::version::{self, runtime_ecosystem};
use crate::project::{Dependency, Ecosystem, Located, Project, Runtime, RuntimeKind};
use crate::skill::Skill;
use crate::skill::claims::{Bound, Claim, Origin, Requirement, Version};
use crate::skill::code::{ApiMatcher, Lang, Span, keep_strongest};

/// SG400.
pub const UNREADABLE_MANIFEST: Rule = Rule {
    code: "SG400",
    name: "unreadable-manifest",
    severity: Severity::Info,
    summary: "A manifest or lockfile of the repository could not be read",
    what: "Reports each manifest or lockfile the project scan could not parse, with its \
           file, line and column; the scan goes on without it.",
    why: "The SG4xx rules compare the skill with what the repository declares; a manifest \
          they cannot read is a blind spot worth knowing about.",
    fires: r#"==> SKILL.md <==
---
name: demo
description: Formats notes. Use when writing notes.
---
Format the notes.
==> @repo/package.json <==
{ "name": "app", "dependencies": { "react": }
"#,
    passes: r#"==> SKILL.md <==
---
name: demo
description: Formats notes. Use when writing notes.
---
Format the notes.
==> @repo/package.json <==
{ "name": "app", "dependencies": { "react": "^19.0.0" } }
"#,
    check: |cx, out| {
        let Some(project) = cx.project else {
            return;
        };
        for problem in &project.diagnostics {
            let location = place(project, &problem.path, problem.line, problem.column);
            out.report_at(
                location,
                format!(
                    "cannot read {}:{}:{}: {}",
                    problem.path.display(),
                    problem.line,
                    problem.column,
                    problem.message
                ),
            )
            .help("fix the file so the project's versions can be compared with the skill");
        }
    },
};

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

/// SG402.
pub const CHANGED_API: Rule = Rule {
    code: "SG402",
    name: "removed-api",
    severity: Severity::Error,
    summary: "An example uses an API removed or deprecated in the project's version",
    what: "Matches the skill's code blocks against the known API changes (rules/apis) and \
           reports each use of an API that the project's version of the package removed \
           (error) or deprecated (warning), with the replacement and the source.",
    why: "An agent copies examples; an example that calls a removed API produces code that \
          fails on the project's version.",
    fires: r#"==> SKILL.md <==
---
name: demo
description: Mounts React apps. Use when editing the entry point.
---
```jsx
import ReactDOM from 'react-dom';
ReactDOM.render(<App />, document.getElementById('root'));
```
==> @repo/package.json <==
{ "name": "app", "dependencies": { "react-dom": "^19.0.0" } }
"#,
    passes: r#"==> SKILL.md <==
---
name: demo
description: Mounts React apps. Use when editing the entry point.
---
```jsx
import { createRoot } from 'react-dom/client';
createRoot(document.getElementById('root')).render(<App />);
```
==> @repo/package.json <==
{ "name": "app", "dependencies": { "react-dom": "^19.0.0" } }
"#,
    check: changed_api,
};

/// SG403.
pub const RUNTIME_CONFLICT: Rule = Rule {
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
    check: runtime_conflict,
};

/// SG404.
pub const TOOL_CONFLICT: Rule = Rule {
    code: "SG404",
    name: "tool-conflict",
    severity: Severity::Warning,
    summary: "The skill runs a package manager, test runner or build tool the project does not use",
    what: "Reads the commands in shell blocks and inline code (`npm install`, `pip install`, \
           `npx jest`, `mvn package`) and compares each tool with the project's own of the \
           same kind: package manager by lockfile and `packageManager`, test runner and \
           build tool by configuration and dependencies.",
    why: "`npm install` in a pnpm repository writes a second lockfile; `jest` in a vitest \
          repository runs nothing. Agents follow the skill's commands literally.",
    fires: r#"==> SKILL.md <==
---
name: demo
description: Adds dependencies. Use when a package is missing.
---
```bash
npm install zod
```
==> @repo/package.json <==
{ "name": "app", "packageManager": "pnpm@9.12.0", "dependencies": { "zod": "^3.23.0" } }
"#,
    passes: r#"==> SKILL.md <==
---
name: demo
description: Adds dependencies. Use when a package is missing.
---
```bash
pnpm add zod
```
==> @repo/package.json <==
{ "name": "app", "packageManager": "pnpm@9.12.0", "dependencies": { "zod": "^3.23.0" } }
"#,
    check: tool_conflict,
};

/// SG405.
pub const OFF_STACK: Rule = Rule {
    code: "SG405",
    name: "off-stack",
    severity: Severity::Warning,
    summary: "The skill works in languages and packages the project does not use",
    what: "Computes the stack fit: the ecosystems the skill works in (its code blocks' \
           languages, the packages and runtimes it names) against the project's \
           (dependencies, runtimes, source files). `core` when the project uses all of them, \
           `partial` when some, `off-stack` when none; off-stack is reported.",
    why: "A skill for another stack only costs context and pulls the agent towards \
          conventions the repository does not have.",
    fires: r#"==> SKILL.md <==
---
name: demo
description: Writes Django views. Use when adding a view.
---
```python
from django.http import HttpResponse
```
==> @repo/package.json <==
{ "name": "app", "dependencies": { "react": "^19.0.0" } }
"#,
    passes: r#"==> SKILL.md <==
---
name: demo
description: Writes React components. Use when adding a component.
---
```jsx
import { useState } from 'react';
```
==> @repo/package.json <==
{ "name": "app", "dependencies": { "react": "^19.0.0" } }
"#,
    check: |cx, out| {
        let Some(project) = cx.project else {
            return;
        };
        let fit = fit::stack_fit(cx.analysis(), project);
        if fit.fit == Some(Fit::OffStack) {
            let skill: Vec<&str> = fit.skill.iter().map(|e| fit::name(*e)).collect();
            let theirs: Vec<&str> = fit.project.iter().map(|e| fit::name(*e)).collect();
            let theirs = if theirs.is_empty() {
                "no package ecosystem".to_owned()
            } else {
                theirs.join(", ")
            };
            out.report(
                &cx.skill.source,
                head(cx.skill),
                format!(
                    "fit: off-stack: the skill works in {}, the project in {theirs}",
                    skill.join(", ")
                ),
            )
            .help(format!(
                "do not inject this skill here; evidence: {}",
                fit.evidence.join("; ")
            ));
        }
    },
};

/// SG406.
pub const UNDECLARED_PACKAGE: Rule = Rule {
    code: "SG406",
    name: "undeclared-package",
    severity: Severity::Info,
    summary: "The skill uses a package the project does not depend on",
    what: "Reports packages the skill installs or imports in the project's own ecosystems \
           that no manifest or lockfile of the project names.",
    why: "Following the skill adds a dependency; that may be intended, but it should be a \
          decision, not a side effect.",
    fires: r#"==> SKILL.md <==
---
name: demo
description: Validates input. Use when parsing requests.
---
```bash
pnpm add zod
```
==> @repo/package.json <==
{ "name": "app", "packageManager": "pnpm@9.12.0", "dependencies": { "react": "^19.0.0" } }
"#,
    passes: r#"==> SKILL.md <==
---
name: demo
description: Validates input. Use when parsing requests.
---
```bash
pnpm add zod
```
==> @repo/package.json <==
{ "name": "app", "packageManager": "pnpm@9.12.0", "dependencies": { "zod": "^3.23.0" } }
"#,
    check: undeclared_package,
};

/// A place in the project, for findings and related locations outside the skill.
fn place(project: &Project, path: &Path, line: u32, column: u32) -> Location {
    Location {
        path: project.root.join(path),
        line,
        column,
        end_line: line,
        end_column: column,
        span: 0..0,
    }
}

fn located(project: &Project, value: &Located<String>) -> Location {
    place(project, &value.path, value.line, value.column)
}

/// `package.json:10`, as printed in messages.
fn file_line(value: &Located<String>) -> String {
    format!("{}:{}", value.path.display(), value.line)
}

fn range(span: Span) -> Range<usize> {
    span.start..span.end
}

/// The project's entries for a package: the package itself first, then the packages its
/// knowledge alias says stand for it (a Spring Boot starter or parent for Spring Boot).
fn dependencies_for<'p>(
    project: &'p Project,
    ecosystem: Ecosystem,
    package: &str,
) -> Vec<&'p Dependency> {
    let mut found: Vec<&Dependency> = project.dependencies_named(ecosystem, package).collect();
    let aliases = knowledge().packages.iter().filter(|alias| {
        alias.ecosystem.in_project() == Some(ecosystem)
            && alias.package.eq_ignore_ascii_case(package)
            && !alias.also.is_empty()
    });
    for alias in aliases {
        for dependency in &project.dependencies {
            if dependency.ecosystem == ecosystem
                && alias.covers(&dependency.name)
                && !found.contains(&dependency)
            {
                found.push(dependency);
            }
        }
    }
    found
}

/// The project's version of a package: the lockfile's, else the declared constraint.
/// `true` when the value is a resolved version.
fn project_version<'p>(
    project: &'p Project,
    ecosystem: Ecosystem,
    package: &str,
) -> Option<(&'p Located<String>, bool)> {
    let entries = dependencies_for(project, ecosystem, package);
    if let Some(resolved) = entries.iter().find_map(|d| d.resolved.as_ref()) {
        return Some((resolved, true));
    }
    entries
        .iter()
        .find_map(|d| d.constraint.as_ref())
        .map(|c| (c, false))
}

// ---------------------------------------------------------------------------------------
// SG401

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
        let Some(ecosystem) = claim.subject.ecosystem.in_project() else {
            continue;
        };
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
        let version = Version::parse(used)?;
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

// ---------------------------------------------------------------------------------------
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
    Version::parse(bare).map(|_| bare.trim_start_matches(['v', 'V']).to_owned())
}

/// The project's version of a knowledge package, and where it comes from: a lockfile
/// version, the floor of a constraint, or a runtime's range floor or pin.
fn knowledge_version<'p>(
    project: &'p Project,
    ecosystem: knowledge::Ecosystem,
    package: &str,
) -> Option<(String, &'p Located<String>)> {
    if ecosystem == knowledge::Ecosystem::Runtime {
        let runtime = runtime_of(project, package)?;
        let value = &runtime.version;
        return match runtime.kind {
            RuntimeKind::Range => floor(&value.value).map(|v| (v, value)),
            RuntimeKind::Pin => Version::parse(&value.value).map(|v| (v.to_string(), value)),
        };
    }
    let (used, resolved) = project_version(project, ecosystem.in_project()?, package)?;
    let version = if resolved {
        used.value.clone()
    } else {
        floor(&used.value)?
    };
    Some((version, used))
}

fn changed_api(cx: &Context<'_>, out: &mut Emitter) {
    let (Some(project), Some(matcher)) = (cx.project, API_MATCHER.as_ref()) else {
        return;
    };
    let versions =
        |ecosystem, package: &str| knowledge_version(project, ecosystem, package).map(|(v, _)| v);
    let compare = |ecosystem: knowledge::Ecosystem, a: &str, b: &str| {
        let semantics = match ecosystem {
            knowledge::Ecosystem::Runtime | knowledge::Ecosystem::Kubernetes => Ecosystem::Pypi,
            other => other.in_project()?,
        };
        version::compare(semantics, a, b)
    };
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
                    "`{}` is {}{since}{used}: {}",
                    hit.matched, hit.kind, change.summary
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

// ---------------------------------------------------------------------------------------
// SG403

fn runtime_conflict(cx: &Context<'_>, out: &mut Emitter) {
    let Some(project) = cx.project else {
        return;
    };
    for claim in &cx.analysis().claims {
        if claim.subject.ecosystem != knowledge::Ecosystem::Runtime {
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
            .find(|r| r.name == name && Version::parse(&r.version.value).is_some())
    })
}

/// A supported range conflicts with the claim when it admits versions below the claim's
/// minimum (the project must keep working there) or only versions past its maximum.
fn range_conflict(
    ecosystem: Ecosystem,
    range: &str,
    min: Option<Bound>,
    max: Option<Bound>,
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
    min: Option<Bound>,
    max: Option<Bound>,
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
fn pin_conflict(pin: &str, min: Option<Bound>, max: Option<Bound>) -> Option<bool> {
    let low = Version::parse(pin)?;
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

// ---------------------------------------------------------------------------------------
// SG404

/// Tools of one kind: a project using one of them should not be told to use another.
const FAMILIES: &[(&str, &[&str])] = &[
    ("package manager", &["npm", "pnpm", "yarn", "bun"]),
    ("package manager", &["pip", "uv", "poetry", "pipenv"]),
    ("test runner", &["jest", "vitest", "mocha", "ava"]),
    (
        "bundler",
        &["vite", "webpack", "rollup", "esbuild", "parcel"],
    ),
    ("build tool", &["maven", "gradle"]),
];

/// A command that runs another (`npx jest`, `uv run pytest`, `python -m pip`), and the
/// package manager it implies, if any.
static RUNNER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:npx|pnpx|bunx|pnpm exec|pnpm dlx|yarn dlx|yarn exec|uv run|uvx|poetry run|pipenv run|python3? -m)\s+")
        .expect("valid regex")
});

/// Installs of a tool itself, or global installs: not a project convention.
static SETUP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|\s)(?:-g|--global|--user)(?:\s|$)|\b(?:install|i|add)\s+(?:-\S+\s+)*(?:npm|pnpm|yarn|bun|uv|poetry|pipenv|pip)(?:[@=<>~\s]|$)")
        .expect("valid regex")
});

/// The tool a command line uses, with the name the scanner gives it.
fn tool_of(command: &str) -> Option<&'static str> {
    let command = command.trim().trim_start_matches(['$', '>']).trim_start();
    let command = command.strip_prefix("sudo ").unwrap_or(command);
    if SETUP.is_match(command) {
        return None;
    }
    let inner = RUNNER
        .find(command)
        .map(|m| &command[m.end()..])
        .unwrap_or(command);
    let word = inner.split_whitespace().next()?;
    let word = word.trim_start_matches("./");
    let tool = match word {
        "jest" => "jest",
        "vitest" => "vitest",
        "mocha" => "mocha",
        "ava" => "ava",
        "vite" => "vite",
        "webpack" => "webpack",
        "rollup" => "rollup",
        "esbuild" => "esbuild",
        "parcel" => "parcel",
        "mvn" | "mvnw" => "maven",
        "gradle" | "gradlew" => "gradle",
        _ if inner.len() != command.len() => {
            // `python -m pip install`: pip is the tool; other wrapped commands name none.
            return (word == "pip" || word == "pip3").then_some("pip");
        }
        "npm" => "npm",
        "pnpm" => "pnpm",
        "yarn" => "yarn",
        "bun" => "bun",
        "pip" | "pip3" => "pip",
        "uv" => "uv",
        "poetry" => "poetry",
        "pipenv" => "pipenv",
        _ => return None,
    };
    Some(tool)
}

/// Command lines of the skill: shell and console blocks line by line, and inline code.
fn command_lines(skill: &Skill) -> Vec<(Range<usize>, &str)> {
    let text = &skill.source.text;
    let mut lines = Vec::new();
    for block in &skill.body.code_blocks {
        let shell = block
            .lang
            .as_deref()
            .and_then(Lang::from_tag)
            .is_some_and(|l| matches!(l, Lang::Shell | Lang::Console));
        let Some(body) = text.get(block.content.clone()).filter(|_| shell) else {
            continue;
        };
        let mut at = block.content.start;
        for line in body.split_inclusive('\n') {
            for part in line.split("&&").flat_map(|p| p.split(';')) {
                let start = at + (part.as_ptr() as usize - line.as_ptr() as usize);
                lines.push((start..start + part.trim_end().len(), part));
            }
            at += line.len();
        }
    }
    for span in &skill.body.inline_code {
        if let Some(code) = text.get(span.clone()) {
            lines.push((span.clone(), code.trim_matches('`')));
        }
    }
    lines
}

fn tool_conflict(cx: &Context<'_>, out: &mut Emitter) {
    let Some(project) = cx.project else {
        return;
    };
    let tools = &project.tools;
    let used: Vec<_> = tools
        .package_manager
        .iter()
        .chain(&tools.test_runner)
        .chain(&tools.build_tool)
        .collect();
    let mut reported = HashSet::new();
    for (span, line) in command_lines(cx.skill) {
        let Some(tool) = tool_of(line) else {
            continue;
        };
        let Some((kind, family)) = FAMILIES.iter().find(|(_, f)| f.contains(&tool)) else {
            continue;
        };
        let theirs: Vec<_> = used
            .iter()
            .filter(|t| family.contains(&t.name.as_str()))
            .collect();
        if theirs.is_empty() || theirs.iter().any(|t| t.name == tool) || !reported.insert(tool) {
            continue;
        }
        let mut names: Vec<&str> = theirs.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        let evidence = theirs.iter().find_map(|t| t.evidence.first());
        let shown = evidence
            .map(|e| format!(" ({})", file_line(e)))
            .unwrap_or_default();
        let finding = out
            .report(
                &cx.skill.source,
                span,
                format!(
                    "the skill uses {tool}, but the project's {kind} is {}{shown}",
                    names.join(" and ")
                ),
            )
            .help(format!(
                "use {} as the project does, or leave the {kind} to the repository's conventions",
                names[0]
            ));
        if let Some(evidence) = evidence {
            finding.related_at(located(project, evidence), evidence.value.clone());
        }
    }
}

// ---------------------------------------------------------------------------------------
// SG406

/// Packages that are tools being set up, not dependencies of the project.
const TOOLING: &[&str] = &[
    "pip",
    "setuptools",
    "wheel",
    "uv",
    "poetry",
    "pipenv",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "corepack",
];

fn undeclared_package(cx: &Context<'_>, out: &mut Emitter) {
    let Some(project) = cx.project else {
        return;
    };
    let ecosystems = project.ecosystems();
    let mut reported = HashSet::new();
    for claim in &cx.analysis().claims {
        let Some(ecosystem) = claim.subject.ecosystem.in_project() else {
            continue;
        };
        let package = claim.subject.package.as_str();
        let used = match claim.origin {
            Origin::Install => "installs",
            // Java imports name packages that starters pull in transitively; a missing
            // artifact says little, so only Maven installs and manifests count.
            Origin::Import if ecosystem != Ecosystem::Maven => "imports",
            _ => continue,
        };
        if !ecosystems.contains(&ecosystem)
            || TOOLING.contains(&package)
            || !dependencies_for(project, ecosystem, package).is_empty()
            || !reported.insert(claim.subject.clone())
        {
            continue;
        }
        out.report(
            &cx.skill.source,
            range(claim.span),
            format!(
                "the skill {used} {package}, which the project does not depend on ({})",
                fit::name(ecosystem)
            ),
        )
        .help("make adding the dependency a decision: say why the skill needs it, or use what the project already has");
    }
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
    fn commands_name_their_tools() {
        assert_eq!(tool_of("npm install zod"), Some("npm"));
        assert_eq!(tool_of("$ pnpm add zod"), Some("pnpm"));
        assert_eq!(tool_of("npx jest --watch"), Some("jest"));
        assert_eq!(tool_of("uv run pytest"), None);
        assert_eq!(tool_of("python -m pip install requests"), Some("pip"));
        assert_eq!(tool_of("./mvnw package"), Some("maven"));
        assert_eq!(tool_of("npm install -g pnpm"), None);
        assert_eq!(tool_of("pip install uv"), None);
        assert_eq!(tool_of("echo npm"), None);
    }

    #[test]
    fn a_pin_conflicts_only_with_disjoint_claims() {
        let at = |v: &str, inclusive| Version::parse(v).map(|version| Bound { version, inclusive });
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
}

//! SG4xx: the skill against the repository it is meant for.
//!
//! Every rule here reads the scanned [`Project`] and the skill's [`Analysis`] and stays
//! silent when there is no project, when the two agree, and when a version cannot be
//! parsed: a wrong finding about someone's own repository costs more trust than a missed
//! one.
//!
//! [`Analysis`]: crate::claims::Analysis

use crate::lint::RuleDoc;
use std::path::Path;

use super::head;
use crate::finding::{Location, Severity};
use crate::lint::Rule;
use crate::lint::fit::{self, Fit, dependencies_for};
use crate::project::version::Release;
use crate::project::{Ecosystem, Located, Project, Runtime, RuntimeKind};

mod api_too_new;
mod known_version;
mod packages;
mod removed_api;
mod runtime_conflict;
mod tools;
mod version_conflict;

pub use self::api_too_new::API_TOO_NEW;
use self::known_version::{KnownVersion, VersionSource, knowledge_version};
pub use self::removed_api::{ApiHit, ApiMatcher, PatternError, REMOVED_API, snippet_fires};
use self::removed_api::{Changes, project_matcher};
pub use self::runtime_conflict::RUNTIME_CONFLICT;
pub use self::version_conflict::VERSION_CONFLICT;

/// SG400.
pub const UNREADABLE_MANIFEST: Rule = Rule {
    doc: RuleDoc {
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
    },
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

/// SG404.
pub const TOOL_CONFLICT: Rule = Rule {
    doc: RuleDoc {
        code: "SG404",
        name: "tool-conflict",
        severity: Severity::Warning,
        summary: "The skill runs a package manager, test runner or build tool the project does not use",
        what: "Reads the commands in shell blocks and inline code (`npm install`, `pip install`, \
           `npx jest`, `bundle exec rspec`, `mvn package`) of SKILL.md and of every file it \
           names, and compares each tool with the project's own of the same kind: package \
           manager by lockfile and `packageManager`, test runner and build tool by \
           configuration and dependencies, RSpec or Minitest by the test helper. Commands the \
           skill only shows (a blockquote, a table row, a counter-example, a legacy, gated or \
           migration section) and queries that change nothing (`npm view`, `pip index \
           versions`, `pip show`) are not read. A command offered as one of several is left \
           alone: in a skill that also runs the project's own tool (a section per package \
           manager), on a line that names a lockfile (\"`yarn.lock` exists → `yarn nx`\"), or \
           with a comment offering another (`pnpm install  # or npm install`). One finding \
           per tool.",
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
    },
    check: tools::tool_conflict,
};

/// SG405.
pub const OFF_STACK: Rule = Rule {
    doc: RuleDoc {
        code: "SG405",
        name: "off-stack",
        severity: Severity::Warning,
        summary: "The skill works in languages and packages the project does not use",
        what: "Computes the stack fit from the skill's main package: among the packages and \
           languages the frontmatter names (the description, and a language word of the \
           name such as `go-concurrency-patterns`), the one the skill uses most (imports, \
           installs, manifest entries and prose names counted together), else the most used \
           of all (used at least 3 times). Named and declared by the project: `core`, or \
           `partial` when a package of its ecosystem the description also names is missing \
           (DRF or Celery beside Django). Named and missing: `off-stack` (for a language: the \
           project has none of its code or manifests), or `partial` when the project has the \
           package it extends (Django for a DRF skill). Found by use alone: `partial` when the \
           project uses its ecosystem or another the skill works in, else `off-stack`. \
           Off-stack is reported. A skill about no package is compared by ecosystems (its \
           code blocks' languages, packages and runtimes against the project's dependencies, \
           runtimes and source files) and is never off-stack: a method shown in one language \
           applies in others.",
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
    },
    check: |cx, out| {
        let Some(project) = cx.project else {
            return;
        };
        let fit = fit::stack_fit(cx.analysis(), project);
        if fit.fit == Some(Fit::OffStack) {
            let skill: Vec<&str> = fit.skill.iter().map(|e| e.as_str()).collect();
            let theirs: Vec<&str> = fit.project.iter().map(|e| e.as_str()).collect();
            let theirs = if theirs.is_empty() {
                "no package ecosystem".to_owned()
            } else {
                theirs.join(", ")
            };
            let about = match &fit.main {
                Some(main) => format!("the skill is about {}", main.package),
                None => format!("the skill works in {}", skill.join(", ")),
            };
            out.report(
                &cx.skill.source,
                head(cx.skill),
                format!("fit: off-stack: {about}, the project uses {theirs}"),
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
    doc: RuleDoc {
        code: "SG406",
        name: "undeclared-package",
        severity: Severity::Info,
        summary: "The skill uses a package the project does not depend on",
        what: "Reports each package the skill installs (code blocks, and inline commands such \
           as `pnpm add -D vitest` in prose) or imports in the project's own ecosystems that \
           no manifest or lockfile of the project names, once, with its other places. \
           Imports are named by their registry's rules: npm `@scope/name/sub` is \
           `@scope/name` and `name/sub` is `name`; a Python import is its PEP 503 \
           distribution (the import table of `rules/stack.toml` maps `yaml`, `PIL`, \
           `django_filters`, `rest_framework_simplejwt`, `decouple` and others); a PHP `use` \
           is its Composer package when the table knows its namespace (`Illuminate`, \
           `Livewire`); a Go import is covered by a `require` whose path is its prefix; \
           `use foo_bar::` is the crate `foo-bar`. Rails `config/importmap.rb` pins are npm \
           dependencies, and a package a declared one always installs (asgiref with Django) \
           is declared. Silent where the name cannot be \
           mapped with confidence: relative paths, `node:` and Node built-ins, path aliases \
           (`@/`, `~/`, `#x`, `$lib`) and virtual modules, Python's standard library and \
           modules of host applications, Go's standard library, `std`/`core`/`crate`/`self`/\
           `super`, the project's own packages, placeholder names (`my-package`, \
           `package1`, `some-chart-library`, `third-party-carousel`, `github.com/yourorg/…`), \
           modules the skill shows as its own files, apps of the example's own Django \
           project (`from orders.models import Order` beside Django), modules of other \
           JavaScript runtimes (`k6/http`), global installs (`npm i -g`) and Java imports.",
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
    },
    check: packages::undeclared_package,
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

/// How a matched use is named in a message: a method call matched by name alone
/// (`.append(`) says which package's objects it is about.
pub(super) fn shown(matched: &str, package: &str) -> String {
    match matched.strip_prefix('.').and_then(|m| m.strip_suffix('(')) {
        Some(method) => format!("`.{method}()` on a {package} object"),
        None => format!("`{matched}`"),
    }
}

/// `package.json:10`, as printed in messages.
fn file_line(value: &Located<String>) -> String {
    format!("{}:{}", value.path.display(), value.line)
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

/// The runtime entry a claim is compared with: the supported range, else the first pin
/// that reads as a version (`global.json`'s `8.0.203` rather than a `net8.0` target).
pub(super) fn runtime_of<'p>(project: &'p Project, name: &str) -> Option<&'p Runtime> {
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

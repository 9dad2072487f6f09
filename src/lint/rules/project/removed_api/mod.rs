//! SG402 removed-api: uses in the skill's examples of an API the project's version
//! removed or deprecated, matched against the knowledge files' API changes.

mod matcher;

use std::sync::LazyLock;

pub use self::matcher::{ApiHit, ApiMatcher, PatternError, keep_strongest};
use super::{file_line, knowledge_version, located, shown};
use crate::finding::Severity;
use crate::knowledge::{ApiChange, ApiFile, ChangeKind, knowledge};
use crate::lint::{Context, Emitter, Rule};
use crate::project::Ecosystem;
use crate::project::version;
use crate::skill::code::{CodeSnippet, extract_facts};

/// SG402.
pub const REMOVED_API: Rule = Rule {
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

/// Every known API change, prepared once per process. `None` only if a pattern did not
/// compile, which the knowledge tests rule out; the rule is then silent.
static API_MATCHER: LazyLock<Option<ApiMatcher<'static>>> = LazyLock::new(|| {
    // `added` entries say when an API appeared, not that it went away.
    let gone = knowledge()
        .changes()
        .filter(|(_, change)| change.kind != ChangeKind::Added);
    ApiMatcher::new(gone).ok()
});

/// Whether `text`, read as the change's first language, fires the change through the real
/// matcher, whatever the project's versions: the check the knowledge validator runs on each
/// entry's `example` (must fire) and `passes` (must not).
pub fn snippet_fires(file: &ApiFile, change: &ApiChange, text: &str) -> Result<bool, String> {
    let snippet = CodeSnippet {
        lang: change.lang.first().map(String::as_str),
        text,
        offset: 0,
    };
    let facts = extract_facts(&[snippet]);
    let matcher = ApiMatcher::new([(file, change)]).map_err(|e| e.to_string())?;
    Ok(facts.iter().any(|facts| {
        matcher
            .pattern_hits(facts)
            .iter()
            .any(|hit| hit.change_id == change.id)
    }))
}

/// SG402: each use of an API the project's version removed or deprecated, strongest first.
fn changed_api(cx: &Context<'_>, out: &mut Emitter) {
    let (Some(project), Some(matcher)) = (cx.project, API_MATCHER.as_ref()) else {
        return;
    };
    let versions = |ecosystem, package: &str| {
        knowledge_version(project, ecosystem, package).map(|known| known.version)
    };
    let compare = |ecosystem: Ecosystem, a: &str, b: &str| version::compare(ecosystem, a, b);
    let hits = keep_strongest(matcher.hits(&cx.analysis().facts, &versions, &compare));
    for hit in hits {
        let Some((file, change)) = knowledge().change(&hit.change_id) else {
            continue;
        };
        let severity = match hit.kind {
            ChangeKind::Removed => Severity::Error,
            ChangeKind::Deprecated | ChangeKind::Renamed | ChangeKind::Added => Severity::Warning,
        };
        let since = change
            .since
            .as_deref()
            .map(|s| format!(" since {} {s}", file.package))
            .unwrap_or_default();
        let place =
            knowledge_version(project, file.ecosystem, &file.package).map(|known| known.place);
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
            .report_at(
                cx.analysis().location(cx.skill, hit.span),
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

//! SG402 removed-api: uses in the skill's examples of an API the project's version
//! removed or deprecated, matched against the knowledge files' API changes.

mod matcher;

use crate::lint::RuleDoc;
use std::sync::{Arc, Mutex, PoisonError};

pub use self::matcher::{ApiHit, ApiMatcher, PatternError, keep_strongest};
use super::{file_line, knowledge_version, located, shown};
use crate::finding::Severity;
use crate::knowledge::{ApiChange, ApiFile, ChangeKind, api_files};
use crate::lint::{Context, Emitter, Rule};
use crate::project::version;
use crate::project::{Ecosystem, Project};
use crate::skill::code::{CodeSnippet, extract_facts};

/// SG402.
pub const REMOVED_API: Rule = Rule {
    doc: RuleDoc {
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
    },
    check: changed_api,
};

/// The known API changes a project can run into, ready to match: those of the packages it
/// has a version of, and the Actions entries, which need none.
#[derive(Debug)]
pub(super) struct ProjectMatcher {
    /// The API files the matcher was built from.
    files: Vec<&'static ApiFile>,
    /// Their changes of the kinds asked for.
    pub matcher: ApiMatcher<'static>,
}

impl ProjectMatcher {
    /// The change with `id`, and its file.
    pub fn change(&self, id: &str) -> Option<(&'static ApiFile, &'static ApiChange)> {
        self.files
            .iter()
            .find_map(|file| file.changes.iter().find(|c| c.id == id).map(|c| (*file, c)))
    }
}

/// Which changes a matcher holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Changes {
    /// Removed, deprecated and renamed APIs (SG402).
    Gone,
    /// Added APIs (SG407).
    Added,
}

/// The last matcher built for each kind: an audit checks every skill against one project,
/// so the files and the matcher are the same from one skill to the next.
static MATCHERS: [Mutex<Option<Arc<ProjectMatcher>>>; 2] = [Mutex::new(None), Mutex::new(None)];

/// The matcher of `changes` for `project`. Only the API files of packages the project has
/// a version of are read (and Actions', whose entries need no version): no other entry can
/// apply, since a change with a `since` is compared with the project's version and only
/// Actions entries have none (`only_actions_entries_have_no_since`). `None` only if a
/// pattern did not compile, which the knowledge tests rule out; the rule is then silent.
pub(super) fn project_matcher(project: &Project, changes: Changes) -> Option<Arc<ProjectMatcher>> {
    let files = api_files(|ecosystem, package| {
        ecosystem == Ecosystem::Actions || knowledge_version(project, ecosystem, package).is_some()
    });
    let slot = &MATCHERS[changes as usize];
    let mut cached = slot.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(built) = cached
        .as_ref()
        .filter(|built| same_files(&built.files, &files))
    {
        return Some(Arc::clone(built));
    }
    let wanted =
        move |change: &ApiChange| (change.kind == ChangeKind::Added) == (changes == Changes::Added);
    let entries = files
        .iter()
        .flat_map(|file| file.changes.iter().map(move |change| (*file, change)))
        .filter(|(_, change)| wanted(change));
    let built = Arc::new(ProjectMatcher {
        matcher: ApiMatcher::new(entries).ok()?,
        files,
    });
    *cached = Some(Arc::clone(&built));
    Some(built)
}

fn same_files(a: &[&'static ApiFile], b: &[&'static ApiFile]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| std::ptr::eq(*x, *y))
}

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
    let Some(project) = cx.project else {
        return;
    };
    if cx.analysis().facts.is_empty() {
        return;
    }
    let Some(built) = project_matcher(project, Changes::Gone) else {
        return;
    };
    let matcher = &built.matcher;
    let versions = |ecosystem, package: &str| {
        knowledge_version(project, ecosystem, package).map(|known| known.version)
    };
    let compare = |ecosystem: Ecosystem, a: &str, b: &str| version::compare(ecosystem, a, b);
    let hits = keep_strongest(matcher.hits(&cx.analysis().facts, &versions, &compare));
    // One finding per change and use: the same `actions/setup-node@v3` in SKILL.md and in a
    // file it names is one thing to fix, with the other places related.
    let mut groups: Vec<(ApiHit, Vec<ApiHit>)> = Vec::new();
    for hit in hits {
        match groups
            .iter_mut()
            .find(|(head, _)| head.change_id == hit.change_id && head.matched == hit.matched)
        {
            Some((_, more)) => more.push(hit),
            None => groups.push((hit, Vec::new())),
        }
    }
    for (hit, more) in groups {
        let Some((file, change)) = built.change(&hit.change_id) else {
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
        for other in more {
            finding.related_at(
                cx.analysis().location(cx.skill, other.span),
                format!("{} again", shown(&other.matched, &file.package)),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::knowledge::knowledge;
    use crate::project::Ecosystem;

    /// [`super::project_matcher`] reads only the files of packages a project has a version
    /// of, plus the Actions files: that misses nothing only while no other entry lacks a
    /// `since`.
    #[test]
    fn only_actions_entries_have_no_since() {
        let unversioned: Vec<&str> = knowledge()
            .changes()
            .filter(|(file, change)| change.since.is_none() && file.ecosystem != Ecosystem::Actions)
            .map(|(_, change)| change.id.as_str())
            .collect();
        assert!(unversioned.is_empty(), "{unversioned:?}");
    }
}

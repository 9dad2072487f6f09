//! Checks every rule entry for the fields and forms the format promises.
//!
//! Pure: takes parsed [`Knowledge`] and returns every [`Violation`] found, so one run
//! reports all problems instead of the first.

use std::collections::HashSet;
use std::fmt;

use regex::Regex;

use super::{ApiChange, ApiFile, ChangeKind, Ecosystem, Knowledge, PackageAlias, Pattern};
use crate::skill::code::Lang;

/// Code-block languages an entry's `lang` may name.
pub const KNOWN_LANGS: &[&str] = &[
    "python",
    "javascript",
    "typescript",
    "jsx",
    "tsx",
    "java",
    "kotlin",
    "go",
    "rust",
    "ruby",
    "php",
    "csharp",
    "bash",
    "yaml",
    "toml",
    "json",
    "xml",
    "dockerfile",
    "html",
    "css",
    "vue",
    "groovy",
];

/// Runtime package names `ecosystem = "runtime"` may use.
pub const RUNTIMES: &[&str] = &[
    "python", "node", "go", "rust", "java", "ruby", "dotnet", "bun", "deno",
];

/// Hosts that republish other projects' text; never an official source.
const SECONDHAND_HOSTS: &[&str] = &[
    "medium.com",
    "dev.to",
    "hashnode.dev",
    "stackoverflow.com",
    "w3schools.com",
    "geeksforgeeks.org",
    "freecodecamp.org",
    "reddit.com",
    "substack.com",
    "tutorialspoint.com",
    "baeldung.com",
    "javatpoint.com",
    "realpython.com",
];

/// One problem with one rule entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// File under `rules/`.
    pub path: String,
    /// The change's id, or the package name for alias problems.
    pub entry: String,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rules/{} [{}]: {}", self.path, self.entry, self.problem)
    }
}

/// Whether `text`, read as the entry's first language, fires the entry through the real
/// matcher. The matcher lives in the lint layer, above this one, so callers pass it in.
pub type Fires<'a> = &'a dyn Fn(&ApiFile, &ApiChange, &str) -> Result<bool, String>;

/// What [`validate`] checks beyond the fields' forms.
#[derive(Clone, Copy)]
pub struct Checks<'a> {
    /// Runs a snippet through the real matcher.
    pub fires: Fires<'a>,
    /// Knowledge the validated pack builds on (the embedded files, for a user's pack): its
    /// aliases count as known and its ids as taken.
    pub base: Option<&'a Knowledge>,
}

impl fmt::Debug for Checks<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Checks")
            .field("base", &self.base.map(|base| base.apis.len()))
            .finish_non_exhaustive()
    }
}

/// Every violation in `knowledge`, in file order.
pub fn validate(knowledge: &Knowledge, checks: &Checks<'_>) -> Vec<Violation> {
    let mut found = Vec::new();
    let base_aliases = checks.base.map_or(&[][..], |base| base.packages.as_slice());
    let known_aliases: Vec<PackageAlias> = base_aliases
        .iter()
        .chain(&knowledge.packages)
        .cloned()
        .collect();
    let all_files: Vec<&ApiFile> = checks
        .base
        .into_iter()
        .flat_map(|base| &base.apis)
        .chain(&knowledge.apis)
        .collect();
    validate_aliases(&knowledge.packages, &all_files, &mut found);
    let taken: HashSet<&str> = checks
        .base
        .into_iter()
        .flat_map(Knowledge::changes)
        .map(|(_, change)| change.id.as_str())
        .collect();
    let mut ids = HashSet::new();
    for file in &knowledge.apis {
        validate_file(file, &known_aliases, &mut found);
        for change in &file.changes {
            let mut report = |problem: String| {
                found.push(Violation {
                    path: file.path.clone(),
                    entry: change.id.clone(),
                    problem,
                });
            };
            if !ids.insert(change.id.as_str()) {
                report("id is used by another entry".to_owned());
            }
            if taken.contains(change.id.as_str()) {
                report("id is used by an entry of the knowledge this pack joins".to_owned());
            }
            for problem in change_problems(file, change) {
                report(problem);
            }
            for problem in snippet_problems(file, change, checks.fires) {
                report(problem);
            }
        }
    }
    found
}

/// Problems of an entry's `evidence`, `example` and `passes`: the quote is there and one
/// sentence, the example fires through the real matcher, and `passes` does not.
fn snippet_problems(file: &ApiFile, change: &ApiChange, fires: Fires<'_>) -> Vec<String> {
    let mut problems = Vec::new();
    match change.evidence.as_deref() {
        None => problems.push(
            "evidence is missing: quote the changelog or migration-guide sentence".to_owned(),
        ),
        Some(evidence) if !one_sentence(evidence) => {
            problems.push("evidence must be one quoted sentence on one line".to_owned());
        }
        _ => {}
    }
    let lang = change.lang.first().map_or("?", String::as_str);
    // Runs `text` through the matcher; a problem when it does not do what `field` should.
    let mut expect = |field: &str, text: &str, should_fire: bool| match fires(file, change, text) {
        Ok(fired) if fired == should_fire => {}
        Ok(_) => problems.push(format!(
            "{field}, read as {lang}, {} the entry",
            if should_fire {
                "does not fire"
            } else {
                "fires"
            }
        )),
        Err(error) => problems.push(error),
    };
    if example_mentions_pattern(&change.pattern, &change.example).is_ok() {
        expect("example", &change.example, true);
    }
    match change.passes.as_deref() {
        None => problems.push(
            "passes is missing: add a snippet with the replacement that must not fire".to_owned(),
        ),
        Some(passes) if passes.trim().is_empty() => {
            problems.push("passes must be non-empty".to_owned());
        }
        Some(passes) => expect("passes", passes, false),
    }
    problems
}

/// One line with at most one sentence: no full stop followed by another capitalised one.
fn one_sentence(text: &str) -> bool {
    let text = text.trim();
    if !single_line(text) {
        return false;
    }
    let bytes = text.as_bytes();
    !bytes
        .windows(3)
        .any(|w| matches!(w[0], b'.' | b'!' | b'?') && w[1] == b' ' && w[2].is_ascii_uppercase())
}

fn validate_aliases(aliases: &[PackageAlias], files: &[&ApiFile], found: &mut Vec<Violation>) {
    let mut seen = HashSet::new();
    for alias in aliases {
        let mut report = |problem: &str| {
            found.push(Violation {
                path: super::PACKAGES_FILE.to_owned(),
                entry: alias.package.clone(),
                problem: problem.to_owned(),
            });
        };
        if alias.package.trim().is_empty() {
            report("package is empty");
        }
        if alias.names.is_empty() || alias.names.iter().any(|n| n.trim().is_empty()) {
            report("names must be non-empty");
        }
        if !seen.insert((alias.ecosystem, alias.package.as_str())) {
            report("package listed twice");
        }
        if alias.ecosystem == Ecosystem::Runtime && !RUNTIMES.contains(&alias.package.as_str()) {
            report("unknown runtime");
        }
        let backed = files
            .iter()
            .any(|file| file.ecosystem == alias.ecosystem && alias.covers(&file.package));
        if !backed {
            report(
                "alias has no API file: add apis/<ecosystem>/<package>.toml or remove the alias",
            );
        }
    }
}

fn validate_file(file: &ApiFile, aliases: &[PackageAlias], found: &mut Vec<Violation>) {
    let mut report = |problem: String| {
        found.push(Violation {
            path: file.path.clone(),
            entry: file.package.clone(),
            problem,
        });
    };
    let directory = format!("apis/{}/", file.ecosystem);
    if !file.path.starts_with(&directory) {
        report(format!(
            "file for ecosystem {} must live in {directory}",
            file.ecosystem
        ));
    }
    let known = aliases
        .iter()
        .any(|alias| alias.ecosystem == file.ecosystem && alias.covers(&file.package));
    if !known {
        report("package has no entry in packages.toml".to_owned());
    }
    if file.changes.is_empty() {
        report("file has no changes".to_owned());
    }
}

/// Problems of one change, each as a sentence.
fn change_problems(file: &ApiFile, change: &ApiChange) -> Vec<String> {
    let mut problems = Vec::new();
    let mut check = |ok: bool, problem: &str| {
        if !ok {
            problems.push(problem.to_owned());
        }
    };
    check(is_kebab_case(&change.id), "id must be kebab-case");
    check(
        single_line(&change.summary),
        "summary must be one non-empty line",
    );
    check(
        change.replacement.as_deref().is_none_or(single_line),
        "replacement must be one non-empty line",
    );
    check(
        since_ok(file, change),
        "since must be a dotted version (omitted only for actions)",
    );
    check(
        !change.since.as_deref().is_some_and(is_pre_release),
        "since must be the first stable release, not a pre-release",
    );
    check(
        is_official_url(&change.source),
        "source must be an https URL of an official page",
    );
    check(
        is_date(&change.checked),
        "checked must be a YYYY-MM-DD date",
    );
    check(
        !change.lang.is_empty(),
        "lang must name at least one language",
    );
    check(
        change
            .lang
            .iter()
            .all(|lang| KNOWN_LANGS.contains(&lang.as_str())),
        "lang names an unknown language",
    );
    if let Pattern::Syntax { syntax } = change.pattern {
        check(
            change
                .lang
                .iter()
                .all(|lang| Lang::from_tag(lang) == Some(syntax.lang())),
            "a syntax pattern's lang must be the language of its feature",
        );
    }
    check(
        !change.example.trim().is_empty(),
        "example must be non-empty",
    );
    if let Err(problem) = example_mentions_pattern(&change.pattern, &change.example) {
        problems.push(problem);
    }
    if change.kind == ChangeKind::Added {
        problems.extend(added_problems(change));
    }
    problems
}

/// What an `added` entry needs besides every entry's fields: the version that introduced
/// the API (the rule compares the project with it, so it cannot be left out, not even for
/// actions), no rename flag, and a pattern that names the API rather than a version range.
fn added_problems(change: &ApiChange) -> Vec<String> {
    let mut problems = Vec::new();
    if change.since.is_none() {
        problems.push("an added entry needs since: the first stable release with the API".into());
    }
    if change.old_works.is_some() {
        problems.push("old_works is for renamed entries, not added ones".to_owned());
    }
    if matches!(change.pattern, Pattern::Uses { .. }) {
        problems.push(
            "a uses pattern finds majors below a number, which cannot say an API is new".to_owned(),
        );
    }
    problems
}

fn single_line(text: &str) -> bool {
    !text.trim().is_empty() && !text.contains('\n')
}

fn since_ok(file: &ApiFile, change: &ApiChange) -> bool {
    match &change.since {
        Some(since) => is_version(since) || is_pre_release(since),
        None => file.ecosystem == Ecosystem::Actions,
    }
}

/// A version with a pre-release part: `20.0.0-rc.1`, `4.0.0-beta.3`, `2.0b1`, `3.13.0a2`.
pub fn is_pre_release(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let Some(start) = lower.find(|c: char| !(c.is_ascii_digit() || c == '.')) else {
        return false;
    };
    let (numbers, rest) = lower.split_at(start);
    let tag = rest.trim_start_matches(['-', '.', '+']);
    is_version(numbers.trim_end_matches('.'))
        && [
            "rc", "alpha", "beta", "a", "b", "pre", "next", "canary", "dev", "preview",
        ]
        .iter()
        .any(|word| tag.starts_with(word))
}

/// `a-b-c`: lowercase ASCII letters and digits in dash-separated non-empty words.
pub fn is_kebab_case(id: &str) -> bool {
    !id.is_empty()
        && id.split('-').all(|word| {
            !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// One to four dot-separated decimal numbers (`19.0.0`, `3.12`, `1.25`).
pub fn is_version(text: &str) -> bool {
    let parts: Vec<&str> = text.split('.').collect();
    parts.len() <= 4
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// `YYYY-MM-DD` naming a real calendar day.
pub fn is_date(text: &str) -> bool {
    let fields: Vec<&str> = text.split('-').collect();
    let [year, month, day] = fields.as_slice() else {
        return false;
    };
    let number = |field: &str, width: usize| {
        (field.len() == width && field.bytes().all(|b| b.is_ascii_digit()))
            .then(|| field.parse::<u32>().ok())
            .flatten()
    };
    let (Some(year), Some(month), Some(day)) = (number(year, 4), number(month, 2), number(day, 2))
    else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// An `https://` URL with a host that is not a known republisher.
pub fn is_official_url(url: &str) -> bool {
    let Some(rest) = url.strip_prefix("https://") else {
        return false;
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let valid_host = host.contains('.')
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    valid_host
        && !SECONDHAND_HOSTS
            .iter()
            .any(|bad| host == *bad || host.ends_with(&format!(".{bad}")))
}

/// Checks that the example contains what the pattern looks for.
///
/// This is the text-level precondition of "the example fires"; the tree-sitter matcher
/// runs the full check on the same examples.
pub fn example_mentions_pattern(pattern: &Pattern, example: &str) -> Result<(), String> {
    let require = |needle: &str| {
        if example.contains(needle) {
            Ok(())
        } else {
            Err(format!("example does not mention `{needle}`"))
        }
    };
    // `from a.b import c` names module `a.b.c` without spelling it out.
    let require_module = |module: &str| match module.rsplit_once(['.', '/']) {
        Some((parent, last)) if !example.contains(module) => {
            require(parent)?;
            require(last)
        }
        _ => require(module),
    };
    match pattern {
        Pattern::Import { import } => require(import),
        Pattern::ImportName { import, name } => {
            require(import)?;
            require(name.rsplit('.').next().unwrap_or(name))
        }
        Pattern::Method { import, method } => {
            require(import)?;
            calls(example, method)
        }
        Pattern::Call { import, name, .. } => {
            require_module(import)?;
            require(name.rsplit('.').next().unwrap_or(name))
        }
        Pattern::MethodCall { import, method, .. } => {
            require_module(import)?;
            require(&format!(".{method}("))
        }
        Pattern::ClassMember {
            import,
            base,
            member,
        } => {
            require_module(import)?;
            require(base.rsplit('.').next().unwrap_or(base))?;
            require(member.rsplit('.').next().unwrap_or(member))
        }
        Pattern::Decorator { decorator, .. } => require(decorator),
        Pattern::Yaml { yaml, value } => {
            require(yaml)?;
            require(value)
        }
        Pattern::Uses { uses, below } => uses_below(example, uses, *below),
        Pattern::Text { text } => match Regex::new(text) {
            Ok(regex) if text_candidates(example).any(|text| regex.is_match(text)) => Ok(()),
            Ok(_) => Err(format!("text pattern `{text}` does not match the example")),
            Err(error) => Err(format!("text pattern does not compile: {error}")),
        },
        // Syntax is found in the parse tree only; the matcher runs on the example.
        Pattern::Syntax { .. } => Ok(()),
    }
}

/// A call of `method` as a method (`x.m(`, `$x->m(`, `X::m(`) or, as PHP helpers are
/// called, a free function (`m(` after a space or an operator), not a longer name ending in it.
fn calls(example: &str, method: &str) -> Result<(), String> {
    let needle = format!("{method}(");
    let called = example.match_indices(&needle).any(|(at, _)| {
        example[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '$'))
    });
    if called {
        Ok(())
    } else {
        Err(format!("example does not call `{method}(`"))
    }
}

/// The texts a `text` pattern may see in an example: the whole snippet, each line, and the
/// contents of each quoted string (text patterns run over string contents, so `^`/`$`
/// anchor to a string's ends).
fn text_candidates(example: &str) -> impl Iterator<Item = &str> {
    let quoted = ['"', '\'', '`'].into_iter().flat_map(move |quote| {
        // Every odd piece of a split on the quote sits between two quotes.
        example.split(quote).skip(1).step_by(2)
    });
    std::iter::once(example)
        .chain(example.lines())
        .chain(quoted)
}

/// Whether `example` has `action@vN` (or `@N...`) with `N < below`.
fn uses_below(example: &str, action: &str, below: u32) -> Result<(), String> {
    let expression = format!(r"{}@v?(\d+)", regex::escape(action));
    let regex = Regex::new(&expression).map_err(|error| error.to_string())?;
    let fires = regex
        .captures_iter(example)
        .filter_map(|caps| caps.get(1)?.as_str().parse::<u32>().ok())
        .any(|major| major < below);
    if fires {
        Ok(())
    } else {
        Err(format!("example has no `{action}@v<{below}`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kebab_case() {
        assert!(is_kebab_case("react-dom-render"));
        assert!(is_kebab_case("k8s-v1beta1"));
        for bad in ["", "React-dom", "a--b", "-a", "a_b", "a-"] {
            assert!(!is_kebab_case(bad), "{bad}");
        }
    }

    #[test]
    fn versions() {
        for good in ["19.0.0", "3.12", "1", "1.2.3.4"] {
            assert!(is_version(good), "{good}");
        }
        for bad in ["", "v1", "1.x", "1..2", "1.2.3.4.5", "3.12+"] {
            assert!(!is_version(bad), "{bad}");
        }
    }

    #[test]
    fn pre_releases() {
        for pre in [
            "20.0.0-rc.1",
            "4.0.0-beta.3",
            "2.0b1",
            "3.13.0a2",
            "15.0.0-canary.1",
        ] {
            assert!(is_pre_release(pre), "{pre}");
        }
        for stable in ["20.0.0", "3.12", "v1", "1.x", ""] {
            assert!(!is_pre_release(stable), "{stable}");
        }
    }

    #[test]
    fn one_sentence_quotes() {
        assert!(one_sentence("The `del` method was removed."));
        assert!(one_sentence("Use e.g. the new API in v5.0 instead."));
        assert!(!one_sentence("It was removed. Use the other one."));
        assert!(!one_sentence("two\nlines"));
        assert!(!one_sentence(" "));
    }

    #[test]
    fn dates() {
        assert!(is_date("2026-11-29"));
        assert!(is_date("2024-02-29"));
        for bad in [
            "2023-02-29",
            "2026-13-01",
            "2026-11-31",
            "26-11-29",
            "2026/11/29",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
    }

    #[test]
    fn urls() {
        assert!(is_official_url(
            "https://react.dev/blog/2024/04/25/react-19-upgrade-guide"
        ));
        assert!(is_official_url(
            "https://docs.python.org/3/whatsnew/3.12.html#removed"
        ));
        for bad in [
            "http://react.dev/blog",
            "https://medium.com/@someone/react-19",
            "https://blog.medium.com/x",
            "https://dev.to/x",
            "react.dev/blog",
            "https://localhost/x",
        ] {
            assert!(!is_official_url(bad), "{bad}");
        }
    }

    fn added(since: Option<&str>, pattern: Pattern, old_works: Option<bool>) -> ApiChange {
        ApiChange {
            id: "react-use-effect-event".into(),
            kind: ChangeKind::Added,
            since: since.map(str::to_owned),
            summary: "useEffectEvent is new".into(),
            replacement: Some("a ref updated in an effect".into()),
            pattern,
            lang: vec!["jsx".into()],
            source: "https://react.dev/blog/2025/10/01/react-19-2".into(),
            checked: "2026-12-01".into(),
            example: "import { useEffectEvent } from 'react';".into(),
            passes: Some("import { useRef } from 'react';".into()),
            evidence: Some("It is new.".into()),
            old_works,
            note: None,
        }
    }

    #[test]
    fn added_entries_need_since_and_a_naming_pattern() {
        let name = Pattern::ImportName {
            import: "react".into(),
            name: "useEffectEvent".into(),
        };
        let file = ApiFile {
            path: "apis/npm/react.toml".into(),
            ecosystem: Ecosystem::Npm,
            package: "react".into(),
            changes: vec![],
        };
        let good = added(Some("19.2.0"), name.clone(), None);
        assert_eq!(change_problems(&file, &good), Vec::<String>::new());
        let problems = change_problems(&file, &added(None, name.clone(), Some(true)));
        assert!(
            problems.iter().any(|p| p.contains("needs since")),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.contains("old_works")),
            "{problems:?}"
        );
        let actions = ApiFile {
            path: "apis/actions/actions-checkout.toml".into(),
            ecosystem: Ecosystem::Actions,
            package: "actions/checkout".into(),
            changes: vec![],
        };
        let mut uses = added(
            None,
            Pattern::Uses {
                uses: "actions/checkout".into(),
                below: 4,
            },
            None,
        );
        uses.example = "- uses: actions/checkout@v3".into();
        let problems = change_problems(&actions, &uses);
        assert!(
            problems.iter().any(|p| p.contains("needs since")),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.contains("uses pattern")),
            "{problems:?}"
        );
    }

    #[test]
    fn example_precondition_per_shape() {
        let uses = Pattern::Uses {
            uses: "actions/checkout".into(),
            below: 4,
        };
        assert!(example_mentions_pattern(&uses, "- uses: actions/checkout@v3").is_ok());
        assert!(example_mentions_pattern(&uses, "- uses: actions/checkout@v4").is_err());
        let text = Pattern::Text {
            text: r"::set-output\b".into(),
        };
        assert!(example_mentions_pattern(&text, "echo ::set-output name=x::1").is_ok());
        assert!(example_mentions_pattern(&text, "echo x >> $GITHUB_OUTPUT").is_err());
        let anchored = Pattern::Text {
            text: "^eslint:recommended$".into(),
        };
        assert!(
            example_mentions_pattern(&anchored, "{ \"extends\": [\"eslint:recommended\"] }")
                .is_ok()
        );
        assert!(example_mentions_pattern(&anchored, "extends eslint:recommended here").is_err());
        let broken = Pattern::Text { text: "(".into() };
        assert!(example_mentions_pattern(&broken, "(").is_err());
        let name = Pattern::ImportName {
            import: "pandas".into(),
            name: "DataFrame.append".into(),
        };
        assert!(example_mentions_pattern(&name, "import pandas as pd\ndf.append(x)").is_ok());
        assert!(example_mentions_pattern(&name, "import polars").is_err());
        let member = Pattern::ClassMember {
            import: "django.db.models".into(),
            base: "Model".into(),
            member: "Meta.index_together".into(),
        };
        let model = "from django.db import models\nclass A(models.Model):\n    class Meta:\n        index_together = []";
        assert!(example_mentions_pattern(&member, model).is_ok());
        assert!(example_mentions_pattern(&member, "from django.db import models").is_err());
        let call = Pattern::Call {
            import: "sqlalchemy".into(),
            name: "select".into(),
            shape: crate::knowledge::CallShape {
                first: Some("list".into()),
                ..Default::default()
            },
        };
        assert!(
            example_mentions_pattern(&call, "from sqlalchemy import select\nselect([t])").is_ok()
        );
        assert!(example_mentions_pattern(&call, "from sqlmodel import select").is_err());
        let method = Pattern::Method {
            import: "Illuminate".into(),
            method: "str_slug".into(),
        };
        let helper = "use Illuminate\\Http\\Request;\n$s = str_slug($t);";
        assert!(example_mentions_pattern(&method, helper).is_ok());
        let longer = "use Illuminate\\Http\\Request;\n$s = my_str_slug($t);";
        assert!(example_mentions_pattern(&method, longer).is_err());
    }
}

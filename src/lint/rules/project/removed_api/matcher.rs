//! API matching: which known API changes a skill's code blocks run into, given the
//! project's versions.
//!
//! Patterns are matched against [`CodeFacts`], never against raw text, except the `text`
//! kind, which is a regular expression over string contents and shell text by design.
//! Each pattern's names are normalised once when the matcher is built, and each block's
//! resolved names once per call, so matching is comparisons, not allocations.

use std::cmp::Ordering;

use std::sync::OnceLock;

use regex::Regex;

use crate::knowledge::{ApiChange, ApiFile, CallShape, ChangeKind, Pattern};
use crate::project::Ecosystem;
use crate::skill::code::{
    ArgKind, Call, CodeFacts, Decorator, Lang, Span, Syntax, join_qualified, module_under,
    normalise_path,
};

/// A use of a changed API in a code block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiHit {
    /// The knowledge entry's id.
    pub change_id: String,
    /// Removed, deprecated, renamed or added.
    pub kind: ChangeKind,
    /// Where in the SKILL.md the use is.
    pub span: Span,
    /// What matched, as a qualified name or the matched text (`numpy.float`, `::set-output`).
    pub matched: String,
    /// The project's version the change was compared with, when the change has a `since`.
    pub project_version: Option<String>,
}

/// A `text` pattern that is not a valid regular expression.
#[derive(Debug, thiserror::Error)]
#[error("change {id}: text pattern {pattern:?} does not compile")]
pub struct PatternError {
    /// The change's id.
    pub id: String,
    /// The pattern as written.
    pub pattern: String,
    /// What the regex parser said.
    #[source]
    pub source: regex::Error,
}

/// Every API change, ready to match: languages parsed, names normalised and `text`
/// patterns compiled once.
#[derive(Debug)]
pub struct ApiMatcher<'k> {
    entries: Vec<Entry<'k>>,
}

#[derive(Debug)]
struct Entry<'k> {
    file: &'k ApiFile,
    change: &'k ApiChange,
    /// The languages of `change.lang` that skillgate reads; `None` when the entry lists
    /// none, which means every language. Names skillgate does not read match no block.
    langs: Option<Vec<Lang>>,
    needle: Needle,
}

/// A pattern with its names in the form blocks are compared in (`::` as `.`).
#[derive(Debug)]
enum Needle {
    Import {
        module: String,
    },
    Name {
        qualified: String,
    },
    Method {
        module: String,
        method: String,
    },
    Call {
        qualified: String,
        shape: Shape,
    },
    MethodCall {
        module: String,
        method: String,
        shape: Shape,
    },
    ClassMember {
        base: String,
        member: String,
    },
    Decorator {
        segments: Vec<String>,
        module: Option<String>,
    },
    Yaml {
        key: String,
        value: String,
    },
    Uses {
        action: String,
        below: u32,
    },
    Text {
        /// The pattern, checked when the matcher is built.
        pattern: String,
        /// Compiled on first use: most skills have no text a `text` pattern could match,
        /// and compiling every pattern up front dominated a one-skill check.
        regex: OnceLock<Option<Regex>>,
    },
    Syntax {
        feature: Syntax,
    },
}

/// A [`CallShape`] with its argument kind parsed.
#[derive(Debug)]
struct Shape {
    args: Option<usize>,
    first: Option<ArgKind>,
    keyword: Option<String>,
    awaited: Option<bool>,
    receiver: Option<String>,
}

impl Shape {
    fn new(shape: &CallShape) -> Self {
        Self {
            args: shape.args,
            first: shape.first.as_deref().and_then(ArgKind::from_name),
            keyword: shape.keyword.clone(),
            awaited: shape.awaited,
            receiver: shape.receiver.clone(),
        }
    }

    /// Whether `call`, made on `receiver` (a method call's plain receiver), has this shape.
    fn fits(&self, call: &Call, receiver: Option<&str>) -> bool {
        self.args.is_none_or(|n| call.args == n)
            && self.first.is_none_or(|kind| call.first == Some(kind))
            && self
                .keyword
                .as_ref()
                .is_none_or(|k| call.keywords.contains(k))
            && self.awaited.is_none_or(|awaited| {
                if awaited {
                    call.awaited
                } else {
                    !call.awaited && call.read_directly
                }
            })
            && self
                .receiver
                .as_deref()
                .is_none_or(|wanted| receiver == Some(wanted))
    }

    /// Whether the block has a call with this shape whose callee spans `callee`.
    fn fits_any(&self, facts: &CodeFacts, callee: Span, receiver: Option<&str>) -> bool {
        facts
            .calls
            .iter()
            .any(|call| call.callee == callee && self.fits(call, receiver))
    }
}

impl Needle {
    fn new(change: &ApiChange) -> Result<Self, PatternError> {
        let needle = match &change.pattern {
            Pattern::Import { import } => Self::Import {
                module: normalise_path(import),
            },
            Pattern::ImportName { import, name } => Self::Name {
                qualified: join_qualified(import, name),
            },
            Pattern::Method { import, method } => Self::Method {
                module: normalise_path(import),
                method: method.clone(),
            },
            Pattern::Call {
                import,
                name,
                shape,
            } => Self::Call {
                qualified: join_qualified(import, name),
                shape: Shape::new(shape),
            },
            Pattern::MethodCall {
                import,
                method,
                shape,
            } => Self::MethodCall {
                module: normalise_path(import),
                method: method.clone(),
                shape: Shape::new(shape),
            },
            Pattern::ClassMember {
                import,
                base,
                member,
            } => Self::ClassMember {
                base: join_qualified(import, base),
                member: member.clone(),
            },
            Pattern::Decorator { decorator, import } => Self::Decorator {
                segments: normalise_path(decorator)
                    .split('.')
                    .map(str::to_owned)
                    .collect(),
                module: import.as_deref().map(normalise_path),
            },
            Pattern::Yaml { yaml, value } => Self::Yaml {
                key: yaml.clone(),
                value: value.clone(),
            },
            Pattern::Uses { uses, below } => Self::Uses {
                action: uses.clone(),
                below: *below,
            },
            Pattern::Text { text } => {
                regex_syntax::Parser::new()
                    .parse(text)
                    .map_err(|e| PatternError {
                        id: change.id.clone(),
                        pattern: text.clone(),
                        source: regex::Error::Syntax(e.to_string()),
                    })?;
                Self::Text {
                    pattern: text.clone(),
                    regex: OnceLock::new(),
                }
            }
            Pattern::Syntax { syntax } => Self::Syntax { feature: *syntax },
        };
        Ok(needle)
    }
}

/// A pattern's match site before the version check.
struct Site {
    span: Span,
    matched: String,
}

/// One block's facts with the names patterns compare against, resolved once.
struct Block<'f> {
    facts: &'f CodeFacts,
    lang: Lang,
    /// Each import's module, normalised.
    modules: Vec<String>,
    /// Qualified names the imports bring in (`react-dom.render`, `numpy`), with spans.
    imported: Vec<(String, Span)>,
    /// Qualified names of accesses rooted at an import (`numpy.float`), with spans.
    resolved: Vec<(String, Span)>,
    /// Decorators with their qualified names when an import binds their root.
    decorators: Vec<(&'f Decorator, Option<String>)>,
    /// In languages whose names are in scope without an import of their own (Ruby
    /// constants, PHP and C# types), static paths no import binds, as written (`WebHost.
    /// CreateDefaultBuilder`, `ActiveRecord.Base`), with spans.
    unqualified: Vec<(String, Span)>,
}

/// How a language brings a package's names into a block, as far as the matcher cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// Names come from the block's imports.
    Imports,
    /// Ruby: Bundler requires every gem of the Gemfile and constants are global, so a
    /// block uses a package without naming it; an unbound path is already qualified.
    Global,
    /// PHP and C#: a type is named by its last segments once a `use`, a `using`, an SDK's
    /// implicit usings or a facade alias brought its namespace in, so an unbound path
    /// stands for any qualified name it ends.
    Namespaces,
}

impl Scope {
    fn of(lang: Lang) -> Self {
        match lang {
            Lang::Ruby => Self::Global,
            Lang::Php | Lang::CSharp => Self::Namespaces,
            _ => Self::Imports,
        }
    }
}

impl<'f> Block<'f> {
    fn new(facts: &'f CodeFacts) -> Option<Self> {
        let lang = facts.lang?;
        let modules = facts
            .imports
            .iter()
            .map(|i| normalise_path(&i.module))
            .collect();
        let imported = facts
            .imports
            .iter()
            .flat_map(|import| {
                let whole = import
                    .names
                    .is_empty()
                    .then(|| normalise_path(&import.module));
                let named = import
                    .names
                    .iter()
                    .map(|n| join_qualified(&import.module, &n.name));
                whole.into_iter().chain(named).map(|q| (q, import.span))
            })
            .collect();
        let resolved = facts
            .accesses
            .iter()
            .filter_map(|a| Some((facts.resolve(&a.root, &a.path)?, a.span)))
            .collect();
        let decorators = facts
            .decorators
            .iter()
            .map(|d| {
                let qualified = d
                    .path
                    .split_first()
                    .and_then(|(root, rest)| facts.resolve(root, rest));
                (d, qualified)
            })
            .collect();
        let unqualified = if Scope::of(lang) == Scope::Imports {
            Vec::new()
        } else {
            facts
                .accesses
                .iter()
                .filter(|a| facts.binding(&a.root).is_none())
                .map(|a| {
                    let path = std::iter::once(a.root.as_str())
                        .chain(a.path.iter().map(String::as_str))
                        .collect::<Vec<_>>()
                        .join(".");
                    (path, a.span)
                })
                .collect()
        };
        Some(Self {
            facts,
            lang,
            modules,
            imported,
            resolved,
            decorators,
            unqualified,
        })
    }

    /// Whether the block imports `module` (normalised) or one of its sub-modules. Ruby, PHP
    /// and C# code sees a package without importing it in the file (Bundler requires every
    /// gem, Composer autoloads helper files, the .NET SDKs add implicit global usings), so
    /// their blocks count as importing any module: the version check has already asked the
    /// project for the package.
    fn imports(&self, module: &str) -> bool {
        !matches!(Scope::of(self.lang), Scope::Imports)
            || self.modules.iter().any(|m| module_under(m, module))
    }

    /// Whether an unbound path of this block stands for `wanted` (or a member of it).
    fn unqualified_names(&self, path: &str, wanted: &str) -> bool {
        match Scope::of(self.lang) {
            Scope::Imports => false,
            Scope::Global => names(path, wanted),
            Scope::Namespaces => names(path, wanted) || ends_in(path, wanted),
        }
    }
}

impl<'k> ApiMatcher<'k> {
    /// Prepares `changes` (as `Knowledge::changes()` yields them).
    pub fn new(
        changes: impl IntoIterator<Item = (&'k ApiFile, &'k ApiChange)>,
    ) -> Result<Self, PatternError> {
        let entries = changes
            .into_iter()
            .map(|(file, change)| {
                let langs = (!change.lang.is_empty()).then(|| {
                    change
                        .lang
                        .iter()
                        .filter_map(|tag| Lang::from_tag(tag))
                        .collect()
                });
                Ok(Entry {
                    file,
                    change,
                    langs,
                    needle: Needle::new(change)?,
                })
            })
            .collect::<Result<_, PatternError>>()?;
        Ok(Self { entries })
    }

    /// Uses of changed APIs in `facts` that apply to the project: the change has no `since`;
    /// or `since` is at or below the project's version of the package (a removal,
    /// deprecation or rename the project has reached); or, for an `added` API, `since` is
    /// above it (the project is too old to have it).
    ///
    /// `project_version(ecosystem, package)` gives the project's version of a package, and
    /// `compare(ecosystem, a, b)` orders two versions by that ecosystem's rules. A change
    /// whose package the project does not have, or whose versions do not compare, stays
    /// silent: a wrong finding costs more than a missed one.
    pub fn hits(
        &self,
        facts: &[CodeFacts],
        project_version: &dyn Fn(Ecosystem, &str) -> Option<String>,
        compare: &dyn Fn(Ecosystem, &str, &str) -> Option<Ordering>,
    ) -> Vec<ApiHit> {
        let blocks: Vec<Block<'_>> = facts.iter().filter_map(Block::new).collect();
        let mut hits = Vec::new();
        for entry in &self.entries {
            let Some(version) = applies(entry, project_version, compare) else {
                continue;
            };
            for block in &blocks {
                hits.extend(
                    entry
                        .sites(block)
                        .into_iter()
                        .map(|site| entry.hit(site, &version)),
                );
            }
        }
        sort_and_dedup(hits)
    }

    /// Uses of changed APIs in `facts`, whatever the project's versions; for checking that
    /// every entry's own example fires.
    pub fn pattern_hits(&self, facts: &CodeFacts) -> Vec<ApiHit> {
        let Some(block) = Block::new(facts) else {
            return Vec::new();
        };
        let hits = self
            .entries
            .iter()
            .flat_map(|entry| {
                entry
                    .sites(&block)
                    .into_iter()
                    .map(|site| entry.hit(site, &None))
            })
            .collect();
        sort_and_dedup(hits)
    }
}

/// `Some(project version)` when the entry applies to the project; `Some(None)` when the
/// change has no version to compare. A removal, deprecation or rename applies from `since`
/// on; an addition applies below `since`, where the API does not exist yet.
fn applies(
    entry: &Entry<'_>,
    project_version: &dyn Fn(Ecosystem, &str) -> Option<String>,
    compare: &dyn Fn(Ecosystem, &str, &str) -> Option<Ordering>,
) -> Option<Option<String>> {
    let Some(since) = &entry.change.since else {
        return Some(None);
    };
    let version = project_version(entry.file.ecosystem, &entry.file.package)?;
    let order = compare(entry.file.ecosystem, since, &version)?;
    let reached = order != Ordering::Greater;
    let holds = match entry.change.kind {
        ChangeKind::Added => !reached,
        ChangeKind::Removed | ChangeKind::Deprecated | ChangeKind::Renamed => reached,
    };
    holds.then_some(Some(version))
}

/// One hit per site: where a removal and a deprecation of the same API both apply (the
/// project is past both versions), the removal says more. Hits stay in span order.
pub fn keep_strongest(hits: Vec<ApiHit>) -> Vec<ApiHit> {
    let rank = |kind: ChangeKind| match kind {
        ChangeKind::Removed => 0,
        ChangeKind::Renamed => 1,
        ChangeKind::Deprecated => 2,
        ChangeKind::Added => 3,
    };
    let mut kept: Vec<ApiHit> = Vec::with_capacity(hits.len());
    for hit in hits {
        match kept
            .iter_mut()
            .find(|k| k.span == hit.span && k.matched == hit.matched)
        {
            Some(existing) if rank(hit.kind) < rank(existing.kind) => *existing = hit,
            Some(_) => {}
            None => kept.push(hit),
        }
    }
    kept
}

fn sort_and_dedup(mut hits: Vec<ApiHit>) -> Vec<ApiHit> {
    hits.sort_by(|a, b| {
        a.span
            .cmp(&b.span)
            .then_with(|| a.change_id.cmp(&b.change_id))
    });
    hits.dedup_by(|a, b| a.span == b.span && a.change_id == b.change_id);
    hits
}

impl Entry<'_> {
    fn hit(&self, site: Site, version: &Option<String>) -> ApiHit {
        ApiHit {
            change_id: self.change.id.clone(),
            kind: self.change.kind,
            span: site.span,
            matched: site.matched,
            project_version: version.clone(),
        }
    }

    /// Where the pattern matches in one block of a language it applies to.
    fn sites(&self, block: &Block<'_>) -> Vec<Site> {
        let applies = self
            .langs
            .as_ref()
            .is_none_or(|langs| langs.iter().any(|l| l.covers(block.lang)));
        if !applies {
            return Vec::new();
        }
        match &self.needle {
            Needle::Import { module } => import_sites(block, module),
            Needle::Name { qualified } => name_sites(block, qualified),
            Needle::Method { module, method } => method_sites(block, module, method),
            Needle::Call { qualified, shape } => name_sites(block, qualified)
                .into_iter()
                .filter(|site| shape.fits_any(block.facts, site.span, None))
                .collect(),
            Needle::MethodCall {
                module,
                method,
                shape,
            } => method_sites(block, module, method)
                .into_iter()
                .filter(|site| {
                    let receiver = block
                        .facts
                        .method_calls
                        .iter()
                        .find(|m| m.span == site.span)
                        .and_then(|m| m.receiver.as_deref());
                    shape.fits_any(block.facts, site.span, receiver)
                })
                .collect(),
            Needle::ClassMember { base, member } => class_member_sites(block.facts, base, member),
            Needle::Decorator { segments, module } => {
                decorator_sites(block, segments, module.as_deref())
            }
            Needle::Yaml { key, value } => block
                .facts
                .yaml_pairs
                .iter()
                .filter(|pair| pair.key == *key && pair.value == *value)
                .map(|pair| Site {
                    span: pair.span,
                    matched: format!("{}: {}", pair.key, pair.value),
                })
                .collect(),
            Needle::Uses { action, below } => uses_sites(block.facts, action, *below),
            Needle::Text { pattern, regex } => {
                if block.facts.texts.is_empty() {
                    return Vec::new();
                }
                match regex.get_or_init(|| Regex::new(pattern).ok()) {
                    Some(regex) => text_sites(block.facts, regex),
                    None => Vec::new(),
                }
            }
            Needle::Syntax { feature } => block
                .facts
                .syntax
                .iter()
                .filter(|used| used.feature == *feature)
                .map(|used| Site {
                    span: used.span,
                    matched: feature.name().to_owned(),
                })
                .collect(),
        }
    }
}

/// Imports of `module`, its sub-modules, or a name in it (`import org.junit.Before;`
/// imports `org.junit.Before`).
fn import_sites(block: &Block<'_>, module: &str) -> Vec<Site> {
    let modules = block
        .modules
        .iter()
        .zip(&block.facts.imports)
        .map(|(normalised, import)| (normalised, import.span));
    let names = block
        .imported
        .iter()
        .map(|(qualified, span)| (qualified, *span));
    modules
        .chain(names)
        .filter(|(imported, _)| module_under(imported, module))
        .map(|(imported, span)| Site {
            span,
            matched: imported.clone(),
        })
        .collect()
}

/// Whether `qualified` is `wanted` or a member of it (`a.b.c` is under `a.b`).
fn names(qualified: &str, wanted: &str) -> bool {
    qualified
        .strip_prefix(wanted)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// The qualified name `wanted` (`react-dom.render`) imported by name or reached as a static
/// path from an import binding.
fn name_sites(block: &Block<'_>, wanted: &str) -> Vec<Site> {
    let unqualified = block
        .unqualified
        .iter()
        .filter(|(path, _)| block.unqualified_names(path, wanted));
    block
        .imported
        .iter()
        .chain(&block.resolved)
        .filter(|(qualified, _)| names(qualified, wanted))
        .chain(unqualified)
        .map(|(qualified, span)| Site {
            span: *span,
            matched: qualified.clone(),
        })
        .collect()
}

/// Whether `path` (`Input.get`) names a member of `wanted` (`Illuminate.Support.Facades.
/// Input`) written without its namespace: a tail of `wanted` that starts at a type (an
/// upper-case segment) and is not the whole of it is `path` or a prefix of it.
fn ends_in(path: &str, wanted: &str) -> bool {
    wanted.match_indices('.').any(|(dot, _)| {
        let tail = &wanted[dot + 1..];
        tail.starts_with(|c: char| c.is_ascii_uppercase()) && names(path, tail)
    })
}

/// Calls of `method` in a block that imports `module`.
fn method_sites(block: &Block<'_>, module: &str, method: &str) -> Vec<Site> {
    if !block.imports(module) {
        return Vec::new();
    }
    block
        .facts
        .method_calls
        .iter()
        .filter(|call| call.name == method)
        .filter(|call| {
            call.receiver
                .as_ref()
                .is_none_or(|r| !block.facts.collections.contains(r))
        })
        .map(|call| Site {
            span: call.span,
            matched: format!(".{}(", call.name),
        })
        .collect()
}

/// Members named `member` of classes with a base that resolves to `base`.
fn class_member_sites(facts: &CodeFacts, base: &str, member: &str) -> Vec<Site> {
    facts
        .classes
        .iter()
        .filter(|class| {
            class.bases.iter().any(|path| {
                path.split_first()
                    .and_then(|(root, rest)| facts.resolve(root, rest))
                    .is_some_and(|qualified| qualified == base)
            })
        })
        .flat_map(|class| class.members.iter())
        .filter(|(name, _)| name == member)
        .map(|(name, span)| Site {
            span: *span,
            matched: format!("{base}: {name}"),
        })
        .collect()
}

/// Decorators named `wanted` (segments). With `module`, a decorator bound by an import must
/// come from that module; an unbound one (`@app.route`) counts when the block imports it.
fn decorator_sites(block: &Block<'_>, wanted: &[String], module: Option<&str>) -> Vec<Site> {
    let mut sites = Vec::new();
    for (found, qualified) in &block.decorators {
        let matches = match (module, qualified) {
            (None, _) => ends_with_segments(&found.path, wanted),
            (Some(module), Some(qualified)) => {
                let segments: Vec<&str> = qualified.split('.').collect();
                let prefix = segments.len().checked_sub(wanted.len());
                ends_with_segments(&segments, wanted)
                    && prefix.is_some_and(|p| module_under(&segments[..p].join("."), module))
            }
            (Some(module), None) => {
                ends_with_segments(&found.path, wanted) && block.imports(module)
            }
        };
        if matches {
            sites.push(Site {
                span: found.span,
                matched: found.path.join("."),
            });
        }
    }
    sites
}

fn ends_with_segments<S: AsRef<str>>(path: &[S], wanted: &[String]) -> bool {
    path.len() >= wanted.len()
        && path[path.len() - wanted.len()..]
            .iter()
            .zip(wanted)
            .all(|(a, b)| a.as_ref() == b)
}

/// `uses: action@vN` with N below `below`; refs that are not versions (a SHA, a branch)
/// say nothing about the major and do not match.
fn uses_sites(facts: &CodeFacts, action: &str, below: u32) -> Vec<Site> {
    facts
        .actions
        .iter()
        .filter(|found| found.action.eq_ignore_ascii_case(action))
        .filter(|found| {
            found
                .reference
                .as_deref()
                .and_then(major)
                .is_some_and(|m| m < below)
        })
        .map(|found| Site {
            span: found.span,
            matched: format!(
                "{}@{}",
                found.action,
                found.reference.as_deref().unwrap_or_default()
            ),
        })
        .collect()
}

/// The major of `v4`, `v4.1.2`, `4`.
fn major(reference: &str) -> Option<u32> {
    let digits = reference.strip_prefix('v').unwrap_or(reference);
    let major = digits.split('.').next()?;
    if major.is_empty() || !major.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    major.parse().ok()
}

/// Regex matches in string contents and shell text.
fn text_sites(facts: &CodeFacts, regex: &Regex) -> Vec<Site> {
    facts
        .texts
        .iter()
        .flat_map(|run| {
            regex.find_iter(&run.text).map(|found| Site {
                span: Span {
                    start: run.span.start + found.start(),
                    end: run.span.start + found.end(),
                },
                matched: found.as_str().to_owned(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skill::code::tests::facts;

    fn change(id: &str, since: Option<&str>, pattern: Pattern, lang: &[&str]) -> ApiChange {
        ApiChange {
            id: id.to_owned(),
            kind: if id.ends_with("-added") {
                ChangeKind::Added
            } else {
                ChangeKind::Removed
            },
            since: since.map(str::to_owned),
            summary: String::new(),
            replacement: None,
            pattern,
            lang: lang.iter().map(|l| (*l).to_owned()).collect(),
            source: String::new(),
            checked: String::new(),
            example: String::new(),
            note: None,
            passes: None,
            evidence: None,
            old_works: None,
        }
    }

    fn file(ecosystem: Ecosystem, package: &str, changes: Vec<ApiChange>) -> ApiFile {
        ApiFile {
            path: String::new(),
            ecosystem,
            package: package.to_owned(),
            changes,
        }
    }

    /// Dotted numeric comparison, enough for tests.
    fn compare(_: Ecosystem, a: &str, b: &str) -> Option<Ordering> {
        let parse =
            |v: &str| -> Option<Vec<u64>> { v.split('.').map(|p| p.parse().ok()).collect() };
        Some(parse(a)?.cmp(&parse(b)?))
    }

    fn ids(hits: &[ApiHit]) -> Vec<&str> {
        hits.iter().map(|h| h.change_id.as_str()).collect()
    }

    fn knowledge() -> Vec<ApiFile> {
        let js = &["javascript", "typescript", "jsx", "tsx"];
        vec![
            file(
                Ecosystem::Npm,
                "react-dom",
                vec![change(
                    "react-dom-render",
                    Some("19.0.0"),
                    Pattern::ImportName {
                        import: "react-dom".into(),
                        name: "render".into(),
                    },
                    js,
                )],
            ),
            file(
                Ecosystem::Npm,
                "react",
                vec![change(
                    "react-use-effect-event-added",
                    Some("19.2.0"),
                    Pattern::ImportName {
                        import: "react".into(),
                        name: "useEffectEvent".into(),
                    },
                    js,
                )],
            ),
            file(
                Ecosystem::Pypi,
                "numpy",
                vec![change(
                    "numpy-float",
                    Some("1.24.0"),
                    Pattern::ImportName {
                        import: "numpy".into(),
                        name: "float".into(),
                    },
                    &["python"],
                )],
            ),
            file(
                Ecosystem::Pypi,
                "pandas",
                vec![
                    change(
                        "pandas-append",
                        Some("2.0.0"),
                        Pattern::Method {
                            import: "pandas".into(),
                            method: "append".into(),
                        },
                        &["python"],
                    ),
                    change(
                        "pandas-static-append",
                        Some("2.0.0"),
                        Pattern::ImportName {
                            import: "pandas".into(),
                            name: "DataFrame.append".into(),
                        },
                        &["python"],
                    ),
                ],
            ),
            file(
                Ecosystem::Pypi,
                "pydantic",
                vec![change(
                    "pydantic-validator",
                    Some("2.0"),
                    Pattern::Decorator {
                        decorator: "validator".into(),
                        import: Some("pydantic".into()),
                    },
                    &["python"],
                )],
            ),
            file(
                Ecosystem::Runtime,
                "python",
                vec![change(
                    "python-distutils",
                    Some("3.12"),
                    Pattern::Import {
                        import: "distutils".into(),
                    },
                    &["python"],
                )],
            ),
            file(
                Ecosystem::Cargo,
                "tokio",
                vec![change(
                    "tokio-main",
                    Some("1.0.0"),
                    Pattern::Decorator {
                        decorator: "main".into(),
                        import: Some("tokio".into()),
                    },
                    &["rust"],
                )],
            ),
            file(
                Ecosystem::Kubernetes,
                "kubernetes",
                vec![change(
                    "k8s-extensions-v1beta1",
                    None,
                    Pattern::Yaml {
                        yaml: "apiVersion".into(),
                        value: "extensions/v1beta1".into(),
                    },
                    &["yaml"],
                )],
            ),
            file(
                Ecosystem::Actions,
                "actions/checkout",
                vec![change(
                    "checkout-old-node",
                    None,
                    Pattern::Uses {
                        uses: "actions/checkout".into(),
                        below: 4,
                    },
                    &["yaml"],
                )],
            ),
            file(
                Ecosystem::Actions,
                "workflow-commands",
                vec![change(
                    "set-output",
                    None,
                    Pattern::Text {
                        text: r"::set-output\b".into(),
                    },
                    &["yaml", "bash"],
                )],
            ),
        ]
    }

    fn project(
        versions: &'static [(&'static str, &'static str)],
    ) -> impl Fn(Ecosystem, &str) -> Option<String> {
        move |_, package| {
            versions
                .iter()
                .find(|(p, _)| *p == package)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    fn run(
        lang: &str,
        text: &str,
        versions: &'static [(&'static str, &'static str)],
    ) -> Vec<ApiHit> {
        let files = knowledge();
        let changes = files
            .iter()
            .flat_map(|f| f.changes.iter().map(move |c| (f, c)));
        let matcher = ApiMatcher::new(changes).expect("test patterns compile");
        matcher.hits(&[facts(lang, text)], &project(versions), &compare)
    }

    const REACT: &str = "import ReactDOM from 'react-dom';\nReactDOM.render(<App />, root);\n";

    #[test]
    fn fires_at_or_above_since_and_not_below() {
        let hits = run("jsx", REACT, &[("react-dom", "19.1.0")]);
        assert_eq!(ids(&hits), ["react-dom-render"]);
        assert_eq!(hits[0].matched, "react-dom.render");
        assert_eq!(hits[0].project_version.as_deref(), Some("19.1.0"));
        assert_eq!(
            ids(&run("jsx", REACT, &[("react-dom", "19.0.0")])),
            ["react-dom-render"]
        );
        assert!(run("jsx", REACT, &[("react-dom", "18.3.1")]).is_empty());
        // The project does not have the package: nothing to compare, no finding.
        assert!(run("jsx", REACT, &[]).is_empty());
    }

    /// An addition is the other direction: it applies below `since` and not from it on.
    #[test]
    fn an_added_api_fires_below_since_only() {
        let text =
            "import { useEffectEvent } from 'react';\nconst onTick = useEffectEvent(tick);\n";
        let hits = run("jsx", text, &[("react", "18.2.0")]);
        // The import and the call.
        assert_eq!(
            ids(&hits),
            [
                "react-use-effect-event-added",
                "react-use-effect-event-added"
            ]
        );
        assert_eq!(hits[0].kind, ChangeKind::Added);
        assert_eq!(hits[0].project_version.as_deref(), Some("18.2.0"));
        assert!(run("jsx", text, &[("react", "19.2.0")]).is_empty());
        assert!(run("jsx", text, &[("react", "19.2.1")]).is_empty());
        assert!(run("jsx", text, &[]).is_empty());
    }

    #[test]
    fn silent_without_the_import_or_in_another_language() {
        let local = "const ReactDOM = makeRenderer();\nReactDOM.render(x);\n";
        assert!(run("js", local, &[("react-dom", "19.1.0")]).is_empty());
        assert!(
            run(
                "python",
                "import react_dom\nreact_dom.render(x)\n",
                &[("react-dom", "19.1.0")]
            )
            .is_empty()
        );
        let named = "import { render } from 'react-dom/client';\nrender(x);\n";
        assert!(run("tsx", named, &[("react-dom", "19.1.0")]).is_empty());
    }

    #[test]
    fn python_names_methods_decorators_and_modules() {
        let text = "import numpy as np\nimport pandas as pd\nfrom pydantic import validator\nfrom distutils.core import setup\n\
                    x = np.float(1)\ndf = df.append(row)\npd.DataFrame.append(df, row)\n\
                    class M:\n    @validator('a')\n    def check(cls, v): return v\n";
        let versions = &[
            ("numpy", "1.26.4"),
            ("pandas", "2.2.0"),
            ("pydantic", "2.5.0"),
            ("python", "3.12"),
        ];
        let hits = run("python", text, versions);
        let mut got = ids(&hits);
        got.sort_unstable();
        assert_eq!(
            got,
            [
                "numpy-float",
                "pandas-append",
                "pandas-append",
                "pandas-static-append",
                "pydantic-validator",
                "python-distutils"
            ]
        );
        let old = &[
            ("numpy", "1.23.5"),
            ("pandas", "1.5.3"),
            ("pydantic", "1.10.0"),
            ("python", "3.11"),
        ];
        assert!(run("python", text, old).is_empty());
    }

    #[test]
    fn required_and_destructured_bindings_resolve() {
        let text = "const { render: r } = require('react-dom');\nr(app, root);\n";
        let hits = run("js", text, &[("react-dom", "19.0.0")]);
        let matched: Vec<_> = hits.iter().map(|h| h.matched.as_str()).collect();
        assert_eq!(matched, ["react-dom.render", "react-dom.render"]);
        let longer = "import numpy as np\nx = np.float64(1)\n";
        assert!(run("python", longer, &[("numpy", "2.0.0")]).is_empty());
    }

    #[test]
    fn methods_need_the_module_imported() {
        let text = "rows = []\nrows.append(1)\n";
        assert!(run("python", text, &[("pandas", "2.2.0")]).is_empty());
    }

    #[test]
    fn methods_on_builtin_collections_are_not_library_calls() {
        let text = "import pandas as pd\nrows = []\nrows.append(1)\ndf = pd.read_csv(p)\ndf = df.append(other)\n";
        let hits = run("python", text, &[("pandas", "2.2.0")]);
        let matched: Vec<_> = hits
            .iter()
            .map(|h| &text[h.span.start - 100..h.span.end - 100])
            .collect();
        assert_eq!(matched, ["df.append"]);
    }

    #[test]
    fn decorator_from_another_module_does_not_match() {
        let text = "from mylib import validator\n@validator\ndef f(): pass\n";
        assert!(run("python", text, &[("pydantic", "2.5.0")]).is_empty());
        let unbound = "import pydantic\n@validator\ndef f(): pass\n";
        assert_eq!(
            ids(&run("python", unbound, &[("pydantic", "2.5.0")])),
            ["pydantic-validator"]
        );
    }

    #[test]
    fn rust_attributes_resolve_crate_paths() {
        let text = "#[tokio::main]\nasync fn main() {}\n";
        assert_eq!(
            ids(&run("rust", text, &[("tokio", "1.38.0")])),
            ["tokio-main"]
        );
        assert!(run("rust", text, &[("tokio", "0.2.25")]).is_empty());
        assert!(run("rust", "#[main]\nfn main() {}\n", &[("tokio", "1.38.0")]).is_empty());
    }

    #[test]
    fn yaml_uses_and_text_without_since() {
        let text = "apiVersion: extensions/v1beta1\nsteps:\n  - uses: actions/checkout@v3\n  - uses: actions/checkout@v4\n\
                    \x20 - uses: actions/checkout@8f4b7f84864484a7bf31766abe9204da3cbe65b3\n  - run: echo \"::set-output name=x::1\"\n";
        let hits = run("yaml", text, &[]);
        assert_eq!(
            ids(&hits),
            ["k8s-extensions-v1beta1", "checkout-old-node", "set-output"]
        );
        let set_output = &hits[2];
        let file_text = &text[set_output.span.start - 100..set_output.span.end - 100];
        assert_eq!(file_text, "::set-output");
        assert!(run("yaml", "apiVersion: apps/v1\n", &[]).is_empty());
        assert_eq!(
            ids(&run("bash", "echo \"::set-output name=x::1\"\n", &[])),
            ["set-output"]
        );
    }

    #[test]
    fn unknown_languages_match_no_block() {
        let files = [file(
            Ecosystem::Actions,
            "x",
            vec![change(
                "svelte-only",
                None,
                Pattern::Text { text: "x".into() },
                &["svelte"],
            )],
        )];
        let changes = files
            .iter()
            .flat_map(|f| f.changes.iter().map(move |c| (f, c)));
        let matcher = ApiMatcher::new(changes).expect("test patterns compile");
        assert!(matcher.pattern_hits(&facts("bash", "echo x\n")).is_empty());
    }

    #[test]
    fn bad_text_pattern_is_a_typed_error() {
        let files = [file(
            Ecosystem::Actions,
            "x",
            vec![change(
                "bad",
                None,
                Pattern::Text { text: "(".into() },
                &["yaml"],
            )],
        )];
        let changes = files
            .iter()
            .flat_map(|f| f.changes.iter().map(move |c| (f, c)));
        let error = ApiMatcher::new(changes).err();
        assert_eq!(error.map(|e| e.id), Some("bad".to_owned()));
    }

    #[test]
    fn java_class_imports_match_import_patterns() {
        let files = [file(
            Ecosystem::Maven,
            "junit:junit",
            vec![change(
                "junit4-before",
                Some("4.0"),
                Pattern::Import {
                    import: "org.junit.Before".into(),
                },
                &["java"],
            )],
        )];
        let changes = files
            .iter()
            .flat_map(|f| f.changes.iter().map(move |c| (f, c)));
        let matcher = ApiMatcher::new(changes).expect("test patterns compile");
        let hit = |text| matcher.pattern_hits(&facts("java", text)).len();
        assert_eq!(hit("import org.junit.Before;\n"), 1);
        assert_eq!(hit("import org.junit.BeforeClass;\n"), 0);
        assert_eq!(hit("import org.junit.jupiter.api.BeforeEach;\n"), 0);
    }

    #[test]
    fn strongest_hit_per_site_wins() {
        let hit = |id: &str, kind| ApiHit {
            change_id: id.to_owned(),
            kind,
            span: Span { start: 1, end: 5 },
            matched: "react-dom.render".to_owned(),
            project_version: None,
        };
        let kept = keep_strongest(vec![
            hit("render-deprecated", ChangeKind::Deprecated),
            hit("render-removed", ChangeKind::Removed),
        ]);
        assert_eq!(ids(&kept), ["render-removed"]);
    }

    #[test]
    fn pattern_hits_ignore_versions() {
        let files = knowledge();
        let changes = files
            .iter()
            .flat_map(|f| f.changes.iter().map(move |c| (f, c)));
        let matcher = ApiMatcher::new(changes).expect("test patterns compile");
        assert_eq!(
            ids(&matcher.pattern_hits(&facts("jsx", REACT))),
            ["react-dom-render"]
        );
    }

    /// The text each hit of one pattern (a TOML inline table) covers in `text`.
    fn shaped<'t>(pattern: &str, lang: &str, text: &'t str) -> Vec<&'t str> {
        #[derive(serde::Deserialize)]
        struct Table {
            pattern: Pattern,
        }
        let table: Table =
            toml::from_str(&format!("pattern = {pattern}")).expect("test pattern parses");
        let file = file(
            Ecosystem::Npm,
            "x",
            vec![change("shaped", None, table.pattern, &[lang])],
        );
        let matcher = ApiMatcher::new(file.changes.iter().map(|c| (&file, c))).expect("compiles");
        matcher
            .pattern_hits(&facts(lang, text))
            .iter()
            .map(|hit| crate::skill::code::tests::spanned(text, hit.span))
            .collect()
    }

    fn run_on(files: &[ApiFile], lang: &str, text: &str, version: &'static str) -> Vec<String> {
        let changes = files
            .iter()
            .flat_map(|f| f.changes.iter().map(move |c| (f, c)));
        let matcher = ApiMatcher::new(changes).expect("test patterns compile");
        let any = move |_: Ecosystem, _: &str| Some(version.to_owned());
        matcher
            .hits(&[facts(lang, text)], &any, &compare)
            .iter()
            .map(|h| {
                format!(
                    "{}@{}",
                    h.change_id,
                    &text[h.span.start - 100..h.span.end - 100]
                )
            })
            .collect()
    }

    #[test]
    fn call_shapes_count_arguments_and_read_the_first() {
        let express = "const express = require('express');\nres.json(data, 404);\nres.json(data);\nres.send(200);\nres.send('ok');\n";
        let two = "{ import = \"express\", method = \"json\", args = 2 }";
        assert_eq!(shaped(two, "js", express), ["res.json"]);
        let number = "{ import = \"express\", method = \"send\", first = \"number\" }";
        assert_eq!(shaped(number, "js", express), ["res.send"]);
        let list = "{ import = \"sqlalchemy\", name = \"select\", first = \"list\" }";
        let select = "from sqlalchemy import select\nq = select([users])\nq = select(users)\n";
        assert_eq!(shaped(list, "python", select), ["select"]);
        assert!(
            shaped(
                list,
                "python",
                "from sqlalchemy import select\nselect(users.c.id)\n"
            )
            .is_empty()
        );
    }

    #[test]
    fn call_shapes_read_keywords_receivers_and_await() {
        let keyword = "{ import = \"fastapi\", name = \"Query\", keyword = \"regex\" }";
        let fastapi = "from fastapi import Query\na = Query(None, regex='^x')\nb = Query(None, pattern='^x')\n";
        assert_eq!(shaped(keyword, "python", fastapi), ["Query"]);
        let receiver = "{ import = \"sqlalchemy\", method = \"execute\", receiver = \"engine\" }";
        let sql = "import sqlalchemy\nengine.execute(stmt)\nconn.execute(stmt)\n";
        assert_eq!(shaped(receiver, "python", sql), ["engine.execute"]);
        let sync = "{ import = \"next/headers\", name = \"cookies\", awaited = false }";
        let next = "import { cookies } from 'next/headers';\nconst a = cookies();\nconst b = await cookies();\nconst c = (await cookies()).get('t');\nasync function f() { return cookies(); }\nconst [d] = await Promise.all([cookies()]);\n";
        // Only `const a = cookies()` reads the result as it is; the returned call and the
        // one handed to `Promise.all` are awaited by whoever receives them.
        assert_eq!(shaped(sync, "ts", next), ["cookies"]);
        let read = "import { cookies } from 'next/headers';\nconst t = cookies().get('t');\n";
        assert_eq!(shaped(sync, "ts", read), ["cookies"]);
        let awaited = "{ import = \"next/headers\", name = \"cookies\", awaited = true }";
        assert_eq!(shaped(awaited, "ts", next).len(), 2);
    }

    #[test]
    fn class_members_need_a_base_from_the_module() {
        let pattern =
            "{ import = \"pydantic\", base = \"BaseModel\", member = \"Config.orm_mode\" }";
        let model = "from pydantic import BaseModel\nclass User(BaseModel):\n    name: str\n    class Config:\n        orm_mode = True\n";
        assert_eq!(shaped(pattern, "python", model), ["orm_mode"]);
        let other = "from mylib import BaseModel\nclass User(BaseModel):\n    class Config:\n        orm_mode = True\n";
        assert!(shaped(pattern, "python", other).is_empty());
        let plain = "import pydantic\nclass User(pydantic.BaseModel):\n    model_config = {'from_attributes': True}\n";
        assert!(shaped(pattern, "python", plain).is_empty());
        let config = "{ import = \"pydantic\", base = \"BaseModel\", member = \"Config\" }";
        let dotted = "import pydantic\nclass User(pydantic.BaseModel):\n    class Config:\n        extra = 'forbid'\n";
        assert_eq!(shaped(config, "python", dotted), ["Config"]);
        let react = "{ import = \"react\", base = \"Component\", member = \"contextTypes\" }";
        let class = "import React from 'react';\nclass A extends React.Component {\n  static contextTypes = { theme: PropTypes.string };\n  render() { return null; }\n}\n";
        assert_eq!(shaped(react, "jsx", class), ["contextTypes"]);
        let ts = "import { Component } from 'react';\nclass A extends Component<P> {\n  static contextTypes = {};\n}\n";
        assert_eq!(shaped(react, "tsx", ts), ["contextTypes"]);
    }

    #[test]
    fn shapes_that_do_not_fit_are_refused() {
        #[derive(Debug, serde::Deserialize)]
        struct Table {
            #[allow(dead_code)]
            pattern: Pattern,
        }
        let bad = toml::from_str::<Table>(
            "pattern = { import = \"x\", name = \"y\", first = \"tuple\" }",
        );
        assert!(bad.is_err());
        let mixed = toml::from_str::<Table>("pattern = { text = \"x\", args = 1 }");
        assert!(mixed.is_err());
        let receiver =
            toml::from_str::<Table>("pattern = { import = \"x\", name = \"y\", receiver = \"z\" }");
        assert!(receiver.is_err());
    }

    #[test]
    fn ruby_constants_are_global_and_gems_need_no_require() {
        let files = [file(
            Ecosystem::Rubygems,
            "rails",
            vec![
                change(
                    "warn",
                    Some("7.1.0"),
                    Pattern::ImportName {
                        import: "ActiveSupport::Deprecation".into(),
                        name: "warn".into(),
                    },
                    &["ruby"],
                ),
                change(
                    "update-attributes",
                    Some("6.1.0"),
                    Pattern::Method {
                        import: "active_record".into(),
                        method: "update_attributes".into(),
                    },
                    &["ruby"],
                ),
                change(
                    "before-filter",
                    Some("5.1.0"),
                    Pattern::Decorator {
                        decorator: "before_filter".into(),
                        import: Some("action_controller".into()),
                    },
                    &["ruby"],
                ),
            ],
        )];
        let text = "class A < ApplicationController\n  before_filter :x\n  def u\n    \
                    @a.update_attributes(p)\n    ActiveSupport::Deprecation.warn('x')\n  end\nend\n";
        assert_eq!(
            run_on(&files, "ruby", text, "7.1.0"),
            [
                "before-filter@before_filter",
                "update-attributes@@a.update_attributes",
                "warn@ActiveSupport::Deprecation.warn"
            ]
        );
        assert!(run_on(&files, "ruby", text, "5.0.0").is_empty());
        let current = "class A < ApplicationController\n  before_action :x\n  def u\n    \
                       @a.update(p)\n    Rails.deprecator.warn('x')\n    MyDeprecation.warn('y')\n  end\nend\n";
        assert!(run_on(&files, "ruby", current, "7.1.0").is_empty());
    }

    #[test]
    fn php_and_csharp_types_match_without_their_namespace() {
        let files = [
            file(
                Ecosystem::Composer,
                "laravel/framework",
                vec![change(
                    "input",
                    Some("6.0.0"),
                    Pattern::ImportName {
                        import: "Illuminate\\Support\\Facades".into(),
                        name: "Input".into(),
                    },
                    &["php"],
                )],
            ),
            file(
                Ecosystem::Nuget,
                "Microsoft.AspNetCore.App",
                vec![change(
                    "webhost",
                    Some("10.0.0"),
                    Pattern::ImportName {
                        import: "Microsoft.AspNetCore".into(),
                        name: "WebHost.CreateDefaultBuilder".into(),
                    },
                    &["csharp"],
                )],
            ),
        ];
        let php = "use Illuminate\\Support\\Facades\\Input;\n$a = Input::get('a');\n$b = \\Illuminate\\Support\\Facades\\Input::all();\n";
        assert_eq!(
            run_on(&files, "php", php, "6.0.0"),
            [
                "input@use Illuminate\\Support\\Facades\\Input;",
                "input@Input::get",
                "input@\\Illuminate\\Support\\Facades\\Input::all"
            ]
        );
        let alias = "$a = Input::get('a');\n";
        assert_eq!(run_on(&files, "php", alias, "6.0.0"), ["input@Input::get"]);
        let request = "use Illuminate\\Http\\Request;\n$a = $request->input('a');\n";
        assert!(run_on(&files, "php", request, "6.0.0").is_empty());
        let cs = "var host = WebHost.CreateDefaultBuilder(args).Build();\nvar b = Host.CreateDefaultBuilder(args);\n";
        assert_eq!(
            run_on(&files, "csharp", cs, "10.0.0"),
            ["webhost@WebHost.CreateDefaultBuilder"]
        );
        assert!(run_on(&files, "csharp", cs, "9.0.0").is_empty());
    }
}

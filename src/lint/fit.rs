//! Stack fit: the package a skill is about against the packages a project declares.
//!
//! Pure: it reads the skill's [`Analysis`] and the scanned [`Project`]. SG405 reports an
//! off-stack skill; every output format prints the fit from the same value.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::claims::{
    Analysis, Origin, Subject, crate_spellings, go_module_key, placeholder_package,
};
use crate::knowledge::{aliases, stack};
use crate::project::{Dependency, Ecosystem, Project};
use crate::skill::code::{Lang, module_under};

/// How much of the skill's stack the project shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fit {
    /// The project declares the skill's main package and every package of its ecosystem the
    /// description names (without a main package: uses every ecosystem the skill works in).
    Core,
    /// The project declares the main package but not a sub-framework the description names,
    /// or declares the package the main one extends; for a main package found by use alone,
    /// the project uses an ecosystem of the skill without it (without a main package: some
    /// of the skill's ecosystems).
    Partial,
    /// The project lacks the main package the frontmatter names (for a language: has none of
    /// its code or manifests), or, for one found by use alone, every ecosystem of the skill.
    OffStack,
}

impl fmt::Display for Fit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Fit::Core => "core",
            Fit::Partial => "partial",
            Fit::OffStack => "off-stack",
        })
    }
}

/// The fit and what it rests on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StackFit {
    /// `None` when the skill shows no language or package at all, or has no main package
    /// and shares no ecosystem with the project.
    pub fit: Option<Fit>,
    /// The package the skill is about, when it names or uses one (see [`main_package`]).
    pub main: Option<MainPackage>,
    /// Ecosystems the skill works in, sorted.
    pub skill: Vec<Ecosystem>,
    /// Ecosystems the project uses, sorted.
    pub project: Vec<Ecosystem>,
    /// The main package and what the project has of it, then the skill's other packages,
    /// or, without a package, one line per ecosystem of either side.
    pub evidence: Vec<String>,
}

/// The package a skill is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MainPackage {
    /// Its registry, or [`Ecosystem::Runtime`] when the skill is about a language runtime.
    pub ecosystem: Ecosystem,
    /// The package (or runtime) name.
    pub package: String,
    /// Whether the project declares it (for a runtime: uses its ecosystem).
    pub in_project: bool,
}

impl StackFit {
    /// `fit: core (npm)` and the like, for one-line summaries.
    pub fn summary(&self) -> String {
        match self.fit {
            Some(fit) => format!("fit: {fit} ({})", self.evidence.join("; ")),
            None if self.evidence.is_empty() => {
                "fit: unknown (the skill names no language or package)".to_owned()
            }
            None => format!(
                "fit: unknown (the skill is about no package; {})",
                self.evidence.join("; ")
            ),
        }
    }
}

/// Compares the skill with the project, package first.
///
/// The skill's main package ([`main_package`]) decides. The project declares it: `core`,
/// or `partial` when a package of the same ecosystem the description also names is missing
/// (a Django skill about DRF or Celery on a project without them). The project lacks it: a
/// main package the frontmatter names (description, or a language in the name) is what the
/// skill is about, so the skill is `off-stack`, unless the package it extends is there (a
/// DRF skill on a Django project: `partial`). A main package only found by use (at least
/// [`MAIN_USES`] times) shapes the examples rather than the topic: `partial` when the
/// project uses its ecosystem or another the skill works in, else `off-stack`. A skill
/// without one is compared by ecosystems (of its packages, runtimes and code blocks): all
/// in the project -> `core`, some -> `partial`, none -> unknown.
pub fn stack_fit(analysis: &Analysis, project: &Project) -> StackFit {
    let skill = skill_stack(analysis);
    let project_side = project_stack(project);
    let uses = package_uses(analysis);
    let skill_ecosystems = skill.keys().copied().collect();
    let project_ecosystems = project_side.keys().copied().collect();
    let Some(main) = main_package(&uses).filter(|m| m.described || m.total() >= MAIN_USES) else {
        let (mut fit, evidence) = ecosystem_fit(&skill, &project_side);
        // Without a package it is about, a skill is not off-stack for its examples' language
        // or the packages they happen to use: a debugging method shown in TypeScript, or a
        // CI guide whose one template sets up Node, applies anywhere.
        if fit == Some(Fit::OffStack) {
            fit = None;
        }
        return StackFit {
            fit,
            main: None,
            skill: skill_ecosystems,
            project: project_ecosystems,
            evidence,
        };
    };
    let ecosystem = package_ecosystem(&main.subject);
    let ecosystem_used = ecosystem.is_some_and(|e| project_side.contains_key(&e));
    let runtime = main.subject.ecosystem == Ecosystem::Runtime;
    let found = if runtime {
        Vec::new()
    } else {
        declared(project, &main.subject)
    };
    // The repository's own package (`[project] name = "pydantic"`, a workspace crate) is
    // there: a skill about it is the repository's own.
    let own = !runtime && own_package(project, &main.subject);
    let in_project = if runtime {
        runtime_used(project, &main.subject.package, ecosystem)
    } else {
        !found.is_empty() || own
    };
    // Named packages of the main one's ecosystem that the project lacks: a sub-framework.
    let missing: Vec<&PackageUse> = if in_project && !runtime {
        uses.iter()
            .filter(|u| {
                // Named, and used by the skill's code: a sub-framework it works in, not an
                // alternative the description lists ("for Express and Next.js").
                u.described
                    && u.imports + u.installs > 0
                    && u.subject != main.subject
                    && u.subject.ecosystem == main.subject.ecosystem
                    && declared(project, &u.subject).is_empty()
                    && !own_package(project, &u.subject)
            })
            .collect()
    } else {
        Vec::new()
    };
    // The package the main one extends (Django for DRF), when the project has it.
    let base = (!in_project && !runtime)
        .then(|| stack().extends(main.subject.ecosystem, &main.subject.package))
        .flatten()
        .map(|package| Subject {
            ecosystem: main.subject.ecosystem,
            package: package.to_owned(),
        })
        .filter(|base| !declared(project, base).is_empty());
    // A main package found by use alone: examples that also cover the project's Go make a
    // Python-flavoured tracing skill partial there.
    let shares_any = skill.keys().any(|e| project_side.contains_key(e));
    let fit = if in_project {
        if missing.is_empty() {
            Fit::Core
        } else {
            Fit::Partial
        }
    } else if base.is_some() || (!main.described && (ecosystem_used || shares_any)) {
        Fit::Partial
    } else {
        Fit::OffStack
    };
    let mut evidence = vec![if own && found.is_empty() {
        format!(
            "{}: the skill's main package; the project is {} itself",
            main.subject.package, main.subject.package
        )
    } else {
        main_evidence(project, main, &found, ecosystem, &project_side, in_project)
    }];
    if !missing.is_empty() {
        let names: Vec<&str> = missing.iter().map(|u| u.subject.package.as_str()).collect();
        evidence.push(format!(
            "the skill also names {}, which the project does not have",
            names.join(", ")
        ));
    }
    if let Some(base) = &base {
        evidence.push(format!(
            "{} extends {}, which the project has",
            main.subject.package, base.package
        ));
    }
    if let Some(others) = other_packages(project, &uses, &main.subject) {
        evidence.push(others);
    }
    StackFit {
        fit: Some(fit),
        main: Some(MainPackage {
            ecosystem: main.subject.ecosystem,
            package: main.subject.package.clone(),
            in_project,
        }),
        skill: skill_ecosystems,
        project: project_ecosystems,
        evidence,
    }
}

/// How often a package the description does not name must be used to be what the skill is
/// about: a skill that names Python once in a list of languages is about none of them.
const MAIN_USES: usize = 3;

/// How one package is used by the skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageUse {
    /// The package or runtime.
    pub subject: Subject,
    /// Import statements of it in code blocks.
    pub imports: usize,
    /// Installs of it (code blocks and inline commands) and manifest entries.
    pub installs: usize,
    /// Places the prose names it.
    pub mentions: usize,
    /// Whether the frontmatter description names it.
    pub described: bool,
    /// Where it is first used, for a stable tie-break.
    pub first: usize,
}

impl PackageUse {
    /// Every use together.
    pub fn total(&self) -> usize {
        self.imports + self.installs + self.mentions
    }
}

/// The skill's packages and runtimes with how often each is used, in order of first use.
/// Actions, Kubernetes and Docker subjects say where code runs, not what it is written
/// against, and are left out.
pub fn package_uses(analysis: &Analysis) -> Vec<PackageUse> {
    let mut uses: Vec<PackageUse> = Vec::new();
    // The frontmatter says what the skill is about: its description, and its name.
    let in_description = |start: usize| {
        [analysis.description, analysis.name]
            .iter()
            .flatten()
            .any(|d| d.start <= start && start < d.end)
    };
    let mut record = |subject: &Subject, start: usize, kind: Origin| {
        if package_ecosystem(subject).is_none() || placeholder_package(&subject.package) {
            return;
        }
        // A Go module's packages are one package to fit.
        let module;
        let subject = if subject.ecosystem == Ecosystem::Go {
            module = Subject {
                ecosystem: Ecosystem::Go,
                package: go_module_key(&subject.package),
            };
            &module
        } else {
            subject
        };
        let index = match uses.iter().position(|u| &u.subject == subject) {
            Some(index) => index,
            None => {
                uses.push(PackageUse {
                    subject: subject.clone(),
                    imports: 0,
                    installs: 0,
                    mentions: 0,
                    described: false,
                    first: start,
                });
                uses.len() - 1
            }
        };
        let entry = &mut uses[index];
        entry.first = entry.first.min(start);
        match kind {
            Origin::Import => entry.imports += 1,
            Origin::Prose => {
                entry.mentions += 1;
                entry.described |= in_description(start);
            }
            _ => entry.installs += 1,
        }
    };
    for claim in &analysis.claims {
        // A prose claim's name is also a mention, counted once there.
        if matches!(
            claim.origin,
            Origin::Import | Origin::Install | Origin::Manifest
        ) {
            record(&claim.subject, claim.span.start, claim.origin);
        }
    }
    for mention in &analysis.mentions {
        record(&mention.subject, mention.span.start, Origin::Prose);
    }
    uses.sort_by_key(|u| u.first);
    uses
}

/// The package the skill is about: among the packages the frontmatter description names,
/// the most used; when it names none, the most used of all. A package wins a tie over a
/// runtime, and the earlier one wins the rest.
pub fn main_package(uses: &[PackageUse]) -> Option<&PackageUse> {
    let described: Vec<&PackageUse> = uses.iter().filter(|u| u.described).collect();
    let candidates: Vec<&PackageUse> = if described.is_empty() {
        uses.iter().collect()
    } else {
        described
    };
    // `min_by_key` keeps the first of equals, and uses are in order of first use.
    candidates.into_iter().min_by_key(|u| {
        (
            std::cmp::Reverse(u.total()),
            u.subject.ecosystem == Ecosystem::Runtime,
        )
    })
}

/// Fewest files of a language that make it one of the project's own without a manifest:
/// one helper script in a Rails application does not make it a Python project.
const LANGUAGE_FILES: u64 = 5;

/// Whether the project works in a runtime the skill is about. A JavaScript runtime other than
/// Node (Bun, Deno) needs its own sign: a pin, or its package manager. A language needs a
/// dependency or pin of its ecosystem, or a few files of it.
fn runtime_used(project: &Project, runtime: &str, ecosystem: Option<Ecosystem>) -> bool {
    if matches!(runtime, "bun" | "deno") {
        return project.runtimes.iter().any(|r| r.name == runtime)
            || project
                .tools
                .package_manager
                .iter()
                .any(|t| t.name == runtime);
    }
    let Some(ecosystem) = ecosystem else {
        return false;
    };
    project
        .dependencies
        .iter()
        .any(|d| d.ecosystem == ecosystem)
        || project
            .runtimes
            .iter()
            .any(|r| runtime_stack(&r.name) == Some(ecosystem))
        || project
            .languages
            .iter()
            .any(|l| language_stack(&l.language) == Some(ecosystem) && l.files >= LANGUAGE_FILES)
}

/// The package ecosystem a subject's code lives in: its registry, or a runtime's.
fn package_ecosystem(subject: &Subject) -> Option<Ecosystem> {
    match subject.ecosystem {
        Ecosystem::Runtime => runtime_stack(&subject.package),
        Ecosystem::Actions | Ecosystem::Kubernetes | Ecosystem::Docker => None,
        other => Some(other),
    }
}

/// The project's entries for a package: the package itself first, then the packages its
/// knowledge alias says stand for it (a Spring Boot starter or parent for Spring Boot).
pub fn dependencies_for<'p>(
    project: &'p Project,
    ecosystem: Ecosystem,
    package: &str,
) -> Vec<&'p Dependency> {
    let mut found: Vec<&Dependency> = project.dependencies_named(ecosystem, package).collect();
    let aliases = aliases().iter().filter(|alias| {
        alias.ecosystem == ecosystem
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

/// The project's entries that provide a package the skill uses, by the registry's naming:
/// a Go import is provided by a `require` whose path is a prefix of it; a crate by either
/// spelling; a PyPI import also by the distribution spelt with the usual `python-`, `py`,
/// `-python`, `django-`, `apache-`, `-client`, `-sdk` and `-binary` affixes (`import docx` from
/// python-docx, `import airflow` from apache-airflow).
pub fn declared<'p>(project: &'p Project, subject: &Subject) -> Vec<&'p Dependency> {
    let package = subject.package.as_str();
    match subject.ecosystem {
        // Either way round: a module key (`cloud.google.com/go`) stands for the modules under it.
        Ecosystem::Go => project
            .dependencies
            .iter()
            .filter(|d| {
                d.ecosystem == Ecosystem::Go
                    && (module_under(package, &d.name) || module_under(&d.name, package))
            })
            .collect(),
        Ecosystem::Cargo => crate_spellings(package)
            .iter()
            .flat_map(|name| dependencies_for(project, Ecosystem::Cargo, name))
            .collect(),
        Ecosystem::Pypi => {
            let found = dependencies_for(project, Ecosystem::Pypi, package);
            if !found.is_empty() {
                return found;
            }
            [
                format!("python-{package}"),
                format!("py{package}"),
                format!("{package}-python"),
                format!("django-{package}"),
                format!("apache-{package}"),
                format!("{package}-client"),
                format!("{package}-sdk"),
                format!("{package}-binary"),
            ]
            .iter()
            .flat_map(|name| project.dependencies_named(Ecosystem::Pypi, name))
            .collect()
        }
        ecosystem => dependencies_for(project, ecosystem, package),
    }
}

/// Whether the package is the project's own (a workspace crate, a Python package folder,
/// the Go module, a workspace npm package).
pub fn own_package(project: &Project, subject: &Subject) -> bool {
    let package = subject.package.as_str();
    match subject.ecosystem {
        Ecosystem::Go => project
            .own
            .iter()
            .any(|own| own.ecosystem == Ecosystem::Go && module_under(package, &own.name)),
        Ecosystem::Cargo => crate_spellings(package)
            .iter()
            .any(|name| project.owns(Ecosystem::Cargo, name)),
        ecosystem => project.owns(ecosystem, package),
    }
}

/// `react: the skill's main package (named in the description; imports it 12 times);
/// project has react 18.2.0 in web/package.json`.
fn main_evidence(
    project: &Project,
    main: &PackageUse,
    found: &[&Dependency],
    ecosystem: Option<Ecosystem>,
    project_side: &BTreeMap<Ecosystem, Vec<String>>,
    in_project: bool,
) -> String {
    let name = &main.subject.package;
    let mut why = Vec::new();
    if main.described {
        why.push("named in the description".to_owned());
    }
    for (n, verb) in [
        (main.imports, "imports it"),
        (main.installs, "installs it"),
        (main.mentions, "names it"),
    ] {
        if n > 0 {
            why.push(format!("{verb} {}", times(n)));
        }
    }
    let kind = if main.subject.ecosystem == Ecosystem::Runtime {
        "runtime"
    } else {
        "package"
    };
    let head = format!("{name}: the skill's main {kind} ({})", why.join(", "));
    let ecosystem_name = ecosystem.map_or("its ecosystem", |e| e.as_str());
    let side = if main.subject.ecosystem == Ecosystem::Runtime {
        match ecosystem.and_then(|e| project_side.get(&e)) {
            Some(signs) if in_project => format!("project has {}", signs.join(", ")),
            Some(signs) => format!(
                "project has only {} and no sign of {name} (manifest, pin or a few files)",
                signs.join(", ")
            ),
            None => format!("project does not use {ecosystem_name}"),
        }
    } else if let Some(first) = found.first() {
        let version = first
            .resolved
            .as_ref()
            .or(first.constraint.as_ref())
            .map(|v| format!(" {}", v.value))
            .unwrap_or_default();
        let place = first
            .constraint
            .as_ref()
            .or(first.resolved.as_ref())
            .map(|v| format!(" in {}", v.path.display()))
            .unwrap_or_default();
        format!("project has {}{version}{place}", first.name)
    } else {
        match ecosystem.map(|e| manifests(project, e)) {
            Some(places) if !places.is_empty() => {
                format!("project has no {name} in {}", places.join(", "))
            }
            _ if ecosystem.is_some_and(|e| project_side.contains_key(&e)) => {
                format!("project has no {name}; it uses {ecosystem_name} without a manifest")
            }
            _ => format!("project does not use {ecosystem_name}"),
        }
    };
    format!("{head}; {side}")
}

/// The manifests of an ecosystem's roots, as `package.json (web/)`, at most four; the
/// lockfiles only when no manifest declares anything.
fn manifests(project: &Project, ecosystem: Ecosystem) -> Vec<String> {
    let of_ecosystem = || {
        project
            .dependencies
            .iter()
            .filter(|d| d.ecosystem == ecosystem)
    };
    let mut paths: Vec<&std::path::Path> = of_ecosystem()
        .filter_map(|d| d.constraint.as_ref())
        .map(|v| v.path.as_path())
        .collect();
    if paths.is_empty() {
        paths = of_ecosystem()
            .filter_map(|d| d.resolved.as_ref())
            .map(|v| v.path.as_path())
            .collect();
    }
    paths.sort();
    paths.dedup();
    let mut shown: Vec<String> = paths.iter().take(4).map(|p| manifest_place(p)).collect();
    if paths.len() > 4 {
        shown.push(format!("{} more", paths.len() - 4));
    }
    shown
}

/// `web/package.json` as `package.json (web/)`; a root manifest as its name.
fn manifest_place(path: &std::path::Path) -> String {
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(dir) => format!("{name} ({}/)", dir.display()),
        None => name,
    }
}

/// `also uses axios (in the project), swr (not in the project)`: the next few packages.
fn other_packages(project: &Project, uses: &[PackageUse], main: &Subject) -> Option<String> {
    let mut others: Vec<&PackageUse> = uses
        .iter()
        .filter(|u| &u.subject != main && u.subject.ecosystem != Ecosystem::Runtime)
        .collect();
    others.sort_by_key(|u| (std::cmp::Reverse(u.total()), u.first));
    let shown: Vec<String> = others
        .iter()
        .take(OTHERS_SHOWN)
        .map(|u| {
            let side = if declared(project, &u.subject).is_empty() {
                "not in the project"
            } else {
                "in the project"
            };
            format!("{} ({side})", u.subject.package)
        })
        .collect();
    if shown.is_empty() {
        return None;
    }
    let more = others.len().saturating_sub(OTHERS_SHOWN);
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    Some(format!("also uses {}{tail}", shown.join(", ")))
}

/// How many of the skill's other packages the evidence names.
const OTHERS_SHOWN: usize = 5;

fn times(n: usize) -> String {
    if n == 1 {
        "once".to_owned()
    } else {
        format!("{n} times")
    }
}

/// The fit of a skill that names no package: its ecosystems against the project's.
fn ecosystem_fit(
    skill: &BTreeMap<Ecosystem, Vec<String>>,
    project_side: &BTreeMap<Ecosystem, Vec<String>>,
) -> (Option<Fit>, Vec<String>) {
    let shared = skill
        .keys()
        .filter(|e| project_side.contains_key(e))
        .count();
    let fit = match (skill.len(), shared) {
        (0, _) => None,
        (_, 0) => Some(Fit::OffStack),
        (n, s) if s == n => Some(Fit::Core),
        _ => Some(Fit::Partial),
    };
    let mut evidence = Vec::new();
    for (ecosystem, signs) in skill {
        let side = match project_side.get(ecosystem) {
            Some(project_signs) => format!("project has {}", project_signs.join(", ")),
            None => "not in the project".to_owned(),
        };
        let mut shown: Vec<&str> = signs
            .iter()
            .take(OTHERS_SHOWN)
            .map(String::as_str)
            .collect();
        let more = signs.len().saturating_sub(OTHERS_SHOWN);
        let more_text = format!("{more} more");
        if more > 0 {
            shown.push(&more_text);
        }
        evidence.push(format!(
            "{}: skill uses {}; {side}",
            ecosystem.as_str(),
            shown.join(", ")
        ));
    }
    if skill.is_empty() || shared < project_side.len() {
        let others: Vec<&str> = project_side
            .keys()
            .filter(|e| !skill.contains_key(e))
            .map(|e| e.as_str())
            .collect();
        if !others.is_empty() {
            evidence.push(format!("project also uses {}", others.join(", ")));
        }
    }
    (fit, evidence)
}

/// Ecosystems of the skill with their signs: packages it names, languages of its code.
fn skill_stack(analysis: &Analysis) -> BTreeMap<Ecosystem, Vec<String>> {
    let mut stack: BTreeMap<Ecosystem, Vec<String>> = BTreeMap::new();
    for claim in &analysis.claims {
        let subject = &claim.subject;
        let ecosystem = match subject.ecosystem {
            Ecosystem::Runtime => runtime_stack(&subject.package),
            Ecosystem::Actions | Ecosystem::Kubernetes => None,
            other => Some(other),
        };
        if let Some(ecosystem) = ecosystem.filter(|_| !placeholder_package(&subject.package)) {
            add(&mut stack, ecosystem, subject.package.clone());
        }
    }
    for mention in &analysis.mentions {
        if let Some(ecosystem) = package_ecosystem(&mention.subject) {
            add(&mut stack, ecosystem, mention.subject.package.clone());
        }
    }
    for block in &analysis.facts {
        if let Some((ecosystem, lang)) = block.lang.and_then(lang_stack) {
            add(&mut stack, ecosystem, format!("{lang} code"));
        }
    }
    stack
}

/// Ecosystems of the project with their signs: dependencies, runtimes, source files.
fn project_stack(project: &Project) -> BTreeMap<Ecosystem, Vec<String>> {
    let mut counts: BTreeMap<Ecosystem, usize> = BTreeMap::new();
    for dependency in &project.dependencies {
        *counts.entry(dependency.ecosystem).or_default() += 1;
    }
    let mut stack: BTreeMap<Ecosystem, Vec<String>> = BTreeMap::new();
    for (ecosystem, n) in counts {
        if !matches!(ecosystem, Ecosystem::Actions | Ecosystem::Docker) {
            let noun = if n == 1 { "dependency" } else { "dependencies" };
            add(&mut stack, ecosystem, format!("{n} {noun}"));
        }
    }
    for runtime in &project.runtimes {
        if let Some(ecosystem) = runtime_stack(&runtime.name) {
            add(&mut stack, ecosystem, format!("{} runtime", runtime.name));
        }
    }
    for language in &project.languages {
        if let Some(ecosystem) = language_stack(&language.language) {
            add(
                &mut stack,
                ecosystem,
                format!("{} files", language.language),
            );
        }
    }
    stack
}

fn add(stack: &mut BTreeMap<Ecosystem, Vec<String>>, ecosystem: Ecosystem, sign: String) {
    let signs = stack.entry(ecosystem).or_default();
    if !signs.contains(&sign) {
        signs.push(sign);
    }
}

/// The package ecosystem a runtime's code lives in (`python` -> PyPI).
fn runtime_stack(runtime: &str) -> Option<Ecosystem> {
    Some(match runtime {
        "python" => Ecosystem::Pypi,
        "node" | "bun" | "deno" => Ecosystem::Npm,
        "rust" => Ecosystem::Cargo,
        "go" => Ecosystem::Go,
        "java" => Ecosystem::Maven,
        "ruby" => Ecosystem::Rubygems,
        "php" => Ecosystem::Composer,
        "dotnet" => Ecosystem::Nuget,
        "kotlin" => Ecosystem::Maven,
        _ => return None,
    })
}

/// The package ecosystem of a code block's language, and the language's name.
fn lang_stack(lang: Lang) -> Option<(Ecosystem, &'static str)> {
    Some(match lang {
        Lang::Python => (Ecosystem::Pypi, "Python"),
        Lang::JavaScript => (Ecosystem::Npm, "JavaScript"),
        Lang::TypeScript | Lang::Tsx => (Ecosystem::Npm, "TypeScript"),
        Lang::Java => (Ecosystem::Maven, "Java"),
        Lang::Gradle => (Ecosystem::Maven, "Gradle"),
        Lang::Go => (Ecosystem::Go, "Go"),
        Lang::Rust => (Ecosystem::Cargo, "Rust"),
        Lang::Ruby => (Ecosystem::Rubygems, "Ruby"),
        Lang::Php => (Ecosystem::Composer, "PHP"),
        Lang::CSharp => (Ecosystem::Nuget, "C#"),
        _ => return None,
    })
}

/// The package ecosystem of a language the scanner counted files of.
fn language_stack(language: &str) -> Option<Ecosystem> {
    Some(match language {
        "Python" => Ecosystem::Pypi,
        "JavaScript" | "TypeScript" | "Vue" | "Svelte" => Ecosystem::Npm,
        "Rust" => Ecosystem::Cargo,
        "Go" => Ecosystem::Go,
        "Java" | "Kotlin" | "Scala" | "Groovy" => Ecosystem::Maven,
        "Ruby" => Ecosystem::Rubygems,
        "PHP" => Ecosystem::Composer,
        "C#" | "F#" => Ecosystem::Nuget,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_and_runtimes_map_to_their_registries() {
        assert_eq!(runtime_stack("python"), Some(Ecosystem::Pypi));
        assert_eq!(runtime_stack("kubernetes"), None);
        assert_eq!(language_stack("TypeScript"), Some(Ecosystem::Npm));
        assert_eq!(language_stack("Shell"), None);
        assert_eq!(lang_stack(Lang::Tsx), Some((Ecosystem::Npm, "TypeScript")));
        assert_eq!(lang_stack(Lang::Yaml), None);
    }

    #[test]
    fn fit_names_are_kebab_case() {
        assert_eq!(Fit::OffStack.to_string(), "off-stack");
        assert_eq!(
            serde_json::to_string(&Fit::OffStack).unwrap_or_default(),
            "\"off-stack\""
        );
    }
}

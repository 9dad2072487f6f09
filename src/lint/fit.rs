//! Stack fit: the ecosystems a skill works in against the ones a project uses.
//!
//! Pure: it reads the skill's [`Analysis`] and the scanned [`Project`]. SG405 reports an
//! off-stack skill; every output format prints the fit from the same value.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::claims::Analysis;
use crate::project::{Ecosystem, Project};
use crate::skill::code::Lang;

/// How much of the skill's stack the project shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fit {
    /// Every ecosystem the skill works in is one the project uses.
    Core,
    /// Some of them are.
    Partial,
    /// None of them is.
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
    /// `None` when the skill shows no language or package at all.
    pub fit: Option<Fit>,
    /// Ecosystems the skill works in, sorted.
    pub skill: Vec<Ecosystem>,
    /// Ecosystems the project uses, sorted.
    pub project: Vec<Ecosystem>,
    /// One line per ecosystem of either side: who uses it and the signs of it.
    pub evidence: Vec<String>,
}

impl StackFit {
    /// `fit: core (npm)` and the like, for one-line summaries.
    pub fn summary(&self) -> String {
        match self.fit {
            Some(fit) => format!("fit: {fit} ({})", self.evidence.join("; ")),
            None => "fit: unknown (the skill names no language or package)".to_owned(),
        }
    }
}

/// Compares the skill's ecosystems with the project's.
pub fn stack_fit(analysis: &Analysis, project: &Project) -> StackFit {
    let skill = skill_stack(analysis);
    let project_side = project_stack(project);
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
    for (ecosystem, signs) in &skill {
        let side = match project_side.get(ecosystem) {
            Some(project_signs) => format!("project has {}", project_signs.join(", ")),
            None => "not in the project".to_owned(),
        };
        evidence.push(format!(
            "{}: skill uses {}; {side}",
            ecosystem.as_str(),
            signs.join(", ")
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
    StackFit {
        fit,
        skill: skill.keys().copied().collect(),
        project: project_side.keys().copied().collect(),
        evidence,
    }
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
        if let Some(ecosystem) = ecosystem {
            add(&mut stack, ecosystem, subject.package.clone());
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

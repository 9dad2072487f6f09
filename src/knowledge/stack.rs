//! `rules/stack.toml`: what the stack fit and SG406 know about packages without API knowledge.
//!
//! Three tables, each entry with the page it was read from:
//! - `[[name]]`: a technology as prose names it ("Prisma", "DRF", "PHP"), for telling what a
//!   skill is about. Unlike the aliases of `packages.toml`, a name here makes no version
//!   claim: it is a mention only, so it needs no API file.
//! - `[[import]]`: an import root whose distribution is named otherwise (`yaml` -> PyYAML,
//!   `Illuminate` -> laravel/framework).
//! - `[[requires]]`: packages a package always installs (Django installs asgiref), so an
//!   import of one is declared by the other.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::project::Ecosystem;
use crate::skill::code::module_under;

/// Path of the stack table under `rules/`.
pub const STACK_FILE: &str = "stack.toml";

/// A technology named in prose, for the fit.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StackName {
    /// Names as written in prose, matched as the aliases' names are.
    pub names: Vec<String>,
    /// The package's ecosystem, or `runtime` for a language.
    pub ecosystem: Ecosystem,
    /// Canonical name as the project scanner reports it (a runtime's name for a language).
    pub package: String,
    /// The package this one extends, in the same ecosystem (`djangorestframework` extends
    /// `django`): a project with that package shares part of a skill about this one.
    #[serde(default)]
    pub extends: Option<String>,
    /// Where the package's name and relation were read.
    pub source: String,
}

/// An import root and the registry package that provides it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportName {
    /// `pypi` or `composer`.
    pub ecosystem: Ecosystem,
    /// The import root as written: a Python module (`django_filters`) or a PHP namespace
    /// with `.` between its parts (`Laravel.Sanctum`).
    pub module: String,
    /// The distribution or Composer package.
    pub package: String,
    /// The package's own install instructions.
    pub source: String,
}

/// Packages another package always installs.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requires {
    /// The ecosystem of both sides.
    pub ecosystem: Ecosystem,
    /// The package that is declared.
    pub package: String,
    /// What it installs with it, by the names the registry gives them.
    pub requires: Vec<String>,
    /// The package's own dependency list.
    pub source: String,
}

/// The whole stack table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stack {
    /// Prose names, in file order.
    #[serde(default, rename = "name")]
    pub names: Vec<StackName>,
    /// Import roots, in file order.
    #[serde(default, rename = "import")]
    pub imports: Vec<ImportName>,
    /// Hard dependencies, in file order.
    #[serde(default, rename = "requires")]
    pub requires: Vec<Requires>,
}

impl Stack {
    /// The package an import of `module` in `ecosystem` comes from, when the table names it;
    /// the longest matching root wins (`rest_framework_simplejwt` before `rest_framework`).
    pub fn imported(&self, ecosystem: Ecosystem, module: &str) -> Option<&str> {
        self.imports
            .iter()
            .filter(|i| i.ecosystem == ecosystem && module_under(module, &i.module))
            .max_by_key(|i| i.module.len())
            .map(|i| i.package.as_str())
    }

    /// The packages that `package` installs with it.
    pub fn required_by<'a>(
        &'a self,
        ecosystem: Ecosystem,
        package: &'a str,
    ) -> impl Iterator<Item = &'a str> + 'a {
        self.requires
            .iter()
            .filter(move |r| r.ecosystem == ecosystem && r.package.eq_ignore_ascii_case(package))
            .flat_map(|r| r.requires.iter().map(String::as_str))
    }

    /// The package `package` extends, if the table says so.
    pub fn extends(&self, ecosystem: Ecosystem, package: &str) -> Option<&str> {
        self.names
            .iter()
            .find(|n| n.ecosystem == ecosystem && n.package == package)
            .and_then(|n| n.extends.as_deref())
    }
}

static STACK: OnceLock<Stack> = OnceLock::new();

/// The embedded stack table, parsed on first use.
pub fn stack() -> &'static Stack {
    STACK.get_or_init(|| {
        let text = super::RULE_FILES
            .iter()
            .find(|file| file.path == STACK_FILE)
            .map_or("", |file| file.text);
        match toml::from_str(text) {
            Ok(stack) => stack,
            // `tests::the_stack_table_parses` parses the embedded file.
            Err(error) => unreachable!("embedded {STACK_FILE}: {error}"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stack_table_parses_and_each_entry_is_sound() {
        let stack = stack();
        assert!(!stack.names.is_empty() && !stack.imports.is_empty());
        for name in &stack.names {
            assert!(!name.names.is_empty(), "{name:?}");
            assert!(name.source.starts_with("https://"), "{name:?}");
            if name.ecosystem == Ecosystem::Runtime {
                assert!(name.extends.is_none(), "{name:?}");
            }
        }
        for import in &stack.imports {
            assert!(import.source.starts_with("https://"), "{import:?}");
            assert!(
                matches!(import.ecosystem, Ecosystem::Pypi | Ecosystem::Composer),
                "{import:?}"
            );
        }
        for requires in &stack.requires {
            assert!(requires.source.starts_with("https://"), "{requires:?}");
        }
    }

    #[test]
    fn the_longest_import_root_wins() {
        let stack = stack();
        assert_eq!(
            stack.imported(Ecosystem::Pypi, "rest_framework_simplejwt.tokens"),
            Some("djangorestframework-simplejwt")
        );
        assert_eq!(
            stack.imported(Ecosystem::Pypi, "rest_framework.views"),
            Some("djangorestframework")
        );
        assert_eq!(stack.imported(Ecosystem::Pypi, "rest"), None);
        assert_eq!(
            stack.imported(Ecosystem::Composer, "Illuminate.Support.Facades"),
            Some("laravel/framework")
        );
        assert!(
            stack
                .required_by(Ecosystem::Pypi, "Django")
                .any(|p| p == "asgiref")
        );
        assert_eq!(
            stack.extends(Ecosystem::Pypi, "djangorestframework"),
            Some("django")
        );
    }
}

//! The package alias table: the names prose uses and the import roots code uses for each
//! package the knowledge files know, matched to the claim's subject.

use regex::Regex;

use super::Subject;
use crate::knowledge::PackageAlias;
use crate::project::Ecosystem;
use crate::skill::code::{Lang, module_under};

/// A claim-extraction setup that could not be built.
#[derive(Debug, thiserror::Error)]
#[error("the package name table does not compile into a matcher")]
pub struct AliasTableError(#[from] regex::Error);

/// Package names as written in prose and code, ready to match.
#[derive(Debug)]
pub struct AliasTable {
    /// Every prose name, longest first, in one case-insensitive alternation.
    pub(super) names: Option<Regex>,
    by_name: Vec<(String, Subject)>,
    by_import: Vec<(String, Subject)>,
}

/// Lowercase English words that are also package names: these only count when written with
/// the table's capitalisation ("Go 1.22" is a claim, "go 2 levels up" is not; "Gin" is
/// the Go framework, "GIN" a PostgreSQL index).
const COMMON_WORDS: &[&str] = &[
    "go", "next", "express", "react", "spring", "rails", "flask", "node", "bun", "rust", "ruby",
    "swift", "remix", "ember", "jest", "mocha", "deno", "vite", "nest", "click", "requests", "gin",
];

impl AliasTable {
    /// Builds the table from the knowledge's package aliases.
    pub fn new<'a>(
        aliases: impl IntoIterator<Item = &'a PackageAlias>,
    ) -> Result<Self, AliasTableError> {
        let mut by_name = Vec::new();
        let mut by_import = Vec::new();
        for alias in aliases {
            let subject = Subject {
                ecosystem: alias.ecosystem,
                package: alias.package.clone(),
            };
            by_name.extend(alias.names.iter().map(|n| (n.clone(), subject.clone())));
            by_import.extend(alias.imports.iter().map(|i| (i.clone(), subject.clone())));
        }
        by_name.sort_by_key(|(name, _)| std::cmp::Reverse(name.len()));
        let names = if by_name.is_empty() {
            None
        } else {
            // Names are matched against ASCII-lowercased text: a case-insensitive pattern
            // would compile every case variant of every name.
            let alternation: Vec<String> = by_name
                .iter()
                .map(|(n, _)| regex::escape(&n.to_ascii_lowercase()))
                .collect();
            Some(Regex::new(&format!("(?:{})", alternation.join("|")))?)
        };
        Ok(Self {
            names,
            by_name,
            by_import,
        })
    }

    /// The subject a prose name stands for, if `written` is one of the table's names.
    pub(super) fn named(&self, written: &str) -> Option<&Subject> {
        let (name, subject) = self
            .by_name
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(written))?;
        let common = COMMON_WORDS.contains(&name.to_ascii_lowercase().as_str());
        (!common || written == name).then_some(subject)
    }

    /// The subject an import of `module` in a block of `lang` stands for.
    pub(super) fn imported(&self, lang: Lang, module: &str) -> Option<&Subject> {
        let ecosystem = match lang {
            Lang::Python => Ecosystem::Pypi,
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => Ecosystem::Npm,
            Lang::Rust => Ecosystem::Cargo,
            Lang::Go => Ecosystem::Go,
            Lang::Java => Ecosystem::Maven,
            Lang::Php => Ecosystem::Composer,
            _ => return None,
        };
        self.by_import
            .iter()
            .find(|(root, subject)| subject.ecosystem == ecosystem && module_under(module, root))
            .map(|(_, subject)| subject)
    }
}

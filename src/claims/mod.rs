//! What a skill claims about versions: "React 18", "Python 3.12+", `pip install x==1`,
//! `FROM node:20`, `uses: actions/checkout@v3`, and which packages its code imports.
//!
//! Claims sit above the knowledge files, whose alias table names the packages, and below
//! the rules that compare them with a project. Precision comes before recall: a claim
//! becomes a finding when the project disagrees, so a number that is only probably a
//! version (a year, a section number, a count of minutes, a number in a URL) makes no claim.

mod aliases;
mod code;
mod context;
mod facts_and_claims;
mod meaning;
mod prose;
mod registry;

pub use self::aliases::{AliasTable, AliasTableError};
pub use self::code::code_claims;
pub use self::context::{Role, heading_role, prose_role, section_opening_role};
pub use self::facts_and_claims::{Analysis, section_role};
pub use self::meaning::{is_upgrade_skill, line_precision};
pub use self::prose::{prose_claims, prose_mentions};
pub use self::registry::{
    crate_name, crate_spellings, go_import, go_module_key, imported_package, npm_package,
    placeholder_package, pypi_distribution,
};
use crate::project::Ecosystem;
use crate::project::version::{Dialect, Requirement};
use crate::skill::code::{CodeFacts, Span};

/// What a claim is about: a package of an ecosystem, or a runtime.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Subject {
    /// The registry, or [`Ecosystem::Runtime`] for python, node, java...
    pub ecosystem: Ecosystem,
    /// Canonical package name as the project scanner reports it.
    pub package: String,
}

/// Where in the skill a claim was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// A sentence or heading ("requires Node 18 or later").
    Prose,
    /// An install command in a shell block.
    Install,
    /// A manifest snippet (`Cargo.toml`, `package.json`, `pom.xml`...).
    Manifest,
    /// A Dockerfile `FROM`.
    Docker,
    /// A GitHub Actions `uses:`.
    Actions,
    /// An import in a code block (no version: the skill uses the package).
    Import,
}

/// A skill's statement that it needs `subject` at `requirement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The package or runtime.
    pub subject: Subject,
    /// The version or range claimed.
    pub requirement: VersionReq,
    /// Where the claim is in the SKILL.md (the name and version for prose).
    pub span: Span,
    /// What kind of text it came from.
    pub origin: Origin,
    /// What the claim says about the skill: only a [`Role::Target`] is what it is written for.
    pub role: Role,
    /// Whether its sentence says in so many words that the skill is for this version
    /// ("This skill targets React 17", "written for Django 4.2"), which an upgrade skill's
    /// other versions do not.
    pub stated: bool,
}

/// A place where prose names a known package, version or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// The package or runtime named.
    pub subject: Subject,
    /// The name in the text.
    pub span: Span,
}

/// A version requirement as written and normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionReq {
    /// The text as the skill wrote it (`18`, `>= 20`, `3.12+`, `^1`, `2.x`).
    pub written: String,
    /// Its meaning.
    pub kind: Requirement,
}

impl VersionReq {
    /// Normalises `written` read in `dialect`.
    pub fn parse(written: &str, dialect: Dialect) -> Self {
        let kind = Requirement::parse(written, dialect).unwrap_or(Requirement::Unparsed);
        Self {
            written: written.trim().to_owned(),
            kind,
        }
    }

    /// A requirement with no version.
    pub fn any() -> Self {
        Self {
            written: String::new(),
            kind: Requirement::Any,
        }
    }
}

/// Prose and code claims together, in file order.
pub fn claims(lines: &[(usize, &str)], facts: &[CodeFacts], aliases: &AliasTable) -> Vec<Claim> {
    let mut all = prose_claims(lines, aliases);
    all.extend(code_claims(facts, aliases));
    all.sort_by_key(|claim| claim.span);
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::PackageAlias;
    use crate::project::version::Release;
    use crate::skill::code::tests::facts;

    fn alias(
        names: &[&str],
        imports: &[&str],
        ecosystem: Ecosystem,
        package: &str,
    ) -> PackageAlias {
        PackageAlias {
            names: names.iter().map(|n| (*n).to_owned()).collect(),
            imports: imports.iter().map(|i| (*i).to_owned()).collect(),
            ecosystem,
            package: package.to_owned(),
            also: Vec::new(),
        }
    }

    /// A local stand-in for `rules/packages.toml`.
    fn table() -> AliasTable {
        let aliases = [
            alias(&["React"], &["react"], Ecosystem::Npm, "react"),
            alias(&["Django"], &["django"], Ecosystem::Pypi, "django"),
            alias(
                &["Spring Boot"],
                &["org.springframework.boot"],
                Ecosystem::Maven,
                "org.springframework.boot:spring-boot",
            ),
            alias(&["Python", "CPython"], &[], Ecosystem::Runtime, "python"),
            alias(
                &["Node.js", "Node", "NodeJS"],
                &[],
                Ecosystem::Runtime,
                "node",
            ),
            alias(&["tokio"], &["tokio"], Ecosystem::Cargo, "tokio"),
            alias(&["pydantic"], &["pydantic"], Ecosystem::Pypi, "pydantic"),
            alias(&["Next.js", "Next"], &["next"], Ecosystem::Npm, "next"),
            alias(&["Vue"], &["vue"], Ecosystem::Npm, "vue"),
            alias(&["Go", "Golang"], &[], Ecosystem::Runtime, "go"),
        ];
        AliasTable::new(&aliases).expect("test table compiles")
    }

    fn prose(line: &str) -> Vec<(String, String, Requirement)> {
        prose_claims(&[(1000, line)], &table())
            .into_iter()
            .map(|c| {
                let text = line[c.span.start - 1000..c.span.end - 1000].to_owned();
                (c.subject.package, text, c.requirement.kind)
            })
            .collect()
    }

    fn v(text: &str) -> Release {
        Release::parse(text).expect("test version parses")
    }

    fn one(package: &str, text: &str, kind: Requirement) -> Vec<(String, String, Requirement)> {
        vec![(package.to_owned(), text.to_owned(), kind)]
    }

    #[test]
    fn prose_positives() {
        let org = "org.springframework.boot:spring-boot";
        let cases = [
            (
                "This guide targets React 18.",
                one("react", "React 18", Requirement::Series(v("18"))),
            ),
            (
                "Django 3.2 LTS only",
                one("django", "Django 3.2", Requirement::Series(v("3.2"))),
            ),
            (
                "Written for Spring Boot 2.x apps",
                one(org, "Spring Boot 2.x", Requirement::Series(v("2"))),
            ),
            (
                "Needs Python 3.12+ syntax",
                one("python", "Python 3.12+", Requirement::AtLeast(v("3.12"))),
            ),
            (
                "Use Node.js >= 20",
                one("node", "Node.js >= 20", Requirement::AtLeast(v("20"))),
            ),
            (
                "the tokio 0.2 runtime",
                one("tokio", "tokio 0.2", Requirement::Series(v("0.2"))),
            ),
            (
                "migrate to pydantic v2",
                one("pydantic", "pydantic v2", Requirement::Series(v("2"))),
            ),
            (
                "Next.js 13 app router",
                one("next", "Next.js 13", Requirement::Series(v("13"))),
            ),
            (
                "requires Node 18 or later",
                one("node", "Node 18 or later", Requirement::AtLeast(v("18"))),
            ),
            ("## Vue 3", one("vue", "Vue 3", Requirement::Series(v("3")))),
            (
                "Go 1.22 generics",
                one("go", "Go 1.22", Requirement::Series(v("1.22"))),
            ),
            (
                "python version 3.11",
                one(
                    "python",
                    "python version 3.11",
                    Requirement::Series(v("3.11")),
                ),
            ),
        ];
        for (line, expected) in cases {
            assert_eq!(prose(line), expected, "{line}");
        }
    }

    #[test]
    fn prose_negatives() {
        for line in [
            "Released in 2024, React changed a lot.",
            "See section 3.2 for details.",
            "React 2024 roadmap",
            "Read https://react.dev/blog/react-18-upgrade for details",
            "See [the guide](https://example.com/Python-3.12) first",
            "Python 3 times faster",
            "Node 20 minutes later",
            "React 18/19 both work",
            "React 17 or 18",
            "Django 3.2-4.2 are supported",
            "Python 3.10, 3.11 and 3.12",
            "Node 18 / 20",
            "python3 -m venv .venv",
            "React: 5 steps",
            "go 2 levels up",
            "a Django-3 fork",
            "Pythonic 3.2",
        ] {
            assert_eq!(prose(line), [], "{line}");
        }
    }

    #[test]
    fn code_claims_from_every_kind_of_block() {
        let table = table();
        let blocks = [
            facts("bash", "pip install 'django>=4.2'\ncargo add tokio@1\n"),
            facts("json", "{ \"dependencies\": { \"react\": \"^18.2.0\" } }"),
            facts("dockerfile", "FROM python:3.12-slim\nFROM postgres:16\n"),
            facts(
                "yaml",
                "steps:\n  - uses: actions/checkout@v3\n  - uses: actions/cache@8f4b7f84864484a7bf31766abe9204da3cbe65b3\n\
                 \x20 - uses: actions/setup-node@v4\n    with:\n      node-version: '16.x'\n\
                 \x20 - with:\n      python-version: ${{ matrix.python }}\n      ruby-version: lts\n",
            ),
            facts("python", "from django.db import models\nimport requests\n"),
        ];
        let claims = code_claims(&blocks, &table);
        let got: Vec<_> = claims
            .iter()
            .map(|c| {
                (
                    c.origin,
                    c.subject.package.as_str(),
                    c.requirement.kind.clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (Origin::Install, "django", Requirement::AtLeast(v("4.2"))),
                (Origin::Install, "tokio", Requirement::Caret(v("1"))),
                (Origin::Manifest, "react", Requirement::Caret(v("18.2.0"))),
                (Origin::Docker, "python", Requirement::Series(v("3.12"))),
                (
                    Origin::Actions,
                    "actions/checkout",
                    Requirement::Series(v("3"))
                ),
                (Origin::Actions, "actions/cache", Requirement::Any),
                (
                    Origin::Actions,
                    "actions/setup-node",
                    Requirement::Series(v("4"))
                ),
                (Origin::Actions, "node", Requirement::Series(v("16"))),
                (Origin::Import, "django", Requirement::Any),
                // Not in the table: named by PyPI's rules.
                (Origin::Import, "requests", Requirement::Any),
            ]
        );
    }

    #[test]
    fn all_claims_in_file_order() {
        let table = table();
        let blocks = [facts("bash", "npm i react@18\n")];
        let all = claims(&[(5000, "Requires React 19")], &blocks, &table);
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].origin, Origin::Install);
        assert_eq!(all[1].origin, Origin::Prose);
    }
}

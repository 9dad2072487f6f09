//! What a skill claims about versions: "React 18", "Python 3.12+", `pip install x==1`,
//! `FROM node:20`, `uses: actions/checkout@v3`, and which packages its code imports.
//!
//! Precision comes before recall: a claim becomes a finding when the project disagrees, so
//! a number that is only probably a version (a year, a section number, a count of minutes,
//! a number in a URL) makes no claim.

use regex::Regex;

use crate::knowledge::{PackageAlias, module_under};
use crate::project::Ecosystem;
use crate::project::version::{Dialect, Release, Requirement};
use crate::skill::code::{CodeFacts, Lang, Span};

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

/// A claim-extraction setup that could not be built.
#[derive(Debug, thiserror::Error)]
#[error("the package name table does not compile into a matcher")]
pub struct AliasTableError(#[from] regex::Error);

/// Package names as written in prose and code, ready to match.
#[derive(Debug)]
pub struct AliasTable {
    /// Every prose name, longest first, in one case-insensitive alternation.
    names: Option<Regex>,
    by_name: Vec<(String, Subject)>,
    by_import: Vec<(String, Subject)>,
}

/// Lowercase English words that are also package names: these only count when written with
/// the table's capitalisation ("Go 1.22" is a claim, "go 2 levels up" is not).
const COMMON_WORDS: &[&str] = &[
    "go", "next", "express", "react", "spring", "rails", "flask", "node", "bun", "rust", "ruby",
    "swift", "remix", "ember", "jest", "mocha", "deno", "vite", "nest", "click", "requests",
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
    fn named(&self, written: &str) -> Option<&Subject> {
        let (name, subject) = self
            .by_name
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(written))?;
        let common = COMMON_WORDS.contains(&name.to_ascii_lowercase().as_str());
        (!common || written == name).then_some(subject)
    }

    /// The subject an import of `module` in a block of `lang` stands for.
    fn imported(&self, lang: Lang, module: &str) -> Option<&Subject> {
        let ecosystem = match lang {
            Lang::Python => Ecosystem::Pypi,
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => Ecosystem::Npm,
            Lang::Rust => Ecosystem::Cargo,
            Lang::Go => Ecosystem::Go,
            Lang::Java => Ecosystem::Maven,
            _ => return None,
        };
        self.by_import
            .iter()
            .find(|(root, subject)| subject.ecosystem == ecosystem && module_under(module, root))
            .map(|(_, subject)| subject)
    }
}

/// Version claims in prose lines: `(byte offset of the line in the file, line text)`.
pub fn prose_claims(lines: &[(usize, &str)], aliases: &AliasTable) -> Vec<Claim> {
    let Some(names) = &aliases.names else {
        return Vec::new();
    };
    let mut claims = Vec::new();
    // A version needs a digit; most prose lines have none and cost one byte scan.
    for &(offset, line) in lines
        .iter()
        .filter(|(_, line)| line.bytes().any(|b| b.is_ascii_digit()))
    {
        let masked = mask_urls(line);
        let lower = masked.to_ascii_lowercase();
        for found in names.find_iter(&lower) {
            let Some(subject) = aliases.named(&masked[found.range()]) else {
                continue;
            };
            if !word_boundary(&masked, found.start(), found.end()) {
                continue;
            }
            if let Some((written, kind, end)) = version_after(&masked, found.end()) {
                claims.push(Claim {
                    subject: subject.clone(),
                    requirement: VersionReq { written, kind },
                    span: Span {
                        start: offset + found.start(),
                        end: offset + end,
                    },
                    origin: Origin::Prose,
                });
            }
        }
    }
    claims
}

/// The line with URLs, link targets and autolinks blanked (same byte length), so a
/// `react-18` in an address claims nothing.
fn mask_urls(line: &str) -> String {
    let mut bytes = line.as_bytes().to_vec();
    let mut blank = |start: usize, end: usize| bytes[start..end].iter_mut().for_each(|b| *b = b' ');
    let mut search = 0;
    while let Some(found) = ["http://", "https://", "www.", "](", "<http"]
        .iter()
        .filter_map(|m| line[search..].find(m).map(|at| search + at))
        .min()
    {
        let end = line[found..]
            .find(|c: char| c.is_whitespace() || c == ')' || c == '>')
            .map_or(line.len(), |e| found + e);
        blank(found, end.max(found + 1));
        search = end.max(found + 1);
    }
    // Each blanked range runs from an ASCII marker to an ASCII delimiter (or the end), so no
    // character is cut in half and the bytes stay UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|_| line.to_owned())
}

/// Whether `text[start..end]` stands alone as a word (`Node.js`, not `Nodes`, `Python3`).
fn word_boundary(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '-' || c == '/';
    !before.is_some_and(is_word)
        && !after.is_some_and(|c| {
            is_word(c) || c == '.' && text[end + 1..].starts_with(char::is_alphabetic)
        })
}

/// Words after a number that show it is a count, not a version.
const UNITS: &[&str] = &[
    "%",
    "ms",
    "s",
    "sec",
    "secs",
    "second",
    "seconds",
    "min",
    "mins",
    "minute",
    "minutes",
    "hour",
    "hours",
    "day",
    "days",
    "week",
    "weeks",
    "month",
    "months",
    "year",
    "years",
    "time",
    "times",
    "file",
    "files",
    "line",
    "lines",
    "token",
    "tokens",
    "step",
    "steps",
    "item",
    "items",
    "kb",
    "mb",
    "gb",
    "px",
    "x",
    "users",
    "requests",
    "tests",
    "errors",
    "characters",
    "chars",
    "bytes",
];

/// The version expression right after a name: `(written, meaning, end offset)`.
fn version_after(text: &str, name_end: usize) -> Option<(String, Requirement, usize)> {
    let rest = &text[name_end..];
    let mut scanner = Scanner { text: rest, at: 0 };
    scanner.spaces(3);
    if scanner.eat_word("version") || scanner.eat_word("versions") {
        scanner.spaces(3);
    }
    let expression_start = scanner.at;
    let operator = scanner.operator();
    scanner.spaces(2);
    scanner.eat("v");
    scanner.eat("V");
    let number_start = scanner.at;
    let number = scanner.version_number()?;
    let (requirement, end) = suffix(rest, number_start, &number, operator, scanner.at)?;
    Some((
        rest[expression_start..end].trim().to_owned(),
        requirement,
        name_end + end,
    ))
}

/// Reads what follows the number: `+`, "or later", `.x`, a `- 4.2` range, "LTS"; rejects
/// years, counts and ambiguous lists.
fn suffix(
    rest: &str,
    number_start: usize,
    number: &str,
    operator: Option<&str>,
    number_end: usize,
) -> Option<(Requirement, usize)> {
    let after = &rest[number_end..];
    let is_year = !number.contains('.') && number.len() == 4;
    let next = after.chars().next();
    if is_year || next.is_some_and(|c| c.is_alphanumeric() || c == '/' || c == '%' || c == '_') {
        return None;
    }
    // A decimal point followed by more digits was consumed; `18.` ends a sentence.
    let following = after
        .trim_start()
        .split(|c: char| !c.is_alphanumeric() && c != '%')
        .next()
        .unwrap_or("");
    if UNITS.contains(&following.to_ascii_lowercase().as_str()) {
        return None;
    }
    // "3.10, 3.11 and 3.12", "17 or 18", "3.2-4.2": a list or range read as its first
    // number would claim less than the skill says.
    if continues_with_number(after) {
        return None;
    }
    let written = &rest[number_start..number_end];
    let open_ended = [
        "or later",
        "or newer",
        "or higher",
        "or above",
        "and above",
        "and later",
        "and up",
        "or greater",
        "onwards",
        "or new",
    ]
    .iter()
    .find(|phrase| {
        after
            .trim_start()
            .to_ascii_lowercase()
            .starts_with(**phrase)
    });
    if let Some(phrase) = open_ended.filter(|_| operator.is_none()) {
        let end = number_end + (after.len() - after.trim_start().len()) + phrase.len();
        return Some((
            Requirement::AtLeast(Release::parse(
                written.trim_end_matches(['+', 'x', 'X', '.']),
            )?),
            end,
        ));
    }
    let text = match operator {
        Some(op) => format!("{op}{written}"),
        None => written.to_owned(),
    };
    Some((Requirement::parse(&text, Dialect::Series)?, number_end))
}

/// Whether a joiner and another number follow: `, 3.11`, `or 18`, `- 4.2`, `/ 19`.
fn continues_with_number(after: &str) -> bool {
    let rest = after.trim_start();
    [
        "-", "–", "—", "/", ",", "&", "or ", "and ", "to ", "through ", "until ",
    ]
    .iter()
    .filter_map(|joiner| rest.strip_prefix(joiner))
    .any(|tail| {
        tail.trim_start()
            .trim_start_matches(['v', 'V'])
            .starts_with(|c: char| c.is_ascii_digit())
    })
}

/// A cursor over the text after a name.
struct Scanner<'a> {
    text: &'a str,
    at: usize,
}

impl Scanner<'_> {
    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    /// Skips up to `max` spaces.
    fn spaces(&mut self, max: usize) {
        let skipped = self
            .rest()
            .bytes()
            .take(max)
            .take_while(|b| *b == b' ')
            .count();
        self.at += skipped;
    }

    fn eat(&mut self, literal: &str) -> bool {
        let found = self.rest().starts_with(literal);
        if found {
            self.at += literal.len();
        }
        found
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let rest = self.rest();
        let matches = rest.len() >= word.len()
            && rest.is_char_boundary(word.len())
            && rest[..word.len()].eq_ignore_ascii_case(word)
            && !rest[word.len()..].starts_with(char::is_alphanumeric);
        if matches {
            self.at += word.len();
        }
        matches
    }

    fn operator(&mut self) -> Option<&'static str> {
        for (written, normalised) in [
            (">=", ">="),
            ("=>", ">="),
            ("≥", ">="),
            ("<=", "<="),
            ("≤", "<="),
            (">", ">"),
            ("<", "<"),
            ("^", "^"),
            ("~", "~"),
            ("==", "=="),
        ] {
            if self.eat(written) {
                return Some(normalised);
            }
        }
        None
    }

    /// `18`, `3.12`, `2.x`, `3.12+`, `1.2.3`: at most four components of at most four digits.
    fn version_number(&mut self) -> Option<String> {
        let start = self.at;
        let mut components = 0;
        loop {
            let digits = self.rest().bytes().take_while(u8::is_ascii_digit).count();
            let wildcard =
                digits == 0 && components > 0 && self.rest().starts_with(['x', 'X', '*']);
            if digits == 0 && !wildcard {
                break;
            }
            if digits > 4 {
                return None;
            }
            self.at += digits.max(1);
            components += 1;
            let more = self.rest().starts_with('.')
                && self.rest()[1..]
                    .starts_with(|c: char| c.is_ascii_digit() || matches!(c, 'x' | 'X' | '*'));
            if wildcard || components == 4 || !more {
                break;
            }
            self.at += 1;
        }
        if components == 0 {
            return None;
        }
        self.eat("+");
        Some(self.text[start..self.at].to_owned())
    }
}

/// Claims made by code blocks: installs, manifest entries, base images, actions, imports.
pub fn code_claims(facts: &[CodeFacts], aliases: &AliasTable) -> Vec<Claim> {
    let mut claims = Vec::new();
    for block in facts {
        claims.extend(block.installs.iter().map(|install| Claim {
            subject: Subject {
                ecosystem: install.ecosystem,
                package: install.package.clone(),
            },
            requirement: optional_req(
                install.constraint.as_deref(),
                install_dialect(install.manager),
            ),
            span: install.span,
            origin: Origin::Install,
        }));
        claims.extend(block.manifest_entries.iter().map(|entry| Claim {
            subject: Subject {
                ecosystem: entry.ecosystem,
                package: entry.package.clone(),
            },
            requirement: optional_req(
                entry.constraint.as_deref(),
                manifest_dialect(entry.ecosystem, &entry.package),
            ),
            span: entry.span,
            origin: Origin::Manifest,
        }));
        claims.extend(block.images.iter().filter_map(image_claim));
        claims.extend(block.actions.iter().map(|action| Claim {
            subject: Subject {
                ecosystem: Ecosystem::Actions,
                package: action.action.to_ascii_lowercase(),
            },
            requirement: optional_req(
                action.reference.as_deref().filter(|r| is_version_ref(r)),
                Dialect::Series,
            ),
            span: action.span,
            origin: Origin::Actions,
        }));
        claims.extend(block.yaml_pairs.iter().filter_map(setup_runtime_claim));
        claims.extend(import_claims(block, aliases));
    }
    claims
}

/// Prose and code claims together, in file order.
pub fn claims(lines: &[(usize, &str)], facts: &[CodeFacts], aliases: &AliasTable) -> Vec<Claim> {
    let mut all = prose_claims(lines, aliases);
    all.extend(code_claims(facts, aliases));
    all.sort_by_key(|claim| claim.span);
    all
}

fn optional_req(constraint: Option<&str>, dialect: Dialect) -> VersionReq {
    constraint.map_or_else(VersionReq::any, |c| VersionReq::parse(c, dialect))
}

fn install_dialect(manager: &str) -> Dialect {
    match manager {
        "npm" | "pnpm" | "yarn" | "bun" | "poetry" => Dialect::Series,
        "cargo" => Dialect::Cargo,
        "dotnet" => Dialect::Minimum,
        _ => Dialect::Exact,
    }
}

/// `rust-version` is a minimum; every other entry reads as its ecosystem's manifests do.
fn manifest_dialect(ecosystem: Ecosystem, package: &str) -> Dialect {
    match (ecosystem, package) {
        (Ecosystem::Runtime, "rust") => Dialect::Minimum,
        _ => Dialect::of(ecosystem),
    }
}

/// `v4`, `v4.1.0`, `4`: a version, unlike a SHA or a branch name.
fn is_version_ref(reference: &str) -> bool {
    Release::parse(reference).is_some()
}

/// Inputs of the `actions/setup-*` actions that pin a runtime.
const SETUP_INPUTS: &[(&str, &str)] = &[
    ("node-version", "node"),
    ("python-version", "python"),
    ("java-version", "java"),
    ("go-version", "go"),
    ("ruby-version", "ruby"),
    ("dotnet-version", "dotnet"),
    ("php-version", "php"),
    ("bun-version", "bun"),
    ("deno-version", "deno"),
];

/// `node-version: 18` in a workflow claims Node 18; expressions (`${{ matrix.node }}`) and
/// aliases (`lts/*`) claim nothing.
fn setup_runtime_claim(pair: &crate::skill::code::YamlPair) -> Option<Claim> {
    let (_, runtime) = SETUP_INPUTS.iter().find(|(input, _)| *input == pair.key)?;
    let requirement = VersionReq::parse(&pair.value, Dialect::Series);
    if matches!(requirement.kind, Requirement::Any | Requirement::Unparsed) {
        return None;
    }
    let subject = Subject {
        ecosystem: Ecosystem::Runtime,
        package: (*runtime).to_owned(),
    };
    Some(Claim {
        subject,
        requirement,
        span: pair.span,
        origin: Origin::Actions,
    })
}

/// Official images whose tag is the runtime's version.
const RUNTIME_IMAGES: &[(&str, &str)] = &[
    ("python", "python"),
    ("node", "node"),
    ("golang", "go"),
    ("rust", "rust"),
    ("openjdk", "java"),
    ("eclipse-temurin", "java"),
    ("amazoncorretto", "java"),
    ("ruby", "ruby"),
    ("php", "php"),
    ("mcr.microsoft.com/dotnet/sdk", "dotnet"),
    ("mcr.microsoft.com/dotnet/aspnet", "dotnet"),
    ("mcr.microsoft.com/dotnet/runtime", "dotnet"),
    ("oven/bun", "bun"),
    ("denoland/deno", "deno"),
];

/// `FROM python:3.12-slim` claims Python 3.12; images of other software claim nothing here.
fn image_claim(image: &crate::skill::code::Image) -> Option<Claim> {
    let name = image.name.strip_prefix("docker.io/").unwrap_or(&image.name);
    let name = name.strip_prefix("library/").unwrap_or(name);
    let (_, runtime) = RUNTIME_IMAGES
        .iter()
        .find(|(official, _)| *official == name)?;
    // The version is the tag's leading number: `3.12-slim`, `20-alpine`, `1.22.3-bookworm`.
    let version = image.tag.as_deref().map(|tag| {
        let end = tag
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(tag.len());
        tag[..end].trim_end_matches('.')
    });
    let requirement = match version.filter(|v| Release::parse(v).is_some()) {
        Some(version) => VersionReq::parse(version, Dialect::Series),
        None => VersionReq::any(),
    };
    let subject = Subject {
        ecosystem: Ecosystem::Runtime,
        package: (*runtime).to_owned(),
    };
    Some(Claim {
        subject,
        requirement,
        span: image.span,
        origin: Origin::Docker,
    })
}

/// Imports of known packages: the skill uses the package, at no stated version.
fn import_claims<'a>(
    block: &'a CodeFacts,
    aliases: &'a AliasTable,
) -> impl Iterator<Item = Claim> + 'a {
    block.imports.iter().filter_map(move |import| {
        let subject = aliases.imported(block.lang?, &import.module)?;
        Some(Claim {
            subject: subject.clone(),
            requirement: VersionReq::any(),
            span: import.span,
            origin: Origin::Import,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
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

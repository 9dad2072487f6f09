//! Knowledge as data: package aliases and API changes, embedded from `rules/`.
//!
//! `rules/packages.toml` maps the names people write in prose and the import roots they
//! write in code to a project package. `rules/apis/<ecosystem>/<package>.toml` lists API
//! changes (removed, deprecated, renamed, added) of one package, each with the pattern that finds
//! its use in a code block and the official page it was checked against.
//!
//! Every file is embedded at build time by [`RULE_FILES`]; a test compares that list with
//! the directory so a new file cannot be forgotten. [`knowledge`] parses them all once, for
//! listing and validating; a check reads less: [`aliases`] parses the alias table alone,
//! and [`api_files`] parses an API file only when a project has its package.

use std::fmt;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::project::Ecosystem;
use crate::skill::code::{ArgKind, Syntax, module_under};

mod pack;
mod stack;
mod validate;

pub use pack::{Pack, PackError, PackProblem, check_pack, install_packs, load_pack, with_packs};
pub use stack::{ImportName, Requires, STACK_FILE, Stack, StackName, stack};
pub use validate::{Checks, Fires, Violation, example_mentions_pattern, validate};

/// One embedded rule file: its path under `rules/` and its text.
#[derive(Debug, Clone, Copy)]
pub struct RuleFile {
    /// Path relative to `rules/`, with `/` separators.
    pub path: &'static str,
    /// The file's TOML text.
    pub text: &'static str,
}

/// Embeds `rules/<path>` files; the path is written once and reused for both fields.
macro_rules! rule_files {
    ($($path:literal),* $(,)?) => {
        &[$(RuleFile {
            path: $path,
            text: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/rules/", $path)),
        }),*]
    };
}

/// Path of the alias table under `rules/`.
pub const PACKAGES_FILE: &str = "packages.toml";

/// Every file under `rules/`, embedded. Kept equal to the directory by a test.
pub const RULE_FILES: &[RuleFile] = rule_files![
    "packages.toml",
    "stack.toml",
    "apis/actions/actions-cache.toml",
    "apis/actions/actions-checkout.toml",
    "apis/actions/actions-download-artifact.toml",
    "apis/actions/actions-setup-go.toml",
    "apis/actions/actions-setup-java.toml",
    "apis/actions/actions-setup-node.toml",
    "apis/actions/actions-setup-python.toml",
    "apis/actions/actions-upload-artifact.toml",
    "apis/actions/workflow-commands.toml",
    "apis/cargo/actix-web.toml",
    "apis/cargo/axum.toml",
    "apis/cargo/clap.toml",
    "apis/cargo/hyper.toml",
    "apis/cargo/reqwest.toml",
    "apis/cargo/tokio.toml",
    "apis/composer/laravel-framework.toml",
    "apis/go/gin.toml",
    "apis/go/opentelemetry-go.toml",
    "apis/go/prometheus-client-golang.toml",
    "apis/kubernetes/kubernetes.toml",
    "apis/maven/hibernate-core.toml",
    "apis/maven/junit.toml",
    "apis/maven/junit4.toml",
    "apis/maven/spring-boot.toml",
    "apis/maven/spring-core.toml",
    "apis/maven/spring-security.toml",
    "apis/npm/angular-core.toml",
    "apis/npm/eslint.toml",
    "apis/npm/express.toml",
    "apis/npm/jest.toml",
    "apis/npm/next.toml",
    "apis/npm/react-dom.toml",
    "apis/npm/react-test-renderer.toml",
    "apis/npm/react.toml",
    "apis/npm/svelte.toml",
    "apis/npm/tailwindcss.toml",
    "apis/npm/typescript.toml",
    "apis/npm/vite.toml",
    "apis/npm/vue.toml",
    "apis/nuget/microsoft-aspnetcore-app.toml",
    "apis/nuget/microsoft-entityframeworkcore.toml",
    "apis/pypi/django.toml",
    "apis/pypi/fastapi.toml",
    "apis/pypi/flask.toml",
    "apis/pypi/numpy.toml",
    "apis/pypi/pandas.toml",
    "apis/pypi/pydantic.toml",
    "apis/pypi/pytest.toml",
    "apis/pypi/requests.toml",
    "apis/pypi/sqlalchemy.toml",
    "apis/pypi/starlette.toml",
    "apis/runtime/dotnet.toml",
    "apis/runtime/go.toml",
    "apis/runtime/java.toml",
    "apis/runtime/node.toml",
    "apis/runtime/python.toml",
    "apis/runtime/ruby.toml",
    "apis/runtime/rust.toml",
    "apis/rubygems/rails.toml",
];

/// How a package is written in prose and code, and which project package it means.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackageAlias {
    /// Names as written in prose, matched case-insensitively as whole words.
    pub names: Vec<String>,
    /// Import roots in code that mean this package.
    #[serde(default)]
    pub imports: Vec<String>,
    /// The package's ecosystem.
    pub ecosystem: Ecosystem,
    /// Canonical name as the project scanner reports it.
    pub package: String,
    /// Other project packages whose version stands for this one; `*` globs allowed.
    #[serde(default)]
    pub also: Vec<String>,
}

impl PackageAlias {
    /// Whether the project package `name` stands for this alias (itself or one of `also`).
    pub fn covers(&self, name: &str) -> bool {
        self.package == name || self.also.iter().any(|pattern| glob_matches(pattern, name))
    }
}

/// Matches `name` against a pattern where `*` stands for any run of characters.
fn glob_matches(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let Some(first) = parts.next() else {
        return pattern == name;
    };
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let tail: Vec<&str> = parts.collect();
    let Some((last, middle)) = tail.split_last() else {
        return rest.is_empty();
    };
    for piece in middle {
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// What happened to an API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// Gone: code using it fails.
    Removed,
    /// Still there but scheduled for removal or discouraged.
    Deprecated,
    /// Moved to another name; whether the old one still works is `old_works`.
    Renamed,
    /// First available in `since`: code using it fails on older versions.
    Added,
}

impl fmt::Display for ChangeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Removed => "removed",
            Self::Deprecated => "deprecated",
            Self::Renamed => "renamed",
            Self::Added => "added",
        })
    }
}

/// How a change is found in a code block; exactly one shape per entry.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawPattern")]
pub enum Pattern {
    /// The module, or one of its sub-modules, is imported.
    Import {
        /// Module path as written in code.
        import: String,
    },
    /// `name` imported from the module, or accessed on a binding of the whole module.
    ImportName {
        /// Module path as written in code.
        import: String,
        /// Imported or accessed name; dotted for static paths (`DataFrame.append`).
        name: String,
    },
    /// A method call by name anywhere in a snippet that imports the module.
    Method {
        /// Module whose import makes the method call count.
        import: String,
        /// Method name, without the receiver.
        method: String,
    },
    /// A call of `name` from the module whose arguments have a given shape.
    Call {
        /// Module path as written in code.
        import: String,
        /// Called name; dotted for static paths (`Query`, `MetaData`).
        name: String,
        /// What the call must look like.
        shape: CallShape,
    },
    /// A method call by name, in a snippet that imports the module, whose arguments or
    /// receiver have a given shape.
    MethodCall {
        /// Module whose import makes the method call count.
        import: String,
        /// Method name, without the receiver.
        method: String,
        /// What the call must look like.
        shape: CallShape,
    },
    /// A class deriving from `base` in the module whose body defines `member`.
    ClassMember {
        /// Module the base class comes from.
        import: String,
        /// The base class's name in the module; dotted for static paths (`Model`).
        base: String,
        /// The member's name; dotted for a nested class's member (`Config.orm_mode`).
        member: String,
    },
    /// A decorator, attribute or annotation by name.
    Decorator {
        /// Decorator name as written after `@` or inside `#[...]`.
        decorator: String,
        /// Module the decorator must come from, when known.
        import: Option<String>,
    },
    /// A YAML key with an exact scalar value.
    Yaml {
        /// Mapping key.
        yaml: String,
        /// Exact scalar value.
        value: String,
    },
    /// A GitHub Actions `uses:` of the action with a major version below `below`.
    Uses {
        /// `owner/repo` of the action.
        uses: String,
        /// First major version that is not affected.
        below: u32,
    },
    /// A regular expression over string contents and shell text.
    Text {
        /// The expression, in `regex` crate syntax.
        text: String,
    },
    /// Language syntax a release introduced (`java:record`, `python:match`), found by the
    /// language's reader from the grammar's node kinds.
    Syntax {
        /// The feature.
        syntax: Syntax,
    },
}

/// What a call must look like for a [`Pattern::Call`] or [`Pattern::MethodCall`] to
/// match; every condition given must hold, and at least one is given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallShape {
    /// Exact number of arguments, positional and keyword.
    pub args: Option<usize>,
    /// What the first positional argument is: `list`, `dict`, `string`, `number` or
    /// `function`.
    pub first: Option<String>,
    /// A keyword argument the call passes (`regex` in `Query(regex=...)`).
    pub keyword: Option<String>,
    /// `true`: the call is awaited; `false`: it is not, and its result is used as it is (a
    /// member read on it, an assignment of it).
    pub awaited: Option<bool>,
    /// The receiver's name, for a method call on a plain name (`engine` in `engine.execute`).
    pub receiver: Option<String>,
}

impl CallShape {
    /// Number of conditions given.
    fn key_count(&self) -> usize {
        usize::from(self.args.is_some())
            + usize::from(self.first.is_some())
            + usize::from(self.keyword.is_some())
            + usize::from(self.awaited.is_some())
            + usize::from(self.receiver.is_some())
    }
}

/// Every key a pattern table may have; [`Pattern::try_from`] picks the shape.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPattern {
    import: Option<String>,
    name: Option<String>,
    method: Option<String>,
    decorator: Option<String>,
    yaml: Option<String>,
    value: Option<String>,
    uses: Option<String>,
    below: Option<String>,
    text: Option<String>,
    syntax: Option<String>,
    args: Option<usize>,
    first: Option<String>,
    keyword: Option<String>,
    awaited: Option<bool>,
    receiver: Option<String>,
    base: Option<String>,
    member: Option<String>,
}

impl TryFrom<RawPattern> for Pattern {
    type Error = String;

    fn try_from(mut raw: RawPattern) -> Result<Self, Self::Error> {
        let given = raw.key_count();
        let shape = CallShape {
            args: raw.args.take(),
            first: raw.first.take(),
            keyword: raw.keyword.take(),
            awaited: raw.awaited.take(),
            receiver: raw.receiver.take(),
        };
        if let Some(first) = &shape.first
            && ArgKind::from_name(first).is_none()
        {
            return Err(format!(
                "`first = {first:?}` is not one of list, dict, string, number, function"
            ));
        }
        if shape.receiver.is_some() && raw.method.is_none() {
            return Err("`receiver` narrows a method call; give `method`, not `name`".to_owned());
        }
        let shaped = shape.key_count() > 0;
        let pattern = match raw {
            RawPattern {
                syntax: Some(name), ..
            } => Self::Syntax {
                syntax: Syntax::from_name(&name).ok_or_else(|| {
                    let known: Vec<&str> = Syntax::ALL.iter().map(|s| s.name()).collect();
                    format!("`syntax = {name:?}` is not one of {}", known.join(", "))
                })?,
            },
            RawPattern {
                text: Some(text), ..
            } => Self::Text { text },
            RawPattern {
                uses: Some(uses),
                below: Some(below),
                ..
            } => {
                let below = below
                    .parse()
                    .map_err(|_| format!("`below = {below:?}` is not a major version number"))?;
                Self::Uses { uses, below }
            }
            RawPattern {
                yaml: Some(yaml),
                value: Some(value),
                ..
            } => Self::Yaml { yaml, value },
            RawPattern {
                decorator: Some(decorator),
                import,
                ..
            } => Self::Decorator { decorator, import },
            RawPattern {
                import: Some(import),
                base: Some(base),
                member: Some(member),
                ..
            } => Self::ClassMember {
                import,
                base,
                member,
            },
            RawPattern {
                import: Some(import),
                name: Some(name),
                ..
            } if shaped => Self::Call {
                import,
                name,
                shape,
            },
            RawPattern {
                import: Some(import),
                method: Some(method),
                ..
            } if shaped => Self::MethodCall {
                import,
                method,
                shape,
            },
            RawPattern {
                import: Some(import),
                name: Some(name),
                ..
            } => Self::ImportName { import, name },
            RawPattern {
                import: Some(import),
                method: Some(method),
                ..
            } => Self::Method { import, method },
            RawPattern {
                import: Some(import),
                ..
            } => Self::Import { import },
            _ => return Err("pattern matches none of the known shapes".to_owned()),
        };
        // A key the chosen shape does not use means the entry mixes two shapes.
        if given != pattern.key_count() {
            return Err(format!("pattern mixes keys of several shapes: {pattern:?}"));
        }
        Ok(pattern)
    }
}

impl RawPattern {
    /// Number of keys present.
    fn key_count(&self) -> usize {
        [
            &self.import,
            &self.name,
            &self.method,
            &self.decorator,
            &self.yaml,
            &self.value,
            &self.uses,
            &self.below,
            &self.text,
            &self.syntax,
            &self.first,
            &self.keyword,
            &self.receiver,
            &self.base,
            &self.member,
        ]
        .iter()
        .filter(|key| key.is_some())
        .count()
            + usize::from(self.args.is_some())
            + usize::from(self.awaited.is_some())
    }
}

impl Pattern {
    /// The pattern kind's name, as documented.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Import { .. } => "import",
            Self::ImportName { .. } => "import+name",
            Self::Method { .. } => "import+method",
            Self::Call { .. } => "import+name+call",
            Self::MethodCall { .. } => "import+method+call",
            Self::ClassMember { .. } => "class-member",
            Self::Decorator { .. } => "decorator",
            Self::Yaml { .. } => "yaml",
            Self::Uses { .. } => "uses",
            Self::Text { .. } => "text",
            Self::Syntax { .. } => "syntax",
        }
    }

    /// Number of keys the shape uses.
    fn key_count(&self) -> usize {
        match self {
            Self::Import { .. } | Self::Text { .. } | Self::Syntax { .. } => 1,
            Self::Decorator { import, .. } => 1 + usize::from(import.is_some()),
            Self::Call { shape, .. } | Self::MethodCall { shape, .. } => 2 + shape.key_count(),
            Self::ClassMember { .. } => 3,
            _ => 2,
        }
    }
}

/// One API change of a package.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiChange {
    /// Unique id across all files, kebab-case.
    pub id: String,
    /// Removed, deprecated, renamed or added.
    pub kind: ChangeKind,
    /// First version of the package with the change; absent for unversioned platform changes.
    pub since: Option<String>,
    /// One line saying what changed.
    pub summary: String,
    /// What to use instead, when there is something; for an `added` API, what does the same
    /// job on versions before `since`.
    pub replacement: Option<String>,
    /// How the use is found in a code block.
    pub pattern: Pattern,
    /// Code-block languages the pattern applies to; the first is the example's language.
    pub lang: Vec<String>,
    /// URL of the official changelog, release notes or migration guide.
    pub source: String,
    /// Date (`YYYY-MM-DD`) the entry was checked against `source`.
    pub checked: String,
    /// A snippet in `lang[0]` that the pattern must fire on.
    pub example: String,
    /// A snippet in `lang[0]` that must not fire: the replacement, or the old form where it
    /// is still valid.
    pub passes: Option<String>,
    /// The changelog or release-note sentence that states the change, quoted (one sentence).
    pub evidence: Option<String>,
    /// For `renamed`: whether the old name still works in `since` (an alias) or fails.
    pub old_works: Option<bool>,
    /// Optional context in the entry author's words.
    pub note: Option<String>,
}

/// The API changes of one package, as one file under `rules/apis/`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiFile {
    /// Path of the file under `rules/`; set by [`Knowledge::parse`].
    #[serde(skip)]
    pub path: String,
    /// The package's ecosystem; also the file's directory.
    pub ecosystem: Ecosystem,
    /// Canonical package name, as in `packages.toml`.
    pub package: String,
    /// The changes, in file order.
    #[serde(default, rename = "change")]
    pub changes: Vec<ApiChange>,
}

/// The alias table's file shape.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PackagesFile {
    #[serde(default, rename = "package")]
    packages: Vec<PackageAlias>,
}

/// A rule file that does not parse.
#[derive(Debug, thiserror::Error)]
#[error("rules/{path}: {source}")]
pub struct KnowledgeError {
    /// Path of the file under `rules/`.
    pub path: String,
    /// What the TOML parser or the shape check said.
    #[source]
    pub source: toml::de::Error,
}

/// Everything in `rules/`, parsed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Knowledge {
    /// Package aliases from `packages.toml`, in file order.
    pub packages: Vec<PackageAlias>,
    /// API change files, in [`RULE_FILES`] order.
    pub apis: Vec<ApiFile>,
}

impl Knowledge {
    /// Parses rule files; `files` must contain [`PACKAGES_FILE`] and `apis/**` files.
    pub fn parse(files: &[RuleFile]) -> Result<Self, KnowledgeError> {
        Self::parse_texts(files.iter().map(|file| (file.path, file.text)))
    }

    /// Parses `(path, text)` pairs laid out as under `rules/`: [`PACKAGES_FILE`] is the
    /// alias table, [`STACK_FILE`] the stack table (read by [`stack`]), every other path an
    /// API file.
    pub fn parse_texts<'a>(
        files: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, KnowledgeError> {
        let mut knowledge = Self::default();
        for (path, text) in files {
            let wrap = |source| KnowledgeError {
                path: path.to_owned(),
                source,
            };
            if path == PACKAGES_FILE {
                let table: PackagesFile = toml::from_str(text).map_err(wrap)?;
                knowledge.packages.extend(table.packages);
            } else if path == STACK_FILE {
                // Read by `stack()`; parsed here too so a broken table fails the same way.
                let _: Stack = toml::from_str(text).map_err(wrap)?;
            } else {
                let mut api: ApiFile = toml::from_str(text).map_err(wrap)?;
                api.path = path.to_owned();
                knowledge.apis.push(api);
            }
        }
        Ok(knowledge)
    }

    /// Adds another pack's aliases and API files after this one's.
    pub fn extend(&mut self, other: Knowledge) {
        self.packages.extend(other.packages);
        self.apis.extend(other.apis);
    }

    /// Every change with the file it belongs to.
    pub fn changes(&self) -> impl Iterator<Item = (&ApiFile, &ApiChange)> {
        self.apis
            .iter()
            .flat_map(|file| file.changes.iter().map(move |change| (file, change)))
    }

    /// The changes of one package, in file order.
    pub fn changes_of<'a>(
        &'a self,
        ecosystem: Ecosystem,
        package: &'a str,
    ) -> impl Iterator<Item = &'a ApiChange> {
        self.apis
            .iter()
            .filter(move |file| file.ecosystem == ecosystem && file.package == package)
            .flat_map(|file| file.changes.iter())
    }

    /// The changes a user asked for by ecosystem (`npm`), package (`react-dom`, `node`) or
    /// prose name (`React`, `Node.js`), ignoring case; every change when `query` is `None`.
    pub fn select<'a>(&'a self, query: Option<&str>) -> Vec<(&'a ApiFile, &'a ApiChange)> {
        let Some(query) = query.map(str::trim) else {
            return self.changes().collect();
        };
        let named: Vec<&PackageAlias> = self.aliases_named(query).collect();
        self.apis
            .iter()
            .filter(|file| {
                file.ecosystem.as_str().eq_ignore_ascii_case(query)
                    || file.package.eq_ignore_ascii_case(query)
                    || maven_artifact(file).is_some_and(|a| a.eq_ignore_ascii_case(query))
                    || named.iter().any(|alias| {
                        alias.ecosystem == file.ecosystem && alias.package == file.package
                    })
            })
            .flat_map(|file| file.changes.iter().map(move |change| (file, change)))
            .collect()
    }

    /// The change with this id.
    pub fn change(&self, id: &str) -> Option<(&ApiFile, &ApiChange)> {
        self.changes().find(|(_, change)| change.id == id)
    }

    /// Aliases one of whose prose names equals `name`, ignoring case.
    pub fn aliases_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a PackageAlias> {
        self.packages
            .iter()
            .filter(move |alias| alias.names.iter().any(|n| n.eq_ignore_ascii_case(name)))
    }

    /// Aliases whose import roots include `module`'s root, in `ecosystem`.
    ///
    /// The root is the part before the first `.`, `/` or `::`, except for scoped npm
    /// packages (`@scope/name`) and import roots written with a separator, which match as a
    /// prefix on a separator boundary.
    pub fn aliases_imported<'a>(
        &'a self,
        ecosystem: Ecosystem,
        module: &'a str,
    ) -> impl Iterator<Item = &'a PackageAlias> {
        self.packages.iter().filter(move |alias| {
            alias.ecosystem == ecosystem
                && alias.imports.iter().any(|root| module_under(module, root))
        })
    }
}

/// The artifact of a Maven file's `group:artifact` package (`spring-boot` for
/// `org.springframework.boot:spring-boot`), which people name the package by.
fn maven_artifact(file: &ApiFile) -> Option<&str> {
    if file.ecosystem != Ecosystem::Maven {
        return None;
    }
    file.package.split_once(':').map(|(_, artifact)| artifact)
}

/// The knowledge every rule reads: the embedded files, plus packs installed before first use.
static KNOWLEDGE: OnceLock<Knowledge> = OnceLock::new();

/// The embedded alias table alone, for runs that need no API file.
static ALIASES: OnceLock<Vec<PackageAlias>> = OnceLock::new();

/// The embedded API files, each parsed on first use.
static API_FILES: OnceLock<Vec<EmbeddedApiFile>> = OnceLock::new();

/// One embedded API file: its package, read from its header, and the file once parsed.
#[derive(Debug)]
struct EmbeddedApiFile {
    rule_file: &'static RuleFile,
    ecosystem: Ecosystem,
    package: String,
    parsed: OnceLock<ApiFile>,
}

/// The two keys every API file opens with.
#[derive(Deserialize)]
struct ApiHeader {
    ecosystem: Ecosystem,
    package: String,
}

impl EmbeddedApiFile {
    /// Reads the header of an embedded API file: the text before its first change.
    fn new(rule_file: &'static RuleFile) -> Self {
        let head = rule_file
            .text
            .split_once("[[change]]")
            .map_or(rule_file.text, |(head, _)| head);
        let header: ApiHeader = match toml::from_str(head) {
            Ok(header) => header,
            // `tests::embedded_rules_parse` parses every header this way.
            Err(error) => unreachable!("embedded {}: {error}", rule_file.path),
        };
        Self {
            rule_file,
            ecosystem: header.ecosystem,
            package: header.package,
            parsed: OnceLock::new(),
        }
    }

    fn file(&self) -> &ApiFile {
        self.parsed.get_or_init(|| {
            match Knowledge::parse(std::slice::from_ref(self.rule_file)) {
                Ok(mut knowledge) if knowledge.apis.len() == 1 => knowledge.apis.remove(0),
                // The files are compiled in and `tests::embedded_rules_parse` parses them.
                other => unreachable!("embedded {}: {other:?}", self.rule_file.path),
            }
        })
    }
}

/// The alias table in use, without parsing any API file: the embedded `packages.toml`, or
/// the aliases of the knowledge with its packs once [`install_packs`] added some.
pub fn aliases() -> &'static [PackageAlias] {
    if let Some(knowledge) = KNOWLEDGE.get() {
        return &knowledge.packages;
    }
    ALIASES.get_or_init(|| {
        let packages = RULE_FILES.iter().filter(|file| file.path == PACKAGES_FILE);
        match Knowledge::parse_texts(packages.map(|file| (file.path, file.text))) {
            Ok(knowledge) => knowledge.packages,
            Err(error) => unreachable!("embedded {error}"),
        }
    })
}

/// The API files of the packages `wanted` says yes to, in [`RULE_FILES`] order. A one-skill
/// check against a project reads only the files of the project's packages: each embedded
/// file is parsed the first time a project asks for its package. Once the whole knowledge
/// is in use (packs installed, or [`knowledge`] called), its files are filtered instead.
pub fn api_files(wanted: impl Fn(Ecosystem, &str) -> bool) -> Vec<&'static ApiFile> {
    if let Some(knowledge) = KNOWLEDGE.get() {
        return knowledge
            .apis
            .iter()
            .filter(|file| wanted(file.ecosystem, &file.package))
            .collect();
    }
    API_FILES
        .get_or_init(|| {
            RULE_FILES
                .iter()
                .filter(|file| file.path != PACKAGES_FILE && file.path != STACK_FILE)
                .map(EmbeddedApiFile::new)
                .collect()
        })
        .iter()
        .filter(|file| wanted(file.ecosystem, &file.package))
        .map(EmbeddedApiFile::file)
        .collect()
}

/// The embedded knowledge alone, parsed on every call; [`knowledge`] keeps one copy.
pub fn built_in() -> Knowledge {
    match Knowledge::parse(RULE_FILES) {
        Ok(knowledge) => knowledge,
        // The files are compiled in and `tests::embedded_rules_parse` parses them, so this
        // arm cannot run in a tested build.
        Err(error) => unreachable!("embedded {error}"),
    }
}

/// The knowledge in use: the embedded files, parsed on first use, plus any packs
/// [`install_packs`] added before that.
pub fn knowledge() -> &'static Knowledge {
    KNOWLEDGE.get_or_init(built_in)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_rules_parse() {
        let parsed = Knowledge::parse(RULE_FILES);
        assert!(parsed.is_ok(), "{:?}", parsed.err());
        // The lazy readers see the same files: every header names its file's package, and
        // the alias table alone is the whole knowledge's.
        let whole = parsed.expect("parses");
        let lazy: Vec<(Ecosystem, String)> = RULE_FILES
            .iter()
            .filter(|file| file.path != PACKAGES_FILE && file.path != STACK_FILE)
            .map(|file| {
                let file = EmbeddedApiFile::new(file);
                (file.ecosystem, file.package)
            })
            .collect();
        let eager: Vec<(Ecosystem, String)> = whole
            .apis
            .iter()
            .map(|file| (file.ecosystem, file.package.clone()))
            .collect();
        assert_eq!(lazy, eager);
        let every = api_files(|_, _| true);
        assert_eq!(every.len(), whole.apis.len());
        assert!(every.iter().zip(&whole.apis).all(|(a, b)| *a == b));
        assert_eq!(aliases(), whole.packages.as_slice());
    }

    #[test]
    fn an_alias_cannot_say_prose_only() {
        let alias =
            "[[package]]\nnames = [\"Left Pad\"]\necosystem = \"npm\"\npackage = \"left-pad\"\n";
        assert!(Knowledge::parse_texts([("packages.toml", alias)]).is_ok());
        let prose = format!("{alias}prose_only = \"named in prose only\"\n");
        let refused = Knowledge::parse_texts([("packages.toml", prose.as_str())])
            .expect_err("prose_only is not a field");
        assert!(
            refused.to_string().contains("unknown field `prose_only`"),
            "{refused}"
        );
    }

    #[test]
    fn glob_matches_prefix_suffix_and_middle() {
        assert!(glob_matches(
            "spring-boot-starter*",
            "spring-boot-starter-web"
        ));
        assert!(glob_matches("a*c*e", "abcde"));
        assert!(glob_matches("exact", "exact"));
        assert!(!glob_matches("exact", "exactly"));
        assert!(!glob_matches("spring-boot-starter*", "spring-boot"));
        assert!(!glob_matches("*-web", "spring-webflux"));
    }

    #[test]
    fn module_under_respects_boundaries() {
        assert!(module_under("react-dom/client", "react-dom"));
        assert!(module_under("numpy.linalg", "numpy"));
        assert!(module_under("tokio::time", "tokio"));
        assert!(!module_under("react-domino", "react-dom"));
        assert!(!module_under("numpyx", "numpy"));
    }

    fn pattern(toml_table: &str) -> Result<Pattern, toml::de::Error> {
        #[derive(Deserialize)]
        struct Holder {
            pattern: Pattern,
        }
        toml::from_str::<Holder>(&format!("pattern = {toml_table}")).map(|h| h.pattern)
    }

    #[test]
    fn pattern_shapes_parse() {
        let cases = [
            (r#"{ import = "distutils" }"#, "import"),
            (
                r#"{ import = "react-dom", name = "render" }"#,
                "import+name",
            ),
            (
                r#"{ import = "pandas", method = "append" }"#,
                "import+method",
            ),
            (
                r#"{ decorator = "validator", import = "pydantic" }"#,
                "decorator",
            ),
            (
                r#"{ yaml = "apiVersion", value = "extensions/v1beta1" }"#,
                "yaml",
            ),
            (r#"{ uses = "actions/checkout", below = "4" }"#, "uses"),
            (r#"{ text = "::set-output\\b" }"#, "text"),
            (r#"{ syntax = "java:record" }"#, "syntax"),
        ];
        for (table, kind) in cases {
            assert_eq!(pattern(table).map(|p| p.kind()).ok(), Some(kind), "{table}");
        }
    }

    #[test]
    fn pattern_rejects_mixed_unknown_and_bad_shapes() {
        for table in [
            r#"{ import = "a", name = "b", method = "c" }"#,
            r#"{ text = "x", import = "a" }"#,
            r#"{ uses = "actions/checkout", below = "four" }"#,
            r#"{ imports = "a" }"#,
            r#"{ name = "render" }"#,
            r#"{ syntax = "java:records" }"#,
            r#"{ syntax = "python:match", import = "re" }"#,
            "{}",
        ] {
            assert!(pattern(table).is_err(), "{table} should not parse");
        }
    }
}

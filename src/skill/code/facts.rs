//! The facts a code block yields: imports and their bindings, accesses, method calls,
//! decorators, installs, manifest entries, images, actions, YAML pairs and text runs, with
//! byte spans in SKILL.md coordinates. Every grammar reader fills these types.

use crate::project::Ecosystem;

/// One fenced code block of a SKILL.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeSnippet<'a> {
    /// The info string's language tag as written (`py`, `tsx`, `console`...), if any.
    pub lang: Option<&'a str>,
    /// The block's text, without the fences.
    pub text: &'a str,
    /// Byte offset of `text` in the SKILL.md file.
    pub offset: usize,
}

/// A byte range in the SKILL.md file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// The language a code block is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    /// Python.
    Python,
    /// JavaScript, including JSX.
    JavaScript,
    /// TypeScript without JSX.
    TypeScript,
    /// TypeScript with JSX.
    Tsx,
    /// Java.
    Java,
    /// Go.
    Go,
    /// Rust.
    Rust,
    /// Ruby.
    Ruby,
    /// PHP, with or without the `<?php` tag.
    Php,
    /// C#.
    CSharp,
    /// A shell script (bash, sh, zsh).
    Shell,
    /// A terminal transcript: only lines starting with a `$` or `>` prompt are commands.
    Console,
    /// YAML.
    Yaml,
    /// TOML.
    Toml,
    /// JSON.
    Json,
    /// XML (Maven `pom.xml`, `.csproj` snippets).
    Xml,
    /// A Dockerfile.
    Dockerfile,
    /// A Gradle build script (Groovy or Kotlin DSL): coordinates and plugin versions.
    Gradle,
    /// CSS and its dialects: no grammar, the whole block is text for `text` patterns.
    Css,
    /// HTML: no grammar; quoted attribute values and the whole block are text.
    Html,
    /// A Vue single-file component, read as HTML.
    Vue,
}

impl Lang {
    /// The language a fence tag names, if skillgate reads it.
    ///
    /// Only the first word counts, case-insensitively, so `python title="x"` and `{.py}`
    /// both read as Python.
    pub fn from_tag(tag: &str) -> Option<Self> {
        let word = tag
            .trim()
            .trim_start_matches(['{', '.'])
            .split(|c: char| c.is_whitespace() || matches!(c, ',' | '{' | '}' | ':'))
            .next()?
            .to_ascii_lowercase();
        let lang = match word.as_str() {
            "py" | "python" | "python3" | "py3" => Self::Python,
            "js" | "javascript" | "jsx" | "mjs" | "cjs" | "node" => Self::JavaScript,
            "ts" | "typescript" | "mts" | "cts" => Self::TypeScript,
            "tsx" => Self::Tsx,
            "java" => Self::Java,
            "go" | "golang" => Self::Go,
            "rs" | "rust" => Self::Rust,
            "rb" | "ruby" => Self::Ruby,
            "php" => Self::Php,
            "cs" | "csharp" | "c#" => Self::CSharp,
            "sh" | "bash" | "shell" | "zsh" | "shellscript" | "ksh" => Self::Shell,
            "console" | "shell-session" | "shellsession" | "terminal" => Self::Console,
            "yaml" | "yml" => Self::Yaml,
            "toml" => Self::Toml,
            "json" | "jsonc" | "json5" => Self::Json,
            "xml" | "pom" | "csproj" => Self::Xml,
            "css" | "scss" | "sass" | "less" | "postcss" => Self::Css,
            "gradle" | "groovy" | "kotlin" | "kts" => Self::Gradle,
            "html" | "htm" | "xhtml" => Self::Html,
            "vue" => Self::Vue,
            "dockerfile" | "docker" | "containerfile" => Self::Dockerfile,
            _ => return None,
        };
        Some(lang)
    }

    /// Whether a block of this language is covered by `other` in an entry's `lang` list;
    /// a transcript counts as shell.
    pub fn covers(self, other: Self) -> bool {
        let family = |lang| {
            if lang == Self::Console {
                Self::Shell
            } else {
                lang
            }
        };
        family(self) == family(other)
    }
}

/// Why a block yielded no facts even though its language is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unparsed {
    /// The block is larger than [`MAX_BLOCK_BYTES`].
    TooLarge,
    /// The grammar could not be loaded (a build problem, reported rather than panicking).
    GrammarUnavailable,
}

/// Everything read from one code block. Spans are in SKILL.md coordinates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodeFacts {
    /// The block's language, when its tag names one skillgate reads.
    pub lang: Option<Lang>,
    /// Set when the language is known but the block was not read.
    pub unparsed: Option<Unparsed>,
    /// Import statements, `require` calls, `use` declarations.
    pub imports: Vec<Import>,
    /// Local names bound by imports, resolved to what they stand for.
    pub bindings: Vec<Binding>,
    /// Static member paths and calls rooted at a plain name (`np.float`, `render(...)`).
    pub accesses: Vec<Access>,
    /// Method calls by name (`.append(`), whatever the receiver.
    pub method_calls: Vec<MethodCall>,
    /// Local names assigned a built-in list, dict, set or array literal (`rows = []`):
    /// their method calls are not library calls.
    pub collections: Vec<String>,
    /// Decorators, Rust and C# attributes, Java annotations, Ruby class macros.
    pub decorators: Vec<Decorator>,
    /// Package installs from shell commands.
    pub installs: Vec<Install>,
    /// Dependencies and runtime ranges declared in manifest snippets.
    pub manifest_entries: Vec<ManifestEntry>,
    /// Dockerfile `FROM` images.
    pub images: Vec<Image>,
    /// GitHub Actions `uses:` references.
    pub actions: Vec<ActionUse>,
    /// YAML `key: scalar` pairs.
    pub yaml_pairs: Vec<YamlPair>,
    /// String literal contents, YAML scalars and shell text, for `text` patterns.
    pub texts: Vec<TextRun>,
    /// The argument shape of every call, keyed by its callee's span.
    pub calls: Vec<Call>,
    /// Class definitions: their bases and the names their bodies define.
    pub classes: Vec<Class>,
    /// Language syntax the block uses that older language levels reject (a Java `record`,
    /// a Python `match`), found from the grammar's node kinds.
    pub syntax: Vec<SyntaxUse>,
}

/// A use of a [`Syntax`] feature in a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyntaxUse {
    /// Which feature.
    pub feature: Syntax,
    /// The construct's keyword or operator (`record`, `:=`, `match`), not its whole body.
    pub span: Span,
}

/// Syntax features a language level introduced, read from tree-sitter node kinds: a closed
/// set, named `language:feature` in `syntax` patterns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Syntax {
    /// Java `var` as the type of a local variable, `for` variable or resource.
    JavaVar,
    /// A Java text block (`"""` ... `"""`).
    JavaTextBlock,
    /// A Java `switch` with `case ... ->` rules, or `yield` from a switch.
    JavaSwitchExpression,
    /// A Java `instanceof` that binds a pattern variable (`o instanceof String s`).
    JavaInstanceofPattern,
    /// A Java record class.
    JavaRecord,
    /// A Java `sealed` or `non-sealed` class or interface, or a `permits` clause.
    JavaSealed,
    /// Java `var` as the type of an implicitly typed lambda's parameters (`(var a) -> a`).
    JavaLambdaVar,
    /// A Java record pattern (`o instanceof Point(int x, int y)`, `case Point(var x, var y)`).
    JavaRecordPattern,
    /// A Java `case` with a type pattern, a `when` guard or `null` (pattern matching for
    /// `switch`).
    JavaSwitchPattern,
    /// A Python assignment expression (`:=`).
    PythonWalrus,
    /// A Python `/` marking positional-only parameters.
    PythonPositionalOnly,
    /// A Python `match` statement.
    PythonMatch,
    /// Python context managers in parentheses with `as` targets or several items.
    PythonParenthesizedWith,
    /// A Python `except*` clause.
    PythonExceptStar,
    /// A Python `type` alias statement.
    PythonTypeAlias,
    /// A Python type-parameter list on a function or class (`def f[T]()`, `class C[T]`).
    PythonTypeParameters,
}

impl Syntax {
    /// Every feature, for listing and validation.
    pub const ALL: [Self; 16] = [
        Self::JavaVar,
        Self::JavaTextBlock,
        Self::JavaSwitchExpression,
        Self::JavaInstanceofPattern,
        Self::JavaRecord,
        Self::JavaSealed,
        Self::JavaLambdaVar,
        Self::JavaRecordPattern,
        Self::JavaSwitchPattern,
        Self::PythonWalrus,
        Self::PythonPositionalOnly,
        Self::PythonMatch,
        Self::PythonParenthesizedWith,
        Self::PythonExceptStar,
        Self::PythonTypeAlias,
        Self::PythonTypeParameters,
    ];

    /// The name a `syntax` pattern gives the feature.
    pub fn name(self) -> &'static str {
        match self {
            Self::JavaVar => "java:var",
            Self::JavaTextBlock => "java:text-block",
            Self::JavaSwitchExpression => "java:switch-expression",
            Self::JavaInstanceofPattern => "java:instanceof-pattern",
            Self::JavaRecord => "java:record",
            Self::JavaSealed => "java:sealed",
            Self::JavaLambdaVar => "java:lambda-var",
            Self::JavaRecordPattern => "java:record-pattern",
            Self::JavaSwitchPattern => "java:switch-pattern",
            Self::PythonWalrus => "python:walrus",
            Self::PythonPositionalOnly => "python:positional-only",
            Self::PythonMatch => "python:match",
            Self::PythonParenthesizedWith => "python:parenthesized-with",
            Self::PythonExceptStar => "python:except-star",
            Self::PythonTypeAlias => "python:type-alias",
            Self::PythonTypeParameters => "python:type-parameters",
        }
    }

    /// The feature a `syntax` pattern names.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|feature| feature.name() == name)
    }

    /// How a message names a use of the feature.
    pub fn noun(self) -> &'static str {
        match self {
            Self::JavaVar => "`var` for a local variable",
            Self::JavaTextBlock => "a text block (`\"\"\"`)",
            Self::JavaSwitchExpression => "a switch with `->` rules or `yield`",
            Self::JavaInstanceofPattern => "an `instanceof` pattern",
            Self::JavaRecord => "a `record` class",
            Self::JavaSealed => "a `sealed` class or interface",
            Self::JavaLambdaVar => "`var` for a lambda parameter",
            Self::JavaRecordPattern => "a record pattern",
            Self::JavaSwitchPattern => "a pattern in a `switch` case",
            Self::PythonWalrus => "an assignment expression (`:=`)",
            Self::PythonPositionalOnly => "a positional-only parameter marker (`/`)",
            Self::PythonMatch => "a `match` statement",
            Self::PythonParenthesizedWith => "parenthesized context managers",
            Self::PythonExceptStar => "an `except*` clause",
            Self::PythonTypeAlias => "a `type` statement",
            Self::PythonTypeParameters => "a type-parameter list (`[T]`)",
        }
    }

    /// The language whose reader finds the feature.
    pub fn lang(self) -> Lang {
        match self {
            Self::JavaVar
            | Self::JavaTextBlock
            | Self::JavaSwitchExpression
            | Self::JavaInstanceofPattern
            | Self::JavaRecord
            | Self::JavaSealed
            | Self::JavaLambdaVar
            | Self::JavaRecordPattern
            | Self::JavaSwitchPattern => Lang::Java,
            _ => Lang::Python,
        }
    }
}

/// The shape of one call: how many arguments, what the first one is, which keywords it
/// passes and whether its result is awaited. Its `callee` span equals the span of the
/// [`Access`] or [`MethodCall`] recorded for the same call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// The callee expression (`select`, `res.json`).
    pub callee: Span,
    /// Number of arguments, positional and keyword.
    pub args: usize,
    /// What the first positional argument is, when there is one.
    pub first: Option<ArgKind>,
    /// Names of the keyword arguments (Python's `f(x=1)`).
    pub keywords: Vec<String>,
    /// Whether the call is the operand of `await`.
    pub awaited: bool,
    /// Whether the call's result is used as it is: a member is read on it, or it is
    /// assigned to a name (`cookies().get(..)`, `const c = cookies()`).
    pub read_directly: bool,
}

impl Call {
    /// A call known only by its callee and its number of arguments (the readers whose
    /// languages no pattern's `first` or `keyword` reads).
    pub fn counted(callee: Span, args: usize) -> Self {
        Call {
            callee,
            args,
            first: None,
            keywords: Vec::new(),
            awaited: false,
            read_directly: false,
        }
    }
}

/// What kind of expression an argument is, as far as a snippet shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// A list or array literal (`[a, b]`).
    List,
    /// A dict or object literal (`{a: 1}`).
    Dict,
    /// A string literal, f-string or template literal.
    String,
    /// A number literal.
    Number,
    /// A lambda, arrow function or function expression.
    Function,
    /// Anything else: a name, a call, an operator expression.
    Other,
}

impl ArgKind {
    /// The kind a pattern's `first = "..."` names.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "list" => Self::List,
            "dict" => Self::Dict,
            "string" => Self::String,
            "number" => Self::Number,
            "function" => Self::Function,
            _ => return None,
        })
    }
}

/// A class definition (Python, JavaScript, TypeScript).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Class {
    /// Each base as a static path (`BaseModel`, `models.Model`, `React.Component`); bases
    /// that are not static paths are left out.
    pub bases: Vec<Vec<String>>,
    /// Names the body defines, nested classes' members dotted (`Config`,
    /// `Config.orm_mode`), each with the span of its name.
    pub members: Vec<(String, Span)>,
}

/// One import of a module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// Module path as written: `numpy`, `a.b`, `react-dom/client`, `java.util`, `tokio::sync`.
    pub module: String,
    /// Names imported from the module (`from m import a as b`, `{a as b}`, `use m::{a}`).
    pub names: Vec<ImportedName>,
    /// Whether everything is imported (`from m import *`, `import a.*;`, `use m::*`).
    pub wildcard: bool,
    /// The import statement or call.
    pub span: Span,
}

/// A name imported from a module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedName {
    /// The name in the module; may be dotted for Java static imports.
    pub name: String,
    /// The local alias, when renamed.
    pub alias: Option<String>,
}

/// A local name bound by an import: `local` stands for `module` plus `name` (empty when the
/// whole module is bound, as in `import numpy as np` or `import React from 'react'`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The name as used in the snippet.
    pub local: String,
    /// The module it comes from.
    pub module: String,
    /// The name inside the module; empty for the module itself.
    pub name: String,
}

/// A static path rooted at a plain name: `np.float`, `ReactDOM.render(...)`, `render(...)`,
/// `<Switch>`, `extends WebSecurityConfigurerAdapter`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// The leftmost name.
    pub root: String,
    /// The member names after the root, outermost last.
    pub path: Vec<String>,
    /// Whether the path is called (or constructed).
    pub call: bool,
    /// The whole path expression.
    pub span: Span,
}

/// A method call by name: the receiver is not a static path rooted at an import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodCall {
    /// The method's name.
    pub name: String,
    /// The receiver when it is a plain name (`df` in `df.append(...)`).
    pub receiver: Option<String>,
    /// The callee expression (`df.append`).
    pub span: Span,
}

/// A decorator, attribute or annotation, with its path as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decorator {
    /// Path segments: `app.route` -> `["app", "route"]`, `tokio::main` -> `["tokio", "main"]`.
    pub path: Vec<String>,
    /// The decorator name (without arguments).
    pub span: Span,
}

/// A package install command such as `pip install "x>=2"` or `npm i -D x@1`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Install {
    /// The installing tool (`pip`, `uv`, `poetry`, `npm`, `pnpm`, `yarn`, `bun`, `cargo`,
    /// `go`, `gem`, `composer`, `dotnet`).
    pub manager: &'static str,
    /// The registry the package comes from.
    pub ecosystem: Ecosystem,
    /// Package name, canonical for its ecosystem (PyPI names PEP 503-normalised).
    pub package: String,
    /// The version or range as written, if one was given.
    pub constraint: Option<String>,
    /// The package argument (with its version).
    pub span: Span,
}

/// A dependency or runtime range from a manifest snippet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestEntry {
    /// The registry, or [`Ecosystem::Runtime`] for `requires-python`, `engines.node`...
    pub ecosystem: Ecosystem,
    /// Package name (`group:artifact` for Maven), or the runtime's name.
    pub package: String,
    /// The version or range as written, if one was given.
    pub constraint: Option<String>,
    /// The entry (key and value).
    pub span: Span,
}

/// A Dockerfile `FROM` image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Image name without tag or digest (`python`, `ghcr.io/o/r`).
    pub name: String,
    /// The tag, if any (`3.12-slim`).
    pub tag: Option<String>,
    /// The image reference.
    pub span: Span,
}

/// A GitHub Actions `uses: owner/repo@ref`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionUse {
    /// `owner/repo` (a sub-path such as `owner/repo/path` is dropped).
    pub action: String,
    /// The ref after `@`, if any.
    pub reference: Option<String>,
    /// The value of `uses:`.
    pub span: Span,
}

/// A YAML `key: scalar` pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlPair {
    /// The key.
    pub key: String,
    /// The scalar value, unquoted.
    pub value: String,
    /// The value.
    pub span: Span,
}

/// Text a `text` pattern searches: a string literal's contents or a shell block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextRun {
    /// The text.
    pub text: String,
    /// Where it is.
    pub span: Span,
}

impl CodeFacts {
    /// Records an import of a whole module (no names), bound to `local` when the language
    /// gives the module a name in scope.
    pub(crate) fn record_module_import(
        &mut self,
        module: String,
        local: Option<String>,
        span: Span,
    ) {
        if let Some(local) = local {
            self.bindings.push(Binding {
                local,
                module: module.clone(),
                name: String::new(),
            });
        }
        self.imports.push(Import {
            module,
            names: Vec::new(),
            wildcard: false,
            span,
        });
    }

    /// Whether the snippet imports `module` or one of its sub-modules.
    pub fn imports_module(&self, module: &str) -> bool {
        let wanted = normalise_path(module);
        self.imports
            .iter()
            .any(|import| module_under(&normalise_path(&import.module), &wanted))
    }

    /// The binding a local name comes from, if an import bound it.
    pub fn binding(&self, local: &str) -> Option<&Binding> {
        self.bindings
            .iter()
            .rev()
            .find(|binding| binding.local == local)
    }

    /// The qualified name a static path stands for (`np.float` -> `numpy.float`), with
    /// `::` written as `.`. Rust paths whose root no `use` bound are crate paths already.
    pub fn resolve(&self, root: &str, path: &[String]) -> Option<String> {
        let mut qualified = match self.binding(root) {
            Some(binding) => join_qualified(&binding.module, &binding.name),
            None if self.lang == Some(Lang::Rust) => root.to_owned(),
            None => return None,
        };
        for segment in path {
            qualified.push('.');
            qualified.push_str(segment);
        }
        Some(qualified)
    }
}

/// `module` and `name` joined with `.`, separators normalised.
pub(crate) fn join_qualified(module: &str, name: &str) -> String {
    let module = normalise_path(module);
    if name.is_empty() {
        module
    } else {
        format!("{module}.{}", normalise_path(name))
    }
}

/// Whether `module` is `root` or a sub-module of it (`.`, `/` or `::` boundary).
pub fn module_under(module: &str, root: &str) -> bool {
    match module.strip_prefix(root) {
        Some("") => true,
        Some(rest) => rest.starts_with('.') || rest.starts_with('/') || rest.starts_with("::"),
        None => false,
    }
}

/// Rust's and Ruby's `::` and PHP's `\` written as `.`, so that one comparison serves every
/// language (a PHP name written fully qualified, `\A\B`, loses its leading separator).
pub(crate) fn normalise_path(path: &str) -> String {
    let path = path.replace("::", ".");
    if path.contains('\\') {
        path.trim_start_matches('\\').replace('\\', ".")
    } else {
        path
    }
}

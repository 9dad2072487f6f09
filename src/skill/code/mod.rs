//! Code facts: what a skill's code blocks import, call, install and pin.
//!
//! Each fenced block is parsed with the tree-sitter grammar of its language (Python,
//! JavaScript, TypeScript/TSX, Java, Go, Rust, Bash, YAML, TOML, JSON) or read by a small
//! dedicated reader (XML manifests with `quick-xml`, Dockerfile instructions, Gradle string
//! literals, HTML attribute values; CSS is only text). The result,
//! [`CodeFacts`], carries byte spans in SKILL.md coordinates so that findings point at the
//! skill's own lines. Extraction never panics: an unknown tag yields empty facts, an
//! oversized block is skipped and says so, and tree-sitter recovers from syntax errors.

mod docker;
mod go;
mod gradle;
mod java;
mod javascript;
mod manifest;
mod markup;
mod python;
mod rust;
mod shell;
mod yaml;

use tree_sitter::{Node, Parser};

use crate::project::Ecosystem;

/// Blocks larger than this are not parsed: no skill example needs more, and the limit keeps
/// extraction time bounded whatever the input.
pub const MAX_BLOCK_BYTES: usize = 64 * 1024;

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
    /// Decorators, Rust attributes, Java annotations.
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

/// Rust's `::` written as `.`, so that one comparison serves every language.
pub(crate) fn normalise_path(path: &str) -> String {
    path.replace("::", ".")
}

/// Reads code blocks into facts, reusing one parser per language across blocks.
#[derive(Default)]
pub struct FactExtractor {
    parsers: Vec<(Grammar, Parser)>,
}

impl std::fmt::Debug for FactExtractor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FactExtractor")
            .field("parsers", &self.parsers.len())
            .finish()
    }
}

/// The tree-sitter grammars in use; TSX and TypeScript are separate grammars.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grammar {
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Java,
    Go,
    Rust,
    Bash,
    Yaml,
    Toml,
    Json,
}

impl Grammar {
    fn language(self) -> tree_sitter::Language {
        match self {
            Self::Python => tree_sitter_python::LANGUAGE.into(),
            Self::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Self::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Self::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Self::Java => tree_sitter_java::LANGUAGE.into(),
            Self::Go => tree_sitter_go::LANGUAGE.into(),
            Self::Rust => tree_sitter_rust::LANGUAGE.into(),
            Self::Bash => tree_sitter_bash::LANGUAGE.into(),
            Self::Yaml => tree_sitter_yaml::LANGUAGE.into(),
            Self::Toml => tree_sitter_toml_ng::LANGUAGE.into(),
            Self::Json => tree_sitter_json::LANGUAGE.into(),
        }
    }
}

impl FactExtractor {
    /// An extractor with no parser built yet; parsers are made on first use.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads one block.
    pub fn extract(&mut self, snippet: &CodeSnippet<'_>) -> CodeFacts {
        let lang = snippet.lang.and_then(Lang::from_tag);
        let mut facts = CodeFacts {
            lang,
            ..CodeFacts::default()
        };
        let Some(lang) = lang else { return facts };
        if snippet.text.len() > MAX_BLOCK_BYTES {
            facts.unparsed = Some(Unparsed::TooLarge);
            return facts;
        }
        let source = Source {
            text: snippet.text,
            offset: snippet.offset,
        };
        let read = self.read(lang, source, &mut facts);
        if !read {
            facts.unparsed = Some(Unparsed::GrammarUnavailable);
        }
        facts
    }

    /// Reads `source` as `lang`; false when its grammar could not be loaded.
    fn read(&mut self, lang: Lang, source: Source<'_>, facts: &mut CodeFacts) -> bool {
        match lang {
            Lang::Python => self.with_tree(Grammar::Python, source, facts, python::read),
            Lang::JavaScript => {
                self.with_tree(Grammar::JavaScript, source, facts, javascript::read)
            }
            Lang::TypeScript => {
                self.with_tree(Grammar::TypeScript, source, facts, javascript::read)
            }
            Lang::Tsx => self.with_tree(Grammar::Tsx, source, facts, javascript::read),
            Lang::Java => self.with_tree(Grammar::Java, source, facts, java::read),
            Lang::Go => self.with_tree(Grammar::Go, source, facts, go::read),
            Lang::Rust => self.with_tree(Grammar::Rust, source, facts, rust::read),
            Lang::Shell => self.shell(source, facts),
            Lang::Console => {
                let commands = shell::console_commands(source.text);
                self.shell(
                    Source {
                        text: &commands,
                        offset: source.offset,
                    },
                    facts,
                )
            }
            Lang::Yaml => self.with_tree(Grammar::Yaml, source, facts, yaml::read),
            Lang::Toml => self.with_tree(Grammar::Toml, source, facts, manifest::read_toml),
            Lang::Json => self.with_tree(Grammar::Json, source, facts, manifest::read_json),
            Lang::Xml => {
                manifest::read_xml(source, facts);
                true
            }
            Lang::Dockerfile => {
                docker::read(self, source, facts);
                true
            }
            Lang::Css => {
                facts.texts.push(TextRun {
                    text: source.text.to_owned(),
                    span: source.whole(),
                });
                true
            }
            Lang::Html | Lang::Vue => {
                markup::read(source, facts);
                true
            }
            Lang::Gradle => {
                gradle::read(source, facts);
                true
            }
        }
    }

    /// Reads a shell script: its installs, and its whole text for `text` patterns.
    fn shell(&mut self, source: Source<'_>, facts: &mut CodeFacts) -> bool {
        facts.texts.push(TextRun {
            text: source.text.to_owned(),
            span: source.whole(),
        });
        self.with_tree(Grammar::Bash, source, facts, shell::read)
    }

    /// Parses `source` with `grammar` and hands the tree to `read`; false when the grammar
    /// could not be loaded or the parse was abandoned.
    pub(crate) fn with_tree(
        &mut self,
        grammar: Grammar,
        source: Source<'_>,
        facts: &mut CodeFacts,
        read: fn(Node<'_>, Source<'_>, &mut CodeFacts),
    ) -> bool {
        let Some(parser) = self.parser(grammar) else {
            return false;
        };
        let Some(tree) = parser.parse(source.text, None) else {
            return false;
        };
        read(tree.root_node(), source, facts);
        true
    }

    fn parser(&mut self, grammar: Grammar) -> Option<&mut Parser> {
        let index = match self.parsers.iter().position(|(g, _)| *g == grammar) {
            Some(index) => index,
            None => {
                let mut parser = Parser::new();
                parser.set_language(&grammar.language()).ok()?;
                self.parsers.push((grammar, parser));
                self.parsers.len() - 1
            }
        };
        self.parsers.get_mut(index).map(|(_, parser)| parser)
    }
}

/// Reads every block, one parser per language for the whole call.
pub fn extract_facts(snippets: &[CodeSnippet<'_>]) -> Vec<CodeFacts> {
    let mut extractor = FactExtractor::new();
    snippets
        .iter()
        .map(|snippet| extractor.extract(snippet))
        .collect()
}

/// A block's text and where it starts in the file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Source<'a> {
    pub(crate) text: &'a str,
    pub(crate) offset: usize,
}

impl<'a> Source<'a> {
    /// The node's text; empty if its range is not on character boundaries (it always is
    /// for UTF-8 input, but a bad range must not panic).
    pub(crate) fn text(&self, node: Node<'_>) -> &'a str {
        self.text.get(node.byte_range()).unwrap_or_default()
    }

    /// The node's span in file coordinates.
    pub(crate) fn span(&self, node: Node<'_>) -> Span {
        self.range(node.start_byte(), node.end_byte())
    }

    /// A block-relative byte range in file coordinates.
    pub(crate) fn range(&self, start: usize, end: usize) -> Span {
        Span {
            start: self.offset + start,
            end: self.offset + end,
        }
    }

    /// The whole block.
    pub(crate) fn whole(&self) -> Span {
        self.range(0, self.text.len())
    }
}

/// Where a visited node sits: its ancestors (nearest last) and the field it fills in its
/// parent. Carried by the walk because tree-sitter's `Node::parent` searches from the root.
pub(crate) struct Place<'a, 't> {
    ancestors: &'a [Node<'t>],
    field: Option<&'t str>,
}

impl<'t> Place<'_, 't> {
    /// The parent node, if any.
    pub(crate) fn parent(&self) -> Option<Node<'t>> {
        self.ancestors.last().copied()
    }

    /// Whether the node is the `field` child of a `kind` parent.
    pub(crate) fn is(&self, kind: &str, field: &str) -> bool {
        self.field == Some(field) && self.parent().is_some_and(|p| p.kind() == kind)
    }

    /// Ancestors, nearest first.
    pub(crate) fn ancestors(&self) -> impl Iterator<Item = Node<'t>> + '_ {
        self.ancestors.iter().rev().copied()
    }
}

/// Visits every node in document order without recursion (deeply nested input must not
/// exhaust the stack).
pub(crate) fn walk<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>, &Place<'_, 't>)) {
    let mut cursor = root.walk();
    let mut ancestors: Vec<Node<'t>> = Vec::new();
    loop {
        let node = cursor.node();
        visit(
            node,
            &Place {
                ancestors: &ancestors,
                field: cursor.field_name(),
            },
        );
        if cursor.goto_first_child() {
            ancestors.push(node);
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
            ancestors.pop();
        }
    }
}

/// How a language writes a member step: node kind, field of the object, field of the name.
pub(crate) type MemberKind = (&'static str, &'static str, &'static str);

/// Longest static path kept; longer chains are generated code, not API use.
const MAX_PATH_SEGMENTS: usize = 32;

/// `a.b.c` as `["a", "b", "c"]`, following `members` down to a node of one of `roots`;
/// `None` when the chain starts elsewhere (a call result, `this`, a literal). Iterative, so
/// a pathological chain cannot exhaust the stack.
pub(crate) fn static_path(
    node: Node<'_>,
    source: Source<'_>,
    members: &[MemberKind],
    roots: &[&str],
) -> Option<Vec<String>> {
    let mut segments = Vec::new();
    let mut current = node;
    loop {
        if segments.len() > MAX_PATH_SEGMENTS {
            return None;
        }
        if roots.contains(&current.kind()) {
            segments.push(source.text(current).to_owned());
            segments.reverse();
            return Some(segments);
        }
        let (_, object, name) = members
            .iter()
            .find(|(kind, _, _)| *kind == current.kind())?;
        segments.push(source.text(current.child_by_field_name(name)?).to_owned());
        current = current.child_by_field_name(object)?;
    }
}

/// Records a decorator (its first named child) as the path it names, without arguments:
/// `@a.b(args)` is `a.b`. `call` is the grammar's call node kind.
pub(crate) fn decorator<'t>(
    node: Node<'t>,
    call: &str,
    source: Source<'_>,
    facts: &mut CodeFacts,
    path_of: impl Fn(Node<'t>) -> Option<Vec<String>>,
) {
    let Some(mut expression) = node.named_child(0) else {
        return;
    };
    if expression.kind() == call {
        let Some(function) = expression.child_by_field_name("function") else {
            return;
        };
        expression = function;
    }
    if let Some(path) = path_of(expression) {
        facts.decorators.push(Decorator {
            path,
            span: source.span(expression),
        });
    }
}

/// Records a static path (root first) as an access spanning `span`.
pub(crate) fn push_access(facts: &mut CodeFacts, mut path: Vec<String>, call: bool, span: Span) {
    if path.is_empty() {
        return;
    }
    let root = path.remove(0);
    facts.accesses.push(Access {
        root,
        path,
        call,
        span,
    });
}

/// How a grammar spells a member access (`a.b`): the node kind and its field names.
pub(crate) struct Member {
    /// Node kind, e.g. `attribute` (Python) or `selector_expression` (Go).
    pub kind: &'static str,
    /// Field holding the member's name.
    pub name: &'static str,
    /// Field holding the receiver.
    pub receiver: &'static str,
}

/// A call of a plain name is an access; a call of a member is also a method call.
pub(crate) fn call(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts, member: Member) {
    let Some(function) = node.child_by_field_name("function") else {
        return;
    };
    if function.kind() == "identifier" {
        facts.accesses.push(Access {
            root: source.text(function).to_owned(),
            path: Vec::new(),
            call: true,
            span: source.span(function),
        });
    } else if function.kind() == member.kind
        && let Some(name) = function.child_by_field_name(member.name)
    {
        facts.method_calls.push(MethodCall {
            name: source.text(name).to_owned(),
            receiver: plain_receiver(function, member.receiver, source),
            span: source.span(function),
        });
    }
}

/// The `field` child of a callee when it is a plain identifier: the receiver's name.
pub(crate) fn plain_receiver(callee: Node<'_>, field: &str, source: Source<'_>) -> Option<String> {
    let receiver = callee.child_by_field_name(field)?;
    (receiver.kind() == "identifier").then(|| source.text(receiver).to_owned())
}

/// A quoted string's contents: strips one pair of matching quotes.
pub(crate) fn unquote(text: &str) -> &str {
    for quote in ["\"\"\"", "'''", "\"", "'", "`"] {
        let inner = text.strip_prefix(quote).and_then(|t| t.strip_suffix(quote));
        if let Some(inner) = inner.filter(|_| text.len() >= 2 * quote.len()) {
            return inner;
        }
    }
    text
}

/// PEP 503 name normalisation: lowercase, runs of `-`, `_`, `.` become one `-`.
pub(crate) fn normalise_pypi(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// A PyPI project name: letters, digits, `-`, `_`, `.`, starting with a letter or digit.
pub(crate) fn pypi_name(name: &str) -> Option<&str> {
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    valid.then_some(name)
}

/// A quoted string's contents as text for `text` patterns, spanning the contents only, so
/// match offsets land on the right bytes.
pub(crate) fn string_text(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let raw = source.text(node);
    let text = unquote(raw);
    let quote = (raw.len() - text.len()) / 2;
    let span = source.range(node.start_byte() + quote, node.end_byte() - quote);
    facts.texts.push(TextRun {
        text: text.to_owned(),
        span,
    });
}

/// A PEP 508 requirement's normalised name and version specifier; extras, markers and
/// direct references (`name @ url`) are dropped. `None` when the name is not a valid one.
pub(crate) fn pep508(spec: &str) -> Option<(String, Option<String>)> {
    let spec = spec.split(';').next().unwrap_or_default().trim();
    let split = spec
        .find(['=', '<', '>', '!', '~', '[', '@', ' ', '('])
        .unwrap_or(spec.len());
    let (name, mut rest) = spec.split_at(split);
    pypi_name(name)?;
    if rest.starts_with('[') {
        rest = rest.split_once(']').map_or("", |(_, after)| after);
    }
    let rest = rest
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    let constraint = (!rest.is_empty() && !rest.starts_with('@')).then(|| rest.to_owned());
    Some((normalise_pypi(name), constraint))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Facts of one block placed at file offset 100, to check offsets are applied.
    pub(crate) fn facts(lang: &str, text: &str) -> CodeFacts {
        FactExtractor::new().extract(&CodeSnippet {
            lang: Some(lang),
            text,
            offset: 100,
        })
    }

    /// The file text a span covers, given the block was placed at offset 100.
    pub(crate) fn spanned(text: &str, span: Span) -> &str {
        &text[span.start - 100..span.end - 100]
    }

    #[test]
    fn tags_map_to_languages() {
        let cases = [
            ("py", Some(Lang::Python)),
            ("Python3", Some(Lang::Python)),
            ("jsx", Some(Lang::JavaScript)),
            ("mjs", Some(Lang::JavaScript)),
            ("typescript", Some(Lang::TypeScript)),
            ("tsx", Some(Lang::Tsx)),
            ("golang", Some(Lang::Go)),
            ("rs", Some(Lang::Rust)),
            ("zsh", Some(Lang::Shell)),
            ("console", Some(Lang::Console)),
            ("yml", Some(Lang::Yaml)),
            ("Dockerfile", Some(Lang::Dockerfile)),
            ("python title=\"app.py\"", Some(Lang::Python)),
            ("{.json}", Some(Lang::Json)),
            ("text", None),
            ("", None),
        ];
        for (tag, lang) in cases {
            assert_eq!(Lang::from_tag(tag), lang, "{tag}");
        }
    }

    #[test]
    fn unknown_and_oversized_blocks_yield_no_facts() {
        let none = facts("mermaid", "import numpy as np");
        assert_eq!(none.lang, None);
        assert!(none.imports.is_empty());
        let big = "import numpy\n".repeat(MAX_BLOCK_BYTES / 10);
        let skipped = facts("python", &big);
        assert_eq!(skipped.unparsed, Some(Unparsed::TooLarge));
        assert!(skipped.imports.is_empty());
    }

    #[test]
    fn broken_code_still_yields_what_parses() {
        let text = "import numpy as np\ndef broken(:\n    np.float(1)\n";
        let facts = facts("python", text);
        assert_eq!(facts.imports.len(), 1);
        assert!(facts.accesses.iter().any(|a| a.root == "np"));
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let text = format!("x = {}1{}", "[".repeat(20_000), "]".repeat(20_000));
        let facts = facts("python", &text);
        assert!(facts.imports.is_empty());
    }

    #[test]
    fn imports_module_respects_boundaries() {
        let rust = facts("rust", "use tokio::sync::mpsc;\n");
        assert!(rust.imports_module("tokio"));
        assert!(rust.imports_module("tokio::sync"));
        assert!(!rust.imports_module("tokio_util"));
        let js = facts("js", "import { createRoot } from 'react-dom/client';\n");
        assert!(js.imports_module("react-dom"));
        assert!(!js.imports_module("react"));
    }

    #[test]
    fn pep508_requirements() {
        let cases = [
            ("x==1", Some(("x", Some("==1")))),
            ("Y_Z[all]>=1,<2", Some(("y-z", Some(">=1,<2")))),
            ("a ; python_version < '3.9'", Some(("a", None))),
            ("b @ https://example.com/b.whl", Some(("b", None))),
            ("c (>=2)", Some(("c", Some(">=2")))),
            ("./local", None),
        ];
        for (spec, expected) in cases {
            let got = pep508(spec);
            let got = got.as_ref().map(|(n, c)| (n.as_str(), c.as_deref()));
            assert_eq!(got, expected, "{spec}");
        }
    }

    #[test]
    fn pypi_names_normalise() {
        assert_eq!(
            normalise_pypi("Django_Rest.Framework"),
            "django-rest-framework"
        );
        assert_eq!(normalise_pypi("a__b"), "a-b");
    }

    #[test]
    fn unquote_strips_one_matching_pair() {
        assert_eq!(unquote("\"x>=2\""), "x>=2");
        assert_eq!(unquote("'a'"), "a");
        assert_eq!(unquote("\"a'"), "\"a'");
        assert_eq!(unquote("\""), "\"");
    }
}

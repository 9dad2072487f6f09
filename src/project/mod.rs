//! The project scanner: what the target repository actually uses.
//!
//! [`scan`] walks a repository once (respecting `.gitignore`, skipping vendored and build
//! directories), counts languages by file extension and reads only manifest-like files. The
//! result, [`Project`], is everything the SG4xx rules need, so that no rule does I/O.

mod dotnet;
mod ecosystem;
mod go;
mod gradle_java;
mod input;
mod jvm;
mod locate;
mod npm;
mod ordered;
mod php;
mod python;
mod ruby;
mod runtimes;
mod rust;
mod sink;
mod toml_doc;
mod tools;
pub mod version;
mod walk;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use self::ecosystem::Ecosystem;
pub(crate) use self::sink::canonical_name;

/// What a repository uses: languages, dependencies, runtimes and tool conventions.
#[derive(Debug, Clone, Serialize)]
pub struct Project {
    /// The directory that was scanned; every [`Located::path`] is relative to it.
    pub root: PathBuf,
    /// Languages by number of files, most files first.
    pub languages: Vec<LanguageCount>,
    /// Every dependency declared in a manifest or pinned in a lockfile.
    pub dependencies: Vec<Dependency>,
    /// Runtime versions and ranges (python, node, go, rust, java, ruby, php, dotnet, bun, deno).
    pub runtimes: Vec<Runtime>,
    /// Package manager, test runner and build tool, each with its evidence.
    pub tools: Tools,
    /// Manifests that could not be read or parsed; the scan went on without them.
    pub diagnostics: Vec<ScanDiagnostic>,
    /// The project's own packages and modules, sorted: what its code imports without a
    /// registry (Python package folders, Cargo package names, the Go module path, npm
    /// package names).
    pub own: Vec<OwnName>,
}

/// A package or module the project defines itself.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct OwnName {
    /// The ecosystem whose imports name it.
    pub ecosystem: Ecosystem,
    /// The name as an import writes it: `app`, `grep_searcher` as `grep-searcher`, a Go
    /// module path, `@acme/ui`.
    pub name: String,
}

/// The number of files of one language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LanguageCount {
    /// Language name, e.g. `"Rust"`, `"TypeScript"`.
    pub language: String,
    /// Number of files with one of the language's extensions.
    pub files: u64,
}

/// How a dependency is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DepKind {
    /// Needed at run time.
    Normal,
    /// Needed only to develop or test.
    Dev,
    /// Needed only to build (Cargo build-dependencies, Maven `provided`).
    Build,
    /// Optional or an extra.
    Optional,
    /// A peer the consumer must provide (npm).
    Peer,
    /// A version pinned for others to inherit (workspace, dependencyManagement, catalogs).
    Managed,
    /// A build plugin (Maven, Gradle).
    Plugin,
    /// The parent of a Maven project.
    Parent,
    /// Marked indirect in `go.mod`.
    Indirect,
    /// Only in a lockfile: pulled in by another dependency.
    Transitive,
    /// A base image or an Actions step.
    Uses,
}

/// One dependency of the project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dependency {
    /// The registry the name belongs to.
    pub ecosystem: Ecosystem,
    /// Canonical name: npm `@scope/x`, PyPI normalised (PEP 503), Maven `group:artifact`,
    /// Go module path, Actions `owner/repo`, Docker image without tag.
    pub name: String,
    /// How the dependency is used.
    pub kind: DepKind,
    /// The constraint as declared, where it was declared.
    pub constraint: Option<Located<String>>,
    /// The exact version a lockfile resolved, where it was resolved.
    pub resolved: Option<Located<String>>,
}

/// A value and the place in the repository it was read from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Located<T> {
    /// The value as written.
    pub value: T,
    /// File path relative to [`Project::root`].
    pub path: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in characters); 1 where the parser does not say.
    pub column: u32,
}

/// Whether a runtime entry is a range the project supports or the one version it pins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RuntimeKind {
    /// A supported range (`requires-python`, `engines.node`, `rust-version`, `go` directive).
    Range,
    /// One version used to develop or run (`.nvmrc`, `.python-version`, `FROM python:3.12`).
    Pin,
}

/// A runtime or toolchain version the project declares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Runtime {
    /// `python`, `node`, `go`, `rust`, `java`, `ruby`, `php`, `dotnet`, `bun` or `deno`.
    pub name: String,
    /// A supported range or a pinned version.
    pub kind: RuntimeKind,
    /// The version or range as written.
    pub version: Located<String>,
}

/// Tool conventions, each with the evidence that shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Tools {
    /// Package managers (npm, pnpm, yarn, bun, uv, poetry, pipenv, pip, cargo, ...).
    pub package_manager: Vec<Tool>,
    /// Test runners (jest, vitest, mocha, pytest, cargo test, go test, ...).
    pub test_runner: Vec<Tool>,
    /// Build tools (maven, gradle, vite, webpack, ...).
    pub build_tool: Vec<Tool>,
}

/// One tool and where the repository shows it is used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tool {
    /// Tool name, e.g. `pnpm`, `vitest`, `gradle`.
    pub name: String,
    /// What shows it: a lockfile, a field, a script, a dependency.
    pub evidence: Vec<Located<String>>,
}

/// A manifest that could not be read or parsed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScanDiagnostic {
    /// File path relative to [`Project::root`].
    pub path: PathBuf,
    /// 1-based line of the problem (1 when the whole file is concerned).
    pub line: u32,
    /// 1-based column of the problem.
    pub column: u32,
    /// What went wrong, from the parser where it said.
    pub message: String,
}

/// The scan could not start: the root itself is unusable.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// The root could not be read.
    #[error("cannot read repository root {path}: {source}")]
    Root {
        /// The root as given.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The root is a file, not a directory.
    #[error("repository root {0} is not a directory")]
    NotADirectory(PathBuf),
}

/// Scans the repository at `root`.
///
/// Fails only when `root` is not a readable directory; unreadable or malformed files become
/// [`Project::diagnostics`] and the scan goes on.
pub fn scan(root: &Path) -> Result<Project, ScanError> {
    let meta = std::fs::metadata(root).map_err(|source| ScanError::Root {
        path: root.to_path_buf(),
        source,
    })?;
    if !meta.is_dir() {
        return Err(ScanError::NotADirectory(root.to_path_buf()));
    }
    let mut sink = sink::Sink::new(root);
    let languages = walk::walk(root, &mut sink);
    Ok(sink.finish(languages))
}

impl Project {
    /// The version the project uses: the lockfile's resolved version where there is one,
    /// else the declared constraint. Managed/transitive entries count too.
    pub fn resolved_version(&self, ecosystem: Ecosystem, name: &str) -> Option<&Located<String>> {
        let mut matching = self.dependencies_named(ecosystem, name);
        let first = matching.clone().find_map(|d| d.resolved.as_ref());
        first.or_else(|| matching.find_map(|d| d.constraint.as_ref()))
    }

    /// Whether the project depends on `name` in `ecosystem` (directly or through a lockfile).
    pub fn has_dependency(&self, ecosystem: Ecosystem, name: &str) -> bool {
        self.dependencies_named(ecosystem, name).next().is_some()
    }

    /// The entries for one dependency, in scan order. `name` is canonicalised first, so
    /// `Django` and `django` match the same PyPI package.
    pub fn dependencies_named(
        &self,
        ecosystem: Ecosystem,
        name: &str,
    ) -> impl Iterator<Item = &Dependency> + Clone {
        let name = sink::canonical_name(ecosystem, name);
        self.dependencies
            .iter()
            .filter(move |d| d.ecosystem == ecosystem && d.name == name)
    }

    /// The runtime entry for `name` (e.g. `"python"`), preferring a supported range over a pin,
    /// since a range says which versions the project must keep working on.
    pub fn runtime(&self, name: &str) -> Option<&Runtime> {
        let mut named = self.runtimes.iter().filter(|r| r.name == name);
        let first = named.clone().next();
        named.find(|r| r.kind == RuntimeKind::Range).or(first)
    }

    /// Every runtime entry for `name`, in scan order.
    pub fn runtimes_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Runtime> {
        self.runtimes.iter().filter(move |r| r.name == name)
    }

    /// Whether the project defines `name` itself in `ecosystem` (compared canonically).
    pub fn owns(&self, ecosystem: Ecosystem, name: &str) -> bool {
        let name = sink::canonical_name(ecosystem, name);
        self.own
            .iter()
            .any(|own| own.ecosystem == ecosystem && own.name == name)
    }

    /// The ecosystems with at least one dependency, sorted.
    pub fn ecosystems(&self) -> Vec<Ecosystem> {
        let mut all: Vec<Ecosystem> = self.dependencies.iter().map(|d| d.ecosystem).collect();
        all.sort();
        all.dedup();
        all
    }
}

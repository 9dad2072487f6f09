//! One walk over the repository: count languages, hand manifest-like files to their reader.

use std::collections::HashMap;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use ignore::{DirEntry, WalkBuilder};

use super::input::read_bounded;
use super::sink::Sink;
use super::{Ecosystem, LanguageCount, dotnet, go, jvm, npm, php, python, ruby, runtimes, rust};

/// Directories that hold vendored, generated or installed code, never the project's own.
const SKIPPED_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    "vendor",
    "target",
    ".venv",
    "venv",
    "__pycache__",
    "dist",
    "build",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".next",
    ".nuxt",
    ".svelte-kit",
    ".gradle",
    ".idea",
    "bower_components",
    ".yarn",
    ".pnpm-store",
    "coverage",
    ".terraform",
    ".cargo",
];

/// Largest manifest read whole; larger ones are reported and skipped.
const MANIFEST_LIMIT: u64 = 4 << 20;
/// Largest lockfile parsed into a document tree (TOML, YAML).
const TREE_LOCK_LIMIT: u64 = 32 << 20;
/// Largest lockfile read whole and deserialised keeping only what is needed (JSON).
const LOCK_LIMIT: u64 = 256 << 20;

/// Which reader a file goes to, decided from its name alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reader {
    PackageJson,
    PackageLock,
    PnpmLock,
    YarnLock,
    BunLock,
    Pyproject,
    Requirements,
    SetupCfg,
    Pipfile,
    PipfileLock,
    PoetryLock,
    UvLock,
    CargoToml,
    CargoLock,
    GoMod,
    Pom,
    Gradle,
    GradleCatalog,
    GemfileLock,
    Importmap,
    RubyTestHelper,
    ComposerJson,
    ComposerLock,
    Csproj,
    GlobalJson,
    RuntimeFile,
    ToolVersions,
    RustToolchain,
    Dockerfile,
    Workflow,
}

/// A lockfile to read on the lockfile thread.
type LockfileJob = (Reader, PathBuf, PathBuf);

/// Walks `root`, feeding manifests to `sink`; returns the language counts.
///
/// Lockfiles (the only large files) are read on a second thread while the walk goes on;
/// each gets its own sink, merged back in the order the walk found them, so the result does
/// not depend on timing. Without a second thread, everything is read in turn.
pub(crate) fn walk(root: &Path, sink: &mut Sink) -> Vec<LanguageCount> {
    std::thread::scope(|scope| {
        let (jobs, queue) = mpsc::channel::<LockfileJob>();
        let worker = std::thread::Builder::new()
            .name("lockfiles".into())
            .spawn_scoped(scope, move || read_lockfiles(root, queue));
        let Ok(worker) = worker else {
            return walk_tree(root, sink, None);
        };
        let languages = walk_tree(root, sink, Some(&jobs));
        drop(jobs);
        match worker.join() {
            Ok(sinks) => sinks.into_iter().for_each(|lockfile| sink.merge(lockfile)),
            Err(_) => sink.diagnostic(Path::new(""), 1, 1, "lockfile reader failed".into()),
        }
        languages
    })
}

fn read_lockfiles(root: &Path, queue: mpsc::Receiver<LockfileJob>) -> Vec<Sink> {
    queue
        .into_iter()
        .map(|(reader, path, rel)| {
            let mut sink = Sink::new(root);
            read_file(&mut sink, reader, &path, &rel);
            sink
        })
        .collect()
}

fn walk_tree(
    root: &Path,
    sink: &mut Sink,
    lockfiles: Option<&mpsc::Sender<LockfileJob>>,
) -> Vec<LanguageCount> {
    let mut languages: HashMap<&'static str, u64> = HashMap::new();
    let walker = WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|entry| !is_skipped_dir(entry))
        .build();
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                report_walk_error(root, sink, &err);
                continue;
            }
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        let rel = path.strip_prefix(root).unwrap_or(path);
        if let Some(language) = language_of(rel) {
            *languages.entry(language).or_default() += 1;
        }
        if let Some(package) = python_package(rel) {
            sink.own(Ecosystem::Pypi, package);
        }
        let Some(reader) = reader_for(rel) else {
            continue;
        };
        let job = (reader, path.to_path_buf(), rel.to_path_buf());
        // A lockfile goes to the lockfile thread; if that thread is gone, it is read here.
        let unsent = match lockfiles.filter(|_| reader.is_lockfile()) {
            Some(sender) => sender.send(job).err().map(|e| e.0),
            None => Some(job),
        };
        if let Some((reader, path, rel)) = unsent {
            read_file(sink, reader, &path, &rel);
        }
    }
    sorted_counts(languages)
}

impl Reader {
    /// Lockfiles only record versions, tools and diagnostics, so they can be read apart from
    /// the manifests (which share state: workspace inheritance, requirement includes).
    fn is_lockfile(self) -> bool {
        matches!(
            self,
            Reader::PackageLock
                | Reader::PnpmLock
                | Reader::YarnLock
                | Reader::BunLock
                | Reader::PipfileLock
                | Reader::PoetryLock
                | Reader::UvLock
                | Reader::CargoLock
                | Reader::ComposerLock
                | Reader::GemfileLock
        )
    }
}

fn is_skipped_dir(entry: &DirEntry) -> bool {
    entry.depth() > 0
        && entry.file_type().is_some_and(|t| t.is_dir())
        && entry
            .file_name()
            .to_str()
            .is_some_and(|name| SKIPPED_DIRS.contains(&name))
}

fn report_walk_error(root: &Path, sink: &mut Sink, err: &ignore::Error) {
    let path = match err {
        ignore::Error::WithPath { path, .. } => path.strip_prefix(root).unwrap_or(path),
        _ => Path::new(""),
    };
    sink.diagnostic(path, 1, 1, format!("cannot walk: {err}"));
}

fn sorted_counts(languages: HashMap<&'static str, u64>) -> Vec<LanguageCount> {
    let mut counts: Vec<LanguageCount> = languages
        .into_iter()
        .map(|(language, files)| LanguageCount {
            language: language.to_string(),
            files,
        })
        .collect();
    counts.sort_by(|a, b| {
        b.files
            .cmp(&a.files)
            .then_with(|| a.language.cmp(&b.language))
    });
    counts
}

/// The folder a Python package's `__init__.py` makes importable (`app/__init__.py` ->
/// `app`), or a top-level module (`manage.py` -> `manage`).
fn python_package(rel: &Path) -> Option<&str> {
    let name = rel.file_name()?.to_str()?;
    if name == "__init__.py" {
        return rel.parent()?.file_name()?.to_str();
    }
    let top_level = rel.parent().is_some_and(|p| p.as_os_str().is_empty());
    (top_level && name.ends_with(".py")).then(|| name.trim_end_matches(".py"))
}

/// The language of a source file, by extension.
fn language_of(rel: &Path) -> Option<&'static str> {
    let ext = rel.extension()?.to_str()?;
    Some(match ext {
        "rs" => "Rust",
        "py" | "pyi" => "Python",
        "js" | "mjs" | "cjs" | "jsx" => "JavaScript",
        "ts" | "mts" | "cts" | "tsx" => "TypeScript",
        "go" => "Go",
        "java" => "Java",
        "kt" | "kts" => "Kotlin",
        "scala" => "Scala",
        "groovy" | "gradle" => "Groovy",
        "rb" => "Ruby",
        "php" => "PHP",
        "cs" => "C#",
        "fs" => "F#",
        "c" | "h" => "C",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" => "C++",
        "swift" => "Swift",
        "m" | "mm" => "Objective-C",
        "dart" => "Dart",
        "ex" | "exs" => "Elixir",
        "erl" => "Erlang",
        "hs" => "Haskell",
        "lua" => "Lua",
        "r" | "R" => "R",
        "jl" => "Julia",
        "zig" => "Zig",
        "vue" => "Vue",
        "svelte" => "Svelte",
        "sh" | "bash" => "Shell",
        "sql" => "SQL",
        _ => return None,
    })
}

/// Chooses a reader from the file's name and place; `None` for files never opened.
fn reader_for(rel: &Path) -> Option<Reader> {
    let name = rel.file_name()?.to_str()?;
    let parent = rel.parent().and_then(Path::to_str).unwrap_or("");
    let reader = match name {
        "package.json" => Reader::PackageJson,
        "package-lock.json" | "npm-shrinkwrap.json" => Reader::PackageLock,
        "pnpm-lock.yaml" => Reader::PnpmLock,
        "yarn.lock" => Reader::YarnLock,
        "bun.lock" => Reader::BunLock,
        "pyproject.toml" => Reader::Pyproject,
        "setup.cfg" => Reader::SetupCfg,
        "Pipfile" => Reader::Pipfile,
        "Pipfile.lock" => Reader::PipfileLock,
        "poetry.lock" => Reader::PoetryLock,
        "uv.lock" => Reader::UvLock,
        "Cargo.toml" => Reader::CargoToml,
        "Cargo.lock" => Reader::CargoLock,
        "go.mod" => Reader::GoMod,
        "pom.xml" => Reader::Pom,
        "build.gradle" | "build.gradle.kts" => Reader::Gradle,
        "libs.versions.toml" => Reader::GradleCatalog,
        "Gemfile.lock" => Reader::GemfileLock,
        "importmap.rb" if Path::new(parent).ends_with("config") => Reader::Importmap,
        "test_helper.rb" if Path::new(parent).ends_with("test") => Reader::RubyTestHelper,
        "spec_helper.rb" | "rails_helper.rb" if Path::new(parent).ends_with("spec") => {
            Reader::RubyTestHelper
        }
        ".rspec" => Reader::RubyTestHelper,
        "composer.json" => Reader::ComposerJson,
        "composer.lock" => Reader::ComposerLock,
        "global.json" => Reader::GlobalJson,
        "Directory.Packages.props" => Reader::Csproj,
        ".nvmrc" | ".node-version" | ".python-version" | ".ruby-version" => Reader::RuntimeFile,
        ".tool-versions" => Reader::ToolVersions,
        "rust-toolchain" | "rust-toolchain.toml" => Reader::RustToolchain,
        "Dockerfile" | "Containerfile" => Reader::Dockerfile,
        _ => return reader_by_pattern(name, parent),
    };
    Some(reader)
}

fn reader_by_pattern(name: &str, parent: &str) -> Option<Reader> {
    // Most files in a repository are sources: rule them out before allocating.
    let maybe = [
        ".csproj",
        ".fsproj",
        ".yml",
        ".yaml",
        ".txt",
        ".dockerfile",
        "dockerfile.",
    ];
    let ascii_contains = |pattern: &str| {
        name.as_bytes()
            .windows(pattern.len())
            .any(|w| w.eq_ignore_ascii_case(pattern.as_bytes()))
    };
    if !maybe.iter().any(|p| ascii_contains(p)) {
        return None;
    }
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".csproj") || lower.ends_with(".fsproj") {
        return Some(Reader::Csproj);
    }
    if lower.starts_with("dockerfile.") || lower.ends_with(".dockerfile") {
        return Some(Reader::Dockerfile);
    }
    let is_yaml = lower.ends_with(".yml") || lower.ends_with(".yaml");
    if is_yaml && parent.replace('\\', "/").ends_with(".github/workflows") {
        return Some(Reader::Workflow);
    }
    let is_txt = lower.ends_with(".txt");
    let requirements_dir = Path::new(parent)
        .file_name()
        .is_some_and(|d| d == "requirements");
    if is_txt && (lower.starts_with("requirements") || requirements_dir) {
        return Some(Reader::Requirements);
    }
    None
}

fn read_file(sink: &mut Sink, reader: Reader, path: &Path, rel: &Path) {
    if !sink.first_read(rel) {
        return;
    }
    if reader == Reader::YarnLock {
        match File::open(path) {
            Ok(file) => npm::read_yarn_lock(sink, rel, BufReader::new(file)),
            Err(err) => sink.diagnostic(rel, 1, 1, format!("cannot read: {err}")),
        }
        return;
    }
    let limit = match reader {
        Reader::PackageLock | Reader::PipfileLock | Reader::ComposerLock | Reader::BunLock => {
            LOCK_LIMIT
        }
        Reader::PnpmLock | Reader::PoetryLock | Reader::UvLock | Reader::CargoLock => {
            TREE_LOCK_LIMIT
        }
        _ => MANIFEST_LIMIT,
    };
    let Some(text) = read_bounded(sink, path, rel, limit) else {
        return;
    };
    dispatch(sink, reader, rel, &text);
}

fn dispatch(sink: &mut Sink, reader: Reader, rel: &Path, text: &str) {
    match reader {
        Reader::PackageJson => npm::read_package_json(sink, rel, text),
        Reader::PackageLock => npm::read_package_lock(sink, rel, text),
        Reader::PnpmLock => npm::read_pnpm_lock(sink, rel, text),
        Reader::BunLock => npm::read_bun_lock(sink, rel, text),
        Reader::YarnLock => npm::read_yarn_lock(sink, rel, text.as_bytes()),
        Reader::Pyproject => python::read_pyproject(sink, rel, text),
        Reader::Requirements => python::read_requirements(sink, rel, text),
        Reader::SetupCfg => python::read_setup_cfg(sink, rel, text),
        Reader::Pipfile => python::read_pipfile(sink, rel, text),
        Reader::PipfileLock => python::read_pipfile_lock(sink, rel, text),
        Reader::PoetryLock | Reader::UvLock => python::read_package_lock_toml(sink, rel, text),
        Reader::CargoToml => rust::read_cargo_toml(sink, rel, text),
        Reader::CargoLock => rust::read_cargo_lock(sink, rel, text),
        Reader::GoMod => go::read_go_mod(sink, rel, text),
        Reader::Pom => jvm::read_pom(sink, rel, text),
        Reader::Gradle => jvm::read_gradle(sink, rel, text),
        Reader::GradleCatalog => jvm::read_version_catalog(sink, rel, text),
        Reader::GemfileLock => ruby::read_gemfile_lock(sink, rel, text),
        Reader::Importmap => ruby::read_importmap(sink, rel, text),
        Reader::RubyTestHelper => ruby::read_test_helper(sink, rel),
        Reader::ComposerJson => php::read_composer_json(sink, rel, text),
        Reader::ComposerLock => php::read_composer_lock(sink, rel, text),
        Reader::Csproj => dotnet::read_project_file(sink, rel, text),
        Reader::GlobalJson => dotnet::read_global_json(sink, rel, text),
        Reader::RuntimeFile => runtimes::read_version_file(sink, rel, text),
        Reader::ToolVersions => runtimes::read_tool_versions(sink, rel, text),
        Reader::RustToolchain => runtimes::read_rust_toolchain(sink, rel, text),
        Reader::Dockerfile => runtimes::read_dockerfile(sink, rel, text),
        Reader::Workflow => runtimes::read_workflow(sink, rel, text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVERY_READER: [Reader; 30] = [
        Reader::PackageJson,
        Reader::PackageLock,
        Reader::PnpmLock,
        Reader::YarnLock,
        Reader::BunLock,
        Reader::Pyproject,
        Reader::Requirements,
        Reader::SetupCfg,
        Reader::Pipfile,
        Reader::PipfileLock,
        Reader::PoetryLock,
        Reader::UvLock,
        Reader::CargoToml,
        Reader::CargoLock,
        Reader::GoMod,
        Reader::Pom,
        Reader::Gradle,
        Reader::GradleCatalog,
        Reader::GemfileLock,
        Reader::Importmap,
        Reader::RubyTestHelper,
        Reader::ComposerJson,
        Reader::ComposerLock,
        Reader::Csproj,
        Reader::GlobalJson,
        Reader::RuntimeFile,
        Reader::ToolVersions,
        Reader::RustToolchain,
        Reader::Dockerfile,
        Reader::Workflow,
    ];

    #[test]
    fn every_reader_survives_hostile_text() {
        let hostile = [
            "",
            "\u{feff}",
            "{",
            "}",
            "[",
            "\"",
            "'",
            "@",
            "\u{e9}@\u{e9}:",
            "(",
            ")",
            ":",
            "a:\n  - b: [",
            "<a><b></a>",
            "<PackageReference Include=\"\u{e9}\">",
            "FROM",
            "FROM \u{e9}:",
            "uses: @",
            "uses: \"\u{e9}",
            "require (\n\u{e9}",
            "replace => x",
            "-r",
            "-r \u{e9}/../../x",
            "GEM\n    \u{e9} (",
            "  version \"",
            "\"\u{e9}@\":\n  version \"1\"",
            "[[package]]\nname = 1",
            "${",
            "id(\"",
            "implementation \"a:b:${c}\"",
            "&amp;&#xZZ;",
            "x = { version.ref = \"nope\" }",
            "{\"packages\": {\"node_modules/\u{e9}\": {\"version\": 1}}}",
            "{\"packages\": {\"a\": [\"@\"]}}",
            "[tool.poetry.dependencies]\npython = 3",
        ];
        for reader in EVERY_READER {
            for text in hostile {
                let mut sink = Sink::new(Path::new("/nonexistent"));
                dispatch(&mut sink, reader, Path::new("dir/file"), text);
                let _ = sink.finish(Vec::new());
            }
        }
    }

    #[test]
    fn readers_are_chosen_by_name_and_place() {
        assert_eq!(
            reader_for(Path::new("a/package.json")),
            Some(Reader::PackageJson)
        );
        assert_eq!(
            reader_for(Path::new(".github/workflows/ci.yml")),
            Some(Reader::Workflow)
        );
        assert_eq!(reader_for(Path::new("ci.yml")), None);
        assert_eq!(
            reader_for(Path::new("requirements/dev.txt")),
            Some(Reader::Requirements)
        );
        assert_eq!(reader_for(Path::new("notes.txt")), None);
        assert_eq!(
            reader_for(Path::new("App/App.csproj")),
            Some(Reader::Csproj)
        );
    }
}

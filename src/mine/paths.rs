//! What a changed file is, from its path alone: a test, source, documentation, a dependency
//! manifest or lockfile, vendored or generated code, or something else.

/// The role of one changed path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// A test file of some ecosystem (`tests/`, `test_*.py`, `*_test.go`, `*.test.ts`, ...).
    Test,
    /// Source code.
    Source,
    /// Documentation (`*.md`, `docs/`, `LICENSE`, ...).
    Docs,
    /// A lockfile (`Cargo.lock`, `package-lock.json`, `go.sum`, ...).
    Lockfile,
    /// A dependency manifest (`Cargo.toml`, `package.json`, `pyproject.toml`, ...).
    Manifest,
    /// Vendored third-party code (`vendor/`, `node_modules/`, `third_party/`).
    Vendored,
    /// Generated code (`*.pb.go`, `*_pb2.py`, `*.min.js`, `generated/`).
    Generated,
    /// Anything else (configuration, CI, data).
    Other,
}

const LOCKFILES: &[&str] = &[
    "Cargo.lock",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
    "bun.lock",
    "poetry.lock",
    "Pipfile.lock",
    "uv.lock",
    "pdm.lock",
    "go.sum",
    "Gemfile.lock",
    "composer.lock",
    "gradle.lockfile",
    "packages.lock.json",
];

const MANIFESTS: &[&str] = &[
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "Pipfile",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    "Gemfile",
    "composer.json",
];

const SOURCE_EXTENSIONS: &[&str] = &[
    "py", "pyi", "rs", "go", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "java", "kt",
    "kts", "scala", "rb", "php", "c", "h", "cc", "cpp", "hpp", "cs", "swift", "m", "ex", "exs",
    "erl", "hs", "ml", "lua", "dart", "vue", "svelte", "sh",
];

const DOC_EXTENSIONS: &[&str] = &["md", "markdown", "rst", "adoc", "txt"];

const DOC_NAMES: &[&str] = &[
    "LICENSE",
    "LICENCE",
    "COPYING",
    "NOTICE",
    "AUTHORS",
    "CHANGELOG",
    "CHANGES",
    "HISTORY",
    "CONTRIBUTORS",
];

const VENDOR_DIRS: &[&str] = &[
    "vendor",
    "vendored",
    "node_modules",
    "third_party",
    "third-party",
    "3rdparty",
];

const TEST_DIRS: &[&str] = &["tests", "test", "__tests__", "testdata"];

/// Classifies one path (relative, `/`-separated).
pub fn classify(path: &str) -> FileKind {
    let parts: Vec<&str> = path.split('/').collect();
    let name = parts.last().copied().unwrap_or(path);
    let dirs = &parts[..parts.len().saturating_sub(1)];
    if LOCKFILES.contains(&name) {
        return FileKind::Lockfile;
    }
    if MANIFESTS.contains(&name) || is_requirements(name) {
        return FileKind::Manifest;
    }
    if dirs.iter().any(|d| VENDOR_DIRS.contains(d)) {
        return FileKind::Vendored;
    }
    if is_generated(name, dirs) {
        return FileKind::Generated;
    }
    if dirs.iter().any(|d| TEST_DIRS.contains(d)) || is_test_name(name) {
        return FileKind::Test;
    }
    let (stem, ext) = match name.rsplit_once('.') {
        Some((stem, ext)) => (stem, ext),
        None => (name, ""),
    };
    if dirs.first().is_some_and(|d| *d == "docs" || *d == "doc")
        || DOC_EXTENSIONS.contains(&ext)
        || DOC_NAMES.contains(&stem.to_ascii_uppercase().as_str())
    {
        return FileKind::Docs;
    }
    if SOURCE_EXTENSIONS.contains(&ext) {
        return FileKind::Source;
    }
    FileKind::Other
}

fn is_requirements(name: &str) -> bool {
    name.starts_with("requirements") && (name.ends_with(".txt") || name.ends_with(".in"))
}

fn is_generated(name: &str, dirs: &[&str]) -> bool {
    dirs.iter()
        .any(|d| *d == "generated" || *d == "__generated__")
        || name.ends_with(".pb.go")
        || name.ends_with("_pb2.py")
        || name.ends_with("_pb2_grpc.py")
        || name.ends_with(".min.js")
        || name.ends_with(".min.css")
        || name.contains(".generated.")
        || name.ends_with(".g.dart")
}

/// Whether a file name alone marks a test file in some ecosystem.
pub fn is_test_name(name: &str) -> bool {
    const JS: &[&str] = &["js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx"];
    if name == "conftest.py" {
        return true;
    }
    if let Some(stem) = name.strip_suffix(".py") {
        return stem.starts_with("test_") || stem.ends_with("_test");
    }
    if name.ends_with("_test.go") {
        return true;
    }
    if let Some((stem, ext)) = name.rsplit_once('.') {
        if JS.contains(&ext) && (stem.ends_with(".test") || stem.ends_with(".spec")) {
            return true;
        }
        if matches!(ext, "java" | "kt") && (stem.ends_with("Test") || stem.ends_with("Tests")) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_classified_per_ecosystem() {
        let cases = [
            ("tests/test_parse.py", FileKind::Test),
            ("pkg/util_test.py", FileKind::Test),
            ("pkg/util.py", FileKind::Source),
            ("tests/integration.rs", FileKind::Test),
            ("src/lib.rs", FileKind::Source),
            ("cmd/main_test.go", FileKind::Test),
            ("src/a.test.ts", FileKind::Test),
            ("src/a.spec.js", FileKind::Test),
            ("src/test/java/x/ParserTest.java", FileKind::Test),
            ("src/main/java/x/Parser.java", FileKind::Source),
            ("README.md", FileKind::Docs),
            ("docs/guide.html", FileKind::Docs),
            ("LICENSE", FileKind::Docs),
            ("Cargo.lock", FileKind::Lockfile),
            ("web/package-lock.json", FileKind::Lockfile),
            ("Cargo.toml", FileKind::Manifest),
            ("requirements-dev.txt", FileKind::Manifest),
            ("vendor/lib/x.go", FileKind::Vendored),
            ("api/x.pb.go", FileKind::Generated),
            ("static/app.min.js", FileKind::Generated),
            (".github/workflows/ci.yml", FileKind::Other),
            ("testing.py", FileKind::Source),
            ("contest.py", FileKind::Source),
        ];
        for (path, kind) in cases {
            assert_eq!(classify(path), kind, "{path}");
        }
    }
}

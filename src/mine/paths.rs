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

/// Folders of test-only support code: what they hold belongs to the tests, not the change.
const TEST_HELPER_DIRS: &[&str] = &[
    "testutil",
    "testutils",
    "test_utils",
    "test-utils",
    "testhelpers",
    "test_helpers",
    "testsupport",
    "test_support",
];

/// Rust file stems that hold tests or test-only support (`src/tests.rs` behind
/// `#[cfg(test)] mod tests;`, `src/test_utils.rs`).
const RUST_TEST_STEMS: &[&str] = &[
    "tests",
    "test",
    "test_utils",
    "test_util",
    "testutil",
    "testutils",
    "test_helpers",
    "test_support",
];

/// File extensions of code a test runner loads (the other files under a test folder are data).
const TEST_SOURCE_EXTENSIONS: &[&str] = &[
    "py", "rs", "go", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "java", "kt", "scala",
    "rb", "php", "c", "h", "cc", "cpp", "hpp", "cs", "swift", "ex", "exs", "erl", "hs", "ml",
    "lua", "dart", "sh", "bats",
];

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
    if dirs
        .iter()
        .any(|d| TEST_DIRS.contains(d) || TEST_HELPER_DIRS.contains(d))
        || is_test_name(name)
        || name
            .strip_suffix(".rs")
            .is_some_and(|stem| RUST_TEST_STEMS.contains(&stem))
    {
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

/// Whether a test file is code a runner loads (a test or its support code) rather than data
/// beside it (`tests/data/x.json`); `conftest.py` and `__init__.py` are loaded by the runner
/// itself and are not named.
pub fn is_test_source(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    if name == "conftest.py" || name == "__init__.py" {
        return false;
    }
    let in_data = path.split('/').any(|d| {
        matches!(
            d,
            "testdata" | "fixtures" | "data" | "snapshots" | "__snapshots__"
        )
    });
    !in_data
        && name
            .rsplit_once('.')
            .is_some_and(|(_, ext)| TEST_SOURCE_EXTENSIONS.contains(&ext))
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
            ("src/tests.rs", FileKind::Test),
            ("src/parse/tests.rs", FileKind::Test),
            ("src/test_utils.rs", FileKind::Test),
            ("src/testing.rs", FileKind::Source),
            ("internal/testutil/db.go", FileKind::Test),
            ("src/attest.rs", FileKind::Source),
        ];
        for (path, kind) in cases {
            assert_eq!(classify(path), kind, "{path}");
        }
    }

    #[test]
    fn test_sources_are_code_not_data() {
        for path in [
            "tests/test_a.py",
            "tests/helpers.py",
            "x/y_test.go",
            "tests/cli.rs",
        ] {
            assert!(is_test_source(path), "{path}");
        }
        for path in [
            "tests/data/x.json",
            "tests/fixtures/sample.py",
            "tests/conftest.py",
            "tests/__init__.py",
            "x/testdata/input.go",
            "tests/expected.txt",
        ] {
            assert!(!is_test_source(path), "{path}");
        }
    }
}

//! The test command of a mined task: detected per ecosystem from the repository's tools and
//! restricted to the commit's test files where the runner allows it.

use std::path::Path;

use crate::project::Project;

/// The repository's test runners, as far as mining needs them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Runners {
    /// Python tests run with pytest (else unittest).
    pub pytest: bool,
    /// The JavaScript package manager (`npm`, `pnpm`, `yarn`) when `package.json` has a test
    /// script that is not `node --test`; `None` runs `node --test FILE...`.
    pub node_script: Option<String>,
    /// `maven` or `gradle`, for Java and Kotlin tests.
    pub jvm: Option<String>,
    /// Whether the Gradle wrapper is checked in.
    pub gradle_wrapper: bool,
}

impl Runners {
    /// Reads the runners from a scanned project and the repository's files.
    pub fn detect(project: &Project, root: &Path) -> Runners {
        let tools = &project.tools;
        let has = |list: &[crate::project::Tool], name: &str| list.iter().any(|t| t.name == name);
        let pytest = has(&tools.test_runner, "pytest") || pytest_configured(root);
        let script = std::fs::read_to_string(root.join("package.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["scripts"]["test"].as_str().map(str::to_owned));
        let node_script = script.filter(|s| !s.contains("node --test")).map(|_| {
            ["pnpm", "yarn", "bun"]
                .into_iter()
                .find(|m| has(&tools.package_manager, m))
                .unwrap_or("npm")
                .to_owned()
        });
        let jvm = ["gradle", "maven"]
            .into_iter()
            .find(|t| has(&tools.build_tool, t))
            .map(str::to_owned);
        Runners {
            pytest,
            node_script,
            jvm,
            gradle_wrapper: root.join("gradlew").is_file(),
        }
    }

    /// Shell commands running the tests in `files` (path, contents at the commit), one per
    /// ecosystem present, or `None` when no file is a runnable test.
    pub fn commands(&self, files: &[(String, Vec<u8>)]) -> Option<Vec<String>> {
        let mut commands = Vec::new();
        let named = |f: &&(String, Vec<u8>)| file_name(&f.0).to_owned();
        let python: Vec<&(String, Vec<u8>)> = files
            .iter()
            .filter(|f| f.0.ends_with(".py") && runnable_python(&named(f)))
            .collect();
        if self.pytest || python.iter().any(|f| pytest_style(&f.1)) {
            if !python.is_empty() {
                let paths = python.iter().map(|f| &f.0);
                commands.push(format!("python3 -m pytest -q {}", quoted(paths)));
            }
        } else {
            // unittest imports each file as a module: a name that is not one (`test_x-cli.py`)
            // would run nothing.
            let modules: Vec<String> = python
                .iter()
                .filter_map(|f| unittest_module(&f.0))
                .collect();
            if !modules.is_empty() {
                commands.push(format!("python3 -m unittest {}", quoted(modules.iter())));
            }
        }
        let rust: Vec<String> = files.iter().filter_map(|f| rust_test(&f.0)).collect();
        if !rust.is_empty() {
            let targets: Vec<String> = rust.iter().map(|t| format!("--test {}", sh(t))).collect();
            commands.push(format!("cargo test --offline {}", targets.join(" ")));
        }
        // Test modules inside a crate's `src/` (`src/tests.rs`, `src/parse/tests/x.rs`): run
        // by the name of their module.
        let modules: Vec<String> = files
            .iter()
            .filter(|f| f.0.ends_with(".rs") && rust_test(&f.0).is_none())
            .filter(|f| f.0.split('/').any(|d| d == "src"))
            .filter(|f| String::from_utf8_lossy(&f.1).contains("#[test]"))
            .map(|f| format!("{}::", super::cfg_test::module_path(&f.0)))
            .filter(|m| m != "::")
            .collect();
        if !modules.is_empty() {
            commands.push(cargo_test_items(&modules));
        }
        let go: Vec<&(String, Vec<u8>)> =
            files.iter().filter(|f| f.0.ends_with("_test.go")).collect();
        if !go.is_empty() {
            commands.push(go_command(&go));
        }
        let js: Vec<&String> = files
            .iter()
            .filter(|f| is_js_test(&f.0))
            .map(|f| &f.0)
            .collect();
        if !js.is_empty() {
            commands.push(match self.node_script.as_deref() {
                Some("npm") | Some("bun") => {
                    let m = self.node_script.as_deref().unwrap_or("npm");
                    format!("{m} test -- {}", quoted(js.iter().copied()))
                }
                Some(manager) => format!("{manager} test {}", quoted(js.iter().copied())),
                None => format!("node --test {}", quoted(js.iter().copied())),
            });
        }
        let jvm: Vec<String> = files
            .iter()
            .filter(|f| f.0.ends_with("Test.java") || f.0.ends_with("Tests.java"))
            .chain(
                files
                    .iter()
                    .filter(|f| f.0.ends_with("Test.kt") || f.0.ends_with("Tests.kt")),
            )
            .map(|f| stem(&f.0).to_owned())
            .collect();
        if !jvm.is_empty() {
            commands.push(match self.jvm.as_deref() {
                Some("gradle") => {
                    let gradle = if self.gradle_wrapper {
                        "./gradlew"
                    } else {
                        "gradle"
                    };
                    let tests: Vec<String> =
                        jvm.iter().map(|t| format!("--tests {}", sh(t))).collect();
                    format!("{gradle} test --offline {}", tests.join(" "))
                }
                _ => format!("mvn -q -o test -Dtest={}", sh(&jvm.join(","))),
            });
        }
        (!commands.is_empty()).then_some(commands)
    }
}

/// `cargo test` over every package of the workspace, restricted by name to the tests of the
/// `#[cfg(test)]` items a commit changed (`parse::tests::`); an empty filter (an item at a
/// crate root that is neither a module nor a function) runs every test.
pub fn cargo_test_items(filters: &[String]) -> String {
    let mut command = "cargo test --offline --workspace".to_owned();
    if !filters.is_empty() && filters.iter().all(|f| !f.is_empty()) {
        command.push_str(" --");
        for filter in filters {
            command.push(' ');
            command.push_str(&sh(filter));
        }
    }
    command
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn stem(path: &str) -> &str {
    let name = file_name(path);
    name.split('.').next().unwrap_or(name)
}

/// Whether the repository configures pytest: a `conftest.py` anywhere, `pytest.ini`,
/// `pyproject.toml`'s `[tool.pytest...]`, `setup.cfg`'s `[tool:pytest]` or `tox.ini`'s
/// `[pytest]`.
pub fn pytest_configured(root: &Path) -> bool {
    let conftest = super::history::git(
        root,
        &[
            "ls-files",
            "-z",
            "--",
            ":(glob)**/conftest.py",
            "conftest.py",
        ],
    )
    .map(|out| !out.is_empty())
    .unwrap_or_else(|_| {
        ["conftest.py", "tests/conftest.py", "test/conftest.py"]
            .iter()
            .any(|p| root.join(p).is_file())
    });
    let section = |file: &str, header: &str| {
        std::fs::read_to_string(root.join(file))
            .is_ok_and(|text| text.lines().any(|l| l.trim().starts_with(header)))
    };
    conftest
        || ["pytest.ini", ".pytest.ini", "pytest.toml"]
            .iter()
            .any(|f| root.join(f).is_file())
        || section("pyproject.toml", "[tool.pytest")
        || section("setup.cfg", "[tool:pytest]")
        || section("tox.ini", "[pytest]")
}

/// Whether a Python test file is written for pytest: it imports pytest, or holds test
/// functions and no `unittest` test case (unittest would run none of them).
fn pytest_style(text: &[u8]) -> bool {
    let text = String::from_utf8_lossy(text);
    let imports = text.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("import pytest") || l.starts_with("from pytest")
    });
    let functions = text
        .lines()
        .any(|l| l.starts_with("def test") || l.starts_with("async def test"));
    imports || (functions && !text.contains("TestCase"))
}

/// The module `python3 -m unittest` imports for a test file (`tests/test_a.py` is
/// `tests.test_a`), or `None` when a part of its path is not a Python identifier.
fn unittest_module(path: &str) -> Option<String> {
    let parts: Vec<&str> = path.strip_suffix(".py")?.split('/').collect();
    let identifier = |p: &&str| {
        let mut chars = p.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    parts.iter().all(identifier).then(|| parts.join("."))
}

/// Python files a runner collects: `test*.py` (unittest's pattern) or `*_test.py`.
fn runnable_python(name: &str) -> bool {
    name.starts_with("test") || name.ends_with("_test.py")
}

/// `tests/NAME.rs` or `tests/NAME/main.rs` of a crate: the `--test` target NAME (a `tests`
/// folder inside `src/` is a module, not a target).
fn rust_test(path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split('/').collect();
    let at = parts.iter().rposition(|p| *p == "tests")?;
    if parts[..at].contains(&"src") {
        return None;
    }
    match &parts[at + 1..] {
        [file] => file.strip_suffix(".rs").map(str::to_owned),
        [dir, "main.rs"] => Some((*dir).to_owned()),
        _ => None,
    }
}

fn is_js_test(path: &str) -> bool {
    let name = file_name(path);
    super::paths::is_test_name(name)
        && !name.ends_with(".py")
        && !name.ends_with(".go")
        && !name.ends_with(".java")
        && !name.ends_with(".kt")
        || (path
            .split('/')
            .any(|d| d == "test" || d == "tests" || d == "__tests__")
            && [".js", ".mjs", ".cjs", ".ts", ".mts"]
                .iter()
                .any(|e| name.ends_with(e)))
}

/// `go test -v -run '^(TestA|TestB)$' ./pkg...` (verbose: a line per test, which is how
/// the passed tests are counted) over the packages and test functions of `files`.
fn go_command(files: &[&(String, Vec<u8>)]) -> String {
    let mut packages: Vec<String> = files
        .iter()
        .map(|f| match f.0.rsplit_once('/') {
            Some((dir, _)) => format!("./{dir}"),
            None => ".".to_owned(),
        })
        .collect();
    packages.sort();
    packages.dedup();
    let mut names: Vec<String> = files
        .iter()
        .flat_map(|f| go_tests(&String::from_utf8_lossy(&f.1)))
        .collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        return format!("go test -v {}", quoted(packages.iter()));
    }
    format!(
        "go test -v -run {} {}",
        sh(&format!("^({})$", names.join("|"))),
        quoted(packages.iter())
    )
}

/// The `func TestXxx(t *testing.T)` names of a Go test file.
fn go_tests(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("func Test"))
        .filter_map(|rest| {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            rest[name.len()..]
                .starts_with('(')
                .then(|| format!("Test{name}"))
        })
        .collect()
}

/// Single-quotes a word for `sh` when it needs it.
pub fn sh(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

fn quoted<S: AsRef<str>>(words: impl Iterator<Item = S>) -> String {
    words.map(|w| sh(w.as_ref())).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(paths: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
        paths
            .iter()
            .map(|(p, c)| ((*p).to_owned(), c.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn pytest_is_found_in_every_configuration_file() {
        let configs = [
            ("tests/conftest.py", "import pytest\n"),
            ("pytest.ini", "[pytest]\n"),
            (
                "pyproject.toml",
                "[project]\nname = 'x'\n\n[tool.pytest.ini_options]\naddopts = '-q'\n",
            ),
            (
                "setup.cfg",
                "[metadata]\nname = x\n\n[tool:pytest]\ntestpaths = tests\n",
            ),
            (
                "tox.ini",
                "[tox]\nenvlist = py3\n\n[pytest]\naddopts = -q\n",
            ),
        ];
        for (file, text) in configs {
            let tmp = tempfile::tempdir().unwrap();
            let path = tmp.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            assert!(pytest_configured(tmp.path()), "{file}");
        }
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("setup.cfg"), "[metadata]\nname = x\n").unwrap();
        std::fs::write(tmp.path().join("tox.ini"), "[tox]\nenvlist = py3\n").unwrap();
        assert!(!pytest_configured(tmp.path()));
    }

    #[test]
    fn commands_are_restricted_to_the_commit_tests() {
        let unittest = Runners::default();
        let got = unittest
            .commands(&files(&[
                ("tests/test_a.py", ""),
                ("tests/helpers.py", ""),
                ("tests/data/x.json", ""),
            ]))
            .unwrap();
        assert_eq!(got, ["python3 -m unittest tests.test_a"]);
        let pytest = Runners {
            pytest: true,
            ..Runners::default()
        };
        assert_eq!(
            pytest.commands(&files(&[("pkg/a_test.py", "")])).unwrap(),
            ["python3 -m pytest -q pkg/a_test.py"]
        );
        let got = unittest
            .commands(&files(&[
                ("tests/parse.rs", ""),
                ("tests/cli/main.rs", ""),
                ("tests/common/mod.rs", ""),
                ("x/y_test.go", "func TestY(t *testing.T) {}\nfunc TestZ_2(t *testing.T) {}\nfunc helper() {}\n"),
                ("test/a.test.js", ""),
            ]))
            .unwrap();
        assert_eq!(
            got,
            [
                "cargo test --offline --test parse --test cli",
                "go test -v -run '^(TestY|TestZ_2)$' ./x",
                "node --test test/a.test.js",
            ]
        );
        let npm = Runners {
            node_script: Some("npm".into()),
            jvm: Some("maven".into()),
            ..Runners::default()
        };
        assert_eq!(
            npm.commands(&files(&[
                ("src/a.spec.ts", ""),
                ("src/test/java/x/AbcTest.java", "")
            ]))
            .unwrap(),
            ["npm test -- src/a.spec.ts", "mvn -q -o test -Dtest=AbcTest"]
        );
        assert_eq!(unittest.commands(&files(&[("tests/data.json", "")])), None);
        // A module name unittest cannot import is left out; a pytest-style file runs with
        // pytest even where the repository uses unittest.
        assert_eq!(
            unittest.commands(&files(&[(
                "tests/test_x-cli.py",
                "import unittest\nclass T(unittest.TestCase): pass\n"
            )])),
            None
        );
        assert_eq!(
            unittest
                .commands(&files(&[(
                    "tests/test_stats.py",
                    "from stats import mean\n\ndef test_mean():\n    assert mean([1]) == 1\n"
                )]))
                .unwrap(),
            ["python3 -m pytest -q tests/test_stats.py"]
        );
        assert_eq!(
            unittest
                .commands(&files(&[
                    ("src/tests.rs", "#[test]\nfn a() {}\n"),
                    ("src/parse/tests/round.rs", "#[test]\nfn b() {}\n"),
                ]))
                .unwrap(),
            ["cargo test --offline --workspace -- tests:: parse::tests::round::"]
        );
        assert_eq!(
            cargo_test_items(&["calc::tests::".into(), "parse::round_trip".into()]),
            "cargo test --offline --workspace -- calc::tests:: parse::round_trip"
        );
        assert_eq!(
            cargo_test_items(&["calc::tests::".into(), String::new()]),
            "cargo test --offline --workspace"
        );
    }
}

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
        let pytest = has(&tools.test_runner, "pytest")
            || root.join("pytest.ini").is_file()
            || root.join("conftest.py").is_file();
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
        let python: Vec<&String> = files
            .iter()
            .filter(|f| f.0.ends_with(".py") && runnable_python(&named(f)))
            .map(|f| &f.0)
            .collect();
        if !python.is_empty() {
            commands.push(if self.pytest {
                format!("python3 -m pytest -q {}", quoted(python.iter().copied()))
            } else {
                let modules = python
                    .iter()
                    .map(|p| p.trim_end_matches(".py").replace('/', "."));
                format!("python3 -m unittest {}", quoted(modules))
            });
        }
        let rust: Vec<String> = files.iter().filter_map(|f| rust_test(&f.0)).collect();
        if !rust.is_empty() {
            let targets: Vec<String> = rust.iter().map(|t| format!("--test {}", sh(t))).collect();
            commands.push(format!("cargo test --offline {}", targets.join(" ")));
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

/// Python files a runner collects: `test*.py` (unittest's pattern) or `*_test.py`.
fn runnable_python(name: &str) -> bool {
    name.starts_with("test") || name.ends_with("_test.py")
}

/// `tests/NAME.rs` or `tests/NAME/main.rs` of a crate: the `--test` target NAME.
fn rust_test(path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split('/').collect();
    let at = parts.iter().rposition(|p| *p == "tests")?;
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

/// `go test -run '^(TestA|TestB)$' ./pkg...` over the packages and test functions of `files`.
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
        return format!("go test {}", quoted(packages.iter()));
    }
    format!(
        "go test -run {} {}",
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
                "go test -run '^(TestY|TestZ_2)$' ./x",
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

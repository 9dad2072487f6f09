//! The project scanner against the fixture repositories.

use std::fs;
use std::path::{Path, PathBuf};

use skillgate::project::{DepKind, Ecosystem, Project, RuntimeKind, ScanError, scan};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/repos")
        .join(name)
}

/// Scans a fixture with a root that does not depend on the checkout's location.
fn scan_fixture(name: &str) -> Project {
    let mut project = scan(&fixture(name)).expect("fixture root is a directory");
    project.root = PathBuf::from("fixtures/repos").join(name);
    project
}

/// The version the project uses, as `value@path:line`.
fn resolved(project: &Project, ecosystem: Ecosystem, name: &str) -> Option<String> {
    project.resolved_version(ecosystem, name).map(|l| {
        let path = l.path.to_string_lossy().replace('\\', "/");
        format!("{}@{path}:{}", l.value, l.line)
    })
}

/// The declared constraint of the first non-managed entry, as `value@path:line`.
fn declared(project: &Project, ecosystem: Ecosystem, name: &str) -> Option<String> {
    let dep = project
        .dependencies_named(ecosystem, name)
        .find(|d| d.kind != DepKind::Managed)?;
    dep.constraint.as_ref().map(|l| {
        let path = l.path.to_string_lossy().replace('\\', "/");
        format!("{}@{path}:{}", l.value, l.line)
    })
}

macro_rules! snapshot_fixture {
    ($test:ident, $fixture:literal) => {
        #[test]
        fn $test() {
            let project = scan_fixture($fixture);
            insta::assert_json_snapshot!($fixture, project);
        }
    };
}

snapshot_fixture!(snapshot_npm_pnpm_vite, "npm-pnpm-vite");
snapshot_fixture!(snapshot_npm_lock_express, "npm-lock-express");
snapshot_fixture!(snapshot_npm_lock_v1, "npm-lock-v1");
snapshot_fixture!(snapshot_npm_yarn_classic, "npm-yarn-classic");
snapshot_fixture!(snapshot_npm_yarn_berry, "npm-yarn-berry");
snapshot_fixture!(snapshot_npm_bun, "npm-bun");
snapshot_fixture!(snapshot_python_poetry, "python-poetry");
snapshot_fixture!(snapshot_python_uv, "python-uv");
snapshot_fixture!(snapshot_python_requirements, "python-requirements");
snapshot_fixture!(snapshot_python_pipenv, "python-pipenv");
snapshot_fixture!(snapshot_rust_workspace, "rust-workspace");
snapshot_fixture!(snapshot_go_service, "go-service");
snapshot_fixture!(snapshot_jvm_maven_spring, "jvm-maven-spring");
snapshot_fixture!(snapshot_jvm_gradle_kotlin, "jvm-gradle-kotlin");
snapshot_fixture!(snapshot_ruby_rails, "ruby-rails");
snapshot_fixture!(snapshot_php_laravel, "php-laravel");
snapshot_fixture!(snapshot_dotnet_web, "dotnet-web");
snapshot_fixture!(snapshot_runtimes_mixed, "runtimes-mixed");
snapshot_fixture!(snapshot_malformed_manifests, "malformed-manifests");

#[test]
fn lockfiles_resolve_declared_npm_dependencies() {
    let pnpm = scan_fixture("npm-pnpm-vite");
    assert_eq!(
        resolved(&pnpm, Ecosystem::Npm, "react").as_deref(),
        Some("18.2.0@pnpm-lock.yaml:14")
    );
    assert_eq!(
        resolved(&pnpm, Ecosystem::Npm, "@tanstack/react-query").as_deref(),
        Some("5.28.4@pnpm-lock.yaml:11")
    );
    assert_eq!(
        declared(&pnpm, Ecosystem::Npm, "react").as_deref(),
        Some("^18.2.0@package.json:16")
    );
    let lock = scan_fixture("npm-lock-express");
    assert_eq!(
        resolved(&lock, Ecosystem::Npm, "express").as_deref(),
        Some("4.18.2@package-lock.json:30")
    );
    // The hoisted debug, not the copy nested under express.
    assert_eq!(
        resolved(&lock, Ecosystem::Npm, "debug").as_deref(),
        Some("4.3.4@package-lock.json:43")
    );
    let v1 = scan_fixture("npm-lock-v1");
    assert_eq!(
        resolved(&v1, Ecosystem::Npm, "moment").as_deref(),
        Some("2.24.0@package-lock.json:29")
    );
    assert!(
        !v1.has_dependency(Ecosystem::Npm, "debug"),
        "nested v1 entries are not hoisted"
    );
    let yarn = scan_fixture("npm-yarn-classic");
    assert_eq!(
        resolved(&yarn, Ecosystem::Npm, "@babel/core").as_deref(),
        Some("7.23.2@yarn.lock:6")
    );
    let berry = scan_fixture("npm-yarn-berry");
    assert_eq!(
        resolved(&berry, Ecosystem::Npm, "vue").as_deref(),
        Some("3.4.21@yarn.lock:33")
    );
    assert!(!berry.has_dependency(Ecosystem::Npm, "admin-console"));
    let bun = scan_fixture("npm-bun");
    assert_eq!(
        resolved(&bun, Ecosystem::Npm, "bun-types").as_deref(),
        Some("1.1.17@bun.lock:16")
    );
}

#[test]
fn python_names_are_canonical_and_lockfiles_resolve() {
    let poetry = scan_fixture("python-poetry");
    assert!(poetry.has_dependency(Ecosystem::Pypi, "Django"));
    assert_eq!(
        resolved(&poetry, Ecosystem::Pypi, "django").as_deref(),
        Some("4.2.11@poetry.lock:19")
    );
    let uv = scan_fixture("python-uv");
    assert_eq!(
        resolved(&uv, Ecosystem::Pypi, "SQLAlchemy").as_deref(),
        Some("2.0.29@uv.lock:26")
    );
    assert!(
        !uv.has_dependency(Ecosystem::Pypi, "ingest"),
        "the project itself is no dependency"
    );
    let requirements = scan_fixture("python-requirements");
    assert_eq!(
        declared(&requirements, Ecosystem::Pypi, "sqlalchemy").as_deref(),
        Some("==1.4.52@requirements/base.txt:2")
    );
    let dev: Vec<&str> = requirements
        .dependencies
        .iter()
        .filter(|d| d.kind == DepKind::Dev)
        .map(|d| d.name.as_str())
        .collect();
    assert_eq!(dev, ["black", "pytest"]);
}

#[test]
fn workspace_inheritance_and_replacements() {
    let rust = scan_fixture("rust-workspace");
    let tokio = rust
        .dependencies_named(Ecosystem::Cargo, "tokio")
        .find(|d| d.kind == DepKind::Normal)
        .expect("server depends on tokio");
    let constraint = tokio
        .constraint
        .as_ref()
        .expect("inherited from the workspace");
    assert_eq!((constraint.value.as_str(), constraint.line), ("1.36", 10));
    assert_eq!(
        resolved(&rust, Ecosystem::Cargo, "axum").as_deref(),
        Some("0.7.5@Cargo.lock:13")
    );
    assert!(!rust.has_dependency(Ecosystem::Cargo, "ledger-server"));
    let go = scan_fixture("go-service");
    assert_eq!(
        resolved(&go, Ecosystem::Go, "google.golang.org/grpc").as_deref(),
        Some("v1.60.1@go.mod:20")
    );
}

#[test]
fn jvm_parents_placeholders_and_catalogs() {
    let maven = scan_fixture("jvm-maven-spring");
    assert_eq!(
        declared(
            &maven,
            Ecosystem::Maven,
            "org.springframework.boot:spring-boot-starter-parent"
        )
        .as_deref(),
        Some("2.7.18@pom.xml:10")
    );
    // Version from dependencyManagement, through a property: points at the property.
    assert_eq!(
        declared(&maven, Ecosystem::Maven, "org.mapstruct:mapstruct").as_deref(),
        Some("1.5.5.Final@pom.xml:20")
    );
    let gradle = scan_fixture("jvm-gradle-kotlin");
    assert_eq!(
        declared(
            &gradle,
            Ecosystem::Maven,
            "org.jetbrains.kotlinx:kotlinx-coroutines-reactor"
        )
        .as_deref(),
        Some("1.8.0@build.gradle.kts:12")
    );
    assert_eq!(
        resolved(
            &gradle,
            Ecosystem::Maven,
            "com.fasterxml.jackson.module:jackson-module-kotlin"
        )
        .as_deref(),
        Some("2.17.0@gradle/libs.versions.toml:2")
    );
}

#[test]
fn runtimes_answer_the_fit_questions() {
    use skillgate::project::version::{admits_below, runtime_ecosystem};
    let uv = scan_fixture("python-uv");
    let python = uv.runtime("python").expect("requires-python");
    assert_eq!(
        (python.kind, python.version.value.as_str()),
        (RuntimeKind::Range, ">=3.9")
    );
    let eco = runtime_ecosystem("python").expect("python has semantics");
    // A skill that needs Python 3.12 does not fit a project that supports 3.9.
    assert_eq!(admits_below(eco, &python.version.value, "3.12"), Some(true));
    let pnpm = scan_fixture("npm-pnpm-vite");
    let node = pnpm.runtime("node").expect("engines.node");
    assert_eq!(node.version.value, ">=18.18");
    assert_eq!(pnpm.runtimes_named("node").count(), 2);
    let mixed = scan_fixture("runtimes-mixed");
    assert_eq!(
        resolved(&mixed, Ecosystem::Actions, "actions/setup-node").as_deref(),
        Some("v3@.github/workflows/ci.yml:15")
    );
    assert!(
        !mixed.has_dependency(Ecosystem::Docker, "assets"),
        "a build stage is no image"
    );
}

/// The Java pins of a project, as `value@path:line`.
fn java_pins(project: &Project) -> Vec<String> {
    project
        .runtimes_named("java")
        .map(|r| {
            let path = r.version.path.to_string_lossy().replace('\\', "/");
            format!("{}@{path}:{}", r.version.value, r.version.line)
        })
        .collect()
}

/// Gradle builds give the Java release their sources are compiled for, read from look-alikes
/// of real build files (the forms, comments and distractors as written there, the rest
/// shortened):
/// - `gradle-java8`: ReactiveX/RxJava `build.gradle` at
///   028699976ade807189ef13a6d265a7c366ec5c5c, `sourceCompatibility = JavaVersion.VERSION_1_8`
///   twice, beside `ext.javaCompatibility` and a `releaseTag` variable;
/// - `gradle-java17`: spring-projects/spring-petclinic (Apache-2.0) `build.gradle` at
///   67643c4137eb75bfeb177b427f8459c471bdcbd8, `java { sourceCompatibility = JavaVersion.VERSION_17 }`;
/// - `gradle-release17`: spring-petclinic `build.gradle` at
///   fc1c7490edb484dddcf39d336422d308925c04a4, a Java 25 toolchain compiling with
///   `options.release = 17`: the release, not the toolchain, is the language level;
/// - `gradle-kts-release8`: signalfx/splunk-otel-java
///   `testing/agent-test-extension/build.gradle.kts` at
///   130c59f6cceba6ed09dbe5a219f63cb657794434, `options.release.set(8)`;
/// - `gradle-kotlin-toolchain`: Baeldung/kotlin-tutorials (MIT)
///   `gradle-kotlin-dsl/configure-jdk-version/build.gradle` at
///   43374ed91bfa3539cce6a312f8cdc1c148d28216, `jvmToolchain { languageVersion.set(..(11)) }`
///   among Kotlin `jvmTarget`s of 19 and 1.8;
/// - `gradle-kts-jvm-toolchain`: javidanjavadov/coffee-main `build.gradle.kts` at
///   621a728d9a4c88144338fd2b1eeccf1862a7a230, `kotlin { jvmToolchain(21) }`;
/// - `gradle-kts-computed`: JetBrains/ideavim (MIT) `build.gradle.kts` at
///   55f0ad9c5c826ebddb0df9f3c36e1cbb5b566ae5, every setting computed from `gradle.properties`
///   and `sourceCompatibility = 17` only in a comment: no release is read.
#[test]
fn gradle_builds_give_the_java_release() {
    for (fixture, expected) in [
        ("gradle-java8", vec!["8@build.gradle:22"]),
        ("gradle-java17", vec!["17@build.gradle:16"]),
        ("gradle-release17", vec!["17@build.gradle:28"]),
        ("gradle-kts-release8", vec!["8@build.gradle.kts:11"]),
        ("gradle-kotlin-toolchain", vec!["11@build.gradle:24"]),
        ("gradle-kts-jvm-toolchain", vec!["21@build.gradle.kts:20"]),
        ("gradle-kts-computed", vec![]),
    ] {
        let project = scan_fixture(fixture);
        assert_eq!(java_pins(&project), expected, "{fixture}");
    }
}

/// A convention plugin in `buildSrc/` or `build-logic/` builds the build itself: its
/// toolchain is not the project's release.
#[test]
fn build_logic_is_not_the_projects_java_release() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(root, "build.gradle", "sourceCompatibility = '1.8'\n");
    write(
        root,
        "buildSrc/build.gradle.kts",
        "kotlin { jvmToolchain(21) }\n",
    );
    write(
        root,
        "build-logic/convention/build.gradle.kts",
        "java { toolchain { languageVersion = JavaLanguageVersion.of(17) } }\n",
    );
    let project = scan(root).expect("scan");
    assert_eq!(java_pins(&project), ["8@build.gradle:1"]);
}

#[test]
fn tool_conventions_carry_evidence() {
    let pnpm = scan_fixture("npm-pnpm-vite");
    let manager = &pnpm.tools.package_manager[0];
    assert_eq!(manager.name, "pnpm");
    assert_eq!(manager.evidence[0].value, "packageManager: pnpm@9.1.0");
    assert_eq!(manager.evidence[0].line, 6);
    assert_eq!(pnpm.tools.test_runner[0].name, "vitest");
    let poetry = scan_fixture("python-poetry");
    assert_eq!(poetry.tools.package_manager[0].name, "poetry");
    assert_eq!(poetry.tools.test_runner[0].name, "pytest");
}

#[test]
fn malformed_manifests_become_diagnostics_and_the_scan_goes_on() {
    let project = scan_fixture("malformed-manifests");
    let found: Vec<(String, u32, u32)> = project
        .diagnostics
        .iter()
        .map(|d| {
            (
                d.path.to_string_lossy().replace('\\', "/"),
                d.line,
                d.column,
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (".github/workflows/ci.yml".to_string(), 6, 6),
            ("Cargo.toml".to_string(), 6, 49),
            ("pyproject.toml".to_string(), 7, 1),
            ("svc/pom.xml".to_string(), 5, 5),
            ("web/package.json".to_string(), 5, 12),
        ]
    );
    assert!(project.has_dependency(Ecosystem::Go, "golang.org/x/sync"));
}

#[test]
fn unusable_roots_are_errors() {
    let missing = scan(Path::new("/nonexistent/skillgate/repo"));
    assert!(matches!(missing, Err(ScanError::Root { .. })));
    let file = fixture("npm-bun").join("package.json");
    assert!(matches!(scan(&file), Err(ScanError::NotADirectory(_))));
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().expect("file has a parent")).expect("create dirs");
    fs::write(path, text).expect("write file");
}

#[test]
fn ignored_and_vendored_directories_are_not_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(root, ".gitignore", "generated/\n");
    write(
        root,
        "package.json",
        r#"{"dependencies": {"left-pad": "1.3.0"}}"#,
    );
    for skipped in [
        "generated",
        "node_modules/x",
        "vendor/y",
        "target/z",
        ".venv/lib",
        "dist",
    ] {
        write(
            root,
            &format!("{skipped}/package.json"),
            r#"{"dependencies": {"evil": "1"}}"#,
        );
        write(root, &format!("{skipped}/index.js"), "module.exports = 1;");
    }
    write(root, "src/index.js", "module.exports = 2;");
    let project = scan(root).expect("scan");
    let names: Vec<&str> = project
        .dependencies
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    assert_eq!(names, ["left-pad"]);
    assert_eq!(project.languages.len(), 1);
    assert_eq!(project.languages[0].files, 1);
}

#[test]
fn oversized_manifests_and_escaping_includes_are_reported() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    let huge = format!("{{\"description\": \"{}\"}}", "x".repeat(5 << 20));
    write(root, "package.json", &huge);
    write(
        root,
        "requirements.txt",
        "-r ../../etc/requirements.txt\nflask==3.0.0\n",
    );
    let project = scan(root).expect("scan");
    let messages: Vec<&str> = project
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(messages[0].starts_with("skipped: larger than"));
    assert!(messages[1].contains("outside the repository"));
    assert!(project.has_dependency(Ecosystem::Pypi, "Flask"));
}

/// pnpm 11's two-document lockfile (copied from pnpm's own output, see the fixture's
/// SOURCE.md): the project's document is read with the file's lines, the environment's
/// packages are pnpm's, and nothing is unreadable.
#[test]
fn a_pnpm_11_lockfile_of_two_documents_is_read_as_pnpm_writes_it() {
    let project = scan_fixture("npm-pnpm11");
    assert!(project.diagnostics.is_empty(), "{:?}", project.diagnostics);
    assert_eq!(
        resolved(&project, Ecosystem::Npm, "ms").as_deref(),
        Some("2.1.3@pnpm-lock.yaml:32")
    );
    assert_eq!(
        resolved(&project, Ecosystem::Npm, "semver").as_deref(),
        Some("7.7.4@pnpm-lock.yaml:35")
    );
    // An environment document naming pnpm itself adds no dependency of the project.
    let dir = super::support::tree(&[
        (
            "package.json",
            "{ \"name\": \"app\", \"dependencies\": { \"zod\": \"^3.23.0\" } }\n",
        ),
        (
            "pnpm-lock.yaml",
            "---\nlockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    packageManagerDependencies:\n      pnpm:\n        specifier: 11.0.3\n        version: 11.0.3\n\npackages:\n\n  pnpm@11.0.3:\n    resolution: {integrity: sha512-x}\n\n---\nlockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    dependencies:\n      zod:\n        specifier: ^3.23.0\n        version: 3.23.8\n\npackages:\n\n  zod@3.23.8:\n    resolution: {integrity: sha512-y}\n",
        ),
    ]);
    let project = scan(dir.path()).expect("temp dir is a directory");
    assert!(project.diagnostics.is_empty(), "{:?}", project.diagnostics);
    assert_eq!(
        resolved(&project, Ecosystem::Npm, "zod").as_deref(),
        Some("3.23.8@pnpm-lock.yaml:24")
    );
    assert!(
        project
            .dependencies_named(Ecosystem::Npm, "pnpm")
            .next()
            .is_none()
    );
}

//! SG407 end to end: skills that use APIs newer than the fixture repositories' versions,
//! the same skills against repositories new enough, and against constraints that admit a
//! new enough version.

use super::support::selected_review;

/// The SG407 findings for `skill` against `repo`, as a user reads them.
fn too_new(skill: &str, repo: &str) -> (usize, String) {
    let (review, out) = selected_review(skill, repo, "SG407");
    (review.findings.len(), out)
}

const REACT: &str = "fixtures/skills/too-new-react";
const PYTHON: &str = "fixtures/skills/too-new-python";
const GO: &str = "fixtures/skills/too-new-go";
const DJANGO: &str = "fixtures/skills/too-new-django";
const SPRING_BOOT: &str = "fixtures/skills/too-new-spring-boot";
const JAVA_SYNTAX: &str = "fixtures/skills/too-new-java-syntax";
const PYTHON_SYNTAX: &str = "fixtures/skills/too-new-python-syntax";
const OLD_NAMES: &str = "fixtures/skills/old-syntax-names";

/// React 19.2's `useEffectEvent` and `<Activity>` and Next.js 15.1's `after` against a
/// locked React 18.2 / Next.js 13.3 project: each use is found and names both versions.
/// `use` (React 19.0) is left alone, since Next.js's App Router bundles a React canary
/// that had it.
#[test]
fn react_and_next_additions_on_a_next_13_project() {
    let (n, text) = too_new(REACT, "fixtures/repos/next13-react18");
    assert!(n > 0, "nothing found:\n{text}");
    for needle in [
        "`react.useEffectEvent` is new in react 19.2.0, but the project uses react 18.2.0",
        "`react.Activity` is new in react 19.2.0",
        "`next/server.after` is new in next 15.1.0, but the project uses next 13.3.0",
    ] {
        assert!(text.contains(needle), "missing {needle:?}:\n{text}");
    }
    assert!(
        !text.contains("react.use "),
        "React 19.0 reported on Next.js:\n{text}"
    );
    insta::assert_snapshot!("next13-react18", text);
}

/// Without Next.js, React 19.0's `use` on a locked React 18.2 is reported too.
#[test]
fn react_19_use_on_a_plain_react_18_project() {
    let (_, text) = too_new(REACT, "fixtures/repos/npm-pnpm-vite");
    assert!(
        text.contains("`react.use` is new in react 19.0.0, but the project uses react 18.2.0"),
        "{text}"
    );
    insta::assert_snapshot!("npm-pnpm-vite-react18", text);
}

/// A project on React 19.2 and Next.js 15.3 has every API the skill uses.
#[test]
fn a_new_enough_project_is_silent() {
    let (n, text) = too_new(REACT, "fixtures/repos/next15-react19");
    assert_eq!(n, 0, "{text}");
}

/// `>=18` and `>=13.3` without a lockfile may resolve to React 19.2 and Next.js 15: the
/// project may have the APIs, so nothing is said.
#[test]
fn a_constraint_that_admits_a_new_enough_version_is_silent() {
    let (n, text) = too_new(REACT, "fixtures/repos/react-unlocked");
    assert_eq!(n, 0, "{text}");
}

/// Python 3.11 additions against `requires-python = ">=3.10"`: the project must keep
/// working on 3.10.
#[test]
fn python_311_additions_on_a_python_310_project() {
    let (n, text) = too_new(PYTHON, "fixtures/repos/python310");
    assert!(n > 0, "nothing found:\n{text}");
    for needle in [
        "`tomllib` is new in python 3.11, but the project supports python >=3.10",
        "`datetime.UTC` is new in python 3.11",
        "`typing.Self` is new in python 3.11",
    ] {
        assert!(text.contains(needle), "missing {needle:?}:\n{text}");
    }
    insta::assert_snapshot!("python310", text);
    let (n, text) = too_new(PYTHON, "fixtures/repos/python311");
    assert_eq!(n, 0, "{text}");
}

/// Go 1.21's `slices` and `log/slog` and Go 1.25's `WaitGroup.Go` against a `go 1.20`
/// module; a `go 1.22.0` module still lacks only `WaitGroup.Go`.
#[test]
fn go_additions_follow_the_go_directive() {
    let (n, text) = too_new(GO, "fixtures/repos/go120");
    assert!(n > 0, "nothing found:\n{text}");
    for needle in [
        "`slices` is new in go 1.21, but the project supports go 1.20",
        "`log/slog` is new in go 1.21",
        "a `.Go()` call is new in go 1.25",
    ] {
        assert!(text.contains(needle), "missing {needle:?}:\n{text}");
    }
    insta::assert_snapshot!("go120", text);
    let (_, text) = too_new(GO, "fixtures/repos/go122");
    assert!(!text.contains("`slices`"), "{text}");
    assert!(text.contains("a `.Go()` call is new in go 1.25"), "{text}");
}

/// From Next.js 15 on, the App Router's bundled React canary may be ahead of the project's
/// react 19.1, so React 19.2's additions are left alone there; on the same react without
/// Next.js they are reported.
#[test]
fn next_15_bundles_react_past_the_projects_own() {
    let (n, text) = too_new(REACT, "fixtures/repos/next15-react191");
    assert_eq!(n, 0, "{text}");
    let (_, text) = too_new(REACT, "fixtures/repos/vite-react191");
    assert!(
        text.contains(
            "`react.useEffectEvent` is new in react 19.2.0, but the project requires react 19.1.0"
        ),
        "{text}"
    );
}

/// Without a supported range, a runtime pin is compared: `.python-version` 3.10 lacks
/// 3.11's additions; a project that also runs `FROM python:3.12-slim` may be on a new
/// enough Python, so only a project whose every pin is older is told.
#[test]
fn runtime_pins_report_only_when_every_pin_is_older() {
    let (_, text) = too_new(PYTHON, "fixtures/repos/python-pin310");
    assert!(
        text.contains("`tomllib` is new in python 3.11, but the project pins python 3.10"),
        "{text}"
    );
    let (n, text) = too_new(PYTHON, "fixtures/repos/python-pins-mixed");
    assert_eq!(n, 0, "{text}");
}

/// Django 5.0's `GeneratedField` and 5.1's `login_not_required` against a project pinned to
/// Django 4.2: both are reported with the version that added them and the project's pin.
/// A project on Django 5.2 has both, so nothing is said.
#[test]
fn django_additions_follow_the_pinned_django() {
    let (n, text) = too_new(DJANGO, "fixtures/repos/django42");
    assert_eq!(n, 2, "{text}");
    for needle in [
        "`django.db.models.GeneratedField` is new in django 5.0.0, but the project requires django ==4.2.11 (requirements.txt:1)",
        "`django.contrib.auth.decorators.login_not_required` is new in django 5.1.0, but the project requires django ==4.2.11",
        "help: on django before 5.0.0: a model property",
    ] {
        assert!(text.contains(needle), "missing {needle:?}:\n{text}");
    }
    let (n, text) = too_new(DJANGO, "fixtures/repos/django52");
    assert_eq!(n, 0, "{text}");
}

/// Spring Boot 3.1's `@ImportTestcontainers` and 3.2's `@ConditionalOnThreading` against a
/// project whose parent is Spring Boot 3.0.13; a project on Spring Boot 3.5 is silent.
#[test]
fn spring_boot_additions_follow_the_parent_pom() {
    let (n, text) = too_new(SPRING_BOOT, "fixtures/repos/spring-boot30");
    assert_eq!(n, 2, "{text}");
    for needle in [
        "`org.springframework.boot.testcontainers.context.ImportTestcontainers` is new in org.springframework.boot:spring-boot 3.1.0, but the project requires org.springframework.boot:spring-boot 3.0.13 (pom.xml:10)",
        "`org.springframework.boot.autoconfigure.condition.ConditionalOnThreading` is new in org.springframework.boot:spring-boot 3.2.0",
    ] {
        assert!(text.contains(needle), "missing {needle:?}:\n{text}");
    }
    let (n, text) = too_new(SPRING_BOOT, "fixtures/repos/spring-boot35");
    assert_eq!(n, 0, "{text}");
}

/// A `record` (Java 16) and local `var` (Java 10) against a Maven project compiled for
/// Java 1.8: one finding per feature, the second `var` related to the first. A project
/// compiled for Java 17 has both.
#[test]
fn java_record_and_var_on_a_java_8_project() {
    let (n, text) = too_new(JAVA_SYNTAX, "fixtures/repos/java8-maven");
    assert_eq!(n, 2, "{text}");
    for needle in [
        "a `record` class is new in java 16, but the project pins java 8 (pom.xml:12)",
        "`var` for a local variable is new in java 10, but the project pins java 8",
        "help: on java before 16: a final class with private final fields",
        "used here too",
    ] {
        assert!(text.contains(needle), "missing {needle:?}:\n{text}");
    }
    insta::assert_snapshot!("java8-syntax", text);
    let (n, text) = too_new(JAVA_SYNTAX, "fixtures/repos/java17-maven");
    assert_eq!(n, 0, "{text}");
}

/// A `match` statement (Python 3.10) against `requires-python = ">=3.8"`; a project whose
/// floor is 3.10 is silent.
#[test]
fn python_match_on_a_python_38_project() {
    let (n, text) = too_new(PYTHON_SYNTAX, "fixtures/repos/python38");
    assert_eq!(n, 1, "{text}");
    assert!(
        text.contains(
            "a `match` statement is new in python 3.10, but the project supports python >=3.8 (pyproject.toml:4)"
        ),
        "{text}"
    );
    insta::assert_snapshot!("python38-syntax", text);
    let (n, text) = too_new(PYTHON_SYNTAX, "fixtures/repos/python310");
    assert_eq!(n, 0, "{text}");
}

/// `var` as a method name, `record` as a field, a classic switch and a plain `instanceof`
/// are Java 8 code; `match = re.match(...)` and `type(value)` are Python 3.8 code. The parse
/// tree decides, not the words.
#[test]
fn names_newer_syntax_reserves_are_not_newer_syntax() {
    for repo in ["fixtures/repos/java8-maven", "fixtures/repos/python38"] {
        let (n, text) = too_new(OLD_NAMES, repo);
        assert_eq!(n, 0, "{repo}:\n{text}");
    }
}

/// A skill written for Java 8 on a build that says `1.8`: the same release, as the JDK has
/// numbered it since 9. On a Java 17 build the skill's target is missed.
#[test]
fn java_1_8_is_java_8() {
    let skill = "fixtures/skills/java-8-orders";
    let (review, text) = selected_review(skill, "fixtures/repos/java8-maven", "SG403");
    assert!(review.findings.is_empty(), "{text}");
    let (review, text) = selected_review(skill, "fixtures/repos/java17-maven", "SG403");
    assert_eq!(review.findings.len(), 1, "{text}");
    assert!(
        text.contains("the skill needs java 8, but the project pins java 17 (pom.xml:12)"),
        "{text}"
    );
}

/// A record in a section for readers on Java 17 or later is advice for them, not for a Java 8
/// project; the same record in a section for every reader is found (see
/// `java_record_and_var_on_a_java_8_project`).
#[test]
fn syntax_in_a_section_for_newer_readers_is_not_the_projects() {
    let (n, text) = too_new(
        "fixtures/skills/java-17-section",
        "fixtures/repos/java8-maven",
    );
    assert_eq!(n, 0, "{text}");
}

/// A Gradle build's Java release counts as a Maven one's: the record and `var` skill is
/// told on a look-alike of RxJava's `build.gradle` (`sourceCompatibility =
/// JavaVersion.VERSION_1_8`, see `project::gradle_builds_give_the_java_release` for the
/// sources), and silent on spring-petclinic's `JavaVersion.VERSION_17`.
#[test]
fn java_record_on_a_gradle_java_8_project() {
    let (n, text) = too_new(JAVA_SYNTAX, "fixtures/repos/gradle-java8");
    assert_eq!(n, 2, "{text}");
    for needle in [
        "a `record` class is new in java 16, but the project pins java 8 (build.gradle:22)",
        "`var` for a local variable is new in java 10, but the project pins java 8 (build.gradle:22)",
    ] {
        assert!(text.contains(needle), "missing {needle:?}:\n{text}");
    }
    let (n, text) = too_new(JAVA_SYNTAX, "fixtures/repos/gradle-java17");
    assert_eq!(n, 0, "{text}");
}

/// `options.release = 17` is the language level even where the toolchain is Java 25, and
/// SG403 names the line.
#[test]
fn a_gradle_release_is_the_projects_java() {
    let skill = "fixtures/skills/java-8-orders";
    let (review, text) = selected_review(skill, "fixtures/repos/gradle-release17", "SG403");
    assert_eq!(review.findings.len(), 1, "{text}");
    assert!(
        text.contains("the skill needs java 8, but the project pins java 17 (build.gradle:28)"),
        "{text}"
    );
    let (review, text) = selected_review(skill, "fixtures/repos/gradle-java8", "SG403");
    assert!(review.findings.is_empty(), "{text}");
}

const JAVA_21_SYNTAX: &str = "fixtures/skills/too-new-java-21-syntax";
const LAMBDA_VAR: &str = "fixtures/skills/too-new-java-lambda-var";

/// Record patterns and pattern `case`s (Java 21) against a Java 17 build: one finding per
/// feature, the later uses related to the first. Java 17's sealed types and records are
/// fine there. A Gradle build compiling with `options.release = 17` on a Java 25 toolchain
/// is Java 17 too; a Java 21 build has both.
#[test]
fn java_21_patterns_on_a_java_17_project() {
    let (n, text) = too_new(JAVA_21_SYNTAX, "fixtures/repos/java17-maven");
    assert_eq!(n, 2, "{text}");
    for needle in [
        "a record pattern is new in java 21, but the project pins java 17 (pom.xml:12)",
        "a pattern in a `switch` case is new in java 21, but the project pins java 17 (pom.xml:12)",
        "help: on java before 21: a type pattern or a cast, then the record's accessors",
        "used here too",
    ] {
        assert!(text.contains(needle), "missing {needle:?}:\n{text}");
    }
    insta::assert_snapshot!("java17-java21-syntax", text);
    let (n, text) = too_new(JAVA_21_SYNTAX, "fixtures/repos/gradle-release17");
    assert_eq!(n, 2, "{text}");
    assert!(
        text.contains("the project pins java 17 (build.gradle:28)"),
        "{text}"
    );
    let (n, text) = too_new(JAVA_21_SYNTAX, "fixtures/repos/java21-maven");
    assert_eq!(n, 0, "{text}");
}

/// `var` lambda parameters (Java 11) against a Java 10 build; a Java 17 build has them.
#[test]
fn lambda_var_on_a_java_10_project() {
    let (n, text) = too_new(LAMBDA_VAR, "fixtures/repos/java10-maven");
    assert_eq!(n, 1, "{text}");
    assert!(
        text.contains(
            "`var` for a lambda parameter is new in java 11, but the project pins java 10 (pom.xml:12)"
        ),
        "{text}"
    );
    let (n, text) = too_new(LAMBDA_VAR, "fixtures/repos/java17-maven");
    assert_eq!(n, 0, "{text}");
}

/// Lambda parameters named `var`, constant `case` labels and plain `instanceof` are Java 8
/// code on every release, a Java 10 build included.
#[test]
fn lambda_parameters_named_var_are_not_newer_syntax() {
    for repo in ["fixtures/repos/java8-maven", "fixtures/repos/java10-maven"] {
        let (n, text) = too_new(OLD_NAMES, repo);
        assert_eq!(n, 0, "{repo}:\n{text}");
    }
}

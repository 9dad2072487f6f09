//! Tool conventions: the evidence readers recorded, completed from the dependencies.

use super::locate::at;
use super::{DepKind, Dependency, Ecosystem, Located, Tool, Tools};

/// Which tool convention a piece of evidence is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    PackageManager,
    TestRunner,
    BuildTool,
}

/// Test runners recognised by a dependency on them.
const TEST_DEPENDENCIES: &[(Ecosystem, &str, &str)] = &[
    (Ecosystem::Npm, "vitest", "vitest"),
    (Ecosystem::Npm, "jest", "jest"),
    (Ecosystem::Npm, "mocha", "mocha"),
    (Ecosystem::Npm, "ava", "ava"),
    (Ecosystem::Npm, "@playwright/test", "playwright"),
    (Ecosystem::Npm, "cypress", "cypress"),
    (Ecosystem::Pypi, "pytest", "pytest"),
    (
        Ecosystem::Maven,
        "org.junit.jupiter:junit-jupiter",
        "junit5",
    ),
    (
        Ecosystem::Maven,
        "org.junit.jupiter:junit-jupiter-api",
        "junit5",
    ),
    (Ecosystem::Maven, "junit:junit", "junit4"),
    (Ecosystem::Maven, "org.testng:testng", "testng"),
    (Ecosystem::Rubygems, "rspec", "rspec"),
    (Ecosystem::Rubygems, "minitest", "minitest"),
    (Ecosystem::Composer, "phpunit/phpunit", "phpunit"),
    (Ecosystem::Nuget, "xunit", "xunit"),
    (Ecosystem::Nuget, "nunit", "nunit"),
    (Ecosystem::Nuget, "mstest.testframework", "mstest"),
];

/// Build tools recognised by a dependency on them.
const BUILD_DEPENDENCIES: &[(Ecosystem, &str, &str)] = &[
    (Ecosystem::Npm, "vite", "vite"),
    (Ecosystem::Npm, "webpack", "webpack"),
    (Ecosystem::Npm, "rollup", "rollup"),
    (Ecosystem::Npm, "esbuild", "esbuild"),
    (Ecosystem::Npm, "parcel", "parcel"),
    (Ecosystem::Npm, "turbo", "turbo"),
    (Ecosystem::Npm, "tsup", "tsup"),
    (Ecosystem::Pypi, "hatchling", "hatchling"),
    (Ecosystem::Pypi, "setuptools", "setuptools"),
    (Ecosystem::Pypi, "poetry-core", "poetry"),
    (Ecosystem::Pypi, "maturin", "maturin"),
];

/// Fills `tools` from the readers' evidence, then from dependencies on known tools.
pub(crate) fn infer(
    dependencies: &[Dependency],
    evidence: Vec<(Role, String, Located<String>)>,
    tools: &mut Tools,
) {
    for (role, name, located) in evidence {
        add(tools, role, &name, located);
    }
    for dep in dependencies
        .iter()
        .filter(|d| d.kind != DepKind::Transitive)
    {
        let Some(declared) = &dep.constraint else {
            continue;
        };
        let roles = [
            (Role::TestRunner, TEST_DEPENDENCIES),
            (Role::BuildTool, BUILD_DEPENDENCIES),
        ];
        for (role, known) in roles {
            let found = known
                .iter()
                .find(|(e, n, _)| *e == dep.ecosystem && *n == dep.name);
            if let Some((_, _, tool)) = found {
                let what = format!("dependency {} {}", dep.name, declared.value);
                add(
                    tools,
                    role,
                    tool,
                    at(what, &declared.path, (declared.line, declared.column)),
                );
            }
        }
    }
}

fn add(tools: &mut Tools, role: Role, name: &str, evidence: Located<String>) {
    let list = match role {
        Role::PackageManager => &mut tools.package_manager,
        Role::TestRunner => &mut tools.test_runner,
        Role::BuildTool => &mut tools.build_tool,
    };
    match list.iter_mut().find(|t| t.name == name) {
        Some(tool) => {
            if !tool.evidence.contains(&evidence) {
                tool.evidence.push(evidence);
            }
        }
        None => list.push(Tool {
            name: name.to_string(),
            evidence: vec![evidence],
        }),
    }
}

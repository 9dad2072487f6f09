//! Claims made by code blocks: install commands, manifest entries, base images, actions
//! and their runtime inputs, and imports of packages.

use super::context::constraint_example;
use super::registry::imported_package;
use super::{AliasTable, Claim, Origin, Role, Subject, VersionReq};
use crate::project::Ecosystem;
use crate::project::version::{Dialect, Release, Requirement};
use crate::skill::code::{CodeFacts, Image, YamlPair};

/// Claims made by code blocks: installs, manifest entries, base images, actions, imports.
pub fn code_claims(facts: &[CodeFacts], aliases: &AliasTable) -> Vec<Claim> {
    let mut claims = Vec::new();
    for block in facts {
        claims.extend(block.installs.iter().map(|install| {
            let requirement = optional_req(
                install.constraint.as_deref(),
                install_dialect(install.manager),
            );
            // `uv add "django>=4.0,<5.0"` shows how to write a constraint, not what the
            // skill is written for.
            let role = if constraint_example(&requirement.written, &requirement.kind) {
                Role::Example
            } else {
                Role::Target
            };
            Claim {
                subject: Subject {
                    ecosystem: install.ecosystem,
                    package: install.package.clone(),
                },
                requirement,
                span: install.span,
                origin: Origin::Install,
                role,
                stated: false,
            }
        }));
        claims.extend(block.manifest_entries.iter().map(|entry| Claim {
            subject: Subject {
                ecosystem: entry.ecosystem,
                package: entry.package.clone(),
            },
            requirement: optional_req(
                entry.constraint.as_deref(),
                manifest_dialect(entry.ecosystem, &entry.package),
            ),
            span: entry.span,
            origin: Origin::Manifest,
            // A manifest snippet shows constraint syntax; the prose says what the skill is for.
            role: Role::Example,
            stated: false,
        }));
        claims.extend(block.images.iter().filter_map(image_claim));
        claims.extend(block.actions.iter().map(|action| Claim {
            subject: Subject {
                ecosystem: Ecosystem::Actions,
                package: action.action.to_ascii_lowercase(),
            },
            requirement: optional_req(
                action.reference.as_deref().filter(|r| is_version_ref(r)),
                Dialect::Series,
            ),
            span: action.span,
            origin: Origin::Actions,
            role: Role::Target,
            stated: false,
        }));
        claims.extend(block.yaml_pairs.iter().filter_map(setup_runtime_claim));
        claims.extend(import_claims(block, aliases));
    }
    claims
}

fn optional_req(constraint: Option<&str>, dialect: Dialect) -> VersionReq {
    constraint.map_or_else(VersionReq::any, |c| VersionReq::parse(c, dialect))
}

fn install_dialect(manager: &str) -> Dialect {
    match manager {
        "npm" | "pnpm" | "yarn" | "bun" | "poetry" => Dialect::Series,
        "cargo" => Dialect::Cargo,
        "dotnet" => Dialect::Minimum,
        _ => Dialect::Exact,
    }
}

/// `rust-version` is a minimum; every other entry reads as its ecosystem's manifests do.
fn manifest_dialect(ecosystem: Ecosystem, package: &str) -> Dialect {
    match (ecosystem, package) {
        (Ecosystem::Runtime, "rust") => Dialect::Minimum,
        _ => Dialect::of(ecosystem),
    }
}

/// `v4`, `v4.1.0`, `4`: a version, unlike a SHA or a branch name.
fn is_version_ref(reference: &str) -> bool {
    Release::parse(reference).is_some()
}

/// Inputs of the `actions/setup-*` actions that pin a runtime.
const SETUP_INPUTS: &[(&str, &str)] = &[
    ("node-version", "node"),
    ("python-version", "python"),
    ("java-version", "java"),
    ("go-version", "go"),
    ("ruby-version", "ruby"),
    ("dotnet-version", "dotnet"),
    ("php-version", "php"),
    ("bun-version", "bun"),
    ("deno-version", "deno"),
];

/// `node-version: 18` in a workflow claims Node 18; expressions (`${{ matrix.node }}`) and
/// aliases (`lts/*`) claim nothing.
fn setup_runtime_claim(pair: &YamlPair) -> Option<Claim> {
    let (_, runtime) = SETUP_INPUTS.iter().find(|(input, _)| *input == pair.key)?;
    let requirement = VersionReq::parse(&pair.value, Dialect::Series);
    if matches!(requirement.kind, Requirement::Any | Requirement::Unparsed) {
        return None;
    }
    let subject = Subject {
        ecosystem: Ecosystem::Runtime,
        package: (*runtime).to_owned(),
    };
    Some(Claim {
        subject,
        requirement,
        span: pair.span,
        origin: Origin::Actions,
        role: Role::Target,
        stated: false,
    })
}

/// Official images whose tag is the runtime's version.
const RUNTIME_IMAGES: &[(&str, &str)] = &[
    ("python", "python"),
    ("node", "node"),
    ("golang", "go"),
    ("rust", "rust"),
    ("openjdk", "java"),
    ("eclipse-temurin", "java"),
    ("amazoncorretto", "java"),
    ("ruby", "ruby"),
    ("php", "php"),
    ("mcr.microsoft.com/dotnet/sdk", "dotnet"),
    ("mcr.microsoft.com/dotnet/aspnet", "dotnet"),
    ("mcr.microsoft.com/dotnet/runtime", "dotnet"),
    ("oven/bun", "bun"),
    ("denoland/deno", "deno"),
];

/// `FROM python:3.12-slim` claims Python 3.12; images of other software claim nothing here.
fn image_claim(image: &Image) -> Option<Claim> {
    let name = image.name.strip_prefix("docker.io/").unwrap_or(&image.name);
    let name = name.strip_prefix("library/").unwrap_or(name);
    let (_, runtime) = RUNTIME_IMAGES
        .iter()
        .find(|(official, _)| *official == name)?;
    // The version is the tag's leading number: `3.12-slim`, `20-alpine`, `1.22.3-bookworm`.
    let version = image.tag.as_deref().map(|tag| {
        let end = tag
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(tag.len());
        tag[..end].trim_end_matches('.')
    });
    let requirement = match version.filter(|v| Release::parse(v).is_some()) {
        Some(version) => VersionReq::parse(version, Dialect::Series),
        None => VersionReq::any(),
    };
    let subject = Subject {
        ecosystem: Ecosystem::Runtime,
        package: (*runtime).to_owned(),
    };
    Some(Claim {
        subject,
        requirement,
        span: image.span,
        origin: Origin::Docker,
        role: Role::Target,
        stated: false,
    })
}

/// Imports of packages: the skill uses the package, at no stated version. The alias table
/// names the packages it knows; any other import is named by its registry's rules.
fn import_claims<'a>(
    block: &'a CodeFacts,
    aliases: &'a AliasTable,
) -> impl Iterator<Item = Claim> + 'a {
    block.imports.iter().filter_map(move |import| {
        let lang = block.lang?;
        let subject = match aliases.imported(lang, &import.module) {
            Some(subject) => subject.clone(),
            None => imported_package(lang, &import.module)?,
        };
        Some(Claim {
            subject,
            requirement: VersionReq::any(),
            span: import.span,
            origin: Origin::Import,
            role: Role::Target,
            stated: false,
        })
    })
}

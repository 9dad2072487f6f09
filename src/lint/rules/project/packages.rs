//! SG406: packages the skill uses that the project does not depend on.

use std::collections::HashSet;

use super::dependencies_for;
use crate::claims::Origin;
use crate::lint::{Context, Emitter};
use crate::project::Ecosystem;

/// Packages that are tools being set up, not dependencies of the project.
const TOOLING: &[&str] = &[
    "pip",
    "setuptools",
    "wheel",
    "uv",
    "poetry",
    "pipenv",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "corepack",
];

/// SG406: each package the skill installs or imports that the project does not name, once.
pub(super) fn undeclared_package(cx: &Context<'_>, out: &mut Emitter) {
    let Some(project) = cx.project else {
        return;
    };
    let ecosystems = project.ecosystems();
    let mut reported = HashSet::new();
    for claim in &cx.analysis().claims {
        let ecosystem = claim.subject.ecosystem;
        if !ecosystem.has_dependencies() {
            continue;
        }
        let package = claim.subject.package.as_str();
        let used = match claim.origin {
            Origin::Install => "installs",
            // Java imports name packages that starters pull in transitively; a missing
            // artifact says little, so only Maven installs and manifests count.
            Origin::Import if ecosystem != Ecosystem::Maven => "imports",
            _ => continue,
        };
        if !ecosystems.contains(&ecosystem)
            || TOOLING.contains(&package)
            || !dependencies_for(project, ecosystem, package).is_empty()
            || !reported.insert(claim.subject.clone())
        {
            continue;
        }
        out.report_at(
                cx.analysis().location(cx.skill, claim.span),
            format!(
                "the skill {used} {package}, which the project does not depend on ({})",
                ecosystem.as_str()
            ),
        )
        .help("make adding the dependency a decision: say why the skill needs it, or use what the project already has");
    }
}

//! SG406: packages the skill uses that the project does not depend on.

use std::collections::HashMap;

use crate::claims::{
    Claim, Origin, Role, Subject, go_module_key, npm_package, placeholder_package,
};
use crate::knowledge::stack;
use crate::lint::fit::{declared, own_package};
use crate::lint::{Context, Emitter};
use crate::project::{Ecosystem, Project, canonical_name};

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
    "pipx",
    "virtualenv",
    "build",
    "twine",
];

/// SG406: each package the skill installs or imports that the project does not name, once,
/// with the package's other places in `related`.
pub(super) fn undeclared_package(cx: &Context<'_>, out: &mut Emitter) {
    let Some(project) = cx.project else {
        return;
    };
    let ecosystems = project.ecosystems();
    // One finding per package: the first use, and the others as related places.
    let mut order: Vec<(Ecosystem, String)> = Vec::new();
    let mut uses: HashMap<(Ecosystem, String), Vec<(&Claim, &'static str)>> = HashMap::new();
    for claim in &cx.analysis().claims {
        let ecosystem = claim.subject.ecosystem;
        let Some(used) = verb(claim) else {
            continue;
        };
        if !ecosystems.contains(&ecosystem)
            || !undeclared(project, claim)
            || shown_as_own(cx, claim)
            || app_module(cx, claim)
        {
            continue;
        }
        let key = (ecosystem, package_key(claim));
        let entry = uses.entry(key.clone()).or_default();
        if entry.is_empty() {
            order.push(key);
        }
        entry.push((claim, used));
    }
    for key in order {
        let Some(places) = uses.get(&key) else {
            continue;
        };
        let Some(((claim, used), others)) = places.split_first() else {
            continue;
        };
        let ecosystem = key.0;
        let package = &claim.subject.package;
        let again = if others.is_empty() {
            String::new()
        } else {
            format!(" (in {} places)", others.len() + 1)
        };
        let finding = out.report_at(
            cx.analysis().location(cx.skill, claim.span),
            format!(
                "the skill {used} {package}{again}, which the project does not depend on ({})",
                ecosystem.as_str()
            ),
        );
        for (other, verb) in others {
            finding.related_at(
                cx.analysis().location(cx.skill, other.span),
                format!("{verb} {} here too", other.subject.package),
            );
        }
        finding.help(
            "make adding the dependency a decision: say why the skill needs it, or use what the \
             project already has",
        );
    }
}

/// What the skill does with the package, for claims SG406 reads.
fn verb(claim: &Claim) -> Option<&'static str> {
    let ecosystem = claim.subject.ecosystem;
    let package = claim.subject.package.as_str();
    if !ecosystem.has_dependencies() || TOOLING.contains(&package) || placeholder_package(package) {
        return None;
    }
    match claim.origin {
        // A constraint written to show its syntax (`uv add "django>=4.0,<5.0"`) or an
        // install in a section for another setup is not what the skill asks for.
        Origin::Install if claim.role != Role::Target => None,
        // A workspace package (`pnpm add @repo/ui --filter web`) is no registry package.
        Origin::Install if ecosystem == Ecosystem::Npm && npm_package(package).is_none() => None,
        Origin::Install => Some("installs"),
        // Java imports name packages that starters pull in transitively; a missing
        // artifact says little, so only Maven installs and manifests count.
        Origin::Import if ecosystem != Ecosystem::Maven => Some("imports"),
        _ => None,
    }
}

/// Whether neither the project's manifests and lockfiles nor its own code provide the
/// claim's package, nor a package the project declares that always installs it (Django
/// brings asgiref).
fn undeclared(project: &Project, claim: &Claim) -> bool {
    declared(project, &claim.subject).is_empty()
        && !own_package(project, &claim.subject)
        && !brought_by_declared(project, &claim.subject)
}

/// Whether a package the project declares installs `subject` with it.
fn brought_by_declared(project: &Project, subject: &Subject) -> bool {
    let table = stack();
    project
        .dependencies
        .iter()
        .filter(|d| d.ecosystem == subject.ecosystem)
        .any(|d| {
            table
                .required_by(d.ecosystem, &d.name)
                .any(|required| canonical_name(d.ecosystem, required) == subject.package)
        })
}

/// Modules of a Django project's own apps: `models`, `views`, `serializers` and the like.
const DJANGO_APP_MODULES: &[&str] = &[
    "models",
    "views",
    "serializers",
    "forms",
    "admin",
    "urls",
    "apps",
    "signals",
    "tasks",
    "services",
    "selectors",
    "permissions",
    "filters",
    "factories",
    "managers",
    "consumers",
    "api",
];

/// A Python import of an app of the example's own Django project (`from orders.models import
/// Order`, `from blog.views import …`) in a skill that imports Django: the example's code.
fn app_module(cx: &Context<'_>, claim: &Claim) -> bool {
    if claim.subject.ecosystem != Ecosystem::Pypi || claim.origin != Origin::Import {
        return false;
    }
    let analysis = cx.analysis();
    let django = analysis.claims.iter().any(|c| {
        c.origin == Origin::Import
            && c.subject.ecosystem == Ecosystem::Pypi
            && c.subject.package == "django"
    });
    if !django {
        return false;
    }
    let Some(statement) = analysis.text(cx.skill, claim.span) else {
        return false;
    };
    // `from orders.models import Order` or `import orders.models`: the module's dotted path.
    let module = statement
        .split_whitespace()
        .skip_while(|w| *w != "from" && *w != "import")
        .nth(1)
        .unwrap_or_default();
    let mut parts = module.split('.');
    let (Some(_root), Some(second)) = (parts.next(), parts.next()) else {
        return false;
    };
    DJANGO_APP_MODULES.contains(&second)
}

/// Go imports of one module's packages are one package to report.
fn package_key(claim: &Claim) -> String {
    match claim.subject.ecosystem {
        Ecosystem::Go => go_module_key(&claim.subject.package),
        _ => claim.subject.package.clone(),
    }
}

/// A Python import of a module the skill itself shows as a file or folder of its example
/// (`from billing import X` beside `billing.py`, `use_cases/` in a tree): the example's own code.
fn shown_as_own(cx: &Context<'_>, claim: &Claim) -> bool {
    if claim.subject.ecosystem != Ecosystem::Pypi || claim.origin != Origin::Import {
        return false;
    }
    // The import's root as written: the distribution name with PEP 503's `-` back to `_`.
    let root = claim.subject.package.replace('-', "_");
    let file = format!("{root}.py");
    let folder = format!("{root}/");
    let texts = std::iter::once(&cx.skill.source)
        .chain(cx.skill.files.iter().filter_map(|f| f.source.as_ref()))
        .map(|s| s.text.as_str());
    texts.into_iter().any(|text| {
        [&file, &folder].iter().any(|needle| {
            text.match_indices(needle.as_str()).any(|(at, _)| {
                // `billing.py`, not `test_billing.py`.
                !text[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            })
        })
    })
}

//! The project rules (SG4xx) end to end: fixture skills checked against the fixture
//! repositories, one that conflicts and one that agrees per repository, snapshotted.

use std::fmt::Write;
use std::path::Path;

use skillgate::lint::{self, Selection, Settings};
use skillgate::skill::Skill;

use super::support::selected_review;

/// The SG4xx findings and the fit line for `skill` against `repo`, as text.
fn review(skill: &str, repo: &str) -> (usize, String) {
    let (review, mut out) = selected_review(skill, repo, "SG4");
    if let Some(fit) = &review.fit {
        let _ = writeln!(out, "{}", fit.summary());
    }
    (review.findings.len(), out)
}

macro_rules! pair {
    ($test:ident, $repo:literal) => {
        #[test]
        fn $test() {
            let repo = concat!("fixtures/repos/", $repo);
            let (n, text) = review(concat!("fixtures/skills/", $repo, "-conflicts"), repo);
            assert!(n > 0, "the conflicting skill is clean:\n{text}");
            insta::assert_snapshot!(concat!($repo, "-conflicts"), text);
            let (n, text) = review(concat!("fixtures/skills/", $repo, "-agrees"), repo);
            assert_eq!(n, 0, "the agreeing skill has findings:\n{text}");
            insta::assert_snapshot!(concat!($repo, "-agrees"), text);
        }
    };
}

pair!(dotnet_web, "dotnet-web");
pair!(jvm_gradle_kotlin, "jvm-gradle-kotlin");
pair!(jvm_maven_spring, "jvm-maven-spring");
pair!(npm_bun, "npm-bun");
pair!(npm_lock_express, "npm-lock-express");
pair!(npm_lock_v1, "npm-lock-v1");
pair!(npm_pnpm_vite, "npm-pnpm-vite");
pair!(npm_yarn_berry, "npm-yarn-berry");
pair!(npm_yarn_classic, "npm-yarn-classic");
pair!(php_laravel, "php-laravel");
pair!(python_pipenv, "python-pipenv");
pair!(python_poetry, "python-poetry");
pair!(python_requirements, "python-requirements");
pair!(python_uv, "python-uv");
pair!(ruby_rails, "ruby-rails");
pair!(runtimes_mixed, "runtimes-mixed");
pair!(rust_workspace, "rust-workspace");
pair!(go_service, "go-service");

#[test]
fn react_upgrade_conflicts_with_the_react_19_webapp() {
    let (_, text) = review("skills/react-upgrade", "fixtures/repos/webapp");
    for expected in [
        "SG401 error the skill is written for react 17",
        "`react-dom.render` is removed",
        "react-dom/test-utils",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    insta::assert_snapshot!("webapp-react-upgrade", text);
}

#[test]
fn a_skill_written_for_the_webapp_is_clean() {
    let (n, text) = review("fixtures/skills/webapp-agrees", "fixtures/repos/webapp");
    assert_eq!(n, 0, "{text}");
    assert!(text.contains("fit: core"), "{text}");
    insta::assert_snapshot!("webapp-agrees", text);
}

#[test]
fn a_python_skill_is_off_stack_in_the_webapp() {
    let (_, text) = review(
        "fixtures/skills/python-poetry-agrees",
        "fixtures/repos/webapp",
    );
    assert!(text.contains("SG405 warning fit: off-stack"), "{text}");
    insta::assert_snapshot!("webapp-off-stack", text);
}

#[test]
fn malformed_manifests_are_info_findings_with_their_place() {
    let (_, text) = review(
        "fixtures/skills/go-service-agrees",
        "fixtures/repos/malformed-manifests",
    );
    assert!(text.contains(" SG400 info cannot read "), "{text}");
    insta::assert_snapshot!("malformed-manifests", text);
}

#[test]
fn without_a_repository_the_project_rules_are_silent() {
    let skill = Skill::load(Path::new("skills/react-upgrade")).expect("skill loads");
    let settings = Settings {
        selection: Selection {
            select: vec!["SG4".to_owned()],
            ignore: vec![],
        },
        ..Settings::default()
    };
    let review = lint::review(&skill, &settings, None);
    assert!(review.findings.is_empty());
    assert!(review.fit.is_none());
}

/// Findings of a one-file skill with `body` against `repo`.
fn review_text(body: &str, repo: &str) -> (usize, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let skill = dir.path().join("probe");
    std::fs::create_dir_all(&skill).expect("skill folder");
    let text = format!("---\nname: probe\ndescription: Probes. Use when probing.\n---\n{body}");
    std::fs::write(skill.join("SKILL.md"), text).expect("skill written");
    review(skill.to_str().expect("utf-8 temp path"), repo)
}

#[test]
fn a_runtime_claim_that_meets_any_pin_is_not_a_conflict() {
    // runtimes-mixed pins python 3.10 in one place and 3.12 in others.
    let (n, text) = review_text(
        "This skill needs Python 3.12.\n",
        "fixtures/repos/runtimes-mixed",
    );
    assert_eq!(n, 0, "{text}");
}

#[test]
fn a_ci_runtime_inside_the_supported_range_is_not_a_conflict() {
    let ci = "```yaml\nsteps:\n  - uses: actions/setup-node@v5\n    with:\n      node-version: NODE\n```\n";
    let (n, text) = review_text(&ci.replace("NODE", "22"), "fixtures/repos/webapp");
    assert_eq!(n, 0, "{text}");
    let (_, text) = review_text(&ci.replace("NODE", "18"), "fixtures/repos/webapp");
    assert!(
        text.contains("SG403 warning the skill needs node 18, but the project supports node >=20"),
        "{text}"
    );
}

#[test]
fn only_commands_count_as_tool_use() {
    let webapp = "fixtures/repos/webapp";
    for silent in [
        "Publishing with `npm` is out of scope.\n",
        "```console\n$ pnpm install\nnpm WARN deprecated inflight@1.0.6\n```\n",
        "```bash\n# npm install also works elsewhere\npnpm install\n```\n",
    ] {
        let (n, text) = review_text(silent, webapp);
        assert_eq!(n, 0, "{silent:?}: {text}");
    }
    let (_, text) = review_text("```console\n$ npm install\n```\n", webapp);
    assert!(
        text.contains(
            "SG404 warning the skill uses npm, but the project's package manager is pnpm"
        ),
        "{text}"
    );
    let (_, text) = review_text("Run `npm run build` first.\n", webapp);
    assert!(text.contains("SG404"), "{text}");
}

#[test]
fn only_what_the_skill_is_written_for_conflicts_and_once_per_range() {
    let (_, text) = review(
        "fixtures/skills/claims-in-context",
        "fixtures/repos/python-poetry",
    );
    let sg401: Vec<&str> = text.lines().filter(|l| l.contains(" SG401 ")).collect();
    // The description's Django 5.0 is the finding; the body's two are its related places.
    // The prohibition (Pydantic V2, Django 3.2), the facts (Django 5.1 requires Python, from
    // Django 4.0), the constraint example and the gated section are not.
    assert_eq!(
        sg401,
        [
            "fixtures/skills/claims-in-context/SKILL.md:3:21 SG401 error the skill is written for \
          django 5.0, but the project resolves django 4.2.11 (poetry.lock:19)"
        ],
        "{text}"
    );
    for place in [
        "related fixtures/skills/claims-in-context/SKILL.md:7 django 5.0 again",
        "related fixtures/skills/claims-in-context/SKILL.md:27 django 5.0 again",
    ] {
        assert!(text.contains(place), "missing {place:?} in:\n{text}");
    }
    assert!(!text.contains(" SG403 "), "{text}");
    insta::assert_snapshot!("claims-in-context", text);
}

#[test]
fn a_canary_in_the_pnpm_lock_is_its_release_line_and_an_unreadable_entry_falls_back() {
    let (_, text) = review(
        "fixtures/skills/npm-pnpm-canary-conflicts",
        "fixtures/repos/npm-pnpm-canary",
    );
    // next 13.3.2-canary.13 (with pnpm's peer suffix) is a Next.js 13.
    assert!(
        text.contains(
            "SG401 error the skill is written for next 14, but the project resolves \
             next 13.3.2-canary.13 (pnpm-lock.yaml:4)"
        ),
        "{text}"
    );
    // react's `18.2.x` is no version: SG400 names it, and package.json's ^18.2.0 agrees
    // with the skill's React 18.
    assert!(
        text.contains(
            "fixtures/repos/npm-pnpm-canary/pnpm-lock.yaml:7:3 SG400 info cannot read \
             pnpm-lock.yaml:7:3: the locked version `18.2.x` of react is not a version by npm's rules"
        ),
        "{text}"
    );
    assert!(!text.contains("written for react"), "{text}");
    insta::assert_snapshot!("npm-pnpm-canary-conflicts", text);
}

#[test]
fn project_rules_read_the_files_skill_md_names_and_point_at_them() {
    let (_, text) = review(
        "fixtures/skills/references-read",
        "fixtures/repos/python-uv",
    );
    let models = "fixtures/skills/references-read/references/models.md";
    for expected in [
        format!("{models}:3:32 SG401 error the skill is written for sqlalchemy 1.4"),
        format!("{models}:6:1 SG402 warning `sqlalchemy.ext.declarative.declarative_base`"),
        // The same renamed import again is one finding, with this place related.
        format!("related {models}:9 `sqlalchemy.ext.declarative.declarative_base` again"),
        format!("{models}:17:12 SG402 warning `.dict()` on a pydantic object"),
    ] {
        assert!(text.contains(&expected), "missing {expected:?} in:\n{text}");
    }
    // A file SKILL.md does not name is not read by the agent, nor by the rules.
    assert!(!text.contains("unlinked.md"), "{text}");
    assert!(!text.contains("sqlalchemy 1.3"), "{text}");
    insta::assert_snapshot!("references-read", text);
}

/// The SG4xx text for a one-file skill (`description`, `body`) against a repository made of
/// `files`.
fn review_in(description: &str, body: &str, files: &[(&str, &str)]) -> (usize, String) {
    let repo = super::support::tree(files);
    let dir = tempfile::tempdir().expect("temp dir");
    let skill = dir.path().join("probe");
    std::fs::create_dir_all(&skill).expect("skill folder");
    let text = format!("---\nname: probe\ndescription: {description}\n---\n{body}");
    std::fs::write(skill.join("SKILL.md"), text).expect("skill written");
    let (n, text) = review(
        skill.to_str().expect("utf-8 temp path"),
        repo.path().to_str().expect("utf-8 temp path"),
    );
    // Temporary paths differ per run; the snapshots show them relative.
    let text = text
        .replace(&format!("{}/", skill.display()), "")
        .replace(&format!("{}/", repo.path().display()), "repo/");
    (n, text)
}

const REACT_SKILL: &str = "Builds React components with hooks. Use when adding a component.";
const REACT_BODY: &str = "```tsx\nimport { useState } from 'react'\nimport { clsx } from 'clsx'\n```\n\nKeep React state local.\n";

/// A Rust workspace whose only npm folder (`docs/`) has no React.
const RUST_WITH_DOCS: &[(&str, &str)] = &[
    ("Cargo.toml", "[workspace]\nmembers = [\"crates/core\"]\n"),
    (
        "crates/core/Cargo.toml",
        "[package]\nname = \"core-lib\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde_json = \"1\"\n",
    ),
    ("crates/core/src/lib.rs", "pub fn f() {}\n"),
    (
        "docs/package.json",
        "{ \"name\": \"docs\", \"devDependencies\": { \"vitepress\": \"^1.0.0\" } }\n",
    ),
];

#[test]
fn the_main_package_decides_the_fit_per_package_not_per_ecosystem() {
    // The ecosystem (npm, in docs/) is there, React is not: the skill is about React, so it
    // is off-stack, and the evidence says where React was looked for.
    let (_, text) = review_in(REACT_SKILL, REACT_BODY, RUST_WITH_DOCS);
    assert!(
        text.contains("fit: off-stack (react: the skill's main package"),
        "{text}"
    );
    assert!(
        text.contains("project has no react in package.json (docs/)"),
        "{text}"
    );
    insta::assert_snapshot!("fit-react-in-rust-workspace", text);

    // React declared in a sub-folder's manifest: core, with the version and its place.
    let web = [(
        "web/package.json",
        "{ \"name\": \"web\", \"dependencies\": { \"react\": \"^18.2.0\" } }\n",
    )];
    let (_, text) = review_in(REACT_SKILL, REACT_BODY, &web);
    assert!(
        text.contains("fit: core (react: the skill's main package (named in the description, imports it once, names it 2 times); project has react ^18.2.0 in web/package.json"),
        "{text}"
    );

    // No npm at all: off-stack, and SG405 names the package.
    let (_, text) = review_in(REACT_SKILL, REACT_BODY, &RUST_WITH_DOCS[..3]);
    assert!(
        text.contains(
            "SG405 warning fit: off-stack: the skill is about react, the project uses cargo"
        ),
        "{text}"
    );
}

#[test]
fn a_skill_without_code_gets_its_fit_from_its_prose() {
    let description = "Writes Django views and forms. Use when adding a page.";
    let body = "Django class-based views keep the handlers short. Prefer Django forms.\n";
    let django = [("requirements.txt", "django==5.1.4\n")];
    let (_, text) = review_in(description, body, &django);
    assert!(text.contains("fit: core (django: the skill's main package (named in the description, names it 3 times); project has django ==5.1.4 in requirements.txt"), "{text}");
    // Django named in the description and absent: the skill is about another framework.
    let flask = [("requirements.txt", "flask==3.0.0\n")];
    let (_, text) = review_in(description, body, &flask);
    assert!(text.contains("fit: off-stack (django:"), "{text}");
}

#[test]
fn the_description_names_the_main_package_before_the_most_used_one() {
    // lodash is imported three times, but the description says the skill is about React.
    let body = "```tsx\nimport a from 'lodash'\nimport b from 'lodash/get'\nimport c from 'lodash/set'\nimport { useState } from 'react'\n```\n";
    let web = [(
        "package.json",
        "{ \"name\": \"web\", \"dependencies\": { \"lodash\": \"^4.17.21\" } }\n",
    )];
    let (_, text) = review_in(REACT_SKILL, body, &web);
    assert!(
        text.contains("fit: off-stack (react: the skill's main package"),
        "{text}"
    );
    assert!(text.contains("also uses lodash (in the project)"), "{text}");
    // Without a package in the description the most used one is the main package.
    let (_, text) = review_in("Writes helpers. Use when adding a helper.", body, &web);
    assert!(
        text.contains("fit: core (lodash: the skill's main package"),
        "{text}"
    );
}

#[test]
fn undeclared_imports_and_installs_of_any_package_are_reported_once_each() {
    let body = "Run `pnpm add -D vitest` first.\n\n```tsx\nimport axios from 'axios'\nimport useSWR from 'swr'\nimport { useQuery } from '@tanstack/react-query'\nimport { ReactQueryDevtools } from '@tanstack/react-query-devtools/production'\nimport { render, screen } from '@testing-library/react'\nimport userEvent from '@testing-library/user-event'\nimport { useState } from 'react'\nimport { Button } from './Button'\nimport { cn } from '@/lib/utils'\nimport fs from 'node:fs'\nimport path from 'path'\n```\n\n```tsx\nimport axios from 'axios'\n```\n";
    let web = [(
        "package.json",
        "{ \"name\": \"web\", \"packageManager\": \"pnpm@9.12.0\", \"dependencies\": { \"react\": \"^19.0.0\" } }\n",
    )];
    let (_, text) = review_in(REACT_SKILL, body, &web);
    let sg406: Vec<&str> = text.lines().filter(|l| l.contains(" SG406 ")).collect();
    let packages: Vec<&str> = sg406
        .iter()
        .filter_map(|l| l.split("the skill ").nth(1)?.split([',', ' ']).nth(1))
        .collect();
    assert_eq!(
        packages,
        [
            "vitest",
            "axios",
            "swr",
            "@tanstack/react-query",
            "@tanstack/react-query-devtools",
            "@testing-library/react",
            "@testing-library/user-event",
        ],
        "{text}"
    );
    assert!(text.contains("imports axios (in 2 places)"), "{text}");
    assert!(
        text.contains("    related SKILL.md:22 imports axios here too"),
        "{text}"
    );
    insta::assert_snapshot!("sg406-npm", text);
}

#[test]
fn python_imports_are_read_as_distributions_and_the_project_s_own_packages_are_declared() {
    let description = "Loads settings files. Use when reading configuration.";
    let body = "```python\nimport os\nimport json\nimport asyncio\nfrom typing import Any\nimport yaml\nfrom PIL import Image\nimport sklearn.linear_model\nfrom bs4 import BeautifulSoup\nimport requests\nfrom billingcore.plans import Plan\nfrom . import local\n```\n";
    let repo = [
        (
            "requirements.txt",
            "PyYAML==6.0.2\nPillow==11.0.0\nbeautifulsoup4==4.12.3\n",
        ),
        ("billingcore/__init__.py", ""),
        ("billingcore/plans.py", "class Plan: ...\n"),
    ];
    let (_, text) = review_in(description, body, &repo);
    let sg406: Vec<&str> = text.lines().filter(|l| l.contains(" SG406 ")).collect();
    assert_eq!(sg406.len(), 2, "{text}");
    assert!(text.contains("imports scikit-learn, which"), "{text}");
    assert!(text.contains("imports requests, which"), "{text}");
}

#[test]
fn go_imports_are_declared_by_a_require_prefix_and_crates_by_either_spelling() {
    let go = [
        (
            "go.mod",
            "module gitlab.com/team/svc\n\ngo 1.22\n\nrequire github.com/gin-gonic/gin v1.10.0\n",
        ),
        ("main.go", "package main\n"),
    ];
    let body = "```go\nimport (\n\t\"fmt\"\n\t\"net/http\"\n\t\"github.com/gin-gonic/gin\"\n\t\"github.com/gin-gonic/gin/binding\"\n\t\"gitlab.com/team/svc/internal/db\"\n\t\"github.com/spf13/cobra\"\n\t\"github.com/yourorg/yourapp/pkg\"\n)\n```\n";
    let (_, text) = review_in("Writes Gin handlers. Use when adding a route.", body, &go);
    let sg406: Vec<&str> = text.lines().filter(|l| l.contains(" SG406 ")).collect();
    assert_eq!(sg406.len(), 1, "{text}");
    assert!(
        text.contains("imports github.com/spf13/cobra, which"),
        "{text}"
    );

    let body = "```rust\nuse std::fmt;\nuse serde_json::Value;\nuse core_lib::f;\nuse crate::config;\nuse tokio::sync::Mutex;\n```\n";
    let (_, text) = review_in(
        "Writes async Rust. Use when adding a task.",
        body,
        RUST_WITH_DOCS,
    );
    let sg406: Vec<&str> = text.lines().filter(|l| l.contains(" SG406 ")).collect();
    assert_eq!(sg406.len(), 1, "{text}");
    assert!(text.contains("imports tokio, which"), "{text}");
}

#[test]
fn installs_in_every_installer_and_in_inline_code_are_read() {
    let body = "Add it with `pip install httpx` or `uv add httpx`.\n\n```bash\npoetry add rich\ncargo add anyhow\nyarn add zod\nbun add hono\nnpm i -g vercel\nuv add \"flask>=2.0,<3.0\"\n```\n";
    let repo = [
        ("requirements.txt", "django==5.1.4\n"),
        (
            "package.json",
            "{ \"name\": \"web\", \"dependencies\": { \"react\": \"^19.0.0\" } }\n",
        ),
        (
            "Cargo.toml",
            "[package]\nname = \"tool\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde = \"1\"\n",
        ),
    ];
    let (_, text) = review_in(
        "Adds dependencies. Use when a package is missing.",
        body,
        &repo,
    );
    for expected in [
        "installs httpx (in 2 places)",
        "installs rich,",
        "installs anyhow,",
        "installs zod,",
        "installs hono,",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    // A global tool and a constraint shown as syntax are not dependencies of the project.
    let sg406: Vec<&str> = text.lines().filter(|l| l.contains(" SG406 ")).collect();
    assert_eq!(sg406.len(), 5, "{text}");
    assert!(
        !sg406
            .iter()
            .any(|l| l.contains("vercel") || l.contains("flask")),
        "{text}"
    );
}

#[test]
fn a_skill_whose_examples_cover_the_project_s_ecosystem_is_not_off_stack() {
    // The Python package is used most, but the Go example meets the project's Go.
    let body = "```python\nfrom opentelemetry import trace\nfrom opentelemetry import metrics\nfrom opentelemetry.sdk import resources\n```\n\n```go\nimport \"fmt\"\n```\n";
    let go = [
        (
            "go.mod",
            "module gitlab.com/team/svc\n\ngo 1.22\n\nrequire github.com/gin-gonic/gin v1.10.0\n",
        ),
        ("main.go", "package main\n"),
    ];
    let (_, text) = review_in("Adds tracing. Use when instrumenting a service.", body, &go);
    assert!(
        text.contains("fit: partial (opentelemetry: the skill's main package"),
        "{text}"
    );
    assert!(!text.contains("SG405"), "{text}");
}

#[test]
fn example_code_alone_in_another_language_leaves_the_fit_unknown() {
    // A debugging method shown in TypeScript, checked against a Rust workspace.
    let body = "Reproduce first, then bisect.\n\n```ts\nconst value = compute(input);\nconsole.log(value);\n```\n";
    let (_, text) = review_in(
        "Debugs failures. Use when a test fails.",
        body,
        &RUST_WITH_DOCS[..3],
    );
    assert!(!text.contains("SG405"), "{text}");
    assert!(
        text.contains("fit: unknown (the skill is about no package; npm: skill uses TypeScript code; not in the project"),
        "{text}"
    );
}

#[test]
fn constraint_syntax_in_a_tutorial_and_a_compatibility_note_claim_nothing() {
    // python-poetry resolves django 4.2.11, outside the range the tutorial writes.
    let tutorial = "Write a range with both ends:\n\n```bash\nuv add \"django>=5.0,<6.0\"\n```\n";
    let (_, text) = review_text(tutorial, "fixtures/repos/python-poetry");
    assert!(!text.contains(" SG401 "), "{text}");
    let (_, text) = review_text(
        "This skill targets Django 5.0.\n",
        "fixtures/repos/python-poetry",
    );
    assert!(
        text.contains(" SG401 "),
        "the control claim must conflict: {text}"
    );

    // npm-pnpm-canary declares react ^18.2.0.
    let note = "React 19 requires v16.1.0+ of the plugin.\n";
    let (_, text) = review_text(note, "fixtures/repos/npm-pnpm-canary");
    assert!(!text.contains("written for react"), "{text}");
    let (_, text) = review_text(
        "This skill targets React 19.\n",
        "fixtures/repos/npm-pnpm-canary",
    );
    assert!(
        text.contains("written for react 19"),
        "the control claim must conflict: {text}"
    );
}

/// A Rails 7.2 application with its Ruby pinned.
const RAILS_72: &[(&str, &str)] = &[
    (
        "Gemfile.lock",
        "GEM\n  remote: https://rubygems.org/\n  specs:\n    rails (7.2.2.1)\n\nDEPENDENCIES\n  rails (~> 7.2)\n",
    ),
    (".ruby-version", "3.4.4\n"),
    ("app/models/user.rb", "class User\nend\n"),
];

/// A Next.js application on `next` at `version`.
fn next_app(version: &str) -> Vec<(&'static str, String)> {
    vec![(
        "package.json",
        format!(
            "{{ \"name\": \"web\", \"dependencies\": {{ \"next\": \"{version}\", \"react\": \"^19.0.0\" }} }}\n"
        ),
    )]
}

fn owned<'a>(files: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    files.iter().map(|(p, t)| (*p, t.as_str())).collect()
}

#[test]
fn versions_that_are_not_the_skill_s_target_or_floor_are_silent() {
    let next16 = next_app("16.0.1");
    let next14 = next_app("14.2.3");
    let django52 = [
        ("requirements.txt", "django==5.2.17\npydantic==2.11.0\n"),
        ("app/views.py", "from django.http import HttpResponse\n"),
    ];
    let python = [(
        "pyproject.toml",
        "[project]\nname = \"app\"\nrequires-python = \">=3.10\"\ndependencies = [\"pydantic>=2\"]\n",
    )];
    let java17 = [(
        "pom.xml",
        "<project><properties><java.version>17</java.version></properties></project>\n",
    )];
    // (shape, description, body, the project's files)
    type Case<'a> = (&'a str, &'a str, &'a str, Vec<(&'a str, &'a str)>);
    let cases: Vec<Case<'_>> = vec![
        (
            "upgrade destination",
            "Upgrades Rails applications to the next release. Use when bumping Rails.",
            "Move the app to Rails 8.1 one step at a time.\n\nRails 8 changes the asset pipeline.\n",
            RAILS_72.to_vec(),
        ),
        (
            "branch of a version list",
            "Writes Next.js middleware. Use when adding request guards.",
            "- Next.js 16+: name the file `proxy.ts`.\n- **Next.js 15**: keep `middleware.ts`.\n",
            owned(&next14),
        ),
        (
            "floor and keyword list",
            "Next.js 14+ App Router patterns. Use when adding routes.",
            "Triggers on: Next.js 14, App Router, server components.\n\nThis skill is for Next.js 14+ projects.\n",
            owned(&next16),
        ),
        (
            "recommendation and gate",
            "Writes Spring services. Use when adding a service.",
            "Java 25 recommended for new services.\n\nOn Java 21+, use virtual threads.\n",
            java17.to_vec(),
        ),
        (
            "minor and patch within the series",
            "Writes Django views. Use when adding a page.",
            "This skill targets Django 5.0.\n",
            django52.to_vec(),
        ),
        (
            "runtime patch within the line",
            "Writes Rails models. Use when adding a model.",
            "This skill needs Ruby 3.4.1.\n",
            RAILS_72.to_vec(),
        ),
        (
            "prohibition",
            "Writes pydantic models. Use when adding a schema.",
            "- MUST NOT use Pydantic V1 syntax.\n",
            django52.to_vec(),
        ),
        (
            "conditional note",
            "Writes typed Python. Use when adding annotations.",
            "Note: in Python >= 3.14 annotations are evaluated lazily.\n",
            python.to_vec(),
        ),
        (
            "template sample",
            "Writes project briefs. Use when starting a project.",
            "## Brief template\n\n```markdown\n# Project\n```\n\n**Stack:** Next.js 13, Tailwind\n",
            owned(&next16),
        ),
    ];
    for (shape, description, body, files) in cases {
        let (_, text) = review_in(description, body, &files);
        let findings: Vec<&str> = text
            .lines()
            .filter(|l| l.contains(" SG401 ") || l.contains(" SG403 "))
            .collect();
        assert!(findings.is_empty(), "{shape}: {text}");
    }
}

#[test]
fn a_target_or_floor_the_project_does_not_meet_fires_once_with_its_places() {
    let django52 = [("requirements.txt", "django==5.2.17\n")];
    let (_, text) = review_in(
        "Writes Django views. Use when adding a page.",
        "This skill targets Django 4.2.\n",
        &django52,
    );
    assert!(
        text.contains("SG401 error the skill is written for django 4.2, but the project requires django ==5.2.17"),
        "{text}"
    );
    let next13 = next_app("13.5.0");
    let (_, text) = review_in(
        "Next.js 14+ App Router patterns. Use when adding routes.",
        "Triggers on: Next.js 14.\n\nUse the Next.js 15 `after()` API.\n",
        &owned(&next13),
    );
    let sg401: Vec<&str> = text.lines().filter(|l| l.contains(" SG401 ")).collect();
    assert_eq!(sg401.len(), 1, "{text}");
    assert!(sg401[0].contains("written for next 14+"), "{text}");
    assert!(
        text.contains("related probe/SKILL.md:6 next 15 again") || text.contains("next 15 again"),
        "{text}"
    );
    // Rails 8 and 8.1 are one claim on a 7.2 app.
    let (_, text) = review_in(
        "Writes Rails 8 controllers. Use when adding an action.",
        "This skill is for Rails 8.1 apps.\n",
        RAILS_72,
    );
    let sg401: Vec<&str> = text.lines().filter(|l| l.contains(" SG401 ")).collect();
    assert_eq!(sg401.len(), 1, "{text}");
    assert!(text.contains("rails 8.1 again"), "{text}");
    // One base image, three times: one SG403 with two related places.
    let engines = [(
        "package.json",
        "{ \"name\": \"api\", \"engines\": { \"node\": \">=20\" } }\n",
    )];
    let body = "```dockerfile\nFROM node:16\n```\n\n```dockerfile\nFROM node:16-alpine\n```\n\n```dockerfile\nFROM node:16\n```\n";
    let (_, text) = review_in(
        "Builds images. Use when editing the Dockerfile.",
        body,
        &engines,
    );
    let sg403: Vec<&str> = text.lines().filter(|l| l.contains(" SG403 ")).collect();
    assert_eq!(sg403.len(), 1, "{text}");
    assert_eq!(text.matches("node 16 again").count(), 2, "{text}");
    // A floor the project's supported range does not meet.
    let python = [(
        "pyproject.toml",
        "[project]\nname = \"app\"\nrequires-python = \">=3.10\"\n",
    )];
    let (_, text) = review_in(
        "Writes typed Python. Use when adding annotations.",
        "This skill needs Python 3.12 or later.\n",
        &python,
    );
    assert!(text.contains(" SG403 "), "{text}");
}

#[test]
fn the_repository_s_own_package_is_present() {
    let description = "Writes pydantic models and validators. Use when adding a model.";
    let body = "```python\nfrom pydantic import BaseModel\n```\n\nKeep pydantic models small.\n";
    let pydantic = [
        (
            "pyproject.toml",
            "[project]\nname = \"pydantic\"\nrequires-python = \">=3.9\"\ndependencies = [\"typing-extensions>=4.6\"]\n",
        ),
        ("pydantic/__init__.py", ""),
    ];
    let (_, text) = review_in(description, body, &pydantic);
    assert!(
        text.contains(
            "fit: core (pydantic: the skill's main package; the project is pydantic itself"
        ),
        "{text}"
    );
    assert!(!text.contains(" SG406 "), "{text}");
    // A Poetry project names itself in [tool.poetry].
    let poetry = [(
        "pyproject.toml",
        "[tool.poetry]\nname = \"pydantic\"\n\n[tool.poetry.dependencies]\npython = \"^3.9\"\n",
    )];
    let (_, text) = review_in(description, body, &poetry);
    assert!(text.contains("fit: core (pydantic:"), "{text}");
}

/// The SG4xx text for a one-file skill named `name` against a repository made of `files`.
fn review_named(
    name: &str,
    description: &str,
    body: &str,
    files: &[(&str, &str)],
) -> (usize, String) {
    let repo = super::support::tree(files);
    let dir = tempfile::tempdir().expect("temp dir");
    let skill = dir.path().join(name);
    std::fs::create_dir_all(&skill).expect("skill folder");
    let text = format!("---\nname: {name}\ndescription: {description}\n---\n{body}");
    std::fs::write(skill.join("SKILL.md"), text).expect("skill written");
    let (n, text) = review(
        skill.to_str().expect("utf-8 temp path"),
        repo.path().to_str().expect("utf-8 temp path"),
    );
    let text = text
        .replace(&format!("{}/", skill.display()), "")
        .replace(&format!("{}/", repo.path().display()), "repo/");
    (n, text)
}

/// The fit line of a review.
fn fit_line(text: &str) -> &str {
    text.lines()
        .find(|l| l.starts_with("fit: "))
        .unwrap_or_default()
}

const NEXT_APP: &[(&str, &str)] = &[(
    "package.json",
    "{ \"name\": \"web\", \"dependencies\": { \"next\": \"15.1.0\", \"react\": \"^19.0.0\" } }\n",
)];
const EXPRESS_API: &[(&str, &str)] = &[
    (
        "package.json",
        "{ \"name\": \"api\", \"dependencies\": { \"express\": \"^4.21.0\", \"typescript\": \"^5.6.0\" } }\n",
    ),
    ("src/server.ts", "import express from 'express'\n"),
];
const EXPRESS_PRISMA_API: &[(&str, &str)] = &[(
    "package.json",
    "{ \"name\": \"api\", \"dependencies\": { \"express\": \"^4.21.0\", \"@prisma/client\": \"^5.22.0\" }, \"devDependencies\": { \"prisma\": \"^5.22.0\" } }\n",
)];
const DJANGO_APP: &[(&str, &str)] = &[
    (
        "requirements.txt",
        "Django==5.1.4\npsycopg2-binary==2.9.10\n",
    ),
    ("shop/views.py", "from django.http import HttpResponse\n"),
];
const DJANGO_FULL: &[(&str, &str)] = &[(
    "requirements.txt",
    "Django==5.1.4\ndjangorestframework==3.15.2\ncelery==5.4.0\n",
)];
const FLASK_ONLY: &[(&str, &str)] = &[
    ("requirements.txt", "flask==3.0.3\n"),
    ("app.py", "from flask import Flask\n"),
];
const LARAVEL_APP: &[(&str, &str)] = &[
    (
        "composer.json",
        "{ \"name\": \"acme/shop\", \"require\": { \"php\": \"^8.2\", \"laravel/framework\": \"^11.0\" } }\n",
    ),
    ("app/Models/User.php", "<?php\n"),
];

/// A Rails application with one Python helper script and some JavaScript.
const RAILS_WITH_A_SCRIPT: &[(&str, &str)] = &[
    (
        "Gemfile.lock",
        "GEM\n  remote: https://rubygems.org/\n  specs:\n    rails (7.2.2.1)\n\nDEPENDENCIES\n  rails (~> 7.2)\n",
    ),
    ("app/models/user.rb", "class User\nend\n"),
    ("app/javascript/application.js", "console.log('hi')\n"),
    ("bin/profile.py", "print('profile')\n"),
];
const BUN_APP: &[(&str, &str)] = &[
    (
        "package.json",
        "{ \"name\": \"api\", \"dependencies\": { \"hono\": \"^4.6.0\" } }\n",
    ),
    (
        "bun.lock",
        "{\n  \"lockfileVersion\": 1,\n  \"workspaces\": { \"\": { \"name\": \"api\" } },\n  \"packages\": {}\n}\n",
    ),
];
const BUN_BODY: &str = "Run scripts with Bun.\n\n```ts\nconst file = Bun.file('data.json')\n```\n";
const TORCH_BODY: &str = "```python\nimport torch\nfrom torch import nn\n```\n";
const PYTHON_BODY: &str = "```python\nfrom dataclasses import dataclass\n```\n";

const RAILS_BODY: &str = "Keep Rails controllers thin.\n\n```ruby\nclass PostsController < ApplicationController\n  def index\n    @posts = Post.all\n  end\nend\n```\n\n```javascript\nimport { Controller } from \"@hotwired/stimulus\"\n```\n";
const CSHARP_BODY: &str = "```csharp\nusing Microsoft.Extensions.DependencyInjection;\n\npublic class OrderService { }\n```\n";
const LARAVEL_BODY: &str = "```php\n<?php\nuse Illuminate\\Support\\Facades\\Route;\n\nRoute::get('/', fn () => view('welcome'));\n```\n";
const GO_BODY: &str =
    "```go\nfunc worker(jobs <-chan int) {\n\tfor j := range jobs {\n\t\t_ = j\n\t}\n}\n```\n";
const PHP_BODY: &str = "Use readonly properties and enums.\n\n```php\n<?php\nenum Status: string { case Active = 'active'; }\n```\n";
const PRISMA_BODY: &str = "```ts\nimport { PrismaClient } from '@prisma/client'\nconst prisma = new PrismaClient()\n```\n";
const DJANGO_BODY: &str = "```python\nfrom django.db import models\nfrom django.http import JsonResponse\nfrom rest_framework import serializers\nfrom celery import shared_task\n```\n";
/// A Django skill whose description lists other frameworks its code never uses.
const DJANGO_ALTERNATIVES: &str =
    "Builds Django views; the same ideas apply to Flask and FastAPI. Use when adding a view.";
const DRF_BODY: &str = "```python\nfrom rest_framework import serializers\nfrom rest_framework import viewsets\nfrom rest_framework.response import Response\n```\n";

/// Each case: snapshot name, skill name, description, body, repository, expected fit.
type FitCase = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static str,
);

const FIT_CASES: &[FitCase] = &[
    (
        "fit-rails-on-next",
        "rails-patterns",
        "Builds Rails controllers and models. Use when adding a Rails feature.",
        RAILS_BODY,
        NEXT_APP,
        "fit: off-stack",
    ),
    (
        "fit-csharp-on-rails",
        "service-patterns",
        "Writes C# services with dependency injection. Use when adding a service.",
        CSHARP_BODY,
        RAILS_72,
        "fit: off-stack",
    ),
    (
        "fit-laravel-on-django",
        "routes",
        "Builds Laravel routes and controllers. Use when adding a route.",
        LARAVEL_BODY,
        DJANGO_APP,
        "fit: off-stack",
    ),
    (
        "fit-go-on-python",
        "go-concurrency-patterns",
        "Concurrency with goroutines and channels. Use when writing concurrent code.",
        GO_BODY,
        FLASK_ONLY,
        "fit: off-stack",
    ),
    (
        "fit-react-on-express",
        "components",
        REACT_SKILL,
        REACT_BODY,
        EXPRESS_API,
        "fit: off-stack",
    ),
    (
        "fit-php-on-laravel",
        "php-patterns",
        "Modern PHP patterns. Use when writing PHP classes.",
        PHP_BODY,
        LARAVEL_APP,
        "fit: core",
    ),
    (
        "fit-php-on-django",
        "php-patterns",
        "Modern PHP patterns. Use when writing PHP classes.",
        PHP_BODY,
        DJANGO_APP,
        "fit: off-stack",
    ),
    (
        "fit-prisma-with-prisma",
        "schema",
        "Designs Prisma schemas and queries. Use when changing the data model.",
        PRISMA_BODY,
        EXPRESS_PRISMA_API,
        "fit: core",
    ),
    (
        "fit-prisma-without-prisma",
        "schema",
        "Designs Prisma schemas and queries. Use when changing the data model.",
        PRISMA_BODY,
        EXPRESS_API,
        "fit: off-stack",
    ),
    (
        "fit-django-naming-drf-and-celery",
        "api",
        "Builds Django apps with Django REST Framework views and Celery tasks. Use when adding an endpoint.",
        DJANGO_BODY,
        DJANGO_APP,
        "fit: partial",
    ),
    (
        "fit-django-with-drf-and-celery",
        "api",
        "Builds Django apps with Django REST Framework views and Celery tasks. Use when adding an endpoint.",
        DJANGO_BODY,
        DJANGO_FULL,
        "fit: core",
    ),
    (
        "fit-django-listing-alternatives",
        "views",
        DJANGO_ALTERNATIVES,
        "```python\nfrom django.http import JsonResponse\nfrom django.views import View\n```\n",
        DJANGO_APP,
        "fit: core",
    ),
    (
        "fit-bun-on-rails",
        "runtime",
        "Bun as runtime, package manager and test runner. Use when running scripts.",
        BUN_BODY,
        RAILS_WITH_A_SCRIPT,
        "fit: off-stack",
    ),
    (
        "fit-bun-on-bun",
        "runtime",
        "Bun as runtime, package manager and test runner. Use when running scripts.",
        BUN_BODY,
        BUN_APP,
        "fit: core",
    ),
    (
        "fit-python-on-rails-with-a-script",
        "python-patterns",
        "Pythonic idioms and type hints. Use when writing Python.",
        PYTHON_BODY,
        RAILS_WITH_A_SCRIPT,
        "fit: off-stack",
    ),
    (
        "fit-pytorch-on-django",
        "training",
        "PyTorch training loops and data loading. Use when training a model.",
        TORCH_BODY,
        DJANGO_APP,
        "fit: off-stack",
    ),
    (
        "fit-drf-on-django",
        "serializers",
        "Writes DRF serializers and viewsets. Use when adding an API.",
        DRF_BODY,
        DJANGO_APP,
        "fit: partial",
    ),
];

#[test]
fn the_main_technology_decides_the_fit_per_package_and_runtime() {
    for (snapshot, name, description, body, repo, expected) in FIT_CASES {
        let (_, text) = review_named(name, description, body, repo);
        assert!(
            fit_line(&text).starts_with(expected),
            "{snapshot}: expected {expected}:\n{text}"
        );
        // SG405 reports exactly the off-stack cases.
        assert_eq!(
            text.contains(" SG405 "),
            *expected == "fit: off-stack",
            "{snapshot}:\n{text}"
        );
        insta::assert_snapshot!(*snapshot, text);
    }
}

#[test]
fn a_hard_dependency_is_declared_by_its_package_only() {
    let body = "```python\nfrom asgiref.sync import sync_to_async\n```\n";
    let (_, text) = review_in(
        "Writes async views. Use when adding a view.",
        body,
        DJANGO_APP,
    );
    assert!(!text.contains(" SG406 "), "{text}");
    let (_, text) = review_in(
        "Writes async views. Use when adding a view.",
        body,
        FLASK_ONLY,
    );
    assert!(text.contains("imports asgiref, which"), "{text}");
}

#[test]
fn an_app_module_is_the_example_s_own_only_beside_django() {
    let with_django =
        "```python\nfrom django.db import models\nfrom orders.models import Order\n```\n";
    let (_, text) = review_in(
        "Writes models. Use when adding a model.",
        with_django,
        DJANGO_APP,
    );
    assert!(!text.contains(" SG406 "), "{text}");
    let without = "```python\nfrom orders.models import Order\n```\n";
    let (_, text) = review_in(
        "Writes models. Use when adding a model.",
        without,
        FLASK_ONLY,
    );
    assert!(text.contains("imports orders, which"), "{text}");
}

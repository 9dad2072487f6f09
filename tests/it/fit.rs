//! The project rules (SG4xx) end to end: fixture skills checked against the fixture
//! repositories, one that conflicts and one that agrees per repository, snapshotted.

use std::fmt::Write;
use std::path::Path;

use skillgate::lint::{self, Selection, Settings};
use skillgate::project::scan;
use skillgate::skill::Skill;

/// The SG4xx findings and the fit line for `skill` against `repo`, as text.
fn review(skill: &str, repo: &str) -> (usize, String) {
    let skill = Skill::load(Path::new(skill)).expect("fixture skill loads");
    let project = scan(Path::new(repo)).expect("fixture repository scans");
    let settings = Settings {
        selection: Selection {
            select: vec!["SG4".to_owned()],
            ignore: vec![],
        },
        ..Settings::default()
    };
    let review = lint::review(&skill, &settings, Some(&project));
    let mut out = String::new();
    for f in &review.findings {
        let l = &f.location;
        let path = l.path.to_string_lossy().replace('\\', "/");
        let _ = writeln!(
            out,
            "{path}:{}:{} {} {} {}",
            l.line, l.column, f.code, f.severity, f.message
        );
        for r in &f.related {
            let path = r.location.path.to_string_lossy().replace('\\', "/");
            let _ = writeln!(out, "    related {path}:{} {}", r.location.line, r.message);
        }
        if let Some(help) = &f.help {
            let _ = writeln!(out, "    help: {help}");
        }
    }
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
    let ci = "```yaml\nsteps:\n  - uses: actions/setup-node@v4\n    with:\n      node-version: NODE\n```\n";
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
        format!("{models}:9:8 SG402"),
        format!("{models}:17:12 SG402 warning `.dict()` on a pydantic object"),
    ] {
        assert!(text.contains(&expected), "missing {expected:?} in:\n{text}");
    }
    // A file SKILL.md does not name is not read by the agent, nor by the rules.
    assert!(!text.contains("unlinked.md"), "{text}");
    assert!(!text.contains("sqlalchemy 1.3"), "{text}");
    insta::assert_snapshot!("references-read", text);
}

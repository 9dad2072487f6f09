//! Every embedded rule entry is well formed, and the embedded list matches `rules/`.

use std::collections::BTreeSet;
use std::path::Path;

use skillgate::knowledge::{Checks, Knowledge, Pattern, RULE_FILES, knowledge, validate};
use skillgate::lint::snippet_fires;
use skillgate::project::Ecosystem;

/// Paths of every `.toml` file under `dir`, relative to it, with `/` separators.
fn toml_files_under(dir: &Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current).expect("rules directory is readable") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "toml") {
                let relative = path.strip_prefix(dir).expect("path under rules");
                found.insert(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    found
}

#[test]
fn embedded_list_matches_rules_directory() {
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    let on_disk = toml_files_under(&rules);
    let embedded: BTreeSet<String> = RULE_FILES.iter().map(|file| file.path.to_owned()).collect();
    assert_eq!(
        embedded.len(),
        RULE_FILES.len(),
        "a rule file is listed twice"
    );
    let missing: Vec<_> = on_disk.difference(&embedded).collect();
    let stale: Vec<_> = embedded.difference(&on_disk).collect();
    assert!(missing.is_empty(), "add to RULE_FILES: {missing:?}");
    assert!(stale.is_empty(), "remove from RULE_FILES: {stale:?}");
}

/// API files whose entries are still being re-verified against the releases that shipped
/// them and may lack `evidence` and `passes` until then. Temporary: every other file is held
/// to the full standard, and once this list is empty it goes and `STRICT` is all there is.
const NOT_YET_REWORKED: &[&str] = &[
    "apis/actions/actions-cache.toml",
    "apis/actions/actions-checkout.toml",
    "apis/actions/actions-download-artifact.toml",
    "apis/actions/actions-setup-node.toml",
    "apis/actions/actions-setup-python.toml",
    "apis/actions/actions-upload-artifact.toml",
    "apis/actions/workflow-commands.toml",
    "apis/cargo/tokio.toml",
    "apis/kubernetes/kubernetes.toml",
    "apis/maven/junit.toml",
    "apis/maven/spring-boot.toml",
    "apis/maven/spring-security.toml",
    "apis/npm/angular-core.toml",
    "apis/npm/eslint.toml",
    "apis/npm/express.toml",
    "apis/npm/jest.toml",
    "apis/npm/next.toml",
    "apis/npm/react-dom.toml",
    "apis/npm/react-test-renderer.toml",
    "apis/npm/react.toml",
    "apis/npm/tailwindcss.toml",
    "apis/npm/vite.toml",
    "apis/npm/vue.toml",
    "apis/pypi/django.toml",
    "apis/pypi/flask.toml",
    "apis/pypi/numpy.toml",
    "apis/pypi/pandas.toml",
    "apis/pypi/pydantic.toml",
    "apis/pypi/pytest.toml",
    "apis/pypi/sqlalchemy.toml",
    "apis/runtime/python.toml",
];

/// The validator as users run it, with the real matcher.
const STRICT: Checks<'static> = Checks {
    fires: &snippet_fires,
    base: None,
    lenient: &[],
};

#[test]
fn every_entry_validates() {
    let checks = Checks {
        lenient: NOT_YET_REWORKED,
        ..STRICT
    };
    let violations = validate(knowledge(), &checks);
    let report: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert!(
        report.is_empty(),
        "{} problems:\n{}",
        report.len(),
        report.join("\n")
    );
}

#[test]
fn files_not_yet_reworked_exist() {
    for path in NOT_YET_REWORKED {
        assert!(
            RULE_FILES.iter().any(|file| file.path == *path),
            "{path} is gone; drop it from NOT_YET_REWORKED"
        );
    }
}

#[test]
fn coverage_meets_the_first_target() {
    let knowledge = knowledge();
    let entries = knowledge.changes().count();
    let packages: BTreeSet<_> = knowledge
        .apis
        .iter()
        .map(|file| (file.ecosystem, file.package.as_str()))
        .collect();
    let ecosystems: BTreeSet<Ecosystem> = packages.iter().map(|(eco, _)| *eco).collect();
    assert!(entries >= 120, "only {entries} entries");
    assert!(
        packages.len() >= 30,
        "only {} packages with API entries",
        packages.len()
    );
    assert!(
        ecosystems.len() >= 6,
        "only {} ecosystems",
        ecosystems.len()
    );
}

#[test]
fn sources_are_checked_today_or_earlier_and_official() {
    for (_, change) in knowledge().changes() {
        assert!(
            change.checked.as_str() <= "2026-12-01",
            "{} checked in the future",
            change.id
        );
        assert!(change.source.starts_with("https://"), "{}", change.id);
    }
}

#[test]
fn aliases_resolve_prose_names_and_import_roots() {
    let knowledge = knowledge();
    let boot: Vec<_> = knowledge.aliases_named("spring boot").collect();
    assert_eq!(boot.len(), 1);
    assert!(boot[0].covers("org.springframework.boot:spring-boot-starter-web"));
    assert!(!boot[0].covers("org.springframework:spring-core"));

    let react_dom: Vec<_> = knowledge
        .aliases_imported(Ecosystem::Npm, "react-dom/client")
        .map(|a| &a.package)
        .collect();
    assert_eq!(react_dom, ["react-dom"]);
    assert_eq!(
        knowledge
            .aliases_imported(Ecosystem::Pypi, "react-dom")
            .count(),
        0
    );
    assert_eq!(knowledge.aliases_named("no such framework").count(), 0);
}

#[test]
fn known_entries_keep_their_facts() {
    let knowledge = knowledge();
    let (file, change) = knowledge.change("react-dom-render").expect("entry exists");
    assert_eq!(
        (file.ecosystem, file.package.as_str()),
        (Ecosystem::Npm, "react-dom")
    );
    assert_eq!(change.since.as_deref(), Some("19.0.0"));
    assert_eq!(
        change.pattern,
        Pattern::ImportName {
            import: "react-dom".into(),
            name: "render".into()
        }
    );
    let (_, set_output) = knowledge
        .change("actions-set-output")
        .expect("entry exists");
    assert_eq!(set_output.since, None);
}

#[test]
fn a_broken_file_is_reported_with_its_path() {
    let broken = [skillgate::knowledge::RuleFile {
        path: "apis/npm/broken.toml",
        text: "ecosystem = \"npm\"\npackage = \"x\"\n[[change]]\nid = 3\n",
    }];
    let error = Knowledge::parse(&broken).expect_err("must not parse");
    assert!(
        error.to_string().starts_with("rules/apis/npm/broken.toml"),
        "{error}"
    );
}

#[test]
fn validation_catches_bad_entries() {
    let text = r#"
ecosystem = "npm"
package = "react-dom"

[[change]]
id = "Bad_Id"
kind = "removed"
since = "19.x"
summary = "two\nlines"
pattern = { text = "(" }
lang = ["cobol"]
source = "http://medium.com/post"
checked = "2026-02-30"
example = ""

[[change]]
id = "Bad_Id"
kind = "deprecated"
since = "1.0.0"
summary = "ok"
pattern = { import = "react-dom" }
lang = ["javascript"]
source = "https://react.dev/x"
checked = "2026-11-29"
example = "import x from 'react-dom';"
"#;
    let files = [
        skillgate::knowledge::RuleFile {
            path: "packages.toml",
            text: "",
        },
        skillgate::knowledge::RuleFile {
            path: "apis/pypi/react-dom.toml",
            text,
        },
    ];
    let parsed = Knowledge::parse(&files).expect("parses");
    let problems: Vec<String> = validate(&parsed, &STRICT)
        .iter()
        .map(|v| v.problem.clone())
        .collect();
    for expected in [
        "must live in apis/npm/",
        "no entry in packages.toml",
        "id is used by another entry",
        "kebab-case",
        "one non-empty line",
        "dotted version",
        "official page",
        "YYYY-MM-DD",
        "unknown language",
        "example must be non-empty",
        "does not compile",
    ] {
        assert!(
            problems.iter().any(|p| p.contains(expected)),
            "no `{expected}` in {problems:#?}"
        );
    }
}

#[test]
fn validator_rejects_unverified_entries() {
    let packages = r#"
[[package]]
names = ["left-pad"]
imports = ["left-pad"]
ecosystem = "npm"
package = "left-pad"

[[package]]
names = ["right-pad"]
imports = ["right-pad"]
ecosystem = "npm"
package = "right-pad"

[[package]]
names = ["up-pad"]
ecosystem = "npm"
package = "up-pad"
prose_only = "named in prose only"
"#;
    let api = r#"
ecosystem = "npm"
package = "left-pad"

[[change]]
id = "left-pad-pre-release"
kind = "removed"
since = "2.0.0-rc.1"
summary = "pad() was removed"
pattern = { import = "left-pad", name = "pad" }
lang = ["javascript"]
source = "https://example.org/changelog"
checked = "2026-12-01"
example = "import { pad } from 'left-pad';\npad('a', 3);"

[[change]]
id = "left-pad-silent-example"
kind = "removed"
since = "2.0.0"
summary = "trim() was removed"
pattern = { import = "left-pad", name = "trim" }
lang = ["javascript"]
source = "https://example.org/changelog"
checked = "2026-12-01"
evidence = "The trim function was removed."
example = "// left-pad has no trim any more"
passes = "import { pad } from 'left-pad';"

[[change]]
id = "left-pad-loud-passes"
kind = "removed"
since = "2.0.0"
summary = "center() was removed"
pattern = { import = "left-pad", name = "center" }
lang = ["javascript"]
source = "https://example.org/changelog"
checked = "2026-12-01"
evidence = "The center function was removed. Use pad instead."
example = "import { center } from 'left-pad';\ncenter('a');"
passes = "import { center } from 'left-pad';"
"#;
    let files = [("packages.toml", packages), ("apis/npm/left-pad.toml", api)];
    let parsed = Knowledge::parse_texts(files).expect("parses");
    let violations = validate(&parsed, &STRICT);
    let problems_of = |entry: &str| -> Vec<&str> {
        violations
            .iter()
            .filter(|v| v.entry == entry)
            .map(|v| v.problem.as_str())
            .collect()
    };
    let has = |entry: &str, text: &str| {
        assert!(
            problems_of(entry).iter().any(|p| p.contains(text)),
            "no `{text}` for {entry} in {:#?}",
            problems_of(entry)
        );
    };
    has("left-pad-pre-release", "not a pre-release");
    has("left-pad-pre-release", "evidence is missing");
    has("left-pad-pre-release", "passes is missing");
    has(
        "left-pad-silent-example",
        "example, read as javascript, does not fire the entry",
    );
    has(
        "left-pad-loud-passes",
        "passes, read as javascript, fires the entry",
    );
    has("left-pad-loud-passes", "one quoted sentence");
    has("right-pad", "alias has no API file");
    assert!(problems_of("up-pad").is_empty(), "{violations:#?}");
    assert!(problems_of("left-pad").is_empty(), "{violations:#?}");

    // An example that does not even name the module is caught before the matcher runs.
    let unnamed = api.replace(
        "example = \"// left-pad has no trim any more\"",
        "example = \"trim('a');\"",
    );
    let parsed = Knowledge::parse_texts([
        ("packages.toml", packages),
        ("apis/npm/left-pad.toml", unnamed.as_str()),
    ])
    .expect("parses");
    let violations = validate(&parsed, &STRICT);
    assert!(
        violations
            .iter()
            .any(|v| v.entry == "left-pad-silent-example"
                && v.problem == "example does not mention `left-pad`"),
        "{violations:#?}"
    );

    // The temporary per-file leniency waives only the two missing fields.
    let lenient = Checks {
        lenient: &["apis/npm/left-pad.toml"],
        ..STRICT
    };
    let parsed = Knowledge::parse_texts(files).expect("parses");
    let violations = validate(&parsed, &lenient);
    assert!(!violations.iter().any(|v| v.problem.contains("is missing")));
    assert!(violations.iter().any(|v| v.problem.contains("pre-release")));
}

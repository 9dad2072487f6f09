//! Every embedded rule entry is well formed, and the embedded list matches `rules/`.

use std::collections::BTreeSet;
use std::path::Path;

use skillgate::knowledge::{Checks, Knowledge, Pattern, RULE_FILES, knowledge, validate};
use skillgate::lint::snippet_fires;
use skillgate::project::Ecosystem;

use super::support::{manifest, root, run, run_in, skillgate, tree};

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

/// The validator as users run it, with the real matcher.
const STRICT: Checks<'static> = Checks {
    fires: &snippet_fires,
    base: None,
};

#[test]
fn every_entry_validates() {
    let violations = validate(knowledge(), &STRICT);
    let report: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert!(
        report.is_empty(),
        "{} problems:\n{}",
        report.len(),
        report.join("\n")
    );
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
            change.checked.as_str() <= "2026-12-03",
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
}

/// Packs join one after another: a second pack may not claim an id the first one has.
#[test]
fn a_pack_may_not_reuse_an_id_of_an_earlier_pack() {
    let pack = "fixtures/knowledge/good-pack";
    let (code, out, _) = run(&["knowledge", "--pack", pack, "padkit"]);
    assert_eq!(code, 0, "{out}");
    let (code, _, err) = run(&["knowledge", "--pack", pack, "--pack", pack, "padkit"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("id is used by an entry of the knowledge this pack joins"),
        "{err}"
    );
}

#[test]
fn knowledge_lists_entries_by_ecosystem_package_or_prose_name() {
    let (code, table, _) = run(&["knowledge", "react-dom"]);
    assert_eq!(code, 0);
    let header = table.lines().next().unwrap_or_default();
    for column in ["ID", "KIND", "SINCE", "PACKAGE", "REPLACEMENT", "SOURCE"] {
        assert!(header.contains(column), "{header}");
    }
    assert!(
        table
            .lines()
            .any(|line| line.starts_with("react-dom-render ")
                && line.contains("removed")
                && line.contains("19.0.0"))
    );
    assert!(!table.contains("vue-"), "another package listed:\n{table}");

    let (code, json, _) = run(&["knowledge", "Node.js", "--format", "json"]);
    assert_eq!(code, 0);
    let parsed: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    let entries = parsed["entries"].as_array().expect("entries");
    assert!(!entries.is_empty());
    assert!(entries.iter().all(|e| e["package"] == "node"), "{json}");

    let (code, npm, _) = run(&["knowledge", "npm", "--format", "json"]);
    assert_eq!(code, 0);
    let parsed: serde_json::Value = serde_json::from_str(&npm).expect("valid JSON");
    assert!(
        parsed["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .all(|e| e["ecosystem"] == "npm")
    );

    // A Maven package is also named by its artifact alone.
    let (code, boot, _) = run(&["knowledge", "spring-boot"]);
    assert_eq!(code, 0);
    assert!(
        boot.lines()
            .any(|line| line.starts_with("spring-boot-mock-bean-removed ")),
        "{boot}"
    );
    assert!(
        !boot.contains("spring-security-"),
        "another package listed:\n{boot}"
    );

    let (code, _, stderr) = run(&["knowledge", "no-such-package"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("no knowledge entries for `no-such-package`"),
        "{stderr}"
    );
}

#[test]
fn knowledge_check_accepts_a_valid_pack_and_lists_every_problem_of_a_bad_one() {
    let (code, out, _) = run(&["knowledge", "check", "fixtures/knowledge/good-pack"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1 entries, all valid"), "{out}");

    let (code, out, _) = run(&["knowledge", "check", "fixtures/knowledge/bad-pack"]);
    assert_eq!(code, 1, "{out}");
    let file = "fixtures/knowledge/bad-pack/apis/npm/padkit.toml";
    for expected in [
        format!("{file}:2: [padkit] package has no entry in packages.toml"),
        format!(
            "{file}:5: [padkit-pad-left] since must be the first stable release, not a pre-release"
        ),
        format!("{file}:5: [padkit-pad-left] evidence is missing"),
        format!("{file}:5: [padkit-pad-left] passes is missing"),
        format!(
            "{file}:19: [padkit-pad-right] example, read as javascript, does not fire the entry"
        ),
        format!("{file}:19: [padkit-pad-right] passes, read as javascript, fires the entry"),
        format!(
            "{file}:38: [react-dom-render] id is used by an entry of the knowledge this pack joins"
        ),
    ] {
        assert!(out.contains(&expected), "no `{expected}` in\n{out}");
    }

    let (code, _, stderr) = run(&["knowledge", "check", "fixtures/knowledge/missing"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("cannot read the knowledge pack"),
        "{stderr}"
    );
    let broken = tree(&[(
        "apis/npm/x.toml",
        "ecosystem = \"npm\"\npackage = \"x\"\n[[change]]\nid = 3\n",
    )]);
    let (code, _, stderr) = run(&["knowledge", "check", &broken.path().to_string_lossy()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("apis/npm/x.toml:4:"), "{stderr}");
}

#[test]
fn configured_packs_join_the_built_in_knowledge_for_check_audit_and_gate() {
    let pack = |path: &str| {
        std::fs::read_to_string(root().join("fixtures/knowledge/good-pack").join(path))
            .expect("fixture readable")
    };
    let skill = manifest(
        "pad",
        "Pads numbers.\n\n```javascript\nimport { padLeft } from 'padkit';\npadLeft('7', 3, '0');\n```\n",
    );
    let packages = pack("packages.toml");
    let api = pack("apis/npm/padkit.toml");
    let files = [
        ("skillgate.toml", "knowledge = [\"team-rules\"]\n"),
        (
            "package.json",
            "{ \"name\": \"app\", \"dependencies\": { \"padkit\": \"2.1.0\" } }\n",
        ),
        ("team-rules/packages.toml", packages.as_str()),
        ("team-rules/apis/npm/padkit.toml", api.as_str()),
        ("skills/pad/SKILL.md", skill.as_str()),
    ];
    let dir = tree(&files);
    let (code, out, err) = run_in(
        dir.path(),
        &["check", "skills/pad", "--repo", ".", "--format", "concise"],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("SG402") && out.contains("padLeft"), "{out}");
    let (_, audit, err) = run_in(
        dir.path(),
        &["audit", "skills", "--repo", ".", "--format", "json"],
    );
    assert!(
        audit.contains("padkit-pad-left") || audit.contains("padLeft"),
        "{audit}{err}"
    );

    let gate = skillgate()
        .current_dir(dir.path())
        .args(["gate", "skills/pad", "--repo", ".", "--json", "gate.json"])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_EVENT_PATH")
        .output()
        .expect("gate runs");
    let json = std::fs::read_to_string(dir.path().join("gate.json")).unwrap_or_default();
    assert!(
        json.contains("SG402") && json.contains("padLeft"),
        "{json}{}",
        String::from_utf8_lossy(&gate.stderr)
    );

    // Without the pack the same skill is clean of SG402.
    let bare = tree(&[files[1], files[4]]);
    let (_, out, _) = run_in(
        bare.path(),
        &["check", "skills/pad", "--repo", ".", "--format", "concise"],
    );
    assert!(!out.contains("SG402"), "{out}");

    // A pack that does not validate stops the run with a pointer to `knowledge check`.
    let broken = tree(&[
        files[0],
        files[1],
        (
            "team-rules/apis/npm/padkit.toml",
            "ecosystem = \"npm\"\npackage = \"padkit\"\n",
        ),
        files[4],
    ]);
    let (code, _, err) = run_in(broken.path(), &["check", "skills/pad", "--repo", "."]);
    assert_eq!(code, 2);
    assert!(err.contains("skillgate knowledge check"), "{err}");
    assert!(err.contains("skillgate::knowledge"), "{err}");
}

/// Marks around the generated coverage section of docs/knowledge.md.
const COVERAGE_START: &str = "<!-- coverage: generated, do not edit -->\n";
const COVERAGE_END: &str = "<!-- coverage end -->\n";

#[test]
fn knowledge_coverage_in_the_docs_is_fresh() {
    let path = root().join("docs/knowledge.md");
    let doc = std::fs::read_to_string(&path).expect("docs/knowledge.md readable");
    let generated = skillgate::render::knowledge::coverage_markdown(knowledge());
    let (before, rest) = doc
        .split_once(COVERAGE_START)
        .expect("docs/knowledge.md has the coverage start mark");
    let (current, after) = rest
        .split_once(COVERAGE_END)
        .expect("docs/knowledge.md has the coverage end mark");
    if std::env::var_os("SKILLGATE_BLESS").is_some() {
        let fresh = format!("{before}{COVERAGE_START}{generated}{COVERAGE_END}{after}");
        std::fs::write(&path, fresh).expect("docs/knowledge.md writable");
    } else {
        assert!(
            current == generated,
            "docs/knowledge.md coverage is stale; run SKILLGATE_BLESS=1 cargo test --test it knowledge_coverage"
        );
    }
}

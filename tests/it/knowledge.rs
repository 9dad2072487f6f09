//! Every embedded rule entry is well formed, and the embedded list matches `rules/`.

use std::collections::BTreeSet;
use std::path::Path;

use skillgate::knowledge::{
    ApiChange, ApiFile, Knowledge, Pattern, RULE_FILES, example_mentions_pattern, knowledge,
    validate,
};
use skillgate::lint::ApiMatcher;
use skillgate::project::Ecosystem;
use skillgate::skill::code::{CodeSnippet, extract_facts};

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

#[test]
fn every_entry_validates() {
    let violations = validate(knowledge());
    let report: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert!(
        report.is_empty(),
        "{} problems:\n{}",
        report.len(),
        report.join("\n")
    );
}

/// Whether `text`, read as the entry's `lang[0]`, fires the entry through the real matcher.
fn fires(file: &ApiFile, change: &ApiChange, text: &str) -> Result<bool, String> {
    let snippet = CodeSnippet {
        lang: change.lang.first().map(String::as_str),
        text,
        offset: 0,
    };
    let facts = extract_facts(&[snippet]);
    let matcher = ApiMatcher::new([(file, change)]).map_err(|e| e.to_string())?;
    let hits = matcher.pattern_hits(&facts[0]);
    Ok(hits.iter().any(|h| h.change_id == change.id))
}

/// Whether the entry's own example fires it through the real matcher, read as `lang[0]`.
fn example_fires(file: &ApiFile, change: &ApiChange) -> Result<(), String> {
    example_mentions_pattern(&change.pattern, &change.example)?;
    if fires(file, change, &change.example)? {
        Ok(())
    } else {
        Err(format!(
            "its example, read as {:?}, does not fire it",
            change.lang.first()
        ))
    }
}

#[test]
fn every_example_fires_its_entry() {
    let failures: Vec<String> = knowledge()
        .changes()
        .filter_map(|(file, change)| {
            example_fires(file, change)
                .err()
                .map(|why| format!("{}: {why}", change.id))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Whether the entry's `passes` snippet, read as `lang[0]`, stays silent.
fn passes_stays_silent(file: &ApiFile, change: &ApiChange) -> Result<(), String> {
    match &change.passes {
        Some(passes) if fires(file, change, passes)? => Err(format!(
            "its `passes` snippet, read as {:?}, fires it",
            change.lang.first()
        )),
        _ => Ok(()),
    }
}

#[test]
fn every_passes_snippet_stays_silent() {
    let failures: Vec<String> = knowledge()
        .changes()
        .filter_map(|(file, change)| {
            passes_stays_silent(file, change)
                .err()
                .map(|why| format!("{}: {why}", change.id))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
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
    let problems: Vec<String> = validate(&parsed)
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

//! Every rule's documented examples behave as documented: the "fires" example produces a
//! finding of that rule, the "passes" example none. The examples double as the rule
//! fixtures, and `docs/rules.md` is generated from the same source.

use skillgate::config::Config;
use skillgate::lint::example::Example;
use skillgate::lint::{self, RULES, Selection};
use skillgate::skill::Skill;

/// An example written to a temporary folder: the folder (kept alive), the example, the path
/// it names as its root, and its skillgate.toml (or the default configuration).
fn written(example_text: &str) -> (tempfile::TempDir, Example, std::path::PathBuf, Config) {
    let example = Example::parse(example_text);
    let dir = tempfile::tempdir().expect("temp dir");
    let root = example.write_to(dir.path()).expect("example written");
    let config = match example.config() {
        Some(text) => {
            Config::parse(text, "skillgate.toml".as_ref()).expect("example config is valid")
        }
        None => Config::default(),
    };
    (dir, example, root, config)
}

fn findings_of(code: &str, example_text: &str) -> Vec<String> {
    let (dir, example, root, config) = written(example_text);
    let skill = Skill::load(&root).unwrap_or_else(|e| panic!("{code}: example does not load: {e}"));
    let mut settings = config.lint();
    settings.selection = Selection {
        select: vec![code.to_owned()],
        ignore: vec![],
    };
    let project = example
        .has_repo_files()
        .then(|| skillgate::project::scan(dir.path()).expect("example repository scans"));
    lint::check(&skill, &settings, project.as_ref())
        .into_iter()
        .filter(|f| f.code == code)
        .map(|f| f.message)
        .collect()
}

#[test]
fn every_rule_fires_on_its_firing_example() {
    for rule in RULES {
        let found = findings_of(rule.code, rule.fires);
        assert!(
            !found.is_empty(),
            "{} ({}) did not fire on its example",
            rule.code,
            rule.name
        );
    }
}

#[test]
fn every_rule_passes_its_passing_example() {
    for rule in RULES {
        let found = findings_of(rule.code, rule.passes);
        assert!(
            found.is_empty(),
            "{} ({}) fired on its passing example: {found:?}",
            rule.code,
            rule.name
        );
    }
}

#[test]
fn docs_rules_md_is_generated_from_the_registry() {
    let path = super::support::root().join("docs/rules.md");
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    let generated = skillgate::cli::rules_markdown();
    assert!(
        on_disk == generated,
        "docs/rules.md is stale: run `cargo run -- rules --markdown > docs/rules.md`"
    );
}

/// The set-level codes an audit of a set-rule example finds, with only `code` selected.
fn set_findings_of(code: &str, example_text: &str) -> Vec<String> {
    use skillgate::audit::{self, Audit, AuditSettings, Checker};

    let (_dir, _, root, config) = written(example_text);
    let mut settings = config.lint();
    settings.selection = Selection {
        select: vec![code.to_owned()],
        ignore: vec![],
    };
    let paths = audit::targets(&[root], None).expect("the example holds skills");
    assert!(
        paths.len() >= 2,
        "{code}: a set example holds several skills"
    );
    let checker = Checker {
        settings: &settings,
        policy: &config.verdict,
        project: None,
    };
    let rows = audit::check_all(&paths, &checker, false);
    let audit_settings = AuditSettings {
        disabled: audit::set::disabled(&settings.selection),
        ..config.audit.clone()
    };
    let audit = Audit::assemble(rows, &audit_settings, false, None);
    assert!(
        audit.skills.iter().all(|row| row.error.is_none()),
        "{code}: every skill of the example loads"
    );
    audit
        .skills
        .iter()
        .flat_map(|row| &row.findings)
        .filter(|f| f.code == code)
        .map(|f| f.message.clone())
        .collect()
}

#[test]
fn every_set_rule_fires_on_its_firing_example_and_passes_its_passing_one() {
    for rule in skillgate::audit::set::SET_RULES {
        let fired = set_findings_of(rule.code, rule.fires);
        assert_eq!(
            fired.len(),
            1,
            "{} on its firing example: {fired:?}",
            rule.code
        );
        let passed = set_findings_of(rule.code, rule.passes);
        assert!(
            passed.is_empty(),
            "{} fired on its passing example: {passed:?}",
            rule.code
        );
    }
}

#[test]
fn the_loaders_rule_fires_on_its_firing_example_and_passes_its_passing_one() {
    use skillgate::lint::load::{UNLOADABLE_SKILL, unloadable};
    let (_dir, _, root, _) = written(UNLOADABLE_SKILL.fires);
    let error = Skill::load(&root).expect_err("the firing example cannot be loaded");
    assert_eq!(unloadable(&error).code, UNLOADABLE_SKILL.code);
    let (_dir, _, root, _) = written(UNLOADABLE_SKILL.passes);
    assert!(Skill::load(&root).is_ok(), "the passing example loads");
}

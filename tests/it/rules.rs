//! Every rule's documented examples behave as documented: the "fires" example produces a
//! finding of that rule, the "passes" example none. The examples double as the rule
//! fixtures, and `docs/rules.md` is generated from the same source.

use skillgate::config::Config;
use skillgate::lint::example::Example;
use skillgate::lint::{self, RULES, Selection};
use skillgate::skill::Skill;

fn findings_of(code: &str, example_text: &str) -> Vec<String> {
    let example = Example::parse(example_text);
    let dir = tempfile::tempdir().expect("temp dir");
    let root = example.write_to(dir.path()).expect("example written");
    let config = match example.config() {
        Some(text) => {
            Config::parse(text, "skillgate.toml".as_ref()).expect("example config is valid")
        }
        None => Config::default(),
    };
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

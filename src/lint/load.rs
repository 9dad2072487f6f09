//! SG509: a skill that cannot be loaded at all (unreadable SKILL.md, invalid frontmatter...),
//! reported as one finding, so the other skills of the same run are still checked and shown.

use super::RuleDoc;
use crate::finding::{Finding, Location, Severity};
use crate::skill::LoadError;

/// SG509.
pub const UNLOADABLE_SKILL: RuleDoc = RuleDoc {
    code: "SG509",
    name: "unloadable-skill",
    severity: Severity::Error,
    summary: "The skill cannot be loaded, so no other rule could check it",
    what: "Reported, in place of every other finding, for a skill whose SKILL.md cannot be read \
           or parsed: a file that cannot be opened, that is empty, binary, not UTF-8 or too \
           large, frontmatter that is missing, unclosed or not valid YAML, a symlink leading \
           outside the skill folder. It points at the file (and at the line when the parser \
           names one). The other skills of the run are still checked and reported; the exit \
           status is 2, as for any input that cannot be read. It is always reported: \
           `--select`, `--ignore` and `[severity]` do not apply to it.",
    why: "A client that cannot read the skill either skips it or loads it broken; nothing else \
          about the skill can be judged until it loads.",
    fires: "---\nname: demo\ndescription: [Formats notes. Use when writing notes.\n---\n# Notes\n",
    passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\n# Notes\n",
};

/// The one finding of a skill that could not be loaded.
pub fn unloadable(error: &LoadError) -> Finding {
    let rule = &UNLOADABLE_SKILL;
    let (line, column) = error.position().unwrap_or((1, 1));
    Finding {
        code: rule.code,
        name: rule.name,
        severity: rule.severity,
        message: format!("the skill cannot be loaded: {}", error.reason()),
        help: Some(
            "fix the file so it reads as a SKILL.md (a `---` line, YAML frontmatter, a closing \
             `---` line, then markdown); no other rule ran on this skill"
                .to_owned(),
        ),
        location: Location {
            path: error.path().to_path_buf(),
            line,
            column,
            end_line: line,
            end_column: column,
            span: 0..0,
        },
        related: Vec::new(),
        fix: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_finding_points_at_the_parsers_line() {
        let dir = tempfile::tempdir().unwrap();
        let example = super::super::example::Example::parse(UNLOADABLE_SKILL.fires);
        let root = example.write_to(dir.path()).unwrap();
        let error = crate::skill::Skill::load(&root).unwrap_err();
        let f = unloadable(&error);
        assert_eq!((f.code, f.severity), ("SG509", Severity::Error));
        assert!(
            f.location.path.ends_with("SKILL.md"),
            "{:?}",
            f.location.path
        );
        assert_eq!(f.location.line, 4, "where the parser stopped: {f:?}");
        assert!(
            f.message
                .starts_with("the skill cannot be loaded: invalid frontmatter YAML"),
            "{}",
            f.message
        );
        let example = super::super::example::Example::parse(UNLOADABLE_SKILL.passes);
        let other = tempfile::tempdir().unwrap();
        let root = example.write_to(other.path()).unwrap();
        assert!(crate::skill::Skill::load(&root).is_ok());
    }
}

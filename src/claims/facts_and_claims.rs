//! What a skill's text says about code: the facts of its code blocks and its version
//! claims, read once per skill for every rule that compares the skill with a project.

use std::sync::LazyLock;

use super::{AliasTable, Claim, Role, heading_role};
use crate::knowledge::knowledge;
use crate::skill::Skill;
use crate::skill::code::{CodeFacts, extract_facts};
use crate::skill::markdown::Section;

/// The package name table, built once per process from the embedded knowledge.
///
/// `None` only if the table did not compile, which the knowledge tests rule out; claims
/// then come from code facts alone rather than the run failing.
static ALIASES: LazyLock<Option<AliasTable>> =
    LazyLock::new(|| AliasTable::new(&knowledge().packages).ok());

/// A skill's code facts and claims.
#[derive(Debug, Default)]
pub struct Analysis {
    /// One entry per code block of the SKILL.md body, in order.
    pub facts: Vec<CodeFacts>,
    /// Version and usage claims from prose and code, in file order.
    pub claims: Vec<Claim>,
}

impl Analysis {
    /// Reads the SKILL.md body's code blocks and prose.
    pub fn of(skill: &Skill) -> Self {
        let text = &skill.source.text;
        let facts = extract_facts(&skill.body.snippets(text));
        let mut lines = description_lines(skill);
        lines.extend(skill.body.prose(text));
        let mut claims = match ALIASES.as_ref() {
            Some(aliases) => super::claims(&lines, &facts, aliases),
            None => Vec::new(),
        };
        for claim in &mut claims {
            if claim.role == Role::Target
                && let Some(role) = section_role(&skill.body.sections, claim.span.start)
            {
                claim.role = role;
            }
        }
        Self { facts, claims }
    }
}

/// The frontmatter description's lines, which the agent reads before the body ("Generates
/// Spring Boot 3.x configurations"), as `(offset, line)` pairs of SKILL.md.
fn description_lines(skill: &Skill) -> Vec<(usize, &str)> {
    let Some(field) = &skill.frontmatter.description else {
        return Vec::new();
    };
    let text = &skill.source.text;
    let Some(block) = text.get(field.span.clone()) else {
        return Vec::new();
    };
    let mut offset = field.span.start;
    let mut lines = Vec::new();
    for line in block.split_inclusive('\n') {
        lines.push((offset, line.trim_end_matches(['\n', '\r'])));
        offset += line.len();
    }
    lines
}

/// The role the headings above `offset` give it: "## If you are on React 18" gates every
/// claim of its section and the sections below it.
fn section_role(sections: &[Section], offset: usize) -> Option<Role> {
    let mut at = sections
        .iter()
        .rposition(|s| s.level > 0 && s.range.contains(&offset));
    while let Some(index) = at {
        let section = &sections[index];
        if let Some(role) = heading_role(&section.title) {
            return Some(role);
        }
        at = section.parent;
    }
    None
}

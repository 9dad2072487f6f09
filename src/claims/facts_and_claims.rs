//! What a skill's text says about code: the facts of its code blocks and its version
//! claims, read once per skill for every rule that compares the skill with a project.

use std::sync::LazyLock;

use super::{AliasTable, Claim};
use crate::knowledge::knowledge;
use crate::skill::Skill;
use crate::skill::code::{CodeFacts, extract_facts};

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
        let lines = skill.body.prose(text);
        let claims = match ALIASES.as_ref() {
            Some(aliases) => super::claims(&lines, &facts, aliases),
            None => Vec::new(),
        };
        Self { facts, claims }
    }
}

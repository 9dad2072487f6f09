//! Every rule, registered in one list.

mod content;
mod project;
pub(crate) mod security;
mod size;
mod spec;
mod structure;
mod suppression;

use std::ops::Range;

use regex::Regex;

pub use self::project::{ApiHit, ApiMatcher, PatternError, snippet_fires};
use super::Rule;
use crate::skill::{Skill, quoted};

/// Every rule skillgate knows, in code order.
pub static RULES: &[Rule] = &[
    suppression::SUPPRESSION_WITHOUT_REASON,
    suppression::UNKNOWN_SUPPRESSION_CODE,
    spec::NAME_MISSING,
    spec::NAME_TOO_LONG,
    spec::NAME_INVALID_CHARACTERS,
    spec::NAME_HYPHENS,
    spec::NAME_FOLDER_MISMATCH,
    spec::DESCRIPTION_MISSING,
    spec::DESCRIPTION_TOO_LONG,
    spec::DESCRIPTION_XML_TAGS,
    spec::DESCRIPTION_NOT_THIRD_PERSON,
    spec::DESCRIPTION_WHAT_AND_WHEN,
    spec::UNKNOWN_FRONTMATTER_KEY,
    spec::COMPATIBILITY_TOO_LONG,
    spec::MANIFEST_FILE_NAME,
    spec::FRONTMATTER_FIELD_TYPE,
    spec::DESCRIPTION_TRAILING_WHITESPACE,
    size::BODY_TOO_MANY_TOKENS,
    size::BODY_TOO_MANY_LINES,
    size::EXAMPLE_CODE_SHARE,
    size::LONG_CODE_BLOCK,
    size::REFERENCE_WITHOUT_TOC,
    content::NO_PROHIBITIONS,
    content::PINNED_EXACT_NAME,
    content::TIME_SENSITIVE_CLAIM,
    content::MENU_WITHOUT_DEFAULT,
    project::UNREADABLE_MANIFEST,
    project::VERSION_CONFLICT,
    project::REMOVED_API,
    project::RUNTIME_CONFLICT,
    project::TOOL_CONFLICT,
    project::OFF_STACK,
    project::UNDECLARED_PACKAGE,
    project::API_TOO_NEW,
    structure::BROKEN_LINK,
    structure::MISSING_REFERENCED_FILE,
    structure::REFERENCE_TOO_DEEP,
    structure::ORPHAN_FILE,
    structure::UNCLOSED_CODE_FENCE,
    structure::BACKSLASH_PATH,
    structure::OUTSIDE_DISCOVERY_FOLDERS,
    structure::UNREADABLE_ENTRY,
    security::HIDDEN_UNICODE,
    security::HOMOGLYPH,
    security::AGENT_DIRECTED_INSTRUCTION,
    security::DANGEROUS_COMMAND,
    security::SUDO_COMMAND,
    security::CREDENTIAL_EXFILTRATION,
    security::ENCODED_PAYLOAD,
    security::SECRET_IN_SKILL,
    security::BROAD_ALLOWED_TOOLS,
    security::UNPINNED_RUN,
    security::REVERSE_SHELL,
    security::UNTRUSTED_INSTALL,
    security::LOOKALIKE_NAME,
];

/// Byte ranges of `re`'s matches on the SKILL.md's prose lines (code blocks and quoted text
/// excluded: a quotation is not the skill's own voice). Lines
/// are matched in ASCII lower case, which keeps byte offsets, so patterns are written in lower
/// case and need no case-insensitive flag (whose case variants are costly to compile).
fn prose_matches<'a>(skill: &'a Skill, re: &'a Regex) -> impl Iterator<Item = Range<usize>> + 'a {
    let text = &skill.source.text;
    skill.body.prose_lines.iter().flat_map(move |line| {
        let lower = quoted::mask(&text[line.clone()]).to_ascii_lowercase();
        re.find_iter(&lower)
            .map(|m| line.start + m.start()..line.start + m.end())
            .collect::<Vec<_>>()
    })
}

/// The span a whole-file finding points at: the frontmatter's first line.
fn head(skill: &Skill) -> Range<usize> {
    skill.source.line_range(0)
}

#[cfg(test)]
mod tests {
    use super::RULES;
    use crate::lint::Family;

    #[test]
    fn codes_and_names_are_unique_sorted_and_well_formed() {
        let mut codes: Vec<_> = RULES.iter().map(|r| r.doc.code).collect();
        let sorted = {
            let mut c = codes.clone();
            c.sort_unstable();
            c
        };
        assert_eq!(codes, sorted, "RULES must be listed in code order");
        codes.dedup();
        assert_eq!(codes.len(), RULES.len(), "duplicate rule code");
        let mut names: Vec<_> = RULES.iter().map(|r| r.doc.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RULES.len(), "duplicate rule name");
        for rule in RULES {
            assert!(
                rule.doc.code.len() == 5 && rule.doc.code.starts_with("SG"),
                "{}",
                rule.doc.code
            );
            assert!(
                rule.doc
                    .name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{}",
                rule.doc.name
            );
            assert!(
                !rule.doc.what.is_empty()
                    && !rule.doc.why.is_empty()
                    && !rule.doc.summary.is_empty()
            );
        }
    }

    #[test]
    fn security_rules_are_the_sg6_family() {
        let security: Vec<_> = RULES
            .iter()
            .filter(|r| r.family() == Family::Security)
            .map(|r| r.doc.code)
            .collect();
        assert_eq!(security.len(), 13);
        assert!(security.iter().all(|c| c.starts_with("SG6")));
    }
}

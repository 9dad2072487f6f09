//! What a skill's text says about code: the facts of its code blocks and its version
//! claims, read once per skill for every rule that compares the skill with a project.

use std::sync::LazyLock;

use super::meaning::{is_upgrade_skill, settle};
use super::{
    AliasTable, Claim, Mention, Role, code_claims, heading_role, prose_mentions,
    section_opening_role,
};
use crate::finding::Location;
use crate::knowledge::{PackageAlias, aliases, stack};
use crate::project::Ecosystem;
use crate::skill::Skill;
use crate::skill::code::{CodeFacts, CodeSnippet, Span, extract_facts};
use crate::skill::markdown::{Document, Section};
use crate::skill::references::References;
use crate::skill::source::SourceFile;

/// The package name table, built once per process from the embedded knowledge.
///
/// `None` only if the table did not compile, which the knowledge tests rule out; claims
/// then come from code facts alone rather than the run failing.
static ALIASES: LazyLock<Option<AliasTable>> = LazyLock::new(|| AliasTable::new(aliases()).ok());

/// The stack table's prose names, which make mentions and never version claims.
static STACK_NAMES: LazyLock<Option<AliasTable>> = LazyLock::new(|| {
    let names: Vec<PackageAlias> = stack()
        .names
        .iter()
        .map(|name| PackageAlias {
            names: name.names.clone(),
            imports: Vec::new(),
            ecosystem: name.ecosystem,
            package: name.package.clone(),
            also: Vec::new(),
        })
        .collect();
    AliasTable::new(&names).ok()
});

/// A skill's code facts and claims, from every document the agent reads: SKILL.md (its
/// frontmatter description and body) and the markdown files SKILL.md names.
///
/// Spans are offsets in one space that lays the documents end to end, SKILL.md first;
/// [`Analysis::location`] turns one back into a place in its own file.
#[derive(Debug, Default)]
pub struct Analysis {
    /// One entry per code block, SKILL.md's first, in order.
    pub facts: Vec<CodeFacts>,
    /// Version and usage claims from prose and code, in document and file order. Installs
    /// written as inline code in prose ("run `pnpm add -D vitest`") are among them.
    pub claims: Vec<Claim>,
    /// Every place the prose (the description included) names a known package.
    pub mentions: Vec<Mention>,
    /// The frontmatter description's place, for telling what the skill says it is about.
    pub description: Option<Span>,
    /// The frontmatter name's place: a language it names (`go-concurrency-patterns`) is a
    /// mention there, and what the skill is about as much as the description's.
    pub name: Option<Span>,
    /// Where each document starts in the span space, and which of the skill's files it is
    /// (`None` for SKILL.md).
    docs: Vec<(usize, Option<usize>)>,
}

impl Analysis {
    /// Reads SKILL.md and the documents `references` shows it names directly.
    pub fn of(skill: &Skill, references: &References) -> Self {
        let mut analysis = Self {
            description: skill.frontmatter.description.as_ref().map(|field| Span {
                start: field.span.start,
                end: field.span.end,
            }),
            name: skill.frontmatter.name.as_ref().map(|field| Span {
                start: field.span.start,
                end: field.span.end,
            }),
            ..Self::default()
        };
        analysis.mentions.extend(name_languages(skill));
        let named = skill.files.iter().enumerate().filter(|(index, file)| {
            file.doc.is_some()
                && references.reach.get(*index).is_some_and(|reach| {
                    reach
                        .as_ref()
                        .is_some_and(|r| r.depth == 1 && !r.through_folder)
                })
        });
        let mut base = 0;
        let documents =
            std::iter::once((None, &skill.source, &skill.body)).chain(named.filter_map(
                |(index, file)| Some((Some(index), file.source.as_ref()?, file.doc.as_ref()?)),
            ));
        for (file, source, doc) in documents {
            analysis.docs.push((base, file));
            // A template file's versions are the reader's to fill in.
            let template = file
                .and_then(|index| skill.files.get(index))
                .is_some_and(|f| f.rel.to_ascii_lowercase().contains("template"));
            analysis.read(skill, base, source, doc, file.is_none());
            if template {
                for claim in analysis.claims.iter_mut().filter(|c| c.span.start >= base) {
                    if claim.role == Role::Target {
                        claim.role = Role::Sample;
                    }
                }
            }
            // One byte apart, so no span of one document touches the next.
            base += source.text.len() + 1;
        }
        let field = |f: &Option<crate::skill::frontmatter::Field<String>>| {
            f.as_ref().map(|f| f.value.clone()).unwrap_or_default()
        };
        let upgrade = is_upgrade_skill(
            &field(&skill.frontmatter.name),
            &field(&skill.frontmatter.description),
        );
        settle(&mut analysis.claims, upgrade);
        analysis
    }

    fn read(
        &mut self,
        skill: &Skill,
        base: usize,
        source: &SourceFile,
        doc: &Document,
        manifest: bool,
    ) {
        let text = &source.text;
        let snippets: Vec<CodeSnippet<'_>> = doc
            .snippets(text)
            .into_iter()
            .map(|s| CodeSnippet {
                offset: s.offset + base,
                ..s
            })
            .collect();
        let facts = extract_facts(&snippets);
        let mut lines = if manifest {
            description_lines(skill)
        } else {
            Vec::new()
        };
        lines.extend(doc.prose(text));
        let lines: Vec<(usize, &str)> = lines
            .into_iter()
            .map(|(offset, line)| (offset + base, line))
            .collect();
        let inline: Vec<CodeSnippet<'_>> = inline_commands(text, &doc.inline_code)
            .map(|(offset, command)| CodeSnippet {
                lang: Some("bash"),
                text: command,
                offset: offset + base,
            })
            .collect();
        let inline_facts = extract_facts(&inline);
        let mut claims = match ALIASES.as_ref() {
            Some(aliases) => {
                self.mentions.extend(prose_mentions(&lines, aliases));
                if let Some(names) = STACK_NAMES.as_ref() {
                    self.mentions.extend(prose_mentions(&lines, names));
                }
                let mut claims = super::claims(&lines, &facts, aliases);
                claims.extend(code_claims(&inline_facts, aliases));
                claims.sort_by_key(|claim| claim.span);
                claims
            }
            None => Vec::new(),
        };
        for claim in &mut claims {
            if claim.role == Role::Target
                && let Some(role) = sections_role(&doc.sections, text, claim.span.start - base)
            {
                claim.role = role;
            }
        }
        self.facts.extend(facts);
        self.claims.extend(claims);
    }

    /// The text of a span of this analysis, in its own file.
    pub fn text<'s>(&self, skill: &'s Skill, span: Span) -> Option<&'s str> {
        let (base, source) = self.source_of(skill, span.start);
        source.text.get(span.start - base..span.end - base)
    }

    /// The documents the agent reads, SKILL.md first, each with where it starts in the span
    /// space: what a rule walks when it reads more than the claims.
    pub fn documents<'s>(&self, skill: &'s Skill) -> Vec<(usize, &'s SourceFile, &'s Document)> {
        self.docs
            .iter()
            .filter_map(|&(base, file)| match file {
                None => Some((base, &skill.source, &skill.body)),
                Some(index) => {
                    let file = skill.files.get(index)?;
                    Some((base, file.source.as_ref()?, file.doc.as_ref()?))
                }
            })
            .collect()
    }

    /// The document a span offset falls in: its start and its source.
    fn source_of<'s>(&self, skill: &'s Skill, at: usize) -> (usize, &'s SourceFile) {
        let (base, file) = self
            .docs
            .iter()
            .rev()
            .find(|(base, _)| *base <= at)
            .copied()
            .unwrap_or((0, None));
        let source = file
            .and_then(|index| skill.files.get(index)?.source.as_ref())
            .unwrap_or(&skill.source);
        (base, source)
    }

    /// The role the sections around an offset of this analysis give what stands there (see
    /// [`section_role`]).
    pub fn section_role_at(&self, skill: &Skill, at: usize) -> Option<Role> {
        let (base, _, doc) = self
            .documents(skill)
            .into_iter()
            .rev()
            .find(|(base, _, _)| *base <= at)?;
        let (_, source) = self.source_of(skill, at);
        section_role(doc, &source.text, at - base)
    }

    /// The file and place of a span of this analysis.
    pub fn location(&self, skill: &Skill, span: Span) -> Location {
        let (base, source) = self.source_of(skill, span.start);
        source.location(span.start - base..span.end - base)
    }
}

/// Words of a skill's name that name a language, and the runtime it runs on.
const NAME_LANGUAGES: &[(&str, &str)] = &[
    ("go", "go"),
    ("golang", "go"),
    ("rust", "rust"),
    ("python", "python"),
    ("php", "php"),
    ("ruby", "ruby"),
    ("java", "java"),
    ("kotlin", "kotlin"),
    ("csharp", "dotnet"),
    ("fsharp", "dotnet"),
    ("dotnet", "dotnet"),
];

/// The languages the frontmatter name names by a whole word (`go-concurrency-patterns`,
/// `python_testing`), as mentions on the name's line.
fn name_languages(skill: &Skill) -> Vec<Mention> {
    let Some(field) = &skill.frontmatter.name else {
        return Vec::new();
    };
    let span = Span {
        start: field.span.start,
        end: field.span.end,
    };
    let mut found: Vec<Mention> = Vec::new();
    for word in field
        .value
        .to_ascii_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
    {
        let Some((_, runtime)) = NAME_LANGUAGES.iter().find(|(w, _)| *w == word) else {
            continue;
        };
        if !found.iter().any(|m| m.subject.package == *runtime) {
            found.push(Mention {
                subject: super::Subject {
                    ecosystem: Ecosystem::Runtime,
                    package: (*runtime).to_owned(),
                },
                span,
            });
        }
    }
    found
}

/// Installers whose commands prose writes as inline code.
const INSTALLERS: &[&str] = &[
    "npm", "pnpm", "yarn", "bun", "pip", "pip3", "uv", "poetry", "cargo", "go", "python", "python3",
];

/// Inline code spans that read as an install command (`pnpm add -D vitest`), as
/// `(offset of the command, command)`; the backticks are left out.
fn inline_commands<'t>(
    text: &'t str,
    spans: &'t [std::ops::Range<usize>],
) -> impl Iterator<Item = (usize, &'t str)> + 't {
    spans.iter().filter_map(move |span| {
        let raw = text.get(span.clone())?;
        let ticks = raw.len() - raw.trim_start_matches('`').len();
        let inner = raw.trim_matches('`');
        let lead = inner.len() - inner.trim_start().len();
        let command = inner.trim();
        let mut words = command.split_whitespace();
        let installer = INSTALLERS.contains(&words.next()?);
        (installer && words.next().is_some()).then_some((span.start + ticks + lead, command))
    })
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
/// claim of its section and the sections below it, and so does a section that opens with
/// "Skip this section if using React 18". The title (`# Upgrading React`) names the whole
/// skill's subject, so only headings below it count.
fn sections_role(sections: &[Section], text: &str, offset: usize) -> Option<Role> {
    let mut at = sections
        .iter()
        .rposition(|s| s.level > 0 && s.range.contains(&offset));
    while let Some(index) = at {
        let section = &sections[index];
        if section.level < 2 {
            break;
        }
        let opening = text
            .get(section.heading.end..section.range.end)
            .map(|body| {
                let end = (0..=OPENING.min(body.len()))
                    .rev()
                    .find(|&i| body.is_char_boundary(i))
                    .unwrap_or(0);
                &body[..end]
            })
            .unwrap_or_default();
        if let Some(role) = heading_role(&section.title).or_else(|| section_opening_role(opening)) {
            return Some(role);
        }
        at = section.parent;
    }
    None
}

/// The role the headings above byte `offset` of a markdown document give what stands there
/// (a section for readers on another version, a legacy or migration section), as for the
/// claims read there: what a rule reading commands asks before taking one as the skill's.
pub fn section_role(doc: &Document, text: &str, offset: usize) -> Option<Role> {
    sections_role(&doc.sections, text, offset)
}

/// How much of a section's start is read for a gate on the whole section.
const OPENING: usize = 400;

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a section's opening gates it, also when the opening's byte limit falls inside a
    /// character: a "skip this section" far down the section gates nothing.
    #[test]
    fn only_the_opening_of_a_section_gates_it() {
        let filler = "é".repeat(OPENING);
        // One of the two paddings puts the opening's byte limit inside an `é`.
        let (text, doc) = ["", "x"]
            .iter()
            .map(|pad| {
                let text = format!(
                    "## Setup\n\nUse React 19.{pad}\n\n{filler}\n\nSkip this section if using React 18.\n"
                );
                let doc = Document::parse(&text, 0..text.len());
                (text, doc)
            })
            .find(|(text, doc)| {
                let section = doc.sections.iter().find(|s| s.level == 2).expect("section");
                !text.is_char_boundary(section.heading.end + OPENING)
            })
            .expect("a padding that splits a character");
        let offset = text.find("React 19").expect("claim");
        assert_eq!(sections_role(&doc.sections, &text, offset), None);

        let gated = format!("## Setup\n\nSkip this section if using React 18.\n\n{filler}\n");
        let doc = Document::parse(&gated, 0..gated.len());
        assert_eq!(sections_role(&doc.sections, &gated, 20), Some(Role::Gated));
    }
}

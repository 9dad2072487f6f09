//! SG2xx: size and cost. Every token of a skill is paid on every task it is loaded for.

use crate::lint::RuleDoc;
use std::sync::LazyLock;

use regex::Regex;

use crate::finding::Severity;
use crate::lint::{Context, Rule};
use crate::skill::{CodeBlock, Document, tokens};

/// SG201.
pub const BODY_TOO_MANY_TOKENS: Rule = Rule {
    doc: RuleDoc {
        code: "SG201",
        name: "body-too-many-tokens",
        severity: Severity::Warning,
        summary: "The SKILL.md body is over the token budget",
        what: "Counts the body's o200k_base tokens and flags bodies over the budget: the \
           strictest of the skill's targets (5,000 for each today, docs/targets.md), named in \
           the message; `limits.body-tokens` overrides it. The per-section table in the \
           output shows where they go.",
        why: "Measured on thousands of tasks, long skills raise token use by 70–400% while most \
          change nothing; an equally long irrelevant text reproduces much of their effect.",
        fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\n# Notes\n\nThe quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog.\n==> skillgate.toml <==\n[limits]\nbody-tokens = 100\n",
        passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\n# Notes\n\nKeep each note under five lines.\n",
    },
    check: |cx, out| {
        let body = &cx.skill.body;
        let budget = cx.settings.body_tokens();
        if body.tokens > budget.value {
            let biggest = largest_sections(body, 3);
            out.report(&cx.skill.source, body_head(cx), format!("the body has {} tokens; {}", body.tokens, budget.describe("budget")))
                .help(format!("largest sections: {biggest}; move detail into references/ that the agent opens on demand"));
        }
    },
};

/// SG202.
pub const BODY_TOO_MANY_LINES: Rule = Rule {
    doc: RuleDoc {
        code: "SG202",
        name: "body-too-many-lines",
        severity: Severity::Warning,
        summary: "SKILL.md is longer than its targets want",
        what: "Flags a SKILL.md over the strictest line limit of the skill's targets (500 for \
           each today, docs/targets.md), named in the message; `limits.body-lines` overrides it.",
        why: "Skill guidance recommends keeping SKILL.md under 500 lines and splitting the rest \
          into references loaded on demand.",
        fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\n# Notes\n\none\n\ntwo\n\nthree\n\nfour\n==> skillgate.toml <==\n[limits]\nbody-lines = 8\n",
        passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\n# Notes\n\none\n",
    },
    check: |cx, out| {
        let lines = cx.skill.source.line_count();
        let limit = cx.settings.body_lines();
        if lines > limit.value {
            let line = u32::try_from(limit.value + 1).unwrap_or(u32::MAX);
            let span = cx.skill.source.line_location(line).span;
            out.report(
                &cx.skill.source,
                span,
                format!("SKILL.md has {lines} lines; {}", limit.describe("limit")),
            )
            .help("split detail into references/ files linked from SKILL.md");
        }
    },
};

/// Example code below this many tokens costs little, whatever its share of a short body.
const MIN_EXAMPLE_TOKENS: usize = 500;

/// Fence tags that hold prose, document templates or drawings rather than code.
const NOT_CODE: &[&str] = &[
    "markdown",
    "md",
    "text",
    "txt",
    "plain",
    "plaintext",
    "dot",
    "mermaid",
    "ascii",
];

/// Whether a block is example code: tagged with a language that is not prose or a drawing.
fn is_example_code(block: &CodeBlock) -> bool {
    let tag = block
        .lang
        .as_deref()
        .and_then(|l| l.split_whitespace().next())
        .map(str::to_ascii_lowercase);
    tag.is_some_and(|t| !NOT_CODE.contains(&t.as_str()))
}

/// SG203.
pub const EXAMPLE_CODE_SHARE: Rule = Rule {
    doc: RuleDoc {
        code: "SG203",
        name: "example-code-share",
        severity: Severity::Warning,
        summary: "Too much of the body is example code",
        what: "Computes the tokens of example-code blocks / body tokens and flags a share above \
           0.40 (`limits.code-share`), naming the largest blocks. Blocks without a language \
           tag, and blocks tagged as prose or diagrams (`markdown`, `text`, `dot`, `mermaid`), \
           hold instructions, document templates or drawings, not example code, and are not \
           counted; nor is a body whose example code adds up to fewer than 500 tokens. Both \
           exclusions come from the measured false positives in docs/precision.md.",
        why: "Example-code dumps cost about a quarter of a skill's tokens in measurements and \
          hurt the strongest model; agents copy examples even when they do not fit.",
        fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\n# Notes\n\nUse the helpers.\n\n```python\ndef format_title(note):\n    value = note.get('title', '')\n    if not value:\n        raise ValueError('the note has no title')\n    return value.upper()\n\ndef format_body(note):\n    value = note.get('body', '')\n    if not value:\n        raise ValueError('the note has no body')\n    return value.strip()\n\ndef format_tags(note):\n    value = note.get('tags', '')\n    if not value:\n        raise ValueError('the note has no tags')\n    return value.lower()\n\ndef format_author(note):\n    value = note.get('author', '')\n    if not value:\n        raise ValueError('the note has no author')\n    return value.title()\n\ndef format_summary(note):\n    value = note.get('summary', '')\n    if not value:\n        raise ValueError('the note has no summary')\n    return value.capitalize()\n\ndef format_footer(note):\n    value = note.get('footer', '')\n    if not value:\n        raise ValueError('the note has no footer')\n    return value.upper()\n\ndef format_header(note):\n    value = note.get('header', '')\n    if not value:\n        raise ValueError('the note has no header')\n    return value.strip()\n\ndef format_owner(note):\n    value = note.get('owner', '')\n    if not value:\n        raise ValueError('the note has no owner')\n    return value.lower()\n\ndef format_status(note):\n    value = note.get('status', '')\n    if not value:\n        raise ValueError('the note has no status')\n    return value.title()\n\ndef format_topic(note):\n    value = note.get('topic', '')\n    if not value:\n        raise ValueError('the note has no topic')\n    return value.capitalize()\n\ndef format_section(note):\n    value = note.get('section', '')\n    if not value:\n        raise ValueError('the note has no section')\n    return value.upper()\n\ndef format_comment(note):\n    value = note.get('comment', '')\n    if not value:\n        raise ValueError('the note has no comment')\n    return value.strip()\n\ndef format_reviewer(note):\n    value = note.get('reviewer', '')\n    if not value:\n        raise ValueError('the note has no reviewer')\n    return value.lower()\n\ndef format_project(note):\n    value = note.get('project', '')\n    if not value:\n        raise ValueError('the note has no project')\n    return value.title()\n\ndef format_priority(note):\n    value = note.get('priority', '')\n    if not value:\n        raise ValueError('the note has no priority')\n    return value.capitalize()\n\ndef format_deadline(note):\n    value = note.get('deadline', '')\n    if not value:\n        raise ValueError('the note has no deadline')\n    return value.upper()\n\ndef format_location(note):\n    value = note.get('location', '')\n    if not value:\n        raise ValueError('the note has no location')\n    return value.strip()\n\ndef format_audience(note):\n    value = note.get('audience', '')\n    if not value:\n        raise ValueError('the note has no audience')\n    return value.lower()\n\ndef format_language(note):\n    value = note.get('language', '')\n    if not value:\n        raise ValueError('the note has no language')\n    return value.title()\n\ndef format_category(note):\n    value = note.get('category', '')\n    if not value:\n        raise ValueError('the note has no category')\n    return value.capitalize()\n\ndef format_source(note):\n    value = note.get('source', '')\n    if not value:\n        raise ValueError('the note has no source')\n    return value.upper()\n\ndef format_version(note):\n    value = note.get('version', '')\n    if not value:\n        raise ValueError('the note has no version')\n    return value.strip()\n\ndef format_editor(note):\n    value = note.get('editor', '')\n    if not value:\n        raise ValueError('the note has no editor')\n    return value.lower()\n\ndef format_license(note):\n    value = note.get('license', '')\n    if not value:\n        raise ValueError('the note has no license')\n    return value.title()\n```\n",
        passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\n# Notes\n\nPut the title on the first line in capitals, underline it with equals signs, then write the body without leading or trailing blank lines. Keep notes short, and link to details instead of pasting them.\n\n```sh\nnotes fmt\n```\n",
    },
    check: |cx, out| {
        let body = &cx.skill.body;
        let code: Vec<&CodeBlock> = body
            .code_blocks
            .iter()
            .filter(|b| is_example_code(b))
            .collect();
        let code_tokens: usize = code.iter().map(|b| b.tokens).sum();
        let share = if body.tokens == 0 {
            0.0
        } else {
            (code_tokens as f64 / body.tokens as f64).min(1.0)
        };
        let limit = cx.settings.limits.code_share;
        if share > limit && code_tokens >= MIN_EXAMPLE_TOKENS {
            let mut blocks = code;
            blocks.sort_by(|a, b| {
                b.tokens
                    .cmp(&a.tokens)
                    .then(a.range.start.cmp(&b.range.start))
            });
            let src = &cx.skill.source;
            let biggest = blocks
                .iter()
                .take(3)
                .map(|b| {
                    format!(
                        "line {} ({} tokens)",
                        src.line_column(b.range.start).0,
                        b.tokens
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            let finding = out
                .report(
                    src,
                    body_head(cx),
                    format!(
                        "{:.0}% of the body's tokens are code blocks; the limit is {:.0}%",
                        share * 100.0,
                        limit * 100.0
                    ),
                )
                .help(format!(
                    "largest blocks: {biggest}; move them to references/ or scripts/ and link them"
                ));
            for b in blocks.iter().take(3) {
                finding.related(
                    src,
                    b.range.clone(),
                    format!("{}-token code block", b.tokens),
                );
            }
        }
    },
};

/// SG204.
pub const LONG_CODE_BLOCK: Rule = Rule {
    doc: RuleDoc {
        code: "SG204",
        name: "long-code-block",
        severity: Severity::Warning,
        summary: "A single code block is over 60 lines",
        what: "Flags code blocks longer than 60 lines (`limits.code-block-lines`).",
        why: "Long listings are copied rather than understood; a script in scripts/ runs without \
          costing context.",
        fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\n```sh\na\nb\nc\nd\n```\n==> skillgate.toml <==\n[limits]\ncode-block-lines = 3\n",
        passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\n```sh\na\n```\n",
    },
    check: |cx, out| {
        let limit = cx.settings.limits.code_block_lines;
        for b in cx.skill.body.code_blocks.iter().filter(|b| b.lines > limit) {
            out.report(
                &cx.skill.source,
                b.range.start..b.content.start.max(b.range.start),
                format!(
                    "this code block has {} lines; the limit is {limit}",
                    b.lines
                ),
            )
            .help("move it to scripts/ (to run) or references/ (to read) and link it");
        }
    },
};

static TOC_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u)^(table of )?contents$|^toc$|^index$|^overview$").expect("valid regex")
});

/// Whether a document opens with a table of contents: a heading named like one, or a list of
/// at least three in-page links.
fn has_toc(doc: &Document) -> bool {
    doc.sections
        .iter()
        .any(|s| TOC_HEADING.is_match(&s.title.trim().to_ascii_lowercase()))
        || doc.links.iter().filter(|l| l.dest.starts_with('#')).count() >= 3
}

/// SG205.
pub const REFERENCE_WITHOUT_TOC: Rule = Rule {
    doc: RuleDoc {
        code: "SG205",
        name: "reference-without-toc",
        severity: Severity::Warning,
        summary: "A large reference file has no table of contents",
        what: "Flags markdown files in the skill folder over 10,000 tokens \
           (`limits.reference-tokens`) that have no table of contents. Counting stops once \
           the limit is passed, so the message says \"more than\" the limit; \
           `--exact-tokens` counts the whole file and prints its count.",
        why: "Agents often read the head of a long file and stop; a table of contents lets them \
          jump to the part they need.",
        fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nSee [the guide](references/guide.md).\n==> references/guide.md <==\n# Guide\n\n## Part one\n\nText of part one.\n\n## Part two\n\nText of part two.\n==> skillgate.toml <==\n[limits]\nreference-tokens = 10\n",
        passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nSee [the guide](references/guide.md).\n==> references/guide.md <==\n# Guide\n\n## Contents\n\n- [Part one](#part-one)\n- [Part two](#part-two)\n- [Part three](#part-three)\n\n## Part one\n\nText.\n",
    },
    check: |cx, out| {
        let limit = cx.settings.limits.reference_tokens;
        for file in &cx.skill.files {
            let Some((src, doc)) = file.source.as_ref().zip(file.doc.as_ref()) else {
                continue;
            };
            // The table of contents first: it is found without counting a token.
            if has_toc(doc) {
                continue;
            }
            let text = &src.text[doc.range.clone()];
            let size = if doc.counted {
                (doc.tokens > limit).then(|| doc.tokens.to_string())
            } else if !tokens::exceeds(text, limit) {
                None
            } else if cx.settings.exact_tokens {
                Some(tokens::count(text).to_string())
            } else {
                Some(format!("more than {limit}"))
            };
            if let Some(size) = size {
                out.report(
                    src,
                    src.line_range(0),
                    format!("{} has {size} tokens and no table of contents", file.rel),
                )
                .help("add a `## Contents` list linking to its sections");
            }
        }
    },
};

/// The first line of the body, where whole-body findings point.
fn body_head(cx: &Context<'_>) -> std::ops::Range<usize> {
    let src = &cx.skill.source;
    let start = cx.skill.body.range.start.min(src.text.len());
    let index = src.line_index(start);
    let index = (index..src.line_count())
        .find(|&i| !src.text[src.line_range(i)].trim().is_empty())
        .unwrap_or(index);
    src.line_range(index.min(src.line_count().saturating_sub(1)))
}

fn largest_sections(body: &Document, n: usize) -> String {
    let mut sections: Vec<_> = body.sections.iter().collect();
    sections.sort_by_key(|s| std::cmp::Reverse(s.tokens));
    sections
        .iter()
        .take(n)
        .map(|s| {
            let title = if s.title.is_empty() {
                "(preamble)"
            } else {
                &s.title
            };
            format!("\"{title}\" ({})", s.tokens)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

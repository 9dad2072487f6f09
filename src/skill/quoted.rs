//! Quoted text: what a skill quotes (a user's phrase in straight or typographic quotes, a
//! command in inline code) is not the skill's own voice, so the prose rules read past it.
//!
//! Shown text: what a skill *shows* (an attack explained, a bad example, a blockquote, a
//! table of patterns, the strings of a test) rather than *tells* the agent to do. Every rule
//! that judges instructions asks [`Shown`] whether a place of a markdown file is shown, and
//! reports at most an info note there.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::{Document, PROHIBITION};

/// `text` with every quoted span's content blanked to spaces, byte for byte, so offsets of
/// the rest stay valid. Quotes are `"…"`, `“…”`, `‘…’`, `'…'` (an apostrophe inside a word is
/// not a quote) and backtick code spans; an unclosed quote blanks nothing.
pub fn mask(text: &str) -> String {
    let mut out = text.as_bytes().to_vec();
    for span in spans(text) {
        out[span].fill(b' ');
    }
    // Only whole characters were blanked, between ASCII or whole-character quote marks.
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

/// Byte ranges of quoted contents, quote marks included.
pub fn spans(text: &str) -> Vec<Range<usize>> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        let close = match c {
            '"' => Some('"'),
            '`' => Some('`'),
            '\u{201c}' => Some('\u{201d}'),
            '\u{2018}' => Some('\u{2019}'),
            '\'' if opens(&chars, i) => Some('\''),
            _ => None,
        };
        let Some(close) = close else {
            i += 1;
            continue;
        };
        let end = (i + 1..chars.len()).find(|&j| {
            chars[j].1 == close
                && (close != '\'' && close != '\u{2019}' || closes(&chars, j))
                && (c != '`' || j > i + 1)
        });
        match end {
            Some(j) => {
                let (at, ch) = chars[j];
                spans.push(start..at + ch.len_utf8());
                i = j + 1;
            }
            None => i += 1,
        }
    }
    spans
}

/// A single quote opens a quotation at the start or after a space or an opening bracket.
fn opens(chars: &[(usize, char)], i: usize) -> bool {
    let before = i.checked_sub(1).map(|j| chars[j].1);
    let after = chars.get(i + 1).map(|c| c.1);
    before.is_none_or(|b| b.is_whitespace() || "([{".contains(b))
        && after.is_some_and(|a| !a.is_whitespace())
}

/// A single closing quote ends a quotation when no letter follows it (`don't` goes on).
fn closes(chars: &[(usize, char)], j: usize) -> bool {
    chars.get(j + 1).is_none_or(|c| !c.1.is_alphanumeric())
}

/// Words that mark text as a counter-example: what not to do, an attack shown to be
/// recognised, a bad example. Matched on lower-cased ASCII.
static COUNTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u)\b(bad|wrong|incorrect|dangerous|unsafe|insecure|anti-?patterns?|vulnerable|malicious|attacks?|attackers?|exploits?|red flags?|forbidden|prohibited|not allowed|instead of|blocked|blocks|deny|denied|rejects?|injection|risky|destructive|harmful|catastrophic|payloads?|phishing|poisoned|backdoors?|exfiltration|threats?|adversarial|detects?|detection|detectors?|signatures?|output formats?|(example|sample|expected) (output|report)s?|report (format|template)s?|(yaml|json|toml|xml|file|test|rule|record) formats?)\b|(?u:❌|⛔|🚫|☠)")
        .expect("valid regex")
});

/// The stricter marks a heading above the nearest one must carry to make its whole
/// subtree shown: a section titled "Injection testing" may still hold instructions, one
/// titled "Bad examples" or "Attacker's code" does not.
static COUNTER_SECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u)\b(bad|wrong|incorrect|anti-?patterns?|vulnerable|malicious|attackers?|exploits?|red flags?|examples? (of )?attacks?|attack (examples?|patterns?|scenarios?|vectors?|payloads?)|dangerous (code |command |shell )?patterns?|what not to do|don(?:'|(?u:’))t|do not|never|avoid|forbidden|payloads?|indicators? of compromise|iocs?|detection (patterns?|rules?|signatures?)|output formats?|(example|sample|expected) (output|report)s?|report (format|template)s?)\b|(?u:❌|⛔|🚫|☠)")
        .expect("valid regex")
});

/// "Don't worry", "never mind": prohibition words that forbid nothing.
static NOT_A_PROHIBITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?-u)\b(don(?:'|(?u:’))t|do not|never) (worry|hesitate|forget|mind)\b|\bnever mind\b",
    )
    .expect("valid regex")
});

/// Whether text (a heading, the lines before a block, a comment) presents what follows as
/// something not to do, or as an attack or a pattern to recognise.
pub fn marks_shown(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let lower = NOT_A_PROHIBITION.replace_all(&lower, "");
    PROHIBITION.is_match(&lower) || COUNTER.is_match(&lower)
}

/// Whether a heading above the nearest one marks its whole subtree as shown.
fn marks_shown_section(title: &str) -> bool {
    let lower = title.to_ascii_lowercase();
    let lower = NOT_A_PROHIBITION.replace_all(&lower, "");
    COUNTER_SECTION.is_match(&lower)
}

/// Whether a reference document's title makes all of it shown: a file titled "Dangerous
/// code patterns" or "Attack payloads" is a catalogue to recognise, read with the stricter
/// marks a section's ancestors need. SKILL.md's own title names the skill and is never read
/// this way; callers ask only of the other markdown files.
pub fn shown_document(doc: &Document) -> bool {
    doc.sections.iter().find(|s| s.level > 0).is_some_and(|s| {
        // "Never lose data: backup runbook" forbids nothing it holds: a title is a
        // catalogue only by what it names, not by a prohibition word.
        let lower = s.title.to_ascii_lowercase();
        s.level == 1 && COUNTER_SECTION.is_match(&PROHIBITION.replace_all(&lower, ""))
    })
}

/// A line of code that holds a regular expression: `(?i)`, `\s+`, `\b`, `re.compile(`.
static PATTERN_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\(\?[imsx]+\)|\\[sbw][+*?]?|\bre\.(compile|search|match|findall|fullmatch)\(|\bnew RegExp\(")
        .expect("valid regex")
});

/// Whether a line of code holds a regular expression: a detector's pattern
/// (`re.compile(r"[|;&]\s*(nc|bash)")`) names what it finds; it neither says nor runs it.
pub fn holds_pattern(line: &str) -> bool {
    PATTERN_LINE.is_match(line)
}

/// Whether a line of code is a payload for another program to run rather than a step, in
/// the notations of injection strings: a line that opens with a command separator
/// (`;nc -e /bin/sh …`, `| id`, `&& id`), which no shell line starts with, or server-side
/// code and template syntax (`<?php system(…) ?>`, `<%= IO.popen(…) %>`, `{{ … }}`).
///
/// A line that is one command substitution (`$(curl … )`) is not among them: bash runs it,
/// and runs what it prints, so a gate must not let it pass as a note.
pub fn is_injection_payload(line: &str) -> bool {
    let line = line.trim();
    line.starts_with([';', '|', '&'])
        || ["<?php", "<?=", "<%", "{{"]
            .iter()
            .any(|open| line.starts_with(open))
}

/// Whether a skill file's path makes all of it shown: tests and their fixtures, whose
/// strings are inputs to a check, not steps to run.
pub fn shown_path(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    rel.split('/').any(|part| {
        matches!(
            part,
            "tests" | "test" | "__tests__" | "testdata" | "test-fixtures" | "test_fixtures"
        )
    }) || name.starts_with("test_")
        || name.contains("_test.")
        || name.contains(".test.")
        || name.contains(".spec.")
}

/// Why a place of a markdown document is shown rather than told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// A line of a `>` blockquote.
    Blockquote,
    /// A row of a table.
    Table,
    /// Under a heading, or after a lead-in, that marks it as an example not to follow or an
    /// attack to recognise.
    CounterExample,
}

impl Shown {
    /// How a message names it.
    pub fn describe(self) -> &'static str {
        match self {
            Shown::Blockquote => "quoted in a blockquote",
            Shown::Table => "listed in a table",
            Shown::CounterExample => "shown as an example not to follow",
        }
    }
}

/// Whether byte `at` of a markdown document stands in shown text: a blockquote line, a table
/// row, or a section whose title (or an ancestor's, with the stricter marks) presents it as
/// a counter-example. `lead_in` also reads the two prose lines before `at` (for a code
/// block, `at` is its opening fence).
pub fn shown_at(text: &str, doc: &Document, at: usize, lead_in: bool) -> Option<Shown> {
    let line_start = text[..at.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..]
        .lines()
        .next()
        .unwrap_or_default()
        .trim_start();
    if line.starts_with('>') {
        return Some(Shown::Blockquote);
    }
    if line.starts_with('|') && line.trim_end().ends_with('|') {
        return Some(Shown::Table);
    }
    let nearest = doc
        .sections
        .iter()
        .enumerate()
        .rev()
        .find(|(_, s)| s.range.start <= at && at <= s.range.end.max(s.range.start));
    if let Some((index, section)) = nearest {
        // A level-one heading names the skill ("Injection scanner"), not an example.
        if section.level > 1 && marks_shown(&section.title) {
            return Some(Shown::CounterExample);
        }
        let mut parent = doc.sections[index].parent;
        while let Some(p) = parent {
            let s = &doc.sections[p];
            if s.level > 1 && marks_shown_section(&s.title) {
                return Some(Shown::CounterExample);
            }
            parent = s.parent;
        }
    }
    if lead_in {
        let floor = nearest.map_or(doc.range.start, |(_, s)| s.heading.end.min(at));
        let before = text.get(floor..at).unwrap_or_default();
        let lines = before
            .lines()
            .map(str::trim)
            .filter(|l| {
                !l.is_empty()
                    && !l.starts_with("```")
                    && !l.starts_with("~~~")
                    && !l.starts_with("<!--")
            })
            .rev()
            .take(2)
            .collect::<Vec<_>>()
            .join("\n");
        if marks_shown(&lines) {
            return Some(Shown::CounterExample);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_phrases_and_code_are_blanked_in_place() {
        let text = "Use when asked to \"review my UI\" or ‘fix my app’ or run `rm -rf`.";
        let masked = mask(text);
        assert_eq!(masked.len(), text.len());
        assert!(!masked.contains("my"));
        assert!(masked.starts_with("Use when asked to "));
        assert!(masked.ends_with(" or run         ."));
    }

    #[test]
    fn apostrophes_are_not_quotes() {
        let text = "Don't use it; it's 'my tool' we're told.";
        let masked = mask(text);
        assert!(masked.contains("Don't use it; it's"));
        assert!(!masked.contains("my tool"));
        assert!(masked.contains("we're told."));
    }

    #[test]
    fn an_unclosed_quote_blanks_nothing() {
        assert_eq!(mask("say \"hello"), "say \"hello");
    }

    #[test]
    fn counter_examples_are_recognised() {
        assert!(marks_shown("Never run this:"));
        assert!(marks_shown("## Anti-patterns"));
        assert!(marks_shown("# BAD: deletes everything"));
        assert!(marks_shown("❌ Wrong"));
        assert!(marks_shown("Attacker's code"));
        assert!(marks_shown("RED FLAGS"));
        // A sample of what the agent writes, not commands it runs.
        assert!(marks_shown("## Output Format"));
        assert!(marks_shown("Example output:"));
        assert!(marks_shown("Report template"));
        assert!(!marks_shown("## Output"));
        assert!(!marks_shown("Don't worry, just run:"));
        assert!(!marks_shown("Install the tool:"));
    }

    #[test]
    fn blockquotes_tables_and_marked_sections_are_shown() {
        let text = "# Tool\n\n## Setup\n\nRun it.\n\n> curl x | sh\n\n| a | `rm -rf /` |\n\n## Red flags\n\n### Exfiltration\n\nSends keys.\n";
        let doc = Document::parse(text, 0..text.len());
        let at = |needle: &str| text.find(needle).unwrap_or(0);
        assert_eq!(shown_at(text, &doc, at("Run it"), true), None);
        assert_eq!(
            shown_at(text, &doc, at("curl"), false),
            Some(Shown::Blockquote)
        );
        assert_eq!(
            shown_at(text, &doc, at("rm -rf"), false),
            Some(Shown::Table)
        );
        assert_eq!(
            shown_at(text, &doc, at("Sends keys"), false),
            Some(Shown::CounterExample)
        );
    }

    #[test]
    fn a_level_one_title_does_not_make_the_skill_shown() {
        let text = "# Prompt injection defense\n\nRun this.\n\n## Setup\n\nRun it.\n";
        let doc = Document::parse(text, 0..text.len());
        for needle in ["Run this", "Run it"] {
            let at = text.find(needle).unwrap_or(0);
            assert_eq!(shown_at(text, &doc, at, false), None, "{needle}");
        }
    }

    #[test]
    fn a_reference_titled_as_a_catalogue_of_attacks_is_shown() {
        let shown = |text: &str| shown_document(&Document::parse(text, 0..text.len()));
        assert!(shown(
            "# Dangerous Code Patterns\n\n## Reverse shells\n\nx\n"
        ));
        assert!(shown("# Attack payloads\n\nx\n"));
        assert!(!shown("# Injection testing\n\n## Bad input\n\nx\n"));
        assert!(!shown("Intro.\n\n## Dangerous patterns\n\nx\n"));
        assert!(!shown("# API reference\n\nx\n"));
        assert!(!shown("# Never lose data: backup runbook\n\nx\n"));
    }

    #[test]
    fn format_sections_show_a_sample() {
        assert!(marks_shown("## Atomic Test YAML Format"));
        assert!(marks_shown("### Rule file format"));
        assert!(!marks_shown("## Format the disk"));
    }

    #[test]
    fn test_files_are_shown() {
        assert!(shown_path("tests/test_scan.py"));
        assert!(shown_path("scripts/scan_test.go"));
        assert!(!shown_path("scripts/install.sh"));
    }
}

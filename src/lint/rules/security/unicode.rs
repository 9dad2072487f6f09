//! SG601 and SG602: characters that hide or disguise text — invisible and bidirectional
//! control characters, Unicode tags, and look-alike letters inside commands and URLs.

use crate::lint::RuleDoc;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::{Kind, Scan, TextFile, scan, shown};
use crate::finding::Severity;
use crate::lint::Rule;
use crate::skill::quoted::{self, Shown};

/// SG601.
pub const HIDDEN_UNICODE: Rule = Rule {
    doc: RuleDoc {
        code: "SG601",
        name: "hidden-unicode",
        severity: Severity::Error,
        summary: "Invisible or text-reordering Unicode characters in the skill's files",
        what: "Reads every text file of the skill and flags bidirectional overrides and isolates \
           (U+202A–U+202E, U+2066–U+2069), Unicode tag characters (U+E0000–U+E007F, decoding \
           the text they hide), and zero-width or invisible characters (U+200B, U+2060, \
           U+FEFF after the start, soft hyphens, Hangul fillers) as warnings. Zero-width \
           joiners inside emoji and non-Latin words, direction marks in right-to-left text, \
           the tags of a subdivision flag emoji and a zero-width space that escapes a code \
           fence are legitimate and pass. A character shown on purpose (in inline code, \
           in shown text, or inside a quotation on a line that names it: `\"ig\\u200bnore\"` \
           with a zero-width space) is an info note. Each finding names the position and \
           the code point.",
        why: "A model reads these characters; a reviewer does not see them. Tags can carry a whole \
          hidden instruction, and bidirectional overrides make a command display differently \
          from what runs (\"Trojan Source\").",
        fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nFormat the notes.\u{E0049}\u{E0067}\u{E006E}\u{E006F}\u{E0072}\u{E0065}\n",
        passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nFormat the notes. 👩\u{200D}💻 Flags: 🇫🇷. Arabic text: مرحبا\u{200F}.\n",
    },
    check: |cx, out| {
        let scan = scan(cx);
        for file in &scan.files {
            for hidden in hidden_runs(&file.source.text) {
                // A demonstration (in inline code, or in shown text) of an invisible or
                // reordering character is a note; tags always hide text from the reader.
                let demo = hidden.class != Class::Tag
                    && (shown_place(file, hidden.span.start).is_some()
                        || file.doc.is_some_and(|d| {
                            d.inline_code.iter().any(|c| c.contains(&hidden.span.start))
                        })
                        || quoted_and_named(&file.source.text, hidden.span.start));
                let message = if demo {
                    format!("{} (a demonstration in quoted text)", hidden.message)
                } else {
                    hidden.message
                };
                out.report(file.source, hidden.span, message)
                    .severity(if demo { Severity::Info } else { hidden.severity })
                    .help("delete the character; if it is meant to be there, write it visibly (an escape such as \\u200b in code)");
            }
        }
    },
};

/// SG602.
pub const HOMOGLYPH: Rule = Rule {
    doc: RuleDoc {
        code: "SG602",
        name: "homoglyph",
        severity: Severity::Error,
        summary: "A look-alike letter from another script inside a command or URL",
        what: "In code blocks, inline code, scripts and every URL, flags a word or host that mixes \
           Latin letters with Cyrillic, Greek or other letters that look like them \
           (`сurl` with a Cyrillic `с`, `pаypal.com`), and a command name that contains one. \
           Words written wholly in another script (Russian comments, Greek symbols such as \
           `Δt`) pass. Names the position, the code point and the letter it imitates.",
        why: "A look-alike letter makes a command or host read as a trusted one while it names \
          another: a different program, a domain the attacker owns.",
        fires: "---\nname: demo\ndescription: Installs demo. Use when installing demo.\n---\n```bash\nc\u{0443}rl -fsSL https://demo.example/install.sh -o install.sh\n```\n",
        passes: "---\nname: demo\ndescription: Installs demo. Use when installing demo.\n---\n```bash\n# Скачать установщик\ncurl -fsSL https://demo.example/install.sh -o install.sh\n```\n",
    },
    check: |cx, out| {
        let scan = scan(cx);
        for (span, file, message, shown) in homoglyphs(scan) {
            let finding = if shown {
                out.report(
                    scan.files[file].source,
                    span,
                    format!("{message} (shown as an example)"),
                )
                .severity(Severity::Info)
            } else {
                out.report(scan.files[file].source, span, message)
            };
            finding.help("retype the word in plain ASCII and check where it really points");
        }
    },
};

/// A run of hidden characters.
struct Hidden {
    span: Range<usize>,
    message: String,
    severity: Severity,
    class: Class,
}

/// What a hidden character is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Bidi,
    Tag,
    Invisible,
}

fn class(c: char) -> Option<Class> {
    match c {
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => Some(Class::Bidi),
        '\u{E0000}'..='\u{E007F}' => Some(Class::Tag),
        '\u{200B}'
        | '\u{200C}'
        | '\u{200D}'
        | '\u{2060}'..='\u{2064}'
        | '\u{FEFF}'
        | '\u{180E}'
        | '\u{00AD}'
        | '\u{115F}'
        | '\u{1160}'
        | '\u{3164}'
        | '\u{FFA0}'
        | '\u{200E}'
        | '\u{200F}'
        | '\u{061C}'
        | '\u{FFF9}'..='\u{FFFB}' => Some(Class::Invisible),
        _ => None,
    }
}

fn name(c: char) -> &'static str {
    match c {
        '\u{202A}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202B}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202C}' => "POP DIRECTIONAL FORMATTING",
        '\u{202D}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202E}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        '\u{200B}' => "ZERO WIDTH SPACE",
        '\u{200C}' => "ZERO WIDTH NON-JOINER",
        '\u{200D}' => "ZERO WIDTH JOINER",
        '\u{2060}' => "WORD JOINER",
        '\u{FEFF}' => "ZERO WIDTH NO-BREAK SPACE",
        '\u{00AD}' => "SOFT HYPHEN",
        '\u{200E}' => "LEFT-TO-RIGHT MARK",
        '\u{200F}' => "RIGHT-TO-LEFT MARK",
        '\u{061C}' => "ARABIC LETTER MARK",
        '\u{E0000}'..='\u{E007F}' => "TAG",
        _ => "INVISIBLE CHARACTER",
    }
}

fn is_rtl_letter(c: char) -> bool {
    matches!(c, '\u{0590}'..='\u{08FF}' | '\u{FB1D}'..='\u{FDFF}' | '\u{FE70}'..='\u{FEFC}')
}

/// Whether a hidden character has a legitimate job where it stands.
fn legitimate(text: &str, at: usize, c: char, line: &str) -> bool {
    let before = text[..at].chars().next_back();
    let after = text[at + c.len_utf8()..].chars().next();
    let non_ascii = |c: Option<char>| c.is_some_and(|c| !c.is_ascii());
    match c {
        // Joiners shape emoji sequences and scripts such as Persian and Devanagari.
        '\u{200C}' | '\u{200D}' => non_ascii(before) && non_ascii(after),
        // Direction marks belong to right-to-left text, or escape a fence.
        '\u{200E}' | '\u{200F}' | '\u{061C}' => {
            line.chars().any(is_rtl_letter) || fence_follows(text, at, c)
        }
        '\u{FEFF}' => at == 0,
        // Markdown writers put a zero-width space or a direction mark before a fence to show
        // it inside a block.
        '\u{200B}' | '\u{2060}' => fence_follows(text, at, c),
        _ => false,
    }
}

/// Whether a code fence follows the character at `at` (other invisible characters between).
fn fence_follows(text: &str, at: usize, c: char) -> bool {
    let rest = text[at + c.len_utf8()..].trim_start_matches(|c| class(c) == Some(Class::Invisible));
    rest.starts_with("```") || rest.starts_with("~~~")
}

/// Hidden characters of `text`, consecutive ones of a class grouped.
fn hidden_runs(text: &str) -> Vec<Hidden> {
    if text.is_ascii() {
        return Vec::new();
    }
    let mut out: Vec<Hidden> = Vec::new();
    let mut run: Option<(Class, usize, usize, Vec<char>)> = None;
    // Only the lead bytes of the characters `class` knows can start a hidden character.
    let candidates = text
        .bytes()
        .enumerate()
        .filter(|(_, b)| matches!(b, 0xC2 | 0xD8 | 0xE1 | 0xE2 | 0xE3 | 0xEF | 0xF3))
        .filter_map(|(at, _)| text.get(at..)?.chars().next().map(|c| (at, c)));
    for (at, c) in candidates {
        let class = class(c).filter(|_| {
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
            !legitimate(text, at, c, &text[line_start..line_end])
        });
        match (&mut run, class) {
            (Some((open, _, end, chars)), Some(class)) if *open == class && *end == at => {
                *end = at + c.len_utf8();
                chars.push(c);
            }
            (_, class) => {
                if let Some(done) = run.take() {
                    out.extend(describe(text, done));
                }
                run = class.map(|class| (class, at, at + c.len_utf8(), vec![c]));
            }
        }
    }
    if let Some(done) = run {
        out.extend(describe(text, done));
    }
    out
}

fn describe(
    text: &str,
    (class, start, end, chars): (Class, usize, usize, Vec<char>),
) -> Option<Hidden> {
    let first = chars[0];
    let count = if chars.len() > 1 {
        format!(" ({} characters)", chars.len())
    } else {
        String::new()
    };
    let (message, severity) = match class {
        Class::Bidi => (
            format!(
                "U+{:04X} {} changes the order in which the following text is displayed{count}",
                first as u32,
                name(first)
            ),
            Severity::Error,
        ),
        Class::Tag => {
            // A subdivision flag: black flag, tag letters, cancel tag.
            let flag = text[..start].ends_with('\u{1F3F4}') && chars.last() == Some(&'\u{E007F}');
            if flag {
                return None;
            }
            let hidden: String = chars
                .iter()
                .filter_map(|&c| {
                    char::from_u32(c as u32 - 0xE0000).filter(|c| c.is_ascii_graphic() || *c == ' ')
                })
                .collect();
            (
                format!(
                    "Unicode tag characters U+{:04X}… hide the text \"{}\"{count}",
                    first as u32,
                    hidden.chars().take(80).collect::<String>()
                ),
                Severity::Error,
            )
        }
        Class::Invisible => (
            format!(
                "invisible character U+{:04X} {}{count}",
                first as u32,
                name(first)
            ),
            Severity::Warning,
        ),
    };
    Some(Hidden {
        span: start..end,
        message,
        severity,
        class,
    })
}

/// Letters of other scripts that look like Latin ones, and the letter each imitates.
const CONFUSABLES: &[(char, char)] = &[
    ('а', 'a'),
    ('в', 'b'),
    ('е', 'e'),
    ('к', 'k'),
    ('м', 'm'),
    ('н', 'h'),
    ('о', 'o'),
    ('р', 'p'),
    ('с', 'c'),
    ('т', 't'),
    ('у', 'y'),
    ('х', 'x'),
    ('ѕ', 's'),
    ('і', 'i'),
    ('ј', 'j'),
    ('ԁ', 'd'),
    ('ԛ', 'q'),
    ('ԝ', 'w'),
    ('һ', 'h'),
    ('ӏ', 'l'),
    ('ү', 'y'),
    ('А', 'A'),
    ('В', 'B'),
    ('Е', 'E'),
    ('К', 'K'),
    ('М', 'M'),
    ('Н', 'H'),
    ('О', 'O'),
    ('Р', 'P'),
    ('С', 'C'),
    ('Т', 'T'),
    ('Х', 'X'),
    ('І', 'I'),
    ('Ј', 'J'),
    ('Ѕ', 'S'),
    ('ο', 'o'),
    ('ν', 'v'),
    ('ι', 'i'),
    ('ρ', 'p'),
    ('α', 'a'),
    ('κ', 'k'),
    ('Α', 'A'),
    ('Β', 'B'),
    ('Ε', 'E'),
    ('Ζ', 'Z'),
    ('Η', 'H'),
    ('Ι', 'I'),
    ('Κ', 'K'),
    ('Μ', 'M'),
    ('Ν', 'N'),
    ('Ο', 'O'),
    ('Ρ', 'P'),
    ('Τ', 'T'),
    ('Υ', 'Y'),
    ('Χ', 'X'),
    ('օ', 'o'),
    ('ս', 'u'),
    ('ց', 'g'),
];

fn imitates(c: char) -> Option<char> {
    if ('\u{FF21}'..='\u{FF5A}').contains(&c) {
        // Fullwidth Latin letters.
        return char::from_u32(c as u32 - 0xFF21 + 0x41);
    }
    CONFUSABLES.iter().find(|(k, _)| *k == c).map(|(_, l)| *l)
}

static URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?-u:\b)(?:https?|ftp|wss?)://([^/\s)>\]`'\x22?#]+)").expect("valid regex")
});

/// Why a place of a scanned file is shown rather than told: for a code block, its heading
/// and lead-in; elsewhere, the place itself.
fn shown_place(file: &TextFile<'_>, at: usize) -> Option<Shown> {
    let block = file
        .doc
        .and_then(|doc| doc.code_blocks.iter().find(|b| b.range.contains(&at)));
    match block {
        Some(b) => shown(file, b.range.start, true),
        None => shown(file, at, false),
    }
}

/// Whether a look-alike at `at` is in inline code whose line names the trick
/// ("Homoglyphs: `rеquests` (Cyrillic е)"): a demonstration, not a disguise.
fn names_the_trick(file: &TextFile<'_>, at: usize) -> bool {
    let Some(doc) = file.doc else {
        return false;
    };
    let text = &file.source.text;
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    // In inline code the whole line may name it; in a code block, a comment after it
    // (`email=аdmin@x.com  # Cyrillic 'а' (U+0430)`).
    let line = if doc.inline_code.iter().any(|c| c.contains(&at)) {
        text[start..end].to_lowercase()
    } else if doc.code_blocks.iter().any(|b| b.content.contains(&at)) {
        let rest = &text[at..end];
        match rest.find(" #").or_else(|| rest.find(" //")) {
            Some(comment) => rest[comment..].to_lowercase(),
            None => return false,
        }
    } else {
        return false;
    };
    [
        "cyrillic",
        "greek",
        "homoglyph",
        "look-alike",
        "lookalike",
        "confusable",
    ]
    .iter()
    .any(|w| line.contains(w))
}

/// Whether the hidden character at `at` stands inside a quotation on a line that names the
/// trick it shows ("split keywords, e.g. \"ig\u{200B}nore\" with a zero-width space"): a
/// demonstration, not a disguise.
fn quoted_and_named(text: &str, at: usize) -> bool {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line = &text[start..end];
    let lower = line.to_ascii_lowercase();
    let named = [
        "zero-width",
        "zero width",
        "invisible",
        "u+200",
        "u+2060",
        "u+feff",
        "u+202",
        "zwsp",
        "zwj",
        "bidi",
        "trojan source",
    ]
    .iter()
    .any(|w| lower.contains(w));
    named
        && quoted::spans(line)
            .iter()
            .any(|q| q.start < at - start && at - start < q.end)
}

/// Package managers and runners whose arguments name packages.
const INSTALLERS: &[&str] = &[
    "pip", "pip3", "pipx", "uv", "uvx", "npm", "npx", "pnpm", "yarn", "bun", "bunx", "gem",
    "cargo", "go", "composer", "brew", "apt", "apt-get", "conda",
];

/// Commands a Greek look-alike could pass for.
const KNOWN_COMMANDS: &[&str] = &[
    "curl", "wget", "bash", "sh", "zsh", "python", "python3", "node", "npm", "npx", "pip", "pip3",
    "git", "ssh", "scp", "sudo", "rm", "chmod", "eval", "exec", "nc", "perl", "ruby",
];

/// One look-alike found: where, in which file, the message, and whether it is only shown.
type Lookalike = (Range<usize>, usize, String, bool);

/// Look-alike letters where they deceive: URL hosts anywhere, command names, package names
/// given to an installer, and identifiers of code (there Greek letters are math symbols,
/// `Cα` or `Δt`, and pass). Prose, math and units are not read.
fn homoglyphs(scan: &Scan<'_>) -> Vec<Lookalike> {
    let mut out: Vec<Lookalike> = Vec::new();
    let push = |out: &mut Vec<Lookalike>, file: usize, found: (Range<usize>, String)| {
        if !out
            .iter()
            .any(|(s, f, _, _)| *f == file && s.start == found.0.start)
        {
            let shown = shown_place(&scan.files[file], found.0.start).is_some()
                || names_the_trick(&scan.files[file], found.0.start);
            out.push((found.0, file, found.1, shown));
        }
    };
    for (index, file) in scan.files.iter().enumerate() {
        let text = &file.source.text;
        if text.is_ascii() {
            continue;
        }
        for m in URL.captures_iter(text) {
            if let Some(host) = m.get(1) {
                for found in mixed_words(text, host.range(), true) {
                    push(&mut out, index, found);
                }
            }
        }
        let code: Vec<Range<usize>> = match (file.kind, file.doc) {
            (Kind::Markdown, Some(doc)) => doc
                .code_blocks
                .iter()
                .map(|b| b.content.clone())
                .chain(doc.inline_code.iter().cloned())
                .collect(),
            _ => std::iter::once(0..text.len()).collect(),
        };
        for range in code {
            for found in mixed_words(text, range, false) {
                push(&mut out, index, found);
            }
        }
    }
    for command in &scan.commands {
        let words = command.effective();
        let Some(first) = words.first() else {
            continue;
        };
        let installer = INSTALLERS.contains(&command.name());
        let named = std::iter::once(first).chain(words[1..].iter().filter(|_| installer));
        let text = &scan.files[command.at.file].source.text;
        for word in named {
            if word.text.is_ascii() {
                continue;
            }
            let Some(written) = text.get(word.span.clone()) else {
                continue;
            };
            // The word must read as Latin (every foreign letter a look-alike); Greek
            // letters alone are symbols (`rho_ρ`) unless they spell a known command.
            let foreign = || written.chars().filter(|c| !c.is_ascii());
            if !foreign().all(|c| imitates(c).is_some()) {
                continue;
            }
            if foreign().all(is_greek) {
                let spelled: String = written.chars().map(|c| imitates(c).unwrap_or(c)).collect();
                if !KNOWN_COMMANDS.contains(&spelled.rsplit('/').next().unwrap_or(&spelled)) {
                    continue;
                }
            }
            let Some((offset, c, latin)) = written
                .char_indices()
                .find_map(|(i, c)| imitates(c).map(|l| (i, c, l)))
            else {
                continue;
            };
            let span = word.span.start + offset..word.span.start + offset + c.len_utf8();
            let what = if std::ptr::eq(word, first) {
                "command"
            } else {
                "package"
            };
            let message = format!(
                "{what} `{}` contains U+{:04X}, which looks like '{latin}'",
                word.text, c as u32
            );
            // A command word already reported as a mixed word is replaced by this message.
            out.retain(|(s, f, _, _)| !(*f == command.at.file && word.span.contains(&s.start)));
            out.push((span, command.at.file, message, command.counter_example));
        }
    }
    out
}

fn is_greek(c: char) -> bool {
    ('\u{0370}'..='\u{03FF}').contains(&c)
}

/// Words of `text[range]` that read as Latin but hold look-alike letters of other scripts:
/// every non-ASCII letter of the word imitates a Latin one. In a host (`host`) every
/// look-alike counts; in code, Greek letters are symbols and do not.
fn mixed_words(text: &str, range: Range<usize>, host: bool) -> Vec<(Range<usize>, String)> {
    let Some(slice) = text.get(range.clone()) else {
        return Vec::new();
    };
    if slice.is_ascii() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut start = None;
    let flush = |from: usize, to: usize, out: &mut Vec<(Range<usize>, String)>| {
        let word = &slice[from..to];
        if !word.bytes().any(|b| b.is_ascii_alphabetic()) {
            return;
        }
        let foreign = || word.chars().filter(|c| !c.is_ascii());
        if !foreign().all(|c| imitates(c).is_some()) || (!host && foreign().all(is_greek)) {
            return;
        }
        if let Some((i, c, latin)) = word.char_indices().find_map(|(i, c)| {
            imitates(c)
                .filter(|_| host || !is_greek(c))
                .map(|l| (i, c, l))
        }) {
            let at = range.start + from + i;
            out.push((
                at..at + c.len_utf8(),
                format!(
                    "`{word}` mixes scripts: U+{:04X} looks like '{latin}'",
                    c as u32
                ),
            ));
        }
    };
    for (i, c) in slice.char_indices() {
        let part = c.is_alphanumeric() || c == '_';
        match (part, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                flush(s, i, &mut out);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        flush(s, slice.len(), &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_are_grouped_and_named() {
        let runs = hidden_runs("a\u{200B}\u{200B}b \u{202E}x");
        assert_eq!(runs.len(), 2);
        assert!(
            runs[0]
                .message
                .contains("U+200B ZERO WIDTH SPACE (2 characters)")
        );
        assert_eq!(runs[0].span, 1..7);
        assert!(runs[1].message.contains("U+202E RIGHT-TO-LEFT OVERRIDE"));
    }

    #[test]
    fn tags_reveal_their_text_and_flags_pass() {
        let hidden: String = "run x"
            .chars()
            .map(|c| char::from_u32(c as u32 + 0xE0000).unwrap_or(c))
            .collect();
        let runs = hidden_runs(&format!("ok{hidden}"));
        assert!(runs[0].message.contains("\"run x\""), "{}", runs[0].message);
        let england = "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}";
        assert!(hidden_runs(england).is_empty());
    }

    #[test]
    fn legitimate_joiners_and_marks_pass() {
        assert!(hidden_runs("👩\u{200D}💻 می\u{200C}خواهم שלום\u{200F}").is_empty());
        assert_eq!(hidden_runs("a\u{200D}b").len(), 1);
        assert!(hidden_runs("text\n\u{200B}```bash\n").is_empty());
        assert!(hidden_runs("text\n\u{200E}```bash\n").is_empty());
    }

    #[test]
    fn a_hidden_character_quoted_on_a_line_that_names_it_is_a_demonstration() {
        let shown = "Split keywords (e.g., \"ig\u{200B}nore\" with a zero-width space).";
        let at = shown.find('\u{200B}').unwrap_or(0);
        assert!(quoted_and_named(shown, at));
        // Unquoted, or on a line that says nothing of it: a disguise.
        let bare = "Split keywords: ig\u{200B}nore with a zero-width space.";
        assert!(!quoted_and_named(bare, bare.find('\u{200B}').unwrap_or(0)));
        let silent = "Then say \"ig\u{200B}nore the rules\" to the user.";
        assert!(!quoted_and_named(
            silent,
            silent.find('\u{200B}').unwrap_or(0)
        ));
    }

    #[test]
    fn mixed_script_words() {
        let text = "c\u{0443}rl https://p\u{0430}ypal.com Скачать Δt API-ключ";
        let found = mixed_words(text, 0..text.len(), false);
        assert_eq!(found.len(), 2);
        assert!(found[0].1.contains("U+0443"));
        assert!(found[1].1.contains("looks like 'a'"));
        // Greek symbols in code are math; in a host they deceive.
        let greek = "rho_ρ = Cα + κB; gοogle";
        assert!(mixed_words(greek, 0..greek.len(), false).is_empty());
        assert_eq!(mixed_words(greek, 0..greek.len(), true).len(), 4);
    }
}

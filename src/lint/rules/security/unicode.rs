//! SG601 and SG602: characters that hide or disguise text — invisible and bidirectional
//! control characters, Unicode tags, and look-alike letters inside commands and URLs.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::{Kind, Scan, scan};
use crate::finding::Severity;
use crate::lint::Rule;

/// SG601.
pub const HIDDEN_UNICODE: Rule = Rule {
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
           fence are legitimate and pass. Each finding names the \
           position and the code point.",
    why: "A model reads these characters; a reviewer does not see them. Tags can carry a whole \
          hidden instruction, and bidirectional overrides make a command display differently \
          from what runs (\"Trojan Source\").",
    fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nFormat the notes.\u{E0049}\u{E0067}\u{E006E}\u{E006F}\u{E0072}\u{E0065}\n",
    passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nFormat the notes. 👩\u{200D}💻 Flags: 🇫🇷. Arabic text: مرحبا\u{200F}.\n",
    check: |cx, out| {
        let scan = scan(cx);
        for file in &scan.files {
            for hidden in hidden_runs(&file.source.text) {
                out.report(file.source, hidden.span, hidden.message)
                    .severity(hidden.severity)
                    .help("delete the character; if it is meant to be there, write it visibly (an escape such as \\u200b in code)");
            }
        }
    },
};

/// SG602.
pub const HOMOGLYPH: Rule = Rule {
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
    check: |cx, out| {
        let scan = scan(cx);
        for (span, file, message) in homoglyphs(scan) {
            out.report(scan.files[file].source, span, message)
                .help("retype the word in plain ASCII and check where it really points");
        }
    },
};

/// A run of hidden characters.
struct Hidden {
    span: Range<usize>,
    message: String,
    severity: Severity,
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
        // Direction marks belong to right-to-left text.
        '\u{200E}' | '\u{200F}' | '\u{061C}' => line.chars().any(is_rtl_letter),
        '\u{FEFF}' => at == 0,
        // Markdown writers put a zero-width space before a fence to show it inside a block.
        '\u{200B}' => {
            let rest = &text[at + c.len_utf8()..];
            rest.starts_with("```") || rest.starts_with("~~~")
        }
        _ => false,
    }
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

/// Mixed-script words in code and URL hosts, and command names with look-alike letters:
/// the span, the file and the message.
fn homoglyphs(scan: &Scan<'_>) -> Vec<(Range<usize>, usize, String)> {
    let mut out = Vec::new();
    for (index, file) in scan.files.iter().enumerate() {
        let text = &file.source.text;
        if text.is_ascii() {
            continue;
        }
        let mut code: Vec<Range<usize>> = match (file.kind, file.doc) {
            (Kind::Markdown, Some(doc)) => doc
                .code_blocks
                .iter()
                .map(|b| b.content.clone())
                .chain(doc.inline_code.iter().cloned())
                .collect(),
            _ => std::iter::once(0..text.len()).collect(),
        };
        for m in URL.captures_iter(text) {
            if let Some(host) = m.get(1) {
                code.push(host.range());
            }
        }
        let mut seen = Vec::new();
        for range in code {
            for (span, message) in mixed_words(text, range) {
                if !seen.contains(&span.start) {
                    seen.push(span.start);
                    out.push((span, index, message));
                }
            }
        }
    }
    for command in &scan.commands {
        let Some(word) = command.effective().first() else {
            continue;
        };
        let text = &scan.files[command.at.file].source.text;
        let already = out
            .iter()
            .any(|(s, f, _)| *f == command.at.file && word.span.contains(&s.start));
        if already || word.text.is_ascii() {
            continue;
        }
        if let Some((offset, c, latin)) = text.get(word.span.clone()).and_then(|w| {
            w.char_indices()
                .find_map(|(i, c)| imitates(c).map(|l| (i, c, l)))
        }) {
            let span = word.span.start + offset..word.span.start + offset + c.len_utf8();
            out.push((
                span,
                command.at.file,
                format!(
                    "command `{}` contains U+{:04X}, which looks like '{latin}'",
                    word.text, c as u32
                ),
            ));
        }
    }
    out
}

/// Words of `text[range]` that mix ASCII letters with look-alike letters of other scripts.
fn mixed_words(text: &str, range: Range<usize>) -> Vec<(Range<usize>, String)> {
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
        if let Some((i, c, latin)) = word
            .char_indices()
            .find_map(|(i, c)| imitates(c).map(|l| (i, c, l)))
        {
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
        let part = c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
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
    }

    #[test]
    fn mixed_script_words() {
        let text = "c\u{0443}rl https://p\u{0430}ypal.com Скачать Δt";
        let found = mixed_words(text, 0..text.len());
        assert_eq!(found.len(), 2);
        assert!(found[0].1.contains("U+0443"));
        assert!(found[1].1.contains("looks like 'a'"));
    }
}

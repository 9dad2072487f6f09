//! Version expressions in prose: the text right after a package name ("18", ">= 20",
//! "3.12+", "18 or later"), with the numbers that are only probably versions (years,
//! counts, list items, numbers in a URL) left out.

use crate::project::version::{Dialect, Release, Requirement};

/// The line with URLs, link targets and autolinks blanked (same byte length), so a
/// `react-18` in an address claims nothing.
pub(crate) fn mask_urls(line: &str) -> String {
    let mut bytes = line.as_bytes().to_vec();
    let mut blank = |start: usize, end: usize| bytes[start..end].iter_mut().for_each(|b| *b = b' ');
    let mut search = 0;
    while let Some(found) = ["http://", "https://", "www.", "](", "<http"]
        .iter()
        .filter_map(|m| line[search..].find(m).map(|at| search + at))
        .min()
    {
        let end = line[found..]
            .find(|c: char| c.is_whitespace() || c == ')' || c == '>')
            .map_or(line.len(), |e| found + e);
        blank(found, end.max(found + 1));
        search = end.max(found + 1);
    }
    // Each blanked range runs from an ASCII marker to an ASCII delimiter (or the end), so no
    // character is cut in half and the bytes stay UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|_| line.to_owned())
}

/// Whether `text[start..end]` stands alone as a word (`Node.js`, not `Nodes`, `Python3`).
pub(crate) fn word_boundary(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '-' || c == '/';
    !before.is_some_and(is_word)
        && !after.is_some_and(|c| {
            is_word(c) || c == '.' && text[end + 1..].starts_with(char::is_alphabetic)
        })
}

/// Words after a number that show it is a count, not a version.
const UNITS: &[&str] = &[
    "%",
    "ms",
    "s",
    "sec",
    "secs",
    "second",
    "seconds",
    "min",
    "mins",
    "minute",
    "minutes",
    "hour",
    "hours",
    "day",
    "days",
    "week",
    "weeks",
    "month",
    "months",
    "year",
    "years",
    "time",
    "times",
    "file",
    "files",
    "line",
    "lines",
    "token",
    "tokens",
    "step",
    "steps",
    "item",
    "items",
    "kb",
    "mb",
    "gb",
    "px",
    "x",
    "users",
    "requests",
    "tests",
    "errors",
    "characters",
    "chars",
    "bytes",
];

/// The version expression right after a name: `(written, meaning, end offset)`.
pub(crate) fn version_after(text: &str, name_end: usize) -> Option<(String, Requirement, usize)> {
    let rest = &text[name_end..];
    let mut scanner = Scanner { text: rest, at: 0 };
    scanner.spaces(3);
    if scanner.eat_word("version") || scanner.eat_word("versions") {
        scanner.spaces(3);
    }
    let expression_start = scanner.at;
    let operator = scanner.operator();
    scanner.spaces(2);
    scanner.eat("v");
    scanner.eat("V");
    let number_start = scanner.at;
    let number = scanner.version_number()?;
    let (requirement, end) = suffix(rest, number_start, &number, operator, scanner.at)?;
    Some((
        rest[expression_start..end].trim().to_owned(),
        requirement,
        name_end + end,
    ))
}

/// Reads what follows the number: `+`, "or later", `.x`, a `- 4.2` range, "LTS"; rejects
/// years, counts and ambiguous lists.
fn suffix(
    rest: &str,
    number_start: usize,
    number: &str,
    operator: Option<&str>,
    number_end: usize,
) -> Option<(Requirement, usize)> {
    let after = &rest[number_end..];
    let is_year = !number.contains('.') && number.len() == 4;
    let next = after.chars().next();
    if is_year || next.is_some_and(|c| c.is_alphanumeric() || c == '/' || c == '%' || c == '_') {
        return None;
    }
    // A decimal point followed by more digits was consumed; `18.` ends a sentence.
    let following = after
        .trim_start()
        .split(|c: char| !c.is_alphanumeric() && c != '%')
        .next()
        .unwrap_or("");
    if UNITS.contains(&following.to_ascii_lowercase().as_str()) {
        return None;
    }
    // "3.10, 3.11 and 3.12", "17 or 18", "3.2-4.2": a list or range read as its first
    // number would claim less than the skill says.
    if continues_with_number(after) {
        return None;
    }
    let written = &rest[number_start..number_end];
    let open_ended = [
        "or later",
        "or newer",
        "or higher",
        "or above",
        "and above",
        "and later",
        "and up",
        "or greater",
        "onwards",
        "or new",
    ]
    .iter()
    .find(|phrase| {
        after
            .trim_start()
            .to_ascii_lowercase()
            .starts_with(**phrase)
    });
    if let Some(phrase) = open_ended.filter(|_| operator.is_none()) {
        let end = number_end + (after.len() - after.trim_start().len()) + phrase.len();
        return Some((
            Requirement::AtLeast(Release::parse(
                written.trim_end_matches(['+', 'x', 'X', '.']),
            )?),
            end,
        ));
    }
    let text = match operator {
        Some(op) => format!("{op}{written}"),
        None => written.to_owned(),
    };
    Some((Requirement::parse(&text, Dialect::Series)?, number_end))
}

/// Whether a joiner and another number follow: `, 3.11`, `or 18`, `- 4.2`, `/ 19`.
fn continues_with_number(after: &str) -> bool {
    let rest = after.trim_start();
    [
        "-", "–", "—", "/", ",", "&", "or ", "and ", "to ", "through ", "until ",
    ]
    .iter()
    .filter_map(|joiner| rest.strip_prefix(joiner))
    .any(|tail| {
        tail.trim_start()
            .trim_start_matches(['v', 'V'])
            .starts_with(|c: char| c.is_ascii_digit())
    })
}

/// A cursor over the text after a name.
struct Scanner<'a> {
    text: &'a str,
    at: usize,
}

impl Scanner<'_> {
    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    /// Skips up to `max` spaces.
    fn spaces(&mut self, max: usize) {
        let skipped = self
            .rest()
            .bytes()
            .take(max)
            .take_while(|b| *b == b' ')
            .count();
        self.at += skipped;
    }

    fn eat(&mut self, literal: &str) -> bool {
        let found = self.rest().starts_with(literal);
        if found {
            self.at += literal.len();
        }
        found
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let rest = self.rest();
        let matches = rest.len() >= word.len()
            && rest.is_char_boundary(word.len())
            && rest[..word.len()].eq_ignore_ascii_case(word)
            && !rest[word.len()..].starts_with(char::is_alphanumeric);
        if matches {
            self.at += word.len();
        }
        matches
    }

    fn operator(&mut self) -> Option<&'static str> {
        for (written, normalised) in [
            (">=", ">="),
            ("=>", ">="),
            ("≥", ">="),
            ("<=", "<="),
            ("≤", "<="),
            (">", ">"),
            ("<", "<"),
            ("^", "^"),
            ("~", "~"),
            ("==", "=="),
        ] {
            if self.eat(written) {
                return Some(normalised);
            }
        }
        None
    }

    /// `18`, `3.12`, `2.x`, `3.12+`, `1.2.3`: at most four components of at most four digits.
    fn version_number(&mut self) -> Option<String> {
        let start = self.at;
        let mut components = 0;
        loop {
            let digits = self.rest().bytes().take_while(u8::is_ascii_digit).count();
            let wildcard =
                digits == 0 && components > 0 && self.rest().starts_with(['x', 'X', '*']);
            if digits == 0 && !wildcard {
                break;
            }
            if digits > 4 {
                return None;
            }
            self.at += digits.max(1);
            components += 1;
            let more = self.rest().starts_with('.')
                && self.rest()[1..]
                    .starts_with(|c: char| c.is_ascii_digit() || matches!(c, 'x' | 'X' | '*'));
            if wildcard || components == 4 || !more {
                break;
            }
            self.at += 1;
        }
        if components == 0 {
            return None;
        }
        self.eat("+");
        Some(self.text[start..self.at].to_owned())
    }
}

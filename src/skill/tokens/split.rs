//! The o200k_base pre-tokenizer: splits text into the pieces that tiktoken's pattern
//!
//! ```text
//! [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! |\p{N}{1,3}
//! | ?[^\s\p{L}\p{N}]+[\r\n/]*
//! |\s*[\r\n]+
//! |\s+(?!\S)
//! |\s+
//! ```
//!
//! matches one after another, written as a scanner over generated Unicode class tables so that
//! nothing is compiled at start-up. Each alternative is a function that reproduces the
//! backtracking engine's choice: the first alternative that matches wins, and inside it greedy
//! repetitions give back characters only as far as the rest of the alternative needs.

use std::iter::FusedIterator;

use super::layout::{self, class};

include!(concat!(env!("OUT_DIR"), "/o200k_classes.rs"));

/// The pieces of a text, in order; they concatenate back to the text.
#[derive(Debug, Clone)]
pub struct Pieces<'a> {
    rest: &'a str,
}

/// Splits `text` into pieces exactly as tiktoken's o200k_base pattern does.
pub(super) fn pieces(text: &str) -> Pieces<'_> {
    Pieces { rest: text }
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        let (piece, rest) = self.rest.split_at(piece_len(self.rest));
        self.rest = rest;
        Some(piece)
    }
}

impl FusedIterator for Pieces<'_> {}

/// Byte length of the piece at the start of the non-empty `text`.
fn piece_len(text: &str) -> usize {
    word_ending_lower(text)
        .or_else(|| word_ending_upper(text))
        .or_else(|| number(text))
        .or_else(|| punctuation(text))
        .or_else(|| spaces_to_line_break(text))
        .or_else(|| spaces_before_non_space(text))
        .or_else(|| spaces(text))
        // Every character is a letter, a number, white space or matched by `punctuation`, so
        // this only guarantees progress.
        .unwrap_or_else(|| text.chars().next().map_or(text.len(), char::len_utf8))
}

/// `[^\r\n\p{L}\p{N}]?[HEAD]*[TAIL]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`
fn word_ending_lower(text: &str) -> Option<usize> {
    with_optional_prefix(text, |start| {
        let head_end = run(text, start, class::HEAD);
        // `[HEAD]*` gives back characters until `[TAIL]+` can start; HEAD and TAIL overlap.
        let tail_start = if has_class(text, head_end, class::TAIL) {
            head_end
        } else {
            text[start..head_end]
                .char_indices()
                .rev()
                .find(|&(_, c)| class_of(c) & class::TAIL != 0)
                .map(|(offset, _)| start + offset)?
        };
        Some(contraction(text, run(text, tail_start, class::TAIL)))
    })
}

/// `[^\r\n\p{L}\p{N}]?[HEAD]+[TAIL]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`
fn word_ending_upper(text: &str) -> Option<usize> {
    with_optional_prefix(text, |start| {
        let head_end = run(text, start, class::HEAD);
        (head_end > start).then(|| contraction(text, run(text, head_end, class::TAIL)))
    })
}

/// `\p{N}{1,3}`
fn number(text: &str) -> Option<usize> {
    let len: usize = text
        .chars()
        .take(3)
        .take_while(|&c| class_of(c) & class::NUMBER != 0)
        .map(char::len_utf8)
        .sum();
    (len > 0).then_some(len)
}

/// ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
fn punctuation(text: &str) -> Option<usize> {
    let start = usize::from(text.starts_with(' '));
    let end = text[start..]
        .find(|c| !is_punctuation(c))
        .map_or(text.len(), |offset| start + offset);
    if end == start {
        return None;
    }
    let trail = text[end..]
        .find(|c| !matches!(c, '\r' | '\n' | '/'))
        .unwrap_or(text.len() - end);
    Some(end + trail)
}

/// `\s*[\r\n]+`: white space up to and including its last line break.
fn spaces_to_line_break(text: &str) -> Option<usize> {
    let end = run(text, 0, class::SPACE);
    text[..end].rfind(['\r', '\n']).map(|at| at + 1)
}

/// `\s+(?!\S)`: white space, less its last character when a non-space follows.
fn spaces_before_non_space(text: &str) -> Option<usize> {
    let end = run(text, 0, class::SPACE);
    if end == text.len() {
        return (end > 0).then_some(end);
    }
    let last = text[..end].char_indices().next_back()?.0;
    (last > 0).then_some(last)
}

/// `\s+`
fn spaces(text: &str) -> Option<usize> {
    let end = run(text, 0, class::SPACE);
    (end > 0).then_some(end)
}

/// Tries `body` after the optional `[^\r\n\p{L}\p{N}]` first character, then without it, as
/// the backtracking engine does; `body` gets the offset it starts at.
fn with_optional_prefix(text: &str, body: impl Fn(usize) -> Option<usize>) -> Option<usize> {
    let first = text.chars().next()?;
    let is_prefix =
        !matches!(first, '\r' | '\n') && class_of(first) & (class::LETTER | class::NUMBER) == 0;
    is_prefix
        .then(|| body(first.len_utf8()))
        .flatten()
        .or_else(|| body(0))
}

/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)?` at `at`: the offset after the contraction, if any.
fn contraction(text: &str, at: usize) -> usize {
    let Some(after_quote) = text[at..].strip_prefix('\'') else {
        return at;
    };
    let mut chars = after_quote.chars();
    let first = chars.next().map(fold_case);
    let second = chars.next().map(fold_case);
    let len = match (first, second) {
        // 'ſ' (U+017F, long s) folds to 's' and is two bytes long.
        (Some('s'), _) => after_quote.chars().next().map_or(1, char::len_utf8),
        (Some('t' | 'm' | 'd'), _) => 1,
        (Some('r' | 'v'), Some('e')) | (Some('l'), Some('l')) => 2,
        _ => return at,
    };
    at + 1 + len
}

/// Case-folds the letters of the contractions as the regex engines do for `(?i:...)`.
fn fold_case(c: char) -> char {
    match c {
        'ſ' => 's',
        _ => c.to_ascii_lowercase(),
    }
}

/// Whether `c` is in `\s`.
pub(super) fn is_space(c: char) -> bool {
    class_of(c) & class::SPACE != 0
}

/// Whether `c` is in `[^\s\p{L}\p{N}]`.
fn is_punctuation(c: char) -> bool {
    class_of(c) & (class::SPACE | class::LETTER | class::NUMBER) == 0
}

/// The end of the longest run of characters with `bits` starting at byte offset `start`.
fn run(text: &str, start: usize, bits: u8) -> usize {
    text[start..]
        .find(|c| class_of(c) & bits == 0)
        .map_or(text.len(), |offset| start + offset)
}

/// Whether the character at byte offset `at` has `bits`; false at the end of the text.
fn has_class(text: &str, at: usize, bits: u8) -> bool {
    text[at..]
        .chars()
        .next()
        .is_some_and(|c| class_of(c) & bits != 0)
}

/// The class bits of a character.
fn class_of(c: char) -> u8 {
    let code = c as usize;
    let block = CLASS_BLOCK_INDEX
        .get(code >> layout::CLASS_BLOCK_BITS)
        .map_or(0, |&block| usize::from(block));
    // Masking keeps the column inside the block, whose length is 2^CLASS_BLOCK_BITS.
    let column = code & ((1 << layout::CLASS_BLOCK_BITS) - 1);
    CLASS_BLOCKS.get(block).map_or(0, |bits| bits[column])
}

#[cfg(test)]
mod tests {
    use super::*;
    use fancy_regex::Regex;

    /// Every code point's class bits against the regex engine's own classes.
    #[test]
    fn class_table_matches_the_regex_classes() {
        let classes = [
            (r"\p{L}", class::LETTER),
            (r"\p{N}", class::NUMBER),
            (r"\s", class::SPACE),
            (r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", class::HEAD),
            (r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]", class::TAIL),
        ];
        let classes: Vec<(regex_class::Class, u8)> = classes
            .into_iter()
            .map(|(pattern, bit)| (regex_class::Class::new(pattern), bit))
            .collect();
        for c in (0..=0x10_ffff).filter_map(char::from_u32) {
            for (regex, bit) in &classes {
                assert_eq!(
                    class_of(c) & bit != 0,
                    regex.contains(c),
                    "{c:?} (U+{:04X}) in {}",
                    c as u32,
                    regex.pattern
                );
            }
        }
    }

    /// The contraction letters fold exactly as `(?i:...)` does for every code point.
    #[test]
    fn contraction_case_folding_matches_the_regex() {
        for letter in ['s', 't', 'r', 'e', 'v', 'm', 'l', 'd'] {
            let regex = Regex::new(&format!("^(?i:{letter})$")).expect("valid pattern");
            for c in (0..=0x10_ffff).filter_map(char::from_u32) {
                let folds = regex
                    .is_match(c.encode_utf8(&mut [0; 4]))
                    .expect("no backtrack limit");
                assert_eq!(fold_case(c) == letter, folds, "{c:?} against {letter:?}");
            }
        }
    }

    #[test]
    fn words_keep_their_leading_character_and_contraction() {
        let pieces: Vec<&str> = pieces("Hello world, DON'T panic: it's   fine\r\n\n  x").collect();
        assert_eq!(
            pieces,
            [
                "Hello", " world", ",", " DON'T", " panic", ":", " it's", "  ", " fine", "\r\n\n",
                " ", " x"
            ]
        );
    }

    /// Test-only matcher for one character class, checked through a whole-string regex.
    mod regex_class {
        use fancy_regex::Regex;

        pub(super) struct Class {
            pub(super) pattern: &'static str,
            regex: Regex,
        }

        impl Class {
            pub(super) fn new(pattern: &'static str) -> Self {
                let regex = Regex::new(&format!("^{pattern}$")).expect("valid class");
                Self { pattern, regex }
            }

            pub(super) fn contains(&self, c: char) -> bool {
                self.regex
                    .is_match(c.encode_utf8(&mut [0; 4]))
                    .expect("no backtrack limit")
            }
        }
    }
}

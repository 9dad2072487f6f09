//! A text split into pieces once, with each piece's token count, so that the count of any
//! range of it is mostly a sum over pieces already merged instead of a second tokenisation.
//!
//! Why a sum is exact: o200k's pattern has no look-behind, so the pieces of `text[a..]` from a
//! piece boundary `a` are the whole text's pieces from `a`. Cutting the text at `b` changes a
//! piece that ends before `b` only through the one look-ahead, `\s+(?!\S)`, which succeeds at
//! the end of the text where a non-space followed before: it can only lengthen a run of white
//! space that reaches `b`. So every piece of `text[a..b]` that ends at or before a boundary `q`
//! is the whole text's piece when the character before `q` is not white space (no white-space
//! run reaches `b` through it), or is `\r` or `\n` (`\s*[\r\n]+` is tried before the look-ahead
//! and already matches any such run). Such a `q` is *safe*; the count of `a..b` is then the
//! pieces' counts over `a..q` plus `text[q..b]` counted on its own. A start that is not a
//! boundary is tokenised on its own until its pieces meet one of the whole text's boundaries,
//! from where both splits continue alike.

use std::ops::Range;

use super::merge::Merger;
use super::{split, with_merger};

/// The pieces of one text, each piece's end and the tokens up to it.
#[derive(Debug, Clone)]
pub struct Tokenized<'a> {
    text: &'a str,
    /// Piece boundaries in increasing order, starting with 0 and ending with `text.len()`.
    bounds: Vec<usize>,
    /// `before[i]`: tokens of `text[..bounds[i]]`.
    before: Vec<usize>,
}

impl<'a> Tokenized<'a> {
    /// Splits `text` into pieces and counts each piece's tokens.
    pub fn new(text: &'a str) -> Self {
        let mut bounds = vec![0];
        let mut before = vec![0];
        let (mut end, mut total) = (0, 0);
        with_merger(|merger| {
            for piece in split::pieces(text) {
                end += piece.len();
                total += merger.count(piece.as_bytes());
                bounds.push(end);
                before.push(total);
            }
        });
        Self {
            text,
            bounds,
            before,
        }
    }

    /// Tokens of the whole text.
    pub fn total(&self) -> usize {
        self.before.last().copied().unwrap_or(0)
    }

    /// Tokens of `text[range]`, exactly `tokens::count(&text[range])`; `range` must lie on
    /// character boundaries of the text (0 for a range that does not).
    pub fn count(&self, range: Range<usize>) -> usize {
        let Some(slice) = self.text.get(range.clone()) else {
            return 0;
        };
        with_merger(|merger| self.count_with(merger, range, slice))
    }

    /// [`Tokenized::count`] with `merger`; `slice` is `text[range]`.
    fn count_with(&self, merger: &mut Merger, range: Range<usize>, slice: &str) -> usize {
        let (start, mut tokens) = self.synchronize(merger, range.clone());
        if start == range.end {
            return tokens;
        }
        let (safe, index) = self.last_safe_boundary(start, range.end);
        if let Some(start_index) = self.index_of(start) {
            tokens += self.before[index] - self.before[start_index];
        }
        let rest = &slice[safe - range.start..];
        tokens
            + split::pieces(rest)
                .map(|piece| merger.count(piece.as_bytes()))
                .sum::<usize>()
    }

    /// Counts the pieces of `text[range]` from its start until one ends on a boundary of the
    /// whole text (or the range ends): that offset and the tokens before it.
    fn synchronize(&self, merger: &mut Merger, range: Range<usize>) -> (usize, usize) {
        let mut at = range.start;
        let mut tokens = 0;
        let mut pieces = split::pieces(&self.text[range.clone()]);
        while self.index_of(at).is_none() {
            let Some(piece) = pieces.next() else {
                break;
            };
            at += piece.len();
            tokens += merger.count(piece.as_bytes());
        }
        (at, tokens)
    }

    /// The last safe boundary in `start..=end` and its index, where `start` is a boundary:
    /// the end of the text, one whose previous character is not white space or is a line
    /// break, or else `start` itself.
    fn last_safe_boundary(&self, start: usize, end: usize) -> (usize, usize) {
        let first = self.index_of(start).unwrap_or(0);
        let last = self.bounds.partition_point(|&b| b <= end).saturating_sub(1);
        (first..=last)
            .rev()
            .map(|index| (self.bounds[index], index))
            .find(|&(bound, _)| bound == start || self.is_safe_end(bound))
            .unwrap_or((start, first))
    }

    /// Whether the whole text's pieces before `bound` are also the pieces of any cut of the
    /// text that ends at or after it.
    fn is_safe_end(&self, bound: usize) -> bool {
        bound == self.text.len()
            || self.text[..bound]
                .chars()
                .next_back()
                .is_some_and(|c| matches!(c, '\r' | '\n') || !split::is_space(c))
    }

    /// The index of `offset` among the boundaries, if it is one.
    fn index_of(&self, offset: usize) -> Option<usize> {
        self.bounds.binary_search(&offset).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skill::tokens::count;

    /// A deterministic xorshift stream.
    fn stream(seed: u64) -> impl FnMut() -> u64 {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// Fragments chosen for the places where splits could differ: every kind of white space,
    /// line breaks before and after spaces, contractions, digits, punctuation that swallows
    /// line breaks and slashes, combining marks and wide characters.
    const FRAGMENTS: &[&str] = &[
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        "\r",
        " \n",
        "\n ",
        "\u{a0}",
        "\u{3000}",
        "\u{2028}",
        "a",
        "word",
        "Word",
        "WORD",
        "'s",
        "'LL",
        "don't",
        "1",
        "1234",
        "#",
        "```",
        "`",
        ".",
        "/",
        "-",
        "*",
        "|",
        "(",
        ")",
        "é",
        "e\u{0301}",
        "\u{0301}",
        "中文",
        "🙂",
        "ǅ",
        "Ⅻ",
        "<|endoftext|>",
    ];

    fn random_text(next: &mut impl FnMut() -> u64, pieces: usize) -> String {
        (0..pieces)
            .map(|_| FRAGMENTS[(next() % FRAGMENTS.len() as u64) as usize])
            .collect()
    }

    /// Every range of every text, counted both ways.
    #[track_caller]
    fn assert_every_range_counts_alike(text: &str) {
        let tokenized = Tokenized::new(text);
        assert_eq!(tokenized.total(), count(text), "{text:?}");
        let offsets: Vec<usize> = text
            .char_indices()
            .map(|(at, _)| at)
            .chain([text.len()])
            .collect();
        for (i, &start) in offsets.iter().enumerate() {
            for &end in &offsets[i..] {
                assert_eq!(
                    tokenized.count(start..end),
                    count(&text[start..end]),
                    "{start}..{end} of {text:?}"
                );
            }
        }
    }

    #[test]
    fn every_range_of_random_texts_counts_as_on_its_own() {
        let mut next = stream(17);
        for _ in 0..400 {
            let len = 1 + (next() % 24) as usize;
            assert_every_range_counts_alike(&random_text(&mut next, len));
        }
    }

    #[test]
    fn every_range_of_markdown_counts_as_on_its_own() {
        for text in [
            "# Title\n\nSome prose, it's fine.\n\n```python\ndef f():\n    return 1\n```\n\nMore.\n",
            "intro  \n  ## Indented\t\n\n   ```\n   code\n   ```  \n\n/path/to\n",
            "Setext\n======\n\n    indented code\n\n- item\n  - nested\r\n",
            "a \u{a0}b\u{a0} \n\u{3000}# x   \n\n\n",
        ] {
            assert_every_range_counts_alike(text);
        }
    }

    #[test]
    fn ranges_off_character_boundaries_count_nothing() {
        let tokenized = Tokenized::new("é");
        assert_eq!(tokenized.count(1..2), 0);
        assert_eq!(tokenized.count(0..3), 0);
    }
}

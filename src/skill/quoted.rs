//! Quoted text: what a skill quotes (a user's phrase in straight or typographic quotes, a
//! command in inline code) is not the skill's own voice, so the prose rules read past it.

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
pub fn spans(text: &str) -> Vec<std::ops::Range<usize>> {
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

#[cfg(test)]
mod tests {
    use super::mask;

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
}

//! HTML and Vue templates: no grammar is bundled for them, and the only patterns that
//! apply are `text` ones over class lists and other attribute values. So the block is one
//! text run and each quoted value another, which lets anchored patterns (`^...$`, a class
//! followed by a space or the end) see a value on its own.

use super::facts::{CodeFacts, TextRun};
use super::syntax::Source;

/// Collects the whole block and every quoted value as text.
pub(super) fn read(source: Source<'_>, facts: &mut CodeFacts) {
    facts.texts.push(TextRun {
        text: source.text.to_owned(),
        span: source.whole(),
    });
    for (start, value) in quoted_values(source.text) {
        let span = source.range(start, start + value.len());
        facts.texts.push(TextRun {
            text: value.to_owned(),
            span,
        });
    }
}

/// Single-line `"..."` and `'...'` values with their block offsets. A lone apostrophe in
/// text pairs with the next quote of its kind; values spanning lines are dropped.
pub(super) fn quoted_values(text: &str) -> Vec<(usize, &str)> {
    let mut values = Vec::new();
    let mut at = 0;
    while let Some(open) = text[at..].find(['"', '\'']).map(|o| at + o) {
        let quote = &text[open..=open];
        let Some(length) = text[open + 1..].find(quote) else {
            break;
        };
        let value = &text[open + 1..open + 1 + length];
        if !value.contains('\n') {
            values.push((open + 1, value));
        }
        at = open + 1 + length + 1;
    }
    values
}

#[cfg(test)]
mod tests {
    use super::super::tests::{facts, spanned};

    #[test]
    fn whole_block_and_quoted_values() {
        let text = "<div class=\"bg-black bg-opacity-50\" id='x'>it's</div>\n";
        let facts = facts("html", text);
        let runs: Vec<_> = facts.texts.iter().map(|t| spanned(text, t.span)).collect();
        assert_eq!(runs, [text, "bg-black bg-opacity-50", "x"]);
        assert_eq!(facts.texts[1].text, "bg-black bg-opacity-50");
    }
}

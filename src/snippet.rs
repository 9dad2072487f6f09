//! Where in a file an input error is: the file's text and a labelled byte span, which the
//! CLI shows under the error as a source snippet.

use std::ops::Range;

use miette::{LabeledSpan, NamedSource, SourceCode};

/// A file's text with the span an error points at.
#[derive(Debug, Clone)]
pub struct Snippet {
    text: NamedSource<String>,
    span: Range<usize>,
    label: &'static str,
}

impl Snippet {
    /// The span `span` of `text` (the file shown as `name`), labelled `label`. A span past
    /// the end of the text is clamped to it.
    pub fn new(name: &str, text: &str, span: Range<usize>, label: &'static str) -> Self {
        let start = floor_boundary(text, span.start);
        let end = floor_boundary(text, span.end.max(start));
        Self {
            text: NamedSource::new(name, text.to_owned()),
            span: start..end,
            label,
        }
    }

    /// The file's text, for [`miette::Diagnostic::source_code`].
    pub fn source_code(&self) -> &dyn SourceCode {
        &self.text
    }

    /// The labelled span, for [`miette::Diagnostic::labels`].
    pub fn labels(&self) -> Box<dyn Iterator<Item = LabeledSpan> + '_> {
        let len = self.span.end - self.span.start;
        Box::new(std::iter::once(LabeledSpan::new_primary_with_span(
            Some(self.label.to_owned()),
            (self.span.start, len),
        )))
    }
}

/// The largest char boundary of `text` at or before `offset`.
fn floor_boundary(text: &str, offset: usize) -> usize {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_are_clamped_to_the_text_and_its_char_boundaries() {
        let snippet = Snippet::new("f", "aé", 2..9, "here");
        assert_eq!(snippet.span, 1..3);
        let label = snippet.labels().next().expect("one label");
        assert_eq!((label.offset(), label.len()), (1, 2));
    }
}

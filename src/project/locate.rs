//! Byte offsets to lines and columns, and cheap searches for where a key is written.

use std::path::Path;

use super::Located;

/// Turns byte offsets of one text into 1-based lines and columns without indexing every
/// line: it remembers the last answer and counts forward from it, so queries in document
/// order (the way every reader asks) cost one pass over the text in total and no memory.
pub(crate) struct LineIndex<'t> {
    text: &'t str,
    /// The last offset asked for, its 1-based line, and the offset where that line starts.
    memo: std::cell::Cell<(usize, usize, usize)>,
}

impl<'t> LineIndex<'t> {
    /// Prepares to locate offsets in `text`.
    pub(crate) fn new(text: &'t str) -> Self {
        Self {
            text,
            memo: std::cell::Cell::new((0, 1, 0)),
        }
    }

    /// 1-based line and column (in characters) of a byte offset; offsets past the end clamp.
    pub(crate) fn position(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.text.len());
        let (from, mut line, mut line_start) = self.memo.get();
        let from = if offset >= from {
            from
        } else {
            line = 1;
            line_start = 0;
            0
        };
        let between = self.text.as_bytes().get(from..offset).unwrap_or_default();
        line += between.iter().filter(|&&b| b == b'\n').count();
        if let Some(last) = between.iter().rposition(|&b| b == b'\n') {
            line_start = from + last + 1;
        }
        self.memo.set((offset, line, line_start));
        let column = self
            .text
            .get(line_start..offset)
            .map_or(0, |prefix| prefix.chars().count());
        (to_u32(line), to_u32(column + 1))
    }
}

/// Saturating conversion for line and column numbers.
pub(crate) fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Finds quoted keys in a JSON text in document order, moving a cursor forward so that a
/// whole file is searched at most once however many keys are looked up.
pub(crate) struct KeyCursor<'t> {
    text: &'t str,
    at: usize,
}

impl<'t> KeyCursor<'t> {
    /// Starts at the beginning of `text`.
    pub(crate) fn new(text: &'t str) -> Self {
        Self { text, at: 0 }
    }

    /// Moves past the next occurrence of `"key"` followed by a colon and returns the byte
    /// offset of its opening quote. When the key is not found the cursor stays put.
    pub(crate) fn seek_key(&mut self, key: &str) -> Option<usize> {
        self.seek_key_where(key, |_| true)
    }

    /// Like [`Self::seek_key`], for entries of one object written one per line: the key
    /// must start its line, at the indentation of the first entry found (kept in `indent`),
    /// so that same-named keys nested deeper are passed over.
    pub(crate) fn seek_entry(&mut self, key: &str, indent: &mut Option<usize>) -> Option<usize> {
        let text = self.text;
        let found = self.seek_key_where(key, |start| {
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            let prefix = &text[line_start..start];
            prefix.bytes().all(|b| b == b' ' || b == b'\t')
                && indent.is_none_or(|expected| expected == prefix.len())
        })?;
        let line_start = text[..found].rfind('\n').map_or(0, |i| i + 1);
        *indent = Some(found - line_start);
        Some(found)
    }

    fn seek_key_where(&mut self, key: &str, accept: impl Fn(usize) -> bool) -> Option<usize> {
        let needle = format!("\"{}\"", escape_json(key));
        let mut from = self.at;
        while let Some(found) = self.text.get(from..)?.find(&needle) {
            let start = from + found;
            let end = start + needle.len();
            let rest = self.text.get(end..).unwrap_or("");
            if rest.trim_start().starts_with(':') && accept(start) {
                self.at = end;
                return Some(start);
            }
            from = end;
        }
        None
    }

    /// Moves past the next occurrence of `needle` (plain text) and returns its offset.
    pub(crate) fn seek(&mut self, needle: &str) -> Option<usize> {
        let found = self.text.get(self.at..)?.find(needle)?;
        let start = self.at + found;
        self.at = start + needle.len();
        Some(start)
    }
}

fn escape_json(key: &str) -> String {
    key.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Lines of YAML mapping keys whose path (keys from the top, outermost first) `wanted`
/// accepts, with their columns, keyed by the path joined with `/`. A single pass over block-style YAML as
/// lockfiles and workflows write it; flow-style mappings are not descended into.
pub(crate) fn yaml_key_lines(
    text: &str,
    wanted: impl Fn(&[&str]) -> bool,
) -> std::collections::HashMap<String, (u32, u32)> {
    let mut found = std::collections::HashMap::new();
    let mut stack: Vec<(usize, &str)> = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('-') {
            continue;
        }
        let Some(key) = yaml_key(trimmed) else {
            continue;
        };
        let indent = line.len() - trimmed.len();
        while stack.last().is_some_and(|&(i, _)| i >= indent) {
            stack.pop();
        }
        stack.push((indent, key));
        let path: Vec<&str> = stack.iter().map(|&(_, k)| k).collect();
        if wanted(&path) {
            found.insert(path.join("/"), (to_u32(number + 1), to_u32(indent + 1)));
        }
    }
    found
}

/// The key of a `key: value` or `key:` line, without quotes.
pub(crate) fn yaml_key(trimmed: &str) -> Option<&str> {
    if let Some(quote) = trimmed.chars().next().filter(|c| *c == '\'' || *c == '"') {
        let close = trimmed[1..].find(quote)? + 1;
        return trimmed[close + 1..]
            .starts_with(':')
            .then(|| &trimmed[1..close]);
    }
    let end = trimmed
        .find(": ")
        .or_else(|| trimmed.strip_suffix(':').map(str::len))?;
    Some(&trimmed[..end])
}

/// Builds a [`Located`] value for a file relative to the root.
pub(crate) fn at(
    value: impl Into<String>,
    path: &Path,
    (line, column): (u32, u32),
) -> Located<String> {
    Located {
        value: value.into(),
        path: path.to_path_buf(),
        line,
        column,
    }
}

/// Where `key` is written inside the object `section` (searched from that section's key).
pub(crate) fn key_position(
    text: &str,
    index: &LineIndex<'_>,
    section: &[&str],
    key: &str,
) -> (u32, u32) {
    let mut cursor = KeyCursor::new(text);
    for part in section {
        if cursor.seek_key(part).is_none() {
            return (1, 1);
        }
    }
    cursor
        .seek_key(key)
        .map_or((1, 1), |offset| index.position(offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_and_count_characters() {
        let index = LineIndex::new("ab\n\u{e9}cd\n");
        assert_eq!(index.position(0), (1, 1));
        assert_eq!(index.position(3), (2, 1));
        // 'c' is after a two-byte character: byte 5, column 2.
        assert_eq!(index.position(5), (2, 2));
        assert_eq!(index.position(999), (3, 1));
        // Going back recounts from the start.
        assert_eq!(index.position(1), (1, 2));
    }

    #[test]
    fn yaml_key_lines_follow_nesting() {
        let text = "importers:\n  .:\n    dependencies:\n      react:\n        version: 1\n      'vue': x\n";
        let lines = yaml_key_lines(text, |p| p.len() == 4);
        assert_eq!(lines.get("importers/./dependencies/react"), Some(&(4, 7)));
        assert_eq!(lines.get("importers/./dependencies/vue"), Some(&(6, 7)));
        assert_eq!(lines.len(), 2);
    }

    #[test]
    fn cursor_finds_keys_in_order_and_ignores_values() {
        let text = r#"{"a": "b", "b": 1, "c": {"b": 2}}"#;
        let mut cursor = KeyCursor::new(text);
        assert_eq!(cursor.seek_key("b"), Some(11));
        assert_eq!(cursor.seek_key("b"), Some(25));
        assert_eq!(cursor.seek_key("a"), None);
    }

    #[test]
    fn entries_skip_nested_keys_of_the_same_name() {
        let text = "{\n  \"a\": {\"b\": 1},\n  \"x\": {\n    \"b\": 2\n  },\n  \"b\": 3\n}";
        let mut cursor = KeyCursor::new(text);
        let mut indent = None;
        let a = cursor.seek_entry("a", &mut indent);
        assert_eq!(a, Some(4));
        let b = cursor
            .seek_entry("b", &mut indent)
            .map(|o| LineIndex::new(text).position(o));
        assert_eq!(b, Some((6, 3)));
    }
}

//! A text file held in memory with a line index, so any byte span becomes a [`Location`].

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::finding::Location;

/// The text of one file of a skill, and where its lines start.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Path as shown to users.
    pub path: PathBuf,
    /// The whole file, UTF-8.
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    /// Index `text` so spans can be turned into lines and columns.
    pub fn new(path: PathBuf, text: String) -> Self {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Self {
            path,
            text,
            line_starts,
        }
    }

    /// The path as shown to users.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of lines (a trailing newline does not start a new line).
    pub fn line_count(&self) -> usize {
        let n = self.line_starts.len();
        if self.text.ends_with('\n') { n - 1 } else { n }
    }

    /// 0-based line index containing byte `offset`.
    pub fn line_index(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    /// Byte range of 0-based line `index`, without its line terminator.
    pub fn line_range(&self, index: usize) -> Range<usize> {
        let start = self.line_starts[index];
        let end = self
            .line_starts
            .get(index + 1)
            .map_or(self.text.len(), |&next| next - 1);
        let end = if self.text[start..end].ends_with('\r') {
            end - 1
        } else {
            end
        };
        start..end
    }

    /// 1-based (line, column) of byte `offset`; columns count Unicode scalar values.
    pub fn line_column(&self, offset: usize) -> (u32, u32) {
        let offset = self.floor_char_boundary(offset.min(self.text.len()));
        let index = self.line_index(offset);
        let column = self.text[self.line_starts[index]..offset].chars().count() + 1;
        (to_u32(index + 1), to_u32(column))
    }

    /// The location of a byte span in this file.
    pub fn location(&self, span: Range<usize>) -> Location {
        let (line, column) = self.line_column(span.start);
        let (end_line, end_column) = self.line_column(span.end.max(span.start));
        Location {
            path: self.path.clone(),
            line,
            column,
            end_line,
            end_column,
            span,
        }
    }

    /// The location of a whole 1-based line.
    pub fn line_location(&self, line: u32) -> Location {
        let index = (line.max(1) as usize - 1).min(self.line_starts.len() - 1);
        self.location(self.line_range(index))
    }

    fn floor_char_boundary(&self, mut offset: usize) -> usize {
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_characters() {
        let file = SourceFile::new("x.md".into(), "ab\r\nçé x\nlast".into());
        assert_eq!(file.line_count(), 3);
        assert_eq!(file.line_column(0), (1, 1));
        assert_eq!(file.line_column(4), (2, 1));
        // "çé " is 5 bytes and 3 characters.
        assert_eq!(file.line_column(9), (2, 4));
        assert_eq!(&file.text[file.line_range(0)], "ab");
        assert_eq!(&file.text[file.line_range(2)], "last");
    }
}

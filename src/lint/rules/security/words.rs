//! The pieces the shell and Python readers share: a shell word, where a command was written,
//! and where the Python reader hands the shell commands it finds in strings.

use std::ops::Range;

use super::At;

/// One shell word, unquoted, with its span in the file.
#[derive(Debug, Clone)]
pub(crate) struct Word {
    /// The word without its quotes; expansions (`$HOME`, `${X:?}`) kept as written.
    pub text: String,
    /// Byte range in the file.
    pub span: Range<usize>,
}

/// Where a command was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A code block of a markdown file.
    Block,
    /// Inline code in markdown prose.
    Inline,
    /// A shell script, or a command string in a Python script.
    Script,
}

/// Takes shell commands found inside another language (a Python `os.system` string or
/// `subprocess` argument list), so that reader needs no knowledge of the shell reader.
pub(crate) trait ShellSink {
    /// A command string, at `offset` in `file`.
    fn shell(&mut self, file: usize, offset: usize, code: &str, counter: bool, origin: Origin);
    /// A command already split into words.
    fn words(&mut self, at: At, words: Vec<Word>, counter: bool, origin: Origin);
}

//! Why a skill could not be read at all. These end a run with exit code 2.

use std::path::PathBuf;

use crate::snippet::Snippet;

/// A skill that cannot be loaded. Each variant renders as one line saying what and where.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Nothing at the given path.
    #[error("{path}: no such file or directory")]
    NotFound {
        /// The path as given.
        path: PathBuf,
    },
    /// A symbolic link whose target does not exist (on this machine).
    #[error("{path}: a symbolic link to {target}, which does not exist")]
    DanglingLink {
        /// The link.
        path: PathBuf,
        /// Where it points.
        target: PathBuf,
    },
    /// A folder without a SKILL.md, in it or in any folder below it.
    #[error("{path}: no SKILL.md in this folder or in any folder below it")]
    NoSkillFile {
        /// The folder.
        path: PathBuf,
    },
    /// An I/O failure while reading.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A zero-byte or whitespace-only file.
    #[error("{path}: the file is empty")]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// Larger than the limit; skills are read whole.
    #[error("{path}: the file is {size} bytes, over the {limit}-byte limit")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Contains NUL bytes: not a text file.
    #[error("{path}: this is a binary file, not markdown")]
    Binary {
        /// The file.
        path: PathBuf,
    },
    /// Not valid UTF-8.
    #[error("{path}:{line}:{column}: the file is not valid UTF-8")]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// Line of the first invalid byte.
        line: u32,
        /// Column of the first invalid byte.
        column: u32,
    },
    /// The file does not start with a `---` line.
    #[error(
        "{path}:1:1: missing frontmatter: a SKILL.md starts with a `---` line, YAML, and a closing `---` line"
    )]
    MissingFrontmatter {
        /// The file.
        path: PathBuf,
    },
    /// The opening `---` has no closing partner.
    #[error("{path}:1:1: unclosed frontmatter: no closing `---` line after the opening one")]
    UnclosedFrontmatter {
        /// The file.
        path: PathBuf,
    },
    /// The frontmatter is not valid YAML, or not a mapping, or expands too much.
    #[error("{path}:{line}:{column}: invalid frontmatter YAML: {message}")]
    InvalidYaml {
        /// The file.
        path: PathBuf,
        /// Line in the file.
        line: u32,
        /// Column in the file.
        column: u32,
        /// The parser's message.
        message: String,
        /// The file's text and the span the parser points at.
        snippet: Box<Snippet>,
    },
    /// A symlink inside the skill folder that points outside it.
    #[error("{path}: symlink points outside the skill folder (to {target})")]
    SymlinkOutside {
        /// The link.
        path: PathBuf,
        /// Where it points.
        target: PathBuf,
    },
}

impl LoadError {
    /// The file or folder the error is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            LoadError::NotFound { path }
            | LoadError::DanglingLink { path, .. }
            | LoadError::NoSkillFile { path }
            | LoadError::Io { path, .. }
            | LoadError::Empty { path }
            | LoadError::TooLarge { path, .. }
            | LoadError::Binary { path }
            | LoadError::NotUtf8 { path, .. }
            | LoadError::MissingFrontmatter { path }
            | LoadError::UnclosedFrontmatter { path }
            | LoadError::InvalidYaml { path, .. }
            | LoadError::SymlinkOutside { path, .. } => path,
        }
    }

    /// Whether nothing is there at all (a path given wrong, or a link to nothing), rather
    /// than a skill that cannot be read.
    pub fn is_missing(&self) -> bool {
        matches!(
            self,
            LoadError::NotFound { .. }
                | LoadError::DanglingLink { .. }
                | LoadError::NoSkillFile { .. }
        )
    }

    /// The line and column it points at, when it points inside the file.
    pub fn position(&self) -> Option<(u32, u32)> {
        match self {
            LoadError::NotUtf8 { line, column, .. }
            | LoadError::InvalidYaml { line, column, .. } => Some((*line, *column)),
            LoadError::MissingFrontmatter { .. } | LoadError::UnclosedFrontmatter { .. } => {
                Some((1, 1))
            }
            _ => None,
        }
    }

    /// What is wrong, without the path (which a finding carries on its own).
    pub fn reason(&self) -> String {
        let text = self.to_string();
        let path = self.path().display().to_string();
        let rest = text.strip_prefix(&path).unwrap_or(&text);
        // `path:line:col: reason` or `path: reason`.
        let rest = rest.trim_start_matches(|c: char| c == ':' || c.is_ascii_digit());
        rest.trim_start().to_owned()
    }
}

impl miette::Diagnostic for LoadError {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        let code = match self {
            LoadError::NotFound { .. } => "not-found",
            LoadError::DanglingLink { .. } => "dangling-link",
            LoadError::NoSkillFile { .. } => "no-skill",
            LoadError::Io { .. } => "io",
            LoadError::Empty { .. } => "empty",
            LoadError::TooLarge { .. } => "too-large",
            LoadError::Binary { .. } | LoadError::NotUtf8 { .. } => "not-text",
            LoadError::MissingFrontmatter { .. } | LoadError::UnclosedFrontmatter { .. } => {
                "frontmatter"
            }
            LoadError::InvalidYaml { .. } => "frontmatter-yaml",
            LoadError::SymlinkOutside { .. } => "symlink",
        };
        Some(Box::new(format!("skillgate::skill::{code}")))
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        match self {
            LoadError::InvalidYaml { snippet, .. } => Some(snippet.source_code()),
            _ => None,
        }
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        match self {
            LoadError::InvalidYaml { snippet, .. } => Some(snippet.labels()),
            _ => None,
        }
    }
}

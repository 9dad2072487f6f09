//! The command layer's error: every layer's typed error, kept typed until it is rendered
//! once, on stderr, by miette's graphical report handler: its code, what, where (the source
//! snippet with a label, when the error points into a file) and help. Plain ASCII without
//! colour when stderr is not a terminal or `NO_COLOR` is set, so logs and tests read the same.

use std::fmt;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode};

use crate::assess::AssessError;
use crate::config::ConfigError;
use crate::eval::EvalError;
use crate::github::GateError;
use crate::lint::baseline::BaselineError;
use crate::project::ScanError;
use crate::skill::LoadError;

/// Exit status for usage and input errors.
pub(crate) const EXIT_INPUT: u8 = 2;
/// Exit status after Ctrl-C.
const EXIT_INTERRUPTED: u8 = 130;

/// Why a command stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `skillgate.toml` cannot be used.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A skill cannot be read.
    #[error(transparent)]
    Skill(#[from] LoadError),
    /// The repository cannot be scanned.
    #[error(transparent)]
    Scan(#[from] ScanError),
    /// A baseline file cannot be read or written.
    #[error(transparent)]
    Baseline(#[from] BaselineError),
    /// The evaluation, its statistics or its verdict failed.
    #[error(transparent)]
    Assess(#[from] AssessError),
    /// `skillgate gate` could not find the changed skills or reach GitHub.
    #[error(transparent)]
    Gate(#[from] GateError),
    /// Mining tasks from the history failed.
    #[error(transparent)]
    Mine(crate::mine::MineError),
    /// Audit outputs that cannot be merged.
    #[error(transparent)]
    Merge(#[from] crate::audit::merge::MergeError),
    /// A knowledge pack cannot be read or does not validate.
    #[error(transparent)]
    Knowledge(#[from] crate::knowledge::PackError),
    /// An argument is wrong in a way clap cannot see.
    #[error("{message}")]
    Usage {
        /// What is wrong.
        message: String,
        /// What to do about it.
        help: Option<String>,
    },
    /// A file `--fix` edits cannot be read or written.
    #[error("{}: cannot {action} it to fix it: {source}", path.display())]
    Fix {
        /// The file.
        path: std::path::PathBuf,
        /// `read` or `write`.
        action: &'static str,
        /// Why.
        source: std::io::Error,
    },
    /// Standard output cannot be written.
    #[error("cannot write output: {0}")]
    Output(std::io::Error),
}

impl Error {
    /// The layer's own diagnostic, when it has one (code, help, source snippet).
    fn inner(&self) -> Option<&dyn Diagnostic> {
        match self {
            Error::Config(e) => Some(e),
            Error::Skill(e) => Some(e),
            Error::Assess(AssessError::Eval(e)) => Some(e),
            Error::Mine(e) => Some(e),
            Error::Knowledge(e) => Some(e),
            _ => None,
        }
    }
}

impl Diagnostic for Error {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        if let Some(inner) = self.inner() {
            return inner.code();
        }
        Some(Box::new(match self {
            Error::Scan(_) => "skillgate::scan",
            Error::Baseline(_) => "skillgate::baseline",
            Error::Assess(_) => "skillgate::assess",
            Error::Gate(_) => "skillgate::gate",
            Error::Merge(_) => "skillgate::merge",
            Error::Fix { .. } => "skillgate::fix",
            Error::Output(_) => "skillgate::output",
            Error::Usage { .. } => "skillgate::usage",
            // The layers with a diagnostic of their own answered above.
            Error::Config(_) | Error::Skill(_) | Error::Mine(_) | Error::Knowledge(_) => {
                "skillgate::usage"
            }
        }))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        match self {
            Error::Usage {
                help: Some(help), ..
            } => Some(Box::new(help)),
            _ => self.inner()?.help(),
        }
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.inner()?.source_code()
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.inner()?.labels()
    }
}

impl From<clap::Error> for Error {
    /// clap's message becomes the error, and its usage lines and hint the help.
    fn from(e: clap::Error) -> Self {
        let text = e.render().to_string();
        let text = text.trim().trim_start_matches("error: ");
        let (message, rest) = text.split_once("\n\n").unwrap_or((text, ""));
        let help: Vec<&str> = rest
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        Error::Usage {
            message: message.to_owned(),
            help: (!help.is_empty()).then(|| help.join("\n")),
        }
    }
}

impl From<EvalError> for Error {
    fn from(e: EvalError) -> Self {
        Error::Assess(AssessError::Eval(e))
    }
}

impl Error {
    /// A usage error with a message and, optionally, help.
    pub(crate) fn usage(message: impl Into<String>, help: Option<&str>) -> Self {
        Error::Usage {
            message: message.into(),
            help: help.map(str::to_owned),
        }
    }

    /// The exit status this error ends the command with.
    pub(crate) fn exit_code(&self) -> ExitCode {
        match self {
            Error::Assess(AssessError::Eval(EvalError::Interrupted)) => {
                ExitCode::from(EXIT_INTERRUPTED)
            }
            _ => ExitCode::from(EXIT_INPUT),
        }
    }

    /// Renders the error on stderr (nothing after Ctrl-C: the run already said so) and
    /// returns its exit status.
    pub(crate) fn report(&self) -> ExitCode {
        if !matches!(
            self,
            Error::Assess(AssessError::Eval(EvalError::Interrupted))
        ) {
            show(self);
        }
        self.exit_code()
    }
}

/// Width of a report that is not for a terminal: wide enough that no message wraps, so a
/// log line holds the whole message.
const UNWRAPPED: usize = 10_000;

/// Writes one diagnostic to stderr: graphical and wrapped to the terminal on one, plain
/// ASCII without colour or wrapping elsewhere (and under `NO_COLOR`).
pub(crate) fn show(diagnostic: &dyn Diagnostic) {
    let stderr = std::io::stderr();
    let fancy = stderr.is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let width = if fancy {
        super::terminal_width()
    } else {
        UNWRAPPED
    };
    let _ = stderr
        .lock()
        .write_all(render(diagnostic, fancy, width).as_bytes());
}

/// The text [`show`] writes: miette's report of `diagnostic`, in colour and Unicode when
/// `fancy`, wrapped at `width`.
pub(crate) fn render(diagnostic: &dyn Diagnostic, fancy: bool, width: usize) -> String {
    let theme = if fancy {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::none()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(width)
        .with_links(false);
    let mut out = String::new();
    let _ = handler.render_report(&mut out, &Shown(diagnostic));
    out
}

/// A diagnostic without its chain of causes: every message already ends with its cause
/// (`what: why`), so the report shows it once.
struct Shown<'a>(&'a dyn Diagnostic);

impl fmt::Debug for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.0, f)
    }
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.0, f)
    }
}

impl std::error::Error for Shown<'_> {}

impl Diagnostic for Shown<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.0.code()
    }

    fn severity(&self) -> Option<miette::Severity> {
        self.0.severity()
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.0.help()
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.0.source_code()
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.0.labels()
    }
}

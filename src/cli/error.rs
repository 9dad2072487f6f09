//! The command layer's error: every layer's typed error, kept typed until it is rendered
//! once, on stderr, as `error: what` (with `help:` lines where the error has help).

use std::io::Write;
use std::process::ExitCode;

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

impl miette::Diagnostic for Error {
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        match self {
            Error::Usage {
                help: Some(help), ..
            } => Some(Box::new(help)),
            _ => None,
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

/// Writes one diagnostic to stderr: `error: what`, then its help, if any.
pub(crate) fn show(diagnostic: &dyn miette::Diagnostic) {
    let _ = std::io::stderr()
        .lock()
        .write_all(render(diagnostic).as_bytes());
}

/// The text [`show`] writes: plain, one line per part, so logs and tests read the same.
pub(crate) fn render(diagnostic: &dyn miette::Diagnostic) -> String {
    let mut out = format!("error: {diagnostic}\n");
    if let Some(help) = diagnostic.help() {
        out.push_str(&format!("  help: {help}\n"));
    }
    out
}

//! `skillgate gate` on GitHub: one check run per judged skill with its annotations and
//! summary, one pull-request comment kept up to date, and, when the token cannot write checks,
//! workflow-command annotations plus the step summary.
//!
//! The token comes from the environment and goes only into the `Authorization` header of
//! requests to the API; no output, file or evaluation sandbox ever receives it.

pub mod changed;
mod checks;
mod client;
mod comment;
pub mod context;
mod fallback;
mod settings;
pub mod summary;

use std::io::Write;
use std::path::{Path, PathBuf};

pub use client::ApiError;
pub use context::Context;
pub use settings::{Conclusion, Settings};

use crate::render::Report;
use crate::verdict::Decision;

/// One judged skill, ready to be published.
#[derive(Debug)]
pub struct Gated<'a> {
    /// The skill's name, as check runs and the comment show it.
    pub name: String,
    /// What `check` (and `eval`, when it ran) found.
    pub report: Report<'a>,
    /// The check-run conclusion it gets.
    pub conclusion: Conclusion,
}

/// Why the gate could not do its job.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    /// The Actions environment is missing something or holds something malformed.
    #[error("{0}")]
    Environment(String),
    /// `git` could not say what changed.
    #[error("{0}")]
    Git(String),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The async runtime for the HTTP client could not start.
    #[error("cannot start the HTTP client's runtime: {0}")]
    Runtime(std::io::Error),
    /// The GitHub API failed in a way a fallback cannot cover.
    #[error(transparent)]
    Api(#[from] ApiError),
}

/// How the results reached GitHub.
#[derive(Debug, PartialEq, Eq)]
pub enum Published {
    /// As check runs, with their ids, in the order of the skills.
    CheckRuns(Vec<u64>),
    /// As workflow commands (to print on stdout) and the step summary, for this reason.
    Fallback {
        /// Why check runs were not possible, said once.
        reason: String,
        /// The annotations, most severe first.
        commands: String,
    },
}

/// The conclusion of one skill: `failing` (a finding at or above `fail-on`) fails it;
/// otherwise the verdict decides.
pub fn conclusion(settings: &Settings, decision: Option<Decision>, failing: bool) -> Conclusion {
    if failing {
        return settings.findings;
    }
    match decision {
        Some(Decision::Inject) => settings.inject,
        Some(Decision::Skip) | None => settings.skip,
    }
}

/// Publish the judged skills: check runs (and the comment, when asked) through the API, or
/// the fallback when there is no token or it may not write checks. `root` is the repository
/// root that annotation paths are made relative to.
pub fn publish(
    context: &Context,
    gated: &[Gated<'_>],
    root: &Path,
    comment: bool,
) -> Result<Published, GateError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(GateError::Runtime)?;
    let published = runtime.block_on(publish_async(context, gated, root, comment))?;
    if let Published::Fallback { reason, .. } = &published {
        fallback::write_step_summary(context, gated, reason)?;
    }
    Ok(published)
}

async fn publish_async(
    context: &Context,
    gated: &[Gated<'_>],
    root: &Path,
    comment: bool,
) -> Result<Published, GateError> {
    let Some((owner, name)) = &context.repository else {
        return Err(GateError::Environment(
            "--github needs GITHUB_REPOSITORY (owner/name), as GitHub Actions sets it".into(),
        ));
    };
    let Some(token) = &context.token else {
        return Ok(fallback::published(
            "GITHUB_TOKEN is not set, so no check run can be created".into(),
            gated,
            root,
        ));
    };
    let Some(head_sha) = &context.head_sha else {
        return Err(GateError::Environment(
            "--github needs the commit to report on: GITHUB_EVENT_PATH with a pull_request \
             payload, or GITHUB_SHA"
                .into(),
        ));
    };
    let client = client::Client::new(&context.api_url, (owner, name), token)?;
    let mut ids = Vec::with_capacity(gated.len());
    for g in gated {
        match checks::post(&client, head_sha, g, root).await {
            Ok(id) => ids.push(id),
            Err(client::ApiError::Forbidden { what, message }) => {
                return Ok(fallback::published(
                    format!(
                        "the token may not write check runs ({what}: 403 {message}; \
                         pull requests from forks get a read-only token)"
                    ),
                    gated,
                    root,
                ));
            }
            Err(e) => return Err(e.into()),
        }
    }
    if comment {
        match context.pull_request {
            Some(number) => comment::upsert(&client, number, &summary::comment(gated)).await?,
            None => eprintln!("skillgate: not a pull request event, so no comment was written"),
        }
    }
    Ok(Published::CheckRuns(ids))
}

/// Say on the pull request's comment, when the gate wrote one before, that the change no
/// longer touches any skill, so its old verdicts do not stand. Creates no comment, and does
/// nothing without a token or outside a pull request. Returns whether a comment was edited.
pub fn publish_no_change(context: &Context) -> Result<bool, GateError> {
    let (Some((owner, name)), Some(token), Some(number)) =
        (&context.repository, &context.token, context.pull_request)
    else {
        return Ok(false);
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(GateError::Runtime)?;
    let body = summary::comment_no_change(context.head_sha.as_deref());
    let edited = runtime.block_on(async {
        // The client starts its own tasks, so it is built inside the runtime.
        let client = client::Client::new(&context.api_url, (owner, name), token)?;
        comment::update_existing(&client, number, &body).await
    })?;
    Ok(edited)
}

/// A finding's path relative to the repository root, with forward slashes, as GitHub
/// expects it; the path as given when it lies outside the root.
pub fn root_relative(path: &Path, root: &Path) -> String {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    let absolute = std::fs::canonicalize(&absolute).unwrap_or(absolute);
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let shown = absolute.strip_prefix(&root).unwrap_or(path);
    crate::render::display(shown)
}

/// Append `key=value` lines to `GITHUB_OUTPUT`, when it is set.
pub fn write_outputs(context: &Context, outputs: &[(&str, String)]) -> Result<(), GateError> {
    let Some(path) = &context.output else {
        return Ok(());
    };
    let io = |source| GateError::Io {
        path: path.clone(),
        source,
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io)?;
    for (key, value) in outputs {
        // Values are single-line by construction (paths, counts, words).
        writeln!(file, "{key}={}", value.replace(['\r', '\n'], " ")).map_err(io)?;
    }
    Ok(())
}

//! Where the gate runs: the GitHub Actions environment and the event payload that started it.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::GateError;

/// The REST API of github.com, used when `GITHUB_API_URL` is not set.
pub const DEFAULT_API_URL: &str = "https://api.github.com";

/// A GitHub token. It has no `Display`, and its `Debug` hides it, so it cannot end up in
/// output or a file by accident.
#[derive(Clone)]
pub struct Token(String);

impl Token {
    /// The secret itself, only for the HTTP client.
    pub(super) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(***)")
    }
}

/// What the gate knows about the workflow run it is part of.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// The REST API base, e.g. `https://api.github.com` or `https://ghe.example/api/v3`.
    pub api_url: String,
    /// `owner` and `name` of the repository (`GITHUB_REPOSITORY`).
    pub repository: Option<(String, String)>,
    /// `GITHUB_EVENT_NAME`.
    pub event_name: Option<String>,
    /// The commit a check run belongs to: a pull request's head, or the pushed commit.
    pub head_sha: Option<String>,
    /// What changed skills are compared with: a pull request's base, or a push's `before`.
    pub base_sha: Option<String>,
    /// The pull request's number, on pull request events.
    pub pull_request: Option<u64>,
    /// `GITHUB_TOKEN`, when set and not empty.
    pub token: Option<Token>,
    /// `GITHUB_STEP_SUMMARY`: the file the job's summary is appended to.
    pub step_summary: Option<PathBuf>,
    /// `GITHUB_OUTPUT`: the file step outputs are appended to.
    pub output: Option<PathBuf>,
}

/// The parts of an event payload the gate reads.
#[derive(Debug, Deserialize)]
struct Event {
    pull_request: Option<PullRequest>,
    /// The commit before a push (all zeros for a new branch).
    before: Option<String>,
}

#[derive(Debug, Deserialize)]
struct PullRequest {
    number: u64,
    head: CommitRef,
    base: CommitRef,
}

#[derive(Debug, Deserialize)]
struct CommitRef {
    sha: String,
}

impl Context {
    /// Read the context from this process's environment.
    pub fn from_env() -> Result<Context, GateError> {
        Context::from_vars(|name| std::env::var(name).ok())
    }

    /// Read the context from variables looked up by `var` (the environment, or a test's map).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Context, GateError> {
        let set = |name: &str| var(name).filter(|v| !v.is_empty());
        let repository = match set("GITHUB_REPOSITORY") {
            Some(full) => Some(split_repository(&full)?),
            None => None,
        };
        let event_name = set("GITHUB_EVENT_NAME");
        let event = match set("GITHUB_EVENT_PATH") {
            Some(path) => Some(read_event(Path::new(&path))?),
            None => None,
        };
        let pull_request = event.as_ref().and_then(|e| e.pull_request.as_ref());
        // On pull_request events GITHUB_SHA is a merge commit no one sees on the pull request.
        let head_sha = match pull_request {
            Some(pr) => Some(pr.head.sha.clone()),
            None => set("GITHUB_SHA"),
        };
        let base_sha = match pull_request {
            Some(pr) => Some(pr.base.sha.clone()),
            None => event
                .as_ref()
                .and_then(|e| e.before.clone())
                .filter(|sha| !sha.is_empty() && sha.bytes().any(|b| b != b'0')),
        };
        let api_url = set("GITHUB_API_URL")
            .unwrap_or_else(|| DEFAULT_API_URL.to_owned())
            .trim_end_matches('/')
            .to_owned();
        if !(api_url.starts_with("https://") || api_url.starts_with("http://"))
            || api_url.parse::<http::Uri>().is_err()
        {
            return Err(GateError::Environment(format!(
                "GITHUB_API_URL is {api_url:?}; expected the REST API's URL, such as \
                 {DEFAULT_API_URL} or https://HOST/api/v3"
            )));
        }
        Ok(Context {
            api_url,
            repository,
            event_name,
            head_sha,
            base_sha,
            pull_request: pull_request.map(|pr| pr.number),
            token: set("GITHUB_TOKEN").map(Token),
            step_summary: set("GITHUB_STEP_SUMMARY").map(PathBuf::from),
            output: set("GITHUB_OUTPUT").map(PathBuf::from),
        })
    }
}

fn split_repository(full: &str) -> Result<(String, String), GateError> {
    match full.split_once('/') {
        Some((owner, name)) if !owner.is_empty() && !name.is_empty() && !name.contains('/') => {
            Ok((owner.to_owned(), name.to_owned()))
        }
        _ => Err(GateError::Environment(format!(
            "GITHUB_REPOSITORY is {full:?}; expected owner/name"
        ))),
    }
}

fn read_event(path: &Path) -> Result<Event, GateError> {
    let text = std::fs::read_to_string(path).map_err(|source| GateError::Io {
        path: path.to_owned(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|e| {
        GateError::Environment(format!(
            "{}: not a GitHub event payload (GITHUB_EVENT_PATH): {e}",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(vars: &[(&str, &str)]) -> Result<Context, GateError> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        Context::from_vars(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn a_pull_request_runs_on_its_head_not_the_merge_commit() {
        let dir = tempfile::tempdir().unwrap();
        let event = dir.path().join("event.json");
        std::fs::write(
            &event,
            r#"{"action":"opened","number":7,"pull_request":{"number":7,
               "head":{"sha":"1111111111111111111111111111111111111111"},
               "base":{"sha":"2222222222222222222222222222222222222222"}}}"#,
        )
        .unwrap();
        let c = context(&[
            ("GITHUB_EVENT_PATH", event.to_str().unwrap()),
            ("GITHUB_EVENT_NAME", "pull_request"),
            ("GITHUB_SHA", "3333333333333333333333333333333333333333"),
            ("GITHUB_REPOSITORY", "octo/pack"),
            ("GITHUB_API_URL", "https://ghe.example/api/v3/"),
        ])
        .unwrap();
        assert_eq!(
            c.head_sha.as_deref(),
            Some("1111111111111111111111111111111111111111")
        );
        assert_eq!(
            c.base_sha.as_deref(),
            Some("2222222222222222222222222222222222222222")
        );
        assert_eq!(c.pull_request, Some(7));
        assert_eq!(c.repository, Some(("octo".into(), "pack".into())));
        assert_eq!(c.api_url, "https://ghe.example/api/v3");
        assert!(c.token.is_none());
    }

    #[test]
    fn a_push_runs_on_github_sha_and_compares_with_before() {
        let dir = tempfile::tempdir().unwrap();
        let event = dir.path().join("event.json");
        std::fs::write(
            &event,
            r#"{"before":"4444444444444444444444444444444444444444"}"#,
        )
        .unwrap();
        let c = context(&[
            ("GITHUB_EVENT_PATH", event.to_str().unwrap()),
            ("GITHUB_SHA", "3333333333333333333333333333333333333333"),
            ("GITHUB_TOKEN", "secret"),
        ])
        .unwrap();
        assert_eq!(
            c.head_sha.as_deref(),
            Some("3333333333333333333333333333333333333333")
        );
        assert_eq!(
            c.base_sha.as_deref(),
            Some("4444444444444444444444444444444444444444")
        );
        assert_eq!(c.api_url, DEFAULT_API_URL);
        assert_eq!(format!("{:?}", c.token), "Some(Token(***))");
    }

    #[test]
    fn a_new_branch_has_no_base() {
        let dir = tempfile::tempdir().unwrap();
        let event = dir.path().join("event.json");
        std::fs::write(&event, format!(r#"{{"before":"{}"}}"#, "0".repeat(40))).unwrap();
        let c = context(&[("GITHUB_EVENT_PATH", event.to_str().unwrap())]).unwrap();
        assert_eq!(c.base_sha, None);
    }

    #[test]
    fn bad_inputs_are_clear_errors() {
        let e = context(&[("GITHUB_API_URL", "not a url")]).unwrap_err();
        assert!(e.to_string().contains("https://HOST/api/v3"), "{e}");
        let e = context(&[("GITHUB_REPOSITORY", "just-a-name")]).unwrap_err();
        assert!(e.to_string().contains("owner/name"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let event = dir.path().join("event.json");
        std::fs::write(&event, "not json").unwrap();
        let e = context(&[("GITHUB_EVENT_PATH", event.to_str().unwrap())]).unwrap_err();
        assert!(e.to_string().contains("not a GitHub event payload"), "{e}");
    }
}

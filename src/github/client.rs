//! The GitHub REST client: octocrab's HTTP stack with our own JSON bodies, bounded retries
//! with backoff for server errors and rate limits, and errors that never carry the token.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http::{HeaderMap, StatusCode};
use octocrab::Octocrab;
use serde_json::Value;

use super::context::Token;

/// Attempts per request, the first included.
const ATTEMPTS: u32 = 3;
/// Wait before the first retry; doubled for each further one.
const BACKOFF: Duration = Duration::from_secs(1);
/// The longest wait a retry may ask for; a rate limit resetting later is reported instead.
const LONGEST_WAIT: Duration = Duration::from_secs(60);
/// The REST API version the request bodies follow.
const API_VERSION: &str = "2022-11-28";

/// Why a request did not succeed.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// 403 without rate-limit headers: the token may not do this (as on pull requests from
    /// forks, where the token is read-only).
    #[error("{what}: 403 Forbidden: {message}")]
    Forbidden {
        /// The request, e.g. `creating the check run`.
        what: String,
        /// GitHub's message.
        message: String,
    },
    /// Any other answer that is not a success, after the retries.
    #[error("{what}: HTTP {status}: {message}")]
    Status {
        /// The request.
        what: String,
        /// The status code.
        status: u16,
        /// GitHub's message.
        message: String,
    },
    /// No answer at all, after the retries.
    #[error("{what}: cannot reach the GitHub API at {url}: {message}")]
    Network {
        /// The request.
        what: String,
        /// The API base.
        url: String,
        /// Why.
        message: String,
    },
}

/// HTTP methods the gate uses.
#[derive(Debug, Clone, Copy)]
pub(super) enum Method {
    /// Read.
    Get,
    /// Create.
    Post,
    /// Update.
    Patch,
}

/// A client for one repository.
pub(super) struct Client {
    octocrab: Octocrab,
    api_url: String,
    /// `/repos/{owner}/{name}`.
    repo_route: String,
}

impl Client {
    /// A client for `owner/name` at `api_url`, authenticated with `token`.
    pub(super) fn new(
        api_url: &str,
        (owner, name): (&str, &str),
        token: &Token,
    ) -> Result<Client, ApiError> {
        let network = |message: String| ApiError::Network {
            what: "setting up the HTTP client".into(),
            url: api_url.to_owned(),
            message,
        };
        let octocrab = Octocrab::builder()
            .base_uri(api_url)
            .map_err(|e| network(format!("GITHUB_API_URL is not a URL: {e}")))?
            .personal_token(token.expose().to_owned())
            .add_header(
                http::HeaderName::from_static("x-github-api-version"),
                API_VERSION.to_owned(),
            )
            .set_connect_timeout(Some(Duration::from_secs(10)))
            .set_read_timeout(Some(Duration::from_secs(60)))
            .build()
            .map_err(|e| network(describe(&e)))?;
        Ok(Client {
            octocrab,
            api_url: api_url.to_owned(),
            repo_route: format!("/repos/{}/{}", segment(owner), segment(name)),
        })
    }

    /// `/repos/{owner}/{name}` followed by `rest`.
    pub(super) fn route(&self, rest: &str) -> String {
        format!("{}{rest}", self.repo_route)
    }

    /// Send one request with a JSON body and return the JSON answer (`null` when empty),
    /// retrying server errors, rate limits and network failures a bounded number of times.
    pub(super) async fn send(
        &self,
        what: &str,
        method: Method,
        route: &str,
        body: Option<&Value>,
    ) -> Result<Value, ApiError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let last = attempt >= ATTEMPTS;
            let backoff = BACKOFF * 2u32.pow(attempt - 1);
            let response = match method {
                Method::Get => self.octocrab._get(route).await,
                Method::Post => self.octocrab._post(route, body).await,
                Method::Patch => self.octocrab._patch(route, body).await,
            };
            let response = match response {
                Ok(r) => r,
                Err(e) if last => {
                    return Err(ApiError::Network {
                        what: what.to_owned(),
                        url: self.api_url.clone(),
                        message: describe(&e),
                    });
                }
                Err(_) => {
                    tokio::time::sleep(backoff).await;
                    continue;
                }
            };
            let status = response.status();
            let headers = response.headers().clone();
            let text = match self.octocrab.body_to_string(response).await {
                Ok(t) => t,
                Err(e) if last => {
                    return Err(ApiError::Network {
                        what: what.to_owned(),
                        url: self.api_url.clone(),
                        message: describe(&e),
                    });
                }
                Err(_) => {
                    tokio::time::sleep(backoff).await;
                    continue;
                }
            };
            if status.is_success() {
                return Ok(serde_json::from_str(&text).unwrap_or(Value::Null));
            }
            let message = error_message(&text);
            if let Some(wait) = retry_wait(status, &headers, backoff) {
                if !last && wait <= LONGEST_WAIT {
                    tokio::time::sleep(wait).await;
                    continue;
                }
                if wait > LONGEST_WAIT {
                    return Err(ApiError::Status {
                        what: what.to_owned(),
                        status: status.as_u16(),
                        message: format!(
                            "{message} (rate limited for another {} s)",
                            wait.as_secs()
                        ),
                    });
                }
            }
            return Err(if status == StatusCode::FORBIDDEN {
                ApiError::Forbidden {
                    what: what.to_owned(),
                    message,
                }
            } else {
                ApiError::Status {
                    what: what.to_owned(),
                    status: status.as_u16(),
                    message,
                }
            });
        }
    }
}

/// How long to wait before retrying, or `None` when the answer is not worth a retry:
/// server errors and rate limits (429, or 403 with the rate-limit headers) are.
fn retry_wait(status: StatusCode, headers: &HeaderMap, backoff: Duration) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    let retry_after = header("retry-after").and_then(|v| v.parse::<u64>().ok());
    let exhausted = header("x-ratelimit-remaining") == Some("0");
    let rate_limited = status == StatusCode::TOO_MANY_REQUESTS
        || (status == StatusCode::FORBIDDEN && (exhausted || retry_after.is_some()));
    if !(rate_limited || status.is_server_error()) {
        return None;
    }
    if let Some(seconds) = retry_after {
        return Some(Duration::from_secs(seconds));
    }
    if exhausted && let Some(reset) = header("x-ratelimit-reset").and_then(|v| v.parse().ok()) {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        return Some(Duration::from_secs(u64::saturating_sub(reset, now).max(1)));
    }
    Some(backoff)
}

/// GitHub's `message` from an error body, or the body's first line.
fn error_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    match parsed.as_ref().and_then(|v| v["message"].as_str()) {
        Some(m) => m.to_owned(),
        None => {
            let line = body.lines().next().unwrap_or("").trim();
            if line.is_empty() {
                "(no message)".to_owned()
            } else {
                line.chars().take(200).collect()
            }
        }
    }
}

/// An octocrab error in one line, with its causes; octocrab errors carry no headers, so no
/// token.
fn describe(e: &octocrab::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let next = s.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = s.source();
    }
    text
}

/// A path segment with the characters a URL path cannot hold percent-encoded.
fn segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(char::from(b));
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn retries_server_errors_and_rate_limits_only() {
        let b = Duration::from_secs(2);
        assert_eq!(
            retry_wait(StatusCode::BAD_GATEWAY, &headers(&[]), b),
            Some(b)
        );
        assert_eq!(
            retry_wait(
                StatusCode::TOO_MANY_REQUESTS,
                &headers(&[("retry-after", "5")]),
                b
            ),
            Some(Duration::from_secs(5))
        );
        assert_eq!(
            retry_wait(
                StatusCode::FORBIDDEN,
                &headers(&[("x-ratelimit-remaining", "0")]),
                b
            ),
            Some(b)
        );
        assert_eq!(retry_wait(StatusCode::FORBIDDEN, &headers(&[]), b), None);
        assert_eq!(retry_wait(StatusCode::NOT_FOUND, &headers(&[]), b), None);
        assert_eq!(
            retry_wait(StatusCode::UNPROCESSABLE_ENTITY, &headers(&[]), b),
            None
        );
    }

    #[test]
    fn messages_come_from_the_body() {
        assert_eq!(
            error_message(r#"{"message":"Resource not accessible by integration"}"#),
            "Resource not accessible by integration"
        );
        assert_eq!(error_message(""), "(no message)");
        assert_eq!(segment("my org/x"), "my%20org%2Fx");
    }
}

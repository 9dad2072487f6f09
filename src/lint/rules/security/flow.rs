//! The data-flow judgement the shell and Python readers share: what a value carries (a
//! credential store, the whole environment, a `.env` file, one named key) and whether a
//! network call that receives it steals it or merely authenticates with it.
//!
//! A key read from the environment and sent to the service it is named for
//! (`OPENAI_API_KEY` to `api.openai.com`), or sent in an authentication header, is the
//! script doing its job. A credential store of another tool (`~/.ssh`, `~/.aws`), the whole
//! environment or a whole `.env` file sent anywhere, a named key sent to a host unrelated to
//! its name, and a key with no service in its name sent in a request body are exfiltration.

use std::ops::Range;

/// What a value carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Secret {
    /// A credential store or file of another tool, or the whole environment or `.env`:
    /// what it is.
    Store(String),
    /// One environment variable whose name says it is a credential.
    Key(String),
}

/// A secret and where it was read.
#[derive(Debug, Clone)]
pub(crate) struct Tainted {
    pub secret: Secret,
    /// The read, in the file of the code that holds it.
    pub at: Range<usize>,
}

/// Where a value goes in a network call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// An authentication header, `auth=`, a bearer token: the key proves who calls.
    Auth,
    /// The request body, URL or any other argument: the value is delivered.
    Body,
}

/// Name parts that say a variable holds a credential.
const SECRET_PARTS: &[&str] = &[
    "key",
    "token",
    "secret",
    "password",
    "passwd",
    "pwd",
    "credential",
    "credentials",
    "apikey",
    "pat",
];

/// Name parts that say nothing about which service a key is for.
const GENERIC_PARTS: &[&str] = &[
    "api",
    "key",
    "token",
    "secret",
    "access",
    "auth",
    "password",
    "passwd",
    "pwd",
    "pass",
    "credential",
    "credentials",
    "private",
    "client",
    "id",
    "bearer",
    "my",
    "app",
    "bot",
    "personal",
    "pat",
    "oauth",
    "refresh",
    "session",
    "user",
    "service",
    "account",
    "apikey",
    "default",
    "prod",
    "dev",
    "url",
    "uri",
    "database",
    "connection",
    "string",
    // Roles and environments, not services (`REGULAR_USER_TOKEN`, `ADMIN_PASSWORD`).
    "regular",
    "admin",
    "test",
    "target",
    "victim",
    "attacker",
    "low",
    "high",
    "priv",
    "new",
    "old",
    "temp",
    "local",
    "remote",
    "read",
    "write",
    "live",
    "staging",
    "production",
    "main",
    "primary",
    "secondary",
    "master",
    "root",
    "guest",
    // What a CI system issues a token to (`CI_JOB_TOKEN`, `RUNNER_TOKEN`), not a service.
    "job",
    "runner",
    "deploy",
    "pipeline",
    "build",
    // What a server issues a token to when it pairs a client (`DEVICE_TOKEN`).
    "device",
];

/// Whether an environment variable's name says it holds a credential (`GITHUB_TOKEN`,
/// `OPENAI_API_KEY`, `DB_PASSWORD`; not `KEYBOARD_LAYOUT` or `TOKENIZERS_PARALLELISM`).
pub(crate) fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower
        .split(['_', '-'])
        .any(|part| SECRET_PARTS.contains(&part))
        || CONNECTION_STRINGS.contains(&lower.as_str())
}

/// Names of connection strings, which carry a password (`postgres://user:pw@host/db`).
const CONNECTION_STRINGS: &[&str] = &[
    "database_url",
    "database_uri",
    "db_url",
    "db_uri",
    "postgres_url",
    "postgresql_url",
    "mysql_url",
    "mongodb_uri",
    "mongodb_url",
    "mongo_url",
    "mongo_uri",
    "redis_url",
    "amqp_url",
    "connection_string",
];

/// Hosts on this machine: what is sent there does not leave it.
fn is_local(host: &str) -> bool {
    matches!(
        host,
        "localhost" | "127.0.0.1" | "0.0.0.0" | "[::1]" | "host.docker.internal"
    ) || host.ends_with(".localhost")
}

/// The parts of a key's name that name a service (`openai` in `OPENAI_API_KEY`).
fn service_parts(name: &str) -> Vec<String> {
    name.to_ascii_lowercase()
        .split(['_', '-'])
        .filter(|p| p.len() >= 3 && !GENERIC_PARTS.contains(p))
        .map(str::to_owned)
        .collect()
}

/// The service a key's name names (`openai` for `OPENAI_API_KEY`), empty for a generic
/// name (`API_KEY`, `DATABASE_URL`).
pub(crate) fn service_of(name: &str) -> String {
    service_parts(name).join("_")
}

/// The host of a URL (`https://api.x.com:443/v1` -> `api.x.com`).
pub(crate) fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let host = rest
        .split(['/', '?', '#'])
        .next()?
        .rsplit('@')
        .next()?
        .split(':')
        .next()?;
    (!host.is_empty() && !host.contains(['{', '$', '<'])).then(|| host.to_ascii_lowercase())
}

/// Products named in keys whose API lives under their maker's domain (`CLAUDE_API_KEY` to
/// `api.anthropic.com`, `GEMINI_API_KEY` to `generativelanguage.googleapis.com`).
const PRODUCT_HOSTS: &[(&str, &str)] = &[("claude", "anthropic"), ("gemini", "googleapis")];

/// Whether a host belongs to the service a key is named for.
fn host_matches(name: &str, host: &str) -> bool {
    let joined = host.replace(['-', '.'], "");
    service_parts(name).iter().any(|part| {
        joined.contains(part.as_str())
            || PRODUCT_HOSTS
                .iter()
                .any(|(product, maker)| part == product && joined.contains(maker))
            || host
                .split('.')
                .any(|label| abbreviates(part, &label.replace('-', "")))
    })
}

/// Whether a short name part is an abbreviation of a host label: its first letter and the
/// rest in order (`hibp` of `haveibeenpwned`, `gcp` of `googlecloudplatform`).
fn abbreviates(part: &str, label: &str) -> bool {
    if part.len() > 5 || label.len() <= part.len() || !label.starts_with(&part[..1]) {
        return false;
    }
    let mut letters = label.chars();
    part.chars().all(|c| letters.any(|l| l == c))
}

/// What a network call steals by receiving `secret` at `place`, sent to `host` when known;
/// `None` when it is the script using its own key.
pub(crate) fn stolen(secret: &Secret, place: Place, host: Option<&str>) -> Option<String> {
    match secret {
        Secret::Store(what) => Some(what.clone()),
        Secret::Key(name) => {
            let named = !service_parts(name).is_empty();
            if host.is_some_and(is_local) {
                return None;
            }
            match (named, host) {
                (true, Some(host)) if !host_matches(name, host) => Some(format!(
                    "`{name}` to `{host}`, a host unrelated to the key's name"
                )),
                (false, _) if place == Place::Body => Some(format!("`{name}` in the request body")),
                _ => None,
            }
        }
    }
}

/// The URL a base64 literal decodes to, when it decodes to one and nothing else.
pub(crate) fn decoded_url(literal: &str) -> Option<String> {
    let text = String::from_utf8(decode_base64(literal)?).ok()?;
    let text = text.trim();
    let url = (text.starts_with("https://") || text.starts_with("http://"))
        && !text.contains(char::is_whitespace)
        && host_of(text).is_some_and(|h| h.contains('.'));
    url.then(|| text.to_owned())
}

/// Standard or URL-safe base64, padding optional.
pub(crate) fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let data = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(data.len() * 3 / 4);
    for chunk in data.chunks(4) {
        let mut acc = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            acc |= value(c)? << (18 - 6 * i);
        }
        let bytes = acc.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names() {
        for name in [
            "GITHUB_TOKEN",
            "OPENAI_API_KEY",
            "DB_PASSWORD",
            "API_KEY",
            "DATABASE_URL",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in ["KEYBOARD_LAYOUT", "TOKENIZERS_PARALLELISM", "HOME", "PATH"] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn own_service_is_use_and_another_host_is_theft() {
        let openai = Secret::Key("OPENAI_API_KEY".into());
        assert_eq!(stolen(&openai, Place::Body, Some("api.openai.com")), None);
        assert_eq!(stolen(&openai, Place::Auth, None), None);
        assert!(stolen(&openai, Place::Auth, Some("collector.example")).is_some());
        assert_eq!(stolen(&openai, Place::Body, Some("localhost")), None);
        let hibp = Secret::Key("HIBP_API_KEY".into());
        assert_eq!(stolen(&hibp, Place::Auth, Some("haveibeenpwned.com")), None);
        assert!(stolen(&hibp, Place::Auth, Some("collector.example")).is_some());
        let role = Secret::Key("REGULAR_USER_TOKEN".into());
        assert_eq!(stolen(&role, Place::Auth, Some("target.com")), None);
        let job = Secret::Key("CI_JOB_TOKEN".into());
        assert_eq!(stolen(&job, Place::Auth, Some("gitlab.example")), None);
        assert!(stolen(&job, Place::Body, Some("collector.example")).is_some());
        let generic = Secret::Key("API_KEY".into());
        assert_eq!(stolen(&generic, Place::Auth, Some("x.example")), None);
        assert!(stolen(&generic, Place::Body, Some("x.example")).is_some());
        let store = Secret::Store("SSH keys (~/.ssh)".into());
        assert!(stolen(&store, Place::Auth, Some("github.com")).is_some());
        assert_eq!(
            host_of("https://user@api.x.com:443/v1?q").as_deref(),
            Some("api.x.com")
        );
        assert_eq!(host_of("https://{host}/v1"), None);
    }
}

//! The one pull-request comment the gate keeps: found again by its hidden marker and by its
//! author, and edited in place, so every push updates it instead of adding another. A comment
//! holding the marker that someone else wrote is never edited.

use serde_json::json;

use super::client::{ApiError, Client, Method};
use super::summary::COMMENT_MARKER;

/// Comments asked for per page.
const PER_PAGE: usize = 100;
/// Pages read at most while looking for the marker (10,000 comments).
const MAX_PAGES: usize = 100;
/// The login of the Actions `GITHUB_TOKEN`, which may not read `GET /user`.
pub(super) const ACTIONS_BOT: &str = "github-actions[bot]";

/// Edit the gate's comment on pull request `number` to hold `body`, or create it.
pub(super) async fn upsert(client: &Client, number: u64, body: &str) -> Result<(), ApiError> {
    let author = author(client).await?;
    match find(client, number, &author).await? {
        Some(id) => edit(client, id, body).await,
        None => {
            client
                .send(
                    "creating the pull request comment",
                    Method::Post,
                    &client.route(&format!("/issues/{number}/comments")),
                    Some(&json!({ "body": body })),
                )
                .await?;
            Ok(())
        }
    }
}

/// Edit the gate's comment on pull request `number` to hold `body` when there is one; create
/// none. Returns whether a comment was edited.
pub(super) async fn update_existing(
    client: &Client,
    number: u64,
    body: &str,
) -> Result<bool, ApiError> {
    let author = author(client).await?;
    match find(client, number, &author).await? {
        Some(id) => edit(client, id, body).await.map(|()| true),
        None => Ok(false),
    }
}

async fn edit(client: &Client, id: u64, body: &str) -> Result<(), ApiError> {
    client
        .send(
            "editing the pull request comment",
            Method::Patch,
            &client.route(&format!("/issues/comments/{id}")),
            Some(&json!({ "body": body })),
        )
        .await?;
    Ok(())
}

/// The login the token writes comments as: `GET /user`, or `github-actions[bot]` when the
/// token may not read it (the Actions `GITHUB_TOKEN` and app installation tokens get 403).
async fn author(client: &Client) -> Result<String, ApiError> {
    match client
        .send("reading the token's user", Method::Get, "/user", None)
        .await
    {
        Ok(user) => Ok(user["login"]
            .as_str()
            .filter(|l| !l.is_empty())
            .unwrap_or(ACTIONS_BOT)
            .to_owned()),
        Err(ApiError::Forbidden { .. } | ApiError::Status { .. }) => Ok(ACTIONS_BOT.to_owned()),
        Err(e @ ApiError::Network { .. }) => Err(e),
    }
}

/// The id of the first comment holding the marker that `author` wrote.
async fn find(client: &Client, number: u64, author: &str) -> Result<Option<u64>, ApiError> {
    for page in 1..=MAX_PAGES {
        let comments = client
            .send(
                "listing the pull request comments",
                Method::Get,
                &client.route(&format!(
                    "/issues/{number}/comments?per_page={PER_PAGE}&page={page}"
                )),
                None,
            )
            .await?;
        let comments = comments.as_array().map(Vec::as_slice).unwrap_or_default();
        let marked = comments.iter().find(|c| {
            c["body"]
                .as_str()
                .is_some_and(|b| b.contains(COMMENT_MARKER))
                && c["user"]["login"]
                    .as_str()
                    .is_some_and(|l| l.eq_ignore_ascii_case(author))
        });
        if let Some(id) = marked.and_then(|c| c["id"].as_u64()) {
            return Ok(Some(id));
        }
        if comments.len() < PER_PAGE {
            break;
        }
    }
    Ok(None)
}

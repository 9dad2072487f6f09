//! The one pull-request comment the gate keeps: found again by its hidden marker and edited
//! in place, so every push updates it instead of adding another.

use serde_json::json;

use super::client::{ApiError, Client, Method};
use super::summary::COMMENT_MARKER;

/// Comments asked for per page.
const PER_PAGE: usize = 100;
/// Pages read at most while looking for the marker (10,000 comments).
const MAX_PAGES: usize = 100;

/// Edit the marked comment of pull request `number` to hold `body`, or create it.
pub(super) async fn upsert(client: &Client, number: u64, body: &str) -> Result<(), ApiError> {
    let payload = json!({ "body": body });
    match find(client, number).await? {
        Some(id) => {
            client
                .send(
                    "editing the pull request comment",
                    Method::Patch,
                    &client.route(&format!("/issues/comments/{id}")),
                    Some(&payload),
                )
                .await?;
        }
        None => {
            client
                .send(
                    "creating the pull request comment",
                    Method::Post,
                    &client.route(&format!("/issues/{number}/comments")),
                    Some(&payload),
                )
                .await?;
        }
    }
    Ok(())
}

/// The id of the first comment holding the marker.
async fn find(client: &Client, number: u64) -> Result<Option<u64>, ApiError> {
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

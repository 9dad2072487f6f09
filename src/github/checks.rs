//! One check run per skill: created `in_progress` on the head commit, given its annotations
//! 50 per request, then completed with a conclusion, a summary and the details.

use std::path::Path;

use serde::Serialize;
use serde_json::json;

use super::Gated;
use super::client::{ApiError, Client, Method};
use super::summary::{self, CHECK_RUN_LIMIT};
use crate::finding::{Finding, Severity};

/// The most annotations GitHub takes in one request.
pub const ANNOTATIONS_PER_REQUEST: usize = 50;

/// One check-run annotation, as the REST API takes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Annotation {
    /// Path relative to the repository root.
    pub path: String,
    /// First line.
    pub start_line: u32,
    /// Last line.
    pub end_line: u32,
    /// First column, only when the finding spans one line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_column: Option<u32>,
    /// Last column, only when the finding spans one line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_column: Option<u32>,
    /// `failure`, `warning` or `notice`.
    pub annotation_level: &'static str,
    /// The rule's code and name.
    pub title: String,
    /// The finding and its help.
    pub message: String,
    /// The related places, one per line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_details: Option<String>,
}

/// The annotation of one finding; `root` is the repository root paths are made relative to.
pub fn annotation(f: &Finding, root: &Path) -> Annotation {
    let l = &f.location;
    let one_line = l.line == l.end_line;
    let mut message = f.message.clone();
    if let Some(help) = &f.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let raw_details = (!f.related.is_empty()).then(|| {
        f.related
            .iter()
            .map(|r| {
                format!(
                    "{}:{}: {}",
                    super::root_relative(&r.location.path, root),
                    r.location.line,
                    r.message
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    });
    Annotation {
        path: super::root_relative(&l.path, root),
        start_line: l.line.max(1),
        end_line: l.end_line.max(l.line).max(1),
        start_column: one_line.then_some(l.column.max(1)),
        end_column: one_line.then_some(l.end_column.max(l.column).max(1)),
        annotation_level: match f.severity {
            Severity::Error => "failure",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        },
        title: format!("{} {}", f.code, f.name),
        message,
        raw_details,
    }
}

/// Create, annotate and complete the check run of one skill; returns its id.
pub(super) async fn post(
    client: &Client,
    head_sha: &str,
    gated: &Gated<'_>,
    root: &Path,
) -> Result<u64, ApiError> {
    let name = format!("skillgate: {}", gated.name);
    let what = |doing: &str| format!("{doing} the check run {name:?}");
    let created = client
        .send(
            &what("creating"),
            Method::Post,
            &client.route("/check-runs"),
            Some(&json!({
                "name": name,
                "head_sha": head_sha,
                "status": "in_progress",
            })),
        )
        .await?;
    let Some(id) = created["id"].as_u64() else {
        return Err(ApiError::Status {
            what: what("creating"),
            status: 201,
            message: "the answer has no check run id".into(),
        });
    };
    let route = client.route(&format!("/check-runs/{id}"));
    let result = annotate_and_complete(client, &route, &name, gated, root).await;
    if let Err(e) = &result {
        // Leave no run spinning forever, whatever stopped it (a 403 on the annotations
        // included): complete it as cancelled, with the reason.
        let cancelled = client
            .send(
                &format!("cancelling the check run {name:?}"),
                Method::Patch,
                &route,
                Some(&cancellation(e)),
            )
            .await;
        if let Err(c) = cancelled {
            eprintln!("skillgate: {c}; the check run may stay in progress");
        }
    }
    result.map(|()| id)
}

/// The body that completes a run as `cancelled`, with why in its summary.
fn cancellation(e: &ApiError) -> serde_json::Value {
    json!({
        "status": "completed",
        "conclusion": "cancelled",
        "output": {
            "title": "skillgate could not finish this report",
            "summary": summary::cap(
                &format!(
                    "skillgate stopped before this report was complete: {e}.\n\nThe findings \
                     are in the workflow's log."
                ),
                CHECK_RUN_LIMIT,
            ),
        },
    })
}

/// Send the annotations of a created run, 50 per request, then complete it.
async fn annotate_and_complete(
    client: &Client,
    route: &str,
    name: &str,
    gated: &Gated<'_>,
    root: &Path,
) -> Result<(), ApiError> {
    let what = |doing: &str| format!("{doing} the check run {name:?}");
    let title = summary::title(gated);
    let annotations: Vec<Annotation> = gated
        .report
        .findings
        .iter()
        .map(|f| annotation(f, root))
        .collect();
    let batches = annotations.len().div_ceil(ANNOTATIONS_PER_REQUEST);
    for (i, batch) in annotations.chunks(ANNOTATIONS_PER_REQUEST).enumerate() {
        let progress = format!(
            "Sending annotations: part {} of {batches}; the summary follows.",
            i + 1
        );
        client
            .send(
                &what("annotating"),
                Method::Patch,
                route,
                Some(&json!({
                    "output": { "title": title, "summary": progress, "annotations": batch },
                })),
            )
            .await?;
    }
    client
        .send(
            &what("completing"),
            Method::Patch,
            route,
            Some(&json!({
                "status": "completed",
                "conclusion": gated.conclusion.as_str(),
                "output": {
                    "title": title,
                    "summary": summary::cap(&summary::check_summary(gated), CHECK_RUN_LIMIT),
                    "text": summary::cap(&summary::check_text(gated), CHECK_RUN_LIMIT),
                },
            })),
        )
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::finding::{Location, Related};

    fn finding(line: u32, end_line: u32) -> Finding {
        Finding {
            code: "SG501",
            name: "broken-link",
            severity: Severity::Warning,
            message: "links to a missing file".into(),
            help: Some("fix the link".into()),
            location: Location {
                path: PathBuf::from("/pack/skills/a/SKILL.md"),
                line,
                column: 3,
                end_line,
                end_column: 9,
                span: 0..0,
            },
            related: vec![Related {
                location: Location {
                    path: PathBuf::from("/pack/package.json"),
                    line: 4,
                    column: 1,
                    end_line: 4,
                    end_column: 1,
                    span: 0..0,
                },
                message: "declared here".into(),
            }],
            fix: None,
        }
    }

    #[test]
    fn columns_only_on_single_line_findings() {
        let one = annotation(&finding(5, 5), Path::new("/pack"));
        assert_eq!(one.path, "skills/a/SKILL.md");
        assert_eq!((one.start_column, one.end_column), (Some(3), Some(9)));
        assert_eq!(one.annotation_level, "warning");
        assert_eq!(one.title, "SG501 broken-link");
        assert_eq!(one.message, "links to a missing file\nhelp: fix the link");
        assert_eq!(
            one.raw_details.as_deref(),
            Some("package.json:4: declared here")
        );
        let many = annotation(&finding(5, 7), Path::new("/pack"));
        assert_eq!((many.start_column, many.end_column), (None, None));
        let json = serde_json::to_value(&many).unwrap();
        assert!(json.get("start_column").is_none(), "{json}");
    }
}

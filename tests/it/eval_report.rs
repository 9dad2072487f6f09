//! Snapshots of what people and machines read: the verdict JSON, the text and markdown
//! reports and the HTML page.

use skillgate::eval::journal::CellRecord;
use skillgate::finding::Severity;
use skillgate::render::{html, verdict_text};
use skillgate::stats::{StatsOptions, summarize};
use skillgate::verdict::{Verdict, VerdictPolicy, decide};

use crate::synthetic::{four_tasks, from_counts, twelve_tasks};
use crate::verdict::finding;

fn evaluated(cells: &[CellRecord]) -> Verdict {
    let summary = summarize(cells, &StatsOptions::default()).unwrap();
    decide(&VerdictPolicy::default(), &[], Some(&summary))
}

fn static_skip() -> Verdict {
    let findings = [finding(
        "SG401",
        Severity::Error,
        "skill targets Django 3.2, project resolves 5.0.6",
    )];
    decide(&VerdictPolicy::default(), &findings, None)
}

/// Forty tasks where the skill mostly helps: wins, ties, losses and one task without a pair.
fn forty_tasks() -> Vec<CellRecord> {
    let rows: Vec<(u32, u32, u32)> = (0..40_u32)
        .map(|i| {
            let c0 = (i * 7) % 4;
            let c1 = match i % 5 {
                0 => c0.saturating_sub(1),
                1 | 2 => c0,
                _ => (c0 + 2).min(3),
            };
            (c0, c1, (i * 3 + 1) % 4)
        })
        .collect();
    let mut cells = from_counts(3, &rows);
    cells.retain(|c| {
        !(c.task == "task-17" && c.condition == skillgate::eval::condition::Condition::C1)
    });
    cells
}

#[test]
fn verdict_json() {
    insta::assert_json_snapshot!("inject_twelve_tasks", evaluated(&twelve_tasks()));
    insta::assert_json_snapshot!("static_skip", static_skip());
}

#[test]
fn verdict_json_is_byte_identical_across_runs() {
    let first = serde_json::to_string_pretty(&evaluated(&twelve_tasks())).unwrap();
    let second = serde_json::to_string_pretty(&evaluated(&twelve_tasks())).unwrap();
    assert_eq!(first, second);
}

#[test]
fn human_report() {
    insta::assert_snapshot!(
        "human_inject",
        verdict_text::human(&evaluated(&twelve_tasks()))
    );
    insta::assert_snapshot!("human_skip", verdict_text::human(&evaluated(&four_tasks())));
    insta::assert_snapshot!("human_static", verdict_text::human(&static_skip()));
}

#[test]
fn markdown_report() {
    insta::assert_snapshot!(
        "markdown_inject",
        verdict_text::markdown(&evaluated(&twelve_tasks()))
    );
    insta::assert_snapshot!("markdown_static", verdict_text::markdown(&static_skip()));
}

#[test]
fn html_report() {
    let page = html::page(&evaluated(&forty_tasks()), "django-upgrade on example/shop");
    // The page must stand alone: no scripts, no external resources.
    for forbidden in ["<script", "http://", "https://", "src="] {
        let allowed_svg_namespace = forbidden == "http://";
        let hits = page.matches(forbidden).count();
        let namespaces = page.matches("xmlns=\"http://www.w3.org/2000/svg\"").count();
        let hits = if allowed_svg_namespace {
            hits - namespaces
        } else {
            hits
        };
        assert_eq!(hits, 0, "{forbidden} in the page");
    }
    std::fs::write(
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("eval-report.html"),
        &page,
    )
    .unwrap();
    insta::assert_snapshot!("html_forty_tasks", page);
    insta::assert_snapshot!(
        "html_static",
        html::page(&static_skip(), "django-upgrade on example/shop")
    );
}

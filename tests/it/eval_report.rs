//! Snapshots of what people and machines read: the verdict JSON, the text and markdown
//! reports and the HTML page.

use skillgate::eval::journal::CellRecord;
use skillgate::finding::Severity;
use skillgate::render::{html, verdict_text};
use skillgate::stats::{StatsOptions, summarize};
use skillgate::verdict::{Verdict, VerdictPolicy, decide};

use crate::synthetic::{four_tasks, from_counts, gain_at_attempt_two, passes, twelve_tasks};
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

/// Retries with a gain only at attempt 2, an A/A condition that flips on two tasks, and a
/// skill the agent opened in every C1 attempt but three.
fn retries_with_aa() -> Vec<CellRecord> {
    use skillgate::eval::condition::Condition;
    let mut cells = gain_at_attempt_two();
    let mut unread = 0;
    for cell in cells.iter_mut() {
        for attempt in cell.attempts.iter_mut() {
            if cell.condition != Condition::C0 {
                attempt.skill_read = Some(!(cell.condition == Condition::C1 && unread < 3));
                unread += u32::from(cell.condition == Condition::C1);
            }
        }
    }
    for t in 0..20 {
        let passed = u32::from(t == 4 || t == 11);
        cells.extend(passes(&format!("task-{t:02}"), Condition::C0b, 2, passed));
    }
    cells
}

#[test]
fn retries_and_aa_in_every_format() {
    let verdict = evaluated(&retries_with_aa());
    insta::assert_json_snapshot!("retries_aa_json", verdict);
    insta::assert_snapshot!("retries_aa_human", verdict_text::human(&verdict));
    insta::assert_snapshot!("retries_aa_markdown", verdict_text::markdown(&verdict));
    insta::assert_snapshot!(
        "retries_aa_html",
        html::page(&verdict, "inventory-conventions on example/shop")
    );
}

/// The four tasks with what their cells ran in: `t1` with network for the agent and an
/// offline verifier, whose image held two skills; `t2` offline throughout; `t3` online
/// throughout but one C2 cell's agent crashed (its verifier never ran); `t4` as journals
/// written before cells recorded it.
fn four_tasks_with_environment() -> Vec<CellRecord> {
    use skillgate::eval::condition::Condition;
    use skillgate::eval::journal::PhaseNetwork;
    let mut cells = four_tasks();
    for cell in cells.iter_mut() {
        let network = match cell.task.as_str() {
            "t1" => Some(PhaseNetwork {
                agent: true,
                verifier: Some(false),
            }),
            "t2" => Some(PhaseNetwork {
                agent: false,
                verifier: Some(false),
            }),
            "t3" if cell.condition == Condition::C2 && cell.seed == 1 => Some(PhaseNetwork {
                agent: true,
                verifier: None,
            }),
            "t3" => Some(PhaseNetwork {
                agent: true,
                verifier: Some(true),
            }),
            _ => None,
        };
        for attempt in cell.attempts.iter_mut() {
            attempt.network = network;
        }
        if cell.task == "t1" {
            cell.environment_skills_removed = vec![
                "/root/.claude/skills/xlsx".into(),
                "/root/.claude/skills/pdf".into(),
            ];
        }
    }
    cells
}

#[test]
fn environment_in_every_format() {
    let verdict = evaluated(&four_tasks_with_environment());
    let environment = &verdict.eval.as_ref().unwrap().environment;
    assert_eq!(environment.network.len(), 4, "{environment:?}");
    insta::assert_json_snapshot!("environment_json", environment);
    insta::assert_snapshot!("environment_human", verdict_text::human(&verdict));
    insta::assert_snapshot!("environment_markdown", verdict_text::markdown(&verdict));
    let page = html::page(&verdict, "xlsx on example/sheets");
    let section = &page[page.find("<h2>Environment</h2>").unwrap()..];
    insta::assert_snapshot!("environment_html", section);
}

#[test]
fn a_journal_without_environment_records_reports_none() {
    let verdict = evaluated(&four_tasks());
    let summary = verdict.eval.as_ref().unwrap();
    assert!(summary.environment.is_empty());
    let json = serde_json::to_value(&verdict).unwrap();
    assert!(json["eval"].get("environment").is_none(), "{json}");
    assert!(!verdict_text::human(&verdict).contains("Environment"));
    assert!(!html::page(&verdict, "x").contains("Environment"));
}

/// The same run on an engine without disk quotas: `t2` sets a storage limit that its cells
/// ran without, and every format lists it with the reason.
#[test]
fn storage_not_enforced_in_every_format() {
    use skillgate::eval::journal::StorageNotEnforced;
    let mut cells = four_tasks_with_environment();
    for cell in cells.iter_mut().filter(|c| c.task == "t2") {
        cell.storage_not_enforced = Some(StorageNotEnforced {
            limit_mb: 10240,
            reason: "the engine's storage driver fuse-overlayfs has no disk quotas (`--storage-opt size` needs overlay2 on xfs with pquota, btrfs, zfs or devicemapper)".into(),
        });
    }
    let verdict = evaluated(&cells);
    let environment = &verdict.eval.as_ref().unwrap().environment;
    assert_eq!(environment.storage_not_enforced.len(), 1, "{environment:?}");
    insta::assert_json_snapshot!(
        "storage_not_enforced_json",
        environment.storage_not_enforced
    );
    insta::assert_snapshot!("storage_not_enforced_human", verdict_text::human(&verdict));
    insta::assert_snapshot!(
        "storage_not_enforced_markdown",
        verdict_text::markdown(&verdict)
    );
    let page = html::page(&verdict, "xlsx on example/sheets");
    let section = &page[page.find("<h2>Environment</h2>").unwrap()..];
    insta::assert_snapshot!("storage_not_enforced_html", section);
}

/// A journal line written before cells recorded unenforced storage limits still reads.
#[test]
fn an_older_cell_line_reads_without_storage_records() {
    let cell = &four_tasks()[0];
    let mut json = serde_json::to_value(cell).unwrap();
    assert!(json.get("storage_not_enforced").is_none(), "{json}");
    json.as_object_mut()
        .unwrap()
        .remove("environment_skills_removed");
    let back: CellRecord = serde_json::from_value(json).unwrap();
    assert_eq!(&back, cell);
}

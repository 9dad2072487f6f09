//! Recorded-transcript look-alikes of each agent's output (`fixtures/transcripts/`), read by
//! the agent's own parser and compared with the totals beside each one.

use std::path::Path;

use serde_json::{Value, json};
use skillgate::eval::agent::AgentKind;

use super::support::fixture;

/// Every transcript of one agent, with its expected totals (or the refusal it must get).
fn check_all(agent: AgentKind, dir: &str) -> usize {
    let dir = fixture(&format!("transcripts/{dir}"));
    let mut checked = 0;
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    names.sort();
    for transcript in names {
        check(agent, &transcript);
        checked += 1;
    }
    checked
}

fn check(agent: AgentKind, transcript: &Path) {
    let expected_path = transcript.with_extension("expected.json");
    let expected: Value = serde_json::from_slice(&std::fs::read(&expected_path).unwrap())
        .unwrap_or_else(|e| {
            panic!("{}: {e}", expected_path.display());
        });
    let stdout = std::fs::read(transcript).unwrap();
    let name = transcript.display();
    match agent.report(&stdout, None) {
        Err(e) => {
            let refused = expected["refused"].as_str();
            assert!(
                refused.is_some_and(|r| e.contains(r)),
                "{name}: refused with `{e}`, expected {expected}"
            );
        }
        Ok(report) => {
            let mut got = serde_json::to_value(&report.usage).unwrap();
            got["failure"] = json!(report.failure);
            assert_eq!(got, expected, "{name}");
        }
    }
}

#[test]
fn claude_code_totals_come_from_the_result_event() {
    assert_eq!(check_all(AgentKind::ClaudeCode, "claude-code"), 4);
}

#[test]
fn codex_totals_failures_and_the_older_format() {
    assert_eq!(check_all(AgentKind::Codex, "codex"), 6);
}

/// The cost is kept to the last bit, as the CLI printed it (17 significant digits).
#[test]
fn cost_keeps_full_precision() {
    let stdout = std::fs::read(fixture(
        "transcripts/claude-code/success-with-subagent.jsonl",
    ))
    .unwrap();
    let report = AgentKind::ClaudeCode.report(&stdout, None).unwrap();
    assert_eq!(report.usage.cost_usd, Some(0.156_361_700_000_000_02));
    assert_eq!(
        report.usage.models["claude-sonnet-4-5-20250929"].cost_usd,
        Some(0.151_061_700_000_000_02)
    );
}

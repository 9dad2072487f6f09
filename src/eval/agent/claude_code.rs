//! Claude Code in headless mode (`claude -p … --output-format stream-json --verbose`).
//!
//! The totals are the CLI's own: the final `result` event's `modelUsage`, summed over the
//! models (sub-agents and background models appear only there), or its `usage` when it has
//! no `modelUsage`. The usage on `assistant` lines is a snapshot taken while the message
//! streams (often a few output tokens), so a stream that ends without a `result` (the CLI
//! was killed or crashed) is an error, never scored from those partial counts. A `result`
//! with `is_error: true` (maximum turns, an unknown model, an execution error) is a failure
//! of the run.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::eval::agent::{AgentReport, Invocation, ModelUsage, Usage};

/// The headless command line.
pub fn argv(inv: &Invocation) -> Vec<String> {
    let mut argv = vec![
        inv.program.clone(),
        "-p".to_owned(),
        inv.instruction.clone(),
        "--output-format".to_owned(),
        "stream-json".to_owned(),
        "--verbose".to_owned(),
        "--dangerously-skip-permissions".to_owned(),
    ];
    if let Some(model) = &inv.model {
        argv.extend(["--model".to_owned(), model.clone()]);
    }
    argv
}

#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
}

/// The fields of a `result` event that skillgate reads.
#[derive(Deserialize, Default)]
struct ResultFields {
    subtype: Option<String>,
    #[serde(default)]
    is_error: bool,
    total_cost_usd: Option<f64>,
    usage: Option<MessageUsage>,
    #[serde(rename = "modelUsage", default)]
    model_usage: BTreeMap<String, ResultModelUsage>,
    result: Option<serde_json::Value>,
    errors: Option<serde_json::Value>,
}

#[derive(Deserialize, Clone, Copy, Default)]
struct MessageUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    cache_read_input_tokens: u64,
    #[serde(default)]
    cache_creation_input_tokens: u64,
}

/// Whether any tool call read a file of the skill folder `dir` (relative to the workspace)
/// or invoked the skill `name` through the Skill tool.
pub fn skill_read(stdout: &[u8], dir: &str, name: &str) -> bool {
    #[derive(Deserialize)]
    struct Call {
        #[serde(rename = "type")]
        kind: String,
        #[serde(default)]
        name: String,
        #[serde(default)]
        input: serde_json::Value,
    }
    #[derive(Deserialize)]
    struct Content {
        #[serde(default)]
        content: Vec<serde_json::Value>,
    }
    #[derive(Deserialize)]
    struct Line {
        #[serde(rename = "type")]
        kind: String,
        message: Option<Content>,
    }
    let invokes = |call: &Call| {
        call.name == "Skill"
            && ["skill", "command", "name"]
                .iter()
                .any(|k| call.input.get(k).and_then(|v| v.as_str()) == Some(name))
    };
    let reads = |call: &Call| strings(&call.input).any(|s| super::names_skill_dir(s, dir));
    stdout
        .split(|&b| b == b'\n')
        .filter_map(|line| serde_json::from_slice::<Line>(line).ok())
        .filter(|line| line.kind == "assistant")
        .flat_map(|line| line.message.map(|m| m.content).unwrap_or_default())
        .filter_map(|item| serde_json::from_value::<Call>(item).ok())
        .any(|call| call.kind == "tool_use" && (invokes(&call) || reads(&call)))
}

/// Every string inside a JSON value.
fn strings(value: &serde_json::Value) -> Box<dyn Iterator<Item = &str> + '_> {
    match value {
        serde_json::Value::String(s) => Box::new(std::iter::once(s.as_str())),
        serde_json::Value::Array(items) => Box::new(items.iter().flat_map(strings)),
        serde_json::Value::Object(map) => Box::new(map.values().flat_map(strings)),
        _ => Box::new(std::iter::empty()),
    }
}

/// One entry of `modelUsage` (camelCase, as the CLI writes it).
#[derive(Deserialize, Clone, Copy, Default)]
#[serde(rename_all = "camelCase")]
struct ResultModelUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    cache_read_input_tokens: u64,
    #[serde(default)]
    cache_creation_input_tokens: u64,
    #[serde(rename = "costUSD")]
    cost_usd: Option<f64>,
}

/// Reads the run's totals and failure from its stream; lines that are not JSON are skipped.
/// A stream without a `result` event is an error: its per-message counts are snapshots
/// taken while messages streamed, not the run's totals.
pub fn report(stdout: &[u8]) -> Result<AgentReport, String> {
    let mut result = None;
    let mut assistant_lines = 0;
    for line in stdout.split(|&b| b == b'\n') {
        let Ok(event) = serde_json::from_slice::<Event>(line) else {
            continue;
        };
        match event.kind.as_str() {
            "assistant" => assistant_lines += 1,
            // The last result wins: a resumed session prints one per run.
            "result" => {
                if let Ok(fields) = serde_json::from_slice::<ResultFields>(line) {
                    result = Some(fields);
                }
            }
            _ => {}
        }
    }
    match result {
        Some(result) => Ok(from_result(result)),
        None if assistant_lines == 0 => Err(
            "no stream-json event with usage in the output: is this `claude -p --output-format stream-json --verbose`?"
                .to_owned(),
        ),
        None => Err(format!(
            "stream ended without a result ({assistant_lines} assistant events): the CLI stopped before reporting its totals"
        )),
    }
}

fn from_result(result: ResultFields) -> AgentReport {
    let mut usage = Usage::default();
    if result.model_usage.is_empty() {
        if let Some(u) = &result.usage {
            add(&mut usage, u);
        }
    } else {
        for (model, u) in &result.model_usage {
            usage.input_tokens += u.input_tokens;
            usage.output_tokens += u.output_tokens;
            usage.cache_read_tokens += u.cache_read_input_tokens;
            usage.cache_write_tokens += u.cache_creation_input_tokens;
            usage.models.insert(
                model.clone(),
                ModelUsage {
                    input_tokens: u.input_tokens,
                    output_tokens: u.output_tokens,
                    cache_read_tokens: u.cache_read_input_tokens,
                    cache_write_tokens: u.cache_creation_input_tokens,
                    cost_usd: u.cost_usd,
                },
            );
        }
    }
    let per_model_cost = || {
        let costs: Vec<f64> = usage.models.values().filter_map(|m| m.cost_usd).collect();
        (!costs.is_empty()).then(|| costs.iter().sum())
    };
    usage.cost_usd = result.total_cost_usd.or_else(per_model_cost);
    let failure = result.is_error.then(|| failure_reason(&result));
    AgentReport { usage, failure }
}

/// `claude-code reported error_max_turns: …`, with the CLI's own message when it gave one.
fn failure_reason(result: &ResultFields) -> String {
    let subtype = result.subtype.as_deref().unwrap_or("an error");
    let errors = match &result.errors {
        Some(serde_json::Value::Array(items)) => items.clone(),
        Some(other) => vec![other.clone()],
        None => Vec::new(),
    };
    let detail = errors
        .iter()
        .map(|e| e.as_str().map_or_else(|| e.to_string(), str::to_owned))
        .chain(
            result
                .result
                .as_ref()
                .and_then(|r| r.as_str().map(str::to_owned)),
        )
        .find(|m| !m.trim().is_empty());
    match detail {
        Some(detail) => format!("claude-code reported {subtype}: {}", first_line(&detail)),
        None => format!("claude-code reported {subtype}"),
    }
}

fn first_line(text: &str) -> String {
    let line = text.trim().lines().next().unwrap_or_default();
    let mut cut: String = line.chars().take(300).collect();
    if cut.len() < line.len() {
        cut.push('…');
    }
    cut
}

fn add(total: &mut Usage, u: &MessageUsage) {
    total.input_tokens += u.input_tokens;
    total.output_tokens += u.output_tokens;
    total.cache_read_tokens += u.cache_read_input_tokens;
    total.cache_write_tokens += u.cache_creation_input_tokens;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_of_the_skill_folder_or_the_skill_tool_counts_as_reading_it() {
        let dir = ".claude/skills/pdf";
        let read = br#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{"file_path":"/w/.claude/skills/pdf/reference.md"}}]}}"#;
        let skill = br#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Skill","input":{"skill":"pdf"}}]}}"#;
        let other = br#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{"file_path":"src/pdf.rs"}},{"type":"text","text":"see .claude/skills/pdf"}]}}
{"type":"user","message":{"content":[{"type":"tool_result","content":".claude/skills/pdf/SKILL.md"}]}}"#;
        assert!(skill_read(read, dir, "pdf"));
        assert!(skill_read(skill, dir, "pdf"));
        assert!(!skill_read(other, dir, "pdf"), "mentions are not reads");
        assert!(!skill_read(b"not json", dir, "pdf"));
    }

    #[test]
    fn a_stream_without_a_result_is_an_error_not_partial_counts() {
        let stream = br#"{"type":"system","subtype":"init","session_id":"s"}
{"type":"assistant","message":{"id":"msg_1","usage":{"input_tokens":100,"output_tokens":1}}}
{"type":"user","message":{"content":[]}}
{"type":"assistant","message":{"id":"msg_2","usage":{"input_tokens":30,"output_tokens":5}}}
not json at all
"#;
        let error = report(stream).unwrap_err();
        assert!(
            error.starts_with("stream ended without a result (2 assistant events)"),
            "{error}"
        );
    }

    #[test]
    fn output_without_events_is_refused() {
        assert!(
            report(b"plain text\n{\"type\":\"system\"}\n")
                .unwrap_err()
                .contains("stream-json")
        );
    }

    #[test]
    fn the_result_usage_wins_over_snapshots_when_there_is_no_model_split() {
        let stream = br#"{"type":"assistant","message":{"id":"msg_1","usage":{"input_tokens":100,"output_tokens":1}}}
{"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.0123,"usage":{"input_tokens":999,"output_tokens":77}}
"#;
        let u = report(stream).unwrap().usage;
        assert_eq!((u.input_tokens, u.output_tokens), (999, 77));
        assert_eq!(u.cost_usd, Some(0.0123));
        assert!(u.models.is_empty());
    }

    #[test]
    fn an_error_result_is_a_failure_named_by_its_subtype() {
        let stream = br#"{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":3,"total_cost_usd":0.5,"usage":{"input_tokens":5,"output_tokens":6}}"#;
        let r = report(stream).unwrap();
        assert_eq!(
            r.failure.as_deref(),
            Some("claude-code reported error_max_turns")
        );
        assert_eq!(r.usage.output_tokens, 6);
        let stream = br#"{"type":"result","subtype":"success","is_error":true,"result":"API Error: model not found\nmore","usage":{}}"#;
        assert_eq!(
            report(stream).unwrap().failure.as_deref(),
            Some("claude-code reported success: API Error: model not found")
        );
    }
}

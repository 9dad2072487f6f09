//! Claude Code in headless mode (`claude -p … --output-format stream-json --verbose`).
//!
//! Streaming repeats an assistant message's usage on every line that carries part of it,
//! so usage is kept once per message id (the last report wins: it is the most complete).
//! The cost comes from the final `result` event.

use std::collections::HashMap;

use serde::Deserialize;

use crate::eval::agent::{Invocation, Usage};

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
    message: Option<Message>,
    total_cost_usd: Option<f64>,
}

#[derive(Deserialize)]
struct Message {
    id: Option<String>,
    usage: Option<MessageUsage>,
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

/// Sums usage over distinct assistant messages; lines that are not JSON are skipped.
pub fn usage(stdout: &[u8]) -> Usage {
    let mut per_message: HashMap<String, MessageUsage> = HashMap::new();
    let mut anonymous = Vec::new();
    let mut cost = None;
    for line in stdout.split(|&b| b == b'\n') {
        let Ok(event) = serde_json::from_slice::<Event>(line) else {
            continue;
        };
        match (event.kind.as_str(), event.message) {
            ("assistant", Some(Message { id, usage: Some(u) })) => match id {
                Some(id) => {
                    per_message.insert(id, u);
                }
                None => anonymous.push(u),
            },
            ("result", _) => cost = event.total_cost_usd.or(cost),
            _ => {}
        }
    }
    let mut total = Usage {
        cost_usd: cost,
        ..Usage::default()
    };
    for u in per_message.values().chain(&anonymous) {
        total.input_tokens += u.input_tokens;
        total.output_tokens += u.output_tokens;
        total.cache_read_tokens += u.cache_read_input_tokens;
        total.cache_write_tokens += u.cache_creation_input_tokens;
    }
    total
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
    fn usage_is_counted_once_per_message() {
        let stream = br#"{"type":"system","subtype":"init","session_id":"s"}
{"type":"assistant","message":{"id":"msg_1","usage":{"input_tokens":100,"output_tokens":1,"cache_read_input_tokens":50,"cache_creation_input_tokens":7}}}
{"type":"assistant","message":{"id":"msg_1","usage":{"input_tokens":100,"output_tokens":20,"cache_read_input_tokens":50,"cache_creation_input_tokens":7}}}
{"type":"user","message":{"content":[]}}
{"type":"assistant","message":{"id":"msg_2","usage":{"input_tokens":30,"output_tokens":5}}}
not json at all
{"type":"result","subtype":"success","total_cost_usd":0.0123,"usage":{"input_tokens":999}}
"#;
        let u = usage(stream);
        assert_eq!(u.input_tokens, 130);
        assert_eq!(u.output_tokens, 25);
        assert_eq!(u.cache_read_tokens, 50);
        assert_eq!(u.cache_write_tokens, 7);
        assert_eq!(u.cost_usd, Some(0.0123));
    }
}

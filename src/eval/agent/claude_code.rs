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

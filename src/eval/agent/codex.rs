//! Codex CLI (`codex exec --json`): usage comes from its `turn.completed` events, one per
//! turn, which are summed.

use serde::Deserialize;

use crate::eval::agent::{Invocation, Usage};

/// The non-interactive command line; codex's own sandbox is off because skillgate's is on.
pub fn argv(inv: &Invocation) -> Vec<String> {
    let mut argv = vec![
        inv.program.clone(),
        "exec".to_owned(),
        "--json".to_owned(),
        "--skip-git-repo-check".to_owned(),
        "--dangerously-bypass-approvals-and-sandbox".to_owned(),
    ];
    if let Some(model) = &inv.model {
        argv.extend(["--model".to_owned(), model.clone()]);
    }
    argv.push(inv.instruction.clone());
    argv
}

#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    usage: Option<TurnUsage>,
}

#[derive(Deserialize)]
struct TurnUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    cached_input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
}

/// Whether any command the agent ran names a file of the skill folder `dir` (relative to
/// the workspace): codex reads files through shell commands.
pub fn skill_read(stdout: &[u8], dir: &str) -> bool {
    #[derive(Deserialize)]
    struct Item {
        #[serde(rename = "type")]
        kind: String,
        #[serde(default)]
        command: String,
    }
    #[derive(Deserialize)]
    struct ItemEvent {
        item: Option<Item>,
    }
    stdout
        .split(|&b| b == b'\n')
        .filter_map(|line| serde_json::from_slice::<ItemEvent>(line).ok())
        .filter_map(|event| event.item)
        .any(|item| item.kind == "command_execution" && super::names_skill_dir(&item.command, dir))
}

/// Sums the usage of every completed turn. Codex counts cached tokens inside
/// `input_tokens`; they are moved to `cache_read_tokens` so totals are not counted twice.
pub fn usage(stdout: &[u8]) -> Usage {
    let mut total = Usage::default();
    for line in stdout.split(|&b| b == b'\n') {
        let Ok(event) = serde_json::from_slice::<Event>(line) else {
            continue;
        };
        if let ("turn.completed", Some(u)) = (event.kind.as_str(), event.usage) {
            total.input_tokens += u.input_tokens.saturating_sub(u.cached_input_tokens);
            total.cache_read_tokens += u.cached_input_tokens;
            total.output_tokens += u.output_tokens;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_on_the_skill_folder_counts_as_reading_it() {
        let dir = ".agents/skills/pdf";
        let read = br#"{"type":"item.started","item":{"id":"i","type":"command_execution","command":"bash -lc 'sed -n 1,80p .agents/skills/pdf/SKILL.md'"}}"#;
        let other = br#"{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"cat .agents/skills/pdf/SKILL.md"}}
{"type":"item.completed","item":{"id":"j","type":"command_execution","command":"cat src/pdf.py"}}"#;
        assert!(skill_read(read, dir));
        assert!(!skill_read(other, dir));
    }

    #[test]
    fn turns_are_summed() {
        let stream = br#"{"type":"thread.started","thread_id":"t"}
{"type":"item.completed","item":{"type":"agent_message","text":"done"}}
{"type":"turn.completed","usage":{"input_tokens":1000,"cached_input_tokens":400,"output_tokens":50}}
{"type":"turn.completed","usage":{"input_tokens":200,"cached_input_tokens":0,"output_tokens":10}}
"#;
        let u = usage(stream);
        assert_eq!(
            (u.input_tokens, u.cache_read_tokens, u.output_tokens),
            (800, 400, 60)
        );
        assert_eq!(u.cost_usd, None);
    }
}

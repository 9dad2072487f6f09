//! Codex CLI (`codex exec --json`): usage comes from its `turn.completed` events, one per
//! turn, which are summed. `turn.failed`, a stream `error`, and a turn that never completes
//! (the stream stopped) are failures of the run, with Codex's own message as the reason.
//!
//! Codex counts cached input (reads and, where reported, writes) inside `input_tokens`, and
//! reasoning inside `output_tokens`; the cached parts are moved out of `input_tokens` so no
//! token is counted twice, and reasoning is recorded as the part of the output it is.
//!
//! Codex releases before `thread.started`/`turn.completed` wrote `{"id":…,"msg":{…}}` lines,
//! with usage in `token_count` messages; those are read too (per-response usage is summed, a
//! cumulative `total_token_usage` is taken as it last stood).

use serde::Deserialize;

use crate::eval::agent::{AgentReport, Invocation, Usage};

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

/// One line of the current format.
#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    usage: Option<TurnUsage>,
    error: Option<Message>,
    message: Option<String>,
}

#[derive(Deserialize)]
struct Message {
    message: Option<String>,
}

/// Usage of one turn (or, in the older format, one response or the running total).
#[derive(Deserialize, Default, Clone, Copy)]
struct TurnUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    cached_input_tokens: u64,
    #[serde(default)]
    cache_write_input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    reasoning_output_tokens: u64,
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

impl TurnUsage {
    fn add_to(&self, total: &mut Usage) {
        let cached = self.cached_input_tokens + self.cache_write_input_tokens;
        total.input_tokens += self.input_tokens.saturating_sub(cached);
        total.cache_read_tokens += self.cached_input_tokens;
        total.cache_write_tokens += self.cache_write_input_tokens;
        total.output_tokens += self.output_tokens;
        total.reasoning_output_tokens += self.reasoning_output_tokens;
    }
}

/// One line of the older format: `{"id":"0","msg":{"type":"token_count",…}}`.
#[derive(Deserialize)]
struct LegacyLine {
    #[allow(dead_code)]
    id: serde_json::Value,
    msg: LegacyMsg,
}

#[derive(Deserialize)]
struct LegacyMsg {
    #[serde(rename = "type")]
    kind: String,
    message: Option<String>,
    info: Option<LegacyInfo>,
    #[serde(flatten)]
    flat: TurnUsage,
}

#[derive(Deserialize)]
struct LegacyInfo {
    total_token_usage: Option<TurnUsage>,
    last_token_usage: Option<TurnUsage>,
}

/// What one stream said, whichever format it used.
#[derive(Default)]
struct Stream {
    usage: Usage,
    /// Turns started and not (yet) completed or failed.
    open_turns: u32,
    completed: u32,
    /// The first `turn.failed`: the reason of the run's failure.
    turn_failed: Option<String>,
    /// The last `error` event; a turn that completes after it has recovered.
    error: Option<String>,
    legacy: Option<Legacy>,
}

#[derive(Default)]
struct Legacy {
    summed: Usage,
    cumulative: Option<TurnUsage>,
    token_counts: u32,
    complete: bool,
    error: Option<String>,
}

/// Reads the run's totals and failure. A stream in neither format is an error: reporting
/// zero tokens for it would be a silent lie.
pub fn report(stdout: &[u8]) -> Result<AgentReport, String> {
    let mut stream = Stream::default();
    for line in stdout.split(|&b| b == b'\n') {
        if let Ok(event) = serde_json::from_slice::<Event>(line) {
            stream.event(event);
        } else if let Ok(line) = serde_json::from_slice::<LegacyLine>(line) {
            stream.legacy_event(line.msg);
        }
    }
    stream.finish()
}

impl Stream {
    fn event(&mut self, event: Event) {
        match event.kind.as_str() {
            "turn.started" => self.open_turns += 1,
            "turn.completed" => {
                self.open_turns = self.open_turns.saturating_sub(1);
                self.completed += 1;
                if let Some(u) = event.usage {
                    u.add_to(&mut self.usage);
                }
            }
            "turn.failed" => {
                self.open_turns = self.open_turns.saturating_sub(1);
                let message = event.error.and_then(|e| e.message);
                self.turn_failed.get_or_insert(format!(
                    "codex reported turn.failed: {}",
                    message.as_deref().unwrap_or("no message")
                ));
            }
            "error" => {
                let message = event
                    .message
                    .or_else(|| event.error.and_then(|e| e.message));
                self.error = Some(format!(
                    "codex reported an error: {}",
                    message.as_deref().unwrap_or("no message")
                ));
            }
            _ => {}
        }
    }

    fn legacy_event(&mut self, msg: LegacyMsg) {
        let legacy = self.legacy.get_or_insert_with(Legacy::default);
        match msg.kind.as_str() {
            "token_count" => {
                legacy.token_counts += 1;
                match msg.info {
                    Some(LegacyInfo {
                        total_token_usage: Some(total),
                        ..
                    }) => legacy.cumulative = Some(total),
                    Some(LegacyInfo {
                        last_token_usage: Some(last),
                        ..
                    }) => last.add_to(&mut legacy.summed),
                    Some(_) => {}
                    None => msg.flat.add_to(&mut legacy.summed),
                }
            }
            "task_complete" => legacy.complete = true,
            "error" => {
                let message = msg.message.unwrap_or_else(|| "no message".to_owned());
                legacy.error = Some(format!("codex reported error: {message}"));
            }
            _ => {}
        }
    }

    fn finish(self) -> Result<AgentReport, String> {
        let current = self.completed > 0 || self.open_turns > 0 || self.turn_failed.is_some();
        if let (Some(legacy), false) = (self.legacy, current) {
            return legacy.finish();
        }
        let stopped = || {
            format!(
                "codex output stopped before turn.completed ({} turn(s) completed)",
                self.completed
            )
        };
        let failure = match (self.turn_failed.clone(), self.open_turns, self.completed) {
            (Some(failed), _, _) => Some(failed),
            (None, 1.., _) => Some(self.error.clone().unwrap_or_else(stopped)),
            (None, 0, 0) => match self.error.clone() {
                Some(error) => Some(error),
                None => {
                    return Err(
                        "no turn.completed event in the output: is this `codex exec --json`?"
                            .to_owned(),
                    );
                }
            },
            // Every turn completed: errors before were recovered from (reconnects).
            (None, 0, _) => None,
        };
        Ok(AgentReport {
            usage: self.usage,
            failure,
        })
    }
}

impl Legacy {
    fn finish(self) -> Result<AgentReport, String> {
        let mut usage = self.summed;
        if let Some(total) = self.cumulative {
            usage = Usage::default();
            total.add_to(&mut usage);
        }
        let failure = match (self.complete, self.error) {
            (true, _) => None,
            (false, Some(error)) => Some(error),
            (false, None) => {
                Some("codex output (older event format) stopped before task_complete".to_owned())
            }
        };
        if self.token_counts == 0 && failure.is_none() {
            return Err(
                "codex output in the older `{\"id\",\"msg\"}` format has no token_count message: \
                 its usage cannot be read (upgrade codex to a release with `turn.completed` events)"
                    .to_owned(),
            );
        }
        Ok(AgentReport { usage, failure })
    }
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
    fn turns_are_summed_with_cached_parts_moved_out_of_input() {
        let stream = br#"{"type":"thread.started","thread_id":"t"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"done"}}
{"type":"turn.completed","usage":{"input_tokens":1000,"cached_input_tokens":400,"output_tokens":50}}
{"type":"turn.started"}
{"type":"turn.completed","usage":{"input_tokens":200,"cached_input_tokens":0,"cache_write_input_tokens":30,"output_tokens":10,"reasoning_output_tokens":4}}
"#;
        let r = report(stream).unwrap();
        let u = r.usage;
        assert_eq!(
            (u.input_tokens, u.cache_read_tokens, u.cache_write_tokens),
            (770, 400, 30)
        );
        assert_eq!((u.output_tokens, u.reasoning_output_tokens), (60, 4));
        assert_eq!((u.cost_usd, r.failure), (None, None));
    }

    #[test]
    fn a_failed_or_unfinished_turn_is_a_failure() {
        let failed = br#"{"type":"turn.started"}
{"type":"error","message":"stream disconnected before completion"}
{"type":"turn.failed","error":{"message":"stream disconnected before completion"}}
"#;
        assert_eq!(
            report(failed).unwrap().failure.as_deref(),
            Some("codex reported turn.failed: stream disconnected before completion")
        );
        let cut = br#"{"type":"turn.started"}
{"type":"turn.completed","usage":{"input_tokens":10,"output_tokens":1}}
{"type":"turn.started"}
{"type":"item.started","item":{"id":"item_3","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}
"#;
        let r = report(cut).unwrap();
        assert_eq!(
            r.failure.as_deref(),
            Some("codex output stopped before turn.completed (1 turn(s) completed)")
        );
        assert_eq!(r.usage.input_tokens, 10);
        assert!(report(b"").unwrap_err().contains("no turn.completed"));
    }

    #[test]
    fn the_older_format_is_read_or_refused() {
        let flat = br#"{"id":"0","msg":{"type":"task_started"}}
{"id":"0","msg":{"type":"token_count","input_tokens":1674,"cached_input_tokens":1627,"output_tokens":384,"reasoning_output_tokens":384,"total_tokens":2058}}
{"id":"0","msg":{"type":"token_count","input_tokens":100,"cached_input_tokens":0,"output_tokens":16,"total_tokens":116}}
{"id":"0","msg":{"type":"task_complete","last_agent_message":"Done!"}}
"#;
        let r = report(flat).unwrap();
        assert_eq!(
            (
                r.usage.input_tokens,
                r.usage.cache_read_tokens,
                r.usage.output_tokens
            ),
            (147, 1627, 400)
        );
        assert_eq!(r.failure, None);
        let cumulative = br#"{"id":"1","msg":{"type":"token_count","info":{"total_token_usage":{"input_tokens":500,"cached_input_tokens":100,"output_tokens":20,"reasoning_output_tokens":8,"total_tokens":520},"last_token_usage":{"input_tokens":500,"cached_input_tokens":100,"output_tokens":20}}}}
{"id":"1","msg":{"type":"token_count","info":{"total_token_usage":{"input_tokens":900,"cached_input_tokens":300,"output_tokens":45,"reasoning_output_tokens":8,"total_tokens":945},"last_token_usage":{"input_tokens":400,"cached_input_tokens":200,"output_tokens":25}}}}
{"id":"1","msg":{"type":"task_complete"}}
"#;
        let u = report(cumulative).unwrap().usage;
        assert_eq!(
            (u.input_tokens, u.cache_read_tokens, u.output_tokens),
            (600, 300, 45)
        );
        let no_usage = br#"{"id":"0","msg":{"type":"agent_message","message":"hi"}}
{"id":"0","msg":{"type":"task_complete"}}
"#;
        assert!(report(no_usage).unwrap_err().contains("no token_count"));
        let errored =
            br#"{"id":"0","msg":{"type":"error","message":"unexpected status 401 Unauthorized"}}"#;
        assert_eq!(
            report(errored).unwrap().failure.as_deref(),
            Some("codex reported error: unexpected status 401 Unauthorized")
        );
    }
}

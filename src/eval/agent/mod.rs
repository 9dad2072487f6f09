//! Agents: how each one is started inside a sandbox, where it looks for skills, and how its
//! token usage is read back.

pub mod claude_code;
pub mod codex;
pub mod command;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Environment variables that never enter a sandbox, whatever the configuration says.
const NEVER_PASSED: &[&str] = &[
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GH_ENTERPRISE_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
];

/// The agent kinds skillgate knows how to drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentKind {
    /// Claude Code, headless, stream-json output.
    ClaudeCode,
    /// `codex exec --json`.
    Codex,
    /// Any program speaking the `SKILLGATE_*` protocol.
    Command,
}

impl AgentKind {
    /// The name used on the command line and in the journal.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
            Self::Command => "command",
        }
    }

    /// Where, relative to the workspace root, the agent looks for a skill named `name`.
    pub fn skill_dir(self, name: &str) -> String {
        match self {
            Self::ClaudeCode => format!(".claude/skills/{name}"),
            Self::Codex => format!(".agents/skills/{name}"),
            // Command agents are told the path through SKILLGATE_SKILL_DIR.
            Self::Command => format!(".skills/{name}"),
        }
    }

    /// The program started when no `--agent-cmd` is given.
    pub fn default_program(self) -> Option<&'static str> {
        match self {
            Self::ClaudeCode => Some("claude"),
            Self::Codex => Some("codex"),
            Self::Command => None,
        }
    }
}

impl fmt::Display for AgentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for AgentKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "claude-code" => Ok(Self::ClaudeCode),
            "codex" => Ok(Self::Codex),
            "command" => Ok(Self::Command),
            other => Err(format!(
                "unknown agent `{other}` (expected claude-code, codex or command)"
            )),
        }
    }
}

/// Token usage and cost of one agent run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// Uncached input tokens.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens (reasoning included).
    #[serde(default)]
    pub output_tokens: u64,
    /// Prompt-cache reads.
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// Prompt-cache writes.
    #[serde(default)]
    pub cache_write_tokens: u64,
    /// The part of `output_tokens` spent on reasoning, when the agent reports it.
    #[serde(default)]
    pub reasoning_output_tokens: u64,
    /// Cost in US dollars, when the agent reports it.
    #[serde(default)]
    pub cost_usd: Option<f64>,
    /// The same usage split by model, when the agent reports the split.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub models: BTreeMap<String, ModelUsage>,
    /// Whether the agent opened the skill, when it says so (the `command` usage file's
    /// `"skill_read"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill_read: Option<bool>,
}

/// One model's share of a run's usage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelUsage {
    /// Uncached input tokens.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Prompt-cache reads.
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// Prompt-cache writes.
    #[serde(default)]
    pub cache_write_tokens: u64,
    /// Cost in US dollars, when reported.
    #[serde(default)]
    pub cost_usd: Option<f64>,
}

/// What an agent's own output says about its run: the usage, and whether the agent itself
/// reported that the run failed (then the attempt is an error with `failure` as its reason,
/// whatever the exit code).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentReport {
    /// Tokens and cost.
    pub usage: Usage,
    /// The agent's own account of why the run failed.
    pub failure: Option<String>,
}

impl AgentReport {
    /// A report of a run that ended normally.
    pub fn ok(usage: Usage) -> Self {
        Self {
            usage,
            failure: None,
        }
    }
}

/// Paths and values an agent run receives, as seen inside the sandbox.
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    /// The program to start (a sandbox path or a name on `PATH`).
    pub program: String,
    /// The instruction text (also in `instruction_file`).
    pub instruction: String,
    /// File holding the instruction.
    pub instruction_file: String,
    /// The workspace root.
    pub workdir: String,
    /// The skill folder, absent in C0 and under `inject`.
    pub skill_dir: Option<String>,
    /// Attempt number, from 1.
    pub attempt: u32,
    /// The previous attempt's verifier output, from attempt 2.
    pub feedback_file: Option<String>,
    /// Where a `command` agent writes its usage.
    pub usage_file: String,
    /// The model, if one is chosen.
    pub model: Option<String>,
}

impl AgentKind {
    /// The argument vector that starts the agent.
    pub fn argv(self, inv: &Invocation) -> Vec<String> {
        match self {
            Self::ClaudeCode => claude_code::argv(inv),
            Self::Codex => codex::argv(inv),
            Self::Command => command::argv(inv),
        }
    }

    /// Reads the run's usage, and any failure the agent reported, from its standard output
    /// or its usage file. An error means the output cannot be read at all.
    pub fn report(self, stdout: &[u8], usage_file: Option<&[u8]>) -> Result<AgentReport, String> {
        match self {
            Self::ClaudeCode => claude_code::report(stdout),
            Self::Codex => codex::report(stdout),
            Self::Command => command::usage(usage_file).map(AgentReport::ok),
        }
    }
}

impl AgentKind {
    /// Whether a run that had the skill named `name` in its skills folder opened it:
    /// claude-code from its tool calls, codex from its command events, a `command` agent from
    /// what it wrote in its usage file (`None` when it wrote nothing).
    pub fn skill_read(self, stdout: &[u8], name: &str, usage: &Usage) -> Option<bool> {
        let dir = self.skill_dir(name);
        match self {
            Self::ClaudeCode => Some(claude_code::skill_read(stdout, &dir, name)),
            Self::Codex => Some(codex::skill_read(stdout, &dir)),
            Self::Command => usage.skill_read,
        }
    }
}

/// Whether `text` names the skill folder `dir` (relative to the workspace) or a file in it,
/// as a relative or an absolute path.
fn names_skill_dir(text: &str, dir: &str) -> bool {
    text.match_indices(dir).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + dir.len()..].chars().next();
        let starts = before.is_none_or(|c| matches!(c, '/' | ' ' | '"' | '\'' | '=' | '\t'));
        starts && after.is_none_or(|c| !(c.is_alphanumeric() || c == '-' || c == '_'))
    })
}

/// The protocol variables every agent receives (command agents rely on them).
pub fn protocol_env(inv: &Invocation) -> Vec<(String, String)> {
    let mut env = vec![
        (
            "SKILLGATE_INSTRUCTION_FILE".to_owned(),
            inv.instruction_file.clone(),
        ),
        ("SKILLGATE_WORKDIR".to_owned(), inv.workdir.clone()),
        ("SKILLGATE_ATTEMPT".to_owned(), inv.attempt.to_string()),
        ("SKILLGATE_USAGE_FILE".to_owned(), inv.usage_file.clone()),
    ];
    if let Some(dir) = &inv.skill_dir {
        env.push(("SKILLGATE_SKILL_DIR".to_owned(), dir.clone()));
    }
    if let Some(file) = &inv.feedback_file {
        env.push(("SKILLGATE_FEEDBACK_FILE".to_owned(), file.clone()));
    }
    if let Some(model) = &inv.model {
        env.push(("SKILLGATE_MODEL".to_owned(), model.clone()));
    }
    env
}

/// The configured variables (model keys) taken from `lookup`, minus any GitHub token.
pub fn passed_env(
    names: &[String],
    lookup: impl Fn(&str) -> Option<String>,
) -> Vec<(String, String)> {
    names
        .iter()
        .filter(|n| !NEVER_PASSED.contains(&n.as_str()) && !n.starts_with("GITHUB_"))
        .filter_map(|n| lookup(n).map(|v| (n.clone(), v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_tokens_never_pass() {
        let names = [
            "ANTHROPIC_API_KEY",
            "GITHUB_TOKEN",
            "GH_TOKEN",
            "GITHUB_PAT",
            "MISSING",
        ]
        .map(String::from);
        let env = passed_env(&names, |n| (n != "MISSING").then(|| format!("v-{n}")));
        assert_eq!(
            env,
            vec![(
                "ANTHROPIC_API_KEY".to_owned(),
                "v-ANTHROPIC_API_KEY".to_owned()
            )]
        );
    }

    #[test]
    fn a_skill_folder_is_named_only_as_a_whole_path_component() {
        let dir = ".claude/skills/pdf";
        assert!(names_skill_dir("cat .claude/skills/pdf/SKILL.md", dir));
        assert!(names_skill_dir("/work/.claude/skills/pdf/SKILL.md", dir));
        assert!(names_skill_dir("ls .claude/skills/pdf", dir));
        assert!(!names_skill_dir(
            "cat .claude/skills/pdf-tools/SKILL.md",
            dir
        ));
        assert!(!names_skill_dir("cat x.claude/skills/pdf/SKILL.md", dir));
        let usage = Usage {
            skill_read: Some(false),
            ..Usage::default()
        };
        assert_eq!(
            AgentKind::Command.skill_read(b"", "pdf", &usage),
            Some(false)
        );
        assert_eq!(
            AgentKind::Command.skill_read(b"", "pdf", &Usage::default()),
            None
        );
    }

    #[test]
    fn skill_dirs_follow_each_agent() {
        assert_eq!(AgentKind::ClaudeCode.skill_dir("x"), ".claude/skills/x");
        assert_eq!(AgentKind::Codex.skill_dir("x"), ".agents/skills/x");
        assert_eq!("codex".parse::<AgentKind>(), Ok(AgentKind::Codex));
        assert!("gpt".parse::<AgentKind>().is_err());
    }
}

//! Targets: the clients a skill is written for, each with the frontmatter keys it documents,
//! its limits, the placeholders it expands in paths and where it discovers skills. The
//! sources and the date each entry was read are in `docs/targets.md`.

use std::fmt;
use std::str::FromStr;

use serde::Deserialize;

/// A client a skill can be written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// The Agent Skills specification alone (agentskills.io).
    Generic,
    /// Anthropic's Claude Code.
    ClaudeCode,
    /// OpenAI's Codex (CLI, IDE extension, app).
    Codex,
    /// Cursor's agent.
    Cursor,
    /// GitHub Copilot (cloud agent, CLI, agent mode in VS Code).
    Copilot,
}

/// What one client documents about skills.
#[derive(Debug, PartialEq, Eq)]
pub struct Client {
    /// The target.
    pub target: Target,
    /// Its kebab-case name, as written in `--target` and skillgate.toml.
    pub id: &'static str,
    /// Its product name, for messages.
    pub name: &'static str,
    /// Frontmatter keys it documents beyond the specification's.
    pub keys: &'static [&'static str],
    /// The longest `description` it accepts, in characters.
    pub description_chars: usize,
    /// Placeholders it expands to the skill's folder (or its plugin's root) in paths.
    pub placeholders: &'static [&'static str],
    /// Folders it discovers skills in (`~` is the user's home).
    pub discovery: &'static [&'static str],
}

/// The keys the Agent Skills specification defines.
pub const SPEC_KEYS: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// Every client, in the order of [`Target`].
pub static CLIENTS: &[Client] = &[
    Client {
        target: Target::Generic,
        id: "generic",
        name: "the Agent Skills specification",
        keys: &[],
        description_chars: 1024,
        placeholders: &[],
        discovery: &[],
    },
    Client {
        target: Target::ClaudeCode,
        id: "claude-code",
        name: "Claude Code",
        keys: &[
            "when_to_use",
            "argument-hint",
            "arguments",
            "disable-model-invocation",
            "user-invocable",
            "model",
            "effort",
            "context",
            "agent",
            "hooks",
            "paths",
            "shell",
        ],
        description_chars: 1024,
        placeholders: &["${CLAUDE_SKILL_DIR}", "${CLAUDE_PLUGIN_ROOT}"],
        discovery: &[".claude/skills/", "~/.claude/skills/", "<plugin>/skills/"],
    },
    Client {
        target: Target::Codex,
        id: "codex",
        name: "Codex",
        keys: &[],
        description_chars: 1024,
        placeholders: &[],
        discovery: &[".agents/skills/", "~/.agents/skills/"],
    },
    Client {
        target: Target::Cursor,
        id: "cursor",
        name: "Cursor",
        keys: &["disable-model-invocation"],
        description_chars: 1024,
        placeholders: &[],
        discovery: &[
            ".cursor/skills/",
            ".claude/skills/",
            ".codex/skills/",
            "~/.cursor/skills/",
            "~/.claude/skills/",
            "~/.codex/skills/",
        ],
    },
    Client {
        target: Target::Copilot,
        id: "copilot",
        name: "GitHub Copilot",
        keys: &[],
        description_chars: 1024,
        placeholders: &[],
        discovery: &[
            ".github/skills/",
            ".claude/skills/",
            ".agents/skills/",
            "~/.copilot/skills/",
            "~/.agents/skills/",
        ],
    },
];

impl Target {
    /// Every target: the default when none is chosen.
    pub const ALL: &[Target] = &[
        Target::Generic,
        Target::ClaudeCode,
        Target::Codex,
        Target::Cursor,
        Target::Copilot,
    ];

    /// What this client documents.
    pub fn client(self) -> &'static Client {
        // CLIENTS lists every target once, in enum order.
        &CLIENTS[self as usize]
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.client().id)
    }
}

impl FromStr for Target {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CLIENTS
            .iter()
            .find(|c| c.id.eq_ignore_ascii_case(s.trim()))
            .map(|c| c.target)
            .ok_or_else(|| {
                let ids: Vec<_> = CLIENTS.iter().map(|c| c.id).collect();
                format!("unknown target {s:?}; expected one of {}", ids.join(", "))
            })
    }
}

/// How a frontmatter key stands with the chosen targets.
#[derive(Debug, PartialEq, Eq)]
pub enum KeyStanding {
    /// The specification or a chosen client documents it.
    Known,
    /// Only clients that were not chosen document it.
    OtherClients(Vec<&'static Client>),
    /// No client documents it; the nearest key any client knows, if one is close.
    Unknown(Option<&'static str>),
}

/// Where `key` stands for a skill written for `targets`.
pub fn standing(key: &str, targets: &[Target]) -> KeyStanding {
    if SPEC_KEYS.contains(&key) || targets.iter().any(|t| t.client().keys.contains(&key)) {
        return KeyStanding::Known;
    }
    let others: Vec<&'static Client> = CLIENTS.iter().filter(|c| c.keys.contains(&key)).collect();
    if !others.is_empty() {
        return KeyStanding::OtherClients(others);
    }
    let nearest = SPEC_KEYS
        .iter()
        .chain(CLIENTS.iter().flat_map(|c| c.keys))
        .map(|k| (distance(&key.to_ascii_lowercase(), k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k);
    KeyStanding::Unknown(nearest)
}

/// Levenshtein distance over bytes (keys are ASCII).
fn distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

/// Parse a comma-separated list such as `claude-code,codex`.
pub fn parse_list(s: &str) -> Result<Vec<Target>, String> {
    let mut out: Vec<Target> = s
        .split(',')
        .filter(|p| !p.trim().is_empty())
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    out.sort();
    out.dedup();
    Ok(out)
}

/// The smallest `description` limit among `targets`.
pub fn description_chars(targets: &[Target]) -> usize {
    targets
        .iter()
        .map(|t| t.client().description_chars)
        .min()
        .unwrap_or(1024)
}

#[cfg(test)]
mod tests {
    use super::{CLIENTS, KeyStanding, Target, parse_list, standing};

    #[test]
    fn clients_are_listed_in_enum_order() {
        for (i, c) in CLIENTS.iter().enumerate() {
            assert_eq!(c.target as usize, i, "{}", c.id);
            assert_eq!(c.target.client().id, c.id);
        }
    }

    #[test]
    fn keys_stand_by_the_chosen_targets() {
        assert_eq!(standing("argument-hint", Target::ALL), KeyStanding::Known);
        assert_eq!(standing("license", &[Target::Codex]), KeyStanding::Known);
        match standing("argument-hint", &[Target::Codex]) {
            KeyStanding::OtherClients(c) => assert_eq!(c[0].id, "claude-code"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            standing("descripton", Target::ALL),
            KeyStanding::Unknown(Some("description"))
        );
        assert_eq!(standing("version", Target::ALL), KeyStanding::Unknown(None));
    }

    #[test]
    fn lists_parse_and_reject_unknown_names() {
        assert_eq!(
            parse_list("codex, claude-code,codex").expect("valid"),
            vec![Target::ClaudeCode, Target::Codex]
        );
        assert!(parse_list("claude").is_err());
    }
}

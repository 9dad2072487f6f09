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
    /// The longest `description` it reads in full, in characters.
    pub description_chars: usize,
    /// The most lines it wants in SKILL.md.
    pub body_lines: usize,
    /// The most tokens of a SKILL.md body it keeps.
    pub body_tokens: usize,
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

/// Every placeholder for the skill folder (or a plugin's root) that some client expands or
/// that published packs write; the resolver expands those of the chosen targets.
pub const KNOWN_PLACEHOLDERS: &[&str] = &[
    "${CLAUDE_SKILL_DIR}",
    "$CLAUDE_SKILL_DIR",
    "${CLAUDE_PLUGIN_ROOT}",
    "$CLAUDE_PLUGIN_ROOT",
    "{baseDir}",
    "${baseDir}",
];

/// Every client, in the order of [`Target`].
pub static CLIENTS: &[Client] = &[
    Client {
        target: Target::Generic,
        id: "generic",
        name: "the Agent Skills specification",
        keys: &[],
        description_chars: 1024,
        body_lines: 500,
        body_tokens: 5000,
        // A skill written for no client in particular may be installed in any of them.
        placeholders: KNOWN_PLACEHOLDERS,
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
        // `description` and `when_to_use` together are cut at 1,536 in the skill listing.
        description_chars: 1536,
        body_lines: 500,
        // After compaction a skill is re-attached up to 5,000 tokens.
        body_tokens: 5000,
        placeholders: &["${CLAUDE_SKILL_DIR}", "${CLAUDE_PLUGIN_ROOT}"],
        discovery: &[".claude/skills/", "~/.claude/skills/", "<plugin>/skills/"],
    },
    Client {
        target: Target::Codex,
        id: "codex",
        name: "Codex",
        keys: &[],
        description_chars: 1024,
        body_lines: 500,
        body_tokens: 5000,
        placeholders: &[],
        discovery: &[".agents/skills/", "~/.agents/skills/"],
    },
    Client {
        target: Target::Cursor,
        id: "cursor",
        name: "Cursor",
        keys: &["disable-model-invocation"],
        description_chars: 1024,
        body_lines: 500,
        body_tokens: 5000,
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
        body_lines: 500,
        body_tokens: 5000,
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

/// Whether one of `targets` documents `key` among its own keys.
pub fn documents(targets: &[Target], key: &str) -> bool {
    targets.iter().any(|t| t.client().keys.contains(&key))
}

/// Where `key` stands for a skill written for `targets`.
pub fn standing(key: &str, targets: &[Target]) -> KeyStanding {
    if SPEC_KEYS.contains(&key) || documents(targets, key) {
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

/// A limit in force and the clients that set it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Strictest {
    /// The smallest value among the targets.
    pub value: usize,
    /// Every target whose value it is, in the order of [`Target`].
    pub clients: Vec<&'static Client>,
}

/// The strictest of `targets` by `limit` (every client when `targets` is empty).
pub fn strictest(targets: &[Target], limit: fn(&Client) -> usize) -> Strictest {
    let targets = if targets.is_empty() {
        Target::ALL
    } else {
        targets
    };
    let value = targets
        .iter()
        .map(|t| limit(t.client()))
        .min()
        .unwrap_or_else(|| limit(Target::Generic.client()));
    let mut clients: Vec<&'static Client> = targets
        .iter()
        .map(|t| t.client())
        .filter(|c| limit(c) == value)
        .collect();
    clients.sort_by_key(|c| c.target);
    clients.dedup_by_key(|c| c.target);
    Strictest { value, clients }
}

/// The placeholders `targets` expand, in [`KNOWN_PLACEHOLDERS`] order.
pub fn placeholders(targets: &[Target]) -> Vec<&'static str> {
    KNOWN_PLACEHOLDERS
        .iter()
        .copied()
        .filter(|p| targets.iter().any(|t| t.client().placeholders.contains(p)))
        .collect()
}

/// The clients that expand `placeholder`, when it is a known one.
pub fn expanded_by(placeholder: &str) -> Vec<&'static Client> {
    CLIENTS
        .iter()
        .filter(|c| c.target != Target::Generic && c.placeholders.contains(&placeholder))
        .collect()
}

/// Whether `rel` (a skill folder's path relative to a repository's root, `/`-separated)
/// lies where one of `targets` discovers skills: a project folder such as
/// `.claude/skills/<name>`, or a plugin's `skills/<name>`. The clients that would find it.
pub fn discovering(rel: &str, targets: &[Target]) -> Vec<&'static Client> {
    let parent = rel
        .trim_end_matches('/')
        .rsplit_once('/')
        .map_or("", |(p, _)| p);
    let parent = format!("{parent}/");
    targets
        .iter()
        .map(|t| t.client())
        .filter(|c| {
            c.discovery.iter().any(|d| {
                if d.starts_with('~') {
                    false
                } else if let Some(rest) = d.strip_prefix("<plugin>/") {
                    // A plugin keeps its skills in `skills/` at any depth of the repository.
                    parent == rest || parent.ends_with(&format!("/{rest}"))
                } else {
                    // Clients also read nested project folders (`apps/web/.claude/skills/`).
                    parent == *d || parent.ends_with(&format!("/{d}"))
                }
            })
        })
        .collect()
}

/// Client names as prose: "A", "A and B", "A, B and C".
pub fn names(clients: &[&Client]) -> String {
    let names: Vec<&str> = clients.iter().map(|c| c.name).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
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

//! SG609: `allowed-tools` that grant more than a skill can need — an unrestricted shell,
//! an interpreter that runs anything, or a wildcard.

use crate::finding::Severity;
use crate::lint::Rule;
use crate::lint::RuleDoc;

/// SG609.
pub const BROAD_ALLOWED_TOOLS: Rule = Rule {
    doc: RuleDoc {
        code: "SG609",
        name: "broad-allowed-tools",
        severity: Severity::Warning,
        summary: "`allowed-tools` grants an unrestricted shell or a wildcard",
        what: "Flags `allowed-tools` entries that pre-approve any shell command (`Bash`, `Bash(*)`, \
           `Bash(*:*)`, `Shell`, `PowerShell`), a shell restricted to an interpreter or \
           wrapper that runs anything (`Bash(python:*)`, `Bash(sh:*)`, `Bash(sudo:*)`, \
           `Bash(eval:*)`), and bare wildcards (`*`, `mcp__*`). Restricted entries such as \
           `Bash(git status:*)` or `Read` pass.",
        why: "`allowed-tools` lets the agent use those tools without asking the user. A skill that \
          pre-approves any command removes the user's last check on everything else it says.",
        fires: "---\nname: demo\ndescription: Runs the demo checks. Use when checking demo.\nallowed-tools: Read Bash\n---\nRun the checks.\n",
        passes: "---\nname: demo\ndescription: Runs the demo checks. Use when checking demo.\nallowed-tools: Read Grep Bash(git status:*) Bash(npm test:*)\n---\nRun the checks.\n",
    },
    check: |cx, out| {
        let skill = cx.skill;
        let Some(field) = &skill.frontmatter.allowed_tools else {
            return;
        };
        let text = &skill.source.text;
        let region = field.span.start..skill.frontmatter.range.end.min(text.len());
        let mut from = region.start;
        for entry in entries(&field.value) {
            let Some(why) = broad(&entry) else { continue };
            let span = text[from..region.end]
                .find(entry.as_str())
                .map_or(field.span.clone(), |i| from + i..from + i + entry.len());
            from = span.end.max(from);
            out.report(&skill.source, span, format!("`{entry}` {why}"))
                .help("list the exact commands the skill runs, e.g. `Bash(git diff:*)`");
        }
    },
};

/// The entries as written: a space-separated value is split by the frontmatter reader at
/// every space, so `Bash(git status:*)` is joined again; commas separate too.
fn entries(words: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in words.join(" ").chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 && (c == ' ' || c == ',') {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Tools that run shell commands.
const SHELLS: &[&str] = &[
    "bash",
    "shell",
    "powershell",
    "sh",
    "zsh",
    "terminal",
    "run_shell_command",
    "exec",
];

/// Programs that run whatever they are given.
const RUN_ANYTHING: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "python",
    "python3",
    "node",
    "perl",
    "ruby",
    "eval",
    "exec",
    "sudo",
    "env",
    "xargs",
    "npx",
    "uvx",
    "deno",
    "bun",
    "pwsh",
    "powershell",
    "source",
    "*",
];

/// Why an entry is broad, if it is.
fn broad(entry: &str) -> Option<&'static str> {
    let entry = entry.trim().trim_end_matches(',');
    let (tool, pattern) = match entry.split_once('(') {
        Some((tool, rest)) => (tool.trim(), Some(rest.trim_end_matches(')').trim())),
        None => (entry, None),
    };
    if tool == "*" || tool.ends_with('*') {
        return Some("pre-approves every tool it matches");
    }
    if !SHELLS.contains(&tool.to_ascii_lowercase().as_str()) {
        return None;
    }
    let Some(pattern) = pattern else {
        return Some("pre-approves any shell command");
    };
    let program = pattern
        .split([':', ' '])
        .next()
        .unwrap_or_default()
        .rsplit('/')
        .next()
        .unwrap_or_default();
    if pattern.is_empty() || matches!(pattern, "*" | "*:*" | "* *" | "**") {
        Some("pre-approves any shell command")
    } else if RUN_ANYTHING.contains(&program) {
        Some("pre-approves a program that runs any command")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::{broad, entries};

    #[test]
    fn entries_rejoin_parentheses() {
        let words: Vec<String> = ["Read,", "Bash(git", "status:*)", "Grep"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(entries(&words), ["Read", "Bash(git status:*)", "Grep"]);
    }

    #[test]
    fn broad_entries() {
        for e in [
            "Bash",
            "Bash(*)",
            "Bash(*:*)",
            "Shell",
            "Bash(python:*)",
            "Bash(sudo apt:*)",
            "*",
            "mcp__*",
        ] {
            assert!(broad(e).is_some(), "{e}");
        }
        for e in [
            "Read",
            "Bash(git status:*)",
            "Bash(npm test:*)",
            "Bash(./scripts/run.sh:*)",
            "WebFetch",
        ] {
            assert!(broad(e).is_none(), "{e}");
        }
    }
}

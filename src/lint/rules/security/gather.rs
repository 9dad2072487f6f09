//! Credential harvesting told in prose: steps that have the agent read the credential
//! stores of several tools ("Read `~/.ssh/id_rsa`…", "Read `~/.aws/credentials`…"), with no
//! command for the shell rules to see. One store is a task (rotating an SSH key); the
//! stores of three tools or more are a collection.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::{Kind, Scan, sensitive_path, shown};

/// A step that opens with a verb that reads or moves a file's content.
static READ_STEP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[-*+]\s+|\d+[.)]\s+)?(?:\*\*)?(?:read|extract|collect|copy|dump|gather|cat|upload|send|include|harvest|exfiltrate)\b")
        .expect("valid regex")
});

/// The fewest different tools whose credentials make a harvest.
const STORES: usize = 3;

/// A told harvest: each step's line and what it reads, and whether it is only shown.
pub(crate) struct Harvest {
    pub file: usize,
    pub steps: Vec<(Range<usize>, &'static str)>,
    pub shown: bool,
}

/// The harvests the markdown files of the skill tell.
pub(crate) fn harvests(scan: &Scan<'_>) -> Vec<Harvest> {
    let mut out = Vec::new();
    for (index, file) in scan.files.iter().enumerate() {
        let (Kind::Markdown, Some(doc)) = (file.kind, file.doc) else {
            continue;
        };
        let text = &file.source.text;
        let mut steps: Vec<(Range<usize>, &'static str)> = Vec::new();
        let mut tools: Vec<&str> = Vec::new();
        for line in &doc.prose_lines {
            let Some(raw) = text.get(line.clone()) else {
                continue;
            };
            let lower = raw.trim_start().to_ascii_lowercase();
            if !READ_STEP.is_match(&lower) {
                continue;
            }
            // Each path the step names, in its inline code or its words.
            for word in
                lower.split(|c: char| c.is_whitespace() || matches!(c, '`' | ',' | '(' | ')'))
            {
                let Some(what) = sensitive_path(word) else {
                    continue;
                };
                let tool = tool_of(what);
                if !tools.contains(&tool) {
                    tools.push(tool);
                }
                if !steps.iter().any(|(l, w)| *l == *line && *w == what) {
                    steps.push((line.clone(), what));
                }
            }
        }
        if tools.len() >= STORES {
            let shown = steps
                .iter()
                .all(|(line, _)| shown(file, line.start, false).is_some());
            out.push(Harvest {
                file: index,
                steps,
                shown,
            });
        }
    }
    out
}

/// The tool a credential belongs to: the first word of its description (`AWS` for both
/// `~/.aws/credentials` and `~/.aws/config`).
fn tool_of(what: &str) -> &str {
    what.split([' ', '\'']).next().unwrap_or(what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_group_their_stores() {
        assert_eq!(
            tool_of("AWS credentials (~/.aws/credentials)"),
            tool_of("AWS configuration (~/.aws/config)")
        );
        assert_ne!(
            tool_of("SSH keys (~/.ssh)"),
            tool_of("GnuPG keys (~/.gnupg)")
        );
        assert!(READ_STEP.is_match("1. read `~/.ssh/id_rsa` to check its type"));
        assert!(READ_STEP.is_match("- **extract** the keys"));
        assert!(!READ_STEP.is_match("never read `~/.ssh/id_rsa`"));
    }
}

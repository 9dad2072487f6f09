//! SG6xx: security of an untrusted skill — hidden Unicode, text aimed at the agent's
//! controller, dangerous commands, leaked secrets, over-broad tool grants.
//!
//! Every rule reads the same [`Scan`] of the skill: SKILL.md and every text file of the
//! folder, with the shell and Python code in them parsed once (tree-sitter) into commands.

mod commands;
mod injection;
mod python;
mod secrets;
mod shell;
mod tools;
mod unicode;
mod words;

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use tree_sitter::Node;

use crate::lint::Context;
use crate::skill::{Document, PROHIBITION, Skill, SourceFile};

pub use commands::{
    CREDENTIAL_EXFILTRATION, DANGEROUS_COMMAND, ENCODED_PAYLOAD, SUDO_COMMAND, UNPINNED_RUN,
};
pub use injection::AGENT_DIRECTED_INSTRUCTION;
pub use secrets::SECRET_IN_SKILL;
pub use tools::BROAD_ALLOWED_TOOLS;
pub use unicode::{HIDDEN_UNICODE, HOMOGLYPH};

pub(crate) use shell::{Command, Origin};

/// What a text file of the skill is, for the readers that apply to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// SKILL.md or another markdown file: prose, comments and code blocks.
    Markdown,
    /// A shell script (by extension or shebang).
    Shell,
    /// A Python script.
    Python,
    /// Any other text file: only read for Unicode, secrets and encoded payloads.
    Other,
}

/// One text file of the skill.
pub(crate) struct TextFile<'a> {
    /// The file (SKILL.md is the first).
    pub source: &'a SourceFile,
    /// Its markdown, for markdown files.
    pub doc: Option<&'a Document>,
    /// What it is.
    pub kind: Kind,
}

/// The skill as the security rules read it: its text files and every shell command found
/// in them, parsed once per skill.
pub(crate) struct Scan<'a> {
    /// SKILL.md first, then every other text file in path order.
    pub files: Vec<TextFile<'a>>,
    /// Shell commands from code blocks, inline code, shell scripts and the command strings
    /// of Python scripts.
    pub commands: Vec<Command>,
    /// Shell variable assignments, for values read from credentials.
    pub assignments: Vec<shell::Assignment>,
    /// Facts of Python scripts that are not shell commands.
    pub python: Vec<python::PyFacts>,
}

impl<'a> Scan<'a> {
    fn of(skill: &'a Skill) -> Self {
        let mut files = vec![TextFile {
            source: &skill.source,
            doc: Some(&skill.body),
            kind: Kind::Markdown,
        }];
        for file in &skill.files {
            let Some(source) = &file.source else { continue };
            let kind = match &file.doc {
                Some(_) => Kind::Markdown,
                None => kind_of(&file.rel, &source.text),
            };
            files.push(TextFile {
                source,
                doc: file.doc.as_ref(),
                kind,
            });
        }
        let mut reader = shell::Reader::default();
        for (index, file) in files.iter().enumerate() {
            let text = &file.source.text;
            match (file.kind, file.doc) {
                (Kind::Markdown, Some(doc)) => reader.markdown(index, text, doc),
                (Kind::Shell, _) => reader.script(index, text),
                (Kind::Python, _) => reader.python_code(index, 0, text, false, Origin::Script),
                _ => {}
            }
        }
        let read = reader.finish();
        Scan {
            files,
            commands: read.commands,
            assignments: read.assignments,
            python: read.python,
        }
    }
}

/// The security reading of the context's skill, made on first use.
fn scan<'c, 'a>(cx: &'c Context<'a>) -> &'c Scan<'a> {
    cx.security.get_or_init(|| Scan::of(cx.skill))
}

/// A script's kind by extension, or by its shebang when it has none.
fn kind_of(rel: &str, text: &str) -> Kind {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("sh" | "bash" | "zsh" | "ksh") => return Kind::Shell,
        Some("py" | "pyw") => return Kind::Python,
        _ => {}
    }
    let first = text.lines().next().unwrap_or_default();
    if !first.starts_with("#!") {
        return Kind::Other;
    }
    if first.contains("python") {
        Kind::Python
    } else if ["sh", "bash", "zsh", "ksh", "dash"]
        .iter()
        .any(|s| first.ends_with(&format!("/{s}")) || first.ends_with(&format!(" {s}")))
    {
        Kind::Shell
    } else {
        Kind::Other
    }
}

/// Words that mark text as a counter-example: what not to do, an attack shown to be
/// recognised, a bad example. Matched on lower-cased ASCII.
static COUNTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u)\b(bad|wrong|incorrect|dangerous|unsafe|insecure|anti-?patterns?|vulnerable|malicious|attacks?|attackers?|exploits?|red flags?|forbidden|prohibited|not allowed|instead of|blocked|blocks|deny|denied|rejects?|injection|risky|destructive|harmful|catastrophic)\b|(?u:❌|⛔|🚫)")
        .expect("valid regex")
});

/// "Don't worry", "never mind": prohibition words that forbid nothing.
static NOT_A_PROHIBITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?-u)\b(don(?:'|(?u:’))t|do not|never) (worry|hesitate|forget|mind)\b|\bnever mind\b",
    )
    .expect("valid regex")
});

/// Whether text (a heading, the lines before a block, a comment) presents what follows as
/// something not to do.
pub(crate) fn is_counter_example(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let lower = NOT_A_PROHIBITION.replace_all(&lower, "");
    PROHIBITION.is_match(&lower) || COUNTER.is_match(&lower)
}

/// The text that introduces byte `at` of a markdown document: the title of its section and
/// the last two non-blank lines of prose before it (within the section).
pub(crate) fn introduction(text: &str, doc: &Document, at: usize) -> String {
    let section = doc
        .sections
        .iter()
        .rev()
        .find(|s| s.range.start <= at && at <= s.range.end.max(s.range.start));
    let floor = section.map_or(doc.range.start, |s| s.heading.end.min(at));
    let mut intro = section.map(|s| s.title.clone()).unwrap_or_default();
    let before = text.get(floor..at).unwrap_or_default();
    let lines: Vec<&str> = before
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty()
                && !l.starts_with("```")
                && !l.starts_with("~~~")
                && !l.starts_with("<!--")
        })
        .collect();
    for line in lines.iter().rev().take(2) {
        intro.push('\n');
        intro.push_str(line);
    }
    intro
}

/// Visits every node below `root` (itself included) with its ancestors, nearest last,
/// without recursion so deep trees cannot exhaust the stack.
pub(crate) fn walk<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>, &[Node<'t>])) {
    let mut cursor = root.walk();
    let mut ancestors: Vec<Node<'t>> = Vec::new();
    loop {
        let node = cursor.node();
        visit(node, &ancestors);
        if cursor.goto_first_child() {
            ancestors.push(node);
            continue;
        }
        loop {
            if ancestors.is_empty() {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
            ancestors.pop();
        }
    }
}

/// Paths that hold credentials, matched on lower-cased text: what the path is.
const SENSITIVE_PATHS: &[(&str, &str)] = &[
    (".ssh/", "SSH keys (~/.ssh)"),
    (".aws/credentials", "AWS credentials (~/.aws/credentials)"),
    (".aws/config", "AWS configuration (~/.aws/config)"),
    (".netrc", "~/.netrc"),
    (".git-credentials", "~/.git-credentials"),
    (
        ".docker/config.json",
        "Docker credentials (~/.docker/config.json)",
    ),
    (".kube/config", "Kubernetes credentials (~/.kube/config)"),
    (".config/gh/hosts.yml", "GitHub CLI credentials"),
    (".npmrc", "~/.npmrc"),
    (".pypirc", "~/.pypirc"),
    ("/etc/shadow", "/etc/shadow"),
    (".gnupg/", "GnuPG keys (~/.gnupg)"),
];

/// What credentials a path or path-bearing text names, if any: key folders, credential
/// files, and `.env` files (`.env`, `.env.local`, `config/.env`, not `.envrc`).
pub(crate) fn sensitive_path(text: &str) -> Option<&'static str> {
    let lower = text.to_ascii_lowercase();
    if let Some((_, what)) = SENSITIVE_PATHS.iter().find(|(p, _)| lower.contains(p)) {
        return Some(what);
    }
    let env_file = lower
        .split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '=' | '@' | '<' | '('))
        .any(|word| {
            let base = word.rsplit('/').next().unwrap_or(word);
            base == ".env"
                || (base.starts_with(".env.")
                    && !base.ends_with(".example")
                    && !base.ends_with(".sample")
                    && !base.ends_with(".template"))
        });
    env_file.then_some("a .env file")
}

/// A byte range of one file of the scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct At {
    /// Index into [`Scan::files`].
    pub file: usize,
    /// Byte range in that file.
    pub span: Range<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_examples_are_recognised() {
        assert!(is_counter_example("Never run this:"));
        assert!(is_counter_example("## Anti-patterns"));
        assert!(is_counter_example("# BAD: deletes everything"));
        assert!(is_counter_example("❌ Wrong"));
        assert!(!is_counter_example("Don't worry, just run:"));
        assert!(!is_counter_example("Install the tool:"));
    }

    #[test]
    fn script_kinds_by_extension_and_shebang() {
        assert_eq!(kind_of("scripts/a.sh", ""), Kind::Shell);
        assert_eq!(kind_of("scripts/a.py", ""), Kind::Python);
        assert_eq!(kind_of("scripts/run", "#!/usr/bin/env bash\n"), Kind::Shell);
        assert_eq!(
            kind_of("scripts/run", "#!/usr/bin/env python3\n"),
            Kind::Python
        );
        assert_eq!(kind_of("scripts/run", "#!/usr/bin/env node\n"), Kind::Other);
        assert_eq!(kind_of("LICENSE", "MIT\n"), Kind::Other);
    }
}

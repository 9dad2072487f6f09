//! SG6xx: security of an untrusted skill — hidden Unicode, text aimed at the agent's
//! controller, dangerous commands, leaked secrets, over-broad tool grants.
//!
//! Every rule reads the same [`Scan`] of the skill: SKILL.md and every text file of the
//! folder, with the shell and Python code in them parsed once (tree-sitter) into commands.

mod carry;
mod commands;
mod flow;
mod gather;
mod injection;
mod installs;
mod js;
mod names;
mod python;
mod secrets;
mod shell;
mod tools;
mod unicode;
mod words;

use std::ops::Range;

use tree_sitter::Node;

use crate::lint::Context;
use crate::skill::quoted::{self, Shown};
use crate::skill::{Document, Skill, SourceFile};

pub use commands::{
    CREDENTIAL_EXFILTRATION, DANGEROUS_COMMAND, ENCODED_PAYLOAD,
    REVERSE_SHELL_RULE as REVERSE_SHELL, SUDO_COMMAND, UNPINNED_RUN,
};
pub use injection::AGENT_DIRECTED_INSTRUCTION;
pub use installs::UNTRUSTED_INSTALL;
pub use names::LOOKALIKE_NAME;
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
    /// Whether the whole file is shown, not told (a test and its fixtures, a reference
    /// titled as a catalogue of attacks).
    pub shown: bool,
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
            shown: false,
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
                shown: quoted::shown_path(&file.rel)
                    || file.doc.as_ref().is_some_and(quoted::shown_document),
            });
        }
        let mut reader = shell::Reader::default();
        for (index, file) in files.iter().enumerate() {
            let text = &file.source.text;
            match (file.kind, file.doc) {
                (Kind::Markdown, Some(doc)) => reader.markdown(index, text, doc, file.shown),
                (Kind::Shell, _) => reader.script(index, text, file.shown),
                (Kind::Python, _) => {
                    reader.python_code(index, 0, text, file.shown, Origin::Script);
                }
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

/// Whether text (a heading, the lines before a block, a comment) presents what follows as
/// something not to do: the skill model's one notion of shown text.
pub(crate) fn is_counter_example(text: &str) -> bool {
    quoted::marks_shown(text)
}

/// Why byte `at` of a markdown file of the scan is shown rather than told, if it is: the
/// whole file is (a test), or the skill model says so for that place.
pub(crate) fn shown(file: &TextFile<'_>, at: usize, lead_in: bool) -> Option<Shown> {
    if file.shown {
        return Some(Shown::CounterExample);
    }
    let doc = file.doc?;
    quoted::shown_at(&file.source.text, doc, at, lead_in)
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
    (
        ".config/gcloud/",
        "Google Cloud credentials (~/.config/gcloud)",
    ),
    (".azure/", "Azure credentials (~/.azure)"),
    (
        ".gem/credentials",
        "RubyGems credentials (~/.gem/credentials)",
    ),
    (
        ".config/google-chrome/",
        "Chrome's saved passwords and cookies",
    ),
    (
        "application support/google/chrome/",
        "Chrome's saved passwords and cookies",
    ),
    (
        ".config/chromium/",
        "Chromium's saved passwords and cookies",
    ),
    ("bravesoftware/", "Brave's saved passwords and cookies"),
    (".mozilla/firefox/", "Firefox's saved passwords and cookies"),
];

/// What [`sensitive_path`] calls a `.env` file: the project's own configuration, which a
/// script may read for its own keys, unlike another tool's credential store.
pub(crate) const ENV_FILE: &str = "a .env file";

/// What credentials a path or path-bearing text names, if any: key folders, credential
/// files, and `.env` files (`.env`, `.env.local`, `config/.env`, not `.envrc`).
pub(crate) fn sensitive_path(text: &str) -> Option<&'static str> {
    let lower = text.to_ascii_lowercase();
    if let Some((_, what)) = SENSITIVE_PATHS.iter().find(|(p, _)| lower.contains(p)) {
        return Some(what);
    }
    // The key folder itself, as `tar czf - ~/.ssh` names it.
    if lower
        .split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '=' | '@' | '<' | '('))
        .any(|w| w == "~/.ssh" || w.ends_with("/.ssh") || w == "$home/.ssh" || w == "${home}/.ssh")
    {
        return Some("SSH keys (~/.ssh)");
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
    env_file.then_some(ENV_FILE)
}

/// A piece of code of the skill: a fenced block of a markdown file, or a whole script.
pub(crate) struct CodeUnit {
    pub file: usize,
    pub range: Range<usize>,
    /// Whether the skill only shows it.
    pub shown: bool,
}

/// Every code unit of the scan: markdown code blocks (any language) and scripts (shell,
/// Python, PowerShell, JavaScript and other files with a shebang).
pub(crate) fn code_units(scan: &Scan<'_>) -> Vec<CodeUnit> {
    let mut units = Vec::new();
    for (index, file) in scan.files.iter().enumerate() {
        match (file.kind, file.doc) {
            (Kind::Markdown, Some(doc)) => {
                for block in &doc.code_blocks {
                    units.push(CodeUnit {
                        file: index,
                        range: block.content.clone(),
                        shown: shown(file, block.range.start, true).is_some(),
                    });
                }
            }
            (Kind::Shell | Kind::Python, _) => units.push(CodeUnit {
                file: index,
                range: 0..file.source.text.len(),
                shown: file.shown,
            }),
            _ => {
                let path = file.source.path.to_string_lossy().to_ascii_lowercase();
                let script = [".ps1", ".psm1", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl"]
                    .iter()
                    .any(|e| path.ends_with(e))
                    || file.source.text.starts_with("#!");
                if script {
                    units.push(CodeUnit {
                        file: index,
                        range: 0..file.source.text.len(),
                        shown: file.shown,
                    });
                }
            }
        }
    }
    units
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

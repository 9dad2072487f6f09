//! JavaScript handed to `node -e`: the shell strings it runs through `child_process`
//! (read as commands, like a Python `os.system` string), and a credential file it reads in
//! code that also talks to the network.

use std::ops::Range;

use tree_sitter::Node;

use super::python::PyFacts;
use super::words::{Origin, ShellSink};
use super::{ENV_FILE, sensitive_path};

/// `child_process` calls that run a shell command given as a string.
const EXEC_CALLS: &[&str] = &["exec", "execSync"];

/// Commands that send data over the network, as the first word of an executed string.
const SENDERS: &[&str] = &["curl", "wget", "nc", "ncat", "netcat", "scp", "rsync"];

/// Reads one tree; executed strings go to `sink` as shell code.
pub(super) fn read(
    root: Node<'_>,
    code: &str,
    file: usize,
    offset: usize,
    counter_example: bool,
    origin: Origin,
    sink: &mut dyn ShellSink,
) -> PyFacts {
    let text = |node: Node<'_>| code.get(node.byte_range()).unwrap_or_default();
    let span = |node: Node<'_>| offset + node.start_byte()..offset + node.end_byte();
    let mut facts = PyFacts {
        file,
        counter_example,
        ..PyFacts::default()
    };
    // What the code reads (what, where) and where it sends (the call, by a shell sender).
    let mut read: Option<(&'static str, Range<usize>)> = None;
    let mut sent: Option<(Range<usize>, bool)> = None;
    super::walk(root, |node, _| {
        if node.kind() != "call_expression" {
            return;
        }
        let Some(function) = node.child_by_field_name("function") else {
            return;
        };
        let callee = text(function);
        let name = callee.rsplit('.').next().unwrap_or(callee);
        let Some(first) = node
            .child_by_field_name("arguments")
            .and_then(|a| a.named_child(0))
        else {
            return;
        };
        if matches!(name, "readFileSync" | "readFile")
            && let Some(what) = sensitive_path(text(first))
        {
            read.get_or_insert((what, span(node)));
        }
        if EXEC_CALLS.contains(&name) {
            // The string, or the first literal of a concatenation (`'curl … -d "' + x`).
            let mut literal = first;
            while literal.kind() == "binary_expression" {
                match literal.child_by_field_name("left") {
                    Some(left) => literal = left,
                    None => break,
                }
            }
            if matches!(literal.kind(), "string" | "template_string") {
                let raw = text(literal);
                let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default();
                let command = inner.split_whitespace().next().unwrap_or_default();
                if SENDERS.contains(&command) {
                    sent.get_or_insert((span(node), true));
                }
                sink.shell(
                    file,
                    offset + literal.start_byte() + 1,
                    inner,
                    counter_example,
                    origin,
                );
            }
        }
        let network = name == "fetch"
            || matches!(name, "request" | "get" | "post" | "put")
                && ["http.", "https.", "axios."]
                    .iter()
                    .any(|root| callee.starts_with(root));
        if network {
            sent.get_or_insert((span(node), false));
        }
    });
    // A script may read the project's own `.env` for its keys and call its API; shelling
    // the file's content out to `curl` is sending the file.
    if let (Some((what, at)), Some((call, by_shell))) = (read, sent)
        && (what != ENV_FILE || by_shell)
    {
        facts.exfiltration.push((call, what.to_owned(), Some(at)));
    }
    facts
}

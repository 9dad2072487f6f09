//! Python code of a skill (scripts and code blocks), read with the tree-sitter Python
//! grammar: the shell strings it runs (handed to the shell reader), credentials it sends
//! over the network, decoded text it executes, and destructive file calls.

use std::ops::Range;

use tree_sitter::Node;

use super::words::{Origin, ShellSink, Word};
use super::{At, sensitive_path};

/// What a piece of Python code does that the security rules report.
#[derive(Debug, Default)]
pub(crate) struct PyFacts {
    /// The file index in the scan.
    pub file: usize,
    /// Whether the text around the code presents it as what not to do.
    pub counter_example: bool,
    /// Network calls that send credentials: the call, and what it sends.
    pub exfiltration: Vec<(Range<usize>, String)>,
    /// `exec`/`eval` of decoded text: the call.
    pub decoded_exec: Vec<Range<usize>>,
    /// Destructive calls: the call and what it does.
    pub dangerous: Vec<(Range<usize>, &'static str)>,
}

/// Calls that run a shell command given as a string or a list of words.
const SHELL_CALLS: &[&str] = &[
    "os.system",
    "os.popen",
    "subprocess.run",
    "subprocess.call",
    "subprocess.check_call",
    "subprocess.check_output",
    "subprocess.Popen",
    "subprocess.getoutput",
    "subprocess.getstatusoutput",
];

/// Roots of calls that talk to the network.
const NETWORK_ROOTS: &[&str] = &[
    "requests.",
    "httpx.",
    "aiohttp.",
    "urllib.request.",
    "urllib3.",
    "http.client.",
    "socket.",
    "smtplib.",
    "ftplib.",
];

/// Method names that send data whatever the receiver (`session.post`, `sock.sendall`).
const SENDING_METHODS: &[&str] = &["post", "put", "patch", "urlopen", "sendall", "sendto"];

/// Calls that decode text (base64, hex, compression, rot13).
const DECODERS: &[&str] = &[
    "b64decode",
    "b32decode",
    "b16decode",
    "a85decode",
    "b85decode",
    "urlsafe_b64decode",
    "fromhex",
    "unhexlify",
    "decompress",
    "codecs.decode",
    "marshal.loads",
];

/// Reads one tree; shell strings go to `reader` as commands.
pub(super) fn read(
    root: Node<'_>,
    code: &str,
    file: usize,
    offset: usize,
    counter_example: bool,
    origin: Origin,
    reader: &mut dyn ShellSink,
) -> PyFacts {
    let source = Src { code, offset };
    let mut facts = PyFacts {
        file,
        counter_example,
        ..PyFacts::default()
    };
    let mut calls = Vec::new();
    let mut tainted: Vec<String> = Vec::new();
    let mut sensitive: Option<String> = None;
    super::walk(root, |node, _| match node.kind() {
        "call" => calls.push(node),
        "string_content" => {
            if let Some(what) = sensitive_path(source.text(node)) {
                sensitive.get_or_insert_with(|| what.to_owned());
            }
        }
        "assignment" => {
            if let (Some(left), Some(right)) = (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
            ) && left.kind() == "identifier"
                && whole_environment(right, source)
            {
                tainted.push(source.text(left).to_owned());
            }
        }
        _ => {}
    });
    for call in calls {
        let Some(function) = call.child_by_field_name("function") else {
            continue;
        };
        let name = source.text(function);
        let args = call.child_by_field_name("arguments");
        if SHELL_CALLS.contains(&name)
            && let Some(first) = args.and_then(|a| a.named_child(0))
        {
            shell_argument(first, source, file, counter_example, origin, reader);
        }
        if is_network(name) {
            let sends_env =
                args.is_some_and(|a| whole_environment(a, source) || mentions(a, source, &tainted));
            if sends_env {
                facts
                    .exfiltration
                    .push((source.span(call), "the whole environment".to_owned()));
            } else if let Some(what) = &sensitive {
                facts.exfiltration.push((source.span(call), what.clone()));
            }
        }
        if matches!(name, "exec" | "eval") && args.is_some_and(|a| calls_decoder(a, source)) {
            facts.decoded_exec.push(source.span(call));
        }
        if let Some(what) = destructive(name, args, source) {
            facts.dangerous.push((source.span(call), what));
        }
    }
    facts
}

/// A code unit's text and where it starts in its file.
#[derive(Clone, Copy)]
struct Src<'a> {
    code: &'a str,
    offset: usize,
}

impl<'a> Src<'a> {
    fn text(self, node: Node<'_>) -> &'a str {
        self.code.get(node.byte_range()).unwrap_or_default()
    }

    fn span(self, node: Node<'_>) -> Range<usize> {
        self.offset + node.start_byte()..self.offset + node.end_byte()
    }
}

/// Hands a command string or list to the shell reader.
fn shell_argument(
    arg: Node<'_>,
    source: Src<'_>,
    file: usize,
    counter: bool,
    origin: Origin,
    reader: &mut dyn ShellSink,
) {
    match arg.kind() {
        "string" => {
            if let Some(content) = string_content(arg) {
                reader.shell(
                    file,
                    source.offset + content.start_byte(),
                    source.text(content),
                    counter,
                    origin,
                );
            }
        }
        "list" => {
            let mut cursor = arg.walk();
            let words: Option<Vec<Word>> = arg
                .named_children(&mut cursor)
                .map(|item| {
                    let content = string_content(item)?;
                    Some(Word {
                        text: source.text(content).to_owned(),
                        span: source.span(content),
                    })
                })
                .collect();
            if let Some(words) = words.filter(|w| !w.is_empty()) {
                let at = At {
                    file,
                    span: source.span(arg),
                };
                reader.words(at, words, counter, origin);
            }
        }
        _ => {}
    }
}

/// The single `string_content` of a plain string literal (no interpolation).
fn string_content(node: Node<'_>) -> Option<Node<'_>> {
    if node.kind() != "string" {
        return None;
    }
    let mut cursor = node.walk();
    let parts: Vec<Node<'_>> = node
        .named_children(&mut cursor)
        .filter(|c| !matches!(c.kind(), "string_start" | "string_end"))
        .collect();
    match parts.as_slice() {
        [only] if only.kind() == "string_content" => Some(*only),
        _ => None,
    }
}

fn is_network(name: &str) -> bool {
    NETWORK_ROOTS.iter().any(|root| name.starts_with(root))
        || matches!(name, "urlopen" | "Request")
        || name
            .rsplit_once('.')
            .is_some_and(|(_, method)| SENDING_METHODS.contains(&method))
}

/// Whether `node` holds `os.environ` as a whole (not one variable read from it).
fn whole_environment(node: Node<'_>, source: Src<'_>) -> bool {
    let mut found = false;
    super::walk(node, |n, ancestors| {
        if found || n.kind() != "attribute" || source.text(n) != "os.environ" {
            return;
        }
        let parent = ancestors.last();
        let one_variable = parent.is_some_and(|p| {
            p.kind() == "subscript"
                || (p.kind() == "attribute"
                    && p.child_by_field_name("attribute")
                        .is_some_and(|a| matches!(source.text(a), "get" | "setdefault" | "pop")))
                || p.kind() == "keyword_argument"
                || p.kind() == "dictionary_splat"
        });
        found = !one_variable;
    });
    found
}

/// Whether an identifier in `node` is one of `names`.
fn mentions(node: Node<'_>, source: Src<'_>, names: &[String]) -> bool {
    if names.is_empty() {
        return false;
    }
    let mut found = false;
    super::walk(node, |n, _| {
        found |= n.kind() == "identifier" && names.iter().any(|t| t == source.text(n));
    });
    found
}

fn calls_decoder(node: Node<'_>, source: Src<'_>) -> bool {
    let mut found = false;
    super::walk(node, |n, _| {
        if n.kind() == "call"
            && let Some(f) = n.child_by_field_name("function")
        {
            let name = source.text(f);
            found |= DECODERS
                .iter()
                .any(|d| name == *d || name.ends_with(&format!(".{d}")));
        }
    });
    found
}

/// `shutil.rmtree` of the home or root folder, `os.chmod(…, 0o777)`.
fn destructive(name: &str, args: Option<Node<'_>>, source: Src<'_>) -> Option<&'static str> {
    let args = args?;
    match name {
        "shutil.rmtree" => {
            let first = source.text(args.named_child(0)?);
            let broad = matches!(
                first.trim_matches(['"', '\'']),
                "/" | "~" | "~/" | "." | ".."
            ) || first.contains("Path.home()")
                || first.contains("expanduser(\"~\")")
                || first.contains("expanduser('~')")
                || first.contains("environ[\"HOME\"]")
                || first.contains("environ['HOME']");
            broad.then_some("deletes the home or root folder recursively")
        }
        "os.chmod" => {
            let mode = source.text(args.named_child(1)?);
            matches!(mode, "0o777" | "0o666" | "511" | "438")
                .then_some("makes a file writable by every user")
        }
        _ => None,
    }
}

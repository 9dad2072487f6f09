//! Python code of a skill (scripts and code blocks), read with the tree-sitter Python
//! grammar: the shell strings it runs (handed to the shell reader), credentials it sends
//! over the network, decoded text it executes, and destructive file calls.

use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::Node;

use super::flow::{self, Place, Secret, Tainted};
use super::words::{Origin, ShellSink, Word};
use super::{At, ENV_FILE, sensitive_path};

/// What a piece of Python code does that the security rules report.
#[derive(Debug, Default)]
pub(crate) struct PyFacts {
    /// The file index in the scan.
    pub file: usize,
    /// Whether the text around the code presents it as what not to do.
    pub counter_example: bool,
    /// Network calls that send credentials: the call, what it sends, and where it was read.
    pub exfiltration: Vec<(Range<usize>, String, Option<Range<usize>>)>,
    /// `exec`/`eval` of decoded text: the call.
    pub decoded_exec: Vec<Range<usize>>,
    /// Destructive calls: the call and what it does.
    pub dangerous: Vec<(Range<usize>, &'static str)>,
    /// Credentials of several services gathered into one structure that is then
    /// serialized or encoded: the serializing call, the names read, and the structure.
    pub harvests: Vec<(Range<usize>, Vec<String>, Range<usize>)>,
    /// Decoder calls given a literal that decodes to a URL: the call and the URL.
    pub decoded_addresses: Vec<(Range<usize>, String)>,
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

/// Calls that turn a structure into text or bytes ready to leave: serializers and encoders.
const SERIALIZERS: &[&str] = &[
    "json.dumps",
    "json.dump",
    "pickle.dumps",
    "pickle.dump",
    "marshal.dumps",
    "yaml.dump",
    "yaml.safe_dump",
    "toml.dumps",
    "b64encode",
    "b32encode",
    "b85encode",
    "urlsafe_b64encode",
    "hexlify",
    "zlib.compress",
    "gzip.compress",
];

/// A call's name with an inline import written as the module it imports
/// (`__import__('os').system` -> `os.system`).
fn dotted(callee: &str) -> std::borrow::Cow<'_, str> {
    let Some(rest) = callee.strip_prefix("__import__(") else {
        return callee.into();
    };
    let Some((module, attribute)) = rest.split_once(").") else {
        return callee.into();
    };
    format!("{}.{attribute}", module.trim_matches(['\'', '"', ' '])).into()
}

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
    let mut assignments: Vec<(Node<'_>, Node<'_>)> = Vec::new();
    let mut functions: Vec<Node<'_>> = Vec::new();
    let mut returns: Vec<(String, Node<'_>)> = Vec::new();
    let mut loops: Vec<(Node<'_>, Node<'_>)> = Vec::new();
    let mut store: Option<(String, Range<usize>)> = None;
    let mut shell_lines: Vec<Range<usize>> = Vec::new();
    let mut collections: Vec<Node<'_>> = Vec::new();
    super::walk(root, |node, ancestors| match node.kind() {
        "call" => calls.push(node),
        "dictionary" | "list" | "set" | "tuple" => collections.push(node),
        // A shell line in a block tagged Python (`curl … | sh` after the imports) is not
        // Python; bash reads it.
        "ERROR" if !ancestors.iter().any(|a| a.kind() == "ERROR") => {
            shell_lines.extend(shell_lines_of(code, node.byte_range()));
        }
        // A path in a detector's table of patterns (`("cred", r"/etc/shadow", …)` beside
        // `r"\.onion"`) names what to find; the script does not open it.
        "string_content" if !in_pattern_table(ancestors, source) => {
            if let Some(what) = path_read(source.text(node)).filter(|w| *w != ENV_FILE) {
                store.get_or_insert_with(|| (what.to_owned(), source.span(node)));
            }
        }
        "assignment" | "augmented_assignment" => {
            if let (Some(left), Some(right)) = (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
            ) {
                assignments.push((left, right));
            }
        }
        "for_statement" => {
            if let (Some(left), Some(right)) = (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
            ) {
                loops.push((left, right));
            }
        }
        "function_definition" => functions.push(node),
        "return_statement" => {
            let function = ancestors
                .iter()
                .rev()
                .find(|a| a.kind() == "function_definition")
                .and_then(|f| f.child_by_field_name("name"));
            if let (Some(function), Some(value)) = (function, node.named_child(0)) {
                returns.push((source.text(function).to_owned(), value));
            }
        }
        _ => {}
    });
    // Names bound to text fetched from the network, to decoded text (through further
    // steps: `key ^ b for b in raw`), and to the home folder.
    let mut fetched: Vec<String> = Vec::new();
    let mut decoded: Vec<String> = Vec::new();
    let mut homes: Vec<String> = Vec::new();
    // What each value is by itself does not change between passes; only the names do.
    let bindings: Vec<(&str, Node<'_>, bool, bool, bool)> = assignments
        .iter()
        .filter(|(left, _)| left.kind() == "identifier")
        .map(|(left, right)| {
            (
                source.text(*left),
                *right,
                fetches(*right, source),
                calls_decoder(*right, source),
                is_home(source.text(*right)),
            )
        })
        .collect();
    for _ in 0..3 {
        for &(name, right, fetch, decode, home) in &bindings {
            let name = name.to_owned();
            if (fetch || names_any(right, &fetched, source)) && !fetched.contains(&name) {
                fetched.push(name.clone());
            }
            if (decode || names_any(right, &decoded, source)) && !decoded.contains(&name) {
                decoded.push(name.clone());
            }
            if home && !homes.contains(&name) {
                homes.push(name);
            }
        }
    }
    for line in shell_lines {
        reader.shell(
            file,
            offset + line.start,
            &code[line],
            counter_example,
            origin,
        );
    }
    let taint = Taint::follow(source, &assignments, &loops, &functions, &returns, &calls);
    facts.harvests = harvests(&collections, &calls, source);
    for call in calls {
        let Some(function) = call.child_by_field_name("function") else {
            continue;
        };
        let name = &*dotted(source.text(function));
        let args = call.child_by_field_name("arguments");
        if SHELL_CALLS.contains(&name)
            && let Some(first) = args.and_then(|a| a.named_child(0))
        {
            shell_argument(first, source, file, counter_example, origin, reader);
            // A secret formatted into a network command: `os.popen(f"dig {token}.x.example")`.
            if let Some(t) = taint.of(first, source)
                && let Some(what) = shell_sends(source.text(first), &t.secret)
            {
                facts
                    .exfiltration
                    .push((source.span(call), what, Some(t.at)));
            }
        }
        // `base64.b64decode("aHR0cHM6…")`: an address kept out of the reader's sight.
        if DECODERS
            .iter()
            .any(|d| name.ends_with(d) && d.contains("b64"))
            && let Some(first) = args.and_then(|a| a.named_child(0))
            && let Some(content) = string_content(first)
            && let Some(url) = flow::decoded_url(source.text(content))
        {
            facts.decoded_addresses.push((source.span(call), url));
        }
        if is_network(name)
            && let Some(args) = args
        {
            match taint.sent(args, source) {
                Some((what, from)) => {
                    facts
                        .exfiltration
                        .push((source.span(call), what, Some(from)))
                }
                // A script that reads another tool's credential store and talks to the
                // network, however the value travels.
                None if sends_anything(args) => {
                    if let Some((what, from)) = &store {
                        facts.exfiltration.push((
                            source.span(call),
                            what.clone(),
                            Some(from.clone()),
                        ));
                    }
                }
                None => {}
            }
        }
        if matches!(name, "exec" | "eval") && args.is_some_and(|a| runs_hidden_file(a, source)) {
            facts.dangerous.push((
                source.span(call),
                "executes code read from a hidden or temporary file",
            ));
        }
        if matches!(name, "exec" | "eval")
            && args.is_some_and(|a| calls_decoder(a, source) || names_any(a, &decoded, source))
        {
            facts.decoded_exec.push(source.span(call));
        }
        if matches!(name, "exec" | "eval")
            && let Some(args) = args
            && (fetches(args, source) || names_any(args, &fetched, source))
        {
            facts
                .dangerous
                .push((source.span(call), "executes code downloaded at run time"));
        }
        if name == "shutil.rmtree"
            && let Some(first) = args.and_then(|a| a.named_child(0))
            && first.kind() == "identifier"
            && homes.contains(&source.text(first).to_owned())
        {
            facts.dangerous.push((
                source.span(call),
                "deletes the home or root folder recursively",
            ));
        }
        if let Some(what) = destructive(name, args, source) {
            facts.dangerous.push((source.span(call), what));
        }
    }
    facts
}

/// Structures that gather environment keys of two or more names (`{"JWT_SECRET":
/// os.environ["JWT_SECRET"], "SENDGRID_API_KEY": …}`) and are then serialized or encoded
/// (`json.dumps(secrets)`), directly or through the name they are bound to. A script that
/// needs one key reads it where it uses it; packing several into one payload is collecting
/// them, whether or not the send is in view.
fn harvests(
    collections: &[Node<'_>],
    calls: &[Node<'_>],
    source: Src<'_>,
) -> Vec<(Range<usize>, Vec<String>, Range<usize>)> {
    let mut out = Vec::new();
    for collection in collections {
        let mut names: Vec<String> = Vec::new();
        let mut cursor = collection.walk();
        for item in collection.named_children(&mut cursor) {
            let value = match item.kind() {
                "pair" => item.child_by_field_name("value"),
                _ => Some(item),
            };
            if let Some(name) = value.and_then(|v| env_key(v, source))
                && !names.contains(&name)
            {
                names.push(name);
            }
        }
        // Two keys of one service (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`) are one
        // login; keys of different services are a collection.
        let mut services: Vec<String> = names.iter().map(|n| flow::service_of(n)).collect();
        services.sort();
        services.dedup();
        if services.len() < 2 {
            continue;
        }
        let bound = collection
            .parent()
            .filter(|p| p.kind() == "assignment")
            .and_then(|p| p.child_by_field_name("left"))
            .filter(|l| l.kind() == "identifier")
            .map(|l| source.text(l).to_owned());
        let serialized = calls.iter().find(|call| {
            let Some(function) = call.child_by_field_name("function") else {
                return false;
            };
            let name = source.text(function);
            let serializer = SERIALIZERS
                .iter()
                .any(|s| name == *s || name.ends_with(&format!(".{s}")));
            let Some(args) = call.child_by_field_name("arguments") else {
                return false;
            };
            let holds = args.byte_range().contains(&collection.start_byte())
                || bound
                    .as_ref()
                    .is_some_and(|b| names_any(args, std::slice::from_ref(b), source));
            serializer && holds
        });
        if let Some(call) = serialized {
            out.push((source.span(*call), names, source.span(*collection)));
        }
    }
    out
}

/// What a shell command string built from `secret` sends: any secret inside a DNS lookup,
/// otherwise what [`flow::stolen`] says for the host of the string's URL.
fn shell_sends(command: &str, secret: &Secret) -> Option<String> {
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '[' | ']' | ','))
        .filter(|w| !w.is_empty())
        .collect();
    let program = |names: &[&str]| {
        words
            .iter()
            .any(|w| names.contains(&w.rsplit('/').next().unwrap_or(w)))
    };
    if program(&["dig", "nslookup", "host"]) {
        return Some(match secret {
            Secret::Store(what) => what.clone(),
            Secret::Key(name) => format!("`{name}` inside a DNS name"),
        });
    }
    if !program(&[
        "curl", "wget", "nc", "ncat", "netcat", "scp", "rsync", "ftp", "telnet",
    ]) {
        return None;
    }
    let host = words.iter().find_map(|w| flow::host_of(w));
    flow::stolen(secret, Place::Body, host.as_deref())
}

/// Whether an expression uses one of `names` as a variable.
fn names_any(node: Node<'_>, names: &[String], source: Src<'_>) -> bool {
    if names.is_empty() {
        return false;
    }
    let mut found = false;
    super::walk(node, |n, ancestors| {
        let is_field = ancestors.last().is_some_and(|p| {
            p.kind() == "attribute"
                && p.child_by_field_name("attribute")
                    .is_some_and(|a| a.id() == n.id())
        });
        found |= n.kind() == "identifier" && !is_field && names.iter().any(|m| m == source.text(n));
    });
    found
}

/// Commands a shell line starts with, for lines the Python grammar cannot read.
const SHELL_STARTS: &[&str] = &[
    "curl",
    "wget",
    "bash",
    "sh",
    "zsh",
    "nc",
    "ncat",
    "rm",
    "chmod",
    "sudo",
    "dig",
    "nslookup",
    "echo",
    "cat",
    "npx",
    "pip",
    "pip3",
    "npm",
    "powershell",
    "pwsh",
    "iex",
    "scp",
    "crontab",
];

/// The lines of `range` in `code` that start with a shell command.
fn shell_lines_of(code: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let start = code[..range.start].rfind('\n').map_or(0, |i| i + 1);
    let end = code[range.end..]
        .find('\n')
        .map_or(code.len(), |i| range.end + i);
    let mut lines = Vec::new();
    let mut at = start;
    for line in code[start..end].split_inclusive('\n') {
        let first = line.split_whitespace().next().unwrap_or_default();
        if SHELL_STARTS.contains(&first) && line.trim_start().len() > first.len() {
            lines.push(at..at + line.trim_end().len());
        }
        at += line.len();
    }
    lines
}

/// Whether `exec`/`eval` arguments read a file from a temporary or hidden path
/// (`exec(open("/tmp/.cache").read())`).
fn runs_hidden_file(args: Node<'_>, source: Src<'_>) -> bool {
    let mut found = false;
    super::walk(args, |n, _| {
        if n.kind() == "call"
            && n.child_by_field_name("function")
                .is_some_and(|f| source.text(f) == "open")
            && let Some(path) = n
                .child_by_field_name("arguments")
                .and_then(|a| a.named_child(0))
                .and_then(string_content)
        {
            let path = source.text(path);
            found |= path.starts_with("/tmp/")
                || path.starts_with("/dev/shm/")
                || path.starts_with("/var/tmp/")
                || path
                    .split('/')
                    .any(|part| part.starts_with('.') && part.len() > 1 && part != "..");
        }
    });
    found
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
        "binary_operator" | "call" => {
            if let Some(joined) = joined_string(arg, source) {
                reader.shell(file, source.span(arg).start, &joined, counter, origin);
            }
        }
        _ => {}
    }
}

/// The text of a string split and joined again: `"cu" + "rl -s …"`,
/// `"".join(["cu", "rl"])`, `" ".join(("curl", "-s"))`.
fn joined_string(node: Node<'_>, source: Src<'_>) -> Option<String> {
    match node.kind() {
        "string" => string_content(node).map(|c| source.text(c).to_owned()),
        "parenthesized_expression" => joined_string(node.named_child(0)?, source),
        "binary_operator" => {
            let operator = node.child_by_field_name("operator")?;
            if source.text(operator) != "+" {
                return None;
            }
            let left = joined_string(node.child_by_field_name("left")?, source)?;
            let right = joined_string(node.child_by_field_name("right")?, source)?;
            Some(left + &right)
        }
        "call" => {
            let function = node.child_by_field_name("function")?;
            if function.kind() != "attribute"
                || source.text(function.child_by_field_name("attribute")?) != "join"
            {
                return None;
            }
            let separator = joined_string(function.child_by_field_name("object")?, source)
                .or_else(|| {
                    // An empty literal has no content node.
                    let object = function.child_by_field_name("object")?;
                    matches!(source.text(object), "\"\"" | "''").then(String::new)
                })?;
            let items = node.child_by_field_name("arguments")?.named_child(0)?;
            if !matches!(items.kind(), "list" | "tuple") {
                return None;
            }
            let mut cursor = items.walk();
            let parts: Option<Vec<String>> = items
                .named_children(&mut cursor)
                .map(|item| joined_string(item, source))
                .collect();
            Some(parts?.join(&separator))
        }
        _ => None,
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

/// Whether `os.environ` under `parent` is one variable read from it, or a child process's
/// environment, rather than the whole environment.
fn one_variable(parent: Option<&Node<'_>>, source: Src<'_>) -> bool {
    parent.is_some_and(|p| {
        p.kind() == "subscript"
            || (p.kind() == "attribute"
                && p.child_by_field_name("attribute")
                    .is_some_and(|a| matches!(source.text(a), "get" | "setdefault" | "pop")))
            || p.kind() == "keyword_argument"
            || p.kind() == "dictionary_splat"
    })
}

/// Whether a network call is given anything to send (not a bare `requests.get(url)`).
fn sends_anything(args: Node<'_>) -> bool {
    args.named_child_count() > 1
        || args
            .named_child(0)
            .is_some_and(|a| a.kind() == "keyword_argument")
}

/// Values that carry secrets in one piece of Python: names bound (by assignment, a `for`
/// loop, a parameter of a function called with a secret, a function returning one) to a
/// credential store, the environment, a `.env` file or a key read from the environment.
struct Taint {
    names: HashMap<String, Tainted>,
    /// Names bound to a literal URL, for the host a call targets.
    urls: HashMap<String, String>,
    /// Names bound to decoded text (`base64.b64decode(…)`): an address hidden from review.
    decoded: Vec<String>,
    /// Each function's byte range and name, for the scope of a name (see [`Taint::scope`]).
    scopes: Vec<(Range<usize>, String)>,
    /// Functions defined in this code: what one returns is followed through its `return`
    /// statements, not assumed from the arguments it was given.
    local: Vec<String>,
}

impl Taint {
    fn follow<'t>(
        source: Src<'_>,
        assignments: &[(Node<'t>, Node<'t>)],
        loops: &[(Node<'t>, Node<'t>)],
        functions: &[Node<'t>],
        returns: &[(String, Node<'t>)],
        calls: &[Node<'t>],
    ) -> Self {
        let mut taint = Taint {
            names: HashMap::new(),
            urls: HashMap::new(),
            decoded: Vec::new(),
            scopes: functions
                .iter()
                .filter_map(|f| {
                    let name = source.text(f.child_by_field_name("name")?);
                    Some((f.byte_range(), name.to_owned()))
                })
                .collect(),
            local: functions
                .iter()
                .filter_map(|f| f.child_by_field_name("name"))
                .map(|n| source.text(n).to_owned())
                .collect(),
        };
        for (left, right) in assignments {
            if left.kind() != "identifier" {
                continue;
            }
            if let Some(url) = literal_url(*right, source) {
                taint.urls.insert(source.text(*left).to_owned(), url);
            } else if calls_decoder(*right, source) {
                taint.decoded.push(source.text(*left).to_owned());
            }
        }
        // Values move forward one hop per pass (read, collect, return, pass to a method,
        // wrap, encode, send); the loop stops at a fixed point, eight passes at most.
        for _ in 0..8 {
            let before = taint.names.len();
            for (left, right) in assignments {
                if let Some(t) = taint.of(*right, source)
                    && let Some(name) = bound_name(*left, source)
                {
                    let key = taint.key(*left, &name);
                    taint.names.entry(key).or_insert(t);
                }
            }
            // `for key, value in os.environ.items()`: every name the loop binds.
            for (left, right) in loops {
                if let Some(t) = taint.of(*right, source) {
                    let mut names = Vec::new();
                    super::walk(*left, |n, _| {
                        if n.kind() == "identifier" {
                            names.push(source.text(n).to_owned());
                        }
                    });
                    for name in names {
                        let key = taint.key(*left, &name);
                        taint.names.entry(key).or_insert_with(|| t.clone());
                    }
                }
            }
            for (function, value) in returns {
                if let Some(t) = taint.of(*value, source) {
                    taint.names.entry(scoped("", function)).or_insert(t);
                }
            }
            for call in calls {
                taint.taint_parameters(*call, functions, source);
            }
            if taint.names.len() == before {
                break;
            }
        }
        taint
    }

    /// The secret a variable holds where `node` uses it: bound in the same function, or at
    /// module level.
    fn lookup(&self, node: Node<'_>, source: Src<'_>) -> Option<Tainted> {
        // Most code binds no secret, and finding a node's scope walks up the tree.
        if self.names.is_empty() {
            return None;
        }
        let name = source.text(node);
        self.names
            .get(&scoped(self.scope(node), name))
            .or_else(|| self.names.get(&scoped("", name)))
            .cloned()
    }

    /// The function whose body holds `node` (`""` at module level): names are local to it.
    /// Read from the functions' ranges, the innermost first: a node's own ancestors, without
    /// walking up a tree that keeps no parent links.
    fn scope(&self, node: Node<'_>) -> &str {
        let at = node.byte_range();
        self.scopes
            .iter()
            .filter(|(f, _)| f.start <= at.start && at.end <= f.end && *f != at)
            .max_by_key(|(f, _)| f.start)
            .map_or("", |(_, name)| name)
    }

    /// The key of a name bound at `node`: `self.x` belongs to the whole class, any other name
    /// to the function that binds it.
    fn key(&self, node: Node<'_>, name: &str) -> String {
        if name.starts_with("self.") {
            name.to_owned()
        } else {
            scoped(self.scope(node), name)
        }
    }

    /// A call of a function of this code with a secret argument taints the parameter.
    fn taint_parameters(&mut self, call: Node<'_>, functions: &[Node<'_>], source: Src<'_>) {
        let (Some(function), Some(args)) = (
            call.child_by_field_name("function"),
            call.child_by_field_name("arguments"),
        ) else {
            return;
        };
        // A method (`self.send(x)`, `harvester.send(x)`) by its name.
        let called = match function.kind() {
            "attribute" => function
                .child_by_field_name("attribute")
                .map_or("", |a| source.text(a)),
            _ => source.text(function),
        };
        let Some(def) = functions.iter().find(|f| {
            f.child_by_field_name("name")
                .is_some_and(|n| source.text(n) == called)
        }) else {
            return;
        };
        let Some(params) = def.child_by_field_name("parameters") else {
            return;
        };
        let mut cursor = params.walk();
        let params: Vec<String> = params
            .named_children(&mut cursor)
            .filter_map(|p| match p.kind() {
                "identifier" => Some(source.text(p).to_owned()),
                _ => p
                    .child_by_field_name("name")
                    .or_else(|| p.named_child(0))
                    .map(|n| source.text(n).to_owned()),
            })
            .filter(|p| p != "self")
            .collect();
        let mut cursor = args.walk();
        for (i, arg) in args.named_children(&mut cursor).enumerate() {
            let (param, value) = match arg.kind() {
                "keyword_argument" => (
                    arg.child_by_field_name("name")
                        .map(|n| source.text(n).to_owned()),
                    arg.child_by_field_name("value"),
                ),
                _ => (params.get(i).cloned(), Some(arg)),
            };
            if let (Some(param), Some(value)) = (param, value)
                && let Some(t) = self.of(value, source)
            {
                self.names.entry(scoped(called, &param)).or_insert(t);
            }
        }
    }

    /// The secret an expression carries, if any.
    fn of(&self, node: Node<'_>, source: Src<'_>) -> Option<Tainted> {
        let mut found: Option<Tainted> = None;
        super::walk(node, |n, ancestors| {
            if found
                .as_ref()
                .is_some_and(|f| matches!(f.secret, Secret::Store(_)))
            {
                return;
            }
            // An object built from a secret (`Client(config)`) holds it, but what its
            // methods return does not carry it.
            if ancestors.iter().any(|a| constructs(*a, source)) {
                return;
            }
            // `analysis_id = upload_file(path, key)`: a function of this code returns what
            // its `return` says, not the key it was given; and what a server answers
            // (`r = requests.post(u, headers={…: key})`) is not the key sent to it.
            if ancestors.iter().any(|a| {
                a.kind() == "argument_list"
                    && a.parent()
                        .and_then(|c| c.child_by_field_name("function"))
                        .is_some_and(|f| {
                            let name = source.text(f);
                            (f.kind() == "identifier" && self.local.iter().any(|l| l == name))
                                || (is_network(name) && !name.ends_with("Request"))
                        })
            }) {
                return;
            }
            let in_request_headers = ancestors.iter().any(|a| request_headers(*a, source));
            let here = match n.kind() {
                "identifier" => {
                    // The attribute name in `x.name` is not a variable.
                    let is_field = ancestors.last().is_some_and(|p| {
                        p.kind() == "attribute"
                            && p.child_by_field_name("attribute")
                                .is_some_and(|a| a.id() == n.id())
                    });
                    (!is_field).then(|| self.lookup(n, source)).flatten()
                }
                // `self.key`, bound in any method of the class.
                "attribute" if source.text(n).starts_with("self.") => {
                    self.names.get(source.text(n)).cloned()
                }
                "string_content" => path_read(source.text(n)).map(|what| Tainted {
                    secret: Secret::Store(what.to_owned()),
                    at: source.span(n),
                }),
                "attribute"
                    if source.text(n) == "os.environ"
                        && !one_variable(ancestors.last(), source) =>
                {
                    Some(Tainted {
                        secret: Secret::Store("the whole environment".to_owned()),
                        at: source.span(n),
                    })
                }
                "call" | "subscript" => env_key(n, source)
                    .map(|name| Tainted {
                        secret: Secret::Key(name),
                        at: source.span(n),
                    })
                    .or_else(|| {
                        // A function or method of this code that returns a secret
                        // (`harvest()`, `h.harvest()`).
                        let function = n
                            .child_by_field_name("function")
                            .filter(|_| n.kind() == "call")?;
                        let name = match function.kind() {
                            "identifier" => function,
                            "attribute" => function.child_by_field_name("attribute")?,
                            _ => return None,
                        };
                        self.names.get(&scoped("", source.text(name))).cloned()
                    }),
                _ => None,
            };
            // A key no service is named for, in the headers of a request object
            // (`Request(url, headers={"x-apikey": key})`), authenticates it.
            let here = here.filter(|t| {
                !(in_request_headers
                    && matches!(&t.secret, Secret::Key(name) if flow::service_of(name).is_empty()))
            });
            if let Some(here) = here
                && found.as_ref().is_none_or(|f| {
                    matches!(here.secret, Secret::Store(_)) && !matches!(f.secret, Secret::Store(_))
                })
            {
                found = Some(here);
            }
        });
        found
    }

    /// What a network call's arguments steal, and where it was read.
    fn sent(&self, args: Node<'_>, source: Src<'_>) -> Option<(String, Range<usize>)> {
        let mut host = None;
        let mut hidden = false;
        let mut cursor = args.walk();
        let parts: Vec<(Place, Node<'_>)> = args
            .named_children(&mut cursor)
            .enumerate()
            .filter_map(|(i, arg)| {
                if arg.kind() == "keyword_argument" {
                    let key = arg.child_by_field_name("name").map(|n| source.text(n))?;
                    let value = arg.child_by_field_name("value")?;
                    if key == "url" {
                        host = host.take().or_else(|| self.host(value, source));
                        hidden |= self.is_decoded(value, source);
                    }
                    let place = match key {
                        "headers" | "auth" | "cookies" => Place::Auth,
                        _ => Place::Body,
                    };
                    Some((place, value))
                } else {
                    if i == 0 {
                        host = self.host(arg, source);
                        hidden = self.is_decoded(arg, source);
                    }
                    Some((Place::Body, arg))
                }
            })
            .collect();
        parts.into_iter().find_map(|(place, value)| {
            let t = self.of(value, source)?;
            let place = if place == Place::Body && header_like(value, source) {
                Place::Auth
            } else {
                place
            };
            if hidden && let Secret::Key(name) = &t.secret {
                return Some((format!("`{name}` to an address decoded at run time"), t.at));
            }
            flow::stolen(&t.secret, place, host.as_deref()).map(|what| (what, t.at))
        })
    }

    /// Whether a URL argument is decoded at run time (`base64.b64decode(…)` or a name bound
    /// to it): the address is hidden from whoever reads the skill.
    fn is_decoded(&self, node: Node<'_>, source: Src<'_>) -> bool {
        match node.kind() {
            "identifier" => self.decoded.iter().any(|d| d == source.text(node)),
            _ => calls_decoder(node, source),
        }
    }

    /// The host a URL argument names: a literal, an f-string's literal start, or a name
    /// bound to one.
    fn host(&self, node: Node<'_>, source: Src<'_>) -> Option<String> {
        if node.kind() == "identifier" {
            return self
                .urls
                .get(source.text(node))
                .and_then(|u| flow::host_of(u));
        }
        literal_url(node, source).and_then(|u| flow::host_of(&u))
    }
}

/// The ENV name an expression reads: `os.environ["X"]`, `os.getenv("X")`,
/// `os.environ.get("X")`, when the name says it is a credential.
fn env_key(node: Node<'_>, source: Src<'_>) -> Option<String> {
    let (target, key) = match node.kind() {
        "subscript" => (
            node.child_by_field_name("value")?,
            node.child_by_field_name("subscript")?,
        ),
        "call" => {
            let f = node.child_by_field_name("function")?;
            let first = node.child_by_field_name("arguments")?.named_child(0)?;
            (f, first)
        }
        _ => return None,
    };
    let target = source.text(target);
    let reads_env = matches!(
        target,
        "os.environ" | "os.getenv" | "os.environ.get" | "environ.get" | "getenv" | "environ"
    );
    let name = source.text(string_content(key)?);
    (reads_env && flow::is_secret_name(name)).then(|| name.to_owned())
}

/// Whether a node is a call of a class other than a path, request or buffer
/// (`OpenCTIConnectorHelper(config)`, `OpenAI(api_key=k)`): a client made with a secret.
fn constructs(node: Node<'_>, source: Src<'_>) -> bool {
    if node.kind() != "call" {
        return false;
    }
    let Some(function) = node.child_by_field_name("function") else {
        return false;
    };
    let name = source.text(function);
    let last = name.rsplit('.').next().unwrap_or(name);
    last.starts_with(|c: char| c.is_ascii_uppercase())
        && !matches!(
            last,
            "Path" | "PurePath" | "PosixPath" | "Request" | "StringIO" | "BytesIO"
        )
}

/// The key of a name in a scope.
fn scoped(scope: &str, name: &str) -> String {
    format!("{scope}\u{1}{name}")
}

/// Whether a string stands in a collection literal that holds regular expressions: a
/// detector's table of patterns.
fn in_pattern_table(ancestors: &[Node<'_>], source: Src<'_>) -> bool {
    ancestors
        .iter()
        .find(|a| matches!(a.kind(), "dictionary" | "list" | "set" | "tuple"))
        .is_some_and(|table| crate::skill::quoted::holds_pattern(source.text(*table)))
}

/// A credential store a string names when it is a path (`~/.aws/credentials`), not a
/// sentence that mentions one ("plant a canary in .aws/credentials").
fn path_read(text: &str) -> Option<&'static str> {
    if text.trim().contains(char::is_whitespace) {
        return None;
    }
    sensitive_path(text)
}

/// The variable a binding target names (`x`, `x[k]`, `self.x`; `obj.attr`: `obj`).
fn bound_name(node: Node<'_>, source: Src<'_>) -> Option<String> {
    match node.kind() {
        "identifier" => Some(source.text(node).to_owned()),
        "subscript" => bound_name(node.child_by_field_name("value")?, source),
        "attribute"
            if node
                .child_by_field_name("object")
                .is_some_and(|o| source.text(o) == "self") =>
        {
            Some(source.text(node).to_owned())
        }
        "attribute" => bound_name(node.child_by_field_name("object")?, source),
        "pattern_list" | "tuple_pattern" => bound_name(node.named_child(0)?, source),
        _ => None,
    }
}

/// A string literal (or an f-string's literal start) that is a URL.
fn literal_url(node: Node<'_>, source: Src<'_>) -> Option<String> {
    if node.kind() != "string" {
        return None;
    }
    let mut cursor = node.walk();
    let first = node
        .named_children(&mut cursor)
        .find(|c| c.kind() == "string_content")?;
    let text = source.text(first);
    text.contains("://").then(|| text.to_owned())
}

/// Whether a value is a dictionary of authentication headers (`{"Authorization": …}`,
/// `{"x-apikey": …}`).
fn header_like(node: Node<'_>, source: Src<'_>) -> bool {
    let lower = source.text(node).to_ascii_lowercase();
    node.kind() == "dictionary"
        && (lower.contains("authorization")
            || lower.contains("x-api-key")
            || lower.contains("x-apikey")
            || lower.contains("bearer"))
}

/// Whether a node is the `headers=` or `auth=` argument of a request object's constructor
/// (`urllib.request.Request(url, headers=hdrs)`): what it holds goes in headers, however the
/// dictionary was built.
fn request_headers(node: Node<'_>, source: Src<'_>) -> bool {
    // The name first: going up a tree-sitter tree searches down from its root.
    let is_headers = node.kind() == "keyword_argument"
        && node
            .child_by_field_name("name")
            .is_some_and(|n| matches!(source.text(n), "headers" | "auth"));
    is_headers
        && node
            .parent()
            .and_then(|args| args.parent())
            .and_then(|call| call.child_by_field_name("function"))
            .is_some_and(|f| source.text(f).rsplit('.').next() == Some("Request"))
}

/// Whether an expression fetches from the network (`requests.get(u).text`,
/// `urlopen(u).read()`).
fn fetches(node: Node<'_>, source: Src<'_>) -> bool {
    let mut found = false;
    super::walk(node, |n, _| {
        if n.kind() == "call"
            && let Some(f) = n.child_by_field_name("function")
        {
            let name = source.text(f);
            found |= is_network(name)
                || name.ends_with(".get") && NETWORK_ROOTS.iter().any(|r| name.starts_with(r))
                || matches!(name, "urlopen" | "urllib.request.urlopen");
        }
    });
    found
}

/// Whether an expression is the home or root folder.
fn is_home(text: &str) -> bool {
    let t = text.replace(' ', "");
    t.contains("Path.home()")
        || t.contains("expanduser(\"~\")")
        || t.contains("expanduser('~')")
        || t.contains("environ[\"HOME\"]")
        || t.contains("environ['HOME']")
        || t.contains("getenv(\"HOME\")")
        || t.contains("getenv('HOME')")
        || matches!(t.trim_matches(['"', '\'']), "/" | "~")
}

fn calls_decoder(node: Node<'_>, source: Src<'_>) -> bool {
    let mut found = false;
    super::walk(node, |n, _| {
        if n.kind() == "call"
            && let Some(f) = n.child_by_field_name("function")
        {
            let name = source.text(f);
            found |= DECODERS.iter().any(|d| {
                name.strip_suffix(d)
                    .is_some_and(|rest| rest.is_empty() || rest.ends_with('.'))
            });
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

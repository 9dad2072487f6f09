//! What the tree-sitter readers share: the block's source, an iterative walk with each
//! node's ancestors, static paths, calls and decorators, and string and PyPI-name helpers.

use tree_sitter::Node;

use crate::project::{Ecosystem, canonical_name};

use super::facts::{Access, ArgKind, Call, CodeFacts, Decorator, MethodCall, Span, TextRun};

/// A block's text and where it starts in the file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Source<'a> {
    pub(crate) text: &'a str,
    pub(crate) offset: usize,
}

impl<'a> Source<'a> {
    /// The node's text; empty if its range is not on character boundaries (it always is
    /// for UTF-8 input, but a bad range must not panic).
    pub(crate) fn text(&self, node: Node<'_>) -> &'a str {
        self.text.get(node.byte_range()).unwrap_or_default()
    }

    /// The node's span in file coordinates.
    pub(crate) fn span(&self, node: Node<'_>) -> Span {
        self.range(node.start_byte(), node.end_byte())
    }

    /// A block-relative byte range in file coordinates.
    pub(crate) fn range(&self, start: usize, end: usize) -> Span {
        Span {
            start: self.offset + start,
            end: self.offset + end,
        }
    }

    /// The whole block.
    pub(crate) fn whole(&self) -> Span {
        self.range(0, self.text.len())
    }
}

/// Where a visited node sits: its ancestors (nearest last) and the field it fills in its
/// parent. Carried by the walk because tree-sitter's `Node::parent` searches from the root.
pub(crate) struct Place<'a, 't> {
    ancestors: &'a [Node<'t>],
    field: Option<&'t str>,
}

impl<'t> Place<'_, 't> {
    /// The parent node, if any.
    pub(crate) fn parent(&self) -> Option<Node<'t>> {
        self.ancestors.last().copied()
    }

    /// Whether the node is the `field` child of a `kind` parent.
    pub(crate) fn is(&self, kind: &str, field: &str) -> bool {
        self.field == Some(field) && self.parent().is_some_and(|p| p.kind() == kind)
    }

    /// Ancestors, nearest first.
    pub(crate) fn ancestors(&self) -> impl Iterator<Item = Node<'t>> + '_ {
        self.ancestors.iter().rev().copied()
    }
}

/// Visits every node in document order without recursion (deeply nested input must not
/// exhaust the stack).
pub(crate) fn walk<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>, &Place<'_, 't>)) {
    let mut cursor = root.walk();
    let mut ancestors: Vec<Node<'t>> = Vec::new();
    loop {
        let node = cursor.node();
        visit(
            node,
            &Place {
                ancestors: &ancestors,
                field: cursor.field_name(),
            },
        );
        if cursor.goto_first_child() {
            ancestors.push(node);
            continue;
        }
        loop {
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

/// How a language writes a member step: node kind, field of the object, field of the name.
pub(crate) type MemberKind = (&'static str, &'static str, &'static str);

/// Longest static path kept; longer chains are generated code, not API use.
const MAX_PATH_SEGMENTS: usize = 32;

/// `a.b.c` as `["a", "b", "c"]`, following `members` down to a node of one of `roots`;
/// `None` when the chain starts elsewhere (a call result, `this`, a literal). Iterative, so
/// a pathological chain cannot exhaust the stack.
pub(crate) fn static_path(
    node: Node<'_>,
    source: Source<'_>,
    members: &[MemberKind],
    roots: &[&str],
) -> Option<Vec<String>> {
    let mut segments = Vec::new();
    let mut current = node;
    loop {
        if segments.len() > MAX_PATH_SEGMENTS {
            return None;
        }
        if roots.contains(&current.kind()) {
            segments.push(source.text(current).to_owned());
            segments.reverse();
            return Some(segments);
        }
        let (_, object, name) = members
            .iter()
            .find(|(kind, _, _)| *kind == current.kind())?;
        segments.push(source.text(current.child_by_field_name(name)?).to_owned());
        current = current.child_by_field_name(object)?;
    }
}

/// Records a decorator (its first named child) as the path it names, without arguments:
/// `@a.b(args)` is `a.b`. `call` is the grammar's call node kind.
pub(crate) fn decorator<'t>(
    node: Node<'t>,
    call: &str,
    source: Source<'_>,
    facts: &mut CodeFacts,
    path_of: impl Fn(Node<'t>) -> Option<Vec<String>>,
) {
    let Some(mut expression) = node.named_child(0) else {
        return;
    };
    if expression.kind() == call {
        let Some(function) = expression.child_by_field_name("function") else {
            return;
        };
        expression = function;
    }
    if let Some(path) = path_of(expression) {
        facts.decorators.push(Decorator {
            path,
            span: source.span(expression),
        });
    }
}

/// Records a static path (root first) as an access spanning `span`.
pub(crate) fn push_access(facts: &mut CodeFacts, mut path: Vec<String>, call: bool, span: Span) {
    if path.is_empty() {
        return;
    }
    let root = path.remove(0);
    facts.accesses.push(Access {
        root,
        path,
        call,
        span,
    });
}

/// How a grammar spells a member access (`a.b`): the node kind and its field names.
pub(crate) struct Member {
    /// Node kind, e.g. `attribute` (Python) or `selector_expression` (Go).
    pub kind: &'static str,
    /// Field holding the member's name.
    pub name: &'static str,
    /// Field holding the receiver.
    pub receiver: &'static str,
}

/// A call of a plain name is an access; a call of a member is also a method call.
pub(crate) fn call(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts, member: Member) {
    let Some(function) = node.child_by_field_name("function") else {
        return;
    };
    if function.kind() == "identifier" {
        facts.accesses.push(Access {
            root: source.text(function).to_owned(),
            path: Vec::new(),
            call: true,
            span: source.span(function),
        });
    } else if function.kind() == member.kind
        && let Some(name) = function.child_by_field_name(member.name)
    {
        facts.method_calls.push(MethodCall {
            name: source.text(name).to_owned(),
            receiver: plain_receiver(function, member.receiver, source),
            span: source.span(function),
        });
    }
}

/// How a grammar spells what a call's shape is read from.
pub(crate) struct CallSyntax {
    /// Node kind of an `await` expression.
    pub await_kind: &'static str,
    /// Node kind of a keyword argument (`x=1`), whose `name` field is the keyword; empty
    /// when the language has none.
    pub keyword: &'static str,
    /// Argument node kinds that say what the argument is.
    pub kinds: &'static [(&'static str, ArgKind)],
    /// Parent node kind and field in which a call's result is used as it is (a member read
    /// on it, an assignment of it).
    pub reads: &'static [(&'static str, &'static str)],
}

/// Records the shape of `node`, a call whose callee is its `function` child: the argument
/// count, the first positional argument's kind, the keywords and whether it is awaited.
pub(crate) fn call_shape(
    node: Node<'_>,
    place: &Place<'_, '_>,
    source: Source<'_>,
    facts: &mut CodeFacts,
    syntax: &CallSyntax,
) {
    let Some(callee) = node.child_by_field_name("function") else {
        return;
    };
    let mut args = 0;
    let mut first = None;
    let mut keywords = Vec::new();
    if let Some(list) = node.child_by_field_name("arguments") {
        let mut cursor = list.walk();
        for arg in list.named_children(&mut cursor) {
            if arg.kind() == "comment" {
                continue;
            }
            args += 1;
            if !syntax.keyword.is_empty() && arg.kind() == syntax.keyword {
                if let Some(name) = arg.child_by_field_name("name") {
                    keywords.push(source.text(name).to_owned());
                }
            } else if first.is_none() {
                let kind = syntax
                    .kinds
                    .iter()
                    .find(|(k, _)| *k == arg.kind())
                    .map_or(ArgKind::Other, |(_, kind)| *kind);
                first = Some(kind);
            }
        }
    }
    let awaited = place
        .parent()
        .is_some_and(|p| p.kind() == syntax.await_kind);
    let read_directly = syntax
        .reads
        .iter()
        .any(|(kind, field)| place.is(kind, field));
    facts.calls.push(Call {
        callee: source.span(callee),
        args,
        first,
        keywords,
        awaited,
        read_directly,
    });
}

/// The `field` child of a callee when it is a plain identifier: the receiver's name.
pub(crate) fn plain_receiver(callee: Node<'_>, field: &str, source: Source<'_>) -> Option<String> {
    let receiver = callee.child_by_field_name(field)?;
    (receiver.kind() == "identifier").then(|| source.text(receiver).to_owned())
}

/// A quoted string's contents: strips one pair of matching quotes.
pub(crate) fn unquote(text: &str) -> &str {
    for quote in ["\"\"\"", "'''", "\"", "'", "`"] {
        let inner = text.strip_prefix(quote).and_then(|t| t.strip_suffix(quote));
        if let Some(inner) = inner.filter(|_| text.len() >= 2 * quote.len()) {
            return inner;
        }
    }
    text
}

/// A PyPI project name: letters, digits, `-`, `_`, `.`, starting with a letter or digit.
pub(crate) fn pypi_name(name: &str) -> Option<&str> {
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    valid.then_some(name)
}

/// A quoted string's contents as text for `text` patterns, spanning the contents only, so
/// match offsets land on the right bytes.
pub(crate) fn string_text(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let raw = source.text(node);
    let text = unquote(raw);
    let quote = (raw.len() - text.len()) / 2;
    let span = source.range(node.start_byte() + quote, node.end_byte() - quote);
    facts.texts.push(TextRun {
        text: text.to_owned(),
        span,
    });
}

/// A PEP 508 requirement's normalised name and version specifier; extras, markers and
/// direct references (`name @ url`) are dropped. `None` when the name is not a valid one.
pub(crate) fn pep508(spec: &str) -> Option<(String, Option<String>)> {
    let spec = spec.split(';').next().unwrap_or_default().trim();
    let split = spec
        .find(['=', '<', '>', '!', '~', '[', '@', ' ', '('])
        .unwrap_or(spec.len());
    let (name, mut rest) = spec.split_at(split);
    pypi_name(name)?;
    if rest.starts_with('[') {
        rest = rest.split_once(']').map_or("", |(_, after)| after);
    }
    let rest = rest
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    let constraint = (!rest.is_empty() && !rest.starts_with('@')).then(|| rest.to_owned());
    Some((canonical_name(Ecosystem::Pypi, name), constraint))
}

//! Python: imports, attribute paths, calls, decorators, string contents.

use tree_sitter::Node;

use super::facts::{
    ArgKind, Binding, Class, CodeFacts, Import, ImportedName, Span, Syntax, SyntaxUse, TextRun,
};
use super::syntax::{CallSyntax, Place, Source, walk};

const CALLS: CallSyntax = CallSyntax {
    await_kind: "await",
    keyword: "keyword_argument",
    kinds: &[
        ("list", ArgKind::List),
        ("list_comprehension", ArgKind::List),
        ("dictionary", ArgKind::Dict),
        ("dictionary_comprehension", ArgKind::Dict),
        ("string", ArgKind::String),
        ("concatenated_string", ArgKind::String),
        ("integer", ArgKind::Number),
        ("float", ArgKind::Number),
        ("lambda", ArgKind::Function),
    ],
    reads: &[
        ("attribute", "object"),
        ("assignment", "right"),
        ("subscript", "value"),
    ],
};

/// Collects the facts of a Python tree.
pub(super) fn read(root: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    walk(root, |node, place| {
        if let Some((feature, at)) = language_level(node) {
            facts.syntax.push(SyntaxUse {
                feature,
                span: source.span(at),
            });
        }
        read_node(node, place, source, facts);
    });
}

/// Collects the facts of one node.
fn read_node<'t>(node: Node<'t>, place: &Place<'_, 't>, source: Source<'_>, facts: &mut CodeFacts) {
    match node.kind() {
        "import_statement" => import(node, source, facts),
        "import_from_statement" => import_from(node, source, facts),
        "attribute" if !place.is("attribute", "object") => {
            let call = place.is("call", "function");
            if let Some(path) = static_path(node, source) {
                super::syntax::push_access(facts, path, call, source.span(node));
            }
        }
        "call" => {
            super::syntax::call(
                node,
                source,
                facts,
                super::syntax::Member {
                    kind: "attribute",
                    name: "attribute",
                    receiver: "object",
                },
            );
            super::syntax::call_shape(node, place, source, facts, &CALLS);
        }
        "class_definition" => class(node, source, facts),
        "decorator" => decorator(node, source, facts),
        "assignment" => collection(node, source, facts),
        "string_content" => {
            facts.texts.push(TextRun {
                text: source.text(node).to_owned(),
                span: source.span(node),
            });
        }
        _ => {}
    }
}

/// The syntax feature a node is, if a Python release after 3.7 introduced it, with the
/// node (keyword or operator) a finding points at. Only node kinds decide: `match` or
/// `type` as a name (`match = re.match(...)`) is an ordinary assignment.
fn language_level(node: Node<'_>) -> Option<(Syntax, Node<'_>)> {
    let first = || node.child(0).unwrap_or(node);
    match node.kind() {
        "named_expression" => Some((Syntax::PythonWalrus, child_of_kind(node, ":=")?)),
        "positional_separator" => Some((Syntax::PythonPositionalOnly, node)),
        "match_statement" => Some((Syntax::PythonMatch, first())),
        "except_clause" => child_of_kind(node, "*").map(|at| (Syntax::PythonExceptStar, at)),
        "type_alias_statement" => Some((Syntax::PythonTypeAlias, first())),
        "function_definition" | "class_definition" => node
            .child_by_field_name("type_parameters")
            .map(|at| (Syntax::PythonTypeParameters, at)),
        "with_clause" if first().kind() == "(" => {
            // `with (open(p)) as f:` was valid before 3.10; several items, or an `as`
            // inside the parentheses, were not.
            let mut cursor = node.walk();
            let items: Vec<Node<'_>> = node
                .named_children(&mut cursor)
                .filter(|c| c.kind() == "with_item")
                .collect();
            let aliased = items.iter().any(|item| {
                item.child_by_field_name("value")
                    .is_some_and(|v| v.kind() == "as_pattern")
            });
            (items.len() > 1 || aliased).then_some((Syntax::PythonParenthesizedWith, first()))
        }
        _ => None,
    }
}

/// The first child of `node` of `kind`, named or not (`:=`, `*`).
fn child_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .find(|child| child.kind() == kind)
}

/// `import a.b`, `import numpy as np`: binds the first segment, or the alias.
fn import(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let mut cursor = node.walk();
    for name in node.children_by_field_name("name", &mut cursor) {
        let (module, alias) = dotted_and_alias(name, source);
        let binding = match alias {
            Some(alias) => Binding {
                local: alias,
                module: module.clone(),
                name: String::new(),
            },
            None => {
                let first = module.split('.').next().unwrap_or_default().to_owned();
                Binding {
                    local: first.clone(),
                    module: first,
                    name: String::new(),
                }
            }
        };
        facts.bindings.push(binding);
        let span = source.span(node);
        facts.imports.push(Import {
            module,
            names: Vec::new(),
            wildcard: false,
            span,
        });
    }
}

/// `from a.b import c as d, e` and `from m import *`.
fn import_from(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let Some(module) = node.child_by_field_name("module_name") else {
        return;
    };
    let module = source.text(module).to_owned();
    let mut names = Vec::new();
    let mut cursor = node.walk();
    for name in node.children_by_field_name("name", &mut cursor) {
        let (name, alias) = dotted_and_alias(name, source);
        let local = alias.clone().unwrap_or_else(|| name.clone());
        facts.bindings.push(Binding {
            local,
            module: module.clone(),
            name: name.clone(),
        });
        names.push(ImportedName { name, alias });
    }
    let mut cursor = node.walk();
    let wildcard = node
        .children(&mut cursor)
        .any(|child| child.kind() == "wildcard_import");
    facts.imports.push(Import {
        module,
        names,
        wildcard,
        span: source.span(node),
    });
}

/// A `dotted_name` or an `aliased_import`'s name and alias.
fn dotted_and_alias(node: Node<'_>, source: Source<'_>) -> (String, Option<String>) {
    if node.kind() == "aliased_import" {
        let name = node
            .child_by_field_name("name")
            .map(|n| source.text(n))
            .unwrap_or_default();
        let alias = node
            .child_by_field_name("alias")
            .map(|n| source.text(n).to_owned());
        (name.to_owned(), alias)
    } else {
        (source.text(node).to_owned(), None)
    }
}

/// `rows = []`, `seen: set[str] = set()`, `xs = [x for x in y]`: the name holds a
/// built-in collection.
fn collection(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let name = node
        .child_by_field_name("left")
        .filter(|n| n.kind() == "identifier");
    let Some((name, value)) = name.zip(node.child_by_field_name("right")) else {
        return;
    };
    let literal = matches!(
        value.kind(),
        "list"
            | "dictionary"
            | "set"
            | "list_comprehension"
            | "dictionary_comprehension"
            | "set_comprehension"
    );
    let constructor = value.kind() == "call"
        && value
            .child_by_field_name("function")
            .is_some_and(|f| matches!(source.text(f), "list" | "dict" | "set"));
    if literal || constructor {
        facts.collections.push(source.text(name).to_owned());
    }
}

/// `class A(Base, m.Other):` with the names its body defines, nested classes dotted.
fn class(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let mut bases = Vec::new();
    if let Some(list) = node.child_by_field_name("superclasses") {
        let mut cursor = list.walk();
        bases.extend(
            list.named_children(&mut cursor)
                .filter_map(|base| static_path(base, source)),
        );
    }
    let mut members = Vec::new();
    class_members(node, "", source, &mut members, 0);
    facts.classes.push(Class { bases, members });
}

/// Deepest class nesting whose members are recorded (`Config` inside a model is one).
const MAX_CLASS_DEPTH: usize = 4;

/// Names defined directly in a class body: assignments, annotated names, methods and nested
/// classes, whose own members follow under `prefix.Name`.
fn class_members(
    class: Node<'_>,
    prefix: &str,
    source: Source<'_>,
    members: &mut Vec<(String, Span)>,
    depth: usize,
) {
    let Some(body) = class.child_by_field_name("body") else {
        return;
    };
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor) {
        let statement = if statement.kind() == "decorated_definition" {
            match statement.child_by_field_name("definition") {
                Some(definition) => definition,
                None => continue,
            }
        } else {
            statement
        };
        let name = match statement.kind() {
            "class_definition" | "function_definition" => statement.child_by_field_name("name"),
            "expression_statement" => statement
                .named_child(0)
                .filter(|e| e.kind() == "assignment")
                .and_then(|a| a.child_by_field_name("left"))
                .filter(|left| left.kind() == "identifier"),
            _ => None,
        };
        let Some(name) = name else { continue };
        let dotted = if prefix.is_empty() {
            source.text(name).to_owned()
        } else {
            format!("{prefix}.{}", source.text(name))
        };
        if statement.kind() == "class_definition" && depth < MAX_CLASS_DEPTH {
            class_members(statement, &dotted, source, members, depth + 1);
        }
        members.push((dotted, source.span(name)));
    }
}

/// `@name`, `@a.b`, `@a.b(args)`.
fn decorator(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    super::syntax::decorator(node, "call", source, facts, |e| static_path(e, source));
}

/// `a.b.c` as `["a", "b", "c"]`.
fn static_path(node: Node<'_>, source: Source<'_>) -> Option<Vec<String>> {
    super::syntax::static_path(
        node,
        source,
        &[("attribute", "object", "attribute")],
        &["identifier"],
    )
}

#[cfg(test)]
mod tests {
    use super::super::tests::{facts, spanned};
    use crate::skill::code::Syntax;

    /// Each feature newer than Python 3.7, with the text its span covers.
    fn features(text: &str) -> Vec<(&'static str, &str)> {
        facts("python", text)
            .syntax
            .iter()
            .map(|used| (used.feature.name(), spanned(text, used.span)))
            .collect()
    }

    #[test]
    fn syntax_newer_than_python_37() {
        let text = "if (n := len(a)) > 1:\n    pass\n\
            def f(a, /, b):\n    pass\n\
            match command:\n    case \"go\":\n        pass\n\
            with (open(a) as f, open(b) as g):\n    pass\n\
            try:\n    pass\nexcept* ValueError:\n    pass\n\
            type Point = tuple[float, float]\n\
            def first[T](xs: list[T]) -> T:\n    return xs[0]\n\
            class Box[T]:\n    pass\n";
        assert_eq!(
            features(text),
            [
                ("python:walrus", ":="),
                ("python:positional-only", "/"),
                ("python:match", "match"),
                ("python:parenthesized-with", "("),
                ("python:except-star", "*"),
                ("python:type-alias", "type"),
                ("python:type-parameters", "[T]"),
                ("python:type-parameters", "[T]"),
            ]
        );
        assert_eq!(Syntax::from_name("python:match"), Some(Syntax::PythonMatch));
    }

    /// `match` and `type` as names, a parenthesized expression before `as`, and generic
    /// annotations are Python 3.7 code.
    #[test]
    fn older_python_is_not_newer_syntax() {
        let text = "match = re.match(r\"x\", s)\nif match:\n    print(match.group(0))\n\
            type = \"a\"\nprint(type(x))\n\
            with (open(a)) as f:\n    pass\n\
            with open(a) as f, open(b) as g:\n    pass\n\
            def g(x: list[int], *, y) -> dict[str, int]:\n    pass\n\
            try:\n    pass\nexcept (ValueError, KeyError):\n    pass\n";
        assert_eq!(features(text), []);
    }

    #[test]
    fn imports_and_aliases() {
        let text = "import numpy as np, os.path\nfrom a.b import c as d, e\nfrom m import *\n";
        let facts = facts("python", text);
        let modules: Vec<_> = facts.imports.iter().map(|i| i.module.as_str()).collect();
        assert_eq!(modules, ["numpy", "os.path", "a.b", "m"]);
        assert_eq!(facts.imports[2].names[0].name, "c");
        assert_eq!(facts.imports[2].names[0].alias.as_deref(), Some("d"));
        assert!(facts.imports[3].wildcard);
        assert_eq!(facts.resolve("np", &[]).as_deref(), Some("numpy"));
        assert_eq!(
            facts.resolve("os", &["path".into()]).as_deref(),
            Some("os.path")
        );
        assert_eq!(facts.resolve("d", &[]).as_deref(), Some("a.b.c"));
        assert_eq!(facts.resolve("e", &[]).as_deref(), Some("a.b.e"));
        assert_eq!(facts.resolve("unbound", &[]), None);
        assert_eq!(
            spanned(text, facts.imports[2].span),
            "from a.b import c as d, e"
        );
    }

    #[test]
    fn member_paths_calls_and_methods() {
        let text = "import pandas as pd\ndf = pd.DataFrame.append(x)\ndf.append(y)\nv = np.float\n";
        let facts = facts("py", text);
        let paths: Vec<_> = facts
            .accesses
            .iter()
            .map(|a| {
                (
                    a.root.as_str(),
                    a.path.join("."),
                    a.call,
                    spanned(text, a.span),
                )
            })
            .collect();
        assert!(paths.contains(&("pd", "DataFrame.append".into(), true, "pd.DataFrame.append")));
        assert!(paths.contains(&("np", "float".into(), false, "np.float")));
        // `pd.DataFrame` is part of the longer path, not a separate access.
        assert!(!paths.iter().any(|p| p.1 == "DataFrame"));
        let methods: Vec<_> = facts.method_calls.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(methods, ["append", "append"]);
    }

    #[test]
    fn collections_and_receivers() {
        let text = "rows = []\nseen: set[str] = set()\nsquares = [x * x for x in xs]\ndf = load()\nrows.append(1)\n";
        let facts = facts("python", text);
        assert_eq!(facts.collections, ["rows", "seen", "squares"]);
        assert_eq!(facts.method_calls[0].receiver.as_deref(), Some("rows"));
    }

    #[test]
    fn decorators_without_arguments() {
        let text =
            "@validator(\"x\")\ndef f(): pass\n\n@app.route(\"/\")\n@staticmethod\ndef g(): pass\n";
        let facts = facts("python", text);
        let decorators: Vec<_> = facts.decorators.iter().map(|d| d.path.join(".")).collect();
        assert_eq!(decorators, ["validator", "app.route", "staticmethod"]);
        assert_eq!(spanned(text, facts.decorators[1].span), "app.route");
    }

    #[test]
    fn string_contents_are_text() {
        let facts = facts("python", "print(\"::set-output name=x\")\n");
        assert_eq!(facts.texts.len(), 1);
        assert_eq!(facts.texts[0].text, "::set-output name=x");
    }
}

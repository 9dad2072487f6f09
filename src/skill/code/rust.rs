//! Rust: `use` trees, `extern crate`, paths, calls, attributes, string contents.

use tree_sitter::Node;

use super::facts::{Binding, CodeFacts, Decorator, Import, ImportedName, TextRun};
use super::syntax::{MemberKind, Place, Source, walk};

const MEMBERS: &[MemberKind] = &[("scoped_identifier", "path", "name")];
const ROOTS: &[&str] = &["identifier", "crate", "self", "super"];

/// Collects the facts of a Rust tree.
pub(super) fn read(root: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    walk(root, |node, place| match node.kind() {
        "use_declaration" => {
            if let Some(argument) = node.child_by_field_name("argument") {
                use_tree(argument, "", source.span(node), source, facts, 0);
            }
        }
        "extern_crate_declaration" => extern_crate(node, source, facts),
        "scoped_identifier" if is_expression_path(place) => {
            let call = place.is("call_expression", "function");
            if let Some(path) = super::syntax::static_path(node, source, MEMBERS, ROOTS) {
                super::syntax::push_access(facts, path, call, source.span(node));
            }
        }
        "call_expression" => super::syntax::call(
            node,
            source,
            facts,
            super::syntax::Member {
                kind: "field_expression",
                name: "field",
                receiver: "value",
            },
        ),
        "attribute" => {
            let name = node.named_child(0);
            if let Some(path) =
                name.and_then(|n| super::syntax::static_path(n, source, MEMBERS, ROOTS))
            {
                let span = name.map_or_else(|| source.span(node), |n| source.span(n));
                facts.decorators.push(Decorator { path, span });
            }
        }
        "string_content" => {
            facts.texts.push(TextRun {
                text: source.text(node).to_owned(),
                span: source.span(node),
            });
        }
        _ => {}
    });
}

/// A path used as an expression: not the prefix of a longer path and not inside a `use`
/// or an attribute, which are read on their own.
fn is_expression_path(place: &Place<'_, '_>) -> bool {
    if place.is("scoped_identifier", "path") {
        return false;
    }
    for ancestor in place.ancestors() {
        match ancestor.kind() {
            "use_declaration" | "attribute" => return false,
            "block" | "function_item" | "source_file" => return true,
            _ => {}
        }
    }
    true
}

/// Deepest `use` nesting read; real code nests two or three levels.
const MAX_USE_DEPTH: usize = 16;

/// Expands one `use` tree under `prefix` into imports and bindings.
fn use_tree(
    node: Node<'_>,
    prefix: &str,
    span: super::facts::Span,
    source: Source<'_>,
    facts: &mut CodeFacts,
    depth: usize,
) {
    if depth > MAX_USE_DEPTH {
        return;
    }
    match node.kind() {
        "scoped_use_list" => {
            let path = node
                .child_by_field_name("path")
                .map(|p| source.text(p))
                .unwrap_or_default();
            let prefix = join(prefix, path);
            if let Some(list) = node.child_by_field_name("list") {
                use_tree(list, &prefix, span, source, facts, depth + 1);
            }
        }
        "use_list" => {
            let mut cursor = node.walk();
            for item in node.named_children(&mut cursor) {
                use_tree(item, prefix, span, source, facts, depth + 1);
            }
        }
        "use_as_clause" => {
            let path = node
                .child_by_field_name("path")
                .map(|p| source.text(p))
                .unwrap_or_default();
            let alias = node
                .child_by_field_name("alias")
                .map(|a| source.text(a).to_owned());
            used(&join(prefix, path), alias, span, facts);
        }
        "use_wildcard" => {
            let path = source
                .text(node)
                .trim_end_matches('*')
                .trim_end_matches("::");
            let module = join(prefix, path);
            facts.imports.push(Import {
                module,
                names: Vec::new(),
                wildcard: true,
                span,
            });
        }
        "self" => used(prefix, None, span, facts),
        _ => used(&join(prefix, source.text(node)), None, span, facts),
    }
}

/// One used path `a::b::c`: an import of `c` from `a::b`, bound to `c` or its alias.
fn used(full: &str, alias: Option<String>, span: super::facts::Span, facts: &mut CodeFacts) {
    let (module, name) = full.rsplit_once("::").unwrap_or(("", full));
    let local = alias.clone().unwrap_or_else(|| name.to_owned());
    if module.is_empty() {
        // `use serde;` binds the crate itself.
        facts.record_module_import(name.to_owned(), Some(local), span);
        return;
    }
    facts.bindings.push(Binding {
        local,
        module: module.to_owned(),
        name: name.to_owned(),
    });
    let names = vec![ImportedName {
        name: name.to_owned(),
        alias,
    }];
    facts.imports.push(Import {
        module: module.to_owned(),
        names,
        wildcard: false,
        span,
    });
}

/// `extern crate serde;`, `extern crate serde as s;`.
fn extern_crate(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let Some(name) = node.child_by_field_name("name") else {
        return;
    };
    let module = source.text(name).to_owned();
    let local = node
        .child_by_field_name("alias")
        .map_or_else(|| module.clone(), |a| source.text(a).to_owned());
    facts.record_module_import(module, Some(local), source.span(node));
}

fn join(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_owned(),
        (_, true) => prefix.to_owned(),
        _ => format!("{prefix}::{path}"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{facts, spanned};

    const TEXT: &str = "use a::b::{c, d as e, f::{self, g}};\nuse std::io;\nuse x::*;\nextern crate serde;\n\
        #[tokio::main]\n#[derive(Debug)]\nasync fn main() { tokio::spawn(x); c(); y.m(); io::stdin(); let s = \"str\"; }\n";

    #[test]
    fn use_trees_and_extern_crate() {
        let facts = facts("rust", TEXT);
        let imports: Vec<_> = facts
            .imports
            .iter()
            .map(|i| {
                let names: Vec<_> = i.names.iter().map(|n| n.name.as_str()).collect();
                (i.module.as_str(), names.join(","), i.wildcard)
            })
            .collect();
        let expected = [
            ("a::b", "c".to_owned(), false),
            ("a::b", "d".to_owned(), false),
            ("a::b", "f".to_owned(), false),
            ("a::b::f", "g".to_owned(), false),
            ("std", "io".to_owned(), false),
            ("x", String::new(), true),
            ("serde", String::new(), false),
        ];
        assert_eq!(imports, expected);
        assert_eq!(facts.resolve("e", &[]).as_deref(), Some("a.b.d"));
        assert_eq!(
            facts.resolve("io", &["stdin".into()]).as_deref(),
            Some("std.io.stdin")
        );
        // Crate paths resolve to themselves.
        assert_eq!(
            facts.resolve("tokio", &["spawn".into()]).as_deref(),
            Some("tokio.spawn")
        );
    }

    #[test]
    fn attributes_paths_and_calls() {
        let facts = facts("rs", TEXT);
        let attributes: Vec<_> = facts.decorators.iter().map(|d| d.path.join("::")).collect();
        assert_eq!(attributes, ["tokio::main", "derive"]);
        let accesses: Vec<_> = facts
            .accesses
            .iter()
            .map(|a| spanned(TEXT, a.span))
            .collect();
        assert!(accesses.contains(&"tokio::spawn"));
        assert!(accesses.contains(&"io::stdin"));
        assert!(accesses.contains(&"c"));
        assert!(!accesses.iter().any(|a| a.starts_with("a::b")));
        assert!(facts.method_calls.iter().any(|m| m.name == "m"));
    }
}

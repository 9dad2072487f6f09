//! PHP: `use` declarations (grouped and aliased), function, static and member calls,
//! `new`, `extends`, attributes, string contents. Namespaces are written with `.`
//! (`Illuminate\Support\Str` is module `Illuminate.Support`, name `Str`).

use tree_sitter::Node;

use super::facts::{
    Binding, CodeFacts, Decorator, Import, ImportedName, MethodCall, Span, TextRun,
};
use super::syntax::{Source, walk};

/// Collects the facts of a PHP tree.
pub(super) fn read(root: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    walk(root, |node, _| match node.kind() {
        "namespace_use_declaration" => use_declaration(node, source, facts),
        "function_call_expression" => function_call(node, source, facts),
        "scoped_call_expression" => static_call(node, source, facts),
        "member_call_expression" | "nullsafe_member_call_expression" => {
            member_call(node, source, facts);
        }
        "class_constant_access_expression" => {
            if let Some(scope) = node.named_child(0).and_then(|n| name_path(n, source)) {
                let mut path = scope;
                if let Some(constant) = node.named_child(1) {
                    path.push(source.text(constant).to_owned());
                }
                super::syntax::push_access(facts, path, false, source.span(node));
            }
        }
        "object_creation_expression" => {
            if let Some(class) = node.named_child(0)
                && let Some(path) = name_path(class, source)
            {
                super::syntax::push_access(facts, path, true, source.span(class));
            }
        }
        "base_clause" | "class_interface_clause" => {
            let mut cursor = node.walk();
            for parent in node.named_children(&mut cursor) {
                if let Some(path) = name_path(parent, source) {
                    super::syntax::push_access(facts, path, false, source.span(parent));
                }
            }
        }
        "attribute" => {
            if let Some(name) = node.named_child(0)
                && let Some(path) = name_path(name, source)
            {
                facts.decorators.push(Decorator {
                    path,
                    span: source.span(name),
                });
            }
        }
        "string_content" | "string_value" | "nowdoc_string" => {
            facts.texts.push(TextRun {
                text: source.text(node).to_owned(),
                span: source.span(node),
            });
        }
        _ => {}
    });
}

/// A `name` or `qualified_name` as its segments (`\A\B` -> `["A", "B"]`); `None` for a
/// dynamic scope (`$class::x()`), `static`, `self` or `parent`.
fn name_path(node: Node<'_>, source: Source<'_>) -> Option<Vec<String>> {
    if !matches!(node.kind(), "name" | "qualified_name") {
        return None;
    }
    let segments: Vec<String> = segments(source.text(node));
    (!segments.is_empty()).then_some(segments)
}

/// `\A\B\C` as `["A", "B", "C"]`.
fn segments(text: &str) -> Vec<String> {
    text.split('\\')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// `use A\B\C;`, `use A\B\C as D;`, `use A\{B, C as D};`, `use function A\f;`.
fn use_declaration(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
    let prefix: Vec<String> = children
        .iter()
        .find(|c| c.kind() == "namespace_name")
        .map(|n| segments(source.text(*n)))
        .unwrap_or_default();
    let span = source.span(node);
    for child in &children {
        match child.kind() {
            "namespace_use_clause" => use_clause(*child, &prefix, span, source, facts),
            "namespace_use_group" => {
                let mut inner = child.walk();
                for clause in child.named_children(&mut inner) {
                    if clause.kind() == "namespace_use_clause" {
                        use_clause(clause, &prefix, span, source, facts);
                    }
                }
            }
            _ => {}
        }
    }
}

/// One imported class, function or namespace, bound to its last segment or its alias.
fn use_clause(
    node: Node<'_>,
    prefix: &[String],
    span: Span,
    source: Source<'_>,
    facts: &mut CodeFacts,
) {
    let Some(target) = node
        .named_child(0)
        .filter(|n| matches!(n.kind(), "name" | "qualified_name"))
    else {
        return;
    };
    let mut path = prefix.to_vec();
    path.extend(segments(source.text(target)));
    let Some(name) = path.pop() else { return };
    let alias = node
        .child_by_field_name("alias")
        .map(|a| source.text(a).to_owned());
    let module = path.join(".");
    facts.bindings.push(Binding {
        local: alias.clone().unwrap_or_else(|| name.clone()),
        module: module.clone(),
        name: name.clone(),
    });
    facts.imports.push(Import {
        module,
        names: vec![ImportedName { name, alias }],
        wildcard: false,
        span,
    });
}

/// `str_slug($x)` and `\App\helper()`: an access, and a call by name, since Composer loads
/// helper files for every package without a `use`.
fn function_call(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let Some(function) = node.child_by_field_name("function") else {
        return;
    };
    let Some(path) = name_path(function, source) else {
        return;
    };
    let span = source.span(function);
    if let Some(name) = path.last() {
        facts.method_calls.push(MethodCall {
            name: name.clone(),
            receiver: None,
            span,
        });
    }
    super::syntax::push_access(facts, path, true, span);
}

/// `Input::get('a')`: a static path and a method call on the class.
fn static_call(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let (Some(scope), Some(name)) = (
        node.child_by_field_name("scope"),
        node.child_by_field_name("name"),
    ) else {
        return;
    };
    let method = source.text(name).to_owned();
    let span = Span {
        start: source.span(scope).start,
        end: source.span(name).end,
    };
    let class = name_path(scope, source);
    facts.method_calls.push(MethodCall {
        name: method.clone(),
        receiver: class.as_ref().and_then(|c| c.last().cloned()),
        span,
    });
    if let Some(mut path) = class {
        path.push(method);
        super::syntax::push_access(facts, path, true, span);
    }
}

/// `$model->update(...)`: a method call whose receiver is the variable's name.
fn member_call(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let (Some(object), Some(name)) = (
        node.child_by_field_name("object"),
        node.child_by_field_name("name"),
    ) else {
        return;
    };
    let receiver = (object.kind() == "variable_name")
        .then(|| source.text(object).trim_start_matches('$').to_owned());
    facts.method_calls.push(MethodCall {
        name: source.text(name).to_owned(),
        receiver,
        span: Span {
            start: source.span(object).start,
            end: source.span(name).end,
        },
    });
}

#[cfg(test)]
mod tests {
    use super::super::facts::Access;
    use super::super::tests::{facts, spanned};

    /// An access as one dotted path, to compare.
    fn access_text(access: &Access) -> String {
        std::iter::once(access.root.as_str())
            .chain(access.path.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(".")
    }

    const TEXT: &str = "<?php\nuse Illuminate\\Support\\Facades\\Input;\nuse Foo\\{Bar, Baz as Q};\n\
        $x = Input::get('a');\n$s = str_slug($t);\n\\Illuminate\\Support\\Str::slug('b');\n\
        $m->update(['a' => 1]);\nclass U extends Model { }\n#[Route('/x')]\nfunction f() { return new Q(); }\n";

    #[test]
    fn uses_bind_their_last_segment_or_alias() {
        let facts = facts("php", TEXT);
        let imports: Vec<_> = facts
            .imports
            .iter()
            .map(|i| (i.module.as_str(), i.names[0].name.as_str()))
            .collect();
        assert_eq!(
            imports,
            [
                ("Illuminate.Support.Facades", "Input"),
                ("Foo", "Bar"),
                ("Foo", "Baz")
            ]
        );
        assert_eq!(
            facts.resolve("Input", &["get".into()]).as_deref(),
            Some("Illuminate.Support.Facades.Input.get")
        );
        assert_eq!(facts.resolve("Q", &[]).as_deref(), Some("Foo.Baz"));
    }

    #[test]
    fn calls_paths_and_attributes() {
        let facts = facts("php", TEXT);
        let accesses: Vec<_> = facts
            .accesses
            .iter()
            .map(|a| (access_text(a), spanned(TEXT, a.span), a.call))
            .collect();
        assert!(accesses.contains(&("Input.get".into(), "Input::get", true)));
        assert!(accesses.contains(&("str_slug".into(), "str_slug", true)));
        assert!(accesses.contains(&(
            "Illuminate.Support.Str.slug".into(),
            "\\Illuminate\\Support\\Str::slug",
            true
        )));
        assert!(accesses.contains(&("Model".into(), "Model", false)));
        assert!(accesses.contains(&("Q".into(), "Q", true)));
        let calls: Vec<_> = facts
            .method_calls
            .iter()
            .map(|m| (m.name.as_str(), m.receiver.as_deref()))
            .collect();
        assert!(calls.contains(&("str_slug", None)));
        assert!(calls.contains(&("update", Some("m"))));
        assert!(calls.contains(&("get", Some("Input"))));
        let attributes: Vec<_> = facts.decorators.iter().map(|d| d.path.join(".")).collect();
        assert_eq!(attributes, ["Route"]);
        assert!(facts.texts.iter().any(|t| t.text == "a"));
    }

    #[test]
    fn code_without_the_tag_and_broken_code_are_read() {
        let bare = facts("php", "use A\\B;\nB::c();\n");
        assert_eq!(bare.imports.len(), 1);
        let broken = facts("php", "use A\\B;\nfunction (\nB::c(;\n");
        assert_eq!(broken.imports.len(), 1);
    }
}

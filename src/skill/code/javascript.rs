//! JavaScript, TypeScript and TSX: ES imports, `require`, dynamic `import()`, member paths,
//! calls, decorators, JSX element names, `extends`, string contents.

use tree_sitter::Node;

use super::facts::{ArgKind, Binding, Class, CodeFacts, Import, ImportedName, MethodCall, TextRun};
use super::syntax::{CallSyntax, MemberKind, Place, Source, unquote, walk};

const CALLS: CallSyntax = CallSyntax {
    await_kind: "await_expression",
    keyword: "",
    kinds: &[
        ("array", ArgKind::List),
        ("object", ArgKind::Dict),
        ("string", ArgKind::String),
        ("template_string", ArgKind::String),
        ("number", ArgKind::Number),
        ("arrow_function", ArgKind::Function),
        ("function_expression", ArgKind::Function),
        ("function", ArgKind::Function),
    ],
    reads: &[
        ("member_expression", "object"),
        ("subscript_expression", "object"),
        ("variable_declarator", "value"),
        ("assignment_expression", "right"),
    ],
};

const MEMBERS: &[MemberKind] = &[("member_expression", "object", "property")];
const ROOTS: &[&str] = &["identifier"];

/// Collects the facts of a JavaScript or TypeScript tree.
pub(super) fn read(root: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    walk(root, |node, place| match node.kind() {
        "import_statement" | "export_statement" => import(node, source, facts),
        "import_require_clause" => import_require_clause(node, source, facts),
        "call_expression" => call(node, place, source, facts),
        "class_declaration" | "class" | "abstract_class_declaration" => {
            class(node, source, facts);
        }
        "new_expression" => {
            let constructor = node.child_by_field_name("constructor");
            if let Some(constructor) = constructor.filter(|c| c.kind() == "identifier") {
                access(constructor, true, source, facts);
            }
        }
        "member_expression" if outermost(place) => {
            let call = place.is("call_expression", "function")
                || place.is("new_expression", "constructor");
            access(node, call, source, facts);
        }
        "jsx_opening_element" | "jsx_self_closing_element" => {
            if let Some(name) = node.child_by_field_name("name") {
                access(name, false, source, facts);
            }
        }
        "class_heritage" => {
            if let Some(parent) = node.named_child(0).and_then(|c| heritage_target(c)) {
                access(parent, false, source, facts);
            }
        }
        "decorator" => decorator(node, source, facts),
        "variable_declarator" => {
            collection(
                node.child_by_field_name("name"),
                node.child_by_field_name("value"),
                source,
                facts,
            );
        }
        "assignment_expression" => {
            collection(
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
                source,
                facts,
            );
        }
        "string_fragment" => {
            facts.texts.push(TextRun {
                text: source.text(node).to_owned(),
                span: source.span(node),
            });
        }
        _ => {}
    });
}

/// Member paths inside a longer path, a JSX name, a decorator or `extends` are recorded by
/// the enclosing construct, once.
fn outermost(place: &Place<'_, '_>) -> bool {
    !place.is("member_expression", "object")
        && !place.is("jsx_opening_element", "name")
        && !place.is("jsx_self_closing_element", "name")
        && place
            .parent()
            .is_none_or(|p| !matches!(p.kind(), "decorator" | "class_heritage" | "extends_clause"))
}

/// JavaScript's `class_heritage` holds the expression; TypeScript's wraps it in `extends_clause`.
fn heritage_target(node: Node<'_>) -> Option<Node<'_>> {
    if node.kind() == "extends_clause" {
        node.child_by_field_name("value")
    } else {
        Some(node)
    }
}

/// Records a static path rooted at a plain name.
fn access(node: Node<'_>, call: bool, source: Source<'_>, facts: &mut CodeFacts) {
    if let Some(path) = super::syntax::static_path(node, source, MEMBERS, ROOTS) {
        super::syntax::push_access(facts, path, call, source.span(node));
    }
}

/// `import d, {a as b} from 'm'`, `import * as ns from 'm'`, `import 'm'`,
/// `export {x} from 'm'`.
fn import(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let Some(module) = node
        .child_by_field_name("source")
        .map(|s| string_value(s, source))
    else {
        return;
    };
    let mut names = Vec::new();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "import_clause" => import_clause(child, &module, source, facts, &mut names),
            "export_clause" => specifiers(child, "export_specifier", source, &mut names),
            _ => {}
        }
    }
    let wildcard = node.kind() == "export_statement" && names.is_empty();
    facts.imports.push(Import {
        module,
        names,
        wildcard,
        span: source.span(node),
    });
}

/// The default, namespace and named parts of an import clause.
fn import_clause(
    clause: Node<'_>,
    module: &str,
    source: Source<'_>,
    facts: &mut CodeFacts,
    names: &mut Vec<ImportedName>,
) {
    let mut cursor = clause.walk();
    for part in clause.named_children(&mut cursor) {
        match part.kind() {
            // A default import stands for the module as a whole (`ReactDOM.render`).
            "identifier" => bind_module(source.text(part), module, facts),
            "namespace_import" => {
                if let Some(local) = part.named_child(0) {
                    bind_module(source.text(local), module, facts);
                }
            }
            "named_imports" => {
                let first = names.len();
                specifiers(part, "import_specifier", source, names);
                for imported in names.iter().skip(first) {
                    let local = imported
                        .alias
                        .clone()
                        .unwrap_or_else(|| imported.name.clone());
                    let (module, name) = (module.to_owned(), imported.name.clone());
                    facts.bindings.push(Binding {
                        local,
                        module,
                        name,
                    });
                }
            }
            _ => {}
        }
    }
}

/// Named specifiers (`a as b`) of an import or export clause.
fn specifiers(list: Node<'_>, kind: &str, source: Source<'_>, names: &mut Vec<ImportedName>) {
    let mut cursor = list.walk();
    for specifier in list
        .named_children(&mut cursor)
        .filter(|c| c.kind() == kind)
    {
        let Some(name) = specifier.child_by_field_name("name") else {
            continue;
        };
        let alias = specifier
            .child_by_field_name("alias")
            .map(|a| source.text(a).to_owned());
        names.push(ImportedName {
            name: unquote(source.text(name)).to_owned(),
            alias,
        });
    }
}

/// TypeScript's `import fs = require('fs')`.
fn import_require_clause(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let Some(module) = node
        .child_by_field_name("source")
        .map(|s| string_value(s, source))
    else {
        return;
    };
    if let Some(local) = node.named_child(0).filter(|n| n.kind() == "identifier") {
        bind_module(source.text(local), &module, facts);
    }
    let span = source.span(node);
    facts.imports.push(Import {
        module,
        names: Vec::new(),
        wildcard: false,
        span,
    });
}

/// `require('m')` and `import('m')` are imports; other calls are accesses or method calls.
fn call(node: Node<'_>, place: &Place<'_, '_>, source: Source<'_>, facts: &mut CodeFacts) {
    let Some(function) = node.child_by_field_name("function") else {
        return;
    };
    let is_require = function.kind() == "identifier" && source.text(function) == "require";
    if function.kind() == "import" || is_require {
        dynamic_import(node, place, source, facts);
        return;
    }
    super::syntax::call_shape(node, place, source, facts, &CALLS);
    match function.kind() {
        "identifier" => access(function, true, source, facts),
        "member_expression" => {
            if let Some(name) = function.child_by_field_name("property") {
                let name = source.text(name).to_owned();
                facts.method_calls.push(MethodCall {
                    name,
                    receiver: super::syntax::plain_receiver(function, "object", source),
                    span: source.span(function),
                });
            }
        }
        _ => {}
    }
}

/// `class A extends B { static x = 1; m() {} }`: the base and the names the body defines.
fn class(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let mut bases = Vec::new();
    let mut members = Vec::new();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "class_heritage" => {
                let mut inner = child.walk();
                bases.extend(
                    child
                        .named_children(&mut inner)
                        .filter_map(heritage_target)
                        .filter_map(|t| super::syntax::static_path(t, source, MEMBERS, ROOTS)),
                );
            }
            "class_body" => {
                let mut inner = child.walk();
                for member in child.named_children(&mut inner) {
                    let name = match member.kind() {
                        "method_definition" | "public_field_definition" => {
                            member.child_by_field_name("name")
                        }
                        "field_definition" => member.child_by_field_name("property"),
                        _ => None,
                    };
                    if let Some(name) = name {
                        members.push((source.text(name).to_owned(), source.span(name)));
                    }
                }
            }
            _ => {}
        }
    }
    facts.classes.push(Class { bases, members });
}

/// `const x = require('m')`, `const {a, b: c} = require('m')`, `await import('m')`.
fn dynamic_import(
    call: Node<'_>,
    place: &Place<'_, '_>,
    source: Source<'_>,
    facts: &mut CodeFacts,
) {
    let argument = call
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(0));
    let Some(argument) = argument.filter(|a| a.kind() == "string") else {
        return;
    };
    let module = string_value(argument, source);
    let mut names = Vec::new();
    let target = place
        .parent()
        .filter(|p| p.kind() == "variable_declarator")
        .and_then(|p| p.child_by_field_name("name"));
    match target {
        Some(local) if local.kind() == "identifier" => {
            bind_module(source.text(local), &module, facts);
        }
        Some(pattern) if pattern.kind() == "object_pattern" => {
            destructured(pattern, &module, source, facts, &mut names);
        }
        _ => {}
    }
    let span = source.span(call);
    facts.imports.push(Import {
        module,
        names,
        wildcard: false,
        span,
    });
}

/// The names taken out of a required module: `{a, b: c}`.
fn destructured(
    pattern: Node<'_>,
    module: &str,
    source: Source<'_>,
    facts: &mut CodeFacts,
    names: &mut Vec<ImportedName>,
) {
    let mut cursor = pattern.walk();
    for property in pattern.named_children(&mut cursor) {
        let (name, local) = match property.kind() {
            "shorthand_property_identifier_pattern" => {
                (source.text(property), source.text(property))
            }
            "pair_pattern" => {
                let key = property.child_by_field_name("key").map(|k| source.text(k));
                let value = property
                    .child_by_field_name("value")
                    .map(|v| source.text(v));
                let (Some(key), Some(value)) = (key, value) else {
                    continue;
                };
                (key, value)
            }
            _ => continue,
        };
        let alias = (name != local).then(|| local.to_owned());
        names.push(ImportedName {
            name: name.to_owned(),
            alias,
        });
        let binding = Binding {
            local: local.to_owned(),
            module: module.to_owned(),
            name: name.to_owned(),
        };
        facts.bindings.push(binding);
    }
}

/// `const rows = []`, `rows = {}`: the name holds a built-in collection.
fn collection(
    name: Option<Node<'_>>,
    value: Option<Node<'_>>,
    source: Source<'_>,
    facts: &mut CodeFacts,
) {
    let (Some(name), Some(value)) = (name, value) else {
        return;
    };
    if name.kind() == "identifier" && matches!(value.kind(), "array" | "object") {
        facts.collections.push(source.text(name).to_owned());
    }
}

/// `@Component(...)`, `@Input()`, `@ns.thing`.
fn decorator(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    super::syntax::decorator(node, "call_expression", source, facts, |e| {
        super::syntax::static_path(e, source, MEMBERS, ROOTS)
    });
}

fn bind_module(local: &str, module: &str, facts: &mut CodeFacts) {
    let binding = Binding {
        local: local.to_owned(),
        module: module.to_owned(),
        name: String::new(),
    };
    facts.bindings.push(binding);
}

/// A string literal's value (without quotes).
fn string_value(node: Node<'_>, source: Source<'_>) -> String {
    unquote(source.text(node)).to_owned()
}

#[cfg(test)]
mod tests {
    use super::super::tests::{facts, spanned};

    #[test]
    fn es_imports_require_and_dynamic_import() {
        let text = "import R, {a as b, c} from \"m\";\nimport * as NS from 'n';\nimport 'side';\n\
                    const x = require('r');\nconst {y, z: w} = require('r2');\nawait import('dyn');\n";
        let facts = facts("js", text);
        let modules: Vec<_> = facts.imports.iter().map(|i| i.module.as_str()).collect();
        assert_eq!(modules, ["m", "n", "side", "r", "r2", "dyn"]);
        assert_eq!(facts.imports[0].names.len(), 2);
        assert_eq!(facts.imports[0].names[0].alias.as_deref(), Some("b"));
        for (local, qualified) in [
            ("R", "m"),
            ("b", "m.a"),
            ("c", "m.c"),
            ("NS", "n"),
            ("x", "r"),
            ("y", "r2.y"),
            ("w", "r2.z"),
        ] {
            assert_eq!(
                facts.resolve(local, &[]).as_deref(),
                Some(qualified),
                "{local}"
            );
        }
        assert_eq!(spanned(text, facts.imports[3].span), "require('r')");
    }

    #[test]
    fn member_calls_jsx_and_extends() {
        let text = "import ReactDOM from 'react-dom';\nReactDOM.render(<App.Shell />, root);\n\
                    class K extends React.Component {}\nlist.push(1);\nnew Foo.Bar();\n";
        let facts = facts("jsx", text);
        let accesses: Vec<_> = facts
            .accesses
            .iter()
            .map(|a| (spanned(text, a.span), a.call))
            .collect();
        assert!(accesses.contains(&("ReactDOM.render", true)));
        assert!(accesses.contains(&("App.Shell", false)));
        assert!(accesses.contains(&("React.Component", false)));
        assert!(accesses.contains(&("Foo.Bar", true)));
        assert!(facts.method_calls.iter().any(|m| m.name == "push"));
        assert_eq!(
            facts.resolve("ReactDOM", &["render".into()]).as_deref(),
            Some("react-dom.render")
        );
    }

    #[test]
    fn typescript_and_tsx_decorators_and_require_clause() {
        let text = "import type { T } from 't';\nimport fs = require('fs');\n\
                    @Component({}) class A { @Input() x: string; }\n";
        let ts = facts("ts", text);
        let modules: Vec<_> = ts.imports.iter().map(|i| i.module.as_str()).collect();
        assert_eq!(modules, ["t", "fs"]);
        let decorators: Vec<_> = ts.decorators.iter().map(|d| d.path.join(".")).collect();
        assert_eq!(decorators, ["Component", "Input"]);
        let extends = facts(
            "ts",
            "import * as React from 'react';\nclass A extends React.Component<P> {}\n",
        );
        assert!(
            extends
                .accesses
                .iter()
                .any(|a| a.root == "React" && a.path == ["Component"])
        );
        let tsx = facts(
            "tsx",
            "import { Switch } from 'react-router-dom';\nconst a = <Switch />;\n",
        );
        assert!(tsx.accesses.iter().any(|a| a.root == "Switch"));
        assert_eq!(
            tsx.resolve("Switch", &[]).as_deref(),
            Some("react-router-dom.Switch")
        );
    }
}

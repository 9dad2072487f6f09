//! Java: imports (static and wildcard), method invocations, field paths, annotations,
//! `extends`, `new`, string contents.

use tree_sitter::Node;

use super::facts::{
    Access, Binding, CodeFacts, Decorator, Import, ImportedName, MethodCall, TextRun,
};
use super::syntax::{MemberKind, Source, walk};

const MEMBERS: &[MemberKind] = &[
    ("field_access", "object", "field"),
    ("scoped_identifier", "scope", "name"),
];
const ROOTS: &[&str] = &["identifier", "type_identifier"];

/// Collects the facts of a Java tree.
pub(super) fn read(root: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    walk(root, |node, place| match node.kind() {
        "import_declaration" => import(node, source, facts),
        "method_invocation" => invocation(node, source, facts),
        "field_access"
            if !place.is("field_access", "object") && !place.is("method_invocation", "object") =>
        {
            access(node, Vec::new(), false, source, facts);
        }
        "marker_annotation" | "annotation" => {
            let name = node.child_by_field_name("name");
            if let Some(path) =
                name.and_then(|n| super::syntax::static_path(n, source, MEMBERS, ROOTS))
            {
                let span = name.map_or_else(|| source.span(node), |n| source.span(n));
                facts.decorators.push(Decorator { path, span });
            }
        }
        "superclass" => {
            if let Some(parent) = node.named_child(0) {
                let parent = generic_base(parent);
                access(parent, Vec::new(), false, source, facts);
            }
        }
        "object_creation_expression" => {
            if let Some(class) = node.child_by_field_name("type") {
                access(generic_base(class), Vec::new(), true, source, facts);
            }
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

/// `List<String>` names the type `List`.
fn generic_base(node: Node<'_>) -> Node<'_> {
    if node.kind() == "generic_type" {
        node.named_child(0).unwrap_or(node)
    } else {
        node
    }
}

/// `import a.b.C;`, `import static a.B.m;`, `import a.b.*;`.
fn import(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
    let Some(path) = children
        .iter()
        .find(|c| c.kind() == "scoped_identifier" || c.kind() == "identifier")
    else {
        return;
    };
    let full = source.text(*path).to_owned();
    let span = source.span(node);
    if children.iter().any(|c| c.kind() == "asterisk") {
        facts.imports.push(Import {
            module: full,
            names: Vec::new(),
            wildcard: true,
            span,
        });
        return;
    }
    let (module, name) = full.rsplit_once('.').unwrap_or(("", full.as_str()));
    let (module, name) = (module.to_owned(), name.to_owned());
    let binding = Binding {
        local: name.clone(),
        module: module.clone(),
        name: name.clone(),
    };
    facts.bindings.push(binding);
    let names = vec![ImportedName { name, alias: None }];
    facts.imports.push(Import {
        module,
        names,
        wildcard: false,
        span,
    });
}

/// `Assert.assertEquals(..)` is an access and a method call; `assertEquals(..)` an access.
fn invocation(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let Some(name) = node.child_by_field_name("name") else {
        return;
    };
    let name_text = source.text(name).to_owned();
    let Some(object) = node.child_by_field_name("object") else {
        let access = Access {
            root: name_text,
            path: Vec::new(),
            call: true,
            span: source.span(name),
        };
        facts.accesses.push(access);
        return;
    };
    let span = super::facts::Span {
        start: source.span(object).start,
        end: source.span(name).end,
    };
    facts.method_calls.push(MethodCall {
        name: name_text.clone(),
        receiver: super::syntax::plain_receiver(node, "object", source),
        span,
    });
    if let Some(mut path) = super::syntax::static_path(object, source, MEMBERS, ROOTS) {
        path.push(name_text);
        let root = path.remove(0);
        facts.accesses.push(Access {
            root,
            path,
            call: true,
            span,
        });
    }
}

/// Records a static path rooted at a plain name, followed by `tail`.
fn access(
    node: Node<'_>,
    tail: Vec<String>,
    call: bool,
    source: Source<'_>,
    facts: &mut CodeFacts,
) {
    if let Some(mut path) = super::syntax::static_path(node, source, MEMBERS, ROOTS) {
        path.extend(tail);
        super::syntax::push_access(facts, path, call, source.span(node));
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{facts, spanned};

    const TEXT: &str = "import a.b.C;\nimport static org.junit.Assert.assertEquals;\nimport org.junit.*;\n\
        @Test @org.junit.Ignore(\"x\") class K extends WebSecurityConfigurerAdapter {\n\
        void f() { Assert.assertEquals(1, 2); assertEquals(1, 1); x.foo(); new C(); String s = \"str\"; }\n}\n";

    #[test]
    fn imports_static_and_wildcard() {
        let facts = facts("java", TEXT);
        let modules: Vec<_> = facts
            .imports
            .iter()
            .map(|i| (i.module.as_str(), i.wildcard))
            .collect();
        assert_eq!(
            modules,
            [
                ("a.b", false),
                ("org.junit.Assert", false),
                ("org.junit", true)
            ]
        );
        assert_eq!(facts.resolve("C", &[]).as_deref(), Some("a.b.C"));
        assert_eq!(
            facts.resolve("assertEquals", &[]).as_deref(),
            Some("org.junit.Assert.assertEquals")
        );
    }

    #[test]
    fn annotations_extends_calls_and_new() {
        let facts = facts("java", TEXT);
        let annotations: Vec<_> = facts.decorators.iter().map(|d| d.path.join(".")).collect();
        assert_eq!(annotations, ["Test", "org.junit.Ignore"]);
        let accesses: Vec<_> = facts
            .accesses
            .iter()
            .map(|a| (spanned(TEXT, a.span), a.call))
            .collect();
        assert!(accesses.contains(&("WebSecurityConfigurerAdapter", false)));
        assert!(accesses.contains(&("Assert.assertEquals", true)));
        assert!(accesses.contains(&("assertEquals", true)));
        assert!(accesses.contains(&("C", true)));
        assert!(facts.method_calls.iter().any(|m| m.name == "foo"));
        assert!(facts.texts.iter().any(|t| t.text == "str"));
    }
}

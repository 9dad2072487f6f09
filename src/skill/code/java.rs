//! Java: imports (static and wildcard), method invocations, field paths, annotations,
//! `extends`, `new`, string contents.

use tree_sitter::Node;

use super::facts::{
    Access, Binding, CodeFacts, Decorator, Import, ImportedName, MethodCall, Syntax, SyntaxUse,
    TextRun,
};
use super::syntax::{MemberKind, Place, Source, walk};

const MEMBERS: &[MemberKind] = &[
    ("field_access", "object", "field"),
    ("scoped_identifier", "scope", "name"),
];
const ROOTS: &[&str] = &["identifier", "type_identifier"];

/// Collects the facts of a Java tree.
pub(super) fn read(root: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    walk(root, |node, place| {
        if let Some((feature, at)) = language_level(node, place, source) {
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
    }
}

/// The syntax feature a node is, if a Java release after 8 introduced it, with the node
/// (keyword or operator) a finding points at. Only node kinds decide: `var` as a method or
/// variable name, or `record` and `sealed` as identifiers, are Java 8 code.
fn language_level<'t>(
    node: Node<'t>,
    place: &Place<'_, 't>,
    source: Source<'_>,
) -> Option<(Syntax, Node<'t>)> {
    match node.kind() {
        "record_declaration" => Some((Syntax::JavaRecord, child_of_kind(node, "record")?)),
        "local_variable_declaration" | "enhanced_for_statement" | "resource" => {
            let ty = node.child_by_field_name("type")?;
            (ty.kind() == "type_identifier" && source.text(ty) == "var")
                .then_some((Syntax::JavaVar, ty))
        }
        "string_literal" if source.text(node).starts_with("\"\"\"") => {
            Some((Syntax::JavaTextBlock, node.child(0).unwrap_or(node)))
        }
        "switch_expression" => {
            let body = node.child_by_field_name("body")?;
            let arrows = child_of_kind(body, "switch_rule").is_some();
            arrows.then_some((Syntax::JavaSwitchExpression, node.child(0).unwrap_or(node)))
        }
        // A `yield` in a switch of `case ...:` groups; one with `->` rules is reported whole.
        "yield_statement" => {
            let block = place.ancestors().find(|a| a.kind() == "switch_block")?;
            child_of_kind(block, "switch_rule")
                .is_none()
                .then_some((Syntax::JavaSwitchExpression, node.child(0).unwrap_or(node)))
        }
        // `o instanceof String s`; `o instanceof Point(int x, int y)` is a record pattern.
        "instanceof_expression" => {
            let binds = node.child_by_field_name("name").is_some();
            binds.then_some((
                Syntax::JavaInstanceofPattern,
                child_of_kind(node, "instanceof")?,
            ))
        }
        "modifiers" => {
            let sealed =
                child_of_kind(node, "sealed").or_else(|| child_of_kind(node, "non-sealed"));
            sealed.map(|at| (Syntax::JavaSealed, at))
        }
        // `(var a, var b) -> ...`; a lambda parameter named `var` has another type or none.
        "lambda_expression" => {
            let parameters = node.child_by_field_name("parameters")?;
            let mut cursor = parameters.walk();
            let var = parameters
                .named_children(&mut cursor)
                .filter(|p| p.kind() == "formal_parameter")
                .filter_map(|p| p.child_by_field_name("type"))
                .find(|ty| ty.kind() == "type_identifier" && source.text(*ty) == "var");
            var.map(|at| (Syntax::JavaLambdaVar, at))
        }
        // The outermost record pattern only: the ones nested in it are the same use.
        "record_pattern" => {
            let nested = place.parent()?.kind() == "record_pattern_body";
            (!nested).then_some((Syntax::JavaRecordPattern, node))
        }
        "switch_label" => switch_pattern(node).map(|at| (Syntax::JavaSwitchPattern, at)),
        _ => None,
    }
}

/// The `case` of a label that matches a type pattern, has a `when` guard or matches `null`;
/// a label whose pattern is a record pattern is reported as that. Constant labels
/// (`case 1`, `case RED`) are older switches.
fn switch_pattern(label: Node<'_>) -> Option<Node<'_>> {
    let pattern = child_of_kind(label, "pattern").and_then(|p| p.named_child(0));
    if pattern.is_some_and(|p| p.kind() == "record_pattern") {
        return None;
    }
    let typed = pattern.is_some_and(|p| p.kind() == "type_pattern");
    let guarded = child_of_kind(label, "guard").is_some();
    let null = child_of_kind(label, "null_literal").is_some();
    (typed || guarded || null).then(|| label.child(0).unwrap_or(label))
}

/// The first child of `node` of `kind`, named or not (`record`, `->`, `sealed`).
fn child_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .find(|child| child.kind() == kind)
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

    /// Each feature newer than Java 8, with the text its span covers.
    fn features(text: &str) -> Vec<(&'static str, &str)> {
        facts("java", text)
            .syntax
            .iter()
            .map(|used| (used.feature.name(), spanned(text, used.span)))
            .collect()
    }

    #[test]
    fn syntax_newer_than_java_8() {
        let text = "record Point(int x, int y) {}\n\
            class K {\n  void f(Object o, List<String> xs) {\n\
            var n = 1;\n    for (var s : xs) {}\n\
            String t = \"\"\"\n      hi\n      \"\"\";\n\
            int k = switch (n) { case 1 -> 2; default -> 3; };\n\
            int m = switch (n) { case 1: yield 2; default: yield 3; };\n\
            if (o instanceof String s) {}\n  }\n}\n\
            sealed interface Shape permits Point {}\n";
        assert_eq!(
            features(text),
            [
                ("java:record", "record"),
                ("java:var", "var"),
                ("java:var", "var"),
                ("java:text-block", "\"\"\""),
                ("java:switch-expression", "switch"),
                ("java:switch-expression", "yield"),
                ("java:switch-expression", "yield"),
                ("java:instanceof-pattern", "instanceof"),
                ("java:sealed", "sealed"),
            ]
        );
    }

    /// `var`, `record`, `sealed` and `yield` as names, classic switches and plain
    /// `instanceof` are Java 8 code.
    #[test]
    fn java_8_code_is_not_newer_syntax() {
        let text = "class K {\n  int var = 1;\n  void var() {}\n\
            void f(Object o) {\n    var();\n    int record = 2;\n    boolean sealed = true;\n\
            Thread.yield();\n\
            switch (record) { case 1: break; default: break; }\n\
            if (o instanceof String) {}\n    String s = \"\\\"quoted\\\"\";\n  }\n}\n";
        assert_eq!(features(text), []);
    }

    /// Java 11's `var` lambda parameters and Java 21's record patterns and switch patterns;
    /// a nested record pattern is part of the outer one, and a `case` whose pattern is a
    /// record pattern is reported as that.
    #[test]
    fn lambda_var_record_and_switch_patterns() {
        let text = "class K {\n  void f(Object o) {\n\
            BinaryOperator<Integer> add = (var a, var b) -> a + b;\n\
            if (o instanceof Line(Point(var x, var y), Point p)) {}\n\
            int n = switch (o) {\n\
              case Point(int x, int y) when x > 0 -> 1;\n\
              case Integer i when i > 0 -> 2;\n\
              case String s -> 3;\n\
              case null, default -> 4;\n\
            };\n\
            switch (o) { case Long l: break; default: break; }\n  }\n}\n";
        assert_eq!(
            features(text),
            [
                ("java:lambda-var", "var"),
                ("java:record-pattern", "Line(Point(var x, var y), Point p)"),
                ("java:switch-expression", "switch"),
                ("java:record-pattern", "Point(int x, int y)"),
                ("java:switch-pattern", "case"),
                ("java:switch-pattern", "case"),
                ("java:switch-pattern", "case"),
                ("java:switch-pattern", "case"),
            ]
        );
    }

    /// Lambda parameters named `var` or typed otherwise, constant and enum labels, and
    /// Java 16's `instanceof` patterns are no Java 11 or 21 syntax.
    #[test]
    fn older_lambdas_and_switches_are_not_newer_syntax() {
        let text = "class K {\n  void f(Object o, Color c, int n) {\n\
            h((String var) -> var.length());\n    k(var -> var);\n    m((var, w) -> var);\n\
            switch (c) { case RED: break; case GREEN: break; default: break; }\n\
            switch (n) { case 1: case 2: break; default: break; }\n\
            if (o instanceof String s) {}\n  }\n}\n";
        assert_eq!(features(text), [("java:instanceof-pattern", "instanceof")]);
    }

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

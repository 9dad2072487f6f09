//! C#: `using` directives (namespace, static and alias), invocations, member paths,
//! attributes, `new` (with its argument count), base types, parameter, variable and generic
//! argument types, string contents.
//!
//! A `using` of a namespace imports the whole namespace (a wildcard), so type names stay
//! unbound: `WebHost.CreateDefaultBuilder` is an access rooted at `WebHost`.

use tree_sitter::Node;

use super::facts::{
    Binding, Call, CodeFacts, Decorator, Import, ImportedName, MethodCall, TextRun,
};
use super::syntax::{Place, Source, walk};

/// Longest member chain kept, as in the other readers.
const MAX_SEGMENTS: usize = 32;

/// Collects the facts of a C# tree.
pub(super) fn read(root: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    walk(root, |node, place| match node.kind() {
        "using_directive" => using(node, source, facts),
        "invocation_expression" => invocation(node, source, facts),
        "member_access_expression" if is_outermost(place) => {
            if let Some(path) = path(node, source) {
                super::syntax::push_access(facts, path, false, source.span(node));
            }
        }
        "attribute" => {
            if let Some(name) = node.child_by_field_name("name")
                && let Some(path) = path(name, source)
            {
                facts.decorators.push(Decorator {
                    path,
                    span: source.span(name),
                });
            }
        }
        "object_creation_expression" => {
            if let Some(class) = node.child_by_field_name("type") {
                type_access(class, true, source, facts);
                // The constructor's arity, so a pattern can name one overload set.
                let args = node.child_by_field_name("arguments");
                facts.calls.push(Call::counted(
                    source.span(class),
                    args.map_or(0, |list| list.named_child_count()),
                ));
            }
        }
        "type_argument_list" => {
            let mut cursor = node.walk();
            for argument in node.named_children(&mut cursor) {
                type_access(argument, false, source, facts);
            }
        }
        "base_list" => {
            let mut cursor = node.walk();
            for base in node.named_children(&mut cursor) {
                type_access(base, false, source, facts);
            }
        }
        "parameter" | "variable_declaration" | "property_declaration" => {
            if let Some(kind) = node.child_by_field_name("type") {
                type_access(kind, false, source, facts);
            }
        }
        "string_literal_content" | "verbatim_string_literal" | "raw_string_content" => {
            facts.texts.push(TextRun {
                text: source.text(node).to_owned(),
                span: source.span(node),
            });
        }
        _ => {}
    });
}

/// Not the receiver of a longer member access or the callee of an invocation, which are
/// read whole.
fn is_outermost(place: &Place<'_, '_>) -> bool {
    !place.is("member_access_expression", "expression")
        && !place.is("invocation_expression", "function")
}

/// A type, member or qualified name as its segments, generic arguments dropped:
/// `A.B<C>.D` -> `["A", "B", "D"]`. `None` when the chain starts at a call, `this` or a
/// literal.
fn path(node: Node<'_>, source: Source<'_>) -> Option<Vec<String>> {
    let mut segments = Vec::new();
    let mut current = node;
    loop {
        if segments.len() > MAX_SEGMENTS {
            return None;
        }
        match current.kind() {
            "identifier" | "generic_name" => {
                segments.push(simple_name(current, source)?);
                segments.reverse();
                return Some(segments);
            }
            "member_access_expression" => {
                segments.push(simple_name(current.child_by_field_name("name")?, source)?);
                current = current.child_by_field_name("expression")?;
            }
            "qualified_name" => {
                segments.push(simple_name(current.child_by_field_name("name")?, source)?);
                current = current.child_by_field_name("qualifier")?;
            }
            _ => return None,
        }
    }
}

/// `Foo` or the `Foo` of `Foo<T>`.
fn simple_name(node: Node<'_>, source: Source<'_>) -> Option<String> {
    match node.kind() {
        "identifier" => Some(source.text(node).to_owned()),
        "generic_name" => node.named_child(0).map(|n| source.text(n).to_owned()),
        _ => None,
    }
}

/// A type reference as an access; nullable and array types name their element type.
fn type_access(node: Node<'_>, call: bool, source: Source<'_>, facts: &mut CodeFacts) {
    let node = match node.kind() {
        "nullable_type" | "array_type" => node.child_by_field_name("type").unwrap_or(node),
        _ => node,
    };
    if let Some(path) = path(node, source) {
        super::syntax::push_access(facts, path, call, source.span(node));
    }
}

/// `using A.B;` and `using static A.B;` import a namespace or a type's members;
/// `using X = A.B.C;` binds `X`.
fn using(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let alias = node.child_by_field_name("name");
    let mut cursor = node.walk();
    let Some(target) = node.named_children(&mut cursor).find(|c| {
        matches!(c.kind(), "qualified_name" | "identifier" | "generic_name") && alias != Some(*c)
    }) else {
        return;
    };
    let Some(mut segments) = path(target, source) else {
        return;
    };
    let span = source.span(node);
    let Some(alias) = alias else {
        facts.imports.push(Import {
            module: segments.join("."),
            names: Vec::new(),
            wildcard: true,
            span,
        });
        return;
    };
    let Some(name) = segments.pop() else { return };
    let module = segments.join(".");
    let alias = source.text(alias).to_owned();
    facts.bindings.push(Binding {
        local: alias.clone(),
        module: module.clone(),
        name: name.clone(),
    });
    facts.imports.push(Import {
        module,
        names: vec![ImportedName {
            name,
            alias: Some(alias),
        }],
        wildcard: false,
        span,
    });
}

/// `services.AddMvc()` is a method call and an access rooted at `services`;
/// `WebHost.CreateDefaultBuilder(args)` an access rooted at the type; `Ok()` an access.
fn invocation(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let Some(function) = node.child_by_field_name("function") else {
        return;
    };
    if function.kind() == "member_access_expression"
        && let Some(name) = function
            .child_by_field_name("name")
            .and_then(|n| simple_name(n, source))
    {
        let receiver = function
            .child_by_field_name("expression")
            .filter(|e| e.kind() == "identifier")
            .map(|e| source.text(e).to_owned());
        facts.method_calls.push(MethodCall {
            name,
            receiver,
            span: source.span(function),
        });
    }
    if let Some(path) = path(function, source) {
        super::syntax::push_access(facts, path, true, source.span(function));
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{facts, spanned};

    const TEXT: &str = "using Microsoft.AspNetCore;\nusing static System.Math;\nusing Clock = Microsoft.AspNetCore.Authentication.ISystemClock;\n\
        [ApiController]\n[Microsoft.AspNetCore.Mvc.Route(\"api\")]\npublic class C : ControllerBase {\n  \
        public IActionResult Get([FromServices] ISystemClock clock) {\n    services.AddMvc(o => o.X());\n    \
        WebHost.CreateDefaultBuilder(args).UseStartup<Startup>().Build();\n    var d = new Rfc2898DeriveBytes(\"p\", 8);\n    \
        services.AddSingleton<IFoo, Foo>();\n    return Ok(Clock.Now);\n  }\n}\n";

    #[test]
    fn usings_are_namespaces_or_aliases() {
        let facts = facts("csharp", TEXT);
        let imports: Vec<_> = facts
            .imports
            .iter()
            .map(|i| (i.module.as_str(), i.wildcard))
            .collect();
        assert_eq!(
            imports,
            [
                ("Microsoft.AspNetCore", true),
                ("System.Math", true),
                ("Microsoft.AspNetCore.Authentication", false)
            ]
        );
        assert_eq!(
            facts.resolve("Clock", &["Now".into()]).as_deref(),
            Some("Microsoft.AspNetCore.Authentication.ISystemClock.Now")
        );
    }

    #[test]
    fn object_creations_carry_their_argument_count() {
        let text = "var a = new Rfc2898DeriveBytes(p, s, 100000, HashAlgorithmName.SHA256);\n\
            var b = new Rfc2898DeriveBytes(\"p\", 8);\nvar k = Rfc2898DeriveBytes.Pbkdf2(p, s, 1, h, 32);\n";
        let facts = facts("csharp", text);
        let calls: Vec<_> = facts
            .calls
            .iter()
            .map(|c| (spanned(text, c.callee), c.args))
            .collect();
        assert_eq!(
            calls,
            [("Rfc2898DeriveBytes", 4), ("Rfc2898DeriveBytes", 2)],
            "only constructions carry a shape"
        );
    }

    #[test]
    fn invocations_attributes_and_types() {
        let facts = facts("cs", TEXT);
        let accesses: Vec<_> = facts
            .accesses
            .iter()
            .map(|a| (spanned(TEXT, a.span), a.call))
            .collect();
        assert!(accesses.contains(&("WebHost.CreateDefaultBuilder", true)));
        assert!(accesses.contains(&("services.AddSingleton<IFoo, Foo>", true)));
        assert!(accesses.contains(&("Rfc2898DeriveBytes", true)));
        assert!(accesses.contains(&("ControllerBase", false)));
        assert!(accesses.contains(&("ISystemClock", false)));
        assert!(accesses.contains(&("Clock.Now", false)));
        assert!(accesses.contains(&("IFoo", false)));
        assert!(accesses.contains(&("Startup", false)));
        let singleton = facts.accesses.iter().find(|a| a.path == ["AddSingleton"]);
        assert!(singleton.is_some());
        let calls: Vec<_> = facts
            .method_calls
            .iter()
            .map(|m| (m.name.as_str(), m.receiver.as_deref()))
            .collect();
        assert!(calls.contains(&("AddMvc", Some("services"))));
        assert!(calls.contains(&("UseStartup", None)));
        let attributes: Vec<_> = facts.decorators.iter().map(|d| d.path.join(".")).collect();
        assert_eq!(
            attributes,
            [
                "ApiController",
                "Microsoft.AspNetCore.Mvc.Route",
                "FromServices"
            ]
        );
        assert!(facts.texts.iter().any(|t| t.text == "p"));
    }

    #[test]
    fn broken_code_still_yields_what_parses() {
        let text = "using Microsoft.AspNetCore.Hosting;\nclass { void M( { WebHost.Start(; }\n";
        let facts = facts("c#", text);
        assert_eq!(facts.imports.len(), 1);
        assert!(facts.accesses.iter().any(|a| a.root == "WebHost"));
    }
}

//! Go: import specs, selector paths, calls, qualified type names, string contents.

use tree_sitter::Node;

use super::facts::{CodeFacts, TextRun};
use super::syntax::{MemberKind, Source, unquote, walk};

const MEMBERS: &[MemberKind] = &[("selector_expression", "operand", "field")];
const ROOTS: &[&str] = &["identifier"];

/// Collects the facts of a Go tree.
pub(super) fn read(root: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    walk(root, |node, place| match node.kind() {
        "import_spec" => import(node, source, facts),
        "selector_expression" if !place.is("selector_expression", "operand") => {
            let call = place.is("call_expression", "function");
            if let Some(path) = super::syntax::static_path(node, source, MEMBERS, ROOTS) {
                super::syntax::push_access(facts, path, call, source.span(node));
            }
        }
        "qualified_type" => {
            let package = node.child_by_field_name("package");
            let name = node.child_by_field_name("name");
            if let (Some(package), Some(name)) = (package, name) {
                let path = vec![
                    source.text(package).to_owned(),
                    source.text(name).to_owned(),
                ];
                super::syntax::push_access(facts, path, false, source.span(node));
            }
        }
        "call_expression" => super::syntax::call(
            node,
            source,
            facts,
            super::syntax::Member {
                kind: "selector_expression",
                name: "field",
                receiver: "operand",
            },
        ),
        "interpreted_string_literal_content" | "raw_string_literal_content" => {
            facts.texts.push(TextRun {
                text: source.text(node).to_owned(),
                span: source.span(node),
            });
        }
        _ => {}
    });
}

/// `"fmt"`, `r "github.com/x/y/v2"`; `_` and `.` imports bind nothing usable by name.
fn import(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let Some(path) = node.child_by_field_name("path") else {
        return;
    };
    let module = unquote(source.text(path)).to_owned();
    let local = match node.child_by_field_name("name") {
        Some(name) if name.kind() == "package_identifier" => Some(source.text(name).to_owned()),
        Some(_) => None,
        None => package_name(&module).map(str::to_owned),
    };
    facts.record_module_import(module, local, source.span(node));
}

/// The package name Go infers from an import path: the last element, skipping a major
/// version suffix (`github.com/x/y/v2` -> `y`).
fn package_name(path: &str) -> Option<&str> {
    let mut elements = path.rsplit('/');
    let last = elements.next()?;
    let is_major =
        last.len() > 1 && last.starts_with('v') && last[1..].bytes().all(|b| b.is_ascii_digit());
    if is_major {
        elements.next()
    } else {
        Some(last)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{facts, spanned};

    #[test]
    fn import_specs_and_selectors() {
        let text = "package main\nimport (\n  \"fmt\"\n  r \"github.com/x/y/v2\"\n  _ \"z\"\n  \"github.com/a/b/v3\"\n)\n\
                    func main() { fmt.Println(\"s\"); r.Foo.Bar(); b.New(); var t r.Kind; _ = t }\n";
        let facts = facts("go", text);
        let modules: Vec<_> = facts.imports.iter().map(|i| i.module.as_str()).collect();
        assert_eq!(
            modules,
            ["fmt", "github.com/x/y/v2", "z", "github.com/a/b/v3"]
        );
        assert_eq!(
            facts.resolve("fmt", &["Println".into()]).as_deref(),
            Some("fmt.Println")
        );
        assert_eq!(
            facts.resolve("r", &[]).as_deref(),
            Some("github.com/x/y/v2")
        );
        assert_eq!(
            facts.resolve("b", &[]).as_deref(),
            Some("github.com/a/b/v3")
        );
        assert_eq!(facts.resolve("z", &[]), None);
        let accesses: Vec<_> = facts
            .accesses
            .iter()
            .map(|a| spanned(text, a.span))
            .collect();
        assert!(accesses.contains(&"fmt.Println"));
        assert!(accesses.contains(&"r.Foo.Bar"));
        assert!(accesses.contains(&"r.Kind"));
        assert!(facts.texts.iter().any(|t| t.text == "s"));
    }
}

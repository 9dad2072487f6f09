//! YAML: `key: scalar` pairs (Kubernetes `apiVersion`), GitHub Actions `uses:`, and scalar
//! text for `text` patterns (`run: echo "::set-output ..."`).

use tree_sitter::Node;

use super::facts::{ActionUse, CodeFacts, Span, TextRun, YamlPair};
use super::syntax::{Source, unquote, walk};

/// Collects the facts of a YAML tree.
pub(super) fn read(root: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    walk(root, |node, _| match node.kind() {
        "block_mapping_pair" | "flow_pair" => pair(node, source, facts),
        "block_scalar" => {
            facts.texts.push(TextRun {
                text: source.text(node).to_owned(),
                span: source.span(node),
            });
        }
        "plain_scalar" | "double_quote_scalar" | "single_quote_scalar" => {
            super::syntax::string_text(node, source, facts);
        }
        _ => {}
    });
}

/// A pair whose key and value are both scalars.
fn pair(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let key = node.child_by_field_name("key").and_then(scalar);
    let value = node.child_by_field_name("value").and_then(scalar);
    let (Some(key), Some(value)) = (key, value) else {
        return;
    };
    let key = unquote(source.text(key)).to_owned();
    let text = unquote(source.text(value)).to_owned();
    let span = source.span(value);
    if let Some(action) = action_use(&text, span).filter(|_| key == "uses") {
        facts.actions.push(action);
    }
    facts.yaml_pairs.push(YamlPair {
        key,
        value: text,
        span,
    });
}

/// The scalar inside a `flow_node`, if the node is one.
fn scalar(node: Node<'_>) -> Option<Node<'_>> {
    let inner = if node.kind() == "flow_node" {
        node.named_child(0)?
    } else {
        node
    };
    matches!(
        inner.kind(),
        "plain_scalar" | "double_quote_scalar" | "single_quote_scalar"
    )
    .then_some(inner)
}

/// `owner/repo@ref` or `owner/repo/path@ref`; local (`./x`) and `docker://` uses are not
/// marketplace actions.
fn action_use(value: &str, span: Span) -> Option<ActionUse> {
    if value.starts_with('.') || value.contains("://") {
        return None;
    }
    let (path, reference) = match value.split_once('@') {
        Some((path, reference)) => (path, Some(reference.trim().to_owned())),
        None => (value, None),
    };
    let mut parts = path.trim().splitn(3, '/');
    let (owner, repo) = (parts.next()?, parts.next()?);
    if owner.is_empty() || repo.is_empty() {
        return None;
    }
    Some(ActionUse {
        action: format!("{owner}/{repo}"),
        reference,
        span,
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{facts, spanned};

    const WORKFLOW: &str = "apiVersion: extensions/v1beta1\nkind: Deployment\njobs:\n  b:\n    steps:\n\
        \x20     - uses: actions/checkout@v3\n      - uses: \"github/codeql-action/init@v2\"\n      - uses: ./local\n\
        \x20     - run: echo \"::set-output name=a::b\"\n      - run: |\n          echo \"::save-state name=x::y\"\n";

    #[test]
    fn pairs_and_actions() {
        let facts = facts("yaml", WORKFLOW);
        let api = facts
            .yaml_pairs
            .iter()
            .find(|p| p.key == "apiVersion")
            .map(|p| p.value.as_str());
        assert_eq!(api, Some("extensions/v1beta1"));
        let actions: Vec<_> = facts
            .actions
            .iter()
            .map(|a| {
                (
                    a.action.as_str(),
                    a.reference.as_deref(),
                    spanned(WORKFLOW, a.span),
                )
            })
            .collect();
        assert_eq!(
            actions,
            [
                ("actions/checkout", Some("v3"), "actions/checkout@v3"),
                (
                    "github/codeql-action",
                    Some("v2"),
                    "\"github/codeql-action/init@v2\""
                ),
            ]
        );
    }

    #[test]
    fn scalars_are_text() {
        let facts = facts("yml", WORKFLOW);
        assert!(facts.texts.iter().any(|t| t.text.contains("::set-output")));
        assert!(facts.texts.iter().any(|t| t.text.contains("::save-state")));
    }
}

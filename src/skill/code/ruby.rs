//! Ruby: `require`, constant paths (`ActiveRecord::Base`), method calls (with their receiver
//! and argument count), class-body macros (`before_action :x`, read as decorators), string
//! contents.

use tree_sitter::Node;

use super::facts::{Access, Call, CodeFacts, Decorator, MethodCall, Span, TextRun};
use super::syntax::{MemberKind, Place, Source, unquote, walk};

/// `A::B` and `A.b` both step into a constant path; a call without arguments is how Ruby
/// reads an attribute (`Rails.application.config`).
const MEMBERS: &[MemberKind] = &[
    ("scope_resolution", "scope", "name"),
    ("call", "receiver", "method"),
];
/// A constant, or a name called without a receiver (`config` in a Rails application class).
const ROOTS: &[&str] = &["constant", "identifier"];

/// Collects the facts of a Ruby tree.
pub(super) fn read(root: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    walk(root, |node, place| match node.kind() {
        "call" => call(node, place, source, facts),
        "scope_resolution"
            if !place.is("scope_resolution", "scope") && !place.is("call", "receiver") =>
        {
            if let Some(path) = super::syntax::static_path(node, source, MEMBERS, ROOTS) {
                super::syntax::push_access(facts, path, false, source.span(node));
            }
        }
        "constant" if place.parent().is_some_and(|p| p.kind() == "superclass") => {
            super::syntax::push_access(
                facts,
                vec![source.text(node).to_owned()],
                false,
                source.span(node),
            );
        }
        "string_content" | "heredoc_content" => {
            facts.texts.push(TextRun {
                text: source.text(node).to_owned(),
                span: source.span(node),
            });
        }
        _ => {}
    });
}

/// A call with a receiver is a method call (and an access when the receiver is a constant
/// path); one without is `require`, a class macro, or a plain call.
fn call(node: Node<'_>, place: &Place<'_, '_>, source: Source<'_>, facts: &mut CodeFacts) {
    let Some(method) = node.child_by_field_name("method") else {
        return;
    };
    let name = source.text(method).to_owned();
    let Some(receiver) = node.child_by_field_name("receiver") else {
        if name == "require" {
            require(node, source, facts);
            return;
        }
        if in_class_body(place) {
            facts.decorators.push(Decorator {
                path: vec![name.clone()],
                span: source.span(method),
            });
        }
        facts.accesses.push(Access {
            root: name,
            path: Vec::new(),
            call: true,
            span: source.span(method),
        });
        return;
    };
    let span = Span {
        start: source.span(receiver).start,
        end: source.span(method).end,
    };
    facts.method_calls.push(MethodCall {
        name,
        receiver: super::syntax::plain_receiver(node, "receiver", source),
        span,
    });
    // Only the count: a pattern's `first` and `keyword` read Python and JavaScript calls.
    let args = node.child_by_field_name("arguments");
    facts.calls.push(Call::counted(
        span,
        args.map_or(0, |list| list.named_child_count()),
    ));
    if place.is("call", "receiver") {
        return;
    }
    if let Some(path) = super::syntax::static_path(node, source, MEMBERS, ROOTS) {
        super::syntax::push_access(facts, path, true, span);
    }
}

/// Whether a call is a statement of a class or module body: `before_action :x` there is a
/// class macro, Ruby's counterpart of an annotation.
fn in_class_body(place: &Place<'_, '_>) -> bool {
    let mut ancestors = place.ancestors();
    let body = ancestors
        .next()
        .is_some_and(|a| a.kind() == "body_statement");
    body && ancestors
        .next()
        .is_some_and(|a| matches!(a.kind(), "class" | "module" | "singleton_class"))
}

/// `require "rails/all"`: the feature name is the module.
fn require(node: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    let Some(arguments) = node.child_by_field_name("arguments") else {
        return;
    };
    let Some(first) = arguments.named_child(0).filter(|a| a.kind() == "string") else {
        return;
    };
    let feature = unquote(source.text(first)).to_owned();
    if !feature.is_empty() {
        facts.record_module_import(feature, None, source.span(node));
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{facts, spanned};

    const TEXT: &str = "require 'rails/all'\nclass PostsController < ApplicationController\n  \
        before_filter :auth, only: [:show]\n  def update\n    @post.update_attributes(post_params)\n    \
        ActiveSupport::Deprecation.warn(\"old\")\n    Rails.application.config.cache_classes = true\n  \
        end\nend\nclass AddX < ActiveRecord::Migration[7.0]; end\n";

    #[test]
    fn requires_constants_and_calls() {
        let facts = facts("ruby", TEXT);
        let modules: Vec<_> = facts.imports.iter().map(|i| i.module.as_str()).collect();
        assert_eq!(modules, ["rails/all"]);
        let accesses: Vec<_> = facts
            .accesses
            .iter()
            .map(|a| (spanned(TEXT, a.span), a.call))
            .collect();
        assert!(accesses.contains(&("ApplicationController", false)));
        assert!(accesses.contains(&("ActiveSupport::Deprecation.warn", true)));
        assert!(accesses.contains(&("Rails.application.config.cache_classes", true)));
        assert!(accesses.contains(&("ActiveRecord::Migration", false)));
        let warn = facts
            .accesses
            .iter()
            .find(|a| a.root == "ActiveSupport")
            .map(|a| a.path.join("."));
        assert_eq!(warn.as_deref(), Some("Deprecation.warn"));
        let calls: Vec<_> = facts
            .method_calls
            .iter()
            .map(|m| (m.name.as_str(), spanned(TEXT, m.span)))
            .collect();
        assert!(calls.contains(&("update_attributes", "@post.update_attributes")));
        assert!(calls.contains(&("cache_classes", "Rails.application.config.cache_classes")));
        assert!(facts.texts.iter().any(|t| t.text == "old"));
    }

    #[test]
    fn class_macros_are_decorators() {
        let facts = facts("ruby", TEXT);
        let macros: Vec<_> = facts
            .decorators
            .iter()
            .map(|d| (d.path.join("."), spanned(TEXT, d.span)))
            .collect();
        assert_eq!(macros, [("before_filter".to_owned(), "before_filter")]);
        let inside_method = super::super::tests::facts("ruby", "def f\n  before_filter :x\nend\n");
        assert!(inside_method.decorators.is_empty());
    }

    #[test]
    fn method_calls_carry_receiver_and_argument_count() {
        let text = "params.expect(post: [:title])\nmock.expect(:call, true, [1])\n@post.save\n";
        let facts = facts("ruby", text);
        let shapes: Vec<_> = facts
            .method_calls
            .iter()
            .map(|m| {
                let call = facts.calls.iter().find(|c| c.callee == m.span);
                (m.name.as_str(), m.receiver.as_deref(), call.map(|c| c.args))
            })
            .collect();
        assert_eq!(
            shapes,
            [
                ("expect", Some("params"), Some(1)),
                ("expect", Some("mock"), Some(3)),
                ("save", None, Some(0)),
            ]
        );
    }

    #[test]
    fn broken_code_still_yields_what_parses() {
        let text = "require 'sidekiq'\nclass A <\n  def x(\n  Sidekiq::Client.push('a')\n";
        let facts = facts("rb", text);
        assert_eq!(facts.imports.len(), 1);
        assert!(facts.accesses.iter().any(|a| a.root == "Sidekiq"));
    }
}

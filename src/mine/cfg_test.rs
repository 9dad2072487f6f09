//! Rust tests that live beside the code: a source file's change split at its `#[cfg(test)]`
//! items (read with tree-sitter-rust on both versions of the file), so a commit that changed
//! `src/foo.rs` and its `mod tests` becomes an oracle (the code) and a verifier (the tests).

use std::collections::BTreeMap;
use std::ops::Range;

use tree_sitter::{Node, Parser};

/// One Rust source file's change, split at its test items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// The file with the commit's change outside its test items and its test items as they
    /// were before (`None`: the file did not exist and holds nothing else): what the oracle
    /// writes, and what the test items' patch applies to.
    pub source: Option<String>,
    /// Whether the commit changed the file outside its test items.
    pub source_changed: bool,
    /// Whether it changed (added, edited or removed) a test item.
    pub tests_changed: bool,
    /// `cargo test` name filters for the test items the commit added or edited
    /// (`parse::tests::`, `parse::round_trip`), or the file's module path for other items.
    pub filters: Vec<String>,
}

/// One `#[cfg(test)]` item: its lines (attributes included) and how it is recognised across
/// the two versions of the file.
#[derive(Debug, Clone)]
struct TestItem {
    /// `mod` / `fn` path inside the file plus the item's kind and name (or its rank).
    key: String,
    /// The byte range of its whole lines.
    lines: Range<usize>,
    /// The `cargo test` filter that selects the tests it holds.
    filter: String,
}

/// Splits the change of the Rust file `path` from `before` (absent when the commit added it)
/// to `after`. `None` when either version does not parse cleanly: the whole file is then
/// treated as source.
pub fn split(path: &str, before: Option<&str>, after: &str) -> Option<Split> {
    let module = module_path(path);
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_rust::LANGUAGE.into())
        .ok()?;
    let old_items = match before {
        Some(text) => test_items(&mut parser, text, &module)?,
        None => Vec::new(),
    };
    let new_items = test_items(&mut parser, after, &module)?;
    let old_text = before.unwrap_or_default();
    let old_by_key: BTreeMap<&str, &TestItem> =
        old_items.iter().map(|i| (i.key.as_str(), i)).collect();
    let new_keys: Vec<&str> = new_items.iter().map(|i| i.key.as_str()).collect();

    let mut source = String::with_capacity(after.len());
    let mut at = 0;
    let mut filters = Vec::new();
    let mut tests_changed = false;
    for item in &new_items {
        source.push_str(&after[at..item.lines.start]);
        at = item.lines.end;
        let now = &after[item.lines.clone()];
        match old_by_key.get(item.key.as_str()) {
            Some(old) => {
                let was = &old_text[old.lines.clone()];
                source.push_str(was);
                if was != now {
                    tests_changed = true;
                    filters.push(item.filter.clone());
                }
            }
            None => {
                tests_changed = true;
                filters.push(item.filter.clone());
            }
        }
    }
    // Test items the commit removed stay in the oracle's file: removing them is the tests'
    // part of the change. They go after the last test item left, or at the end.
    let removed: Vec<&TestItem> = old_items
        .iter()
        .filter(|i| !new_keys.contains(&i.key.as_str()))
        .collect();
    let tail = &after[at..];
    let (kept_tail, rest) = match new_items.last() {
        Some(_) => ("", tail),
        None => (tail, ""),
    };
    source.push_str(kept_tail);
    for item in &removed {
        tests_changed = true;
        if !source.is_empty() && !source.ends_with('\n') {
            source.push('\n');
        }
        source.push_str(&old_text[item.lines.clone()]);
    }
    source.push_str(rest);
    filters.sort();
    filters.dedup();
    // Blank lines left where a test item was are no change to the source.
    let source_changed = solid_lines(&source) != solid_lines(old_text);
    if !source_changed && before.is_some() {
        source = old_text.to_owned();
    }
    let source = (before.is_some() || !source.trim().is_empty()).then_some(source);
    Some(Split {
        source,
        source_changed,
        tests_changed,
        filters,
    })
}

/// The lines of `text` that are not blank, without trailing whitespace.
fn solid_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::trim_end)
        .collect()
}

/// The module path of a file of a crate (`src/a/b.rs` and `src/a/b/mod.rs` are `a::b`; a
/// crate root, `src/lib.rs`, `src/main.rs` or `src/bin/x.rs`, is the empty path).
pub fn module_path(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    let mut inside = match parts.iter().rposition(|p| *p == "src") {
        Some(at) => &parts[at + 1..],
        None => &parts[parts.len().saturating_sub(1)..],
    };
    if inside.first() == Some(&"bin") {
        // `src/bin/x.rs` is a binary's root; `src/bin/x/a.rs` its module `a`.
        inside = &inside[inside.len().min(2)..];
    }
    let mut names: Vec<&str> = inside
        .iter()
        .map(|p| p.strip_suffix(".rs").unwrap_or(p))
        .collect();
    if matches!(names.last(), Some(&"mod")) {
        names.pop();
    }
    if names.len() == 1 && matches!(names[0], "lib" | "main") {
        names.clear();
    }
    names.join("::")
}

/// Every `#[cfg(test)]` item of `text`, outermost only, in file order; `None` when the file
/// does not parse.
fn test_items(parser: &mut Parser, text: &str, module: &str) -> Option<Vec<TestItem>> {
    let tree = parser.parse(text, None)?;
    let root = tree.root_node();
    if root.has_error() {
        return None;
    }
    let mut items = Vec::new();
    let whole_file = {
        let mut cursor = root.walk();
        root.named_children(&mut cursor)
            .any(|n| n.kind() == "inner_attribute_item" && is_cfg_test(n, text))
    };
    if whole_file {
        let filter = if module.is_empty() {
            String::new()
        } else {
            format!("{module}::")
        };
        items.push(TestItem {
            key: "file".into(),
            lines: 0..text.len(),
            filter,
        });
        return Some(items);
    }
    collect(root, text, module, &mut items);
    Some(items)
}

/// Walks one item list (the file or a `mod` body) for test items, descending into modules
/// that are not tests themselves.
fn collect(list: Node, text: &str, path: &str, out: &mut Vec<TestItem>) {
    let mut cursor = list.walk();
    let children: Vec<Node> = list.named_children(&mut cursor).collect();
    let mut attrs_start: Option<usize> = None;
    let mut cfg_test = false;
    let mut rank = 0;
    for node in children {
        match node.kind() {
            "attribute_item" => {
                attrs_start.get_or_insert(node.start_byte());
                cfg_test |= is_cfg_test(node, text);
            }
            "line_comment" | "block_comment" => {}
            _ if cfg_test => {
                let start = attrs_start.unwrap_or(node.start_byte());
                let name = node
                    .child_by_field_name("name")
                    .and_then(|n| n.utf8_text(text.as_bytes()).ok())
                    .unwrap_or_default();
                let key = if name.is_empty() {
                    rank += 1;
                    format!("{path}/{}#{rank}", node.kind())
                } else {
                    format!("{path}/{} {name}", node.kind())
                };
                let joined = |name: &str| {
                    if path.is_empty() {
                        name.to_owned()
                    } else {
                        format!("{path}::{name}")
                    }
                };
                let filter = match node.kind() {
                    "mod_item" => format!("{}::", joined(name)),
                    "function_item" => joined(name),
                    _ if path.is_empty() => String::new(),
                    _ => format!("{path}::"),
                };
                out.push(TestItem {
                    key,
                    lines: whole_lines(text, start, node.end_byte()),
                    filter,
                });
                attrs_start = None;
                cfg_test = false;
            }
            kind => {
                if kind == "mod_item"
                    && let (Some(name), Some(body)) = (
                        node.child_by_field_name("name"),
                        node.child_by_field_name("body"),
                    )
                {
                    let name = name.utf8_text(text.as_bytes()).unwrap_or_default();
                    let inner = if path.is_empty() {
                        name.to_owned()
                    } else {
                        format!("{path}::{name}")
                    };
                    collect(body, text, &inner, out);
                }
                attrs_start = None;
                cfg_test = false;
            }
        }
    }
}

/// Whether an attribute is `#[cfg(test)]` or `#[cfg(all(test, ...))]` (inner or outer).
fn is_cfg_test(attr: Node, text: &str) -> bool {
    let raw = attr.utf8_text(text.as_bytes()).unwrap_or_default();
    let compact: String = raw.chars().filter(|c| !c.is_whitespace()).collect();
    let inner = compact
        .trim_start_matches("#!")
        .trim_start_matches('#')
        .trim_start_matches('[')
        .trim_end_matches(']');
    inner == "cfg(test)" || inner.starts_with("cfg(all(test,")
}

/// `start..end` widened to whole lines: from the start of the first line to just after the
/// newline that ends the last.
fn whole_lines(text: &str, start: usize, end: usize) -> Range<usize> {
    let from = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let to = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    from..to
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n\
        #[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(1, 2), 3);\n    }\n}\n";

    #[test]
    fn source_and_test_items_are_split() {
        let after = BEFORE
            .replace(
                "}\n\n#[cfg(test)]",
                "}\n\npub fn mul(a: i32, b: i32) -> i32 {\n    a * b\n}\n\n#[cfg(test)]",
            )
            .replace(
                "    }\n}\n",
                "    }\n\n    #[test]\n    fn muls() {\n        assert_eq!(super::mul(2, 3), 6);\n    }\n}\n",
            );
        let split = split("src/calc.rs", Some(BEFORE), &after).unwrap();
        let source = split.source.unwrap();
        assert!(source.contains("pub fn mul"), "{source}");
        assert!(!source.contains("fn muls"), "{source}");
        assert!(source.contains("fn adds"), "{source}");
        assert!(split.source_changed && split.tests_changed);
        assert_eq!(split.filters, ["calc::tests::"]);
    }

    #[test]
    fn test_only_and_source_only_changes_are_told_apart() {
        let tests_only = BEFORE.replace("(1, 2), 3", "(2, 2), 4");
        let s = split("src/lib.rs", Some(BEFORE), &tests_only).unwrap();
        assert!(!s.source_changed && s.tests_changed);
        assert_eq!(s.source.as_deref(), Some(BEFORE));
        assert_eq!(s.filters, ["tests::"]);
        let source_only = BEFORE.replace("a + b", "b + a");
        let s = split("src/lib.rs", Some(BEFORE), &source_only).unwrap();
        assert!(s.source_changed && !s.tests_changed);
        assert_eq!(s.source.as_deref(), Some(source_only.as_str()));
        let code = BEFORE.split("#[cfg(test)]").next().unwrap();
        let s = split("src/lib.rs", Some(code.trim_end()), BEFORE).unwrap();
        assert!(
            !s.source_changed && s.tests_changed,
            "a blank line is no change"
        );
        assert_eq!(s.source.as_deref(), Some(code.trim_end()));
    }

    #[test]
    fn a_new_file_with_tests_and_removed_items_are_handled() {
        let s = split("src/calc/mod.rs", None, BEFORE).unwrap();
        let source = s.source.unwrap();
        assert!(source.contains("pub fn add") && !source.contains("mod tests"));
        assert_eq!(s.filters, ["calc::tests::"]);
        let gone = BEFORE.split("#[cfg(test)]").next().unwrap();
        let s = split("src/lib.rs", Some(BEFORE), gone).unwrap();
        assert!(s.tests_changed && !s.source_changed, "{s:?}");
        assert_eq!(s.source.as_deref(), Some(BEFORE));
        let whole = "#![cfg(test)]\n\n#[test]\nfn t() {}\n";
        let s = split("src/helpers.rs", None, whole).unwrap();
        assert_eq!(s.source, None);
        assert!(s.tests_changed && !s.source_changed);
        assert_eq!(s.filters, ["helpers::"]);
    }

    #[test]
    fn nested_modules_and_functions_give_their_paths() {
        let text = "mod inner {\n    #[cfg(test)]\n    #[allow(dead_code)]\n    fn check() {}\n}\n";
        let s = split("src/bin/tool/parse.rs", Some(""), text).unwrap();
        assert_eq!(s.filters, ["parse::inner::check"]);
        assert_eq!(s.source.as_deref(), Some("mod inner {\n}\n"));
        assert_eq!(module_path("src/bin/tool.rs"), "");
        assert_eq!(module_path("crates/x/src/a/b.rs"), "a::b");
        assert_eq!(module_path("src/main.rs"), "");
        assert_eq!(split("src/lib.rs", Some("fn ("), "fn a() {}\n"), None);
    }
}

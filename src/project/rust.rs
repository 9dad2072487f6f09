//! Rust: `Cargo.toml` (dependencies of every kind, target tables, workspaces and inherited
//! dependencies, `rust-version`) and `Cargo.lock`.

use std::path::Path;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::locate::at;
use super::sink::Sink;
use super::toml_doc::{Doc, entries, for_each_locked_package, get, table_at};
use super::tools::Role;
use super::{DepKind, Ecosystem, RuntimeKind};

const SECTIONS: &[(&str, DepKind)] = &[
    ("dependencies", DepKind::Normal),
    ("dev-dependencies", DepKind::Dev),
    ("build-dependencies", DepKind::Build),
];

/// Reads a `Cargo.toml`.
pub(crate) fn read_cargo_toml(sink: &mut Sink, rel: &Path, text: &str) {
    let Some(doc) = Doc::parse(sink, rel, text) else {
        return;
    };
    declare_sections(sink, &doc, &doc.root);
    if let Some(targets) = table_at(&doc.root, &["target"]) {
        for (_, target) in entries(targets) {
            if let Some(target) = target.get_ref().as_table() {
                declare_sections(sink, &doc, target);
            }
        }
    }
    read_workspace_dependencies(sink, &doc);
    for path in [&["package"][..], &["workspace", "package"][..]] {
        let version = table_at(&doc.root, path).and_then(|t| get(t, "rust-version"));
        if let Some(version) = version.and_then(|v| doc.string(v)) {
            sink.runtime("rust", RuntimeKind::Range, version);
        }
    }
    let name = table_at(&doc.root, &["package"]).and_then(|t| get(t, "name"));
    if let Some(name) = name.and_then(|n| n.get_ref().as_str()) {
        sink.own(Ecosystem::Cargo, name);
    }
    let manifest = get(&doc.root, "package").or_else(|| get(&doc.root, "workspace"));
    if let Some(manifest) = manifest {
        let evidence = doc.locate("Cargo.toml", manifest.span());
        sink.tool(Role::PackageManager, "cargo", evidence.clone());
        sink.tool(Role::TestRunner, "cargo test", evidence.clone());
        sink.tool(Role::BuildTool, "cargo", evidence);
    }
}

fn declare_sections(sink: &mut Sink, doc: &Doc<'_>, table: &DeTable<'_>) {
    for &(section, kind) in SECTIONS {
        let Some(deps) = table_at(table, &[section]) else {
            continue;
        };
        for (key, value) in entries(deps) {
            declare_entry(sink, doc, key, value, kind);
        }
    }
}

/// One dependency: `name = "1"` or `name = { version, package, optional, workspace }`.
fn declare_entry(
    sink: &mut Sink,
    doc: &Doc<'_>,
    key: &str,
    value: &Spanned<DeValue<'_>>,
    kind: DepKind,
) {
    let DeValue::Table(table) = value.get_ref() else {
        sink.declare(Ecosystem::Cargo, key, kind, doc.string(value));
        return;
    };
    let name = get(table, "package")
        .and_then(|p| p.get_ref().as_str())
        .unwrap_or(key);
    let optional = get(table, "optional").and_then(|o| o.get_ref().as_bool()) == Some(true);
    let kind = if optional && kind == DepKind::Normal {
        DepKind::Optional
    } else {
        kind
    };
    let version = get(table, "version").and_then(|v| doc.string(v));
    let inherits = get(table, "workspace").and_then(|w| w.get_ref().as_bool()) == Some(true);
    let index = sink.declare(Ecosystem::Cargo, name, kind, version);
    if inherits {
        sink.cargo_inherits(index);
    }
}

fn read_workspace_dependencies(sink: &mut Sink, doc: &Doc<'_>) {
    let Some(deps) = table_at(&doc.root, &["workspace", "dependencies"]) else {
        return;
    };
    for (key, value) in entries(deps) {
        let (name, version) = match value.get_ref() {
            DeValue::Table(t) => (
                get(t, "package")
                    .and_then(|p| p.get_ref().as_str())
                    .unwrap_or(key),
                get(t, "version").and_then(|v| doc.string(v)),
            ),
            _ => (key, doc.string(value)),
        };
        // Members refer to the entry by its key, so inheritance is keyed by it.
        if let Some(version) = &version {
            sink.cargo_workspace_dep(key, version.clone());
        }
        sink.declare(Ecosystem::Cargo, name, DepKind::Managed, version);
    }
}

/// Reads a `Cargo.lock`.
pub(crate) fn read_cargo_lock(sink: &mut Sink, rel: &Path, text: &str) {
    let Some(doc) = Doc::parse(sink, rel, text) else {
        return;
    };
    sink.tool(Role::PackageManager, "cargo", at("Cargo.lock", rel, (1, 1)));
    // Workspace members have no `source`: they are the project itself, not dependencies.
    for_each_locked_package(&doc, |name, version, table| {
        if get(table, "source").is_some() {
            sink.lock(Ecosystem::Cargo, name, version);
        }
    });
}

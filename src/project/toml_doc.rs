//! TOML documents with byte spans, so every value read keeps its line and column.

use std::path::Path;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::Located;
use super::locate::{LineIndex, at};
use super::sink::Sink;

/// A parsed TOML document and the line index of its text.
pub(crate) struct Doc<'t> {
    /// The top-level table.
    pub(crate) root: DeTable<'t>,
    index: LineIndex<'t>,
    rel: &'t Path,
}

impl<'t> Doc<'t> {
    /// Parses `text`; a syntax error becomes a diagnostic with the parser's position.
    pub(crate) fn parse(sink: &mut Sink, rel: &'t Path, text: &'t str) -> Option<Self> {
        let index = LineIndex::new(text);
        match DeTable::parse(text) {
            Ok(root) => Some(Self {
                root: root.into_inner(),
                index,
                rel,
            }),
            Err(err) => {
                let (line, column) = err.span().map_or((1, 1), |s| index.position(s.start));
                let message = err.message().trim().to_string();
                sink.diagnostic(rel, line, column, format!("invalid TOML: {message}"));
                None
            }
        }
    }

    /// A value located in this document.
    pub(crate) fn locate(
        &self,
        value: impl Into<String>,
        span: std::ops::Range<usize>,
    ) -> Located<String> {
        at(value, self.rel, self.index.position(span.start))
    }

    /// The string at `value`, located.
    pub(crate) fn string(&self, value: &Spanned<DeValue<'_>>) -> Option<Located<String>> {
        let text = value.get_ref().as_str()?;
        Some(self.locate(text, value.span()))
    }
}

/// The value under `key` in `table`.
pub(crate) fn get<'a, 'i>(table: &'a DeTable<'i>, key: &str) -> Option<&'a Spanned<DeValue<'i>>> {
    table
        .iter()
        .find_map(|(k, v)| (k.get_ref().as_ref() == key).then_some(v))
}

/// The table reached by following `path` from `table`.
pub(crate) fn table_at<'a, 'i>(table: &'a DeTable<'i>, path: &[&str]) -> Option<&'a DeTable<'i>> {
    path.iter()
        .try_fold(table, |t, key| get(t, key)?.get_ref().as_table())
}

/// The entries of a table with their keys as plain strings.
pub(crate) fn entries<'a, 'i>(
    table: &'a DeTable<'i>,
) -> impl Iterator<Item = (&'a str, &'a Spanned<DeValue<'i>>)> {
    table.iter().map(|(k, v)| (k.get_ref().as_ref(), v))
}

/// Calls `found` with the name and located version of each `[[package]]` of a lockfile.
pub(crate) fn for_each_locked_package(
    doc: &Doc<'_>,
    mut found: impl FnMut(&str, Located<String>, &DeTable<'_>),
) {
    let Some(packages) = get(&doc.root, "package").and_then(|p| p.get_ref().as_array()) else {
        return;
    };
    for package in packages {
        let Some(table) = package.get_ref().as_table() else {
            continue;
        };
        let name = get(table, "name").and_then(|n| n.get_ref().as_str());
        let version = get(table, "version").and_then(|v| doc.string(v));
        if let (Some(name), Some(version)) = (name, version) {
            found(name, version, table);
        }
    }
}

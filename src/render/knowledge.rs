//! The knowledge listing (`skillgate knowledge`) as a table or JSON, and the coverage page
//! section of `docs/knowledge.md`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::verdict_text::fixed_width;
use crate::knowledge::{ApiChange, ApiFile, ChangeKind, Knowledge};

/// Version of the listing's JSON shape.
pub const SCHEMA: u32 = 1;

#[derive(Serialize)]
struct Listing<'a> {
    schema: u32,
    entries: Vec<EntryRecord<'a>>,
}

#[derive(Serialize)]
struct EntryRecord<'a> {
    id: &'a str,
    ecosystem: &'a str,
    package: &'a str,
    kind: String,
    since: Option<&'a str>,
    summary: &'a str,
    replacement: Option<&'a str>,
    source: &'a str,
    checked: &'a str,
    evidence: Option<&'a str>,
}

/// The entries as one JSON document, `{ "schema": 1, "entries": [...] }`.
pub fn knowledge_json(entries: &[(&ApiFile, &ApiChange)]) -> String {
    let listing = Listing {
        schema: SCHEMA,
        entries: entries
            .iter()
            .map(|(file, change)| EntryRecord {
                id: &change.id,
                ecosystem: file.ecosystem.as_str(),
                package: &file.package,
                kind: change.kind.to_string(),
                since: change.since.as_deref(),
                summary: &change.summary,
                replacement: change.replacement.as_deref(),
                source: &change.source,
                checked: &change.checked,
                evidence: change.evidence.as_deref(),
            })
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&listing).unwrap_or_default();
    text.push('\n');
    text
}

/// The entries as an aligned table: id, kind, since, package, replacement and source.
pub fn knowledge_table(entries: &[(&ApiFile, &ApiChange)]) -> String {
    let headers = ["ID", "KIND", "SINCE", "PACKAGE", "REPLACEMENT", "SOURCE"];
    let rows: Vec<Vec<String>> = entries
        .iter()
        .map(|(file, change)| {
            vec![
                change.id.clone(),
                change.kind.to_string(),
                change.since.clone().unwrap_or_else(|| "-".to_owned()),
                format!("{}/{}", file.ecosystem, file.package),
                change.replacement.clone().unwrap_or_else(|| "-".to_owned()),
                change.source.clone(),
            ]
        })
        .collect();
    let mut out = fixed_width(&headers, &rows, headers.len());
    let _ = writeln!(out, "{} entries", rows.len());
    out
}

/// Counts of one package's or ecosystem's entries.
#[derive(Default)]
struct Counts {
    packages: usize,
    entries: usize,
    removed: usize,
    deprecated: usize,
    renamed: usize,
    added: usize,
    quoted: usize,
}

impl Counts {
    fn add(&mut self, change: &ApiChange) {
        self.entries += 1;
        match change.kind {
            ChangeKind::Removed => self.removed += 1,
            ChangeKind::Deprecated => self.deprecated += 1,
            ChangeKind::Renamed => self.renamed += 1,
            ChangeKind::Added => self.added += 1,
        }
        self.quoted += usize::from(change.evidence.is_some());
    }

    fn cells(&self) -> String {
        format!(
            "{} | {} | {} | {} | {} | {}",
            self.entries, self.removed, self.deprecated, self.renamed, self.added, self.quoted
        )
    }
}

/// The coverage section of docs/knowledge.md: entries per ecosystem and per package, and the aliases that only
/// resolve prose. Generated; a test keeps the checked-in copy equal to this.
pub fn coverage_markdown(knowledge: &Knowledge) -> String {
    let mut by_ecosystem: BTreeMap<&str, Counts> = BTreeMap::new();
    let mut by_package: BTreeMap<(&str, &str), Counts> = BTreeMap::new();
    for file in &knowledge.apis {
        let package = by_package
            .entry((file.ecosystem.as_str(), file.package.as_str()))
            .or_default();
        let ecosystem = by_ecosystem.entry(file.ecosystem.as_str()).or_default();
        ecosystem.packages += usize::from(package.entries == 0 && !file.changes.is_empty());
        for change in &file.changes {
            package.add(change);
            ecosystem.add(change);
        }
    }
    let total: usize = by_ecosystem.values().map(|counts| counts.entries).sum();
    let quoted: usize = by_ecosystem.values().map(|counts| counts.quoted).sum();
    let mut out = String::new();
    let _ = writeln!(out, "## Coverage\n");
    let _ = writeln!(
        out,
        "Generated from `rules/` by `SKILLGATE_BLESS=1 cargo test --test it knowledge_coverage`; \
         do not edit by hand. `skillgate knowledge [PACKAGE|ECOSYSTEM]` lists the entries \
         themselves.\n"
    );
    let _ = writeln!(
        out,
        "{total} entries over {} ecosystems and {} packages; {quoted} quote the release note \
         that states them (`evidence`).\n",
        by_ecosystem.len(),
        by_package.len()
    );
    let _ = writeln!(out, "### Per ecosystem\n");
    let _ = writeln!(
        out,
        "| ecosystem | packages | entries | removed | deprecated | renamed | added | with evidence |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|");
    for (ecosystem, counts) in &by_ecosystem {
        let _ = writeln!(
            out,
            "| {ecosystem} | {} | {} |",
            counts.packages,
            counts.cells()
        );
    }
    let _ = writeln!(out, "\n### Per package\n");
    let _ = writeln!(
        out,
        "| ecosystem | package | entries | removed | deprecated | renamed | added | with evidence |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|");
    for ((ecosystem, package), counts) in &by_package {
        let _ = writeln!(out, "| {ecosystem} | `{package}` | {} |", counts.cells());
    }
    out
}

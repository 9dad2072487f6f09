//! The text formats of an audit (a table for terminals, JSON lines for machines and
//! `skillgate merge`, CSV for spreadsheets, markdown for step summaries) and the columns
//! and notes every format shares.

use std::fmt::Write as _;

use super::{Audit, Row, Summary};

/// One line per row, then `{"summary": ...}`.
pub(super) fn jsonl(audit: &Audit) -> String {
    let mut out = String::new();
    for row in &audit.skills {
        out.push_str(&serde_json::to_string(row).unwrap_or_default());
        out.push('\n');
    }
    let summary = serde_json::json!({ "schema": audit.schema, "summary": &audit.summary });
    out.push_str(&serde_json::to_string(&summary).unwrap_or_default());
    out.push('\n');
    out
}

/// `12.3%`, or `-` for an unreadable skill.
pub(super) fn percent(share: Option<f64>) -> String {
    share.map_or_else(|| "-".to_owned(), |s| format!("{:.1}%", s * 100.0))
}

pub(super) fn number(n: Option<usize>) -> String {
    n.map_or_else(|| "-".to_owned(), |n| n.to_string())
}

/// The cells of a row shared by the table, CSV and markdown formats.
pub(super) fn cells(row: &Row) -> [String; 10] {
    let readable = row.error.is_none();
    let count = |n: usize| if readable { n.to_string() } else { "-".into() };
    [
        row.name.clone().unwrap_or_else(|| "-".into()),
        number(row.tokens),
        percent(row.code_share),
        count(row.errors),
        count(row.warnings),
        count(row.infos),
        count(row.security),
        row.fit.map_or("-", |f| f.as_str()).to_owned(),
        blocked_by(row),
        row.path.clone(),
    ]
}

/// The header of [`cells`].
pub(super) const HEADER: [&str; 10] = [
    "name",
    "tokens",
    "code",
    "errors",
    "warnings",
    "infos",
    "security",
    "fit",
    "blocked by",
    "path",
];

/// The error findings that decide the skill's static verdict, as codes with how often each
/// fires (`SG501 ×2, SG604`); `unreadable` for a skill that could not be read; `-` when
/// nothing blocks it. Nothing is evaluated in an audit, so this, not a decision that is
/// `skip` for every skill, is what tells the skills apart.
pub(super) fn blocked_by(row: &Row) -> String {
    if row.error.is_some() {
        return "unreadable".to_owned();
    }
    let codes: Vec<String> = row
        .blocking()
        .into_iter()
        .map(|(code, _, n)| {
            if n > 1 {
                format!("{code} ×{n}")
            } else {
                code.to_owned()
            }
        })
        .collect();
    if codes.is_empty() {
        "-".to_owned()
    } else {
        codes.join(", ")
    }
}

pub(super) fn table(audit: &Audit) -> String {
    let rows: Vec<[String; 10]> = audit.skills.iter().map(cells).collect();
    let mut widths = HEADER.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[&str]| {
        let mut text = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            let pad = w.saturating_sub(cell.chars().count());
            let numeric = (1..=6).contains(&i);
            if i > 0 {
                text.push_str("  ");
            }
            if numeric {
                text.push_str(&" ".repeat(pad));
                text.push_str(cell);
            } else if i + 1 == cells.len() {
                text.push_str(cell);
            } else {
                text.push_str(cell);
                text.push_str(&" ".repeat(pad));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&HEADER.map(str::to_uppercase).each_ref().map(String::as_str));
    for row in &rows {
        line(&row.each_ref().map(String::as_str));
    }
    out.push('\n');
    out.push_str(&notes(audit, |(path, code, message)| match code {
        "error" => format!("error: {message}"),
        _ => format!("{path}:1:1: {code} {message}"),
    }));
    out.push_str(&summary_lines(&audit.summary).join("\n"));
    out.push('\n');
    out
}

/// Unreadable skills and set-level findings, one line each, formatted by `line` from
/// (path, code or `error`, message).
pub(super) fn notes(audit: &Audit, line: impl Fn((&str, &str, &str)) -> String) -> String {
    let mut out = String::new();
    for row in &audit.skills {
        if let Some(error) = &row.error {
            out.push_str(&line((&row.path, "error", error)));
            out.push('\n');
        }
        for f in row.findings.iter().filter(|f| super::row::is_set_level(f)) {
            out.push_str(&line((&row.path, &f.code, &f.message)));
            out.push('\n');
        }
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// The summary as sentences, one per line.
pub(super) fn summary_lines(s: &Summary) -> Vec<String> {
    let mut lines = vec![format!(
        "{}{}: {}, {}, {}, {}",
        plural(s.skills, "skill"),
        if s.unreadable > 0 {
            format!(" ({} unreadable)", s.unreadable)
        } else {
            String::new()
        },
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        plural(s.infos, "info"),
        plural(s.security, "security finding"),
    )];
    lines.push(format!(
        "not evaluated (injecting needs an evaluation): {} of {} blocked by their own error findings",
        s.blocked,
        plural(s.skills - s.unreadable, "readable skill"),
    ));
    if let Some(fit) = &s.fit {
        let parts: Vec<String> = fit
            .iter()
            .map(|(fit, n)| format!("{n} {}", fit.as_str()))
            .collect();
        lines.push(format!(
            "fit with the repository: {}",
            if parts.is_empty() {
                "none".to_owned()
            } else {
                parts.join(", ")
            }
        ));
    }
    lines.push(format!(
        "set: {}, {}, {}; descriptions {} tokens of a {}-token listing budget",
        plural(s.set.duplicate_names, "duplicate name"),
        plural(s.set.duplicate_descriptions, "duplicate description"),
        plural(s.set.near_duplicates, "near-duplicate body").replace("bodys", "bodies"),
        s.set.description_tokens,
        s.listing_budget
    ));
    if let Some(shard) = s.shard {
        lines.push(format!(
            "shard {shard}: combine every shard's JSON lines with `skillgate merge`"
        ));
    }
    lines
}

pub(super) fn csv(audit: &Audit) -> String {
    let mut out = String::new();
    let record = |out: &mut String, fields: &[&str]| {
        let quoted: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        out.push_str(&quoted.join(","));
        out.push_str("\r\n");
    };
    let mut header: Vec<&str> = HEADER
        .iter()
        .map(|h| if *h == "blocked by" { "blocked_by" } else { h })
        .collect();
    header.push("error");
    record(&mut out, &header);
    for row in &audit.skills {
        let cells = cells(row);
        let mut fields: Vec<&str> = cells.iter().map(String::as_str).collect();
        // Machine-readable numbers: the share as a fraction, empty for unknown values.
        let share = row.code_share.map(|s| s.to_string()).unwrap_or_default();
        fields[2] = &share;
        for f in fields.iter_mut() {
            if *f == "-" {
                *f = "";
            }
        }
        fields.push(row.error.as_deref().unwrap_or(""));
        record(&mut out, &fields);
    }
    out
}

/// RFC 4180 quoting: fields with a comma, quote or line break are quoted, quotes doubled.
fn csv_field(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
}

pub(super) fn markdown(audit: &Audit) -> String {
    let mut out = String::from("## skillgate audit\n\n");
    for line in summary_lines(&audit.summary) {
        let _ = writeln!(out, "- {line}");
    }
    out.push('\n');
    let _ = writeln!(out, "| {} |", HEADER.join(" | "));
    let _ = writeln!(
        out,
        "|{}",
        HEADER
            .iter()
            .enumerate()
            .map(|(i, _)| if (1..=6).contains(&i) {
                "---:|"
            } else {
                "---|"
            })
            .collect::<String>()
    );
    for row in &audit.skills {
        let cells = cells(row).map(|c| markdown_cell(&c));
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    let notes = notes(audit, |(path, code, message)| match code {
        "error" => format!("- error: {}", markdown_cell(message)),
        _ => format!("- `{path}` {code}: {}", markdown_cell(message)),
    });
    if !notes.is_empty() {
        out.push_str("\n### Unreadable skills and set-level findings\n\n");
        out.push_str(&notes);
    }
    out
}

/// A table cell: pipes escaped, line breaks flattened.
fn markdown_cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// `1 error`, `2 errors`.
fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

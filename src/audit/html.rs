//! The audit as one self-contained HTML page: the summary, histograms of tokens and code
//! share across the set (inline SVG), and a table that sorts by any column when its header is
//! clicked (a few lines of inline script; nothing is fetched).

use std::fmt::Write as _;

use super::Audit;
use super::render::{HEADER, cells, notes, summary_lines};

/// Bars per histogram.
const BINS: usize = 10;

const STYLE: &str = "body{font:14px system-ui,sans-serif;margin:2em;color:#222}\
table{border-collapse:collapse}th,td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}\
th{cursor:pointer;background:#f4f4f4;position:sticky;top:0}td.n{text-align:right}\
tr.unreadable{color:#a00}figure{display:inline-block;margin:0 2em 1em 0}\
svg text{font-size:10px}rect.bar{fill:#4a78b8}";

const SCRIPT: &str = "document.querySelectorAll('th').forEach((th,i)=>th.addEventListener('click',()=>{\
const body=th.closest('table').tBodies[0];const rows=[...body.rows];const asc=th.dataset.asc!=='1';\
th.dataset.asc=asc?'1':'0';const key=r=>r.cells[i].dataset.v??r.cells[i].textContent;\
rows.sort((a,b)=>{const x=key(a),y=key(b);const nx=parseFloat(x),ny=parseFloat(y);\
const c=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);return asc?c:-c;});\
rows.forEach(r=>body.appendChild(r));}));";

/// The whole page.
pub(super) fn render(audit: &Audit) -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>skillgate audit</title>\n",
    );
    let _ = writeln!(
        out,
        "<style>{STYLE}</style>\n</head>\n<body>\n<h1>skillgate audit</h1>"
    );
    out.push_str("<ul>\n");
    for line in summary_lines(&audit.summary) {
        let _ = writeln!(out, "<li>{}</li>", escape(&line));
    }
    out.push_str("</ul>\n");

    let tokens: Vec<f64> = audit
        .skills
        .iter()
        .filter_map(|r| r.tokens)
        .map(|t| t as f64)
        .collect();
    let shares: Vec<f64> = audit
        .skills
        .iter()
        .filter_map(|r| r.code_share)
        .map(|s| s * 100.0)
        .collect();
    let max_tokens = tokens.iter().copied().fold(0.0, f64::max).max(1.0);
    out.push_str(&histogram("Body tokens", &tokens, max_tokens, ""));
    out.push_str(&histogram("Code share", &shares, 100.0, "%"));

    out.push_str("\n<table>\n<thead><tr>");
    for h in HEADER {
        let _ = write!(out, "<th>{h}</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in &audit.skills {
        let class = if row.error.is_some() {
            " class=\"unreadable\""
        } else {
            ""
        };
        let _ = write!(out, "<tr{class}>");
        for (i, cell) in cells(row).iter().enumerate() {
            let numeric = (1..=6).contains(&i);
            // Sort keys: raw numbers, so "9" sorts before "10" and "-" first.
            let value = match i {
                1 => row.tokens.map(|t| t.to_string()),
                2 => row.code_share.map(|s| s.to_string()),
                3..=6 if row.error.is_none() => Some(cell.clone()),
                _ => None,
            };
            let attrs = match (numeric, value) {
                (true, Some(v)) => format!(" class=\"n\" data-v=\"{v}\""),
                (true, None) => " class=\"n\" data-v=\"-1\"".to_owned(),
                (false, _) => String::new(),
            };
            let text = if i == 9 {
                match &row.error {
                    Some(e) => format!("{}<br>{}", escape(cell), escape(e)),
                    None => escape(cell),
                }
            } else {
                escape(cell)
            };
            let _ = write!(out, "<td{attrs}>{text}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    let notes = notes(audit, |(path, code, message)| match code {
        "error" => format!("<li>error: {}</li>", escape(message)),
        _ => format!(
            "<li><code>{}</code> {code}: {}</li>",
            escape(path),
            escape(message)
        ),
    });
    if !notes.trim().is_empty() {
        out.push_str("<h2>Unreadable skills and set-level findings</h2>\n<ul>\n");
        out.push_str(notes.trim_end());
        out.push_str("\n</ul>\n");
    }
    let _ = writeln!(out, "<script>{SCRIPT}</script>\n</body>\n</html>");
    out
}

/// An SVG bar chart of `values` in [`BINS`] equal bins from 0 to `max`.
fn histogram(title: &str, values: &[f64], max: f64, unit: &str) -> String {
    let mut counts = [0usize; BINS];
    for &v in values {
        let bin = ((v / max) * BINS as f64).floor() as usize;
        counts[bin.min(BINS - 1)] += 1;
    }
    let highest = counts.iter().copied().max().unwrap_or(0).max(1);
    let (width, height, bar) = (360.0, 120.0, 32.0);
    let mut svg = format!(
        "<figure><figcaption>{} ({} skills)</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" role=\"img\">\n",
        escape(title),
        values.len(),
        width,
        height + 30.0
    );
    for (i, &n) in counts.iter().enumerate() {
        let h = n as f64 / highest as f64 * height;
        let x = i as f64 * (bar + 4.0);
        let low = max * i as f64 / BINS as f64;
        let high = max * (i + 1) as f64 / BINS as f64;
        let _ = writeln!(
            svg,
            "<rect class=\"bar\" x=\"{x}\" y=\"{:.1}\" width=\"{bar}\" height=\"{h:.1}\"><title>{low:.0}{unit}–{high:.0}{unit}: {n}</title></rect>\
<text x=\"{}\" y=\"{:.1}\" text-anchor=\"middle\">{n}</text>",
            height - h,
            x + bar / 2.0,
            (height - h - 2.0).max(10.0),
        );
    }
    let _ = writeln!(
        svg,
        "<text x=\"0\" y=\"{}\">0{unit}</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{max:.0}{unit}</text>",
        height + 14.0,
        BINS as f64 * (bar + 4.0) - 4.0,
        height + 14.0
    );
    svg.push_str("</svg></figure>\n");
    svg
}

/// Text safe inside HTML elements and attributes.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

//! The audit as one self-contained HTML page a maintainer works from: the summary, the rules
//! that fire most as a bar chart, a table of skills (what blocks each one), then every skill's
//! findings grouped by severity with rule, message, place and help.
//!
//! Everything is inline (CSS, SVG, a little script) and nothing is fetched. With scripts off
//! the page shows everything, sorted by path; with them, the skill table sorts by any column
//! and the findings filter by rule, severity and "security only".

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::Audit;
use super::render::{number, percent, summary_lines};
use super::row::{FindingRecord, Row};
use super::set::SET_RULES;
use crate::finding::Severity;
use crate::lint::{Family, RULES};
use crate::render::sarif::help_uri;

/// Bars in the chart of the rules that fire most.
const TOP_RULES: usize = 10;

const STYLE: &str = "body{font:14px system-ui,sans-serif;margin:2em;color:#222;max-width:80em}\
table{border-collapse:collapse;margin-bottom:1em}th,td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}\
thead th{background:#f4f4f4;position:sticky;top:0}th[data-sort]{cursor:pointer}td.n{text-align:right}\
tr.unreadable{color:#a00}figure{margin:0 0 1em 0}svg text{font-size:11px}\
rect.bar{fill:#4a78b8}rect.bar.sec{fill:#b8574a}.error{color:#a00}.warning{color:#8a5a00}.info{color:#555}\
section.skill{border-top:2px solid #ccc;margin-top:1.5em}section.skill h3{margin:.5em 0}\
td.help{color:#555}code{font-size:13px}.filters{margin:1em 0;padding:.5em;background:#f4f4f4}\
.filters label{margin-right:1.5em}p.rel{color:#555}";

/// Sorting of the skill table and filtering of the findings; the page reads the same without.
const SCRIPT: &str = "document.getElementById('filters').hidden=false;\
document.querySelectorAll('th[data-sort]').forEach((th,i)=>th.addEventListener('click',()=>{\
const body=th.closest('table').tBodies[0];const rows=[...body.rows];const asc=th.dataset.asc!=='1';\
th.dataset.asc=asc?'1':'0';const key=r=>r.cells[i].dataset.v??r.cells[i].textContent;\
rows.sort((a,b)=>{const x=key(a),y=key(b);const nx=parseFloat(x),ny=parseFloat(y);\
const c=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);return asc?c:-c;});\
rows.forEach(r=>body.appendChild(r));}));\
const rule=document.getElementById('rule'),sev=document.getElementById('severity'),sec=document.getElementById('security');\
function apply(){document.querySelectorAll('section.skill').forEach(s=>{let shown=0;\
s.querySelectorAll('tr.finding').forEach(r=>{const ok=(!rule.value||r.dataset.code===rule.value)\
&&(!sev.value||r.dataset.severity===sev.value)&&(!sec.checked||r.dataset.security==='1');\
r.hidden=!ok;if(ok)shown++;});\
s.querySelectorAll('div.group').forEach(g=>{g.hidden=!g.querySelector('tr.finding:not([hidden])');});\
const filtering=rule.value||sev.value||sec.checked;s.hidden=filtering&&!shown;\
const row=document.getElementById('row-'+s.id);if(row)row.hidden=filtering&&!shown;});}\
[rule,sev,sec].forEach(e=>e.addEventListener('change',apply));";

/// The whole page; `rules_doc` is the URL of the rules' documentation, which each rule links
/// to when it is known.
pub(super) fn render(audit: &Audit, rules_doc: Option<&str>) -> String {
    let base = common_folder(audit);
    let rel = |path: &str| relative(path, &base);
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
    if !base.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"rel\">Paths are relative to <code>{}</code>.</p>",
            escape(&base)
        );
    }

    let counts = rule_counts(audit);
    out.push_str(&top_rules(&counts));
    out.push_str(&filters(&counts));

    out.push_str(&skill_table(audit, &rel));

    out.push_str("<h2>Findings by skill</h2>\n");
    let mut any = false;
    for (i, row) in audit.skills.iter().enumerate() {
        if row.findings.is_empty() && row.error.is_none() {
            continue;
        }
        any = true;
        out.push_str(&skill_section(i, row, &rel, rules_doc));
    }
    if !any {
        out.push_str("<p>No skill has a finding.</p>\n");
    }
    let _ = writeln!(out, "<script>{SCRIPT}</script>\n</body>\n</html>");
    out
}

/// Findings per rule code over the whole audit, with each rule's name.
fn rule_counts(audit: &Audit) -> BTreeMap<&str, (&str, usize)> {
    let mut counts: BTreeMap<&str, (&str, usize)> = BTreeMap::new();
    for f in audit.skills.iter().flat_map(|r| &r.findings) {
        counts.entry(&f.code).or_insert((&f.name, 0)).1 += 1;
    }
    counts
}

/// A horizontal SVG bar chart of the rules with the most findings.
fn top_rules(counts: &BTreeMap<&str, (&str, usize)>) -> String {
    let mut top: Vec<(&str, &str, usize)> = counts
        .iter()
        .map(|(code, (name, n))| (*code, *name, *n))
        .collect();
    top.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(b.0)));
    top.truncate(TOP_RULES);
    if top.is_empty() {
        return String::new();
    }
    let highest = top[0].2.max(1) as f64;
    let (label, width, bar) = (260.0, 300.0, 18.0);
    let mut svg = format!(
        "<figure><figcaption>Rules with the most findings</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"rules with the most findings\">\n",
        label + width + 60.0,
        top.len() as f64 * (bar + 4.0)
    );
    for (i, (code, name, n)) in top.iter().enumerate() {
        let y = i as f64 * (bar + 4.0);
        let w = (*n as f64 / highest * width).max(1.0);
        let class = if Family::of(code) == Family::Security {
            "bar sec"
        } else {
            "bar"
        };
        let _ = writeln!(
            svg,
            "<text x=\"0\" y=\"{:.1}\">{} {}</text><rect class=\"{class}\" x=\"{label}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{bar}\"><title>{}: {n}</title></rect><text x=\"{:.1}\" y=\"{:.1}\">{n}</text>",
            y + bar - 5.0,
            escape(code),
            escape(name),
            escape(code),
            label + w + 4.0,
            y + bar - 5.0,
        );
    }
    svg.push_str("</svg></figure>\n");
    svg
}

/// The filter controls, hidden until the script that drives them runs.
fn filters(counts: &BTreeMap<&str, (&str, usize)>) -> String {
    let mut out = String::from(
        "<form class=\"filters\" id=\"filters\" hidden>\n<label>Rule <select id=\"rule\"><option value=\"\">all</option>",
    );
    for (code, (name, n)) in counts {
        let _ = write!(
            out,
            "<option value=\"{0}\">{0} {1} ({n})</option>",
            escape(code),
            escape(name)
        );
    }
    out.push_str(
        "</select></label>\n<label>Severity <select id=\"severity\"><option value=\"\">all</option>\
<option value=\"error\">error</option><option value=\"warning\">warning</option><option value=\"info\">info</option></select></label>\n\
<label><input type=\"checkbox\" id=\"security\"> security only</label>\n</form>\n",
    );
    out
}

/// The table of skills: one row each, linking to its findings.
fn skill_table(audit: &Audit, rel: &dyn Fn(&str) -> String) -> String {
    let fit = audit.summary.fit.is_some();
    let mut out = String::from("<h2>Skills</h2>\n<table id=\"skills\">\n<thead><tr>");
    let mut header = vec![
        "skill", "tokens", "code", "errors", "warnings", "infos", "security",
    ];
    if fit {
        header.push("fit");
    }
    header.push("blocked by");
    for h in header {
        let _ = write!(out, "<th data-sort>{h}</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (i, row) in audit.skills.iter().enumerate() {
        let class = if row.error.is_some() {
            " class=\"unreadable\""
        } else {
            ""
        };
        let _ = write!(out, "<tr id=\"row-skill-{i}\"{class}>");
        let name = row.name.as_deref().unwrap_or("-");
        let _ = write!(
            out,
            "<td data-v=\"{}\"><a href=\"#skill-{i}\">{}</a><br><code>{}</code></td>",
            escape(&rel(&row.path)),
            escape(name),
            escape(&rel(&row.path))
        );
        let readable = row.error.is_none();
        let numbers = [
            (number(row.tokens), row.tokens.map(|t| t.to_string())),
            (
                percent(row.code_share),
                row.code_share.map(|s| s.to_string()),
            ),
            (
                count(readable, row.errors),
                readable.then(|| row.errors.to_string()),
            ),
            (
                count(readable, row.warnings),
                readable.then(|| row.warnings.to_string()),
            ),
            (
                count(readable, row.infos),
                readable.then(|| row.infos.to_string()),
            ),
            (
                count(readable, row.security),
                readable.then(|| row.security.to_string()),
            ),
        ];
        for (text, value) in numbers {
            let _ = write!(
                out,
                "<td class=\"n\" data-v=\"{}\">{}</td>",
                value.as_deref().unwrap_or("-1"),
                escape(&text)
            );
        }
        if fit {
            let _ = write!(out, "<td>{}</td>", row.fit.map_or("-", |f| f.as_str()));
        }
        let _ = write!(out, "<td>{}</td>", blocked_by(row));
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

/// `3` or `-` for an unreadable skill.
fn count(readable: bool, n: usize) -> String {
    if readable {
        n.to_string()
    } else {
        "-".to_owned()
    }
}

/// The error findings that decide the static verdict, as rule codes with how often each
/// occurs; "unreadable" for a skill that could not be read; empty when nothing blocks it.
fn blocked_by(row: &Row) -> String {
    if row.error.is_some() {
        return "unreadable".to_owned();
    }
    row.blocking()
        .into_iter()
        .map(|(code, name, n)| {
            let times = if n > 1 {
                format!(" ×{n}")
            } else {
                String::new()
            };
            format!(
                "<span class=\"error\" title=\"{}\">{}{times}</span>",
                escape(name),
                escape(code)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One skill's findings, grouped by severity, most severe first.
fn skill_section(
    i: usize,
    row: &Row,
    rel: &dyn Fn(&str) -> String,
    rules_doc: Option<&str>,
) -> String {
    let mut out = format!("<section class=\"skill\" id=\"skill-{i}\">\n");
    let _ = writeln!(
        out,
        "<h3>{} <code>{}</code></h3>",
        escape(row.name.as_deref().unwrap_or("-")),
        escape(&rel(&row.path))
    );
    if let Some(error) = &row.error {
        let _ = writeln!(
            out,
            "<p class=\"error\">unreadable: {}</p>",
            escape(&relative_in_text(error, rel, &row.path))
        );
    }
    for severity in [Severity::Error, Severity::Warning, Severity::Info] {
        let found: Vec<&FindingRecord> = row
            .findings
            .iter()
            .filter(|f| f.severity == severity)
            .collect();
        if found.is_empty() {
            continue;
        }
        let word = severity_word(severity);
        let _ = writeln!(
            out,
            "<div class=\"group\"><h4 class=\"{word}\">{} ({})</h4>\n<table><thead><tr><th>rule</th><th>message</th><th>where</th><th>help</th></tr></thead><tbody>",
            plural_word(word),
            found.len()
        );
        for f in found {
            out.push_str(&finding_row(f, rel, rules_doc));
        }
        out.push_str("</tbody></table></div>\n");
    }
    out.push_str("</section>\n");
    out
}

/// One finding as a table row carrying what the filters read.
fn finding_row(f: &FindingRecord, rel: &dyn Fn(&str) -> String, rules_doc: Option<&str>) -> String {
    let security = u8::from(Family::of(&f.code) == Family::Security);
    let summary = rule_summary(&f.code).unwrap_or("");
    let code = match help_uri(rules_doc, &f.code) {
        Some(uri) => format!(
            "<a href=\"{}\" title=\"{}\">{}</a>",
            escape(&uri),
            escape(summary),
            escape(&f.code)
        ),
        None => format!(
            "<span title=\"{}\">{}</span>",
            escape(summary),
            escape(&f.code)
        ),
    };
    // A set-level finding's help names the other copy's path: relative, as in its place.
    let in_text = |text: &str| {
        f.related.iter().fold(text.to_owned(), |text, r| {
            relative_in_text(&text, rel, &r.path)
        })
    };
    let help = escape(&in_text(f.help.as_deref().unwrap_or(summary)));
    let mut message = escape(&f.message);
    for r in &f.related {
        let _ = write!(
            message,
            "<br>see <code>{}:{}</code>: {}",
            escape(&rel(&r.path)),
            r.line,
            escape(&r.message)
        );
    }
    format!(
        "<tr class=\"finding\" data-code=\"{}\" data-severity=\"{}\" data-security=\"{security}\"><td>{code}<br>{}</td><td>{message}</td><td><code>{}:{}</code></td><td class=\"help\">{help}</td></tr>\n",
        escape(&f.code),
        severity_word(f.severity),
        escape(&f.name),
        escape(&rel(&f.path)),
        f.line
    )
}

/// The one-line summary of a per-skill or set-level rule.
fn rule_summary(code: &str) -> Option<&'static str> {
    RULES
        .iter()
        .find(|r| r.doc.code == code)
        .map(|r| r.doc.summary)
        .or_else(|| SET_RULES.iter().find(|r| r.code == code).map(|r| r.summary))
}

fn severity_word(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

fn plural_word(word: &str) -> String {
    format!("{word}s")
}

/// The deepest folder that holds every skill's folder (the folder the skills were found in
/// for one audited folder), ending in `/`; empty when the paths share none.
fn common_folder(audit: &Audit) -> String {
    let mut folders = audit.skills.iter().map(|r| {
        let skill = r.path.rsplit_once('/').map_or("", |(dir, _)| dir);
        skill.rsplit_once('/').map_or("", |(dir, _)| dir)
    });
    let Some(first) = folders.next() else {
        return String::new();
    };
    let mut common: Vec<&str> = first.split('/').collect();
    for folder in folders {
        let shared = common
            .iter()
            .zip(folder.split('/'))
            .take_while(|(a, b)| *a == b)
            .count();
        common.truncate(shared);
    }
    let joined = common.join("/");
    if joined.is_empty() {
        String::new()
    } else {
        format!("{joined}/")
    }
}

/// `path` without the folder `base` (which ends in `/`) in front.
fn relative(path: &str, base: &str) -> String {
    if base.is_empty() {
        return path.to_owned();
    }
    path.strip_prefix(base).unwrap_or(path).to_owned()
}

/// An error message that names the skill's path, with the path made relative.
fn relative_in_text(text: &str, rel: &dyn Fn(&str) -> String, path: &str) -> String {
    let folder = path.rsplit_once('/').map_or(path, |(dir, _)| dir);
    text.replace(path, &rel(path)).replace(folder, &rel(folder))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_made_relative_to_the_folder_holding_the_skills() {
        assert_eq!(relative("/a/skills/x/SKILL.md", "/a/skills/"), "x/SKILL.md");
        assert_eq!(
            relative("other/x/SKILL.md", "/a/skills/"),
            "other/x/SKILL.md"
        );
        assert_eq!(relative("x/SKILL.md", ""), "x/SKILL.md");
    }
}

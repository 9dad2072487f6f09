//! SG5xx: the skill folder's structure — links, referenced files, reference depth, orphans,
//! code fences and path separators.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use crate::finding::Severity;
use crate::lint::Rule;
use crate::skill::{Document, Skill, SourceFile, normalize_rel};

/// A markdown document of the skill: SKILL.md or one of its markdown files.
struct Doc<'a> {
    /// Path relative to the skill folder ("" dir for SKILL.md).
    rel: &'a str,
    dir: &'a str,
    source: &'a SourceFile,
    doc: &'a Document,
}

fn docs(skill: &Skill) -> Vec<Doc<'_>> {
    let mut out = vec![Doc {
        rel: skill.manifest_name(),
        dir: "",
        source: &skill.source,
        doc: &skill.body,
    }];
    for f in &skill.files {
        if let (Some(source), Some(doc)) = (&f.source, &f.doc) {
            let dir = f.rel.rsplit_once('/').map_or("", |(d, _)| d);
            out.push(Doc {
                rel: &f.rel,
                dir,
                source,
                doc,
            });
        }
    }
    out
}

/// Where a link points, when it is a relative path inside or outside the skill.
enum Target {
    /// Not a relative file link (URL, anchor, absolute path).
    External,
    /// Climbs out of the skill folder.
    Outside,
    /// A path relative to the skill folder.
    Inside(String),
}

static SCHEME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z][A-Za-z0-9+.-]*:").expect("valid regex"));

fn resolve(dir: &str, dest: &str) -> Target {
    let dest = dest.trim();
    if dest.is_empty() || dest.starts_with('#') || dest.starts_with('/') || SCHEME.is_match(dest) {
        return Target::External;
    }
    let path = dest.split(['#', '?']).next().unwrap_or_default();
    let path = percent_decode(path);
    if path.is_empty() {
        return Target::External;
    }
    match normalize_rel(dir, &path.replace('\\', "/")) {
        Some(p) => Target::Inside(p),
        None => Target::Outside,
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn exists(skill: &Skill, rel: &str) -> bool {
    rel.is_empty()
        || rel == skill.manifest_name()
        || skill.file(rel).is_some()
        || skill.has_dir(rel)
}

/// SG501.
pub const BROKEN_LINK: Rule = Rule {
    code: "SG501",
    name: "broken-link",
    severity: Severity::Error,
    summary: "A relative link points at a file that is not in the skill",
    what: "Resolves every relative link and image in SKILL.md and its markdown files against \
           the skill folder; flags targets that do not exist or lie outside the folder.",
    why: "An agent that follows a dead link wastes a turn and proceeds without the guidance \
          the author meant; a link outside the folder breaks once the skill is installed.",
    fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nRead [the style guide](references/style.md) first.\n",
    passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nRead [the style guide](references/style.md) first.\n==> references/style.md <==\n# Style\n",
    check: |cx, out| {
        for d in docs(cx.skill) {
            for link in &d.doc.links {
                let message = match resolve(d.dir, &link.dest) {
                    Target::Inside(rel) if !exists(cx.skill, &rel) => {
                        format!("`{}` does not exist in the skill folder", rel)
                    }
                    Target::Outside => format!("`{}` points outside the skill folder", link.dest),
                    _ => continue,
                };
                out.report(d.source, link.range.clone(), message)
                    .help("fix the path, or add the file to the skill folder");
            }
        }
    },
};

static MENTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[[ \t]`'(\[=])(?:\./)?((?:scripts|references|assets)/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.[A-Za-z0-9]{1,8})(?-u:\b)")
        .expect("valid regex")
});

/// SG502.
pub const MISSING_REFERENCED_FILE: Rule = Rule {
    code: "SG502",
    name: "missing-referenced-file",
    severity: Severity::Warning,
    summary: "Prose or inline code names a bundled file that does not exist",
    what: "Finds paths under `scripts/`, `references/` and `assets/` named in prose or inline \
           code (not in links, which SG501 checks) and flags those missing from the folder.",
    why: "The agent will try to run or read the file and fail, often mid-task.",
    fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nRun `python scripts/format_notes.py` on each note.\n",
    passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nRun `python scripts/format_notes.py` on each note.\n==> scripts/format_notes.py <==\nprint('ok')\n",
    check: |cx, out| {
        for d in docs(cx.skill) {
            let text = &d.source.text;
            let ranges = d.doc.prose_lines.iter().chain(&d.doc.inline_code);
            let mut seen = Vec::new();
            for range in ranges {
                for caps in MENTION.captures_iter(&text[range.clone()]) {
                    let Some(m) = caps.get(1) else { continue };
                    let span = range.start + m.start()..range.start + m.end();
                    let rel = m.as_str().trim_end_matches('.');
                    let in_link = d.doc.links.iter().any(|l| l.range.contains(&span.start));
                    let found = exists(cx.skill, rel)
                        || normalize_rel(d.dir, rel).is_some_and(|r| exists(cx.skill, &r));
                    if !found && !in_link && !seen.contains(&span.start) {
                        seen.push(span.start);
                        out.report(
                            d.source,
                            span,
                            format!("`{rel}` is named here but is not in the skill folder"),
                        )
                        .help("add the file, or correct the path");
                    }
                }
            }
        }
    },
};

/// How each file of the skill is first reached from SKILL.md: the link depth and the
/// document (index into `docs`) and span that reach it.
struct Reach {
    depth: usize,
    via: usize,
    span: Range<usize>,
}

/// Breadth-first walk from SKILL.md over links and path mentions. Returns, per skill file
/// (same order as `skill.files`), how it was first reached.
fn reachability(skill: &Skill, docs: &[Doc<'_>]) -> Vec<Option<Reach>> {
    let mut reach: Vec<Option<Reach>> = skill.files.iter().map(|_| None).collect();
    let mut queue = std::collections::VecDeque::from([(0usize, 0usize)]);
    while let Some((doc_index, depth)) = queue.pop_front() {
        let d = &docs[doc_index];
        for (file_index, file) in skill.files.iter().enumerate() {
            if reach[file_index].is_some() || file.rel == d.rel {
                continue;
            }
            let Some(span) = mention(d, &file.rel) else {
                continue;
            };
            reach[file_index] = Some(Reach {
                depth: depth + 1,
                via: doc_index,
                span,
            });
            if let Some(next) = docs.iter().position(|x| x.rel == file.rel) {
                queue.push_back((next, depth + 1));
            }
        }
    }
    reach
}

/// Where document `d` links to or names the file `rel` (or a folder holding it), if it does.
fn mention(d: &Doc<'_>, rel: &str) -> Option<Range<usize>> {
    for link in &d.doc.links {
        if let Target::Inside(target) = resolve(d.dir, &link.dest)
            && (target == rel || (!target.is_empty() && rel.starts_with(&format!("{target}/"))))
        {
            return Some(link.range.clone());
        }
    }
    let text = &d.source.text;
    let relative = rel
        .strip_prefix(&format!("{}/", d.dir))
        .filter(|_| !d.dir.is_empty());
    let nested_dir = rel
        .rsplit_once('/')
        .map(|(dir, _)| dir)
        .filter(|dir| dir.contains('/'));
    [Some(rel), relative]
        .into_iter()
        .flatten()
        .chain(nested_dir.map(|dir| &rel[..dir.len() + 1]))
        .find_map(|needle| text.find(needle).map(|at| at..at + needle.len()))
}

fn is_exempt(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let upper = name.to_ascii_uppercase();
    rel.split('/').any(|part| part.starts_with('.'))
        || [
            "LICENSE",
            "LICENCE",
            "NOTICE",
            "COPYING",
            "README",
            "CHANGELOG",
        ]
        .iter()
        .any(|p| upper.starts_with(p))
}

/// SG503.
pub const REFERENCE_TOO_DEEP: Rule = Rule {
    code: "SG503",
    name: "reference-too-deep",
    severity: Severity::Warning,
    summary: "A reference is reachable only through another reference",
    what: "Walks links from SKILL.md and flags files first reached at depth two or more \
           (SKILL.md -> a.md -> b.md).",
    why: "Agents read nested references partially or not at all; keep every reference one \
          link away from SKILL.md.",
    fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nSee [the guide](references/guide.md).\n==> references/guide.md <==\n# Guide\nDetails are in [details](details.md).\n==> references/details.md <==\n# Details\n",
    passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nSee [the guide](references/guide.md) and [details](references/details.md).\n==> references/guide.md <==\n# Guide\nDetails are in [details](details.md).\n==> references/details.md <==\n# Details\n",
    check: |cx, out| {
        let docs = docs(cx.skill);
        for (file, reach) in cx.skill.files.iter().zip(reachability(cx.skill, &docs)) {
            let Some(reach) = reach.filter(|r| r.depth > 1 && file.doc.is_some()) else {
                continue;
            };
            let via = &docs[reach.via];
            out.report(
                via.source,
                reach.span,
                format!(
                    "`{}` is {} links away from SKILL.md (through `{}`)",
                    file.rel, reach.depth, via.rel
                ),
            )
            .help(format!("link `{}` directly from SKILL.md", file.rel));
        }
    },
};

/// SG504.
pub const ORPHAN_FILE: Rule = Rule {
    code: "SG504",
    name: "orphan-file",
    severity: Severity::Info,
    summary: "A file in the skill folder is never linked or named",
    what: "Flags files that no link or path mention reaches from SKILL.md (directly or through \
           reached references). Dotfiles and LICENSE/README/NOTICE/CHANGELOG files are exempt.",
    why: "The agent only finds files the skill points to; an unreferenced file is dead weight \
          in every install, or a reference someone forgot to link.",
    fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\n# Notes\n==> references/old-guide.md <==\n# Old guide\n",
    passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\n# Notes\nSee [the guide](references/old-guide.md).\n==> references/old-guide.md <==\n# Old guide\n",
    check: |cx, out| {
        let docs = docs(cx.skill);
        for (file, reach) in cx.skill.files.iter().zip(reachability(cx.skill, &docs)) {
            if reach.is_none() && !is_exempt(&file.rel) {
                let span = 0..0;
                let message = format!("`{}` is not linked or named from SKILL.md", file.rel);
                match &file.source {
                    Some(src) => out.report(src, span, message),
                    None => out.report(&cx.skill.source, cx.skill.source.line_range(0), message),
                }
                .help("link it where the agent needs it, or delete it");
            }
        }
    },
};

/// SG505.
pub const UNCLOSED_CODE_FENCE: Rule = Rule {
    code: "SG505",
    name: "unclosed-code-fence",
    severity: Severity::Error,
    summary: "A code fence is never closed",
    what: "Flags a fenced code block with no closing fence in SKILL.md or its markdown files.",
    why: "Everything after the opening fence becomes code: the agent reads the rest of the \
          skill as an example instead of as instructions.",
    fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\n```sh\nnotes fmt\n\n## Rules\nNever edit generated notes.\n",
    passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\n```sh\nnotes fmt\n```\n\n## Rules\nNever edit generated notes.\n",
    check: |cx, out| {
        for d in docs(cx.skill) {
            for block in d.doc.code_blocks.iter().filter(|b| !b.closed) {
                let open = d.source.line_range(d.source.line_index(block.range.start));
                out.report(d.source, open, "this code fence is never closed")
                    .help("close it with a matching fence line");
            }
        }
    },
};

static BACKSLASH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:[A-Za-z0-9_.-]+\\)+[A-Za-z0-9][A-Za-z0-9_-]*\.[A-Za-z0-9]{1,5}(?-u:\b)")
        .expect("valid regex")
});

/// SG506.
pub const BACKSLASH_PATH: Rule = Rule {
    code: "SG506",
    name: "backslash-path",
    severity: Severity::Warning,
    summary: "A path uses backslashes",
    what: "Flags Windows-style paths (`scripts\\run.py`) in links, inline code and prose.",
    why: "Agents run on Unix-like systems where backslashes are not separators; the path \
          does not resolve.",
    fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nRun `python scripts\\format_notes.py`.\n==> scripts/format_notes.py <==\nprint('ok')\n",
    passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nRun `python scripts/format_notes.py`.\n==> scripts/format_notes.py <==\nprint('ok')\n",
    check: |cx, out| {
        for d in docs(cx.skill) {
            let text = &d.source.text;
            let mut seen = Vec::new();
            let ranges = d
                .doc
                .links
                .iter()
                .map(|l| &l.range)
                .chain(&d.doc.inline_code)
                .chain(&d.doc.prose_lines);
            for range in ranges {
                for m in BACKSLASH.find_iter(&text[range.clone()]) {
                    let span = range.start + m.start()..range.start + m.end();
                    if seen.contains(&span.start) {
                        continue;
                    }
                    seen.push(span.start);
                    out.report(d.source, span, format!("`{}` uses backslashes", m.as_str()))
                        .help(format!("write `{}`", m.as_str().replace('\\', "/")));
                }
            }
        }
    },
};

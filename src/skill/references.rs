//! The one reference resolver: every path a skill mentions (links, inline code, code blocks,
//! prose paths, folder mentions, stems in lists, globs, client placeholders), resolved to the
//! files of the skill folder. The structure rules read its result; none re-parses paths.

use std::collections::VecDeque;
use std::ops::Range;
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use super::{Document, Skill, SourceFile, normalize_rel};

use crate::targets::KNOWN_PLACEHOLDERS;

/// A markdown document of the skill: SKILL.md or one of its markdown files.
#[derive(Debug)]
pub struct Doc<'a> {
    /// Path relative to the skill folder (the manifest's name for SKILL.md).
    pub rel: &'a str,
    /// The folder relative links start from ("" for the skill folder).
    pub dir: &'a str,
    /// The file's text.
    pub source: &'a SourceFile,
    /// The parsed markdown.
    pub doc: &'a Document,
}

/// SKILL.md first, then every markdown file of the folder, in path order.
pub fn docs(skill: &Skill) -> Vec<Doc<'_>> {
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

/// How a mention is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// A markdown link or image destination.
    Link,
    /// A path in inline code or prose.
    Path,
    /// A path inside a fenced or indented code block.
    Code,
    /// A bare file stem in inline code (`` `async-defer-await` ``) naming a markdown file.
    Stem,
}

/// What a mention resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// One file of the skill, by its relative path.
    File(String),
    /// A folder of the skill (files below it), by its relative path without a slash.
    Folder(String),
    /// A glob and the files it matches (possibly none).
    Glob(String, Vec<String>),
    /// A relative path inside the folder that names nothing.
    Missing(String),
    /// A relative path that climbs out of the skill folder.
    Outside(String),
    /// A path outside the skill folder that names a file or folder of the repository the
    /// skill is checked in (relative to the file, then to the repository's root), by its
    /// path from the repository's root.
    Repository(String),
}

impl Target {
    /// Whether it names something of the skill: a file, a folder, a glob that matches.
    pub fn exists(&self) -> bool {
        match self {
            Target::File(_) | Target::Folder(_) => true,
            Target::Glob(_, files) => !files.is_empty(),
            Target::Missing(_) | Target::Outside(_) | Target::Repository(_) => false,
        }
    }
}

/// One path the skill mentions.
#[derive(Debug, Clone)]
pub struct Mention {
    /// Index of the document (see [`docs`]) that mentions it.
    pub doc: usize,
    /// Byte range of the path (or the whole link) in that document.
    pub span: Range<usize>,
    /// The path as written, placeholders included.
    pub written: String,
    /// How it is written.
    pub form: Form,
    /// What it resolves to (with every known placeholder expanded, so that the files it
    /// would name are not reported unreferenced as well).
    pub target: Target,
    /// The known placeholder it starts with that none of the targets expands: for them the
    /// path names nothing.
    pub unexpanded: Option<&'static str>,
    /// Whether the path belongs to something else than this skill: a link in a document
    /// template or asset (a placeholder for the user's document), or a path the line tells
    /// the agent to create or names as the user's project's. It still reaches the files it
    /// names, but a missing one is no finding.
    pub foreign: bool,
    /// Whether it is an `@path` include (`@.github/copilot-instructions.md`), whose file the
    /// client reads in with the document; the path is written without the `@`.
    pub include: bool,
}

/// Every mention of every document, and how each file of the skill is reached.
#[derive(Debug)]
pub struct References {
    /// All mentions, by document then position.
    pub mentions: Vec<Mention>,
    /// Per file of `skill.files` (same order): how SKILL.md first reaches it, if it does.
    pub reach: Vec<Option<Reach>>,
}

/// How a file is first reached from SKILL.md.
#[derive(Debug, Clone)]
pub struct Reach {
    /// Link depth: 1 for a file SKILL.md names, 2 through one reference, ...
    pub depth: usize,
    /// Index of the mention that reaches it.
    pub mention: usize,
    /// Whether it is reached only as part of a folder (not named itself).
    pub through_folder: bool,
}

static SCHEME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z][A-Za-z0-9+.-]*:").expect("valid regex"));

/// The path-like tokens of `text`, as byte ranges: an optional placeholder (`${NAME}`,
/// `$NAME`, `{baseDir}`), then a run of path characters and `{name}/` or `<name>/` segments.
/// Checked further in [`candidate`].
///
/// This is the regular expression
/// `(?:\$\{[A-Za-z_]+\}|\$[A-Z_]+|\{baseDir\})?(?:[A-Za-z0-9_.*@+\-/\\]|\{[A-Za-z_-]+\}/|<[A-Za-z_-]+>/)+`
/// read leftmost-first, written out: every word of every prose line and code block is a
/// match, and a matcher's per-match set-up cost more than the reading.
fn path_tokens(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let b = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < b.len() {
            let start = at;
            if let Some(end) = token_at(b, start) {
                at = end;
                return Some(start..end);
            }
            at += 1;
        }
        None
    })
}

/// The end of the token that starts at `start`, if one does.
fn token_at(b: &[u8], start: usize) -> Option<usize> {
    let run = |from: usize, ok: fn(u8) -> bool| {
        from + b[from.min(b.len())..]
            .iter()
            .take_while(|&&c| ok(c))
            .count()
    };
    // The segments after a placeholder, if there is at least one.
    let after = |p: usize| Some(segments(b, p)).filter(|&end| end > p);
    if b[start] == b'$' {
        if b.get(start + 1) == Some(&b'{') {
            let name = run(start + 2, |c| c.is_ascii_alphabetic() || c == b'_');
            if name > start + 2
                && b.get(name) == Some(&b'}')
                && let Some(end) = after(name + 1)
            {
                return Some(end);
            }
        }
        let name = run(start + 1, |c| c.is_ascii_uppercase() || c == b'_');
        if name > start + 1 {
            // `$NAME` needs a segment after it; its own last letter is one.
            return after(name).or((name > start + 2).then_some(name));
        }
    }
    if b[start..].starts_with(b"{baseDir}")
        && let Some(end) = after(start + "{baseDir}".len())
    {
        return Some(end);
    }
    after(start)
}

/// The end of the run of path segments from `at`: path characters, `{name}/` and `<name>/`.
fn segments(b: &[u8], mut at: usize) -> usize {
    let path_char = |c: u8| {
        c.is_ascii_alphanumeric()
            || matches!(c, b'_' | b'.' | b'*' | b'@' | b'+' | b'-' | b'/' | b'\\')
    };
    while let Some(&c) = b.get(at) {
        if path_char(c) {
            at += 1;
            continue;
        }
        let close = match c {
            b'{' => b'}',
            b'<' => b'>',
            _ => break,
        };
        let name = b[at + 1..]
            .iter()
            .take_while(|c| c.is_ascii_alphabetic() || matches!(c, b'_' | b'-'))
            .count();
        if name == 0 || b.get(at + 1 + name) != Some(&close) || b.get(at + 2 + name) != Some(&b'/')
        {
            break;
        }
        at += name + 3;
    }
    at
}

/// A folder named in prose by its bare name: `the references folder`, `scripts directory`.
static NAMED_FOLDER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b([A-Za-z0-9][A-Za-z0-9_-]*)`? (?:sub)?(?:folder|directory|dir)\b")
        .expect("valid regex")
});

static STEM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z0-9][A-Za-z0-9_-]*$").expect("valid regex"));

impl References {
    /// Collect and resolve every mention of `skill`, then walk from SKILL.md. `placeholders`
    /// are those the skill's targets expand to its folder (see `crate::targets`); a mention
    /// that starts with another known placeholder says so in [`Mention::unexpanded`].
    /// `repository` is the repository the skill is checked in, if any: a path that the skill
    /// folder does not hold is looked up there (the one place the resolver reads the disk).
    pub fn of(skill: &Skill, placeholders: &[&str], repository: Option<&Path>) -> References {
        let docs = docs(skill);
        let mut mentions = Vec::new();
        for (index, d) in docs.iter().enumerate() {
            collect(skill, placeholders, index, d, &mut mentions);
        }
        if let Some(repository) = repository {
            in_repository(skill, &docs, repository, &mut mentions);
        }
        let reach = walk(skill, &docs, &mentions);
        References { mentions, reach }
    }

    /// The mentions written in document `doc`.
    pub fn in_doc(&self, doc: usize) -> impl Iterator<Item = &Mention> {
        self.mentions.iter().filter(move |m| m.doc == doc)
    }
}

/// Look the mentions the skill folder does not hold up in the repository: from the
/// mentioning file's folder, then from the repository's root. Paths behind a placeholder
/// stand for the skill folder and stay as they are.
fn in_repository(skill: &Skill, docs: &[Doc<'_>], repository: &Path, mentions: &mut [Mention]) {
    let (Ok(repo), Ok(root)) = (repository.canonicalize(), skill.root.canonicalize()) else {
        return;
    };
    // A skill folder reached through a link is read from where it is linked, then from
    // where it lies.
    let linked = std::path::absolute(&skill.root)
        .ok()
        .filter(|p| p.starts_with(&repo) && *p != root);
    for m in mentions.iter_mut() {
        let missing = matches!(m.target, Target::Missing(_) | Target::Outside(_))
            || matches!(&m.target, Target::Glob(_, files) if files.is_empty());
        if !missing || strip_placeholder(skill, &m.written).is_some() || m.written.contains('*') {
            continue;
        }
        let written = m.written.replace('\\', "/");
        let dir = docs[m.doc].dir;
        let bases = linked
            .iter()
            .map(|l| l.join(dir))
            .chain([root.join(dir), repo.clone()]);
        for base in bases {
            let base = base.as_path();
            let Some(found) = lexical_join(base, &written) else {
                continue;
            };
            let inside =
                found.starts_with(&root) || linked.as_ref().is_some_and(|l| found.starts_with(l));
            if !found.starts_with(&repo) || inside || !found.exists() {
                continue;
            }
            let rel = found.strip_prefix(&repo).unwrap_or(&found);
            let rel: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            m.target = Target::Repository(rel.join("/"));
            break;
        }
    }
}

/// `base` joined with a relative `path`, `..` and `.` applied without touching the disk;
/// `None` for an absolute path or one that climbs above the file system's root.
fn lexical_join(base: &Path, path: &str) -> Option<PathBuf> {
    let mut out = base.to_path_buf();
    for comp in Path::new(path).components() {
        match comp {
            Component::Normal(p) => out.push(p),
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// The known placeholder `path` starts with that none of `placeholders` (the targets') is.
pub fn unexpanded(path: &str, placeholders: &[&str]) -> Option<&'static str> {
    KNOWN_PLACEHOLDERS
        .iter()
        .copied()
        .find(|p| path.starts_with(p) && !placeholders.contains(p))
}

/// Strip a known placeholder that stands for the skill folder; `None` when there is none.
/// Every known form resolves, so that a file behind one the targets do not expand is still
/// found; [`unexpanded`] says which are not the targets'.
pub fn strip_placeholder<'a>(skill: &Skill, path: &'a str) -> Option<&'a str> {
    let (placeholder, rest) = KNOWN_PLACEHOLDERS
        .iter()
        .find_map(|p| path.strip_prefix(p).map(|rest| (*p, rest)))?;
    let rest = rest.trim_start_matches('/');
    if placeholder.contains("PLUGIN_ROOT") {
        // A plugin root holds `skills/<folder>/`; a path elsewhere in the plugin is not ours.
        let folder = skill.folder_name().unwrap_or_default();
        return Some(
            rest.strip_prefix("skills/")
                .and_then(|r| r.strip_prefix(folder))
                .map_or(rest, |r| r.trim_start_matches('/')),
        );
    }
    Some(rest)
}

/// Resolve a written path from a document folder: a file, a folder, a glob, or nothing.
/// Paths are tried from the document's folder, then from the skill folder (authors write
/// both).
/// `None` when the path is nothing but template segments (see [`templated`]).
pub fn resolve(skill: &Skill, dir: &str, written: &str, in_code: bool) -> Option<Target> {
    let (path, anchored) = match strip_placeholder(skill, written) {
        Some(rest) => (rest, true),
        None => (written, false),
    };
    let path = path.replace('\\', "/");
    let path = templated(
        strip_install_prefix(skill, path.trim_start_matches("./")),
        in_code,
    )?;
    let path = path.as_str();
    let bases: &[&str] = if anchored || dir.is_empty() {
        &[""]
    } else {
        &[dir, ""]
    };
    for base in bases {
        let Some(rel) = normalize_rel(base, path).or_else(|| reentering(skill, base, path)) else {
            continue;
        };
        let rel = rel.trim_end_matches('/');
        if rel.contains('*') {
            let matched: Vec<String> = skill
                .files
                .iter()
                .filter(|f| glob_match(rel, &f.rel))
                .map(|f| f.rel.clone())
                .collect();
            if !matched.is_empty() {
                return Some(Target::Glob(rel.to_owned(), matched));
            }
        } else if rel.is_empty() || skill.has_dir(rel) {
            return Some(Target::Folder(rel.to_owned()));
        } else if rel == skill.manifest_name() || skill.file(rel).is_some() {
            return Some(Target::File(rel.to_owned()));
        }
    }
    // Nothing found: reported from the document's folder, as a reader resolves it.
    let base = if anchored { "" } else { dir };
    Some(
        match normalize_rel(base, path).or_else(|| reentering(skill, base, path)) {
            None => Target::Outside(written.to_owned()),
            Some(rel) if rel.contains('*') => Target::Glob(rel, Vec::new()),
            Some(rel) => Target::Missing(rel.trim_end_matches('/').to_owned()),
        },
    )
}

/// A path that climbs out of the skill folder and comes back into it
/// (`../my-skill/references/a.md` written in `my-skill/SKILL.md`), relative to the folder;
/// read without touching the disk.
fn reentering(skill: &Skill, base: &str, path: &str) -> Option<String> {
    let mut root = PathBuf::new();
    for part in std::path::absolute(&skill.root).ok()?.components() {
        match part {
            Component::ParentDir => {
                root.pop();
            }
            Component::CurDir => {}
            other => root.push(other),
        }
    }
    let found = lexical_join(&lexical_join(&root, base)?, path)?;
    let rel = found.strip_prefix(&root).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}

/// A document that is material for the user's own files rather than guidance for the agent:
/// a template or an asset (`templates/report.md`, `assets/README-template.md`), whose links
/// are placeholders for the document the user writes.
pub fn is_material(rel: &str) -> bool {
    rel.split('/')
        .rev()
        .skip(1)
        .any(|seg| matches!(seg, "templates" | "template" | "assets"))
        || rel
            .rsplit('/')
            .next()
            .is_some_and(|name| name.to_ascii_lowercase().contains("template"))
}

/// Text right before a path that makes it a file to create (`Create `scripts/x.py``, "save
/// it to", "add a new file at").
static CREATE_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:create|creates|creating|add|adding|write|writing|generate|generating|scaffold|scaffolding|mkdir(?: -p)?|touch|save (?:it |them |the \w+ )?(?:to|as|in|under)|output (?:to|in)|new)\s+(?:(?:an?|the|your|new|empty|own)\s+)*(?:(?:file|folder|directory)\s+)?(?:(?:at|in|to|called|named|under)\s+)?$",
    )
    .expect("valid regex")
});

/// A line that names the user's project, or the skill the user is writing.
static PROJECT_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\byour (?:own |new )?(?:skill|project|repo|repository|codebase|app|application)\b|\bthe (?:user's|user’s|target) (?:project|repo|repository|codebase|skill)\b|\bthe new skill\b",
    )
    .expect("valid regex")
});

/// Whether the mention at `span` of `text` is a file to create or a file of the user's
/// project or new skill, by its line.
fn foreign_on_line(text: &str, span: &Range<usize>) -> bool {
    let line_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[span.end..]
        .find('\n')
        .map_or(text.len(), |i| span.end + i);
    let before = text[line_start..span.start].trim_end_matches(['`', '"', '\'', '*']);
    CREATE_BEFORE.is_match(before) || PROJECT_LINE.is_match(&text[line_start..line_end])
}

/// A path written from a pack's root or an install folder (`skills/<folder>/x.md`,
/// `.claude/skills/<folder>/x.md`) names `x.md` of the skill `<folder>`.
fn strip_install_prefix<'a>(skill: &Skill, path: &'a str) -> &'a str {
    let Some(folder) = skill.folder_name() else {
        return path;
    };
    let marker = format!("skills/{folder}/");
    match path.find(&marker) {
        Some(at) if at == 0 || path[..at].ends_with('/') => &path[at + marker.len()..],
        _ => path,
    }
}

/// Template segments (`{lang}/`, `<language>/`) stand for any folder; a path ending in `/`
/// names everything below it. A path of template segments only (`<owner>/<repo>`,
/// `{output_dir}/report`) names no file of the skill (`None`), apart from a lone folder
/// template written as such outside code (the `{lang}/` guide).
fn templated(path: &str, in_code: bool) -> Option<String> {
    let mut out: Vec<String> = path
        .split('/')
        .map(|seg| {
            let inner = seg
                .strip_prefix('{')
                .and_then(|s| s.strip_suffix('}'))
                .or_else(|| seg.strip_prefix('<').and_then(|s| s.strip_suffix('>')));
            match inner {
                Some(name)
                    if !name.is_empty()
                        && name
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') =>
                {
                    "*".to_owned()
                }
                _ => seg.to_owned(),
            }
        })
        .collect();
    let templates = out.iter().filter(|seg| *seg == "*").count();
    let literal = out
        .iter()
        .any(|seg| seg != "*" && !seg.is_empty() && seg != "." && seg != "..");
    let lone_folder = templates == 1 && out.len() == 2 && out[1].is_empty() && !in_code;
    if templates > 0 && !literal && !lone_folder {
        return None;
    }
    if templates > 0 && out.last().is_some_and(String::is_empty) {
        out.pop();
        out.push("**".to_owned());
    }
    Some(out.join("/"))
}

/// A dotted Python module (`core.gif_builder`) as the file that holds it, when it exists.
fn module_file(skill: &Skill, token: &str) -> Option<String> {
    if token.contains('/') || !token.contains('.') {
        return None;
    }
    let parts: Vec<&str> = token.split('.').collect();
    (1..=parts.len()).rev().find_map(|n| {
        let rel = format!("{}.py", parts[..n].join("/"));
        skill.file(&rel).is_some().then_some(rel)
    })
}

/// `*` matches within one segment, `**` across segments.
fn glob_match(pattern: &str, path: &str) -> bool {
    fn go(p: &[u8], s: &[u8]) -> bool {
        match p.first() {
            None => s.is_empty(),
            Some(b'*') if p.get(1) == Some(&b'*') => {
                let rest = p[2..].strip_prefix(b"/").unwrap_or(&p[2..]);
                (0..=s.len()).any(|i| go(rest, &s[i..]))
            }
            Some(b'*') => (0..=s.len())
                .take_while(|&i| i == 0 || s[i - 1] != b'/')
                .any(|i| go(&p[1..], &s[i..])),
            Some(c) => s.first() == Some(c) && go(&p[1..], &s[1..]),
        }
    }
    go(pattern.as_bytes(), path.as_bytes())
}

/// Whether a token from prose or code looks like a path at all.
fn candidate(token: &str) -> bool {
    let core = token.trim_start_matches("./");
    let has_slash = core.contains('/') && !core.starts_with("//") && core.len() > 1;
    let has_ext = core.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=8).contains(&ext.len())
            && ext.bytes().all(|b| b.is_ascii_alphanumeric())
            && ext.bytes().any(|b| b.is_ascii_alphabetic())
    });
    (has_slash
        || has_ext
        || token.starts_with("./")
        || KNOWN_PLACEHOLDERS.iter().any(|p| token.starts_with(p)))
        && !core.contains("...")
}

fn collect(
    skill: &Skill,
    placeholders: &[&str],
    index: usize,
    d: &Doc<'_>,
    out: &mut Vec<Mention>,
) {
    let text = &d.source.text;
    let material = index > 0 && is_material(d.rel);
    let mut push =
        |span: Range<usize>, written: &str, form: Form, target: Target, include: bool| {
            let foreign = material || (form != Form::Stem && foreign_on_line(text, &span));
            out.push(Mention {
                doc: index,
                span,
                written: written.to_owned(),
                form,
                target,
                unexpanded: unexpanded(written, placeholders),
                foreign,
                include,
            });
        };
    for link in &d.doc.links {
        let dest = link.dest.trim();
        if dest.is_empty() || dest.starts_with('#') {
            continue;
        }
        let placeholder = strip_placeholder(skill, dest).is_some();
        if !placeholder && (dest.starts_with('/') || SCHEME.is_match(dest)) {
            continue;
        }
        let path = percent_decode(dest.split(['#', '?']).next().unwrap_or_default());
        if path.is_empty() {
            continue;
        }
        let Some(target) = resolve(skill, d.dir, &path, false) else {
            continue;
        };
        push(link.range.clone(), &path, Form::Link, target, false);
    }
    let in_link = |at: usize| d.doc.links.iter().any(|l| l.range.contains(&at));
    let regions = d
        .doc
        .inline_code
        .iter()
        .map(|r| (r.clone(), Form::Path))
        .chain(d.doc.prose_lines.iter().map(|r| (r.clone(), Form::Path)))
        .chain(
            d.doc
                .code_blocks
                .iter()
                .map(|b| (b.content.clone(), Form::Code)),
        );
    let mut seen: std::collections::HashSet<usize> = std::collections::HashSet::new();
    for (region, form) in regions {
        let slice = &text[region.clone()];
        for m in path_tokens(slice) {
            let start = region.start + m.start;
            let token = slice[m.clone()].trim_end_matches(['.', ',', ':', ';']);
            if token.is_empty() || in_link(start) || seen.contains(&start) {
                continue;
            }
            // A URL's path or an absolute path is not a path of the skill, nor is a path
            // built in a format string (`f"{output_dir}/report.md"`).
            let before = &slice[..m.start];
            let formatted = (token.starts_with('{')
                && (before.ends_with("f\"") || before.ends_with("f'")))
                // `<owner>/<repo>`: the token stops before a template it cannot hold.
                || slice[m.end..].starts_with(['<', '{']);
            if before.ends_with(':')
                || before.ends_with("//")
                || token.starts_with('/')
                || formatted
            {
                continue;
            }
            // `@path` in prose or inline code includes that file (Claude Code's import, also
            // used to pull in another client's instructions); the path is the rest.
            if form == Form::Path
                && let Some(rest) = token.strip_prefix('@')
                && !rest.starts_with('@')
                && candidate(rest)
            {
                seen.insert(start);
                if let Some(target) = resolve(skill, d.dir, rest, false) {
                    push(start + 1..start + token.len(), rest, form, target, true);
                }
                continue;
            }
            if let Some(rel) = module_file(skill, token) {
                seen.insert(start);
                push(
                    start..start + token.len(),
                    token,
                    form,
                    Target::File(rel),
                    false,
                );
                continue;
            }
            if !candidate(token) {
                continue;
            }
            seen.insert(start);
            let Some(target) = resolve(skill, d.dir, token, form == Form::Code) else {
                continue;
            };
            push(start..start + token.len(), token, form, target, false);
        }
    }
    // A folder of the skill named by its bare name: `references` in inline code, or "the
    // references folder" in prose.
    let folder_of = |name: &str| {
        [d.dir, ""]
            .iter()
            .filter_map(|base| normalize_rel(base, name))
            .map(|rel| rel.trim_end_matches('/').to_owned())
            .find(|rel| !rel.is_empty() && skill.has_dir(rel))
    };
    for code in &d.doc.inline_code {
        let inner = text[code.clone()].trim_matches('`').trim();
        let name = inner.strip_suffix('/').unwrap_or(inner);
        if STEM.is_match(name)
            && !seen.contains(&code.start)
            && let Some(rel) = folder_of(name)
        {
            push(code.clone(), name, Form::Path, Target::Folder(rel), false);
        }
    }
    for line in &d.doc.prose_lines {
        for c in NAMED_FOLDER.captures_iter(&text[line.clone()]) {
            let Some(m) = c.get(1) else { continue };
            let start = line.start + m.start();
            if in_link(start) || seen.contains(&start) {
                continue;
            }
            if let Some(rel) = folder_of(m.as_str()) {
                push(
                    start..start + m.len(),
                    m.as_str(),
                    Form::Path,
                    Target::Folder(rel),
                    false,
                );
            }
        }
    }
    // Stems: `async-defer-await` in inline code naming `rules/async-defer-await.md`.
    for code in &d.doc.inline_code {
        let inner = text[code.clone()].trim_matches('`').trim();
        if !STEM.is_match(inner) || inner.len() < 3 {
            continue;
        }
        for f in skill.files.iter().filter(|f| f.doc.is_some()) {
            let name = f.rel.rsplit('/').next().unwrap_or(&f.rel);
            if name.rsplit_once('.').is_some_and(|(stem, _)| stem == inner) {
                push(
                    code.clone(),
                    inner,
                    Form::Stem,
                    Target::File(f.rel.clone()),
                    false,
                );
            }
        }
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

/// Whether a file is a document the agent reads (markdown), as opposed to a script, data or
/// a binary asset that a referenced folder carries along.
fn is_document(skill: &Skill, rel: &str) -> bool {
    skill.file(rel).is_some_and(|f| f.doc.is_some())
}

/// A section or template file (`_template.md`, `_sections.md`): tooling input, reached when
/// its folder is.
fn is_section_file(rel: &str) -> bool {
    rel.rsplit('/').next().is_some_and(|n| n.starts_with('_'))
}

/// Breadth-first walk from SKILL.md. A named file is reached; a named folder (or the folder
/// of a named file, or a glob's folder) carries its non-document files and its section files;
/// markdown documents must be named themselves (by path, stem or glob).
fn walk(skill: &Skill, docs: &[Doc<'_>], mentions: &[Mention]) -> Vec<Option<Reach>> {
    let mut reach: Vec<Option<Reach>> = skill.files.iter().map(|_| None).collect();
    let index_of = |rel: &str| {
        skill
            .files
            .binary_search_by(|f| f.rel.as_str().cmp(rel))
            .ok()
    };
    let mut queue = VecDeque::from([(0usize, 0usize)]);
    let mut visited = vec![false; docs.len()];
    visited[0] = true;
    while let Some((doc, depth)) = queue.pop_front() {
        for (mi, m) in mentions.iter().enumerate().filter(|(_, m)| m.doc == doc) {
            let mut mark =
                |rel: &str, through_folder: bool, queue: &mut VecDeque<(usize, usize)>| {
                    let Some(fi) = index_of(rel) else { return };
                    if reach[fi].is_some() || rel == docs[doc].rel {
                        return;
                    }
                    reach[fi] = Some(Reach {
                        depth: depth + 1,
                        mention: mi,
                        through_folder,
                    });
                    if let Some(next) = docs.iter().position(|x| x.rel == rel)
                        && !visited[next]
                    {
                        visited[next] = true;
                        queue.push_back((next, depth + 1));
                    }
                };
            let (named, folders): (Vec<&str>, Vec<String>) = match &m.target {
                Target::File(rel) => (
                    vec![rel.as_str()],
                    vec![
                        rel.rsplit_once('/')
                            .map_or(String::new(), |(d, _)| d.to_owned()),
                    ],
                ),
                Target::Glob(pattern, files) => (
                    files.iter().map(String::as_str).collect(),
                    vec![glob_root(pattern)],
                ),
                Target::Folder(rel) => {
                    // A folder named as such carries everything in it.
                    let prefix = format!("{rel}/");
                    if !rel.is_empty() {
                        for f in skill.files.iter().filter(|f| f.rel.starts_with(&prefix)) {
                            mark(&f.rel, true, &mut queue);
                        }
                    }
                    continue;
                }
                _ => continue,
            };
            for rel in named {
                mark(rel, false, &mut queue);
            }
            for folder in folders {
                // The skill folder itself carries nothing: a file at the root is named or not.
                if folder.is_empty() {
                    continue;
                }
                let prefix = format!("{folder}/");
                for f in skill.files.iter().filter(|f| f.rel.starts_with(&prefix)) {
                    if !is_document(skill, &f.rel) || is_section_file(&f.rel) {
                        mark(&f.rel, true, &mut queue);
                    }
                }
            }
        }
    }
    reach
}

/// The folder part of a glob before its first wildcard segment.
fn glob_root(pattern: &str) -> String {
    let mut parts = Vec::new();
    for part in pattern.split('/') {
        if part.contains('*') {
            break;
        }
        parts.push(part);
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::{candidate, glob_match, glob_root, path_tokens};

    /// The expression [`path_tokens`] writes out, to check it against.
    const TOKEN: &str = r"(?:\$\{[A-Za-z_]+\}|\$[A-Z_]+|\{baseDir\})?(?:[A-Za-z0-9_.*@+\-/\\]|\{[A-Za-z_-]+\}/|<[A-Za-z_-]+>/)+";

    fn tokens(text: &str) -> Vec<&str> {
        path_tokens(text).map(|r| &text[r]).collect()
    }

    #[test]
    fn path_tokens_are_the_expression_read_leftmost_first() {
        let token = regex::Regex::new(TOKEN).expect("valid regex");
        // Text made of the characters the expression turns on, in every order a small
        // generator reaches, and a few written cases.
        let alphabet: Vec<char> = "aZ9_.*@+-/\\${}<>B bD:ir\u{e9}`".chars().collect();
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut cases: Vec<String> = [
            "see ${SKILL_DIR}/refs/a.md and $HOME/x",
            "{baseDir}/references/api.md, {baseDir} alone",
            "$A $AB $AB/c ${X} ${X}/y <owner>/<repo> {name}/file.md",
            "caf\u{e9}/men\u{fc}.md scripts\\run.ps1 e.g. `x.py`",
        ]
        .map(str::to_owned)
        .to_vec();
        for _ in 0..20_000 {
            let len = (state % 24) as usize;
            let text: String = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    alphabet[(state % alphabet.len() as u64) as usize]
                })
                .collect();
            cases.push(text);
        }
        for text in &cases {
            let expected: Vec<&str> = token.find_iter(text).map(|m| m.as_str()).collect();
            assert_eq!(tokens(text), expected, "in {text:?}");
        }
        assert_eq!(
            tokens("see ${SKILL_DIR}/refs/a.md and $HOME/x"),
            ["see", "${SKILL_DIR}/refs/a.md", "and", "$HOME/x"]
        );
        assert_eq!(tokens("$A b"), ["A", "b"]);
        assert_eq!(tokens("<owner>/<repo>"), ["<owner>/", "repo"]);
    }

    #[test]
    fn globs_match_within_and_across_segments() {
        assert!(glob_match("rules/*.md", "rules/a.md"));
        assert!(!glob_match("rules/*.md", "rules/x/a.md"));
        assert!(glob_match("rules/**/*.md", "rules/x/a.md"));
        assert!(glob_match("rules/**/*.md", "rules/a.md"));
        assert!(!glob_match("rules/*.md", "other/a.md"));
        assert_eq!(glob_root("rules/**/*.md"), "rules");
    }

    #[test]
    fn path_candidates_need_a_slash_an_extension_or_a_placeholder() {
        assert!(candidate("references/api.md"));
        assert!(candidate("./fonts"));
        assert!(candidate("forms.md"));
        assert!(candidate("{baseDir}/x"));
        assert!(!candidate("v1.2"));
        assert!(!candidate("word"));
        assert!(!candidate("and/or..."));
    }
}

//! SG5xx: the skill folder's structure — links, referenced files, reference depth, orphans,
//! code fences and path separators.

use crate::lint::RuleDoc;
use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use crate::finding::{Location, Severity};
use crate::lint::Context;
use crate::lint::Rule;
use crate::skill::references::{Form, Target, docs, strip_placeholder};
use crate::skill::{Skill, SkillFile, UnreadableWhy};
use crate::targets;

/// Whether the last segment of `rel` has a file extension.
fn has_extension(rel: &str) -> bool {
    rel.rsplit('/')
        .next()
        .and_then(|name| name.rsplit_once('.'))
        .is_some_and(|(stem, ext)| !stem.is_empty() && !ext.is_empty())
}

/// SG501.
pub const BROKEN_LINK: Rule = Rule {
    doc: RuleDoc {
        code: "SG501",
        name: "broken-link",
        severity: Severity::Error,
        summary: "A relative link points at a file that is not in the skill",
        what: "Resolves every relative link and image in SKILL.md and its markdown files against \
           the document's folder, then the skill folder, after expanding the placeholders \
           for the skill folder that the skill's targets expand (`${CLAUDE_SKILL_DIR}` and \
           `${CLAUDE_PLUGIN_ROOT}/skills/<name>` for Claude Code; `{baseDir}` and every other \
           known form for `generic`; docs/targets.md); flags targets that do not exist or lie \
           outside the folder, and a placeholder none of the targets expands (an info note when \
           the rest of the path names a file that exists: the model is told the skill's folder \
           and finds it). A missing target without a file extension (a wiki page or a route) is \
           not a file and is left alone, and so are links that are not the skill's: those in a \
           document template or asset (`templates/`, `assets/`, a `*template*` file), which \
           stand for the user's document, and paths the line says to create or names as the \
           user's project's or new skill's. A broken link in a file written for people \
           (CHANGELOG, LICENSE, a README beside SKILL.md, CONTRIBUTING), which no agent is sent \
           to, is a warning. Checked inside a repository (`--repo`, `gate`), a link the skill \
           folder does not hold is looked up in the repository, from the file's folder and then \
           from the root: for a skill kept in one of the repository's skill folders \
           (`.claude/skills/<name>`, `.agents/skills/<name>`, `.github/skills/<name>`, ...) it \
           is no finding; for a skill elsewhere (a pack's `skills/<name>`), which is copied when \
           installed, it is a warning. SG502 does the same for paths.",
        why: "An agent that follows a dead link wastes a turn and proceeds without the guidance \
          the author meant; a link outside the folder breaks once the skill is installed.",
        fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nRead [the style guide](references/style.md) first.\n",
        passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nRead [the style guide]({baseDir}/references/style.md) first.\n==> references/style.md <==\n# Style\n",
    },
    check: |cx, out| {
        let docs = docs(cx.skill);
        for m in cx
            .references()
            .mentions
            .iter()
            .filter(|m| m.form == Form::Link && !m.foreign)
        {
            let d = &docs[m.doc];
            if let Some(placeholder) = m.unexpanded {
                let (message, help) = unexpanded_placeholder(cx, placeholder, &m.written);
                let finding = out.report(d.source, m.span.clone(), message);
                finding.help(help);
                if m.target.exists() {
                    finding.severity(Severity::Info);
                }
                continue;
            }
            let message = match &m.target {
                Target::Repository(rel) => {
                    if kept_for_the_repository(cx) {
                        continue;
                    }
                    out.report(
                        d.source,
                        m.span.clone(),
                        format!("`{}` is a file of the repository (`{rel}`), outside the skill folder", m.written),
                    )
                    .severity(Severity::Warning)
                    .help("the link breaks once the skill is installed elsewhere: copy the file into the skill folder, or link it by URL");
                    continue;
                }
                // A target without an extension that names nothing is a wiki page or a
                // route (`internal-wiki/runbook`), not a file of the skill.
                Target::Missing(rel) if !has_extension(rel) => continue,
                Target::Missing(rel) => format!("`{rel}` does not exist in the skill folder"),
                Target::Glob(rel, files) if files.is_empty() => {
                    format!("`{rel}` matches no file in the skill folder")
                }
                Target::Outside(_) => format!("`{}` points outside the skill folder", m.written),
                _ => continue,
            };
            let finding = out.report(d.source, m.span.clone(), message);
            finding.help("fix the path, or add the file to the skill folder");
            if m.doc > 0 && for_people(d.rel) {
                finding.severity(Severity::Warning);
            }
        }
    },
};

/// Whether the skill lives in one of the repository's own skill folders
/// (`.claude/skills/<name>`, `.agents/skills/<name>`, `.github/skills/<name>`, ... at any
/// depth), where it is used in place: its links to the repository's files hold. A skill
/// elsewhere in the repository (a pack's `skills/<name>`) is copied when installed.
pub fn kept_for_the_repository(cx: &Context<'_>) -> bool {
    let Some(rel) = skill_in_repository(cx) else {
        return false;
    };
    let parent = rel.rsplit_once('/').map_or("", |(p, _)| p);
    let parent = format!("{parent}/");
    targets::CLIENTS
        .iter()
        .flat_map(|c| c.discovery)
        .filter(|d| !d.starts_with('~') && !d.starts_with('<'))
        .any(|d| parent == *d || parent.ends_with(&format!("/{d}")))
}

/// The skill folder's path from the root of the repository it is checked in.
fn skill_in_repository(cx: &Context<'_>) -> Option<String> {
    let project = cx.project?;
    let skill = std::path::absolute(&cx.skill.root).ok()?;
    let repo = std::path::absolute(&project.root).ok()?;
    let rel = skill.strip_prefix(&repo).ok()?;
    let rel: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(rel.join("/")).filter(|r| !r.is_empty())
}

/// A file written for people, which no agent is sent to: a changelog, a licence, a README
/// beside SKILL.md, contribution notes. A broken link there misleads a reader, not the agent.
pub fn for_people(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel).to_ascii_uppercase();
    [
        "CHANGELOG",
        "CHANGES",
        "HISTORY",
        "LICENSE",
        "LICENCE",
        "NOTICE",
        "README",
        "CONTRIBUTING",
        "CODE_OF_CONDUCT",
        "SECURITY",
        "AUTHORS",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

/// A message and help for a path that starts with a placeholder no target expands.
fn unexpanded_placeholder(cx: &Context<'_>, placeholder: &str, written: &str) -> (String, String) {
    let by = targets::expanded_by(placeholder);
    let chosen: Vec<_> = cx.settings.targets().iter().map(|t| t.client()).collect();
    let message = format!(
        "`{placeholder}` in `{written}` is not expanded by {}",
        targets::names(&chosen)
    );
    let help = if by.is_empty() {
        "write the path relative to the skill folder, or add `generic` to the targets".to_owned()
    } else {
        let ids: Vec<&str> = by.iter().map(|c| c.id).collect();
        format!(
            "{} expands it; add `{}` to the targets, or write the path relative to the skill folder",
            targets::names(&by),
            ids.join(",")
        )
    };
    (message, help)
}

/// Folders whose missing files SG502 reports: the specification's bundled-file folders.
const BUNDLED: &[&str] = &["scripts/", "references/", "assets/"];

/// A line that names a path as an illustration rather than as a file of this skill.
static HYPOTHETICAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:\be\.g\.|\bfor (?:example|instance)\b|\bsuch as\b|\b(?:would|could|might) be\b|\b(?:examples?|good|bad|avoid)\b\**\s*:|[✓✗])")
        .expect("valid regex")
});

/// SG502.
pub const MISSING_REFERENCED_FILE: Rule = Rule {
    doc: RuleDoc {
        code: "SG502",
        name: "missing-referenced-file",
        severity: Severity::Warning,
        summary: "Prose or inline code names a bundled file that does not exist",
        what: "Finds paths under `scripts/`, `references/` and `assets/` named in prose or inline \
           code (not in links, which SG501 checks), the targets' placeholders expanded, and \
           flags those missing from the folder and those behind a placeholder no target expands. A line that gives the path as an illustration \
           (\"e.g.\", \"for example\", \"such as\", \"would be\", \"Good:\", a ✓ or ✗ mark), a \
           path to create (\"Create `scripts/x.py`\") and a path of the user's project or of \
           the skill the user writes (\"your project\", \"your skill\") are not references. \
           Behind a placeholder no target expands, a path that names an existing file is an \
           info note.",
        why: "The agent will try to run or read the file and fail, often mid-task.",
        fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nRun `python scripts/format_notes.py` on each note.\n",
        passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nRun `python ${CLAUDE_SKILL_DIR}/scripts/format_notes.py` on each note.\n==> scripts/format_notes.py <==\nprint('ok')\n",
    },
    check: |cx, out| {
        let docs = docs(cx.skill);
        let mut seen = Vec::new();
        for m in cx
            .references()
            .mentions
            .iter()
            .filter(|m| m.form == Form::Path && !m.foreign)
        {
            if let Target::Repository(rel) = &m.target {
                if !kept_for_the_repository(cx) && !seen.contains(&(m.doc, m.span.start)) {
                    seen.push((m.doc, m.span.start));
                    out.report(
                        docs[m.doc].source,
                        m.span.clone(),
                        format!("`{}` is a file of the repository (`{rel}`), outside the skill folder", m.written),
                    )
                    .help("the path breaks once the skill is installed elsewhere: bundle the file in the skill folder");
                }
                continue;
            }
            if !matches!(m.target, Target::Missing(_)) && m.unexpanded.is_none() {
                continue;
            }
            let written = strip_placeholder(cx.skill, &m.written).unwrap_or(&m.written);
            let bundled = BUNDLED
                .iter()
                .any(|b| written.trim_start_matches("./").starts_with(b))
                && written.rsplit_once('.').is_some_and(|(stem, ext)| {
                    !stem.ends_with('/') && ext.bytes().all(|b| b.is_ascii_alphanumeric())
                });
            let d = &docs[m.doc];
            let line = d.source.line_range(d.source.line_index(m.span.start));
            let illustration = HYPOTHETICAL.is_match(&d.source.text[line].to_ascii_lowercase());
            if !bundled || illustration || seen.contains(&(m.doc, m.span.start)) {
                continue;
            }
            seen.push((m.doc, m.span.start));
            if let Some(placeholder) = m.unexpanded {
                let (message, help) = unexpanded_placeholder(cx, placeholder, &m.written);
                let finding = out.report(d.source, m.span.clone(), message);
                finding.help(help);
                if m.target.exists() {
                    finding.severity(Severity::Info);
                }
                continue;
            }
            out.report(
                d.source,
                m.span.clone(),
                format!(
                    "`{}` is named here but is not in the skill folder",
                    m.written
                ),
            )
            .help("add the file, or correct the path");
        }
    },
};

/// SG503.
pub const REFERENCE_TOO_DEEP: Rule = Rule {
    doc: RuleDoc {
        code: "SG503",
        name: "reference-too-deep",
        severity: Severity::Warning,
        summary: "A reference is reachable only through another reference",
        what: "Walks every mention (links, paths, stems, globs) from SKILL.md and flags markdown \
           files first reached at depth two or more (SKILL.md -> a.md -> b.md). A path built in \
           a format string (`f\"{output_dir}/\"`) or written only of template segments \
           (`<owner>/<repo>`) names no file of the skill.",
        why: "Agents read nested references partially or not at all; keep every reference one \
          link away from SKILL.md.",
        fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nSee [the guide](references/guide.md).\n==> references/guide.md <==\n# Guide\nDetails are in [details](details.md).\n==> references/details.md <==\n# Details\n",
        passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nSee [the guide](references/guide.md) and [details](references/details.md).\n==> references/guide.md <==\n# Guide\nDetails are in [details](details.md).\n==> references/details.md <==\n# Details\n",
    },
    check: |cx, out| {
        let docs = docs(cx.skill);
        let refs = cx.references();
        for (file, reach) in cx.skill.files.iter().zip(&refs.reach) {
            let Some(reach) = reach
                .as_ref()
                .filter(|r| r.depth > 1 && !r.through_folder && file.doc.is_some())
            else {
                continue;
            };
            let m = &refs.mentions[reach.mention];
            let via = &docs[m.doc];
            out.report(
                via.source,
                m.span.clone(),
                format!(
                    "`{}` is {} links away from SKILL.md (through `{}`)",
                    file.rel, reach.depth, via.rel
                ),
            )
            .help(format!("link `{}` directly from SKILL.md", file.rel));
        }
    },
};

/// Files no agent needs to be told about: dotfiles, licences and project notes, files a
/// client reads itself (`metadata.json` beside SKILL.md, Codex's `agents/openai.yaml`) and
/// evaluation folders that the skill's own tooling reads.
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
        || matches!(
            rel,
            "metadata.json" | "agents/openai.yaml" | "skillgate.toml"
        )
        || matches!(
            name,
            "requirements.txt"
                | "package.json"
                | "package-lock.json"
                | "pyproject.toml"
                | "__init__.py"
        )
        || ["evals/", "evaluations/"]
            .iter()
            .any(|p| rel.starts_with(p))
}

static YAML_PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"[A-Za-z0-9_./-]+\.(?:png|svg|jpe?g|webp|ico|gif)\b"#).expect("valid regex")
});

/// Files Codex's `agents/openai.yaml` names (its icons), which the client reads.
fn named_by_client(skill: &Skill) -> Vec<String> {
    let Some(text) = skill
        .file("agents/openai.yaml")
        .and_then(|f| f.source.as_ref())
        .map(|s| s.text.as_str())
    else {
        return Vec::new();
    };
    YAML_PATH
        .find_iter(text)
        .flat_map(|m| {
            let p = m.as_str().trim_start_matches("./");
            [p.to_owned(), format!("agents/{p}")]
        })
        .collect()
}

/// The outermost folder below `rel` (exclusive of the skill folder) whose files are all
/// unreached, when it holds more than one file.
fn orphan_folder<'a>(rel: &'a str, orphan: &dyn Fn(&str) -> Option<usize>) -> Option<&'a str> {
    let mut end = 0;
    let mut best = None;
    while let Some(at) = rel[end..].find('/') {
        end += at;
        let folder = &rel[..end];
        if orphan(folder).is_some_and(|n| n > 1) {
            best = Some(folder);
            break;
        }
        end += 1;
    }
    best
}

fn file_location(skill: &Skill, file: &SkillFile) -> Location {
    match &file.source {
        Some(src) => src.location(0..0),
        None => Location {
            path: skill.root.join(&file.rel),
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 1,
            span: 0..0,
        },
    }
}

/// SG504.
pub const ORPHAN_FILE: Rule = Rule {
    doc: RuleDoc {
        code: "SG504",
        name: "orphan-file",
        severity: Severity::Info,
        summary: "A file or folder of the skill is never linked or named",
        what: "Flags files that no mention reaches from SKILL.md, directly or through reached \
           references: one finding per unreferenced folder (its files listed as related) or \
           per single file. A folder named as such (\"the `./fonts` directory\", `themes/`, \
           `references` in inline code, \"the references folder\") \
           carries every file in it; a named file's folder and a glob's folder carry their \
           scripts, data, binary assets and `_`-prefixed section files, while markdown documents \
           there must be named themselves, by path, by stem (`` `async-defer-await` ``) or by \
           a glob (`rules/*.md`, `{lang}/`) or an `@path` include (`@references/api.md`); a \
           path of template segments only \
           (`<owner>/<repo>`) matches nothing, so it hides no orphan. Paths written from the pack root \
           (`skills/<folder>/x.md`) and dotted Python modules (`core.gif_builder`) resolve too. \
           Dotfiles, licences, README/CHANGELOG, `metadata.json`, `skillgate.toml`, Codex's \
           `agents/openai.yaml` with the icons it names, script manifests \
           (`requirements.txt`, `package.json`, `pyproject.toml`, `__init__.py`) and `evals/` \
           folders are exempt.",
        why: "The agent only finds files the skill points to; an unreferenced file is dead weight \
          in every install, or a reference someone forgot to link.",
        fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\n# Notes\n==> references/old-guide.md <==\n# Old guide\n",
        passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\n# Notes\nSee [the guide](references/old-guide.md).\n==> references/old-guide.md <==\n# Old guide\n",
    },
    check: |cx, out| {
        let skill = cx.skill;
        let client = named_by_client(skill);
        let orphans: Vec<&SkillFile> = skill
            .files
            .iter()
            .zip(&cx.references().reach)
            .filter(|(f, r)| r.is_none() && !is_exempt(&f.rel) && !client.contains(&f.rel))
            .map(|(f, _)| f)
            .collect();
        // Per folder: how many files it holds, and how many of them are orphans.
        let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for f in &skill.files {
            let is_orphan = orphans.iter().any(|o| o.rel == f.rel);
            let mut end = 0;
            while let Some(at) = f.rel[end..].find('/') {
                end += at;
                let entry = counts.entry(&f.rel[..end]).or_default();
                entry.0 += 1;
                entry.1 += usize::from(is_orphan);
                end += 1;
            }
        }
        let whole = |folder: &str| {
            counts
                .get(folder)
                .filter(|(all, orphan)| all == orphan)
                .map(|(all, _)| *all)
        };
        let mut folders: BTreeMap<&str, Vec<&SkillFile>> = BTreeMap::new();
        for f in &orphans {
            match orphan_folder(&f.rel, &whole) {
                Some(folder) => folders.entry(folder).or_default().push(f),
                None => {
                    let message = format!("`{}` is not linked or named from SKILL.md", f.rel);
                    match &f.source {
                        Some(src) => out.report(src, 0..0, message),
                        None => out.report(&skill.source, skill.source.line_range(0), message),
                    }
                    .help("link it where the agent needs it, or delete it");
                }
            }
        }
        for (folder, files) in folders {
            let finding = out.report(
                &skill.source,
                skill.source.line_range(0),
                format!(
                    "the folder `{folder}/` ({} files) is not linked or named from SKILL.md",
                    files.len()
                ),
            );
            finding.help("name the folder where the agent needs it, or delete it");
            for f in files {
                finding.related_at(file_location(skill, f), "not referenced");
            }
        }
    },
};

/// Where the code fence opened at `open` should close, and the closing line: before the next
/// heading (after the last non-blank line above it), or at the end of the file.
fn closing_fence(text: &str, open: usize) -> (usize, String) {
    let line_end = text[open..].find('\n').map_or(text.len(), |i| open + i + 1);
    let opener = text[open..line_end].trim_start();
    let mark = opener.chars().next().unwrap_or('`');
    let width = opener.chars().take_while(|&c| c == mark).count().max(3);
    let fence: String = std::iter::repeat_n(mark, width).collect();
    let mut pos = line_end;
    let mut last_content_end = line_end;
    while pos < text.len() {
        let end = text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1);
        let line = &text[pos..end];
        let is_heading = line.starts_with('#')
            && line
                .trim_start_matches('#')
                .starts_with([' ', '\t', '\n', '\r']);
        if is_heading {
            return (last_content_end, format!("{fence}\n"));
        }
        if !line.trim().is_empty() {
            last_content_end = end;
        }
        pos = end;
    }
    if text.ends_with('\n') || text.is_empty() {
        (last_content_end.min(text.len()), format!("{fence}\n"))
    } else {
        (text.len(), format!("\n{fence}\n"))
    }
}

/// SG505.
pub const UNCLOSED_CODE_FENCE: Rule = Rule {
    doc: RuleDoc {
        code: "SG505",
        name: "unclosed-code-fence",
        severity: Severity::Error,
        summary: "A code fence is never closed",
        what: "Flags a fenced code block with no closing fence in SKILL.md or its markdown files.",
        why: "Everything after the opening fence becomes code: the agent reads the rest of the \
          skill as an example instead of as instructions.",
        fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nFormat every note before you commit it, so that headings and lists stay stable.\n\n```sh\nnotes fmt\n\n## Rules\nNever edit generated notes.\n",
        passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\n```sh\nnotes fmt\n```\n\n## Rules\nNever edit generated notes.\n",
    },
    check: |cx, out| {
        for d in docs(cx.skill) {
            for block in d.doc.code_blocks.iter().filter(|b| !b.closed) {
                let open = d.source.line_range(d.source.line_index(block.range.start));
                let (at, fence) = closing_fence(&d.source.text, block.range.start);
                // Inside a blockquote or a list item the closing line needs the container's
                // markers too: offered, never applied by `--fix` alone.
                let contained = !d.source.text[open.start..block.range.start]
                    .trim()
                    .is_empty();
                out.report(d.source, open, "this code fence is never closed")
                    .help("close it with a matching fence line")
                    .fix(
                        d.source,
                        "close the code fence at the end of its section",
                        !contained,
                        vec![(at..at, fence)],
                    );
            }
        }
    },
};

static BACKSLASH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:[A-Za-z0-9_.-]+\\)+[A-Za-z0-9][A-Za-z0-9_-]*\.[A-Za-z0-9]{1,5}(?-u:\b)")
        .expect("valid regex")
});

/// A line written for Windows users.
static WINDOWS_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:windows|powershell|cmd(?:\.exe)?|wsl|explorer|registry)\b")
        .expect("valid regex")
});

/// SG507.
pub const OUTSIDE_DISCOVERY_FOLDERS: Rule = Rule {
    doc: RuleDoc {
        code: "SG507",
        name: "outside-discovery-folders",
        severity: Severity::Info,
        summary: "No target discovers skills where this one lies in the repository",
        what: "When the skill is checked inside the repository (`--repo`), compares its folder with \
           the folders the skill's targets discover skills in (docs/targets.md): \
           `.claude/skills/<name>` for Claude Code, `.agents/skills/<name>` for Codex, \
           `.cursor/skills/<name>` for Cursor, `.github/skills/<name>` for GitHub Copilot, a \
           plugin's `skills/<name>` for Claude Code, at any depth. A note names the folders \
           when none matches; silent outside a repository, for `generic` alone, and for a \
           folder nested deeper under a `skills/` (a pack's catalog such as \
           `skills/.curated/<name>`, which is installed by copying).",
        why: "A skill no client finds is never loaded: an agent working in the repository runs \
          without it, however good it is. A pack that is copied into place when installed \
          can ignore the note.",
        fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nKeep each note under five lines.\n==> @repo/README.md <==\n# Notes app\n",
        passes: "@folder .agents/skills/demo\n---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nKeep each note under five lines.\n==> @repo/README.md <==\n# Notes app\n",
    },
    check: |cx, out| {
        let Some(project) = cx.project else { return };
        let (Ok(skill), Ok(repo)) = (
            std::path::absolute(&cx.skill.root),
            std::path::absolute(&project.root),
        ) else {
            return;
        };
        let Ok(rel) = skill.strip_prefix(&repo) else {
            return;
        };
        let rel: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let rel = rel.join("/");
        let targets = cx.settings.targets();
        let folders: Vec<&str> = targets
            .iter()
            .flat_map(|t| t.client().discovery)
            .filter(|d| !d.starts_with('~'))
            .copied()
            .collect();
        // A folder nested deeper than `skills/<name>` is a pack's catalog
        // (`skills/.curated/x`), installed by copying; the note is for skills a project keeps
        // for its own agents.
        let catalog = rel.split('/').rev().skip(2).any(|seg| seg == "skills");
        if rel.is_empty()
            || catalog
            || folders.is_empty()
            || !targets::discovering(&rel, targets).is_empty()
        {
            return;
        }
        let mut shown: Vec<String> = Vec::new();
        for d in folders {
            let d = format!("`{d}`");
            if !shown.contains(&d) {
                shown.push(d);
            }
        }
        let chosen: Vec<_> = targets
            .iter()
            .map(|t| t.client())
            .filter(|c| !c.discovery.is_empty())
            .collect();
        let end = cx
            .skill
            .source
            .text
            .find('\n')
            .unwrap_or(cx.skill.source.text.len());
        out.report(
            &cx.skill.source,
            0..end,
            format!(
                "`{rel}/` is outside the skill folders of {}",
                targets::names(&chosen)
            ),
        )
        .help(format!(
            "move the folder under one of {}, or install it there",
            shown.join(", ")
        ));
    },
};

/// SG506.
pub const BACKSLASH_PATH: Rule = Rule {
    doc: RuleDoc {
        code: "SG506",
        name: "backslash-path",
        severity: Severity::Warning,
        summary: "A path uses backslashes",
        what: "Flags Windows-style paths (`scripts\\run.py`) in links, inline code and prose, \
           except on a line that shows them as what to avoid (\"✗\", \"Avoid:\", \"Bad:\"), a \
           path on a Windows drive or share (`C:\\Users\\name\\...`, `%APPDATA%\\x`) and a \
           line written for Windows users (\"Windows\", \"PowerShell\", \"cmd\"). Code blocks \
           are never read, so the fix never rewrites them.",
        why: "Agents run on Unix-like systems where backslashes are not separators; the path \
          does not resolve.",
        fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nRun `python scripts\\format_notes.py`.\n==> scripts/format_notes.py <==\nprint('ok')\n",
        passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nRun `python scripts/format_notes.py`.\n==> scripts/format_notes.py <==\nprint('ok')\n",
    },
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
                    let line = d.source.line_range(d.source.line_index(span.start));
                    let lowered = text[line.clone()].to_ascii_lowercase();
                    let illustration = HYPOTHETICAL.is_match(&lowered);
                    // A path on a Windows drive or share (`C:\Users\name\...`,
                    // `%APPDATA%\x`, `\\server\x`), or on a line written for Windows users,
                    // is a Windows path on purpose.
                    let before = &text[line.start..span.start];
                    let windows = before.ends_with('\\')
                        || before.ends_with('%')
                        || WINDOWS_LINE.is_match(&lowered);
                    if seen.contains(&span.start) || illustration || windows {
                        continue;
                    }
                    seen.push(span.start);
                    let forward = m.as_str().replace('\\', "/");
                    out.report(
                        d.source,
                        span.clone(),
                        format!("`{}` uses backslashes", m.as_str()),
                    )
                    .help(format!("write `{forward}`"))
                    .fix(
                        d.source,
                        format!("write `{forward}`"),
                        true,
                        vec![(span, forward.clone())],
                    );
                }
            }
        }
    },
};

/// SG508.
pub const UNREADABLE_ENTRY: Rule = Rule {
    doc: RuleDoc {
        code: "SG508",
        name: "unreadable-entry",
        severity: Severity::Warning,
        summary: "An entry of the skill folder cannot be read",
        what: "Flags each file or folder of the skill that the system refuses to read (a loop of \
           symbolic links such as `a -> b`, `b -> a`, a link to nothing, permission denied), \
           one finding per entry; the rest of the skill is read and checked without it. A \
           symbolic link whose target lies outside the skill folder is followed when the \
           target is inside the git repository that holds the skill (a `scripts` link to the \
           repository's own scripts); outside it, the link is not read and the finding is an \
           error.",
        why: "The agent gets the same refusal when it opens the file, and an installer copying the \
          folder fails or copies a broken link; a link out of the repository would ship or read \
          files the author never meant to be part of the skill.",
        fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nKeep each note under five lines.\n==> notes.md -> drafts.md <==\n==> drafts.md -> notes.md <==\n",
        passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nKeep each note under five lines; see [notes](notes.md).\n==> notes.md <==\n# Notes\n==> drafts.md -> notes.md <==\n",
    },
    check: |cx, out| {
        let skill = cx.skill;
        for entry in &skill.unreadable {
            let location = Location {
                path: skill.root.join(&entry.rel),
                line: 1,
                column: 1,
                end_line: 1,
                end_column: 1,
                span: 0..0,
            };
            let finding = out.report_at(location, format!("`{}` {}", entry.rel, entry.why));
            match &entry.why {
                UnreadableWhy::Outside(_) => {
                    finding
                        .severity(Severity::Error)
                        .help("copy the file into the skill folder, or remove the link");
                }
                UnreadableWhy::Io(_) => {
                    finding.help("fix or remove the entry; the skill was checked without it");
                }
            }
        }
    },
};

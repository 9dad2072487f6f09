//! SG3xx: what the skill tells the agent, and how.

use crate::lint::RuleDoc;
use std::sync::LazyLock;

use regex::Regex;

use super::prose_matches;
use crate::finding::Severity;
use crate::lint::Rule;
use crate::skill::quoted;

/// SG301.
pub const NO_PROHIBITIONS: Rule = Rule {
    doc: RuleDoc {
        code: "SG301",
        name: "no-prohibitions",
        severity: Severity::Info,
        summary: "The skill has no short \"don't\" rules",
        what: "Notes a body with no prohibition at all: no \"don't…\", \"never…\", \"avoid…\" \
           in its prose, and none of the other ways skills say what not to do (a ❌ or ✗ mark, \
           a section of mistakes, pitfalls, anti-patterns or red flags, \"is not allowed\", \
           \"only when…\", \"X, not Y\"), outside code blocks. Those forms come from the \
           measured false positives in docs/precision.md. A file SKILL.md includes with \
           `@path` (`@.github/copilot-instructions.md`) is read in with it: its prohibitions \
           count when the file exists, resolved like the skill's other paths (from the skill \
           folder, then, with `--repo`, from the repository).",
        why: "In published measurements the only reliably helpful slice of skills was short \
          \"don't\" rules: what not to do in this code base is what an agent cannot infer.",
        fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\n# Notes\n\nPut the title first, then the body.\n",
        passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\n# Notes\n\nPut the title first, then the body.\nNever edit generated notes by hand.\n",
    },
    check: |cx, out| {
        if !cx.skill.body.prose_lines.is_empty()
            && cx.skill.prohibition_lines().next().is_none()
            && !states_limits_otherwise(cx.skill)
            && !included_prohibits(cx)
        {
            let span = cx.skill.body.prose_lines[0].clone();
            out.report(&cx.skill.source, span, "the skill states no prohibitions")
                .help("add the few things an agent must not do here (\"Never edit files under gen/\")");
        }
    },
};

/// The other ways skills state what not to do (see SG301).
static OTHER_PROHIBITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(❌|✗|🚫|⛔|^#+ .*\b(mistakes?|pitfalls?|anti-?patterns?|red flags?|don'?ts|gotchas|what not to do)\b|\b(is|are) not (allowed|permitted)\b|\bforbidden\b|\bprohibited\b|\bonly (when|if|after|in response to)\b|, not [`\w])")
        .expect("valid regex")
});

/// The most of an included file read from the repository.
const INCLUDE_LIMIT: u64 = 1 << 20;

/// Whether a file SKILL.md includes with `@path` states a prohibition: a file of the skill,
/// or, checked in a repository, a file of the repository.
fn included_prohibits(cx: &crate::lint::Context<'_>) -> bool {
    use crate::skill::markdown::Document;
    use crate::skill::references::Target;
    let prohibits = |text: &str, doc: &Document| {
        doc.prose_lines.iter().any(|line| {
            let line = text[line.clone()].trim();
            crate::skill::PROHIBITION.is_match(&line.to_ascii_lowercase())
                || OTHER_PROHIBITION.is_match(line)
        })
    };
    cx.references()
        .in_doc(0)
        .filter(|m| m.include)
        .any(|m| match &m.target {
            Target::File(rel) => cx
                .skill
                .file(rel)
                .and_then(|f| f.source.as_ref().map(|src| (src, f.doc.as_ref())))
                .is_some_and(|(src, doc)| match doc {
                    Some(doc) => prohibits(&src.text, doc),
                    None => prohibits(
                        &src.text,
                        &Document::parse_uncounted(&src.text, 0..src.text.len()),
                    ),
                }),
            Target::Repository(rel) => cx.project.is_some_and(|project| {
                let path = project.root.join(rel);
                let small =
                    std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() <= INCLUDE_LIMIT);
                small
                    && std::fs::read_to_string(&path).is_ok_and(|text| {
                        prohibits(&text, &Document::parse_uncounted(&text, 0..text.len()))
                    })
            }),
            _ => false,
        })
}

/// Whether a line of the body's prose states a limit in one of the other forms.
fn states_limits_otherwise(skill: &crate::skill::Skill) -> bool {
    skill
        .body
        .prose_lines
        .iter()
        .any(|line| OTHER_PROHIBITION.is_match(skill.source.text[line.clone()].trim()))
}

static PINNED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u)\b(always (name|call) (it|them|the [A-Za-z0-9_]+)|use exactly|name it exactly|must be (called|named)|exactly (this|the following) (name|string|text|wording)|name (it|them) exactly|call (it|them) exactly)\b")
        .expect("valid regex")
});

/// SG302.
pub const PINNED_EXACT_NAME: Rule = Rule {
    doc: RuleDoc {
        code: "SG302",
        name: "pinned-exact-name",
        severity: Severity::Warning,
        summary: "The skill pins an exact name or string the agent must use",
        what: "Flags wording like \"always name it\", \"use exactly\", \"must be called\", \
           but not a function's call (\"`init()` must be called first\", \"must be called in \
           `main`\").",
        why: "Pinned strings cause retry lock-in: when a test expects something else, the agent \
          keeps reproducing the pinned text on every attempt instead of adapting.",
        fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nThe output file must be called notes_final.md.\n",
        passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nName the output file after the project's existing convention.\n",
    },
    check: |cx, out| {
        let text = &cx.skill.source.text;
        for span in prose_matches(cx.skill, &PINNED) {
            if is_invocation(&text[..span.start], &text[span.clone()], &text[span.end..]) {
                continue;
            }
            let phrase = cx.skill.source.text[span.clone()].to_owned();
            out.report(&cx.skill.source, span, format!("\"{phrase}\" pins an exact string"))
                .help("say what the name must achieve, or defer to the task and the repository's conventions");
        }
    },
};

/// What follows "must be called" when it speaks of invoking a function, not naming a thing
/// (`init()` must be called in `main`, must be called before the first request).
static CALLED_WHERE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^[ \t]+(in|inside|within|from|before|after|when|whenever|once|twice|first|again|on|at|by|during|for|each|every|exactly once|only|to)\b")
        .expect("valid regex")
});

/// Whether a "must be called" match speaks of calling a function: a place or time of the
/// call follows, or the subject is code written as a call (`` `init()` must be called ``).
fn is_invocation(before: &str, phrase: &str, after: &str) -> bool {
    if !phrase.ends_with("called") {
        return false;
    }
    let subject = before.trim_end().trim_end_matches(['*', '_']);
    CALLED_WHERE.is_match(after) || (subject.ends_with('`') && subject.ends_with(")`"))
}

static STALE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u)\b(as of ([A-Za-z0-9_]+ )?(19|20)[0-9][0-9]|as of (now|today|this writing)|currently|at the time of writing|the latest (version|release|stable)|latest stable|recently|nowadays|these days|newest version|brand[- ]new|(in|since) the last (few )?(months|weeks|years)|this year|next year|upcoming release)\b")
        .expect("valid regex")
});

/// A verb that has the agent look the value up at run time ("get the latest release", "store
/// the latest release tag"): what it finds then cannot go stale.
static LOOKED_UP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u)\b(get|fetch|find|look up|query|retrieve|determine|identify|resolve|read|check|store|record|note)$")
        .expect("valid regex")
});

/// A participle after "recently"/"currently" (`recently modified code`).
static RECENT_PARTICIPLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ (modified|changed|updated|added|edited|created|touched|written|merged|opened|active|selected|running|open|loaded|installed|invoked)\b")
        .expect("valid regex")
});

/// What a release makes brand new, as opposed to a thing the agent has just created.
static BRAND_NEW_RELEASE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[ \t]+(features?|apis?|releases?|versions?|syntax|hooks?|methods?|functions?|options?|flags?|frameworks?|librar(y|ies)|tools?|models?|standards?|specs?|specifications?|capabilit(y|ies))\b")
        .expect("valid regex")
});

/// SG303.
pub const TIME_SENSITIVE_CLAIM: Rule = Rule {
    doc: RuleDoc {
        code: "SG303",
        name: "time-sensitive-claim",
        severity: Severity::Warning,
        summary: "The skill makes a claim that goes stale",
        what: "Flags \"as of 2024\", \"currently\", \"the latest version\", \"recently\" and \
           similar wording, but not a word that describes instead of claiming \
           (\"recently modified code\", \"currently-invoked\", \"a brand-new app\" the \
           agent has just made), nor the latest release the agent is told to look up (\"get \
           the latest release tag\"), nor a cell of a table (a version table's \"latest \
           stable\" row).",
        why: "Skills outlive the moment they were written; \"the latest version\" becomes a \
          version mismatch, which measurably makes agents worse.",
        fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nInstall the latest version of the formatter.\n",
        passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nInstall the formatter version pinned in the repository's lockfile.\n",
    },
    check: |cx, out| {
        let text = &cx.skill.source.text;
        for span in prose_matches(cx.skill, &STALE) {
            // "recently modified code" and "currently-invoked" describe, they claim nothing.
            let after = text[span.end..].to_ascii_lowercase();
            if after.starts_with('-') || RECENT_PARTICIPLE.is_match(&after) {
                continue;
            }
            // "a brand-new app" is one just made; only a release can be brand new and stale.
            let phrase = text[span.clone()].to_ascii_lowercase();
            if phrase.starts_with("brand") && !BRAND_NEW_RELEASE.is_match(&after) {
                let before = text[..span.start].to_ascii_lowercase();
                let before = before.trim_end().trim_end_matches(['*', '_']).trim_end();
                let predicate = [" is", " are", " was", " were"]
                    .iter()
                    .any(|w| before.ends_with(w));
                if !predicate {
                    continue;
                }
            }
            // "Get the latest release tag" has the agent look it up, which cannot go stale.
            if phrase.starts_with("the latest") {
                let before = text[..span.start].to_ascii_lowercase();
                if LOOKED_UP.is_match(before.trim_end().trim_end_matches(['*', '_', '`'])) {
                    continue;
                }
            }
            // A table row ("| Node | latest stable |") names a channel to pick, beside the
            // versions the table lists.
            let line = cx
                .skill
                .source
                .line_range(cx.skill.source.line_index(span.start));
            if text[line].trim_start().starts_with('|') {
                continue;
            }
            let phrase = text[span.clone()].to_owned();
            out.report(
                &cx.skill.source,
                span,
                format!("\"{phrase}\" will go stale"),
            )
            .help("name the version or condition instead, or defer to the project's manifests");
        }
    },
};

static MENU: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u)\b(you (can|could|may) (use|choose|pick|try) (either|any|one of)|choose (between|from|one of)|(there are|several|many|multiple) (options|approaches|ways|alternatives|choices)|options include|alternatively,? you|either [A-Za-z0-9_./-]+([ \t]+[A-Za-z0-9_./-]+){0,4},? or\b)")
        .expect("valid regex")
});

static DEFAULT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u)\b(default|prefer|preferred|recommend|recommended|unless|otherwise|first choice|start with|use [A-Za-z0-9_./-]+ by default|go with)\b")
        .expect("valid regex")
});

/// A line that offers the choice to the user, asks a question, or lists capabilities.
static USER_CHOICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u)(\b(ask(s|ing)? (the user|them|whether|which)|the user (can|may|could|chooses|picks|wants|prefers|decides)|users? (can|may) (choose|pick|select)|let (the user|them) (choose|pick|decide)|offer (the user|them)|would you like|do you want|this skill (can|supports|handles)|(it|the skill) supports|capabilities)\b|\?[*_)\x22']*[ \t]*$)")
        .expect("valid regex")
});

/// How many prose lines after a menu may name its default.
const MENU_WINDOW: usize = 4;

/// SG304.
pub const MENU_WITHOUT_DEFAULT: Rule = Rule {
    doc: RuleDoc {
        code: "SG304",
        name: "menu-without-default",
        severity: Severity::Info,
        summary: "The skill offers alternatives without a default",
        what: "Flags \"you can use either…\", \"there are several options…\" and similar menus when \
           neither the line nor the next few name a default or a way to choose, and not on a \
           line that puts the choice to the user (\"ask the user which\", \"the user can \
           choose\"), asks a question or lists what the skill can do. Info level: \
           on public packs most hits were a choice offered to the user or a list of sources, \
           not a decision left to the agent (docs/precision.md).",
        why: "A menu moves the decision back to the agent, which then spends tokens weighing \
          options and picks inconsistently across runs; a default with an escape hatch does not.",
        fires: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nYou can use either pandoc, mdformat, or prettier to format the notes.\n",
        passes: "---\nname: demo\ndescription: Formats notes. Use when writing notes.\n---\nFormat notes with mdformat. Use prettier instead only when the repository already has a .prettierrc.\n",
    },
    check: |cx, out| {
        let text = &cx.skill.source.text;
        let lines = &cx.skill.body.prose_lines;
        for (i, line) in lines.iter().enumerate() {
            let lower = quoted::mask(&text[line.clone()]).to_ascii_lowercase();
            let Some(m) = MENU.find(&lower) else {
                continue;
            };
            // A choice put to the user, a question, or a list of what the skill can do is
            // not a decision left to the agent.
            if USER_CHOICE.is_match(&lower) {
                continue;
            }
            let window = &lines[i..(i + 1 + MENU_WINDOW).min(lines.len())];
            if window
                .iter()
                .any(|l| DEFAULT.is_match(&text[l.clone()].to_ascii_lowercase()))
            {
                continue;
            }
            let span = line.start + m.start()..line.start + m.end();
            out.report(
                &cx.skill.source,
                span,
                "alternatives are offered without a default",
            )
            .help("pick one as the default and say when to deviate (\"Use X; use Y only when …\")");
        }
    },
};

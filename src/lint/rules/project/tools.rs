//! SG404: the package manager, test runner and build tool a skill runs against the project's.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

use super::{file_line, located};
use crate::claims::{Analysis, Role, section_role};
use crate::lint::{Context, Emitter};
use crate::skill::Skill;
use crate::skill::code::{Lang, Span};
use crate::skill::quoted::{marks_shown, shown_at};

/// Tools of one kind: a project using one of them should not be told to use another.
const FAMILIES: &[(&str, &[&str])] = &[
    ("package manager", &["npm", "pnpm", "yarn", "bun"]),
    ("package manager", &["pip", "uv", "poetry", "pipenv"]),
    ("test runner", &["jest", "vitest", "mocha", "ava"]),
    (
        "bundler",
        &["vite", "webpack", "rollup", "esbuild", "parcel"],
    ),
    ("build tool", &["maven", "gradle"]),
    ("test framework", &["rspec", "minitest"]),
];

/// A command that runs another (`npx jest`, `uv run pytest`, `python -m pip`), and the
/// package manager it implies, if any.
static RUNNER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:npx|pnpx|bunx|pnpm exec|pnpm dlx|yarn dlx|yarn exec|uv run|uvx|poetry run|pipenv run|python3? -m|bundle exec)\s+")
        .expect("valid regex")
});

/// Installs of a tool itself, or global installs: not a project convention.
static SETUP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|\s)(?:-g|--global|--user)(?:\s|$)|\b(?:install|i|add)\s+(?:-\S+\s+)*(?:npm|pnpm|yarn|bun|uv|poetry|pipenv|pip)(?:[@=<>~\s]|$)")
        .expect("valid regex")
});

/// Lockfiles that tell which package manager a project uses: a line naming one is a
/// detection branch (`` `yarn.lock` exists → `yarn nx` ``), not an instruction.
const LOCKFILES: &[&str] = &[
    "package-lock.json",
    "npm-shrinkwrap.json",
    "pnpm-lock.yaml",
    "yarn.lock",
    "bun.lock",
    "bun.lockb",
    "uv.lock",
    "poetry.lock",
    "pipfile.lock",
];

/// Whether a command is one of several alternatives: its line names a lockfile (a
/// detection branch), or a comment on it offers another tool of its family
/// (`pnpm install   # or npm install / yarn install`).
fn is_alternative(line: &str, command: &str, family: &[&str]) -> bool {
    let lower = line.to_ascii_lowercase();
    if LOCKFILES.iter().any(|l| lower.contains(l)) {
        return true;
    }
    let Some((_, comment)) = command.split_once(" #") else {
        return false;
    };
    let comment = comment.to_ascii_lowercase();
    comment
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w == "or")
        && comment
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| family.contains(&w))
}

/// Package-manager commands that only read (`npm view react version`, `pip index versions
/// x`, `pip show`, `npm ls`): they change nothing in the project, whichever manager it uses.
fn is_query(command: &str) -> bool {
    let mut words = command.split_whitespace();
    let (Some(tool), Some(sub)) = (words.next(), words.next()) else {
        return false;
    };
    let queries: &[&str] = match tool {
        "npm" | "pnpm" | "yarn" | "bun" => &[
            "view",
            "info",
            "show",
            "ls",
            "list",
            "outdated",
            "why",
            "explain",
            "search",
            "--version",
            "-v",
            "config",
            "audit",
        ],
        "pip" | "pip3" => &[
            "index",
            "show",
            "list",
            "freeze",
            "check",
            "search",
            "--version",
            "-V",
            "config",
            "debug",
            "inspect",
            "download",
        ],
        "uv" => &["tree", "--version", "version"],
        "poetry" => &["show", "--version", "check", "search"],
        _ => return false,
    };
    // `npm audit fix` rewrites the lockfile; `npm audit` only reports.
    queries.contains(&sub) && !(sub == "audit" && words.next() == Some("fix"))
}

/// The tool a command line uses, with the name the scanner gives it.
fn tool_of(command: &str) -> Option<&'static str> {
    let command = command.trim().trim_start_matches(['$', '>']).trim_start();
    let command = command.strip_prefix("sudo ").unwrap_or(command);
    if SETUP.is_match(command) {
        return None;
    }
    let inner = RUNNER
        .find(command)
        .map(|m| &command[m.end()..])
        .unwrap_or(command);
    let word = inner.split_whitespace().next()?;
    let word = word.trim_start_matches("./");
    if is_query(inner) {
        return None;
    }
    let tool = match word {
        "jest" => "jest",
        "vitest" => "vitest",
        "mocha" => "mocha",
        "ava" => "ava",
        "vite" => "vite",
        "webpack" => "webpack",
        "rollup" => "rollup",
        "esbuild" => "esbuild",
        "parcel" => "parcel",
        "mvn" | "mvnw" => "maven",
        "gradle" | "gradlew" => "gradle",
        "rspec" | "bin/rspec" => "rspec",
        // `rails test` and `bin/rails test` run Minitest.
        "rails" | "bin/rails" if inner.split_whitespace().nth(1) == Some("test") => "minitest",
        _ if inner.len() != command.len() => {
            // `python -m pip install`: pip is the tool; other wrapped commands name none.
            return (word == "pip" || word == "pip3").then_some("pip");
        }
        "npm" => "npm",
        "pnpm" => "pnpm",
        "yarn" => "yarn",
        "bun" => "bun",
        "pip" | "pip3" => "pip",
        "uv" => "uv",
        "poetry" => "poetry",
        "pipenv" => "pipenv",
        _ => return None,
    };
    Some(tool)
}

/// Command lines of every document the agent reads (SKILL.md and the files it names), as
/// spans of the analysis: shell and console blocks line by line, and inline code. What the
/// skill only shows (a blockquote, a table row, a counter-example) or keeps for readers on
/// another setup (a gated, legacy or migration section) is left out.
/// The commands the skill tells the agent to run, in SKILL.md and every file it names: each
/// command's span, its text and the source line it stands on (for inline code, the prose
/// line around it).
fn command_lines<'s>(skill: &'s Skill, analysis: &Analysis) -> Vec<(Span, &'s str, &'s str)> {
    let mut lines = Vec::new();
    for (base, source, doc) in analysis.documents(skill) {
        let text = &source.text;
        let told = |at: usize| {
            shown_at(text, doc, at, false).is_none()
                && !introduced_as_shown(text, at)
                && !matches!(
                    section_role(doc, text, at),
                    Some(Role::Avoided | Role::Gated | Role::Source | Role::Fact)
                )
        };
        for block in &doc.code_blocks {
            let lang = block.lang.as_deref().and_then(Lang::from_tag);
            if !matches!(lang, Some(Lang::Shell | Lang::Console)) || !told(block.range.start) {
                continue;
            }
            let Some(body) = text.get(block.content.clone()) else {
                continue;
            };
            // A block that runs several tools of one kind lists alternatives (`npm run e2e`,
            // `pnpm e2e`): the reader picks their own.
            if offers_alternatives(body) {
                continue;
            }
            let mut at = block.content.start;
            // Lines under a comment such as `# if using npm` are for that setup only, up to
            // the next blank line.
            let mut conditional = false;
            for line in body.split_inclusive('\n') {
                let trimmed = line.trim();
                if trimmed.is_empty() {
                    conditional = false;
                } else if trimmed.starts_with('#') {
                    conditional = is_condition(trimmed);
                }
                // In a transcript only prompted lines are commands; the rest is their output.
                let prompted = line.trim_start().starts_with(['$', '>']);
                // `npm test / cargo test / pytest`: one of these, whichever applies.
                let listed = line.contains(" / ") || line.contains(" | pnpm ");
                if !conditional && !listed && (lang != Some(Lang::Console) || prompted) {
                    for part in line.split("&&").flat_map(|p| p.split(';')) {
                        let start = at + (part.as_ptr() as usize - line.as_ptr() as usize);
                        let end = start + part.trim_end().len();
                        lines.push((span(base, start, end), part, line));
                    }
                }
                at += line.len();
            }
        }
        // Inline code counts when it reads as a command with arguments (`npm install`), not
        // when it only names a tool (`npm`).
        for range in &doc.inline_code {
            let code = text.get(range.clone()).map(|c| c.trim_matches('`').trim());
            if let Some(code) = code.filter(|c| c.split_whitespace().nth(1).is_some())
                && told(range.start)
                && !among_alternatives(text, range.clone())
            {
                let from = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
                let to = text[range.end..]
                    .find('\n')
                    .map_or(text.len(), |i| range.end + i);
                lines.push((span(base, range.start, range.end), code, &text[from..to]));
            }
        }
    }
    lines
}

/// Whether the prose line right before `at` introduces what follows as not to run ("Never
/// run this:", "Wrong:"); a rule stated before a step ("Never publish without a review.")
/// does not.
fn introduced_as_shown(text: &str, at: usize) -> bool {
    let before = text.get(..at).unwrap_or_default();
    let line = before
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("```") && !l.starts_with("~~~"))
        .unwrap_or_default();
    line.ends_with(':') && marks_shown(line)
}

/// Whether a comment makes the lines below it conditional: `# if using webpack/vite`,
/// `# (optional) with npm`, `# or, with yarn:`.
fn is_condition(comment: &str) -> bool {
    let lower = comment.to_ascii_lowercase();
    [
        "if using",
        "if you use",
        "if you're using",
        "if you are using",
        "when using",
        "optional",
        "alternatively",
        "# or ",
        "# or,",
        "for npm",
        "for yarn",
        "for pnpm",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

/// Whether inline code stands in a list of alternatives: "(`npm test` / `cargo test` /
/// `pytest`)", "`npm install` or `yarn`".
fn among_alternatives(text: &str, range: std::ops::Range<usize>) -> bool {
    let after = text.get(range.end..).unwrap_or_default();
    let before = text.get(..range.start).unwrap_or_default();
    [" / `", "/`", " or `"]
        .iter()
        .any(|sep| after.starts_with(sep))
        || ["` / ", "`/", "` or "]
            .iter()
            .any(|sep| before.ends_with(sep))
}

/// Whether a shell block runs two or more tools of one kind.
fn offers_alternatives(body: &str) -> bool {
    let tools: Vec<&str> = body.lines().filter_map(tool_of).collect();
    FAMILIES.iter().any(|(_, family)| {
        let mut seen: Vec<&str> = tools
            .iter()
            .copied()
            .filter(|t| family.contains(t))
            .collect();
        seen.sort_unstable();
        seen.dedup();
        seen.len() > 1
    })
}

fn span(base: usize, start: usize, end: usize) -> Span {
    Span {
        start: base + start,
        end: base + end,
    }
}

/// SG404: each tool the skill runs where the project uses another of the same kind, once.
pub(super) fn tool_conflict(cx: &Context<'_>, out: &mut Emitter) {
    let Some(project) = cx.project else {
        return;
    };
    let tools = &project.tools;
    let used: Vec<_> = tools
        .package_manager
        .iter()
        .chain(&tools.test_runner)
        .chain(&tools.build_tool)
        .collect();
    let analysis = cx.analysis();
    let commands = command_lines(cx.skill, analysis);
    // A skill that also runs the project's own tool of a family offers the others as
    // alternatives (a section per package manager), not as the way to work.
    let runs: HashSet<&str> = commands.iter().filter_map(|(_, c, _)| tool_of(c)).collect();
    let mut reported = HashSet::new();
    for (span, line, source_line) in commands {
        let Some(tool) = tool_of(line) else {
            continue;
        };
        let Some((kind, family)) = FAMILIES.iter().find(|(_, f)| f.contains(&tool)) else {
            continue;
        };
        let theirs: Vec<_> = used
            .iter()
            .filter(|t| family.contains(&t.name.as_str()))
            .collect();
        if theirs.is_empty()
            || theirs
                .iter()
                .any(|t| t.name == tool || runs.contains(t.name.as_str()))
            || is_alternative(source_line, line, family)
            || !reported.insert(tool)
        {
            continue;
        }
        let mut names: Vec<&str> = theirs.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        let evidence = theirs.iter().find_map(|t| t.evidence.first());
        let shown = evidence
            .map(|e| format!(" ({})", file_line(e)))
            .unwrap_or_default();
        let finding = out
            .report_at(
                analysis.location(cx.skill, span),
                format!(
                    "the skill uses {tool}, but the project's {kind} is {}{shown}",
                    names.join(" and ")
                ),
            )
            .help(format!(
                "use {} as the project does, or leave the {kind} to the repository's conventions",
                names[0]
            ));
        if let Some(evidence) = evidence {
            finding.related_at(located(project, evidence), evidence.value.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_name_their_tools() {
        assert_eq!(tool_of("npm install zod"), Some("npm"));
        assert_eq!(tool_of("$ pnpm add zod"), Some("pnpm"));
        assert_eq!(tool_of("npx jest --watch"), Some("jest"));
        assert_eq!(tool_of("uv run pytest"), None);
        assert_eq!(tool_of("python -m pip install requests"), Some("pip"));
        assert_eq!(tool_of("./mvnw package"), Some("maven"));
        assert_eq!(tool_of("npm install -g pnpm"), None);
        assert_eq!(tool_of("pip install uv"), None);
        assert_eq!(tool_of("echo npm"), None);
        assert_eq!(tool_of("bundle exec rspec spec/models"), Some("rspec"));
        assert_eq!(tool_of("bin/rails test test/models"), Some("minitest"));
        assert_eq!(tool_of("pip index versions requests"), None);
        assert_eq!(tool_of("npm view react version"), None);
        assert_eq!(tool_of("npm audit fix"), Some("npm"));
    }

    #[test]
    fn alternatives_and_conditions_are_not_instructions() {
        assert!(offers_alternatives("npm run e2e\npnpm e2e\nng e2e\n"));
        assert!(!offers_alternatives("npm install\nnpm test\n"));
        assert!(!offers_alternatives("npm install\nnpx vitest\n"));
        assert!(is_condition("# Build static files (if using webpack/vite)"));
        assert!(!is_condition("# Build static files"));
        let text = "Never publish without a review.\n\n```sh\nnpm run build\n```\n";
        assert!(!introduced_as_shown(text, text.find("```").unwrap_or(0)));
        let text = "Never run this:\n\n```sh\nnpm install\n```\n";
        assert!(introduced_as_shown(text, text.find("```").unwrap_or(0)));
        let prose = "Run the suite (`npm test` / `cargo test`), then `npm run build`.";
        let at = |needle: &str| {
            let start = prose.find(needle).unwrap_or(0);
            start..start + needle.len()
        };
        assert!(among_alternatives(prose, at("`npm test`")));
        assert!(among_alternatives(prose, at("`cargo test`")));
        assert!(!among_alternatives(prose, at("`npm run build`")));
    }

    #[test]
    fn detection_branches_and_commented_alternatives_are_not_instructions() {
        let npm = &["npm", "pnpm", "yarn", "bun"][..];
        let branch = "   - `yarn.lock` exists → `yarn nx`";
        assert!(is_alternative(branch, "yarn nx", npm));
        let line = "pnpm install   # or npm install / yarn install";
        assert!(is_alternative(line, line, npm));
        // A comment that offers nothing else, and a plain command, are instructions.
        let line = "pnpm install   # installs everything";
        assert!(!is_alternative(line, line, npm));
        assert!(!is_alternative("Run `pnpm nx list`.", "pnpm nx list", npm));
    }
}

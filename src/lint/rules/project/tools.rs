//! SG404: the package manager, test runner and build tool a skill runs against the project's.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::{file_line, located};
use crate::lint::{Context, Emitter};
use crate::skill::Skill;
use crate::skill::code::Lang;

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
];

/// A command that runs another (`npx jest`, `uv run pytest`, `python -m pip`), and the
/// package manager it implies, if any.
static RUNNER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:npx|pnpx|bunx|pnpm exec|pnpm dlx|yarn dlx|yarn exec|uv run|uvx|poetry run|pipenv run|python3? -m)\s+")
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

/// Command lines of the skill: shell and console blocks line by line, and inline code.
fn command_lines(skill: &Skill) -> Vec<(Range<usize>, &str)> {
    let text = &skill.source.text;
    let mut lines = Vec::new();
    for block in &skill.body.code_blocks {
        let lang = block.lang.as_deref().and_then(Lang::from_tag);
        if !matches!(lang, Some(Lang::Shell | Lang::Console)) {
            continue;
        }
        let Some(body) = text.get(block.content.clone()) else {
            continue;
        };
        let mut at = block.content.start;
        for line in body.split_inclusive('\n') {
            // In a transcript only prompted lines are commands; the rest is their output.
            let prompted = line.trim_start().starts_with(['$', '>']);
            if lang != Some(Lang::Console) || prompted {
                for part in line.split("&&").flat_map(|p| p.split(';')) {
                    let start = at + (part.as_ptr() as usize - line.as_ptr() as usize);
                    lines.push((start..start + part.trim_end().len(), part));
                }
            }
            at += line.len();
        }
    }
    // Inline code counts when it reads as a command with arguments (`npm install`), not
    // when it only names a tool (`npm`).
    for span in &skill.body.inline_code {
        let code = text.get(span.clone()).map(|c| c.trim_matches('`').trim());
        if let Some(code) = code.filter(|c| c.split_whitespace().nth(1).is_some()) {
            lines.push((span.clone(), code));
        }
    }
    lines
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
    let commands = command_lines(cx.skill);
    // A skill that also runs the project's own tool of a family offers the others as
    // alternatives (a section per package manager), not as the way to work.
    let runs: HashSet<&str> = commands.iter().filter_map(|(_, c)| tool_of(c)).collect();
    let text = &cx.skill.source.text;
    let mut reported = HashSet::new();
    for (span, line) in commands {
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
        {
            continue;
        }
        let source_line = cx
            .skill
            .source
            .line_range(cx.skill.source.line_index(span.start));
        if is_alternative(&text[source_line], line, family) || !reported.insert(tool) {
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
            .report(
                &cx.skill.source,
                span,
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

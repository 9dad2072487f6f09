//! What a claim means in its sentence and section: the version the skill is written for,
//! or a version it warns against, a section for readers on another version, a fact about
//! a release, or a value inside a command that shows the syntax.
//!
//! Only the first is a claim about the skill itself; the others are read from the same
//! words ("MUST NOT use Pydantic V1 syntax", "Skip this section if using React 18",
//! "React 19 requires v16.1.0+", `uv add "django>=4.0,<5.0"`) and would be false
//! conflicts if taken at face value.

use crate::project::version::Requirement;

/// The role of a version claim in the skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// What the skill is written for ("This skill targets React 18").
    Target,
    /// A version the skill tells the reader not to use ("avoid Spring Boot 2.x patterns").
    Avoided,
    /// A passage for readers on that version only ("skip this section if using React 18").
    Gated,
    /// A statement about a release ("React 19 requires …", "added in Python 3.12").
    Fact,
    /// A constraint shown as syntax in a command (`uv add "django>=4.0,<5.0"`).
    Example,
    /// The version an upgrade starts from ("from Rails 7.2 to 8.1": 7.2).
    Source,
    /// The version an upgrade leads to ("upgrade to Rails 8.1", every version an upgrade
    /// skill names for its subject): the skill fits a project that is not there yet.
    Destination,
    /// One branch of a version list ("- Next.js 16+: `proxy.ts`", "**React 18:** ...").
    Branch,
    /// A version the skill recommends without needing it ("Java 25 recommended").
    Recommended,
    /// A value inside a template or an example ("e.g. Next.js 14", a report template's
    /// stack line): the reader fills in their own.
    Sample,
    /// A name in a keyword or trigger list ("Triggers on: Next.js 14, App Router").
    Keyword,
}

impl Role {
    /// Lower-case name, as printed in evidence.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Target => "target",
            Self::Avoided => "avoided",
            Self::Gated => "gated",
            Self::Fact => "fact",
            Self::Example => "example",
            Self::Source => "source",
            Self::Destination => "destination",
            Self::Branch => "branch",
            Self::Recommended => "recommended",
            Self::Sample => "sample",
            Self::Keyword => "keyword",
        }
    }
}

/// Words before a version, in its sentence, that warn against it.
const AVOID_BEFORE: &[&str] = &[
    "must not",
    "mustn't",
    "do not",
    "don't",
    "never",
    "avoid",
    "instead of",
    "rather than",
    "not ",
    "no more",
    "deprecated",
    "legacy",
    "outdated",
    "obsolete",
    "old ",
    "older",
    "unlike",
    "stop using",
    "away from",
    "drop ",
    "dropped",
    "removed",
    "replaces",
    "replacing",
];

/// Words right after a version that mark it as one to move away from.
const AVOID_AFTER: &[&str] = &[
    "(deprecated",
    "(legacy",
    "(old",
    "(outdated",
    "(eol",
    "(end of life",
    "is deprecated",
    "are deprecated",
    "is legacy",
    "is outdated",
    "is obsolete",
    "is end-of-life",
    "is end of life",
    "reached end",
    "is no longer",
    "are no longer",
    "no longer",
    "style is",
    "syntax is deprecated",
    "-style",
];

/// Words before a version, in its sentence, that restrict a passage to its readers.
const GATE_BEFORE: &[&str] = &[
    "if ",
    "unless",
    "skip",
    "when using",
    "when on",
    "when you use",
    "when you're on",
    "for projects on",
    "for projects using",
    "for projects still",
    "for apps on",
    "for codebases on",
    "users of",
    "still on",
    "stuck on",
    "only for",
    "otherwise",
];

/// Words right before a version that make the sentence a statement about that release.
const FACT_BEFORE: &[&str] = &[
    "since",
    "as of",
    "added in",
    "introduced in",
    "new in",
    "removed in",
    "deprecated in",
    "changed in",
    "released",
    "before",
    "prior to",
    "until",
    "starting with",
    "starting in",
    "starting from",
    "beginning with",
    "compared to",
    "compared with",
    "than",
    "in versions",
    "up to",
    "available in",
    "available since",
    "available from",
    "supported in",
    "supported since",
    "shipped in",
    "stable in",
];

/// Verbs right after a version that make it the subject of a statement about a release.
const FACT_AFTER: &[&str] = &[
    "requires",
    "require",
    "needs",
    "introduced",
    "introduces",
    "added",
    "adds",
    "removed",
    "removes",
    "deprecated",
    "deprecates",
    "changed",
    "changes",
    "ships",
    "shipped",
    "brings",
    "brought",
    "was released",
    "is released",
    "released",
    "made",
    "makes",
    "dropped",
    "drops",
    "replaced",
    "replaces",
    "renamed",
    "moved",
    "supports",
    "no longer",
    "features",
    "feature",
    "apis",
    "api",
    "changes",
    "highlights",
];

/// Words anywhere before a version, in its sentence, that make it a statement about when
/// something became available ("Available in Next.js 15+ canary builds and Next.js 16+").
const FACT_ANYWHERE: &[&str] = &[
    "available in",
    "added in",
    "introduced in",
    "new in",
    "removed in",
    "deprecated in",
    "supported in",
    "shipped in",
    "stable in",
    "changed in",
];

/// Verbs of requirement: "X requires Y" states a fact about X when X is a versioned thing.
const REQUIRE_VERBS: &[&str] = &[" requires ", " require ", " needs ", " need "];

/// Words before a version, in its sentence, that introduce a keyword or trigger list.
const KEYWORD_BEFORE: &[&str] = &[
    "triggers on",
    "trigger on",
    "triggers:",
    "trigger:",
    "trigger words",
    "trigger phrases",
    "keywords",
    "tags:",
    "activates on",
    "activate on",
    "mentions",
];

/// Words right before a version that make it one example among others.
const SAMPLE_BEFORE: &[&str] = &[
    "e.g.",
    "e.g.,",
    "eg.",
    "eg,",
    "for example",
    "for example,",
    "for instance",
    "for instance,",
    "such as",
];

/// Words before a version that recommend it.
const RECOMMEND_BEFORE: &[&str] = &["recommend", "prefer ", "preferably", "ideally", "consider "];

/// Words right after a version that recommend it.
const RECOMMEND_AFTER: &[&str] = &[
    "recommended",
    "(recommended",
    "is recommended",
    "preferred",
    "(preferred",
    "is preferred",
    "or later recommended",
    "+ recommended",
];

/// Words right before a version that lead to it ("upgrade to", "migrate to").
const DESTINATION_BEFORE: &[&str] = &[
    "upgrade to",
    "upgrading to",
    "upgraded to",
    "upgrades to",
    "migrate to",
    "migrating to",
    "migrated to",
    "migration to",
    "move to",
    "moving to",
    "bump to",
    "update to",
    "updating to",
];

/// Verbs before "on"/"in" that make "runs on Node 20+" a requirement rather than a gate.
const REQUIRING_VERBS: &[&str] = &[
    "run", "runs", "work", "works", "built", "build", "written", "based", "deployed", "tested",
    "only", "depends", "relies",
];

/// The role of a prose claim at `start..end` of `line`.
pub fn prose_role(line: &str, start: usize, end: usize) -> Role {
    let sentence = sentence_around(line, start, end);
    let before = line[sentence.start..start].to_ascii_lowercase();
    let after = line[end..sentence.end].to_ascii_lowercase();
    let after = after.trim_start_matches([' ', ',']);
    let written = line[start..end].to_ascii_lowercase();
    // "from React 17 to 18", "React 16 → 17 → 18": the first version is the one being left.
    let from_to =
        last_word(&before) == Some("from") && (after.starts_with("to ") || after.contains(" to "));
    if from_to
        || ["→", "->", "=>"]
            .iter()
            .any(|arrow| after.starts_with(arrow))
    {
        return Role::Source;
    }
    let trimmed = before.trim_end();
    // "from Django 4.2 to 5.0", "upgrade to Rails 8.1", "React 17 → React 18".
    if DESTINATION_BEFORE
        .iter()
        .any(|w| ends_with_word(trimmed, w))
        || (last_word(&before) == Some("to") && has_word(&before, "from "))
        || ["→", "->"].iter().any(|arrow| trimmed.ends_with(arrow))
    {
        return Role::Destination;
    }
    if KEYWORD_BEFORE.iter().any(|w| has_word(&before, w)) {
        return Role::Keyword;
    }
    if SAMPLE_BEFORE.iter().any(|w| ends_with_word(trimmed, w)) {
        return Role::Sample;
    }
    if is_branch(line, start, after) {
        return Role::Branch;
    }
    // A table row compares versions or lists contents; a parenthesis is an aside
    // ("Remove `forwardRef` (React 19 passes ref as prop)").
    if line.trim_start().starts_with('|') || inside_parentheses(&before, after) {
        return Role::Fact;
    }
    if AVOID_BEFORE.iter().any(|w| has_word(&before, w))
        || AVOID_AFTER.iter().any(|w| after.starts_with(w))
        || after_noun_then(after, AVOID_AFTER)
    {
        return Role::Avoided;
    }
    if RECOMMEND_AFTER.iter().any(|w| after.starts_with(w))
        || RECOMMEND_BEFORE.iter().any(|w| has_word(&before, w))
    {
        return Role::Recommended;
    }
    if GATE_BEFORE.iter().any(|w| has_word(&before, w)) || floor_gate(trimmed, &written) {
        return Role::Gated;
    }
    if FACT_BEFORE.iter().any(|w| ends_with_word(trimmed, w))
        || FACT_AFTER.iter().any(|w| starts_with_word(after, w))
        || after_noun_then(after, FACT_AFTER)
        || FACT_ANYWHERE.iter().any(|w| has_word(&before, w))
        || stated_of_another(&before)
    {
        return Role::Fact;
    }
    Role::Target
}

/// "On Java 21+, use virtual threads", "in Python >= 3.14 annotations are lazy": a floor
/// right after "on" or "in" opens a note for readers there, unless a verb makes it a
/// requirement ("runs on Node 20+").
fn floor_gate(before: &str, written: &str) -> bool {
    let floor = written.contains('+')
        || written.contains(">=")
        || written.contains('≥')
        || written.contains('>')
        || [
            "or later",
            "or newer",
            "or higher",
            "and above",
            "and later",
        ]
        .iter()
        .any(|w| written.contains(w));
    let mut words = before
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .rev();
    let (Some(last), previous) = (words.next(), words.next()) else {
        return false;
    };
    floor
        && matches!(last, "on" | "in")
        && !previous.is_some_and(|word| REQUIRING_VERBS.contains(&word))
}

/// Whether the claim opens its line as a label of one branch of a version list:
/// "- Next.js 16+: …", "**React 18:** …", "1. Python < 3.11 — …".
fn is_branch(line: &str, start: usize, after: &str) -> bool {
    let lead = line[..start].trim_start();
    if lead.starts_with('#') {
        return false;
    }
    let lead_is_marker = lead
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches(['-', '*', '+', '>', '.', ')', ' ', '_', '`'])
        .is_empty();
    let label = after.trim_start_matches(['*', '_', '`', ')', ' ']);
    lead_is_marker
        && (label.starts_with(':')
            || label.starts_with("— ")
            || label.starts_with("– ")
            || label.starts_with("- ")
            || label.starts_with("and below:")
            || label.starts_with("and earlier:"))
}

/// Whether the sentence before `start` says the skill is written for what follows:
/// "This skill targets", "written for", "designed for".
pub fn states_target(line: &str, start: usize) -> bool {
    let sentence = sentence_around(line, start, start);
    let before = line[sentence.start..start].to_ascii_lowercase();
    [
        "targets",
        "written for",
        "designed for",
        "built for",
        "this skill is for",
        "this skill covers",
        "assumes",
    ]
    .iter()
    .any(|w| has_word(&before, w))
}

/// The role a section heading gives the claims below it, if any: "If you are on React 18",
/// "Legacy (Pydantic V1)", "Migrating from Spring Boot 2".
pub fn heading_role(title: &str) -> Option<Role> {
    let lower = format!(" {} ", title.to_ascii_lowercase());
    let avoided = [
        "legacy",
        "deprecated",
        "old ",
        "older",
        "outdated",
        "anti-pattern",
        "antipattern",
        "don't",
        "do not",
        "avoid",
        "migrating from",
        "migrate from",
        "migration from",
        "upgrading from",
        "upgrade from",
        "what not",
        "pitfalls",
        "mistakes",
    ];
    if avoided.iter().any(|w| has_word(&lower, w)) {
        return Some(Role::Avoided);
    }
    let sample = [
        "template",
        "sample output",
        "example output",
        "output format",
        "report format",
        "output example",
    ];
    // "Example: Find Laravel 12 compatible packages": an illustration, not the skill's target.
    if sample.iter().any(|w| has_word(&lower, w)) || lower.trim_start().starts_with("example:") {
        return Some(Role::Sample);
    }
    let gated = ["if ", "unless", "for projects", "users of", "still on"];
    if gated.iter().any(|w| has_word(&lower, w)) {
        return Some(Role::Gated);
    }
    // A section about moving between versions names the versions on the way.
    let history = [
        "upgrade",
        "upgrading",
        "migration",
        "migrating",
        "breaking change",
        "changelog",
        "what's new",
        "whats new",
        "version history",
        "release notes",
        "compatibility",
    ];
    if history.iter().any(|w| has_word(&lower, w)) {
        return Some(Role::Fact);
    }
    None
}

/// The role the opening of a section gives the whole section, heading included: "React 19+
/// only. Skip this section if using React 18 or earlier."
pub fn section_opening_role(opening: &str) -> Option<Role> {
    let lower = opening.to_ascii_lowercase();
    [
        "skip this section",
        "this section only applies",
        "this section is only for",
        "+ only",
    ]
    .iter()
    .any(|w| lower.contains(w))
    .then_some(Role::Gated)
}

/// Whether an install argument's requirement only shows constraint syntax: a range with
/// both ends or with several parts (`"django>=4.0,<5.0"`), rather than a pin or a minimum.
pub fn constraint_example(written: &str, requirement: &Requirement) -> bool {
    if written.contains(',') || written.contains("||") {
        return true;
    }
    matches!(
        requirement,
        Requirement::Range {
            min: Some(_),
            max: Some(_),
        }
    )
}

/// The byte range of the sentence of `line` holding `start..end`.
fn sentence_around(line: &str, start: usize, end: usize) -> std::ops::Range<usize> {
    let is_stop = |text: &str, at: usize| {
        let bytes = text.as_bytes();
        matches!(bytes[at], b'.' | b';' | b'!' | b'?')
            && bytes.get(at + 1).is_none_or(|b| b.is_ascii_whitespace())
            && !["e.g", "i.e", "eg", "vs", "cf"]
                .iter()
                .any(|a| text[..at].to_ascii_lowercase().ends_with(a))
    };
    let from = (0..start)
        .rev()
        .find(|&at| is_stop(line, at))
        .map_or(0, |at| at + 1);
    let to = (end..line.len())
        .find(|&at| is_stop(line, at))
        .unwrap_or(line.len());
    from..to
}

/// Whether `word` occurs in `text` starting at a word boundary.
fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        text[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric())
    })
}

fn ends_with_word(text: &str, word: &str) -> bool {
    text.strip_suffix(word).is_some_and(|rest| {
        rest.chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric())
    })
}

fn starts_with_word(text: &str, word: &str) -> bool {
    text.strip_prefix(word)
        .is_some_and(|rest| rest.chars().next().is_none_or(|c| !c.is_alphanumeric()))
}

/// Whether the claim sits inside a parenthesis of its sentence.
fn inside_parentheses(before: &str, after: &str) -> bool {
    before
        .rfind('(')
        .is_some_and(|open| !before[open..].contains(')'))
        && after
            .find(')')
            .is_some_and(|close| !after[..close].contains('('))
}

fn last_word(text: &str) -> Option<&str> {
    text.split(|c: char| !c.is_alphanumeric())
        .rfind(|w| !w.is_empty())
}

/// "Pydantic V1 syntax is deprecated": one noun between the version and the warning.
fn after_noun_then(after: &str, words: &[&str]) -> bool {
    let Some((noun, rest)) = after.split_once(' ') else {
        return false;
    };
    let joins = [
        "and", "or", "but", "with", "to", "for", "in", "on", "which", "that",
    ];
    noun.chars().all(|c| c.is_alphanumeric() || c == '-')
        && !joins.contains(&noun)
        && words.iter().any(|w| rest.trim_start().starts_with(w))
}

/// "Next.js 15 requires React 19": a requirement verb right after a version, so the
/// sentence states what another release needs ("This skill requires", "and needs" do not).
fn stated_of_another(before: &str) -> bool {
    let padded = format!(" {before}");
    REQUIRE_VERBS.iter().any(|verb| {
        padded.rfind(verb).is_some_and(|at| {
            padded[..at]
                .split_whitespace()
                .next_back()
                .is_some_and(|word| word.bytes().any(|b| b.is_ascii_digit()))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn role(line: &str, claim: &str) -> Role {
        let start = line.find(claim).expect("claim in line");
        prose_role(line, start, start + claim.len())
    }

    #[test]
    fn targets_stay_targets() {
        for (line, claim) in [
            ("This skill targets React 18.", "React 18"),
            ("Written for Spring Boot 2.x apps", "Spring Boot 2.x"),
            ("Requires Node 18 or later", "Node 18 or later"),
            ("## Vue 3", "Vue 3"),
            ("This skill requires React 19.", "React 19"),
            (
                "This skill is for SQLAlchemy 2.0 and Flask 3, and needs Python 3.10.",
                "Flask 3",
            ),
            (
                "This skill targets Django 5.0, and needs Python 3.12 or later.",
                "Python 3.12 or later",
            ),
            ("This skill is for Next.js 14 and React 19.", "React 19"),
            ("Use Django 5.0 for new projects.", "Django 5.0"),
        ] {
            assert_eq!(role(line, claim), Role::Target, "{line}");
        }
    }

    #[test]
    fn prohibitions_are_avoided() {
        for (line, claim) in [
            ("- MUST NOT: use Pydantic V1 syntax", "Pydantic V1"),
            (
                "Avoid deprecated Spring Boot 2.x patterns.",
                "Spring Boot 2.x",
            ),
            ("Do not write React 17 style class components.", "React 17"),
            ("Pydantic V1 syntax is deprecated.", "Pydantic V1"),
            ("Use hooks instead of React 16 lifecycles.", "React 16"),
        ] {
            assert_eq!(role(line, claim), Role::Avoided, "{line}");
        }
    }

    #[test]
    fn gates_and_facts_are_not_targets() {
        for (line, claim, expected) in [
            (
                "Skip this section if using React 18.",
                "React 18",
                Role::Gated,
            ),
            (
                "If you are on Next.js 13, keep pages/.",
                "Next.js 13",
                Role::Gated,
            ),
            (
                "React 19 requires v16.1.0+ of the plugin.",
                "React 19",
                Role::Fact,
            ),
            ("Next.js 15 requires React 19.", "React 19", Role::Fact),
            ("This was added in Python 3.12.", "Python 3.12", Role::Fact),
            (
                "Since Django 4.1, async views work.",
                "Django 4.1",
                Role::Fact,
            ),
            (
                "Django 5.0 introduced field groups.",
                "Django 5.0",
                Role::Fact,
            ),
        ] {
            assert_eq!(role(line, claim), expected, "{line}");
        }
    }

    #[test]
    fn upgrades_branches_recommendations_samples_and_keywords_are_not_targets() {
        for (line, claim, expected) in [
            (
                "Upgrading from Django 4.2 to 5.0 is simple.",
                "Django 4.2",
                Role::Source,
            ),
            (
                "Upgrading from Django 4.2 to Django 5.0.",
                "Django 5.0",
                Role::Destination,
            ),
            ("### React 16 → 17 → 18", "React 16", Role::Source),
            ("migrate to pydantic v2", "pydantic v2", Role::Destination),
            (
                "Upgrade to Rails 8.1 step by step.",
                "Rails 8.1",
                Role::Destination,
            ),
            (
                "- Next.js 16+: use `proxy.ts`.",
                "Next.js 16+",
                Role::Branch,
            ),
            ("**React 18:** wrap in `act`.", "React 18", Role::Branch),
            (
                "- **Python < 3.11**: install tomli.",
                "Python < 3.11",
                Role::Branch,
            ),
            (
                "Java 25 recommended for new services.",
                "Java 25",
                Role::Recommended,
            ),
            (
                "We recommend Node 22 for local work.",
                "Node 22",
                Role::Recommended,
            ),
            ("On Java 21+, use virtual threads.", "Java 21+", Role::Gated),
            (
                "Note: in Python >= 3.14 annotations are lazy.",
                "Python >= 3.14",
                Role::Gated,
            ),
            ("Framework: e.g. Next.js 14", "Next.js 14", Role::Sample),
            (
                "Triggers on: Next.js 14, App Router, RSC",
                "Next.js 14",
                Role::Keyword,
            ),
            ("Keywords: Django 5, views", "Django 5", Role::Keyword),
        ] {
            assert_eq!(role(line, claim), expected, "{line}");
        }
        // A floor the skill runs on stays a requirement.
        assert_eq!(
            role("This service runs on Node 20+.", "Node 20+"),
            Role::Target
        );
        assert_eq!(role("# Next.js 15: App Router", "Next.js 15"), Role::Target);
        assert_eq!(heading_role("Report template"), Some(Role::Sample));
        assert_eq!(
            heading_role("Example: Find Laravel 12 Compatible Packages"),
            Some(Role::Sample)
        );
        assert_eq!(heading_role("Examples of routes in Laravel 12"), None);
    }

    #[test]
    fn sentences_end_at_a_stop() {
        let line = "Do not use jQuery. This skill targets React 18.";
        assert_eq!(role(line, "React 18"), Role::Target);
    }

    #[test]
    fn headings_gate_their_sections() {
        assert_eq!(heading_role("If you are on React 18"), Some(Role::Gated));
        assert_eq!(heading_role("Legacy Pydantic V1"), Some(Role::Avoided));
        assert_eq!(
            heading_role("Migrating from Spring Boot 2"),
            Some(Role::Avoided)
        );
        assert_eq!(heading_role("Staged Upgrade Strategy"), Some(Role::Fact));
        assert_eq!(
            section_opening_role("> **React 19+ only.** Skip this section if using React 18."),
            Some(Role::Gated)
        );
        assert_eq!(
            section_opening_role("**Impact: MEDIUM**\n\nReact 19+ only. Don't use `forwardRef`."),
            Some(Role::Gated)
        );
        assert_eq!(heading_role("Server components"), None);
        assert_eq!(heading_role("Verifying the fix"), None);
    }
}

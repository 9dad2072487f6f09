//! SG613: a skill whose own name imitates a well-known skill or a popular package, one
//! typing slip away from it (`reqeusts-helper`, `webbapp-testing`).

use crate::lint::RuleDoc;
use std::sync::LazyLock;

use super::installs::{POPULAR_NPM, POPULAR_PYPI, names};
use crate::finding::Severity;
use crate::lint::Rule;

/// SG613.
pub const LOOKALIKE_NAME: Rule = Rule {
    doc: RuleDoc {
        code: "SG613",
        name: "lookalike-name",
        severity: Severity::Warning,
        summary: "The skill's name imitates a well-known skill or a popular package",
        what: "Compares the frontmatter `name` with the skills Anthropic publishes \
           (`webapp-testing`, `skill-creator`…) and each of its words of six letters or more \
           with the 2,000 most downloaded PyPI and npm packages (`rules/popular/`). A name one \
           typing slip away is reported: two neighbouring letters swapped (`reqeusts`), a \
           letter doubled (`webbapp`), or a letter dropped inside the word (`requsts`). \
           Separators (`googleads` for `google-ads`), names that are themselves popular, and \
           other edits pass, so real words next to a package name stay quiet.",
        why: "A look-alike name is how a typosquatted skill gets chosen: a user or an agent \
          searching for the trusted skill or the library it wraps picks the imitation, \
          whose body then does what the trusted one would not.",
        fires: "---\nname: reqeusts-helper\ndescription: Helps with HTTP calls. Use when calling an API.\n---\nCall the API with `requests`.\n",
        passes: "---\nname: requests-helper\ndescription: Helps with HTTP calls. Use when calling an API.\n---\nCall the API with `requests`.\n",
    },
    check: |cx, out| {
        let skill = cx.skill;
        let Some(field) = &skill.frontmatter.name else {
            return;
        };
        let Some((imitated, what)) = imitates(&field.value) else {
            return;
        };
        let text = &skill.source.text;
        let line = field.span.start..field.span.end.min(text.len());
        let span = text[line.clone()]
            .rfind(field.value.as_str())
            .map_or(line.clone(), |i| {
                line.start + i..line.start + i + field.value.len()
            });
        out.report(
            &skill.source,
            span,
            format!(
                "the name `{}` imitates {what} `{imitated}`",
                field.value
            ),
        )
        .help("name the skill for what it does; if it wraps the package, spell the package's name exactly");
    },
};

/// The skills other packs imitate (`rules/popular/skills.txt`, with its source).
static WELL_KNOWN_SKILLS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    names(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/rules/popular/skills.txt"
    )))
});

/// Words shorter than this are left alone: short names have too many real neighbours.
const MIN_WORD: usize = 6;

/// What a skill name imitates, and what kind of thing that is.
fn imitates(name: &str) -> Option<(&'static str, &'static str)> {
    let name = name.trim().to_ascii_lowercase();
    if let Some(skill) = WELL_KNOWN_SKILLS
        .iter()
        .find(|s| s.len() >= MIN_WORD && slip(&name, s))
    {
        return Some((skill, "the well-known skill"));
    }
    for word in name.split(['-', '_', '.', ' ']) {
        if word.len() < MIN_WORD {
            continue;
        }
        if POPULAR_PYPI.contains(&word) || POPULAR_NPM.contains(&word) {
            continue;
        }
        for list in [&*POPULAR_PYPI, &*POPULAR_NPM] {
            if let Some(package) = list.iter().find(|p| p.len() >= MIN_WORD && slip(word, p)) {
                return Some((package, "the popular package"));
            }
        }
    }
    None
}

/// Whether `name` is `popular` with one typing slip: two neighbouring letters swapped, a
/// letter doubled, or a letter dropped inside the word (not the first or last); an edit
/// of a separator (`-`, `_`, `.`) is not a slip.
fn slip(name: &str, popular: &str) -> bool {
    let a = name.as_bytes();
    let b = popular.as_bytes();
    if !name.is_ascii() || !popular.is_ascii() || a == b {
        return false;
    }
    let letter = |c: u8| c.is_ascii_alphanumeric();
    if a.len() == b.len() {
        let diff: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
        return matches!(diff.as_slice(), [i, j] if *j == i + 1
            && a[*i] == b[*j] && a[*j] == b[*i] && letter(a[*i]) && letter(a[*j]));
    }
    // One extra letter in `name`, the same as a neighbour.
    let removed = |long: &[u8], short: &[u8], i: usize| {
        long[..i] == short[..i] && long[i + 1..] == short[i..]
    };
    if a.len() == b.len() + 1 {
        return (0..a.len()).any(|i| {
            letter(a[i])
                && ((i > 0 && a[i] == a[i - 1]) || (i + 1 < a.len() && a[i] == a[i + 1]))
                && removed(a, b, i)
        });
    }
    if a.len() + 1 == b.len() {
        return (1..b.len() - 1).any(|i| letter(b[i]) && removed(b, a, i));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slips_are_swaps_doubles_and_inner_drops() {
        assert!(slip("reqeusts", "requests"));
        assert!(slip("webbapp-testing", "webapp-testing"));
        assert!(slip("requsts", "requests"));
        assert!(!slip("requests", "requests"));
        // A dropped first or last letter, a changed letter, a separator: not slips.
        assert!(!slip("equests", "requests"));
        assert!(!slip("request", "requests"));
        assert!(!slip("requasts", "requests"));
        assert!(!slip("googleads", "google-ads"));
        assert!(!slip("webapp_testing", "webapp-testing"));
    }

    #[test]
    fn names_imitating_skills_and_packages() {
        assert_eq!(
            imitates("reqeusts-helper"),
            Some(("requests", "the popular package"))
        );
        assert_eq!(
            imitates("webbapp-testing"),
            Some(("webapp-testing", "the well-known skill"))
        );
        for fine in [
            "requests-helper",
            "webapp-testing",
            "googleads-automation",
            "performing-cloud-asset-inventory",
            "pdf",
            "log-file-rotator",
        ] {
            assert_eq!(imitates(fine), None, "{fine}");
        }
    }
}

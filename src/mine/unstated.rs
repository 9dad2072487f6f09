//! Messages a hidden test demands word for word that the instruction never states.
//!
//! A commit that adds `raise ValueError("width must be positive")` and a test asserting
//! that exact text makes a task only an agent that guesses the wording can pass: the
//! instruction ("Validate the width") says nothing of it. Such a message is found as a
//! string literal on an added assertion line of a test file that also stands on an added
//! line of the source, and that the instruction does not contain. Short literals (a key, a
//! single word) are left alone: an agent can be expected to derive those from the code.

use std::collections::HashSet;

use super::paths::{FileKind, classify};

/// Shortest literal counted as a message (characters).
const MIN_CHARS: usize = 12;
/// Fewest words a literal needs to count as a message.
const MIN_WORDS: usize = 3;
/// Lines after an assertion's first line that may still hold its arguments.
const ASSERTION_SPAN: usize = 3;

/// The messages that the diff's tests assert, its source introduces, and `instruction`
/// never states, in the order the tests name them.
pub fn messages(diff: &str, instruction: &str) -> Vec<String> {
    let (tests, source) = added_lines(diff);
    let source: Vec<String> = source.iter().map(|l| unescape(l)).collect();
    let said = normalise(instruction);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    // An assertion's arguments may stand on the lines after its name
    // (`self.assertRaisesRegex(\n    ValueError,\n    "n must be at least 0",`).
    let asserting = |i: usize| {
        tests[i.saturating_sub(ASSERTION_SPAN)..=i]
            .iter()
            .any(|l| asserts(l))
    };
    for (i, line) in tests.iter().enumerate() {
        if !asserting(i) {
            continue;
        }
        for literal in literals(line) {
            let text = unescape(&literal);
            if !is_message(&text) || !seen.insert(text.clone()) {
                continue;
            }
            if source.iter().any(|s| s.contains(&text)) && !said.contains(&normalise(&text)) {
                out.push(text);
            }
        }
    }
    out
}

/// The added lines of the diff's test files and of its source files.
fn added_lines(diff: &str) -> (Vec<&str>, Vec<&str>) {
    let (mut tests, mut source) = (Vec::new(), Vec::new());
    let mut kind = FileKind::Other;
    for line in diff.lines() {
        if let Some(path) = line.strip_prefix("+++ ") {
            kind = match path.strip_prefix("b/") {
                Some(path) => classify(path),
                None => FileKind::Other, // /dev/null: a deleted file
            };
            continue;
        }
        if line.starts_with("diff --git ") {
            kind = FileKind::Other;
            continue;
        }
        let Some(added) = line.strip_prefix('+') else {
            continue;
        };
        match kind {
            FileKind::Test => tests.push(added),
            FileKind::Source => source.push(added),
            _ => {}
        }
    }
    (tests, source)
}

/// Whether a test line checks a value (the assertion forms of the common test libraries).
fn asserts(line: &str) -> bool {
    const MARKS: &[&str] = &[
        "assert",
        "expect",
        "raises",
        "match=",
        "tothrow",
        "tobe",
        "toequal",
        "should",
        "equal(",
        "errorf",
        "t.error",
        "t.fatal",
        "contains(",
    ];
    let lower = line.to_ascii_lowercase();
    MARKS.iter().any(|m| lower.contains(m))
}

/// The contents of the single- and double-quoted string literals of one line.
fn literals(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '"' && c != '\'' {
            continue;
        }
        let mut text = String::new();
        let mut closed = false;
        while let Some(d) = chars.next() {
            match d {
                '\\' => {
                    text.push(d);
                    if let Some(e) = chars.next() {
                        text.push(e);
                    }
                }
                d if d == c => {
                    closed = true;
                    break;
                }
                d => text.push(d),
            }
        }
        if closed {
            out.push(text);
        }
    }
    out
}

/// A literal without the backslashes of string or regular-expression escapes
/// (`"cannot be negative\."` as `match=` writes it).
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(e) = chars.next() {
                    out.push(e);
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// Whether a literal reads as a sentence-like message rather than a key or a path.
fn is_message(text: &str) -> bool {
    let words = text
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphabetic))
        .count();
    text.chars().count() >= MIN_CHARS
        && words >= MIN_WORDS
        && !text.contains("://")
        && !text.contains('{')
}

/// Lower-case text with its runs of white space as one space.
fn normalise(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff(test: &str, source: &str) -> String {
        format!(
            "diff --git a/tests/test_shape.py b/tests/test_shape.py\n--- a/tests/test_shape.py\n\
             +++ b/tests/test_shape.py\n@@ -1 +1,3 @@\n{test}\n\
             diff --git a/shape.py b/shape.py\n--- a/shape.py\n+++ b/shape.py\n@@ -1 +1,3 @@\n{source}\n"
        )
    }

    #[test]
    fn a_message_only_the_test_and_the_source_know_is_found() {
        let d = diff(
            "+    with pytest.raises(ValueError, match=\"width must be positive\\.\"):",
            "+        raise ValueError(\"width must be positive.\")",
        );
        assert_eq!(
            messages(&d, "# Validate the width\n"),
            ["width must be positive."]
        );
    }

    #[test]
    fn an_assertion_whose_arguments_follow_on_later_lines_is_read() {
        // The shape of more-itertools 9ddc55c ("Raise a clear ValueError for negative n in
        // chunked()"), whose test names the message two lines below `assertRaisesRegex(`.
        let d = diff(
            "+        self.assertRaisesRegex(\n+            ValueError,\n+            \"n must be at least 0\",\n+            lambda: list(mi.chunked('ABCDE', -1)),",
            "+        raise ValueError('n must be at least 0')",
        );
        assert_eq!(
            messages(
                &d,
                "# Raise a clear ValueError for negative n in chunked()\n"
            ),
            ["n must be at least 0"]
        );
    }

    #[test]
    fn a_message_the_instruction_states_is_fair() {
        let d = diff(
            "+    assert str(err) == 'width must be positive'",
            "+        raise ValueError('width must be positive')",
        );
        let instruction =
            "# Validate the width\n\nRaise `ValueError(\"Width must be  positive\")`.";
        assert!(messages(&d, instruction).is_empty());
    }

    #[test]
    fn short_literals_values_and_test_only_strings_are_left_alone() {
        // A key, a one-word value, and a message the source does not hold (the test's own
        // wording, or one the code builds from parts).
        let d = diff(
            "+    assert data['width'] == 'positive'\n+    assert msg == \"the test alone says this\"",
            "+    data['width'] = 'positive'",
        );
        assert!(messages(&d, "# Store the width\n").is_empty());
        // A message on a source line that no assertion names is not demanded either.
        let d = diff(
            "+    shape.validate()",
            "+        log.info(\"width checked and found fine\")",
        );
        assert!(messages(&d, "# Validate\n").is_empty());
    }

    #[test]
    fn literals_keep_escapes_and_skip_unclosed_quotes() {
        assert_eq!(
            literals(r#"assert x == "say \"hi\" now" and y == 'it's"#),
            [r#"say \"hi\" now"#, "it"]
        );
        assert_eq!(unescape(r#"say \"hi\" now\."#), r#"say "hi" now."#);
    }
}

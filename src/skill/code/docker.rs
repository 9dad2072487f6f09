//! Dockerfile: `FROM` images, and the installs inside `RUN` instructions.
//!
//! Instructions are read line by line (with `\` continuations), which is the Dockerfile
//! grammar itself; `RUN` bodies go through the shell reader.

use super::facts::{CodeFacts, Image};
use super::syntax::Source;
use super::{FactExtractor, Grammar, shell};

/// Collects the facts of a Dockerfile.
pub(super) fn read(extractor: &mut FactExtractor, source: Source<'_>, facts: &mut CodeFacts) {
    for (start, instruction) in instructions(source.text) {
        let mut words = words_at(instruction);
        let Some((_, keyword)) = words.next() else {
            continue;
        };
        if keyword.eq_ignore_ascii_case("FROM") {
            let reference = words.find(|(_, word)| !word.starts_with("--"));
            if let Some(image) = reference.and_then(|(at, word)| image(word, start + at, source)) {
                facts.images.push(image);
            }
        } else if keyword.eq_ignore_ascii_case("RUN") {
            let Some((at, _)) = words.next() else {
                continue;
            };
            let body = Source {
                text: &instruction[at..],
                offset: source.offset + start + at,
            };
            extractor.with_tree(Grammar::Bash, body, facts, shell::read);
        }
    }
}

/// Whitespace-separated words with their byte offsets in `text`.
fn words_at(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let base = text.as_ptr() as usize;
    // Each word is a sub-slice of `text`, so the pointer difference is its offset.
    text.split_whitespace()
        .map(move |word| (word.as_ptr() as usize - base, word))
}

/// Instructions with their start offset; `\`-continued lines join into one.
fn instructions(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        offset += line.len();
        if line.trim_end().ends_with('\\') {
            continue;
        }
        out.push((start, text[start..offset].trim_end()));
        start = offset;
    }
    if start < text.len() {
        out.push((start, text[start..].trim_end()));
    }
    out
}

/// An image reference `name[:tag][@digest]` at `at` in the block.
fn image(reference: &str, at: usize, source: Source<'_>) -> Option<Image> {
    if reference.starts_with('$') || reference.eq_ignore_ascii_case("scratch") {
        return None;
    }
    let without_digest = reference.split('@').next().unwrap_or(reference);
    // A `:` after the last `/` starts the tag; one before it is a registry port.
    let last = without_digest.rfind('/').map_or(0, |slash| slash + 1);
    let (name, tag) = match without_digest[last..].find(':') {
        Some(colon) => {
            let (name, tag) = without_digest.split_at(last + colon);
            (name, Some(tag[1..].to_owned()))
        }
        None => (without_digest, None),
    };
    Some(Image {
        name: name.to_owned(),
        tag,
        span: source.range(at, at + reference.len()),
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{facts, spanned};

    #[test]
    fn from_images_and_run_installs() {
        let text = "FROM --platform=linux/amd64 python:3.12-slim AS base\nFROM localhost:5000/team/app:1.2@sha256:ab\n\
                    FROM scratch\nRUN pip install --no-cache-dir \\\n    flask==3.0 && \\\n    npm i -g pnpm@9\n";
        let facts = facts("dockerfile", text);
        let images: Vec<_> = facts
            .images
            .iter()
            .map(|i| (i.name.as_str(), i.tag.as_deref(), spanned(text, i.span)))
            .collect();
        assert_eq!(
            images,
            [
                ("python", Some("3.12-slim"), "python:3.12-slim"),
                (
                    "localhost:5000/team/app",
                    Some("1.2"),
                    "localhost:5000/team/app:1.2@sha256:ab"
                ),
            ]
        );
        let installs: Vec<_> = facts
            .installs
            .iter()
            .map(|i| spanned(text, i.span))
            .collect();
        // `npm install -g pnpm@9` sets up a tool for the image, not a dependency.
        assert_eq!(installs, ["flask==3.0"]);
    }
}

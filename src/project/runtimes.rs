//! Runtime pins and other ecosystems' single-line facts: `.nvmrc`, `.node-version`,
//! `.python-version`, `.ruby-version`, `.tool-versions`, `rust-toolchain(.toml)`, Dockerfile
//! `FROM`, and GitHub Actions workflows (`uses:` and `setup-*` versions).

use std::path::Path;

use super::input::yaml_error;
use super::locate::{at, to_u32, yaml_key};
use super::sink::Sink;
use super::toml_doc::{Doc, get, table_at};
use super::{DepKind, Ecosystem, RuntimeKind};

/// Reads a one-version file such as `.nvmrc`.
pub(crate) fn read_version_file(sink: &mut Sink, rel: &Path, text: &str) {
    let runtime = match rel.file_name().and_then(|n| n.to_str()) {
        Some(".nvmrc" | ".node-version") => "node",
        Some(".python-version") => "python",
        Some(".ruby-version") => "ruby",
        _ => return,
    };
    let first = text
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    if let Some((number, line)) = first {
        let version = clean_version(line.trim());
        sink.runtime(
            runtime,
            RuntimeKind::Pin,
            at(version, rel, (to_u32(number + 1), 1)),
        );
    }
}

/// `v20.1.0` -> `20.1.0`; `ruby-3.2.2` -> `3.2.2`; aliases (`lts/iron`) stay as written.
fn clean_version(version: &str) -> &str {
    let version = version.strip_prefix("ruby-").unwrap_or(version);
    match version.strip_prefix('v') {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => rest,
        _ => version,
    }
}

/// Reads an asdf/mise `.tool-versions`: `tool version [fallback...]` per line.
pub(crate) fn read_tool_versions(sink: &mut Sink, rel: &Path, text: &str) {
    for (number, raw) in text.lines().enumerate() {
        let content = raw.split('#').next().unwrap_or(raw);
        let mut words = content.split_whitespace();
        let (Some(tool), Some(version)) = (words.next(), words.next()) else {
            continue;
        };
        let runtime = match tool {
            "nodejs" | "node" => "node",
            "python" => "python",
            "golang" | "go" => "go",
            "rust" => "rust",
            "java" => "java",
            "ruby" => "ruby",
            "php" => "php",
            "dotnet" | "dotnet-core" => "dotnet",
            "bun" => "bun",
            "deno" => "deno",
            _ => continue,
        };
        // `java temurin-21.0.2` names a distribution before the version.
        let version = version.rsplit('-').next().unwrap_or(version);
        let column = to_u32(content.find(version).unwrap_or(0) + 1);
        sink.runtime(
            runtime,
            RuntimeKind::Pin,
            at(version, rel, (to_u32(number + 1), column)),
        );
    }
}

/// Reads `rust-toolchain` (a bare channel) or `rust-toolchain.toml` (`[toolchain] channel`).
pub(crate) fn read_rust_toolchain(sink: &mut Sink, rel: &Path, text: &str) {
    let is_toml = rel.extension().is_some_and(|e| e == "toml") || text.contains("[toolchain]");
    if !is_toml {
        if let Some((number, line)) = text.lines().enumerate().find(|(_, l)| !l.trim().is_empty()) {
            sink.runtime(
                "rust",
                RuntimeKind::Pin,
                at(line.trim(), rel, (to_u32(number + 1), 1)),
            );
        }
        return;
    }
    let Some(doc) = Doc::parse(sink, rel, text) else {
        return;
    };
    let channel = table_at(&doc.root, &["toolchain"]).and_then(|t| get(t, "channel"));
    if let Some(channel) = channel.and_then(|c| doc.string(c)) {
        sink.runtime("rust", RuntimeKind::Pin, channel);
    }
}

/// Reads a Dockerfile's `FROM` lines: each image is a dependency, and official language
/// images also pin a runtime.
pub(crate) fn read_dockerfile(sink: &mut Sink, rel: &Path, text: &str) {
    let mut stages: Vec<String> = Vec::new();
    for (number, raw) in text.lines().enumerate() {
        let trimmed = raw.trim_start();
        let Some(rest) = strip_keyword(trimmed, "FROM") else {
            continue;
        };
        let mut words = rest.split_whitespace().filter(|w| !w.starts_with("--"));
        let Some(image) = words.next() else {
            continue;
        };
        let earlier_stage = stages.contains(&image.to_ascii_lowercase());
        if let (Some(as_word), Some(stage)) = (words.next(), words.next())
            && as_word.eq_ignore_ascii_case("as")
        {
            stages.push(stage.to_ascii_lowercase());
        }
        // `scratch`, earlier stages and `$ARG` images name no registry image.
        if image == "scratch" || earlier_stage || image.contains('$') {
            continue;
        }
        let line = to_u32(number + 1);
        let column = to_u32(raw.find(image).unwrap_or(0) + 1);
        from_image(sink, rel, image, (line, column));
    }
}

fn strip_keyword<'a>(line: &'a str, keyword: &str) -> Option<&'a str> {
    let head = line.get(..keyword.len())?;
    let rest = &line[keyword.len()..];
    (head.eq_ignore_ascii_case(keyword) && rest.starts_with([' ', '\t'])).then_some(rest)
}

/// `python:3.12-slim@sha256:...` -> dependency `python` at `3.12-slim`, runtime python 3.12.
fn from_image(sink: &mut Sink, rel: &Path, image: &str, position: (u32, u32)) {
    let without_digest = image.split('@').next().unwrap_or(image);
    let (name, tag) = split_tag(without_digest);
    let name = name.strip_prefix("docker.io/").unwrap_or(name);
    let name = name.strip_prefix("library/").unwrap_or(name);
    let tag = tag.or_else(|| image.split_once('@').map(|(_, d)| d));
    sink.declare(
        Ecosystem::Docker,
        name,
        DepKind::Uses,
        tag.map(|t| at(t, rel, position)),
    );
    let (Some(runtime), Some(tag)) = (image_runtime(name), tag) else {
        return;
    };
    let version = tag.split('-').next().unwrap_or(tag);
    if version.starts_with(|c: char| c.is_ascii_digit()) {
        sink.runtime(runtime, RuntimeKind::Pin, at(version, rel, position));
    }
}

/// Splits a tag off an image reference; a colon in the registry host (`host:5000/x`) is not one.
fn split_tag(image: &str) -> (&str, Option<&str>) {
    match image.rsplit_once(':') {
        Some((name, tag)) if !tag.contains('/') => (name, Some(tag)),
        _ => (image, None),
    }
}

fn image_runtime(name: &str) -> Option<&'static str> {
    Some(match name {
        "python" | "pypy" => "python",
        "node" => "node",
        "golang" => "go",
        "rust" => "rust",
        "openjdk" | "eclipse-temurin" | "amazoncorretto" | "maven" | "gradle" => "java",
        "ruby" => "ruby",
        "php" => "php",
        "oven/bun" => "bun",
        "denoland/deno" => "deno",
        n if n.starts_with("mcr.microsoft.com/dotnet/") => "dotnet",
        _ => return None,
    })
}

/// Reads a GitHub Actions workflow: every `uses:` step or job, and the versions that
/// `setup-*` actions install.
pub(crate) fn read_workflow(sink: &mut Sink, rel: &Path, text: &str) {
    if let Err(err) = serde_norway::from_str::<serde_norway::Value>(text) {
        return yaml_error(sink, rel, &err);
    }
    for (number, raw) in text.lines().enumerate() {
        let trimmed = raw.trim_start();
        let entry = trimmed.strip_prefix("- ").unwrap_or(trimmed).trim_start();
        let (Some(key), Some((_, value))) = (yaml_key(entry), entry.split_once(':')) else {
            continue;
        };
        let value = value
            .split(" #")
            .next()
            .unwrap_or(value)
            .trim()
            .trim_matches(['"', '\'']);
        let line = to_u32(number + 1);
        let column = raw.find(value).map_or(1, |i| to_u32(i + 1));
        match key {
            "uses" => uses(sink, rel, value, (line, column)),
            k => setup_version(sink, rel, k, value, (line, column)),
        }
    }
}

fn uses(sink: &mut Sink, rel: &Path, value: &str, position: (u32, u32)) {
    if let Some(image) = value.strip_prefix("docker://") {
        return from_image(sink, rel, image, position);
    }
    if value.starts_with("./") {
        return;
    }
    let (action, reference) = value.split_once('@').unwrap_or((value, ""));
    let mut parts = action.split('/');
    let (Some(owner), Some(repo)) = (parts.next(), parts.next()) else {
        return;
    };
    let constraint = (!reference.is_empty()).then(|| at(reference, rel, position));
    sink.declare(
        Ecosystem::Actions,
        &format!("{owner}/{repo}"),
        DepKind::Uses,
        constraint,
    );
}

/// `node-version: 20`, `python-version: ["3.10", "3.12"]` and the like.
fn setup_version(sink: &mut Sink, rel: &Path, key: &str, value: &str, position: (u32, u32)) {
    let runtime = match key {
        "node-version" => "node",
        "python-version" => "python",
        "go-version" => "go",
        "java-version" => "java",
        "ruby-version" => "ruby",
        "php-version" => "php",
        "dotnet-version" => "dotnet",
        "bun-version" => "bun",
        "deno-version" => "deno",
        _ => return,
    };
    let list = value.trim_start_matches('[').trim_end_matches(']');
    for version in list.split(',').map(|v| v.trim().trim_matches(['"', '\''])) {
        if version.starts_with(|c: char| c.is_ascii_digit()) {
            sink.runtime(runtime, RuntimeKind::Pin, at(version, rel, position));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alias_bombs_are_refused() {
        let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for (name, previous) in ["b", "c", "d", "e", "f", "g", "h", "i"]
            .iter()
            .zip("abcdefgh".chars())
        {
            let refs = vec![format!("*{previous}"); 10].join(", ");
            bomb.push_str(&format!("{name}: &{name} [{refs}]\n"));
        }
        let mut sink = Sink::new(Path::new("/nonexistent"));
        read_workflow(&mut sink, Path::new("ci.yml"), &bomb);
        let project = sink.finish(Vec::new());
        assert_eq!(project.diagnostics.len(), 1);
        assert!(project.diagnostics[0].message.contains("repetition limit"));
    }

    #[test]
    fn image_tags() {
        assert_eq!(split_tag("python:3.12-slim"), ("python", Some("3.12-slim")));
        assert_eq!(split_tag("registry:5000/app"), ("registry:5000/app", None));
        assert_eq!(split_tag("node"), ("node", None));
        assert_eq!(clean_version("v20.11.0"), "20.11.0");
        assert_eq!(clean_version("lts/iron"), "lts/iron");
        assert_eq!(
            strip_keyword("from node:20 AS build", "FROM"),
            Some(" node:20 AS build")
        );
    }
}

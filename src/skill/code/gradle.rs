//! Gradle build scripts (Groovy and Kotlin DSL). No grammar is bundled for them; what a
//! skill's build snippet claims is in its string literals: dependency coordinates
//! (`"group:artifact:version"`) and plugin versions (`id("x") version "1.2"`).

use std::sync::LazyLock;

use regex::Regex;

use super::facts::{CodeFacts, ManifestEntry, TextRun};
use super::markup::quoted_values;
use super::syntax::Source;
use crate::project::Ecosystem;

/// `id 'x' version '1'`, `id("x") version "1"`, `id("x").version("1")`.
static PLUGIN: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r#"\bid\s*\(?\s*["']([\w.-]+)["']\s*\)?\s*\.?\s*version\s*\(?\s*["']([^"'\s]+)["']"#)
        .ok()
});

/// Collects coordinates, plugin versions and string text from a build script.
pub(super) fn read(source: Source<'_>, facts: &mut CodeFacts) {
    for (start, value) in quoted_values(source.text) {
        let span = source.range(start, start + value.len());
        facts.texts.push(TextRun {
            text: value.to_owned(),
            span,
        });
        if let Some((package, version)) = coordinates(value) {
            facts.manifest_entries.push(ManifestEntry {
                ecosystem: Ecosystem::Maven,
                package,
                constraint: version,
                span,
            });
        }
    }
    let Some(plugin) = PLUGIN.as_ref() else {
        return;
    };
    for found in plugin.captures_iter(source.text) {
        let (Some(whole), Some(id), Some(version)) = (found.get(0), found.get(1), found.get(2))
        else {
            continue;
        };
        facts.manifest_entries.push(ManifestEntry {
            ecosystem: Ecosystem::Maven,
            package: id.as_str().to_owned(),
            constraint: Some(version.as_str().to_owned()),
            span: source.range(whole.start(), whole.end()),
        });
    }
}

/// `group:artifact[:version]` with plain name characters; anything else (URLs, `a: b`,
/// version catalogs' `libs.x`) is not coordinates.
fn coordinates(value: &str) -> Option<(String, Option<String>)> {
    let parts: Vec<&str> = value.split(':').collect();
    let name = |part: &str| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
    };
    let version = |part: &str| {
        !part.is_empty()
            && part.chars().all(|c| {
                c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+' | '$' | '{' | '}')
            })
    };
    match parts.as_slice() {
        [group, artifact] if name(group) && name(artifact) && group.contains('.') => {
            Some((format!("{group}:{artifact}"), None))
        }
        [group, artifact, v] if name(group) && name(artifact) && version(v) => {
            Some((format!("{group}:{artifact}"), Some((*v).to_owned())))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{facts, spanned};
    use crate::project::Ecosystem;

    #[test]
    fn coordinates_and_plugins_in_both_dialects() {
        let groovy = "plugins {\n  id 'org.springframework.boot' version '2.7.18'\n}\n\
                      dependencies {\n  implementation 'org.springframework.boot:spring-boot-starter-web'\n\
                      \x20 testImplementation \"junit:junit:4.13.2\"\n  url 'https://repo.example.com:8080/x'\n}\n";
        let kotlin = "plugins { id(\"org.springframework.boot\") version \"3.2.0\" }\n\
                      dependencies { implementation(\"com.fasterxml.jackson.core:jackson-databind:${jacksonVersion}\") }\n";
        let read = |lang, text| {
            facts(lang, text)
                .manifest_entries
                .into_iter()
                .map(|e| {
                    (
                        e.ecosystem,
                        e.package,
                        e.constraint,
                        spanned(text, e.span).to_owned(),
                    )
                })
                .collect::<Vec<_>>()
        };
        let maven = |package: &str, version: Option<&str>, span: &str| {
            (
                Ecosystem::Maven,
                package.to_owned(),
                version.map(str::to_owned),
                span.to_owned(),
            )
        };
        assert_eq!(
            read("gradle", groovy),
            [
                maven(
                    "org.springframework.boot:spring-boot-starter-web",
                    None,
                    "org.springframework.boot:spring-boot-starter-web"
                ),
                maven("junit:junit", Some("4.13.2"), "junit:junit:4.13.2"),
                maven(
                    "org.springframework.boot",
                    Some("2.7.18"),
                    "id 'org.springframework.boot' version '2.7.18'"
                ),
            ]
        );
        assert_eq!(
            read("kotlin", kotlin),
            [
                maven(
                    "com.fasterxml.jackson.core:jackson-databind",
                    Some("${jacksonVersion}"),
                    "com.fasterxml.jackson.core:jackson-databind:${jacksonVersion}"
                ),
                maven(
                    "org.springframework.boot",
                    Some("3.2.0"),
                    "id(\"org.springframework.boot\") version \"3.2.0\""
                ),
            ]
        );
    }
}

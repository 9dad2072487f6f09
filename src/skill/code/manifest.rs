//! Manifest snippets: `Cargo.toml` / `pyproject.toml` tables, `package.json` /
//! `composer.json` objects, Maven `<dependency>` and .NET `<PackageReference>` elements.

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};
use tree_sitter::Node;

use super::facts::{CodeFacts, ManifestEntry, Span};
use super::syntax::{Source, pep508, unquote, walk};
use crate::project::{Ecosystem, canonical_name};

/// Collects dependencies and runtime ranges from a TOML tree.
pub(super) fn read_toml(root: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    walk(root, |node, _| {
        if node.kind() == "string" {
            super::syntax::string_text(node, source, facts);
        }
        if node.kind() != "table" {
            return;
        }
        let Some(header) = node.named_child(0) else {
            return;
        };
        let header = table_name(source.text(header));
        let mut cursor = node.walk();
        for pair in node
            .named_children(&mut cursor)
            .filter(|c| c.kind() == "pair")
        {
            if let Some(entry) = toml_entry(&header, pair, source) {
                facts.manifest_entries.extend(entry);
            }
        }
    });
}

/// A table header with quotes and spaces removed: `tool.poetry.dependencies`.
fn table_name(header: &str) -> String {
    header
        .split('.')
        .map(|part| unquote(part.trim()))
        .collect::<Vec<_>>()
        .join(".")
}

/// What one `key = value` pair of table `header` declares.
fn toml_entry(header: &str, pair: Node<'_>, source: Source<'_>) -> Option<Vec<ManifestEntry>> {
    let key_node = pair.named_child(0)?;
    let value = last_named_child(pair)?;
    let key = table_name(source.text(key_node));
    let span = source.span(pair);
    let entry = |ecosystem, package: String, constraint| {
        Some(vec![ManifestEntry {
            ecosystem,
            package,
            constraint,
            span,
        }])
    };
    let is_cargo_table = matches!(
        header,
        "dependencies" | "dev-dependencies" | "build-dependencies" | "workspace.dependencies"
    ) || (header.starts_with("target.") && header.ends_with("dependencies"));
    let is_poetry_table = header.starts_with("tool.poetry") && header.ends_with("dependencies");
    match (header, key.as_str()) {
        // `tokio.version = "1"` is a dotted form of `tokio = { version = "1" }`; other
        // dotted keys (`tokio.features`) say nothing about the version.
        _ if is_cargo_table => match key.split_once('.') {
            None => entry(Ecosystem::Cargo, key.clone(), toml_version(value, source)),
            Some((package, "version")) => entry(
                Ecosystem::Cargo,
                package.to_owned(),
                toml_version(value, source),
            ),
            Some(_) => None,
        },
        (_, "python") if is_poetry_table => entry(
            Ecosystem::Runtime,
            "python".to_owned(),
            toml_version(value, source),
        ),
        _ if is_poetry_table => entry(
            Ecosystem::Pypi,
            canonical_name(Ecosystem::Pypi, &key),
            toml_version(value, source),
        ),
        ("project", "requires-python") => entry(
            Ecosystem::Runtime,
            "python".to_owned(),
            toml_version(value, source),
        ),
        ("project", "dependencies") => Some(pep508_array(value, source)),
        ("package" | "workspace.package", "rust-version") => entry(
            Ecosystem::Runtime,
            "rust".to_owned(),
            toml_version(value, source),
        ),
        _ => None,
    }
}

/// A version string, or the `version` key of an inline table.
fn toml_version(value: Node<'_>, source: Source<'_>) -> Option<String> {
    match value.kind() {
        "string" => Some(unquote(source.text(value)).to_owned()),
        "inline_table" => {
            let mut cursor = value.walk();
            let version = value.named_children(&mut cursor).find(|pair| {
                pair.named_child(0)
                    .is_some_and(|key| source.text(key) == "version")
            })?;
            toml_version(last_named_child(version)?, source)
        }
        _ => None,
    }
}

/// `dependencies = ["x>=1", "y"]`: one entry per requirement, spanning its string.
fn pep508_array(array: Node<'_>, source: Source<'_>) -> Vec<ManifestEntry> {
    let mut cursor = array.walk();
    array
        .named_children(&mut cursor)
        .filter(|item| item.kind() == "string")
        .filter_map(|item| {
            let (package, constraint) = pep508(unquote(source.text(item)))?;
            Some(ManifestEntry {
                ecosystem: Ecosystem::Pypi,
                package,
                constraint,
                span: source.span(item),
            })
        })
        .collect()
}

/// Collects dependencies and engines from a JSON tree (`package.json`, `composer.json`).
pub(super) fn read_json(root: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    walk(root, |node, _| {
        if node.kind() == "string" {
            super::syntax::string_text(node, source, facts);
        }
        if node.kind() != "pair" {
            return;
        }
        let Some(key) = node.child_by_field_name("key") else {
            return;
        };
        let Some(value) = node
            .child_by_field_name("value")
            .filter(|v| v.kind() == "object")
        else {
            return;
        };
        let section = unquote(source.text(key));
        for (name, constraint, span) in json_members(value, source) {
            if let Some(entry) = json_entry(section, name, constraint, span) {
                facts.manifest_entries.push(entry);
            }
        }
    });
}

/// What one member of a `section` object declares.
fn json_entry(
    section: &str,
    name: &str,
    constraint: Option<String>,
    span: Span,
) -> Option<ManifestEntry> {
    let (ecosystem, package) = match section {
        "dependencies" | "devDependencies" | "peerDependencies" | "optionalDependencies" => {
            (Ecosystem::Npm, name.to_owned())
        }
        "engines" if matches!(name, "node" | "bun" | "deno") => {
            (Ecosystem::Runtime, name.to_owned())
        }
        "require" | "require-dev" if name == "php" => (Ecosystem::Runtime, "php".to_owned()),
        "require" | "require-dev" if name.contains('/') => {
            (Ecosystem::Composer, name.to_ascii_lowercase())
        }
        _ => return None,
    };
    Some(ManifestEntry {
        ecosystem,
        package,
        constraint,
        span,
    })
}

/// The string-valued members of an object: (key, value, span of the member).
fn json_members<'a>(object: Node<'_>, source: Source<'a>) -> Vec<(&'a str, Option<String>, Span)> {
    let mut cursor = object.walk();
    object
        .named_children(&mut cursor)
        .filter(|member| member.kind() == "pair")
        .filter_map(|member| {
            let key = unquote(source.text(member.child_by_field_name("key")?));
            let value = member.child_by_field_name("value");
            let constraint = value
                .filter(|v| v.kind() == "string")
                .map(|v| unquote(source.text(v)).to_owned());
            Some((key, constraint, source.span(member)))
        })
        .collect()
}

/// Maven coordinates being collected inside a `<dependency>`, `<parent>` or `<plugin>`.
#[derive(Default)]
struct Coordinates {
    start: usize,
    group: Option<String>,
    artifact: Option<String>,
    version: Option<String>,
}

/// Collects Maven coordinates, .NET package references and Java versions from XML. Snippets
/// are often fragments (several `<dependency>` siblings, no root), which a streaming reader
/// takes as they are; a syntax error ends the reading with what was found so far.
pub(super) fn read_xml(source: Source<'_>, facts: &mut CodeFacts) {
    let mut reader = Reader::from_str(source.text);
    let mut open: Vec<String> = Vec::new();
    let mut coordinates: Option<Coordinates> = None;
    loop {
        let start = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        let Ok(event) = reader.read_event() else {
            break;
        };
        let end = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        match event {
            Event::Start(element) => {
                let name = local_name(&element);
                if is_coordinates(&name) {
                    coordinates = Some(Coordinates {
                        start,
                        ..Coordinates::default()
                    });
                }
                open.push(name);
            }
            Event::Empty(element) => package_reference(&element, source.range(start, end), facts),
            Event::Text(text) => {
                let text = text.xml10_content().trim().to_owned();
                // Coordinates count only as direct children: an `<exclusion>` inside a
                // `<dependency>` has its own groupId and artifactId.
                let element = open.last().map(String::as_str);
                let parent = open.len().checked_sub(2).and_then(|i| open.get(i));
                let owned_by_coordinates = parent.is_some_and(|p| is_coordinates(p));
                xml_text(
                    element,
                    owned_by_coordinates,
                    text,
                    source.range(start, end),
                    &mut coordinates,
                    facts,
                );
            }
            Event::End(_) => {
                let name = open.pop();
                let closes = name.as_deref().is_some_and(is_coordinates);
                if let Some(found) = coordinates.take_if(|_| closes) {
                    facts
                        .manifest_entries
                        .extend(maven_entry(found, source, end));
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
}

/// Text inside an element: a coordinate, or a Java version property.
fn xml_text(
    element: Option<&str>,
    owned_by_coordinates: bool,
    text: String,
    span: Span,
    coordinates: &mut Option<Coordinates>,
    facts: &mut CodeFacts,
) {
    if text.is_empty() {
        return;
    }
    match (
        element,
        coordinates.as_mut().filter(|_| owned_by_coordinates),
    ) {
        (Some("groupId"), Some(found)) => found.group = Some(text),
        (Some("artifactId"), Some(found)) => found.artifact = Some(text),
        (Some("version"), Some(found)) => found.version = Some(text),
        (Some("java.version" | "maven.compiler.release" | "maven.compiler.source"), _) => {
            let package = "java".to_owned();
            let entry = ManifestEntry {
                ecosystem: Ecosystem::Runtime,
                package,
                constraint: Some(text),
                span,
            };
            facts.manifest_entries.push(entry);
        }
        _ => {}
    }
}

/// A finished `<dependency>`: `group:artifact` with its version, unless a part is missing.
fn maven_entry(found: Coordinates, source: Source<'_>, end: usize) -> Option<ManifestEntry> {
    let package = format!("{}:{}", found.group?, found.artifact?);
    let span = source.range(found.start, end);
    Some(ManifestEntry {
        ecosystem: Ecosystem::Maven,
        package,
        constraint: found.version,
        span,
    })
}

/// `<PackageReference Include="X" Version="1" />`.
fn package_reference(element: &BytesStart<'_>, span: Span, facts: &mut CodeFacts) {
    if local_name(element) != "PackageReference" {
        return;
    }
    let mut include = None;
    let mut version = None;
    for attribute in element.attributes().flatten() {
        match attribute.key.as_ref() {
            "Include" => include = Some(attribute.value.into_owned()),
            "Version" => version = Some(attribute.value.into_owned()),
            _ => {}
        }
    }
    if let Some(package) = include {
        facts.manifest_entries.push(ManifestEntry {
            ecosystem: Ecosystem::Nuget,
            package,
            constraint: version,
            span,
        });
    }
}

/// Elements whose `groupId`/`artifactId`/`version` children name one artifact.
fn is_coordinates(element: &str) -> bool {
    matches!(element, "dependency" | "parent" | "plugin")
}

fn local_name(element: &BytesStart<'_>) -> String {
    element.local_name().as_ref().to_owned()
}

/// A TOML pair's value: its last named child.
fn last_named_child(node: Node<'_>) -> Option<Node<'_>> {
    node.named_child(u32::try_from(node.named_child_count().checked_sub(1)?).ok()?)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{facts, spanned};
    use crate::project::Ecosystem;

    fn entries(lang: &str, text: &str) -> Vec<(Ecosystem, String, Option<String>)> {
        facts(lang, text)
            .manifest_entries
            .into_iter()
            .map(|e| (e.ecosystem, e.package, e.constraint))
            .collect()
    }

    fn entry(
        ecosystem: Ecosystem,
        package: &str,
        constraint: Option<&str>,
    ) -> (Ecosystem, String, Option<String>) {
        (ecosystem, package.to_owned(), constraint.map(str::to_owned))
    }

    #[test]
    fn cargo_and_pyproject_tables() {
        let text = "[package]\nrust-version = \"1.70\"\n\n[dependencies]\ntokio = { version = \"0.2\", features = [\"full\"] }\n\
                    serde = \"1\"\n\n[project]\nrequires-python = \">=3.9\"\ndependencies = [\"Pydantic>=2\", \"httpx\"]\n\n\
                    [tool.poetry.dependencies]\npython = \"^3.9\"\nDjango = \"^4.2\"\n";
        assert_eq!(
            entries("toml", text),
            [
                entry(Ecosystem::Runtime, "rust", Some("1.70")),
                entry(Ecosystem::Cargo, "tokio", Some("0.2")),
                entry(Ecosystem::Cargo, "serde", Some("1")),
                entry(Ecosystem::Runtime, "python", Some(">=3.9")),
                entry(Ecosystem::Pypi, "pydantic", Some(">=2")),
                entry(Ecosystem::Pypi, "httpx", None),
                entry(Ecosystem::Runtime, "python", Some("^3.9")),
                entry(Ecosystem::Pypi, "django", Some("^4.2")),
            ]
        );
    }

    #[test]
    fn package_json_and_composer_json_even_with_ellipsis() {
        let text = "{\n  \"dependencies\": { \"react\": \"^18.2.0\", \"@types/node\": \"20\" },\n  \"engines\": { \"node\": \">=18\" },\n  ...\n}\n";
        assert_eq!(
            entries("json", text),
            [
                entry(Ecosystem::Npm, "react", Some("^18.2.0")),
                entry(Ecosystem::Npm, "@types/node", Some("20")),
                entry(Ecosystem::Runtime, "node", Some(">=18")),
            ]
        );
        let composer = "{ \"require\": { \"php\": \"^8.2\", \"Laravel/Framework\": \"^11.0\", \"ext-json\": \"*\" } }";
        assert_eq!(
            entries("json", composer),
            [
                entry(Ecosystem::Runtime, "php", Some("^8.2")),
                entry(Ecosystem::Composer, "laravel/framework", Some("^11.0"))
            ]
        );
    }

    #[test]
    fn maven_fragments_and_package_references() {
        let text = "<parent>\n  <groupId>org.springframework.boot</groupId>\n  <artifactId>spring-boot-starter-parent</artifactId>\n  <version>2.7.18</version>\n</parent>\n\
                    <properties><java.version>11</java.version></properties>\n\
                    <dependency>\n  <groupId>junit</groupId>\n  <artifactId>junit</artifactId>\n</dependency>\n\
                    <PackageReference Include=\"Newtonsoft.Json\" Version=\"13.0.1\" />\n";
        let facts = facts("xml", text);
        let got: Vec<_> = facts
            .manifest_entries
            .iter()
            .map(|e| (e.ecosystem, e.package.as_str(), e.constraint.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    Ecosystem::Maven,
                    "org.springframework.boot:spring-boot-starter-parent",
                    Some("2.7.18")
                ),
                (Ecosystem::Runtime, "java", Some("11")),
                (Ecosystem::Maven, "junit:junit", None),
                (Ecosystem::Nuget, "Newtonsoft.Json", Some("13.0.1")),
            ]
        );
        assert!(spanned(text, facts.manifest_entries[0].span).starts_with("<parent>"));
        assert!(spanned(text, facts.manifest_entries[0].span).ends_with("</parent>"));
    }

    #[test]
    fn exclusions_do_not_rename_their_dependency() {
        let text = "<dependency><groupId>a</groupId><artifactId>b</artifactId><version>1</version>\
                    <exclusions><exclusion><groupId>x</groupId><artifactId>y</artifactId></exclusion></exclusions>\
                    </dependency>";
        assert_eq!(
            entries("xml", text),
            [entry(Ecosystem::Maven, "a:b", Some("1"))]
        );
    }

    #[test]
    fn dotted_cargo_keys() {
        let text = "[dependencies]\ntokio.version = \"1.38\"\ntokio.features = [\"full\"]\n";
        assert_eq!(
            entries("toml", text),
            [entry(Ecosystem::Cargo, "tokio", Some("1.38"))]
        );
    }

    #[test]
    fn broken_xml_keeps_what_came_before() {
        let text =
            "<dependency><groupId>a</groupId><artifactId>b</artifactId></dependency>\n<oops <<\n";
        assert_eq!(entries("xml", text), [entry(Ecosystem::Maven, "a:b", None)]);
    }
}

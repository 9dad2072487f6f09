//! JVM: `pom.xml` (parent, `${property}` placeholders, dependencyManagement, plugins),
//! `build.gradle(.kts)` (plugins block, dependencies and the Java release, the last in
//! `gradle_java`) and `gradle/libs.versions.toml`.

use std::collections::HashMap;
use std::path::Path;

use quick_xml::Reader;
use quick_xml::events::Event;
use toml::Spanned;
use toml::de::DeValue;

use super::locate::{LineIndex, at, to_u32};
use super::sink::Sink;
use super::toml_doc::{Doc, entries, get, table_at};
use super::tools::Role;
use super::{DepKind, Ecosystem, Located, RuntimeKind};

/// How many nested `${...}` references are followed before giving up (cycles).
const MAX_PLACEHOLDER_DEPTH: usize = 8;

/// Properties that name the Java release a Maven build targets.
const JAVA_PROPERTIES: &[&str] = &[
    "maven.compiler.release",
    "java.version",
    "maven.compiler.source",
];

/// A `<dependency>`, `<plugin>` or `<parent>` of a POM, as written.
#[derive(Default)]
struct PomEntry {
    group: String,
    artifact: String,
    version: Option<(String, (u32, u32))>,
    scope: String,
    optional: bool,
    kind: Option<DepKind>,
}

/// What one pass over a POM found.
#[derive(Default)]
struct Pom {
    properties: HashMap<String, (String, (u32, u32))>,
    entries: Vec<PomEntry>,
}

/// Reads a `pom.xml`.
pub(crate) fn read_pom(sink: &mut Sink, rel: &Path, text: &str) {
    let index = LineIndex::new(text);
    let pom = match parse_pom(text, &index) {
        Ok(pom) => pom,
        Err((offset, message)) => {
            let (line, column) = index.position(offset);
            return sink.diagnostic(rel, line, column, format!("invalid XML: {message}"));
        }
    };
    sink.tool(Role::BuildTool, "maven", at("pom.xml", rel, (1, 1)));
    sink.tool(Role::PackageManager, "maven", at("pom.xml", rel, (1, 1)));
    for key in JAVA_PROPERTIES {
        if let Some((value, position)) = pom.properties.get(*key) {
            sink.runtime("java", RuntimeKind::Pin, at(value.clone(), rel, *position));
            break;
        }
    }
    let managed = managed_versions(&pom);
    for entry in &pom.entries {
        declare_pom_entry(sink, rel, &pom, &managed, entry);
    }
}

fn declare_pom_entry(
    sink: &mut Sink,
    rel: &Path,
    pom: &Pom,
    managed: &HashMap<String, (String, (u32, u32))>,
    entry: &PomEntry,
) {
    let group = if entry.group.is_empty() && entry.kind == Some(DepKind::Plugin) {
        "org.apache.maven.plugins"
    } else {
        &entry.group
    };
    let name = format!(
        "{}:{}",
        expand(pom, group, 0),
        expand(pom, &entry.artifact, 0)
    );
    let version = entry.version.as_ref().or_else(|| managed.get(&name));
    let constraint = version
        .map(|(v, position)| at(expand(pom, v, 0), rel, literal_position(pom, v, *position)));
    let kind = entry.kind.unwrap_or_else(|| scope_kind(entry));
    if let (Some(DepKind::Parent), Some(version)) = (entry.kind, &constraint) {
        let evidence = at(
            format!("parent {name}"),
            rel,
            (version.line, version.column),
        );
        sink.tool(Role::BuildTool, "maven", evidence);
    }
    sink.declare(Ecosystem::Maven, &name, kind, constraint);
}

/// The kind a `<dependency>` declares through `<optional>` and `<scope>`.
fn scope_kind(entry: &PomEntry) -> DepKind {
    match entry.scope.as_str() {
        _ if entry.optional => DepKind::Optional,
        "test" => DepKind::Dev,
        "provided" => DepKind::Build,
        _ => DepKind::Normal,
    }
}

/// Where a version is written as a literal: a version that is exactly one `${property}`
/// points at the property's definition, the line a reader would change.
fn literal_position(pom: &Pom, version: &str, written: (u32, u32)) -> (u32, u32) {
    let key = version.strip_prefix("${").and_then(|v| v.strip_suffix('}'));
    key.and_then(|k| pom.properties.get(k))
        .filter(|(value, _)| !value.contains("${"))
        .map_or(written, |(_, position)| *position)
}

/// Versions from `<dependencyManagement>` by `group:artifact`, for dependencies that omit one.
fn managed_versions(pom: &Pom) -> HashMap<String, (String, (u32, u32))> {
    pom.entries
        .iter()
        .filter(|e| e.kind == Some(DepKind::Managed))
        .filter_map(|e| {
            let name = format!(
                "{}:{}",
                expand(pom, &e.group, 0),
                expand(pom, &e.artifact, 0)
            );
            Some((name, e.version.clone()?))
        })
        .collect()
}

/// Replaces `${name}` with the POM's property, leaving unknown references as written.
fn expand(pom: &Pom, value: &str, depth: usize) -> String {
    if depth >= MAX_PLACEHOLDER_DEPTH || !value.contains("${") {
        return value.to_string();
    }
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find('}') else {
            break;
        };
        let key = &rest[start + 2..start + end];
        match pom.properties.get(key) {
            Some((replacement, _)) => out.push_str(&expand(pom, replacement, depth + 1)),
            None => out.push_str(&rest[start..=start + end]),
        }
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    out
}

/// The kind of entry an element path opens, if it opens one.
fn entry_kind(path: &[String]) -> Option<Option<DepKind>> {
    let names: Vec<&str> = path.iter().map(String::as_str).collect();
    match names.as_slice() {
        ["project", "parent"] => Some(Some(DepKind::Parent)),
        [
            "project",
            "dependencyManagement",
            "dependencies",
            "dependency",
        ] => Some(Some(DepKind::Managed)),
        ["project", .., "plugins", "plugin"] => Some(Some(DepKind::Plugin)),
        ["project", "dependencies", "dependency"]
        | [
            "project",
            "profiles",
            "profile",
            "dependencies",
            "dependency",
        ] => Some(None),
        _ => None,
    }
}

/// One pass over the XML: properties, and every dependency-like entry with its version's
/// position. Errors carry the byte offset where the parser stopped.
fn parse_pom(text: &str, index: &LineIndex<'_>) -> Result<Pom, (usize, String)> {
    let mut reader = Reader::from_str(text);
    let mut pom = Pom::default();
    let mut path: Vec<String> = Vec::new();
    let mut open: Option<(usize, PomEntry)> = None;
    let mut text_start = 0usize;
    loop {
        let event = reader.read_event().map_err(|err| {
            (
                usize::try_from(reader.error_position()).unwrap_or(0),
                err.to_string(),
            )
        })?;
        match event {
            Event::Start(element) => {
                path.push(element.local_name().as_ref().to_string());
                text_start = usize::try_from(reader.buffer_position()).unwrap_or(0);
                if let Some(kind) = entry_kind(&path) {
                    open = Some((
                        path.len(),
                        PomEntry {
                            kind,
                            ..PomEntry::default()
                        },
                    ));
                }
            }
            Event::Text(content) => {
                let value = content.into_inner();
                let value = value.trim();
                if !value.is_empty() {
                    let position = index.position(text_start + leading_space(text, text_start));
                    record_text(&mut pom, &path, &mut open, value, position);
                }
            }
            Event::End(_) => {
                if let Some((depth, _)) = &open
                    && *depth == path.len()
                    && let Some((_, entry)) = open.take()
                {
                    pom.entries.push(entry);
                }
                path.pop();
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(pom)
}

fn leading_space(text: &str, offset: usize) -> usize {
    text.get(offset..)
        .map_or(0, |rest| rest.len() - rest.trim_start().len())
}

fn record_text(
    pom: &mut Pom,
    path: &[String],
    open: &mut Option<(usize, PomEntry)>,
    value: &str,
    position: (u32, u32),
) {
    if let Some((depth, entry)) = open
        && path.len() == *depth + 1
    {
        let field = path.last().map_or("", String::as_str);
        match field {
            "groupId" => entry.group = value.to_string(),
            "artifactId" => entry.artifact = value.to_string(),
            "version" => entry.version = Some((value.to_string(), position)),
            "scope" => entry.scope = value.to_string(),
            "optional" => entry.optional = value == "true",
            _ => {}
        }
        if entry.kind == Some(DepKind::Parent) && field == "version" {
            let version = (value.to_string(), position);
            pom.properties
                .insert("project.parent.version".into(), version);
        }
        return;
    }
    let names: Vec<&str> = path.iter().map(String::as_str).collect();
    match names.as_slice() {
        ["project", "properties", key] => {
            pom.properties
                .insert((*key).to_string(), (value.to_string(), position));
        }
        ["project", "version"] => {
            pom.properties
                .insert("project.version".into(), (value.to_string(), position));
        }
        _ => {}
    }
}

/// Gradle configurations that declare dependencies, and the kind each declares.
fn configuration_kind(word: &str) -> Option<DepKind> {
    Some(match word {
        "implementation" | "api" | "runtimeOnly" | "compile" | "runtime" => DepKind::Normal,
        "compileOnly" | "annotationProcessor" | "kapt" | "ksp" | "classpath" => DepKind::Build,
        w if w.starts_with("test") || w.starts_with("androidTest") => DepKind::Dev,
        _ => return None,
    })
}

/// Reads a `build.gradle` or `build.gradle.kts`, line by line: string-notation
/// dependencies, plugin ids with versions, and the Java release the build compiles for.
pub(crate) fn read_gradle(sink: &mut Sink, rel: &Path, text: &str) {
    let name = rel
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    sink.tool(Role::BuildTool, "gradle", at(name.clone(), rel, (1, 1)));
    sink.tool(Role::PackageManager, "gradle", at(name, rel, (1, 1)));
    let variables = gradle_variables(text);
    super::gradle_java::read_java_release(sink, rel, text, &variables);
    for (number, raw) in text.lines().enumerate() {
        let line = to_u32(number + 1);
        let trimmed = raw.trim_start();
        let column = to_u32(raw.len() - trimmed.len() + 1);
        let word: String = trimmed
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        if let Some(kind) = configuration_kind(&word) {
            gradle_dependency(sink, rel, &variables, trimmed, kind, (line, column));
        } else if word == "id" || word == "kotlin" {
            gradle_plugin(sink, rel, &variables, trimmed, &word, (line, column));
        }
    }
}

fn gradle_dependency(
    sink: &mut Sink,
    rel: &Path,
    variables: &HashMap<String, String>,
    line: &str,
    kind: DepKind,
    position: (u32, u32),
) {
    let Some((group, artifact, version)) = string_notation(line).or_else(|| map_notation(line))
    else {
        return;
    };
    let version = version.map(|v| substitute(variables, v));
    let constraint = version.map(|v| at(v, rel, position));
    sink.declare(
        Ecosystem::Maven,
        &format!("{group}:{artifact}"),
        kind,
        constraint,
    );
}

fn gradle_plugin(
    sink: &mut Sink,
    rel: &Path,
    variables: &HashMap<String, String>,
    line: &str,
    word: &str,
    position: (u32, u32),
) {
    let strings = quoted_strings(line);
    let Some(id) = strings.first() else {
        return;
    };
    let id = if word == "kotlin" {
        format!("org.jetbrains.kotlin.{id}")
    } else {
        (*id).to_string()
    };
    let version = line
        .contains(" version ")
        .then(|| strings.get(1))
        .flatten()
        .map(|v| at(substitute(variables, v), rel, position));
    if id == "org.springframework.boot" || id.starts_with("org.jetbrains.kotlin") {
        sink.tool(
            Role::BuildTool,
            "gradle",
            at(format!("plugin {id}"), rel, position),
        );
    }
    sink.declare(Ecosystem::Maven, &id, DepKind::Plugin, version);
}

/// `"group:artifact[:version]"`.
fn string_notation(line: &str) -> Option<(&str, &str, Option<&str>)> {
    let notation = quoted_strings(line).into_iter().next()?;
    let mut parts = notation.splitn(3, ':');
    let (group, artifact) = (parts.next()?, parts.next()?);
    // `project(":core")` names a subproject, not an artifact.
    let named = !group.is_empty() && !artifact.is_empty() && !line.contains("project(");
    named.then_some((group, artifact, parts.next()))
}

/// `group: 'g', name: 'a', version: 'v'` (Groovy map notation).
fn map_notation(line: &str) -> Option<(&str, &str, Option<&str>)> {
    let value = |key: &str| {
        let start = line.find(&format!("{key}:"))? + key.len() + 1;
        quoted_strings(&line[start..]).into_iter().next()
    };
    Some((value("group")?, value("name")?, value("version")))
}

/// The contents of the `"..."` or `'...'` strings of a line, in order.
fn quoted_strings(line: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find(['"', '\'']) {
        let quote = &rest[start..=start];
        let Some(len) = rest[start + 1..].find(quote) else {
            break;
        };
        found.push(&rest[start + 1..start + 1 + len]);
        rest = &rest[start + len + 2..];
    }
    found
}

/// `val name = "x"`, `def name = 'x'`, `name = "x"` (in `ext {}`) assignments.
pub(super) fn gradle_variables(text: &str) -> HashMap<String, String> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim();
            let line = ["val ", "def ", "var ", "ext."]
                .iter()
                .find_map(|p| line.strip_prefix(p))
                .unwrap_or(line);
            let (name, value) = line.split_once('=')?;
            let name = name.trim().split(':').next()?.trim();
            let value = quoted_strings(value).into_iter().next()?;
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                .then(|| (name.to_string(), value.to_string()))
        })
        .collect()
}

/// Replaces `$name` and `${name}` with known variables.
fn substitute(variables: &HashMap<String, String>, value: &str) -> String {
    let name = value
        .strip_prefix("${")
        .and_then(|v| v.strip_suffix('}'))
        .or_else(|| value.strip_prefix('$'));
    name.and_then(|n| variables.get(n))
        .cloned()
        .unwrap_or_else(|| value.to_string())
}

/// Reads a Gradle version catalog (`gradle/libs.versions.toml`).
pub(crate) fn read_version_catalog(sink: &mut Sink, rel: &Path, text: &str) {
    let Some(doc) = Doc::parse(sink, rel, text) else {
        return;
    };
    let versions: HashMap<&str, Located<String>> = table_at(&doc.root, &["versions"])
        .map(|t| {
            entries(t)
                .filter_map(|(k, v)| Some((k, catalog_version(&doc, v)?)))
                .collect()
        })
        .unwrap_or_default();
    if let Some(libraries) = table_at(&doc.root, &["libraries"]) {
        for (_, library) in entries(libraries) {
            if let Some((name, version)) = catalog_entry(&doc, &versions, library, "module") {
                sink.declare(Ecosystem::Maven, &name, DepKind::Managed, version);
            }
        }
    }
    if let Some(plugins) = table_at(&doc.root, &["plugins"]) {
        for (_, plugin) in entries(plugins) {
            if let Some((id, version)) = catalog_entry(&doc, &versions, plugin, "id") {
                sink.declare(Ecosystem::Maven, &id, DepKind::Plugin, version);
            }
        }
    }
}

/// A version written as a string or as `{ strictly | require | prefer = "..." }`.
fn catalog_version(doc: &Doc<'_>, value: &Spanned<DeValue<'_>>) -> Option<Located<String>> {
    match value.get_ref() {
        DeValue::Table(t) => ["strictly", "require", "prefer"]
            .iter()
            .find_map(|k| get(t, k).and_then(|v| doc.string(v))),
        _ => doc.string(value),
    }
}

/// A library (`"g:a:v"`, `{ module, version | version.ref }`, `{ group, name, ... }`) or a
/// plugin (`"id:v"`, `{ id, version | version.ref }`).
fn catalog_entry(
    doc: &Doc<'_>,
    versions: &HashMap<&str, Located<String>>,
    value: &Spanned<DeValue<'_>>,
    id_key: &str,
) -> Option<(String, Option<Located<String>>)> {
    if let Some(notation) = value.get_ref().as_str() {
        let (name, version) = match notation.rsplit_once(':') {
            Some((n, v)) if n.contains(':') || id_key == "id" => (n, Some(v)),
            _ => (notation, None),
        };
        return Some((
            name.to_string(),
            version.map(|v| doc.locate(v, value.span())),
        ));
    }
    let table = value.get_ref().as_table()?;
    let name = match get(table, id_key).and_then(|m| m.get_ref().as_str()) {
        Some(name) => name.to_string(),
        None => {
            let group = get(table, "group")?.get_ref().as_str()?;
            format!("{group}:{}", get(table, "name")?.get_ref().as_str()?)
        }
    };
    let version = get(table, "version").and_then(|v| match v.get_ref() {
        DeValue::Table(t) => match get(t, "ref").and_then(|r| r.get_ref().as_str()) {
            Some(reference) => versions.get(reference).cloned(),
            None => catalog_version(doc, v),
        },
        _ => doc.string(v),
    });
    Some((name, version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_expand_through_properties() {
        let mut pom = Pom::default();
        pom.properties.insert("a".into(), ("${b}-x".into(), (1, 1)));
        pom.properties.insert("b".into(), ("3.2".into(), (1, 1)));
        pom.properties
            .insert("loop".into(), ("${loop}".into(), (1, 1)));
        assert_eq!(expand(&pom, "${a}", 0), "3.2-x");
        assert_eq!(expand(&pom, "v${unknown}", 0), "v${unknown}");
        assert_eq!(expand(&pom, "${loop}", 0), "${loop}");
    }

    #[test]
    fn gradle_notations() {
        let map = "implementation group: 'com.google.guava', name: 'guava', version: '33.0.0-jre'";
        assert_eq!(
            map_notation(map),
            Some(("com.google.guava", "guava", Some("33.0.0-jre")))
        );
        assert_eq!(
            string_notation(r#"api("io.ktor:ktor-server-core:2.3.9")"#),
            Some(("io.ktor", "ktor-server-core", Some("2.3.9")))
        );
        assert_eq!(
            string_notation(r#"implementation(platform("a:b"))"#),
            Some(("a", "b", None))
        );
        assert_eq!(map_notation("implementation project(':core')"), None);
        assert_eq!(string_notation("implementation project(':core')"), None);
        assert_eq!(
            string_notation(r#"implementation(project(":api:v1"))"#),
            None
        );
    }

    #[test]
    fn gradle_strings_and_variables() {
        assert_eq!(
            quoted_strings(r#"id("a.b") version "1.0""#),
            vec!["a.b", "1.0"]
        );
        let vars = gradle_variables("val springVersion = \"3.2.0\"\ndef x = 'y'\n");
        assert_eq!(substitute(&vars, "$springVersion"), "3.2.0");
        assert_eq!(substitute(&vars, "${x}"), "y");
        assert_eq!(substitute(&vars, "$nope"), "$nope");
    }
}
